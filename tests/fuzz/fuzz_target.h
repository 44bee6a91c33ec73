/*
 * fuzz_target.h - the fuzz targets of cgmap's readers of untrusted
 * input, shared by the libFuzzer entry point (libfuzzer_main.c, clang) and
 * the deterministic mutation driver ctest runs (mutate.c, any compiler).
 *
 * In:  one input (bytes, any content).
 * Out: 0; a failed property aborts (what cgmap writes it must read back).
 *      Everything allocated is freed before returning: the sanitizers'
 *      leak checker sees a leak of any error path.
 */
#ifndef CGMAP_FUZZ_TARGET_H
#define CGMAP_FUZZ_TARGET_H

#include <stddef.h>
#include <stdint.h>

/* The input as a SQL file: applied, extracted, resolved, written as a
 * snapshot and read back. */
int cgm_fuzz_sqlfile(const uint8_t *data, size_t size);
/* The input as a snapshot: read; when it reads, written and read back. */
int cgm_fuzz_snapshot(const uint8_t *data, size_t size);
/* The input as a function body: its extraction kept in a parse cache,
 * fetched back and kept again to the same bytes; then fetched from a
 * damaged record. */
int cgm_fuzz_bodies(const uint8_t *data, size_t size);

/* A file of this process for the input (TMPDIR), written whole; its path
 * lives until exit. */
const char *cgm_fuzz_file(const char *suffix, const uint8_t *data, size_t size);

#endif
