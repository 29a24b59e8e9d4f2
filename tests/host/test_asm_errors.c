// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The assembler and disassembler (libvnprog/asm_*.c, docs/assembler.md): every error
 * message's line, column and wording, the formats of numbers, and the tools (help,
 * exit status, -o -, stdin, file:line:col errors).
 */
#include "asm_util.h"

/* ---------------------------------------------------------------------------- */
/* Errors: line, column and message                                              */

#define HDR	".tensor in input fp32 [128, 64]\n.tensor out output fp32 [128, 64]\n"
#define AP	"sbuf.fp32[0:128]@0x0[64]"

struct err_case {
	const char *text;
	unsigned int line;
	const char *mark;	/* the column is where this occurs in that line ("" = its end) */
	unsigned int nth;	/* which occurrence of mark (0 = first) */
	const char *msg;	/* a part of the message */
};

static const struct err_case err_cases[] = {
	{ HDR ".engine vector\nfrob " AP "\n", 4, "frob", 0, "unknown mnemonic 'frob'" },
	{ HDR ".engine vector\n  tensor_scaler add " AP ", " AP ", 1.0\n", 4, "tensor_scaler", 0,
	  "unknown mnemonic 'tensor_scaler' (did you mean 'tensor_scalar'?)" },
	{ HDR ".engine vector\ncopy hbm.fp32[0:128]@0x0[64], " AP "\n", 4, "hbm", 0,
	  "'hbm' is not an on-chip memory (sbuf or psum)" },
	{ HDR ".engine vector\ncopy " AP ", 12\n", 4, "12", 1,
	  "expected the source (an access pattern" },
	{ HDR ".engine vector\ncopy sbuf.fp16[0:128]@0x0[64], " AP "\n", 4, "fp16", 0,
	  "unknown dtype 'fp16' (fp32, bf16, fp8_e4m3, fp8_e5m2 or fp8_e4m3fn)" },
	{ ".tensor t input int8 [4]\n", 1, "int8", 0, "unknown dtype 'int8'" },
	{ HDR ".engine vector\ncopy sbuf.fp32[0:129]@0x0[64], " AP "\n", 4, "0:129", 0,
	  "partition range [0:129] is out of range" },
	{ HDR ".engine vector\ncopy sbuf.fp32[5:5]@0x0[64], " AP "\n", 4, "5:5", 0,
	  "partition range [5:5] is out of range" },
	{ HDR ".queue 0\ndma sbuf[128]@0x0, in@0x0, 1 x 1 x 4\n", 4, "128", 0,
	  "partition 128 is out of range (0..127)" },
	{ HDR ".queue 0\ndma sbuf[0]@0x0, nothere@0x0, 1 x 1 x 4\n", 4, "nothere", 0,
	  "undefined tensor 'nothere'" },
	{ HDR ".tensor in scratch fp32 [4]\n", 3, "in", 0,
	  "duplicate name: tensor 'in' is already defined at line 1" },
	{ HDR ".engine vector\ncopy " AP "\n", 4, "", 0,
	  "missing operand: copy needs a source" },
	{ HDR ".engine vector\ntensor_tensor add " AP ", " AP "\n", 4, "", 0,
	  "missing operand: tensor_tensor needs a second source" },
	{ HDR ".engine vector\ntensor_tensor\n", 4, "", 0, "missing operand: alu op" },
	{ HDR ".engine vector\nmemset\n", 4, "", 0, "missing operand: memset needs" },
	{ HDR ".engine vector\ncopy " AP ", " AP " extra\n", 4, "extra", 0,
	  "unexpected 'extra' after the operands" },
	{ HDR ".engine vector junk\n", 3, "junk", 0, "unexpected 'junk' after the statement" },
	{ HDR ".scope \"abc\n.engine vector\n", 3, "\"", 0, "unterminated string" },
	{ ".program \"a\\qb\"\n", 1, "\\q", 0, "unknown escape in string" },
	{ HDR ".engine vector\nnop wait s64 >= 1\n", 4, "s64", 0,
	  "semaphore s64 is out of range (s0..s63)" },
	{ HDR ".engine vector\nnop wait s1 >= 0\n", 4, "0", 0, "a wait value must be at least 1" },
	{ HDR ".engine vector\nnop wait x1 >= 1\n", 4, "x1", 0,
	  "expected a semaphore (s0..s63) after 'wait'" },
	{ HDR ".engine vector\nnop wait s1 1\n", 4, "1", 1, "expected '>=' and a value" },
	{ HDR ".engine vector\nnop signal s3, s3\n", 4, "s3", 1,
	  "semaphore s3 signalled twice by one entry" },
	{ HDR ".engine vector\nnop signal s99\n", 4, "s99", 0, "semaphore s99 is out of range" },
	{ HDR ".engine vector\nnop signal s1, y2\n", 4, "y2", 0,
	  "expected a semaphore (s0..s63) to signal" },
	{ HDR ".engine vector\nnop wait s1 >= 1 wait s2 >= 1\n", 4, "wait", 1,
	  "'wait' given twice" },
	{ HDR ".engine vector\nnop signal s1 signal s2\n", 4, "signal", 1, "'signal' given twice" },
	{ HDR ".engine vector\nnop wait s7 >= 1\n", 4, "nop", 0,
	  "the device would refuse this program (deadlock check, vector entry 0)" },
	{ HDR ".engine vector\nnop signal s1\n.engine scalar\nnop signal s1\n", 6, "nop", 0,
	  "(semaphore check, scalar entry 0)" },
	{ HDR ".engine tensor\nmultiply_moving psum.fp32[0:128]@0x0[64], " AP "\n", 4,
	  "multiply_moving", 0, "the device would refuse this program" },
	{ HDR ".engine tensor\nload_stationary " AP "\nmultiply_moving psum.bf16[0:64]@0x0[64], "
	  AP "\n", 5, "multiply_moving", 0, "(shape check, tensor entry 1): TensorE output must "
	  "be fp32 in PSUM" },
	{ HDR ".engine vector\nreduce div sbuf.fp32[0:128]@0x0[1], " AP "\n", 4, "reduce", 0,
	  "(alu check, vector entry 0)" },
	{ HDR ".engine vector\nactivate exp " AP ", " AP ", 1.0, 0.0\n", 4, "activate", 0,
	  "'activate' does not run on the vector engine (it runs on: scalar)" },
	{ HDR ".engine vector\ndma sbuf[0]@0x0, in@0x0, 1 x 1 x 4\n", 4, "dma", 0,
	  "'dma' runs on a DMA queue, not on the vector engine" },
	{ HDR ".queue 3\ncopy " AP ", " AP "\n", 4, "copy", 0,
	  "'copy' runs on an engine, not on a DMA queue" },
	{ HDR "copy " AP ", " AP "\n", 3, "copy", 0, "instruction 'copy' outside a stream" },
	{ HDR ".engine vector\ncopy " AP ", " AP " acc\n", 4, "acc", 0,
	  "'acc' does not apply to copy" },
	{ HDR ".engine vector\nmemset " AP ", 1.2.3\n", 4, "1.2.3", 0,
	  "found '1.2.3' (not a number)" },
	{ HDR ".engine vector\ntensor_tensor mod " AP ", " AP ", " AP "\n", 4, "mod", 0,
	  "unknown alu op 'mod' (add, sub, mul, max, min, div)" },
	{ HDR ".engine scalar\nactivate softplus " AP ", " AP ", 1.0, 0.0\n", 4, "softplus", 0,
	  "unknown activation function 'softplus'" },
	{ HDR ".engine gpsimd\niota " AP ", 1, 2, 4294967296\n", 4, "4294967296", 0,
	  "out of range for a 32-bit signed integer" },
	{ ".tensor k const fp32 [3] = { 1, 2 }\n", 1, "}", 0,
	  "constant 'k' needs 3 values, got 2" },
	{ ".tensor k const fp32 [2] = { 1, 2,\n 3 }\n", 2, "3", 0,
	  "too many values: constant 'k' has 2 elements" },
	{ ".tensor k input fp32 [2] = { 1, 2 }\n", 1, "=", 0, "only const tensors have data" },
	{ ".tensor k weights fp32 [2]\n", 1, "weights", 0, "unknown tensor kind 'weights'" },
	{ ".tensor k input fp32 [2, 0]\n", 1, "0", 0, "a dimension must be at least 1" },
	{ ".tensor k input fp32 [1, 2, 3, 4, 5]\n", 1, "5", 0, "at most 4 dimensions" },
	{ ".tensor k input fp32 [65536, 65536, 65536]\n", 1, "65536", 2, "larger than 16 GiB" },
	{ ".queue 16\n", 1, "16", 0, "DMA queue 16 is out of range (0..15)" },
	{ ".engine matrix\n", 1, "matrix", 0, "unknown engine 'matrix'" },
	{ HDR ".engine vector\nx: nop\nx: nop\n", 5, "x", 0, "duplicate label 'x'" },
	{ HDR ".engine vector\n", 0, NULL, 0, "the program has no instructions" },
	{ HDR ".engine vector\nnop $\n", 4, "$", 0, "unexpected character '$'" },
	{ HDR ".strtab \"a\"\n", 3, ".", 0, ".strtab must come before anything" },
	{ ".frob 1\n", 1, ".", 0, "unknown directive '.frob'" },
	{ ".program \"a\"\n.program \"b\"\n", 2, ".", 0, "duplicate .program directive" },
	{ HDR ".queue 0\ndma sbuf[0]@0x0, in@0x0, 1 x 0 x 4\n", 4, "1 x", 0, "empty transfer" },
	{ HDR ".queue 0\ndma sbuf[0]@0x0, in@0x0, 1 * 1 x 4\n", 4, "*", 0,
	  "unexpected character '*'" },
	{ HDR ".queue 0\ndma sbuf[0]@0x0, in@0x0, 1 y 1 x 4\n", 4, "y", 0,
	  "expected 'x' in the size C1 x C0 x BYTES" },
	{ HDR ".queue 0\ndma in@0x0, sbuf[0]@0x0, 1 x 1 x 4\n", 4, "dma", 0,
	  "(dma check, queue 0 entry 0)" },
	{ HDR ".engine vector\ncopy sbuf.fp32[0:128]@0x0[0], " AP "\n", 4, "sbuf", 0,
	  "element counts must be at least 1" },
	{ HDR ".engine vector\ncopy sbuf.fp32[0:128]@0x0[64:1, 1:1:1], " AP "\n", 4, ":1]", 0,
	  "expected ']' after the free-axis pattern" },
	{ ".loc -3\n", 1, "-3", 0, "not an unsigned integer" },
	{ ".file 12\n", 1, "12", 0, "expected a file name in quotes" },
	{ ".engine vector\nnop\n\x01\n", 3, "\x01", 0, "unexpected byte 0x01" },
	/* the collective engine */
	{ HDR ".engine cc\ncopy " AP ", " AP "\n", 4, "copy", 0,
	  "'copy' does not run on the collective engine (it runs nop, all_reduce, all_gather, "
	  "reduce_scatter, all_to_all or permute)" },
	{ HDR ".engine cc\ndma sbuf[0]@0x0, in@0x0, 1 x 1 x 4\n", 4, "dma", 0,
	  "'dma' does not run on the collective engine" },
	{ HDR ".engine vector\nall_reduce add fp32 out, in, 4\n", 4, "all_reduce", 0,
	  "'all_reduce' runs on the collective engine, not on the vector engine (start its "
	  "stream with .engine cc)" },
	{ HDR ".queue 2\npermute fp32 out, in, 4\n", 4, "permute", 0,
	  "'permute' runs on the collective engine, not on a DMA queue" },
	{ HDR ".engine cc\nall_reduse add fp32 out, in, 4\n", 4, "all_reduse", 0,
	  "unknown mnemonic 'all_reduse' (did you mean 'all_reduce'?)" },
	{ HDR ".engine cc\nall_reduce sub fp32 out, in, 4\n", 4, "sub", 0,
	  "all_reduce reduces by add or max, not 'sub'" },
	{ HDR ".engine cc\nreduce_scatter mod fp32 out, in, 4\n", 4, "mod", 0,
	  "unknown reduction 'mod' (add or max)" },
	{ HDR ".engine cc\nall_reduce\n", 4, "", 0, "missing operand: reduction (add or max)" },
	{ HDR ".engine cc\nall_gather fp16 out, in, 4\n", 4, "fp16", 0, "unknown dtype 'fp16'" },
	{ HDR ".engine cc\nall_gather\n", 4, "", 0,
	  "missing operand: all_gather needs a dtype, a destination, a source and a count" },
	{ HDR ".engine cc\nall_gather fp32 out, nothere, 4\n", 4, "nothere", 0,
	  "undefined tensor 'nothere'" },
	{ HDR ".engine cc\nall_gather fp32 out, 12, 4\n", 4, "12", 0,
	  "expected the source (a tensor name, with @OFFSET in bytes), found '12'" },
	{ HDR ".engine cc\nall_gather fp32 out, in\n", 4, "", 0,
	  "missing operand: all_gather needs a count (elements)" },
	{ HDR ".engine cc\nall_gather fp32 out, in, 0\n", 4, "0", 0,
	  "a collective moves at least 1 element" },
	{ HDR ".engine cc\nall_gather fp32 out, in, 4 shift 1\n", 4, "shift", 0,
	  "'shift' applies to permute only" },
	{ HDR ".engine cc\npermute fp32 out, in, 4 shift 1 shift 1\n", 4, "shift", 1,
	  "'shift' given twice" },
	{ HDR ".engine cc\npermute fp32 out, in, 4 shift\n", 4, "", 0,
	  "missing a shift after 'shift'" },
	{ HDR ".engine cc\npermute fp32 out, in, 4 group 0\n", 4, "0", 0,
	  "group 0: a group has 1..65535 members (leave 'group' out for one group of every "
	  "rank)" },
	{ HDR ".engine cc\npermute fp32 out, in, 4 group 2 stride 0\n", 4, "0", 0,
	  "stride 0: members are 1..65535 ranks apart" },
	{ HDR ".engine cc\npermute fp32 out, in, 4 group 2 stride 65536\n", 4, "65536", 0,
	  "stride 65536: members are 1..65535 ranks apart" },
	{ HDR ".engine cc\npermute fp32 out, in, 4 shift 4294967296\n", 4, "4294967296", 0,
	  "shift 4294967296: a shift is 0..4294967295" },
	{ HDR ".engine cc\npermute fp32 out, in, 4 stride 2\n", 4, "stride", 0,
	  "'stride' comes right after 'group N'" },
	{ HDR ".engine cc\nall_reduce add fp32 out, in, 4 group 2 group 2\n", 4, "group", 1,
	  "'group' given twice" },
	{ HDR ".engine cc\nnop group 2\n", 4, "group", 0, "'group' does not apply to nop" },
	{ HDR ".engine cc\nall_reduce add fp32 out, in, 4 acc\n", 4, "acc", 0,
	  "'acc' does not apply to all_reduce" },
	{ HDR ".engine cc\nall_reduce add fp32 out, in, 4 frob\n", 4, "frob", 0,
	  "unexpected 'frob' after the operands (expected group, shift, wait, signal or the "
	  "end of the line)" },
	{ HDR ".engine cc\nall_reduce add fp32 in, out, 4\n", 4, "all_reduce", 0,
	  "the device would refuse this program (collective check, cc entry 0)" },
	{ HDR ".engine cc\nnop\nall_gather fp32 out, in, 8192 group 2\n", 5, "all_gather", 0,
	  "(collective check, cc entry 1)" },
	{ HDR ".engine cc\nall_reduce add fp32 out, in, 4 group 65\n", 4, "all_reduce", 0,
	  "(collective check, cc entry 0)" },
	{ HDR ".engine cc\nnop wait s3 >= 1\n", 4, "nop", 0, "(deadlock check, cc entry 0)" },
	{ HDR ".engine cc\nnop signal s1\n.engine vector\nnop signal s1\n", 4, "nop", 0,
	  "(semaphore check, cc entry 0)" },
	{ ".engine gpu\n", 1, "gpu", 0,
	  "unknown engine 'gpu' (tensor, vector, scalar, gpsimd, cc)" },
	{ HDR "all_gather fp32 out, in, 4\n", 3, "all_gather", 0,
	  "outside a stream: start one with .engine tensor|vector|scalar|gpsimd|cc or .queue N" },
};

