/*
 * test_rawtree.c - the raw-tree walker misses no call: for statements of
 * every form it reads itself, the calls it reports (names, in order) are
 * exactly the FuncCall nodes of libpg_query's JSON for the same text, and
 * DML statements report their relation and events.  Statements with nodes
 * it does not know are handed back whole, nothing reported for them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <pg_query.h>

#include "cgmap/model.h"
#include "jsontok.h"
#include "rawtree.h"

typedef struct seen {
	char text[4096];  /* "name name ..." of the calls, in order */
	size_t mark;      /* length of text when the statement began */
	char dml[512];    /* "rel:events ..." */
	int unknown;      /* statements handed back */
	int call_stmts;
	char last_arg_shapes[256];
} seen;

static void add_word(char *buf, size_t size, const char *word)
{
	size_t len = strlen(buf);
	snprintf(buf + len, size - len, "%s%s", len ? " " : "", word);
}

static void on_call(void *ctx, const cgm_raw_call *call)
{
	seen *s = ctx;
	add_word(s->text, sizeof s->text, call->name);
	if (call->call_stmt)
		s->call_stmts++;
	s->last_arg_shapes[0] = '\0';
	for (int i = 0; i < call->nargs; i++) {
		char shape[64];
		snprintf(shape, sizeof shape, "%d%s%s", (int)call->args[i].kind,
			 call->args[i].name ? "=" : "", call->args[i].name ? call->args[i].name : "");
		add_word(s->last_arg_shapes, sizeof s->last_arg_shapes, shape);
	}
}

static void on_relation(void *ctx, const cgm_raw_relation *rel)
{
	seen *s = ctx;
	char word[256];
	int n = snprintf(word, sizeof word, "%s%s%s:%u", rel->schema ? rel->schema : "",
			 rel->schema ? "." : "", rel->name, rel->events);
	for (int i = 0; i < rel->ncolumns && n < (int)sizeof word; i++)
		n += snprintf(word + n, sizeof word - (size_t)n, "%s%s", i ? "," : "(", rel->columns[i]);
	if (rel->ncolumns > 0 && n < (int)sizeof word - 1)
		snprintf(word + n, sizeof word - (size_t)n, ")");
	add_word(s->dml, sizeof s->dml, word);
}

static void on_statement(void *ctx)
{
	seen *s = ctx;
	s->mark = strlen(s->text);
}

static void on_unknown(void *ctx, int start, int len)
{
	seen *s = ctx;
	(void)start;
	(void)len;
	s->text[s->mark] = '\0';
	s->unknown++;
}

static seen scan(const char *sql)
{
	seen s;
	memset(&s, 0, sizeof s);
	cgm_raw_visitor v = { .ctx = &s, .call = on_call, .relation = on_relation, .statement = on_statement, .unknown = on_unknown };
	char *err = NULL;
	int pos = 0;
	if (cgm_raw_scan(sql, &v, &err, &pos) != 0)
		fail_msg("'%s' does not parse: %s", sql, err);
	return s;
}

/* The names of the FuncCall nodes in libpg_query's JSON, in order: the last
 * sval of each funcname list. */
static void json_calls(char *out, size_t size, const char *sql)
{
	out[0] = '\0';
	PgQueryParseResult r = pg_query_parse(sql);
	assert_null(r.error);
	const char *keys[] = { "\"FuncCall\":{\"funcname\":[", "\"funccall\":{\"funcname\":[" };
	for (const char *p = r.parse_tree; *p; p++) {
		for (int k = 0; k < 2; k++) {
			size_t klen = strlen(keys[k]);
			if (strncmp(p, keys[k], klen) != 0)
				continue;
			const char *end = strchr(p + klen, ']');
			const char *last = NULL;
			for (const char *q = p + klen; q && q < end; q = strstr(q + 1, "\"sval\":\""))
				if (strncmp(q, "\"sval\":\"", 8) == 0)
					last = q + 8;
			assert_non_null(last);
			char name[128];
			size_t n = (size_t)(strchr(last, '"') - last);
			snprintf(name, sizeof name, "%.*s", (int)n, last);
			add_word(out, size, name);
		}
	}
	pg_query_free_parse_result(r);
}

