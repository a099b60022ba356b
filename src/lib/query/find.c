/*
 * find.c - bag_finder (see find.h). The needle becomes a matching
 * automaton (dfa[state][byte], state = how much of the needle the text
 * just read ends with; len = found). One decode of a message feeds it the
 * text of the detail lines (each line from state 0: the needle holds no
 * newline) and of the summary (one line, cut at summary_max), without
 * writing that text anywhere:
 *
 * - Names are the same in every message: for each field of each type the
 *   finder knows, from state 0, the state after "name: " (a detail line),
 *   after "name: pkg/Type" and "name: type[" and after "name=" (the
 *   summary), and whether the needle was met on the way. A piece met in
 *   another state is fed byte by byte (rare: the needle must span it).
 * - Values are fed as the detail and the summary write them, except
 *   floats, whose shortest repr costs most: a float is written only when
 *   the needle can overlap its text (the state before it is not 0, or the
 *   needle is all float bytes "0-9.-+einaf", or in the summary it starts
 *   with a run of them followed by what follows a value). Otherwise no
 *   occurrence can touch it and state 0 follows it. An all-float needle
 *   lies inside one float's text, so only floats whose text can hold it
 *   are written (struct float_rule, from the value alone; "[-]digits"
 *   needles by the text, cached per thread); an array of floats is looked
 *   at in place and skipped whole when none of its shown elements can.
 *
 * The layout mirrors src/tui/detail.c (detail_decode_lines) and
 * print-summary.c; tests/unit/test-find.c holds them to it on every fixture
 * bag. The summary is fed only when it can show the needle where no detail
 * line does (need_summary): its numbers, names, strings (cut at 64 bytes)
 * and array lengths are the detail's, so a needle without its punctuation
 * ("={}[](),\"", a byte >= 0x80, a space at either end or two together)
 * or, matching case, "True"/"False" is in a detail line whenever it is in
 * the summary (a space between two other bytes is inside a string there).
 *
 * Before all that, an all-float needle that no name holds goes through the
 * quick walk (see there): a ROS 1 message read straight from its ops,
 * looking only at floats (sifted by their binary exponent, struct
 * float_rule's bexp, before float_may), strings and, when the needle can
 * be in them, integers and times. Its "no" is exact; "maybe" goes on to
 * the walk above.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/find.h>
#include "lib/msg/msgdef-int.h"
#include "lib/out/print-int.h"

#define DETAIL_SHOWN 64     /* elements of an array the detail shows (src/tui/detail.c) */
#define SUMMARY_SHOWN 4     /* and the summary (print-summary.c) */
#define SUMMARY_STRING 64   /* bytes of a string the summary shows */
#define FLOAT_BYTES "0123456789.-+einaf"
#define AFTER_VALUE " ,}]"   /* what follows a value in the summary */
#define MUTED UINT32_MAX

/*
 * Which float texts (Python's repr: "nan", "inf", "-inf", fixed "[-]I.F",
 * scientific "[-]D[.DDD]e[+-]XX") an all-float needle can lie in: none
 * with one of "naif" but the nonfinite; with 'e' or '+' only the
 * scientific (0 < |d| < 1e-4 or |d| >= 1e16); "[-]A.B" (digits A, B)
 * in a fixed text only when the integer part ends with A (is A, after
 * '-') and the fraction starts with B: the fraction of |d| is then in
 * [lo, hi) give or take the repr's half ulp, which needs no formatting.
 * The rest ("[-]digits") is formatted.
 */
enum float_class { FL_ANY, FL_NONFINITE, FL_SCI, FL_FIXED, FL_NEVER };

struct float_rule {
	enum float_class cls;
	bool neg;               /* the needle starts with '-' */
	int alen, blen;         /* FL_FIXED: digits of A (<= 16) and their value; digits of B */
	uint64_t aval;
	double lo, hi;          /* 0.B and 0.B + 10^-|B| (|B| <= 20); no B: lo = 0, hi = 1 */
	bool bexp[2048];        /* per biased binary exponent: a double with it may hold the needle */
};

/* What the quick walk does with an op's elements (struct bag_finder's qkind). */
enum quick_kind {
	QK_WALK,                /* walk them */
	QK_SKIP,                /* fixed size, and nothing in them can show the needle */
	QK_F64,                 /* fixed size, nothing but float64s: look at them in a row */
};

/* What the finder knows of one field, from state 0. */
struct fplan {
	uint8_t label;          /* after "name: " */
	uint8_t arr;            /* after "name: type[" */
	uint8_t sname;          /* after "name=" */
	bool label_hit, msg_hit, arr_hit, sname_hit;   /* met in those, or in "name: pkg/Type" */
	uint32_t namelen;
};

struct bag_finder {
	uint8_t *dfa;           /* (len + 1) * 256 */
	char *needle;           /* folded to lower case when icase */
	size_t len;
	bool icase;
	bool always;            /* empty, too long, or holds '\n': every message may show it */
	size_t summary_max;
	bool need_summary;
	bool all_float;         /* every byte a float byte */
	struct float_rule fr;   /* when all_float: which floats' text can hold it (float_may) */
	uint32_t id;            /* this finder's number, for the float cache */
	bool quick;             /* an all-float needle no name holds: quick_maybe() first (see there) */
	bool quick_ints;        /* and integers' (and array lengths') text can hold it ("[-]digits") */
	bool quick_times;       /* and times' text can ("[-]digits", "[-]A.B") */
	uint8_t *qkind;         /* per decoding op: enum quick_kind of its elements */
	bool head_run;          /* a leading float run, then a byte that follows a value */
	bool labels0;           /* every field's "name: " leaves state 0 with no match */
	bool num0, time0, bool0; /* the needle starts with a byte of an integer's, a time's, a bool's text */
	bool idx0;              /* every "[i]: " leaves state 0 with no match */
	bool sep0;              /* so does ", " */
	uint8_t idx[DETAIL_SHOWN];   /* the state after "[i]: " from 0 */
	bool idx_hit[DETAIL_SHOWN];
	size_t ntypes;
	size_t *type_off;       /* per type: its fields' first fplan */
	bool *type_hit;         /* per type: the needle in its name */
	bool *is_header;        /* per type: std_msgs/Header */
	struct fplan *fp;
};

