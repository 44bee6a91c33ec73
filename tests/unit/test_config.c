/*
 * test_config.c - the project configuration `.cgmap.yml`: every section
 * read into its fields; every kind of bad file refused with its line
 * (unknown keys, wrong shapes, missing reasons, unknown finding codes,
 * aliases, nesting, several documents, bad YAML); a model given declared
 * dynamic calls and kept functions; diff findings ignored by code and
 * function pattern.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgmap/config.h"
#include "cgmap/error.h"
#include "cgmap/model.h"

static char path[256];

static void write_file(const char *text)
{
	const char *base = getenv("TMPDIR");
	snprintf(path, sizeof path, "%s/cgmap-config-XXXXXX", base && *base ? base : "/tmp");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static cgm_config *load_ok(const char *text)
{
	write_file(text);
	cgm_config *config = NULL;
	int rc = cgm_config_load(&config, path);
	unlink(path);
	if (rc != 0)
		fail_msg("unexpected error: %s", cgm_error_message());
	return config;
}

/* The file is refused with CGM_EINPUT, a message holding ":LINE: " and `words`. */
static void load_bad(const char *text, int line, const char *words)
{
	write_file(text);
	cgm_config *config = NULL;
	int rc = cgm_config_load(&config, path);
	unlink(path);
	assert_int_equal(rc, CGM_EINPUT);
	assert_null(config);
	char where[32];
	snprintf(where, sizeof where, ":%d: ", line);
	if (!strstr(cgm_error_message(), where) || !strstr(cgm_error_message(), words))
		fail_msg("for\n%s\nexpected line %d and '%s', got: %s", text, line, words,
			 cgm_error_message());
}

static void test_every_section(void **state)
{
	(void)state;
	cgm_config *c = load_ok("# a project\n"
				"schemas: [app, billing]\n"
				"exclude_schemas: scratch\n"
				"entry:\n"
				"  - api.*\n"
				"  - jobs.nightly(integer)\n"
				"dynamic:\n"
				"  - function: app.run_report(text)\n"
				"    line: 6\n"
				"    calls: [app.report_*]\n"
				"    reason: names come from the reports table\n"
				"  - function: app.dispatch\n"
				"    calls: app.handle\n"
				"keep:\n"
				"  - function: legacy.*\n"
				"    reason: cron calls them through psql\n"
				"diff:\n"
				"  ignore:\n"
				"    - finding: body-changed\n"
				"      function: app.log_*\n"
				"      reason: logging changes freely\n"
				"    - finding: any\n"
				"      function: scratch.*\n"
				"      reason: not shipped\n");
	assert_int_equal(c->nschemas, 2);
	assert_string_equal(c->schemas[1], "billing");
	assert_int_equal(c->nexclude_schemas, 1);
	assert_string_equal(c->exclude_schemas[0], "scratch");
	assert_int_equal(c->nentry, 2);
	assert_string_equal(c->entry[1], "jobs.nightly(integer)");
	assert_int_equal(c->ndynamic, 2);
	assert_string_equal(c->dynamic[0].function, "app.run_report(text)");
	assert_int_equal(c->dynamic[0].line, 6);
	assert_int_equal(c->dynamic[0].ncalls, 1);
	assert_string_equal(c->dynamic[0].calls[0], "app.report_*");
	assert_string_equal(c->dynamic[0].reason, "names come from the reports table");
	assert_int_equal(c->dynamic[0].file_line, 8);
	assert_int_equal(c->dynamic[1].line, 0);
	assert_string_equal(c->dynamic[1].reason, "");
	assert_int_equal(c->nkeep, 1);
	assert_string_equal(c->keep[0].reason, "cron calls them through psql");
	assert_int_equal(c->nignore, 2);
	assert_int_equal(c->ignore[0].finding, CGM_FIND_BODY_CHANGED);
	assert_int_equal(c->ignore[1].finding, -1);

	assert_true(cgm_config_ignores(c, CGM_FIND_BODY_CHANGED, "app.log_event(text)"));
	assert_false(cgm_config_ignores(c, CGM_FIND_REMOVED_FUNCTION, "app.log_event(text)"));
	assert_false(cgm_config_ignores(c, CGM_FIND_BODY_CHANGED, "app.checkout(text)"));
	assert_true(cgm_config_ignores(c, CGM_FIND_ADDED_EDGE, "scratch.t()"));
	/* The name is the text before the arguments, quotes kept whole. */
	assert_false(cgm_config_ignores(c, CGM_FIND_BODY_CHANGED, "\"app.log_(x\".f()"));
	cgm_config_free(c);

	/* An empty file is an empty configuration. */
	c = load_ok("");
	assert_int_equal(c->nentry + c->ndynamic + c->nkeep + c->nignore, 0);
	cgm_config_free(c);
}

/* set: psql variables, as --set NAME=VALUE in the file's order. */
static void test_psql_variables(void **state)
{
	(void)state;
	cgm_config *c = load_ok("set:\n  schema: app\n  greeting: \"it's me\"\n  empty: ''\n");
	assert_int_equal(c->nset, 3);
	assert_string_equal(c->set[0], "schema=app");
	assert_string_equal(c->set[1], "greeting=it's me");
	assert_string_equal(c->set[2], "empty=");
	cgm_config_free(c);
}

