// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The network queue in the guest (docs/uapi.md, "Ranks on other nodes"): COMM_NODES,
 * NETQ_WAIT and NETQ_COMPLETE and every error they give; a test that plays the proxy of
 * a remote rank by hand (its input written into the stage, the all-reduce exact against
 * the rank-order sum, the modeled time the same on rerun); a proxy that closes breaks
 * the communicator; one that never serves lets the rank end TIMEOUT CC_MISSING at its
 * time limit; a relayed failure; and two "nodes" of MPI processes, each on its own
 * /dev/vneuronN, running every collective through libvnmpi's device proxy
 * (tests/host/mpi/test_mpi_netq.c under mpirun): exact, and the same modeled times on a
 * second mpirun; and nothing left in the module after (zz_drained: this file runs after
 * netq_ring_test, in name order).
 */
#include "netq_util.h"

TEST_F(netq, nodes_errors)
{
	const uint32_t all_local[2] = { 0, 0 }, all_remote[2] = { 1, 1 };
	struct vneuron_comm_nodes a;
	uint32_t reg, reg2, rank_h;
	uint8_t id[ID_BYTES], id2[ID_BYTES];
	int fd2 = vn_open();

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, comm_create(self->fd, 2, id, &reg));
	ASSERT_EQ(0, comm_create(self->fd, 2, id2, &reg2));
	a = (struct vneuron_comm_nodes){ .handle = reg, .nodes = (uintptr_t)two_nodes,
					 .devices = (uintptr_t)two_devs, .nranks = 2, .flags = 1 };
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_COMM_NODES, &a));
	EXPECT_EQ(-EINVAL, comm_nodes(self->fd, reg, 0, two_nodes, two_devs, 3));
	EXPECT_EQ(-EINVAL, comm_nodes(self->fd, reg, 0, two_nodes, two_devs, 0));
	EXPECT_EQ(-EINVAL, comm_nodes(self->fd, reg, 0, two_nodes, two_devs, 65));
	EXPECT_EQ(-EINVAL, comm_nodes(self->fd, reg, 0, all_local, two_devs, 2));
	EXPECT_EQ(-EINVAL, comm_nodes(self->fd, reg, 0, all_remote, two_devs, 2));
	EXPECT_EQ(-EFAULT, comm_nodes(self->fd, reg, 0, (const uint32_t *)8, two_devs, 2));
	EXPECT_EQ(-EFAULT, comm_nodes(self->fd, reg, 0, two_nodes, (const uint32_t *)8, 2));
	EXPECT_EQ(-ENOENT, comm_nodes(self->fd, 0, 0, two_nodes, two_devs, 2));
	EXPECT_EQ(-ENOENT, comm_nodes(self->fd, 9999, 0, two_nodes, two_devs, 2));
	/* another file's handle number is not this file's */
	EXPECT_EQ(-ENOENT, comm_nodes(fd2, reg, 0, two_nodes, two_devs, 2));
	/* after a rank joined: too late */
	ASSERT_EQ(0, comm_join(self->fd, id2, 0, 0, &rank_h));
	EXPECT_EQ(-EBUSY, comm_nodes(self->fd, reg2, 0, two_nodes, two_devs, 2));
	/* a rank's handle is not a registration */
	EXPECT_EQ(-EINVAL, comm_nodes(self->fd, rank_h, 0, two_nodes, two_devs, 2));
	ASSERT_EQ(0, comm_nodes(self->fd, reg, 0, two_nodes, two_devs, 2));
	EXPECT_EQ(-EBUSY, comm_nodes(self->fd, reg, 0, two_nodes, two_devs, 2));
	/* rank 1 is remote: it cannot join here; rank 0 can */
	EXPECT_EQ(-EINVAL, comm_join(fd2, id, 1, 0, NULL));
	if (self->info.core_count > 1)
		EXPECT_EQ(0, comm_join(self->fd, id, 0, 1, NULL));
	close(fd2);
}

