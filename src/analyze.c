/*
 * analyze.c - what the merged graph says about each function: roots,
 * reachability, dead and cold functions, recursive components.
 *
 * In:  an indexed model with its static and observed edges, triggers,
 *      catalog references and runtime figures (after cgm_merge, or read
 *      from a snapshot).
 * Out: function.referenced/root/reachable/scc, the verdicts (dead, cold,
 *      unobserved, untraceable, dynamic-reachable: src/verdict.c), and a diagnostic
 *      for each --entry pattern that matches nothing.  Scratch arrays are
 *      malloc'd and freed here; nothing new is kept but the diagnostics
 *      (model->arena).
 *
 * Roots are observed entry points, trigger functions of existing triggers,
 * functions the catalog refers to (views, defaults, constraints, policies,
 * ...) and --entry patterns.  Reachability also starts from every function
 * observed called: a live function's callees are reachable even when the
 * data does not say who called it (pg_stat_user_functions has no callers).
 * Only user functions (model->functions[0..nuser)) take part.  Recursive
 * components leave out ambiguous candidates never observed: a call
 * PostgreSQL may never make is no recursion.
 */
#include "cgmap/runtime.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "cgmap/error.h"
#include "cgmap/dynsql.h"
#include "cgmap/scc.h"
#include "cgmap/verdict.h"

bool cgm_edge_unexplained(const cgm_edge *edge)
{
	return (edge->provenance & CGM_EDGE_OBSERVED) && !(edge->provenance & CGM_EDGE_STATIC) &&
	       edge->via != CGM_VIA_DYNAMIC;
}

bool cgm_dynamic_site_observed(const cgm_model *model, int fn, const cgm_site *site)
{
	for (int i = 0; i < model->nedges; i++) {
		const cgm_edge *e = &model->edges[i];
		if (e->from != fn || e->via != CGM_VIA_DYNAMIC || !(e->provenance & CGM_EDGE_OBSERVED))
			continue;
		for (int l = 0; l < e->nlines; l++)
			if (e->lines[l] == site->line)
				return true;
	}
	return false;
}

bool cgm_dynamic_site_has_static_calls(const cgm_function *fn, const cgm_site *site)
{
	for (int i = 0; i < fn->nsites; i++) {
		const cgm_site *s = &fn->sites[i];
		if (s->line == site->line && s != site && s->ntargets > 0 &&
		    (s->kind == CGM_SITE_EXEC_LITERAL || s->kind == CGM_SITE_RELATION))
			return true;
	}
	return false;
}

static int compare_hits(const void *a, const void *b, void *arg)
{
	const cgm_model *model = arg;
	const cgm_dynamic_hit *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return strcmp(model->functions[x->to].id, model->functions[y->to].id);
}

cgm_dynamic_hit *cgm_dynamic_hits(int *count, const cgm_model *model)
{
	int n = 0;
	for (int i = 0; i < model->nedges; i++) {
		const cgm_edge *e = &model->edges[i];
		if (e->via == CGM_VIA_DYNAMIC && (e->provenance & CGM_EDGE_OBSERVED) && e->from >= 0 &&
		    e->to >= 0 && e->from < model->nfunctions && e->to < model->nfunctions)
			n += e->nlines;
	}
	*count = n;
	if (!n)
		return NULL;
	cgm_dynamic_hit *hits = cgm_xcalloc((size_t)n, sizeof(cgm_dynamic_hit));
	int k = 0;
	for (int i = 0; i < model->nedges; i++) {
		const cgm_edge *e = &model->edges[i];
		if (e->via == CGM_VIA_DYNAMIC && (e->provenance & CGM_EDGE_OBSERVED) && e->from >= 0 &&
		    e->to >= 0 && e->from < model->nfunctions && e->to < model->nfunctions)
			for (int l = 0; l < e->nlines; l++)
				hits[k++] = (cgm_dynamic_hit){ e->from, e->lines[l], e->to };
	}
	qsort_r(hits, (size_t)n, sizeof(cgm_dynamic_hit), compare_hits, (void *)model);
	return hits;
}

