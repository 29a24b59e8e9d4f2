// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Host tests of the device core's memory bookkeeping and model table. */
#include "vn_hbm.h"
#include "vn_model.h"
#include "vn_stats.h"

/* The 6.1 harness defines non-static helpers without prototypes. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#define MIB (1024ULL * 1024)
#define GIB (1024 * MIB)

TEST(range_check)
{
	EXPECT_EQ(0, vn_range_check(100, 0, 100));
	EXPECT_EQ(0, vn_range_check(100, 99, 1));
	EXPECT_EQ(-EINVAL, vn_range_check(100, 0, 0));		/* size 0 */
	EXPECT_EQ(-EINVAL, vn_range_check(100, 100, 1));	/* starts at the end */
	EXPECT_EQ(-EINVAL, vn_range_check(100, 1, 100));	/* ends past it */
	EXPECT_EQ(-EINVAL, vn_range_check(100, 101, 0));
	/* offset + size wraps around to a small number */
	EXPECT_EQ(-EINVAL, vn_range_check(100, UINT64_MAX, 2));
	EXPECT_EQ(-EINVAL, vn_range_check(100, 2, UINT64_MAX));
	EXPECT_EQ(-EINVAL, vn_range_check(UINT64_MAX, UINT64_MAX, 1));
	EXPECT_EQ(0, vn_range_check(UINT64_MAX, UINT64_MAX - 1, 1));
	EXPECT_EQ(-EINVAL, vn_range_check(0, 0, 1));
}

TEST(aligned)
{
	EXPECT_EQ((u64)0, vn_hbm_aligned(0));
	EXPECT_EQ((u64)4096, vn_hbm_aligned(1));
	EXPECT_EQ((u64)4096, vn_hbm_aligned(4096));
	EXPECT_EQ((u64)8192, vn_hbm_aligned(4097));
	EXPECT_EQ((u64)0, vn_hbm_aligned(UINT64_MAX));
	EXPECT_EQ((u64)0, vn_hbm_aligned(UINT64_MAX - 4094));
}

TEST(init_rejects)
{
	struct vn_hbm h;

	EXPECT_EQ(-EINVAL, vn_hbm_init(&h, 0, GIB));
	EXPECT_EQ(-EINVAL, vn_hbm_init(&h, 4095, GIB));		/* not page granular */
	EXPECT_EQ(-EINVAL, vn_hbm_init(&h, 2 * GIB, GIB));	/* space < budget */
	EXPECT_EQ(-EINVAL, vn_hbm_init(&h, 4096, UINT64_MAX - 4095));	/* addresses wrap */
	EXPECT_EQ(0, vn_hbm_init(&h, 256 * MIB, 32 * GIB));
	EXPECT_EQ((u64)256 * MIB, h.total);
	EXPECT_EQ((u64)0, h.used);
}

TEST(budget_and_peak)
{
	struct vn_hbm_extent a, b, c;
	struct vn_hbm h;

	ASSERT_EQ(0, vn_hbm_init(&h, 1 * MIB, 16 * GIB));
	EXPECT_EQ(-EINVAL, vn_hbm_reserve(&h, &a, 0));
	EXPECT_EQ(-ENOMEM, vn_hbm_reserve(&h, &a, 1 * MIB + 1));
	EXPECT_EQ(-ENOMEM, vn_hbm_reserve(&h, &a, UINT64_MAX));
	ASSERT_EQ(0, vn_hbm_reserve(&h, &a, 1));
	EXPECT_EQ((u64)4096, a.size);
	EXPECT_EQ((u64)4096, h.used);
	ASSERT_EQ(0, vn_hbm_reserve(&h, &b, 1 * MIB - 4096));
	EXPECT_EQ((u64)1 * MIB, h.used);
	EXPECT_EQ((u64)1 * MIB, h.peak);
	EXPECT_EQ(-ENOMEM, vn_hbm_reserve(&h, &c, 1));		/* full */
	vn_hbm_release(&h, &a);
	EXPECT_EQ((u64)1 * MIB - 4096, h.used);
	EXPECT_EQ((u64)1 * MIB, h.peak);
	ASSERT_EQ(0, vn_hbm_reserve(&h, &c, 4096));
	vn_hbm_release(&h, &b);
	vn_hbm_release(&h, &c);
	EXPECT_EQ((u64)0, h.used);
	EXPECT_EQ((u64)0, h.count);
	EXPECT_EQ(NULL, h.head);
	EXPECT_EQ((u64)1 * MIB, h.peak);
}

