/*
 * sqlvars.c - psql's variables in SQL files (see sqlvars.h).
 *
 * In: a file's text, the session's variables.  Out: a substituted copy of
 * the text (malloc'd, the caller frees it) or NULL; the variables live in
 * malloc'd strings the vars own (cgm_psql_vars_free).
 *
 * Meta-command arguments follow psql's rules for its "normal" arguments:
 * whitespace separates them, \set joins them; 'single quotes' with ''
 * and C-like escapes (\n \t \b \r \f, octal, \xHH, any other character
 * quoted by a backslash); "double quotes" kept as written; variables
 * substituted outside single quotes; `backquotes` not run (the value is
 * then unknown); `\\` ends the command.
 */
#include "sqlvars.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cgmap/arena.h"
#include "cgmap/error.h"
#include "cgmap/limits.h"
#include "cgmap/strbuf.h"
#include "sqlfile.h"
#include "sqllex.h"

static char *copy_of(const char *s, size_t n)
{
	char *out = cgm_xrealloc(NULL, n + 1);
	memcpy(out, s, n);
	out[n] = '\0';
	return out;
}

static int find(const cgm_psql_vars *vars, const char *name, size_t len)
{
	for (int i = 0; i < vars->n; i++)
		if (strncmp(vars->names[i], name, len) == 0 && vars->names[i][len] == '\0')
			return i;
	return -1;
}

void cgm_psql_vars_set(cgm_psql_vars *vars, const char *name, size_t name_len, const char *value)
{
	int at = find(vars, name, name_len);
	if (!value) {
		if (at >= 0) {
			free(vars->names[at]);
			free(vars->values[at]);
			vars->names[at] = vars->names[vars->n - 1];
			vars->values[at] = vars->values[vars->n - 1];
			vars->n--;
		}
		return;
	}
	if (at >= 0) {
		free(vars->values[at]);
		vars->values[at] = copy_of(value, strlen(value));
		return;
	}
	if (vars->n == vars->cap) {
		vars->cap = vars->cap ? vars->cap * 2 : 8;
		vars->names = cgm_xrealloc(vars->names, sizeof(char *) * (size_t)vars->cap);
		vars->values = cgm_xrealloc(vars->values, sizeof(char *) * (size_t)vars->cap);
	}
	vars->names[vars->n] = copy_of(name, name_len);
	vars->values[vars->n] = copy_of(value, strlen(value));
	vars->n++;
}

const char *cgm_psql_vars_get(const cgm_psql_vars *vars, const char *name, size_t name_len)
{
	int at = vars ? find(vars, name, name_len) : -1;
	return at >= 0 ? vars->values[at] : NULL;
}

void cgm_psql_vars_copy(cgm_psql_vars *to, const cgm_psql_vars *from)
{
	memset(to, 0, sizeof(*to));
	for (int i = 0; from && i < from->n; i++)
		cgm_psql_vars_set(to, from->names[i], strlen(from->names[i]), from->values[i]);
}

void cgm_psql_vars_free(cgm_psql_vars *vars)
{
	for (int i = 0; i < vars->n; i++) {
		free(vars->names[i]);
		free(vars->values[i]);
	}
	free(vars->names);
	free(vars->values);
	memset(vars, 0, sizeof(*vars));
}

size_t cgm_psql_name_length(const char *s)
{
	size_t n = 0;
	while (cgm_psql_var_char((unsigned char)s[n]))
		n++;
	return n;
}

int cgm_psql_vars_assign(cgm_psql_vars *vars, const char *assignment)
{
	const char *eq = strchr(assignment, '=');
	size_t n = cgm_psql_name_length(assignment);
	if (!eq || n == 0 || assignment + n != eq)
		return cgm_error(CGM_EUSAGE,
				 "option '--set' takes NAME=VALUE (a psql variable: letters, digits and "
				 "underscores), not '%s'",
				 assignment);
	if (vars)
		cgm_psql_vars_set(vars, assignment, n, eq + 1);
	return 0;
}

