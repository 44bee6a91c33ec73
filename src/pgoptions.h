/*
 * pgoptions.h - one setting of a session's command-line options, as
 * PGOPTIONS gives them to every libpq session (pgoptions.c).
 */
#ifndef CGMAP_PGOPTIONS_H
#define CGMAP_PGOPTIONS_H

#include <stddef.h>

/* The value `options` gives setting `name` (lower case, `_` between words)
 * through `-c name=value`, `-cname=value` or `--name=value`, the last one
 * winning as it does in the server, into `value` (NUL-terminated, at most
 * `size` bytes).  Returns 1 when set, 0 when not, -1 when the value does
 * not fit (nothing usable is written then). */
int cgm_pgoptions_setting(char *value, size_t size, const char *options, const char *name);

#endif
