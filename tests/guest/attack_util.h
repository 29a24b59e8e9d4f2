/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The attacks' shared part (attack_*test.c; issue 25's attacker's questions): ids,
 * users, whether the module drained, and the atk fixture (collectives, two cores,
 * the nodes' group).
 */
#ifndef ATTACK_UTIL_H
#define ATTACK_UTIL_H

/* Each test file uses some of these static functions: marked unused for the others. */

#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <poll.h>
#include <pthread.h>
#include <dirent.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>

#include "comm_util.h"
#include "party.h"
#include "vneuron_genl.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmisleading-indentation"
#include "kselftest_harness.h"

#define UID_A		4201		/* the attacker */
#define UID_B		4202		/* its victim */
#define NOBODY		65534
#define SEC		1000000000ull
#define MS		1000000ull
#define ID_BYTES	VNEURON_COMM_ID_BYTES
#define COUNT		1024		/* elements of the collectives */
#define CANARY		(64 << 10)	/* bytes of a buffer no collective names */
#define OUT_FILL	0x5a
#define CANARY_FILL	0xc3

/* ---- helpers ---- */

__attribute__((unused))
static bool all_bytes(const void *p, size_t n, uint8_t v)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != v)
			return false;
	return true;
}

__attribute__((unused))
static bool drained(void)
{
	static const char *const names[] = {
		"mem_objects", "open_files", "programs", "execs", "comms", "users",
	};
	unsigned int i, tries;

	for (tries = 0; tries < 500; tries++) {
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (vn_counter(names[i]) != 0)
				break;
		if (i == sizeof(names) / sizeof(names[0]))
			return true;
		usleep(10000);
	}
	return false;
}

FIXTURE(atk)
{
	struct vneuron_info info;
	struct node_was nodes;
	bool nodes_set;
};

FIXTURE_SETUP(atk)
{
	int fd = vn_open();

	self->nodes_set = false;
	ASSERT_LE(0, fd) TH_LOG("open %s: %s", VN_DEV, strerror(errno));
	memset(&self->info, 0, sizeof(self->info));
	ASSERT_EQ(0, vn_ioctl(fd, VNEURON_IOCTL_GET_INFO, &self->info));
	close(fd);
	if (!(self->info.caps & VNEURON_CAP_COLLECTIVES) || self->info.core_count < 2)
		SKIP(return, "needs collectives and two cores");
	ASSERT_EQ(0, nodes_for_group(&self->nodes));
	self->nodes_set = true;
}

FIXTURE_TEARDOWN(atk)
{
	if (self->nodes_set)
		nodes_restore(&self->nodes);
}

/* The victim's honest all-reduce, and what the attacker runs against it. */

/* ---- collectives: one rank's program ---- */

struct cc_spec {
	uint32_t opcode;
	enum nd_dtype dt;
	uint64_t count;
	enum nd_alu reduce;
	uint16_t gsize, gstride;
	uint32_t shift;
	uint64_t nin, nout;		/* elements of its tensors */
	bool inplace;			/* one output tensor "x" is both */
};

__attribute__((unused))
static uint32_t dt_bytes(enum nd_dtype dt)
{
	return dt == ND_BF16 ? 2 : 4;
}

__attribute__((unused))
static int cc_spec_image(const struct cc_spec *s, void **img, size_t *size)
{
	struct nd_cc cc = {
		.opcode = s->opcode, .count = s->count, .reduce = s->reduce,
		.group_size = s->gsize, .group_stride = s->gstride, .shift = s->shift,
	};
	struct nd_builder *b;
	int ret;

	if (nd_builder_new("attack", &b))
		return -1;
	if (s->inplace) {
		cc.src = nd_output(b, "x", s->dt, 1, &s->nout);
		cc.dst = cc.src;
	} else {
		cc.src = nd_input(b, "in", s->dt, 1, &s->nin);
		cc.dst = nd_output(b, "out", s->dt, 1, &s->nout);
	}
	nd_collective(b, &cc);
	ret = nd_builder_finish(b, img, size);
	if (ret)
		fprintf(stderr, "# builder: %s\n", nd_builder_error(b));
	nd_builder_free(b);
	return ret;
}

/* What a rank saw, in shared memory. */
#define AR(cnt)		{ VNEF_CC_ALL_REDUCE, ND_FP32, (cnt), ND_ADD, 0, 0, 0, (cnt), (cnt), false }

/* ---- raw generic netlink, for the bytes themselves ---- */

struct raw {
	int fd;
	uint16_t family;
	uint32_t seq;
};