/* The value as :'NAME' gives it: a literal, quotes doubled; with
 * backslashes, an E'' literal with them doubled too, after a space (as
 * libpq's PQescapeLiteral writes it). */
static void add_literal(cgm_strbuf *out, const char *v)
{
	bool backslash = strchr(v, '\\') != NULL;
	cgm_strbuf_puts(out, backslash ? " E'" : "'");
	for (; *v; v++) {
		if (*v == '\'' || (*v == '\\' && backslash))
			cgm_strbuf_putc(out, *v);
		cgm_strbuf_putc(out, *v);
	}
	cgm_strbuf_putc(out, '\'');
}

static void add_identifier(cgm_strbuf *out, const char *v)
{
	cgm_strbuf_putc(out, '"');
	for (; *v; v++) {
		if (*v == '"')
			cgm_strbuf_putc(out, '"');
		cgm_strbuf_putc(out, *v);
	}
	cgm_strbuf_putc(out, '"');
}

/* The variable reference at s[i] (a ':' not starting "::") substituted
 * into out: the index past it, or i when there is none psql would
 * substitute (not a reference, or its variable is not set). */
static size_t reference(const char *s, size_t i, const cgm_psql_vars *vars, cgm_strbuf *out)
{
	char c = s[i + 1];
	if (c == '\'' || c == '"') {
		size_t n = cgm_psql_name_length(s + i + 2);
		const char *v = n && s[i + 2 + n] == c ? cgm_psql_vars_get(vars, s + i + 2, n) : NULL;
		if (!v)
			return i;
		if (c == '\'')
			add_literal(out, v);
		else
			add_identifier(out, v);
		return i + 3 + n;
	}
	if (c == '{' && s[i + 2] == '?') {
		size_t n = cgm_psql_name_length(s + i + 3);
		if (!n || s[i + 3 + n] != '}')
			return i;
		cgm_strbuf_puts(out, cgm_psql_vars_get(vars, s + i + 3, n) ? "TRUE" : "FALSE");
		return i + 4 + n;
	}
	size_t n = cgm_psql_name_length(s + i + 1);
	const char *v = n ? cgm_psql_vars_get(vars, s + i + 1, n) : NULL;
	if (!v)
		return i;
	cgm_strbuf_puts(out, v);
	return i + 1 + n;
}

/* One argument of a meta-command from s[*i] (before `end`) into out, by
 * psql's rules (the banner); *unknown when it runs a shell command. */
static void argument(const char *s, size_t *i, size_t end, const cgm_psql_vars *vars, cgm_strbuf *out,
		     bool *unknown)
{
	size_t p = *i;
	while (p < end && !strchr(" \t\r\f", s[p])) {
		char c = s[p];
		if (c == '\'') {
			for (p++; p < end;) {
				if (s[p] == '\'') {
					if (p + 1 < end && s[p + 1] == '\'') {
						cgm_strbuf_putc(out, '\'');
						p += 2;
						continue;
					}
					p++;
					break;
				}
				if (s[p] != '\\' || p + 1 >= end) {
					cgm_strbuf_putc(out, s[p++]);
					continue;
				}
				char e = s[++p];
				static const char plain[] = "ntbrf", made[] = "\n\t\b\r\f";
				const char *k = strchr(plain, e);
				if (e && k) {
					cgm_strbuf_putc(out, made[k - plain]);
					p++;
				} else if (e >= '0' && e <= '7') {
					int v = 0;
					for (int d = 0; d < 3 && p < end && s[p] >= '0' && s[p] <= '7'; d++)
						v = v * 8 + (s[p++] - '0');
					cgm_strbuf_putc(out, (char)v);
				} else if (e == 'x' && p + 1 < end && strchr("0123456789abcdefABCDEF", s[p + 1]) && s[p + 1]) {
					int v = 0;
					p++;
					for (int d = 0; d < 2 && p < end && s[p] && strchr("0123456789abcdefABCDEF", s[p]); d++, p++)
						v = v * 16 + (s[p] <= '9' ? s[p] - '0' : (s[p] | 0x20) - 'a' + 10);
					cgm_strbuf_putc(out, (char)v);
				} else {
					cgm_strbuf_putc(out, e);
					p++;
				}
			}
		} else if (c == '"') {
			size_t q = p + 1;
			while (q < end && s[q] != '"')
				q++;
			q += q < end;
			cgm_strbuf_add(out, s + p, q - p);
			p = q;
		} else if (c == '`') {
			*unknown = true;
			p++;
			while (p < end && s[p] != '`')
				p++;
			p += p < end;
		} else if (c == '\\' && p + 1 < end && s[p + 1] == '\\') {
			break; /* the end of the meta-command */
		} else if (c == ':' && s[p + 1] != ':') {
			size_t past = reference(s, p, vars, out);
			if (past == p)
				cgm_strbuf_putc(out, s[p++]);
			else
				p = past;
		} else {
			cgm_strbuf_putc(out, c);
			p++;
		}
	}
	*i = p;
}

