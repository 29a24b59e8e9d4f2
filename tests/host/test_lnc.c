// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Logical cores (LNC=2) in the executor: one program as two SPMD instances on two
 * physical cores sharing HBM, each with its program id (PROGRAM_ID, DMA pid_stride);
 * their results, their modeled times, and the program ids and strides refused.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core_util.h"
#include "vn_model.h"
#include "vnprog.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "kselftest_harness.h"

#define SB	VNEF_MEM_SBUF
#define F32	VNEF_DT_FP32
#define GE	VNEURON_ENGINE_GPSIMD
#define COLS	64

/*
 * out [2 x COLS] fp32: each instance writes base + pid * step into its row, the row
 * chosen by the store's pid_stride (one row).
 */
static uint8_t *spmd_image(int32_t base, int32_t step, uint32_t pid_stride, uint64_t *size)
{
	struct vnef_dma_desc *d;
	struct vnef_instr *in;
	uint8_t *img;
	struct vb b;

	vb_init(&b);
	vb_tensor(&b, "out", VNEF_TENSOR_OUTPUT, F32, 2, COLS, NULL);
	in = vb_op(&b, GE, VNEF_OP_PROGRAM_ID);
	in->dst = vb_ap2(SB, F32, 0, 1, 0, COLS);
	in->imm[0] = (uint32_t)base;
	in->imm[1] = (uint32_t)step;
	in->signal_mask = 1;
	d = vb_store(&b, 0, 0, 0, COLS * 4, 1, COLS * 4, SB, 0, 0);
	vb_wait(&d->flags, &d->wait_sem, &d->wait_value, 0, 1);
	d->dst.pid_stride = pid_stride;
	img = vb_finish(&b, size);
	vb_free(&b);
	return img;
}

static struct vn_program *spmd_program(int32_t base, int32_t step, uint32_t pid_stride)
{
	struct vn_program *p;
	uint64_t size;
	uint8_t *img = spmd_image(base, step, pid_stride, &size);
	int r;

	r = vn_program_load(img, size, &p, NULL);
	free(img);
	return r ? NULL : p;
}

FIXTURE(lnc) {
	struct vn_core *c[2];
};

FIXTURE_SETUP(lnc)
{
	const struct vneuron_model *m = vn_model_find("trn2");

	ASSERT_NE(NULL, m);
	ASSERT_EQ(2, vn_model_gen(m)->lnc);
	ASSERT_EQ(0, vn_core_create(m, "lnc0", &self->c[0]));
	ASSERT_EQ(0, vn_core_create(m, "lnc1", &self->c[1]));
}

FIXTURE_TEARDOWN(lnc)
{
	vn_core_destroy(self->c[0]);
	vn_core_destroy(self->c[1]);
}

/* Both instances at once, one buffer: each its own row, the same modeled time. */
TEST_F(lnc, two_instances_share_hbm)
{
	struct vn_program *p = spmd_program(10, 5, COLS * 4);
	float out[2 * COLS];
	struct vn_bind bi = { out, sizeof(out) };
	struct vn_exec_status st[2];
	struct vn_exec *e[2];
	uint32_t i, j;

	ASSERT_NE(NULL, p);
	memset(out, 0xff, sizeof(out));
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, vn_exec_submit_pid(self->c[i], p, &bi, 1, 0, i, NULL, NULL, &e[i]));
	vn_program_put(p);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, vn_exec_wait(e[i], 0));
		vn_exec_status(e[i], &st[i]);
		vn_exec_put(e[i]);
		EXPECT_EQ(VN_RES_OK, st[i].result);
		EXPECT_LT(0, st[i].model_ps);
		for (j = 0; j < COLS; j++)
			EXPECT_EQ(10.0f + 5.0f * i, out[i * COLS + j]);
	}
	/* Same program, same model, no shared engine: the same modeled time. */
	EXPECT_EQ(st[0].model_ps, st[1].model_ps);
}

/* vn_exec_submit() is program id 0: the base, in row 0, row 1 untouched. */
TEST_F(lnc, plain_submit_is_pid_0)
{
	struct vn_program *p = spmd_program(-3, 100, COLS * 4);
	float out[2 * COLS];
	struct vn_bind bi = { out, sizeof(out) };
	struct vn_exec_status st;
	struct vn_exec *e;
	uint32_t j;

	ASSERT_NE(NULL, p);
	memset(out, 0, sizeof(out));
	ASSERT_EQ(0, vn_exec_submit(self->c[1], p, &bi, 1, 0, NULL, NULL, &e));
	vn_program_put(p);
	ASSERT_EQ(0, vn_exec_wait(e, 0));
	vn_exec_status(e, &st);
	vn_exec_put(e);
	EXPECT_EQ(VN_RES_OK, st.result);
	for (j = 0; j < COLS; j++) {
		EXPECT_EQ(-3.0f, out[j]);
		EXPECT_EQ(0.0f, out[COLS + j]);
	}
}