static void expect_same_calls(const char *sql)
{
	seen s = scan(sql);
	if (s.unknown)
		fail_msg("'%s' was handed back, not read", sql);
	char expected[4096];
	json_calls(expected, sizeof expected, sql);
	if (strcmp(s.text, expected) != 0)
		fail_msg("'%s':\n  raw tree: %s\n  JSON:     %s", sql, s.text, expected);
}

static void test_every_form_reports_every_call(void **state)
{
	(void)state;
	static const char *const forms[] = {
		"SELECT a(1), b(c(2)) FROM t WHERE d(x) > 0 GROUP BY e(y) HAVING f(z) ORDER BY g(w)",
		"SELECT DISTINCT ON (a1(x)) x FROM t LIMIT l1(1) OFFSET l2(2)",
		"SELECT * FROM s1(1) AS s, LATERAL s2(s.x) AS l, ROWS FROM (r1(1), r2(2) AS (a int)) AS r(x, y)",
		"SELECT * FROM (SELECT sub1(1)) AS q JOIN u ON j1(u.x) = q.sub1 JOIN v USING (k)",
		"WITH w AS (SELECT cte1(1)), z AS MATERIALIZED (SELECT cte2(2)) SELECT cte3(3) FROM w, z",
		"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT rc(n) FROM r) SEARCH DEPTH FIRST BY n SET o CYCLE n SET c TO 'y' DEFAULT 'n' USING p SELECT cyc1(1) FROM r",
		"SELECT x FROM t UNION SELECT u1(1) EXCEPT SELECT u2(2) INTERSECT SELECT u3(3)",
		"VALUES (v1(1), v2(2)), (v3(3), 4)",
		"SELECT CASE c1(x) WHEN c2(1) THEN c3(2) ELSE c4(3) END, COALESCE(co1(1), co2(2)), NULLIF(n1(1), 2), GREATEST(g1(1), 2), LEAST(1, l1(2))",
		"SELECT ARRAY[ar1(1), ar2(2)], ROW(ro1(1), 2), (ind1(x)).field, (ind2(x))[ix1(1):ix2(2)]",
		"SELECT x IS NULL, i1(x) IS NOT TRUE, i2(x) IS DISTINCT FROM i3(y), i4(x) BETWEEN i5(1) AND i6(2), i7(x) IN (i8(1), 2)",
		"SELECT EXISTS (SELECT ex1(1)), x = ANY (SELECT an1(2)), (SELECT sc1(3)), ARRAY(SELECT as1(4))",
		"SELECT x::int, CAST(ca1(1) AS text), ca2(2)::numeric(10, 2), text 'lit', ca3(x) COLLATE \"C\"",
		"SELECT agg1(x ORDER BY ob1(y)) FILTER (WHERE fi1(z)), agg2(DISTINCT x), pct(0.5) WITHIN GROUP (ORDER BY wg1(x)), count(*)",
		"SELECT win1(x) OVER (PARTITION BY pb1(y) ORDER BY ob2(z) ROWS BETWEEN fr1(1) PRECEDING AND fr2(2) FOLLOWING), win2(x) OVER w FROM t WINDOW w AS (ORDER BY ob3(x))",
		"SELECT x FROM t GROUP BY GROUPING SETS ((gs1(a)), ROLLUP (gs2(b)), CUBE (gs3(c))), GROUPING(a)",
		"SELECT current_date, current_user, localtimestamp, session_user, f_after_svf(1)",
		"SELECT named(a => na1(1), b := 2), variadic_f(VARIADIC ARRAY[va1(1)]), schema1.qualified(1), db.sch.threepart(1)",
		"SELECT xmlelement(name e, xmlattributes(xa1(1) AS a), xe1(2)), xmlforest(xf1(1) AS a), XMLSERIALIZE(CONTENT xs1(1) AS text), xmlexists('//a' PASSING BY REF xp1(1))",
		"SELECT * FROM XMLTABLE('/r' PASSING xt1(1) COLUMNS a int PATH xt2('a') DEFAULT xt3(1), o FOR ORDINALITY)",
		"SELECT * FROM t TABLESAMPLE BERNOULLI (ts1(10)) REPEATABLE (ts2(1))",
		"SELECT x FROM t FOR UPDATE OF t SKIP LOCKED",
		"SELECT x INTO TEMP tmp FROM t WHERE in1(x)",
		"SELECT $1, p1($2), 'string f(1)' /* c(2) */, e'x' -- f(3)\n, ok(1)",
		"INSERT INTO s.tab (a, b) SELECT ins1(1), ins2(2) ON CONFLICT (oc1(a)) WHERE oc2(b) DO UPDATE SET a = oc3(excluded.a) WHERE oc4(1) RETURNING ret1(a)",
		"INSERT INTO tab VALUES (iv1(1)) ON CONFLICT DO NOTHING",
		"WITH d AS (DELETE FROM x WHERE dl1(1) RETURNING *) INSERT INTO y SELECT * FROM d",
		"UPDATE tab SET a = up1(1), (b, c) = (SELECT up2(2), 3) FROM other WHERE up3(tab.a) RETURNING up4(a)",
		"DELETE FROM tab USING other WHERE de1(other.x) RETURNING de2(tab.x)",
		"MERGE INTO tgt t USING (SELECT ms1(1) AS k) s ON t.k = mj1(s.k) WHEN MATCHED AND mc1(1) THEN UPDATE SET v = mu1(1) WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT (k) VALUES (mi1(s.k))",
		"CALL proc1(pa1(1), b => pa2(2))",
		"TRUNCATE a, s.b",
		"COPY tab FROM STDIN",
		"COPY (SELECT cp1(1)) TO STDOUT",
		"SELECT f(1); SELECT g(2)",
		NULL
	};
	for (int i = 0; forms[i]; i++)
		expect_same_calls(forms[i]);
}

