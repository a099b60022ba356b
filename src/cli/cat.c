/*
 * cat.c - `bagscope cat`: stream messages in bag time order, restricted by
 * topic, type and an inclusive time range (from the index) and by a filter
 * expression, in one of several formats, or only some fields, or a count.
 *
 * One view over the timeline of every bag given is passed to the scan
 * engine: its workers read, filter and format each message (work()), and
 * emit() writes the text in order to a fully buffered stdout. A chunk that
 * cannot be read gets one error line (the scan reports it once); messages
 * that do not decode get one line per chunk, a connection whose definition
 * does not parse one line in all. The stream goes on; the exit status is
 * then 1.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

enum format { FORMAT_YAML, FORMAT_JSON, FORMAT_CSV, FORMAT_HEX };

static const char *const format_names[] = {
	[FORMAT_YAML] = "yaml",
	[FORMAT_JSON] = "json",
	[FORMAT_CSV] = "csv",
	[FORMAT_HEX] = "hex",
};

struct cat_opts {
	enum format format;
	struct select sel;        /* --topic, --type, --start, --end, --filter */
	uint64_t limit;           /* 0: all */
	const char *fields;       /* --fields PATH[,PATH...] */
	bool count;               /* --count */
	bool format_given;
};

/* Offsets, 16 hex bytes and their ASCII, after a one-line heading (escaped). */
static void print_hex(struct bag_text *t, const struct bag_message *m)
{
	bag_text_printf(t, "%s", "");
	term_escape(t, m->conn->topic, strlen(m->conn->topic));
	bag_text_printf(t, " %lld.%09lld ", (long long)(m->time_ns / BAG_NSEC_PER_SEC),
	                (long long)(m->time_ns % BAG_NSEC_PER_SEC));
	term_escape(t, m->conn->type, strlen(m->conn->type));
	bag_text_printf(t, " %u byte%s\n", m->size, BAG_S(m->size));
	bag_print_hex(t, m->data, m->size);
	bag_text_append(t, "\n", 1);
}

static void usage(FILE *out)
{
	fputs("usage: bagscope cat [--topic T]... [--type TYPE]... [--start S] [--end E]\n"
	      "                    [--filter EXPR] [--format yaml|json|csv|hex]\n"
	      "                    [--fields PATH[,PATH...]] [--count] [-n N] BAG...\n"
	      "  S, E: epoch seconds (1500000003.25) or offsets from the bag start (+12.5)\n"
	      "  EXPR: e.g. 'linear_acceleration.x > 0.5 && header.frame_id == \"imu\"' (bagscope(1))\n", out);
}

