// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The vneuron assembler and disassembler (asm.h, docs/assembler.md).
 *
 * nd_asm() is a one-pass parser over a hand-written lexer: every statement fills the
 * raw uapi structs directly (no builder: the text says exactly which semaphores and
 * addresses to use), then the image is laid out the way the builder lays it out, so
 * that a builder's image printed by nd_dis() reassembles to the same bytes.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "asm.h"
#include "nd_internal.h"
#include "vn_program.h"

#define MAX_ERRORS	20
#define MAX_STR		1024
#define MAX_NUM		80

static const char *const op_names[VNEF_OP_COUNT] = {
	"nop", "load_stationary", "multiply_moving", "transpose", "tensor_tensor",
	"tensor_scalar", "reduce", "copy", "activate", "memset", "iota", "partition_reduce",
};
static const char *const alu_names[VNEF_ALU_COUNT] = {
	"add", "sub", "mul", "max", "min", "div"
};
static const char *const act_names[VNEF_ACT_COUNT] = {
	"identity", "exp", "log", "tanh", "sigmoid", "gelu", "relu", "sqrt", "rsqrt",
	"reciprocal", "square",
};
static const char *const engine_names[VNEF_ENGINES] = { "tensor", "vector", "scalar", "gpsimd" };
static const char *const kind_names[5] = { "?", "input", "output", "scratch", "const" };
static const char *const dma_queue_names[VNEF_DMA_QUEUES] = {
	"queue 0", "queue 1", "queue 2", "queue 3", "queue 4", "queue 5", "queue 6", "queue 7",
	"queue 8", "queue 9", "queue 10", "queue 11", "queue 12", "queue 13", "queue 14",
	"queue 15",
};

/* Which engines run each opcode: bit e for engine e. */
static const uint8_t op_engines[VNEF_OP_COUNT] = {
	[VNEF_OP_NOP] = 0xf,
	[VNEF_OP_LOAD_STATIONARY] = 1 << 0,
	[VNEF_OP_MULTIPLY_MOVING] = 1 << 0,
	[VNEF_OP_TRANSPOSE] = 1 << 0,
	[VNEF_OP_TENSOR_TENSOR] = 1 << 1 | 1 << 3,
	[VNEF_OP_TENSOR_SCALAR] = 1 << 1 | 1 << 3,
	[VNEF_OP_REDUCE] = 1 << 1,
	[VNEF_OP_COPY] = 1 << 1 | 1 << 2 | 1 << 3,
	[VNEF_OP_ACTIVATE] = 1 << 2,
	[VNEF_OP_MEMSET] = 1 << 1 | 1 << 3,
	[VNEF_OP_IOTA] = 1 << 3,
	[VNEF_OP_PARTITION_REDUCE] = 1 << 3,
};

const char *nd_asm_engine_name(uint32_t e)
{
	if (e < VNEF_ENGINES)
		return engine_names[e];
	if (e < VNEF_STREAMS)
		return dma_queue_names[e - VNEF_ENGINES];
	return "?";
}

const char *nd_asm_opcode_name(uint32_t op)
{
	return op < VNEF_OP_COUNT ? op_names[op] : "?";
}

const char *nd_asm_alu_name(uint32_t a)
{
	return a < VNEF_ALU_COUNT ? alu_names[a] : "?";
}

const char *nd_asm_act_name(uint32_t a)
{
	return a < VNEF_ACT_COUNT ? act_names[a] : "?";
}

static int lookup(const char *const *names, unsigned int n, const char *s)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return (int)i;
	return -1;
}

/* ------------------------------------------------------------------------------ */
/* Formatting                                                                     */

struct out {
	char *buf;
	size_t size;
	size_t len;		/* what the whole text needs, even past size */
};

static void __attribute__((format(printf, 2, 3))) put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->len < o->size ? o->buf + o->len : NULL,
		      o->len < o->size ? o->size - o->len : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

static float f32(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static uint32_t fbits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

/* An fp32 immediate: shortest exact decimal, or its bits for NaNs. */
static void put_f32(struct out *o, uint32_t bits)
{
	float f = f32(bits);
	char tmp[48];
	int prec;

	if (f != f) {
		if (bits == 0x7fc00000u)
			put(o, "nan");
		else
			put(o, "0x%08x", bits);
		return;
	}
	/* Plain decimals where one place is enough (10.0, not 1e+01). */
	snprintf(tmp, sizeof(tmp), "%.1f", (double)f);
	if (f > -1e7f && f < 1e7f && fbits(strtof(tmp, NULL)) == bits) {
		put(o, "%s", tmp);
		return;
	}
	for (prec = 1; prec <= 9; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, (double)f);
		if (fbits(strtof(tmp, NULL)) == bits)
			break;
	}
	/* Keep a float recognisable as one ("1" would read the same, but "1.0" says it). */
	if (!strpbrk(tmp, ".eEn"))
		put(o, "%s.0", tmp);
	else
		put(o, "%s", tmp);
}

static const char *mem_name(uint32_t m)
{
	return m == VNEF_MEM_SBUF ? "sbuf" : m == VNEF_MEM_PSUM ? "psum" : m == VNEF_MEM_HBM ?
	       "hbm" : "none";
}

static const char *dt_name(uint32_t dt)
{
	return dt == VNEF_DT_FP32 ? "fp32" : dt == VNEF_DT_BF16 ? "bf16" : "?";
}

static void put_ap(struct out *o, const struct vnef_ap *a)
{
	put(o, "%s.%s[%u:%u]@0x%x", mem_name(a->mem), dt_name(a->dtype), a->start_partition,
	    a->start_partition + a->partitions, a->offset);
	if (a->count[1] == 1 && a->stride[1] == 0) {
		if (a->stride[0] == 1)
			put(o, "[%u]", a->count[0]);
		else
			put(o, "[%u:%u]", a->count[0], a->stride[0]);
	} else {
		put(o, "[%u:%u, %u:%u]", a->count[1], a->stride[1], a->count[0], a->stride[0]);
	}
}

static bool is_ident(const char *s)
{
	const char *p;

	if (!*s || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return false;
	for (p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' ||
		      (*p >= '0' && *p <= '9')))
			return false;
	return strcmp(s, "sbuf") && strcmp(s, "psum");
}

