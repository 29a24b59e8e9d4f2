// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The .vnef validator against wrapping sums: every sum it bounds, attacked with values
 * whose sum wraps, is refused with the right check, and the boundary rows load and run.
 */
#include "program_util.h"

/*
 * ---- wrapping sums ----
 *
 * Every sum the validator bounds, attacked with values whose true result is out of range
 * but whose sum modulo 2^64 (or 2^32, 2^16 for narrower arithmetic) is small. Each row
 * first checks, with 128-bit arithmetic, that it really is such a value; then the loader
 * must refuse it with the right check. The boundary rows must still load, and they are run
 * too, in the host build's default mode where any access the executor's own check refuses
 * aborts: the validator and the executor agree on where memory ends.
 */

typedef unsigned __int128 u128;

#define U32M	0xffffffffu
#define SB_PB	VNEF_SBUF_PART_BYTES
#define PS_PB	VNEF_PSUM_PART_BYTES

/* Load base() as changed in b (freed), and if it loaded and c is given, run it on c. */
static int load_base(struct __test_metadata *_metadata, struct vb *b, struct vn_core *c,
		     struct vn_prog_error *err)
{
	float x[32] = { 0 }, y[32];
	struct vn_bind bi[3] = { { x, sizeof(x) }, { y, sizeof(y) }, { NULL, 0 } };
	struct vn_exec_status st;
	uint64_t size;
	uint8_t *img = vb_finish(b, &size);
	int r;

	vb_free(b);
	r = load(img, size, err);
	if (!r && c) {
		EXPECT_EQ(0, run_image(c, img, size, bi, 3, &st));
		EXPECT_EQ(VN_RES_OK, st.result);
	}
	free(img);
	return r;
}