TEST(addresses_first_fit)
{
	struct vn_hbm_extent e[4];
	struct vn_hbm h;

	ASSERT_EQ(0, vn_hbm_init(&h, 64 * 4096, 64 * 4096));
	ASSERT_EQ(0, vn_hbm_reserve(&h, &e[0], 4096));
	ASSERT_EQ(0, vn_hbm_reserve(&h, &e[1], 2 * 4096));
	ASSERT_EQ(0, vn_hbm_reserve(&h, &e[2], 4096));
	EXPECT_EQ((u64)VN_HBM_BASE, e[0].addr);
	EXPECT_EQ((u64)VN_HBM_BASE + 4096, e[1].addr);
	EXPECT_EQ((u64)VN_HBM_BASE + 3 * 4096, e[2].addr);
	EXPECT_NE((u64)0, e[0].addr);
	/* A freed hole is reused by what fits in it, and only that. */
	vn_hbm_release(&h, &e[1]);
	ASSERT_EQ(0, vn_hbm_reserve(&h, &e[3], 3 * 4096));
	EXPECT_EQ((u64)VN_HBM_BASE + 4 * 4096, e[3].addr);
	ASSERT_EQ(0, vn_hbm_reserve(&h, &e[1], 4096));
	EXPECT_EQ((u64)VN_HBM_BASE + 4096, e[1].addr);
	/* Lookup by any address inside an extent. */
	EXPECT_EQ(&e[3], vn_hbm_find(&h, VN_HBM_BASE + 6 * 4096 + 17));
	EXPECT_EQ(&e[0], vn_hbm_find(&h, VN_HBM_BASE));
	EXPECT_EQ(NULL, vn_hbm_find(&h, VN_HBM_BASE + 2 * 4096));	/* the hole */
	EXPECT_EQ(NULL, vn_hbm_find(&h, VN_HBM_BASE + 7 * 4096));	/* past the end */
	EXPECT_EQ(NULL, vn_hbm_find(&h, 0));
}

TEST(release_stray_is_noop)
{
	struct vn_hbm_extent e, stray = { .addr = VN_HBM_BASE, .size = 4096 };
	struct vn_hbm h;

	ASSERT_EQ(0, vn_hbm_init(&h, 64 * 4096, 64 * 4096));
	ASSERT_EQ(0, vn_hbm_reserve(&h, &e, 4096));
	vn_hbm_release(&h, &stray);
	EXPECT_EQ(4096U, h.used);
	EXPECT_EQ(&e, h.head);
}

TEST(address_space_fragmentation)
{
	struct vn_hbm_extent e[3];
	struct vn_hbm h;

	/* Budget left, but no gap large enough in a space the size of the budget. */
	ASSERT_EQ(0, vn_hbm_init(&h, 3 * 4096, 3 * 4096));
	ASSERT_EQ(0, vn_hbm_reserve(&h, &e[0], 4096));
	ASSERT_EQ(0, vn_hbm_reserve(&h, &e[1], 4096));
	ASSERT_EQ(0, vn_hbm_reserve(&h, &e[2], 4096));
	vn_hbm_release(&h, &e[0]);
	vn_hbm_release(&h, &e[2]);
	EXPECT_EQ(-ENOMEM, vn_hbm_reserve(&h, &e[0], 2 * 4096));
	EXPECT_EQ((u64)4096, h.used);
}

