// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Collectives on the host backend (nd_host_comm_*, nd_host_set_comm()): 4 ranks, 2
 * devices of 2 cores, each rank a host handle in its own thread running the same
 * builder-made program. Results are compared bit for bit with C references that reduce
 * in rank order in fp32, as docs/isa.md promises; the modeled timeline is the same on
 * every rank. Failures: an unbound handle, ranks that disagree, a rank that fails. The
 * profiler's replays (profiler/replay.c) carry the collective stream and run it on ranks.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vnprog.h"
#include "vn_model.h"
#include "cc_ref.h"
#include "../../profiler/format/prog.h"
#include "../../profiler/analysis/replay.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmisleading-indentation"
#include "kselftest_harness.h"

#define NR	4
#define ROWS	128
#define COLS	64
#define N	(ROWS * COLS)

static const uint32_t devices[NR] = { 0, 0, 1, 1 };

/* One rank's run: its handle, its tensors, what it got. */
struct rank {
	struct nd_host *h;
	const void *img;
	size_t size;
	struct nd_host_tensor t[4];
	unsigned int nt;
	int record;
	int ret;
	struct nd_run_result res;
	char msg[256];
	const struct nd_event *ev;
	size_t nev;
};

static void *rank_main(void *arg)
{
	struct rank *r = arg;

	nd_host_record(r->h, r->record);
	r->ret = nd_host_run(r->h, r->img, r->size, r->t, r->nt, 20ull * 1000000000ull, &r->res);
	snprintf(r->msg, sizeof(r->msg), "%s", nd_host_error(r->h));
	r->ev = nd_host_events(r->h, &r->nev);
	return NULL;
}

/* Every rank in its own thread, each handle bound to its rank of c. */
static int run_ranks(struct nd_host_comm *c, struct rank *r, unsigned int n)
{
	pthread_t th[NR];
	unsigned int i;

	for (i = 0; i < n; i++)
		if (nd_host_set_comm(r[i].h, c, i))
			return -1;
	for (i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, rank_main, &r[i]))
			return -1;
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	return 0;
}

/* Values of every magnitude, so that the order of additions shows in the bits. */
static uint16_t *to_bf16(const float *x, size_t n)
{
	uint16_t *h = malloc(n * sizeof(*h));
	size_t i;

	for (i = 0; h && i < n; i++)
		h[i] = nd_fp32_to_bf16(x[i]);
	return h;
}

static void *finish(struct nd_builder *b, size_t *size)
{
	void *img = NULL;

	if (nd_builder_finish(b, &img, size))
		fprintf(stderr, "# finish: %s\n", nd_builder_error(b));
	nd_builder_free(b);
	return img;
}

FIXTURE(cc)
{
	struct nd_host_comm *c;
	struct rank r[NR];
};

FIXTURE_SETUP(cc)
{
	struct nd_error err;
	unsigned int i;

	memset(self->r, 0, sizeof(self->r));
	ASSERT_EQ(0, nd_host_comm_new(NR, devices, &self->c));
	EXPECT_EQ(NR, nd_host_comm_size(self->c));
	for (i = 0; i < NR; i++)
		ASSERT_EQ(0, nd_host_open(NULL, &self->r[i].h, &err)) TH_LOG("%s", err.msg);
}

FIXTURE_TEARDOWN(cc)
{
	unsigned int i;

	for (i = 0; i < NR; i++)
		nd_host_close(self->r[i].h);
	nd_host_comm_free(self->c);
}

/*
 * load, compute, all_reduce on HBM, store: y = (sum over ranks of x_r * 2) + 1, the sum in
 * rank order in fp32. Every rank ends at the same modeled time; the events show the
 * collective with its group.
 */