static void put_str(struct out *o, const char *s)
{
	put(o, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			put(o, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			put(o, "\\x%02x", c);
		else
			put(o, "%c", c);
	}
	put(o, "\"");
}

static void put_name(struct out *o, const char *s)
{
	if (is_ident(s))
		put(o, "%s", s);
	else
		put_str(o, s);
}

static void put_ep(struct out *o, const struct vnef_dma_ep *e, const char *const *names,
		   uint32_t n)
{
	if (e->mem == VNEF_MEM_HBM) {
		if (names && e->tensor < n)
			put_name(o, names[e->tensor]);
		else
			put(o, "#%u", e->tensor);
	} else {
		put(o, "%s[%u", mem_name(e->mem), e->partition);
		if (e->part_stride[0] || e->part_stride[1])
			put(o, "; %u, %u", e->part_stride[1], e->part_stride[0]);
		put(o, "]");
	}
	put(o, "@0x%llx", (unsigned long long)e->offset);
	if (e->stride[0] || e->stride[1])
		put(o, "[%llu, %llu]", (unsigned long long)e->stride[1],
		    (unsigned long long)e->stride[0]);
}

static void put_sync(struct out *o, uint32_t flags, uint32_t sem, uint32_t val, uint64_t mask)
{
	const char *sep = " signal ";
	unsigned int s;

	if (flags & VNEF_IF_WAIT)
		put(o, " wait s%u >= %u", sem, val);
	for (s = 0; s < 64; s++) {
		if (mask & (1ull << s)) {
			put(o, "%ss%u", sep, s);
			sep = ", ";
		}
	}
}

static void fmt_instr(struct out *o, const struct vnef_instr *in)
{
	uint32_t op = in->opcode;

	put(o, "%s", nd_asm_opcode_name(op));
	switch (op) {
	case VNEF_OP_NOP:
		break;
	case VNEF_OP_LOAD_STATIONARY:
		put(o, " ");
		put_ap(o, &in->src0);
		break;
	case VNEF_OP_MULTIPLY_MOVING:
	case VNEF_OP_TRANSPOSE:
	case VNEF_OP_COPY:
		put(o, " ");
		put_ap(o, &in->dst);
		put(o, ", ");
		put_ap(o, &in->src0);
		break;
	case VNEF_OP_TENSOR_TENSOR:
		put(o, " %s ", nd_asm_alu_name(in->op));
		put_ap(o, &in->dst);
		put(o, ", ");
		put_ap(o, &in->src0);
		put(o, ", ");
		put_ap(o, &in->src1);
		break;
	case VNEF_OP_TENSOR_SCALAR:
		put(o, " %s ", nd_asm_alu_name(in->op));
		put_ap(o, &in->dst);
		put(o, ", ");
		put_ap(o, &in->src0);
		put(o, ", ");
		if (in->flags & VNEF_IF_SCALAR_COLUMN)
			put_ap(o, &in->src1);
		else
			put_f32(o, in->imm[0]);
		break;
	case VNEF_OP_REDUCE:
	case VNEF_OP_PARTITION_REDUCE:
		put(o, " %s ", nd_asm_alu_name(in->op));
		put_ap(o, &in->dst);
		put(o, ", ");
		put_ap(o, &in->src0);
		break;
	case VNEF_OP_ACTIVATE:
		put(o, " %s ", nd_asm_act_name(in->op));
		put_ap(o, &in->dst);
		put(o, ", ");
		put_ap(o, &in->src0);
		put(o, ", ");
		put_f32(o, in->imm[0]);
		put(o, ", ");
		if (in->flags & VNEF_IF_BIAS_COLUMN)
			put_ap(o, &in->src1);
		else
			put_f32(o, in->imm[1]);
		break;
	case VNEF_OP_MEMSET:
		put(o, " ");
		put_ap(o, &in->dst);
		put(o, ", ");
		put_f32(o, in->imm[0]);
		break;
	case VNEF_OP_IOTA:
		put(o, " ");
		put_ap(o, &in->dst);
		put(o, ", %d, %d, %d", (int32_t)in->imm[0], (int32_t)in->imm[1],
		    (int32_t)in->imm[2]);
		break;
	}
	if (in->flags & VNEF_IF_ACCUMULATE)
		put(o, " acc");
	if (in->flags & VNEF_IF_REVERSE)
		put(o, " rev");
	put_sync(o, in->flags, in->wait_sem, in->wait_value, in->signal_mask);
}

static void fmt_desc(struct out *o, const struct vnef_dma_desc *d, const char *const *names,
		     uint32_t n)
{
	put(o, "dma ");
	put_ep(o, &d->dst, names, n);
	put(o, ", ");
	put_ep(o, &d->src, names, n);
	put(o, ", %u x %u x %u", d->count[1], d->count[0], d->chunk_bytes);
	put_sync(o, d->flags, d->wait_sem, d->wait_value, d->signal_mask);
}

size_t nd_asm_format_instr(char *buf, size_t size, const struct vnef_instr *in)
{
	struct out o = { buf, size, 0 };

	if (size)
		buf[0] = 0;
	fmt_instr(&o, in);
	return o.len;
}

size_t nd_asm_format_desc(char *buf, size_t size, const struct vnef_dma_desc *d,
			  const char *const *names, uint32_t ntensors)
{
	struct out o = { buf, size, 0 };

	if (size)
		buf[0] = 0;
	fmt_desc(&o, d, names, ntensors);
	return o.len;
}

/* ------------------------------------------------------------------------------ */
/* Lexer                                                                          */

enum tok_kind { T_EOF, T_NL, T_IDENT, T_NUM, T_STR, T_PUNCT, T_GE };

struct tok {
	enum tok_kind kind;
	unsigned int line, col;
	const char *p;		/* in the text */
	size_t len;
	char punct;
};

struct vec {
	void *p;
	size_t n, cap, esz;
};

struct src_tensor {
	struct vnef_tensor t;
	char *name;
	unsigned int line, col;
};

struct label {
	char *name;
};

struct entry_src {
	uint32_t file_off, line, scope_off;
	unsigned int src_line, src_col;
};

struct as {
	const char *text;
	size_t len, pos;
	unsigned int line, col;
	struct tok tok;			/* the current token */
	bool peeked;
	const char *filename;
	FILE *errs;
	struct nd_asm_diag *first;
	unsigned int nerr;
	int fatal;			/* -ENOMEM or -E2BIG */
	bool in_braces;			/* inside a constant's { values } */
	char sbuf[MAX_STR];		/* the last string token, decoded */
	size_t slen;

	/* the program */
	char *str;
	size_t str_len, str_cap;
	bool strtab_given;
	char *prog_name;
	bool prog_name_given;
	struct vec tensors;		/* struct src_tensor */
	struct vec labels;		/* struct label */
	uint8_t *cdata;
	size_t clen;
	struct vec ins[VNEF_STREAMS];	/* struct vnef_instr or struct vnef_dma_desc */
	struct vec dbg[VNEF_STREAMS];	/* struct entry_src */
	int stream;			/* current stream, -1 before the first .engine/.queue */
	uint32_t file_off, loc_line, scope_off;
	bool file_set, loc_set;
	uint32_t default_file_off;
	bool default_file_interned;
};

static void *vec_push(struct as *a, struct vec *v)
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

static void __attribute__((format(printf, 4, 5)))
diag(struct as *a, unsigned int line, unsigned int col, const char *fmt, ...)
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
	if (a->errs && a->nerr < MAX_ERRORS) {
		if (line)
			fprintf(a->errs, "%s:%u:%u: error: %s\n", a->filename, line, col, msg);
		else
			fprintf(a->errs, "%s: error: %s\n", a->filename, msg);
	}
	if (a->errs && a->nerr == MAX_ERRORS)
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
static bool all_digits(const char *p, size_t n, bool hex)
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
static bool lex(struct as *a, struct tok *t)
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
				diag(a, t->line, t->col, "unterminated string (a string ends with \" "
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
						diag(a, t->line, ecol, "bad escape in string: \\x takes "
						     "two hex digits, not 00");
						return false;
					}
					d = (char)v;
				} else {
					diag(a, t->line, ecol, "unknown escape in string (use \\\\, \\\", "
					     "\\n, \\t or \\xHH)");
					return false;
				}
			} else {
				if (!d) {
					diag(a, t->line, a->col, "NUL byte in string");
					return false;
				}
				adv(a);
			}
			if (a->slen + 1 >= sizeof(a->sbuf)) {
				diag(a, t->line, t->col, "string longer than %d bytes", MAX_STR - 1);
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
		diag(a, t->line, t->col, "unexpected character '%c'", c);
	else
		diag(a, t->line, t->col, "unexpected byte 0x%02x", (unsigned char)c);
	return false;
}

/* The current token (lexed on demand). false: a lexical error was reported. */
static bool peek(struct as *a)
{
	if (!a->peeked) {
		if (!lex(a, &a->tok))
			return false;
		a->peeked = true;
	}
	return true;
}

static void take(struct as *a)
{
	a->peeked = false;
}

static bool tok_is(const struct tok *t, const char *word)
{
	return t->kind == T_IDENT && t->len == strlen(word) && !memcmp(t->p, word, t->len);
}

static bool tok_punct(const struct tok *t, char c)
{
	return t->kind == T_PUNCT && t->punct == c;
}

/* A short printable form of a token for messages. */
static const char *tok_desc(const struct tok *t, char *buf, size_t n)
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

static bool err_at_tok(struct as *a, const char *what)
{
	char b[64];

	diag(a, a->tok.line, a->tok.col, "expected %s, found %s", what,
	     tok_desc(&a->tok, b, sizeof(b)));
	return false;
}

static bool expect_punct(struct as *a, char c, const char *what)
{
	if (!peek(a))
		return false;
	if (!tok_punct(&a->tok, c))
		return err_at_tok(a, what);
	take(a);
	return true;
}

static bool accept_punct(struct as *a, char c)
{
	if (peek(a) && tok_punct(&a->tok, c)) {
		take(a);
		return true;
	}
	return false;
}

/* An identifier into buf (NUL-terminated). */
static bool ident(struct as *a, char *buf, size_t n, const char *what)
{
	if (!peek(a))
		return false;
	if (a->tok.kind != T_IDENT)
		return err_at_tok(a, what);
	if (a->tok.len >= n) {
		diag(a, a->tok.line, a->tok.col, "%s is too long (at most %zu characters)", what,
		     n - 1);
		return false;
	}
	memcpy(buf, a->tok.p, a->tok.len);
	buf[a->tok.len] = 0;
	take(a);
	return true;
}

/* An unsigned integer up to max. */
static bool uint_val(struct as *a, uint64_t max, uint64_t *v, const char *what)
{
	char buf[MAX_NUM], *end;
	unsigned long long x;

	if (!peek(a))
		return false;
	if (a->tok.kind != T_NUM)
		return err_at_tok(a, what);
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
		diag(a, a->tok.line, a->tok.col, "%s %s is out of range (at most %llu)", what, buf,
		     (unsigned long long)max);
		return false;
	}
	*v = x;
	take(a);
	return true;
bad:
	diag(a, a->tok.line, a->tok.col, "expected %s, found '%.*s' (not an unsigned integer)",
	     what, (int)(a->tok.len > 40 ? 40 : a->tok.len), a->tok.p);
	return false;
}

static bool u32_val(struct as *a, uint32_t *v, const char *what)
{
	uint64_t x;

	if (!uint_val(a, UINT32_MAX, &x, what))
		return false;
	*v = (uint32_t)x;
	return true;
}

static bool s32_val(struct as *a, int32_t *v, const char *what)
{
	char buf[MAX_NUM], *end;
	long long x;

	if (!peek(a))
		return false;
	if (a->tok.kind != T_NUM)
		return err_at_tok(a, what);
	if (a->tok.len >= sizeof(buf))
		goto bad;
	memcpy(buf, a->tok.p, a->tok.len);
	buf[a->tok.len] = 0;
	errno = 0;
	x = strtoll(buf, &end, 0);
	if (*end || end == buf)
		goto bad;
	if (errno == ERANGE || x < INT32_MIN || x > INT32_MAX) {
		diag(a, a->tok.line, a->tok.col, "%s %s is out of range for a 32-bit signed "
		     "integer", what, buf);
		return false;
	}
	*v = (int32_t)x;
	take(a);
	return true;
bad:
	diag(a, a->tok.line, a->tok.col, "expected %s, found '%.*s' (not an integer)", what,
	     (int)(a->tok.len > 40 ? 40 : a->tok.len), a->tok.p);
	return false;
}

/*
 * An fp32 value as bits: a decimal or hex float, inf, nan, or 0x followed by hex digits
 * only (the raw bits, e.g. 0x7fc00001 for a NaN with a payload).
 */
