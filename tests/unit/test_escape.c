/*
 * test_escape.c - escaping for DOT, HTML, JSON, Markdown and file names with
 * the inputs that break naive escapers: quotes, backslashes, <script>,
 * newlines, control characters, non-ASCII and invalid UTF-8.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <limits.h>
#include <stdbool.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cgmap/escape.h"

typedef void (*escaper)(cgm_strbuf *, const char *);

/* Escaped text as a heap string the test frees. */
static char *escaped(escaper fn, const char *in)
{
	cgm_strbuf buf = CGM_STRBUF_INIT;
	fn(&buf, in);
	char *copy = strdup(cgm_strbuf_cstr(&buf));
	cgm_strbuf_free(&buf);
	return copy;
}

static void assert_escapes(escaper fn, const char *in, const char *expected)
{
	char *got = escaped(fn, in);
	assert_string_equal(got, expected);
	free(got);
}

/* True when s is valid UTF-8 (checked independently of escape.c). */
static bool valid_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		int n = *p < 0x80 ? 1 : (*p >> 5) == 6 ? 2 : (*p >> 4) == 14 ? 3 : (*p >> 3) == 30 ? 4 : 0;
		if (n == 0 || (n == 2 && *p < 0xC2))
			return false;
		uint32_t cp = n == 1 ? *p : (uint32_t)(*p & (0x7F >> n));
		for (int i = 1; i < n; i++) {
			if ((p[i] & 0xC0) != 0x80)
				return false;
			cp = (cp << 6) | (p[i] & 0x3F);
		}
		if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
		    (cp >= 0xD800 && cp <= 0xDFFF))
			return false;
		p += n;
	}
	return true;
}

static const char *const invalid_inputs[] = {
	"a\x80z",             /* lone continuation byte */
	"a\xC0\xAFz",         /* overlong '/' */
	"a\xED\xA0\x80z",     /* UTF-16 surrogate */
	"a\xE2\x82",          /* truncated at the end */
	"a\xF5\x80\x80\x80z", /* above U+10FFFF */
	"\xFF\xFE",
};

static void test_dot(void **state)
{
	(void)state;
	assert_escapes(cgm_escape_dot, "plain", "plain");
	assert_escapes(cgm_escape_dot, "\"Weird \"\"Name\"\"\"()", "\\\"Weird \\\"\\\"Name\\\"\\\"\\\"()");
	assert_escapes(cgm_escape_dot, "a\\b\\", "a\\\\b\\\\");
	assert_escapes(cgm_escape_dot, "x\\N", "x\\\\N"); /* not Graphviz's node-name escape */
	assert_escapes(cgm_escape_dot, "<script>&lt;", "<script>&amp;lt;");
	assert_escapes(cgm_escape_dot, "l1\r\nl2\tx", "l1\\nl2 x");
	assert_escapes(cgm_escape_dot, "bell\x07", "bell\xE2\x90\x87"); /* U+2407 */
	assert_escapes(cgm_escape_dot, "Gr\xC3\xBC\xC3\x9F \xE6\x97\xA5", "Gr\xC3\xBC\xC3\x9F \xE6\x97\xA5");
	assert_escapes(cgm_escape_dot, "a\x80z", "a\\\\x80z"); /* shown as \\x80 */
	assert_escapes(cgm_escape_dot, NULL, "");
	assert_escapes(cgm_escape_dot, "", "");
}

static void test_html(void **state)
{
	(void)state;
	assert_escapes(cgm_escape_html, "<script>alert(\"x&y\")</script>",
		       "&lt;script&gt;alert(&quot;x&amp;y&quot;)&lt;/script&gt;");
	assert_escapes(cgm_escape_html, "it's", "it&#39;s");
	assert_escapes(cgm_escape_html, "a\\b\nc\td", "a\\b\nc\td");
	assert_escapes(cgm_escape_html, "nul-ish\x01", "nul-ish\xE2\x90\x81");
	assert_escapes(cgm_escape_html, "\xC2\x85", "\\u0085"); /* C1 control NEL */
	assert_escapes(cgm_escape_html, "caf\xC3\xA9", "caf\xC3\xA9");
	assert_escapes(cgm_escape_html, "a\xC0\xAFz", "a\\xC0\\xAFz");
}

