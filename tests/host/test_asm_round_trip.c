// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The assembler and disassembler (libvnprog/asm_*.c, docs/assembler.md): round trip.
 *
 * As defined there: for an image in the canonical layout (what nd_asm() and the
 * builder write), nd_asm(nd_dis(image)) gives the same bytes, debug table (source
 * files, lines, scopes) included. Tested on a program using every instruction and
 * operand form, on the examples, and on every ready-made kernel of the builder; and
 * the .model directive.
 */
#include "asm_util.h"

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
