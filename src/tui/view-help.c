/*
 * view-help.c - the help pane (?): the whole screen, modal, from the key
 * table (actions.h) and the pane table's help lines; it scrolls (j, k,
 * PgDn, PgUp) when taller than the screen, and any other key closes it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/draw.h"
#include "tui/keys.h"
#include "tui/scroll.h"

struct help_pane {
	bool open;
	uint64_t top;
};

/* Row i of the help: the keys, the count and the mouse, then the panes. */
static void row(const struct app *app, int i, char *line, size_t cap)
{
	int keys = ACTION_COUNT - 1;

	if (i < keys)
		snprintf(line, cap, "  %-16s %s", keys_describe((enum action)(i + 1)), keys_help((enum action)(i + 1)));
	else if (i == keys)
		snprintf(line, cap, "  %-16s %s", "0-9", "a count before a movement key (5j, 100G)");
	else if (i == keys + 1)
		snprintf(line, cap, "  %-16s %s", "mouse", "wheel scrolls, click selects, [x] toggles, timeline jumps");
	else if (i == keys + 2)
		snprintf(line, cap, "  %s", "panes (Tab moves between them):");
	else if (i - keys - 3 < PANE_COUNT && app->panes[i - keys - 3].ops->help != NULL)
		snprintf(line, cap, "  %-16s %s", app->panes[i - keys - 3].ops->title, app->panes[i - keys - 3].ops->help);
	else
		line[0] = '\0';
}

static void draw(struct app *app, struct pane *p)
{
	struct help_pane *s = p->state;
	int rows = p->r.h - 1, total = ACTION_COUNT - 1 + 3 + PANE_COUNT;
	bool above, below;

	scroll_keep(NULL, &s->top, (uint64_t)total, rows);
	above = s->top > 0;
	below = s->top + (uint64_t)rows < (uint64_t)total;
	erase();
	draw_colour_on(app, C_TITLE, A_BOLD);
	draw_put(0, 0, COLS, total > rows ? " bagscope keys  (j/k, PgDn/PgUp scroll; any other key closes)"
	                                  : " bagscope keys  (any key closes this help)");
	draw_colour_off(app, C_TITLE, A_BOLD);
	for (int y = 1; y <= rows; y++) {
		char line[256];
		row(app, (int)s->top + y - 1, line, sizeof line);
		draw_put(y, 0, COLS, line);
	}
	draw_put(LINES - 1, 0, COLS, above && below ? "  \xE2\x80\xA6 more below and above; bagscope(1) has the rest"
	                             : below ? "  \xE2\x80\xA6 more below; bagscope(1) has the rest"
	                             : above ? "  \xE2\x80\xA6 more above; bagscope(1) has the rest"
	                                     : "  bagscope(1) has the rest");
}

/* ? opens it; while open it takes every key: scroll, or close. */
static bool key(struct app *app, struct pane *p, enum action a, bool focused)
{
	struct help_pane *s = p->state;
	int64_t page = LINES / 2;

	(void)app;
	if (!s->open) {
		if (a == ACTION_HELP && !focused) {
			s->open = true;
			s->top = 0;
			return true;
		}
		return false;
	}
	if (a == ACTION_DOWN || a == ACTION_PAGE_DOWN || a == ACTION_HALF_DOWN)
		s->top += a == ACTION_DOWN ? 1 : (uint64_t)page;
	else if (a == ACTION_UP || a == ACTION_PAGE_UP || a == ACTION_HALF_UP)
		s->top = s->top > (uint64_t)(a == ACTION_UP ? 1 : page) ? s->top - (uint64_t)(a == ACTION_UP ? 1 : page) : 0;
	else if (a == ACTION_TOP)
		s->top = 0;
	else if (a == ACTION_BOTTOM)
		s->top = ACTION_COUNT + PANE_COUNT;
	else
		s->open = false;
	return true;
}

static int height(const struct app *app, const struct pane *p, int avail)
{
	const struct help_pane *s = p->state;

	(void)app;
	return s->open ? avail : 0;
}

static int init(struct app *app, struct pane *p)
{
	(void)app;
	return (p->state = calloc(1, sizeof(struct help_pane))) != NULL ? 0 : -1;
}

const struct pane_ops pane_help = {
	.title = "Help",
	.help = "this screen: every key, from the key table",
	.slot = SLOT_SCREEN,
	.init = init,
	.draw = draw,
	.key = key,
	.height = height,
};