/* NETQ_WAIT: every bad argument, and ETIMEDOUT with nobody at a collective. */
TEST_F(netq, wait_errors)
{
	struct vneuron_netq_wait w;
	uint32_t reg, plain, rank_h, stage;
	uint8_t id[ID_BYTES];
	uint64_t arr[2], t0;
	int fd2 = vn_open();

	ASSERT_LE(0, fd2);
	/* fd2 holds no handle: any number is another file's */
	ASSERT_EQ(0, netq_comm(self->fd, self->fd, &reg, &rank_h));
	ASSERT_EQ(0, comm_create(self->fd, 2, id, &plain));
	stage = vn_alloc(self->fd, 2 * PAGE, NULL);
	ASSERT_LT(0, (int)stage);
	w = (struct vneuron_netq_wait){ .handle = reg, .timeout_ns = vn_now_ns() + MS,
					.stage = stage, .stage_size = PAGE,
					.arrivals = (uintptr_t)arr, .flags = 1 };
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_NETQ_WAIT, &w));
	w.flags = 0;
	w.pad = 1;
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_NETQ_WAIT, &w));
	w.pad = 0;
	w.timeout_ns = 0;
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_NETQ_WAIT, &w));
	w.timeout_ns = vn_now_ns() + MS;
	w.stage_offset = ~0ull;
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_NETQ_WAIT, &w));
	w.stage_offset = PAGE;
	w.stage_size = PAGE + 1;		/* one byte past the buffer */
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_NETQ_WAIT, &w));
	EXPECT_EQ(-ENOENT, netq_wait(self->fd, reg, 9999, PAGE, MS, arr, &w));
	/* the stage and the registration must be the caller's own */
	EXPECT_EQ(-ENOENT, netq_wait(fd2, reg, stage, PAGE, MS, arr, &w));
	EXPECT_EQ(-ENOENT, netq_wait(self->fd, 0, stage, PAGE, MS, arr, &w));
	EXPECT_EQ(-EINVAL, netq_wait(self->fd, plain, stage, PAGE, MS, arr, &w));
	EXPECT_EQ(-EINVAL, netq_wait(self->fd, rank_h, stage, PAGE, MS, arr, &w));
	t0 = vn_now_ns();
	EXPECT_EQ(-ETIMEDOUT, netq_wait(self->fd, reg, stage, PAGE, 50 * MS, arr, &w));
	EXPECT_LE(t0 + 50 * MS, vn_now_ns());
	close(fd2);
}

/* NETQ_COMPLETE: every bad argument without a request out. */
TEST_F(netq, complete_errors)
{
	struct vneuron_netq_complete c;
	uint32_t reg, rank_h, stage;
	uint64_t arr[2] = { 0, 0 };
	int fd2 = vn_open();

	ASSERT_LE(0, fd2);
	/* fd2 holds no handle: any number is another file's */
	ASSERT_EQ(0, netq_comm(self->fd, self->fd, &reg, &rank_h));
	stage = vn_alloc(self->fd, PAGE, NULL);
	ASSERT_LT(0, (int)stage);
	c = (struct vneuron_netq_complete){ .handle = reg, .id = 1, .stage = stage,
					    .arrivals = (uintptr_t)arr, .flags = 1 };
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_NETQ_COMPLETE, &c));
	c.flags = 0;
	c.pad = 1;
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_NETQ_COMPLETE, &c));
	c.pad = 0;
	c.failed_rank = 1;			/* only with an error */
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_NETQ_COMPLETE, &c));
	c.failed_rank = 0;
	c.missing = 2;
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_NETQ_COMPLETE, &c));
	/* no request was ever issued */
	EXPECT_EQ(-ENOENT, netq_complete(self->fd, reg, 1, stage, 0, arr));
	EXPECT_EQ(-ENOENT, netq_complete(self->fd, reg, 0, stage, 0, arr));
	EXPECT_EQ(-EFAULT, netq_complete(self->fd, reg, 1, stage, 0, (const uint64_t *)8));
	arr[1] = VNEURON_NETQ_MAX_PS + 1;
	EXPECT_EQ(-EINVAL, netq_complete(self->fd, reg, 1, stage, 0, arr));
	arr[1] = 0;
	EXPECT_EQ(-ENOENT, netq_complete(fd2, reg, 1, stage, 0, arr));
	EXPECT_EQ(-EINVAL, netq_complete(self->fd, rank_h, 1, stage, 0, arr));
	/* failures: the errno, the rank and the missing ranks checked */
	EXPECT_EQ(-EINVAL, netq_fail(self->fd, reg, 9999, 1, 0));
	EXPECT_EQ(-EINVAL, netq_fail(self->fd, reg, ENOMEM, 1, 0));
	EXPECT_EQ(-EINVAL, netq_fail(self->fd, reg, EIO, 2, 0));
	EXPECT_EQ(-EINVAL, netq_fail(self->fd, reg, ETIMEDOUT, 1, 4));
	EXPECT_EQ(-EINVAL, netq_fail(self->fd, reg, EIO, 1, 2));
	close(fd2);
}

