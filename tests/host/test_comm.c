// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Communicators (core/comm.c): each rank a thread, as the module's CC engines will be.
 * Results against C references that add in rank order, modeled times against the ring
 * formulas computed by hand, and every way a collective can fail.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "vn_comm.h"
#include "cc_ref.h"
#include "vn_os.h"
#include "vneuron_program.h"

/* The 6.1 harness defines non-static helpers without prototypes. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#define N 4

struct rank_run {
	struct vn_comm *cm;
	u32 rank;
	struct vn_cc_args a;
	u64 arrive_ps;
	u64 deadline_ns;
	const int *abort;
	int ret;
	u64 done_ps;
	u64 missing;
	struct vn_cc_result res;
};

static void *rank_thread(void *arg)
{
	struct rank_run *r = arg;

	r->ret = vn_comm_collective(r->cm, r->rank, &r->a, r->arrive_ps, r->deadline_ns, r->abort,
				    &r->res);
	r->done_ps = r->res.done_ps;
	r->missing = r->res.missing;
	return NULL;
}

/* Runs ranks [0, n) (skipping those with skip[r]) to the end. */
static void run_ranks(struct rank_run *r, u32 n, const bool *skip)
{
	pthread_t t[VN_COMM_MAX_RANKS];
	u32 i;

	for (i = 0; i < n; i++)
		if (!skip || !skip[i])
			pthread_create(&t[i], NULL, rank_thread, &r[i]);
	for (i = 0; i < n; i++)
		if (!skip || !skip[i])
			pthread_join(t[i], NULL);
}

/* 2 devices x 2 cores: ranks 0, 1 on device 0, ranks 2, 3 on device 1. */
static struct vn_comm *comm_2x2(void)
{
	static const u32 dev[N] = { 0, 0, 1, 1 };
	struct vn_comm_params p = {
		.nranks = N, .device = dev,
		.intra = vn_cc_intra_device, .inter = vn_cc_inter_device,
	};
	struct vn_comm *cm;

	return vn_comm_create(&p, &cm) ? NULL : cm;
}

static void setup(struct rank_run *r, struct vn_comm *cm, u32 op, u32 dtype, u64 count,
		  void **in, void **out, u64 inb, u64 outb)
{
	u32 k;

	for (k = 0; k < N; k++) {
		in[k] = calloc(1, inb);
		out[k] = calloc(1, outb);
		r[k] = (struct rank_run){
			.cm = cm, .rank = k, .arrive_ps = 1000 * (k + 1),
			.a = { .op = op, .reduce = VN_CC_SUM, .dtype = dtype, .count = count,
			       .in = in[k], .out = out[k] },
		};
	}
}

static void release(void **in, void **out)
{
	u32 k;

	for (k = 0; k < N; k++) {
		free(in[k]);
		free(out[k]);
	}
}

TEST(all_reduce_sum_is_exact_and_timed_by_the_ring)
{
	const u64 count = 10000;
	struct vn_comm *cm = comm_2x2();
	struct rank_run r[N];
	void *in[N], *out[N];
	u64 i;
	u32 k;

	ASSERT_NE(NULL, cm);
	setup(r, cm, VN_CC_ALL_REDUCE, VNEF_DT_FP32, count, in, out, count * 4, count * 4);
	for (k = 0; k < N; k++)
		for (i = 0; i < count; i++)
			((float *)in[k])[i] = cc_val(k, i);
	run_ranks(r, N, NULL);
	for (k = 0; k < N; k++) {
		ASSERT_EQ(0, r[k].ret);
		/*
		 * By hand: 40000 bytes, chunks of 10000; the ring 0-1-2-3-0 has inter-device
		 * hops (2 us + 10000 B at 192 GB/s = 52083 ps): 6 steps of 2052083 ps after
		 * the last arrival at 4000 ps.
		 */
		EXPECT_EQ(4000ull + 6 * 2052083ull, r[k].done_ps);
		for (i = 0; i < count; i++) {
			float want = cc_val(0, i);
			u32 j;

			for (j = 1; j < N; j++)
				want += cc_val(j, i);
			if (memcmp(&want, &((float *)out[k])[i], 4)) {
				EXPECT_EQ(want, ((float *)out[k])[i]);
				break;
			}
		}
	}
	release(in, out);
	vn_comm_destroy(cm);
}

TEST(all_reduce_in_place_bf16_max)
{
	const u64 count = 5000;
	struct vn_comm *cm = comm_2x2();
	struct rank_run r[N];
	uint16_t *buf[N];
	u64 i;
	u32 k;

	ASSERT_NE(NULL, cm);
	for (k = 0; k < N; k++) {
		buf[k] = calloc(count, 2);
		for (i = 0; i < count; i++)
			buf[k][i] = (uint16_t)(0x3f80 + ((k * 31 + i) % 97));	/* 1.0 .. 1.75 */
		r[k] = (struct rank_run){
			.cm = cm, .rank = k,
			.a = { .op = VN_CC_ALL_REDUCE, .reduce = VN_CC_MAX, .dtype = VNEF_DT_BF16,
			       .count = count, .in = buf[k], .out = buf[k] },
		};
	}
	run_ranks(r, N, NULL);
	for (k = 0; k < N; k++) {
		ASSERT_EQ(0, r[k].ret);
		for (i = 0; i < count; i++) {
			uint16_t want = 0;
			u32 j;

			for (j = 0; j < N; j++)
				if (0x3f80 + ((j * 31 + i) % 97) > want)
					want = (uint16_t)(0x3f80 + ((j * 31 + i) % 97));
			if (buf[k][i] != want) {
				EXPECT_EQ(want, buf[k][i]);
				break;
			}
		}
		free(buf[k]);
	}
	vn_comm_destroy(cm);
}