int cgm_dynamic_hit_find(const cgm_dynamic_hit *hits, int count, int fn, int line)
{
	int lo = 0, hi = count;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (hits[mid].from < fn || (hits[mid].from == fn && hits[mid].line < line))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < count && hits[lo].from == fn && hits[lo].line == line ? lo : -1;
}

bool cgm_function_uncalled(const cgm_model *model, int fn)
{
	const cgm_function *f = &model->functions[fn];
	if (f->root || f->runtime.calls > 0)
		return false;
	for (int i = 0; i < model->nedges; i++) {
		const cgm_edge *e = &model->edges[i];
		if (e->to != fn || e->from < 0 || e->from >= model->nfunctions || e->from == fn)
			continue;
		/* A caller inside the same recursive component does not count:
		 * a cycle nobody enters is as uncalled as a lone function. */
		if (f->scc >= 0 && model->functions[e->from].scc == f->scc)
			continue;
		return false;
	}
	return true;
}

bool cgm_runtime_has_edges(const cgm_model *model)
{
	if (!model->has_runtime)
		return false;
	/* merge.c writes "KIND NAME: WHAT"; WHAT names cgmap_trace or call
	 * edges when the source had them (docs/runtime-data.md). */
	for (int i = 0; i < model->nruntime_sources; i++) {
		const char *what = strrchr(model->runtime_sources[i], ':');
		if (what && (strstr(what, "cgmap_trace") || strstr(what, "call edges")))
			return true;
	}
	return false;
}

void cgm_functions_uncalled(bool *out, const cgm_model *model)
{
	int n = model->nfunctions;
	for (int i = 0; i < n; i++) {
		const cgm_function *f = &model->functions[i];
		out[i] = !f->root && f->runtime.calls <= 0;
	}
	for (int i = 0; i < model->nedges; i++) {
		const cgm_edge *e = &model->edges[i];
		if (e->to < 0 || e->to >= n || e->from < 0 || e->from >= n || e->from == e->to)
			continue;
		int scc = model->functions[e->to].scc;
		if (scc >= 0 && model->functions[e->from].scc == scc)
			continue;
		out[e->to] = false;
	}
}

/* An --entry pattern matches the id exactly (ids hold '[' in array types,
 * which fnmatch would read as a bracket expression), or as a glob on the id
 * or on schema.name. */
bool cgm_entry_matches(const cgm_function *f, const char *pattern, char *scratch, size_t len)
{
	if (strcmp(pattern, f->id) == 0 || fnmatch(pattern, f->id, 0) == 0)
		return true;
	if (!f->schema || !f->name)
		return false;
	snprintf(scratch, len, "%s.%s", f->schema, f->name);
	return fnmatch(pattern, scratch, 0) == 0;
}

/* Successors of each user function as compressed rows (every static or
 * observed edge between user functions; ambiguous candidates included
 * unless `certain`: a call PostgreSQL may never make is no recursion). */
typedef struct {
	int *start; /* n + 1 */
	int *next;
} adjacency;

static bool edge_kept(const cgm_edge *e, int n, bool certain)
{
	return e->from >= 0 && e->from < n && e->to >= 0 && e->to < n &&
	       !(certain && e->ambiguous && !(e->provenance & CGM_EDGE_OBSERVED));
}

static void adjacency_build(adjacency *adj, const cgm_model *model, int n, bool certain)
{
	adj->start = cgm_xcalloc((size_t)n + 1, sizeof(int));
	for (int i = 0; i < model->nedges; i++) {
		const cgm_edge *e = &model->edges[i];
		if (edge_kept(e, n, certain))
			adj->start[e->from + 1]++;
	}
	for (int i = 0; i < n; i++)
		adj->start[i + 1] += adj->start[i];
	adj->next = cgm_xcalloc((size_t)adj->start[n], sizeof(int));
	int *fill = cgm_xcalloc((size_t)n, sizeof(int));
	for (int i = 0; i < model->nedges; i++) {
		const cgm_edge *e = &model->edges[i];
		if (edge_kept(e, n, certain))
			adj->next[adj->start[e->from] + fill[e->from]++] = e->to;
	}
	free(fill);
}