TEST_F(cc, all_reduce_pipeline)
{
	static const uint64_t shape[] = { ROWS, COLS };
	float *x[NR], *y[NR], *ref;
	const struct cc_ref_in twice = { (const float *const *)x, 2.0f };
	struct nd_builder *b;
	unsigned int i, k, ncc = 0;
	size_t size, e;
	void *img;

	ASSERT_EQ(0, nd_builder_new("allreduce", &b));
	{
		struct nd_tensor *tx = nd_input(b, "x", ND_FP32, 2, shape);
		struct nd_tensor *ts = nd_scratch(b, "s", ND_FP32, 2, shape);
		struct nd_tensor *ty = nd_output(b, "y", ND_FP32, 2, shape);
		struct nd_tile *t = nd_sbuf(b, "t", ND_FP32, ROWS, COLS);
		struct nd_tile *u = nd_sbuf(b, "u", ND_FP32, ROWS, COLS);

		nd_load(b, 0, nd_whole(t), nd_hbm_rows(tx, 0, 0));
		nd_tensor_scalar(b, ND_VECTOR, nd_whole(t), nd_whole(t), ND_MUL, 2.0f, 0);
		nd_store(b, 1, nd_hbm_rows(ts, 0, 0), nd_whole(t));
		nd_all_reduce(b, ts, ts, N, ND_ADD);
		nd_load(b, 2, nd_whole(u), nd_hbm_rows(ts, 0, 0));
		nd_tensor_scalar(b, ND_GPSIMD, nd_whole(u), nd_whole(u), ND_ADD, 1.0f, 0);
		nd_store(b, 3, nd_hbm_rows(ty, 0, 0), nd_whole(u));
	}
	img = finish(b, &size);
	ASSERT_NE(NULL, img);
	ref = calloc(N, sizeof(float));
	for (i = 0; i < NR; i++) {
		x[i] = malloc(N * sizeof(float));
		y[i] = calloc(N, sizeof(float));
		cc_fill(x[i], N, i + 1);
		self->r[i] = (struct rank){ .h = self->r[i].h, .img = img, .size = size, .nt = 2,
					    .record = 1 };
		self->r[i].t[0] = (struct nd_host_tensor){ "x", x[i], N * sizeof(float) };
		self->r[i].t[1] = (struct nd_host_tensor){ "y", y[i], N * sizeof(float) };
	}
	for (e = 0; e < N; e++)
		ref[e] = cc_ref_reduce(&twice, VN_CC_SUM, NR, e) + 1.0f;
	ASSERT_EQ(0, run_ranks(self->c, self->r, NR));
	for (i = 0; i < NR; i++) {
		EXPECT_EQ(0, self->r[i].ret) TH_LOG("rank %u: %s", i, self->r[i].msg);
		EXPECT_EQ(0, memcmp(ref, y[i], N * sizeof(float))) TH_LOG("rank %u", i);
		EXPECT_EQ(self->r[0].res.model_ps, self->r[i].res.model_ps);
		for (k = 0; k < self->r[i].nev; k++) {
			const struct nd_event *ev = &self->r[i].ev[k];

			if (ev->stream != VNEF_STREAM_CC)
				continue;
			ncc++;
			EXPECT_EQ(VNEF_CC_ALL_REDUCE, ev->opcode);
			EXPECT_EQ(i, ev->cc_rank);
			EXPECT_EQ(NR, ev->cc_members);
			EXPECT_LT(ev->cc_last, NR);
			EXPECT_LE(ev->cc_latest_ps, ev->end_ps);
			/*
			 * the ring 0-1-2-3 crosses devices: 6 steps of N * 4 / 4 bytes on the
			 * inter-device link, 2 us + 8192 B / 192 GB/s each (docs/isa.md)
			 */
			EXPECT_EQ(6ull * (2000000 + 8192ull * 1000000 / 192000),
				  ev->end_ps - ev->cc_latest_ps);
		}
	}
	EXPECT_EQ(NR, ncc);
	EXPECT_EQ(0, nd_host_comm_broken(self->c));
	/* the same program again on the same communicator: the same results */
	for (i = 0; i < NR; i++)
		memset(y[i], 0, N * sizeof(float));
	ASSERT_EQ(0, run_ranks(self->c, self->r, NR));
	for (i = 0; i < NR; i++) {
		EXPECT_EQ(0, self->r[i].ret) TH_LOG("rank %u: %s", i, self->r[i].msg);
		EXPECT_EQ(0, memcmp(ref, y[i], N * sizeof(float))) TH_LOG("rank %u", i);
	}
	for (i = 0; i < NR; i++) {
		free(x[i]);
		free(y[i]);
	}
	free(ref);
	free(img);
}

