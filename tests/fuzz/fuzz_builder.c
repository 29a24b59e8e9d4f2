// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target: the program builder (libvnprog) driven by arbitrary call
 * sequences, collectives included. Properties: no crash or leak on any input; a
 * builder without errors finishes into an image the core's validator accepts, with
 * every semaphore written by the stream it belongs to; a builder with an error never
 * produces an image.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "vnprog.h"
#include "vn_program.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct rd {
	const uint8_t *p;
	size_t n;
};

static uint32_t rd8(struct rd *r)
{
	if (!r->n)
		return 0;
	r->n--;
	return *r->p++;
}

static uint32_t rd16(struct rd *r)
{
	return rd8(r) | rd8(r) << 8;
}

#define MAXT 10

struct st {
	struct nd_builder *b;
	struct nd_tile *t[MAXT];
	unsigned int nt;
	struct nd_tensor *x, *xb, *y, *s;
};

static void new_tile(struct st *s, struct rd *r)
{
	uint32_t m = rd8(r), p = 1 + rd8(r) % 128, f = 1 + rd16(r) % 1024;
	enum nd_memory mem = (m & 3) == 3 ? ND_PSUM : ND_SBUF;
	enum nd_dtype dt = (m & 4) ? ND_BF16 : ND_FP32;
	struct nd_tile *t;

	if (mem == ND_PSUM) {
		dt = ND_FP32;
		f = 1 + f % 512;
	}
	if (s->nt >= MAXT)
		return;
	t = nd_tile(s->b, mem, NULL, dt, p, f);
	if (t)
		s->t[s->nt++] = t;
}

/* A view of shape [np x nf] in some live tile, or one without a tile if none fits. */
static struct nd_tv pick(struct st *s, struct rd *r, uint32_t np, uint32_t nf)
{
	struct nd_tv v = { 0 };
	unsigned int k, start;
	uint32_t fsz;

	if (!s->nt)
		return v;
	start = rd8(r) % s->nt;
	for (k = 0; k < s->nt; k++) {
		v = nd_whole(s->t[(start + k) % s->nt]);
		if (v.np < np || v.nf < nf)
			continue;
		fsz = v.nf;
		v.p0 = rd8(r) % (v.np - np + 1);
		v.f0 = rd16(r) % (v.nf - nf + 1);
		v.np = np;
		v.nf = nf;
		if (!(rd8(r) & 7)) {
			/* sometimes a 2-D pattern of the same element count, if it fits */
			uint32_t c0 = 1u << (rd8(r) % 4), s0 = rd8(r) % 3, s1 = rd8(r) % 3 * c0;

			if (!(nf % c0) && v.f0 + (uint64_t)(c0 - 1) * s0 +
			    (uint64_t)(nf / c0 - 1) * s1 < fsz) {
				v.strided = 1;
				v.count0 = c0;
				v.stride0 = s0;
				v.stride1 = s1;
			}
		}
		return v;
	}
	v.tile = NULL;
	return v;
}