/* Attacks: a program id past the logical core, a stride the second instance overruns. */
TEST_F(lnc, refusals)
{
	struct vn_program *p = spmd_program(0, 1, COLS * 4);
	float out[2 * COLS];
	struct vn_bind bi = { out, sizeof(out) };
	struct vn_exec *e = NULL;

	ASSERT_NE(NULL, p);
	EXPECT_EQ(-EINVAL, vn_exec_submit_pid(self->c[0], p, &bi, 1, 0, 2, NULL, NULL, &e));
	EXPECT_EQ(-EINVAL, vn_exec_submit_pid(self->c[0], p, &bi, 1, 0, ~0u, NULL, NULL, &e));
	EXPECT_EQ(NULL, e);
	vn_program_put(p);
	/* Row 1 of instance 1 would end one byte past the tensor: the validator says no. */
	EXPECT_EQ(NULL, spmd_program(0, 1, COLS * 4 + 1));
	EXPECT_EQ(NULL, spmd_program(0, 1, ~0u));
}

/* The host backend (nd_host_set_lnc()): the same pair, and trn1 refused by name. */
TEST(host_backend)
{
	const struct vneuron_model *m = vn_model_find("trn2");
	float out[2 * COLS];
	struct nd_host_tensor t = { "out", out, sizeof(out) };
	struct nd_run_result one, two;
	struct nd_error err;
	struct nd_host *h;
	uint64_t size;
	uint8_t *img = spmd_image(10, 5, COLS * 4, &size);
	uint32_t j;

	ASSERT_EQ(0, nd_host_open(NULL, &h, &err));
	EXPECT_EQ(-EINVAL, nd_host_set_lnc(h, 2));
	EXPECT_NE(NULL, strstr(nd_host_error(h), "model trn1 has no logical cores"));
	nd_host_close(h);
	ASSERT_EQ(0, nd_host_open(m, &h, &err));
	EXPECT_EQ(-EINVAL, nd_host_set_lnc(h, 3));
	EXPECT_EQ(-EINVAL, nd_host_set_lnc(h, 0));
	memset(out, 0, sizeof(out));
	ASSERT_EQ(0, nd_host_run(h, img, size, &t, 1, 0, &one));
	EXPECT_EQ(0.0f, out[COLS]);
	ASSERT_EQ(0, nd_host_set_lnc(h, 2));
	ASSERT_EQ(0, nd_host_run(h, img, size, &t, 1, 0, &two));
	for (j = 0; j < COLS; j++) {
		EXPECT_EQ(10.0f, out[j]);
		EXPECT_EQ(15.0f, out[COLS + j]);
	}
	EXPECT_EQ(one.model_ps, two.model_ps);
	EXPECT_LT(0, two.model_ps);
	ASSERT_EQ(0, nd_host_set_lnc(h, 1));
	nd_host_close(h);
	free(img);
}

/*
 * nd_host_record() on a logical core keeps both instances' events, each with its
 * physical core (= program id): each ran the PROGRAM_ID and the store; LNC=1 only core 0.
 */
TEST(host_record_both_instances)
{
	const struct vneuron_model *m = vn_model_find("trn2");
	float out[2 * COLS];
	struct nd_host_tensor t = { "out", out, sizeof(out) };
	unsigned int pid[2], dma[2], lnc;
	const struct nd_event *ev;
	struct nd_run_result res;
	struct nd_error err;
	struct nd_host *h;
	uint64_t size;
	uint8_t *img = spmd_image(10, 5, COLS * 4, &size);
	size_t n, i;

	ASSERT_EQ(0, nd_host_open(m, &h, &err));
	nd_host_record(h, 1);
	for (lnc = 1; lnc <= 2; lnc++) {
		ASSERT_EQ(0, nd_host_set_lnc(h, lnc));
		ASSERT_EQ(0, nd_host_run(h, img, size, &t, 1, 0, &res))
			TH_LOG("%s", nd_host_error(h));
		ev = nd_host_events(h, &n);
		memset(pid, 0, sizeof(pid));
		memset(dma, 0, sizeof(dma));
		for (i = 0; i < n; i++) {
			ASSERT_GT(lnc, ev[i].core);
			if (ev[i].opcode == VNEF_OP_PROGRAM_ID)
				pid[ev[i].core]++;
			else if (ev[i].stream >= VNEF_STREAM_DMA(0) && ev[i].stream != VNEF_STREAM_CC)
				dma[ev[i].core]++;
			if (i)	/* ordered by start, then core */
				EXPECT_TRUE(ev[i - 1].start_ps < ev[i].start_ps ||
					    (ev[i - 1].start_ps == ev[i].start_ps &&
					     ev[i - 1].core <= ev[i].core));
		}
		EXPECT_EQ(1u, pid[0]);
		EXPECT_EQ(1u, dma[0]);
		EXPECT_EQ(lnc == 2 ? 1u : 0u, pid[1]);
		EXPECT_EQ(lnc == 2 ? 1u : 0u, dma[1]);
		EXPECT_EQ(lnc == 2 ? 4u : 2u, n);
	}
	nd_host_close(h);
	free(img);
}