/* One collective from input x straight to output y, fp32. */
static void *one_collective(uint32_t opcode, uint64_t count, uint64_t in_elems,
			    uint64_t out_elems, enum nd_alu op, uint32_t shift, size_t *size)
{
	struct nd_builder *b;
	struct nd_tensor *x, *y;

	if (nd_builder_new("one", &b))
		return NULL;
	x = nd_input(b, "x", ND_FP32, 1, (uint64_t[]){ in_elems });
	y = nd_output(b, "y", ND_FP32, 1, (uint64_t[]){ out_elems });
	nd_collective(b, &(struct nd_cc){ .opcode = opcode, .src = x, .dst = y, .count = count,
					  .reduce = op, .shift = shift });
	return finish(b, size);
}

/* Runs img on every rank with x[i] (in_elems) and y[i] (out_elems, zeroed). */
static void run_one(struct __test_metadata *_metadata, FIXTURE_DATA(cc) *self, const void *img,
		    size_t size, float **x, float **y, uint64_t in_elems, uint64_t out_elems)
{
	unsigned int i;

	for (i = 0; i < NR; i++) {
		memset(y[i], 0, out_elems * sizeof(float));
		self->r[i] = (struct rank){ .h = self->r[i].h, .img = img, .size = size, .nt = 2 };
		self->r[i].t[0] = (struct nd_host_tensor){ "x", x[i], in_elems * sizeof(float) };
		self->r[i].t[1] = (struct nd_host_tensor){ "y", y[i], out_elems * sizeof(float) };
	}
	ASSERT_EQ(0, run_ranks(self->c, self->r, NR));
	for (i = 0; i < NR; i++)
		EXPECT_EQ(0, self->r[i].ret) TH_LOG("rank %u: %s", i, self->r[i].msg);
}

/* all_gather, reduce_scatter (add and max), all_to_all and permute over every rank. */
TEST_F(cc, every_collective)
{
	const uint64_t c = 1000;
	float *x[NR], *y[NR], *ref = malloc(NR * c * sizeof(float));
	const struct cc_ref_in xin = { (const float *const *)x, 0 };
	unsigned int i, j;
	size_t size;
	void *img;

	for (i = 0; i < NR; i++) {
		x[i] = malloc(NR * c * sizeof(float));
		y[i] = malloc(NR * c * sizeof(float));
		cc_fill(x[i], NR * c, 10 + i);
	}
	/* all_gather: rank j's x at j * c of every y */
	img = one_collective(VNEF_CC_ALL_GATHER, c, c, NR * c, ND_ADD, 0, &size);
	ASSERT_NE(NULL, img);
	run_one(_metadata, self, img, size, x, y, c, NR * c);
	for (i = 0; i < NR; i++) {
		cc_ref_out(ref, NR * c, &xin, VN_CC_ALL_GATHER, 0, NR, i, 0, c);
		EXPECT_EQ(0, memcmp(ref, y[i], NR * c * sizeof(float))) TH_LOG("gather rank %u", i);
	}
	free(img);

	/* reduce_scatter: chunk i of the sum (or max) over ranks, in rank order */
	for (j = 0; j < 2; j++) {
		img = one_collective(VNEF_CC_REDUCE_SCATTER, c, NR * c, c, j ? ND_MAX : ND_ADD, 0,
				     &size);
		ASSERT_NE(NULL, img);
		run_one(_metadata, self, img, size, x, y, NR * c, c);
		for (i = 0; i < NR; i++) {
			cc_ref_out(ref, c, &xin, VN_CC_REDUCE_SCATTER, j ? VN_CC_MAX : VN_CC_SUM, NR,
				   i, 0, c);
			EXPECT_EQ(0, memcmp(ref, y[i], c * sizeof(float)))
				TH_LOG("scatter %s rank %u", j ? "max" : "add", i);
		}
		free(img);
	}

	/* all_to_all: chunk j of rank i's y is chunk i of rank j's x */
	img = one_collective(VNEF_CC_ALL_TO_ALL, c, NR * c, NR * c, ND_ADD, 0, &size);
	ASSERT_NE(NULL, img);
	run_one(_metadata, self, img, size, x, y, NR * c, NR * c);
	for (i = 0; i < NR; i++) {
		cc_ref_out(ref, NR * c, &xin, VN_CC_ALL_TO_ALL, 0, NR, i, 0, c);
		EXPECT_EQ(0, memcmp(ref, y[i], NR * c * sizeof(float))) TH_LOG("a2a rank %u", i);
	}
	free(img);

	/* permute by 1 and by 3: rank i receives rank (i - shift) mod 4's x */
	for (j = 1; j < 4; j += 2) {
		img = one_collective(VNEF_CC_PERMUTE, c, c, c, ND_ADD, j, &size);
		ASSERT_NE(NULL, img);
		run_one(_metadata, self, img, size, x, y, c, c);
		for (i = 0; i < NR; i++) {
			cc_ref_out(ref, c, &xin, VN_CC_PERMUTE, 0, NR, i, j, c);
			EXPECT_EQ(0, memcmp(ref, y[i], c * sizeof(float)))
				TH_LOG("permute %u rank %u", j, i);
		}
		free(img);
	}
	EXPECT_EQ(0, nd_host_comm_broken(self->c));
	for (i = 0; i < NR; i++) {
		free(x[i]);
		free(y[i]);
	}
	free(ref);
}

