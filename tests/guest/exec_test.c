// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Execution through vneuron.ko, end to end in the guest: PROGRAM_LOAD, EXEC, WAIT and
 * poll() on /dev/vneuron0 with the builder's ready-made kernels, checked against plain
 * C references (the tolerances of tests/host/test_kernels.c, docs/libneurondev.md) and
 * against the host backend's modeled time; every validation class that reaches the
 * kernel; argument errors; deadlock, time limit, reset and SIGKILL recovery; live sysfs
 * counters. Assertions are on behaviour and modeled time, never on host time.
 *
 * One file, over 1,000 lines: every test here shares one guest boot's device and its
 * fixtures (loaded kernels, buffers); splitting it would boot the guest twice.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vnprog.h"
#include "vn_program.h"
#include "kmod_test.h"
#include "exec_util.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmisleading-indentation"
#include "kselftest_harness.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* A device buffer holding n bytes of data (or zeroes). */
static struct nd_mem *dev_buf(struct nd_device *d, const void *data, uint64_t n)
{
	struct nd_mem *m;

	if (nd_mem_alloc(d, n, &m))
		return NULL;
	if (data && nd_mem_write(m, 0, data, n)) {
		nd_mem_free(m);
		return NULL;
	}
	return m;
}

/* Load, run once on core, unload. 0 when the execution ended OK. */
/* Load, run once with a host-time limit (0: the module's 30 s), unload. */
static int dev_run_limit(struct nd_device *d, const void *img, size_t size, unsigned int core,
			 const struct nd_bind *binds, unsigned int n, uint64_t limit_ns,
			 struct nd_run_result *res)
{
	struct nd_program *p;
	int ret;

	ret = nd_program_load(d, img, size, &p, NULL);
	if (ret) {
		fprintf(stderr, "# load: %s\n", nd_device_error(d));
		return ret;
	}
	ret = nd_run(p, core, binds, n, limit_ns, res);
	if (ret)
		fprintf(stderr, "# run: %s\n", nd_device_error(d));
	nd_program_unload(p);
	return ret;
}

static int dev_run(struct nd_device *d, const void *img, size_t size, unsigned int core,
		   const struct nd_bind *binds, unsigned int n, struct nd_run_result *res)
{
	return dev_run_limit(d, img, size, core, binds, n, 0, res);
}

/* The modeled duration of the same image on the host backend. */
static uint64_t host_model_ps(const void *img, size_t size, struct nd_host_tensor *t,
			      unsigned int n)
{
	struct nd_run_result res;
	struct nd_error err;

	if (nd_run_on_host(img, size, t, n, &res, &err)) {
		fprintf(stderr, "# host: %s\n", err.msg);
		return 0;
	}
	return res.model_ps;
}

static long long core_stat(unsigned int core, const char *name)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "core%u/stats/%s/total", core, name);
	return vn_sysfs(rel);
}

/* ---------------------------------------------------------------------------- */
/* Kernels against references                                                    */

#define MM 512

static void matmul_case(struct __test_metadata *_metadata, enum nd_dtype dt)
{
	const size_t n = (size_t)MM * MM;
	const size_t es = dt == ND_BF16 ? 2 : 4;
	float *a = xmalloc(n * 4), *bm = xmalloc(n * 4);
	void *ah = xmalloc(n * es), *bh = xmalloc(n * es), *ch = xmalloc(n * es);
	struct nd_host_tensor ht[] = {
		{ "A", ah, n * es }, { "B", bh, n * es }, { "C", ch, n * es },
	};
	struct nd_mem *ma, *mb, *mc;
	struct nd_run_result res;
	struct nd_device *d;
	struct nd_builder *b;
	size_t size, i, j, k, bad = 0;
	long long flops0;
	void *img;

	fill(a, n, 1, 1.0f);
	fill(bm, n, 2, 1.0f);
	for (i = 0; i < n; i++) {
		if (dt == ND_BF16) {
			((uint16_t *)ah)[i] = nd_fp32_to_bf16(a[i]);
			((uint16_t *)bh)[i] = nd_fp32_to_bf16(bm[i]);
			a[i] = nd_bf16_to_fp32(((uint16_t *)ah)[i]);
			bm[i] = nd_bf16_to_fp32(((uint16_t *)bh)[i]);
		} else {
			((float *)ah)[i] = a[i];
			((float *)bh)[i] = bm[i];
		}
	}
	ASSERT_EQ(0, nd_builder_new("matmul", &b));
	ASSERT_EQ(0, nd_kernel_matmul(b, MM, MM, MM, dt, dt));
	ASSERT_EQ(0, finish(b, &img, &size));
	ASSERT_EQ(0, nd_open(0, &d, NULL));
	ma = dev_buf(d, ah, n * es);
	mb = dev_buf(d, bh, n * es);
	mc = dev_buf(d, NULL, n * es);
	ASSERT_TRUE(ma && mb && mc);
	{
		struct nd_bind bi[] = { { "A", ma }, { "B", mb }, { "C", mc } };

		flops0 = core_stat(1, "flops");
		/* emulated, 2-3 s of host time either type; KASAN and a loaded host: far more */
		ASSERT_EQ(0, dev_run_limit(d, img, size, 1, bi, 3, 600ull * 1000000000ull, &res));
	}
	/* the sysfs counters of core 1 saw the work (TensorE flops, transposes too) */
	EXPECT_LE(flops0 + 2ll * MM * MM * MM, core_stat(1, "flops"));
	ASSERT_EQ(0, nd_mem_read(mc, 0, ch, n * es));
	for (i = 0; i < MM; i++) {
		for (j = 0; j < MM; j++) {
			double ref = 0, mag = 0, got, tol;

			for (k = 0; k < MM; k++) {
				ref += (double)a[i * MM + k] * bm[k * MM + j];
				mag += fabs((double)a[i * MM + k] * bm[k * MM + j]);
			}
			got = dt == ND_BF16 ? nd_bf16_to_fp32(((uint16_t *)ch)[i * MM + j]) :
					      ((float *)ch)[i * MM + j];
			tol = MM * FP32_U * mag + (dt == ND_BF16 ? BF16_U * fabs(ref) : 0);
			if (fabs(got - ref) > tol && bad++ < 5)
				TH_LOG("C[%zu][%zu] = %g, ref %g", i, j, got, ref);
		}
	}
	EXPECT_EQ(0, bad);
	/* the kernel runs the same core code: the same modeled time as the host backend */
	EXPECT_EQ(host_model_ps(img, size, ht, 3), res.model_ps);
	TH_LOG("matmul %s: modeled %.2f us, host %.1f ms in the guest",
	       dt == ND_BF16 ? "bf16" : "fp32", res.model_ps / 1e6, res.host_ns / 1e6);
	nd_close(d);
	free(img);
	free(a);
	free(bm);
	free(ah);
	free(bh);
	free(ch);
}

