/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The .vnef mutator's fields (vnef_mutator.h, which includes it): every numeric
 * field of the format's entries with its kind and width, and the solvers that set one
 * field from the entry's others so that a validator's sum lands on its limit, one past
 * it, or wraps.
 */
#ifndef VNEF_MUTATOR_FIELDS_H
#define VNEF_MUTATOR_FIELDS_H

#include "vnef_mutator_image.h"

/* ---- fields ---- */

enum vnm_id {
	ID_OTHER,
	ID_AP_START, ID_AP_PARTS, ID_AP_OFF, ID_AP_C0, ID_AP_C1, ID_AP_S0, ID_AP_S1,
	ID_CHUNK, ID_DC0, ID_DC1, ID_EP_OFF, ID_EP_PART, ID_EP_PS0, ID_EP_PS1, ID_EP_S0,
	ID_EP_S1,
	ID_T_RANK, ID_T_SHAPE, ID_T_SIZE, ID_T_CONST,
	ID_S_OFF, ID_S_SIZE, ID_S_COUNT,
	ID_H_TOTAL, ID_H_COUNT,
	ID_CC_COUNT, ID_CC_SOFF, ID_CC_DOFF, ID_CC_GSIZE, ID_CC_GSTRIDE, ID_CC_SHIFT,
};

struct vnm_field {
	uint16_t off;
	uint8_t width;
	uint8_t kind;		/* enum vnm_kind */
	uint8_t id;		/* enum vnm_id: what the solvers know it as */
	uint8_t slot;		/* operand (dst, src0, src1), endpoint (src, dst), array index */
};

#define VNM_F(T, m, k, id, slot) \
	{ offsetof(T, m), sizeof(((T *)0)->m), k, id, slot }

#define VNM_AP(a, s) \
	VNM_F(struct vnef_instr, a.mem, VK_ENUM, ID_OTHER, s), \
	VNM_F(struct vnef_instr, a.dtype, VK_ENUM, ID_OTHER, s), \
	VNM_F(struct vnef_instr, a.start_partition, VK_PART, ID_AP_START, s), \
	VNM_F(struct vnef_instr, a.partitions, VK_NPART, ID_AP_PARTS, s), \
	VNM_F(struct vnef_instr, a.offset, VK_BOFF, ID_AP_OFF, s), \
	VNM_F(struct vnef_instr, a.count[0], VK_COUNT, ID_AP_C0, s), \
	VNM_F(struct vnef_instr, a.count[1], VK_COUNT, ID_AP_C1, s), \
	VNM_F(struct vnef_instr, a.stride[0], VK_ESTRIDE, ID_AP_S0, s), \
	VNM_F(struct vnef_instr, a.stride[1], VK_ESTRIDE, ID_AP_S1, s), \
	VNM_F(struct vnef_instr, a.pad, VK_PAD, ID_OTHER, s)

static const struct vnm_field vnm_instr_fields[] = {
	VNM_F(struct vnef_instr, opcode, VK_ENUM, ID_OTHER, 0),
	VNM_F(struct vnef_instr, flags, VK_FLAGS, ID_OTHER, 0),
	VNM_F(struct vnef_instr, wait_sem, VK_SEM, ID_OTHER, 0),
	VNM_F(struct vnef_instr, wait_value, VK_WVAL, ID_OTHER, 0),
	VNM_F(struct vnef_instr, signal_mask, VK_MASK, ID_OTHER, 0),
	VNM_AP(dst, 0),
	VNM_AP(src0, 1),
	VNM_AP(src1, 2),
	VNM_F(struct vnef_instr, op, VK_ENUM, ID_OTHER, 0),
	VNM_F(struct vnef_instr, pad, VK_PAD, ID_OTHER, 0),
	VNM_F(struct vnef_instr, imm[0], VK_IMM, ID_OTHER, 0),
	VNM_F(struct vnef_instr, imm[1], VK_IMM, ID_OTHER, 1),
	VNM_F(struct vnef_instr, imm[2], VK_IMM, ID_OTHER, 2),
	VNM_F(struct vnef_instr, imm[3], VK_IMM, ID_OTHER, 3),
	VNM_F(struct vnef_instr, reserved[0], VK_PAD, ID_OTHER, 0),
	VNM_F(struct vnef_instr, reserved[3], VK_PAD, ID_OTHER, 3),
};

