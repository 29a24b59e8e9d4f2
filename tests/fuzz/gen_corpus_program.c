// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Writes the seed corpus of fuzz_program and fuzz_exec (tests/fuzz/corpus/program/ and
 * tests/fuzz/corpus/exec/): valid images covering every section and opcode (collectives
 * included), DMA between
 * HBM, SBUF and PSUM with partition strides, every opcode with strided operands, and
 * operands and transfers that end exactly at their memory's limits (the structure-aware
 * mutator in vnef_mutator.h starts from these). Not built by make; run by hand:
 *   cc -Iuapi -Icore -Itests/host tests/fuzz/gen_corpus_program.c -o /tmp/gen &&
 *   /tmp/gen tests/fuzz/corpus/program tests/fuzz/corpus/exec
 */
#include <stdio.h>
#include "vnef_build.h"

static int ndirs;
static char **dirs;

static void save(const char *name, struct vb *b)
{
	char path[512];
	uint64_t size;
	uint8_t *img = vb_finish(b, &size);
	FILE *f;
	int i;

	for (i = 0; i < ndirs; i++) {
		snprintf(path, sizeof(path), "%s/%s", dirs[i], name);
		f = fopen(path, "wb");
		if (f) {
			fwrite(img, 1, size, f);
			fclose(f);
		}
	}
	free(img);
	vb_free(b);
}

static struct vnef_dma_desc *dma2(struct vb *b, uint32_t q, uint32_t chunk, uint32_t c0,
				  uint32_t c1, struct vnef_dma_ep src, struct vnef_dma_ep dst)
{
	struct vnef_dma_desc *d = vb_dma(b, q);

	d->chunk_bytes = chunk;
	d->count[0] = c0;
	d->count[1] = c1;
	d->src = src;
	d->dst = dst;
	return d;
}

/* DMA between HBM, SBUF and PSUM in every direction, with 1-D and 2-D partition strides. */
static void seed_dma_partitions(void)
{
	struct vnef_dma_desc *d;
	struct vnef_instr *in;
	struct vb b;

	vb_init(&b);
	b.name_off = vb_str(&b, "dma-partitions");
	vb_tensor(&b, "in", VNEF_TENSOR_INPUT, VNEF_DT_FP32, 128, 64, NULL);
	vb_tensor(&b, "out", VNEF_TENSOR_OUTPUT, VNEF_DT_FP32, 128, 64, NULL);
	vb_tensor(&b, "w", VNEF_TENSOR_SCRATCH, VNEF_DT_BF16, 64, 32, NULL);
	/* HBM -> SBUF: 16 x 8 rows onto partitions p = i0 + 16 * i1 */
	d = dma2(&b, 0, 256, 16, 8, vb_hbm(0, 0, 256, 4096),
		 vb_chip(VNEF_MEM_SBUF, 0, 0, 1, 0, 16, 0));
	d->signal_mask = 1ull << 0;
	/* SBUF odd partitions -> PSUM bank 1, byte strides on both sides */
	d = dma2(&b, 1, 64, 32, 2, vb_chip(VNEF_MEM_SBUF, 1, 0, 2, 0, 64, 64),
		 vb_chip(VNEF_MEM_PSUM, 0, 2048, 1, 0, 32, 128));
	VB_WAIT(d, 0, 1);
	d->signal_mask = 1ull << 1;
	/* PSUM -> HBM */
	d = dma2(&b, 2, 64, 64, 1, vb_chip(VNEF_MEM_PSUM, 0, 2048, 1, 0, 0, 0),
		 vb_hbm(1, 0, 256, 0));
	VB_WAIT(d, 1, 1);
	d->signal_mask = 1ull << 2;
	/* SBUF -> SBUF, a 4 x 4 partition transpose of 16-byte chunks */
	d = dma2(&b, 3, 16, 4, 4, vb_chip(VNEF_MEM_SBUF, 0, 0, 4, 16, 1, 64),
		 vb_chip(VNEF_MEM_SBUF, 64, 8192, 1, 64, 4, 16));
	VB_WAIT(d, 0, 1);
	/* HBM -> PSUM partitions 64..127 */
	d = dma2(&b, 4, 128, 64, 1, vb_hbm(0, 0, 128, 0),
		 vb_chip(VNEF_MEM_PSUM, 64, 4096, 1, 0, 0, 0));
	d->signal_mask = 1ull << 3;
	/* PSUM -> SBUF, 8 x 8 fp32 elements gathered across partitions 64..120 */
	d = dma2(&b, 5, 4, 8, 8, vb_chip(VNEF_MEM_PSUM, 64, 4096, 0, 4, 8, 0),
		 vb_chip(VNEF_MEM_SBUF, 100, 12288, 0, 4, 1, 0));
	VB_WAIT(d, 3, 1);
	/* SBUF -> scratch HBM -> PSUM, through a strided scratch layout */
	d = dma2(&b, 6, 64, 32, 2, vb_chip(VNEF_MEM_SBUF, 0, 0, 1, 0, 32, 0),
		 vb_hbm(2, 0, 64, 2048));
	VB_WAIT(d, 0, 1);
	d = dma2(&b, 6, 32, 64, 2, vb_hbm(2, 0, 64, 32),
		 vb_chip(VNEF_MEM_PSUM, 0, 8192, 1, 0, 0, 32));
	/* HBM -> every partition of SBUF at once: a broadcast along partitions */
	dma2(&b, 7, 32, 128, 1, vb_hbm(0, 0, 0, 0), vb_chip(VNEF_MEM_SBUF, 0, 65536, 1, 0, 0, 0));
	/* VectorE reads what the DMA put in PSUM, writes SBUF */
	in = vb_op(&b, 1, VNEF_OP_TENSOR_TENSOR);
	in->op = VNEF_ALU_ADD;
	VB_WAIT(in, 1, 1);
	in->src0 = vb_ap(VNEF_MEM_PSUM, VNEF_DT_FP32, 0, 64, 2048, 8, 2, 2, 16);
	in->src1 = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 64, 0, 16);
	in->dst = vb_ap(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 64, 32768, 4, 4, 4, 1);
	save("dma-partitions.vnef", &b);
}