/*
 * The proxy by hand: rank 0 runs an all-reduce, NETQ_WAIT gives its input in the stage,
 * rank 1's input goes in beside it, NETQ_COMPLETE: the output is the rank-order sum,
 * the modeled end the same on a second run; bad completions on the way are refused.
 */
TEST_F_TIMEOUT(netq, allreduce_served, 120)
{
	struct vneuron_netq_wait w;
	struct vneuron_comm_info in;
	uint32_t reg, rank_h, stage, small, other;
	uint64_t arr[2], rarr[2] = { 0, 123456 }, model[2];
	float x1[COUNT], got[COUNT];
	struct rank0 *r = calloc(1, sizeof(*r));
	int fd2 = vn_open(), run, i, bad;

	ASSERT_NE(NULL, r);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, netq_comm(self->fd, fd2, &reg, &rank_h));
	stage = vn_alloc(self->fd, 2 * COUNT * 4, NULL);
	small = vn_alloc(self->fd, 16, NULL);
	/* a buffer of fd2 whose number is no buffer of self->fd */
	do
		other = vn_alloc(fd2, 2 * COUNT * 4, NULL);
	while ((int)other > 0 && other <= small);
	ASSERT_LT(0, (int)stage);
	ASSERT_LT(0, (int)small);
	ASSERT_LT(0, (int)other);
	remote_input(x1);
	for (run = 0; run < 2; run++) {
		memset(r, 0, sizeof(*r));
		ASSERT_EQ(0, rank0_submit(r, fd2, 30 * SEC));
		/* a stage too small: told the size, nothing taken */
		ASSERT_EQ(0, netq_wait(self->fd, reg, small, 16, 10 * SEC, arr, &w));
		EXPECT_EQ(0, w.id);
		EXPECT_EQ(2 * COUNT * 4, w.stage_need);
		ASSERT_EQ(0, netq_wait(self->fd, reg, stage, 2 * COUNT * 4, 10 * SEC, arr, &w));
		ASSERT_NE(0, w.id);
		EXPECT_EQ(0, w.op);
		EXPECT_EQ(0, w.reduce);
		EXPECT_EQ(VNEF_DT_FP32, w.dtype);
		EXPECT_EQ(COUNT, w.count);
		EXPECT_EQ(COUNT * 4, w.rank_bytes);
		EXPECT_EQ(1, w.local);
		EXPECT_EQ(0, arr[1]);
		/* one request at a time */
		{
			struct vneuron_netq_wait w2;

			EXPECT_EQ(-EBUSY, netq_wait(self->fd, reg, stage, 2 * COUNT * 4, MS,
						    arr, &w2));
		}
		ASSERT_EQ(0, vn_rw(self->fd, 0, stage, 0, got, sizeof(got)));
		EXPECT_EQ(0, memcmp(got, r->in, sizeof(got)));
		ASSERT_EQ(0, vn_rw(self->fd, 1, stage, COUNT * 4, x1, sizeof(x1)));
		/* wrong id, another file's stage, past the end, an arrival too late */
		EXPECT_EQ(-ENOENT, netq_complete(self->fd, reg, w.id + 1, stage, 0, rarr));
		EXPECT_EQ(-ENOENT, netq_complete(self->fd, reg, w.id, other, 0, rarr));
		EXPECT_EQ(-EINVAL, netq_complete(self->fd, reg, w.id, small, 0, rarr));
		EXPECT_EQ(-EINVAL, netq_complete(self->fd, reg, w.id, stage, 4, rarr));
		EXPECT_EQ(-EINVAL, netq_complete(self->fd, reg, w.id, stage, ~0ull, rarr));
		rarr[1] = ~0ull;
		EXPECT_EQ(-EINVAL, netq_complete(self->fd, reg, w.id, stage, 0, rarr));
		rarr[1] = 123456;
		ASSERT_EQ(0, netq_complete(self->fd, reg, w.id, stage, 0, rarr));
		/* completed: a second completion is of no request */
		EXPECT_EQ(-ENOENT, netq_complete(self->fd, reg, w.id, stage, 0, rarr));
		ASSERT_EQ(0, rank0_wait(r));
		EXPECT_EQ(VNEURON_EXEC_OK, r->w.status) TH_LOG("reason %u", r->w.reason);
		for (i = 0, bad = 0; i < COUNT; i++)
			bad += r->out[i] != r->in[i] + x1[i];
		EXPECT_EQ(0, bad);
		model[run] = r->w.model_ps;
		rank0_release(r);
	}
	EXPECT_EQ(model[0], model[1]);
	EXPECT_LT(123456, model[0]);
	ASSERT_EQ(0, comm_info(self->fd, reg, &in));
	EXPECT_EQ(0, in.broken);
	EXPECT_EQ(2, in.collectives);
	close(fd2);
	free(r);
}

