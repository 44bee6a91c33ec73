/*
 * html_internal.h - what the parts of the HTML site emitter share
 * (emit_html.c drives; html_page.c, html_graph.c, html_function.c,
 * html_schema.c, html_relation.c, html_site.c and html_profile.c write
 * pages).
 *
 * In:  a read-only model.  The html_ctx built from it holds derived facts
 *      (adjacency, recursion, schemas, page names) in malloc'd arrays that
 *      html_ctx_free() releases; nothing here writes into the model.
 */
#ifndef CGMAP_HTML_INTERNAL_H
#define CGMAP_HTML_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "cgmap/html.h"
#include "cgmap/model.h"
#include "cgmap/strbuf.h"
#include "outdir.h"

typedef struct html_schema {
	const char *name;
	char *page;       /* file name inside schemas/ */
	int nmembers;
	int *members;     /* function indexes, in id order */
	int ndead, ncold;
} html_schema;

/* A relation with a page: the mentions of it (ctx->rel_mentions[first ..
 * first + count)) are its relation sites in mapped functions (function
 * order, then site order), its effects and its table triggers (each
 * in an order of their own content, so a live map and its snapshot give
 * the same page). */
typedef struct html_rel_mention {
	int kind;         /* 0 relation site, 1 effect, 2 trigger */
	int a, b;         /* site: function and site index; else the effect / trigger */
} html_rel_mention;

typedef struct html_relation {
	const char *schema; /* NULL when the site's relation was not found */
	const char *name;
	char *display;    /* schema.name quoted as SQL needs: unique per relation */
	char *page;       /* file name inside relations/ */
	char relkind;     /* pg_class.relkind from the model's relations; 0 unknown */
	int first, count;
	int nreaders, nwriters, nruns;
} html_relation;

typedef struct html_ctx {
	const cgm_model *model;
	cgm_html_options opts;
	const char *outdir;
	const cgm_outdir *dir; /* the open output folder and its subfolders */

	int nfn;              /* model->nfunctions (builtins included) */
	int nuser;            /* functions with a page: [0, nuser) */
	char **page;          /* file name inside functions/ (NULL for builtins) */
	int *page_order;      /* [0, nuser) by page name, for html_fn_of_page */
	bool *page_hash_unique; /* the hash ending its page name starts with
	                         * HTML_PAGE_HASH_NAME digits no other's does */

	/* Edge indexes leaving / entering each function, ordered by the other
	 * end's id then via. */
	int *out_start, *out_list;
	int *in_start, *in_list;
	int *ncallers, *ncallees; /* distinct other functions */

	int *scc;             /* recursive component per function, -1 when none */
	int nscc;
	bool scc_from_model;  /* analyze filled it; else computed here */

	int nschemas;
	html_schema *schemas; /* sorted by name */
	int *fn_schema;       /* schema index per user function */

	int nrels;
	html_relation *rels;  /* sorted by schema (unknown first), name */
	html_rel_mention *rel_mentions;

	bool analysed;        /* reachability analysis ran (some function is root,
	                       * reachable or dead) */
	double max_self_ms;   /* largest self time, for node border weights */

	/* html_profile.c: from the call paths.  prof_entry[fn]: fn starts a
	 * path and has a page under profile/; the entry points whose paths
	 * pass through fn are thru_entry[thru_start[fn] .. thru_start[fn + 1])
	 * (by index), thru_npaths[] how many of their paths. */
	bool *prof_entry;
	int *thru_start, *thru_entry, *thru_npaths;

	/* The layout cache (html_graph.c): the open .cgmap-cache folder, -1
	 * when the cache is off; and the counters and keys the forked layout
	 * workers share with the parent (an anonymous shared mapping). */
	int cache_fd;
	struct html_layout_shared *shared;

	/* html_pagekey.c: what the pages show, hashed (see there), and the
	 * records of the function pages: the previous rendering's
	 * (old_records, malloc'd, NULL when none) and this one's (records, a
	 * shared mapping the forked workers fill; NULL when pages are always
	 * built: --no-layout-cache). */
	uint64_t site_key;
	uint64_t *shown, *hood;
	struct html_page_record *old_records, *records;
} html_ctx;

