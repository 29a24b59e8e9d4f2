// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The resources every user of the module shares (docs/security.md,
 * "Shared resources"): for each, a user at its limit gets -EDQUOT while a second user
 * still gets its own, unprivileged users together stop at the privileged reserve (the
 * resource's "full" errno) while root still gets its share; opening more files does not
 * escape a limit; the user charged is the caller's, not the opener's (the audit's
 * attacker opened the device as root and then ran as nobody: its charges are nobody's
 * and it has no reserve), a user namespace is its creator's user, and the per-user
 * accounting holds no entry for a user that holds nothing. The limits are module
 * parameters, set low here (root writes them at run time) and put back after; GET_INFO
 * and the telemetry's device dump report them.
 */
#include <errno.h>
#include <sys/wait.h>

#include "party.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "kselftest_harness.h"

#define UID_A		4101
#define UID_B		4102
#define UID_C		4103
#define NOBODY		65534
#define MIB		(1ull << 20)

static int count_devices(void)
{
	char path[32];
	int n = 0;

	for (;;) {
		snprintf(path, sizeof(path), "/dev/vneuron%d", n);
		if (access(path, F_OK))
			return n;
		n++;
	}
}

FIXTURE(sh)
{
	struct vneuron_info info;
	struct node_was nodes;
	struct params_was params;
	struct party p[8];
	int np;
	bool saved;
};

FIXTURE_SETUP(sh)
{
	int fd = vn_open();

	self->np = 0;
	self->saved = false;
	ASSERT_LE(0, fd) TH_LOG("open %s: %s", VN_DEV, strerror(errno));
	memset(&self->info, 0, sizeof(self->info));
	ASSERT_EQ(0, vn_ioctl(fd, VNEURON_IOCTL_GET_INFO, &self->info));
	close(fd);
	if (!(self->info.caps & VNEURON_CAP_SHARES))
		SKIP(return, "the module has no shares (uapi %u)", self->info.uapi_version);
	params_save(&self->params);
	self->saved = true;
	ASSERT_EQ(0, nodes_for_group(&self->nodes));
}

FIXTURE_TEARDOWN(sh)
{
	int i;

	for (i = 0; i < self->np; i++)
		party_end(&self->p[i]);
	if (!self->saved)
		return;
	params_restore(&self->params);
	nodes_restore(&self->nodes);
}

/* A new party of the fixture's, as uid (see party_start()); NULL if it did not start. */
static struct party *party_new(FIXTURE_DATA(sh) *self, uid_t uid, int pre_files, int pre_tels)
{
	struct party *p;

	if (self->np == (int)(sizeof(self->p) / sizeof(self->p[0])))
		return NULL;
	p = &self->p[self->np];
	if (party_start(p, uid, pre_files, pre_tels)) {
		party_end(p);
		return NULL;
	}
	self->np++;
	return p;
}

/*
 * The cast of most tests: users A (with two files), B and C, and root, each with a file
 * of /dev/vneuron0 open (A's second is slot 1). false if one did not start.
 */
static bool cast(FIXTURE_DATA(sh) *self, struct party **a, struct party **b, struct party **c,
		 struct party **root)
{
	*a = party_new(self, UID_A, 0, 0);
	*b = party_new(self, UID_B, 0, 0);
	*c = party_new(self, UID_C, 0, 0);
	*root = party_new(self, 0, 0, 0);
	return *a && *b && *c && *root && party_call(*a, P_OPEN, 0, 0) == 0 &&
	       party_call(*a, P_OPEN, 0, 0) == 1 && party_call(*b, P_OPEN, 0, 0) == 0 &&
	       party_call(*c, P_OPEN, 0, 0) == 0 && party_call(*root, P_OPEN, 0, 0) == 0;
}

/* A party's exit: it releases everything (its slot stays, ended). */
static void party_gone(FIXTURE_DATA(sh) *self, struct party *p)
{
	party_end(p);
}

/* Until the module holds no charge of anyone (what the parties held is released). */
static bool users_drained(void)
{
	int i;

	for (i = 0; i < 500; i++) {
		if (vn_counter("users") == 0)
			return true;
		usleep(10000);
	}
	return false;
}

/* GET_INFO reports each share as the parameters set it; the telemetry says the same. */
TEST_F(sh, reported)
{
	const struct vneuron_share *s = self->info.shares;
	unsigned int cores = 0, per;
	struct nd_tel_device *d = NULL;
	struct nd_telemetry *t;
	struct nd_error err;
	int ndev = count_devices(), i, k;

	for (i = 0; i < ndev; i++)
		cores += self->info.core_count;	/* every device has as many */
	per = cores / 4 > self->info.core_count ? cores / 4 : self->info.core_count;
	EXPECT_EQ(param_get("comms_total"), s[VNEURON_SHARE_COMMS].total);
	EXPECT_EQ(param_get("comms_per_user"), s[VNEURON_SHARE_COMMS].per_user);
	EXPECT_EQ(param_get("comms_reserved"), s[VNEURON_SHARE_COMMS].reserved);
	EXPECT_EQ(256, s[VNEURON_SHARE_COMMS].total);
	EXPECT_EQ(64, s[VNEURON_SHARE_COMMS].per_user);
	EXPECT_EQ(32, s[VNEURON_SHARE_COMMS].reserved);
	EXPECT_EQ(VNEURON_GENL_MAX_SUBSCRIBERS, s[VNEURON_SHARE_SUBSCRIBERS].total);
	EXPECT_EQ(8, s[VNEURON_SHARE_SUBSCRIBERS].per_user);
	EXPECT_EQ(8, s[VNEURON_SHARE_SUBSCRIBERS].reserved);
	EXPECT_EQ(cores, s[VNEURON_SHARE_TRACES].total);
	EXPECT_EQ(per, s[VNEURON_SHARE_TRACES].per_user);
	EXPECT_EQ(param_get("traces_per_user"), s[VNEURON_SHARE_TRACES].per_user);
	EXPECT_EQ(64, s[VNEURON_SHARE_NETQ_RINGS].total);
	EXPECT_EQ(16, s[VNEURON_SHARE_NETQ_RINGS].per_user);
	EXPECT_EQ(8, s[VNEURON_SHARE_NETQ_RINGS].reserved);
	EXPECT_EQ(65536, s[VNEURON_SHARE_EXECS].total);
	EXPECT_EQ(16384, s[VNEURON_SHARE_EXECS].per_user);
	EXPECT_EQ(8192, s[VNEURON_SHARE_EXECS].reserved);
	EXPECT_EQ(cores, s[VNEURON_SHARE_CORES].total);
	EXPECT_EQ(per, s[VNEURON_SHARE_CORES].per_user);
	EXPECT_EQ(0, s[VNEURON_SHARE_CORES].reserved);
	EXPECT_EQ(self->info.hbm_bytes / 4096, s[VNEURON_SHARE_HBM].total);
	EXPECT_EQ(self->info.hbm_bytes / 4096, s[VNEURON_SHARE_HBM].per_user);
	EXPECT_EQ(0, s[VNEURON_SHARE_HBM].reserved);
	for (k = 0; k < VNEURON_SHARE_COUNT; k++) {
		EXPECT_EQ(0, s[k].used) TH_LOG("share %d in use with nothing open", k);
		EXPECT_EQ(0, s[k].reserved_used);
	}

	ASSERT_EQ(0, nd_telemetry_open(&t, &err)) TH_LOG("%s", err.msg);
	ASSERT_EQ(ndev, nd_telemetry_devices(t, -1, &d)) TH_LOG("%s", nd_telemetry_error(t));
	EXPECT_EQ(VNEURON_SHARE_COUNT, d[0].nr_shares);
	for (k = 0; k < VNEURON_SHARE_COUNT; k++) {
		EXPECT_EQ(s[k].total, d[0].shares[k].total) TH_LOG("share %d", k);
		EXPECT_EQ(s[k].per_user, d[0].shares[k].per_user) TH_LOG("share %d", k);
		EXPECT_EQ(s[k].reserved, d[0].shares[k].reserved) TH_LOG("share %d", k);
		EXPECT_EQ(s[k].used, d[0].shares[k].used) TH_LOG("share %d", k);
		EXPECT_EQ(s[k].reserved_used, d[0].shares[k].reserved_used) TH_LOG("share %d", k);
	}
	free(d);
	nd_telemetry_close(t);

	/* Root may change them at run time; out of range is refused, the old value kept. */
	EXPECT_EQ(0, param_set("comms_per_user", 5));
	EXPECT_EQ(5, param_get("comms_per_user"));
	EXPECT_EQ(-EINVAL, param_set("comms_per_user", 1 << 21));
	EXPECT_EQ(-EINVAL, param_set("hbm_per_user_pct", 101));
	EXPECT_EQ(5, param_get("comms_per_user"));
}

/*
 * Communicators: user A at its limit (-EDQUOT, from any number of files) while B gets its
 * own; A and B together at the reserve: C gets -EAGAIN, root gets its own until the
 * total (from its reserve, which the others' use does not shrink). The audit's attacker
 * (opened as root, now nobody) is charged as nobody and gets no reserve.
 */
TEST_F(sh, comms)
{
	struct party *a, *b, *c, *root, *n;
	int i;

	ASSERT_EQ(0, param_set("comms_total", 8));
	ASSERT_EQ(0, param_set("comms_per_user", 3));
	ASSERT_EQ(0, param_set("comms_reserved", 2));
	ASSERT_TRUE(cast(self, &a, &b, &c, &root));
	for (i = 0; i < 3; i++)
		ASSERT_LT(0, party_call(a, P_COMM_CREATE, i & 1, 0));
	EXPECT_EQ(-EDQUOT, party_call(a, P_COMM_CREATE, 0, 0));
	EXPECT_EQ(-EDQUOT, party_call(a, P_COMM_CREATE, 1, 0)) TH_LOG("a second file escaped");
	EXPECT_EQ(3, party_call(a, P_USED, 0, VNEURON_SHARE_COMMS));

	for (i = 0; i < 3; i++)
		EXPECT_LT(0, party_call(b, P_COMM_CREATE, 0, 0)) TH_LOG("B refused at %d", i);
	EXPECT_EQ(-EAGAIN, party_call(c, P_COMM_CREATE, 0, 0)) TH_LOG("the reserve was taken");
	EXPECT_LT(0, party_call(root, P_COMM_CREATE, 0, 0));
	EXPECT_LT(0, party_call(root, P_COMM_CREATE, 0, 0));
	EXPECT_EQ(-EAGAIN, party_call(root, P_COMM_CREATE, 0, 0)) TH_LOG("past the total");

	/* A's go with it; C may then create, up to what the reserve leaves. */
	party_gone(self, a);
	for (i = 0; i < 3; i++)
		EXPECT_LT(0, party_call(c, P_COMM_CREATE, 0, 0)) TH_LOG("C refused at %d", i);

	/* A root-opened file in nobody's hands: nobody's charges, no reserve. */
	n = party_new(self, NOBODY, 1, 0);
	ASSERT_NE(NULL, n);
	EXPECT_EQ(-EAGAIN, party_call(n, P_COMM_CREATE, 0, 0)) TH_LOG("the root-opened file "
								    "opened the reserve");
	party_gone(self, b);
	for (i = 0; i < 3; i++)
		EXPECT_LT(0, party_call(n, P_COMM_CREATE, 0, 0));
	EXPECT_EQ(-EDQUOT, party_call(n, P_COMM_CREATE, 0, 0));
	EXPECT_EQ(3, party_call(n, P_USED, 0, VNEURON_SHARE_COMMS));
	EXPECT_EQ(2, party_call(root, P_USED, 0, VNEURON_SHARE_COMMS)) TH_LOG("nobody's charges "
									  "went to root");
	for (i = self->np - 1; i >= 0; i--)
		party_gone(self, &self->p[i]);
	EXPECT_TRUE(users_drained());
	EXPECT_EQ(0, vn_counter("comms"));
}

/*
 * Telemetry subscriptions: open to every local user, even one who cannot open a device;
 * A at its limit while B subscribes; the unprivileged part full: C gets -EBUSY, root's
 * monitor and the capability-less holder of a root-opened socket do not get the same.
 */
TEST_F(sh, subscribers)
{
	int total = VNEURON_GENL_MAX_SUBSCRIBERS, i;
	struct party *a, *b, *c, *root, *n;

	ASSERT_EQ(0, param_set("subscribers_per_user", 2));
	ASSERT_EQ(0, param_set("subscribers_reserved", total - 4));
	a = party_new(self, UID_A, 0, 0);
	b = party_new(self, UID_B, 0, 0);
	c = party_new(self, UID_C, 0, 0);
	ASSERT_TRUE(a && b && c);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(i, party_call(a, P_TEL_OPEN, 0, 0));
	EXPECT_EQ(0, party_call(a, P_SUBSCRIBE, 0, 0));
	EXPECT_EQ(0, party_call(a, P_SUBSCRIBE, 1, 0));
	EXPECT_EQ(-EDQUOT, party_call(a, P_SUBSCRIBE, 2, 0));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(i, party_call(b, P_TEL_OPEN, 0, 0));
	EXPECT_EQ(0, party_call(b, P_SUBSCRIBE, 0, 0));
	EXPECT_EQ(0, party_call(b, P_SUBSCRIBE, 1, 0));
	ASSERT_EQ(0, party_call(c, P_TEL_OPEN, 0, 0));
	EXPECT_EQ(-EBUSY, party_call(c, P_SUBSCRIBE, 0, 0)) TH_LOG("the reserve was taken");

	n = party_new(self, NOBODY, 0, 1);
	ASSERT_NE(NULL, n);
	EXPECT_EQ(-EBUSY, party_call(n, P_SUBSCRIBE, 0, 0)) TH_LOG("a root-opened socket "
								   "opened the reserve");
	root = party_new(self, 0, 0, 0);
	ASSERT_NE(NULL, root);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(i, party_call(root, P_TEL_OPEN, 0, 0));
		EXPECT_EQ(0, party_call(root, P_SUBSCRIBE, i, 0)) TH_LOG("root's monitor %d", i);
	}

	/* B leaves: C, which has no device access at all, subscribes. */
	party_gone(self, b);
	party_gone(self, c);
	c = party_new(self, UID_C, 0, 0);
	ASSERT_NE(NULL, c);
	ASSERT_EQ(0, party_call(c, P_TEL_OPEN, 0, 0));
	EXPECT_EQ(0, party_call(c, P_SUBSCRIBE, 0, 0));
	for (i = self->np - 1; i >= 0; i--)
		party_gone(self, &self->p[i]);
	EXPECT_TRUE(users_drained());
}

