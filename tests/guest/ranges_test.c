// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Issue 16 on the module: `vneuron-profile capture -- app` around applications (this
 * binary, re-run with RANGES_TEST_APP set) that open nd_range_push() ranges in several
 * threads of several processes (fork), launch by ioctl and by io_uring, crash, sleep
 * between executions or keep their core busy. The profile must hold every process's
 * API log; each execution is attributed to the ranges its launching thread had open;
 * on the host clock each core's executions are in order and each lies between its EXEC
 * call and its WAIT's return, within the stated error; a crash loses nothing logged
 * before it; the host-overhead finding fires for the sleeper only.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vnprog.h"
#include "../../profiler/model/profile.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmisleading-indentation"
#include "kselftest_harness.h"

#define ROWS	128
#define COLS	256
/*
 * The busy app's executions: eight tiles of rows, so that each runs long next to the
 * module's own work between two queued executions (a fixed cost per execution).
 */
#define BUSY_ROWS	1024
#define STEPS	3		/* per thread of the multi app: steps of layers fc1, fc2 */
#define URING_N	2		/* the child's first thread: io_uring executions */
#define CRASH_N	3		/* executions before the crash */
#define GAPPY_N	5		/* executions of the sleeper and of the busy app */
/*
 * The sleeper's sleep: long next to an execution of ROWS x COLS even on the debug
 * kernel (about 10 ms on Debian's in the emulated guest; the finding needs 25%)
 */
#define SLEEP_US	100000

static char prof[PATH_MAX], self_exe[PATH_MAX];

/* ---- the applications ---- */

struct app_thread {
	struct nd_device *dev;
	struct nd_program *prog;
	unsigned int proc, core;
	int ok;
};

static struct nd_mem *app_in[2], *app_out[2];
static uint32_t app_rows = ROWS;

static int app_run(struct nd_program *p, unsigned int core)
{
	struct nd_bind b[] = { { "in", app_in[core] }, { "out", app_out[core] } };
	struct nd_run_result r;

	return nd_run(p, core, b, 2, 0, &r);
}

/* The io_uring executions, all queued at once, inside the range "uring". */
static int app_uring(struct app_thread *t)
{
	struct nd_bind b[] = { { "in", app_in[t->core] }, { "out", app_out[t->core] } };
	struct nd_uring_exec e[URING_N];
	struct nd_uring_done d[URING_N];
	struct nd_uring *u;
	int i, n, ok;

	if (nd_uring_open(t->dev, URING_N, &u))
		return -1;
	for (i = 0; i < URING_N; i++)
		e[i] = (struct nd_uring_exec){ .prog = t->prog, .core = t->core, .binds = b,
					       .count = 2, .user_data = (uint64_t)i };
	nd_range_push("uring");
	ok = nd_uring_submit_exec(u, e, URING_N) == URING_N;
	for (n = 0; ok && n < URING_N; n += i) {
		i = nd_uring_reap(u, d + n, URING_N - n, 1);
		ok = i > 0;
	}
	nd_range_pop();
	for (i = 0; ok && i < URING_N; i++)
		ok = !d[i].ret && d[i].has_result && d[i].res.result == VNEURON_EXEC_OK;
	nd_uring_close(u);
	return ok ? 0 : -1;
}

/* One thread of the multi app: its own range, then steps of two layers. */
static void *app_thread(void *arg)
{
	struct app_thread *t = arg;
	char name[64];
	int s;

	snprintf(name, sizeof(name), "proc%u core%u", t->proc, t->core);
	t->ok = nd_range_push(name) == 1;
	for (s = 0; t->ok && s < STEPS; s++) {
		snprintf(name, sizeof(name), "step %d", s);
		t->ok = nd_range_push(name) == 2 && nd_range_push("fc1") == 3 &&
			!app_run(t->prog, t->core) && nd_range_pop() == 2 &&
			nd_range_push("fc2") == 3 && !app_run(t->prog, t->core) &&
			nd_range_pop() == 2 && nd_range_pop() == 1;
	}
	if (t->ok && t->proc == 1 && t->core == 0)
		t->ok = !app_uring(t);
	t->ok = t->ok && nd_range_pop() == 0;
	return NULL;
}

