/*
 * mutate.c - a deterministic mutation fuzzer for one fuzz target
 * (fuzz_target.h), so that every build runs a bounded fuzzing campaign
 * under ctest, sanitizers included, without clang's libFuzzer.
 *
 * In:  seed files and folders (every regular file inside, in name order),
 *      --iterations N (mutated inputs after the seeds), --seed S (the
 *      pseudo-random sequence), --max-size BYTES.
 * Out: every seed is run as it is (regression inputs found by earlier
 *      campaigns live among them), then N inputs, each a seed changed by a
 *      few random edits: bit flips, bytes that matter to SQL or JSON,
 *      tokens of the target's dictionary, deletions, a range repeated many
 *      times (deep nesting), splices of two seeds, truncation.  The same
 *      arguments give the same inputs on every machine; the budget is a
 *      count, never a clock.  A failing input is written to
 *      $TMPDIR/cgmap-mutate-failure-<target>-<n> before the target runs, so
 *      a crash leaves it behind; exit 0 when every input ran.
 *
 * CGM_FUZZ_ONE names the target function and CGM_FUZZ_DICT its dictionary
 * (0: SQL, 1: JSON), both set by tests/CMakeLists.txt.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_target.h"

#define FUZZ_STRING(x) #x
#define FUZZ_NAME(x) FUZZ_STRING(x)

#if CGM_FUZZ_DICT == 1
static const char *const dict[] = {
	"{", "}", "[", "]", ",", ":", "\"", "\\u0000", "\\ud800", "\\u00e9", "\\\"", "null",
	"true", "false", "-1", "0", "1e999", "-0", "0.5", "9223372036854775807",
	"9223372036854775808", "\"functions\"", "\"edges\"", "\"sites\"", "\"id\"", "\"from\"",
	"\"to\"", "\"line\"", "\"targets\"", "\"format_version\"", "\"runtime\"", "\"errors\"",
	"\"calls\"", "\"triggers\"", "\"references\"", "\"diagnostics\"", "\"summary\"",
	"\"app.a()\"", "\xff", "\xc3", "\t", "\n",
};
#else
static const char *const dict[] = {
	"/*", "*/", "--", "\n", "'", "''", "E'", "\\", "$$", "$a$", "\"", "(", ")", "[", "]", ",",
	";", "::", "||", "+", "-", "'a' -- c\n'b'", " BEGIN ATOMIC ", " END", " END;", " CASE WHEN ",
	" THEN ", " ELSE ", " SELECT ", " FROM ", " WHERE ", " AND ", " UNION SELECT ",
	"CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;\n",
	"CREATE OR REPLACE FUNCTION ", "CREATE PROCEDURE p() LANGUAGE plpgsql AS $$ BEGIN END $$;\n",
	" LANGUAGE plpgsql ", " LANGUAGE sql ", " DECLARE ", " BEGIN ", " PERFORM ", " EXECUTE ",
	" RETURN ", " RETURN QUERY ", " SET search_path = ", " COPY t FROM stdin;\n", "\n\\.\n",
	" DROP FUNCTION ", " ALTER FUNCTION ", " RENAME TO ", " CALL ", " VARIADIC ", " DEFAULT ",
	" CREATE TRIGGER ", " FOR EACH ROW EXECUTE FUNCTION ", " OUT ", " INOUT ", " SETOF ",
	" RETURNS TABLE(", "%TYPE", "%ROWTYPE", " CURSOR FOR ", " OPEN ", " FETCH ",
	" COMMENT ON FUNCTION ", " IS ", " CREATE SCHEMA ", " CREATE TABLE ", " CREATE VIEW ",
	" => ", "$1", "format('%I', ", "\x01", "\xc3\xa9", "\xff", "\\set x 1\n",
};

#endif
#define DICT dict
#define NDICT (sizeof(DICT) / sizeof(DICT[0]))

static const unsigned char interesting[] = { 0,   '\'', '"', '$', '(', ')', '[', ']', '{', '}', ',',
					     ';', ':',  '-', '/', '*', '\\', '\n', '%', 'E', 0x80, 0xff };

typedef struct input {
	unsigned char *data;
	size_t size, cap;
} input;

typedef struct seeds {
	input *items;
	char **names;
	int n, cap;
} seeds;

/* xorshift64*: the same sequence everywhere. */
static uint64_t rng;

static uint64_t next_random(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static size_t below(size_t n)
{
	return n ? (size_t)(next_random() % n) : 0;
}

static void reserve(input *in, size_t need)
{
	if (need <= in->cap)
		return;
	size_t cap = in->cap ? in->cap : 256;
	while (cap < need)
		cap *= 2;
	in->data = realloc(in->data, cap);
	if (!in->data) {
		perror("mutate");
		exit(2);
	}
	in->cap = cap;
}

static void insert(input *in, size_t at, const unsigned char *bytes, size_t n)
{
	reserve(in, in->size + n + 1);
	memmove(in->data + at + n, in->data + at, in->size - at);
	memcpy(in->data + at, bytes, n);
	in->size += n;
}

static void add_seed(seeds *s, const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(2);
	}
	input in = { 0 };
	unsigned char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		insert(&in, in.size, buf, n);
	fclose(f);
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->items = realloc(s->items, sizeof(input) * (size_t)s->cap);
		s->names = realloc(s->names, sizeof(char *) * (size_t)s->cap);
		if (!s->items || !s->names) {
			perror("mutate");
			exit(2);
		}
	}
	s->items[s->n] = in;
	s->names[s->n++] = strdup(path);
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_path(seeds *s, const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		perror(path);
		exit(2);
	}
	if (!S_ISDIR(st.st_mode)) {
		add_seed(s, path);
		return;
	}
	DIR *d = opendir(path);
	if (!d) {
		perror(path);
		exit(2);
	}
	char **names = NULL;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		names = realloc(names, sizeof(char *) * (size_t)(n + 1));
		size_t len = strlen(path) + strlen(e->d_name) + 2;
		names[n] = malloc(len);
		snprintf(names[n++], len, "%s/%s", path, e->d_name);
	}
	closedir(d);
	if (n > 1)
		qsort(names, (size_t)n, sizeof(char *), compare_names);
	for (int i = 0; i < n; i++) {
		if (stat(names[i], &st) == 0 && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
			add_path(s, names[i]);
		free(names[i]);
	}
	free(names);
}

