// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The collective engine in the executor (core/cc_run.c vn_run_cc()) and its validation
 * (core/program.c check_cc): ranks are host cores bound to one communicator, each
 * running the same image in its own execution, as the module runs them. Results
 * against C loops in rank order, statuses for every way a collective ends early, the
 * CC events, and one test per validation rule.
 */
#include <pthread.h>
#include <unistd.h>

#include "core_util.h"
#include "vn_comm.h"
#include "vn_isa.h"
#include "cc_ref.h"
#include "vn_os.h"

/* The 6.1 harness defines non-static helpers without prototypes. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "kselftest_harness.h"

#define N	4
#define F32	VNEF_DT_FP32
#define B16	VNEF_DT_BF16
#define CNT	96

struct ranks {
	struct vn_comm *cm;
	struct vn_core *c[N];
	float in[N][N * CNT], out[N][N * CNT];
	struct vn_exec_status st[N];
};

/* 2 devices x 2 cores, each core bound as rank r. */
static int ranks_new(struct ranks *R)
{
	static const u32 dev[N] = { 0, 0, 1, 1 };
	struct vn_comm_params p = { .nranks = N, .device = dev,
				    .intra = vn_cc_intra_device, .inter = vn_cc_inter_device };
	char name[8];
	u32 r;

	memset(R, 0, sizeof(*R));
	if (vn_comm_create(&p, &R->cm))
		return -1;
	for (r = 0; r < N; r++) {
		snprintf(name, sizeof(name), "cc%u", r);
		if (vn_core_create(NULL, name, &R->c[r]))
			return -1;
		vn_core_set_comm(R->c[r], R->cm, r);
	}
	return 0;
}

static void ranks_free(struct ranks *R)
{
	u32 r;

	for (r = 0; r < N; r++)
		vn_core_destroy(R->c[r]);
	vn_comm_put(R->cm);
}

/* Runs img on the ranks in skip's complement at once; waits for all. */
static int run_ranks(struct ranks *R, const uint8_t *img, uint64_t size, u32 skip_mask,
		     u64 limit_ns)
{
	struct vn_exec *ex[N] = { NULL };
	struct vn_prog_error err;
	struct vn_program *p;
	struct vn_bind b[2];
	u32 r;
	int ret;

	ret = vn_program_load(img, size, &p, &err);
	if (ret) {
		fprintf(stderr, "load: %s: %s\n", vn_check_name(err.check), err.msg);
		return ret;
	}
	for (r = 0; r < N; r++) {
		if (skip_mask & (1u << r))
			continue;
		b[0] = (struct vn_bind){ R->in[r], sizeof(R->in[r]) };
		b[1] = (struct vn_bind){ R->out[r], sizeof(R->out[r]) };
		ret = vn_exec_submit(R->c[r], p, b, 2, limit_ns, NULL, NULL, &ex[r]);
		if (ret)
			break;
	}
	vn_program_put(p);
	for (r = 0; r < N; r++) {
		if (!ex[r])
			continue;
		vn_exec_wait(ex[r], 0);
		vn_exec_status(ex[r], &R->st[r]);
		vn_exec_put(ex[r]);
	}
	return ret;
}

/* in: [N * CNT] input, out: [N * CNT] output; one collective. */
static uint8_t *cc_image(uint32_t op, uint64_t count, uint64_t *size,
			 void (*change)(struct vnef_cc_instr *))
{
	struct vnef_cc_instr *in;
	uint8_t *img;
	struct vb b;

	vb_init(&b);
	vb_tensor(&b, "in", VNEF_TENSOR_INPUT, F32, N * CNT, 0, NULL);
	vb_tensor(&b, "out", VNEF_TENSOR_OUTPUT, F32, N * CNT, 0, NULL);
	in = vb_cc(&b, op, F32, count, 0, 1);
	if (op == VNEF_CC_ALL_REDUCE || op == VNEF_CC_REDUCE_SCATTER)
		in->reduce = VNEF_ALU_ADD;
	if (change)
		change(in);
	img = vb_finish(&b, size);
	vb_free(&b);
	return img;
}

/* The ranks' inputs: cc_val(rank, i) (fill()), the reference's default. */
static const struct cc_ref_in vals = { NULL, 0 };

static void fill(struct ranks *R)
{
	u32 r, i;

	for (r = 0; r < N; r++)
		for (i = 0; i < N * CNT; i++)
			R->in[r][i] = cc_val(r, i);
}

