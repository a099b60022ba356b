/*
 * frames.c - `bagscope frames`: every image message of one topic written as
 * DIR/<time_ns>.png (its record time), on the scan engine: the workers
 * decode and encode (image.h), emit writes the files in time order.
 *
 * Grey 8/16, RGB and RGBA are written in their own depth (bgr reordered,
 * bayer demosaiced, yuv converted to RGB), float images as 16-bit grey over
 * the frame's finite range; a CompressedImage png is copied byte for byte
 * and a jpeg decoded to RGB. An image that does not decode gets one warning
 * line and is skipped; the exit status stays 0 unless a chunk cannot be
 * read or a file cannot be written (1).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"

struct frames {
	struct select sel;        /* --topic (the last given), --start, --end */
	const char *topic;
	uint64_t every;           /* keep rows 0, N, 2N ... of the topic */
	const char *dir;
	bag_timeline_t *tl;
	uint64_t written, skipped;
	bool failed;
	size_t warnings;
	struct bag_text path;
};

static void usage(FILE *out)
{
	fputs("usage: bagscope frames --topic T [--start S] [--end E] [--every N] -o DIR BAG...\n"
	      "  writes each sensor_msgs/Image or CompressedImage of T as DIR/<time_ns>.png\n", out);
}

static int parse_args(int argc, char **argv, struct frames *f)
{
	static const struct option longopts[] = {
		SELECT_OPT_TOPIC, SELECT_OPT_START, SELECT_OPT_END,
		{ "every", required_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *endp;
	int opt;

	f->every = 1;
	if (select_init(&f->sel, "frames", argc) != BAG_OK)
		return -1;
	while ((opt = getopt_long(argc, argv, "t:s:e:n:o:h", longopts, NULL)) != -1) {
		if (select_option(&f->sel, opt, optarg))
			continue;
		switch (opt) {
		case 'o': f->dir = optarg; break;
		case 'n':
			errno = 0;
			f->every = isdigit((unsigned char)optarg[0]) ? strtoull(optarg, &endp, 10) : 0;
			if (f->every == 0 || *endp != '\0' || errno == ERANGE) {
				cli_error("frames: --every needs a positive count, not '%s'", optarg);
				return -1;
			}
			break;
		case 'h': usage(stdout); exit(EXIT_OK);
		default: cli_bad_option(argv); usage(stderr); return -1;
		}
	}
	f->topic = f->sel.ntopics > 0 ? f->sel.topics[f->sel.ntopics - 1] : NULL;
	if (f->topic == NULL || f->dir == NULL || optind >= argc) {
		cli_error("frames: %s", f->topic == NULL ? "--topic is required" : f->dir == NULL ? "-o DIR is required"
		                                                                                : "name a bag file");
		usage(stderr);
		return -1;
	}
	return 0;
}

/* On a worker: the PNG bytes of one image, or the reason it has none. */
static int work(void *arg, const struct bag_message *m, const bag_msgdef_t *def, struct bag_text *out)
{
	const struct frames *f = arg;
	struct bag_image img;
	struct bag_error err;
	uint8_t *png = NULL;
	size_t len = 0;
	int rc;

	if (m->row % f->every != 0)
		return 1;
	if (def == NULL) {
		bag_text_printf(out, "its definition does not parse");
		return BAG_EDEFINITION;
	}
	if ((rc = bag_image_decode(&img, def, m->data, m->size, &err)) != BAG_OK) {
		bag_text_append(out, err.message, strlen(err.message));
		return rc == BAG_ENOMEM ? rc : BAG_EDECODE;
	}
	if (img.png != NULL)
		bag_text_append(out, (const char *)img.png, img.png_len);
	else if ((rc = bag_image_png(&img, &png, &len, &err)) == BAG_OK)
		bag_text_append(out, (const char *)png, len);
	else
		bag_text_append(out, err.message, strlen(err.message));
	free(png);
	bag_image_free(&img);
	return rc == BAG_OK && out->failed ? BAG_ENOMEM : rc;
}

/* In order: write the file, or say why the frame is skipped. */
static int emit(void *arg, const struct bag_scan_item *it)
{
	struct frames *f = arg;
	const struct bag_message *m = it->m;

	cli_timeline_warnings(f->tl, &f->warnings);
	if (it->rc == BAG_EDECODE || it->rc == BAG_EDEFINITION) {
		cli_error("warning: %s at %lld.%09lld: skipped: %.*s", m->conn->topic,
		          (long long)(m->time_ns / BAG_NSEC_PER_SEC), (long long)(m->time_ns % BAG_NSEC_PER_SEC),
		          (int)it->len, it->text);
		f->skipped++;
		return 0;
	}
	if (it->rc != BAG_OK) {
		cli_error("%.*s", (int)it->len, it->text);
		f->failed = true;
		return 0;
	}
	f->path.len = 0;
	bag_text_printf(&f->path, "%s/%lld.png", f->dir, (long long)m->time_ns);
	FILE *out = fopen(f->path.p, "wb");
	if (out == NULL || fwrite(it->text, 1, it->len, out) != it->len || fclose(out) != 0) {
		cli_error("frames: cannot write %s: %s", f->path.p, strerror(errno));
		if (out != NULL)
			fclose(out);
		f->failed = true;
		return 1;
	}
	f->written++;
	return 0;
}

int cmd_frames(int argc, char **argv)
{
	struct frames f = { 0 };
	struct bagset bs = { 0 };
	struct bag_query q;
	bag_view_t *view = NULL;
	struct bag_scan_opts so = { .size = sizeof so, .work = work, .emit = emit, .arg = &f, .decode = true };
	int status = EXIT_USAGE, rc;
	size_t images = 0, conns = 0;

	if (parse_args(argc, argv, &f) != 0)
		goto done;
	status = EXIT_BAD_INPUT;
	if (bagset_open(&bs, argv + optind, (size_t)(argc - optind)) != BAG_OK)
		goto done;
	f.tl = bs.tl;
	for (size_t i = 0; i < bag_timeline_conn_count(bs.tl); i++) {
		const struct bag_connection *c = bag_timeline_conn(bs.tl, i, NULL);
		if (strcmp(c->topic, f.topic) == 0) {
			conns++;
			images += bag_image_type(c->type);
		}
	}
	if (images == 0) {
		cli_error("frames: %s %s", f.topic, conns ? "carries no sensor_msgs/Image or CompressedImage"
		                                           : "is not a topic of the bag");
		status = EXIT_USAGE;
		goto done;
	}
	if ((status = cli_select_query(&f.sel, bs.tl, &q)) != EXIT_OK)
		goto done;
	status = EXIT_BAD_INPUT;
	q.topics = &f.topic;
	q.ntopics = 1;
	q.types = (const char *const[]){ "sensor_msgs/Image", "sensor_msgs/CompressedImage" };
	q.ntypes = 2;
	if (mkdir(f.dir, 0777) != 0 && errno != EEXIST) {
		cli_error("frames: cannot create %s: %s", f.dir, strerror(errno));
		goto done;
	}
	if (bag_view_open(&view, bs.tl, &q) != BAG_OK) {
		cli_error("%s", bag_view_error(view)->message);
		goto done;
	}
	rc = bag_scan(view, &so, NULL);
	cli_timeline_warnings(bs.tl, &f.warnings);
	if (rc != BAG_OK && rc != BAG_ECANCELED) {
		cli_error("%s", rc == BAG_ENOMEM ? "out of memory" : bag_view_error(view)->message);
		goto done;
	}
	struct term_scratch sc = { 0 };
	printf("%llu frame%s written to %s", (unsigned long long)f.written, BAG_S(f.written), term_str(&sc, f.dir));
	term_scratch_free(&sc);
	if (f.skipped)
		printf(", %llu skipped", (unsigned long long)f.skipped);
	printf("\n");
	status = f.failed ? EXIT_BAD_INPUT : EXIT_OK;
done:
	bag_text_free(&f.path);
	bag_view_free(view);
	bagset_close(&bs);
	select_free(&f.sel);
	return status;
}