/*
 * Trace sessions: A at its limit while B traces another core; root's monitor takes A's
 * session over (A's TRACE_STOP: -ECANCELED); the owner of a core takes it from a session
 * that cannot see the owner; a session that can see is nobody's to take but root's.
 */
TEST_F(sh, traces)
{
	struct party *a, *b, *c, *root;

	if (self->info.core_count < 2)
		SKIP(return, "needs two cores");
	ASSERT_EQ(0, param_set("traces_per_user", 1));
	ASSERT_TRUE(cast(self, &a, &b, &c, &root));

	EXPECT_EQ(0, party_call(a, P_TRACE_START, 0, 0));
	EXPECT_EQ(-EDQUOT, party_call(a, P_TRACE_START, 1, 1)) TH_LOG("a second file escaped");
	EXPECT_EQ(0, party_call(b, P_TRACE_START, 0, 1));
	EXPECT_EQ(-EBUSY, party_call(c, P_TRACE_START, 0, 1));
	EXPECT_EQ(0, party_call(root, P_TRACE_START, 0, 0)) TH_LOG("root's monitor refused");
	EXPECT_EQ(-ECANCELED, party_call(a, P_TRACE_STOP, 0, 0));
	EXPECT_EQ(0, party_call(a, P_USED, 0, VNEURON_SHARE_TRACES));
	EXPECT_EQ(0, party_call(root, P_TRACE_STOP, 0, 0));

	/* A spies on free core 0; C claims it: C takes its tracing over. */
	EXPECT_EQ(0, party_call(a, P_TRACE_START, 0, 0));
	EXPECT_EQ(VNEURON_EXEC_OK, party_call(c, P_RUN, 0, 0));
	EXPECT_EQ(-EBUSY, party_call(b, P_TRACE_START, 0, 0)) TH_LOG("not the owner's side");
	EXPECT_EQ(0, party_call(c, P_TRACE_START, 0, 0)) TH_LOG("the owner was locked out");
	EXPECT_EQ(-ECANCELED, party_call(a, P_TRACE_STOP, 0, 0));
	/* C's own session sees C: A cannot take it back, root can. */
	EXPECT_EQ(-EBUSY, party_call(a, P_TRACE_START, 0, 0));
	EXPECT_EQ(0, party_call(root, P_TRACE_START, 0, 0));
	EXPECT_EQ(-ECANCELED, party_call(c, P_TRACE_STOP, 0, 0));
	for (int i = self->np - 1; i >= 0; i--)
		party_gone(self, &self->p[i]);
	EXPECT_TRUE(users_drained());
}

