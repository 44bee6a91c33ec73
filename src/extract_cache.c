/*
 * extract_cache.c - extraction results kept between runs (see
 * cgmap/extract_cache.h).
 *
 * In:  DIR/.cgmap-cache/bodies of an earlier run, its entries read at
 *      open and each record read (pread) when fetched; the functions each
 *      resolving thread extracts or asks for.
 * Out: decoded sites in the caller's arena; the next file.  The old
 *      file's descriptor and entries, the slots' buffers, spill files and
 *      entry lists are the cache's, freed by cgm_extract_cache_free.
 *
 * The file: a header (magic, format, the writing build's identity, the
 * number of entries), then the entries sorted by key (key, offset, length,
 * hash of the record's bytes), then the records.  A record is a byte
 * stream of LEB128 numbers and length-prefixed strings: the function's
 * flag and errors, its sites, and when it has any the expressions its
 * sites carry for typing, as a table of nodes (expressions and FROM scopes)
 * that refer to each other by index, since extraction shares nodes (a
 * PL/pgSQL variable's row, a CTE's columns) and a tree copy would not.
 * Encoding walks the nodes with a worklist and decoding allocates them all
 * before it fills any: neither recurses, however deep an expression.
 */
#include "cgmap/extract_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgmap/error.h"
#include "cgmap/exprtype.h"
#include "cgmap/hash.h"
#include "cgmap/strbuf.h"
#include "outfile.h"

#define CACHE_MAGIC "cgmap bodies\n"
#define CACHE_MAGIC_LEN 13
#define CACHE_FORMAT 9u

typedef struct file_header {
	char magic[16];
	uint32_t format;
	uint32_t pad;
	uint64_t identity;
	uint64_t nentries;
} file_header;

typedef struct file_entry {
	uint64_t key[2];
	uint64_t offset;   /* from the start of the records */
	uint64_t length;
	uint64_t hash;     /* cgm_hash_words over the record */
} file_entry;

typedef struct slot_entry {
	uint64_t key[2];
	bool old;          /* a record fetched: offset is in the old file's records */
	uint64_t offset;   /* else in the slot's stream */
	uint64_t length;
	uint64_t hash;
} slot_entry;

/* What a slot keeps goes to its stream: a spill file, then what is staged
 * in `bytes`.  The next file holds a record of every body of the run, 2.3 KB
 * each on the benchmark's schema: held in memory until the save they were
 * the largest part of a 100,000-function map's peak (234 MB).  The spill
 * file is unlinked as it is made and read back once, by the save. */
#define SPILL_AT (1024 * 1024)

struct cgm_extract_cache_slot {
	cgm_extract_cache_slot *next;
	const cgm_extract_cache *cache;
	cgm_strbuf bytes;
	int spill_fd;      /* -1: none yet */
	uint64_t spilled;  /* bytes in the spill file */
	bool spill_failed; /* a spill write failed: this slot's records are dropped */
	uint64_t base;     /* the save: where its stream starts in the next records */
	unsigned char *record; /* the old record being fetched */
	size_t record_cap;
	slot_entry *entries;
	size_t nentries, cap;
	long fetched, parsed;
};

struct cgm_extract_cache {
	uint64_t identity;          /* 0: unknown build, nothing read or written */
	int fd;                     /* the old file, or -1 */
	file_entry *entries;        /* its entries (heap), sorted by key */
	size_t nentries;
	uint64_t records_at;        /* where its records start in it */
	uint64_t records_size;
	pthread_mutex_t lock;       /* guards `slots` */
	cgm_extract_cache_slot *slots;
};

/* ---- the build ----------------------------------------------------------- */

/* The executable's identity: another build may extract differently, and
 * its version alone does not tell a rebuilt one. */
static uint64_t build_identity(void)
{
	struct stat st;
	if (stat("/proc/self/exe", &st) != 0)
		return 0;
	uint64_t h = cgm_fnv1a_more(CGM_FNV1A_OFFSET, "cgmap " CGMAP_VERSION "\n");
	h = cgm_hash_mix(h, CACHE_FORMAT);
	h = cgm_hash_mix(h, (uint64_t)st.st_size);
	h = cgm_hash_mix(h, (uint64_t)st.st_mtim.tv_sec);
	h = cgm_hash_mix(h, (uint64_t)st.st_mtim.tv_nsec);
	h = cgm_hash_mix(h, (uint64_t)st.st_ino);
	h = cgm_hash_mix(h, (uint64_t)st.st_dev);
	h = cgm_hash_mix(h, sizeof(void *));
	return h ? h : 1;
}