#define VNM_EP(e, s) \
	VNM_F(struct vnef_dma_desc, e.mem, VK_ENUM, ID_OTHER, s), \
	VNM_F(struct vnef_dma_desc, e.tensor, VK_ENUM, ID_OTHER, s), \
	VNM_F(struct vnef_dma_desc, e.offset, VK_BYTES64, ID_EP_OFF, s), \
	VNM_F(struct vnef_dma_desc, e.partition, VK_PART, ID_EP_PART, s), \
	VNM_F(struct vnef_dma_desc, e.pid_stride, VK_BYTES64, ID_OTHER, s), \
	VNM_F(struct vnef_dma_desc, e.part_stride[0], VK_PSTRIDE, ID_EP_PS0, s), \
	VNM_F(struct vnef_dma_desc, e.part_stride[1], VK_PSTRIDE, ID_EP_PS1, s), \
	VNM_F(struct vnef_dma_desc, e.stride[0], VK_BYTES64, ID_EP_S0, s), \
	VNM_F(struct vnef_dma_desc, e.stride[1], VK_BYTES64, ID_EP_S1, s)

static const struct vnm_field vnm_desc_fields[] = {
	VNM_F(struct vnef_dma_desc, flags, VK_FLAGS, ID_OTHER, 0),
	VNM_F(struct vnef_dma_desc, wait_sem, VK_SEM, ID_OTHER, 0),
	VNM_F(struct vnef_dma_desc, wait_value, VK_WVAL, ID_OTHER, 0),
	VNM_F(struct vnef_dma_desc, chunk_bytes, VK_CHUNK, ID_CHUNK, 0),
	VNM_F(struct vnef_dma_desc, signal_mask, VK_MASK, ID_OTHER, 0),
	VNM_F(struct vnef_dma_desc, count[0], VK_DCOUNT, ID_DC0, 0),
	VNM_F(struct vnef_dma_desc, count[1], VK_DCOUNT, ID_DC1, 0),
	VNM_EP(src, 0),
	VNM_EP(dst, 1),
};

static const struct vnm_field vnm_cc_fields[] = {
	VNM_F(struct vnef_cc_instr, opcode, VK_ENUM, ID_OTHER, 0),
	VNM_F(struct vnef_cc_instr, flags, VK_FLAGS, ID_OTHER, 0),
	VNM_F(struct vnef_cc_instr, wait_sem, VK_SEM, ID_OTHER, 0),
	VNM_F(struct vnef_cc_instr, wait_value, VK_WVAL, ID_OTHER, 0),
	VNM_F(struct vnef_cc_instr, signal_mask, VK_MASK, ID_OTHER, 0),
	VNM_F(struct vnef_cc_instr, dtype, VK_ENUM, ID_OTHER, 0),
	VNM_F(struct vnef_cc_instr, reduce, VK_ENUM, ID_OTHER, 0),
	VNM_F(struct vnef_cc_instr, count, VK_BYTES64, ID_CC_COUNT, 0),
	VNM_F(struct vnef_cc_instr, src_tensor, VK_ENUM, ID_OTHER, 0),
	VNM_F(struct vnef_cc_instr, dst_tensor, VK_ENUM, ID_OTHER, 1),
	VNM_F(struct vnef_cc_instr, src_offset, VK_BYTES64, ID_CC_SOFF, 0),
	VNM_F(struct vnef_cc_instr, dst_offset, VK_BYTES64, ID_CC_DOFF, 1),
	VNM_F(struct vnef_cc_instr, group_size, VK_ENUM, ID_CC_GSIZE, 0),
	VNM_F(struct vnef_cc_instr, group_stride, VK_ENUM, ID_CC_GSTRIDE, 0),
	VNM_F(struct vnef_cc_instr, shift, VK_ENUM, ID_CC_SHIFT, 0),
	VNM_F(struct vnef_cc_instr, reserved[0], VK_PAD, ID_OTHER, 0),
	VNM_F(struct vnef_cc_instr, reserved[5], VK_PAD, ID_OTHER, 5),
};