static void test_dml_and_call_statements(void **state)
{
	(void)state;
	seen s = scan("INSERT INTO s.a VALUES (1) ON CONFLICT (k) DO UPDATE SET v = 1");
	assert_string_equal(s.dml, "s.a:1 s.a:2(v)"); /* the INSERT, then the UPDATE */
	s = scan("MERGE INTO m USING n ON true WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT VALUES (1)");
	assert_string_equal(s.dml, "n:16 m:5"); /* the source read; INSERT | DELETE */
	s = scan("UPDATE u SET v = 1; DELETE FROM d; TRUNCATE t1, t2; COPY c FROM STDIN; COPY c TO STDOUT");
	assert_string_equal(s.dml, "u:2(v) d:4 t1:8 t2:8 c:1");
	s = scan("CALL p(1, x => 'a', $2, y::int[], 'a' || b, 12345678901, 1.5, true, B'1', NULL)");
	assert_int_equal(s.call_stmts, 1);
	assert_string_equal(s.text, "p");
	assert_string_equal(s.last_arg_shapes, "2 1=x 9 7 10 3 4 5 6 1");
}

/* Reads: FROM, JOIN, USING, UPDATE ... FROM, MERGE's source, TABLESAMPLE,
 * subqueries and CTE bodies, never a CTE's own name; the columns an INSERT
 * lists and an UPDATE sets. */
