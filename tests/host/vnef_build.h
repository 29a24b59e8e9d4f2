/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A minimal .vnef writer for the core's own tests and fuzz seeds (the real builder is
 * libneurondev's). Header-only; everything static.
 */
#ifndef VNEF_BUILD_H
#define VNEF_BUILD_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "vneuron_program.h"

struct vb {
	char str[4096];
	uint32_t str_len;
	struct vnef_tensor ten[32];
	uint32_t nten;
	uint8_t *cst;
	uint64_t cst_len;
	struct vnef_instr *in[VNEF_ENGINES];
	uint32_t nin[VNEF_ENGINES];
	struct vnef_dma_desc *dd[VNEF_DMA_QUEUES];
	uint32_t ndd[VNEF_DMA_QUEUES];
	struct vnef_cc_instr *cc;
	uint32_t ncc;
	struct vnef_debug dbg[64];
	uint32_t ndbg;
	uint32_t name_off;
};

static inline void vb_init(struct vb *b)
{
	memset(b, 0, sizeof(*b));
	b->str_len = 1;		/* offset 0 is "" */
}

static inline void vb_free(struct vb *b)
{
	int i;

	for (i = 0; i < VNEF_ENGINES; i++)
		free(b->in[i]);
	for (i = 0; i < VNEF_DMA_QUEUES; i++)
		free(b->dd[i]);
	free(b->cc);
	free(b->cst);
}

static inline uint32_t vb_str(struct vb *b, const char *s)
{
	uint32_t off = b->str_len, n = strlen(s) + 1;

	memcpy(b->str + off, s, n);
	b->str_len += n;
	return off;
}

static inline uint32_t vb_tensor(struct vb *b, const char *name, uint32_t kind, uint32_t dt,
				 uint64_t d0, uint64_t d1, const void *cdata)
{
	struct vnef_tensor *t = &b->ten[b->nten];
	uint64_t esz = dt == VNEF_DT_FP32 ? 4 : dt == VNEF_DT_BF16 ? 2 : 1;	/* fp8: 1 */

	memset(t, 0, sizeof(*t));
	t->name_off = vb_str(b, name);
	t->kind = kind;
	t->dtype = dt;
	t->rank = d1 ? 2 : 1;
	t->shape[0] = d0;
	t->shape[1] = d1;
	t->size = d0 * (d1 ? d1 : 1) * esz;
	if (kind == VNEF_TENSOR_CONST) {
		t->const_off = b->cst_len;
		b->cst = realloc(b->cst, b->cst_len + t->size);
		memcpy(b->cst + b->cst_len, cdata, t->size);
		b->cst_len += (t->size + 7) & ~7ull;
		b->cst = realloc(b->cst, b->cst_len);
	}
	return b->nten++;
}

static inline struct vnef_ap vb_ap(uint32_t mem, uint32_t dt, uint32_t p0, uint32_t np,
				   uint32_t off, uint32_t c0, uint32_t s0, uint32_t c1, uint32_t s1)
{
	struct vnef_ap a;

	memset(&a, 0, sizeof(a));
	a.mem = mem;
	a.dtype = dt;
	a.start_partition = p0;
	a.partitions = np;
	a.offset = off;
	a.count[0] = c0;
	a.stride[0] = s0;
	a.count[1] = c1;
	a.stride[1] = s1;
	return a;
}

/* [np x f] contiguous from byte off */
static inline struct vnef_ap vb_ap2(uint32_t mem, uint32_t dt, uint32_t p0, uint32_t np,
				    uint32_t off, uint32_t f)
{
	return vb_ap(mem, dt, p0, np, off, f, 1, 1, 0);
}

/* Room for entry n of an array grown by doubling (a realloc per entry is quadratic). */
static inline void *vb_grow(void *a, uint32_t n, size_t esz)
{
	return n & (n - 1) ? a : realloc(a, esz * (n ? 2 * (size_t)n : 1));
}

