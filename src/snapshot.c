/*
 * snapshot.c - the JSON snapshot, cgmap.json (docs/snapshot.md), written
 * from a model and read back into a fresh one.
 *
 * Write: in, a complete indexed model (left untouched: every sorted order is
 * a sorted copy); out, the file, written to a temporary file in the same
 * folder then renamed over the target, so a crash never leaves half a
 * snapshot.  Byte-identical for the same model: keys in a fixed order,
 * arrays in the documented sorted orders, reals with a fixed precision.
 * Streamed: memory is the order arrays, the written ids escaped once, and
 * the output buffers (outfile.h: 1 MiB with its writing thread), freed
 * before returning, whatever the size of the model.
 * Layout: indented like jansson's JSON_INDENT(2) down to each function, the
 * many small records (sites, edges, ...) one per line (docs/snapshot.md).
 *
 * Read: in, the file or a folder holding cgmap.json; out, *out = a new
 * model the caller frees with cgm_model_free() (NULL on error).  Derived
 * lists (summary, dynamic_sites, missing, parse_errors) are not trusted:
 * they follow from the functions and edges.  Every malformed input is a
 * CGM_EINPUT error naming the file and the JSON path (or the line and
 * column when the JSON itself does not parse); nothing is half-read.
 * The functions and edges are read as they are parsed, through a window of
 * the text (textwin.h), each element's tree dropped once read
 * (read_streaming); on anything unusual the file is read again whole
 * (read_document), so errors are those of the whole read.
 * Bodies left in the file (CGM_SNAPSHOT_READ_SOURCES_LATER) are read again
 * by cgm_snapshot_read_sources, into the model's arena; its scratch is
 * freed before it returns.
 */
#include "cgmap/bodyver.h"
#include "cgmap/dynsql.h"
#include "cgmap/error.h"
#include "cgmap/hash.h"
#include "cgmap/infile.h"
#include "cgmap/intern.h"
#include "cgmap/pipeline.h"
#include "cgmap/runtime.h"
#include "cgmap/verdict.h"
#include "cgmap/strbuf.h"
#include "jsontok.h"
#include "outfile.h"
#include "textwin.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define SNAPSHOT_NAME "cgmap.json"
#define SNAPSHOT_GZIP_NAME "cgmap.json.gz"
#define SNAPSHOT_FORMAT_NAME "cgmap-snapshot"

/* ------------------------------------------------------------------ */
/* Writing                                                             */
/* ------------------------------------------------------------------ */

/* The snapshot is streamed straight to the file: no document tree is built,
 * so memory stays at the order arrays, the functions' ids written out once,
 * and one output buffer whatever the size of the model.
 *
 * Layout (docs/snapshot.md): the document, its objects and each function
 * are laid out as jansson's json_dumps() with JSON_INDENT(2) does (one
 * member per line, indented two spaces per depth), while each element of
 * the lists of small records (sites, errors, edges, triggers, references,
 * dynamic_sites, missing, parse_errors, diagnostics) stands on one line as
 * jansson prints it without indent: {"line": 7, "kind": "call", ...}.  The
 * scalars are jansson 2.14's with JSON_REAL_PRECISION(12): the escaping
 * and the number format below follow it, not cgm_escape_json (which also
 * escapes '<', '>', '&' for HTML). */

/* What put_string does with each byte: copy it (0), stop and escape it or
 * end at NUL (1), check a multi-byte sequence (2). */
static const unsigned char json_byte_class[256] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* '"' */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, /* '\\' */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
};

#define BYTES8(c) (0x0101010101010101ULL * (unsigned char)(c))

/* Whether any of 8 bytes is more than a copy: a control character, '"',
 * '\\' or a non-ASCII byte.  With every byte below 0x80 (else the last
 * term says so), a subtraction sets a byte's high bit only when that byte
 * is below what is subtracted, or a lower one was (itself a hit). */
static inline bool needs_care8(const unsigned char *p)
{
	uint64_t x;
	memcpy(&x, p, 8);
	uint64_t hits = (x - BYTES8(0x20)) | ((x ^ BYTES8('"')) - BYTES8(1)) |
			((x ^ BYTES8('\\')) - BYTES8(1)) | x;
	return (hits & BYTES8(0x80)) != 0;
}

/* The text of a JSON string, without quotes, as jansson dumps it: '"' and
 * '\\' escaped, control characters as \b \f \n \r \t or \u00XX (upper-case
 * hex), everything else (DEL, '/', non-ASCII) raw.  jansson only takes
 * valid UTF-8 and a catalog in SQL_ASCII may hold anything, so each bad
 * byte becomes U+FFFD (the same rule as cgmap/escape.h).  Clean text is
 * skipped 8 bytes at a time and copied in runs. */
static void put_string_text(cgm_outfile *o, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s), *run = p;
	for (;;) {
		while (end - p >= 8 && !needs_care8(p))
			p += 8;
		while (json_byte_class[*p] == 0)
			p++;
		unsigned char c = *p;
		if (c >= 0x80) {
			size_t n = jt_utf8_length(p);
			if (n) {
				p += n;
				continue;
			}
		}
		if (p > run)
			cgm_outfile_add(o, run, (size_t)(p - run));
		if (p == end)
			break;
		if (c >= 0x80) {
			cgm_outfile_lit(o, "\xEF\xBF\xBD");
		} else {
			char esc[6] = { '\\', 0, 0, 0, 0, 0 };
			size_t n = 2;
			switch (c) {
			case '"': esc[1] = '"'; break;
			case '\\': esc[1] = '\\'; break;
			case '\b': esc[1] = 'b'; break;
			case '\f': esc[1] = 'f'; break;
			case '\n': esc[1] = 'n'; break;
			case '\r': esc[1] = 'r'; break;
			case '\t': esc[1] = 't'; break;
			default:
				esc[1] = 'u', esc[2] = '0', esc[3] = '0';
				esc[4] = hex[c >> 4], esc[5] = hex[c & 15];
				n = 6;
			}
			cgm_outfile_add(o, esc, n);
		}
		run = ++p;
	}
}

/* A name from one of the model's fixed tables (cgm_site_kind_name, ...):
 * lower-case ASCII, so quoted as it is. */
static void put_name(cgm_outfile *o, const char *name)
{
	cgm_outfile_putc(o, '"');
	cgm_outfile_add(o, name, strlen(name));
	cgm_outfile_putc(o, '"');
}

/* A JSON string; NULL is null. */
static void put_string(cgm_outfile *o, const char *s)
{
	if (!s) {
		cgm_outfile_lit(o, "null");
		return;
	}
	cgm_outfile_putc(o, '"');
	put_string_text(o, s);
	cgm_outfile_putc(o, '"');
}

static void put_bool(cgm_outfile *o, bool value)
{
	if (value)
		cgm_outfile_lit(o, "true");
	else
		cgm_outfile_lit(o, "false");
}

/* jansson 2.14's real format: "%.12g", ".0" added when the text would read
 * back as an integer, and the exponent without '+' or leading zeros.
 * Only runtime times are reals, a few per function at most: printf does the
 * digits.  A time is written in the range the reader takes (0 to
 * CGM_STATS_MAX_MS, cgmap/runtime.h), which merging never leaves: JSON has
 * no NaN (never measured: 0) nor infinity, and a value near the largest
 * double would print rounded up beyond it and not read back.
 * format_real puts the text into buf[REAL_TEXT_SIZE] and returns its length. */
enum { REAL_TEXT_SIZE = 64 };
static size_t format_real(char *buf, double v)
{
	/* 12 significant digits: far below measurable time, and a value read
	 * back prints as the same text, so a round trip is byte-identical. */
	if (!(v > 0.0)) /* NaN, negative, -0.0 */
		v = 0.0;
	else if (v > CGM_STATS_MAX_MS)
		v = CGM_STATS_MAX_MS;
	int n = snprintf(buf, REAL_TEXT_SIZE - 3, "%.12g", v);
	if (n < 0 || (size_t)n >= REAL_TEXT_SIZE - 3) {
		fprintf(stderr, "cgmap: cannot print the number %g\n", v);
		abort();
	}
	size_t len = (size_t)n;
	char *e = strchr(buf, 'e');
	if (!e && !strchr(buf, '.')) {
		buf[len++] = '.';
		buf[len++] = '0';
		buf[len] = '\0';
	}
	if (e) {
		char *start = e + 1, *end = e + 2;
		if (*start == '-')
			start++;
		while (*end == '0')
			end++;
		if (end != start) {
			memmove(start, end, len - (size_t)(end - buf) + 1);
			len -= (size_t)(end - start);
		}
	}
	return len;
}

static void put_real(cgm_outfile *o, double v)
{
	char buf[REAL_TEXT_SIZE];
	size_t len = format_real(buf, v);
	cgm_outfile_add(o, buf, len);
}

/* A time as a reader of the snapshot gets it back. */
static double settled_ms(double v)
{
	char buf[REAL_TEXT_SIZE];
	format_real(buf, v);
	return strtod(buf, NULL);
}

static void settle_stats(cgm_runtime_stats *st)
{
	st->total_ms = settled_ms(st->total_ms);
	st->self_ms = settled_ms(st->self_ms);
}

void cgm_snapshot_settle_times(cgm_model *m)
{
	for (int i = 0; i < m->nfunctions; i++)
		settle_stats(&m->functions[i].runtime);
	for (int i = 0; i < m->nedges; i++)
		if (m->edges[i].rare)
			settle_stats(&m->edges[i].rare->runtime);
	for (int i = 0; i < m->npaths; i++) {
		cgm_call_path *p = &m->paths[i];
		settle_stats(&p->stats);
		p->min_ms = settled_ms(p->min_ms);
		p->max_ms = settled_ms(p->max_ms);
	}
	for (int i = 0; i < m->nbuckets; i++)
		m->buckets[i].self_ms = settled_ms(m->buckets[i].self_ms);
}

/* ---- one-line records ---- */

/* The separator between list items and record members: ", " in format 1,
 * "," in format 2 (docs/snapshot.md). */
static inline void put_sep(cgm_outfile *o, bool compact)
{
	if (compact)
		cgm_outfile_putc(o, ',');
	else
		cgm_outfile_lit(o, ", ");
}

/* [ "a", null, "b" ] on one line. */
static void put_flat_strings(cgm_outfile *o, const char *const *items, int n, bool compact)
{
	cgm_outfile_putc(o, '[');
	for (int i = 0; i < n; i++) {
		if (i)
			put_sep(o, compact);
		put_string(o, items ? items[i] : NULL);
	}
	cgm_outfile_putc(o, ']');
}

static void put_flat_events(cgm_outfile *o, unsigned events, bool compact)
{
	bool first = true;
	cgm_outfile_putc(o, '[');
	for (int i = 0; i < CGM_NEVENTS; i++)
		if (events & (1u << i)) {
			if (!first)
				put_sep(o, compact);
			first = false;
			cgm_outfile_putc(o, '"');
			cgm_outfile_add(o, cgm_event_names[i], strlen(cgm_event_names[i]));
			cgm_outfile_putc(o, '"');
		}
	cgm_outfile_putc(o, ']');
}

static void put_flat_stats(cgm_outfile *o, const cgm_runtime_stats *st, bool compact)
{
	if (compact)
		cgm_outfile_lit(o, "{\"calls\":");
	else
		cgm_outfile_lit(o, "{\"calls\": ");
	cgm_outfile_int(o, st->calls);
	if (compact)
		cgm_outfile_lit(o, ",\"total_ms\":");
	else
		cgm_outfile_lit(o, ", \"total_ms\": ");
	put_real(o, st->total_ms);
	if (compact)
		cgm_outfile_lit(o, ",\"self_ms\":");
	else
		cgm_outfile_lit(o, ", \"self_ms\": ");
	put_real(o, st->self_ms);
	cgm_outfile_putc(o, '}');
}

/* ---- one-line records, in either format ----
 *
 * A record is opened with rec_open, each member started with rec_key (the
 * separator, the quoted key and the colon, spaced as the format wants) and
 * the record closed with rec_close.  Format 2 leaves out a member whose
 * value is its documented default (the rec_opt_* helpers). */
typedef struct {
	cgm_outfile *o;
	bool compact; /* format 2 */
	bool first;
} rec;

static inline rec rec_open(cgm_outfile *o, bool compact)
{
	cgm_outfile_putc(o, '{');
	return (rec){ o, compact, true };
}

static inline void rec_close(rec *r)
{
	cgm_outfile_putc(r->o, '}');
}

static inline void rec_key_text(rec *r, const char *spaced, size_t len)
{
	if (!r->first)
		put_sep(r->o, r->compact);
	r->first = false;
	/* spaced is "\"name\": ": format 2 drops the trailing space. */
	cgm_outfile_add(r->o, spaced, r->compact ? len - 1 : len);
}

#define rec_key(r, name) rec_key_text((r), "\"" name "\": ", sizeof("\"" name "\": ") - 1)

static inline void rec_string(rec *r, const char *spaced, size_t len, const char *value)
{
	rec_key_text(r, spaced, len);
	put_string(r->o, value);
}

static inline void rec_int(rec *r, const char *spaced, size_t len, long long value)
{
	rec_key_text(r, spaced, len);
	cgm_outfile_int(r->o, value);
}

static inline void rec_bool(rec *r, const char *spaced, size_t len, bool value)
{
	rec_key_text(r, spaced, len);
	put_bool(r->o, value);
}

#define KEYTEXT(name) "\"" name "\": ", sizeof("\"" name "\": ") - 1
#define rec_put_string(r, name, v) rec_string((r), KEYTEXT(name), (v))
#define rec_put_int(r, name, v) rec_int((r), KEYTEXT(name), (v))
#define rec_put_bool(r, name, v) rec_bool((r), KEYTEXT(name), (v))
/* Written in format 1 always, in format 2 only when not the default. */
#define rec_opt_string(r, name, v)                      \
	do {                                            \
		const char *v_ = (v);                   \
		if (!(r)->compact || v_)                \
			rec_put_string((r), name, v_);  \
	} while (0)
#define rec_opt_int(r, name, v)                         \
	do {                                            \
		long long v_ = (v);                     \
		if (!(r)->compact || v_ != 0)           \
			rec_put_int((r), name, v_);     \
	} while (0)
#define rec_opt_bool(r, name, v)                        \
	do {                                            \
		bool v_ = (v);                          \
		if (!(r)->compact || v_)                \
			rec_put_bool((r), name, v_);    \
	} while (0)

/* ---- the indented layout of the document and the functions ---- */

#define JSON_MAX_DEPTH 16

typedef struct {
	cgm_outfile *out;
	int depth;
	bool compact; /* format 2: no indent, a line per top-level member and
		       * per element of a top-level list, nothing deeper */
	bool empty[JSON_MAX_DEPTH]; /* per open container: nothing written yet */
} json_out;

/* Format 2 breaks lines only down to the elements of the top-level lists
 * (depth 2): a function, an edge, a trigger stands whole on its line. */
#define COMPACT_LINE_DEPTH 2

static inline void newline_indent(json_out *j, int depth)
{
	static const char spaces[] = "\n                                ";
	if (j->compact)
		cgm_outfile_putc(j->out, '\n');
	else
		cgm_outfile_add(j->out, spaces, 1 + (size_t)depth * 2);
}

/* Before a member or element of the innermost container. */
static inline void next_item(json_out *j)
{
	if (!j->empty[j->depth])
		cgm_outfile_putc(j->out, ',');
	j->empty[j->depth] = false;
	if (!j->compact || j->depth <= COMPACT_LINE_DEPTH)
		newline_indent(j, j->depth);
}

/* Keys are fixed ASCII names, given as literals: the whole "name": text is
 * made at compile time (format 2 drops the space). */
#define key(j, name)                                                                  \
	(next_item(j), cgm_outfile_add((j)->out, "\"" name "\": ",                        \
				       sizeof("\"" name "\": ") - ((j)->compact ? 2 : 1)))

static void open_container(json_out *j, char bracket)
{
	cgm_outfile_putc(j->out, bracket);
	j->depth++;
	j->empty[j->depth] = true;
}

static void close_container(json_out *j, char bracket)
{
	if (!j->empty[j->depth] && (!j->compact || j->depth <= COMPACT_LINE_DEPTH))
		newline_indent(j, j->depth - 1);
	j->depth--;
	cgm_outfile_putc(j->out, bracket);
}

#define key_string(j, name, value) (key(j, name), put_string((j)->out, (value)))
#define key_int(j, name, value) (key(j, name), cgm_outfile_int((j)->out, (value)))
#define key_bool(j, name, value) (key(j, name), put_bool((j)->out, (value)))
#define key_null(j, name) (key(j, name), cgm_outfile_lit((j)->out, "null"))

static void put_string_array(json_out *j, const char *const *items, int n)
{
	open_container(j, '[');
	for (int i = 0; i < n; i++) {
		next_item(j);
		put_string(j->out, items ? items[i] : NULL);
	}
	close_container(j, ']');
}

#define key_string_array(j, name, items, n) (key(j, name), put_string_array((j), (items), (n)))

static void put_stats(json_out *j, const cgm_runtime_stats *st)
{
	open_container(j, '{');
	key_int(j, "calls", st->calls);
	key(j, "total_ms");
	put_real(j->out, st->total_ms);
	key(j, "self_ms");
	put_real(j->out, st->self_ms);
	close_container(j, '}');
}

static bool stats_nonzero(const cgm_runtime_stats *st)
{
	return st->calls != 0 || st->total_ms != 0.0 || st->self_ms != 0.0;
}

static int compare_strings_nullable(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
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
	int *rank;            /* per function index: rank of its id (outfile.h) */
	int *order;           /* written function indexes by id */
	int norder;
	int *position;        /* per written function index: its place in order */
	const int *edges;     /* edge indexes by from, to, via */
	int *own_edges;       /* edges when this writer made them (outfile.h) */
	int nedges;
	int *first_edge;      /* per place in order: its first edge in edges (norder + 1) */
	char *id_text;        /* the written ids as JSON strings, quotes included */
	size_t *id_at;        /* per written function index: where its text starts */
	size_t *id_len;
	int *ndynamic;        /* per place in order: dynamic sites (count_summary) */
	int *nmissing;        /* per place in order: sites with a missing callee */
	bool compact;         /* format 2: compact, defaults left out, functions
			       * referred to by their place in "functions" */
} writer;

static bool valid_function(const cgm_model *m, int idx)
{
	return idx >= 0 && idx < m->nfunctions;
}

/* A written function's id as a JSON string, escaped once in writer_plan:
 * ids are written again for every edge and every site target. */
#define NO_ID_TEXT SIZE_MAX

static inline void put_id(cgm_outfile *o, const writer *w, int fi)
{
	if (w->id_at[fi] == NO_ID_TEXT)
		put_string(o, w->model->functions[fi].id);
	else
		cgm_outfile_add(o, w->id_text + w->id_at[fi], w->id_len[fi]);
}

/* A reference to a written function: its id (format 1), or its place in
 * the "functions" list (format 2), a number read back through that list. */
static inline void put_ref(cgm_outfile *o, const writer *w, int fi)
{
	if (w->compact)
		cgm_outfile_int(o, w->position[fi]);
	else
		put_id(o, w, fi);
}

/* Which functions go in (user ones, and builtins an edge points at) and in
 * which order; every index is checked here once. */
