/*
 * test_jsontok.c - the JSON readers refuse nesting past their limit at
 * once: the token reader (libpg_query's trees) and the snapshot reader.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cgmap/error.h"
#include "cgmap/limits.h"
#include "cgmap/model.h"
#include "cgmap/pipeline.h"
#include "jsondom.h"
#include "jsontok.h"

/* n opening brackets `open`, then as many `close` (heap). */
static char *nested(const char *prefix, char open, char close, int n, bool closed)
{
	size_t pl = strlen(prefix);
	char *s = malloc(pl + 2 * (size_t)n + 2);
	assert_non_null(s);
	memcpy(s, prefix, pl);
	memset(s + pl, open, (size_t)n);
	size_t len = pl + (size_t)n;
	if (closed) {
		memset(s + len, close, (size_t)n);
		len += (size_t)n;
	}
	s[len] = '\0';
	return s;
}

static void test_token_reader_depth(void **state)
{
	jt_doc doc = { 0 };
	char *deep = nested("", '[', ']', CGM_MAX_JSON_NESTING + 1, true);
	assert_false(jt_parse(&doc, deep, strlen(deep)));
	assert_int_equal(doc.too_deep_at, CGM_MAX_JSON_NESTING);
	free(deep);
	/* Brackets inside strings do not count. */
	char *quoted = nested("[\"", '[', ']', CGM_MAX_JSON_NESTING + 1, false);
	strcat(quoted, "\"]");
	assert_true(jt_parse(&doc, quoted, strlen(quoted)));
	assert_int_equal(doc.too_deep_at, -1);
	free(quoted);
	char *fine = nested("", '[', ']', 1000, true);
	assert_true(jt_parse(&doc, fine, strlen(fine)));
	free(fine);
	doc.max_depth = 4;
	assert_false(jt_parse(&doc, "{\"a\":[[[{}]]]}", 14));
	assert_int_equal(doc.too_deep_at, 8);
	jt_doc_free(&doc);

	cgm_arena *arena = cgm_arena_new();
	char *dom = nested("", '[', ']', CGM_MAX_JSON_NESTING + 1, true);
	assert_null(jd_parse(arena, dom, strlen(dom)));
	free(dom);
	cgm_arena_free(arena);
}

/* A 2 MB snapshot of nested '[' took over 5 minutes to refuse. */
static void test_snapshot_reader_depth(void **state)
{
	char path[256];
	snprintf(path, sizeof path, "%s/cgmap-jsontok-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	const char *prefixes[] = { "", "{\"format\":\n  ", "[" };
	for (int closed = 0; closed < 2; closed++) {
		for (int k = 0; k < 3; k++) {
			char *text = nested(prefixes[k], '[', ']', 1000000, closed);
			FILE *f = fopen(path, "w");
			assert_non_null(f);
			fputs(text, f);
			fclose(f);
			free(text);
			cgm_model *m = NULL;
			assert_int_equal(cgm_snapshot_read(&m, path), CGM_EINPUT);
			assert_null(m);
			const char *msg = cgm_error_message();
			if (!strstr(msg, "nesting deeper than 2048 levels") || !strstr(msg, path) ||
			    !strstr(msg, k == 1 ? "line 2 column 2050" : "line 1 column 2049"))
				fail_msg("%s", msg);
		}
	}
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_token_reader_depth),
		cmocka_unit_test(test_snapshot_reader_depth),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
