/*
 * sqlprep.c - SQL text made ready for libpg_query (see sqlprep.h).
 */
#include "sqlprep.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cgmap/limits.h"
#include "sqllex.h"

/* ---- strings continued after a comment -------------------------------- */

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* After a string literal ending at `end`: when only whitespace and --
 * comments, with a newline among them, stand before the next quote, blank
 * those comments. */
static void blank_gap(char *s, size_t end)
{
	size_t i = end;
	bool newline = false, comment = false;
	for (;;) {
		if (is_space(s[i])) {
			newline |= s[i] == '\n';
			i++;
		} else if (s[i] == '-' && s[i + 1] == '-') {
			comment = true;
			while (s[i] && s[i] != '\n')
				i++;
		} else {
			break;
		}
	}
	if (!comment || !newline || s[i] != '\'')
		return;
	for (size_t k = end; k < i; k++) {
		if (s[k] == '-' && s[k + 1] == '-')
			while (s[k] && s[k] != '\n')
				s[k++] = ' ';
	}
}

void cgm_sql_blank_continuations(char *s)
{
	if (!strstr(s, "--"))
		return;
	for (size_t i = 0; s[i];) {
		size_t next = cgm_sql_skip_opaque(s, i);
		if (next == i) {
			i++;
			continue;
		}
		if (s[i] == '\'' && next > i + 1 && s[next - 1] == '\'')
			blank_gap(s, next);
		i = next;
	}
}

/* ---- limits ----------------------------------------------------------- */

/* PostgreSQL's op_chars: ~ ! @ # ^ & | ` ? + - * / % < > = */
static const bool op_chars[256] = {
	['~'] = true, ['!'] = true, ['@'] = true, ['#'] = true, ['^'] = true, ['&'] = true,
	['|'] = true, ['`'] = true, ['?'] = true, ['+'] = true, ['-'] = true, ['*'] = true,
	['/'] = true, ['%'] = true, ['<'] = true, ['>'] = true, ['='] = true,
};

static bool is_op_char(unsigned char c)
{
	return op_chars[c];
}

static bool is_word_start(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}

typedef enum { FRAME_BRACKET, FRAME_CASE, FRAME_ATOMIC } frame_kind;

typedef struct frame {
	int base;    /* levels above this frame's contents */
	int count;   /* levels the current operand chain may add */
	int persist; /* what a comma keeps: set operations chain across lists */
	frame_kind kind;
} frame;

typedef struct scan {
	const char *s;
	unsigned what;
	cgm_sql_problem *problem;
	frame *frames;
	int nframes, cap;
	/* The current run of operator characters (PostgreSQL's lexer cuts
	 * tokens from a run and rescans the rest). */
	size_t run_start;
	bool in_run;
	int code_run;        /* run characters outside comments */
	int64_t openings;    /* slash-stars in the run ... */
	int64_t opening_sum; /* ... and the sum of their offsets */
} scan;

static bool fail(scan *sc, size_t at, const char *fmt, int limit)
{
	sc->problem->offset = (int)at;
	snprintf(sc->problem->message, sizeof sc->problem->message, fmt, limit);
	return false;
}

static frame *top(scan *sc)
{
	return &sc->frames[sc->nframes - 1];
}

/* The estimated depth at the current token, checked. */
static bool level(scan *sc, size_t at)
{
	const frame *f = top(sc);
	if (f->base + f->count > CGM_MAX_NESTING_ESTIMATE)
		return fail(sc, at, "statement nested deeper than %d levels", CGM_MAX_NESTING_ESTIMATE);
	return true;
}

static bool push(scan *sc, frame_kind kind, size_t at)
{
	const frame *f = top(sc);
	int base = f->base + f->count + 2;
	if (base > CGM_MAX_NESTING_ESTIMATE)
		return fail(sc, at, "statement nested deeper than %d levels", CGM_MAX_NESTING_ESTIMATE);
	if (sc->nframes == sc->cap) {
		int cap = sc->cap * 2;
		frame *bigger = realloc(sc->frames, sizeof(frame) * (size_t)cap);
		if (!bigger)
			return fail(sc, at, "out of memory checking the nesting of %d levels", sc->nframes);
		sc->frames = bigger;
		sc->cap = cap;
	}
	sc->frames[sc->nframes++] = (frame){ .base = base, .kind = kind };
	return true;
}

static void pop(scan *sc, frame_kind kind)
{
	if (sc->nframes > 1 && top(sc)->kind == kind)
		sc->nframes--;
}

/* A run of operator characters ended at `end`: PostgreSQL's lexer rescans
 * the rest of the run from each slash-star in it. */
static bool end_run(scan *sc, size_t end)
{
	if (!sc->in_run)
		return true;
	sc->in_run = false;
	int64_t rescanned = sc->openings * (int64_t)end - sc->opening_sum;
	if (rescanned > (int64_t)CGM_MAX_OPERATOR_RUN * CGM_MAX_OPERATOR_RUN / 2)
		return fail(sc, sc->run_start,
			    "comment openings repeated in one run of more than %d operator characters",
			    CGM_MAX_OPERATOR_RUN);
	return true;
}

/* One operator character at i, inside a comment or not. */
static bool run_char(scan *sc, size_t i, bool in_comment)
{
	if (!sc->in_run) {
		sc->in_run = true;
		sc->run_start = i;
		sc->code_run = 0;
		sc->openings = sc->opening_sum = 0;
	}
	if (sc->s[i] == '/' && sc->s[i + 1] == '*') {
		sc->openings++;
		sc->opening_sum += (int64_t)i;
	}
	if (!in_comment && ++sc->code_run > CGM_MAX_OPERATOR_RUN)
		return fail(sc, sc->run_start, "a run of more than %d operator characters",
			    CGM_MAX_OPERATOR_RUN);
	return true;
}