/* The 512^3 matmuls: seconds each in the emulated guest, more on a loaded host. */
FIXTURE(mm) {
	int unused;
};

FIXTURE_SETUP(mm)
{
	self->unused = 0;
}

FIXTURE_TEARDOWN(mm)
{
}

TEST_F_TIMEOUT(mm, matmul_512_fp32, 600)
{
	matmul_case(_metadata, ND_FP32);
}

TEST_F_TIMEOUT(mm, matmul_512_bf16, 600)
{
	matmul_case(_metadata, ND_BF16);
}

TEST(exp_250x512_masked_last_tile)
{
	const size_t rows = 250, cols = 512, n = rows * cols;
	const size_t big = n + 1024;	/* a larger output: the mask keeps the tail */
	float *x = xmalloc(n * 4), *y = xmalloc(big * 4);
	struct nd_host_tensor ht[2];
	struct nd_run_result res;
	struct nd_mem *mx, *my;
	struct nd_device *d;
	struct nd_builder *b;
	size_t size, i, bad = 0;
	void *img;

	fill(x, n, 3, 4.0f);
	for (i = 0; i < big; i++)
		y[i] = -7.0f;
	ASSERT_EQ(0, nd_builder_new("exp", &b));
	ASSERT_EQ(0, nd_kernel_exp(b, rows, cols, 1));
	ASSERT_EQ(0, finish(b, &img, &size));
	ASSERT_EQ(0, nd_open(0, &d, NULL));
	mx = dev_buf(d, x, n * 4);
	my = dev_buf(d, y, big * 4);
	ASSERT_TRUE(mx && my);
	{
		struct nd_bind bi[] = { { "in", mx }, { "out", my } };

		ASSERT_EQ(0, dev_run(d, img, size, 0, bi, 2, &res));
	}
	ASSERT_EQ(0, nd_mem_read(my, 0, y, big * 4));
	for (i = 0; i < n; i++) {
		double ref = exp((double)x[i]);

		if (fabs(y[i] - ref) > 4e-7 * ref && bad++ < 5)
			TH_LOG("y[%zu] = %g, ref %g", i, y[i], ref);
	}
	EXPECT_EQ(0, bad);
	for (i = n; i < big; i++)
		ASSERT_EQ(-7.0f, y[i]);
	ht[0] = (struct nd_host_tensor){ "in", x, n * 4 };
	ht[1] = (struct nd_host_tensor){ "out", y, big * 4 };
	EXPECT_EQ(host_model_ps(img, size, ht, 2), res.model_ps);
	nd_close(d);
	free(img);
	free(x);
	free(y);
}

#define ROWS 256
#define FEAT 512

TEST(softmax_rows_and_determinism)
{
	const size_t n = ROWS * FEAT;
	float *x = xmalloc(n * 4), *y = xmalloc(n * 4), *y2 = xmalloc(n * 4);
	struct nd_host_tensor ht[2];
	struct nd_run_result r1, r2;
	struct nd_program *p;
	struct nd_mem *mx, *my;
	struct nd_device *d;
	struct nd_builder *b;
	size_t size, r, j, bad = 0;
	void *img;

	fill(x, n, 4, 8.0f);
	ASSERT_EQ(0, nd_builder_new("softmax", &b));
	ASSERT_EQ(0, nd_kernel_softmax(b, ROWS, FEAT));
	ASSERT_EQ(0, finish(b, &img, &size));
	ASSERT_EQ(0, nd_open(0, &d, NULL));
	mx = dev_buf(d, x, n * 4);
	my = dev_buf(d, NULL, n * 4);
	ASSERT_TRUE(mx && my);
	ASSERT_EQ(0, nd_program_load(d, img, size, &p, NULL));
	{
		struct nd_bind bi[] = { { "x", mx }, { "y", my } };

		ASSERT_EQ(0, nd_run(p, 0, bi, 2, 0, &r1));
		ASSERT_EQ(0, nd_mem_read(my, 0, y, n * 4));
		/* the same program again, on the other core: the same timeline */
		ASSERT_EQ(0, nd_run(p, 1, bi, 2, 0, &r2));
		ASSERT_EQ(0, nd_mem_read(my, 0, y2, n * 4));
	}
	EXPECT_EQ(r1.model_ps, r2.model_ps);
	EXPECT_EQ(0, memcmp(y, y2, n * 4));
	for (r = 0; r < ROWS; r++) {
		double mx_ = -INFINITY, sum = 0;

		for (j = 0; j < FEAT; j++)
			mx_ = fmax(mx_, x[r * FEAT + j]);
		for (j = 0; j < FEAT; j++)
			sum += exp(x[r * FEAT + j] - mx_);
		for (j = 0; j < FEAT; j++) {
			double ref = exp(x[r * FEAT + j] - mx_) / sum;

			if (fabs(y[r * FEAT + j] - ref) > 4e-6 * ref && bad++ < 5)
				TH_LOG("y[%zu][%zu] = %g, ref %g", r, j, y[r * FEAT + j], ref);
		}
	}
	EXPECT_EQ(0, bad);
	ht[0] = (struct nd_host_tensor){ "x", x, n * 4 };
	ht[1] = (struct nd_host_tensor){ "y", y2, n * 4 };
	EXPECT_EQ(host_model_ps(img, size, ht, 2), r1.model_ps);
	nd_program_unload(p);
	nd_close(d);
	free(img);
	free(x);
	free(y);
	free(y2);
}

