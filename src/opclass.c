/*
 * opclass.c - operator classes and the support functions an index calls
 * (cgmap/opclass.h).
 *
 * In:  operator classes a source declares, an index's access method and
 *      support numbers.  Out: which statements call each support function,
 *      the operator class an index column takes, the name PostgreSQL gives
 *      an index it names itself.  The set's arrays are malloc'd here and
 *      freed by cgm_opclass_set_free; strings are the caller's.
 */
#include "cgmap/opclass.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmap/error.h"
#include "cgmap/model.h"

/* Support numbers as bits (1 << number), by what calls them: inserting an
 * entry (aminsert and the page splits and key unions it makes), scanning
 * (amgettuple/amgetbitmap: consistent, the key comparisons), or only a
 * read's scan: GiST's distance runs for an ORDER BY on a distance
 * operator and its fetch for an index-only scan, neither of which an
 * UPDATE's or DELETE's target (nor a foreign key's action on it, nor an
 * exclusion constraint's check) ever gets, since those need the row's
 * ctid.  src/source_pg.c's effects query holds the same lists. */
static const struct {
	const char *am;
	unsigned insert, scan, select;
} support_calls[] = {
	{ "btree", 1u << 1, 1u << 1, 0 },
	{ "hash", 1u << 1 | 1u << 2, 1u << 1 | 1u << 2, 0 },
	{ "gist", 1u << 2 | 1u << 3 | 1u << 4 | 1u << 5 | 1u << 6 | 1u << 7,
	  1u << 1 | 1u << 4, 1u << 8 | 1u << 9 },
	{ "gin", 1u << 1 | 1u << 2, 1u << 1 | 1u << 3 | 1u << 4 | 1u << 5 | 1u << 6, 0 },
	{ "spgist", 1u << 1 | 1u << 2 | 1u << 3 | 1u << 6, 1u << 1 | 1u << 4 | 1u << 5, 0 },
	{ "brin", 1u << 1 | 1u << 2 | 1u << 4, 1u << 1 | 1u << 3, 0 },
};

unsigned cgm_opclass_support_events(const char *am, int number, bool exclusion)
{
	if (!am || number < 1 || number > 31)
		return 0;
	for (size_t i = 0; i < sizeof(support_calls) / sizeof(support_calls[0]); i++) {
		if (strcmp(support_calls[i].am, am) != 0)
			continue;
		unsigned bit = 1u << number, events = 0;
		if (support_calls[i].insert & bit)
			events |= CGM_EV_INSERT | CGM_EV_UPDATE;
		if (support_calls[i].scan & bit)
			events |= CGM_EV_SELECT | CGM_EV_UPDATE | CGM_EV_DELETE |
				  (exclusion ? CGM_EV_INSERT | CGM_EV_UPDATE : 0);
		if (support_calls[i].select & bit)
			events |= CGM_EV_SELECT;
		return events;
	}
	return CGM_EV_INSERT | CGM_EV_UPDATE | CGM_EV_DELETE | CGM_EV_SELECT;
}

cgm_opclass *cgm_opclass_add(cgm_opclass_set *set, const char *schema, const char *name,
			     const char *am, const char *type, bool is_default)
{
	if (set->n == set->cap) {
		set->cap = set->cap ? set->cap * 2 : 8;
		set->items = cgm_xrealloc(set->items, (size_t)set->cap * sizeof(cgm_opclass));
	}
	cgm_opclass *oc = &set->items[set->n++];
	memset(oc, 0, sizeof *oc);
	oc->schema = schema;
	oc->name = name;
	oc->am = am;
	oc->type = type;
	oc->is_default = is_default;
	return oc;
}

void cgm_opclass_add_proc(cgm_opclass *oc, int number, int fn)
{
	oc->procs = cgm_xrealloc(oc->procs, (size_t)(oc->nprocs + 1) * sizeof(cgm_opclass_proc));
	oc->procs[oc->nprocs++] = (cgm_opclass_proc){ number, fn };
}

