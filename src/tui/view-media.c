/*
 * view-media.c - the detail pane's pictures (see media.h).
 *
 * The selection's bytes (from the worker, app->sel) are decoded
 * once per message (image.h, cloud.h) and kept with the picture scaled to
 * the pane, so redraws cost nothing until the message or the pane changes.
 *
 * Colours: with COLORTERM=truecolor or 24bit, the picture is written as
 * 24-bit SGR half blocks straight to the terminal after curses' refresh
 * (media_flush), inside a cursor save/restore; curses holds blanks there and
 * never touches those cells unless something is drawn over them (the help
 * screen, a resize), after which the picture is written again. Otherwise the
 * cells go through curses with the nearest of the 256 colours, one extended
 * colour pair per (upper, lower) pair of colours, allocated from PAIR_BASE
 * up and recycled when the terminal's pairs run out.
 */
#define _GNU_SOURCE
#include "tui/draw.h"   /* curses, wide characters */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tui/media.h"
#include "tui/picture.h"

#define PAIR_BASE 64
#define PAIR_SLOTS 8192

enum kind { K_NONE, K_IMAGE, K_CLOUD, K_ERROR };

struct media {
	const uint8_t *bytes;          /* the detail bytes decoded (identity) */
	uint64_t row;
	enum kind kind;
	char what[256];                /* caption, or the error */
	struct bag_image img;
	struct bag_cloud cloud;
	uint8_t *rgb;                  /* the picture scaled for rect */
	uint32_t pw, ph;
	struct rect at;                /* where it was scaled for */
	double ms;                     /* decode + scale + colours, last time it was made */
	bool truecolor;
	struct bag_text esc;           /* 24-bit: the sequences to write */
	bool pending;                  /* esc waits for media_flush */
	bool drawn;                    /* the pane drew the picture since the last flush */
	struct rect pic;               /* the cells the picture covers */
	bool shown;                    /* a 24-bit picture is on the terminal, at shown_at */
	struct rect shown_at;
	int pair_next;
	struct { uint16_t fg, bg; int pair; } slots[PAIR_SLOTS];   /* (fg, bg) -> pair, open addressing */
};

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static struct media *media_get(struct media **mdp)
{
	if (*mdp == NULL && (*mdp = calloc(1, sizeof **mdp)) != NULL) {
		const char *ct = getenv("COLORTERM");
		(*mdp)->truecolor = ct != NULL && (strcmp(ct, "truecolor") == 0 || strcmp(ct, "24bit") == 0);
		(*mdp)->pair_next = PAIR_BASE;
	}
	return *mdp;
}

static void media_reset(struct media *md)
{
	bag_image_free(&md->img);
	bag_cloud_free(&md->cloud);
	free(md->rgb);
	md->rgb = NULL;
	md->kind = K_NONE;
	md->at = (struct rect){ 0, 0, 0, 0 };
}

/* Decode the selection's bytes if they are new. */
static void load(struct app *app, struct media *md, const struct bag_message *msg)
{
	struct bag_error err;

	if (md->bytes == app->sel.bytes && md->row == msg->row && md->kind != K_NONE)
		return;
	media_reset(md);
	md->bytes = app->sel.bytes;
	md->row = msg->row;
	bag_msgdef_t *def = app_def(app, msg->conn_index);
	double t0 = now_ms();
	if (bag_image_type(msg->conn->type)) {
		if (bag_image_decode(&md->img, def, app->sel.bytes, app->sel.size, &err) == BAG_OK) {
			md->kind = K_IMAGE;
			snprintf(md->what, sizeof md->what, "image %ux%u %s", md->img.width, md->img.height, md->img.encoding);
		} else {
			md->kind = K_ERROR;
			snprintf(md->what, sizeof md->what, "cannot show this image: %.200s", err.message);
		}
	} else if (bag_cloud_decode(&md->cloud, def, app->sel.bytes, app->sel.size, &err) == BAG_OK) {
		md->kind = K_CLOUD;
	} else {
		md->kind = K_ERROR;
		snprintf(md->what, sizeof md->what, "cannot read this point cloud: %.200s", err.message);
	}
	md->ms = now_ms() - t0;
}

