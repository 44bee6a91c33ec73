/*
 * runtime_file.c - runtime data in: a live server (cgmap_trace edges and
 * pg_stat_user_functions), runtime files written by `cgmap collect`
 * (docs/runtime-data.md), and server logs with `digraph {oid->oid;...}`
 * lines; and runtime data out: the runtime file.
 *
 * In:  a dsn, file paths.  Out: rows appended to a cgm_runtime (edges,
 *      per-function figures, one source per call, diagnostics), all in
 *      rt->arena and freed by cgm_runtime_free().  libpq results and
 *      jansson trees are freed before returning.
 * Identities are regprocedure text read with an empty search_path, the
 * model's ids; OIDs never leave the server they came from.
 */
#include "cgmap/runtime.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <jansson.h>
#include <libpq-fe.h>
#include <stdlib.h>
#include <string.h>

#include "cgmap/bodyver.h"
#include "cgmap/error.h"
#include "cgmap/escape.h"
#include "cgmap/infile.h"
#include "cgmap/serverlog.h"
#include "cgmap/verdict.h"
#include "outdir.h"

#define ISO_UTC "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'"

cgm_runtime *cgm_runtime_new(void)
{
	cgm_arena *arena = cgm_arena_new();
	cgm_runtime *rt = cgm_arena_alloc(arena, sizeof(cgm_runtime));
	rt->arena = arena;
	return rt;
}

void cgm_runtime_free(cgm_runtime *rt)
{
	if (rt)
		cgm_arena_free(rt->arena);
}

#define RT_APPEND(rt, arr, n, cap, type)                                               \
	do {                                                                           \
		if ((rt)->n == (rt)->cap) {                                            \
			int newcap = (rt)->cap ? (rt)->cap * 2 : 64;                   \
			(rt)->arr = cgm_arena_grow((rt)->arena, (rt)->arr, (size_t)(rt)->n, \
						   (size_t)newcap, sizeof(type));      \
			(rt)->cap = newcap;                                            \
		}                                                                      \
		type *slot = &(rt)->arr[(rt)->n++];                                    \
		memset(slot, 0, sizeof(type));                                         \
		return slot;                                                           \
	} while (0)

static cgm_runtime_edge *rt_add_edge(cgm_runtime *rt)
{
	RT_APPEND(rt, edges, nedges, cap_edges, cgm_runtime_edge);
}

static cgm_runtime_function *rt_add_function(cgm_runtime *rt)
{
	RT_APPEND(rt, functions, nfunctions, cap_functions, cgm_runtime_function);
}

static cgm_runtime_source *rt_add_source(cgm_runtime *rt)
{
	RT_APPEND(rt, sources, nsources, cap_sources, cgm_runtime_source);
}

static cgm_runtime_path *rt_add_path(cgm_runtime *rt)
{
	RT_APPEND(rt, paths, npaths, cap_paths, cgm_runtime_path);
}

static cgm_runtime_shape *rt_add_shape(cgm_runtime *rt)
{
	RT_APPEND(rt, shapes, nshapes, cap_shapes, cgm_runtime_shape);
}

static cgm_runtime_bucket *rt_add_bucket(cgm_runtime *rt)
{
	RT_APPEND(rt, buckets, nbuckets, cap_buckets, cgm_runtime_bucket);
}

static cgm_runtime_site_run *rt_add_site_run(cgm_runtime *rt)
{
	RT_APPEND(rt, site_runs, nsite_runs, cap_site_runs, cgm_runtime_site_run);
}

static cgm_runtime_gone *rt_add_gone(cgm_runtime *rt)
{
	RT_APPEND(rt, gone, ngone, cap_gone, cgm_runtime_gone);
}

static cgm_diagnostic *rt_add_diagnostic_slot(cgm_runtime *rt)
{
	RT_APPEND(rt, diagnostics, ndiagnostics, cap_diagnostics, cgm_diagnostic);
}

static void rt_diagnostic(cgm_runtime *rt, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void rt_diagnostic(cgm_runtime *rt, const char *file, int line, const char *fmt, ...)
{
	va_list ap, ap2;
	va_start(ap, fmt);
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *msg = cgm_arena_alloc(rt->arena, (size_t)n + 1);
	vsnprintf(msg, (size_t)n + 1, fmt, ap2);
	va_end(ap2);
	cgm_diagnostic *d = rt_add_diagnostic_slot(rt);
	d->file = cgm_arena_strdup(rt->arena, file);
	d->line = line;
	d->message = msg;
}

/* ---- paths, shapes and timeline (cgmap_trace 1.3): one JSON object per
 * row, as a runtime file holds them and as the live query builds them ---- */

/* The most frames a path may have: cgmap_trace keeps 32. */
#define RT_PATH_MAX_FRAMES 1000
/* The most edges a shape may have: cgmap_trace keeps 64. */
#define RT_SHAPE_MAX_EDGES 100000

static bool all_digits(const char *s);
static bool opt_string(const char **out, json_t *obj, const char *key);
static bool read_figures(cgm_runtime_stats *out, json_t *obj);

/* Row outcome: taken, malformed (the caller says which row), or naming a
 * function dropped since (regprocedure prints a missing OID as digits). */
enum { ROW_OK, ROW_BAD, ROW_GONE };

static bool line_value(int *out, json_t *v)
{
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > INT_MAX)
		return false;
	*out = (int)json_integer_value(v);
	return true;
}

/* {frames, lines, calls, total_ms, self_ms, min_ms, max_ms} */
static int read_path_row(cgm_runtime *rt, json_t *item, int source)
{
	if (!json_is_object(item))
		return ROW_BAD;
	json_t *frames = json_object_get(item, "frames");
	json_t *lines = json_object_get(item, "lines");
	json_t *mn = json_object_get(item, "min_ms");
	json_t *mx = json_object_get(item, "max_ms");
	cgm_runtime_stats stats = { 0 };
	size_t n = json_array_size(frames);
	if (!json_is_array(frames) || !json_is_array(lines) || n == 0 ||
	    n > RT_PATH_MAX_FRAMES || json_array_size(lines) != n || !read_figures(&stats, item) ||
	    (mn && !json_is_number(mn)) || (mx && !json_is_number(mx)))
		return ROW_BAD;
	double min_ms = mn ? json_number_value(mn) : 0, max_ms = mx ? json_number_value(mx) : 0;
	if (!cgm_stats_time_valid(stats.total_ms) || !cgm_stats_time_valid(stats.self_ms) ||
	    !cgm_stats_time_valid(min_ms) || !cgm_stats_time_valid(max_ms))
		return ROW_BAD;
	const char **names = cgm_arena_alloc(rt->arena, n * sizeof(*names));
	int *at = cgm_arena_alloc(rt->arena, n * sizeof(*at));
	bool gone = false;
	for (size_t i = 0; i < n; i++) {
		json_t *f = json_array_get(frames, i);
		if (!json_is_string(f) || !*json_string_value(f) ||
		    !line_value(&at[i], json_array_get(lines, i)))
			return ROW_BAD;
		names[i] = cgm_arena_strdup(rt->arena, json_string_value(f));
		gone |= all_digits(names[i]);
	}
	if (gone)
		return ROW_GONE;
	cgm_runtime_path *p = rt_add_path(rt);
	p->nframes = (int)n;
	p->frames = names;
	p->lines = at;
	p->stats = stats;
	p->min_ms = min_ms;
	p->max_ms = max_ms;
	p->source = source;
	return ROW_OK;
}

static int compare_shape_edges(const void *a, const void *b)
{
	const cgm_runtime_shape_edge *x = a, *y = b;
	int c = strcmp(x->caller, y->caller);
	if (!c)
		c = strcmp(x->callee, y->callee);
	if (!c)
		c = x->site_line < y->site_line ? -1 : x->site_line > y->site_line;
	if (!c)
		c = (int)x->dynamic - (int)y->dynamic;
	return c;
}

/* {entry, edges: [{caller, callee, site_line, dynamic}], calls} */
static int read_shape_row(cgm_runtime *rt, json_t *item, int source)
{
	if (!json_is_object(item))
		return ROW_BAD;
	const char *entry = NULL;
	json_t *edges = json_object_get(item, "edges");
	json_t *calls = json_object_get(item, "calls");
	size_t n = json_array_size(edges);
	if (!opt_string(&entry, item, "entry") || !entry || !*entry ||
	    (edges && !json_is_null(edges) && !json_is_array(edges)) || n > RT_SHAPE_MAX_EDGES ||
	    !json_is_integer(calls) || json_integer_value(calls) < 0)
		return ROW_BAD;
	cgm_runtime_shape_edge *list = cgm_arena_alloc(rt->arena, (n ? n : 1) * sizeof(*list));
	bool gone = all_digits(entry);
	for (size_t i = 0; i < n; i++) {
		json_t *e = json_array_get(edges, i);
		const char *caller = NULL, *callee = NULL;
		json_t *dynamic = json_object_get(e, "dynamic");
		if (!json_is_object(e) || !opt_string(&caller, e, "caller") || !caller ||
		    !opt_string(&callee, e, "callee") || !callee ||
		    !line_value(&list[i].site_line, json_object_get(e, "site_line")) ||
		    (dynamic && !json_is_boolean(dynamic)))
			return ROW_BAD;
		list[i].caller = cgm_arena_strdup(rt->arena, caller);
		list[i].callee = cgm_arena_strdup(rt->arena, callee);
		list[i].dynamic = json_is_true(dynamic);
		gone |= all_digits(caller) || all_digits(callee);
	}
	if (gone)
		return ROW_GONE;
	/* the server sorts by OID; names sort the same everywhere */
	qsort(list, n, sizeof(*list), compare_shape_edges);
	cgm_runtime_shape *sh = rt_add_shape(rt);
	sh->entry = cgm_arena_strdup(rt->arena, entry);
	sh->nedges = (int)n;
	sh->edges = list;
	sh->calls = json_integer_value(calls);
	sh->source = source;
	return ROW_OK;
}

/* An ISO 8601 UTC time as collect writes it: YYYY-MM-DDTHH:MM:SSZ. */
static bool iso_utc(const char *s)
{
	static const char shape[] = "dddd-dd-ddTdd:dd:ddZ";
	if (strlen(s) != sizeof(shape) - 1)
		return false;
	for (size_t i = 0; shape[i]; i++)
		if (shape[i] == 'd' ? !isdigit((unsigned char)s[i]) : s[i] != shape[i])
			return false;
	return true;
}

/* {function, start, calls, self_ms} */
static int read_bucket_row(cgm_runtime *rt, json_t *item, int source)
{
	if (!json_is_object(item))
		return ROW_BAD;
	const char *function = NULL, *start = NULL;
	json_t *calls = json_object_get(item, "calls");
	json_t *self = json_object_get(item, "self_ms");
	if (!opt_string(&function, item, "function") || !function || !*function ||
	    !opt_string(&start, item, "start") || !start || !iso_utc(start) ||
	    !json_is_integer(calls) || json_integer_value(calls) < 0 ||
	    (self && !json_is_number(self)) ||
	    (self && !cgm_stats_time_valid(json_number_value(self))))
		return ROW_BAD;
	if (all_digits(function))
		return ROW_GONE;
	cgm_runtime_bucket *b = rt_add_bucket(rt);
	b->function = cgm_arena_strdup(rt->arena, function);
	b->start = cgm_arena_strdup(rt->arena, start);
	b->calls = json_integer_value(calls);
	b->self_ms = self ? json_number_value(self) : 0;
	b->source = source;
	return ROW_OK;
}

