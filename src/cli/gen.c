/*
 * gen.c - `bagscope gen`: write typed C or C++ code for the message types of
 * a bag's topics, from the definitions the bag carries (src/gen does the
 * work; this file picks the connections, parses their definitions and
 * writes the files).
 *
 * A connection whose definition does not parse is left out with one error
 * line, and the exit status is then 1; the rest is generated.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "gen/gen.h"

struct gen_opts {
	enum gen_lang lang;
	struct select sel;        /* --topic, --type */
	const char *dir;
};

static void usage(FILE *out)
{
	fputs("usage: bagscope gen [--lang c|cpp] [--topic T]... [--type TYPE]... -o DIR BAG\n"
	      "  writes DIR/msgs.h + msgs.c (or .hpp + .cpp), a header per topic, table.h,\n"
	      "  dump.c, a Makefile and a CMakeLists.txt\n", out);
}

static int parse_args(int argc, char **argv, struct gen_opts *o)
{
	static const struct option longopts[] = {
		{ "lang", required_argument, NULL, 'l' },
		SELECT_OPT_TOPIC, SELECT_OPT_TYPE,
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	memset(o, 0, sizeof *o);
	if (select_init(&o->sel, "gen", argc) != BAG_OK)
		return -1;
	while ((opt = getopt_long(argc, argv, "l:t:y:o:h", longopts, NULL)) != -1) {
		if (select_option(&o->sel, opt, optarg))
			continue;
		switch (opt) {
		case 'l':
			if (strcmp(optarg, "c") == 0) {
				o->lang = GEN_C;
			} else if (strcmp(optarg, "cpp") == 0 || strcmp(optarg, "c++") == 0) {
				o->lang = GEN_CPP;
			} else {
				cli_error("gen: unknown language '%s' (c or cpp)", optarg);
				return -1;
			}
			break;
		case 'o': o->dir = optarg; break;
		case 'h': usage(stdout); exit(EXIT_OK);
		default: cli_bad_option(argv); usage(stderr); return -1;
		}
	}
	if (o->dir == NULL || optind != argc - 1) {
		if (o->dir == NULL && optind == argc - 1)
			cli_error("gen: name the output directory with -o DIR");
		usage(stderr);
		return -1;
	}
	return 0;
}

/* Write every file into dir (made if missing). Returns 0 or -1 (said). */
static int write_files(const char *dir, const struct gen_file *files, size_t n)
{
	struct bag_text path = { 0 };
	int rc = 0;

	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		cli_error("gen: %s: %s", dir, strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		FILE *f;
		path.len = 0;
		bag_text_printf(&path, "%s/%s", dir, files[i].name);
		if (path.failed || (f = fopen(path.p, "wb")) == NULL) {
			cli_error("gen: %s: %s", path.failed ? dir : path.p, path.failed ? "out of memory" : strerror(errno));
			rc = -1;
			break;
		}
		if (fwrite(files[i].text.p, 1, files[i].text.len, f) != files[i].text.len)
			rc = -1;
		if (fclose(f) != 0)
			rc = -1;
		if (rc != 0)
			cli_error("gen: %s: %s", path.p, strerror(errno));
	}
	bag_text_free(&path);
	return rc;
}

int cmd_gen(int argc, char **argv)
{
	struct gen_opts o;
	struct bagset bs = { 0 };
	bag_view_t *view = NULL;
	bag_msgdef_t **defs = NULL;
	struct gen_conn *conns = NULL;
	struct gen_file *files = NULL;
	struct bag_text warnings = { 0 };
	size_t nconns = 0, nfiles = 0, nall;
	const char *source;
	bool left_out = false;
	int status = EXIT_USAGE;

	if (parse_args(argc, argv, &o) != 0)
		goto done;
	status = EXIT_BAD_INPUT;
	if (bagset_open(&bs, argv + optind, 1) != BAG_OK)
		goto done;
	if (cli_select_view(&o.sel, bs.tl, &view) != EXIT_OK)
		goto done;
	nall = bag_timeline_conn_count(bs.tl);
	defs = calloc(nall + 1, sizeof *defs);
	conns = calloc(nall + 1, sizeof *conns);
	if (defs == NULL || conns == NULL) {
		cli_error("out of memory");
		goto done;
	}
	for (size_t i = 0; i < nall; i++) {
		const struct bag_connection *c = bag_timeline_conn(bs.tl, i, NULL);
		if (!bag_view_selects(view, i))
			continue;
		if (bag_conn_msgdef_parse(&defs[i], c) != BAG_OK) {
			cli_error("%s: connection %u (%s): bad message definition, left out: %s", bag_path(bs.bags[0]), c->id,
			          c->topic, bag_msgdef_error(defs[i])->message);
			left_out = true;
			continue;
		}
		if (gen_message_bytes(defs[i]) > GEN_MAX_MESSAGE_BYTES) {
			cli_error("%s: connection %u (%s): a %s would take %llu byte%s in memory (fixed arrays), more "
			          "than gen's %llu: left out", bag_path(bs.bags[0]), c->id, c->topic, c->type,
			          (unsigned long long)gen_message_bytes(defs[i]), BAG_S(gen_message_bytes(defs[i])),
			          (unsigned long long)GEN_MAX_MESSAGE_BYTES);
			left_out = true;
			continue;
		}
		conns[nconns++] = (struct gen_conn){ c->topic, c->type, c->md5sum, defs[i] };
	}
	if (nconns == 0 && (o.sel.ntopics > 0 || o.sel.ntypes > 0) && !left_out) {
		cli_error("gen: %s: no connection has the topics and types asked for", bag_path(bs.bags[0]));
		goto done;
	}
	source = strrchr(argv[optind], '/') ? strrchr(argv[optind], '/') + 1 : argv[optind];
	if (gen_run(conns, nconns, o.lang, source, &files, &nfiles, &warnings) != BAG_OK) {
		cli_error("out of memory");
		goto done;
	}
	for (const char *s = warnings.p; s != NULL && *s;) {
		const char *nl = strchr(s, '\n');
		cli_error("gen: warning: %.*s", (int)(nl ? nl - s : (ptrdiff_t)strlen(s)), s);
		s = nl ? nl + 1 : s + strlen(s);
	}
	if (write_files(o.dir, files, nfiles) != 0)
		goto done;
	status = left_out ? EXIT_BAD_INPUT : EXIT_OK;
done:
	gen_files_free(files, nfiles);
	bag_text_free(&warnings);
	for (size_t i = 0; defs != NULL && i < bag_timeline_conn_count(bs.tl); i++)
		bag_msgdef_free(defs[i]);
	free(defs);
	free(conns);
	bag_view_free(view);
	bagset_close(&bs);
	select_free(&o.sel);
	return status;
}
