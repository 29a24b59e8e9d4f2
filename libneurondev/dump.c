// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A readable listing of a .vnef image: tensors, then every stream's entries with their
 * operands, waits, signals, source line and scope. The image is validated first by the
 * core's own validator, so the listing only ever shows programs the device would run.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "nd_internal.h"
#include "vn_program.h"

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
static const char *const mem_names[] = { "-", "SBUF", "PSUM", "HBM" };
static const char *const kind_names[] = { "?", "input", "output", "scratch", "const" };

static const char *dt_name(u32 dt)
{
	return dt == VNEF_DT_BF16 ? "bf16" : "fp32";
}

static float f32(u32 u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static void ap(FILE *o, const char *what, const struct vnef_ap *a)
{
	if (a->mem == VNEF_MEM_NONE)
		return;
	fprintf(o, " %s=%s[%u:%u]@0x%x", what, mem_names[a->mem & 3], a->start_partition,
		a->start_partition + a->partitions, a->offset);
	if (a->count[1] == 1 && a->stride[0] == 1)
		fprintf(o, "*%u", a->count[0]);
	else
		fprintf(o, "{%ux%u s%u,%u}", a->count[1], a->count[0], a->stride[1], a->stride[0]);
	fprintf(o, ":%s", dt_name(a->dtype));
}

static void ep(FILE *o, const struct vn_program *p, const struct vnef_dma_ep *e)
{
	if (e->mem == VNEF_MEM_HBM) {
		fprintf(o, "%s+0x%llx{s%llu,%llu}",
			vn_program_str(p, p->tensors[e->tensor].name_off),
			(unsigned long long)e->offset, (unsigned long long)e->stride[1],
			(unsigned long long)e->stride[0]);
		return;
	}
	fprintf(o, "%s[p%u{ps%u,%u}]+0x%llx{s%llu,%llu}", mem_names[e->mem & 3], e->partition,
		e->part_stride[1], e->part_stride[0], (unsigned long long)e->offset,
		(unsigned long long)e->stride[1], (unsigned long long)e->stride[0]);
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
	ret = vn_program_load(image, size, &p, &pe);
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
			kind_names[t->kind <= 4 ? t->kind : 0], dt_name(t->dtype));
		for (d = 0; d < t->rank; d++)
			fprintf(o, "%s%llu", d ? ", " : "", (unsigned long long)t->shape[d]);
		fprintf(o, "] %llu bytes\n", (unsigned long long)t->size);
	}
	for (s = 0; s < VNEF_STREAMS; s++) {
		const struct vn_stream *st = &p->streams[s];

		if (!st->count)
			continue;
		fprintf(o, "%s: %u entries\n", nd_stream_name(s), st->count);
		for (i = 0; i < st->count; i++) {
			if (st->instr) {
				const struct vnef_instr *in = &st->instr[i];

				fprintf(o, "  %5u %s", i, op_names[in->opcode]);
				if (in->opcode == VNEF_OP_ACTIVATE) {
					fprintf(o, ".%s scale=%g", act_names[in->op],
						f32(in->imm[0]));
					if (!(in->flags & VNEF_IF_BIAS_COLUMN))
						fprintf(o, " bias=%g", f32(in->imm[1]));
				} else if (in->opcode == VNEF_OP_TENSOR_TENSOR ||
					   in->opcode == VNEF_OP_TENSOR_SCALAR ||
					   in->opcode == VNEF_OP_REDUCE ||
					   in->opcode == VNEF_OP_PARTITION_REDUCE) {
					fprintf(o, ".%s", alu_names[in->op]);
				}
				if ((in->opcode == VNEF_OP_TENSOR_SCALAR &&
				     !(in->flags & VNEF_IF_SCALAR_COLUMN)) ||
				    in->opcode == VNEF_OP_MEMSET)
					fprintf(o, " imm=%g", f32(in->imm[0]));
				if (in->flags & VNEF_IF_ACCUMULATE)
					fprintf(o, " accumulate");
				if (in->flags & VNEF_IF_REVERSE)
					fprintf(o, " reverse");
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