/* All of `len` bytes at `offset`, or false. */
static bool read_at(int fd, void *buf, size_t len, uint64_t offset)
{
	unsigned char *p = buf;
	while (len > 0) {
		ssize_t n = pread(fd, p, len, (off_t)offset);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= (size_t)n;
		offset += (uint64_t)n;
	}
	return true;
}

cgm_extract_cache *cgm_extract_cache_open(const char *path)
{
	cgm_extract_cache *c = cgm_xcalloc(1, sizeof *c);
	pthread_mutex_init(&c->lock, NULL);
	c->fd = -1;
	c->identity = build_identity();
	if (!c->identity || !path)
		return c;
	/* Read with pread, not mapped: a map reads every record once, and the
	 * pages of a mapping would stay resident beside the model (the whole
	 * file, 237 MB at 100,000 functions, by the end of resolution). */
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return c;
	struct stat st;
	file_header h;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    (uint64_t)st.st_size < sizeof(file_header) || !read_at(fd, &h, sizeof h, 0)) {
		close(fd);
		return c;
	}
	uint64_t size = (uint64_t)st.st_size;
	uint64_t room = size - sizeof h;
	if (memcmp(h.magic, CACHE_MAGIC, CACHE_MAGIC_LEN) != 0 || h.format != CACHE_FORMAT ||
	    h.identity != c->identity || h.nentries > room / sizeof(file_entry)) {
		close(fd);
		return c;
	}
	file_entry *entries = cgm_xcalloc((size_t)h.nentries + 1, sizeof(file_entry));
	if (!read_at(fd, entries, (size_t)h.nentries * sizeof(file_entry), sizeof h)) {
		free(entries);
		close(fd);
		return c;
	}
	c->fd = fd;
	c->entries = entries;
	c->nentries = (size_t)h.nentries;
	c->records_at = sizeof h + h.nentries * sizeof(file_entry);
	c->records_size = size - c->records_at;
	return c;
}

void cgm_extract_cache_free(cgm_extract_cache *cache)
{
	if (!cache)
		return;
	if (cache->fd >= 0)
		close(cache->fd);
	free(cache->entries);
	for (cgm_extract_cache_slot *s = cache->slots, *next; s; s = next) {
		next = s->next;
		cgm_strbuf_free(&s->bytes);
		if (s->spill_fd >= 0)
			close(s->spill_fd);
		free(s->record);
		free(s->entries);
		free(s);
	}
	pthread_mutex_destroy(&cache->lock);
	free(cache);
}

cgm_extract_cache_slot *cgm_extract_cache_slot_new(cgm_extract_cache *cache)
{
	cgm_extract_cache_slot *s = cgm_xcalloc(1, sizeof *s);
	s->cache = cache;
	s->spill_fd = -1;
	pthread_mutex_lock(&cache->lock);
	s->next = cache->slots;
	cache->slots = s;
	pthread_mutex_unlock(&cache->lock);
	return s;
}

void cgm_extract_cache_counts(const cgm_extract_cache *cache, long *fetched, long *parsed)
{
	*fetched = *parsed = 0;
	for (const cgm_extract_cache_slot *s = cache->slots; s; s = s->next) {
		*fetched += s->fetched;
		*parsed += s->parsed;
	}
}

/* ---- keys ---------------------------------------------------------------- */

static uint64_t mix_str(uint64_t h, const char *s)
{
	if (!s)
		return cgm_hash_mix(h, 0x6e756c6cULL); /* NULL differs from "" */
	return cgm_hash_words(h, s, strlen(s));
}

static uint64_t key_half(uint64_t h, const cgm_function *fn, cgm_coercions coercions)
{
	h = cgm_hash_mix(h, (uint64_t)coercions);
	h = cgm_hash_mix(h, (uint64_t)fn->kind);
	h = cgm_hash_mix(h, (uint64_t)fn->is_trigger << 1 | (uint64_t)fn->atomic_body);
	h = mix_str(h, fn->language);
	h = mix_str(h, fn->result);
	h = mix_str(h, fn->arguments);
	h = cgm_hash_mix(h, (uint64_t)fn->nargs);
	h = cgm_hash_mix(h, (uint64_t)(fn->argnames != NULL) << 1 | (fn->argtypes != NULL));
	for (int i = 0; i < fn->nargs; i++) {
		h = mix_str(h, fn->argnames ? fn->argnames[i] : NULL);
		h = mix_str(h, fn->argtypes ? fn->argtypes[i] : NULL);
	}
	return mix_str(h, fn->source);
}

void cgm_extract_cache_key(cgm_extract_key *out, const cgm_function *fn, cgm_coercions coercions)
{
	/* Two seeds: 128 bits, so no two bodies of a lifetime of runs meet. */
	out->h[0] = key_half(CGM_FNV1A_OFFSET, fn, coercions);
	out->h[1] = key_half(0x2545F4914F6CDD1DULL, fn, coercions);
}