TEST(layernorm_rows)
{
	const size_t n = ROWS * FEAT;
	float *x = xmalloc(n * 4), *y = xmalloc(n * 4), gamma[FEAT], beta[FEAT];
	struct nd_run_result res;
	struct nd_mem *mx, *my;
	struct nd_device *d;
	struct nd_builder *b;
	size_t size, r, j, bad = 0;
	void *img;

	fill(x, n, 5, 3.0f);
	for (r = 0; r < ROWS; r++)
		for (j = 0; j < FEAT; j++)
			x[r * FEAT + j] += (float)r / 16;
	fill(gamma, FEAT, 6, 1.0f);
	fill(beta, FEAT, 7, 0.5f);
	ASSERT_EQ(0, nd_builder_new("layernorm", &b));
	ASSERT_EQ(0, nd_kernel_layernorm(b, ROWS, FEAT, gamma, beta, 1e-5f));
	ASSERT_EQ(0, finish(b, &img, &size));
	ASSERT_EQ(0, nd_open(0, &d, NULL));
	mx = dev_buf(d, x, n * 4);
	my = dev_buf(d, NULL, n * 4);
	ASSERT_TRUE(mx && my);
	{
		struct nd_bind bi[] = { { "x", mx }, { "y", my } };

		ASSERT_EQ(0, dev_run(d, img, size, 0, bi, 2, &res));
	}
	ASSERT_EQ(0, nd_mem_read(my, 0, y, n * 4));
	for (r = 0; r < ROWS; r++) {
		double mean = 0, var = 0, rstd;

		for (j = 0; j < FEAT; j++)
			mean += x[r * FEAT + j];
		mean /= FEAT;
		for (j = 0; j < FEAT; j++)
			var += (x[r * FEAT + j] - mean) * (x[r * FEAT + j] - mean);
		rstd = 1 / sqrt(var / FEAT + 1e-5f);
		for (j = 0; j < FEAT; j++) {
			double ref = (x[r * FEAT + j] - mean) * rstd * gamma[j] + beta[j];

			if (fabs(y[r * FEAT + j] - ref) > 4e-5 && bad++ < 5)
				TH_LOG("y[%zu][%zu] = %.8g, ref %.8g", r, j, y[r * FEAT + j], ref);
		}
	}
	EXPECT_EQ(0, bad);
	nd_close(d);
	free(img);
	free(x);
	free(y);
}

/* ---------------------------------------------------------------------------- */
/* Small programs for the fault and argument tests                               */

/* out = exp(in) over [128 x 512]: tensors "in" (0) and "out" (1). */
static int small_image(void **img, size_t *size)
{
	struct nd_builder *b;

	if (nd_builder_new("small", &b))
		return -1;
	if (nd_kernel_exp(b, 128, 512, 0)) {
		nd_builder_free(b);
		return -1;
	}
	return finish(b, img, size);
}

/* Many large ScalarE instructions on SBUF: long enough to be stopped midway. */

/* The entries of an image's section (type, index), or NULL. */

/*
 * VectorE writes a, ScalarE reads a and writes c, VectorE reads c: the builder makes
 * ScalarE wait on VectorE and VectorE's second entry on ScalarE. Then VectorE's first
 * entry is made to wait on ScalarE too: a cycle only execution can find.
 */

/* The small program runs OK on core with fresh buffers. */
static int small_runs(struct nd_device *d, unsigned int core)
{
	struct nd_run_result res;
	struct nd_mem *mi, *mo;
	size_t size;
	void *img;
	int ret;

	if (small_image(&img, &size))
		return -1;
	mi = dev_buf(d, NULL, 128 * 512 * 4);
	mo = dev_buf(d, NULL, 128 * 512 * 4);
	if (!mi || !mo) {
		free(img);
		return -ENOMEM;
	}
	{
		struct nd_bind bi[] = { { "in", mi }, { "out", mo } };

		ret = dev_run(d, img, size, core, bi, 2, &res);
	}
	nd_mem_free(mi);
	nd_mem_free(mo);
	free(img);
	return ret ? ret : (int)res.result;
}

/* ---------------------------------------------------------------------------- */
/* PROGRAM_LOAD: one test per validation class that reaches the kernel            */