static float f32_of(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static uint32_t bits_of(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static uint16_t bf16_of(float f)
{
	uint32_t u = bits_of(f);

	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((u >> 16) | 0x40);
	return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1)) >> 16);
}

/*
 * The reduction is four lanes at a time: every element, whatever its place in a lane or
 * a block, must keep the scalar rule's bits (acc = in[0]; acc = acc > v ? acc : v or
 * acc + v in rank order; bf16 widened, rounded once), signed zeros, infinities and NaN
 * included. At most one NaN an element, so that no NaN's payload depends on which operand
 * an add keeps.
 */
TEST(reduce_keeps_the_scalar_bits)
{
	static const uint32_t special[] = { 0x80000000u, 0x00000000u, 0x7f800000u,
					    0xff800000u, 0x00000001u, 0x7f7fffffu };
	const u64 count = 4096 + 128 + 7;	/* a chunk, a block and a tail */
	float *in[N], *want = malloc(count * 4), *out = malloc(count * 4);
	uint16_t *hin[N], *hout = malloc(count * 2);
	const void *src[N];
	void *dst[1];
	u32 reduce, k;
	u64 i;

	ASSERT_NE(NULL, want);
	for (k = 0; k < N; k++) {
		in[k] = malloc(count * 4);
		hin[k] = malloc(count * 2);
		ASSERT_NE(NULL, in[k]);
		ASSERT_NE(NULL, hin[k]);
		cc_fill(in[k], count, k + 1);
		for (i = k; i < count; i += 5)
			in[k][i] = f32_of(special[(i + k) % 6]);
		for (i = 0; i < count; i += 11)
			if (i % N == k)
				in[k][i] = f32_of(0x7fc00000u | (uint32_t)i);
		for (i = 0; i < count; i++)
			hin[k][i] = bf16_of(in[k][i]);
	}
	for (reduce = VN_CC_SUM; reduce <= VN_CC_MAX; reduce++) {
		for (i = 0; i < count; i++) {
			float acc = in[0][i];

			for (k = 1; k < N; k++)
				acc = reduce == VN_CC_MAX ? (acc > in[k][i] ? acc : in[k][i]) :
							    acc + in[k][i];
			want[i] = acc;
		}
		for (k = 0; k < N; k++)
			src[k] = in[k];
		dst[0] = out;
		vn_cc_reduce(reduce, VNEF_DT_FP32, dst, 1, src, N, 0, count);
		for (i = 0; i < count; i++)
			if (bits_of(out[i]) != bits_of(want[i]) &&
			    !(want[i] != want[i] && out[i] != out[i])) {
				EXPECT_EQ(bits_of(want[i]), bits_of(out[i])) TH_LOG("fp32 %u at %llu",
										      reduce, (unsigned long long)i);
				break;
			}
		for (i = 0; i < count; i++) {
			float acc = f32_of((uint32_t)hin[0][i] << 16);

			for (k = 1; k < N; k++) {
				float v = f32_of((uint32_t)hin[k][i] << 16);

				acc = reduce == VN_CC_MAX ? (acc > v ? acc : v) : acc + v;
			}
			want[i] = acc;
		}
		for (k = 0; k < N; k++)
			src[k] = hin[k];
		dst[0] = hout;
		vn_cc_reduce(reduce, VNEF_DT_BF16, dst, 1, src, N, 0, count);
		for (i = 0; i < count; i++)
			if (hout[i] != bf16_of(want[i]) && !(want[i] != want[i])) {
				EXPECT_EQ(bf16_of(want[i]), hout[i]) TH_LOG("bf16 %u at %llu",
									     reduce, (unsigned long long)i);
				break;
			}
	}
	for (k = 0; k < N; k++) {
		free(in[k]);
		free(hin[k]);
	}
	free(want);
	free(out);
	free(hout);
}

/* A reduction of over 1 MiB streams its stores (core/comm_fp.c): the same bits, any alignment. */
TEST(large_reduce_streams_the_same_bits)
{
	const u64 count = 300007;
	float *in[N], *out = malloc((count + 1) * 4);
	const void *src[N];
	void *dst[1] = { out + 1 };	/* not 16-byte aligned */
	struct cc_ref_in ref = { 0 };
	u64 i;
	u32 k;

	ASSERT_NE(NULL, out);
	for (k = 0; k < N; k++) {
		in[k] = malloc(count * 4);
		ASSERT_NE(NULL, in[k]);
		for (i = 0; i < count; i++)
			in[k][i] = cc_val(k, i);
		src[k] = in[k];
	}
	vn_cc_reduce(VN_CC_SUM, VNEF_DT_FP32, dst, 1, src, N, 0, count);
	for (i = 0; i < count; i++) {
		float want = cc_ref_reduce(&ref, VN_CC_SUM, N, i);

		if (memcmp(&want, out + 1 + i, 4)) {
			EXPECT_EQ(want, out[1 + i]) TH_LOG("[%llu]", (unsigned long long)i);
			break;
		}
	}
	for (k = 0; k < N; k++)
		free(in[k]);
	free(out);
}

