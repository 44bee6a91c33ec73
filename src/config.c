/*
 * config.c - `.cgmap.yml`, a project's configuration (cgmap/config.h,
 * docs/config.md).
 *
 * In:  a file path.  Out: a cgm_config owning all it holds in one arena
 *      (cgm_config_free); applied to a model (declared dynamic calls as
 *      edges, kept functions' reasons) and asked by diff which findings it
 *      ignores.
 *
 * The file is read whole under --max-file-size (cgmap/infile.h) and parsed
 * with libyaml's event API into a small tree of our own: the event parser
 * keeps its state on the heap, so no input nests our stack, and a tree
 * deeper than MAX_DEPTH or an alias (which could multiply a small file into
 * a huge tree) is refused with the line it is on.  Every key is checked: a
 * typo is an error naming the key and the keys allowed there, never a
 * setting silently unused.
 */
#include <errno.h>
#include <stdarg.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "cgmap/config.h"
#include "cgmap/error.h"
#include "cgmap/infile.h"
#include "cgmap/pipeline.h"
#include "cgmap/runtime.h"
#include "sqlvars.h"

/* The deepest a configuration goes is diff > ignore > item > key: a little
 * more is allowed so that the error says what is wrong, not that it nests. */
#define MAX_DEPTH 8

typedef enum { NODE_SCALAR, NODE_SEQUENCE, NODE_MAPPING } node_kind;

typedef struct node {
	node_kind kind;
	int line;              /* 1-based line in the file */
	const char *value;     /* scalar */
	int nchildren;         /* sequence items, or mapping keys and values alternating */
	struct node **children;
	int cap;
} node;

typedef struct parse_state {
	cgm_arena *arena;
	const char *path;
} parse_state;