static size_t skip_blanks(const char *s, size_t i, size_t end)
{
	while (i < end && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\f'))
		i++;
	return i;
}

/* \set or \unset at s[i .. end) applied to vars; false when the line is
 * neither.  The command word stands alone: "\setenv" is another. */
static bool assignment(const char *s, size_t i, size_t end, cgm_psql_vars *vars)
{
	bool unset = strncmp(s + i, "\\unset", 6) == 0 && (i + 6 == end || strchr(" \t\r\f", s[i + 6]));
	bool set = strncmp(s + i, "\\set", 4) == 0 && (i + 4 == end || strchr(" \t\r\f", s[i + 4]));
	if (!set && !unset)
		return false;
	size_t p = skip_blanks(s, i + (set ? 4 : 6), end);
	cgm_strbuf name = CGM_STRBUF_INIT, value = CGM_STRBUF_INIT;
	bool unknown = false;
	argument(s, &p, end, vars, &name, &unknown);
	const char *n = cgm_strbuf_cstr(&name);
	/* psql refuses a name that is not one (and lists them all when none
	 * is given): nothing changes. */
	if (name.len && cgm_psql_name_length(n) == name.len && !unknown) {
		if (unset) {
			cgm_psql_vars_set(vars, n, name.len, NULL);
		} else {
			for (p = skip_blanks(s, p, end); p < end; p = skip_blanks(s, p, end)) {
				if (s[p] == '\\' && p + 1 < end && s[p + 1] == '\\')
					break;
				argument(s, &p, end, vars, &value, &unknown);
			}
			bool known = !unknown && value.len <= CGM_MAX_PSQL_VALUE;
			cgm_psql_vars_set(vars, n, name.len, known ? cgm_strbuf_cstr(&value) : NULL);
		}
	}
	cgm_strbuf_free(&name);
	cgm_strbuf_free(&value);
	return true;
}

void cgm_psql_marks_free(cgm_psql_marks *marks)
{
	for (int i = 0; i < marks->n; i++)
		cgm_psql_vars_free(&marks->vars[i]);
	free(marks->offsets);
	free(marks->vars);
	memset(marks, 0, sizeof(*marks));
}

const cgm_psql_vars *cgm_psql_marks_at(const cgm_psql_marks *marks, size_t offset)
{
	for (int i = 0; marks && i < marks->n; i++)
		if (marks->offsets[i] == offset)
			return &marks->vars[i];
	return NULL;
}

/* psql's booleans (ParseVariableBool): a prefix of true, false, yes or
 * no, on or off (two letters at least), 1 or 0, in any case. */
static bool psql_bool(const char *v, bool *value)
{
	size_t n = strlen(v);
	if (n == 0)
		return false;
	static const struct { const char *word; size_t least; bool value; } words[] = {
		{ "true", 1, true }, { "false", 1, false }, { "yes", 1, true }, { "no", 1, false },
		{ "on", 2, true }, { "off", 2, false }, { "1", 1, true }, { "0", 1, false },
	};
	for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
		if (n >= words[k].least && n <= strlen(words[k].word) && strncasecmp(v, words[k].word, n) == 0) {
			*value = words[k].value;
			return true;
		}
	return false;
}

/* psql's \if, \elif, \else, \endif: which branch runs.  Nested deeper
 * than this, a conditional is taken as running (what cgmap read before
 * it knew conditionals). */
#define CONDITIONALS_DEEP 64

typedef struct branch_frame {
	bool outer;  /* the text around the \if runs */
	bool taken;  /* a branch of it ran, or is running */
	bool on;     /* this branch runs */
} branch_frame;

typedef struct branches {
	branch_frame frame[CONDITIONALS_DEEP];
	int depth, past; /* frames kept; \ifs deeper than them */
} branches;

static bool running(const branches *b)
{
	return b->depth == 0 || b->frame[b->depth - 1].on;
}

enum { COND_NONE, COND_IF, COND_ELIF, COND_ELSE, COND_ENDIF };

static int conditional(const char *s, size_t i, size_t end)
{
	static const struct { const char *cmd; int kind; } cmds[] = {
		{ "\\if", COND_IF }, { "\\elif", COND_ELIF }, { "\\else", COND_ELSE }, { "\\endif", COND_ENDIF },
	};
	for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
		size_t n = strlen(cmds[k].cmd);
		if (i + n <= end && strncmp(s + i, cmds[k].cmd, n) == 0 &&
		    (i + n == end || strchr(" \t\r\f\\", s[i + n])))
			return cmds[k].kind;
	}
	return COND_NONE;
}

