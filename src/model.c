/*
 * model.c - the shared call-graph model (see cgmap/model.h): growth of its
 * arrays, the id index, and the names of its enums as written in snapshots.
 * Everything lives in model->arena and goes with cgm_model_free().
 */
#include "cgmap/model.h"
#include "cgmap/hash.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A map keeps millions of sites and edges (docs/architecture.md, "Memory"):
 * a field that adds padding to either shows here first. */
_Static_assert(sizeof(cgm_via) == 1 && sizeof(cgm_site_kind) == 1 &&
		       sizeof(cgm_resolution) == 1,
	       "site and edge enums are one byte (CGM_PACKED_ENUM)");
_Static_assert(sizeof(void *) != 8 || sizeof(cgm_edge) <= 40,
	       "cgm_edge grew past 40 bytes: keep its fields free of padding, rare ones in "
	       "cgm_edge_rare");
_Static_assert(sizeof(void *) != 8 || sizeof(cgm_function) <= 312,
	       "cgm_function grew past 312 bytes: keep its fields free of padding");
_Static_assert(sizeof(void *) != 8 || sizeof(cgm_site) <= 64,
	       "cgm_site grew past 64 bytes: keep its fields free of padding, rare ones in "
	       "cgm_site_rare");

cgm_model *cgm_model_new(void)
{
	cgm_arena *arena = cgm_arena_new();
	cgm_model *model = cgm_arena_alloc(arena, sizeof(cgm_model));
	model->arena = arena;
	model->evidence.window_seconds = -1;
	return model;
}

void cgm_model_free(cgm_model *model)
{
	if (model)
		cgm_arena_free(model->arena);
}

#define MODEL_APPEND(model, arr, n, cap, type)                                         \
	do {                                                                           \
		if ((model)->n == (model)->cap) {                                      \
			int newcap = (model)->cap ? (model)->cap * 2 : 64;             \
			(model)->arr = cgm_arena_resize((model)->arena, (model)->arr,  \
						      (size_t)(model)->n, (size_t)newcap, \
						      sizeof(type));                   \
			(model)->cap = newcap;                                         \
		}                                                                      \
		type *slot = &(model)->arr[(model)->n++];                              \
		memset(slot, 0, sizeof(type));                                         \
		return slot;                                                           \
	} while (0)

cgm_function *cgm_model_add_function(cgm_model *model)
{
	MODEL_APPEND(model, functions, nfunctions, cap_functions, cgm_function);
}

void cgm_model_trim_functions(cgm_model *model)
{
	if (model->cap_functions <= model->nfunctions)
		return;
	model->functions = cgm_arena_trim(model->arena, model->functions,
					  (size_t)model->nfunctions, sizeof(cgm_function));
	model->cap_functions = model->nfunctions;
}

void cgm_model_reserve_edges(cgm_model *model, int count)
{
	if (count <= model->cap_edges)
		return;
	/* One block of the final size: growing by doubling would leave every
	 * earlier copy in the arena, twice the edges' size at 10,000 functions. */
	model->edges = cgm_arena_resize(model->arena, model->edges, (size_t)model->nedges,
					(size_t)count, sizeof(cgm_edge));
	model->cap_edges = count;
}

const cgm_edge_rare cgm_edge_rare_none;
const cgm_site_rare cgm_site_rare_none;

cgm_site_rare *cgm_site_rare_of(cgm_arena *arena, cgm_site *s)
{
	if (!s->rare)
		s->rare = cgm_arena_alloc(arena, sizeof(cgm_site_rare));
	return s->rare;
}

cgm_edge_rare *cgm_edge_rare_of(cgm_arena *arena, cgm_edge *e)
{
	if (!e->rare)
		e->rare = cgm_arena_alloc(arena, sizeof(cgm_edge_rare));
	return e->rare;
}

cgm_edge *cgm_model_add_edge(cgm_model *model)
{
	MODEL_APPEND(model, edges, nedges, cap_edges, cgm_edge);
}

cgm_trigger *cgm_model_add_trigger(cgm_model *model)
{
	MODEL_APPEND(model, triggers, ntriggers, cap_triggers, cgm_trigger);
}

cgm_reference *cgm_model_add_reference(cgm_model *model)
{
	MODEL_APPEND(model, references, nreferences, cap_references, cgm_reference);
}

