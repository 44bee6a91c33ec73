/*
 * test_outdir.c - output folders and files written safely: a link planted
 * at a file's name is replaced, never written through; a link planted at a
 * subfolder's name is refused with a message naming it; the manifest
 * removes only files cgmap wrote before (regular files of page shape in
 * its folders), never a link, a file a person put there, or an entry
 * that leaves the folder; single output files refuse links and write
 * devices in place.
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgmap/error.h"
#include "outdir.h"

static char root[256];

static int make_root(void **state)
{
	(void)state;
	const char *base = getenv("TMPDIR");
	snprintf(root, sizeof(root), "%s/cgmap-outdir-XXXXXX", base && *base ? base : "/tmp");
	return mkdtemp(root) ? 0 : -1;
}

static int remove_root(void **state)
{
	(void)state;
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static const char *at(const char *rel)
{
	static char paths[4][1024];
	static int next;
	char *p = paths[next++ % 4];
	snprintf(p, sizeof(paths[0]), "%s/%s", root, rel);
	return p;
}

static void put(const char *rel, const char *text)
{
	FILE *f = fopen(at(rel), "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *get(const char *rel)
{
	static char buf[4096];
	FILE *f = fopen(at(rel), "r");
	if (!f)
		return NULL;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static bool is_link(const char *rel)
{
	struct stat st;
	return lstat(at(rel), &st) == 0 && S_ISLNK(st.st_mode);
}

static bool exists(const char *rel)
{
	struct stat st;
	return lstat(at(rel), &st) == 0;
}

/* A link at a file's name: the link is replaced by the page, and the file
 * it pointed to keeps its text. */
static void test_file_link_replaced(void **state)
{
	(void)state;
	mkdir(at("out"), 0777);
	put("victim", "precious\n");
	assert_int_equal(symlink(at("victim"), at("out/index.html")), 0);
	cgm_outdir d;
	assert_int_equal(cgm_outdir_open(&d, at("out")), 0);
	assert_int_equal(cgm_outdir_subdir(&d, "functions"), 0);
	assert_int_equal(symlink(at("victim"), at("out/functions/f.html")), 0);
	assert_int_equal(cgm_outdir_write(&d, "index.html", "page\n", 5), 0);
	assert_int_equal(cgm_outdir_write(&d, "functions/f.html", "fn\n", 3), 0);
	cgm_outdir_close(&d);
	assert_string_equal(get("victim"), "precious\n");
	assert_false(is_link("out/index.html"));
	assert_string_equal(get("out/index.html"), "page\n");
	assert_false(is_link("out/functions/f.html"));
	assert_string_equal(get("out/functions/f.html"), "fn\n");
}

/* A link at a subfolder's name (at any depth) is refused, by name. */
static void test_folder_link_refused(void **state)
{
	(void)state;
	mkdir(at("elsewhere"), 0777);
	mkdir(at("out2"), 0777);
	assert_int_equal(symlink(at("elsewhere"), at("out2/functions")), 0);
	mkdir(at("out2/dot"), 0777);
	assert_int_equal(symlink(at("elsewhere"), at("out2/dot/schemas")), 0);
	cgm_outdir d;
	assert_int_equal(cgm_outdir_open(&d, at("out2")), 0);
	assert_int_equal(cgm_outdir_subdir(&d, "functions"), CGM_EIO);
	assert_non_null(strstr(cgm_error_message(), "out2/functions\""));
	assert_non_null(strstr(cgm_error_message(), "symbolic link"));
	assert_int_equal(cgm_outdir_subdir(&d, "dot/schemas"), CGM_EIO);
	assert_non_null(strstr(cgm_error_message(), "out2/dot/schemas\""));
	/* A file where a folder belongs, and a folder not prepared. */
	put("out2/reports", "x");
	assert_int_equal(cgm_outdir_subdir(&d, "reports"), CGM_EIO);
	assert_non_null(strstr(cgm_error_message(), "a file of that name exists"));
	assert_int_equal(cgm_outdir_write(&d, "schemas/x.html", "x", 1), CGM_EIO);
	cgm_outdir_close(&d);
	/* Nothing landed in the folder the links point to. */
	assert_false(exists("elsewhere/x.html"));
	/* The folder named by the user may be a link: that is the user's. */
	assert_int_equal(symlink(at("elsewhere"), at("userlink")), 0);
	assert_int_equal(cgm_outdir_open(&d, at("userlink")), 0);
	assert_int_equal(cgm_outdir_write(&d, "index.html", "i", 1), 0);
	cgm_outdir_close(&d);
	assert_string_equal(get("elsewhere/index.html"), "i");
}

