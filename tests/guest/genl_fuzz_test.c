// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A bounded, seeded fuzzer of the generic netlink family "vneuron" (kmod/genl.c) from
 * several processes at once, as root and as two unprivileged users: random commands
 * (every one of the family, unknown ones, the kernel-only EVENT), flags (dump, ack, none,
 * stray bits), header versions and reserved fields, attributes of random types, lengths
 * and payloads (nested, byte-order flagged, truncated, past VNEURON_A_MAX), message
 * lengths that lie; subscriptions taken and left, sockets read, left to overflow with a
 * tiny receive buffer, or closed in the middle of a dump, over many sockets; workers
 * SIGKILLed and replaced. Whatever is sent:
 *   - every reply parses (lengths consistent), and every error is one the family (or
 *     generic netlink for it) documents;
 *   - no worker dies but of a SIGKILL we sent;
 *   - once every worker is gone, no subscription and no user's charge is left.
 * The guest bench fails the run on any kernel warning (KASAN and the others on the debug
 * kernel). Two processes, root's and a user's, run executions meanwhile: events for the
 * subscribers. VN_GENL_FUZZ_SECONDS (30), VN_GENL_FUZZ_PROCS (6), VN_GENL_FUZZ_SEED.
 */
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>

#include "kmod_test.h"
#include "vneuron_genl.h"
#include "vn_program.h"
#include "../host/vnef_build.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include "kselftest_harness.h"

#define GF_MAX_PROCS	12
#define GF_SOCKS	8
#define GF_NBAD		16
#define GF_TIMEOUT	600
#define GF_UID1		65534
#define GF_UID2		4301
#define GF_GID		53280		/* the node's group while the traffic runs */

struct gf_shared {
	int stop;
	uint64_t sent, replies, errors[128], acks, events, dumps_cut, kills;
	uint64_t nbad;
	struct {
		uid_t uid;
		int err;
		char what[96];
	} bad[GF_NBAD];
	pid_t killed[256];
	uint64_t nkilled;
};

static struct gf_shared *gsh;
static uint16_t gf_family;

struct gf_rng {
	uint64_t s;
};

static uint64_t gf_rand(struct gf_rng *r)
{
	r->s ^= r->s << 13;
	r->s ^= r->s >> 7;
	r->s ^= r->s << 17;
	return r->s;
}

static uint32_t gf_below(struct gf_rng *r, uint32_t n)
{
	return n ? (uint32_t)(gf_rand(r) % n) : 0;
}

static bool gf_one_in(struct gf_rng *r, uint32_t n)
{
	return gf_below(r, n) == 0;
}

/* One VectorE MEMSET of a small SBUF tile: the cheapest execution there is. */
static uint8_t *gf_tiny_image(uint64_t *size)
{
	struct vnef_instr *in;
	float v = 1.0f;
	struct vb b;
	uint8_t *img;

	vb_init(&b);
	in = vb_op(&b, VNEURON_ENGINE_VECTOR, VNEF_OP_MEMSET);
	in->dst = vb_ap2(VNEF_MEM_SBUF, VNEF_DT_FP32, 0, 1, 0, 16);
	memcpy(&in->imm[0], &v, 4);
	img = vb_finish(&b, size);
	vb_free(&b);
	return img;
}

static uint64_t gf_env(const char *name, uint64_t def)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : def;
}

static void gf_bad(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void gf_bad(int err, const char *fmt, ...)
{
	uint64_t i = __atomic_fetch_add(&gsh->nbad, 1, __ATOMIC_RELAXED);
	va_list ap;

	if (i >= GF_NBAD)
		return;
	gsh->bad[i].uid = getuid();
	gsh->bad[i].err = err;
	va_start(ap, fmt);
	vsnprintf(gsh->bad[i].what, sizeof(gsh->bad[i].what), fmt, ap);
	va_end(ap);
}

/*
 * The errors docs/genl.md gives the family, and netlink's own: ENOBUFS when a dump cannot
 * start because the socket's receive buffer is full (the fuzzer shrinks some).
 */
static bool gf_documented(int err)
{
	switch (err) {
	case 0: case EINVAL: case EOPNOTSUPP: case ENODEV: case EALREADY: case ENOENT:
	case EBUSY: case EDQUOT: case ENOMEM: case EINTR: case ERANGE: case EMSGSIZE:
	case ENOBUFS:
		return true;
	default:
		return false;
	}
}

struct gf_sock {
	int fd;
	bool subscribed;
};

struct gf_worker {
	struct gf_rng r;
	struct gf_sock s[GF_SOCKS];
	uint8_t buf[8192];
	uint8_t rx[1 << 16];
};

static int gf_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC), one = 1;

	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -1;
	}
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	return fd;
}

