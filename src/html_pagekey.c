/*
 * html_pagekey.c - what each function page of the site is built from,
 * hashed, so that rendering again into a folder neither builds nor writes
 * a page whose inputs did not change.
 *
 * In:  the html_ctx (its model read-only); the output folder's page
 *      records (HTML_PAGES_FILE, written by the previous rendering).
 * Out: ctx->site_key (what every page shows of the site: cgmap's version,
 *      the options, the source's name, ...), ctx->shown[f] (what any page
 *      shows of function f: its id, names, status, figures, page name) and
 *      ctx->hood[f] (f's neighbourhood as its graph may draw it: its callers
 *      up to `depth` calls away and its callees likewise, as shown, and
 *      their edges of that side with all their fields); the old records per function (ctx->old_records);
 *      the records file of this rendering.
 * Memory: the arrays are malloc'd into the ctx and freed by
 *      html_pagekey_free; ctx->records is the caller's shared mapping.
 *
 * Why a neighbourhood hash and not the graph's DOT: building every page's
 * DOT text costs a sixth of a rendering, and the snapshot's reading already
 * costs two fifths.  hood[f] is a superset of what f's page shows of other
 * functions (the graph draws callers' callers and callees' callees up to
 * `depth` calls away and the edges between them; the tables list f's own
 * edges), so a change anywhere within it changes the key.  It may also
 * change for an edge the page does not draw: such a page is built again,
 * with the same bytes, and cgm_outdir_write leaves the file alone.
 *
 * Schema pages have records too (after the functions': ctx->records[nuser
 * + schema]), keyed by html_schema_page_key over their members' hoods.
 *
 * A record holds the key and, per file of the page, its inode, size and
 * modification time after the write, and the hash of its bytes.  A file
 * whose stamp matches is as written (every write of cgmap is a rename, a
 * new inode); one whose stamp does not is read and kept only if its bytes
 * hash as recorded, like git refreshing its index: a folder copied,
 * restored from a CI cache or unpacked keeps its pages, a page deleted,
 * edited or replaced is built again.
 */
#include "html_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgmap/error.h"
#include "cgmap/hash.h"
#include "cgmap/runtime.h"

/* The records file's first words: a file of another format is not read. */
#define RECORDS_HEADER "# cgmap page records 2"
/* A page file larger than this is not read to compare its bytes (the
 * largest function page of a 10,000-function schema is 3 MB). */
#define HTML_PAGE_VERIFY_MAX ((uint64_t)64 << 20)

/* Bumped whenever a function page's layout changes in a way the inputs
 * below do not show (a new section, other markup): old records then never
 * match.  CGMAP_VERSION is hashed too. */
#define PAGE_FORMAT "function-page 6"

/* Words and bytes into a key: cgm_hash_mix and cgm_hash_words (FNV-1a's
 * byte a step over every edge's fields and every string was a tenth of a
 * render after a small change). */
uint64_t html_key_u64(uint64_t h, uint64_t v)
{
	return cgm_hash_mix(h, v);
}

uint64_t html_key_bytes(uint64_t h, const void *data, size_t len)
{
	return cgm_hash_words(h, data, len);
}

/* NULL and "" differ: a tag word first, the length last. */
uint64_t html_key_str(uint64_t h, const char *s)
{
	if (!s)
		return html_key_u64(h, 0x01);
	return html_key_bytes(html_key_u64(h, 0x02), s, strlen(s));
}

uint64_t html_key_source(uint64_t h, const cgm_function *f)
{
	if (!f->source)
		return html_key_u64(h, 0x01);
	/* The snapshot reader hashed the body while it had it at hand: read
	 * again here, ten megabytes of bodies at 10,000 functions were a tenth
	 * of the page keys' time, in cache misses. */
	uint64_t body = f->source_hash ? f->source_hash
				       : cgm_hash_words(CGM_FNV1A_OFFSET, f->source, strlen(f->source)) | 1;
	h = html_key_u64(html_key_u64(h, 0x02), body);
	/* the source view says which lines are for another server version */
	for (int i = 0; f->other_version_lines && i <= 2 * f->other_version_lines[0]; i++)
		h = html_key_u64(h, (uint64_t)f->other_version_lines[i]);
	return h;
}

