/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Structure-aware mutation of .vnef images (uapi/vneuron_program.h) for fuzz_program,
 * fuzz_exec and the guest ioctl fuzzer (tests/guest/ioctl_fuzz_test.c).
 *
 * Byte-level mutation almost never makes a program hold the values the validator's
 * arithmetic cares about: the DMA partition-sum bug needed a part_stride near 2^32, a
 * count near 2^32 and a partition chosen so that their sum wraps 2^64, all in one
 * descriptor that is otherwise valid. So this parses an image far enough to find its
 * header, section table, tensor table, instruction streams, DMA descriptor streams and
 * the collective stream, and writes into one or a few numeric fields of them:
 *   - a boundary of the field's width (0, 1, 2^(n-1)-1, 2^(n-1), 2^n-1, 2^32, ...),
 *   - a value around the format's real limits for that kind of field (128 partitions,
 *     192 KiB / 16 KiB / 2 KiB partitions and banks, 98304 free elements, 64 semaphores,
 *     16 GiB per tensor or DMA, ...),
 *   - a value solved from the entry's other fields so that one of the validator's sums
 *     (a DMA endpoint's last partition or last byte, an operand's last byte, a tensor's
 *     size, a section's end, a collective's range for its group) lands exactly on its
 *     limit, one past it, or wraps 2^64 to a small number,
 *   - the current value nudged by a little,
 * and, less often, whole patterns (the same wrapping value into counts and strides of
 * one endpoint or operand, with the partition then solved), consistency fix-ups (tensor
 * size = its shape's product, section size = count * entry size), and structural edits
 * (an entry duplicated, deleted, copied or swapped; an operand or endpoint copied).
 * Unparsable input, and a share of the rest, goes to a byte-level mutator.
 *
 * Everything is static and depends only on the seed passed in. Define VNM_LIBFUZZER
 * before including this to get libFuzzer's LLVMFuzzerCustomMutator and
 * LLVMFuzzerCustomCrossOver. Little-endian hosts only (as the format).
 *
 * The generator, values and parsed image are in vnef_mutator_image.h, the fields and
 * their solvers in vnef_mutator_fields.h; this file mutates.
 */
#ifndef VNEF_MUTATOR_H
#define VNEF_MUTATOR_H

#include "vnef_mutator_fields.h"

/* ---- one mutation ---- */

/* A value into a field of the entry at p (a copy of the entry, fields in place). */
static inline void vnm_set_field(struct vnm_rng *r, uint8_t *p, const struct vnm_field *f)
{
	uint64_t cur = vnm_get(p + f->off, f->width);

	vnm_put(p + f->off, f->width, vnm_value(r, f->kind, f->width, cur));
}

static inline bool vnm_mutate_instr(struct vnm_rng *r, struct vnm_img *im)
{
	const struct vnm_field *f;
	struct vnef_instr in;
	uint32_t s, i;
	int k;

	if (!vnm_pick_entry(r, im, VNEF_SEC_INSTR, &s, &i))
		return false;
	memcpy(&in, vnm_entry(im, s, i), sizeof(in));
	/* mostly the operands the opcode uses: the others must stay all-zero */
	f = vnm_pick_field(r, vnm_instr_fields, VNM_N(vnm_instr_fields));
	for (k = 0; k < 4; k++) {
		if (f->id == ID_OTHER || vnm_ap(&in, f->slot)->mem || vnm_one_in(r, 4))
			break;
		f = vnm_pick_field(r, vnm_instr_fields, VNM_N(vnm_instr_fields));
	}
	if (f->id == ID_OTHER || !vnm_one_in(r, 3) || !vnm_solve_ap(r, &in, f->id, f->slot))
		vnm_set_field(r, (uint8_t *)&in, f);
	memcpy(vnm_entry(im, s, i), &in, sizeof(in));
	return true;
}

static inline bool vnm_mutate_desc(struct vnm_rng *r, struct vnm_img *im)
{
	const struct vnm_field *f;
	struct vnef_dma_desc d;
	uint32_t s, i;

	if (!vnm_pick_entry(r, im, VNEF_SEC_DMA, &s, &i))
		return false;
	memcpy(&d, vnm_entry(im, s, i), sizeof(d));
	f = vnm_pick_field(r, vnm_desc_fields, VNM_N(vnm_desc_fields));
	if (f->id == ID_OTHER || !vnm_one_in(r, 3) || !vnm_solve_desc(r, im, &d, f->id, f->slot))
		vnm_set_field(r, (uint8_t *)&d, f);
	memcpy(vnm_entry(im, s, i), &d, sizeof(d));
	return true;
}

static inline bool vnm_mutate_cc(struct vnm_rng *r, struct vnm_img *im)
{
	const struct vnm_field *f;
	struct vnef_cc_instr in;
	uint32_t s, i;

	if (!vnm_pick_entry(r, im, VNEF_SEC_CC, &s, &i))
		return false;
	memcpy(&in, vnm_entry(im, s, i), sizeof(in));
	f = vnm_pick_field(r, vnm_cc_fields, VNM_N(vnm_cc_fields));
	if (f->id == ID_OTHER || vnm_one_in(r, 2) || !vnm_solve_cc(r, im, &in, f->id, f->slot))
		vnm_set_field(r, (uint8_t *)&in, f);
	memcpy(vnm_entry(im, s, i), &in, sizeof(in));
	return true;
}

static inline bool vnm_mutate_tensor(struct vnm_rng *r, struct vnm_img *im)
{
	const struct vnm_field *f;
	struct vnef_tensor t;
	uint32_t s, i;

	if (!vnm_pick_entry(r, im, VNEF_SEC_TENSORS, &s, &i))
		return false;
	memcpy(&t, vnm_entry(im, s, i), sizeof(t));
	f = vnm_pick_field(r, vnm_tensor_fields, VNM_N(vnm_tensor_fields));
	if (f->id == ID_OTHER || !vnm_one_in(r, 3) || !vnm_solve_tensor(r, im, &t, f->id, f->slot))
		vnm_set_field(r, (uint8_t *)&t, f);
	/* a new shape with its size kept consistent gets past the size check */
	if (f->id == ID_T_SHAPE && vnm_one_in(r, 2))
		t.size = vnm_tensor_bytes(&t, -1);
	memcpy(vnm_entry(im, s, i), &t, sizeof(t));
	return true;
}

static inline bool vnm_mutate_section(struct vnm_rng *r, struct vnm_img *im)
{
	const struct vnm_field *f;
	struct vnef_section e;
	uint32_t s;

	if (!im->nsec)
		return false;
	s = vnm_below(r, im->nsec);
	memcpy(&e, vnm_sec_entry(im, s), sizeof(e));
	f = vnm_pick_field(r, vnm_section_fields, VNM_N(vnm_section_fields));
	if (f->id == ID_OTHER || !vnm_one_in(r, 3) || !vnm_solve_section(r, im, &e, f->id))
		vnm_set_field(r, (uint8_t *)&e, f);
	memcpy(vnm_sec_entry(im, s), &e, sizeof(e));
	return true;
}

static inline bool vnm_mutate_header(struct vnm_rng *r, struct vnm_img *im)
{
	const struct vnm_field *f;
	struct vnef_header h;

	memcpy(&h, im->d, sizeof(h));
	f = vnm_pick_field(r, vnm_header_fields, VNM_N(vnm_header_fields));
	if (f->id == ID_H_TOTAL && vnm_one_in(r, 2))
		h.total_size = im->size + vnm_below(r, 3) - 1;
	else if (f->id == ID_H_COUNT && vnm_one_in(r, 2))
		h.section_count = im->nsec + vnm_below(r, 3) - 1;
	else
		vnm_set_field(r, (uint8_t *)&h, f);
	memcpy(im->d, &h, sizeof(h));
	return true;
}

/* Values that wrap a sum of (count - 1) * stride terms when put into both. */
static const uint64_t vnm_wrap32[] = {
	0xffffffff, 0xfffffffe, 0x80000000, 0x80000001, 0x7fffffff, 0x55555556, 0x40000001,
};

/*
 * The largest last-partition sum one DMA may have: 1-byte chunks and the counts, within
 * the 16 GiB limit on count[0] * count[1], with the largest (count[a] - 1) +
 * (count[b] - 1); every part_stride 2^32 - 1 then multiplies that.
 */
static inline void vnm_max_counts(uint32_t *ca, uint32_t *cb)
{
	uint64_t best = 0, a, b;

	for (b = 1; b <= 16; b++) {
		a = VNM_16G / b < VNM_U32 ? VNM_16G / b : VNM_U32;
		if (a + b > best) {
			best = a + b;
			*ca = (uint32_t)a;
			*cb = (uint32_t)b;
		}
	}
}

/*
 * Patterns that reach a DMA endpoint's partition-sum wrap: either the largest sum the
 * limits allow (vnm_max_counts(), part_strides 2^32 - 1), or one axis long and one short
 * with wrapping part_strides (sometimes the same value as the count); the long axis's
 * byte strides 0 (a broadcast) so the byte checks pass; then the partition (or a
 * part_stride) solved so that the last-partition sum wraps to a small number.
 */
static inline bool vnm_wrap_desc(struct vnm_rng *r, struct vnm_img *im)
{
	struct vnef_dma_desc d;
	struct vnef_dma_ep *e, *o;
	unsigned int a = vnm_below(r, 2), b = !a;
	uint64_t rest, total, v;
	uint32_t s, i;

	if (!vnm_pick_entry(r, im, VNEF_SEC_DMA, &s, &i))
		return false;
	memcpy(&d, vnm_entry(im, s, i), sizeof(d));
	/* mostly an on-chip endpoint: HBM ones have no partitions */
	e = &d.src;
	o = &d.dst;
	if ((d.dst.mem != VNEF_MEM_HBM && (d.src.mem == VNEF_MEM_HBM || vnm_one_in(r, 2))) ||
	    vnm_one_in(r, 8)) {
		e = &d.dst;
		o = &d.src;
	}
	if (vnm_one_in(r, 2)) {
		d.chunk_bytes = 1;
		vnm_max_counts(&d.count[a], &d.count[b]);
		e->part_stride[a] = (uint32_t)VNM_U32;
		e->part_stride[b] = (uint32_t)VNM_U32;
		e->stride[a] = 0;
	} else {
		if (!vnm_one_in(r, 4))
			d.chunk_bytes = 1;
		if (!vnm_one_in(r, 4))
			d.count[b] = 1 + vnm_below(r, 5);
		total = (uint64_t)(d.chunk_bytes ? d.chunk_bytes : 1) *
			(d.count[b] ? d.count[b] : 1);
		switch (vnm_below(r, 4)) {
		case 0:
		case 1:
			v = VNM_16G / total;	/* as long as allowed */
			d.count[a] = (uint32_t)(v > VNM_U32 ? VNM_U32 : v);
			break;
		case 2:
			d.count[a] = (uint32_t)VNM_PICK(r, vnm_wrap32);
			break;
		default:
			d.count[a] = (uint32_t)vnm_from(r, vnm_l_dcount, VNM_N(vnm_l_dcount),
							VNM_U32);
			break;
		}
		/* the same wrapping value in count and stride, or an independent one */
		e->part_stride[a] = vnm_one_in(r, 4) ? d.count[a] :
						       (uint32_t)VNM_PICK(r, vnm_wrap32);
		if (!vnm_one_in(r, 3))
			e->part_stride[b] = (uint32_t)VNM_PICK(r, vnm_wrap32);
		if (!vnm_one_in(r, 4))
			e->stride[a] = 0;
	}
	if (!vnm_one_in(r, 4)) {
		o->stride[a] = 0;
		o->part_stride[a] = 0;
	}
	rest = vnm_m1(d.count[0]) * e->part_stride[0] + vnm_m1(d.count[1]) * e->part_stride[1];
	if (vnm_solve(rest, 1, vnm_part_target(r), VNM_U32, &v)) {
		e->partition = (uint32_t)v;
	} else {
		unsigned int x = vnm_one_in(r, 4) ? a : b;
		uint64_t k = vnm_m1(d.count[x]);

		if (vnm_solve(rest - k * e->part_stride[x] + e->partition, k, vnm_part_target(r),
			      VNM_U32, &v))
			e->part_stride[x] = (uint32_t)v;
	}
	memcpy(vnm_entry(im, s, i), &d, sizeof(d));
	return true;
}

/*
 * An operand stretched to a limit: a free size at one of the limits, strides that are
 * huge or equal to the counts, and a stride or offset solved to end at the partition's
 * end, just past it, or wrapped.
 */
static inline bool vnm_wrap_ap(struct vnm_rng *r, struct vnm_img *im)
{
	static const uint64_t free_limits[] = {
		VNEF_MAX_FREE, VNEF_MAX_FREE + 1, VNEF_MM_MAX_N, VNEF_MM_MAX_M, 1,
	};
	struct vnef_instr in;
	struct vnef_ap *a;
	uint32_t s, i, c1;
	unsigned int slot = vnm_below(r, 3), k;

	if (!vnm_pick_entry(r, im, VNEF_SEC_INSTR, &s, &i))
		return false;
	memcpy(&in, vnm_entry(im, s, i), sizeof(in));
	for (k = 0; k < 3 && !vnm_ap(&in, slot)->mem; k++)
		slot = (slot + 1) % 3;
	a = vnm_ap(&in, slot);
	c1 = vnm_one_in(r, 2) ? 1 + vnm_below(r, 4) : (uint32_t)VNM_PICK(r, vnm_l_count);
	if (!c1)
		c1 = 1;
	a->count[1] = c1;
	a->count[0] = (uint32_t)(VNM_PICK(r, free_limits) / c1);
	if (!a->count[0])
		a->count[0] = 1;
	switch (vnm_below(r, 3)) {
	case 0:
		a->stride[0] = a->count[0];
		a->stride[1] = a->count[1];
		break;
	case 1:
		a->stride[0] = (uint32_t)VNM_PICK(r, vnm_wrap32);
		a->stride[1] = (uint32_t)VNM_PICK(r, vnm_wrap32);
		break;
	default:
		a->stride[0] = 1;
		a->stride[1] = a->count[0];
		break;
	}
	if (!vnm_solve_ap(r, &in, vnm_one_in(r, 2) ? ID_AP_S1 : ID_AP_OFF, slot))
		vnm_solve_ap(r, &in, ID_AP_S0, slot);
	if (vnm_one_in(r, 2))
		vnm_solve_ap(r, &in, ID_AP_PARTS, slot);
	memcpy(vnm_entry(im, s, i), &in, sizeof(in));
	return true;
}

/* Tensor sizes and section sizes made consistent again, so later checks are reached. */
static inline bool vnm_fixup(struct vnm_rng *r, struct vnm_img *im)
{
	struct vnef_section e;
	struct vnef_tensor t;
	uint32_t s, i;

	if (vnm_one_in(r, 2) && vnm_pick_entry(r, im, VNEF_SEC_TENSORS, &s, &i)) {
		memcpy(&t, vnm_entry(im, s, i), sizeof(t));
		t.size = vnm_tensor_bytes(&t, -1);
		memcpy(vnm_entry(im, s, i), &t, sizeof(t));
		return true;
	}
	if (!im->nsec)
		return false;
	s = vnm_below(r, im->nsec);
	memcpy(&e, vnm_sec_entry(im, s), sizeof(e));
	if (vnm_esz(e.type)) {
		e.entry_size = vnm_esz(e.type);
		e.size = (uint64_t)e.count * e.entry_size;
	}
	memcpy(vnm_sec_entry(im, s), &e, sizeof(e));
	return true;
}

/* ---- structural edits ---- */

/* Bytes [at, at + n) inserted (src) or removed (src NULL), every table kept in step. */
static inline bool vnm_resize(struct vnm_img *im, size_t max, uint32_t sec, uint64_t at,
			      const uint8_t *src, size_t n, bool insert)
{
	struct vnef_section e;
	struct vnef_header h;
	uint32_t j;

	if (insert ? im->size + n > max : at + n > im->size)
		return false;
	if (insert) {
		memmove(im->d + at + n, im->d + at, im->size - at);
		memcpy(im->d + at, src, n);
		im->size += n;
	} else {
		memmove(im->d + at, im->d + at + n, im->size - at - n);
		im->size -= n;
	}
	for (j = 0; j < im->nsec; j++) {
		memcpy(&e, vnm_sec_entry(im, j), sizeof(e));
		if (j == sec) {
			e.size = insert ? e.size + n : e.size - n;
			if (e.entry_size)
				e.count = insert ? e.count + 1 : e.count - 1;
		} else if (insert ? e.offset >= at && e.offset <= VNM_U64 - n :
				    e.offset >= at + n) {
			e.offset = insert ? e.offset + n : e.offset - n;
		}
		memcpy(vnm_sec_entry(im, j), &e, sizeof(e));
	}
	memcpy(&h, im->d, sizeof(h));
	h.total_size = im->size;
	memcpy(im->d, &h, sizeof(h));
	return true;
}

static inline bool vnm_struct_edit(struct vnm_rng *r, struct vnm_img *im, size_t max)
{
	static const uint32_t types[] = {
		VNEF_SEC_INSTR, VNEF_SEC_INSTR, VNEF_SEC_DMA, VNEF_SEC_DMA, VNEF_SEC_TENSORS,
		VNEF_SEC_DEBUG, VNEF_SEC_CC,
	};
	uint8_t tmp[sizeof(struct vnef_instr)];
	uint32_t type = VNM_PICK(r, types), s, i, s2, i2, esz;
	const struct vnm_sec *sec;
	uint64_t at;

	if (!vnm_pick_entry(r, im, type, &s, &i))
		return false;
	sec = &im->sec[s];
	esz = sec->esz;
	memcpy(tmp, vnm_entry(im, s, i), esz);
	switch (vnm_below(r, 5)) {
	case 0:	/* duplicate: the entry again, just after itself or at the stream's end */
		if (!sec->whole)
			return false;
		at = vnm_one_in(r, 2) ? sec->off + (uint64_t)(i + 1) * esz : sec->off + sec->size;
		return vnm_resize(im, max, s, at, tmp, esz, true);
	case 1:	/* delete */
		if (!sec->whole || sec->n < 2)
			return false;
		return vnm_resize(im, max, s, sec->off + (uint64_t)i * esz, NULL, esz, false);
	case 2:	/* copy over another entry of the same kind (any stream) */
		if (!vnm_pick_entry(r, im, type, &s2, &i2))
			return false;
		memcpy(vnm_entry(im, s2, i2), tmp, esz);
		return true;
	case 3:	/* swap two entries */
		if (!vnm_pick_entry(r, im, type, &s2, &i2))
			return false;
		memmove(vnm_entry(im, s, i), vnm_entry(im, s2, i2), esz);
		memcpy(vnm_entry(im, s2, i2), tmp, esz);
		return true;
	default:	/* one operand or endpoint onto another */
		if (type == VNEF_SEC_INSTR) {
			struct vnef_instr *x = (void *)tmp, y;

			if (!vnm_pick_entry(r, im, type, &s2, &i2))
				return false;
			memcpy(&y, vnm_entry(im, s2, i2), sizeof(y));
			*vnm_ap(&y, vnm_below(r, 3)) = *vnm_ap(x, vnm_below(r, 3));
			memcpy(vnm_entry(im, s2, i2), &y, sizeof(y));
			return true;
		}
		if (type == VNEF_SEC_DMA) {
			struct vnef_dma_desc *x = (void *)tmp, y;

			if (!vnm_pick_entry(r, im, type, &s2, &i2))
				return false;
			memcpy(&y, vnm_entry(im, s2, i2), sizeof(y));
			if (vnm_one_in(r, 2))
				y.dst = vnm_one_in(r, 2) ? x->src : x->dst;
			else
				y.src = vnm_one_in(r, 2) ? x->src : x->dst;
			memcpy(vnm_entry(im, s2, i2), &y, sizeof(y));
			return true;
		}
		return false;
	}
}

static inline bool vnm_mutate_once(struct vnm_rng *r, struct vnm_img *im, size_t max)
{
	unsigned int c = vnm_below(r, 100);

	if (c < 30)
		return vnm_mutate_instr(r, im);
	if (c < 58)
		return vnm_mutate_desc(r, im);
	/* images without a collective stream fall through to the tensor table */
	if (c < 62 && vnm_mutate_cc(r, im))
		return true;
	if (c < 66)
		return vnm_mutate_tensor(r, im);
	if (c < 71)
		return vnm_mutate_section(r, im);
	if (c < 73)
		return vnm_mutate_header(r, im);
	if (c < 81)
		return vnm_wrap_desc(r, im);
	if (c < 87)
		return vnm_wrap_ap(r, im);
	if (c < 90)
		return vnm_fixup(r, im);
	return vnm_struct_edit(r, im, max);
}

/* A byte-level mutator: (data, size, max) -> new size. */
typedef size_t (*vnm_bytes_fn)(uint8_t *data, size_t size, size_t max, struct vnm_rng *r);

/* The fallback without libFuzzer: a few bit flips and boundary words at random places. */
static inline size_t vnm_flip_bytes(uint8_t *data, size_t size, size_t max, struct vnm_rng *r)
{
	unsigned int n = 1 + vnm_below(r, 4), k;

	(void)max;
	if (!size)
		return 0;
	for (k = 0; k < n; k++) {
		size_t at = vnm_below(r, (uint32_t)size);
		unsigned int w = 1u << vnm_below(r, 4);

		if (vnm_one_in(r, 2) || at + w > size)
			data[at] ^= (uint8_t)(1u << vnm_below(r, 8));
		else
			vnm_put(data + (at & ~(size_t)(w - 1)), w, vnm_width_value(r, vnm_wmax(w)));
	}
	return size;
}

/*
 * Mutate the image in data (size bytes, room for max) in place; returns its new size.
 * bytes is the fallback for unparsable images and a share of the rest (NULL: flips).
 */
static inline size_t vnm_mutate(uint8_t *data, size_t size, size_t max, uint64_t seed,
				vnm_bytes_fn bytes)
{
	struct vnm_rng r = { seed * 0x2545f4914f6cdd1dull + 1 };
	struct vnm_img im;
	unsigned int rounds = 1, k, done = 0;
	size_t n;

	if (!bytes)
		bytes = vnm_flip_bytes;
	if (vnm_parse(&im, data, size) && !vnm_one_in(&r, 10)) {
		while (rounds < 6 && vnm_one_in(&r, 3))
			rounds++;
		for (k = 0; k < rounds * 3 && done < rounds; k++) {
			if (vnm_mutate_once(&r, &im, max)) {
				done++;
				vnm_parse(&im, data, im.size);
			}
		}
		if (done)
			return im.size;
	}
	n = bytes(data, size, max, &r);
	/* keep total_size right, or the first check refuses everything */
	if (n >= sizeof(struct vnef_header) && !vnm_one_in(&r, 4)) {
		uint64_t t = n;

		memcpy(data + offsetof(struct vnef_header, total_size), &t, sizeof(t));
	}
	return n;
}

/*
 * Crossover: a into out, then one entry (or an operand or endpoint) of b copied over one
 * of the same kind, or inserted. Unparsable inputs are spliced bytewise.
 */
static inline size_t vnm_crossover(const uint8_t *a, size_t asz, const uint8_t *b, size_t bsz,
				   uint8_t *out, size_t max, uint64_t seed)
{
	static const uint32_t types[] = {
		VNEF_SEC_INSTR, VNEF_SEC_DMA, VNEF_SEC_TENSORS, VNEF_SEC_CC,
	};
	struct vnm_rng r = { seed * 0x9e3779b97f4a7c15ull + 7 };
	uint32_t type = VNM_PICK(&r, types), sa, ia, sb, ib, esz;
	uint8_t tmp[sizeof(struct vnef_instr)];
	struct vnm_img ia_img, ib_img;
	size_t n = asz < max ? asz : max, at, len;

	memcpy(out, a, n);
	if (!vnm_parse(&ia_img, out, n) || !vnm_parse(&ib_img, (uint8_t *)b, bsz) ||
	    !vnm_pick_entry(&r, &ib_img, type, &sb, &ib) ||
	    !vnm_pick_entry(&r, &ia_img, type, &sa, &ia)) {
		if (!n || !bsz)
			return n;
		at = vnm_below(&r, (uint32_t)n);
		len = 1 + vnm_below(&r, (uint32_t)(bsz < 256 ? bsz : 256));
		if (at + len > n)
			len = n - at;
		memcpy(out + at, b + vnm_below(&r, (uint32_t)(bsz - len + 1)), len);
		return n;
	}
	esz = ib_img.sec[sb].esz;
	memcpy(tmp, vnm_entry(&ib_img, sb, ib), esz);
	switch (vnm_below(&r, 4)) {
	case 0:
		if (ia_img.sec[sa].whole &&
		    vnm_resize(&ia_img, max, sa, ia_img.sec[sa].off + (uint64_t)ia * esz, tmp, esz,
			       true))
			return ia_img.size;
		/* fall through */
	case 1:
		memcpy(vnm_entry(&ia_img, sa, ia), tmp, esz);
		return n;
	default:
		if (type == VNEF_SEC_INSTR) {
			struct vnef_instr x;

			memcpy(&x, vnm_entry(&ia_img, sa, ia), sizeof(x));
			*vnm_ap(&x, vnm_below(&r, 3)) = *vnm_ap((struct vnef_instr *)tmp,
								vnm_below(&r, 3));
			memcpy(vnm_entry(&ia_img, sa, ia), &x, sizeof(x));
		} else if (type == VNEF_SEC_DMA) {
			struct vnef_dma_desc x, *y = (void *)tmp;

			memcpy(&x, vnm_entry(&ia_img, sa, ia), sizeof(x));
			if (vnm_one_in(&r, 2))
				x.src = vnm_one_in(&r, 2) ? y->src : y->dst;
			else
				x.dst = vnm_one_in(&r, 2) ? y->src : y->dst;
			memcpy(vnm_entry(&ia_img, sa, ia), &x, sizeof(x));
		} else {
			memcpy(vnm_entry(&ia_img, sa, ia), tmp, esz);
		}
		return n;
	}
}

#ifdef VNM_LIBFUZZER
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2,
				 size_t size2, uint8_t *out, size_t max_out_size,
				 unsigned int seed);

static size_t vnm_libfuzzer_bytes(uint8_t *data, size_t size, size_t max, struct vnm_rng *r)
{
	(void)r;
	return LLVMFuzzerMutate(data, size, max);
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	return vnm_mutate(data, size, max_size, seed, vnm_libfuzzer_bytes);
}

size_t LLVMFuzzerCustomCrossOver(const uint8_t *data1, size_t size1, const uint8_t *data2,
				 size_t size2, uint8_t *out, size_t max_out_size,
				 unsigned int seed)
{
	return vnm_crossover(data1, size1, data2, size2, out, max_out_size, seed);
}
#endif

#endif /* VNEF_MUTATOR_H */
