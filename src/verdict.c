/*
 * verdict.c - the runtime evidence of a model and the verdict on each
 * function nobody was seen calling (docs/reports.md, "Verdicts").
 *
 * In:  runtime sources (from merge), then the analysed model (reachable,
 *      runtime figures) and the analyze options (--min-window, --min-calls).
 * Out: model->evidence (window, servers, databases, calls, trace modes,
 *      whether that is enough), and per user function verdict, confidence,
 *      dead and cold.  Strings and lists live in model->arena; scratch
 *      arrays are malloc'd and freed here.
 *
 * A function that is neither called nor reachable from a root is
 *   untraceable        when no source could have seen its calls (an SQL
 *                      function under cgmap_trace.track = plpgsql is inlined
 *                      by the planner; an aggregate is seen only through its
 *                      user support functions: builtins are never traced);
 *   dynamic-reachable  when a dynamic SQL site may call it (its possible
 *                      targets, src/dynsql.c), or another body names it as a
 *                      call in a string literal (src/litnames.c);
 *   unobserved         when the window or the calls observed are not enough,
 *                      or the tracer removed call records of dropped
 *                      functions in the window (lost_records: a function
 *                      that ran may have lost every record of its calls),
 *                      or its full table lost some (lost_to_full_table);
 *   dead               otherwise, with a confidence from the window's length.
 */
#include "cgmap/verdict.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cgmap/dynsql.h"
#include "cgmap/error.h"

static const char *const verdict_names[] = { "none", "dead", "unobserved", "untraceable",
					     "dynamic-reachable" };

const char *cgm_verdict_name(cgm_verdict verdict)
{
	size_t n = sizeof(verdict_names) / sizeof(verdict_names[0]);
	return (size_t)verdict < n ? verdict_names[verdict] : "unknown";
}

int cgm_verdict_parse(cgm_verdict *out, const char *name)
{
	size_t n = sizeof(verdict_names) / sizeof(verdict_names[0]);
	for (size_t i = 0; name && i < n; i++)
		if (strcmp(verdict_names[i], name) == 0) {
			*out = (cgm_verdict)i;
			return 0;
		}
	return -1;
}

static bool digits(const char *s, int n, int *out)
{
	int v = 0;
	for (int i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return true;
}

int cgm_window_skew(const char *stats_since, const char *trace_since)
{
	enum { SKEW_SECONDS = 60 };
	int64_t stats = cgm_time_parse(stats_since), trace = cgm_time_parse(trace_since);
	if (stats < 0 || trace < 0)
		return 0;
	return trace - stats > SKEW_SECONDS ? 1 : stats - trace > SKEW_SECONDS ? -1 : 0;
}

int64_t cgm_time_parse(const char *text)
{
	if (!text)
		return -1;
	int y, mo, d, h, mi, s;
	const char *p = text;
	if (strlen(p) < 19 || !digits(p, 4, &y) || p[4] != '-' || !digits(p + 5, 2, &mo) ||
	    p[7] != '-' || !digits(p + 8, 2, &d) || (p[10] != 'T' && p[10] != ' ') ||
	    !digits(p + 11, 2, &h) || p[13] != ':' || !digits(p + 14, 2, &mi) || p[16] != ':' ||
	    !digits(p + 17, 2, &s))
		return -1;
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60)
		return -1;
	p += 19;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			;
	while (*p == ' ')
		p++;
	int offset = 0;
	if ((*p == '+' || *p == '-') && isdigit((unsigned char)p[1]) &&
	    isdigit((unsigned char)p[2])) {
		int oh = (p[1] - '0') * 10 + (p[2] - '0'), om = 0;
		const char *q = p + 3;
		if (*q == ':')
			q++;
		if (isdigit((unsigned char)q[0]) && isdigit((unsigned char)q[1]))
			om = (q[0] - '0') * 10 + (q[1] - '0');
		offset = (oh * 60 + om) * 60 * (*p == '-' ? -1 : 1);
	}
	/* Days from the civil date (proleptic Gregorian), no time zone games. */
	int yy = y - (mo <= 2);
	int64_t era = (yy >= 0 ? yy : yy - 399) / 400;
	int64_t yoe = yy - era * 400;
	int64_t doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	int64_t days = era * 146097 + doe - 719468;
	return days * 86400 + h * 3600 + mi * 60 + s - offset;
}