/* The value of a \if or \elif at s[i .. end): its argument, variables
 * substituted, as a boolean; what psql cannot read as one is false. */
static bool condition(const char *s, size_t i, size_t end, const cgm_psql_vars *vars)
{
	while (i < end && s[i] != ' ' && s[i] != '\t')
		i++;
	i = skip_blanks(s, i, end);
	cgm_strbuf arg = CGM_STRBUF_INIT;
	bool unknown = false, value = false;
	argument(s, &i, end, vars, &arg, &unknown);
	if (unknown || !psql_bool(cgm_strbuf_cstr(&arg), &value))
		value = false;
	cgm_strbuf_free(&arg);
	return value;
}

/* The conditional `kind` at s[i .. end) applied to b; its condition is
 * evaluated only when the branch it opens could run. */
static void branch(branches *b, int kind, const char *s, size_t i, size_t end, const cgm_psql_vars *vars)
{
	bool on = running(b);
	if (kind == COND_IF) {
		if (b->depth == CONDITIONALS_DEEP) {
			b->past++;
			return;
		}
		bool v = on && condition(s, i, end, vars);
		b->frame[b->depth].outer = on;
		b->frame[b->depth].taken = v;
		b->frame[b->depth].on = v;
		b->depth++;
		return;
	}
	if (b->past > 0) {
		b->past -= kind == COND_ENDIF;
		return;
	}
	if (b->depth == 0)
		return; /* psql refuses it: nothing changes */
	branch_frame *f = &b->frame[b->depth - 1];
	if (kind == COND_ELIF) {
		bool v = f->outer && !f->taken && condition(s, i, end, vars);
		f->on = v;
		f->taken = f->taken || v;
	} else if (kind == COND_ELSE) {
		f->on = f->outer && !f->taken;
		f->taken = true;
	} else {
		b->depth--;
	}
}

/* s[from .. to) into out as blanks, newlines kept (a branch that does not
 * run: the lines stay where they were). */
static void add_blanks(cgm_strbuf *out, const char *s, size_t from, size_t to)
{
	for (size_t k = from; k < to; k++)
		cgm_strbuf_putc(out, s[k] == '\n' ? '\n' : ' ');
}

