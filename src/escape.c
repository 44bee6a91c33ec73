/*
 * escape.c - text escaped for each medium a user sees it in (cgmap/escape.h).
 *
 * In:  any NUL-terminated bytes (NULL is treated as "").  Out: appended to a
 * caller-owned cgm_strbuf; nothing is allocated that the caller must free
 * apart from the buffer itself.
 *
 * Every escaper walks the input as UTF-8, so the output is always valid
 * UTF-8 whatever the catalog held.  What a reader must see but a terminal,
 * browser or Markdown viewer would act on is shown escaped, never passed
 * raw: in HTML, Markdown and DOT labels a C0 control or DEL becomes its
 * "control picture" (U+2400 + c); a C1 control (U+0080..U+009F) or a bidi
 * control (U+200E/F, U+202A..E, U+2066..9, U+061C) becomes the text
 * \uXXXX; a byte that does not start a valid, shortest-form sequence (or a
 * surrogate, or a code point above U+10FFFF) becomes the text \xXX, one per
 * bad byte (JSON, which is data, gets U+FFFD).  Plain text (terminals) shows
 * every control as \t, \n, \r or \xXX.  DOT node names are escaped
 * injectively (cgm_escape_dot_id): two different ids never become one node.
 */
#include "cgmap/escape.h"
#include "cgmap/hash.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define REPLACEMENT_CHAR 0xFFFD
/* walk() hands an invalid byte b to the escapers as BAD_BYTE | b. */
#define BAD_BYTE 0x80000000u

/* Decode one code point at s (s[0] != 0).  Returns the bytes it takes, or 0
 * when s does not start a valid sequence. */
static size_t utf8_decode(const unsigned char *s, uint32_t *cp)
{
	unsigned char c = s[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	size_t len;
	uint32_t min, value;
	if (c >= 0xC2 && c <= 0xDF) {
		len = 2, min = 0x80, value = c & 0x1F;
	} else if (c >= 0xE0 && c <= 0xEF) {
		len = 3, min = 0x800, value = c & 0x0F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4, min = 0x10000, value = c & 0x07;
	} else {
		return 0; /* continuation byte, overlong lead C0/C1, or F5..FF */
	}
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80) /* also stops at the terminating NUL */
			return 0;
		value = (value << 6) | (s[i] & 0x3F);
	}
	if (value < min || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF))
		return 0;
	*cp = value;
	return len;
}

static void put_utf8(cgm_strbuf *out, uint32_t cp)
{
	char b[4];
	size_t n;
	if (cp < 0x80) {
		b[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xC0 | (cp >> 6));
		b[1] = (char)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xE0 | (cp >> 12));
		b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		b[2] = (char)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		b[0] = (char)(0xF0 | (cp >> 18));
		b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
		b[3] = (char)(0x80 | (cp & 0x3F));
		n = 4;
	}
	cgm_strbuf_add(out, b, n);
}

/* U+2400..U+241F show C0 controls, U+2421 shows DEL. */
static void put_control_picture(cgm_strbuf *out, uint32_t cp)
{
	put_utf8(out, cp == 0x7F ? 0x2421 : 0x2400 + cp);
}

static bool is_c1_control(uint32_t cp)
{
	return cp >= 0x80 && cp <= 0x9F;
}

/* The invisible characters that reorder the text around them. */
static bool is_bidi_control(uint32_t cp)
{
	return cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
	       (cp >= 0x2066 && cp <= 0x2069) || cp == 0x061C;
}

/* A C1 or bidi control, or an invalid byte: what no medium shows raw. */
static bool is_hidden(uint32_t cp)
{
	return (cp & BAD_BYTE) || is_c1_control(cp) || is_bidi_control(cp);
}

/* The visible form of a hidden character: \xXX for an invalid byte,
 * \uXXXX for a code point; `backslash` is how the medium writes one
 * backslash ("\\" inside a DOT string). */
static void put_hidden(cgm_strbuf *out, uint32_t cp, const char *backslash)
{
	cgm_strbuf_puts(out, backslash);
	if (cp & BAD_BYTE)
		cgm_strbuf_printf(out, "x%02X", (unsigned)(cp & 0xFF));
	else
		cgm_strbuf_printf(out, "u%04X", (unsigned)cp);
}

/* Calls emit(out, cp) for every code point of s, with U+FFFD for each
 * invalid byte; the escapers differ only in emit. */
typedef void (*emit_fn)(cgm_strbuf *out, uint32_t cp, bool at_start);

/* The printable ASCII an escaper writes as it is, as a bitmap over the
 * bytes 0x20 to 0x7E (bit c - 0x20): every other byte (controls, DEL,
 * bytes of multibyte characters) goes to its emitter. */