/* Random attributes at p (room bytes): their total length. */
static size_t gf_attrs(struct gf_rng *r, uint8_t *p, size_t room, int depth)
{
	size_t used = 0;
	uint32_t n = gf_below(r, 7), i;

	for (i = 0; i < n; i++) {
		static const uint16_t lens[] = { 0, 1, 2, 3, 4, 4, 4, 8, 8, 12, 16, 40, 64 };
		struct nlattr *a = (void *)(p + used);
		size_t len = lens[gf_below(r, sizeof(lens) / sizeof(lens[0]))], k;
		uint32_t dev;

		if (used + NLA_HDRLEN + NLA_ALIGN(64) + 64 > room)
			break;
		switch (gf_below(r, 6)) {
		case 0:
		case 1:
			a->nla_type = VNEURON_A_DEVICE;
			break;
		case 2:
			a->nla_type = (uint16_t)gf_below(r, VNEURON_A_MAX + 8);
			break;
		case 3:
			a->nla_type = (uint16_t)gf_rand(r);
			break;
		default:
			a->nla_type = (uint16_t)gf_below(r, VNEURON_A_MAX + 1) |
				      (gf_one_in(r, 2) ? NLA_F_NESTED : NLA_F_NET_BYTEORDER);
			break;
		}
		if (depth < 2 && (a->nla_type & NLA_F_NESTED) && gf_one_in(r, 2)) {
			len = gf_attrs(r, p + used + NLA_HDRLEN, room - used - NLA_HDRLEN - 64,
				       depth + 1);
		} else {
			for (k = 0; k < len; k++)
				p[used + NLA_HDRLEN + k] = (uint8_t)gf_rand(r);
			if ((a->nla_type & NLA_TYPE_MASK) == VNEURON_A_DEVICE && len == 4) {
				static const uint32_t devs[] = { 0, 1, 2, 99, ~0u };

				dev = devs[gf_below(r, 5)];
				memcpy(p + used + NLA_HDRLEN, &dev, 4);
			}
		}
		a->nla_len = (uint16_t)(NLA_HDRLEN + len);
		if (gf_one_in(r, 24))
			a->nla_len = (uint16_t)gf_rand(r);	/* a lie: past the message */
		used += NLA_HDRLEN + NLA_ALIGN(len);
	}
	return used;
}

