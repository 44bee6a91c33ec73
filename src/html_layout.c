/*
 * html_layout.c - cgmap's own layered layout of a function's neighbourhood
 * graph: columns of callers, the function, columns of callees, laid out
 * without Graphviz and drawn by the page's script.
 *
 * In:  the DOT text html_graph_function() writes (a flat digraph: default
 *      attribute lists, nodes, edges; no subgraphs or HTML labels) and the
 *      name of the graph for error messages.
 * Out: appended to a caller-owned strbuf, an empty <svg> of the graph's
 *      size and the layout as JSON beside it
 *      (write_graph says the format), which the site script draws into
 *      the markup Graphviz's SVG uses (a.node / a.edge with xlink:href and
 *      xlink:title), so the page's CSS, script and readers treat both
 *      alike.  Everything parsed lives in one arena per call, freed before
 *      returning.
 *
 * Why: a neighbourhood graph is small (the median has 19 nodes) and always
 * the same shape, so Graphviz's cost is its fixed overhead per graph:
 * parsing DOT again, measuring text through pango, network simplex,
 * writing and freeing.  At 10,000 functions that was most of a site's
 * time.  Here ranks come from the edges' direction around the focal node
 * (n0), the order within a rank from the DOT's order (busiest first) and,
 * beyond the first ring, from the barycentre of the neighbours nearer the
 * focal node, so outer nodes sit beside what they call or are called by;
 * text is measured with Helvetica's advance widths (sans-serif's usual
 * metrics), as Graphviz does without a text plugin, and boxes leave room
 * for a browser's wider sans-serif (FONT_SLACK; the script scales a label
 * the browser's font still makes too long to its box).  Drawn as markup,
 * the graph was half the bytes of a busy function's page and two fifths of
 * a 10,000-function site; as data it is a third of that.
 *
 * Anything this reader does not know (a subgraph, an HTML label, a
 * malformed line) is CGM_EINPUT: the caller then lays the graph out with
 * Graphviz instead, so a new kind of node never breaks a page.
 */
#include "html_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmap/arena.h"
#include "cgmap/error.h"
#include "cgmap/escape.h"

/* Pixel geometry: a box is 22 px tall for one line; columns are RANK_GAP
 * apart (room for an edge's call count), boxes NODE_GAP apart. */
#define BOX_HEIGHT 22.0
#define BOX_PAD_X 9.0
#define FONT_SLACK 1.15
#define RANK_GAP 64.0
#define NODE_GAP 9.0
#define MARGIN 6.0
#define LINE_HEIGHT 1.25
/* The static call's grey (html_graph.c's COL_STATIC), every node's and
 * edge's default stroke. */
#define DEFAULT_STROKE "#495057"

enum arrow_kind { ARROW_NONE, ARROW_NORMAL, ARROW_EMPTY, ARROW_VEE, ARROW_DIAMOND,
		  ARROW_ODIAMOND, ARROW_BOX, ARROW_ODOT, ARROW_KINDS };

static const char *const arrow_names[ARROW_KINDS] = { "none", "normal", "empty", "vee",
						      "diamond", "odiamond", "box", "odot" };

enum shape_kind { SHAPE_BOX, SHAPE_ELLIPSE, SHAPE_DIAMOND };

typedef struct lnode {
	const char *name; /* the DOT id */
	const char *label, *tooltip, *url;
	const char *fill, *stroke, *fontcolor;
	enum shape_kind shape;
	double pen, fontsize;
	bool dashed, filled;
	int rank, slot;
	bool ranked;
	double x, y, w, h; /* centre and size */
	double key;        /* ordering key within a rank */
} lnode;

typedef struct ledge {
	int from, to;
	const char *color, *fontcolor, *label, *tooltip;
	double pen;
	int dash; /* 0 solid, 1 dashed, 2 dotted */
	enum arrow_kind head, tail;
	bool constraint;
} ledge;

/* The attributes the layout reads; any other is parsed and dropped. */
enum attr_id { ATTR_LABEL, ATTR_TOOLTIP, ATTR_URL, ATTR_SHAPE, ATTR_STYLE, ATTR_FILLCOLOR,
	       ATTR_COLOR, ATTR_FONTCOLOR, ATTR_PENWIDTH, ATTR_FONTSIZE, ATTR_ARROWHEAD,
	       ATTR_ARROWTAIL, ATTR_DIR, ATTR_CONSTRAINT, NATTRS };

static const char *const attr_names[NATTRS] = {
	"label", "tooltip", "URL", "shape", "style", "fillcolor", "color", "fontcolor",
	"penwidth", "fontsize", "arrowhead", "arrowtail", "dir", "constraint"
};

/* One attribute list as parsed, by attribute: copied by value for each
 * node and edge from the defaults (looking attributes up by name was a
 * tenth of a render's time, in strcmp). */
typedef struct attr_list {
	const char *value[NATTRS];
} attr_list;

typedef struct layout {
	cgm_arena *arena;
	const char *what;
	lnode *nodes;
	int nnodes, cap_nodes;
	int *slots;      /* open addressing: node index + 1 by name hash, 0 free */
	int nslots;      /* a power of two, at least twice cap_nodes */
	ledge *edges;
	int nedges, cap_edges;
	attr_list node_defaults, edge_defaults;
} layout;

/* ---- the DOT subset ---- */

typedef struct cursor {
	const char *p;
	int line;
} cursor;

static void skip_space(cursor *c)
{
	for (;;) {
		while (*c->p == ' ' || *c->p == '\t' || *c->p == '\r' || *c->p == '\n') {
			if (*c->p == '\n')
				c->line++;
			c->p++;
		}
		return;
	}
}

static int parse_error(const layout *l, const cursor *c, const char *what)
{
	return cgm_error(CGM_EINPUT, "cannot lay out the graph of '%s': %s at DOT line %d",
			 l->what, what, c->line);
}

static bool id_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       ch == '_' || ch == '.' || ch == '#' || ch == '-' || ch == '%';
}

