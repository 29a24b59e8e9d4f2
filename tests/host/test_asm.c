// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The assembler and disassembler (libvnprog/asm_*.c, docs/assembler.md).
 *
 * Round trip, as defined there: for an image in the canonical layout (what nd_asm()
 * and the builder write), nd_asm(nd_dis(image)) gives the same bytes, debug table
 * (source files, lines, scopes) included. Tested on a program using every instruction
 * and operand form, on the examples, and on every ready-made kernel of the builder.
 * Every error message is tested for its line, column and wording.
 */
#include <errno.h>
#include <stdbool.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vnprog.h"
#include "vn_isa.h"
#include "vn_program.h"
#include "vn_model.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmisleading-indentation"
#include "kselftest_harness.h"

static char *read_text(const char *path, size_t *len)
{
	char alt[512];
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f) {
		/* Run from elsewhere than the top of the tree: find it next to this file. */
		const char *s = strrchr(__FILE__, '/');

		if (!s)
			return NULL;
		snprintf(alt, sizeof(alt), "%.*s/../../%s", (int)(s - __FILE__), __FILE__, path);
		f = fopen(alt, "r");
		if (!f)
			return NULL;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf)
		buf[n] = 0;
	*len = (size_t)n;
	return buf;
}

static int as(const char *text, const char *file, void **img, size_t *size,
	      struct nd_asm_diag *d)
{
	return nd_asm(text, strlen(text), file, 0, img, size, d, NULL);
}

/* The disassembly of an image as a string. */
static char *dis(const void *img, size_t size, int *exact)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct nd_error err;
	int ret;

	if (!f)
		return NULL;
	ret = nd_dis(img, size, 0, f, exact, &err);
	fclose(f);
	if (ret) {
		fprintf(stderr, "# nd_dis: %s\n", err.msg);
		free(buf);
		return NULL;
	}
	return buf;
}

/* dis then as: the same bytes; and the text is a fixed point. */
static void round_trip(struct __test_metadata *_metadata, const void *img, size_t size)
{
	struct nd_asm_diag d;
	char *text, *text2;
	void *img2;
	size_t size2;
	int exact = 0;

	text = dis(img, size, &exact);
	ASSERT_NE(NULL, text);
	EXPECT_EQ(1, exact);
	ASSERT_EQ(0, as(text, "<dis>", &img2, &size2, &d))
		TH_LOG("%u:%u: %s", d.line, d.col, d.msg);
	ASSERT_EQ(size, size2);
	EXPECT_EQ(0, memcmp(img, img2, size));
	text2 = dis(img2, size2, NULL);
	ASSERT_NE(NULL, text2);
	EXPECT_STREQ(text, text2);
	free(text);
	free(text2);
	free(img2);
}

static void file_round_trip(struct __test_metadata *_metadata, const char *path)
{
	struct nd_asm_diag d;
	size_t len, size;
	char *text;
	void *img;

	text = read_text(path, &len);
	ASSERT_NE(NULL, text) TH_LOG("cannot read %s", path);
	ASSERT_EQ(0, nd_asm(text, len, path, 0, &img, &size, &d, NULL))
		TH_LOG("%s:%u:%u: %s", path, d.line, d.col, d.msg);
	EXPECT_EQ(0, vn_program_check(img, size, NULL));
	round_trip(_metadata, img, size);
	free(img);
	free(text);
}

TEST(every_form_round_trips)
{
	file_round_trip(_metadata, "examples/vasm/forms.vasm");
}

TEST(examples_assemble_validate_and_round_trip)
{
	file_round_trip(_metadata, "examples/vasm/exp.vasm");
	file_round_trip(_metadata, "examples/vasm/matmul.vasm");
	file_round_trip(_metadata, "examples/vasm/rownorm.vasm");
	file_round_trip(_metadata, "examples/vasm/spmd.vasm");
}