/* Device proc (0: the parent, 1: the forked child), both its cores, a thread each. */
static int app_process(unsigned int proc, void *img, size_t size)
{
	struct app_thread t[2];
	pthread_t th[2];
	struct nd_program *prog;
	struct nd_device *dev;
	struct nd_error e;
	unsigned int c;
	int ok = 1;

	if (nd_open(proc, &dev, &e) || nd_program_load(dev, img, size, &prog, NULL))
		return 10;
	for (c = 0; c < 2; c++)
		if (nd_mem_alloc(dev, app_rows * COLS * 4, &app_in[c]) ||
		    nd_mem_alloc(dev, app_rows * COLS * 4, &app_out[c]))
			return 10;
	for (c = 0; c < 2; c++) {
		t[c] = (struct app_thread){ .dev = dev, .prog = prog, .proc = proc, .core = c };
		if (pthread_create(&th[c], NULL, app_thread, &t[c]))
			return 10;
	}
	for (c = 0; c < 2; c++) {
		pthread_join(th[c], NULL);
		ok &= t[c].ok;
	}
	nd_close(dev);
	return ok ? 0 : 11;
}

/*
 * multi: two processes of two threads; the parent has a range open when it forks,
 * which the child does not inherit (its first range is at depth 1).
 */
static int app_multi(void *img, size_t size)
{
	pid_t pid;
	int st, ret;

	if (nd_range_push("parent") != 1)
		return 12;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return 12;
	if (!pid) {
		ret = nd_range_push("child") == 1 ? app_process(1, img, size) : 12;
		_exit(ret ?: nd_range_pop() == 0 ? 0 : 12);
	}
	ret = app_process(0, img, size);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return 13;
	return ret ?: WEXITSTATUS(st) ?: nd_range_pop() == 0 ? 7 : 12;
}

/* One thread on core 0: the crashing, sleeping and busy apps. */
static int app_single(const char *mode, void *img, size_t size)
{
	struct nd_program *prog;
	struct nd_device *dev;
	struct nd_error e;
	uint64_t id[GAPPY_N];
	char name[32];
	int i;

	if (nd_open(0, &dev, &e) || nd_program_load(dev, img, size, &prog, NULL) ||
	    nd_mem_alloc(dev, app_rows * COLS * 4, &app_in[0]) ||
	    nd_mem_alloc(dev, app_rows * COLS * 4, &app_out[0]))
		return 10;
	nd_range_push(mode);
	if (!strcmp(mode, "abort") || !strcmp(mode, "sigkill")) {
		/* crashes with its ranges open: what was logged must all be there */
		for (i = 0; i < CRASH_N; i++) {
			snprintf(name, sizeof(name), "step %d", i);
			nd_range_push(name);
			if (app_run(prog, 0))
				return 11;
			nd_range_pop();
		}
		nd_range_push("never closed");
		nd_mark("crash");
		if (!strcmp(mode, "abort"))
			abort();
		kill(getpid(), SIGKILL);
		return 12;
	}
	if (!strcmp(mode, "sleepy")) {
		for (i = 0; i < GAPPY_N; i++) {
			if (i)
				usleep(SLEEP_US);
			if (app_run(prog, 0))
				return 11;
		}
		return 7;
	}
	/* busy: every execution queued before the first wait, so the core never idles */
	for (i = 0; i < GAPPY_N; i++) {
		struct nd_bind b[] = { { "in", app_in[0] }, { "out", app_out[0] } };

		if (nd_exec(prog, 0, b, 2, 0, &id[i]))
			return 11;
	}
	for (i = 0; i < GAPPY_N; i++) {
		struct nd_run_result r;

		if (nd_wait(dev, id[i], ND_WAIT_FOREVER, &r) || r.result != VNEURON_EXEC_OK)
			return 11;
	}
	return 7;
}

