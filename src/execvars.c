/*
 * execvars.c - the constant SQL a PL/pgSQL function's variables can hold
 * (see execvars.h).  A hash table of names, in the caller's arena.
 */
#include "execvars.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "cgmap/hash.h"

/* One value a variable is given: where (a step of the body's walk, or
 * CGM_EXEC_VARS_ENTRY: its declaration's default, a parameter's value),
 * and the constant SQL it is, or NULL. */
typedef struct given_value {
	int at;
	const char *constant;
} given_value;

typedef struct exec_var {
	char *name;              /* case-folded as PostgreSQL folds an unquoted name */
	given_value *given;      /* in the order they were set */
	int n, cap;
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

void cgm_exec_vars_set(cgm_exec_vars *v, const char *name, int at, const char *constant)
{
	/* Declared names reach here as PostgreSQL stores them: folded, or
	 * as quoted.  Folding again makes "Q" and q one variable: never a
	 * constant where either is not. */
	char key[CGM_EXEC_VAR_KEY];
	size_t len = name ? strlen(name) : 0;
	if (!name || len >= sizeof key)
		return; /* no name an EXECUTE can spell (cgm_exec_vars_name) */
	for (size_t i = 0; i <= len; i++)
		key[i] = (char)tolower((unsigned char)name[i]);
	if ((v->used + 1) * 2 > v->nslots)
		grow(v);
	exec_var *s = find(v, key);
	if (!s->name) {
		s->name = cgm_arena_strdup(v->arena, key);
		v->used++;
	}
	if (s->n == s->cap) {
		int cap = s->cap ? s->cap * 2 : 2;
		s->given = cgm_arena_grow(v->arena, s->given, (size_t)s->n, (size_t)cap, sizeof(*s->given));
		s->cap = cap;
	}
	s->given[s->n++] = (given_value){ at, constant };
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

int cgm_exec_vars_lookup(const cgm_exec_vars *v, const char *expr, int at, int loop_end,
			 const char *const **constants)
{
	*constants = NULL;
	char key[CGM_EXEC_VAR_KEY];
	if (!v || !cgm_exec_vars_name(key, expr))
		return 0;
	const exec_var *s = find(v, key);
	if (!s->name)
		return 0;
	/* The values that may reach step `at`: given on entry, before it, or
	 * after it inside the loop around it (the way back to its top). */
	const char **out = NULL;
	int n = 0, cap = 0;
	for (int i = 0; i < s->n; i++) {
		const given_value *g = &s->given[i];
		if (!(g->at == CGM_EXEC_VARS_ENTRY || g->at < at || (g->at > at && g->at < loop_end)))
			continue;
		if (!g->constant)
			return 0;
		bool seen = false;
		for (int k = 0; k < n && !seen; k++)
			seen = strcmp(out[k], g->constant) == 0;
		if (seen)
			continue;
		if (n == cap) {
			int grown = cap ? cap * 2 : 2;
			out = cgm_arena_grow(v->arena, out, (size_t)n, (size_t)grown, sizeof(*out));
			cap = grown;
		}
		out[n++] = g->constant;
	}
	*constants = out;
	return n;
}

const char *cgm_exec_vars_last_before(const cgm_exec_vars *v, const char *expr, int at, int *set_at)
{
	*set_at = CGM_EXEC_VARS_ENTRY;
	char key[CGM_EXEC_VAR_KEY];
	if (!v || !cgm_exec_vars_name(key, expr))
		return NULL;
	const exec_var *s = find(v, key);
	/* Values are set in the walk's order, those given on entry first:
	 * the last one before `at` by bisection. */
	int lo = 0, hi = s->name ? s->n : 0;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (s->given[mid].at < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	*set_at = s->given[lo - 1].at;
	return s->given[lo - 1].constant;
}
