// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Logical cores through vneuron.ko (EXEC with VNEURON_EXEC_LNC2): one program as two
 * SPMD instances on cores 0 and 1 sharing a buffer, each writing its program id's row;
 * one exec id and the modeled time of one instance; and the refusals, as an attacker
 * tries them: an odd core, a core past the device, an unknown flag, a second core
 * another file owns (and the first then left unclaimed), a model without logical cores.
 *
 * tools/check guest runs it twice: in the suite (model trn1: the refusal by model, the
 * rest skipped) and alone with model=trn2 cores=4.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kmod_test.h"
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

TEST_HARNESS_MAIN