/* ---- encoding ------------------------------------------------------------ */

/* Records are mostly numbers of a byte or two and short strings: written
 * in place when the buffer has room (cgm_strbuf_add only to grow it), as
 * a call per byte was an eighth of a first map's resolution. */
static inline void put_bytes(cgm_strbuf *b, const void *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		cgm_strbuf_add(b, p, n);
		return;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

static inline void put_u(cgm_strbuf *b, uint64_t v)
{
	if (b->len + 11 > b->cap) {
		char tmp[10];
		int n = 0;
		do {
			unsigned char byte = v & 0x7f;
			v >>= 7;
			tmp[n++] = (char)(v ? byte | 0x80 : byte);
		} while (v);
		cgm_strbuf_add(b, tmp, (size_t)n);
		return;
	}
	unsigned char *p = (unsigned char *)b->data + b->len;
	unsigned char *start = p;
	do {
		unsigned char byte = v & 0x7f;
		v >>= 7;
		*p++ = v ? byte | 0x80 : byte;
	} while (v);
	*p = '\0';
	b->len += (size_t)(p - start);
}

static void put_s(cgm_strbuf *b, int64_t v)
{
	put_u(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static void put_str(cgm_strbuf *b, const char *s)
{
	if (!s) {
		put_u(b, 0);
		return;
	}
	size_t n = strlen(s);
	put_u(b, (uint64_t)n + 1);
	put_bytes(b, s, n);
}

static void put_strs(cgm_strbuf *b, const char *const *v, int n)
{
	put_u(b, v != NULL);
	for (int i = 0; v && i < n; i++)
		put_str(b, v[i]);
}

enum { NODE_EXPR = 1, NODE_SCOPE = 2 };

/* The nodes reachable from a function's site expressions, each once. */
typedef struct node_table {
	const void **ptrs;   /* by index */
	unsigned char *types;
	size_t n, cap;
	const void **slots;  /* open addressing: pointer -> index + 1 in `where` */
	size_t *where;
	size_t nslots;
} node_table;

static size_t ptr_slot(const node_table *t, const void *p)
{
	uint64_t h = cgm_hash_mix(0, (uint64_t)(uintptr_t)p);
	size_t i = (size_t)h & (t->nslots - 1);
	while (t->slots[i] && t->slots[i] != p)
		i = (i + 1) & (t->nslots - 1);
	return i;
}

static void grow_slots(node_table *t)
{
	size_t old = t->nslots;
	const void **slots = t->slots;
	size_t *where = t->where;
	t->nslots = old ? old * 2 : 256;
	t->slots = cgm_xcalloc(t->nslots, sizeof(void *));
	t->where = cgm_xcalloc(t->nslots, sizeof(size_t));
	for (size_t i = 0; i < old; i++)
		if (slots[i]) {
			size_t j = ptr_slot(t, slots[i]);
			t->slots[j] = slots[i];
			t->where[j] = where[i];
		}
	free(slots);
	free(where);
}

/* The reference to p: 0 for NULL, else its index + 1 (added when new). */
static uint64_t node_ref(node_table *t, const void *p, unsigned char type)
{
	if (!p)
		return 0;
	if ((t->n + 1) * 2 > t->nslots)
		grow_slots(t);
	size_t i = ptr_slot(t, p);
	if (t->slots[i])
		return t->where[i];
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->ptrs = cgm_xrealloc(t->ptrs, t->cap * sizeof(void *));
		t->types = cgm_xrealloc(t->types, t->cap);
	}
	t->ptrs[t->n] = p;
	t->types[t->n] = type;
	t->slots[i] = p;
	t->where[i] = ++t->n;
	return t->n;
}

static void node_table_free(node_table *t)
{
	free(t->ptrs);
	free(t->types);
	free(t->slots);
	free(t->where);
}

/* How many entries `names` has: a call's and a row's go with their
 * arguments, a name's and a star's are its parts. */
static int expr_names_length(const cgm_expr *e)
{
	return e->kind == CGM_EXPR_CALL || e->kind == CGM_EXPR_ROW ? e->nargs : e->nnames;
}

static void put_expr(cgm_strbuf *b, node_table *t, const cgm_expr *e)
{
	put_u(b, (uint64_t)e->kind);
	put_u(b, e->flag);
	put_s(b, e->nargs);
	put_s(b, e->nnames);
	put_s(b, e->param);
	put_str(b, e->schema);
	put_str(b, e->name);
	put_str(b, e->type);
	put_u(b, e->args != NULL);
	for (int i = 0; e->args && i < e->nargs; i++)
		put_u(b, node_ref(t, e->args[i], NODE_EXPR));
	put_strs(b, e->names, expr_names_length(e));
	put_u(b, node_ref(t, e->scope, NODE_SCOPE));
	put_u(b, node_ref(t, e->var, NODE_EXPR));
}

static void put_scope(cgm_strbuf *b, node_table *t, const cgm_scope *s)
{
	put_u(b, node_ref(t, s->parent, NODE_SCOPE));
	put_s(b, s->nitems);
	for (int i = 0; i < s->nitems; i++) {
		const cgm_scope_item *it = &s->items[i];
		put_str(b, it->alias);
		put_str(b, it->schema);
		put_str(b, it->name);
		put_s(b, it->ncolumns);
		int n = it->ncolumns > 0 ? it->ncolumns : 0;
		put_strs(b, it->colnames, n);
		put_u(b, it->colexprs != NULL);
		for (int k = 0; it->colexprs && k < n; k++)
			put_u(b, node_ref(t, it->colexprs[k], NODE_EXPR));
		put_u(b, node_ref(t, it->func, NODE_EXPR));
	}
}

/* The site expressions: the node table, then each site's references.
 * Nodes are written in index order; writing one may add more at the end,
 * so the bodies go to their own buffer and the types follow once known. */
static void put_exprs(cgm_strbuf *out, const cgm_function *fn)
{
	node_table t = { 0 };
	cgm_strbuf refs = CGM_STRBUF_INIT, bodies = CGM_STRBUF_INIT;
	for (int i = 0; i < fn->nsites; i++) {
		const cgm_site_exprs *x = &fn->site_exprs[i];
		put_u(&refs, x->argexprs != NULL);
		for (int k = 0; x->argexprs && k < fn->sites[i].nargs; k++)
			put_u(&refs, node_ref(&t, x->argexprs[k], NODE_EXPR));
		put_u(&refs, node_ref(&t, x->coerce_to, NODE_EXPR));
		put_u(&refs, x->ddl_facts);
		put_u(&refs, x->attribute);
		put_u(&refs, (uint64_t)x->rewrite_group);
		put_u(&refs, (uint64_t)x->default_of);
		put_u(&refs, (uint64_t)x->column_type | (uint64_t)x->type_default << 1 |
				     (uint64_t)x->runtime_typed << 2);
		put_u(&refs, x->valued_columns);
	}
	for (size_t i = 0; i < t.n; i++) {
		if (t.types[i] == NODE_EXPR)
			put_expr(&bodies, &t, t.ptrs[i]);
		else
			put_scope(&bodies, &t, t.ptrs[i]);
	}
	put_s(out, (int64_t)t.n);
	if (t.n)
		cgm_strbuf_add(out, (const char *)t.types, t.n);
	if (bodies.len)
		cgm_strbuf_add(out, bodies.data, bodies.len);
	if (refs.len)
		cgm_strbuf_add(out, refs.data, refs.len);
	cgm_strbuf_free(&refs);
	cgm_strbuf_free(&bodies);
	node_table_free(&t);
}

/* fn's extraction as a record; false when it holds what extraction never
 * sets (resolved targets): such a function is not cached. */
static bool put_function(cgm_strbuf *b, const cgm_function *fn)
{
	put_u(b, fn->analysed);
	put_s(b, fn->nerrors);
	for (int i = 0; i < fn->nerrors; i++) {
		put_s(b, fn->errors[i].line);
		put_str(b, fn->errors[i].message);
	}
	put_s(b, fn->nsites);
	for (int i = 0; i < fn->nsites; i++) {
		const cgm_site *s = &fn->sites[i];
		const cgm_site_rare *r = s->rare;
		if (s->ntargets || s->targets ||
		    (r && (r->target_via || r->target_object || r->runs)))
			return false;
		put_s(b, s->line);
		put_s(b, s->nargs);
		put_u(b, (uint64_t)s->kind);
		put_u(b, (uint64_t)s->resolution);
		put_u(b, (uint64_t)s->via_literal | (uint64_t)s->variadic_call << 1 |
				 (uint64_t)(r != NULL) << 2 | (uint64_t)s->handles_missing << 3);
		put_str(b, s->stmt);
		put_str(b, s->schema);
		put_str(b, s->name);
		put_strs(b, s->argtypes, s->nargs);
		if (r) {
			put_u(b, r->events);
			put_s(b, r->ncolumns);
			put_strs(b, r->columns, r->ncolumns > 0 ? r->ncolumns : 0);
			put_s(b, r->nleading);
			put_s(b, r->nreads);
			put_strs(b, r->reads, r->nreads);
			put_str(b, r->text);
			put_strs(b, r->argnames, s->nargs);
			put_str(b, r->requires_extension);
		}
	}
	put_u(b, fn->site_exprs != NULL);
	if (fn->site_exprs)
		put_exprs(b, fn);
	return true;
}

static slot_entry *new_entry(cgm_extract_cache_slot *slot)
{
	if (slot->nentries == slot->cap) {
		slot->cap = slot->cap ? slot->cap * 2 : 256;
		slot->entries = cgm_xrealloc(slot->entries, slot->cap * sizeof(slot_entry));
	}
	return &slot->entries[slot->nentries++];
}

/* The staged bytes to the slot's spill file, made on first use in TMPDIR
 * (or /tmp).  Without one, or after a failed write, the slot keeps nothing
 * more: a cache is never an error, only a miss. */
static void spill(cgm_extract_cache_slot *slot)
{
	if (slot->spill_fd < 0) {
		const char *dir = getenv("TMPDIR");
		char path[4096];
		if (!dir || !*dir)
			dir = "/tmp";
		if ((size_t)snprintf(path, sizeof path, "%s/cgmap-bodies-XXXXXX", dir) >= sizeof path ||
		    (slot->spill_fd = mkstemp(path)) < 0) {
			slot->spill_failed = true;
			return;
		}
		unlink(path);
	}
	const char *p = slot->bytes.data;
	size_t left = slot->bytes.len;
	while (left > 0) {
		ssize_t n = write(slot->spill_fd, p, left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			slot->spill_failed = true;
			return;
		}
		p += n;
		left -= (size_t)n;
	}
	slot->spilled += slot->bytes.len;
	slot->bytes.len = 0;
}

void cgm_extract_cache_keep(cgm_extract_cache_slot *slot, const cgm_extract_key *key,
			    const cgm_function *fn)
{
	slot->parsed++;
	if (slot->spill_failed)
		return;
	size_t start = slot->bytes.len;
	if (!put_function(&slot->bytes, fn)) {
		slot->bytes.len = start;
		return;
	}
	slot_entry *e = new_entry(slot);
	e->key[0] = key->h[0];
	e->key[1] = key->h[1];
	e->old = false;
	e->offset = slot->spilled + start;
	e->length = slot->bytes.len - start;
	e->hash = cgm_hash_words(CGM_FNV1A_OFFSET, slot->bytes.data + start, (size_t)e->length);
	if (slot->bytes.len >= SPILL_AT)
		spill(slot);
}

/* ---- decoding ------------------------------------------------------------ */

typedef struct reader {
	const unsigned char *p, *end;
	cgm_arena *arena;
	bool ok;
} reader;

static uint64_t get_u(reader *r)
{
	uint64_t v = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		if (r->p >= r->end) {
			r->ok = false;
			return 0;
		}
		unsigned char byte = *r->p++;
		v |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80))
			return v;
	}
	r->ok = false;
	return 0;
}