/* One random edit of `in`; `other` is another seed for splicing. */
static void mutate_once(input *in, const input *other, size_t max_size)
{
	size_t pos = below(in->size + 1);
	switch (below(9)) {
	case 0: /* flip a bit */
		if (in->size)
			in->data[below(in->size)] ^= (unsigned char)(1u << below(8));
		break;
	case 1: /* a byte that matters */
		if (in->size)
			in->data[below(in->size)] = interesting[below(sizeof interesting)];
		break;
	case 2:
	case 3: { /* a token */
		const char *t = DICT[below(NDICT)];
		insert(in, pos, (const unsigned char *)t, strlen(t));
		break;
	}
	case 4: { /* delete a range */
		size_t n = below(64) + 1;
		if (pos + n > in->size)
			n = in->size - pos;
		memmove(in->data + pos, in->data + pos + n, in->size - pos - n);
		in->size -= n;
		break;
	}
	case 5: { /* repeat a range: nesting, long chains */
		if (!in->size)
			break;
		size_t from = below(in->size), n = below(16) + 1;
		if (from + n > in->size)
			n = in->size - from;
		size_t times = below(4) == 0 ? below(20000) + 1 : below(64) + 1;
		if (n * times > max_size)
			times = max_size / n;
		unsigned char *piece = malloc(n);
		memcpy(piece, in->data + from, n);
		for (size_t k = 0; k < times && in->size + n <= max_size; k++)
			insert(in, from, piece, n);
		free(piece);
		break;
	}
	case 6: { /* splice another seed in */
		if (!other->size)
			break;
		size_t from = below(other->size), n = below(other->size - from) + 1;
		insert(in, pos, other->data + from, n);
		break;
	}
	case 7: /* truncate */
		in->size = pos;
		break;
	default: { /* a digit run: big numbers, long lines */
		size_t n = below(24) + 1;
		for (size_t k = 0; k < n; k++) {
			unsigned char c = (unsigned char)('0' + below(10));
			insert(in, pos, &c, 1);
		}
		break;
	}
	}
	if (in->size > max_size)
		in->size = max_size;
}

static void run(const input *in, const char *what, long n)
{
	/* Left behind when the target crashes or aborts. */
	char path[512];
	const char *tmp = getenv("TMPDIR");
	snprintf(path, sizeof path, "%s/cgmap-mutate-failure-%s-%ld", tmp && *tmp ? tmp : "/tmp",
		 FUZZ_NAME(CGM_FUZZ_ONE), n);
	FILE *f = fopen(path, "wb");
	if (f) {
		fwrite(in->data, 1, in->size, f);
		fclose(f);
	}
	CGM_FUZZ_ONE(in->data, in->size);
	remove(path);
	(void)what;
}

int main(int argc, char **argv)
{
	long iterations = 1000;
	uint64_t seed = 1;
	size_t max_size = 1 << 20;
	seeds s = { 0 };
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--iterations") == 0 && i + 1 < argc)
			iterations = strtol(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--max-size") == 0 && i + 1 < argc)
			max_size = strtoul(argv[++i], NULL, 10);
		else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "usage: %s [--iterations N] [--seed S] [--max-size BYTES] SEED_PATH...\n",
				argv[0]);
			return 2;
		} else
			add_path(&s, argv[i]);
	}
	if (s.n == 0) {
		fprintf(stderr, "%s: no seed input\n", argv[0]);
		return 2;
	}
	for (int i = 0; i < s.n; i++)
		run(&s.items[i], s.names[i], -1 - i);
	input in = { 0 };
	for (long n = 0; n < iterations; n++) {
		rng = (seed + 1) * 0x9E3779B97F4A7C15ULL + (uint64_t)n * 0xBF58476D1CE4E5B9ULL;
		if (!rng)
			rng = 1;
		const input *base = &s.items[below((size_t)s.n)];
		in.size = 0;
		insert(&in, 0, base->data, base->size);
		int edits = (int)below(8) + 1;
		for (int e = 0; e < edits; e++)
			mutate_once(&in, &s.items[below((size_t)s.n)], max_size);
		run(&in, "mutated", n);
	}
	printf("%s: %d seed inputs and %ld mutated inputs ran\n", FUZZ_NAME(CGM_FUZZ_ONE), s.n, iterations);
	free(in.data);
	for (int i = 0; i < s.n; i++) {
		free(s.items[i].data);
		free(s.names[i]);
	}
	free(s.items);
	free(s.names);
	return 0;
}
