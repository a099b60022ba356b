/*
 * bagscope/print.h - turning decoded messages into text: JSON (the bagscope
 * contract), YAML (the layout of `rostopic echo`), CSV (`rostopic echo -p`)
 * and a one-line summary. Printers append to a growable text buffer that the
 * caller owns; nothing is written to any file or terminal.
 */
#ifndef BAGSCOPE_PRINT_H
#define BAGSCOPE_PRINT_H

#include <bagscope/decode.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A growable text buffer: zero-initialise, append, bag_text_free(). */
struct bag_text {
	char *p;      /* NUL-terminated when len > 0 */
	size_t len;
	size_t cap;
	bool failed;  /* an allocation failed; the text is incomplete */
};

/* Free the buffer's memory and reset it; accepts an empty buffer. */
BAG_API void bag_text_free(struct bag_text *t);

/* Append len bytes / a formatted string. On allocation failure sets failed. */
BAG_API void bag_text_append(struct bag_text *t, const char *s, size_t len);
BAG_API void bag_text_printf(struct bag_text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Append s[0..len) as a JSON string with its quotes: '"', '\' and control
 * characters escaped; invalid UTF-8 replaced, each maximal invalid sequence
 * by one U+FFFD (as Python's bytes.decode('utf-8', 'replace')).
 */
BAG_API void bag_text_json_string(struct bag_text *t, const char *s, size_t len);

/*
 * Append a double the way Python's repr() writes it: the shortest text that
 * reads back to the same value, with ".0" on integral values; "nan",
 * "inf", "-inf" for the others.
 */
BAG_API void bag_text_double(struct bag_text *t, double d);

/*
 * Append secs + nsecs / 10^9 (a time's or a duration's fields as stored;
 * either may be negative in a duration) exactly, as "-1.000000005".
 */
BAG_API void bag_text_seconds(struct bag_text *t, int64_t secs, int64_t nsecs);

/*
 * The printers: decode data[0..len) by def and append its text. Return 0,
 * BAG_EDECODE (with a message in err, see bag_decode(); the text appended so
 * far is left in place) or BAG_ENOMEM.
 *
 * json: one object, fields in definition order, no newline.
 * yaml: what `rostopic echo` prints for the message (genpy's strify_message,
 *       strings through PyYAML 6.0), byte for byte, ending with a newline;
 *       a message without fields is one empty line. No "---" separator.
 * csv:  one line of comma-separated values (header: the column names,
 *       "field.a.b" as `rostopic echo -p` names them), no newline; like
 *       rostopic, uint8/char arrays are left out.
 * summary: one line of at most max bytes, long arrays elided and a top-level
 *       std_msgs/Header left out.
 */
BAG_API int bag_print_json(struct bag_text *t, const bag_msgdef_t *def, const uint8_t *data,
                           size_t len, struct bag_error *err);
BAG_API int bag_print_yaml(struct bag_text *t, const bag_msgdef_t *def, const uint8_t *data,
                           size_t len, struct bag_error *err);
BAG_API int bag_print_csv(struct bag_text *t, const bag_msgdef_t *def, const uint8_t *data,
                          size_t len, bool header, struct bag_error *err);
BAG_API int bag_print_summary(struct bag_text *t, const bag_msgdef_t *def, const uint8_t *data,
                              size_t len, size_t max, struct bag_error *err);

/*
 * A hex dump of data[0..len): per 16 bytes, a line with the offset (8 hex
 * digits), the bytes in hex (a gap after the eighth) and their ASCII between
 * bars, '.' for bytes outside 0x20..0x7e. Nothing for len 0. Each line ends
 * with a newline; t->failed tells of an allocation failure.
 */
BAG_API void bag_print_hex(struct bag_text *t, const uint8_t *data, size_t len);

/*
 * The definition as an indented tree, one line per field: "type[size] name"
 * ("uint8[] data", "geometry_msgs/Point position" with its fields indented
 * two more spaces below), constants as "type NAME=value". Each line starts
 * with indent spaces and ends with a newline. Past 20000 lines nested types
 * are no longer expanded (a few types can nest into 2^24 lines), and a last
 * line "# (cut: ...)" says so.
 */
BAG_API void bag_print_msgdef_tree(struct bag_text *t, const bag_msgdef_t *def, int indent);

#ifdef __cplusplus
}
#endif

#endif
