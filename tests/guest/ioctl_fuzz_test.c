// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A bounded, seeded fuzzer of /dev/vneuronN from several processes at once, about half
 * of them unprivileged, as two different users at once (uids 65534 and FZ_UID2, with
 * the device node's group: their shares of the module's resources meet): random
 * sequences of
 * every ioctl of uapi/vneuron.h and uapi/vneuron_trace.h with valid and boundary
 * arguments, valid programs and ones mutated by tests/fuzz/vnef_mutator.h, other struct
 * sizes and bad pointers, read-only and several opens, mmap/munmap of buffers and trace
 * rings, EXEC through io_uring, fork, close, and SIGKILL of random workers (which are
 * replaced). Whatever the calls, it asserts:
 *   - every call returns 0 or a documented errno, and a read-only file refuses all but
 *     GET_INFO with EBADF;
 *   - no process dies of anything but a SIGKILL we sent;
 *   - no execution ends with a device FAULT (the validator accepted what the executor
 *     refused), and the kernel's validator agrees with the host build's on every image;
 *   - once every process is gone the module's counters drain to 0 and no core has an
 *     owner.
 * The guest bench (tools/vmtest) fails the run on any kernel warning.
 *   VN_FUZZ_SECONDS (45), VN_FUZZ_PROCS (4), VN_FUZZ_SEED (printed; replays the run's
 *   choices, though not the kernel's timing).
 *
 * The fuzzer's state and helpers are in ioctl_fuzz.h, its operations in
 * ioctl_fuzz_ops.h and ioctl_fuzz_step.h: one call table and one errno oracle for all.
 */
#include "ioctl_fuzz.h"
#include "ioctl_fuzz_ops.h"
#include "ioctl_fuzz_step.h"

/* A worker: its own identity (uid 0: root), then random operations until told to stop. */
static int fz_worker_main(uint64_t seed, uid_t uid)
{
	static struct fz_worker wk;
	struct fz_worker *w = &wk;
	gid_t g = FZ_GID;
	uint64_t steps;
	unsigned int i;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	memset(w, 0, sizeof(*w));
	w->seed = seed;
	w->r.s = seed;
	w->want = -1;
	for (i = 0; i < FZ_FILES; i++)
		w->f[i].fd = -1;
	if (uid) {
		if (setgroups(1, &g) || setgid(uid) || setuid(uid) || getuid() != uid)
			return 3;
		/* a dumpable one may be traced by the others of its uid */
		prctl(PR_SET_DUMPABLE, fz_one_in(w, 2) ? 1 : 0);
	}
	steps = 200 + fz_below(w, 4000);
	while (w->step < steps && !__atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE))
		fz_step(w);
	if (w->ring_on && !fz_one_in(w, 4))
		fz_reap_cqes(w, true);
	/* exit closes what is left, mostly; sometimes close first */
	if (fz_one_in(w, 2))
		for (i = 0; i < FZ_FILES; i++)
			if (w->f[i].fd >= 0)
				close(w->f[i].fd);
	return 0;
}

/* ---- the test ---- */

static void fz_add_image(struct vb *b)
{
	uint64_t size;
	uint8_t *img = vb_finish(b, &size);

	vb_free(b);
	if (fz_nimg < FZ_IMAGES && img && size <= FZ_IMG_MAX) {
		fz_imgs[fz_nimg].img = img;
		fz_imgs[fz_nimg].size = size;
		fz_nimg++;
	} else {
		free(img);
	}
}

