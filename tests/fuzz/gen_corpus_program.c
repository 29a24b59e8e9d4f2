// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Writes the seed corpus of fuzz_program (tests/fuzz/corpus/program/): a few valid
 * images covering every section and opcode. Not built by make; run by hand:
 *   cc -Iuapi -Icore -Itests/host tests/fuzz/gen_corpus_program.c -o /tmp/gen && /tmp/gen DIR
 */
#include <stdio.h>
#include "vnef_build.h"

static void save(const char *dir, const char *name, struct vb *b)
{
	char path[512];
	uint64_t size;
	uint8_t *img = vb_finish(b, &size);
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (f) {
		fwrite(img, 1, size, f);
		fclose(f);
	}
	free(img);
	vb_free(b);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	static const float k[4] = { 1, 2, 3, 4 };
	struct vnef_instr *in;
	struct vnef_dma_desc *d;
	struct vb b;
	uint32_t op;

	/* DMA in, one op per engine, DMA out, debug entries */
	vb_init(&b);
	b.name_off = vb_str(&b, "seed1");
	vb_tensor(&b, "x", VNEF_TENSOR_INPUT, VNEF_DT_FP32, 4, 8, NULL);
	vb_tensor(&b, "y", VNEF_TENSOR_OUTPUT, VNEF_DT_FP32, 4, 8, NULL);
	vb_tensor(&b, "k", VNEF_TENSOR_CONST, VNEF_DT_FP32, 4, 0, k);
	vb_tensor(&b, "s", VNEF_TENSOR_SCRATCH, VNEF_DT_BF16, 4, 8, NULL);
	d = vb_load(&b, 0, 0, 0, 32, 4, 32, VNEF_MEM_SBUF, 0, 0);
	d->signal_mask = 1;
	in = vb_op(&b, 1, VNEF_OP_TENSOR_TENSOR);
	in->src0 = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 4, 0, 8);
	in->src1 = vb_ap(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 4, 0, 4, 2, 2, 1);
	in->dst = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_BF16, 0, 4, 64, 8);
	in->flags = VNEF_IF_WAIT;
	in->wait_value = 1;
	in->signal_mask = 2;
	in = vb_op(&b, 0, VNEF_OP_LOAD_STATIONARY);
	in->src0 = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 4, 0, 4);
	in = vb_op(&b, 0, VNEF_OP_MULTIPLY_MOVING);
	in->src0 = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 4, 0, 8);
	in->dst = vb_ap2(VNEF_MEM_PSUM, VNEF_DT_FP32, 0, 4, 0, 8);
	in->flags = VNEF_IF_ACCUMULATE;
	in = vb_op(&b, 2, VNEF_OP_ACTIVATE);
	in->op = VNEF_ACT_GELU;
	in->flags = VNEF_IF_WAIT | VNEF_IF_BIAS_COLUMN;
	in->wait_sem = 1;
	in->wait_value = 1;
	in->src0 = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_BF16, 0, 4, 64, 8);
	in->src1 = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 4, 0, 1);
	in->dst = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 4, 128, 8);
	in->signal_mask = 4;
	in = vb_op(&b, 3, VNEF_OP_PARTITION_REDUCE);
	in->op = VNEF_ALU_MAX;
	in->src0 = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 4, 0, 8);
	in->dst = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 9, 1, 0, 8);
	d = vb_store(&b, 1, 1, 0, 32, 4, 32, VNEF_MEM_SBUF, 0, 128);
	d->flags = VNEF_IF_WAIT;
	d->wait_sem = 2;
	d->wait_value = 1;
	vb_debug(&b, 1, 0, "seed.py", 3, "a/b");
	vb_debug(&b, 4, 0, "seed.py", 4, "a/in");
	save(dir, "seed1.vnef", &b);

	/* every VectorE / GpSimdE opcode and alu */
	vb_init(&b);
	for (op = 0; op < VNEF_ALU_COUNT; op++) {
		in = vb_op(&b, op & 1 ? 3 : 1, VNEF_OP_TENSOR_SCALAR);
		in->op = op;
		in->flags = op & 2 ? VNEF_IF_REVERSE : VNEF_IF_SCALAR_COLUMN;
		in->src0 = vb_ap2(VNEF_MEM_PSUM, VNEF_DT_FP32, 0, 128, 0, 16);
		if (in->flags & VNEF_IF_SCALAR_COLUMN)
			in->src1 = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 128, 0, 1);
		else
			in->imm[0] = 0x3f800000;
		in->dst = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_BF16, 0, 128, 256, 16);
	}
	in = vb_op(&b, 1, VNEF_OP_REDUCE);
	in->op = VNEF_ALU_ADD;
	in->src0 = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 128, 0, 512);
	in->dst = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 128, 4096, 1);
	in = vb_op(&b, 1, VNEF_OP_MEMSET);
	in->dst = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 1, 0, 1);
	in = vb_op(&b, 3, VNEF_OP_IOTA);
	in->dst = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 128, 0, 64);
	in->imm[1] = 64;
	in->imm[2] = 1;
	in = vb_op(&b, 2, VNEF_OP_COPY);
	in->src0 = vb_ap(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 2, 0, 3, 5, 5, 1);
	in->dst = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_BF16, 2, 2, 0, 15);
	in = vb_op(&b, 0, VNEF_OP_TRANSPOSE);
	in->src0 = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_BF16, 0, 16, 0, 32);
	in->dst = vb_ap2(VNEF_MEM_PSUM, VNEF_DT_FP32, 0, 32, 2048, 16);
	save(dir, "seed2.vnef", &b);

	/* a DMA-only program with 3-D patterns over several queues */
	vb_init(&b);
	vb_tensor(&b, "a", VNEF_TENSOR_INPUT, VNEF_DT_BF16, 64, 64, NULL);
	vb_tensor(&b, "o", VNEF_TENSOR_OUTPUT, VNEF_DT_BF16, 64, 64, NULL);
	for (op = 0; op < 4; op++) {
		d = vb_dma(&b, op * 4);
		d->chunk_bytes = 2;
		d->count[0] = 64;
		d->count[1] = 16;
		d->src = vb_hbm(0, op * 32, 128, 2);
		d->dst = vb_chip(VNEF_MEM_SBUF, 0, op * 32, 1, 0, 0, 2);
		d->signal_mask = 1ull << op;
		d = vb_dma(&b, op * 4 + 1);
		d->flags = VNEF_IF_WAIT;
		d->wait_sem = op;
		d->wait_value = 1;
		d->chunk_bytes = 128;
		d->count[0] = 64;
		d->count[1] = 1;
		d->src = vb_chip(VNEF_MEM_SBUF, 0, 0, 1, 0, 0, 0);
		d->dst = vb_hbm(1, 0, 128, 0);
	}
	save(dir, "seed3.vnef", &b);
	return 0;
}
