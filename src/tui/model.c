/*
 * model.c - the browser's curses-free view model (see model.h).
 *
 * The scroller keeps its invariants by clamping after every change. The
 * topic table owns one array of rows, re-sorted in place; each row owns its
 * list of connection indices. The message tree is one pre-order array of
 * nodes (a node's subtree is [i + 1, end)) plus one text arena holding every
 * label and value; the visible lines are recomputed by a walk that skips
 * collapsed subtrees.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tui/model.h"

/* ---- scroller ----------------------------------------------------------- */

static void scroller_clamp(struct scroller *s)
{
	uint64_t h;

	if (s->height < 1)
		s->height = 1;
	h = (uint64_t)s->height;
	if (s->count == 0) {
		s->cursor = s->top = 0;
		return;
	}
	if (s->cursor >= s->count)
		s->cursor = s->count - 1;
	if (s->cursor < s->top)
		s->top = s->cursor;
	if (s->cursor >= s->top + h)
		s->top = s->cursor - h + 1;
	if (s->count <= h)
		s->top = 0;
	else if (s->top > s->count - h)
		s->top = s->count - h;
}

void scroller_init(struct scroller *s, uint64_t count, int height)
{
	s->count = count;
	s->cursor = s->top = 0;
	s->height = height;
	scroller_clamp(s);
}

void scroller_set_count(struct scroller *s, uint64_t count)
{
	s->count = count;
	scroller_clamp(s);
}

void scroller_set_height(struct scroller *s, int height)
{
	s->height = height;
	scroller_clamp(s);
}

void scroller_move(struct scroller *s, int64_t delta)
{
	if (delta < 0)
		s->cursor = (uint64_t)-delta > s->cursor ? 0 : s->cursor - (uint64_t)-delta;
	else
		s->cursor = s->count - s->cursor <= (uint64_t)delta ? s->count : s->cursor + (uint64_t)delta;
	scroller_clamp(s);
}

void scroller_page(struct scroller *s, int dir)
{
	uint64_t page = (uint64_t)(s->height > 1 ? s->height - 1 : 1);

	if (dir > 0) {
		s->top += page;
		s->cursor = s->count - s->cursor <= page ? s->count : s->cursor + page;
	} else {
		s->top = s->top < page ? 0 : s->top - page;
		s->cursor = s->cursor < page ? 0 : s->cursor - page;
	}
	if (s->count > (uint64_t)s->height && s->top > s->count - (uint64_t)s->height)
		s->top = s->count - (uint64_t)s->height;
	scroller_clamp(s);
}

void scroller_goto(struct scroller *s, uint64_t row)
{
	uint64_t h = (uint64_t)(s->height < 1 ? 1 : s->height);

	s->cursor = row;
	if (row < s->top || row >= s->top + h)
		s->top = row < h / 3 ? 0 : row - h / 3;
	scroller_clamp(s);
}

void scroller_scroll(struct scroller *s, int64_t delta)
{
	uint64_t h = (uint64_t)(s->height < 1 ? 1 : s->height);
	uint64_t max_top = s->count > h ? s->count - h : 0;

	if (delta < 0)
		s->top = (uint64_t)-delta > s->top ? 0 : s->top - (uint64_t)-delta;
	else
		s->top = max_top - s->top < (uint64_t)delta ? max_top : s->top + (uint64_t)delta;
	if (s->cursor < s->top)
		s->cursor = s->top;
	if (s->cursor >= s->top + h)
		s->cursor = s->top + h - 1;
	scroller_clamp(s);
}

/* ---- jump language ------------------------------------------------------ */

/* Parse an unsigned decimal "12.5" at *s into ns (value * 1e9); advances *s. */
static int decimal_ns(const char **s, int64_t *ns, int64_t unit_ns)
{
	const char *p = *s;
	int64_t whole = 0, frac = 0, scale = 1;
	int digits = 0;

	for (; isdigit((unsigned char)*p); p++, digits++) {
		if (whole > INT64_MAX / 10 / (unit_ns ? unit_ns : 1) - 10)
			return -1;
		whole = whole * 10 + (*p - '0');
	}
	if (*p == '.') {
		for (p++; isdigit((unsigned char)*p); p++, digits++)
			if (scale < 1000000000000LL) {
				frac = frac * 10 + (*p - '0');
				scale *= 10;
			}
	}
	if (digits == 0)
		return -1;
	*ns = whole * unit_ns + (int64_t)((double)frac * (double)unit_ns / (double)scale + 0.5);
	*s = p;
	return 0;
}

