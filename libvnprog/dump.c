// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A readable listing of a .vnef image: tensors, then every stream's entries (the
 * engines', the DMA queues', the collective engine's) with their operands, waits,
 * signals, source line and scope. The image is validated first by the
 * core's own validator, so the listing only ever shows programs the device would run.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "vnprog_int.h"
#include "vn_program.h"

static void ap(FILE *o, const char *what, const struct vnef_ap *a)
{
	if (a->mem == VNEF_MEM_NONE)
		return;
	fprintf(o, " %s=%s[%u:%u]@0x%x", what, vn_mem_name(a->mem), a->start_partition,
		a->start_partition + a->partitions, a->offset);
	if (a->count[1] == 1 && a->stride[0] == 1)
		fprintf(o, "*%u", a->count[0]);
	else
		fprintf(o, "{%ux%u s%u,%u}", a->count[1], a->count[0], a->stride[1], a->stride[0]);
	fprintf(o, ":%s", vn_dtype_name(a->dtype));
}

static void ep(FILE *o, const struct vn_program *p, const struct vnef_dma_ep *e)
{
	if (e->mem == VNEF_MEM_HBM) {
		fprintf(o, "%s+0x%llx{s%llu,%llu}",
			vn_program_str(p, p->tensors[e->tensor].name_off),
			(unsigned long long)e->offset, (unsigned long long)e->stride[1],
			(unsigned long long)e->stride[0]);
		if (e->pid_stride)	/* each SPMD instance's slice (LNC=2) */
			fprintf(o, "+pid*0x%x", e->pid_stride);
		return;
	}
	fprintf(o, "%s[p%u{ps%u,%u}]+0x%llx{s%llu,%llu}", vn_mem_name(e->mem), e->partition,
		e->part_stride[1], e->part_stride[0], (unsigned long long)e->offset,
		(unsigned long long)e->stride[1], (unsigned long long)e->stride[0]);
}

/*
 * An instruction's opcode, op field and immediates, by its table entry: "activate.exp
 * scale=1 bias=0", each immediate named by its argument's word; then its flags.
 */
static void instr(FILE *o, const struct vnef_instr *in)
{
	const struct vn_opcode_info *info = vn_opcode_info(in->opcode);
	const struct vn_isa_arg *a;
	char word[32], *c;
	u32 i;

	fprintf(o, "%s", vn_opcode_mnemonic(in->opcode));
	if (info->op_kind != VN_OPK_NONE)
		fprintf(o, ".%s", vn_op_name(info->op_kind, in->op));
	for (i = 0; i < VN_ISA_MAX_ARGS; i++) {
		a = &info->args[i];
		if (a->kind != VN_ARG_F32 && a->kind != VN_ARG_S32 &&
		    (a->kind != VN_ARG_SCALAR || (in->flags & a->column)))
			continue;
		nd_arg_word(a, word, sizeof(word));
		for (c = word; *c; c++)
			*c = *c == ' ' ? '_' : *c;
		if (a->kind == VN_ARG_S32)
			fprintf(o, " %s=%d", word, (int32_t)in->imm[a->imm]);
		else
			fprintf(o, " %s=%g", word, nd_f32(in->imm[a->imm]));
	}
	if (in->flags & VNEF_IF_ACCUMULATE)
		fprintf(o, " accumulate");
	if (in->flags & VNEF_IF_REVERSE)
		fprintf(o, " reverse");
}

/*
 * A collective: "all_reduce.add fp32 x 1024 in+0x0 -> out+0x0 group=2 stride=1", by its
 * table entry (the reduction and the shift only where the opcode has them).
 */
static void cc(FILE *o, const struct vn_program *p, const struct vnef_cc_instr *in)
{
	const struct vn_cc_opcode_info *info = vn_cc_opcode_info(in->opcode);

	fprintf(o, "%s", vn_cc_opcode_mnemonic(in->opcode));
	if (!info || !(info->uses & VN_CC_USES_DATA))
		return;
	if (info->uses & VN_CC_USES_REDUCE)
		fprintf(o, ".%s", vn_alu_name(in->reduce));
	fprintf(o, " %s x %llu %s+0x%llx -> %s+0x%llx", vn_dtype_name(in->dtype),
		(unsigned long long)in->count,
		vn_program_str(p, p->tensors[in->src_tensor].name_off),
		(unsigned long long)in->src_offset,
		vn_program_str(p, p->tensors[in->dst_tensor].name_off),
		(unsigned long long)in->dst_offset);
	if (in->group_size)
		fprintf(o, " group=%u stride=%u", in->group_size, in->group_stride);
	if (info->uses & VN_CC_USES_SHIFT)
		fprintf(o, " shift=%u", in->shift);
}