static bool shaped(const char *rel)
{
	size_t n = strlen(rel);
	return n > 5 && strcmp(rel + n - 5, ".html") == 0 && !strstr(rel, "..") && rel[0] != '/' &&
	       (strchr(rel, '/') == NULL || strncmp(rel, "functions/", 10) == 0);
}

/* The manifest removes what the last run wrote and this one does not, and
 * nothing else. */
static void test_manifest_prunes_only_its_own(void **state)
{
	(void)state;
	cgm_outdir d;
	assert_int_equal(cgm_outdir_open(&d, at("site")), 0);
	assert_int_equal(cgm_outdir_subdir(&d, "functions"), 0);
	char *first[] = { "functions/a.html", "functions/b.html", "index.html" };
	for (int i = 0; i < 3; i++)
		assert_int_equal(cgm_outdir_write(&d, first[i], "x", 1), 0);
	assert_int_equal(cgm_outdir_manifest_write(&d, first, 3), 0);
	/* A person's files, and a manifest tampered with. */
	put("site/functions/mine.html", "mine");
	put("site/notes.txt", "notes");
	put("precious.html", "precious");
	put("victim", "victim");
	assert_int_equal(symlink(at("victim"), at("site/functions/linked.html")), 0);
	FILE *f = fopen(at("site/" CGM_OUTDIR_MANIFEST), "a");
	assert_non_null(f);
	fputs("../precious.html\n/etc/passwd\nfunctions/../../precious.html\nnotes.txt\n"
	      "functions/linked.html\n\nfunctions/missing.html\n",
	      f);
	fclose(f);

	int nold = 0;
	char **old = cgm_outdir_manifest_read(&d, shaped, &nold);
	/* b is the page the new run no longer writes. */
	char *keep[] = { "functions/a.html", "index.html" };
	int removed = cgm_outdir_prune(&d, old, nold, keep, 2, shaped);
	assert_int_equal(removed, 1);
	assert_false(exists("site/functions/b.html"));
	assert_true(exists("site/functions/a.html"));
	assert_true(exists("site/index.html"));
	assert_string_equal(get("site/functions/mine.html"), "mine");
	assert_string_equal(get("site/notes.txt"), "notes");
	assert_string_equal(get("precious.html"), "precious");
	assert_true(is_link("site/functions/linked.html"));
	assert_string_equal(get("victim"), "victim");
	cgm_outdir_list_free(old, nold);

	/* A manifest that is a link is not read. */
	assert_int_equal(unlink(at("site/" CGM_OUTDIR_MANIFEST)), 0);
	put("fake-manifest", "functions/a.html\n");
	assert_int_equal(symlink(at("fake-manifest"), at("site/" CGM_OUTDIR_MANIFEST)), 0);
	old = cgm_outdir_manifest_read(&d, shaped, &nold);
	assert_int_equal(nold, 0);
	cgm_outdir_list_free(old, nold);
	/* Writing it replaces the link, not the file it pointed to. */
	assert_int_equal(cgm_outdir_manifest_write(&d, keep, 2), 0);
	assert_false(is_link("site/" CGM_OUTDIR_MANIFEST));
	assert_string_equal(get("fake-manifest"), "functions/a.html\n");
	old = cgm_outdir_manifest_read(&d, shaped, &nold);
	assert_int_equal(nold, 2);
	assert_string_equal(old[0], "functions/a.html");
	assert_string_equal(old[1], "index.html");
	cgm_outdir_list_free(old, nold);
	cgm_outdir_close(&d);
}

/* report -o, collect -o, diff -o: a link is refused and its target kept;
 * a regular file is replaced whole; a device is written in place. */