typedef struct plain_set {
	uint64_t bits[2];
} plain_set;

#define PLAIN_BIT(c) (((c) - 0x20) < 64 ? (1ULL << ((c) - 0x20)) : 0)
#define PLAIN_BIT_HI(c) (((c) - 0x20) >= 64 ? (1ULL << ((c) - 0x20 - 64)) : 0)
/* Printable ASCII but the bytes named (up to five; repeat one to fill). */
#define PLAIN_BUT(a, b, c, d, e)                                                              \
	{ { ~(PLAIN_BIT(a) | PLAIN_BIT(b) | PLAIN_BIT(c) | PLAIN_BIT(d) | PLAIN_BIT(e)),       \
	    (~(PLAIN_BIT_HI(a) | PLAIN_BIT_HI(b) | PLAIN_BIT_HI(c) | PLAIN_BIT_HI(d) |          \
	       PLAIN_BIT_HI(e))) & ((1ULL << 31) - 1) } }

static const plain_set plain_dot = PLAIN_BUT('"', '\\', '&', '&', '&');
static const plain_set plain_json = PLAIN_BUT('"', '\\', '&', '<', '>');
static const plain_set plain_html = PLAIN_BUT('"', '\'', '&', '<', '>');
static const plain_set plain_none = { { 0, 0 } }; /* every code point emitted */

static inline bool is_plain(const plain_set *set, unsigned char c)
{
	unsigned i = (unsigned)c - 0x20;
	return i < 95 && (set->bits[i >> 6] >> (i & 63)) & 1;
}

/* Each code point of s to `emit` (an invalid byte b as BAD_BYTE | b,
 * at_start for the first), but the bytes of `plain`, which go in whole
 * runs as they are (names, labels, tooltips and pages are mostly such
 * text; a call per code point was a tenth of a site's time).  The buffer
 * reads as "" even when nothing is added. */
static void walk(cgm_strbuf *out, const char *s, emit_fn emit, const plain_set *plain)
{
	cgm_strbuf_add(out, "", 0);
	if (!s)
		return;
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		const unsigned char *run = p;
		while (is_plain(plain, *p))
			p++;
		if (p > run)
			cgm_strbuf_add(out, (const char *)run, (size_t)(p - run));
		if (!*p)
			break;
		uint32_t cp;
		size_t n = utf8_decode(p, &cp);
		if (n == 0) {
			cp = BAD_BYTE | *p;
			n = 1;
		}
		emit(out, cp, p == (const unsigned char *)s);
		p += n;
	}
}

/* DOT: inside "...", the lexer only knows \" ; labels and tooltips then
 * read backslash escapes (\n, \l, \N, \G ...), so a literal backslash must
 * be doubled.  Graphviz also decodes HTML entities in labels, so '&' is
 * written as &amp; to show "&lt;" as typed. */
static void emit_dot(cgm_strbuf *out, uint32_t cp, bool at_start)
{
	switch (cp) {
	case '"':
		cgm_strbuf_puts(out, "\\\"");
		return;
	case '\\':
		cgm_strbuf_puts(out, "\\\\");
		return;
	case '&':
		cgm_strbuf_puts(out, "&amp;");
		return;
	case '\n':
		cgm_strbuf_puts(out, "\\n");
		return;
	case '\r':
		return; /* CRLF bodies: the \n already breaks the line */
	case '\t':
		cgm_strbuf_putc(out, ' ');
		return;
	}
	if (cp < 0x20 || cp == 0x7F)
		put_control_picture(out, cp);
	else if (is_hidden(cp))
		put_hidden(out, cp, "\\\\");
	else
		put_utf8(out, cp);
}

void cgm_escape_dot(cgm_strbuf *out, const char *s)
{
	walk(out, s, emit_dot, &plain_dot);
}

/* Plain text for a terminal: every control shown as an escape, the rest
 * (backslashes too) as it is. */
static void emit_text(cgm_strbuf *out, uint32_t cp, bool at_start)
{
	(void)at_start;
	switch (cp) {
	case '\n':
		cgm_strbuf_puts(out, "\\n");
		return;
	case '\r':
		cgm_strbuf_puts(out, "\\r");
		return;
	case '\t':
		cgm_strbuf_puts(out, "\\t");
		return;
	}
	if (cp < 0x20 || cp == 0x7F)
		cgm_strbuf_printf(out, "\\x%02X", (unsigned)cp);
	else if (is_hidden(cp))
		put_hidden(out, cp, "\\");
	else
		put_utf8(out, cp);
}

