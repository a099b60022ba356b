/*
 * _bag.c - bagscope._core.Bag and its message iterator.
 *
 * A Bag owns its bag handles, their timeline and, per timeline connection,
 * the parsed definition (made on first use). lock serializes the calls of
 * several Python threads on one Bag; it is taken with the GIL released, and
 * every long library call (open, reads, scans, export, check) runs with the
 * GIL released too. A message iterator has its own view of the timeline and
 * holds the Bag's lock only inside each next().
 */
#include "_core.h"

#include <pythread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	PyObject_HEAD
	bag_t **bags;
	size_t nbags;
	bag_timeline_t *tl;
	bag_msgdef_t **defs;      /* per timeline connection, NULL until parsed */
	bool *def_done;           /* parse tried (defs[i] may still have failed) */
	PyThread_type_lock lock;
} BagObject;

typedef struct {
	PyObject_HEAD
	BagObject *bag;
	bag_view_t *view;
	uint64_t row;
	bag_expr_t *filter;
	bag_expr_prog_t **progs;  /* per timeline connection, for the filter */
	bool raw;
} MsgIterObject;

static PyTypeObject *MessageType;
static PyStructSequence_Field message_fields[] = {
	{ "topic", NULL }, { "type", NULL }, { "time_ns", "receipt time, ns since the epoch" },
	{ "data", "the serialized bytes" }, { "msg", "decoded values, or None (raw)" }, { NULL, NULL } };
static PyStructSequence_Desc message_desc = { "bagscope.Message", "One message of a bag.", message_fields, 5 };

/* Take b's lock with the GIL released. */
static void bag_lock(BagObject *b)
{
	Py_BEGIN_ALLOW_THREADS
	PyThread_acquire_lock(b->lock, WAIT_LOCK);
	Py_END_ALLOW_THREADS
}

static void bag_unlock(BagObject *b)
{
	PyThread_release_lock(b->lock);
}

/* Raise when b was closed; 0 when it is open. */
static int bag_open_check(BagObject *b)
{
	if (b->tl != NULL)
		return 0;
	PyErr_SetString(PyExc_ValueError, "the bag is closed");
	return -1;
}

static void bag_release(BagObject *b)
{
	size_t nc = b->tl != NULL ? bag_timeline_conn_count(b->tl) : 0;

	for (size_t i = 0; b->defs != NULL && i < nc; i++)
		bag_msgdef_free(b->defs[i]);
	free(b->defs);
	free(b->def_done);
	bag_timeline_free(b->tl);
	for (size_t i = 0; i < b->nbags; i++)
		bag_close(b->bags[i]);
	free(b->bags);
	b->defs = NULL;
	b->def_done = NULL;
	b->tl = NULL;
	b->bags = NULL;
	b->nbags = 0;
}

/* The parsed definition of timeline connection c; NULL when it has none or it does not parse. */
static const bag_msgdef_t *bag_def(BagObject *b, size_t c)
{
	if (!b->def_done[c]) {
		const struct bag_connection *conn = bag_timeline_conn(b->tl, c, NULL);
		b->def_done[c] = true;
		if (bag_conn_has_definition(conn) && bag_conn_msgdef_parse(&b->defs[c], conn) != BAG_OK) {
			bag_msgdef_free(b->defs[c]);
			b->defs[c] = NULL;
		}
	}
	return b->defs[c];
}

/* A list of str into a malloc'd array of borrowed UTF-8 pointers (*n of them); -1 with an exception. */
static int str_list(PyObject *seq, const char ***out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (seq == NULL || seq == Py_None)
		return 0;
	PyObject *fast = PySequence_Fast(seq, "expected a list of str");
	if (fast == NULL)
		return -1;
	Py_ssize_t len = PySequence_Fast_GET_SIZE(fast);
	*out = calloc((size_t)len + 1, sizeof **out);
	for (Py_ssize_t i = 0; *out != NULL && i < len; i++) {
		(*out)[i] = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(fast, i));
		if ((*out)[i] == NULL) {
			free(*out);
			*out = NULL;
			Py_DECREF(fast);
			return -1;
		}
	}
	Py_DECREF(fast);      /* the strings live in seq, which the caller holds */
	if (*out == NULL) {
		PyErr_NoMemory();
		return -1;
	}
	*n = (size_t)len;
	return 0;
}

static int Bag_init(BagObject *self, PyObject *args, PyObject *kw)
{
	static char *names[] = { "paths", "msg_path", "cache_bytes", NULL };
	PyObject *paths, *msg_path = NULL;
	unsigned long long cache = 0;
	const char **p = NULL, **mp = NULL;
	size_t np, nmp;
	int rc = -1, brc = BAG_OK;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OK", names, &paths, &msg_path, &cache) ||
	    str_list(paths, &p, &np) != 0 || str_list(msg_path, &mp, &nmp) != 0)
		goto done;
	bag_release(self);
	if ((self->bags = calloc(np ? np : 1, sizeof *self->bags)) == NULL) {
		PyErr_NoMemory();
		goto done;
	}
	struct bag_open_opts o = BAG_OPEN_OPTS_INIT;
	o.cache_bytes = (size_t)cache;
	o.msg_path = mp;
	o.msg_path_n = nmp;
	struct bag_error err = BAG_ERROR_INIT;
	Py_BEGIN_ALLOW_THREADS
	for (size_t i = 0; i < np && brc == BAG_OK; i++) {
		brc = bag_open(&self->bags[i], p[i], &o);
		if (brc == BAG_OK)
			brc = bag_counts_make_exact(self->bags[i]);   /* a lone .db3's are estimates after its open */
		if (brc != BAG_OK)
			err = *bag_last_error(self->bags[i]);
		self->nbags++;
	}
	if (brc == BAG_OK && (brc = bag_timeline_open(&self->tl, self->bags, self->nbags)) != BAG_OK)
		err = *bag_timeline_error(self->tl);
	Py_END_ALLOW_THREADS
	if (brc != BAG_OK) {
		raise_bag(brc, &err);
		bag_release(self);
		goto done;
	}
	size_t nc = bag_timeline_conn_count(self->tl);
	self->defs = calloc(nc ? nc : 1, sizeof *self->defs);
	self->def_done = calloc(nc ? nc : 1, sizeof *self->def_done);
	if (self->defs == NULL || self->def_done == NULL) {
		PyErr_NoMemory();
		bag_release(self);
		goto done;
	}
	rc = 0;
