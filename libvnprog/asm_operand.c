// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The assembler's operands (asm_int.h, docs/assembler.md): access patterns, DMA
 * endpoints, semaphore clauses, and an instruction's operands read in the order its ISA
 * table entry lists them, with the table's names in the messages.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "asm_int.h"

/* An argument's name without its note: "a scalar (a number or ...)" is "a scalar". */
static int short_len(const char *name)
{
	const char *p = strstr(name, " (");

	return p ? (int)(p - name) : (int)strlen(name);
}

/* The argument as the value being read: "the scale". */
static const char *the_arg(const struct vn_isa_arg *arg, char *buf, size_t size)
{
	char word[48];

	snprintf(buf, size, "the %s", nd_arg_word(arg, word, sizeof(word)));
	return buf;
}

/*
 * What is still to come from argument i on, for "missing operand: MNEM needs ...": one
 * argument with its note ("a scalar (a number or a [P x 1] column)"), several as a list
 * ("a source, a scale and a bias").
 */
static const char *needs(const struct vn_opcode_info *info, unsigned int i, char *buf,
			 size_t size)
{
	unsigned int j, n = 0, total = 0;
	size_t len = 0;

	for (j = i; j < VN_ISA_MAX_ARGS && info->args[j].kind != VN_ARG_END; j++)
		total += info->args[j].kind != VN_ARG_OP;
	buf[0] = '\0';
	for (j = i; j < VN_ISA_MAX_ARGS && info->args[j].kind != VN_ARG_END; j++) {
		const char *name = info->args[j].name ? info->args[j].name : "an operand";

		if (info->args[j].kind == VN_ARG_OP)
			continue;
		len += snprintf(buf + (len < size ? len : size), len < size ? size - len : 0,
				"%s%.*s", !n ? "" : n + 1 == total ? " and " : ", ",
				total == 1 ? (int)strlen(name) : short_len(name), name);
		n++;
	}
	return buf;
}

