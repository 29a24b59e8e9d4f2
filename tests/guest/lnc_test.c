// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Logical cores through vneuron.ko (EXEC with VNEURON_EXEC_LNC2): one program as two
 * SPMD instances on cores 0 and 1 sharing a buffer, each writing its program id's row;
 * one exec id and the modeled time of one instance; and the refusals, as an attacker
 * tries them: an odd core, a core past the device, an unknown flag, a second core
 * another file owns (and the first then left unclaimed), a model without logical cores.
 *
 * Then the same through the user-facing layers: libneurondev's nd_set_lnc() (nd_run()
 * and io_uring launches, its worded refusals), `vneuron-run --lnc 2` on the module,
 * `vneuron-profile capture --lnc 2` (both physical cores traced, the profile's
 * logical-cores section, view's grouping as the host capture's) and the Python
 * package's Device(0, lnc=2) (tests/python/test_lnc_device.py).
 *
 * tools/check guest runs it twice: in the suite (model trn1: the refusal by model, the
 * rest skipped) and alone with model=trn2 cores=4.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kmod_test.h"
#include "vnprog.h"
#include "../host/vnef_build.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "kselftest_harness.h"

#define COLS	64

/* out [2 x COLS] fp32: row pid = base + pid * step (PROGRAM_ID, DMA pid_stride). */
static uint8_t *spmd_image(uint64_t *size)
{
	struct vnef_dma_desc *d;
	struct vnef_instr *in;
	uint8_t *img;
	struct vb b;

	vb_init(&b);
	vb_tensor(&b, "out", VNEF_TENSOR_OUTPUT, VNEF_DT_FP32, 2, COLS, NULL);
	in = vb_op(&b, VNEURON_ENGINE_GPSIMD, VNEF_OP_PROGRAM_ID);
	in->dst = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 1, 0, COLS);
	in->imm[0] = 10;
	in->imm[1] = 5;
	in->signal_mask = 1;
	d = vb_store(&b, 0, 0, 0, COLS * 4, 1, COLS * 4, VNEF_MEM_SBUF, 0, 0);
	vb_wait(&d->flags, &d->wait_sem, &d->wait_value, 0, 1);
	d->dst.pid_stride = COLS * 4;
	img = vb_finish(&b, size);
	vb_free(&b);
	return img;
}

static int exec_flags(int fd, uint32_t prog, uint32_t core, uint32_t flags, uint32_t *h,
		      uint64_t *id)
{
	struct vneuron_exec e = {
		.program = prog, .core = core, .mem_handles_ptr = (uintptr_t)h, .mem_count = 1,
		.flags = flags,
	};
	int ret = vn_ioctl(fd, VNEURON_IOCTL_EXEC, &e);

	*id = e.exec_id;
	return ret;
}

FIXTURE(lnc) {
	int fd;
	struct vneuron_info info;
	uint32_t prog;
	uint32_t buf;
};

FIXTURE_SETUP(lnc)
{
	uint64_t size;
	uint8_t *img = spmd_image(&size);

	self->fd = vn_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, vn_ioctl(self->fd, VNEURON_IOCTL_GET_INFO, &self->info));
	ASSERT_EQ(0, vn_prog_load(self->fd, img, size, &self->prog, NULL));
	free(img);
	ASSERT_LT(0, (int)(self->buf = vn_alloc(self->fd, 2 * COLS * 4, NULL)));
}

FIXTURE_TEARDOWN(lnc)
{
	close(self->fd);
}

static bool has_lnc(const struct vneuron_info *info)
{
	return strcmp(info->model.name, "trn1") && info->core_count >= 2;
}

TEST_F(lnc, trn1_has_no_logical_cores)
{
	uint64_t id;

	EXPECT_TRUE(self->info.caps & VNEURON_CAP_LNC);
	if (has_lnc(&self->info))
		SKIP(return, "model %s has logical cores", self->info.model.name);
	EXPECT_EQ(-EOPNOTSUPP, exec_flags(self->fd, self->prog, 0, VNEURON_EXEC_LNC2,
					  &self->buf, &id));
	EXPECT_EQ(0, vn_owner_pid(0));
	EXPECT_EQ(0, vn_owner_pid(1));
}