/* A DOT string (quoted, with cgm_escape_dot's escapes: \" \\ \n, and the
 * entity &amp; that Graphviz decodes) or a bare word; NULL when neither. */
static const char *read_value_kept(layout *l, cursor *c, bool keep)
{
	skip_space(c);
	if (*c->p == '"') {
		const char *s = ++c->p;
		size_t len = 0;
		bool plain = true; /* nothing to decode: copied whole */
		for (;;) {
			/* strcspn scans many bytes a step: values are long tooltips. */
			len += strcspn(s + len, "\"\\&\n");
			if (!s[len] || s[len] == '"')
				break;
			plain = false;
			len += s[len] == '\\' && s[len + 1] ? 2 : 1;
		}
		if (s[len] != '"')
			return NULL;
		if (!keep) { /* an attribute the layout does not read */
			for (size_t i = 0; i < len; i++)
				c->line += s[i] == '\n';
			c->p = s + len + 1;
			return "";
		}
		if (plain) {
			c->p = s + len + 1;
			return cgm_arena_strndup(l->arena, s, len);
		}
		char *out = cgm_arena_alloc(l->arena, len + 1), *o = out;
		for (size_t i = 0; i < len; i++) {
			if (s[i] == '\\' && i + 1 < len) {
				char e = s[++i];
				*o++ = e == 'n' || e == 'l' || e == 'r' ? '\n' : e;
			} else if (s[i] == '&' && len - i >= 5 && memcmp(s + i, "&amp;", 5) == 0) {
				*o++ = '&';
				i += 4;
			} else {
				if (s[i] == '\n')
					c->line++;
				*o++ = s[i];
			}
		}
		*o = '\0';
		c->p = s + len + 1;
		return out;
	}
	const char *s = c->p;
	/* A bare word stops at the list's separators; a comma inside one
	 * (margin="0.1,0.1" is quoted by cgmap) never reaches here. */
	while (id_char(*c->p) && !(c->p[0] == '-' && c->p[1] == '>'))
		c->p++;
	if (c->p == s)
		return NULL;
	return keep ? cgm_arena_strndup(l->arena, s, (size_t)(c->p - s)) : "";
}

static const char *read_value(layout *l, cursor *c)
{
	return read_value_kept(l, c, true);
}

/* The attribute a name of len bytes is, NATTRS for one the layout does
 * not read. */
static int attr_id(const char *name, size_t len)
{
	for (int i = 0; i < NATTRS; i++)
		if (attr_names[i][0] == name[0] && strlen(attr_names[i]) == len &&
		    memcmp(attr_names[i], name, len) == 0)
			return i;
	return NATTRS;
}

/* The attribute name at c->p, consumed: its attr_id, or -1 when there is
 * none.  A bare name is not copied. */
static int read_key(layout *l, cursor *c)
{
	skip_space(c);
	if (*c->p == '"') {
		const char *key = read_value(l, c);
		return key ? attr_id(key, strlen(key)) : -1;
	}
	const char *s = c->p;
	while (id_char(*c->p) && !(c->p[0] == '-' && c->p[1] == '>'))
		c->p++;
	return c->p == s ? -1 : attr_id(s, (size_t)(c->p - s));
}

static const char *attr_get(const attr_list *a, enum attr_id id)
{
	return a->value[id];
}

/* "[k=v, k=v]" into `out` (which may already hold defaults). */
static int read_attrs(layout *l, cursor *c, attr_list *out)
{
	skip_space(c);
	if (*c->p != '[')
		return 0;
	c->p++;
	for (;;) {
		skip_space(c);
		if (*c->p == ']') {
			c->p++;
			return 0;
		}
		int id = read_key(l, c);
		if (id < 0)
			return parse_error(l, c, "an attribute name expected");
		skip_space(c);
		if (*c->p != '=')
			return parse_error(l, c, "'=' expected");
		c->p++;
		const char *value = read_value_kept(l, c, id < NATTRS);
		if (!value)
			return parse_error(l, c, "an attribute value expected");
		if (id < NATTRS)
			out->value[id] = value;
		skip_space(c);
		if (*c->p == ',' || *c->p == ';')
			c->p++;
	}
}

static unsigned name_hash(const char *s)
{
	unsigned h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* The slot of `name`: its node's, or the free one where it would go. */
static int name_slot(const layout *l, const char *name)
{
	unsigned mask = (unsigned)l->nslots - 1;
	for (unsigned h = name_hash(name) & mask;; h = (h + 1) & mask) {
		int at = l->slots[h];
		if (at == 0 || strcmp(l->nodes[at - 1].name, name) == 0)
			return (int)h;
	}
}

static int find_node(const layout *l, const char *name)
{
	if (!l->nslots)
		return -1;
	return l->slots[name_slot(l, name)] - 1;
}

static void index_names(layout *l)
{
	l->nslots = 4 * l->cap_nodes;
	l->slots = cgm_arena_alloc(l->arena, sizeof(int) * (size_t)l->nslots);
	for (int i = 0; i < l->nnodes; i++)
		l->slots[name_slot(l, l->nodes[i].name)] = i + 1;
}

static double number(const char *s, double fallback)
{
	if (!s)
		return fallback;
	char *end;
	double v = strtod(s, &end);
	return end == s || !isfinite(v) ? fallback : v;
}

static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = list; p && (p = strstr(p, word)) != NULL; p += n) {
		bool start = p == list || p[-1] == ',' || p[-1] == ' ';
		bool end = p[n] == '\0' || p[n] == ',' || p[n] == ' ';
		if (start && end)
			return true;
	}
	return false;
}

static enum arrow_kind arrow_of(const char *s, enum arrow_kind fallback)
{
	if (!s)
		return fallback;
	for (int k = 0; k < ARROW_KINDS; k++)
		if (strcmp(s, arrow_names[k]) == 0)
			return (enum arrow_kind)k;
	return fallback;
}

