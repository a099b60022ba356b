/*
 * find.c - bag_finder (see find.h): one decode of a message writes its
 * detail lines into one buffer ('\n' between lines) and its summary into
 * another (print-summary.c's own visitor), then memmem finds the needle.
 *
 * The placeholder. A float's text holds only bytes of FLOAT_BYTES and
 * always a digit or "nan"/"inf". An occurrence of the needle that overlaps
 * a float's text V is one of: the needle inside V (every byte a float
 * byte: all_float); starting before V and ending inside it (its trailing
 * run of float bytes starts V, and what precedes that run is the text just
 * written: checked against the buffer, tail_fits); V inside it (an inner
 * run that can be a whole float, the text before it again checked, the
 * byte after it one that follows a value); starting inside V and going on
 * past it (a leading run followed by such a byte). In a detail line V ends
 * the line, so only the first two can happen there. When none can, '\n'
 * (which the needle never holds) stands in for V: every occurrence that
 * did not overlap V is still there and none is made.
 *
 * The summary is searched only when it can show the needle where no
 * detail line does (need_summary): its numbers, names, strings (cut at 64
 * bytes) and array lengths are the detail's, so a needle without its
 * punctuation ("={}[](), \"", a byte >= 0x80) or, matching case, its
 * "True"/"False", is in a detail line whenever it is in the summary.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include <bagscope/find.h>
#include "lib/out/print-int.h"

#define DETAIL_SHOWN 64     /* elements of an array the detail shows (src/tui/detail.c) */
#define PLACE '\n'
#define FLOAT_BYTES "0123456789.-+einaf"
#define AFTER_VALUE " ,}]"   /* what follows a value in the summary */
#define BEFORE_VALUE "=[ "   /* what precedes one */

struct bag_finder {
	char *needle;           /* folded to lower case when icase */
	size_t len;
	bool icase;
	bool always;            /* empty, or holds '\n': every message may show it */
	size_t summary_max;
	bool need_summary;
	bool all_float;         /* every byte a float byte */
	bool head_run;          /* a leading float run, then a byte that follows a value */
	size_t tail;            /* where the trailing run of float bytes starts (len: none) */
	size_t *inner;          /* starts of inner runs that can be a whole float */
	size_t *inner_end;
	size_t ninner;
};

/* The scratch of one message. */
struct find_state {
	const bag_finder_t *f;
	struct bag_text *d;     /* detail lines */
	struct summary_state sum;
	int depth;
	int nhidden;            /* levels inside an element the detail leaves out */
	bool hidden[DEPTH + 1];
};

static unsigned char fold(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

static bool float_byte(char c)
{
	return c != '\0' && strchr(FLOAT_BYTES, c) != NULL;
}

static bool in(char c, const char *set)
{
	return c != '\0' && strchr(set, c) != NULL;
}

/* Whether n[i..j) can be a float's whole text. */
static bool whole_float(const char *n, size_t i, size_t j)
{
	for (size_t k = i; k < j; k++)
		if (n[k] >= '0' && n[k] <= '9')
			return true;
	return (memmem(n + i, j - i, "nan", 3) != NULL || memmem(n + i, j - i, "inf", 3) != NULL);
}

/* Work out where float text can meet the needle (see the top). */
static int analyse(bag_finder_t *f)
{
	const char *n = f->needle;
	size_t len = f->len, h = 0;

	f->tail = len;
	while (f->tail > 0 && float_byte(n[f->tail - 1]))
		f->tail--;
	f->all_float = f->tail == 0;
	while (h < len && float_byte(n[h]))
		h++;
	f->head_run = h > 0 && h < len && in(n[h], AFTER_VALUE);
	if ((f->inner = malloc((len + 1) * sizeof *f->inner)) == NULL ||
	    (f->inner_end = malloc((len + 1) * sizeof *f->inner_end)) == NULL)
		return BAG_ENOMEM;
	for (size_t i = 1; i < len; i++) {
		size_t j = i;
		if (float_byte(n[i - 1]) || !float_byte(n[i]))
			continue;
		while (j < len && float_byte(n[j]))
			j++;
		if (j < len && in(n[i - 1], BEFORE_VALUE) && in(n[j], AFTER_VALUE) && whole_float(n, i, j)) {
			f->inner[f->ninner] = i;
			f->inner_end[f->ninner++] = j;
		}
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)n[i];
		if (in((char)c, "={}[](), \"") || c >= 0x80 || (!f->icase && (c == 'T' || c == 'F')))
			f->need_summary = true;
	}
	return BAG_OK;
}