static uint64_t key_double(uint64_t h, double d)
{
	uint64_t bits;
	memcpy(&bits, &d, sizeof(bits));
	return html_key_u64(h, bits);
}

static uint64_t key_runtime(uint64_t h, const cgm_runtime_stats *r)
{
	h = html_key_u64(h, (uint64_t)r->calls);
	h = key_double(h, r->total_ms);
	return key_double(h, r->self_ms);
}

static uint64_t site_key(const html_ctx *ctx)
{
	const cgm_model *m = ctx->model;
	uint64_t h = html_key_str(CGM_FNV1A_OFFSET, "cgmap " CGMAP_VERSION);
	h = html_key_str(h, PAGE_FORMAT);
	h = html_key_u64(h, (uint64_t)ctx->opts.depth);
	h = html_key_u64(h, (uint64_t)ctx->opts.node_cap);
	h = html_key_u64(h, ctx->opts.dot_sources);
	h = html_key_u64(h, ctx->opts.graphviz_neighbourhoods);
	h = html_key_str(h, m->source.name);
	h = html_key_u64(h, m->has_runtime);
	h = html_key_str(h, m->runtime_window);
	h = html_key_u64(h, ctx->analysed);
	h = html_key_u64(h, ctx->scc_from_model);
	h = key_double(h, ctx->max_self_ms);
	h = html_key_u64(h, (uint64_t)m->npaths);
	h = html_key_u64(h, (uint64_t)ctx->nschemas);
	return h;
}

/* What a page shows of function f wherever it appears (a node, a link, a
 * table row): everything it is drawn or named with. */
static uint64_t shown_key(const html_ctx *ctx, int f, cgm_strbuf *scratch)
{
	const cgm_function *fn = &ctx->model->functions[f];
	uint64_t h = html_key_str(CGM_FNV1A_OFFSET, fn->id);
	h = html_key_str(h, fn->schema);
	h = html_key_str(h, fn->name);
	h = html_key_str(h, fn->identity_args);
	h = html_key_str(h, f < ctx->nuser ? ctx->page[f] : NULL);
	h = html_key_u64(h, (uint64_t)fn->kind);
	h = html_key_str(h, fn->language);
	cgm_strbuf_reset(scratch); /* not len = 0: the text before would stay behind its NUL */
	html_status_text(scratch, ctx, f);
	h = html_key_str(h, cgm_strbuf_cstr(scratch));
	h = html_key_u64(h, (uint64_t)fn->root | (uint64_t)fn->observed_entry << 1 |
				    (uint64_t)fn->referenced << 2 | (uint64_t)fn->is_trigger << 3 |
				    (uint64_t)fn->dead << 4 | (uint64_t)fn->cold << 5 |
				    (uint64_t)fn->builtin << 6 | (uint64_t)fn->analysed << 7 |
				    (uint64_t)fn->reachable << 8 | (uint64_t)(fn->nerrors > 0) << 9 |
				    (uint64_t)(ctx->scc[f] >= 0) << 10);
	h = html_key_u64(h, (uint64_t)fn->verdict);
	h = html_key_str(h, fn->confidence);
	h = html_key_str(h, fn->kept);
	return key_runtime(h, &fn->runtime);
}

/* Every field of an edge a page may show, without its ends. */
static uint64_t edge_key(uint64_t h, const html_ctx *ctx, const cgm_edge *e)
{
	h = html_key_u64(h, (uint64_t)e->via);
	h = html_key_str(h, e->object);
	h = html_key_u64(h, e->provenance);
	h = html_key_u64(h, (uint64_t)e->ambiguous | (uint64_t)cgm_edge_get_rare(e)->earlier_body << 1 |
				    (uint64_t)cgm_edge_unexplained(e) << 2);
	h = html_key_u64(h, (uint64_t)cgm_edge_get_rare(e)->ncaller_bodies);
	for (int i = 0; i < cgm_edge_get_rare(e)->ncaller_bodies; i++)
		h = html_key_str(h, cgm_edge_get_rare(e)->caller_bodies[i]);
	h = html_key_u64(h, (uint64_t)e->nlines);
	for (int i = 0; i < e->nlines; i++)
		h = html_key_u64(h, (uint64_t)(int64_t)e->lines[i]);
	h = html_key_str(h, cgm_edge_get_rare(e)->declared);
	(void)ctx;
	return key_runtime(h, cgm_edge_runtime(e));
}