static inline struct vnef_instr *vb_op(struct vb *b, uint32_t eng, uint32_t opcode)
{
	struct vnef_instr *in;

	b->in[eng] = vb_grow(b->in[eng], b->nin[eng], sizeof(*in));
	in = &b->in[eng][b->nin[eng]++];
	memset(in, 0, sizeof(*in));
	in->opcode = opcode;
	return in;
}

static inline void vb_wait(uint32_t *flags, uint32_t *wsem, uint32_t *wval, uint32_t sem,
			   uint32_t val)
{
	*flags |= VNEF_IF_WAIT;
	*wsem = sem;
	*wval = val;
}

#define VB_WAIT(x, sem, val)	vb_wait(&(x)->flags, &(x)->wait_sem, &(x)->wait_value, sem, val)

static inline struct vnef_dma_desc *vb_dma(struct vb *b, uint32_t q)
{
	struct vnef_dma_desc *d;

	b->dd[q] = vb_grow(b->dd[q], b->ndd[q], sizeof(*d));
	d = &b->dd[q][b->ndd[q]++];
	memset(d, 0, sizeof(*d));
	return d;
}

static inline struct vnef_dma_ep vb_hbm(uint32_t tensor, uint64_t off, uint64_t s0, uint64_t s1)
{
	struct vnef_dma_ep e;

	memset(&e, 0, sizeof(e));
	e.mem = VNEF_MEM_HBM;
	e.tensor = tensor;
	e.offset = off;
	e.stride[0] = s0;
	e.stride[1] = s1;
	return e;
}

static inline struct vnef_dma_ep vb_chip(uint32_t mem, uint32_t part, uint64_t off, uint32_t ps0,
					 uint64_t s0, uint32_t ps1, uint64_t s1)
{
	struct vnef_dma_ep e;

	memset(&e, 0, sizeof(e));
	e.mem = mem;
	e.partition = part;
	e.offset = off;
	e.part_stride[0] = ps0;
	e.stride[0] = s0;
	e.part_stride[1] = ps1;
	e.stride[1] = s1;
	return e;
}

/*
 * A row-major HBM matrix block (rows x row_bytes at byte off, rows row_pitch apart) to
 * or from partitions p0.. of on-chip memory at byte offset chip_off.
 */
static inline struct vnef_dma_desc *vb_load(struct vb *b, uint32_t q, uint32_t tensor,
					    uint64_t off, uint64_t row_pitch, uint32_t rows,
					    uint32_t row_bytes, uint32_t mem, uint32_t p0,
					    uint32_t chip_off)
{
	struct vnef_dma_desc *d = vb_dma(b, q);

	d->chunk_bytes = row_bytes;
	d->count[0] = rows;
	d->count[1] = 1;
	d->src = vb_hbm(tensor, off, row_pitch, 0);
	d->dst = vb_chip(mem, p0, chip_off, 1, 0, 0, 0);
	return d;
}

static inline struct vnef_dma_desc *vb_store(struct vb *b, uint32_t q, uint32_t tensor,
					     uint64_t off, uint64_t row_pitch, uint32_t rows,
					     uint32_t row_bytes, uint32_t mem, uint32_t p0,
					     uint32_t chip_off)
{
	struct vnef_dma_desc *d = vb_dma(b, q);

	d->chunk_bytes = row_bytes;
	d->count[0] = rows;
	d->count[1] = 1;
	d->src = vb_chip(mem, p0, chip_off, 1, 0, 0, 0);
	d->dst = vb_hbm(tensor, off, row_pitch, 0);
	return d;
}

/* A collective engine entry: op on count elements of dtype dt, tensor src -> tensor dst. */
static inline struct vnef_cc_instr *vb_cc(struct vb *b, uint32_t opcode, uint32_t dt,
					  uint64_t count, uint32_t src, uint32_t dst)
{
	struct vnef_cc_instr *in;

	b->cc = vb_grow(b->cc, b->ncc, sizeof(*in));
	in = &b->cc[b->ncc++];
	memset(in, 0, sizeof(*in));
	in->opcode = opcode;
	if (opcode != VNEF_CC_NOP) {
		in->dtype = dt;
		in->count = count;
		in->src_tensor = src;
		in->dst_tensor = dst;
	}
	return in;
}