int cgm_duration_parse(int64_t *seconds, const char *text, const char *option)
{
	int64_t total = 0;
	const char *p = text;
	if (!p || !*p)
		return cgm_error(CGM_EUSAGE, "option '%s' needs a duration (30m, 2h, 7d)", option);
	while (*p) {
		if (!isdigit((unsigned char)*p))
			goto bad;
		int64_t n = 0;
		while (isdigit((unsigned char)*p)) {
			if (n > 100000000)
				goto bad;
			n = n * 10 + (*p++ - '0');
		}
		int64_t unit = 1;
		switch (*p) {
		case '\0': break;
		case 's': p++; break;
		case 'm': unit = 60; p++; if (strncmp(p, "in", 2) == 0) p += 2; break;
		case 'h': unit = 3600; p++; break;
		case 'd': unit = 86400; p++; break;
		case 'w': unit = 7 * 86400; p++; break;
		default: goto bad;
		}
		total += n * unit;
		if (total > (int64_t)100 * 365 * 86400)
			goto bad;
	}
	*seconds = total;
	return 0;
bad:
	return cgm_error(CGM_EUSAGE,
			 "option '%s' takes a duration such as 90s, 30m, 2h, 7d or 1w, not '%s'",
			 option, text);
}

void cgm_duration_text(cgm_strbuf *out, int64_t seconds)
{
	if (seconds < 0) {
		cgm_strbuf_puts(out, "unknown length");
		return;
	}
	int64_t d = seconds / 86400, h = seconds % 86400 / 3600, m = seconds % 3600 / 60,
		s = seconds % 60;
	if (d)
		cgm_strbuf_printf(out, "%lld d %lld h", (long long)d, (long long)h);
	else if (h)
		cgm_strbuf_printf(out, "%lld h %lld min", (long long)h, (long long)m);
	else if (m)
		cgm_strbuf_printf(out, "%lld min %lld s", (long long)m, (long long)s);
	else
		cgm_strbuf_printf(out, "%lld s", (long long)s);
}

static const char **list_add(cgm_arena *arena, const char **list, int *n, const char *item)
{
	for (int i = 0; i < *n; i++)
		if (strcmp(list[i], item) == 0)
			return list;
	const char **grown = cgm_arena_alloc(arena, sizeof(char *) * (size_t)(*n + 1));
	if (*n)
		memcpy(grown, list, sizeof(char *) * (size_t)*n);
	grown[(*n)++] = cgm_arena_strdup(arena, item);
	return grown;
}

/* none < pl < all; plpgsql < all. */
static int track_rank(const char *track)
{
	if (!track)
		return -1;
	if (strcmp(track, "all") == 0)
		return 2;
	if (strcmp(track, "pl") == 0 || strcmp(track, "plpgsql") == 0)
		return 1;
	return 0;
}

