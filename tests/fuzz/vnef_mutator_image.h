/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The .vnef mutator's ground (vnef_mutator.h, which includes it): a seeded
 * generator, the values it writes (widths' boundaries, the format's limits, nudges),
 * and an image parsed far enough to find its sections and entries.
 */
#ifndef VNEF_MUTATOR_IMAGE_H
#define VNEF_MUTATOR_IMAGE_H

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

#endif /* VNEF_MUTATOR_IMAGE_H */
