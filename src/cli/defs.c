/*
 * defs.c - `bagscope defs [--tree] BAG... [TOPIC]`: each connection's
 * header fields and message definition, with the md5sum checked against the
 * one recomputed from the definition.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"

/* Lines of text (a definition, a tree), each escaped and indented two spaces. */
static void print_lines(const char *s)
{
	struct bag_text t = { 0 };

	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);
		t.len = 0;
		bag_text_append(&t, "  ", 2);
		term_escape(&t, s, n);
		bag_text_append(&t, "\n", 1);
		if (!t.failed)
			fwrite(t.p, 1, t.len, stdout);
		s += n + (nl != NULL);
	}
	bag_text_free(&t);
}

/* Print one connection, every bag string escaped; false if its md5 does not match. */
static bool print_conn(const struct bag_connection *c, bool tree, struct bag_text *t)
{
	struct term_scratch sc = { 0 };
	bag_msgdef_t *def;
	int rc = bag_conn_msgdef_parse(&def, c);
	bool ok = rc == BAG_OK && strcmp(bag_msgdef_root(def)->md5, c->md5sum) == 0;
	const char *md5 = term_str(&sc, c->md5sum);

	printf("topic:    %s\nconn:     %u\ntype:     %s\n", term_str(&sc, c->topic), c->id,
	       term_str(&sc, c->type));
	if (rc != BAG_OK)
		printf("md5sum:   %s (definition does not parse: %s)\n", md5, term_str(&sc, bag_msgdef_error(def)->message));
	else if (ok)
		printf("md5sum:   %s (matches the definition)\n", md5);
	else
		printf("md5sum:   %s (MISMATCH: the definition gives %s)\n", md5, bag_msgdef_root(def)->md5);
	printf("callerid: %s\nlatching: %s\nmessages: %llu\n", c->callerid[0] ? term_str(&sc, c->callerid) : "(none)",
	       c->latching ? "yes" : "no", (unsigned long long)c->message_count);
	for (size_t i = 0; i < c->nfields; i++) {
		const char *n = c->fields[i].name;
		if (strcmp(n, "topic") && strcmp(n, "type") && strcmp(n, "md5sum") && strcmp(n, "callerid") &&
		    strcmp(n, "latching") && strcmp(n, "message_definition"))
			printf("%s: %s\n", term_str(&sc, n), term_str(&sc, c->fields[i].value));
	}
	if (tree && rc == BAG_OK) {
		t->len = 0;
		bag_print_msgdef_tree(t, def, 0);
		fputs("tree:\n", stdout);
		print_lines(t->len ? t->p : "");
	}
	fputs("definition:\n", stdout);
	print_lines(c->definition);
	bag_msgdef_free(def);
	term_scratch_free(&sc);
	return ok;
}

int cmd_defs(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "tree", no_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bag_text t = { 0 };
	const char *topic = NULL;
	bool tree = false, first = true;
	int opt, status = EXIT_OK, nbags;
	struct stat st;

	while ((opt = getopt_long(argc, argv, "th", longopts, NULL)) != -1) {
		switch (opt) {
		case 't': tree = true; break;
		case 'h': puts("usage: bagscope defs [--tree] BAG... [TOPIC]"); return EXIT_OK;
		default:
			cli_bad_option(argv);
			fputs("usage: bagscope defs [--tree] BAG... [TOPIC]\n", stderr);
			return EXIT_USAGE;
		}
	}
	nbags = argc - optind;
	/* a last argument that is no file is the topic */
	if (nbags > 1 && stat(argv[argc - 1], &st) != 0 && !bag_is_url(argv[argc - 1])) {
		topic = argv[argc - 1];
		nbags--;
	}
	if (nbags < 1) {
		fputs("usage: bagscope defs [--tree] BAG... [TOPIC]\n", stderr);
		return EXIT_USAGE;
	}
	for (int b = optind; b < optind + nbags; b++) {
		struct bag_open_opts opts = BAG_OPEN_OPTS_INIT;
		bag_t *bag;
		const char *why = NULL;
		bagset_open_opts(&opts);
		if (bag_open(&bag, argv[b], &opts) != BAG_OK)
			why = bag_last_error(bag)->message;
		else if (bagset_exact_counts(bag, &why) == BAG_OK)
			why = NULL;
		if (why != NULL) {
			cli_error("%s", why);
			bag_close(bag);
			status = EXIT_BAD_INPUT;
			continue;
		}
		for (size_t i = 0; i < bag_conn_count(bag); i++) {
			const struct bag_connection *c = bag_conn(bag, i);
			if (topic != NULL && strcmp(c->topic, topic) != 0)
				continue;
			if (!first)
				puts("---");
			first = false;
			if (nbags > 1) {
				struct term_scratch sc = { 0 };
				printf("bag:      %s\n", term_str(&sc, bag_path(bag)));
				term_scratch_free(&sc);
			}
			if (!print_conn(c, tree, &t))
				status = EXIT_BAD_INPUT;
		}
		bag_close(bag);
	}
	if (topic != NULL && first) {
		cli_error("no connection on topic %s", topic);
		status = EXIT_BAD_INPUT;
	}
	bag_text_free(&t);
	return status;
}