/* One message being fed. */
struct find_state {
	const bag_finder_t *f;
	const struct bag_msgdef_type *types;   /* the decoding def's */
	struct bag_text *scratch;
	bool hit;
	/* detail */
	int depth;
	int nhidden;            /* levels inside an element the detail leaves out */
	bool hidden[DEPTH + 1];
	const struct bag_msgdef_type *owner[DEPTH + 1];   /* the message being walked at each level */
	/* summary */
	unsigned q;
	size_t pos;             /* bytes of summary text so far (a skipped float counts 1) */
	int sdepth, nmuted;
	bool first[DEPTH + 1], array[DEPTH + 1];
	uint32_t array_len[DEPTH + 1];
};

static unsigned char fold(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

static bool in(char c, const char *set)
{
	return c != '\0' && strchr(set, c) != NULL;
}

/*
 * Feed s[0..n) from *q; true when the needle is met. In state 0 the bytes
 * that cannot start the needle are passed over without the automaton's
 * chain of lookups.
 */
static bool feed(const bag_finder_t *f, unsigned *q, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned st = *q;

	for (size_t i = 0; i < n; i++) {
		if (st == 0) {
			while (i < n && f->dfa[p[i]] == 0)
				i++;
			if (i == n)
				break;
		}
		if ((st = f->dfa[st * 256 + p[i]]) == f->len)
			return true;
	}
	*q = st;
	return false;
}

static bool feed_str(const bag_finder_t *f, unsigned *q, const char *s)
{
	return feed(f, q, s, strlen(s));
}

/* The automaton (KMP's), folding when icase. */
static int build_dfa(bag_finder_t *f)
{
	size_t L = f->len;
	unsigned x = 0;

	if ((f->dfa = calloc((L + 1) * 256, 1)) == NULL)
		return BAG_ENOMEM;
	f->dfa[(unsigned char)f->needle[0]] = 1;
	for (size_t j = 1; j < L; j++) {
		memcpy(f->dfa + j * 256, f->dfa + x * 256, 256);
		f->dfa[j * 256 + (unsigned char)f->needle[j]] = (uint8_t)(j + 1);
		x = f->dfa[x * 256 + (unsigned char)f->needle[j]];
	}
	if (f->icase)
		for (size_t j = 0; j < L; j++)
			for (int c = 'A'; c <= 'Z'; c++)
				f->dfa[j * 256 + c] = f->dfa[j * 256 + c + 32];
	return BAG_OK;
}

/* How an all-float needle n[0..len) meets float texts (see struct float_rule). */
static void float_classify(struct float_rule *r, const char *n, size_t len)
{
	const char *dot = memchr(n, '.', len), *b;
	char num[40];
	size_t blen;

	r->neg = n[0] == '-';
	r->cls = FL_ANY;
	if (strpbrk(n, "naif") != NULL) {
		r->cls = FL_NONFINITE;
		return;
	}
	if (strpbrk(n, "e+") != NULL) {
		r->cls = FL_SCI;
		return;
	}
	if (memchr(n + 1, '-', len - 1) != NULL || (dot != NULL && memchr(dot + 1, '.', len - (size_t)(dot - n) - 1))) {
		r->cls = FL_NEVER;       /* a '-' inside, or two '.': no float's text */
		return;
	}
	if (dot == NULL)
		return;
	r->alen = (int)(dot - n) - r->neg;
	b = dot + 1;
	blen = len - (size_t)(b - n);
	if (r->alen > 16 || blen > 20) {
		r->cls = FL_NEVER;       /* longer than any integer part or fraction */
		return;
	}
	r->cls = FL_FIXED;
	r->blen = (int)blen;
	r->aval = 0;
	for (const char *p = n + r->neg; p < dot; p++)
		r->aval = r->aval * 10 + (uint64_t)(*p - '0');
	r->lo = 0;
	r->hi = 1;
	if (blen > 0) {
		snprintf(num, sizeof num, "%.*se-%zu", (int)blen, b, blen);   /* no '.': the locale's point is never read */
		r->lo = strtod(num, NULL);
		r->hi = r->lo + pow(10, -(double)blen);
	}
}

/* Whether the exponent text of 10^e ("e-05", "e+16", "e-308") starts with what follows 'e' in rest. */
static bool exp_text_may(int e, const char *rest)
{
	char text[16];

	snprintf(text, sizeof text, "%c%02d", e < 0 ? '-' : '+', e < 0 ? -e : e);
	return strncmp(text, rest, strlen(rest)) == 0;
}

/*
 * Whether a double in [lo, hi) can show "[-]A.B" (FL_FIXED): in a
 * scientific text A is one digit at most; in a fixed one the integer part
 * is at least A, and B lies in the fraction, whose digits are those of the
 * 17 significant ones at most that follow the integer part's: |B| >= 2
 * needs x < 10^(17 - |B|) (|B| = 1 also meets an integer's ".0"). A
 * factor of 2 either way keeps it safe from rounding.
 */
static bool fixed_binade_may(const struct float_rule *r, double lo, double hi, bool sci)
{
	double top = r->blen >= 2 ? pow(10, 17 - r->blen) : 1e16;

	if (sci && r->alen <= 1)
		return true;
	return hi * 2 > 1e-4 && lo < 2 * 1e16 && lo < 2 * top && hi * 2 > (double)r->aval;
}

/*
 * r->bexp: which binary exponents can hold an all-float needle n. Only a
 * scientific text has an exponent, and a needle with 'e' or '+' names its
 * start ("e-77": -77; "e-7": -70 to -79), so only doubles within a few
 * binades of those powers of ten can hold it; the other classes keep every
 * finite exponent (nonfinite: only the top one).
 */
static void float_exponents(struct float_rule *r, const char *n)
{
	const char *e = strchr(n, 'e'), *rest = e ? e + 1 : strchr(n, '+');

	for (int b = 0; b < 2048; b++) {
		double lo = b == 0 ? 0 : ldexp(1, b - 1023), hi = b == 0 ? 0x1p-1022 : ldexp(1, b - 1022);
		bool sci = b == 0 || lo < 1e-4 || hi > 1e16;
		r->bexp[b] = r->cls == FL_NONFINITE ? b == 2047 : r->cls == FL_ANY || (r->cls != FL_NEVER && b < 2047);
		if (r->cls == FL_FIXED && b < 2047)
			r->bexp[b] = fixed_binade_may(r, lo, hi, sci);
		if (r->cls != FL_SCI || !r->bexp[b])
			continue;
		r->bexp[b] = false;
		int e0 = b == 0 ? -325 : (int)floor(log10(lo)) - 1, e1 = b == 0 ? -307 : (int)floor(log10(hi)) + 1;
		for (int k = e0; sci && k <= e1 && !r->bexp[b]; k++)
			r->bexp[b] = rest == NULL || exp_text_may(k, rest);
	}
}

/* A fixed text's integer part ends with A (is A after '-'), its fraction may start with B. */
static bool fixed_may(const struct float_rule *r, double x)
{
	static const uint64_t p10[17] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000,
	                                  1000000000, 10000000000, 100000000000, 1000000000000, 10000000000000,
	                                  100000000000000, 1000000000000000, 10000000000000000 };
	uint64_t ip = (uint64_t)x;   /* the repr's integer part: no shortest decimal of a non-integer is one */
	/* the repr's fraction is within half an ulp of x's; lo and hi within 2^-52 of theirs */
	double fr = x - (double)ip, margin = x * 0x1p-51 + 0x1p-50;
	bool short_ip = r->alen > 1 && ip < p10[r->alen - 1];   /* fewer digits than A */

	if (fr < r->lo - margin || fr >= r->hi + margin)   /* first: a division costs more */
		return false;
	return r->neg ? ip == r->aval && !short_ip : r->alen == 0 || (ip % p10[r->alen] == r->aval && !short_ip);
}