/*
 * Large fp32 reductions move whole lines in registers where the outputs allow
 * (core/comm_fp.c: reduce_lines_avx512() if every output is 64-byte aligned and the CPU
 * has AVX-512, else reduce_lines() if 16): the bits must be the block path's (small calls), for
 * sums and maxima with specials and NaN, an input offset, outputs at the same, at shifted
 * and at incompatible alignments, and outputs that are their own rank's input.
 */
TEST(large_reduce_in_lines_keeps_the_block_bits)
{
	/* four ranks take four in a row: -0 meets +0 last in a maximum, inf meets -inf */
	static const uint32_t special[] = { 0xff800000u, 0xbf800000u, 0x80000000u,
					    0x00000000u, 0x7f800000u, 0x00000001u };
	/*
	 * output offsets in elements: 64-byte aligned, a head of 13 then 16-byte aligned,
	 * mixed, and a head of 14 then all 64-byte aligned (AVX-512's pass after a head)
	 */
	static const u32 shift[][3] = { { 0, 0, 0 }, { 3, 7, 19 }, { 0, 1, 0 }, { 2, 2, 5 },
					{ 2, 2, 2 } };
	const u64 count = 300007, first = 5, piece = 65536, room = 300096;	/* lines, past the end */
	float *in[N], *own[N], *ref = malloc(room * 4), *buf[3];
	const void *src[N];
	void *dst[3];
	u32 reduce, k, c, o;
	u64 i, lo;

	ASSERT_NE(NULL, ref);
	for (k = 0; k < N; k++) {
		in[k] = malloc(room * 4);
		own[k] = malloc(room * 4);
		ASSERT_NE(NULL, in[k]);
		ASSERT_NE(NULL, own[k]);
		cc_fill(in[k], room, k + 1);
		for (i = 0; i < room; i += 7)
			in[k][i] = f32_of(special[(i / 7 + k) % 6]);
		for (i = 0; i < room; i += 13)
			if (i % N == k)
				in[k][i] = f32_of(0x7fc00000u | (uint32_t)i);
		src[k] = in[k];
	}
	for (o = 0; o < 3; o++) {
		buf[o] = aligned_alloc(64, room * 4);
		ASSERT_NE(NULL, buf[o]);
	}
	for (reduce = VN_CC_SUM; reduce <= VN_CC_MAX; reduce++) {
		/* the block path: calls under 1 MiB do not stream */
		for (lo = 0; lo < count; lo += piece) {
			dst[0] = ref + lo;
			vn_cc_reduce(reduce, VNEF_DT_FP32, dst, 1, src, N, first + lo,
				     count - lo < piece ? count - lo : piece);
		}
		for (c = 0; c < ARRAY_SIZE(shift); c++) {
			for (o = 0; o < 3; o++) {
				memset(buf[o], 0xa5, room * 4);
				dst[o] = buf[o] + shift[c][o];
			}
			vn_cc_reduce(reduce, VNEF_DT_FP32, dst, 3, src, N, first, count);
			for (o = 0; o < 3; o++) {
				EXPECT_EQ(0, memcmp(ref, dst[o], count * 4))
					TH_LOG("reduce %u, case %u, output %u", reduce, c, o);
			}
		}
		/* in place: ranks 2 and 0 write over their own inputs (offset 0) */
		for (lo = 0; lo < count; lo += piece) {
			dst[0] = ref + lo;
			vn_cc_reduce(reduce, VNEF_DT_FP32, dst, 1, src, N, lo,
				     count - lo < piece ? count - lo : piece);
		}
		for (k = 0; k < N; k++) {
			memcpy(own[k], in[k], room * 4);
			src[k] = own[k];
		}
		dst[0] = own[2];
		dst[1] = own[0];
		vn_cc_reduce(reduce, VNEF_DT_FP32, dst, 2, src, N, 0, count);
		EXPECT_EQ(0, memcmp(ref, own[2], count * 4)) TH_LOG("in place, reduce %u", reduce);
		EXPECT_EQ(0, memcmp(ref, own[0], count * 4)) TH_LOG("in place, reduce %u", reduce);
		for (k = 0; k < N; k++)
			src[k] = in[k];
	}
	for (k = 0; k < N; k++) {
		free(in[k]);
		free(own[k]);
	}
	for (o = 0; o < 3; o++)
		free(buf[o]);
	free(ref);
}

