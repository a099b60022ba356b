/*
 * tf.c - `bagscope tf`: the frame tree of the bags' /tf and /tf_static
 * (tf.h), as an indented text tree, JSON or a graphviz graph, and lookups:
 * --lookup TARGET SOURCE at each --at time, or as CSV every DT over a
 * window. The tree is printed from each root by an explicit stack (a
 * hostile bag can chain frames deeper than the C stack); frames only in a
 * cycle follow under their own heading. Warnings go to stderr in the text
 * forms and into the JSON.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

#define MAX_ROWS 10000000   /* --every: rows at most (a damaged bag can span centuries) */

struct tf_opts {
	bool json, dot;
	const char **topics;
	size_t ntopics;
	const char *target, *source;
	const char **at;
	size_t nat;
	const char *every, *start, *end;
	char **bags;
	size_t nbags;
};

static void usage(FILE *out)
{
	fputs("usage: bagscope tf [--topic T]... [--json | --dot] BAG...\n"
	      "       bagscope tf [--topic T]... [--json] --lookup TARGET SOURCE [--at T]... BAG...\n"
	      "       bagscope tf [--topic T]... --lookup TARGET SOURCE --every DT [--start S] [--end E] BAG...\n"
	      "  the frame tree of every tf2_msgs/TFMessage and tf/tfMessage topic (or of --topic T)\n"
	      "  --lookup: the transform of SOURCE-frame coordinates into TARGET, as tf2's lookupTransform;\n"
	      "            --at 0 (the default): the latest time common to the chain\n"
	      "  --every: CSV time_ns,x,y,z,qx,qy,qz,qw,roll,pitch,yaw from S to E (the bag's span)\n", out);
}