/* A unit suffix at *p: its length in *n and nanoseconds per unit, or 0. */
static int64_t unit_at(const char *p, size_t *n)
{
	static const struct { const char *name; int64_t ns; } units[] = {
		{ "ms", 1000000LL }, { "us", 1000LL }, { "ns", 1LL }, { "h", 3600 * BAG_NSEC_PER_SEC },
		{ "min", 60 * BAG_NSEC_PER_SEC }, { "m", 60 * BAG_NSEC_PER_SEC }, { "s", BAG_NSEC_PER_SEC },
	};

	for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
		size_t l = strlen(units[i].name);
		if (strncmp(p, units[i].name, l) == 0 && !isalpha((unsigned char)p[l])) {
			*n = l;
			return units[i].ns;
		}
	}
	return 0;
}

/* Duration with units; *had_unit tells whether any unit was written. */
static int duration_parse_u(const char *s, int64_t *ns, bool *had_unit)
{
	int64_t total = 0;
	bool any = false;

	*had_unit = false;
	while (*s != '\0') {
		const char *p = s;
		int64_t v;
		size_t ulen = 0;
		int64_t unit;

		/* read the number first as seconds-free digits to know the unit */
		while (isdigit((unsigned char)*p) || *p == '.')
			p++;
		if (p == s)
			return -1;
		unit = unit_at(p, &ulen);
		if (unit == 0) {
			if (*p != '\0' || any)
				return -1;
			unit = BAG_NSEC_PER_SEC;
		} else {
			*had_unit = true;
		}
		if (decimal_ns(&s, &v, unit) != 0 || s != p)
			return -1;
		total += v;
		s = p + ulen;
		any = true;
	}
	if (!any)
		return -1;
	*ns = total;
	return 0;
}

int duration_parse(const char *s, int64_t *ns)
{
	bool had_unit;

	return duration_parse_u(s, ns, &had_unit);
}

