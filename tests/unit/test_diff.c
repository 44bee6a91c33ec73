/*
 * test_diff.c - the diff writers show names as text: a function name
 * holding a terminal escape sequence, a line break, a right-to-left
 * override, a C1 control or a bad byte reaches neither the text diff nor
 * the Markdown one raw, and plain names keep their inline-code form.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgmap/arena.h"
#include "cgmap/diff.h"

#define HOSTILE "app.\"x\x1B[2J\xE2\x80\xAE" "evil\nrow\xFF\xC2\x9B\"()"

/* A diff of two findings, built by hand: the writers are what is tested. */
static cgm_diff *sample(void)
{
	cgm_diff *d = calloc(1, sizeof(*d));
	d->arena = cgm_arena_new();
	d->base_name = "base\x1B[31m";
	d->head_name = "head";
	d->nfindings = 2;
	d->findings = cgm_arena_alloc(d->arena, 2 * sizeof(cgm_finding));
	d->findings[0] = (cgm_finding){ CGM_FIND_MISSING_CALLEE, "app.plain()", NULL, 3,
					"calls app.gone() with 1 argument: no such function" };
	d->findings[1] = (cgm_finding){ CGM_FIND_ADDED_FUNCTION, HOSTILE, HOSTILE, 0,
					"added " HOSTILE };
	d->counts[CGM_FIND_MISSING_CALLEE] = 1;
	d->counts[CGM_FIND_ADDED_FUNCTION] = 1;
	return d;
}

static char *written(const cgm_diff *d, cgm_diff_format format)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(cgm_diff_write(f, d, format, NULL), 0);
	fclose(f);
	return buf;
}

static void assert_inert(const char *s, const char *what)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\n')
			continue;
		if (*p < 0x20 || *p == 0x7F || *p == 0xFF)
			fail_msg("%s: raw byte 0x%02X in:\n%s", what, *p, s);
		if (p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F)
			fail_msg("%s: raw C1 control in:\n%s", what, s);
		if (p[0] == 0xE2 && p[1] == 0x80 && p[2] == 0xAE)
			fail_msg("%s: raw right-to-left override in:\n%s", what, s);
	}
}

static void test_text(void **state)
{
	(void)state;
	cgm_diff *d = sample();
	char *out = written(d, CGM_DIFF_TEXT);
	assert_inert(out, "text");
	assert_non_null(strstr(out, "cgmap diff: base\\x1B[31m -> head\n"));
	assert_non_null(strstr(out, "app.\"x\\x1B[2J\\u202Eevil\\nrow\\xFF\\u009B\"()"));
	assert_non_null(strstr(out, "app.plain()"));
	/* one line per finding: the two header lines, a blank line, two findings */
	int lines = 0;
	for (const char *p = out; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 5);
	free(out);
	cgm_arena_free(d->arena);
	free(d);
}

static void test_markdown(void **state)
{
	(void)state;
	cgm_diff *d = sample();
	char *out = written(d, CGM_DIFF_MARKDOWN);
	assert_inert(out, "markdown");
	assert_non_null(strstr(out, "\\u202Eevil<br>row\\xFF\\u009B"));
	assert_null(strstr(out, "`base")); /* not as code: code would show it raw */
	assert_non_null(strstr(out, "`head`"));
	assert_non_null(strstr(out, "`app.plain()`"));
	free(out);
	cgm_arena_free(d->arena);
	free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_markdown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
