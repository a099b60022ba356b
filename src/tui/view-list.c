/*
 * view-list.c - the message list: virtual over every row of the view, only
 * the rows in sight are looked at. Navigation is the model's (model_act).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/draw.h"

/* Rows [top, top + height) from the index; size and summary once the worker sent them. */
static void draw_list(struct app *app, struct rect r)
{
	struct model *m = &app->m;
	struct term_scratch sc = { 0 };
	uint64_t count = bag_view_count(m->view);
	char line[1024], t[40], size[16];
	struct bag_message msg;

	snprintf(line, sizeof line, " Messages  %llu shown%s", (unsigned long long)count,
	         m->relative ? "  (times relative to the start)" : "");
	draw_pane_title(app, r, line, PANE_LIST);
	int topic_w = 14;
	for (size_t i = 0; i < m->ntopics; i++)
		if (m->topics[i].shown && (int)strlen(term_str(&sc, m->topics[i].topic)) > topic_w)
			topic_w = (int)strlen(term_str(&sc, m->topics[i].topic));
	topic_w = topic_w > r.w / 4 ? r.w / 4 : topic_w;
	int num_w = snprintf(NULL, 0, "%llu", (unsigned long long)count);
	num_w = num_w < 3 ? 3 : num_w;
	for (int row = 0; row < r.h - 1; row++) {
		uint64_t i = m->top + (uint64_t)row;
		if (i >= count || bag_view_entry(m->view, i, &msg) != BAG_OK) {
			draw_put(r.y + 1 + row, r.x, r.w, i == 0 && count == 0 ? " (no messages shown)" : "");
			continue;
		}
		const struct summary *s = app_summary(app, work_key(msg.bag_index, msg.chunk, msg.offset));
		draw_fmt_time(app, msg.time_ns, t, sizeof t);
		if (s != NULL)
			snprintf(size, sizeof size, "%u", s->size);
		else
			snprintf(size, sizeof size, "...");
		snprintf(line, sizeof line, "%*llu %s %-*.*s %6s %s", num_w, (unsigned long long)i + 1, t, topic_w,
		         topic_w, term_str(&sc, msg.conn->topic), size, s ? s->text : "");
		bool sel = i == m->row;
		if (sel)
			attron(m->focus == PANE_LIST ? A_REVERSE : A_BOLD);
		if (s != NULL && s->rc != BAG_OK)
			draw_colour_on(app, C_ERROR, 0);
		draw_put(r.y + 1 + row, r.x, r.w, line);
		if (s != NULL && s->rc != BAG_OK)
			draw_colour_off(app, C_ERROR, 0);
		if (sel)
			attroff(m->focus == PANE_LIST ? A_REVERSE : A_BOLD);
	}
	term_scratch_free(&sc);
}

const struct pane_ops view_list_ops = {
	.title = "Messages",
	.draw = draw_list,
};