/* What one rendering's layouts did, summed over its workers. */
typedef struct html_layout_stats {
	long layouts;   /* graphs laid out by Graphviz */
	long hits;      /* graphs taken from the layout cache */
	long pruned;    /* cache entries removed at the end, unused by the run */
	long skipped;   /* function pages neither built nor written: their inputs
	                 * and files were as the last rendering left them */
	long schemas_skipped; /* schema pages likewise */
} html_layout_stats;
/* The counters of the last cgm_emit_html of this process (for tests). */
void html_layout_stats_last(html_layout_stats *out);

/* Pages (malloc'd names, NULL skipped) of n objects named names[i] from
 * cgm_escape_filename: any that share a name, compared case-insensitively,
 * are renamed with cgm_escape_filename_wide (the extension kept). */
void html_unique_pages(char **pages, const char *const *names, int n);
/* How many hex digits of the hash ending a page name name its function in
 * a page's data when no other page's hash starts with them. */
#define HTML_PAGE_HASH_NAME 6
/* The function whose page (inside functions/) is name; -1 when none. */
int html_fn_of_page(const html_ctx *ctx, const char *name);
int html_ctx_build(html_ctx *ctx, const cgm_model *model, const cgm_html_options *opts,
		   const char *outdir);
void html_ctx_free(html_ctx *ctx);

/* The root argument of html_fn_href/html_fn_link on a function's own page:
 * links to other function pages are then relative to functions/ ("X.html",
 * not "../functions/X.html": a fifth of the bytes of a busy callers table). */
#define HTML_FN_SIBLING "functions/"

/* ---- html_page.c: page frame, files, small formatters ---- */
void html_text(cgm_strbuf *b, const char *s);          /* escaped text */
/* Opens <!DOCTYPE ...><body>, with the navigation bar.  root is the path
 * back to the site's top ("" or "../"); title is raw text.  html_page_end
 * closes it and loads the script (and the search index when asked). */
void html_page_begin(cgm_strbuf *b, const html_ctx *ctx, const char *root, const char *title);
void html_page_end(cgm_strbuf *b, const char *root, bool with_search);
/* Link to a function's page (text: its id), or its escaped id for a
 * builtin. */
void html_fn_link(cgm_strbuf *b, const html_ctx *ctx, int fn, const char *root);
void html_fn_href(cgm_strbuf *b, const html_ctx *ctx, int fn, const char *root);
void html_ms(cgm_strbuf *b, double ms);
/* src/html_timeline.c: the cgmap_trace timeline as an SVG bar chart, for
 * the index (top functions stacked) or one function; nothing without one. */
void html_timeline_index(cgm_strbuf *b, const html_ctx *ctx);
void html_timeline_function(cgm_strbuf *b, const html_ctx *ctx, int fn);
/* Status badges of a function ("entry", "dead", ...). */
void html_status_badges(cgm_strbuf *b, const html_ctx *ctx, int fn);
/* Plain text of the status, for tooltips and the search index. */
void html_status_text(cgm_strbuf *b, const html_ctx *ctx, int fn);
bool html_fn_entry(const cgm_function *f);
const char *html_provenance_name(unsigned provenance);
/* The graph legend (one per graph page). */
void html_legend(cgm_strbuf *b, const char *root);
/* Write buf to outdir/rel through the open folder (cgm_outdir_write:
 * temporary file and rename, no link followed). */
int html_write_file(const html_ctx *ctx, const char *rel, const cgm_strbuf *buf);
int html_write_assets(const html_ctx *ctx);
/* Open outdir and every subfolder of the site in d (cgm_outdir_close). */
/* The site's folders; dot/ only with `dot_sources`. */
int html_open_folders(cgm_outdir *d, const char *outdir, bool dot_sources);
/* The reports' file names inside reports/, and how many there are. */
extern const char *const html_report_files[];
extern const int html_nreports;