static int get_int(reader *r)
{
	uint64_t z = get_u(r);
	int64_t v = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
	if (v < -1000000000 || v > 1000000000)
		r->ok = false;
	return r->ok ? (int)v : 0;
}

/* A count of things each at least one byte long: never more than the
 * bytes left, so a damaged count cannot ask for a huge allocation. */
static int get_count(reader *r)
{
	int n = get_int(r);
	if (n < -1 || (n > 0 && (size_t)n > (size_t)(r->end - r->p)))
		r->ok = false;
	return r->ok ? n : 0;
}

static const char *get_str(reader *r)
{
	uint64_t n = get_u(r);
	if (!r->ok || n == 0)
		return NULL;
	if (n - 1 > (uint64_t)(r->end - r->p)) {
		r->ok = false;
		return NULL;
	}
	const char *s = cgm_arena_strndup(r->arena, (const char *)r->p, (size_t)(n - 1));
	r->p += n - 1;
	return s;
}

/* A non-NULL array of max(n, 1) entries, or NULL as written. */
static void *get_array(reader *r, int n, size_t size)
{
	if (!get_u(r) || !r->ok)
		return NULL;
	void *v = cgm_arena_alloc(r->arena, size * (size_t)(n > 0 ? n : 1));
	memset(v, 0, size * (size_t)(n > 0 ? n : 1));
	return v;
}