/* A few programs of each shape: no tensors, DMA through buffers, scratch, long, deadlock. */
static void fz_build_images(void)
{
	struct vnef_instr *in;
	struct vnef_dma_desc *d;
	struct vb b;
	int i;

	vb_init(&b);
	in = vb_op(&b, 1, VNEF_OP_MEMSET);
	in->dst = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 1, 0, 1);
	fz_add_image(&b);

	vb_init(&b);
	vb_tensor(&b, "x", VNEF_TENSOR_INPUT, VNEF_DT_FP32, 4, 8, NULL);
	vb_tensor(&b, "y", VNEF_TENSOR_OUTPUT, VNEF_DT_FP32, 4, 8, NULL);
	d = vb_load(&b, 0, 0, 0, 32, 4, 32, VNEF_MEM_SBUF, 0, 0);
	d->signal_mask = 1;
	in = vb_op(&b, 2, VNEF_OP_ACTIVATE);
	in->op = VNEF_ACT_EXP;
	in->imm[0] = 0x3f800000;
	VB_WAIT(in, 0, 1);
	in->src0 = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 4, 0, 8);
	in->dst = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 4, 64, 8);
	in->signal_mask = 2;
	d = vb_store(&b, 1, 1, 0, 32, 4, 32, VNEF_MEM_SBUF, 0, 64);
	VB_WAIT(d, 1, 1);
	fz_add_image(&b);

	vb_init(&b);
	vb_tensor(&b, "in", VNEF_TENSOR_INPUT, VNEF_DT_BF16, 64, 64, NULL);
	vb_tensor(&b, "s", VNEF_TENSOR_SCRATCH, VNEF_DT_BF16, 64, 64, NULL);
	vb_tensor(&b, "out", VNEF_TENSOR_OUTPUT, VNEF_DT_BF16, 64, 64, NULL);
	d = vb_load(&b, 0, 0, 0, 128, 64, 128, VNEF_MEM_SBUF, 0, 0);
	d->signal_mask = 1;
	d = vb_store(&b, 1, 1, 0, 128, 64, 128, VNEF_MEM_SBUF, 0, 0);
	VB_WAIT(d, 0, 1);
	d->signal_mask = 2;
	d = vb_load(&b, 2, 1, 0, 128, 64, 128, VNEF_MEM_PSUM, 0, 0);
	VB_WAIT(d, 1, 1);
	d->signal_mask = 4;
	d = vb_store(&b, 3, 2, 0, 128, 64, 128, VNEF_MEM_PSUM, 0, 0);
	VB_WAIT(d, 2, 1);
	fz_add_image(&b);

	/* long enough to be running when a close, a reset or a kill comes */
	vb_init(&b);
	for (i = 0; i < 16; i++) {
		in = vb_op(&b, 2, VNEF_OP_ACTIVATE);
		in->op = VNEF_ACT_TANH;
		in->imm[0] = 0x3f800000;
		in->src0 = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 128, i & 1 ? 0 : 8192, 2048);
		in->dst = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 128, i & 1 ? 8192 : 0, 2048);
	}
	fz_add_image(&b);

	/* VectorE and ScalarE wait on each other: a deadlock only execution finds */
	vb_init(&b);
	in = vb_op(&b, 1, VNEF_OP_NOP);
	VB_WAIT(in, 1, 1);
	in->signal_mask = 1;
	in = vb_op(&b, 2, VNEF_OP_NOP);
	VB_WAIT(in, 0, 1);
	in->signal_mask = 2;
	fz_add_image(&b);
}