/* Network queue rings: A at its limit while B gets one; C at the reserve; root's. */
TEST_F(sh, netq_rings)
{
	struct party *a, *b, *c, *root;

	ASSERT_EQ(0, param_set("netq_rings_total", 3));
	ASSERT_EQ(0, param_set("netq_rings_per_user", 1));
	ASSERT_EQ(0, param_set("netq_rings_reserved", 1));
	ASSERT_TRUE(cast(self, &a, &b, &c, &root));
	EXPECT_EQ(0, party_call(a, P_RING, 0, 0));
	EXPECT_EQ(-EDQUOT, party_call(a, P_RING, 1, 0));
	EXPECT_EQ(0, party_call(b, P_RING, 0, 0));
	EXPECT_EQ(-EAGAIN, party_call(c, P_RING, 0, 0));
	EXPECT_EQ(0, party_call(root, P_RING, 0, 0));
	EXPECT_EQ(-EAGAIN, party_call(root, P_RING, 0, 0)) TH_LOG("past the total");
	for (int i = self->np - 1; i >= 0; i--)
		party_gone(self, &self->p[i]);
	EXPECT_TRUE(users_drained());
}

/*
 * Executions (held from submission until reaped, here never): A at its limit on any
 * file while B submits; A alone at the reserve: C gets -EAGAIN, root runs.
 */