/*
 * Answers for "[-]digits" needles, whose floats must be written: per
 * thread, by value and finder (constant fields, such as covariances and a
 * scan's angles, repeat in every message). Entries never go stale: every
 * finder gets a new id.
 */
#define FCACHE 1024
struct fcache_entry {
	uint64_t bits;
	uint32_t id;            /* 0: empty */
	bool may;
};
static __thread struct fcache_entry fcache[FCACHE];
static _Atomic uint32_t finder_ids;

static bool digits_may(const bag_finder_t *f, double d)
{
	char text[32];
	uint64_t bits;
	struct fcache_entry *e;

	memcpy(&bits, &d, sizeof bits);
	e = &fcache[((bits ^ f->id) * 0x9E3779B97F4A7C15ULL) >> 54];
	if (e->id == f->id && e->bits == bits)
		return e->may;
	e->bits = bits;
	e->id = f->id;
	unsigned q = 0;
	e->may = feed(f, &q, text, text_repr(text, d));
	return e->may;
}

/* Whether d's text can hold the finder's all-float needle; false is exact. */
static bool float_may(const bag_finder_t *f, double d)
{
	const struct float_rule *r = &f->fr;
	double x = fabs(d);
	bool sci = x != 0 && (x < 1e-4 || x >= 1e16);
	uint64_t bits;

	memcpy(&bits, &d, sizeof bits);
	if (!r->bexp[bits >> 52 & 0x7ff])
		return false;
	switch (r->cls) {
	case FL_NONFINITE: return !isfinite(d);
	case FL_SCI: return isfinite(d) && sci;
	case FL_NEVER: return false;
	case FL_FIXED:
		if (!isfinite(d))
			return false;
		if (sci)   /* "[-]D.DDDe-XX": A is one digit at most */
			return r->alen <= 1 && (!r->neg || signbit(d));
		return (!r->neg || signbit(d)) && fixed_may(r, x);
	default:   /* "-digits" is at the start or after an 'e' */
		if (r->neg && !signbit(d) && !sci)
			return false;
		return digits_may(f, d);
	}
}

/* Where float text can meet the needle, and whether the summary matters (see the top). */
static void analyse(bag_finder_t *f)
{
	const char *n = f->needle;
	size_t h = 0;

	while (h < f->len && in(n[h], FLOAT_BYTES))
		h++;
	f->all_float = h == f->len;
	if (f->all_float) {
		float_classify(&f->fr, n, f->len);
		float_exponents(&f->fr, n);
	}
	f->head_run = h > 0 && h < f->len && in(n[h], AFTER_VALUE);
	f->num0 = in(n[0], "0123456789-");
	f->time0 = in(n[0], "0123456789-.");
	f->bool0 = in(n[0], "truefalsTF");
	for (size_t i = 0; i < f->len; i++) {
		unsigned char c = (unsigned char)n[i];
		if (in((char)c, "={}[](),\"") || c >= 0x80 || (!f->icase && (c == 'T' || c == 'F')))
			f->need_summary = true;
	}
	if (n[0] == ' ' || n[f->len - 1] == ' ' || strstr(n, "  ") != NULL)
		f->need_summary = true;
}

/* The state after a piece s1 s2 s3 from state 0; *hit when the needle is in it. */
static uint8_t from0(const bag_finder_t *f, const char *s1, const char *s2, const char *s3, bool *hit)
{
	unsigned q = 0;

	*hit = feed_str(f, &q, s1) || feed_str(f, &q, s2) || feed_str(f, &q, s3);
	return (uint8_t)q;
}