static void test_relations_read_and_written(void **state)
{
	(void)state;
	seen s = scan("SELECT * FROM a JOIN s.b ON true LEFT JOIN (c CROSS JOIN d) ON true, f(1) AS x");
	assert_string_equal(s.dml, "a:16 s.b:16 c:16 d:16");
	s = scan("WITH w AS (SELECT * FROM base), r AS (SELECT * FROM w) SELECT * FROM w, r, s.w,"
		 " (SELECT 1 FROM sub WHERE x IN (SELECT y FROM deep)) q");
	/* The statement's reads, then its subqueries' and its CTEs' in walk order. */
	assert_string_equal(s.dml, "s.w:16 sub:16 deep:16 base:16");
	s = scan("SELECT * FROM (WITH k AS (SELECT 1) SELECT * FROM k) q, k");
	assert_string_equal(s.dml, "k:16"); /* the CTE is out of scope outside its WITH */
	s = scan("INSERT INTO t (a, b) SELECT x, y FROM src; UPDATE u SET (p, q) = (1, 2) FROM o;"
		 " DELETE FROM d USING e; SELECT * FROM ts TABLESAMPLE SYSTEM (1)");
	assert_string_equal(s.dml, "t:1(a,b) src:16 o:16 u:2(p,q) e:16 d:4 ts:16");
	s = scan("WITH x AS (INSERT INTO log VALUES (1) RETURNING *) SELECT * FROM x");
	assert_string_equal(s.dml, "log:1");
}

static void test_unknown_statements_are_handed_back(void **state)
{
	(void)state;
	seen s = scan("SELECT a(1); CREATE TABLE t AS SELECT b(2); EXPLAIN SELECT c(3); SELECT d(4)");
	assert_int_equal(s.unknown, 2);
	assert_string_equal(s.text, "a d");
	/* An unknown node after a call: what the statement reported is dropped. */
	s = scan("SELECT e(5); CREATE FUNCTION x(a int DEFAULT f(1)) RETURNS int LANGUAGE sql"
		 " SET search_path = public RETURN g(2)");
	assert_int_equal(s.unknown, 1);
	assert_string_equal(s.text, "e");
	/* DDL that fires event triggers: the JSON path makes its command's
	 * site (a BEGIN ATOMIC or RETURN body is read there too). */
	s = scan("CREATE FUNCTION atomic1() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT at1(1); END;"
		 " CREATE FUNCTION atomic2() RETURNS int LANGUAGE sql RETURN rt1(1);"
		 " REFRESH MATERIALIZED VIEW mv; SELECT h(1)");
	assert_int_equal(s.unknown, 3);
	assert_string_equal(s.text, "h");
}

static void test_syntax_error(void **state)
{
	(void)state;
	seen s;
	memset(&s, 0, sizeof s);
	cgm_raw_visitor v = { .ctx = &s, .call = on_call, .relation = on_relation, .statement = on_statement, .unknown = on_unknown };
	char *err = NULL;
	int pos = 0;
	assert_int_equal(cgm_raw_scan("SELECT f(1); SELEC g(2)", &v, &err, &pos), -1);
	assert_non_null(strstr(err, "syntax error"));
	assert_int_equal(pos, 14);
	assert_string_equal(s.text, "");
	free(err);
}

/* A tree deeper than CGM_MAX_NESTING (1+1+...+1 of 200,000 terms, which
 * overflowed the walker's stack): the scan fails with a message naming the
 * limit and where the statement starts; the same chain within the limit,
 * and deep argument shapes inside it, are read whole. */
static void test_deep_trees_are_refused(void **state)
{
	(void)state;
	static const char *const forms[] = { "f(1)+", "f('a')||", "f('a'||" };
	for (int k = 0; k < 3; k++) {
		for (int n = 4000; n <= 200000; n += 196000) {
			size_t len = (strlen(forms[k]) + 1) * (size_t)n + 64;
			char *sql = malloc(len), *p = sql;
			p = stpcpy(p, "SELECT 1;\n  SELECT ");
			for (int i = 0; i < n; i++)
				p = stpcpy(p, forms[k]);
			p = stpcpy(p, "'x'");
			for (int i = 0; k == 2 && i < n; i++)
				*p++ = ')';
			*p = '\0';
			seen s;
			memset(&s, 0, sizeof s);
			cgm_raw_visitor v = { .ctx = &s, .call = on_call, .relation = on_relation,
					      .statement = on_statement, .unknown = on_unknown };
			char *err = NULL;
			int pos = 0;
			int rc = cgm_raw_scan(sql, &v, &err, &pos);
			if (n == 4000 && k < 2) {
				assert_int_equal(rc, 0);
				assert_int_equal(s.unknown, 0);
				assert_int_equal(strncmp(s.text, "f f f", 5), 0);
			} else if (n > 4000) {
				assert_int_equal(rc, -1);
				assert_non_null(err);
				if (k < 2 || !strstr(err, "memory exhausted")) {
					/* nested calls stop in the parser first, as in PostgreSQL */
					assert_non_null(strstr(err, "nested deeper than 10000 levels"));
					assert_int_equal(pos, 13);
				}
			}
			free(err);
			free(sql);
		}
	}
}