/*
 * Replica groups and bf16: an all_reduce max within {0, 2} and {1, 3} (group 2 stride
 * 2), then an all_gather of the result within the same groups; bf16 in and out, max
 * exact. With second_spec, the all_gather is within {0, 1} and {2, 3} (group 2 stride
 * 1) instead: ranks then reach the second collective while others are still in the
 * first, under another group spec with the same lowest member.
 */
static void groups_bf16(struct __test_metadata *_metadata, FIXTURE_DATA(cc) *self,
			int second_spec, unsigned int runs)
{
	const uint64_t c = 512;
	uint16_t *x[NR], *y[NR], *g[NR];
	float tmp[NR * 512];
	struct nd_builder *b;
	unsigned int i, j, run;
	size_t size;
	uint64_t e;
	void *img;

	ASSERT_EQ(0, nd_builder_new("groups", &b));
	{
		struct nd_tensor *tx = nd_input(b, "x", ND_BF16, 1, (uint64_t[]){ c });
		struct nd_tensor *ty = nd_output(b, "y", ND_BF16, 1, (uint64_t[]){ c });
		struct nd_tensor *tg = nd_output(b, "g", ND_BF16, 1, (uint64_t[]){ 2 * c });

		nd_collective(b, &(struct nd_cc){ .opcode = VNEF_CC_ALL_REDUCE, .src = tx,
						  .dst = ty, .count = c, .reduce = ND_MAX,
						  .group_size = 2, .group_stride = 2 });
		nd_collective(b, &(struct nd_cc){ .opcode = VNEF_CC_ALL_GATHER, .src = ty,
						  .dst = tg, .count = c, .group_size = 2,
						  .group_stride = second_spec ? 1 : 2 });
	}
	img = finish(b, &size);
	ASSERT_NE(NULL, img);
	for (i = 0; i < NR; i++) {
		cc_fill(tmp, c, 20 + i);
		x[i] = to_bf16(tmp, c);
		y[i] = calloc(c, 2);
		g[i] = calloc(2 * c, 2);
		self->r[i] = (struct rank){ .h = self->r[i].h, .img = img, .size = size, .nt = 3 };
		self->r[i].t[0] = (struct nd_host_tensor){ "x", x[i], c * 2 };
		self->r[i].t[1] = (struct nd_host_tensor){ "y", y[i], c * 2 };
		self->r[i].t[2] = (struct nd_host_tensor){ "g", g[i], 2 * c * 2 };
	}
	for (run = 0; run < runs; run++) {
		ASSERT_EQ(0, run_ranks(self->c, self->r, NR));
		for (i = 0; i < NR; i++) {
			uint16_t ref[512];
			/* the all_gather's group: {i % 2, i % 2 + 2}, or {i & ~1, i | 1} */
			unsigned int m0 = second_spec ? i / 2 * 2 : i % 2, step = second_spec ? 1 : 2;

			ASSERT_EQ(0, self->r[i].ret) TH_LOG("run %u rank %u: %s", run, i,
							    self->r[i].msg);
			/* {0, 2} and {1, 3}: the max of mine and the one two ranks away */
			for (e = 0; e < c; e++) {
				float a = nd_bf16_to_fp32(x[i % 2][e]);
				float o = nd_bf16_to_fp32(x[i % 2 + 2][e]);

				ref[e] = nd_fp32_to_bf16(o > a ? o : a);
			}
			EXPECT_EQ(0, memcmp(ref, y[i], c * 2)) TH_LOG("max rank %u", i);
			for (j = 0; j < 2; j++)
				EXPECT_EQ(0, memcmp(y[m0 + j * step], g[i] + j * c, c * 2))
					TH_LOG("gather rank %u part %u", i, j);
		}
	}
	for (i = 0; i < NR; i++) {
		free(x[i]);
		free(y[i]);
		free(g[i]);
	}
	free(img);
}