TEST_F(sh, execs)
{
	struct party *a, *b, *c, *root;
	int i;

	if (self->info.core_count < 2)
		SKIP(return, "needs two cores");
	ASSERT_EQ(0, param_set("execs_per_user", 3));
	a = party_new(self, UID_A, 0, 0);
	b = party_new(self, UID_B, 0, 0);
	ASSERT_TRUE(a && b);
	ASSERT_EQ(0, party_call(a, P_OPEN, 0, 0));
	ASSERT_EQ(1, party_call(a, P_OPEN, 0, 0));
	ASSERT_EQ(0, party_call(b, P_OPEN, 0, 0));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, party_call(a, P_SUBMIT, 0, 0));
	EXPECT_EQ(-EDQUOT, party_call(a, P_SUBMIT, 0, 0));
	EXPECT_EQ(-EDQUOT, party_call(a, P_SUBMIT, 1, 1)) TH_LOG("a second file escaped");
	for (i = 0; i < 3; i++)
		EXPECT_EQ(0, party_call(b, P_SUBMIT, 0, 1)) TH_LOG("B refused at %d", i);
	party_gone(self, b);

	/* A's three are all the unprivileged may hold. */
	ASSERT_EQ(0, param_set("execs_total", 5));
	ASSERT_EQ(0, param_set("execs_reserved", 2));
	c = party_new(self, UID_C, 0, 0);
	root = party_new(self, 0, 0, 0);
	ASSERT_TRUE(c && root);
	ASSERT_EQ(0, party_call(c, P_OPEN, 0, 0));
	ASSERT_EQ(0, party_call(root, P_OPEN, 0, 0));
	EXPECT_EQ(-EAGAIN, party_call(c, P_SUBMIT, 0, 1));
	EXPECT_EQ(0, party_call(root, P_SUBMIT, 0, 1)) TH_LOG("root refused the reserve");
	EXPECT_EQ(0, party_call(root, P_SUBMIT, 0, 1));
	EXPECT_EQ(-EAGAIN, party_call(root, P_SUBMIT, 0, 1)) TH_LOG("past the total");
	for (i = self->np - 1; i >= 0; i--)
		party_gone(self, &self->p[i]);
	EXPECT_TRUE(users_drained());
	EXPECT_EQ(0, vn_counter("execs"));
}