/* Every opcode on every engine that takes it, each operand strided (and 2-D). */
static void seed_strided_ops(void)
{
	struct vnef_instr *in;
	struct vb b;

	vb_init(&b);
	b.name_off = vb_str(&b, "strided-ops");
	/* TensorE */
	in = vb_op(&b, 0, VNEF_OP_LOAD_STATIONARY);
	in->src0 = vb_ap(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 32, 0, 8, 2, 2, 32);
	in = vb_op(&b, 0, VNEF_OP_MULTIPLY_MOVING);
	in->src0 = vb_ap(VNEF_MEM_SBUF, VNEF_DT_BF16, 0, 32, 1024, 16, 3, 4, 64);
	in->dst = vb_ap(VNEF_MEM_PSUM, VNEF_DT_FP32, 0, 16, 0, 16, 2, 4, 32);
	in = vb_op(&b, 0, VNEF_OP_MULTIPLY_MOVING);
	in->flags = VNEF_IF_ACCUMULATE;
	in->src0 = vb_ap(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 32, 4096, 8, 5, 8, 40);
	in->dst = vb_ap(VNEF_MEM_PSUM, VNEF_DT_FP32, 0, 16, 0, 16, 2, 4, 32);
	in = vb_op(&b, 0, VNEF_OP_TRANSPOSE);
	in->src0 = vb_ap(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 8, 0, 4, 2, 4, 16);
	in->dst = vb_ap(VNEF_MEM_PSUM, VNEF_DT_FP32, 0, 16, 2048, 4, 2, 2, 8);
	in = vb_op(&b, 0, VNEF_OP_TRANSPOSE);
	in->flags = VNEF_IF_ACCUMULATE;
	in->src0 = vb_ap(VNEF_MEM_SBUF, VNEF_DT_BF16, 8, 8, 512, 4, 3, 4, 13);
	in->dst = vb_ap(VNEF_MEM_PSUM, VNEF_DT_FP32, 0, 16, 2048, 4, 2, 2, 8);
	in = vb_op(&b, 0, VNEF_OP_NOP);
	in->signal_mask = 1ull << 0;

	/* VectorE, after TensorE */
	in = vb_op(&b, 1, VNEF_OP_TENSOR_TENSOR);
	in->op = VNEF_ALU_MUL;
	VB_WAIT(in, 0, 1);
	in->src0 = vb_ap(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 16, 0, 6, 2, 4, 16);
	in->src1 = vb_ap(VNEF_MEM_PSUM, VNEF_DT_FP32, 0, 16, 0, 24, 1, 1, 0);
	in->dst = vb_ap(VNEF_MEM_SBUF, VNEF_DT_BF16, 0, 16, 4096, 3, 4, 8, 12);
	in = vb_op(&b, 1, VNEF_OP_TENSOR_SCALAR);
	in->op = VNEF_ALU_SUB;
	in->flags = VNEF_IF_SCALAR_COLUMN;
	in->src0 = vb_ap(VNEF_MEM_PSUM, VNEF_DT_FP32, 0, 16, 2048, 4, 2, 2, 8);
	in->src1 = vb_ap(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 16, 64, 1, 7, 1, 9);
	in->dst = vb_ap(VNEF_MEM_SBUF, VNEF_DT_FP32, 16, 16, 0, 2, 3, 4, 5);
	in = vb_op(&b, 1, VNEF_OP_TENSOR_SCALAR);
	in->op = VNEF_ALU_DIV;
	in->flags = VNEF_IF_REVERSE;
	in->imm[0] = 0x40000000;
	in->src0 = vb_ap(VNEF_MEM_SBUF, VNEF_DT_BF16, 32, 8, 2, 5, 2, 3, 0);
	in->dst = vb_ap(VNEF_MEM_SBUF, VNEF_DT_BF16, 32, 8, 1024, 15, 1, 1, 0);
	in = vb_op(&b, 1, VNEF_OP_REDUCE);
	in->op = VNEF_ALU_MAX;
	in->src0 = vb_ap(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 16, 0, 5, 3, 4, 20);
	in->dst = vb_ap(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 16, 8192, 1, 9, 1, 9);
	in = vb_op(&b, 1, VNEF_OP_REDUCE);
	in->op = VNEF_ALU_MIN;
	in->src0 = vb_ap(VNEF_MEM_PSUM, VNEF_DT_FP32, 0, 16, 0, 4, 8, 4, 1);
	in->dst = vb_ap(VNEF_MEM_SBUF, VNEF_DT_BF16, 0, 16, 8200, 1, 0, 1, 0);
	in = vb_op(&b, 1, VNEF_OP_COPY);
	in->src0 = vb_ap(VNEF_MEM_SBUF, VNEF_DT_BF16, 0, 16, 4096, 8, 3, 3, 1);
	in->dst = vb_ap(VNEF_MEM_PSUM, VNEF_DT_FP32, 64, 16, 4096, 4, 6, 6, 1);
	in = vb_op(&b, 1, VNEF_OP_MEMSET);
	in->imm[0] = 0xbf800000;
	in->dst = vb_ap(VNEF_MEM_SBUF, VNEF_DT_FP32, 96, 32, 16384, 7, 3, 5, 32);
	in->signal_mask = 1ull << 1;

	/* ScalarE, after VectorE */
	in = vb_op(&b, 2, VNEF_OP_ACTIVATE);
	in->op = VNEF_ACT_EXP;
	VB_WAIT(in, 1, 1);
	in->imm[0] = 0x3f000000;
	in->imm[1] = 0x3f800000;
	in->src0 = vb_ap(VNEF_MEM_SBUF, VNEF_DT_BF16, 0, 16, 4096, 3, 4, 8, 12);
	in->dst = vb_ap(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 16, 20480, 8, 2, 3, 17);
	in = vb_op(&b, 2, VNEF_OP_ACTIVATE);
	in->op = VNEF_ACT_RSQRT;
	in->flags = VNEF_IF_BIAS_COLUMN;
	in->imm[0] = 0x40400000;
	in->src0 = vb_ap(VNEF_MEM_PSUM, VNEF_DT_FP32, 64, 16, 4096, 4, 6, 6, 1);
	in->src1 = vb_ap(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 16, 8192, 1, 9, 1, 9);
	in->dst = vb_ap(VNEF_MEM_PSUM, VNEF_DT_FP32, 64, 16, 8192, 12, 2, 2, 30);
	in = vb_op(&b, 2, VNEF_OP_COPY);
	in->src0 = vb_ap(VNEF_MEM_SBUF, VNEF_DT_FP32, 96, 32, 16384, 7, 3, 5, 32);
	in->dst = vb_ap(VNEF_MEM_SBUF, VNEF_DT_BF16, 96, 32, 24576, 35, 2, 1, 0);
	in->signal_mask = 1ull << 2;

	/* GpSimdE, after ScalarE */
	in = vb_op(&b, 3, VNEF_OP_IOTA);
	VB_WAIT(in, 2, 1);
	in->imm[0] = (uint32_t)-5;
	in->imm[1] = 3;
	in->imm[2] = (uint32_t)-1;
	in->dst = vb_ap(VNEF_MEM_SBUF, VNEF_DT_FP32, 32, 32, 32768, 6, 5, 4, 40);
	in = vb_op(&b, 3, VNEF_OP_PARTITION_REDUCE);
	in->op = VNEF_ALU_ADD;
	in->src0 = vb_ap(VNEF_MEM_SBUF, VNEF_DT_FP32, 32, 32, 32768, 6, 5, 2, 40);
	in->dst = vb_ap(VNEF_MEM_SBUF, VNEF_DT_BF16, 127, 1, 40960, 3, 3, 4, 11);
	in = vb_op(&b, 3, VNEF_OP_PARTITION_REDUCE);
	in->op = VNEF_ALU_MIN;
	in->src0 = vb_ap(VNEF_MEM_PSUM, VNEF_DT_FP32, 0, 16, 0, 16, 2, 4, 32);
	in->dst = vb_ap(VNEF_MEM_PSUM, VNEF_DT_FP32, 127, 1, 12288, 8, 8, 8, 1);
	in = vb_op(&b, 3, VNEF_OP_TENSOR_TENSOR);
	in->op = VNEF_ALU_MAX;
	in->src0 = vb_ap(VNEF_MEM_SBUF, VNEF_DT_FP32, 32, 32, 32768, 6, 5, 4, 40);
	in->src1 = vb_ap(VNEF_MEM_SBUF, VNEF_DT_FP32, 32, 32, 32768, 24, 0, 1, 0);
	in->dst = vb_ap(VNEF_MEM_SBUF, VNEF_DT_FP32, 64, 32, 49152, 12, 3, 2, 64);
	in = vb_op(&b, 3, VNEF_OP_TENSOR_SCALAR);
	in->op = VNEF_ALU_ADD;
	in->imm[0] = 0x3f800000;
	in->src0 = vb_ap(VNEF_MEM_SBUF, VNEF_DT_FP32, 64, 32, 49152, 12, 3, 2, 64);
	in->dst = vb_ap(VNEF_MEM_SBUF, VNEF_DT_BF16, 64, 32, 57344, 24, 2, 1, 0);
	in = vb_op(&b, 3, VNEF_OP_MEMSET);
	in->imm[0] = 0x7fc00000;
	in->dst = vb_ap(VNEF_MEM_PSUM, VNEF_DT_FP32, 100, 28, 14336, 16, 4, 2, 2);
	in = vb_op(&b, 3, VNEF_OP_COPY);
	in->src0 = vb_ap(VNEF_MEM_PSUM, VNEF_DT_FP32, 100, 28, 14336, 16, 4, 2, 2);
	in->dst = vb_ap(VNEF_MEM_SBUF, VNEF_DT_FP32, 100, 28, 65536, 8, 1, 4, 100);
	in = vb_op(&b, 3, VNEF_OP_NOP);
	save("strided-ops.vnef", &b);
}