TEST_F(cc, groups_bf16)
{
	groups_bf16(_metadata, self, 0, 1);
}

/*
 * Two group specs whose groups share their lowest member, {0, 2} then {0, 1}: a rank
 * done with the first may reach the second while its lowest member is still in the
 * first. The SPMD program is correct, so every run must succeed (20 runs: the timing
 * varies).
 */
TEST_F(cc, group_specs_in_flight)
{
	groups_bf16(_metadata, self, 1, 20);
}

/* A program with collectives on an unbound handle is refused; binding checks the rank. */
TEST_F(cc, unbound_and_bad_rank)
{
	float x[4] = { 1, 2, 3, 4 }, y[4];
	struct nd_host_tensor t[] = { { "x", x, sizeof(x) }, { "y", y, sizeof(y) } };
	struct nd_run_result res;
	struct nd_host_comm *c1;
	size_t size;
	void *img;

	img = one_collective(VNEF_CC_ALL_REDUCE, 4, 4, 4, ND_ADD, 0, &size);
	ASSERT_NE(NULL, img);
	EXPECT_EQ(-ENOTCONN, nd_host_run(self->r[0].h, img, size, t, 2, 0, &res));
	EXPECT_STREQ("the program has collectives: bind the host to a rank of a communicator "
		     "first (nd_host_set_comm())", nd_host_error(self->r[0].h));
	EXPECT_EQ(-EINVAL, nd_host_set_comm(self->r[0].h, self->c, NR));
	EXPECT_STREQ("rank 4 of a communicator of 4 ranks", nd_host_error(self->r[0].h));
	EXPECT_EQ(-EINVAL, nd_host_set_comm(NULL, self->c, 0));
	EXPECT_EQ(-EINVAL, nd_host_comm_new(0, NULL, &c1));
	EXPECT_EQ(NULL, c1);
	EXPECT_EQ(-EINVAL, nd_host_comm_new(65, NULL, &c1));
	/* one rank alone: the collective is a copy, at no modeled cost */
	ASSERT_EQ(0, nd_host_comm_new(1, NULL, &c1));
	ASSERT_EQ(0, nd_host_set_comm(self->r[0].h, c1, 0));
	nd_host_comm_free(c1);		/* the handle keeps its reference */
	EXPECT_EQ(0, nd_host_run(self->r[0].h, img, size, t, 2, 0, &res))
		TH_LOG("%s", nd_host_error(self->r[0].h));
	EXPECT_EQ(0, memcmp(x, y, sizeof(x)));
	EXPECT_EQ(0, nd_host_set_comm(self->r[0].h, NULL, 0));
	EXPECT_EQ(-ENOTCONN, nd_host_run(self->r[0].h, img, size, t, 2, 0, &res));
	nd_host_comm_free(NULL);
	free(img);
}