/* The PL/pgSQL parser's own check parses reach the capture (the link wraps
 * raw_parser): every checked text with its calls, and the constant SQL of
 * an EXECUTEd literal.  Without it extraction parses every text again:
 * slower, same sites. */
typedef struct captured {
	char texts[2048];
	char constants[512];
	seen calls;
} captured;

static void on_text(void *ctx, const char *text)
{
	captured *c = ctx;
	add_word(c->texts, sizeof c->texts, "[");
	add_word(c->texts, sizeof c->texts, text);
	add_word(c->texts, sizeof c->texts, "]");
}

static void on_constant(void *ctx, const char *sql, int location)
{
	captured *c = ctx;
	char word[256];
	snprintf(word, sizeof word, "%s@%d", sql, location);
	add_word(c->constants, sizeof c->constants, word);
}

static void on_captured_call(void *ctx, const cgm_raw_call *call)
{
	on_call(&((captured *)ctx)->calls, call);
}

static void on_captured_statement(void *ctx)
{
	on_statement(&((captured *)ctx)->calls);
}

static void on_captured_unknown(void *ctx, int start, int len)
{
	on_unknown(&((captured *)ctx)->calls, start, len);
}

static void on_captured_relation(void *ctx, const cgm_raw_relation *rel)
{
	on_relation(&((captured *)ctx)->calls, rel);
}

static void test_plpgsql_checks_are_captured(void **state)
{
	(void)state;
	captured c;
	memset(&c, 0, sizeof c);
	cgm_raw_capture capture = {
		.text = on_text,
		.constant = on_constant,
		.visitor = { .ctx = &c, .call = on_captured_call, .relation = on_captured_relation,
			     .statement = on_captured_statement, .unknown = on_captured_unknown },
	};
	cgm_raw_capture_set(&capture);
	PgQueryPlpgsqlParseResult r = pg_query_parse_plpgsql(
		"CREATE FUNCTION f(a int) RETURNS int LANGUAGE plpgsql AS $$\n"
		"DECLARE x int := d1(a);\n"
		"BEGIN\n"
		"  x := x + a1(2);\n"
		"  IF c1(x) THEN PERFORM p1(1); END IF;\n"
		"  UPDATE t SET v = u1(1);\n"
		"  EXECUTE 'SELECT e1(' || '1)';\n"
		"  RETURN r1(x);\n"
		"END $$");
	cgm_raw_capture_set(NULL);
	assert_null(r.error);
	pg_query_free_plpgsql_parse_result(r);
	/* Not the CREATE statement around the body: only what the body checks. */
	assert_null(strstr(c.texts, "CREATE"));
	assert_string_equal(c.calls.text, "d1 a1 c1 p1 u1 r1");
	assert_string_equal(c.calls.dml, "t:2(v)");
	assert_non_null(strstr(c.texts, "[ x := x + a1(2) ]"));
	assert_non_null(strstr(c.texts, "[ c1(x) ]"));
	assert_string_equal(c.constants, "SELECT e1(1)@0");

	/* Cleared: nothing more is captured. */
	memset(&c, 0, sizeof c);
	r = pg_query_parse_plpgsql("CREATE FUNCTION g() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN z(1); END $$");
	pg_query_free_plpgsql_parse_result(r);
	assert_string_equal(c.texts, "");
}