BAG_API int bag_finder_new(bag_finder_t **out, const char *needle, size_t len, bool icase, size_t summary_max)
{
	bag_finder_t *f = calloc(1, sizeof *f);

	*out = f;
	if (f == NULL || (f->needle = malloc(len + 1)) == NULL)
		return BAG_ENOMEM;
	for (size_t i = 0; i < len; i++)
		f->needle[i] = icase ? (char)fold((unsigned char)needle[i]) : needle[i];
	f->needle[len] = '\0';
	f->len = len;
	f->icase = icase;
	f->summary_max = summary_max;
	f->always = len == 0 || memchr(needle, PLACE, len) != NULL;
	return analyse(f);
}

BAG_API void bag_finder_free(bag_finder_t *f)
{
	if (f == NULL)
		return;
	free(f->needle);
	free(f->inner);
	free(f->inner_end);
	free(f);
}

/*
 * Whether needle[0..k) can be the text just written (t), a placeholder
 * matching anything; reaching the start of t (or of the line when line)
 * first means no.
 */
static bool before_fits(const bag_finder_t *f, const struct bag_text *t, size_t k, bool line)
{
	for (size_t i = 0; i < k; i++) {
		if (i >= t->len)
			return false;
		unsigned char c = (unsigned char)t->p[t->len - 1 - i];
		if (c == PLACE)
			return !line;
		if ((f->icase ? fold(c) : c) != (unsigned char)f->needle[k - 1 - i])
			return false;
	}
	return true;
}

/* Whether a float written next to t (the summary when !line) must be written out. */
static bool keep_float(const bag_finder_t *f, const struct bag_text *t, bool line)
{
	if (f->all_float || (f->tail < f->len && before_fits(f, t, f->tail, line)))
		return true;
	if (line)
		return false;
	if (f->head_run)
		return true;
	for (size_t i = 0; i < f->ninner; i++)
		if (before_fits(f, t, f->inner[i], false))
			return true;
	return false;
}

static bool keep_summary_float(void *ctx, const struct bag_text *t)
{
	return keep_float(ctx, t, false);
}

/* The start of a detail line at the current depth: its label and ": ". */
static void line_label(struct find_state *s, const struct bag_msgdef_field *f, int64_t index)
{
	text_char(s->d, PLACE);
	if (index >= 0) {
		text_char(s->d, '[');
		text_i64(s->d, index);
		text_char(s->d, ']');
	} else {
		text_str(s->d, f->name);
	}
	text_str(s->d, ": ");
}

static void push(struct find_state *s, bool hide)
{
	if (s->depth < DEPTH)
		s->depth++;
	s->hidden[s->depth] = hide;
	s->nhidden += hide;
}

static void pop(struct find_state *s)
{
	s->nhidden -= s->hidden[s->depth];
	s->hidden[s->depth] = false;
	if (s->depth > 0)
		s->depth--;
}

static void find_begin_message(void *ud, const struct bag_msgdef_field *f, int64_t index,
                               const struct bag_msgdef_type *type)
{
	struct find_state *s = ud;

	if (s->f->need_summary)
		summary_visitor.begin_message(&s->sum, f, index, type);
	if (f == NULL)
		return;
	bool hide = index >= DETAIL_SHOWN;
	if (!hide && s->nhidden == 0) {
		line_label(s, f, index);
		text_str(s->d, type->name);
	}
	push(s, hide);
}

static void find_end_message(void *ud, const struct bag_msgdef_field *f, int64_t index)
{
	struct find_state *s = ud;

	if (s->f->need_summary)
		summary_visitor.end_message(&s->sum, f, index);
	if (f != NULL)
		pop(s);
}