cgm_effect *cgm_model_add_effect(cgm_model *model)
{
	MODEL_APPEND(model, effects, neffects, cap_effects, cgm_effect);
}

cgm_event_trigger *cgm_model_add_event_trigger(cgm_model *model)
{
	MODEL_APPEND(model, event_triggers, nevent_triggers, cap_event_triggers, cgm_event_trigger);
}

cgm_relation *cgm_model_add_relation(cgm_model *model)
{
	MODEL_APPEND(model, relations, nrelations, cap_relations, cgm_relation);
}

cgm_operator *cgm_model_add_operator(cgm_model *model)
{
	MODEL_APPEND(model, operators, noperators, cap_operators, cgm_operator);
}

cgm_cast *cgm_model_add_cast(cgm_model *model)
{
	MODEL_APPEND(model, casts, ncasts, cap_casts, cgm_cast);
}

cgm_domain_check *cgm_model_add_domain_check(cgm_model *model)
{
	MODEL_APPEND(model, domain_checks, ndomain_checks, cap_domain_checks, cgm_domain_check);
}

cgm_domain_default *cgm_model_add_domain_default(cgm_model *model)
{
	MODEL_APPEND(model, domain_defaults, ndomain_defaults, cap_domain_defaults, cgm_domain_default);
}

cgm_aggregate *cgm_model_add_aggregate(cgm_model *model)
{
	MODEL_APPEND(model, aggregates, naggregates, cap_aggregates, cgm_aggregate);
}

cgm_relation *cgm_model_add_type(cgm_model *model)
{
	MODEL_APPEND(model, types, ntypes, cap_types, cgm_relation);
}

cgm_type_info *cgm_model_add_type_info(cgm_model *model)
{
	MODEL_APPEND(model, type_infos, ntype_infos, cap_type_infos, cgm_type_info);
}

void cgm_model_add_column(cgm_model *model, const char *name)
{
	if (model->ncolumns == model->cap_columns) {
		int cap = model->cap_columns ? model->cap_columns * 2 : 64;
		model->columns = cgm_arena_grow(model->arena, model->columns, (size_t)model->ncolumns,
						(size_t)cap, sizeof(char *));
		model->cap_columns = cap;
	}
	model->columns[model->ncolumns++] = cgm_arena_strdup(model->arena, name);
}

cgm_diagnostic *cgm_model_add_diagnostic(cgm_model *model)
{
	MODEL_APPEND(model, diagnostics, ndiagnostics, cap_diagnostics, cgm_diagnostic);
}

/* The place of an id in the lookup table (cgm_hash_words: eight bytes a
 * step; every edge's two ends are looked up when a snapshot is read). */
static size_t id_slot(const char *id, size_t mask)
{
	return (size_t)cgm_hash_words(CGM_FNV1A_OFFSET, id, strlen(id)) & mask;
}

int cgm_model_find(const cgm_model *model, const char *id)
{
	if (!model->lookup || !id)
		return -1;
	size_t mask = (size_t)model->lookup_size - 1;
	for (size_t i = id_slot(id, mask);; i = (i + 1) & mask) {
		int idx = model->lookup[i];
		if (idx < 0)
			return -1;
		if (strcmp(model->functions[idx].id, id) == 0)
			return idx;
	}
}

typedef struct {
	cgm_function fn;
	int old_index;
} sort_slot;

/* Index order: user functions by id, then builtins by id, equal ids as
 * they came. */
static int compare_in_index(const cgm_function *x, int x_index, const cgm_function *y, int y_index)
{
	if (x->builtin != y->builtin)
		return x->builtin ? 1 : -1;
	int c = strcmp(x->id, y->id);
	return c ? c : x_index - y_index;
}

static int compare_slots(const void *a, const void *b)
{
	const sort_slot *x = a, *y = b;
	return compare_in_index(&x->fn, x->old_index, &y->fn, y->old_index);
}

static int remap(const int *map, int idx)
{
	return idx >= 0 ? map[idx] : idx;
}

/* Whether the functions already stand in index order (a snapshot is
 * written in it): then nothing moves and no index needs mapping. */
static bool in_index_order(const cgm_model *model)
{
	for (int i = 1; i < model->nfunctions; i++)
		if (compare_in_index(&model->functions[i - 1], i - 1, &model->functions[i], i) > 0)
			return false;
	return true;
}