/* An on-chip access pattern: MEM.DTYPE[P0:P1]@OFF[C0] | [C0:S0] | [C1:S1, C0:S0] */
static bool ap_val(struct as *a, struct vnef_ap *ap, const char *what)
{
	char mem[32];
	uint32_t dt, p0, p1, off, c[2], s[2];
	unsigned int line, col, pl, pc;

	if (!asm_peek(a))
		return false;
	line = a->tok.line;
	col = a->tok.col;
	if (a->tok.kind != T_IDENT) {
		char b[64];

		asm_diag(a, line, col, "expected %s (an access pattern such as sbuf.fp32[0:128]@0x0[512])"
			 ", found %s", what, asm_tok_desc(&a->tok, b, sizeof(b)));
		return false;
	}
	if (!asm_ident(a, mem, sizeof(mem), what))
		return false;
	if (strcmp(mem, vn_mem_lower(VNEF_MEM_SBUF)) && strcmp(mem, vn_mem_lower(VNEF_MEM_PSUM))) {
		asm_diag(a, line, col, "%s: '%s' is not an on-chip memory (sbuf or psum)", what, mem);
		return false;
	}
	if (!asm_expect_punct(a, '.', "'.' and a dtype after the memory"))
		return false;
	if (!asm_dtype(a, &dt))
		return false;
	if (!asm_expect_punct(a, '[', "'[' and a partition range"))
		return false;
	if (!asm_peek(a))
		return false;
	pl = a->tok.line;
	pc = a->tok.col;
	if (!asm_u32(a, &p0, "the first partition") ||
	    !asm_expect_punct(a, ':', "':' in the partition range") ||
	    !asm_u32(a, &p1, "the end partition") ||
	    !asm_expect_punct(a, ']', "']' after the partition range"))
		return false;
	if (p1 <= p0 || p1 > VNEF_PARTITIONS) {
		asm_diag(a, pl, pc, "partition range [%u:%u] is out of range: partitions are 0..%d and "
			 "the range needs at least one", p0, p1, VNEF_PARTITIONS);
		return false;
	}
	if (!asm_expect_punct(a, '@', "'@' and a byte offset") ||
	    !asm_u32(a, &off, "a byte offset") ||
	    !asm_expect_punct(a, '[', "'[' and the free-axis pattern"))
		return false;
	if (!asm_u32(a, &c[0], "an element count"))
		return false;
	s[0] = 1;
	c[1] = 1;
	s[1] = 0;
	if (asm_accept_punct(a, ':')) {
		if (!asm_u32(a, &s[0], "a stride"))
			return false;
		if (asm_accept_punct(a, ',')) {
			c[1] = c[0];
			s[1] = s[0];
			if (!asm_u32(a, &c[0], "an element count") ||
			    !asm_expect_punct(a, ':', "':' and a stride") ||
			    !asm_u32(a, &s[0], "a stride"))
				return false;
		}
	}
	if (!asm_expect_punct(a, ']', "']' after the free-axis pattern"))
		return false;
	if (!c[0] || !c[1]) {
		asm_diag(a, line, col, "%s: element counts must be at least 1", what);
		return false;
	}
	memset(ap, 0, sizeof(*ap));
	ap->mem = !strcmp(mem, vn_mem_lower(VNEF_MEM_SBUF)) ? VNEF_MEM_SBUF : VNEF_MEM_PSUM;
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
	if (!asm_peek(a))
		return false;
	line = a->tok.line;
	col = a->tok.col;
	if (a->tok.kind != T_IDENT && a->tok.kind != T_STR) {
		char b[64];

		asm_diag(a, line, col, "expected %s (a tensor name or sbuf[P]/psum[P]), found %s", what,
			 asm_tok_desc(&a->tok, b, sizeof(b)));
		return false;
	}
	if (a->tok.kind == T_IDENT && (asm_tok_is(&a->tok, "sbuf") || asm_tok_is(&a->tok, "psum"))) {
		e->mem = asm_tok_is(&a->tok, "sbuf") ? VNEF_MEM_SBUF : VNEF_MEM_PSUM;
		asm_take(a);
		if (!asm_expect_punct(a, '[', "'[' and a partition"))
			return false;
		if (!asm_peek(a))
			return false;
		line = a->tok.line;
		col = a->tok.col;
		if (!asm_u32(a, &e->partition, "a partition"))
			return false;
		if (e->partition >= VNEF_PARTITIONS) {
			asm_diag(a, line, col, "partition %u is out of range (0..%d)", e->partition,
				 VNEF_PARTITIONS - 1);
			return false;
		}
		if (asm_accept_punct(a, ';')) {
			if (!asm_u32(a, &e->part_stride[1], "a partition stride") ||
			    !asm_expect_punct(a, ',', "',' and a second partition stride") ||
			    !asm_u32(a, &e->part_stride[0], "a partition stride"))
				return false;
		}
		if (!asm_expect_punct(a, ']', "']'"))
			return false;
	} else {
		uint32_t idx;

		if (!asm_name(a, name, sizeof(name), "a tensor name"))
			return false;
		if (!asm_find_tensor(a, name, &idx)) {
			asm_diag(a, line, col, "undefined tensor '%s' (declare it with .tensor first)",
				 name);
			return false;
		}
		e->mem = VNEF_MEM_HBM;
		e->tensor = idx;
	}
	if (!asm_expect_punct(a, '@', "'@' and a byte offset") ||
	    !asm_uint(a, UINT64_MAX, &off, "a byte offset"))
		return false;
	e->offset = off;
	if (asm_peek(a) && asm_tok_punct(&a->tok, '[')) {
		asm_take(a);
		if (!asm_uint(a, UINT64_MAX, &off, "a byte stride"))
			return false;
		e->stride[1] = off;
		if (!asm_expect_punct(a, ',', "',' and a second byte stride") ||
		    !asm_uint(a, UINT64_MAX, &off, "a byte stride"))
			return false;
		e->stride[0] = off;
		if (!asm_expect_punct(a, ']', "']' after the strides"))
			return false;
	}
	/* "pid N": N bytes further per program id (a logical core's instance) */
	if (asm_peek(a) && a->tok.kind == T_IDENT && asm_tok_is(&a->tok, "pid")) {
		line = a->tok.line;
		col = a->tok.col;
		asm_take(a);
		if (e->mem != VNEF_MEM_HBM) {
			asm_diag(a, line, col, "'pid' (a program-id stride) is for a tensor's "
				 "endpoint, not sbuf or psum");
			return false;
		}
		if (!asm_u32(a, &e->pid_stride, "a program-id stride in bytes"))
			return false;
	}
	return true;
}