static unsigned int col_of(const char *text, unsigned int line, const char *mark,
			   unsigned int nth)
{
	const char *l = text, *p, *e;
	unsigned int i;

	for (i = 1; i < line; i++)
		l = strchr(l, '\n') + 1;
	e = strchr(l, '\n');
	if (!*mark)
		return (unsigned int)(e - l) + 1;
	p = l;
	for (i = 0; ; i++) {
		p = strstr(p, mark);
		if (!p || p >= e)
			return 0;
		if (i == nth)
			return (unsigned int)(p - l) + 1;
		p++;
	}
}

TEST(every_error_has_its_place)
{
	unsigned int i;

	for (i = 0; i < sizeof(err_cases) / sizeof(err_cases[0]); i++) {
		const struct err_case *c = &err_cases[i];
		struct nd_asm_diag d;
		size_t size = 1;
		void *img = (void *)1;
		int ret = as(c->text, "e.vasm", &img, &size, &d);

		EXPECT_EQ(-EINVAL, ret) TH_LOG("case %u", i);
		EXPECT_EQ(NULL, img);
		EXPECT_EQ(0, size);
		EXPECT_EQ(c->line, d.line) TH_LOG("case %u: %s", i, d.msg);
		if (c->mark)
			EXPECT_EQ(col_of(c->text, c->line, c->mark, c->nth), d.col)
				TH_LOG("case %u: %s", i, d.msg);
		EXPECT_NE(NULL, strstr(d.msg, c->msg)) TH_LOG("case %u: got \"%s\"", i, d.msg);
	}
}