/* ---- html_graph.c: graphs as DOT, laid out to SVG ---- */
typedef struct html_graph_scratch html_graph_scratch;
html_graph_scratch *html_graph_scratch_new(const html_ctx *ctx);
void html_graph_scratch_free(html_graph_scratch *s);
/* The worker's reader of dynamic sites (cgmap/dynsql.h), made on first use
 * and freed with the scratch. */
struct cgm_dynsql_reader *html_graph_dynsql(html_graph_scratch *s, const html_ctx *ctx);
/* Marks in `seen` (model->nuser entries, zeroed) the possible targets of
 * the dynamic sites fn's graph draws, fn itself left out: how many. */
int html_graph_mark_possible(unsigned char *seen, html_graph_scratch *s, const html_ctx *ctx,
			     int fn);
typedef struct html_graph_info {
	int shown;      /* function nodes drawn */
	int omitted;    /* functions left out by the node cap (in "+N more" nodes) */
	int calls;      /* schema overview: calls among the drawn functions */
	int calls_left_out; /* of those, left out by html_graph_schema's reduction */
	bool reduced;   /* that reduction ran (no calls to or from "+N more" drawn) */
} html_graph_info;
/* Most callers or callees drawn per function beyond the first ring. */
int html_graph_outer_fanout(void);
/* DOT text of a function's neighbourhood / a schema's overview. */
void html_graph_function(cgm_strbuf *dot, html_graph_info *info, html_graph_scratch *s,
			 const html_ctx *ctx, int fn);
void html_graph_schema(cgm_strbuf *dot, html_graph_info *info, html_graph_scratch *s,
		       const html_ctx *ctx, int schema);
/* The shared state of the layout workers: counters, then the cache key of
 * each graph item (schemas, then functions; 0: none). */
typedef struct html_layout_shared {
	long layouts, hits, skipped, schemas_skipped;
	/* The next graph item no worker has taken: items are dealt out as
	 * workers come free, since a schema page or a large function page
	 * costs a hundred small ones. */
	int next_item;
	int nkeys;
	uint64_t keys[];
} html_layout_shared;
/* The graph item (schemas, then functions) the next html_graph_svg is for:
 * its cache key is kept, so the run's end knows which entries it used. */
void html_graph_scratch_item(html_graph_scratch *s, int item);
/* The cache folder name inside the output folder. */
#define HTML_CACHE_DIR ".cgmap-cache"
/* Remove the entries of the cache folder (open as fd) that no key of
 * shared names, and that are regular files; returns how many, or CGM_EIO. */
int html_layout_cache_prune(int fd, const html_layout_shared *shared);
/* Lay dot out with Graphviz (or take it from the layout cache) and append
 * the bare <svg> element to svg. */
int html_graph_svg(cgm_strbuf *svg, html_graph_scratch *s, const char *dot, const char *what);
/* Lay out a neighbourhood graph's DOT with cgmap's own layered layout
 * (html_layout.c) and append the graph as the page's script draws it (an
 * empty <svg> with its markers and the layout as JSON); links starting with
 * strip_prefix (may be NULL) lose it.  CGM_EINPUT when the DOT holds what
 * that layout does not draw: the caller uses html_graph_svg then. */
/* An edge's tooltip as raw text: mechanism (and what it goes through),
 * provenance, "ambiguous", its known lines, and with calls how many. */
void html_edge_tooltip(cgm_strbuf *t, const cgm_edge *e, bool calls);
typedef struct html_pagedata html_pagedata;
/* The node and edge looks the site script holds for every graph, and a
 * plain node's height and gap (as JavaScript: var PLAIN_NODE = [...],
 * SHARED_NS = [...], SHARED_ES = [...];). */
void html_layout_shared_styles(cgm_strbuf *js);
/* With pd, a node that is a function page the page's data names (added when
 * new) is written by its index there, and its tooltip without what the
 * script derives (html_pagedata.c). */
int html_layout_graph(cgm_strbuf *out, const char *dot, const char *what, const char *strip_prefix,
		      html_pagedata *pd);

/* ---- html_pagedata.c: what a function page's script builds its tables
 * and graph nodes from (the format is in the file) ---- */
