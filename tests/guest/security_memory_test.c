// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vneuron.ko in the guest, attacked from outside (the safe-device issue): another
 * owner's leftovers on chip are zeroed for the next owner, and a small memory cgroup
 * gets ENOMEM, never the OOM killer. Runs as root; the unprivileged cases drop to
 * nobody in forked children.
 */
#include "security_util.h"

/* ---- 4. SBUF and PSUM zeroed for the next owner ---- */

struct onchip {
	int a_setup, a_fill, a_dump, a_same;
	int b_setup, b_dump, b_zero, b_fill, b_before_same, b_reset, b_after, b_after_zero;
	uint32_t a_st[2], b_st[4];
};

/* Every byte non-zero, and no two neighbours alike. */
static void pattern(uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(1 + (i * 7 + (i >> 12)) % 255);
}

static bool all_zero(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

struct chip_file {
	int fd;
	uint32_t fill, dump;
	uint32_t in[2], out[2];
};

/* A file with both programs and in (pattern) and out (0xff) buffers. */
static int chip_file_open(struct chip_file *c, const uint8_t *fill, uint64_t fsize,
			  const uint8_t *dump, uint64_t dsize, uint8_t *pat, uint8_t *junk)
{
	int h, i;

	c->fd = vn_open();
	if (c->fd < 0)
		return -1;
	if (vn_prog_load(c->fd, fill, fsize, &c->fill, NULL) ||
	    vn_prog_load(c->fd, dump, dsize, &c->dump, NULL))
		return -2;
	for (i = 0; i < 2; i++) {
		uint64_t n = i ? PS_BYTES : SB_BYTES;

		h = vn_alloc(c->fd, n, NULL);
		if (h <= 0)
			return -3;
		c->in[i] = h;
		h = vn_alloc(c->fd, n, NULL);
		if (h <= 0)
			return -3;
		c->out[i] = h;
		if (vn_rw(c->fd, 1, c->in[i], 0, i ? pat + SB_BYTES : pat, n) ||
		    vn_rw(c->fd, 1, c->out[i], 0, junk, n))
			return -4;
	}
	return 0;
}

/* Run dump on core, read both outputs into got (SB_BYTES + PS_BYTES). */
static int chip_dump(struct chip_file *c, uint32_t core, uint8_t *got, uint32_t *status)
{
	struct vneuron_wait w = { 0 };
	int ret = vn_run_on(c->fd, c->dump, core, c->out, 2, &w);

	*status = w.status;
	if (ret)
		return ret;
	if (vn_rw(c->fd, 0, c->out[0], 0, got, SB_BYTES) ||
	    vn_rw(c->fd, 0, c->out[1], 0, got + SB_BYTES, PS_BYTES))
		return -5;
	return 0;
}

TEST_F_TIMEOUT(sec, onchip_zeroed_for_next_owner, 600)
{
	size_t n = SB_BYTES + PS_BYTES;
	uint8_t *pat = malloc(n), *junk = malloc(n), *got = malloc(n);
	uint64_t fsize, dsize;
	uint8_t *fill = onchip_image(true, &fsize), *dump = onchip_image(false, &dsize);
	struct onchip *r = shared(sizeof(*r));
	struct vneuron_wait w;
	int held;

	ASSERT_TRUE(pat && junk && got && fill && dump && r);
	pattern(pat, n);
	memset(junk, 0xff, n);
	/*
	 * Twice: with the core's executor kept alive between the owners by a third file's
	 * trace session (the on-chip memory itself passes from A to B), and without.
	 */
	for (held = 1; held >= 0; held--) {
		struct chip_file c;
		int tfd = -1;
		pid_t pid;

		memset(r, 0, sizeof(*r));
		if (held) {
			tfd = vn_open();
			ASSERT_LE(0, tfd);
			ASSERT_EQ(0, trace_start(tfd, 0, 1 << 16, NULL));
		}
		/* A: fills SBUF and PSUM, sees them kept across its own executions, exits */
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			if (tfd >= 0)
				close(tfd);
			r->a_setup = chip_file_open(&c, fill, fsize, dump, dsize, pat, junk);
			if (r->a_setup)
				_exit(1);
			r->a_fill = vn_run_on(c.fd, c.fill, 0, c.in, 2, &w);
			r->a_st[0] = w.status;
			r->a_dump = chip_dump(&c, 0, got, &r->a_st[1]);
			r->a_same = !r->a_dump && !memcmp(got, pat, n);
			_exit(0);
		}
		EXPECT_EQ(0, wait_exit(pid));
		EXPECT_EQ(0, r->a_setup);
		EXPECT_EQ(0, r->a_fill);
		EXPECT_EQ(VNEURON_EXEC_OK, r->a_st[0]);
		EXPECT_EQ(0, r->a_dump);
		EXPECT_EQ(VNEURON_EXEC_OK, r->a_st[1]);
		EXPECT_TRUE(r->a_same) TH_LOG("held %d: A's second execution lost its data", held);
		EXPECT_EQ(0, vn_owner_pid(0));

		/* B: a new file reads all of SBUF and PSUM first; then, itself, across RESET */
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			if (tfd >= 0)
				close(tfd);
			r->b_setup = chip_file_open(&c, fill, fsize, dump, dsize, pat, junk);
			if (r->b_setup)
				_exit(1);
			r->b_dump = chip_dump(&c, 0, got, &r->b_st[0]);
			r->b_zero = !r->b_dump && all_zero(got, n);
			r->b_fill = vn_run_on(c.fd, c.fill, 0, c.in, 2, NULL);
			r->b_before_same = !chip_dump(&c, 0, got, &r->b_st[1]) &&
					   !memcmp(got, pat, n);
			r->b_reset = reset_core(c.fd, 0);
			r->b_after = chip_dump(&c, 0, got, &r->b_st[2]);
			r->b_after_zero = !r->b_after && all_zero(got, n);
			_exit(0);
		}
		EXPECT_EQ(0, wait_exit(pid));
		EXPECT_EQ(0, r->b_setup);
		EXPECT_EQ(0, r->b_dump);
		EXPECT_EQ(VNEURON_EXEC_OK, r->b_st[0]);
		EXPECT_TRUE(r->b_zero) TH_LOG("held %d: B read A's SBUF/PSUM", held);
		EXPECT_EQ(0, r->b_fill);
		EXPECT_TRUE(r->b_before_same);
		EXPECT_EQ(0, r->b_reset);
		EXPECT_EQ(0, r->b_after);
		EXPECT_EQ(VNEURON_EXEC_OK, r->b_st[2]);
		EXPECT_TRUE(r->b_after_zero) TH_LOG("held %d: RESET left SBUF/PSUM data", held);
		if (tfd >= 0) {
			EXPECT_EQ(0, trace_stop(tfd, 0));
			close(tfd);
		}
	}
	free(pat);
	free(junk);
	free(got);
	free(fill);
	free(dump);
}