/* "YYYY-MM-DD[ T]HH:MM[:SS[.frac]][Z]" or "HH:MM[:SS[.frac]][Z]". */
static int datetime_parse(const char *s, const struct jump_ctx *ctx, int64_t *ns)
{
	struct tm tm = { 0 };
	int64_t frac = 0, secs;
	int n = 0, sec = 0;
	bool utc = false, have_date = false;
	size_t len = strlen(s);
	char buf[64];

	if (len == 0 || len >= sizeof buf)
		return -1;
	memcpy(buf, s, len + 1);
	if (buf[len - 1] == 'Z' || buf[len - 1] == 'z') {
		utc = true;
		buf[--len] = '\0';
	}
	s = buf;
	if (sscanf(s, "%4d-%2d-%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &n) == 3 && n == 10) {
		have_date = true;
		s += n;
		if (*s == ' ' || *s == 'T' || *s == 't')
			s++;
		else if (*s != '\0')
			return -1;
		tm.tm_year -= 1900;
		tm.tm_mon -= 1;
	} else {
		time_t t = (time_t)(ctx->current_ns / BAG_NSEC_PER_SEC);
		struct tm day;
		if ((utc ? gmtime_r(&t, &day) : localtime_r(&t, &day)) == NULL)
			return -1;
		tm.tm_year = day.tm_year;
		tm.tm_mon = day.tm_mon;
		tm.tm_mday = day.tm_mday;
	}
	if (*s != '\0') {
		n = 0;
		if (sscanf(s, "%2d:%2d%n", &tm.tm_hour, &tm.tm_min, &n) != 2)
			return -1;
		s += n;
		if (*s == ':') {
			s++;
			if (!isdigit((unsigned char)*s))
				return -1;
			int64_t v;
			if (decimal_ns(&s, &v, BAG_NSEC_PER_SEC) != 0)
				return -1;
			sec = (int)(v / BAG_NSEC_PER_SEC);
			frac = v % BAG_NSEC_PER_SEC;
		}
		if (*s != '\0')
			return -1;
	} else if (!have_date) {
		return -1;
	}
	if (tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
	    tm.tm_min > 59 || sec > 60)
		return -1;
	tm.tm_sec = sec;
	tm.tm_isdst = -1;
	secs = (int64_t)(utc ? timegm(&tm) : mktime(&tm));
	if (secs == -1 && !(tm.tm_year == 69))
		return -1;
	*ns = secs * BAG_NSEC_PER_SEC + frac;
	return 0;
}

int jump_parse(const char *in, const struct jump_ctx *ctx, struct jump *out)
{
	char buf[96];
	char *s = buf, *e;
	size_t len;
	int64_t ns;
	bool had_unit;

	while (isspace((unsigned char)*in))
		in++;
	len = strlen(in);
	while (len > 0 && isspace((unsigned char)in[len - 1]))
		len--;
	if (len == 0 || len >= sizeof buf)
		return -1;
	memcpy(buf, in, len);
	buf[len] = '\0';
	out->kind = JUMP_TIME;
	out->row = 0;
	if (*s == '#') {
		unsigned long long r;
		s++;
		if (!isdigit((unsigned char)*s))
			return -1;
		r = strtoull(s, &e, 10);
		if (*e != '\0')
			return -1;
		out->kind = JUMP_ROW;
		out->row = r > 0 ? r - 1 : 0;
		return 0;
	}
	if (buf[len - 1] == '%') {
		buf[len - 1] = '\0';
		double pct = strtod(s, &e);
		if (e == s || *e != '\0' || !isfinite(pct) || pct < 0 || pct > 100)
			return -1;
		out->time_ns = ctx->start_ns + (int64_t)((double)(ctx->end_ns - ctx->start_ns) * pct / 100.0);
		return 0;
	}
	if (strchr(s, ':') != NULL || (len >= 10 && s[4] == '-' && s[7] == '-'))
		return datetime_parse(s, ctx, &out->time_ns) == 0 ? 0 : -1;
	if (*s == '+' || *s == '-') {
		bool neg = *s == '-';
		if (duration_parse_u(s + 1, &ns, &had_unit) != 0)
			return -1;
		if (neg)
			out->time_ns = ctx->current_ns - ns;
		else if (had_unit)
			out->time_ns = ctx->current_ns + ns;
		else
			out->time_ns = ctx->start_ns + ns;
		return 0;
	}
	if (duration_parse_u(s, &ns, &had_unit) != 0)
		return -1;
	if (had_unit || (ns < 100000000LL * BAG_NSEC_PER_SEC && ctx->start_ns >= 100000000LL * BAG_NSEC_PER_SEC))
		out->time_ns = ctx->start_ns + ns;
	else
		out->time_ns = ns;
	return 0;
}

/* ---- formatters --------------------------------------------------------- */

void fmt_time_abs(char *buf, size_t len, int64_t ns)
{
	int64_t s = ns / BAG_NSEC_PER_SEC, f = ns % BAG_NSEC_PER_SEC;

	if (f < 0) {
		f += BAG_NSEC_PER_SEC;
		s--;
	}
	snprintf(buf, len, "%lld.%09lld", (long long)s, (long long)f);
}

void fmt_time_rel(char *buf, size_t len, int64_t ns, int64_t start_ns)
{
	int64_t d = ns - start_ns;
	bool neg = d < 0;

	if (neg)
		d = -d;
	snprintf(buf, len, "%s%lld.%09lld", neg ? "-" : "", (long long)(d / BAG_NSEC_PER_SEC),
	         (long long)(d % BAG_NSEC_PER_SEC));
}

void fmt_date(char *buf, size_t len, int64_t ns)
{
	time_t t = (time_t)(ns / BAG_NSEC_PER_SEC);
	int64_t ms = (ns % BAG_NSEC_PER_SEC) / 1000000;
	struct tm tm;
	char day[40], zone[16];

	if (ms < 0) {
		ms += 1000;
		t--;
	}
	if (localtime_r(&t, &tm) == NULL) {
		snprintf(buf, len, "?");
		return;
	}
	strftime(day, sizeof day, "%Y-%m-%d %H:%M:%S", &tm);
	strftime(zone, sizeof zone, "%Z", &tm);
	snprintf(buf, len, "%s.%03lld %s", day, (long long)ms, zone);
}

void fmt_clock(char *buf, size_t len, int64_t ns)
{
	time_t t = (time_t)(ns / BAG_NSEC_PER_SEC);
	struct tm tm;

	if (localtime_r(&t, &tm) == NULL)
		snprintf(buf, len, "?");
	else
		strftime(buf, len, "%H:%M:%S", &tm);
}

void fmt_size(char *buf, size_t len, uint64_t b)
{
	if (b < 10000)
		snprintf(buf, len, "%llu", (unsigned long long)b);
	else if (b < 1024 * 1024)
		snprintf(buf, len, "%.1fK", (double)b / 1024);
	else if (b < 1024ULL * 1024 * 1024)
		snprintf(buf, len, "%.1fM", (double)b / (1024 * 1024));
	else
		snprintf(buf, len, "%.1fG", (double)b / (1024.0 * 1024 * 1024));
}

void fmt_count(char *buf, size_t len, uint64_t n)
{
	if (n < 100000)
		snprintf(buf, len, "%llu", (unsigned long long)n);
	else if (n < 10000000)
		snprintf(buf, len, "%.1fk", (double)n / 1e3);
	else
		snprintf(buf, len, "%.1fM", (double)n / 1e6);
}

void fmt_rate(char *buf, size_t len, double hz)
{
	if (!(hz > 0))
		snprintf(buf, len, "-");
	else if (hz < 10)
		snprintf(buf, len, "%.2f", hz);
	else if (hz < 10000)
		snprintf(buf, len, "%.1f", hz);
	else
		snprintf(buf, len, "%.1fk", hz / 1e3);
}

bool fmt_hex_line(char *buf, size_t len, const uint8_t *data, size_t size, uint64_t line)
{
	static const char hex[] = "0123456789abcdef";
	uint64_t at = line * 16;
	char tmp[96];
	size_t k = 0, n;

	if (at >= size && !(size == 0 && line == 0))
		return false;
	n = size - at < 16 ? (size_t)(size - at) : 16;
	k += (size_t)snprintf(tmp, sizeof tmp, "%08llx ", (unsigned long long)at);
	for (size_t i = 0; i < 16; i++) {
		if (i == 8)
			tmp[k++] = ' ';
		tmp[k++] = ' ';
		if (i < n) {
			tmp[k++] = hex[data[at + i] >> 4];
			tmp[k++] = hex[data[at + i] & 15];
		} else {
			tmp[k++] = ' ';
			tmp[k++] = ' ';
		}
	}
	tmp[k++] = ' ';
	tmp[k++] = ' ';
	tmp[k++] = '|';
	for (size_t i = 0; i < n; i++) {
		uint8_t c = data[at + i];
		tmp[k++] = c >= 0x20 && c < 0x7f ? (char)c : '.';
	}
	tmp[k++] = '|';
	tmp[k] = '\0';
	snprintf(buf, len, "%s", tmp);
	return true;
}

/* ---- topics ------------------------------------------------------------- */

static int cmp_name(const void *a, const void *b)
{
	const struct topic_row *x = a, *y = b;
	return strcmp(x->topic, y->topic);
}

static int cmp_count(const void *a, const void *b)
{
	const struct topic_row *x = a, *y = b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->topic, y->topic);
}

