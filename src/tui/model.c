/*
 * model.c - the view model (see model.h). Topics come from the timeline's
 * connections, grouped by name; rates and densities come from the chunk
 * infos, so nothing here reads chunk data. The list cursor is a row of the
 * current view; when the filter changes, the cursor keeps its time.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/model.h"
#include "tui/scroll.h"
#include "common/timeparse.h"

#define DENSITY_EXACT_ROWS 262144   /* rows an exact density may load before the first screen */


static int cmp_order(const void *a, const void *b, void *arg)
{
	const struct model *m = arg;
	const struct topic_row *x = &m->topics[*(const size_t *)a], *y = &m->topics[*(const size_t *)b];

	if (m->sort == SORT_COUNT && x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (m->sort == SORT_RATE && x->rate_hz != y->rate_hz)
		return x->rate_hz > y->rate_hz ? -1 : 1;
	return strcmp(x->topic, y->topic);
}

static void sort_topics(struct model *m)
{
	size_t selected = m->ntopics ? m->order[m->topic_cursor] : 0;

	qsort_r(m->order, m->ntopics, sizeof *m->order, cmp_order, m);
	for (size_t i = 0; i < m->ntopics; i++)
		if (m->order[i] == selected)
			m->topic_cursor = i;
}

/* Each topic's rate at first (bag_rate_hz over the span of the chunks that hold it), until the exact one. */
static void topic_rates(struct model *m)
{
	size_t n = bag_timeline_conn_count(m->tl), base = 0;
	int64_t *lo = malloc((n + 1) * sizeof *lo), *hi = malloc((n + 1) * sizeof *hi);

	if (lo == NULL || hi == NULL)
		goto done;
	for (size_t i = 0; i < n; i++) {
		lo[i] = INT64_MAX;
		hi[i] = INT64_MIN;
	}
	/* one pass over every chunk's connections: each connection's span */
	for (size_t b = 0; b < bag_timeline_bag_count(m->tl); b++) {
		bag_t *bag = bag_timeline_bag(m->tl, b);
		for (size_t ch = 0; ch < bag_chunk_count(bag); ch++) {
			int64_t s, e;
			bag_chunk_span(bag, ch, &s, &e);
			for (size_t k = 0; k < bag_chunk_conn_n(bag, ch); k++) {
				size_t ci;
				uint32_t count;
				bag_chunk_conn_at(bag, ch, k, &ci, &count);
				if (count == 0)
					continue;
				lo[base + ci] = s < lo[base + ci] ? s : lo[base + ci];
				hi[base + ci] = e > hi[base + ci] ? e : hi[base + ci];
			}
		}
		base += bag_conn_count(bag);
	}
	for (size_t t = 0; t < m->ntopics; t++) {
		struct topic_row *r = &m->topics[t];
		int64_t l = INT64_MAX, h = INT64_MIN;
		for (size_t k = 0; k < r->nconns; k++) {
			l = lo[r->conns[k]] < l ? lo[r->conns[k]] : l;
			h = hi[r->conns[k]] > h ? hi[r->conns[k]] : h;
		}
		r->rate_hz = bag_rate_hz(r->count, l, h);
	}
done:
	free(lo);
	free(hi);
}

/* Timeline connection indices ordered by topic, then index (qsort_r). */
static int cmp_conn_topic(const void *a, const void *b, void *arg)
{
	const bag_timeline_t *tl = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(bag_timeline_conn(tl, x, NULL)->topic, bag_timeline_conn(tl, y, NULL)->topic);

	return c ? c : (x > y) - (x < y);
}

int model_init(struct model *m, bag_timeline_t *tl)
{
	size_t n = bag_timeline_conn_count(tl);

	memset(m, 0, sizeof *m);
	m->tl = tl;
	m->focus = PANE_LIST;
	m->start_ns = bag_timeline_start(tl);
	m->end_ns = bag_timeline_end(tl);
	m->topics = calloc(n ? n : 1, sizeof *m->topics);
	m->order = calloc(n ? n : 1, sizeof *m->order);
	m->topic_conns = malloc((n ? n : 1) * sizeof *m->topic_conns);
	m->topic_of = calloc(n ? n : 1, sizeof *m->topic_of);
	if (m->topics == NULL || m->order == NULL || m->topic_conns == NULL || m->topic_of == NULL)
		return BAG_ENOMEM;
	/* group by sorting: a topic's connections are one run of topic_conns */
	for (size_t i = 0; i < n; i++)
		m->topic_conns[i] = i;
	qsort_r(m->topic_conns, n, sizeof *m->topic_conns, cmp_conn_topic, tl);
	for (size_t k = 0; k < n; k++) {
		size_t b;
		const struct bag_connection *c = bag_timeline_conn(tl, m->topic_conns[k], &b);
		struct topic_row *r = &m->topics[m->ntopics];
		if (k == 0 || strcmp(r[-1].topic, c->topic) != 0) {
			m->ntopics++;
			r->topic = c->topic;
			r->type = c->type;
			r->shown = true;
			r->conns = &m->topic_conns[k];
		} else {
			r--;
		}
		r->nconns++;
		r->count += c->message_count;
		r->count_pending |= !bag_counts_exact(bag_timeline_bag(tl, b));
		m->counts = r->count_pending ? COUNTS_PENDING : m->counts;
	}
	for (size_t t = 0; t < m->ntopics; t++) {
		m->order[t] = t;
		for (size_t k = 0; k < m->topics[t].nconns; k++)
			m->topic_of[m->topics[t].conns[k]] = t;
	}
	topic_rates(m);
	sort_topics(m);
	return model_refilter(m);
}

void model_set_rates(struct model *m, const double *hz)
{
	for (size_t t = 0; t < m->ntopics; t++) {
		m->topics[t].rate_hz = hz[t];
		m->topics[t].rate_exact = true;
	}
	sort_topics(m);
}

void model_set_counts(struct model *m, const uint64_t *conn_counts)
{
	size_t base = 0;

	for (size_t b = 0; b < bag_timeline_bag_count(m->tl); b++) {
		bag_t *bag = bag_timeline_bag(m->tl, b);
		if (!bag_counts_exact(bag))
			bag_counts_set(bag, conn_counts + base);
		base += bag_conn_count(bag);
	}
	for (size_t t = 0; t < m->ntopics; t++) {
		struct topic_row *r = &m->topics[t];
		r->count = 0;
		for (size_t k = 0; k < r->nconns; k++)
			r->count += bag_timeline_conn(m->tl, r->conns[k], NULL)->message_count;
		r->count_pending = false;
	}
	m->counts = m->counts == COUNTS_PENDING ? COUNTS_GIVEN : m->counts;
	sort_topics(m);
}

uint64_t model_title_count(const struct model *m, bool *estimate)
{
	uint64_t n = 0;

	*estimate = m->counts == COUNTS_PENDING;
	if (m->counts != COUNTS_GIVEN)
		return bag_timeline_count(m->tl);
	for (size_t t = 0; t < m->ntopics; t++)
		n += m->topics[t].count;
	return n;
}

void model_free(struct model *m)
{
	bag_view_free(m->view);
	free(m->topic_conns);
	free(m->topics);
	free(m->order);
	free(m->topic_of);
	free(m->frows);
	memset(m, 0, sizeof *m);
}

uint64_t model_count(const struct model *m)
{
	if (m->filtered)
		return m->nfrows;
	return m->view ? bag_view_count(m->view) : 0;
}

uint64_t model_view_row(const struct model *m, uint64_t i)
{
	return m->filtered ? (i < m->nfrows ? m->frows[i] : UINT64_MAX) : i;
}

int model_entry(struct model *m, uint64_t i, struct bag_message *msg)
{
	uint64_t row;
	size_t g;

	if (m->view == NULL || i >= model_count(m))
		return BAG_EINVAL;
	row = model_view_row(m, i);
	if (m->ready != NULL && !bag_view_row_loaded(m->view, row, &g) && !m->ready(m->ready_arg, g))
		return MODEL_PENDING;   /* keys never wait for the network: drawn when it is in */
	return bag_view_entry(m->view, row, msg);
}

/* The first filtered row whose view row is >= vrow (nfrows if none). */
static uint64_t frow_lower(const struct model *m, uint64_t vrow)
{
	size_t lo = 0, hi = m->nfrows;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->frows[mid] < vrow)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void keep_in_sight(struct model *m)
{
	scroll_keep(&m->row, &m->top, model_count(m), m->list_height);
}

int64_t model_time(struct model *m)
{
	struct bag_message msg;

	if (m->view == NULL || model_entry(m, m->row, &msg) != BAG_OK)
		return m->start_ns;
	return msg.time_ns;
}

int model_refilter(struct model *m)
{
	size_t n = bag_timeline_conn_count(m->tl);
	bool *mask = calloc(n ? n : 1, sizeof *mask);
	struct bag_query q;
	bag_view_t *view = NULL;
	int64_t t = m->view ? model_time(m) : m->start_ns;
	int rc;

	if (mask == NULL)
		return BAG_ENOMEM;
	for (size_t i = 0; i < m->ntopics; i++)
		for (size_t k = 0; k < m->topics[i].nconns; k++)
			mask[m->topics[i].conns[k]] = m->topics[i].shown;
	bag_query_init(&q);
	q.conn_mask = mask;
	rc = bag_view_open(&view, m->tl, &q);
	free(mask);
	if (rc != BAG_OK) {
		snprintf(m->note, sizeof m->note, "%s", bag_view_error(view)->message);
		bag_view_free(view);
		return rc;
	}
	bag_view_free(m->view);
	m->view = view;
	if (m->filtered) {
		m->nfrows = 0;
		m->filter_stale = true;
	}
	/* an index that cannot be read at t is said in the note and its rows; the view stays */
	model_seek(m, t);
	return BAG_OK;
}

void model_goto(struct model *m, uint64_t row)
{
	m->row = row;
	keep_in_sight(m);
}

void model_goto_view_row(struct model *m, uint64_t vrow)
{
	model_goto(m, m->filtered ? frow_lower(m, vrow) : vrow);
}

void model_filter_off(struct model *m)
{
	uint64_t vrow = model_view_row(m, m->row);

	m->filtered = m->filter_stale = false;
	m->nfrows = 0;
	if (vrow != UINT64_MAX)
		model_goto(m, vrow);
}

void model_move(struct model *m, int64_t delta)
{
	uint64_t count = model_count(m);

	if (count == 0)
		return;
	if (delta < 0 && (uint64_t)-delta > m->row)
		m->row = 0;
	else if (delta > 0 && m->row + (uint64_t)delta >= count)
		m->row = count - 1;
	else
		m->row += (uint64_t)delta;
	keep_in_sight(m);
}

int model_seek_ready(struct model *m, bag_view_t *v, int64_t t, uint64_t *row, size_t *group)
{
	int rc;

	if (m->ready == NULL)
		return bag_view_seek(v, t, row);
	rc = bag_view_seek_loaded(v, t, row, group);
	if (rc == 1 && m->ready(m->ready_arg, *group))
		rc = bag_view_seek(v, t, row);   /* fetched: loaded from memory */
	return rc;
}

bool model_row_ready(struct model *m, bag_view_t *v, uint64_t row)
{
	size_t g;

	if (m->ready == NULL || bag_view_row_loaded(v, row, &g) || m->ready(m->ready_arg, g))
		return true;
	snprintf(m->note, sizeof m->note, "the index there is being fetched: press again when it is in");
	return false;
}

/*
 * The first row at or after t: exact when its group's index is in; for a
 * URL bag whose group is still being fetched, that group's first row, the
 * seek left pending (1; model_settle).
 */
static int seek_row(struct model *m, int64_t t, uint64_t *row)
{
	size_t group;
	int rc;

	m->seek_pending = false;
	if ((rc = model_seek_ready(m, m->view, t, row, &group)) != 1)
		return rc;
	m->seek_pending = true;
	m->seek_t = t;
	m->seek_group = group;
	return 1;
}

bool model_settle(struct model *m)
{
	uint64_t before = m->row;

	if (!m->seek_pending || !m->ready(m->ready_arg, m->seek_group))
		return false;
	model_seek(m, m->seek_t);
	return m->row != before;
}

void model_seek_drop(struct model *m)
{
	m->seek_pending = false;
}

int model_seek(struct model *m, int64_t t)
{
	uint64_t row;
	int rc = seek_row(m, t, &row);

	if (rc < 0) {
		snprintf(m->note, sizeof m->note, "%s", bag_view_error(m->view)->message);
		keep_in_sight(m);
		return rc;
	}
	if (m->filtered)
		row = frow_lower(m, row);
	/* past the last message: stay on the last one */
	uint64_t count = model_count(m);
	m->row = row < count ? row : (count ? count - 1 : 0);
	if (m->row < m->top || m->row >= m->top + (uint64_t)(m->list_height > 0 ? m->list_height : 1))
		m->top = m->row > (uint64_t)m->list_height / 3 ? m->row - (uint64_t)m->list_height / 3 : 0;
	keep_in_sight(m);
	return BAG_OK;
}

/* Select the message at or after t; a time outside the bag goes to its end, with a note. */
static int seek_clamped(struct model *m, int64_t t)
{
	int rc = model_seek(m, t);

	if (rc == BAG_OK && model_count(m) > 0 && t < m->start_ns)
		snprintf(m->note, sizeof m->note, "before the bag's start: at the first message");
	else if (rc == BAG_OK && model_count(m) > 0 && t > m->end_ns)
		snprintf(m->note, sizeof m->note, "after the bag's end: at the last message");
	return rc;
}

int model_jump(struct model *m, const char *expr)
{
	struct jump j;
	const char *why;

	if (jump_parse_zone(expr, m->start_ns, m->end_ns, model_time(m), !m->local, &j, &why) != 0) {
		snprintf(m->note, sizeof m->note, "jump: %s", why);
		return -1;
	}
	if (j.from == JUMP_FROM_DATE && bag_timeline_bag_count(m->tl) > 0 &&
	    bag_relative_times(bag_timeline_bag(m->tl, 0))) {
		snprintf(m->note, sizeof m->note, "jump: this bag has no dates (an old recorder's times since it "
		         "started): give +offset, as +12.5 or +1m30s");
		return -1;
	}
	if (j.kind == JUMP_ROW) {
		uint64_t count = model_count(m);
		if (count == 0)
			return 0;
		if (j.row >= count) {
			snprintf(m->note, sizeof m->note, "there are %llu rows: at the last one", (unsigned long long)count);
			j.row = count - 1;
		}
		model_goto(m, j.row);
		return 0;
	}
	uint64_t before = m->row;
	int64_t now = model_time(m);
	if (seek_clamped(m, j.time_ns) != BAG_OK)
		return -1;
	/* back into a gap: nothing between there and here, so the last message before there */
	if (j.from == JUMP_FROM_HERE && j.time_ns < now && m->row >= before && before > 0)
		model_goto(m, before - 1);
	return 0;
}

void model_step_time(struct model *m, int64_t delta_ns)
{
	uint64_t before = m->row, count = model_count(m);
	int64_t now = model_time(m), to = delta_ns < 0 && now < INT64_MIN - delta_ns ? INT64_MIN : now + delta_ns;

	if (count == 0)
		return;
	if (delta_ns > 0 && m->row + 1 >= count) {
		snprintf(m->note, sizeof m->note, "at the last message");
		return;
	}
	if (delta_ns < 0 && m->row == 0) {
		snprintf(m->note, sizeof m->note, "at the first message");
		return;
	}
	if (model_seek(m, to) != BAG_OK)
		return;
	/* a gap before the selection: nothing in [now - N, now): the last message before it */
	if (delta_ns < 0 && m->row >= before)
		model_goto(m, before - 1);
}

int model_goto_message(struct model *m, const struct bag_message *msg)
{
	struct bag_message cur;
	uint64_t row;
	int rc;

	/* the first row at its time, then forward; its index being fetched: its time, exact when in */
	size_t g;
	if ((rc = model_seek_ready(m, m->view, msg->time_ns, &row, &g)) == 1)
		return model_seek(m, msg->time_ns);
	if (rc != BAG_OK)
		return rc;
	for (uint64_t r = row; r < bag_view_count(m->view); r++) {
		if (!model_row_ready(m, m->view, r) || bag_view_entry(m->view, r, &cur) != BAG_OK ||
		    cur.time_ns != msg->time_ns)
			break;
		if (cur.chunk == msg->chunk && cur.offset == msg->offset && cur.bag_index == msg->bag_index) {
			model_goto_view_row(m, r);
			break;
		}
	}
	return BAG_OK;
}

int model_step_same_topic(struct model *m, int dir)
{
	struct bag_message cur, msg;
	const char *topic;
	bag_view_t *one = NULL;
	struct bag_query q;
	uint64_t row;
	int rc;

	if (model_entry(m, m->row, &cur) != BAG_OK)
		return -1;
	topic = cur.conn->topic;
	bag_query_init(&q);
	q.topics = &topic;
	q.ntopics = 1;
	if ((rc = bag_view_open(&one, m->tl, &q)) != BAG_OK)
		goto done;
	/* this message's place among its topic's, then the neighbour's time */
	size_t g;
	if ((rc = model_seek_ready(m, one, cur.time_ns, &row, &g)) == 1)
		model_row_ready(m, one, row);   /* the note */
	if (rc != BAG_OK)
		goto done;
	for (; row < bag_view_count(one); row++) {
		if (!model_row_ready(m, one, row)) {
			rc = -1;
			goto done;
		}
		if (bag_view_entry(one, row, &msg) != BAG_OK || msg.time_ns != cur.time_ns ||
		    (msg.chunk == cur.chunk && msg.offset == cur.offset && msg.bag_index == cur.bag_index))
			break;
	}
	if ((dir > 0 && row + 1 >= bag_view_count(one)) || (dir < 0 && row == 0)) {
		snprintf(m->note, sizeof m->note, "no %s message on %s", dir > 0 ? "later" : "earlier", topic);
		rc = -1;
		goto done;
	}
	row = dir > 0 ? row + 1 : row - 1;
	if (!model_row_ready(m, one, row) || (rc = bag_view_entry(one, row, &msg)) != BAG_OK) {
		rc = rc != BAG_OK ? rc : -1;
		goto done;
	}
	rc = model_goto_message(m, &msg);
done:
	bag_view_free(one);
	return rc;
}

struct topic_row *model_topic(struct model *m)
{
	return m->ntopics ? &m->topics[m->order[m->topic_cursor]] : NULL;
}

struct topic_row *model_focused_topic(struct model *m)
{
	struct bag_message msg;

	if (m->focus != PANE_CONNS && model_entry(m, m->row, &msg) == BAG_OK)
		return &m->topics[m->topic_of[msg.conn_index]];
	return model_topic(m);
}

static void topic_move(struct model *m, long delta)
{
	if (m->ntopics > 0)
		scroll_by(&m->topic_cursor, &m->topic_top, m->ntopics, m->topic_height, delta);
}

bool model_act(struct model *m, enum action a)
{
	int64_t page = m->list_height > 1 ? m->list_height - 1 : 1;
	struct topic_row *t;

	if (m->focus == PANE_CONNS) {
		switch (a) {
		case ACTION_UP: topic_move(m, -1); return true;
		case ACTION_DOWN: topic_move(m, 1); return true;
		case ACTION_PAGE_UP: topic_move(m, -(m->topic_height > 1 ? m->topic_height - 1 : 1)); return true;
		case ACTION_PAGE_DOWN: topic_move(m, m->topic_height > 1 ? m->topic_height - 1 : 1); return true;
		case ACTION_TOP: topic_move(m, -(long)m->ntopics); return true;
		case ACTION_BOTTOM: topic_move(m, (long)m->ntopics); return true;
		default: break;
		}
	} else if (m->focus == PANE_LIST) {
		switch (a) {
		case ACTION_UP: model_move(m, -1); return true;
		case ACTION_DOWN: model_move(m, 1); return true;
		case ACTION_PAGE_UP: model_move(m, -page); return true;
		case ACTION_PAGE_DOWN: model_move(m, page); return true;
		case ACTION_TOP: model_goto(m, 0); return true;
		case ACTION_BOTTOM: model_goto(m, model_count(m) ? model_count(m) - 1 : 0); return true;
		default: break;
		}
	}
	switch (a) {
	case ACTION_NEXT_PANE: m->focus = (enum pane_id)((m->focus + 1) % PANE_COUNT); return true;
	case ACTION_PREV_PANE: m->focus = (enum pane_id)((m->focus + PANE_COUNT - 1) % PANE_COUNT); return true;
	case ACTION_TOGGLE_TOPIC:
		if ((t = model_focused_topic(m)) != NULL) {
			t->shown = !t->shown;
			model_refilter(m);
		}
		return true;
	case ACTION_SOLO_TOPIC:
		if ((t = model_focused_topic(m)) != NULL) {
			for (size_t i = 0; i < m->ntopics; i++)
				m->topics[i].shown = &m->topics[i] == t;
			model_refilter(m);
		}
		return true;
	case ACTION_ALL_TOPICS:
		for (size_t i = 0; i < m->ntopics; i++)
			m->topics[i].shown = true;
		model_refilter(m);
		return true;
	case ACTION_SORT:
		m->sort = (enum sort_mode)((m->sort + 1) % SORT_COUNT_);
		sort_topics(m);
		topic_move(m, 0);
		return true;
	case ACTION_TIME_MODE:
		/* epoch, then relative, then the time of day */
		if (m->clock)
			m->clock = false;
		else if (m->relative)
			m->relative = false, m->clock = true;
		else
			m->relative = true;
		return true;
	case ACTION_DETAIL_MODE: m->detail = (enum detail_mode)((m->detail + 1) % DETAIL_COUNT_); return true;
	case ACTION_HEX: m->detail = m->detail == DETAIL_HEX ? DETAIL_DECODED : DETAIL_HEX; return true;
	case ACTION_NEXT_SAME: model_step_same_topic(m, 1); return true;
	case ACTION_PREV_SAME: model_step_same_topic(m, -1); return true;
	case ACTION_FWD_1S: model_step_time(m, 1000000000LL); return true;
	case ACTION_BACK_1S: model_step_time(m, -1000000000LL); return true;
	case ACTION_FWD_10S: model_step_time(m, 10000000000LL); return true;
	case ACTION_BACK_10S: model_step_time(m, -10000000000LL); return true;
	default: return false;
	}
}

/* Exact counts per bin from the view: rows between the bins' start times. */
/* Count rows of view v per bin by seeking at the bin edges (index only). */
static bool density_exact(const struct model *m, bag_view_t *v, double *bins, int nbins)
{
	uint64_t prev = 0, row;
	double span = (double)(m->end_ns - m->start_ns);

	for (int b = 1; b <= nbins; b++) {
		int64_t t = b == nbins ? INT64_MAX : m->start_ns + (int64_t)(span * b / nbins);
		if (t == INT64_MAX)
			row = bag_view_count(v);
		else if (bag_view_seek(v, t, &row) != BAG_OK)
			return false;
		bins[b - 1] = (double)(row - prev);
		prev = row;
	}
	return true;
}

/* Spread each chunk's count of topic r's connections over the bins it spans. */
/*
 * Density from the chunk infos for the timeline connections in mask: each
 * chunk's count spread evenly over the bins its time range covers.
 */
static void density_chunks(const struct model *m, const bool *mask, double *bins, int nbins)
{
	double span = (double)(m->end_ns - m->start_ns);
	size_t base = 0;

	for (size_t bi = 0; bi < bag_timeline_bag_count(m->tl); bi++) {
		bag_t *bag = bag_timeline_bag(m->tl, bi);
		for (size_t ch = 0; ch < bag_chunk_count(bag); ch++) {
			uint32_t n = 0, count;
			size_t ci;
			int64_t s, e;
			for (size_t k = 0; k < bag_chunk_conn_n(bag, ch); k++) {
				bag_chunk_conn_at(bag, ch, k, &ci, &count);
				if (mask[base + ci])
					n += count;
			}
			if (n == 0)
				continue;
			bag_chunk_span(bag, ch, &s, &e);
			int b0 = span > 0 ? (int)((double)(s - m->start_ns) / span * nbins) : 0;
			int b1 = span > 0 ? (int)((double)(e - m->start_ns) / span * nbins) : 0;
			b0 = b0 < 0 ? 0 : b0 >= nbins ? nbins - 1 : b0;
			b1 = b1 < b0 ? b0 : b1 >= nbins ? nbins - 1 : b1;
			for (int b = b0; b <= b1; b++)
				bins[b] += (double)n / (b1 - b0 + 1);
		}
		base += bag_conn_count(bag);
	}
}

static size_t chunk_total(const struct model *m)
{
	size_t chunks = 0;

	for (size_t b = 0; b < bag_timeline_bag_count(m->tl); b++)
		chunks += bag_chunk_count(bag_timeline_bag(m->tl, b));
	return chunks;
}

/*
 * Whether exact densities (reading every row's index entry) are cheap: the
 * chunks are fewer than the bins and their rows few (DENSITY_EXACT_ROWS:
 * the entries are loaded before the first screen), or the timeline holds
 * them all already.
 */
static bool exact_cheap(const struct model *m, int nbins)
{
	return chunk_total(m) < (size_t)nbins && (bag_timeline_count(m->tl) <= DENSITY_EXACT_ROWS ||
	                                          bag_timeline_loaded_rows(m->tl) >= bag_timeline_count(m->tl));
}

/* The timeline connections of one topic (only), or of every shown topic (only NULL). */
static bool *topic_mask(const struct model *m, const struct topic_row *only)
{
	bool *mask = calloc(bag_timeline_conn_count(m->tl) + 1, sizeof *mask);

	for (size_t t = 0; mask != NULL && t < m->ntopics; t++) {
		const struct topic_row *r = &m->topics[t];
		if (only != NULL ? r != only : !r->shown)
			continue;
		for (size_t k = 0; k < r->nconns; k++)
			mask[r->conns[k]] = true;
	}
	return mask;
}

/*
 * Density of the connections in mask: exact through view v (or a view made
 * from the mask) when that is cheap (exact_cheap), else from the chunk
 * infos.
 */
static void density(const struct model *m, const bool *mask, bag_view_t *v, double *bins, int nbins)
{
	struct bag_query q;
	bag_view_t *own = NULL;
	bool done = false;

	memset(bins, 0, (size_t)nbins * sizeof *bins);
	if (exact_cheap(m, nbins)) {
		if (v == NULL) {
			bag_query_init(&q);
			q.conn_mask = mask;
			if (bag_view_open(&own, m->tl, &q) == BAG_OK)
				v = own;
		}
		done = v != NULL && density_exact(m, v, bins, nbins);
		bag_view_free(own);
		if (done)
			return;
		memset(bins, 0, (size_t)nbins * sizeof *bins);
	}
	density_chunks(m, mask, bins, nbins);
}

void model_density_topic(const struct model *m, size_t topic, double *bins, int nbins)
{
	bool *mask;

	if (nbins <= 0 || (mask = topic_mask(m, &m->topics[topic])) == NULL)
		return;
	density(m, mask, NULL, bins, nbins);
	free(mask);
}

/* The bin of time t among nbins equal bins over the bag's span (density_exact's edges). */
static int bin_of(const struct model *m, int64_t t, int nbins)
{
	double span = (double)(m->end_ns - m->start_ns);
	int b = span > 0 ? (int)((double)(t - m->start_ns) / span * nbins) : 0;

	b = b < 0 ? 0 : b >= nbins ? nbins - 1 : b;
	while (b > 0 && t < m->start_ns + (int64_t)(span * b / nbins))
		b--;
	while (b + 1 < nbins && t >= m->start_ns + (int64_t)(span * (b + 1) / nbins))
		b++;
	return b;
}

/*
 * Every topic's exact density in one pass over the rows of the whole
 * timeline (used when exact_cheap): a view per topic would cost every topic a pass over every
 * connection.
 */
static bool density_topics_exact(const struct model *m, const size_t *topic_of, double *bins, int nbins)
{
	bag_view_t *v = NULL;
	struct bag_message msg;
	bool ok = bag_view_open(&v, m->tl, NULL) == BAG_OK;

	for (uint64_t row = 0; ok && row < bag_view_count(v); row++) {
		if (bag_view_entry(v, row, &msg) != BAG_OK)
			ok = false;
		else
			bins[topic_of[msg.conn_index] * (size_t)nbins + (size_t)bin_of(m, msg.time_ns, nbins)] += 1;
	}
	bag_view_free(v);
	return ok;
}

void model_density_topics(const struct model *m, double *bins, int nbins)
{
	size_t n = bag_timeline_conn_count(m->tl), base = 0, *topic_of;
	double span = (double)(m->end_ns - m->start_ns);

	if (nbins <= 0)
		return;
	memset(bins, 0, m->ntopics * (size_t)nbins * sizeof *bins);
	if ((topic_of = malloc((n + 1) * sizeof *topic_of)) == NULL)
		return;
	for (size_t t = 0; t < m->ntopics; t++)
		for (size_t k = 0; k < m->topics[t].nconns; k++)
			topic_of[m->topics[t].conns[k]] = t;
	if (exact_cheap(m, nbins)) {
		if (density_topics_exact(m, topic_of, bins, nbins))
			goto done;
		memset(bins, 0, m->ntopics * (size_t)nbins * sizeof *bins);
	}
	/* one pass over the chunk infos fills every topic's row */
	for (size_t bi = 0; bi < bag_timeline_bag_count(m->tl); bi++) {
		bag_t *bag = bag_timeline_bag(m->tl, bi);
		for (size_t ch = 0; ch < bag_chunk_count(bag); ch++) {
			int64_t s, e;
			bag_chunk_span(bag, ch, &s, &e);
			int b0 = span > 0 ? (int)((double)(s - m->start_ns) / span * nbins) : 0;
			int b1 = span > 0 ? (int)((double)(e - m->start_ns) / span * nbins) : 0;
			b0 = b0 < 0 ? 0 : b0 >= nbins ? nbins - 1 : b0;
			b1 = b1 < b0 ? b0 : b1 >= nbins ? nbins - 1 : b1;
			for (size_t k = 0; k < bag_chunk_conn_n(bag, ch); k++) {
				size_t ci;
				uint32_t count;
				bag_chunk_conn_at(bag, ch, k, &ci, &count);
				double *row = bins + topic_of[base + ci] * (size_t)nbins;
				for (int b = b0; b <= b1; b++)
					row[b] += (double)count / (b1 - b0 + 1);
			}
		}
		base += bag_conn_count(bag);
	}
done:
	free(topic_of);
}

void model_density(const struct model *m, double *bins, int nbins)
{
	bool *mask;

	if (nbins <= 0 || (mask = topic_mask(m, NULL)) == NULL)
		return;
	density(m, mask, m->view, bins, nbins);
	free(mask);
}