static int writer_plan(writer *w)
{
	const cgm_model *m = w->model;
	int n = m->nfunctions;
	w->written = cgm_xcalloc((size_t)n, sizeof(bool));
	for (int i = 0; i < n; i++)
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
	for (int i = 0; i < n; i++) {
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

	w->rank = cgm_xcalloc((size_t)n, sizeof(int));
	cgm_model_id_ranks(w->rank, m);
	/* Ranks are places in id order: a counting pass lists the written
	 * functions by id, equal ids in model order. */
	int *by_rank = cgm_xcalloc((size_t)n + 1, sizeof(int));
	for (int i = 0; i < n; i++)
		by_rank[w->rank[i] + 1]++;
	for (int r = 0; r < n; r++)
		by_rank[r + 1] += by_rank[r];
	int *sorted = cgm_xcalloc((size_t)n, sizeof(int));
	for (int i = 0; i < n; i++)
		sorted[by_rank[w->rank[i]]++] = i;
	free(by_rank);
	w->order = cgm_xcalloc((size_t)n, sizeof(int));
	w->position = cgm_xcalloc((size_t)n, sizeof(int));
	for (int k = 0; k < n; k++)
		if (w->written[sorted[k]]) {
			w->position[sorted[k]] = w->norder;
			w->order[w->norder++] = sorted[k];
		}
	free(sorted);

	w->edges = cgm_output_edge_order_get(m, w->rank, &w->own_edges);
	w->nedges = m->nedges;

	/* Edges come by from id: those of each function are one run. */
	w->first_edge = cgm_xcalloc((size_t)w->norder + 1, sizeof(int));
	for (int p = 0, i = 0; p <= w->norder; p++) {
		while (i < w->nedges &&
		       (p == w->norder || w->rank[m->edges[w->edges[i]].from] < w->rank[w->order[p]]))
			i++;
		w->first_edge[p] = i;
	}

	/* Every written id as JSON text, in one block: each is escaped into a
	 * scratch outfile that is never flushed (an id too long to be sure of
	 * fitting is escaped where it is written instead), then appended.
	 * Format 2 refers to functions by their place and writes each id once:
	 * no block (5.6 MB at 100,000 functions, at the map's memory peak). */
	if (w->compact)
		return 0;
	w->id_at = cgm_xcalloc((size_t)n, sizeof(size_t));
	w->id_len = cgm_xcalloc((size_t)n, sizeof(size_t));
	cgm_strbuf ids = CGM_STRBUF_INIT;
	cgm_outfile scratch = { .buf = cgm_xcalloc(CGM_OUTFILE_BUFFER, 1), .fd = -1 };
	for (int k = 0; k < w->norder; k++) {
		int fi = w->order[k];
		const char *id = m->functions[fi].id;
		w->id_at[fi] = NO_ID_TEXT;
		if (strlen(id) > (CGM_OUTFILE_BUFFER - 2) / 6) /* a byte grows to 6 at most */
			continue;
		scratch.len = 0;
		put_string(&scratch, id);
		w->id_at[fi] = ids.len;
		w->id_len[fi] = scratch.len;
		cgm_strbuf_add(&ids, scratch.buf, scratch.len);
	}
	free(scratch.buf);
	/* Kept to the end of the file: without the room doubling left. */
	w->id_text = ids.data ? cgm_xrealloc(ids.data, ids.len + 1) : NULL;
	return 0;
}

static void writer_free(writer *w)
{
	free(w->written);
	free(w->rank);
	free(w->order);
	free(w->position);
	free(w->own_edges);
	free(w->first_edge);
	free(w->id_text);
	free(w->id_at);
	free(w->id_len);
	free(w->ndynamic);
	free(w->nmissing);
}

static int compare_ints(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* Sorted copy of a short int list: insertion sort in the caller's buffer
 * when it fits (most lists hold one or two lines), else a heap copy. */
static int *sorted_ints(int *stack, int nstack, const int *items, int n)
{
	int *copy = n <= nstack ? stack : cgm_xcalloc((size_t)n, sizeof(int));
	if (n)
		memcpy(copy, items, sizeof(int) * (size_t)n);
	if (n > nstack) {
		qsort(copy, (size_t)n, sizeof(int), compare_ints);
		return copy;
	}
	for (int i = 1; i < n; i++)
		for (int k = i; k > 0 && copy[k - 1] > copy[k]; k--) {
			int tmp = copy[k];
			copy[k] = copy[k - 1];
			copy[k - 1] = tmp;
		}
	return copy;
}

/* Site targets sort by id: by rank, keeping the target's index beside it. */
typedef struct {
	int rank, target;
} target_rec;

static int compare_target_recs(const void *a, const void *b)
{
	const target_rec *x = a, *y = b;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Only targets that are part of the snapshot (a builtin without an edge is
 * not), by id without repeats, so a snapshot read back writes the same.
 * Equal ranks are equal ids. */
static void put_site_targets(cgm_outfile *o, const writer *w, const cgm_site *site)
{
	target_rec stack[8];
	target_rec *targets = site->ntargets <= 8 ? stack
						  : cgm_xcalloc((size_t)site->ntargets, sizeof(target_rec));
	int n = 0;
	for (int t = 0; t < site->ntargets; t++)
		if (w->written[site->targets[t]])
			targets[n++] = (target_rec){ w->rank[site->targets[t]], site->targets[t] };
	if (n > 1)
		qsort(targets, (size_t)n, sizeof(target_rec), compare_target_recs);
	cgm_outfile_putc(o, '[');
	for (int t = 0; t < n; t++)
		if (t == 0 || targets[t].rank != targets[t - 1].rank) {
			if (t)
				put_sep(o, w->compact);
			put_ref(o, w, targets[t].target);
		}
	cgm_outfile_putc(o, ']');
	if (targets != stack)
		free(targets);
}

static bool site_has_written_target(const writer *w, const cgm_site *site)
{
	for (int t = 0; t < site->ntargets; t++)
		if (w->written[site->targets[t]])
			return true;
	return false;
}

/* Targets that carry their own mechanism (relation, operator, cast and
 * aggregate sites): every (target, via, object) in target order, so that
 * "targets" stays the plain id list older readers know. */
static void put_site_effects(cgm_outfile *o, const writer *w, const cgm_site *site)
{
	cgm_outfile_putc(o, '[');
	bool first = true;
	for (int t = 0; t < site->ntargets; t++) {
		if (!w->written[site->targets[t]])
			continue;
		if (!first)
			put_sep(o, w->compact);
		first = false;
		rec r = rec_open(o, w->compact);
		rec_key(&r, "to");
		put_ref(o, w, site->targets[t]);
		rec_key(&r, "via");
		put_name(o, cgm_via_name(cgm_site_target_via(site, t)));
		rec_opt_string(&r, "object", cgm_site_target_object(site, t));
		rec_close(&r);
	}
	cgm_outfile_putc(o, ']');
}

/* Whether every one of n names is null (a site's positional arguments). */
static bool all_null(const char *const *items, int n)
{
	for (int i = 0; items && i < n; i++)
		if (items[i])
			return false;
	return true;
}

static void put_site(cgm_outfile *o, const writer *w, const cgm_site *site)
{
	bool v2 = w->compact;
	const cgm_site_rare *x = cgm_site_get_rare(site);
	rec r = rec_open(o, v2);
	rec_put_int(&r, "line", site->line);
	/* Format 2: "call" and "resolved", the most common, are the defaults. */
	if (!v2 || site->kind != CGM_SITE_CALL) {
		rec_key(&r, "kind");
		put_name(o, cgm_site_kind_name(site->kind));
	}
	rec_opt_bool(&r, "via_literal", site->via_literal);
	if (site->handles_missing)
		rec_opt_bool(&r, "handles_missing", true);
	/* Said of a missing callee only: why its absence is expected. */
	if (site->resolution == CGM_RES_MISSING && x->requires_extension)
		rec_opt_string(&r, "requires_extension", x->requires_extension);
	rec_opt_string(&r, "stmt", site->stmt);
	rec_opt_string(&r, "schema", site->schema);
	rec_opt_string(&r, "name", site->name);
	rec_opt_int(&r, "nargs", site->nargs);
	if (!v2 || !all_null(x->argnames, site->nargs)) {
		rec_key(&r, "argnames");
		put_flat_strings(o, x->argnames, site->nargs, v2);
	}
	if (!v2 || !all_null(site->argtypes, site->nargs)) {
		rec_key(&r, "argtypes");
		put_flat_strings(o, site->argtypes, site->nargs, v2);
	}
	rec_opt_bool(&r, "variadic", site->variadic_call);
	if (!v2 || x->events) {
		rec_key(&r, "events");
		put_flat_events(o, x->events, v2);
	}
	if (x->ncolumns) {
		rec_key(&r, "columns");
		put_flat_strings(o, x->columns, x->ncolumns, v2);
	}
	/* A read's columns, when known (absent: all or unknown). */
	if (x->reads) {
		rec_key(&r, "reads");
		put_flat_strings(o, x->reads, x->nreads, v2);
	}
	rec_opt_string(&r, "text", x->text);
	if (x->runs > 0) /* cgmap_trace 1.4: only on dynamic sites that ran */
		rec_put_int(&r, "runs", x->runs);
	if (!v2 || site->resolution != CGM_RES_RESOLVED) {
		rec_key(&r, "resolution");
		put_name(o, cgm_resolution_name(site->resolution));
	}
	/* With effects, format 2 leaves out "targets": the same functions,
	 * which readers take from the effects anyway. */
	if (!(v2 && x->target_via) && (!v2 || site_has_written_target(w, site))) {
		rec_key(&r, "targets");
		put_site_targets(o, w, site);
	}
	if (x->target_via) {
		rec_key(&r, "effects");
		put_site_effects(o, w, site);
	}
	rec_close(&r);
}

/* Written in format 1 always, in format 2 only when not the default. */
#define key_opt_string(j, name, value)                           \
	do {                                                     \
		const char *v_ = (value);                        \
		if (!(j)->compact || v_)                         \
			key_string((j), name, v_);               \
	} while (0)
#define key_opt_int(j, name, value)                              \
	do {                                                     \
		long long v_ = (value);                          \
		if (!(j)->compact || v_ != 0)                    \
			key_int((j), name, v_);                  \
	} while (0)
#define key_opt_bool(j, name, value)                             \
	do {                                                     \
		bool v_ = (value);                               \
		if (!(j)->compact || v_)                         \
			key_bool((j), name, v_);                 \
	} while (0)

static bool status_is_default(const cgm_function *f)
{
	return !f->observed_entry && !f->referenced && !f->root && !f->reachable && !f->dead &&
	       !f->cold && f->verdict == CGM_VERDICT_NONE && !f->confidence && !f->kept &&
	       f->scc == -1;
}

static void write_function(json_out *j, const writer *w, const cgm_function *f)
{
	const cgm_model *m = w->model;
	bool v2 = j->compact;
	open_container(j, '{');
	key_string(j, "id", f->id);
	key_string(j, "schema", f->schema);
	key_string(j, "name", f->name);
	key_opt_string(j, "identity_args", f->identity_args);
	key_opt_string(j, "arguments", f->arguments);
	key_opt_string(j, "result", f->result);
	key_string(j, "kind", cgm_kind_name(f->kind));
	key_string(j, "language", f->language);
	key_opt_bool(j, "analysed", f->analysed);
	key_opt_bool(j, "trigger", f->is_trigger);
	key_opt_bool(j, "extension", f->from_extension);
	key_opt_bool(j, "builtin", f->builtin);
	key_opt_string(j, "comment", f->comment);
	key_opt_string(j, "file", f->file);
	key_opt_int(j, "file_line", f->file_line);
	key_opt_int(j, "line_count", f->line_count);
	key_opt_string(j, "body_hash", f->body_hash);
	key_opt_string(j, "body_version", f->body_version);
	key_opt_int(j, "nargs", f->nargs);
	if (!v2 || f->nargs)
		key_string_array(j, "argtypes", f->argtypes, f->nargs);
	if (f->argnames)
		key_string_array(j, "argnames", f->argnames, f->nargs);
	else if (!v2)
		key_null(j, "argnames");
	key_opt_int(j, "ndefaults", f->ndefaults);
	key_opt_bool(j, "variadic", f->variadic);
	key_opt_string(j, "variadic_elem", f->variadic_elem);
	if (f->search_path && f->npath >= 0)
		key_string_array(j, "search_path", f->search_path, f->npath);
	else if (!v2)
		key_null(j, "search_path");
	/* Newer than format 1's members: written when known, in both. */
	if (f->owner)
		key_string(j, "owner", f->owner);
	if (f->owner_path)
		key_string_array(j, "owner_search_path", f->owner_path, f->nowner_path);
	key_opt_bool(j, "atomic_body", f->atomic_body);
	if (f->other_version_lines) {
		/* [[first, last], ...]: the lines whose calls are left out */
		key(j, "other_version_branches");
		open_container(j, '[');
		for (int k = 0; k < f->other_version_lines[0]; k++) {
			next_item(j);
			cgm_outfile_putc(j->out, '[');
			cgm_outfile_int(j->out, f->other_version_lines[1 + 2 * k]);
			put_sep(j->out, v2);
			cgm_outfile_int(j->out, f->other_version_lines[2 + 2 * k]);
			cgm_outfile_putc(j->out, ']');
		}
		close_container(j, ']');
	}
	key_opt_string(j, "source", f->source);

	if (!v2 || f->nsites) {
		key(j, "sites");
		open_container(j, '[');
		for (int s = 0; s < f->nsites; s++) {
			next_item(j);
			put_site(j->out, w, &f->sites[s]);
		}
		close_container(j, ']');
	}

	if (!v2 || f->nerrors) {
		key(j, "errors");
		open_container(j, '[');
		for (int e = 0; e < f->nerrors; e++) {
			next_item(j);
			rec r = rec_open(j->out, v2);
			rec_put_int(&r, "line", f->errors[e].line);
			rec_put_string(&r, "message", f->errors[e].message);
			rec_close(&r);
		}
		close_container(j, ']');
	}

	/* With runtime data every function has figures, zero meaning "never
	 * seen"; without, null meaning "not measured". */
	if (m->has_runtime || stats_nonzero(&f->runtime)) {
		key(j, "runtime");
		put_stats(j, &f->runtime);
	} else if (!v2) {
		key_null(j, "runtime");
	}

	if (!v2 || !status_is_default(f)) {
		key(j, "status");
		open_container(j, '{');
		key_opt_bool(j, "observed_entry", f->observed_entry);
		key_opt_bool(j, "referenced", f->referenced);
		key_opt_bool(j, "root", f->root);
		key_opt_bool(j, "reachable", f->reachable);
		key_opt_bool(j, "dead", f->dead);
		key_opt_bool(j, "cold", f->cold);
		if (f->verdict != CGM_VERDICT_NONE)
			key_string(j, "verdict", cgm_verdict_name(f->verdict));
		else if (!v2)
			key_null(j, "verdict");
		key_opt_string(j, "confidence", f->confidence);
		if (f->kept)
			key_string(j, "kept", f->kept);
		/* -1 (in no recursive component) is the default. */
		if (!v2 || f->scc != -1)
			key_int(j, "scc", f->scc);
		close_container(j, '}');
	}
	close_container(j, '}');
}

static void put_edge(cgm_outfile *o, const writer *w, const cgm_edge *e)
{
	bool v2 = w->compact;
	rec r = rec_open(o, v2);
	rec_key(&r, "from");
	put_ref(o, w, e->from);
	rec_key(&r, "to");
	put_ref(o, w, e->to);
	if (!v2 || e->via != CGM_VIA_CALL) {
		rec_key(&r, "via");
		put_name(o, cgm_via_name(e->via));
	}
	if (e->object)
		rec_put_string(&r, "object", e->object);
	rec_opt_bool(&r, "static", e->provenance & CGM_EDGE_STATIC);
	rec_opt_bool(&r, "observed", e->provenance & CGM_EDGE_OBSERVED);
	rec_opt_bool(&r, "ambiguous", e->ambiguous);
	const cgm_edge_rare *x = cgm_edge_get_rare(e);
	if (e->provenance & CGM_EDGE_DECLARED)
		rec_put_string(&r, "declared", x->declared ? x->declared : "");
	if (x->earlier_body)
		rec_put_bool(&r, "earlier_body", true);
	if (x->ncaller_bodies > 0) {
		rec_key(&r, "caller_bodies");
		put_flat_strings(o, (const char *const *)x->caller_bodies, x->ncaller_bodies, v2);
	}
	if (cgm_edge_unexplained(e)) /* derived (src/verdict.c), not read back */
		rec_put_string(&r, "cause", cgm_edge_cause(w->model, e));
	if (!v2 || e->nlines) {
		int stack[16];
		int *lines = sorted_ints(stack, 16, e->lines, e->nlines);
		rec_key(&r, "lines");
		cgm_outfile_putc(o, '[');
		for (int i = 0; i < e->nlines; i++) {
			if (i)
				put_sep(o, v2);
			cgm_outfile_int(o, lines[i]);
		}
		cgm_outfile_putc(o, ']');
		if (lines != stack)
			free(lines);
	}
	if ((e->provenance & CGM_EDGE_OBSERVED) || stats_nonzero(&x->runtime)) {
		rec_key(&r, "runtime");
		put_flat_stats(o, &x->runtime, v2);
	} else if (!v2) {
		rec_put_string(&r, "runtime", NULL);
	}
	rec_close(&r);
}

static bool edge_has_line(const cgm_edge *e, int line)
{
	for (int i = 0; i < e->nlines; i++)
		if (e->lines[i] == line)
			return true;
	return false;
}

/* The observed "dynamic" edges of function fi, in edge order (by to id):
 * collected once per function, then matched against each dynamic site. */
static int observed_dynamic_edges(const writer *w, int fi, int **out)
{
	const cgm_model *m = w->model;
	int at = w->position[fi];
	int n = 0;
	*out = NULL;
	for (int i = w->first_edge[at]; i < w->first_edge[at + 1]; i++) {
		const cgm_edge *e = &m->edges[w->edges[i]];
		if (e->from != fi || e->via != CGM_VIA_DYNAMIC || !(e->provenance & CGM_EDGE_OBSERVED))
			continue;
		if (!*out)
			*out = cgm_xcalloc((size_t)(w->first_edge[at + 1] - i), sizeof(int));
		(*out)[n++] = w->edges[i];
	}
	return n;
}

/* Ids of the functions observed to be called from this dynamic site: the
 * observed "dynamic" edges of the function at the site's line, or at no
 * known line when the function has only this one dynamic site. */
static void put_observed_targets(cgm_outfile *o, const writer *w, const int *dyn_edges,
				 int ndyn_edges, const cgm_site *site, int ndynamic_sites)
{
	const cgm_model *m = w->model;
	int last = -1;
	cgm_outfile_putc(o, '[');
	for (int i = 0; i < ndyn_edges; i++) {
		const cgm_edge *e = &m->edges[dyn_edges[i]];
		if (!edge_has_line(e, site->line) && !(e->nlines == 0 && ndynamic_sites == 1))
			continue;
		if (last >= 0 && w->rank[last] == w->rank[e->to])
			continue;
		if (last >= 0)
			put_sep(o, w->compact);
		put_ref(o, w, e->to);
		last = e->to;
	}
	cgm_outfile_putc(o, ']');
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

/* ---- relations and what they run ------------------------------------ */

static const char *relkind_name(char relkind)
{
	switch (relkind) {
	case 'r':
		return "table";
	case 'p':
		return "partitioned table";
	case 'v':
		return "view";
	case 'm':
		return "materialized view";
	case 'f':
		return "foreign table";
	case 'c':
		return "composite type";
	default:
		return NULL;
	}
}

static char relkind_parse(const char *name)
{
	static const char kinds[] = "rpvmfc";
	for (int i = 0; kinds[i]; i++)
		if (name && strcmp(relkind_name(kinds[i]), name) == 0)
			return kinds[i];
	return 0;
}

static const char *const reach_names[] = { "function", "view", "partition", "cascade", "rule" };

static const char *effect_function_id(const cgm_model *m, const cgm_effect *e)
{
	return valid_function(m, e->function) ? m->functions[e->function].id : e->function_id;
}

static int compare_effect_index(const void *a, const void *b, void *ctx)
{
	const cgm_model *m = ctx;
	const cgm_effect *x = &m->effects[*(const int *)a], *y = &m->effects[*(const int *)b];
	int c = compare_strings_nullable(x->schema, y->schema);
	if (!c)
		c = compare_strings_nullable(x->relation, y->relation);
	if (!c)
		c = (int)x->reach - (int)y->reach;
	if (!c)
		c = compare_strings_nullable(cgm_via_name(x->via), cgm_via_name(y->via));
	if (!c)
		c = compare_strings_nullable(x->object, y->object);
	if (!c)
		c = compare_strings_nullable(effect_function_id(m, x), effect_function_id(m, y));
	if (!c)
		c = compare_strings_nullable(x->target_schema, y->target_schema);
	if (!c)
		c = compare_strings_nullable(x->target_relation, y->target_relation);
	if (!c)
		c = (int)x->events - (int)y->events;
	return c ? c : (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

static void put_effect(cgm_outfile *o, const cgm_model *m, const cgm_effect *e, bool v2)
{
	rec r = rec_open(o, v2);
	if (!v2 || e->reach != CGM_REACH_FUNCTION)
		rec_put_string(&r, "reach", reach_names[e->reach]);
	rec_put_string(&r, "via", cgm_via_name(e->via));
	rec_opt_string(&r, "object", e->object);
	if (!v2 || e->events) {
		rec_key(&r, "events");
		put_flat_events(o, e->events, v2);
	}
	if (e->ncolumns) {
		rec_key(&r, "columns");
		put_flat_strings(o, e->columns, e->ncolumns, v2);
	}
	rec_opt_string(&r, "function", effect_function_id(m, e));
	if (e->instead)
		rec_put_bool(&r, "instead", true);
	if (e->reach != CGM_REACH_FUNCTION && e->target_relation) {
		rec_key(&r, "target");
		rec t = rec_open(o, v2);
		rec_put_string(&t, "schema", e->target_schema);
		rec_put_string(&t, "name", e->target_relation);
		rec_key(&t, "events");
		put_flat_events(o, e->target_events, v2);
		if (e->ntarget_columns) {
			rec_key(&t, "columns");
			put_flat_strings(o, e->target_columns, e->ntarget_columns, v2);
		}
		if (e->target_defaults)
			rec_put_bool(&t, "defaults", true);
		/* A view's reads of it by column (viewcols.h), when known. */
		if (e->reach == CGM_REACH_VIEW && e->reads) {
			rec_key(&t, "reads");
			put_flat_strings(o, e->reads, e->nreads, v2);
			rec_key(&t, "read_by");
			put_flat_strings(o, e->read_by, e->nreads, v2);
		}
		rec_close(&t);
	}
	rec_opt_string(&r, "note", e->note);
	rec_close(&r);
}

/* Is (schema, name) the relation of an effect, a trigger or a resolved
 * relation site?  Those relations are written; a sorted list of keys. */
typedef struct rel_key {
	const char *schema, *name;
} rel_key;

static int compare_rel_keys(const void *a, const void *b)
{
	const rel_key *x = a, *y = b;
	int c = compare_strings_nullable(x->schema, y->schema);
	return c ? c : compare_strings_nullable(x->name, y->name);
}

/* Sort keys[0..n) and keep each named relation once: the count left. */
static int distinct_rel_keys(rel_key *keys, int n)
{
	qsort(keys, (size_t)n, sizeof(rel_key), compare_rel_keys);
	int distinct = 0;
	for (int i = 0; i < n; i++)
		if (keys[i].schema && keys[i].name &&
		    (distinct == 0 || compare_rel_keys(&keys[i], &keys[distinct - 1]) != 0))
			keys[distinct++] = keys[i];
	return distinct;
}

static void write_relations(json_out *j, const writer *w)
{
	const cgm_model *m = w->model;
	cgm_outfile *o = j->out;
	int cap = m->neffects + m->ntriggers + 16, n = 0;
	rel_key *keys = cgm_xcalloc((size_t)cap, sizeof(rel_key));
	/* A full list is made distinct before it grows: relation sites name
	 * the same few relations again and again (270,000 sites at 100,000
	 * functions), so the list stays near the number of relations. */
#define ADD_KEY(sch, nam)                                                           \
	do {                                                                        \
		if (n == cap) {                                                     \
			n = distinct_rel_keys(keys, n);                             \
			if (n > cap / 2) {                                          \
				cap *= 2;                                           \
				keys = cgm_xrealloc(keys, sizeof(rel_key) * (size_t)cap); \
			}                                                           \
		}                                                                   \
		keys[n++] = (rel_key){ (sch), (nam) };                              \
	} while (0)
	for (int i = 0; i < m->neffects; i++)
		ADD_KEY(m->effects[i].schema, m->effects[i].relation);
	for (int i = 0; i < m->ntriggers; i++)
		ADD_KEY(m->triggers[i].table_schema, m->triggers[i].table_name);
	for (int i = 0; i < w->norder; i++) {
		const cgm_function *f = &m->functions[w->order[i]];
		for (int k = 0; k < f->nsites; k++)
			if ((f->sites[k].kind == CGM_SITE_RELATION || f->sites[k].kind == CGM_SITE_TRIGGER) &&
			    f->sites[k].schema && f->sites[k].name)
				ADD_KEY(f->sites[k].schema, f->sites[k].name);
	}
#undef ADD_KEY
	int distinct = distinct_rel_keys(keys, n);
	/* The kind of each, from the relations the source listed. */
	char *kinds = cgm_xcalloc((size_t)distinct + 1, 1);
	for (int r = 0; r < m->nrelations; r++) {
		rel_key k = { m->relations[r].schema, m->relations[r].name };
		rel_key *hit = distinct ? bsearch(&k, keys, (size_t)distinct, sizeof(rel_key),
						   compare_rel_keys)
					: NULL;
		if (hit && !kinds[hit - keys])
			kinds[hit - keys] = m->relations[r].relkind;
	}
	int *fx = cgm_xcalloc((size_t)m->neffects + 1, sizeof(int));
	for (int i = 0; i < m->neffects; i++)
		fx[i] = i;
	qsort_r(fx, (size_t)m->neffects, sizeof(int), compare_effect_index, (void *)m);

	key(j, "relations");
	open_container(j, '[');
	int e = 0;
	for (int r = 0; r < distinct; r++) {
		next_item(j);
		rec rr = rec_open(o, j->compact);
		rec_put_string(&rr, "schema", keys[r].schema);
		rec_put_string(&rr, "name", keys[r].name);
		rec_opt_string(&rr, "kind", relkind_name(kinds[r]));
		rec_key(&rr, "effects");
		cgm_outfile_putc(o, '[');
		bool first = true;
		while (e < m->neffects) {
			const cgm_effect *x = &m->effects[fx[e]];
			rel_key k = { x->schema, x->relation };
			int c = compare_rel_keys(&k, &keys[r]);
			if (c > 0)
				break;
			e++;
			if (c < 0)
				continue;
			if (!first)
				put_sep(o, j->compact);
			first = false;
			put_effect(o, m, x, j->compact);
		}
		cgm_outfile_putc(o, ']');
		rec_close(&rr);
	}
	close_container(j, ']');
	free(fx);
	free(kinds);
	free(keys);
}

static int compare_event_triggers(const void *a, const void *b, void *ctx)
{
	const cgm_model *m = ctx;
	int c = compare_strings_nullable(m->event_triggers[*(const int *)a].name,
					 m->event_triggers[*(const int *)b].name);
	return c ? c : *(const int *)a - *(const int *)b;
}

static void write_event_triggers(json_out *j, const writer *w)
{
	const cgm_model *m = w->model;
	cgm_outfile *o = j->out;
	int *order = cgm_xcalloc((size_t)m->nevent_triggers + 1, sizeof(int));
	for (int i = 0; i < m->nevent_triggers; i++)
		order[i] = i;
	qsort_r(order, (size_t)m->nevent_triggers, sizeof(int), compare_event_triggers, (void *)m);
	key(j, "event_triggers");
	open_container(j, '[');
	for (int i = 0; i < m->nevent_triggers; i++) {
		const cgm_event_trigger *et = &m->event_triggers[order[i]];
		next_item(j);
		rec r = rec_open(o, j->compact);
		rec_put_string(&r, "name", et->name);
		rec_put_string(&r, "event", et->event);
		if (!j->compact || et->ntags) {
			rec_key(&r, "tags");
			put_flat_strings(o, et->tags, et->ntags, j->compact);
		}
		rec_opt_bool(&r, "enabled", et->enabled);
		rec_opt_string(&r, "function", valid_function(m, et->function)
						       ? m->functions[et->function].id
						       : et->function_id);
		rec_close(&r);
	}
	close_container(j, ']');
	free(order);
}

static const char *aggregate_id(const cgm_model *m, const cgm_aggregate *a)
{
	return valid_function(m, a->aggregate) ? m->functions[a->aggregate].id : a->aggregate_id;
}

static int compare_aggregates(const void *a, const void *b, void *ctx)
{
	const cgm_model *m = ctx;
	int c = compare_strings_nullable(aggregate_id(m, &m->aggregates[*(const int *)a]),
					 aggregate_id(m, &m->aggregates[*(const int *)b]));
	return c ? c : *(const int *)a - *(const int *)b;
}

/* The support functions of each aggregate the map holds (ids, which may
 * name builtins outside the snapshot): verdicts read an aggregate's calls
 * and traceability through them, so a snapshot gives the verdicts the map
 * gave.  Left out when there is none. */
static void write_aggregates(json_out *j, const writer *w)
{
	const cgm_model *m = w->model;
	cgm_outfile *o = j->out;
	int *order = cgm_xcalloc((size_t)m->naggregates + 1, sizeof(int));
	int n = 0;
	for (int i = 0; i < m->naggregates; i++)
		if (valid_function(m, m->aggregates[i].aggregate) &&
		    !m->functions[m->aggregates[i].aggregate].builtin)
			order[n++] = i;
	if (n == 0) {
		free(order);
		return;
	}
	qsort_r(order, (size_t)n, sizeof(int), compare_aggregates, (void *)m);
	key(j, "aggregates");
	open_container(j, '[');
	const char **ids = cgm_xcalloc(1, sizeof(char *));
	int cap = 1;
	for (int i = 0; i < n; i++) {
		const cgm_aggregate *a = &m->aggregates[order[i]];
		if (a->nsupport > cap) {
			cap = a->nsupport;
			ids = cgm_xrealloc(ids, sizeof(char *) * (size_t)cap);
		}
		for (int k = 0; k < a->nsupport; k++)
			ids[k] = valid_function(m, a->support[k]) ? m->functions[a->support[k]].id
								  : a->support_ids[k];
		next_item(j);
		rec r = rec_open(o, j->compact);
		rec_put_string(&r, "aggregate", aggregate_id(m, a));
		rec_key(&r, "support");
		put_flat_strings(o, ids, a->nsupport, j->compact);
		rec_key(&r, "roles");
		put_flat_strings(o, a->support_roles, a->nsupport, j->compact);
		rec_close(&r);
	}
	close_container(j, ']');
	free(ids);
	free(order);
}

typedef struct {
	int functions, analysed, dynamic_sites, missing, missing_handled, parse_errors, ambiguous_sites;
	int edges, static_edges, observed_edges;
} summary_counts;

/* The summary comes before the lists it counts: counted first, noting
 * which functions have dynamic or missing sites, so that the derived
 * lists visit those only instead of every site again. */
static summary_counts count_summary(writer *w)
{
	const cgm_model *m = w->model;
	summary_counts sum = { 0 };
	w->ndynamic = cgm_xcalloc((size_t)w->norder + 1, sizeof(int));
	w->nmissing = cgm_xcalloc((size_t)w->norder + 1, sizeof(int));
	for (int i = 0; i < w->norder; i++) {
		const cgm_function *f = &m->functions[w->order[i]];
		if (f->builtin)
			continue;
		sum.functions++;
		sum.analysed += f->analysed;
		for (int s = 0; s < f->nsites; s++) {
			const cgm_site *site = &f->sites[s];
			sum.ambiguous_sites += site->resolution == CGM_RES_AMBIGUOUS;
			w->ndynamic[i] += site->kind == CGM_SITE_DYNAMIC;
			w->nmissing[i] += site->resolution == CGM_RES_MISSING;
			sum.missing += cgm_site_missing(site);
			sum.missing_handled += cgm_site_missing_handled(site);
		}
		sum.dynamic_sites += w->ndynamic[i];
		sum.parse_errors += f->nerrors;
	}
	sum.parse_errors += m->ndiagnostics;
	for (int i = 0; i < m->nedges; i++) {
		const cgm_edge *e = &m->edges[i];
		sum.edges++;
		sum.static_edges += (e->provenance & CGM_EDGE_STATIC) != 0;
		sum.observed_edges += (e->provenance & CGM_EDGE_OBSERVED) != 0;
	}
	return sum;
}

static void put_diagnostic(cgm_outfile *o, const cgm_diagnostic *d, bool with_function,
			   bool v2)
{
	rec r = rec_open(o, v2);
	if (with_function && !v2)
		rec_put_string(&r, "function", NULL);
	rec_opt_string(&r, "file", d->file);
	rec_opt_int(&r, "line", d->line);
	rec_put_string(&r, "message", d->message);
	if (d->detail)
		rec_put_bool(&r, "detail", true);
	rec_close(&r);
}

/* runtime.paths, shapes, timeline (cgmap_trace 1.3): one line per row
 * (older snapshots have none: empty). */
static void write_runtime_paths(json_out *j, const cgm_model *m)
{
	cgm_outfile *o = j->out;
	bool v2 = j->compact;
	key(j, "paths");
	open_container(j, '[');
	for (int i = 0; i < m->npaths; i++) {
		const cgm_call_path *p = &m->paths[i];
		next_item(j);
		rec r = rec_open(o, v2);
		rec_key(&r, "frames");
		put_flat_strings(o, p->frames, p->nframes, v2);
		rec_key(&r, "lines");
		cgm_outfile_putc(o, '[');
		for (int f = 0; f < p->nframes; f++) {
			if (f)
				put_sep(o, v2);
			cgm_outfile_int(o, p->lines[f]);
		}
		cgm_outfile_putc(o, ']');
		rec_key(&r, "runtime");
		put_flat_stats(o, &p->stats, v2);
		rec_key(&r, "min_ms");
		put_real(o, p->min_ms);
		rec_key(&r, "max_ms");
		put_real(o, p->max_ms);
		rec_close(&r);
	}
	close_container(j, ']');

	key(j, "shapes");
	open_container(j, '[');
	for (int i = 0; i < m->nshapes; i++) {
		const cgm_call_shape *sh = &m->shapes[i];
		next_item(j);
		rec r = rec_open(o, v2);
		rec_put_string(&r, "entry", sh->entry);
		rec_put_int(&r, "calls", sh->calls);
		rec_key(&r, "edges");
		cgm_outfile_putc(o, '[');
		for (int e = 0; e < sh->nedges; e++) {
			const cgm_shape_edge *x = &sh->edges[e];
			if (e)
				put_sep(o, v2);
			rec er = rec_open(o, v2);
			rec_put_string(&er, "caller", x->caller);
			rec_put_string(&er, "callee", x->callee);
			rec_put_int(&er, "site_line", x->site_line);
			rec_put_bool(&er, "dynamic", x->dynamic);
			rec_close(&er);
		}
		cgm_outfile_putc(o, ']');
		rec_close(&r);
	}
	close_container(j, ']');

	key(j, "timeline");
	open_container(j, '[');
	for (int i = 0; i < m->nbuckets; i++) {
		const cgm_time_bucket *b = &m->buckets[i];
		next_item(j);
		rec r = rec_open(o, v2);
		rec_put_string(&r, "function", b->function);
		rec_put_string(&r, "start", b->start);
		rec_put_int(&r, "calls", b->calls);
		rec_key(&r, "self_ms");
		put_real(o, b->self_ms);
		rec_close(&r);
	}
	close_container(j, ']');
}

/* The derived lists, one pass over the written functions each. */
static void write_dynamic_sites(json_out *j, const writer *w)
{
	const cgm_model *m = w->model;
	key(j, "dynamic_sites");
	open_container(j, '[');
	cgm_dynsql_reader *reader = cgm_dynsql_reader_new(m);
	for (int i = 0; i < w->norder; i++) {
		int fi = w->order[i];
		const cgm_function *f = &m->functions[fi];
		int ndynamic = w->ndynamic[i]; /* 0 for a builtin */
		if (!ndynamic)
			continue;
		int *dyn_edges;
		int ndyn_edges = observed_dynamic_edges(w, fi, &dyn_edges);
		for (int s = 0; s < f->nsites; s++) {
			const cgm_site *site = &f->sites[s];
			if (site->kind != CGM_SITE_DYNAMIC)
				continue;
			next_item(j);
			cgm_outfile *o = j->out;
			bool v2 = w->compact;
			rec r = rec_open(o, v2);
			rec_key(&r, "function");
			put_ref(o, w, fi);
			rec_put_int(&r, "line", site->line);
			rec_opt_string(&r, "text", cgm_site_get_rare(site)->text);
			rec_opt_string(&r, "stmt", site->stmt);
			if (m->has_site_runs)
				rec_put_int(&r, "runs", cgm_site_get_rare(site)->runs);
			rec_key(&r, "observed_targets");
			put_observed_targets(o, w, dyn_edges, ndyn_edges, site, ndynamic);
			/* What its constant parts say before it runs (src/dynsql.c). */
			cgm_dynsql_info info;
			cgm_dynsql_read_with(&info, reader, site);
			rec_opt_string(&r, "statement", info.statement);
			rec_opt_bool(&r, "can_call", info.can_call);
			rec_key(&r, "possible_targets");
			cgm_outfile_putc(o, '[');
			for (int t = 0; t < info.ntargets; t++) {
				if (t)
					put_sep(o, v2);
				put_ref(o, w, info.targets[t]);
			}
			cgm_outfile_putc(o, ']');
			if (info.total > info.ntargets)
				rec_put_int(&r, "possible_targets_total", info.total);
			cgm_dynsql_info_free(&info);
			rec_close(&r);
		}
		free(dyn_edges);
	}
	cgm_dynsql_reader_free(reader);
	close_container(j, ']');
}

static void write_missing(json_out *j, const writer *w)
{
	const cgm_model *m = w->model;
	key(j, "missing");
	open_container(j, '[');
	for (int i = 0; i < w->norder; i++) {
		int fi = w->order[i];
		const cgm_function *f = &m->functions[fi];
		if (!w->nmissing[i]) /* 0 for a builtin */
			continue;
		for (int s = 0; s < f->nsites; s++) {
			const cgm_site *site = &f->sites[s];
			if (site->resolution != CGM_RES_MISSING)
				continue;
			next_item(j);
			rec r = rec_open(j->out, w->compact);
			rec_key(&r, "function");
			put_ref(j->out, w, fi);
			rec_put_int(&r, "line", site->line);
			rec_key(&r, "name");
			/* "schema.name" escaped in two pieces is the whole escaped:
			 * the '.' between is a character of its own. */
			if (site->schema) {
				cgm_outfile_putc(j->out, '"');
				put_string_text(j->out, site->schema);
				cgm_outfile_putc(j->out, '.');
				put_string_text(j->out, site->name ? site->name : "");
				cgm_outfile_putc(j->out, '"');
			} else {
				put_string(j->out, site->name);
			}
			rec_put_int(&r, "nargs", site->nargs);
			if (site->handles_missing)
				rec_put_bool(&r, "handled", true);
			rec_close(&r);
		}
	}
	close_container(j, ']');
}

static void write_document(json_out *j, writer *w)
{
	const cgm_model *m = w->model;
	cgm_outfile *o = j->out;
	summary_counts sum = count_summary(w);
	open_container(j, '{');
	key_string(j, "format", SNAPSHOT_FORMAT_NAME);
	key_int(j, "format_version", w->compact ? 2 : 1);
	key_string(j, "generator", "cgmap " CGMAP_VERSION);

	key(j, "source");
	open_container(j, '{');
	key_opt_string(j, "kind", m->source.kind);
	key_opt_string(j, "name", m->source.name);
	key_opt_string(j, "server_version", m->source.server_version);
	key_opt_string(j, "mapped_at", m->source.mapped_at);
	if (m->source.default_search_path && m->source.npath >= 0)
		key_string_array(j, "default_search_path", m->source.default_search_path,
				 m->source.npath);
	else if (!j->compact)
		key_null(j, "default_search_path");
	if (m->source.search_path_given) /* newer than format 1: when true, in both */
		key_bool(j, "search_path_given", true);
	close_container(j, '}');

	key(j, "options");
	open_container(j, '{');
	key_bool(j, "include_builtins", m->include_builtins);
	key_bool(j, "include_extensions", m->include_extensions);
	/* Newer than format 1: only for a replica session's map, whose
	 * triggers fire otherwise (absent: origin, as before). */
	if (m->replica_session)
		key_string(j, "replication_role", "replica");
	close_container(j, '}');

	key(j, "summary");
	open_container(j, '{');
	key_int(j, "functions", sum.functions);
	key_int(j, "analysed", sum.analysed);
	key_int(j, "not_analysed", sum.functions - sum.analysed);
	key_int(j, "edges", sum.edges);
	key_int(j, "static_edges", sum.static_edges);
	key_int(j, "observed_edges", sum.observed_edges);
	key_int(j, "dynamic_sites", sum.dynamic_sites);
	key_int(j, "missing", sum.missing);
	if (sum.missing_handled)
		key_int(j, "missing_handled", sum.missing_handled);
	key_int(j, "parse_errors", sum.parse_errors);
	key_int(j, "ambiguous_sites", sum.ambiguous_sites);
	close_container(j, '}');

	key(j, "functions");
	open_container(j, '[');
	for (int i = 0; i < w->norder; i++) {
		next_item(j);
		write_function(j, w, &m->functions[w->order[i]]);
	}
	close_container(j, ']');

	key(j, "edges");
	open_container(j, '[');
	for (int i = 0; i < w->nedges; i++) {
		next_item(j);
		put_edge(o, w, &m->edges[w->edges[i]]);
	}
	close_container(j, ']');

	sort_rec *recs = cgm_xcalloc((size_t)(m->ntriggers + m->nreferences + m->ndiagnostics + 1),
				     sizeof(sort_rec));
	for (int i = 0; i < m->ntriggers; i++) {
		const cgm_trigger *t = &m->triggers[i];
		recs[i] = (sort_rec){ t->table_schema, t->table_name, t->name, i };
	}
	qsort(recs, (size_t)m->ntriggers, sizeof(sort_rec), compare_recs);
	key(j, "triggers");
	open_container(j, '[');
	for (int i = 0; i < m->ntriggers; i++) {
		const cgm_trigger *t = &m->triggers[recs[i].index];
		next_item(j);
		rec r = rec_open(o, w->compact);
		rec_opt_string(&r, "schema", t->table_schema);
		rec_put_string(&r, "table", t->table_name);
		rec_put_string(&r, "name", t->name);
		if (!w->compact || t->events) {
			rec_key(&r, "events");
			put_flat_events(o, t->events, w->compact);
		}
		rec_opt_string(&r, "function", trigger_function_id(m, t));
		rec_opt_bool(&r, "enabled", t->enabled);
		if (t->ncolumns) {
			rec_key(&r, "columns");
			put_flat_strings(o, t->columns, t->ncolumns, w->compact);
		}
		rec_close(&r);
	}
	close_container(j, ']');

	for (int i = 0; i < m->nreferences; i++) {
		const cgm_reference *r = &m->references[i];
		recs[i] = (sort_rec){ reference_function_id(m, r), r->object_kind, r->object, i };
	}
	qsort(recs, (size_t)m->nreferences, sizeof(sort_rec), compare_recs);
	key(j, "references");
	open_container(j, '[');
	for (int i = 0; i < m->nreferences; i++) {
		const cgm_reference *r = &m->references[recs[i].index];
		next_item(j);
		rec rr = rec_open(o, w->compact);
		rec_opt_string(&rr, "function", reference_function_id(m, r));
		rec_put_string(&rr, "kind", r->object_kind);
		rec_put_string(&rr, "object", r->object);
		rec_close(&rr);
	}
	close_container(j, ']');

	write_relations(j, w);
	write_event_triggers(j, w);
	write_aggregates(j, w);
	write_dynamic_sites(j, w);
	write_missing(j, w);

	/* Diagnostics by file, line, message: line compared as text would put
	 * 10 before 9, so it is a zero-padded key.  They close parse_errors
	 * and make up diagnostics. */
	char (*line_keys)[16] = cgm_xcalloc((size_t)(m->ndiagnostics + 1), sizeof(*line_keys));
	for (int i = 0; i < m->ndiagnostics; i++) {
		const cgm_diagnostic *d = &m->diagnostics[i];
		snprintf(line_keys[i], sizeof(line_keys[i]), "%011lld", (long long)d->line + 2147483648LL);
		recs[i] = (sort_rec){ d->file, line_keys[i], d->message, i };
	}
	qsort(recs, (size_t)m->ndiagnostics, sizeof(sort_rec), compare_recs);

	key(j, "parse_errors");
	open_container(j, '[');
	for (int i = 0; i < w->norder; i++) {
		const cgm_function *f = &m->functions[w->order[i]];
		if (f->builtin)
			continue;
		for (int e = 0; e < f->nerrors; e++) {
			next_item(j);
			rec r = rec_open(o, w->compact);
			rec_key(&r, "function");
			put_ref(o, w, w->order[i]);
			rec_opt_string(&r, "file", f->file);
			rec_opt_int(&r, "line", f->errors[e].line);
			rec_put_string(&r, "message", f->errors[e].message);
			rec_close(&r);
		}
	}
	for (int i = 0; i < m->ndiagnostics; i++) {
		next_item(j);
		put_diagnostic(o, &m->diagnostics[recs[i].index], true, w->compact);
	}
	close_container(j, ']');

	key(j, "diagnostics");
	open_container(j, '[');
	for (int i = 0; i < m->ndiagnostics; i++) {
		next_item(j);
		put_diagnostic(o, &m->diagnostics[recs[i].index], false, w->compact);
	}
	close_container(j, ']');
	free(line_keys);
	free(recs);

	if (m->has_runtime) {
		key(j, "runtime");
		open_container(j, '{');
		key_string(j, "window", m->runtime_window);
		key_string_array(j, "sources", m->runtime_sources, m->nruntime_sources);
		if (m->has_site_runs)
			key_bool(j, "site_runs", true);
		const cgm_evidence *ev = &m->evidence;
		key(j, "evidence");
		open_container(j, '{');
		key_string(j, "since", ev->since);
		key_string(j, "until", ev->until);
		key_int(j, "window_seconds", ev->window_seconds);
		key_string_array(j, "servers", ev->servers, ev->nservers);
		key_string_array(j, "databases", ev->databases, ev->ndatabases);
		key_int(j, "calls", ev->calls);
		key_string(j, "trace_track", ev->trace_track);
		key_string(j, "track_functions", ev->track_functions);
		key_int(j, "min_window_seconds", ev->min_window_seconds);
		key_int(j, "min_calls", ev->min_calls);
		if (ev->lost_records > 0) /* absent: none lost, as in older snapshots */
			key_int(j, "lost_records", ev->lost_records);
		if (ev->lost_to_full_table > 0) /* the same */
			key_int(j, "lost_to_full_table", ev->lost_to_full_table);
		key_bool(j, "enough", ev->enough);
		close_container(j, '}');
		write_runtime_paths(j, m);
		close_container(j, '}');
	} else if (!j->compact) {
		key_null(j, "runtime");
	}
	close_container(j, '}');
	cgm_outfile_putc(o, '\n');
}

/* The file named by path, or in the folder path: cgmap.json, or when
 * reading and there is none, cgmap.json.gz (compressed: cgmap.json.gz). */
static char *snapshot_file(const char *path, bool reading, bool compressed)
{
	struct stat st;
	cgm_strbuf file = CGM_STRBUF_INIT;
	cgm_strbuf_puts(&file, path);
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		if (file.len == 0 || file.data[file.len - 1] != '/')
			cgm_strbuf_putc(&file, '/');
		size_t folder = file.len;
		cgm_strbuf_puts(&file, compressed ? SNAPSHOT_GZIP_NAME : SNAPSHOT_NAME);
		if (reading && stat(file.data, &st) != 0) {
			file.len = folder;
			cgm_strbuf_puts(&file, SNAPSHOT_GZIP_NAME);
			if (stat(file.data, &st) != 0) { /* neither: the error names cgmap.json */
				file.len = folder;
				cgm_strbuf_puts(&file, SNAPSHOT_NAME);
			}
		}
	}
	return file.data;
}

/* Streams the document into a temporary file beside the target, then
 * renames it over the target, so a crash never leaves half a snapshot.
 * Reads the model only, keeps no static state: safe beside another writer
 * of the same model on another thread. */
/* The options cgm_snapshot_write uses, set once from the command line
 * before any writing thread starts (as cgmap/infile.h's size limit). */
static cgm_snapshot_options default_options = { CGM_SNAPSHOT_FORMAT, false };

void cgm_snapshot_set_defaults(const cgm_snapshot_options *opts)
{
	default_options = *opts;
}

const cgm_snapshot_options *cgm_snapshot_defaults(void)
{
	return &default_options;
}

int cgm_snapshot_write(const cgm_model *model, const char *path)
{
	return cgm_snapshot_write_with(model, path, &default_options);
}

int cgm_snapshot_write_with(const cgm_model *model, const char *path,
			    const cgm_snapshot_options *opts)
{
	int version = opts->format_version ? opts->format_version : CGM_SNAPSHOT_FORMAT;
	if (version < 1 || version > CGM_SNAPSHOT_FORMAT)
		return cgm_error(CGM_EUSAGE, "cannot write snapshot format_version %d: this cgmap "
					     "writes 1 to %d",
				 version, CGM_SNAPSHOT_FORMAT);
	writer w = { .model = model, .compact = version >= 2 };
	int rc = writer_plan(&w);
	if (rc) {
		writer_free(&w);
		return rc;
	}
	char *file = snapshot_file(path, false, opts->compress);
	cgm_outfile out;
	rc = cgm_outfile_open(&out, file, "snapshot",
			      CGM_OUTFILE_DURABLE | CGM_OUTFILE_THREAD |
				      (opts->compress ? CGM_OUTFILE_GZIP : 0));
	free(file);
	if (rc) {
		writer_free(&w);
		return rc;
	}
	json_out j = { .out = &out, .compact = w.compact };
	write_document(&j, &w);
	writer_free(&w);
	return cgm_outfile_commit(&out);
}

/* ------------------------------------------------------------------ */
/* Reading                                                             */
/* ------------------------------------------------------------------ */

/* The snapshot is parsed in one pass over the file's bytes into a compact
 * tree (strings decoded in place in the file's buffer, nodes in one arena,
 * no token array, no hashing): jansson spends seconds on a large snapshot,
 * mostly in per-value allocation and hashing, and a tokenizer first (jsmn)
 * spent a third of the read on tokens the tree was then built from.  The
 * parser takes exactly what jansson takes (with JSON_REJECT_DUPLICATES):
 * JSON's grammar, strict strings (no raw control character, valid UTF-8,
 * no \u0000, no lone surrogate), jansson's number conversions, no repeated
 * key, giving the same values.  On anything it does not take, jansson
 * parses the file instead, so a syntax error is reported by jansson with
 * its line and column, and an unusual but valid file still reads.  The
 * reader below sees the same tree either way. */

enum { JV_NULL, JV_TRUE, JV_FALSE, JV_INTEGER, JV_REAL, JV_STRING, JV_ARRAY, JV_OBJECT };

typedef struct jv jv;
typedef struct jv_member jv_member;

struct jv {
	unsigned char type;
	uint16_t hint;  /* object: where the next key lookup starts (a start
			 * only: past 65,535 members it may start anywhere) */
	unsigned n;     /* array, object: number of items or members; string:
			 * its length in bytes (up to the first NUL) */
	uint64_t keys;  /* object: a bit per member (jv_key_bit), 0 when not made */
	union {
		long long integer;
		double real;
		const char *string;
		jv *items;
		jv_member *members;
	} u;
};

struct jv_member {
	const char *key;
	jv value;
};

/* jansson's own depth limit: a file nesting deeper is refused at once,
 * naming where, before jansson (or anything) is asked to go on. */
#define JV_REFUSE_DEPTH 2048

typedef struct {
	char *p;          /* the next byte to read; the buffer ends with a NUL */
	char *end;        /* the end of the text (the NUL) */
	cgm_arena *arena; /* the tree's nodes */
	struct jv_pool *pool; /* when set, the nodes of one streamed element (below) */
	/* The items and members of the containers being parsed, innermost
	 * last: each container's are copied into the arena once it closes. */
	jv *items;
	size_t nitems, items_cap;
	jv_member *members;
	size_t nmembers, members_cap;
	char *start;      /* the buffer */
	long deep_at;     /* the offset of the bracket past JV_REFUSE_DEPTH, or -1 */
} jv_parser;

/* The nodes of one element of a streamed list ("functions", "edges"):
 * chunks kept and rewound after each element, so the element's tree reuses
 * the memory of the one before instead of the whole list's tree being
 * built at once. */
typedef struct jv_chunk {
	struct jv_chunk *next;
	size_t size, used;
	_Alignas(16) unsigned char data[];
} jv_chunk;

typedef struct jv_pool {
	jv_chunk *first, *cur;
} jv_pool;

#define JV_CHUNK (1024 * 1024)

static void *jv_pool_alloc(jv_pool *pool, size_t size)
{
	size = (size + 15) & ~(size_t)15;
	jv_chunk *c = pool->cur;
	while (c && c->size - c->used < size) {
		c = c->next;
		if (c)
			c->used = 0;
	}
	if (!c) {
		size_t csize = size > JV_CHUNK ? size : JV_CHUNK;
		c = cgm_xcalloc(1, sizeof(jv_chunk) + csize);
		c->size = csize;
		/* After the last chunk: the ones in between were too small. */
		jv_chunk **at = pool->cur ? &pool->cur->next : &pool->first;
		while (*at)
			at = &(*at)->next;
		*at = c;
	}
	pool->cur = c;
	void *p = c->data + c->used;
	c->used += size;
	return p;
}

static void jv_pool_rewind(jv_pool *pool)
{
	pool->cur = pool->first;
	if (pool->cur)
		pool->cur->used = 0;
}

static void jv_pool_free(jv_pool *pool)
{
	for (jv_chunk *c = pool->first, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	pool->first = pool->cur = NULL;
}

static void *jv_alloc(jv_parser *ps, size_t size)
{
	return ps->pool ? jv_pool_alloc(ps->pool, size) : cgm_arena_alloc(ps->arena, size);
}

static inline void jv_skip_space(jv_parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\t' || *ps->p == '\r')
		ps->p++;
}

/* The string whose opening quote is at ps->p, decoded in place (never
 * longer than its text) and NUL-terminated where its closing quote was
 * or before. */
static int jv_string(jv_parser *ps, const char **out, unsigned *len)
{
	unsigned char *s = (unsigned char *)ps->p + 1, *end = (unsigned char *)ps->end;
	/* Plain ASCII stays where it is (json_byte_class 0: not '"', '\\', a
	 * control, NUL or non-ASCII).  Most strings are short (keys, names):
	 * four bytes a step by the table, and past the first four eight bytes
	 * a step while the text's end is eight or more bytes away. */
	for (;;) {
		if (json_byte_class[s[0]])
			break;
		if (json_byte_class[s[1]]) {
			s += 1;
			break;
		}
		if (json_byte_class[s[2]]) {
			s += 2;
			break;
		}
		if (json_byte_class[s[3]]) {
			s += 3;
			break;
		}
		s += 4;
		while (end - s >= 8 && !needs_care8(s))
			s += 8;
	}
	unsigned char *dst = s;
	*out = ps->p + 1;
	for (;;) {
		unsigned char c = *s;
		if (c == '"')
			break;
		if (c >= 0x20 && c < 0x80 && c != '\\') {
			/* Moved down over the escapes before it, eight bytes
			 * at once when all eight are plain. */
			if (end - s >= 8 && !needs_care8(s)) {
				uint64_t word;
				memcpy(&word, s, sizeof(word));
				memcpy(dst, &word, sizeof(word));
				dst += 8, s += 8;
				continue;
			}
			*dst++ = *s++;
			continue;
		}
		if (c < 0x20)
			return -1; /* a raw control character, or the end of the text */
		if (c >= 0x80) {
			size_t n = jt_utf8_length(s);
			if (n == 0)
				return -1;
			while (n--)
				*dst++ = *s++;
			continue;
		}
		c = s[1];
		if (c != 'u') {
			static const char plain[] = "\"\\/\b\f\n\r\t", escape[] = "\"\\/bfnrt";
			const char *e = c ? strchr(escape, c) : NULL;
			if (!e)
				return -1;
			*dst++ = (unsigned char)plain[e - escape];
			s += 2;
			continue;
		}
		unsigned cp, lo;
		if (jt_hex4((const char *)s + 2, &cp) < 0)
			return -1;
		s += 6;
		if (cp >= 0xD800 && cp < 0xDC00) {
			/* A high surrogate takes a low one after it. */
			if (s[0] != '\\' || s[1] != 'u' || jt_hex4((const char *)s + 2, &lo) < 0 ||
			    lo < 0xDC00 || lo >= 0xE000)
				return -1;
			cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
			s += 6;
		} else if (cp == 0 || (cp >= 0xDC00 && cp < 0xE000)) {
			return -1;
		}
		dst += jt_encode_utf8((char *)dst, cp);
	}
	*dst = '\0';
	if (len) {
		size_t decoded = (size_t)(dst - (unsigned char *)*out);
		if (decoded > UINT_MAX)
			return -1; /* jansson reads it, with a 64-bit length */
		*len = (unsigned)decoded;
	}
	ps->p = (char *)s + 1;
	return 0;
}

/* A number with JSON's grammar, converted as jansson does (strtoll,
 * strtod; out of range is an error). */
static int jv_number(jv_parser *ps, jv *out)
{
	char *s = ps->p, *q = s + (*s == '-');
	bool real = false;
	if (*q == '0')
		q++;
	else if (*q >= '1' && *q <= '9')
		while (*q >= '0' && *q <= '9')
			q++;
	else
		return -1;
	if (*q == '.') {
		real = true;
		if (*++q < '0' || *q > '9')
			return -1;
		while (*q >= '0' && *q <= '9')
			q++;
	}
	if (*q == 'e' || *q == 'E') {
		real = true;
		q++;
		if (*q == '+' || *q == '-')
			q++;
		if (*q < '0' || *q > '9')
			return -1;
		while (*q >= '0' && *q <= '9')
			q++;
	}
	size_t digits = (size_t)(q - s) - (*s == '-');
	if (!real && digits <= 18) {
		/* At most 18 digits never overflow: strtoll's value, without
		 * its locale and checks (one per place, line and count read). */
		long long v = 0;
		for (const char *d = q - digits; d < q; d++)
			v = v * 10 + (*d - '0');
		out->type = JV_INTEGER;
		out->u.integer = *s == '-' ? -v : v;
		ps->p = q;
		return 0;
	}
	char *stop;
	errno = 0;
	if (real) {
		out->type = JV_REAL;
		out->u.real = strtod(s, &stop);
		if ((out->u.real == HUGE_VAL || out->u.real == -HUGE_VAL) && errno == ERANGE)
			return -1;
	} else {
		out->type = JV_INTEGER;
		out->u.integer = strtoll(s, &stop, 10);
		if (errno == ERANGE)
			return -1;
	}
	if (stop != q)
		return -1;
	ps->p = q;
	return 0;
}

/* A key's bit in an object's `keys`: from its first and fourth bytes, its
 * last and its length, which tell the snapshot's keys apart well enough
 * that a key the object lacks (most of the optional members a reader asks
 * for) is mostly answered without comparing it with every member. */
static inline __attribute__((always_inline)) uint64_t jv_key_bit_len(const char *key, size_t len)
{
	const unsigned char *k = (const unsigned char *)key;
	unsigned h = (unsigned)len * 3u;
	if (len)
		h += k[0] * 11u + k[len - 1] * 5u + (len > 3 ? k[3] * 17u : 0u);
	return 1ULL << (h & 63);
}

static inline __attribute__((always_inline)) uint64_t jv_key_bit(const char *key)
{
	return jv_key_bit_len(key, strlen(key));
}

/* Whether the keys of an object repeat (jansson rejects that), and *bits
 * the object's `keys` (jv_key_bit of each): a key is compared with the
 * ones before it only when its bit was already set. */
static bool jv_has_duplicate(const jv_member *members, size_t n, uint64_t *bits)
{
	uint64_t seen = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t bit = jv_key_bit(members[i].key);
		if (seen & bit)
			for (size_t k = 0; k < i; k++)
				if (strcmp(members[k].key, members[i].key) == 0)
					return true;
		seen |= bit;
	}
	*bits = seen;
	return false;
}

static void *jv_grow(void *items, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return items;
	size_t n = *cap ? *cap * 2 : 256;
	while (n < need)
		n *= 2;
	*cap = n;
	return cgm_xrealloc(items, n * size);
}

static int jv_value(jv_parser *ps, jv *out, int depth);

/* The array or object whose bracket is at ps->p. */
static int jv_container(jv_parser *ps, jv *out, int depth)
{
	bool object = *ps->p == '{';
	char close = object ? '}' : ']';
	if (depth >= JV_REFUSE_DEPTH) {
		ps->deep_at = (long)(ps->p - ps->start);
		return -2;
	}
	ps->p++;
	size_t base = object ? ps->nmembers : ps->nitems;
	/* The bits of the object's keys so far (jv_key_bit): jansson refuses
	 * a repeated key, so a key is compared with the ones before it only
	 * when its bit is already set. */
	uint64_t seen = 0;
	jv_skip_space(ps);
	if (*ps->p != close) {
		for (;;) {
			int rc;
			if (object) {
				if (*ps->p != '"')
					return -1;
				const char *key;
				unsigned key_len;
				if (jv_string(ps, &key, &key_len) < 0)
					return -1;
				uint64_t bit = jv_key_bit_len(key, key_len);
				if (seen & bit)
					for (size_t k = base; k < ps->nmembers; k++)
						if (strcmp(ps->members[k].key, key) == 0)
							return -1;
				seen |= bit;
				jv_skip_space(ps);
				if (*ps->p++ != ':')
					return -1;
				jv_skip_space(ps);
				jv value;
				if ((rc = jv_value(ps, &value, depth + 1)) != 0)
					return rc;
				ps->members = jv_grow(ps->members, &ps->members_cap, ps->nmembers + 1,
						      sizeof(jv_member));
				ps->members[ps->nmembers].key = key;
				ps->members[ps->nmembers++].value = value;
			} else {
				jv value;
				if ((rc = jv_value(ps, &value, depth + 1)) != 0)
					return rc;
				ps->items = jv_grow(ps->items, &ps->items_cap, ps->nitems + 1, sizeof(jv));
				ps->items[ps->nitems++] = value;
			}
			jv_skip_space(ps);
			if (*ps->p == ',') {
				ps->p++;
				jv_skip_space(ps);
				continue;
			}
			if (*ps->p != close)
				return -1;
			break;
		}
	}
	ps->p++;
	size_t n = (object ? ps->nmembers : ps->nitems) - base;
	if (n > UINT_MAX)
		return -1;
	out->type = object ? JV_OBJECT : JV_ARRAY;
	out->n = (unsigned)n;
	if (object) {
		out->u.members = jv_alloc(ps, sizeof(jv_member) * (n ? n : 1));
		if (n)
			memcpy(out->u.members, ps->members + base, sizeof(jv_member) * n);
		ps->nmembers = base;
		out->keys = seen;
	} else {
		out->u.items = jv_alloc(ps, sizeof(jv) * (n ? n : 1));
		if (n)
			memcpy(out->u.items, ps->items + base, sizeof(jv) * n);
		ps->nitems = base;
	}
	return 0;
}

/* The value at ps->p (no whitespace before it). */
static int jv_value(jv_parser *ps, jv *out, int depth)
{
	memset(out, 0, sizeof(*out));
	switch (*ps->p) {
	case '"':
		out->type = JV_STRING;
		return jv_string(ps, &out->u.string, &out->n);
	case '{':
	case '[':
		return jv_container(ps, out, depth);
	case 't':
		if (strncmp(ps->p, "true", 4) != 0)
			return -1;
		out->type = JV_TRUE;
		ps->p += 4;
		return 0;
	case 'f':
		if (strncmp(ps->p, "false", 5) != 0)
			return -1;
		out->type = JV_FALSE;
		ps->p += 5;
		return 0;
	case 'n':
		if (strncmp(ps->p, "null", 4) != 0)
			return -1;
		out->type = JV_NULL;
		ps->p += 4;
		return 0;
	default:
		return jv_number(ps, out);
	}
}

/* The document in buf[0..len) (buf[len] is a NUL), an object with nothing
 * after it; -1 when this parser does not take it.  Deeper than
 * JV_REFUSE_DEPTH: -2, and *deep_at is the offset of the first bracket past
 * it (no reader, jansson included, is asked to go on). */
static int jv_parse(jv *out, char *buf, size_t len, cgm_arena *arena, long *deep_at)
{
	jv_parser ps = { .p = buf, .end = buf + len, .start = buf, .arena = arena, .deep_at = -1 };
	jv_skip_space(&ps);
	int rc = jv_value(&ps, out, 0);
	if (rc == -2)
		*deep_at = ps.deep_at;
	if (rc == 0) {
		jv_skip_space(&ps);
		/* A NUL inside the text ends it early: not what jansson reads. */
		if (ps.p != ps.end || out->type != JV_OBJECT)
			rc = -1;
	}
	free(ps.items);
	free(ps.members);
	return rc;
}

/* ---- how far a value goes, before it is parsed ----
 *
 * A streamed file's text is in memory a window at a time (textwin.h): a
 * value is parsed only once the whole of it, and the byte after it, are
 * loaded, since parsing decodes its strings in place and cannot begin
 * again.  These scans only find where a value ends (brackets counted
 * outside strings); they check nothing else.  A text they misjudge is one
 * the parser refuses, having met the NUL after what is loaded: the file is
 * then read whole, which says what is wrong. */

static const char *scan_space(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
		p++;
	return p;
}

/* The bytes of x equal to c, as their high bits. */
static inline uint64_t bytes_equal(uint64_t x, unsigned char c)
{
	uint64_t y = x ^ BYTES8(c);
	return (y - BYTES8(1)) & ~y & BYTES8(0x80);
}

/* Past the closing quote of the string whose opening quote is at p:
 * eight bytes a step to the next quote or backslash (the window's zero
 * padding lets a step read past `end`). */
static const char *scan_string(const char *p, const char *end)
{
	for (p++; p < end;) {
		uint64_t word;
		memcpy(&word, p, sizeof(word));
		uint64_t hits = bytes_equal(word, '"') | bytes_equal(word, '\\');
		if (!hits) {
			p += 8;
			continue;
		}
		p += __builtin_ctzll(hits) / 8;
		if (p >= end)
			return NULL;
		if (*p == '"')
			return p + 1;
		p += 2; /* a backslash and what it escapes */
	}
	return NULL;
}

static const char *scan_value(const char *p, const char *end)
{
	if (p >= end)
		return NULL;
	if (*p == '"')
		return scan_string(p, end);
	if (*p == '{' || *p == '[') {
		size_t depth = 0;
		while (p < end) {
			char c = *p;
			if (c == '"') {
				if (!(p = scan_string(p, end)))
					return NULL;
				continue;
			}
			if (c == '{' || c == '[')
				depth++;
			else if ((c == '}' || c == ']') && --depth == 0)
				return p + 1;
			p++;
		}
		return NULL;
	}
	while (p < end && !strchr(",]} \t\r\n", *p))
		p++;
	return p < end ? p : NULL;
}

/* What must be loaded before the parser goes on: the next byte that is
 * not space (JV_NEXT_BYTE); a key, its colon and the first byte of its
 * value (JV_NEXT_KEY); a whole value and the byte after it (JV_NEXT_VALUE). */
enum { JV_NEXT_BYTE, JV_NEXT_KEY, JV_NEXT_VALUE };

static bool scan_complete(const char *p, const char *end, int what)
{
	p = scan_space(p, end);
	if (what == JV_NEXT_KEY) {
		if (p < end && *p == '"') {
			if (!(p = scan_string(p, end)))
				return false;
			p = scan_space(p, end);
			if (p < end && *p == ':')
				p = scan_space(p + 1, end);
		}
	} else if (what == JV_NEXT_VALUE) {
		if (!(p = scan_value(p, end)))
			return false;
		p = scan_space(p, end);
	}
	return p < end;
}

/* `what` at ps->p loaded, sliding the window past what was read (ps's
 * pointers follow); at the end of the text, whatever is there. */
static void jv_need(jv_parser *ps, cgm_textwin *w, int what)
{
	while (!scan_complete(ps->p, ps->end, what) && !w->eof && !w->failed) {
		size_t keep = (size_t)(ps->p - w->buf);
		cgm_textwin_slide(w, keep); /* failed or at the end: the loop ends */
		ps->p = ps->start = w->buf;
		ps->end = w->buf + w->len;
	}
}

/* Below this much text loaded ahead, the window slides before a value is
 * parsed: the few records longer than what is left are read twice. */
#define JV_AHEAD ((ptrdiff_t)64 << 10)

/* The value at ps->p, parsed whole from the window.  From a plain file
 * it is parsed at once, and read again from the file if it failed before
 * the end of the text (it may have gone on past what was loaded: its
 * strings were decoded in place, so its bytes are the file's again only
 * read again); gzip'd text cannot be read again, and a value is first
 * scanned to its end there. */
static int jv_value_whole(jv_parser *ps, cgm_textwin *w, jv *out, int depth)
{
	if (w->gzip) {
		jv_need(ps, w, JV_NEXT_VALUE);
		return jv_value(ps, out, depth);
	}
	if (ps->end - ps->p < JV_AHEAD && !w->eof && !w->failed) {
		cgm_textwin_slide(w, (size_t)(ps->p - w->buf));
		ps->p = ps->start = w->buf;
		ps->end = w->buf + w->len;
	}
	size_t nitems = ps->nitems, nmembers = ps->nmembers;
	for (;;) {
		size_t at = (size_t)(ps->p - w->buf);
		int rc = jv_value(ps, out, depth);
		if (rc != -1 || w->eof || w->failed)
			return rc;
		ps->nitems = nitems;
		ps->nmembers = nmembers;
		if (ps->pool)
			jv_pool_rewind(ps->pool);
		int again = cgm_textwin_reread(w, at);
		ps->p = ps->start = w->buf;
		ps->end = w->buf + w->len;
		if (again < 0)
			return -1;
	}
}

/* Streaming: the elements of some top-level lists are handed one by one,
 * as they are parsed, to `element` (their nodes rewound after each), and
 * the end of each such list to `done`; the list stands in the tree as an
 * empty array.  `want` says which lists to stream, asked as each top-level
 * key comes.  Nonzero from a callback stops the parse.  The other
 * top-level members are copied into the arena, keys and strings too
 * (`names`, in that arena), as the window moves on past their text; those
 * `ignored` (no reader looks at them) are parsed, and stand as nulls. */
typedef struct jv_stream {
	/* seen: the top-level members parsed so far (n of them) */
	bool (*want)(void *ctx, const char *key, const jv_member *seen, size_t n);
	bool (*ignored)(void *ctx, const char *key);
	int (*element)(void *ctx, const char *key, size_t index, const jv *value);
	int (*done)(void *ctx, const char *key, size_t count);
	void *ctx;
} jv_stream;

static void jv_copy(cgm_arena *arena, cgm_intern *names, jv *out, const jv *v);

/* The top-level object with the lists `st` wants streamed, read through
 * the window: 0, or nonzero when the parser does not take the text (-1,
 * -2 as jv_parse), the window cannot read it, or a callback stopped it
 * (-3).  The caller then reads the file whole by jv_parse (or jansson),
 * which tells what is wrong. */
static int jv_parse_stream(jv *out, cgm_textwin *window, cgm_arena *arena, const jv_stream *st)
{
	jv_parser ps = { .p = window->buf, .end = window->buf + window->len, .start = window->buf,
			 .arena = arena, .deep_at = -1 };
	jv_pool pool = { 0 };
	/* The members not streamed are copied out of the window. */
	cgm_intern *names = cgm_intern_new(arena);
	int rc = -1;
	jv_need(&ps, window, JV_NEXT_BYTE);
	jv_skip_space(&ps);
	if (*ps.p != '{')
		goto out;
	ps.p++;
	jv_need(&ps, window, JV_NEXT_KEY);
	jv_skip_space(&ps);
	while (*ps.p != '}') {
		const char *key;
		if (*ps.p != '"' || jv_string(&ps, &key, NULL) < 0)
			goto fail;
		key = cgm_intern_str(names, key);
		jv_skip_space(&ps);
		if (*ps.p++ != ':')
			goto fail;
		jv_skip_space(&ps);
		jv value = { 0 };
		if (*ps.p == '[' && st->want(st->ctx, key, ps.members, ps.nmembers)) {
			ps.p++;
			jv_need(&ps, window, JV_NEXT_BYTE);
			jv_skip_space(&ps);
			size_t count = 0;
			while (*ps.p != ']') {
				jv element;
				ps.pool = &pool;
				int vrc = jv_value_whole(&ps, window, &element, 2);
				ps.pool = NULL;
				if (vrc != 0) {
					rc = vrc;
					goto out;
				}
				if (st->element(st->ctx, key, count++, &element) != 0) {
					rc = -3;
					goto out;
				}
				/* The element is read and nothing points into its
				 * text any more: the window may slide past it. */
				jv_pool_rewind(&pool);
				jv_need(&ps, window, JV_NEXT_BYTE);
				jv_skip_space(&ps);
				if (*ps.p == ',') {
					ps.p++;
					jv_need(&ps, window, JV_NEXT_BYTE);
					jv_skip_space(&ps);
					if (*ps.p == ']')
						goto fail;
				} else if (*ps.p != ']') {
					goto fail;
				}
			}
			ps.p++;
			if (st->done(st->ctx, key, count) != 0) {
				rc = -3;
				goto out;
			}
			value.type = JV_ARRAY;
			value.u.items = NULL;
		} else if (st->ignored(st->ctx, key)) {
			ps.pool = &pool;
			rc = jv_value_whole(&ps, window, &value, 1);
			ps.pool = NULL;
			jv_pool_rewind(&pool);
			if (rc != 0)
				goto out;
			memset(&value, 0, sizeof(value));
			value.type = JV_NULL;
		} else {
			if ((rc = jv_value_whole(&ps, window, &value, 1)) != 0)
				goto out;
			jv parsed = value;
			jv_copy(arena, names, &value, &parsed);
		}
		ps.members = jv_grow(ps.members, &ps.members_cap, ps.nmembers + 1, sizeof(jv_member));
		ps.members[ps.nmembers].key = key;
		ps.members[ps.nmembers++].value = value;
		jv_need(&ps, window, JV_NEXT_BYTE);
		jv_skip_space(&ps);
		if (*ps.p == ',') {
			ps.p++;
			jv_need(&ps, window, JV_NEXT_KEY);
			jv_skip_space(&ps);
			if (*ps.p == '}')
				goto fail;
		} else if (*ps.p != '}') {
			goto fail;
		}
	}
	ps.p++;
	/* Nothing but space after the object, to the end of the text. */
	for (;;) {
		jv_skip_space(&ps);
		if (ps.p != ps.end || window->eof || window->failed)
			break;
		jv_need(&ps, window, JV_NEXT_BYTE);
	}
	if (ps.p != ps.end || !window->eof || window->failed || ps.nmembers > UINT_MAX ||
	    jv_has_duplicate(ps.members, ps.nmembers, &(uint64_t){ 0 }))
		goto fail;
	memset(out, 0, sizeof(*out));
	out->type = JV_OBJECT;
	out->n = (unsigned)ps.nmembers;
	out->u.members = cgm_arena_alloc(arena, sizeof(jv_member) * (ps.nmembers ? ps.nmembers : 1));
	if (ps.nmembers)
		memcpy(out->u.members, ps.members, sizeof(jv_member) * ps.nmembers);
	rc = 0;
	goto out;
fail:
	rc = -1;
out:
	free(ps.items);
	free(ps.members);
	jv_pool_free(&pool);
	cgm_intern_free(names);
	return rc;
}

/* The same tree from a jansson document (the file this parser gave up on
 * but jansson read); strings stay owned by the document. */
static void jv_from_json(jv *out, const json_t *j, cgm_arena *arena)
{
	memset(out, 0, sizeof(*out));
	switch (json_typeof(j)) {
	case JSON_OBJECT: {
		const char *key;
		json_t *value;
		size_t i = 0;
		out->type = JV_OBJECT;
		out->n = (unsigned)json_object_size(j);
		out->u.members = cgm_arena_alloc(arena, sizeof(jv_member) * (out->n ? out->n : 1));
		json_object_foreach((json_t *)j, key, value) {
			out->u.members[i].key = key;
			jv_from_json(&out->u.members[i].value, value, arena);
			i++;
		}
		break;
	}
	case JSON_ARRAY:
		out->type = JV_ARRAY;
		out->n = (unsigned)json_array_size(j);
		out->u.items = cgm_arena_alloc(arena, sizeof(jv) * (out->n ? out->n : 1));
		for (unsigned i = 0; i < out->n; i++)
			jv_from_json(&out->u.items[i], json_array_get(j, i), arena);
		break;
	case JSON_STRING:
		out->type = JV_STRING;
		out->u.string = json_string_value(j);
		/* Up to a NUL jansson kept (\u0000): the string as C reads it. */
		out->n = (unsigned)strnlen(out->u.string, UINT_MAX);
		break;
	case JSON_INTEGER:
		out->type = JV_INTEGER;
		out->u.integer = json_integer_value(j);
		break;
	case JSON_REAL:
		out->type = JV_REAL;
		out->u.real = json_real_value(j);
		break;
	case JSON_TRUE:
		out->type = JV_TRUE;
		break;
	case JSON_FALSE:
		out->type = JV_FALSE;
		break;
	case JSON_NULL:
		out->type = JV_NULL;
		break;
	}
}

/* Accessors with jansson's meaning (NULL in, NULL or 0 out). */
static inline __attribute__((always_inline)) jv *jv_object_get(const jv *obj, const char *key)
{
	if (!obj || obj->type != JV_OBJECT || obj->n == 0)
		return NULL;
	/* Keys are asked for mostly in the order they were written: start
	 * after the last one found. */
	unsigned n = obj->n, start = obj->hint < n ? obj->hint : 0;
	/* The next member first; then a key whose bit no member has is not
	 * there; else every member. */
	for (unsigned k = 0; k < n; k++) {
		if (k == 1 && obj->keys && !(obj->keys & jv_key_bit(key)))
			return NULL;
		unsigned i = start + k < n ? start + k : start + k - n;
		const char *k = obj->u.members[i].key, *q = key;
		/* Keys are short: compared here, byte by byte, not by a call
		 * (an absent key is compared with every member). */
		while (*k && *k == *q)
			k++, q++;
		if (*k == *q) {
			((jv *)obj)->hint = (uint16_t)(i + 1);
			return &obj->u.members[i].value;
		}
	}
	return NULL;
}

static jv *jv_array_get(const jv *arr, size_t i)
{
	return arr && arr->type == JV_ARRAY && i < arr->n ? &arr->u.items[i] : NULL;
}

static size_t jv_array_size(const jv *arr)
{
	return arr && arr->type == JV_ARRAY ? arr->n : 0;
}

static bool jv_is(const jv *v, int type)
{
	return v && v->type == type;
}

#define jv_is_null(v) jv_is(v, JV_NULL)
#define jv_is_string(v) jv_is(v, JV_STRING)
#define jv_is_integer(v) jv_is(v, JV_INTEGER)
#define jv_is_array(v) jv_is(v, JV_ARRAY)
#define jv_is_object(v) jv_is(v, JV_OBJECT)
#define jv_is_true(v) jv_is(v, JV_TRUE)
#define jv_is_boolean(v) (jv_is(v, JV_TRUE) || jv_is(v, JV_FALSE))
#define jv_is_number(v) (jv_is(v, JV_INTEGER) || jv_is(v, JV_REAL))
#define jv_typeof(v) ((v)->type)

static const char *jv_string_value(const jv *v)
{
	return jv_is_string(v) ? v->u.string : NULL;
}

static long long jv_integer_value(const jv *v)
{
	return jv_is_integer(v) ? v->u.integer : 0;
}

static double jv_number_value(const jv *v)
{
	if (jv_is_integer(v))
		return (double)v->u.integer;
	return jv_is(v, JV_REAL) ? v->u.real : 0.0;
}

typedef struct {
	const char *file;
	cgm_model *model;
	cgm_strbuf path;  /* JSON path of the value being read, e.g. functions[3].sites[0] */
	int *by_place;    /* per place in the file's "functions": the model's index
			   * (format 2 refers to functions by place), once indexed */
	size_t nplaces;
	cgm_intern *names; /* short strings kept once (in the model's arena) */
	unsigned flags;    /* CGM_SNAPSHOT_READ_* */
	const char *text;  /* the file's text, when its strings are read where
			    * they stand (f->source_at is a place in it), else NULL */
	uint64_t text_base; /* the place in the file's text of text[0] (a
			     * window of it: textwin.h) */
	/* CGM_SNAPSHOT_READ_DIFF_SITES: per place in "functions", each site of
	 * the file's (slots[place][0 .. nslots[place])), kept in the model or
	 * only checked; the sites only checked are read into site_scratch
	 * (reset per function), their targets kept in slot_keep until they
	 * are checked once every function is known. */
	struct site_slot **slots;
	int *nslots;
	size_t slots_cap;
	size_t place;      /* the place of the function being read */
	bool checking;     /* a site only checked: its strings are not kept */
	cgm_arena *site_scratch, *slot_keep;
	bool raw_places;   /* while streaming: a place is kept as it is, to be
			    * mapped once every function is known */
	bool pathless;     /* while streaming: no JSON path is kept (an error
			    * there has the file read again, which names it
			    * with its path: cgm_snapshot_read_with), the
			    * path's bookkeeping was a twentieth of a read */
} reader;

/* Below this length a string is kept once however often it comes: a
 * snapshot repeats the same schemas, names, types, statement kinds and
 * objects in every site; bodies and comments are copied as they are. */
#define INTERN_BELOW 64

static const char *keep_string(reader *r, const jv *v)
{
	const char *s = v->u.string;
	if (r->checking) /* looked at, never kept: the file's own text */
		return s;
	if (v->n < INTERN_BELOW)
		return cgm_intern_strn(r->names, s, v->n);
	return cgm_arena_strndup(r->model->arena, s, v->n);
}

/* Enter a key or an array element; leave by restoring the saved length. */
static size_t enter_key(reader *r, const char *key)
{
	if (r->pathless)
		return 0;
	size_t saved = r->path.len;
	if (r->path.len)
		cgm_strbuf_putc(&r->path, '.');
	cgm_strbuf_puts(&r->path, key);
	return saved;
}

static size_t enter_index(reader *r, size_t i)
{
	/* Once per array element read: digits by hand, not printf. */
	if (r->pathless)
		return 0;
	char text[32];
	char *end = text + sizeof(text), *p = end;
	*--p = ']';
	do {
		*--p = (char)('0' + i % 10);
		i /= 10;
	} while (i);
	*--p = '[';
	size_t saved = r->path.len;
	cgm_strbuf_add(&r->path, p, (size_t)(end - p));
	return saved;
}

static void leave(reader *r, size_t saved)
{
	if (r->pathless)
		return;
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

static const char *type_name(const jv *v)
{
	switch (jv_typeof(v)) {
	case JV_OBJECT:
		return "an object";
	case JV_ARRAY:
		return "an array";
	case JV_STRING:
		return "a string";
	case JV_INTEGER:
		return "an integer";
	case JV_REAL:
		return "a real number";
	case JV_TRUE:
	case JV_FALSE:
		return "a boolean";
	case JV_NULL:
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
static int get_string(reader *r, const jv *obj, const char *key, int required,
		      const char **out)
{
	const jv *v = jv_object_get(obj, key);
	*out = NULL;
	if (!v || jv_is_null(v)) {
		if (required)
			return bad(r, key, v ? "is null, expected a string" : "is missing");
		return 0;
	}
	if (!jv_is_string(v))
		return bad(r, key, "is %s, expected a string", type_name(v));
	*out = keep_string(r, v);
	return 0;
}

/* A string only one function has (its id, its body's hashes): copied, as
 * interning it would find no other to share with (a sixth of a diff's
 * interning was of these). */
static int get_unique_string(reader *r, const jv *obj, const char *key, int required,
			     const char **out)
{
	if (r->checking)
		return get_string(r, obj, key, required, out);
	const jv *v = jv_object_get(obj, key);
	if (v && jv_is_string(v)) {
		*out = cgm_arena_strndup(r->model->arena, v->u.string, v->n);
		return 0;
	}
	return get_string(r, obj, key, required, out);
}

static int get_int(reader *r, const jv *obj, const char *key, int required, int min,
		   int *out)
{
	const jv *v = jv_object_get(obj, key);
	if (!v) {
		if (required)
			return bad(r, key, "is missing");
		*out = min > 0 ? min : 0;
		return 0;
	}
	if (!jv_is_integer(v))
		return bad(r, key, "is %s, expected an integer", type_name(v));
	long long n = jv_integer_value(v);
	if (n < min || n > INT32_MAX)
		return bad(r, key, "is %lld, out of range", (long long)n);
	*out = (int)n;
	return 0;
}

static int get_bool(reader *r, const jv *obj, const char *key, bool *out)
{
	const jv *v = jv_object_get(obj, key);
	*out = false;
	if (!v)
		return 0;
	if (!jv_is_boolean(v))
		return bad(r, key, "is %s, expected true or false", type_name(v));
	*out = jv_is_true(v);
	return 0;
}

/* An array; absent gives NULL (an error when required), null gives NULL
 * when nullable. */
static int get_array(reader *r, const jv *obj, const char *key, int required, bool nullable,
		     jv **out)
{
	jv *v = jv_object_get(obj, key);
	*out = NULL;
	if (!v) {
		if (required)
			return bad(r, key, "is missing");
		return 0;
	}
	if (jv_is_null(v) && nullable)
		return 0;
	if (!jv_is_array(v))
		return bad(r, key, "is %s, expected an array", type_name(v));
	*out = v;
	return 0;
}

/* An array of strings (null entries allowed when entries_nullable).
 * *out stays NULL when the key is absent or null. */
static int get_string_array(reader *r, const jv *obj, const char *key, bool nullable,
			    bool entries_nullable, const char ***out, int *count)
{
	jv *arr;
	*out = NULL;
	*count = 0;
	TRY(get_array(r, obj, key, OPTIONAL, nullable, &arr));
	if (!arr)
		return 0;
	size_t n = jv_array_size(arr);
	const char **items = cgm_arena_alloc(r->model->arena, sizeof(char *) * (n ? n : 1));
	for (size_t i = 0; i < n; i++) {
		const jv *v = jv_array_get(arr, i);
		if (jv_is_string(v)) {
			items[i] = keep_string(r, v);
		} else if (!(entries_nullable && jv_is_null(v))) {
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

static int get_events(reader *r, const jv *obj, const char *key, unsigned *out)
{
	const char **names;
	int n;
	*out = 0;
	TRY(get_string_array(r, obj, key, false, false, &names, &n));
	for (int i = 0; i < n; i++) {
		int e = 0;
		while (e < CGM_NEVENTS && strcmp(names[i], cgm_event_names[e]) != 0)
			e++;
		if (e == CGM_NEVENTS)
			return bad(r, key, "unknown event \"%s\" (expected INSERT, UPDATE, DELETE, "
					   "TRUNCATE or SELECT)",
				   names[i]);
		*out |= 1u << e;
	}
	return 0;
}

static int get_stats(reader *r, const jv *obj, const char *key, cgm_runtime_stats *out)
{
	const jv *v = jv_object_get(obj, key);
	memset(out, 0, sizeof(*out));
	if (!v || jv_is_null(v))
		return 0;
	if (!jv_is_object(v))
		return bad(r, key, "is %s, expected an object or null", type_name(v));
	size_t saved = enter_key(r, key);
	const jv *calls = jv_object_get(v, "calls");
	const jv *total = jv_object_get(v, "total_ms");
	const jv *self = jv_object_get(v, "self_ms");
	int rc = 0;
	if (calls && (!jv_is_integer(calls) || jv_integer_value(calls) < 0))
		rc = bad(r, "calls", "is %s, expected a count", type_name(calls));
	else if (total && !jv_is_number(total))
		rc = bad(r, "total_ms", "is %s, expected a number", type_name(total));
	else if (self && !jv_is_number(self))
		rc = bad(r, "self_ms", "is %s, expected a number", type_name(self));
	else if (total && !cgm_stats_time_valid(jv_number_value(total)))
		rc = bad(r, "total_ms", "is %g, expected milliseconds from 0 to %.0f",
			 jv_number_value(total), CGM_STATS_MAX_MS);
	else if (self && !cgm_stats_time_valid(jv_number_value(self)))
		rc = bad(r, "self_ms", "is %g, expected milliseconds from 0 to %.0f",
			 jv_number_value(self), CGM_STATS_MAX_MS);
	if (rc == 0) {
		out->calls = calls ? (int64_t)jv_integer_value(calls) : 0;
		out->total_ms = total ? jv_number_value(total) : 0.0;
		out->self_ms = self ? jv_number_value(self) : 0.0;
	}
	leave(r, saved);
	return rc;
}

/* The element at i of arr, which must be an object. */
static int get_element_object(reader *r, const jv *arr, size_t i, jv **out)
{
	*out = jv_array_get(arr, i);
	if (!jv_is_object(*out))
		return bad(r, NULL, "is %s, expected an object", type_name(*out));
	return 0;
}

/* A function referred to by its place in "functions" (format 2): its model
 * index, or -1 when no function stands there. */
static int function_at_place(const reader *r, const jv *v)
{
	long long place = jv_integer_value(v);
	if (r->raw_places)
		return place >= 0 && place < INT_MAX ? (int)place : -1;
	if (place < 0 || (unsigned long long)place >= r->nplaces)
		return -1;
	return r->by_place[place];
}

/* The function with that id (or at that place of "functions"), or an
 * error at key. */
static int find_function(reader *r, const jv *obj, const char *key, int *out)
{
	const jv *v = jv_object_get(obj, key);
	if (v && jv_is_integer(v)) {
		*out = function_at_place(r, v);
		if (*out < 0)
			return bad(r, key, "is %lld, not the place of a function (0 to %zu)",
				   jv_integer_value(v), r->nplaces ? r->nplaces - 1 : 0);
		return 0;
	}
	const char *id;
	TRY(get_string(r, obj, key, REQUIRED, &id));
	*out = cgm_model_find(r->model, id);
	if (*out < 0)
		return bad(r, key, "unknown function \"%s\"", id);
	return 0;
}

/* n null names: what a list left out in format 2 (all positional
 * arguments, no known types) reads as, the same as format 1's [null, ...]. */
static const char **null_names(reader *r, int n)
{
	return cgm_arena_alloc(r->model->arena, sizeof(char *) * (size_t)(n > 0 ? n : 1));
}

/* read_site's common case in one pass over the site's members, instead of
 * a lookup per key (a snapshot holds some 17 sites per function): sites
 * whose members all have the usual types, none of the rare ones (argnames,
 * events, columns, text).  Anything else, null values included, is left to
 * read_site's lookups (false, *site untouched), which also name what is
 * wrong.  Members read_site does not look at are passed over, as it does. */
static int get_int64(reader *r, const jv *obj, const char *key, int64_t min, int64_t *out);

static bool read_site_fast(reader *r, const jv *obj, cgm_site *site)
{
	if (!jv_is_object(obj))
		return false;
	cgm_site s = { .kind = CGM_SITE_CALL, .resolution = CGM_RES_RESOLVED };
	bool has_line = false;
	const jv *argtypes = NULL;
	for (unsigned i = 0; i < obj->n; i++) {
		const char *key = obj->u.members[i].key;
		const jv *v = &obj->u.members[i].value;
		switch (key[0]) {
		case 'l':
			if (strcmp(key, "line") != 0)
				break;
			if (!jv_is_integer(v) || v->u.integer < 0 || v->u.integer > INT32_MAX)
				return false;
			s.line = (int)v->u.integer;
			has_line = true;
			continue;
		case 'k':
			if (strcmp(key, "kind") != 0)
				break;
			if (!jv_is_string(v) || cgm_site_kind_parse(&s.kind, v->u.string) != 0)
				return false;
			continue;
		case 'h':
			if (strcmp(key, "handles_missing") != 0)
				break;
			if (!jv_is_boolean(v))
				return false;
			s.handles_missing = jv_is_true(v);
			continue;
		case 'v':
			if (strcmp(key, "via_literal") == 0 || strcmp(key, "variadic") == 0) {
				if (!jv_is_boolean(v))
					return false;
				if (key[1] == 'i')
					s.via_literal = jv_is_true(v);
				else
					s.variadic_call = jv_is_true(v);
				continue;
			}
			break;
		case 's':
			if (strcmp(key, "stmt") != 0 && strcmp(key, "schema") != 0)
				break;
			if (!jv_is_string(v))
				return false;
			*(key[1] == 't' ? &s.stmt : &s.schema) = keep_string(r, v);
			continue;
		case 'n':
			if (strcmp(key, "name") == 0) {
				if (!jv_is_string(v))
					return false;
				s.name = keep_string(r, v);
				continue;
			}
			if (strcmp(key, "nargs") == 0) {
				if (!jv_is_integer(v) || v->u.integer < 0 || v->u.integer > INT32_MAX)
					return false;
				s.nargs = (int)v->u.integer;
				continue;
			}
			break;
		case 'a':
			if (strcmp(key, "argtypes") == 0) {
				if (!jv_is_array(v))
					return false;
				argtypes = v;
				continue;
			}
			if (strcmp(key, "argnames") == 0)
				return false;
			break;
		case 'r':
			if (strcmp(key, "runs") == 0 || strcmp(key, "reads") == 0 ||
			    strcmp(key, "requires_extension") == 0)
				return false; /* a rare member: read_site */
			if (strcmp(key, "resolution") != 0)
				break;
			if (!jv_is_string(v) || cgm_resolution_parse(&s.resolution, v->u.string) != 0)
				return false;
			continue;
		case 'e':
		case 'c':
		case 't':
			if (strcmp(key, "events") == 0 || strcmp(key, "columns") == 0 || strcmp(key, "text") == 0)
				return false;
			break;
		}
	}
	if (!has_line)
		return false;
	if (argtypes) {
		if ((int)argtypes->n != s.nargs)
			return false;
		for (unsigned i = 0; i < argtypes->n; i++)
			if (!jv_is_string(&argtypes->u.items[i]) && !jv_is_null(&argtypes->u.items[i]))
				return false;
		const char **items = cgm_arena_alloc(r->model->arena, sizeof(char *) * (argtypes->n ? argtypes->n : 1));
		for (unsigned i = 0; i < argtypes->n; i++)
			items[i] = jv_is_string(&argtypes->u.items[i]) ? keep_string(r, &argtypes->u.items[i]) : NULL;
		s.argtypes = items;
	} else {
		s.argtypes = null_names(r, s.nargs);
	}
	/* What read_site leaves as it was: the targets, read later. */
	s.ntargets = site->ntargets;
	s.targets = site->targets;
	s.rare = site->rare;
	*site = s;
	return true;
}

static int read_site(reader *r, const jv *obj, cgm_site *site)
{
	if (read_site_fast(r, obj, site))
		return 0;
	const char *kind, *resolution;
	TRY(get_int(r, obj, "line", REQUIRED, 0, &site->line));
	TRY(get_string(r, obj, "kind", OPTIONAL, &kind));
	if (!kind) /* absent: a call (format 2 leaves it out) */
		site->kind = CGM_SITE_CALL;
	else if (cgm_site_kind_parse(&site->kind, kind) != 0)
		return bad(r, "kind", "unknown site kind \"%s\"", kind);
	bool flag;
	TRY(get_bool(r, obj, "via_literal", &flag));
	site->via_literal = flag;
	TRY(get_bool(r, obj, "handles_missing", &flag));
	site->handles_missing = flag;
	TRY(get_string(r, obj, "stmt", OPTIONAL, &site->stmt));
	TRY(get_string(r, obj, "schema", OPTIONAL, &site->schema));
	TRY(get_string(r, obj, "name", OPTIONAL, &site->name));
	TRY(get_int(r, obj, "nargs", OPTIONAL, 0, &site->nargs));
	int n;
	cgm_site_rare x = { 0 };
	TRY(get_string_array(r, obj, "argnames", true, true, &x.argnames, &n));
	if (x.argnames && n != site->nargs)
		return bad(r, "argnames", "has %d entries for %d arguments", n, site->nargs);
	if (all_null(x.argnames, site->nargs)) /* positional arguments only: none kept */
		x.argnames = NULL;
	TRY(get_string_array(r, obj, "argtypes", true, true, &site->argtypes, &n));
	if (site->argtypes && n != site->nargs)
		return bad(r, "argtypes", "has %d entries for %d arguments", n, site->nargs);
	if (!site->argtypes && !jv_object_get(obj, "argtypes"))
		site->argtypes = null_names(r, site->nargs);
	TRY(get_bool(r, obj, "variadic", &flag));
	site->variadic_call = flag;
	TRY(get_events(r, obj, "events", &x.events));
	TRY(get_string_array(r, obj, "columns", false, false, &x.columns, &x.ncolumns));
	TRY(get_string_array(r, obj, "reads", false, false, &x.reads, &x.nreads));
	TRY(get_string(r, obj, "text", OPTIONAL, &x.text));
	TRY(get_int64(r, obj, "runs", 0, &x.runs));
	TRY(get_string(r, obj, "requires_extension", OPTIONAL, &x.requires_extension));
	if (x.argnames || x.events || x.ncolumns || x.columns || x.reads || x.text || x.runs ||
	    x.requires_extension)
		*cgm_site_rare_of(r->model->arena, site) = x;
	TRY(get_string(r, obj, "resolution", OPTIONAL, &resolution));
	if (!resolution) /* absent: resolved (format 2 leaves it out) */
		site->resolution = CGM_RES_RESOLVED;
	else if (cgm_resolution_parse(&site->resolution, resolution) != 0)
		return bad(r, "resolution", "unknown resolution \"%s\"", resolution);
	return 0; /* targets need every function: read_site_targets */
}

/* "effects": targets with their own mechanism; they replace "targets". */
static int read_site_effects(reader *r, const jv *arr, cgm_site *site)
{
	size_t n = jv_array_size(arr);
	cgm_arena *a = r->model->arena;
	site->ntargets = (int)n;
	site->targets = cgm_arena_alloc(a, sizeof(int) * (n ? n : 1));
	cgm_site_rare *x = cgm_site_rare_of(a, site);
	x->target_via = cgm_arena_alloc(a, sizeof(cgm_via) * (n ? n : 1));
	x->target_object = cgm_arena_alloc(a, sizeof(char *) * (n ? n : 1));
	size_t saved = enter_key(r, "effects");
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		const jv *v = jv_array_get(arr, i);
		const char *via;
		if (!jv_is_object(v)) {
			rc = bad(r, NULL, "item %zu is %s, expected an object", i, type_name(v));
			break;
		}
		if ((rc = find_function(r, v, "to", &site->targets[i])) ||
		    (rc = get_string(r, v, "via", REQUIRED, &via)) ||
		    (rc = get_string(r, v, "object", OPTIONAL, &x->target_object[i])))
			break;
		if (cgm_via_parse(&x->target_via[i], via) != 0)
			rc = bad(r, "via", "unknown edge kind \"%s\"", via);
	}
	leave(r, saved);
	return rc;
}

static int read_site_targets(reader *r, const jv *obj, cgm_site *site)
{
	jv *arr;
	TRY(get_array(r, obj, "effects", OPTIONAL, false, &arr));
	if (arr)
		return read_site_effects(r, arr, site);
	TRY(get_array(r, obj, "targets", OPTIONAL, true, &arr));
	size_t n = arr ? jv_array_size(arr) : 0;
	site->ntargets = (int)n;
	site->targets = cgm_arena_alloc(r->model->arena, sizeof(int) * (n ? n : 1));
	size_t saved = enter_key(r, "targets");
	for (size_t i = 0; i < n; i++) {
		const jv *v = jv_array_get(arr, i);
		int rc = 0;
		if (jv_is_integer(v)) {
			if ((site->targets[i] = function_at_place(r, v)) < 0)
				rc = bad(r, NULL, "item %zu is %lld, not the place of a function", i,
					 jv_integer_value(v));
		} else if (!jv_is_string(v))
			rc = bad(r, NULL, "item %zu is %s, expected a function id", i, type_name(v));
		else if ((site->targets[i] = cgm_model_find(r->model, jv_string_value(v))) < 0)
			rc = bad(r, NULL, "item %zu: unknown function \"%s\"", i, jv_string_value(v));
		if (rc) {
			leave(r, saved);
			return rc;
		}
	}
	leave(r, saved);
	return 0;
}

/* A site of the file under CGM_SNAPSHOT_READ_DIFF_SITES: kept in the
 * model (its index in the function's sites), or only checked (-1), then
 * its targets as read, for the check of their places. */
typedef struct site_slot {
	int kept;
	int ntargets;
	int *targets;
	bool effects;   /* they were "effects" (the error names that key) */
} site_slot;

/* The sites `cgmap diff` compares: dynamic ones and calls PostgreSQL
 * refuses, of functions that do not exist or are not unique (src/diff.c,
 * collect_sites). */
static bool diff_compares(const cgm_site *site)
{
	return site->kind == CGM_SITE_DYNAMIC || site->resolution == CGM_RES_MISSING ||
	       site->resolution == CGM_RES_NOT_UNIQUE;
}

/* Reading into `arena` instead of the model's: the reader allocates
 * everything through r->model->arena. */
static cgm_arena *redirect(reader *r, cgm_arena *arena)
{
	cgm_arena *was = r->model->arena;
	r->model->arena = arena;
	return was;
}

/* The sites of a function in the file, under CGM_SNAPSHOT_READ_DIFF_SITES:
 * every one checked as it would be read, only those diff compares kept in
 * f->sites; the slots record which is which. */
static int read_compared_sites(reader *r, const jv *arr, cgm_function *f)
{
	int n = arr ? (int)jv_array_size(arr) : 0;
	if (!r->site_scratch)
		r->site_scratch = cgm_arena_new();
	if (!r->slot_keep)
		r->slot_keep = cgm_arena_new();
	if (r->place >= r->slots_cap) {
		size_t cap = r->slots_cap ? r->slots_cap * 2 : 1024;
		while (cap <= r->place)
			cap *= 2;
		r->slots = cgm_xrealloc(r->slots, sizeof(site_slot *) * cap);
		r->nslots = cgm_xrealloc(r->nslots, sizeof(int) * cap);
		memset(r->slots + r->slots_cap, 0, sizeof(site_slot *) * (cap - r->slots_cap));
		memset(r->nslots + r->slots_cap, 0, sizeof(int) * (cap - r->slots_cap));
		r->slots_cap = cap;
	}
	site_slot *slots = cgm_arena_alloc(r->slot_keep, sizeof(site_slot) * (size_t)(n + 1));
	int kept = 0, rc = 0;
	for (int s = 0; s < n && !rc; s++) {
		size_t saved = enter_key(r, "sites");
		enter_index(r, (size_t)s);
		jv *site;
		rc = get_element_object(r, arr, (size_t)s, &site);
		cgm_site check;
		memset(&check, 0, sizeof check);
		if (!rc) {
			cgm_arena *model_arena = redirect(r, r->site_scratch);
			r->checking = true;
			rc = read_site(r, site, &check);
			r->checking = false;
			redirect(r, model_arena);
		}
		leave(r, saved);
		slots[s].kept = !rc && diff_compares(&check) ? kept++ : -1;
	}
	cgm_arena_reset(r->site_scratch);
	if (rc)
		return rc;
	f->nsites = kept;
	f->sites = cgm_arena_alloc(r->model->arena, sizeof(cgm_site) * (size_t)(kept + 1));
	for (int s = 0; s < n; s++) {
		if (slots[s].kept < 0)
			continue;
		/* Read again, into the model: checked already. */
		jv *site = jv_array_get(arr, (size_t)s);
		TRY(read_site(r, site, &f->sites[slots[s].kept]));
	}
	r->slots[r->place] = slots;
	r->nslots[r->place] = n;
	return 0;
}

/* A site diff does not keep, read to be checked (slot_site), with room
 * for its effects' mechanisms. */
typedef struct checked_site {
	cgm_site site;
	cgm_site_rare rare;
} checked_site;

/* The site whose targets are read: the model's when kept, else `check`
 * (its targets then read into slot_keep by the caller). */
static cgm_site *slot_site(reader *r, size_t place, int s, cgm_function *f, checked_site *c)
{
	if (!(r->flags & CGM_SNAPSHOT_READ_DIFF_SITES))
		return &f->sites[s];
	const site_slot *slot = &r->slots[place][s];
	if (slot->kept >= 0)
		return &f->sites[slot->kept];
	memset(c, 0, sizeof *c);
	cgm_site *check = &c->site;
	check->ntargets = slot->ntargets;
	check->targets = slot->targets;
	check->rare = &c->rare;
	c->rare.target_via = slot->effects ? (cgm_via *)slot->targets : NULL; /* only tested for NULL */
	return check;
}

/* The targets read into `check` kept in the slot for their later check. */
static void slot_keep_targets(reader *r, size_t place, int s, const cgm_site *check)
{
	site_slot *slot = &r->slots[place][s];
	if (slot->kept >= 0)
		return;
	slot->ntargets = check->ntargets;
	slot->targets = check->targets;
	slot->effects = cgm_site_get_rare(check)->target_via != NULL;
}

/* How many sites the function at `place` has in the file. */
static int file_sites(const reader *r, size_t place, const cgm_function *f)
{
	return (r->flags & CGM_SNAPSHOT_READ_DIFF_SITES) ? r->nslots[place] : f->nsites;
}

/* Reads a dropped site's targets into slot_keep, a kept one's into the
 * model. */
static int read_slot_targets(reader *r, size_t place, int s, cgm_function *f, const jv *site)
{
	checked_site check;
	cgm_site *target = slot_site(r, place, s, f, &check);
	if (target != &check.site)
		return read_site_targets(r, site, target);
	cgm_arena *model_arena = redirect(r, r->slot_keep);
	int rc = read_site_targets(r, site, target);
	redirect(r, model_arena);
	if (!rc)
		slot_keep_targets(r, place, s, target);
	return rc;
}

/* Everything of one function but its sites' targets. */
/* "other_version_branches": [[first, last], ...], lines of the body in
 * order, at most CGM_VERBRANCH_MAX. */
static int read_version_branches(reader *r, const jv *obj, cgm_function *f)
{
	jv *ranges;
	TRY(get_array(r, obj, "other_version_branches", OPTIONAL, false, &ranges));
	size_t n = ranges ? jv_array_size(ranges) : 0;
	if (n == 0)
		return 0;
	if (n > CGM_VERBRANCH_MAX)
		return bad(r, "other_version_branches", "has %zu ranges, more than %d", n, CGM_VERBRANCH_MAX);
	int *lines = cgm_arena_alloc(r->model->arena, sizeof(int) * (2 * n + 1));
	lines[0] = (int)n;
	for (size_t k = 0; k < n; k++) {
		const jv *range = jv_array_get(ranges, k);
		const jv *first = jv_is_array(range) && jv_array_size(range) == 2 ? jv_array_get(range, 0) : NULL;
		const jv *last = first ? jv_array_get(range, 1) : NULL;
		if (!first || !jv_is_integer(first) || !jv_is_integer(last) || jv_integer_value(first) < 1 ||
		    jv_integer_value(last) < jv_integer_value(first) || jv_integer_value(last) > INT32_MAX ||
		    (k > 0 && jv_integer_value(first) <= lines[2 * k]))
			return bad(r, "other_version_branches",
				   "item %zu is not a range [first, last] of lines after the one before", k);
		lines[1 + 2 * k] = (int)jv_integer_value(first);
		lines[2 + 2 * k] = (int)jv_integer_value(last);
	}
	f->other_version_lines = lines;
	return 0;
}

static int read_function(reader *r, const jv *obj, cgm_function *f)
{
	const char *kind;
	int n;
	TRY(get_unique_string(r, obj, "id", REQUIRED, &f->id));
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
	TRY(get_unique_string(r, obj, "body_hash", OPTIONAL, &f->body_hash));
	TRY(get_unique_string(r, obj, "body_version", OPTIONAL, &f->body_version));
	if (f->body_version && !cgm_body_version_valid(f->body_version))
		return bad(r, "body_version", "is \"%s\", expected 16 hex digits", f->body_version);
	TRY(get_int(r, obj, "nargs", OPTIONAL, 0, &f->nargs));
	TRY(get_string_array(r, obj, "argtypes", true, true, &f->argtypes, &n));
	if (f->argtypes && n != f->nargs)
		return bad(r, "argtypes", "has %d entries for %d arguments", n, f->nargs);
	if (!f->argtypes && !jv_object_get(obj, "argtypes"))
		f->argtypes = null_names(r, f->nargs);
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
	TRY(get_string(r, obj, "owner", OPTIONAL, &f->owner));
	TRY(get_string_array(r, obj, "owner_search_path", true, false, &f->owner_path,
			     &f->nowner_path));
	TRY(get_bool(r, obj, "atomic_body", &f->atomic_body));
	TRY(read_version_branches(r, obj, f));
	if (r->flags & CGM_SNAPSHOT_READ_NO_SOURCES) {
		/* Still checked: the file is the same file whoever reads it. */
		const jv *source = jv_object_get(obj, "source");
		if (source && !jv_is_null(source) && !jv_is_string(source))
			return bad(r, "source", "is %s, expected a string", type_name(source));
		if (source && jv_is_string(source) && r->text && (r->flags & CGM_SNAPSHOT_READ_SOURCES_LATER)) {
			f->source_at = (size_t)(r->text_base + (uint64_t)(jv_string_value(source) - r->text));
			f->source_len = strlen(jv_string_value(source));
		}
	} else {
		TRY(get_string(r, obj, "source", OPTIONAL, &f->source));
		/* Hashed while the copy is in cache (the site's page keys). */
		if (f->source)
			f->source_hash = cgm_hash_words(CGM_FNV1A_OFFSET, f->source, strlen(f->source)) | 1;
	}

	jv *arr;
	TRY(get_array(r, obj, "sites", OPTIONAL, false, &arr));
	if (r->flags & CGM_SNAPSHOT_READ_DIFF_SITES) {
		TRY(read_compared_sites(r, arr, f));
		goto errors;
	}
	f->nsites = arr ? (int)jv_array_size(arr) : 0;
	f->sites = cgm_arena_alloc(r->model->arena, sizeof(cgm_site) * (size_t)(f->nsites + 1));
	for (int s = 0; s < f->nsites; s++) {
		size_t saved = enter_key(r, "sites");
		enter_index(r, (size_t)s);
		jv *site;
		int rc = get_element_object(r, arr, (size_t)s, &site);
		if (!rc)
			rc = read_site(r, site, &f->sites[s]);
		leave(r, saved);
		if (rc)
			return rc;
	}

errors:
	TRY(get_array(r, obj, "errors", OPTIONAL, false, &arr));
	f->nerrors = arr ? (int)jv_array_size(arr) : 0;
	f->errors = cgm_arena_alloc(r->model->arena, sizeof(cgm_parse_error) * (size_t)(f->nerrors + 1));
	for (int e = 0; e < f->nerrors; e++) {
		size_t saved = enter_key(r, "errors");
		enter_index(r, (size_t)e);
		jv *err;
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
	const jv *st = jv_object_get(obj, "status");
	if (st && !jv_is_null(st)) {
		if (!jv_is_object(st))
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
		if (!rc && jv_object_get(st, "scc"))
			rc = get_int(r, st, "scc", OPTIONAL, -1, &f->scc);
		const char *verdict = NULL;
		if (!rc)
			rc = get_string(r, st, "verdict", OPTIONAL, &verdict);
		if (!rc && verdict && cgm_verdict_parse(&f->verdict, verdict) < 0)
			rc = bad(r, "verdict", "is '%s', not a verdict", verdict);
		if (!rc)
			rc = get_string(r, st, "confidence", OPTIONAL, &f->confidence);
		if (!rc)
			rc = get_string(r, st, "kept", OPTIONAL, &f->kept);
		leave(r, saved);
		if (rc)
			return rc;
	}
	return 0;
}

/* A site read while streaming, its targets places kept as -(place + 1)
 * (stream_element): each the model's index of the function at that place. */
static int map_places(reader *r, cgm_site *site)
{
	for (int t = 0; t < site->ntargets; t++) {
		int place = -site->targets[t] - 1;
		if (place < 0 || (size_t)place >= r->nplaces)
			return bad(r, cgm_site_get_rare(site)->target_via ? "effects" : "targets",
				   "item %d is %d, not the place of a function (0 to %zu)", t, place,
				   r->nplaces ? r->nplaces - 1 : 0);
		site->targets[t] = r->by_place[place];
	}
	return 0;
}

/* Whether a site refers to every function it reaches by place (format 2),
 * or to none: then its targets are read at once (stream_element). */
static bool refs_by_place(const jv *site)
{
	const jv *effects = jv_object_get(site, "effects");
	if (effects) {
		if (!jv_is_array(effects))
			return false;
		for (unsigned i = 0; i < effects->n; i++) {
			const jv *e = &effects->u.items[i];
			const jv *to = jv_is_object(e) ? jv_object_get(e, "to") : NULL;
			if (!to || !jv_is_integer(to))
				return false;
		}
		return true;
	}
	const jv *targets = jv_object_get(site, "targets");
	if (!targets || jv_is_null(targets))
		return true;
	if (!jv_is_array(targets))
		return false;
	for (unsigned i = 0; i < targets->n; i++)
		if (!jv_is_integer(&targets->u.items[i]))
			return false;
	return true;
}

/* The site targets of the n functions of arr (after cgm_model_index: they
 * name functions), each function's id checked to be once.  First the model
 * index of each place in the list, which format 2's references are. */
static int read_functions_targets(reader *r, const jv *arr, size_t n)
{
	bool *seen = cgm_xcalloc(sizeof(bool) * n + 1, 1);
	free(r->by_place);
	r->by_place = cgm_xcalloc(n + 1, sizeof(int));
	r->nplaces = n;
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		const jv *obj = jv_array_get(arr, i);
		const char *id = jv_string_value(jv_object_get(obj, "id"));
		int idx = cgm_model_find(r->model, id);
		r->by_place[i] = idx;
		if (seen[idx]) {
			size_t saved = enter_key(r, "functions");
			enter_index(r, i);
			rc = bad(r, "id", "duplicate function id \"%s\"", id);
			leave(r, saved);
		}
		seen[idx] = true;
	}
	free(seen);
	for (size_t i = 0; i < n && !rc; i++) {
		const jv *obj = jv_array_get(arr, i);
		size_t saved = enter_key(r, "functions");
		enter_index(r, i);
		cgm_function *f = &r->model->functions[r->by_place[i]];
		jv *sites = jv_object_get(obj, "sites");
		for (int s = 0; s < file_sites(r, i, f) && !rc; s++) {
			size_t in_sites = enter_key(r, "sites");
			enter_index(r, (size_t)s);
			const jv *site = jv_array_get(sites, (size_t)s);
			checked_site check;
			if (jv_is_null(site))
				rc = map_places(r, slot_site(r, i, s, f, &check));
			else
				rc = read_slot_targets(r, i, s, f, site);
			leave(r, in_sites);
		}
		leave(r, saved);
	}
	return rc;
}

/* Function i of the list, all but its sites' targets. */
static int read_function_at(reader *r, const jv *arr, size_t i)
{
	size_t saved = enter_key(r, "functions");
	enter_index(r, i);
	jv *obj;
	int rc = get_element_object(r, arr, i, &obj);
	r->place = i;
	if (!rc)
		rc = read_function(r, obj, cgm_model_add_function(r->model));
	leave(r, saved);
	return rc;
}

static int read_functions(reader *r, const jv *doc)
{
	jv *arr;
	TRY(get_array(r, doc, "functions", REQUIRED, false, &arr));
	size_t n = jv_array_size(arr);
	for (size_t i = 0; i < n; i++)
		TRY(read_function_at(r, arr, i));
	/* Sorts the functions and builds the id lookup the rest needs. */
	cgm_model_index(r->model);
	return read_functions_targets(r, arr, n);
}

static int read_edge(reader *r, const jv *obj)
{
	cgm_edge e = { 0 };
	cgm_edge_rare x = { 0 };
	const char *via;
	bool is_static, observed;
	jv *lines;
	TRY(find_function(r, obj, "from", &e.from));
	TRY(find_function(r, obj, "to", &e.to));
	TRY(get_string(r, obj, "via", OPTIONAL, &via));
	if (!via) /* absent: a call (format 2 leaves it out) */
		e.via = CGM_VIA_CALL;
	else if (cgm_via_parse(&e.via, via) != 0)
		return bad(r, "via", "unknown edge kind \"%s\"", via);
	TRY(get_string(r, obj, "object", OPTIONAL, &e.object));
	TRY(get_bool(r, obj, "static", &is_static));
	TRY(get_bool(r, obj, "observed", &observed));
	if (!is_static && !observed)
		return bad(r, NULL, "edge is neither static nor observed");
	e.provenance = (is_static ? CGM_EDGE_STATIC : 0) | (observed ? CGM_EDGE_OBSERVED : 0);
	TRY(get_bool(r, obj, "ambiguous", &e.ambiguous));
	TRY(get_string(r, obj, "declared", OPTIONAL, &x.declared));
	if (x.declared) {
		if (!is_static)
			return bad(r, "declared", "is on an edge that is not static");
		e.provenance |= CGM_EDGE_DECLARED;
	}
	TRY(get_bool(r, obj, "earlier_body", &x.earlier_body));
	TRY(get_string_array(r, obj, "caller_bodies", false, false, &x.caller_bodies,
			     &x.ncaller_bodies));
	for (int i = 0; i < x.ncaller_bodies; i++)
		if (!cgm_body_version_valid(x.caller_bodies[i]) ||
		    (i > 0 && strcmp(x.caller_bodies[i - 1], x.caller_bodies[i]) >= 0))
			return bad(r, "caller_bodies", "item %d is not a body version (16 hex digits) "
				   "in sorted order", i);
	TRY(get_array(r, obj, "lines", OPTIONAL, false, &lines));
	e.nlines = lines ? (int)jv_array_size(lines) : 0;
	e.lines = cgm_arena_alloc(r->model->arena, sizeof(int) * (size_t)(e.nlines + 1));
	for (int i = 0; i < e.nlines; i++) {
		const jv *v = jv_array_get(lines, (size_t)i);
		if (!jv_is_integer(v) || jv_integer_value(v) < 0 || jv_integer_value(v) > INT32_MAX)
			return bad(r, "lines", "item %d is %s, expected a line number", i, type_name(v));
		e.lines[i] = (int)jv_integer_value(v);
	}
	TRY(get_stats(r, obj, "runtime", &x.runtime));
	if (x.declared || x.earlier_body || x.ncaller_bodies || stats_nonzero(&x.runtime))
		*cgm_edge_rare_of(r->model->arena, &e) = x;
	*cgm_model_add_edge(r->model) = e;
	return 0;
}

static int read_trigger(reader *r, const jv *obj)
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
	TRY(get_string_array(r, obj, "columns", false, false, &t.columns, &t.ncolumns));
	*cgm_model_add_trigger(r->model) = t;
	return 0;
}

static int read_effect(reader *r, const jv *obj, const char *schema, const char *relation)
{
	cgm_effect e = { 0 };
	const char *reach = NULL, *via = NULL;
	e.schema = schema;
	e.relation = relation;
	TRY(get_string(r, obj, "reach", OPTIONAL, &reach));
	TRY(get_string(r, obj, "via", REQUIRED, &via));
	if (cgm_via_parse(&e.via, via) != 0)
		return bad(r, "via", "unknown edge kind \"%s\"", via);
	e.reach = CGM_REACH_FUNCTION;
	if (reach) {
		int k = 0;
		while (k < 5 && strcmp(reach_names[k], reach) != 0)
			k++;
		if (k == 5)
			return bad(r, "reach", "unknown reach \"%s\" (expected function, view, "
					       "partition, cascade or rule)",
				   reach);
		e.reach = (cgm_reach)k;
	}
	TRY(get_string(r, obj, "object", OPTIONAL, &e.object));
	TRY(get_events(r, obj, "events", &e.events));
	TRY(get_string_array(r, obj, "columns", false, false, &e.columns, &e.ncolumns));
	TRY(get_string(r, obj, "function", OPTIONAL, &e.function_id));
	e.function = e.function_id ? cgm_model_find(r->model, e.function_id) : -1;
	TRY(get_string(r, obj, "note", OPTIONAL, &e.note));
	TRY(get_bool(r, obj, "instead", &e.instead));
	if (e.instead && e.reach != CGM_REACH_RULE)
		return bad(r, "instead", "is true for a %s effect (only a rule replaces a statement)",
			   reach ? reach : "function");
	const jv *target = jv_object_get(obj, "target");
	if (target && !jv_is_null(target)) {
		if (!jv_is_object(target))
			return bad(r, "target", "is %s, expected an object", type_name(target));
		size_t saved = enter_key(r, "target");
		int rc = get_string(r, target, "schema", REQUIRED, &e.target_schema);
		if (!rc)
			rc = get_string(r, target, "name", REQUIRED, &e.target_relation);
		if (!rc)
			rc = get_events(r, target, "events", &e.target_events);
		if (!rc)
			rc = get_string_array(r, target, "columns", false, false, &e.target_columns,
					      &e.ntarget_columns);
		if (!rc)
			rc = get_bool(r, target, "defaults", &e.target_defaults);
		int nby = 0;
		if (!rc)
			rc = get_string_array(r, target, "reads", false, true, &e.reads, &e.nreads);
		if (!rc)
			rc = get_string_array(r, target, "read_by", false, true, &e.read_by, &nby);
		if (!rc && (!e.reads != !e.read_by || nby != e.nreads))
			rc = bad(r, "read_by", "has %d entries for %d reads", nby, e.nreads);
		leave(r, saved);
		if (rc)
			return rc;
	}
	/* DO INSTEAD NOTHING is the one effect that reaches no relation. */
	if (e.reach != CGM_REACH_FUNCTION && !e.target_relation && !e.instead)
		return bad(r, "target", "is missing (a %s effect reaches a relation)", reach);
	*cgm_model_add_effect(r->model) = e;
	return 0;
}

static int read_relation(reader *r, const jv *obj)
{
	const char *schema, *name, *kind;
	TRY(get_string(r, obj, "schema", REQUIRED, &schema));
	TRY(get_string(r, obj, "name", REQUIRED, &name));
	TRY(get_string(r, obj, "kind", OPTIONAL, &kind));
	cgm_relation *rel = cgm_model_add_relation(r->model);
	rel->schema = schema;
	rel->name = name;
	rel->relkind = relkind_parse(kind);
	jv *effects;
	TRY(get_array(r, obj, "effects", OPTIONAL, false, &effects));
	size_t n = effects ? jv_array_size(effects) : 0;
	for (size_t i = 0; i < n; i++) {
		size_t saved = enter_key(r, "effects");
		enter_index(r, i);
		jv *e;
		int rc = get_element_object(r, effects, i, &e);
		if (!rc)
			rc = read_effect(r, e, schema, name);
		leave(r, saved);
		if (rc)
			return rc;
	}
	return 0;
}

static int read_event_trigger(reader *r, const jv *obj)
{
	cgm_event_trigger et = { 0 };
	TRY(get_string(r, obj, "name", REQUIRED, &et.name));
	TRY(get_string(r, obj, "event", REQUIRED, &et.event));
	TRY(get_string_array(r, obj, "tags", false, false, &et.tags, &et.ntags));
	TRY(get_bool(r, obj, "enabled", &et.enabled));
	TRY(get_string(r, obj, "function", OPTIONAL, &et.function_id));
	et.function = et.function_id ? cgm_model_find(r->model, et.function_id) : -1;
	*cgm_model_add_event_trigger(r->model) = et;
	return 0;
}

static int read_aggregate(reader *r, const jv *obj)
{
	cgm_aggregate agg = { 0 };
	const char **roles = NULL;
	int nroles = 0;
	TRY(get_string(r, obj, "aggregate", REQUIRED, &agg.aggregate_id));
	TRY(get_string_array(r, obj, "support", false, false, &agg.support_ids, &agg.nsupport));
	TRY(get_string_array(r, obj, "roles", false, false, &roles, &nroles));
	if (nroles != agg.nsupport)
		return bad(r, "roles", "has %d entries, expected %d (one per support function)", nroles,
			   agg.nsupport);
	agg.support_roles = roles;
	agg.aggregate = cgm_model_find(r->model, agg.aggregate_id);
	agg.support = cgm_arena_alloc(r->model->arena, sizeof(int) * (size_t)(agg.nsupport + 1));
	for (int k = 0; k < agg.nsupport; k++)
		agg.support[k] = cgm_model_find(r->model, agg.support_ids[k]);
	*cgm_model_add_aggregate(r->model) = agg;
	return 0;
}

static int read_reference(reader *r, const jv *obj)
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

static int get_int64(reader *r, const jv *obj, const char *key, int64_t min, int64_t *out)
{
	const jv *v = jv_object_get(obj, key);
	if (!v || jv_is_null(v))
		return 0;
	if (!jv_is_integer(v))
		return bad(r, key, "is %s, expected an integer", type_name(v));
	long long n = jv_integer_value(v);
	if (n < min)
		return bad(r, key, "is %lld, out of range", n);
	*out = n;
	return 0;
}

/* runtime.evidence: optional (snapshots before it have none: then the
 * window is unknown and nothing is enough for dead). */
static int read_evidence(reader *r, const jv *runtime, cgm_evidence *ev)
{
	const jv *obj = jv_object_get(runtime, "evidence");
	if (!obj || jv_is_null(obj))
		return 0;
	if (!jv_is_object(obj))
		return bad(r, "evidence", "is %s, expected an object", type_name(obj));
	size_t saved = enter_key(r, "evidence");
	int rc = get_string(r, obj, "since", OPTIONAL, &ev->since);
	if (!rc)
		rc = get_string(r, obj, "until", OPTIONAL, &ev->until);
	if (!rc)
		rc = get_int64(r, obj, "window_seconds", -1, &ev->window_seconds);
	if (!rc)
		rc = get_string_array(r, obj, "servers", true, false, &ev->servers, &ev->nservers);
	if (!rc)
		rc = get_string_array(r, obj, "databases", true, false, &ev->databases,
				      &ev->ndatabases);
	if (!rc)
		rc = get_int64(r, obj, "calls", 0, &ev->calls);
	if (!rc)
		rc = get_string(r, obj, "trace_track", OPTIONAL, &ev->trace_track);
	if (!rc)
		rc = get_string(r, obj, "track_functions", OPTIONAL, &ev->track_functions);
	if (!rc)
		rc = get_int64(r, obj, "min_window_seconds", 0, &ev->min_window_seconds);
	if (!rc)
		rc = get_int64(r, obj, "min_calls", 0, &ev->min_calls);
	if (!rc) /* snapshots before it knew of none */
		rc = get_int64(r, obj, "lost_records", 0, &ev->lost_records);
	if (!rc)
		rc = get_int64(r, obj, "lost_to_full_table", 0, &ev->lost_to_full_table);
	if (!rc)
		rc = get_bool(r, obj, "enough", &ev->enough);
	leave(r, saved);
	return rc;
}

/* A time of runtime.paths and timeline: a number from 0 to the limit. */
static int get_time(reader *r, const jv *obj, const char *key, double *out)
{
	const jv *v = jv_object_get(obj, key);
	*out = 0;
	if (!v)
		return 0;
	if (!jv_is_number(v))
		return bad(r, key, "is %s, expected a number", type_name(v));
	if (!cgm_stats_time_valid(jv_number_value(v)))
		return bad(r, key, "is %g, expected milliseconds from 0 to %.0f", jv_number_value(v),
			   CGM_STATS_MAX_MS);
	*out = jv_number_value(v);
	return 0;
}

/* The most frames of a path, edges of a shape (cgmap_trace keeps 32, 64). */
#define SNAPSHOT_PATH_MAX_FRAMES 1000
#define SNAPSHOT_SHAPE_MAX_EDGES 100000

static int read_path(reader *r, const jv *obj, cgm_call_path *p)
{
	const char **frames;
	int n;
	jv *lines;
	TRY(get_string_array(r, obj, "frames", false, false, &frames, &n));
	if (n < 1 || n > SNAPSHOT_PATH_MAX_FRAMES)
		return bad(r, "frames", "has %d frames, expected 1 to %d", n,
			   SNAPSHOT_PATH_MAX_FRAMES);
	TRY(get_array(r, obj, "lines", REQUIRED, false, &lines));
	if (jv_array_size(lines) != (size_t)n)
		return bad(r, "lines", "has %zu lines for %d frames", jv_array_size(lines), n);
	p->nframes = n;
	p->frames = frames;
	p->lines = cgm_arena_alloc(r->model->arena, sizeof(int) * (size_t)n);
	for (int i = 0; i < n; i++) {
		const jv *v = jv_array_get(lines, (size_t)i);
		if (!jv_is_integer(v) || jv_integer_value(v) < 0 || jv_integer_value(v) > INT32_MAX)
			return bad(r, "lines", "item %d is not a line number", i);
		p->lines[i] = (int)jv_integer_value(v);
	}
	TRY(get_stats(r, obj, "runtime", &p->stats));
	TRY(get_time(r, obj, "min_ms", &p->min_ms));
	return get_time(r, obj, "max_ms", &p->max_ms);
}

static int read_shape(reader *r, const jv *obj, cgm_call_shape *sh)
{
	jv *edges;
	int64_t calls;
	TRY(get_string(r, obj, "entry", REQUIRED, &sh->entry));
	TRY(get_int64(r, obj, "calls", 0, &calls));
	sh->calls = calls;
	TRY(get_array(r, obj, "edges", REQUIRED, false, &edges));
	size_t n = jv_array_size(edges);
	if (n > SNAPSHOT_SHAPE_MAX_EDGES)
		return bad(r, "edges", "has %zu edges, expected at most %d", n,
			   SNAPSHOT_SHAPE_MAX_EDGES);
	sh->nedges = (int)n;
	sh->edges = cgm_arena_alloc(r->model->arena, sizeof(cgm_shape_edge) * (n ? n : 1));
	for (size_t i = 0; i < n; i++) {
		size_t saved = enter_key(r, "edges");
		enter_index(r, i);
		jv *e;
		int rc = get_element_object(r, edges, i, &e);
		if (!rc)
			rc = get_string(r, e, "caller", REQUIRED, &sh->edges[i].caller);
		if (!rc)
			rc = get_string(r, e, "callee", REQUIRED, &sh->edges[i].callee);
		if (!rc)
			rc = get_int(r, e, "site_line", REQUIRED, 0, &sh->edges[i].site_line);
		if (!rc)
			rc = get_bool(r, e, "dynamic", &sh->edges[i].dynamic);
		leave(r, saved);
		if (rc)
			return rc;
	}
	return 0;
}

static int read_bucket(reader *r, const jv *obj, cgm_time_bucket *b)
{
	int64_t calls;
	TRY(get_string(r, obj, "function", REQUIRED, &b->function));
	TRY(get_string(r, obj, "start", REQUIRED, &b->start));
	TRY(get_int64(r, obj, "calls", 0, &calls));
	b->calls = calls;
	return get_time(r, obj, "self_ms", &b->self_ms);
}

/* runtime.paths, shapes, timeline: optional (absent before cgmap_trace 1.3). */
static int read_runtime_paths(reader *r, const jv *runtime)
{
	cgm_model *m = r->model;
	static const char *const keys[] = { "paths", "shapes", "timeline" };
	for (int k = 0; k < 3; k++) {
		jv *arr;
		TRY(get_array(r, runtime, keys[k], OPTIONAL, false, &arr));
		size_t n = arr ? jv_array_size(arr) : 0;
		if (!n)
			continue;
		if (k == 0)
			m->paths = cgm_arena_alloc(m->arena, sizeof(*m->paths) * n);
		else if (k == 1)
			m->shapes = cgm_arena_alloc(m->arena, sizeof(*m->shapes) * n);
		else
			m->buckets = cgm_arena_alloc(m->arena, sizeof(*m->buckets) * n);
		for (size_t i = 0; i < n; i++) {
			size_t saved = enter_key(r, keys[k]);
			enter_index(r, i);
			jv *obj;
			int rc = get_element_object(r, arr, i, &obj);
			if (!rc && k == 0) {
				memset(&m->paths[i], 0, sizeof(m->paths[i]));
				rc = read_path(r, obj, &m->paths[i]);
			} else if (!rc && k == 1) {
				memset(&m->shapes[i], 0, sizeof(m->shapes[i]));
				rc = read_shape(r, obj, &m->shapes[i]);
			} else if (!rc) {
				memset(&m->buckets[i], 0, sizeof(m->buckets[i]));
				rc = read_bucket(r, obj, &m->buckets[i]);
			}
			leave(r, saved);
			if (rc)
				return rc;
			if (k == 0)
				m->npaths = (int)i + 1;
			else if (k == 1)
				m->nshapes = (int)i + 1;
			else
				m->nbuckets = (int)i + 1;
		}
	}
	return 0;
}

static int read_diagnostic(reader *r, const jv *obj)
{
	cgm_diagnostic d = { 0 };
	TRY(get_string(r, obj, "file", OPTIONAL, &d.file));
	TRY(get_int(r, obj, "line", OPTIONAL, 0, &d.line));
	TRY(get_string(r, obj, "message", REQUIRED, &d.message));
	TRY(get_bool(r, obj, "detail", &d.detail));
	*cgm_model_add_diagnostic(r->model) = d;
	return 0;
}

/* Each element of the array at key, an object, read by fn. */
static int read_list(reader *r, const jv *doc, const char *key,
		     int (*fn)(reader *, const jv *))
{
	jv *arr;
	TRY(get_array(r, doc, key, OPTIONAL, false, &arr));
	size_t n = arr ? jv_array_size(arr) : 0;
	for (size_t i = 0; i < n; i++) {
		size_t saved = enter_key(r, key);
		enter_index(r, i);
		jv *obj;
		int rc = get_element_object(r, arr, i, &obj);
		if (!rc)
			rc = fn(r, obj);
		leave(r, saved);
		if (rc)
			return rc;
	}
	return 0;
}

static int read_object(reader *r, const jv *doc, const char *key, bool nullable,
		       const jv **out)
{
	*out = jv_object_get(doc, key);
	if (!*out || (nullable && jv_is_null(*out))) {
		*out = NULL;
		return 0;
	}
	if (!jv_is_object(*out))
		return bad(r, key, "is %s, expected an object", type_name(*out));
	return 0;
}

static int read_header(reader *r, const jv *doc)
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
	const jv *obj;
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
		if (!rc)
			rc = get_bool(r, obj, "search_path_given", &m->source.search_path_given);
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
		const char *role = NULL;
		if (!rc)
			rc = get_string(r, obj, "replication_role", OPTIONAL, &role);
		m->replica_session = role && strcmp(role, "replica") == 0;
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
		if (!rc)
			rc = get_bool(r, obj, "site_runs", &m->has_site_runs);
		if (!rc)
			rc = read_evidence(r, obj, &m->evidence);
		if (!rc)
			rc = read_runtime_paths(r, obj);
		leave(r, saved);
		if (rc)
			return rc;
	}
	return 0;
}

/* The identity of an edge (docs/snapshot.md): one edge per key. */
static int edge_key_cmp(const cgm_edge *x, const cgm_edge *y)
{
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return cgm_edge_compare_kind(x, y);
}

static int compare_edge_keys(const void *a, const void *b, void *arg)
{
	const cgm_edge *edges = arg;
	int ia = *(const int *)a, ib = *(const int *)b;
	int c = edge_key_cmp(&edges[ia], &edges[ib]);
	return c ? c : ia - ib;
}

/* An edge is one per (from, to, via, object) (docs/snapshot.md): a second one would
 * be listed and counted twice.  The error names the first repeat in file
 * order and the edge it repeats. */
static int check_duplicate_edges(reader *r)
{
	cgm_model *m = r->model;
	int n = m->nedges;
	if (n < 2)
		return 0;
	/* Listed in key order already (as cgmap writes them, when no
	 * builtin's id sorts before a mapped one's): a repeat stands right
	 * after what it repeats, and the first such pair is the one named. */
	bool in_order = true;
	int repeat = -1, first = -1;
	for (int k = 1; k < n && in_order; k++) {
		int c = edge_key_cmp(&m->edges[k - 1], &m->edges[k]);
		in_order = c <= 0;
		if (c == 0 && repeat < 0) {
			repeat = k;
			first = k - 1;
		}
	}
	if (in_order)
		goto found;
	repeat = first = -1;
	int *order = cgm_xcalloc((size_t)n, sizeof(int));
	for (int i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, (size_t)n, sizeof(int), compare_edge_keys, m->edges);
	/* Equal keys stand together, in file order: in each group the second
	 * repeats the first. */
	for (int k = 1; k < n; k++) {
		const cgm_edge *x = &m->edges[order[k - 1]], *y = &m->edges[order[k]];
		bool group_start = k == 1 || edge_key_cmp(&m->edges[order[k - 2]], x) != 0;
		if (group_start && edge_key_cmp(x, y) == 0 && (repeat < 0 || order[k] < repeat)) {
			repeat = order[k];
			first = order[k - 1];
		}
	}
	free(order);
found:
	if (repeat < 0)
		return 0;
	const cgm_edge *e = &m->edges[repeat];
	size_t saved = enter_key(r, "edges");
	enter_index(r, (size_t)repeat);
	int rc = bad(r, NULL, "duplicate edge \"%s\" -> \"%s\" via %s%s%s%s (as edges[%d])",
		     m->functions[e->from].id, m->functions[e->to].id, cgm_via_name(e->via),
		     e->object ? " \"" : "", e->object ? e->object : "", e->object ? "\"" : "", first);
	leave(r, saved);
	return rc;
}

static int read_document(reader *r, const jv *doc)
{
	if (!jv_is_object(doc))
		return bad(r, NULL, "is %s, expected an object", type_name(doc));
	TRY(read_header(r, doc));
	TRY(read_functions(r, doc));
	TRY(read_list(r, doc, "edges", read_edge));
	TRY(check_duplicate_edges(r));
	TRY(read_list(r, doc, "triggers", read_trigger));
	TRY(read_list(r, doc, "references", read_reference));
	TRY(read_list(r, doc, "relations", read_relation));
	TRY(read_list(r, doc, "event_triggers", read_event_trigger));
	TRY(read_list(r, doc, "aggregates", read_aggregate));
	TRY(read_list(r, doc, "diagnostics", read_diagnostic));
	/* summary, dynamic_sites, missing, parse_errors: derived, not read. */
	return 0;
}

/* Reading while parsing: each function is read as soon as it is parsed,
 * then its tree is dropped, keeping only what the second pass needs (its
 * id and its sites' targets); the edges likewise, once the functions are
 * indexed.  The document's tree then holds the small lists only: on a
 * 10,000-function snapshot that is a fifth of the memory, and of the time
 * spent having the kernel hand it out.  Any problem at all (a syntax
 * error, a bad value, a list in an order this does not take) stops it; the
 * caller then reads the file whole (read_document), which tells what is
 * wrong as it always did. */
typedef struct stream_reader {
	reader *r;
	cgm_arena *keep;        /* the skeleton of each function, for the second pass */
	cgm_intern *names;      /* its strings, in keep */
	uint64_t file_len;      /* the text's length, bounding the summary's counts */
	cgm_textwin *window;    /* the text's window */
	jv *skeleton;           /* per function: {"id", "sites": [{"effects", "targets"}]} */
	size_t nskeleton, skeleton_cap;
	bool functions_seen, functions_done, edges_seen;
} stream_reader;

/* A copy of v in arena, its keys and strings too (kept once each in
 * names): the file's buffer behind the element is given back once it is
 * read (jv_parse_stream). */
static void jv_copy(cgm_arena *arena, cgm_intern *names, jv *out, const jv *v)
{
	*out = *v;
	out->hint = 0;
	out->keys = 0;
	if (v->type == JV_STRING) {
		out->u.string = cgm_intern_strn(names, v->u.string, v->n);
	} else if (v->type == JV_OBJECT) {
		out->u.members = cgm_arena_alloc(arena, sizeof(jv_member) * (v->n ? v->n : 1));
		for (unsigned i = 0; i < v->n; i++) {
			out->u.members[i].key = cgm_intern_str(names, v->u.members[i].key);
			jv_copy(arena, names, &out->u.members[i].value, &v->u.members[i].value);
		}
	} else if (v->type == JV_ARRAY) {
		out->u.items = cgm_arena_alloc(arena, sizeof(jv) * (v->n ? v->n : 1));
		for (unsigned i = 0; i < v->n; i++)
			jv_copy(arena, names, &out->u.items[i], &v->u.items[i]);
	}
}

/* An object of the members of v named in keys (NULL-terminated), copied. */
static void jv_copy_members(cgm_arena *arena, cgm_intern *names, jv *out, const jv *v,
			    const char *const *keys)
{
	memset(out, 0, sizeof(*out));
	out->type = JV_OBJECT;
	size_t n = 0;
	while (keys[n])
		n++;
	out->u.members = cgm_arena_alloc(arena, sizeof(jv_member) * n);
	for (size_t k = 0; k < n; k++) {
		const jv *value = jv_object_get(v, keys[k]);
		if (value) {
			out->u.members[out->n].key = keys[k];
			jv_copy(arena, names, &out->u.members[out->n++].value, value);
		}
	}
}

/* Room for the functions and edges the summary counts, so the lists are
 * not grown by doubling (each copy left behind in the model's arena).  The
 * summary is only a hint, never trusted: a count is taken up to what the
 * file's size could hold (a function or an edge takes more than 16 bytes of
 * text), and a list longer than its count still grows. */
static void reserve_from_summary(stream_reader *sr, const jv_member *seen, size_t n)
{
	const jv *summary = NULL;
	for (size_t i = 0; i < n; i++)
		if (strcmp(seen[i].key, "summary") == 0)
			summary = &seen[i].value;
	if (!summary || !jv_is_object(summary))
		return;
	cgm_model *m = sr->r->model;
	long long most = (long long)(sr->file_len / 16);
	const jv *functions = jv_object_get(summary, "functions");
	const jv *edges = jv_object_get(summary, "edges");
	if (functions && jv_is_integer(functions) && m->cap_functions == 0) {
		long long want = jv_integer_value(functions) + 64; /* builtins too */
		if (want > 64 && want <= most && want < INT_MAX) {
			m->functions = cgm_arena_alloc(m->arena, sizeof(cgm_function) * (size_t)want);
			m->cap_functions = (int)want;
		}
	}
	if (edges && jv_is_integer(edges) && m->cap_edges == 0) {
		long long want = jv_integer_value(edges);
		if (want > 64 && want <= most && want < INT_MAX) {
			m->edges = cgm_arena_alloc(m->arena, sizeof(cgm_edge) * (size_t)want);
			m->cap_edges = (int)want;
		}
	}
}

static bool stream_want(void *ctx, const char *key, const jv_member *seen, size_t n)
{
	stream_reader *sr = ctx;
	if (strcmp(key, "functions") == 0 && !sr->functions_seen) {
		reserve_from_summary(sr, seen, n);
		return sr->functions_seen = true;
	}
	if (strcmp(key, "edges") == 0 && sr->functions_done && !sr->edges_seen)
		return sr->edges_seen = true;
	return false;
}

/* The lists that follow from the functions and edges (docs/snapshot.md):
 * never read, so never kept. */
static bool stream_ignored(void *ctx, const char *key)
{
	(void)ctx;
	return strcmp(key, "dynamic_sites") == 0 || strcmp(key, "missing") == 0 ||
	       strcmp(key, "parse_errors") == 0;
}

static int stream_element(void *ctx, const char *key, size_t index, const jv *value)
{
	stream_reader *sr = ctx;
	reader *r = sr->r;
	/* Where the window stands now (f->source_at counts from the text's start). */
	r->text = sr->window->buf;
	r->text_base = sr->window->base;
	/* A list of one element: the reader's path and checks, unchanged. */
	jv list = { .type = JV_ARRAY, .n = 1, .u.items = (jv *)value };
	if (key[0] == 'e') {
		size_t saved = enter_key(r, "edges");
		enter_index(r, index);
		jv *obj;
		int rc = get_element_object(r, &list, 0, &obj);
		if (!rc)
			rc = read_edge(r, obj);
		leave(r, saved);
		return rc;
	}
	size_t saved = enter_key(r, "functions");
	enter_index(r, index);
	jv *obj;
	int rc = get_element_object(r, &list, 0, &obj);
	r->place = index;
	if (!rc)
		rc = read_function(r, obj, cgm_model_add_function(r->model));
	leave(r, saved);
	if (rc)
		return rc;
	static const char *const function_keys[] = { "id", NULL };
	static const char *const site_keys[] = { "effects", "targets", NULL };
	sr->skeleton = jv_grow(sr->skeleton, &sr->skeleton_cap, sr->nskeleton + 1, sizeof(jv));
	jv *skel = &sr->skeleton[sr->nskeleton++];
	jv_copy_members(sr->keep, sr->names, skel, obj, function_keys);
	const jv *sites = jv_object_get(obj, "sites");
	if (jv_is_array(sites)) {
		/* {"id", "sites"}: room was made for one member, add the second. */
		jv_member *members = cgm_arena_alloc(sr->keep, sizeof(jv_member) * 2);
		memcpy(members, skel->u.members, sizeof(jv_member) * skel->n);
		members[skel->n].key = "sites";
		jv *copy = &members[skel->n].value;
		copy->type = JV_ARRAY;
		copy->n = sites->n;
		copy->u.items = cgm_arena_alloc(sr->keep, sizeof(jv) * (sites->n ? sites->n : 1));
		cgm_function *f = &r->model->functions[r->model->nfunctions - 1];
		for (unsigned s = 0; s < sites->n; s++) {
			const jv *site = &sites->u.items[s];
			if ((int)s < file_sites(r, index, f) && refs_by_place(site)) {
				/* Format 2: read now, the places mapped later
				 * (map_places); the skeleton keeps a null. */
				size_t in_fn = enter_key(r, "functions");
				enter_index(r, index);
				enter_key(r, "sites");
				enter_index(r, s);
				r->raw_places = true;
				rc = read_slot_targets(r, index, (int)s, f, site);
				r->raw_places = false;
				/* Kept as -(place + 1): cgm_model_index, which maps
				 * the model's indexes when it sorts the functions,
				 * leaves negative ones alone. */
				checked_site check;
				cgm_site *read = rc ? NULL : slot_site(r, index, (int)s, f, &check);
				for (int t = 0; read && t < read->ntargets; t++)
					read->targets[t] = -read->targets[t] - 1;
				leave(r, in_fn);
				if (rc)
					return rc;
				memset(&copy->u.items[s], 0, sizeof(jv));
				copy->u.items[s].type = JV_NULL;
			} else {
				jv_copy_members(sr->keep, sr->names, &copy->u.items[s], site, site_keys);
			}
		}
		skel->u.members = members;
		skel->n++;
	}
	return 0;
}

static int stream_done(void *ctx, const char *key, size_t count)
{
	stream_reader *sr = ctx;
	if (key[0] == 'e')
		return 0;
	cgm_model_index(sr->r->model);
	jv arr = { .type = JV_ARRAY, .n = (unsigned)count, .u.items = sr->skeleton };
	TRY(read_functions_targets(sr->r, &arr, count));
	sr->functions_done = true;
	return 0;
}

/* The model of the text in the window, read while it is parsed; nonzero
 * when anything stopped it (the caller reads the file again the usual
 * way). */
static int read_streaming(reader *r, cgm_textwin *window)
{
	/* The summary's counts bounded by the text's size: a file's, or up
	 * to what gzip's deflate could have made of it (1032 to 1). */
	uint64_t most_text = window->size_hint;
	if (window->gzip)
		most_text = most_text > UINT64_MAX / 1032 ? UINT64_MAX : most_text * 1032;
	stream_reader sr = { .r = r, .keep = cgm_arena_new(), .file_len = most_text, .window = window };
	sr.names = cgm_intern_new(sr.keep);
	jv_stream st = { stream_want, stream_ignored, stream_element, stream_done, &sr };
	cgm_arena *tree = cgm_arena_new();
	jv doc;
	r->pathless = true;
	int rc = jv_parse_stream(&doc, window, tree, &st);
	if (rc == 0 && !sr.functions_done)
		rc = -1; /* no "functions": read_document names what is missing */
	if (rc == 0)
		rc = read_header(r, &doc);
	if (rc == 0 && !sr.edges_seen)
		rc = read_list(r, &doc, "edges", read_edge);
	if (rc == 0)
		rc = check_duplicate_edges(r);
	if (rc == 0)
		rc = read_list(r, &doc, "triggers", read_trigger);
	if (rc == 0)
		rc = read_list(r, &doc, "references", read_reference);
	if (rc == 0)
		rc = read_list(r, &doc, "relations", read_relation);
	if (rc == 0)
		rc = read_list(r, &doc, "event_triggers", read_event_trigger);
	if (rc == 0)
		rc = read_list(r, &doc, "aggregates", read_aggregate);
	if (rc == 0)
		rc = read_list(r, &doc, "diagnostics", read_diagnostic);
	r->pathless = false;
	free(sr.skeleton);
	cgm_intern_free(sr.names);
	cgm_arena_free(sr.keep);
	cgm_arena_free(tree);
	return rc;
}

/* Zeroed bytes after the file's text: a NUL, so that no scan runs off the
 * end. */
#define READ_PADDING 1

/* The text of the gzip file `file` (its bytes in gz, gzlen of them), with
 * READ_PADDING + 1 zero bytes after it, *len bytes before them; NULL with
 * the message set when the data is corrupt or cut short, or the text would
 * pass the input limit (--max-file-size): a small file that inflates to
 * gigabytes is refused when it passes the limit, not after.  Members one
 * after another (cat a.gz b.gz) are one text, as gzip -d reads them. */
static char *gunzip(const char *file, const char *gz, size_t gzlen, size_t *len)
{
	int64_t limit = cgm_infile_max_size();
	size_t cap = gzlen * 4 + 4096, used = 0;
	if (limit > 0 && cap > (uint64_t)limit + READ_PADDING + 2)
		cap = (size_t)limit + READ_PADDING + 2;
	char *out = malloc(cap);
	z_stream z = { 0 };
	if (!out || inflateInit2(&z, 15 + 16) != Z_OK) {
		free(out);
		cgm_error(CGM_EINPUT, "cannot read snapshot \"%s\": out of memory", file);
		return NULL;
	}
	z.next_in = (Bytef *)(uintptr_t)gz;
	const char *end = gz + gzlen;
	const char *problem = NULL;
	for (;;) {
		if (z.avail_in == 0 && (const char *)z.next_in < end) {
			size_t left = (size_t)(end - (const char *)z.next_in);
			z.avail_in = left > (1u << 30) ? (1u << 30) : (uInt)left;
		}
		/* Room for more text and the padding after it. */
		if (cap - used < READ_PADDING + 2 + 1) {
			if (limit > 0 && (int64_t)used >= limit) {
				problem = "limit";
				break;
			}
			size_t grown = cap * 2;
			if (limit > 0 && grown > (uint64_t)limit + READ_PADDING + 2)
				grown = (size_t)limit + READ_PADDING + 2;
			char *bigger = realloc(out, grown);
			if (!bigger) {
				problem = "out of memory";
				break;
			}
			out = bigger;
			cap = grown;
		}
		size_t room = cap - used - (READ_PADDING + 1);
		z.next_out = (Bytef *)out + used;
		z.avail_out = room > (1u << 30) ? (1u << 30) : (uInt)room;
		uInt before = z.avail_out;
		int zrc = inflate(&z, Z_NO_FLUSH);
		used += before - z.avail_out;
		if (limit > 0 && (int64_t)used > limit) {
			problem = "limit";
			break;
		}
		if (zrc == Z_STREAM_END) {
			/* Another member may follow; anything else after it is not gzip. */
			if ((const char *)z.next_in + z.avail_in >= end && z.avail_in == 0)
				break;
			if (inflateReset(&z) != Z_OK) {
				problem = "corrupt";
				break;
			}
			continue;
		}
		if (zrc == Z_DATA_ERROR || zrc == Z_NEED_DICT || zrc == Z_STREAM_ERROR ||
		    zrc == Z_MEM_ERROR) {
			problem = zrc == Z_MEM_ERROR ? "out of memory" : "corrupt";
			break;
		}
		if (zrc == Z_BUF_ERROR && z.avail_in == 0 && (const char *)z.next_in >= end &&
		    z.avail_out != 0) {
			problem = "truncated";
			break;
		}
	}
	const char *zmsg = z.msg;
	if (problem && strcmp(problem, "corrupt") == 0)
		cgm_error(CGM_EINPUT, "snapshot \"%s\": corrupt gzip data%s%s", file,
			  zmsg ? ": " : "", zmsg ? zmsg : "");
	else if (problem && strcmp(problem, "truncated") == 0)
		cgm_error(CGM_EINPUT, "snapshot \"%s\": the gzip data ends early (a truncated file)",
			  file);
	else if (problem && strcmp(problem, "limit") == 0)
		cgm_error(CGM_EINPUT, "snapshot \"%s\": uncompressed, it is larger than the %lld "
				      "bytes limit (--max-file-size)",
			  file, (long long)limit);
	else if (problem)
		cgm_error(CGM_EINPUT, "cannot read snapshot \"%s\": %s", file, problem);
	inflateEnd(&z);
	if (problem) {
		free(out);
		return NULL;
	}
	memset(out + used, 0, READ_PADDING + 1);
	*len = used;
	return out;
}

/* The whole file in memory with a NUL after it (*len bytes before it) and
 * READ_PADDING zero bytes; NULL with the message set when it cannot be
 * read (not a regular file, larger than --max-file-size: cgmap/infile.h). */
static char *read_whole_file(const char *file, size_t *len)
{
	char *buf;
	if (cgm_infile_read(&buf, len, file, "snapshot", CGM_EINPUT, false, READ_PADDING + 1) < 0)
		return NULL;
	/* gzip is told by its magic bytes, whatever the file is called. */
	if (*len >= 2 && (unsigned char)buf[0] == 0x1f && (unsigned char)buf[1] == 0x8b) {
		char *text = gunzip(file, buf, *len, len);
		free(buf);
		return text;
	}
	return buf;
}

/* The document tree of the file's bytes in *buf: the token path's, else
 * jansson's (then *jdoc holds the document its strings live in, and *buf
 * the file read again, the token path having decoded strings in place). */
static int parse_document(jv *doc, json_t **jdoc, char **buf, size_t *len, cgm_arena *tree,
			  const char *file)
{
	*jdoc = NULL;
	long deep_at = -1;
	int rc = jv_parse(doc, *buf, *len, tree, &deep_at);
	if (rc == 0)
		return 0;
	if (rc == -2) {
		int line = 1;
		long line_start = 0;
		for (long i = 0; i < deep_at; i++)
			if ((*buf)[i] == '\n')
				line++, line_start = i + 1;
		return cgm_error(CGM_EINPUT, "snapshot \"%s\": line %d column %ld: nesting deeper than %d levels",
				 file, line, deep_at - line_start + 1, JV_REFUSE_DEPTH);
	}
	free(*buf);
	*buf = read_whole_file(file, len);
	if (!*buf)
		return CGM_EINPUT;
	json_error_t jerr;
	*jdoc = json_loadb(*buf, *len, JSON_REJECT_DUPLICATES, &jerr);
	if (!*jdoc) {
		if (jerr.line > 0)
			return cgm_error(CGM_EINPUT, "snapshot \"%s\": line %d column %d: %s", file,
					 jerr.line, jerr.column, jerr.text);
		return cgm_error(CGM_EINPUT, "cannot read snapshot \"%s\": %s", file, jerr.text);
	}
	jv_from_json(doc, *jdoc, tree);
	return 0;
}

/* The slots of CGM_SNAPSHOT_READ_DIFF_SITES and their arenas, freed. */
static void free_slots(reader *r)
{
	free(r->slots);
	free(r->nslots);
	r->slots = NULL;
	r->nslots = NULL;
	r->slots_cap = 0;
	cgm_arena_free(r->site_scratch);
	cgm_arena_free(r->slot_keep);
	r->site_scratch = r->slot_keep = NULL;
}

static cgm_snapshot_file file_identity(const struct stat *st)
{
	return (cgm_snapshot_file){ true, (uint64_t)st->st_dev, (uint64_t)st->st_ino, (uint64_t)st->st_size,
				    (int64_t)st->st_mtim.tv_sec, (int64_t)st->st_mtim.tv_nsec };
}

int cgm_snapshot_read(cgm_model **out, const char *path)
{
	return cgm_snapshot_read_with(out, path, 0);
}

int cgm_snapshot_read_with(cgm_model **out, const char *path, unsigned flags)
{
	*out = NULL;
	if (flags & CGM_SNAPSHOT_READ_SOURCES_LATER)
		flags |= CGM_SNAPSHOT_READ_NO_SOURCES;
	char *file = snapshot_file(path, true, false);
	/* The file as it was before it was read: its bodies are read again
	 * from it only if it is still the same. */
	struct stat before;
	bool identified = (flags & CGM_SNAPSHOT_READ_SOURCES_LATER) && stat(file, &before) == 0;
	size_t len;
	char *buf = NULL;
	cgm_textwin window;
	reader r = { .file = file, .model = cgm_model_new(), .path = CGM_STRBUF_INIT, .flags = flags };
	r.names = cgm_intern_new(r.model->arena);
	int rc = cgm_textwin_open(&window, file);
	if (rc == 0)
		rc = read_streaming(&r, &window);
	cgm_textwin_close(&window);
	if (rc != 0) {
		/* Read again the usual way, which tells what is wrong (or takes
		 * what streaming does not: lists in another order).  Its
		 * strings may not stand in the file's text (jansson's): bodies
		 * asked for later are read now. */
		r.text = NULL;
		if (r.flags & CGM_SNAPSHOT_READ_SOURCES_LATER)
			r.flags &= ~(unsigned)(CGM_SNAPSHOT_READ_SOURCES_LATER | CGM_SNAPSHOT_READ_NO_SOURCES);
		cgm_intern_free(r.names);
		r.names = NULL;
		cgm_model_free(r.model);
		r.model = NULL;
		free_slots(&r);
		cgm_strbuf_reset(&r.path);
		buf = read_whole_file(file, &len);
		if (!buf) {
			cgm_strbuf_free(&r.path);
			free(r.by_place);
			free(file);
			return CGM_EINPUT;
		}
		cgm_arena *tree = cgm_arena_new();
		jv doc;
		json_t *jdoc;
		rc = parse_document(&doc, &jdoc, &buf, &len, tree, file);
		if (rc == 0) {
			r.model = cgm_model_new();
			r.names = cgm_intern_new(r.model->arena);
			rc = read_document(&r, &doc);
		}
		if (jdoc)
			json_decref(jdoc);
		cgm_arena_free(tree);
	}
	free(buf);
	cgm_strbuf_free(&r.path);
	free(r.by_place);
	free_slots(&r);
	if (r.names)
		cgm_intern_free(r.names);
	free(file);
	if (rc) {
		if (r.model)
			cgm_model_free(r.model);
		return rc;
	}
	if (!r.model->lookup) /* no functions at all: still indexed */
		cgm_model_index(r.model);
	if (identified && (r.flags & CGM_SNAPSHOT_READ_SOURCES_LATER))
		r.model->snapshot_file = file_identity(&before);
	*out = r.model;
	return 0;
}

/* ---- bodies read again (CGM_SNAPSHOT_READ_SOURCES_LATER) ---- */

typedef struct source_place {
	size_t at;
	int fn;
} source_place;

static int compare_places(const void *a, const void *b)
{
	const source_place *x = a, *y = b;
	return x->at != y->at ? (x->at < y->at ? -1 : 1) : x->fn - y->fn;
}

/* The file's text read again at increasing places: a buffer of it, so
 * that bodies close together are read from one inflated chunk and a gzip'd
 * file is never inflated again from its start (gzseek back to a place
 * already passed does that: one body after another, a render of a
 * 6,000-function gzip'd snapshot took a minute). */
typedef struct text_again {
	gzFile gz;
	uint64_t at;   /* the place of buf[0] in the text */
	size_t len;
	char buf[1 << 16];
} text_again;

/* The bytes of the text from `place` on that are in the buffer, after
 * reading them if need be: how many (0 at the end of the text or on an
 * error), *out pointing at them. */
static size_t text_again_at(text_again *t, uint64_t place, const char **out)
{
	if (place < t->at || place >= t->at + t->len) {
		/* Only a place before the buffer (a list not in order) makes
		 * zlib start over. */
		if (place != t->at + t->len && gzseek(t->gz, (z_off_t)place, SEEK_SET) != (z_off_t)place)
			return 0;
		int got = gzread(t->gz, t->buf, sizeof t->buf);
		t->at = place;
		t->len = got > 0 ? (size_t)got : 0;
	}
	*out = t->buf + (place - t->at);
	return t->len - (size_t)(place - t->at);
}

/* The JSON string whose text starts at `at` of the file's text (its quote
 * just before), decoded into *out (malloc'd); 0, or -1 when the bytes there
 * are not a string. */
static int string_at(text_again *t, size_t at, char **out)
{
	*out = NULL;
	if (at == 0)
		return -1;
	cgm_strbuf raw = CGM_STRBUF_INIT;
	uint64_t place = at - 1;
	bool escaped = false, closed = false;
	while (!closed) {
		const char *chunk;
		size_t got = text_again_at(t, place, &chunk);
		if (got == 0)
			break;
		size_t k = 0;
		if (raw.len == 0) {
			if (chunk[0] != '"')
				break;
			k = 1;
		}
		for (; k < got && !closed; k++) {
			if (!escaped && chunk[k] == '"')
				closed = true;
			escaped = !escaped && chunk[k] == '\\';
		}
		cgm_strbuf_add(&raw, chunk, k);
		place += k;
	}
	int rc = -1;
	if (closed) {
		/* The string alone, as the parser reads it: decoded in place. */
		char *text = (char *)cgm_strbuf_cstr(&raw);
		jv_parser ps = { .p = text, .end = text + raw.len, .start = text, .deep_at = -1 };
		const char *value;
		if (jv_string(&ps, &value, NULL) == 0 && ps.p == ps.end) {
			*out = strdup(value);
			rc = *out ? 0 : -1;
		}
	}
	cgm_strbuf_free(&raw);
	return rc;
}

static bool same_file(const cgm_snapshot_file *was, const struct stat *st)
{
	cgm_snapshot_file now = file_identity(st);
	return was->dev == now.dev && was->ino == now.ino && was->size == now.size &&
	       was->mtime_sec == now.mtime_sec && was->mtime_nsec == now.mtime_nsec;
}

int cgm_snapshot_read_sources(cgm_model *model, const char *path, const int *fns, int n)
{
	source_place *places = cgm_xcalloc((size_t)n + 1, sizeof(source_place));
	int nplaces = 0;
	for (int i = 0; i < n; i++) {
		if (fns[i] < 0 || fns[i] >= model->nfunctions)
			continue;
		const cgm_function *f = &model->functions[fns[i]];
		if (!f->source && f->source_at > 0)
			places[nplaces++] = (source_place){ f->source_at, fns[i] };
	}
	if (nplaces == 0) {
		free(places);
		return 0;
	}
	qsort(places, (size_t)nplaces, sizeof(source_place), compare_places);
	char *file = snapshot_file(path, true, false);
	int rc = 0;
	FILE *in = cgm_infile_open(file, "snapshot", CGM_EINPUT, &rc);
	gzFile gz = NULL;
	struct stat now;
	if (in && (!model->snapshot_file.known || fstat(fileno(in), &now) != 0 ||
		   !same_file(&model->snapshot_file, &now))) {
		rc = cgm_error(CGM_EINPUT, "snapshot \"%s\" is not the file read before (replaced or "
				       "changed since): its bodies cannot be read again",
			       file);
		fclose(in);
		in = NULL;
	}
	if (in) {
		int fd = dup(fileno(in));
		fclose(in);
		gz = fd >= 0 ? gzdopen(fd, "rb") : NULL;
		if (!gz) {
			if (fd >= 0)
				close(fd);
			rc = cgm_error(CGM_EINPUT, "cannot read snapshot \"%s\" again: %s", file,
				       strerror(errno ? errno : ENOMEM));
		}
	}
	/* Every body read first, then set: an error leaves the model as it was. */
	char **bodies = cgm_xcalloc((size_t)nplaces, sizeof(char *));
	text_again *again = gz ? cgm_xcalloc(1, sizeof(text_again)) : NULL;
	if (again)
		again->gz = gz;
	for (int i = 0; gz && rc == 0 && i < nplaces; i++) {
		const cgm_function *f = &model->functions[places[i].fn];
		if (i > 0 && places[i].at == places[i - 1].at) {
			bodies[i] = bodies[i - 1] ? strdup(bodies[i - 1]) : NULL;
			if (!bodies[i])
				rc = cgm_error(CGM_EINPUT, "cannot read snapshot \"%s\" again: out of memory", file);
		} else if (string_at(again, places[i].at, &bodies[i]) < 0) {
			rc = cgm_error(CGM_EINPUT, "snapshot \"%s\": the body of %s is no longer where it was "
					       "read (the file was replaced?)",
				       file, f->id);
		}
		if (rc == 0 && strlen(bodies[i]) != f->source_len)
			rc = cgm_error(CGM_EINPUT, "snapshot \"%s\": the body of %s read again is not the one "
					       "read before (the file was replaced?)",
				       file, f->id);
	}
	for (int i = 0; i < nplaces; i++) {
		if (rc == 0)
			model->functions[places[i].fn].source = cgm_arena_strdup(model->arena, bodies[i]);
		free(bodies[i]);
	}
	free(bodies);
	free(again);
	if (gz)
		gzclose(gz);
	free(places);
	free(file);
	return rc;
}