/* A node by name, made with the node defaults when first named. */
static int node_of(layout *l, const char *name, const attr_list *attrs)
{
	int i = find_node(l, name);
	if (i < 0) {
		if (l->nnodes == l->cap_nodes) {
			int cap = l->cap_nodes ? l->cap_nodes * 2 : 32;
			l->nodes = cgm_arena_grow(l->arena, l->nodes, (size_t)l->nnodes, (size_t)cap,
						  sizeof(lnode));
			l->cap_nodes = cap;
			index_names(l);
		}
		i = l->nnodes++;
		l->nodes[i].name = name;
		l->slots[name_slot(l, name)] = i + 1;
		attrs = attrs ? attrs : &l->node_defaults;
	}
	if (!attrs)
		return i;
	lnode *n = &l->nodes[i];
	const char *label = attr_get(attrs, ATTR_LABEL);
	n->label = label ? label : name;
	n->tooltip = attr_get(attrs, ATTR_TOOLTIP);
	n->url = attr_get(attrs, ATTR_URL);
	const char *shape = attr_get(attrs, ATTR_SHAPE);
	n->shape = shape && strcmp(shape, "ellipse") == 0   ? SHAPE_ELLIPSE
		   : shape && strcmp(shape, "diamond") == 0 ? SHAPE_DIAMOND
							    : SHAPE_BOX;
	const char *style = attr_get(attrs, ATTR_STYLE);
	n->dashed = has_word(style, "dashed");
	n->filled = has_word(style, "filled");
	n->fill = attr_get(attrs, ATTR_FILLCOLOR);
	n->stroke = attr_get(attrs, ATTR_COLOR);
	n->fontcolor = attr_get(attrs, ATTR_FONTCOLOR);
	n->pen = number(attr_get(attrs, ATTR_PENWIDTH), 1.0);
	n->fontsize = number(attr_get(attrs, ATTR_FONTSIZE), 10.0);
	if (n->fontsize < 4 || n->fontsize > 40)
		n->fontsize = 10.0;
	return i;
}

static void add_edge(layout *l, int from, int to, const attr_list *attrs)
{
	if (l->nedges == l->cap_edges) {
		int cap = l->cap_edges ? l->cap_edges * 2 : 64;
		l->edges = cgm_arena_grow(l->arena, l->edges, (size_t)l->nedges, (size_t)cap,
					  sizeof(ledge));
		l->cap_edges = cap;
	}
	ledge *e = &l->edges[l->nedges++];
	e->from = from, e->to = to;
	e->color = attr_get(attrs, ATTR_COLOR);
	e->fontcolor = attr_get(attrs, ATTR_FONTCOLOR);
	e->label = attr_get(attrs, ATTR_LABEL);
	e->tooltip = attr_get(attrs, ATTR_TOOLTIP);
	e->pen = number(attr_get(attrs, ATTR_PENWIDTH), 1.0);
	const char *style = attr_get(attrs, ATTR_STYLE);
	e->dash = has_word(style, "dashed") ? 1 : has_word(style, "dotted") ? 2 : 0;
	e->head = arrow_of(attr_get(attrs, ATTR_ARROWHEAD), ARROW_NORMAL);
	const char *dir = attr_get(attrs, ATTR_DIR);
	e->tail = dir && strcmp(dir, "both") == 0 ? arrow_of(attr_get(attrs, ATTR_ARROWTAIL), ARROW_NONE)
						  : ARROW_NONE;
	const char *constraint = attr_get(attrs, ATTR_CONSTRAINT);
	e->constraint = !constraint || strcmp(constraint, "false") != 0;
}

static int parse_dot(layout *l, const char *dot)
{
	cursor c = { dot, 1 };
	skip_space(&c);
	const char *kw = read_value(l, &c);
	if (!kw || strcmp(kw, "digraph") != 0)
		return parse_error(l, &c, "'digraph' expected");
	skip_space(&c);
	if (*c.p != '{' && !read_value(l, &c))
		return parse_error(l, &c, "a graph name expected");
	skip_space(&c);
	if (*c.p != '{')
		return parse_error(l, &c, "'{' expected");
	c.p++;
	for (;;) {
		skip_space(&c);
		if (*c.p == '}')
			break;
		if (!*c.p)
			return parse_error(l, &c, "'}' expected");
		const char *name = read_value(l, &c);
		if (!name)
			return parse_error(l, &c, "a statement expected");
		if (strcmp(name, "subgraph") == 0 || name[0] == '<')
			return parse_error(l, &c, "a subgraph or HTML label");
		skip_space(&c);
		int rc;
		if (strcmp(name, "graph") == 0 || strcmp(name, "node") == 0 ||
		    strcmp(name, "edge") == 0) {
			attr_list scratch = { { NULL } };
			attr_list *into = strcmp(name, "node") == 0   ? &l->node_defaults
					  : strcmp(name, "edge") == 0 ? &l->edge_defaults
								      : &scratch;
			if ((rc = read_attrs(l, &c, into)) != 0)
				return rc;
		} else if (c.p[0] == '-' && c.p[1] == '>') {
			c.p += 2;
			const char *to = read_value(l, &c);
			if (!to)
				return parse_error(l, &c, "an edge's head expected");
			attr_list attrs = l->edge_defaults;
			if ((rc = read_attrs(l, &c, &attrs)) != 0)
				return rc;
			int from = node_of(l, name, NULL), head = node_of(l, to, NULL);
			add_edge(l, from, head, &attrs);
		} else {
			attr_list attrs = l->node_defaults;
			if ((rc = read_attrs(l, &c, &attrs)) != 0)
				return rc;
			node_of(l, name, &attrs);
		}
		skip_space(&c);
		if (*c.p == ';')
			c.p++;
	}
	if (l->nnodes == 0)
		return parse_error(l, &c, "no node");
	return 0;
}

/* ---- measuring text ---- */

/* Helvetica's advance widths, in thousandths of an em, for ASCII 32..126
 * (the font metrics browsers' sans-serif fonts share closely). */
static const unsigned short helvetica_widths[95] = {
	278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
	556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
	1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
	667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
	333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
	556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
};