/* A proxy that closes, idle or with a request out: the rank ends ABORTED CC_PEER at once. */
TEST_F_TIMEOUT(netq, proxy_close_breaks, 120)
{
	struct vneuron_netq_wait w;
	struct vneuron_comm_info in;
	uint32_t reg, rank_h, stage;
	uint64_t arr[2], t0;
	struct rank0 *r = calloc(1, sizeof(*r));
	int pfd, with_request;

	ASSERT_NE(NULL, r);
	for (with_request = 0; with_request < 2; with_request++) {
		int rfd = vn_open();

		pfd = vn_open();
		ASSERT_LE(0, pfd);
		ASSERT_LE(0, rfd);
		ASSERT_EQ(0, netq_comm(pfd, rfd, &reg, &rank_h));
		stage = vn_alloc(pfd, 2 * COUNT * 4, NULL);
		memset(r, 0, sizeof(*r));
		t0 = vn_now_ns();
		ASSERT_EQ(0, rank0_submit(r, rfd, 60 * SEC));
		if (with_request)
			ASSERT_EQ(0, netq_wait(pfd, reg, stage, 2 * COUNT * 4, 10 * SEC, arr, &w));
		close(pfd);
		ASSERT_EQ(0, rank0_wait(r));
		EXPECT_EQ(VNEURON_EXEC_ABORTED, r->w.status);
		EXPECT_EQ(VNEURON_REASON_CC_PEER, r->w.reason);
		EXPECT_GT(t0 + 30 * SEC, vn_now_ns());
		ASSERT_EQ(0, comm_info(rfd, rank_h, &in));
		EXPECT_EQ(1, in.broken);
		EXPECT_EQ(1, in.failed_rank);
		EXPECT_EQ(EPIPE, in.failure);
		rank0_release(r);
		close(rfd);
	}
	free(r);
}

/* A proxy that never serves: TIMEOUT CC_MISSING at the time limit, the remote rank named. */
TEST_F_TIMEOUT(netq, never_served, 120)
{
	struct vneuron_comm_info in;
	uint32_t reg, rank_h;
	struct rank0 *r = calloc(1, sizeof(*r));

	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, netq_comm(self->fd, self->fd, &reg, &rank_h));
	ASSERT_EQ(0, rank0_submit(r, self->fd, SEC));
	ASSERT_EQ(0, rank0_wait(r));
	EXPECT_EQ(VNEURON_EXEC_TIMEOUT, r->w.status);
	EXPECT_EQ(VNEURON_REASON_CC_MISSING, r->w.reason);
	ASSERT_EQ(0, comm_info(self->fd, rank_h, &in));
	EXPECT_EQ(1, in.broken);
	EXPECT_EQ(ETIMEDOUT, in.failure);
	EXPECT_EQ(2, in.missing);
	rank0_release(r);
	free(r);
}

