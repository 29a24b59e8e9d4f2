// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The generic netlink family "vneuron" (uapi/vneuron_genl.h) through libneurondev's
 * nd_telemetry_*, against the real module: every command, dumps equal to sysfs, every
 * event type once per cause, malformed requests refused, another uid's events and owner
 * hidden from an unprivileged subscriber, and a burst of 10,000 executions whose events
 * are all either received or counted as dropped. Runs as root; the unprivileged case
 * drops to nobody in a forked child.
 */
#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>

#include "vnprog.h"
#include "kmod_test.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmisleading-indentation"
#include "kselftest_harness.h"

#define NOBODY		65534
#define TEST_GID	4243	/* the node's group while the unprivileged child uses it */
#define SEC_MS		1000
#define BURST		10000

/* ---- programs ---- */

/* One VectorE MEMSET of a small SBUF tile: the cheapest execution there is. */
static int tiny_program(struct nd_device *dev, struct nd_program **progp)
{
	struct nd_builder *b;
	struct nd_tile *t;
	size_t size;
	void *img;
	int ret;

	if (nd_builder_new("tiny", &b))
		return -1;
	t = nd_sbuf(b, "t", ND_FP32, 1, 16);
	nd_memset(b, ND_VECTOR, nd_whole(t), 1.0f);
	ret = nd_builder_finish(b, &img, &size);
	nd_builder_free(b);
	if (ret)
		return ret;
	ret = nd_program_load(dev, img, size, progp, NULL);
	free(img);
	return ret;
}

/* ---- sysfs ---- */

static long long core_stat(unsigned int core, const char *name)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "core%u/stats/%s/total", core, name);
	return vn_sysfs(rel);
}

static int count_devices(void)
{
	char path[64];
	int n = 0;

	for (;;) {
		snprintf(path, sizeof(path), "/sys/class/vneuron/vneuron%d", n);
		if (access(path, F_OK))
			return n;
		n++;
	}
}

/* ---- events ---- */

/* What a subscriber received, by type, about one pid (0: any). */
struct tally {
	unsigned int n[__VNEURON_EVENT_MAX];
	unsigned int all;		/* messages of any type, any pid */
	unsigned int events;		/* of those, events (not DROPPED notices) */
	unsigned int foreign;		/* events naming another pid than the one asked */
	uint64_t dropped;
	uint64_t seq_start[8], seq_end[8];
	struct nd_tel_event last[__VNEURON_EVENT_MAX];
};

/*
 * Collect events until quiet_ms pass without one or limit_ms in all. Only events that
 * name pid (or no pid, for pid 0) are tallied by type.
 */
static int collect(struct nd_telemetry *t, uint32_t pid, struct tally *ty, int quiet_ms,
		   int limit_ms)
{
	uint64_t end = vn_now_ns() + (uint64_t)limit_ms * 1000000ull;
	struct nd_tel_event e;
	int ret;

	while (vn_now_ns() < end) {
		ret = nd_telemetry_next_event(t, &e, quiet_ms);
		if (ret < 0)
			return ret;
		if (!ret)
			return 0;
		ty->all++;
		ty->dropped += e.dropped;
		if (e.type == VNEURON_EVENT_DROPPED)
			continue;
		ty->events++;
		if (pid && e.pid != pid) {
			ty->foreign++;
			continue;
		}
		if (e.type < __VNEURON_EVENT_MAX) {
			if (e.type == VNEURON_EVENT_EXEC_START && ty->n[e.type] < 8)
				ty->seq_start[ty->n[e.type]] = e.exec_seq;
			if (e.type == VNEURON_EVENT_EXEC_END && ty->n[e.type] < 8)
				ty->seq_end[ty->n[e.type]] = e.exec_seq;
			ty->n[e.type]++;
			ty->last[e.type] = e;
		}
	}
	return 0;
}

/* ---- raw requests, built with libnl, for what the library never sends ---- */

struct raw_reply {
	int err;
	int done;
	char msg[128];
};

