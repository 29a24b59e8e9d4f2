// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The device models: docs/isa.md's "Device models" table read and compared, cell by
 * cell, with core/model.c's, so the documented figures (each with its source) are the
 * ones the cost model uses; the table's own consistency (peaks from clocks, device
 * figures shared by the cores); and modeled times computed by hand from the documented
 * figures for a matmul, a DMA, an activation and the performance modes on each model.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_util.h"
#include "vn_comm.h"
#include "vn_model.h"
#include "vn_isa.h"
#include "vnprog.h"

/* The 6.1 harness defines non-static helpers without prototypes. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"

enum kind { K_STR, K_GEN_STR, K_U32, K_U64, K_GEN_U32, K_GEN_U64, K_DTYPES, K_GEN_NS };

/* Every field the table documents, where its value is in the code. */
static const struct field {
	const char *name;
	enum kind kind;
	size_t off;
} fields[] = {
#define M32(f)	{ #f, K_U32, offsetof(struct vneuron_model, f) }
#define M64(f)	{ #f, K_U64, offsetof(struct vneuron_model, f) }
#define G32(f)	{ #f, K_GEN_U32, offsetof(struct vneuron_model_gen, f) }
#define G64(f)	{ #f, K_GEN_U64, offsetof(struct vneuron_model_gen, f) }
	{ "name", K_STR, offsetof(struct vneuron_model, name) },
	{ "generation", K_GEN_STR, offsetof(struct vneuron_model_gen, generation) },
	M32(tensor_rows), M32(tensor_cols), M32(tensor_khz), M32(vector_lanes),
	M32(vector_khz), M32(scalar_lanes), M32(scalar_khz), M32(gpsimd_cores),
	M32(gpsimd_khz), M32(partitions), M32(sbuf_partition_bytes),
	M32(psum_partition_bytes), M32(psum_bank_bytes), M32(dma_engines),
	{ "dma_desc_overhead_ns", K_U32, offsetof(struct vneuron_model, dma_desc_overhead_ns) },
	M64(dma_engine_bw), M64(hbm_bw), M64(hbm_modeled_bytes), M64(peak_flops_bf16),
	M64(peak_flops_fp32),
	G32(cores_per_device), G32(lnc), { "dtypes", K_DTYPES, offsetof(struct vneuron_model_gen, dtypes) },
	G32(tensor_fp32_passes), G32(tensor_fp8_rows),
	{ "perf_dtypes", K_DTYPES, offsetof(struct vneuron_model_gen, perf_dtypes) },
	G32(vector_copy_rate), G32(vector_tt_rate), G32(scalar_copy_rate), G32(cc_cores),
	{ "cc_intra_latency_ns", K_GEN_NS, offsetof(struct vneuron_model_gen, cc_intra_latency_ns) },
	{ "cc_inter_latency_ns", K_GEN_NS, offsetof(struct vneuron_model_gen, cc_inter_latency_ns) },
	G64(cc_intra_bw), G64(cc_inter_bw), G64(link_bw), G64(hbm_device_bytes),
	G64(hbm_device_bw), G64(dma_device_bw), G64(peak_flops_fp8),
};

static const struct field *field_named(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(fields); i++)
		if (!strcmp(fields[i].name, name))
			return &fields[i];
	return NULL;
}

/* "2.4 GHz" -> 2.4e6 (kHz), with the precision the text gives; false if no number */
static bool parse_quantity(const char *s, double *v, double *tol)
{
	static const struct { const char *unit; double scale; } units[] = {
		{ "GHz", 1e6 }, { "KiB", 1024.0 }, { "MiB", 1048576.0 },
		{ "GiB/s", 1073741824.0 }, { "GiB", 1073741824.0 }, { "GB/s", 1e9 },
		{ "TB/s", 1e12 }, { "TFLOP/s", 1e12 }, { "ns", 1.0 }, { "us", 1000.0 },
	};
	const char *dot;
	char *end;
	double scale = 1.0;
	int decimals = 0;
	size_t i;

	*v = strtod(s, &end);
	if (end == s)
		return false;
	dot = memchr(s, '.', (size_t)(end - s));
	if (dot)
		decimals = (int)(end - dot - 1);
	while (*end == ' ')
		end++;
	for (i = 0; *end && i < ARRAY_SIZE(units); i++)
		if (!strcmp(end, units[i].unit)) {
			scale = units[i].scale;
			break;
		}
	if (*end && i == ARRAY_SIZE(units))
		return false;
	*v *= scale;
	*tol = decimals ? 0.5 * pow(10, -decimals) * scale : 0.0;
	return true;
}

