/* SPDX-License-Identifier: GPL-2.0 OR MIT *
 * One file, over 1,000 lines: a header-only mutator, included by three fuzzers built by
 * different compilers and flags (libFuzzer, the guest's), that knows every field of the
 * format.
 */
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
 */
#ifndef VNEF_MUTATOR_H
#define VNEF_MUTATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "vneuron_program.h"

/* ---- a seeded generator (splitmix64) ---- */

struct vnm_rng {
	uint64_t s;
};

static inline uint64_t vnm_rand(struct vnm_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline uint32_t vnm_below(struct vnm_rng *r, uint32_t n)
{
	return n ? (uint32_t)(vnm_rand(r) % n) : 0;
}

static inline bool vnm_one_in(struct vnm_rng *r, uint32_t n)
{
	return vnm_below(r, n) == 0;
}

#define VNM_N(a)		(sizeof(a) / sizeof((a)[0]))
#define VNM_PICK(r, a)		((a)[vnm_below((r), VNM_N(a))])

#define VNM_U32			0xffffffffull
#define VNM_U64			(~0ull)
#define VNM_16G			(1ull << 34)	/* VNEF_MAX_TENSOR_BYTES, the DMA limit too */

/* ---- values ---- */

/* What a field means, which picks its list of interesting values. */
enum vnm_kind {
	VK_ENUM,	/* opcode, mem, dtype, kind, rank, op, section type and index */
	VK_FLAGS,
	VK_SEM,		/* semaphore id */
	VK_WVAL,	/* wait value */
	VK_MASK,	/* 64-bit signal mask */
	VK_PART,	/* a partition number */
	VK_NPART,	/* a number of partitions */
	VK_COUNT,	/* an operand's count */
	VK_ESTRIDE,	/* an operand's stride, elements */
	VK_BOFF,	/* an operand's byte offset in a partition */
	VK_DCOUNT,	/* a DMA count */
	VK_PSTRIDE,	/* a DMA part_stride */
	VK_BYTES64,	/* a DMA offset or stride, tensor shape, size, offsets, section sizes */
	VK_CHUNK,	/* DMA chunk_bytes */
	VK_IMM,		/* fp32 bits or s32 */
	VK_STR,		/* a string table offset */
	VK_PAD,		/* must be 0 */
};

static const uint64_t vnm_common[] = {
	0, 1, 2, 3, 4, 7, 8, 16, 63, 64, 127, 128, 129, 255, 256, 511, 512, 513, 2047, 2048,
	2049, 4096, 16383, 16384, 16385, 65535, 65536, 98303, 98304, 98305, 196607, 196608,
	196609, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff, 0x100000000ull,
	0x100000001ull, VNM_16G - 1, VNM_16G, VNM_16G + 1, 0x7fffffffffffffffull,
	0x8000000000000000ull, VNM_U64 - 1, VNM_U64,
};

static const uint64_t vnm_l_enum[] = {
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16, 19, 20, 21, 64, 65, 255, 256,
	0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff,
};
static const uint64_t vnm_l_flags[] = {
	0, 1, 2, 3, 4, 5, 8, 9, 16, 17, 0x1f, 0x1e, 0x20, 0x3f, 0x80000000, 0xffffffff,
};
static const uint64_t vnm_l_sem[] = {
	0, 1, 2, 31, 32, 62, 63, 64, 65, 255, 0x80000000, 0xffffffff,
};
static const uint64_t vnm_l_wval[] = { 0, 1, 2, 3, 4, 64, 65, 65535, 0x7fffffff, 0xffffffff };
static const uint64_t vnm_l_mask[] = {
	0, 1, 2, 3, 0xff, 0x80000000, 0x100000000ull, 0x4000000000000000ull,
	0x8000000000000000ull, 0x8000000000000001ull, 0xffffffff, VNM_U64,
};
static const uint64_t vnm_l_part[] = {
	0, 1, 2, 63, 64, 96, 120, 126, 127, 128, 129, 255, 256, 0x7fff, 0x8000, 0xffff,
	0x7fffffff, 0x80000000, 0xffffff80, 0xfffffffe, 0xffffffff,
};
static const uint64_t vnm_l_npart[] = { 0, 1, 2, 3, 16, 32, 64, 65, 127, 128, 129, 256, 0xffff };
static const uint64_t vnm_l_count[] = {
	0, 1, 2, 3, 4, 16, 32, 127, 128, 129, 256, 511, 512, 513, 768, 2048, 16384, 24576,
	49152, 98304, 98305, 196608, 0x10000, 0x10001, 0x7fffffff, 0x80000000, 0xfffffffe,
	0xffffffff,
};
static const uint64_t vnm_l_estride[] = {
	0, 1, 2, 3, 4, 8, 16, 128, 512, 4096, 8192, 16384, 24576, 49151, 49152, 98304, 0x10000,
	0x40000000, 0x55555556, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff,
};
static const uint64_t vnm_l_boff[] = {
	0, 2, 4, 2040, 2044, 2046, 2048, 2052, 4096, 6144, 14336, 16376, 16380, 16382, 16384,
	16388, 196600, 196604, 196606, 196608, 196612, 0x7ffffffc, 0x80000000, 0xfffffffc,
	0xfffffffe, 0xffffffff,
};
static const uint64_t vnm_l_dcount[] = {
	0, 1, 2, 3, 4, 5, 127, 128, 129, 0x10000, 0x3fffffff, 0x40000000, 0x40000001,
	0x55555555, 0x55555556, 0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe, 0xffffffff,
};
static const uint64_t vnm_l_pstride[] = {
	0, 1, 2, 3, 16, 32, 64, 127, 128, 129, 0x40000000, 0x55555555, 0x55555556,
	0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe, 0xffffffff,
};
static const uint64_t vnm_l_bytes64[] = {
	0, 1, 2, 4, 8, 64, 128, 2048, 16383, 16384, 196607, 196608, 196609, 0xffffffff,
	0x100000000ull, VNM_16G - 1, VNM_16G, VNM_16G + 1, 0x4000000000000000ull,
	0x5555555555555556ull, 0x7fffffffffffffffull, 0x8000000000000000ull,
	VNM_U64 - 196607, VNM_U64 - 1, VNM_U64,
};
static const uint64_t vnm_l_chunk[] = {
	0, 1, 2, 4, 63, 64, 65, 2048, 16384, 196607, 196608, 196609, 0x400000, 0x7fffffff,
	0x80000000, 0xfffffffe, 0xffffffff,
};
static const uint64_t vnm_l_imm[] = {
	0, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x00000001,
	0x00800000, 0x7f7fffff, 0x80000000, 0x7fffffff, 0xffffffff, 1, 128, 0x4f000000,
};
static const uint64_t vnm_l_pad[] = { 0, 1, 0x80, 0x80000000, 0xffffffff };

static inline uint64_t vnm_wmax(unsigned int width)
{
	return width >= 8 ? VNM_U64 : (1ull << (8 * width)) - 1;
}

/* Fields are read and written through memcpy: an image may put a table anywhere. */
static inline uint64_t vnm_get(const uint8_t *p, unsigned int width)
{
	uint64_t v = 0;

	memcpy(&v, p, width);
	return v;
}

static inline void vnm_put(uint8_t *p, unsigned int width, uint64_t v)
{
	memcpy(p, &v, width);
}

/* An element of a list, preferring ones that fit the width. */
static inline uint64_t vnm_from(struct vnm_rng *r, const uint64_t *l, size_t n, uint64_t wmax)
{
	uint64_t v = l[vnm_below(r, n)];
	int i;

	for (i = 0; i < 4 && v > wmax; i++)
		v = l[vnm_below(r, n)];
	return v & wmax;
}

static inline uint64_t vnm_kind_value(struct vnm_rng *r, unsigned int kind, uint64_t wmax)
{
#define VNM_FROM(l)	vnm_from(r, l, VNM_N(l), wmax)
	switch (kind) {
	case VK_ENUM: return VNM_FROM(vnm_l_enum);
	case VK_FLAGS: return VNM_FROM(vnm_l_flags);
	case VK_SEM: return VNM_FROM(vnm_l_sem);
	case VK_WVAL: return VNM_FROM(vnm_l_wval);
	case VK_MASK: return VNM_FROM(vnm_l_mask);
	case VK_PART: return VNM_FROM(vnm_l_part);
	case VK_NPART: return VNM_FROM(vnm_l_npart);
	case VK_COUNT: return VNM_FROM(vnm_l_count);
	case VK_ESTRIDE: return VNM_FROM(vnm_l_estride);
	case VK_BOFF: return VNM_FROM(vnm_l_boff);
	case VK_DCOUNT: return VNM_FROM(vnm_l_dcount);
	case VK_PSTRIDE: return VNM_FROM(vnm_l_pstride);
	case VK_CHUNK: return VNM_FROM(vnm_l_chunk);
	case VK_IMM: return VNM_FROM(vnm_l_imm);
	case VK_PAD: return VNM_FROM(vnm_l_pad);
	default: return VNM_FROM(vnm_l_bytes64);
	}
#undef VNM_FROM
}

/* A boundary of the width itself, or a common limit that fits it. */
static inline uint64_t vnm_width_value(struct vnm_rng *r, uint64_t wmax)
{
	switch (vnm_below(r, 8)) {
	case 0: return 0;
	case 1: return 1;
	case 2: return wmax;
	case 3: return wmax - 1;
	case 4: return wmax >> 1;
	case 5: return (wmax >> 1) + 1;
	default: return vnm_from(r, vnm_common, VNM_N(vnm_common), wmax);
	}
}

/* The current value moved a little: the other side of a limit it sits on. */
static inline uint64_t vnm_nudge(struct vnm_rng *r, uint64_t cur, uint64_t wmax)
{
	uint64_t d = 1 + vnm_below(r, 8);

	switch (vnm_below(r, 6)) {
	case 0: return (cur + d) & wmax;
	case 1: return (cur - d) & wmax;
	case 2: return (cur << 1) & wmax;
	case 3: return cur >> 1;
	case 4: return (0 - cur) & wmax;
	default: return (cur ^ (1ull << vnm_below(r, 64))) & wmax;
	}
}

static inline uint64_t vnm_value(struct vnm_rng *r, unsigned int kind, unsigned int width,
				 uint64_t cur)
{
	uint64_t wmax = vnm_wmax(width);

	switch (vnm_below(r, 10)) {
	case 0: case 1: case 2: case 3:
		return vnm_kind_value(r, kind, wmax);
	case 4: case 5: case 6:
		return vnm_width_value(r, wmax);
	case 7: case 8:
		return vnm_nudge(r, cur, wmax);
	default:
		return vnm_rand(r) & wmax;
	}
}

/*
 * v <= max such that rest + k * v == target (mod 2^64), or else the least v past it
 * (the sum then lands in [target, target + k)). With rest > target that is a wrap.
 */
static inline bool vnm_solve(uint64_t rest, uint64_t k, uint64_t target, uint64_t max,
			     uint64_t *v)
{
	uint64_t need = target - rest, q;

	if (!k)
		return false;
	q = need / k + (need % k != 0);
	if (q > max)
		return false;
	*v = q;
	return true;
}

/* count - 1 as the validator sees it (a count of 0 is refused before any sum). */
static inline uint64_t vnm_m1(uint32_t count)
{
	return (uint64_t)(uint32_t)(count - 1);
}

/* ---- the image ---- */

struct vnm_sec {
	uint64_t off, size;	/* as the table says */
	uint32_t type, index, count;
	uint32_t n;		/* entries that lie inside the image */
	uint32_t esz;		/* sizeof the entry struct for tables, else 0 */
	bool whole;		/* inside the image, size = count * esz: safe to resize */
};

struct vnm_img {
	uint8_t *d;
	size_t size;
	uint32_t nsec;
	struct vnm_sec sec[VNEF_MAX_SECTIONS];
	int ten;		/* the tensor table's section, or -1 */
	uint64_t strtab_size, const_size;
};

static inline uint32_t vnm_esz(uint32_t type)
{
	switch (type) {
	case VNEF_SEC_TENSORS: return sizeof(struct vnef_tensor);
	case VNEF_SEC_INSTR: return sizeof(struct vnef_instr);
	case VNEF_SEC_DMA: return sizeof(struct vnef_dma_desc);
	case VNEF_SEC_DEBUG: return sizeof(struct vnef_debug);
	case VNEF_SEC_CC: return sizeof(struct vnef_cc_instr);
	default: return 0;
	}
}

static inline bool vnm_parse(struct vnm_img *im, uint8_t *d, size_t size)
{
	struct vnef_header h;
	uint32_t i, n;

	memset(im, 0, sizeof(*im));
	im->d = d;
	im->size = size;
	im->ten = -1;
	if (size < sizeof(h))
		return false;
	memcpy(&h, d, sizeof(h));
	if (h.magic != VNEF_MAGIC)
		return false;
	n = h.section_count < VNEF_MAX_SECTIONS ? h.section_count : VNEF_MAX_SECTIONS;
	if ((size - sizeof(h)) / sizeof(struct vnef_section) < n)
		n = (size - sizeof(h)) / sizeof(struct vnef_section);
	im->nsec = n;
	for (i = 0; i < n; i++) {
		struct vnm_sec *s = &im->sec[i];
		struct vnef_section e;
		uint64_t avail;

		memcpy(&e, d + sizeof(h) + i * sizeof(e), sizeof(e));
		s->off = e.offset;
		s->size = e.size;
		s->type = e.type;
		s->index = e.index;
		s->count = e.count;
		s->esz = vnm_esz(e.type);
		if (e.offset > size)
			continue;
		avail = size - e.offset < e.size ? size - e.offset : e.size;
		if (s->esz)
			s->n = avail / s->esz < e.count ? (uint32_t)(avail / s->esz) : e.count;
		s->whole = avail == e.size && (!s->esz || e.size == (uint64_t)e.count * s->esz);
		if (e.type == VNEF_SEC_TENSORS && im->ten < 0)
			im->ten = (int)i;
		if (e.type == VNEF_SEC_STRTAB && !im->strtab_size)
			im->strtab_size = e.size;
		if (e.type == VNEF_SEC_CONST && !im->const_size)
			im->const_size = e.size;
	}
	return true;
}

static inline uint8_t *vnm_entry(const struct vnm_img *im, uint32_t s, uint32_t i)
{
	return im->d + im->sec[s].off + (uint64_t)i * im->sec[s].esz;
}

static inline uint8_t *vnm_sec_entry(const struct vnm_img *im, uint32_t s)
{
	return im->d + sizeof(struct vnef_header) + (size_t)s * sizeof(struct vnef_section);
}

/* A random entry of a section of this type: its section and index; false if none. */
static inline bool vnm_pick_entry(struct vnm_rng *r, const struct vnm_img *im, uint32_t type,
				  uint32_t *sec, uint32_t *idx)
{
	uint64_t total = 0, k;
	uint32_t i;

	for (i = 0; i < im->nsec; i++)
		if (im->sec[i].type == type)
			total += im->sec[i].n;
	if (!total)
		return false;
	k = vnm_rand(r) % total;
	for (i = 0; i < im->nsec; i++) {
		if (im->sec[i].type != type)
			continue;
		if (k < im->sec[i].n) {
			*sec = i;
			*idx = (uint32_t)k;
			return true;
		}
		k -= im->sec[i].n;
	}
	return false;
}

/* The size of tensor t from the table, or the 16 GiB limit if it has none. */
static inline uint64_t vnm_tensor_size(const struct vnm_img *im, uint32_t t)
{
	struct vnef_tensor e;

	if (im->ten < 0 || t >= im->sec[im->ten].n)
		return VNM_16G;
	memcpy(&e, vnm_entry(im, (uint32_t)im->ten, t), sizeof(e));
	return e.size;
}

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