/* A semaphore name sN (N >= 64 is returned as 64: out of range). */
static bool sem_tok(struct as *a, uint64_t *s)
{
	size_t i;

	if (a->tok.kind != T_IDENT || a->tok.p[0] != 's' ||
	    !asm_all_digits(a->tok.p + 1, a->tok.len - 1, false))
		return false;
	*s = 0;
	for (i = 1; i < a->tok.len && *s < VNEF_MAX_SEMS; i++)
		*s = *s * 10 + (uint64_t)(a->tok.p[i] - '0');
	return true;
}

/*
 * The next token, a semaphore below VNEF_MAX_SEMS, into *s (not taken); where it stands
 * into *line and *col. Else a diagnostic: what was expected, or the range.
 */
static bool sem_operand(struct as *a, const char *what, uint64_t *s, unsigned int *line,
			unsigned int *col)
{
	if (!asm_peek(a))
		return false;
	*line = a->tok.line;
	*col = a->tok.col;
	if (!sem_tok(a, s))
		return asm_expected(a, what);
	if (*s >= VNEF_MAX_SEMS) {
		asm_diag(a, *line, *col, "semaphore %.*s is out of range (s0..s%d)",
			 (int)(a->tok.len > 20 ? 20 : a->tok.len), a->tok.p, VNEF_MAX_SEMS - 1);
		return false;
	}
	return true;
}

/* "x" between sizes (an identifier to the lexer). */
static bool expect_x(struct as *a)
{
	if (!asm_peek(a))
		return false;
	if (!asm_tok_is(&a->tok, "x"))
		return asm_expected(a, "'x' in the size C1 x C0 x BYTES (with spaces)");
	asm_take(a);
	return true;
}

/* Trailing clauses: acc, rev, wait sN >= V, signal sA, sB ... */
/* The flag clause a token names ("acc", "rev"), or NULL. */
static const struct asm_flag *flag_clause(const struct tok *t)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(asm_flags); i++)
		if (asm_tok_is(t, asm_flags[i].word))
			return &asm_flags[i];
	return NULL;
}

/* Which opcodes take a flag: "multiply_moving and transpose accumulate". */
static const char *flag_users(const struct asm_flag *f, char *buf, size_t size)
{
	unsigned int op, n = 0, total = 0;
	size_t len = 0;

	for (op = 0; op < VNEF_OP_COUNT; op++)
		total += vn_opcode_info(op) && (vn_opcode_info(op)->flags & f->flag);
	buf[0] = '\0';
	for (op = 0; op < VNEF_OP_COUNT; op++) {
		if (!vn_opcode_info(op) || !(vn_opcode_info(op)->flags & f->flag))
			continue;
		len += snprintf(buf + (len < size ? len : size), len < size ? size - len : 0,
				"%s%s", !n ? (total == 1 ? "only " : "") :
				n + 1 == total ? " and " : ", ", vn_opcode_mnemonic(op));
		n++;
	}
	snprintf(buf + (len < size ? len : size), len < size ? size - len : 0, " %s%s",
		 f->does, total == 1 ? "s" : "");
	return buf;
}

/*
 * A number clause's value after its word ("group 2", "stride 1", "shift 3"), in
 * [min, max]; rule says what the range means ("a group has %llu..%llu members").
 */