static bool f32_val(struct as *a, uint32_t *bits, const char *what)
{
	char buf[MAX_NUM], *end;
	const char *s;
	float f;

	if (!peek(a))
		return false;
	if (a->tok.kind != T_NUM && !tok_is(&a->tok, "inf") && !tok_is(&a->tok, "nan"))
		return err_at_tok(a, what);
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
			diag(a, a->tok.line, a->tok.col, "%s %s: raw bits are at most 0xffffffff",
			     what, buf);
			return false;
		}
		*bits = (uint32_t)x;
		take(a);
		return true;
	}
	errno = 0;
	f = strtof(s, &end);
	if (*end || end == s)
		goto bad;
	*bits = fbits(f);
	take(a);
	return true;
bad:
	diag(a, a->tok.line, a->tok.col, "expected %s, found '%.*s' (not a number)", what,
	     (int)(a->tok.len > 40 ? 40 : a->tok.len), a->tok.p);
	return false;
}

/* The end of a statement: a newline or the end of the file. */
static bool end_of_stmt(struct as *a)
{
	char b[64];

	if (!peek(a))
		return false;
	if (a->tok.kind == T_NL) {
		take(a);
		return true;
	}
	if (a->tok.kind == T_EOF)
		return true;
	diag(a, a->tok.line, a->tok.col, "unexpected %s after the statement",
	     tok_desc(&a->tok, b, sizeof(b)));
	return false;
}

/* After an error: drop the rest of the line (lexing errors included). */
static void skip_line(struct as *a)
{
	if (a->in_braces) {
		/* Skip the rest of the constant's values. */
		if (a->peeked && tok_punct(&a->tok, '}')) {
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
					take(a);
				return;
			}
			take(a);
		}
		/* Raw skip: a broken string must not stop us. */
		while (a->pos < a->len && a->text[a->pos] != '\n')
			adv(a);
		if (a->pos < a->len)
			adv(a);
		return;
	}
}

/* ------------------------------------------------------------------------------ */
/* The program being assembled                                                    */

static uint32_t str_add(struct as *a, const char *s, size_t len, bool force)
{
	size_t off;

	if (!len && !force)
		return 0;
	if (!force) {
		/* Look for a whole string: offsets after a NUL only. */
		for (off = 1; off + len < a->str_len; ) {
			size_t l = strlen(a->str + off);

			if (l == len && !memcmp(a->str + off, s, len))
				return (uint32_t)off;
			off += l + 1;
		}
	}
	if (a->str_len + len + 1 > VNEF_MAX_IMAGE_BYTES) {
		a->fatal = -E2BIG;
		return 0;
	}
	while (a->str_len + len + 1 > a->str_cap) {
		char *q = realloc(a->str, a->str_cap * 2);

		if (!q) {
			a->fatal = -ENOMEM;
			return 0;
		}
		a->str = q;
		a->str_cap *= 2;
	}
	off = a->str_len;
	memcpy(a->str + off, s, len);
	a->str[off + len] = 0;
	a->str_len += len + 1;
	return (uint32_t)off;
}

static struct src_tensor *find_tensor(struct as *a, const char *name, uint32_t *index)
{
	struct src_tensor *t = a->tensors.p;
	size_t i;

	for (i = 0; i < a->tensors.n; i++) {
		if (!strcmp(t[i].name, name)) {
			if (index)
				*index = (uint32_t)i;
			return &t[i];
		}
	}
	return NULL;
}

/* A name: an identifier or a string. */
static bool name_val(struct as *a, char *buf, size_t n, const char *what)
{
	if (!peek(a))
		return false;
	if (a->tok.kind == T_STR) {
		if (!a->slen || a->slen >= n) {
			diag(a, a->tok.line, a->tok.col, "%s must be 1..%zu bytes long", what,
			     n - 1);
			return false;
		}
		memcpy(buf, a->sbuf, a->slen + 1);
		take(a);
		return true;
	}
	return ident(a, buf, n, what);
}

static int dtype_of(const char *s)
{
	if (!strcmp(s, "fp32"))
		return VNEF_DT_FP32;
	if (!strcmp(s, "bf16"))
		return VNEF_DT_BF16;
	return 0;
}

static bool dtype_val(struct as *a, uint32_t *dt)
{
	unsigned int line, col;
	char buf[32];
	int d;

	if (!peek(a))
		return false;
	line = a->tok.line;
	col = a->tok.col;
	if (!ident(a, buf, sizeof(buf), "a dtype (fp32 or bf16)"))
		return false;
	d = dtype_of(buf);
	if (!d) {
		diag(a, line, col, "unknown dtype '%s' (fp32 or bf16)", buf);
		return false;
	}
	*dt = (uint32_t)d;
	return true;
}

/* .tensor NAME KIND DTYPE [d0, d1, ...] [= { values }] */
static bool do_tensor(struct as *a)
{
	char name[128], kind[32];
	struct src_tensor *t;
	unsigned int line, col, kline, kcol;
	uint64_t numel = 1, size, d;
	uint32_t dt, i;
	int k;

	if (!peek(a))
		return false;
	line = a->tok.line;
	col = a->tok.col;
	if (!name_val(a, name, sizeof(name), "a tensor name"))
		return false;
	if (find_tensor(a, name, NULL)) {
		diag(a, line, col, "duplicate name: tensor '%s' is already defined at line %u", name,
		     find_tensor(a, name, NULL)->line);
		return false;
	}
	if (a->tensors.n >= VNEF_MAX_TENSORS) {
		diag(a, line, col, "too many tensors (at most %d)", VNEF_MAX_TENSORS);
		return false;
	}
	if (!peek(a))
		return false;
	kline = a->tok.line;
	kcol = a->tok.col;
	if (!ident(a, kind, sizeof(kind), "a tensor kind (input, output, scratch, const)"))
		return false;
	k = lookup(kind_names + 1, 4, kind);
	if (k < 0) {
		diag(a, kline, kcol, "unknown tensor kind '%s' (input, output, scratch or const)",
		     kind);
		return false;
	}
	if (!dtype_val(a, &dt))
		return false;
	t = vec_push(a, &a->tensors);
	if (!t)
		return false;
	t->name = strdup(name);
	if (!t->name) {
		a->fatal = -ENOMEM;
		a->tensors.n--;
		return false;
	}
	t->line = line;
	t->col = col;
	t->t.kind = (uint32_t)k + 1;
	t->t.dtype = dt;
	t->t.name_off = str_add(a, name, strlen(name), false);
	if (!expect_punct(a, '[', "'[' and the shape"))
		return false;
	for (i = 0; ; i++) {
		if (!peek(a))
			return false;
		if (i == VNEF_MAX_RANK) {
			diag(a, a->tok.line, a->tok.col, "a tensor has at most %d dimensions",
			     VNEF_MAX_RANK);
			return false;
		}
		line = a->tok.line;
		col = a->tok.col;
		if (!uint_val(a, VNEF_MAX_TENSOR_BYTES, &d, "a dimension"))
			return false;
		if (!d) {
			diag(a, line, col, "a dimension must be at least 1");
			return false;
		}
		t->t.shape[i] = d;
		if (d > VNEF_MAX_TENSOR_BYTES / numel) {
			diag(a, line, col, "tensor '%s' is larger than 16 GiB", name);
			return false;
		}
		numel *= d;
		if (accept_punct(a, ']'))
			break;
		if (!expect_punct(a, ',', "',' or ']' in the shape"))
			return false;
	}
	t->t.rank = i + 1;
	size = numel * vn_dtype_size(dt);
	if (size > VNEF_MAX_TENSOR_BYTES) {
		diag(a, line, col, "tensor '%s' is larger than 16 GiB", name);
		return false;
	}
	t->t.size = size;
	if (!peek(a))
		return false;
	if (t->t.kind != VNEF_TENSOR_CONST) {
		if (tok_punct(&a->tok, '=')) {
			diag(a, a->tok.line, a->tok.col, "only const tensors have data ('%s' is %s)",
			     name, kind);
			return false;
		}
		return end_of_stmt(a);
	}
	if (!expect_punct(a, '=', "'= {' and the constant's values"))
		return false;
	if (!expect_punct(a, '{', "'{' and the constant's values"))
		return false;
	a->in_braces = true;
	{
		uint64_t off = (a->clen + 7) & ~7ull, n = 0;
		uint8_t *q;

		if (off + size > VNEF_MAX_IMAGE_BYTES) {
			diag(a, t->line, t->col, "constant '%s' does not fit in a 64 MiB image",
			     name);
			return false;
		}
		q = realloc(a->cdata, off + size ? off + size : 1);
		if (!q) {
			a->fatal = -ENOMEM;
			return false;
		}
		a->cdata = q;
		memset(a->cdata + a->clen, 0, off + size - a->clen);
		t->t.const_off = off;
		a->clen = off + size;
		for (;;) {
			uint32_t bits;
			bool raw;

			/* Values may span lines. */
			while (peek(a) && a->tok.kind == T_NL)
				take(a);
			if (!peek(a))
				return false;
			if (tok_punct(&a->tok, '}')) {
				if (n != numel) {
					diag(a, a->tok.line, a->tok.col, "constant '%s' needs %llu "
					     "values, got %llu", name, (unsigned long long)numel,
					     (unsigned long long)n);
					return false;
				}
				take(a);
				a->in_braces = false;
				break;
			}
			if (n && !expect_punct(a, ',', "',' or '}' between values"))
				return false;
			while (peek(a) && a->tok.kind == T_NL)
				take(a);
			if (!peek(a))
				return false;
			if (n == numel) {
				diag(a, a->tok.line, a->tok.col, "too many values: constant '%s' "
				     "has %llu elements", name, (unsigned long long)numel);
				return false;
			}
			line = a->tok.line;
			col = a->tok.col;
			raw = a->tok.kind == T_NUM && a->tok.len > 2 && a->tok.p[0] == '0' &&
			      (a->tok.p[1] == 'x' || a->tok.p[1] == 'X') &&
			      all_digits(a->tok.p + 2, a->tok.len - 2, true);
			if (!f32_val(a, &bits, "a value"))
				return false;
			if (dt == VNEF_DT_BF16) {
				uint16_t h;

				/* A raw value is the bf16's own 16 bits. */
				if (raw) {
					if (bits > 0xffff) {
						diag(a, line, col, "raw bf16 bits are at most 0xffff");
						return false;
					}
					h = (uint16_t)bits;
				} else {
					h = nd_fp32_to_bf16(f32(bits));
				}
				memcpy(a->cdata + off + n * 2, &h, 2);
			} else {
				memcpy(a->cdata + off + n * 4, &bits, 4);
			}
			n++;
		}
	}
	return end_of_stmt(a);
}

