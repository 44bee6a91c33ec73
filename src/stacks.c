/*
 * stacks.c - the model's call paths as folded stacks (cgmap/stacks.h).
 *
 * In:  a model's paths (model->paths: frames, exclusive time).  Out: text
 *      appended to a caller-owned cgm_strbuf.  The scratch array of stacks
 *      and their strings are malloc'd and freed here.
 */
#include "cgmap/stacks.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cgmap/error.h"

typedef struct {
	char *text; /* the escaped frames joined by ';' */
	double self_ms;
} stack;

/* A frame for a folded line: '%', ';', space and control bytes as %XX. */
static void put_frame(cgm_strbuf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '%' || *p == ';' || *p == ' ' || *p < 0x20 || *p == 0x7f) {
			char esc[3] = { '%', hex[*p >> 4], hex[*p & 15] };
			cgm_strbuf_add(b, esc, 3);
		} else {
			cgm_strbuf_putc(b, (char)*p);
		}
	}
}

/* By text, then by time: the times of one stack are summed in an order
 * that does not depend on the order of the paths, so the last bit of the
 * sum, and its rounding to a microsecond, never does either. */
static int by_text(const void *a, const void *b)
{
	const stack *x = a, *y = b;
	int c = strcmp(x->text, y->text);
	if (c)
		return c;
	return (x->self_ms > y->self_ms) - (x->self_ms < y->self_ms);
}

/* Microseconds as an integer, held at INT64_MAX. */
static long long micros(double ms)
{
	double us = ms * 1000.0;
	if (!(us > 0))
		return 0;
	if (us >= 9.2e18)
		return INT64_MAX;
	return llround(us);
}

int cgm_stacks_folded(cgm_strbuf *out, const cgm_model *model)
{
	if (!model->npaths)
		return 0;
	stack *all = cgm_xcalloc((size_t)model->npaths, sizeof(stack));
	int n = 0;
	cgm_strbuf b = CGM_STRBUF_INIT;
	for (int i = 0; i < model->npaths; i++) {
		const cgm_call_path *p = &model->paths[i];
		if (p->nframes < 1)
			continue;
		cgm_strbuf_reset(&b);
		for (int f = 0; f < p->nframes; f++) {
			if (f)
				cgm_strbuf_putc(&b, ';');
			put_frame(&b, p->frames[f] ? p->frames[f] : "");
		}
		size_t len = b.len + 1;
		all[n].text = cgm_xcalloc(len, 1);
		memcpy(all[n].text, cgm_strbuf_cstr(&b), len);
		all[n].self_ms = p->stats.self_ms;
		n++;
	}
	cgm_strbuf_free(&b);
	qsort(all, (size_t)n, sizeof(stack), by_text);
	int lines = 0;
	for (int i = 0; i < n;) {
		double self_ms = 0;
		int j = i;
		for (; j < n && strcmp(all[j].text, all[i].text) == 0; j++)
			self_ms += all[j].self_ms;
		cgm_strbuf_printf(out, "%s %lld\n", all[i].text, micros(self_ms));
		lines++;
		i = j;
	}
	for (int i = 0; i < n; i++)
		free(all[i].text);
	free(all);
	return lines;
}
