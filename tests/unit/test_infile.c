/*
 * test_infile.c - reading input files cgmap does not trust: only regular
 * files (a FIFO is refused at once instead of waiting for a writer, a
 * device or a folder by name), the size limit to the byte, sizes as the
 * option takes them, lines held to a limit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgmap/error.h"
#include "cgmap/infile.h"

static char folder[256];

static int setup(void **state)
{
	(void)state;
	snprintf(folder, sizeof folder, "%s/cgmap-infile-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	return mkdtemp(folder) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	cgm_infile_set_max_size(CGM_INFILE_DEFAULT_MAX);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", folder);
	return system(cmd) == 0 ? 0 : -1;
}

static const char *path_of(const char *name)
{
	static char path[512];
	snprintf(path, sizeof path, "%s/%s", folder, name);
	return path;
}

static void write_bytes(const char *name, const char *bytes, size_t n)
{
	FILE *f = fopen(path_of(name), "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(bytes, 1, n, f), n);
	fclose(f);
}

static void test_sizes(void **state)
{
	(void)state;
	int64_t v;
	assert_int_equal(cgm_infile_parse_size(&v, "0"), 0);
	assert_true(v == 0);
	assert_int_equal(cgm_infile_parse_size(&v, "1048576"), 0);
	assert_true(v == 1048576);
	assert_int_equal(cgm_infile_parse_size(&v, "64K"), 0);
	assert_true(v == 65536);
	assert_int_equal(cgm_infile_parse_size(&v, "256m"), 0);
	assert_true(v == (int64_t)256 << 20);
	assert_int_equal(cgm_infile_parse_size(&v, "2G"), 0);
	assert_true(v == (int64_t)2 << 30);
	static const char *const bad[] = { "", "-1", "1X", "1KB", "K", " 1", "99999999999999999999",
					   "9999999999999G" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(cgm_infile_parse_size(&v, bad[i]), CGM_EUSAGE);
		assert_non_null(strstr(cgm_error_message(), "--max-file-size"));
	}
}

static void test_regular_files_and_the_limit(void **state)
{
	(void)state;
	write_bytes("ten.sql", "0123456789", 10);
	char *text;
	size_t len;
	cgm_infile_set_max_size(10); /* exactly the size: read */
	assert_int_equal(cgm_infile_read(&text, &len, path_of("ten.sql"), "SQL file", CGM_ESOURCE,
					 false, 3),
			 0);
	assert_int_equal(len, 10);
	assert_memory_equal(text, "0123456789\0\0\0", 13);
	free(text);
	cgm_infile_set_max_size(9); /* one byte less: refused by name */
	assert_int_equal(cgm_infile_read(&text, &len, path_of("ten.sql"), "SQL file", CGM_ESOURCE,
					 false, 1),
			 CGM_ESOURCE);
	assert_null(text);
	assert_non_null(strstr(cgm_error_message(), "ten.sql\" is larger than the 9 bytes limit"));
	cgm_infile_set_max_size(0); /* no limit */
	assert_int_equal(cgm_infile_read(&text, &len, path_of("ten.sql"), "SQL file", CGM_ESOURCE,
					 false, 1),
			 0);
	free(text);

	/* An empty file is a file. */
	write_bytes("empty.sql", "", 0);
	assert_int_equal(cgm_infile_read(&text, &len, path_of("empty.sql"), "SQL file", CGM_ESOURCE,
					 false, 1),
			 0);
	assert_int_equal(len, 0);
	assert_int_equal(text[0], '\0');
	free(text);
}

static void test_not_regular(void **state)
{
	(void)state;
	char *text;
	size_t len;
	/* A FIFO without a writer: opening it blocked for good. */
	assert_int_equal(mkfifo(path_of("pipe.sql"), 0600), 0);
	assert_int_equal(cgm_infile_read(&text, &len, path_of("pipe.sql"), "SQL file", CGM_ESOURCE,
					 false, 1),
			 CGM_ESOURCE);
	assert_non_null(strstr(cgm_error_message(), "pipe.sql\" is not a regular file (a pipe)"));
	assert_int_equal(cgm_infile_read(&text, &len, "/dev/zero", "snapshot", CGM_EINPUT, false, 1),
			 CGM_EINPUT);
	assert_string_equal(cgm_error_message(),
			    "snapshot \"/dev/zero\" is not a regular file (a device): not read");
	assert_int_equal(cgm_infile_read(&text, &len, folder, "runtime file", CGM_EINPUT, false, 1),
			 CGM_EINPUT);
	assert_non_null(strstr(cgm_error_message(), "is not a regular file (a folder)"));
	/* "-" is a file name unless standard input is allowed. */
	assert_int_equal(cgm_infile_read(&text, &len, "-", "snapshot", CGM_EINPUT, false, 1),
			 CGM_EINPUT);
	int rc;
	assert_null(cgm_infile_open("/dev/zero", "runtime log", CGM_EINPUT, &rc));
	assert_int_equal(rc, CGM_EINPUT);
	assert_non_null(strstr(cgm_error_message(), "runtime log \"/dev/zero\" is not a regular file"));
}

static void test_lines_held(void **state)
{
	(void)state;
	char text[1024];
	memset(text, 'x', sizeof text);
	memcpy(text, "short\n", 6);
	memcpy(text + sizeof text - 5, "\nlast", 5);
	write_bytes("log", text, sizeof text); /* a line of 1012 bytes in the middle */
	int rc;
	FILE *f = cgm_infile_open(path_of("log"), "runtime log", CGM_EINPUT, &rc);
	assert_non_null(f);
	char *line = NULL;
	size_t cap = 0;
	bool truncated;
	assert_int_equal(cgm_infile_getline(&line, &cap, f, 8, &truncated), 6);
	assert_string_equal(line, "short\n");
	assert_false(truncated);
	assert_int_equal(cgm_infile_getline(&line, &cap, f, 8, &truncated), 8);
	assert_true(truncated);
	assert_int_equal(cgm_infile_getline(&line, &cap, f, 8, &truncated), 4);
	assert_string_equal(line, "last");
	assert_false(truncated);
	assert_int_equal(cgm_infile_getline(&line, &cap, f, 8, &truncated), -1);
	assert_true(cap <= 256); /* the long line was never held whole */
	free(line);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test_setup_teardown(test_regular_files_and_the_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_regular, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lines_held, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