/* A DOT node or cluster name: the text of a quoted string, one to one.
 * DOT's lexer turns only \" back into a quote and keeps every other
 * backslash, so each backslash of the name is doubled, and whatever is not
 * shown as it is becomes a backslash escape: \n \t \r, \xXX for another
 * control, DEL or an invalid byte, \uXXXX for a C1 or bidi control.  An
 * escape thus always starts with a single backslash and a letter, which a
 * name's own (doubled) backslashes never give.  '&' is &amp; as in labels
 * (Graphviz decodes entities): every '&' of the text starts one. */
static void emit_dot_id(cgm_strbuf *out, uint32_t cp, bool at_start)
{
	if (cp == '"' || cp == '\\' || cp == '&') { /* as in labels */
		emit_dot(out, cp, at_start);
		return;
	}
	emit_text(out, cp, at_start);
}

void cgm_escape_dot_id(cgm_strbuf *out, const char *s)
{
	walk(out, s, emit_dot_id, &plain_dot);
}

/* HTML text and attribute values alike.  Tab, LF and CR are allowed raw;
 * other controls are not valid HTML characters. */
static void emit_html(cgm_strbuf *out, uint32_t cp, bool at_start)
{
	switch (cp) {
	case '&':
		cgm_strbuf_puts(out, "&amp;");
		return;
	case '<':
		cgm_strbuf_puts(out, "&lt;");
		return;
	case '>':
		cgm_strbuf_puts(out, "&gt;");
		return;
	case '"':
		cgm_strbuf_puts(out, "&quot;");
		return;
	case '\'':
		cgm_strbuf_puts(out, "&#39;");
		return;
	case '\t':
	case '\n':
	case '\r':
		cgm_strbuf_putc(out, (char)cp);
		return;
	}
	if (cp < 0x20 || cp == 0x7F)
		put_control_picture(out, cp);
	else if (is_hidden(cp))
		put_hidden(out, cp, "\\");
	else
		put_utf8(out, cp);
}

void cgm_escape_html(cgm_strbuf *out, const char *s)
{
	walk(out, s, emit_html, &plain_html);
}

/* Element content: quotes mean nothing there. */
static const plain_set plain_html_content = PLAIN_BUT('&', '<', '>', '&', '&');

static void emit_html_content(cgm_strbuf *out, uint32_t cp, bool at_start)
{
	if (cp == '"' || cp == '\'')
		put_utf8(out, cp);
	else
		emit_html(out, cp, at_start);
}

void cgm_escape_html_content(cgm_strbuf *out, const char *s)
{
	walk(out, s, emit_html_content, &plain_html_content);
}

/* JSON: besides what the grammar demands, '<', '>' and '&' are written as
 * \u escapes, and so are U+2028/U+2029, so the text may sit inside an HTML
 * <script> block (the site embeds the graph) without ending it. */
static void emit_json(cgm_strbuf *out, uint32_t cp, bool at_start)
{
	if (cp & BAD_BYTE)
		cp = REPLACEMENT_CHAR;
	switch (cp) {
	case '"':
		cgm_strbuf_puts(out, "\\\"");
		return;
	case '\\':
		cgm_strbuf_puts(out, "\\\\");
		return;
	case '\n':
		cgm_strbuf_puts(out, "\\n");
		return;
	case '\r':
		cgm_strbuf_puts(out, "\\r");
		return;
	case '\t':
		cgm_strbuf_puts(out, "\\t");
		return;
	case '\b':
		cgm_strbuf_puts(out, "\\b");
		return;
	case '\f':
		cgm_strbuf_puts(out, "\\f");
		return;
	}
	if (cp < 0x20 || cp == 0x7F || cp == '<' || cp == '>' || cp == '&' || cp == 0x2028 ||
	    cp == 0x2029)
		cgm_strbuf_printf(out, "\\u%04x", (unsigned)cp);
	else
		put_utf8(out, cp);
}

void cgm_escape_json(cgm_strbuf *out, const char *s)
{
	walk(out, s, emit_json, &plain_json);
}

/* JSON text a page's script shows as it is (textContent): what
 * emit_html shows visibly (a control as its picture, a C1 or bidi control
 * or a bad byte as the text \uXXXX or \xXX), the rest as emit_json writes
 * it. */
static void emit_json_visible(cgm_strbuf *out, uint32_t cp, bool at_start)
{
	if (cp != '\n' && cp != '\r' && cp != '\t' && (cp < 0x20 || cp == 0x7F))
		put_control_picture(out, cp);
	else if (is_hidden(cp))
		put_hidden(out, cp, "\\\\"); /* the text's backslash, escaped for JSON */
	else
		emit_json(out, cp, at_start);
}

void cgm_escape_json_visible(cgm_strbuf *out, const char *s)
{
	walk(out, s, emit_json_visible, &plain_json);
}