TEST(gather_scatter_all_to_all_permute)
{
	const u64 c = 300;
	struct vn_comm *cm = comm_2x2();
	struct rank_run r[N];
	void *in[N], *out[N];
	u64 i;
	u32 k, j;

	ASSERT_NE(NULL, cm);
	/* all-gather: out[k] = in[0] | in[1] | in[2] | in[3] */
	setup(r, cm, VN_CC_ALL_GATHER, VNEF_DT_FP32, c, in, out, c * 4, N * c * 4);
	for (k = 0; k < N; k++)
		for (i = 0; i < c; i++)
			((float *)in[k])[i] = cc_val(k, i);
	run_ranks(r, N, NULL);
	for (k = 0; k < N; k++) {
		ASSERT_EQ(0, r[k].ret);
		for (j = 0; j < N; j++)
			EXPECT_EQ(0, memcmp((float *)out[k] + j * c, in[j], c * 4));
		/* 3 steps of 1200 bytes over the inter-device hop */
		EXPECT_EQ(4000ull + 3 * (2000000ull + 1200ull * 1000000 / 192000), r[k].done_ps);
	}
	release(in, out);

	/* reduce-scatter: out[k] = chunk k of the sum */
	setup(r, cm, VN_CC_REDUCE_SCATTER, VNEF_DT_FP32, c, in, out, N * c * 4, c * 4);
	for (k = 0; k < N; k++)
		for (i = 0; i < N * c; i++)
			((float *)in[k])[i] = cc_val(k, i);
	run_ranks(r, N, NULL);
	for (k = 0; k < N; k++) {
		ASSERT_EQ(0, r[k].ret);
		for (i = 0; i < c; i++) {
			float want = cc_val(0, k * c + i);

			for (j = 1; j < N; j++)
				want += cc_val(j, k * c + i);
			EXPECT_EQ(0, memcmp(&want, (float *)out[k] + i, 4));
		}
	}
	release(in, out);

	/* all-to-all: chunk j of out[k] = chunk k of in[j] */
	setup(r, cm, VN_CC_ALL_TO_ALL, VNEF_DT_FP32, c, in, out, N * c * 4, N * c * 4);
	for (k = 0; k < N; k++)
		for (i = 0; i < N * c; i++)
			((float *)in[k])[i] = cc_val(k, i);
	run_ranks(r, N, NULL);
	for (k = 0; k < N; k++) {
		ASSERT_EQ(0, r[k].ret);
		for (j = 0; j < N; j++)
			EXPECT_EQ(0, memcmp((float *)out[k] + j * c, (float *)in[j] + k * c, c * 4));
	}
	release(in, out);

	/* permute: rank k sends to k + 1 */
	setup(r, cm, VN_CC_PERMUTE, VNEF_DT_FP32, c, in, out, c * 4, c * 4);
	for (k = 0; k < N; k++) {
		r[k].a.shift = 1;
		for (i = 0; i < c; i++)
			((float *)in[k])[i] = cc_val(k, i);
	}
	run_ranks(r, N, NULL);
	for (k = 0; k < N; k++) {
		ASSERT_EQ(0, r[k].ret);
		EXPECT_EQ(0, memcmp(out[(k + 1) % N], in[k], c * 4));
	}
	release(in, out);
	vn_comm_destroy(cm);
}

/*
 * Collectives of several MiB move in parts that the waiting ranks take (core/comm.c):
 * the results stay the rank-order loop's, bit for bit, ranges uneven, in place too.
 */
TEST(large_collectives_move_in_parts_exactly)
{
	const u64 c = 1000003;		/* 4 MB of fp32: 15 uneven ranges */
	struct vn_comm_state st = { 0 };
	struct cc_ref_in ref = { 0 };
	struct vn_comm *cm = comm_2x2();
	struct rank_run r[N];
	void *in[N], *out[N];
	u32 k, pass;
	u64 i;

	ASSERT_NE(NULL, cm);
	/* at least one of each; more all-reduces until a waiting rank took a part */
	for (pass = 0; pass < 2 || (pass < 12 && !st.parts_helped); pass++) {
		u32 op = pass == 1 ? VN_CC_REDUCE_SCATTER : VN_CC_ALL_REDUCE;
		u64 n_in = op == VN_CC_REDUCE_SCATTER ? N * c : c;

		setup(r, cm, op, VNEF_DT_FP32, c, in, out, n_in * 4, c * 4);
		for (k = 0; k < N; k++)
			for (i = 0; i < n_in; i++)
				((float *)in[k])[i] = cc_val(k, i);
		if (op == VN_CC_ALL_REDUCE)
			r[1].a.out = in[1];	/* in place */
		run_ranks(r, N, NULL);
		vn_comm_state(cm, &st);
		for (k = 0; k < N; k++) {
			const float *o = op != VN_CC_ALL_REDUCE || k != 1 ? out[k] : in[1];

			ASSERT_EQ(0, r[k].ret);
			for (i = 0; i < c; i++) {
				float want = cc_ref(&ref, op, VN_CC_SUM, N, k, 0, c, i);

				if (memcmp(&want, o + i, 4)) {
					EXPECT_EQ(want, o[i]) TH_LOG("op %u rank %u [%llu]", op, k,
								     (unsigned long long)i);
					break;
				}
			}
		}
		release(in, out);
	}
	/* the last arrival did not move it all alone */
	EXPECT_LT(0ull, st.parts_helped);
	vn_comm_destroy(cm);
}