/* Errors go to the stream as file:line:col: error: ..., several per run, then stop. */
TEST(error_stream)
{
	static const char text[] = ".engine vector\nfrob\nnop\ncopy x\n.tensor k const fp32 [4] = {\n"
				   "1, 2, zz, 4 }\nnop $\n";
	struct nd_asm_diag d;
	char *buf = NULL, *big;
	size_t len = 0, size, i;
	void *img;
	FILE *f = open_memstream(&buf, &len);

	ASSERT_NE(NULL, f);
	EXPECT_EQ(-EINVAL, nd_asm(text, strlen(text), "dir/p.vasm", 0, &img, &size, &d, f));
	fclose(f);
	EXPECT_STREQ("dir/p.vasm:2:1: error: unknown mnemonic 'frob'\n"
		     "dir/p.vasm:4:6: error: the destination: 'x' is not an on-chip memory "
		     "(sbuf or psum)\n"
		     "dir/p.vasm:6:7: error: expected a value, found 'zz'\n"
		     "dir/p.vasm:7:5: error: unexpected character '$'\n", buf);
	EXPECT_EQ(2, d.line);
	free(buf);

	/* 30 bad lines: 20 reported, then one line saying it stopped. */
	big = malloc(30 * 6 + 1);
	ASSERT_NE(NULL, big);
	for (i = 0; i < 30; i++)
		memcpy(big + i * 6, "frob \n", 6);
	big[180] = 0;
	buf = NULL;
	f = open_memstream(&buf, &len);
	ASSERT_NE(NULL, f);
	EXPECT_EQ(-EINVAL, nd_asm(big, 180, "b.vasm", 0, &img, &size, NULL, f));
	fclose(f);
	for (i = 0; buf[i]; i++)
		;
	EXPECT_NE(NULL, strstr(buf, "b.vasm:20:1: error"));
	EXPECT_EQ(NULL, strstr(buf, "b.vasm:21:1: error"));
	EXPECT_NE(NULL, strstr(buf, "too many errors"));
	free(buf);
	free(big);
}