void cgm_evidence_add_source(cgm_model *model, const cgm_runtime_source *src)
{
	cgm_evidence *ev = &model->evidence;
	cgm_arena *arena = model->arena;
	if (!src->has_trace && !src->has_function_stats)
		return;
	/* A server is its system identifier and port when known, else the
	 * name it was reached by (a file names the server it was collected
	 * from). */
	const char *name = src->database && strcmp(src->kind, "database") != 0 ? src->database
										 : src->name;
	const char *server = src->system_id
				     ? cgm_arena_printf(arena, "system %s port %s", src->system_id,
							src->port ? src->port : "?")
				     : name;
	ev->servers = list_add(arena, ev->servers, &ev->nservers, server ? server : "?");
	const char *db = cgm_arena_printf(arena, "%s on %s",
					  src->database ? src->database : "?", server ? server : "?");
	if (src->system_id && src->database && strcmp(src->kind, "database") != 0) {
		/* A file's "database" is the server name collect wrote
		 * ("shop@db1:5432"): its database is before the '@'. */
		size_t at = strcspn(src->database, "@");
		db = cgm_arena_printf(arena, "%.*s on %s", (int)at, src->database, server);
	}
	ev->databases = list_add(arena, ev->databases, &ev->ndatabases, db);

	int64_t since = cgm_time_parse(src->since), until = cgm_time_parse(src->until);
	if (since >= 0 && (!ev->since || since < cgm_time_parse(ev->since)))
		ev->since = cgm_arena_strdup(arena, src->since);
	if (until >= 0 && (!ev->until || until > cgm_time_parse(ev->until)))
		ev->until = cgm_arena_strdup(arena, src->until);
	if (since >= 0 && until >= since && until - since > ev->window_seconds)
		ev->window_seconds = until - since;

	/* Lost in any database or window merged: the calls may have been of
	 * any function mapped (a cluster-wide count names none). */
	if (src->has_trace && src->trace_stale_removed > 0)
		ev->lost_records = cgm_count_add(ev->lost_records, src->trace_stale_removed,
						 &(bool){ false });
	/* A full table evicted edges (or, before 1.1, dropped new calls): the
	 * calls they counted are missing as well, unless the source's
	 * statistics count every function's calls (track_functions = all),
	 * which merge takes a function's figures from whatever its edges. */
	int64_t full = (src->trace_evictions > 0 ? src->trace_evictions : 0) +
		       (src->trace_dropped > 0 ? src->trace_dropped : 0);
	bool counted = src->has_function_stats && src->track_functions &&
		       strcmp(src->track_functions, "all") == 0;
	if (src->has_trace && full > 0 && !counted)
		ev->lost_to_full_table = cgm_count_add(ev->lost_to_full_table, full, &(bool){ false });
	if (src->has_trace) {
		/* Unknown (an older extension, a log): assume the narrower mode. */
		const char *track = src->trace_track && strcmp(src->trace_track, "all") == 0
					    ? "all"
					    : "plpgsql";
		if (!ev->trace_track || track_rank(track) < track_rank(ev->trace_track))
			ev->trace_track = track;
	}
	if (src->has_function_stats) {
		const char *track = src->track_functions && strcmp(src->track_functions, "all") == 0
					    ? "all"
				    : src->track_functions && strcmp(src->track_functions, "pl") == 0
					    ? "pl"
					    : "none";
		if (!ev->track_functions || track_rank(track) < track_rank(ev->track_functions))
			ev->track_functions = track;
	}
}

static bool language_is(const cgm_function *f, const char *language)
{
	return f->language && strcmp(f->language, language) == 0;
}

static bool plain_traceable(const cgm_model *model, const cgm_function *f)
{
	const cgm_evidence *ev = &model->evidence;
	bool sql = language_is(f, "sql");
	bool native = language_is(f, "c") || language_is(f, "internal");
	if (ev->trace_track) {
		if (strcmp(ev->trace_track, "all") == 0)
			return true;
		if (language_is(f, "plpgsql"))
			return true;
	}
	if (ev->track_functions) {
		/* Statistics count an SQL function only when it is not
		 * inlined, which only the planner knows; a procedure is never
		 * inlined. */
		if (strcmp(ev->track_functions, "all") == 0 && (!sql || f->kind == CGM_KIND_PROCEDURE))
			return true;
		if (strcmp(ev->track_functions, "pl") == 0 && !sql && !native)
			return true;
	}
	return false;
}

bool cgm_function_traceable(const cgm_model *model, int fn)
{
	const cgm_function *f = &model->functions[fn];
	if (f->kind != CGM_KIND_AGGREGATE)
		return plain_traceable(model, f);
	for (int a = 0; a < model->naggregates; a++) {
		const cgm_aggregate *agg = &model->aggregates[a];
		if (agg->aggregate != fn)
			continue;
		for (int s = 0; s < agg->nsupport; s++) {
			int sf = agg->support ? agg->support[s] : -1;
			if (sf >= 0 && sf < model->nuser && sf != fn &&
			    plain_traceable(model, &model->functions[sf]))
				return true;
		}
	}
	return false;
}