TEST(all_reduce_is_exact_and_completes_at_one_time)
{
	struct ranks R;
	uint64_t size;
	uint8_t *img = cc_image(VNEF_CC_ALL_REDUCE, CNT, &size, NULL);
	u32 r, i;

	ASSERT_EQ(0, ranks_new(&R));
	fill(&R);
	ASSERT_EQ(0, run_ranks(&R, img, size, 0, 0));
	for (r = 0; r < N; r++) {
		ASSERT_EQ(VN_RES_OK, R.st[r].result) TH_LOG("rank %u reason %u", r, R.st[r].reason);
		EXPECT_EQ(R.st[0].model_ps, R.st[r].model_ps);
		for (i = 0; i < CNT; i++) {
			float want = cc_ref(&vals, VN_CC_ALL_REDUCE, VN_CC_SUM, N, r, 0, CNT, i);

			ASSERT_EQ(0, memcmp(&want, &R.out[r][i], 4)) TH_LOG("rank %u elem %u", r, i);
		}
	}
	/* 2 (n - 1) ring steps of 96 bytes, the slowest hop inter-device */
	EXPECT_EQ(6 * (2000000ull + 96ull * 1000000 / 192000), R.st[0].model_ps);
	ranks_free(&R);
	free(img);
}

static void shift_one(struct vnef_cc_instr *in)
{
	in->shift = 1;
}

TEST(gather_scatter_all_to_all_permute)
{
	static const u32 ops[] = { VNEF_CC_ALL_GATHER, VNEF_CC_REDUCE_SCATTER,
				   VNEF_CC_ALL_TO_ALL, VNEF_CC_PERMUTE };
	struct ranks R;
	uint64_t size;
	u32 k, r, j, i;

	ASSERT_EQ(0, ranks_new(&R));
	for (k = 0; k < 4; k++) {
		uint8_t *img = cc_image(ops[k], CNT, &size,
					ops[k] == VNEF_CC_PERMUTE ? shift_one : NULL);
		u32 op = vn_cc_opcode_info(ops[k])->comm_op;

		fill(&R);
		memset(R.out, 0, sizeof(R.out));
		ASSERT_EQ(0, run_ranks(&R, img, size, 0, 0));
		for (r = 0; r < N; r++) {
			ASSERT_EQ(VN_RES_OK, R.st[r].result) TH_LOG("op %u rank %u", ops[k], r);
			for (j = 0; j < N; j++) {
				for (i = 0; i < CNT; i++) {
					float got = R.out[r][j * CNT + i], want;

					/* one chunk out for these two */
					if (j && (op == VN_CC_REDUCE_SCATTER || op == VN_CC_PERMUTE))
						continue;
					want = cc_ref(&vals, op, VN_CC_SUM, N, r, 1, CNT, j * CNT + i);
					ASSERT_EQ(0, memcmp(&want, &got, 4))
						TH_LOG("op %u rank %u chunk %u elem %u", ops[k], r, j, i);
				}
			}
		}
		free(img);
	}
	ranks_free(&R);
}

TEST(a_missing_rank_times_out_the_others_naming_it)
{
	struct vn_comm_state cs;
	struct ranks R;
	uint64_t size;
	uint8_t *img = cc_image(VNEF_CC_PERMUTE, CNT, &size, shift_one);
	u32 r;

	ASSERT_EQ(0, ranks_new(&R));
	ASSERT_EQ(0, run_ranks(&R, img, size, 1u << 2, 200000000ull));
	for (r = 0; r < N; r++) {
		if (r == 2)
			continue;
		EXPECT_EQ(VN_RES_TIMEOUT, R.st[r].result);
		EXPECT_EQ(VN_REASON_CC_MISSING, R.st[r].reason);
		EXPECT_EQ((u32)VNEF_STREAM_CC, R.st[r].stream);
		EXPECT_EQ(0u, R.st[r].pc);
	}
	vn_comm_state(R.cm, &cs);
	EXPECT_TRUE(cs.broken);
	EXPECT_EQ(1ull << 2, cs.missing);
	/* broken for good: the next run ends at once, aborted by the peer's failure */
	ASSERT_EQ(0, run_ranks(&R, img, size, 0, 0));
	for (r = 0; r < N; r++)
		EXPECT_EQ(VN_RES_ABORTED, R.st[r].result);
	EXPECT_EQ(VN_REASON_CC_PEER, R.st[0].reason);
	ranks_free(&R);
	free(img);
}