/* {function, site_line, body, runs} (cgmap_trace 1.4) */
static int read_site_run_row(cgm_runtime *rt, json_t *item, int source)
{
	if (!json_is_object(item))
		return ROW_BAD;
	const char *function = NULL, *body = NULL;
	int line = 0;
	json_t *runs = json_object_get(item, "runs");
	if (!opt_string(&function, item, "function") || !function || !*function ||
	    !line_value(&line, json_object_get(item, "site_line")) || line == 0 ||
	    !opt_string(&body, item, "body") || (body && !cgm_body_version_valid(body)) ||
	    !json_is_integer(runs) || json_integer_value(runs) < 0)
		return ROW_BAD;
	if (all_digits(function))
		return ROW_GONE;
	cgm_runtime_site_run *r = rt_add_site_run(rt);
	r->function = cgm_arena_strdup(rt->arena, function);
	r->site_line = line;
	r->body = body ? cgm_arena_strdup(rt->arena, body) : NULL;
	r->runs = json_integer_value(runs);
	r->source = source;
	return ROW_OK;
}

/* {function, identity, calls, total_ms, self_ms} (cgmap_trace 1.5) */
static int read_gone_row(cgm_runtime *rt, json_t *item, int source)
{
	if (!json_is_object(item))
		return ROW_BAD;
	const char *function = NULL, *identity = NULL;
	cgm_runtime_stats stats = { 0 };
	if (!opt_string(&function, item, "function") || !function || !*function ||
	    !opt_string(&identity, item, "identity") || (identity && !*identity) ||
	    !read_figures(&stats, item) || cgm_runtime_stats_clamp(&stats))
		return ROW_BAD;
	if (all_digits(function))
		return ROW_GONE;
	cgm_runtime_gone *g = rt_add_gone(rt);
	g->function = cgm_arena_strdup(rt->arena, function);
	g->identity = identity ? cgm_arena_strdup(rt->arena, identity) : NULL;
	g->stats = stats;
	g->source = source;
	return ROW_OK;
}

/* {caller, callee, site_line, dynamic, body, calls, total_ms, self_ms}
 * (cgmap_trace 1.8): an edge kept when a function it names was dropped,
 * each name the function of that identity now; no callee: a site run, its
 * runs in calls, added to the run of the same key read live. */
static int read_gone_edge_row(cgm_runtime *rt, json_t *item, int source)
{
	if (!json_is_object(item))
		return ROW_BAD;
	const char *caller = NULL, *callee = NULL, *body = NULL;
	int line = 0;
	cgm_runtime_stats stats = { 0 };
	json_t *dynamic = json_object_get(item, "dynamic");
	if (!opt_string(&caller, item, "caller") || (caller && !*caller) ||
	    !opt_string(&callee, item, "callee") || (callee && !*callee) || (!caller && !callee) ||
	    !line_value(&line, json_object_get(item, "site_line")) ||
	    (dynamic && !json_is_boolean(dynamic)) || !opt_string(&body, item, "body") ||
	    (body && !cgm_body_version_valid(body)) || !read_figures(&stats, item) ||
	    cgm_runtime_stats_clamp(&stats))
		return ROW_BAD;
	if ((caller && all_digits(caller)) || (callee && all_digits(callee)))
		return ROW_GONE;
	if (!callee) {
		if (line <= 0)
			return ROW_BAD;
		for (int i = 0; i < rt->nsite_runs; i++) {
			cgm_runtime_site_run *r = &rt->site_runs[i];
			if (r->source == source && r->site_line == line &&
			    strcmp(r->function, caller) == 0 &&
			    ((!r->body && !body) || (r->body && body && strcmp(r->body, body) == 0))) {
				r->runs = cgm_count_add(r->runs, stats.calls, &(bool){ false });
				return ROW_OK;
			}
		}
		cgm_runtime_site_run *r = rt_add_site_run(rt);
		r->function = cgm_arena_strdup(rt->arena, caller);
		r->site_line = line;
		r->body = body ? cgm_arena_strdup(rt->arena, body) : NULL;
		r->runs = stats.calls;
		r->source = source;
		return ROW_OK;
	}
	cgm_runtime_edge *e = rt_add_edge(rt);
	e->caller = caller ? cgm_arena_strdup(rt->arena, caller) : NULL;
	e->callee = cgm_arena_strdup(rt->arena, callee);
	e->site_line = caller ? line : 0;
	e->dynamic = json_is_true(dynamic);
	e->caller_body = caller && body ? cgm_arena_strdup(rt->arena, body) : NULL;
	e->stats = stats;
	e->kept = true;
	e->source = source;
	return ROW_OK;
}

/* ---- live server ---- */

static PGconn *connect_quiet(const char *dsn, const char *what)
{
	PGconn *conn = PQconnectdb(dsn ? dsn : "");
	if (!conn || PQstatus(conn) != CONNECTION_OK) {
		const char *msg = conn ? PQerrorMessage(conn) : "out of memory";
		size_t len = strlen(msg);
		while (len && (msg[len - 1] == '\n' || msg[len - 1] == ' '))
			len--;
		cgm_error(CGM_ESOURCE, "%s: cannot connect to '%s': %.*s", what,
			  dsn && *dsn ? dsn : "(environment)", (int)len, msg);
		PQfinish(conn);
		return NULL;
	}
	return conn;
}

/* A query that must work: NULL (message set) otherwise. */
static PGresult *must_query(PGconn *conn, const char *what, const char *sql)
{
	PGresult *res = PQexec(conn, sql);
	ExecStatusType st = PQresultStatus(res);
	if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
		const char *msg = PQresultErrorMessage(res);
		size_t len = strlen(msg);
		while (len && msg[len - 1] == '\n')
			len--;
		cgm_error(CGM_ESOURCE, "%s: query failed: %.*s", what, (int)len, msg);
		PQclear(res);
		return NULL;
	}
	return res;
}

static const char *cell(PGresult *res, int row, int col)
{
	return PQgetisnull(res, row, col) ? NULL : PQgetvalue(res, row, col);
}

static bool all_digits(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* "demo@db1:5432", or "demo" over a unix socket (its folder says nothing
 * to anybody else and would make outputs differ between runs). */
static const char *server_name(cgm_arena *arena, PGconn *conn, const char *database)
{
	const char *host = PQhost(conn);
	const char *port = PQport(conn);
	if (!host || !*host || host[0] == '/')
		return cgm_arena_strdup(arena, database);
	return cgm_arena_printf(arena, "%s@%s:%s", database, host, port ? port : "");
}

/* Identity and clock of the server; prepares the session so that
 * regprocedure text comes out schema-qualified. */
static int read_server(cgm_runtime_source *src, cgm_runtime *rt, PGconn *conn, const char *what)
{
	PGresult *res = must_query(conn, what, "SELECT pg_catalog.set_config('search_path', '', false)");
	if (!res)
		return CGM_ESOURCE;
	PQclear(res);
	res = must_query(conn, what,
			 "SELECT pg_catalog.current_database(),"
			 " pg_catalog.current_setting('server_version'),"
			 " pg_catalog.current_setting('track_functions'),"
			 " pg_catalog.to_char(pg_catalog.now() AT TIME ZONE 'UTC', " ISO_UTC "),"
			 " (SELECT pg_catalog.to_char(d.stats_reset AT TIME ZONE 'UTC', " ISO_UTC ")"
			 "    FROM pg_catalog.pg_stat_database d"
			 "   WHERE d.datname = pg_catalog.current_database()),"
			 " pg_catalog.to_char(pg_catalog.pg_postmaster_start_time() AT TIME ZONE 'UTC', "
			 ISO_UTC "),"
			 " pg_catalog.current_setting('port'),"
			 " pg_catalog.current_setting('cgmap_trace.track', true)");
	if (!res)
		return CGM_ESOURCE;
	src->kind = "database";
	src->database = cgm_arena_strdup(rt->arena, cell(res, 0, 0));
	src->name = server_name(rt->arena, conn, src->database);
	src->server_version = cgm_arena_strdup(rt->arena, cell(res, 0, 1));
	src->track_functions = cgm_arena_strdup(rt->arena, cell(res, 0, 2));
	src->until = cgm_arena_strdup(rt->arena, cell(res, 0, 3));
	/* Statistics never reset cover at least the time since the server
	 * started: a window at least that long. */
	src->since = cgm_arena_strdup(rt->arena, cell(res, 0, 4) ? cell(res, 0, 4) : cell(res, 0, 5));
	src->port = cgm_arena_strdup(rt->arena, cell(res, 0, 6));
	src->trace_track = cell(res, 0, 7) && *cell(res, 0, 7)
				   ? cgm_arena_strdup(rt->arena, cell(res, 0, 7))
				   : NULL;
	src->trace_evictions = -1;
	src->trace_stale_removed = -1;
	PQclear(res);
	/* The server's identity, which survives renames and tunnels: may be
	 * refused to a role without pg_monitor, then the name stands in. */
	res = PQexec(conn, "SELECT system_identifier::pg_catalog.text FROM pg_catalog.pg_control_system()");
	if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1 && cell(res, 0, 0))
		src->system_id = cgm_arena_strdup(rt->arena, cell(res, 0, 0));
	PQclear(res);
	return 0;
}

/* Functions whose calls say nothing about the application: the system's
 * (a pg_catalog SQL function the catalog queries of cgmap itself call) and
 * cgmap_trace's own (called to read the data).  `p` is the pg_proc row. */
#define NOT_SYSTEM_FUNCTION                                                              \
	" p.pronamespace OPERATOR(pg_catalog.<>) 'pg_catalog'::pg_catalog.regnamespace"   \
	" AND p.pronamespace OPERATOR(pg_catalog.<>)"                                    \
	"     'information_schema'::pg_catalog.regnamespace"                               \
	" AND NOT EXISTS (SELECT FROM pg_catalog.pg_depend d"                            \
	"   JOIN pg_catalog.pg_extension x ON x.oid OPERATOR(pg_catalog.=) d.refobjid"     \
	"  WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass" \
	"    AND d.objid OPERATOR(pg_catalog.=) p.oid AND d.deptype OPERATOR(pg_catalog.=) 'e'" \
	"    AND x.extname OPERATOR(pg_catalog.=) 'cgmap_trace')"

/* The cgmap_trace view and info, when the extension is in this database. */
/* One query whose rows are each one JSON object (text), read by `row`;
 * *gone_rows (may be NULL): how many named a dropped function. */
static int read_json_rows(int *gone_rows, cgm_runtime *rt, int source, PGconn *conn,
			  const char *what, const char *sql, const char *list,
			  int (*row)(cgm_runtime *, json_t *, int))
{
	PGresult *res = must_query(conn, what, sql);
	if (!res)
		return CGM_ESOURCE;
	int gone = 0;
	for (int i = 0; i < PQntuples(res); i++) {
		json_error_t jerr;
		const char *text = PQgetvalue(res, i, 0);
		json_t *item = json_loads(text, 0, &jerr);
		int got = item ? row(rt, item, source) : ROW_BAD;
		json_decref(item);
		if (got == ROW_GONE)
			gone++;
		else if (got == ROW_BAD)
			rt_diagnostic(rt, NULL, 0,
				      "cgmap_trace %s of database '%s': row %.200s is not what "
				      "cgmap reads: skipped",
				      list, rt->sources[source].database, text);
	}
	PQclear(res);
	if (gone)
		rt_diagnostic(rt, NULL, 0,
			      "%d cgmap_trace %s of database '%s' name functions that no longer "
			      "exist (dropped since observed): ignored",
			      gone, list, rt->sources[source].database);
	if (gone_rows)
		*gone_rows = gone;
	return 0;
}