TEST_F(lnc, two_instances_one_exec)
{
	float out[2 * COLS];
	struct vneuron_wait w, one;
	uint64_t id;
	uint32_t j;

	if (!has_lnc(&self->info))
		SKIP(return, "model %s has no logical cores", self->info.model.name);
	memset(out, 0xff, sizeof(out));
	ASSERT_EQ(0, vn_rw(self->fd, 1, self->buf, 0, out, sizeof(out)));
	ASSERT_EQ(0, exec_flags(self->fd, self->prog, 0, VNEURON_EXEC_LNC2, &self->buf, &id));
	ASSERT_EQ(0, vn_wait_for(self->fd, id, VNEURON_WAIT_FOREVER, &w));
	EXPECT_EQ(VNEURON_EXEC_OK, w.status);
	EXPECT_EQ(0U, w.core);
	EXPECT_LT(0ULL, w.model_ps);
	/* Both physical cores are the caller's now. */
	EXPECT_EQ(getpid(), vn_owner_pid(0));
	EXPECT_EQ(getpid(), vn_owner_pid(1));
	ASSERT_EQ(0, vn_rw(self->fd, 0, self->buf, 0, out, sizeof(out)));
	for (j = 0; j < COLS; j++) {
		EXPECT_EQ(10.0f, out[j]);
		EXPECT_EQ(15.0f, out[COLS + j]);
	}
	/* One instance alone (program id 0) takes the modeled time of the pair. */
	memset(out, 0, sizeof(out));
	ASSERT_EQ(0, vn_rw(self->fd, 1, self->buf, 0, out, sizeof(out)));
	ASSERT_EQ(0, vn_run_on(self->fd, self->prog, 1, &self->buf, 1, &one));
	EXPECT_EQ(VNEURON_EXEC_OK, one.status);
	EXPECT_EQ(w.model_ps, one.model_ps);
	ASSERT_EQ(0, vn_rw(self->fd, 0, self->buf, 0, out, sizeof(out)));
	EXPECT_EQ(10.0f, out[0]);
	EXPECT_EQ(0.0f, out[COLS]);
}

TEST_F(lnc, refused_numbers_claim_nothing)
{
	uint32_t n = self->info.core_count, c;
	uint64_t id;

	if (!has_lnc(&self->info))
		SKIP(return, "model %s has no logical cores", self->info.model.name);
	EXPECT_EQ(-EINVAL, exec_flags(self->fd, self->prog, 1, VNEURON_EXEC_LNC2, &self->buf, &id));
	EXPECT_EQ(-EINVAL, exec_flags(self->fd, self->prog, n, VNEURON_EXEC_LNC2, &self->buf, &id));
	EXPECT_EQ(-EINVAL, exec_flags(self->fd, self->prog, ~0u - 1, VNEURON_EXEC_LNC2,
				      &self->buf, &id));
	if (n % 2)	/* the last core is even: its pair is past the device */
		EXPECT_EQ(-EINVAL, exec_flags(self->fd, self->prog, n - 1, VNEURON_EXEC_LNC2,
					      &self->buf, &id));
	EXPECT_EQ(-EINVAL, exec_flags(self->fd, self->prog, 0, 2, &self->buf, &id));
	EXPECT_EQ(-EINVAL, exec_flags(self->fd, self->prog, 0, ~0u, &self->buf, &id));
	EXPECT_EQ(0ULL, id);
	for (c = 0; c < n; c++)
		EXPECT_EQ(0, vn_owner_pid(c));
}