static const struct vnm_field vnm_tensor_fields[] = {
	VNM_F(struct vnef_tensor, name_off, VK_STR, ID_OTHER, 0),
	VNM_F(struct vnef_tensor, kind, VK_ENUM, ID_OTHER, 0),
	VNM_F(struct vnef_tensor, dtype, VK_ENUM, ID_OTHER, 0),
	VNM_F(struct vnef_tensor, rank, VK_ENUM, ID_T_RANK, 0),
	VNM_F(struct vnef_tensor, shape[0], VK_BYTES64, ID_T_SHAPE, 0),
	VNM_F(struct vnef_tensor, shape[1], VK_BYTES64, ID_T_SHAPE, 1),
	VNM_F(struct vnef_tensor, shape[2], VK_BYTES64, ID_T_SHAPE, 2),
	VNM_F(struct vnef_tensor, shape[3], VK_BYTES64, ID_T_SHAPE, 3),
	VNM_F(struct vnef_tensor, size, VK_BYTES64, ID_T_SIZE, 0),
	VNM_F(struct vnef_tensor, const_off, VK_BYTES64, ID_T_CONST, 0),
};

static const struct vnm_field vnm_section_fields[] = {
	VNM_F(struct vnef_section, type, VK_ENUM, ID_OTHER, 0),
	VNM_F(struct vnef_section, index, VK_ENUM, ID_OTHER, 0),
	VNM_F(struct vnef_section, offset, VK_BYTES64, ID_S_OFF, 0),
	VNM_F(struct vnef_section, size, VK_BYTES64, ID_S_SIZE, 0),
	VNM_F(struct vnef_section, count, VK_DCOUNT, ID_S_COUNT, 0),
	VNM_F(struct vnef_section, entry_size, VK_ENUM, ID_OTHER, 0),
};

static const struct vnm_field vnm_header_fields[] = {
	VNM_F(struct vnef_header, version, VK_ENUM, ID_OTHER, 0),
	VNM_F(struct vnef_header, header_size, VK_ENUM, ID_OTHER, 0),
	VNM_F(struct vnef_header, flags, VK_FLAGS, ID_OTHER, 0),
	VNM_F(struct vnef_header, total_size, VK_BYTES64, ID_H_TOTAL, 0),
	VNM_F(struct vnef_header, section_count, VK_ENUM, ID_H_COUNT, 0),
	VNM_F(struct vnef_header, section_entry_size, VK_ENUM, ID_OTHER, 0),
	VNM_F(struct vnef_header, name_off, VK_STR, ID_OTHER, 0),
	VNM_F(struct vnef_header, reserved[2], VK_PAD, ID_OTHER, 2),
};

/* A field of a table, rarely a pad (the validator refuses any non-zero pad at once). */
static inline const struct vnm_field *vnm_pick_field(struct vnm_rng *r,
						     const struct vnm_field *t, size_t n)
{
	const struct vnm_field *f = &t[vnm_below(r, n)];
	int i;

	for (i = 0; i < 4 && f->kind == VK_PAD && !vnm_one_in(r, 8); i++)
		f = &t[vnm_below(r, n)];
	return f;
}

/* ---- solvers: a value of one field from the entry's others ---- */

/* A last partition: the last valid, the first invalid, or (by wrapping) a small one. */
static inline uint64_t vnm_part_target(struct vnm_rng *r)
{
	return vnm_one_in(r, 2) ? vnm_below(r, VNEF_PARTITIONS) :
				  VNEF_PARTITIONS - 1 + vnm_below(r, 2);
}

static inline uint64_t vnm_ep_limit(const struct vnm_img *im, const struct vnef_dma_ep *e)
{
	if (e->mem == VNEF_MEM_HBM)
		return vnm_tensor_size(im, e->tensor);
	return e->mem == VNEF_MEM_PSUM ? VNEF_PSUM_PART_BYTES : VNEF_SBUF_PART_BYTES;
}

