/*
 * keys-table.c - print the browser's key table (actions.h, through keys.c)
 * as the man page's BROWSER KEYS section writes it: one ".TP" entry per
 * action. tests/cli/keys-man.sh checks that doc/bagscope.1 holds exactly this,
 * so the help screen, the man page and the keys never disagree.
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

int main(void)
{
	for (int a = 1; a < ACTION_COUNT; a++) {
		fputs(".TP\n.B ", stdout);
		roff(keys_describe((enum action)a));
		putchar('\n');
		roff(keys_help((enum action)a));
		putchar('\n');
	}
	return 0;
}
