/*
 * media.h - pictures and point clouds in the detail pane (view-media.c):
 * a sensor_msgs/Image or CompressedImage is shown as a picture scaled to
 * the pane, a PointCloud2 as its field table, first points and a top-down
 * density picture. Hooks for draw.c and view-detail.c.
 */
#ifndef BAGSCOPE_TUI_MEDIA_H
#define BAGSCOPE_TUI_MEDIA_H

#include <stdbool.h>

struct app;
struct rect;

/*
 * Draw the selection in r if it is an image or a point cloud shown in the
 * decoded mode and its bytes are there; false (nothing drawn) otherwise.
 */
bool media_draw(struct app *app, struct rect r);

/*
 * After curses' refresh: write a 24-bit picture drawn since the last call
 * (curses knows only the blank cells under it) straight to the terminal.
 */
void media_flush(struct app *app);

/* Free what the media view keeps; accepts an app that never showed one. */
void media_free(struct app *app);

#endif