/*
 * Ranks that disagree (one counts 8 elements, the others 4) all fail and the
 * communicator is broken: the next run fails at once on every rank.
 */
TEST_F(cc, mismatch_breaks_the_communicator)
{
	float x[NR][8], y[NR][8];
	size_t size4, size8;
	void *img4, *img8;
	unsigned int i;

	img4 = one_collective(VNEF_CC_ALL_REDUCE, 4, 8, 8, ND_ADD, 0, &size4);
	img8 = one_collective(VNEF_CC_ALL_REDUCE, 8, 8, 8, ND_ADD, 0, &size8);
	ASSERT_NE(NULL, img4);
	ASSERT_NE(NULL, img8);
	for (i = 0; i < NR; i++) {
		self->r[i] = (struct rank){ .h = self->r[i].h, .img = i == 2 ? img8 : img4,
					    .size = i == 2 ? size8 : size4, .nt = 2 };
		self->r[i].t[0] = (struct nd_host_tensor){ "x", x[i], sizeof(x[i]) };
		self->r[i].t[1] = (struct nd_host_tensor){ "y", y[i], sizeof(y[i]) };
	}
	memset(x, 0, sizeof(x));
	ASSERT_EQ(0, run_ranks(self->c, self->r, NR));
	for (i = 0; i < NR; i++) {
		EXPECT_EQ(-EIO, self->r[i].ret) TH_LOG("rank %u: %s", i, self->r[i].msg);
		EXPECT_EQ(VNEURON_EXEC_ERROR, self->r[i].res.result);
		EXPECT_EQ(VNEURON_REASON_CC_MISMATCH, self->r[i].res.reason);
		EXPECT_EQ(VNEF_STREAM_CC, self->r[i].res.stream);
		EXPECT_NE(NULL, strstr(self->r[i].msg, "the ranks disagree on a collective"))
			TH_LOG("rank %u: %s", i, self->r[i].msg);
	}
	EXPECT_EQ(1, nd_host_comm_broken(self->c));
	for (i = 0; i < NR; i++) {
		self->r[i].img = img4;
		self->r[i].size = size4;
	}
	ASSERT_EQ(0, run_ranks(self->c, self->r, NR));
	for (i = 0; i < NR; i++)
		EXPECT_NE(0, self->r[i].ret) TH_LOG("rank %u", i);
	free(img4);
	free(img8);
}

/*
 * A replay of a program with collectives runs on as many host ranks as its buffers say
 * (an all_gather into 8 x count: 8), and takes the time 8 host ranks on one device take.
 */
