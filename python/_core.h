/*
 * _core.h - what the files of bagscope._core share: the exception classes,
 * the time types, decoding a message into Python values (_decode.c) and the
 * Bag type (_bag.c). Compiled into the extension only.
 */
#ifndef BAGSCOPE_PY_CORE_H
#define BAGSCOPE_PY_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdbool.h>
#include <stdint.h>

#include <bagscope/bagscope.h>

#define HIDDEN __attribute__((visibility("hidden")))

HIDDEN extern PyObject *Error, *FormatError, *ExpressionError, *DecodeError, *ReadError, *NotFoundError;
HIDDEN extern PyTypeObject *TimeType, *DurationType;
HIDDEN extern PyTypeObject BagType, MsgIterType;

/* Raise the exception for a BAG_E* code with e's one line (or the code's text); returns NULL. */
HIDDEN PyObject *raise_bag(int code, const struct bag_error *e);

/* A Time or Duration (type) of secs and nsecs; NULL with an exception set. */
HIDDEN PyObject *make_time(PyTypeObject *type, int64_t secs, int64_t nsecs);

/*
 * data[0..len) decoded by def into Python values (a dict for the top
 * message). Call with the GIL held. NULL with an exception set: DecodeError
 * with the library's line when the bytes do not match the definition.
 */
HIDDEN PyObject *decode_message(const bag_msgdef_t *def, const uint8_t *data, size_t len);

/* Add the types _bag.c defines besides Bag (Message) to module m; -1 with an exception. */
HIDDEN int bag_types_init(PyObject *m);

#endif
