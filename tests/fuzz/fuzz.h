/*
 * fuzz.h - what the fuzz targets share: the libFuzzer entry point's
 * prototype. Each target is built twice: with libFuzzer (./configure
 * --enable-fuzzing, `make fuzz`) and with replay.c's main(), which feeds it
 * the files of its corpus and its kept crashes under `make check`.
 */
#ifndef BAGSCOPE_FUZZ_H
#define BAGSCOPE_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