/* Expect load_base() to refuse with check _chk, at section _sec entry _idx. */
#define EXPECT_REFUSED(_b, _chk, _sec, _idx, _what, ...) do {				\
	struct vn_prog_error __e;							\
	int __r = load_base(_metadata, (_b), NULL, &__e);				\
											\
	EXPECT_EQ(-EINVAL, __r) TH_LOG(_what, ##__VA_ARGS__);				\
	EXPECT_EQ((uint32_t)(_chk), __e.check)						\
		TH_LOG("got %s (%s); " _what, vn_check_name(__e.check), __e.msg,	\
		       ##__VA_ARGS__);							\
	EXPECT_EQ((uint32_t)(_sec), __e.section) TH_LOG(_what, ##__VA_ARGS__);		\
	EXPECT_EQ((uint32_t)(_idx), __e.index) TH_LOG(_what, ##__VA_ARGS__);		\
} while (0)

/* Expect it to load (and, given a core, to run without a fault). */
#define EXPECT_ACCEPTED(_b, _core, _what, ...) do {					\
	struct vn_prog_error __e;							\
	int __r = load_base(_metadata, (_b), (_core), &__e);				\
											\
	EXPECT_EQ(0, __r) TH_LOG("got %s (%s); " _what, vn_check_name(__e.check),	\
				 __e.msg, ##__VA_ARGS__);				\
} while (0)

/*
 * An on-chip DMA endpoint and the descriptor's shape. which: 0 is Q0's destination
 * (HBM x to chip), 1 is Q1's source (chip to HBM y); the HBM side reads or writes one
 * place (strides 0), so only the on-chip side can be out of range.
 */
struct chip_ep {
	uint32_t which, mem, partition, c0, ps0, c1, ps1, chunk;
	uint64_t offset, s0, s1;
};

static void set_chip_ep(struct vb *b, const struct chip_ep *e)
{
	struct vnef_dma_desc *d = e->which ? &b->dd[1][0] : &b->dd[0][0];
	struct vnef_dma_ep chip = vb_chip(e->mem, e->partition, e->offset, e->ps0, e->s0,
					  e->ps1, e->s1);

	d->chunk_bytes = e->chunk;
	d->count[0] = e->c0;
	d->count[1] = e->c1;
	if (e->which) {
		d->src = chip;
		d->dst = vb_hbm(1, 0, 0, 0);
	} else {
		d->src = vb_hbm(0, 0, 0, 0);
		d->dst = chip;
	}
}

static const char *const ep_name[2] = { "Q0 dst", "Q1 src" };
static const char *const mem_name[4] = { "none", "SBUF", "PSUM", "HBM" };

/*
 * The attack the last commit closed: partition + (c0 - 1) * ps0 + (c1 - 1) * ps1 wraps
 * 2^64 to a partition below 128, which the old validator accepted (and the DMA then
 * wrote 4 GiB-strided partitions far outside SBUF). With chunk_bytes * c0 * c1 within
 * 16 GiB, the sum can only pass 2^64 with one count 2^32 - 1, the other 4 and both
 * strides 2^32 - 1: it then wraps to partition - 1. partition 128 wraps to 127.
 */
TEST(dma_partition_sum_wrap_is_refused)
{
	static const uint32_t parts[] = { 1, 5, 64, 127, 128 };
	uint32_t w, m, i, big;

	for (w = 0; w < 2; w++)
		for (m = SB; m <= PS; m++)
			for (big = 0; big < 2; big++)
				for (i = 0; i < ARRAY_SIZE(parts); i++) {
					struct chip_ep e = {
						.which = w, .mem = m, .partition = parts[i],
						.c0 = big ? 4 : U32M, .ps0 = U32M,
						.c1 = big ? U32M : 4, .ps1 = U32M, .chunk = 1,
					};
					uint64_t wrapped = e.partition +
						(uint64_t)(e.c0 - 1) * e.ps0 +
						(uint64_t)(e.c1 - 1) * e.ps1;
					u128 last = (u128)e.partition +
						(u128)(e.c0 - 1) * e.ps0 +
						(u128)(e.c1 - 1) * e.ps1;
					struct vb b;

					ASSERT_LT(wrapped, 128ull);
					ASSERT_TRUE(last >= 128);
					ASSERT_LE((uint64_t)e.chunk * e.c0 * e.c1,
						  VNEF_MAX_TENSOR_BYTES);
					base(&b);
					set_chip_ep(&b, &e);
					EXPECT_REFUSED(&b, VNEF_CHK_DMA, w ? S_Q1 : S_Q0, 0,
						       "%s %s partition %u, count[%u] big",
						       ep_name[w], mem_name[m], e.partition, big);
				}
}

/* Sums that do not wrap but end past partition 127, and those that end exactly at it. */
TEST(dma_last_partition_boundary)
{
	static const uint32_t bad[][5] = {	/* partition, c0, ps0, c1, ps1 */
		{ 128, 1, 0, 1, 0 }, { 0, 129, 1, 1, 0 }, { 0, 2, 128, 1, 0 },
		{ 0, 1, 0, 2, 128 }, { 1, 2, 63, 2, 64 }, { 65, 64, 1, 1, 0 },
		{ U32M, 1, 0, 1, 0 }, { 0, 2, U32M, 1, 0 }, { 0, 1, 0, 2, U32M },
		{ U32M, 2, U32M, 2, U32M },
	};
	static const uint32_t good[][5] = {
		{ 127, 1, 0, 1, 0 }, { 0, 128, 1, 1, 0 }, { 0, 2, 127, 1, 0 },
		{ 0, 1, 0, 2, 127 }, { 1, 2, 63, 2, 63 }, { 64, 64, 1, 1, 0 },
		{ 0, 4, 0, 128, 1 }, { 127, 3, 0, 3, 0 },
	};
	uint32_t w, m, i;
	struct vn_core *c;

	ASSERT_EQ(0, vn_core_create(NULL, "pb", &c));
	for (w = 0; w < 2; w++)
		for (m = SB; m <= PS; m++) {
			for (i = 0; i < ARRAY_SIZE(bad); i++) {
				struct chip_ep e = {
					.which = w, .mem = m, .partition = bad[i][0],
					.c0 = bad[i][1], .ps0 = bad[i][2], .c1 = bad[i][3],
					.ps1 = bad[i][4], .chunk = 4,
				};
				struct vb b;

				base(&b);
				set_chip_ep(&b, &e);
				EXPECT_REFUSED(&b, VNEF_CHK_DMA, w ? S_Q1 : S_Q0, 0,
					       "%s %s bad row %u", ep_name[w], mem_name[m], i);
			}
			for (i = 0; i < ARRAY_SIZE(good); i++) {
				struct chip_ep e = {
					.which = w, .mem = m, .partition = good[i][0],
					.c0 = good[i][1], .ps0 = good[i][2], .c1 = good[i][3],
					.ps1 = good[i][4], .chunk = 4,
				};
				struct vb b;

				base(&b);
				set_chip_ep(&b, &e);
				EXPECT_ACCEPTED(&b, c, "%s %s good row %u", ep_name[w],
						mem_name[m], i);
			}
		}
	vn_core_destroy(c);
}

/* Byte offsets: offset + (c0 - 1) * s0 + (c1 - 1) * s1 + chunk_bytes. */
struct byte_row {
	uint64_t offset, s0, s1;
	uint32_t c0, c1, chunk;
};

static u128 byte_end(const struct byte_row *r)
{
	return (u128)r->offset + (u128)(r->c0 - 1) * r->s0 + (u128)(r->c1 - 1) * r->s1 +
	       r->chunk;
}

/* Each wraps 2^64 to a small end, through a different term. */
static const struct byte_row byte_wraps[] = {
	{ ~0ull - 15, 0, 0, 1, 1, 32 },			/* offset + chunk */
	{ ~0ull, 0, 0, 1, 1, 1 },			/* offset + chunk = 2^64 exactly */
	{ 0, 1ull << 63, 0, 3, 1, 1 },			/* (c0 - 1) * s0 = 2^64 */
	{ 0, 0x5555555555555556ull, 0, 4, 1, 4 },	/* 3 * s0 = 2^64 + 2 */
	{ 1ull << 63, 1ull << 62, 0, 3, 1, 1 },		/* offset + span0 */
	{ 0, 1ull << 63, 1ull << 63, 2, 2, 1 },		/* span0 + span1 */
	{ 16, 0, ~0ull, 1, 2, 1 },			/* offset + span1 */
	{ 0, 0, 1ull << 62, 1, 5, 8 },			/* 4 * s1 = 2^64 */
	{ 64, ~0ull - 63, 0, 2, 1, 8 },			/* offset + span0 = 2^64 */
};

/* Bytes past the partition end by one, on chip (SBUF, PSUM) and past a 128-byte tensor. */
static void byte_bad(uint64_t limit, struct byte_row *out)
{
	struct byte_row r[] = {
		{ limit - 31, 0, 0, 1, 1, 32 },
		{ 0, limit - 31, 0, 2, 1, 32 },
		{ 32, 0, limit - 63, 1, 2, 32 },
		{ 0, 16, limit / 2 - 16, 2, 3, 17 },
	};

	memcpy(out, r, sizeof(r));
}

/* Ending exactly at the partition or tensor end. */
static void byte_good(uint64_t limit, struct byte_row *out)
{
	struct byte_row r[] = {
		{ limit - 32, 0, 0, 1, 1, 32 },
		{ 0, limit - 32, 0, 2, 1, 32 },
		{ 32, 0, limit - 64, 1, 2, 32 },
		{ 0, 16, limit / 2 - 16, 2, 3, 16 },
	};

	memcpy(out, r, sizeof(r));
}

/* side: 0 Q0 src (HBM x), 1 Q0 dst (chip), 2 Q1 src (chip), 3 Q1 dst (HBM y). */
static void set_bytes(struct vb *b, uint32_t side, uint32_t mem, const struct byte_row *r)
{
	struct vnef_dma_desc *d = side < 2 ? &b->dd[0][0] : &b->dd[1][0];
	struct vnef_dma_ep *e = side == 0 || side == 2 ? &d->src : &d->dst;
	struct vnef_dma_ep *o = e == &d->src ? &d->dst : &d->src;

	d->chunk_bytes = r->chunk;
	d->count[0] = r->c0;
	d->count[1] = r->c1;
	if (side == 0 || side == 3)
		*e = vb_hbm(side ? 1 : 0, r->offset, r->s0, r->s1);
	else
		*e = vb_chip(mem, 0, r->offset, 0, r->s0, 0, r->s1);
	/* the other side: one place, never out of range */
	if (o->mem == VNEF_MEM_HBM)
		*o = vb_hbm(side < 2 ? 0 : 1, 0, 0, 0);
	else
		*o = vb_chip(o->mem, 0, 0, 0, 0, 0, 0);
}

static const char *const side_name[4] = { "Q0 src HBM", "Q0 dst chip", "Q1 src chip",
					   "Q1 dst HBM" };

TEST(dma_byte_sum_wrap_is_refused)
{
	uint32_t side, m, i;

	for (side = 0; side < 4; side++)
		for (m = SB; m <= PS; m++) {
			if ((side == 0 || side == 3) && m == PS)
				continue;	/* HBM: one pass */
			for (i = 0; i < ARRAY_SIZE(byte_wraps); i++) {
				const struct byte_row *r = &byte_wraps[i];
				uint64_t wrapped = r->offset + (r->c0 - 1) * r->s0 +
						   (r->c1 - 1) * r->s1 + r->chunk;
				struct vb b;

				ASSERT_LE(wrapped, 128ull) TH_LOG("row %u", i);
				ASSERT_TRUE(byte_end(r) > ~0ull) TH_LOG("row %u", i);
				base(&b);
				set_bytes(&b, side, m, r);
				EXPECT_REFUSED(&b, VNEF_CHK_DMA, side < 2 ? S_Q0 : S_Q1, 0,
					       "%s %s wrap row %u", side_name[side], mem_name[m], i);
			}
		}
}

TEST(dma_byte_boundary)
{
	struct byte_row bad[4], good[4];
	uint32_t side, m, i;
	uint64_t limit;
	struct vn_core *c;

	ASSERT_EQ(0, vn_core_create(NULL, "pb", &c));
	for (side = 0; side < 4; side++)
		for (m = SB; m <= PS; m++) {
			bool hbm = side == 0 || side == 3;

			if (hbm && m == PS)
				continue;
			limit = hbm ? 128 : m == SB ? SB_PB : PS_PB;
			byte_bad(limit, bad);
			byte_good(limit, good);
			for (i = 0; i < 4; i++) {
				struct vb b;

				ASSERT_TRUE(byte_end(&bad[i]) == limit + 1) TH_LOG("row %u", i);
				ASSERT_TRUE(byte_end(&good[i]) == limit) TH_LOG("row %u", i);
				base(&b);
				set_bytes(&b, side, m, &bad[i]);
				/* an SBUF range past trn1's partition may fit a larger model */
				EXPECT_REFUSED(&b, !hbm && m == SB ? VNEF_CHK_MODEL : VNEF_CHK_DMA,
					       side < 2 ? S_Q0 : S_Q1, 0, "%s %s bad row %u",
					       side_name[side], mem_name[m], i);
				base(&b);
				set_bytes(&b, side, m, &good[i]);
				EXPECT_ACCEPTED(&b, c, "%s %s good row %u", side_name[side],
						mem_name[m], i);
			}
		}
	vn_core_destroy(c);
}

/* chunk_bytes * count[0] * count[1]: wraps 2^64 (or 2^32) to a size within the limit. */
TEST(dma_size_product_wrap_is_refused)
{
	static const uint32_t rows[][3] = {	/* chunk_bytes, count[0], count[1] */
		{ U32M, U32M, 0x80000000u },	/* (2^32 - 1)^2 * 2^31 = 2^31 mod 2^64 */
		{ 0x80000000u, 0x80000000u, 4 },	/* 2^64: 0 */
		{ 0x10000, 0x10000, 0x10000 },	/* 2^48; 0 in 32 bits */
		{ 1, 0x80000000u, 9 },		/* 2^34 + 2^31: just over */
		{ 2, 0x80000000u, 5 },
	};
	uint32_t i;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		u128 bytes = (u128)rows[i][0] * rows[i][1] * rows[i][2];
		struct vb b;

		ASSERT_TRUE(bytes > VNEF_MAX_TENSOR_BYTES) TH_LOG("row %u", i);
		base(&b);
		Q0.chunk_bytes = rows[i][0];
		Q0.count[0] = rows[i][1];
		Q0.count[1] = rows[i][2];
		Q0.src = vb_hbm(0, 0, 0, 0);
		Q0.dst = vb_chip(SB, 0, 0, 0, 0, 0, 0);
		EXPECT_REFUSED(&b, VNEF_CHK_DMA, S_Q0, 0, "size row %u", i);
	}
	/* exactly 16 GiB (one byte to one place, 2^34 times) is within the limit */
	{
		struct vb b;

		base(&b);
		Q0.chunk_bytes = 1;
		Q0.count[0] = 0x80000000u;
		Q0.count[1] = 8;
		Q0.src = vb_hbm(0, 0, 0, 0);
		Q0.dst = vb_chip(SB, 0, 0, 0, 0, 0, 0);
		EXPECT_ACCEPTED(&b, NULL, "16 GiB");
	}
}

/* Tensor shapes whose byte size wraps 2^64 to the (small) size the table claims. */
TEST(tensor_shape_product_wrap_is_refused)
{
	static const struct {
		uint32_t dtype, rank;
		uint64_t shape[4];
	} rows[] = {
		{ F32, 2, { 1ull << 32, 1ull << 32 } },			/* 0 */
		{ F32, 2, { (1ull << 62) + 1, 4 } },			/* 16 */
		{ F32, 4, { 1ull << 16, 1ull << 16, 1ull << 16, 1ull << 16 } },	/* 0 */
		{ F32, 3, { 3, 0x5555555555555556ull, 1 } },		/* 8 */
		{ F32, 1, { 1ull << 62 } },				/* 0: dtype size */
		{ B16, 1, { (1ull << 63) + 16 } },			/* 32 */
		{ F32, 2, { 1ull << 33, 1 } },				/* 2^35: no wrap */
		{ B16, 4, { 2, 2, 2, 1ull << 31 } },			/* 2^35 */
	};
	uint32_t i, d;

	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		uint64_t wrapped = vn_dtype_size(rows[i].dtype);
		u128 bytes = vn_dtype_size(rows[i].dtype);
		struct vb b;

		for (d = 0; d < rows[i].rank; d++) {
			wrapped *= rows[i].shape[d];
			bytes *= rows[i].shape[d];
		}
		ASSERT_TRUE(bytes > VNEF_MAX_TENSOR_BYTES) TH_LOG("row %u", i);
		base(&b);
		b.ten[1].dtype = rows[i].dtype;
		b.ten[1].rank = rows[i].rank;
		memcpy(b.ten[1].shape, rows[i].shape, sizeof(b.ten[1].shape));
		b.ten[1].size = wrapped;
		EXPECT_REFUSED(&b, VNEF_CHK_TENSOR, S_TEN, 1, "shape row %u", i);
	}
	/* exactly 16 GiB is a valid tensor (y: Q1 writes its first 128 bytes) */
	{
		struct vb b;

		base(&b);
		b.ten[1].shape[0] = 1ull << 16;
		b.ten[1].shape[1] = 1ull << 16;
		b.ten[1].size = 1ull << 34;
		EXPECT_ACCEPTED(&b, NULL, "16 GiB tensor");
	}
}

/*
 * Engine operands: V0 (TENSOR_TENSOR, [4 x 8] fp32 in SBUF) has all three of dst, src0
 * and src1. Each row changes one of them so that its last byte lies past the partition
 * (or its partitions past 127), with sums that wrap in 32 or 16 bits.
 */
struct ap_row {
	const char *what;
	uint16_t mem, start, parts;
	uint32_t offset, c0, s0, c1, s1;
};

static const struct ap_row ap_bad[] = {
	{ "index sum 2^32", SB, 0, 4, 0, 2, U32M, 2, 1 },
	{ "(c0 - 1) * s0 = 2^32", SB, 0, 4, 0, 8, 0x24924925u, 1, 0 },	/* 7 * s0 = 2^32 + 3 */
	{ "(c1 - 1) * s1 = 2^32", SB, 0, 4, 0, 1, 0, 8, 0x24924925u },
	{ "65536 * 65536", SB, 0, 4, 0, 65537, 65536, 1, 0 },
	{ "bytes 2^32", SB, 0, 4, 0, 2, 0x40000000u, 4, 1 },
	{ "offset + 32 > 2^32", SB, 0, 4, 0xfffffffcu, 1, 0, 8, 1 },
	{ "both strides max", SB, 0, 4, 0, 2, U32M, 4, U32M },
	{ "one past SBUF end", SB, 0, 4, SB_PB - 28, 8, 1, 1, 0 },
	{ "one past PSUM end", PS, 0, 4, PS_PB - 28, 8, 1, 1, 0 },
	{ "PSUM stride past", PS, 0, 4, 0, 2, PS_PB / 4, 4, 1 },
	{ "partitions 0xffff + 2", SB, 0xffff, 2, 0, 8, 1, 1, 0 },
	{ "partitions 0xff81 + 0x80", SB, 0xff81, 0x80, 0, 8, 1, 1, 0 },
	{ "partitions 125 + 4", SB, 125, 4, 0, 8, 1, 1, 0 },
	{ "partitions 0xffff", SB, 0, 0xffff, 0, 8, 1, 1, 0 },
};

static const struct ap_row ap_good[] = {
	{ "last 8 of SBUF", SB, 0, 4, SB_PB - 32, 8, 1, 1, 0 },
	{ "last of SBUF by stride", SB, 0, 4, 0, 4, 1, 2, SB_PB / 4 - 4 },
	{ "offset + stride to the end", SB, 0, 4, 4, 2, SB_PB / 4 - 2, 4, 0 },
	{ "last 8 of PSUM", PS, 0, 4, PS_PB - 32, 8, 1, 1, 0 },
	{ "partitions 124..127", SB, 124, 4, 0, 8, 1, 1, 0 },
	{ "PSUM partitions 124..127", PS, 124, 4, PS_PB - 32, 8, 1, 1, 0 },
};

static void set_ap(struct vnef_ap *a, const struct ap_row *r)
{
	*a = vb_ap(r->mem, F32, r->start, r->parts, r->offset, r->c0, r->s0, r->c1, r->s1);
}

TEST(operand_sum_wrap_is_refused)
{
	static const char *const opn[3] = { "dst", "src0", "src1" };
	uint32_t i, o;

	for (i = 0; i < ARRAY_SIZE(ap_bad); i++) {
		const struct ap_row *r = &ap_bad[i];
		u128 end = ((u128)(r->c0 - 1) * r->s0 + (u128)(r->c1 - 1) * r->s1 + 1) * 4 +
			   r->offset;
		uint64_t pb = r->mem == PS ? PS_PB : SB_PB;

		ASSERT_TRUE(end > pb || r->start + r->parts > VNEF_PARTITIONS) TH_LOG("%s", r->what);
		ASSERT_LE((uint64_t)r->c0 * r->c1, VNEF_MAX_FREE) TH_LOG("%s", r->what);
		/* past trn1's SBUF partition but inside a larger model's: a model misfit */
		bool model = r->mem == SB && end <= VNEF_SBUF_PART_BYTES_MAX &&
			     r->start + r->parts <= VNEF_PARTITIONS;

		for (o = 0; o < 3; o++) {
			struct vb b;

			base(&b);
			set_ap(o == 0 ? &V0.dst : o == 1 ? &V0.src0 : &V0.src1, r);
			EXPECT_REFUSED(&b, model ? VNEF_CHK_MODEL : VNEF_CHK_OPERAND, S_V, 0,
				       "%s: %s", opn[o], r->what);
		}
	}
}

TEST(operand_boundary_is_accepted)
{
	static const char *const opn[3] = { "dst", "src0", "src1" };
	uint32_t i, o;
	struct vn_core *c;

	ASSERT_EQ(0, vn_core_create(NULL, "pb", &c));
	for (i = 0; i < ARRAY_SIZE(ap_good); i++) {
		const struct ap_row *r = &ap_good[i];
		u128 end = ((u128)(r->c0 - 1) * r->s0 + (u128)(r->c1 - 1) * r->s1 + 1) * 4 +
			   r->offset;

		ASSERT_TRUE(end == (r->mem == PS ? PS_PB : SB_PB) ||
			    r->start + r->parts == VNEF_PARTITIONS) TH_LOG("%s", r->what);
		for (o = 0; o < 3; o++) {
			struct vb b;

			base(&b);
			set_ap(o == 0 ? &V0.dst : o == 1 ? &V0.src0 : &V0.src1, r);
			EXPECT_ACCEPTED(&b, c, "%s: %s", opn[o], r->what);
		}
	}
	vn_core_destroy(c);
}

/* A TensorE output in PSUM: the operand rules hold as for any other (and the bank rule). */
TEST(tensor_operand_sum_wrap_is_refused)
{
	struct vn_core *c;
	struct vb b;

	ASSERT_EQ(0, vn_core_create(NULL, "pb", &c));
	base(&b);
	T1.dst.count[0] = 2;
	T1.dst.stride[0] = U32M;
	T1.dst.count[1] = 4;
	T1.dst.stride[1] = 1;		/* [4 x 8]; index sum wraps 32 bits to 2 */
	EXPECT_REFUSED(&b, VNEF_CHK_OPERAND, S_T, 1, "MM dst");
	base(&b);
	T0.src0.start_partition = 0xffff;	/* u16 sum wraps to 3 */
	EXPECT_REFUSED(&b, VNEF_CHK_OPERAND, S_T, 0, "stationary");
	base(&b);
	T1.dst.offset = PS_PB - 32;		/* last 8 of the last bank: fine */
	EXPECT_ACCEPTED(&b, c, "MM dst in the last bank");
	vn_core_destroy(c);
}

TEST_HARNESS_MAIN