static inline bool vnm_solve_desc(struct vnm_rng *r, const struct vnm_img *im,
				  struct vnef_dma_desc *d, unsigned int id, unsigned int slot)
{
	struct vnef_dma_ep *e = slot ? &d->dst : &d->src;
	uint64_t c0 = vnm_m1(d->count[0]), c1 = vnm_m1(d->count[1]), v;
	/* the validator's sums: last partition, and the byte just past the last chunk */
	uint64_t psum = e->partition + c0 * e->part_stride[0] + c1 * e->part_stride[1];
	uint64_t bsum = e->offset + c0 * e->stride[0] + c1 * e->stride[1] + d->chunk_bytes;
	uint64_t pt = vnm_part_target(r);
	uint64_t bt = vnm_one_in(r, 3) ? d->chunk_bytes + vnm_below(r, 64) :
					 vnm_ep_limit(im, e) + vnm_below(r, 2);
	uint64_t both = (uint64_t)d->count[0] * d->count[1], total;
	bool part = e->mem != VNEF_MEM_HBM && vnm_one_in(r, 2);

	switch (id) {
	case ID_EP_PART:
		if (!vnm_solve(psum - e->partition, 1, pt, VNM_U32, &v))
			return false;
		e->partition = (uint32_t)v;
		return true;
	case ID_EP_PS0:
	case ID_EP_PS1: {
		uint32_t *ps = &e->part_stride[id == ID_EP_PS1];
		uint64_t k = id == ID_EP_PS1 ? c1 : c0;

		if (!vnm_solve(psum - k * *ps, k, pt, VNM_U32, &v))
			return false;
		*ps = (uint32_t)v;
		return true;
	}
	case ID_EP_OFF:
		if (!vnm_solve(bsum - e->offset, 1, bt, VNM_U64, &v))
			return false;
		e->offset = v;
		return true;
	case ID_EP_S0:
	case ID_EP_S1: {
		__u64 *s = &e->stride[id == ID_EP_S1];
		uint64_t k = id == ID_EP_S1 ? c1 : c0;

		if (!vnm_solve(bsum - k * *s, k, bt, VNM_U64, &v))
			return false;
		*s = v;
		return true;
	}
	case ID_DC0:
	case ID_DC1: {
		unsigned int a = id == ID_DC1;
		uint64_t k = a ? c1 : c0;

		if (vnm_one_in(r, 3)) {
			/* the 16 GiB limit of one DMA: exactly at it, or just past */
			total = (uint64_t)d->chunk_bytes * d->count[!a];
			if (!total)
				return false;
			v = VNM_16G / total + vnm_below(r, 2);
		} else if (part) {
			if (!vnm_solve(psum - k * e->part_stride[a], e->part_stride[a], pt,
				       VNM_U32 - 1, &v))
				return false;
			v++;
		} else {
			if (!vnm_solve(bsum - k * e->stride[a], e->stride[a], bt, VNM_U32 - 1, &v))
				return false;
			v++;
		}
		if (v > VNM_U32)
			return false;
		d->count[a] = (uint32_t)v;
		return true;
	}
	case ID_CHUNK:
		if (vnm_one_in(r, 2) && both) {
			v = VNM_16G / both + vnm_below(r, 2);
		} else if (!vnm_solve(bsum - d->chunk_bytes, 1, bt, VNM_U32, &v)) {
			return false;
		}
		if (!v || v > VNM_U32)
			return false;
		d->chunk_bytes = (uint32_t)v;
		return true;
	}
	return false;
}

static inline struct vnef_ap *vnm_ap(struct vnef_instr *in, unsigned int slot)
{
	return slot == 0 ? &in->dst : slot == 1 ? &in->src0 : &in->src1;
}