static void step(struct st *s, struct rd *r)
{
	uint32_t op = rd8(r) % 21, np = 1 + rd8(r) % 128, nf = 1 + rd16(r) % 512;
	int q = (int)(rd8(r) % 18) - 2;
	struct nd_tv d, a, c;

	switch (op) {
	case 0:
		new_tile(s, r);
		break;
	case 1:
		d = pick(s, r, np, nf);
		if (d.tile)
			nd_load(s->b, q, d, nd_hbm_rows(rd8(r) & 1 ? s->xb : s->x, rd8(r), rd8(r)));
		break;
	case 2:
		a = pick(s, r, np, nf);
		if (a.tile)
			nd_store(s->b, q, nd_hbm_rows(rd8(r) & 1 ? s->y : s->s, rd8(r), rd8(r)), a);
		break;
	case 3:
		a = pick(s, r, np, nf % 128 + 1);
		c = pick(s, r, np, nf);
		d = pick(s, r, a.nf, nf);
		if (a.tile && c.tile && d.tile)
			nd_matmul(s->b, d, a, c, rd8(r) & 1);
		break;
	case 4:
		a = pick(s, r, np, nf % 128 + 1);
		d = pick(s, r, a.nf, np);
		if (a.tile && d.tile)
			nd_transpose(s->b, d, a, rd8(r) & 1);
		break;
	case 5:
		d = pick(s, r, np, nf);
		a = pick(s, r, np, nf);
		c = pick(s, r, np, nf);
		if (d.tile && a.tile && c.tile)
			nd_tensor_tensor(s->b, rd8(r) & 1 ? ND_VECTOR : ND_GPSIMD, d, a, c,
					 (enum nd_alu)(rd8(r) % 6));
		break;
	case 6:
		d = pick(s, r, np, nf);
		a = pick(s, r, np, nf);
		if (d.tile && a.tile)
			nd_tensor_scalar(s->b, rd8(r) & 1 ? ND_VECTOR : ND_GPSIMD, d, a,
					 (enum nd_alu)(rd8(r) % 6), (float)rd8(r), rd8(r) & 1);
		break;
	case 7:
		d = pick(s, r, np, nf);
		a = pick(s, r, np, nf);
		c = pick(s, r, np, 1);
		if (d.tile && a.tile && c.tile)
			nd_tensor_column(s->b, ND_VECTOR, d, a, (enum nd_alu)(rd8(r) % 6), c,
					 rd8(r) & 1);
		break;
	case 8:
		d = pick(s, r, np, 1);
		a = pick(s, r, np, nf);
		if (d.tile && a.tile)
			nd_reduce(s->b, d, a, (enum nd_alu)(rd8(r) % 6));
		break;
	case 9:
		d = pick(s, r, np, nf);
		a = pick(s, r, np, nf);
		if (d.tile && a.tile)
			nd_copy(s->b, (enum nd_engine)(1 + rd8(r) % 3), d, a);
		break;
	case 10:
		d = pick(s, r, np, nf);
		a = pick(s, r, np, nf);
		if (d.tile && a.tile)
			nd_activate(s->b, d, a, (enum nd_act)(rd8(r) % 11), 1.0f, 0.5f);
		break;
	case 11:
		d = pick(s, r, np, nf);
		a = pick(s, r, np, nf);
		c = pick(s, r, np, 1);
		if (d.tile && a.tile && c.tile)
			nd_activate_column(s->b, d, a, (enum nd_act)(rd8(r) % 11), 2.0f, c);
		break;
	case 12:
		d = pick(s, r, np, nf);
		if (d.tile)
			nd_memset(s->b, rd8(r) & 1 ? ND_VECTOR : ND_GPSIMD, d, 1.5f);
		break;
	case 13:
		d = pick(s, r, np, nf);
		if (d.tile)
			nd_iota(s->b, d, (int32_t)rd8(r), 1, (int32_t)rd8(r) - 128);
		break;
	case 14:
		d = pick(s, r, 1, nf);
		a = pick(s, r, np, nf);
		if (d.tile && a.tile)
			nd_partition_reduce(s->b, d, a, (enum nd_alu)(rd8(r) % 6));
		break;
	case 15:
		if (s->nt) {
			unsigned int i = rd8(r) % s->nt;

			nd_tile_free(s->b, s->t[i]);
			s->t[i] = s->t[--s->nt];
		}
		break;
	case 16:
		if (rd8(r) & 1)
			nd_scope_push(s->b, rd8(r) & 1 ? "a" : "b");
		else
			nd_scope_pop(s->b);
		break;
	case 17:
		a = pick(s, r, np, nf % 128 + 1);
		if (a.tile)
			nd_load_stationary(s->b, a);
		break;
	case 18:
		a = pick(s, r, np, nf);
		d = pick(s, r, rd8(r) % 128 + 1, nf);
		if (a.tile && d.tile)
			nd_multiply_moving(s->b, d, a, rd8(r) & 1);
		break;
	case 19: {
		struct nd_dma_xfer x = {
			.chunk_bytes = 1 + rd8(r) % 64,
			.count = { 1 + rd8(r) % 8, 1 + rd8(r) % 4 },
			.src = { .tensor = s->x, .offset = rd16(r), .stride = { rd8(r), rd16(r) } },
		};

		if (!s->nt)
			break;
		x.dst.tile = s->t[rd8(r) % s->nt];
		x.dst.partition = rd8(r) % 128;
		x.dst.part_stride[0] = rd8(r) % 3;
		x.dst.part_stride[1] = rd8(r) % 3;
		x.dst.stride[0] = rd8(r);
		x.dst.offset = rd8(r);
		nd_dma(s->b, q, &x);
		break;
	}
	case 20: {
		/* a collective: fp32 x -> y, or bf16 among xb and s (in place or not) */
		uint32_t k = rd8(r);
		struct nd_cc cc = {
			.opcode = 1 + rd8(r) % 6,	/* 6: not an opcode */
			.src = k & 1 ? s->x : (k & 2 ? s->xb : s->s),
			.dst = k & 1 ? s->y : s->s,
			.src_offset = k & 4 ? 0 : rd16(r),
			.dst_offset = k & 8 ? 0 : rd16(r),
			.count = k & 16 ? rd16(r) : 1 + rd8(r) * rd8(r),
			.reduce = (enum nd_alu)(k & 32 ? rd8(r) % 7 : 0),
			.group_size = (uint16_t)(k & 64 ? rd8(r) % 9 : 0),
			.group_stride = (uint16_t)(k & 64 ? rd8(r) % 5 : 0),
			.shift = k & 128 ? rd8(r) % 10 : 0,
		};

		if (rd8(r) & 1)
			cc.dst_offset = cc.src_offset;
		nd_collective(s->b, &cc);
		break;
	}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t big[] = { 256, 512 }, small[] = { 128, 128 };
	struct rd r = { data, size };
	struct vn_prog_error pe;
	struct vn_program *p;
	struct st s = { 0 };
	unsigned int n, i;
	size_t isize;
	void *img;
	int ret;

	if (nd_builder_new("fuzz", &s.b))
		return 0;
	s.x = nd_input(s.b, "x", ND_FP32, 2, big);
	s.xb = nd_input(s.b, "xb", ND_BF16, 2, small);
	s.y = nd_output(s.b, "y", ND_FP32, 2, big);
	s.s = nd_scratch(s.b, "s", ND_BF16, 2, big);
	for (n = 0; r.n && n < 256; n++)
		step(&s, &r);

	ret = nd_builder_finish(s.b, &img, &isize);
	if (nd_builder_status(s.b)) {
		if (!ret || img)
			__builtin_trap();	/* an erroneous build must not give an image */
	} else if (!ret) {
		if (vn_program_load(img, isize, &p, &pe))
			__builtin_trap();	/* the builder wrote an invalid image */
		for (i = 0; i < VNEF_MAX_SEMS; i++)
			if (p->sem_writer[i] != ~0u && p->sem_writer[i] != i)
				__builtin_trap();
		if (p->debug_count != p->total_entries)
			__builtin_trap();
		vn_program_put(p);
		free(img);
	} else if (ret != -EINVAL) {
		__builtin_trap();		/* only "no instructions" may fail here */
	}
	nd_builder_free(s.b);
	return 0;
}