/* Many reserve/release rounds: the list stays ordered and disjoint. */
TEST(churn_keeps_disjoint)
{
	enum { N = 64 };
	struct vn_hbm_extent e[N];
	bool live[N] = { false };
	struct vn_hbm h;
	unsigned int seed = 1, i, round;

	ASSERT_EQ(0, vn_hbm_init(&h, 256 * 4096, 1024 * 4096));
	for (round = 0; round < 5000; round++) {
		seed = seed * 1103515245 + 12345;
		i = (seed >> 16) % N;
		if (live[i]) {
			vn_hbm_release(&h, &e[i]);
			live[i] = false;
		} else if (!vn_hbm_reserve(&h, &e[i], ((seed >> 8) % 8 + 1) * 3000)) {
			live[i] = true;
		}
		{
			struct vn_hbm_extent *x;
			u64 sum = 0, prev_end = VN_HBM_BASE;

			for (x = h.head; x; x = x->next) {
				ASSERT_GE(x->addr, prev_end);
				prev_end = x->addr + x->size;
				sum += x->size;
			}
			ASSERT_LE(prev_end, VN_HBM_BASE + h.space);
			ASSERT_EQ(sum, h.used);
			ASSERT_LE(h.used, h.peak);
		}
	}
}

TEST(model_trn1)
{
	const struct vneuron_model *m = vn_model_find("trn1");

	ASSERT_NE(NULL, m);
	EXPECT_EQ(&vn_model_trn1, m);
	EXPECT_EQ(NULL, vn_model_find("trn9"));
	EXPECT_EQ(NULL, vn_model_find(NULL));
	EXPECT_EQ(91750400000000ULL, m->peak_flops_bf16);
	EXPECT_EQ((u64)m->peak_flops_bf16 / 4, m->peak_flops_fp32);
	EXPECT_EQ((u64)128, m->tensor_rows);
	EXPECT_EQ((u64)2800000, m->tensor_khz);
	EXPECT_EQ((u64)1120000, m->vector_khz);
	EXPECT_EQ(24ULL * MIB, (u64)m->partitions * m->sbuf_partition_bytes);
	EXPECT_EQ(2ULL * MIB, (u64)m->partitions * m->psum_partition_bytes);
	EXPECT_EQ((u64)512 * 4, m->psum_bank_bytes);
	EXPECT_EQ((u64)16, m->dma_engines);
	EXPECT_EQ(27ULL * GIB, m->dma_engine_bw);
	EXPECT_EQ(410000000000ULL, m->hbm_bw);
	EXPECT_EQ(16ULL * GIB, m->hbm_modeled_bytes);
	EXPECT_EQ((u64)0, m->pad);
}

TEST(counters)
{
	struct vn_core_stats s;

	memset(&s, 0, sizeof(s));
	vn_counter_add(&s.c[VN_STAT_FLOPS], 10);
	vn_counter_add(&s.c[VN_STAT_FLOPS], 5);
	EXPECT_EQ((u64)15, s.c[VN_STAT_FLOPS].total);
	EXPECT_EQ((u64)15, s.c[VN_STAT_FLOPS].present);
	EXPECT_EQ((u64)15, s.c[VN_STAT_FLOPS].peak);
	vn_core_stats_reset(&s);
	vn_counter_add(&s.c[VN_STAT_FLOPS], 3);
	EXPECT_EQ((u64)18, s.c[VN_STAT_FLOPS].total);
	EXPECT_EQ((u64)3, s.c[VN_STAT_FLOPS].present);
	EXPECT_EQ((u64)15, s.c[VN_STAT_FLOPS].peak);
	EXPECT_STREQ("executions_ok", vn_stat_names[VN_STAT_EXEC_OK]);
	EXPECT_STREQ("flops", vn_stat_names[VN_STAT_FLOPS]);
}

TEST_HARNESS_MAIN