/* An on-chip access pattern: MEM.DTYPE[P0:P1]@OFF[C0] | [C0:S0] | [C1:S1, C0:S0] */
static bool ap_val(struct as *a, struct vnef_ap *ap, const char *what)
{
	char mem[32];
	uint32_t dt, p0, p1, off, c[2], s[2];
	unsigned int line, col, pl, pc;

	if (!peek(a))
		return false;
	line = a->tok.line;
	col = a->tok.col;
	if (a->tok.kind != T_IDENT) {
		char b[64];

		diag(a, line, col, "expected %s (an access pattern such as sbuf.fp32[0:128]@0x0[512])"
		     ", found %s", what, tok_desc(&a->tok, b, sizeof(b)));
		return false;
	}
	if (!ident(a, mem, sizeof(mem), what))
		return false;
	if (strcmp(mem, "sbuf") && strcmp(mem, "psum")) {
		diag(a, line, col, "%s: '%s' is not an on-chip memory (sbuf or psum)", what, mem);
		return false;
	}
	if (!expect_punct(a, '.', "'.' and a dtype after the memory"))
		return false;
	if (!dtype_val(a, &dt))
		return false;
	if (!expect_punct(a, '[', "'[' and a partition range"))
		return false;
	if (!peek(a))
		return false;
	pl = a->tok.line;
	pc = a->tok.col;
	if (!u32_val(a, &p0, "the first partition") ||
	    !expect_punct(a, ':', "':' in the partition range") ||
	    !u32_val(a, &p1, "the end partition") ||
	    !expect_punct(a, ']', "']' after the partition range"))
		return false;
	if (p1 <= p0 || p1 > VNEF_PARTITIONS) {
		diag(a, pl, pc, "partition range [%u:%u] is out of range: partitions are 0..%d and "
		     "the range needs at least one", p0, p1, VNEF_PARTITIONS);
		return false;
	}
	if (!expect_punct(a, '@', "'@' and a byte offset") ||
	    !u32_val(a, &off, "a byte offset") ||
	    !expect_punct(a, '[', "'[' and the free-axis pattern"))
		return false;
	if (!u32_val(a, &c[0], "an element count"))
		return false;
	s[0] = 1;
	c[1] = 1;
	s[1] = 0;
	if (accept_punct(a, ':')) {
		if (!u32_val(a, &s[0], "a stride"))
			return false;
		if (accept_punct(a, ',')) {
			c[1] = c[0];
			s[1] = s[0];
			if (!u32_val(a, &c[0], "an element count") ||
			    !expect_punct(a, ':', "':' and a stride") ||
			    !u32_val(a, &s[0], "a stride"))
				return false;
		}
	}
	if (!expect_punct(a, ']', "']' after the free-axis pattern"))
		return false;
	if (!c[0] || !c[1]) {
		diag(a, line, col, "%s: element counts must be at least 1", what);
		return false;
	}
	memset(ap, 0, sizeof(*ap));
	ap->mem = !strcmp(mem, "sbuf") ? VNEF_MEM_SBUF : VNEF_MEM_PSUM;
	ap->dtype = (uint16_t)dt;
	ap->start_partition = (uint16_t)p0;
	ap->partitions = (uint16_t)(p1 - p0);
	ap->offset = off;
	ap->count[0] = c[0];
	ap->count[1] = c[1];
	ap->stride[0] = s[0];
	ap->stride[1] = s[1];
	return true;
}

/* A DMA endpoint: NAME@OFF[S1, S0] or MEM[P; PS1, PS0]@OFF[S1, S0]. */
static bool ep_val(struct as *a, struct vnef_dma_ep *e, const char *what)
{
	char name[128];
	unsigned int line, col;
	uint64_t off = 0;

	memset(e, 0, sizeof(*e));
	if (!peek(a))
		return false;
	line = a->tok.line;
	col = a->tok.col;
	if (a->tok.kind != T_IDENT && a->tok.kind != T_STR) {
		char b[64];

		diag(a, line, col, "expected %s (a tensor name or sbuf[P]/psum[P]), found %s", what,
		     tok_desc(&a->tok, b, sizeof(b)));
		return false;
	}
	if (a->tok.kind == T_IDENT && (tok_is(&a->tok, "sbuf") || tok_is(&a->tok, "psum"))) {
		e->mem = tok_is(&a->tok, "sbuf") ? VNEF_MEM_SBUF : VNEF_MEM_PSUM;
		take(a);
		if (!expect_punct(a, '[', "'[' and a partition"))
			return false;
		if (!peek(a))
			return false;
		line = a->tok.line;
		col = a->tok.col;
		if (!u32_val(a, &e->partition, "a partition"))
			return false;
		if (e->partition >= VNEF_PARTITIONS) {
			diag(a, line, col, "partition %u is out of range (0..%d)", e->partition,
			     VNEF_PARTITIONS - 1);
			return false;
		}
		if (accept_punct(a, ';')) {
			if (!u32_val(a, &e->part_stride[1], "a partition stride") ||
			    !expect_punct(a, ',', "',' and a second partition stride") ||
			    !u32_val(a, &e->part_stride[0], "a partition stride"))
				return false;
		}
		if (!expect_punct(a, ']', "']'"))
			return false;
	} else {
		uint32_t idx;

		if (!name_val(a, name, sizeof(name), "a tensor name"))
			return false;
		if (!find_tensor(a, name, &idx)) {
			diag(a, line, col, "undefined tensor '%s' (declare it with .tensor first)",
			     name);
			return false;
		}
		e->mem = VNEF_MEM_HBM;
		e->tensor = idx;
	}
	if (!expect_punct(a, '@', "'@' and a byte offset") ||
	    !uint_val(a, UINT64_MAX, &off, "a byte offset"))
		return false;
	e->offset = off;
	if (peek(a) && tok_punct(&a->tok, '[')) {
		take(a);
		if (!uint_val(a, UINT64_MAX, &off, "a byte stride"))
			return false;
		e->stride[1] = off;
		if (!expect_punct(a, ',', "',' and a second byte stride") ||
		    !uint_val(a, UINT64_MAX, &off, "a byte stride"))
			return false;
		e->stride[0] = off;
		if (!expect_punct(a, ']', "']' after the strides"))
			return false;
	}
	return true;
}

/* A semaphore name sN (N >= 64 is returned as 64: out of range). */
static bool sem_tok(struct as *a, uint64_t *s)
{
	size_t i;

	if (a->tok.kind != T_IDENT || a->tok.p[0] != 's' ||
	    !all_digits(a->tok.p + 1, a->tok.len - 1, false))
		return false;
	*s = 0;
	for (i = 1; i < a->tok.len && *s < VNEF_MAX_SEMS; i++)
		*s = *s * 10 + (uint64_t)(a->tok.p[i] - '0');
	return true;
}

/* "x" between sizes (an identifier to the lexer). */
static bool expect_x(struct as *a)
{
	if (!peek(a))
		return false;
	if (!tok_is(&a->tok, "x"))
		return err_at_tok(a, "'x' in the size C1 x C0 x BYTES (with spaces)");
	take(a);
	return true;
}

