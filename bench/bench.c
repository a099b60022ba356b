/*
 * bench.c - figures for the foundation's speed and memory targets.
 *
 *   bench/bench [-n MESSAGES] [-c none|bz2|lz4] [-t CHUNK_BYTES] [-o DIR] [-k]
 *
 * Writes a bag of MESSAGES small messages (default 4 million, 8 bytes each,
 * on 10 connections) with the project's writer, then measures, each as a
 * separate process so peak memory is its own:
 *   - a bare C loop that only preads the index regions (the floor);
 *   - `bagscope info` (index section + chunk headers);
 *   - `bagscope info --freq` (the full timeline);
 * printing wall time, peak RSS and bytes per message, and the timeline's own
 * memory per message measured in-process. -k keeps the bag.
 *
 *   bench/bench -C CONNS [-t CHUNK_BYTES] [-o DIR] [-k]
 *
 * Writes a bag of CONNS connections (one topic and one message each; with
 * -t, chunks of that many bytes, e.g. -t 4000000000 for a single chunk) and
 * times bag_open() in-process and `bagscope info` and `info --freq` as
 * separate processes: every per-connection step must be O(log n) or better.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bagscope/bagscope.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int write_bench_bag(const char *path, uint64_t n, enum bag_compression comp, uint32_t threshold)
{
	struct bag_writer_opts opts = { sizeof(struct bag_writer_opts), comp, threshold };
	char topic[32];
	struct bag_conn_spec conns[10];
	bag_writer_t *w;
	int rc = bag_writer_open(&w, path, &opts);

	for (int c = 0; c < 10; c++) {
		snprintf(topic, sizeof topic, "/sensor_%d", c);
		conns[c] = (struct bag_conn_spec){ strdup(topic), "std_msgs/Int64",
			"34add168574510e6e17f5d23ecc077ef", "int64 data\n", "/bench", false };
	}
	for (uint64_t i = 0; rc == BAG_OK && i < n; i++) {
		int64_t v = (int64_t)i;
		/* 10 topics at 1 kHz in all; topic c runs at (c + 1) / 55 of that */
		rc = bag_writer_write(w, &conns[(i * 7) % 10], 1600000000LL * BAG_NSEC_PER_SEC + (int64_t)i * 1000000,
		                      &v, sizeof v);
	}
	if (rc == BAG_OK)
		rc = bag_writer_close(w);
	if (rc != BAG_OK)
		fprintf(stderr, "bench: %s\n", bag_writer_error(w)->message);
	bag_writer_free(w);
	for (int c = 0; c < 10; c++)
		free((char *)conns[c].topic);
	return rc;
}

/* A bag of nconns connections, each its own topic with one message. */
static int write_conns_bag(const char *path, uint64_t nconns, uint32_t threshold)
{
	struct bag_writer_opts opts = { sizeof opts, BAG_COMPRESSION_NONE, threshold };
	bag_writer_t *w;
	char topic[32];
	int rc = bag_writer_open(&w, path, &opts);

	for (uint64_t i = 0; rc == BAG_OK && i < nconns; i++) {
		int64_t v = (int64_t)i;
		struct bag_conn_spec c = { topic, "std_msgs/Int64", "34add168574510e6e17f5d23ecc077ef",
		                           "int64 data\n", "/bench", false };
		snprintf(topic, sizeof topic, "/c%07llu", (unsigned long long)i);
		rc = bag_writer_write(w, &c, 1600000000LL * BAG_NSEC_PER_SEC + (int64_t)i * 1000, &v, sizeof v);
	}
	if (rc == BAG_OK)
		rc = bag_writer_close(w);
	if (rc != BAG_OK)
		fprintf(stderr, "bench: %s\n", bag_writer_error(w)->message);
	bag_writer_free(w);
	return rc;
}

/* Run argv, return wall seconds and peak RSS in KiB; -1 on failure. */
static double run(char *const argv[], long *maxrss_kb)
{
	double t0 = now();
	pid_t pid = fork();
	struct rusage ru;
	int status;

	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	*maxrss_kb = ru.ru_maxrss;
	return now() - t0;
}

/* The floor: pread every index region, parse nothing (run in a child). */
static int bare_index_read(const char *path)
{
	bag_t *bag;
	struct bag_chunk_info ci, next;
	static uint8_t buf[1 << 22];
	int fd;

	if (bag_open(&bag, path, NULL) != BAG_OK)
		return 1;
	fd = open(path, O_RDONLY);
	for (size_t i = 0; i < bag_chunk_count(bag); i++) {
		bag_chunk_stat(bag, i, &ci);
		uint64_t end = i + 1 < bag_chunk_count(bag) ? (bag_chunk_stat(bag, i + 1, &next), next.pos)
		                                              : bag_file_size(bag);
		uint64_t at = ci.pos + ci.compressed_size;   /* close enough: the header is small */
		while (at < end) {
			size_t n = end - at < sizeof buf ? (size_t)(end - at) : sizeof buf;
			if (pread(fd, buf, n, (off_t)at) <= 0)
				break;
			at += n;
		}
	}
	close(fd);
	bag_close(bag);
	return 0;
}

