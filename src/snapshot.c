/*
 * snapshot.c - the JSON snapshot, cgmap.json (docs/snapshot.md), written
 * from a model and read back into a fresh one.
 *
 * Write: in, a complete indexed model (left untouched: every sorted order is
 * a sorted copy); out, the file, written to a temporary file in the same
 * folder then renamed over the target, so a crash never leaves half a
 * snapshot.  Byte-identical for the same model: keys in a fixed order,
 * arrays in the documented sorted orders, reals with a fixed precision.
 *
 * Read: in, the file or a folder holding cgmap.json; out, *out = a new
 * model the caller frees with cgm_model_free() (NULL on error).  Derived
 * lists (summary, dynamic_sites, missing, parse_errors) are not trusted:
 * they follow from the functions and edges.  Every malformed input is a
 * CGM_EINPUT error naming the file and the JSON path (or the line and
 * column when the JSON itself does not parse); nothing is half-read.
 */
#include "cgmap/error.h"
#include "cgmap/pipeline.h"
#include "cgmap/strbuf.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SNAPSHOT_NAME "cgmap.json"
#define SNAPSHOT_FORMAT_NAME "cgmap-snapshot"
/* 12 significant digits: far below measurable time, and a value read back
 * prints as the same text, so a round trip is byte-identical. */
#define SNAPSHOT_DUMP_FLAGS (JSON_PRESERVE_ORDER | JSON_INDENT(2) | JSON_REAL_PRECISION(12))

static const char *const event_names[] = { "INSERT", "UPDATE", "DELETE", "TRUNCATE" };
#define NEVENTS ((int)(sizeof(event_names) / sizeof(event_names[0])))

static void *xmalloc(size_t n)
{
	void *p = calloc(n ? n : 1, 1);
	if (!p) {
		fprintf(stderr, "cgmap: out of memory (%zu bytes)\n", n);
		abort();
	}
	return p;
}

/* ------------------------------------------------------------------ */
/* Writing                                                             */
/* ------------------------------------------------------------------ */

/* jansson only takes valid UTF-8; a catalog in SQL_ASCII may hold anything,
 * so bad bytes become U+FFFD (the same rule as cgmap/escape.h). */
static size_t utf8_sequence_length(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t len;
	uint32_t min, value;
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		len = 2, min = 0x80, value = c & 0x1F;
	else if (c >= 0xE0 && c <= 0xEF)
		len = 3, min = 0x800, value = c & 0x0F;
	else if (c >= 0xF0 && c <= 0xF4)
		len = 4, min = 0x10000, value = c & 0x07;
	else
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		value = (value << 6) | (s[i] & 0x3F);
	}
	if (value < min || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF))
		return 0;
	return len;
}

static json_t *json_checked(json_t *value)
{
	if (!value) {
		fprintf(stderr, "cgmap: out of memory building the snapshot\n");
		abort();
	}
	return value;
}

static json_t *jstr(const char *s)
{
	if (!s)
		return json_null();
	json_t *v = json_string(s);
	if (v)
		return v;
	cgm_strbuf clean = CGM_STRBUF_INIT;
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		size_t n = utf8_sequence_length(p);
		if (n == 0) {
			cgm_strbuf_puts(&clean, "\xEF\xBF\xBD");
			p++;
		} else {
			cgm_strbuf_add(&clean, (const char *)p, n);
			p += n;
		}
	}
	v = json_checked(json_string(cgm_strbuf_cstr(&clean)));
	cgm_strbuf_free(&clean);
	return v;
}

static void put(json_t *obj, const char *key, json_t *value)
{
	if (json_object_set_new(obj, key, json_checked(value)) != 0) {
		fprintf(stderr, "cgmap: out of memory building the snapshot\n");
		abort();
	}
}

static void append(json_t *arr, json_t *value)
{
	if (json_array_append_new(arr, json_checked(value)) != 0) {
		fprintf(stderr, "cgmap: out of memory building the snapshot\n");
		abort();
	}
}

static json_t *new_object(void)
{
	return json_checked(json_object());
}

static json_t *new_array(void)
{
	return json_checked(json_array());
}

static json_t *string_array(const char *const *items, int n)
{
	json_t *arr = new_array();
	for (int i = 0; i < n; i++)
		append(arr, jstr(items ? items[i] : NULL));
	return arr;
}

static json_t *events_array(unsigned events)
{
	json_t *arr = new_array();
	for (int i = 0; i < NEVENTS; i++)
		if (events & (1u << i))
			append(arr, json_string(event_names[i]));
	return arr;
}

static bool stats_nonzero(const cgm_runtime_stats *st)
{
	return st->calls != 0 || st->total_ms != 0.0 || st->self_ms != 0.0;
}

/* JSON has no NaN or infinity (jansson refuses them); a time that is not
 * a number was never measured, so it is written as 0. */
static json_t *jreal(double v)
{
	return json_real(isfinite(v) ? v : 0.0);
}

static json_t *stats_json(const cgm_runtime_stats *st)
{
	json_t *o = new_object();
	put(o, "calls", json_integer(st->calls));
	put(o, "total_ms", jreal(st->total_ms));
	put(o, "self_ms", jreal(st->self_ms));
	return o;
}

