/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The communicator tests' shared part (comm_*test.c): collective programs and their
 * C reference, and the comm fixture (/dev/vneuron0 open for writing).
 */
#ifndef COMM_CC_H
#define COMM_CC_H

/* Each test file uses some of these static functions: marked unused for the others. */

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "comm_util.h"
#include "kmod_test.h"
#include "neurondev.h"
#include "vnprog.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmisleading-indentation"
#include "kselftest_harness.h"

#define SEC		1000000000ull
#define NOBODY		65534
#define TEST_GID	4243		/* the node's group while the unprivileged child runs */
#define ID_BYTES	VNEURON_COMM_ID_BYTES
#define NONE		VNEURON_COMM_NONE
#define MAX_RANKS	8		/* ranks these tests run at most */

/* ---- collective programs and their C reference ---- */

struct cc_op {
	uint32_t opcode;		/* enum vnef_cc_opcode */
	enum nd_dtype dt;
	uint64_t count;
	enum nd_alu reduce;
	uint16_t gsize, gstride;
	uint32_t shift;
};

__attribute__((unused))
static uint32_t dt_bytes(enum nd_dtype dt)
{
	return dt == ND_BF16 ? 2 : 4;
}

/* Members of a group under the op's spec on n ranks (0 if it does not fit). */
__attribute__((unused))
static uint32_t members(const struct cc_op *o, uint32_t n, uint32_t rank, uint32_t *m,
			uint32_t *idx)
{
	uint32_t g = o->gsize ? o->gsize : n, s = o->gsize ? (o->gstride ? o->gstride : 1) : 1;
	uint32_t span = g * s, base, k;

	if (!g || span > n || n % span)
		return 0;
	base = rank % s + rank / span * span;
	for (k = 0; k < g; k++)
		m[k] = base + k * s;
	*idx = (rank - base) / s;
	return g;
}

__attribute__((unused))
static uint64_t in_elems(const struct cc_op *o, uint32_t g)
{
	bool all = o->opcode == VNEF_CC_REDUCE_SCATTER || o->opcode == VNEF_CC_ALL_TO_ALL;

	return o->count * (all ? g : 1);
}

__attribute__((unused))
static uint64_t out_elems(const struct cc_op *o, uint32_t g)
{
	bool all = o->opcode == VNEF_CC_ALL_GATHER || o->opcode == VNEF_CC_ALL_TO_ALL;

	return o->count * (all ? g : 1);
}

/* One collective from tensor "in" to tensor "out", sized for groups of g. */
__attribute__((unused))
static int cc_image(const struct cc_op *o, uint32_t g, void **img, size_t *size)
{
	uint64_t ni = in_elems(o, g), no = out_elems(o, g);
	struct nd_builder *b;
	struct nd_tensor *in, *out;
	struct nd_cc cc;
	int ret;

	if (nd_builder_new("cc", &b))
		return -1;
	in = nd_input(b, "in", o->dt, 1, &ni);
	out = nd_output(b, "out", o->dt, 1, &no);
	cc = (struct nd_cc){
		.opcode = o->opcode, .src = in, .dst = out, .count = o->count,
		.reduce = o->reduce, .group_size = o->gsize, .group_stride = o->gstride,
		.shift = o->shift,
	};
	nd_collective(b, &cc);
	ret = nd_builder_finish(b, img, size);
	if (ret)
		fprintf(stderr, "# builder: %s\n", nd_builder_error(b));
	nd_builder_free(b);
	return ret;
}

__attribute__((unused))
static float bf2f(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;

	memcpy(&f, &u, 4);
	return f;
}

__attribute__((unused))
static uint16_t f2bf(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	u += 0x7fff + ((u >> 16) & 1);
	return (uint16_t)(u >> 16);
}

__attribute__((unused))
static float get(const void *p, enum nd_dtype dt, uint64_t e)
{
	return dt == ND_BF16 ? bf2f(((const uint16_t *)p)[e]) : ((const float *)p)[e];
}

__attribute__((unused))
static void put(void *p, enum nd_dtype dt, uint64_t e, float v)
{
	if (dt == ND_BF16)
		((uint16_t *)p)[e] = f2bf(v);
	else
		((float *)p)[e] = v;
}

/* fp32: values in [-1, 1); bf16: small integers, so sums of a few are exact either way. */
__attribute__((unused))
static void fill(void *p, enum nd_dtype dt, uint64_t n, uint64_t seed)
{
	uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1, e;

	for (e = 0; e < n; e++) {
		s = s * 6364136223846793005ull + 1442695040888963407ull;
		if (dt == ND_BF16)
			put(p, dt, e, (float)((int)(s >> 60) - 8));
		else
			put(p, dt, e, (float)((double)(s >> 40) / (double)(1ull << 23) - 1.0));
	}
}

/* What rank r's out must be, given every rank's in: in rank order, fp32, as core/comm.c. */
__attribute__((unused))
static void reference(const struct cc_op *o, uint32_t n, uint32_t r, void *const *in, void *out)
{
	uint32_t m[MAX_RANKS], i, g, k;
	uint64_t e, c = o->count;
	float acc, v;

	g = members(o, n, r, m, &i);
	for (e = 0; e < c; e++) {
		switch (o->opcode) {
		case VNEF_CC_ALL_REDUCE:
		case VNEF_CC_REDUCE_SCATTER: {
			uint64_t at = o->opcode == VNEF_CC_ALL_REDUCE ? e : i * c + e;

			acc = get(in[m[0]], o->dt, at);
			for (k = 1; k < g; k++) {
				v = get(in[m[k]], o->dt, at);
				acc = o->reduce == ND_MAX ? (acc > v ? acc : v) : acc + v;
			}
			put(out, o->dt, e, acc);
			break;
		}
		case VNEF_CC_ALL_GATHER:
			for (k = 0; k < g; k++)
				put(out, o->dt, k * c + e, get(in[m[k]], o->dt, e));
			break;
		case VNEF_CC_ALL_TO_ALL:
			for (k = 0; k < g; k++)
				put(out, o->dt, k * c + e, get(in[m[k]], o->dt, i * c + e));
			break;
		case VNEF_CC_PERMUTE:
			k = (i + g - o->shift % g) % g;
			put(out, o->dt, e, get(in[m[k]], o->dt, e));
			break;
		}
	}
}

/* ---- the fixture: /dev/vneuron0 open for writing ---- */

FIXTURE(comm)
{
	int fd;
	struct vneuron_info info;
};

FIXTURE_SETUP(comm)
{
	self->fd = vn_open();
	ASSERT_LE(0, self->fd) TH_LOG("%s: %s", VN_DEV, strerror(errno));
	ASSERT_EQ(0, vn_ioctl(self->fd, VNEURON_IOCTL_GET_INFO, &self->info));
	if (!(self->info.caps & VNEURON_CAP_COLLECTIVES))
		SKIP(return, "the module has no collectives");
	ASSERT_LE(4, self->info.uapi_version);
}

FIXTURE_TEARDOWN(comm)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* Create, join, info, destroy, and what each handle reports. */

#endif /* COMM_CC_H */