/* -C: a bag of nconns connections; bag_open in-process, info and info --freq. */
static int bench_conns(const char *dir, const char *bin, uint64_t nconns, uint32_t threshold, bool keep)
{
	char path[512];
	struct stat st;
	bag_t *bag;
	long rss;
	double t;

	snprintf(path, sizeof path, "%s/bagscope-conns-%llu%s.bag", dir, (unsigned long long)nconns,
	         threshold ? "-chunked" : "");
	if (stat(path, &st) != 0) {
		t = now();
		if (write_conns_bag(path, nconns, threshold) != BAG_OK)
			return 1;
		stat(path, &st);
		printf("write:       %8.3f s  %llu connections, %.1f MB\n", now() - t,
		       (unsigned long long)nconns, (double)st.st_size / 1e6);
	}
	printf("bag:         %s, %.1f MB, %llu connections\n", path, (double)st.st_size / 1e6,
	       (unsigned long long)nconns);
	t = now();
	if (bag_open(&bag, path, NULL) != BAG_OK) {
		fprintf(stderr, "bench: %s\n", bag_last_error(bag)->message);
		return 1;
	}
	printf("bag_open:    %8.3f s  in-process, %zu connections, %zu chunks\n", now() - t,
	       bag_conn_count(bag), bag_chunk_count(bag));
	bag_close(bag);
	char *info[] = { (char *)bin, "info", path, NULL };
	char *freq[] = { (char *)bin, "info", "--freq", path, NULL };
	t = run(info, &rss);
	printf("info:        %8.3f s  peak %6.1f MB\n", t, (double)rss / 1024);
	t = run(freq, &rss);
	printf("info --freq: %8.3f s  peak %6.1f MB\n", t, (double)rss / 1024);
	char *check[] = { (char *)bin, "check", path, NULL };
	t = run(check, &rss);
	printf("check:       %8.3f s  peak %6.1f MB\n", t, (double)rss / 1024);
	if (!keep)
		unlink(path);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t n = 4000000;
	enum bag_compression comp = BAG_COMPRESSION_NONE;
	const char *dir = "/tmp", *bin = "src/bagscope";
	bool keep = false;
	uint32_t threshold = 0;
	char path[512];
	int opt;

	uint64_t nconns = 0;

	while ((opt = getopt(argc, argv, "n:c:o:b:t:kC:")) != -1) {
		switch (opt) {
		case 'C': nconns = strtoull(optarg, NULL, 10); break;
		case 'n': n = strtoull(optarg, NULL, 10); break;
		case 'c':
			if (bag_compression_parse(optarg, strlen(optarg), &comp) != BAG_OK) {
				fprintf(stderr, "bench: unknown compression %s\n", optarg);
				return 2;
			}
			break;
		case 'o': dir = optarg; break;
		case 'b': bin = optarg; break;
		case 't': threshold = (uint32_t)strtoul(optarg, NULL, 10); break;
		case 'k': keep = true; break;
		default:
			fprintf(stderr, "usage: bench [-n MESSAGES] [-c none|bz2|lz4] [-t CHUNK_BYTES] [-o DIR] [-b BAGSCOPE] [-k]\n"
			                "       bench -C CONNECTIONS [-t CHUNK_BYTES] [-o DIR] [-b BAGSCOPE] [-k]\n");
			return 2;
		}
	}
	if (nconns > 0)
		return bench_conns(dir, bin, nconns, threshold, keep);
	snprintf(path, sizeof path, "%s/bagscope-bench-%llu-%s%s.bag", dir, (unsigned long long)n,
	         bag_compression_name(comp), threshold ? "-small-chunks" : "");
	struct stat st;
	double t = now();
	if (stat(path, &st) != 0) {
		if (write_bench_bag(path, n, comp, threshold) != BAG_OK)
			return 1;
		double dt = now() - t;
		stat(path, &st);
		printf("write:       %8.3f s  %llu messages, %.1f MB (%s)\n", dt, (unsigned long long)n,
		       (double)st.st_size / 1e6, bag_compression_name(comp));
	}
	printf("bag:         %s, %.1f MB, %llu messages\n", path, (double)st.st_size / 1e6, (unsigned long long)n);

	long rss;
	pid_t pid = fork();
	struct rusage ru;
	int status;
	t = now();
	if (pid == 0)
		_exit(bare_index_read(path));
	wait4(pid, &status, 0, &ru);
	printf("bare index:  %8.3f s  peak %6.1f MB   (pread of every index region, no parsing)\n",
	       now() - t, (double)ru.ru_maxrss / 1024);

	char *info[] = { (char *)bin, "info", path, NULL };
	char *freq[] = { (char *)bin, "info", "--freq", path, NULL };
	double ti = run(info, &rss);
	printf("info:        %8.3f s  peak %6.1f MB\n", ti, (double)rss / 1024);
	long rss_base = rss;
	double tf = run(freq, &rss);
	printf("info --freq: %8.3f s  peak %6.1f MB   (%.1f bytes/message over plain info)\n", tf,
	       (double)rss / 1024, (double)(rss - rss_base) * 1024 / (double)n);

	bag_t *bag;
	bag_timeline_t *tl;
	if (bag_open(&bag, path, NULL) != BAG_OK || bag_timeline_open(&tl, &bag, 1) != BAG_OK)
		return 1;
	t = now();
	if (bag_timeline_load(tl, 0) != 1) {
		fprintf(stderr, "bench: %s\n", bag_timeline_error(tl)->message);
		return 1;
	}
	printf("timeline:    %8.3f s  full load in-process, %.2f bytes/message\n", now() - t,
	       (double)bag_timeline_memory(tl) / (double)bag_timeline_count(tl));
	bag_timeline_free(tl);
	bag_close(bag);
	if (!keep)
		unlink(path);
	return 0;
}
