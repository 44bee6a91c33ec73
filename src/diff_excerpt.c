/*
 * diff_excerpt.c - a short excerpt of what changed in a function body, for
 * the body-changed (and signature-changed) findings of `cgmap diff`: the
 * start of a unified line diff, folded.
 *
 * In:  the BASE and HEAD bodies (any bytes).  Out: the excerpt, in `arena`
 *      (NULL when the bodies are equal line for line): hunks of a line diff
 *      with two lines of context, at most `max_lines` lines of them shown
 *      (hunk headers not counted), then "... N more lines".  Scratch is
 *      freed here.
 *
 * The lines common to both ends are trimmed first; the lines between are
 * diffed by their longest common subsequence (a table of uint16 lengths),
 * so a line kept between two changes shows as kept, not as removed and
 * added again.  Past LCS_MAX_CELLS (a middle of about 2,000 by 2,000
 * lines) or LCS_CELLS_PER_BYTE of its text, the middle is shown as removed
 * then added, which keeps time and memory bounded on any body.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgmap/diff.h"
#include "cgmap/hash.h"
#include "cgmap/strbuf.h"

#define LCS_MAX_CELLS 4000000
/* ... and no more than this per byte of those lines: time stays linear in
 * the input even when every line is one byte long. */
#define LCS_CELLS_PER_BYTE 32
#define CONTEXT 2

typedef struct line_span {
	const char *start;
	size_t len;
	uint64_t hash;
} line_span;

/* The lines of s (a final newline ends the last one). */
static line_span *split_lines(const char *s, int *n)
{
	int count = 1;
	for (const char *p = s; *p; p++)
		count += *p == '\n';
	line_span *lines = calloc((size_t)count, sizeof(line_span));
	if (!lines)
		abort();
	*n = 0;
	const char *start = s;
	for (const char *p = s;; p++) {
		if (*p == '\n' || *p == '\0') {
			if (*p == '\0' && p == start && *n > 0)
				break; /* nothing after the final newline */
			lines[*n].start = start;
			lines[*n].len = (size_t)(p - start);
			lines[*n].hash = cgm_fnv1a_bytes(start, (size_t)(p - start));
			(*n)++;
			if (*p == '\0')
				break;
			start = p + 1;
		}
	}
	return lines;
}

static bool same_line(const line_span *a, const line_span *b)
{
	return a->hash == b->hash && a->len == b->len && memcmp(a->start, b->start, a->len) == 0;
}

/* One step of the edit script: a line kept, removed from BASE or added in
 * HEAD, with its index on its side(s). */
typedef struct edit {
	char mark; /* ' ', '-', '+' */
	int b, h;  /* the line's index in BASE and HEAD (the side it is not on: where it would be) */
} edit;

/* The edits turning b[from_b, to_b) into h[from_h, to_h), appended to ops. */
static void diff_middle(edit *ops, int *nops, const line_span *b, int from_b, int to_b,
			const line_span *h, int from_h, int to_h)
{
	int n = to_b - from_b, m = to_h - from_h;
	uint16_t *lcs = NULL;
	size_t bytes = 0, cells = (size_t)(n + 1) * (size_t)(m + 1);
	for (int i = from_b; i < to_b; i++)
		bytes += b[i].len + 1;
	for (int j = from_h; j < to_h; j++)
		bytes += h[j].len + 1;
	if (n > 0 && m > 0 && n < UINT16_MAX && m < UINT16_MAX && cells <= LCS_MAX_CELLS &&
	    cells <= LCS_CELLS_PER_BYTE * bytes)
		lcs = calloc((size_t)(n + 1) * (size_t)(m + 1), sizeof(uint16_t));
	int i = 0, j = 0;
	if (lcs) {
		/* lcs[i][j]: the longest common subsequence of the suffixes. */
#define L(i, j) lcs[(size_t)(i) * (size_t)(m + 1) + (size_t)(j)]
		for (int x = n - 1; x >= 0; x--)
			for (int y = m - 1; y >= 0; y--)
				L(x, y) = same_line(&b[from_b + x], &h[from_h + y])
						  ? (uint16_t)(L(x + 1, y + 1) + 1)
						  : L(x + 1, y) >= L(x, y + 1) ? L(x + 1, y) : L(x, y + 1);
		while (i < n && j < m) {
			if (same_line(&b[from_b + i], &h[from_h + j])) {
				ops[(*nops)++] = (edit){ ' ', from_b + i, from_h + j };
				i++, j++;
			} else if (L(i + 1, j) >= L(i, j + 1)) {
				ops[(*nops)++] = (edit){ '-', from_b + i, from_h + j };
				i++;
			} else {
				ops[(*nops)++] = (edit){ '+', from_b + i, from_h + j };
				j++;
			}
		}
#undef L
		free(lcs);
	}
	for (; i < n; i++)
		ops[(*nops)++] = (edit){ '-', from_b + i, from_h + j };
	for (; j < m; j++)
		ops[(*nops)++] = (edit){ '+', from_b + n, from_h + j };
}