/* Width in pixels of one line (up to a newline) at `size`, and where it
 * ends. */
static double line_width(const char *s, const char **end, double size)
{
	double em = 0;
	const unsigned char *p = (const unsigned char *)s;
	for (; *p && *p != '\n'; p++) {
		if (*p >= 32 && *p < 127)
			em += helvetica_widths[*p - 32];
		else if (*p >= 0xE3 && *p <= 0xED)
			em += 1000; /* CJK: full width */
		else if ((*p & 0xC0) != 0x80)
			em += 600; /* other characters: an average letter */
	}
	if (end)
		*end = (const char *)p;
	return em * size / 1000.0;
}

static void measure(lnode *n)
{
	double w = 0;
	int lines = 0;
	for (const char *p = n->label;; p++) {
		const char *end;
		double lw = line_width(p, &end, n->fontsize);
		if (lw > w)
			w = lw;
		lines++;
		p = end;
		if (!*p)
			break;
	}
	double text_h = lines * n->fontsize * LINE_HEIGHT;
	/* Room for a browser's sans-serif wider than Helvetica (DejaVu Sans,
	 * the usual one on Linux, is a sixth wider): the label then fits
	 * without being scaled (the page's script scales only what would not). */
	w *= FONT_SLACK;
	switch (n->shape) {
	case SHAPE_BOX:
		n->w = ceil(w + 2 * BOX_PAD_X);
		n->h = fmax(BOX_HEIGHT, ceil(text_h + 8));
		break;
	case SHAPE_ELLIPSE:
		n->w = ceil(w * 1.2 + 2 * BOX_PAD_X);
		n->h = fmax(BOX_HEIGHT + 2, ceil(text_h * 1.4 + 6));
		break;
	case SHAPE_DIAMOND:
		n->w = ceil(w * 1.6 + 12);
		n->h = ceil(text_h * 1.9 + 8);
		break;
	}
}

/* ---- ranks and order ---- */

/* Ranks: the focal node (the first) is 0; callers (nodes with an edge
 * towards ranked nodes) go left, callees right, one rank per step.  The
 * caller side is ranked first, as html_graph_function keeps callers
 * first: a function that both calls and is called by the focal one stays
 * a caller.  Edges marked constraint=false (possible targets of dynamic
 * SQL) rank only what nothing else ranks. */
static void assign_ranks(layout *l)
{
	int n = l->nnodes;
	int *queue = cgm_arena_alloc(l->arena, sizeof(int) * (size_t)n);
	l->nodes[0].ranked = true;
	l->nodes[0].rank = 0;
	for (int pass = 0; pass < 2; pass++) {
		bool up = pass == 0;
		int head = 0, tail = 0;
		queue[tail++] = 0;
		while (head < tail) {
			int u = queue[head++];
			for (int k = 0; k < l->nedges; k++) {
				const ledge *e = &l->edges[k];
				if (!e->constraint)
					continue;
				int from = up ? e->to : e->from, to = up ? e->from : e->to;
				if (from != u || l->nodes[to].ranked)
					continue;
				l->nodes[to].ranked = true;
				l->nodes[to].rank = l->nodes[u].rank + (up ? -1 : 1);
				queue[tail++] = to;
			}
		}
	}
	/* What the BFS from the focal node did not reach: next to a ranked
	 * neighbour, any edge counting, until nothing changes. */
	for (bool changed = true; changed;) {
		changed = false;
		for (int k = 0; k < l->nedges; k++) {
			const ledge *e = &l->edges[k];
			lnode *a = &l->nodes[e->from], *b = &l->nodes[e->to];
			if (a->ranked && !b->ranked) {
				b->ranked = true, b->rank = a->rank + 1, changed = true;
			} else if (b->ranked && !a->ranked) {
				a->ranked = true, a->rank = b->rank - 1, changed = true;
			}
		}
	}
	for (int i = 0; i < n; i++)
		if (!l->nodes[i].ranked)
			l->nodes[i].ranked = true, l->nodes[i].rank = 1;
}

typedef struct slot_ref {
	double key;
	int node, seq;
} slot_ref;

static int compare_slot(const void *a, const void *b)
{
	const slot_ref *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->seq - y->seq;
}

/* Within a rank: the first rings keep the DOT's order (the busiest
 * first); further out, each node goes by the mean slot of its neighbours
 * one rank nearer the focal node, so a "+N more" or an outer caller sits
 * beside the function it belongs to. */
static void order_ranks(layout *l, int min_rank, int max_rank)
{
	slot_ref *refs = cgm_arena_alloc(l->arena, sizeof(slot_ref) * (size_t)l->nnodes);
	for (int dist = 0; dist <= (max_rank > -min_rank ? max_rank : -min_rank); dist++) {
		for (int side = -1; side <= 1; side += 2) {
			int r = dist * side;
			if (dist == 0 && side == 1)
				continue;
			int nr = 0;
			for (int i = 0; i < l->nnodes; i++) {
				if (l->nodes[i].rank != r)
					continue;
				double key = nr;
				if (dist >= 2) {
					double sum = 0;
					int count = 0;
					int inner = r - side;
					for (int k = 0; k < l->nedges; k++) {
						const ledge *e = &l->edges[k];
						int other = e->from == i ? e->to : e->to == i ? e->from : -1;
						if (other < 0 || l->nodes[other].rank != inner)
							continue;
						sum += l->nodes[other].slot, count++;
					}
					key = count ? sum / count : 1e9 + nr;
				}
				refs[nr++] = (slot_ref){ key, i, nr };
			}
			qsort(refs, (size_t)nr, sizeof(slot_ref), compare_slot);
			for (int s = 0; s < nr; s++)
				l->nodes[refs[s].node].slot = s;
		}
	}
}

/* Columns left to right, each as wide as its widest node, its nodes
 * stacked and centred on the tallest column. */