static inline bool vnm_solve_ap(struct vnm_rng *r, struct vnef_instr *in, unsigned int id,
				unsigned int slot)
{
	static const uint64_t free_limits[] = {
		VNEF_MAX_FREE, VNEF_MM_MAX_N, VNEF_MM_MAX_M, VNEF_PSUM_BANK_BYTES / 4,
	};
	struct vnef_ap *a = vnm_ap(in, slot), *o = vnm_ap(in, vnm_below(r, 3));
	uint64_t es = a->dtype == VNEF_DT_BF16 ? 2 : 4;
	uint64_t lim = a->mem == VNEF_MEM_PSUM ? VNEF_PSUM_PART_BYTES : VNEF_SBUF_PART_BYTES;
	uint64_t c0 = vnm_m1(a->count[0]), c1 = vnm_m1(a->count[1]);
	uint64_t idx = c0 * a->stride[0] + c1 * a->stride[1];
	uint64_t tend, tidx, v;

	/* where the operand should end: the partition's end, an element past, a bank edge */
	switch (vnm_below(r, 4)) {
	case 0: tend = lim; break;
	case 1: tend = lim + es; break;
	case 2: tend = (a->offset / VNEF_PSUM_BANK_BYTES + 1) * VNEF_PSUM_BANK_BYTES +
		       es * vnm_below(r, 2); break;
	default: tend = es * (1 + vnm_below(r, 4)); break;	/* wrapped */
	}
	tidx = (tend - a->offset) / es - 1;
	switch (id) {
	case ID_AP_OFF:
		if (!vnm_solve((idx + 1) * es, 1, tend, VNM_U32, &v))
			return false;
		a->offset = (uint32_t)(v - v % es);
		return true;
	case ID_AP_S0:
	case ID_AP_S1: {
		unsigned int i = id == ID_AP_S1;
		uint64_t k = i ? c1 : c0;

		if (!vnm_solve(idx - k * a->stride[i], k, tidx, VNM_U32, &v))
			return false;
		a->stride[i] = (uint32_t)v;
		return true;
	}
	case ID_AP_C0:
	case ID_AP_C1: {
		unsigned int i = id == ID_AP_C1;
		uint64_t k = i ? c1 : c0;

		if (vnm_one_in(r, 2)) {
			/* a free-size limit over the other count, or the other operand's size */
			if (!a->count[!i])
				return false;
			v = vnm_one_in(r, 3) ? (uint64_t)o->count[0] * o->count[1] :
					       VNM_PICK(r, free_limits);
			v = v / a->count[!i] + vnm_below(r, 2);
		} else {
			if (!vnm_solve(idx - k * a->stride[i], a->stride[i], tidx, VNM_U32 - 1, &v))
				return false;
			v++;
		}
		if (v > VNM_U32)
			return false;
		a->count[i] = (uint32_t)v;
		return true;
	}
	case ID_AP_START:
		v = VNEF_PARTITIONS - a->partitions + vnm_below(r, 2);
		a->start_partition = (uint16_t)v;
		return true;
	case ID_AP_PARTS:
		switch (vnm_below(r, 3)) {
		case 0: v = VNEF_PARTITIONS - a->start_partition + vnm_below(r, 2); break;
		case 1: v = o->partitions; break;
		default: v = (uint64_t)o->count[0] * o->count[1]; break;	/* transposed */
		}
		a->partitions = (uint16_t)v;
		return true;
	}
	return false;
}

/*
 * How many times count elements a collective's side holds for groups of n: all_gather's
 * and all_to_all's destination and reduce_scatter's and all_to_all's source hold n.
 */
static inline uint64_t vnm_cc_times(const struct vnef_cc_instr *in, unsigned int dst, uint64_t n)
{
	if (in->opcode == VNEF_CC_ALL_TO_ALL)
		return n;
	if (in->opcode == (dst ? VNEF_CC_ALL_GATHER : VNEF_CC_REDUCE_SCATTER))
		return n;
	return 1;
}

/*
 * A collective's count, offsets or group solved against the validator's sums: a side's
 * last byte (offset + count x element x the group's share) at its tensor's end, one
 * element past it, wrapped, or at the 2 GiB limit of one rank's side; a group spanning
 * 64 ranks or 65; a shift at the group's size.
 */
static inline bool vnm_solve_cc(struct vnm_rng *r, const struct vnm_img *im,
				struct vnef_cc_instr *in, unsigned int id, unsigned int slot)
{
	uint64_t es = in->dtype == VNEF_DT_BF16 ? 2 : 4;
	uint64_t n = in->group_size ? in->group_size : 1 + vnm_below(r, 2) * 63;
	unsigned int side = id == ID_CC_COUNT ? vnm_below(r, 2) : slot;
	uint64_t per = es * vnm_cc_times(in, side, n);
	uint64_t off = side ? in->dst_offset : in->src_offset;
	uint64_t end = vnm_tensor_size(im, side ? in->dst_tensor : in->src_tensor);
	uint64_t target, v;