/* Cores: A at its limit (any file) while B claims; the free cores reserved: root's. */
TEST_F(sh, cores)
{
	unsigned int total = self->info.shares[VNEURON_SHARE_CORES].total;
	struct party *a, *b, *c, *root;

	if (self->info.core_count < 2)
		SKIP(return, "needs two cores");
	ASSERT_EQ(0, param_set("cores_per_user", 1));
	a = party_new(self, UID_A, 0, 0);
	b = party_new(self, UID_B, 0, 0);
	ASSERT_TRUE(a && b);
	ASSERT_EQ(0, party_call(a, P_OPEN, 0, 0));
	ASSERT_EQ(1, party_call(a, P_OPEN, 0, 0));
	ASSERT_EQ(0, party_call(b, P_OPEN, 0, 0));
	EXPECT_EQ(VNEURON_EXEC_OK, party_call(a, P_RUN, 0, 0));
	EXPECT_EQ(-EDQUOT, party_call(a, P_RUN, 0, 1));
	EXPECT_EQ(-EDQUOT, party_call(a, P_RUN, 1, 1)) TH_LOG("a second file escaped");
	EXPECT_EQ(VNEURON_EXEC_OK, party_call(b, P_RUN, 0, 1));
	EXPECT_EQ(1, party_call(b, P_USED, 0, VNEURON_SHARE_CORES));
	party_gone(self, b);

	/* Every free core is reserved: only root claims one. */
	ASSERT_EQ(0, param_set("cores_reserved", total - 1));
	c = party_new(self, UID_C, 0, 0);
	root = party_new(self, 0, 0, 0);
	ASSERT_TRUE(c && root);
	ASSERT_EQ(0, party_call(c, P_OPEN, 0, 0));
	ASSERT_EQ(0, party_call(root, P_OPEN, 0, 0));
	EXPECT_EQ(-EAGAIN, party_call(c, P_RUN, 0, 1));
	EXPECT_EQ(VNEURON_EXEC_OK, party_call(root, P_RUN, 0, 1)) TH_LOG("root refused");
	for (int i = self->np - 1; i >= 0; i--)
		party_gone(self, &self->p[i]);
	EXPECT_TRUE(users_drained());
}

