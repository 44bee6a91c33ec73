/*
 * runtime_delta.c - `cgmap collect --since FILE`: the calls a server made
 * after an earlier collect, so that windows compose (a week as seven days).
 *
 * In:  the runtime data read now (one source) and the earlier runtime file's
 *      (one source).  Out: `now` holds the differences: each edge and
 *      function figure minus the earlier one, the window from the earlier
 *      end to now; rows that did not change are removed.  cgmap_trace 1.3's
 *      paths, shapes and timeline buckets are subtracted the same way, by
 *      their frames, their edge sets, their (function, bucket start); a
 *      path's least and greatest time of one call stay those of the whole
 *      counting window (they cannot be subtracted); cgmap_trace 1.4's runs
 *      of dynamic statements by (function, line, body); cgmap_trace 1.5's
 *      calls of dropped functions by (function, identity) (a function
 *      created again after FILE has all the calls of its identity's earlier
 *      incarnations, as FILE had none of them for it); the count of call
 *      records lost to drops (stale_removed) as a figure.  Everything stays
 *      in now->arena; nothing is allocated elsewhere.
 * The earlier file must come from the same server and database (system
 * identifier, port and database when both know them, else the name), and
 * the counters must not have been reset in between (the same window start);
 * otherwise an error names the file.
 *
 * `cgmap collect --reset` starts the next window right after reading:
 * cgmap_trace_reset() and pg_stat_reset() of the database, each where the
 * role may (a diagnostic when refused).  Calls made between the read and
 * the reset are in neither window.
 */
#include "cgmap/runtime.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmap/arena.h"
#include "cgmap/error.h"