static int parse_args(int argc, char **argv, struct cat_opts *o)
{
	static const struct option longopts[] = {
		SELECT_OPT_TOPIC, SELECT_OPT_TYPE, SELECT_OPT_START, SELECT_OPT_END, SELECT_OPT_FILTER,
		{ "format", required_argument, NULL, 'f' },
		{ "limit", required_argument, NULL, 'n' },
		{ "fields", required_argument, NULL, 'L' },
		{ "count", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;
	size_t k;
	char *endp;

	memset(o, 0, sizeof *o);
	if (select_init(&o->sel, "cat", argc) != BAG_OK)
		return -1;
	while ((opt = getopt_long(argc, argv, "t:y:s:e:f:n:h", longopts, NULL)) != -1) {
		if (select_option(&o->sel, opt, optarg))
			continue;
		switch (opt) {
		case 'L': o->fields = optarg; break;
		case 'c': o->count = true; break;
		case 'f':
			for (k = 0; k < sizeof format_names / sizeof *format_names; k++)
				if (strcmp(optarg, format_names[k]) == 0)
					break;
			if (k == sizeof format_names / sizeof *format_names) {
				cli_error("cat: unknown format '%s' (yaml, json, csv or hex)", optarg);
				return -1;
			}
			o->format = (enum format)k;
			o->format_given = true;
			break;
		case 'n':
			/* strtoull would take "-1" as the largest count: digits only */
			errno = 0;
			o->limit = isdigit((unsigned char)optarg[0]) ? strtoull(optarg, &endp, 10) : 0;
			if (o->limit == 0 || *endp != '\0' || errno == ERANGE) {
				cli_error("cat: -n needs a positive count, not '%s'", optarg);
				return -1;
			}
			break;
		case 'h': usage(stdout); exit(EXIT_OK);
		default: cli_bad_option(argv); usage(stderr); return -1;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return -1;
	}
	if (o->fields != NULL && !o->format_given)
		o->format = FORMAT_CSV;
	if (o->fields != NULL && o->format != FORMAT_CSV && o->format != FORMAT_JSON) {
		cli_error("cat: --fields prints csv or json: add --format csv or --format json");
		return -1;
	}
	return 0;
}

/* Append a string literal. */
#define APPEND(t, lit) bag_text_append((t), (lit), sizeof(lit) - 1)

/* One --fields entry: its text and a program per timeline connection. */
struct field {
	const char *text;
	size_t len;
	const char *topic;        /* "/topic.path": the timeline's topic (its only messages); NULL: any */
	size_t skip;              /* bytes of text before the path ("/topic.") */
	bag_expr_t *expr;
	bag_expr_prog_t **progs;
};

/* What the workers read (fixed before the scan) and emit keeps. */
struct cat {
	struct cat_opts o;
	bag_timeline_t *tl;
	bag_msgdef_t **defs;      /* per timeline connection, for the csv header */
	struct field *fields;
	size_t nfields;
	bool csv_header_done;
	uint64_t emitted;         /* toward -n */
	uint64_t counted;         /* --count */
	bool failed;
	bool *def_reported;       /* per connection: its bad definition was said */
	uint64_t decode_key;      /* (bag, chunk) of the last decode error said */
	uint64_t decode_more;     /* further decode errors in that chunk */
	size_t warnings;          /* timeline warnings printed so far */
	struct bag_text head;     /* csv header scratch */
};

/*
 * Make t's text from byte from on safe for a terminal, in place: JSON (and
 * YAML, whose double-quoted strings read \u escapes alike) through
 * term_json(), the same value; CSV through term_escape() (quoting stays
 * valid, a row stays one line).
 */
static void escape_tail(struct bag_text *t, size_t from, bool json)
{
	struct bag_text scratch = { 0 };
	const char *s = t->p + from;
	size_t n = t->len - from;

	if (t->failed || n == 0 || (json ? term_json_clean(s, n) : term_clean(s, n)))
		return;
	if (json)
		term_json(&scratch, s, n);
	else
		term_escape(&scratch, s, n);
	t->len = from;
	bag_text_append(t, scratch.p, scratch.len);
	bag_text_free(&scratch);
}

/* A CSV cell: quoted when it holds a comma, a quote or a line break. */
static void csv_cell(struct bag_text *t, const char *s, size_t len)
{
	if (memchr(s, ',', len) == NULL && memchr(s, '"', len) == NULL && memchr(s, '\n', len) == NULL &&
	    memchr(s, '\r', len) == NULL) {
		bag_text_append(t, s, len);
		return;
	}
	APPEND(t, "\"");
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '"')
			APPEND(t, "\"");
		bag_text_append(t, s + i, 1);
	}
	APPEND(t, "\"");
}

/* One --fields value, as JSON or as a CSV cell. */
static void field_value(struct bag_text *t, const struct bag_expr_val *v, bool json)
{
	switch (v->kind) {
	case BAG_EXPR_MISSING:
		if (json)
			APPEND(t, "null");
		break;
	case BAG_EXPR_BOOL:
		bag_text_printf(t, "%s", v->v.b ? "true" : "false");
		break;
	case BAG_EXPR_INT:
		bag_text_printf(t, "%lld", (long long)v->v.i);
		break;
	case BAG_EXPR_UINT:
		bag_text_printf(t, "%llu", (unsigned long long)v->v.u);
		break;
	case BAG_EXPR_FLOAT:
		if (json && (v->v.f != v->v.f || v->v.f - v->v.f != 0)) {
			APPEND(t, "\"");
			bag_text_double(t, v->v.f);
			APPEND(t, "\"");
		} else {
			bag_text_double(t, v->v.f);
		}
		break;
	case BAG_EXPR_TIME: {
		int64_t ns = v->v.ns;
		uint64_t a = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
		bag_text_printf(t, "%s%llu.%09llu", ns < 0 ? "-" : "", (unsigned long long)(a / 1000000000u),
		                (unsigned long long)(a % 1000000000u));
		break;
	}
	case BAG_EXPR_STRING:
		if (json)
			bag_text_json_string(t, v->v.s.p, v->v.s.len);
		else
			csv_cell(t, v->v.s.p, v->v.s.len);
		break;
	}
}

/* The --fields of one message: a csv row or a json object. */
static int print_fields(const struct cat *c, const struct bag_message *m, struct bag_text *t)
{
	bool json = c->o.format == FORMAT_JSON;
	size_t start = t->len;

	if (json) {
		APPEND(t, "{\"topic\":");
		bag_text_json_string(t, m->conn->topic, strlen(m->conn->topic));
		APPEND(t, ",\"type\":");
		bag_text_json_string(t, m->conn->type, strlen(m->conn->type));
		bag_text_printf(t, ",\"time_ns\":%lld,\"msg\":{", (long long)m->time_ns);
	} else {
		bag_text_printf(t, "%lld,", (long long)m->time_ns);
		csv_cell(t, m->conn->topic, strlen(m->conn->topic));
	}
	for (size_t k = 0; k < c->nfields; k++) {
		struct bag_expr_val v = { .kind = BAG_EXPR_MISSING };
		const bag_expr_prog_t *p = c->fields[k].progs[m->conn_index];
		int rc = p == NULL ? BAG_OK : bag_expr_eval_value(p, m->data, m->size, m->time_ns, &v);
		if (rc != BAG_OK) {
			t->len = start;
			bag_text_printf(t, "%s: %s at %lld.%09lld: the message is too short for --fields '%.*s'",
			                bag_path(bag_timeline_bag(c->tl, m->bag_index)), m->conn->topic,
			                (long long)(m->time_ns / BAG_NSEC_PER_SEC),
			                (long long)(m->time_ns % BAG_NSEC_PER_SEC), (int)c->fields[k].len,
			                c->fields[k].text);
			return BAG_EDECODE;
		}
		if (json) {
			if (k)
				APPEND(t, ",");
			bag_text_json_string(t, c->fields[k].text, c->fields[k].len);
			APPEND(t, ":");
		} else {
			APPEND(t, ",");
		}
		field_value(t, &v, json);
	}
	if (json)
		APPEND(t, "}}");
	escape_tail(t, start, json);
	APPEND(t, "\n");
	return BAG_OK;
}

/* On a worker: one message's text, or its error line (returns BAG_E*). */
static int work(void *arg, const struct bag_message *m, const bag_msgdef_t *def, struct bag_text *t)
{
	const struct cat *c = arg;
	struct bag_error err;
	size_t start = t->len, row;
	int rc = BAG_OK;

	if (c->nfields > 0)
		return print_fields(c, m, t);
	if (c->o.format == FORMAT_HEX) {
		print_hex(t, m);
		return BAG_OK;
	}
	if (!bag_conn_has_definition(m->conn)) {
		/* no definition at all (1.1 and older without a .msg file): the bytes */
		if (c->o.format != FORMAT_JSON) {
			print_hex(t, m);
			return BAG_OK;
		}
		APPEND(t, "{\"topic\":");
		bag_text_json_string(t, m->conn->topic, strlen(m->conn->topic));
		APPEND(t, ",\"type\":");
		bag_text_json_string(t, m->conn->type, strlen(m->conn->type));
		bag_text_printf(t, ",\"time_ns\":%lld,\"size\":%u,\"msg\":null}\n", (long long)m->time_ns, m->size);
		escape_tail(t, start, true);
		return BAG_OK;
	}
	if (def == NULL) {
		bag_msgdef_t *bad = NULL;
		bag_conn_msgdef_parse(&bad, m->conn);
		bag_text_printf(t, "%s: connection %u (%s): bad message definition: %s",
		                bag_path(bag_timeline_bag(c->tl, m->bag_index)), m->conn->id, m->conn->topic,
		                bag_msgdef_error(bad)->message);
		bag_msgdef_free(bad);
		return BAG_EDEFINITION;
	}
	switch (c->o.format) {
	case FORMAT_JSON:
		APPEND(t, "{\"topic\":");
		bag_text_json_string(t, m->conn->topic, strlen(m->conn->topic));
		APPEND(t, ",\"type\":");
		bag_text_json_string(t, m->conn->type, strlen(m->conn->type));
		bag_text_printf(t, ",\"time_ns\":%lld,\"msg\":", (long long)m->time_ns);
		rc = bag_print_json(t, def, m->data, m->size, &err);
		APPEND(t, "}\n");
		escape_tail(t, start, true);
		break;
	case FORMAT_YAML:
		rc = bag_print_yaml(t, def, m->data, m->size, &err);
		APPEND(t, "---\n");
		/* escapes controls itself; any DEL or C1 left is in a double-quoted scalar */
		escape_tail(t, start, true);
		break;
	default:
		bag_text_printf(t, "%lld,", (long long)m->time_ns);
		row = t->len;
		rc = bag_print_csv(t, def, m->data, m->size, false, &err);
		escape_tail(t, row, false);
		APPEND(t, "\n");
		break;
	}
	if (rc != BAG_OK) {
		t->len = start;
		bag_text_printf(t, "%s: at byte %llu: %s at %lld.%09lld (offset %u of the chunk) does not decode "
		                "as %s: %s", bag_path(bag_timeline_bag(c->tl, m->bag_index)),
		                (unsigned long long)bag_chunk_pos(bag_timeline_bag(c->tl, m->bag_index), m->chunk),
		                m->conn->topic, (long long)(m->time_ns / BAG_NSEC_PER_SEC),
		                (long long)(m->time_ns % BAG_NSEC_PER_SEC), m->offset, m->conn->type, err.message);
	}
	return rc;
}

/* Say the decode errors of the last chunk that were held back. */
static void flush_decode_errors(struct cat *c)
{
	if (c->decode_more > 0)
		cli_error("(and %llu more messages of that chunk that do not decode)",
		          (unsigned long long)c->decode_more);
	c->decode_more = 0;
}

/* An error line, once per chunk (decode errors) or connection (definitions). */
static void emit_error(struct cat *c, const struct bag_scan_item *it)
{
	uint64_t key = (uint64_t)it->m->bag_index << 32 | it->m->chunk;

	c->failed = true;
	if (it->rc == BAG_EDEFINITION) {
		if (c->def_reported[it->m->conn_index])
			return;
		c->def_reported[it->m->conn_index] = true;
	} else if (it->rc == BAG_EDECODE) {
		if (key == c->decode_key) {
			c->decode_more++;
			return;
		}
		flush_decode_errors(c);
		c->decode_key = key;
	}
	fflush(stdout);
	cli_error("%.*s", (int)it->len, it->text);
}

/* The csv header, from the first message printed (as rostopic echo -p). */
static void csv_header(struct cat *c, const struct bag_message *m)
{
	struct bag_error err;
	bag_msgdef_t *def = c->defs[m->conn_index];

	c->csv_header_done = true;
	c->head.len = 0;
	if (c->nfields > 0) {
		APPEND(&c->head, "%time,topic");
		for (size_t k = 0; k < c->nfields; k++) {
			APPEND(&c->head, ",");
			csv_cell(&c->head, c->fields[k].text, c->fields[k].len);
		}
	} else {
		APPEND(&c->head, "%time,");
		if (def == NULL || bag_print_csv(&c->head, def, m->data, m->size, true, &err) != BAG_OK)
			return;
	}
	escape_tail(&c->head, 0, false);
	APPEND(&c->head, "\n");
	fwrite(c->head.p, 1, c->head.len, stdout);
}

/* In order: write the text, count, stop at -n. */
static int emit(void *arg, const struct bag_scan_item *it)
{
	struct cat *c = arg;

	if (bag_timeline_warning_count(c->tl) > c->warnings) {
		fflush(stdout);
		cli_timeline_warnings(c->tl, &c->warnings);
	}
	if (it->rc != BAG_OK) {
		emit_error(c, it);
	} else if (c->o.count) {
		c->counted++;
	} else {
		if (c->o.format == FORMAT_CSV && !c->csv_header_done)
			csv_header(c, it->m);
		fwrite(it->text, 1, it->len, stdout);
	}
	return c->o.limit != 0 && ++c->emitted >= c->o.limit;
}

/* csv takes one topic (unless --fields): true if the view's connections share one. */
static bool one_topic(bag_view_t *view, bag_timeline_t *tl)
{
	const char *topic = NULL;

	for (size_t i = 0; i < bag_timeline_conn_count(tl); i++) {
		const struct bag_connection *c = bag_timeline_conn(tl, i, NULL);
		if (!bag_view_selects(view, i) || c->message_count == 0)
			continue;
		if (topic != NULL && strcmp(topic, c->topic) != 0)
			return false;
		topic = c->topic;
	}
	return true;
}

/* A --fields topic that is not there: say so, with the bag's topics (up to 6). */
static void unknown_topic(const struct field *f, const char *const *topics, size_t n)
{
	struct bag_text t = { 0 };
	size_t shown = 0;

	for (size_t i = 0; i < n && shown <= 6; i++) {
		bool dup = false;
		for (size_t j = 0; j < i && !dup; j++)
			dup = strcmp(topics[i], topics[j]) == 0;
		if (!dup)
			bag_text_printf(&t, "%s%s", shown > 0 ? ", " : "", shown < 6 ? topics[i] : "...");
		shown += !dup;
	}
	cli_error("cat: --fields: '%.*s' starts with no topic of the bag (its topics: %s)", (int)f->len, f->text,
	          t.p != NULL ? t.p : "none");
	bag_text_free(&t);
}

/* f's "/topic." prefix against the timeline's topics. Returns 0 or EXIT_USAGE (said). */
static int field_topic(struct field *f, const char *const *topics, size_t n)
{
	char *one = strndup(f->text, f->len);
	size_t p;

	if (one == NULL)
		return EXIT_BAD_INPUT;
	p = bag_expr_topic_prefix(one, topics, n);
	if (p == 0)
		unknown_topic(f, topics, n);
	else if (one[p] != '.' || one[p + 1] == '\0')
		cli_error("cat: --fields: '%s': name a field after the topic (e.g. %.*s.header.stamp)", one, (int)p, one);
	for (size_t i = 0; p > 0 && i < n && f->topic == NULL; i++)
		if (strlen(topics[i]) == p && strncmp(topics[i], one, p) == 0)
			f->topic = topics[i];
	f->skip = p + 1;
	free(one);
	return f->topic != NULL && f->skip < f->len ? EXIT_OK : EXIT_USAGE;
}

/*
 * Cut --fields at its commas; a field that starts with '/' names its topic
 * ("/odom.pose.pose.position.x", as the browser's C and plot take it). When
 * every field names one and neither --topic nor --type is given, the topics
 * named are the ones printed. Returns EXIT_OK or an exit status (said).
 */
static int split_fields(struct cat *c)
{
	size_t n = bag_timeline_conn_count(c->tl), all_topics = 0;
	const char *s = c->o.fields;
	const char **topics = calloc(n + 1, sizeof *topics);
	int status = EXIT_BAD_INPUT;

	c->fields = calloc(strlen(s) / 2 + 2, sizeof *c->fields);
	if (c->fields == NULL || topics == NULL)
		goto done;
	for (size_t i = 0; i < n; i++)
		topics[i] = bag_timeline_conn(c->tl, i, NULL)->topic;
	for (;;) {
		struct field *f = &c->fields[c->nfields++];
		f->text = s;
		f->len = strcspn(s, ",");
		if (s[0] == '/' && (status = field_topic(f, topics, n)) != EXIT_OK)
			goto done;
		all_topics += f->topic != NULL;
		if (s[f->len] == '\0')
			break;
		s += f->len + 1;
	}
	status = EXIT_OK;
	if (all_topics < c->nfields || c->o.sel.ntopics > 0 || c->o.sel.ntypes > 0)
		goto done;
	status = EXIT_BAD_INPUT;
	const char **more = realloc(c->o.sel.topics, (c->nfields + 1) * sizeof *more);
	if (more == NULL)
		goto done;
	c->o.sel.topics = more;
	for (size_t k = 0; k < c->nfields; k++)
		more[c->o.sel.ntopics++] = c->fields[k].topic;
	status = EXIT_OK;
done:
	if (status == EXIT_BAD_INPUT)
		cli_error("out of memory");
	free(topics);
	return status;
}

/* Compile field f for the view's connections (of its topic, if it names one) and check it. */
static int compile_field(struct cat *c, bag_view_t *view, struct field *f, bag_expr_prog_t **sel)
{
	size_t nconns = bag_timeline_conn_count(c->tl), nsel = 0;
	int rc;

	if ((f->progs = calloc(nconns + 1, sizeof *f->progs)) == NULL)
		return BAG_ENOMEM;
	if ((rc = bag_expr_parse_value(&f->expr, f->text + f->skip, f->len - f->skip)) != BAG_OK) {
		if (rc == BAG_EEXPR)
			cli_expr_error_at("cat", "--fields", f->text, f->len, f->skip, f->expr);
		return rc;
	}
	for (size_t i = 0; i < nconns; i++) {
		const struct bag_connection *conn = bag_timeline_conn(c->tl, i, NULL);
		if (!bag_view_selects(view, i) || (f->topic != NULL && strcmp(conn->topic, f->topic) != 0))
			continue;
		if ((rc = bag_expr_compile(&f->progs[i], f->expr, conn, c->defs[i])) != BAG_OK)
			return rc;
		sel[nsel++] = f->progs[i];
	}
	if (nsel == 0 && f->topic != NULL) {
		cli_error("cat: --fields: '%.*s': %s is not among the topics selected (--topic, --type)", (int)f->len,
		          f->text, f->topic);
		return BAG_EEXPR;
	}
	if ((rc = bag_expr_check(f->expr, sel, nsel)) != BAG_OK)
		cli_expr_error_at("cat", "--fields", f->text, f->len, f->skip, f->expr);
	return rc;
}

/* Parse, compile and check the --fields for the view's connections. */
static int prepare_fields(struct cat *c, bag_view_t *view)
{
	bag_expr_prog_t **sel = calloc(bag_timeline_conn_count(c->tl) + 1, sizeof *sel);
	int rc = sel == NULL ? BAG_ENOMEM : BAG_OK;

	for (size_t k = 0; k < c->nfields && rc == BAG_OK; k++)
		rc = compile_field(c, view, &c->fields[k], sel);
	free(sel);
	return rc;
}

/* Each selected connection's definition; warn once where its md5 differs. */
static int parse_defs(struct cat *c, bag_view_t *view)
{
	size_t nconns = bag_timeline_conn_count(c->tl);

	c->defs = calloc(nconns + 1, sizeof *c->defs);
	c->def_reported = calloc(nconns + 1, sizeof *c->def_reported);
	if (c->defs == NULL || c->def_reported == NULL)
		return BAG_ENOMEM;
	for (size_t i = 0; i < nconns; i++) {
		size_t b;
		const struct bag_connection *conn = bag_timeline_conn(c->tl, i, &b);
		if (!bag_view_selects(view, i) || conn->message_count == 0)
			continue;
		if (bag_conn_msgdef_parse(&c->defs[i], conn) != BAG_OK) {
			bag_msgdef_free(c->defs[i]);
			c->defs[i] = NULL;
		} else if (bag_conn_has_definition(conn) && strcmp(bag_msgdef_md5(c->defs[i]), conn->md5sum) != 0 &&
		           strcmp(conn->md5sum, "*") != 0) {
			/* (no definition at all is the bag's own warning, once: not a mismatch with the md5 of nothing) */
			cli_error("warning: %s: connection %u (%s): the definition's md5 is %s, the bag says %s",
			          bag_path(bag_timeline_bag(c->tl, b)), conn->id, conn->topic,
			          bag_msgdef_md5(c->defs[i]), conn->md5sum);
		}
	}
	return BAG_OK;
}

int cmd_cat(int argc, char **argv)
{
	struct cat c = { .decode_key = UINT64_MAX };
	struct bagset cb = { 0 };
	bag_view_t *view = NULL;
	struct bag_scan_opts so = { .size = sizeof so, .emit = emit, .arg = &c };
	int status = EXIT_USAGE, rc;

	if (parse_args(argc, argv, &c.o) != 0)
		goto done;
	if (cli_select_filter(&c.o.sel) != EXIT_OK)
		goto done;
	status = EXIT_BAD_INPUT;
	if (bagset_open(&cb, argv + optind, (size_t)(argc - optind)) != BAG_OK)
		goto done;
	c.tl = cb.tl;
	if (c.o.fields != NULL && (status = split_fields(&c)) != EXIT_OK)
		goto done;
	if ((status = cli_select_view(&c.o.sel, cb.tl, &view)) != EXIT_OK)
		goto done;
	status = EXIT_BAD_INPUT;
	if (!c.o.count && c.o.fields == NULL && c.o.format == FORMAT_CSV && !one_topic(view, cb.tl)) {
		cli_error("cat: --format csv prints one topic: choose it with --topic, or name --fields");
		status = EXIT_USAGE;
		goto done;
	}
	if (parse_defs(&c, view) != BAG_OK) {
		cli_error("out of memory");
		goto done;
	}
	if (c.o.fields != NULL && (rc = prepare_fields(&c, view)) != BAG_OK) {
		if (rc != BAG_EEXPR)
			cli_error("out of memory");
		status = rc == BAG_EEXPR ? EXIT_USAGE : EXIT_BAD_INPUT;
		goto done;
	}
	so.filter = c.o.sel.expr;
	if (!c.o.count) {
		so.work = work;
		so.decode = c.o.format != FORMAT_HEX && c.o.fields == NULL;
		so.keep_data = c.o.format == FORMAT_CSV;
	}
	setvbuf(stdout, NULL, _IOFBF, 1 << 20);
	rc = bag_scan(view, &so, NULL);
	flush_decode_errors(&c);
	fflush(stdout);
	cli_timeline_warnings(cb.tl, &c.warnings);
	if (rc == BAG_EEXPR) {
		cli_expr_error("cat", "--filter", c.o.sel.filter, strlen(c.o.sel.filter), c.o.sel.expr);
		status = EXIT_USAGE;
		goto done;
	}
	if (rc != BAG_OK && rc != BAG_ECANCELED) {
		fflush(stdout);
		cli_error("%s", rc == BAG_ENOMEM ? "out of memory" : bag_view_error(view)->message);
		goto done;
	}
	if (c.o.count)
		printf("%llu\n", (unsigned long long)c.counted);
	status = c.failed ? EXIT_BAD_INPUT : EXIT_OK;
done:
	fflush(stdout);
	for (size_t k = 0; k < c.nfields; k++) {
		for (size_t i = 0; c.fields[k].progs != NULL && i < bag_timeline_conn_count(cb.tl); i++)
			bag_expr_prog_free(c.fields[k].progs[i]);
		free(c.fields[k].progs);
		bag_expr_free(c.fields[k].expr);
	}
	free(c.fields);
	for (size_t i = 0; c.defs != NULL && i < bag_timeline_conn_count(cb.tl); i++)
		bag_msgdef_free(c.defs[i]);
	free(c.defs);
	free(c.def_reported);
	bag_text_free(&c.head);
	bag_view_free(view);
	bagset_close(&cb);
	select_free(&c.o.sel);
	return status;
}