/* cgmap_trace 1.3: the current database's paths, shapes and timeline. */
static int read_paths(cgm_runtime *rt, int source, PGconn *conn, const char *schema,
		      const char *what)
{
	char *sql = cgm_arena_printf(
		rt->arena,
		"SELECT pg_catalog.json_build_object('frames', p.frames, 'lines', p.lines,"
		" 'calls', p.calls, 'total_ms', p.total_ms, 'self_ms', p.self_ms,"
		" 'min_ms', p.min_ms, 'max_ms', p.max_ms)::text"
		" FROM %s.cgmap_trace_paths p WHERE p.frames IS NOT NULL",
		schema);
	int rc = read_json_rows(NULL, rt, source, conn, what, sql, "paths", read_path_row);
	if (rc < 0)
		return rc;
	sql = cgm_arena_printf(
		rt->arena,
		"SELECT pg_catalog.json_build_object('entry', s.entry::text, 'calls', s.calls,"
		" 'edges', (SELECT pg_catalog.json_agg(pg_catalog.json_build_object("
		"   'caller', u.c::pg_catalog.regprocedure::text,"
		"   'callee', u.e::pg_catalog.regprocedure::text,"
		"   'site_line', u.l, 'dynamic', u.d) ORDER BY u.n)"
		"  FROM ROWS FROM (pg_catalog.unnest(s.caller_oids), pg_catalog.unnest(s.callee_oids),"
		"                  pg_catalog.unnest(s.lines), pg_catalog.unnest(s.dynamic))"
		"       WITH ORDINALITY AS u(c, e, l, d, n)))::text"
		" FROM %s.cgmap_trace_shapes s WHERE s.entry IS NOT NULL",
		schema);
	rc = read_json_rows(NULL, rt, source, conn, what, sql, "shapes", read_shape_row);
	if (rc < 0)
		return rc;
	sql = cgm_arena_printf(
		rt->arena,
		"SELECT pg_catalog.json_build_object('function', t.function::text,"
		" 'start', pg_catalog.to_char(t.bucket_start AT TIME ZONE 'UTC', " ISO_UTC "),"
		" 'calls', t.calls, 'self_ms', t.self_ms)::text"
		" FROM %s.cgmap_trace_timeline t WHERE t.function IS NOT NULL",
		schema);
	return read_json_rows(NULL, rt, source, conn, what, sql, "timeline buckets", read_bucket_row);
}

/* cgmap_trace 1.4: the runs of the current database's dynamic statements,
 * when the installed version has them (an older one: nothing, and the
 * source says it has none). */
static int read_site_runs(cgm_runtime *rt, int source, PGconn *conn, const char *schema,
			  const char *what)
{
	PGresult *res = must_query(conn, what,
				   "SELECT EXISTS (SELECT FROM pg_catalog.pg_class c"
				   " JOIN pg_catalog.pg_extension e"
				   "   ON c.relnamespace OPERATOR(pg_catalog.=) e.extnamespace"
				   " WHERE e.extname OPERATOR(pg_catalog.=) 'cgmap_trace'"
				   "   AND c.relname OPERATOR(pg_catalog.=) 'cgmap_trace_sites')");
	if (!res)
		return CGM_ESOURCE;
	bool present = PQntuples(res) == 1 && PQgetvalue(res, 0, 0)[0] == 't';
	PQclear(res);
	if (!present)
		return 0;
	char *sql = cgm_arena_printf(rt->arena,
			       "SELECT pg_catalog.json_build_object('function', s.fn::text,"
			       " 'site_line', s.site_line, 'body', s.caller_body, 'runs', s.runs)::text"
			       " FROM %s.cgmap_trace_sites s WHERE s.fn IS NOT NULL",
			       schema);
	int rc = read_json_rows(NULL, rt, source, conn, what, sql, "site runs", read_site_run_row);
	if (rc == 0)
		rt->sources[source].has_site_runs = true;
	return rc;
}

/* The function now of the identity `rel`.identity a row of
 * cgmap_trace_gone() gives, or NULL.  The view's own lookup,
 * to_regprocedure(identity), raises when a type the identity names is gone
 * too (a function dropped with its argument's type, DROP TYPE ... CASCADE):
 * one such record would fail the whole read.  The identity is matched
 * instead against what pg_identify_object() says of each function of that
 * name now, which is the text cgmap_trace kept
 * (format_procedure_qualified). */
#define FUNCTION_OF_IDENTITY(rel)                                                          \
	"(SELECT q.oid FROM pg_catalog.pg_proc q"                                              \
	"  WHERE pg_catalog.strpos(" rel ".identity, q.proname::text) OPERATOR(pg_catalog.>) 0"  \
	"    AND (pg_catalog.pg_identify_object('pg_catalog.pg_proc'::pg_catalog.regclass,"     \
	"         q.oid, 0)).identity OPERATOR(pg_catalog.=) " rel ".identity"                  \
	"  LIMIT 1)"

/* cgmap_trace 1.5: the calls the edges of dropped functions had counted,
 * for the current database's functions they count for now (a function of
 * a dropped one's identity created again, or a callee whose callers were
 * dropped).  A row whose function was dropped since is a record lost. */
static int read_gone(int *lost, cgm_runtime *rt, int source, PGconn *conn, const char *schema,
		     const char *what)
{
	char *sql = cgm_arena_printf(
		rt->arena,
		"SELECT pg_catalog.json_build_object('function', g.fn::text, 'identity', g.identity,"
		" 'calls', g.calls, 'total_ms', g.total_ms, 'self_ms', g.self_ms)::text"
		" FROM (SELECT CASE WHEN r.identity IS NULL THEN r.fn_oid::pg_catalog.regprocedure"
		"        ELSE " FUNCTION_OF_IDENTITY("r") "::pg_catalog.regprocedure END AS fn,"
		"       r.identity, r.calls, r.total_ms, r.self_ms"
		"       FROM %s.cgmap_trace_gone() r"
		"       JOIN pg_catalog.pg_database d ON d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database()"
		"      WHERE r.dbid OPERATOR(pg_catalog.=) d.oid) g"
		" LEFT JOIN pg_catalog.pg_proc p ON p.oid OPERATOR(pg_catalog.=) g.fn"
		" WHERE g.fn IS NOT NULL AND g.calls OPERATOR(pg_catalog.>) 0"
		"   AND (p.oid IS NULL OR (" NOT_SYSTEM_FUNCTION "))"
		" ORDER BY 1",
		schema);
	return read_json_rows(lost, rt, source, conn, what, sql, "calls of dropped functions",
			      read_gone_row);
}

/* cgmap_trace 1.8: the edges and site runs the extension kept when a
 * function they name was dropped (`lost`: those it had no room for).
 * Each OID is the function's now, or the dropped one's, which
 * cgmap_trace_gone() names by its identity, matched as read_gone matches
 * it; an edge of a function not created again names nothing that exists
 * and is left out (its calls were counted for its callee, if that exists). */
static int read_gone_edges(cgm_runtime *rt, int source, PGconn *conn, const char *schema,
			   const char *what, long long lost)
{
	if (lost > 0)
		rt_diagnostic(rt, NULL, 0,
			      "cgmap_trace of database '%s' could not keep %lld edge%s and dynamic "
			      "statement run%s of dropped functions (gone_edges_lost: its table of "
			      "them was full): a function created again since may have made calls "
			      "before its drop that its edges and dynamic sites do not show; their "
			      "calls are counted",
			      rt->sources[source].database, lost, lost == 1 ? "" : "s",
			      lost == 1 ? "" : "s");
	/* Joins, not a lookup per row: the table holds up to 16,384 records
	 * and cgmap_trace_gone up to 4,096 names. */
	char *sql = cgm_arena_printf(
		rt->arena,
		"WITH db AS (SELECT d.oid FROM pg_catalog.pg_database d"
		"            WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database()),"
		" named AS (SELECT r.fn_oid, " FUNCTION_OF_IDENTITY("r") " AS fn"
		"   FROM %s.cgmap_trace_gone() r, db"
		"   WHERE r.dbid OPERATOR(pg_catalog.=) db.oid AND r.identity IS NOT NULL),"
		" e AS (SELECT g.site_line, g.dynamic, g.caller_body, g.calls, g.total_ms, g.self_ms,"
		"   CASE WHEN g.caller OPERATOR(pg_catalog.=) 0 THEN 0 ELSE COALESCE(lc.oid, nc.fn) END"
		"     AS caller_now,"
		"   CASE WHEN g.callee OPERATOR(pg_catalog.=) 0 THEN 0 ELSE COALESCE(le.oid, ne.fn) END"
		"     AS callee_now"
		"   FROM %s.cgmap_trace_gone_edges() g"
		"   JOIN db ON g.dbid OPERATOR(pg_catalog.=) db.oid"
		"   LEFT JOIN pg_catalog.pg_proc lc ON lc.oid OPERATOR(pg_catalog.=) g.caller"
		"   LEFT JOIN named nc ON nc.fn_oid OPERATOR(pg_catalog.=) g.caller"
		"   LEFT JOIN pg_catalog.pg_proc le ON le.oid OPERATOR(pg_catalog.=) g.callee"
		"   LEFT JOIN named ne ON ne.fn_oid OPERATOR(pg_catalog.=) g.callee)"
		" SELECT pg_catalog.json_build_object("
		"  'caller', CASE WHEN e.caller_now OPERATOR(pg_catalog.<>) 0"
		"            THEN e.caller_now::pg_catalog.regprocedure::text END,"
		"  'callee', CASE WHEN e.callee_now OPERATOR(pg_catalog.<>) 0"
		"            THEN e.callee_now::pg_catalog.regprocedure::text END,"
		"  'site_line', e.site_line, 'dynamic', e.dynamic, 'body', e.caller_body,"
		"  'calls', e.calls, 'total_ms', e.total_ms, 'self_ms', e.self_ms)::text"
		" FROM e LEFT JOIN pg_catalog.pg_proc p ON p.oid OPERATOR(pg_catalog.=) e.callee_now"
		" WHERE e.caller_now IS NOT NULL AND e.callee_now IS NOT NULL"
		"   AND (p.oid IS NULL OR (" NOT_SYSTEM_FUNCTION "))"
		" ORDER BY 1",
		schema, schema);
	return read_json_rows(NULL, rt, source, conn, what, sql, "edges of dropped functions",
			      read_gone_edge_row);
}