static void place(layout *l, int min_rank, int max_rank, double *width, double *height)
{
	int nranks = max_rank - min_rank + 1;
	double *col_w = cgm_arena_alloc(l->arena, sizeof(double) * (size_t)nranks);
	double *col_h = cgm_arena_alloc(l->arena, sizeof(double) * (size_t)nranks);
	int *count = cgm_arena_alloc(l->arena, sizeof(int) * (size_t)nranks);
	for (int i = 0; i < l->nnodes; i++) {
		lnode *n = &l->nodes[i];
		int r = n->rank - min_rank;
		measure(n);
		if (n->w > col_w[r])
			col_w[r] = n->w;
		col_h[r] += n->h + (count[r]++ ? NODE_GAP : 0);
	}
	double tallest = 0;
	for (int r = 0; r < nranks; r++)
		tallest = fmax(tallest, col_h[r]);
	/* Nodes of a column in slot order: a column's slots are 0..count-1. */
	int **at = cgm_arena_alloc(l->arena, sizeof(int *) * (size_t)nranks);
	for (int r = 0; r < nranks; r++)
		at[r] = cgm_arena_alloc(l->arena, sizeof(int) * (size_t)(count[r] + 1));
	for (int i = 0; i < l->nnodes; i++)
		at[l->nodes[i].rank - min_rank][l->nodes[i].slot] = i;
	double x = MARGIN;
	for (int r = 0; r < nranks; r++) {
		double y = MARGIN + (tallest - col_h[r]) / 2;
		for (int s = 0; s < count[r]; s++) {
			lnode *n = &l->nodes[at[r][s]];
			n->x = x + col_w[r] / 2;
			n->y = y + n->h / 2;
			y += n->h + NODE_GAP;
		}
		/* A self loop or an arc within a column needs room to its right. */
		x += col_w[r] + (count[r] ? RANK_GAP : 0);
	}
	*width = x - RANK_GAP + MARGIN + 30;
	*height = tallest + 2 * MARGIN;
}

/* ---- the drawn graph ---- */

/* A coordinate in whole pixels: integers print faster than %f and read
 * the same at this scale. */
static int px(double v)
{
	return (int)lround(v);
}

/* A colour as given, when it is one (#rrggbb or a word); else the fallback. */
static const char *colour(const char *c, const char *fallback)
{
	if (!c || !*c)
		return fallback;
	for (const char *p = c; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      *p == '#'))
			return fallback;
	return c;
}

/* Text as a person should see it, as a JSON string: the page's script
 * puts it into the SVG as text, where no entity is read. */
static void put_json_visible(cgm_strbuf *out, const char *s)
{
	cgm_strbuf_putc(out, '"');
	cgm_escape_json_visible(out, s);
	cgm_strbuf_putc(out, '"');
}

/* The label the page's script derives from a node's tooltip when the data
 * leaves it out: the tooltip up to " (", without what precedes its first
 * '.' (the schema).  The label is written only when it differs. */
static bool label_derivable(const lnode *n)
{
	if (!n->tooltip || !n->label)
		return false;
	const char *end = strstr(n->tooltip, " (");
	size_t len = end ? (size_t)(end - n->tooltip) : strlen(n->tooltip);
	const char *dot = memchr(n->tooltip, '.', len);
	const char *from = dot ? dot + 1 : n->tooltip;
	size_t flen = len - (size_t)(from - n->tooltip);
	/* The label is compared as the page will show it: only plain text
	 * (nothing the escapers show differently) is derived. */
	return strlen(n->label) == flen && strncmp(n->label, from, flen) == 0 &&
	       cgm_escape_is_plain(n->label);
}

/* Index + 1 of `text` in the list of distinct strings (appended when new);
 * 0 for no text. */
static int style_index(layout *l, const char ***list, int *n, int *cap, const char *text)
{
	if (!text || !*text)
		return 0;
	for (int i = 0; i < *n; i++)
		if (strcmp((*list)[i], text) == 0)
			return i + 1;
	if (*n == *cap) {
		int grown = *cap ? *cap * 2 : 8;
		const char **bigger = cgm_arena_alloc(l->arena, sizeof(char *) * (size_t)grown);
		if (*n)
			memcpy(bigger, *list, sizeof(char *) * (size_t)*n);
		*list = bigger;
		*cap = grown;
	}
	(*list)[(*n)++] = cgm_arena_strdup(l->arena, text);
	return *n;
}

/* A node's own look, as the SVG style its shape gets: only what differs
 * from the site CSS's white box with the static grey border. */
static void node_style(cgm_strbuf *out, const lnode *n)
{
	const char *stroke = colour(n->stroke, DEFAULT_STROKE);
	const char *fill = n->filled ? colour(n->fill, "#ffffff") : "none";
	if (strcmp(fill, "#ffffff") != 0)
		cgm_strbuf_puts(out, "fill:"), cgm_strbuf_puts(out, fill), cgm_strbuf_putc(out, ';');
	if (strcmp(stroke, DEFAULT_STROKE) != 0)
		cgm_strbuf_puts(out, "stroke:"), cgm_strbuf_puts(out, stroke), cgm_strbuf_putc(out, ';');
	if (n->pen != 1.0 && n->pen > 0 && n->pen < 20)
		cgm_strbuf_printf(out, "stroke-width:%.2f;", n->pen);
	if (n->dashed)
		cgm_strbuf_puts(out, "stroke-dasharray:5,2;");
	if (out->len)
		out->data[--out->len] = '\0'; /* the last ';' */
}

/* An edge's look: [colour, pen, dash, head, tail, label colour], the
 * fields at their default (grey, 1, solid, a normal arrowhead, no tail, the
 * edge's colour) left off the end. */