/* ---- 5. memory cgroup ---- */

#define CG_MAX		(64 * MIB)
#define BIG_IMAGE	(48 * MIB)
#define ALLOC_STEP	(24 * MIB)
#define SCRATCH_STEP	(24 * MIB)
#define NLOADS		5	/* 5 x 48 MiB: below max_program_bytes (256 MiB) */
#define NALLOCS		10	/* 240 MiB: below the device budget (256 MiB) */
#define NSCRATCH	16	/* 384 MiB: below max_exec_bytes (1 GiB) */

struct memcg_res {
	int in_cg;
	int load[NLOADS], alloc[NALLOCS], scratch[NSCRATCH];
	int long_load, scratch_load, long_exec;
	int trace[4];
};

static const uint64_t trace_rings[4] = { 256 * MIB, 64 * MIB, 16 * MIB, 1 * MIB };

/* The first non-zero result, its index in *at; 0 if none. */
static int first_err(const int *v, int n, int *at)
{
	int i;

	for (i = 0; i < n; i++) {
		if (v[i]) {
			*at = i;
			return v[i];
		}
	}
	*at = n;
	return 0;
}

/* A value of memory.events, or -1. */
static long long cg_event(const char *cg, const char *key)
{
	char path[256], k[64];
	long long v, ret = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/memory.events", cg);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fscanf(f, "%63s %lld", k, &v) == 2)
		if (!strcmp(k, key))
			ret = v;
	fclose(f);
	return ret;
}

