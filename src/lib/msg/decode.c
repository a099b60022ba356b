/*
 * decode.c - running a compiled definition over message bytes.
 *
 * The walk is recursive over the ops (one op per field; a nested message's
 * fields are the run [sub, sub + nsub)). A frame stack records the field and
 * array index at each depth; it is read only to name the path in an error.
 * Array lengths are checked against the bytes left times the element's
 * minimum size before any element is visited, so a huge count fails at once.
 *
 * The walk spends an element budget (decode.h): each element charges one
 * as it is visited, except that an array (or a single field) of a fixed
 * type charges all its elements' nodes at once, before any is visited, and
 * what lies inside it is then prepaid. Skipping it (no visitor) charges the
 * same, so every caller agrees on which messages decode.
 *
 * The same walk reads CDR (a definition parsed for BAG_ENCODING_CDR): after
 * the 4-byte encapsulation header, which selects the byte order, each
 * primitive and each length is aligned to its size relative to the byte
 * after that header (origin); a string's length counts its NUL, which the
 * visitor does not see; a type without fields takes one byte. Padding only
 * adds bytes, so the minimum-size checks hold for CDR too; only arrays of
 * primitives are skipped in one step (a message's padding depends on where
 * it starts). Strings, and arrays of them, are passed over by their
 * lengths alone when checking.
 *
 * A CDR wstring (op->wide) is a uint32 count of UTF-16 code units, no
 * terminator, then the units: 4 bytes each as Fast-CDR 1 writes them (ROS 2
 * up to Humble: rosidl widens each char16_t to a wchar_t), 2 bytes each as
 * Fast-CDR 2 does (Jazzy). The 4-byte reading is taken when the units fit
 * and each is at most 0x10FFFF, else the 2-byte one. The units are handed to
 * the visitor as UTF-8 (surrogate pairs joined, a lone or invalid unit as
 * U+FFFD) in buffers on w->wide, freed when the message's walk ends.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/decode.h>
#include "lib/common/util-int.h"
#include "lib/msg/msgdef-int.h"

/* One wstring's UTF-8 (the walk's list). */
struct wide {
	struct wide *next;
	char s[];
};

struct frame {
	const struct bag_msgdef_field *field;
	int64_t index;
};

struct walk {
	const struct dec_op *ops;
	const uint8_t *data;
	size_t len;
	size_t at;
	const struct bag_visitor *vis;
	bag_elements_fn elements;  /* or NULL: every element */
	void *ud;
	bool quiet;               /* no callbacks: only lengths are checked */
	uint64_t budget;          /* elements the message may still expand to */
	uint64_t budget0;
	bool prepaid;             /* inside a fixed field whose elements are charged */
	bool cdr;                 /* CDR: aligned, NUL-terminated strings */
	bool be;                  /* CDR big-endian */
	size_t origin;            /* CDR: alignment is relative to this byte */
	struct wide *wide;        /* the UTF-8 of the wstrings seen */
	int depth;
	struct bag_error *err;    /* may be NULL */
	struct frame stack[BAG_MSGDEF_MAX_DEPTH];  /* last: walk_init() leaves it unset (1 KiB a message) */
};

/* "a.b[3].c" for the current stack, then the message. */
static int walk_fail(struct walk *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#include <stdarg.h>

static int walk_fail(struct walk *w, const char *fmt, ...)
{
	char path[BAG_ERROR_MESSAGE_MAX], text[BAG_ERROR_MESSAGE_MAX];
	size_t n = 0;
	va_list ap;

	if (w->err == NULL)
		return BAG_EDECODE;
	path[0] = '\0';
	for (int i = 0; i < w->depth && n < sizeof path; i++) {
		const struct frame *f = &w->stack[i];
		n += (size_t)snprintf(path + n, sizeof path - n, "%s%s", i ? "." : "", f->field->name);
		if (f->index >= 0 && n < sizeof path)
			n += (size_t)snprintf(path + n, sizeof path - n, "[%lld]", (long long)f->index);
	}
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	return bag_error_set(w->err, BAG_EDECODE, NULL, w->at, "%s%sat byte %zu: %s", path,
	                     w->depth ? " " : "", w->at, text);
}

static uint16_t rd16(const struct walk *w, const uint8_t *p)
{
	return w->be ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[0] | p[1] << 8);
}