static int cmp_rate(const void *a, const void *b)
{
	const struct topic_row *x = a, *y = b;
	if (x->rate != y->rate)
		return x->rate < y->rate ? 1 : -1;
	return strcmp(x->topic, y->topic);
}

int topics_build(struct topics *t, const bag_timeline_t *tl)
{
	size_t nconns = bag_timeline_conn_count(tl);

	memset(t, 0, sizeof *t);
	t->nconns = nconns;
	t->rows = calloc(nconns ? nconns : 1, sizeof *t->rows);
	if (t->rows == NULL)
		return BAG_ENOMEM;
	for (size_t i = 0; i < nconns; i++) {
		const struct bag_connection *c = bag_timeline_conn(tl, i, NULL);
		struct topic_row *r = NULL;
		for (size_t k = 0; k < t->n; k++)
			if (strcmp(t->rows[k].topic, c->topic) == 0)
				r = &t->rows[k];
		if (r == NULL) {
			r = &t->rows[t->n];
			r->color = t->n++;
			r->topic = c->topic;
			r->type = c->type;
			r->shown = true;
			r->conns = calloc(nconns, sizeof *r->conns);
			if (r->conns == NULL) {
				topics_free(t);
				return BAG_ENOMEM;
			}
		} else if (strcmp(r->type, c->type) != 0) {
			r->mixed_types = true;
		}
		r->conns[r->nconns++] = i;
		r->count += c->message_count;
	}
	/* rate over the span of the bags the topic appears in */
	for (size_t k = 0; k < t->n; k++) {
		int64_t lo = INT64_MAX, hi = INT64_MIN;
		for (size_t j = 0; j < t->rows[k].nconns; j++) {
			size_t bi;
			bag_timeline_conn(tl, t->rows[k].conns[j], &bi);
			bag_t *bag = bag_timeline_bag(tl, bi);
			if (bag_message_count(bag) == 0)
				continue;
			lo = bag_start_time(bag) < lo ? bag_start_time(bag) : lo;
			hi = bag_end_time(bag) > hi ? bag_end_time(bag) : hi;
		}
		double dur = hi > lo ? (double)(hi - lo) / 1e9 : 0;
		t->rows[k].rate = dur > 0 && t->rows[k].count > 1 ? (double)(t->rows[k].count - 1) / dur : 0;
	}
	topics_sort(t, SORT_NAME);
	return BAG_OK;
}