static const char **get_strs(reader *r, int n)
{
	const char **v = get_array(r, n, sizeof(char *));
	for (int i = 0; v && i < n && r->ok; i++)
		v[i] = get_str(r);
	return v;
}

typedef struct nodes {
	size_t n;
	const unsigned char *types;
	void **ptrs;
} nodes;

static void *get_ref(reader *r, const nodes *t, unsigned char type)
{
	uint64_t ref = get_u(r);
	if (!r->ok || ref == 0)
		return NULL;
	if (ref > t->n || t->types[ref - 1] != type) {
		r->ok = false;
		return NULL;
	}
	return t->ptrs[ref - 1];
}

static void get_expr(reader *r, const nodes *t, cgm_expr *e)
{
	uint64_t kind = get_u(r);
	if (kind > CGM_EXPR_VAR)
		r->ok = false;
	e->kind = (cgm_expr_kind)kind;
	e->flag = get_u(r) != 0;
	e->nargs = get_count(r);
	e->nnames = get_count(r);
	e->param = get_int(r);
	e->schema = get_str(r);
	e->name = get_str(r);
	e->type = get_str(r);
	const cgm_expr **args = get_array(r, e->nargs, sizeof(cgm_expr *));
	for (int i = 0; args && i < e->nargs && r->ok; i++)
		args[i] = get_ref(r, t, NODE_EXPR);
	e->args = args;
	e->names = get_strs(r, expr_names_length(e));
	e->scope = get_ref(r, t, NODE_SCOPE);
	e->var = get_ref(r, t, NODE_EXPR);
}