static bool same_text(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static const cgm_runtime_edge *find_edge(const cgm_runtime *rt, const cgm_runtime_edge *key)
{
	for (int i = 0; i < rt->nedges; i++) {
		const cgm_runtime_edge *e = &rt->edges[i];
		if (same_text(e->caller, key->caller) && strcmp(e->callee, key->callee) == 0 &&
		    e->site_line == key->site_line && e->dynamic == key->dynamic &&
		    same_text(e->caller_body, key->caller_body) && e->kept == key->kept)
			return e;
	}
	return NULL;
}

static const cgm_runtime_site_run *find_site_run(const cgm_runtime *rt,
						 const cgm_runtime_site_run *key)
{
	for (int i = 0; i < rt->nsite_runs; i++) {
		const cgm_runtime_site_run *r = &rt->site_runs[i];
		if (strcmp(r->function, key->function) == 0 && r->site_line == key->site_line &&
		    same_text(r->body, key->body))
			return r;
	}
	return NULL;
}

static const cgm_runtime_gone *find_gone(const cgm_runtime *rt, const cgm_runtime_gone *key)
{
	for (int i = 0; i < rt->ngone; i++) {
		const cgm_runtime_gone *g = &rt->gone[i];
		if (strcmp(g->function, key->function) == 0 && same_text(g->identity, key->identity))
			return g;
	}
	return NULL;
}

static void add_diagnostic(cgm_runtime *rt, const char *message)
{
	rt->diagnostics = cgm_arena_grow(rt->arena, rt->diagnostics, (size_t)rt->ndiagnostics,
					 (size_t)rt->ndiagnostics + 1, sizeof(cgm_diagnostic));
	rt->cap_diagnostics = rt->ndiagnostics + 1;
	cgm_diagnostic *d = &rt->diagnostics[rt->ndiagnostics++];
	memset(d, 0, sizeof *d);
	d->message = message;
}

static const cgm_runtime_function *find_function(const cgm_runtime *rt, const char *id)
{
	for (int i = 0; i < rt->nfunctions; i++)
		if (strcmp(rt->functions[i].id, id) == 0)
			return &rt->functions[i];
	return NULL;
}

static int path_ptr_cmp(const void *a, const void *b)
{
	return cgm_runtime_path_cmp(*(const cgm_runtime_path *const *)a,
				    *(const cgm_runtime_path *const *)b);
}

static int shape_ptr_cmp(const void *a, const void *b)
{
	return cgm_runtime_shape_cmp(*(const cgm_runtime_shape *const *)a,
				     *(const cgm_runtime_shape *const *)b);
}

static int bucket_ptr_cmp(const void *a, const void *b)
{
	const cgm_runtime_bucket *x = *(const cgm_runtime_bucket *const *)a;
	const cgm_runtime_bucket *y = *(const cgm_runtime_bucket *const *)b;
	int c = strcmp(x->function, y->function);
	return c ? c : strcmp(x->start, y->start);
}

/* Pointers to n rows of `size` bytes, sorted by cmp, in arena. */
static const void **sorted(cgm_arena *arena, const void *rows, int n, size_t size,
			   int (*cmp)(const void *, const void *))
{
	const void **v = cgm_arena_alloc(arena, ((size_t)n + 1) * sizeof(*v));
	for (int i = 0; i < n; i++)
		v[i] = (const char *)rows + (size_t)i * size;
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return v;
}

/* The row of sorted v (n of them) equal to key, or NULL. */
static const void *find_sorted(const void **v, int n, const void *key,
			       int (*cmp)(const void *, const void *))
{
	const void **hit = bsearch(&key, v, (size_t)n, sizeof(*v), cmp);
	return hit ? *hit : NULL;
}

static void subtract(cgm_runtime_stats *to, const cgm_runtime_stats *from)
{
	to->calls = to->calls > from->calls ? to->calls - from->calls : 0;
	to->total_ms = to->total_ms > from->total_ms ? to->total_ms - from->total_ms : 0;
	to->self_ms = to->self_ms > from->self_ms ? to->self_ms - from->self_ms : 0;
}

int cgm_runtime_subtract(cgm_runtime *now, const cgm_runtime *before, const char *path)
{
	if (now->nsources != 1 || before->nsources != 1)
		return cgm_error(CGM_EUSAGE, "--since '%s': needs one source on each side", path);
	cgm_runtime_source *src = &now->sources[0];
	const cgm_runtime_source *old = &before->sources[0];
	bool by_id = src->system_id && old->system_id;
	const char *old_db = old->database ? old->database : "";
	size_t at = strcspn(old_db, "@");
	bool same_server =
		by_id ? strcmp(src->system_id, old->system_id) == 0 && same_text(src->port, old->port) &&
				src->database && strlen(src->database) == at &&
				strncmp(src->database, old_db, at) == 0
		      : src->name && strcmp(src->name, old_db) == 0;
	if (!same_server)
		return cgm_error(CGM_EINPUT,
				 "--since '%s': collected from another server or database ('%s', "
				 "not '%s')",
				 path, old_db, src->name ? src->name : "");
	if (!same_text(src->since, old->since))
		return cgm_error(CGM_EINPUT,
				 "--since '%s': the counters were reset since it was collected "
				 "(window start %s, now %s): collect without --since",
				 path, old->since ? old->since : "unknown",
				 src->since ? src->since : "unknown");
	int k = 0;
	for (int i = 0; i < now->nedges; i++) {
		cgm_runtime_edge e = now->edges[i];
		const cgm_runtime_edge *o = find_edge(before, &e);
		if (o)
			subtract(&e.stats, &o->stats);
		if (e.stats.calls > 0)
			now->edges[k++] = e;
	}
	now->nedges = k;
	k = 0;
	for (int i = 0; i < now->nfunctions; i++) {
		cgm_runtime_function f = now->functions[i];
		const cgm_runtime_function *o = find_function(before, f.id);
		if (o)
			subtract(&f.stats, &o->stats);
		if (f.stats.calls > 0)
			now->functions[k++] = f;
	}
	now->nfunctions = k;
	const void **v = sorted(now->arena, before->paths, before->npaths, sizeof(*before->paths),
				path_ptr_cmp);
	k = 0;
	for (int i = 0; i < now->npaths; i++) {
		cgm_runtime_path p = now->paths[i];
		const cgm_runtime_path *o = find_sorted(v, before->npaths, &p, path_ptr_cmp);
		if (o)
			subtract(&p.stats, &o->stats);
		if (p.stats.calls > 0)
			now->paths[k++] = p;
	}
	now->npaths = k;
	v = sorted(now->arena, before->shapes, before->nshapes, sizeof(*before->shapes),
		   shape_ptr_cmp);
	k = 0;
	for (int i = 0; i < now->nshapes; i++) {
		cgm_runtime_shape sh = now->shapes[i];
		const cgm_runtime_shape *o = find_sorted(v, before->nshapes, &sh, shape_ptr_cmp);
		if (o)
			sh.calls = sh.calls > o->calls ? sh.calls - o->calls : 0;
		if (sh.calls > 0)
			now->shapes[k++] = sh;
	}
	now->nshapes = k;
	v = sorted(now->arena, before->buckets, before->nbuckets, sizeof(*before->buckets),
		   bucket_ptr_cmp);
	k = 0;
	for (int i = 0; i < now->nbuckets; i++) {
		cgm_runtime_bucket b = now->buckets[i];
		const cgm_runtime_bucket *o = find_sorted(v, before->nbuckets, &b, bucket_ptr_cmp);
		if (o) {
			b.calls = b.calls > o->calls ? b.calls - o->calls : 0;
			b.self_ms = b.self_ms > o->self_ms ? b.self_ms - o->self_ms : 0;
		}
		if (b.calls > 0)
			now->buckets[k++] = b;
	}
	now->nbuckets = k;
	k = 0;
	for (int i = 0; i < now->nsite_runs; i++) {
		cgm_runtime_site_run r = now->site_runs[i];
		const cgm_runtime_site_run *o = find_site_run(before, &r);
		if (o)
			r.runs = r.runs > o->runs ? r.runs - o->runs : 0;
		if (r.runs > 0)
			now->site_runs[k++] = r;
	}
	now->nsite_runs = k;
	k = 0;
	for (int i = 0; i < now->ngone; i++) {
		cgm_runtime_gone g = now->gone[i];
		const cgm_runtime_gone *o = find_gone(before, &g);
		if (o)
			subtract(&g.stats, &o->stats);
		if (g.stats.calls > 0)
			now->gone[k++] = g;
	}
	now->ngone = k;
	if (src->has_paths && !old->has_paths && (now->npaths || now->nshapes || now->nbuckets))
		/* FILE came from cgmap_trace before 1.3: nothing to subtract */
		add_diagnostic(now, cgm_arena_printf(now->arena,
						     "--since '%s' has no call paths, shapes or timeline "
						     "(collected before cgmap_trace 1.3): those of this file "
						     "count from %s, not from its end",
						     path, src->since ? src->since : "the window's start"));
	if (src->has_site_runs && !old->has_site_runs && now->nsite_runs)
		add_diagnostic(now, cgm_arena_printf(now->arena,
						     "--since '%s' has no runs of dynamic statements "
						     "(collected before cgmap_trace 1.4): those of this file "
						     "count from %s, not from its end",
						     path, src->since ? src->since : "the window's start"));
	if (src->has_gone && !old->has_gone && now->ngone)
		add_diagnostic(now, cgm_arena_printf(now->arena,
						     "--since '%s' has no calls of dropped functions "
						     "(collected before cgmap_trace 1.5): those of this file "
						     "count from %s, not from its end",
						     path, src->since ? src->since : "the window's start"));
	if (src->has_paths && old->has_paths) {
		src->paths_dropped -= src->paths_dropped > old->paths_dropped ? old->paths_dropped
									     : src->paths_dropped;
		src->shapes_dropped -= src->shapes_dropped > old->shapes_dropped
					       ? old->shapes_dropped
					       : src->shapes_dropped;
		src->timeline_dropped -= src->timeline_dropped > old->timeline_dropped
						 ? old->timeline_dropped
						 : src->timeline_dropped;
	}
	/* cgmap_trace counts its removals since the reset, as the calls: the
	 * delta's are those after FILE.  FILE without the count (an older
	 * cgmap), or counting also the records whose calls 1.5 keeps: all of
	 * them stay, which may be more than the delta lost. */
	if (src->trace_stale_removed > 0 && old->trace_stale_removed >= 0 &&
	    src->has_gone == old->has_gone)
		src->trace_stale_removed -= src->trace_stale_removed > old->trace_stale_removed
						    ? old->trace_stale_removed
						    : src->trace_stale_removed;
	src->since = cgm_arena_strdup(now->arena, old->until);
	return 0;
}

static void reset_diagnostic(cgm_runtime *rt, const char *what, PGresult *res)
{
	const char *msg = res ? PQresultErrorMessage(res) : "no result";
	int n = (int)strcspn(msg, "\n");
	add_diagnostic(rt, cgm_arena_printf(rt->arena, "--reset: %s was refused (%.*s): that counter "
						       "keeps counting from its old start",
					    what, n, msg));
}

int cgm_runtime_reset_pg(cgm_runtime *rt, const char *dsn)
{
	PGconn *conn = PQconnectdb(dsn ? dsn : "");
	if (!conn || PQstatus(conn) != CONNECTION_OK) {
		const char *msg = conn ? PQerrorMessage(conn) : "out of memory";
		int rc = cgm_error(CGM_ESOURCE, "--reset: cannot connect to '%s': %.*s",
				   dsn && *dsn ? dsn : "(environment)", (int)strcspn(msg, "\n"), msg);
		PQfinish(conn);
		return rc;
	}
	PGresult *res = PQexec(conn, "SELECT n.nspname FROM pg_catalog.pg_extension e"
				     " JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) e.extnamespace"
				     " WHERE e.extname OPERATOR(pg_catalog.=) 'cgmap_trace'");
	if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1) {
		const char *schema = PQgetvalue(res, 0, 0);
		char *quoted = PQescapeIdentifier(conn, schema, strlen(schema));
		PQclear(res);
		if (quoted) {
			char *sql = cgm_arena_printf(rt->arena, "SELECT %s.cgmap_trace_reset()", quoted);
			PQfreemem(quoted);
			res = PQexec(conn, sql);
			if (PQresultStatus(res) != PGRES_TUPLES_OK)
				reset_diagnostic(rt, "cgmap_trace_reset()", res);
		}
	}
	PQclear(res);
	res = PQexec(conn, "SELECT pg_catalog.pg_stat_reset()");
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		reset_diagnostic(rt, "pg_stat_reset()", res);
	PQclear(res);
	PQfinish(conn);
	return 0;
}