__attribute__((constructor)) static void app_mode(void)
{
	const char *mode = getenv("RANGES_TEST_APP"), *img_path = getenv("RANGES_TEST_VNEF");
	struct nd_error e;
	void *img;
	size_t size;

	if (!mode)
		return;
	if (!strcmp(mode, "busy"))
		app_rows = BUSY_ROWS;
	if (!img_path || !getenv("VNEURON_PROFILE_API") ||
	    nd_vnef_read(img_path, &img, &size, &e))
		_exit(10);
	_exit(!strcmp(mode, "multi") ? app_multi(img, size) : app_single(mode, img, size));
}

/* ---- the checks ---- */

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[4 * PATH_MAX];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* An execution's ranges as "a/b/c". */
static const char *stack_of(const struct vnp_timeline *tl, const struct vnp_exec *x,
			    char *buf, size_t len)
{
	const uint32_t *ids;
	unsigned int n, i;

	buf[0] = 0;
	n = vnp_exec_ranges(tl, x, &ids);
	for (i = 0; i < n; i++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? "/" : "",
			 vnp_range_name(tl, ids[i]));
	return buf;
}

/* The timeline's core slot of (device, core), -1 if the profile has none. */
static int slot_of(const struct vnp_profile *pf, uint32_t dev, uint32_t core)
{
	unsigned int i;

	for (i = 0; i < pf->nslots; i++)
		if (pf->slot[i][0] == dev && pf->slot[i][2] == core)
			return (int)i;
	return -1;
}

/*
 * On the host clock: each core's executions one after another, each after its EXEC
 * call began and before its WAIT returned (plus its stated error). How many executions
 * had both calls.
 */
static unsigned int check_host_clock(struct __test_metadata *_metadata,
				     const struct vnp_timeline *tl)
{
	const struct vnp_ranges *g = &tl->rg;
	const struct vnp_exec *x, *prev = NULL;
	unsigned int checked = 0;
	size_t i, k;

	EXPECT_EQ(0, tl->map_unplaced);
	for (i = 0; i < tl->nexec; i++) {
		x = &tl->execs[i];
		EXPECT_NE(UINT64_MAX, x->map_err);
		if (prev && prev->key >> 32 == x->key >> 32)
			EXPECT_LE(prev->hi + prev->shift, x->lo + x->shift)
				TH_LOG("core %u exec %u", (unsigned int)(x->key >> 32),
				       (unsigned int)x->key);
		prev = x;
	}
	for (i = 0; i < g->ncalls; i++) {
		const struct vnp_call *c = &g->calls[i], *w = NULL;
		uint64_t start;

		if (c->kind != ND_API_EXEC - ND_API_MARKER || c->core >= VNP_MAX_CORES)
			continue;
		for (k = 0; k < g->ncalls && !w; k++)
			if (g->calls[k].kind == ND_API_WAIT - ND_API_MARKER &&
			    g->calls[k].pid == c->pid && g->calls[k].core == c->core &&
			    g->calls[k].seq == c->seq)
				w = &g->calls[k];
		x = vnp_tl_exec(tl, c->core, c->seq);
		if (!w || !x)
			continue;
		start = x->lo + x->shift;
		EXPECT_LE(vnp_tl_host_ps(tl, c->start), start);
		EXPECT_LE(start, vnp_tl_host_ps(tl, w->start + w->dur) + x->map_err)
			TH_LOG("core %u exec %u: mapped at %llu ps, its WAIT returned at %llu, "
			       "error %llu", c->core, c->seq, (unsigned long long)start,
			       (unsigned long long)vnp_tl_host_ps(tl, w->start + w->dur),
			       (unsigned long long)x->map_err);
		checked++;
	}
	return checked;
}

FIXTURE(rg)
{
	char dir[64], vnef[128], busy_vnef[128], vntf[128];
	struct vnp_prog prog, busy_prog;
	struct vnp_profile pf;
	int have_pf;
};