static u32 dtype_mask(const char *s)
{
	char buf[128], *tok, *save;
	u32 mask = 0;
	int d;

	if (!strcmp(s, "-"))
		return 0;
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		d = vn_dtype_by_name(tok);
		if (d <= 0)
			return ~0u;
		mask |= 1u << d;
	}
	return mask;
}

/* Trim a markdown cell in place. */
static char *trim(char *s)
{
	char *e;

	while (*s == ' ')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\n'))
		*--e = 0;
	return s;
}

/* Whether the cell matches the model's field; a message in why if not. */
static bool cell_ok(const struct field *f, const struct vneuron_model *m, const char *cell,
		    char *why, size_t n)
{
	const struct vneuron_model_gen *g = vn_model_gen(m);
	const void *base = f->kind == K_STR || f->kind == K_U32 || f->kind == K_U64 ?
			   (const void *)m : (const void *)g;
	const char *p = (const char *)base + f->off;
	double want = 0, v, tol;
	u32 mask;

	switch (f->kind) {
	case K_STR:
	case K_GEN_STR:
		snprintf(why, n, "'%s' vs '%s'", cell, p);
		return !strcmp(cell, p);
	case K_DTYPES:
		mask = dtype_mask(cell);
		snprintf(why, n, "'%s' is mask 0x%x, code 0x%x", cell, mask, *(const u32 *)p);
		return mask == *(const u32 *)p;
	case K_U32:
	case K_GEN_U32:
	case K_GEN_NS:
		want = *(const u32 *)p;
		break;
	case K_U64:
	case K_GEN_U64:
		want = (double)*(const u64 *)p;
		break;
	}
	if (!parse_quantity(cell, &v, &tol)) {
		snprintf(why, n, "'%s' is not a quantity", cell);
		return false;
	}
	/* kHz fields are written in GHz: the unit scale already gives kHz */
	snprintf(why, n, "'%s' = %.6g, code %.6g", cell, v, want);
	return fabs(v - want) <= tol + 1e-9 * want;
}

TEST(docs_table_matches_the_code)
{
	FILE *f = fopen("docs/isa.md", "r");
	char line[2048], why[160];
	bool in = false, seen[ARRAY_SIZE(fields)] = { false };
	unsigned int rows = 0, bad = 0, i;

	ASSERT_NE(NULL, f) TH_LOG("run from the top of the tree");
	ASSERT_EQ(3u, vn_model_count());
	while (fgets(line, sizeof(line), f)) {
		char *cell[6], *s = line, *bar;
		const struct field *fd;
		unsigned int nc = 0;

		if (!strncmp(line, "## ", 3))
			in = !strncmp(line, "## Device models", 16);
		if (!in || strncmp(line, "| `", 3))
			continue;
		/* | `field` | trn1 | trn2 | trn3 | source | */
		s++;
		while (nc < 6 && (bar = strchr(s, '|'))) {
			*bar = 0;
			cell[nc++] = trim(s);
			s = bar + 1;
		}
		ASSERT_LE(5u, nc) TH_LOG("short row: %s", line);
		cell[0][strlen(cell[0]) - 1] = 0;
		fd = field_named(cell[0] + 1);
		if (!fd) {
			TH_LOG("docs/isa.md documents '%s', which the model has not", cell[0] + 1);
			bad++;
			continue;
		}
		seen[fd - fields] = true;
		rows++;
		for (i = 0; i < 3; i++)
			if (!cell_ok(fd, vn_model_at(i), cell[1 + i], why, sizeof(why))) {
				TH_LOG("%s on %s: %s", fd->name, vn_model_at(i)->name, why);
				bad++;
			}
	}
	fclose(f);
	for (i = 0; i < ARRAY_SIZE(fields); i++)
		if (!seen[i]) {
			TH_LOG("docs/isa.md's table lacks '%s'", fields[i].name);
			bad++;
		}
	EXPECT_EQ(ARRAY_SIZE(fields), rows);
	EXPECT_EQ(0u, bad);
}