static void get_scope(reader *r, const nodes *t, cgm_scope *s)
{
	s->parent = get_ref(r, t, NODE_SCOPE);
	s->nitems = get_count(r);
	if (!r->ok || s->nitems <= 0) {
		s->nitems = 0;
		return;
	}
	s->items = cgm_arena_alloc(r->arena, sizeof(cgm_scope_item) * (size_t)s->nitems);
	memset(s->items, 0, sizeof(cgm_scope_item) * (size_t)s->nitems);
	for (int i = 0; i < s->nitems && r->ok; i++) {
		cgm_scope_item *it = &s->items[i];
		it->alias = get_str(r);
		it->schema = get_str(r);
		it->name = get_str(r);
		it->ncolumns = get_count(r);
		int n = it->ncolumns > 0 ? it->ncolumns : 0;
		it->colnames = get_strs(r, n);
		const cgm_expr **cols = get_array(r, n, sizeof(cgm_expr *));
		for (int k = 0; cols && k < n && r->ok; k++)
			cols[k] = get_ref(r, t, NODE_EXPR);
		it->colexprs = cols;
		it->func = get_ref(r, t, NODE_EXPR);
	}
}

static cgm_site_exprs *get_exprs(reader *r, const cgm_site *sites, int nsites)
{
	nodes t = { 0 };
	t.n = (size_t)get_count(r);
	if (!r->ok || t.n > (size_t)(r->end - r->p))
		return (r->ok = false), NULL;
	t.types = r->p;
	r->p += t.n;
	t.ptrs = cgm_arena_alloc(r->arena, sizeof(void *) * (t.n ? t.n : 1));
	for (size_t i = 0; i < t.n && r->ok; i++) {
		size_t size = t.types[i] == NODE_EXPR ? sizeof(cgm_expr)
			    : t.types[i] == NODE_SCOPE ? sizeof(cgm_scope) : 0;
		if (!size)
			return (r->ok = false), NULL;
		t.ptrs[i] = cgm_arena_alloc(r->arena, size);
		memset(t.ptrs[i], 0, size);
	}
	for (size_t i = 0; i < t.n && r->ok; i++) {
		if (t.types[i] == NODE_EXPR)
			get_expr(r, &t, t.ptrs[i]);
		else
			get_scope(r, &t, t.ptrs[i]);
	}
	cgm_site_exprs *x = cgm_arena_alloc(r->arena, sizeof(cgm_site_exprs) * (size_t)(nsites ? nsites : 1));
	memset(x, 0, sizeof(cgm_site_exprs) * (size_t)(nsites ? nsites : 1));
	for (int i = 0; i < nsites && r->ok; i++) {
		const cgm_expr **args = get_array(r, sites[i].nargs, sizeof(cgm_expr *));
		for (int k = 0; args && k < sites[i].nargs && r->ok; k++)
			args[k] = get_ref(r, &t, NODE_EXPR);
		x[i].argexprs = args;
		x[i].coerce_to = get_ref(r, &t, NODE_EXPR);
		x[i].ddl_facts = (unsigned)get_u(r);
		x[i].attribute = get_u(r) != 0;
		x[i].rewrite_group = (int)get_u(r);
		x[i].default_of = (int)get_u(r);
		uint64_t column = get_u(r);
		x[i].column_type = (column & 1) != 0;
		x[i].type_default = (column & 2) != 0;
		x[i].runtime_typed = (column & 4) != 0;
		x[i].valued_columns = get_u(r);
	}
	return x;
}

