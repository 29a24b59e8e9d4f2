// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The assembler's lexer (asm_int.h): tokens of the text with their line and column, and
 * the values read from them (identifiers, numbers, fp32 bits), with the messages that
 * say what was expected.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "asm_int.h"

void *asm_push(struct as *a, struct vec *v)
{
	if (v->n == v->cap) {
		size_t nc = v->cap ? v->cap * 2 : 16;
		void *q = realloc(v->p, nc * v->esz);

		if (!q) {
			a->fatal = -ENOMEM;
			return NULL;
		}
		v->p = q;
		v->cap = nc;
	}
	memset((char *)v->p + v->n * v->esz, 0, v->esz);
	return (char *)v->p + v->n++ * v->esz;
}

void asm_diag(struct as *a, unsigned int line, unsigned int col, const char *fmt, ...)
{
	char msg[sizeof(a->first->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (a->nerr == 0 && a->first) {
		a->first->line = line;
		a->first->col = col;
		memcpy(a->first->msg, msg, sizeof(msg));
	}
	if (a->errs && a->nerr < ASM_MAX_ERRORS) {
		if (line)
			fprintf(a->errs, "%s:%u:%u: error: %s\n", a->filename, line, col, msg);
		else
			fprintf(a->errs, "%s: error: %s\n", a->filename, msg);
	}
	if (a->errs && a->nerr == ASM_MAX_ERRORS)
		fprintf(a->errs, "%s: too many errors; stopping\n", a->filename);
	a->nerr++;
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_alnum(char c)
{
	return is_alpha(c) || is_digit(c);
}

/* The text is not NUL-terminated: never run str*() over it. */
bool asm_all_digits(const char *p, size_t n, bool hex)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!is_digit(p[i]) && !(hex && ((p[i] >= 'a' && p[i] <= 'f') ||
						 (p[i] >= 'A' && p[i] <= 'F'))))
			return false;
	return n > 0;
}

/* Advance one byte of the text, keeping line and column. */
static void adv(struct as *a)
{
	if (a->text[a->pos] == '\n') {
		a->line++;
		a->col = 1;
	} else {
		a->col++;
	}
	a->pos++;
}

/* Lex one token; returns false after reporting a lexical error (skips the line). */
bool asm_lex(struct as *a, struct tok *t)
{
	char c;

again:
	while (a->pos < a->len && (a->text[a->pos] == ' ' || a->text[a->pos] == '\t' ||
				   a->text[a->pos] == '\r'))
		adv(a);
	t->line = a->line;
	t->col = a->col;
	t->p = a->text + a->pos;
	t->len = 0;
	if (a->pos >= a->len) {
		t->kind = T_EOF;
		return true;
	}
	c = a->text[a->pos];
	if (c == '#') {
		while (a->pos < a->len && a->text[a->pos] != '\n')
			adv(a);
		goto again;
	}
	if (c == '/' && a->pos + 1 < a->len && a->text[a->pos + 1] == '/') {
		while (a->pos < a->len && a->text[a->pos] != '\n')
			adv(a);
		goto again;
	}
	if (c == '\n') {
		t->kind = T_NL;
		t->len = 1;
		adv(a);
		return true;
	}
	if (is_alpha(c)) {
		while (a->pos < a->len && is_alnum(a->text[a->pos]))
			adv(a);
		t->kind = T_IDENT;
		t->len = (size_t)(a->text + a->pos - t->p);
		return true;
	}
	if (is_digit(c) || ((c == '-' || c == '+') && a->pos + 1 < a->len &&
			    (is_alnum(a->text[a->pos + 1]) || a->text[a->pos + 1] == '.')) ||
	    (c == '.' && a->pos + 1 < a->len && is_digit(a->text[a->pos + 1]))) {
		bool hex;

		adv(a);
		hex = c == '0' && a->pos < a->len && (a->text[a->pos] == 'x' ||
						       a->text[a->pos] == 'X');
		while (a->pos < a->len) {
			char d = a->text[a->pos];

			if (is_digit(d) || d == '.' || d == '_' ||
			    (d >= 'a' && d <= 'z' && d != 'x') || (d >= 'A' && d <= 'Z' && d != 'X') ||
			    ((d == 'x' || d == 'X') && a->text + a->pos == t->p + 1)) {
				adv(a);
			} else if ((d == '-' || d == '+') && !hex &&
				   (a->text[a->pos - 1] == 'e' || a->text[a->pos - 1] == 'E')) {
				adv(a);
			} else {
				break;
			}
		}
		t->kind = T_NUM;
		t->len = (size_t)(a->text + a->pos - t->p);
		return true;
	}
	if (c == '"') {
		a->slen = 0;
		adv(a);
		for (;;) {
			char d;

			if (a->pos >= a->len || a->text[a->pos] == '\n') {
				asm_diag(a, t->line, t->col, "unterminated string (a string ends with \" "
					 "on the same line)");
				return false;
			}
			d = a->text[a->pos];
			if (d == '"') {
				adv(a);
				break;
			}
			if (d == '\\') {
				unsigned int v = 0, k;
				unsigned int ecol = a->col;

				adv(a);
				d = a->pos < a->len ? a->text[a->pos] : 0;
				if (d == '\\' || d == '"') {
					adv(a);
				} else if (d == 'n') {
					d = '\n';
					adv(a);
				} else if (d == 't') {
					d = '\t';
					adv(a);
				} else if (d == 'x') {
					adv(a);
					for (k = 0; k < 2; k++) {
						char h = a->pos < a->len ? a->text[a->pos] : 0;

						if (is_digit(h))
							v = v * 16 + (unsigned int)(h - '0');
						else if (h >= 'a' && h <= 'f')
							v = v * 16 + (unsigned int)(h - 'a' + 10);
						else if (h >= 'A' && h <= 'F')
							v = v * 16 + (unsigned int)(h - 'A' + 10);
						else
							break;
						adv(a);
					}
					if (k != 2 || !v) {
						asm_diag(a, t->line, ecol, "bad escape in string: \\x takes "
							 "two hex digits, not 00");
						return false;
					}
					d = (char)v;
				} else {
					asm_diag(a, t->line, ecol, "unknown escape in string (use \\\\, \\\", "
						 "\\n, \\t or \\xHH)");
					return false;
				}
			} else {
				if (!d) {
					asm_diag(a, t->line, a->col, "NUL byte in string");
					return false;
				}
				adv(a);
			}
			if (a->slen + 1 >= sizeof(a->sbuf)) {
				asm_diag(a, t->line, t->col, "string longer than %d bytes", ASM_MAX_STR - 1);
				return false;
			}
			a->sbuf[a->slen++] = d;
		}
		a->sbuf[a->slen] = 0;
		t->kind = T_STR;
		t->len = (size_t)(a->text + a->pos - t->p);
		return true;
	}
	if (c == '>' && a->pos + 1 < a->len && a->text[a->pos + 1] == '=') {
		adv(a);
		adv(a);
		t->kind = T_GE;
		t->len = 2;
		return true;
	}
	if (c && strchr("[]:,@.={}();", c)) {
		adv(a);
		t->kind = T_PUNCT;
		t->punct = c;
		t->len = 1;
		return true;
	}
	if ((unsigned char)c >= 0x20 && (unsigned char)c < 0x7f)
		asm_diag(a, t->line, t->col, "unexpected character '%c'", c);
	else
		asm_diag(a, t->line, t->col, "unexpected byte 0x%02x", (unsigned char)c);
	return false;
}

/* The current token (lexed on demand). false: a lexical error was reported. */
bool asm_peek(struct as *a)
{
	if (!a->peeked) {
		if (!asm_lex(a, &a->tok))
			return false;
		a->peeked = true;
	}
	return true;
}

void asm_take(struct as *a)
{
	a->peeked = false;
}

bool asm_tok_is(const struct tok *t, const char *word)
{
	return t->kind == T_IDENT && t->len == strlen(word) && !memcmp(t->p, word, t->len);
}

bool asm_tok_punct(const struct tok *t, char c)
{
	return t->kind == T_PUNCT && t->punct == c;
}

/* A short printable form of a token for messages. */
const char *asm_tok_desc(const struct tok *t, char *buf, size_t n)
{
	switch (t->kind) {
	case T_EOF:
		return "end of file";
	case T_NL:
		return "end of line";
	case T_STR:
		return "a string";
	default:
		snprintf(buf, n, "'%.*s'", (int)(t->len > 40 ? 40 : t->len), t->p);
		return buf;
	}
}

bool asm_expected(struct as *a, const char *what)
{
	char b[64];

	asm_diag(a, a->tok.line, a->tok.col, "expected %s, found %s", what,
		 asm_tok_desc(&a->tok, b, sizeof(b)));
	return false;
}

bool asm_expect_punct(struct as *a, char c, const char *what)
{
	if (!asm_peek(a))
		return false;
	if (!asm_tok_punct(&a->tok, c))
		return asm_expected(a, what);
	asm_take(a);
	return true;
}

bool asm_accept_punct(struct as *a, char c)
{
	if (asm_peek(a) && asm_tok_punct(&a->tok, c)) {
		asm_take(a);
		return true;
	}
	return false;
}

/* An identifier into buf (NUL-terminated). */
bool asm_ident(struct as *a, char *buf, size_t n, const char *what)
{
	if (!asm_peek(a))
		return false;
	if (a->tok.kind != T_IDENT)
		return asm_expected(a, what);
	if (a->tok.len >= n) {
		asm_diag(a, a->tok.line, a->tok.col, "%s is too long (at most %zu characters)", what,
			 n - 1);
		return false;
	}
	memcpy(buf, a->tok.p, a->tok.len);
	buf[a->tok.len] = 0;
	asm_take(a);
	return true;
}

/* An unsigned integer up to max. */
bool asm_uint(struct as *a, uint64_t max, uint64_t *v, const char *what)
{
	char buf[ASM_MAX_NUM], *end;
	unsigned long long x;

	if (!asm_peek(a))
		return false;
	if (a->tok.kind != T_NUM)
		return asm_expected(a, what);
	if (a->tok.len >= sizeof(buf) || a->tok.p[0] == '-' || a->tok.p[0] == '+' ||
	    a->tok.p[0] == '.')
		goto bad;
	memcpy(buf, a->tok.p, a->tok.len);
	buf[a->tok.len] = 0;
	errno = 0;
	x = strtoull(buf, &end, 0);
	if (*end || end == buf)
		goto bad;
	if (errno == ERANGE || x > max) {
		asm_diag(a, a->tok.line, a->tok.col, "%s %s is out of range (at most %llu)", what, buf,
			 (unsigned long long)max);
		return false;
	}
	*v = x;
	asm_take(a);
	return true;
bad:
	asm_diag(a, a->tok.line, a->tok.col, "expected %s, found '%.*s' (not an unsigned integer)",
		 what, (int)(a->tok.len > 40 ? 40 : a->tok.len), a->tok.p);
	return false;
}

bool asm_u32(struct as *a, uint32_t *v, const char *what)
{
	uint64_t x;

	if (!asm_uint(a, UINT32_MAX, &x, what))
		return false;
	*v = (uint32_t)x;
	return true;
}

bool asm_s32(struct as *a, int32_t *v, const char *what)
{
	char buf[ASM_MAX_NUM], *end;
	long long x;

	if (!asm_peek(a))
		return false;
	if (a->tok.kind != T_NUM)
		return asm_expected(a, what);
	if (a->tok.len >= sizeof(buf))
		goto bad;
	memcpy(buf, a->tok.p, a->tok.len);
	buf[a->tok.len] = 0;
	errno = 0;
	x = strtoll(buf, &end, 0);
	if (*end || end == buf)
		goto bad;
	if (errno == ERANGE || x < INT32_MIN || x > INT32_MAX) {
		asm_diag(a, a->tok.line, a->tok.col, "%s %s is out of range for a 32-bit signed "
			 "integer", what, buf);
		return false;
	}
	*v = (int32_t)x;
	asm_take(a);
	return true;
bad:
	asm_diag(a, a->tok.line, a->tok.col, "expected %s, found '%.*s' (not an integer)", what,
		 (int)(a->tok.len > 40 ? 40 : a->tok.len), a->tok.p);
	return false;
}

/*
 * An fp32 value as bits: a decimal or hex float, inf, nan, or 0x followed by hex digits
 * only (the raw bits, e.g. 0x7fc00001 for a NaN with a payload).
 */
bool asm_f32(struct as *a, uint32_t *bits, const char *what)
{
	char buf[ASM_MAX_NUM], *end;
	const char *s;
	float f;

	if (!asm_peek(a))
		return false;
	if (a->tok.kind != T_NUM && !asm_tok_is(&a->tok, "inf") && !asm_tok_is(&a->tok, "nan"))
		return asm_expected(a, what);
	if (a->tok.len >= sizeof(buf))
		goto bad;
	memcpy(buf, a->tok.p, a->tok.len);
	buf[a->tok.len] = 0;
	s = buf;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && s[2] &&
	    strspn(s + 2, "0123456789abcdefABCDEF") == strlen(s + 2)) {
		unsigned long long x;

		errno = 0;
		x = strtoull(s, &end, 16);
		if (errno == ERANGE || x > UINT32_MAX) {
			asm_diag(a, a->tok.line, a->tok.col, "%s %s: raw bits are at most 0xffffffff",
				 what, buf);
			return false;
		}
		*bits = (uint32_t)x;
		asm_take(a);
		return true;
	}
	errno = 0;
	f = strtof(s, &end);
	if (*end || end == s)
		goto bad;
	*bits = nd_f32_bits(f);
	asm_take(a);
	return true;
bad:
	asm_diag(a, a->tok.line, a->tok.col, "expected %s, found '%.*s' (not a number)", what,
		 (int)(a->tok.len > 40 ? 40 : a->tok.len), a->tok.p);
	return false;
}