FIXTURE_SETUP(rg)
{
	struct nd_builder *b;
	char err[256], *slash;

	ASSERT_LT(0, readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1));
	snprintf(prof, sizeof(prof), "%s", self_exe);
	slash = strstr(prof, "/build/rel/guest/");
	ASSERT_NE(NULL, slash);
	strcpy(slash, "/build/bin/vneuron-profile");
	snprintf(self->dir, sizeof(self->dir), "/tmp/ranges_test.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->vnef, sizeof(self->vnef), "%s/exp.vnef", self->dir);
	snprintf(self->vntf, sizeof(self->vntf), "%s/app.vntf", self->dir);
	ASSERT_EQ(0, nd_builder_new("exp", &b));
	ASSERT_EQ(0, nd_kernel_exp(b, ROWS, COLS, 1));
	ASSERT_EQ(0, nd_builder_write(b, self->vnef));
	nd_builder_free(b);
	ASSERT_EQ(0, vnp_prog_open(&self->prog, self->vnef, err, sizeof(err))) TH_LOG("%s", err);
	snprintf(self->busy_vnef, sizeof(self->busy_vnef), "%s/exp_busy.vnef", self->dir);
	ASSERT_EQ(0, nd_builder_new("exp", &b));
	ASSERT_EQ(0, nd_kernel_exp(b, BUSY_ROWS, COLS, 1));
	ASSERT_EQ(0, nd_builder_write(b, self->busy_vnef));
	nd_builder_free(b);
	ASSERT_EQ(0, vnp_prog_open(&self->busy_prog, self->busy_vnef, err, sizeof(err)))
		TH_LOG("%s", err);
}

FIXTURE_TEARDOWN(rg)
{
	if (self->have_pf)
		vnp_profile_free(&self->pf);
	vnp_prog_free(&self->prog);
	vnp_prog_free(&self->busy_prog);
	sh("rm -rf '%s'", self->dir);
}

/* Captures the app mode: its exit status; the profile read on the host clock. */
static int capture(struct __test_metadata *_metadata, FIXTURE_DATA(rg) *self,
		   const char *mode)
{
	int busy = !strcmp(mode, "busy");
	char err[512];
	int st;

	if (self->have_pf)
		vnp_profile_free(&self->pf);
	self->have_pf = 0;
	st = sh("RANGES_TEST_APP=%s RANGES_TEST_VNEF=%s %s capture --force-overwrite -q -s %s "
		"-- %s", mode, busy ? self->busy_vnef : self->vnef, prof, self->vntf, self_exe);
	if (vnp_profile_read(&self->pf, self->vntf, busy ? &self->busy_prog : &self->prog,
			     self->vnef, true, err, sizeof(err))) {
		TH_LOG("%s: %s", self->vntf, err);
		return -1;
	}
	self->have_pf = 1;
	self->pf.tl.host_clock = 1;
	if (vnp_tl_finish(&self->pf.tl))
		return -1;
	return st;
}

TEST_F_TIMEOUT(rg, threads_and_processes, 900)
{
	const struct vnp_timeline *tl = &self->pf.tl;
	unsigned int p, c, k, n, want, total = 0;
	const struct vnp_exec *x;
	size_t i;
	char got[256], exp[256];
	int s;

	if (access("/dev/vneuron1", F_OK))
		SKIP(return, "two devices needed (devices=2): one per process");
	ASSERT_EQ(7, capture(_metadata, self, "multi"));
	/* every push nests: the parent's open range is not the child's */
	EXPECT_EQ(0, tl->rg.bad);
	want = 2 + 4 * (1 + 3 * STEPS) + 1;	/* parent, child; threads; uring */
	EXPECT_EQ(want, tl->rg.pushes);
	EXPECT_EQ(want, tl->rg.pops);
	for (p = 0; p < 2; p++) {
		for (c = 0; c < 2; c++) {
			int sl = slot_of(&self->pf, p, c);

			ASSERT_LE(0, sl) TH_LOG("no stream of device %u core %u", p, c);
			n = 2 * STEPS + (p == 1 && c == 0 ? URING_N : 0);
			/* its executions in launch order: the thread ran them one by one */
			k = 0;
			for (i = 0; i < tl->nexec; i++) {
				x = &tl->execs[i];
				if (x->key >> 32 != (uint64_t)sl)
					continue;
				s = (int)k / 2;
				if (k < 2 * STEPS)
					snprintf(exp, sizeof(exp), "proc%u core%u/step %d/fc%u", p,
						 c, s, k % 2 + 1);
				else
					snprintf(exp, sizeof(exp), "proc%u core%u/uring", p, c);
				EXPECT_STREQ(exp, stack_of(tl, x, got, sizeof(got)))
					TH_LOG("device %u core %u execution %u", p, c, k);
				k++;
			}
			EXPECT_EQ(n, k) TH_LOG("device %u core %u", p, c);
			total += k;
		}
	}
	EXPECT_EQ(total, tl->nexec);
	EXPECT_EQ(total, tl->rg.attributed);
	EXPECT_EQ(total, check_host_clock(_metadata, tl));
	EXPECT_LT(0, tl->map_err_max);
}