/* Escaped JSON wrapped in quotes must parse back to the input. */
static void assert_json_round_trip(const char *in, const char *expected_back)
{
	char *body = escaped(cgm_escape_json, in);
	size_t len = strlen(body) + 3;
	char *doc = malloc(len);
	snprintf(doc, len, "\"%s\"", body);
	json_error_t err;
	json_t *value = json_loads(doc, JSON_DECODE_ANY, &err);
	if (!value)
		fail_msg("escaped JSON does not parse: %s in %s", err.text, doc);
	assert_true(json_is_string(value));
	assert_string_equal(json_string_value(value), expected_back);
	json_decref(value);
	free(doc);
	free(body);
}

static void test_json(void **state)
{
	(void)state;
	assert_escapes(cgm_escape_json, "say \"hi\"\\", "say \\\"hi\\\"\\\\");
	assert_escapes(cgm_escape_json, "</script>", "\\u003c/script\\u003e");
	assert_escapes(cgm_escape_json, "a\nb\rc\td\x01", "a\\nb\\rc\\td\\u0001");
	assert_escapes(cgm_escape_json, "\xE2\x80\xA8", "\\u2028");
	assert_json_round_trip("\"Odd Schema\".\"Weird \"\"Name\"\"\"()", "\"Odd Schema\".\"Weird \"\"Name\"\"\"()");
	assert_json_round_trip("<script>alert('x')</script>&\x1f\x7f", "<script>alert('x')</script>&\x1f\x7f");
	assert_json_round_trip("\xF0\x9F\x98\x80 \xE6\x97\xA5\xE6\x9C\xAC", "\xF0\x9F\x98\x80 \xE6\x97\xA5\xE6\x9C\xAC");
	assert_json_round_trip("a\xED\xA0\x80z", "a\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBDz");
}

static void test_markdown(void **state)
{
	(void)state;
	assert_escapes(cgm_escape_markdown, "a|b", "a\\|b");
	assert_escapes(cgm_escape_markdown, "my_func(*x*)", "my\\_func\\(\\*x\\*\\)");
	assert_escapes(cgm_escape_markdown, "<script>", "\\<script\\>");
	assert_escapes(cgm_escape_markdown, "`code` [l](u)", "\\`code\\` \\[l\\]\\(u\\)");
	assert_escapes(cgm_escape_markdown, "line1\nline2", "line1<br>line2");
	assert_escapes(cgm_escape_markdown, "- not a list", "\\- not a list");
	assert_escapes(cgm_escape_markdown, "a-b", "a-b");
	assert_escapes(cgm_escape_markdown, "12. not a list", "12\\. not a list");
	assert_escapes(cgm_escape_markdown, "1.5", "1\\.5");
	assert_escapes(cgm_escape_markdown, "app.f1", "app.f1");
	assert_escapes(cgm_escape_markdown, "&copy; \\", "\\&copy; \\\\");
	assert_escapes(cgm_escape_markdown, "\xC3\xA9\x80", "\xC3\xA9\\x80");
}

/* Bidi controls (Trojan Source) and C1 controls are shown, never passed
 * raw, in every medium a person reads; JSON keeps them (it is data). */
static void test_bidi_and_c1(void **state)
{
	(void)state;
	/* U+202E RIGHT-TO-LEFT OVERRIDE, U+2066 LRI, U+200F RLM, U+061C ALM */
	const char *in = "a\xE2\x80\xAE" "b\xE2\x81\xA6" "c\xE2\x80\x8F" "d\xD8\x9C" "e\xC2\x9B";
	assert_escapes(cgm_escape_html, in, "a\\u202Eb\\u2066c\\u200Fd\\u061Ce\\u009B");
	assert_escapes(cgm_escape_markdown, in, "a\\u202Eb\\u2066c\\u200Fd\\u061Ce\\u009B");
	assert_escapes(cgm_escape_text, in, "a\\u202Eb\\u2066c\\u200Fd\\u061Ce\\u009B");
	assert_escapes(cgm_escape_dot, in,
		       "a\\\\u202Eb\\\\u2066c\\\\u200Fd\\\\u061Ce\\\\u009B");
	assert_escapes(cgm_escape_json, "a\xE2\x80\xAE", "a\xE2\x80\xAE");
	/* Neighbours of the bidi ranges stay as they are. */
	assert_escapes(cgm_escape_text, "\xE2\x80\x8D\xE2\x80\xAF\xE2\x81\xAA", "\xE2\x80\x8D\xE2\x80\xAF\xE2\x81\xAA");
}

/* Text for a terminal: no control byte, escape sequence or bidi control
 * reaches it; everything else (backslashes too) is as written. */
