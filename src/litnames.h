/*
 * litnames.h - the calls a function body names in its string literals
 * (litnames.c): SQL text it builds, for the verdicts (dynsql.c).
 */
#ifndef CGMAP_LITNAMES_H
#define CGMAP_LITNAMES_H

/* schema NULL when the call is not qualified; both live for the call only. */
typedef void (*cgm_literal_call_fn)(void *ctx, const char *schema, const char *name);

/* Call `found` for each `name(` or `schema.name(` inside a string literal
 * of `body`, names folded as PostgreSQL folds unquoted identifiers. */
void cgm_literal_calls(const char *body, cgm_literal_call_fn found, void *ctx);

#endif