/* Each type's and field's pieces from state 0. */
static int plan(bag_finder_t *f, const bag_msgdef_t *def)
{
	size_t nf = 0;

	f->ntypes = bag_msgdef_type_count(def);
	for (size_t t = 0; t < f->ntypes; t++)
		nf += bag_msgdef_type_at(def, t)->nfields;
	f->type_off = calloc(f->ntypes + 1, sizeof *f->type_off);
	f->type_hit = calloc(f->ntypes + 1, sizeof *f->type_hit);
	f->is_header = calloc(f->ntypes + 1, sizeof *f->is_header);
	f->fp = calloc(nf + 1, sizeof *f->fp);
	if (f->type_off == NULL || f->type_hit == NULL || f->is_header == NULL || f->fp == NULL)
		return BAG_ENOMEM;
	nf = 0;
	f->labels0 = true;
	for (size_t t = 0; t < f->ntypes; t++) {
		const struct bag_msgdef_type *ty = bag_msgdef_type_at(def, t);
		f->type_off[t] = nf;
		from0(f, ty->name, "", "", &f->type_hit[t]);
		f->is_header[t] = strcmp(ty->name, "std_msgs/Header") == 0;
		for (size_t i = 0; i < ty->nfields; i++, nf++) {
			const struct bag_msgdef_field *fd = &ty->fields[i];
			struct fplan *p = &f->fp[nf];
			unsigned q = 0;
			p->label = from0(f, fd->name, ": ", "", &p->label_hit);
			from0(f, fd->name, ": ", fd->msg != NULL ? fd->msg->name : "", &p->msg_hit);
			p->arr_hit = feed_str(f, &q, fd->name) || feed_str(f, &q, ": ") || feed_str(f, &q, fd->type_name) ||
			             feed(f, &q, "[", 1);
			p->arr = (uint8_t)q;
			p->sname = from0(f, fd->name, "=", "", &p->sname_hit);
			p->namelen = (uint32_t)strlen(fd->name);
			if (p->label != 0 || p->label_hit)
				f->labels0 = false;
		}
	}
	return BAG_OK;
}


/*
 * Whether the needle lies in a piece of text every message of def may
 * show whatever its values: a name (type, field, field type, constant) or
 * a word of the layout. An all-float needle that lies in none can show only
 * inside one value's text or a string's.
 */
static bool in_names(const bag_finder_t *f, const bag_msgdef_t *def)
{
	static const char *const words[] = { "true", "false", "True", "False", "more" };
	unsigned q;

	for (size_t i = 0; i < sizeof words / sizeof *words; i++)
		if (q = 0, feed_str(f, &q, words[i]))
			return true;
	for (int i = 0; i < DETAIL_SHOWN; i++)
		if (f->idx_hit[i])
			return true;
	for (size_t t = 0; t < bag_msgdef_type_count(def); t++) {
		const struct bag_msgdef_type *ty = bag_msgdef_type_at(def, t);
		if (q = 0, feed_str(f, &q, ty->name))
			return true;
		for (size_t i = 0; i < ty->nfields; i++)
			if ((q = 0, feed_str(f, &q, ty->fields[i].name)) || (q = 0, feed_str(f, &q, ty->fields[i].type_name)))
				return true;
		for (size_t i = 0; i < ty->nconsts; i++)
			if (q = 0, feed_str(f, &q, ty->consts[i].name))
				return true;
	}
	return false;
}

/* Past the last op reachable from ops[first, first + n). */
static uint32_t ops_end(const struct dec_op *ops, uint32_t first, uint32_t n)
{
	uint32_t end = first + n;

	for (uint32_t i = first; i < first + n; i++)
		if (ops[i].prim == BAG_PRIM_MESSAGE) {
			uint32_t e = ops_end(ops, ops[i].sub, ops[i].nsub);
			end = e > end ? e : end;
		}
	return end;
}

/* The quick_kind of op i's elements (memoised in f->qkind; 0xff: not yet). */
static uint8_t quick_kind(bag_finder_t *f, const struct dec_op *ops, uint32_t i)
{
	const struct dec_op *op = &ops[i];
	uint8_t k = QK_WALK;

	if (f->qkind[i] != 0xff)
		return f->qkind[i];
	switch (op->prim) {
	case BAG_PRIM_FLOAT64: k = QK_F64; break;
	case BAG_PRIM_FLOAT32: case BAG_PRIM_STRING: break;
	case BAG_PRIM_BOOL: k = QK_SKIP; break;
	case BAG_PRIM_TIME: case BAG_PRIM_DURATION: k = f->quick_times ? QK_WALK : QK_SKIP; break;
	case BAG_PRIM_MESSAGE:
		if (!op->fixed || op->nsub == 0)
			break;
		k = quick_kind(f, ops, op->sub);
		for (uint32_t j = 1; j < op->nsub; j++)
			if (quick_kind(f, ops, op->sub + j) != k)
				k = QK_WALK;
		break;
	default: k = f->quick_ints ? QK_WALK : QK_SKIP; break;
	}
	if (op->wide || (k != QK_WALK && !op->fixed))
		k = QK_WALK;
	return f->qkind[i] = k;
}

/* Whether the quick walk can rule messages out for this needle (struct bag_finder's quick), and how. */
static int quick_plan(bag_finder_t *f, const bag_msgdef_t *def)
{
	uint32_t nroot, end;
	const struct dec_op *ops = msgdef_ops(def, &nroot);

	f->quick = f->all_float && bag_msgdef_encoding(def) == BAG_ENCODING_ROS1 && !in_names(f, def);
	f->quick_ints = f->fr.cls == FL_ANY;
	f->quick_times = f->fr.cls == FL_ANY || (f->fr.cls == FL_FIXED && f->fr.blen <= 9);   /* ".nnnnnnnnn" */
	if (!f->quick)
		return BAG_OK;
	end = ops_end(ops, 0, nroot);
	if ((f->qkind = malloc(end + 1)) == NULL)
		return BAG_ENOMEM;
	memset(f->qkind, 0xff, end + 1);
	for (uint32_t i = 0; i < end; i++)
		quick_kind(f, ops, i);
	return BAG_OK;
}