static void test_text(void **state)
{
	(void)state;
	assert_escapes(cgm_escape_text, "app.f(integer) \\ \xC3\xA9", "app.f(integer) \\ \xC3\xA9");
	assert_escapes(cgm_escape_text, "red\x1B[31mX\x1B]0;title\x07", "red\\x1B[31mX\\x1B]0;title\\x07");
	assert_escapes(cgm_escape_text, "a\tb\nc\rd\x7F", "a\\tb\\nc\\rd\\x7F");
	assert_escapes(cgm_escape_text, "bad\xFF\xC3", "bad\\xFF\\xC3");
	assert_escapes(cgm_escape_text, NULL, "");
	for (size_t i = 0; i < sizeof(invalid_inputs) / sizeof(invalid_inputs[0]); i++) {
		char *got = escaped(cgm_escape_text, invalid_inputs[i]);
		assert_true(valid_utf8(got));
		for (const unsigned char *p = (const unsigned char *)got; *p; p++)
			assert_true(*p >= 0x20 && *p != 0x7F);
		free(got);
	}
	assert_true(cgm_escape_is_plain("app.\"x y\"(text) \xC3\xA9 \\"));
	assert_true(cgm_escape_is_plain(NULL));
	assert_false(cgm_escape_is_plain("a\tb"));
	assert_false(cgm_escape_is_plain("a\x1B"));
	assert_false(cgm_escape_is_plain("a\xC2\x85"));
	assert_false(cgm_escape_is_plain("a\xE2\x80\xAE"));
	assert_false(cgm_escape_is_plain("a\x80"));
}

/* DOT node names: one to one.  Names that the label escaping folds
 * together (TAB and space, CR and nothing, a control and its picture, C1,
 * U+FFFD and a bad byte) stay apart. */