FIXTURE(load) {
	int fd;
	void *img;
	size_t size;
};

FIXTURE_SETUP(load)
{
	self->fd = vn_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, small_image(&self->img, &self->size));
}

FIXTURE_TEARDOWN(load)
{
	free(self->img);
	close(self->fd);
}

/* PROGRAM_LOAD of img[0..size): -errno, with the failed check in *check. */
static int load_raw(int fd, const void *img, uint64_t size, uint32_t *check, uint32_t *handle)
{
	struct vneuron_program_load a = { .image_ptr = (uintptr_t)img, .image_size = size };
	int ret = vn_ioctl(fd, VNEURON_IOCTL_PROGRAM_LOAD, &a);

	if (check)
		*check = a.check;
	if (handle)
		*handle = a.handle;
	return ret;
}

/* The kernel refuses img with -EINVAL and check, as the host validator does. */
static void refused(struct __test_metadata *_metadata, int fd, void *img, uint64_t size,
		    uint32_t check)
{
	struct vn_prog_error pe;
	uint32_t got = 0;

	ASSERT_EQ(-EINVAL, load_raw(fd, img, size, &got, NULL));
	EXPECT_EQ(check, got) TH_LOG("check %s, expected %s", vn_check_name(got),
				     vn_check_name(check));
	ASSERT_EQ(-EINVAL, vn_program_check(img, size, &pe));
	EXPECT_EQ(pe.check, got);
}

TEST_F(load, accepted_and_unloaded)
{
	struct vneuron_program_load a = {
		.image_ptr = (uintptr_t)self->img, .image_size = self->size,
	};
	struct vneuron_program_unload u = { 0 };

	ASSERT_EQ(0, vn_ioctl(self->fd, VNEURON_IOCTL_PROGRAM_LOAD, &a));
	EXPECT_NE(0u, a.handle);
	EXPECT_EQ(2u, a.tensor_count);
	EXPECT_EQ(0u, a.check);
	EXPECT_EQ(1, vn_counter("programs"));
	u.handle = a.handle;
	ASSERT_EQ(0, vn_ioctl(self->fd, VNEURON_IOCTL_PROGRAM_UNLOAD, &u));
	EXPECT_EQ(-ENOENT, vn_ioctl(self->fd, VNEURON_IOCTL_PROGRAM_UNLOAD, &u));
	u.flags = 1;
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_PROGRAM_UNLOAD, &u));
	EXPECT_EQ(0, vn_counter("programs"));
}

TEST_F(load, bad_magic)
{
	((struct vnef_header *)self->img)->magic ^= 1;
	refused(_metadata, self->fd, self->img, self->size, VNEF_CHK_MAGIC);
}

TEST_F(load, bad_version)
{
	((struct vnef_header *)self->img)->version += 1;
	refused(_metadata, self->fd, self->img, self->size, VNEF_CHK_VERSION);
}

TEST_F(load, truncated)
{
	refused(_metadata, self->fd, self->img, self->size - 8, VNEF_CHK_SIZE);
	refused(_metadata, self->fd, self->img, 16, VNEF_CHK_SIZE);
}

TEST_F(load, empty)
{
	uint32_t check = 0;

	EXPECT_EQ(-EINVAL, load_raw(self->fd, self->img, 0, &check, NULL));
	EXPECT_EQ(VNEF_CHK_SIZE, check);
}

TEST_F(load, header_flags)
{
	((struct vnef_header *)self->img)->flags = 1;
	refused(_metadata, self->fd, self->img, self->size, VNEF_CHK_HEADER);
}

TEST_F(load, bad_section)
{
	struct vnef_header *h = self->img;
	struct vnef_section *s = (void *)((uint8_t *)self->img + h->header_size);

	s[h->section_count - 1].offset += 4;	/* misaligned */
	refused(_metadata, self->fd, self->img, self->size, VNEF_CHK_SECTION);
}

TEST_F(load, bad_semaphore)
{
	uint32_t n;
	struct vnef_instr *in = section(self->img, VNEF_SEC_INSTR, ND_SCALAR, &n);
	uint32_t i;

	ASSERT_TRUE(in && n);
	for (i = 0; i < n && !(in[i].flags & VNEF_IF_WAIT); i++)
		;
	ASSERT_LT(i, n);
	in[i].wait_sem = VNEF_MAX_SEMS;
	refused(_metadata, self->fd, self->img, self->size, VNEF_CHK_SEM);
}

TEST_F(load, bad_opcode)
{
	struct vnef_instr *in = section(self->img, VNEF_SEC_INSTR, ND_SCALAR, NULL);

	ASSERT_NE(NULL, in);
	in[0].opcode = VNEF_OP_COUNT + 7;
	refused(_metadata, self->fd, self->img, self->size, VNEF_CHK_OPCODE);
}

TEST_F(load, reserved_field)
{
	struct vnef_instr *in = section(self->img, VNEF_SEC_INSTR, ND_SCALAR, NULL);

	ASSERT_NE(NULL, in);
	in[0].reserved[2] = 1;
	refused(_metadata, self->fd, self->img, self->size, VNEF_CHK_RESERVED);
}

TEST_F(load, bad_operand)
{
	struct vnef_instr *in = section(self->img, VNEF_SEC_INSTR, ND_SCALAR, NULL);

	ASSERT_NE(NULL, in);
	in[0].dst.offset = VNEF_SBUF_PART_BYTES_MAX;	/* past any model's partition */
	refused(_metadata, self->fd, self->img, self->size, VNEF_CHK_OPERAND);
}