/* Peaks follow from the clocks, device figures are shared by the cores, names resolve. */
TEST(table_is_consistent)
{
	u32 i;

	for (i = 0; i < vn_model_count(); i++) {
		const struct vneuron_model *m = vn_model_at(i);
		const struct vneuron_model_gen *g = vn_model_gen(m);
		u64 pe = 2ull * m->tensor_rows * m->tensor_cols * m->tensor_khz * 1000;

		EXPECT_EQ(m, vn_model_find(m->name));
		EXPECT_EQ(pe, m->peak_flops_bf16) TH_LOG("%s", m->name);
		EXPECT_EQ(pe / g->tensor_fp32_passes, m->peak_flops_fp32) TH_LOG("%s", m->name);
		EXPECT_EQ(pe * g->tensor_fp8_rows, g->peak_flops_fp8) TH_LOG("%s", m->name);
		EXPECT_EQ(g->hbm_device_bw / g->cores_per_device, m->hbm_bw) TH_LOG("%s", m->name);
		EXPECT_EQ(g->hbm_device_bytes / g->cores_per_device, m->hbm_modeled_bytes);
		EXPECT_EQ((u64)m->partitions * m->psum_partition_bytes, 2ull << 20);
		EXPECT_TRUE(vn_model_has_dtype(m, VNEF_DT_FP32));
		EXPECT_TRUE(vn_model_has_dtype(m, VNEF_DT_FP8_E5M2));
		EXPECT_LE(m->sbuf_partition_bytes, VNEF_SBUF_PART_BYTES_MAX);
		EXPECT_EQ(m->sbuf_partition_bytes, vn_model_part_bytes(m, VNEF_MEM_SBUF));
	}
	EXPECT_EQ(VNEF_SBUF_PART_BYTES, vn_model_trn1.sbuf_partition_bytes);
	EXPECT_FALSE(vn_model_has_dtype(&vn_model_trn2, VNEF_DT_FP8_E4M3FN));
	EXPECT_TRUE(vn_model_has_dtype(&vn_model_trn3, VNEF_DT_FP8_E4M3FN));
	/* an unknown name (a profile from elsewhere) reads as trn1's generation */
	EXPECT_STREQ("NeuronCore-v2", vn_model_gen(NULL)->generation);
	EXPECT_EQ(NULL, vn_model_at(3));
}

/*
 * Modeled times by hand. Each program is one stream's work, so the execution's duration
 * is that work's cost: cycles * 10^9 / kHz picoseconds, each instruction rounded down.
 */
enum timed { T_MATMUL, T_MATMUL_FP32, T_DMA, T_ACT, T_COPY_BF16, T_COPY_PSUM, T_TT_BF16,
	     T_COPY_FP8, T_COUNT };

static const char *const timed_name[T_COUNT] = {
	"bf16 matmul 128x128x512", "fp32 matmul", "DMA 128 x 2 KiB", "exp [128 x 512]",
	"VectorE bf16 copy", "VectorE bf16 copy from PSUM", "VectorE bf16 add",
	"VectorE fp8 copy",
};

static const uint64_t want_ps[3][T_COUNT] = {
	/*
	 * trn1: LS 128 + MM 512 cycles at 2.8 GHz: 45714 + 182857; fp32: x4 each;
	 * DMA: 64 ns + 262144 B / (27 GiB/s = 28991 B/us); exp: 64 + 512 cycles at 1.4 GHz;
	 * copy: 64 + 512 at 1.12 GHz (no performance mode), add 64 + 2 x 512
	 */
	{ 228571, 182857 + 731428, 64000 + 9042254, 411428, 514285, 514285, 971428, 514285 },
	/*
	 * trn2: 53333 + 213333 at 2.4 GHz; DMA at 3.5 TB/s / 128 = 27343 B/us; exp 576
	 * cycles at 1.2 GHz; VectorE at 0.96 GHz: bf16 copy 64 + 512 / 4, from PSUM
	 * 64 + 512 / 2, add 64 + 1024 / 2; fp8 is not in trn2's performance mode: 576
	 */
	{ 266666, 213333 + 853333, 64000 + 9587243, 480000, 200000, 333333, 600000, 600000 },
	/* trn3: as trn2, DMA at 4.9 TB/s / 128 = 38281 B/us, VectorE 1.2 GHz, fp8 4x */
	{ 266666, 213333 + 853333, 64000 + 6847887, 480000, 160000, 266666, 480000, 160000 },
};

