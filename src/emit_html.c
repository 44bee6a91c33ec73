/*
 * emit_html.c - the documentation site (cgmap/html.h): derives what every
 * page needs from the model (adjacency, recursion, schemas, page names),
 * writes the pages that need no layout itself, then has the graph pages
 * (one per schema, one per function) written by layout workers: Graphviz is
 * not thread-safe, so on more than one core the workers are forked
 * processes, each with its own Graphviz context, each writing whole files.
 *
 * In:  an indexed model (read-only), options, an output folder.
 * Out: files under outdir, each through a temporary file and a rename with
 *      no link followed (outdir.h), and the manifest of them
 *      (.cgmap-manifest), by which the next rendering into the folder
 *      removes the pages it does not write again; 0 or a negative CGM_E*
 *      code with the message set.  Unless turned off, the layout cache
 *      (.cgmap-cache/, see html_graph.c): the graphs laid out are kept
 *      there, the next run takes the ones whose DOT did not change, and
 *      the entries a whole run did not use are removed at its end.
 * Memory: the html_ctx arrays are malloc'd here and freed before returning.
 */
#include "html_internal.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgmap/error.h"
#include "cgmap/escape.h"
#include "cgmap/scc.h"
#include "cgmap/stacks.h"

void cgm_html_options_init(cgm_html_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->depth = 1;
	opts->node_cap = 50;
	opts->threads = 0;
	opts->dot_sources = false;
	opts->no_layout_cache = false;
	opts->graphviz_neighbourhoods = false;
	opts->every_page = false;
	opts->input_key = 0;
}

/* ---- adjacency ---- */

typedef struct {
	const cgm_model *model;
	bool by_to; /* order an out-list by the edge's target, an in-list by its source */
} edge_order;

static int compare_edges(const void *a, const void *b, void *arg)
{
	const edge_order *o = arg;
	const cgm_edge *x = &o->model->edges[*(const int *)a];
	const cgm_edge *y = &o->model->edges[*(const int *)b];
	int ex = o->by_to ? x->to : x->from, ey = o->by_to ? y->to : y->from;
	if (ex != ey)
		return ex < ey ? -1 : 1;
	if (x->via != y->via)
		return x->via < y->via ? -1 : 1;
	return *(const int *)a - *(const int *)b;
}

static bool edge_valid(const html_ctx *ctx, const cgm_edge *e)
{
	return e->from >= 0 && e->from < ctx->nfn && e->to >= 0 && e->to < ctx->nfn;
}

static void build_lists(html_ctx *ctx, bool out)
{
	const cgm_model *m = ctx->model;
	int *start = cgm_xcalloc((size_t)ctx->nfn + 1, sizeof(int));
	int *list = cgm_xcalloc((size_t)m->nedges, sizeof(int));
	for (int i = 0; i < m->nedges; i++)
		if (edge_valid(ctx, &m->edges[i]))
			start[(out ? m->edges[i].from : m->edges[i].to) + 1]++;
	for (int i = 0; i < ctx->nfn; i++)
		start[i + 1] += start[i];
	int *fill = cgm_xcalloc((size_t)ctx->nfn, sizeof(int));
	for (int i = 0; i < m->nedges; i++) {
		if (!edge_valid(ctx, &m->edges[i]))
			continue;
		int at = out ? m->edges[i].from : m->edges[i].to;
		list[start[at] + fill[at]++] = i;
	}
	free(fill);
	edge_order order = { m, out };
	for (int f = 0; f < ctx->nfn; f++)
		qsort_r(list + start[f], (size_t)(start[f + 1] - start[f]), sizeof(int), compare_edges,
			&order);
	int *distinct = cgm_xcalloc((size_t)ctx->nfn, sizeof(int));
	for (int f = 0; f < ctx->nfn; f++) {
		int last = -1;
		for (int k = start[f]; k < start[f + 1]; k++) {
			const cgm_edge *e = &m->edges[list[k]];
			int other = out ? e->to : e->from;
			if (other != last)
				distinct[f]++;
			last = other;
		}
	}
	if (out) {
		ctx->out_start = start, ctx->out_list = list, ctx->ncallees = distinct;
	} else {
		ctx->in_start = start, ctx->in_list = list, ctx->ncallers = distinct;
	}
}

/* ---- recursion: strongly connected components ---- */