static int raw_err(struct sockaddr_nl *who, struct nlmsgerr *e, void *arg)
{
	struct raw_reply *r = arg;

	r->err = e->error;
	r->done = 1;
	return NL_STOP;
}

static int raw_finish(struct nl_msg *msg, void *arg)
{
	((struct raw_reply *)arg)->done = 1;
	return NL_STOP;
}

static int raw_ack(struct nl_msg *msg, void *arg)
{
	((struct raw_reply *)arg)->done = 1;
	return NL_STOP;
}

/*
 * Send cmd with flags and the attributes add() puts; the kernel's errno (0: accepted)
 * or a libnl error below -1000.
 */
static int raw_request(uint8_t cmd, int flags, void (*add)(struct nl_msg *msg))
{
	struct raw_reply r = { 0 };
	struct nl_sock *sk = nl_socket_alloc();
	struct nl_msg *msg;
	struct nl_cb *cb;
	int fam, e;

	if (!sk)
		return -1000 - NLE_NOMEM;
	e = genl_connect(sk);
	fam = e ? e : genl_ctrl_resolve(sk, VNEURON_GENL_NAME);
	if (fam < 0) {
		nl_socket_free(sk);
		return -1000 + fam;
	}
	msg = nlmsg_alloc();
	genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, fam, 0, flags, cmd, VNEURON_GENL_VERSION);
	if (add)
		add(msg);
	e = nl_send_auto(sk, msg);
	nlmsg_free(msg);
	if (e < 0) {
		nl_socket_free(sk);
		return -1000 + e;
	}
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	nl_cb_err(cb, NL_CB_CUSTOM, raw_err, &r);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, raw_finish, &r);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, raw_ack, &r);
	while (!r.done) {
		e = nl_recvmsgs(sk, cb);
		if (e < 0 && !r.done) {
			r.err = -1000 + e;
			break;
		}
	}
	nl_cb_put(cb);
	nl_socket_free(sk);
	return r.err;
}

static void add_above_max(struct nl_msg *msg)
{
	nla_put_u32(msg, VNEURON_A_MAX + 1, 0);
}

static void add_short_device(struct nl_msg *msg)
{
	uint16_t v = 0;

	nla_put(msg, VNEURON_A_DEVICE, sizeof(v), &v);
}

static void add_long_device(struct nl_msg *msg)
{
	uint64_t v = 0;

	nla_put(msg, VNEURON_A_DEVICE, sizeof(v), &v);
}

static void add_flops(struct nl_msg *msg)
{
	nla_put_u64(msg, VNEURON_A_FLOPS, 1);
}

static void add_owner_pid(struct nl_msg *msg)
{
	nla_put_u32(msg, VNEURON_A_OWNER_PID, 1);
}

static void add_device0(struct nl_msg *msg)
{
	nla_put_u32(msg, VNEURON_A_DEVICE, 0);
}

/* ---- processes ---- */