/* HBM: A at its share of the device while B allocates; the rest reserved: root's. */
TEST_F(sh, hbm)
{
	uint64_t share = self->info.hbm_bytes / 50;	/* 2% */
	uint64_t four = share & ~4095ull;
	struct party *a, *b, *c, *root;

	ASSERT_EQ(0, param_set("hbm_per_user_pct", 2));
	ASSERT_TRUE(cast(self, &a, &b, &c, &root));
	EXPECT_LT(0, party_call(a, P_ALLOC, 0, four));
	EXPECT_EQ(-EDQUOT, party_call(a, P_ALLOC, 0, 4096));
	EXPECT_EQ(-EDQUOT, party_call(a, P_ALLOC, 1, 4096)) TH_LOG("a second file escaped");
	EXPECT_EQ(four / 4096, party_call(a, P_USED, 0, VNEURON_SHARE_HBM));
	EXPECT_LT(0, party_call(b, P_ALLOC, 0, four)) TH_LOG("B refused");
	/* All but what A and B hold is the reserve. */
	ASSERT_EQ(0, param_set("hbm_reserved_pct", 97));
	EXPECT_EQ(-ENOMEM, party_call(c, P_ALLOC, 0, 4096));
	EXPECT_LT(0, party_call(root, P_ALLOC, 0, 1 << 20)) TH_LOG("root refused");
	for (int i = self->np - 1; i >= 0; i--)
		party_gone(self, &self->p[i]);
	EXPECT_TRUE(users_drained());
}

/*
 * A user namespace is its creator's user: communicators made inside count against A's
 * limit (its uid 0 is not root), and its capabilities there open no reserve.
 */