/* --no-validate writes what the validator would refuse, and nothing else changes. */
TEST(no_validate)
{
	static const char text[] = ".engine vector\nnop wait s7 >= 1\n";
	size_t size;
	void *img;

	EXPECT_EQ(-EINVAL, as(text, "n.vasm", &img, &size, NULL));
	ASSERT_EQ(0, nd_asm(text, strlen(text), "n.vasm", ND_ASM_NO_VALIDATE, &img, &size, NULL,
			    NULL));
	EXPECT_EQ(-EINVAL, vn_program_check(img, size, NULL));
	free(img);
}

/* An image laid out otherwise: the same program comes back, exact says it is not bytes. */
TEST(non_canonical_layout)
{
	static const char text[] = ".tensor x input fp32 [4]\n.engine vector\nnop\nnop\n";
	struct vnef_header *h;
	struct vnef_section *st;
	struct vnef_debug *dbg = NULL, tmp;
	struct nd_error err;
	size_t size, size2;
	void *img, *img2;
	char *t;
	int exact = 1;
	uint32_t i;
	FILE *f;

	ASSERT_EQ(0, as(text, "c.vasm", &img, &size, NULL));
	h = img;
	st = (struct vnef_section *)((char *)img + h->header_size);
	for (i = 0; i < h->section_count; i++)
		if (st[i].type == VNEF_SEC_DEBUG)
			dbg = (struct vnef_debug *)((char *)img + st[i].offset);
	ASSERT_NE(NULL, dbg);
	tmp = dbg[0];
	dbg[0] = dbg[1];
	dbg[1] = tmp;
	ASSERT_EQ(0, vn_program_check(img, size, NULL));
	t = dis(img, size, &exact);
	ASSERT_NE(NULL, t);
	EXPECT_EQ(0, exact);
	ASSERT_EQ(0, as(t, "c2.vasm", &img2, &size2, NULL));
	EXPECT_EQ(size, size2);
	free(img2);
	free(t);

	/* An invalid image is refused with the validator's check. */
	h->flags = 1;
	f = fopen("/dev/null", "w");
	ASSERT_NE(NULL, f);
	EXPECT_EQ(-EINVAL, nd_dis(img, size, 0, f, &exact, &err));
	fclose(f);
	EXPECT_NE(NULL, strstr(err.msg, "header")) TH_LOG("%s", err.msg);
	free(img);
}