static bool clause_num(struct as *a, const char *word, uint64_t min, uint64_t max,
		       uint64_t *v, const char *what, const char *rule)
{
	unsigned int line, col;

	asm_take(a);
	if (!asm_peek(a))
		return false;
	line = a->tok.line;
	col = a->tok.col;
	if (a->tok.kind == T_NL || a->tok.kind == T_EOF) {
		asm_diag(a, line, col, "missing %s after '%s'", what, word);
		return false;
	}
	if (!asm_uint(a, UINT64_MAX, v, what))
		return false;
	if (*v < min || *v > max) {
		char msg[160];

		snprintf(msg, sizeof(msg), rule, (unsigned long long)min, (unsigned long long)max);
		asm_diag(a, line, col, "%s %llu: %s", word, (unsigned long long)*v, msg);
		return false;
	}
	return true;
}

/*
 * A collective's clauses: "group G [stride S]" (replica groups; without: one group of
 * every rank) and "shift N" (permute).
 */
static bool cc_clause(struct as *a, struct vnef_cc_instr *cc, bool *seen_group,
		      bool *seen_shift)
{
	const struct vn_cc_opcode_info *info = vn_cc_opcode_info(cc->opcode);
	unsigned int line = a->tok.line, col = a->tok.col;
	uint64_t v;

	if (asm_tok_is(&a->tok, "stride")) {
		asm_diag(a, line, col, "'stride' comes right after 'group N' (group N stride S)");
		return false;
	}
	if (!(info->uses & VN_CC_USES_DATA)) {
		asm_diag(a, line, col, "'%.*s' does not apply to nop", (int)a->tok.len, a->tok.p);
		return false;
	}
	if (asm_tok_is(&a->tok, "shift")) {
		if (!(info->uses & VN_CC_USES_SHIFT)) {
			asm_diag(a, line, col, "'shift' applies to permute only");
			return false;
		}
		if (*seen_shift) {
			asm_diag(a, line, col, "'shift' given twice");
			return false;
		}
		*seen_shift = true;
		if (!clause_num(a, "shift", 0, UINT32_MAX, &v, "a shift", "a shift is %llu..%llu"))
			return false;
		cc->shift = (uint32_t)v;
		return true;
	}
	if (*seen_group) {
		asm_diag(a, line, col, "'group' given twice");
		return false;
	}
	*seen_group = true;
	if (!clause_num(a, "group", 1, UINT16_MAX, &v, "a group size", "a group has "
			"%llu..%llu members (leave 'group' out for one group of every rank)"))
		return false;
	cc->group_size = (uint16_t)v;
	cc->group_stride = 1;
	if (!asm_peek(a))
		return false;
	if (asm_tok_is(&a->tok, "stride")) {
		if (!clause_num(a, "stride", 1, UINT16_MAX, &v, "a group stride",
				"members are %llu..%llu ranks apart"))
			return false;
		cc->group_stride = (uint16_t)v;
	}
	return true;
}