/* A crash keeps everything logged before it: executions, ranges, the mark. */
static void crashed(struct __test_metadata *_metadata, FIXTURE_DATA(rg) *self,
		    const char *mode, int status)
{
	const struct vnp_timeline *tl = &self->pf.tl;
	char got[256], exp[256];
	size_t i;

	ASSERT_EQ(status, capture(_metadata, self, mode));
	EXPECT_EQ(0, tl->rg.bad);
	EXPECT_EQ(CRASH_N + 2, tl->rg.pushes);	/* mode, steps, "never closed" */
	EXPECT_EQ(CRASH_N, tl->rg.pops);
	EXPECT_EQ(1, tl->rg.marks);
	ASSERT_EQ(CRASH_N, tl->nexec);
	EXPECT_EQ(CRASH_N, tl->rg.attributed);
	for (i = 0; i < CRASH_N; i++) {
		snprintf(exp, sizeof(exp), "%s/step %zu", mode, i);
		EXPECT_STREQ(exp, stack_of(tl, &tl->execs[i], got, sizeof(got)));
	}
	EXPECT_EQ(CRASH_N, check_host_clock(_metadata, tl));
	/* and view reads it */
	EXPECT_EQ(0, sh("%s view -n %s -s %s -o /dev/null", prof, self->vnef, self->vntf));
}

TEST_F_TIMEOUT(rg, abort_loses_nothing, 600)
{
	crashed(_metadata, self, "abort", 128 + SIGABRT);
}

TEST_F_TIMEOUT(rg, sigkill_loses_nothing, 600)
{
	crashed(_metadata, self, "sigkill", 128 + SIGKILL);
}

/* The host-overhead finding: for the app that sleeps between executions only. */
TEST_F_TIMEOUT(rg, launch_gaps, 900)
{
	char out[PATH_MAX];
	size_t i;

	snprintf(out, sizeof(out), "%s/s.txt", self->dir);
	ASSERT_EQ(7, capture(_metadata, self, "sleepy"));
	EXPECT_EQ(GAPPY_N, self->pf.tl.rg.attributed);
	EXPECT_EQ(GAPPY_N, check_host_clock(_metadata, &self->pf.tl));
	EXPECT_EQ(0, sh("%s view -n %s -s %s > %s", prof, self->vnef, self->vntf, out));
	EXPECT_EQ(0, sh("grep -q '\\[host-overhead\\]' %s", out)) sh("cat %s", out);
	EXPECT_EQ(0, sh("grep -q 'range \"sleepy\": .* before %d executions' %s", GAPPY_N - 1,
			out)) sh("cat %s", out);
	sh("grep -A1 '^Launch gaps' %s | sed 's/^/# sleepy: /'", out);
	ASSERT_EQ(7, capture(_metadata, self, "busy"));
	EXPECT_EQ(GAPPY_N, self->pf.tl.rg.attributed);
	for (i = 0; i < self->pf.tl.nexec; i++) {
		char got[64];

		EXPECT_STREQ("busy", stack_of(&self->pf.tl, &self->pf.tl.execs[i], got,
					      sizeof(got)));
	}
	EXPECT_EQ(GAPPY_N, check_host_clock(_metadata, &self->pf.tl));
	EXPECT_EQ(0, sh("%s view -n %s -s %s > %s", prof, self->busy_vnef, self->vntf, out));
	EXPECT_EQ(1, sh("grep -q '\\[host-overhead\\]' %s", out)) sh("cat %s", out);
	/* the figures, for the record */
	sh("grep -A1 '^Launch gaps' %s | sed 's/^/# busy: /'", out);
}

TEST_HARNESS_MAIN