/* Every entry of forms.vasm decodes to the fields its text says (spot checks). */
TEST(forms_fields)
{
	struct vn_program *p;
	size_t len, size;
	char *text = read_text("examples/vasm/forms.vasm", &len);
	const struct vnef_instr *in;
	const struct vnef_dma_desc *dd;
	uint32_t u;
	void *img;

	ASSERT_NE(NULL, text);
	ASSERT_EQ(0, nd_asm(text, len, "forms.vasm", 0, &img, &size, NULL, NULL));
	ASSERT_EQ(0, vn_program_load(img, size, &p, NULL));
	ASSERT_EQ(5, p->tensor_count);
	EXPECT_STREQ("out.y", vn_program_str(p, p->tensors[1].name_off));
	EXPECT_EQ(VNEF_DT_BF16, p->tensors[1].dtype);
	memcpy(&u, p->consts + p->tensors[3].const_off + 8, 4);
	EXPECT_EQ(0x7fc00001u, u);
	memcpy(&u, p->consts + p->tensors[3].const_off + 4, 4);
	EXPECT_EQ(0x80000000u, u);
	/* multiply_moving ... acc */
	in = &p->streams[0].instr[2];
	EXPECT_EQ(VNEF_OP_MULTIPLY_MOVING, in->opcode);
	EXPECT_EQ(VNEF_IF_ACCUMULATE, in->flags);
	EXPECT_EQ(64, in->src0.partitions);
	EXPECT_EQ(VNEF_DT_BF16, in->src0.dtype);
	EXPECT_EQ(0x1000, in->src0.offset);
	/* nop wait s1 >= 2 signal s0, s9 */
	in = &p->streams[0].instr[5];
	EXPECT_EQ(VNEF_IF_WAIT, in->flags);
	EXPECT_EQ(1, in->wait_sem);
	EXPECT_EQ(2, in->wait_value);
	EXPECT_EQ((1ull << 0) | (1ull << 9), in->signal_mask);
	/* tensor_tensor sub ..., [2:32, 32:1] */
	in = &p->streams[1].instr[0];
	EXPECT_EQ(VNEF_ALU_SUB, in->op);
	EXPECT_EQ(32, in->src1.count[0]);
	EXPECT_EQ(1, in->src1.stride[0]);
	EXPECT_EQ(2, in->src1.count[1]);
	EXPECT_EQ(32, in->src1.stride[1]);
	/* tensor_scalar max ..., column rev */
	in = &p->streams[1].instr[2];
	EXPECT_EQ(VNEF_IF_SCALAR_COLUMN | VNEF_IF_REVERSE, in->flags);
	EXPECT_EQ(0, in->imm[0]);
	/* reduce max ..., [32:2] */
	in = &p->streams[1].instr[4];
	EXPECT_EQ(32, in->src0.count[0]);
	EXPECT_EQ(2, in->src0.stride[0]);
	EXPECT_EQ(1, in->src0.count[1]);
	EXPECT_EQ(0, in->src0.stride[1]);
	/* activate sigmoid with a bias column */
	in = &p->streams[2].instr[1];
	EXPECT_EQ(VNEF_ACT_SIGMOID, in->op);
	EXPECT_EQ(VNEF_IF_BIAS_COLUMN, in->flags);
	EXPECT_EQ(0x3f800000u, in->imm[0]);
	/* iota ..., -5, 3, -2147483648 */
	in = &p->streams[3].instr[0];
	EXPECT_EQ((uint32_t)-5, in->imm[0]);
	EXPECT_EQ(3, in->imm[1]);
	EXPECT_EQ(0x80000000u, in->imm[2]);
	/* memset ... 0x7f800001: raw bits */
	EXPECT_EQ(0x7f800001u, p->streams[3].instr[4].imm[0]);
	/* dma scr@0x0[512, 4], psum[0; 4, 1]@0x10, 4 x 4 x 4 */
	dd = &p->streams[VNEF_STREAM_DMA(15)].desc[0];
	EXPECT_EQ(VNEF_MEM_HBM, dd->dst.mem);
	EXPECT_EQ(2, dd->dst.tensor);
	EXPECT_EQ(512, dd->dst.stride[1]);
	EXPECT_EQ(4, dd->dst.stride[0]);
	EXPECT_EQ(VNEF_MEM_PSUM, dd->src.mem);
	EXPECT_EQ(4, dd->src.part_stride[1]);
	EXPECT_EQ(1, dd->src.part_stride[0]);
	EXPECT_EQ(0x10, dd->src.offset);
	EXPECT_EQ(4, dd->count[1]);
	EXPECT_EQ(4, dd->count[0]);
	EXPECT_EQ(4, dd->chunk_bytes);
	EXPECT_EQ(VNEF_IF_WAIT, dd->flags);
	vn_program_put(p);
	free(img);
	free(text);
}