static bool clauses(struct as *a, uint32_t opcode, bool dma, struct vnef_cc_instr *cc,
		    uint32_t *flags, uint32_t *wsem, uint32_t *wval, __u64 *mask)
{
	bool seen_wait = false, seen_sig = false, seen_group = false, seen_shift = false;
	const struct asm_flag *f;

	for (;;) {
		unsigned int line, col;

		if (!asm_peek(a))
			return false;
		if (a->tok.kind == T_NL || a->tok.kind == T_EOF)
			return true;
		line = a->tok.line;
		col = a->tok.col;
		if ((f = flag_clause(&a->tok))) {
			const struct vn_opcode_info *info = dma || cc ? NULL :
							    vn_opcode_info(opcode);

			if (!info || !(info->flags & f->flag)) {
				char who[128];

				asm_diag(a, line, col, "'%s' does not apply to %s (%s)", f->word,
					 cc ? vn_cc_opcode_mnemonic(opcode) : dma ? "dma" :
					 vn_opcode_mnemonic(opcode),
					 flag_users(f, who, sizeof(who)));
				return false;
			}
			if (*flags & f->flag) {
				asm_diag(a, line, col, "'%s' given twice", f->word);
				return false;
			}
			*flags |= f->flag;
			asm_take(a);
		} else if (asm_tok_is(&a->tok, "wait")) {
			uint64_t s, v;

			if (seen_wait) {
				asm_diag(a, line, col, "an entry waits for one semaphore only; 'wait' "
					 "given twice");
				return false;
			}
			seen_wait = true;
			asm_take(a);
			if (!sem_operand(a, "a semaphore (s0..s63) after 'wait'", &s, &line, &col))
				return false;
			asm_take(a);
			if (!asm_peek(a))
				return false;
			if (a->tok.kind != T_GE)
				return asm_expected(a, "'>=' and a value after the semaphore");
			asm_take(a);
			if (!asm_peek(a))
				return false;
			line = a->tok.line;
			col = a->tok.col;
			if (!asm_uint(a, UINT32_MAX, &v, "a semaphore value"))
				return false;
			if (!v) {
				asm_diag(a, line, col, "a wait value must be at least 1 (semaphores start "
					 "at 0, so waiting for 0 is no wait)");
				return false;
			}
			*flags |= VNEF_IF_WAIT;
			*wsem = (uint32_t)s;
			*wval = (uint32_t)v;
		} else if (asm_tok_is(&a->tok, "signal")) {
			if (seen_sig) {
				asm_diag(a, line, col, "'signal' given twice (list the semaphores after "
					 "one 'signal', separated by commas)");
				return false;
			}
			seen_sig = true;
			asm_take(a);
			do {
				uint64_t s;

				if (!sem_operand(a, "a semaphore (s0..s63) to signal", &s, &line, &col))
					return false;
				if (*mask & (1ull << s)) {
					asm_diag(a, line, col, "semaphore s%llu signalled twice by one entry",
						 (unsigned long long)s);
					return false;
				}
				*mask |= 1ull << s;
				asm_take(a);
			} while (asm_accept_punct(a, ','));
		} else if (cc && (asm_tok_is(&a->tok, "group") || asm_tok_is(&a->tok, "stride") ||
				  asm_tok_is(&a->tok, "shift"))) {
			if (!cc_clause(a, cc, &seen_group, &seen_shift))
				return false;
		} else {
			char b[64];

			asm_diag(a, line, col, "unexpected %s after the operands (expected %s, "
				 "wait, signal or the end of the line)",
				 asm_tok_desc(&a->tok, b, sizeof(b)),
				 cc ? "group, shift" : "acc, rev");
			return false;
		}
	}
}

static bool comma(struct as *a, const char *mnem, const char *next)
{
	char b[64], what[96];

	if (!asm_peek(a))
		return false;
	if (asm_tok_punct(&a->tok, ','))  {
		asm_take(a);
		return true;
	}
	snprintf(what, sizeof(what), "',' and %s", next);
	if (a->tok.kind == T_NL || a->tok.kind == T_EOF) {
		asm_diag(a, a->tok.line, a->tok.col, "missing operand: %s needs %s", mnem, next);
		return false;
	}
	asm_diag(a, a->tok.line, a->tok.col, "expected %s, found %s", what,
		 asm_tok_desc(&a->tok, b, sizeof(b)));
	return false;
}

/* The first operand must be on the line. */
static bool have_operand(struct as *a, const char *mnem, const char *what)
{
	if (!asm_peek(a))
		return false;
	if (a->tok.kind == T_NL || a->tok.kind == T_EOF) {
		asm_diag(a, a->tok.line, a->tok.col, "missing operand: %s needs %s", mnem, what);
		return false;
	}
	return true;
}