/* Past trn1's partition, inside a larger model's: the module's model (trn1) refuses it. */
TEST_F(load, operand_beyond_the_model)
{
	struct vnef_instr *in = section(self->img, VNEF_SEC_INSTR, ND_SCALAR, NULL);

	ASSERT_NE(NULL, in);
	in[0].dst.offset = VNEF_SBUF_PART_BYTES;
	refused(_metadata, self->fd, self->img, self->size, VNEF_CHK_MODEL);
}

TEST_F(load, bad_dma)
{
	struct vnef_dma_desc *d = NULL;
	uint32_t q;

	for (q = 0; q < VNEF_DMA_QUEUES && !d; q++)
		d = section(self->img, VNEF_SEC_DMA, q, NULL);
	ASSERT_NE(NULL, d);
	d[0].src.tensor = 200;		/* no such tensor */
	refused(_metadata, self->fd, self->img, self->size, VNEF_CHK_DMA);
}

TEST_F(load, argument_errors)
{
	struct vneuron_program_load a = {
		.image_ptr = (uintptr_t)self->img, .image_size = self->size, .flags = 1,
	};

	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_PROGRAM_LOAD, &a));
	EXPECT_EQ(0u, a.check);
	EXPECT_EQ(-E2BIG, load_raw(self->fd, self->img, VNEF_MAX_IMAGE_BYTES + 1ull, NULL,
				   NULL));
	EXPECT_EQ(-EFAULT, load_raw(self->fd, (void *)8, self->size, NULL, NULL));
	EXPECT_EQ(0, vn_counter("programs"));
}

TEST_F(load, per_file_limit)
{
	uint32_t h;
	int i, ret = 0;

	for (i = 0; i < 257 && !ret; i++)
		ret = load_raw(self->fd, self->img, self->size, NULL, &h);
	EXPECT_EQ(-ENOSPC, ret);
	EXPECT_EQ(257, i);
	close(self->fd);
	self->fd = vn_open();
	EXPECT_EQ(0, vn_counter("programs"));
}

/* ---------------------------------------------------------------------------- */
/* EXEC and WAIT argument errors                                                 */

FIXTURE(args) {
	int fd, other;
	uint32_t prog, in, out, small;
	void *img;
	size_t size;
};

FIXTURE_SETUP(args)
{
	self->fd = vn_open();
	self->other = vn_open();
	ASSERT_LE(0, self->fd);
	ASSERT_LE(0, self->other);
	ASSERT_EQ(0, small_image(&self->img, &self->size));
	ASSERT_EQ(0, load_raw(self->fd, self->img, self->size, NULL, &self->prog));
	self->in = vn_alloc(self->fd, 128 * 512 * 4, NULL);
	self->out = vn_alloc(self->fd, 128 * 512 * 4, NULL);
	self->small = vn_alloc(self->fd, 128 * 512 * 4 - 4, NULL);
	ASSERT_LT(0, (int)self->small);
}

FIXTURE_TEARDOWN(args)
{
	free(self->img);
	close(self->fd);
	close(self->other);
}

static int exec_raw(int fd, uint32_t prog, uint32_t core, const uint32_t *h, uint32_t n,
		    uint32_t flags, uint64_t *id)
{
	struct vneuron_exec e = {
		.program = prog, .core = core, .mem_handles_ptr = (uintptr_t)h,
		.mem_count = n, .flags = flags,
	};
	int ret = vn_ioctl(fd, VNEURON_IOCTL_EXEC, &e);

	if (id)
		*id = e.exec_id;
	return ret;
}

static int wait_raw(int fd, uint64_t id, uint64_t timeout, struct vneuron_wait *w)
{
	*w = (struct vneuron_wait){ .exec_id = id, .timeout_ns = timeout };
	return vn_ioctl(fd, VNEURON_IOCTL_WAIT, w);
}

TEST_F(args, exec_ok_then_wait_once)
{
	uint32_t h[2] = { self->in, self->out };
	struct vneuron_wait w;
	uint64_t id;

	ASSERT_EQ(0, exec_raw(self->fd, self->prog, 0, h, 2, 0, &id));
	EXPECT_NE(0u, id);
	ASSERT_EQ(0, wait_raw(self->fd, id, VNEURON_WAIT_FOREVER, &w));
	EXPECT_EQ(VNEURON_EXEC_OK, w.status);
	EXPECT_EQ(VNEURON_STREAM_NONE, w.stream);
	EXPECT_LT(0u, w.model_ps);
	EXPECT_LT(0u, w.seq);
	EXPECT_EQ(-ENOENT, wait_raw(self->fd, id, 0, &w));
	/* the larger output buffer binds too: only too small is refused */
	h[1] = self->small;
	EXPECT_EQ(-EINVAL, exec_raw(self->fd, self->prog, 0, h, 2, 0, NULL));
}

TEST_F(args, bad_and_foreign_handles)
{
	uint32_t h[2] = { self->in, self->out }, fh[8];
	uint32_t fprog = 0;
	int i;

	EXPECT_EQ(-ENOENT, exec_raw(self->fd, self->prog + 100, 0, h, 2, 0, NULL));
	EXPECT_EQ(-ENOENT, exec_raw(self->fd, 0, 0, h, 2, 0, NULL));
	h[0] = 999;
	EXPECT_EQ(-ENOENT, exec_raw(self->fd, self->prog, 0, h, 2, 0, NULL));
	/* the other file's buffers and programs, by numbers this file does not have */
	for (i = 0; i < 8; i++)
		fh[i] = vn_alloc(self->other, 4096 * 128, NULL);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, load_raw(self->other, self->img, self->size, NULL, &fprog));
	h[0] = fh[7];
	EXPECT_EQ(-ENOENT, exec_raw(self->fd, self->prog, 0, h, 2, 0, NULL));
	h[0] = self->in;
	EXPECT_EQ(-ENOENT, exec_raw(self->fd, fprog, 0, h, 2, 0, NULL));
	EXPECT_EQ(0, vn_counter("execs"));
}