void topics_free(struct topics *t)
{
	for (size_t k = 0; t->rows != NULL && k < t->n; k++)
		free(t->rows[k].conns);
	free(t->rows);
	memset(t, 0, sizeof *t);
}

void topics_sort(struct topics *t, enum topic_sort sort)
{
	static int (*const cmp[SORT_N])(const void *, const void *) = {
		[SORT_NAME] = cmp_name, [SORT_COUNT] = cmp_count, [SORT_RATE] = cmp_rate,
	};

	t->sort = sort;
	if (t->n > 1)
		qsort(t->rows, t->n, sizeof *t->rows, cmp[sort]);
}

void topics_mask(const struct topics *t, bool *mask)
{
	memset(mask, 0, t->nconns * sizeof *mask);
	for (size_t k = 0; k < t->n; k++)
		for (size_t j = 0; j < t->rows[k].nconns; j++)
			mask[t->rows[k].conns[j]] = t->rows[k].shown;
}

size_t topics_shown(const struct topics *t, uint64_t *messages)
{
	size_t n = 0;
	uint64_t m = 0;

	for (size_t k = 0; k < t->n; k++)
		if (t->rows[k].shown) {
			n++;
			m += t->rows[k].count;
		}
	if (messages != NULL)
		*messages = m;
	return n;
}

size_t topics_find_conn(const struct topics *t, size_t conn_index)
{
	for (size_t k = 0; k < t->n; k++)
		for (size_t j = 0; j < t->rows[k].nconns; j++)
			if (t->rows[k].conns[j] == conn_index)
				return k;
	return t->n;
}

const char *topic_sort_name(enum topic_sort s)
{
	static const char *const names[SORT_N] = { "name", "count", "rate" };
	return names[s];
}

/* ---- textlines ---------------------------------------------------------- */

int textlines_take(struct textlines *tl, struct bag_text *t)
{
	size_t n = 1;

	memset(tl, 0, sizeof *tl);
	if (t->failed)
		return BAG_ENOMEM;
	if (t->p == NULL)
		bag_text_append(t, "", 0);
	if (t->p == NULL) {
		tl->text = strdup("");
	} else {
		if (t->len > 0 && t->p[t->len - 1] == '\n')
			t->p[--t->len] = '\0';
		tl->text = t->p;
	}
	t->p = NULL;
	t->len = t->cap = 0;
	if (tl->text == NULL)
		return BAG_ENOMEM;
	for (char *p = tl->text; *p; p++)
		n += *p == '\n';
	tl->start = malloc(n * sizeof *tl->start);
	if (tl->start == NULL) {
		free(tl->text);
		tl->text = NULL;
		return BAG_ENOMEM;
	}
	tl->start[tl->n++] = 0;
	for (char *p = tl->text; *p; p++)
		if (*p == '\n') {
			*p = '\0';
			tl->start[tl->n++] = (size_t)(p + 1 - tl->text);
		}
	return BAG_OK;
}

void textlines_free(struct textlines *tl)
{
	free(tl->text);
	free(tl->start);
	memset(tl, 0, sizeof *tl);
}