static int compare_strings_nullable(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

static int compare_ints(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* Sorting records: a key copy and the index into the model, the index
 * breaking ties so equal keys still come out in one fixed order. */
typedef struct {
	const char *k1, *k2, *k3;
	int index;
} sort_rec;

static int compare_recs(const void *a, const void *b)
{
	const sort_rec *x = a, *y = b;
	int c = compare_strings_nullable(x->k1, y->k1);
	if (!c)
		c = compare_strings_nullable(x->k2, y->k2);
	if (!c)
		c = compare_strings_nullable(x->k3, y->k3);
	return c ? c : (x->index > y->index) - (x->index < y->index);
}

typedef struct {
	const cgm_model *model;
	bool *written;        /* per function index: part of the snapshot */
	sort_rec *functions;  /* written functions by id */
	int nfunctions;
	sort_rec *edges;      /* by from, to, via */
	int nedges;
} writer;

static bool valid_function(const cgm_model *m, int idx)
{
	return idx >= 0 && idx < m->nfunctions;
}

/* Which functions go in (user ones, and builtins an edge points at) and in
 * which order; every index is checked here once. */
static int writer_plan(writer *w)
{
	const cgm_model *m = w->model;
	w->written = xmalloc(sizeof(bool) * (size_t)m->nfunctions);
	for (int i = 0; i < m->nfunctions; i++)
		w->written[i] = !m->functions[i].builtin;
	for (int i = 0; i < m->nedges; i++) {
		const cgm_edge *e = &m->edges[i];
		if (!valid_function(m, e->from) || !valid_function(m, e->to))
			return cgm_error(CGM_EIO,
					 "cannot write the snapshot: edge %d points outside the "
					 "function list (%d -> %d)",
					 i, e->from, e->to);
		w->written[e->from] = w->written[e->to] = true;
	}
	for (int i = 0; i < m->nfunctions; i++) {
		const cgm_function *f = &m->functions[i];
		if (!f->id)
			return cgm_error(CGM_EIO, "cannot write the snapshot: function %d has no id", i);
		for (int s = 0; s < f->nsites; s++)
			for (int t = 0; t < f->sites[s].ntargets; t++)
				if (!valid_function(m, f->sites[s].targets[t]))
					return cgm_error(CGM_EIO,
							 "cannot write the snapshot: a site of \"%s\" at "
							 "line %d points outside the function list",
							 f->id, f->sites[s].line);
	}

	w->functions = xmalloc(sizeof(sort_rec) * (size_t)m->nfunctions);
	for (int i = 0; i < m->nfunctions; i++)
		if (w->written[i])
			w->functions[w->nfunctions++] = (sort_rec){ m->functions[i].id, NULL, NULL, i };
	qsort(w->functions, (size_t)w->nfunctions, sizeof(sort_rec), compare_recs);

	w->edges = xmalloc(sizeof(sort_rec) * (size_t)m->nedges);
	for (int i = 0; i < m->nedges; i++) {
		const cgm_edge *e = &m->edges[i];
		w->edges[w->nedges++] = (sort_rec){ m->functions[e->from].id, m->functions[e->to].id,
						    cgm_via_name(e->via), i };
	}
	qsort(w->edges, (size_t)w->nedges, sizeof(sort_rec), compare_recs);
	return 0;
}

static void writer_free(writer *w)
{
	free(w->written);
	free(w->functions);
	free(w->edges);
}

static json_t *site_json(const writer *w, const cgm_site *site)
{
	const cgm_model *m = w->model;
	json_t *o = new_object();
	put(o, "line", json_integer(site->line));
	put(o, "kind", json_string(cgm_site_kind_name(site->kind)));
	put(o, "via_literal", json_boolean(site->via_literal));
	put(o, "stmt", jstr(site->stmt));
	put(o, "schema", jstr(site->schema));
	put(o, "name", jstr(site->name));
	put(o, "nargs", json_integer(site->nargs));
	put(o, "argnames", string_array(site->argnames, site->nargs));
	put(o, "argtypes", string_array(site->argtypes, site->nargs));
	put(o, "variadic", json_boolean(site->variadic_call));
	put(o, "events", events_array(site->events));
	put(o, "text", jstr(site->text));
	put(o, "resolution", json_string(cgm_resolution_name(site->resolution)));

	/* Only targets that are part of the snapshot (a builtin without an
	 * edge is not), by id, so a snapshot read back writes the same. */
	sort_rec *targets = xmalloc(sizeof(sort_rec) * (size_t)site->ntargets);
	int n = 0;
	for (int t = 0; t < site->ntargets; t++)
		if (w->written[site->targets[t]])
			targets[n++] = (sort_rec){ m->functions[site->targets[t]].id, NULL, NULL, t };
	qsort(targets, (size_t)n, sizeof(sort_rec), compare_recs);
	json_t *arr = new_array();
	for (int t = 0; t < n; t++)
		if (t == 0 || strcmp(targets[t].k1, targets[t - 1].k1) != 0)
			append(arr, jstr(targets[t].k1));
	free(targets);
	put(o, "targets", arr);
	return o;
}

static json_t *function_json(const writer *w, const cgm_function *f)
{
	const cgm_model *m = w->model;
	json_t *o = new_object();
	put(o, "id", jstr(f->id));
	put(o, "schema", jstr(f->schema));
	put(o, "name", jstr(f->name));
	put(o, "identity_args", jstr(f->identity_args));
	put(o, "arguments", jstr(f->arguments));
	put(o, "result", jstr(f->result));
	put(o, "kind", json_string(cgm_kind_name(f->kind)));
	put(o, "language", jstr(f->language));
	put(o, "analysed", json_boolean(f->analysed));
	put(o, "trigger", json_boolean(f->is_trigger));
	put(o, "extension", json_boolean(f->from_extension));
	put(o, "builtin", json_boolean(f->builtin));
	put(o, "comment", jstr(f->comment));
	put(o, "file", jstr(f->file));
	put(o, "file_line", json_integer(f->file_line));
	put(o, "line_count", json_integer(f->line_count));
	put(o, "body_hash", jstr(f->body_hash));
	put(o, "nargs", json_integer(f->nargs));
	put(o, "argtypes", string_array(f->argtypes, f->nargs));
	put(o, "argnames", f->argnames ? string_array(f->argnames, f->nargs) : json_null());
	put(o, "ndefaults", json_integer(f->ndefaults));
	put(o, "variadic", json_boolean(f->variadic));
	put(o, "variadic_elem", jstr(f->variadic_elem));
	put(o, "search_path",
	    f->search_path && f->npath >= 0 ? string_array(f->search_path, f->npath) : json_null());
	put(o, "atomic_body", json_boolean(f->atomic_body));
	put(o, "source", jstr(f->source));

	json_t *sites = new_array();
	for (int s = 0; s < f->nsites; s++)
		append(sites, site_json(w, &f->sites[s]));
	put(o, "sites", sites);

	json_t *errors = new_array();
	for (int e = 0; e < f->nerrors; e++) {
		json_t *err = new_object();
		put(err, "line", json_integer(f->errors[e].line));
		put(err, "message", jstr(f->errors[e].message));
		append(errors, err);
	}
	put(o, "errors", errors);

	/* With runtime data every function has figures, zero meaning "never
	 * seen"; without, null meaning "not measured". */
	put(o, "runtime",
	    m->has_runtime || stats_nonzero(&f->runtime) ? stats_json(&f->runtime) : json_null());

	json_t *st = new_object();
	put(st, "observed_entry", json_boolean(f->observed_entry));
	put(st, "referenced", json_boolean(f->referenced));
	put(st, "root", json_boolean(f->root));
	put(st, "reachable", json_boolean(f->reachable));
	put(st, "dead", json_boolean(f->dead));
	put(st, "cold", json_boolean(f->cold));
	put(st, "scc", json_integer(f->scc));
	put(o, "status", st);
	return o;
}

static json_t *edge_json(const cgm_model *m, const cgm_edge *e)
{
	json_t *o = new_object();
	put(o, "from", jstr(m->functions[e->from].id));
	put(o, "to", jstr(m->functions[e->to].id));
	put(o, "via", json_string(cgm_via_name(e->via)));
	put(o, "static", json_boolean(e->provenance & CGM_EDGE_STATIC));
	put(o, "observed", json_boolean(e->provenance & CGM_EDGE_OBSERVED));
	put(o, "ambiguous", json_boolean(e->ambiguous));
	int *lines = xmalloc(sizeof(int) * (size_t)e->nlines);
	if (e->nlines)
		memcpy(lines, e->lines, sizeof(int) * (size_t)e->nlines);
	qsort(lines, (size_t)e->nlines, sizeof(int), compare_ints);
	json_t *arr = new_array();
	for (int i = 0; i < e->nlines; i++)
		append(arr, json_integer(lines[i]));
	free(lines);
	put(o, "lines", arr);
	put(o, "runtime",
	    (e->provenance & CGM_EDGE_OBSERVED) || stats_nonzero(&e->runtime) ? stats_json(&e->runtime)
									      : json_null());
	return o;
}

static bool edge_has_line(const cgm_edge *e, int line)
{
	for (int i = 0; i < e->nlines; i++)
		if (e->lines[i] == line)
			return true;
	return false;
}

/* Ids of the functions observed to be called from this dynamic site: the
 * observed "dynamic" edges of the function at the site's line, or at no
 * known line when the function has only this one dynamic site. */
static json_t *observed_targets_json(const writer *w, int fi, const cgm_site *site,
				     int ndynamic_sites)
{
	const cgm_model *m = w->model;
	json_t *arr = new_array();
	const char *last = NULL;
	/* Edges are sorted by from id, then to id: binary-search the first
	 * edge of this function, and its targets come sorted. */
	const char *id = m->functions[fi].id;
	int lo = 0, hi = w->nedges;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (strcmp(w->edges[mid].k1, id) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (int i = lo; i < w->nedges && strcmp(w->edges[i].k1, id) == 0; i++) {
		const cgm_edge *e = &m->edges[w->edges[i].index];
		if (e->from != fi || e->via != CGM_VIA_DYNAMIC || !(e->provenance & CGM_EDGE_OBSERVED))
			continue;
		if (!edge_has_line(e, site->line) && !(e->nlines == 0 && ndynamic_sites == 1))
			continue;
		const char *to = m->functions[e->to].id;
		if (last && strcmp(last, to) == 0)
			continue;
		append(arr, jstr(to));
		last = to;
	}
	return arr;
}

/* A trigger or a reference may name a function outside the mapped ones
 * (another schema, a builtin): then only its id is known. */
static const char *trigger_function_id(const cgm_model *m, const cgm_trigger *t)
{
	return valid_function(m, t->function) ? m->functions[t->function].id : t->function_id;
}

static const char *reference_function_id(const cgm_model *m, const cgm_reference *r)
{
	return valid_function(m, r->function) ? m->functions[r->function].id : r->function_id;
}

typedef struct {
	int functions, analysed, dynamic_sites, missing, parse_errors, ambiguous_sites;
	int edges, static_edges, observed_edges;
} summary_counts;

static json_t *diagnostic_entry(const cgm_diagnostic *d, bool with_function)
{
	json_t *o = new_object();
	if (with_function)
		put(o, "function", json_null());
	put(o, "file", jstr(d->file));
	put(o, "line", json_integer(d->line));
	put(o, "message", jstr(d->message));
	return o;
}

static json_t *build_document(const writer *w)
{
	const cgm_model *m = w->model;
	summary_counts sum = { 0 };
	json_t *root = new_object();
	put(root, "format", json_string(SNAPSHOT_FORMAT_NAME));
	put(root, "format_version", json_integer(CGM_SNAPSHOT_FORMAT));
	put(root, "generator", json_string("cgmap " CGMAP_VERSION));

	json_t *src = new_object();
	put(src, "kind", jstr(m->source.kind));
	put(src, "name", jstr(m->source.name));
	put(src, "server_version", jstr(m->source.server_version));
	put(src, "mapped_at", jstr(m->source.mapped_at));
	put(src, "default_search_path",
	    m->source.default_search_path && m->source.npath >= 0
		    ? string_array(m->source.default_search_path, m->source.npath)
		    : json_null());
	put(root, "source", src);

	json_t *opts = new_object();
	put(opts, "include_builtins", json_boolean(m->include_builtins));
	put(opts, "include_extensions", json_boolean(m->include_extensions));
	put(root, "options", opts);

	json_t *summary = new_object(); /* filled at the end, placed here */
	put(root, "summary", json_incref(summary));

	json_t *functions = new_array();
	json_t *dynamic_sites = new_array();
	json_t *missing = new_array();
	json_t *parse_errors = new_array();
	for (int i = 0; i < w->nfunctions; i++) {
		int fi = w->functions[i].index;
		const cgm_function *f = &m->functions[fi];
		append(functions, function_json(w, f));
		if (f->builtin)
			continue;
		sum.functions++;
		sum.analysed += f->analysed;
		int ndynamic = 0;
		for (int s = 0; s < f->nsites; s++)
			ndynamic += f->sites[s].kind == CGM_SITE_DYNAMIC;
		for (int s = 0; s < f->nsites; s++) {
			const cgm_site *site = &f->sites[s];
			if (site->resolution == CGM_RES_AMBIGUOUS)
				sum.ambiguous_sites++;
			if (site->kind == CGM_SITE_DYNAMIC) {
				json_t *d = new_object();
				put(d, "function", jstr(f->id));
				put(d, "line", json_integer(site->line));
				put(d, "text", jstr(site->text));
				put(d, "stmt", jstr(site->stmt));
				put(d, "observed_targets", observed_targets_json(w, fi, site, ndynamic));
				append(dynamic_sites, d);
				sum.dynamic_sites++;
			}
			if (site->resolution == CGM_RES_MISSING) {
				json_t *d = new_object();
				put(d, "function", jstr(f->id));
				put(d, "line", json_integer(site->line));
				if (site->schema) {
					cgm_strbuf name = CGM_STRBUF_INIT;
					cgm_strbuf_printf(&name, "%s.%s", site->schema,
							  site->name ? site->name : "");
					put(d, "name", jstr(cgm_strbuf_cstr(&name)));
					cgm_strbuf_free(&name);
				} else {
					put(d, "name", jstr(site->name));
				}
				put(d, "nargs", json_integer(site->nargs));
				append(missing, d);
				sum.missing++;
			}
		}
		for (int e = 0; e < f->nerrors; e++) {
			json_t *d = new_object();
			put(d, "function", jstr(f->id));
			put(d, "file", jstr(f->file));
			put(d, "line", json_integer(f->errors[e].line));
			put(d, "message", jstr(f->errors[e].message));
			append(parse_errors, d);
			sum.parse_errors++;
		}
	}
	put(root, "functions", functions);

	json_t *edges = new_array();
	for (int i = 0; i < w->nedges; i++) {
		const cgm_edge *e = &m->edges[w->edges[i].index];
		append(edges, edge_json(m, e));
		sum.edges++;
		sum.static_edges += (e->provenance & CGM_EDGE_STATIC) != 0;
		sum.observed_edges += (e->provenance & CGM_EDGE_OBSERVED) != 0;
	}
	put(root, "edges", edges);

	sort_rec *recs = xmalloc(sizeof(sort_rec) *
				 (size_t)(m->ntriggers + m->nreferences + m->ndiagnostics + 1));
	for (int i = 0; i < m->ntriggers; i++) {
		const cgm_trigger *t = &m->triggers[i];
		recs[i] = (sort_rec){ t->table_schema, t->table_name, t->name, i };
	}
	qsort(recs, (size_t)m->ntriggers, sizeof(sort_rec), compare_recs);
	json_t *triggers = new_array();
	for (int i = 0; i < m->ntriggers; i++) {
		const cgm_trigger *t = &m->triggers[recs[i].index];
		json_t *o = new_object();
		put(o, "schema", jstr(t->table_schema));
		put(o, "table", jstr(t->table_name));
		put(o, "name", jstr(t->name));
		put(o, "events", events_array(t->events));
		put(o, "function", jstr(trigger_function_id(m, t)));
		put(o, "enabled", json_boolean(t->enabled));
		append(triggers, o);
	}
	put(root, "triggers", triggers);

	for (int i = 0; i < m->nreferences; i++) {
		const cgm_reference *r = &m->references[i];
		recs[i] = (sort_rec){ reference_function_id(m, r), r->object_kind, r->object, i };
	}
	qsort(recs, (size_t)m->nreferences, sizeof(sort_rec), compare_recs);
	json_t *references = new_array();
	for (int i = 0; i < m->nreferences; i++) {
		const cgm_reference *r = &m->references[recs[i].index];
		json_t *o = new_object();
		put(o, "function", jstr(reference_function_id(m, r)));
		put(o, "kind", jstr(r->object_kind));
		put(o, "object", jstr(r->object));
		append(references, o);
	}
	put(root, "references", references);

	put(root, "dynamic_sites", dynamic_sites);
	put(root, "missing", missing);

	/* Diagnostics by file, line, message: line compared as text would put
	 * 10 before 9, so it is a zero-padded key. */
	char (*line_keys)[16] = xmalloc(sizeof(*line_keys) * (size_t)(m->ndiagnostics + 1));
	for (int i = 0; i < m->ndiagnostics; i++) {
		const cgm_diagnostic *d = &m->diagnostics[i];
		snprintf(line_keys[i], sizeof(line_keys[i]), "%011lld", (long long)d->line + 2147483648LL);
		recs[i] = (sort_rec){ d->file, line_keys[i], d->message, i };
	}
	qsort(recs, (size_t)m->ndiagnostics, sizeof(sort_rec), compare_recs);
	json_t *diagnostics = new_array();
	for (int i = 0; i < m->ndiagnostics; i++) {
		const cgm_diagnostic *d = &m->diagnostics[recs[i].index];
		append(parse_errors, diagnostic_entry(d, true));
		append(diagnostics, diagnostic_entry(d, false));
		sum.parse_errors++;
	}
	free(line_keys);
	free(recs);
	put(root, "parse_errors", parse_errors);
	put(root, "diagnostics", diagnostics);

	if (m->has_runtime) {
		json_t *rt = new_object();
		put(rt, "window", jstr(m->runtime_window));
		put(rt, "sources", string_array(m->runtime_sources, m->nruntime_sources));
		put(root, "runtime", rt);
	} else {
		put(root, "runtime", json_null());
	}

	put(summary, "functions", json_integer(sum.functions));
	put(summary, "analysed", json_integer(sum.analysed));
	put(summary, "not_analysed", json_integer(sum.functions - sum.analysed));
	put(summary, "edges", json_integer(sum.edges));
	put(summary, "static_edges", json_integer(sum.static_edges));
	put(summary, "observed_edges", json_integer(sum.observed_edges));
	put(summary, "dynamic_sites", json_integer(sum.dynamic_sites));
	put(summary, "missing", json_integer(sum.missing));
	put(summary, "parse_errors", json_integer(sum.parse_errors));
	put(summary, "ambiguous_sites", json_integer(sum.ambiguous_sites));
	json_decref(summary);
	return root;
}

/* The file named by path, or path/cgmap.json when path is a folder. */
static char *snapshot_file(const char *path)
{
	struct stat st;
	cgm_strbuf file = CGM_STRBUF_INIT;
	cgm_strbuf_puts(&file, path);
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (file.len == 0 || file.data[file.len - 1] != '/')
			cgm_strbuf_putc(&file, '/');
		cgm_strbuf_puts(&file, SNAPSHOT_NAME);
	}
	return file.data;
}

static int write_atomically(const char *file, const char *text, size_t len)
{
	size_t tmplen = strlen(file) + 16;
	char *tmp = xmalloc(tmplen);
	snprintf(tmp, tmplen, "%s.tmp.XXXXXX", file);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		int rc = cgm_error(CGM_EIO, "cannot write snapshot \"%s\": %s", file, strerror(errno));
		free(tmp);
		return rc;
	}
	const char *failed = NULL;
	int saved_errno = 0;
	if (fchmod(fd, 0644) != 0) {
		failed = "chmod", saved_errno = errno;
	}
	size_t done = 0;
	while (!failed && done < len) {
		ssize_t n = write(fd, text + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			failed = "write", saved_errno = errno;
			break;
		}
		done += (size_t)n;
	}
	if (!failed && fsync(fd) != 0)
		failed = "fsync", saved_errno = errno;
	if (close(fd) != 0 && !failed)
		failed = "close", saved_errno = errno;
	if (!failed && rename(tmp, file) != 0)
		failed = "rename", saved_errno = errno;
	if (failed) {
		unlink(tmp);
		free(tmp);
		return cgm_error(CGM_EIO, "cannot write snapshot \"%s\": %s: %s", file, failed,
				 strerror(saved_errno));
	}
	free(tmp);
	return 0;
}

int cgm_snapshot_write(const cgm_model *model, const char *path)
{
	writer w = { .model = model };
	int rc = writer_plan(&w);
	if (rc) {
		writer_free(&w);
		return rc;
	}
	json_t *doc = build_document(&w);
	writer_free(&w);
	char *text = json_dumps(doc, SNAPSHOT_DUMP_FLAGS);
	json_decref(doc);
	if (!text) {
		fprintf(stderr, "cgmap: out of memory writing the snapshot\n");
		abort();
	}
	char *file = snapshot_file(path);
	size_t len = strlen(text);
	text = realloc(text, len + 2);
	if (!text) {
		fprintf(stderr, "cgmap: out of memory writing the snapshot\n");
		abort();
	}
	text[len++] = '\n';
	text[len] = '\0';
	rc = write_atomically(file, text, len);
	free(text);
	free(file);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Reading                                                             */
/* ------------------------------------------------------------------ */

typedef struct {
	const char *file;
	cgm_model *model;
	cgm_strbuf path;  /* JSON path of the value being read, e.g. functions[3].sites[0] */
} reader;

/* Enter a key or an array element; leave by restoring the saved length. */
static size_t enter_key(reader *r, const char *key)
{
	size_t saved = r->path.len;
	if (r->path.len)
		cgm_strbuf_putc(&r->path, '.');
	cgm_strbuf_puts(&r->path, key);
	return saved;
}

static size_t enter_index(reader *r, size_t i)
{
	size_t saved = r->path.len;
	cgm_strbuf_printf(&r->path, "[%zu]", i);
	return saved;
}

static void leave(reader *r, size_t saved)
{
	r->path.len = saved;
	if (r->path.data)
		r->path.data[saved] = '\0';
}

/* The error for the value at the current path (plus key when not NULL). */
static int bad(reader *r, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(reader *r, const char *key, const char *fmt, ...)
{
	char what[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	const char *path = cgm_strbuf_cstr(&r->path);
	return cgm_error(CGM_EINPUT, "snapshot \"%s\": %s%s%s: %s", r->file, path,
			 key && *path ? "." : "", key ? key : (*path ? "" : "(top level)"), what);
}

static const char *type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
		return "an integer";
	case JSON_REAL:
		return "a real number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	case JSON_NULL:
		return "null";
	}
	return "something else";
}

#define TRY(expr)                    \
	do {                         \
		int rc_ = (expr);    \
		if (rc_ != 0)        \
			return rc_;  \
	} while (0)

enum { OPTIONAL = 0, REQUIRED = 1 };

/* A string (copied into the model's arena); absent or null gives NULL,
 * which is an error when required. */
static int get_string(reader *r, const json_t *obj, const char *key, int required,
		      const char **out)
{
	const json_t *v = json_object_get(obj, key);
	*out = NULL;
	if (!v || json_is_null(v)) {
		if (required)
			return bad(r, key, v ? "is null, expected a string" : "is missing");
		return 0;
	}
	if (!json_is_string(v))
		return bad(r, key, "is %s, expected a string", type_name(v));
	*out = cgm_arena_strdup(r->model->arena, json_string_value(v));
	return 0;
}

static int get_int(reader *r, const json_t *obj, const char *key, int required, int min,
		   int *out)
{
	const json_t *v = json_object_get(obj, key);
	if (!v) {
		if (required)
			return bad(r, key, "is missing");
		*out = min > 0 ? min : 0;
		return 0;
	}
	if (!json_is_integer(v))
		return bad(r, key, "is %s, expected an integer", type_name(v));
	json_int_t n = json_integer_value(v);
	if (n < min || n > INT32_MAX)
		return bad(r, key, "is %lld, out of range", (long long)n);
	*out = (int)n;
	return 0;
}

static int get_bool(reader *r, const json_t *obj, const char *key, bool *out)
{
	const json_t *v = json_object_get(obj, key);
	*out = false;
	if (!v)
		return 0;
	if (!json_is_boolean(v))
		return bad(r, key, "is %s, expected true or false", type_name(v));
	*out = json_is_true(v);
	return 0;
}

/* An array; absent gives NULL (an error when required), null gives NULL
 * when nullable. */
static int get_array(reader *r, const json_t *obj, const char *key, int required, bool nullable,
		     json_t **out)
{
	json_t *v = json_object_get(obj, key);
	*out = NULL;
	if (!v) {
		if (required)
			return bad(r, key, "is missing");
		return 0;
	}
	if (json_is_null(v) && nullable)
		return 0;
	if (!json_is_array(v))
		return bad(r, key, "is %s, expected an array", type_name(v));
	*out = v;
	return 0;
}

/* An array of strings (null entries allowed when entries_nullable).
 * *out stays NULL when the key is absent or null. */
static int get_string_array(reader *r, const json_t *obj, const char *key, bool nullable,
			    bool entries_nullable, const char ***out, int *count)
{
	json_t *arr;
	*out = NULL;
	*count = 0;
	TRY(get_array(r, obj, key, OPTIONAL, nullable, &arr));
	if (!arr)
		return 0;
	size_t n = json_array_size(arr);
	const char **items = cgm_arena_alloc(r->model->arena, sizeof(char *) * (n ? n : 1));
	for (size_t i = 0; i < n; i++) {
		const json_t *v = json_array_get(arr, i);
		if (json_is_string(v)) {
			items[i] = cgm_arena_strdup(r->model->arena, json_string_value(v));
		} else if (!(entries_nullable && json_is_null(v))) {
			size_t saved = enter_key(r, key);
			int rc = bad(r, NULL, "item %zu is %s, expected a string%s", i, type_name(v),
				     entries_nullable ? " or null" : "");
			leave(r, saved);
			return rc;
		}
	}
	*out = items;
	*count = (int)n;
	return 0;
}

static int get_events(reader *r, const json_t *obj, const char *key, unsigned *out)
{
	const char **names;
	int n;
	*out = 0;
	TRY(get_string_array(r, obj, key, false, false, &names, &n));
	for (int i = 0; i < n; i++) {
		int e = 0;
		while (e < NEVENTS && strcmp(names[i], event_names[e]) != 0)
			e++;
		if (e == NEVENTS)
			return bad(r, key, "unknown event \"%s\" (expected INSERT, UPDATE, DELETE "
					   "or TRUNCATE)",
				   names[i]);
		*out |= 1u << e;
	}
	return 0;
}

static int get_stats(reader *r, const json_t *obj, const char *key, cgm_runtime_stats *out)
{
	const json_t *v = json_object_get(obj, key);
	memset(out, 0, sizeof(*out));
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_object(v))
		return bad(r, key, "is %s, expected an object or null", type_name(v));
	size_t saved = enter_key(r, key);
	const json_t *calls = json_object_get(v, "calls");
	const json_t *total = json_object_get(v, "total_ms");
	const json_t *self = json_object_get(v, "self_ms");
	int rc = 0;
	if (calls && (!json_is_integer(calls) || json_integer_value(calls) < 0))
		rc = bad(r, "calls", "is %s, expected a count", type_name(calls));
	else if (total && !json_is_number(total))
		rc = bad(r, "total_ms", "is %s, expected a number", type_name(total));
	else if (self && !json_is_number(self))
		rc = bad(r, "self_ms", "is %s, expected a number", type_name(self));
	if (rc == 0) {
		out->calls = calls ? (int64_t)json_integer_value(calls) : 0;
		out->total_ms = total ? json_number_value(total) : 0.0;
		out->self_ms = self ? json_number_value(self) : 0.0;
	}
	leave(r, saved);
	return rc;
}

/* The element at i of arr, which must be an object. */
static int get_element_object(reader *r, const json_t *arr, size_t i, json_t **out)
{
	*out = json_array_get(arr, i);
	if (!json_is_object(*out))
		return bad(r, NULL, "is %s, expected an object", type_name(*out));
	return 0;
}

/* The function with that id, or an error at key. */
static int find_function(reader *r, const json_t *obj, const char *key, int *out)
{
	const char *id;
	TRY(get_string(r, obj, key, REQUIRED, &id));
	*out = cgm_model_find(r->model, id);
	if (*out < 0)
		return bad(r, key, "unknown function \"%s\"", id);
	return 0;
}

static int read_site(reader *r, const json_t *obj, cgm_site *site)
{
	const char *kind, *resolution;
	TRY(get_int(r, obj, "line", REQUIRED, 0, &site->line));
	TRY(get_string(r, obj, "kind", REQUIRED, &kind));
	if (cgm_site_kind_parse(&site->kind, kind) != 0)
		return bad(r, "kind", "unknown site kind \"%s\"", kind);
	TRY(get_bool(r, obj, "via_literal", &site->via_literal));
	TRY(get_string(r, obj, "stmt", OPTIONAL, &site->stmt));
	TRY(get_string(r, obj, "schema", OPTIONAL, &site->schema));
	TRY(get_string(r, obj, "name", OPTIONAL, &site->name));
	TRY(get_int(r, obj, "nargs", OPTIONAL, 0, &site->nargs));
	int n;
	TRY(get_string_array(r, obj, "argnames", true, true, &site->argnames, &n));
	if (site->argnames && n != site->nargs)
		return bad(r, "argnames", "has %d entries for %d arguments", n, site->nargs);
	TRY(get_string_array(r, obj, "argtypes", true, true, &site->argtypes, &n));
	if (site->argtypes && n != site->nargs)
		return bad(r, "argtypes", "has %d entries for %d arguments", n, site->nargs);
	TRY(get_bool(r, obj, "variadic", &site->variadic_call));
	TRY(get_events(r, obj, "events", &site->events));
	TRY(get_string(r, obj, "text", OPTIONAL, &site->text));
	TRY(get_string(r, obj, "resolution", REQUIRED, &resolution));
	if (cgm_resolution_parse(&site->resolution, resolution) != 0)
		return bad(r, "resolution", "unknown resolution \"%s\"", resolution);
	return 0; /* targets need every function: read_site_targets */
}

static int read_site_targets(reader *r, const json_t *obj, cgm_site *site)
{
	json_t *arr;
	TRY(get_array(r, obj, "targets", OPTIONAL, true, &arr));
	size_t n = arr ? json_array_size(arr) : 0;
	site->ntargets = (int)n;
	site->targets = cgm_arena_alloc(r->model->arena, sizeof(int) * (n ? n : 1));
	size_t saved = enter_key(r, "targets");
	for (size_t i = 0; i < n; i++) {
		const json_t *v = json_array_get(arr, i);
		int rc = 0;
		if (!json_is_string(v))
			rc = bad(r, NULL, "item %zu is %s, expected a function id", i, type_name(v));
		else if ((site->targets[i] = cgm_model_find(r->model, json_string_value(v))) < 0)
			rc = bad(r, NULL, "item %zu: unknown function \"%s\"", i, json_string_value(v));
		if (rc) {
			leave(r, saved);
			return rc;
		}
	}
	leave(r, saved);
	return 0;
}

/* Everything of one function but its sites' targets. */
static int read_function(reader *r, const json_t *obj, cgm_function *f)
{
	const char *kind;
	int n;
	TRY(get_string(r, obj, "id", REQUIRED, &f->id));
	TRY(get_string(r, obj, "schema", REQUIRED, &f->schema));
	TRY(get_string(r, obj, "name", REQUIRED, &f->name));
	TRY(get_string(r, obj, "identity_args", OPTIONAL, &f->identity_args));
	TRY(get_string(r, obj, "arguments", OPTIONAL, &f->arguments));
	TRY(get_string(r, obj, "result", OPTIONAL, &f->result));
	TRY(get_string(r, obj, "kind", REQUIRED, &kind));
	if (cgm_kind_parse(&f->kind, kind) != 0)
		return bad(r, "kind", "unknown function kind \"%s\"", kind);
	TRY(get_string(r, obj, "language", REQUIRED, &f->language));
	TRY(get_bool(r, obj, "analysed", &f->analysed));
	TRY(get_bool(r, obj, "trigger", &f->is_trigger));
	TRY(get_bool(r, obj, "extension", &f->from_extension));
	TRY(get_bool(r, obj, "builtin", &f->builtin));
	TRY(get_string(r, obj, "comment", OPTIONAL, &f->comment));
	TRY(get_string(r, obj, "file", OPTIONAL, &f->file));
	TRY(get_int(r, obj, "file_line", OPTIONAL, 0, &f->file_line));
	TRY(get_int(r, obj, "line_count", OPTIONAL, 0, &f->line_count));
	TRY(get_string(r, obj, "body_hash", OPTIONAL, &f->body_hash));
	TRY(get_int(r, obj, "nargs", OPTIONAL, 0, &f->nargs));
	TRY(get_string_array(r, obj, "argtypes", true, true, &f->argtypes, &n));
	if (f->argtypes && n != f->nargs)
		return bad(r, "argtypes", "has %d entries for %d arguments", n, f->nargs);
	TRY(get_string_array(r, obj, "argnames", true, true, &f->argnames, &n));
	if (f->argnames && n != f->nargs)
		return bad(r, "argnames", "has %d entries for %d arguments", n, f->nargs);
	TRY(get_int(r, obj, "ndefaults", OPTIONAL, 0, &f->ndefaults));
	if (f->ndefaults > f->nargs)
		return bad(r, "ndefaults", "is %d, more than the %d arguments", f->ndefaults, f->nargs);
	TRY(get_bool(r, obj, "variadic", &f->variadic));
	TRY(get_string(r, obj, "variadic_elem", OPTIONAL, &f->variadic_elem));
	TRY(get_string_array(r, obj, "search_path", true, false, &f->search_path, &f->npath));
	if (!f->search_path)
		f->npath = -1;
	TRY(get_bool(r, obj, "atomic_body", &f->atomic_body));
	TRY(get_string(r, obj, "source", OPTIONAL, &f->source));

	json_t *arr;
	TRY(get_array(r, obj, "sites", OPTIONAL, false, &arr));
	f->nsites = arr ? (int)json_array_size(arr) : 0;
	f->sites = cgm_arena_alloc(r->model->arena, sizeof(cgm_site) * (size_t)(f->nsites + 1));
	for (int s = 0; s < f->nsites; s++) {
		size_t saved = enter_key(r, "sites");
		enter_index(r, (size_t)s);
		json_t *site;
		int rc = get_element_object(r, arr, (size_t)s, &site);
		if (!rc)
			rc = read_site(r, site, &f->sites[s]);
		leave(r, saved);
		if (rc)
			return rc;
	}

	TRY(get_array(r, obj, "errors", OPTIONAL, false, &arr));
	f->nerrors = arr ? (int)json_array_size(arr) : 0;
	f->errors = cgm_arena_alloc(r->model->arena, sizeof(cgm_parse_error) * (size_t)(f->nerrors + 1));
	for (int e = 0; e < f->nerrors; e++) {
		size_t saved = enter_key(r, "errors");
		enter_index(r, (size_t)e);
		json_t *err;
		int rc = get_element_object(r, arr, (size_t)e, &err);
		if (!rc)
			rc = get_int(r, err, "line", OPTIONAL, 0, &f->errors[e].line);
		if (!rc)
			rc = get_string(r, err, "message", REQUIRED, &f->errors[e].message);
		leave(r, saved);
		if (rc)
			return rc;
	}

	TRY(get_stats(r, obj, "runtime", &f->runtime));

	f->scc = -1;
	const json_t *st = json_object_get(obj, "status");
	if (st && !json_is_null(st)) {
		if (!json_is_object(st))
			return bad(r, "status", "is %s, expected an object", type_name(st));
		size_t saved = enter_key(r, "status");
		int rc = get_bool(r, st, "observed_entry", &f->observed_entry);
		if (!rc)
			rc = get_bool(r, st, "referenced", &f->referenced);
		if (!rc)
			rc = get_bool(r, st, "root", &f->root);
		if (!rc)
			rc = get_bool(r, st, "reachable", &f->reachable);
		if (!rc)
			rc = get_bool(r, st, "dead", &f->dead);
		if (!rc)
			rc = get_bool(r, st, "cold", &f->cold);
		if (!rc && json_object_get(st, "scc"))
			rc = get_int(r, st, "scc", OPTIONAL, -1, &f->scc);
		leave(r, saved);
		if (rc)
			return rc;
	}
	return 0;
}

static int read_functions(reader *r, const json_t *doc)
{
	json_t *arr;
	TRY(get_array(r, doc, "functions", REQUIRED, false, &arr));
	size_t n = json_array_size(arr);
	for (size_t i = 0; i < n; i++) {
		size_t saved = enter_key(r, "functions");
		enter_index(r, i);
		json_t *obj;
		int rc = get_element_object(r, arr, i, &obj);
		if (!rc)
			rc = read_function(r, obj, cgm_model_add_function(r->model));
		leave(r, saved);
		if (rc)
			return rc;
	}

	/* Sorts the functions and builds the id lookup the rest needs. */
	cgm_model_index(r->model);

	bool *seen = xmalloc(sizeof(bool) * n);
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		const json_t *obj = json_array_get(arr, i);
		const char *id = json_string_value(json_object_get(obj, "id"));
		int idx = cgm_model_find(r->model, id);
		size_t saved = enter_key(r, "functions");
		enter_index(r, i);
		if (seen[idx]) {
			rc = bad(r, "id", "duplicate function id \"%s\"", id);
		} else {
			seen[idx] = true;
			cgm_function *f = &r->model->functions[idx];
			json_t *sites = json_object_get(obj, "sites");
			for (int s = 0; s < f->nsites && !rc; s++) {
				size_t in_sites = enter_key(r, "sites");
				enter_index(r, (size_t)s);
				rc = read_site_targets(r, json_array_get(sites, (size_t)s), &f->sites[s]);
				leave(r, in_sites);
			}
		}
		leave(r, saved);
	}
	free(seen);
	return rc;
}