/*
 * The cgroup's usage back near zero (up to 30 s): what the previous case freed from
 * workers (executors, cancelled executions) is uncharged before the next case. Plain
 * system calls into a stack buffer: no new memory of this process.
 */
static void settle(const char *cg)
{
	char path[256], buf[32];
	int i, fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/memory.current", cg);
	for (i = 0; i < 3000; i++) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			return;
		buf[n] = '\0';
		if (strtoull(buf, NULL, 10) <= 8 * MIB)
			return;
		usleep(10000);
	}
}

static void memcg_child(const char *cg, struct memcg_res *r, const uint8_t *big,
			uint64_t big_size, const uint8_t *lng, uint64_t long_size,
			const uint8_t *scr, uint64_t scr_size, uint32_t cores)
{
	char path[256], pid[32], stack[64 << 10];
	uint32_t lp, sp, zero[1] = { 0 };
	int fd, i;

	/* Touch what this process will write before it moves: those pages stay outside. */
	memset(stack, 1, sizeof(stack));
	__asm__ volatile("" : : "r"(stack) : "memory");
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	snprintf(pid, sizeof(pid), "%d", getpid());
	r->in_cg = vn_write_file(path, pid);
	if (r->in_cg)
		_exit(1);

	/* program images, charged while loaded */
	fd = vn_open();
	if (fd < 0)
		_exit(2);
	for (i = 0; i < NLOADS; i++) {
		r->load[i] = vn_prog_load(fd, big, big_size, NULL, NULL);
		if (r->load[i])
			break;
	}
	close(fd);

	/* buffers */
	settle(cg);
	fd = vn_open();
	if (fd < 0)
		_exit(3);
	for (i = 0; i < NALLOCS; i++) {
		int h = vn_alloc(fd, ALLOC_STEP, NULL);

		r->alloc[i] = h < 0 ? h : 0;
		if (r->alloc[i])
			break;
	}
	close(fd);

	/* core-provided scratch of executions queued behind a long one */
	settle(cg);
	fd = vn_open();
	if (fd < 0)
		_exit(4);
	r->long_load = vn_prog_load(fd, lng, long_size, &lp, NULL);
	r->scratch_load = vn_prog_load(fd, scr, scr_size, &sp, NULL);
	r->long_exec = vn_exec_on(fd, lp, 0, NULL, 0, 600 * SEC_NS, NULL);
	for (i = 0; i < NSCRATCH; i++) {
		r->scratch[i] = vn_exec_on(fd, sp, 0, zero, 1, 600 * SEC_NS, NULL);
		if (r->scratch[i])
			break;
	}
	close(fd);	/* cancels them all */

	/* trace rings */
	settle(cg);
	fd = vn_open();
	if (fd < 0)
		_exit(5);
	for (i = 0; i < 4; i++) {
		r->trace[i] = trace_start(fd, cores > 1 ? 1 : 0, trace_rings[i], NULL);
		if (!r->trace[i])
			trace_stop(fd, cores > 1 ? 1 : 0);
	}
	close(fd);
	_exit(0);
}