BAG_API int bag_finder_new(bag_finder_t **out, const bag_msgdef_t *def, const char *needle, size_t len, bool icase,
                           size_t summary_max)
{
	bag_finder_t *f = calloc(1, sizeof *f);
	int rc;

	*out = f;
	if (f == NULL || (f->needle = malloc(len + 1)) == NULL)
		return BAG_ENOMEM;
	for (size_t i = 0; i < len; i++)
		f->needle[i] = icase ? (char)fold((unsigned char)needle[i]) : needle[i];
	f->needle[len] = '\0';
	f->len = len;
	f->icase = icase;
	f->summary_max = summary_max;
	while ((f->id = ++finder_ids) == 0)
		;
	f->always = len == 0 || len > 255 || memchr(needle, '\n', len) != NULL || bag_msgdef_root(def) == NULL;
	if (f->always)
		return BAG_OK;
	analyse(f);
	if ((rc = build_dfa(f)) != BAG_OK)
		return rc;
	f->idx0 = true;
	for (int i = 0; i < DETAIL_SHOWN; i++) {
		char label[16];
		unsigned q = 0;
		f->idx_hit[i] = feed(f, &q, label, (size_t)snprintf(label, sizeof label, "[%d]: ", i));
		f->idx[i] = (uint8_t)q;
		f->idx0 = f->idx0 && q == 0 && !f->idx_hit[i];
	}
	f->sep0 = !in(f->needle[0], ", ");
	if ((rc = quick_plan(f, def)) != BAG_OK)
		return rc;
	return plan(f, def);
}

BAG_API void bag_finder_free(bag_finder_t *f)
{
	if (f == NULL)
		return;
	free(f->dfa);
	free(f->needle);
	free(f->type_off);
	free(f->type_hit);
	free(f->is_header);
	free(f->fp);
	free(f->qkind);
	free(f);
}

/* ---- one message -------------------------------------------------------- */

static const struct fplan *fplan_of(const struct find_state *s, const struct bag_msgdef_field *fd)
{
	const struct bag_msgdef_type *owner = s->owner[s->depth];

	return &s->f->fp[s->f->type_off[owner - s->types] + (size_t)(fd - owner->fields)];
}

#define U64_TEXT 24

/* u in decimal, ending at buf + U64_TEXT; where it starts. */
static const char *u64_text(char *buf, uint64_t u)
{
	char *p = buf + U64_TEXT;

	do
		*--p = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	return p;
}

/* A time's ".nnnnnnnnn" (10 bytes). */
static void nsecs_text(char *ns, uint32_t x)
{
	for (int i = 8; i >= 0; i--, x /= 10)
		ns[i + 1] = (char)('0' + x % 10);
	ns[0] = '.';
}

static bool feed_u64(const bag_finder_t *f, unsigned *q, uint64_t u)
{
	char buf[U64_TEXT];
	const char *p = u64_text(buf, u);

	return feed(f, q, p, (size_t)(buf + U64_TEXT - p));
}

static bool feed_i64(const bag_finder_t *f, unsigned *q, int64_t v)
{
	if (v < 0 && feed(f, q, "-", 1))
		return true;
	return feed_u64(f, q, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
}

/* "[i]: " from state 0 (i < DETAIL_SHOWN). */
static bool feed_index(const bag_finder_t *f, unsigned *q, int64_t index)
{
	*q = f->idx[index];
	return f->idx_hit[index];
}

/* The text of s[0..n) as a JSON string (bag_text_json_string): the bytes themselves when none needs escaping. */
static const char *json_text(struct find_state *s, const char *p, size_t n, size_t *out)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') {
			s->scratch->len = 0;
			bag_text_json_string(s->scratch, p, n);
			*out = s->scratch->len - 2;
			return s->scratch->failed ? "" : s->scratch->p + 1;
		}
	}
	*out = n;
	return p;
}

static bool is_float(enum bag_prim prim)
{
	return prim == BAG_PRIM_FLOAT32 || prim == BAG_PRIM_FLOAT64;
}

/*
 * Whether a value of prim, met in state 0, leaves the state at 0 with no
 * match: its text cannot start the needle (a float's: see the top).
 */
static bool skip0(const bag_finder_t *f, enum bag_prim prim)
{
	switch (prim) {
	case BAG_PRIM_BOOL: return !f->bool0;
	case BAG_PRIM_FLOAT32: case BAG_PRIM_FLOAT64: return !f->all_float;
	case BAG_PRIM_STRING: return false;
	case BAG_PRIM_TIME: case BAG_PRIM_DURATION: return !f->time0;
	default: return !f->num0;
	}
}

/* A value as the detail writes it (tui/detail.c: detail_value_text), from state q. */
static bool detail_value(struct find_state *s, unsigned q, const struct bag_value *v)
{
	const bag_finder_t *f = s->f;
	const char *p;
	size_t n;

	if (q == 0 && (skip0(f, v->prim) || (is_float(v->prim) && !float_may(f, v->v.f))))
		return false;
	switch (v->prim) {
	case BAG_PRIM_BOOL: return feed_str(f, &q, v->v.b ? "true" : "false");
	case BAG_PRIM_INT8: case BAG_PRIM_INT16: case BAG_PRIM_INT32: case BAG_PRIM_INT64:
		return feed_i64(f, &q, v->v.i);
	case BAG_PRIM_UINT8: case BAG_PRIM_UINT16: case BAG_PRIM_UINT32: case BAG_PRIM_UINT64:
		return feed_u64(f, &q, v->v.u);
	case BAG_PRIM_FLOAT32: case BAG_PRIM_FLOAT64: {
		char text[32];
		return feed(f, &q, text, text_repr(text, v->v.f));
	}
	case BAG_PRIM_STRING:
		p = json_text(s, v->v.s.p, v->v.s.len, &n);
		return feed(f, &q, "\"", 1) || feed(f, &q, p, n) || feed(f, &q, "\"", 1);
	default: {
		char ns[10];
		nsecs_text(ns, v->v.t.nsecs);
		return feed_i64(f, &q, v->v.t.secs) || feed(f, &q, ns, sizeof ns);
	}
	}
}

/* ---- the summary (print-summary.c's layout) ---- */

static bool summary_on(const struct find_state *s)
{
	return s->f->need_summary && s->pos < s->f->summary_max;
}

/* Append p[0..n) to the summary (cut at summary_max). */
static void sput(struct find_state *s, const char *p, size_t n)
{
	size_t room = s->f->summary_max - s->pos;

	if (!summary_on(s))
		return;
	if (feed(s->f, &s->q, p, n < room ? n : room))
		s->hit = true;
	s->pos += n;
}

static void sput_u64(struct find_state *s, uint64_t u)
{
	char buf[U64_TEXT];
	const char *p = u64_text(buf, u);

	sput(s, p, (size_t)(buf + U64_TEXT - p));
}