/* The slash-star comment at i; *end gets the offset after it. */
static bool comment(scan *sc, size_t i, size_t *end)
{
	const char *s = sc->s;
	int depth = 0;
	while (s[i]) {
		if (s[i] == '/' && s[i + 1] == '*') {
			if (++depth > CGM_MAX_COMMENT_NESTING)
				return fail(sc, i, "comments nested deeper than %d levels",
					    CGM_MAX_COMMENT_NESTING);
			if (!run_char(sc, i, true) || !run_char(sc, i + 1, true))
				return false;
			i += 2;
		} else if (s[i] == '*' && s[i + 1] == '/') {
			if (!run_char(sc, i, true) || !run_char(sc, i + 1, true))
				return false;
			i += 2;
			if (--depth == 0)
				break;
		} else if (is_op_char((unsigned char)s[i])) {
			if (!run_char(sc, i, true))
				return false;
			i++;
		} else {
			if (!end_run(sc, i))
				return false;
			i++;
		}
	}
	*end = i;
	return true;
}

static bool word_is(const char *w, size_t n, const char *kw)
{
	return strlen(kw) == n && strncasecmp(w, kw, n) == 0;
}

/* A word (keyword or identifier) of n bytes at i. */
static bool word(scan *sc, size_t i, size_t n)
{
	const char *w = sc->s + i;
	frame *f = top(sc);
	if (word_is(w, n, "case"))
		return push(sc, FRAME_CASE, i);
	if (word_is(w, n, "end") && (f->kind == FRAME_CASE || f->kind == FRAME_ATOMIC)) {
		sc->nframes--;
		return true;
	}
	if (f->kind == FRAME_CASE &&
	    (word_is(w, n, "when") || word_is(w, n, "then") || word_is(w, n, "else"))) {
		f->count = 0;
		return true;
	}
	if (word_is(w, n, "begin")) {
		size_t k = i + n;
		while (is_space(sc->s[k]))
			k++;
		if (strncasecmp(sc->s + k, "atomic", 6) == 0 &&
		    !cgm_sql_ident_char((unsigned char)sc->s[k + 6]))
			return push(sc, FRAME_ATOMIC, i);
	}
	/* AND and OR lists are flat: an operand sits at most a level or two
	 * below the chain they continue. */
	if (word_is(w, n, "and") || word_is(w, n, "or")) {
		f->count = f->persist + 2;
		return level(sc, i);
	}
	f->count++;
	if (word_is(w, n, "union") || word_is(w, n, "intersect") || word_is(w, n, "except"))
		f->persist = f->count;
	return level(sc, i);
}

bool cgm_sql_check(const char *s, unsigned what, cgm_sql_problem *problem)
{
	scan sc = { .s = s, .what = what, .problem = problem };
	bool depth = (what & CGM_SQL_CHECK_DEPTH) != 0;
	frame first = { 0 };
	if (depth) {
		sc.cap = 64;
		sc.frames = malloc(sizeof(frame) * (size_t)sc.cap);
		if (!sc.frames)
			return fail(&sc, 0, "out of memory checking the nesting of %d levels", 0);
		sc.frames[0] = first;
		sc.nframes = 1;
	}
	bool ok = true;
	size_t i = 0;
	while (ok && s[i]) {
		unsigned char c = (unsigned char)s[i];
		if (c == '/' && s[i + 1] == '*') {
			size_t end;
			ok = comment(&sc, i, &end);
			i = end;
			continue;
		}
		if (c == '-' && s[i + 1] == '-') {
			ok = end_run(&sc, i);
			i = cgm_sql_skip_comment(s, i);
			continue;
		}
		if (is_op_char(c)) {
			ok = run_char(&sc, i, false);
			if (ok && depth) {
				top(&sc)->count++;
				ok = level(&sc, i);
			}
			i++;
			continue;
		}
		ok = end_run(&sc, i);
		if (!ok)
			break;
		if (c == '\'' || c == '"' || c == '$') {
			size_t next = cgm_sql_skip_opaque(s, i);
			if (next != i) {
				i = next;
				continue;
			}
		}
		if (is_word_start(c)) {
			size_t n = 1;
			while (cgm_sql_ident_char((unsigned char)s[i + n]))
				n++;
			/* A prefixed literal (E'', B'', X'', U&'') is opaque next. */
			if (depth)
				ok = word(&sc, i, n);
			i += n;
			continue;
		}
		if (c >= '0' && c <= '9') {
			while (cgm_sql_ident_char((unsigned char)s[i]) || s[i] == '.')
				i++;
			continue;
		}
		if (depth) {
			frame *f = top(&sc);
			switch (c) {
			case '(':
			case '[':
				ok = push(&sc, FRAME_BRACKET, i);
				break;
			case ')':
			case ']':
				pop(&sc, FRAME_BRACKET);
				break;
			case ',':
				f->count = f->persist;
				break;
			case ';':
				f->count = f->persist = 0;
				break;
			case ':':
				if (s[i + 1] == ':') {
					f->count++;
					ok = level(&sc, i);
					i++;
				}
				break;
			default:
				break;
			}
		}
		i++;
	}
	if (ok)
		ok = end_run(&sc, i);
	free(sc.frames);
	return ok;
}