/* One side's hash of every function (see html_pagekey_build), on a
 * thread of its own for one of the two sides. */
typedef struct side_job {
	const html_ctx *ctx;
	const uint64_t *ekey;
	int dir;         /* 0: callers, 1: callees */
	uint64_t *out;   /* malloc'd, n + 1 */
} side_job;

static void *side_hashes(void *arg)
{
	side_job *job = arg;
	const html_ctx *ctx = job->ctx;
	const cgm_model *m = ctx->model;
	int n = ctx->nfn, dir = job->dir;
	int rounds = ctx->opts.depth > 1 ? ctx->opts.depth : 1;
	const uint64_t *base = ctx->shown;
	const int *start = dir ? ctx->out_start : ctx->in_start;
	const int *list = dir ? ctx->out_list : ctx->in_list;
	uint64_t *prev = cgm_xcalloc((size_t)n + 1, sizeof(uint64_t));
	uint64_t *next = cgm_xcalloc((size_t)n + 1, sizeof(uint64_t));
	memcpy(prev, base, sizeof(uint64_t) * (size_t)n);
	for (int r = 0; r < rounds; r++) {
		for (int f = 0; f < n; f++) {
			uint64_t h = html_key_u64(base[f], 0x5e9a0000u + (uint64_t)dir);
			for (int k = start[f]; k < start[f + 1]; k++) {
				const cgm_edge *e = &m->edges[list[k]];
				h = html_key_u64(h, job->ekey[list[k]]);
				h = html_key_u64(h, prev[dir ? e->to : e->from]);
			}
			next[f] = h;
		}
		uint64_t *t = prev;
		prev = next, next = t;
	}
	free(next);
	job->out = prev;
	return NULL;
}

/* Each edge's own fields, hashed once for both sides and every round. */
typedef struct edge_job {
	const html_ctx *ctx;
	uint64_t *ekey;
} edge_job;

static void *edge_hashes(void *arg)
{
	edge_job *job = arg;
	const cgm_model *m = job->ctx->model;
	for (int e = 0; e < m->nedges; e++)
		job->ekey[e] = edge_key(CGM_FNV1A_OFFSET, job->ctx, &m->edges[e]);
	return NULL;
}

/* Two threads: the edges' keys beside the functions' (shown), then one
 * side each (a sixth of a re-render's serial part at 10,000 functions
 * when done on one). */
void html_pagekey_build(html_ctx *ctx)
{
	const cgm_model *m = ctx->model;
	int n = ctx->nfn;
	ctx->site_key = site_key(ctx);
	ctx->shown = cgm_xcalloc((size_t)n + 1, sizeof(uint64_t));
	edge_job edges = { ctx, cgm_xcalloc((size_t)m->nedges + 1, sizeof(uint64_t)) };
	pthread_t helper;
	bool threaded = pthread_create(&helper, NULL, edge_hashes, &edges) == 0;
	cgm_strbuf scratch = CGM_STRBUF_INIT;
	for (int f = 0; f < n; f++)
		ctx->shown[f] = shown_key(ctx, f, &scratch);
	cgm_strbuf_free(&scratch);
	if (threaded)
		pthread_join(helper, NULL);
	else
		edge_hashes(&edges);
	/* The graph grows callers through callers' callers and callees
	 * through callees' callees, never across (html_graph_function), so
	 * each side has its hash: side_0[f] = f as shown, side_k[f]
	 * adds f's edges of that side, each with side_(k-1) of its other end.
	 * side_depth[f] then holds every function a graph of depth `depth`
	 * may draw and every edge it may draw or count; one round at least,
	 * for the callers and callees tables. */
	side_job side[2] = { { ctx, edges.ekey, 0, NULL }, { ctx, edges.ekey, 1, NULL } };
	threaded = pthread_create(&helper, NULL, side_hashes, &side[1]) == 0;
	side_hashes(&side[0]);
	if (threaded)
		pthread_join(helper, NULL);
	else
		side_hashes(&side[1]);
	free(edges.ekey);
	ctx->hood = side[0].out;
	for (int f = 0; f < n; f++)
		ctx->hood[f] = html_key_u64(side[0].out[f], side[1].out[f]);
	free(side[1].out);
}