/* The end of a statement: a newline or the end of the file. */
bool asm_end_of_stmt(struct as *a)
{
	char b[64];

	if (!asm_peek(a))
		return false;
	if (a->tok.kind == T_NL) {
		asm_take(a);
		return true;
	}
	if (a->tok.kind == T_EOF)
		return true;
	asm_diag(a, a->tok.line, a->tok.col, "unexpected %s after the statement",
		 asm_tok_desc(&a->tok, b, sizeof(b)));
	return false;
}

/* After an error: drop the rest of the line (lexing errors included). */
void asm_skip_line(struct as *a)
{
	if (a->in_braces) {
		/* Skip the rest of the constant's values. */
		if (a->peeked && asm_tok_punct(&a->tok, '}')) {
			a->peeked = false;
		} else {
			a->peeked = false;
			while (a->pos < a->len && a->text[a->pos] != '}')
				adv(a);
			if (a->pos < a->len)
				adv(a);
		}
		a->in_braces = false;
	}
	for (;;) {
		if (a->peeked) {
			if (a->tok.kind == T_NL || a->tok.kind == T_EOF) {
				if (a->tok.kind == T_NL)
					asm_take(a);
				return;
			}
			asm_take(a);
		}
		/* Raw skip: a broken string must not stop us. */
		while (a->pos < a->len && a->text[a->pos] != '\n')
			adv(a);
		if (a->pos < a->len)
			adv(a);
		return;
	}
}