TEST_F(lnc, second_core_busy_claims_neither)
{
	struct vneuron_wait w;
	uint32_t prog2, buf2;
	uint64_t size, id;
	uint8_t *img;
	int fd2;

	if (!has_lnc(&self->info))
		SKIP(return, "model %s has no logical cores", self->info.model.name);
	/* Another file owns core 1. */
	fd2 = vn_open();
	ASSERT_LE(0, fd2);
	img = spmd_image(&size);
	ASSERT_EQ(0, vn_prog_load(fd2, img, size, &prog2, NULL));
	free(img);
	ASSERT_LT(0, (int)(buf2 = vn_alloc(fd2, 2 * COLS * 4, NULL)));
	ASSERT_EQ(0, vn_run_on(fd2, prog2, 1, &buf2, 1, &w));
	EXPECT_EQ(-EBUSY, exec_flags(self->fd, self->prog, 0, VNEURON_EXEC_LNC2, &self->buf,
				     &id));
	EXPECT_EQ(0, vn_owner_pid(0));	/* the first core was given back */
	/* And the other way round: core 0 the other's, core 1 untouched. */
	close(fd2);
	fd2 = vn_open();
	ASSERT_LE(0, fd2);
	img = spmd_image(&size);
	ASSERT_EQ(0, vn_prog_load(fd2, img, size, &prog2, NULL));
	free(img);
	ASSERT_LT(0, (int)(buf2 = vn_alloc(fd2, 2 * COLS * 4, NULL)));
	ASSERT_EQ(0, vn_run_on(fd2, prog2, 0, &buf2, 1, &w));
	EXPECT_EQ(-EBUSY, exec_flags(self->fd, self->prog, 0, VNEURON_EXEC_LNC2, &self->buf,
				     &id));
	EXPECT_EQ(0, vn_owner_pid(1));
	close(fd2);
	ASSERT_EQ(0, exec_flags(self->fd, self->prog, 0, VNEURON_EXEC_LNC2, &self->buf, &id));
	ASSERT_EQ(0, vn_wait_for(self->fd, id, VNEURON_WAIT_FOREVER, &w));
	EXPECT_EQ(VNEURON_EXEC_OK, w.status);
}

/* ---- through libneurondev: nd_set_lnc() ---- */

static int nd_spmd(struct nd_device *dev, struct nd_program **prog, struct nd_mem **out)
{
	uint64_t size;
	uint8_t *img = spmd_image(&size);
	int ret;

	ret = nd_program_load(dev, img, size, prog, NULL) ?:
	      nd_mem_alloc(dev, 2 * COLS * 4, out);
	free(img);
	return ret;
}

TEST(library_launch)
{
	struct nd_device *dev;
	struct nd_program *prog;
	struct nd_mem *out;
	struct nd_run_result r, one;
	struct vneuron_info info;
	float v[2 * COLS];
	struct nd_error e;
	uint32_t j;

	ASSERT_EQ(0, nd_open(0, &dev, &e)) TH_LOG("%s", e.msg);
	ASSERT_EQ(0, nd_info(dev, &info));
	EXPECT_EQ(1U, nd_lnc(dev));
	EXPECT_EQ(-EINVAL, nd_set_lnc(dev, 3));
	EXPECT_STREQ("LNC=3: a logical core is 1 or 2 physical cores", nd_device_error(dev));
	if (!has_lnc(&info)) {
		EXPECT_EQ(-EOPNOTSUPP, nd_set_lnc(dev, 2));
		EXPECT_NE(NULL, strstr(nd_device_error(dev), "model trn1 has no logical cores"))
			TH_LOG("%s", nd_device_error(dev));
		EXPECT_EQ(1U, nd_lnc(dev));
		nd_close(dev);
		return;
	}
	ASSERT_EQ(0, nd_spmd(dev, &prog, &out));
	struct nd_bind b[] = { { "out", out } };

	ASSERT_EQ(0, nd_set_lnc(dev, 2));
	EXPECT_EQ(2U, nd_lnc(dev));
	/* the last logical core: both instances write their rows */
	ASSERT_EQ(0, nd_run(prog, info.core_count - 2, b, 1, 0, &r)) TH_LOG("%s",
									nd_device_error(dev));
	EXPECT_EQ(0U, r.result);
	ASSERT_EQ(0, nd_mem_read(out, 0, v, sizeof(v)));
	for (j = 0; j < COLS; j++) {
		EXPECT_EQ(10.0f, v[j]);
		EXPECT_EQ(15.0f, v[COLS + j]);
	}
	/* refused before the module: an odd core, the pair past the device */
	EXPECT_EQ(-EINVAL, nd_run(prog, 1, b, 1, 0, &r));
	EXPECT_STREQ("LNC=2: core 1 is not a logical core's first physical core (an even core)",
		     nd_device_error(dev));
	EXPECT_EQ(-EINVAL, nd_run(prog, info.core_count, b, 1, 0, &r));
	EXPECT_NE(NULL, strstr(nd_device_error(dev), "the device has"));
	/* back to physical cores: one instance, the same modeled time */
	ASSERT_EQ(0, nd_set_lnc(dev, 1));
	ASSERT_EQ(0, nd_mem_write(out, 0, (float[2 * COLS]){ 0 }, sizeof(v)));
	ASSERT_EQ(0, nd_run(prog, 0, b, 1, 0, &one));
	EXPECT_EQ(r.model_ps, one.model_ps);
	ASSERT_EQ(0, nd_mem_read(out, 0, v, sizeof(v)));
	EXPECT_EQ(10.0f, v[0]);
	EXPECT_EQ(0.0f, v[COLS]);
	nd_program_unload(prog);
	nd_close(dev);
}