void html_pagekey_free(html_ctx *ctx)
{
	free(ctx->shown), free(ctx->hood), free(ctx->old_records);
	ctx->shown = ctx->hood = NULL;
	ctx->old_records = NULL;
}

/* ---- the records file ---- */

/* The page of record rec: function rec's, or for rec >= nuser schema
 * (rec - nuser)'s. */
static const char *record_page(const html_ctx *ctx, int rec)
{
	return rec < ctx->nuser ? ctx->page[rec] : ctx->schemas[rec - ctx->nuser].page;
}

/* The folders of a record's files: functions/ (schemas/), and
 * dot/functions/ (dot/schemas/) with the DOT sources. */
static int page_folders(const html_ctx *ctx, int rec, int fds[2])
{
	int nfiles = ctx->opts.dot_sources ? 2 : 1;
	bool schema = rec >= ctx->nuser;
	const char *folder = schema ? "schemas" : "functions";
	const char *dot_folder = schema ? "dot/schemas" : "dot/functions";
	fds[0] = fds[1] = -1;
	for (int k = 0; k < ctx->dir->nsub; k++) {
		if (strcmp(ctx->dir->sub[k].rel, folder) == 0)
			fds[0] = ctx->dir->sub[k].fd;
		else if (strcmp(ctx->dir->sub[k].rel, dot_folder) == 0)
			fds[1] = ctx->dir->sub[k].fd;
	}
	return nfiles;
}

/* The name of file k of record rec inside its folder. */
static void page_file_name(char *out, size_t cap, const html_ctx *ctx, int rec, int k)
{
	const char *page = record_page(ctx, rec);
	if (k == 0)
		snprintf(out, cap, "%s", page);
	else
		snprintf(out, cap, "%.*s.dot", (int)(strlen(page) - 5), page);
}

