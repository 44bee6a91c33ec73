/*
 * diff_excerpt.c - a short excerpt of what changed in a function body, for
 * the body-changed findings of `cgmap diff`: one unified-diff hunk, folded.
 *
 * In:  the BASE and HEAD bodies (any bytes).  Out: the excerpt, in `arena`
 *      (NULL when the bodies are equal line for line): the lines common to
 *      both ends are left out but for two of context on each side, the
 *      lines between are shown as removed ('-') then added ('+'), at most
 *      `max_lines` of them, then "... N more lines".  Scratch is freed here.
 *
 * Trimming the common ends, not a full line diff, keeps it linear and
 * bounded on any body; a change in one place (the usual case) gives the
 * same hunk a line diff would.
 */
#include <stdlib.h>
#include <string.h>

#include "cgmap/diff.h"
#include "cgmap/strbuf.h"

typedef struct line_span {
	const char *start;
	size_t len;
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
	return a->len == b->len && memcmp(a->start, b->start, a->len) == 0;
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
		enum { CONTEXT = 2 };
		int from = pre > CONTEXT ? pre - CONTEXT : 0;
		int after = post > CONTEXT ? CONTEXT : post;
		cgm_strbuf o = CGM_STRBUF_INIT;
		int removed = nb - post - pre, added = nh - post - pre;
		cgm_strbuf_printf(&o, "@@ -%d,%d +%d,%d @@\n", from + 1, removed + (pre - from) + after,
				  from + 1, added + (pre - from) + after);
		int shown = 0, total = (pre - from) + removed + added + after;
		for (int i = 0; i < total; i++) {
			if (shown == max_lines) {
				cgm_strbuf_printf(&o, "... %d more line%s\n", total - shown,
						  total - shown == 1 ? "" : "s");
				break;
			}
			const line_span *l;
			char mark;
			if (i < pre - from) {
				l = &b[from + i], mark = ' ';
			} else if (i < pre - from + removed) {
				l = &b[pre + (i - (pre - from))], mark = '-';
			} else if (i < pre - from + removed + added) {
				l = &h[pre + (i - (pre - from) - removed)], mark = '+';
			} else {
				l = &h[nh - post + (i - (pre - from) - removed - added)], mark = ' ';
			}
			cgm_strbuf_putc(&o, mark);
			cgm_strbuf_add(&o, l->start, l->len);
			cgm_strbuf_putc(&o, '\n');
			shown++;
		}
		out = cgm_arena_strdup(arena, cgm_strbuf_cstr(&o));
		cgm_strbuf_free(&o);
	}
	free(b);
	free(h);
	return out;
}