static inline void vb_debug(struct vb *b, uint32_t stream, uint32_t index, const char *file,
			    uint32_t line, const char *scope)
{
	struct vnef_debug *d = &b->dbg[b->ndbg++];

	memset(d, 0, sizeof(*d));
	d->stream = stream;
	d->index = index;
	d->file_off = vb_str(b, file);
	d->line = line;
	d->scope_off = vb_str(b, scope);
}

static inline uint64_t vb_align8(uint64_t x)
{
	return (x + 7) & ~7ull;
}

/* The image (malloc'd) and its size. */
static inline uint8_t *vb_finish(struct vb *b, uint64_t *size)
{
	struct vnef_section sec[VNEF_MAX_SECTIONS];
	struct vnef_header h;
	uint32_t n = 0, i;
	uint64_t off, total;
	uint8_t *img;
	const void *src[VNEF_MAX_SECTIONS];

	memset(sec, 0, sizeof(sec));
#define ADD(t, idx, ptr, sz, cnt, esz) do {				\
		sec[n].type = (t); sec[n].index = (idx); sec[n].size = (sz);	\
		sec[n].count = (cnt); sec[n].entry_size = (esz);		\
		src[n] = (ptr); n++;						\
	} while (0)
	ADD(VNEF_SEC_STRTAB, 0, b->str, vb_align8(b->str_len), 0, 0);
	if (b->nten)
		ADD(VNEF_SEC_TENSORS, 0, b->ten, sizeof(b->ten[0]) * b->nten, b->nten,
		    sizeof(b->ten[0]));
	if (b->cst_len)
		ADD(VNEF_SEC_CONST, 0, b->cst, b->cst_len, 0, 0);
	for (i = 0; i < VNEF_ENGINES; i++)
		if (b->nin[i])
			ADD(VNEF_SEC_INSTR, i, b->in[i], sizeof(struct vnef_instr) * b->nin[i],
			    b->nin[i], sizeof(struct vnef_instr));
	for (i = 0; i < VNEF_DMA_QUEUES; i++)
		if (b->ndd[i])
			ADD(VNEF_SEC_DMA, i, b->dd[i], sizeof(struct vnef_dma_desc) * b->ndd[i],
			    b->ndd[i], sizeof(struct vnef_dma_desc));
	if (b->ncc)
		ADD(VNEF_SEC_CC, 0, b->cc, sizeof(struct vnef_cc_instr) * b->ncc, b->ncc,
		    sizeof(struct vnef_cc_instr));
	if (b->ndbg)
		ADD(VNEF_SEC_DEBUG, 0, b->dbg, sizeof(b->dbg[0]) * b->ndbg, b->ndbg,
		    sizeof(b->dbg[0]));
#undef ADD
	off = sizeof(h) + n * sizeof(sec[0]);
	for (i = 0; i < n; i++) {
		sec[i].offset = off;
		off += vb_align8(sec[i].size);
	}
	total = off;
	img = calloc(1, total);
	memset(&h, 0, sizeof(h));
	h.magic = VNEF_MAGIC;
	h.version = VNEF_VERSION;
	h.header_size = sizeof(h);
	h.total_size = total;
	h.section_count = n;
	h.section_entry_size = sizeof(sec[0]);
	h.name_off = b->name_off;
	memcpy(img, &h, sizeof(h));
	memcpy(img + sizeof(h), sec, n * sizeof(sec[0]));
	for (i = 0; i < n; i++)
		if (sec[i].type == VNEF_SEC_STRTAB)
			memcpy(img + sec[i].offset, src[i], b->str_len);
		else
			memcpy(img + sec[i].offset, src[i], sec[i].size);
	*size = total;
	return img;
}

#endif /* VNEF_BUILD_H */