TEST(a_failing_rank_releases_its_peers_at_once)
{
	struct vn_exec_status st;
	struct ranks R;
	uint64_t size, t0;
	uint8_t *img = cc_image(VNEF_CC_ALL_REDUCE, CNT, &size, NULL);
	u32 r;

	ASSERT_EQ(0, ranks_new(&R));
	/* rank 3 never reaches the collective: it is reset while the others wait */
	t0 = vn_time_ns();
	{
		struct vn_exec *ex[N] = { NULL };
		struct vn_program *p;
		struct vn_prog_error err;
		struct vn_bind b[2];

		ASSERT_EQ(0, vn_program_load(img, size, &p, &err));
		for (r = 0; r < N - 1; r++) {
			b[0] = (struct vn_bind){ R.in[r], sizeof(R.in[r]) };
			b[1] = (struct vn_bind){ R.out[r], sizeof(R.out[r]) };
			ASSERT_EQ(0, vn_exec_submit(R.c[r], p, b, 2, 0, NULL, NULL, &ex[r]));
		}
		vn_program_put(p);
		usleep(20000);
		vn_comm_leave(R.cm, 3);		/* what rank 3's early end does */
		for (r = 0; r < N - 1; r++) {
			vn_exec_wait(ex[r], 0);
			vn_exec_status(ex[r], &st);
			EXPECT_EQ(VN_RES_ABORTED, st.result);
			EXPECT_EQ(VN_REASON_CC_PEER, st.reason);
			vn_exec_put(ex[r]);
		}
	}
	/* well before the 30 s default limit */
	EXPECT_LT(vn_time_ns() - t0, 5000000000ull);
	ranks_free(&R);
	free(img);
}

static void group_of_three(struct vnef_cc_instr *in)
{
	in->group_size = 3;
	in->group_stride = 1;
}

TEST(a_group_that_does_not_fit_is_a_mismatch)
{
	struct ranks R;
	uint64_t size;
	uint8_t *img = cc_image(VNEF_CC_ALL_REDUCE, CNT, &size, group_of_three);
	u32 r, errors = 0;

	ASSERT_EQ(0, ranks_new(&R));
	ASSERT_EQ(0, run_ranks(&R, img, size, 0, 0));
	/*
	 * The first rank to arrive finds the mismatch; one arriving after it finds the
	 * communicator broken (ABORTED, cc-peer): which ranks do is a race.
	 */
	for (r = 0; r < N; r++) {
		EXPECT_TRUE(R.st[r].reason == VN_REASON_CC_MISMATCH ||
			    R.st[r].reason == VN_REASON_CC_PEER);
		if (R.st[r].result == VN_RES_ERROR &&
		    R.st[r].reason == VN_REASON_CC_MISMATCH)
			errors++;
	}
	EXPECT_LE(1u, errors);
	ranks_free(&R);
	free(img);
}

TEST(an_all_gather_larger_than_its_buffer_faults_before_moving)
{
	struct ranks R;
	uint64_t size;
	/* CNT * 2 elements gathered from 4 ranks: twice the output tensor */
	uint8_t *img = cc_image(VNEF_CC_ALL_GATHER, CNT * 2, &size, NULL);
	u32 r;

	ASSERT_EQ(0, ranks_new(&R));
	ASSERT_EQ(0, run_ranks(&R, img, size, 1u << 3, 0));
	for (r = 0; r < N - 1; r++) {
		EXPECT_EQ(VN_RES_FAULT, R.st[r].result);
		EXPECT_EQ(VN_REASON_FAULT_HBM, R.st[r].reason);
		EXPECT_EQ(1u, R.st[r].fault.index);
		EXPECT_EQ(N * CNT * 2 * 4ull, R.st[r].fault.len);
	}
	ranks_free(&R);
	free(img);
}

TEST(a_core_without_a_communicator_refuses_a_cc_program)
{
	struct vn_prog_error err;
	struct vn_program *p;
	struct vn_exec *ex;
	struct vn_core *c;
	struct vn_bind b[2] = { { NULL, 0 }, { NULL, 0 } };
	static float in[N * CNT], out[N * CNT];
	uint64_t size;
	uint8_t *img = cc_image(VNEF_CC_ALL_REDUCE, CNT, &size, NULL);

	b[0] = (struct vn_bind){ in, sizeof(in) };
	b[1] = (struct vn_bind){ out, sizeof(out) };
	ASSERT_EQ(0, vn_core_create(NULL, "solo", &c));
	ASSERT_EQ(0, vn_program_load(img, size, &p, &err));
	EXPECT_EQ(-ENOTCONN, vn_exec_submit(c, p, b, 2, 0, NULL, NULL, &ex));
	vn_program_put(p);
	vn_core_destroy(c);
	free(img);
}