/* io_uring launches take the handle's LNC too; a refused one is said at submit. */
TEST(library_uring_launch)
{
	struct nd_device *dev;
	struct nd_program *prog;
	struct nd_mem *out;
	struct nd_uring *ring;
	struct nd_uring_done d;
	struct vneuron_info info;
	float v[2 * COLS];
	struct nd_error e;

	ASSERT_EQ(0, nd_open(0, &dev, &e)) TH_LOG("%s", e.msg);
	ASSERT_EQ(0, nd_info(dev, &info));
	if (!has_lnc(&info) || !(info.caps & VNEURON_CAP_URING_CMD)) {
		nd_close(dev);
		SKIP(return, "no logical cores or no io_uring commands");
	}
	ASSERT_EQ(0, nd_spmd(dev, &prog, &out));
	struct nd_bind b[] = { { "out", out } };
	struct nd_uring_exec ex = { .prog = prog, .core = 0, .binds = b, .count = 1,
				    .user_data = 7 };

	ASSERT_EQ(0, nd_set_lnc(dev, 2));
	ASSERT_EQ(0, nd_uring_open(dev, 4, &ring));
	ASSERT_EQ(1, nd_uring_submit_exec(ring, &ex, 1)) TH_LOG("%s", nd_device_error(dev));
	ASSERT_EQ(1, nd_uring_reap(ring, &d, 1, 1));
	EXPECT_EQ(0, d.ret);
	EXPECT_EQ(7ULL, d.user_data);
	ASSERT_EQ(0, nd_mem_read(out, 0, v, sizeof(v)));
	EXPECT_EQ(10.0f, v[0]);
	EXPECT_EQ(15.0f, v[COLS]);
	ex.core = 1;
	EXPECT_EQ(-EINVAL, nd_uring_submit_exec(ring, &ex, 1));
	EXPECT_EQ(0U, nd_uring_inflight(ring));
	nd_uring_close(ring);
	nd_program_unload(prog);
	nd_close(dev);
}

/* ---- the tools and the Python package on the module ---- */

static char top[PATH_MAX];

/* The tree this test was built in (the guest sees the host's paths). */
static int find_top(void)
{
	char *slash;
	ssize_t n = readlink("/proc/self/exe", top, sizeof(top) - 1);

	if (n <= 0)
		return -1;
	top[n] = '\0';
	slash = strstr(top, "/build/rel/guest/");
	if (!slash)
		return -1;
	*slash = '\0';
	return 0;
}

/* A shell command's output (stdout and stderr) into out; its exit status. */
static int sh(char *out, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int sh(char *out, size_t len, const char *fmt, ...)
{
	char cmd[4 * PATH_MAX];
	size_t n = 0, k;
	va_list ap;
	FILE *p;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd) - 8, fmt, ap);
	va_end(ap);
	strcat(cmd, " 2>&1");
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (n + 1 < len && (k = fread(out + n, 1, len - 1 - n, p)) > 0)
		n += k;
	out[n] = '\0';
	while (fgetc(p) != EOF)
		;
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

FIXTURE(tools) {
	struct vneuron_info info;
	char dir[64], prog[128], prof[128];
	char out[65536];
};