TEST(format_functions)
{
	struct vnef_instr in;
	struct vnef_dma_desc d;
	const char *names[] = { "x" };
	char buf[16], big[256];
	size_t n;

	memset(&in, 0, sizeof(in));
	in.opcode = VNEF_OP_MEMSET;
	in.dst = (struct vnef_ap){ .mem = VNEF_MEM_SBUF, .dtype = VNEF_DT_FP32,
				   .partitions = 128, .offset = 0x40, .count = { 8, 1 },
				   .stride = { 1, 0 } };
	in.imm[0] = 0x3fc00000;
	in.flags = VNEF_IF_WAIT;
	in.wait_sem = 3;
	in.wait_value = 2;
	in.signal_mask = 1ull << 63;
	n = nd_asm_format_instr(big, sizeof(big), &in);
	EXPECT_STREQ("memset sbuf.fp32[0:128]@0x40[8], 1.5 wait s3 >= 2 signal s63", big);
	EXPECT_EQ(strlen(big), n);
	EXPECT_EQ(n, nd_asm_format_instr(buf, sizeof(buf), &in));
	EXPECT_EQ(15, strlen(buf));
	EXPECT_EQ(0, strncmp(buf, big, 15));
	EXPECT_EQ(n, nd_asm_format_instr(NULL, 0, &in));

	memset(&d, 0, sizeof(d));
	d.chunk_bytes = 64;
	d.count[0] = d.count[1] = 1;
	d.src.mem = VNEF_MEM_HBM;
	d.src.offset = 128;
	d.dst.mem = VNEF_MEM_PSUM;
	d.dst.partition = 7;
	nd_asm_format_desc(big, sizeof(big), &d, names, 1);
	EXPECT_STREQ("dma psum[7]@0x0, x@0x80, 1 x 1 x 64", big);
	d.src.tensor = 4;
	nd_asm_format_desc(big, sizeof(big), &d, names, 1);
	EXPECT_STREQ("dma psum[7]@0x0, #4@0x80, 1 x 1 x 64", big);
	EXPECT_STREQ("gpsimd", nd_asm_engine_name(3));
	EXPECT_STREQ("queue 15", nd_asm_engine_name(19));
	EXPECT_STREQ("cc", nd_asm_engine_name(VNEF_STREAM_CC));
	EXPECT_STREQ("?", nd_asm_engine_name(VNEF_STREAMS));
	{
		struct vnef_cc_instr cc = {
			.opcode = VNEF_CC_REDUCE_SCATTER, .dtype = VNEF_DT_BF16,
			.reduce = VNEF_ALU_MAX, .count = 12, .src_tensor = 0, .dst_tensor = 3,
			.src_offset = 0x40, .group_size = 2, .group_stride = 4,
			.flags = VNEF_IF_WAIT, .wait_sem = 5, .wait_value = 1,
			.signal_mask = 1ull << 20,
		};

		n = nd_asm_format_cc(big, sizeof(big), &cc, names, 1);
		EXPECT_STREQ("reduce_scatter max bf16 #3@0x0, x@0x40, 12 group 2 stride 4 "
			     "wait s5 >= 1 signal s20", big);
		EXPECT_EQ(strlen(big), n);
		EXPECT_EQ(n, nd_asm_format_cc(NULL, 0, &cc, names, 1));
		memset(&cc, 0, sizeof(cc));
		cc.opcode = VNEF_CC_PERMUTE;
		cc.dtype = VNEF_DT_FP32;
		cc.count = 1;
		nd_asm_format_cc(big, sizeof(big), &cc, names, 1);
		EXPECT_STREQ("permute fp32 x@0x0, x@0x0, 1 shift 0", big);
		memset(&cc, 0, sizeof(cc));
		nd_asm_format_cc(big, sizeof(big), &cc, NULL, 0);
		EXPECT_STREQ("nop", big);
		EXPECT_STREQ("all_to_all", vn_cc_opcode_mnemonic(VNEF_CC_ALL_TO_ALL));
	}
	EXPECT_STREQ("partition_reduce", vn_opcode_mnemonic(VNEF_OP_PARTITION_REDUCE));
	EXPECT_STREQ("div", vn_alu_name(VNEF_ALU_DIV));
	EXPECT_STREQ("square", vn_act_name(VNEF_ACT_SQUARE));
}