static void compute_scc(html_ctx *ctx)
{
	const cgm_model *m = ctx->model;
	int n = ctx->nfn;
	/* The callee of each out-list entry, for cgm_scc. */
	int nout = ctx->out_start[n];
	int *to = cgm_xcalloc((size_t)nout + 1, sizeof(int));
	for (int k = 0; k < nout; k++)
		to[k] = m->edges[ctx->out_list[k]].to;
	int *comp = cgm_xcalloc((size_t)n + 1, sizeof(int));
	int ncomp = cgm_scc(comp, n, ctx->out_start, to);
	free(to);
	/* Keep components that recurse: more than one member, or a self call.
	 * Number them by their first member so the ids do not depend on the
	 * traversal. */
	int *size = cgm_xcalloc((size_t)ncomp, sizeof(int));
	bool *self_loop = cgm_xcalloc((size_t)ncomp, sizeof(bool));
	for (int i = 0; i < n; i++)
		size[comp[i]]++;
	for (int k = 0; k < m->nedges; k++) {
		const cgm_edge *e = &m->edges[k];
		if (edge_valid(ctx, e) && e->from == e->to)
			self_loop[comp[e->from]] = true;
	}
	int *renumber = cgm_xcalloc((size_t)ncomp, sizeof(int));
	for (int c = 0; c < ncomp; c++)
		renumber[c] = -1;
	ctx->nscc = 0;
	for (int i = 0; i < n; i++) {
		int c = comp[i];
		if (size[c] < 2 && !self_loop[c]) {
			ctx->scc[i] = -1;
			continue;
		}
		if (renumber[c] < 0)
			renumber[c] = ctx->nscc++;
		ctx->scc[i] = renumber[c];
	}
	free(comp), free(size), free(self_loop), free(renumber);
}

static void take_model_scc(html_ctx *ctx)
{
	/* analyze's numbers may be sparse: renumber by first member. */
	int maxid = -1;
	for (int i = 0; i < ctx->nfn; i++)
		if (ctx->model->functions[i].scc > maxid)
			maxid = ctx->model->functions[i].scc;
	int *renumber = cgm_xcalloc((size_t)maxid + 1, sizeof(int));
	for (int c = 0; c <= maxid; c++)
		renumber[c] = -1;
	ctx->nscc = 0;
	for (int i = 0; i < ctx->nfn; i++) {
		int c = ctx->model->functions[i].scc;
		if (c < 0) {
			ctx->scc[i] = -1;
			continue;
		}
		if (renumber[c] < 0)
			renumber[c] = ctx->nscc++;
		ctx->scc[i] = renumber[c];
	}
	free(renumber);
}

/* ---- schemas ---- */

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void build_schemas(html_ctx *ctx)
{
	const cgm_model *m = ctx->model;
	const char **names = cgm_xcalloc((size_t)ctx->nuser, sizeof(char *));
	for (int i = 0; i < ctx->nuser; i++)
		names[i] = m->functions[i].schema ? m->functions[i].schema : "";
	qsort(names, (size_t)ctx->nuser, sizeof(char *), compare_names);
	int n = 0;
	for (int i = 0; i < ctx->nuser; i++)
		if (n == 0 || strcmp(names[n - 1], names[i]) != 0)
			names[n++] = names[i];
	ctx->nschemas = n;
	ctx->schemas = cgm_xcalloc((size_t)n, sizeof(html_schema));
	ctx->fn_schema = cgm_xcalloc((size_t)ctx->nfn, sizeof(int));
	for (int s = 0; s < n; s++) {
		cgm_strbuf b = CGM_STRBUF_INIT;
		cgm_escape_filename(&b, names[s]);
		cgm_strbuf_puts(&b, ".html");
		ctx->schemas[s].name = names[s];
		ctx->schemas[s].page = b.data;
	}
	{
		char **pages = cgm_xcalloc((size_t)n + 1, sizeof(char *));
		for (int k = 0; k < n; k++)
			pages[k] = ctx->schemas[k].page;
		html_unique_pages(pages, names, n);
		for (int k = 0; k < n; k++)
			ctx->schemas[k].page = pages[k];
		free(pages);
	}
	for (int i = 0; i < ctx->nfn; i++) {
		ctx->fn_schema[i] = -1;
		if (i >= ctx->nuser)
			continue;
		const char *name = m->functions[i].schema ? m->functions[i].schema : "";
		const char **hit = bsearch(&name, names, (size_t)n, sizeof(char *), compare_names);
		ctx->fn_schema[i] = (int)(hit - names);
		ctx->schemas[ctx->fn_schema[i]].nmembers++;
	}
	for (int s = 0; s < n; s++) {
		ctx->schemas[s].members = cgm_xcalloc((size_t)ctx->schemas[s].nmembers, sizeof(int));
		ctx->schemas[s].nmembers = 0;
	}
	for (int i = 0; i < ctx->nuser; i++) {
		html_schema *s = &ctx->schemas[ctx->fn_schema[i]];
		s->members[s->nmembers++] = i;
		s->ndead += m->functions[i].dead;
		s->ncold += m->functions[i].cold;
	}
	free(names);
}

