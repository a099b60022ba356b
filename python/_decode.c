/*
 * _decode.c - a message's bytes into Python values, through the library's
 * decoder and a visitor (decode.h) that builds the objects as the walk
 * reports them: a stack of open containers, the top one receiving each
 * value (a dict under the field's name, a list by appending, or a bytearray
 * for a uint8/char array, which becomes bytes when it ends).
 *
 * The visitor's callbacks cannot fail back into the decoder: the first
 * failure to make an object is kept (failed) and the rest of the walk is
 * ignored; the caller then raises it.
 */
#include "_core.h"

#define STACK_MAX (2 * BAG_MSGDEF_MAX_DEPTH + 2)

/* The walk's state. */
struct pybuild {
	PyObject *stack[STACK_MAX];  /* open containers (new references), the root first */
	const char *names[STACK_MAX];/* each one's field name in its parent (NULL: an element) */
	size_t depth;
	PyObject *root;              /* the finished top message */
	bool failed;                 /* an object could not be made (exception set) */
};

/* Put v (a new reference, or NULL after a failure) into the top container under name. */
static void put(struct pybuild *b, const char *name, PyObject *v)
{
	if (v == NULL) {
		b->failed = true;
		return;
	}
	if (b->depth == 0) {
		b->root = v;
		return;
	}
	PyObject *top = b->stack[b->depth - 1];
	int rc;
	if (PyDict_Check(top)) {
		rc = PyDict_SetItemString(top, name, v);
	} else {
		rc = PyList_Append(top, v);
	}
	Py_DECREF(v);
	if (rc != 0)
		b->failed = true;
}

/* Open container c (a new reference) for field name. */
static void push(struct pybuild *b, const char *name, PyObject *c)
{
	if (c == NULL || b->depth == STACK_MAX) {
		Py_XDECREF(c);
		b->failed = true;
		return;
	}
	b->names[b->depth] = name;
	b->stack[b->depth++] = c;
}

/* Close the top container, giving it to its parent (a bytearray as bytes). */
static void pop(struct pybuild *b)
{
	if (b->depth == 0)
		return;
	PyObject *c = b->stack[--b->depth];
	const char *name = b->names[b->depth];
	if (PyByteArray_Check(c)) {
		PyObject *bytes = PyBytes_FromStringAndSize(PyByteArray_AS_STRING(c), PyByteArray_GET_SIZE(c));
		Py_DECREF(c);
		c = bytes;
	}
	put(b, name, c);
}

static void begin_message(void *ud, const struct bag_msgdef_field *f, int64_t index,
                          const struct bag_msgdef_type *type)
{
	struct pybuild *b = ud;
	(void)index;
	(void)type;
	if (!b->failed)
		push(b, f != NULL && index < 0 ? f->name : NULL, PyDict_New());
}

static void end_message(void *ud, const struct bag_msgdef_field *f, int64_t index)
{
	struct pybuild *b = ud;
	(void)f;
	(void)index;
	if (!b->failed)
		pop(b);
}

static void begin_array(void *ud, const struct bag_msgdef_field *f, uint32_t len)
{
	struct pybuild *b = ud;
	(void)len;
	if (b->failed)
		return;
	/* uint8 (and ROS 1 char, which is uint8) arrays are bytes, as genpy gives them */
	push(b, f->name, f->prim == BAG_PRIM_UINT8 ? PyByteArray_FromStringAndSize(NULL, 0) : PyList_New(0));
}

static void end_array(void *ud, const struct bag_msgdef_field *f, uint32_t len)
{
	struct pybuild *b = ud;
	(void)f;
	(void)len;
	if (!b->failed)
		pop(b);
}

/* One primitive as a Python object (a new reference, or NULL). */
static PyObject *value_object(const struct bag_value *v)
{
	switch (v->prim) {
	case BAG_PRIM_BOOL:
		return PyBool_FromLong(v->v.b);
	case BAG_PRIM_INT8: case BAG_PRIM_INT16: case BAG_PRIM_INT32: case BAG_PRIM_INT64:
		return PyLong_FromLongLong(v->v.i);
	case BAG_PRIM_UINT8: case BAG_PRIM_UINT16: case BAG_PRIM_UINT32: case BAG_PRIM_UINT64:
		return PyLong_FromUnsignedLongLong(v->v.u);
	case BAG_PRIM_FLOAT32: case BAG_PRIM_FLOAT64:
		return PyFloat_FromDouble(v->v.f);
	case BAG_PRIM_STRING:
		return PyUnicode_DecodeUTF8(v->v.s.p, v->v.s.len, "replace");
	case BAG_PRIM_TIME:
		return make_time(TimeType, v->v.t.secs, v->v.t.nsecs);
	case BAG_PRIM_DURATION:
		return make_time(DurationType, v->v.t.secs, v->v.t.nsecs);
	default:
		Py_RETURN_NONE;
	}
}

static void value(void *ud, const struct bag_msgdef_field *f, int64_t index, const struct bag_value *v)
{
	struct pybuild *b = ud;
	if (b->failed)
		return;
	PyObject *top = b->depth > 0 ? b->stack[b->depth - 1] : NULL;
	if (top != NULL && PyByteArray_Check(top)) {
		/* an element of a uint8 array: straight into its bytes */
		Py_ssize_t n = PyByteArray_GET_SIZE(top);
		if (PyByteArray_Resize(top, n + 1) != 0) {
			b->failed = true;
			return;
		}
		PyByteArray_AS_STRING(top)[n] = (char)v->v.u;
		return;
	}
	put(b, f != NULL && index < 0 ? f->name : NULL, value_object(v));
}

static const struct bag_visitor visitor = { begin_message, end_message, begin_array, end_array, value };

PyObject *decode_message(const bag_msgdef_t *def, const uint8_t *data, size_t len)
{
	struct pybuild b = { .depth = 0 };
	struct bag_error err = BAG_ERROR_INIT;
	int rc = bag_decode(def, data, len, &visitor, &b, NULL, &err);

	while (b.depth > 0)
		Py_DECREF(b.stack[--b.depth]);
	if (rc != BAG_OK || b.failed) {
		Py_XDECREF(b.root);
		if (b.failed && PyErr_Occurred())
			return NULL;
		return raise_bag(rc != BAG_OK ? rc : BAG_ENOMEM, &err);
	}
	return b.root;
}