static int read_trace(bool *found, cgm_runtime *rt, int source, PGconn *conn, const char *what)
{
	cgm_runtime_source *src = &rt->sources[source];
	*found = false;
	PGresult *res = must_query(conn, what,
				   "SELECT n.nspname FROM pg_catalog.pg_extension e"
				   " JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace"
				   " WHERE e.extname = 'cgmap_trace'");
	if (!res)
		return CGM_ESOURCE;
	if (PQntuples(res) == 0) {
		PQclear(res);
		return 0;
	}
	*found = true;
	char *schema = PQescapeIdentifier(conn, PQgetvalue(res, 0, 0), strlen(PQgetvalue(res, 0, 0)));
	PQclear(res);
	if (!schema)
		return cgm_error(CGM_ESOURCE, "%s: %s", what, PQerrorMessage(conn));

	/* cgmap_trace 1.1 evicts the least recently seen edges instead of
	 * dropping new ones: its `evictions` says the table was full. */
	char *sql = cgm_arena_printf(rt->arena,
				     "SELECT pg_catalog.to_char(i.since AT TIME ZONE 'UTC', " ISO_UTC "),"
				     " i.edges_used, i.edges_max, i.dropped,"
				     " (pg_catalog.to_jsonb(i) OPERATOR(pg_catalog.->>) 'evictions'),"
				     /* 1.3 on: paths, shapes, timeline */
				     " (pg_catalog.to_jsonb(i) OPERATOR(pg_catalog.->>) 'paths_dropped'),"
				     " (pg_catalog.to_jsonb(i) OPERATOR(pg_catalog.->>) 'shapes_dropped'),"
				     " (pg_catalog.to_jsonb(i) OPERATOR(pg_catalog.->>) 'timeline_dropped'),"
				     " (pg_catalog.to_jsonb(i) OPERATOR(pg_catalog.->>) 'bucket_seconds')"
				     " FROM %s.cgmap_trace_info() i",
				     schema);
	res = PQexec(conn, sql);
	if (PQresultStatus(res) != PGRES_TUPLES_OK) {
		/* Installed but not loaded (shared_preload_libraries): the
		 * run goes on with what pg_stat_user_functions has. */
		const char *msg = PQresultErrorMessage(res);
		rt_diagnostic(rt, NULL, 0,
			      "cgmap_trace is installed in database '%s' but cannot be read (%.*s): "
			      "no call edges from it",
			      src->database, (int)strcspn(msg, "\n"), msg);
		PQclear(res);
		PQfreemem(schema);
		return 0;
	}
	/* The window is the trace's: its edges are what the verdicts weigh.
	 * The functions' call counts (pg_stat_user_functions) cover the time
	 * since the statistics were reset, which a reset of one without the
	 * other (cgmap_trace's is cluster-wide) makes another span. */
	const char *stats_since = src->since;
	src->since = cgm_arena_strdup(rt->arena, cell(res, 0, 0));
	int skew = cgm_window_skew(stats_since, src->since);
	if (skew)
		rt_diagnostic(rt, NULL, 0,
			      "in database '%s' the function statistics count calls since %s and "
			      "cgmap_trace's call edges since %s: %s (reset both together: SELECT "
			      "pg_stat_reset(); SELECT cgmap_trace_reset();)",
			      src->database, stats_since, src->since,
			      skew > 0
				      ? "calls made before the later time have no edges, and the "
					"window taken is the trace's"
				      : "calls made before the later time are not in the functions' "
					"counts, and the window taken is the trace's");
	src->trace_edges_used = strtoll(PQgetvalue(res, 0, 1), NULL, 10);
	src->trace_edges_max = strtoll(PQgetvalue(res, 0, 2), NULL, 10);
	src->trace_dropped = strtoll(PQgetvalue(res, 0, 3), NULL, 10);
	src->trace_evictions = cell(res, 0, 4) ? strtoll(cell(res, 0, 4), NULL, 10) : -1;
	if (cell(res, 0, 5) && cell(res, 0, 6) && cell(res, 0, 7) && cell(res, 0, 8)) {
		src->has_paths = true;
		src->paths_dropped = strtoll(cell(res, 0, 5), NULL, 10);
		src->shapes_dropped = strtoll(cell(res, 0, 6), NULL, 10);
		src->timeline_dropped = strtoll(cell(res, 0, 7), NULL, 10);
		src->bucket_seconds = atoi(cell(res, 0, 8));
	}
	PQclear(res);
	if (src->has_paths) {
		int rc = read_paths(rt, source, conn, schema, what);
		if (rc < 0) {
			PQfreemem(schema);
			return rc;
		}
		src = &rt->sources[source];
	}
	int rc = read_site_runs(rt, source, conn, schema, what);
	if (rc < 0) {
		PQfreemem(schema);
		return rc;
	}
	src = &rt->sources[source];

	sql = cgm_arena_printf(rt->arena,
			       "SELECT e.caller::text, e.callee::text, e.site_line, e.dynamic,"
			       " e.calls, e.total_ms, e.self_ms, e.caller_oid, e.callee_oid,"
			       /* 1.2 on: the caller's body version (absent before) */
			       " (pg_catalog.to_jsonb(e) OPERATOR(pg_catalog.->>) 'caller_body')"
			       " FROM %s.cgmap_trace_edges e"
			       " LEFT JOIN pg_catalog.pg_proc p"
			       "   ON p.oid OPERATOR(pg_catalog.=) e.callee_oid"
			       " WHERE e.dbid OPERATOR(pg_catalog.=) (SELECT d.oid FROM pg_catalog.pg_database d"
			       "   WHERE d.datname OPERATOR(pg_catalog.=) pg_catalog.current_database())"
			       "   AND (p.oid IS NULL OR (" NOT_SYSTEM_FUNCTION "))"
			       " ORDER BY 1 NULLS FIRST, 2, 3, 4",
			       schema);
	/* Read after the edges: reading them removes the edges of functions
	 * dropped since (cgmap_trace 1.1 counts them in stale_removed), and
	 * their calls are as missing as those removed at the drop's commit.
	 * 1.5 keeps the calls of the edges it removes at a drop's commit
	 * (stale_kept of them, the calls in cgmap_trace_gone). */
	char *lost_sql = cgm_arena_printf(rt->arena,
					  "SELECT (pg_catalog.to_jsonb(i) OPERATOR(pg_catalog.->>) "
					  "'stale_removed'), (pg_catalog.to_jsonb(i) "
					  "OPERATOR(pg_catalog.->>) 'stale_kept'), (pg_catalog.to_jsonb(i) "
					  "OPERATOR(pg_catalog.->>) 'gone_edges_lost')"
					  " FROM %s.cgmap_trace_info() i",
					  schema);
	res = must_query(conn, what, sql);
	if (!res) {
		PQfreemem(schema);
		return CGM_ESOURCE;
	}
	int gone = 0;
	for (int i = 0; i < PQntuples(res); i++) {
		const char *caller = cell(res, i, 0), *callee = cell(res, i, 1);
		const char *caller_oid = cell(res, i, 7);
		bool entry = !caller_oid || strcmp(caller_oid, "0") == 0;
		/* regprocedure prints a dropped function's OID as a number. */
		bool callee_gone = !callee || all_digits(callee);
		bool caller_gone = !entry && (!caller || all_digits(caller));
		if (callee_gone || caller_gone) {
			/* Tests create and drop functions by the hundred: one
			 * warning for all, each edge as a detail. */
			gone++;
			rt_diagnostic(rt, NULL, 0,
				      "cgmap_trace edge %s -> %s of database '%s': %s no longer "
				      "exist%s (dropped since observed)",
				      entry ? "(entry)" : caller_gone ? caller_oid : caller,
				      callee_gone ? cell(res, i, 8) : callee, src->database,
				      caller_gone && callee_gone ? "caller and callee"
				      : caller_gone		 ? "the caller"
							 : "the callee",
				      caller_gone && callee_gone ? "" : "s");
			rt->diagnostics[rt->ndiagnostics - 1].detail = true;
			continue;
		}
		cgm_runtime_edge *e = rt_add_edge(rt);
		e->caller = entry ? NULL : cgm_arena_strdup(rt->arena, caller);
		e->callee = cgm_arena_strdup(rt->arena, callee);
		e->site_line = cell(res, i, 2) ? atoi(cell(res, i, 2)) : 0;
		if (e->site_line < 0)
			e->site_line = 0; /* unknown, as the extension never says */
		e->dynamic = cell(res, i, 3) && cell(res, i, 3)[0] == 't';
		const char *body = cell(res, i, 9);
		if (!entry && body && cgm_body_version_valid(body))
			e->caller_body = cgm_arena_strdup(rt->arena, body);
		else if (!entry && body)
			rt_diagnostic(rt, NULL, 0,
				      "cgmap_trace edge %s -> %s of database '%s': caller body version "
				      "'%.40s' is not 16 hex digits: taken as unknown",
				      caller, callee, src->database, body);
		e->stats.calls = strtoll(PQgetvalue(res, i, 4), NULL, 10);
		e->stats.total_ms = strtod(PQgetvalue(res, i, 5), NULL);
		e->stats.self_ms = strtod(PQgetvalue(res, i, 6), NULL);
		if (cgm_runtime_stats_clamp(&e->stats))
			rt_diagnostic(rt, NULL, 0,
				      "cgmap_trace edge %s -> %s of database '%s': figures out of range "
				      "(a negative count, a time that is no number or beyond %.0f ms): "
				      "brought into range",
				      entry ? "(entry)" : caller, callee, src->database, CGM_STATS_MAX_MS);
		e->source = source;
	}
	PQclear(res);
	if (gone)
		rt_diagnostic(rt, NULL, 0,
			      "%d runtime edge%s of database '%s' name%s functions that no longer "
			      "exist (dropped since observed): ignored; each is listed in the "
			      "snapshot's diagnostics and with --verbose",
			      gone, gone == 1 ? "" : "s", src->database, gone == 1 ? "s" : "");
	res = must_query(conn, what, lost_sql);
	if (!res) {
		PQfreemem(schema);
		return CGM_ESOURCE;
	}
	/* NULL before 1.1: unknown (the library removed such edges all the
	 * same, but said nothing). */
	if (cell(res, 0, 0))
		src->trace_stale_removed = strtoll(cell(res, 0, 0), NULL, 10);
	bool keeps = cell(res, 0, 1) != NULL;
	int64_t kept = keeps ? strtoll(cell(res, 0, 1), NULL, 10) : 0;
	/* From 1.8, with cgmap_trace_gone_edges(): NULL before. */
	bool keeps_edges = cell(res, 0, 2) != NULL;
	long long edges_lost = keeps_edges ? strtoll(cell(res, 0, 2), NULL, 10) : 0;
	PQclear(res);
	if (keeps && src->trace_stale_removed >= 0) {
		int lost = 0;
		int rc = read_gone(&lost, rt, source, conn, schema, what);
		if (rc < 0) {
			PQfreemem(schema);
			return rc;
		}
		rc = keeps_edges ? read_gone_edges(rt, source, conn, schema, what, edges_lost) : 0;
		if (rc < 0) {
			PQfreemem(schema);
			return rc;
		}
		src = &rt->sources[source];
		src->has_gone = true;
		src->trace_stale_removed -= kept < src->trace_stale_removed ? kept
									    : src->trace_stale_removed;
		gone += lost; /* kept for a function dropped since: lost with it */
	}
	PQfreemem(schema);
	/* An edge read but not kept is a call record lost to a drop too. */
	if (gone)
		src->trace_stale_removed = (src->trace_stale_removed > 0 ? src->trace_stale_removed : 0) + gone;
	src->has_trace = true;
	return 0;
}

