// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The program runner (libvnprog/vnrun.h) on the host backend: every binding form (the
 * caller's buffers without a copy, .npy files, zeros, the runner's own buffers, output
 * files, every rank at once and {rank} files), every error with its message, runs equal
 * to nd_host_run()'s outputs and modeled times bit for bit, ranks over a host
 * communicator against a C reference, and threads sharing a handle. Cancellation:
 * test_run_cancel.c. The device side: tests/guest/run_test.c.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "vnrun.h"
#include "vn_model.h"
#include "cc_ref.h"
#include "../run_programs.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmisleading-indentation"
#include "kselftest_harness.h"

#define ROWS	RP_ROWS
#define COLS	RP_COLS
#define N	(ROWS * COLS)

/* C [256 x 512] = A [256 x 256] . B [256 x 512], bf16 in, fp32 out. */
static void *matmul_image(size_t *size)
{
	struct nd_builder *b;

	if (nd_builder_new("mm", &b))
		return NULL;
	nd_kernel_matmul(b, 256, 256, 512, ND_BF16, ND_FP32);
	return rp_finish(b, size);
}

static void fill(float *x, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		x[i] = (float)(i % 13) * 0.25f - 1.5f;
}

/* Whether the runner's message contains s (and say it if not). */
static int says(struct nd_runner *r, const char *s)
{
	if (strstr(nd_runner_error(r), s))
		return 1;
	fprintf(stderr, "# message '%s' lacks '%s'\n", nd_runner_error(r), s);
	return 0;
}

FIXTURE(run)
{
	char dir[64];
	char path[256];
	struct nd_runner *r;
	void *img;
	size_t size;
};