TEST(disagreeing_or_overlapping_arguments_fail_every_rank)
{
	struct vn_comm *cm = comm_2x2();
	struct rank_run r[N];
	void *in[N], *out[N];
	u32 k;

	ASSERT_NE(NULL, cm);
	setup(r, cm, VN_CC_ALL_REDUCE, VNEF_DT_FP32, 64, in, out, 256, 256);
	r[2].a.count = 63;
	run_ranks(r, N, NULL);
	for (k = 0; k < N; k++)
		EXPECT_EQ(-EINVAL, r[k].ret);
	/* the communicator is broken: the next collective, even one that agrees, fails */
	r[2].a.count = 64;
	run_ranks(r, N, NULL);
	for (k = 0; k < N; k++)
		EXPECT_EQ(-EPIPE, r[k].ret);
	vn_comm_destroy(cm);

	/* one rank's out is another's in */
	cm = comm_2x2();
	ASSERT_NE(NULL, cm);
	for (k = 0; k < N; k++)
		r[k].cm = cm;
	r[1].a.out = (void *)r[0].a.in;
	run_ranks(r, N, NULL);
	for (k = 0; k < N; k++)
		EXPECT_EQ(-EINVAL, r[k].ret);
	r[1].a.out = out[1];
	vn_comm_destroy(cm);

	/* a shift outside a group of two */
	cm = comm_2x2();
	ASSERT_NE(NULL, cm);
	for (k = 0; k < N; k++) {
		r[k].cm = cm;
		r[k].a.op = VN_CC_PERMUTE;
		r[k].a.group_size = 2;
		r[k].a.group_stride = 1;
		r[k].a.shift = 2;
	}
	run_ranks(r, N, NULL);
	/* the first group to meet fails; the other may find the communicator broken */
	for (k = 0; k < N; k++)
		EXPECT_TRUE(r[k].ret == -EINVAL || r[k].ret == -EPIPE);
	EXPECT_EQ(-EINVAL, r[0].ret == -EINVAL ? r[0].ret : r[2].ret);
	vn_comm_destroy(cm);

	/* a group that does not fit 4 ranks */
	cm = comm_2x2();
	ASSERT_NE(NULL, cm);
	for (k = 0; k < N; k++) {
		r[k].cm = cm;
		r[k].a.op = VN_CC_ALL_REDUCE;
		r[k].a.group_size = 3;
		r[k].a.shift = 0;
	}
	run_ranks(r, N, NULL);
	for (k = 0; k < N; k++)
		EXPECT_NE(0, r[k].ret);
	vn_comm_destroy(cm);

	/* a bad dtype */
	cm = comm_2x2();
	ASSERT_NE(NULL, cm);
	for (k = 0; k < N; k++) {
		r[k].cm = cm;
		r[k].a.group_size = 0;
		r[k].a.group_stride = 0;
		r[k].a.dtype = 7;
	}
	run_ranks(r, N, NULL);
	for (k = 0; k < N; k++)
		EXPECT_EQ(-EINVAL, r[k].ret);
	release(in, out);
	vn_comm_destroy(cm);
}

TEST(replica_groups_reduce_within_each_group)
{
	struct vn_comm *cm = comm_2x2();
	struct rank_run r[N];
	void *in[N], *out[N];
	u32 k, i, c = 100, s;

	ASSERT_NE(NULL, cm);
	for (s = 1; s <= 2; s++) {
		/* groups of 2 with stride s: {0,1} {2,3} then {0,2} {1,3} */
		setup(r, cm, VN_CC_ALL_REDUCE, VNEF_DT_FP32, c, in, out, c * 4, c * 4);
		for (k = 0; k < N; k++) {
			r[k].a.group_size = 2;
			r[k].a.group_stride = s;
			for (i = 0; i < c; i++)
				((float *)in[k])[i] = cc_val(k, i);
		}
		run_ranks(r, N, NULL);
		for (k = 0; k < N; k++) {
			u32 mate = s == 1 ? k ^ 1 : k ^ 2, lo = k < mate ? k : mate;
			u32 hi = k < mate ? mate : k;

			ASSERT_EQ(0, r[k].ret);
			EXPECT_EQ(2u, r[k].res.members);
			for (i = 0; i < c; i++) {
				float want = cc_val(lo, i) + cc_val(hi, i);

				EXPECT_EQ(0, memcmp(&want, (float *)out[k] + i, 4));
			}
		}
		/* {0,1} share a device: the intra link; {0,2} cross: the inter link */
		EXPECT_EQ(s == 1 ? 2000 + 2 * (1000000ull + 200ull * 1000000 / 500000) :
			  3000 + 2 * (2000000ull + 200ull * 1000000 / 192000), r[0].done_ps);
		release(in, out);
	}
	vn_comm_destroy(cm);
}

TEST(a_missing_rank_times_out_the_others_and_is_named)
{
	struct vn_comm *cm = comm_2x2();
	bool skip[N] = { false, false, true, false };
	struct rank_run r[N];
	void *in[N], *out[N];
	int timeouts = 0, pipes = 0;
	u32 k;

	ASSERT_NE(NULL, cm);
	setup(r, cm, VN_CC_ALL_REDUCE, VNEF_DT_FP32, 64, in, out, 256, 256);
	for (k = 0; k < N; k++)
		r[k].deadline_ns = vn_time_ns() + 50000000;	/* 50 ms */
	run_ranks(r, N, skip);
	for (k = 0; k < N; k++) {
		if (skip[k])
			continue;
		if (r[k].ret == -ETIMEDOUT) {
			timeouts++;
			EXPECT_EQ(1ull << 2, r[k].missing);
		} else {
			EXPECT_EQ(-EPIPE, r[k].ret);
			pipes++;
		}
	}
	EXPECT_GE(timeouts, 1);
	EXPECT_EQ(3, timeouts + pipes);
	/* broken for good: the late rank learns it at once */
	r[2].deadline_ns = 0;
	run_ranks(&r[2], 1, NULL);
	EXPECT_EQ(-EPIPE, r[2].ret);
	release(in, out);
	vn_comm_destroy(cm);
}