done:
	free(p);
	free(mp);
	return rc;
}

static PyObject *Bag_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	BagObject *self = (BagObject *)type->tp_alloc(type, 0);
	(void)args;
	(void)kw;
	if (self != NULL && (self->lock = PyThread_allocate_lock()) == NULL) {
		Py_DECREF(self);
		return PyErr_NoMemory();
	}
	return (PyObject *)self;
}

static void Bag_dealloc(BagObject *self)
{
	bag_release(self);
	if (self->lock != NULL)
		PyThread_free_lock(self->lock);
	Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Bag_close(BagObject *self, PyObject *unused)
{
	(void)unused;
	bag_lock(self);
	bag_release(self);
	bag_unlock(self);
	Py_RETURN_NONE;
}

/* One connection as a dict. */
static PyObject *conn_dict(const struct bag_connection *c, size_t index, size_t bag_index)
{
	PyObject *hdr = PyDict_New(), *d;

	for (size_t f = 0; hdr != NULL && f < c->nfields; f++) {
		PyObject *v = PyUnicode_DecodeUTF8(c->fields[f].value, (Py_ssize_t)c->fields[f].value_len, "replace");
		if (v == NULL || PyDict_SetItemString(hdr, c->fields[f].name, v) != 0)
			Py_CLEAR(hdr);
		Py_XDECREF(v);
	}
	if (hdr == NULL)
		return NULL;
	d = Py_BuildValue("{s:n,s:n,s:I,s:s,s:s,s:s,s:s,s:z,s:O,s:K,s:N}", "index", (Py_ssize_t)index, "bag",
	                  (Py_ssize_t)bag_index, "id", c->id, "topic", c->topic, "type", c->type, "md5sum", c->md5sum,
	                  "definition", c->definition ? c->definition : "", "callerid", c->callerid,
	                  "latching", c->latching ? Py_True : Py_False, "message_count",
	                  (unsigned long long)c->message_count, "header", hdr);
	return d;
}

static PyObject *Bag_connections(BagObject *self, PyObject *unused)
{
	PyObject *list = NULL;
	(void)unused;

	bag_lock(self);
	if (bag_open_check(self) != 0)
		goto done;
	size_t nc = bag_timeline_conn_count(self->tl);
	if ((list = PyList_New((Py_ssize_t)nc)) == NULL)
		goto done;
	for (size_t i = 0; i < nc; i++) {
		size_t bi;
		const struct bag_connection *c = bag_timeline_conn(self->tl, i, &bi);
		PyObject *d = conn_dict(c, i, bi);
		if (d == NULL) {
			Py_CLEAR(list);
			goto done;
		}
		PyList_SET_ITEM(list, (Py_ssize_t)i, d);
	}
done:
	bag_unlock(self);
	return list;
}

/* Start, end, count, and per bag: path, format, size, recovery and warnings. */
static PyObject *Bag_summary(BagObject *self, PyObject *unused)
{
	PyObject *bags = NULL, *out = NULL;
	(void)unused;

	bag_lock(self);
	if (bag_open_check(self) != 0 || (bags = PyList_New(0)) == NULL)
		goto done;
	for (size_t i = 0; i < self->nbags; i++) {
		bag_t *b = self->bags[i];
		struct bag_recovery r;
		PyObject *warn = PyList_New(0), *d;
		bag_recovery_report(b, &r);
		for (size_t k = 0; warn != NULL && k < bag_warning_count(b) && bag_warning(b, k) != NULL; k++) {
			PyObject *s = PyUnicode_DecodeUTF8(bag_warning(b, k), (Py_ssize_t)strlen(bag_warning(b, k)), "replace");
			if (s == NULL || PyList_Append(warn, s) != 0)
				Py_CLEAR(warn);
			Py_XDECREF(s);
		}
		d = warn == NULL ? NULL : Py_BuildValue("{s:s,s:s,s:K,s:K,s:L,s:L,s:O,s:z,s:N}", "path", bag_path(b),
		                                        "format", bag_format(b), "size", (unsigned long long)bag_file_size(b),
		                                        "message_count", (unsigned long long)bag_message_count(b),
		                                        "start_ns", (long long)bag_start_time(b), "end_ns",
		                                        (long long)bag_end_time(b), "relative_times",
		                                        bag_relative_times(b) ? Py_True : Py_False, "recovered",
		                                        r.recovered ? r.reason : NULL, "warnings", warn);
		if (d == NULL || PyList_Append(bags, d) != 0) {
			Py_XDECREF(d);
			goto done;
		}
		Py_DECREF(d);
	}
	out = Py_BuildValue("{s:L,s:L,s:K,s:O}", "start_ns", (long long)bag_timeline_start(self->tl), "end_ns",
	                    (long long)bag_timeline_end(self->tl), "message_count",
	                    (unsigned long long)bag_timeline_count(self->tl), "bags", bags);
done:
	Py_XDECREF(bags);
	bag_unlock(self);
	return out;
}

/*
 * Every topic's record times from the index alone, in order:
 * {topic: bytes of int64 ns}. What stats() and rates are computed from.
 */
static PyObject *Bag_topic_times(BagObject *self, PyObject *unused)
{
	PyObject *out = NULL, *index = NULL;
	size_t nc, nt = 0, *group = NULL;
	int64_t **times = NULL;
	uint64_t *n = NULL;
	int rc;
	(void)unused;

	bag_lock(self);
	if (bag_open_check(self) != 0 || (index = PyDict_New()) == NULL)
		goto done;
	nc = bag_timeline_conn_count(self->tl);
	group = calloc(nc ? nc : 1, sizeof *group);
	times = calloc(nc ? nc : 1, sizeof *times);
	n = calloc(nc ? nc : 1, sizeof *n);
	if (group == NULL || times == NULL || n == NULL) {
		PyErr_NoMemory();
		goto done;
	}
	for (size_t c = 0; c < nc; c++) {
		PyObject *t = PyUnicode_FromString(bag_timeline_conn(self->tl, c, NULL)->topic), *g;
		if (t == NULL)
			goto done;
		if ((g = PyDict_GetItemWithError(index, t)) == NULL) {
			PyObject *k = PyLong_FromSize_t(nt);
			if (PyErr_Occurred() || k == NULL || PyDict_SetItem(index, t, k) != 0) {
				Py_XDECREF(k);
				Py_DECREF(t);
				goto done;
			}
			Py_DECREF(k);
			group[c] = nt++;
		} else {
			group[c] = PyLong_AsSize_t(g);
		}
		Py_DECREF(t);
	}
	Py_BEGIN_ALLOW_THREADS
	rc = bag_timeline_times(self->tl, group, nt, times, n);
	Py_END_ALLOW_THREADS
	if (rc != BAG_OK) {
		raise_bag(rc, bag_timeline_error(self->tl));
		goto done;
	}
	if ((out = PyDict_New()) == NULL)
		goto done;
	PyObject *key, *val;
	Py_ssize_t pos = 0;
	while (PyDict_Next(index, &pos, &key, &val)) {
		size_t g = PyLong_AsSize_t(val);
		PyObject *b = PyBytes_FromStringAndSize((const char *)times[g], (Py_ssize_t)(n[g] * sizeof(int64_t)));
		if (b == NULL || PyDict_SetItem(out, key, b) != 0) {
			Py_XDECREF(b);
			Py_CLEAR(out);
			break;
		}
		Py_DECREF(b);
	}
done:
	for (size_t g = 0; times != NULL && g < nt; g++)
		free(times[g]);
	free(times);
	free(n);
	free(group);
	Py_XDECREF(index);
	bag_unlock(self);
	return out;
}

/* Optional time bounds: None or an int of ns. */
static int time_arg(PyObject *o, int64_t dflt, int64_t *out)
{
	if (o == NULL || o == Py_None) {
		*out = dflt;
		return 0;
	}
	*out = PyLong_AsLongLong(o);
	return *out == -1 && PyErr_Occurred() ? -1 : 0;
}

/* A view of the timeline over topics (None: all) and [start, end]; NULL with an exception. */
static bag_view_t *make_view(BagObject *self, PyObject *topics, PyObject *start, PyObject *end)
{
	struct bag_query q;
	const char **t = NULL;
	size_t nt = 0;
	bag_view_t *v = NULL;
	int rc;

	bag_query_init(&q);
	if (time_arg(start, BAG_TIME_MIN, &q.start_ns) != 0 || time_arg(end, BAG_TIME_MAX, &q.end_ns) != 0 ||
	    str_list(topics, &t, &nt) != 0)
		return NULL;
	if (topics != NULL && topics != Py_None) {
		q.topics = t;
		q.ntopics = nt;
	}
	rc = bag_view_open(&v, self->tl, &q);
	free(t);
	if (rc != BAG_OK) {
		raise_bag(rc, bag_view_error(v));
		bag_view_free(v);
		return NULL;
	}
	return v;
}

/* Parse text as a filter (NULL/None: none): *out; -1 with ExpressionError. */
static int filter_arg(PyObject *text, bag_expr_t **out)
{
	Py_ssize_t len;
	const char *s;
	int rc;

	*out = NULL;
	if (text == NULL || text == Py_None)
		return 0;
	if ((s = PyUnicode_AsUTF8AndSize(text, &len)) == NULL)
		return -1;
	if ((rc = bag_expr_parse(out, s, (size_t)len)) != BAG_OK) {
		raise_bag(rc, bag_expr_error(*out));
		bag_expr_free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

/* Compile it->filter for every connection its view selects, and check it. */
static int iter_compile(MsgIterObject *it)
{
	BagObject *b = it->bag;
	size_t nc = bag_timeline_conn_count(b->tl), n = 0;
	bag_expr_prog_t **sel = calloc(nc ? nc : 1, sizeof *sel);
	int rc = BAG_OK;

	it->progs = calloc(nc ? nc : 1, sizeof *it->progs);
	if (it->progs == NULL || sel == NULL) {
		free(sel);
		PyErr_NoMemory();
		return -1;
	}
	for (size_t c = 0; c < nc && rc == BAG_OK; c++) {
		if (!bag_view_selects(it->view, c))
			continue;
		rc = bag_expr_compile(&it->progs[c], it->filter, bag_timeline_conn(b->tl, c, NULL), bag_def(b, c));
		sel[n++] = it->progs[c];
	}
	if (rc == BAG_OK)
		rc = bag_expr_check(it->filter, sel, n);
	free(sel);
	if (rc != BAG_OK) {
		raise_bag(rc, bag_expr_error(it->filter));
		return -1;
	}
	return 0;
}

static PyObject *Bag_messages(BagObject *self, PyObject *args, PyObject *kw)
{
	static char *names[] = { "topics", "start", "end", "filter", "raw", NULL };
	PyObject *topics = NULL, *start = NULL, *end = NULL, *filter = NULL;
	int raw = 0;
	MsgIterObject *it = NULL;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOOOp", names, &topics, &start, &end, &filter, &raw))
		return NULL;
	bag_lock(self);
	if (bag_open_check(self) != 0 || (it = PyObject_New(MsgIterObject, &MsgIterType)) == NULL)
		goto done;
	Py_INCREF(self);
	it->bag = self;
	it->row = 0;
	it->filter = NULL;
	it->progs = NULL;
	it->raw = raw;
	if ((it->view = make_view(self, topics, start, end)) == NULL || filter_arg(filter, &it->filter) != 0 ||
	    (it->filter != NULL && iter_compile(it) != 0))
		Py_CLEAR(it);
done:
	bag_unlock(self);
	return (PyObject *)it;
}

static void MsgIter_dealloc(MsgIterObject *it)
{
	BagObject *b = it->bag;
	size_t nc = b != NULL && b->tl != NULL ? bag_timeline_conn_count(b->tl) : 0;

	for (size_t c = 0; it->progs != NULL && c < nc; c++)
		bag_expr_prog_free(it->progs[c]);
	free(it->progs);
	bag_expr_free(it->filter);
	bag_view_free(it->view);
	Py_XDECREF(b);
	PyObject_Free(it);
}

/* The Message for m (its bytes read), decoded unless raw. */
static PyObject *make_message(MsgIterObject *it, const struct bag_message *m)
{
	PyObject *msg = NULL, *out;

	if (!it->raw) {
		const bag_msgdef_t *def = bag_def(it->bag, m->conn_index);
		if (def == NULL) {
			msg = Py_None;
			Py_INCREF(msg);
		} else if ((msg = decode_message(def, m->data, m->size)) == NULL) {
			return NULL;
		}
	} else {
		msg = Py_None;
		Py_INCREF(msg);
	}
	if ((out = PyStructSequence_New(MessageType)) == NULL) {
		Py_DECREF(msg);
		return NULL;
	}
	PyStructSequence_SET_ITEM(out, 0, PyUnicode_FromString(m->conn->topic));
	PyStructSequence_SET_ITEM(out, 1, PyUnicode_FromString(m->conn->type));
	PyStructSequence_SET_ITEM(out, 2, PyLong_FromLongLong(m->time_ns));
	PyStructSequence_SET_ITEM(out, 3, PyBytes_FromStringAndSize((const char *)m->data, m->size));
	PyStructSequence_SET_ITEM(out, 4, msg);
	for (int i = 0; i < 4; i++)
		if (PyStructSequence_GET_ITEM(out, i) == NULL) {
			Py_DECREF(out);
			return NULL;
		}
	return out;
}

static PyObject *MsgIter_next(MsgIterObject *it)
{
	BagObject *b = it->bag;
	PyObject *out = NULL;
	struct bag_message m;
	int rc = BAG_OK, pass = 1;

	bag_lock(b);
	if (bag_open_check(b) != 0)
		goto done;
	do {
		if (it->row >= bag_view_count(it->view))
			goto done;            /* NULL without an exception: StopIteration */
		Py_BEGIN_ALLOW_THREADS
		rc = bag_view_read(it->view, it->row, &m);
		if (rc == BAG_OK && it->filter != NULL)
			pass = bag_expr_eval(it->progs[m.conn_index], m.data, m.size, m.time_ns);
		Py_END_ALLOW_THREADS
		it->row++;
		if (rc != BAG_OK) {
			raise_bag(rc, bag_view_error(it->view));
			goto done;
		}
		if (pass < 0) {
			struct bag_error e = BAG_ERROR_INIT;
			snprintf(e.message, sizeof e.message, "%s at %lld ns: the filter needs bytes past the message's end",
			         m.conn->topic, (long long)m.time_ns);
			raise_bag(pass, &e);
			goto done;
		}
	} while (pass == 0);
	out = make_message(it, &m);
done:
	bag_unlock(b);
	return out;
}

/* ---- columns: Bag.read ------------------------------------------------------ */

/*
 * One column while a scan fills it: per row a kind (enum bag_expr_kind) and
 * 8 bytes (the int, uint, double bits, bool or ns), strings' bytes kept in
 * text at the offset the 8 bytes hold (a uint32 length first).
 */
struct column {
	uint8_t *kind;
	uint64_t *val;
	size_t n, cap;
	struct bag_text text;
	bag_expr_t *expr;
	bag_expr_prog_t **progs;  /* per timeline connection (NULL: not of this topic) */
};

/* What the scan's callbacks share. */
struct reader {
	struct column *cols;
	size_t ncols;
	int64_t *time;            /* per row */
	size_t n, cap;
	uint64_t failed;
	struct bag_error first;   /* the first failed message's line */
	bool nomem;
	uint64_t emitted;
	bag_tf_t *tf;             /* for tf() columns: built once, before the scan */
};

/* Runs on a worker: each column's value of m into out (kind, then 8 bytes or a string). */
static int read_work(void *arg, const struct bag_message *m, const bag_msgdef_t *def, struct bag_text *out)
{
	struct reader *r = arg;
	(void)def;

	for (size_t k = 0; k < r->ncols; k++) {
		struct bag_expr_val v;
		const bag_expr_prog_t *p = r->cols[k].progs[m->conn_index];
		if (p == NULL || bag_expr_eval_value(p, m->data, m->size, m->time_ns, &v) != BAG_OK)
			v.kind = BAG_EXPR_MISSING;
		uint8_t kind = (uint8_t)v.kind;
		uint64_t bits = 0;
		bag_text_append(out, (const char *)&kind, 1);
		if (v.kind == BAG_EXPR_STRING) {
			uint32_t len = v.v.s.len > UINT32_MAX ? UINT32_MAX : (uint32_t)v.v.s.len;
			bag_text_append(out, (const char *)&len, 4);
			bag_text_append(out, v.v.s.p, len);
			continue;
		}
		if (v.kind == BAG_EXPR_BOOL)
			bits = v.v.b;
		else if (v.kind == BAG_EXPR_INT || v.kind == BAG_EXPR_TIME)
			bits = (uint64_t)v.v.i;
		else if (v.kind == BAG_EXPR_UINT)
			bits = v.v.u;
		else if (v.kind == BAG_EXPR_FLOAT)
			memcpy(&bits, &v.v.f, 8);
		bag_text_append(out, (const char *)&bits, 8);
	}
	return 0;
}

/* Room for one more row. */
static bool reader_room(struct reader *r)
{
	if (r->n < r->cap)
		return true;
	size_t cap = r->cap ? 2 * r->cap : 4096;
	int64_t *t = realloc(r->time, cap * sizeof *t);
	if (t == NULL)
		return false;
	r->time = t;
	for (size_t k = 0; k < r->ncols; k++) {
		uint8_t *kind = realloc(r->cols[k].kind, cap);
		if (kind != NULL)
			r->cols[k].kind = kind;
		uint64_t *val = realloc(r->cols[k].val, cap * 8);
		if (val != NULL)
			r->cols[k].val = val;
		if (kind == NULL || val == NULL)
			return false;
	}
	r->cap = cap;
	return true;
}

/* Every 4096 rows: a pending Ctrl-C stops the scan. */
static int read_interrupted(struct reader *r)
{
	if (++r->emitted % 4096 != 0)
		return 0;
	PyGILState_STATE g = PyGILState_Ensure();
	int rc = PyErr_CheckSignals();
	PyGILState_Release(g);
	return rc != 0;
}

/* Runs on the calling thread in time order: the row's values into the columns. */
static int read_emit(void *arg, const struct bag_scan_item *it)
{
	struct reader *r = arg;
	const char *p = it->text;

	if (read_interrupted(r))
		return BAG_ECANCELED;
	if (it->rc != BAG_OK) {
		if (r->failed++ == 0) {
			r->first.code = it->rc;
			snprintf(r->first.message, sizeof r->first.message, "%.*s", (int)it->len, it->text);
		}
		return 0;
	}
	if (!reader_room(r)) {
		r->nomem = true;
		return BAG_ENOMEM;
	}
	r->time[r->n] = it->m->time_ns;
	for (size_t k = 0; k < r->ncols; k++) {
		struct column *c = &r->cols[k];
		c->kind[r->n] = (uint8_t)*p++;
		if (c->kind[r->n] == BAG_EXPR_STRING) {
			uint32_t len;
			memcpy(&len, p, 4);
			c->val[r->n] = c->text.len;
			bag_text_append(&c->text, p, 4 + (size_t)len);
			p += 4 + len;
		} else {
			memcpy(&c->val[r->n], p, 8);
			p += 8;
		}
	}
	r->n++;
	return 0;
}

static void columns_free(BagObject *self, struct column *cols, size_t n)
{
	size_t nc = self->tl != NULL ? bag_timeline_conn_count(self->tl) : 0;

	for (size_t k = 0; cols != NULL && k < n; k++) {
		for (size_t c = 0; cols[k].progs != NULL && c < nc; c++)
			bag_expr_prog_free(cols[k].progs[c]);
		free(cols[k].progs);
		bag_expr_free(cols[k].expr);
		free(cols[k].kind);
		free(cols[k].val);
		bag_text_free(&cols[k].text);
	}
	free(cols);
}

/*
 * Column k's path text (after the topic: "linear_acceleration.x", or a
 * tf(TARGET, SOURCE).FIELD term looked up in tf) compiled for every
 * connection of topic. -1 with an exception.
 */
static int column_compile(BagObject *self, struct column *col, const char *topic, const char *path,
                          const bag_tf_t *tf)
{
	size_t nc = bag_timeline_conn_count(self->tl), n = 0;
	bag_expr_prog_t **sel = calloc(nc ? nc : 1, sizeof *sel);
	int rc;

	col->progs = calloc(nc ? nc : 1, sizeof *col->progs);
	if (sel == NULL || col->progs == NULL) {
		free(sel);
		PyErr_NoMemory();
		return -1;
	}
	rc = bag_expr_parse_value(&col->expr, path, strlen(path));
	if (rc == BAG_OK && tf != NULL)
		bag_expr_set_tf(col->expr, bag_tf_expr_lookup, tf);
	for (size_t c = 0; c < nc && rc == BAG_OK; c++) {
		const struct bag_connection *conn = bag_timeline_conn(self->tl, c, NULL);
		if (strcmp(conn->topic, topic) != 0)
			continue;
		rc = bag_expr_compile(&col->progs[c], col->expr, conn, bag_def(self, c));
		sel[n++] = col->progs[c];
	}
	if (rc == BAG_OK)
		rc = bag_expr_check(col->expr, sel, n);
	free(sel);
	if (rc != BAG_OK) {
		raise_bag(rc, bag_expr_error(col->expr));
		return -1;
	}
	return 0;
}

/* The column as (kinds: bytes, values: bytes, strings: list or None). */
static PyObject *column_result(const struct column *c, size_t n)
{
	PyObject *strings = Py_None;
	bool any = false;

	for (size_t i = 0; i < n && !any; i++)
		any = c->kind[i] == BAG_EXPR_STRING;
	if (any) {
		if ((strings = PyList_New((Py_ssize_t)n)) == NULL)
			return NULL;
		for (size_t i = 0; i < n; i++) {
			PyObject *s = Py_None;
			if (c->kind[i] == BAG_EXPR_STRING) {
				uint32_t len;
				memcpy(&len, c->text.p + c->val[i], 4);
				s = PyUnicode_DecodeUTF8(c->text.p + c->val[i] + 4, len, "replace");
				if (s == NULL) {
					Py_DECREF(strings);
					return NULL;
				}
			} else {
				Py_INCREF(s);
			}
			PyList_SET_ITEM(strings, (Py_ssize_t)i, s);
		}
	} else {
		Py_INCREF(strings);
	}
	return Py_BuildValue("(y#y#N)", (const char *)c->kind, (Py_ssize_t)n, (const char *)c->val, (Py_ssize_t)(8 * n),
	                     strings);
}

/* Run the scan of view with r's columns; the result dict, or NULL with an exception. */
static PyObject *read_run(bag_view_t *view, struct reader *r, bag_expr_t *filter, unsigned threads)
{
	struct bag_scan_opts o = BAG_SCAN_OPTS_INIT;
	struct bag_scan_stats st;
	PyObject *out = NULL;
	int rc;

	o.threads = threads;
	o.filter = filter;
	o.decode = false;
	o.work = read_work;
	o.emit = read_emit;
	o.arg = r;
	Py_BEGIN_ALLOW_THREADS
	rc = bag_scan(view, &o, &st);
	Py_END_ALLOW_THREADS
	if (PyErr_Occurred())
		return NULL;              /* Ctrl-C */
	if (rc != BAG_OK)
		return raise_bag(rc, rc == BAG_EEXPR ? bag_expr_error(filter) : r->nomem ? NULL : bag_view_error(view));
	if ((out = PyDict_New()) == NULL)
		return NULL;
	PyObject *t = PyBytes_FromStringAndSize((const char *)r->time, (Py_ssize_t)(r->n * 8));
	if (t == NULL || PyDict_SetItemString(out, "time_ns", t) != 0)
		goto fail;
	Py_CLEAR(t);
	for (size_t k = 0; k < r->ncols; k++) {
		PyObject *col = column_result(&r->cols[k], r->n), *key = PyLong_FromSize_t(k);
		int bad = col == NULL || key == NULL || PyDict_SetItem(out, key, col) != 0;
		Py_XDECREF(col);
		Py_XDECREF(key);
		if (bad)
			goto fail;
	}
	PyObject *f = Py_BuildValue("(Ks)", (unsigned long long)r->failed, r->first.message);
	if (f == NULL || PyDict_SetItemString(out, "failed", f) != 0) {
		Py_XDECREF(f);
		goto fail;
	}
	Py_DECREF(f);
	return out;
fail:
	Py_XDECREF(t);
	Py_DECREF(out);
	return NULL;
}

/*
 * Split message path mpath into its topic (*tlen bytes of it) among the
 * bag's topics; a path without a leading '/' is relative to topic (given
 * by an earlier path). -1 with an exception.
 */
static int split_path(BagObject *self, const char *mpath, const char **topics, size_t nt, size_t *tlen)
{
	*tlen = mpath[0] == '/' ? bag_expr_topic_prefix(mpath, topics, nt) : 0;
	if (mpath[0] == '/' && (*tlen == 0 || mpath[*tlen] != '.')) {
		struct bag_error e = BAG_ERROR_INIT;
		snprintf(e.message, sizeof e.message, "%s: %s", mpath, *tlen == 0 ? "no topic of the bag starts this path" :
		         "a path names a field after the topic (/topic.field)");
		raise_bag(BAG_ENOTFOUND, &e);
		return -1;
	}
	(void)self;
	return 0;
}

/* The bag's topic names, once each (borrowed from its connections). */
static const char **topic_names(BagObject *self, size_t *n)
{
	size_t nc = bag_timeline_conn_count(self->tl);
	const char **t = calloc(nc ? nc : 1, sizeof *t);

	*n = 0;
	for (size_t c = 0; t != NULL && c < nc; c++)
		t[(*n)++] = bag_timeline_conn(self->tl, c, NULL)->topic;
	return t;
}

/* The transform buffer of the bag's TF topics, built once for r (GIL released). -1 with an exception. */
static int read_tf(BagObject *self, struct reader *r)
{
	struct bag_tf_opts o = BAG_TF_OPTS_INIT;
	int rc;

	if (r->tf != NULL)
		return 0;
	Py_BEGIN_ALLOW_THREADS
	rc = bag_tf_build(&r->tf, self->tl, &o);
	Py_END_ALLOW_THREADS
	if (rc != BAG_OK) {
		raise_bag(rc, bag_tf_error(r->tf));
		bag_tf_free(r->tf);
		r->tf = NULL;
		return -1;
	}
	return 0;
}

/* The columns of mpaths, compiled, and their topic in *topic (malloc'd). -1 with an exception. */
static int read_columns(BagObject *self, PyObject *mpaths, struct reader *r, char **topic)
{
	const char **paths = NULL, **topics = NULL;
	size_t np, nt;
	int rc = -1;

	if (str_list(mpaths, &paths, &np) != 0)
		return -1;
	if (np == 0 || (topics = topic_names(self, &nt)) == NULL ||
	    (r->cols = calloc(np, sizeof *r->cols)) == NULL) {
		if (np == 0)
			PyErr_SetString(PyExc_ValueError, "read() needs at least one message path");
		else
			PyErr_NoMemory();
		goto done;
	}
	r->ncols = np;
	for (size_t k = 0; k < np; k++) {
		size_t tlen = 0;
		bool tf = bag_expr_is_tf_path(paths[k]);
		if (tf && (k == 0 || read_tf(self, r) != 0)) {
			if (k == 0)
				PyErr_SetString(PyExc_ValueError, "the first path names its topic; a tf() path comes after it, "
				                "sampled at that topic's messages");
			goto done;
		}
		if (!tf && split_path(self, paths[k], topics, nt, &tlen) != 0)
			goto done;
		if (k == 0 && tlen == 0) {
			PyErr_SetString(PyExc_ValueError, "the first path names its topic: /topic.field");
			goto done;
		}
		if (k == 0 && (*topic = strndup(paths[0], tlen)) == NULL) {
			PyErr_NoMemory();
			goto done;
		}
		if (tlen > 0 && (strlen(*topic) != tlen || strncmp(*topic, paths[k], tlen) != 0)) {
			PyErr_Format(PyExc_ValueError, "%s: every path of one read() names the same topic (%s); "
			             "read other topics apart", paths[k], *topic);
			goto done;
		}
		if (column_compile(self, &r->cols[k], *topic, paths[k] + (tlen ? tlen + 1 : 0), tf ? r->tf : NULL) != 0)
			goto done;
	}
	rc = 0;
done:
	free(paths);
	free(topics);
	return rc;
}

static PyObject *Bag_read(BagObject *self, PyObject *args, PyObject *kw)
{
	static char *names[] = { "paths", "start", "end", "filter", "threads", NULL };
	PyObject *mpaths, *start = NULL, *end = NULL, *filter = NULL, *out = NULL, *tl = NULL;
	unsigned threads = 0;
	struct reader r = { 0 };
	bag_expr_t *f = NULL;
	bag_view_t *view = NULL;
	char *topic = NULL;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OOOI", names, &mpaths, &start, &end, &filter, &threads))
		return NULL;
	bag_lock(self);
	if (bag_open_check(self) != 0 || read_columns(self, mpaths, &r, &topic) != 0)
		goto done;
	if ((tl = Py_BuildValue("[s]", topic)) == NULL || (view = make_view(self, tl, start, end)) == NULL ||
	    filter_arg(filter, &f) != 0)
		goto done;
	out = read_run(view, &r, f, threads);
done:
	Py_XDECREF(tl);
	bag_view_free(view);
	bag_expr_free(f);
	columns_free(self, r.cols, r.ncols);
	bag_tf_free(r.tf);
	free(r.time);
	free(topic);
	bag_unlock(self);
	return out;
}

/* ---- export, check ------------------------------------------------------------ */

static PyObject *Bag_export(BagObject *self, PyObject *args, PyObject *kw)
{
	static char *names[] = { "out", "topics", "start", "end", "filter", "format", "compression", "force",
	                         "keep_latched", NULL };
	PyObject *topics = NULL, *start = NULL, *end = NULL, *filter = NULL, *out = NULL;
	const char *path, *format = "bag", *compression = NULL;
	int force = 0, latched = 0, rc;
	struct bag_export_opts o = BAG_EXPORT_OPTS_INIT;
	struct bag_export_result res;
	struct bag_error err = BAG_ERROR_INIT;
	bag_view_t *view = NULL;
	bag_expr_t *f = NULL;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "s|OOOOszpp", names, &path, &topics, &start, &end, &filter, &format,
	                                 &compression, &force, &latched))
		return NULL;
	if (strcmp(format, "bag") != 0 && strcmp(format, "mcap") != 0) {
		PyErr_Format(PyExc_ValueError, "format %s: bag or mcap", format);
		return NULL;
	}
	bag_lock(self);
	if (bag_open_check(self) != 0 || (view = make_view(self, topics, start, end)) == NULL ||
	    filter_arg(filter, &f) != 0)
		goto done;
	o.format = strcmp(format, "mcap") == 0 ? BAG_EXPORT_MCAP : BAG_EXPORT_BAG;
	o.compression = compression;
	o.filter = f;
	o.force = force;
	o.keep_latched = latched;
	Py_BEGIN_ALLOW_THREADS
	rc = bag_export(view, path, &o, &res, &err);
	Py_END_ALLOW_THREADS
	if (rc != BAG_OK) {
		raise_bag(rc, &err);
		goto done;
	}
	out = Py_BuildValue("{s:K,s:K,s:K,s:K,s:n,s:n,s:s,s:L,s:L,s:K}", "messages", (unsigned long long)res.messages,
	                    "latched", (unsigned long long)res.latched, "filtered", (unsigned long long)res.filtered,
	                    "lost", (unsigned long long)res.lost, "connections", (Py_ssize_t)res.connections,
	                    "chunks", (Py_ssize_t)res.chunks, "compression", bag_compression_name(res.compression),
	                    "start_ns", (long long)res.start_ns, "end_ns", (long long)res.end_ns, "bytes",
	                    (unsigned long long)res.bytes);
done:
	bag_view_free(view);
	bag_expr_free(f);
	bag_unlock(self);
	return out;
}

/* A check's findings as lines "offset\tcode\ttext\n" (offset -1: none). */
static int check_finding(void *arg, const struct bag_finding *f)
{
	bag_text_printf(arg, "%lld\t%d\t%s\n", f->offset == UINT64_MAX ? -1LL : (long long)f->offset, f->code, f->text);
	return 0;
}

/* Every bag checked: [(path, [(offset or None, code, text)...], stats dict)]. */
static PyObject *check_results(BagObject *self, struct bag_text *lines, struct bag_check_stats *st)
{
	PyObject *out = PyList_New(0);

	for (size_t i = 0; out != NULL && i < self->nbags; i++) {
		PyObject *fl = PyList_New(0), *item;
		for (char *p = lines[i].p, *nl; fl != NULL && p != NULL && (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
			long long off;
			int code, n = 0;
			*nl = '\0';
			sscanf(p, "%lld\t%d\t%n", &off, &code, &n);
			PyObject *o = off < 0 ? Py_NewRef(Py_None) : PyLong_FromLongLong(off);
			PyObject *t = o == NULL ? NULL : Py_BuildValue("(NiU)", o, code, p + n);
			if (t == NULL || PyList_Append(fl, t) != 0)
				Py_CLEAR(fl);
			Py_XDECREF(t);
		}
		item = fl == NULL ? NULL : Py_BuildValue("(sN{s:K,s:K,s:K})", bag_path(self->bags[i]), fl, "records",
		                                         (unsigned long long)st[i].records, "chunks",
		                                         (unsigned long long)st[i].chunks, "messages",
		                                         (unsigned long long)st[i].messages);
		if (item == NULL || PyList_Append(out, item) != 0)
			Py_CLEAR(out);
		Py_XDECREF(item);
	}
	return out;
}

static PyObject *Bag_check(BagObject *self, PyObject *args, PyObject *kw)
{
	static char *names[] = { "quick", NULL };
	int quick = 0, rc = BAG_OK;
	PyObject *out = NULL;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|p", names, &quick))
		return NULL;
	bag_lock(self);
	if (bag_open_check(self) != 0)
		goto done;
	struct bag_text *lines = calloc(self->nbags, sizeof *lines);
	struct bag_check_stats *st = calloc(self->nbags, sizeof *st);
	size_t i = 0;
	if (lines == NULL || st == NULL) {
		PyErr_NoMemory();
	} else {
		Py_BEGIN_ALLOW_THREADS
		for (; i < self->nbags && rc == BAG_OK; i++)
			rc = bag_check(self->bags[i], quick ? BAG_CHECK_QUICK : 0, check_finding, &lines[i], &st[i]);
		Py_END_ALLOW_THREADS
		out = rc != BAG_OK ? raise_bag(rc, bag_last_error(self->bags[i - 1])) : check_results(self, lines, st);
	}
	for (size_t k = 0; lines != NULL && k < self->nbags; k++)
		bag_text_free(&lines[k]);
	free(lines);
	free(st);
done:
	bag_unlock(self);
	return out;
}

/* ---- the types ----------------------------------------------------------------- */

static PyMethodDef Bag_methods[] = {
	{ "close", (PyCFunction)Bag_close, METH_NOARGS, "Close the bag; further calls raise ValueError." },
	{ "connections", (PyCFunction)Bag_connections, METH_NOARGS, "Every connection as a dict." },
	{ "summary", (PyCFunction)Bag_summary, METH_NOARGS, "Start, end, count and each bag's facts." },
	{ "topic_times", (PyCFunction)Bag_topic_times, METH_NOARGS, "{topic: int64 ns bytes} from the index." },
	{ "messages", (PyCFunction)(void (*)(void))Bag_messages, METH_VARARGS | METH_KEYWORDS,
	  "messages(topics=None, start=None, end=None, filter=None, raw=False): an iterator of Message." },
	{ "read", (PyCFunction)(void (*)(void))Bag_read, METH_VARARGS | METH_KEYWORDS,
	  "read(paths, start=None, end=None, filter=None, threads=0): columns from the scan engine." },
	{ "export", (PyCFunction)(void (*)(void))Bag_export, METH_VARARGS | METH_KEYWORDS,
	  "export(out, topics=None, start=None, end=None, filter=None, format='bag', compression=None, "
	  "force=False, keep_latched=False): write a bag or MCAP file." },
	{ "check", (PyCFunction)(void (*)(void))Bag_check, METH_VARARGS | METH_KEYWORDS,
	  "check(quick=False): [(path, [(offset, code, text)], stats)]." },
	{ NULL, NULL, 0, NULL },
};

PyTypeObject BagType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "bagscope._core.Bag",
	.tp_basicsize = sizeof(BagObject),
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "Bag(paths, msg_path=None, cache_bytes=0): bags opened as one timeline.",
	.tp_new = Bag_new,
	.tp_init = (initproc)Bag_init,
	.tp_dealloc = (destructor)Bag_dealloc,
	.tp_methods = Bag_methods,
};

PyTypeObject MsgIterType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "bagscope._core.MessageIterator",
	.tp_basicsize = sizeof(MsgIterObject),
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "The messages of a view, in time order.",
	.tp_dealloc = (destructor)MsgIter_dealloc,
	.tp_iter = PyObject_SelfIter,
	.tp_iternext = (iternextfunc)MsgIter_next,
};

/* Make the Message type (before the module is used). */
int bag_types_init(PyObject *m)
{
	if ((MessageType = PyStructSequence_NewType(&message_desc)) == NULL)
		return -1;
	return PyModule_AddObjectRef(m, "Message", (PyObject *)MessageType);
}