static void adjacency_free(adjacency *adj)
{
	free(adj->start);
	free(adj->next);
}

/* The call cycles (cgm_scc): components of more than one function, or of
 * one calling itself, get numbers 0.. in order of their first function. */
static void find_recursion(cgm_model *model, const adjacency *adj, int n)
{
	int *component = cgm_xcalloc((size_t)n + 1, sizeof(int));
	int ncomponents = cgm_scc(component, n, adj->start, adj->next);

	int *size = cgm_xcalloc((size_t)ncomponents, sizeof(int));
	bool *self_call = cgm_xcalloc((size_t)ncomponents, sizeof(bool));
	int *number = cgm_xcalloc((size_t)ncomponents, sizeof(int));
	for (int v = 0; v < n; v++) {
		size[component[v]]++;
		for (int p = adj->start[v]; p < adj->start[v + 1]; p++)
			if (adj->next[p] == v)
				self_call[component[v]] = true;
	}
	for (int c = 0; c < ncomponents; c++)
		number[c] = -1;
	int next_number = 0;
	for (int v = 0; v < n; v++) {
		int c = component[v];
		if (size[c] < 2 && !self_call[c]) {
			model->functions[v].scc = -1;
			continue;
		}
		if (number[c] < 0)
			number[c] = next_number++;
		model->functions[v].scc = number[c];
	}
	free(size);
	free(self_call);
	free(number);
	free(component);
}

int cgm_analyze(cgm_model *model, const cgm_analyze_options *opts)
{
	int n = model->nuser;
	for (int i = 0; i < model->nfunctions; i++) {
		cgm_function *f = &model->functions[i];
		bool was_root = f->root;
		f->referenced = false;
		f->root = opts && opts->keep_roots && was_root;
		f->reachable = f->dead = f->cold = false;
		f->scc = -1;
	}

	for (int i = 0; i < model->ntriggers; i++) {
		int fn = model->triggers[i].function;
		if (fn >= 0 && fn < model->nfunctions)
			model->functions[fn].referenced = true;
	}
	for (int i = 0; i < model->nreferences; i++) {
		int fn = model->references[i].function;
		if (fn >= 0 && fn < model->nfunctions)
			model->functions[fn].referenced = true;
	}
	for (int i = 0; i < n; i++) {
		cgm_function *f = &model->functions[i];
		if (f->referenced || f->observed_entry || f->kept)
			f->root = true;
	}
	for (int p = 0; opts && p < opts->nentry; p++) {
		const char *pattern = opts->entry_patterns[p];
		int matched = 0;
		char scratch[1024];
		for (int i = 0; i < n; i++) {
			cgm_function *f = &model->functions[i];
			if (cgm_entry_matches(f, pattern, scratch, sizeof(scratch))) {
				f->root = true;
				matched++;
			}
		}
		if (!matched) {
			cgm_diagnostic *d = cgm_model_add_diagnostic(model);
			d->message = cgm_arena_printf(model->arena,
						      "entry pattern '%s' matches no function", pattern);
		}
	}

	adjacency adj;
	adjacency_build(&adj, model, n, false);
	int *queue = cgm_xcalloc((size_t)n, sizeof(int));
	int head = 0, tail = 0;
	for (int i = 0; i < n; i++) {
		cgm_function *f = &model->functions[i];
		if (f->root || f->runtime.calls > 0) {
			f->reachable = true;
			queue[tail++] = i;
		}
	}
	while (head < tail) {
		int v = queue[head++];
		for (int p = adj.start[v]; p < adj.start[v + 1]; p++) {
			int w = adj.next[p];
			if (!model->functions[w].reachable) {
				model->functions[w].reachable = true;
				queue[tail++] = w;
			}
		}
	}
	free(queue);
	adjacency certain;
	adjacency_build(&certain, model, n, true);
	find_recursion(model, &certain, n);
	adjacency_free(&certain);
	adjacency_free(&adj);

	/* Without runtime data a function nobody calls may well be called by
	 * clients: only the uncalled list (cgm_function_uncalled) is honest.
	 * With it, what the evidence allows (src/verdict.c). */
	cgm_verdicts_apply(model, opts);
	return 0;
}