typedef struct page_slot {
	char **page;
	const char *name;
} page_slot;

static int compare_page_slots(const void *a, const void *b)
{
	return strcasecmp(*((const page_slot *)a)->page, *((const page_slot *)b)->page);
}

void html_unique_pages(char **pages, const char *const *names, int n)
{
	/* Case-insensitively: a site copied to macOS or Windows keeps every
	 * page.  Only the names that collide get the longer hash, so every
	 * other page keeps its name whatever else the site holds. */
	page_slot *slots = cgm_xcalloc((size_t)n + 1, sizeof(page_slot));
	int nslots = 0;
	for (int i = 0; i < n; i++)
		if (pages[i])
			slots[nslots++] = (page_slot){ &pages[i], names[i] };
	qsort(slots, (size_t)nslots, sizeof(page_slot), compare_page_slots);
	for (int i = 0; i < nslots;) {
		int j = i + 1;
		while (j < nslots && strcasecmp(*slots[i].page, *slots[j].page) == 0)
			j++;
		for (int k = i; j - i > 1 && k < j; k++) {
			const char *ext = strrchr(*slots[k].page, '.');
			cgm_strbuf b = CGM_STRBUF_INIT;
			cgm_escape_filename_wide(&b, slots[k].name);
			cgm_strbuf_puts(&b, ext ? ext : "");
			free(*slots[k].page);
			*slots[k].page = b.data;
		}
		i = j;
	}
	free(slots);
}

typedef struct named_page {
	const char *name;
	int fn;
} named_page;

static int compare_named_pages(const void *a, const void *b)
{
	return strcmp(((const named_page *)a)->name, ((const named_page *)b)->name);
}

int html_fn_of_page(const html_ctx *ctx, const char *name)
{
	int lo = 0, hi = ctx->nuser - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2, fn = ctx->page_order[mid];
		int c = strcmp(name, ctx->page[fn]);
		if (c == 0)
			return fn;
		if (c < 0)
			hi = mid - 1;
		else
			lo = mid + 1;
	}
	return -1;
}

/* The function pages' names and their orders (ctx->page, page_order,
 * page_hash_unique), with the largest self time: on a thread of its own
 * beside the adjacency lists (html_ctx_build), each a tenth of a
 * re-render's serial part at 10,000 functions.  Every function has an id
 * (checked before). */
static void *name_pages(void *arg)
{
	html_ctx *ctx = arg;
	const cgm_model *model = ctx->model;
	ctx->page = cgm_xcalloc((size_t)ctx->nfn, sizeof(char *));
	for (int i = 0; i < ctx->nuser; i++) {
		const cgm_function *f = &model->functions[i];
		cgm_strbuf b = CGM_STRBUF_INIT;
		cgm_escape_filename(&b, f->id);
		cgm_strbuf_puts(&b, ".html");
		ctx->page[i] = b.data;
		if (f->runtime.self_ms > ctx->max_self_ms)
			ctx->max_self_ms = f->runtime.self_ms;
		if (f->root || f->reachable || f->dead)
			ctx->analysed = true;
	}
	{
		const char **ids = cgm_xcalloc((size_t)ctx->nuser + 1, sizeof(char *));
		for (int i = 0; i < ctx->nuser; i++)
			ids[i] = model->functions[i].id;
		html_unique_pages(ctx->page, ids, ctx->nuser);
		free(ids);
	}
	{
		named_page *byname = cgm_xcalloc((size_t)ctx->nuser + 1, sizeof(*byname));
		for (int i = 0; i < ctx->nuser; i++)
			byname[i] = (named_page){ ctx->page[i], i };
		qsort(byname, (size_t)ctx->nuser, sizeof(*byname), compare_named_pages);
		ctx->page_order = cgm_xcalloc((size_t)ctx->nuser + 1, sizeof(int));
		for (int i = 0; i < ctx->nuser; i++)
			ctx->page_order[i] = byname[i].fn;
		/* The hashes that end page names, and which start with
		 * HTML_PAGE_HASH_NAME hex digits no other page's hash starts
		 * with: a page's data names those functions by those digits. */
		for (int i = 0; i < ctx->nuser; i++) {
			const char *dash = strrchr(ctx->page[i], '-');
			byname[i] = (named_page){ dash ? dash + 1 : ctx->page[i], i };
		}
		qsort(byname, (size_t)ctx->nuser, sizeof(*byname), compare_named_pages);
		ctx->page_hash_unique = cgm_xcalloc((size_t)ctx->nuser + 1, sizeof(bool));
		for (int i = 0; i < ctx->nuser; i++)
			ctx->page_hash_unique[byname[i].fn] =
				strlen(byname[i].name) >= HTML_PAGE_HASH_NAME + strlen(".html") &&
				(i == 0 || strncmp(byname[i - 1].name, byname[i].name,
						   HTML_PAGE_HASH_NAME) != 0) &&
				(i + 1 == ctx->nuser || strncmp(byname[i + 1].name, byname[i].name,
								HTML_PAGE_HASH_NAME) != 0);
		free(byname);
	}
	return NULL;
}