static void sput_i64(struct find_state *s, int64_t v)
{
	if (v < 0)
		sput(s, "-", 1);
	sput_u64(s, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
}

/* The separator and "name=" before an item. */
static void summary_item(struct find_state *s, const struct bag_msgdef_field *fd, const struct fplan *fp)
{
	int d = s->sdepth;

	if (d == 0)
		return;
	if (!s->first[d])
		sput(s, s->array[d] ? ", " : "  ", 2);
	s->first[d] = false;
	if (s->array[d])
		return;
	if (s->q == 0 && s->pos + fp->namelen + 1 <= s->f->summary_max && summary_on(s)) {
		s->hit = s->hit || fp->sname_hit;
		s->q = fp->sname;
		s->pos += fp->namelen + 1;
	} else {
		sput(s, fd->name, fp->namelen);
		sput(s, "=", 1);
	}
}

static void summary_push(struct find_state *s, bool array, uint32_t len)
{
	if (s->sdepth + 1 <= DEPTH)
		s->sdepth++;
	s->first[s->sdepth] = true;
	s->array[s->sdepth] = array;
	s->array_len[s->sdepth] = len;
	s->nmuted += len == MUTED;
}

/* Pop a level; whether it was muted. */
static bool summary_pop(struct find_state *s)
{
	bool muted = s->array_len[s->sdepth] == MUTED;

	s->nmuted -= muted;
	s->array_len[s->sdepth] = 0;
	if (s->sdepth > 0)
		s->sdepth--;
	return muted;
}

static void summary_value(struct find_state *s, const struct bag_msgdef_field *fd, int64_t index,
                          const struct bag_value *v, const struct fplan *fp)
{
	const char *p;
	size_t n;

	if (index >= SUMMARY_SHOWN || s->nmuted > 0)
		return;
	summary_item(s, fd, fp);
	if (s->q == 0 && ((skip0(s->f, v->prim) && !(is_float(v->prim) && s->f->head_run)) ||
	                  (is_float(v->prim) && s->f->all_float && !float_may(s->f, v->v.f)))) {
		s->pos++;   /* at least a byte: the summary is cut no sooner than this says */
		return;
	}
	switch (v->prim) {
	case BAG_PRIM_BOOL: sput(s, v->v.b ? "True" : "False", v->v.b ? 4 : 5); break;
	case BAG_PRIM_INT8: case BAG_PRIM_INT16: case BAG_PRIM_INT32: case BAG_PRIM_INT64: sput_i64(s, v->v.i); break;
	case BAG_PRIM_UINT8: case BAG_PRIM_UINT16: case BAG_PRIM_UINT32: case BAG_PRIM_UINT64: sput_u64(s, v->v.u); break;
	case BAG_PRIM_FLOAT32: case BAG_PRIM_FLOAT64: {
		char text[32];
		sput(s, text, text_repr(text, v->v.f));
		break;
	}
	case BAG_PRIM_STRING:
		p = json_text(s, v->v.s.p, v->v.s.len > SUMMARY_STRING ? SUMMARY_STRING : v->v.s.len, &n);
		sput(s, "\"", 1);
		sput(s, p, n);
		sput(s, "\"", 1);
		break;
	default: {
		char ns[10];
		nsecs_text(ns, v->v.t.nsecs);
		sput_i64(s, v->v.t.secs);
		sput(s, ns, sizeof ns);
		break;
	}
	}
}

/* ---- the visitor: both layouts at once ---- */

static void push(struct find_state *s, bool hide, const struct bag_msgdef_type *owner)
{
	if (s->depth < DEPTH)
		s->depth++;
	s->hidden[s->depth] = hide;
	s->nhidden += hide;
	s->owner[s->depth] = owner;
}

static void pop(struct find_state *s)
{
	s->nhidden -= s->hidden[s->depth];
	s->hidden[s->depth] = false;
	if (s->depth > 0)
		s->depth--;
}

static void find_begin_message(void *ud, const struct bag_msgdef_field *fd, int64_t index,
                               const struct bag_msgdef_type *type)
{
	struct find_state *s = ud;
	const struct fplan *fp = fd != NULL ? fplan_of(s, fd) : NULL;
	size_t ti = (size_t)(type - s->types);
	unsigned q;

	if (summary_on(s) && !s->hit) {
		bool mute = fd != NULL && (index >= SUMMARY_SHOWN || (s->sdepth == 1 && index < 0 && s->f->is_header[ti]));
		if (fd != NULL && !mute && s->nmuted == 0) {
			summary_item(s, fd, fp);
			sput(s, "{", 1);
		}
		summary_push(s, false, mute ? MUTED : 0);
	}
	if (fd == NULL) {
		s->owner[0] = type;
		return;
	}
	bool hide = index >= DETAIL_SHOWN;
	if (!hide && s->nhidden == 0 && !s->hit) {
		if (index < 0)
			s->hit = fp->msg_hit;
		else if (feed_index(s->f, &q, index))
			s->hit = true;
		else
			s->hit = q == 0 ? s->f->type_hit[ti] : feed_str(s->f, &q, type->name);
	}
	push(s, hide, type);
}

static void find_end_message(void *ud, const struct bag_msgdef_field *fd, int64_t index)
{
	struct find_state *s = ud;

	(void)index;
	if (summary_on(s) && !s->hit && !summary_pop(s) && fd != NULL && s->nmuted == 0)
		sput(s, "}", 1);
	if (fd != NULL)
		pop(s);
}

static void find_begin_array(void *ud, const struct bag_msgdef_field *fd, uint32_t len)
{
	struct find_state *s = ud;
	const struct fplan *fp = fplan_of(s, fd);
	unsigned q = fp->arr;

	if (summary_on(s) && !s->hit) {
		bool muted = s->nmuted > 0;
		if (!muted) {
			summary_item(s, fd, fp);
			sput(s, "[", 1);
		}
		summary_push(s, true, muted ? MUTED : len);
	}
	if (s->nhidden == 0 && !s->hit)
		s->hit = fp->arr_hit || feed_u64(s->f, &q, len) || feed(s->f, &q, "]", 1);
	push(s, false, s->owner[s->depth]);
}

/* Whether no float among the first n of an array (of prim, at p) can hold an all-float needle. */
static bool floats_quiet(const bag_finder_t *f, enum bag_prim prim, const uint8_t *p, uint32_t n)
{
	size_t size = prim == BAG_PRIM_FLOAT32 ? 4 : 8;

	for (uint32_t i = 0; i < n; i++, p += size) {
		uint64_t u = 0;
		double d;
		for (size_t b = size; b-- > 0;)
			u = u << 8 | p[b];
		if (size == 4) {
			float x;
			uint32_t u32 = (uint32_t)u;
			memcpy(&x, &u32, 4);
			d = x;
		} else {
			memcpy(&d, &u, 8);
		}
		if (float_may(f, d))
			return false;
	}
	return true;
}

/*
 * Whether the elements of an array of numbers can matter: not when no
 * detail line of them can show the needle and the summary's first ones
 * leave state 0 (they are counted a byte each and skipped). Floats for an
 * all-float needle are looked at in place (those the detail shows).
 */
static bool find_elements(void *ud, const struct bag_msgdef_field *fd, uint32_t len, const uint8_t *at,
                          size_t avail)
{
	struct find_state *s = ud;
	const bag_finder_t *f = s->f;
	bool floats = is_float(fd->prim), skip = skip0(f, fd->prim);
	uint32_t shown = len < DETAIL_SHOWN ? len : DETAIL_SHOWN;

	if (s->hit)
		return false;
	if (floats && f->all_float && (size_t)shown * (fd->prim == BAG_PRIM_FLOAT32 ? 4 : 8) <= avail)
		skip = floats_quiet(f, fd->prim, at, shown);
	if (fd->prim == BAG_PRIM_MESSAGE || (s->nhidden == 0 && !(f->idx0 && skip)))
		return true;
	if (!summary_on(s) || s->nmuted > 0)
		return false;
	if (s->q != 0 || !skip || (floats && f->head_run) || !f->sep0)
		return true;
	uint32_t n = len < SUMMARY_SHOWN ? len : SUMMARY_SHOWN;
	if (n > 0) {
		s->pos += 3 * n - 2;
		s->first[s->sdepth] = false;
	}
	return false;
}

static void find_end_array(void *ud, const struct bag_msgdef_field *fd, uint32_t len)
{
	struct find_state *s = ud;
	unsigned q = 0;

	(void)fd;
	if (summary_on(s) && !s->hit && !summary_pop(s)) {
		if (len > SUMMARY_SHOWN) {
			sput(s, ", \xE2\x80\xA6 (", 6);
			sput_u64(s, len);
			sput(s, ")", 1);
		}
		sput(s, "]", 1);
	}
	if (len > DETAIL_SHOWN && s->nhidden == 0 && !s->hit)
		s->hit = feed(s->f, &q, "\xE2\x80\xA6 ", 4) || feed_u64(s->f, &q, len - DETAIL_SHOWN) ||
		         feed(s->f, &q, " more", 5);
	pop(s);
}

static void find_value(void *ud, const struct bag_msgdef_field *fd, int64_t index, const struct bag_value *v)
{
	struct find_state *s = ud;
	const struct fplan *fp;
	unsigned q = 0;

	if (s->hit)
		return;
	if (summary_on(s))
		summary_value(s, fd, index, v, fplan_of(s, fd));
	if (s->hit || index >= DETAIL_SHOWN || s->nhidden > 0)
		return;
	if (index >= 0) {
		if (feed_index(s->f, &q, index)) {
			s->hit = true;
			return;
		}
	} else if (!s->f->labels0) {
		fp = fplan_of(s, fd);
		if (fp->label_hit) {
			s->hit = true;
			return;
		}
		q = fp->label;
	}
	s->hit = detail_value(s, q, v);
}


/* ---- the quick walk ---------------------------------------------------- */

/*
 * For an all-float needle that no name holds (quick_plan), only the text
 * of a float, an integer or a time, or the inside of a string, can hold
 * it: every other byte the layouts write is no float byte (": ", "=", "[",
 * "]", ", ", "{", "}", quotes, "…"). The quick walk reads a ROS 1
 * message straight from its ops, skipping what cannot matter, and looks
 * only at those values among the shown ones (the first 64 elements of each
 * array; the summary shows fewer): floats by float_may, integers and times
 * by their text when the needle is "[-]digits" (or, times, "[-]A.B"),
 * array lengths and "… N more" likewise, strings by their bytes (a string
 * holding a byte the detail escapes is "maybe": "\n" writes an 'n').
 * Anything it cannot read is "maybe"; the full walk then decides.
 */
struct quick {
	const bag_finder_t *f;
	const struct dec_op *ops;
	const uint8_t *p, *end;
};

/* A little-endian unsigned integer of size 1, 2, 4 or 8 bytes at p. */
static uint64_t le64(const uint8_t *p, size_t size)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (size) {
	case 1: memcpy(&u8, p, 1); return u8;
	case 2: memcpy(&u16, p, 2); return u16;
	case 4: memcpy(&u32, p, 4); return u32;
	default: memcpy(&u64, p, 8); return u64;
	}
#else
	uint64_t u = 0;

	for (size_t b = size; b-- > 0;)
		u = u << 8 | p[b];
	return u;
#endif
}