/* Trailing clauses: acc, rev, wait sN >= V, signal sA, sB ... */
static bool clauses(struct as *a, uint32_t opcode, bool dma, uint32_t *flags,
		    uint32_t *wsem, uint32_t *wval, __u64 *mask)
{
	bool seen_wait = false, seen_sig = false;

	for (;;) {
		unsigned int line, col;

		if (!peek(a))
			return false;
		if (a->tok.kind == T_NL || a->tok.kind == T_EOF)
			return true;
		line = a->tok.line;
		col = a->tok.col;
		if (tok_is(&a->tok, "acc") || tok_is(&a->tok, "rev")) {
			bool acc = tok_is(&a->tok, "acc");
			uint32_t f = acc ? VNEF_IF_ACCUMULATE : VNEF_IF_REVERSE;

			if (dma || (acc && opcode != VNEF_OP_MULTIPLY_MOVING &&
				    opcode != VNEF_OP_TRANSPOSE) ||
			    (!acc && opcode != VNEF_OP_TENSOR_SCALAR)) {
				diag(a, line, col, "'%s' does not apply to %s (%s)",
				     acc ? "acc" : "rev", dma ? "dma" : op_names[opcode],
				     acc ? "multiply_moving and transpose accumulate" :
				     "only tensor_scalar reverses");
				return false;
			}
			if (*flags & f) {
				diag(a, line, col, "'%s' given twice", acc ? "acc" : "rev");
				return false;
			}
			*flags |= f;
			take(a);
		} else if (tok_is(&a->tok, "wait")) {
			uint64_t s, v;

			if (seen_wait) {
				diag(a, line, col, "an entry waits for one semaphore only; 'wait' "
				     "given twice");
				return false;
			}
			seen_wait = true;
			take(a);
			if (!peek(a))
				return false;
			line = a->tok.line;
			col = a->tok.col;
			if (!sem_tok(a, &s))
				return err_at_tok(a, "a semaphore (s0..s63) after 'wait'");
			if (s >= VNEF_MAX_SEMS) {
				diag(a, line, col, "semaphore %.*s is out of range (s0..s%d)",
				     (int)(a->tok.len > 20 ? 20 : a->tok.len), a->tok.p,
				     VNEF_MAX_SEMS - 1);
				return false;
			}
			take(a);
			if (!peek(a))
				return false;
			if (a->tok.kind != T_GE)
				return err_at_tok(a, "'>=' and a value after the semaphore");
			take(a);
			if (!peek(a))
				return false;
			line = a->tok.line;
			col = a->tok.col;
			if (!uint_val(a, UINT32_MAX, &v, "a semaphore value"))
				return false;
			if (!v) {
				diag(a, line, col, "a wait value must be at least 1 (semaphores start "
				     "at 0, so waiting for 0 is no wait)");
				return false;
			}
			*flags |= VNEF_IF_WAIT;
			*wsem = (uint32_t)s;
			*wval = (uint32_t)v;
		} else if (tok_is(&a->tok, "signal")) {
			if (seen_sig) {
				diag(a, line, col, "'signal' given twice (list the semaphores after "
				     "one 'signal', separated by commas)");
				return false;
			}
			seen_sig = true;
			take(a);
			do {
				uint64_t s;

				if (!peek(a))
					return false;
				line = a->tok.line;
				col = a->tok.col;
				if (!sem_tok(a, &s))
					return err_at_tok(a, "a semaphore (s0..s63) to signal");
				if (s >= VNEF_MAX_SEMS) {
					diag(a, line, col, "semaphore %.*s is out of range (s0..s%d)",
					     (int)(a->tok.len > 20 ? 20 : a->tok.len), a->tok.p,
					     VNEF_MAX_SEMS - 1);
					return false;
				}
				if (*mask & (1ull << s)) {
					diag(a, line, col, "semaphore s%llu signalled twice by one entry",
					     (unsigned long long)s);
					return false;
				}
				*mask |= 1ull << s;
				take(a);
			} while (accept_punct(a, ','));
		} else {
			char b[64];

			diag(a, line, col, "unexpected %s after the operands (expected acc, rev, "
			     "wait, signal or the end of the line)", tok_desc(&a->tok, b, sizeof(b)));
			return false;
		}
	}
}

static bool comma(struct as *a, const char *mnem, const char *next)
{
	char b[64], what[96];

	if (!peek(a))
		return false;
	if (tok_punct(&a->tok, ','))  {
		take(a);
		return true;
	}
	snprintf(what, sizeof(what), "',' and %s", next);
	if (a->tok.kind == T_NL || a->tok.kind == T_EOF) {
		diag(a, a->tok.line, a->tok.col, "missing operand: %s needs %s", mnem, next);
		return false;
	}
	diag(a, a->tok.line, a->tok.col, "expected %s, found %s", what,
	     tok_desc(&a->tok, b, sizeof(b)));
	return false;
}

/* The first operand must be on the line. */
static bool have_operand(struct as *a, const char *mnem, const char *what)
{
	if (!peek(a))
		return false;
	if (a->tok.kind == T_NL || a->tok.kind == T_EOF) {
		diag(a, a->tok.line, a->tok.col, "missing operand: %s needs %s", mnem, what);
		return false;
	}
	return true;
}

static bool name_in(struct as *a, const char *const *names, unsigned int n, uint32_t *v,
		    const char *what, const char *list)
{
	unsigned int line, col;
	char buf[32];
	int i;

	if (!peek(a))
		return false;
	line = a->tok.line;
	col = a->tok.col;
	if (a->tok.kind == T_NL || a->tok.kind == T_EOF) {
		diag(a, line, col, "missing operand: %s (%s)", what, list);
		return false;
	}
	if (!ident(a, buf, sizeof(buf), what))
		return false;
	i = lookup(names, n, buf);
	if (i < 0) {
		diag(a, line, col, "unknown %s '%s' (%s)", what, buf, list);
		return false;
	}
	*v = (uint32_t)i;
	return true;
}

/* A scalar that is either an fp32 immediate or a [P x 1] column operand. */
static bool scalar_or_ap(struct as *a, uint32_t *bits, struct vnef_ap *ap, bool *is_ap,
			 const char *what)
{
	if (!peek(a))
		return false;
	*is_ap = tok_is(&a->tok, "sbuf") || tok_is(&a->tok, "psum");
	if (*is_ap)
		return ap_val(a, ap, what);
	return f32_val(a, bits, what);
}

static const char alu_list[] = "add, sub, mul, max, min, div";
static const char act_list[] = "identity, exp, log, tanh, sigmoid, gelu, relu, sqrt, rsqrt, "
			       "reciprocal, square";

/* One instruction of an engine stream; the mnemonic is taken already. */
static bool instr(struct as *a, uint32_t op, const char *mnem, struct vnef_instr *in)
{
	bool is_ap;

	memset(in, 0, sizeof(*in));
	in->opcode = op;
	switch (op) {
	case VNEF_OP_NOP:
		break;
	case VNEF_OP_LOAD_STATIONARY:
		if (!have_operand(a, mnem, "a source (the stationary matrix)") ||
		    !ap_val(a, &in->src0, "the source"))
			return false;
		break;
	case VNEF_OP_MULTIPLY_MOVING:
	case VNEF_OP_TRANSPOSE:
	case VNEF_OP_COPY:
		if (!have_operand(a, mnem, "a destination and a source") ||
		    !ap_val(a, &in->dst, "the destination") ||
		    !comma(a, mnem, "a source") || !ap_val(a, &in->src0, "the source"))
			return false;
		break;
	case VNEF_OP_TENSOR_TENSOR:
		if (!name_in(a, alu_names, VNEF_ALU_COUNT, &in->op, "alu op", alu_list) ||
		    !have_operand(a, mnem, "a destination and two sources") ||
		    !ap_val(a, &in->dst, "the destination") ||
		    !comma(a, mnem, "two sources") || !ap_val(a, &in->src0, "the first source") ||
		    !comma(a, mnem, "a second source") ||
		    !ap_val(a, &in->src1, "the second source"))
			return false;
		break;
	case VNEF_OP_TENSOR_SCALAR:
		if (!name_in(a, alu_names, VNEF_ALU_COUNT, &in->op, "alu op", alu_list) ||
		    !have_operand(a, mnem, "a destination, a source and a scalar") ||
		    !ap_val(a, &in->dst, "the destination") ||
		    !comma(a, mnem, "a source and a scalar") ||
		    !ap_val(a, &in->src0, "the source") ||
		    !comma(a, mnem, "a scalar (a number or a [P x 1] column)") ||
		    !scalar_or_ap(a, &in->imm[0], &in->src1, &is_ap, "the scalar"))
			return false;
		if (is_ap)
			in->flags |= VNEF_IF_SCALAR_COLUMN;
		break;
	case VNEF_OP_REDUCE:
	case VNEF_OP_PARTITION_REDUCE:
		if (!name_in(a, alu_names, VNEF_ALU_COUNT, &in->op, "alu op", "add, max, min") ||
		    !have_operand(a, mnem, "a destination and a source") ||
		    !ap_val(a, &in->dst, "the destination") ||
		    !comma(a, mnem, "a source") || !ap_val(a, &in->src0, "the source"))
			return false;
		break;
	case VNEF_OP_ACTIVATE:
		if (!name_in(a, act_names, VNEF_ACT_COUNT, &in->op, "activation function",
			     act_list) ||
		    !have_operand(a, mnem, "a destination, a source, a scale and a bias") ||
		    !ap_val(a, &in->dst, "the destination") ||
		    !comma(a, mnem, "a source, a scale and a bias") ||
		    !ap_val(a, &in->src0, "the source") ||
		    !comma(a, mnem, "a scale and a bias") ||
		    !f32_val(a, &in->imm[0], "the scale") ||
		    !comma(a, mnem, "a bias (a number or a [P x 1] column)") ||
		    !scalar_or_ap(a, &in->imm[1], &in->src1, &is_ap, "the bias"))
			return false;
		if (is_ap)
			in->flags |= VNEF_IF_BIAS_COLUMN;
		break;
	case VNEF_OP_MEMSET:
		if (!have_operand(a, mnem, "a destination and a value") ||
		    !ap_val(a, &in->dst, "the destination") ||
		    !comma(a, mnem, "a value") || !f32_val(a, &in->imm[0], "the value"))
			return false;
		break;
	case VNEF_OP_IOTA:
		if (!have_operand(a, mnem, "a destination, a base, a partition step and a free "
				  "step") ||
		    !ap_val(a, &in->dst, "the destination") ||
		    !comma(a, mnem, "a base, a partition step and a free step") ||
		    !s32_val(a, (int32_t *)&in->imm[0], "the base") ||
		    !comma(a, mnem, "a partition step and a free step") ||
		    !s32_val(a, (int32_t *)&in->imm[1], "the partition step") ||
		    !comma(a, mnem, "a free step") ||
		    !s32_val(a, (int32_t *)&in->imm[2], "the free step"))
			return false;
		break;
	}
	return clauses(a, op, false, &in->flags, &in->wait_sem, &in->wait_value,
		       &in->signal_mask);
}