const cgm_opclass *cgm_opclass_find(const cgm_opclass_set *set, const char *schema,
				    const char *name, const char *am, const char *const *path,
				    int npath)
{
	for (int p = 0; p < (schema ? 1 : npath); p++) {
		const char *in = schema ? schema : path[p];
		for (int i = set->n - 1; i >= 0; i--) {
			const cgm_opclass *oc = &set->items[i];
			if (!oc->dropped && strcmp(oc->name, name) == 0 && strcmp(oc->schema, in) == 0 &&
			    strcmp(oc->am, am) == 0)
				return oc;
		}
	}
	return NULL;
}

const cgm_opclass *cgm_opclass_default(const cgm_opclass_set *set, const char *am,
				       const char *type)
{
	if (!type)
		return NULL;
	for (int i = set->n - 1; i >= 0; i--) {
		const cgm_opclass *oc = &set->items[i];
		if (!oc->dropped && oc->is_default && strcmp(oc->am, am) == 0 && oc->type &&
		    strcmp(oc->type, type) == 0)
			return oc;
	}
	return NULL;
}

void cgm_opclass_add_family_proc(cgm_opclass_set *set, const char *family_schema,
				 const char *family, const char *am, const char *type,
				 int number, int fn)
{
	if (set->nloose == set->loose_cap) {
		set->loose_cap = set->loose_cap ? set->loose_cap * 2 : 8;
		set->loose = cgm_xrealloc(set->loose, (size_t)set->loose_cap * sizeof(cgm_opfamily_proc));
	}
	set->loose[set->nloose++] = (cgm_opfamily_proc){ family_schema, family, am, type, number, fn };
}

void cgm_opclass_adopt_family_procs(const cgm_opclass_set *set, cgm_opclass *oc)
{
	if (!oc->family || !oc->family_schema)
		return;
	for (int i = 0; i < set->nloose; i++) {
		const cgm_opfamily_proc *p = &set->loose[i];
		if (strcmp(p->family, oc->family) == 0 && strcmp(p->family_schema, oc->family_schema) == 0 &&
		    strcmp(p->am, oc->am) == 0 && strcmp(p->type, oc->type) == 0)
			cgm_opclass_add_proc(oc, p->number, p->fn);
	}
}

void cgm_opclass_set_free(cgm_opclass_set *set)
{
	for (int i = 0; i < set->n; i++)
		free(set->items[i].procs);
	free(set->items);
	free(set->loose);
	memset(set, 0, sizeof *set);
}

/* NAMEDATALEN - 1: the longest name PostgreSQL keeps. */
#define NAME_MAX_BYTES 63

/* The bytes of s up to n, not cutting a UTF-8 character (pg_mbcliplen). */
static size_t clip_utf8(const char *s, size_t n)
{
	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	return n;
}

const char *cgm_index_name(cgm_arena *arena, const char *table, const char *const *columns,
			   int ncolumns, const char *label)
{
	/* ChooseIndexNameAddition: the columns joined by '_', each at most
	 * 63 bytes, stopping once the whole reaches 64. */
	char addition[2 * (NAME_MAX_BYTES + 1) + 2];
	size_t alen = 0;
	addition[0] = '\0';
	for (int i = 0; columns && i < ncolumns; i++) {
		if (alen > 0)
			addition[alen++] = '_';
		size_t len = strlen(columns[i]);
		if (len > NAME_MAX_BYTES)
			len = NAME_MAX_BYTES;
		memcpy(addition + alen, columns[i], len);
		alen += len;
		addition[alen] = '\0';
		if (alen >= NAME_MAX_BYTES + 1)
			break;
	}
	/* makeObjectName: the longer of table and addition loses bytes
	 * first, to leave room for the underscores and the label. */
	bool two = columns != NULL;
	size_t overhead = (two ? 1 : 0) + (label ? strlen(label) + 1 : 0);
	size_t avail = NAME_MAX_BYTES > overhead ? NAME_MAX_BYTES - overhead : 0;
	size_t n1 = strlen(table), n2 = two ? alen : 0;
	while (n1 + n2 > avail) {
		if (n1 > n2)
			n1--;
		else
			n2--;
	}
	n1 = clip_utf8(table, n1);
	if (two)
		n2 = clip_utf8(addition, n2);
	return cgm_arena_printf(arena, "%.*s%s%.*s%s%s", (int)n1, table, two ? "_" : "", (int)n2,
				two ? addition : "", label ? "_" : "", label ? label : "");
}