/* Support function sf of aggregate fn is some other aggregate's too. */
static bool support_shared(const cgm_model *model, int fn, int sf)
{
	for (int a = 0; a < model->naggregates; a++) {
		const cgm_aggregate *agg = &model->aggregates[a];
		if (agg->aggregate == fn || !agg->support)
			continue;
		for (int s = 0; s < agg->nsupport; s++)
			if (agg->support[s] == sf)
				return true;
	}
	return false;
}

int64_t cgm_function_calls(const cgm_model *model, int fn)
{
	const cgm_function *f = &model->functions[fn];
	int64_t calls = f->runtime.calls;
	if (f->kind != CGM_KIND_AGGREGATE)
		return calls;
	/* Merge gave the aggregate the calls its callers' support edges and
	 * its own support functions' client calls show (observe_aggregates).
	 * What it could not give: a client statement's calls of a support
	 * function another aggregate shares, which may have been this one's;
	 * taken as its calls rather than risk calling dead what ran. */
	for (int a = 0; a < model->naggregates; a++) {
		const cgm_aggregate *agg = &model->aggregates[a];
		if (agg->aggregate != fn)
			continue;
		for (int s = 0; s < agg->nsupport; s++) {
			int sf = agg->support ? agg->support[s] : -1;
			if (sf >= 0 && sf < model->nfunctions && sf != fn &&
			    model->functions[sf].observed_entry &&
			    model->functions[sf].runtime.calls > calls && support_shared(model, fn, sf))
				calls = model->functions[sf].runtime.calls;
		}
	}
	return calls;
}

void cgm_verdicts_apply(cgm_model *model, const cgm_analyze_options *opts)
{
	cgm_evidence *ev = &model->evidence;
	int n = model->nuser;
	ev->min_window_seconds = opts && opts->has_min_window ? opts->min_window_seconds
							       : CGM_DEFAULT_MIN_WINDOW;
	ev->min_calls = opts && opts->has_min_calls ? opts->min_calls : CGM_DEFAULT_MIN_CALLS;
	int64_t calls = 0;
	bool held = false; /* held at INT64_MAX like the figures it sums (said there) */
	/* An aggregate's calls are its support functions' seen again (merge's
	 * observe_aggregates): counted once, as theirs. */
	for (int i = 0; i < n; i++)
		if (model->functions[i].kind != CGM_KIND_AGGREGATE)
			calls = cgm_count_add(calls, model->functions[i].runtime.calls, &held);
	ev->calls = calls;
	/* An empty window (no call at all) never yields dead, whatever the
	 * options say; a window's length is counted in whole seconds, so a
	 * short one with calls may read 0 s (then --min-window 0 is enough).
	 * Call records the tracer removed with a dropped function are calls
	 * nobody can count: a recreated function has a new OID, and a callee
	 * kept loses its dropped caller's edge; the counter names no function,
	 * so no silence is evidence while it is above 0. */
	ev->enough = model->has_runtime && ev->window_seconds >= 0 &&
		     ev->window_seconds >= ev->min_window_seconds && calls > 0 &&
		     calls >= ev->min_calls && ev->lost_records <= 0 && ev->lost_to_full_table <= 0;

	bool *possible = cgm_xcalloc((size_t)n + 1, sizeof(bool));
	cgm_dynsql_possible_targets(possible, model);
	for (int i = 0; i < n; i++) {
		cgm_function *f = &model->functions[i];
		f->verdict = CGM_VERDICT_NONE;
		f->confidence = NULL;
		f->dead = f->cold = false;
		if (!model->has_runtime)
			continue;
		bool called = cgm_function_calls(model, i) > 0;
		bool traceable = cgm_function_traceable(model, i);
		if (f->reachable || called) {
			f->cold = f->reachable && !called && traceable && ev->enough;
			continue;
		}
		if (!traceable)
			f->verdict = CGM_VERDICT_UNTRACEABLE;
		else if (possible[i])
			f->verdict = CGM_VERDICT_DYNAMIC_REACHABLE;
		else if (!ev->enough)
			f->verdict = CGM_VERDICT_UNOBSERVED;
		else {
			f->verdict = CGM_VERDICT_DEAD;
			f->dead = true;
			f->confidence = ev->window_seconds >= 7 * 86400 ? "high"
					: ev->window_seconds >= 86400  ? "medium"
								       : "low";
		}
	}
	free(possible);
}