static void edge_style(cgm_strbuf *out, const ledge *e)
{
	const char *col = colour(e->color, DEFAULT_STROKE);
	const char *fc = colour(e->fontcolor, col);
	double pen = e->pen != 1.0 && e->pen > 0 && e->pen < 20 ? e->pen : 1.0;
	int fields = strcmp(fc, col) != 0	      ? 6
		     : e->tail != ARROW_NONE	      ? 5
		     : e->head != ARROW_NORMAL	      ? 4
		     : e->dash			      ? 3
		     : pen != 1.0		      ? 2
		     : strcmp(col, DEFAULT_STROKE) != 0 ? 1
						      : 0;
	if (!fields)
		return;
	cgm_strbuf_puts(out, "[\"");
	cgm_strbuf_puts(out, col);
	cgm_strbuf_putc(out, '"');
	if (fields > 1)
		cgm_strbuf_printf(out, ",%.1f", pen);
	if (fields > 2)
		cgm_strbuf_putc(out, ','), cgm_strbuf_add_int(out, e->dash);
	if (fields > 3)
		cgm_strbuf_putc(out, ','), cgm_strbuf_add_int(out, (int)e->head);
	if (fields > 4)
		cgm_strbuf_putc(out, ','), cgm_strbuf_add_int(out, (int)e->tail);
	if (fields > 5)
		cgm_strbuf_printf(out, ",\"%s\"", fc);
	cgm_strbuf_putc(out, ']');
}

#define PLAIN_NODE_HEIGHT 22

/* The looks of html_graph.c's usual nodes and edges without runtime data
 * (with it, border and line widths follow the figures): the site script
 * holds them once (html_layout_shared_styles), and a function page's
 * graph names them by their index in its "ns" and "es" lists. */
static const char *const shared_node_styles[] = {
	"fill:#fff3bf;stroke:#000000;stroke-width:2.50", /* the focal function */
	"fill:#d3f9d8;stroke:#2b8a3e",                   /* an entry point */
	"fill:#f1f3f5;stroke:#868e96;stroke-dasharray:5,2", /* +N more */
	"fill:#f3f0ff;stroke:#c92a2a",                   /* a dynamic site never seen */
	"fill:#f3f0ff;stroke:#7048e8",                   /* a dynamic site */
	"fill:#d0ebff;stroke:#1864ab",                   /* cold */
	"fill:#ffc9c9;stroke:#c92a2a",                   /* dead */
	"fill:#fff5f5;stroke:#c92a2a;stroke-dasharray:5,2", /* a missing callee */
	"fill:#d3f9d8;stroke:#000000;stroke-width:2.50", /* focal entry point */
	"fill:#d0ebff;stroke:#000000;stroke-width:2.50", /* focal, cold */
	"fill:#ffc9c9;stroke:#000000;stroke-width:2.50", /* focal, dead */
	NULL
};
static const char *const shared_edge_styles[] = {
	"[\"#868e96\",1.0,1]", "[\"#2b8a3e\",1.0,1,6]", "[\"#495057\",1.0,0,2]",
	"[\"#7048e8\",1.0,2,0]", "[\"#7048e8\",1.0,1,2]", "[\"#2b8a3e\",1.0,1,4]",
	"[\"#e8590c\"]", "[\"#1971c2\",2.2]", "[\"#7048e8\",2.2,2,3]", "[\"#c92a2a\",1.0,1]",
	NULL
};

static int shared_style(const char *const *list, const char *style)
{
	for (int k = 0; list[k]; k++)
		if (strcmp(list[k], style) == 0)
			return k;
	return -1;
}

void html_layout_shared_styles(cgm_strbuf *js)
{
	cgm_strbuf_printf(js, "  var PLAIN_NODE = [%d, %d]; /* height, gap below the one above */\n",
			  PLAIN_NODE_HEIGHT, (int)NODE_GAP);
	cgm_strbuf_puts(js, "  var SHARED_NS = [");
	for (int k = 0; shared_node_styles[k]; k++)
		cgm_strbuf_printf(js, "%s'%s'", k ? ", " : "", shared_node_styles[k]);
	cgm_strbuf_puts(js, "];\n  var SHARED_ES = [");
	for (int k = 0; shared_edge_styles[k]; k++)
		cgm_strbuf_printf(js, "%s%s", k ? ", " : "", shared_edge_styles[k]);
	cgm_strbuf_puts(js, "];\n");
}

/* Node i is the only node of its function (refs: each node's index in the
 * page's data, -1 none). */
static bool sole_ref(const int *refs, int nnodes, int i)
{
	if (refs[i] < 0)
		return false;
	for (int k = 0; k < nnodes; k++)
		if (k != i && refs[k] == refs[i])
			return false;
	return true;
}

/* A node that is a function page named in the page's data (pd): its index
 * there, and how much of its tooltip the script derives from the search
 * index (the id, then " (status)" when it has one); -1 when it is not. */
static int page_ref(html_pagedata *pd, const char *url, const char *tooltip, size_t *derived)
{
	if (!pd || !url || !tooltip)
		return -1;
	int fn = html_fn_of_page(pd->ctx, url);
	if (fn < 0)
		return -1;
	const char *id = pd->ctx->model->functions[fn].id;
	size_t len = strlen(id);
	if (strncmp(tooltip, id, len) != 0)
		return -1;
	cgm_strbuf status = CGM_STRBUF_INIT;
	html_status_text(&status, pd->ctx, fn);
	if (status.len) {
		size_t slen = status.len;
		if (strncmp(tooltip + len, " (", 2) != 0 ||
		    strncmp(tooltip + len + 2, status.data, slen) != 0 ||
		    tooltip[len + 2 + slen] != ')')
			len = (size_t)-1;
		else
			len += 3 + slen;
	}
	cgm_strbuf_free(&status);
	if (len == (size_t)-1)
		return -1;
	*derived = len;
	return html_pagedata_fn(pd, fn);
}