FIXTURE_SETUP(run)
{
	struct nd_error err;

	snprintf(self->dir, sizeof(self->dir), "/tmp/vn_test_run.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	self->img = rp_exp(&self->size);
	ASSERT_NE(NULL, self->img);
	ASSERT_EQ(0, nd_runner_open_host(NULL, &self->r, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(1, nd_runner_is_host(self->r));
	EXPECT_STREQ("the host backend", nd_runner_where(self->r));
	EXPECT_EQ(1u, nd_runner_ranks(self->r));
}

FIXTURE_TEARDOWN(run)
{
	char cmd[128];

	nd_runner_close(self->r);
	free(self->img);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	if (system(cmd))
		fprintf(stderr, "# could not remove %s\n", self->dir);
}

/* A .npy of n float32 in dir, shape given. */
static const char *npy(struct __test_metadata *_metadata, char *buf, size_t len,
		       const char *dir, const char *name, const uint64_t *shape,
		       unsigned int ndim, const float *data)
{
	struct nd_error err = { 0 };

	snprintf(buf, len, "%s/%s", dir, name);
	EXPECT_EQ(0, nd_npy_save(buf, shape, ndim, data, &err)) TH_LOG("%s", err.msg);
	return buf;
}

TEST_F(run, tensors_listed_and_found)
{
	struct nd_runner_tensor t;

	EXPECT_EQ(-ENOENT, nd_runner_tensor_count(self->r));
	EXPECT_EQ(-ENOENT, nd_runner_run(self->r, 1, 0, NULL));
	EXPECT_TRUE(says(self->r, "no program loaded"));
	ASSERT_EQ(0, nd_runner_load_image(self->r, self->img, self->size, NULL, NULL))
		TH_LOG("%s", nd_runner_error(self->r));
	ASSERT_EQ(2, nd_runner_tensor_count(self->r));
	ASSERT_EQ(0, nd_runner_tensor(self->r, 0, &t));
	EXPECT_STREQ("in", t.name);
	EXPECT_EQ(VNEF_TENSOR_INPUT, t.kind);
	EXPECT_EQ(VNEF_DT_FP32, t.dtype);
	EXPECT_EQ(2u, t.rank);
	EXPECT_EQ(250u, t.shape[0]);
	EXPECT_EQ(512u, t.shape[1]);
	EXPECT_EQ((uint64_t)N, t.elements);
	EXPECT_EQ((uint64_t)N * 4, t.bytes);
	EXPECT_EQ(1, nd_runner_find(self->r, "out", &t));
	EXPECT_EQ(VNEF_TENSOR_OUTPUT, t.kind);
	EXPECT_EQ(-EINVAL, nd_runner_tensor(self->r, 2, &t));
	EXPECT_EQ(-ENOENT, nd_runner_find(self->r, "nope", &t));
	EXPECT_STREQ("exp has no tensor 'nope'; its inputs: in; its outputs: out",
		     nd_runner_error(self->r));
}

/* The caller's buffers on the host backend: no copy, the same bits as nd_host_run(). */
TEST_F(run, buffers_equal_nd_host_run_bit_for_bit)
{
	static float in[N], out[N], ref[N];
	struct nd_host_tensor ht[] = { { "in", in, sizeof(in) }, { "out", ref, sizeof(ref) } };
	struct nd_run_result res;
	struct nd_runner_exec x[3];
	struct nd_error err;
	size_t msize;
	void *mm = matmul_image(&msize);
	uint16_t *a = malloc(256 * 256 * 2), *bm = malloc(256 * 512 * 2);
	float *c = calloc(256 * 512, 4), *cref = calloc(256 * 512, 4);
	unsigned int i;

	fill(in, N);
	ASSERT_EQ(0, nd_run_on_host(self->img, self->size, ht, 2, &res, &err)) TH_LOG("%s",
										   err.msg);
	ASSERT_EQ(0, nd_runner_load_image(self->r, self->img, self->size, "exp.vnef", NULL));
	ASSERT_EQ(0, nd_runner_bind(self->r, 0, "in", in, sizeof(in)));
	ASSERT_EQ(0, nd_runner_bind(self->r, 0, "out", out, sizeof(out)));
	ASSERT_EQ(0, nd_runner_run(self->r, 3, 0, x)) TH_LOG("%s", nd_runner_error(self->r));
	EXPECT_EQ(0, memcmp(out, ref, sizeof(out)));
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(1, x[i].done);
		EXPECT_EQ(0, x[i].err);
		EXPECT_EQ(res.model_ps, x[i].res.model_ps);
		EXPECT_EQ(VNEURON_EXEC_OK, x[i].res.result);
		EXPECT_LT(0u, x[i].wall_ns);
	}
	ASSERT_EQ(0, nd_runner_result(self->r, 0, &x[0]));
	EXPECT_EQ(res.model_ps, x[0].res.model_ps);
	/* the input is read from the caller's buffer at each run: no copy was kept */
	in[0] = 0.0f;
	ASSERT_EQ(0, nd_runner_run(self->r, 1, 0, NULL));
	EXPECT_EQ(1.0f, out[0]);

	/* a bf16 matmul: another program on the same runner, bound anew */
	ASSERT_NE(NULL, mm);
	for (i = 0; i < 256 * 256; i++)
		a[i] = nd_fp32_to_bf16((float)(i % 7) - 3.0f);
	for (i = 0; i < 256 * 512; i++)
		bm[i] = nd_fp32_to_bf16((float)(i % 5) * 0.5f);
	{
		struct nd_host_tensor mt[] = { { "A", a, 256 * 256 * 2 }, { "B", bm, 256 * 512 * 2 },
					       { "C", cref, 256 * 512 * 4 } };

		ASSERT_EQ(0, nd_run_on_host(mm, msize, mt, 3, &res, &err)) TH_LOG("%s", err.msg);
	}
	ASSERT_EQ(0, nd_runner_load_image(self->r, mm, msize, NULL, NULL));
	ASSERT_EQ(0, nd_runner_bind(self->r, 0, "A", a, 256 * 256 * 2));
	ASSERT_EQ(0, nd_runner_bind(self->r, 0, "B", bm, 256 * 512 * 2));
	ASSERT_EQ(0, nd_runner_bind(self->r, 0, "C", c, 256 * 512 * 4));
	ASSERT_EQ(0, nd_runner_run(self->r, 1, 0, x)) TH_LOG("%s", nd_runner_error(self->r));
	EXPECT_EQ(0, memcmp(c, cref, 256 * 512 * 4));
	EXPECT_EQ(res.model_ps, x[0].res.model_ps);
	free(mm);
	free(a);
	free(bm);
	free(c);
	free(cref);
}

/* .npy in, .npy out (written whole), zeros, the runner's own buffers. */
TEST_F(run, files_zeros_and_own_buffers)
{
	static const uint64_t shape[] = { ROWS, COLS }, flat[] = { N };
	static float in[N], ref[N];
	struct nd_host_tensor ht[] = { { "in", in, sizeof(in) }, { "out", ref, sizeof(ref) } };
	struct nd_run_result res;
	struct nd_error err = { 0 };
	struct nd_npy np;
	char p[256], q[256];
	void *file, *data;
	uint64_t size;
	float *o;
	unsigned int i;

	fill(in, N);
	ASSERT_EQ(0, nd_run_on_host(self->img, self->size, ht, 2, &res, &err));
	ASSERT_EQ(0, nd_runner_load_image(self->r, self->img, self->size, NULL, NULL));
	ASSERT_EQ(0, nd_runner_bind_file(self->r, 0, "in", npy(_metadata, p, sizeof(p),
								self->dir, "in.npy", shape, 2, in),
					 0));
	snprintf(q, sizeof(q), "%s/out.npy", self->dir);
	ASSERT_EQ(0, nd_runner_bind_file(self->r, 0, "out", q, 0)) TH_LOG("%s",
									  nd_runner_error(self->r));
	ASSERT_EQ(0, nd_runner_run(self->r, 2, 0, NULL)) TH_LOG("%s", nd_runner_error(self->r));
	ASSERT_EQ(0, nd_npy_load(q, &np, &file, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(2u, np.ndim);
	EXPECT_EQ((uint64_t)ROWS, np.shape[0]);
	EXPECT_EQ(0, memcmp((char *)file + np.data_off, ref, sizeof(ref)));
	free(file);
	/* the buffer the file is written from, the binding kept */
	ASSERT_EQ(0, nd_runner_data(self->r, 0, "out", &data, &size));
	EXPECT_EQ(sizeof(ref), size);
	EXPECT_EQ(0, memcmp(data, ref, sizeof(ref)));

	/* a flat file of the same elements: only with ND_BIND_ANY_SHAPE */
	ASSERT_EQ(0, nd_runner_unbind(self->r, 0, "in"));
	npy(_metadata, p, sizeof(p), self->dir, "flat.npy", flat, 1, in);
	EXPECT_EQ(-EINVAL, nd_runner_bind_file(self->r, 0, "in", p, 0));
	EXPECT_TRUE(says(self->r, "flat.npy: shape [128000], input 'in' is fp32 [250, 512]"));
	EXPECT_EQ(0, nd_runner_bind_file(self->r, 0, "in", p, ND_BIND_ANY_SHAPE));

	/* zeros: exp(0) = 1 everywhere; the output file replaced only when forced */
	ASSERT_EQ(0, nd_runner_unbind(self->r, 0, "in"));
	ASSERT_EQ(0, nd_runner_bind_zeros(self->r, 0, NULL));
	ASSERT_EQ(0, nd_runner_unbind(self->r, 0, "out"));
	EXPECT_EQ(-EEXIST, nd_runner_bind_file(self->r, 0, "out", q, 0));
	EXPECT_TRUE(says(self->r, "out.npy exists; use --force-overwrite to replace it"));
	ASSERT_EQ(0, nd_runner_bind_file(self->r, 0, "out", q, ND_BIND_FORCE));
	ASSERT_EQ(0, nd_runner_run(self->r, 1, 0, NULL)) TH_LOG("%s", nd_runner_error(self->r));
	ASSERT_EQ(0, nd_npy_load(q, &np, &file, &err)) TH_LOG("%s", err.msg);
	o = (float *)((char *)file + np.data_off);
	for (i = 0; i < N && o[i] == 1.0f; i++)
		;
	EXPECT_EQ(N, i);
	free(file);

	/* the runner's own input buffer, filled in place */
	ASSERT_EQ(0, nd_runner_data(self->r, 0, "in", &data, &size));
	memcpy(data, in, sizeof(in));
	ASSERT_EQ(0, nd_runner_unbind(self->r, 0, "out"));
	ASSERT_EQ(0, nd_runner_run(self->r, 1, 0, NULL)) TH_LOG("%s", nd_runner_error(self->r));
	ASSERT_EQ(0, nd_runner_data(self->r, 0, "out", &data, NULL));
	EXPECT_EQ(0, memcmp(data, ref, sizeof(ref)));
	/* nothing left behind in the folder but the two inputs and the output */
	snprintf(p, sizeof(p), "test $(ls -A %s | wc -l) = 3", self->dir);
	EXPECT_EQ(0, system(p));
}

/* bf16 tensors: float32 files rounded to nearest even, outputs widened. */
TEST_F(run, bf16_files)
{
	static const uint64_t sa[] = { 256, 256 }, sb[] = { 256, 512 };
	float *a = malloc(256 * 256 * 4), *b = malloc(256 * 512 * 4);
	uint16_t *ah = malloc(256 * 256 * 2), *bh = malloc(256 * 512 * 2);
	float *c = calloc(256 * 512, 4);
	struct nd_host_tensor mt[] = { { "A", ah, 256 * 256 * 2 }, { "B", bh, 256 * 512 * 2 },
				       { "C", c, 256 * 512 * 4 } };
	struct nd_run_result res;
	struct nd_error err = { 0 };
	struct nd_npy np;
	char p[256];
	size_t msize;
	void *mm = matmul_image(&msize), *file;
	unsigned int i;

	for (i = 0; i < 256 * 256; i++) {
		a[i] = (float)i * 0.001f;
		ah[i] = nd_fp32_to_bf16(a[i]);
	}
	for (i = 0; i < 256 * 512; i++) {
		b[i] = 1.0f / (float)(i + 1);
		bh[i] = nd_fp32_to_bf16(b[i]);
	}
	ASSERT_EQ(0, nd_run_on_host(mm, msize, mt, 3, &res, &err));
	ASSERT_EQ(0, nd_runner_load_image(self->r, mm, msize, NULL, NULL));
	ASSERT_EQ(0, nd_runner_bind_file(self->r, 0, "A", npy(_metadata, p, sizeof(p),
							       self->dir, "a.npy", sa, 2, a), 0));
	ASSERT_EQ(0, nd_runner_bind_file(self->r, 0, "B", npy(_metadata, p, sizeof(p),
							       self->dir, "b.npy", sb, 2, b), 0));
	snprintf(p, sizeof(p), "%s/c.npy", self->dir);
	ASSERT_EQ(0, nd_runner_bind_file(self->r, 0, "C", p, 0));
	ASSERT_EQ(0, nd_runner_run(self->r, 1, 0, NULL)) TH_LOG("%s", nd_runner_error(self->r));
	ASSERT_EQ(0, nd_npy_load(p, &np, &file, &err)) TH_LOG("%s", err.msg);
	EXPECT_EQ(0, memcmp((char *)file + np.data_off, c, 256 * 512 * 4));
	free(file);
	free(mm);
	free(a);
	free(b);
	free(ah);
	free(bh);
	free(c);
}

TEST_F(run, every_error_says_what)
{
	static const uint64_t shape[] = { ROWS, COLS }, small[] = { 3, 4 };
	static float in[N], out[N];
	struct nd_load_error le;
	char p[256], q[256];
	void *bad;

	/* refused by the validator: the check, and le says which */
	bad = malloc(self->size);
	memcpy(bad, self->img, self->size);
	((struct vnef_header *)bad)->version = 99;
	EXPECT_EQ(-EINVAL, nd_runner_load_image(self->r, bad, self->size, "bad.vnef", &le));
	EXPECT_TRUE(says(self->r, "bad.vnef: refused by the validator: version check"));
	EXPECT_EQ(VNEF_CHK_VERSION, le.check);
	free(bad);
	snprintf(p, sizeof(p), "%s/none.vnef", self->dir);
	EXPECT_EQ(-ENOENT, nd_runner_load_file(self->r, p, &le));
	EXPECT_TRUE(says(self->r, "none.vnef: No such file"));
	EXPECT_EQ(0u, le.check);

	/* an image written as a file, then its errors */
	snprintf(p, sizeof(p), "%s/exp.vnef", self->dir);
	ASSERT_EQ(0, nd_vnef_write(p, self->img, self->size, NULL));
	ASSERT_EQ(0, nd_runner_load_file(self->r, p, &le));
	EXPECT_EQ(-ENOENT, nd_runner_bind(self->r, 0, "nope", in, sizeof(in)));
	EXPECT_TRUE(says(self->r, "exp.vnef has no tensor 'nope'; its inputs: in; its outputs: out"));
	EXPECT_EQ(-ENOENT, nd_runner_bind_zeros(self->r, 0, "out"));
	EXPECT_TRUE(says(self->r, "exp.vnef has no input 'out'; its inputs: in"));
	EXPECT_EQ(-ENOSPC, nd_runner_bind(self->r, 0, "in", in, 100));
	EXPECT_TRUE(says(self->r, "input 'in' needs 512000 bytes; the buffer has 100"));
	EXPECT_EQ(-EINVAL, nd_runner_bind(self->r, 0, "in", NULL, sizeof(in)));
	EXPECT_EQ(-EINVAL, nd_runner_bind(self->r, 1, "in", in, sizeof(in)));
	EXPECT_TRUE(says(self->r, "rank 1: the runner has 1 rank"));
	/* a missing input */
	ASSERT_EQ(0, nd_runner_bind(self->r, 0, "out", out, sizeof(out)));
	EXPECT_EQ(-ENOENT, nd_runner_run(self->r, 1, 0, NULL));
	EXPECT_TRUE(says(self->r, "input 'in' is not bound; bind it or give zeros"));
	EXPECT_EQ(-EINVAL, nd_runner_run(self->r, 0, 0, NULL));
	/* .npy files: the element count, the shape, the dtype, a truncated file */
	npy(_metadata, q, sizeof(q), self->dir, "small.npy", small, 2, in);
	EXPECT_EQ(-EINVAL, nd_runner_bind_file(self->r, 0, "in", q, 0));
	EXPECT_TRUE(says(self->r, "small.npy: 12 elements, input 'in' has 128000 (the file "
			 "[3, 4], the tensor fp32 [250, 512])"));
	snprintf(q, sizeof(q), "%s/f8.npy", self->dir);
	{
		FILE *f = fopen(q, "wb");
		static const char h[] = "{'descr': '<f8', 'fortran_order': False, "
					"'shape': (2,), }\n";

		ASSERT_NE(NULL, f);
		fwrite("\x93NUMPY\x01\x00", 1, 8, f);
		fputc((int)sizeof(h) - 1, f);
		fputc(0, f);
		fwrite(h, 1, sizeof(h) - 1, f);
		fwrite(in, 8, 2, f);
		fclose(f);
	}
	EXPECT_EQ(-EINVAL, nd_runner_bind_file(self->r, 0, "in", q, 0));
	EXPECT_TRUE(says(self->r, "f8.npy: .npy dtype '<f8'"));
	snprintf(q, sizeof(q), "%s/raw.bin", self->dir);
	{
		FILE *f = fopen(q, "wb");

		ASSERT_NE(NULL, f);
		fwrite(in, 1, 1000, f);
		fclose(f);
	}
	EXPECT_EQ(-EINVAL, nd_runner_bind_file(self->r, 0, "in", q, 0));
	EXPECT_TRUE(says(self->r, "raw.bin: not a .npy file"));
	EXPECT_EQ(-EINVAL, nd_runner_bind_file(self->r, 0, "in", q, ND_BIND_RAW));
	EXPECT_TRUE(says(self->r, "input 'in': "));
	EXPECT_TRUE(says(self->r, "raw.bin is 1000 bytes of raw data, the tensor 512000 bytes"));
	/* bound twice; an output over the program or an input, even forced */
	npy(_metadata, q, sizeof(q), self->dir, "in.npy", shape, 2, in);
	ASSERT_EQ(0, nd_runner_bind_file(self->r, 0, "in", q, 0));
	EXPECT_EQ(-EEXIST, nd_runner_bind_file(self->r, 0, "in", q, 0));
	EXPECT_TRUE(says(self->r, "input 'in' is bound twice"));
	EXPECT_EQ(-EEXIST, nd_runner_bind(self->r, 0, "in", in, sizeof(in)));
	EXPECT_EQ(-EINVAL, nd_runner_bind_file(self->r, 0, "out", q, ND_BIND_FORCE));
	EXPECT_TRUE(says(self->r, "the output would overwrite the input"));
	EXPECT_EQ(-EINVAL, nd_runner_bind_file(self->r, 0, "out", p, ND_BIND_FORCE));
	EXPECT_EQ(-EINVAL, nd_runner_bind_file(self->r, 0, "out", q, 99));
	/* an output file whose folder is gone: the run's outputs stay in the buffers */
	snprintf(q, sizeof(q), "%s/gone/out.npy", self->dir);
	ASSERT_EQ(0, nd_runner_bind_file(self->r, 0, "out", q, 0));
	EXPECT_EQ(-ENOENT, nd_runner_run(self->r, 1, 0, NULL));
	EXPECT_TRUE(says(self->r, "gone/out.npy"));
	/* ranks once, before a program */
	EXPECT_EQ(-EBUSY, nd_runner_set_ranks(self->r, &(struct nd_runner_ranks){ .count = 2 }));
	nd_runner_unload(self->r);
	EXPECT_EQ(-EINVAL, nd_runner_set_ranks(self->r, &(struct nd_runner_ranks){ .count = 65 }));
	EXPECT_EQ(-EINVAL, nd_runner_set_host_comm(self->r, NULL, 0));
	EXPECT_EQ(-ENOENT, nd_runner_bind_zeros(self->r, 0, NULL));
}

/* A constant cannot be bound; scratch may be (read back on a device). */
/* What nd_runner_set_each() saw: the executions in order, when to stop. */
struct each_log {
	unsigned int calls, last, stop_at, ranks;
	int ok;
	struct nd_runner *r;
	char what[64];
};

static int each_fn(void *arg, unsigned int exec, const struct nd_runner_exec *x,
		   unsigned int ranks)
{
	struct each_log *l = arg;

	l->calls++;
	l->ok &= exec == l->last + 1 && x[0].done && !x[0].err;
	l->last = exec;
	l->ranks = ranks;
	/* the one call the function may make: no deadlock on the handle's lock */
	nd_runner_describe(l->r, 0, &x[0], l->what, sizeof(l->what));
	return exec == l->stop_at;
}

/*
 * The function between executions (a tracer's): called after each one in order with its
 * entries, and a nonzero return stops the runs there with 0; ND_BIND_LITERAL reads a
 * file called "{rank}" as it is.
 */
TEST_F(run, each_execution_and_literal_paths)
{
	static const uint64_t shape[] = { ROWS, COLS };
	static float in[N];
	struct each_log l = { .ok = 1, .stop_at = 3, .r = self->r };
	struct nd_runner_exec ex[5];
	const void *bytes;
	uint64_t size;
	char p[256];

	fill(in, N);
	ASSERT_EQ(0, nd_runner_load_image(self->r, self->img, self->size, NULL, NULL));
	npy(_metadata, p, sizeof(p), self->dir, "in.{rank}.npy", shape, 2, in);
	EXPECT_EQ(-ENOENT, nd_runner_bind_file(self->r, 0, "in", p, 0));
	EXPECT_TRUE(says(self->r, "in.0.npy"));
	ASSERT_EQ(0, nd_runner_bind_file(self->r, 0, "in", p, ND_BIND_LITERAL))
		TH_LOG("%s", nd_runner_error(self->r));
	/* the bytes read, for another runner to bind (capture's device runs) */
	EXPECT_EQ(0, nd_runner_input(self->r, 0, "in", &bytes, &size));
	EXPECT_EQ(sizeof(in), size);
	EXPECT_EQ(0, memcmp(bytes, in, sizeof(in)));
	EXPECT_EQ(-ENOENT, nd_runner_input(self->r, 0, "out", &bytes, &size));
	EXPECT_EQ(-EINVAL, nd_runner_input(self->r, ND_RUNNER_ALL, "in", &bytes, &size));
	nd_runner_set_each(self->r, each_fn, &l);
	EXPECT_EQ(0, nd_runner_run(self->r, 5, 0, NULL)) TH_LOG("%s", nd_runner_error(self->r));
	EXPECT_EQ(3u, l.calls);
	EXPECT_EQ(1u, l.ranks);
	EXPECT_TRUE(l.ok);
	EXPECT_STREQ("ok", l.what);
	/* with the caller's entries too, and every execution when it never stops */
	l = (struct each_log){ .ok = 1, .r = self->r };
	EXPECT_EQ(0, nd_runner_run(self->r, 5, 0, ex));
	EXPECT_EQ(5u, l.calls);
	EXPECT_TRUE(l.ok);
	EXPECT_EQ(1, ex[4].done);
	nd_runner_set_each(self->r, NULL, NULL);
	l.calls = 0;
	EXPECT_EQ(0, nd_runner_run(self->r, 2, 0, NULL));
	EXPECT_EQ(0u, l.calls);
}

/* What nd_runner_set_wait() saw: its calls, on which thread, when to cancel. */
struct wait_log {
	unsigned int calls, cancel_at;
	int other_thread;
	pthread_t caller;
	struct nd_runner *r;
};

static void wait_fn(void *arg)
{
	struct wait_log *l = arg;

	l->calls++;
	l->other_thread |= !pthread_equal(pthread_self(), l->caller);
	if (l->calls == l->cancel_at)
		nd_runner_cancel(l->r);	/* takes no lock: the one call it may make */
}

/*
 * The wait function (Python's Ctrl-C handler check): once per execution submitted, on
 * the caller's thread; a cancel from it ends the runs there (the wait looks at the flag
 * right after); none for a run that submits nothing, none once unset.
 */
TEST_F(run, wait_function)
{
	static float in[N], out[N];
	struct wait_log l = { .caller = pthread_self(), .r = self->r };
	struct nd_runner_exec ex[5];

	fill(in, N);
	nd_runner_set_wait(self->r, wait_fn, &l);
	EXPECT_EQ(-ENOENT, nd_runner_run(self->r, 1, 0, NULL));	/* no program */
	EXPECT_EQ(0u, l.calls);
	ASSERT_EQ(0, nd_runner_load_image(self->r, self->img, self->size, NULL, NULL));
	ASSERT_EQ(0, nd_runner_bind(self->r, 0, "in", in, sizeof(in)));
	ASSERT_EQ(0, nd_runner_bind(self->r, 0, "out", out, sizeof(out)));
	EXPECT_EQ(0, nd_runner_run(self->r, 3, 0, NULL)) TH_LOG("%s", nd_runner_error(self->r));
	EXPECT_EQ(3u, l.calls);
	EXPECT_FALSE(l.other_thread);
	l.calls = 0;
	l.cancel_at = 2;
	EXPECT_EQ(-EINTR, nd_runner_run(self->r, 5, 0, ex));
	EXPECT_EQ(2u, l.calls);
	EXPECT_EQ(0, ex[0].err);
	/* aborted, or it ended before the cancel reached it: the runs stop there anyway */
	EXPECT_EQ(1, ex[1].done);
	EXPECT_TRUE(ex[1].err == -EINTR || !ex[1].err);
	EXPECT_EQ(0, ex[2].done);
	nd_runner_set_wait(self->r, NULL, NULL);
	l.calls = 0;
	EXPECT_EQ(0, nd_runner_run(self->r, 2, 0, NULL));
	EXPECT_EQ(0u, l.calls);
	nd_runner_set_wait(NULL, wait_fn, &l);
}

TEST(run_consts)
{
	static const uint64_t shape[] = { 128, 4 };
	static float k[128 * 4], y[128 * 4], s[128 * 4];
	struct nd_builder *b;
	struct nd_runner *r;
	struct nd_error err;
	struct nd_tensor *tk, *ts, *ty;
	struct nd_tile *t;
	size_t size;
	void *img;
	unsigned int i;

	for (i = 0; i < 128 * 4; i++)
		k[i] = (float)i;
	ASSERT_EQ(0, nd_builder_new("consts", &b));
	tk = nd_const(b, "k", ND_FP32, 2, shape, k);
	ts = nd_scratch(b, "s", ND_FP32, 2, shape);
	ty = nd_output(b, "y", ND_FP32, 2, shape);
	t = nd_sbuf(b, "t", ND_FP32, 128, 4);
	nd_load(b, 0, nd_whole(t), nd_hbm_rows(tk, 0, 0));
	nd_store(b, 1, nd_hbm_rows(ts, 0, 0), nd_whole(t));
	nd_store(b, 2, nd_hbm_rows(ty, 0, 0), nd_whole(t));
	img = rp_finish(b, &size);
	ASSERT_NE(NULL, img);
	ASSERT_EQ(0, nd_runner_open_host(&vn_model_trn1, &r, &err));
	ASSERT_EQ(0, nd_runner_load_image(r, img, size, NULL, NULL));
	EXPECT_EQ(-EINVAL, nd_runner_bind(r, 0, "k", k, sizeof(k)));
	EXPECT_STREQ("tensor 'k' is a constant of consts; it cannot be bound", nd_runner_error(r));
	ASSERT_EQ(0, nd_runner_bind(r, 0, "s", s, sizeof(s)));
	ASSERT_EQ(0, nd_runner_bind(r, 0, "y", y, sizeof(y)));
	ASSERT_EQ(0, nd_runner_run(r, 1, 0, NULL)) TH_LOG("%s", nd_runner_error(r));
	EXPECT_EQ(0, memcmp(k, y, sizeof(k)));
	EXPECT_EQ(0, memcmp(k, s, sizeof(k)));
	nd_runner_close(r);
	free(img);
}

#define NR	4
#define CN	RP_CN

/* Host ranks fill devices of the model's cores: 8 a trn2, as the module's default. */
TEST(host_ranks_follow_the_model)
{
	const struct vneuron_model *m = NULL;
	struct nd_runner_place pl;
	struct nd_runner *r;
	struct nd_error err;
	unsigned int i;

	ASSERT_EQ(0, nd_model_lookup("trn2", &m, &err));
	ASSERT_EQ(0, nd_runner_open_host(m, &r, &err));
	ASSERT_EQ(0, nd_runner_set_ranks(r, &(struct nd_runner_ranks){ .count = 10 }))
		TH_LOG("%s", nd_runner_error(r));
	for (i = 0; i < 10; i++) {
		ASSERT_EQ(0, nd_runner_place(r, i, &pl));
		EXPECT_EQ(i / 8, pl.device);
		EXPECT_EQ(i % 8, pl.core);
	}
	nd_runner_close(r);
}

/* nd_runner_set_lnc(): trn2 takes 2, trn1 and other counts are refused, and ranks. */
TEST(runner_lnc)
{
	const struct vneuron_model *m = NULL;
	struct nd_runner *r;
	struct nd_error err;

	ASSERT_EQ(0, nd_runner_open_host(NULL, &r, &err));
	EXPECT_EQ(-EINVAL, nd_runner_set_lnc(r, 2));
	EXPECT_NE(NULL, strstr(nd_runner_error(r), "model trn1 has no logical cores"));
	nd_runner_close(r);
	ASSERT_EQ(0, nd_model_lookup("trn2", &m, &err));
	ASSERT_EQ(0, nd_runner_open_host(m, &r, &err));
	EXPECT_EQ(-EINVAL, nd_runner_set_lnc(r, 3));
	EXPECT_EQ(-EINVAL, nd_runner_set_lnc(r, 0));
	ASSERT_EQ(0, nd_runner_set_lnc(r, 2)) TH_LOG("%s", nd_runner_error(r));
	EXPECT_STREQ("the host backend (trn2, LNC=2)", nd_runner_where(r));
	EXPECT_EQ(-EINVAL, nd_runner_set_ranks(r, &(struct nd_runner_ranks){ .count = 2 }));
	EXPECT_NE(NULL, strstr(nd_runner_error(r), "LNC=2"));
	nd_runner_close(r);
}

/* 4 ranks on 2 modeled devices over a host communicator, against the C reference. */
TEST(run_ranks)
{
	static const uint64_t shape[] = { 128, 64 };
	float *x[NR], *y[NR], ref[CN];
	const struct cc_ref_in twice = { (const float *const *)x, 2.0f };
	struct nd_runner_exec ex[2 * NR];
	struct nd_runner_place pl;
	struct nd_runner *r;
	struct nd_error err;
	char dir[] = "/tmp/vn_test_ranks.XXXXXX", p[128], cmd[160];
	size_t size;
	void *img = rp_allreduce(&size);
	unsigned int i;
	size_t e;

	ASSERT_NE(NULL, img);
	ASSERT_NE(NULL, mkdtemp(dir));
	ASSERT_EQ(0, nd_runner_open_host(NULL, &r, &err));
	ASSERT_EQ(0, nd_runner_set_ranks(r, &(struct nd_runner_ranks){ .count = NR }))
		TH_LOG("%s", nd_runner_error(r));
	EXPECT_EQ(NR, nd_runner_ranks(r));
	for (i = 0; i < NR; i++) {
		ASSERT_EQ(0, nd_runner_place(r, i, &pl));
		EXPECT_EQ(i / 2, pl.device);	/* two host cores a modeled device */
		EXPECT_EQ(i % 2, pl.core);
		EXPECT_EQ(i, pl.rank);
		EXPECT_NE(NULL, nd_runner_host(r, i));
		EXPECT_EQ(NULL, nd_runner_device(r, i));
	}
	EXPECT_EQ(-EINVAL, nd_runner_place(r, NR, &pl));
	ASSERT_EQ(0, nd_runner_load_image(r, img, size, NULL, NULL));
	for (i = 0; i < NR; i++) {
		x[i] = malloc(CN * sizeof(float));
		y[i] = calloc(CN, sizeof(float));
		cc_fill(x[i], CN, i + 1);
		ASSERT_EQ(0, nd_runner_bind(r, i, "x", x[i], CN * sizeof(float)));
		ASSERT_EQ(0, nd_runner_bind(r, i, "y", y[i], CN * sizeof(float)));
	}
	EXPECT_EQ(-EINVAL, nd_runner_bind(r, ND_RUNNER_ALL, "y", y[0], CN * sizeof(float)));
	EXPECT_TRUE(says(r, "output 'y': 4 ranks cannot write one buffer"));
	for (e = 0; e < CN; e++)
		ref[e] = cc_ref_reduce(&twice, VN_CC_SUM, NR, e) + 1.0f;
	ASSERT_EQ(0, nd_runner_run(r, 2, 0, ex)) TH_LOG("%s", nd_runner_error(r));
	for (i = 0; i < NR; i++) {
		EXPECT_EQ(0, memcmp(ref, y[i], sizeof(ref))) TH_LOG("rank %u", i);
		EXPECT_EQ(ex[0].res.model_ps, ex[i].res.model_ps);
		EXPECT_EQ(ex[0].res.model_ps, ex[NR + i].res.model_ps);
	}

	/* every rank's input from its own {rank} file, outputs to theirs */
	for (i = 0; i < NR; i++) {
		char name[32];

		snprintf(name, sizeof(name), "x.%u.npy", i);
		npy(_metadata, p, sizeof(p), dir, name, shape, 2, x[i]);
		ASSERT_EQ(0, nd_runner_unbind(r, i, "y"));
	}
	snprintf(p, sizeof(p), "%s/x.{rank}.npy", dir);
	ASSERT_EQ(0, nd_runner_bind_file(r, ND_RUNNER_ALL, "x", p, 0)) TH_LOG("%s",
									      nd_runner_error(r));
	snprintf(p, sizeof(p), "%s/y.npy", dir);
	EXPECT_EQ(-EINVAL, nd_runner_bind_file(r, ND_RUNNER_ALL, "y", p, 0));
	EXPECT_TRUE(says(r, "output 'y': 4 ranks cannot write one file (put {rank} in"));
	snprintf(p, sizeof(p), "%s/y.{rank}.npy", dir);
	ASSERT_EQ(0, nd_runner_bind_file(r, ND_RUNNER_ALL, "y", p, 0));
	ASSERT_EQ(0, nd_runner_run(r, 1, 0, NULL)) TH_LOG("%s", nd_runner_error(r));
	for (i = 0; i < NR; i++) {
		struct nd_npy np;
		void *file;

		snprintf(p, sizeof(p), "%s/y.%u.npy", dir, i);
		ASSERT_EQ(0, nd_npy_load(p, &np, &file, &err)) TH_LOG("%s", err.msg);
		EXPECT_EQ(0, memcmp(ref, (char *)file + np.data_off, sizeof(ref)));
		free(file);
	}
	/* one file for every rank: each reads it (all_reduce of 4 x the same input) */
	ASSERT_EQ(0, nd_runner_unbind(r, ND_RUNNER_ALL, "x"));
	snprintf(p, sizeof(p), "%s/x.0.npy", dir);
	ASSERT_EQ(0, nd_runner_bind_file(r, ND_RUNNER_ALL, "x", p, 0));
	ASSERT_EQ(0, nd_runner_run(r, 1, 0, NULL)) TH_LOG("%s", nd_runner_error(r));
	nd_runner_close(r);
	for (i = 0; i < NR; i++) {
		free(x[i]);
		free(y[i]);
	}
	free(img);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	EXPECT_EQ(0, system(cmd));
}

/* Two runners of two ranks each on one communicator of four (the caller's), as nodes. */
struct half {
	struct nd_runner *r;
	int ret;
};

static void *half_main(void *arg)
{
	struct half *h = arg;

	h->ret = nd_runner_run(h->r, 1, 0, NULL);
	return NULL;
}

TEST(run_ranks_caller_comm)
{
	float *x[NR], *y[NR], ref[CN];
	const struct cc_ref_in twice = { (const float *const *)x, 2.0f };
	static const uint32_t devices[NR] = { 0, 0, 1, 1 };
	struct nd_runner_place pl;
	struct nd_host_comm *c;
	struct nd_error err;
	struct half h[2];
	pthread_t th[2];
	size_t size, e;
	void *img = rp_allreduce(&size);
	unsigned int i, k;

	ASSERT_NE(NULL, img);
	ASSERT_EQ(0, nd_host_comm_new(NR, devices, &c));
	for (i = 0; i < NR; i++) {
		x[i] = malloc(CN * sizeof(float));
		y[i] = calloc(CN, sizeof(float));
		cc_fill(x[i], CN, i + 7);
	}
	for (k = 0; k < 2; k++) {
		struct nd_runner *r;

		ASSERT_EQ(0, nd_runner_open_host(NULL, &r, &err));
		h[k].r = r;
		ASSERT_EQ(0, nd_runner_set_ranks(r, &(struct nd_runner_ranks){
			.count = 2, .flags = ND_RANKS_NO_COMM }));
		ASSERT_EQ(0, nd_runner_load_image(r, img, size, NULL, NULL));
		for (i = 0; i < 2; i++) {
			ASSERT_EQ(0, nd_runner_bind(r, i, "x", x[2 * k + i], CN * sizeof(float)));
			ASSERT_EQ(0, nd_runner_bind(r, i, "y", y[2 * k + i], CN * sizeof(float)));
		}
		if (!k) {
			/* no communicator yet: the core refuses a program with collectives */
			EXPECT_EQ(-ENOTCONN, nd_runner_run(r, 1, 0, NULL));
			EXPECT_TRUE(says(r, "the program has collectives"));
		}
		EXPECT_EQ(-EINVAL, nd_runner_set_host_comm(r, c, 3));
		ASSERT_EQ(0, nd_runner_set_host_comm(r, c, 2 * k)) TH_LOG("%s",
									   nd_runner_error(r));
		ASSERT_EQ(0, nd_runner_place(r, 1, &pl));
		EXPECT_EQ(2 * k + 1, pl.rank);
	}
	for (k = 0; k < 2; k++)
		ASSERT_EQ(0, pthread_create(&th[k], NULL, half_main, &h[k]));
	for (k = 0; k < 2; k++) {
		pthread_join(th[k], NULL);
		EXPECT_EQ(0, h[k].ret) TH_LOG("%s", nd_runner_error(h[k].r));
		nd_runner_close(h[k].r);
	}
	for (e = 0; e < CN; e++)
		ref[e] = cc_ref_reduce(&twice, VN_CC_SUM, NR, e) + 1.0f;
	for (i = 0; i < NR; i++) {
		EXPECT_EQ(0, memcmp(ref, y[i], sizeof(ref))) TH_LOG("rank %u", i);
		free(x[i]);
		free(y[i]);
	}
	nd_host_comm_free(c);
	free(img);
}

/* Ranks that disagree: every rank fails, the message names the cause. */
/*
 * nd_runner_ranks.first numbers the ranks before the caller's communicator comes:
 * {rank} in a file bound then is the global rank; only with ND_RANKS_NO_COMM. And the
 * each function may describe an execution (capture's words for a failed worker).
 */
static int each_describe(void *arg, unsigned int exec, const struct nd_runner_exec *x,
			 unsigned int ranks)
{
	char *what = arg;

	(void)exec;
	nd_runner_describe(*(struct nd_runner **)(what + 256), ranks - 1, &x[ranks - 1], what,
			   256);
	return 0;
}

TEST(run_ranks_first)
{
	static const uint64_t shape[] = { CN };
	float x[CN], y[CN];
	struct nd_runner_place pl;
	struct nd_runner *r;
	struct nd_error err;
	char dir[64], p[128], q[128];
	char what[256 + sizeof(r)];
	size_t size;
	void *img = rp_allreduce(&size);
	unsigned int i;

	ASSERT_NE(NULL, img);
	snprintf(dir, sizeof(dir), "/tmp/vn_test_run_first.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(dir));
	ASSERT_EQ(0, nd_runner_open_host(NULL, &r, &err));
	EXPECT_EQ(-EINVAL, nd_runner_set_ranks(r, &(struct nd_runner_ranks){ .count = 2,
									    .first = 2 }));
	EXPECT_TRUE(says(r, "a first rank only with ND_RANKS_NO_COMM"));
	ASSERT_EQ(0, nd_runner_set_ranks(r, &(struct nd_runner_ranks){
		.count = 2, .flags = ND_RANKS_NO_COMM, .first = 2 }));
	ASSERT_EQ(0, nd_runner_place(r, 1, &pl));
	EXPECT_EQ(3u, pl.rank);
	ASSERT_EQ(0, nd_runner_load_image(r, img, size, NULL, NULL));
	cc_fill(x, CN, 5);
	for (i = 2; i < 4; i++) {
		struct nd_error e = { 0 };

		snprintf(p, sizeof(p), "%s/x.%u.npy", dir, i);
		EXPECT_EQ(0, nd_npy_save(p, shape, 1, x, &e)) TH_LOG("%s", e.msg);
	}
	snprintf(q, sizeof(q), "%s/x.{rank}.npy", dir);
	/* ranks 2 and 3 read x.2.npy and x.3.npy: no x.0.npy needed */
	EXPECT_EQ(0, nd_runner_bind_file(r, ND_RUNNER_ALL, "x", q, ND_BIND_ANY_SHAPE))
		TH_LOG("%s", nd_runner_error(r));
	EXPECT_EQ(0, nd_runner_bind(r, 0, "y", y, sizeof(y)));
	/* no communicator: the core refuses to run it */
	memcpy(what + 256, &r, sizeof(r));
	what[0] = '\0';
	nd_runner_set_each(r, each_describe, what);
	EXPECT_EQ(-ENOTCONN, nd_runner_run(r, 1, 0, NULL));
	EXPECT_TRUE(says(r, "the program has collectives"));
	/* it could not run: no execution to describe, the function not called */
	EXPECT_STREQ("", what);
	nd_runner_close(r);
	snprintf(p, sizeof(p), "rm -rf %s", dir);
	EXPECT_EQ(0, system(p));
	free(img);
}

TEST(run_ranks_fail_and_recover)
{
	float x[CN], y[CN];
	struct nd_runner_exec ex[2];
	struct nd_runner *r;
	struct nd_error err;
	char what[256];
	size_t size;
	void *img = rp_allreduce(&size);

	ASSERT_NE(NULL, img);
	ASSERT_EQ(0, nd_runner_open_host(NULL, &r, &err));
	ASSERT_EQ(0, nd_runner_set_ranks(r, &(struct nd_runner_ranks){ .count = 2,
								      .cores_per_device = 1 }));
	ASSERT_EQ(0, nd_runner_load_image(r, img, size, NULL, NULL));
	cc_fill(x, CN, 3);
	ASSERT_EQ(0, nd_runner_bind(r, ND_RUNNER_ALL, "x", x, sizeof(x)));
	ASSERT_EQ(0, nd_runner_bind(r, 0, "y", y, sizeof(y)));
	ASSERT_EQ(0, nd_runner_bind(r, 1, "y", y, sizeof(y)));
	/* a time limit no collective meets: the ranks time out, broken communicator */
	nd_runner_set_limit(r, 1);
	EXPECT_NE(0, nd_runner_run(r, 1, 0, ex));
	EXPECT_TRUE(says(r, "execution 1: "));
	EXPECT_NE(0, ex[0].err);
	EXPECT_EQ(1, ex[0].done);
	nd_runner_describe(r, 0, &ex[0], what, sizeof(what));
	EXPECT_NE(0, strcmp(what, "ok"));
	/* the runner made the communicator: the next run gets a new one */
	nd_runner_set_limit(r, 0);
	EXPECT_EQ(0, nd_runner_run(r, 1, 0, ex)) TH_LOG("%s", nd_runner_error(r));
	EXPECT_STREQ("ok", nd_runner_describe(r, 1, &ex[1], what, sizeof(what)));
	nd_runner_close(r);
	free(img);
}

/* Threads sharing one handle: their calls take turns. */
struct sharer {
	struct nd_runner *r;
	int ret;
};

static void *share_main(void *arg)
{
	struct sharer *s = arg;
	unsigned int i;

	for (i = 0; i < 20 && !s->ret; i++)
		s->ret = nd_runner_run(s->r, 1, 0, NULL);
	return NULL;
}

TEST_F(run, threads_share_a_handle)
{
	static float in[N], out[N];
	struct sharer s[3];
	pthread_t th[3];
	unsigned int i;

	ASSERT_EQ(0, nd_runner_load_image(self->r, self->img, self->size, NULL, NULL));
	ASSERT_EQ(0, nd_runner_bind(self->r, 0, "in", in, sizeof(in)));
	ASSERT_EQ(0, nd_runner_bind(self->r, 0, "out", out, sizeof(out)));
	for (i = 0; i < 3; i++) {
		s[i] = (struct sharer){ self->r, 0 };
		ASSERT_EQ(0, pthread_create(&th[i], NULL, share_main, &s[i]));
	}
	for (i = 0; i < 3; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, s[i].ret);
	}
	EXPECT_EQ(1.0f, out[N - 1]);
}

/* Without a module: the device calls say so. */
TEST(run_no_device)
{
	struct nd_runner *r = (void *)1;
	struct nd_error err = { 0 };

	if (!access("/dev/vneuron0", F_OK))
		SKIP(return, "a device is there");
	EXPECT_EQ(-ENOENT, nd_runner_open_device(0, 0, &r, &err));
	EXPECT_EQ(NULL, r);
	EXPECT_NE(NULL, strstr(err.msg, "is vneuron.ko loaded?")) TH_LOG("%s", err.msg);
	EXPECT_EQ(-EINVAL, nd_runner_open_dev(NULL, 0, &r, &err));
	nd_runner_close(NULL);
	nd_runner_cancel(NULL);
}

TEST_HARNESS_MAIN