TEST_F(sh, user_namespace)
{
	static const char clone_knob[] = "/proc/sys/kernel/unprivileged_userns_clone";
	long long knob = vn_read_num(clone_knob);
	struct party *a;
	int ret;

	/* Debian's kernel may forbid unprivileged user namespaces: allow them here. */
	if (knob == 0)
		ASSERT_EQ(0, vn_write_file(clone_knob, "1"));
	ASSERT_EQ(0, param_set("comms_per_user", 3));
	a = party_new(self, UID_A, 0, 0);
	ASSERT_NE(NULL, a);
	ASSERT_EQ(0, party_call(a, P_OPEN, 0, 0));
	EXPECT_LT(0, party_call(a, P_COMM_CREATE, 0, 0));
	ret = party_call(a, P_USERNS, 0, 0);
	if (knob == 0)
		vn_write_file(clone_knob, "0");
	if (ret)
		SKIP(return, "no unprivileged user namespaces here (%s)", strerror(-ret));
	EXPECT_LT(0, party_call(a, P_COMM_CREATE, 0, 0));
	EXPECT_LT(0, party_call(a, P_COMM_CREATE, 0, 0));
	EXPECT_EQ(-EDQUOT, party_call(a, P_COMM_CREATE, 0, 0)) TH_LOG("the namespace escaped");
	EXPECT_EQ(3, party_call(a, P_USED, 0, VNEURON_SHARE_COMMS));
	/* Its uid 0 with every capability in the namespace: no reserve. */
	ASSERT_EQ(0, param_set("comms_per_user", 10));
	ASSERT_EQ(0, param_set("comms_total", 4));
	ASSERT_EQ(0, param_set("comms_reserved", 1));
	EXPECT_EQ(-EAGAIN, party_call(a, P_COMM_CREATE, 0, 0)) TH_LOG("namespace root took "
								      "the reserve");
	party_gone(self, a);
	EXPECT_TRUE(users_drained());
}

/*
 * The per-user accounting is bounded by the totals, however many uids come: root forks
 * 20 users who each try to create a communicator; 8 hold one, the others are refused and
 * leave no entry; all of them gone, none is left.
 */
TEST_F_TIMEOUT(sh, accounting_bounded, 120)
{
	int *ok = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int go[2], i, n = 20, held = 0, st;
	pid_t pid[20];
	char c;

	ASSERT_NE(MAP_FAILED, ok);
	ASSERT_EQ(0, param_set("comms_total", 8));
	ASSERT_EQ(0, param_set("comms_reserved", 0));
	ASSERT_EQ(0, pipe(go));
	for (i = 0; i < n; i++) {
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (!pid[i]) {
			struct vneuron_comm_create cc = { .nranks = 2 };
			int fd;

			close(go[1]);
			if (party_drop(5000 + i))
				_exit(1);
			fd = vn_open();
			ok[i] = fd < 0 ? -errno : vn_ioctl(fd, VNEURON_IOCTL_COMM_CREATE, &cc);
			ok[i] = ok[i] ? ok[i] : 1;
			__atomic_add_fetch(&ok[1000], 1, __ATOMIC_SEQ_CST);
			if (read(go[0], &c, 1) < 0)
				_exit(2);
			_exit(0);
		}
	}
	close(go[0]);
	for (i = 0; i < 1000 && __atomic_load_n(&ok[1000], __ATOMIC_SEQ_CST) < n; i++)
		usleep(10000);
	for (i = 0; i < n; i++) {
		held += ok[i] == 1;
		EXPECT_TRUE(ok[i] == 1 || ok[i] == -EAGAIN) TH_LOG("user %d: %d", i, ok[i]);
	}
	EXPECT_EQ(8, held);
	EXPECT_EQ(8, vn_counter("users")) TH_LOG("entries for users that hold nothing");
	close(go[1]);
	for (i = 0; i < n; i++) {
		waitpid(pid[i], &st, 0);
		EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
	}
	EXPECT_TRUE(users_drained());
	munmap(ok, 4096);
}

TEST(zz_drained)
{
	EXPECT_TRUE(users_drained());
	EXPECT_EQ(0, vn_counter("comms"));
	EXPECT_EQ(0, vn_counter("execs"));
	EXPECT_EQ(0, vn_counter("open_files"));
}

TEST_HARNESS_MAIN