/* An extended pair for (fg, bg) of the 256 colours. */
static int pair_for(struct media *md, int fg, int bg)
{
	size_t h = ((size_t)fg * 257 + (size_t)bg) % PAIR_SLOTS;

	for (;;) {
		if (md->slots[h].pair == 0)
			break;
		if (md->slots[h].fg == fg && md->slots[h].bg == bg)
			return md->slots[h].pair;
		h = (h + 1) % PAIR_SLOTS;
	}
	if (md->pair_next >= COLOR_PAIRS || md->pair_next >= PAIR_BASE + PAIR_SLOTS * 3 / 4) {
		/* out of pairs: start over (cells on screen with old pairs are redrawn by curses) */
		memset(md->slots, 0, sizeof md->slots);
		md->pair_next = PAIR_BASE;
		h = ((size_t)fg * 257 + (size_t)bg) % PAIR_SLOTS;
	}
	int p = md->pair_next++;
	init_extended_pair(p, fg, bg);
	md->slots[h].fg = (uint16_t)fg;
	md->slots[h].bg = (uint16_t)bg;
	md->slots[h].pair = p;
	return p;
}

/* The picture rgb (w x h) at (y, x): through curses in 256 colours, or queued as 24-bit. */
static void put_picture(struct app *app, struct media *md, struct rect area, const uint8_t *rgb, uint32_t w,
                        uint32_t h, bool fresh)
{
	int x0 = area.x + (area.w - (int)w) / 2, y0 = area.y;

	for (int y = area.y; y < area.y + area.h; y++)
		draw_put(y, area.x, area.w, "");
	if (md->truecolor || !app->colour || COLORS < 256) {
		if (!md->truecolor) {
			/* no colour: a grey ramp of shades */
			static const char *const shade[] = { " ", "\xE2\x96\x91", "\xE2\x96\x92", "\xE2\x96\x93", "\xE2\x96\x88" };
			for (uint32_t r = 0; r < (h + 1) / 2; r++) {
				move(y0 + (int)r, x0);
				for (uint32_t c = 0; c < w; c++) {
					const uint8_t *p = rgb + ((size_t)(2 * r) * w + c) * 3;
					int level = (p[0] + p[1] + p[2]) * 5 / 766;
					if (app->utf8)
						addstr(shade[level]);
					else
						addch((chtype)" .:#@"[level]);
				}
			}
			return;
		}
		md->drawn = true;
		md->pic = (struct rect){ y0, x0, (int)(h + 1) / 2, (int)w };
		if (fresh) {
			md->esc.len = 0;
			bag_text_append(&md->esc, "\0337", 2);
			picture_ansi(&md->esc, rgb, w, h, y0, x0, true);
			bag_text_append(&md->esc, "\0338", 2);
		}
		md->pending = md->pending || fresh || !md->shown;
		return;
	}
	for (uint32_t r = 0; r < (h + 1) / 2; r++) {
		for (uint32_t c = 0; c < w; c++) {
			const uint8_t *t = rgb + ((size_t)(2 * r) * w + c) * 3;
			const uint8_t *b = 2 * r + 1 < h ? t + (size_t)w * 3 : NULL;
			int fg = picture_256(t[0], t[1], t[2]), bg = b ? picture_256(b[0], b[1], b[2]) : -1;
			int pair = pair_for(md, fg, bg);
			cchar_t cc;
			setcchar(&cc, L"\u2580", A_NORMAL, 0, &pair);
			mvadd_wch(y0 + (int)r, x0 + (int)c, &cc);
		}
	}
}

