/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The assembler's internals (docs/assembler.md), shared by its lexer (asm_lex.c), its
 * parser (asm_parse.c), its operands (asm_operand.c) and the disassembler (asm_dis.c).
 * Not installed.
 *
 * nd_asm() is a one-pass parser over a hand-written lexer: every statement fills the raw
 * uapi structs directly (no builder: the text says exactly which semaphores and addresses
 * to use), then layout.c writes the image, as it does the builder's, so a builder's image
 * printed by nd_dis() reassembles to the same bytes. What an instruction takes and how it
 * is spelt comes from the ISA table (core/vn_isa.h).
 */
#ifndef ND_ASM_INT_H
#define ND_ASM_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vnprog_int.h"

#define ASM_MAX_ERRORS	20
#define ASM_MAX_STR	1024
#define ASM_MAX_NUM	80

/* The clauses that set an instruction flag: "acc", "rev". */
struct asm_flag {
	const char *word;
	uint32_t flag;			/* VNEF_IF_* */
	const char *does;		/* "accumulate", for "multiply_moving and transpose ..." */
};

extern const struct asm_flag asm_flags[2];

/* ------------------------------------------------------------------------------ */
/* Lexer (asm_lex.c)                                                              */

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
	char sbuf[ASM_MAX_STR];		/* the last string token, decoded */
	size_t slen;

	/* the program */
	char *str;
	size_t str_len, str_cap;
	bool strtab_given;
	char *prog_name;
	bool prog_name_given;
	const struct vneuron_model *model;	/* .model: what the image is checked for */
	struct vec tensors;		/* struct src_tensor */
	struct vec labels;		/* struct label */
	uint8_t *cdata;
	size_t clen;
	struct vec ins[VNEF_STREAMS];	/* struct vnef_instr, vnef_dma_desc or vnef_cc_instr */
	struct vec dbg[VNEF_STREAMS];	/* struct entry_src */
	int stream;			/* current stream, -1 before the first .engine/.queue */
	uint32_t file_off, loc_line, scope_off;
	bool file_set, loc_set;
	uint32_t default_file_off;
	bool default_file_interned;
};

/* A new zeroed element at the end of v; NULL (a->fatal set) when out of memory. */
void *asm_push(struct as *a, struct vec *v);
/* Report an error at line:col (line 0: the whole input). */
void asm_diag(struct as *a, unsigned int line, unsigned int col, const char *fmt, ...)
	ND_PRINTF(4, 5);

/* Lex one token into t; false after reporting a lexical error. */
bool asm_lex(struct as *a, struct tok *t);
/* The current token, lexed on demand (false: a lexical error was reported); take it. */
bool asm_peek(struct as *a);
void asm_take(struct as *a);
bool asm_tok_is(const struct tok *t, const char *word);
bool asm_tok_punct(const struct tok *t, char c);
/* A short printable form of a token for messages. */
const char *asm_tok_desc(const struct tok *t, char *buf, size_t n);
bool asm_all_digits(const char *p, size_t n, bool hex);

/* Each reports its error and returns false, or takes what it reads. */
bool asm_expected(struct as *a, const char *what);	/* "expected WHAT, found ..." */
bool asm_expect_punct(struct as *a, char c, const char *what);
bool asm_accept_punct(struct as *a, char c);		/* false without a message */
bool asm_ident(struct as *a, char *buf, size_t n, const char *what);
bool asm_uint(struct as *a, uint64_t max, uint64_t *v, const char *what);
bool asm_u32(struct as *a, uint32_t *v, const char *what);
bool asm_s32(struct as *a, int32_t *v, const char *what);
bool asm_f32(struct as *a, uint32_t *bits, const char *what);
/* The end of a statement: a newline or the end of the text. */
bool asm_end_of_stmt(struct as *a);
/* After an error: drop the rest of the line (or of a constant's values). */
void asm_skip_line(struct as *a);

/* Parser (asm_parse.c): what the operands need of the program so far. */
/* The tensor declared as name (its index in *index if not NULL), or NULL. */
struct src_tensor *asm_find_tensor(struct as *a, const char *name, uint32_t *index);
bool asm_name(struct as *a, char *buf, size_t n, const char *what);	/* ident or string */
bool asm_dtype(struct as *a, uint32_t *dt);				/* fp32, bf16 */

/* Operands (asm_operand.c) */
/* A name looked up with by_name (-1: none), the list of names for the message. */
bool asm_name_in(struct as *a, int (*by_name)(const char *), uint32_t *v,
		 const char *what, const char *list);
/* An engine instruction, mnemonic taken: operands in ISA-table order, then clauses. */
bool asm_instr(struct as *a, uint32_t op, const char *mnem, struct vnef_instr *in);
/* dma DST, SRC, C1 x C0 x CHUNK, then clauses. */
bool asm_dma_desc(struct as *a, struct vnef_dma_desc *d);
/*
 * A collective engine instruction, mnemonic taken: [REDUCE] DTYPE DST, SRC, COUNT, then
 * clauses (group, shift, wait, signal); nop takes the clauses only.
 */
bool asm_cc(struct as *a, uint32_t op, const char *mnem, struct vnef_cc_instr *in);

#endif /* ND_ASM_INT_H */