static int read_function_stats(cgm_runtime *rt, int source, PGconn *conn, const char *what)
{
	cgm_runtime_source *src = &rt->sources[source];
	PGresult *res = must_query(conn, what,
				   "SELECT s.funcid::pg_catalog.regprocedure::text, s.calls,"
				   " s.total_time, s.self_time"
				   " FROM pg_catalog.pg_stat_user_functions s"
				   " JOIN pg_catalog.pg_proc p ON p.oid OPERATOR(pg_catalog.=) s.funcid"
				   " WHERE" NOT_SYSTEM_FUNCTION " ORDER BY 1");
	if (!res)
		return CGM_ESOURCE;
	for (int i = 0; i < PQntuples(res); i++) {
		cgm_runtime_function *f = rt_add_function(rt);
		f->id = cgm_arena_strdup(rt->arena, PQgetvalue(res, i, 0));
		f->stats.calls = strtoll(PQgetvalue(res, i, 1), NULL, 10);
		f->stats.total_ms = strtod(PQgetvalue(res, i, 2), NULL);
		f->stats.self_ms = strtod(PQgetvalue(res, i, 3), NULL);
		if (cgm_runtime_stats_clamp(&f->stats))
			rt_diagnostic(rt, NULL, 0,
				      "pg_stat_user_functions row of %s in database '%s': figures out of "
				      "range (a time that is no number or beyond %.0f ms): brought into "
				      "range",
				      f->id, src->database, CGM_STATS_MAX_MS);
		f->source = source;
	}
	bool tracking = src->track_functions && strcmp(src->track_functions, "none") != 0;
	if (!tracking)
		rt_diagnostic(rt, NULL, 0,
			      "track_functions is 'none' in database '%s': pg_stat_user_functions "
			      "counts no calls (set track_functions = 'pl' or 'all')%s",
			      src->database, PQntuples(res) ? "; older figures were read" : "");
	else if (strcmp(src->track_functions, "pl") == 0 && !src->has_trace)
		rt_diagnostic(rt, NULL, 0,
			      "track_functions is 'pl' in database '%s': calls of SQL and C "
			      "functions are not counted (set track_functions = 'all')",
			      src->database);
	src->has_function_stats = tracking || PQntuples(res) > 0;
	PQclear(res);
	return 0;
}

/* Call records of dropped functions that cgmap_trace removed: a function
 * that ran may have left no other trace of its calls (a recreated one has
 * a new OID; a kept callee of a dropped caller loses that edge), so merge
 * calls nothing dead or cold (cgm_evidence.lost_records). */
static void lost_records_diagnostic(cgm_runtime *rt, const char *file, const cgm_runtime_source *src)
{
	if (src->trace_stale_removed <= 0)
		return;
	rt_diagnostic(rt, file, 0,
		      "%scgmap_trace removed %" PRId64 " call record%s of functions or databases "
		      "dropped in the window (stale_removed, counted over the whole cluster)%s%s%s: "
		      "the calls they counted are missing, so no function is called dead or cold "
		      "(unobserved instead); reset the trace after a workload that drops and "
		      "recreates functions (SELECT cgmap_trace_reset())",
		      file ? "runtime file: " : "", src->trace_stale_removed,
		      src->trace_stale_removed == 1 ? "" : "s", src->database ? ", read in database '" : "",
		      src->database ? src->database : "", src->database ? "'" : "");
}

int cgm_runtime_load_pg(bool *found_trace, cgm_runtime *rt, const char *dsn)
{
	const char *what = "runtime data";
	bool found = false;
	if (found_trace)
		*found_trace = false;
	PGconn *conn = connect_quiet(dsn, what);
	if (!conn)
		return CGM_ESOURCE;
	int source = rt->nsources;
	cgm_runtime_source *src = rt_add_source(rt);
	int rc = read_server(src, rt, conn, what);
	if (rc == 0)
		rc = read_trace(&found, rt, source, conn, what);
	if (rc == 0)
		rc = read_function_stats(rt, source, conn, what);
	PQfinish(conn);
	/* 1.0 dropped new edges when full; 1.1 evicts old ones (and keeps
	 * `dropped` at 0): either way the table was too small. */
	if (rc == 0 && rt->sources[source].trace_evictions > 0)
		rt_diagnostic(rt, NULL, 0,
			      "cgmap_trace in database '%s' evicted %" PRId64
			      " edges to make room (table full: raise cgmap_trace.max_edges); "
			      "calls of evicted edges are missing",
			      rt->sources[source].database, rt->sources[source].trace_evictions);
	else if (rc == 0 && rt->sources[source].trace_dropped > 0)
		rt_diagnostic(rt, NULL, 0,
			      "cgmap_trace in database '%s' could not record %" PRId64
			      " calls on new edges (table full: raise cgmap_trace.max_edges)",
			      rt->sources[source].database, rt->sources[source].trace_dropped);
	if (rc == 0)
		lost_records_diagnostic(rt, NULL, &rt->sources[source]);
	if (found_trace)
		*found_trace = found;
	return rc;
}

/* ---- runtime files ---- */

static void json_str(cgm_strbuf *out, const char *s)
{
	if (!s) {
		cgm_strbuf_puts(out, "null");
		return;
	}
	cgm_strbuf_putc(out, '"');
	cgm_escape_json(out, s);
	cgm_strbuf_putc(out, '"');
}

static int compare_edge_rows(const void *a, const void *b)
{
	const cgm_runtime_edge *x = *(const cgm_runtime_edge *const *)a;
	const cgm_runtime_edge *y = *(const cgm_runtime_edge *const *)b;
	if (!x->caller != !y->caller)
		return x->caller ? 1 : -1;
	int c = x->caller ? strcmp(x->caller, y->caller) : 0;
	if (!c)
		c = strcmp(x->callee, y->callee);
	if (!c)
		c = x->site_line - y->site_line;
	if (!c)
		c = (int)x->dynamic - (int)y->dynamic;
	if (!c && !x->caller_body != !y->caller_body)
		c = x->caller_body ? 1 : -1;
	if (!c && x->caller_body)
		c = strcmp(x->caller_body, y->caller_body);
	if (!c)
		c = (int)x->kept - (int)y->kept;
	return c;
}

int cgm_runtime_path_cmp(const cgm_runtime_path *x, const cgm_runtime_path *y)
{
	for (int i = 0; i < x->nframes && i < y->nframes; i++) {
		int c = strcmp(x->frames[i], y->frames[i]);
		if (!c)
			c = x->lines[i] < y->lines[i] ? -1 : x->lines[i] > y->lines[i];
		if (c)
			return c;
	}
	return x->nframes < y->nframes ? -1 : x->nframes > y->nframes;
}

static int compare_path_rows(const void *a, const void *b)
{
	return cgm_runtime_path_cmp(*(const cgm_runtime_path *const *)a,
				    *(const cgm_runtime_path *const *)b);
}

int cgm_runtime_shape_cmp(const cgm_runtime_shape *x, const cgm_runtime_shape *y)
{
	int c = strcmp(x->entry, y->entry);
	for (int i = 0; !c && i < x->nedges && i < y->nedges; i++)
		c = compare_shape_edges(&x->edges[i], &y->edges[i]);
	if (!c)
		c = x->nedges < y->nedges ? -1 : x->nedges > y->nedges;
	return c;
}

static int compare_shape_rows(const void *a, const void *b)
{
	return cgm_runtime_shape_cmp(*(const cgm_runtime_shape *const *)a,
				     *(const cgm_runtime_shape *const *)b);
}

static int compare_bucket_rows(const void *a, const void *b)
{
	const cgm_runtime_bucket *x = *(const cgm_runtime_bucket *const *)a;
	const cgm_runtime_bucket *y = *(const cgm_runtime_bucket *const *)b;
	int c = strcmp(x->function, y->function);
	return c ? c : strcmp(x->start, y->start);
}

/* An array of pointers to n rows of `size` bytes, sorted by `cmp`. */
static const void **sorted_rows(const void *rows, int n, size_t size,
				int (*cmp)(const void *, const void *))
{
	const void **v = calloc((size_t)n + 1, sizeof(*v));
	if (!v) {
		fprintf(stderr, "cgmap: out of memory\n");
		abort();
	}
	for (int i = 0; i < n; i++)
		v[i] = (const char *)rows + (size_t)i * size;
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return v;
}

/* "paths", "shapes", "timeline" of a runtime file (cgmap_trace 1.3). */
static void write_paths(cgm_strbuf *out, const cgm_runtime *rt)
{
	const cgm_runtime_path **paths = (const cgm_runtime_path **)sorted_rows(
		rt->paths, rt->npaths, sizeof(*rt->paths), compare_path_rows);
	cgm_strbuf_puts(out, ",\n  \"paths\": [");
	for (int i = 0; i < rt->npaths; i++) {
		const cgm_runtime_path *p = paths[i];
		cgm_strbuf_puts(out, i ? ",\n    {\"frames\": [" : "\n    {\"frames\": [");
		for (int j = 0; j < p->nframes; j++) {
			if (j)
				cgm_strbuf_puts(out, ", ");
			json_str(out, p->frames[j]);
		}
		cgm_strbuf_puts(out, "], \"lines\": [");
		for (int j = 0; j < p->nframes; j++)
			cgm_strbuf_printf(out, j ? ", %d" : "%d", p->lines[j]);
		cgm_strbuf_printf(out,
				  "], \"calls\": %" PRId64 ", \"total_ms\": %.6f, \"self_ms\": %.6f"
				  ", \"min_ms\": %.6f, \"max_ms\": %.6f}",
				  p->stats.calls, p->stats.total_ms, p->stats.self_ms, p->min_ms,
				  p->max_ms);
	}
	cgm_strbuf_puts(out, rt->npaths ? "\n  ],\n  \"shapes\": [" : "],\n  \"shapes\": [");
	free(paths);

	const cgm_runtime_shape **shapes = (const cgm_runtime_shape **)sorted_rows(
		rt->shapes, rt->nshapes, sizeof(*rt->shapes), compare_shape_rows);
	for (int i = 0; i < rt->nshapes; i++) {
		const cgm_runtime_shape *sh = shapes[i];
		cgm_strbuf_puts(out, i ? ",\n    {\"entry\": " : "\n    {\"entry\": ");
		json_str(out, sh->entry);
		cgm_strbuf_printf(out, ", \"calls\": %" PRId64 ", \"edges\": [", sh->calls);
		for (int j = 0; j < sh->nedges; j++) {
			const cgm_runtime_shape_edge *e = &sh->edges[j];
			cgm_strbuf_puts(out, j ? ", {\"caller\": " : "{\"caller\": ");
			json_str(out, e->caller);
			cgm_strbuf_puts(out, ", \"callee\": ");
			json_str(out, e->callee);
			cgm_strbuf_printf(out, ", \"site_line\": %d, \"dynamic\": %s}", e->site_line,
					  e->dynamic ? "true" : "false");
		}
		cgm_strbuf_puts(out, "]}");
	}
	cgm_strbuf_puts(out, rt->nshapes ? "\n  ],\n  \"timeline\": [" : "],\n  \"timeline\": [");
	free(shapes);

	const cgm_runtime_bucket **buckets = (const cgm_runtime_bucket **)sorted_rows(
		rt->buckets, rt->nbuckets, sizeof(*rt->buckets), compare_bucket_rows);
	for (int i = 0; i < rt->nbuckets; i++) {
		const cgm_runtime_bucket *b = buckets[i];
		cgm_strbuf_puts(out, i ? ",\n    {\"function\": " : "\n    {\"function\": ");
		json_str(out, b->function);
		cgm_strbuf_puts(out, ", \"start\": ");
		json_str(out, b->start);
		cgm_strbuf_printf(out, ", \"calls\": %" PRId64 ", \"self_ms\": %.6f}", b->calls,
				  b->self_ms);
	}
	cgm_strbuf_puts(out, rt->nbuckets ? "\n  ]" : "]");
	free(buckets);
}