/* The fuzzers' seed corpus, next to this binary's tree (build/rel/guest/..). */
static void fz_load_corpus(void)
{
	char exe[PATH_MAX], dir[PATH_MAX + 64], path[2 * PATH_MAX];
	struct dirent *de;
	ssize_t n;
	DIR *dp;
	FILE *fp;
	char *s;
	int k;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return;
	exe[n] = 0;
	for (k = 0; k < 4 && (s = strrchr(exe, '/')); k++)
		*s = 0;
	snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/exec", exe);
	dp = opendir(dir);
	if (!dp)
		return;
	while ((de = readdir(dp)) && fz_nimg < FZ_IMAGES) {
		if (!strstr(de->d_name, ".vnef"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		fp = fopen(path, "rb");
		if (!fp)
			continue;
		fz_imgs[fz_nimg].img = malloc(FZ_IMG_MAX);
		n = fz_imgs[fz_nimg].img ? (ssize_t)fread(fz_imgs[fz_nimg].img, 1, FZ_IMG_MAX, fp) : 0;
		fclose(fp);
		if (n > 0 && !vn_program_check(fz_imgs[fz_nimg].img, n, NULL))
			fz_imgs[fz_nimg++].size = n;
		else
			free(fz_imgs[fz_nimg].img);
	}
	closedir(dp);
}

static bool fz_drained(void)
{
	static const char *const names[] = {
		"mem_objects", "mem_bytes", "open_files", "programs", "execs", "comms", "users",
	};
	unsigned int i;

	for (i = 0; i < VNM_N(names); i++)
		if (vn_counter(names[i]) != 0)
			return false;
	return true;
}

/*
 * How a process of ours ended: normally, or by a SIGKILL we sent. A worker's SIGKILL is
 * on the list; a worker's child (reparented to us) is SIGKILLed only by its worker, by
 * its parent-death signal when the worker goes, or at the end.
 */
static bool fz_ended_well(pid_t p, int st, bool worker)
{
	if (WIFEXITED(st))
		return !WEXITSTATUS(st);
	return WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL &&
	       (!worker || fz_pid_in(sh->killed, &sh->nkilled, FZ_NKILLED, p));
}

/* Whether the kernel log says the OOM killer took this process. */
static bool fz_oom_killed(pid_t p)
{
	char rec[1024], pat[48];
	bool found = false;
	ssize_t n;
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd < 0)
		return false;
	snprintf(pat, sizeof(pat), "Killed process %d ", (int)p);
	/* a record per read; EPIPE: some were overwritten, go on */
	while ((n = read(fd, rec, sizeof(rec) - 1)) > 0 || (n < 0 && errno == EPIPE)) {
		if (n <= 0)
			continue;
		rec[n] = 0;
		found |= strstr(rec, pat) != NULL;
	}
	close(fd);
	return found;
}

/* A process reaped: its worker slot freed; false (and a line in the log) if it ended badly. */
static bool fz_reaped(pid_t p, int st, pid_t *pid, uint64_t procs)
{
	bool worker = false;
	uint64_t i;

	for (i = 0; i < procs; i++) {
		if (pid[i] == p) {
			pid[i] = 0;
			worker = true;
		}
	}
	if (fz_ended_well(p, st, worker))
		return true;
	printf("# %s %d ended abnormally: %s %d%s\n", worker ? "worker" : "child", p,
	       WIFSIGNALED(st) ? "signal" : "exit status",
	       WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st),
	       WIFSIGNALED(st) && fz_oom_killed(p) ? " (the OOM killer)" : "");
	return false;
}

static pid_t fz_spawn(uint64_t seed, uid_t uid)
{
	pid_t pid = fork();

	if (!pid)
		_exit(fz_worker_main(seed, uid));
	return pid;
}

/* A seed per worker from the run's: the run replays from its seed alone. */
static uint64_t fz_mix(uint64_t seed, uint64_t n)
{
	struct vnm_rng r = { seed ^ (n * 0xd1342543de82ef95ull) };

	return vnm_rand(&r);
}

FIXTURE(fz)
{
	struct stat node[2];
	bool have[2];
};

/* The nodes' group gets the unprivileged workers in (mode 0660, as the module makes). */
FIXTURE_SETUP(fz)
{
	char path[32];
	unsigned int i;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "/dev/vneuron%u", i);
		self->have[i] = !stat(path, &self->node[i]);
		if (!self->have[i])
			continue;
		ASSERT_EQ(0, chown(path, 0, FZ_GID));
		ASSERT_EQ(0, chmod(path, 0660));
	}
	ASSERT_TRUE(self->have[0]);
}

FIXTURE_TEARDOWN(fz)
{
	char path[32];
	unsigned int i;

	for (i = 0; i < 2; i++) {
		if (!self->have[i])
			continue;
		snprintf(path, sizeof(path), "/dev/vneuron%u", i);
		if (chown(path, self->node[i].st_uid, self->node[i].st_gid) ||
		    chmod(path, self->node[i].st_mode & 07777))
			TH_LOG("could not restore %s", path);
	}
}