/* Floats print short and exact: every printed immediate reads back to the same bits. */
TEST(float_immediates)
{
	static const uint32_t bits[] = {
		0x00000000, 0x80000000, 0x3f800000, 0x41200000, 0x3dcccccd, 0x00000001,
		0x007fffff, 0x7f7fffff, 0xff7fffff, 0x7f800000, 0xff800000, 0x7fc00000,
		0xffc00000, 0x7f800001, 0x4b800001, 0x33d6bf95,
	};
	unsigned int i;

	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		char text[256];
		struct vn_program *p;
		size_t size;
		void *img;
		float f;

		memcpy(&f, &bits[i], 4);
		snprintf(text, sizeof(text), ".engine vector\nmemset sbuf.fp32[0:1]@0x0[1], %s\n",
			 "0");
		{
			struct vnef_instr in = { .opcode = VNEF_OP_MEMSET, .imm = { bits[i] } };
			char line[160];

			in.dst = (struct vnef_ap){ .mem = VNEF_MEM_SBUF, .dtype = VNEF_DT_FP32,
						   .partitions = 1, .count = { 1, 1 },
						   .stride = { 1, 0 } };
			nd_asm_format_instr(line, sizeof(line), &in);
			snprintf(text, sizeof(text), ".engine vector\n%s\n", line);
		}
		ASSERT_EQ(0, as(text, "f.vasm", &img, &size, NULL)) TH_LOG("%s", text);
		ASSERT_EQ(0, vn_program_load(img, size, &p, NULL));
		EXPECT_EQ(bits[i], p->streams[1].instr[0].imm[0]) TH_LOG("%s", text);
		vn_program_put(p);
		free(img);
	}
}

