/*
 * jsondom.c - a read-only JSON tree in an arena (see jsondom.h).
 */
#include "jsondom.h"

#include <stdlib.h>
#include <string.h>

#include "jsontok.h"

/* The node for token *i and everything under it; *i moves past it. */
static jd_node *build(cgm_arena *arena, const jt_doc *doc, int *i)
{
	const jt_token *t = &doc->tokens[*i];
	jd_node *node = cgm_arena_alloc(arena, sizeof(jd_node));
	memset(node, 0, sizeof *node);
	int at = (*i)++;
	switch (t->type) {
	case JT_STRING:
		node->type = JD_STRING;
		node->string = jt_strdup(doc, at, arena);
		return node;
	case JT_PRIMITIVE: {
		const char *s = doc->text + t->start;
		if (*s == 't') {
			node->type = JD_TRUE;
		} else if (*s == 'f') {
			node->type = JD_FALSE;
		} else if (*s == 'n') {
			node->type = JD_NULL;
		} else {
			bool real = false;
			for (int k = t->start; k < t->end; k++)
				if (doc->text[k] == '.' || doc->text[k] == 'e' || doc->text[k] == 'E')
					real = true;
			node->type = real ? JD_REAL : JD_INTEGER;
			node->integer = real ? 0 : strtoll(s, NULL, 10);
		}
		return node;
	}
	case JT_ARRAY:
		node->type = JD_ARRAY;
		node->n = t->size;
		node->items = cgm_arena_alloc(arena, sizeof(jd_node *) * (size_t)(t->size ? t->size : 1));
		for (int k = 0; k < t->size; k++)
			node->items[k] = build(arena, doc, i);
		return node;
	case JT_OBJECT:
		node->type = JD_OBJECT;
		node->n = t->size;
		node->keys = cgm_arena_alloc(arena, sizeof(char *) * (size_t)(t->size ? t->size : 1));
		node->items = cgm_arena_alloc(arena, sizeof(jd_node *) * (size_t)(t->size ? t->size : 1));
		for (int k = 0; k < t->size; k++) {
			node->keys[k] = jt_strdup(doc, (*i)++, arena);
			node->items[k] = build(arena, doc, i);
		}
		return node;
	default:
		node->type = JD_NULL;
		return node;
	}
}

jd_node *jd_parse(cgm_arena *arena, const char *text, size_t len)
{
	jt_doc doc = { 0 };
	jd_node *root = NULL;
	if (jt_parse(&doc, text, len) && doc.count > 0) {
		int i = 0;
		root = build(arena, &doc, &i);
	}
	jt_doc_free(&doc);
	return root;
}

jd_node *jd_get(const jd_node *object, const char *key)
{
	if (!object || object->type != JD_OBJECT)
		return NULL;
	for (int k = 0; k < object->n; k++)
		if (strcmp(object->keys[k], key) == 0)
			return object->items[k];
	return NULL;
}

size_t jd_size(const jd_node *array)
{
	return array && array->type == JD_ARRAY ? (size_t)array->n : 0;
}

jd_node *jd_at(const jd_node *array, size_t i)
{
	return array && array->type == JD_ARRAY && i < (size_t)array->n ? array->items[i] : NULL;
}

const char *jd_string(const jd_node *node)
{
	return node && node->type == JD_STRING ? node->string : NULL;
}

const char *jd_string_node(const jd_node *node)
{
	const jd_node *str = jd_get(node, "String");
	if (!str)
		return NULL;
	const char *s = jd_string(jd_get(str, "sval"));
	return s ? s : "";
}

long long jd_integer(const jd_node *node)
{
	return node && node->type == JD_INTEGER ? node->integer : 0;
}
