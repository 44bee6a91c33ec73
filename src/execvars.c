/*
 * execvars.c - the constant SQL a PL/pgSQL function's variables can hold
 * (see execvars.h).  A hash table of names, in the caller's arena; the
 * values a lookup builds of them are on the heap, kept with their
 * variable until its next lookup or cgm_exec_vars_release.
 */
#include "execvars.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgmap/hash.h"
#include "cgmap/limits.h"

/* One value a variable is given: where (a step of the body's walk, or
 * CGM_EXEC_VARS_ENTRY: its declaration's default, a parameter's value),
 * and the constant SQL it is, or NULL. */
typedef struct given_value {
	int at;
	const char *constant;
	bool appended; /* constant is a piece appended to the value */
} given_value;

typedef struct exec_var {
	char *name;              /* case-folded as PostgreSQL folds an unquoted name */
	given_value *given;      /* in the order they were set */
	int n, cap;
	/* The last lookup's values (heap) and the given values it was made
	 * of, [range[0], range[1]) and [range[2], range[3]): every EXECUTE of
	 * the variable with the same ones takes them as they are. */
	cgm_exec_value *values;
	int nvalues;
	uint64_t all_parts;
	int range[4];
	bool looked_up;
} exec_var;

struct cgm_exec_vars {
	cgm_arena *arena;
	size_t built; /* bytes of values built of pieces, by every lookup */
	bool looked_up; /* some variable holds a lookup's values */
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

static void give(cgm_exec_vars *v, const char *name, int at, const char *constant, bool appended)
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
	s->given[s->n++] = (given_value){ at, constant, appended };
}

void cgm_exec_vars_set(cgm_exec_vars *v, const char *name, int at, const char *constant)
{
	give(v, name, at, constant, false);
}

void cgm_exec_vars_append(cgm_exec_vars *v, const char *name, int at, const char *piece)
{
	give(v, name, at, piece, piece != NULL);
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

/* The values a lookup builds, on the heap. */
typedef struct value_list {
	cgm_exec_value *values;
	int n, cap;
	size_t bytes;
} value_list;

/* Add `sql` (heap, taken) made of `parts`, or give its parts to the same
 * text there. */
static void add_value(value_list *l, char *sql, uint64_t parts)
{
	for (int k = 0; k < l->n; k++)
		if (strcmp(l->values[k].sql, sql) == 0) {
			l->values[k].parts |= parts;
			free(sql);
			return;
		}
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 4;
		l->values = cgm_xrealloc(l->values, sizeof(*l->values) * (size_t)l->cap);
	}
	l->values[l->n++] = (cgm_exec_value){ sql, parts };
	l->bytes += strlen(sql);
}

static char *joined(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *out = cgm_xrealloc(NULL, la + lb + 1);
	memcpy(out, a, la);
	memcpy(out + la, b, lb + 1);
	return out;
}

static void values_free(cgm_exec_value *values, int n)
{
	for (int k = 0; k < n; k++)
		free((char *)values[k].sql);
	free(values);
}

void cgm_exec_vars_release(cgm_exec_vars *v)
{
	if (!v || !v->looked_up)
		return;
	for (int i = 0; i < v->nslots; i++) {
		exec_var *s = &v->slots[i];
		values_free(s->values, s->nvalues);
		s->values = NULL;
		s->nvalues = 0;
		s->looked_up = false;
	}
	v->looked_up = false;
}

/* The first of the values given (in the walk's order) at step `at` or
 * later. */