/* ---------------------------------------------------------------------------- */
/* The tools: help, exit status, -o -, stdin, file:line:col errors               */

static int sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static bool file_has(const char *path, const char *what)
{
	size_t len;
	char *t = read_text(path, &len);
	bool yes = t && strstr(t, what);

	free(t);
	return yes;
}

TEST(tools)
{
	static const char *const heads[] = { "NAME\n", "SYNOPSIS\n", "DESCRIPTION\n", "OPTIONS\n",
					     "EXIT STATUS\n", "EXAMPLES\n" };
	const char *as = "build/bin/vneuron-as", *ds = "build/bin/vneuron-dis";
	char dir[] = "/tmp/test_asm.XXXXXX", path[600];
	unsigned int i;
	FILE *f;

	if (access(as, X_OK) || access(ds, X_OK) || access("examples/vasm/exp.vasm", R_OK))
		SKIP(return, "run from the top of the tree after make (needs build/bin)");
	ASSERT_NE(NULL, mkdtemp(dir));

	EXPECT_EQ(0, sh("%s --help > %s/h1", as, dir));
	EXPECT_EQ(0, sh("%s --help > %s/h2", ds, dir));
	for (i = 0; i < 6; i++) {
		snprintf(path, sizeof(path), "%s/h1", dir);
		EXPECT_TRUE(file_has(path, heads[i])) TH_LOG("vneuron-as --help: %s", heads[i]);
		snprintf(path, sizeof(path), "%s/h2", dir);
		EXPECT_TRUE(file_has(path, heads[i])) TH_LOG("vneuron-dis --help: %s", heads[i]);
	}
	/* Usage errors: 2. */
	EXPECT_EQ(2, sh("%s 2>/dev/null", as));
	EXPECT_EQ(2, sh("%s --bogus x.vasm 2>/dev/null", as));
	EXPECT_EQ(2, sh("%s x.vasm -o 2>/dev/null", as));
	EXPECT_EQ(2, sh("%s - 2>/dev/null </dev/null", as));
	EXPECT_EQ(2, sh("%s 2>/dev/null", ds));
	EXPECT_EQ(2, sh("%s a b 2>/dev/null", ds));
	/* Input errors: 1, naming the file and the place; nothing written. */
	EXPECT_EQ(1, sh("%s %s/missing.vasm -o %s/m.vnef 2>%s/e1", as, dir, dir, dir));
	snprintf(path, sizeof(path), "%s/e1", dir);
	EXPECT_TRUE(file_has(path, "missing.vasm: No such file"));
	snprintf(path, sizeof(path), "%s/bad.vasm", dir);
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	fputs(".engine vector\n\tfrob\n", f);
	fclose(f);
	EXPECT_EQ(1, sh("%s %s/bad.vasm -o %s/bad.vnef 2>%s/e2", as, dir, dir, dir));
	snprintf(path, sizeof(path), "%s/e2", dir);
	EXPECT_TRUE(file_has(path, "bad.vasm:2:2: error: unknown mnemonic 'frob'"));
	snprintf(path, sizeof(path), "%s/bad.vnef", dir);
	EXPECT_NE(0, access(path, F_OK));
	EXPECT_EQ(1, sh("%s %s/bad.vasm 2>%s/e3", ds, dir, dir));
	snprintf(path, sizeof(path), "%s/e3", dir);
	EXPECT_TRUE(file_has(path, "bad.vasm: 21 bytes is not the size of a .vnef image"));
	/* The default output name, -o -, stdin, and the round trip through files. */
	EXPECT_EQ(0, sh("cp examples/vasm/exp.vasm %s/ && %s -q %s/exp.vasm", dir, as, dir));
	EXPECT_EQ(0, sh("%s %s/exp.vnef -o %s/exp.dis.vasm", ds, dir, dir));
	EXPECT_EQ(0, sh("%s -q -o - %s/exp.dis.vasm > %s/exp2.vnef", as, dir, dir));
	EXPECT_EQ(0, sh("cmp -s %s/exp.vnef %s/exp2.vnef", dir, dir));
	EXPECT_EQ(0, sh("%s --exact - < %s/exp.vnef | %s -q -o %s/exp3.vnef -", ds, dir, as, dir));
	EXPECT_EQ(0, sh("cmp -s %s/exp.vnef %s/exp3.vnef", dir, dir));
	EXPECT_EQ(0, sh("rm -rf %s", dir));
}