void cgm_model_index(cgm_model *model)
{
	int n = model->nfunctions;
	if (in_index_order(model)) {
		model->nuser = 0;
		for (int i = 0; i < n; i++)
			if (!model->functions[i].builtin)
				model->nuser = i + 1;
		goto lookup;
	}
	sort_slot *slots = malloc(sizeof(sort_slot) * (size_t)(n ? n : 1));
	int *map = malloc(sizeof(int) * (size_t)(n ? n : 1));
	if (!slots || !map) {
		fprintf(stderr, "cgmap: out of memory\n");
		abort();
	}
	for (int i = 0; i < n; i++) {
		slots[i].fn = model->functions[i];
		slots[i].old_index = i;
	}
	qsort(slots, (size_t)n, sizeof(sort_slot), compare_slots);
	model->nuser = 0;
	for (int i = 0; i < n; i++) {
		model->functions[i] = slots[i].fn;
		map[slots[i].old_index] = i;
		if (!slots[i].fn.builtin)
			model->nuser = i + 1;
	}
	for (int i = 0; i < n; i++) {
		cgm_function *f = &model->functions[i];
		for (int s = 0; s < f->nsites; s++)
			for (int t = 0; t < f->sites[s].ntargets; t++)
				f->sites[s].targets[t] = remap(map, f->sites[s].targets[t]);
	}
	for (int i = 0; i < model->nedges; i++) {
		model->edges[i].from = remap(map, model->edges[i].from);
		model->edges[i].to = remap(map, model->edges[i].to);
	}
	for (int i = 0; i < model->ntriggers; i++)
		model->triggers[i].function = remap(map, model->triggers[i].function);
	for (int i = 0; i < model->nreferences; i++)
		model->references[i].function = remap(map, model->references[i].function);
	for (int i = 0; i < model->neffects; i++)
		model->effects[i].function = remap(map, model->effects[i].function);
	for (int i = 0; i < model->nevent_triggers; i++)
		model->event_triggers[i].function = remap(map, model->event_triggers[i].function);
	free(slots);
	free(map);

lookup:;
	int size = 16;
	while (size < n * 2)
		size *= 2;
	model->lookup = cgm_arena_alloc(model->arena, sizeof(int) * (size_t)size);
	model->lookup_size = size;
	for (int i = 0; i < size; i++)
		model->lookup[i] = -1;
	size_t mask = (size_t)size - 1;
	for (int i = 0; i < n; i++) {
		size_t j = id_slot(model->functions[i].id, mask);
		while (model->lookup[j] >= 0) {
			if (strcmp(model->functions[model->lookup[j]].id, model->functions[i].id) == 0)
				break; /* duplicate id: the first one wins the lookup */
			j = (j + 1) & mask;
		}
		if (model->lookup[j] < 0)
			model->lookup[j] = i;
	}
}

void cgm_model_link(cgm_model *model)
{
	for (int i = 0; i < model->ntriggers; i++)
		if (model->triggers[i].function_id)
			model->triggers[i].function = cgm_model_find(model, model->triggers[i].function_id);
	for (int i = 0; i < model->nreferences; i++)
		if (model->references[i].function_id)
			model->references[i].function =
				cgm_model_find(model, model->references[i].function_id);
	for (int i = 0; i < model->neffects; i++)
		model->effects[i].function = cgm_model_find(model, model->effects[i].function_id);
	for (int i = 0; i < model->nevent_triggers; i++)
		model->event_triggers[i].function =
			cgm_model_find(model, model->event_triggers[i].function_id);
	for (int i = 0; i < model->noperators; i++)
		model->operators[i].function = cgm_model_find(model, model->operators[i].function_id);
	for (int i = 0; i < model->ncasts; i++)
		model->casts[i].function = cgm_model_find(model, model->casts[i].function_id);
	for (int i = 0; i < model->ndomain_checks; i++)
		model->domain_checks[i].function =
			cgm_model_find(model, model->domain_checks[i].function_id);
	for (int i = 0; i < model->ndomain_defaults; i++)
		model->domain_defaults[i].function =
			cgm_model_find(model, model->domain_defaults[i].function_id);
	for (int i = 0; i < model->naggregates; i++) {
		cgm_aggregate *a = &model->aggregates[i];
		a->aggregate = cgm_model_find(model, a->aggregate_id);
		for (int k = 0; k < a->nsupport; k++)
			a->support[k] = cgm_model_find(model, a->support_ids[k]);
	}
}

