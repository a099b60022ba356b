/*
 * outfile-int.h - the file a writer produces (write.c's bags, mcap.c's MCAP
 * files): created as PATH.tmp-XXXXXX beside its target, written through a
 * large stdio buffer that counts the position (and, when asked, keeps a
 * running CRC-32 of what was written), then synced and put in place by a
 * rename (or a link, when an existing file must not be replaced). A file
 * that is not finished is removed. Never installed.
 *
 * Errors go into the writer's struct bag_error, naming the target first:
 * "PATH: cannot write PATH.tmp-XXXXXX: No space left on device".
 */
#ifndef BAGSCOPE_OUTFILE_INT_H
#define BAGSCOPE_OUTFILE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct outfile {
	char *path;               /* the target (borrowed from the writer) */
	char *tmp_path;           /* the file being written; NULL until created */
	FILE *f;
	uint64_t pos;             /* bytes written (the file offset) */
	bool crc_on;              /* keep crc of every byte written */
	uint32_t crc;
	bool placed;              /* outfile_place() succeeded */
};

/* Create path's temporary file (mode 0666 less the umask). 0, BAG_EIO or BAG_ENOMEM. */
int outfile_create(struct outfile *o, const char *path, struct bag_error *err);

/* Append n bytes. 0 or BAG_EIO. */
int outfile_write(struct outfile *o, const void *p, size_t n, struct bag_error *err);

/*
 * Flush, fsync and close the file, then rename it onto path, or with
 * no_replace link it there (BAG_EIO, "exists", when path exists) and drop
 * the temporary name. 0 or BAG_EIO.
 */
int outfile_place(struct outfile *o, bool no_replace, struct bag_error *err);

/* Close; remove the temporary file unless placed; free. Accepts a zeroed outfile. */
void outfile_close(struct outfile *o);

#endif