static int parse_args(int argc, char **argv, struct tf_opts *o)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' }, { "dot", no_argument, NULL, 'd' },
		{ "topic", required_argument, NULL, 't' }, { "lookup", required_argument, NULL, 'l' },
		{ "at", required_argument, NULL, 'a' }, { "every", required_argument, NULL, 'v' },
		{ "start", required_argument, NULL, 's' }, { "end", required_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	int opt;

	memset(o, 0, sizeof *o);
	o->topics = calloc((size_t)argc + 1, sizeof *o->topics);
	o->at = calloc((size_t)argc + 1, sizeof *o->at);
	if (o->topics == NULL || o->at == NULL)
		return -1;
	while ((opt = getopt_long(argc, argv, "jdt:l:a:v:s:e:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j': o->json = true; break;
		case 'd': o->dot = true; break;
		case 't': o->topics[o->ntopics++] = optarg; break;
		case 'a': o->at[o->nat++] = optarg; break;
		case 'v': o->every = optarg; break;
		case 's': o->start = optarg; break;
		case 'e': o->end = optarg; break;
		case 'l':
			if (optind >= argc) {
				cli_error("tf: --lookup needs two frames: TARGET SOURCE");
				return -1;
			}
			o->target = optarg;
			o->source = argv[optind++];
			break;
		case 'h': usage(stdout); exit(EXIT_OK);
		default: cli_bad_option(argv); usage(stderr); return -1;
		}
	}
	o->bags = argv + optind;
	o->nbags = (size_t)(argc - optind);
	if (o->nbags == 0 || (o->json && o->dot) || ((o->nat || o->every) && !o->target) ||
	    (o->every && (o->nat || o->json || o->dot)) || (o->target && o->dot) ||
	    ((o->start || o->end) && !o->every)) {
		cli_error("tf: %s", o->nbags == 0 ? "name a bag file" : "these options do not go together");
		usage(stderr);
		return -1;
	}
	return 0;
}

/* Seconds.nanoseconds. */
static void put_time(struct bag_text *t, int64_t ns)
{
	uint64_t a = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
	bag_text_printf(t, "%s%llu.%09llu", ns < 0 ? "-" : "", (unsigned long long)(a / 1000000000u),
	                (unsigned long long)(a % 1000000000u));
}

/* One frame's line of the text tree, indented by depth. */
static void text_frame(const bag_tf_t *tf, size_t i, size_t depth, struct bag_text *t)
{
	struct bag_tf_frame f;
	struct bag_text e = { 0 };

	bag_tf_frame(tf, i, &f);
	t->len = 0;
	term_escape(&e, f.name, strlen(f.name));
	bag_text_printf(t, "%*s%s", (int)(2 * (depth < 40 ? depth : 40)), "", e.len ? e.p : "");
	if (f.has_parents) {
		bag_text_printf(t, "  %s  %llu msg%s", f.is_static ? "static" : "dynamic", (unsigned long long)f.count,
		                f.count == 1 ? "" : "s");
		if (!f.is_static) {
			bag_text_printf(t, "  %.2f Hz  stamps ", f.rate_hz);
			put_time(t, f.first_stamp_ns);
			bag_text_append(t, " .. ", 4);
			put_time(t, f.last_stamp_ns);
			bag_text_printf(t, "  largest gap %.3f s", (double)f.gap_ns / 1e9);
		}
		e.len = 0;
		term_escape(&e, f.callerid, strlen(f.callerid));
		bag_text_printf(t, "  node %s", e.len ? e.p : "?");
	}
	bag_text_append(t, "\n", 1);
	fwrite(t->p, 1, t->len, stdout);
	bag_text_free(&e);
}

/* The tree from each root, depth first, by name; then frames no root reaches. */
static int print_text(const bag_tf_t *tf)
{
	size_t n = bag_tf_frame_count(tf);
	struct bag_tf_row *rows = malloc((n + 1) * sizeof *rows);
	struct bag_text t = { 0 };
	bool cyc = false;

	if (rows == NULL || bag_tf_tree(tf, rows) != 0) {
		free(rows);
		return -1;
	}
	for (size_t k = 0; k < n; k++) {
		if (rows[k].in_cycle && !cyc && (cyc = true))
			fputs("frames in a cycle of parents:\n", stdout);
		text_frame(tf, rows[k].frame, rows[k].depth, &t);
	}
	free(rows);
	bag_text_free(&t);
	return 0;
}

static void json_str(const char *s)
{
	cli_json_string(stdout, s, strlen(s));
}

static void print_json(const bag_tf_t *tf)
{
	fputs("{\"frames\": [", stdout);
	for (size_t i = 0; i < bag_tf_frame_count(tf); i++) {
		struct bag_tf_frame f;
		struct bag_tf_frame p;
		bag_tf_frame(tf, i, &f);
		fputs(i ? ", {\"name\": " : "{\"name\": ", stdout);
		json_str(f.name);
		fputs(", \"parent\": ", stdout);
		if (f.parent >= 0) {
			bag_tf_frame(tf, (size_t)f.parent, &p);
			json_str(p.name);
		} else {
			fputs("null", stdout);
		}
		printf(", \"static\": %s, \"parents\": %zu, \"count\": %llu, \"rate_hz\": %.6g, \"first_stamp_ns\": %lld, "
		       "\"last_stamp_ns\": %lld, \"largest_gap_ns\": %lld, \"largest_gap_at_ns\": %lld, \"callerid\": ",
		       f.is_static ? "true" : "false", f.nparents, (unsigned long long)f.count, f.rate_hz,
		       (long long)f.first_stamp_ns, (long long)f.last_stamp_ns, (long long)f.gap_ns, (long long)f.gap_at_ns);
		json_str(f.callerid);
		fputs(", \"topic\": ", stdout);
		json_str(f.topic);
		fputs("}", stdout);
	}
	struct bag_tf_stats st;
	bag_tf_stats(tf, &st);
	printf("], \"stats\": {\"messages\": %llu, \"transforms\": %llu, \"stored\": %llu, \"refused\": %llu, "
	       "\"repeated\": %llu, \"bad_messages\": %llu, \"memory_bytes\": %zu", (unsigned long long)st.messages,
	       (unsigned long long)st.transforms, (unsigned long long)st.kept, (unsigned long long)st.refused,
	       (unsigned long long)st.repeated, (unsigned long long)st.bad_messages, st.memory);
	fputs("}, \"warnings\": [", stdout);
	for (size_t i = 0; i < bag_tf_warning_count(tf); i++) {
		fputs(i ? ", " : "", stdout);
		json_str(bag_tf_warning(tf, i));
	}
	fputs("]}\n", stdout);
}

/* A graphviz graph: one edge per frame with a parent, labelled. */
static void print_dot(const bag_tf_t *tf)
{
	fputs("digraph tf {\n", stdout);
	for (size_t i = 0; i < bag_tf_frame_count(tf); i++) {
		struct bag_tf_frame f, p;
		bag_tf_frame(tf, i, &f);
		fputs("  ", stdout);
		json_str(f.name);
		fputs(";\n", stdout);
		if (f.parent < 0)
			continue;
		bag_tf_frame(tf, (size_t)f.parent, &p);
		fputs("  ", stdout);
		json_str(p.name);
		fputs(" -> ", stdout);
		json_str(f.name);
		if (f.is_static)
			printf(" [label=\"static\"];\n");
		else
			printf(" [label=\"%.2f Hz\\n%llu msg%s\"];\n", f.rate_hz, (unsigned long long)f.count, BAG_S(f.count));
	}
	fputs("}\n", stdout);
}

/* Values separated by sep. */
static void put_doubles(struct bag_text *t, const double *v, int n, const char *sep)
{
	for (int k = 0; k < n; k++) {
		if (k > 0)
			bag_text_append(t, sep, strlen(sep));
		bag_text_double(t, v[k]);
	}
}

/* One lookup result: text, JSON or a CSV row. */
static void print_result(const struct tf_opts *o, int64_t at, const struct bag_tf_transform *x)
{
	struct bag_text t = { 0 };
	double rpy[3];

	bag_tf_rpy(x->rotation, rpy);
	if (o->every) {
		bag_text_printf(&t, "%lld,", (long long)x->stamp_ns);
		put_doubles(&t, x->translation, 3, ",");
		bag_text_append(&t, ",", 1);
		put_doubles(&t, x->rotation, 4, ",");
		bag_text_append(&t, ",", 1);
		put_doubles(&t, rpy, 3, ",");
	} else if (o->json) {
		bag_text_printf(&t, "{\"at_ns\": %lld, \"stamp_ns\": %lld, \"translation\": [", (long long)at,
		                (long long)x->stamp_ns);
		put_doubles(&t, x->translation, 3, ", ");
		bag_text_append(&t, "], \"rotation\": [", 16);
		put_doubles(&t, x->rotation, 4, ", ");
		bag_text_append(&t, "], \"rpy\": [", 11);
		put_doubles(&t, rpy, 3, ", ");
		bag_text_append(&t, "]}", 2);
	} else {
		bag_text_append(&t, "time ", 5);
		put_time(&t, x->stamp_ns);
		bag_text_append(&t, "  translation ", 14);
		put_doubles(&t, x->translation, 3, " ");
		bag_text_append(&t, "  rotation ", 11);
		put_doubles(&t, x->rotation, 4, " ");
		bag_text_append(&t, "  rpy ", 6);
		put_doubles(&t, rpy, 3, " ");
	}
	bag_text_append(&t, "\n", 1);
	fwrite(t.p, 1, t.len, stdout);
	bag_text_free(&t);
}

/* A failed lookup: one line naming the frames and tf2's reason. */
static void lookup_error(const struct tf_opts *o, const struct bag_tf_transform *x, const struct bag_error *err)
{
	static const char *const kind[] = { "", "LookupException", "ConnectivityException", "ExtrapolationException",
	                                     "InvalidArgumentException" };
	cli_error("tf: %s -> %s: %s: %s", o->source, o->target, kind[x->error], err->message);
}

/* Each --at (or the latest common time) in order; 1 when one failed. */
static int lookups_at(const struct tf_opts *o, const bag_tf_t *tf, const bag_timeline_t *tl)
{
	const char *zero = "0";
	size_t n = o->nat ? o->nat : 1;

	for (size_t i = 0; i < n; i++) {
		const char *s = o->nat ? o->at[i] : zero;
		struct bag_tf_transform x;
		struct bag_error err;
		int64_t at;
		if (cli_parse_time(s, bag_timeline_start(tl), bag_timeline_end(tl), &at) != 0) {
			cli_error("tf: --at: not a time: %s", s);
			return EXIT_USAGE;
		}
		if (bag_tf_lookup(tf, o->target, o->source, at, &x, &err) != 0) {
			fflush(stdout);
			lookup_error(o, &x, &err);
			return EXIT_BAD_INPUT;
		}
		print_result(o, at, &x);
	}
	return EXIT_OK;
}

/* --every DT over [S, E]: CSV rows; times that fail are counted and left out. */
static int lookups_every(const struct tf_opts *o, const bag_tf_t *tf, const bag_timeline_t *tl)
{
	int64_t t0 = bag_timeline_start(tl), t1 = bag_timeline_end(tl), dt;
	uint64_t ok = 0, failed = 0;
	struct bag_error first = BAG_ERROR_INIT, err;

	if (cli_parse_time(o->every, 0, INT64_MAX, &dt) != 0 || dt <= 0 ||
	    (o->start && cli_parse_time(o->start, t0, t1, &t0) != 0) ||
	    (o->end && cli_parse_time(o->end, bag_timeline_start(tl), t1, &t1) != 0)) {
		cli_error("tf: --every needs a positive duration, --start and --end times");
		return EXIT_USAGE;
	}
	if (t1 >= t0 && (uint64_t)(t1 - t0) / (uint64_t)dt >= MAX_ROWS) {
		cli_error("tf: --every: more than %d rows from %lld to %lld; narrow --start/--end or take a larger step",
		          MAX_ROWS, (long long)t0, (long long)t1);
		return EXIT_USAGE;
	}
	puts("time_ns,x,y,z,qx,qy,qz,qw,roll,pitch,yaw");
	for (int64_t t = t0; t <= t1; t += dt) {
		struct bag_tf_transform x;
		if (bag_tf_lookup(tf, o->target, o->source, t, &x, &err) != 0) {
			if (failed++ == 0)
				first = err;
		} else {
			print_result(o, t, &x);
			ok++;
		}
		if (t1 - t < dt)
			break;
	}
	if (failed > 0) {
		fflush(stdout);
		cli_error("tf: %llu of %llu time%s failed, the first: %s", (unsigned long long)failed,
		          (unsigned long long)(ok + failed), BAG_S((ok + failed)), first.message);
	}
	return ok == 0 && failed > 0 ? EXIT_BAD_INPUT : EXIT_OK;
}

int cmd_tf(int argc, char **argv)
{
	struct tf_opts o;
	struct bagset bs = { 0 };
	struct bag_tf_opts to = BAG_TF_OPTS_INIT;
	bag_tf_t *tf = NULL;
	size_t wdone = 0;
	int rc, ret = EXIT_BAD_INPUT;

	if (parse_args(argc, argv, &o) != 0) {
		ret = EXIT_USAGE;
		goto out;
	}
	if (bagset_open(&bs, o.bags, o.nbags) != 0)
		goto out;
	to.topics = o.topics;
	to.ntopics = o.ntopics;
	if ((rc = bag_tf_build(&tf, bs.tl, &to)) != 0) {
		cli_error("tf: %s", bag_tf_error(tf)->message);
		goto out;
	}
	cli_timeline_warnings(bs.tl, &wdone);
	if (!o.json || o.target)
		for (size_t i = 0; i < bag_tf_warning_count(tf); i++)
			cli_error("tf: warning: %s", bag_tf_warning(tf, i));
	if (o.every)
		ret = lookups_every(&o, tf, bs.tl);
	else if (o.target)
		ret = lookups_at(&o, tf, bs.tl);
	else if (o.json)
		print_json(tf), ret = EXIT_OK;
	else if (o.dot)
		print_dot(tf), ret = EXIT_OK;
	else
		ret = print_text(tf) == 0 ? EXIT_OK : EXIT_BAD_INPUT;
out:
	bag_tf_free(tf);
	bagset_close(&bs);
	free(o.topics);
	free(o.at);
	return ret;
}