int html_ctx_build(html_ctx *ctx, const cgm_model *model, const cgm_html_options *opts,
		   const char *outdir)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->model = model;
	ctx->opts = *opts;
	ctx->outdir = outdir;
	ctx->nfn = model->nfunctions;
	ctx->nuser = model->nuser;
	if (ctx->nuser > ctx->nfn)
		ctx->nuser = ctx->nfn;
	for (int i = ctx->nuser; i < ctx->nfn; i++)
		if (!model->functions[i].builtin)
			return cgm_error(CGM_EINPUT,
					 "function '%s' is not a builtin but comes after the "
					 "builtins: the model was not indexed",
					 model->functions[i].id ? model->functions[i].id : "?");
	for (int i = 0; i < ctx->nfn; i++)
		if (!model->functions[i].id)
			return cgm_error(CGM_EINPUT, "function number %d has no id", i + 1);
	for (int i = 0; i < model->nedges; i++)
		if (!edge_valid(ctx, &model->edges[i]))
			return cgm_error(CGM_EINPUT, "edge number %d names a function that is not in "
						     "the model",
					 i + 1);
	pthread_t namer;
	bool threaded = pthread_create(&namer, NULL, name_pages, ctx) == 0;
	if (!threaded)
		name_pages(ctx);
	build_lists(ctx, true);
	build_lists(ctx, false);
	ctx->scc = cgm_xcalloc((size_t)ctx->nfn, sizeof(int));
	ctx->scc_from_model = false;
	for (int i = 0; i < ctx->nfn; i++)
		if (model->functions[i].scc >= 0)
			ctx->scc_from_model = true;
	if (ctx->scc_from_model)
		take_model_scc(ctx);
	else
		compute_scc(ctx);
	build_schemas(ctx);
	html_relations_build(ctx);
	if (threaded)
		pthread_join(namer, NULL);
	html_profile_build(ctx); /* names the pages */
	return 0;
}

void html_ctx_free(html_ctx *ctx)
{
	if (ctx->page)
		for (int i = 0; i < ctx->nfn; i++)
			free(ctx->page[i]);
	free(ctx->page);
	free(ctx->page_order);
	free(ctx->page_hash_unique);
	free(ctx->out_start), free(ctx->out_list), free(ctx->in_start), free(ctx->in_list);
	free(ctx->ncallers), free(ctx->ncallees), free(ctx->scc), free(ctx->fn_schema);
	for (int s = 0; s < ctx->nschemas; s++) {
		free(ctx->schemas[s].page);
		free(ctx->schemas[s].members);
	}
	free(ctx->schemas);
	html_relations_free(ctx);
	html_profile_free(ctx);
	html_pagekey_free(ctx);
	memset(ctx, 0, sizeof(*ctx));
}

/* ---- derived facts ---- */

/* cgm_dynamic_site_observed()'s rule, on the adjacency list: that one scans
 * every edge of the model per site, too slow for 10,000 pages. */