typedef struct html_pagedata {
	const html_ctx *ctx;
	int *fns, nfns, capfns;   /* the functions the page names, in order */
	int *slots, nslots;       /* fn -> index + 1 in fns (open addressing) */
	cgm_strbuf rows[2];       /* callers, callees */
	cgm_strbuf relrows;       /* relations (html_function_relations) */
	cgm_strbuf accessors[2];  /* a relation page's readers, writers */
	const char *fn_base;      /* where function pages are from the page:
	                           * NULL beside it (functions/) */
	struct html_pagedata_row {
		int who;          /* index in fns; -1 a function with no page */
		bool up;          /* a caller's row */
		size_t tooltip;   /* offset in tooltips of its graph edge's tooltip */
	} *rowinfo;
	int nrows, caprows;
	int last_who[2];          /* the previous row's who, per table */
	cgm_strbuf tooltips;
} html_pagedata;
typedef struct html_pagedata_row html_pagedata_row;
/* Starts with fn, the page's own function, at index 0 (fn -1: a page of
 * no function). */
void html_pagedata_init(html_pagedata *pd, const html_ctx *ctx, int fn);
void html_pagedata_free(html_pagedata *pd);
/* fn's index in the page's list (added when new); -1 when fn has no page. */
int html_pagedata_fn(html_pagedata *pd, int fn);
/* A row of the callers (up) or callees table for the model's edge. */
void html_pagedata_edge(html_pagedata *pd, int edge, bool up);
/* The rows of fn's callers and callees tables, in the order they list. */
void html_pagedata_edges(html_pagedata *pd, int fn);
/* The row (callers first, then callees, from 0) of the graph edge from ->
 * to (indexes in fns; one of them 0, the page's own) whose tooltip is the
 * one the script writes from that row; -1 when none. */
int html_pagedata_row_of(const html_pagedata *pd, int from, int to, const char *tooltip);
void html_pagedata_write(cgm_strbuf *b, const html_pagedata *pd);
/* The names rows give by number, as the site script's NAMES. */
void html_pagedata_names(cgm_strbuf *js);
/* A link to fn's page from a function page: an empty <a data-f="N"> the
 * script fills with fn's id and page (and makes an a.fn); with
 * pd NULL, or for a function with no page, html_fn_link's. */
void html_fn_ref(cgm_strbuf *b, const html_ctx *ctx, html_pagedata *pd, int fn);

/* ---- pages ---- */
/* Both set out_hash[k] to the hash of file k of the page they wrote
 * (html_page_bytes_hash; k = 1 the DOT source, when written). */
int html_write_function_page(uint64_t out_hash[2], const html_ctx *ctx, html_graph_scratch *s,
			     int fn);
int html_write_schema_page(uint64_t out_hash[2], const html_ctx *ctx, html_graph_scratch *s,
			   int schema);
int html_write_index(const html_ctx *ctx);
int html_write_search_index(const html_ctx *ctx);
int html_write_reports(const html_ctx *ctx);

/* ---- html_relation.c: relation pages ---- */
void html_relations_build(html_ctx *ctx);
void html_relations_free(html_ctx *ctx);
/* Index into ctx->rels of (schema, name), -1 when it has no page. */
int html_relation_find(const html_ctx *ctx, const char *schema, const char *name);
void html_relation_link(cgm_strbuf *b, const html_ctx *ctx, int rel, const char *root);
int html_write_relation_pages(const html_ctx *ctx);
/* The index's relations table; a function page's "Relations" section. */
void html_relations_index(cgm_strbuf *b, const html_ctx *ctx);
/* "table", "view", "materialized view", ... for a pg_class.relkind;
 * "relation" when unknown. */
const char *html_relkind_word(char relkind);
/* fn's relations: the table's head into b, its rows (JSON, for the page's
 * data: html_pagedata.c) appended to rows. */
void html_function_relations(cgm_strbuf *b, cgm_strbuf *rows, const html_ctx *ctx, int fn);