static int read_edge(reader *r, const json_t *obj)
{
	cgm_edge e = { 0 };
	const char *via;
	bool is_static, observed;
	json_t *lines;
	TRY(find_function(r, obj, "from", &e.from));
	TRY(find_function(r, obj, "to", &e.to));
	TRY(get_string(r, obj, "via", REQUIRED, &via));
	if (cgm_via_parse(&e.via, via) != 0)
		return bad(r, "via", "unknown edge kind \"%s\"", via);
	TRY(get_bool(r, obj, "static", &is_static));
	TRY(get_bool(r, obj, "observed", &observed));
	if (!is_static && !observed)
		return bad(r, NULL, "edge is neither static nor observed");
	e.provenance = (is_static ? CGM_EDGE_STATIC : 0) | (observed ? CGM_EDGE_OBSERVED : 0);
	TRY(get_bool(r, obj, "ambiguous", &e.ambiguous));
	TRY(get_array(r, obj, "lines", OPTIONAL, false, &lines));
	e.nlines = lines ? (int)json_array_size(lines) : 0;
	e.lines = cgm_arena_alloc(r->model->arena, sizeof(int) * (size_t)(e.nlines + 1));
	for (int i = 0; i < e.nlines; i++) {
		const json_t *v = json_array_get(lines, (size_t)i);
		if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > INT32_MAX)
			return bad(r, "lines", "item %d is %s, expected a line number", i, type_name(v));
		e.lines[i] = (int)json_integer_value(v);
	}
	TRY(get_stats(r, obj, "runtime", &e.runtime));
	*cgm_model_add_edge(r->model) = e;
	return 0;
}