/* An image: the caption and the picture, scaled for the pane once. */
static void draw_image(struct app *app, struct media *md, struct rect r)
{
	struct rect area = { r.y + 1, r.x, r.h - 1, r.w };
	bool fresh = false;
	char title[400];

	if (area.h < 1 || area.w < 1)
		return;
	if (md->rgb == NULL || memcmp(&md->at, &area, sizeof area) != 0) {
		double t0 = now_ms();
		free(md->rgb);
		picture_fit(md->img.width, md->img.height, area.w, area.h, &md->pw, &md->ph);
		md->rgb = malloc((size_t)md->pw * md->ph * 3);
		if (md->rgb == NULL || bag_image_to_rgb(&md->img, md->pw, md->ph, md->rgb) != BAG_OK) {
			free(md->rgb);
			md->rgb = NULL;
			return;
		}
		md->at = area;
		fresh = true;
		md->ms += now_ms() - t0;
	}
	double t0 = now_ms();
	put_picture(app, md, area, md->rgb, md->pw, md->ph, fresh);
	if (fresh)
		md->ms += now_ms() - t0;
	snprintf(title, sizeof title, ": %s  %ux%u cells  %s  %.1f ms   [v] mode", md->what, md->pw,
	         (md->ph + 1) / 2, md->truecolor ? "24-bit" : app->colour && COLORS >= 256 ? "256 colours" : "shades",
	         md->ms);
	draw_pane_title(app, &app->panes[PANE_DETAIL], title);
}

/* A short number for the cloud's tables. */
static void num(char *buf, size_t cap, double v)
{
	if (isnan(v))
		snprintf(buf, cap, "nan");
	else if (v != 0 && (fabs(v) >= 1e6 || fabs(v) < 1e-3))
		snprintf(buf, cap, "%.3e", v);
	else
		snprintf(buf, cap, "%.3f", v);
}

/* A point cloud: facts, the field table, the first points, a top-down density picture. */
/* The cloud's facts and its fields' table; returns the next free row. */
static int cloud_facts(struct app *app, const struct bag_cloud *c, struct rect r)
{
	char line[1024], a[32], b[32];
	int y = r.y + 1, end = r.y + r.h;

	draw_pane_title(app, &app->panes[PANE_DETAIL], ": point cloud   [v] mode");
	for (int row = y; row < end; row++)
		draw_put(row, r.x, r.w, "");
	snprintf(line, sizeof line, " %llu points (%u x %u)  %s-endian  dense %s", (unsigned long long)c->points,
	         c->height, c->width, c->is_bigendian ? "big" : "little", c->is_dense ? "yes" : "no");
	if (y < end)
		draw_put(y++, r.x, r.w, line);
	snprintf(line, sizeof line, " point_step %u  row_step %u  %zu field%s", c->point_step, c->row_step, c->nfields,
	         BAG_S(c->nfields));
	if (y < end)
		draw_put(y++, r.x, r.w, line);
	if (y < end)
		draw_put(y++, r.x, r.w, " field        type    offset count       min       max   NaN");
	for (size_t i = 0; i < c->nfields && y < end; i++) {
		const struct bag_cloud_field *f = &c->fields[i];
		num(a, sizeof a, f->min);
		num(b, sizeof b, f->max);
		snprintf(line, sizeof line, " %-12.12s %-7s %6u %5u %9s %9s %5llu%s", f->name, bag_cloud_type_name(f->datatype),
		         f->offset, f->count, f->summarised ? a : "-", f->summarised ? b : "-", (unsigned long long)f->nan,
		         f->readable ? "" : "  (unreadable)");
		draw_put(y++, r.x, r.w, line);
	}
	return y;
}