static bool stat_file(int dirfd, const char *name, html_file_stamp *out)
{
	struct stat st;
	if (dirfd < 0 || fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
		return false;
	out->ino = (uint64_t)st.st_ino;
	out->size = (uint64_t)st.st_size;
	out->sec = (int64_t)st.st_mtim.tv_sec;
	out->nsec = (int64_t)st.st_mtim.tv_nsec;
	out->hash = 0;
	return true;
}

uint64_t html_page_bytes_hash(const void *data, size_t len)
{
	uint64_t h = html_key_u64(cgm_hash_words(CGM_FNV1A_OFFSET, data ? data : "", len), len);
	return h ? h : 1;
}

/* Whether file `name` holds bytes of the size and hash recorded: read
 * whole, so only after its stamp did not match. */
static bool same_bytes(int dirfd, const char *name, const html_file_stamp *old)
{
	if (!old->hash || old->size > HTML_PAGE_VERIFY_MAX)
		return false;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	char *data = cgm_xcalloc((size_t)old->size + 1, 1);
	size_t got = 0;
	ssize_t n;
	while (got < old->size + 1 &&
	       ((n = read(fd, data + got, (size_t)old->size + 1 - got)) > 0 ||
		(n < 0 && errno == EINTR)))
		if (n > 0)
			got += (size_t)n;
	close(fd);
	/* One byte more than recorded is asked for: a file that grew since
	 * its fstatat is not the same. */
	bool same = got == old->size && html_page_bytes_hash(data, got) == old->hash;
	free(data);
	return same;
}

bool html_page_unchanged(const html_ctx *ctx, int rec_no, uint64_t key)
{
	if (!ctx->old_records || !ctx->records)
		return false;
	const html_page_record *old = &ctx->old_records[rec_no];
	int fds[2];
	int nfiles = page_folders(ctx, rec_no, fds);
	if (old->key != key || old->nfiles != nfiles)
		return false;
	html_page_record now_rec = *old;
	for (int k = 0; k < nfiles; k++) {
		char name[512];
		html_file_stamp *now = &now_rec.file[k];
		page_file_name(name, sizeof(name), ctx, rec_no, k);
		if (!stat_file(fds[k], name, now) || now->size != old->file[k].size)
			return false;
		now->hash = old->file[k].hash;
		if (now->ino == old->file[k].ino && now->sec == old->file[k].sec &&
		    now->nsec == old->file[k].nsec)
			continue;
		/* Not as written: a copy of the folder (new inodes and times)
		 * is kept when its bytes are; an edited page is not. */
		if (!same_bytes(fds[k], name, &old->file[k]))
			return false;
	}
	ctx->records[rec_no] = now_rec;
	return true;
}

void html_page_note(const html_ctx *ctx, int rec_no, uint64_t key, uint64_t cache_key,
		    const uint64_t file_hash[2])
{
	if (!ctx->records)
		return;
	html_page_record rec;
	memset(&rec, 0, sizeof(rec));
	int fds[2];
	int nfiles = page_folders(ctx, rec_no, fds);
	rec.key = key;
	rec.cache_key = cache_key;
	rec.nfiles = nfiles;
	for (int k = 0; k < nfiles; k++) {
		char name[512];
		page_file_name(name, sizeof(name), ctx, rec_no, k);
		if (!stat_file(fds[k], name, &rec.file[k])) {
			rec.key = 0; /* no record: built again next time */
			break;
		}
		rec.file[k].hash = file_hash[k];
	}
	ctx->records[rec_no] = rec;
}

typedef struct page_ref {
	const char *page;
	int rec_no;
} page_ref;

static int compare_page_refs(const void *a, const void *b)
{
	return strcmp(((const page_ref *)a)->page, ((const page_ref *)b)->page);
}

/* One line: KEY CACHE-KEY NFILES (INODE SIZE SEC NSEC HASH)*NFILES PAGE. */
static bool parse_record(char *line, html_page_record *rec, const char **page)
{
	char *p = line, *end;
	memset(rec, 0, sizeof(*rec));
	errno = 0;
	rec->key = strtoull(p, &end, 16);
	if (end == p || *end != ' ')
		return false;
	p = end + 1;
	rec->cache_key = strtoull(p, &end, 16);
	if (end == p || *end != ' ')
		return false;
	p = end + 1;
	long nfiles = strtol(p, &end, 10);
	if (end == p || *end != ' ' || nfiles < 1 || nfiles > 2)
		return false;
	rec->nfiles = (int)nfiles;
	p = end + 1;
	for (int k = 0; k < rec->nfiles; k++) {
		uint64_t v[5];
		for (int i = 0; i < 5; i++) {
			v[i] = strtoull(p, &end, i == 4 ? 16 : 10);
			if (end == p || *end != ' ')
				return false;
			p = end + 1;
		}
		rec->file[k] = (html_file_stamp){ v[0], v[1], (int64_t)v[2], (int64_t)v[3], v[4] };
	}
	*page = p;
	return errno == 0 && *p;
}

void html_page_records_read(html_ctx *ctx)
{
	ctx->old_records = NULL;
	/* A line is under 200 bytes and a page name; anything much larger is
	 * not ours. */
	char *text = cgm_outdir_read_small(ctx->dir->fd, HTML_PAGES_FILE,
					   ((size_t)ctx->nuser + (size_t)ctx->nschemas + 16) * 1024, NULL);
	if (!text)
		return;
	if (strncmp(text, RECORDS_HEADER ":", strlen(RECORDS_HEADER) + 1) != 0) {
		free(text);
		return;
	}
	/* Function pages by name, then schema pages ("schemas/NAME"). */
	int nf = ctx->nuser, ns = ctx->nschemas;
	page_ref *refs = cgm_xcalloc((size_t)nf + (size_t)ns + 1, sizeof(page_ref));
	for (int i = 0; i < nf + ns; i++)
		refs[i] = (page_ref){ record_page(ctx, i), i };
	qsort(refs, (size_t)nf, sizeof(page_ref), compare_page_refs);
	qsort(refs + nf, (size_t)ns, sizeof(page_ref), compare_page_refs);
	ctx->old_records = cgm_xcalloc((size_t)nf + (size_t)ns + 1, sizeof(html_page_record));
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		html_page_record rec;
		page_ref want = { NULL, -1 };
		if (line[0] == '#' || strncmp(line, "site ", 5) == 0 ||
		    strncmp(line, "file ", 5) == 0 || !parse_record(line, &rec, &want.page))
			continue;
		const page_ref *hit;
		if (strncmp(want.page, "schemas/", 8) == 0) {
			want.page += 8;
			hit = bsearch(&want, refs + nf, (size_t)ns, sizeof(page_ref), compare_page_refs);
		} else {
			hit = bsearch(&want, refs, (size_t)nf, sizeof(page_ref), compare_page_refs);
		}
		if (hit)
			ctx->old_records[hit->rec_no] = rec;
	}
	free(refs);
	free(text);
}