/* Another node's timeout relayed by the proxy: the rank ends TIMEOUT CC_MISSING at once. */
TEST_F_TIMEOUT(netq, failure_relayed, 120)
{
	struct vneuron_netq_wait w;
	struct vneuron_comm_info in;
	uint32_t reg, rank_h, stage;
	uint64_t arr[2], rarr[2] = { 0, 0 };
	struct rank0 *r = calloc(1, sizeof(*r));

	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, netq_comm(self->fd, self->fd, &reg, &rank_h));
	stage = vn_alloc(self->fd, 2 * COUNT * 4, NULL);
	ASSERT_EQ(0, rank0_submit(r, self->fd, 60 * SEC));
	ASSERT_EQ(0, netq_wait(self->fd, reg, stage, 2 * COUNT * 4, 10 * SEC, arr, &w));
	ASSERT_EQ(0, netq_fail(self->fd, reg, ETIMEDOUT, 1, 2));
	ASSERT_EQ(0, rank0_wait(r));
	EXPECT_EQ(VNEURON_EXEC_TIMEOUT, r->w.status);
	EXPECT_EQ(VNEURON_REASON_CC_MISSING, r->w.reason);
	ASSERT_EQ(0, comm_info(self->fd, rank_h, &in));
	EXPECT_EQ(ETIMEDOUT, in.failure);
	EXPECT_EQ(2, in.missing);
	/* broken: the pending request cannot complete, nothing moves */
	EXPECT_EQ(-EPIPE, netq_complete(self->fd, reg, w.id, stage, 0, rarr));
	EXPECT_EQ(-EPIPE, netq_wait(self->fd, reg, stage, 2 * COUNT * 4, MS, arr, &w));
	rank0_release(r);
	free(r);
}

/*
 * A collective of a group (group_size 2, stride 2 on 4 ranks: {0, 2}, {1, 3}) with
 * ranks 0 and 1 local: the queue cannot hold the local ranks (a group of local ranks
 * only could complete under the hold), so NETQ_WAIT breaks the communicator, EINVAL.
 */
TEST_F_TIMEOUT(netq, group_collective_breaks, 120)
{
	const uint32_t nodes[4] = { 0, 0, 1, 1 }, devs[4] = { 0 };
	struct vneuron_netq_wait w;
	struct vneuron_comm_info in;
	uint32_t reg, rank_h, stage;
	uint8_t id[ID_BYTES];
	uint64_t arr[4];
	struct rank0 *r = calloc(2, sizeof(*r));
	int i;

	ASSERT_NE(NULL, r);
	if (self->info.core_count < 2)
		SKIP(return, "needs two cores");
	ASSERT_EQ(0, comm_create(self->fd, 4, id, &reg));
	ASSERT_EQ(0, comm_nodes(self->fd, reg, 0, nodes, devs, 4));
	ASSERT_EQ(0, comm_join(self->fd, id, 0, 0, &rank_h));
	ASSERT_EQ(0, comm_join(self->fd, id, 1, 1, NULL));
	stage = vn_alloc(self->fd, 4 * COUNT * 4, NULL);
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, rank_submit(&r[i], self->fd, i, 60 * SEC, 2, 2));
	EXPECT_EQ(-EPIPE, netq_wait(self->fd, reg, stage, 4 * COUNT * 4, 10 * SEC, arr, &w));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, rank0_wait(&r[i]));
		EXPECT_EQ(VNEURON_EXEC_ABORTED, r[i].w.status);
		EXPECT_EQ(VNEURON_REASON_CC_PEER, r[i].w.reason);
		rank0_release(&r[i]);
	}
	ASSERT_EQ(0, comm_info(self->fd, rank_h, &in));
	EXPECT_EQ(1, in.broken);
	EXPECT_EQ(EINVAL, in.failure);
	EXPECT_EQ(0, in.failed_rank);
	free(r);
}

/*
 * One mpirun of test_mpi_netq on 2 processes: its exit status; its output's TAP failures
 * and modeled times into *fails and models.
 */