static inline __attribute__((always_inline)) uint32_t rd32(const struct walk *w, const uint8_t *p)
{
	if (w->be)
		return (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 | (uint32_t)p[0] << 24;
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const struct walk *w, const uint8_t *p)
{
	uint64_t lo = rd32(w, p), hi = rd32(w, p + 4);

	return w->be ? lo << 32 | hi : hi << 32 | lo;
}

/* CDR: the padding before a size-byte primitive at offset at (0 for ROS 1). */
static inline size_t pad_at(const struct walk *w, size_t at, size_t size)
{
	if (!w->cdr || size < 2)
		return 0;
	/* sizes are 2, 4 or 8: a mask, not two divisions a field */
	return (size & (size - 1)) == 0 ? (0 - (at - w->origin)) & (size - 1) : (size - (at - w->origin) % size) % size;
}

/* CDR: move w->at to the next multiple of size past the origin (no-op for ROS 1). */
static int align(struct walk *w, size_t size)
{
	size_t pad = pad_at(w, w->at, size);

	if (pad > w->len - w->at)
		return walk_fail(w, "needs %zu byte%s of padding, %zu remain", pad, BAG_S(pad), w->len - w->at);
	w->at += pad;
	return BAG_OK;
}

static const uint8_t sizes[] = {
	[BAG_PRIM_BOOL] = 1, [BAG_PRIM_INT8] = 1, [BAG_PRIM_UINT8] = 1, [BAG_PRIM_INT16] = 2,
	[BAG_PRIM_UINT16] = 2, [BAG_PRIM_INT32] = 4, [BAG_PRIM_UINT32] = 4, [BAG_PRIM_INT64] = 8,
	[BAG_PRIM_UINT64] = 8, [BAG_PRIM_FLOAT32] = 4, [BAG_PRIM_FLOAT64] = 8, [BAG_PRIM_STRING] = 4,
	[BAG_PRIM_TIME] = 8, [BAG_PRIM_DURATION] = 8,
};

/* Read one primitive at w->at into *v. */
static int read_prim(struct walk *w, enum bag_prim prim, struct bag_value *v)
{
	const uint8_t *p;
	size_t left;
	int rc;

	if ((rc = align(w, sizes[prim] > 4 && prim >= BAG_PRIM_STRING ? 4 : sizes[prim])) != BAG_OK)
		return rc;
	p = w->data + w->at;
	left = w->len - w->at;
	if (left < sizes[prim])
		return walk_fail(w, "needs %u byte%s for a %s, %zu remain", sizes[prim], BAG_S(sizes[prim]),
		                 bag_prim_name(prim), left);
	v->prim = prim;
	switch (prim) {
	case BAG_PRIM_BOOL: v->v.b = p[0] != 0; break;
	case BAG_PRIM_INT8: v->v.i = (int8_t)p[0]; break;
	case BAG_PRIM_UINT8: v->v.u = p[0]; break;
	case BAG_PRIM_INT16: v->v.i = (int16_t)rd16(w, p); break;
	case BAG_PRIM_UINT16: v->v.u = rd16(w, p); break;
	case BAG_PRIM_INT32: v->v.i = (int32_t)rd32(w, p); break;
	case BAG_PRIM_UINT32: v->v.u = rd32(w, p); break;
	case BAG_PRIM_INT64: v->v.i = (int64_t)rd64(w, p); break;
	case BAG_PRIM_UINT64: v->v.u = rd64(w, p); break;
	case BAG_PRIM_FLOAT32: {
		uint32_t u = rd32(w, p);
		float f;
		memcpy(&f, &u, 4);
		v->v.f = f;
		break;
	}
	case BAG_PRIM_FLOAT64: {
		uint64_t u = rd64(w, p);
		memcpy(&v->v.f, &u, 8);
		break;
	}
	case BAG_PRIM_STRING: {
		uint32_t n = rd32(w, p);
		if (n > left - 4)
			return walk_fail(w, "string of %u byte%s, %zu remain", n, BAG_S(n), left - 4);
		v->v.s.p = (const char *)p + 4;
		v->v.s.len = n - (w->cdr && n > 0 && p[4 + n - 1] == '\0');
		w->at += 4 + (size_t)n;
		return BAG_OK;
	}
	case BAG_PRIM_TIME:
		v->v.t.secs = rd32(w, p);
		v->v.t.nsecs = rd32(w, p + 4);
		break;
	case BAG_PRIM_DURATION:
		v->v.t.secs = (int32_t)rd32(w, p);
		v->v.t.nsecs = (int32_t)rd32(w, p + 4);
		break;
	default:
		return walk_fail(w, "not a primitive");
	}
	w->at += sizes[prim];
	return BAG_OK;
}

/* c as UTF-8 at o (U+FFFD when it is not a scalar value); returns the bytes written. */
static size_t utf8_put(char *o, uint32_t c)
{
	if ((c >= 0xd800 && c < 0xe000) || c > 0x10ffff)
		c = 0xfffd;
	if (c < 0x80)
		return (size_t)(o[0] = (char)c, 1);
	if (c < 0x800) {
		o[0] = (char)(0xc0 | c >> 6);
		o[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		o[0] = (char)(0xe0 | c >> 12);
		o[1] = (char)(0x80 | (c >> 6 & 0x3f));
		o[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | c >> 18);
	o[1] = (char)(0x80 | (c >> 12 & 0x3f));
	o[2] = (char)(0x80 | (c >> 6 & 0x3f));
	o[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/* The n code units of width bytes at p as UTF-8 into out; returns its length. */
static size_t wide_utf8(const struct walk *w, const uint8_t *p, uint32_t n, int width, char *out)
{
	size_t len = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t c = width == 4 ? rd32(w, p + 4 * (size_t)i) : rd16(w, p + 2 * (size_t)i);
		if (c >= 0xd800 && c < 0xdc00 && i + 1 < n) {
			uint32_t lo = width == 4 ? rd32(w, p + 4 * (size_t)(i + 1)) : rd16(w, p + 2 * (size_t)(i + 1));
			if (lo >= 0xdc00 && lo < 0xe000) {
				c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
				i++;
			}
		}
		len += utf8_put(out + len, c);
	}
	out[len] = '\0';
	return len;
}

/* A CDR wstring at w->at into *v as UTF-8 (see the top comment). */
static int read_wstring(struct walk *w, struct bag_value *v)
{
	size_t left;
	uint32_t n;
	int width = 0, rc;

	if ((rc = align(w, 4)) != BAG_OK)
		return rc;
	left = w->len - w->at;
	if (left < 4)
		return walk_fail(w, "needs 4 bytes for a wstring, %zu remain", left);
	n = rd32(w, w->data + w->at);
	const uint8_t *p = w->data + w->at + 4;
	if (n <= (left - 4) / 4) {
		width = 4;
		for (uint32_t i = 0; i < n && width == 4; i++)
			width = rd32(w, p + 4 * (size_t)i) <= 0x10ffff ? 4 : 0;
	}
	if (width == 0 && n <= (left - 4) / 2)
		width = 2;
	if (width == 0)
		return walk_fail(w, "wstring of %u code units, %zu bytes remain", n, left - 4);
	struct wide *b = malloc(sizeof *b + 4 * (size_t)n + 1);
	if (b == NULL)
		return walk_fail(w, "out of memory for a wstring of %u code units", n);
	b->next = w->wide;
	w->wide = b;
	v->prim = BAG_PRIM_STRING;
	v->v.s.p = b->s;
	v->v.s.len = wide_utf8(w, p, n, width, b->s);
	w->at += 4 + (size_t)n * (size_t)width;
	return BAG_OK;
}

static int walk_message(struct walk *w, uint32_t first, uint32_t n);

/* Spend n elements (count of each) of the budget (a product, not a division: this runs once a field). */
static int charge(struct walk *w, uint64_t count, uint64_t each)
{
	uint64_t cost;

	if (__builtin_mul_overflow(count, each, &cost) || cost > w->budget)
		return walk_fail(w, "the message expands to more than %llu element%s, the budget for %zu byte%s",
		                 (unsigned long long)w->budget0, BAG_S(w->budget0), w->len, BAG_S(w->len));
	w->budget -= cost;
	return BAG_OK;
}

/* One element (index -1 when not in an array) of op's type. */
static int walk_element(struct walk *w, const struct dec_op *op, int64_t index)
{
	struct bag_value v;
	int rc;

	w->stack[w->depth - 1].index = index;
	if (!w->prepaid && (rc = charge(w, 1, 1)) != BAG_OK)
		return rc;
	if (op->prim == BAG_PRIM_MESSAGE) {
		if (w->vis->begin_message)
			w->vis->begin_message(w->ud, op->field, index, op->field->msg);
		if ((rc = walk_message(w, op->sub, op->nsub)) != BAG_OK)
			return rc;
		if (w->vis->end_message)
			w->vis->end_message(w->ud, op->field, index);
		return BAG_OK;
	}
	if ((rc = op->wide ? read_wstring(w, &v) : read_prim(w, (enum bag_prim)op->prim, &v)) != BAG_OK)
		return rc;
	if (w->vis->value)
		w->vis->value(w->ud, op->field, index, &v);
	return BAG_OK;
}

/* The elements of array op, count of them. */
static int walk_elements(struct walk *w, const struct dec_op *op, uint32_t count)
{
	int rc;

	if (w->vis->begin_array)
		w->vis->begin_array(w->ud, op->field, count);
	if (w->elements && op->fixed && op->elem_min > 0 && (!w->cdr || op->prim < BAG_PRIM_STRING) &&
	    !w->elements(w->ud, op->field, count, w->data + w->at, w->len - w->at)) {
		if ((rc = align(w, op->elem_min)) != BAG_OK)
			return rc;
		if ((size_t)count * op->elem_min > w->len - w->at)
			return walk_fail(w, "array of %u element%s cannot fit in the %zu byte%s that remain", count,
			                 BAG_S(count), w->len - w->at, BAG_S(w->len - w->at));
		w->at += (size_t)count * op->elem_min;
	}
	else
		for (uint32_t i = 0; i < count; i++)
			if ((rc = walk_element(w, op, i)) != BAG_OK)
				return rc;
	w->stack[w->depth - 1].index = -1;
	if (w->vis->end_array)
		w->vis->end_array(w->ud, op->field, count);
	return BAG_OK;
}

/* Field op: count elements (1 when not an array); a fixed type's are charged here, at once. */
static int walk_counted(struct walk *w, const struct dec_op *op, uint32_t count)
{
	bool pay = op->fixed && !w->prepaid;
	size_t left = w->len - w->at;
	int rc;

	if (op->array != BAG_ARRAY_NONE && op->elem_min > 0 && count > left / op->elem_min)
		return walk_fail(w, "array of %u element%s cannot fit in the %zu byte%s that remain", count,
		                 BAG_S(count), left, BAG_S(left));
	if (pay && (rc = charge(w, count, op->nodes)) != BAG_OK)
		return rc;
	/* checking only: elements of a fixed size are skipped in one step (CDR: primitives only) */
	if (w->quiet && op->fixed && (op->array != BAG_ARRAY_NONE || op->elem_min <= left) &&
	    (!w->cdr || (op->prim < BAG_PRIM_STRING && count > 0))) {
		if ((rc = align(w, op->elem_min)) != BAG_OK)
			return rc;
		if ((size_t)count * op->elem_min > w->len - w->at)
			return walk_fail(w, "array of %u element%s cannot fit in the %zu byte%s that remain", count,
			                 BAG_S(count), w->len - w->at, BAG_S(w->len - w->at));
		w->at += (size_t)count * op->elem_min;
		return BAG_OK;
	}
	w->prepaid |= pay;
	rc = op->array == BAG_ARRAY_NONE ? walk_element(w, op, -1) : walk_elements(w, op, count);
	w->prepaid &= !pay;
	return rc;
}

static int walk_field(struct walk *w, const struct dec_op *op)
{
	uint32_t count = 1;

	if (op->array == BAG_ARRAY_FIXED) {
		count = op->fixed_len;
	} else if (op->array == BAG_ARRAY_VARIABLE) {
		int rc = align(w, 4);
		if (rc != BAG_OK)
			return rc;
		if (w->len - w->at < 4)
			return walk_fail(w, "needs 4 bytes for an array length, %zu remain", w->len - w->at);
		count = rd32(w, w->data + w->at);
		w->at += 4;
	}
	return walk_counted(w, op, count);
}

/*
 * Checking: string field op (one, a fixed or a variable array of them)
 * passed over whole, charged as the field walk would charge it. False, with
 * w untouched, when a length or a string does not fit or the budget runs
 * out: the field walk then says why.
 */
static bool skip_strings(struct walk *w, const struct dec_op *op)
{
	size_t at = w->at, len = w->len;
	uint32_t count = op->array == BAG_ARRAY_FIXED ? op->fixed_len : 1;

	if (op->array == BAG_ARRAY_VARIABLE) {
		at += pad_at(w, at, 4);
		if (at > len || len - at < 4)
			return false;
		count = rd32(w, w->data + at);
		at += 4;
	}
	if (count > w->budget)
		return false;
	for (uint32_t i = 0; i < count; i++) {
		at += pad_at(w, at, 4);
		if (at > len || len - at < 4 || rd32(w, w->data + at) > len - at - 4)
			return false;
		at += 4 + (size_t)rd32(w, w->data + at);
	}
	w->budget -= count;
	w->at = at;
	return true;
}

static int walk_message(struct walk *w, uint32_t first, uint32_t n)
{
	int rc;

	if (w->depth >= BAG_MSGDEF_MAX_DEPTH)
		return walk_fail(w, "messages nested too deeply");
	if (w->cdr && n == 0) {
		/* rosidl's structure_needs_at_least_one_member */
		if (w->at == w->len)
			return walk_fail(w, "needs 1 byte for an empty message, 0 remain");
		w->at++;
		return BAG_OK;
	}
	w->depth++;
	for (uint32_t k = 0; k < n; k++) {
		const struct dec_op *op = &w->ops[first + k];
		/* checking: a run of fixed fields that fits is skipped at once (else each says why not) */
		uint64_t run = op->run == 0 || !w->quiet ? UINT64_MAX : !w->cdr ? op->run_bytes :
		               op->cdr_ok ? op->cdr_run[(w->at - w->origin) % 8] : UINT64_MAX;
		if (run <= w->len - w->at && (w->prepaid || op->run_nodes <= w->budget)) {
			w->budget -= w->prepaid ? 0 : op->run_nodes;
			w->at += run;
			k += op->run - 1;
			continue;
		}
		if (w->quiet && op->prim == BAG_PRIM_STRING && !op->wide && !w->prepaid && skip_strings(w, op))
			continue;
		w->stack[w->depth - 1] = (struct frame){ op->field, -1 };
		if ((rc = walk_field(w, op)) != BAG_OK)
			return rc;
	}
	w->depth--;
	return BAG_OK;
}

static const struct bag_visitor no_visitor;

/* The CDR encapsulation header: plain CDR, big- or little-endian. */
static int cdr_header(struct walk *w)
{
	w->cdr = true;
	if (w->len < 4)
		return walk_fail(w, "needs 4 bytes for the CDR header, %zu remain", w->len);
	if (w->data[0] != 0 || w->data[1] > 1)
		return walk_fail(w, "CDR representation 0x%02x%02x is not plain CDR (only XCDR1 is read)",
		                 w->data[0], w->data[1]);
	w->be = w->data[1] == 0;
	w->at = w->origin = 4;
	return BAG_OK;
}

/* The walk over a whole message, *used set to the bytes it took. */
static int decode(struct walk *w, const bag_msgdef_t *def, size_t *used)
{
	uint32_t nroot;
	int rc;

	w->budget = BAG_DECODE_BUDGET(w->len) - 1;
	w->budget0 = w->budget + 1;   /* the top message took one */
	w->ops = msgdef_ops(def, &nroot);
	w->quiet = !w->vis->begin_message && !w->vis->end_message && !w->vis->begin_array && !w->vis->end_array &&
	           !w->vis->value;
	bag_error_clear(w->err);
	if (bag_msgdef_encoding(def) == BAG_ENCODING_CDR && (rc = cdr_header(w)) != BAG_OK)
		goto out;
	if (w->vis->begin_message)
		w->vis->begin_message(w->ud, NULL, -1, bag_msgdef_root(def));
	rc = walk_message(w, 0, nroot);
	if (rc == BAG_OK && w->vis->end_message)
		w->vis->end_message(w->ud, NULL, -1);
out:
	if (used != NULL)
		*used = w->at;
	while (w->wide != NULL) {
		struct wide *next = w->wide->next;
		free(w->wide);
		w->wide = next;
	}
	return rc;
}

/* A walk over data[0..len) with everything before its stack set (frames are set as they are entered). */
static void walk_init(struct walk *w, const uint8_t *data, size_t len, const struct bag_visitor *vis,
                      bag_elements_fn elements, void *ud, struct bag_error *err)
{
	/* every field before the stack, one by one: a memset of them was a rep stos a message */
	w->ops = NULL;
	w->data = data;
	w->len = len;
	w->at = 0;
	w->vis = vis ? vis : &no_visitor;
	w->elements = elements;
	w->ud = ud;
	w->quiet = w->prepaid = w->cdr = w->be = false;
	w->budget = w->budget0 = 0;
	w->origin = 0;
	w->wide = NULL;
	w->depth = 0;
	w->err = err;
}

BAG_API int bag_decode_some(const bag_msgdef_t *def, const uint8_t *data, size_t len,
                            const struct bag_visitor *vis, bag_elements_fn elements, void *ud,
                            struct bag_error *err)
{
	struct walk w;

	walk_init(&w, data, len, vis, elements, ud, err);
	return decode(&w, def, NULL);
}

BAG_API int bag_decode(const bag_msgdef_t *def, const uint8_t *data, size_t len,
                       const struct bag_visitor *vis, void *ud, size_t *used,
                       struct bag_error *err)
{
	struct walk w;

	walk_init(&w, data, len, vis, NULL, ud, err);
	return decode(&w, def, used);
}