static int wait_exit(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

static int say(int fd)
{
	return write(fd, "x", 1) == 1 ? 0 : -1;
}

static int hear(int fd)
{
	char c;

	return read(fd, &c, 1) == 1 ? 0 : -1;
}

FIXTURE(tel)
{
	struct nd_telemetry *t;
	struct nd_device *dev;
	struct vneuron_info info;
	struct nd_program *prog;
};

FIXTURE_SETUP(tel)
{
	struct nd_error err;

	ASSERT_EQ(0, nd_telemetry_open(&self->t, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(0, nd_open(0, &self->dev, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(0, nd_info(self->dev, &self->info));
	if (!(self->info.caps & VNEURON_CAP_EXEC))
		SKIP(return, "the device has no EXEC");
	ASSERT_EQ(0, tiny_program(self->dev, &self->prog)) TH_LOG("%s", nd_device_error(self->dev));
}

FIXTURE_TEARDOWN(tel)
{
	if (self->prog)
		nd_program_unload(self->prog);
	nd_close(self->dev);
	nd_telemetry_close(self->t);
}

/* GET_DEVICE: every device, the one named, -ENODEV for none; figures equal GET_INFO. */
TEST_F(tel, get_device)
{
	struct nd_tel_device *d = NULL;
	struct vneuron_info info;
	struct nd_mem *mem;
	char ver[64] = "";
	FILE *f;
	int n;

	ASSERT_EQ(0, nd_mem_alloc(self->dev, 1 << 20, &mem));
	ASSERT_EQ(0, nd_info(self->dev, &info));
	n = nd_telemetry_devices(self->t, -1, &d);
	ASSERT_EQ(count_devices(), n) TH_LOG("%s", nd_telemetry_error(self->t));
	ASSERT_NE(NULL, d);
	EXPECT_EQ(0, d[0].device);
	EXPECT_EQ(info.core_count, d[0].nr_cores);
	EXPECT_EQ(info.hbm_bytes, d[0].hbm_size);
	EXPECT_EQ(info.hbm_used, d[0].hbm_used);
	EXPECT_LE(d[0].hbm_used, d[0].hbm_peak);
	EXPECT_EQ(info.uapi_version, d[0].uapi_version);
	/* The model (VNEURON_A_MODEL_NAME) is GET_INFO's, whichever model= loaded it. */
	EXPECT_STREQ(info.model.name, d[0].model);
	f = fopen("/sys/module/vneuron/version", "r");
	if (f) {
		if (fscanf(f, "%63s", ver) != 1)
			ver[0] = '\0';
		fclose(f);
		EXPECT_STREQ(ver, d[0].module_version);
	}
	EXPECT_LE(d[0].events_dropped, d[0].events_produced);
	free(d);

	n = nd_telemetry_devices(self->t, 0, &d);
	EXPECT_EQ(1, n);
	if (n == 1)
		EXPECT_EQ(0, d[0].device);
	free(d);
	EXPECT_EQ(-ENODEV, nd_telemetry_devices(self->t, 99, &d));
	EXPECT_NE(NULL, strstr(nd_telemetry_error(self->t), "GET_DEVICE"))
		TH_LOG("%s", nd_telemetry_error(self->t));
	EXPECT_EQ(0, nd_mem_free(mem));
}

/* GET_CORE: one snapshot per core equal to sysfs (nothing runs meanwhile). */
TEST_F(tel, get_core_equals_sysfs)
{
	struct nd_run_result res;
	struct nd_tel_core *c = NULL, *c2 = NULL;
	unsigned int i, s;
	int n, k;

	for (k = 0; k < 3; k++)
		ASSERT_EQ(0, nd_run(self->prog, 0, NULL, 0, 0, &res))
			TH_LOG("%s", nd_device_error(self->dev));
	n = nd_telemetry_cores(self->t, -1, &c);
	ASSERT_LE((int)self->info.core_count, n) TH_LOG("%s", nd_telemetry_error(self->t));
	for (i = 0; i < self->info.core_count; i++) {
		const struct nd_tel_core *x = &c[i];

		ASSERT_EQ(0, x->device);
		ASSERT_EQ(i, x->core);
		EXPECT_EQ(core_stat(i, "executions_ok"), (long long)x->exec_ok);
		EXPECT_EQ(core_stat(i, "executions_timed_out"), (long long)x->exec_timeout);
		EXPECT_EQ(core_stat(i, "device_faults"), (long long)x->exec_fault);
		EXPECT_EQ(core_stat(i, "busy_time_ns"), (long long)x->busy_ns);
		EXPECT_EQ(core_stat(i, "bytes_moved"), (long long)x->bytes);
		EXPECT_EQ(core_stat(i, "flops"), (long long)x->flops);
		EXPECT_EQ(vn_owner_pid(i), (long long)x->owner_pid);
		EXPECT_FALSE(x->owner_hidden);
		EXPECT_NE(0, x->timestamp_ns);
		EXPECT_EQ(ND_TEL_STREAMS, x->nr_streams);
		for (s = 0; s < VNEF_STREAMS; s++)
			EXPECT_LE(x->stream_busy_ps[s], x->model_ps);
	}
	/* core 0 ran our executions: owned by us, VectorE busy, counted */
	EXPECT_EQ(getpid(), (pid_t)c[0].owner_pid);
	EXPECT_EQ(getuid(), c[0].owner_uid);
	EXPECT_LE(3, c[0].exec_ok);
	EXPECT_LT(0, c[0].stream_busy_ps[VNEURON_ENGINE_VECTOR]);
	EXPECT_LT(0, c[0].instructions);
	EXPECT_LT(0, c[0].model_ps);

	/* the device filter, and time moves on between snapshots */
	n = nd_telemetry_cores(self->t, 0, &c2);
	EXPECT_EQ((int)self->info.core_count, n);
	if (n > 0)
		EXPECT_LE(c[0].timestamp_ns, c2[0].timestamp_ns);
	free(c2);
	EXPECT_EQ(-ENODEV, nd_telemetry_cores(self->t, 99, &c2));
	free(c);
}

TEST_F(tel, subscribe_unsubscribe)
{
	struct nd_tel_event e;

	EXPECT_EQ(-ENOENT, nd_telemetry_unsubscribe(self->t));
	EXPECT_EQ(0, nd_telemetry_subscribe(self->t)) TH_LOG("%s", nd_telemetry_error(self->t));
	EXPECT_EQ(-EALREADY, nd_telemetry_subscribe(self->t));
	EXPECT_NE(NULL, strstr(nd_telemetry_error(self->t), "already"));
	EXPECT_EQ(0, nd_telemetry_unsubscribe(self->t));
	EXPECT_EQ(-ENOENT, nd_telemetry_unsubscribe(self->t));
	EXPECT_EQ(0, nd_telemetry_next_event(self->t, &e, 0));
	EXPECT_LE(0, nd_telemetry_fd(self->t));
}

/*
 * Each cause gives its event once: claim (first EXEC of a file), start and end of each
 * execution, release (close), reset, trace start and stop.
 */
TEST_F_TIMEOUT(tel, events_once_per_cause, 300)
{
	struct nd_run_result res;
	struct nd_device *dev2;
	struct nd_program *p2;
	struct nd_trace *tr;
	struct nd_error err;
	struct tally ty = { 0 };
	pid_t me = getpid();
	unsigned int core = self->info.core_count > 1 ? 1 : 0;
	int k;

	ASSERT_EQ(0, nd_telemetry_subscribe(self->t)) TH_LOG("%s", nd_telemetry_error(self->t));

	/* a new file: claim, 3 executions, release */
	ASSERT_EQ(0, nd_open(0, &dev2, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(0, tiny_program(dev2, &p2));
	for (k = 0; k < 3; k++)
		ASSERT_EQ(0, nd_run(p2, core, NULL, 0, 0, &res)) TH_LOG("%s", nd_device_error(dev2));
	EXPECT_EQ(0, nd_program_unload(p2));
	nd_close(dev2);
	ASSERT_EQ(0, collect(self->t, me, &ty, 1000, 30 * SEC_MS));
	EXPECT_EQ(1, ty.n[VNEURON_EVENT_CORE_CLAIM]);
	EXPECT_EQ(3, ty.n[VNEURON_EVENT_EXEC_START]);
	EXPECT_EQ(3, ty.n[VNEURON_EVENT_EXEC_END]);
	EXPECT_EQ(1, ty.n[VNEURON_EVENT_CORE_RELEASE]);
	EXPECT_EQ(0, ty.n[VNEURON_EVENT_FAULT]);
	EXPECT_EQ(0, ty.dropped);
	for (k = 0; k < 3; k++)
		EXPECT_EQ(ty.seq_start[k], ty.seq_end[k]);
	EXPECT_LT(ty.seq_end[0], ty.seq_end[1]);
	EXPECT_LT(ty.seq_end[1], ty.seq_end[2]);
	{
		const struct nd_tel_event *e = &ty.last[VNEURON_EVENT_EXEC_END];

		EXPECT_EQ(0, e->device);
		EXPECT_EQ(core, e->core);
		EXPECT_EQ(getuid(), e->uid);
		EXPECT_EQ(VNEURON_EXEC_OK, e->status);
		EXPECT_EQ(res.model_ps, e->model_ps);
		EXPECT_LT(0, e->host_ns);
		EXPECT_NE(0, e->timestamp_ns);
		EXPECT_EQ(core, ty.last[VNEURON_EVENT_CORE_CLAIM].core);
		EXPECT_EQ(core, ty.last[VNEURON_EVENT_CORE_RELEASE].core);
	}

	/* a reset of the (now unowned) core */
	memset(&ty, 0, sizeof(ty));
	ASSERT_EQ(0, nd_reset(self->dev, core)) TH_LOG("%s", nd_device_error(self->dev));
	ASSERT_EQ(0, collect(self->t, 0, &ty, 1000, 30 * SEC_MS));
	EXPECT_EQ(1, ty.n[VNEURON_EVENT_RESET]);
	EXPECT_EQ(core, ty.last[VNEURON_EVENT_RESET].core);
	EXPECT_EQ(1, ty.events);

	/* a trace session: start and stop, the tracer named */
	memset(&ty, 0, sizeof(ty));
	ASSERT_EQ(0, nd_trace_start(self->dev, core, NULL, &tr))
		TH_LOG("%s", nd_device_error(self->dev));
	nd_trace_free(tr);
	ASSERT_EQ(0, collect(self->t, me, &ty, 1000, 30 * SEC_MS));
	EXPECT_EQ(1, ty.n[VNEURON_EVENT_TRACE_START]);
	EXPECT_EQ(1, ty.n[VNEURON_EVENT_TRACE_STOP]);
	EXPECT_EQ(0, ty.last[VNEURON_EVENT_TRACE_STOP].trace_dropped);
	EXPECT_EQ(core, ty.last[VNEURON_EVENT_TRACE_START].core);
	EXPECT_EQ(2, ty.events);
	EXPECT_EQ(0, nd_telemetry_unsubscribe(self->t));
}

/*
 * FAULT events need an execution the validator accepts and the executor refuses: only
 * the test build of the module (VNEURON_TEST_HOOKS, test_skip_checks) has one, and
 * fault_test, which runs with it in make check's guest-debug phase, checks the event.
 */
TEST_F(tel, fault_event)
{
	SKIP(return, "checked by fault_test on the test build of the module");
}

/* Requests with what the family does not accept are refused with -EINVAL. */
TEST(malformed_requests)
{
	/* sanity: the raw path works */
	EXPECT_EQ(0, raw_request(VNEURON_CMD_GET_DEVICE, NLM_F_DUMP, NULL));
	EXPECT_EQ(0, raw_request(VNEURON_CMD_GET_CORE, NLM_F_DUMP, add_device0));
	/* an attribute above VNEURON_A_MAX */
	EXPECT_EQ(-EINVAL, raw_request(VNEURON_CMD_GET_CORE, NLM_F_DUMP, add_above_max));
	EXPECT_EQ(-EINVAL, raw_request(VNEURON_CMD_GET_DEVICE, NLM_F_DUMP, add_above_max));
	EXPECT_EQ(-EINVAL, raw_request(VNEURON_CMD_SUBSCRIBE, NLM_F_ACK, add_above_max));
	/* a u32 of the wrong length */
	EXPECT_EQ(-EINVAL, raw_request(VNEURON_CMD_GET_CORE, NLM_F_DUMP, add_short_device));
	EXPECT_EQ(-EINVAL, raw_request(VNEURON_CMD_GET_DEVICE, NLM_F_DUMP, add_long_device));
	/* attributes only the kernel sends */
	EXPECT_EQ(-EINVAL, raw_request(VNEURON_CMD_GET_CORE, NLM_F_DUMP, add_flops));
	EXPECT_EQ(-EINVAL, raw_request(VNEURON_CMD_GET_DEVICE, NLM_F_DUMP, add_owner_pid));
	EXPECT_EQ(-EINVAL, raw_request(VNEURON_CMD_UNSUBSCRIBE, NLM_F_ACK, add_flops));
	/* commands a user may not send */
	EXPECT_EQ(-EOPNOTSUPP, raw_request(VNEURON_CMD_EVENT, NLM_F_ACK, NULL));
	EXPECT_EQ(-EOPNOTSUPP, raw_request(__VNEURON_CMD_MAX + 3, NLM_F_ACK, NULL));
}

/*
 * An unprivileged subscriber (nobody, the node's group) sees its own executions, not
 * root's, and root's core as owned but not by whom; root (privileged) sees the child's.
 */
TEST_F_TIMEOUT(tel, unprivileged_subscriber, 300)
{
	int p2c[2], c2p[2], *res;
	struct nd_run_result rr;
	struct stat node;
	struct tally ty = { 0 };
	pid_t pid;
	int k;

	if (self->info.core_count < 2)
		SKIP(return, "needs two cores");
	res = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, res);
	memset(res, 0xff, 4096);
	ASSERT_EQ(0, stat(VN_DEV, &node));
	ASSERT_EQ(0, chown(VN_DEV, 0, TEST_GID));
	ASSERT_EQ(0, chmod(VN_DEV, 0660));
	/* root owns core 0 */
	ASSERT_EQ(0, nd_run(self->prog, 0, NULL, 0, 0, &rr));
	ASSERT_EQ(0, nd_telemetry_subscribe(self->t));
	ASSERT_EQ(0, pipe(p2c));
	ASSERT_EQ(0, pipe(c2p));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct nd_telemetry *t;
		struct nd_tel_core *c = NULL;
		struct nd_device *dev;
		struct nd_program *prog;
		struct nd_error err;
		struct tally mine = { 0 };
		gid_t g = TEST_GID;
		int n;

		nd_telemetry_close(self->t);	/* the parent's, inherited */
		if (setgroups(1, &g) || setgid(NOBODY) || setuid(NOBODY))
			_exit(10);
		if (nd_telemetry_open(&t, &err))
			_exit(11);
		n = nd_telemetry_cores(t, 0, &c);
		if (n < 2)
			_exit(12);
		res[0] = c[0].owner_hidden;
		res[1] = (int)c[0].owner_pid;
		res[2] = !!(c[0].attrs & (1ull << VNEURON_A_OWNER_UID));
		res[3] = (int)c[0].exec_ok;	/* counters stay visible */
		free(c);
		if (nd_telemetry_subscribe(t))
			_exit(13);
		say(c2p[1]);
		hear(p2c[0]);		/* root ran its executions */
		if (nd_open(0, &dev, &err) || tiny_program(dev, &prog) ||
		    nd_run(prog, 1, NULL, 0, 0, &rr))
			_exit(14);
		nd_program_unload(prog);
		nd_close(dev);
		if (collect(t, getpid(), &mine, 1000, 30 * SEC_MS))
			_exit(15);
		res[4] = (int)mine.n[VNEURON_EVENT_EXEC_END];
		res[5] = (int)mine.foreign;	/* root's events that reached us */
		res[6] = (int)mine.n[VNEURON_EVENT_CORE_CLAIM];
		nd_telemetry_close(t);
		_exit(0);
	}
	close(p2c[0]);
	close(c2p[1]);
	ASSERT_EQ(0, hear(c2p[0]));
	for (k = 0; k < 2; k++)
		ASSERT_EQ(0, nd_run(self->prog, 0, NULL, 0, 0, &rr));
	say(p2c[1]);
	EXPECT_EQ(0, wait_exit(pid));
	ASSERT_EQ(0, collect(self->t, pid, &ty, 1000, 30 * SEC_MS));
	if (chown(VN_DEV, node.st_uid, node.st_gid) || chmod(VN_DEV, node.st_mode & 07777))
		TH_LOG("could not restore %s", VN_DEV);
	EXPECT_EQ(1, res[0]);		/* hidden */
	EXPECT_EQ(0, res[1]);		/* no pid */
	EXPECT_EQ(0, res[2]);		/* no uid */
	EXPECT_LE(1, res[3]);
	EXPECT_EQ(1, res[4]);		/* its own execution's end */
	EXPECT_EQ(0, res[5]);		/* nothing of root's */
	EXPECT_EQ(1, res[6]);
	/* root saw the child's claim, execution and release */
	EXPECT_EQ(1, ty.n[VNEURON_EVENT_CORE_CLAIM]);
	EXPECT_EQ(1, ty.n[VNEURON_EVENT_EXEC_END]);
	EXPECT_EQ(1, ty.n[VNEURON_EVENT_CORE_RELEASE]);
	EXPECT_EQ(NOBODY, ty.last[VNEURON_EVENT_EXEC_END].uid);
	munmap(res, 4096);
}

/*
 * 10,000 small executions through io_uring: every event the module produced meanwhile
 * reached the subscriber or was counted in a dropped count, and nothing hangs.
 */
TEST_F_TIMEOUT(tel, burst_accounting, 900)
{
	struct nd_uring_done done[256];
	struct nd_uring_exec ex[256];
	struct nd_tel_device *d0 = NULL, *d1 = NULL;
	struct nd_uring *r;
	struct tally ty = { 0 };
	unsigned int submitted = 0, reaped = 0, i, bad = 0;
	uint64_t produced;
	int n;

	if (!(self->info.caps & VNEURON_CAP_URING_CMD))
		SKIP(return, "no io_uring commands");
	ASSERT_EQ(0, nd_telemetry_subscribe(self->t));
	ASSERT_EQ(1, nd_telemetry_devices(self->t, 0, &d0));
	ASSERT_EQ(0, nd_uring_open(self->dev, 256, &r));
	for (i = 0; i < 256; i++)
		ex[i] = (struct nd_uring_exec){ .prog = self->prog, .core = 0, .user_data = i };
	while (reaped < BURST) {
		unsigned int want = BURST - submitted;

		if (want > 256 - nd_uring_inflight(r))
			want = 256 - nd_uring_inflight(r);
		if (want) {
			n = nd_uring_submit_exec(r, ex, want);
			ASSERT_LE(0, n);
			submitted += (unsigned int)n;
		}
		n = nd_uring_reap(r, done, 256, 1);
		ASSERT_LE(0, n);
		for (i = 0; i < (unsigned int)n; i++)
			bad += done[i].ret != 0;
		reaped += (unsigned int)n;
		/* read as we go, as a monitor would; the rest is the module's to count */
		ASSERT_EQ(0, collect(self->t, 0, &ty, 0, 50));
	}
	nd_uring_close(r);
	EXPECT_EQ(0, bad);
	/*
	 * The last events and the last dropped count arrive within a pacing period or two.
	 * An event produced late (an earlier test's file released by the kernel's deferred
	 * fput) may land after the quiet period: read until the count stands still.
	 */
	for (i = 0; i < 10; i++) {
		ASSERT_EQ(0, collect(self->t, 0, &ty, 2000, 120 * SEC_MS));
		free(d1);
		d1 = NULL;
		ASSERT_EQ(1, nd_telemetry_devices(self->t, 0, &d1));
		produced = d1[0].events_produced - d0[0].events_produced;
		if (produced == ty.events + ty.dropped)
			break;
	}
	TH_LOG("%llu events produced, %u received, %llu dropped (%llu before the queue)",
	       (unsigned long long)produced, ty.events, (unsigned long long)ty.dropped,
	       (unsigned long long)(d1[0].events_dropped - d0[0].events_dropped));
	EXPECT_LE(2 * BURST, produced);
	/* DROPPED messages are not events: they only carry counts */
	EXPECT_EQ(produced, ty.events + ty.dropped);
	EXPECT_EQ(ty.dropped, nd_telemetry_dropped(self->t));
	free(d0);
	free(d1);
}

TEST_HARNESS_MAIN