static void find_begin_array(void *ud, const struct bag_msgdef_field *f, uint32_t len)
{
	struct find_state *s = ud;

	if (s->f->need_summary)
		summary_visitor.begin_array(&s->sum, f, len);
	if (s->nhidden == 0) {
		line_label(s, f, -1);
		text_str(s->d, f->type_name);
		text_char(s->d, '[');
		text_u64(s->d, len);
		text_char(s->d, ']');
	}
	push(s, false);
}

static void find_end_array(void *ud, const struct bag_msgdef_field *f, uint32_t len)
{
	struct find_state *s = ud;

	if (s->f->need_summary)
		summary_visitor.end_array(&s->sum, f, len);
	if (len > DETAIL_SHOWN && s->nhidden == 0) {
		text_str(s->d, "\n\xE2\x80\xA6 ");
		text_u64(s->d, len - DETAIL_SHOWN);
		text_str(s->d, " more");
	}
	pop(s);
}

/* A value as the detail writes it (tui/detail.c: detail_value_text), a float maybe as PLACE. */
static void detail_value(struct find_state *s, const struct bag_value *v)
{
	struct bag_text *t = s->d;

	switch (v->prim) {
	case BAG_PRIM_BOOL: text_str(t, v->v.b ? "true" : "false"); break;
	case BAG_PRIM_INT8: case BAG_PRIM_INT16: case BAG_PRIM_INT32: case BAG_PRIM_INT64:
		text_i64(t, v->v.i);
		break;
	case BAG_PRIM_UINT8: case BAG_PRIM_UINT16: case BAG_PRIM_UINT32: case BAG_PRIM_UINT64:
		text_u64(t, v->v.u);
		break;
	case BAG_PRIM_FLOAT32: case BAG_PRIM_FLOAT64:
		if (keep_float(s->f, t, true))
			bag_text_double(t, v->v.f);
		else
			text_char(t, PLACE);
		break;
	case BAG_PRIM_STRING: bag_text_json_string(t, v->v.s.p, v->v.s.len); break;
	default: {
		char ns[10];
		uint32_t x = v->v.t.nsecs;
		text_i64(t, v->v.t.secs);
		for (int i = 8; i >= 0; i--, x /= 10)
			ns[i + 1] = (char)('0' + x % 10);
		ns[0] = '.';
		bag_text_append(t, ns, sizeof ns);
		break;
	}
	}
}

static void find_value(void *ud, const struct bag_msgdef_field *f, int64_t index, const struct bag_value *v)
{
	struct find_state *s = ud;

	if (s->f->need_summary)
		summary_visitor.value(&s->sum, f, index, v);
	if (index >= DETAIL_SHOWN || s->nhidden > 0)
		return;
	line_label(s, f, index);
	detail_value(s, v);
}

/* Whether t[0..len) holds the needle, folding t first when icase. */
static bool holds(const bag_finder_t *f, struct bag_text *t, size_t len)
{
	if (f->icase)
		for (size_t i = 0; i < len; i++)
			t->p[i] = (char)fold((unsigned char)t->p[i]);
	return len >= f->len && memmem(t->p, len, f->needle, f->len) != NULL;
}

BAG_API bool bag_finder_maybe(const bag_finder_t *f, const bag_msgdef_t *def, const uint8_t *data, size_t len,
                              struct bag_text *a, struct bag_text *b)
{
	static const struct bag_visitor vis = {
		find_begin_message, find_end_message, find_begin_array, find_end_array, find_value,
	};
	struct find_state s = { .f = f, .d = a };
	char err[8];

	if (f->always)
		return true;
	a->len = b->len = 0;
	s.sum.j.t = b;
	s.sum.max = f->summary_max;
	s.sum.keep_float = keep_summary_float;
	s.sum.ctx = (void *)f;
	if (bag_decode(def, data, len, &vis, &s, NULL, err, sizeof err) != BAG_OK || a->failed || b->failed)
		return true;
	if (a->len > 0 && holds(f, a, a->len))
		return true;
	return f->need_summary && b->len > 0 && holds(f, b, b->len < f->summary_max ? b->len : f->summary_max);
}