static bool quick_string(const bag_finder_t *f, const uint8_t *s, size_t n)
{
	unsigned q = 0;

	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] >= 0x80)
			return true;
	return feed(f, &q, (const char *)s, n);
}

static bool quick_int(const bag_finder_t *f, bool neg, uint64_t u)
{
	unsigned q = 0;

	return (neg && feed(f, &q, "-", 1)) || feed_u64(f, &q, u);
}

/* One shown value of prim at p (size bytes, all there). */
static bool quick_value(const bag_finder_t *f, enum bag_prim prim, const uint8_t *p, size_t size)
{
	uint64_t u = le64(p, size);
	int64_t i;

	switch (prim) {
	case BAG_PRIM_FLOAT32: {
		float x;
		uint32_t u32 = (uint32_t)u;
		memcpy(&x, &u32, 4);
		return float_may(f, x);
	}
	case BAG_PRIM_FLOAT64: {
		double d;
		memcpy(&d, &u, 8);
		return f->fr.bexp[u >> 52 & 0x7ff] && float_may(f, d);   /* most are ruled out here, without a call */
	}
	case BAG_PRIM_BOOL: return false;
	case BAG_PRIM_TIME: case BAG_PRIM_DURATION: {
		char ns[10];
		unsigned q = 0;
		if (!f->quick_times)
			return false;
		nsecs_text(ns, (uint32_t)(u >> 32));
		i = prim == BAG_PRIM_TIME ? (int64_t)(uint32_t)u : (int64_t)(int32_t)(uint32_t)u;
		return feed_i64(f, &q, i) || feed(f, &q, ns, sizeof ns);
	}
	case BAG_PRIM_INT8: case BAG_PRIM_INT16: case BAG_PRIM_INT32: case BAG_PRIM_INT64:
		if (!f->quick_ints)
			return false;
		i = size == 8 ? (int64_t)u : (int64_t)(u << (64 - 8 * size)) >> (64 - 8 * size);
		return quick_int(f, i < 0, i < 0 ? (uint64_t)0 - (uint64_t)i : (uint64_t)i);
	default:
		return f->quick_ints && quick_int(f, false, u);
	}
}