/* ---- the CC events ---- */

struct seen {
	pthread_mutex_t mu;
	u32 n;
	struct vn_event ev[N];
};

static void hook(void *arg, const struct vn_event *ev)
{
	struct seen *s = arg;

	if (ev->stream != VNEF_STREAM_CC)
		return;
	pthread_mutex_lock(&s->mu);
	if (s->n < N)
		s->ev[s->n++] = *ev;
	pthread_mutex_unlock(&s->mu);
}

TEST(each_rank_reports_its_arrival_the_last_member_and_the_completion)
{
	struct seen s = { .mu = PTHREAD_MUTEX_INITIALIZER };
	struct ranks R;
	uint64_t size;
	uint8_t *img = cc_image(VNEF_CC_ALL_REDUCE, CNT, &size, NULL);
	u32 r;

	ASSERT_EQ(0, ranks_new(&R));
	for (r = 0; r < N; r++)
		vn_core_set_hook(R.c[r], hook, &s);
	fill(&R);
	ASSERT_EQ(0, run_ranks(&R, img, size, 0, 0));
	ASSERT_EQ((u32)N, s.n);
	for (r = 0; r < N; r++) {
		const struct vn_event *e = &s.ev[r];

		EXPECT_EQ((u32)VNEF_CC_ALL_REDUCE, e->opcode);
		EXPECT_EQ(0ull, e->start_ps);
		EXPECT_EQ(R.st[0].model_ps, e->end_ps);
		EXPECT_EQ((u32)N, e->cc_members);
		EXPECT_EQ(0u, e->cc_last);	/* all arrive at 0: the lowest rank */
		EXPECT_EQ(CNT * 4ull, e->bytes);
	}
	ranks_free(&R);
	free(img);
}

/* ---- validation: one test per rule ---- */

struct bad {
	const char *what;
	uint32_t op;
	void (*change)(struct vnef_cc_instr *);
	uint32_t check;
};

static void bad_opcode(struct vnef_cc_instr *in) { in->opcode = VNEF_CC_OP_COUNT; }
static void bad_flag(struct vnef_cc_instr *in) { in->flags = VNEF_IF_ACCUMULATE; }
static void bad_wait(struct vnef_cc_instr *in) { in->wait_sem = 1; }
static void bad_reserved(struct vnef_cc_instr *in) { in->reserved[5] = 1; }
static void bad_nop(struct vnef_cc_instr *in) { in->count = 1; }
static void bad_dtype(struct vnef_cc_instr *in) { in->dtype = 3; }
static void bad_reduce(struct vnef_cc_instr *in) { in->reduce = VNEF_ALU_SUB; }
static void bad_reduce_unused(struct vnef_cc_instr *in) { in->reduce = VNEF_ALU_MAX; }
static void bad_group(struct vnef_cc_instr *in) { in->group_size = 65; in->group_stride = 1; }
static void bad_stride(struct vnef_cc_instr *in) { in->group_stride = 2; }
static void bad_span(struct vnef_cc_instr *in) { in->group_size = 16; in->group_stride = 5; }
static void bad_shift(struct vnef_cc_instr *in) { in->group_size = 2; in->group_stride = 1;
						  in->shift = 2; }
static void bad_shift_unused(struct vnef_cc_instr *in) { in->shift = 1; }
static void bad_count(struct vnef_cc_instr *in) { in->count = 0; }
static void bad_huge(struct vnef_cc_instr *in) { in->count = 1ull << 62; }
static void bad_tensor(struct vnef_cc_instr *in) { in->src_tensor = 7; }
static void bad_writes_input(struct vnef_cc_instr *in) { in->dst_tensor = 0; in->src_tensor = 1; }
static void bad_align(struct vnef_cc_instr *in) { in->src_offset = 2; }
static void bad_range(struct vnef_cc_instr *in) { in->dst_offset = (N * CNT - 8) * 4; }
static void bad_wrap(struct vnef_cc_instr *in) { in->src_offset = ~0ull - 3; }
static void bad_overlap(struct vnef_cc_instr *in) { in->dst_tensor = 1; in->src_tensor = 1;
						    in->dst_offset = 8; }
static void bad_group_span(struct vnef_cc_instr *in) { in->group_size = 8; in->group_stride = 1;
						       in->count = CNT; }