int cgm_edge_compare_kind(const cgm_edge *x, const cgm_edge *y)
{
	if (x->via != y->via) {
		int c = strcmp(cgm_via_name(x->via), cgm_via_name(y->via));
		if (c)
			return c;
	}
	if (x->object == y->object)
		return 0;
	if (!x->object || !y->object)
		return x->object ? 1 : -1;
	return strcmp(x->object, y->object);
}

cgm_via cgm_site_target_via(const cgm_site *site, int t)
{
	if (site->rare && site->rare->target_via)
		return site->rare->target_via[t];
	return site->kind == CGM_SITE_TRIGGER ? CGM_VIA_TRIGGER
	       : site->via_literal           ? CGM_VIA_LITERAL
					     : CGM_VIA_CALL;
}

const char *cgm_site_target_object(const cgm_site *site, int t)
{
	return site->rare && site->rare->target_object ? site->rare->target_object[t] : NULL;
}

int cgm_count_lines(const char *s)
{
	if (!s || !*s)
		return 0;
	int n = 1;
	for (; *s; s++)
		if (*s == '\n' && s[1])
			n++;
	return n;
}

typedef struct {
	const char *id;
	int index;
} id_rec;

static int compare_id_recs(const void *a, const void *b)
{
	const id_rec *x = a, *y = b;
	int c = strcmp(x->id, y->id);
	return c ? c : (x->index > y->index) - (x->index < y->index);
}

typedef struct {
	int from_rank, to_rank;
	const cgm_edge *edge;
	int index;
} edge_rec;

static int compare_edge_recs(const void *a, const void *b)
{
	const edge_rec *x = a, *y = b;
	if (x->from_rank != y->from_rank)
		return x->from_rank < y->from_rank ? -1 : 1;
	if (x->to_rank != y->to_rank)
		return x->to_rank < y->to_rank ? -1 : 1;
	int c = cgm_edge_compare_kind(x->edge, y->edge);
	if (c)
		return c;
	return (x->index > y->index) - (x->index < y->index);
}

void cgm_model_id_ranks(int *rank, const cgm_model *model)
{
	int n = model->nfunctions;
	id_rec *recs = cgm_xcalloc((size_t)n, sizeof(id_rec));
	bool sorted = true;
	for (int i = 0; i < n; i++) {
		recs[i] = (id_rec){ model->functions[i].id ? model->functions[i].id : "", i };
		if (i > 0 && sorted && strcmp(recs[i - 1].id, recs[i].id) > 0)
			sorted = false;
	}
	if (!sorted)
		qsort(recs, (size_t)n, sizeof(id_rec), compare_id_recs);
	for (int i = 0; i < n; i++)
		rank[recs[i].index] = i > 0 && strcmp(recs[i].id, recs[i - 1].id) == 0
					      ? rank[recs[i - 1].index]
					      : i;
	free(recs);
}

int *cgm_model_edge_order(const cgm_model *model)
{
	int n = model->nfunctions;
	/* Each function gets the rank of its id once (equal ids share one), so
	 * the sort compares integers, not ids: the same order, far cheaper. */
	int *rank = cgm_xcalloc((size_t)(n ? n : 1), sizeof(int));
	edge_rec *recs = cgm_xcalloc((size_t)(model->nedges ? model->nedges : 1), sizeof(edge_rec));
	int *order = cgm_xcalloc((size_t)(model->nedges ? model->nedges : 1), sizeof(int));
	cgm_model_id_ranks(rank, model);
	for (int i = 0; i < model->nedges; i++) {
		const cgm_edge *e = &model->edges[i];
		bool ok = e->from >= 0 && e->from < n && e->to >= 0 && e->to < n;
		recs[i] = (edge_rec){ ok ? rank[e->from] : -1, ok ? rank[e->to] : -1, e, i };
	}
	qsort(recs, (size_t)model->nedges, sizeof(edge_rec), compare_edge_recs);
	for (int i = 0; i < model->nedges; i++)
		order[i] = recs[i].index;
	free(rank);
	free(recs);
	return order;
}