FIXTURE_SETUP(tools)
{
	void *text, *img;
	size_t len, size;
	char vasm[PATH_MAX + 32];
	FILE *f;
	int fd;

	fd = vn_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, vn_ioctl(fd, VNEURON_IOCTL_GET_INFO, &self->info));
	close(fd);
	ASSERT_EQ(0, find_top());
	snprintf(self->dir, sizeof(self->dir), "/tmp/lnc_test.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->prog, sizeof(self->prog), "%s/spmd.vnef", self->dir);
	snprintf(self->prof, sizeof(self->prof), "%s/spmd.vntf", self->dir);
	snprintf(vasm, sizeof(vasm), "%s/examples/vasm/spmd.vasm", top);
	ASSERT_EQ(0, nd_read_file(vasm, 1 << 20, &text, &len));
	ASSERT_EQ(0, nd_asm(text, len, "spmd.vasm", 0, &img, &size, NULL, stderr));
	f = fopen(self->prog, "wb");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(1U, fwrite(img, size, 1, f));
	ASSERT_EQ(0, fclose(f));
	free(text);
	free(img);
}

FIXTURE_TEARDOWN(tools)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", self->dir);
	if (self->dir[0] && system(cmd))
		TH_LOG("%s failed", cmd);
}

/* The tools start slowly on the debug kernel under TCG: not the harness's 30 s */
TEST_F_TIMEOUT(tools, vneuron_run_lnc2, 300)
{
	/* the last logical core of trn2's 4 cores; core 0 of trn1's (the suite's 2) */
	int st = sh(self->out, sizeof(self->out), "%s/build/bin/vneuron-run --lnc 2 --core %u %s",
		    top, has_lnc(&self->info) ? 2 : 0, self->prog);

	if (!has_lnc(&self->info)) {
		EXPECT_EQ(2, st) TH_LOG("%s", self->out);
		EXPECT_NE(NULL, strstr(self->out, "model trn1 has no logical cores"))
			TH_LOG("%s", self->out);
		return;
	}
	ASSERT_EQ(0, st) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "on /dev/vneuron0 logical core 2 (cores 2, 3): 1 "
			       "execution OK")) TH_LOG("%s", self->out);
	/* program ids 0 and 1 each wrote theirs: both instances ran */
	EXPECT_NE(NULL, strstr(self->out, "out ids          [256 x 1] fp32: min 0 max 1 mean 0.5"))
		TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "out y            [256 x 64] fp32: min 1 max 1 mean 1"))
		TH_LOG("%s", self->out);
	EXPECT_EQ(2, sh(self->out, sizeof(self->out), "%s/build/bin/vneuron-run --lnc 2 --core 1 %s",
			top, self->prog));
	EXPECT_NE(NULL, strstr(self->out, "core 1 of /dev/vneuron0 is not a logical core's first"))
		TH_LOG("%s", self->out);
}