/*
 * The builder's pid_stride (struct nd_hbm of nd_load / nd_store, in elements): x + 1 per
 * instance's half of the rows, on LNC=2 both halves; refused past the tensor for program
 * id 1, and on a tile endpoint of nd_dma().
 */
TEST(builder_pid_stride)
{
	const struct vneuron_model *m = vn_model_find("trn2");
	uint64_t shape[2] = { 256, COLS }, size;
	float x[256 * COLS], y[256 * COLS];
	struct nd_host_tensor t[2] = { { "x", x, sizeof(x) }, { "y", y, sizeof(y) } };
	struct nd_hbm hx = { .pstride = COLS, .fstride = 1, .pid_stride = 128 * COLS };
	struct nd_hbm hy = hx;
	struct nd_dma_xfer bad;
	struct nd_run_result res;
	struct nd_builder *b;
	struct nd_error err;
	struct nd_tile *a;
	struct nd_host *h;
	void *img;
	int i;

	for (i = 0; i < 256 * COLS; i++)
		x[i] = (float)i;
	ASSERT_EQ(0, nd_builder_new("pid", &b));
	ASSERT_EQ(0, nd_builder_set_model(b, "trn2"));
	hx.tensor = nd_input(b, "x", ND_FP32, 2, shape);
	hy.tensor = nd_output(b, "y", ND_FP32, 2, shape);
	a = nd_sbuf(b, "a", ND_FP32, 128, COLS);
	ASSERT_EQ(0, nd_load(b, ND_QUEUE_AUTO, nd_whole(a), hx));
	ASSERT_EQ(0, nd_tensor_scalar(b, ND_VECTOR, nd_whole(a), nd_whole(a), ND_ADD, 1.0f, 0));
	ASSERT_EQ(0, nd_store(b, ND_QUEUE_AUTO, hy, nd_whole(a)));
	hy.offset = 1;		/* program id 1's last row would pass the end */
	EXPECT_EQ(-ERANGE, nd_store(b, ND_QUEUE_AUTO, hy, nd_whole(a)));
	EXPECT_NE(NULL, strstr(nd_builder_error(b), "program id 1's slice"));
	memset(&bad, 0, sizeof(bad));
	bad.chunk_bytes = COLS * 4;
	bad.count[0] = bad.count[1] = 1;
	bad.src.tensor = hx.tensor;
	bad.dst.tile = a;
	bad.dst.pid_stride = 4;
	EXPECT_EQ(-EINVAL, nd_dma(b, ND_QUEUE_AUTO, &bad));
	EXPECT_NE(NULL, strstr(nd_builder_error(b), "pid_stride is for HBM"));
	nd_builder_free(b);

	/* the same program, without the refused calls */
	ASSERT_EQ(0, nd_builder_new("pid", &b));
	ASSERT_EQ(0, nd_builder_set_model(b, "trn2"));
	hx.tensor = nd_input(b, "x", ND_FP32, 2, shape);
	hy = hx;
	hy.tensor = nd_output(b, "y", ND_FP32, 2, shape);
	a = nd_sbuf(b, "a", ND_FP32, 128, COLS);
	ASSERT_EQ(0, nd_load(b, ND_QUEUE_AUTO, nd_whole(a), hx));
	ASSERT_EQ(0, nd_tensor_scalar(b, ND_VECTOR, nd_whole(a), nd_whole(a), ND_ADD, 1.0f, 0));
	ASSERT_EQ(0, nd_store(b, ND_QUEUE_AUTO, hy, nd_whole(a)));
	ASSERT_EQ(0, nd_builder_finish(b, &img, &size)) TH_LOG("%s", nd_builder_error(b));
	nd_builder_free(b);
	ASSERT_EQ(0, nd_host_open(m, &h, &err));
	ASSERT_EQ(0, nd_host_set_lnc(h, 2));
	memset(y, 0, sizeof(y));
	ASSERT_EQ(0, nd_host_run(h, img, size, t, 2, 0, &res)) TH_LOG("%s", nd_host_error(h));
	for (i = 0; i < 256 * COLS; i++)
		ASSERT_EQ(x[i] + 1.0f, y[i]) TH_LOG("element %d", i);
	nd_host_close(h);
	free(img);
}

/*
 * Count a session's records by kind, its instructions in *insn; start[] the last
 * EXEC_START's opcode (its LNC) and pc (its program id).
 */