/* Enum <-> snapshot text. */
#define NAME_TABLE(fn_name, parse_name, type, ...)                                \
	static const char *const fn_name##_names[] = { __VA_ARGS__ };             \
	const char *fn_name(type v)                                               \
	{                                                                         \
		size_t n = sizeof(fn_name##_names) / sizeof(fn_name##_names[0]);  \
		return (size_t)v < n ? fn_name##_names[v] : "unknown";            \
	}                                                                         \
	int parse_name(type *out, const char *name)                               \
	{                                                                         \
		size_t n = sizeof(fn_name##_names) / sizeof(fn_name##_names[0]);  \
		for (size_t i = 0; name && i < n; i++)                            \
			if (fn_name##_names[i][0] == name[0] &&                   \
			    strcmp(fn_name##_names[i], name) == 0) {              \
				*out = (type)i;                                   \
				return 0;                                         \
			}                                                         \
		return -1;                                                        \
	}

NAME_TABLE(cgm_kind_name, cgm_kind_parse, cgm_kind,
	   "function", "procedure", "aggregate", "window")
NAME_TABLE(cgm_site_kind_name, cgm_site_kind_parse, cgm_site_kind,
	   "call", "perform", "call_stmt", "trigger", "execute_literal", "dynamic",
	   "relation", "ddl", "operator", "cast")
NAME_TABLE(cgm_resolution_name, cgm_resolution_parse, cgm_resolution,
	   "unresolved", "resolved", "ambiguous", "missing", "builtin", "none", "not_unique")
NAME_TABLE(cgm_via_name, cgm_via_parse, cgm_via,
	   "call", "dynamic_literal", "trigger", "dynamic", "view", "policy", "default",
	   "generated", "check", "domain", "trigger_when", "rule", "index", "cascade",
	   "event_trigger", "operator", "cast", "aggregate", "partition_key")

const char *cgm_via_object_tail(cgm_via via, const char *object)
{
	if (!object)
		return NULL;
	const char *name = cgm_via_name(via);
	size_t len = strlen(name);
	if (strncmp(object, name, len) == 0 && object[len] == ' ' && object[len + 1])
		return object + len + 1;
	return object;
}

bool cgm_site_tie_same_types(const cgm_model *m, const cgm_site *s)
{
	if (s->ntargets < 2)
		return true;
	for (int k = 1; k < s->ntargets; k++) {
		const cgm_function *f = &m->functions[s->targets[0]], *g = &m->functions[s->targets[k]];
		for (int a = 0; a < s->nargs && a < f->nargs && a < g->nargs; a++)
			if (f->argtypes && g->argtypes && f->argtypes[a] && g->argtypes[a] &&
			    strcmp(f->argtypes[a], g->argtypes[a]) != 0)
				return false;
	}
	return true;
}

const char *cgm_site_operator_text(char *buf, size_t len, const cgm_site *s)
{
	const char *right = s->argtypes && s->nargs > 0 && s->argtypes[s->nargs - 1]
				    ? s->argtypes[s->nargs - 1]
				    : "?";
	const char *op = s->name ? s->name : "?";
	if (s->nargs == 2)
		snprintf(buf, len, "%s %s%s%s %s", s->argtypes && s->argtypes[0] ? s->argtypes[0] : "?",
			 s->schema ? s->schema : "", s->schema ? "." : "", op, right);
	else
		snprintf(buf, len, "%s%s%s %s", s->schema ? s->schema : "", s->schema ? "." : "", op,
			 right);
	return buf;
}

_Static_assert(CGM_EV_ATTACH == 1 << (CGM_NEVENTS - 1), "one name per CGM_EV_* bit");
const char *const cgm_event_names[CGM_NEVENTS] = { "INSERT", "UPDATE",   "DELETE",  "TRUNCATE",
						     "SELECT", "REFRESH",  "ONLY",    "CASCADE",
						     "REWRITE", "ANALYZE", "VALIDATE", "ATTACH" };

const char *cgm_events_text(char *buf, size_t len, unsigned events)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i < CGM_NEVENTS; i++) {
		if (!(events & (1u << i)))
			continue;
		int n = snprintf(buf + used, len - used, "%s%s", used ? "|" : "",
				 cgm_event_names[i]);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
	}
	return buf;
}

bool cgm_function_takes(const cgm_function *f, int n)
{
	return n >= f->nargs - f->ndefaults && (n <= f->nargs || (f->variadic && n >= f->nargs - 1));
}

int cgm_model_has_extension(const cgm_model *model, const char *name)
{
	if (!model->extensions)
		return -1;
	for (int i = 0; i < model->nextensions; i++)
		if (strcmp(model->extensions[i], name) == 0)
			return 1;
	return 0;
}
