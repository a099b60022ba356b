/*
 * bagscope/msgdef.h - message definitions: the `message_definition` text a
 * bag stores for each connection, parsed into a tree of types, checked
 * against the connection's md5sum, and compiled for the decoder.
 *
 * The text holds the top type first, then each type it depends on after a
 * line of '=' characters and a line `MSG: pkg/Type`. No ROS installation is
 * needed: the text is all there is.
 */
#ifndef BAGSCOPE_MSGDEF_H
#define BAGSCOPE_MSGDEF_H

#include <bagscope/common.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bag_msgdef bag_msgdef_t;

/*
 * The deepest nesting of messages a definition may have, the top type being
 * level 1. bag_msgdef_parse() refuses deeper definitions ("too deep"), so the
 * decoder, the printers and callers' visitors never meet more: a visitor's
 * stack of 2 * BAG_MSGDEF_MAX_DEPTH + 1 levels holds a message and an array
 * per level below the top.
 */
#define BAG_MSGDEF_MAX_DEPTH 64

/*
 * The wire format of a connection's messages, which also says how its
 * definition text reads: ROS 1 (`ros1msg` text, ROS serialization) or
 * ROS 2 (`ros2msg` text, XCDR1 plain CDR behind a 4-byte encapsulation
 * header).
 */
enum bag_encoding {
	BAG_ENCODING_ROS1,
	BAG_ENCODING_CDR,
};

/*
 * What a field holds. byte is int8 and char is uint8, as in ROS 1; in a
 * ROS 2 definition both are uint8, as rosidl maps them.
 */
enum bag_prim {
	BAG_PRIM_BOOL,
	BAG_PRIM_INT8,
	BAG_PRIM_UINT8,
	BAG_PRIM_INT16,
	BAG_PRIM_UINT16,
	BAG_PRIM_INT32,
	BAG_PRIM_UINT32,
	BAG_PRIM_INT64,
	BAG_PRIM_UINT64,
	BAG_PRIM_FLOAT32,
	BAG_PRIM_FLOAT64,
	BAG_PRIM_STRING,
	BAG_PRIM_TIME,
	BAG_PRIM_DURATION,
	BAG_PRIM_MESSAGE,     /* a nested message type */
};

/* A field's array shape. */
enum bag_array {
	BAG_ARRAY_NONE,
	BAG_ARRAY_FIXED,      /* TYPE[N] */
	BAG_ARRAY_VARIABLE,   /* TYPE[]: a uint32 length comes first */
};

struct bag_msgdef_type;

/*
 * A field of a type; read-only, owned by its bag_msgdef_t. Comments are the
 * definition's '#' text without the '#' and one space after it, lines
 * joined by '\n', "" when there is none; bytes as written (maybe not UTF-8).
 */
struct bag_msgdef_field {
	const char *name;
	const char *type_name;            /* element type as resolved: "uint8", "std_msgs/Header" */
	enum bag_prim prim;
	enum bag_array array;
	uint32_t fixed_len;               /* N for BAG_ARRAY_FIXED */
	const struct bag_msgdef_type *msg;/* the nested type when prim is BAG_PRIM_MESSAGE */
	const char *comment;              /* the comment lines just above it, then its line's */
	const char *default_value;        /* ROS 2 `TYPE NAME VALUE`: VALUE as written; "" if none */
	uint32_t bound;                   /* ROS 2 `T[<=N]`: N (array BAG_ARRAY_VARIABLE); else 0 */
	uint32_t string_bound;            /* ROS 2 `string<=N`: N; else 0 */
};

/* A constant; value is its text as written (string constants verbatim). */
struct bag_msgdef_const {
	const char *name;
	const char *type_name;
	enum bag_prim prim;
	const char *value;
	const char *comment;              /* as a field's (a string constant's line has none) */
};

/* A message type: fields in definition order, constants, recomputed md5. */
struct bag_msgdef_type {
	const char *name;                 /* "pkg/Type" */
	size_t nfields;
	const struct bag_msgdef_field *fields;
	size_t nconsts;
	const struct bag_msgdef_const *consts;
	char md5[33];                     /* by the ROS rule, hex */
	const char *comment;              /* lines a blank line parts from the first member, and after the last */
};

/*
 * Parse text (len bytes) as the definition of type. *out is set even on
 * failure (unless BAG_ENOMEM) so bag_msgdef_error() can be read; always
 * bag_msgdef_free() it. Returns 0 or BAG_EDEFINITION, whose message names
 * the line and the problem (an unknown type, a bad array size, ...).
 */
BAG_API int bag_msgdef_parse(bag_msgdef_t **out, const char *type, const char *text, size_t len);

/*
 * The same for a definition in the given encoding's dialect. For
 * BAG_ENCODING_CDR the text is `ros2msg`: types may be written pkg/msg/Name,
 * pkg/Name or (within one package) Name, and all three find a section
 * `MSG: pkg/Name` or `MSG: pkg/msg/Name`; byte and char are uint8; bounded
 * strings `string<=N` and sequences `T[<=N]`, defaults `TYPE NAME VALUE`
 * and constants `TYPE NAME=VALUE` are read; time and duration are not
 * primitives (builtin_interfaces/Time is an ordinary message); wstring is
 * a string field read as UTF-8 (decode.c). bag_decode() then reads CDR.
 */
BAG_API int bag_msgdef_parse_as(bag_msgdef_t **out, const char *type, const char *text, size_t len,
                                enum bag_encoding enc);

/* The encoding def was parsed for. */
BAG_API enum bag_encoding bag_msgdef_encoding(const bag_msgdef_t *def);

/* Free; accepts NULL. Every pointer obtained from it dies here. */
BAG_API void bag_msgdef_free(bag_msgdef_t *def);

/* The last failure's one-line message. */
BAG_API const struct bag_error *bag_msgdef_error(const bag_msgdef_t *def);

/* The top type; NULL if the parse failed (or def is NULL, after BAG_ENOMEM). */
BAG_API const struct bag_msgdef_type *bag_msgdef_root(const bag_msgdef_t *def);

/*
 * The top type's md5 recomputed by the ROS rule (genmsg's compute_md5_text:
 * constants as "type NAME=value", then fields as "type name", a nested type
 * replaced by its own md5 and losing its array brackets), 32 lower-case hex
 * digits. Compare it with the connection's md5sum: a mismatch means the
 * text is not what the publisher compiled, but decoding may still work.
 * NULL if the parse failed. Lives as long as def.
 */
BAG_API const char *bag_msgdef_md5(const bag_msgdef_t *def);

/* Every type of the definition, top first (i < count). */
BAG_API size_t bag_msgdef_type_count(const bag_msgdef_t *def);
BAG_API const struct bag_msgdef_type *bag_msgdef_type_at(const bag_msgdef_t *def, size_t i);

/* The ROS name of a primitive ("float64", "time", ...). */
BAG_API const char *bag_prim_name(enum bag_prim prim);

#ifdef __cplusplus
}
#endif

#endif