static void timed_program(struct vb *b, enum timed t)
{
	struct vnef_instr *in;
	uint32_t dt = t == T_MATMUL_FP32 ? VNEF_DT_FP32 : VNEF_DT_BF16;

	vb_init(b);
	b->name_off = vb_str(b, timed_name[t]);
	switch (t) {
	case T_MATMUL:
	case T_MATMUL_FP32:
		in = vb_op(b, VNEURON_ENGINE_TENSOR, VNEF_OP_LOAD_STATIONARY);
		in->src0 = vb_ap2(VNEF_MEM_SBUF, dt, 0, 128, 0, 128);
		in = vb_op(b, VNEURON_ENGINE_TENSOR, VNEF_OP_MULTIPLY_MOVING);
		in->src0 = vb_ap2(VNEF_MEM_SBUF, dt, 0, 128, 4096, 512);
		in->dst = vb_ap2(VNEF_MEM_PSUM, VNEF_DT_FP32, 0, 128, 0, 512);
		break;
	case T_DMA:
		vb_tensor(b, "x", VNEF_TENSOR_INPUT, VNEF_DT_FP32, 128, 512, NULL);
		vb_load(b, 0, 0, 0, 2048, 128, 2048, VNEF_MEM_SBUF, 0, 0);
		break;
	case T_ACT:
		in = vb_op(b, VNEURON_ENGINE_SCALAR, VNEF_OP_ACTIVATE);
		in->op = VNEF_ACT_EXP;
		in->imm[0] = 0x3f800000u;	/* scale 1 */
		in->src0 = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 128, 0, 512);
		in->dst = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 128, 4096, 512);
		break;
	case T_COPY_BF16:
	case T_COPY_PSUM:
	case T_COPY_FP8:
		dt = t == T_COPY_FP8 ? VNEF_DT_FP8_E5M2 : VNEF_DT_BF16;
		in = vb_op(b, VNEURON_ENGINE_VECTOR, VNEF_OP_COPY);
		in->src0 = vb_ap2(t == T_COPY_PSUM ? VNEF_MEM_PSUM : VNEF_MEM_SBUF, dt, 0, 128, 0,
				  512);
		in->dst = vb_ap2(VNEF_MEM_SBUF, dt, 0, 128, 4096, 512);
		break;
	case T_TT_BF16:
		in = vb_op(b, VNEURON_ENGINE_VECTOR, VNEF_OP_TENSOR_TENSOR);
		in->op = VNEF_ALU_ADD;
		in->src0 = vb_ap2(VNEF_MEM_SBUF, dt, 0, 128, 0, 512);
		in->src1 = vb_ap2(VNEF_MEM_SBUF, dt, 0, 128, 2048, 512);
		in->dst = vb_ap2(VNEF_MEM_SBUF, dt, 0, 128, 4096, 512);
		break;
	default:
		break;
	}
}

TEST(modeled_times_by_hand)
{
	static float x[128 * 512];
	struct vn_bind bind = { x, sizeof(x) };
	struct vn_exec_status st;
	struct vn_program *p;
	struct vn_core *c;
	uint32_t i, t;
	struct vb b;

	for (i = 0; i < vn_model_count(); i++) {
		const struct vneuron_model *m = vn_model_at(i);

		ASSERT_EQ(0, vn_core_create(m, m->name, &c));
		for (t = 0; t < T_COUNT; t++) {
			timed_program(&b, t);
			ASSERT_EQ(0, load_vb_for(m, &b, &p))
				TH_LOG("%s on %s", timed_name[t], m->name);
			ASSERT_EQ(0, run_prog(c, p, &bind, t == T_DMA, &st));
			vn_program_put(p);
			EXPECT_EQ((uint32_t)VN_RES_OK, st.result);
			EXPECT_EQ(want_ps[i][t], st.model_ps)
				TH_LOG("%s on %s", timed_name[t], m->name);
		}
		vn_core_destroy(c);
	}
}