TEST(replay_on_ranks)
{
	const uint64_t c = 2048;
	struct nd_host_comm *cm;
	struct rank r[8];
	struct vnp_replay *rp;
	struct vnp_prog p;
	struct nd_builder *b;
	struct nd_error err;
	pthread_t th[8];
	float *x[8], *g[8];
	char msg[256];
	unsigned int i;
	size_t size;
	void *img;

	ASSERT_EQ(0, nd_builder_new("gather8", &b));
	{
		struct nd_tensor *tx = nd_input(b, "x", ND_FP32, 1, (uint64_t[]){ c });
		struct nd_tensor *tg = nd_output(b, "g", ND_FP32, 1, (uint64_t[]){ 8 * c });
		struct nd_tensor *ts = nd_scratch(b, "s", ND_FP32, 2, (uint64_t[]){ 128, 16 });
		struct nd_tile *t = nd_sbuf(b, "t", ND_FP32, 128, 16);

		/* some work around it: a load of x, a scale, a store, then the gather */
		nd_load(b, 0, nd_whole(t), nd_hbm_rows(ts, 0, 0));
		nd_tensor_scalar(b, ND_VECTOR, nd_whole(t), nd_whole(t), ND_MUL, 3.0f, 0);
		nd_store(b, 1, nd_hbm_rows(ts, 0, 0), nd_whole(t));
		nd_all_gather(b, tg, tx, c);
	}
	img = finish(b, &size);
	ASSERT_NE(NULL, img);
	memset(&p, 0, sizeof(p));
	ASSERT_EQ(0, vnp_prog_load(&p, img, size, msg, sizeof(msg))) TH_LOG("%s", msg);
	ASSERT_EQ(1, p.ncc);
	ASSERT_EQ(0, vnp_replay_open(&rp, &p, &vn_model_trn1));

	ASSERT_EQ(0, nd_host_comm_new(8, NULL, &cm));
	for (i = 0; i < 8; i++) {
		x[i] = calloc(c, sizeof(float));
		g[i] = calloc(8 * c, sizeof(float));
		r[i] = (struct rank){ .img = img, .size = size, .nt = 2 };
		r[i].t[0] = (struct nd_host_tensor){ "x", x[i], c * sizeof(float) };
		r[i].t[1] = (struct nd_host_tensor){ "g", g[i], 8 * c * sizeof(float) };
		ASSERT_EQ(0, nd_host_open(NULL, &r[i].h, &err));
		ASSERT_EQ(0, nd_host_set_comm(r[i].h, cm, i));
	}
	for (i = 0; i < 8; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, rank_main, &r[i]));
	for (i = 0; i < 8; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < 8; i++) {
		EXPECT_EQ(0, r[i].ret) TH_LOG("rank %u: %s", i, r[i].msg);
		nd_host_close(r[i].h);
		free(x[i]);
		free(g[i]);
	}
	nd_host_comm_free(cm);
	EXPECT_EQ(r[0].res.model_ps, vnp_replay_base(rp));
	vnp_replay_close(rp);
	vnp_prog_free(&p);
	free(img);
}

/*
 * A fix that removes a semaphore increment renumbers the collective stream's waits on it
 * too: the second, repeated load goes, and the collective engine's NOP waiting for the
 * queue's second signal waits for its first (else the replay would deadlock).
 */
TEST(replay_fix_keeps_collective_waits)
{
	static const char text[] =
		".tensor x input fp32 [128, 64]\n"
		".tensor s scratch fp32 [128, 64]\n"
		".tensor y output fp32 [128, 64]\n"
		".queue 0\n"
		"dma sbuf[0; 0, 1]@0x0, x@0x0[0, 256], 1 x 128 x 256 signal s4\n"
		"dma sbuf[0; 0, 1]@0x0, x@0x0[0, 256], 1 x 128 x 256 signal s4\n"
		".queue 1\n"
		"dma s@0x0[0, 256], sbuf[0; 0, 1]@0x0, 1 x 128 x 256 wait s4 >= 2 signal s5\n"
		".engine cc\n"
		"nop wait s4 >= 2\n"
		"all_reduce add fp32 y@0x0, s@0x0, 8192 wait s5 >= 1\n";
	struct nd_asm_diag d;
	struct vnp_replay *rp;
	struct vnp_prog p;
	char msg[256], what[160];
	uint64_t after = 0;
	size_t size;
	void *img;

	ASSERT_EQ(0, nd_asm(text, strlen(text), "dup.vasm", 0, &img, &size, &d, NULL))
		TH_LOG("%u:%u: %s", d.line, d.col, d.msg);
	memset(&p, 0, sizeof(p));
	ASSERT_EQ(0, vnp_prog_load(&p, img, size, msg, sizeof(msg))) TH_LOG("%s", msg);
	ASSERT_EQ(0, vnp_replay_open(&rp, &p, &vn_model_trn1));
	ASSERT_EQ(0, vnp_replay_dedup(rp, &after, what, sizeof(what))) TH_LOG("%s", what);
	EXPECT_STREQ("loading once: 1 repeated descriptors removed", what);
	EXPECT_LT(after, vnp_replay_base(rp));
	/* spreading queue 1, which nothing but the collective engine waits on, is refused */
	EXPECT_EQ(-ENOTSUP, vnp_replay_spread(rp, 1u << 1, &after, what, sizeof(what)));
	EXPECT_STREQ("a collective waits for a queue to spread", what);
	vnp_replay_close(rp);
	vnp_prog_free(&p);
	free(img);
}

TEST_HARNESS_MAIN