/* The graph as the page draws it: an empty <svg> of the graph's size, and
 * the layout as JSON in a
 * <script type="application/json" class="layered-data"> beside it, which
 * the site script (html_page.c, drawLayered) turns into the same elements
 * a drawn SVG would hold (an arrow marker per kind and colour in use;
 * a.node with xlink:href and xlink:title around a shape and its text
 * lines; a.edge around a path).  Data, not markup: a
 * busy function's graph took half of its page.
 *
 *   {"n": [[left, top, width, height, rank, "href", "tooltip", label,
 *           style, shape, font size, "font colour"], ...],
 *    "e": [[from, to, style, "tooltip", "label"], ...],
 *    "ns": ["fill:#d3f9d8;stroke:#2b8a3e", ...],     node styles
 *    "es": [["#2b8a3e", 1.0, 1, 6], ...]}             edge styles
 *
 * A node's label is 0 when it is the tooltip up to " (" without its
 * schema; style is an index + 1 into ns or es (0: the default look);
 * shape 0 box, 1 ellipse, 2 diamond; optional fields at their default
 * (label derived, no style, box, 10, black) are left off the end.
 *
 * On a function page (pd):
 * - a node that is a function the page's data names has that index (a
 *   number) for its href, and for its tooltip only what follows the id and
 *   " (status)", which the script takes from the search index;
 * - a node of five numbers is [left, top, width, rank, page-data index]:
 *   PLAIN_NODE_HEIGHT high, its tooltip derived whole, all else default;
 *   of two, [width, page-data index]: the same, in the rank of the node
 *   before it, centred on it, NODE_GAP below it (the script has both
 *   numbers: html_layout_shared_styles);
 * - an edge's tooltip is the row's number + 1 when it is the one the script
 *   writes from that row of the page's tables, -(j + 1) when it is the
 *   tooltip of the j-th edge (from 0) of "e";
 * - an edge for a row, with no label, between nodes no other node shares a
 *   function with, is left out of "e" and drawn from the row: "g":
 *   [style + 1 per row, callers' rows first; 0 not drawn, -k for k rows
 *   not drawn; trailing ones left off];
 * - an entry of "ns" or "es" that is a number is that entry of the site
 *   script's SHARED_NS or SHARED_ES. */