static int compare_site_run_rows(const void *a, const void *b)
{
	const cgm_runtime_site_run *x = *(const cgm_runtime_site_run *const *)a;
	const cgm_runtime_site_run *y = *(const cgm_runtime_site_run *const *)b;
	int c = strcmp(x->function, y->function);
	if (c)
		return c;
	if (x->site_line != y->site_line)
		return x->site_line < y->site_line ? -1 : 1;
	return strcmp(x->body ? x->body : "", y->body ? y->body : "");
}

/* "site_runs" of a runtime file (cgmap_trace 1.4). */
static void write_site_runs(cgm_strbuf *out, const cgm_runtime *rt)
{
	const cgm_runtime_site_run **runs = (const cgm_runtime_site_run **)sorted_rows(
		rt->site_runs, rt->nsite_runs, sizeof(*rt->site_runs), compare_site_run_rows);
	cgm_strbuf_puts(out, ",\n  \"site_runs\": [");
	for (int i = 0; i < rt->nsite_runs; i++) {
		const cgm_runtime_site_run *r = runs[i];
		cgm_strbuf_puts(out, i ? ",\n    {\"function\": " : "\n    {\"function\": ");
		json_str(out, r->function);
		cgm_strbuf_printf(out, ", \"site_line\": %d", r->site_line);
		if (r->body)
			cgm_strbuf_printf(out, ", \"body\": \"%s\"", r->body);
		cgm_strbuf_printf(out, ", \"runs\": %" PRId64 "}", r->runs);
	}
	cgm_strbuf_puts(out, rt->nsite_runs ? "\n  ]" : "]");
	free(runs);
}

static int compare_gone_rows(const void *a, const void *b)
{
	const cgm_runtime_gone *x = *(const cgm_runtime_gone *const *)a;
	const cgm_runtime_gone *y = *(const cgm_runtime_gone *const *)b;
	int c = strcmp(x->function, y->function);
	if (c)
		return c;
	return strcmp(x->identity ? x->identity : "", y->identity ? y->identity : "");
}

/* "gone" of a runtime file (cgmap_trace 1.5): the calls of dropped
 * functions, by the function they count for now. */
static void write_gone(cgm_strbuf *out, const cgm_runtime *rt)
{
	const cgm_runtime_gone **rows = (const cgm_runtime_gone **)sorted_rows(
		rt->gone, rt->ngone, sizeof(*rt->gone), compare_gone_rows);
	cgm_strbuf_puts(out, ",\n  \"gone\": [");
	for (int i = 0; i < rt->ngone; i++) {
		const cgm_runtime_gone *g = rows[i];
		cgm_strbuf_puts(out, i ? ",\n    {\"function\": " : "\n    {\"function\": ");
		json_str(out, g->function);
		cgm_strbuf_puts(out, ", \"identity\": ");
		json_str(out, g->identity);
		cgm_strbuf_printf(out,
				  ", \"calls\": %" PRId64 ", \"total_ms\": %.6f, \"self_ms\": %.6f}",
				  g->stats.calls, g->stats.total_ms, g->stats.self_ms);
	}
	cgm_strbuf_puts(out, rt->ngone ? "\n  ]" : "]");
	free(rows);
}

static int compare_function_rows(const void *a, const void *b)
{
	const cgm_runtime_function *x = *(const cgm_runtime_function *const *)a;
	const cgm_runtime_function *y = *(const cgm_runtime_function *const *)b;
	return strcmp(x->id, y->id);
}

int cgm_runtime_write_file(const cgm_runtime *rt, const char *path)
{
	if (rt->nsources != 1)
		return cgm_error(CGM_EUSAGE, "runtime file '%s': holds one source, not %d", path,
				 rt->nsources);
	const cgm_runtime_source *src = &rt->sources[0];
	cgm_strbuf out = CGM_STRBUF_INIT;
	cgm_strbuf_puts(&out, "{\n  \"format\": \"cgmap-runtime\",\n");
	cgm_strbuf_printf(&out, "  \"format_version\": %d,\n", CGM_RUNTIME_FORMAT);
	cgm_strbuf_puts(&out, "  \"generator\": \"cgmap " CGMAP_VERSION "\",\n");
	cgm_strbuf_puts(&out, "  \"server\": {\"name\": ");
	json_str(&out, src->name);
	cgm_strbuf_puts(&out, ", \"database\": ");
	json_str(&out, src->database);
	cgm_strbuf_puts(&out, ", \"server_version\": ");
	json_str(&out, src->server_version);
	cgm_strbuf_puts(&out, ", \"system_identifier\": ");
	json_str(&out, src->system_id);
	cgm_strbuf_puts(&out, ", \"port\": ");
	json_str(&out, src->port);
	cgm_strbuf_puts(&out, "},\n  \"window\": {\"since\": ");
	json_str(&out, src->since);
	cgm_strbuf_puts(&out, ", \"until\": ");
	json_str(&out, src->until);
	cgm_strbuf_puts(&out, "},\n  \"track_functions\": ");
	json_str(&out, src->track_functions);
	cgm_strbuf_puts(&out, ",\n  \"trace\": ");
	if (src->has_trace)
		cgm_strbuf_printf(&out,
				  "{\"edges_used\": %" PRId64 ", \"edges_max\": %" PRId64
				  ", \"dropped\": %" PRId64 ", \"evictions\": %" PRId64
				  ", \"track\": %s%s%s",
				  src->trace_edges_used, src->trace_edges_max, src->trace_dropped,
				  src->trace_evictions, src->trace_track ? "\"" : "",
				  src->trace_track ? (strcmp(src->trace_track, "all") == 0 ? "all"
										: "plpgsql")
						   : "null",
				  src->trace_track ? "\"" : "");
	if (src->has_trace && src->trace_stale_removed >= 0) /* cgmap_trace 1.1's */
		cgm_strbuf_printf(&out, ", \"stale_removed\": %" PRId64, src->trace_stale_removed);
	if (src->has_trace && src->has_paths) /* cgmap_trace 1.3's counters */
		cgm_strbuf_printf(&out,
				  ", \"paths_dropped\": %" PRId64 ", \"shapes_dropped\": %" PRId64
				  ", \"timeline_dropped\": %" PRId64 ", \"bucket_seconds\": %d",
				  src->paths_dropped, src->shapes_dropped, src->timeline_dropped,
				  src->bucket_seconds);
	if (src->has_trace)
		cgm_strbuf_putc(&out, '}');
	else
		cgm_strbuf_puts(&out, "null");
	cgm_strbuf_printf(&out, ",\n  \"function_stats\": %s,\n  \"edges\": [",
			  src->has_function_stats ? "true" : "false");

	const cgm_runtime_edge **edges = calloc((size_t)rt->nedges + 1, sizeof(*edges));
	const cgm_runtime_function **funcs = calloc((size_t)rt->nfunctions + 1, sizeof(*funcs));
	if (!edges || !funcs) {
		fprintf(stderr, "cgmap: out of memory\n");
		abort();
	}
	for (int i = 0; i < rt->nedges; i++)
		edges[i] = &rt->edges[i];
	for (int i = 0; i < rt->nfunctions; i++)
		funcs[i] = &rt->functions[i];
	qsort(edges, (size_t)rt->nedges, sizeof(*edges), compare_edge_rows);
	qsort(funcs, (size_t)rt->nfunctions, sizeof(*funcs), compare_function_rows);
	for (int i = 0; i < rt->nedges; i++) {
		const cgm_runtime_edge *e = edges[i];
		cgm_strbuf_puts(&out, i ? ",\n    {\"caller\": " : "\n    {\"caller\": ");
		json_str(&out, e->caller);
		cgm_strbuf_puts(&out, ", \"callee\": ");
		json_str(&out, e->callee);
		if (e->site_line > 0)
			cgm_strbuf_printf(&out, ", \"site_line\": %d", e->site_line);
		else
			cgm_strbuf_puts(&out, ", \"site_line\": null");
		if (e->caller_body)
			cgm_strbuf_printf(&out, ", \"caller_body\": \"%s\"", e->caller_body);
		if (e->kept)
			cgm_strbuf_puts(&out, ", \"kept\": true");
		cgm_strbuf_printf(&out,
				  ", \"dynamic\": %s, \"calls\": %" PRId64
				  ", \"total_ms\": %.6f, \"self_ms\": %.6f}",
				  e->dynamic ? "true" : "false", e->stats.calls, e->stats.total_ms,
				  e->stats.self_ms);
	}
	cgm_strbuf_puts(&out, rt->nedges ? "\n  ],\n  \"functions\": [" : "],\n  \"functions\": [");
	for (int i = 0; i < rt->nfunctions; i++) {
		const cgm_runtime_function *f = funcs[i];
		cgm_strbuf_puts(&out, i ? ",\n    {\"id\": " : "\n    {\"id\": ");
		json_str(&out, f->id);
		cgm_strbuf_printf(&out,
				  ", \"calls\": %" PRId64 ", \"total_ms\": %.6f, \"self_ms\": %.6f}",
				  f->stats.calls, f->stats.total_ms, f->stats.self_ms);
	}
	cgm_strbuf_puts(&out, rt->nfunctions ? "\n  ]" : "]");
	if (src->has_paths)
		write_paths(&out, rt);
	if (src->has_site_runs)
		write_site_runs(&out, rt);
	if (src->has_gone)
		write_gone(&out, rt);
	cgm_strbuf_puts(&out, "\n}\n");
	free(edges);
	free(funcs);

	int rc = 0;
	if (strcmp(path, "-") != 0) {
		/* Whole or not at all, and never through a link (outdir.h). */
		rc = cgm_outstream_write_whole(path, out.data, out.len);
	} else {
		bool bad = fwrite(out.data, 1, out.len, stdout) != out.len;
		bad |= fflush(stdout) != 0;
		if (bad)
			rc = cgm_error(CGM_EIO, "cannot write runtime file '%s'", path);
	}
	cgm_strbuf_free(&out);
	return rc;
}

/* Optional string member: NULL when absent or null; false when of another type. */
static bool opt_string(const char **out, json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);
	*out = NULL;
	if (!v || json_is_null(v))
		return true;
	if (!json_is_string(v))
		return false;
	*out = json_string_value(v);
	return true;
}

static bool read_figures(cgm_runtime_stats *out, json_t *obj)
{
	json_t *calls = json_object_get(obj, "calls");
	json_t *total = json_object_get(obj, "total_ms");
	json_t *self = json_object_get(obj, "self_ms");
	if (!json_is_integer(calls) || json_integer_value(calls) < 0)
		return false;
	if ((total && !json_is_number(total)) || (self && !json_is_number(self)))
		return false;
	out->calls = json_integer_value(calls);
	out->total_ms = total ? json_number_value(total) : 0;
	out->self_ms = self ? json_number_value(self) : 0;
	return true;
}