/* The PL/pgSQL tree walked from libpg_query's structs reports what its JSON
 * holds, in the same order: statements with their lines, expressions with
 * the field they stand in, and declared variables. */
typedef struct steps {
	char text[8192];
} steps;

static void step_begin(void *ctx)
{
	add_word(((steps *)ctx)->text, sizeof((steps *)ctx)->text, "begin");
}

static void step_var(void *ctx, const char *name, const char *type, int lineno,
		     const char *default_text, const char *cursor_text)
{
	steps *s = ctx;
	char word[512];
	snprintf(word, sizeof word, "var:%s:%s:%d:%s:%s", name, type ? type : "-", lineno,
		 default_text ? default_text : "-", cursor_text ? cursor_text : "-");
	add_word(s->text, sizeof s->text, word);
}

static void step_statement(void *ctx, const char *kind, int lineno)
{
	steps *s = ctx;
	char word[64];
	snprintf(word, sizeof word, "%s:%d", kind, lineno);
	add_word(s->text, sizeof s->text, word);
}

static void step_end(void *ctx)
{
	add_word(((steps *)ctx)->text, sizeof((steps *)ctx)->text, "end");
}

static void step_expression(void *ctx, const char *text, const char *field)
{
	steps *s = ctx;
	char word[512];
	snprintf(word, sizeof word, "[%s]@%s", text, field);
	add_word(s->text, sizeof s->text, word);
}

/* The same steps read from the JSON, the way extraction used to. */
static void json_steps(steps *s, const jt_doc *d, int node, const char *field)
{
	const jt_token *t = &d->tokens[node];
	if (t->type == JT_ARRAY) {
		int e = node + 1;
		for (int i = 0; i < t->size; i++, e = jt_skip(d, e))
			json_steps(s, d, e, field);
		return;
	}
	if (t->type != JT_OBJECT)
		return;
	int k = node + 1;
	for (int i = 0; i < t->size; i++, k = jt_skip(d, k + 1)) {
		char key[64];
		snprintf(key, sizeof key, "%.*s", d->tokens[k].end - d->tokens[k].start,
			 d->text + d->tokens[k].start);
		int v = k + 1;
		const char *kind = strncmp(key, "PLpgSQL_stmt_", 13) == 0 ? key + 13
				   : strcmp(key, "PLpgSQL_if_elsif") == 0    ? "elsif"
				   : strcmp(key, "PLpgSQL_case_when") == 0   ? "case"
									     : NULL;
		if (kind) {
			step_statement(s, kind, (int)jt_long(d, jt_get(d, v, "lineno"), 0));
			json_steps(s, d, v, NULL);
			step_end(s);
		} else if (strcmp(key, "PLpgSQL_expr") == 0) {
			char *q = jt_strdup_heap(d, jt_get(d, v, "query"));
			step_expression(s, q, field);
			free(q);
		} else if (d->tokens[v].type == JT_OBJECT || d->tokens[v].type == JT_ARRAY) {
			json_steps(s, d, v, key);
		}
	}
}