static int first_at(const exec_var *s, int at)
{
	int lo = 0, hi = s->n;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (s->given[mid].at < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The values made of the given values [range[0], range[1]) then
 * [range[2], range[3]), into l; false when some is not constant or the
 * bounds are passed (then l is freed). */
static bool build_values(cgm_exec_vars *v, const exec_var *s, const int range[4], value_list *l)
{
	int nparts = 0;
	for (int r = 0; r < 4; r += 2)
		for (int i = range[r]; i < range[r + 1]; i++) {
			const given_value *g = &s->given[i];
			if (!g->constant || nparts == CGM_EXEC_PARTS_MAX)
				goto fail;
			uint64_t bit = UINT64_C(1) << nparts++;
			if (!g->appended) {
				add_value(l, joined(g->constant, ""), bit);
				continue;
			}
			/* Each value so far, with the piece and without, while
			 * the values are few; past that, with the piece only
			 * (every piece stays in some value), while they are not
			 * too long. */
			int before = l->n;
			for (int k = 0; k < before; k++) {
				/* Each lookup builds its own values: a bound on them
				 * all keeps a body of many from taking time without
				 * end. */
				size_t len = strlen(l->values[k].sql) + strlen(g->constant);
				if (v->built + len > CGM_EXEC_BUILT_BYTES)
					goto fail;
				v->built += len;
				char *sql = joined(l->values[k].sql, g->constant);
				if (l->n < CGM_EXEC_VALUES_MAX && l->bytes < CGM_EXEC_VALUES_BYTES) {
					add_value(l, sql, l->values[k].parts | bit);
				} else if (l->bytes < 4 * (size_t)CGM_EXEC_VALUES_BYTES) {
					l->bytes += strlen(g->constant);
					free((char *)l->values[k].sql);
					l->values[k].sql = sql;
					l->values[k].parts |= bit;
				} else {
					free(sql);
					goto fail;
				}
			}
		}
	return true;
fail:
	values_free(l->values, l->n);
	*l = (value_list){ 0 };
	return false;
}

int cgm_exec_vars_lookup(cgm_exec_vars *v, const char *expr, int from, int at, int loop_end,
			 cgm_exec_value **values, uint64_t *all_parts)
{
	*values = NULL;
	*all_parts = 0;
	char key[CGM_EXEC_VAR_KEY];
	if (!v || !cgm_exec_vars_name(key, expr))
		return 0;
	exec_var *s = find(v, key);
	if (!s->name)
		return 0;
	/* The values that may reach step `at`: given from `from` on (on entry
	 * too when it is CGM_EXEC_VARS_ENTRY) before it, or after it inside
	 * the loop around it (the way back to its top). */
	int range[4] = { first_at(s, from), first_at(s, at), first_at(s, at + 1), first_at(s, loop_end) };
	if (range[1] < range[0])
		range[1] = range[0];
	if (range[3] < range[2])
		range[3] = range[2];
	if (s->looked_up && memcmp(range, s->range, sizeof range) == 0) {
		*values = s->values;
		*all_parts = s->all_parts;
		return s->nvalues;
	}
	values_free(s->values, s->nvalues);
	value_list l = { 0 };
	if (!build_values(v, s, range, &l))
		l = (value_list){ 0 };
	s->values = l.values;
	s->nvalues = l.n;
	s->all_parts = 0;
	for (int k = 0; k < l.n; k++)
		s->all_parts |= l.values[k].parts;
	memcpy(s->range, range, sizeof range);
	s->looked_up = v->looked_up = true;
	*values = s->values;
	*all_parts = s->all_parts;
	return s->nvalues;
}

bool cgm_exec_vars_appended_last(const cgm_exec_vars *v, const char *expr, int at)
{
	char key[CGM_EXEC_VAR_KEY];
	if (!v || !cgm_exec_vars_name(key, expr))
		return false;
	const exec_var *s = find(v, key);
	int lo = s->name ? first_at(s, at) : 0;
	return lo > 0 && s->given[lo - 1].appended;
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
	int lo = s->name ? first_at(s, at) : 0;
	while (lo > 0 && s->given[lo - 1].appended)
		lo--;
	if (lo == 0)
		return NULL;
	*set_at = s->given[lo - 1].at;
	return s->given[lo - 1].constant;
}