/* One request of any shape on socket fd. */
static void gf_send(struct gf_worker *w, int fd)
{
	static const uint8_t cmds[] = {
		VNEURON_CMD_GET_DEVICE, VNEURON_CMD_GET_DEVICE, VNEURON_CMD_GET_CORE,
		VNEURON_CMD_GET_CORE, VNEURON_CMD_SUBSCRIBE, VNEURON_CMD_UNSUBSCRIBE,
		VNEURON_CMD_EVENT, VNEURON_CMD_UNSPEC, __VNEURON_CMD_MAX, 200, 255,
	};
	struct nlmsghdr *h = (void *)w->buf;
	struct genlmsghdr *g = NLMSG_DATA(h);
	struct gf_rng *r = &w->r;
	size_t len;

	memset(w->buf, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	g->cmd = cmds[gf_below(r, sizeof(cmds))];
	g->version = gf_one_in(r, 8) ? (uint8_t)gf_rand(r) : VNEURON_GENL_VERSION;
	g->reserved = gf_one_in(r, 16) ? (uint16_t)gf_rand(r) : 0;
	len = NLMSG_HDRLEN + GENL_HDRLEN +
	      gf_attrs(r, w->buf + NLMSG_HDRLEN + GENL_HDRLEN,
		       sizeof(w->buf) - NLMSG_HDRLEN - GENL_HDRLEN, 0);
	h->nlmsg_len = (uint32_t)len;
	h->nlmsg_type = gf_one_in(r, 64) ? (uint16_t)gf_rand(r) % 40 : gf_family;
	h->nlmsg_flags = NLM_F_REQUEST;
	switch (gf_below(r, 5)) {
	case 0:
		h->nlmsg_flags |= NLM_F_DUMP;
		break;
	case 1:
		h->nlmsg_flags |= NLM_F_ACK;
		break;
	case 2:
		h->nlmsg_flags |= NLM_F_DUMP | NLM_F_ACK;
		break;
	case 3:
		h->nlmsg_flags = (uint16_t)gf_rand(r);
		break;
	}
	h->nlmsg_seq = (uint32_t)gf_rand(r);
	if (gf_one_in(r, 32))
		h->nlmsg_len = (uint32_t)gf_rand(r) % (len + 64);	/* a lie */
	/* A non-generic type would go to another family: keep the controller's harmless. */
	if (h->nlmsg_type != gf_family && h->nlmsg_type != GENL_ID_CTRL)
		h->nlmsg_type = gf_family;
	if (send(fd, w->buf, len, MSG_DONTWAIT) >= 0)
		__atomic_add_fetch(&gsh->sent, 1, __ATOMIC_RELAXED);
}

/* A well-formed SUBSCRIBE or UNSUBSCRIBE with an ack. */
static void gf_sub(struct gf_worker *w, struct gf_sock *s, bool on)
{
	struct {
		struct nlmsghdr n;
		struct genlmsghdr g;
	} req = {
		.n = { .nlmsg_len = sizeof(req), .nlmsg_type = gf_family,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
		       .nlmsg_seq = (uint32_t)gf_rand(&w->r) },
		.g = { .cmd = on ? VNEURON_CMD_SUBSCRIBE : VNEURON_CMD_UNSUBSCRIBE,
		       .version = VNEURON_GENL_VERSION },
	};

	if (send(s->fd, &req, sizeof(req), MSG_DONTWAIT) == sizeof(req))
		s->subscribed = on;
}

/* The replies waiting on fd (at most max datagrams), each checked. */
static void gf_drain(struct gf_worker *w, int fd, int max)
{
	int d;

	for (d = 0; d < max; d++) {
		ssize_t got = recv(fd, w->rx, sizeof(w->rx), MSG_DONTWAIT);
		uint8_t *m;

		if (got < 0) {
			if (errno != EAGAIN && errno != ENOBUFS && errno != EINTR)
				gf_bad(errno, "recv");
			return;
		}
		for (m = w->rx; m + NLMSG_HDRLEN <= w->rx + got;) {
			struct nlmsghdr *h = (void *)m;

			if (h->nlmsg_len < NLMSG_HDRLEN || m + h->nlmsg_len > w->rx + got) {
				gf_bad(0, "a reply of length %u in %zd bytes", h->nlmsg_len, got);
				return;
			}
			__atomic_add_fetch(&gsh->replies, 1, __ATOMIC_RELAXED);
			if (h->nlmsg_type == NLMSG_ERROR) {
				int err = -*(int *)NLMSG_DATA(h);

				if (err < 0 || !gf_documented(err))
					gf_bad(err, "an error reply %d", -err);
				else if (!err)
					__atomic_add_fetch(&gsh->acks, 1, __ATOMIC_RELAXED);
				else
					__atomic_add_fetch(&gsh->errors[err], 1, __ATOMIC_RELAXED);
			} else if (h->nlmsg_type == gf_family) {
				struct genlmsghdr *g = NLMSG_DATA(h);

				if (g->cmd == VNEURON_CMD_EVENT)
					__atomic_add_fetch(&gsh->events, 1, __ATOMIC_RELAXED);
				else if (g->cmd != VNEURON_CMD_GET_DEVICE &&
					 g->cmd != VNEURON_CMD_GET_CORE)
					gf_bad(0, "a reply of command %u", g->cmd);
			} else if (h->nlmsg_type != NLMSG_DONE && h->nlmsg_type != GENL_ID_CTRL) {
				gf_bad(0, "a reply of type %u", h->nlmsg_type);
			}
			m += NLMSG_ALIGN(h->nlmsg_len);
		}
	}
}

static void gf_step(struct gf_worker *w)
{
	struct gf_sock *s = &w->s[gf_below(&w->r, GF_SOCKS)];
	uint32_t c = gf_below(&w->r, 100);
	int small = 1024;

	if (s->fd < 0) {
		s->fd = gf_open();
		s->subscribed = false;
		if (s->fd >= 0 && gf_one_in(&w->r, 6))
			setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
		return;
	}
	if (c < 45) {
		gf_send(w, s->fd);
	} else if (c < 60) {
		gf_sub(w, s, gf_one_in(&w->r, 3) ? false : true);
	} else if (c < 85) {
		gf_drain(w, s->fd, 1 + (int)gf_below(&w->r, 16));
	} else if (c < 93) {
		/* a dump read in part, then the socket closed */
		if (gf_one_in(&w->r, 2))
			gf_drain(w, s->fd, 1);
		close(s->fd);
		s->fd = -1;
		__atomic_add_fetch(&gsh->dumps_cut, 1, __ATOMIC_RELAXED);
	} else {
		usleep(gf_below(&w->r, 3000));
	}
}

static int gf_worker(uint64_t seed, uid_t uid)
{
	static struct gf_worker wk;
	gid_t g = (gid_t)uid;
	uint64_t steps, i;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	memset(&wk, 0, sizeof(wk));
	wk.r.s = seed | 1;
	for (i = 0; i < GF_SOCKS; i++)
		wk.s[i].fd = -1;
	if (uid && (setgroups(1, &g) || setgid(uid) || setuid(uid) || getuid() != uid))
		return 3;
	steps = 500 + gf_below(&wk.r, 5000);
	for (i = 0; i < steps && !__atomic_load_n(&gsh->stop, __ATOMIC_ACQUIRE); i++)
		gf_step(&wk);
	return 0;
}

/*
 * Events for the subscribers: a process of uid running small executions on a core, then
 * releasing it, until told to stop.
 */
static void gf_traffic(uid_t uid, unsigned int core)
{
	/* One VectorE MEMSET of one element, through the program builder's smallest image. */
	static const uint32_t none[1];
	struct vneuron_program_load pl;
	struct vneuron_wait w;
	gid_t g = GF_GID;
	uint8_t *img;
	uint64_t size, id;
	int fd;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (uid && (setgroups(1, &g) || setgid(uid) || setuid(uid)))
		_exit(3);
	img = gf_tiny_image(&size);
	while (img && !__atomic_load_n(&gsh->stop, __ATOMIC_ACQUIRE)) {
		int i;

		fd = open(VN_DEV, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			break;
		pl = (struct vneuron_program_load){ .image_ptr = (uintptr_t)img,
						    .image_size = size };
		if (!vn_ioctl(fd, VNEURON_IOCTL_PROGRAM_LOAD, &pl))
			for (i = 0; i < 5; i++)
				if (!vn_exec_on(fd, pl.handle, core, none, 0, 0, &id))
					vn_wait_for(fd, id, VNEURON_WAIT_FOREVER, &w);
		close(fd);
		/* A trickle: the emulated CPUs are the fuzzers' too. */
		usleep(200000);
	}
	_exit(0);
}

static bool gf_killed(pid_t p)
{
	uint64_t i, n = __atomic_load_n(&gsh->nkilled, __ATOMIC_ACQUIRE);

	for (i = 0; i < n && i < 256; i++)
		if (gsh->killed[i] == p)
			return true;
	return false;
}

static uint64_t gf_now(void)
{
	return vn_now_ns();
}

/* The family's shares as GET_INFO reports them: SUBSCRIBERS used, and users (debugfs). */
static long long gf_subscribers(void)
{
	struct vneuron_info info;
	int fd = open(VN_DEV, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	memset(&info, 0, sizeof(info));
	if (vn_ioctl(fd, VNEURON_IOCTL_GET_INFO, &info)) {
		close(fd);
		return -1;
	}
	close(fd);
	return info.shares[VNEURON_SHARE_SUBSCRIBERS].used;
}

FIXTURE(gf)
{
	struct stat node;
	bool have;
};

/* The node's group lets the unprivileged traffic in (mode 0660, as the module makes). */
FIXTURE_SETUP(gf)
{
	self->have = !stat(VN_DEV, &self->node);
	ASSERT_TRUE(self->have);
	ASSERT_EQ(0, chown(VN_DEV, 0, GF_GID));
	ASSERT_EQ(0, chmod(VN_DEV, 0660));
}

FIXTURE_TEARDOWN(gf)
{
	if (self->have && (chown(VN_DEV, self->node.st_uid, self->node.st_gid) ||
			   chmod(VN_DEV, self->node.st_mode & 07777)))
		TH_LOG("could not restore %s", VN_DEV);
}

TEST_F_TIMEOUT(gf, processes, GF_TIMEOUT)
{
	/* The debug kernel under emulation (VN_GUEST_SLOW) takes half the time for it. */
	uint64_t seconds = gf_env("VN_GENL_FUZZ_SECONDS", getenv("VN_GUEST_SLOW") ? 15 : 30);
	uint64_t procs = gf_env("VN_GENL_FUZZ_PROCS", 6);
	uint64_t seed = gf_env("VN_GENL_FUZZ_SEED", gf_now() ^ ((uint64_t)getpid() << 32));
	static const uid_t uids[3] = { 0, GF_UID1, GF_UID2 };
	pid_t pid[GF_MAX_PROCS] = { 0 };
	struct gf_rng r = { seed | 1 };
	unsigned int abnormal = 0, e;
	struct nl_sock *ns;
	uint64_t end, i, n = 0;
	char line[512];
	size_t len;
	int fam, st;
	pid_t p;

	if (seconds > GF_TIMEOUT - 120)
		seconds = GF_TIMEOUT - 120;
	if (procs < 1 || procs > GF_MAX_PROCS)
		procs = 6;
	printf("# seed %llu (replay with VN_GENL_FUZZ_SEED=%llu), %llu s, %llu processes\n",
	       (unsigned long long)seed, (unsigned long long)seed, (unsigned long long)seconds,
	       (unsigned long long)procs);
	fflush(stdout);
	ns = nl_socket_alloc();
	ASSERT_NE(NULL, ns);
	ASSERT_EQ(0, genl_connect(ns));
	fam = genl_ctrl_resolve(ns, VNEURON_GENL_NAME);
	nl_socket_free(ns);
	ASSERT_LT(0, fam) TH_LOG("no generic netlink family %s", VNEURON_GENL_NAME);
	gf_family = (uint16_t)fam;
	gsh = mmap(NULL, sizeof(*gsh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, gsh);
	ASSERT_EQ(0, prctl(PR_SET_CHILD_SUBREAPER, 1));

	/* Executions of root and of a user: events for the subscribers to filter. */
	for (i = 0; i < 2; i++) {
		p = fork();
		ASSERT_LE(0, p);
		if (!p)
			gf_traffic(i ? GF_UID1 : 0, (unsigned int)i);
	}
	end = gf_now() + seconds * 1000000000ull;
	while (gf_now() < end) {
		for (i = 0; i < procs; i++) {
			if (pid[i] > 0)
				continue;
			pid[i] = fork();
			ASSERT_LE(0, pid[i]);
			if (!pid[i])
				_exit(gf_worker(gf_rand(&r), uids[i % 3]));
			n++;
		}
		usleep(50000 + gf_below(&r, 250000));
		if (gf_one_in(&r, 4)) {
			i = gf_below(&r, (uint32_t)procs);
			if (pid[i] > 0 && gsh->nkilled < 256) {
				gsh->killed[__atomic_fetch_add(&gsh->nkilled, 1, __ATOMIC_RELEASE)] =
					pid[i];
				kill(pid[i], SIGKILL);
				gsh->kills++;
			}
		}
		while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
			for (i = 0; i < procs; i++)
				if (pid[i] == p)
					pid[i] = 0;
			if (!(WIFEXITED(st) && !WEXITSTATUS(st)) &&
			    !(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL && gf_killed(p))) {
				printf("# worker %d ended: status %#x\n", (int)p, st);
				abnormal++;
			}
		}
	}
	__atomic_store_n(&gsh->stop, 1, __ATOMIC_RELEASE);
	while ((p = waitpid(-1, &st, 0)) > 0)
		if (!(WIFEXITED(st) && !WEXITSTATUS(st)) &&
		    !(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL && gf_killed(p))) {
			printf("# worker %d ended: status %#x\n", (int)p, st);
			abnormal++;
		}

	len = snprintf(line, sizeof(line), "# workers %llu (SIGKILLs %llu), requests %llu, "
		       "replies %llu, acks %llu, events %llu, sockets closed mid-way %llu; errors:",
		       (unsigned long long)n, (unsigned long long)gsh->kills,
		       (unsigned long long)gsh->sent, (unsigned long long)gsh->replies,
		       (unsigned long long)gsh->acks, (unsigned long long)gsh->events,
		       (unsigned long long)gsh->dumps_cut);
	for (e = 1; e < 128 && len < sizeof(line); e++)
		if (gsh->errors[e])
			len += snprintf(line + len, sizeof(line) - len, " %s %llu",
					strerrorname_np(e) ?: "?",
					(unsigned long long)gsh->errors[e]);
	printf("%s\n", line);
	for (i = 0; i < gsh->nbad && i < GF_NBAD; i++)
		TH_LOG("uid %u: %s (errno %d)", gsh->bad[i].uid, gsh->bad[i].what,
		       gsh->bad[i].err);
	EXPECT_EQ(0, abnormal);
	EXPECT_EQ(0, gsh->nbad);
	EXPECT_LT(0, gsh->replies);
	/* Every subscriber's socket is gone: nothing of them is left. */
	for (i = 0; i < 250 && (gf_subscribers() != 0 || vn_counter("users") != 0); i++)
		usleep(20000);
	EXPECT_EQ(0, gf_subscribers());
	EXPECT_EQ(0, vn_counter("users"));
}

TEST_HARNESS_MAIN