/* ---- html_profile.c: execution trees, flame graphs, call shapes ---- */
#define HTML_PROFILE_TREE_CAP 1000  /* frames shown in one execution tree */
#define HTML_PROFILE_FLAME_CAP 2000 /* frames drawn in one flame graph */
void html_profile_build(html_ctx *ctx);
void html_profile_free(html_ctx *ctx);
/* profile/all.html and profile/<entry page> (nothing without runtime data). */
int html_write_profile_pages(const html_ctx *ctx);
/* The names inside profile/ those are, each given to add; returns how many. */
int html_profile_files(const html_ctx *ctx, void (*add)(void *arg, const char *page), void *arg);
/* The index's resource profile (top 50, sortable) and profile links. */
void html_profile_index(cgm_strbuf *b, const html_ctx *ctx);
/* A function page's links to the profile pages of the paths through it. */
void html_profile_function(cgm_strbuf *b, const html_ctx *ctx, int fn);

/* ---- html_pagekey.c: function pages built only when their inputs changed ---- */
#define HTML_PAGES_FILE ".cgmap-pages"
typedef struct html_file_stamp {
	uint64_t ino, size;
	int64_t sec, nsec;
	uint64_t hash; /* of the bytes written (html_page_bytes_hash), 0 none */
} html_file_stamp;
typedef struct html_page_record {
	uint64_t key;       /* 0: none */
	uint64_t cache_key; /* the layout cache entry its graph used, 0 none */
	int nfiles;         /* functions/X.html, and dot/functions/X.dot */
	html_file_stamp file[2];
} html_page_record;
/* Keys over typed pieces, eight bytes a step (cgmap/hash.h's
 * cgm_hash_words; a NULL string differs from ""); a function's body by
 * the hash its snapshot reader made (source_hash), else by its text. */
uint64_t html_key_bytes(uint64_t h, const void *data, size_t len);
uint64_t html_key_str(uint64_t h, const char *s);
uint64_t html_key_u64(uint64_t h, uint64_t v);
uint64_t html_key_source(uint64_t h, const cgm_function *f);
/* The hash of a page file's bytes, never 0, kept in its record: a folder
 * copied, restored from a CI cache or unpacked from an archive has new
 * inodes and times, and its pages are then recognised by their bytes. */
uint64_t html_page_bytes_hash(const void *data, size_t len);
/* ctx->site_key, ctx->shown, ctx->hood (needs the adjacency and schemas). */
void html_pagekey_build(html_ctx *ctx);
void html_pagekey_free(html_ctx *ctx);
/* ctx->old_records from the folder's records file (none when missing,
 * not a regular file, too large; lines that do not parse are ignored). */
void html_page_records_read(html_ctx *ctx);
/* Records are numbered by function (0 .. nuser - 1), then nuser + schema
 * for the schema pages.  Whether record rec's page was built from inputs
 * hashing to key and its files are as that rendering left them (the same
 * inode, size and time, or else the same size and bytes); then its record
 * is carried over, with the files' stamps of now. */
bool html_page_unchanged(const html_ctx *ctx, int rec, uint64_t key);
/* Record rec's page, just written, with its files' stamps and the hashes
 * of their bytes (file_hash[k], as html_write_function_page sets them). */
void html_page_note(const html_ctx *ctx, int rec, uint64_t key, uint64_t cache_key,
		    const uint64_t file_hash[2]);
/* Write the records file of this rendering (nothing without records); with
 * opts.input_key and every page recorded, the stamps of every other file
 * of fresh (the site's files) too. */
int html_page_records_write(const html_ctx *ctx, char *const *fresh, int nfresh);
/* The key of function fn's page (html_function.c). */
uint64_t html_function_page_key(const html_ctx *ctx, html_graph_scratch *s, int fn);
/* The key of schema `schema`'s page (html_schema.c). */
uint64_t html_schema_page_key(const html_ctx *ctx, int schema);

/* ---- derived facts (emit_html.c) ---- */
/* A dynamic site seen at runtime: an observed dynamic edge leaves fn from
 * the site's line. */
bool html_dynamic_seen(const html_ctx *ctx, int fn, const cgm_site *site);

#endif
