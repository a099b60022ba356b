/*
 * keys-table.c - print the browser's key table (actions.h, through keys.c)
 * as the man page's BROWSER KEYS section writes it: one ".TP" entry per
 * action; with --markdown, as README.md's key table (one row per action).
 * tests/cli/keys-man.sh checks that doc/bagscope.1 and README.md hold exactly
 * this, so the help screen, the man page, the README and the keys never
 * disagree.
 */
#include <stdio.h>
#include <string.h>

#include "tui/keys.h"

/* Escape what troff would take: backslashes and a leading dot or quote. */
static void roff(const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", stdout);
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\e", stdout);
		else if (*s == '-')
			fputs("\\-", stdout);
		else
			putchar(*s);
	}
}

/* Markdown table text: '|' escaped, the keys in code spans. */
static void markdown(void)
{
	puts("| keys | |");
	puts("| --- | --- |");
	for (int a = 1; a < ACTION_COUNT; a++) {
		printf("| `%s` | ", keys_describe((enum action)a));
		for (const char *s = keys_help((enum action)a); *s; s++)
			fputs(*s == '|' ? "\\|" : (char[]){ *s, 0 }, stdout);
		puts(" |");
	}
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--markdown") == 0) {
		markdown();
		return 0;
	}
	for (int a = 1; a < ACTION_COUNT; a++) {
		fputs(".TP\n.B ", stdout);
		roff(keys_describe((enum action)a));
		putchar('\n');
		roff(keys_help((enum action)a));
		putchar('\n');
	}
	return 0;
}
