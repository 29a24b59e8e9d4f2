// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The builder's collective calls (vnprog.h, docs/libvnprog.md "Collectives"): one entry
 * of the collective engine's stream (VNEF_STREAM_CC) per call, checked with messages that
 * name the collective and the tensor, and ordered against the other streams by the HBM
 * ranges it reads and writes, as DMA descriptors are (builder.c). Names, which fields an
 * opcode uses and the byte counts per rank are the device core's (core/vn_isa.h,
 * core/vn_comm.h), the rules the validator's (core/program.c, check_cc()).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "vnprog_int.h"
#include "vn_comm.h"

/* Bytes of one side for groups of n members (0 if they overflow). */
static uint64_t side_bytes(const struct vn_cc_opcode_info *info, int dst, uint32_t n,
			   uint32_t dtype, uint64_t count)
{
	return dst ? vn_cc_out_bytes(info->comm_op, n, dtype, count) :
		     vn_cc_in_bytes(info->comm_op, n, dtype, count);
}

/* Whether a side's size depends on the group's size (gather's out, scatter's in, ...). */
static int grows(const struct vn_cc_opcode_info *info, int dst)
{
	return side_bytes(info, dst, 2, VNEF_DT_FP32, 1) != side_bytes(info, dst, 1,
									VNEF_DT_FP32, 1);
}

static int check_tensor(struct nd_builder *b, const char *op, const char *what,
			const struct nd_tensor *t)
{
	if (!t)
		return nd_berr(b, EINVAL, "%s: no %s tensor (NULL)", op, what);
	if (t->b != b)
		return nd_berr(b, EINVAL, "%s: the %s tensor belongs to another builder", op, what);
	return 0;
}

/*
 * One side: elements [off, off + bytes / es) inside t. bytes is what the validator
 * checks (the whole range for a given group size, one rank's share for every rank).
 */
static int check_range(struct nd_builder *b, const char *op, const char *what,
		       const struct nd_tensor *t, uint64_t off, uint64_t bytes, int every_rank)
{
	uint64_t es = vn_dtype_bytes(t->dtype), first, end;

	if (__builtin_mul_overflow(off, es, &first) ||
	    __builtin_add_overflow(first, bytes, &end) || end > t->size)
		return nd_berr(b, ERANGE, "%s: the %s needs elements [%llu, %llu) of tensor '%s', "
			       "which has %llu%s", op, what, (unsigned long long)off,
			       (unsigned long long)(off + bytes / es), t->name,
			       (unsigned long long)t->numel,
			       every_rank ? " (one rank's share: with group_size 0 the "
			       "range grows with the number of ranks)" : "");
	return 0;
}