/* dma DST, SRC, C1 x C0 x CHUNK */
static bool dma_desc(struct as *a, struct vnef_dma_desc *d)
{
	uint32_t c1, c0, chunk;
	unsigned int line, col;

	memset(d, 0, sizeof(*d));
	if (!have_operand(a, "dma", "a destination, a source and a size (C1 x C0 x BYTES)") ||
	    !ep_val(a, &d->dst, "the destination") ||
	    !comma(a, "dma", "a source and a size (C1 x C0 x BYTES)") ||
	    !ep_val(a, &d->src, "the source") ||
	    !comma(a, "dma", "a size (C1 x C0 x BYTES)"))
		return false;
	if (!peek(a))
		return false;
	line = a->tok.line;
	col = a->tok.col;
	if (!u32_val(a, &c1, "the outer chunk count") ||
	    !expect_x(a) || !u32_val(a, &c0, "the inner chunk count") || !expect_x(a) ||
	    !u32_val(a, &chunk, "the chunk size in bytes"))
		return false;
	if (!c1 || !c0 || !chunk) {
		diag(a, line, col, "empty transfer: %u x %u chunks of %u bytes", c1, c0, chunk);
		return false;
	}
	d->count[1] = c1;
	d->count[0] = c0;
	d->chunk_bytes = chunk;
	return clauses(a, 0, true, &d->flags, &d->wait_sem, &d->wait_value, &d->signal_mask);
}

/* An entry's debug record: .file/.loc if given, else this file and line. */
static bool add_entry_src(struct as *a, unsigned int line, unsigned int col)
{
	struct entry_src *e = vec_push(a, &a->dbg[a->stream]);

	if (!e)
		return false;
	if (!a->file_set && !a->default_file_interned) {
		a->default_file_off = str_add(a, a->filename, strlen(a->filename), false);
		a->default_file_interned = true;
	}
	e->file_off = a->file_set ? a->file_off : a->default_file_off;
	e->line = a->loc_set ? a->loc_line : (a->file_set ? 0 : line);
	e->scope_off = a->scope_off;
	e->src_line = line;
	e->src_col = col;
	return true;
}

/* Edit distance, for suggestions (short words only). */
static unsigned int edits(const char *x, const char *y)
{
	unsigned int d[32][32], i, j;
	size_t n = strlen(x), m = strlen(y);

	if (n >= 32 || m >= 32)
		return 99;
	for (i = 0; i <= n; i++)
		d[i][0] = i;
	for (j = 0; j <= m; j++)
		d[0][j] = j;
	for (i = 1; i <= n; i++) {
		for (j = 1; j <= m; j++) {
			unsigned int c = d[i - 1][j - 1] + (x[i - 1] != y[j - 1]);

			if (d[i - 1][j] + 1 < c)
				c = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < c)
				c = d[i][j - 1] + 1;
			d[i][j] = c;
		}
	}
	return d[n][m];
}

/* The mnemonic within two edits of a misspelt one, if any. */
static const char *nearest(const char *w)
{
	const char *best = NULL;
	unsigned int i, bd = 3;

	for (i = 0; i <= VNEF_OP_COUNT; i++) {
		const char *c = i < VNEF_OP_COUNT ? op_names[i] : "dma";
		unsigned int e = edits(w, c);

		if (e < bd) {
			bd = e;
			best = c;
		}
	}
	return best;
}

static bool statement_entry(struct as *a)
{
	unsigned int line = a->tok.line, col = a->tok.col;
	char mnem[32];
	size_t limit;
	int op;

	if (!ident(a, mnem, sizeof(mnem), "an instruction"))
		return false;
	if (a->stream < 0) {
		diag(a, line, col, "instruction '%s' outside a stream: start one with .engine "
		     "tensor|vector|scalar|gpsimd or .queue N", mnem);
		return false;
	}
	limit = a->stream < VNEF_ENGINES ? VNEF_MAX_INSTRS : VNEF_MAX_DESCS;
	if (a->ins[a->stream].n >= limit) {
		diag(a, line, col, "too many entries in %s (at most %zu)",
		     nd_asm_engine_name((uint32_t)a->stream), limit);
		return false;
	}
	if (!strcmp(mnem, "dma")) {
		struct vnef_dma_desc d;

		if (a->stream < VNEF_ENGINES) {
			diag(a, line, col, "'dma' runs on a DMA queue, not on the %s engine "
			     "(start a queue with .queue N)", engine_names[a->stream]);
			return false;
		}
		if (!dma_desc(a, &d))
			return false;
		if (!add_entry_src(a, line, col))
			return false;
		{
			struct vnef_dma_desc *p = vec_push(a, &a->ins[a->stream]);

			if (!p)
				return false;
			*p = d;
		}
		return end_of_stmt(a);
	}
	op = lookup(op_names, VNEF_OP_COUNT, mnem);
	if (op < 0) {
		const char *near = nearest(mnem);

		if (near)
			diag(a, line, col, "unknown mnemonic '%s' (did you mean '%s'?)", mnem, near);
		else
			diag(a, line, col, "unknown mnemonic '%s'", mnem);
		return false;
	}
	if (a->stream >= VNEF_ENGINES) {
		diag(a, line, col, "'%s' runs on an engine, not on a DMA queue (DMA queues run "
		     "'dma' only)", mnem);
		return false;
	}
	if (!(op_engines[op] & (1u << a->stream))) {
		char list[64] = "";
		unsigned int e;

		for (e = 0; e < VNEF_ENGINES; e++)
			if (op_engines[op] & (1u << e))
				snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
					 *list ? ", " : "", engine_names[e]);
		diag(a, line, col, "'%s' does not run on the %s engine (it runs on: %s)", mnem,
		     engine_names[a->stream], list);
		return false;
	}
	{
		struct vnef_instr in;

		if (!instr(a, (uint32_t)op, mnem, &in))
			return false;
		if (!add_entry_src(a, line, col))
			return false;
		{
			struct vnef_instr *p = vec_push(a, &a->ins[a->stream]);

			if (!p)
				return false;
			*p = in;
		}
	}
	return end_of_stmt(a);
}

static bool string_arg(struct as *a, const char *what)
{
	if (!peek(a))
		return false;
	if (a->tok.kind != T_STR)
		return err_at_tok(a, what);
	take(a);
	return true;
}

static bool directive(struct as *a)
{
	unsigned int line, col;
	char name[32];

	line = a->tok.line;
	col = a->tok.col;
	take(a);			/* '.' */
	if (!peek(a))
		return false;
	if (a->tok.kind != T_IDENT || a->tok.col != col + 1)
		return err_at_tok(a, "a directive name after '.'");
	if (!ident(a, name, sizeof(name), "a directive"))
		return false;
	if (!strcmp(name, "program")) {
		if (a->prog_name_given) {
			diag(a, line, col, "duplicate .program directive");
			return false;
		}
		if (!string_arg(a, "the program name in quotes"))
			return false;
		a->prog_name = strdup(a->sbuf);
		if (!a->prog_name) {
			a->fatal = -ENOMEM;
			return false;
		}
		a->prog_name_given = true;
		return end_of_stmt(a);
	}
	if (!strcmp(name, "strtab")) {
		if (a->str_len > 1 || a->strtab_given) {
			diag(a, line, col, ".strtab must come before anything that names a string "
			     "(tensors, entries, .file, .scope)");
			return false;
		}
		a->strtab_given = true;
		do {
			/* After a comma, the list may go on on the next line. */
			while (a->str_len > 1 && peek(a) && a->tok.kind == T_NL)
				take(a);
			if (!string_arg(a, "a string"))
				return false;
			str_add(a, a->sbuf, a->slen, true);
		} while (accept_punct(a, ','));
		return end_of_stmt(a);
	}
	if (!strcmp(name, "tensor"))
		return do_tensor(a);
	if (!strcmp(name, "engine")) {
		uint32_t e;

		if (!name_in(a, engine_names, VNEF_ENGINES, &e, "engine",
			     "tensor, vector, scalar, gpsimd"))
			return false;
		a->stream = (int)e;
		return end_of_stmt(a);
	}
	if (!strcmp(name, "queue")) {
		uint64_t q;

		if (!peek(a))
			return false;
		line = a->tok.line;
		col = a->tok.col;
		if (!uint_val(a, UINT32_MAX, &q, "a DMA queue number"))
			return false;
		if (q >= VNEF_DMA_QUEUES) {
			diag(a, line, col, "DMA queue %llu is out of range (0..%d)",
			     (unsigned long long)q, VNEF_DMA_QUEUES - 1);
			return false;
		}
		a->stream = VNEF_STREAM_DMA((int)q);
		return end_of_stmt(a);
	}
	if (!strcmp(name, "scope")) {
		if (!string_arg(a, "a scope path in quotes (\"mlp/fc1\", or \"\" for none)"))
			return false;
		a->scope_off = str_add(a, a->sbuf, a->slen, false);
		return end_of_stmt(a);
	}
	if (!strcmp(name, "file")) {
		if (!peek(a))
			return false;
		if (a->tok.kind == T_NL || a->tok.kind == T_EOF) {
			a->file_set = false;
			a->loc_set = false;
			return end_of_stmt(a);
		}
		if (!string_arg(a, "a file name in quotes (or nothing to go back to this file)"))
			return false;
		a->file_off = str_add(a, a->sbuf, a->slen, false);
		a->file_set = true;
		a->loc_set = false;
		return end_of_stmt(a);
	}
	if (!strcmp(name, "loc")) {
		if (!u32_val(a, &a->loc_line, "a line number"))
			return false;
		a->loc_set = true;
		return end_of_stmt(a);
	}
	diag(a, line, col, "unknown directive '.%s' (.program, .strtab, .tensor, .engine, .queue, "
	     ".scope, .file, .loc)", name);
	return false;
}

