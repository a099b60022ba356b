/* view-detail.h - what other panes ask of the detail pane (view-detail.c). */
#ifndef BAGSCOPE_TUI_VIEW_DETAIL_H
#define BAGSCOPE_TUI_VIEW_DETAIL_H

#include <stddef.h>

#include "tui/detail.h"

struct app;

/* Enter on a topic: its connections in the detail, shown or not (Esc: back). */
void detail_pane_show_topic(struct app *app, size_t topic);
/* The line under the detail's cursor, or NULL. */
const struct dline *detail_pane_cursor_line(struct app *app);

#endif