static void sync(FILE *o, u32 flags, u32 sem, u32 val, u64 mask)
{
	u32 s;

	if (flags & VNEF_IF_WAIT)
		fprintf(o, "  wait s%u>=%u", sem, val);
	for (s = 0; s < VNEF_MAX_SEMS; s++)
		if (mask & (1ull << s))
			fprintf(o, "  signal s%u", s);
}

static void where(FILE *o, const struct vn_program *p, const struct vnef_debug **dbg,
		  u32 stream, u32 index)
{
	const struct vnef_debug *d = dbg[stream] ? &dbg[stream][index] : NULL;

	if (!d || d->stream != stream || d->index != index)
		return;
	fprintf(o, "  ; %s:%u %s", vn_program_str(p, d->file_off), d->line,
		vn_program_str(p, d->scope_off));
}

int nd_vnef_dump(const void *image, size_t size, FILE *o, struct nd_error *err)
{
	const struct vnef_debug *dbg[VNEF_STREAMS] = { NULL };
	struct vn_prog_error pe;
	struct vn_program *p;
	u32 i, s, d;
	int ret;

	if (!image || !o)
		return nd_seterr(err, EINVAL, "nd_vnef_dump: no image or no stream");
	ret = vn_program_load_any(image, size, &p, &pe);
	if (ret)
		return nd_seterr(err, ret, "invalid image: %s check: %s (section %d, entry %d)",
				 vn_check_name(pe.check), pe.msg, (int)pe.section,
				 (int)pe.index);
	/* The builder writes the debug table stream by stream; find each stream's run. */
	for (d = 0; d < p->debug_count; d++)
		if (p->debug[d].index == 0 && p->debug[d].stream < VNEF_STREAMS &&
		    d + p->streams[p->debug[d].stream].count <= p->debug_count)
			dbg[p->debug[d].stream] = &p->debug[d];

	fprintf(o, "program \"%s\": %u tensors, %llu entries\n",
		vn_program_str(p, ((const struct vnef_header *)p->image)->name_off),
		p->tensor_count, (unsigned long long)p->total_entries);
	for (i = 0; i < p->tensor_count; i++) {
		const struct vnef_tensor *t = &p->tensors[i];

		fprintf(o, "tensor %u %s %s %s [", i, vn_program_str(p, t->name_off),
			vn_tensor_kind_name(t->kind), vn_dtype_name(t->dtype));
		for (d = 0; d < t->rank; d++)
			fprintf(o, "%s%llu", d ? ", " : "", (unsigned long long)t->shape[d]);
		fprintf(o, "] %llu bytes\n", (unsigned long long)t->size);
	}
	for (s = 0; s < VNEF_STREAMS; s++) {
		const struct vn_stream *st = &p->streams[s];

		if (!st->count)
			continue;
		fprintf(o, "%s: %u entries\n", nd_stream_label(s), st->count);
		for (i = 0; i < st->count; i++) {
			if (st->cc) {
				const struct vnef_cc_instr *ci = &st->cc[i];

				fprintf(o, "  %5u ", i);
				cc(o, p, ci);
				sync(o, ci->flags, ci->wait_sem, ci->wait_value, ci->signal_mask);
			} else if (st->instr) {
				const struct vnef_instr *in = &st->instr[i];

				fprintf(o, "  %5u ", i);
				instr(o, in);
				ap(o, "dst", &in->dst);
				ap(o, "src0", &in->src0);
				ap(o, "src1", &in->src1);
				sync(o, in->flags, in->wait_sem, in->wait_value, in->signal_mask);
			} else {
				const struct vnef_dma_desc *dd = &st->desc[i];

				fprintf(o, "  %5u dma %ux%u x %uB ", i, dd->count[1], dd->count[0],
					dd->chunk_bytes);
				ep(o, p, &dd->src);
				fprintf(o, " -> ");
				ep(o, p, &dd->dst);
				sync(o, dd->flags, dd->wait_sem, dd->wait_value, dd->signal_mask);
			}
			where(o, p, dbg, s, i);
			fputc('\n', o);
		}
	}
	vn_program_put(p);
	return ferror(o) ? nd_seterr(err, EIO, "write error") : 0;
}