	switch (vnm_below(r, 4)) {
	case 0: target = end; break;
	case 1: target = end + es * (1 + vnm_below(r, 2)); break;
	case 2: target = es * vnm_below(r, 4); break;	/* wrapped */
	default: target = off + (1ull << 31) + es * vnm_below(r, 2); break;
	}
	switch (id) {
	case ID_CC_COUNT:
		if (!vnm_solve(off, per, target, VNM_U64, &v))
			return false;
		in->count = v ? v : 1;
		return true;
	case ID_CC_SOFF:
	case ID_CC_DOFF:
		v = target - in->count * per;
		v -= vnm_one_in(r, 4) ? v % es : 0;
		if (side)
			in->dst_offset = v;
		else
			in->src_offset = v;
		return true;
	case ID_CC_GSIZE:
		v = in->group_stride ? in->group_stride : 1;
		in->group_size = (uint16_t)((VNEF_CC_MAX_RANKS + vnm_below(r, 2)) / v +
					    vnm_below(r, 2));
		return true;
	case ID_CC_GSTRIDE:
		v = in->group_size ? in->group_size : 1;
		in->group_stride = (uint16_t)((VNEF_CC_MAX_RANKS + vnm_below(r, 2)) / v);
		return true;
	case ID_CC_SHIFT:
		in->shift = (in->group_size ? in->group_size : VNEF_CC_MAX_RANKS) -
			    vnm_below(r, 2);
		return true;
	}
	return false;
}

/* The product of a tensor's dims below its rank times the dtype size, mod 2^64. */
static inline uint64_t vnm_tensor_bytes(const struct vnef_tensor *t, int skip)
{
	uint64_t p = t->dtype == VNEF_DT_BF16 ? 2 : 4;
	uint32_t i;

	for (i = 0; i < VNEF_MAX_RANK && i < t->rank; i++)
		if ((int)i != skip)
			p *= t->shape[i];
	return p;
}

static inline bool vnm_solve_tensor(struct vnm_rng *r, const struct vnm_img *im,
				    struct vnef_tensor *t, unsigned int id, unsigned int slot)
{
	static const uint64_t targets[] = { VNM_16G, VNM_16G + 1, 0, 1, 4096 };
	uint64_t v, k;
	uint32_t i;

	switch (id) {
	case ID_T_SIZE:
		t->size = vnm_tensor_bytes(t, -1);
		return true;
	case ID_T_SHAPE:
		k = vnm_tensor_bytes(t, (int)slot);
		if (!vnm_solve(0, k, VNM_PICK(r, targets), VNM_U64, &v))
			return false;
		t->shape[slot] = v;
		if (vnm_one_in(r, 2))
			t->size = vnm_tensor_bytes(t, -1);
		return true;
	case ID_T_CONST:
		t->const_off = im->const_size - t->size +
			       (vnm_one_in(r, 2) ? 0 : vnm_below(r, 9));
		return true;
	case ID_T_RANK:
		for (i = 0; i < VNEF_MAX_RANK && t->shape[i]; i++)
			;
		t->rank = i + (vnm_one_in(r, 2) ? 0 : 1);
		return true;
	}
	return false;
}

static inline bool vnm_solve_section(struct vnm_rng *r, const struct vnm_img *im,
				     struct vnef_section *s, unsigned int id)
{
	const struct vnm_sec *o = &im->sec[vnm_below(r, im->nsec)];
	uint64_t esz = vnm_esz(s->type);

	switch (id) {
	case ID_S_OFF:
		switch (vnm_below(r, 3)) {
		case 0: s->offset = ((im->size - s->size) & ~7ull) + 8 * vnm_below(r, 2); break;
		case 1: s->offset = 0 - s->size + 8 * vnm_below(r, 4); break;	/* wraps */
		default: s->offset = o->off + 8 * vnm_below(r, 2); break;	/* overlaps */
		}
		return true;
	case ID_S_SIZE:
		switch (vnm_below(r, 3)) {
		case 0: s->size = im->size - s->offset + vnm_below(r, 2); break;
		case 1: s->size = 0 - s->offset + vnm_below(r, 16); break;	/* wraps */
		default: s->size = (uint64_t)s->count * esz; break;
		}
		return true;
	case ID_S_COUNT:
		if (!esz)
			return false;
		s->count = (uint32_t)(s->size / esz + vnm_below(r, 2));
		return true;
	}
	return false;
}

#endif /* VNEF_MUTATOR_FIELDS_H */
