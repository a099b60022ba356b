/*
 * timeline-int.h - the timeline's insides, shared by timeline.c (building
 * and loading it) and view.c (views over it). Never installed.
 */
#ifndef BAGSCOPE_TIMELINE_INT_H
#define BAGSCOPE_TIMELINE_INT_H

#include <bagscope/view.h>
#include "lib/formats/bag-int.h"
#include "lib/index/entries-int.h"

struct tl_chunk {
	uint32_t bag;     /* index into tl->bags */
	uint32_t chunk;   /* index into that bag's chunks */
	bool walk;        /* entries come from its data: its index data disagreed */
	bool checked;     /* its index entries were compared with its data */
	uint32_t nents;   /* entries its index data gave, and */
	uint64_t sum;     /* their entry_mix() sum, for that comparison */
};

struct tl_ref {
	uint32_t tchunk;  /* index into tl->chunks */
	uint32_t conn;    /* timeline connection index */
};

struct tl_entry {
	int64_t time_ns;
	uint32_t offset;  /* record offset in the decompressed chunk */
	uint32_t ref;     /* index into the group's refs */
};

struct tl_group {
	uint64_t first_row;       /* first timeline row */
	uint64_t count;           /* rows: the chunk infos' count, then what was loaded */
	uint32_t gen;             /* bumped at each load: views' selections are of one */
	int64_t start_ns;         /* min start over its chunks */
	int64_t end_ns;           /* max end over its chunks */
	uint32_t tchunk_first;    /* its chunks in tl->chunks */
	uint32_t tchunk_n;
	struct tl_entry *entries; /* NULL until loaded */
	struct tl_ref *refs;
	uint32_t nrefs;
};

struct bag_timeline {
	bag_t **bags;
	size_t nbags;
	size_t *conn_base;        /* first timeline connection of each bag */
	size_t nconns;
	struct tl_chunk *chunks;  /* sorted by start time */
	size_t nchunks;
	struct tl_group *groups;
	size_t ngroups;
	uint64_t count;
	uint64_t loaded_rows;
	size_t loaded_groups;
	size_t next_load;         /* bag_timeline_load() resumes here */
	struct chunk_entries ents;      /* one chunk's entries while a group loads */
	char **warnings;          /* index damage worked around, at most BAG_WARNINGS_MAX */
	size_t nwarnings;         /* all of them, kept or not */
	struct bag_error err;      /* the last failure (common.h) */
};

/*
 * Keep a warning on the timeline (chunks worked around while loading).
 * Returns 0 or BAG_ENOMEM.
 */
int tl_warn(bag_timeline_t *tl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Read and order group gi's entries (no-op when loaded). */
int tl_group_load(bag_timeline_t *tl, size_t gi);

/* Free a group's entries (they are read again when needed). */
void tl_group_unload(struct tl_group *g);

#endif