static void test_plpgsql_tree_from_structs(void **state)
{
	(void)state;
	const char *fn =
		"CREATE FUNCTION f(a int) RETURNS SETOF int LANGUAGE plpgsql AS $x$\n"
		"DECLARE v int := d(1); w text; r record; arr int[] := '{}';\n"
		"BEGIN\n"
		" v := a1(1);\n IF c1() THEN PERFORM p1(); ELSIF c2() THEN PERFORM p2(); ELSE PERFORM p3(); END IF;\n"
		" CASE t1() WHEN w1() THEN PERFORM p4(); ELSE NULL; END CASE;\n"
		" LOOP EXIT WHEN e1(); END LOOP;\n WHILE wh() LOOP PERFORM p5(); END LOOP;\n"
		" FOR i IN lo() .. hi() BY st() LOOP PERFORM p6(); END LOOP;\n"
		" FOR r IN SELECT fs() LOOP PERFORM p7(); END LOOP;\n"
		" FOREACH v IN ARRAY fa() LOOP PERFORM p8(); END LOOP;\n"
		" RETURN NEXT rn();\n RETURN QUERY SELECT rq();\n RETURN QUERY EXECUTE rqe() USING rqp();\n"
		" RAISE NOTICE '%', rp() USING HINT = rh();\n ASSERT as1(), as2();\n"
		" SELECT es() INTO v;\n EXECUTE de() INTO v USING dp();\n"
		" FOR r IN EXECUTE dfq() USING dfp() LOOP PERFORM p9(); END LOOP;\n"
		" GET DIAGNOSTICS v = ROW_COUNT;\n CALL pc(cc());\n COMMIT;\n ROLLBACK;\n"
		" BEGIN PERFORM p10(); EXCEPTION WHEN OTHERS THEN PERFORM ex(); END;\n"
		" RETURN;\nEND $x$";
	steps walked;
	memset(&walked, 0, sizeof walked);
	cgm_raw_plpgsql_visitor v = { .ctx = &walked, .begin = step_begin, .var = step_var,
				       .statement = step_statement, .end = step_end,
				       .expression = step_expression };
	cgm_raw_plpgsql_set(&v);
	PgQueryPlpgsqlParseResult r = pg_query_parse_plpgsql(fn);
	cgm_raw_plpgsql_set(NULL);
	assert_null(r.error);
	pg_query_free_plpgsql_parse_result(r);

	r = pg_query_parse_plpgsql(fn);
	assert_null(r.error);
	jt_doc d = { 0 };
	assert_true(jt_parse(&d, r.plpgsql_funcs, strlen(r.plpgsql_funcs)));
	int func = jt_get(&d, jt_elem(&d, 0, 0), "PLpgSQL_function");
	steps printed;
	memset(&printed, 0, sizeof printed);
	step_begin(&printed);
	int datums = jt_get(&d, func, "datums");
	int e = datums + 1;
	for (int i = 0; i < d.tokens[datums].size; i++, e = jt_skip(&d, e)) {
		int var = jt_get(&d, e, "PLpgSQL_var");
		if (var < 0)
			continue;
		char *name = jt_strdup_heap(&d, jt_get(&d, var, "refname"));
		char *type = jt_strdup_heap(&d, jt_get(&d, jt_get(&d, jt_get(&d, var, "datatype"), "PLpgSQL_type"), "typname"));
		char *dflt = jt_strdup_heap(&d, jt_get(&d, jt_get(&d, jt_get(&d, var, "default_val"), "PLpgSQL_expr"), "query"));
		char *cur = jt_strdup_heap(&d, jt_get(&d, jt_get(&d, jt_get(&d, var, "cursor_explicit_expr"), "PLpgSQL_expr"), "query"));
		step_var(&printed, name, type, (int)jt_long(&d, jt_get(&d, var, "lineno"), 0), dflt, cur);
		free(name);
		free(type);
		free(dflt);
		free(cur);
	}
	json_steps(&printed, &d, jt_get(&d, func, "action"), NULL);
	jt_doc_free(&d);
	pg_query_free_plpgsql_parse_result(r);

	if (strcmp(walked.text, printed.text) != 0)
		fail_msg("structs: %s\nJSON:    %s", walked.text, printed.text);
	assert_non_null(strstr(walked.text, "[de()]@query"));
	assert_non_null(strstr(walked.text, "elsif:5"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_form_reports_every_call),
		cmocka_unit_test(test_dml_and_call_statements),
		cmocka_unit_test(test_relations_read_and_written),
		cmocka_unit_test(test_unknown_statements_are_handed_back),
		cmocka_unit_test(test_syntax_error),
		cmocka_unit_test(test_deep_trees_are_refused),
		cmocka_unit_test(test_plpgsql_checks_are_captured),
		cmocka_unit_test(test_plpgsql_tree_from_structs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
