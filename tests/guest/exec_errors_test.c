// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Execution through vneuron.ko in the guest, refused: every validation class of
 * PROGRAM_LOAD that reaches the kernel, one test each, and the argument errors of EXEC
 * and WAIT (handles, bindings, flags, cores and limits, unload while queued, EFAULT on
 * output, an interrupted wait).
 */
#include "exec_dev.h"

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

TEST_HARNESS_MAIN
