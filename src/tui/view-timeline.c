/*
 * view-timeline.c - the timeline at the bottom: the shown topics' message
 * density summed on the first row, then one strip per shown topic (display
 * order) on the rows the layout gave, labelled; the selection is a
 * reversed cell. Densities come from the index (model_density*) and are
 * kept until the view or the width changes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/draw.h"

struct timeline_pane {
	double *density;              /* bins, for density_view and density_w */
	const bag_view_t *density_view;
	int density_w;
	double *topic_density;        /* per-topic strips: ntopics x topic_density_w bins */
	int topic_density_w;
};

static void draw_strip(struct app *app, int y, int x, const double *bins, int w, int cur)
{
	static const char *const blocks[] = { " ", "\xE2\x96\x81", "\xE2\x96\x82", "\xE2\x96\x83", "\xE2\x96\x84",
	                                      "\xE2\x96\x85", "\xE2\x96\x86", "\xE2\x96\x87", "\xE2\x96\x88" };
	static const char ascii[] = " .:-=+*#%@";
	double max = 0;

	for (int i = 0; i < w; i++)
		max = bins[i] > max ? bins[i] : max;
	move(y, x);
	for (int i = 0; i < w; i++) {
		int level = max > 0 && bins[i] > 0 ? 1 + (int)(bins[i] / max * 7.999) : 0;
		if (i == cur)
			attron(A_REVERSE);
		if (app->utf8)
			addstr(blocks[level]);
		else
			addch((chtype)ascii[level]);
		if (i == cur)
			attroff(A_REVERSE);
	}
}

/*
 * The timeline: the shown topics summed on the first line, then one strip
 * per shown topic (display order) on the lines the layout gave, labelled.
 */
static void draw(struct app *app, struct pane *p)
{
	struct model *m = &app->m;
	struct timeline_pane *s = p->state;
	struct rect r = p->r;
	int w = r.w - 10;

	if (w <= 0)
		return;
	if (s->density_view != m->view || s->density_w != w) {
		free(s->density);
		s->density = calloc((size_t)w, sizeof *s->density);
		if (s->density == NULL)
			return;
		model_density(m, s->density, w);
		s->density_view = m->view;
		s->density_w = w;
	}
	if ((r.h - 1) > 0 && s->topic_density_w != w) {
		free(s->topic_density);
		s->topic_density = calloc(m->ntopics * (size_t)w, sizeof *s->topic_density);
		s->topic_density_w = s->topic_density ? w : 0;
		if (s->topic_density != NULL)
			model_density_topics(m, s->topic_density, w);
	}
	double span = (double)(m->end_ns - m->start_ns);
	int cur = span > 0 ? (int)((double)(model_time(m) - m->start_ns) / span * w) : 0;
	cur = cur < 0 ? 0 : cur >= w ? w - 1 : cur;
	draw_colour_on(app, C_DIM, 0);
	char title[24];
	snprintf(title, sizeof title, " %s ", p->ops->title);
	draw_put(r.y, r.x, 10, title);
	draw_colour_off(app, C_DIM, 0);
	draw_strip(app, r.y, r.x + 10, s->density, w, cur);
	if ((r.h - 1) == 0 || s->topic_density == NULL)
		return;
	struct term_scratch sc = { 0 };
	int y = r.y + 1;
	for (size_t i = 0; i < m->ntopics && y < r.y + r.h; i++) {
		size_t t = m->order[i];
		if (!m->topics[t].shown)
			continue;
		const char *name = term_str(&sc, m->topics[t].topic);
		size_t len = strlen(name), tail = len > 7 ? len - 7 : 0;
		char label[24];
		/* the topic's tail: "…imu/data" reads better than its head */
		while (tail > 0 && (name[tail] & 0xC0) == 0x80)
			tail--;
		if (len <= 8)
			snprintf(label, sizeof label, " %-8s ", name);
		else
			snprintf(label, sizeof label, " %s%s ", app->utf8 ? "\xE2\x80\xA6" : "~", name + tail);
		draw_colour_on(app, C_DIM, 0);
		draw_put(y, r.x, 10, label);
		draw_colour_off(app, C_DIM, 0);
		draw_strip(app, y, r.x + 10, s->topic_density + t * (size_t)w, w, cur);
		y++;
	}
	term_scratch_free(&sc);
}

/* The summed row, and a strip per topic as room allows (a tenth of the screen, 6 at most). */
static int height(const struct app *app, const struct pane *p, int avail)
{
	const struct model *m = &app->m;
	int strips = (int)m->ntopics < LINES / 10 ? (int)m->ntopics : LINES / 10;

	(void)p;
	(void)avail;
	if (strips > 6)
		strips = 6;
	if (strips < 0 || m->ntopics < 2)
		strips = 0;
	return 1 + strips;
}

/* A click jumps to that time; the list takes the focus. */
static void click(struct app *app, struct pane *p, int row, int col)
{
	struct model *m = &app->m;
	int w = p->r.w - 10;

	(void)row;
	if (w <= 0 || col < 10)
		return;
	model_seek(m, m->start_ns + (int64_t)((double)(col - 10) / w * (double)(m->end_ns - m->start_ns)));
	m->focus = PANE_LIST;
}

static int init(struct app *app, struct pane *p)
{
	(void)app;
	return (p->state = calloc(1, sizeof(struct timeline_pane))) != NULL ? 0 : -1;
}

static void pane_free(struct app *app, struct pane *p)
{
	struct timeline_pane *s = p->state;

	(void)app;
	if (s != NULL) {
		free(s->density);
		free(s->topic_density);
	}
}

const struct pane_ops pane_timeline = {
	.title = "timeline",
	.help = "message density over the bag's span, summed and per topic; a click jumps there",
	.slot = SLOT_BOTTOM,
	.init = init,
	.draw = draw,
	.height = height,
	.click = click,
	.free = pane_free,
};