static void *leave_later(void *arg)
{
	usleep(20000);
	vn_comm_leave(arg, 3);
	return NULL;
}

TEST(a_rank_that_leaves_or_an_abort_ends_the_wait)
{
	struct vn_comm *cm = comm_2x2();
	bool skip[N] = { false, false, false, true };
	struct rank_run r[N];
	void *in[N], *out[N];
	int stop = 0;
	pthread_t t;
	u32 k;

	ASSERT_NE(NULL, cm);
	setup(r, cm, VN_CC_ALL_REDUCE, VNEF_DT_FP32, 64, in, out, 256, 256);
	pthread_create(&t, NULL, leave_later, cm);
	run_ranks(r, N, skip);
	pthread_join(t, NULL);
	for (k = 0; k < 3; k++)
		EXPECT_EQ(-EPIPE, r[k].ret);
	vn_comm_destroy(cm);

	cm = comm_2x2();
	ASSERT_NE(NULL, cm);
	for (k = 0; k < N; k++) {
		r[k].cm = cm;
		r[k].abort = &stop;
	}
	stop = 1;
	run_ranks(r, 1, NULL);
	EXPECT_EQ(-EINTR, r[0].ret);
	release(in, out);
	vn_comm_destroy(cm);
}

static void *remote_timeout_later(void *arg)
{
	usleep(20000);
	vn_comm_break_missing(arg, 2, -ETIMEDOUT, 1ull << 3);
	return NULL;
}

/* A proxy relaying another node's timeout: the waiting ranks end as if theirs had come. */
TEST(a_relayed_timeout_names_the_missing_ranks)
{
	bool skip[N] = { false, false, true, true };
	struct vn_comm *cm = comm_2x2();
	struct vn_comm_state st;
	struct rank_run r[N];
	void *in[N], *out[N];
	pthread_t t;
	u32 k;

	ASSERT_NE(NULL, cm);
	setup(r, cm, VN_CC_ALL_REDUCE, VNEF_DT_FP32, 64, in, out, 256, 256);
	pthread_create(&t, NULL, remote_timeout_later, cm);
	run_ranks(r, N, skip);
	pthread_join(t, NULL);
	for (k = 0; k < 2; k++) {
		EXPECT_EQ(-ETIMEDOUT, r[k].ret);
		EXPECT_EQ(1ull << 3, r[k].missing);
	}
	vn_comm_state(cm, &st);
	EXPECT_TRUE(st.broken);
	EXPECT_EQ(2u, st.failed_rank);
	EXPECT_EQ(-ETIMEDOUT, st.failure);
	EXPECT_EQ(1ull << 3, st.missing);
	/* another relay after the first changes nothing */
	vn_comm_break_missing(cm, 3, -ETIMEDOUT, 1ull << 2);
	vn_comm_state(cm, &st);
	EXPECT_EQ(2u, st.failed_rank);
	EXPECT_EQ(1ull << 3, st.missing);
	release(in, out);
	vn_comm_destroy(cm);
}

TEST(cost_by_hand)
{
	static const u32 one_dev[N] = { 0, 0, 0, 0 };
	struct vn_comm_params p = {
		.nranks = N, .device = one_dev,
		.intra = vn_cc_intra_device, .inter = vn_cc_inter_device,
	};
	struct vn_comm *cm, *solo;
	u64 mib64 = 64ull << 20;

	ASSERT_EQ(0, vn_comm_create(&p, &cm));
	/* 64 MiB fp32 all-reduce on one device: 6 steps of 16 MiB at 500 GB/s + 1 us */
	EXPECT_EQ(6 * (1000000ull + (16ull << 20) * 1000000 / 500000),
		  vn_cc_cost_ps(cm, VN_CC_ALL_REDUCE, VNEF_DT_FP32, mib64 / 4));
	/* bf16: half the bytes */
	EXPECT_EQ(6 * (1000000ull + (8ull << 20) * 1000000 / 500000),
		  vn_cc_cost_ps(cm, VN_CC_ALL_REDUCE, VNEF_DT_BF16, mib64 / 4));
	EXPECT_EQ(1000000ull + 4000ull * 1000000 / 500000,
		  vn_cc_cost_ps(cm, VN_CC_PERMUTE, VNEF_DT_FP32, 1000));
	vn_comm_destroy(cm);
	p.nranks = 1;
	ASSERT_EQ(0, vn_comm_create(&p, &solo));
	EXPECT_EQ(0ull, vn_cc_cost_ps(solo, VN_CC_ALL_REDUCE, VNEF_DT_FP32, 1000));
	vn_comm_destroy(solo);
	p.nranks = 0;
	EXPECT_EQ(-EINVAL, vn_comm_create(&p, &solo));
	p.nranks = VN_COMM_MAX_RANKS + 1;
	EXPECT_EQ(-EINVAL, vn_comm_create(&p, &solo));
	EXPECT_EQ(0ull, vn_cc_in_bytes(VN_CC_ALL_TO_ALL, 4, VNEF_DT_FP32, UINT64_MAX / 8));
}

