/*
 * rosbag2-int.h - what a rosbag2 recording's metadata.yaml says of one of
 * its storage files (rosbag2.c), for the readers of those files (db3-read.c).
 * Never installed.
 */
#ifndef BAGSCOPE_ROSBAG2_INT_H
#define BAGSCOPE_ROSBAG2_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One entry of topics_with_message_count. */
struct r2_topic {
	char *name;               /* topic_metadata's name */
	uint64_t count;           /* its message_count (over the whole recording) */
};

/* metadata.yaml as far as it concerns one storage file. */
struct r2_meta {
	bool found;               /* a metadata.yaml beside the file names it */
	bool whole;               /* the file is the recording's only one: topics' counts are its own */
	bool has_count;           /* count, start_ns and duration_ns are the file's */
	uint64_t count;           /* its message_count (files: entry, or the whole recording's) */
	int64_t start_ns;         /* starting_time */
	int64_t duration_ns;      /* duration */
	struct r2_topic *topics;  /* topics_with_message_count, in file order */
	size_t ntopics;
	char mode[16];            /* compression_mode: "", "MESSAGE" or "FILE" */
	char format[16];          /* compression_format: "", "zstd" */
};

/*
 * Read the metadata.yaml in the directory of the storage file at path (any
 * of its names: "x.db3" or "x.db3.zstd") into *m, which the caller frees
 * with r2_meta_free() whatever the result. No metadata.yaml, or one that
 * does not name the file, leaves m->found false. Returns 0 or BAG_ENOMEM.
 */
int r2_meta_read(const char *path, struct r2_meta *m);

void r2_meta_free(struct r2_meta *m);

#endif