static void test_single_files(void **state)
{
	(void)state;
	put("target", "keep me\n");
	assert_int_equal(symlink(at("target"), at("report.txt")), 0);
	assert_int_equal(cgm_outstream_write_whole(at("report.txt"), "report\n", 7), CGM_EIO);
	assert_non_null(strstr(cgm_error_message(), "report.txt\""));
	assert_non_null(strstr(cgm_error_message(), "symbolic link"));
	assert_string_equal(get("target"), "keep me\n");

	put("plain.txt", "old text that is longer\n");
	assert_int_equal(cgm_outstream_write_whole(at("plain.txt"), "new\n", 4), 0);
	assert_string_equal(get("plain.txt"), "new\n");
	assert_int_equal(cgm_outstream_write_whole("/dev/null", "x", 1), 0);
	struct stat st;
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));

	/* A failed write leaves the old file and no temporary file. */
	cgm_outstream s;
	assert_int_equal(cgm_outstream_open(&s, at("plain.txt")), 0);
	fputs("half", s.file);
	assert_int_equal(cgm_outstream_commit(&s, false), 0);
	assert_string_equal(get("plain.txt"), "new\n");
	assert_int_equal(cgm_outstream_write_whole(at("no/such/dir/x"), "x", 1), CGM_EIO);
	assert_non_null(strstr(cgm_error_message(), "no/such/dir/x\""));
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "ls -a '%s' | grep -q tmp", root);
	assert_int_not_equal(system(cmd), 0);
}

/* A pid no process has (a child that has exited and been reaped). */
static long dead_pid(void)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	return (long)pid;
}

/* The temporary files a killed run left beside its pages are removed (also
 * those of a worker still a zombie); a running process's, a person's
 * look-alikes and links stay. */
static void test_sweep_temporaries_of_dead_runs(void **state)
{
	(void)state;
	cgm_outdir d;
	assert_int_equal(cgm_outdir_open(&d, at("swept")), 0);
	assert_int_equal(cgm_outdir_subdir(&d, "functions"), 0);
	long dead = dead_pid(), alive = (long)getpid();
	char name[200];
	snprintf(name, sizeof(name), "swept/functions/.f.html.tmp.%ld.7", dead);
	put(name, "half a page");
	char stale_top[200];
	snprintf(stale_top, sizeof(stale_top), "swept/.index.html.tmp.%ld.1", dead);
	put(stale_top, "half");
	char manifest[200];
	snprintf(manifest, sizeof(manifest), "swept/." CGM_OUTDIR_MANIFEST ".tmp.%ld.2", dead);
	put(manifest, "half");
	char running[200];
	snprintf(running, sizeof(running), "swept/functions/.g.html.tmp.%ld.1", alive);
	put(running, "being written");
	char mine[200];
	snprintf(mine, sizeof(mine), "swept/.notes.txt.tmp.%ld.1", dead);
	put(mine, "not a page");
	/* A worker of a killed run that is not reaped yet: a zombie writes nothing. */
	pid_t zombie = fork();
	assert_true(zombie >= 0);
	if (zombie == 0)
		_exit(0);
	siginfo_t info;
	assert_int_equal(waitid(P_PID, (id_t)zombie, &info, WEXITED | WNOWAIT), 0);
	char undead[200];
	snprintf(undead, sizeof(undead), "swept/functions/.z.html.tmp.%ld.3", (long)zombie);
	put(undead, "half a page");
	put("swept/functions/.h.html.tmp.x.1", "not a pid");
	put("swept/functions/h.html.tmp.1.1", "not hidden");
	char linked[200];
	snprintf(linked, sizeof(linked), "swept/functions/.k.html.tmp.%ld.1", dead);
	put("victim2", "victim");
	assert_int_equal(symlink(at("victim2"), at(linked)), 0);

	assert_int_equal(cgm_outdir_sweep(&d, shaped), 4);
	assert_int_equal(waitpid(zombie, NULL, 0), zombie);
	assert_false(exists(undead));
	assert_false(exists(name));
	assert_false(exists(stale_top));
	assert_false(exists(manifest));
	assert_true(exists(running));
	assert_true(exists(mine));
	assert_true(exists("swept/functions/.h.html.tmp.x.1"));
	assert_true(exists("swept/functions/h.html.tmp.1.1"));
	assert_true(is_link(linked));
	assert_string_equal(get("victim2"), "victim");
	cgm_outdir_close(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_link_replaced),
		cmocka_unit_test(test_folder_link_refused),
		cmocka_unit_test(test_manifest_prunes_only_its_own),
		cmocka_unit_test(test_single_files),
		cmocka_unit_test(test_sweep_temporaries_of_dead_runs),
	};
	return cmocka_run_group_tests(tests, make_root, remove_root);
}