/* A dynamic site of fn at `line` has a call the configuration declares;
 * `declared` lists the model's declared edges (few: a scan of them is
 * cheaper than an index). */
bool cgm_edge_declared_at(const cgm_edge *e, int fn, int line)
{
	if (!(e->provenance & CGM_EDGE_DECLARED) || e->from != fn)
		return false;
	for (int l = 0; l < e->nlines; l++)
		if (e->lines[l] == line)
			return true;
	return false;
}

static bool site_declared(const cgm_model *model, const int *declared, int ndeclared, int fn,
			  int line)
{
	for (int k = 0; k < ndeclared; k++)
		if (cgm_edge_declared_at(&model->edges[declared[k]], fn, line))
			return true;
	return false;
}

cgm_dynamic_state cgm_dynamic_site_state(cgm_dynsql_reader **reader, const cgm_model *model,
					 const cgm_site *site, bool observed, bool declared)
{
	if (observed)
		return CGM_DYN_OBSERVED;
	if (declared)
		return CGM_DYN_DECLARED;
	if (!*reader)
		*reader = cgm_dynsql_reader_new(model);
	cgm_dynsql_info info;
	cgm_dynsql_read_with(&info, *reader, site);
	bool can_call = info.can_call;
	cgm_dynsql_info_free(&info);
	if (!can_call)
		return CGM_DYN_CALLS_NONE;
	return cgm_site_get_rare(site)->runs > 0 ? CGM_DYN_RAN : CGM_DYN_UNSEEN;
}