static int read_trigger(reader *r, const json_t *obj)
{
	cgm_trigger t = { 0 };
	TRY(get_string(r, obj, "schema", OPTIONAL, &t.table_schema));
	TRY(get_string(r, obj, "table", REQUIRED, &t.table_name));
	TRY(get_string(r, obj, "name", REQUIRED, &t.name));
	TRY(get_events(r, obj, "events", &t.events));
	/* A trigger may call a function outside the mapped schemas: kept by id. */
	TRY(get_string(r, obj, "function", OPTIONAL, &t.function_id));
	t.function = t.function_id ? cgm_model_find(r->model, t.function_id) : -1;
	TRY(get_bool(r, obj, "enabled", &t.enabled));
	*cgm_model_add_trigger(r->model) = t;
	return 0;
}

static int read_reference(reader *r, const json_t *obj)
{
	cgm_reference ref = { 0 };
	/* Like a trigger's, the function may lie outside the snapshot. */
	TRY(get_string(r, obj, "function", OPTIONAL, &ref.function_id));
	ref.function = ref.function_id ? cgm_model_find(r->model, ref.function_id) : -1;
	TRY(get_string(r, obj, "kind", REQUIRED, &ref.object_kind));
	TRY(get_string(r, obj, "object", REQUIRED, &ref.object));
	*cgm_model_add_reference(r->model) = ref;
	return 0;
}