static void test_bad_files(void **state)
{
	(void)state;
	load_bad("schemas: [app]\nentrys: [a]\n", 2, "unknown key 'entrys' in the file (known: ");
	load_bad("entry: {a: 1}\n", 1, "'entry' takes a list, not a mapping");
	load_bad("entry: [a, [b]]\n", 1, "'entry' takes a value, not a list");
	load_bad("entry: [a, '']\n", 1, "empty pattern");
	load_bad("keep:\n  - function: x\n", 2, "a keep item needs 'reason'");
	load_bad("keep:\n  - function: x\n    reason: ''\n", 3, "'reason' is empty");
	load_bad("keep:\n  - function: x\n    reason: r\n    why: w\n", 4,
		 "unknown key 'why' in a keep item");
	load_bad("keep:\n  - function: x\n    function: y\n    reason: r\n", 3, "given twice");
	load_bad("dynamic:\n  - function: f\n    line: 0\n    calls: g\n", 3, "not '0'");
	load_bad("dynamic:\n  - function: f\n    line: 2x\n    calls: g\n", 3, "not '2x'");
	load_bad("dynamic:\n  - function: f\n", 2, "needs 'calls'");
	load_bad("dynamic: f\n", 1, "'dynamic' takes a list, not a value");
	load_bad("diff:\n  ignore:\n    - finding: body-chnged\n      reason: r\n", 3,
		 "no finding is called 'body-chnged'");
	load_bad("diff:\n  ignore:\n    - finding: any\n      reason: r\n", 3,
		 "needs 'function'");
	load_bad("diff:\n  nolint: []\n", 2, "unknown key 'nolint' in diff");
	load_bad("entry: &x [a]\nschemas: *x\n", 2, "aliases");
	load_bad("[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]\n", 1, "nested deeper");
	load_bad("entry: [a]\n---\nentry: [b]\n", 2, "one YAML document only");
	load_bad("entry: [a\n", 2, "not YAML");
	load_bad("- a\n- b\n", 1, "'the file' takes a mapping, not a list");
	load_bad("set: [a]\n", 1, "'set' takes a mapping, not a list");
	load_bad("set:\n  schema: app\n  bad-name: x\n", 3, "'bad-name' is not a psql variable's name");
	load_bad("set:\n  schema: [a]\n", 2, "takes a value, not a list");

	cgm_config *config = NULL;
	assert_int_equal(cgm_config_load(&config, "/nonexistent/.cgmap.yml"), CGM_EINPUT);
	assert_non_null(strstr(cgm_error_message(), "/nonexistent/.cgmap.yml"));
}

static int add_function(cgm_model *m, const char *schema, const char *name)
{
	cgm_function *f = cgm_model_add_function(m);
	f->schema = schema;
	f->name = name;
	f->id = cgm_arena_printf(m->arena, "%s.%s()", schema, name);
	f->scc = -1;
	return m->nfunctions - 1;
}

static void test_apply(void **state)
{
	(void)state;
	cgm_config *c = load_ok("dynamic:\n"
				"  - function: app.run\n"
				"    line: 4\n"
				"    calls: [app.r_*, nowhere.*]\n"
				"    reason: from a table\n"
				"keep:\n"
				"  - function: app.legacy\n"
				"    reason: cron\n"
				"  - function: app.nothing\n"
				"    reason: gone\n");
	cgm_model *m = cgm_model_new();
	int run = add_function(m, "app", "run");
	add_function(m, "app", "r_a");
	add_function(m, "app", "r_b");
	int legacy = add_function(m, "app", "legacy");
	m->nuser = m->nfunctions;
	cgm_function *f = &m->functions[run];
	f->sites = cgm_arena_alloc(m->arena, 2 * sizeof(cgm_site));
	memset(f->sites, 0, 2 * sizeof(cgm_site));
	f->nsites = 2;
	f->sites[0].kind = CGM_SITE_DYNAMIC;
	f->sites[0].line = 4;
	f->sites[1].kind = CGM_SITE_DYNAMIC;
	f->sites[1].line = 9; /* not declared: no edge from it */

	cgm_config_apply(m, c);
	assert_int_equal(m->nedges, 2);
	for (int i = 0; i < 2; i++) {
		const cgm_edge *e = &m->edges[i];
		assert_int_equal(e->from, run);
		assert_int_equal(e->to, run + 1 + i);
		assert_int_equal(e->via, CGM_VIA_DYNAMIC);
		assert_int_equal(e->provenance, CGM_EDGE_STATIC | CGM_EDGE_DECLARED);
		assert_string_equal(cgm_edge_get_rare(e)->declared, "from a table");
		assert_int_equal(e->nlines, 1);
		assert_int_equal(e->lines[0], 4);
	}
	assert_string_equal(m->functions[legacy].kept, "cron");
	/* Applied again (a snapshot mapped with it): nothing doubles. */
	cgm_config_apply(m, c);
	assert_int_equal(m->nedges, 2);
	assert_int_equal(m->edges[0].nlines, 1);
	/* What matched nothing is said, with the file's line. */
	int said = 0;
	for (int i = 0; i < m->ndiagnostics; i++) {
		const cgm_diagnostic *d = &m->diagnostics[i];
		if (strstr(d->message, "'nowhere.*' matches no function"))
			said += d->line == 2;
		if (strstr(d->message, "'app.nothing' matches no function"))
			said += d->line == 9;
	}
	assert_int_equal(said, 4); /* twice each: applied twice */
	cgm_model_free(m);
	cgm_config_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_section),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_psql_variables),
		cmocka_unit_test(test_apply),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