static void drain_kinds(struct nd_host_trace *t, uint64_t kinds[16], uint64_t *insn,
			uint32_t start[2])
{
	const struct vneuron_trace_record *recs;
	struct nd_ring ring;
	unsigned int i;
	ssize_t n, k;

	for (i = 0; i < nd_host_trace_nr_rings(t); i++) {
		if (nd_host_trace_ring(t, i, &ring))
			return;
		while ((n = nd_ring_peek(&ring, &recs, 64)) > 0) {
			for (k = 0; k < n; k++) {
				kinds[recs[k].kind & 15]++;
				if (recs[k].kind == VNEURON_TRACE_INSN)
					(*insn)++;
				if (recs[k].kind == VNEURON_TRACE_EXEC_START) {
					start[0] = recs[k].opcode;
					start[1] = recs[k].pc;
				}
			}
			nd_ring_release(&ring, (size_t)n);
		}
	}
}

/*
 * A trace session of an LNC=2 host handle traces both instances: instance 1's own rings
 * (nd_host_trace_instance()), each with its execution's start and end and its events,
 * the starts saying LNC 2 and their program ids (an LNC=1 run's: zeros); LNC cannot
 * change while traced.
 */
TEST(host_trace_both_instances)
{
	const struct vneuron_model *m = vn_model_find("trn2");
	uint64_t k0[16] = { 0 }, k1[16] = { 0 }, i0 = 0, i1 = 0;
	uint32_t s0[2] = { 9, 9 }, s1[2] = { 9, 9 };
	float out[2 * COLS];
	struct nd_host_tensor t = { "out", out, sizeof(out) };
	struct nd_host_trace *tr;
	struct nd_run_result res;
	struct nd_error err;
	struct nd_host *h;
	uint64_t size;
	uint8_t *img = spmd_image(10, 5, COLS * 4, &size);

	ASSERT_EQ(0, nd_host_open(m, &h, &err));
	ASSERT_EQ(0, nd_host_trace_start(h, NULL, &tr));
	EXPECT_EQ(NULL, nd_host_trace_instance(tr, 1));		/* LNC=1: none */
	EXPECT_EQ(tr, nd_host_trace_instance(tr, 0));
	EXPECT_EQ(-EBUSY, nd_host_set_lnc(h, 2));			/* not while traced */
	ASSERT_EQ(0, nd_host_run(h, img, size, &t, 1, 0, &res)) TH_LOG("%s", nd_host_error(h));
	ASSERT_EQ(0, nd_host_trace_stop(tr));
	drain_kinds(tr, k0, &i0, s0);
	EXPECT_EQ(1, k0[VNEURON_TRACE_EXEC_START]);
	EXPECT_EQ(0, s0[0]);					/* one core's run */
	EXPECT_EQ(0, s0[1]);
	nd_host_trace_free(tr);
	memset(k0, 0, sizeof(k0));
	i0 = 0;
	ASSERT_EQ(0, nd_host_set_lnc(h, 2));
	ASSERT_EQ(0, nd_host_trace_start(h, NULL, &tr));
	ASSERT_NE(NULL, nd_host_trace_instance(tr, 1));
	EXPECT_EQ(NULL, nd_host_trace_instance(tr, 2));
	EXPECT_NE(nd_host_trace_fd(tr), nd_host_trace_fd(nd_host_trace_instance(tr, 1)));
	ASSERT_EQ(0, nd_host_run(h, img, size, &t, 1, 0, &res)) TH_LOG("%s", nd_host_error(h));
	EXPECT_EQ(15.0f, out[COLS]);
	ASSERT_EQ(0, nd_host_trace_stop(tr));			/* stops both */
	drain_kinds(tr, k0, &i0, s0);
	drain_kinds(nd_host_trace_instance(tr, 1), k1, &i1, s1);
	EXPECT_EQ(2, s0[0]);					/* LNC=2, program id 0 */
	EXPECT_EQ(0, s0[1]);
	EXPECT_EQ(2, s1[0]);					/* and 1 */
	EXPECT_EQ(1, s1[1]);
	EXPECT_EQ(1, k0[VNEURON_TRACE_EXEC_START]);
	EXPECT_EQ(1, k0[VNEURON_TRACE_EXEC_END]);
	EXPECT_EQ(1, k1[VNEURON_TRACE_EXEC_START]);
	EXPECT_EQ(1, k1[VNEURON_TRACE_EXEC_END]);
	EXPECT_EQ(1, i0);					/* PROGRAM_ID */
	EXPECT_EQ(1, i1);
	EXPECT_EQ(k0[VNEURON_TRACE_DMA], k1[VNEURON_TRACE_DMA]);
	EXPECT_LT(0, k1[VNEURON_TRACE_DMA]);
	nd_host_close(h);					/* frees both sessions */
	free(img);
}

TEST_HARNESS_MAIN
