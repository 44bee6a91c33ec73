/*
 * jsondom.h - a read-only JSON tree in an arena, for libpg_query's parse
 * trees of DDL (the SQL-file source).
 *
 * In:  JSON text (jsmn tokens, jsontok.h).
 * Out: nodes in the caller's arena, strings unescaped and NUL-terminated;
 *      the arena frees them all.  Objects keep their members in document
 *      order and are searched linearly: libpg_query's objects hold a dozen
 *      keys at most, so no hash table is worth building.
 *
 * Why not jansson: building its hash-table objects cost a quarter of
 * mapping a 10,000-function file (7 MB of parse trees at 30 MB/s), and its
 * allocator is process-wide state that extraction threads must not see
 * swapped.  Every accessor takes NULL and answers "absent".
 */
#ifndef CGMAP_JSONDOM_H
#define CGMAP_JSONDOM_H

#include <stdbool.h>
#include <stddef.h>

#include "cgmap/arena.h"

enum { JD_NULL, JD_TRUE, JD_FALSE, JD_INTEGER, JD_REAL, JD_STRING, JD_ARRAY, JD_OBJECT };

typedef struct jd_node {
	int type;
	int n;                  /* elements of an array, members of an object */
	const char *string;     /* JD_STRING */
	long long integer;      /* JD_INTEGER */
	const char **keys;      /* JD_OBJECT */
	struct jd_node **items; /* elements, or member values */
} jd_node;

/* The tree of `text`, or NULL when it is not JSON. */
jd_node *jd_parse(cgm_arena *arena, const char *text, size_t len);

jd_node *jd_get(const jd_node *object, const char *key);
size_t jd_size(const jd_node *array);
jd_node *jd_at(const jd_node *array, size_t i);
const char *jd_string(const jd_node *node);
/* The text of a {"String": {"sval": ...}} node of libpg_query's JSON, ""
 * when sval is omitted (an empty string); NULL for any other node. */
const char *jd_string_node(const jd_node *node);
long long jd_integer(const jd_node *node);
static inline bool jd_is_true(const jd_node *node) { return node && node->type == JD_TRUE; }
static inline bool jd_is_array(const jd_node *node) { return node && node->type == JD_ARRAY; }
static inline bool jd_is_object(const jd_node *node) { return node && node->type == JD_OBJECT; }

/* for each member of an object, in document order */
#define jd_object_foreach(object, key, value)                                                  \
	for (int jd_i_ = 0; (object) && (object)->type == JD_OBJECT && jd_i_ < (object)->n &&    \
			    ((key) = (object)->keys[jd_i_], (value) = (object)->items[jd_i_], 1); \
	     jd_i_++)

#endif
