/*
 * fuzz-mcap.c - the MCAP reader: fuzz-open.c's whole-file run (open, every
 * message through a view, check) on the MCAP magic followed by the input.
 */
#define FUZZ_PREFIX "\x89MCAP0\r\n"
#include "fuzz-open.c"