/* A time cgmap could not write back (negative, beyond the limit) makes a
 * row no measurement: said and skipped. */
static bool times_in_range(cgm_runtime *rt, const char *path, const char *list, size_t i,
			   const cgm_runtime_stats *stats)
{
	if (cgm_stats_time_valid(stats->total_ms) && cgm_stats_time_valid(stats->self_ms))
		return true;
	rt_diagnostic(rt, path, 0,
		      "runtime file: %s[%zu] has a time (%g, %g) that is not milliseconds from 0 "
		      "to %.0f: skipped",
		      list, i, stats->total_ms, stats->self_ms, CGM_STATS_MAX_MS);
	return false;
}

int cgm_runtime_load_file(cgm_runtime *rt, const char *path)
{
	json_error_t jerr;
	char *text;
	size_t len;
	if (cgm_infile_read(&text, &len, path, "runtime file", CGM_EINPUT, false, 1) < 0)
		return CGM_EINPUT;
	json_t *root = json_loadb(text, len, 0, &jerr);
	free(text);
	if (!root) {
		if (jerr.line <= 0)
			return cgm_error(CGM_EINPUT, "cannot read runtime file '%s': %s", path,
					 jerr.text);
		return cgm_error(CGM_EINPUT, "runtime file '%s' line %d: %s", path, jerr.line,
				 jerr.text);
	}
	int rc = 0;
	const char *format = NULL;
	json_t *version = json_object_get(root, "format_version");
	if (!json_is_object(root) || !opt_string(&format, root, "format") || !format ||
	    strcmp(format, "cgmap-runtime") != 0) {
		rc = cgm_error(CGM_EINPUT, "'%s' is not a cgmap runtime file (\"format\" is not "
					   "\"cgmap-runtime\")", path);
		goto out;
	}
	if (!json_is_integer(version) || json_integer_value(version) < 1 ||
	    json_integer_value(version) > CGM_RUNTIME_FORMAT) {
		rc = cgm_error(CGM_EINPUT, "runtime file '%s' has format_version %s; this cgmap "
					   "reads version %d",
			       path, json_is_integer(version) ? "newer than it knows" : "missing",
			       CGM_RUNTIME_FORMAT);
		goto out;
	}
	json_t *edges = json_object_get(root, "edges");
	json_t *functions = json_object_get(root, "functions");
	if ((edges && !json_is_array(edges)) || (functions && !json_is_array(functions))) {
		rc = cgm_error(CGM_EINPUT, "runtime file '%s': \"edges\" and \"functions\" must be "
					   "arrays", path);
		goto out;
	}
	json_t *paths = json_object_get(root, "paths");
	json_t *shapes = json_object_get(root, "shapes");
	json_t *timeline = json_object_get(root, "timeline");
	json_t *site_runs = json_object_get(root, "site_runs");
	json_t *gone = json_object_get(root, "gone");
	if ((paths && !json_is_array(paths)) || (shapes && !json_is_array(shapes)) ||
	    (timeline && !json_is_array(timeline)) || (site_runs && !json_is_array(site_runs)) ||
	    (gone && !json_is_array(gone))) {
		rc = cgm_error(CGM_EINPUT, "runtime file '%s': \"paths\", \"shapes\", "
					   "\"timeline\", \"site_runs\" and \"gone\" must be arrays",
			       path);
		goto out;
	}

	int source = rt->nsources;
	cgm_runtime_source *src = rt_add_source(rt);
	json_t *server = json_object_get(root, "server");
	json_t *window = json_object_get(root, "window");
	const char *name = NULL, *database = NULL, *version_text = NULL;
	const char *since = NULL, *until = NULL, *track = NULL;
	const char *system_id = NULL, *port = NULL, *trace_track = NULL;
	if (json_is_object(server)) {
		opt_string(&name, server, "name");
		opt_string(&database, server, "database");
		opt_string(&version_text, server, "server_version");
		opt_string(&system_id, server, "system_identifier");
		opt_string(&port, server, "port");
	}
	if (json_is_object(window)) {
		opt_string(&since, window, "since");
		opt_string(&until, window, "until");
	}
	opt_string(&track, root, "track_functions");
	src->kind = "file";
	src->name = cgm_arena_strdup(rt->arena, path);
	/* The server it came from, as collect named it. */
	src->database = cgm_arena_strdup(rt->arena, name ? name : database);
	src->server_version = cgm_arena_strdup(rt->arena, version_text);
	src->since = cgm_arena_strdup(rt->arena, since);
	src->until = cgm_arena_strdup(rt->arena, until);
	src->track_functions = cgm_arena_strdup(rt->arena, track);
	src->system_id = cgm_arena_strdup(rt->arena, system_id);
	src->port = cgm_arena_strdup(rt->arena, port);
	src->trace_evictions = -1;
	src->trace_stale_removed = -1;
	json_t *trace = json_object_get(root, "trace");
	if (json_is_object(trace)) {
		src->has_trace = true;
		src->trace_edges_used = json_integer_value(json_object_get(trace, "edges_used"));
		src->trace_edges_max = json_integer_value(json_object_get(trace, "edges_max"));
		src->trace_dropped = json_integer_value(json_object_get(trace, "dropped"));
		json_t *evictions = json_object_get(trace, "evictions");
		if (json_is_integer(evictions) && json_integer_value(evictions) >= 0)
			src->trace_evictions = json_integer_value(evictions);
		/* Absent from files of cgmap before it read the counter: unknown. */
		json_t *stale = json_object_get(trace, "stale_removed");
		if (json_is_integer(stale) && json_integer_value(stale) >= 0)
			src->trace_stale_removed = json_integer_value(stale);
		opt_string(&trace_track, trace, "track");
		if (trace_track && (strcmp(trace_track, "all") == 0 || strcmp(trace_track, "plpgsql") == 0))
			src->trace_track = cgm_arena_strdup(rt->arena, trace_track);
	}
	if (paths || shapes || timeline) {
		src->has_paths = true;
		json_t *t = json_is_object(trace) ? trace : NULL;
		json_t *v;
		if ((v = json_object_get(t, "paths_dropped")) && json_is_integer(v))
			src->paths_dropped = json_integer_value(v);
		if ((v = json_object_get(t, "shapes_dropped")) && json_is_integer(v))
			src->shapes_dropped = json_integer_value(v);
		if ((v = json_object_get(t, "timeline_dropped")) && json_is_integer(v))
			src->timeline_dropped = json_integer_value(v);
		if ((v = json_object_get(t, "bucket_seconds")) && json_is_integer(v) &&
		    json_integer_value(v) > 0 && json_integer_value(v) <= INT_MAX)
			src->bucket_seconds = (int)json_integer_value(v);
	}
	json_t *fstats = json_object_get(root, "function_stats");
	src->has_function_stats = json_is_true(fstats) ||
				  (!fstats && functions && json_array_size(functions) > 0);
	if (!trace && edges && json_array_size(edges) > 0)
		src->has_trace = true;

	size_t i;
	json_t *item;
	json_array_foreach(edges, i, item) {
		const char *caller = NULL, *callee = NULL, *body = NULL;
		cgm_runtime_stats stats = { 0 };
		json_t *line = json_object_get(item, "site_line");
		json_t *dynamic = json_object_get(item, "dynamic");
		json_t *kept = json_object_get(item, "kept");
		if (!json_is_object(item) || !opt_string(&caller, item, "caller") ||
		    (kept && !json_is_boolean(kept)) ||
		    !opt_string(&callee, item, "callee") || !callee ||
		    (line && !json_is_null(line) &&
		     (!json_is_integer(line) || json_integer_value(line) < 0 ||
		      json_integer_value(line) > INT_MAX)) ||
		    (dynamic && !json_is_boolean(dynamic)) || !read_figures(&stats, item) ||
		    !opt_string(&body, item, "caller_body")) {
			rt_diagnostic(rt, path, 0,
				      "runtime file: edges[%zu] is not {caller, callee, site_line, "
				      "dynamic, caller_body, kept, calls, total_ms, self_ms}: skipped",
				      i);
			continue;
		}
		if (body && (!caller || !cgm_body_version_valid(body))) {
			rt_diagnostic(rt, path, 0,
				      "runtime file: edges[%zu] has a caller_body that is not 16 "
				      "lowercase hex digits of a caller: taken as unknown",
				      i);
			body = NULL;
		}
		if (!times_in_range(rt, path, "edges", i, &stats))
			continue;
		cgm_runtime_edge *e = rt_add_edge(rt);
		e->caller = cgm_arena_strdup(rt->arena, caller);
		e->callee = cgm_arena_strdup(rt->arena, callee);
		e->site_line = json_is_integer(line) ? (int)json_integer_value(line) : 0;
		e->dynamic = json_is_true(dynamic);
		e->caller_body = cgm_arena_strdup(rt->arena, body);
		e->kept = json_is_true(kept);
		e->stats = stats;
		e->source = source;
	}
	json_array_foreach(functions, i, item) {
		const char *id = NULL;
		cgm_runtime_stats stats = { 0 };
		if (!json_is_object(item) || !opt_string(&id, item, "id") || !id ||
		    !read_figures(&stats, item)) {
			rt_diagnostic(rt, path, 0,
				      "runtime file: functions[%zu] is not {id, calls, total_ms, "
				      "self_ms}: skipped",
				      i);
			continue;
		}
		if (!times_in_range(rt, path, "functions", i, &stats))
			continue;
		cgm_runtime_function *f = rt_add_function(rt);
		f->id = cgm_arena_strdup(rt->arena, id);
		f->stats = stats;
		f->source = source;
	}
	{
		static const struct {
			const char *key, *what;
			int (*row)(cgm_runtime *, json_t *, int);
		} lists[] = {
			{ "paths", "{frames, lines, calls, total_ms, self_ms, min_ms, max_ms}",
			  read_path_row },
			{ "shapes", "{entry, calls, edges: [{caller, callee, site_line, dynamic}]}",
			  read_shape_row },
			{ "timeline", "{function, start, calls, self_ms}", read_bucket_row },
			{ "site_runs", "{function, site_line, body, runs}", read_site_run_row },
			{ "gone", "{function, identity, calls, total_ms, self_ms}", read_gone_row },
		};
		for (size_t l = 0; l < sizeof(lists) / sizeof(lists[0]); l++) {
			json_array_foreach(json_object_get(root, lists[l].key), i, item) {
				int got = lists[l].row(rt, item, source);
				if (got == ROW_BAD)
					rt_diagnostic(rt, path, 0,
						      "runtime file: %s[%zu] is not %s with figures in "
						      "range: skipped",
						      lists[l].key, i, lists[l].what);
				else if (got == ROW_GONE)
					rt_diagnostic(rt, path, 0,
						      "runtime file: %s[%zu] names a function by a "
						      "number (dropped before it was collected): skipped",
						      lists[l].key, i);
			}
		}
	}
	src = &rt->sources[source];
	src->has_site_runs = site_runs != NULL;
	/* A file without them (cgmap_trace before 1.5) counts in stale_removed
	 * every record removed, kept or not. */
	src->has_gone = gone != NULL && src->has_trace;
	if (src->trace_evictions > 0)
		rt_diagnostic(rt, path, 0,
			      "runtime file: cgmap_trace evicted %" PRId64
			      " edges to make room (table full)",
			      src->trace_evictions);
	else if (src->trace_dropped > 0)
		rt_diagnostic(rt, path, 0,
			      "runtime file: cgmap_trace could not record %" PRId64
			      " calls on new edges (table full)",
			      src->trace_dropped);
	lost_records_diagnostic(rt, path, src);
out:
	json_decref(root);
	return rc;
}