bool html_dynamic_seen(const html_ctx *ctx, int fn, const cgm_site *site)
{
	const cgm_model *m = ctx->model;
	if (site->kind != CGM_SITE_DYNAMIC)
		return false;
	for (int k = ctx->out_start[fn]; k < ctx->out_start[fn + 1]; k++) {
		const cgm_edge *e = &m->edges[ctx->out_list[k]];
		if (e->via != CGM_VIA_DYNAMIC || !(e->provenance & CGM_EDGE_OBSERVED))
			continue;
		for (int l = 0; l < e->nlines; l++)
			if (e->lines[l] == site->line)
				return true;
	}
	return false;
}


/* ---- graph pages, on workers ---- */

/* Items taken at a time: few enough to even out the workers' last pages,
 * many enough that they seldom meet at the counter. */
#define GRAPH_ITEMS_PER_TAKE 8

static int write_graph_pages(const html_ctx *ctx)
{
	html_graph_scratch *scratch = html_graph_scratch_new(ctx);
	int rc = 0;
	int nitems = ctx->nschemas + ctx->nuser;
	for (int item = 0, end = 0; rc == 0; item++) {
		if (item == end) {
			item = __atomic_fetch_add(&ctx->shared->next_item, GRAPH_ITEMS_PER_TAKE,
						  __ATOMIC_RELAXED);
			end = item + GRAPH_ITEMS_PER_TAKE;
		}
		if (item >= nitems)
			break;
		html_graph_scratch_item(scratch, item);
		/* Schema pages first, then function pages; records are numbered
		 * by function, then nuser + schema (html_page_unchanged). */
		bool schema = item < ctx->nschemas;
		int at = schema ? item : item - ctx->nschemas;
		int rec = schema ? ctx->nuser + item : at;
		uint64_t key = 0;
		if (ctx->records) {
			/* A page whose inputs did not change is neither built nor
			 * written; its layout cache entry stays in use. */
			key = schema ? html_schema_page_key(ctx, at)
				     : html_function_page_key(ctx, scratch, at);
			if (html_page_unchanged(ctx, rec, key)) {
				ctx->shared->keys[item] = ctx->records[rec].cache_key;
				__atomic_fetch_add(schema ? &ctx->shared->schemas_skipped
							  : &ctx->shared->skipped,
						   1, __ATOMIC_RELAXED);
				continue;
			}
		}
		uint64_t file_hash[2] = { 0, 0 };
		rc = schema ? html_write_schema_page(file_hash, ctx, scratch, at)
			    : html_write_function_page(file_hash, ctx, scratch, at);
		if (!rc && ctx->records)
			html_page_note(ctx, rec, key, ctx->shared->keys[item], file_hash);
	}
	html_graph_scratch_free(scratch);
	return rc;
}