__attribute__((unused))
static int raw_open(struct raw *r)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct nl_sock *s = nl_socket_alloc();
	int fam;

	if (!s || genl_connect(s))
		return -EIO;
	fam = genl_ctrl_resolve(s, VNEURON_GENL_NAME);
	nl_socket_free(s);
	if (fam < 0)
		return -ENOENT;
	r->family = (uint16_t)fam;
	r->seq = 1;
	r->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (r->fd < 0 || bind(r->fd, (struct sockaddr *)&sa, sizeof(sa)))
		return -errno;
	return 0;
}

__attribute__((unused))
static int raw_send(struct raw *r, uint8_t cmd, uint16_t flags)
{
	struct {
		struct nlmsghdr n;
		struct genlmsghdr g;
	} req = {
		.n = { .nlmsg_len = sizeof(req), .nlmsg_type = r->family,
		       .nlmsg_flags = NLM_F_REQUEST | flags, .nlmsg_seq = r->seq++ },
		.g = { .cmd = cmd, .version = VNEURON_GENL_VERSION },
	};

	return send(r->fd, &req, sizeof(req), 0) == sizeof(req) ? 0 : -errno;
}

/* What an attribute list holds: the top level, leaves, or nests (the shares'). */
enum { AT_TOP, AT_LEAVES, AT_NESTS };

/* Attributes from a to end: every padding byte zero, nests too. false on the first not. */
__attribute__((unused))
static bool attrs_clean(const uint8_t *a, const uint8_t *end, int kind, char *why, size_t n)
{
	while (a + NLA_HDRLEN <= end) {
		const struct nlattr *h = (const void *)a;
		size_t len = h->nla_len, al = NLA_ALIGN(len);
		unsigned int type = h->nla_type & NLA_TYPE_MASK;
		int sub = -1;

		if (len < NLA_HDRLEN || a + len > end) {
			snprintf(why, n, "an attribute of length %zu", len);
			return false;
		}
		if (a + al <= end && !all_bytes(a + len, al - len, 0)) {
			snprintf(why, n, "padding after attribute %u", type);
			return false;
		}
		if (type == VNEURON_A_PAD && kind != AT_NESTS && len != NLA_HDRLEN) {
			snprintf(why, n, "a PAD attribute with a payload");
			return false;
		}
		if (kind == AT_TOP && type == VNEURON_A_STREAM_BUSY)
			sub = AT_LEAVES;
		else if (kind == AT_TOP && type == VNEURON_A_SHARES)
			sub = AT_NESTS;
		else if (kind == AT_NESTS)
			sub = AT_LEAVES;
		if (sub >= 0 && !attrs_clean(a + NLA_HDRLEN, a + len, sub, why, n))
			return false;
		a += al;
	}
	if (a != end) {
		snprintf(why, n, "%td bytes after the last attribute", end - a);
		return false;
	}
	return true;
}

/* Read messages until DONE (dump) or for ms: each checked; the count, or -1 at the first bad. */
__attribute__((unused))
static int raw_check(struct raw *r, int ms, bool dump, uint64_t *seen, char *why, size_t wn)
{
	static uint8_t buf[1 << 16];
	struct pollfd p = { .fd = r->fd, .events = POLLIN };
	int count = 0;

	for (;;) {
		ssize_t got;
		uint8_t *m;

		if (!dump && poll(&p, 1, ms) <= 0)
			return count;
		got = recv(r->fd, buf, sizeof(buf), 0);
		if (got < 0)
			return count;
		for (m = buf; m + NLMSG_HDRLEN <= buf + got;) {
			struct nlmsghdr *h = (void *)m;
			struct genlmsghdr *g = NLMSG_DATA(h);

			if (h->nlmsg_len < NLMSG_HDRLEN || m + h->nlmsg_len > buf + got) {
				snprintf(why, wn, "a message of length %u", h->nlmsg_len);
				return -1;
			}
			if (h->nlmsg_type == NLMSG_DONE)
				return count;
			if (h->nlmsg_type == NLMSG_ERROR) {
				snprintf(why, wn, "an error %d", *(int *)NLMSG_DATA(h));
				return -1;
			}
			if (g->reserved) {
				snprintf(why, wn, "genlmsghdr.reserved %u", g->reserved);
				return -1;
			}
			if (!attrs_clean((uint8_t *)g + GENL_HDRLEN, m + h->nlmsg_len, AT_TOP, why, wn))
				return -1;
			if (seen)
				*seen += h->nlmsg_len;
			count++;
			m += NLMSG_ALIGN(h->nlmsg_len);
		}
	}
}

/*
 * Question 5: no uninitialised byte in any reply: the device and core dumps and every
 * kind of event (claims, executions, a reset, a trace session) are walked attribute by
 * attribute, nests included; every padding byte and reserved field is zero.
 */
#endif /* ATTACK_UTIL_H */