static int mpirun_netq(const char *top, char *models, size_t cap, int *fails)
{
	char cmd[2 * PATH_MAX], line[512];
	size_t used = 0;
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd),
		 "cd /tmp && ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 OMPI_MCA_btl=self,vader "
		 "timeout 300 mpirun --allow-run-as-root --oversubscribe -np 2 "
		 "%s/build/san/mpi/test_mpi_netq 2>&1", top);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	*fails = 0;
	models[0] = '\0';
	while (fgets(line, sizeof(line), p)) {
		fprintf(stderr, "#   %s", line);
		if (!strncmp(line, "not ok", 6))
			(*fails)++;
		if (strstr(line, " modeled ") && used + strlen(line) < cap) {
			strcpy(models + used, line);
			used += strlen(line);
		}
	}
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
 * The preamble of the mpirun tests: two devices (a node each), mpirun, the tree's top
 * into top (.../build/rel/guest/netq_test: four levels up), and in the bare test guest
 * the host name and loopback interface Open MPI needs. 0; 1 with *why, to skip; -1.
 */
static int mpirun_ready(const struct vneuron_info *info, char *top, size_t cap,
			const char **why)
{
	char exe[PATH_MAX], host[64];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	*why = NULL;
	if (info->device_count < 2)
		*why = "needs two devices (devices=2): a node each";
	else if (access("/usr/bin/mpirun", X_OK))
		*why = "no mpirun (make setup installs openmpi-bin)";
	if (*why)
		return 1;
	if (len <= 0)
		return -1;
	exe[len] = '\0';
	snprintf(top, cap, "%s", dirname(dirname(dirname(dirname(exe)))));
	if (!gethostname(host, sizeof(host)) && !strcmp(host, "(none)") &&
	    (sethostname("vneuron-guest", 13) || system("ip link set lo up")))
		return -1;
	return 0;
}

/* Two nodes as MPI processes on /dev/vneuron0 and /dev/vneuron1: every collective. */
TEST_F_TIMEOUT(netq, mpirun_two_nodes, 700)
{
	char top[PATH_MAX], bin[2 * PATH_MAX];
	char models[2][2048];
	const char *why;
	int fails[2], st, run;

	st = mpirun_ready(&self->info, top, sizeof(top), &why);
	if (st == 1)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, st);
	snprintf(bin, sizeof(bin), "%s/build/san/mpi/test_mpi_netq", top);
	if (access(bin, X_OK))
		SKIP(return, "build/san/mpi/test_mpi_netq is not built (needs mpicc)");
	for (run = 0; run < 2; run++) {
		st = mpirun_netq(top, models[run], sizeof(models[run]), &fails[run]);
		EXPECT_EQ(0, st);
		EXPECT_EQ(0, fails[run]);
	}
	EXPECT_NE(0, models[0][0]);
	EXPECT_STREQ(models[0], models[1]);
}

/*
 * vneuron-profile capture under mpirun on the module, two nodes on /dev/vneuron0 and
 * /dev/vneuron1 (tests/guest/mpi_capture.sh: its TAP, each `not ok` a failure).
 */
TEST_F_TIMEOUT(netq, mpirun_capture, 900)
{
	char top[PATH_MAX], cmd[2 * PATH_MAX + 64], line[512];
	int fails = 0, oks = 0, st;
	const char *why;
	FILE *p;

	st = mpirun_ready(&self->info, top, sizeof(top), &why);
	if (st == 1)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, st);
	snprintf(cmd, sizeof(cmd), "%s/build/libexec/vneuron/vneuron-profile-mpi", top);
	if (access(cmd, X_OK))
		SKIP(return, "vneuron-profile-mpi is not built (needs mpicc)");
	snprintf(cmd, sizeof(cmd), "%s/tests/guest/mpi_capture.sh 2>&1", top);
	p = popen(cmd, "r");
	ASSERT_NE(NULL, p);
	while (fgets(line, sizeof(line), p)) {
		fprintf(stderr, "#   %s", line);
		if (!strncmp(line, "not ok", 6))
			fails++;
		else if (!strncmp(line, "ok ", 3))
			oks++;
	}
	st = pclose(p);
	EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
	EXPECT_EQ(0, fails);
	EXPECT_EQ(8, oks);
}

/* After everything: no communicator and no buffer of these tests left in the module. */
TEST_F(netq, zz_drained)
{
	EXPECT_EQ(0, vn_counter("comms"));
}

TEST_HARNESS_MAIN
