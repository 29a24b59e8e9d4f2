// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vneuron.ko in the guest, attacked from outside (the safe-device issue; one test per
 * finding): the node's mode, images whose strides wrap, a read-only descriptor, an
 * unprivileged second process. Each test asserts the refusal (the bench checks the
 * guest's log for warnings). Runs as root; the unprivileged cases drop to nobody in
 * forked children.
 */
#include "security_util.h"

/*
 * 9. The node: a char device, mode 0660 as the module's devnode callback made it on this
 * load (recorded before any test changed it), never accessible to others.
 */
TEST_F(sec, node_mode)
{
	struct stat st;

	ASSERT_EQ(0, node0_err) TH_LOG("stat %s: %s", VN_DEV, strerror(node0_err));
	EXPECT_TRUE(S_ISCHR(node0.st_mode));
	EXPECT_EQ(0660, node0.st_mode & 07777) TH_LOG("mode %o", node0.st_mode & 07777);
	EXPECT_EQ(0, node0.st_mode & 0007);
	/* And so it still is (test 3 puts it back). */
	ASSERT_EQ(0, stat(VN_DEV, &st));
	EXPECT_EQ(0, st.st_mode & 0007);
}

/* ---- 1. wrapping strides ---- */

struct dma_case {
	const char *what;
	uint32_t chunk, count0, count1;
	struct vnef_dma_ep src, dst;
};

/* Tensors in (input) and out (output), [128 x 64] fp32, and one descriptor. */
static uint8_t *dma_case_image(const struct dma_case *c, uint64_t *size)
{
	struct vnef_dma_desc *d;
	struct vb b;

	vb_init(&b);
	vb_tensor(&b, "in", VNEF_TENSOR_INPUT, F32, 128, 64, NULL);
	vb_tensor(&b, "out", VNEF_TENSOR_OUTPUT, F32, 128, 64, NULL);
	d = vb_dma(&b, 0);
	d->chunk_bytes = c->chunk;
	d->count[0] = c->count0;
	d->count[1] = c->count1;
	d->src = c->src;
	d->dst = c->dst;
	return vb_done(&b, size);
}

struct ap_case {
	const char *what;
	struct vnef_ap dst, src0;
};

/* A VectorE COPY src0 -> dst. */
static uint8_t *ap_case_image(const struct ap_case *c, uint64_t *size)
{
	struct vnef_instr *in;
	struct vb b;

	vb_init(&b);
	in = vb_op(&b, VNEURON_ENGINE_VECTOR, VNEF_OP_COPY);
	in->dst = c->dst;
	in->src0 = c->src0;
	return vb_done(&b, size);
}

#define B63		(1ull << 63)
#define HBM_IN		vb_hbm(0, 0, 0, 0)
#define HBM_OUT		vb_hbm(1, 0, 0, 0)
/* count0 = 2^32 - 1, count1 = 4 (or swapped): partition + 2^64 - 1 wraps to partition - 1. */
#define WRAP_PARTS(mem, part)	vb_chip(mem, part, 0, W32, 0, W32, 0)

/* The load must fail with -EINVAL naming check; nothing may stay loaded. */
static int refused_as(int fd, const uint8_t *img, uint64_t size, uint32_t check, char *why,
		      size_t n)
{
	struct vneuron_program_load pl;
	int ret = vn_prog_load(fd, img, size, NULL, &pl);

	snprintf(why, n, "ret %d check %u (%s)", ret, pl.check, pl.msg);
	return ret == -EINVAL && pl.check == check && pl.handle == 0;
}

TEST_F_TIMEOUT(sec, wrapping_strides_refused, 120)
{
	const struct dma_case good_dma = {
		"base", 256, 128, 1, vb_hbm(0, 0, 256, 0), vb_chip(SB, 0, 0, 1, 0, 0, 0),
	};
	/*
	 * On-chip endpoints whose last partition, partition + (count0 - 1) *
	 * part_stride[0] + (count1 - 1) * part_stride[1], wraps 64 bits to one below 128:
	 * their chunks would land anywhere in the kernel's address space.
	 */
	const struct dma_case part_wraps[] = {
		{ "SBUF dst, count0", 1, W32, 4, HBM_IN, WRAP_PARTS(SB, 1) },
		{ "SBUF dst, count1", 1, 4, W32, HBM_IN, WRAP_PARTS(SB, 1) },
		{ "SBUF dst to 127", 1, W32, 4, HBM_IN, WRAP_PARTS(SB, 128) },
		{ "PSUM dst, count0", 1, W32, 4, HBM_IN, WRAP_PARTS(PS, 1) },
		{ "PSUM dst, count1", 1, 4, W32, HBM_IN, WRAP_PARTS(PS, 64) },
		{ "SBUF src, count0", 1, W32, 4, WRAP_PARTS(SB, 1), HBM_OUT },
		{ "SBUF src, count1", 1, 4, W32, WRAP_PARTS(SB, 100), HBM_OUT },
		{ "PSUM src, count0", 1, W32, 4, WRAP_PARTS(PS, 1), HBM_OUT },
		{ "PSUM src, count1", 1, 4, W32, WRAP_PARTS(PS, 2), HBM_OUT },
	};
	/* Byte strides, offsets and chunk ends that wrap 64 bits, in HBM and on chip. */
	const struct dma_case byte_wraps[] = {
		{ "HBM src stride0 * count", 4, 3, 1,
		  vb_hbm(0, 0, B63, 0), vb_chip(SB, 0, 0, 1, 0, 0, 0) },
		{ "HBM src stride1 * count", 4, 1, 3,
		  vb_hbm(0, 0, 0, B63), vb_chip(SB, 0, 0, 0, 0, 1, 0) },
		{ "HBM dst stride sum", 4, 2, 2,
		  vb_chip(SB, 0, 0, 0, 4, 0, 8), vb_hbm(1, 0, B63, B63) },
		{ "HBM src offset + span", 64, 2, 1,
		  vb_hbm(0, ~0ull - 100, 64, 0), vb_chip(SB, 0, 0, 1, 0, 0, 0) },
		{ "HBM dst offset + chunk", 16, 1, 1,
		  vb_chip(SB, 0, 0, 0, 0, 0, 0), vb_hbm(1, ~0ull - 7, 0, 0) },
		{ "SBUF dst stride sum", 4, 2, 2,
		  vb_hbm(0, 0, 4, 8), vb_chip(SB, 0, 0, 0, B63, 0, B63) },
		{ "SBUF src offset + chunk", 8, 1, 1,
		  vb_chip(SB, 0, ~0ull - 3, 0, 0, 0, 0), HBM_OUT },
		{ "PSUM src stride0 * count", 4, 5, 1,
		  vb_chip(PS, 0, 0, 0, 1ull << 62, 0, 0), vb_hbm(1, 0, 4, 0) },
		{ "PSUM dst offset + stride", 4, 2, 1,
		  vb_hbm(0, 0, 4, 0), vb_chip(PS, 0, B63, 0, B63, 0, 0) },
	};
	/* Operands whose index sums or byte ends wrap 32 bits (as a u32 engine would). */
	const struct ap_case ap_wraps[] = {
		{ "dst stride sum = 2^32",
		  vb_ap(SB, F32, 0, 1, 0, 2, 0x80000000u, 2, 0x80000000u),
		  vb_ap2(SB, F32, 0, 1, 4096, 4) },
		{ "dst index * 4 = 2^32",
		  vb_ap(SB, F32, 0, 1, 0, 2, 0x40000000u, 1, 0), vb_ap2(SB, F32, 0, 1, 4096, 2) },
		{ "dst offset + 4 = 2^32",
		  vb_ap(SB, F32, 0, 1, 0xfffffffcu, 1, 1, 1, 0), vb_ap2(SB, F32, 0, 1, 4096, 1) },
		{ "src0 PSUM stride sum = 2^32",
		  vb_ap2(SB, F32, 0, 1, 0, 4), vb_ap(PS, F32, 0, 1, 0, 2, 1, 2, W32) },
		{ "src0 stride1 * 3 = 2^32 + 2",
		  vb_ap2(SB, F32, 0, 1, 0, 4), vb_ap(SB, F32, 0, 1, 0, 1, 0, 4, 0x55555556u) },
		{ "src0 stride 2^32 - 1 over 98304",
		  vb_ap(SB, VNEF_DT_BF16, 0, 1, 0, 98304, 1, 1, 0),
		  vb_ap(SB, F32, 0, 1, 0, 98304, W32, 1, 0) },
		{ "dst partitions wrap 16 bits",
		  vb_ap2(SB, F32, 0xffff, 2, 0, 16), vb_ap2(SB, F32, 0, 2, 4096, 16) },
	};
	const struct ap_case good_ap = {
		"base", vb_ap2(SB, F32, 0, 1, 0, 16), vb_ap2(SB, F32, 0, 1, 4096, 16),
	};
	long long progs0 = vn_counter("programs");
	uint32_t h[2], prog, i;
	struct vneuron_wait w;
	uint64_t size;
	uint8_t *img;
	char why[160];
	int fd = vn_open();

	ASSERT_LE(0, fd);
	for (i = 0; i < ARRAY_SIZE(part_wraps); i++) {
		img = dma_case_image(&part_wraps[i], &size);
		EXPECT_TRUE(refused_as(fd, img, size, VNEF_CHK_DMA, why, sizeof(why)))
			TH_LOG("partition wrap, %s: %s", part_wraps[i].what, why);
		free(img);
	}
	for (i = 0; i < ARRAY_SIZE(byte_wraps); i++) {
		img = dma_case_image(&byte_wraps[i], &size);
		EXPECT_TRUE(refused_as(fd, img, size, VNEF_CHK_DMA, why, sizeof(why)))
			TH_LOG("byte wrap, %s: %s", byte_wraps[i].what, why);
		free(img);
	}
	for (i = 0; i < ARRAY_SIZE(ap_wraps); i++) {
		img = ap_case_image(&ap_wraps[i], &size);
		EXPECT_TRUE(refused_as(fd, img, size, VNEF_CHK_OPERAND, why, sizeof(why)))
			TH_LOG("operand, %s: %s", ap_wraps[i].what, why);
		free(img);
	}
	EXPECT_EQ(progs0, vn_counter("programs"));

	/* The same programs with sane fields load and run: the device is fine. */
	img = dma_case_image(&good_dma, &size);
	ASSERT_EQ(0, vn_prog_load(fd, img, size, &prog, NULL));
	free(img);
	ASSERT_LT(0, (int)(h[0] = vn_alloc(fd, 128 * 64 * 4, NULL)));
	ASSERT_LT(0, (int)(h[1] = vn_alloc(fd, 128 * 64 * 4, NULL)));
	ASSERT_EQ(0, vn_run_on(fd, prog, 0, h, 2, &w));
	EXPECT_EQ(VNEURON_EXEC_OK, w.status);
	img = ap_case_image(&good_ap, &size);
	ASSERT_EQ(0, vn_prog_load(fd, img, size, &prog, NULL));
	free(img);
	ASSERT_EQ(0, vn_run_on(fd, prog, 0, NULL, 0, &w));
	EXPECT_EQ(VNEURON_EXEC_OK, w.status);
	close(fd);
}

/* ---- 2. read-only descriptor ---- */

static int uring_exec_res(struct io_uring *ring, int fd, struct vneuron_exec *e,
			  struct vneuron_wait *w)
{
	struct vneuron_uring_cmd uc = { .exec_ptr = (uintptr_t)e, .status_ptr = (uintptr_t)w };
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;
	int res;

	if (!sqe)
		return -9998;
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	sqe->cmd_op = VNEURON_URING_CMD_EXEC;
	memcpy(sqe->cmd, &uc, sizeof(uc));
	if (io_uring_submit(ring) != 1 || io_uring_wait_cqe(ring, &cqe))
		return -9999;
	res = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return res;
}

TEST_F_TIMEOUT(sec, read_only_descriptor, 120)
{
	struct vneuron_mem_alloc a, ma = { .size = PAGE };
	struct vneuron_trace_start ts;
	struct vneuron_info info;
	struct vneuron_exec e;
	struct vneuron_wait w;
	struct io_uring ring;
	long long objs, progs, execs, files;
	uint64_t offs[6];
	uint32_t prog;
	char buf[64];
	unsigned int i;
	int wr = vn_open(), ro = open(VN_DEV, O_RDONLY | O_CLOEXEC);

	ASSERT_LE(0, wr);
	ASSERT_LE(0, ro) TH_LOG("open O_RDONLY: %s", strerror(errno));
	/* The writable file of the same process has a program, a buffer and a session. */
	ASSERT_EQ(0, vn_prog_load(wr, self->tiny, self->tiny_size, &prog, NULL));
	ASSERT_LT(0, vn_alloc(wr, PAGE, &a));
	ASSERT_EQ(0, trace_start(wr, 0, 1 << 16, &ts));
	objs = vn_counter("mem_objects");
	progs = vn_counter("programs");
	execs = vn_counter("execs");
	files = vn_counter("open_files");

	memset(&info, 0, sizeof(info));
	ASSERT_EQ(0, vn_ioctl(ro, VNEURON_IOCTL_GET_INFO, &info));
	EXPECT_EQ((__u32)VNEURON_UAPI_VERSION, info.uapi_version);
	EXPECT_EQ(self->info.core_count, info.core_count);

	EXPECT_EQ(-EBADF, vn_ioctl(ro, VNEURON_IOCTL_MEM_ALLOC, &ma));
	EXPECT_EQ(0U, ma.handle);
	EXPECT_EQ(-EBADF, vn_free(ro, a.handle));
	EXPECT_EQ(-EBADF, vn_rw(ro, 1, a.handle, 0, buf, 8));
	EXPECT_EQ(-EBADF, vn_rw(ro, 0, a.handle, 0, buf, 8));
	EXPECT_EQ(-EBADF, reset_core(ro, 0));
	EXPECT_EQ(-EBADF, vn_prog_load(ro, self->tiny, self->tiny_size, NULL, NULL));
	{
		struct vneuron_program_unload u = { .handle = prog };

		EXPECT_EQ(-EBADF, vn_ioctl(ro, VNEURON_IOCTL_PROGRAM_UNLOAD, &u));
	}
	EXPECT_EQ(-EBADF, vn_exec_on(ro, prog, 0, NULL, 0, 0, NULL));
	EXPECT_EQ(-EBADF, vn_wait_for(ro, 1, 0, NULL));
	EXPECT_EQ(-EBADF, trace_start(ro, 1 % self->info.core_count, 1 << 16, NULL));
	EXPECT_EQ(-EBADF, trace_stop(ro, 0));

	/* No mapping at all: its own offsets, another file's buffer and ring offsets. */
	offs[0] = 0;
	offs[1] = 1ull << 32;			/* a first buffer's window */
	offs[2] = a.mmap_offset;		/* the writable file's buffer */
	offs[3] = VNEURON_MMAP_TRACE_BASE;
	offs[4] = ts.mmap_offset;		/* the writable file's rings */
	offs[5] = ts.mmap_offset + ts.consumer_len;
	for (i = 0; i < 6; i++) {
		void *p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, ro, (off_t)offs[i]);

		EXPECT_EQ(MAP_FAILED, p) TH_LOG("offset %#llx mapped", (unsigned long long)offs[i]);
		EXPECT_EQ(EACCES, errno) TH_LOG("offset %#llx: %s", (unsigned long long)offs[i],
						strerror(errno));
		if (p != MAP_FAILED)
			munmap(p, PAGE);
	}

	/* io_uring: the same EXEC completes on the writable file and is refused on this. */
	ASSERT_EQ(0, io_uring_queue_init(4, &ring, 0));
	e = (struct vneuron_exec){ .program = prog };
	EXPECT_EQ(-EBADF, uring_exec_res(&ring, ro, &e, &w));
	e = (struct vneuron_exec){ .program = prog };
	EXPECT_EQ(0, uring_exec_res(&ring, wr, &e, &w));
	io_uring_queue_exit(&ring);

	/* Nothing was made through the read-only file. */
	EXPECT_EQ(objs, vn_counter("mem_objects"));
	EXPECT_EQ(progs, vn_counter("programs"));
	EXPECT_EQ(execs, vn_counter("execs"));
	EXPECT_EQ(files, vn_counter("open_files"));
	close(ro);
	close(wr);
}

