// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The attacker's questions of issue 25 (attack_test.c), 5: telemetry: a cancelled
 * execution of a released owner, a socket opened by root and handed to nobody,
 * uninitialised bytes in any reply.
 */
#include "attack_util.h"

/* ---- 5. telemetry ---- */

/* A long program: 24 ScalarE tanh over 128 x 4096 (a second or so under TCG). */
static int long_program(void **img, size_t *size)
{
	struct nd_builder *b;
	struct nd_tile *t0, *t1;
	int i, ret;

	if (nd_builder_new("long", &b))
		return -1;
	t0 = nd_sbuf(b, "t0", ND_FP32, 128, 4096);
	t1 = nd_sbuf(b, "t1", ND_FP32, 128, 4096);
	nd_memset(b, ND_VECTOR, nd_whole(t0), 0.5f);
	for (i = 0; i < 24; i++)
		nd_activate(b, nd_whole(i & 1 ? t0 : t1), nd_whole(i & 1 ? t1 : t0),
			    ND_ACT_TANH, 1.0f, 0.0f);
	ret = nd_builder_finish(b, img, size);
	nd_builder_free(b);
	return ret;
}

/*
 * Question 5 (a bug found here): user A closes its file while its execution runs; the
 * execution, cancelled, ends after A released the core. Its EXEC_END used to go to every
 * subscriber as an event about no process; now only a privileged monitor gets it, and
 * user C's subscription sees nothing of A.
 */
TEST_F_TIMEOUT(atk, genl_released_owner_stays_hidden, 300)
{
	struct party *c = calloc(1, sizeof(*c)), *root = calloc(1, sizeof(*root));
	int round, seen;
	size_t size;
	void *img;

	ASSERT_TRUE(c && root);
	ASSERT_EQ(0, long_program(&img, &size));
	ASSERT_EQ(0, party_start(c, 4203, 0, 0));
	ASSERT_EQ(0, party_start(root, 0, 0, 0));
	ASSERT_EQ(0, party_call(c, P_TEL_OPEN, 0, 0));
	ASSERT_EQ(0, party_call(c, P_SUBSCRIBE, 0, 0));
	ASSERT_EQ(0, party_call(root, P_TEL_OPEN, 0, 0));
	ASSERT_EQ(0, party_call(root, P_SUBSCRIBE, 0, 0));
	for (round = 0; round < 3; round++) {
		pid_t a = fork();

		ASSERT_LE(0, a);
		if (!a) {
			uint32_t prog;
			uint64_t id;
			int fd;

			if (party_drop(UID_A))
				_exit(1);
			fd = vn_open();
			if (fd < 0 || vn_prog_load(fd, img, size, &prog, NULL) ||
			    vn_exec_on(fd, prog, 0, NULL, 0, 0, &id))
				_exit(2);
			usleep(round * 20000);
			close(fd);	/* the execution is cancelled, and ends after */
			_exit(0);
		}
		EXPECT_EQ(0, wait_exit(a));
	}
	seen = party_call(c, P_TEL_EVENTS, 0, 3000);
	EXPECT_EQ(0, seen) TH_LOG("user C received %d events about user A", seen);
	EXPECT_LT(0, party_call(root, P_TEL_EVENTS, 0, 100)) TH_LOG("root's monitor saw none");
	party_end(c);
	party_end(root);
	free(img);
	EXPECT_TRUE(drained());
}

/*
 * Question 5: a telemetry socket opened by root and handed to nobody: its subscription
 * is nobody's (no events about root's processes: the socket's opener and the subscriber
 * must both be the owner's user), and its dumps show root's core as hidden.
 */
TEST_F_TIMEOUT(atk, genl_handed_socket, 300)
{
	struct party *n = calloc(1, sizeof(*n));
	int fd = vn_open(), i;
	struct vneuron_wait w;
	uint32_t prog;
	size_t size;
	void *img;

	ASSERT_NE(NULL, n);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, party_tiny(&img, &size));
	ASSERT_EQ(0, vn_prog_load(fd, img, size, &prog, NULL));
	free(img);
	ASSERT_EQ(0, party_start(n, NOBODY, 0, 1));
	ASSERT_EQ(0, party_call(n, P_SUBSCRIBE, 0, 0));
	for (i = 0; i < 5; i++)
		ASSERT_EQ(0, vn_run_on(fd, prog, 0, NULL, 0, &w));
	EXPECT_EQ(0, party_call(n, P_TEL_EVENTS, 0, 2000));
	EXPECT_EQ(1, party_call(n, P_TEL_HIDDEN, 0, 0)) TH_LOG("root's core shown to nobody");
	party_end(n);
	close(fd);
	EXPECT_TRUE(drained());
}

TEST_F_TIMEOUT(atk, genl_replies_fully_initialised, 300)
{
	struct vneuron_trace_start ts = { .core = 1, .ring_size = 4096 };
	struct vneuron_trace_stop tp = { .core = 1 };
	struct vneuron_reset rs = { .core = 1 };
	struct raw d, e;
	char why[128] = "";
	struct vneuron_wait w;
	uint32_t prog;
	size_t size;
	void *img;
	int fd, n, i;

	ASSERT_EQ(0, raw_open(&d));
	ASSERT_EQ(0, raw_open(&e));
	ASSERT_EQ(0, raw_send(&e, VNEURON_CMD_SUBSCRIBE, 0));
	fd = vn_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, party_tiny(&img, &size));
	ASSERT_EQ(0, vn_prog_load(fd, img, size, &prog, NULL));
	free(img);
	ASSERT_EQ(0, vn_ioctl(fd, VNEURON_IOCTL_TRACE_START, &ts));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, vn_run_on(fd, prog, 1, NULL, 0, &w));
	ASSERT_EQ(0, vn_ioctl(fd, VNEURON_IOCTL_TRACE_STOP, &tp));
	ASSERT_EQ(0, vn_ioctl(fd, VNEURON_IOCTL_RESET, &rs));

	ASSERT_EQ(0, raw_send(&d, VNEURON_CMD_GET_DEVICE, NLM_F_DUMP));
	n = raw_check(&d, 0, true, NULL, why, sizeof(why));
	EXPECT_LT(0, n) TH_LOG("GET_DEVICE: %s", why);
	ASSERT_EQ(0, raw_send(&d, VNEURON_CMD_GET_CORE, NLM_F_DUMP));
	n = raw_check(&d, 0, true, NULL, why, sizeof(why));
	EXPECT_LT(0, n) TH_LOG("GET_CORE: %s", why);
	close(fd);		/* a release event too */
	n = raw_check(&e, 1500, false, NULL, why, sizeof(why));
	EXPECT_LT(8, n) TH_LOG("events: %s (%d)", why, n);
	close(d.fd);
	close(e.fd);
	EXPECT_TRUE(drained());
}

TEST_HARNESS_MAIN