/* Issue 12: vneuron-dis and vneuron-as never write over an input, nor an existing file unasked. */
TEST(as_and_dis_never_lose_a_file)
{
	const char *as = "build/bin/vneuron-as", *ds = "build/bin/vneuron-dis";
	char dir[] = "/tmp/test_dis.XXXXXX", path[600];

	if (access(as, X_OK) || access(ds, X_OK) || access("examples/vasm/exp.vasm", R_OK))
		SKIP(return, "run from the top of the tree after make (needs build/bin)");
	ASSERT_NE(NULL, mkdtemp(dir));
	ASSERT_EQ(0, sh("cp examples/vasm/exp.vasm %s/ && %s -q %s/exp.vasm && "
			"cp %s/exp.vnef %s/orig.vnef && ln %s/exp.vnef %s/link.vnef",
			dir, as, dir, dir, dir, dir, dir));
	/* onto its input, by its name or another: refused (2), the program intact */
	EXPECT_EQ(2, sh("%s %s/exp.vnef -o %s/exp.vnef 2>%s/e1", ds, dir, dir, dir));
	snprintf(path, sizeof(path), "%s/e1", dir);
	EXPECT_TRUE(file_has(path, "would overwrite the input"));
	EXPECT_EQ(2, sh("%s %s/exp.vnef -o %s/link.vnef --force-overwrite 2>/dev/null", ds, dir,
			dir));
	EXPECT_EQ(0, sh("cmp -s %s/exp.vnef %s/orig.vnef", dir, dir));
	/* an existing output: refused, then replaced with --force-overwrite */
	EXPECT_EQ(0, sh("echo mine > %s/out.vasm", dir));
	EXPECT_EQ(2, sh("%s %s/exp.vnef -o %s/out.vasm 2>%s/e2", ds, dir, dir, dir));
	snprintf(path, sizeof(path), "%s/e2", dir);
	EXPECT_TRUE(file_has(path, "exists; use --force-overwrite"));
	EXPECT_EQ(0, sh("grep -qx mine %s/out.vasm", dir));
	/* a bad input, forced: the old output stays */
	EXPECT_EQ(1, sh("%s %s/exp.vasm -o %s/out.vasm --force-overwrite 2>/dev/null", ds, dir,
			dir));
	EXPECT_EQ(0, sh("grep -qx mine %s/out.vasm", dir));
	EXPECT_EQ(0, sh("%s %s/exp.vnef -o %s/out.vasm --force-overwrite", ds, dir, dir));
	EXPECT_EQ(0, sh("%s -q -o - %s/out.vasm | cmp -s - %s/orig.vnef", as, dir, dir));
	/* issue 12, smaller things: a binary input is one message, not 20 errors */
	EXPECT_EQ(1, sh("%s %s/orig.vnef -o %s/bin.vnef 2>%s/e3", as, dir, dir, dir));
	snprintf(path, sizeof(path), "%s/e3", dir);
	EXPECT_TRUE(file_has(path, "a binary file, not assembly text (a .vnef program"));
	EXPECT_EQ(0, sh("[ $(wc -l < %s/e3) = 1 ] && rm %s/e3", dir, dir));
	/* vneuron-as the same: its default output exists, -o onto its input */
	EXPECT_EQ(2, sh("%s -q %s/exp.vasm 2>/dev/null", as, dir));
	EXPECT_EQ(2, sh("%s -q %s/exp.vasm -o %s/exp.vasm --force-overwrite 2>/dev/null", as, dir,
			dir));
	EXPECT_EQ(0, sh("grep -q '^.program' %s/exp.vasm", dir));
	EXPECT_EQ(0, sh("%s -q %s/exp.vasm --force-overwrite && cmp -s %s/exp.vnef %s/orig.vnef",
			as, dir, dir, dir));
	/* vnef-tool build the same */
	if (!access("build/bin/vnef-tool", X_OK)) {
		EXPECT_EQ(2, sh("build/bin/vnef-tool build exp %s/orig.vnef 2>/dev/null", dir));
		EXPECT_EQ(0, sh("cmp -s %s/exp.vnef %s/orig.vnef", dir, dir));
		EXPECT_EQ(0, sh("build/bin/vnef-tool build --force-overwrite exp1 %s/orig.vnef && "
				"! cmp -s %s/exp.vnef %s/orig.vnef", dir, dir, dir));
	}
	/* no temporary file left behind; --help names the option */
	EXPECT_EQ(0, sh("[ $(ls -A %s | wc -l) = 7 ]", dir));
	EXPECT_EQ(0, sh("%s --help | grep -q -- --force-overwrite", ds));
	EXPECT_EQ(0, sh("%s --help | grep -q -- --force-overwrite", as));
	EXPECT_EQ(0, sh("rm -rf %s", dir));
}

TEST_HARNESS_MAIN