static int read_diagnostic(reader *r, const json_t *obj)
{
	cgm_diagnostic d = { 0 };
	TRY(get_string(r, obj, "file", OPTIONAL, &d.file));
	TRY(get_int(r, obj, "line", OPTIONAL, 0, &d.line));
	TRY(get_string(r, obj, "message", REQUIRED, &d.message));
	*cgm_model_add_diagnostic(r->model) = d;
	return 0;
}

/* Each element of the array at key, an object, read by fn. */
static int read_list(reader *r, const json_t *doc, const char *key,
		     int (*fn)(reader *, const json_t *))
{
	json_t *arr;
	TRY(get_array(r, doc, key, OPTIONAL, false, &arr));
	size_t n = arr ? json_array_size(arr) : 0;
	for (size_t i = 0; i < n; i++) {
		size_t saved = enter_key(r, key);
		enter_index(r, i);
		json_t *obj;
		int rc = get_element_object(r, arr, i, &obj);
		if (!rc)
			rc = fn(r, obj);
		leave(r, saved);
		if (rc)
			return rc;
	}
	return 0;
}

static int read_object(reader *r, const json_t *doc, const char *key, bool nullable,
		       const json_t **out)
{
	*out = json_object_get(doc, key);
	if (!*out || (nullable && json_is_null(*out))) {
		*out = NULL;
		return 0;
	}
	if (!json_is_object(*out))
		return bad(r, key, "is %s, expected an object", type_name(*out));
	return 0;
}

