// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The assembler's parser (asm_int.h, docs/assembler.md): statements, directives,
 * tensors and constants into the raw uapi structs (an instruction's operands are
 * asm_operand.c's), then the image through the one .vnef writer (layout.c) and the
 * core's validator.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "asm_int.h"
#include "vn_model.h"
#include "vn_program.h"

/* The names a lookup gives the values below 32, as a list: "fp32 or bf16". */
static const char *list_of(char *buf, size_t size, const char *(*name)(u32), const char *last)
{
	uint32_t v, n = 0, total = 0;
	size_t len = 0;

	for (v = 0; v < 32; v++)
		total += !!strcmp(name(v), "?");
	buf[0] = '\0';
	for (v = 0; v < 32; v++) {
		if (!strcmp(name(v), "?"))
			continue;
		len += snprintf(buf + (len < size ? len : size), len < size ? size - len : 0,
				"%s%s", !n ? "" : n + 1 == total ? last : ", ", name(v));
		n++;
	}
	return buf;
}

/* ------------------------------------------------------------------------------ */
/* Strings, tensors and constants                                                 */

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

struct src_tensor *asm_find_tensor(struct as *a, const char *name, uint32_t *index)
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
bool asm_name(struct as *a, char *buf, size_t n, const char *what)
{
	if (!asm_peek(a))
		return false;
	if (a->tok.kind == T_STR) {
		if (!a->slen || a->slen >= n) {
			asm_diag(a, a->tok.line, a->tok.col, "%s must be 1..%zu bytes long", what,
				 n - 1);
			return false;
		}
		memcpy(buf, a->sbuf, a->slen + 1);
		asm_take(a);
		return true;
	}
	return asm_ident(a, buf, n, what);
}

bool asm_dtype(struct as *a, uint32_t *dt)
{
	char buf[32], list[64], what[96];
	unsigned int line, col;
	int d;

	if (!asm_peek(a))
		return false;
	line = a->tok.line;
	col = a->tok.col;
	list_of(list, sizeof(list), vn_dtype_name, " or ");
	snprintf(what, sizeof(what), "a dtype (%s)", list);
	if (!asm_ident(a, buf, sizeof(buf), what))
		return false;
	d = vn_dtype_by_name(buf);
	if (d < 0) {
		asm_diag(a, line, col, "unknown dtype '%s' (%s)", buf, list);
		return false;
	}
	*dt = (uint32_t)d;
	return true;
}

/* .tensor NAME KIND DTYPE [d0, d1, ...] [= { values }] */
static bool do_tensor(struct as *a)
{
	char name[128], kind[32], list[64], what[96];
	struct src_tensor *t;
	unsigned int line, col, kline, kcol;
	uint64_t numel = 1, size, d;
	uint32_t dt, i;
	int k;

	if (!asm_peek(a))
		return false;
	line = a->tok.line;
	col = a->tok.col;
	if (!asm_name(a, name, sizeof(name), "a tensor name"))
		return false;
	if (asm_find_tensor(a, name, NULL)) {
		asm_diag(a, line, col, "duplicate name: tensor '%s' is already defined at line %u", name,
			 asm_find_tensor(a, name, NULL)->line);
		return false;
	}
	if (a->tensors.n >= VNEF_MAX_TENSORS) {
		asm_diag(a, line, col, "too many tensors (at most %d)", VNEF_MAX_TENSORS);
		return false;
	}
	if (!asm_peek(a))
		return false;
	kline = a->tok.line;
	kcol = a->tok.col;
	snprintf(what, sizeof(what), "a tensor kind (%s)",
		 list_of(list, sizeof(list), vn_tensor_kind_name, ", "));
	if (!asm_ident(a, kind, sizeof(kind), what))
		return false;
	k = vn_tensor_kind_by_name(kind);
	if (k < 0) {
		asm_diag(a, kline, kcol, "unknown tensor kind '%s' (%s)", kind,
			 list_of(list, sizeof(list), vn_tensor_kind_name, " or "));
		return false;
	}
	if (!asm_dtype(a, &dt))
		return false;
	t = asm_push(a, &a->tensors);
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
	t->t.kind = (uint32_t)k;
	t->t.dtype = dt;
	t->t.name_off = str_add(a, name, strlen(name), false);
	if (!asm_expect_punct(a, '[', "'[' and the shape"))
		return false;
	for (i = 0; ; i++) {
		if (!asm_peek(a))
			return false;
		if (i == VNEF_MAX_RANK) {
			asm_diag(a, a->tok.line, a->tok.col, "a tensor has at most %d dimensions",
				 VNEF_MAX_RANK);
			return false;
		}
		line = a->tok.line;
		col = a->tok.col;
		if (!asm_uint(a, VNEF_MAX_TENSOR_BYTES, &d, "a dimension"))
			return false;
		if (!d) {
			asm_diag(a, line, col, "a dimension must be at least 1");
			return false;
		}
		t->t.shape[i] = d;
		if (d > VNEF_MAX_TENSOR_BYTES / numel) {
			asm_diag(a, line, col, "tensor '%s' is larger than 16 GiB", name);
			return false;
		}
		numel *= d;
		if (asm_accept_punct(a, ']'))
			break;
		if (!asm_expect_punct(a, ',', "',' or ']' in the shape"))
			return false;
	}
	t->t.rank = i + 1;
	size = numel * vn_dtype_bytes(dt);
	if (size > VNEF_MAX_TENSOR_BYTES) {
		asm_diag(a, line, col, "tensor '%s' is larger than 16 GiB", name);
		return false;
	}
	t->t.size = size;
	if (!asm_peek(a))
		return false;
	if (t->t.kind != VNEF_TENSOR_CONST) {
		if (asm_tok_punct(&a->tok, '=')) {
			asm_diag(a, a->tok.line, a->tok.col, "only const tensors have data ('%s' is %s)",
				 name, kind);
			return false;
		}
		return asm_end_of_stmt(a);
	}
	if (!asm_expect_punct(a, '=', "'= {' and the constant's values"))
		return false;
	if (!asm_expect_punct(a, '{', "'{' and the constant's values"))
		return false;
	a->in_braces = true;
	{
		uint64_t off = (a->clen + 7) & ~7ull, n = 0;
		uint8_t *q;

		if (off + size > VNEF_MAX_IMAGE_BYTES) {
			asm_diag(a, t->line, t->col, "constant '%s' does not fit in a 64 MiB image",
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
			while (asm_peek(a) && a->tok.kind == T_NL)
				asm_take(a);
			if (!asm_peek(a))
				return false;
			if (asm_tok_punct(&a->tok, '}')) {
				if (n != numel) {
					asm_diag(a, a->tok.line, a->tok.col, "constant '%s' needs %llu "
						 "values, got %llu", name, (unsigned long long)numel,
						 (unsigned long long)n);
					return false;
				}
				asm_take(a);
				a->in_braces = false;
				break;
			}
			if (n && !asm_expect_punct(a, ',', "',' or '}' between values"))
				return false;
			while (asm_peek(a) && a->tok.kind == T_NL)
				asm_take(a);
			if (!asm_peek(a))
				return false;
			if (n == numel) {
				asm_diag(a, a->tok.line, a->tok.col, "too many values: constant '%s' "
					 "has %llu elements", name, (unsigned long long)numel);
				return false;
			}
			line = a->tok.line;
			col = a->tok.col;
			raw = a->tok.kind == T_NUM && a->tok.len > 2 && a->tok.p[0] == '0' &&
			      (a->tok.p[1] == 'x' || a->tok.p[1] == 'X') &&
			      asm_all_digits(a->tok.p + 2, a->tok.len - 2, true);
			if (!asm_f32(a, &bits, "a value"))
				return false;
			if (dt == VNEF_DT_BF16) {
				uint16_t h;

				/* A raw value is the bf16's own 16 bits. */
				if (raw) {
					if (bits > 0xffff) {
						asm_diag(a, line, col, "raw bf16 bits are at most 0xffff");
						return false;
					}
					h = (uint16_t)bits;
				} else {
					h = nd_fp32_to_bf16(nd_f32(bits));
				}
				memcpy(a->cdata + off + n * 2, &h, 2);
			} else {
				memcpy(a->cdata + off + n * 4, &bits, 4);
			}
			n++;
		}
	}
	return asm_end_of_stmt(a);
}

/* An entry's debug record: .file/.loc if given, else this file and line. */
static bool add_entry_src(struct as *a, unsigned int line, unsigned int col)
{
	struct entry_src *e = asm_push(a, &a->dbg[a->stream]);

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

/* The mnemonic within two edits of a misspelt one, if any (any stream's). */
static const char *nearest(const char *w)
{
	const char *best = NULL;
	unsigned int i, bd = 3;

	for (i = 0; i <= VNEF_OP_COUNT + VNEF_CC_OP_COUNT; i++) {
		const char *c = i < VNEF_OP_COUNT ? vn_opcode_mnemonic(i) :
				i < VNEF_OP_COUNT + VNEF_CC_OP_COUNT ?
				vn_cc_opcode_mnemonic(i - VNEF_OP_COUNT) : "dma";
		unsigned int e = nd_edits(w, strlen(w), c, strlen(c));

		if (e < bd) {
			bd = e;
			best = c;
		}
	}
	return best;
}

/* The collective engine's mnemonics, as a list: "nop, all_reduce, ... or permute". */
static const char *cc_list(char *buf, size_t size)
{
	size_t len = 0;
	uint32_t i;

	buf[0] = '\0';
	for (i = 0; i < VNEF_CC_OP_COUNT; i++)
		len += snprintf(buf + (len < size ? len : size), len < size ? size - len : 0,
				"%s%s", !i ? "" : i + 1 == VNEF_CC_OP_COUNT ? " or " : ", ",
				vn_cc_opcode_mnemonic(i));
	return buf;
}

/* An entry of the collective engine's stream. */
static bool cc_entry(struct as *a, const char *mnem, unsigned int line, unsigned int col)
{
	struct vnef_cc_instr in, *p;
	char list[128];
	int op = vn_cc_opcode_by_mnemonic(mnem);

	if (op < 0) {
		const char *near = nearest(mnem);

		if (!strcmp(mnem, "dma") || vn_opcode_by_mnemonic(mnem) >= 0)
			asm_diag(a, line, col, "'%s' does not run on the collective engine (it runs "
				 "%s)", mnem, cc_list(list, sizeof(list)));
		else if (near)
			asm_diag(a, line, col, "unknown mnemonic '%s' (did you mean '%s'?)", mnem,
				 near);
		else
			asm_diag(a, line, col, "unknown mnemonic '%s'", mnem);
		return false;
	}
	if (!asm_cc(a, (uint32_t)op, mnem, &in))
		return false;
	if (!add_entry_src(a, line, col))
		return false;
	p = asm_push(a, &a->ins[a->stream]);
	if (!p)
		return false;
	*p = in;
	return asm_end_of_stmt(a);
}

static bool statement_entry(struct as *a)
{
	unsigned int line = a->tok.line, col = a->tok.col;
	char mnem[32];
	unsigned int engines;
	size_t limit;
	int op;

	if (!asm_ident(a, mnem, sizeof(mnem), "an instruction"))
		return false;
	if (a->stream < 0) {
		asm_diag(a, line, col, "instruction '%s' outside a stream: start one with .engine "
			 "tensor|vector|scalar|gpsimd|cc or .queue N", mnem);
		return false;
	}
	limit = nd_stream_limit((uint32_t)a->stream);
	if (a->ins[a->stream].n >= limit) {
		asm_diag(a, line, col, "too many entries in %s (at most %zu)",
			 nd_asm_engine_name((uint32_t)a->stream), limit);
		return false;
	}
	if (a->stream == VNEF_STREAM_CC)
		return cc_entry(a, mnem, line, col);
	if (vn_cc_opcode_by_mnemonic(mnem) > 0 && vn_opcode_by_mnemonic(mnem) < 0) {
		if (a->stream < VNEF_ENGINES)
			asm_diag(a, line, col, "'%s' runs on the collective engine, not on the %s "
				 "engine (start its stream with .engine %s)", mnem,
				 vn_engine_mnemonic((uint32_t)a->stream), VN_CC_ENGINE_MNEMONIC);
		else
			asm_diag(a, line, col, "'%s' runs on the collective engine, not on a DMA "
				 "queue (start its stream with .engine %s)", mnem,
				 VN_CC_ENGINE_MNEMONIC);
		return false;
	}
	if (!strcmp(mnem, "dma")) {
		struct vnef_dma_desc d;

		if (a->stream < VNEF_ENGINES) {
			asm_diag(a, line, col, "'dma' runs on a DMA queue, not on the %s engine "
				 "(start a queue with .queue N)", vn_engine_mnemonic(a->stream));
			return false;
		}
		if (!asm_dma_desc(a, &d))
			return false;
		if (!add_entry_src(a, line, col))
			return false;
		{
			struct vnef_dma_desc *p = asm_push(a, &a->ins[a->stream]);

			if (!p)
				return false;
			*p = d;
		}
		return asm_end_of_stmt(a);
	}
	op = vn_opcode_by_mnemonic(mnem);
	if (op < 0) {
		const char *near = nearest(mnem);

		if (near)
			asm_diag(a, line, col, "unknown mnemonic '%s' (did you mean '%s'?)", mnem, near);
		else
			asm_diag(a, line, col, "unknown mnemonic '%s'", mnem);
		return false;
	}
	if (a->stream >= VNEF_ENGINES) {
		asm_diag(a, line, col, "'%s' runs on an engine, not on a DMA queue (DMA queues run "
			 "'dma' only)", mnem);
		return false;
	}
	engines = vn_opcode_info(op)->engines;
	if (!(engines & (1u << a->stream))) {
		char list[64] = "";
		unsigned int e;

		for (e = 0; e < VNEF_ENGINES; e++)
			if (engines & (1u << e))
				snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
					 *list ? ", " : "", vn_engine_mnemonic(e));
		asm_diag(a, line, col, "'%s' does not run on the %s engine (it runs on: %s)", mnem,
			 vn_engine_mnemonic(a->stream), list);
		return false;
	}
	{
		struct vnef_instr in;

		if (!asm_instr(a, (uint32_t)op, mnem, &in))
			return false;
		if (!add_entry_src(a, line, col))
			return false;
		{
			struct vnef_instr *p = asm_push(a, &a->ins[a->stream]);

			if (!p)
				return false;
			*p = in;
		}
	}
	return asm_end_of_stmt(a);
}

static bool string_arg(struct as *a, const char *what)
{
	if (!asm_peek(a))
		return false;
	if (a->tok.kind != T_STR)
		return asm_expected(a, what);
	asm_take(a);
	return true;
}

/* .engine NAME: an engine's stream, or the collective engine's ("cc"). */
static int stream_by_mnemonic(const char *s)
{
	return !strcmp(s, VN_CC_ENGINE_MNEMONIC) ? VNEF_STREAM_CC : vn_engine_by_mnemonic(s);
}

static bool directive(struct as *a)
{
	unsigned int line, col;
	char name[32], list[64];

	line = a->tok.line;
	col = a->tok.col;
	asm_take(a);			/* '.' */
	if (!asm_peek(a))
		return false;
	if (a->tok.kind != T_IDENT || a->tok.col != col + 1)
		return asm_expected(a, "a directive name after '.'");
	if (!asm_ident(a, name, sizeof(name), "a directive"))
		return false;
	if (!strcmp(name, "program")) {
		if (a->prog_name_given) {
			asm_diag(a, line, col, "duplicate .program directive");
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
		return asm_end_of_stmt(a);
	}
	if (!strcmp(name, "strtab")) {
		if (a->str_len > 1 || a->strtab_given) {
			asm_diag(a, line, col, ".strtab must come before anything that names a string "
				 "(tensors, entries, .file, .scope)");
			return false;
		}
		a->strtab_given = true;
		do {
			/* After a comma, the list may go on on the next line. */
			while (a->str_len > 1 && asm_peek(a) && a->tok.kind == T_NL)
				asm_take(a);
			if (!string_arg(a, "a string"))
				return false;
			str_add(a, a->sbuf, a->slen, true);
		} while (asm_accept_punct(a, ','));
		return asm_end_of_stmt(a);
	}
	if (!strcmp(name, "model")) {
		if (a->model) {
			asm_diag(a, line, col, "duplicate .model directive");
			return false;
		}
		if (!string_arg(a, "a model name in quotes (\"trn1\", \"trn2\" or \"trn3\")"))
			return false;
		a->model = vn_model_find(a->sbuf);
		if (!a->model) {
			asm_diag(a, line, col, "unknown model '%s' (trn1, trn2 or trn3)", a->sbuf);
			return false;
		}
		return asm_end_of_stmt(a);
	}
	if (!strcmp(name, "tensor"))
		return do_tensor(a);
	if (!strcmp(name, "engine")) {
		uint32_t e;

		list_of(list, sizeof(list), vn_engine_mnemonic, ", ");
		snprintf(list + strlen(list), sizeof(list) - strlen(list), ", %s",
			 VN_CC_ENGINE_MNEMONIC);
		if (!asm_name_in(a, stream_by_mnemonic, &e, "engine", list))
			return false;
		a->stream = (int)e;
		return asm_end_of_stmt(a);
	}
	if (!strcmp(name, "queue")) {
		uint64_t q;

		if (!asm_peek(a))
			return false;
		line = a->tok.line;
		col = a->tok.col;
		if (!asm_uint(a, UINT32_MAX, &q, "a DMA queue number"))
			return false;
		if (q >= VNEF_DMA_QUEUES) {
			asm_diag(a, line, col, "DMA queue %llu is out of range (0..%d)",
				 (unsigned long long)q, VNEF_DMA_QUEUES - 1);
			return false;
		}
		a->stream = VNEF_STREAM_DMA((int)q);
		return asm_end_of_stmt(a);
	}
	if (!strcmp(name, "scope")) {
		if (!string_arg(a, "a scope path in quotes (\"mlp/fc1\", or \"\" for none)"))
			return false;
		a->scope_off = str_add(a, a->sbuf, a->slen, false);
		return asm_end_of_stmt(a);
	}
	if (!strcmp(name, "file")) {
		if (!asm_peek(a))
			return false;
		if (a->tok.kind == T_NL || a->tok.kind == T_EOF) {
			a->file_set = false;
			a->loc_set = false;
			return asm_end_of_stmt(a);
		}
		if (!string_arg(a, "a file name in quotes (or nothing to go back to this file)"))
			return false;
		a->file_off = str_add(a, a->sbuf, a->slen, false);
		a->file_set = true;
		a->loc_set = false;
		return asm_end_of_stmt(a);
	}
	if (!strcmp(name, "loc")) {
		if (!asm_u32(a, &a->loc_line, "a line number"))
			return false;
		a->loc_set = true;
		return asm_end_of_stmt(a);
	}
	asm_diag(a, line, col, "unknown directive '.%s' (.program, .model, .strtab, .tensor, "
		 ".engine, .queue, .scope, .file, .loc)", name);
	return false;
}

static bool label(struct as *a, const char *name, unsigned int line, unsigned int col)
{
	struct label *l = a->labels.p;
	size_t i;

	for (i = 0; i < a->labels.n; i++) {
		if (!strcmp(l[i].name, name)) {
			asm_diag(a, line, col, "duplicate label '%s'", name);
			return false;
		}
	}
	l = asm_push(a, &a->labels);
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
	if (!asm_peek(a))
		return false;
	if (a->tok.kind == T_NL) {
		asm_take(a);
		return true;
	}
	if (asm_tok_punct(&a->tok, '.'))
		return directive(a);
	if (a->tok.kind == T_IDENT) {
		/* "name:" is a label; the statement may go on after it. */
		size_t save_pos = a->pos;
		unsigned int sl = a->line, sc = a->col;
		struct tok t = a->tok;
		struct tok next;

		if (!asm_lex(a, &next))
			return false;
		if (asm_tok_punct(&next, ':')) {
			char name[128];

			if (t.len >= sizeof(name)) {
				asm_diag(a, t.line, t.col, "label is too long");
				return false;
			}
			memcpy(name, t.p, t.len);
			name[t.len] = 0;
			a->peeked = false;
			if (!label(a, name, t.line, t.col))
				return false;
			if (!asm_peek(a))
				return false;
			if (a->tok.kind == T_NL || a->tok.kind == T_EOF)
				return asm_end_of_stmt(a);
			if (a->tok.kind != T_IDENT)
				return asm_expected(a, "an instruction after the label");
			return statement_entry(a);
		}
		a->pos = save_pos;
		a->line = sl;
		a->col = sc;
		a->tok = t;
		a->peeked = true;
		return statement_entry(a);
	}
	return asm_expected(a, "a directive, a label or an instruction");
}

/* ------------------------------------------------------------------------------ */
/* The image                                                                      */

/* The program through the one .vnef writer (layout.c). */
static int layout(struct as *a, void **imagep, size_t *sizep)
{
	struct nd_layout l = { 0 };
	uint32_t s, k;
	int ret;

	l.name_off = a->prog_name ? str_add(a, a->prog_name, strlen(a->prog_name), false) : 0;
	if (a->fatal)
		return a->fatal;
	l.strtab_size = (uint32_t)a->str_len;
	l.tensor_count = (uint32_t)a->tensors.n;
	l.const_size = a->clen;
	for (s = 0; s < VNEF_STREAMS; s++)
		l.count[s] = (uint32_t)a->ins[s].n;
	ret = nd_layout(&l);
	if (ret)
		return ret;
	memcpy(l.strtab, a->str, a->str_len);
	for (k = 0; k < a->tensors.n; k++)
		l.tensors[k] = ((struct src_tensor *)a->tensors.p)[k].t;
	if (a->clen)
		memcpy(l.consts, a->cdata, a->clen);
	for (s = 0; s < VNEF_STREAMS; s++) {
		const struct entry_src *e = a->dbg[s].p;

		if (!a->ins[s].n)
			continue;
		memcpy(s < VNEF_ENGINES ? (void *)l.instr[s] : s == VNEF_STREAM_CC ?
		       (void *)l.cc : (void *)l.desc[s - VNEF_ENGINES],
		       a->ins[s].p, a->ins[s].n * a->ins[s].esz);
		for (k = 0; k < a->ins[s].n; k++) {
			l.debug[s][k].file_off = e[k].file_off;
			l.debug[s][k].line = e[k].line;
			l.debug[s][k].scope_off = e[k].scope_off;
		}
	}
	*imagep = l.image;
	*sizep = l.size;
	return 0;
}

/* Report a validator refusal at the source of the entry or tensor it names. */
static void report_check(struct as *a, const struct vn_prog_error *pe, const void *image)
{
	const struct vnef_header *h = image;
	const struct vnef_section *sec = (const void *)((const uint8_t *)image + h->header_size);
	unsigned int line = 0, col = 0;
	char where[96] = "";

	if (pe->section < h->section_count) {
		const struct vnef_section *p = &sec[pe->section];
		uint32_t stream = p->type == VNEF_SEC_INSTR ? p->index :
				  p->type == VNEF_SEC_CC ? VNEF_STREAM_CC :
				  VNEF_STREAM_DMA(p->index);

		if (p->type == VNEF_SEC_TENSORS && pe->index < a->tensors.n) {
			const struct src_tensor *t = &((struct src_tensor *)a->tensors.p)[pe->index];

			line = t->line;
			col = t->col;
			snprintf(where, sizeof(where), "tensor '%s'", t->name);
		} else if ((p->type == VNEF_SEC_INSTR || p->type == VNEF_SEC_DMA ||
			    p->type == VNEF_SEC_CC) &&
			   stream < VNEF_STREAMS && pe->index < a->dbg[stream].n) {
			const struct entry_src *e = a->dbg[stream].p;

			line = e[pe->index].src_line;
			col = e[pe->index].src_col;
			snprintf(where, sizeof(where), "%s entry %u", nd_asm_engine_name(stream),
				 pe->index);
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
	asm_diag(a, line, col, "the device would refuse this program (%s check%s%s): %s",
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
	struct as a;
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
		a.ins[s].esz = nd_stream_esz((uint32_t)s);
		a.dbg[s].esz = sizeof(struct entry_src);
	}
	a.str_cap = 256;
	a.str = calloc(1, a.str_cap);
	if (!a.str)
		return -ENOMEM;
	a.str_len = 1;

	for (;;) {
		if (a.fatal || a.nerr > ASM_MAX_ERRORS)
			break;
		if (!asm_peek(&a)) {
			asm_skip_line(&a);
			continue;
		}
		if (a.tok.kind == T_EOF)
			break;
		if (!statement(&a) && !a.fatal)
			asm_skip_line(&a);
	}
	if (a.fatal) {
		ret = a.fatal;
		if (ret == -E2BIG)
			asm_diag(&a, 0, 0, "the program is larger than a 64 MiB image");
		else
			asm_diag(&a, 0, 0, "out of memory");
		goto out;
	}
	if (!a.nerr) {
		size_t n = 0;

		for (s = 0; s < VNEF_STREAMS; s++)
			n += a.ins[s].n;
		if (!n)
			asm_diag(&a, 0, 0, "the program has no instructions (a program needs at least "
				 "one entry in some stream)");
	}
	if (a.nerr) {
		ret = -EINVAL;
		goto out;
	}
	ret = layout(&a, imagep, sizep);
	if (ret) {
		asm_diag(&a, 0, 0, ret == -E2BIG ? "the program is larger than a 64 MiB image" :
			 "out of memory");
		goto out;
	}
	if (!(flags & ND_ASM_NO_VALIDATE)) {
		struct vn_prog_error pe;
		int v = vn_program_check_for(a.model, *imagep, *sizep, &pe);

		if (v) {
			if (v == -EINVAL)
				report_check(&a, &pe, *imagep);
			else
				asm_diag(&a, 0, 0, "the validator failed: %s", nd_strerror(v));
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