int nd_collective_at(struct nd_builder *b, const struct nd_cc *cc, const char *file, int line)
{
	const struct vn_cc_opcode_info *info;
	struct nd_access acc[2];
	struct nd_entry e;
	uint64_t inb, outb, es, lo[2], hi[2];
	uint32_t gs, gstride, n, dt;
	const struct nd_tensor *src, *dst;
	const char *op;
	int ret, every, k;

	if (!b)
		return -EINVAL;
	if (!cc)
		return nd_berr(b, EINVAL, "collective: no description given (NULL)");
	info = vn_cc_opcode_info(cc->opcode);
	if (!info || !(info->uses & VN_CC_USES_DATA))
		return nd_berr(b, EINVAL, "collective: opcode %u is not a collective (all_reduce, "
			       "all_gather, reduce_scatter, all_to_all or permute)", cc->opcode);
	op = info->mnemonic;
	src = cc->src;
	dst = cc->dst;
	ret = check_tensor(b, op, "source", src);
	if (!ret)
		ret = check_tensor(b, op, "destination", dst);
	if (ret)
		return ret;
	if (src->dtype != dst->dtype)
		return nd_berr(b, EINVAL, "%s: dtype mismatch: source '%s' is %s, destination '%s' "
			       "is %s", op, src->name, vn_dtype_name(src->dtype), dst->name,
			       vn_dtype_name(dst->dtype));
	dt = src->dtype;
	if (dst->kind == VNEF_TENSOR_INPUT || dst->kind == VNEF_TENSOR_CONST)
		return nd_berr(b, EINVAL, "%s: writes %s tensor '%s', which is read-only", op,
			       dst->kind == VNEF_TENSOR_INPUT ? "input" : "constant", dst->name);
	if (!cc->count)
		return nd_berr(b, EINVAL, "%s: count is 0; a collective moves at least one element",
			       op);
	if ((info->uses & VN_CC_USES_REDUCE) && !vn_cc_reduce_valid((uint32_t)cc->reduce))
		return nd_berr(b, EINVAL, "%s: reduction '%s'; a collective reduces by add or max",
			       op, vn_alu_name((uint32_t)cc->reduce));
	gs = cc->group_size;
	gstride = cc->group_stride;
	if (gs > VNEF_CC_MAX_RANKS)
		return nd_berr(b, EINVAL, "%s: replica groups of %u ranks; a communicator has at "
			       "most %d", op, gs, VNEF_CC_MAX_RANKS);
	if (!gs && gstride)
		return nd_berr(b, EINVAL, "%s: group_stride %u without a group_size (0 is one "
			       "group of every rank)", op, gstride);
	if (gs && !gstride)
		gstride = 1;
	if (gs * gstride > VNEF_CC_MAX_RANKS)
		return nd_berr(b, EINVAL, "%s: replica groups span %u ranks (%u members %u apart); "
			       "a communicator has at most %d", op, gs * gstride, gs, gstride,
			       VNEF_CC_MAX_RANKS);
	if (!(info->uses & VN_CC_USES_SHIFT) && cc->shift)
		return nd_berr(b, EINVAL, "%s: shift %u; only permute shifts", op, cc->shift);
	if ((info->uses & VN_CC_USES_SHIFT) && cc->shift >= (gs ? gs : VNEF_CC_MAX_RANKS)) {
		if (gs)
			return nd_berr(b, EINVAL, "%s: shift %u in groups of %u; the shift is 0..%u",
				       op, cc->shift, gs, gs - 1);
		return nd_berr(b, EINVAL, "%s: shift %u; the shift is below %d", op, cc->shift,
			       VNEF_CC_MAX_RANKS);
	}

	/* The validator's byte counts: the group's, or one rank's share for every rank. */
	every = !gs;
	n = gs ? gs : 1;
	inb = side_bytes(info, 0, n, dt, cc->count);
	outb = side_bytes(info, 1, n, dt, cc->count);
	if (!inb || !outb || inb > VNEF_CC_MAX_BYTES || outb > VNEF_CC_MAX_BYTES)
		return nd_berr(b, E2BIG, "%s: %llu elements of %s%s; a rank's input and output are "
			       "at most %llu bytes", op, (unsigned long long)cc->count,
			       vn_dtype_name(dt), gs ? " per member" : "",
			       (unsigned long long)VNEF_CC_MAX_BYTES);
	ret = check_range(b, op, "source", src, cc->src_offset, inb, every && grows(info, 0));
	if (!ret)
		ret = check_range(b, op, "destination", dst, cc->dst_offset, outb,
				  every && grows(info, 1));
	if (ret)
		return ret;

	/*
	 * What the entry may touch: the ranges above; a side that grows with the number of
	 * ranks, under group_size 0, up to the end of its tensor.
	 */
	es = vn_dtype_bytes(dt);
	lo[0] = cc->src_offset * es;
	hi[0] = every && grows(info, 0) ? src->size : lo[0] + inb;
	lo[1] = cc->dst_offset * es;
	hi[1] = every && grows(info, 1) ? dst->size : lo[1] + outb;
	if (src == dst && lo[0] < hi[1] && lo[1] < hi[0] &&
	    !(cc->opcode == VNEF_CC_ALL_REDUCE && lo[0] == lo[1])) {
		if (lo[0] < lo[1] + outb && lo[1] < lo[0] + inb)
			return nd_berr(b, EINVAL, "%s: source and destination overlap in tensor "
				       "'%s' (only an all_reduce works in place, on the same "
				       "elements)", op, src->name);
		return nd_berr(b, EINVAL, "%s: source and destination of tensor '%s' overlap for "
			       "groups of 2 or more ranks (group_size 0 is every rank); give "
			       "group_size, or separate them", op, src->name);
	}

	memset(&e, 0, sizeof(e));
	e.u.cc.opcode = cc->opcode;
	e.u.cc.dtype = dt;
	e.u.cc.reduce = (info->uses & VN_CC_USES_REDUCE) ? (uint32_t)cc->reduce : 0;
	e.u.cc.count = cc->count;
	e.u.cc.src_tensor = src->index;
	e.u.cc.dst_tensor = dst->index;
	e.u.cc.src_offset = lo[0];
	e.u.cc.dst_offset = lo[1];
	e.u.cc.group_size = (uint16_t)gs;
	e.u.cc.group_stride = (uint16_t)(gs ? gstride : 0);
	e.u.cc.shift = cc->shift;
	memset(acc, 0, sizeof(acc));
	for (k = 0; k < 2; k++) {
		acc[k].space = ND_SPACE_HBM + (k ? dst : src)->index;
		acc[k].p_lo = 0;
		acc[k].p_hi = 1;
		acc[k].b_lo = lo[k];
		acc[k].b_hi = hi[k];
		acc[k].write = k;
	}
	return nd_emit(b, VNEF_STREAM_CC, &e, acc, 2, op, file, line);
}

static int simple(struct nd_builder *b, uint32_t opcode, struct nd_tensor *dst,
		  struct nd_tensor *src, uint64_t count, enum nd_alu reduce, uint32_t shift,
		  const char *file, int line)
{
	struct nd_cc cc = { .opcode = opcode, .src = src, .dst = dst, .count = count,
			    .reduce = reduce, .shift = shift };

	return nd_collective_at(b, &cc, file, line);
}

int nd_all_reduce_at(struct nd_builder *b, struct nd_tensor *dst, struct nd_tensor *src,
		     uint64_t count, enum nd_alu op, const char *file, int line)
{
	return simple(b, VNEF_CC_ALL_REDUCE, dst, src, count, op, 0, file, line);
}

int nd_all_gather_at(struct nd_builder *b, struct nd_tensor *dst, struct nd_tensor *src,
		     uint64_t count, const char *file, int line)
{
	return simple(b, VNEF_CC_ALL_GATHER, dst, src, count, ND_ADD, 0, file, line);
}

int nd_reduce_scatter_at(struct nd_builder *b, struct nd_tensor *dst, struct nd_tensor *src,
			 uint64_t count, enum nd_alu op, const char *file, int line)
{
	return simple(b, VNEF_CC_REDUCE_SCATTER, dst, src, count, op, 0, file, line);
}

int nd_all_to_all_at(struct nd_builder *b, struct nd_tensor *dst, struct nd_tensor *src,
		     uint64_t count, const char *file, int line)
{
	return simple(b, VNEF_CC_ALL_TO_ALL, dst, src, count, ND_ADD, 0, file, line);
}

int nd_permute_at(struct nd_builder *b, struct nd_tensor *dst, struct nd_tensor *src,
		  uint64_t count, uint32_t shift, const char *file, int line)
{
	return simple(b, VNEF_CC_PERMUTE, dst, src, count, ND_ADD, shift, file, line);
}