static int online_cores(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

/* stacks.folded: the call paths for flame graph tools (cgmap/stacks.h),
 * when the model has any. */
static int write_stacks(const html_ctx *ctx)
{
	if (!ctx->model->npaths)
		return 0;
	cgm_strbuf b = CGM_STRBUF_INIT;
	cgm_stacks_folded(&b, ctx->model);
	int rc = html_write_file(ctx, "stacks.folded", &b);
	cgm_strbuf_free(&b);
	return rc;
}

/* The pages without graphs: index, search index, reports, relations,
 * assets; and the folded stacks. */
static int write_site_pages(const html_ctx *ctx)
{
	int rc = html_write_assets(ctx);
	if (!rc)
		rc = html_write_index(ctx);
	if (!rc)
		rc = html_write_search_index(ctx);
	if (!rc)
		rc = html_write_reports(ctx);
	if (!rc)
		rc = html_write_relation_pages(ctx);
	if (!rc)
		rc = write_stacks(ctx);
	if (!rc)
		rc = html_write_profile_pages(ctx);
	return rc;
}

/* Fork the layout workers, write the site pages meanwhile, then wait for
 * every worker (even after a failure, so none is left behind). */
static int run_workers(const html_ctx *ctx, int nworkers)
{
	pid_t *pids = cgm_xcalloc((size_t)nworkers, sizeof(pid_t));
	int *pipes = cgm_xcalloc((size_t)nworkers, sizeof(int));
	int rc = 0;
	fflush(NULL);
	pid_t parent = getpid();
	int started = 0;
	for (; started < nworkers; started++) {
		int fds[2];
		if (pipe(fds) != 0) {
			rc = cgm_error(CGM_EIO, "cannot start a layout worker: %s", strerror(errno));
			break;
		}
		pid_t pid = fork();
		if (pid < 0) {
			close(fds[0]), close(fds[1]);
			rc = cgm_error(CGM_EIO, "cannot start a layout worker: %s", strerror(errno));
			break;
		}
		if (pid == 0) {
			/* A worker must not outlive cgmap: killed with the parent
			 * (even by SIGKILL, which no handler sees), and gone at once
			 * if the parent died before the request was made. */
			if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
				_exit(1);
			close(fds[0]);
			for (int k = 0; k < started; k++)
				close(pipes[k]);
			int wrc = write_graph_pages(ctx);
			if (wrc) {
				const char *msg = cgm_error_message();
				ssize_t ignored = write(fds[1], msg, strlen(msg));
				(void)ignored;
			}
			close(fds[1]);
			_exit(wrc ? 1 : 0);
		}
		close(fds[1]);
		pids[started] = pid;
		pipes[started] = fds[0];
	}
	if (rc == 0)
		rc = write_site_pages(ctx);
	char first_message[1024] = "";
	for (int k = 0; k < started; k++) {
		char msg[1024];
		size_t len = 0;
		ssize_t got;
		while ((got = read(pipes[k], msg + len, sizeof(msg) - 1 - len)) > 0 ||
		       (got < 0 && errno == EINTR))
			if (got > 0)
				len += (size_t)got;
		msg[len] = '\0';
		close(pipes[k]);
		int status = 0;
		while (waitpid(pids[k], &status, 0) < 0 && errno == EINTR)
			;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			continue;
		if (first_message[0] || rc)
			continue;
		if (WIFSIGNALED(status))
			snprintf(first_message, sizeof(first_message),
				 "layout worker %d died on signal %d (%s)", k + 1, WTERMSIG(status),
				 strsignal(WTERMSIG(status)));
		else
			snprintf(first_message, sizeof(first_message), "%s",
				 len ? msg : "a layout worker failed without a message");
	}
	if (!rc && first_message[0])
		rc = cgm_error(CGM_EIO, "%s", first_message);
	free(pids);
	free(pipes);
	return rc;
}

/* ---- what the site writes, and the manifest of it ---- */

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.';
}

/* rel is folder + a plain file name (no leading dot) ending with ext. */
static bool in_folder(const char *rel, const char *folder, const char *ext)
{
	size_t nf = strlen(folder), ne = strlen(ext), n = strlen(rel);
	if (strncmp(rel, folder, nf) != 0 || n <= nf + ne || rel[nf] == '.' ||
	    strcmp(rel + n - ne, ext) != 0)
		return false;
	for (const char *p = rel + nf; *p; p++)
		if (!name_char(*p))
			return false;
	return true;
}

/* Whether rel has the shape of a file the site writes: the only entries
 * of a manifest cgmap ever removes. */
static bool site_shaped(const char *rel)
{
	return strcmp(rel, "index.html") == 0 || strcmp(rel, "search-index.js") == 0 ||
	       in_folder(rel, "assets/", "") || in_folder(rel, "reports/", ".html") ||
	       in_folder(rel, "functions/", ".html") || in_folder(rel, "schemas/", ".html") ||
	       in_folder(rel, "relations/", ".html") || in_folder(rel, "profile/", ".html") ||
	       in_folder(rel, "dot/functions/", ".dot") || in_folder(rel, "dot/schemas/", ".dot") ||
	       in_folder(rel, HTML_CACHE_DIR "/", ".svg") ||
	       strcmp(rel, "stacks.folded") == 0 || strcmp(rel, HTML_PAGES_FILE) == 0;
}

/* Append folder + the first len bytes of name + ext to the list. */
static void list_add(char ***list, int *n, int *cap, const char *folder, const char *name,
		     size_t len, const char *ext)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*list = cgm_xrealloc(*list, sizeof(char *) * (size_t)*cap);
	}
	cgm_strbuf b = CGM_STRBUF_INIT;
	cgm_strbuf_puts(&b, folder);
	cgm_strbuf_add(&b, name, len);
	cgm_strbuf_puts(&b, ext);
	(*list)[(*n)++] = b.data;
}

typedef struct {
	char ***list;
	int *n, *cap;
} list_ref;

static void add_profile_page(void *arg, const char *page)
{
	list_ref *r = arg;
	list_add(r->list, r->n, r->cap, "profile/", page, strlen(page), "");
}