bool asm_name_in(struct as *a, int (*by_name)(const char *), uint32_t *v,
		    const char *what, const char *list)
{
	unsigned int line, col;
	char buf[32];
	int i;

	if (!asm_peek(a))
		return false;
	line = a->tok.line;
	col = a->tok.col;
	if (a->tok.kind == T_NL || a->tok.kind == T_EOF) {
		asm_diag(a, line, col, "missing operand: %s (%s)", what, list);
		return false;
	}
	if (!asm_ident(a, buf, sizeof(buf), what))
		return false;
	i = by_name(buf);
	if (i < 0) {
		asm_diag(a, line, col, "unknown %s '%s' (%s)", what, buf, list);
		return false;
	}
	*v = (uint32_t)i;
	return true;
}

/* The op field by its name in the opcode's op kind's table ("add", "exp"). */
static bool op_field(struct as *a, uint32_t kind, uint32_t *v)
{
	const char *what = kind == VN_OPK_ACT ? "activation function" : "alu op";
	unsigned int line, col;
	char buf[32], list[160];
	int i;

	if (!asm_peek(a))
		return false;
	line = a->tok.line;
	col = a->tok.col;
	nd_op_list(list, sizeof(list), kind, ", ");
	if (a->tok.kind == T_NL || a->tok.kind == T_EOF) {
		asm_diag(a, line, col, "missing operand: %s (%s)", what, list);
		return false;
	}
	if (!asm_ident(a, buf, sizeof(buf), what))
		return false;
	/* Any name of the table: the validator says which a reduction refuses. */
	i = vn_op_by_name(kind, buf);
	if (i < 0) {
		asm_diag(a, line, col, "unknown %s '%s' (%s)", what, buf, list);
		return false;
	}
	*v = (uint32_t)i;
	return true;
}

/*
 * One instruction of an engine stream, the mnemonic taken already: its operands in the
 * order of its ISA table entry, then the clauses.
 */
bool asm_instr(struct as *a, uint32_t op, const char *mnem, struct vnef_instr *in)
{
	const struct vn_opcode_info *info = vn_opcode_info(op);
	char need[192], the[64];
	bool first = true, ok = true;
	unsigned int i;

	memset(in, 0, sizeof(*in));
	in->opcode = op;
	for (i = 0; i < VN_ISA_MAX_ARGS && info->args[i].kind != VN_ARG_END; i++) {
		const struct vn_isa_arg *arg = &info->args[i];

		if (arg->kind == VN_ARG_OP) {
			if (!op_field(a, info->op_kind, &in->op))
				return false;
			continue;
		}
		needs(info, i, need, sizeof(need));
		if (first ? !have_operand(a, mnem, need) : !comma(a, mnem, need))
			return false;
		first = false;
		the_arg(arg, the, sizeof(the));
		switch (arg->kind) {
		case VN_ARG_DST:
			ok = ap_val(a, &in->dst, the);
			break;
		case VN_ARG_SRC0:
			ok = ap_val(a, &in->src0, the);
			break;
		case VN_ARG_SRC1:
			ok = ap_val(a, &in->src1, the);
			break;
		case VN_ARG_F32:
			ok = asm_f32(a, &in->imm[arg->imm], the);
			break;
		case VN_ARG_S32:
			ok = asm_s32(a, (int32_t *)&in->imm[arg->imm], the);
			break;
		case VN_ARG_SCALAR:
			/* a number, or a [P x 1] column operand */
			if (!asm_peek(a))
				return false;
			if (asm_tok_is(&a->tok, vn_mem_lower(VNEF_MEM_SBUF)) ||
			    asm_tok_is(&a->tok, vn_mem_lower(VNEF_MEM_PSUM))) {
				ok = ap_val(a, &in->src1, the);
				in->flags |= arg->column;
			} else {
				ok = asm_f32(a, &in->imm[arg->imm], the);
			}
			break;
		}
		if (!ok)
			return false;
	}
	return clauses(a, op, false, NULL, &in->flags, &in->wait_sem, &in->wait_value,
		       &in->signal_mask);
}