static bool quick_fields(struct quick *k, uint32_t first, uint32_t n, bool shown);

/* Whether any of n float64s at p may hold the needle. */
static bool floats64_may(const bag_finder_t *f, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++, p += 8) {
		uint64_t u = le64(p, 8);
		double d;
		memcpy(&d, &u, 8);
		if (f->fr.bexp[u >> 52 & 0x7ff] && float_may(f, d))
			return true;
	}
	return false;
}

/* count elements of op (shown: the field is); true for "maybe". */
static bool quick_elements(struct quick *k, const struct dec_op *op, uint32_t count, bool shown)
{
	size_t size = op->elem_min, left = (size_t)(k->end - k->p);
	uint8_t kind = k->f->qkind[op - k->ops];

	if (kind != QK_WALK || (op->fixed && !shown)) {
		if ((uint64_t)count * size > left)
			return true;
		if (kind == QK_F64 && shown && floats64_may(k->f, k->p, (size_t)count * size / 8))
			return true;   /* all of them, shown or not: a "maybe" too many is only slower */
		k->p += (size_t)count * size;
		return false;
	}
	if (op->prim == BAG_PRIM_MESSAGE) {
		for (uint32_t i = 0; i < count; i++)
			if (quick_fields(k, op->sub, op->nsub, shown && i < DETAIL_SHOWN))
				return true;
		return false;
	}
	if (op->prim == BAG_PRIM_STRING) {
		for (uint32_t i = 0; i < count; i++) {
			uint32_t n;
			if (k->end - k->p < 4 || (n = (uint32_t)le64(k->p, 4)) > (size_t)(k->end - k->p) - 4)
				return true;
			if (shown && i < DETAIL_SHOWN && quick_string(k->f, k->p + 4, n))
				return true;
			k->p += 4 + (size_t)n;
		}
		return false;
	}
	if ((uint64_t)count * size > left)
		return true;
	uint32_t look = !shown ? 0 : count < DETAIL_SHOWN ? count : DETAIL_SHOWN;
	for (uint32_t i = 0; i < look; i++)
		if (quick_value(k->f, (enum bag_prim)op->prim, k->p + (size_t)i * size, size))
			return true;
	k->p += (size_t)count * size;
	return false;
}

/* The fields [first, first + n) of a message; true for "maybe". */
static bool quick_fields(struct quick *k, uint32_t first, uint32_t n, bool shown)
{
	for (uint32_t j = 0; j < n; j++) {
		const struct dec_op *op = &k->ops[first + j];
		uint32_t count = 1;
		if (op->wide)
			return true;
		if (op->array == BAG_ARRAY_FIXED)
			count = op->fixed_len;
		else if (op->array == BAG_ARRAY_VARIABLE) {
			if (k->end - k->p < 4)
				return true;
			count = (uint32_t)le64(k->p, 4);
			k->p += 4;
			if (op->elem_min == 0 && count > 0)
				return true;   /* empty elements: the decoder's budget decides */
		}
		if (shown && op->array != BAG_ARRAY_NONE && k->f->quick_ints &&
		    (quick_int(k->f, false, count) || (count > DETAIL_SHOWN && quick_int(k->f, false, count - DETAIL_SHOWN))))
			return true;
		if (quick_elements(k, op, count, shown))
			return true;
	}
	return false;
}

/* Whether a ROS 1 message may show the needle, by the quick walk (see there). */
static bool quick_maybe(const bag_finder_t *f, const bag_msgdef_t *def, const uint8_t *data, size_t len)
{
	uint32_t nroot;
	struct quick k = { f, msgdef_ops(def, &nroot), data, data + len };

	return quick_fields(&k, 0, nroot, true);
}

BAG_API bool bag_finder_maybe(const bag_finder_t *f, const bag_msgdef_t *def, const uint8_t *data, size_t len,
                              struct bag_text *scratch)
{
	static const struct bag_visitor vis = {
		find_begin_message, find_end_message, find_begin_array, find_end_array, find_value,
	};
	struct find_state s;    /* levels are set as they are entered: no need to clear them */
	if (f->always || bag_msgdef_type_count(def) != f->ntypes)
		return true;
	if (f->quick && bag_msgdef_encoding(def) == BAG_ENCODING_ROS1 && !quick_maybe(f, def, data, len))
		return false;
	s.f = f;
	s.types = bag_msgdef_type_at(def, 0);
	s.scratch = scratch;
	s.hit = false;
	s.depth = s.nhidden = 0;
	s.hidden[0] = false;
	s.q = 0;
	s.pos = 0;
	s.sdepth = s.nmuted = 0;
	s.array_len[0] = 0;
	if (bag_decode_some(def, data, len, &vis, find_elements, &s, NULL) != BAG_OK || scratch->failed)
		return true;
	return s.hit;
}