static void test_dot_id(void **state)
{
	(void)state;
	assert_escapes(cgm_escape_dot_id, "s.\"a\"(text)", "s.\\\"a\\\"(text)");
	assert_escapes(cgm_escape_dot_id, "a\\b&c", "a\\\\b&amp;c");
	assert_escapes(cgm_escape_dot_id, "a\tb", "a\\tb");
	assert_escapes(cgm_escape_dot_id, "a\rb\n", "a\\rb\\n");
	assert_escapes(cgm_escape_dot_id, "\x01\x7F\xFF\xC2\x85\xE2\x80\xAE", "\\x01\\x7F\\xFF\\u0085\\u202E");
	const char *names[] = {
		"f(a b)", "f(a\tb)", "f(ab)", "f(a\rb)", "f(a\r\nb)", "f(a\nb)", "f(a\\nb)",
		"f(a\\tb)", "f(a\x07" "b)", "f(a\xE2\x90\x87" "b)", "f(a\xC2\x85" "b)",
		"f(a\xEF\xBF\xBD" "b)", "f(a\x85" "b)", "f(a\\x85b)", "f(a\\u0085b)", "f(a&b)", "f(a&amp;b)", "f(a\"b)",
		"f(a\\\"b)",
	};
	size_t n = sizeof(names) / sizeof(names[0]);
	char *out[sizeof(names) / sizeof(names[0])];
	for (size_t i = 0; i < n; i++) {
		out[i] = escaped(cgm_escape_dot_id, names[i]);
		assert_true(valid_utf8(out[i]));
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (strcmp(out[i], out[j]) == 0)
				fail_msg("names %zu and %zu escape to the same node name %s", i, j, out[i]);
	for (size_t i = 0; i < n; i++)
		free(out[i]);
}

static void assert_filename_shape(const char *name)
{
	assert_true(strlen(name) > 0);
	assert_true(strlen(name) <= 200);
	assert_true(name[0] != '.');
	for (const char *p = name; *p; p++)
		assert_true(isalnum((unsigned char)*p) || *p == '.' || *p == '_' || *p == '-');
}

static void test_filename(void **state)
{
	(void)state;
	const char *ids[] = {
		"app.fact(integer)",
		"App.fact(integer)",   /* differs only in case: case-insensitive disks */
		"app.fact_28integer_29",
		"\"Odd Schema\".\"Weird \"\"Name\"\"\"()",
		"../../etc/passwd",
		".hidden()",
		"",
		"caf\xC3\xA9.f(text)",
		"a\x80z",
	};
	size_t n = sizeof(ids) / sizeof(ids[0]);
	char *names[sizeof(ids) / sizeof(ids[0])];
	for (size_t i = 0; i < n; i++) {
		names[i] = escaped(cgm_escape_filename, ids[i]);
		assert_filename_shape(names[i]);
		char *again = escaped(cgm_escape_filename, ids[i]);
		assert_string_equal(names[i], again); /* deterministic */
		free(again);
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			assert_true(strcasecmp(names[i], names[j]) != 0);
	/* Readable part kept. */
	assert_true(strncmp(names[0], "app.fact-", 9) == 0);
	assert_int_equal(strlen(names[0]), 9 + 8);
	char *wide = escaped(cgm_escape_filename_wide, ids[0]);
	assert_filename_shape(wide);
	assert_int_equal(strlen(wide), 9 + 16);
	assert_true(strncmp(wide, "app.fact-", 9) == 0);
	free(wide);
	for (size_t i = 0; i < n; i++)
		free(names[i]);

	/* Very long ids stay short, and two that share a long prefix differ. */
	char longa[2000], longb[2000];
	memset(longa, 'x', sizeof(longa));
	longa[sizeof(longa) - 1] = '\0';
	memcpy(longb, longa, sizeof(longb));
	longb[sizeof(longb) - 2] = 'y';
	char *na = escaped(cgm_escape_filename, longa);
	char *nb = escaped(cgm_escape_filename, longb);
	assert_filename_shape(na);
	assert_filename_shape(nb);
	assert_string_not_equal(na, nb);
	free(na);
	free(nb);
}

/* Whatever the input, every text escaper gives valid UTF-8. */
static void test_invalid_utf8_everywhere(void **state)
{
	(void)state;
	escaper fns[] = { cgm_escape_dot,      cgm_escape_html, cgm_escape_json,
			  cgm_escape_markdown, cgm_escape_filename, cgm_escape_text,
			  cgm_escape_dot_id,   cgm_escape_json_visible };
	for (size_t f = 0; f < sizeof(fns) / sizeof(fns[0]); f++)
		for (size_t i = 0; i < sizeof(invalid_inputs) / sizeof(invalid_inputs[0]); i++) {
			char *out = escaped(fns[f], invalid_inputs[i]);
			if (!valid_utf8(out))
				fail_msg("escaper %zu left invalid UTF-8 for input %zu", f, i);
			if (f == 2) /* JSON: data, U+FFFD */
				assert_non_null(strstr(out, "\xEF\xBF\xBD"));
			else if (f != 4) /* shown as the byte it was */
				assert_non_null(strstr(out, "\\x"));
			free(out);
		}
	/* Every byte value after a valid prefix, as a brute-force sweep. */
	for (int b = 1; b < 256; b++)
		for (size_t f = 0; f < sizeof(fns) / sizeof(fns[0]); f++) {
			char in[8] = { 'a', (char)b, (char)0xE2, (char)b, 'z', 0 };
			char *out = escaped(fns[f], in);
			assert_true(valid_utf8(out));
			free(out);
		}
}

/* The buffer grows from what was there: escapers append, never reset. */
static void test_appends(void **state)
{
	(void)state;
	cgm_strbuf buf = CGM_STRBUF_INIT;
	cgm_strbuf_puts(&buf, "label=\"");
	cgm_escape_dot(&buf, "a\"b");
	cgm_strbuf_putc(&buf, '"');
	assert_string_equal(cgm_strbuf_cstr(&buf), "label=\"a\\\"b\"");
	cgm_strbuf_reset(&buf);
	cgm_strbuf_puts(&buf, "x");
	cgm_escape_markdown(&buf, "1. y");
	assert_string_equal(cgm_strbuf_cstr(&buf), "x1\\. y");
	cgm_strbuf_free(&buf);
}

/* Integers as %lld writes them, the extremes included. */
static void test_add_int(void **state)
{
	(void)state;
	const long long values[] = { 0, 1, -1, 9, 10, 99, -100, 123456789, 2147483647LL,
				     -2147483648LL, LLONG_MAX, LLONG_MIN, LLONG_MIN + 1 };
	cgm_strbuf buf = CGM_STRBUF_INIT;
	char want[64];
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		cgm_strbuf_reset(&buf);
		cgm_strbuf_putc(&buf, '[');
		cgm_strbuf_add_int(&buf, values[i]);
		cgm_strbuf_putc(&buf, ']');
		snprintf(want, sizeof(want), "[%lld]", values[i]);
		assert_string_equal(cgm_strbuf_cstr(&buf), want);
	}
	cgm_strbuf_free(&buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dot),
		cmocka_unit_test(test_html),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_markdown),
		cmocka_unit_test(test_bidi_and_c1),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_dot_id),
		cmocka_unit_test(test_filename),
		cmocka_unit_test(test_invalid_utf8_everywhere),
		cmocka_unit_test(test_appends),
		cmocka_unit_test(test_add_int),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
