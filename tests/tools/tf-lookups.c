/*
 * tf-lookups.c - bagscope's side of the tf2 comparison: build the
 * transform buffer of BAG with the library, then answer the Q lines of
 * stdin (tests/tools/tf-dump.py's format; T lines are skipped) as
 * tests/tools/tf2-ref.cpp does: "OK sec nsec tx ty tz qx qy qz qw" or
 * "ERR <tf2's exception>".
 *
 * usage: tf-lookups BAG < lines
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bagscope/bagscope.h>

static const char *const kind[] = { "", "LookupException", "ConnectivityException", "ExtrapolationException",
                                    "InvalidArgumentException" };

/* Split line at tabs into at most 5 fields; returns the count. */
static int split(char *line, char **f)
{
	int n = 0;
	f[n++] = line;
	for (char *p = line; *p && n < 5; p++)
		if (*p == '\t') {
			*p = '\0';
			f[n++] = p + 1;
		}
	return n;
}

static void answer(const bag_tf_t *tf, char **f)
{
	int64_t t = strtoll(f[3], NULL, 10) * BAG_NSEC_PER_SEC + strtoll(f[4], NULL, 10);
	struct bag_tf_transform x;

	if (bag_tf_lookup(tf, f[1], f[2], t, &x, NULL) != 0) {
		printf("ERR %s\n", kind[x.error]);
		return;
	}
	printf("OK %lld %lld %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n", (long long)(x.stamp_ns / BAG_NSEC_PER_SEC),
	       (long long)(x.stamp_ns % BAG_NSEC_PER_SEC), x.translation[0], x.translation[1], x.translation[2],
	       x.rotation[0], x.rotation[1], x.rotation[2], x.rotation[3]);
}

int main(int argc, char **argv)
{
	bag_t *bag = NULL;
	bag_timeline_t *tl = NULL;
	bag_tf_t *tf = NULL;
	char line[4096], *f[5];
	int rc;

	if (argc != 2) {
		fputs("usage: tf-lookups BAG < lines\n", stderr);
		return 2;
	}
	if ((rc = bag_open(&bag, argv[1], NULL)) != 0 || (rc = bag_timeline_open(&tl, &bag, 1)) != 0 ||
	    (rc = bag_tf_build(&tf, tl, NULL)) != 0) {
		fprintf(stderr, "tf-lookups: %s: %s (%s)\n", argv[1], bag_strerror(rc), tf ? bag_tf_error(tf)->message : "");
		return 1;
	}
	while (fgets(line, sizeof line, stdin) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (split(line, f) == 5 && strcmp(f[0], "Q") == 0)
			answer(tf, f);
	}
	bag_tf_free(tf);
	bag_timeline_free(tl);
	bag_close(bag);
	return 0;
}