/* ---- 3. two processes, one unprivileged ---- */

struct owners {
	unsigned long long caps;
	int drop, open, load, exec0, reset0, trace0, run1, run1b;
	long long owner0;
	uint32_t st1, st1b;
	/* same user */
	int u1_drop, u1_run, u1_run2, u2_drop, u2_load, u2_trace_nodump, u2_trace, u2_map;
	int u2_exec, u2_reset, u2_run, u2_stop;
	uint32_t u1_st, u1_st2, u2_st;
	unsigned int u2_starts, u2_ends;
	long long u2_owner_seen, u2_owner_after, u2_owner_mine;
	pid_t u1_pid, u2_pid;
	/* a spy's session on a free core */
	int s_drop, s_trace, s_run;
	long long s_seen_root;
	uint32_t s_st;
	unsigned int s_starts, s_ends;
};

/* Open the node to TEST_GID only, as a deployment's group would. */
static int node_for_group(void)
{
	if (chown(VN_DEV, 0, TEST_GID) || chmod(VN_DEV, 0660))
		return -errno;
	return 0;
}

TEST_F_TIMEOUT(sec, unprivileged_second_process, 180)
{
	struct owners *r = shared(sizeof(*r));
	struct vneuron_trace_start ts;
	struct vneuron_wait w;
	struct vn_ring0 ring;
	unsigned int starts, ends;
	int p2c[2], c2p[2], fd;
	uint32_t prog;
	pid_t pid;

	ASSERT_NE(NULL, r);
	if (self->info.core_count < 2)
		SKIP(return, "needs two cores");
	ASSERT_EQ(0, node0_err);
	ASSERT_EQ(0, node_for_group());

	/* root claims core 0 */
	fd = vn_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, vn_prog_load(fd, self->tiny, self->tiny_size, &prog, NULL));
	ASSERT_EQ(0, vn_run_on(fd, prog, 0, NULL, 0, &w));
	EXPECT_EQ(VNEURON_EXEC_OK, w.status);
	EXPECT_EQ(getpid(), vn_owner_pid(0));

	ASSERT_EQ(0, pipe(p2c));
	ASSERT_EQ(0, pipe(c2p));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		uint32_t cprog;
		int cfd;

		close(p2c[1]);
		close(c2p[0]);
		close(fd);
		r->drop = drop_privileges();
		r->caps = caps_now();
		cfd = open(VN_DEV, O_RDWR | O_CLOEXEC);
		r->open = cfd < 0 ? -errno : 0;
		if (r->drop || cfd < 0)
			_exit(1);
		r->load = vn_prog_load(cfd, self->tiny, self->tiny_size, &cprog, NULL);
		r->exec0 = vn_exec_on(cfd, cprog, 0, NULL, 0, 0, NULL);
		r->reset0 = reset_core(cfd, 0);
		r->trace0 = trace_start(cfd, 0, 1 << 16, NULL);
		r->owner0 = vn_owner_pid(0);
		r->run1 = vn_run_on(cfd, cprog, 1, NULL, 0, &w);
		r->st1 = w.status;
		if (say(c2p[1]) || hear(p2c[0]))
			_exit(2);
		/* root is tracing core 1 now */
		r->run1b = vn_run_on(cfd, cprog, 1, NULL, 0, &w);
		r->st1b = w.status;
		if (say(c2p[1]) || hear(p2c[0]))
			_exit(3);
		_exit(0);
	}
	close(p2c[0]);
	close(c2p[1]);
	ASSERT_EQ(0, hear(c2p[0])) TH_LOG("child: drop %d open %d", r->drop, r->open);
	EXPECT_EQ(0, r->drop);
	EXPECT_EQ(0ull, r->caps & (CAP_BIT_SYS_ADMIN | CAP_BIT_PERFMON));
	EXPECT_EQ(0ull, r->caps);
	EXPECT_EQ(0, r->open);
	EXPECT_EQ(0, r->load);
	EXPECT_EQ(-EBUSY, r->exec0);
	EXPECT_EQ(-EPERM, r->reset0);
	EXPECT_EQ(-EPERM, r->trace0);
	EXPECT_EQ(getpid(), r->owner0);
	EXPECT_EQ(0, r->run1);
	EXPECT_EQ(VNEURON_EXEC_OK, r->st1);

	/* the child owns core 1: root may not run there, but may reset and trace it */
	EXPECT_EQ(pid, vn_owner_pid(1));
	EXPECT_EQ(-EBUSY, vn_exec_on(fd, prog, 1, NULL, 0, 0, NULL));
	EXPECT_EQ(0, reset_core(fd, 1));
	ASSERT_EQ(0, trace_start(fd, 1, 1 << 16, &ts));
	ASSERT_EQ(0, vn_ring0_map(fd, &ts, &ring));
	ASSERT_EQ(0, say(p2c[1]));
	ASSERT_EQ(0, hear(c2p[0]));
	EXPECT_EQ(0, r->run1b);
	EXPECT_EQ(VNEURON_EXEC_OK, r->st1b);
	ring0_tally(&ring, &starts, &ends);
	EXPECT_EQ(1u, starts);		/* the child's execution, seen by CAP_PERFMON */
	EXPECT_EQ(1u, ends);
	ASSERT_EQ(0, say(p2c[1]));
	EXPECT_EQ(0, wait_exit(pid));
	close(p2c[1]);
	close(c2p[0]);

	/* its file is gone: core 1 is free, and root's EXEC there works */
	EXPECT_EQ(0, vn_owner_pid(1));
	ASSERT_EQ(0, vn_run_on(fd, prog, 1, NULL, 0, &w));
	EXPECT_EQ(VNEURON_EXEC_OK, w.status);
	EXPECT_EQ(getpid(), vn_owner_pid(1));
	vn_ring0_unmap(&ring);
	EXPECT_EQ(0, trace_stop(fd, 1));
	close(fd);
	EXPECT_EQ(0, vn_owner_pid(0));
	EXPECT_EQ(0, vn_owner_pid(1));

	/*
	 * An unprivileged session started on a free core before root claims it: root's
	 * executions there run untraced (not one record on any ring); the session itself
	 * works, as its own execution shows once the core is free again.
	 */
	{
		int a[2], b[2];	/* spy -> root, root -> spy */
		pid_t spy;

		ASSERT_EQ(0, pipe(a));
		ASSERT_EQ(0, pipe(b));
		spy = fork();
		ASSERT_LE(0, spy);
		if (!spy) {
			struct vn_ring0 rs;
			uint32_t sp;
			int sf;

			close(a[0]);
			close(b[1]);
			r->s_drop = drop_privileges();
			sf = open(VN_DEV, O_RDWR | O_CLOEXEC);
			if (r->s_drop || sf < 0 ||
			    vn_prog_load(sf, self->tiny, self->tiny_size, &sp, NULL))
				_exit(1);
			r->s_trace = trace_start(sf, 0, 1 << 16, &ts);
			if (r->s_trace || vn_ring0_map(sf, &ts, &rs))
				_exit(2);
			if (say(a[1]) || hear(b[0]))
				_exit(3);
			r->s_seen_root = all_records(sf, &ts);
			if (say(a[1]) || hear(b[0]))
				_exit(4);
			r->s_run = vn_run_on(sf, sp, 0, NULL, 0, &w);
			r->s_st = w.status;
			ring0_tally(&rs, &r->s_starts, &r->s_ends);
			_exit(0);
		}
		close(a[1]);
		close(b[0]);
		ASSERT_EQ(0, hear(a[0])) TH_LOG("spy: drop %d trace %d", r->s_drop, r->s_trace);
		fd = vn_open();
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, vn_prog_load(fd, self->tiny, self->tiny_size, &prog, NULL));
		ASSERT_EQ(0, vn_run_on(fd, prog, 0, NULL, 0, &w));
		EXPECT_EQ(VNEURON_EXEC_OK, w.status);
		ASSERT_EQ(0, vn_run_on(fd, prog, 0, NULL, 0, &w));
		ASSERT_EQ(0, say(b[1]));
		ASSERT_EQ(0, hear(a[0]));
		close(fd);
		ASSERT_EQ(0, say(b[1]));
		EXPECT_EQ(0, wait_exit(spy));
		close(a[0]);
		close(b[1]);
		EXPECT_EQ(0, r->s_trace);
		EXPECT_EQ(0, r->s_seen_root) TH_LOG("root's executions reached nobody's rings");
		EXPECT_EQ(0, r->s_run);
		EXPECT_EQ(VNEURON_EXEC_OK, r->s_st);
		EXPECT_EQ(1u, r->s_starts);
		EXPECT_EQ(1u, r->s_ends);
	}

	/*
	 * Same user: u2 may trace u1's core once u1 is dumpable (not before: a process that
	 * changed its ids is not), sees its executions, but may neither run there nor reset
	 * it. When u1 closes its file, u2's EXEC claims the core.
	 */
	{
		int a[2], b[2];	/* u1 -> u2, u2 -> u1 */
		pid_t u1, u2;

		ASSERT_EQ(0, pipe(a));
		ASSERT_EQ(0, pipe(b));
		u1 = fork();
		ASSERT_LE(0, u1);
		if (!u1) {
			uint32_t p1;
			int f1;

			close(a[0]);
			close(b[1]);
			r->u1_drop = drop_privileges();
			prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
			f1 = open(VN_DEV, O_RDWR | O_CLOEXEC);
			if (r->u1_drop || f1 < 0 ||
			    vn_prog_load(f1, self->tiny, self->tiny_size, &p1, NULL))
				_exit(1);
			r->u1_pid = getpid();
			r->u1_run = vn_run_on(f1, p1, 0, NULL, 0, &w);
			r->u1_st = w.status;
			if (say(a[1]) || hear(b[0]))
				_exit(2);
			prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
			if (say(a[1]) || hear(b[0]))
				_exit(3);
			r->u1_run2 = vn_run_on(f1, p1, 0, NULL, 0, &w);
			r->u1_st2 = w.status;
			if (say(a[1]) || hear(b[0]))
				_exit(4);
			close(f1);
			if (say(a[1]) || hear(b[0]))
				_exit(5);
			_exit(0);
		}
		u2 = fork();
		ASSERT_LE(0, u2);
		if (!u2) {
			struct vn_ring0 r2;
			uint32_t p2;
			int f2;

			close(a[1]);
			close(b[0]);
			r->u2_drop = drop_privileges();
			f2 = open(VN_DEV, O_RDWR | O_CLOEXEC);
			if (r->u2_drop || f2 < 0)
				_exit(1);
			r->u2_load = vn_prog_load(f2, self->tiny, self->tiny_size, &p2, NULL);
			r->u2_pid = getpid();
			if (hear(a[0]))
				_exit(2);
			r->u2_owner_seen = vn_owner_pid(0);
			r->u2_trace_nodump = trace_start(f2, 0, 1 << 16, NULL);
			if (say(b[1]) || hear(a[0]))
				_exit(3);
			r->u2_trace = trace_start(f2, 0, 1 << 16, &ts);
			r->u2_map = r->u2_trace ? -1 : vn_ring0_map(f2, &ts, &r2);
			if (say(b[1]) || hear(a[0]))
				_exit(4);
			if (!r->u2_map)
				ring0_tally(&r2, &r->u2_starts, &r->u2_ends);
			r->u2_exec = vn_exec_on(f2, p2, 0, NULL, 0, 0, NULL);
			r->u2_reset = reset_core(f2, 0);
			if (say(b[1]) || hear(a[0]))
				_exit(5);
			r->u2_owner_after = vn_owner_pid(0);
			r->u2_run = vn_run_on(f2, p2, 0, NULL, 0, &w);
			r->u2_st = w.status;
			r->u2_owner_mine = vn_owner_pid(0);
			r->u2_stop = trace_stop(f2, 0);
			if (say(b[1]))
				_exit(6);
			_exit(0);
		}
		close(a[0]);
		close(a[1]);
		close(b[0]);
		close(b[1]);
		EXPECT_EQ(0, wait_exit(u1));
		EXPECT_EQ(0, wait_exit(u2));
		EXPECT_EQ(0, r->u1_drop);
		EXPECT_EQ(0, r->u2_drop);
		EXPECT_EQ(0, r->u2_load);
		EXPECT_EQ(0, r->u1_run);
		EXPECT_EQ(VNEURON_EXEC_OK, r->u1_st);
		EXPECT_EQ(r->u1_pid, r->u2_owner_seen);
		EXPECT_EQ(-EPERM, r->u2_trace_nodump);
		EXPECT_EQ(0, r->u2_trace);
		EXPECT_EQ(0, r->u2_map);
		EXPECT_EQ(0, r->u1_run2);
		EXPECT_EQ(VNEURON_EXEC_OK, r->u1_st2);
		EXPECT_EQ(1u, r->u2_starts);	/* u1's second execution reached u2's rings */
		EXPECT_EQ(1u, r->u2_ends);
		EXPECT_EQ(-EBUSY, r->u2_exec);
		EXPECT_EQ(-EPERM, r->u2_reset);
		EXPECT_EQ(0, r->u2_owner_after);
		EXPECT_EQ(0, r->u2_run);
		EXPECT_EQ(VNEURON_EXEC_OK, r->u2_st);
		EXPECT_EQ(r->u2_pid, r->u2_owner_mine);
		EXPECT_EQ(0, r->u2_stop);
	}
	node_restore();
	EXPECT_EQ(0, vn_owner_pid(0));
}

TEST_HARNESS_MAIN
