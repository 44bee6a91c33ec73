/*
 * cgmap/intern.h - one copy of each distinct string.
 *
 * In:  strings to keep (any lifetime).  Out: a copy in the arena the table
 *      was made with, the same pointer for equal strings, valid until that
 *      arena is freed.  The table itself is heap memory freed by
 *      cgm_intern_free (the copies stay with the arena).
 * Threads: one table per thread; tables may share nothing but their arena's
 *      owner (each thread interns into its own arena).
 *
 * Call sites repeat the same few names, types and statement kinds hundreds
 * of thousands of times, and the same argument lists ({"integer"}, {NULL});
 * resolution keeps one copy of each per thread.
 */
#ifndef CGMAP_INTERN_H
#define CGMAP_INTERN_H

#include <stddef.h>

#include "cgmap/arena.h"

typedef struct cgm_intern cgm_intern;

cgm_intern *cgm_intern_new(cgm_arena *arena);
void cgm_intern_free(cgm_intern *table);
/* The kept copy of s (NULL stays NULL). */
const char *cgm_intern_str(cgm_intern *table, const char *s);
/* The same for the len bytes at s (a reader that has just decoded a string
 * knows its length: no strlen). */
const char *cgm_intern_strn(cgm_intern *table, const char *s, size_t len);
/* The kept copy of an array of n strings (NULL stays NULL), each string
 * interned: equal arrays share one copy, which must never be written to.
 * An empty array is a kept array too (not NULL). */
const char **cgm_intern_strs(cgm_intern *table, const char *const *v, int n);
/* Distinct strings kept, for the benchmarks and tests. */
size_t cgm_intern_count(const cgm_intern *table);

#endif