TEST_F(args, binding_errors)
{
	uint32_t h[3] = { self->in, self->out, 0 };

	EXPECT_EQ(-EINVAL, exec_raw(self->fd, self->prog, 0, h, 1, 0, NULL));
	EXPECT_EQ(-EINVAL, exec_raw(self->fd, self->prog, 0, h, 3, 0, NULL));
	EXPECT_EQ(-EINVAL, exec_raw(self->fd, self->prog, 0, h, 100000, 0, NULL));
	h[0] = 0;	/* an input left unbound */
	EXPECT_EQ(-EINVAL, exec_raw(self->fd, self->prog, 0, h, 2, 0, NULL));
	h[0] = self->small;
	EXPECT_EQ(-EINVAL, exec_raw(self->fd, self->prog, 0, h, 2, 0, NULL));
	h[0] = self->in;
	EXPECT_EQ(-EFAULT, exec_raw(self->fd, self->prog, 0, (void *)8, 2, 0, NULL));
	EXPECT_EQ(0, vn_counter("execs"));
}

TEST_F(args, flags_core_and_limits)
{
	uint32_t h[2] = { self->in, self->out };
	struct vneuron_exec e = {
		.program = self->prog, .mem_handles_ptr = (uintptr_t)h, .mem_count = 2,
		.time_limit_ns = 601ull * 1000000000ull,
	};
	struct vneuron_wait w;

	/* flag bit 0 is VNEURON_EXEC_LNC2 (lnc_test); bit 1 and the top bit are unknown */
	EXPECT_EQ(-EINVAL, exec_raw(self->fd, self->prog, 0, h, 2, 2, NULL));
	EXPECT_EQ(-EINVAL, exec_raw(self->fd, self->prog, 0, h, 2, 0x80000000u, NULL));
	EXPECT_EQ(-EINVAL, exec_raw(self->fd, self->prog, 2, h, 2, 0, NULL));
	EXPECT_EQ(-EINVAL, exec_raw(self->fd, self->prog, ~0u, h, 2, 0, NULL));
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_EXEC, &e));
	EXPECT_EQ(-ENOENT, wait_raw(self->fd, 1, 0, &w));
	EXPECT_EQ(-ENOENT, wait_raw(self->fd, 0, 0, &w));
	EXPECT_EQ(-ENOENT, wait_raw(self->fd, 1ull << 40, 0, &w));
	w = (struct vneuron_wait){ .exec_id = 1, .flags = 1 };
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_WAIT, &w));
	/* another file's execution is not ours to wait for */
	{
		uint32_t oh[2], op;
		uint64_t id;

		oh[0] = vn_alloc(self->other, 128 * 512 * 4, NULL);
		oh[1] = vn_alloc(self->other, 128 * 512 * 4, NULL);
		ASSERT_EQ(0, load_raw(self->other, self->img, self->size, NULL, &op));
		ASSERT_EQ(0, exec_raw(self->other, op, 0, oh, 2, 0, &id));
		EXPECT_EQ(-ENOENT, wait_raw(self->fd, id, VNEURON_WAIT_FOREVER, &w));
		EXPECT_EQ(0, wait_raw(self->other, id, VNEURON_WAIT_FOREVER, &w));
	}
}

TEST_F(args, unload_while_queued_and_free_while_running)
{
	uint32_t h[2] = { self->in, self->out };
	struct vneuron_program_unload u = { .handle = self->prog };
	struct vneuron_wait w;
	uint32_t lprog;
	uint64_t id0, id;
	size_t lsize;
	void *limg;
	float *map, *x = xmalloc(128 * 512 * 4);
	struct vneuron_mem_alloc out;
	int i, bad = 0;

	/* a long execution first, limited to 300 ms, so the next one waits in the queue */
	ASSERT_EQ(0, long_image(&limg, &lsize));
	ASSERT_EQ(0, load_raw(self->fd, limg, lsize, NULL, &lprog));
	free(limg);
	ASSERT_LT(0, vn_alloc(self->fd, 128 * 512 * 4, &out));
	map = mmap(NULL, 128 * 512 * 4, PROT_READ, MAP_SHARED, self->fd, out.mmap_offset);
	ASSERT_NE(MAP_FAILED, map);
	fill(x, 128 * 512, 9, 2.0f);
	ASSERT_EQ(0, vn_rw(self->fd, 1, self->in, 0, x, 128 * 512 * 4));
	{
		struct vneuron_exec e = { .program = lprog, .time_limit_ns = 300000000ull };

		ASSERT_EQ(0, vn_ioctl(self->fd, VNEURON_IOCTL_EXEC, &e));
		id0 = e.exec_id;
	}
	h[1] = out.handle;
	ASSERT_EQ(0, exec_raw(self->fd, self->prog, 0, h, 2, 0, &id));
	/* the program and both buffers go while the execution is queued */
	ASSERT_EQ(0, vn_ioctl(self->fd, VNEURON_IOCTL_PROGRAM_UNLOAD, &u));
	ASSERT_EQ(0, vn_free(self->fd, self->in));
	ASSERT_EQ(0, vn_free(self->fd, out.handle));
	ASSERT_EQ(0, wait_raw(self->fd, id0, VNEURON_WAIT_FOREVER, &w));
	EXPECT_EQ(VNEURON_EXEC_TIMEOUT, w.status);
	EXPECT_EQ(VNEURON_REASON_TIME_LIMIT, w.reason);
	ASSERT_EQ(0, wait_raw(self->fd, id, VNEURON_WAIT_FOREVER, &w));
	EXPECT_EQ(VNEURON_EXEC_OK, w.status);
	for (i = 0; i < 128 * 512; i++)
		if (fabs(map[i] - exp((double)x[i])) > 4e-7 * exp((double)x[i]) && bad++ < 5)
			TH_LOG("out[%d] = %g", i, map[i]);
	EXPECT_EQ(0, bad);
	munmap(map, 128 * 512 * 4);
	free(x);
}