void cgm_evidence_text(cgm_strbuf *out, const cgm_model *model)
{
	const cgm_evidence *ev = &model->evidence;
	cgm_strbuf_printf(out, "window %s to %s (", ev->since ? ev->since : "an unknown start",
			  ev->until ? ev->until : "an unknown end");
	cgm_duration_text(out, ev->window_seconds);
	cgm_strbuf_printf(out, "), %d server%s, %d database%s, %lld calls observed; traced: %s; "
			       "statistics: track_functions %s; ",
			  ev->nservers, ev->nservers == 1 ? "" : "s", ev->ndatabases,
			  ev->ndatabases == 1 ? "" : "s", (long long)ev->calls,
			  ev->trace_track ? ev->trace_track : "no",
			  ev->track_functions ? ev->track_functions : "none read");
	if (ev->lost_records > 0)
		cgm_strbuf_printf(out, "%lld call record%s of dropped functions lost (cgmap_trace "
				       "stale_removed): any function may have run; ",
				  (long long)ev->lost_records, ev->lost_records == 1 ? "" : "s");
	if (ev->lost_to_full_table > 0)
		cgm_strbuf_printf(out, "%lld trace record%s lost to a full table (cgmap_trace evicted "
				       "or could not record them; raise cgmap_trace.max_edges): any "
				       "function may have run; ",
				  (long long)ev->lost_to_full_table, ev->lost_to_full_table == 1 ? "" : "s");
	cgm_strbuf_printf(out, "%s for dead (at least ", ev->enough ? "enough" : "not enough");
	cgm_duration_text(out, ev->min_window_seconds);
	cgm_strbuf_printf(out, " and %lld call%s%s)", (long long)ev->min_calls,
			  ev->min_calls == 1 ? "" : "s",
			  ev->lost_records > 0 || ev->lost_to_full_table > 0 ? ", none lost" : "");
}

static bool referenced_as(const cgm_model *model, int fn, const char *kind)
{
	for (int i = 0; i < model->nreferences; i++) {
		const cgm_reference *r = &model->references[i];
		if (r->function == fn && r->object_kind && strcmp(r->object_kind, kind) == 0)
			return true;
	}
	return false;
}

/* Some static edge into fn runs it through a relation mechanism `via`
 * (a view read, a column default filled): the mapped relation effects say
 * how fn gets called, stronger than a catalog reference alone. */
static bool static_via_into(const cgm_model *model, int fn, cgm_via via)
{
	for (int i = 0; i < model->nedges; i++) {
		const cgm_edge *e = &model->edges[i];
		if (e->to == fn && e->via == via && (e->provenance & CGM_EDGE_STATIC))
			return true;
	}
	return false;
}

/* A static path from -> y1 [-> y2] -> to whose inner functions are SQL. */
static bool through_sql(const cgm_model *model, int from, int to, int depth)
{
	for (int i = 0; i < model->nedges; i++) {
		const cgm_edge *e = &model->edges[i];
		if (e->from != from || !(e->provenance & CGM_EDGE_STATIC) || e->to < 0 ||
		    e->to >= model->nfunctions || e->to == from)
			continue;
		if (!language_is(&model->functions[e->to], "sql"))
			continue;
		for (int k = 0; k < model->nedges; k++) {
			const cgm_edge *e2 = &model->edges[k];
			if (e2->from == e->to && e2->to == to && (e2->provenance & CGM_EDGE_STATIC))
				return true;
		}
		if (depth > 1 && through_sql(model, e->to, to, depth - 1))
			return true;
	}
	return false;
}

/* Seen only at lines of the caller's branches for another server version
 * (verbranch.h): the runtime data comes from a server of another version
 * than the map stands for, which runs the calls the map left out. */
static bool in_other_version_branch(const cgm_function *from, const cgm_edge *edge)
{
	const int *ranges = from->other_version_lines;
	if (!ranges || edge->nlines == 0)
		return false;
	for (int l = 0; l < edge->nlines; l++) {
		bool inside = false;
		for (int k = 0; k < ranges[0] && !inside; k++)
			inside = edge->lines[l] >= ranges[1 + 2 * k] && edge->lines[l] <= ranges[2 + 2 * k];
		if (!inside)
			return false;
	}
	return true;
}

