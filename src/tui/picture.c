/*
 * picture.c - half-block pictures (see picture.h). The 256-colour mapping
 * takes the nearer of the cube's colour and the grey ramp's by squared
 * distance, with the cube's levels 0, 95, 135, 175, 215, 255.
 */
#include <stdio.h>
#include <string.h>

#include "tui/picture.h"

void picture_fit(uint32_t iw, uint32_t ih, int cols, int rows, uint32_t *w, uint32_t *h)
{
	uint64_t pw = cols > 0 ? (uint64_t)cols : 1, ph = rows > 0 ? 2 * (uint64_t)rows : 1;

	if (iw == 0 || ih == 0) {
		*w = *h = 1;
		return;
	}
	/* the width when the height fills, else the height when the width fills */
	if (iw * ph <= pw * ih) {
		*h = (uint32_t)ph;
		*w = (uint32_t)((iw * ph + ih / 2) / ih);
	} else {
		*w = (uint32_t)pw;
		*h = (uint32_t)((ih * pw + iw / 2) / iw);
	}
	*w = *w ? *w : 1;
	*h = *h ? *h : 1;
}

static const int levels[6] = { 0, 95, 135, 175, 215, 255 };

static int cube_index(int v)
{
	return v < 48 ? 0 : v < 115 ? 1 : (v - 35) / 40;
}

int picture_256(uint8_t r, uint8_t g, uint8_t b)
{
	int ci[3] = { cube_index(r), cube_index(g), cube_index(b) };
	int cr = levels[ci[0]], cg = levels[ci[1]], cb = levels[ci[2]];
	int cd = (cr - r) * (cr - r) + (cg - g) * (cg - g) + (cb - b) * (cb - b);
	int grey = (r + g + b) / 3;
	int gi = grey < 8 ? 0 : grey > 238 ? 23 : (grey - 3) / 10;
	int gv = 8 + 10 * gi;
	int gd = (gv - r) * (gv - r) + (gv - g) * (gv - g) + (gv - b) * (gv - b);

	return gd < cd ? 232 + gi : 16 + 36 * ci[0] + 6 * ci[1] + ci[2];
}

/* Append an SGR colour: 38 (foreground) or 48 (background). */
static void sgr(struct bag_text *out, int which, const uint8_t *p, bool truecolor)
{
	char buf[32];
	int n = truecolor ? snprintf(buf, sizeof buf, "\033[%d;2;%u;%u;%um", which, p[0], p[1], p[2])
	                  : snprintf(buf, sizeof buf, "\033[%d;5;%dm", which, picture_256(p[0], p[1], p[2]));
	bag_text_append(out, buf, (size_t)n);
}

void picture_ansi(struct bag_text *out, const uint8_t *rgb, uint32_t w, uint32_t h, int y, int x, bool truecolor)
{
	char buf[32];

	for (uint32_t row = 0; row < (h + 1) / 2; row++) {
		const uint8_t *top = rgb + (size_t)(2 * row) * w * 3;
		const uint8_t *bot = 2 * row + 1 < h ? top + (size_t)w * 3 : NULL;
		uint8_t fg[3] = { 0 }, bg[3] = { 0 };
		bool have_fg = false, have_bg = false;
		int n = snprintf(buf, sizeof buf, "\033[0m\033[%d;%dH", y + (int)row + 1, x + 1);
		bag_text_append(out, buf, (size_t)n);
		for (uint32_t col = 0; col < w; col++) {
			const uint8_t *t = top + 3 * col;
			if (!have_fg || memcmp(fg, t, 3) != 0) {
				sgr(out, 38, t, truecolor);
				memcpy(fg, t, 3);
				have_fg = true;
			}
			if (bot != NULL && (!have_bg || memcmp(bg, bot + 3 * col, 3) != 0)) {
				sgr(out, 48, bot + 3 * col, truecolor);
				memcpy(bg, bot + 3 * col, 3);
				have_bg = true;
			}
			bag_text_append(out, "\xE2\x96\x80", 3);
		}
	}
	bag_text_append(out, "\033[0m", 4);
}
