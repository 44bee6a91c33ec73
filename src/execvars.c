/*
 * execvars.c - the constant SQL a PL/pgSQL function's variables can hold
 * (see execvars.h).  A hash table of names, in the caller's arena.
 */
#include "execvars.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "cgmap/hash.h"

typedef struct exec_var {
	char *name;              /* case-folded as PostgreSQL folds an unquoted name */
	const char **constants;
	int n, cap;
	bool unknown;
} exec_var;

struct cgm_exec_vars {
	cgm_arena *arena;
	exec_var *slots;
	int nslots; /* a power of two */
	int used;
};

cgm_exec_vars *cgm_exec_vars_new(cgm_arena *arena)
{
	cgm_exec_vars *v = cgm_arena_alloc(arena, sizeof *v);
	v->arena = arena;
	v->nslots = 16;
	v->slots = cgm_arena_alloc(arena, sizeof(exec_var) * (size_t)v->nslots);
	return v;
}

static char *fold(cgm_arena *arena, const char *s, size_t len)
{
	char *out = cgm_arena_strndup(arena, s, len);
	for (char *p = out; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return out;
}

static uint64_t name_hash(const char *name)
{
	return cgm_fnv1a(name);
}

static exec_var *find(const cgm_exec_vars *v, const char *name)
{
	uint64_t mask = (uint64_t)v->nslots - 1;
	for (uint64_t i = name_hash(name) & mask;; i = (i + 1) & mask) {
		exec_var *s = &v->slots[i];
		if (!s->name || strcmp(s->name, name) == 0)
			return s;
	}
}

static void grow(cgm_exec_vars *v)
{
	exec_var *old = v->slots;
	int nold = v->nslots;
	v->nslots *= 2;
	v->slots = cgm_arena_alloc(v->arena, sizeof(exec_var) * (size_t)v->nslots);
	for (int i = 0; i < nold; i++)
		if (old[i].name)
			*find(v, old[i].name) = old[i];
}

void cgm_exec_vars_set(cgm_exec_vars *v, const char *name, const char *constant)
{
	if (!name)
		return;
	/* Declared names reach here as PostgreSQL stores them: folded, or
	 * as quoted.  Folding again makes "Q" and q one variable: never a
	 * constant where either is not. */
	char *key = fold(v->arena, name, strlen(name));
	if ((v->used + 1) * 2 > v->nslots)
		grow(v);
	exec_var *s = find(v, key);
	if (!s->name) {
		s->name = key;
		v->used++;
	}
	if (s->unknown)
		return;
	if (!constant) {
		s->unknown = true;
		return;
	}
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->constants[i], constant) == 0)
			return;
	if (s->n == s->cap) {
		int cap = s->cap ? s->cap * 2 : 2;
		s->constants = cgm_arena_grow(v->arena, s->constants, (size_t)s->n, (size_t)cap,
					      sizeof(*s->constants));
		s->cap = cap;
	}
	s->constants[s->n++] = constant;
}

bool cgm_exec_vars_name(char *key, const char *expr)
{
	if (!expr)
		return false;
	/* The name alone, in brackets or not: anything more is an expression
	 * whose value the table does not know. */
	const char *p = expr, *end = expr + strlen(expr);
	while (p < end && (isspace((unsigned char)*p) || *p == '('))
		p++;
	while (end > p && (isspace((unsigned char)end[-1]) || end[-1] == ')'))
		end--;
	if (p >= end)
		return false;
	size_t open = 0, close = 0;
	for (const char *q = expr; q < p; q++)
		open += *q == '(';
	for (const char *q = end; *q; q++)
		close += *q == ')';
	if (open != close)
		return false;
	size_t len = (size_t)(end - p);
	if (*p == '"') {
		if (len < 3 || end[-1] != '"' || len - 2 >= CGM_EXEC_VAR_KEY)
			return false;
		for (const char *q = p + 1; q < end - 1; q++)
			if (*q == '"')
				return false; /* "a""b" or "a"."b": not one plain name */
		memcpy(key, p + 1, len - 2);
		key[len - 2] = '\0';
		for (char *k = key; *k; k++)
			*k = (char)tolower((unsigned char)*k);
		return true;
	}
	if (len >= CGM_EXEC_VAR_KEY ||
	    !(isalpha((unsigned char)*p) || *p == '_' || (unsigned char)*p >= 0x80))
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)p[i];
		if (!(isalnum(c) || c == '_' || c == '$' || c >= 0x80))
			return false;
		key[i] = (char)tolower(c);
	}
	key[len] = '\0';
	return true;
}

int cgm_exec_vars_lookup(const cgm_exec_vars *v, const char *expr, const char *const **constants)
{
	*constants = NULL;
	char key[CGM_EXEC_VAR_KEY];
	if (!v || !cgm_exec_vars_name(key, expr))
		return 0;
	const exec_var *s = find(v, key);
	if (!s->name || s->unknown || s->n == 0)
		return 0;
	*constants = s->constants;
	return s->n;
}