const char *cgm_edge_cause(const cgm_model *model, const cgm_edge *edge)
{
	if (edge->from < 0 || edge->to < 0 || edge->from >= model->nfunctions ||
	    edge->to >= model->nfunctions)
		return "unknown";
	const cgm_function *from = &model->functions[edge->from];
	const cgm_function *to = &model->functions[edge->to];
	/* cgmap read no calls of the caller: C, PL/Perl, ... (their calls
	 * through SPI are seen only at runtime), or a body that did not
	 * parse. */
	if (!from->analysed)
		return "caller not analysed";
	if (from->nerrors > 0)
		return "caller has a parse error";
	/* Seen against an earlier body that called it; the mapped one does
	 * not (the line, if any, means nothing in it). */
	if (cgm_edge_get_rare(edge)->earlier_body)
		return "changed body";
	for (int l = 0; l < edge->nlines; l++)
		if (from->line_count > 0 && edge->lines[l] > from->line_count)
			return "changed body";
	if (in_other_version_branch(from, edge))
		return "other server version";
	if (through_sql(model, edge->from, edge->to, 3))
		return "inlined SQL function";
	/* No SQL can pass an `internal` value: PostgreSQL itself made the call
	 * while running the caller's statements (a planner's selectivity
	 * estimator or SUPPORT function, an index access method's support
	 * function on a scan). */
	for (int i = 0; i < to->nargs && to->argtypes; i++)
		if (to->argtypes[i] && strcmp(to->argtypes[i], "internal") == 0)
			return "internal machinery";
	/* Only a type's input and output functions take or return a cstring:
	 * PostgreSQL calls them to read a literal of the type, or to turn a
	 * value into text (format(), a cast through text, concatenation). */
	if (to->result && strcmp(to->result, "cstring") == 0)
		return "type input/output";
	if (to->nargs >= 1 && to->argtypes && to->argtypes[0] && strcmp(to->argtypes[0], "cstring") == 0)
		return "type input/output";
	if (to->result && strcmp(to->result, "event_trigger") == 0)
		return "event trigger";
	if (to->is_trigger)
		return "trigger";
	/* The static relation edges first: a view or default that runs the
	 * callee for some other statement (an edge of the pair itself would
	 * have explained the call, merge lands on it); the catalog's
	 * references when no relation effect was mapped. */
	if (static_via_into(model, edge->to, CGM_VIA_VIEW))
		return "view";
	if (static_via_into(model, edge->to, CGM_VIA_DEFAULT))
		return "default";
	if (referenced_as(model, edge->to, "view"))
		return "view";
	if (referenced_as(model, edge->to, "default"))
		return "default";
	/* An unqualified call of the same name at the line the call was seen:
	 * the session's search_path chose another function of that name than
	 * the path cgmap resolved with (orafce's tests put `oracle` before
	 * pg_catalog, so `substr(t, n)` runs oracle.substr).  A call seen
	 * without a line (a SQL function's: PostgreSQL gives its statements
	 * none) matches such a call at any line. */
	for (int s = 0; s < from->nsites && to->name; s++) {
		const cgm_site *site = &from->sites[s];
		if (site->schema || !site->name || strcmp(site->name, to->name) != 0 ||
		    site->kind == CGM_SITE_DYNAMIC)
			continue;
		if (edge->nlines == 0)
			return "search_path";
		for (int l = 0; l < edge->nlines; l++)
			if (edge->lines[l] == site->line)
				return "search_path";
	}
	/* A dynamic site of the caller may have made the call only where the
	 * call was seen: at the site's line, when the runtime data has lines
	 * (cgmap_trace's do; statistics and logs have none). */
	for (int s = 0; s < from->nsites; s++) {
		if (from->sites[s].kind != CGM_SITE_DYNAMIC)
			continue;
		if (edge->nlines == 0)
			return "dynamic SQL";
		for (int l = 0; l < edge->nlines; l++)
			if (edge->lines[l] == from->sites[s].line)
				return "dynamic SQL";
	}
	return "unknown";
}
