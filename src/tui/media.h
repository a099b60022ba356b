/*
 * media.h - pictures and point clouds in the detail pane (view-media.c):
 * a sensor_msgs/Image or CompressedImage is shown as a picture scaled to
 * the pane, a PointCloud2 as its field table, first points and a top-down
 * density picture. The detail pane owns the struct media.
 */
#ifndef BAGSCOPE_TUI_MEDIA_H
#define BAGSCOPE_TUI_MEDIA_H

#include <stdbool.h>

#include "tui/pane.h"

struct app;
struct media;

/*
 * Draw the selection in r if it is an image or a point cloud shown in the
 * decoded mode and its bytes are there; false (nothing drawn) otherwise.
 * *mdp is made on first use.
 */
bool media_draw(struct app *app, struct media **mdp, struct rect r);

/* Why the selection's picture could not be drawn (the pane shows the decoded tree), or NULL. */
const char *media_problem(const struct app *app, const struct media *md);

/*
 * After curses' refresh: write a 24-bit picture drawn since the last call
 * (curses knows only the blank cells under it) straight to the terminal;
 * covered: the pane is not on screen (repaint everything under it).
 */
void media_flush(struct app *app, struct media *md, bool covered);

/* Free it; accepts NULL. */
void media_free(struct media *md);

#endif
