/*
 * replay.c - a plain main() for a fuzz target, without libFuzzer: feeds
 * LLVMFuzzerTestOneInput() every file of the directories given (default:
 * the target's corpus and its kept crashes, FUZZ_DIR/corpus/TARGET and
 * FUZZ_DIR/crashes/TARGET). Exit 0 when all ran (a crash kills it), 77
 * (skip) when there was nothing to run.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

/* Run one file; returns 1 if it was run. */
static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;
	int ran = 0;

	if (f == NULL)
		return 0;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (buf = malloc(n ? (size_t)n : 1)) != NULL && fread(buf, 1, (size_t)n, f) == (size_t)n) {
		LLVMFuzzerTestOneInput(buf, (size_t)n);
		ran = 1;
	}
	free(buf);
	fclose(f);
	return ran;
}

static int run_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		char path[4096];
		struct stat st;
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
			n += run_file(path);
	}
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	int n = 0;

	if (argc > 1) {
		for (int i = 1; i < argc; i++)
			n += run_dir(argv[i]) + run_file(argv[i]);
	} else {
		n += run_dir(FUZZ_DIR "/corpus/" FUZZ_TARGET);
		n += run_dir(FUZZ_DIR "/crashes/" FUZZ_TARGET);
	}
	printf("%s: %d inputs replayed\n", FUZZ_TARGET, n);
	return n > 0 ? 0 : 77;
}
