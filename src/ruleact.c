/*
 * ruleact.c - the relations a rule's actions read and write (cgmap/relfx.h,
 * cgm_rule_actions), for both sources: the live catalog hands the text of
 * pg_get_ruledef, the SQL files the CREATE RULE statement as written.
 *
 * In:  the text of one CREATE RULE statement.
 * Out: its actions' relations with the events and columns of each
 *      statement on them, in the arena given; a statement whose tree holds
 *      a node the walker does not know gives nothing (nothing half-read).
 *      The NEW and OLD pseudo-relations of the rule are not relations.
 */
#include "cgmap/relfx.h"

#include <stdlib.h>
#include <string.h>

#include "rawtree.h"

typedef struct collector {
	cgm_arena *arena;
	cgm_rule_action *items;
	int n, cap;
	int mark; /* items before the statement being read */
} collector;

static void on_call(void *ctx, const cgm_raw_call *call)
{
	(void)ctx;
	(void)call;
}

static void on_relation(void *ctx, const cgm_raw_relation *rel)
{
	collector *c = ctx;
	if (!rel->name || (!rel->schema && (strcmp(rel->name, "new") == 0 || strcmp(rel->name, "old") == 0)))
		return;
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 4;
		c->items = cgm_xrealloc(c->items, sizeof(cgm_rule_action) * (size_t)c->cap);
	}
	cgm_rule_action *a = &c->items[c->n++];
	a->schema = rel->schema ? cgm_arena_strdup(c->arena, rel->schema) : NULL;
	a->name = cgm_arena_strdup(c->arena, rel->name);
	a->events = rel->events;
	a->nleading = rel->nleading;
	a->ncolumns = rel->ncolumns;
	a->columns = NULL;
	if (rel->ncolumns > 0) {
		a->columns = cgm_arena_alloc(c->arena, sizeof(char *) * (size_t)rel->ncolumns);
		for (int i = 0; i < rel->ncolumns; i++)
			a->columns[i] = cgm_arena_strdup(c->arena, rel->columns[i]);
	}
}

static void on_statement(void *ctx)
{
	collector *c = ctx;
	c->mark = c->n;
}

static void on_unknown(void *ctx, int start, int len)
{
	collector *c = ctx;
	(void)start;
	(void)len;
	c->n = c->mark;
}

int cgm_rule_actions(cgm_arena *arena, const char *sql, cgm_rule_action **out)
{
	*out = NULL;
	if (!sql)
		return -1;
	collector c = { .arena = arena };
	cgm_raw_visitor v = { .ctx = &c, .call = on_call, .relation = on_relation,
			      .statement = on_statement, .unknown = on_unknown };
	if (cgm_raw_rule_actions(sql, &v) < 0) {
		free(c.items);
		return -1;
	}
	if (c.n > 0) {
		*out = cgm_arena_alloc(arena, sizeof(cgm_rule_action) * (size_t)c.n);
		memcpy(*out, c.items, sizeof(cgm_rule_action) * (size_t)c.n);
	}
	free(c.items);
	return c.n;
}
