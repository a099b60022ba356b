/*
 * model.h - the browser's view model, in plain C with no curses: the topics
 * and which are shown, the message-list cursor and scroll, the focused pane,
 * the detail mode, jumps and steps. Drawing reads it; actions change it.
 */
#ifndef BAGSCOPE_TUI_MODEL_H
#define BAGSCOPE_TUI_MODEL_H

#include <bagscope/bagscope.h>

#include "tui/actions.h"
#include "tui/pane.h"

enum sort_mode { SORT_NAME, SORT_COUNT, SORT_RATE, SORT_COUNT_ };
enum detail_mode { DETAIL_DECODED, DETAIL_HEX, DETAIL_CONN, DETAIL_COUNT_ };

/* One topic of the connections pane (all its connections together). */
struct topic_row {
	const char *topic;
	const char *type;          /* its first connection's */
	uint64_t count;            /* an estimate while count_pending */
	bool count_pending;        /* a bag of its connections counts its messages later (bag_counts_exact()) */
	double rate_hz;            /* bag_rate_hz over its first and last message once known, else over its chunks' span */
	bool rate_exact;           /* rate_hz is over its messages' span */
	size_t nconns;
	size_t *conns;             /* timeline connection indices (a run of model.topic_conns) */
	bool shown;
};

struct model {
	bag_timeline_t *tl;        /* borrowed */
	bag_view_t *view;          /* the shown topics */
	struct topic_row *topics;
	size_t ntopics;
	size_t *topic_conns;       /* every timeline connection, grouped by topic */
	size_t *order;             /* topics in display order */
	enum sort_mode sort;
	uint64_t topic_cursor;     /* index into order */
	uint64_t topic_top;
	int topic_height;          /* rows the pane shows */
	uint64_t row;              /* message-list cursor */
	uint64_t top;              /* first visible row */
	int list_height;
	enum pane_id focus;
	enum detail_mode detail;
	bool relative;             /* times relative to the bag start */
	bool clock;                /* times of day ("12:26:52.500", UTC or local as local says) */
	bool local;                /* dates in local time (else UTC) */
	int64_t start_ns, end_ns;
	size_t *topic_of;          /* per timeline connection: its topic (index into topics) */
	int counts;                /* COUNTS_*: what the title's message count is */
	/* the filter (f, &): when on, the list shows only frows[0..nfrows), rows of view */
	bool filtered;
	bool filter_stale;         /* the view changed under it: the filter must run again */
	uint64_t *frows;
	size_t nfrows, capfrows;
	char note[1024];           /* last error or message, for the status line */
	/* URL bags: whether a group's index may be loaded now (else it is being fetched) */
	bool (*ready)(void *arg, size_t group);
	void *ready_arg;
	/*
	 * A seek into a group whose index is being fetched: the cursor is on
	 * the group's first row until model_settle() makes it exact; any key
	 * drops it (model_seek_drop).
	 */
	bool seek_pending;
	int64_t seek_t;
	size_t seek_group;
};

/*
 * model.counts: every bag's counts were exact at open (the title counts the
 * timeline's rows), a bag's are estimates being counted (the title says
 * "~N"), or they were and model_set_counts() gave them (the title sums the
 * topics' counts; the timeline's rows stay estimates until loaded).
 */
enum { COUNTS_EXACT, COUNTS_PENDING, COUNTS_GIVEN };

/* The title's message count, and whether it is an estimate. */
uint64_t model_title_count(const struct model *m, bool *estimate);

/* model_entry(): the row's index is being fetched (model.ready said not yet). */
#define MODEL_PENDING 1

/* The topics' median rates (Hz, by topic index), once known. */
void model_set_rates(struct model *m, const double *hz);

/*
 * The exact message counts by timeline connection (from the rates' pass),
 * once known: made the counts of each bag whose open left them estimated
 * (bag_counts_set()), and the topics' counts, no longer pending.
 */
void model_set_counts(struct model *m, const uint64_t *conn_counts);

/* Build the model over tl with every topic shown. 0 or a BAG_E code. */
int model_init(struct model *m, bag_timeline_t *tl);
void model_free(struct model *m);

/*
 * A pending seek made exact once its group's index is in (called each turn);
 * true when the cursor moved.
 */
bool model_settle(struct model *m);
/*
 * bag_view_seek() on view v (of m's timeline) that never waits on the
 * network: 1 when the group at t is a URL bag's whose index is still being
 * fetched (asked for; *row its first row, *group the group), else
 * bag_view_seek()'s answer.
 */
int model_seek_ready(struct model *m, bag_view_t *v, int64_t t, uint64_t *row, size_t *group);
/* Whether view v's row may be read now; if not (its index being fetched), m's note says so. */
bool model_row_ready(struct model *m, bag_view_t *v, uint64_t row);
/* A key moves the cursor: a pending seek no longer applies. */
void model_seek_drop(struct model *m);

/* Rebuild the view from the topics' shown flags, keeping the selected time. */
int model_refilter(struct model *m);

/* Rows the list shows (all of the view, or the filter's), and row i's message. */
uint64_t model_count(const struct model *m);
int model_entry(struct model *m, uint64_t i, struct bag_message *msg);
/* The view row of list row i (i itself unless filtered). */
uint64_t model_view_row(const struct model *m, uint64_t i);
/* Select the list row showing view row vrow, or the next one after it (filtered). */
void model_goto_view_row(struct model *m, uint64_t vrow);
/* Turn the filter off (keeping the selected message). */
void model_filter_off(struct model *m);

/*
 * Move by delta_ns in time from the selection. Backward: the first message
 * at or after now - N; when there is none before the selection (a gap), the
 * last message before now - N. Says so in note at the ends.
 */
void model_step_time(struct model *m, int64_t delta_ns);

/* The message list: move by delta rows, go to a row, keep it in sight. */
void model_move(struct model *m, int64_t delta);
void model_goto(struct model *m, uint64_t row);

/* Select the first shown message at or after t. */
int model_seek(struct model *m, int64_t t);

/* The selected message's time (start_ns when the list is empty). */
int64_t model_time(struct model *m);

/*
 * Parse and perform a jump expression (see timeparse.h). Returns 0, or -1
 * with the reason in m->note.
 */
int model_jump(struct model *m, const char *expr);

/* Select message msg (a message of m->tl, from any view of it): its row in the list. 0 or a load error. */
int model_goto_message(struct model *m, const struct bag_message *msg);

/* Next (dir 1) or previous (-1) message on the selected message's topic. */
int model_step_same_topic(struct model *m, int dir);

/* The topic under the connections cursor. */
struct topic_row *model_topic(struct model *m);
/* The topic x and o act on: the selected message's when the list has the focus, else the cursor's. */
struct topic_row *model_focused_topic(struct model *m);

/*
 * Apply an action to the model: navigation of the focused pane, filters,
 * sort, modes. Returns true if it was one of the model's own.
 */
bool model_act(struct model *m, enum action a);

/*
 * Message density over the bag's span for the shown topics, in bins: from
 * the chunk infos when there are many chunks, else by counting rows (which
 * reads the index of the chunks involved, never their data).
 */
void model_density(const struct model *m, double *bins, int nbins);

/*
 * The same for one topic (m->topics[topic]), shown or not: the timeline's
 * per-topic strips. Exact (rows counted through a view of that topic alone)
 * when the bags have fewer chunks than bins, else from the chunk infos.
 */
/* Every topic's density at once: bins holds ntopics rows of nbins (one pass over the chunk infos). */
void model_density_topics(const struct model *m, double *bins, int nbins);
void model_density_topic(const struct model *m, size_t topic, double *bins, int nbins);

#endif