/* CGM_EINPUT with "FILE:LINE: " and the message. */
static int fail_at(const parse_state *ps, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail_at(const parse_state *ps, int line, const char *fmt, ...)
{
	char message[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(message, sizeof message, fmt, ap);
	va_end(ap);
	return cgm_error(CGM_EINPUT, "%s:%d: %s", ps->path, line, message);
}

static node *node_new(parse_state *ps, node_kind kind, int line)
{
	node *n = cgm_arena_alloc(ps->arena, sizeof(node));
	memset(n, 0, sizeof *n);
	n->kind = kind;
	n->line = line;
	return n;
}

static void node_push(parse_state *ps, node *parent, node *child)
{
	if (parent->nchildren == parent->cap) {
		int cap = parent->cap ? parent->cap * 2 : 8;
		parent->children = cgm_arena_grow(ps->arena, parent->children, (size_t)parent->nchildren,
						  (size_t)cap, sizeof(node *));
		parent->cap = cap;
	}
	parent->children[parent->nchildren++] = child;
}

/* The document's root node, or NULL for an empty file. */
static int build_tree(node **root, parse_state *ps, const char *text, size_t len)
{
	yaml_parser_t parser;
	if (!yaml_parser_initialize(&parser))
		return cgm_error(CGM_EINPUT, "%s: cannot start the YAML parser", ps->path);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	node *stack[MAX_DEPTH + 1];
	int depth = 0, rc = 0, documents = 0;
	*root = NULL;
	for (bool done = false; !done && rc == 0;) {
		yaml_event_t event;
		if (!yaml_parser_parse(&parser, &event)) {
			char problem[256];
			snprintf(problem, sizeof problem, "%s", parser.problem ? parser.problem : "bad YAML");
			rc = fail_at(ps, (int)parser.problem_mark.line + 1, "not YAML: %s", problem);
			break;
		}
		int line = (int)event.start_mark.line + 1;
		node *made = NULL;
		switch (event.type) {
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (++documents > 1)
				rc = fail_at(ps, line, "one YAML document only, not several (---)");
			break;
		case YAML_ALIAS_EVENT:
			rc = fail_at(ps, line, "YAML aliases (*%s) are not supported: write the value",
				     (const char *)event.data.alias.anchor);
			break;
		case YAML_SCALAR_EVENT:
			made = node_new(ps, NODE_SCALAR, line);
			made->value = cgm_arena_strdup(ps->arena, (const char *)event.data.scalar.value);
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			made = node_new(ps, event.type == YAML_SEQUENCE_START_EVENT ? NODE_SEQUENCE
										   : NODE_MAPPING,
					line);
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			depth--;
			break;
		default:
			break;
		}
		if (made && rc == 0) {
			if (depth > 0)
				node_push(ps, stack[depth - 1], made);
			else
				*root = made;
			if (made->kind != NODE_SCALAR) {
				if (depth == MAX_DEPTH)
					rc = fail_at(ps, line, "nested deeper than a configuration goes");
				else
					stack[depth++] = made;
			}
		}
		yaml_event_delete(&event);
	}
	yaml_parser_delete(&parser);
	return rc;
}

static const char *kind_name(node_kind kind)
{
	return kind == NODE_SCALAR ? "a value" : kind == NODE_SEQUENCE ? "a list" : "a mapping";
}

static int expect_kind(const parse_state *ps, const node *n, node_kind kind, const char *what)
{
	if (n->kind == kind)
		return 0;
	return fail_at(ps, n->line, "'%s' takes %s, not %s", what, kind_name(kind),
		       kind_name(n->kind));
}

/* A value or a list of values: `entry: api.*` or `entry: [api.*, jobs.*]`. */
static int read_strings(const char ***out, int *count, parse_state *ps, const node *n,
			const char *what)
{
	if (n->kind == NODE_SCALAR) {
		*out = cgm_arena_alloc(ps->arena, sizeof(char *));
		(*out)[0] = n->value;
		*count = 1;
		return 0;
	}
	int rc = expect_kind(ps, n, NODE_SEQUENCE, what);
	if (rc < 0)
		return rc;
	*out = cgm_arena_alloc(ps->arena, sizeof(char *) * (size_t)(n->nchildren + 1));
	for (int i = 0; i < n->nchildren; i++) {
		if ((rc = expect_kind(ps, n->children[i], NODE_SCALAR, what)) < 0)
			return rc;
		if (!n->children[i]->value[0])
			return fail_at(ps, n->children[i]->line, "'%s' holds an empty pattern", what);
		(*out)[i] = n->children[i]->value;
	}
	*count = n->nchildren;
	return 0;
}

/* Key `key` of mapping `map` is one of `allowed` (a NULL-terminated list). */
static int check_keys(const parse_state *ps, const node *map, const char *const *allowed,
		      const char *where)
{
	for (int i = 0; i + 1 < map->nchildren; i += 2) {
		const node *key = map->children[i];
		if (key->kind != NODE_SCALAR)
			return fail_at(ps, key->line, "a key in %s is not a name", where);
		bool known = false;
		for (int k = 0; allowed[k] && !known; k++)
			known = strcmp(key->value, allowed[k]) == 0;
		for (int j = 0; j < i && known; j += 2)
			if (strcmp(map->children[j]->value, key->value) == 0)
				return fail_at(ps, key->line, "key '%s' given twice in %s", key->value, where);
		if (!known) {
			char list[256] = "";
			for (int k = 0; allowed[k]; k++) {
				strncat(list, k ? ", " : "", sizeof list - strlen(list) - 1);
				strncat(list, allowed[k], sizeof list - strlen(list) - 1);
			}
			return fail_at(ps, key->line, "unknown key '%s' in %s (known: %s)", key->value,
				       where, list);
		}
	}
	return 0;
}

static const node *lookup(const node *map, const char *key)
{
	for (int i = 0; i + 1 < map->nchildren; i += 2)
		if (strcmp(map->children[i]->value, key) == 0)
			return map->children[i + 1];
	return NULL;
}

/* A required or optional scalar of an item. */
static int item_string(const char **out, parse_state *ps, const node *item, const char *key,
		       const char *where, bool required)
{
	const node *n = lookup(item, key);
	*out = NULL;
	if (!n) {
		if (required)
			return fail_at(ps, item->line, "%s needs '%s'", where, key);
		return 0;
	}
	int rc = expect_kind(ps, n, NODE_SCALAR, key);
	if (rc < 0)
		return rc;
	if (required && !n->value[0])
		return fail_at(ps, n->line, "%s: '%s' is empty", where, key);
	*out = n->value;
	return 0;
}

static int read_dynamic(cgm_config *config, parse_state *ps, const node *list)
{
	static const char *const keys[] = { "function", "line", "calls", "reason", NULL };
	int rc = expect_kind(ps, list, NODE_SEQUENCE, "dynamic");
	if (rc < 0)
		return rc;
	config->dynamic = cgm_arena_alloc(ps->arena, sizeof(cgm_config_dynamic) *
							      (size_t)(list->nchildren + 1));
	for (int i = 0; i < list->nchildren; i++) {
		const node *item = list->children[i];
		cgm_config_dynamic *d = &config->dynamic[config->ndynamic++];
		memset(d, 0, sizeof *d);
		d->file_line = item->line;
		if ((rc = expect_kind(ps, item, NODE_MAPPING, "a dynamic item")) < 0 ||
		    (rc = check_keys(ps, item, keys, "a dynamic item")) < 0 ||
		    (rc = item_string(&d->function, ps, item, "function", "a dynamic item", true)) < 0 ||
		    (rc = item_string(&d->reason, ps, item, "reason", "a dynamic item", false)) < 0)
			return rc;
		if (!d->reason)
			d->reason = "";
		const char *line_text;
		if ((rc = item_string(&line_text, ps, item, "line", "a dynamic item", false)) < 0)
			return rc;
		if (line_text) {
			char *end;
			errno = 0;
			long line = strtol(line_text, &end, 10);
			if (*end || end == line_text || errno || line < 1 || line > INT_MAX)
				return fail_at(ps, lookup(item, "line")->line,
					       "'line' is a line of the function's body (1, 2, ...), not '%s'",
					       line_text);
			d->line = (int)line;
		}
		const node *calls = lookup(item, "calls");
		if (!calls)
			return fail_at(ps, item->line, "a dynamic item needs 'calls': the functions "
						       "the site calls");
		if ((rc = read_strings(&d->calls, &d->ncalls, ps, calls, "calls")) < 0)
			return rc;
	}
	return 0;
}

static int read_keep(cgm_config *config, parse_state *ps, const node *list)
{
	static const char *const keys[] = { "function", "reason", NULL };
	int rc = expect_kind(ps, list, NODE_SEQUENCE, "keep");
	if (rc < 0)
		return rc;
	config->keep = cgm_arena_alloc(ps->arena,
				       sizeof(cgm_config_keep) * (size_t)(list->nchildren + 1));
	for (int i = 0; i < list->nchildren; i++) {
		const node *item = list->children[i];
		cgm_config_keep *k = &config->keep[config->nkeep++];
		k->file_line = item->line;
		if ((rc = expect_kind(ps, item, NODE_MAPPING, "a keep item")) < 0 ||
		    (rc = check_keys(ps, item, keys, "a keep item")) < 0 ||
		    (rc = item_string(&k->function, ps, item, "function", "a keep item", true)) < 0 ||
		    (rc = item_string(&k->reason, ps, item, "reason", "a keep item", true)) < 0)
			return rc;
	}
	return 0;
}

static int read_diff(cgm_config *config, parse_state *ps, const node *map)
{
	static const char *const diff_keys[] = { "ignore", NULL };
	static const char *const keys[] = { "finding", "function", "reason", NULL };
	int rc;
	if ((rc = expect_kind(ps, map, NODE_MAPPING, "diff")) < 0 ||
	    (rc = check_keys(ps, map, diff_keys, "diff")) < 0)
		return rc;
	const node *list = lookup(map, "ignore");
	if (!list)
		return 0;
	if ((rc = expect_kind(ps, list, NODE_SEQUENCE, "ignore")) < 0)
		return rc;
	config->ignore = cgm_arena_alloc(ps->arena,
					 sizeof(cgm_config_ignore) * (size_t)(list->nchildren + 1));
	for (int i = 0; i < list->nchildren; i++) {
		const node *item = list->children[i];
		cgm_config_ignore *g = &config->ignore[config->nignore++];
		g->file_line = item->line;
		const char *finding;
		if ((rc = expect_kind(ps, item, NODE_MAPPING, "an ignore item")) < 0 ||
		    (rc = check_keys(ps, item, keys, "an ignore item")) < 0 ||
		    (rc = item_string(&finding, ps, item, "finding", "an ignore item", true)) < 0 ||
		    (rc = item_string(&g->function, ps, item, "function", "an ignore item", false)) < 0 ||
		    (rc = item_string(&g->reason, ps, item, "reason", "an ignore item", true)) < 0)
			return rc;
		if (strcmp(finding, "any") == 0) {
			g->finding = -1;
		} else if ((g->finding = cgm_finding_parse(finding)) < 0) {
			return fail_at(ps, lookup(item, "finding")->line,
				       "no finding is called '%s' (the codes of docs/diff.md, or any)",
				       finding);
		}
		if (g->finding < 0 && !g->function)
			return fail_at(ps, item->line, "an ignore item of any finding needs 'function': "
						       "ignoring everything is not a review");
	}
	return 0;
}

/* "set:" - a mapping of psql variables, NAME: VALUE. */
static int read_set(cgm_config *config, parse_state *ps, const node *n)
{
	int rc = expect_kind(ps, n, NODE_MAPPING, "set");
	if (rc < 0)
		return rc;
	config->set = cgm_arena_alloc(ps->arena, sizeof(char *) * (size_t)(n->nchildren / 2 + 1));
	for (int i = 0; i + 1 < n->nchildren; i += 2) {
		const node *key = n->children[i], *value = n->children[i + 1];
		if ((rc = expect_kind(ps, value, NODE_SCALAR, "a psql variable's value")) < 0)
			return rc;
		const char *name = key->value;
		if (!name || !*name || cgm_psql_name_length(name) != strlen(name))
			return fail_at(ps, key->line,
				       "'%s' is not a psql variable's name (letters, digits and underscores)",
				       name ? name : "");
		config->set[config->nset++] = cgm_arena_printf(ps->arena, "%s=%s", name, value->value);
	}
	return 0;
}

/* "search_path:" - a list of schema names as they are, or one string
 * written as PostgreSQL's setting is ("app, \"My Schema\", public"). */
static int read_search_path(cgm_config *config, parse_state *ps, const node *n)
{
	if (n->kind == NODE_SCALAR) {
		config->search_path = cgm_parse_search_path(ps->arena, n->value, &config->nsearch_path);
		return 0;
	}
	int rc = expect_kind(ps, n, NODE_SEQUENCE, "search_path");
	if (rc < 0)
		return rc;
	config->search_path = cgm_arena_alloc(ps->arena, sizeof(char *) * (size_t)(n->nchildren + 1));
	for (int i = 0; i < n->nchildren; i++) {
		if ((rc = expect_kind(ps, n->children[i], NODE_SCALAR, "a search_path schema")) < 0)
			return rc;
		if (!n->children[i]->value[0])
			return fail_at(ps, n->children[i]->line, "'search_path' holds an empty schema name");
		config->search_path[i] = n->children[i]->value;
	}
	config->nsearch_path = n->nchildren;
	return 0;
}

static int read_config(cgm_config *config, parse_state *ps, const node *root)
{
	static const char *const keys[] = { "schemas", "exclude_schemas", "entry", "dynamic",
					    "keep", "diff", "set", "search_path", NULL };
	int rc;
	if ((rc = expect_kind(ps, root, NODE_MAPPING, "the file")) < 0 ||
	    (rc = check_keys(ps, root, keys, "the file")) < 0)
		return rc;
	const node *n;
	if ((n = lookup(root, "schemas")) &&
	    (rc = read_strings(&config->schemas, &config->nschemas, ps, n, "schemas")) < 0)
		return rc;
	if ((n = lookup(root, "exclude_schemas")) &&
	    (rc = read_strings(&config->exclude_schemas, &config->nexclude_schemas, ps, n,
			       "exclude_schemas")) < 0)
		return rc;
	if ((n = lookup(root, "entry")) &&
	    (rc = read_strings(&config->entry, &config->nentry, ps, n, "entry")) < 0)
		return rc;
	if ((n = lookup(root, "dynamic")) && (rc = read_dynamic(config, ps, n)) < 0)
		return rc;
	if ((n = lookup(root, "keep")) && (rc = read_keep(config, ps, n)) < 0)
		return rc;
	if ((n = lookup(root, "diff")) && (rc = read_diff(config, ps, n)) < 0)
		return rc;
	if ((n = lookup(root, "set")) && (rc = read_set(config, ps, n)) < 0)
		return rc;
	if ((n = lookup(root, "search_path")) && (rc = read_search_path(config, ps, n)) < 0)
		return rc;
	return 0;
}

int cgm_config_load(cgm_config **out, const char *path)
{
	*out = NULL;
	char *text = NULL;
	size_t len = 0;
	int rc = cgm_infile_read(&text, &len, path, "configuration", CGM_EINPUT, false, 0);
	if (rc < 0)
		return rc;
	cgm_config *config = calloc(1, sizeof *config);
	if (!config) {
		free(text);
		return cgm_error(CGM_EINPUT, "%s: out of memory", path);
	}
	config->arena = cgm_arena_new();
	config->nsearch_path = -1;
	config->path = cgm_arena_strdup(config->arena, path);
	parse_state ps = { .arena = config->arena, .path = config->path };
	node *root = NULL;
	rc = build_tree(&root, &ps, text, len);
	free(text);
	if (rc == 0 && root)
		rc = read_config(config, &ps, root);
	if (rc < 0) {
		cgm_config_free(config);
		return rc;
	}
	*out = config;
	return 0;
}

void cgm_config_free(cgm_config *config)
{
	if (!config)
		return;
	cgm_arena_free(config->arena);
	free(config);
}

static void diagnose(cgm_model *model, const cgm_config *config, int line, const char *message)
{
	cgm_diagnostic *d = cgm_model_add_diagnostic(model);
	d->file = cgm_arena_strdup(model->arena, config->path);
	d->line = line;
	d->message = cgm_arena_strdup(model->arena, message);
}

static int find_edge(const cgm_model *model, int from, int to)
{
	for (int i = 0; i < model->nedges; i++) {
		const cgm_edge *e = &model->edges[i];
		if (e->from == from && e->to == to && e->via == CGM_VIA_DYNAMIC && !e->object)
			return i;
	}
	return -1;
}

/* `line` into the edge's sorted, distinct lines. */
static void add_line(cgm_model *model, cgm_edge *e, int line)
{
	int at = 0;
	while (at < e->nlines && e->lines[at] < line)
		at++;
	if (at < e->nlines && e->lines[at] == line)
		return;
	int *lines = cgm_arena_alloc(model->arena, sizeof(int) * (size_t)(e->nlines + 1));
	if (e->nlines)
		memcpy(lines, e->lines, sizeof(int) * (size_t)at);
	lines[at] = line;
	if (e->nlines > at)
		memcpy(lines + at + 1, e->lines + at, sizeof(int) * (size_t)(e->nlines - at));
	e->lines = lines;
	e->nlines++;
}

static void apply_dynamic(cgm_model *model, const cgm_config *config, const cgm_config_dynamic *d)
{
	char scratch[1024], message[1024];
	int callers = 0, sites = 0;
	int *targets = calloc((size_t)model->nuser + 1, sizeof(int));
	int ntargets = 0;
	if (!targets)
		return;
	for (int c = 0; c < d->ncalls; c++) {
		int matched = 0;
		for (int g = 0; g < model->nuser; g++)
			if (cgm_entry_matches(&model->functions[g], d->calls[c], scratch, sizeof scratch)) {
				matched++;
				bool seen = false;
				for (int k = 0; k < ntargets && !seen; k++)
					seen = targets[k] == g;
				if (!seen)
					targets[ntargets++] = g;
			}
		if (!matched) {
			snprintf(message, sizeof message,
				 "dynamic: the called pattern '%s' matches no function", d->calls[c]);
			diagnose(model, config, d->file_line, message);
		}
	}
	for (int f = 0; f < model->nuser; f++) {
		cgm_function *fn = &model->functions[f];
		if (!cgm_entry_matches(fn, d->function, scratch, sizeof scratch))
			continue;
		callers++;
		for (int s = 0; s < fn->nsites; s++) {
			const cgm_site *site = &fn->sites[s];
			if (site->kind != CGM_SITE_DYNAMIC || (d->line && site->line != d->line))
				continue;
			sites++;
			for (int k = 0; k < ntargets; k++) {
				int at = find_edge(model, f, targets[k]);
				cgm_edge *e;
				if (at < 0) {
					e = cgm_model_add_edge(model);
					e->from = f;
					e->to = targets[k];
					e->via = CGM_VIA_DYNAMIC;
				} else {
					e = &model->edges[at];
				}
				e->provenance |= CGM_EDGE_STATIC | CGM_EDGE_DECLARED;
				cgm_edge_rare *x = cgm_edge_rare_of(model->arena, e);
				if (!x->declared)
					x->declared = cgm_arena_strdup(model->arena, d->reason);
				add_line(model, e, site->line);
			}
		}
	}
	free(targets);
	if (!callers) {
		snprintf(message, sizeof message, "dynamic: function '%s' matches no function",
			 d->function);
		diagnose(model, config, d->file_line, message);
	} else if (!sites) {
		if (d->line)
			snprintf(message, sizeof message,
				 "dynamic: '%s' has no dynamic EXECUTE site at line %d", d->function,
				 d->line);
		else
			snprintf(message, sizeof message, "dynamic: '%s' has no dynamic EXECUTE site",
				 d->function);
		diagnose(model, config, d->file_line, message);
	}
}

void cgm_config_apply(cgm_model *model, const cgm_config *config)
{
	if (!config)
		return;
	for (int i = 0; i < config->ndynamic; i++)
		apply_dynamic(model, config, &config->dynamic[i]);
	char scratch[1024], message[1024];
	for (int i = 0; i < config->nkeep; i++) {
		const cgm_config_keep *k = &config->keep[i];
		int matched = 0;
		for (int f = 0; f < model->nuser; f++) {
			cgm_function *fn = &model->functions[f];
			if (!cgm_entry_matches(fn, k->function, scratch, sizeof scratch))
				continue;
			matched++;
			if (!fn->kept)
				fn->kept = cgm_arena_strdup(model->arena, k->reason);
		}
		if (!matched) {
			snprintf(message, sizeof message, "keep: '%s' matches no function", k->function);
			diagnose(model, config, k->file_line, message);
		}
	}
}

/* schema.name of an id ("app.f(integer)" -> "app.f"): the text before the
 * argument list's '(', outside double quotes. */
static void id_name(char *out, size_t len, const char *id)
{
	size_t n = 0;
	bool quoted = false;
	for (; id[n] && (quoted || id[n] != '('); n++)
		if (id[n] == '"')
			quoted = !quoted;
	snprintf(out, len, "%.*s", (int)n, id);
}

bool cgm_config_ignores(const void *opaque, cgm_finding_code code, const char *function)
{
	const cgm_config *config = opaque;
	if (!config)
		return false;
	char name[1024];
	for (int i = 0; i < config->nignore; i++) {
		const cgm_config_ignore *g = &config->ignore[i];
		if (g->finding >= 0 && g->finding != (int)code)
			continue;
		if (!g->function)
			return true;
		if (!function)
			continue;
		if (strcmp(g->function, function) == 0 || fnmatch(g->function, function, 0) == 0)
			return true;
		id_name(name, sizeof name, function);
		if (fnmatch(g->function, name, 0) == 0)
			return true;
	}
	return false;
}