TEST(cost_across_nodes_by_hand)
{
	static const u32 dev[N] = { 0, 0, 0, 0 }, split[N] = { 0, 0, 1, 1 },
		interleaved[N] = { 0, 1, 0, 1 };
	struct vn_comm_params p = {
		.nranks = N, .device = dev, .node = split,
		.intra = vn_cc_intra_device, .inter = vn_cc_inter_device,
	};
	struct vn_comm *cm;

	/* net: 100 GB/s per node (100000 B/us), 10 us a hop */
	EXPECT_EQ(100000000000ull, vn_cc_inter_node.bytes_per_s);
	EXPECT_EQ(10000000ull, vn_cc_inter_node.latency_ps);
	ASSERT_EQ(0, vn_comm_create(&p, &cm));
	/*
	 * 32 KiB fp32 all-reduce on 2 nodes of 2 ranks: 6 steps of 8 KiB; the ring's hops 1->2
	 * and 3->0 cross nodes, one per node: 10 us + 8192 B / 100000 B/us = 10.08192 us.
	 */
	EXPECT_EQ(6 * 10081920ull, vn_cc_cost_ps(cm, VN_CC_ALL_REDUCE, VNEF_DT_FP32, 8192));
	EXPECT_EQ(60491520ull, vn_cc_cost_ps(cm, VN_CC_ALL_REDUCE, VNEF_DT_FP32, 8192));
	/* all-gather of 4000 B a rank: 3 steps of 10 us + 40000 ps */
	EXPECT_EQ(3 * 10040000ull, vn_cc_cost_ps(cm, VN_CC_ALL_GATHER, VNEF_DT_FP32, 1000));
	/* permute by one: the crossing pairs decide */
	EXPECT_EQ(10040000ull, vn_cc_cost_ps(cm, VN_CC_PERMUTE, VNEF_DT_FP32, 1000));
	vn_comm_destroy(cm);
	/* interleaved: every hop crosses, two leave each node and share its 100 GB/s */
	p.node = interleaved;
	ASSERT_EQ(0, vn_comm_create(&p, &cm));
	EXPECT_EQ(6 * (10000000ull + 8192ull * 1000000 / 50000),
		  vn_cc_cost_ps(cm, VN_CC_ALL_REDUCE, VNEF_DT_FP32, 8192));
	EXPECT_EQ(60983040ull, vn_cc_cost_ps(cm, VN_CC_ALL_REDUCE, VNEF_DT_FP32, 8192));
	vn_comm_destroy(cm);
	/* the node's link may be given: 1 GB/s, 1 us */
	p.net = (struct vn_cc_link){ .bytes_per_s = 1000000000ull, .latency_ps = 1000000 };
	p.node = split;
	ASSERT_EQ(0, vn_comm_create(&p, &cm));
	EXPECT_EQ(1000000ull + 4000ull * 1000000 / 1000,
		  vn_cc_cost_ps(cm, VN_CC_PERMUTE, VNEF_DT_FP32, 1000));
	/* vn_comm_set_node() moves a rank: all on node 0 is the device model again */
	EXPECT_EQ(0, vn_comm_set_node(cm, 2, 0));
	EXPECT_EQ(0, vn_comm_set_node(cm, 3, 0));
	EXPECT_EQ(-EINVAL, vn_comm_set_node(cm, N, 0));
	EXPECT_EQ(6 * (1000000ull + 8192ull * 1000000 / 500000),
		  vn_cc_cost_ps(cm, VN_CC_ALL_REDUCE, VNEF_DT_FP32, 8192));
	vn_comm_destroy(cm);
}