/*
 * Operands and transfers that end exactly at a limit: the last byte of an SBUF and a
 * PSUM partition, the last partition, the last PSUM bank, a whole partition as one
 * operand, the end of a tensor, the last semaphore, a long 1-byte broadcast DMA.
 */
static void seed_edges(void)
{
	struct vnef_dma_desc *d;
	struct vnef_instr *in;
	struct vb b;

	vb_init(&b);
	b.name_off = vb_str(&b, "edges");
	vb_tensor(&b, "a", VNEF_TENSOR_INPUT, VNEF_DT_BF16, 3, 100, NULL);
	vb_tensor(&b, "z", VNEF_TENSOR_OUTPUT, VNEF_DT_FP32, 1, 64, NULL);
	/* the tensor's last bytes to the last partition's last bytes */
	d = dma2(&b, 15, 64, 1, 1, vb_hbm(0, 600 - 64, 0, 0),
		 vb_chip(VNEF_MEM_SBUF, 127, VNEF_SBUF_PART_BYTES - 64, 0, 0, 0, 0));
	d->signal_mask = 1ull << 63;
	d = dma2(&b, 15, 64, 1, 1, vb_hbm(0, 0, 0, 0),
		 vb_chip(VNEF_MEM_PSUM, 127, VNEF_PSUM_PART_BYTES - 64, 0, 0, 0, 0));
	d->signal_mask = 1ull << 63;
	/* one byte, 65536 times, into the same place (broadcast on both sides) */
	dma2(&b, 14, 1, 65536, 1, vb_hbm(0, 599, 0, 0), vb_chip(VNEF_MEM_SBUF, 0, 0, 0, 0, 0, 0));
	/* the last byte of all 128 partitions, 2-D: partition i0 + 64 * i1 */
	dma2(&b, 13, 1, 64, 2, vb_hbm(0, 0, 1, 64),
	     vb_chip(VNEF_MEM_PSUM, 0, VNEF_PSUM_PART_BYTES - 1, 1, 0, 64, 0));
	/* the last partition to the output's end */
	d = dma2(&b, 12, 256, 1, 1,
		 vb_chip(VNEF_MEM_SBUF, 127, VNEF_SBUF_PART_BYTES - 256, 0, 0, 0, 0),
		 vb_hbm(1, 0, 0, 0));
	VB_WAIT(d, 63, 2);

	/* a whole SBUF partition as one bf16 operand (98304 elements) */
	in = vb_op(&b, 1, VNEF_OP_MEMSET);
	in->imm[0] = 0x3f800000;
	in->dst = vb_ap(VNEF_MEM_SBUF, VNEF_DT_BF16, 126, 1, 0, 49152, 1, 2, 49152);
	in = vb_op(&b, 2, VNEF_OP_COPY);
	VB_WAIT(in, 63, 2);
	in->src0 = vb_ap(VNEF_MEM_SBUF, VNEF_DT_FP32, 127, 1, VNEF_SBUF_PART_BYTES - 4, 1, 0, 1,
			 0);
	in->dst = vb_ap(VNEF_MEM_PSUM, VNEF_DT_FP32, 0, 1, VNEF_PSUM_PART_BYTES - 4, 1, 0, 1, 0);
	/* the last PSUM bank, exactly filled by a [2 x 512] product */
	in = vb_op(&b, 0, VNEF_OP_LOAD_STATIONARY);
	in->src0 = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 4, 0, 2);
	in = vb_op(&b, 0, VNEF_OP_MULTIPLY_MOVING);
	in->src0 = vb_ap(VNEF_MEM_SBUF, VNEF_DT_BF16, 0, 4, 0, 256, 1, 2, 256);
	in->dst = vb_ap2(VNEF_MEM_PSUM, VNEF_DT_FP32, 126, 2, VNEF_PSUM_PART_BYTES -
			 VNEF_PSUM_BANK_BYTES, 512);
	/* the last 128 fp32 of every partition, transposed into the first bank */
	in = vb_op(&b, 0, VNEF_OP_TRANSPOSE);
	in->src0 = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 128, VNEF_SBUF_PART_BYTES - 512, 128);
	in->dst = vb_ap2(VNEF_MEM_PSUM, VNEF_DT_FP32, 0, 128, 1536, 128);
	in = vb_op(&b, 3, VNEF_OP_IOTA);
	in->imm[0] = 0x7fffffff;
	in->imm[1] = 1;
	in->imm[2] = 0x80000000;
	in->dst = vb_ap(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 128, VNEF_SBUF_PART_BYTES - 4, 1, 0, 1, 0);
	save("edges.vnef", &b);
}