/* What a whole site is made from: the input, the options, cgmap. */
static uint64_t site_stamp(const cgm_html_options *o)
{
	uint64_t h = html_key_str(CGM_FNV1A_OFFSET, "cgmap " CGMAP_VERSION);
	h = html_key_str(h, PAGE_FORMAT);
	h = html_key_u64(h, o->input_key);
	h = html_key_u64(h, (uint64_t)o->depth);
	h = html_key_u64(h, (uint64_t)o->node_cap);
	h = html_key_u64(h, o->dot_sources);
	h = html_key_u64(h, o->graphviz_neighbourhoods);
	return h ? h : 1;
}

/* A file of a function or schema page: its page's record says it. */
static bool recorded_file(const char *rel)
{
	return strncmp(rel, "functions/", 10) == 0 || strncmp(rel, "dot/functions/", 14) == 0 ||
	       strncmp(rel, "schemas/", 8) == 0 || strncmp(rel, "dot/schemas/", 12) == 0;
}

/* "file INODE SIZE SEC NSEC REL" of every file of the site but the
 * function and schema pages (their records say it); false when one cannot
 * be stat'ed. */
static bool site_file_lines(cgm_strbuf *b, const html_ctx *ctx, char *const *fresh, int nfresh)
{
	for (int i = 0; i < nfresh; i++) {
		if (recorded_file(fresh[i]))
			continue;
		html_file_stamp st;
		if (!stat_file(ctx->dir->fd, fresh[i], &st))
			return false;
		cgm_strbuf_printf(b, "file %" PRIu64 " %" PRIu64 " %" PRId64 " %" PRId64 " %s\n",
				  st.ino, st.size, st.sec, st.nsec, fresh[i]);
	}
	return true;
}

int html_page_records_write(const html_ctx *ctx, char *const *fresh, int nfresh)
{
	if (!ctx->records)
		return 0;
	cgm_strbuf b = CGM_STRBUF_INIT;
	cgm_strbuf_puts(&b, RECORDS_HEADER ": key, layout cache key, then per file inode, "
			    "size, modification time, hash of the bytes; the next rendering skips "
			    "a page whose key and files match\n");
	bool whole = ctx->opts.input_key != 0;
	cgm_strbuf files = CGM_STRBUF_INIT;
	for (int rec_no = 0; rec_no < ctx->nuser + ctx->nschemas; rec_no++) {
		const html_page_record *rec = &ctx->records[rec_no];
		if (!rec->key) {
			whole = false;
			continue;
		}
		cgm_strbuf_printf(&files, "%016" PRIx64 " %016" PRIx64 " %d", rec->key, rec->cache_key,
				  rec->nfiles);
		for (int k = 0; k < rec->nfiles; k++)
			cgm_strbuf_printf(&files, " %" PRIu64 " %" PRIu64 " %" PRId64 " %" PRId64
						  " %016" PRIx64,
					  rec->file[k].ino, rec->file[k].size, rec->file[k].sec,
					  rec->file[k].nsec, rec->file[k].hash);
		cgm_strbuf_printf(&files, " %s%s\n", rec_no < ctx->nuser ? "" : "schemas/",
				  record_page(ctx, rec_no));
	}
	/* The whole site, when every file of it is recorded: a rendering of
	 * the same input then need not read it (cgm_html_site_current). */
	size_t mark = files.len;
	if (whole && site_file_lines(&files, ctx, fresh, nfresh))
		cgm_strbuf_printf(&b, "site %016" PRIx64 "\n", site_stamp(&ctx->opts));
	else
		files.len = mark;
	cgm_strbuf_add(&b, files.data ? files.data : "", files.len);
	cgm_strbuf_free(&files);
	int rc = cgm_outdir_write(ctx->dir, HTML_PAGES_FILE, b.data ? b.data : "", b.len);
	cgm_strbuf_free(&b);
	return rc;
}