TEST_F_TIMEOUT(fz, processes, FZ_TIMEOUT)
{
	uint64_t seconds = fz_env("VN_FUZZ_SECONDS", 45);
	uint64_t procs = fz_env("VN_FUZZ_PROCS", 4);
	uint64_t seed = fz_env("VN_FUZZ_SEED", fz_now() ^ ((uint64_t)getpid() << 32));
	uint64_t end, spawned = 0, kills = 0, iter = 0, i;
	pid_t pid[FZ_MAX_PROCS] = { 0 };
	struct vneuron_info info;
	unsigned int d, c, abnormal = 0, stragglers = 0;
	char line[2048], path[96];
	bool late = false;
	size_t len;
	int fd, st;
	pid_t p;

	if (seconds > FZ_TIMEOUT - FZ_STOP_S - 120)
		seconds = FZ_TIMEOUT - FZ_STOP_S - 120;
	if (procs < 1 || procs > FZ_MAX_PROCS)
		procs = 4;
	printf("# seed %llu (replay with VN_FUZZ_SEED=%llu), %llu s, %llu processes\n",
	       (unsigned long long)seed, (unsigned long long)seed, (unsigned long long)seconds,
	       (unsigned long long)procs);
	fflush(stdout);

	/* the devices and the images, made once for all */
	for (d = 0; d < 2; d++) {
		snprintf(path, sizeof(path), "/dev/vneuron%u", d);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			break;
		memset(&info, 0, sizeof(info));
		ASSERT_EQ(0, vn_ioctl(fd, VNEURON_IOCTL_GET_INFO, &info));
		close(fd);
		fz_cores[d] = info.core_count;
		fz_hbm_bytes = info.hbm_bytes;
		fz_max_exec_bytes = info.limits.max_exec_bytes;
		fz_ndev = d + 1;
	}
	ASSERT_LT(0, fz_ndev);
	fz_build_images();
	fz_load_corpus();
	ASSERT_LT(4, fz_nimg);
	fz_none = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fz_ro = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, fz_none);
	ASSERT_NE(MAP_FAILED, fz_ro);
	ASSERT_NE(MAP_FAILED, sh);
	/* orphans of a killed worker come back to us, to be reaped and judged */
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1));

	end = fz_now() + seconds * 1000000000ull;
	while (fz_now() < end) {
		for (i = 0; i < procs; i++) {
			if (pid[i] > 0)
				continue;
			/* even slots root, odd ones unprivileged: nobody and FZ_UID2 in turn */
			pid[i] = fz_spawn(fz_mix(seed, spawned++),
					  !(i & 1) ? 0 : i & 2 ? FZ_UID2 : FZ_UID);
			ASSERT_LT(0, pid[i]);
		}
		iter++;
		usleep(50000 + 1000 * (fz_mix(seed, 2 * iter) % 250));
		if (fz_mix(seed, 2 * iter + 1) % 4 == 0) {
			i = fz_mix(seed, iter + 0x5555) % procs;
			if (pid[i] > 0) {
				fz_pid_note(sh->killed, &sh->nkilled, FZ_NKILLED, pid[i]);
				kill(pid[i], SIGKILL);
				kills++;
			}
		}
		while ((p = waitpid(-1, &st, WNOHANG)) > 0)
			abnormal += !fz_reaped(p, st, pid, procs);
	}

	/* stop: every worker ends by itself, or is killed after FZ_STOP_S */
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELEASE);
	end = fz_now() + FZ_STOP_S * 1000000000ull;
	while ((p = waitpid(-1, &st, WNOHANG)) >= 0) {	/* until nobody is left */
		if (p) {
			abnormal += !fz_reaped(p, st, pid, procs);
			continue;
		}
		if (!late && fz_now() >= end) {
			late = true;
			for (i = 0; i < procs; i++) {
				if (pid[i] <= 0)
					continue;
				stragglers++;
				fz_pid_note(sh->killed, &sh->nkilled, FZ_NKILLED, pid[i]);
				kill(pid[i], SIGKILL);
			}
		}
		usleep(20000);
	}
	if (stragglers)
		TH_LOG("%u workers did not stop within %d s and were killed", stragglers,
		       FZ_STOP_S);

	/* what was done */
	len = snprintf(line, sizeof(line), "# ops:");
	for (i = 0; i < FZ_OP_NR && len < sizeof(line); i++)
		len += snprintf(line + len, sizeof(line) - len, " %s=%llu", fz_op_name[i],
				(unsigned long long)sh->ops[i]);
	printf("%s\n", line);
	len = snprintf(line, sizeof(line), "# ok:");
	for (i = 0; i < FZ_OP_NR && len < sizeof(line); i++)
		len += snprintf(line + len, sizeof(line) - len, " %s=%llu", fz_op_name[i],
				(unsigned long long)sh->ok[i]);
	printf("%s\n", line);
	for (i = 0; i < FZ_OP_NR; i++) {
		unsigned int e, k, best[3] = { 0 };

		for (e = 1; e < 64; e++) {
			for (k = 0; k < 3 && sh->errs[i][e] <= sh->errs[i][best[k]]; k++)
				;
			if (k < 3) {
				memmove(&best[k + 1], &best[k], (2 - k) * sizeof(best[0]));
				best[k] = e;
			}
		}
		if (!sh->errs[i][best[0]])
			continue;
		len = snprintf(line, sizeof(line), "# %s failed:", fz_op_name[i]);
		for (k = 0; k < 3 && sh->errs[i][best[k]]; k++)
			len += snprintf(line + len, sizeof(line) - len, " %s %llu",
					strerrorname_np(best[k]) ?: "?",
					(unsigned long long)sh->errs[i][best[k]]);
		printf("%s\n", line);
	}
	printf("# processes %llu (SIGKILLs sent %llu), children %llu; executions ended OK %llu "
	       "ERROR %llu TIMEOUT %llu ABORTED %llu FAULT %llu; mutated images loaded "
	       "%llu of %llu, executed %llu; largest core scratch %llu KiB\n",
	       (unsigned long long)spawned,
	       (unsigned long long)kills, (unsigned long long)sh->children,
	       (unsigned long long)sh->status[0], (unsigned long long)sh->status[1],
	       (unsigned long long)sh->status[2], (unsigned long long)sh->status[3],
	       (unsigned long long)sh->status[4], (unsigned long long)sh->loads_mutated_ok,
	       (unsigned long long)sh->loads_mutated, (unsigned long long)sh->execs_mutated,
	       (unsigned long long)(sh->scratch_max >> 10));
	for (i = 0; i < sh->nbad && i < FZ_NBAD; i++)
		TH_LOG("%s (uid %u, worker seed %llu, step %llu): errno %d: %s",
		       fz_op_name[sh->bad[i].op], sh->bad[i].uid,
		       (unsigned long long)sh->bad[i].seed, (unsigned long long)sh->bad[i].step,
		       sh->bad[i].err, sh->bad[i].what);
	fflush(stdout);
	EXPECT_EQ(0, abnormal);
	EXPECT_EQ(0, sh->nbad);

	/* everything gone: the module's counters drain, no core has an owner */
	for (i = 0; i < FZ_DRAIN_S * 50 && !fz_drained(); i++)
		usleep(20000);
	EXPECT_EQ(0, vn_counter("mem_objects"));
	EXPECT_EQ(0, vn_counter("mem_bytes"));
	EXPECT_EQ(0, vn_counter("open_files"));
	EXPECT_EQ(0, vn_counter("programs"));
	EXPECT_EQ(0, vn_counter("execs"));
	EXPECT_EQ(0, vn_counter("users")) TH_LOG("a user's charges outlived everything");
	for (d = 0; d < fz_ndev; d++) {
		for (c = 0; c < fz_cores[d]; c++) {
			long long owner = -1;
			FILE *fp;

			snprintf(path, sizeof(path), "/sys/class/vneuron/vneuron%u/core%u/owner_pid",
				 d, c);
			fp = fopen(path, "r");
			if (fp) {
				if (fscanf(fp, "%lld", &owner) != 1)
					owner = -1;
				fclose(fp);
			}
			EXPECT_EQ(0, owner) TH_LOG("%s", path);
		}
	}
}

TEST_HARNESS_MAIN