/* capture --lnc 2 on the module: the view groups cores 0 and 1 as the host capture does. */
TEST_F_TIMEOUT(tools, capture_lnc2, 600)
{
	const char *vp = "build/bin/vneuron-profile";
	char pf[160];

	if (!(self->info.caps & VNEURON_CAP_TRACE))
		SKIP(return, "no trace rings in this module");
	if (!has_lnc(&self->info)) {
		EXPECT_NE(0, sh(self->out, sizeof(self->out), "%s/%s capture --lnc 2 -n %s -s %s",
				top, vp, self->prog, self->prof));
		EXPECT_NE(NULL, strstr(self->out, "model trn1 has no logical cores"))
			TH_LOG("%s", self->out);
		EXPECT_NE(0, access(self->prof, F_OK));
		return;
	}
	ASSERT_EQ(0, sh(self->out, sizeof(self->out), "%s/%s capture --lnc 2 -n %s -s %s", top,
			vp, self->prog, self->prof)) TH_LOG("%s", self->out);
	ASSERT_EQ(0, sh(self->out, sizeof(self->out), "%s/%s view -n %s -s %s", top, vp,
			self->prog, self->prof)) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "; 2 cores, ")) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "\n  logical core 0 (LNC=2): core 0 (program id 0), "
			       "core 1 (program id 1)\n")) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "PROGRAM_ID 2 ")) TH_LOG("%s", self->out);
	ASSERT_EQ(0, sh(self->out, sizeof(self->out), "%s/%s view -n %s -s %s -f summary-json",
			top, vp, self->prog, self->prof));
	EXPECT_NE(NULL, strstr(self->out, ",\"logical_cores\":[{\"logical_core\":0,\"lnc\":2,"
			       "\"cores\":[0,1]}],")) TH_LOG("%s", self->out);
	snprintf(pf, sizeof(pf), "%s/spmd.pftrace", self->dir);
	ASSERT_EQ(0, sh(self->out, sizeof(self->out), "%s/%s view -n %s -s %s -f perfetto -o %s",
			top, vp, self->prog, self->prof, pf));
	EXPECT_EQ(0, sh(self->out, sizeof(self->out), "grep -c 'logical core 0 / core 1: spmd' %s",
			pf)) TH_LOG("%s", self->out);
	/*
	 * An application's own launch (vneuron-run --lnc 2) captured with -- APP: the
	 * EXEC_START records say LNC 2, so the profile gets the logical-cores section too.
	 */
	unlink(self->prof);
	ASSERT_EQ(0, sh(self->out, sizeof(self->out), "%s/%s capture -q --core 0 --core 1 -s %s "
			"-- %s/build/bin/vneuron-run --lnc 2 --core 0 %s", top, vp, self->prof, top,
			self->prog)) TH_LOG("%s", self->out);
	ASSERT_EQ(0, sh(self->out, sizeof(self->out), "%s/%s view -n %s -s %s", top, vp,
			self->prog, self->prof)) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "\n  logical core 0 (LNC=2): core 0 (program id 0), "
			       "core 1 (program id 1)\n")) TH_LOG("%s", self->out);
	/*
	 * The same launch after one-core runs that fill --max-size: its EXEC_START records
	 * are counted, not written, so the profile has no logical-cores section.
	 */
	unlink(self->prof);
	ASSERT_EQ(0, sh(self->out, sizeof(self->out), "%s/%s capture -q --core 0 --core 1 -s %s "
			"--max-size 64K -- sh -c '%s/build/bin/vneuron-run --core 0 -N 300 %s && "
			"%s/build/bin/vneuron-run --lnc 2 --core 0 %s'", top, vp, self->prof, top,
			self->prog, top, self->prog)) TH_LOG("%s", self->out);
	ASSERT_EQ(0, sh(self->out, sizeof(self->out), "%s/%s view -n %s -s %s", top, vp,
			self->prog, self->prof)) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "PARTIAL")) TH_LOG("%s", self->out);
	EXPECT_EQ(NULL, strstr(self->out, "logical core 0 (LNC=2)")) TH_LOG("%s", self->out);
	/* an odd core: said, nothing written */
	unlink(self->prof);
	EXPECT_NE(0, sh(self->out, sizeof(self->out), "%s/%s capture --lnc 2 --core 1 -n %s -s %s",
			top, vp, self->prog, self->prof));
	EXPECT_NE(NULL, strstr(self->out, "core 1 is not a logical core's first"))
		TH_LOG("%s", self->out);
	EXPECT_NE(0, access(self->prof, F_OK));
}

/* Device(0, lnc=2): tests/python/test_lnc_device.py, with Debian's python3. */
/* Python and NumPy start slowly under TCG: minutes, not the harness's 30 s */
TEST_F_TIMEOUT(tools, python_device_lnc2, 900)
{
	if (access("/usr/bin/python3", X_OK))
		SKIP(return, "no /usr/bin/python3");
	/*
	 * The debug kernel's boots (VN_GUEST_SLOW): Python drives the same EXEC as
	 * library_launch, which runs there; the Python file runs on Debian's kernel.
	 */
	if (getenv("VN_GUEST_SLOW"))
		SKIP(return, "VN_GUEST_SLOW: Python's LNC runs are Debian's kernel's");
	/* NumPy's AVX loops misbehave under QEMU's TCG (tools/guest-python) */
	EXPECT_EQ(0, sh(self->out, sizeof(self->out), "cd %s && NPY_DISABLE_CPU_FEATURES='AVX2 "
			"FMA3 F16C AVX' PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=%s/build/python:%s/"
			"tests/python /usr/bin/python3 -m pytest -q -p no:cacheprovider "
			"tests/python/test_lnc_device.py", top, top, top)) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, " passed")) TH_LOG("%s", self->out);
	EXPECT_EQ(NULL, strstr(self->out, "skipped")) TH_LOG("%s", self->out);
}

TEST_HARNESS_MAIN