TEST_F_TIMEOUT(sec, memory_cgroup_enomem_not_oom, 600)
{
	uint64_t big_size, long_size, scr_size;
	uint8_t *big = big_image(BIG_IMAGE, &big_size);
	uint8_t *lng = long_image(&long_size, 4000);
	uint8_t *scr = scratch_image(SCRATCH_STEP, &scr_size);
	struct memcg_res *r = shared(sizeof(*r));
	char cg[128], path[256], ctl[256] = "";
	bool mounted = false;
	const struct vneuron_limits *l = &self->info.limits;
	int err, at, status;
	FILE *f;
	pid_t pid;

	ASSERT_TRUE(big && lng && scr && r);
	if (access(CGROOT "/cgroup.controllers", F_OK)) {
		ASSERT_EQ(0, mount("none", CGROOT, "cgroup2", 0, NULL))
			TH_LOG("mount cgroup2: %s", strerror(errno));
		mounted = true;
	}
	f = fopen(CGROOT "/cgroup.controllers", "r");
	ASSERT_NE(NULL, f);
	if (!fgets(ctl, sizeof(ctl), f))
		ctl[0] = '\0';
	fclose(f);
	if (!strstr(ctl, "memory"))
		SKIP(goto out, "no memory controller in this kernel");
	ASSERT_EQ(0, vn_write_file(CGROOT "/cgroup.subtree_control", "+memory"));
	snprintf(cg, sizeof(cg), CGROOT "/vneuron-security-%d", getpid());
	ASSERT_EQ(0, mkdir(cg, 0755));
	snprintf(path, sizeof(path), "%s/memory.max", cg);
	ASSERT_EQ(0, vn_write_file(path, "64M"));
	snprintf(path, sizeof(path), "%s/memory.swap.max", cg);
	if (!access(path, F_OK))
		ASSERT_EQ(0, vn_write_file(path, "0"));

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		memcg_child(cg, r, big, big_size, lng, long_size, scr, scr_size,
			    self->info.core_count);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	/* never OOM-killed: it ended by itself, and the cgroup counted no kill */
	EXPECT_TRUE(WIFEXITED(status)) TH_LOG("child killed by signal %d", WTERMSIG(status));
	EXPECT_EQ(0, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	EXPECT_EQ(0, cg_event(cg, "oom_kill"));
	EXPECT_LE(1, cg_event(cg, "max"));	/* the limit was reached, and held */
	EXPECT_EQ(0, r->in_cg);

	/* each kind of memory ran into the cgroup's limit: -ENOMEM, before any file limit */
	err = first_err(r->load, NLOADS, &at);
	EXPECT_EQ(-ENOMEM, err) TH_LOG("program load %d of %d x %llu MiB: %d", at, NLOADS,
				       (unsigned long long)(BIG_IMAGE >> 20), err);
	EXPECT_LT(0, at);			/* one 48 MiB image fits in 64 MiB */
	err = first_err(r->alloc, NALLOCS, &at);
	EXPECT_EQ(-ENOMEM, err) TH_LOG("alloc %d of %d x 24 MiB: %d", at, NALLOCS, err);
	EXPECT_GE(CG_MAX, (uint64_t)at * ALLOC_STEP);
	EXPECT_EQ(0, r->long_load);
	EXPECT_EQ(0, r->scratch_load);
	EXPECT_EQ(0, r->long_exec);
	err = first_err(r->scratch, NSCRATCH, &at);
	EXPECT_EQ(-ENOMEM, err) TH_LOG("scratch exec %d of %d x 24 MiB: %d", at, NSCRATCH, err);
	EXPECT_GE(CG_MAX, (uint64_t)at * SCRATCH_STEP);
	/*
	 * The largest rings: the file's limit answers first if one session of them passes
	 * max_trace_bytes (the data of a core's rings of ring_size), else the cgroup.
	 */
	EXPECT_EQ(TRACE_RINGS * trace_rings[0] > l->max_trace_bytes ? -ENOSPC : -ENOMEM,
		  r->trace[0]) TH_LOG("256 MiB rings: %d (max_trace_bytes %llu)", r->trace[0],
				      (unsigned long long)l->max_trace_bytes);
	EXPECT_EQ(-ENOMEM, r->trace[1]) TH_LOG("64 MiB rings: %d", r->trace[1]);
	EXPECT_EQ(-ENOMEM, r->trace[2]) TH_LOG("16 MiB rings: %d", r->trace[2]);
	EXPECT_EQ(0, r->trace[3]) TH_LOG("1 MiB rings: %d", r->trace[3]);
	TH_LOG("memory.events: max %lld oom %lld oom_kill %lld", cg_event(cg, "max"),
	       cg_event(cg, "oom"), cg_event(cg, "oom_kill"));

	/* The parent, outside, still works. */
	{
		struct vneuron_wait w;
		uint32_t prog;
		int fd = vn_open();

		ASSERT_LE(0, fd);
		ASSERT_EQ(0, vn_prog_load(fd, self->tiny, self->tiny_size, &prog, NULL));
		ASSERT_EQ(0, vn_run_on(fd, prog, 0, NULL, 0, &w));
		EXPECT_EQ(VNEURON_EXEC_OK, w.status);
		close(fd);
	}
	EXPECT_EQ(0, rmdir(cg));
out:
	if (mounted)
		umount(CGROOT);
	free(big);
	free(lng);
	free(scr);
}

TEST_HARNESS_MAIN