/* ---- tree --------------------------------------------------------------- */

/* The builder's state while the decoder walks a message. */
struct tree_builder {
	struct tree *t;
	uint32_t stack[256];   /* open nodes (messages, arrays) */
	int depth;             /* open nodes in stack */
	int skip;              /* >0: inside an elided part */
	bool oom;
};

static uint32_t tree_str(struct tree *t, const char *s, size_t len)
{
	uint32_t at = (uint32_t)t->text.len;

	bag_text_append(&t->text, s, len);
	bag_text_append(&t->text, "", 1);
	return at;
}

static long tree_add(struct tree_builder *b, const char *label, const char *value, size_t value_len)
{
	struct tree *t = b->t;
	struct tree_node *n;

	if (t->n >= TREE_MAX_NODES) {
		t->truncated = true;
		return -1;
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct tree_node *p = realloc(t->nodes, cap * sizeof *p);
		if (p == NULL) {
			b->oom = true;
			return -1;
		}
		t->nodes = p;
		t->cap = cap;
	}
	n = &t->nodes[t->n];
	n->depth = (uint16_t)b->depth;
	n->end = (uint32_t)t->n + 1;
	n->expanded = true;
	n->label = tree_str(t, label, strlen(label));
	n->value = tree_str(t, value, value_len);
	return (long)t->n++;
}

/* The label of a field or an array element. */
static void tree_label_of(char *buf, size_t len, const struct bag_msgdef_field *f, int64_t index)
{
	if (index >= 0)
		snprintf(buf, len, "[%lld]", (long long)index);
	else
		snprintf(buf, len, "%s", f != NULL ? f->name : "");
}

/* Whether an element index falls in an array's elided part. */
static bool tree_elided(struct tree_builder *b, int64_t index)
{
	return b->skip > 0 || index >= TREE_ARRAY_SHOWN;
}

static void tree_open(struct tree_builder *b, long node)
{
	if (b->depth < (int)(sizeof b->stack / sizeof *b->stack))
		b->stack[b->depth++] = node < 0 ? UINT32_MAX : (uint32_t)node;
}

static void tree_close(struct tree_builder *b)
{
	if (b->depth == 0)
		return;
	uint32_t node = b->stack[--b->depth];
	if (node != UINT32_MAX)
		b->t->nodes[node].end = (uint32_t)b->t->n;
}

static void tb_begin_message(void *ud, const struct bag_msgdef_field *f, int64_t index,
                             const struct bag_msgdef_type *type)
{
	struct tree_builder *b = ud;
	char label[64];

	if (f == NULL)
		return;   /* the top message is the tree itself */
	if (tree_elided(b, index)) {
		b->skip++;
		return;
	}
	tree_label_of(label, sizeof label, f, index);
	tree_open(b, tree_add(b, label, type->name, strlen(type->name)));
}

static void tb_end_message(void *ud, const struct bag_msgdef_field *f, int64_t index)
{
	struct tree_builder *b = ud;

	if (f == NULL)
		return;
	if (b->skip > 0) {
		b->skip--;
		return;
	}
	tree_close(b);
}

static void tb_begin_array(void *ud, const struct bag_msgdef_field *f, uint32_t len)
{
	struct tree_builder *b = ud;
	char value[96];
	long node;

	if (b->skip > 0) {
		b->skip++;
		return;
	}
	snprintf(value, sizeof value, "%s[%u]", f->type_name, len);
	node = tree_add(b, f->name, value, strlen(value));
	if (node >= 0 && len > 16)
		b->t->nodes[node].expanded = false;
	tree_open(b, node);
}

static void tb_end_array(void *ud, const struct bag_msgdef_field *f, uint32_t len)
{
	struct tree_builder *b = ud;
	char more[64];

	if (b->skip > 0) {
		b->skip--;
		return;
	}
	if (len > TREE_ARRAY_SHOWN) {
		snprintf(more, sizeof more, "(%u more)", len - TREE_ARRAY_SHOWN);
		tree_add(b, "…", more, strlen(more));
	}
	tree_close(b);
}