/* The results cannot be copied back: nothing is left behind (the undo paths). */
TEST_F(args, efault_on_output_undoes)
{
	uint32_t h[2] = { self->in, self->out };
	long long progs = vn_counter("programs");
	struct vneuron_program_load *pl;
	struct vneuron_exec *e;
	void *ro;

	ro = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	pl = ro;
	pl->image_ptr = (uintptr_t)self->img;
	pl->image_size = self->size;
	e = (void *)((char *)ro + 2048);
	e->program = self->prog;
	e->mem_handles_ptr = (uintptr_t)h;
	e->mem_count = 2;
	ASSERT_EQ(0, mprotect(ro, 4096, PROT_READ));
	EXPECT_EQ(-EFAULT, vn_ioctl(self->fd, VNEURON_IOCTL_PROGRAM_LOAD, pl));
	EXPECT_EQ(progs, vn_counter("programs"));
	EXPECT_EQ(-EFAULT, vn_ioctl(self->fd, VNEURON_IOCTL_EXEC, e));
	/* the execution was cancelled or had ended: it goes without a WAIT */
	{
		int i;

		for (i = 0; i < 1000 && vn_counter("execs"); i++)
			usleep(10000);
	}
	EXPECT_EQ(0, vn_counter("execs"));
	{
		struct pollfd pf = { .fd = self->fd, .events = POLLIN };

		EXPECT_EQ(0, poll(&pf, 1, 0));
	}
	munmap(ro, 4096);
}

static void on_alarm(int sig)
{
}

/* A signal whose handler does not restart calls ends WAIT with -EINTR; the exec lives on. */
TEST_F(args, wait_interrupted)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = { .it_value = { .tv_usec = 50000 } };
	struct vneuron_wait w;
	uint32_t lprog;
	uint64_t id;
	size_t lsize;
	void *limg;

	ASSERT_EQ(0, long_image(&limg, &lsize));
	ASSERT_EQ(0, load_raw(self->fd, limg, lsize, NULL, &lprog));
	free(limg);
	ASSERT_EQ(0, exec_raw(self->fd, lprog, 1, NULL, 0, 0, &id));
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));	/* no SA_RESTART */
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &it, NULL));
	EXPECT_EQ(-EINTR, wait_raw(self->fd, id, VNEURON_WAIT_FOREVER, &w));
	/* still there: a WAIT now only times out */
	EXPECT_EQ(-ETIMEDOUT, wait_raw(self->fd, id, 0, &w));
}

/* ---------------------------------------------------------------------------- */
/* Faults and recovery                                                           */

TEST(deadlock_times_out_and_next_runs)
{
	long long to0 = core_stat(0, "executions_timed_out");
	struct nd_run_result res;
	struct nd_device *d;
	size_t size;
	void *img;

	ASSERT_EQ(0, deadlock_image(&img, &size));
	ASSERT_EQ(0, nd_open(0, &d, NULL));
	EXPECT_EQ(-ETIMEDOUT, dev_run(d, img, size, 0, NULL, 0, &res));
	EXPECT_EQ(VNEURON_EXEC_TIMEOUT, res.result);
	EXPECT_EQ(VNEURON_REASON_DEADLOCK, res.reason);
	EXPECT_TRUE(res.stream == ND_VECTOR || res.stream == ND_SCALAR);
	EXPECT_EQ(to0 + 1, core_stat(0, "executions_timed_out"));
	EXPECT_EQ(0, small_runs(d, 0));
	nd_close(d);
	free(img);
}

TEST(time_limit_and_reset)
{
	struct nd_run_result res;
	struct vneuron_reset rs = { .core = 1 };
	struct nd_program *p;
	struct nd_device *d;
	uint64_t id1, id2;
	size_t size;
	void *img;

	ASSERT_EQ(0, long_image(&img, &size));
	ASSERT_EQ(0, nd_open(0, &d, NULL));
	ASSERT_EQ(0, nd_program_load(d, img, size, &p, NULL));
	EXPECT_EQ(-ETIMEDOUT, nd_run(p, 1, NULL, 0, 50000000ull, &res));
	EXPECT_EQ(VNEURON_REASON_TIME_LIMIT, res.reason);
	EXPECT_EQ(0, small_runs(d, 1));
	/* RESET ends the running and the queued execution */
	ASSERT_EQ(0, nd_exec(p, 1, NULL, 0, 0, &id1));
	ASSERT_EQ(0, nd_exec(p, 1, NULL, 0, 0, &id2));
	ASSERT_EQ(0, vn_ioctl(nd_device_fd(d), VNEURON_IOCTL_RESET, &rs));
	ASSERT_EQ(0, nd_wait(d, id1, ND_WAIT_FOREVER, &res));
	EXPECT_EQ(VNEURON_EXEC_ABORTED, res.result);
	EXPECT_EQ(VNEURON_REASON_RESET, res.reason);
	ASSERT_EQ(0, nd_wait(d, id2, ND_WAIT_FOREVER, &res));
	EXPECT_EQ(VNEURON_EXEC_ABORTED, res.result);
	EXPECT_EQ(VNEURON_REASON_RESET, res.reason);
	EXPECT_EQ(0, small_runs(d, 1));
	nd_program_unload(p);
	nd_close(d);
	free(img);
}