static bool label(struct as *a, const char *name, unsigned int line, unsigned int col)
{
	struct label *l = a->labels.p;
	size_t i;

	for (i = 0; i < a->labels.n; i++) {
		if (!strcmp(l[i].name, name)) {
			diag(a, line, col, "duplicate label '%s'", name);
			return false;
		}
	}
	l = vec_push(a, &a->labels);
	if (!l)
		return false;
	l->name = strdup(name);
	if (!l->name) {
		a->fatal = -ENOMEM;
		a->labels.n--;
		return false;
	}
	return true;
}

static bool statement(struct as *a)
{
	if (!peek(a))
		return false;
	if (a->tok.kind == T_NL) {
		take(a);
		return true;
	}
	if (tok_punct(&a->tok, '.'))
		return directive(a);
	if (a->tok.kind == T_IDENT) {
		/* "name:" is a label; the statement may go on after it. */
		size_t save_pos = a->pos;
		unsigned int sl = a->line, sc = a->col;
		struct tok t = a->tok;
		struct tok next;

		if (!lex(a, &next))
			return false;
		if (tok_punct(&next, ':')) {
			char name[128];

			if (t.len >= sizeof(name)) {
				diag(a, t.line, t.col, "label is too long");
				return false;
			}
			memcpy(name, t.p, t.len);
			name[t.len] = 0;
			a->peeked = false;
			if (!label(a, name, t.line, t.col))
				return false;
			if (!peek(a))
				return false;
			if (a->tok.kind == T_NL || a->tok.kind == T_EOF)
				return end_of_stmt(a);
			if (a->tok.kind != T_IDENT)
				return err_at_tok(a, "an instruction after the label");
			return statement_entry(a);
		}
		a->pos = save_pos;
		a->line = sl;
		a->col = sc;
		a->tok = t;
		a->peeked = true;
		return statement_entry(a);
	}
	return err_at_tok(a, "a directive, a label or an instruction");
}

/* ------------------------------------------------------------------------------ */
/* Layout and validation                                                          */

struct plan {
	uint32_t type, index, count, entry_size;
	uint64_t size, offset;
	int stream;
};

static uint64_t align8(uint64_t x)
{
	return (x + 7) & ~7ull;
}

static int layout(struct as *a, void **imagep, size_t *sizep, struct plan *plan,
		  uint32_t *nsecp)
{
	struct vnef_header *h;
	struct vnef_section *st;
	uint32_t nsec = 0, i, s, name_off, ndebug = 0;
	uint64_t off;
	uint8_t *img;

	name_off = a->prog_name ? str_add(a, a->prog_name, strlen(a->prog_name), false) : 0;
	if (a->fatal)
		return a->fatal;
	for (s = 0; s < VNEF_STREAMS; s++)
		ndebug += (uint32_t)a->ins[s].n;
	plan[nsec++] = (struct plan){ .type = VNEF_SEC_STRTAB, .size = a->str_len, .stream = -1 };
	plan[nsec++] = (struct plan){ .type = VNEF_SEC_TENSORS, .count = (uint32_t)a->tensors.n,
		.entry_size = sizeof(struct vnef_tensor),
		.size = a->tensors.n * sizeof(struct vnef_tensor), .stream = -1 };
	if (a->clen)
		plan[nsec++] = (struct plan){ .type = VNEF_SEC_CONST, .size = a->clen,
					      .stream = -1 };
	for (s = 0; s < VNEF_STREAMS; s++) {
		uint32_t esz = s < VNEF_ENGINES ? sizeof(struct vnef_instr) :
						  sizeof(struct vnef_dma_desc);

		if (!a->ins[s].n)
			continue;
		plan[nsec++] = (struct plan){
			.type = s < VNEF_ENGINES ? VNEF_SEC_INSTR : VNEF_SEC_DMA,
			.index = s < VNEF_ENGINES ? s : s - VNEF_ENGINES,
			.count = (uint32_t)a->ins[s].n, .entry_size = esz,
			.size = a->ins[s].n * esz, .stream = (int)s };
	}
	if (ndebug)
		plan[nsec++] = (struct plan){ .type = VNEF_SEC_DEBUG, .count = ndebug,
			.entry_size = sizeof(struct vnef_debug),
			.size = (uint64_t)ndebug * sizeof(struct vnef_debug), .stream = -1 };
	off = align8(sizeof(*h) + (uint64_t)nsec * sizeof(*st));
	for (i = 0; i < nsec; i++) {
		plan[i].offset = off;
		off = align8(off + plan[i].size);
	}
	*nsecp = nsec;
	if (off > VNEF_MAX_IMAGE_BYTES)
		return -E2BIG;
	img = calloc(1, off);
	if (!img)
		return -ENOMEM;
	h = (struct vnef_header *)img;
	h->magic = VNEF_MAGIC;
	h->version = VNEF_VERSION;
	h->header_size = sizeof(*h);
	h->total_size = off;
	h->section_count = nsec;
	h->section_entry_size = sizeof(*st);
	h->name_off = name_off;
	st = (struct vnef_section *)(img + sizeof(*h));
	for (i = 0; i < nsec; i++) {
		uint8_t *p = img + plan[i].offset;
		uint32_t k;

		st[i].type = plan[i].type;
		st[i].index = plan[i].index;
		st[i].offset = plan[i].offset;
		st[i].size = plan[i].size;
		st[i].count = plan[i].count;
		st[i].entry_size = plan[i].entry_size;
		switch (plan[i].type) {
		case VNEF_SEC_STRTAB:
			memcpy(p, a->str, a->str_len);
			break;
		case VNEF_SEC_TENSORS:
			for (k = 0; k < a->tensors.n; k++)
				((struct vnef_tensor *)p)[k] =
					((struct src_tensor *)a->tensors.p)[k].t;
			break;
		case VNEF_SEC_CONST:
			memcpy(p, a->cdata, a->clen);
			break;
		case VNEF_SEC_INSTR:
		case VNEF_SEC_DMA:
			memcpy(p, a->ins[plan[i].stream].p, plan[i].size);
			break;
		case VNEF_SEC_DEBUG: {
			struct vnef_debug *d = (struct vnef_debug *)p;

			for (s = 0; s < VNEF_STREAMS; s++) {
				const struct entry_src *e = a->dbg[s].p;

				for (k = 0; k < a->dbg[s].n; k++, d++) {
					d->stream = s;
					d->index = k;
					d->file_off = e[k].file_off;
					d->line = e[k].line;
					d->scope_off = e[k].scope_off;
				}
			}
			break;
		}
		}
	}
	*imagep = img;
	*sizep = (size_t)off;
	return 0;
}

/* Report a validator refusal at the source of the entry or tensor it names. */
static void report_check(struct as *a, const struct vn_prog_error *pe, const struct plan *plan,
			 uint32_t nsec)
{
	unsigned int line = 0, col = 0;
	char where[96] = "";

	if (pe->section < nsec) {
		const struct plan *p = &plan[pe->section];

		if (p->type == VNEF_SEC_TENSORS && pe->index < a->tensors.n) {
			const struct src_tensor *t = &((struct src_tensor *)a->tensors.p)[pe->index];

			line = t->line;
			col = t->col;
			snprintf(where, sizeof(where), "tensor '%s'", t->name);
		} else if ((p->type == VNEF_SEC_INSTR || p->type == VNEF_SEC_DMA) &&
			   pe->index < a->dbg[p->stream].n) {
			const struct entry_src *e = a->dbg[p->stream].p;

			line = e[pe->index].src_line;
			col = e[pe->index].src_col;
			snprintf(where, sizeof(where), "%s entry %u",
				 nd_asm_engine_name((uint32_t)p->stream), pe->index);
		} else if (p->type == VNEF_SEC_DEBUG) {
			uint32_t k = pe->index, s;

			for (s = 0; s < VNEF_STREAMS; s++) {
				if (k < a->dbg[s].n) {
					line = ((struct entry_src *)a->dbg[s].p)[k].src_line;
					col = ((struct entry_src *)a->dbg[s].p)[k].src_col;
					break;
				}
				k -= (uint32_t)a->dbg[s].n;
			}
			snprintf(where, sizeof(where), "debug entry %u", pe->index);
		}
	}
	diag(a, line, col, "the device would refuse this program (%s check%s%s): %s",
	     vn_check_name(pe->check), *where ? ", " : "", where, pe->msg ? pe->msg : "");
}

static void as_free(struct as *a)
{
	size_t i;
	int s;

	for (i = 0; i < a->tensors.n; i++)
		free(((struct src_tensor *)a->tensors.p)[i].name);
	for (i = 0; i < a->labels.n; i++)
		free(((struct label *)a->labels.p)[i].name);
	free(a->tensors.p);
	free(a->labels.p);
	for (s = 0; s < VNEF_STREAMS; s++) {
		free(a->ins[s].p);
		free(a->dbg[s].p);
	}
	free(a->str);
	free(a->cdata);
	free(a->prog_name);
}

