/*
 * cgmap/ops.h - operators, casts and aggregates: PostgreSQL 15's builtin
 * operators and casts shipped as data, and the lookups typing and
 * resolution share (which operator `a op b` runs and what it returns,
 * which cast turns one type into another, whether a type coerces
 * implicitly to another).
 *
 * In:  a model whose operators and casts a source filled (live catalog,
 *      SQL files plus the builtin lists below), indexed by cgm_ops_index.
 * Out: pointers into model->operators / model->casts (valid until either
 *      array grows or cgm_ops_index sorts it again); nothing is allocated.
 *      The lookups only read the model and are safe on several threads.
 *
 * Types are canonical (format_type, no typmod).  In the lookups a NULL
 * type is one cgmap cannot know (it matches anything); "unknown" is an
 * untyped string literal, which PostgreSQL reads as whatever type the
 * other side needs.
 */
#ifndef CGMAP_OPS_H
#define CGMAP_OPS_H

#include <stdbool.h>

#include "cgmap/model.h"

/* The pg_catalog operators of PostgreSQL 15 (data/pg15_operators.tsv,
 * written by scripts/gen_builtins.sh), appended to model->operators with
 * builtin set.  Found like the builtin functions (cgm_builtins_path).
 * Returns the number added, or CGM_ESOURCE (message set). */
int cgm_builtin_operators_load(cgm_model *model);
/* The casts of a new PostgreSQL 15 database (data/pg15_casts.tsv). */
int cgm_builtin_casts_load(cgm_model *model);

/* Order model->operators (by name, left, right) and model->casts (by
 * target, source) for the lookups.  Cheap when already ordered; call it
 * after the source (and again after adding any). */
void cgm_ops_index(cgm_model *model);

/* The schemas PostgreSQL searches for an unqualified name in `fn` (its own
 * SET search_path, else the application's given one, else its owner's
 * sessions', else the database default), pg_catalog first unless
 * the path places it: up to max entries into out, the count returned. */
int cgm_function_path(const cgm_model *model, const cgm_function *fn, const char **out, int max);

/* The operators `left name right` (prefix: left NULL and prefix true) may
 * run, by PostgreSQL's rules: in `schema` when written (OPERATOR(s.op)),
 * else through path[0..npath) (pg_catalog first unless placed; an operator
 * masks one of the same operand types in a later schema); an exact match
 * of the operand types wins (an "unknown" operand taken as the other's
 * type), then the candidates every known operand coerces to implicitly,
 * the most exact matches, and preferred types.  Up to max candidates into
 * out; returns how many remain: 0 none, 1 the operator, more: ambiguous. */
int cgm_operator_lookup(const cgm_model *model, const char *schema, const char *const *path,
			int npath, const char *name, const char *left, const char *right, bool prefix,
			const cgm_operator **out, int max);

/* True for the common symbols pg_catalog has several operators of in that
 * form (infix or prefix: "=", "+", "||", prefix "-", ...), from a fixed
 * list of PostgreSQL 15's that the tests hold to data/pg15_operators.tsv.
 * Such an operator on operands of unknowable type always has several
 * fitting candidates, a builtin among them, which resolution never links:
 * extraction records no site for it, without a catalog. */
bool cgm_builtin_operator_overloaded(const char *name, bool prefix);

/* The cast from `source` to `target` (pg_cast row), or NULL. */
const cgm_cast *cgm_cast_find(const cgm_model *model, const char *source, const char *target);
/* Every cast to `target`: *count of them from the returned first one
 * (consecutive, by source), NULL when none. */
const cgm_cast *cgm_casts_to(const cgm_model *model, const char *target, int *count);

/* Whether a value of type `from` becomes a `to` without a written cast in
 * `context` ('i' implicit: an argument or operand; 'a' assignment: a
 * stored or returned value; 'e' explicit: CAST / ::): the same type, an
 * untyped literal, a polymorphic parameter, or a pg_cast row allowed in
 * that context.  NULL `from` (unknowable) is coercible. */
bool cgm_type_coercible(const cgm_model *model, const char *from, const char *to, char context);

/* The aggregate record of function index `fn`, or NULL when it is none
 * (after cgm_model_link; a linear search - resolution indexes them). */
const cgm_aggregate *cgm_aggregate_of(const cgm_model *model, int fn);

/* "operator app.===(app.money,app.money)" / "operator app.-(NONE,app.money)",
 * "cast (text AS app.money)", "aggregate app.mysum(numeric)": the objects
 * edges through these mechanisms name. */
const char *cgm_operator_object(cgm_arena *arena, const cgm_operator *op);
const char *cgm_cast_object(cgm_arena *arena, const cgm_cast *cast);
const char *cgm_aggregate_object(cgm_arena *arena, const cgm_aggregate *agg);

#endif
