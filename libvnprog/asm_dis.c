// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The disassembler (vnprog.h, docs/assembler.md): an image as the text vneuron-as reads,
 * and one instruction or descriptor as a line of it. Instructions are printed from the
 * ISA table's operand lists, the same the parser (asm_parse.c) reads them by.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "asm_int.h"
#include "vn_model.h"
#include "vn_program.h"

const struct asm_flag asm_flags[2] = {
	{ "acc", VNEF_IF_ACCUMULATE, "accumulate" },
	{ "rev", VNEF_IF_REVERSE, "reverse" },
};

const char *nd_asm_engine_name(uint32_t stream)
{
#define Q(n) "queue " #n
	static const char *const queues[VNEF_DMA_QUEUES] = {
		Q(0), Q(1), Q(2), Q(3), Q(4), Q(5), Q(6), Q(7), Q(8), Q(9), Q(10), Q(11),
		Q(12), Q(13), Q(14), Q(15),
	};
#undef Q

	if (stream < VNEF_ENGINES)
		return vn_engine_mnemonic(stream);
	if (stream == VNEF_STREAM_CC)
		return VN_CC_ENGINE_MNEMONIC;
	return stream < VNEF_STREAMS ? queues[stream - VNEF_ENGINES] : "?";
}

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

/* An fp32 immediate: shortest exact decimal, or its bits for NaNs. */
static void put_f32(struct out *o, uint32_t bits)
{
	float f = nd_f32(bits);
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
	if (f > -1e7f && f < 1e7f && nd_f32_bits(strtof(tmp, NULL)) == bits) {
		put(o, "%s", tmp);
		return;
	}
	for (prec = 1; prec <= 9; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, (double)f);
		if (nd_f32_bits(strtof(tmp, NULL)) == bits)
			break;
	}
	/* Keep a float recognisable as one ("1" would read the same, but "1.0" says it). */
	if (!strpbrk(tmp, ".eEn"))
		put(o, "%s.0", tmp);
	else
		put(o, "%s", tmp);
}

static void put_ap(struct out *o, const struct vnef_ap *a)
{
	put(o, "%s.%s[%u:%u]@0x%x", vn_mem_lower(a->mem), vn_dtype_name(a->dtype), a->start_partition,
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
		put(o, "%s[%u", vn_mem_lower(e->mem), e->partition);
		if (e->part_stride[0] || e->part_stride[1])
			put(o, "; %u, %u", e->part_stride[1], e->part_stride[0]);
		put(o, "]");
	}
	put(o, "@0x%llx", (unsigned long long)e->offset);
	if (e->stride[0] || e->stride[1])
		put(o, "[%llu, %llu]", (unsigned long long)e->stride[1],
		    (unsigned long long)e->stride[0]);
	if (e->pid_stride)
		put(o, " pid %u", e->pid_stride);
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

/*
 * One instruction, by its table entry: the mnemonic, then the op field and the operands
 * in the order the entry lists them ("tensor_scalar add DST, SRC, SCALAR"), the flag
 * clauses, waits and signals.
 */
static void fmt_instr(struct out *o, const struct vnef_instr *in)
{
	const struct vn_opcode_info *info = vn_opcode_info(in->opcode);
	const char *sep = " ";
	unsigned int i;

	put(o, "%s", vn_opcode_mnemonic(in->opcode));
	for (i = 0; info && i < VN_ISA_MAX_ARGS && info->args[i].kind != VN_ARG_END; i++) {
		const struct vn_isa_arg *a = &info->args[i];

		if (a->kind == VN_ARG_OP) {
			put(o, " %s ", vn_op_name(info->op_kind, in->op));
			sep = "";
			continue;
		}
		put(o, "%s", sep);
		sep = ", ";
		switch (a->kind) {
		case VN_ARG_DST:
			put_ap(o, &in->dst);
			break;
		case VN_ARG_SRC0:
			put_ap(o, &in->src0);
			break;
		case VN_ARG_SRC1:
			put_ap(o, &in->src1);
			break;
		case VN_ARG_F32:
			put_f32(o, in->imm[a->imm]);
			break;
		case VN_ARG_S32:
			put(o, "%d", (int32_t)in->imm[a->imm]);
			break;
		case VN_ARG_SCALAR:
			if (in->flags & a->column)
				put_ap(o, &in->src1);
			else
				put_f32(o, in->imm[a->imm]);
			break;
		}
	}
	for (i = 0; i < ARRAY_SIZE(asm_flags); i++)
		if (in->flags & asm_flags[i].flag)
			put(o, " %s", asm_flags[i].word);
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

static void put_tensor(struct out *o, uint32_t t, const char *const *names, uint32_t n)
{
	if (names && t < n)
		put_name(o, names[t]);
	else
		put(o, "#%u", t);
}

/*
 * A collective, by its table entry: "all_reduce add fp32 out@0x0, in@0x0, 1024 group 2
 * stride 1 shift 1", then waits and signals.
 */
static void fmt_cc(struct out *o, const struct vnef_cc_instr *in, const char *const *names,
		   uint32_t n)
{
	const struct vn_cc_opcode_info *info = vn_cc_opcode_info(in->opcode);

	put(o, "%s", vn_cc_opcode_mnemonic(in->opcode));
	if (info && (info->uses & VN_CC_USES_DATA)) {
		if (info->uses & VN_CC_USES_REDUCE)
			put(o, " %s", vn_alu_name(in->reduce));
		put(o, " %s ", vn_dtype_name(in->dtype));
		put_tensor(o, in->dst_tensor, names, n);
		put(o, "@0x%llx, ", (unsigned long long)in->dst_offset);
		put_tensor(o, in->src_tensor, names, n);
		put(o, "@0x%llx, %llu", (unsigned long long)in->src_offset,
		    (unsigned long long)in->count);
		if (in->group_size)
			put(o, " group %u stride %u", in->group_size, in->group_stride);
		if (info->uses & VN_CC_USES_SHIFT)
			put(o, " shift %u", in->shift);
	}
	put_sync(o, in->flags, in->wait_sem, in->wait_value, in->signal_mask);
}

size_t nd_asm_format_cc(char *buf, size_t size, const struct vnef_cc_instr *in,
			const char *const *names, uint32_t ntensors)
{
	struct out o = { buf, size, 0 };

	if (size)
		buf[0] = 0;
	fmt_cc(&o, in, names, ntensors);
	return o.len;
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
/* Disassembler                                                                   */

static int dis_text(const struct vn_program *p, bool with_strtab, struct out *o)
{
	const struct vnef_header *h = (const struct vnef_header *)p->image;
	const char **names;
	uint32_t i, s, k, cur_file = ~0u, cur_line = ~0u, cur_scope = 0;
	bool file_mode = false;
	const struct vnef_debug **dbg;
	const struct vneuron_model *model;

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
	/* The image does not name its model: the smallest it fits, if that is not trn1. */
	model = vn_program_smallest_model(p);
	if (model && model != &vn_model_trn1)
		put(o, ".model \"%s\"\n", model->name);
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
		put(o, " %s %s [", vn_tensor_kind_name(t->kind), vn_dtype_name(t->dtype));
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
						put_f32(o, nd_f32_bits(nd_bf16_to_fp32(hb)));
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
			put(o, "\n.engine %s\n", vn_engine_mnemonic(s));
		else if (s == VNEF_STREAM_CC)
			put(o, "\n.engine %s\n", VN_CC_ENGINE_MNEMONIC);
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
			if (st->cc)
				fmt_cc(o, &st->cc[i], names, p->tensor_count);
			else if (st->instr)
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
	ret = vn_program_load_any(image, size, &p, &pe);
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