int nd_asm(const char *text, size_t len, const char *filename, unsigned int flags,
	   void **imagep, size_t *sizep, struct nd_asm_diag *first, FILE *errs)
{
	struct plan plan[3 + VNEF_STREAMS + 1];
	struct as a;
	uint32_t nsec = 0;
	int ret = 0, s;

	if (first)
		memset(first, 0, sizeof(*first));
	if (!imagep || !sizep || (!text && len))
		return -EINVAL;
	*imagep = NULL;
	*sizep = 0;
	memset(&a, 0, sizeof(a));
	a.text = text;
	a.len = len;
	a.line = 1;
	a.col = 1;
	a.filename = filename ? filename : "<input>";
	a.errs = errs;
	a.first = first;
	a.stream = -1;
	a.tensors.esz = sizeof(struct src_tensor);
	a.labels.esz = sizeof(struct label);
	for (s = 0; s < VNEF_STREAMS; s++) {
		a.ins[s].esz = s < VNEF_ENGINES ? sizeof(struct vnef_instr) :
						  sizeof(struct vnef_dma_desc);
		a.dbg[s].esz = sizeof(struct entry_src);
	}
	a.str_cap = 256;
	a.str = calloc(1, a.str_cap);
	if (!a.str)
		return -ENOMEM;
	a.str_len = 1;

	for (;;) {
		if (a.fatal || a.nerr > MAX_ERRORS)
			break;
		if (!peek(&a)) {
			skip_line(&a);
			continue;
		}
		if (a.tok.kind == T_EOF)
			break;
		if (!statement(&a) && !a.fatal)
			skip_line(&a);
	}
	if (a.fatal) {
		ret = a.fatal;
		if (ret == -E2BIG)
			diag(&a, 0, 0, "the program is larger than a 64 MiB image");
		else
			diag(&a, 0, 0, "out of memory");
		goto out;
	}
	if (!a.nerr) {
		size_t n = 0;

		for (s = 0; s < VNEF_STREAMS; s++)
			n += a.ins[s].n;
		if (!n)
			diag(&a, 0, 0, "the program has no instructions (a program needs at least "
			     "one entry in some stream)");
	}
	if (a.nerr) {
		ret = -EINVAL;
		goto out;
	}
	ret = layout(&a, imagep, sizep, plan, &nsec);
	if (ret) {
		diag(&a, 0, 0, ret == -E2BIG ? "the program is larger than a 64 MiB image" :
		     "out of memory");
		goto out;
	}
	if (!(flags & ND_ASM_NO_VALIDATE)) {
		struct vn_prog_error pe;
		int v = vn_program_check(*imagep, *sizep, &pe);

		if (v) {
			if (v == -EINVAL)
				report_check(&a, &pe, plan, nsec);
			else
				diag(&a, 0, 0, "the validator failed: %s", nd_strerror(v));
			free(*imagep);
			*imagep = NULL;
			*sizep = 0;
			ret = v;
		}
	}
out:
	as_free(&a);
	return ret;
}

/* ------------------------------------------------------------------------------ */
/* Disassembler                                                                   */

static int dis_text(const struct vn_program *p, bool with_strtab, struct out *o)
{
	const struct vnef_header *h = (const struct vnef_header *)p->image;
	const char **names;
	uint32_t i, s, k, cur_file = ~0u, cur_line = ~0u, cur_scope = 0;
	bool file_mode = false;
	const struct vnef_debug **dbg;

	names = calloc(p->tensor_count + 1, sizeof(*names));
	dbg = calloc(VNEF_STREAMS, sizeof(*dbg));
	if (!names || !dbg) {
		free(names);
		free(dbg);
		return -ENOMEM;
	}
	for (i = 0; i < p->tensor_count; i++)
		names[i] = vn_program_str(p, p->tensors[i].name_off);
	/* Debug entries in canonical order: each stream's run, found by its first entry. */
	for (k = 0, s = 0; s < VNEF_STREAMS; s++) {
		if (!p->streams[s].count)
			continue;
		if (k + p->streams[s].count <= p->debug_count) {
			const struct vnef_debug *d = &p->debug[k];
			bool ok = true;

			for (i = 0; i < p->streams[s].count && ok; i++)
				ok = d[i].stream == s && d[i].index == i;
			if (ok)
				dbg[s] = d;
		}
		k += p->streams[s].count;
	}

	put(o, ".program ");
	put_str(o, vn_program_str(p, h->name_off));
	put(o, "\n");
	if (with_strtab && p->strtab_size > 1) {
		uint32_t off = 1, n = 0;

		put(o, ".strtab ");
		while (off < p->strtab_size) {
			const char *str = p->strtab + off;

			put(o, "%s", n ? (n % 4 ? ", " : ",\n\t") : "");
			put_str(o, str);
			off += (uint32_t)strlen(str) + 1;
			n++;
		}
		put(o, "\n");
	}
	if (p->tensor_count)
		put(o, "\n");
	for (i = 0; i < p->tensor_count; i++) {
		const struct vnef_tensor *t = &p->tensors[i];
		uint64_t e, numel = t->size / vn_dtype_size(t->dtype);

		put(o, ".tensor ");
		put_name(o, names[i]);
		put(o, " %s %s [", kind_names[t->kind <= 4 ? t->kind : 0], dt_name(t->dtype));
		for (k = 0; k < t->rank; k++)
			put(o, "%s%llu", k ? ", " : "", (unsigned long long)t->shape[k]);
		put(o, "]");
		if (t->kind == VNEF_TENSOR_CONST) {
			const uint8_t *c = p->consts + t->const_off;

			put(o, " = {");
			for (e = 0; e < numel; e++) {
				put(o, "%s", e ? "," : "");
				put(o, "%s", e % 8 ? " " : "\n\t");
				if (t->dtype == VNEF_DT_BF16) {
					uint16_t hb;

					memcpy(&hb, c + e * 2, 2);
					if (nd_bf16_to_fp32(hb) != nd_bf16_to_fp32(hb))
						put(o, "0x%04x", hb);
					else
						put_f32(o, fbits(nd_bf16_to_fp32(hb)));
				} else {
					uint32_t b32;

					memcpy(&b32, c + e * 4, 4);
					put_f32(o, b32);
				}
			}
			put(o, "\n}");
		}
		put(o, "\n");
	}
	for (s = 0; s < VNEF_STREAMS; s++) {
		const struct vn_stream *st = &p->streams[s];

		if (!st->count)
			continue;
		if (s < VNEF_ENGINES)
			put(o, "\n.engine %s\n", engine_names[s]);
		else
			put(o, "\n.queue %u\n", s - VNEF_ENGINES);
		for (i = 0; i < st->count; i++) {
			if (dbg[s]) {
				const struct vnef_debug *d = &dbg[s][i];

				if (!file_mode || d->file_off != cur_file) {
					put(o, ".file ");
					put_str(o, vn_program_str(p, d->file_off));
					put(o, "\n");
					file_mode = true;
					cur_file = d->file_off;
					cur_line = 0;
				}
				if (d->line != cur_line) {
					put(o, ".loc %u\n", d->line);
					cur_line = d->line;
				}
				if (d->scope_off != cur_scope) {
					put(o, ".scope ");
					put_str(o, vn_program_str(p, d->scope_off));
					put(o, "\n");
					cur_scope = d->scope_off;
				}
			}
			put(o, "\t");
			if (st->instr)
				fmt_instr(o, &st->instr[i]);
			else
				fmt_desc(o, &st->desc[i], names, p->tensor_count);
			put(o, "\n");
		}
	}
	free(names);
	free(dbg);
	return 0;
}

/* Print to a malloc()ed string. */
static int dis_string(const struct vn_program *p, bool with_strtab, char **textp, size_t *lenp)
{
	struct out o = { NULL, 0, 0 };
	int ret;

	ret = dis_text(p, with_strtab, &o);
	if (ret)
		return ret;
	o.size = o.len + 1;
	o.buf = malloc(o.size);
	if (!o.buf)
		return -ENOMEM;
	o.len = 0;
	ret = dis_text(p, with_strtab, &o);
	if (ret) {
		free(o.buf);
		return ret;
	}
	*textp = o.buf;
	*lenp = o.len;
	return 0;
}

static bool reassembles(const char *text, size_t len, const void *image, size_t size)
{
	size_t sz;
	void *img;
	bool same;

	if (nd_asm(text, len, "<dis>", ND_ASM_NO_VALIDATE, &img, &sz, NULL, NULL))
		return false;
	same = sz == size && !memcmp(img, image, size);
	free(img);
	return same;
}

int nd_dis(const void *image, size_t size, unsigned int flags, FILE *out, int *exact,
	   struct nd_error *err)
{
	struct vn_prog_error pe;
	struct vn_program *p;
	char *text = NULL;
	size_t len = 0;
	bool same;
	int ret;

	if (exact)
		*exact = 0;
	if (!image || !out)
		return nd_seterr(err, EINVAL, "nd_dis: no image or no output");
	ret = vn_program_load(image, size, &p, &pe);
	if (ret)
		return nd_seterr(err, ret, "not a valid program: %s check: %s (section %d, entry %d)",
				 vn_check_name(pe.check), pe.msg ? pe.msg : "", (int)pe.section,
				 (int)pe.index);
	/* Without .strtab if that gives the same bytes; else with it, if that does. */
	ret = dis_string(p, false, &text, &len);
	if (ret)
		goto out;
	same = reassembles(text, len, image, size);
	if (!same && !(flags & ND_DIS_NO_LAYOUT)) {
		char *t2;
		size_t l2;

		ret = dis_string(p, true, &t2, &l2);
		if (ret)
			goto out;
		if (reassembles(t2, l2, image, size)) {
			free(text);
			text = t2;
			len = l2;
			same = true;
		} else {
			free(t2);
		}
	}
	if (exact)
		*exact = same;
	if (fwrite(text, 1, len, out) != len || fflush(out))
		ret = nd_seterr(err, EIO, "write error");
out:
	if (ret == -ENOMEM)
		nd_seterr(err, ENOMEM, "out of memory");
	free(text);
	vn_program_put(p);
	return ret;
}