char *cgm_psql_substitute(const char *s, cgm_psql_vars *vars, cgm_psql_marks *marks)
{
	cgm_strbuf out = CGM_STRBUF_INIT;
	size_t i = 0, copied = 0, stmt_start = 0;
	bool changed = false;
	branches b = { .depth = 0 };
	/* Past this the references stay as written (CGM_MAX_PSQL_GROWTH). */
	size_t most = strlen(s) + CGM_MAX_PSQL_GROWTH;
	while (s[i]) {
		char c = s[i];
		bool on = running(&b);
		size_t after = cgm_sql_skip_opaque(s, i);
		if (after != i) {
			if (!on) {
				add_blanks(&out, s, i, after);
				copied = after;
				changed = true;
			}
			i = after;
			continue;
		}
		if (c == '\\') {
			size_t end = i;
			while (s[end] && s[end] != '\n')
				end++;
			int kind = conditional(s, i, end);
			if (kind != COND_NONE) {
				/* The line stays (psql's stripping blanks it); what
				 * follows runs or not. */
				branch(&b, kind, s, i, end, vars);
				if (!running(&b)) {
					cgm_strbuf_add(&out, s + copied, end - copied);
					copied = end;
				}
				i = end;
				continue;
			}
			if (!on) {
				add_blanks(&out, s, i, end);
				copied = end;
				changed = true;
				i = end;
				continue;
			}
			if (assignment(s, i, end, vars)) {
				i = end; /* the line stays: psql's stripping blanks it */
				continue;
			}
			size_t word;
			if (marks && sqlfile_include_kind(s + i, &word)) {
				if (marks->n == marks->cap) {
					marks->cap = marks->cap ? marks->cap * 2 : 8;
					marks->offsets = cgm_xrealloc(marks->offsets, sizeof(size_t) * (size_t)marks->cap);
					marks->vars = cgm_xrealloc(marks->vars, sizeof(cgm_psql_vars) * (size_t)marks->cap);
				}
				marks->offsets[marks->n] = out.len + (i - copied);
				cgm_psql_vars_copy(&marks->vars[marks->n++], vars);
			}
			/* Other meta-commands' arguments (an include's file name)
			 * get the variables too. */
			cgm_strbuf line = CGM_STRBUF_INIT;
			bool any = false;
			for (size_t p = i; p < end;) {
				if (s[p] == ':' && s[p + 1] != ':') {
					size_t past = reference(s, p, vars, &line);
					if (past != p) {
						any = true;
						p = past;
						continue;
					}
				}
				if (s[p] == '\'' || s[p] == '`') {
					/* quoted: as written */
					size_t q = p + 1;
					while (q < end && s[q] != s[p])
						q++;
					q += q < end;
					cgm_strbuf_add(&line, s + p, q - p);
					p = q;
					continue;
				}
				cgm_strbuf_putc(&line, s[p++]);
			}
			if (any && out.len + (i - copied) + line.len <= most) {
				cgm_strbuf_add(&out, s + copied, i - copied);
				cgm_strbuf_add(&out, line.data, line.len);
				copied = end;
				changed = true;
			}
			cgm_strbuf_free(&line);
			i = end;
			continue;
		}
		if (!on) {
			add_blanks(&out, s, i, i + 1);
			copied = ++i;
			changed = true;
			continue;
		}
		if (c == ';') {
			if (sqlfile_copy_from_stdin(s, stmt_start, i)) {
				/* COPY's data lines, to "\.", as they are. */
				size_t data;
				i = sqlfile_copy_data(s, i, &data);
			} else {
				i++;
			}
			stmt_start = i;
			continue;
		}
		if (c == ':' && s[i + 1] == ':') {
			i += 2; /* a cast */
			continue;
		}
		if (c == ':' && (vars->n || s[i + 1] == '{')) {
			cgm_strbuf sub = CGM_STRBUF_INIT;
			size_t past = reference(s, i, vars, &sub);
			if (past != i && out.len + (i - copied) + sub.len <= most) {
				cgm_strbuf_add(&out, s + copied, i - copied);
				cgm_strbuf_add(&out, sub.data, sub.len);
				copied = past;
				changed = true;
				i = past;
			} else {
				i++;
			}
			cgm_strbuf_free(&sub);
			continue;
		}
		i++;
	}
	if (!changed) {
		cgm_strbuf_free(&out);
		return NULL;
	}
	cgm_strbuf_add(&out, s + copied, i - copied);
	return (char *)out.data; /* the strbuf's buffer, the caller frees it */
}