/* Every file this rendering writes (the writers' names, sorted). */
static char **site_files(const html_ctx *ctx, int *n)
{
	char **list = NULL;
	int cap = 0;
	*n = 0;
	static const char *const fixed[] = { "index.html", "search-index.js", "assets/cgmap.css",
					     "assets/cgmap.js", "assets/legend.svg" };
	for (size_t k = 0; k < sizeof(fixed) / sizeof(fixed[0]); k++)
		list_add(&list, n, &cap, "", fixed[k], strlen(fixed[k]), "");
	if (ctx->model->npaths)
		list_add(&list, n, &cap, "", "stacks.folded", strlen("stacks.folded"), "");
	for (int r = 0; r < html_nreports; r++)
		list_add(&list, n, &cap, "reports/", html_report_files[r],
			 strlen(html_report_files[r]), "");
	for (int s = 0; s < ctx->nschemas; s++) {
		const char *page = ctx->schemas[s].page;
		list_add(&list, n, &cap, "schemas/", page, strlen(page), "");
		if (ctx->opts.dot_sources)
			list_add(&list, n, &cap, "dot/schemas/", page, strlen(page) - 5, ".dot");
	}
	list_ref ref = { &list, n, &cap };
	html_profile_files(ctx, add_profile_page, &ref);
	for (int r = 0; r < ctx->nrels; r++)
		list_add(&list, n, &cap, "relations/", ctx->rels[r].page, strlen(ctx->rels[r].page),
			 "");
	for (int i = 0; i < ctx->nuser; i++) {
		const char *page = ctx->page[i];
		list_add(&list, n, &cap, "functions/", page, strlen(page), "");
		if (ctx->opts.dot_sources)
			list_add(&list, n, &cap, "dot/functions/", page, strlen(page) - 5, ".dot");
	}
	*n = cgm_outdir_list_sort(list, *n);
	return list;
}

static int write_site(const html_ctx *ctx, const cgm_html_options *o)
{
	int nworkers = o->threads ? o->threads : online_cores();
	int nitems = ctx->nschemas + ctx->nuser;
	if (nworkers > nitems)
		nworkers = nitems;
	if (nworkers <= 1) {
		int rc = write_site_pages(ctx);
		if (!rc && nitems)
			rc = write_graph_pages(ctx);
		return rc;
	}
	return run_workers(ctx, nworkers);
}

static html_layout_stats last_stats;

void html_layout_stats_last(html_layout_stats *out)
{
	*out = last_stats;
}

/* The site, and the manifest around it: before any page is written the
 * manifest lists the old files and the new ones, so whatever stops this
 * run, the next one knows every file cgmap may have left; once the site
 * is whole, the old files not written again are removed and the manifest
 * lists just the new ones. */
static int write_with_manifest(const html_ctx *ctx, const cgm_outdir *dir,
			       const cgm_html_options *o)
{
	int nfresh = 0, nold = 0;
	char **fresh = site_files(ctx, &nfresh);
	char **old = cgm_outdir_manifest_read(dir, site_shaped, &nold);
	char **both = cgm_xcalloc((size_t)(nfresh + nold) + 1, sizeof(char *));
	memcpy(both, fresh, sizeof(char *) * (size_t)nfresh);
	if (nold)
		memcpy(both + nfresh, old, sizeof(char *) * (size_t)nold);
	int rc = cgm_outdir_manifest_write(dir, both, nfresh + nold);
	free(both);
	/* What a killed run was writing when it died. */
	if (!rc) {
		int swept = cgm_outdir_sweep(dir, site_shaped);
		rc = swept < 0 ? swept : 0;
	}
	if (!rc)
		rc = write_site(ctx, o);
	if (!rc) {
		int removed = cgm_outdir_prune(dir, old, nold, fresh, nfresh, site_shaped);
		rc = removed < 0 ? removed : 0;
	}
	if (!rc)
		rc = cgm_outdir_manifest_write(dir, fresh, nfresh);
	if (!rc)
		rc = html_page_records_write(ctx, fresh, nfresh);
	/* The cache entries this whole run did not use. */
	if (!rc && ctx->cache_fd >= 0) {
		int pruned = html_layout_cache_prune(ctx->cache_fd, ctx->shared);
		rc = pruned < 0 ? pruned : 0;
		if (pruned > 0)
			last_stats.pruned = pruned;
	}
	cgm_outdir_list_free(fresh, nfresh);
	cgm_outdir_list_free(old, nold);
	return rc;
}

