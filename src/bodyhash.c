/*
 * bodyhash.c - layout-blind hash of a function body (see cgmap/bodyhash.h).
 *
 * In: body text.  Out: the normalised text or its FNV-1a 128-bit hash as
 * 32 hex digits, in the caller's arena.  The scan follows PostgreSQL's
 * lexical rules for what is quoted ('...' with '' inside, E'...' with
 * backslash escapes, "..." identifiers, $tag$...$tag$) and for comments
 * (-- to end of line, nested slash-star), which PL/pgSQL shares.
 */
#include "cgmap/bodyhash.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool ident_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '$' || c >= 0x80;
}

static bool ident_start(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
}

static bool space_char(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Length of the dollar-quote opener at s ("$tag$"), 0 when s is no opener. */
static size_t dollar_tag(const char *s)
{
	size_t n = 1;
	if (s[n] != '$') {
		if (!ident_start((unsigned char)s[n]))
			return 0;
		while (ident_char((unsigned char)s[n]) && s[n] != '$')
			n++;
		if (s[n] != '$')
			return 0;
	}
	return n + 1;
}

/* Index just past the quoted token starting at s[i]. */
static size_t skip_quoted(const char *s, size_t i, bool backslash_escapes)
{
	char q = s[i++];
	while (s[i]) {
		if (backslash_escapes && s[i] == '\\' && s[i + 1]) {
			i += 2;
			continue;
		}
		if (s[i] == q) {
			if (s[i + 1] == q) { /* doubled quote stays inside */
				i += 2;
				continue;
			}
			return i + 1;
		}
		i++;
	}
	return i;
}

/* Index just past a comment starting at s[i], or i when none starts there. */
static size_t skip_comment(const char *s, size_t i)
{
	if (s[i] == '-' && s[i + 1] == '-') {
		while (s[i] && s[i] != '\n')
			i++;
		return i;
	}
	if (s[i] == '/' && s[i + 1] == '*') {
		int depth = 0;
		while (s[i]) {
			if (s[i] == '/' && s[i + 1] == '*') {
				depth++;
				i += 2;
			} else if (s[i] == '*' && s[i + 1] == '/') {
				i += 2;
				if (--depth == 0)
					return i;
			} else {
				i++;
			}
		}
	}
	return i;
}

/* Write the normalised text of s to out (room for strlen(s) + 1 bytes:
 * normalising never lengthens); returns its length. */
static size_t normalise(char *out, const char *s)
{
	size_t len = 0;
	bool pending_space = false;
	size_t i = 0;
	while (s[i]) {
		unsigned char c = (unsigned char)s[i];
		size_t after = skip_comment(s, i);
		if (after != i || space_char(c)) {
			pending_space = len > 0;
			i = after != i ? after : i + 1;
			continue;
		}
		if (pending_space) {
			out[len++] = ' ';
			pending_space = false;
		}
		size_t start = i;
		if (c == '\'' || c == '"') {
			bool escapes = c == '\'' && i > 0 && (s[i - 1] == 'E' || s[i - 1] == 'e') &&
				       (i == 1 || !ident_char((unsigned char)s[i - 2]));
			i = skip_quoted(s, i, escapes);
		} else if (c == '$' && (i == 0 || !ident_char((unsigned char)s[i - 1])) &&
			   dollar_tag(s + i) > 0) {
			size_t tag = dollar_tag(s + i);
			const char *close = NULL;
			for (const char *p = s + i + tag; (p = strchr(p, '$')) != NULL; p++)
				if (strncmp(p, s + i, tag) == 0) {
					close = p;
					break;
				}
			i = close ? (size_t)(close - s) + tag : strlen(s);
		} else if (ident_char(c)) {
			while (s[i] && ident_char((unsigned char)s[i]))
				i++;
		} else {
			i++;
		}
		memcpy(out + len, s + start, i - start);
		len += i - start;
	}
	out[len] = '\0';
	return len;
}

/* A buffer for the normalised text: on the stack for most bodies. */
static char *normalise_buffer(char *stack, size_t stack_size, const char *source)
{
	size_t need = strlen(source) + 1;
	if (need <= stack_size)
		return stack;
	char *heap = malloc(need);
	if (!heap) {
		fprintf(stderr, "cgmap: out of memory (%zu bytes)\n", need);
		abort();
	}
	return heap;
}

const char *cgm_body_normalise(cgm_arena *arena, const char *source)
{
	if (!source)
		return NULL;
	char stack[8192];
	char *buf = normalise_buffer(stack, sizeof stack, source);
	size_t len = normalise(buf, source);
	const char *result = cgm_arena_strndup(arena, buf, len);
	if (buf != stack)
		free(buf);
	return result;
}

const char *cgm_body_hash(cgm_arena *arena, const char *source)
{
	if (!source)
		return NULL;
	char stack[8192];
	char *buf = normalise_buffer(stack, sizeof stack, source);
	size_t len = normalise(buf, source);
	/* FNV-1a, 128 bits: fast, and a collision would need 2^64 bodies. */
	__extension__ typedef unsigned __int128 u128;
	u128 hash = ((u128)0x6c62272e07bb0142ULL << 64) | 0x62b821756295c58dULL;
	const u128 prime = ((u128)1 << 88) | 0x13b;
	for (size_t i = 0; i < len; i++) {
		hash ^= (unsigned char)buf[i];
		hash *= prime;
	}
	if (buf != stack)
		free(buf);
	return cgm_arena_printf(arena, "%016llx%016llx", (unsigned long long)(hash >> 64),
				(unsigned long long)hash);
}