static void write_graph(cgm_strbuf *out, layout *l, double width, double height,
			const char *strip_prefix, html_pagedata *pd)
{
	/* The script gives it its viewBox and font (drawLayered). */
	cgm_strbuf_printf(out, "<svg class=\"layered\" width=\"%d\" height=\"%d\"></svg>\n",
			  px(width), px(height));
	cgm_strbuf_puts(out, "<script type=\"application/json\" class=\"layered-data\">{\"n\":[");

	const char **node_styles = NULL, **edge_styles = NULL;
	int nns = 0, cap_ns = 0, nes = 0, cap_es = 0;
	cgm_strbuf style = CGM_STRBUF_INIT;
	size_t plen = strip_prefix ? strlen(strip_prefix) : 0;
	int *refs = cgm_arena_alloc(l->arena, ((size_t)l->nnodes + 1) * sizeof(int));
	int prev[5] = { 0 };
	for (int i = 0; i < l->nnodes; i++) {
		const lnode *n = &l->nodes[i];
		const int numbers[5] = { px(n->x - n->w / 2), px(n->y - n->h / 2), px(n->w), px(n->h),
					 n->rank };
		const char *url = n->url;
		if (url && plen && strncmp(url, strip_prefix, plen) == 0)
			url += plen;
		size_t derived = 0;
		int ref = page_ref(pd, url, n->tooltip, &derived);
		refs[i] = ref;
		cgm_strbuf_reset(&style);
		node_style(&style, n);
		int si = style_index(l, &node_styles, &nns, &cap_ns, cgm_strbuf_cstr(&style));
		const char *fc = n->fontcolor ? colour(n->fontcolor, "#000000") : NULL;
		bool label_derived = label_derivable(n);
		int fields = fc			     ? 12
			     : n->fontsize != 10.0    ? 11
			     : n->shape != SHAPE_BOX  ? 10
			     : si		     ? 9
			     : !label_derived		     ? 8
						     : 7;
		cgm_strbuf_puts(out, i ? ",\n[" : "[");
		bool remainder = n->tooltip && n->tooltip[derived];
		bool plain = ref >= 0 && fields == 7 && !remainder && numbers[3] == PLAIN_NODE_HEIGHT;
		bool below = i > 0 && numbers[4] == prev[4] &&
			     2 * numbers[0] + numbers[2] == 2 * prev[0] + prev[2] &&
			     numbers[1] == prev[1] + prev[3] + (int)NODE_GAP;
		memcpy(prev, numbers, sizeof(prev));
		if (plain && below) {
			/* Under the node before it, centred on it: [width, ref]. */
			cgm_strbuf_add_int(out, numbers[2]);
			cgm_strbuf_putc(out, ',');
			cgm_strbuf_add_int(out, ref);
			cgm_strbuf_putc(out, ']');
			continue;
		}
		if (plain) {
			/* The plainest node, most of a graph: [left, top, width, rank, ref]. */
			for (int k = 0; k < 5; k++)
				if (k != 3)
					cgm_strbuf_add_int(out, numbers[k]), cgm_strbuf_putc(out, ',');
			cgm_strbuf_add_int(out, ref);
			cgm_strbuf_putc(out, ']');
			continue;
		}
		for (int k = 0; k < 5; k++)
			cgm_strbuf_add_int(out, numbers[k]), cgm_strbuf_putc(out, ',');
		if (ref >= 0) {
			cgm_strbuf_add_int(out, ref);
		} else if (url) {
			cgm_strbuf_putc(out, '"');
			cgm_escape_json(out, url);
			cgm_strbuf_putc(out, '"');
		} else {
			cgm_strbuf_puts(out, "0");
		}
		cgm_strbuf_putc(out, ',');
		if (remainder)
			put_json_visible(out, n->tooltip + derived);
		else
			cgm_strbuf_puts(out, "0");
		if (fields > 7) {
			cgm_strbuf_putc(out, ',');
			if (label_derived)
				cgm_strbuf_putc(out, '0');
			else
				put_json_visible(out, n->label);
		}
		if (fields > 8)
			cgm_strbuf_putc(out, ','), cgm_strbuf_add_int(out, si);
		if (fields > 9)
			cgm_strbuf_puts(out, n->shape == SHAPE_ELLIPSE   ? ",1"
					     : n->shape == SHAPE_DIAMOND ? ",2"
									 : ",0");
		if (fields > 10)
			cgm_strbuf_printf(out, ",%g", n->fontsize);
		if (fields > 11)
			cgm_strbuf_printf(out, ",\"%s\"", fc);
		cgm_strbuf_putc(out, ']');
	}
	cgm_strbuf_puts(out, "],\n\"e\":[");
	/* An edge of the focal function drawn for a row of the tables, between
	 * nodes no other node shares a function with, is that row's entry in
	 * "g" (its style + 1) instead: the script draws it from the row. */
	int nrows = pd ? pd->nrows : 0, last_drawn = -1, written = 0;
	int *drawn = nrows ? cgm_arena_alloc(l->arena, (size_t)nrows * sizeof(int)) : NULL;
	const char **written_tips = cgm_arena_alloc(l->arena, ((size_t)l->nedges + 1) * sizeof(char *));
	if (drawn)
		memset(drawn, 0, (size_t)nrows * sizeof(int));
	for (int k = 0; k < l->nedges; k++) {
		const ledge *e = &l->edges[k];
		cgm_strbuf_reset(&style);
		edge_style(&style, e);
		int si = style_index(l, &edge_styles, &nes, &cap_es, cgm_strbuf_cstr(&style));
		bool label = e->label && *e->label;
		int row = pd && e->tooltip ? html_pagedata_row_of(pd, refs[e->from], refs[e->to],
								 e->tooltip)
					   : -1;
		if (row >= 0 && !label && !drawn[row] && sole_ref(refs, l->nnodes, e->from) &&
		    sole_ref(refs, l->nnodes, e->to)) {
			drawn[row] = si + 1;
			if (row > last_drawn)
				last_drawn = row;
			continue;
		}
		written_tips[written] = e->tooltip;
		cgm_strbuf_puts(out, written++ ? ",\n[" : "[");
		cgm_strbuf_add_int(out, e->from);
		cgm_strbuf_putc(out, ',');
		cgm_strbuf_add_int(out, e->to);
		if (si || e->tooltip || label)
			cgm_strbuf_putc(out, ','), cgm_strbuf_add_int(out, si);
		if (e->tooltip || label) {
			cgm_strbuf_putc(out, ',');
			int same = -1; /* an earlier edge's: a dynamic site's many targets */
			for (int j = 0; pd && row < 0 && e->tooltip && j < written - 1 && same < 0; j++)
				if (written_tips[j] && strcmp(written_tips[j], e->tooltip) == 0)
					same = j;
			if (row >= 0)
				cgm_strbuf_add_int(out, row + 1);
			else if (same >= 0)
				cgm_strbuf_add_int(out, -(same + 1));
			else if (e->tooltip)
				put_json_visible(out, e->tooltip);
			else
				cgm_strbuf_putc(out, '0');
		}
		if (label) {
			cgm_strbuf_putc(out, ',');
			put_json_visible(out, e->label);
		}
		cgm_strbuf_putc(out, ']');
	}
	if (last_drawn >= 0) {
		cgm_strbuf_puts(out, "],\n\"g\":[");
		for (int r = 0; r <= last_drawn; r++) {
			if (r)
				cgm_strbuf_putc(out, ',');
			int zeros = 0;
			while (r + zeros <= last_drawn && drawn[r + zeros] == 0)
				zeros++;
			if (zeros > 1) { /* a hub's undrawn rows: -k for k of them */
				cgm_strbuf_add_int(out, -zeros);
				r += zeros - 1;
			} else {
				cgm_strbuf_add_int(out, drawn[r]);
			}
		}
	}
	cgm_strbuf_puts(out, "],\n\"ns\":[");
	for (int i = 0; i < nns; i++) {
		int k = pd ? shared_style(shared_node_styles, node_styles[i]) : -1;
		if (k >= 0) {
			cgm_strbuf_printf(out, "%s%d", i ? "," : "", k);
			continue;
		}
		cgm_strbuf_printf(out, "%s\"", i ? "," : "");
		cgm_escape_json(out, node_styles[i]);
		cgm_strbuf_putc(out, '"');
	}
	cgm_strbuf_puts(out, "],\n\"es\":[");
	for (int i = 0; i < nes; i++) {
		int k = pd ? shared_style(shared_edge_styles, edge_styles[i]) : -1;
		if (k >= 0)
			cgm_strbuf_printf(out, "%s%d", i ? "," : "", k);
		else
			cgm_strbuf_printf(out, "%s%s", i ? "," : "", edge_styles[i]);
	}
	/* A function page says once what its script draws (html_function.c). */
	cgm_strbuf_puts(out, "]}</script>\n");
	if (!pd)
		cgm_strbuf_puts(out, "<noscript><p class=\"muted\">The graph is drawn by the "
				     "page's script; the tables below list every direct caller and "
				     "callee.</p></noscript>\n");
	cgm_strbuf_free(&style);
}

int html_layout_graph(cgm_strbuf *svg, const char *dot, const char *what, const char *strip_prefix,
		      html_pagedata *pd)
{
	layout l;
	memset(&l, 0, sizeof(l));
	l.arena = cgm_arena_new();
	l.what = what ? what : "?";
	int rc = parse_dot(&l, dot);
	if (rc == 0) {
		assign_ranks(&l);
		int min_rank = 0, max_rank = 0;
		for (int i = 0; i < l.nnodes; i++) {
			if (l.nodes[i].rank < min_rank)
				min_rank = l.nodes[i].rank;
			if (l.nodes[i].rank > max_rank)
				max_rank = l.nodes[i].rank;
		}
		order_ranks(&l, min_rank, max_rank);
		double width, height;
		place(&l, min_rank, max_rank, &width, &height);
		write_graph(svg, &l, width, height, strip_prefix, pd);
	}
	cgm_arena_free(l.arena);
	return rc;
}