/* Append to a growing text. */
static void add(char **t, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	*t = realloc(*t, *len + (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(*t + *len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	*len += (size_t)n;
}

/*
 * Every opcode on every engine that runs it, with every alu op and function it takes,
 * both dtypes, both scalar and bias forms, every flag, and DMA between every pair of
 * memories: assembles, validates and round-trips.
 */
TEST(every_opcode_engine_op_round_trips)
{
	static const char *const alus[] = { "add", "sub", "mul", "max", "min", "div" };
	static const char *const acts[] = { "identity", "exp", "log", "tanh", "sigmoid", "gelu",
					    "relu", "sqrt", "rsqrt", "reciprocal", "square" };
	static const char *const dts[] = { "fp32", "bf16" };
	static const char *const ve[] = { "vector", "gpsimd" };
	const char *X = "sbuf.fp32[0:128]@0x0[64]", *COL = "sbuf.fp32[0:128]@0x1000[1]";
	char *t = NULL;
	size_t len = 0, size, n_entries = 0;
	unsigned int e, i, j, k;
	void *img;
	struct nd_asm_diag d;

	add(&t, &len, ".program \"all\"\n.tensor h input fp32 [128, 64]\n"
		      ".tensor o output fp32 [128, 64]\n");
	for (e = 0; e < 2; e++) {
		add(&t, &len, ".engine %s\n", ve[e]);
		for (i = 0; i < 6; i++) {
			add(&t, &len, "tensor_tensor %s %s, %s, %s\n", alus[i], X, X, X);
			for (k = 0; k < 4; k++)
				add(&t, &len, "tensor_scalar %s %s, %s, %s%s\n", alus[i], X, X,
				    k & 1 ? COL : "-0.75", k & 2 ? " rev" : "");
			n_entries += 5;
		}
		add(&t, &len, "memset %s, 3.25\nnop\n", X);
		n_entries += 2;
	}
	add(&t, &len, ".engine vector\n");
	for (i = 0; i < 5; i += (i == 0 ? 3 : 1)) {	/* add, max, min */
		add(&t, &len, "reduce %s %s, %s\n", alus[i], COL, X);
		n_entries++;
	}
	add(&t, &len, ".engine gpsimd\n");
	for (i = 0; i < 5; i += (i == 0 ? 3 : 1)) {
		add(&t, &len, "partition_reduce %s sbuf.fp32[0:1]@0x2000[64], %s\n", alus[i], X);
		n_entries++;
	}
	add(&t, &len, "iota sbuf.bf16[0:128]@0x2000[64], 7, -1, 0\n");
	n_entries++;
	for (e = 1; e < 4; e++) {
		add(&t, &len, ".engine %s\n", e == 1 ? "vector" : e == 2 ? "scalar" : "gpsimd");
		for (i = 0; i < 2; i++)
			for (j = 0; j < 2; j++)
				add(&t, &len, "copy sbuf.%s[0:128]@0x3000[64], sbuf.%s[0:128]@0x0[64]\n",
				    dts[i], dts[j]);
		n_entries += 4;
	}
	add(&t, &len, ".engine scalar\n");
	for (i = 0; i < 11; i++) {
		add(&t, &len, "activate %s %s, %s, 0.5, 0.125\n", acts[i], X, X);
		add(&t, &len, "activate %s %s, %s, 2.0, %s\n", acts[i], X, X, COL);
		n_entries += 2;
	}
	add(&t, &len, "nop\n.engine tensor\nnop\n");
	n_entries += 2;
	for (i = 0; i < 2; i++) {
		add(&t, &len, "load_stationary sbuf.%s[0:128]@0x0[128]\n", dts[i]);
		for (j = 0; j < 2; j++) {
			add(&t, &len, "multiply_moving psum.fp32[0:128]@0x800[512], "
				      "sbuf.%s[0:128]@0x0[512]%s\n", dts[j], i ? " acc" : "");
			add(&t, &len, "transpose psum.fp32[0:128]@0x0[128], "
				      "sbuf.%s[0:128]@0x0[128]%s\n", dts[j], j ? " acc" : "");
		}
		n_entries += 5;
	}
	add(&t, &len, ".queue 7\n"
		      "dma sbuf[0; 0, 1]@0x0, h@0x0[0, 256], 1 x 128 x 256\n"
		      "dma o@0x0[0, 256], sbuf[0; 0, 1]@0x0, 1 x 128 x 256\n"
		      "dma o@0x100, h@0x0, 1 x 1 x 256\n"
		      "dma psum[0; 0, 1]@0x0, sbuf[0; 0, 1]@0x0, 1 x 128 x 256\n"
		      "dma sbuf[64; 0, 1]@0x100, psum[0; 0, 1]@0x0, 1 x 64 x 256\n"
		      "dma sbuf[0; 1, 0]@0x200, sbuf[0; 1, 0]@0x0, 128 x 1 x 256\n"
		      "dma o@0x0[256, 4], psum[0; 1, 0]@0x0[0, 8], 128 x 2 x 4\n");
	n_entries += 7;
	/* the collective engine: every opcode, reduction, dtype, group and shift form */
	add(&t, &len, ".tensor hb scratch bf16 [256]\n.tensor ob output bf16 [256]\n.engine cc\n"
		      "nop\n");
	n_entries++;
	for (i = 0; i < 2; i++) {
		const char *o = i ? "ob" : "o", *h = i ? "hb" : "h";

		for (j = 0; j < 2; j++) {
			add(&t, &len, "all_reduce %s %s %s@0x0, %s@0x0, 64%s\n", j ? "max" : "add",
			    dts[i], o, h, j ? " group 2 stride 2" : "");
			add(&t, &len, "reduce_scatter %s %s %s@0x8, %s@0x10, 16%s\n",
			    j ? "max" : "add", dts[i], o, h, j ? "" : " group 4");
		}
		add(&t, &len, "all_gather %s %s@0x40, %s@0x0, 16 group 4 stride 1\n", dts[i], o, h);
		add(&t, &len, "all_gather %s %s, %s, 16\n", dts[i], o, h);
		add(&t, &len, "all_to_all %s %s@0x0, %s@0x0, 8 group 2\n", dts[i], o, h);
		add(&t, &len, "permute %s %s@0x0, %s@0x0, 64 shift 63\n", dts[i], o, h);
		add(&t, &len, "permute %s %s@0x0, %s@0x0, 64 group 4 stride 16 shift 3\n", dts[i],
		    o, h);
		n_entries += 9;
	}
	ASSERT_EQ(0, nd_asm(t, len, "all.vasm", 0, &img, &size, &d, NULL))
		TH_LOG("all.vasm:%u:%u: %s", d.line, d.col, d.msg);
	{
		struct vn_program *p;

		ASSERT_EQ(0, vn_program_load(img, size, &p, NULL));
		EXPECT_EQ(n_entries, p->total_entries);
		vn_program_put(p);
	}
	round_trip(_metadata, img, size);
	free(img);
	free(t);
}

/*
 * The collective engine's stream: its fields, its place among the streams (semaphores
 * with DMA), its debug entries, the listing, and the round trip.
 */
TEST(collective_stream)
{
	static const char text[] =
		".program \"cc\"\n"
		".tensor x input fp32 [128, 64]\n"
		".tensor \"s.1\" scratch fp32 [256, 64]\n"
		".tensor y output bf16 [64]\n"
		".queue 1\n"
		"\tdma \"s.1\"@0x0[0, 256], sbuf[0; 0, 1]@0x0, 1 x 128 x 256 signal s5\n"
		".engine cc\n"
		".scope \"layer/ar\"\n"
		"ar:\tall_reduce max fp32 \"s.1\"@0x100, \"s.1\"@0x100, 1000 group 4 stride 2 "
		"wait s5 >= 1 signal s20, s21\n"
		"\tpermute fp32 \"s.1\"@0x8000, x@0x4, 2000 shift 7\n"
		".queue 2\n"
		"\tdma sbuf[0; 0, 1]@0x0, \"s.1\"@0x0[0, 256], 1 x 128 x 256 wait s20 >= 1\n";
	const struct vnef_cc_instr *cc;
	struct nd_asm_diag d;
	struct vn_program *p;
	struct nd_error err;
	char *list = NULL;
	size_t size, llen = 0;
	void *img;
	FILE *f;

	ASSERT_EQ(0, as(text, "cc.vasm", &img, &size, &d)) TH_LOG("%u:%u: %s", d.line, d.col, d.msg);
	ASSERT_EQ(0, vn_program_load(img, size, &p, NULL));
	EXPECT_EQ(VNEF_VERSION, ((const struct vnef_header *)img)->version);
	ASSERT_EQ(2, p->streams[VNEF_STREAM_CC].count);
	cc = p->streams[VNEF_STREAM_CC].cc;
	EXPECT_EQ(VNEF_CC_ALL_REDUCE, cc[0].opcode);
	EXPECT_EQ(VNEF_ALU_MAX, cc[0].reduce);
	EXPECT_EQ(VNEF_DT_FP32, cc[0].dtype);
	EXPECT_EQ(1000, cc[0].count);
	EXPECT_EQ(1, cc[0].src_tensor);
	EXPECT_EQ(1, cc[0].dst_tensor);
	EXPECT_EQ(0x100, cc[0].src_offset);
	EXPECT_EQ(0x100, cc[0].dst_offset);
	EXPECT_EQ(4, cc[0].group_size);
	EXPECT_EQ(2, cc[0].group_stride);
	EXPECT_EQ(VNEF_IF_WAIT, cc[0].flags);
	EXPECT_EQ(5, cc[0].wait_sem);
	EXPECT_EQ(1, cc[0].wait_value);
	EXPECT_EQ((1ull << 20) | (1ull << 21), cc[0].signal_mask);
	EXPECT_EQ(VNEF_CC_PERMUTE, cc[1].opcode);
	EXPECT_EQ(0, cc[1].reduce);
	EXPECT_EQ(7, cc[1].shift);
	EXPECT_EQ(0, cc[1].src_tensor);
	EXPECT_EQ(4, cc[1].src_offset);
	EXPECT_EQ(0, cc[1].group_size);
	EXPECT_EQ(0, cc[1].group_stride);
	/* the debug table: the lines of the text, the scope of the last .scope */
	{
		uint32_t i, n = 0;

		for (i = 0; i < p->debug_count; i++) {
			if (p->debug[i].stream != VNEF_STREAM_CC)
				continue;
			EXPECT_EQ(9 + p->debug[i].index, p->debug[i].line);
			EXPECT_STREQ("layer/ar", vn_program_str(p, p->debug[i].scope_off));
			n++;
		}
		EXPECT_EQ(2, n);
	}
	f = open_memstream(&list, &llen);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, nd_vnef_dump(img, size, f, &err)) TH_LOG("%s", err.msg);
	fclose(f);
	EXPECT_NE(NULL, strstr(list, "CC-core: 2 entries\n      0 all_reduce.max fp32 x 1000 "
				     "s.1+0x100 -> s.1+0x100 group=4 stride=2  wait s5>=1  "
				     "signal s20  signal s21  ; cc.vasm:9 layer/ar\n")) TH_LOG("%s", list);
	free(list);
	vn_program_put(p);
	round_trip(_metadata, img, size);
	{
		char *t = dis(img, size, NULL);

		ASSERT_NE(NULL, t);
		EXPECT_NE(NULL, strstr(t, "\n.engine cc\n"));
		EXPECT_NE(NULL, strstr(t, "\tall_reduce max fp32 \"s.1\"@0x100, \"s.1\"@0x100, 1000 "
				       "group 4 stride 2 wait s5 >= 1 signal s20, s21\n"));
		EXPECT_NE(NULL, strstr(t, "\tpermute fp32 \"s.1\"@0x8000, x@0x4, 2000 shift 7\n"));
		free(t);
	}
	free(img);
}

/* The builder's ready-made kernels: dis then as gives the builder's bytes. */
TEST(builder_kernels_round_trip)
{
	static float gamma[512], beta[512];
	const char *names[] = { "exp", "exp1", "matmul", "matmul-bf16", "softmax", "layernorm",
				"mlp" };
	unsigned int k, i;

	for (i = 0; i < 512; i++) {
		gamma[i] = 1.0f + (float)i / 512;
		beta[i] = -0.25f * (float)i;
	}
	for (k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		struct nd_builder *b;
		size_t size;
		void *img;
		int ret;

		ASSERT_EQ(0, nd_builder_new(names[k], &b));
		switch (k) {
		case 0: ret = nd_kernel_exp(b, 250, 512, 1); break;
		case 1: ret = nd_kernel_exp(b, 250, 512, 0); break;
		case 2: ret = nd_kernel_matmul(b, 256, 256, 512, ND_FP32, ND_FP32); break;
		case 3: ret = nd_kernel_matmul(b, 256, 256, 512, ND_BF16, ND_BF16); break;
		case 4: ret = nd_kernel_softmax(b, 256, 512); break;
		case 5: ret = nd_kernel_layernorm(b, 256, 512, gamma, beta, 1e-5f); break;
		default: ret = nd_kernel_mlp(b, 256, 512, 384, ND_BF16); break;
		}
		ASSERT_EQ(0, ret) TH_LOG("%s: %s", names[k], nd_builder_error(b));
		ASSERT_EQ(0, nd_builder_finish(b, &img, &size));
		round_trip(_metadata, img, size);
		free(img);
		nd_builder_free(b);
	}
}

/* The debug table: every entry's .vasm line by default, .file/.loc/.scope when given. */
TEST(debug_table)
{
	static const char text[] =
		".tensor x input fp32 [4]\n"			/* 1 */
		".engine vector\n"				/* 2 */
		"\tnop\n"					/* 3 */
		".scope \"a/b\"\n"				/* 4 */
		"l1: nop   # comment\n"				/* 5 */
		".file \"model.py\"\n"				/* 6 */
		"\tnop\n"					/* 7: model.py:0 */
		".loc 42\n"					/* 8 */
		"\tnop\n"					/* 9: model.py:42 */
		"\tnop\n"					/* 10: model.py:42 */
		".file\n"					/* 11 */
		".scope \"\"\n"					/* 12 */
		"\tnop\n";					/* 13 */
	static const struct { const char *file; uint32_t line; const char *scope; } want[] = {
		{ "t.vasm", 3, "" }, { "t.vasm", 5, "a/b" }, { "model.py", 0, "a/b" },
		{ "model.py", 42, "a/b" }, { "model.py", 42, "a/b" }, { "t.vasm", 13, "" },
	};
	struct vn_program *p;
	size_t size;
	void *img;
	uint32_t i;

	ASSERT_EQ(0, as(text, "t.vasm", &img, &size, NULL));
	ASSERT_EQ(0, vn_program_load(img, size, &p, NULL));
	ASSERT_EQ(6, p->debug_count);
	for (i = 0; i < 6; i++) {
		EXPECT_EQ(1, p->debug[i].stream);
		EXPECT_EQ(i, p->debug[i].index);
		EXPECT_STREQ(want[i].file, vn_program_str(p, p->debug[i].file_off));
		EXPECT_EQ(want[i].line, p->debug[i].line);
		EXPECT_STREQ(want[i].scope, vn_program_str(p, p->debug[i].scope_off));
	}
	vn_program_put(p);
	round_trip(_metadata, img, size);
	free(img);
}

/* The hand-written examples compute what they say, on the host backend. */
TEST(examples_run)
{
	size_t len, size, i, j, k;
	struct nd_run_result res;
	struct nd_error err;
	char *text;
	void *img;
	float *x = malloc(250 * 512 * 4), *y = malloc(250 * 512 * 4);
	float a[128 * 128], bm[128 * 128], c[128 * 128];

	ASSERT_NE(NULL, x);
	ASSERT_NE(NULL, y);
	text = read_text("examples/vasm/exp.vasm", &len);
	ASSERT_NE(NULL, text);
	ASSERT_EQ(0, nd_asm(text, len, "exp.vasm", 0, &img, &size, NULL, NULL));
	free(text);
	for (i = 0; i < 250 * 512; i++)
		x[i] = (float)((int)(i % 97) - 48) / 16.0f;
	{
		struct nd_host_tensor t[] = { { "in", x, 250 * 512 * 4 },
					      { "out", y, 250 * 512 * 4 } };

		ASSERT_EQ(0, nd_run_on_host(img, size, t, 2, &res, &err)) TH_LOG("%s", err.msg);
	}
	for (i = 0; i < 250 * 512; i++)
		ASSERT_LE(fabs(y[i] - exp(x[i])), 4e-7 * exp(x[i])) TH_LOG("element %zu", i);
	free(img);

	text = read_text("examples/vasm/matmul.vasm", &len);
	ASSERT_NE(NULL, text);
	ASSERT_EQ(0, nd_asm(text, len, "matmul.vasm", 0, &img, &size, NULL, NULL));
	free(text);
	for (i = 0; i < 128 * 128; i++) {
		a[i] = (float)((int)(i * 7 % 13) - 6) / 8.0f;
		bm[i] = (float)((int)(i * 5 % 11) - 5) / 4.0f;
	}
	{
		struct nd_host_tensor t[] = { { "A", a, sizeof(a) }, { "B", bm, sizeof(bm) },
					      { "C", c, sizeof(c) } };

		ASSERT_EQ(0, nd_run_on_host(img, size, t, 3, &res, &err)) TH_LOG("%s", err.msg);
	}
	/* Small integers over 8 and 4: every product and sum is exact in fp32. */
	for (i = 0; i < 128; i++) {
		for (j = 0; j < 128; j++) {
			double ref = 0;

			for (k = 0; k < 128; k++)
				ref += (double)a[i * 128 + k] * bm[k * 128 + j];
			ASSERT_EQ(ref, c[i * 128 + j]) TH_LOG("C[%zu][%zu]", i, j);
		}
	}
	free(img);
	free(x);
	free(y);
}

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

/* .model: the image is checked for that model; the disassembly names the smallest it fits. */
TEST(model_directive)
{
	static const char big[] = ".program \"big\"\n.model \"trn2\"\n.engine vector\n"
				  "copy sbuf.fp32[0:128]@0x32000[64], sbuf.fp32[0:128]@0x0[64]\n";
	struct nd_asm_diag d;
	size_t size;
	void *img;
	char *text;

	/* 0x32000 + 256 bytes: past trn1's 192 KiB partition, inside trn2's 224 */
	ASSERT_EQ(0, as(big, "big.vasm", &img, &size, &d)) TH_LOG("%u:%u: %s", d.line, d.col, d.msg);
	EXPECT_EQ(-EINVAL, vn_program_check(img, size, NULL));
	EXPECT_EQ(0, vn_program_check_for(vn_model_find("trn2"), img, size, NULL));
	text = dis(img, size, NULL);
	ASSERT_NE(NULL, text);
	EXPECT_NE(NULL, strstr(text, ".model \"trn2\"\n")) TH_LOG("%s", text);
	free(text);
	round_trip(_metadata, img, size);
	free(img);

	/* without it the trn1 check refuses, at the instruction, naming trn1's figure */
	EXPECT_EQ(-EINVAL, as(big + strlen(".program \"big\"\n.model \"trn2\"\n"), "t.vasm",
			      &img, &size, &d));
	EXPECT_EQ(2u, d.line);
	EXPECT_NE(NULL, strstr(d.msg, "needs 205056 SBUF bytes a partition, trn1 has 196608"))
		TH_LOG("%s", d.msg);
	EXPECT_EQ(-EINVAL, as(".model \"trn9\"\n", "t.vasm", &img, &size, &d));
	EXPECT_NE(NULL, strstr(d.msg, "unknown model 'trn9' (trn1, trn2 or trn3)")) TH_LOG("%s", d.msg);
	EXPECT_EQ(-EINVAL, as(".model \"trn2\"\n.model \"trn3\"\n", "t.vasm", &img, &size, &d));
	EXPECT_NE(NULL, strstr(d.msg, "duplicate .model")) TH_LOG("%s", d.msg);
}

TEST_HARNESS_MAIN