/* ---- server logs: digraph {37615->37616;37615->37617} ---- */

typedef struct {
	unsigned long caller, callee;
	int64_t count;
	int first_line;
} log_pair;

typedef struct {
	log_pair *pairs;
	int n, cap;
	int *slots; /* open addressing into pairs, -1 empty */
	int nslots;
} pair_table;

static size_t pair_hash(unsigned long a, unsigned long b)
{
	uint64_t h = (uint64_t)a * 0x9E3779B97F4A7C15ULL ^ ((uint64_t)b + 0x632BE59BD9B4E019ULL);
	h ^= h >> 29;
	return (size_t)(h * 0xBF58476D1CE4E5B9ULL >> 17);
}

static void pair_rehash(pair_table *t)
{
	t->nslots = t->nslots ? t->nslots * 2 : 256;
	t->slots = cgm_xrealloc(t->slots, sizeof(int) * (size_t)t->nslots);
	for (int i = 0; i < t->nslots; i++)
		t->slots[i] = -1;
	size_t mask = (size_t)t->nslots - 1;
	for (int k = 0; k < t->n; k++) {
		size_t j = pair_hash(t->pairs[k].caller, t->pairs[k].callee) & mask;
		while (t->slots[j] >= 0)
			j = (j + 1) & mask;
		t->slots[j] = k;
	}
}

static void pair_count(pair_table *t, unsigned long caller, unsigned long callee, int line)
{
	if ((t->n + 1) * 2 > t->nslots)
		pair_rehash(t);
	size_t mask = (size_t)t->nslots - 1;
	size_t j = pair_hash(caller, callee) & mask;
	for (; t->slots[j] >= 0; j = (j + 1) & mask) {
		log_pair *p = &t->pairs[t->slots[j]];
		if (p->caller == caller && p->callee == callee) {
			p->count++;
			return;
		}
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->pairs = cgm_xrealloc(t->pairs, sizeof(log_pair) * (size_t)t->cap);
	}
	t->pairs[t->n] = (log_pair){ caller, callee, 1, line };
	t->slots[j] = t->n++;
}

static bool parse_oid(unsigned long *out, const char **p)
{
	while (**p == ' ')
		(*p)++;
	if (!isdigit((unsigned char)**p))
		return false;
	errno = 0;
	char *end;
	unsigned long v = strtoul(*p, &end, 10);
	if (errno || v > 0xFFFFFFFFUL)
		return false;
	*out = v;
	*p = end;
	while (**p == ' ')
		(*p)++;
	return true;
}

/* Every pair of one `digraph {...}` at p (just after the brace). */
static void parse_digraph(pair_table *pairs, cgm_runtime *rt, const char *path, int lineno,
			  const char *p)
{
	for (;;) {
		while (*p == ' ' || *p == ';')
			p++;
		if (*p == '}')
			return;
		unsigned long a, b;
		const char *item = p;
		if (!parse_oid(&a, &p) || p[0] != '-' || p[1] != '>' || (p += 2, !parse_oid(&b, &p)) ||
		    (*p != ';' && *p != '}')) {
			rt_diagnostic(rt, path, lineno,
				      "cannot read '%.*s' as OID->OID: rest of the line skipped",
				      (int)strcspn(item, ";}\n"), item);
			return;
		}
		pair_count(pairs, a, b, lineno);
	}
}

typedef struct {
	unsigned long oid;
	const char *id; /* NULL: unknown in the database */
	int first_line;
	int64_t uses;
} oid_name;

static int compare_oid_names(const void *a, const void *b)
{
	const oid_name *x = a, *y = b;
	return x->oid < y->oid ? -1 : x->oid > y->oid;
}

static oid_name *find_oid(oid_name *names, int n, unsigned long oid)
{
	oid_name key = { .oid = oid };
	return bsearch(&key, names, (size_t)n, sizeof(oid_name), compare_oid_names);
}

int cgm_runtime_load_log(cgm_runtime *rt, const char *path, const char *dsn)
{
	if (!dsn)
		return cgm_error(CGM_EUSAGE,
				 "runtime log '%s': OIDs are only meaningful in the database they "
				 "come from: map that database with --dsn",
				 path);
	int rc = 0;
	FILE *f = cgm_infile_open(path, "runtime log", CGM_EINPUT, &rc);
	if (!f)
		return rc;
	pair_table pairs = { 0 };
	char *line = NULL;
	size_t cap = 0;
	int lineno = 0, ndigraphs = 0;
	char first[64] = "", last[64] = "", stamp[64];
	/* A log is streamed, however big; only a line is held, and a line
	 * longer than the input limit is not read. */
	int64_t limit = cgm_infile_max_size();
	size_t max_line = limit > 0 && (uint64_t)limit < SIZE_MAX ? (size_t)limit : SIZE_MAX - 2;
	bool truncated;
	while (cgm_infile_getline(&line, &cap, f, max_line, &truncated) != -1) {
		if (lineno < INT_MAX)
			lineno++;
		if (truncated) {
			rt_diagnostic(rt, path, lineno,
				      "line longer than the input limit (--max-file-size): skipped");
			continue;
		}
		const char *d = strstr(line, "digraph {");
		if (!d)
			continue;
		if (!strchr(d, '}')) {
			rt_diagnostic(rt, path, lineno,
				      "digraph without its closing brace: skipped");
			continue;
		}
		ndigraphs++;
		/* csvlog, jsonlog or stderr, each read by its fields */
		if (cgm_serverlog_timestamp_prefixed(stamp, sizeof(stamp), line, rt->log_line_prefix)) {
			if (!first[0])
				snprintf(first, sizeof(first), "%s", stamp);
			snprintf(last, sizeof(last), "%s", stamp);
		}
		parse_digraph(&pairs, rt, path, lineno, d + strlen("digraph {"));
	}
	bool read_error = ferror(f);
	free(line);
	fclose(f);
	if (read_error) {
		free(pairs.pairs);
		free(pairs.slots);
		return cgm_error(CGM_EINPUT, "cannot read runtime log '%s'", path);
	}

	if (!ndigraphs)
		rt_diagnostic(rt, path, 0,
			      "no 'digraph {oid->oid;...}' line in runtime log (%d lines read)",
			      lineno);

	/* Distinct OIDs (0 is "no caller": an entry point). */
	oid_name *names = calloc((size_t)pairs.n * 2 + 1, sizeof(oid_name));
	if (!names) {
		fprintf(stderr, "cgmap: out of memory\n");
		abort();
	}
	int nnames = 0;
	for (int k = 0; k < pairs.n; k++) {
		names[nnames++] = (oid_name){ pairs.pairs[k].caller, NULL, pairs.pairs[k].first_line, 0 };
		names[nnames++] = (oid_name){ pairs.pairs[k].callee, NULL, pairs.pairs[k].first_line, 0 };
	}
	qsort(names, (size_t)nnames, sizeof(oid_name), compare_oid_names);
	int distinct = 0;
	for (int k = 0; k < nnames; k++) {
		if (names[k].oid == 0)
			continue;
		if (distinct && names[distinct - 1].oid == names[k].oid) {
			if (names[k].first_line < names[distinct - 1].first_line)
				names[distinct - 1].first_line = names[k].first_line;
			continue;
		}
		names[distinct++] = names[k];
	}
	nnames = distinct;

	int source = rt->nsources;
	cgm_runtime_source *src = rt_add_source(rt);
	src->kind = "log";
	src->name = cgm_arena_strdup(rt->arena, path);
	src->since = first[0] ? cgm_arena_strdup(rt->arena, first) : NULL;
	src->until = last[0] ? cgm_arena_strdup(rt->arena, last) : NULL;
	src->has_trace = ndigraphs > 0;

	if (nnames) {
		PGconn *conn = connect_quiet(dsn, "runtime log");
		if (!conn) {
			rc = CGM_ESOURCE;
			goto out;
		}
		PGresult *res = must_query(conn, "runtime log",
					   "SELECT pg_catalog.set_config('search_path', '', false)");
		if (res) {
			PQclear(res);
			cgm_strbuf arr = CGM_STRBUF_INIT;
			cgm_strbuf_putc(&arr, '{');
			for (int k = 0; k < nnames; k++)
				cgm_strbuf_printf(&arr, "%s%lu", k ? "," : "", names[k].oid);
			cgm_strbuf_putc(&arr, '}');
			const char *params[1] = { cgm_strbuf_cstr(&arr) };
			res = PQexecParams(conn,
					   "SELECT p.oid, p.oid::pg_catalog.regprocedure::text,"
					   " pg_catalog.current_database()"
					   " FROM pg_catalog.pg_proc p"
					   " WHERE p.oid = ANY ($1::pg_catalog.oid[])",
					   1, NULL, params, NULL, NULL, 0);
			cgm_strbuf_free(&arr);
			if (PQresultStatus(res) != PGRES_TUPLES_OK) {
				rc = cgm_error(CGM_ESOURCE, "runtime log '%s': cannot map OIDs: %.*s",
					       path, (int)strcspn(PQresultErrorMessage(res), "\n"),
					       PQresultErrorMessage(res));
			} else {
				for (int r = 0; r < PQntuples(res); r++) {
					oid_name *n = find_oid(names, nnames,
							       strtoul(PQgetvalue(res, r, 0), NULL, 10));
					if (n)
						n->id = cgm_arena_strdup(rt->arena, PQgetvalue(res, r, 1));
				}
				if (PQntuples(res))
					src->database = cgm_arena_strdup(rt->arena, PQgetvalue(res, 0, 2));
			}
			PQclear(res);
		} else {
			rc = CGM_ESOURCE;
		}
		PQfinish(conn);
		if (rc < 0)
			goto out;
	}

	for (int k = 0; k < pairs.n; k++) {
		const log_pair *p = &pairs.pairs[k];
		oid_name *caller = p->caller ? find_oid(names, nnames, p->caller) : NULL;
		oid_name *callee = find_oid(names, nnames, p->callee);
		bool ok = true;
		if (p->callee == 0) {
			rt_diagnostic(rt, path, p->first_line,
				      "OID 0 as a callee in runtime log: %" PRId64 " call%s skipped",
				      p->count, p->count == 1 ? "" : "s");
			continue;
		}
		if (!callee->id) {
			if (callee)
				callee->uses += p->count;
			ok = false;
		}
		if (p->caller && !caller->id) {
			caller->uses += p->count;
			ok = false;
		}
		if (!ok)
			continue;
		cgm_runtime_edge *e = rt_add_edge(rt);
		e->caller = caller ? caller->id : NULL;
		e->callee = callee->id;
		e->stats.calls = p->count;
		e->source = source;
	}
	for (int k = 0; k < nnames; k++)
		if (!names[k].id)
			rt_diagnostic(rt, path, names[k].first_line,
				      "unknown function OID %lu in runtime log (no such function in "
				      "the mapped database; %" PRId64 " call%s skipped)",
				      names[k].oid, names[k].uses, names[k].uses == 1 ? "" : "s");
out:
	free(names);
	free(pairs.pairs);
	free(pairs.slots);
	return rc;
}
