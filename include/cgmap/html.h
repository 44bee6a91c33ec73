/*
 * cgmap/html.h - the documentation site: HTML pages with call graphs,
 * rendered from a model (normally read back from the JSON snapshot).
 *
 * In:  a complete, indexed cgm_model (cgm_model_index() done) and options.
 * Out: a folder a person opens in a browser: index.html, schemas/, functions/,
 *      reports/, assets/ (CSS and a small script), search-index.js and dot/
 *      (the DOT source of every graph).  Nothing in the model is changed or
 *      kept; the caller still owns and frees the model.  Output is
 *      byte-identical for the same model and options, whatever `threads` is.
 */
#ifndef CGMAP_HTML_H
#define CGMAP_HTML_H

#include <stdbool.h>
#include <stdint.h>

#include "cgmap/model.h"

typedef struct cgm_html_options {
	int depth;      /* neighbourhood depth of a function graph (callers and
	                 * callees), default 1 */
	int node_cap;   /* most function nodes drawn in one graph; the rest is
	                 * summed up in an explicit "+N more" node; default 50 */
	int threads;    /* layout workers (processes: Graphviz is not thread-safe);
	                 * 0: one per online core */
	bool dot_sources; /* also write each graph's DOT text under dot/ (a file per
	                   * function: a sixth of a large site), default false */
	bool no_layout_cache; /* lay every graph out afresh: neither read nor write
	                       * the cache of laid-out graphs in .cgmap-cache/;
	                       * and build every page (as every_page) */
	bool every_page; /* build every function page, even one whose inputs did
	                  * not change since the last rendering into the folder
	                  * (its page records, .cgmap-pages); default false */
	uint64_t input_key; /* a hash of everything the model was read from (the
	                     * snapshot's bytes), or 0 when unknown: recorded with
	                     * the site, for cgm_html_site_current */
	bool graphviz_neighbourhoods; /* lay out function graphs with Graphviz too
	                               * (--layout graphviz); default false: cgmap's
	                               * own layered layout, Graphviz for schema
	                               * overviews only */
} cgm_html_options;

/* Fill opts with the defaults above. */
void cgm_html_options_init(cgm_html_options *opts);

/* What one rendering did: how much of the folder it could keep. */
typedef struct cgm_html_stats {
	long function_pages;  /* function pages in the site */
	long pages_unchanged; /* function pages neither built nor written: their
	                       * inputs and files were as the last rendering into
	                       * the folder left them */
	long layouts;         /* graphs laid out by Graphviz */
	long layout_hits;     /* graphs taken from the layout cache */
	long schema_pages;    /* schema pages in the site */
	long schema_pages_unchanged; /* likewise left as they were */
} cgm_html_stats;

/* Write the site into outdir (created when missing, files overwritten).
 * opts may be NULL for the defaults.  Returns 0 or a negative CGM_E* code
 * with the message set (cgmap/error.h). */
int cgm_emit_html(const cgm_model *model, const cgm_html_options *opts, const char *outdir);

/* cgm_emit_html, and what it did into *out (zeroed first; filled when it
 * returns 0). */
int cgm_emit_html_counted(cgm_html_stats *out, const cgm_model *model,
			  const cgm_html_options *opts, const char *outdir);

/* Whether outdir holds, untouched, the whole site cgm_emit_html wrote for
 * a model read from input opts->input_key with the same options (the same
 * cgmap too): every file of it as that rendering left it (inode, size,
 * modification time).  Then rendering again would write nothing, and need
 * not even read the model.  False when unsure (no records, every_page,
 * no_layout_cache, input_key 0, a file deleted or edited). */
bool cgm_html_site_current(const char *outdir, const cgm_html_options *opts);

#endif
