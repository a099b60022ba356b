/*
 * _core.c - bagscope._core, the CPython extension over libbagscope's public
 * API (include/bagscope). The Python package (bagscope/__init__.py) wraps
 * it; nothing here reads a file itself.
 *
 * A Bag holds the opened bag handles and their merged timeline. A lock on
 * it serializes calls from several Python threads (a timeline and its views
 * serve one thread at a time); every call that reads releases the GIL
 * while the library works. Messages are decoded by the library's visitor
 * into plain Python values (dicts in definition order, exact ints, floats,
 * uint8/char arrays as bytes, times as Time(secs, nsecs)); columns come from
 * the scan engine, whose workers evaluate each message path, into buffers
 * that become numpy arrays in the Python layer (numpy.frombuffer).
 *
 * Every library failure becomes an exception of bagscope.Error's family,
 * carrying the library's one-line message (the CLI prints the same line).
 */
#include <string.h>

#include "_core.h"

/* ---- errors --------------------------------------------------------------- */

PyObject *Error, *FormatError, *ExpressionError, *DecodeError, *ReadError, *NotFoundError;

/* The exception class for a BAG_E* code. */
static PyObject *error_class(int code)
{
	switch (code) {
	case BAG_ENOTBAG: case BAG_EVERSION: case BAG_ECORRUPT: case BAG_ETRUNCATED:
	case BAG_ECOMPRESS: case BAG_ENOINDEX: case BAG_EUNSUPP:
		return FormatError;
	case BAG_EEXPR:
		return ExpressionError;
	case BAG_EDECODE: case BAG_EDEFINITION:
		return DecodeError;
	case BAG_EIO:
		return ReadError;
	case BAG_ENOTFOUND:
		return NotFoundError;
	case BAG_ENOMEM:
		return PyExc_MemoryError;
	case BAG_ECANCELED:
		return PyExc_KeyboardInterrupt;
	default:
		return Error;
	}
}

/* Raise the error for code with the library's message; returns NULL. */
PyObject *raise_bag(int code, const struct bag_error *e)
{
	if (PyErr_Occurred())
		return NULL;              /* a signal handler's exception goes first */
	const char *msg = e != NULL && e->message[0] ? e->message : bag_strerror(code);
	PyObject *cls = error_class(code);
	PyObject *args = Py_BuildValue("(s)", msg);
	if (args == NULL)
		return NULL;
	PyObject *exc = PyObject_Call(cls, args, NULL);
	Py_DECREF(args);
	if (exc == NULL)
		return NULL;
	if (cls != PyExc_MemoryError && cls != PyExc_KeyboardInterrupt) {
		PyObject *c = PyLong_FromLong(code);
		PyObject *off = e != NULL && e->offset != BAG_NO_OFFSET ? PyLong_FromUnsignedLongLong(e->offset)
		                                                       : (Py_INCREF(Py_None), Py_None);
		if (c != NULL)
			PyObject_SetAttrString(exc, "code", c);
		if (off != NULL)
			PyObject_SetAttrString(exc, "offset", off);
		Py_XDECREF(c);
		Py_XDECREF(off);
	}
	PyErr_SetObject(cls, exc);
	Py_DECREF(exc);
	return NULL;
}

/* ---- time types ------------------------------------------------------------ */

PyTypeObject *TimeType, *DurationType;

static PyStructSequence_Field time_fields[] = { { "secs", "seconds" }, { "nsecs", "nanoseconds" }, { NULL, NULL } };
static PyStructSequence_Desc time_desc = { "bagscope.Time", "A ROS time: (secs, nsecs).", time_fields, 2 };
static PyStructSequence_Desc duration_desc = { "bagscope.Duration", "A ROS duration: (secs, nsecs).",
	                                       time_fields, 2 };

PyObject *make_time(PyTypeObject *type, int64_t secs, int64_t nsecs)
{
	PyObject *t = PyStructSequence_New(type);
	if (t == NULL)
		return NULL;
	PyStructSequence_SET_ITEM(t, 0, PyLong_FromLongLong(secs));
	PyStructSequence_SET_ITEM(t, 1, PyLong_FromLongLong(nsecs));
	if (PyStructSequence_GET_ITEM(t, 0) == NULL || PyStructSequence_GET_ITEM(t, 1) == NULL) {
		Py_DECREF(t);
		return NULL;
	}
	return t;
}

/* rate_hz(n, first_ns, last_ns): bag_rate_hz, bagscope's one definition of a topic's rate. */
static PyObject *core_rate_hz(PyObject *self, PyObject *args)
{
	unsigned long long n;
	long long first, last;

	(void)self;
	if (!PyArg_ParseTuple(args, "KLL", &n, &first, &last))
		return NULL;
	return PyFloat_FromDouble(bag_rate_hz(n, first, last));
}

static PyMethodDef module_methods[] = {
	{ "rate_hz", core_rate_hz, METH_VARARGS,
	  "rate_hz(n, first_ns, last_ns): n - 1 periods over the span, in Hz; 0.0 when n < 2 or no span." },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT, "bagscope._core", "libbagscope's public API for Python.", -1, module_methods,
	NULL, NULL, NULL, NULL,
};

/* Add a new exception class name (base) to module m. */
static PyObject *add_error(PyObject *m, const char *name, PyObject *base, const char *doc)
{
	char full[64];
	snprintf(full, sizeof full, "bagscope.%s", name);
	PyObject *cls = PyErr_NewExceptionWithDoc(full, doc, base, NULL);
	if (cls == NULL || PyModule_AddObjectRef(m, name, cls) != 0)
		return NULL;
	return cls;
}

PyMODINIT_FUNC PyInit__core(void)
{
	PyObject *m = PyModule_Create(&module_def);

	if (m == NULL)
		return NULL;
	if ((Error = add_error(m, "Error", PyExc_Exception, "A libbagscope failure; str() is its one line.")) == NULL ||
	    (FormatError = add_error(m, "FormatError", Error, "Not a readable bag, or damaged past use.")) == NULL ||
	    (ExpressionError = add_error(m, "ExpressionError", Error, "A filter or message path refused.")) == NULL ||
	    (DecodeError = add_error(m, "DecodeError", Error, "A message that does not match its definition.")) == NULL ||
	    (ReadError = add_error(m, "ReadError", Error, "A read of the file failed.")) == NULL ||
	    (NotFoundError = add_error(m, "NotFoundError", Error, "A topic, field or definition not found.")) == NULL)
		goto fail;
	if ((TimeType = PyStructSequence_NewType(&time_desc)) == NULL ||
	    (DurationType = PyStructSequence_NewType(&duration_desc)) == NULL ||
	    PyModule_AddObjectRef(m, "Time", (PyObject *)TimeType) != 0 ||
	    PyModule_AddObjectRef(m, "Duration", (PyObject *)DurationType) != 0)
		goto fail;
	if (PyType_Ready(&BagType) != 0 || PyType_Ready(&MsgIterType) != 0 ||
	    PyModule_AddObjectRef(m, "Bag", (PyObject *)&BagType) != 0 || bag_types_init(m) != 0)
		goto fail;
	if (PyModule_AddStringConstant(m, "library_version", bag_version_string()) != 0)
		goto fail;
	return m;
fail:
	Py_DECREF(m);
	return NULL;
}