/* Ranks 2 and 3 on another node: the test plays their proxy, staging their inputs. */
TEST(proxy_posts_remote_ranks)
{
	static const u32 node[N] = { 0, 0, 1, 1 };
	struct vn_comm_params p = {
		.nranks = N, .node = node,
		.intra = vn_cc_intra_device, .inter = vn_cc_inter_device,
	};
	const u64 count = 5000;
	struct vn_cc_pending pend;
	struct vn_cc_result res;
	struct rank_run r[N];
	struct vn_cc_args ra[N];
	void *in[N], *out[N];
	pthread_t t[2];
	struct vn_comm *cm;
	u64 i, cost;
	u32 k;

	ASSERT_EQ(0, vn_comm_create(&p, &cm));
	EXPECT_EQ(-EINVAL, vn_comm_set_remote(cm, N));
	ASSERT_EQ(0, vn_comm_set_remote(cm, 2));
	ASSERT_EQ(0, vn_comm_set_remote(cm, 3));
	setup(r, cm, VN_CC_ALL_REDUCE, VNEF_DT_FP32, count, in, out, count * 4, count * 4);
	for (k = 0; k < N; k++)
		for (i = 0; i < count; i++)
			((float *)in[k])[i] = cc_val(k, i);
	/* a local rank cannot be posted */
	EXPECT_EQ(-EINVAL, vn_comm_arrive(cm, 0, &r[0].a, 0, &res));
	for (k = 0; k < 2; k++)
		pthread_create(&t[k], NULL, rank_thread, &r[k]);
	ASSERT_EQ(0, vn_comm_proxy_wait(cm, vn_time_ns() + 5000000000ull, NULL, &pend));
	EXPECT_EQ(&r[0].a, pend.args[0]);
	EXPECT_EQ(&r[1].a, pend.args[1]);
	EXPECT_EQ(NULL, pend.args[2]);
	EXPECT_EQ(1000ull, pend.arrive_ps[0]);
	EXPECT_EQ(2000ull, pend.arrive_ps[1]);
	for (k = 2; k < N; k++) {
		ra[k] = *pend.args[0];
		ra[k].in = in[k];
		ra[k].out = NULL;	/* the other node writes its own */
	}
	EXPECT_EQ(0, vn_comm_arrive(cm, 2, &ra[2], 9000, &res));
	EXPECT_EQ(0, vn_comm_arrive(cm, 3, &ra[3], 4000, &res));
	for (k = 0; k < 2; k++)
		pthread_join(t[k], NULL);
	cost = vn_cc_cost_ps(cm, VN_CC_ALL_REDUCE, VNEF_DT_FP32, count);
	EXPECT_EQ(9000 + cost, res.done_ps);
	EXPECT_EQ(2u, res.last);
	for (k = 0; k < 2; k++) {
		EXPECT_EQ(0, r[k].ret);
		EXPECT_EQ(9000 + cost, r[k].done_ps);
		EXPECT_EQ(2u, r[k].res.last);
	}
	for (i = 0; i < count; i++) {
		float want = cc_val(0, i);

		for (k = 1; k < N; k++)
			want += cc_val(k, i);
		ASSERT_EQ(0, memcmp(&want, (float *)out[0] + i, 4));
		ASSERT_EQ(0, memcmp(&want, (float *)out[1] + i, 4));
	}
	/* a proxy's failure breaks it for everyone */
	vn_comm_break(cm, 2, -EIO);
	EXPECT_EQ(-EPIPE, vn_comm_proxy_wait(cm, 0, NULL, &pend));
	EXPECT_EQ(-EPIPE, vn_comm_arrive(cm, 2, &ra[2], 0, &res));
	release(in, out);
	vn_comm_destroy(cm);
}

/*
 * vn_comm_proxy_hold(): the local ranks stay at their collective past their time limit
 * until the proxy releases them (their buffers are read meanwhile); refused without a
 * remote rank or for a group collective, which could complete under the hold.
 */
TEST(proxy_hold_keeps_ranks)
{
	static const u32 node[N] = { 0, 0, 1, 1 };
	struct vn_comm_params p = {
		.nranks = N, .node = node,
		.intra = vn_cc_intra_device, .inter = vn_cc_inter_device,
	};
	struct timespec ms200 = { 0, 200000000 };
	struct vn_cc_pending pend;
	struct rank_run r[N];
	void *in[N], *out[N];
	struct vn_comm *cm;
	pthread_t t[2];
	u32 k, pass;

	/* no remote rank: nothing to hold for */
	ASSERT_EQ(0, vn_comm_create(&p, &cm));
	EXPECT_EQ(-EINVAL, vn_comm_proxy_hold(cm, vn_time_ns() + 1000000, NULL, &pend));
	vn_comm_destroy(cm);
	for (pass = 0; pass < 2; pass++) {
		ASSERT_EQ(0, vn_comm_create(&p, &cm));
		ASSERT_EQ(0, vn_comm_set_remote(cm, 2));
		ASSERT_EQ(0, vn_comm_set_remote(cm, 3));
		setup(r, cm, VN_CC_ALL_REDUCE, VNEF_DT_FP32, 64, in, out, 256, 256);
		for (k = 0; k < 2; k++) {
			/* pass 1: groups {0, 2} and {1, 3} */
			r[k].a.group_size = pass ? 2 : 0;
			r[k].a.group_stride = pass ? 2 : 0;
			r[k].deadline_ns = vn_time_ns() + 50000000;
			pthread_create(&t[k], NULL, rank_thread, &r[k]);
		}
		if (pass) {
			EXPECT_EQ(-EINVAL, vn_comm_proxy_hold(cm, vn_time_ns() + 5000000000ull,
							      NULL, &pend));
		} else {
			ASSERT_EQ(0, vn_comm_proxy_hold(cm, vn_time_ns() + 5000000000ull, NULL,
							&pend));
			EXPECT_EQ(&r[0].a, pend.args[0]);
			EXPECT_EQ(&r[1].a, pend.args[1]);
			/* past their time limit, still held */
			nanosleep(&ms200, NULL);
			for (k = 0; k < 2; k++)
				EXPECT_EQ(EBUSY, pthread_tryjoin_np(t[k], NULL));
			vn_comm_proxy_release(cm);
		}
		for (k = 0; k < 2; k++) {
			pthread_join(t[k], NULL);
			EXPECT_EQ(-ETIMEDOUT, r[k].ret);
			/* pass 1: the group of whichever rank gave up first: {2} or {3} */
			if (pass) {
				EXPECT_TRUE(r[k].missing == 4 || r[k].missing == 8);
			} else {
				EXPECT_EQ(0xcull, r[k].missing);
			}
		}
		release(in, out);
		vn_comm_destroy(cm);
	}
}

TEST_HARNESS_MAIN