static bool get_function(reader *r, cgm_function *fn)
{
	bool analysed = get_u(r) != 0;
	int nerrors = get_count(r);
	cgm_parse_error *errors = NULL;
	if (r->ok && nerrors > 0) {
		errors = cgm_arena_alloc(r->arena, sizeof(cgm_parse_error) * (size_t)nerrors);
		for (int i = 0; i < nerrors && r->ok; i++) {
			errors[i].line = get_int(r);
			errors[i].message = get_str(r);
		}
	}
	int nsites = get_count(r);
	cgm_site *sites = NULL;
	if (r->ok && nsites > 0) {
		sites = cgm_arena_alloc(r->arena, sizeof(cgm_site) * (size_t)nsites);
		memset(sites, 0, sizeof(cgm_site) * (size_t)nsites);
	}
	for (int i = 0; i < nsites && r->ok; i++) {
		cgm_site *s = &sites[i];
		s->line = get_int(r);
		s->nargs = get_count(r);
		uint64_t kind = get_u(r), resolution = get_u(r), flags = get_u(r);
		if (kind > CGM_SITE_CAST || resolution > 255 || flags > 15)
			r->ok = false;
		s->kind = (cgm_site_kind)kind;
		s->resolution = (cgm_resolution)resolution;
		s->via_literal = flags & 1;
		s->variadic_call = (flags >> 1) & 1;
		s->handles_missing = (flags >> 3) & 1;
		s->stmt = get_str(r);
		s->schema = get_str(r);
		s->name = get_str(r);
		s->argtypes = get_strs(r, s->nargs);
		if (flags & 4) {
			cgm_site_rare *x = cgm_site_rare_of(r->arena, s);
			x->events = (unsigned)get_u(r);
			x->ncolumns = get_count(r);
			x->columns = get_strs(r, x->ncolumns > 0 ? x->ncolumns : 0);
			x->nleading = get_int(r);
			if (x->nleading < 0)
				r->ok = false;
			x->nreads = get_count(r);
			if (x->nreads < 0)
				r->ok = false;
			x->reads = get_strs(r, x->nreads > 0 ? x->nreads : 0);
			if (!x->reads)
				x->nreads = 0;
			x->text = get_str(r);
			x->argnames = get_strs(r, s->nargs);
			x->requires_extension = get_str(r);
		}
	}
	cgm_site_exprs *exprs = NULL;
	if (r->ok && get_u(r))
		exprs = get_exprs(r, sites, nsites);
	if (!r->ok || r->p != r->end)
		return false;
	fn->analysed = analysed;
	fn->nerrors = nerrors > 0 ? nerrors : 0;
	fn->errors = errors;
	fn->nsites = nsites > 0 ? nsites : 0;
	fn->sites = sites;
	fn->site_exprs = exprs;
	return true;
}

static int compare_file_key(const void *k, const void *e)
{
	const uint64_t *key = k;
	const file_entry *x = e;
	if (key[0] != x->key[0])
		return key[0] < x->key[0] ? -1 : 1;
	if (key[1] != x->key[1])
		return key[1] < x->key[1] ? -1 : 1;
	return 0;
}

bool cgm_extract_cache_fetch(cgm_extract_cache_slot *slot, const cgm_extract_key *key,
			     cgm_arena *arena, cgm_function *fn)
{
	const cgm_extract_cache *c = slot->cache;
	if (!c->nentries)
		return false;
	const file_entry *e = bsearch(key->h, c->entries, c->nentries, sizeof(file_entry),
				      compare_file_key);
	if (!e || e->offset > c->records_size || e->length > c->records_size - e->offset)
		return false;
	if (e->length > slot->record_cap) {
		free(slot->record);
		slot->record_cap = (size_t)e->length > 4096 ? (size_t)e->length : 4096;
		slot->record = cgm_xcalloc(slot->record_cap, 1);
	}
	const unsigned char *bytes = slot->record;
	if (!read_at(c->fd, slot->record, (size_t)e->length, c->records_at + e->offset) ||
	    cgm_hash_words(CGM_FNV1A_OFFSET, bytes, (size_t)e->length) != e->hash)
		return false;
	reader r = { .p = bytes, .end = bytes + e->length, .arena = arena, .ok = true };
	if (!get_function(&r, fn))
		return false;
	slot->fetched++;
	slot_entry *kept = new_entry(slot);
	kept->key[0] = key->h[0];
	kept->key[1] = key->h[1];
	kept->old = true; /* the old file stays open until the save */
	kept->offset = e->offset;
	kept->length = e->length;
	kept->hash = e->hash;
	return true;
}

