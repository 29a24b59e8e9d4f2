// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Execution through vneuron.ko, end to end in the guest: PROGRAM_LOAD, EXEC, WAIT and
 * poll() on /dev/vneuron0 with the builder's ready-made kernels, checked against plain
 * C references (the tolerances of tests/host/test_kernels.c, docs/libneurondev.md) and
 * against the host backend's modeled time; deadlock, time limit, reset and SIGKILL
 * recovery; live sysfs counters. Assertions are on behaviour and modeled time, never
 * on host time. Every validation class that reaches the kernel and the argument
 * errors: exec_errors_test.c.
 */
#include "exec_dev.h"

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