/* Text of a primitive, as rostopic would print it. */
static void value_text(struct bag_text *out, const struct bag_value *v)
{
	switch (v->prim) {
	case BAG_PRIM_BOOL: bag_text_printf(out, "%s", v->v.b ? "True" : "False"); break;
	case BAG_PRIM_INT8: case BAG_PRIM_INT16: case BAG_PRIM_INT32: case BAG_PRIM_INT64:
		bag_text_printf(out, "%lld", (long long)v->v.i);
		break;
	case BAG_PRIM_UINT8: case BAG_PRIM_UINT16: case BAG_PRIM_UINT32: case BAG_PRIM_UINT64:
		bag_text_printf(out, "%llu", (unsigned long long)v->v.u);
		break;
	case BAG_PRIM_FLOAT32: case BAG_PRIM_FLOAT64: bag_text_double(out, v->v.f); break;
	case BAG_PRIM_STRING:
		bag_text_json_string(out, v->v.s.p, v->v.s.len);
		break;
	case BAG_PRIM_TIME: case BAG_PRIM_DURATION:
		bag_text_printf(out, "%lld.%09u", (long long)v->v.t.secs, v->v.t.nsecs);
		break;
	default: break;
	}
}

static void tb_value(void *ud, const struct bag_msgdef_field *f, int64_t index, const struct bag_value *v)
{
	struct tree_builder *b = ud;
	struct bag_text val = { 0 };
	char label[64];

	if (tree_elided(b, index))
		return;
	tree_label_of(label, sizeof label, f, index);
	value_text(&val, v);
	tree_add(b, label, val.p ? val.p : "", val.len);
	bag_text_free(&val);
}

static void tree_refresh(struct tree *t)
{
	size_t i = 0;

	t->nvis = 0;
	while (i < t->n) {
		t->vis[t->nvis++] = (uint32_t)i;
		i = t->nodes[i].expanded ? i + 1 : t->nodes[i].end;
	}
}

int tree_build(struct tree *t, const bag_msgdef_t *def, const uint8_t *data, size_t len,
               char *err, size_t errlen)
{
	static const struct bag_visitor vis = {
		.begin_message = tb_begin_message,
		.end_message = tb_end_message,
		.begin_array = tb_begin_array,
		.end_array = tb_end_array,
		.value = tb_value,
	};
	struct tree_builder b = { .t = t };
	int rc;

	tree_free(t);
	rc = bag_decode(def, data, len, &vis, &b, NULL, err, errlen);
	while (b.depth > 0)
		tree_close(&b);
	if (b.oom || t->text.failed)
		rc = BAG_ENOMEM;
	t->vis = malloc((t->n ? t->n : 1) * sizeof *t->vis);
	if (t->vis == NULL) {
		tree_free(t);
		return BAG_ENOMEM;
	}
	tree_refresh(t);
	return rc;
}

void tree_free(struct tree *t)
{
	free(t->nodes);
	free(t->vis);
	bag_text_free(&t->text);
	memset(t, 0, sizeof *t);
}

void tree_set_expanded(struct tree *t, size_t node, int how)
{
	if (node >= t->n || !tree_has_children(t, node))
		return;
	t->nodes[node].expanded = how < 0 ? !t->nodes[node].expanded : how != 0;
	tree_refresh(t);
}

void tree_set_all(struct tree *t, bool expanded)
{
	for (size_t i = 0; i < t->n; i++)
		t->nodes[i].expanded = expanded;
	tree_refresh(t);
}

size_t tree_parent_line(const struct tree *t, size_t line)
{
	uint32_t node;
	uint16_t depth;

	if (line >= t->nvis)
		return line;
	node = t->vis[line];
	depth = t->nodes[node].depth;
	if (depth == 0)
		return line;
	while (line > 0) {
		line--;
		if (t->nodes[t->vis[line]].depth < depth)
			return line;
	}
	return 0;
}

const char *smartcase_find(const char *hay, size_t len, const char *needle)
{
	size_t n = strlen(needle);
	bool fold = true;

	for (const char *p = needle; *p; p++)
		if (isupper((unsigned char)*p))
			fold = false;
	if (n == 0)
		return hay;
	if (len < n)
		return NULL;
	if (!fold)
		return memmem(hay, len, needle, n);
	for (size_t i = 0; i + n <= len; i++) {
		if (tolower((unsigned char)hay[i]) != tolower((unsigned char)needle[0]))
			continue;
		if (strncasecmp(hay + i, needle, n) == 0)
			return hay + i;
	}
	return NULL;
}