/* The first points, x, y, z first, then the other fields; returns the next free row. */
static int cloud_points(const struct bag_cloud *c, struct rect r, int y)
{
	char line[1024], a[32];
	int end = r.y + r.h;

	int order[16], n = 0;
	int xyz[3] = { c->x, c->y, c->z };
	for (int k = 0; k < 3; k++)
		if (xyz[k] >= 0)
			order[n++] = xyz[k];
	for (size_t i = 0; i < c->nfields && n < 16; i++)
		if ((int)i != c->x && (int)i != c->y && (int)i != c->z && c->fields[i].readable)
			order[n++] = (int)i;
	int rows = (end - y) / 2 > 8 ? 8 : (end - y) / 2;
	if (rows > 0 && y < end) {
		int len = snprintf(line, sizeof line, " %-5s", "point");
		for (int k = 0; k < n && len < (int)sizeof line - 12; k++)
			len += snprintf(line + len, sizeof line - (size_t)len, " %9.9s", c->fields[order[k]].name);
		draw_put(y++, r.x, r.w, line);
	}
	for (int p = 0; p < rows - 1 && (uint64_t)p < c->points && y < end; p++) {
		int len = snprintf(line, sizeof line, " %-5d", p);
		for (int k = 0; k < n && len < (int)sizeof line - 12; k++) {
			num(a, sizeof a, bag_cloud_value(c, (uint64_t)p, (size_t)order[k], 0));
			len += snprintf(line + len, sizeof line - (size_t)len, " %9s", a);
		}
		draw_put(y++, r.x, r.w, line);
	}
	return y;
}

/* A top-down density picture of x and y from row y: x to the right, y up, aspect kept, shades by count. */
static void cloud_topdown(struct app *app, const struct bag_cloud *c, struct rect r, int y)
{
	char line[1024], a[32], b[32];
	int end = r.y + r.h;

	const struct bag_cloud_field *fx = &c->fields[c->x], *fy = &c->fields[c->y];
	if (!(fx->min <= fx->max && fy->min <= fy->max))
		return;
	num(a, sizeof a, fx->max - fx->min);
	num(b, sizeof b, fy->max - fy->min);
	snprintf(line, sizeof line, " top-down: x right (%s m), y up (%s m)", a, b);
	draw_put(y++, r.x, r.w, line);
	int rows_avail = end - y, cols_avail = r.w - 2;
	uint32_t pw, ph;
	double sx = fx->max - fx->min, sy = fy->max - fy->min;
	/* a cell is about twice as tall as wide: fit (sx, sy) into cols x 2 rows units */
	picture_fit(sx > 0 ? (uint32_t)(1000 * (sx > sy ? 1 : sx / (sy > 0 ? sy : 1))) + 1 : 1,
	            sy > 0 ? (uint32_t)(1000 * (sy > sx ? 1 : sy / (sx > 0 ? sx : 1))) + 1 : 1, cols_avail, rows_avail,
	            &pw, &ph);
	int gw = (int)pw, gh = (int)(ph + 1) / 2;
	uint32_t *bins = calloc((size_t)gw * (size_t)gh, sizeof *bins);
	uint32_t max = 0;
	if (bins == NULL)
		return;
	for (uint64_t p = 0; p < c->points; p++) {
		double vx = bag_cloud_value(c, p, (size_t)c->x, 0), vy = bag_cloud_value(c, p, (size_t)c->y, 0);
		if (!isfinite(vx) || !isfinite(vy))
			continue;
		int cx = sx > 0 ? (int)((vx - fx->min) / sx * (gw - 1) + 0.5) : gw / 2;
		int cy = sy > 0 ? (int)((fy->max - vy) / sy * (gh - 1) + 0.5) : gh / 2;
		uint32_t *bin = &bins[cy * gw + cx];
		if (++*bin > max)
			max = *bin;
	}
	static const char *const shade[] = { " ", "\xC2\xB7", "\xE2\x96\x91", "\xE2\x96\x92", "\xE2\x96\x93", "\xE2\x96\x88" };
	for (int gy = 0; gy < gh && y < end; gy++, y++) {
		struct bag_text t = { 0 };
		bag_text_append(&t, " ", 1);
		for (int gx = 0; gx < gw; gx++) {
			uint32_t v = bins[gy * gw + gx];
			int level = v == 0 ? 0 : 1 + (int)((double)v / max * 4.999);
			const char *s = app->utf8 ? shade[level] : &" .:-=#"[level];
			bag_text_append(&t, s, app->utf8 ? strlen(s) : 1);
		}
		draw_put(y, r.x, r.w, t.p);
		bag_text_free(&t);
	}
	free(bins);
}