static const struct bad bads[] = {
	{ "unknown opcode", VNEF_CC_ALL_REDUCE, bad_opcode, VNEF_CHK_OPCODE },
	{ "unknown flag", VNEF_CC_ALL_REDUCE, bad_flag, VNEF_CHK_FLAGS },
	{ "wait fields without the flag", VNEF_CC_ALL_REDUCE, bad_wait, VNEF_CHK_RESERVED },
	{ "reserved", VNEF_CC_ALL_REDUCE, bad_reserved, VNEF_CHK_RESERVED },
	{ "fields of a NOP", VNEF_CC_NOP, bad_nop, VNEF_CHK_RESERVED },
	{ "dtype", VNEF_CC_ALL_REDUCE, bad_dtype, VNEF_CHK_CC },
	{ "reduction", VNEF_CC_ALL_REDUCE, bad_reduce, VNEF_CHK_ALU },
	{ "reduction of a gather", VNEF_CC_ALL_GATHER, bad_reduce_unused, VNEF_CHK_ALU },
	{ "group over 64", VNEF_CC_ALL_REDUCE, bad_group, VNEF_CHK_CC },
	{ "stride without a size", VNEF_CC_ALL_REDUCE, bad_stride, VNEF_CHK_CC },
	{ "span over 64", VNEF_CC_ALL_REDUCE, bad_span, VNEF_CHK_CC },
	{ "shift outside the group", VNEF_CC_PERMUTE, bad_shift, VNEF_CHK_CC },
	{ "shift of an all-reduce", VNEF_CC_ALL_REDUCE, bad_shift_unused, VNEF_CHK_CC },
	{ "no elements", VNEF_CC_ALL_REDUCE, bad_count, VNEF_CHK_CC },
	{ "too large", VNEF_CC_ALL_REDUCE, bad_huge, VNEF_CHK_CC },
	{ "tensor index", VNEF_CC_ALL_REDUCE, bad_tensor, VNEF_CHK_CC },
	{ "writes an input", VNEF_CC_ALL_REDUCE, bad_writes_input, VNEF_CHK_CC },
	{ "misaligned offset", VNEF_CC_ALL_REDUCE, bad_align, VNEF_CHK_CC },
	{ "beyond the tensor", VNEF_CC_ALL_REDUCE, bad_range, VNEF_CHK_CC },
	{ "wrapping offset", VNEF_CC_ALL_REDUCE, bad_wrap, VNEF_CHK_CC },
	{ "overlap", VNEF_CC_ALL_GATHER, bad_overlap, VNEF_CHK_CC },
	{ "a known group's gather beyond the tensor", VNEF_CC_ALL_GATHER, bad_group_span,
	  VNEF_CHK_CC },
};

TEST(every_collective_rule_is_checked)
{
	struct vn_prog_error err;
	uint64_t size;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(bads); i++) {
		uint8_t *img = cc_image(bads[i].op, CNT, &size, bads[i].change);

		EXPECT_EQ(-EINVAL, vn_program_check(img, size, &err)) TH_LOG("%s", bads[i].what);
		EXPECT_EQ(bads[i].check, err.check)
			TH_LOG("%s: got %s (%s)", bads[i].what, vn_check_name(err.check), err.msg);
		free(img);
	}
}

TEST(a_cc_section_needs_version_2_and_no_index)
{
	struct vn_prog_error err;
	struct vnef_header *h;
	struct vnef_section *sec;
	uint64_t size;
	uint8_t *img = cc_image(VNEF_CC_ALL_REDUCE, CNT, &size, NULL);
	u32 i;

	ASSERT_EQ(0, vn_program_check(img, size, &err)) TH_LOG("%s", err.msg);
	h = (struct vnef_header *)img;
	sec = (struct vnef_section *)(img + sizeof(*h));
	h->version = 1;
	EXPECT_EQ(-EINVAL, vn_program_check(img, size, &err));
	EXPECT_EQ((u32)VNEF_CHK_SECTION, err.check);
	h->version = 3;
	EXPECT_EQ(-EINVAL, vn_program_check(img, size, &err));
	EXPECT_EQ((u32)VNEF_CHK_VERSION, err.check);
	h->version = VNEF_VERSION;
	for (i = 0; i < h->section_count; i++)
		if (sec[i].type == VNEF_SEC_CC)
			sec[i].index = 1;
	EXPECT_EQ(-EINVAL, vn_program_check(img, size, &err));
	EXPECT_EQ((u32)VNEF_CHK_SECTION, err.check);
	free(img);
}

TEST_HARNESS_MAIN