/*
 * The collective links come from the model's figures: trn1's are the links core/comm.c
 * always had (a NULL model is trn1), and each model's are its cc_* figures.
 */
TEST(cc_links_per_model)
{
	struct vn_cc_link intra, inter;
	u32 i;

	vn_cc_links_of(NULL, &intra, &inter);
	EXPECT_EQ(vn_cc_intra_device.bytes_per_s, intra.bytes_per_s);
	EXPECT_EQ(vn_cc_intra_device.latency_ps, intra.latency_ps);
	EXPECT_EQ(vn_cc_inter_device.bytes_per_s, inter.bytes_per_s);
	EXPECT_EQ(vn_cc_inter_device.latency_ps, inter.latency_ps);
	for (i = 0; i < vn_model_count(); i++) {
		const struct vneuron_model_gen *g = vn_model_gen(vn_model_at(i));

		vn_cc_links_of(vn_model_at(i), &intra, &inter);
		EXPECT_EQ(g->cc_intra_bw, intra.bytes_per_s);
		EXPECT_EQ((u64)g->cc_intra_latency_ns * 1000, intra.latency_ps);
		EXPECT_EQ(g->cc_inter_bw, inter.bytes_per_s);
		EXPECT_EQ((u64)g->cc_inter_latency_ns * 1000, inter.latency_ps);
	}
}

/* nd_model_lookup(): every model by its name; anything else refused naming the valid. */
TEST(model_lookup)
{
	static const char *const bad[] = { "", "trn", "trn4", "TRN1", "trn1 ", "trn10", NULL };
	const struct vneuron_model *m = &vn_model_trn1;
	struct nd_error err = { 0 };
	char names[64];
	u32 i;

	nd_model_names(names, sizeof(names));
	EXPECT_STREQ("trn1, trn2, trn3", names);
	for (i = 0; i < vn_model_count(); i++) {
		ASSERT_EQ(0, nd_model_lookup(vn_model_at(i)->name, &m, &err));
		EXPECT_EQ(vn_model_at(i), m);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&err, 0, sizeof(err));
		EXPECT_EQ(-EINVAL, nd_model_lookup(bad[i], &m, &err));
		EXPECT_EQ(NULL, m);
		EXPECT_NE(NULL, strstr(err.msg, "(the models are trn1, trn2, trn3)"))
			TH_LOG("%s", err.msg);
	}
	/* a small buffer is cut, never overrun */
	nd_model_names(names, 7);
	EXPECT_STREQ("trn1, ", names);
}

/* The model tools load a program on only to read it takes every program another takes. */
TEST(widest_model_covers_the_others)
{
	const struct vneuron_model *w = nd_model_widest();
	u32 i, mem, dt;

	ASSERT_NE(NULL, w);
	EXPECT_STREQ("trn3", w->name);
	for (i = 0; i < vn_model_count(); i++) {
		const struct vneuron_model *m = vn_model_at(i);

		for (mem = VNEF_MEM_SBUF; mem <= VNEF_MEM_PSUM; mem++)
			EXPECT_LE(vn_model_part_bytes(m, mem), vn_model_part_bytes(w, mem));
		for (dt = 0; dt < VNEF_DT_COUNT; dt++)
			EXPECT_TRUE(!vn_model_has_dtype(m, dt) || vn_model_has_dtype(w, dt))
				TH_LOG("%s has dtype %u, %s lacks it", m->name, dt, w->name);
		EXPECT_LE(m->partitions, w->partitions);
		EXPECT_LE(m->hbm_modeled_bytes, w->hbm_modeled_bytes);
	}
}

TEST_HARNESS_MAIN