/* dma DST, SRC, C1 x C0 x CHUNK */
bool asm_dma_desc(struct as *a, struct vnef_dma_desc *d)
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
	if (!asm_peek(a))
		return false;
	line = a->tok.line;
	col = a->tok.col;
	if (!asm_u32(a, &c1, "the outer chunk count") ||
	    !expect_x(a) || !asm_u32(a, &c0, "the inner chunk count") || !expect_x(a) ||
	    !asm_u32(a, &chunk, "the chunk size in bytes"))
		return false;
	if (!c1 || !c0 || !chunk) {
		asm_diag(a, line, col, "empty transfer: %u x %u chunks of %u bytes", c1, c0, chunk);
		return false;
	}
	d->count[1] = c1;
	d->count[0] = c0;
	d->chunk_bytes = chunk;
	return clauses(a, 0, true, NULL, &d->flags, &d->wait_sem, &d->wait_value,
		       &d->signal_mask);
}

/* A collective's HBM side: NAME or NAME@OFFSET (bytes). */
static bool cc_side(struct as *a, uint32_t *tensor, __u64 *off, const char *what)
{
	char name[128];
	unsigned int line, col;
	uint64_t v = 0;

	if (!asm_peek(a))
		return false;
	line = a->tok.line;
	col = a->tok.col;
	if (a->tok.kind != T_IDENT && a->tok.kind != T_STR) {
		char b[64];

		asm_diag(a, line, col, "expected %s (a tensor name, with @OFFSET in bytes), found %s",
			 what, asm_tok_desc(&a->tok, b, sizeof(b)));
		return false;
	}
	if (!asm_name(a, name, sizeof(name), "a tensor name"))
		return false;
	if (!asm_find_tensor(a, name, tensor)) {
		asm_diag(a, line, col, "undefined tensor '%s' (declare it with .tensor first)", name);
		return false;
	}
	if (asm_accept_punct(a, '@') && !asm_uint(a, UINT64_MAX, &v, "a byte offset"))
		return false;
	*off = v;
	return true;
}

/* [REDUCE] DTYPE DST, SRC, COUNT [group G [stride S]] [shift N] [wait ...] [signal ...] */
bool asm_cc(struct as *a, uint32_t op, const char *mnem, struct vnef_cc_instr *in)
{
	const struct vn_cc_opcode_info *info = vn_cc_opcode_info(op);
	unsigned int line, col;
	uint64_t count;

	memset(in, 0, sizeof(*in));
	in->opcode = op;
	if (!(info->uses & VN_CC_USES_DATA))
		return clauses(a, op, false, in, &in->flags, &in->wait_sem, &in->wait_value,
			       &in->signal_mask);
	if (info->uses & VN_CC_USES_REDUCE) {
		if (!asm_peek(a))
			return false;
		line = a->tok.line;
		col = a->tok.col;
		if (!asm_name_in(a, vn_alu_by_name, &in->reduce, "reduction", "add or max"))
			return false;
		if (!vn_cc_reduce_valid(in->reduce)) {
			asm_diag(a, line, col, "%s reduces by add or max, not '%s'", mnem,
				 vn_alu_name(in->reduce));
			return false;
		}
	}
	if (!have_operand(a, mnem, "a dtype, a destination, a source and a count") ||
	    !asm_dtype(a, &in->dtype) ||
	    !have_operand(a, mnem, "a destination, a source and a count") ||
	    !cc_side(a, &in->dst_tensor, &in->dst_offset, "the destination") ||
	    !comma(a, mnem, "a source and a count") ||
	    !cc_side(a, &in->src_tensor, &in->src_offset, "the source") ||
	    !comma(a, mnem, "a count (elements)"))
		return false;
	if (!asm_peek(a))
		return false;
	line = a->tok.line;
	col = a->tok.col;
	if (!asm_uint(a, UINT64_MAX, &count, "a count (elements)"))
		return false;
	if (!count) {
		asm_diag(a, line, col, "a collective moves at least 1 element");
		return false;
	}
	in->count = count;
	return clauses(a, op, false, in, &in->flags, &in->wait_sem, &in->wait_value,
		       &in->signal_mask);
}