/* Markdown (CommonMark / GitHub tables): every ASCII punctuation character
 * with a meaning is backslash-escaped, which CommonMark always renders as
 * the bare character; '|' so a table cell does not split.  A line break
 * would end a table row, so it becomes <br>.  '-', '+' and '=' only mean
 * something at the start of a line (lists, setext headings), the only place
 * they are escaped. */
static void emit_markdown(cgm_strbuf *out, uint32_t cp, bool at_start)
{
	if (cp != 0 && cp < 0x80 && strchr("\\`*_{}[]()#|~<>&!", (int)cp)) {
		cgm_strbuf_putc(out, '\\');
		cgm_strbuf_putc(out, (char)cp);
		return;
	}
	if (at_start && (cp == '-' || cp == '+' || cp == '=')) {
		cgm_strbuf_putc(out, '\\');
		cgm_strbuf_putc(out, (char)cp);
		return;
	}
	switch (cp) {
	case '\n':
		cgm_strbuf_puts(out, "<br>");
		return;
	case '\r':
		return;
	case '\t':
		cgm_strbuf_putc(out, ' ');
		return;
	}
	if (cp < 0x20 || cp == 0x7F)
		put_control_picture(out, cp);
	else if (is_hidden(cp))
		put_hidden(out, cp, "\\"); /* "\\u" is no Markdown escape: shown as is */
	else
		put_utf8(out, cp);
}

void cgm_escape_markdown(cgm_strbuf *out, const char *s)
{
	size_t start = out->len;
	walk(out, s, emit_markdown, &plain_none);
	/* "1. x" or "1) x" at the start would open an ordered list. */
	size_t digits = 0;
	while (start + digits < out->len && out->data[start + digits] >= '0' &&
	       out->data[start + digits] <= '9')
		digits++;
	if (digits > 0 && start + digits < out->len && out->data[start + digits] == '.') {
		cgm_strbuf_putc(out, ' '); /* room for the backslash */
		memmove(out->data + start + digits + 1, out->data + start + digits,
			out->len - 1 - (start + digits));
		out->data[start + digits] = '\\';
	}
	/* ')' is always escaped above, so only '.' needs the fix-up. */
}

void cgm_escape_text(cgm_strbuf *out, const char *s)
{
	walk(out, s, emit_text, &plain_none);
}

bool cgm_escape_is_plain(const char *s)
{
	if (!s)
		return true;
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		uint32_t cp;
		size_t n = utf8_decode(p, &cp);
		if (n == 0 || cp < 0x20 || cp == 0x7F || is_hidden(cp))
			return false;
		p += n;
	}
	return true;
}

/* Longest readable part of a file name; the hash after it keeps the name
 * unique, and the whole stays well under the usual 255-byte limit. */
#define FILENAME_READABLE_MAX 120

/* The readable part is the id up to its argument list: the hash tells
 * overloads apart, and "_28integer_29" in every link was a tenth of a
 * large site's bytes. */
static void put_filename(cgm_strbuf *out, const char *s, bool wide)
{
	static const char hex[] = "0123456789ABCDEF";
	if (!s)
		s = "";
	uint64_t hash = cgm_fnv1a(s); /* of the whole id */
	size_t written = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p && *p != '('; p++) {
		unsigned char c = *p;
		bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
			    (c >= '0' && c <= '9') || c == '_' || c == '-' ||
			    (c == '.' && p != (const unsigned char *)s); /* no hidden files */
		size_t need = keep ? 1 : 3;
		if (written + need > FILENAME_READABLE_MAX)
			break;
		if (keep) {
			cgm_strbuf_putc(out, (char)c);
		} else {
			char enc[3] = { '_', hex[c >> 4], hex[c & 0x0F] };
			cgm_strbuf_add(out, enc, 3);
		}
		written += need;
	}
	if (wide)
		cgm_strbuf_printf(out, "%s%016llx", written ? "-" : "", (unsigned long long)hash);
	else
		cgm_strbuf_printf(out, "%s%08x", written ? "-" : "",
				  (unsigned)(uint32_t)(hash ^ (hash >> 32)));
}

void cgm_escape_filename(cgm_strbuf *out, const char *s)
{
	put_filename(out, s, false);
}

void cgm_escape_filename_wide(cgm_strbuf *out, const char *s)
{
	put_filename(out, s, true);
}

void cgm_escape_markdown_code(cgm_strbuf *out, const char *s)
{
	if (strchr(s, '`') || strchr(s, '|') || !cgm_escape_is_plain(s)) {
		cgm_escape_markdown(out, s);
		return;
	}
	cgm_strbuf_putc(out, '`');
	cgm_strbuf_puts(out, s);
	cgm_strbuf_putc(out, '`');
}