/* The stamp of a file line ("file ...") matches the file now. */
static bool file_line_current(int dirfd, char *line)
{
	char *p = line + 5, *end;
	uint64_t v[4];
	for (int i = 0; i < 4; i++) {
		v[i] = strtoull(p, &end, 10);
		if (end == p || *end != ' ')
			return false;
		p = end + 1;
	}
	html_file_stamp now;
	/* No component of the path may be a link: the check would look at
	 * files outside the site. */
	if (strstr(p, "..") || p[0] == '/' || !*p)
		return false;
	for (char *slash = strchr(p, '/'); slash; slash = strchr(slash + 1, '/')) {
		struct stat st;
		*slash = '\0';
		bool folder = fstatat(dirfd, p, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
		*slash = '/';
		if (!folder)
			return false;
	}
	return stat_file(dirfd, p, &now) && now.ino == v[0] && now.size == v[1] &&
	       now.sec == (int64_t)v[2] && now.nsec == (int64_t)v[3];
}

/* A record's files (functions/PAGE and dot/functions/NAME.dot, or for
 * "schemas/PAGE" schemas/PAGE and dot/schemas/NAME.dot) match its
 * stamps. */
static bool record_current(int dirfd, const html_page_record *rec, const char *page)
{
	const char *folder = "functions";
	if (strncmp(page, "schemas/", 8) == 0)
		folder = "schemas", page += 8;
	size_t n = strlen(page);
	if (n <= 5 || strcmp(page + n - 5, ".html") != 0 || strchr(page, '/'))
		return false;
	for (int k = 0; k < rec->nfiles; k++) {
		char rel[600];
		if (k == 0)
			snprintf(rel, sizeof(rel), "%s/%s", folder, page);
		else
			snprintf(rel, sizeof(rel), "dot/%s/%.*s.dot", folder, (int)(n - 5), page);
		char line[700];
		snprintf(line, sizeof(line), "file %" PRIu64 " %" PRIu64 " %" PRId64 " %" PRId64 " %s",
			 rec->file[k].ino, rec->file[k].size, rec->file[k].sec, rec->file[k].nsec, rel);
		if (!file_line_current(dirfd, line))
			return false;
	}
	return true;
}

#define RECORDS_MAX ((off_t)256 << 20)

bool cgm_html_site_current(const char *outdir, const cgm_html_options *opts)
{
	if (!opts || !opts->input_key || opts->every_page || opts->no_layout_cache || !outdir)
		return false;
	int dirfd = open(outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return false;
	char *text = cgm_outdir_read_small(dirfd, HTML_PAGES_FILE, (size_t)RECORDS_MAX, NULL);
	if (!text) {
		close(dirfd);
		return false;
	}
	char want[32];
	snprintf(want, sizeof(want), "site %016" PRIx64, site_stamp(opts));
	bool stamped = false, current = true;
	for (char *line = text, *next; current && line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		html_page_record rec;
		const char *page;
		if (line[0] == '#')
			continue;
		if (strncmp(line, "site ", 5) == 0) {
			/* Another input or other options: no file need be looked
			 * at (a changed snapshot's render had stat'ed every page). */
			stamped = strcmp(line, want) == 0;
			current = stamped;
		} else if (strncmp(line, "file ", 5) == 0)
			current = file_line_current(dirfd, line);
		else if (parse_record(line, &rec, &page))
			current = record_current(dirfd, &rec, page);
		else
			current = false;
	}
	free(text);
	close(dirfd);
	return stamped && current;
}