static int read_header(reader *r, const json_t *doc)
{
	const char *format;
	int version;
	TRY(get_string(r, doc, "format", REQUIRED, &format));
	if (strcmp(format, SNAPSHOT_FORMAT_NAME) != 0)
		return bad(r, "format", "is \"%s\", not a cgmap snapshot (\"%s\")", format,
			   SNAPSHOT_FORMAT_NAME);
	TRY(get_int(r, doc, "format_version", REQUIRED, 1, &version));
	if (version > CGM_SNAPSHOT_FORMAT)
		return cgm_error(CGM_EINPUT,
				 "snapshot \"%s\" has format_version %d, but this cgmap reads "
				 "format_version %d at most; use a newer cgmap",
				 r->file, version, CGM_SNAPSHOT_FORMAT);

	cgm_model *m = r->model;
	const json_t *obj;
	TRY(read_object(r, doc, "source", false, &obj));
	if (obj) {
		size_t saved = enter_key(r, "source");
		int rc = get_string(r, obj, "kind", OPTIONAL, &m->source.kind);
		if (!rc)
			rc = get_string(r, obj, "name", OPTIONAL, &m->source.name);
		if (!rc)
			rc = get_string(r, obj, "server_version", OPTIONAL, &m->source.server_version);
		if (!rc)
			rc = get_string(r, obj, "mapped_at", OPTIONAL, &m->source.mapped_at);
		if (!rc)
			rc = get_string_array(r, obj, "default_search_path", true, false,
					      &m->source.default_search_path, &m->source.npath);
		leave(r, saved);
		if (rc)
			return rc;
		if (!m->source.default_search_path)
			m->source.npath = -1;
	}
	TRY(read_object(r, doc, "options", false, &obj));
	if (obj) {
		size_t saved = enter_key(r, "options");
		int rc = get_bool(r, obj, "include_builtins", &m->include_builtins);
		if (!rc)
			rc = get_bool(r, obj, "include_extensions", &m->include_extensions);
		leave(r, saved);
		if (rc)
			return rc;
	}
	TRY(read_object(r, doc, "runtime", true, &obj));
	if (obj) {
		m->has_runtime = true;
		size_t saved = enter_key(r, "runtime");
		int rc = get_string(r, obj, "window", OPTIONAL, &m->runtime_window);
		if (!rc)
			rc = get_string_array(r, obj, "sources", true, false, &m->runtime_sources,
					      &m->nruntime_sources);
		leave(r, saved);
		if (rc)
			return rc;
	}
	return 0;
}

