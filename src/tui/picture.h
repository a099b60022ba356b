/*
 * picture.h - pictures in a terminal with half-block cells, curses-free:
 * each cell is an upper half block (U+2580) whose foreground is the upper
 * pixel and background the lower one, so a cell holds two square-ish pixels.
 * The fit keeps the aspect; colours are 24-bit SGR sequences or the nearest
 * of xterm's 256.
 */
#ifndef BAGSCOPE_TUI_PICTURE_H
#define BAGSCOPE_TUI_PICTURE_H

#include <stdbool.h>
#include <stdint.h>

#include <bagscope/print.h>

/*
 * The largest w x h (pixels) that an image of iw x ih fits into cols x rows
 * cells (2 pixels per cell vertically) with its aspect kept; at least 1 x 1.
 */
void picture_fit(uint32_t iw, uint32_t ih, int cols, int rows, uint32_t *w, uint32_t *h);

/* The xterm 256-colour index nearest to r, g, b (the 6x6x6 cube or the grey ramp). */
int picture_256(uint8_t r, uint8_t g, uint8_t b);

/*
 * Append the escape sequences that draw rgb (w x h pixels, 3 bytes each)
 * with its top-left cell at screen row y, column x (0-based): a cursor move
 * per cell row, SGR colours only where they change (38;2/48;2, or 38;5/48;5
 * when truecolor is false), an upper half block per cell, and a reset. An
 * odd last pixel row gets the terminal's default background below it.
 */
void picture_ansi(struct bag_text *out, const uint8_t *rgb, uint32_t w, uint32_t h, int y, int x, bool truecolor);

#endif