const char *cgm_body_excerpt(cgm_arena *arena, const char *base, const char *head, int max_lines)
{
	if (!base || !head)
		return NULL;
	int nb, nh;
	line_span *b = split_lines(base, &nb), *h = split_lines(head, &nh);
	int pre = 0;
	while (pre < nb && pre < nh && same_line(&b[pre], &h[pre]))
		pre++;
	int post = 0;
	while (post < nb - pre && post < nh - pre && same_line(&b[nb - 1 - post], &h[nh - 1 - post]))
		post++;
	const char *out = NULL;
	if (pre < nb - post || pre < nh - post) {
		edit *ops = calloc((size_t)(nb + nh + 1), sizeof(edit));
		if (!ops)
			abort();
		int nops = 0;
		for (int k = 0; k < pre; k++)
			ops[nops++] = (edit){ ' ', k, k };
		diff_middle(ops, &nops, b, pre, nb - post, h, pre, nh - post);
		for (int k = post; k > 0; k--)
			ops[nops++] = (edit){ ' ', nb - k, nh - k };
		/* Hunks: each change with CONTEXT kept lines around it, changes
		 * closer than twice that in one hunk. */
		int *hunk_from = calloc((size_t)nops + 1, sizeof(int)), *hunk_to = calloc((size_t)nops + 1, sizeof(int));
		if (!hunk_from || !hunk_to)
			abort();
		int nhunks = 0, total = 0;
		for (int k = 0; k < nops; k++) {
			if (ops[k].mark == ' ')
				continue;
			int from = k > CONTEXT ? k - CONTEXT : 0;
			int last = k;
			for (int q = k + 1; q < nops && q <= last + 2 * CONTEXT; q++)
				if (ops[q].mark != ' ')
					last = q;
			int to = last + 1 + CONTEXT < nops ? last + 1 + CONTEXT : nops;
			hunk_from[nhunks] = from;
			hunk_to[nhunks++] = to;
			total += to - from;
			k = to - 1;
		}
		cgm_strbuf o = CGM_STRBUF_INIT;
		int shown = 0;
		for (int k = 0; k < nhunks && shown < total; k++) {
			if (shown == max_lines)
				break;
			int nbl = 0, nhl = 0;
			for (int q = hunk_from[k]; q < hunk_to[k]; q++) {
				nbl += ops[q].mark != '+';
				nhl += ops[q].mark != '-';
			}
			const edit *first = &ops[hunk_from[k]];
			cgm_strbuf_printf(&o, "@@ -%d,%d +%d,%d @@\n", nbl ? first->b + 1 : first->b, nbl,
					  nhl ? first->h + 1 : first->h, nhl);
			for (int q = hunk_from[k]; q < hunk_to[k] && shown < max_lines; q++) {
				const line_span *l = ops[q].mark == '+' ? &h[ops[q].h] : &b[ops[q].b];
				cgm_strbuf_putc(&o, ops[q].mark);
				cgm_strbuf_add(&o, l->start, l->len);
				cgm_strbuf_putc(&o, '\n');
				shown++;
			}
		}
		if (shown < total)
			cgm_strbuf_printf(&o, "... %d more line%s\n", total - shown, total - shown == 1 ? "" : "s");
		out = cgm_arena_strdup(arena, cgm_strbuf_cstr(&o));
		cgm_strbuf_free(&o);
		free(hunk_from);
		free(hunk_to);
		free(ops);
	}
	free(b);
	free(h);
	return out;
}