void cgm_analyze_print_summary(const cgm_model *model, FILE *out)
{
	int n = model->nuser;
	int static_edges = 0, observed = 0, both = 0, unexplained = 0;
	int dyn_sites = 0, dyn_seen = 0, dyn_declared = 0;
	int roots = 0, dead = 0, cold = 0, uncalled = 0, in_scc = 0, nscc = 0;
	int verdicts[CGM_VERDICT_DYNAMIC_REACHABLE + 1] = { 0 };
	int dyn_silent = 0; /* dynamic sites whose SQL can call no user function */
	int dyn_ran = 0;    /* others that ran (cgmap_trace 1.4) and called none */
	cgm_dynsql_reader *reader = NULL;
	bool *no_callers = cgm_xcalloc((size_t)model->nfunctions, sizeof(bool));
	cgm_functions_uncalled(no_callers, model);
	int nhits;
	cgm_dynamic_hit *hits = cgm_dynamic_hits(&nhits, model);
	int *declared = cgm_xcalloc((size_t)model->nedges + 1, sizeof(int));
	int ndeclared = 0;
	for (int i = 0; i < model->nedges; i++) {
		const cgm_edge *e = &model->edges[i];
		if (e->provenance & CGM_EDGE_DECLARED)
			declared[ndeclared++] = i;
		if (e->provenance & CGM_EDGE_STATIC)
			static_edges++;
		if (e->provenance & CGM_EDGE_OBSERVED)
			observed++;
		if ((e->provenance & CGM_EDGE_STATIC) && (e->provenance & CGM_EDGE_OBSERVED))
			both++;
		if (cgm_edge_unexplained(e))
			unexplained++;
	}
	for (int i = 0; i < n; i++) {
		const cgm_function *f = &model->functions[i];
		for (int s = 0; s < f->nsites; s++) {
			if (f->sites[s].kind != CGM_SITE_DYNAMIC)
				continue;
			dyn_sites++;
			bool seen = cgm_dynamic_hit_find(hits, nhits, i, f->sites[s].line) >= 0;
			switch (cgm_dynamic_site_state(&reader, model, &f->sites[s], seen,
						       !seen && site_declared(model, declared, ndeclared, i,
									      f->sites[s].line))) {
			case CGM_DYN_OBSERVED: dyn_seen++; break;
			case CGM_DYN_DECLARED: dyn_declared++; break;
			case CGM_DYN_CALLS_NONE: dyn_silent++; break;
			case CGM_DYN_RAN: dyn_ran++; break;
			case CGM_DYN_UNSEEN: break;
			}
		}
		roots += f->root;
		dead += f->dead;
		cold += f->cold;
		if ((unsigned)f->verdict <= CGM_VERDICT_DYNAMIC_REACHABLE)
			verdicts[f->verdict]++;
		if (!model->has_runtime && no_callers[i])
			uncalled++;
		if (f->scc >= 0) {
			in_scc++;
			if (f->scc + 1 > nscc)
				nscc = f->scc + 1;
		}
	}
	free(no_callers);
	free(hits);
	free(declared);
	cgm_dynsql_reader_free(reader);
#define PLURAL(n, one, many) ((n) == 1 ? (one) : (many))
	if (model->has_runtime) {
		fprintf(out, "cgmap: runtime data covers %s\n",
			model->runtime_window ? model->runtime_window : "an unknown window");
		cgm_strbuf ev = CGM_STRBUF_INIT;
		cgm_evidence_text(&ev, model);
		fprintf(out, "cgmap: evidence: %s\n", cgm_strbuf_cstr(&ev));
		cgm_strbuf_free(&ev);
	} else
		fprintf(out, "cgmap: no runtime data: no function is called dead; "
			     "%d %s no callers and %s not referenced\n", uncalled,
			uncalled == 1 ? "has" : "have", uncalled == 1 ? "is" : "are");
	/* Parts that add up to the whole: every edge is static only, both, or
	 * observed only; the unexplained are among the observed only. */
	fprintf(out, "cgmap: %d %s: %d static only, %d static and observed, %d observed only "
		     "(%d unexplained)\n",
		model->nedges, PLURAL(model->nedges, "edge", "edges"), static_edges - both, both,
		observed - both, unexplained);
	char declared_part[64] = "";
	if (dyn_declared)
		snprintf(declared_part, sizeof declared_part, "%d declared in %s, ", dyn_declared,
			 "the configuration");
	char ran_part[64] = "";
	if (model->has_site_runs)
		snprintf(ran_part, sizeof ran_part, "%d ran without a call, ", dyn_ran);
	if (cgm_runtime_has_edges(model))
		fprintf(out, "cgmap: %d dynamic %s: %d observed, %s%s%d unseen, %d that can call "
			     "no user function\n", dyn_sites, PLURAL(dyn_sites, "site", "sites"),
			dyn_seen, declared_part, ran_part,
			dyn_sites - dyn_seen - dyn_declared - dyn_silent - dyn_ran, dyn_silent);
	else if (dyn_declared)
		fprintf(out, "cgmap: %d dynamic %s: %d declared in the configuration (none "
			     "observed: no call edges in the runtime data)\n",
			dyn_sites, PLURAL(dyn_sites, "site", "sites"), dyn_declared);
	else
		fprintf(out, "cgmap: %d dynamic %s (none observed: no call edges in the "
			     "runtime data)\n", dyn_sites, PLURAL(dyn_sites, "site", "sites"));
	fprintf(out, "cgmap: of %d %s, %d %s, %d dead, %d cold; "
		     "%d recursive %s (%d %s)\n",
		n, PLURAL(n, "function", "functions"), roots, PLURAL(roots, "is a root", "are roots"),
		dead, cold, nscc, PLURAL(nscc, "component", "components"), in_scc,
		PLURAL(in_scc, "function", "functions"));
	if (model->has_runtime)
		fprintf(out, "cgmap: never called and unreachable: %d dead, %d unobserved, "
			     "%d untraceable, %d dynamic-reachable\n",
			verdicts[CGM_VERDICT_DEAD], verdicts[CGM_VERDICT_UNOBSERVED],
			verdicts[CGM_VERDICT_UNTRACEABLE], verdicts[CGM_VERDICT_DYNAMIC_REACHABLE]);
#undef PLURAL
}