/*
 * The collective stream: every opcode, both dtypes, groups, a permute's shift, an
 * all_reduce in place, ranges ending at their tensors' ends, ordered with a DMA queue.
 */
static void seed_collectives(void)
{
	struct vnef_cc_instr *cc;
	struct vnef_dma_desc *d;
	struct vb b;

	vb_init(&b);
	b.name_off = vb_str(&b, "collectives");
	vb_tensor(&b, "x", VNEF_TENSOR_INPUT, VNEF_DT_FP32, 4, 64, NULL);
	vb_tensor(&b, "y", VNEF_TENSOR_OUTPUT, VNEF_DT_FP32, 4, 64, NULL);
	vb_tensor(&b, "h", VNEF_TENSOR_SCRATCH, VNEF_DT_BF16, 8, 64, NULL);
	d = vb_load(&b, 0, 0, 0, 256, 4, 256, VNEF_MEM_SBUF, 0, 0);
	d = vb_store(&b, 1, 1, 0, 256, 4, 256, VNEF_MEM_SBUF, 0, 0);
	d->signal_mask = 1ull << 5;
	cc = vb_cc(&b, VNEF_CC_NOP, 0, 0, 0, 0);
	cc->flags = VNEF_IF_WAIT;
	cc->wait_sem = 5;
	cc->wait_value = 1;
	cc = vb_cc(&b, VNEF_CC_ALL_REDUCE, VNEF_DT_FP32, 256, 1, 1);	/* in place */
	cc->reduce = VNEF_ALU_MAX;
	cc->signal_mask = 1ull << 20;
	cc = vb_cc(&b, VNEF_CC_ALL_GATHER, VNEF_DT_FP32, 64, 0, 1);
	cc->src_offset = 768;
	cc->dst_offset = 768;
	cc->group_size = 1;
	cc->group_stride = 1;
	cc = vb_cc(&b, VNEF_CC_REDUCE_SCATTER, VNEF_DT_BF16, 128, 2, 2);
	cc->src_offset = 512;
	cc->group_size = 1;
	cc->group_stride = 1;
	cc = vb_cc(&b, VNEF_CC_ALL_TO_ALL, VNEF_DT_FP32, 256, 0, 1);
	cc = vb_cc(&b, VNEF_CC_PERMUTE, VNEF_DT_BF16, 256, 2, 2);
	cc->dst_offset = 512;
	cc->shift = 63;
	d = vb_load(&b, 2, 1, 0, 256, 4, 256, VNEF_MEM_SBUF, 0, 1024);
	d->flags = VNEF_IF_WAIT;
	d->wait_sem = 20;
	d->wait_value = 1;
	vb_debug(&b, VNEF_STREAM_CC, 0, "cc.py", 7, "layer/allreduce");
	save("collectives.vnef", &b);
}

int main(int argc, char **argv)
{
	static char *here[] = { "." };
	static const float k[4] = { 1, 2, 3, 4 };
	struct vnef_instr *in;
	struct vnef_dma_desc *d;
	struct vb b;
	uint32_t op;

	ndirs = argc > 1 ? argc - 1 : 1;
	dirs = argc > 1 ? argv + 1 : here;

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
	save("seed1.vnef", &b);

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
	save("seed2.vnef", &b);

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
	save("seed3.vnef", &b);

	seed_dma_partitions();
	seed_strided_ops();
	seed_edges();
	seed_collectives();
	return 0;
}