static int read_document(reader *r, const json_t *doc)
{
	if (!json_is_object(doc))
		return bad(r, NULL, "is %s, expected an object", type_name(doc));
	TRY(read_header(r, doc));
	TRY(read_functions(r, doc));
	TRY(read_list(r, doc, "edges", read_edge));
	TRY(read_list(r, doc, "triggers", read_trigger));
	TRY(read_list(r, doc, "references", read_reference));
	TRY(read_list(r, doc, "diagnostics", read_diagnostic));
	/* summary, dynamic_sites, missing, parse_errors: derived, not read. */
	return 0;
}

int cgm_snapshot_read(cgm_model **out, const char *path)
{
	*out = NULL;
	char *file = snapshot_file(path);
	struct stat st;
	if (stat(file, &st) != 0) {
		int rc = cgm_error(CGM_EINPUT, "cannot read snapshot \"%s\": %s", file, strerror(errno));
		free(file);
		return rc;
	}
	json_error_t jerr;
	json_t *doc = json_load_file(file, JSON_REJECT_DUPLICATES, &jerr);
	if (!doc) {
		int rc;
		if (jerr.line > 0)
			rc = cgm_error(CGM_EINPUT, "snapshot \"%s\": line %d column %d: %s", file,
				       jerr.line, jerr.column, jerr.text);
		else
			rc = cgm_error(CGM_EINPUT, "cannot read snapshot \"%s\": %s", file, jerr.text);
		free(file);
		return rc;
	}
	reader r = { .file = file, .model = cgm_model_new(), .path = CGM_STRBUF_INIT };
	int rc = read_document(&r, doc);
	json_decref(doc);
	cgm_strbuf_free(&r.path);
	free(file);
	if (rc) {
		cgm_model_free(r.model);
		return rc;
	}
	if (!r.model->lookup) /* no functions at all: still indexed */
		cgm_model_index(r.model);
	*out = r.model;
	return 0;
}