TEST(wait_timeout_then_close_cancels)
{
	struct nd_run_result res;
	struct nd_program *p;
	struct nd_device *d;
	uint64_t id;
	size_t size;
	void *img;

	ASSERT_EQ(0, long_image(&img, &size));
	ASSERT_EQ(0, nd_open(0, &d, NULL));
	ASSERT_EQ(0, nd_program_load(d, img, size, &p, NULL));
	ASSERT_EQ(0, nd_exec(p, 0, NULL, 0, 0, &id));
	EXPECT_EQ(-ETIMEDOUT, nd_wait(d, id, 0, &res));
	EXPECT_EQ(-ETIMEDOUT, nd_wait(d, id, now_ns() + 20000000ull, &res));
	nd_program_unload(p);
	nd_close(d);	/* cancels the running execution */
	free(img);
	ASSERT_EQ(0, nd_open(0, &d, NULL));
	EXPECT_EQ(0, small_runs(d, 0));
	nd_close(d);
}

TEST(sigkill_while_running)
{
	struct nd_device *d;
	int pfd[2], status, i;
	size_t size;
	void *img;
	pid_t pid;
	char c;

	ASSERT_EQ(0, long_image(&img, &size));
	ASSERT_EQ(0, pipe(pfd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct nd_program *p;
		struct nd_mem *m;
		uint64_t id;

		close(pfd[0]);
		if (nd_open(0, &d, NULL) || nd_mem_alloc(d, 1 << 20, &m) ||
		    nd_program_load(d, img, size, &p, NULL) || nd_exec(p, 0, NULL, 0, 0, &id) ||
		    nd_exec(p, 0, NULL, 0, 0, &id))
			_exit(1);
		if (write(pfd[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(pfd[1]);
	ASSERT_EQ(1, read(pfd[0], &c, 1));
	close(pfd[0]);
	EXPECT_EQ(2, vn_counter("execs"));
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	/* the cancelled executions complete on the workers: wait for them, boundedly */
	for (i = 0; i < 1000 && !counters_drained(); i++)
		usleep(10000);
	EXPECT_TRUE(counters_drained());
	ASSERT_EQ(0, nd_open(0, &d, NULL));
	EXPECT_EQ(0, small_runs(d, 0));
	nd_close(d);
	free(img);
}

TEST(poll_wakes_on_completion)
{
	struct nd_run_result res;
	struct nd_program *p;
	struct nd_mem *mi, *mo;
	struct nd_device *d;
	struct pollfd pf;
	uint64_t id;
	size_t size;
	void *img;

	ASSERT_EQ(0, small_image(&img, &size));
	ASSERT_EQ(0, nd_open(0, &d, NULL));
	mi = dev_buf(d, NULL, 128 * 512 * 4);
	mo = dev_buf(d, NULL, 128 * 512 * 4);
	ASSERT_TRUE(mi && mo);
	ASSERT_EQ(0, nd_program_load(d, img, size, &p, NULL));
	pf = (struct pollfd){ .fd = nd_device_fd(d), .events = POLLIN };
	EXPECT_EQ(0, poll(&pf, 1, 0));
	{
		struct nd_bind bi[] = { { "in", mi }, { "out", mo } };

		ASSERT_EQ(0, nd_exec(p, 1, bi, 2, 0, &id));
	}
	/* blocks until the completion; the timeout is only a safety net */
	ASSERT_EQ(1, poll(&pf, 1, 60000));
	EXPECT_TRUE(pf.revents & POLLIN);
	ASSERT_EQ(0, nd_wait(d, id, 0, &res));
	EXPECT_EQ(0u, res.result);
	EXPECT_EQ(0, poll(&pf, 1, 0));
	nd_program_unload(p);
	nd_close(d);
	free(img);
}

TEST(sysfs_counters_move)
{
	static const char *const names[] = {
		"executions_ok", "busy_time_ns", "bytes_moved",
	};
	long long before[3];
	struct nd_device *d;
	unsigned int i;

	for (i = 0; i < 3; i++)
		before[i] = core_stat(1, names[i]);
	ASSERT_EQ(0, nd_open(0, &d, NULL));
	ASSERT_EQ(0, small_runs(d, 1));
	nd_close(d);
	EXPECT_EQ(before[0] + 1, core_stat(1, "executions_ok"));
	for (i = 1; i < 3; i++)
		EXPECT_LT(before[i], core_stat(1, names[i]));
	EXPECT_EQ(0, vn_sysfs("core1/stats/executions_failed/present") < 0);
}

TEST(info_has_exec_cap)
{
	struct vneuron_info info = { 0 };
	int fd = vn_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, vn_ioctl(fd, VNEURON_IOCTL_GET_INFO, &info));
	EXPECT_TRUE(info.caps & VNEURON_CAP_EXEC);
	close(fd);
}

TEST_HARNESS_MAIN