static void *read_page_records(void *arg)
{
	html_page_records_read(arg);
	return NULL;
}

int cgm_emit_html(const cgm_model *model, const cgm_html_options *opts, const char *outdir)
{
	return cgm_emit_html_counted(NULL, model, opts, outdir);
}

int cgm_emit_html_counted(cgm_html_stats *out, const cgm_model *model,
			  const cgm_html_options *opts, const char *outdir)
{
	if (out)
		memset(out, 0, sizeof(*out));
	cgm_html_options o;
	cgm_html_options_init(&o);
	if (opts)
		o = *opts;
	if (o.depth < 0 || o.depth > 20)
		return cgm_error(CGM_EUSAGE, "graph depth %d is out of range (0 to 20)", o.depth);
	if (o.node_cap < 2 || o.node_cap > 2000)
		return cgm_error(CGM_EUSAGE, "node cap %d is out of range (2 to 2000)", o.node_cap);
	if (o.threads < 0)
		return cgm_error(CGM_EUSAGE, "thread count %d is negative", o.threads);
	if (!outdir || !*outdir)
		return cgm_error(CGM_EUSAGE, "no output folder given");

	cgm_outdir dir;
	int rc = html_open_folders(&dir, outdir, o.dot_sources);
	if (rc) {
		cgm_outdir_close(&dir);
		return rc;
	}
	html_ctx ctx;
	rc = html_ctx_build(&ctx, model, &o, outdir);
	ctx.dir = &dir;
	ctx.cache_fd = -1;
	memset(&last_stats, 0, sizeof(last_stats));
	/* Counters and keys the forked workers fill in for the parent. */
	int nitems = ctx.nschemas + ctx.nuser;
	size_t shared_size = sizeof(html_layout_shared) + sizeof(uint64_t) * ((size_t)nitems + 1);
	if (!rc) {
		void *map = mmap(NULL, shared_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
				 -1, 0);
		if (map == MAP_FAILED)
			rc = cgm_error(CGM_EIO, "cannot share memory with the layout workers: %s",
				       strerror(errno));
		else
			ctx.shared = map, ctx.shared->nkeys = nitems;
	}
	/* The page records: one per function, then one per schema, filled by
	 * the workers. */
	size_t records_size = sizeof(html_page_record) * ((size_t)ctx.nuser + (size_t)ctx.nschemas + 1);
	if (!rc && !o.no_layout_cache && !o.every_page) {
		void *map = mmap(NULL, records_size, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (map == MAP_FAILED)
			rc = cgm_error(CGM_EIO, "cannot share memory with the layout workers: %s",
				       strerror(errno));
		else
			ctx.records = map;
	}
	if (!rc && ctx.records) {
		/* The old records are read while the keys are hashed: neither
		 * needs the other until the pages are compared. */
		pthread_t reader;
		bool threaded = pthread_create(&reader, NULL, read_page_records, &ctx) == 0;
		if (!threaded)
			html_page_records_read(&ctx);
		html_pagekey_build(&ctx);
		if (threaded)
			pthread_join(reader, NULL);
	}
	if (!rc && !o.no_layout_cache) {
		rc = cgm_outdir_subdir(&dir, HTML_CACHE_DIR);
		for (int k = 0; !rc && k < dir.nsub; k++)
			if (strcmp(dir.sub[k].rel, HTML_CACHE_DIR) == 0)
				ctx.cache_fd = dir.sub[k].fd;
	}
	if (!rc)
		rc = write_with_manifest(&ctx, &dir, &o);
	if (ctx.shared) {
		last_stats.layouts = ctx.shared->layouts;
		last_stats.hits = ctx.shared->hits;
		last_stats.skipped = ctx.shared->skipped;
		last_stats.schemas_skipped = ctx.shared->schemas_skipped;
		munmap(ctx.shared, shared_size);
		ctx.shared = NULL;
	}
	if (ctx.records) {
		munmap(ctx.records, records_size);
		ctx.records = NULL;
	}
	if (out && !rc) {
		out->function_pages = ctx.nuser;
		out->pages_unchanged = last_stats.skipped;
		out->schema_pages = ctx.nschemas;
		out->schema_pages_unchanged = last_stats.schemas_skipped;
		out->layouts = last_stats.layouts;
		out->layout_hits = last_stats.hits;
	}
	html_ctx_free(&ctx);
	cgm_outdir_close(&dir);
	return rc;
}
