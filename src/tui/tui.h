/* tui.h - the browser's entry point, all that the command line needs of it. */
#ifndef BAGSCOPE_TUI_TUI_H
#define BAGSCOPE_TUI_TUI_H

#include <stddef.h>

/* Run the browser over bags at paths; returns an exit status. */
int tui_run(char *const *paths, size_t n);

#endif