static void draw_cloud(struct app *app, struct media *md, struct rect r)
{
	const struct bag_cloud *c = &md->cloud;
	int y = cloud_points(c, r, cloud_facts(app, c, r));

	if (c->x >= 0 && c->y >= 0 && r.y + r.h - y >= 3)
		cloud_topdown(app, c, r, y);
}

bool media_draw(struct app *app, struct media **mdp, struct rect r)
{
	struct bag_message msg;
	struct media *md;

	if (app->m.detail != DETAIL_DECODED || app->sel.bytes == NULL || bag_view_count(app->m.view) == 0 ||
	    bag_view_entry(app->m.view, app->m.row, &msg) != BAG_OK)
		return false;
	if (!bag_image_type(msg.conn->type) && strcmp(msg.conn->type, "sensor_msgs/PointCloud2") != 0)
		return false;
	if ((md = media_get(mdp)) == NULL)
		return false;
	load(app, md, &msg);
	switch (md->kind) {
	case K_IMAGE: draw_image(app, md, r); break;
	case K_CLOUD: draw_cloud(app, md, r); break;
	default:
		draw_pane_title(app, &app->panes[PANE_DETAIL], ": decoded   [v] mode");
		for (int y = r.y + 1; y < r.y + r.h; y++)
			draw_put(y, r.x, r.w, "");
		/* the reason, wrapped at spaces to the pane's width */
		draw_colour_on(app, C_ERROR, 0);
		const char *s = md->what;
		for (int y = r.y + 1; *s && y < r.y + r.h && r.w > 2; y++) {
			char line[256];
			size_t n = strlen(s), max = (size_t)r.w - 2 < sizeof line - 1 ? (size_t)r.w - 2 : sizeof line - 1;
			if (n > max) {
				n = max;
				while (n > max / 2 && s[n] != ' ')
					n--;
			}
			snprintf(line, sizeof line, " %.*s", (int)n, s);
			draw_put(y, r.x, r.w, line);
			s += n;
			while (*s == ' ')
				s++;
		}
		draw_colour_off(app, C_ERROR, 0);
		break;
	}
	return true;
}

void media_flush(struct app *app, struct media *md, bool covered)
{
	bool drawn;

	if (md == NULL || !md->truecolor)
		return;
	drawn = md->drawn;
	md->drawn = false;
	/*
	 * A picture curses does not know of stays on the terminal until those
	 * cells are repainted: when it is to go (covered, another message, a
	 * new picture), have curses repaint its lines first.
	 */
	if (md->shown && (!drawn || (md->pending && memcmp(&md->shown_at, &md->pic, sizeof md->pic) != 0))) {
		if (covered || app->too_small)
			redrawwin(stdscr);
		else
			wredrawln(stdscr, md->shown_at.y, md->shown_at.h);
		refresh();
		md->shown = false;
	}
	if (!drawn || md->esc.len == 0 || (md->shown && !md->pending))
		return;
	for (size_t done = 0; done < md->esc.len;) {
		ssize_t n = write(STDOUT_FILENO, md->esc.p + done, md->esc.len - done);
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	md->pending = false;
	md->shown = true;
	md->shown_at = md->pic;
}

void media_free(struct media *md)
{
	if (md == NULL)
		return;
	media_reset(md);
	bag_text_free(&md->esc);
	free(md);
}