/* ---- the next file ------------------------------------------------------- */

typedef struct out_entry {
	slot_entry e;
	const cgm_extract_cache_slot *slot;
	uint64_t from; /* a record fetched: its offset in the old file's records */
} out_entry;

static int compare_out(const void *a, const void *b)
{
	const out_entry *x = a, *y = b;
	if (x->e.key[0] != y->e.key[0])
		return x->e.key[0] < y->e.key[0] ? -1 : 1;
	if (x->e.key[1] != y->e.key[1])
		return x->e.key[1] < y->e.key[1] ? -1 : 1;
	return 0;
}

/* `length` bytes of `fd` at `at` to the next file, read back in pieces of
 * `cap`.  What cannot be read gives zeros: the offsets of what follows
 * hold, and the records there fail their hash check, as misses. */
static void copy_range(cgm_outfile *f, int fd, uint64_t at, uint64_t length, char *buf,
		       size_t cap)
{
	while (length > 0) {
		size_t want = length < cap ? (size_t)length : cap;
		if (!read_at(fd, buf, want, at))
			memset(buf, 0, want);
		cgm_outfile_add(f, buf, want);
		at += want;
		length -= want;
	}
}

int cgm_extract_cache_save(cgm_extract_cache *cache, const char *path)
{
	if (!cache->identity)
		return 0;
	size_t n = 0;
	for (const cgm_extract_cache_slot *s = cache->slots; s; s = s->next)
		n += s->nentries;
	out_entry *all = cgm_xcalloc(n + 1, sizeof(out_entry));
	size_t k = 0;
	/* The slots' lists are let go as they are copied: the save runs once,
	 * beside the finished model, and the lists were as big again. */
	for (cgm_extract_cache_slot *s = cache->slots; s; s = s->next) {
		for (size_t i = 0; i < s->nentries; i++) {
			if (s->spill_failed && !s->entries[i].old)
				continue;
			all[k].e = s->entries[i];
			all[k].slot = s;
			k++;
		}
		free(s->entries);
		s->entries = NULL;
		s->nentries = s->cap = 0;
	}
	n = k;
	qsort(all, n, sizeof(out_entry), compare_out);
	/* Two functions with the same inputs extract alike: one record. */
	size_t unique = 0;
	for (size_t i = 0; i < n; i++)
		if (unique == 0 || compare_out(&all[unique - 1], &all[i]) != 0)
			all[unique++] = all[i];

	/* The records: those fetched from the old file, in key order, then
	 * each slot's stream whole (a record dropped as a duplicate stays
	 * there, unreferenced). */
	uint64_t offset = 0;
	for (size_t i = 0; i < unique; i++)
		if (all[i].e.old) {
			all[i].from = all[i].e.offset;
			all[i].e.offset = offset;
			offset += all[i].e.length;
		}
	for (cgm_extract_cache_slot *s = cache->slots; s; s = s->next)
		if (!s->spill_failed) {
			s->base = offset;
			offset += s->spilled + s->bytes.len;
		}
	for (size_t i = 0; i < unique; i++)
		if (!all[i].e.old)
			all[i].e.offset += all[i].slot->base;

	cgm_outfile f;
	int rc = cgm_outfile_open(&f, path, "parse cache", 0);
	if (rc < 0) {
		free(all);
		return rc;
	}
	file_header h;
	memset(&h, 0, sizeof h);
	memcpy(h.magic, CACHE_MAGIC, CACHE_MAGIC_LEN);
	h.format = CACHE_FORMAT;
	h.identity = cache->identity;
	h.nentries = unique;
	cgm_outfile_add(&f, &h, sizeof h);
	for (size_t i = 0; i < unique; i++) {
		file_entry e = { .key = { all[i].e.key[0], all[i].e.key[1] },
				 .offset = all[i].e.offset,
				 .length = all[i].e.length,
				 .hash = all[i].e.hash };
		cgm_outfile_add(&f, &e, sizeof e);
	}
	size_t cap = SPILL_AT;
	char *buf = cgm_xcalloc(cap, 1);
	for (size_t i = 0; i < unique; i++)
		if (all[i].e.old)
			copy_range(&f, cache->fd, cache->records_at + all[i].from, all[i].e.length,
				   buf, cap);
	/* Each slot's stream: its spill file, then what it still stages. */
	for (const cgm_extract_cache_slot *s = cache->slots; s; s = s->next)
		if (!s->spill_failed) {
			copy_range(&f, s->spill_fd, 0, s->spilled, buf, cap);
			cgm_outfile_add(&f, s->bytes.data, s->bytes.len);
		}
	free(buf);
	free(all);
	return cgm_outfile_commit(&f);
}
