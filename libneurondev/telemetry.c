// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Live telemetry: the module's generic netlink family (uapi/vneuron_genl.h) through
 * libnl-genl-3. Two sockets per handle: one for dumps, one that subscribes and receives
 * events, so a dump never has to skip events and an event never ends a dump.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>

#include "nd_internal.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

#define REPLY_TIMEOUT_S		10	/* a kernel that does not answer a request */
#define DUMP_RETRIES		4	/* dumps interrupted by a change (NLM_F_DUMP_INTR) */
#define EVENT_RCVBUF		(4 << 20)
#define RECV_BUF		(64 << 10)	/* a datagram, at most */

struct nd_telemetry {
	struct nl_sock *req;		/* dumps */
	struct nl_sock *ev;		/* SUBSCRIBE, UNSUBSCRIBE and the events */
	struct nl_cb *ev_cb;
	int family;
	int subscribed;
	uint64_t dropped;
	struct nd_error err;
	/* events received and not yet handed out: a ring of q_cap entries */
	struct nd_tel_event *q;
	size_t q_head, q_len, q_cap;
	/* the exchange in progress on the event socket */
	int ev_acked;
	int ev_kerr;
	char ev_kmsg[128];
};

/* What one exchange collected: the callbacks' argument. */
struct xchg {
	struct nd_telemetry *t;
	int done;			/* ACK, DONE or an error seen */
	int kerr;			/* the kernel's -errno, 0 if none */
	char kmsg[128];			/* its extended ack message */
	int bad;			/* a reply that did not parse: -EPROTO */
	char bad_msg[96];
	void *arr;			/* dump results */
	size_t n, cap, elem;
	int (*parse)(struct xchg *x, struct nlattr **tb, void *out);
};

/* Everything the kernel may send, by type; libnl refuses a reply that is too short. */
static struct nla_policy policy[VNEURON_A_MAX + 1] = {
	[VNEURON_A_DEVICE] = { .type = NLA_U32 },
	[VNEURON_A_CORE] = { .type = NLA_U32 },
	[VNEURON_A_NR_CORES] = { .type = NLA_U32 },
	[VNEURON_A_HBM_SIZE] = { .type = NLA_U64 },
	[VNEURON_A_HBM_USED] = { .type = NLA_U64 },
	[VNEURON_A_HBM_PEAK] = { .type = NLA_U64 },
	[VNEURON_A_UAPI_VERSION] = { .type = NLA_U32 },
	[VNEURON_A_MODULE_VERSION] = { .type = NLA_STRING },
	[VNEURON_A_EVENTS_PRODUCED] = { .type = NLA_U64 },
	[VNEURON_A_EVENTS_DROPPED] = { .type = NLA_U64 },
	[VNEURON_A_OWNER_PID] = { .type = NLA_U32 },
	[VNEURON_A_OWNER_UID] = { .type = NLA_U32 },
	[VNEURON_A_OWNER_HIDDEN] = { .type = NLA_FLAG },
	[VNEURON_A_EXEC_OK] = { .type = NLA_U64 },
	[VNEURON_A_EXEC_ERROR] = { .type = NLA_U64 },
	[VNEURON_A_EXEC_TIMEOUT] = { .type = NLA_U64 },
	[VNEURON_A_EXEC_ABORTED] = { .type = NLA_U64 },
	[VNEURON_A_EXEC_FAULT] = { .type = NLA_U64 },
	[VNEURON_A_BUSY_NS] = { .type = NLA_U64 },
	[VNEURON_A_BYTES] = { .type = NLA_U64 },
	[VNEURON_A_FLOPS] = { .type = NLA_U64 },
	[VNEURON_A_MODEL_PS] = { .type = NLA_U64 },
	[VNEURON_A_STREAM_BUSY] = { .type = NLA_NESTED },
	[VNEURON_A_HBM_READ] = { .type = NLA_U64 },
	[VNEURON_A_HBM_WRITE] = { .type = NLA_U64 },
	[VNEURON_A_INSTRUCTIONS] = { .type = NLA_U64 },
	[VNEURON_A_DESCRIPTORS] = { .type = NLA_U64 },
	[VNEURON_A_TRACED] = { .type = NLA_FLAG },
	[VNEURON_A_TIMESTAMP_NS] = { .type = NLA_U64 },
	[VNEURON_A_EVENT] = { .type = NLA_U32 },
	[VNEURON_A_PID] = { .type = NLA_U32 },
	[VNEURON_A_UID] = { .type = NLA_U32 },
	[VNEURON_A_EXEC_SEQ] = { .type = NLA_U64 },
	[VNEURON_A_STATUS] = { .type = NLA_U32 },
	[VNEURON_A_REASON] = { .type = NLA_U32 },
	[VNEURON_A_HOST_NS] = { .type = NLA_U64 },
	[VNEURON_A_STREAM] = { .type = NLA_U32 },
	[VNEURON_A_PC] = { .type = NLA_U32 },
	[VNEURON_A_TRACE_DROPPED] = { .type = NLA_U64 },
	[VNEURON_A_ERRNO] = { .type = NLA_U32 },
	[VNEURON_A_MESSAGE] = { .type = NLA_STRING },
	[VNEURON_A_DROPPED] = { .type = NLA_U64 },
	[VNEURON_A_SHARES] = { .type = NLA_NESTED },
	[VNEURON_A_MODEL_NAME] = { .type = NLA_STRING },
};

/* A share's nest (VNEURON_A_SHARES): its four counts. */
static struct nla_policy share_policy[VNEURON_A_MAX + 1] = {
	[VNEURON_A_SHARE_TOTAL] = { .type = NLA_U32 },
	[VNEURON_A_SHARE_PER_USER] = { .type = NLA_U32 },
	[VNEURON_A_SHARE_RESERVED] = { .type = NLA_U32 },
	[VNEURON_A_SHARE_USED] = { .type = NLA_U32 },
	[VNEURON_A_SHARE_RESERVED_USED] = { .type = NLA_U32 },
};

static const char *const cmd_names[__VNEURON_CMD_MAX] = {
	[VNEURON_CMD_GET_DEVICE] = "GET_DEVICE",
	[VNEURON_CMD_GET_CORE] = "GET_CORE",
	[VNEURON_CMD_SUBSCRIBE] = "SUBSCRIBE",
	[VNEURON_CMD_UNSUBSCRIBE] = "UNSUBSCRIBE",
	[VNEURON_CMD_EVENT] = "EVENT",
};

/* libnl's error codes as errno values (its own names are in nl_geterror()). */
static int nle_errno(int nle)
{
	switch (nle < 0 ? -nle : nle) {
	case NLE_INTR:
	case NLE_DUMP_INTR:
		return EINTR;
	case NLE_BAD_SOCK:
		return EBADF;
	case NLE_AGAIN:
		return EAGAIN;
	case NLE_NOMEM:
		return ENOMEM;
	case NLE_EXIST:
		return EEXIST;
	case NLE_INVAL:
		return EINVAL;
	case NLE_RANGE:
		return ERANGE;
	case NLE_MSGSIZE:
		return EMSGSIZE;
	case NLE_OPNOTSUPP:
		return EOPNOTSUPP;
	case NLE_AF_NOSUPPORT:
		return EAFNOSUPPORT;
	case NLE_OBJ_NOTFOUND:
		return ENOENT;
	case NLE_BUSY:
		return EBUSY;
	case NLE_NOACCESS:
		return EACCES;
	case NLE_PERM:
		return EPERM;
	case NLE_NODEV:
		return ENODEV;
	default:
		return EPROTO;
	}
}

static int tel_err(struct nd_telemetry *t, int code, const char *fmt, ...) ND_PRINTF(3, 4);
static int tel_err(struct nd_telemetry *t, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = nd_vseterr(&t->err, code, fmt, ap);
	va_end(ap);
	return code;
}

/* A libnl failure (a negative NLE_* code) of what, in the library's words. */
static int nl_fail(struct nd_telemetry *t, int nle, const char *what)
{
	return tel_err(t, nle_errno(nle), "vneuron telemetry: %s: %s", what, nl_geterror(nle));
}

/* The kernel refused a request: its errno and, when it gave one, its extended ack. */
static int kernel_fail(struct nd_telemetry *t, int kerr, const char *kmsg, const char *what)
{
	if (kerr == -ENOENT && !strcmp(what, "UNSUBSCRIBE"))
		return tel_err(t, kerr, "vneuron telemetry: UNSUBSCRIBE: not subscribed");
	if (kerr == -EALREADY)
		return tel_err(t, kerr, "vneuron telemetry: SUBSCRIBE: already subscribed");
	if (kerr == -EBUSY)
		return tel_err(t, kerr, "vneuron telemetry: %s: too many subscribers (the module "
			       "allows %d, some kept for privileged monitors)", what,
			       VNEURON_GENL_MAX_SUBSCRIBERS);
	if (kerr == -EDQUOT)
		return tel_err(t, kerr, "vneuron telemetry: %s: this user holds its share of "
			       "subscriptions (module parameter subscribers_per_user)", what);
	return tel_err(t, kerr, "vneuron telemetry: %s: %s%s%s", what, nd_strerror(kerr),
		       kmsg[0] ? " (kernel: " : "", kmsg[0] ? kmsg : "");
}

/* ---- callbacks ---- */

/* The extended ack's message, if the kernel attached one (NETLINK_EXT_ACK). */
static void ext_ack(const struct nlmsgerr *e, char *buf, size_t size)
{
	/* libnl hands over the payload of the NLMSG_ERROR message: its header precedes it */
	const struct nlmsghdr *h = (const void *)((const char *)e - NLMSG_HDRLEN);
	size_t off = sizeof(*e);
	struct nlattr *a;
	int len, rem;

	buf[0] = '\0';
	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(h->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);
	len = (int)h->nlmsg_len - NLMSG_HDRLEN - (int)off;
	if (len <= 0)
		return;
	nla_for_each_attr(a, (struct nlattr *)((char *)e + off), len, rem) {
		if (nla_type(a) == NLMSGERR_ATTR_MSG && nla_len(a) > 0)
			snprintf(buf, size, "%.*s", nla_len(a), (const char *)nla_data(a));
	}
	/* the kernel's messages end in a newline at times */
	len = (int)strlen(buf);
	while (len && buf[len - 1] == '\n')
		buf[--len] = '\0';
}

static int x_err(struct sockaddr_nl *who, struct nlmsgerr *e, void *arg)
{
	struct xchg *x = arg;

	x->done = 1;
	x->kerr = e->error;
	ext_ack(e, x->kmsg, sizeof(x->kmsg));
	return NL_STOP;
}

/*
 * The end of a dump. A dump the kernel refused once it had started (a device filter
 * naming none) ends here too, with the errno as its payload and the extended ack after
 * it: libnl does not look there.
 */
static int x_finish(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *h = nlmsg_hdr(msg);
	struct xchg *x = arg;
	int err;

	x->done = 1;
	if (h->nlmsg_len < NLMSG_HDRLEN + sizeof(int))
		return NL_STOP;
	memcpy(&err, nlmsg_data(h), sizeof(err));
	if (err >= 0)
		return NL_STOP;
	x->kerr = err;
	x->kmsg[0] = '\0';
	if (h->nlmsg_flags & NLM_F_ACK_TLVS) {
		int len = (int)h->nlmsg_len - NLMSG_HDRLEN - (int)NLMSG_ALIGN(sizeof(int)), rem;
		struct nlattr *a;

		if (len > 0)
			nla_for_each_attr(a, (struct nlattr *)((char *)nlmsg_data(h) +
							       NLMSG_ALIGN(sizeof(int))), len, rem)
				if (nla_type(a) == NLMSGERR_ATTR_MSG && nla_len(a) > 0)
					snprintf(x->kmsg, sizeof(x->kmsg), "%.*s", nla_len(a),
						 (const char *)nla_data(a));
	}
	return NL_STOP;
}

static int bad_reply(struct xchg *x, const char *fmt, const char *detail)
{
	if (!x->bad) {
		x->bad = 1;
		snprintf(x->bad_msg, sizeof(x->bad_msg), fmt, detail);
	}
	return NL_SKIP;
}

/* One message of a dump: parsed into the next array entry. */
static int x_valid(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[VNEURON_A_MAX + 1];
	struct xchg *x = arg;
	void *out;
	int e;

	e = genlmsg_parse(nlmsg_hdr(msg), 0, tb, VNEURON_A_MAX, policy);
	if (e < 0)
		return bad_reply(x, "a reply did not parse: %s", nl_geterror(e));
	if (x->n == x->cap) {
		size_t cap = x->cap ? 2 * x->cap : 8;
		void *p = realloc(x->arr, cap * x->elem);

		if (!p)
			return bad_reply(x, "%s", "out of memory");
		x->arr = p;
		x->cap = cap;
	}
	out = (char *)x->arr + x->n * x->elem;
	memset(out, 0, x->elem);
	if (x->parse(x, tb, out))
		return NL_SKIP;
	x->n++;
	return NL_OK;
}

/* Which attributes a message had: bit a for attribute a. */
static uint64_t attrs_of(struct nlattr **tb)
{
	uint64_t m = 0;
	int a;

	for (a = 1; a <= VNEURON_A_MAX && a < 64; a++)
		if (tb[a])
			m |= 1ull << a;
	return m;
}

static uint32_t u32_or(struct nlattr **tb, int a, uint32_t dflt)
{
	return tb[a] ? nla_get_u32(tb[a]) : dflt;
}

static uint64_t u64_of(struct nlattr **tb, int a)
{
	return tb[a] ? nla_get_u64(tb[a]) : 0;
}

/* VNEURON_A_SHARES: a nest per kind, of type kind + 1; kinds newer than ours skipped. */
static int parse_shares(struct xchg *x, struct nlattr *all, struct nd_tel_device *d)
{
	struct nlattr *tb[VNEURON_A_MAX + 1], *a;
	int rem, k;

	if (!all)
		return 0;
	nla_for_each_nested(a, all, rem) {
		k = nla_type(a) - 1;
		if (k < 0 || k >= VNEURON_SHARE_COUNT)
			continue;
		if (nla_parse_nested(tb, VNEURON_A_MAX, a, share_policy) < 0)
			return bad_reply(x, "%s", "a share did not parse"), -1;
		d->shares[k].total = u32_or(tb, VNEURON_A_SHARE_TOTAL, 0);
		d->shares[k].per_user = u32_or(tb, VNEURON_A_SHARE_PER_USER, 0);
		d->shares[k].reserved = u32_or(tb, VNEURON_A_SHARE_RESERVED, 0);
		d->shares[k].used = u32_or(tb, VNEURON_A_SHARE_USED, 0);
		d->shares[k].reserved_used = u32_or(tb, VNEURON_A_SHARE_RESERVED_USED, 0);
		if ((uint32_t)k + 1 > d->nr_shares)
			d->nr_shares = (uint32_t)k + 1;
	}
	return 0;
}

static int parse_device(struct xchg *x, struct nlattr **tb, void *out)
{
	struct nd_tel_device *d = out;

	if (!tb[VNEURON_A_DEVICE])
		return bad_reply(x, "%s", "a device without VNEURON_A_DEVICE"), -1;
	d->attrs = attrs_of(tb);
	d->device = nla_get_u32(tb[VNEURON_A_DEVICE]);
	d->nr_cores = u32_or(tb, VNEURON_A_NR_CORES, 0);
	d->hbm_size = u64_of(tb, VNEURON_A_HBM_SIZE);
	d->hbm_used = u64_of(tb, VNEURON_A_HBM_USED);
	d->hbm_peak = u64_of(tb, VNEURON_A_HBM_PEAK);
	d->uapi_version = u32_or(tb, VNEURON_A_UAPI_VERSION, 0);
	if (tb[VNEURON_A_MODULE_VERSION])
		nla_strlcpy(d->module_version, tb[VNEURON_A_MODULE_VERSION],
			    sizeof(d->module_version));
	d->events_produced = u64_of(tb, VNEURON_A_EVENTS_PRODUCED);
	d->events_dropped = u64_of(tb, VNEURON_A_EVENTS_DROPPED);
	/* A module before VNEURON_A_MODEL_NAME had only trn1. */
	if (tb[VNEURON_A_MODEL_NAME])
		nla_strlcpy(d->model, tb[VNEURON_A_MODEL_NAME], sizeof(d->model));
	else
		snprintf(d->model, sizeof(d->model), "%s", "trn1");
	return parse_shares(x, tb[VNEURON_A_SHARES], d);
}

static int parse_core(struct xchg *x, struct nlattr **tb, void *out)
{
	struct nd_tel_core *c = out;
	struct nlattr *a;
	int rem;

	if (!tb[VNEURON_A_DEVICE] || !tb[VNEURON_A_CORE])
		return bad_reply(x, "%s", "a core without VNEURON_A_DEVICE or _CORE"), -1;
	c->attrs = attrs_of(tb);
	c->device = nla_get_u32(tb[VNEURON_A_DEVICE]);
	c->core = nla_get_u32(tb[VNEURON_A_CORE]);
	c->owner_pid = u32_or(tb, VNEURON_A_OWNER_PID, 0);
	c->owner_uid = u32_or(tb, VNEURON_A_OWNER_UID, 0);
	c->owner_hidden = !!tb[VNEURON_A_OWNER_HIDDEN];
	c->traced = !!tb[VNEURON_A_TRACED];
	c->exec_ok = u64_of(tb, VNEURON_A_EXEC_OK);
	c->exec_error = u64_of(tb, VNEURON_A_EXEC_ERROR);
	c->exec_timeout = u64_of(tb, VNEURON_A_EXEC_TIMEOUT);
	c->exec_aborted = u64_of(tb, VNEURON_A_EXEC_ABORTED);
	c->exec_fault = u64_of(tb, VNEURON_A_EXEC_FAULT);
	c->busy_ns = u64_of(tb, VNEURON_A_BUSY_NS);
	c->bytes = u64_of(tb, VNEURON_A_BYTES);
	c->flops = u64_of(tb, VNEURON_A_FLOPS);
	c->model_ps = u64_of(tb, VNEURON_A_MODEL_PS);
	c->hbm_read = u64_of(tb, VNEURON_A_HBM_READ);
	c->hbm_write = u64_of(tb, VNEURON_A_HBM_WRITE);
	c->instructions = u64_of(tb, VNEURON_A_INSTRUCTIONS);
	c->descriptors = u64_of(tb, VNEURON_A_DESCRIPTORS);
	c->timestamp_ns = u64_of(tb, VNEURON_A_TIMESTAMP_NS);
	if (tb[VNEURON_A_STREAM_BUSY]) {
		/* one u64 per stream, of type stream + 1; padding and later types are skipped */
		nla_for_each_nested(a, tb[VNEURON_A_STREAM_BUSY], rem) {
			int s = nla_type(a) - 1;

			if (s < 0 || s >= ND_TEL_STREAMS || nla_type(a) == VNEURON_A_PAD)
				continue;
			if (nla_len(a) != 8)
				return bad_reply(x, "%s", "a stream's busy time is not a u64"), -1;
			c->stream_busy_ps[s] = nla_get_u64(a);
			if ((unsigned int)s + 1 > c->nr_streams)
				c->nr_streams = (unsigned int)s + 1;
		}
	}
	return 0;
}

static void parse_event(struct nlattr **tb, struct nd_tel_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->attrs = attrs_of(tb);
	ev->type = u32_or(tb, VNEURON_A_EVENT, VNEURON_EVENT_UNSPEC);
	ev->timestamp_ns = u64_of(tb, VNEURON_A_TIMESTAMP_NS);
	ev->device = u32_or(tb, VNEURON_A_DEVICE, ~0u);
	ev->core = u32_or(tb, VNEURON_A_CORE, ~0u);
	ev->pid = u32_or(tb, VNEURON_A_PID, 0);
	ev->uid = u32_or(tb, VNEURON_A_UID, 0);
	ev->exec_seq = u64_of(tb, VNEURON_A_EXEC_SEQ);
	ev->status = u32_or(tb, VNEURON_A_STATUS, 0);
	ev->reason = u32_or(tb, VNEURON_A_REASON, 0);
	ev->model_ps = u64_of(tb, VNEURON_A_MODEL_PS);
	ev->host_ns = u64_of(tb, VNEURON_A_HOST_NS);
	ev->stream = u32_or(tb, VNEURON_A_STREAM, VNEURON_STREAM_NONE);
	ev->pc = u32_or(tb, VNEURON_A_PC, 0);
	ev->trace_dropped = u64_of(tb, VNEURON_A_TRACE_DROPPED);
	ev->err = u32_or(tb, VNEURON_A_ERRNO, 0);
	if (tb[VNEURON_A_MESSAGE])
		nla_strlcpy(ev->message, tb[VNEURON_A_MESSAGE], sizeof(ev->message));
	ev->dropped = u64_of(tb, VNEURON_A_DROPPED);
}

static int queue_push(struct nd_telemetry *t, const struct nd_tel_event *ev)
{
	if (t->q_len == t->q_cap) {
		size_t cap = t->q_cap ? 2 * t->q_cap : 64, i;
		struct nd_tel_event *q = malloc(cap * sizeof(*q));

		if (!q)
			return -ENOMEM;
		for (i = 0; i < t->q_len; i++)
			q[i] = t->q[(t->q_head + i) % t->q_cap];
		free(t->q);
		t->q = q;
		t->q_cap = cap;
		t->q_head = 0;
	}
	t->q[(t->q_head + t->q_len) % t->q_cap] = *ev;
	t->q_len++;
	return 0;
}

/* The event socket's callbacks: events are queued, acks end an exchange. */
static int ev_valid(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[VNEURON_A_MAX + 1];
	struct nd_telemetry *t = arg;
	struct nd_tel_event ev;
	struct genlmsghdr *g;

	if (!genlmsg_valid_hdr(nlmsg_hdr(msg), 0))
		return NL_SKIP;
	g = genlmsg_hdr(nlmsg_hdr(msg));
	if (g->cmd != VNEURON_CMD_EVENT)
		return NL_SKIP;
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, VNEURON_A_MAX, policy) < 0) {
		/* an event we cannot read is still an event the caller missed */
		t->dropped++;
		return NL_SKIP;
	}
	parse_event(tb, &ev);
	t->dropped += ev.dropped;
	if (queue_push(t, &ev))
		t->dropped++;
	return NL_OK;
}

static int ev_ack(struct nl_msg *msg, void *arg)
{
	struct nd_telemetry *t = arg;

	t->ev_acked = 1;
	t->ev_kerr = 0;
	return NL_OK;
}

/* Events are unsolicited: no sequence number to match (the callback set, not the socket's). */
static int ev_seq_any(struct nl_msg *msg, void *arg)
{
	return NL_OK;
}

static int ev_error(struct sockaddr_nl *who, struct nlmsgerr *e, void *arg)
{
	struct nd_telemetry *t = arg;

	t->ev_acked = 1;
	t->ev_kerr = e->error;
	ext_ack(e, t->ev_kmsg, sizeof(t->ev_kmsg));
	/* skip, not stop: libnl would turn a stop into a failed read */
	return NL_SKIP;
}

/* ---- the handle ---- */

static int sock_new(struct nd_telemetry *t, struct nl_sock **skp, struct nd_error *err)
{
	struct nl_sock *sk = nl_socket_alloc();
	int e, one = 1;

	*skp = NULL;
	if (!sk)
		return nd_seterr(err, ENOMEM, "vneuron telemetry: out of memory");
	e = genl_connect(sk);
	if (e < 0) {
		nl_socket_free(sk);
		return nd_seterr(err, nle_errno(e), "vneuron telemetry: cannot open a generic "
				 "netlink socket: %s", nl_geterror(e));
	}
	/* the kernel's reason for refusing a request comes back in the ack (best effort) */
	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	/*
	 * One recvmsg() per datagram, no peeking at its size first: the kernel never sends
	 * more than 32 KiB at once (a dump's part, netlink_recvmsg()), events far less.
	 */
	e = nl_socket_set_msg_buf_size(sk, RECV_BUF);
	if (e < 0) {
		nl_socket_free(sk);
		return nd_seterr(err, nle_errno(e), "vneuron telemetry: %s", nl_geterror(e));
	}
	*skp = sk;
	return 0;
}

int nd_telemetry_open(struct nd_telemetry **tp, struct nd_error *err)
{
	struct timeval tv = { .tv_sec = REPLY_TIMEOUT_S };
	struct nd_telemetry *t;
	int e, one = 1;

	if (err) {
		err->code = 0;
		err->msg[0] = '\0';
	}
	if (!tp)
		return nd_seterr(err, EINVAL, "nd_telemetry_open: tp is NULL");
	*tp = NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return nd_seterr(err, ENOMEM, "vneuron telemetry: out of memory");
	e = sock_new(t, &t->req, err);
	if (!e)
		e = sock_new(t, &t->ev, err);
	if (e)
		goto fail;
	e = genl_ctrl_resolve(t->req, VNEURON_GENL_NAME);
	if (e == -NLE_OBJ_NOTFOUND) {
		e = nd_seterr(err, ENOENT, "the vneuron module is not loaded (no generic netlink "
			      "family '%s')", VNEURON_GENL_NAME);
		goto fail;
	}
	if (e < 0) {
		e = nd_seterr(err, nle_errno(e), "vneuron telemetry: cannot resolve the generic "
			      "netlink family '%s': %s", VNEURON_GENL_NAME, nl_geterror(e));
		goto fail;
	}
	t->family = e;

	/* dumps: blocking, bounded by a receive timeout; errors come without asking */
	nl_socket_disable_auto_ack(t->req);
	setsockopt(nl_socket_get_fd(t->req), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));

	/*
	 * events: unsolicited (no sequence numbers to check), non-blocking for poll();
	 * a full socket is counted by the module (VNEURON_A_DROPPED), so ENOBUFS is off.
	 */
	nl_socket_disable_seq_check(t->ev);
	nl_socket_set_buffer_size(t->ev, EVENT_RCVBUF, 0);
	setsockopt(nl_socket_get_fd(t->ev), SOL_NETLINK, NETLINK_NO_ENOBUFS, &one, sizeof(one));
	e = nl_socket_set_nonblocking(t->ev);
	if (e < 0) {
		e = nd_seterr(err, nle_errno(e), "vneuron telemetry: %s", nl_geterror(e));
		goto fail;
	}
	t->ev_cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!t->ev_cb) {
		e = nd_seterr(err, ENOMEM, "vneuron telemetry: out of memory");
		goto fail;
	}
	nl_cb_set(t->ev_cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, ev_seq_any, NULL);
	nl_cb_set(t->ev_cb, NL_CB_VALID, NL_CB_CUSTOM, ev_valid, t);
	nl_cb_set(t->ev_cb, NL_CB_ACK, NL_CB_CUSTOM, ev_ack, t);
	nl_cb_err(t->ev_cb, NL_CB_CUSTOM, ev_error, t);
	*tp = t;
	return 0;
fail:
	nd_telemetry_close(t);
	return e;
}

void nd_telemetry_close(struct nd_telemetry *t)
{
	if (!t)
		return;
	/* closing the socket ends the subscription in the module too */
	if (t->ev_cb)
		nl_cb_put(t->ev_cb);
	if (t->ev)
		nl_socket_free(t->ev);
	if (t->req)
		nl_socket_free(t->req);
	free(t->q);
	free(t);
}

const char *nd_telemetry_error(const struct nd_telemetry *t)
{
	return t ? t->err.msg : "no telemetry handle";
}

int nd_telemetry_fd(const struct nd_telemetry *t)
{
	return t ? nl_socket_get_fd(t->ev) : -1;
}

uint64_t nd_telemetry_dropped(const struct nd_telemetry *t)
{
	return t ? t->dropped : 0;
}

uint64_t nd_tel_core_execs(const struct nd_tel_core *c)
{
	return c->exec_ok + c->exec_error + c->exec_timeout + c->exec_aborted + c->exec_fault;
}

/* A counter's growth; a counter that went back (never: they count since load) gives 0. */
static uint64_t delta(uint64_t a, uint64_t b)
{
	return b > a ? b - a : 0;
}

static double share(uint64_t part, uint64_t whole)
{
	double v = whole ? (double)part / (double)whole : 0.0;

	return v > 1.0 ? 1.0 : v;
}

int nd_tel_core_rates(const struct nd_tel_core *prev, const struct nd_tel_core *cur,
		      struct nd_tel_rates *r)
{
	uint64_t dt;
	unsigned int s;

	if (!prev || !cur || !r || prev->device != cur->device || prev->core != cur->core)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	dt = delta(prev->timestamp_ns, cur->timestamp_ns);
	r->interval_s = (double)dt * 1e-9;
	r->execs = delta(nd_tel_core_execs(prev), nd_tel_core_execs(cur));
	r->faults = delta(prev->exec_fault, cur->exec_fault);
	r->model_ps = delta(prev->model_ps, cur->model_ps);
	for (s = 0; s < VNEF_ENGINES; s++)
		r->engine[s] = share(delta(prev->stream_busy_ps[s], cur->stream_busy_ps[s]),
				     r->model_ps);
	for (s = 0; s < VNEF_DMA_QUEUES; s++) {
		unsigned int q = VNEF_STREAM_DMA(s);

		r->dma_queue[s] = share(delta(prev->stream_busy_ps[q], cur->stream_busy_ps[q]),
					r->model_ps);
		if (r->dma_queue[s] > r->dma)
			r->dma = r->dma_queue[s];
	}
	if (dt) {
		r->execs_per_s = (double)r->execs / r->interval_s;
		r->bytes_per_s = (double)delta(prev->bytes, cur->bytes) / r->interval_s;
	}
	if (r->model_ps) {
		r->model_flops = (double)delta(prev->flops, cur->flops) /
				 ((double)r->model_ps * 1e-12);
		r->streams_busy = (double)delta(prev->busy_ns, cur->busy_ns) * 1000.0 /
				  (double)r->model_ps;
	}
	return 0;
}

/* ---- dumps ---- */

static int dump(struct nd_telemetry *t, uint8_t cmd, int device, struct xchg *x)
{
	const char *what = cmd_names[cmd];
	struct nl_msg *msg;
	struct nl_cb *cb;
	int attempt, e = 0;

	for (attempt = 0; attempt < DUMP_RETRIES; attempt++) {
		x->n = 0;
		x->done = 0;
		x->kerr = 0;
		x->kmsg[0] = '\0';
		x->bad = 0;
		msg = nlmsg_alloc();
		if (!msg)
			return tel_err(t, ENOMEM, "vneuron telemetry: out of memory");
		if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, t->family, 0, NLM_F_DUMP, cmd,
				 VNEURON_GENL_VERSION) ||
		    (device >= 0 && nla_put_u32(msg, VNEURON_A_DEVICE, (uint32_t)device) < 0)) {
			nlmsg_free(msg);
			return tel_err(t, ENOMEM, "vneuron telemetry: %s: message too small", what);
		}
		e = nl_send_auto(t->req, msg);
		nlmsg_free(msg);
		if (e < 0)
			return nl_fail(t, e, what);
		cb = nl_cb_alloc(NL_CB_DEFAULT);
		if (!cb)
			return tel_err(t, ENOMEM, "vneuron telemetry: out of memory");
		nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, x_valid, x);
		nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, x_finish, x);
		nl_cb_err(cb, NL_CB_CUSTOM, x_err, x);
		e = nl_recvmsgs(t->req, cb);
		nl_cb_put(cb);
		if (x->kerr)
			return kernel_fail(t, x->kerr, x->kmsg, what);
		if (e == -NLE_DUMP_INTR)
			continue;	/* the set changed under the dump: again */
		if (e == -NLE_AGAIN)
			return tel_err(t, ETIMEDOUT, "vneuron telemetry: %s: no answer from the "
				       "module in %d s", what, REPLY_TIMEOUT_S);
		if (e < 0)
			return nl_fail(t, e, what);
		if (x->bad)
			return tel_err(t, EPROTO, "vneuron telemetry: %s: %s", what, x->bad_msg);
		return (int)x->n;
	}
	return tel_err(t, EAGAIN, "vneuron telemetry: %s: the dump was interrupted %d times",
		       what, DUMP_RETRIES);
}

int nd_telemetry_devices(struct nd_telemetry *t, int device, struct nd_tel_device **devs)
{
	struct xchg x = { .t = t, .elem = sizeof(struct nd_tel_device), .parse = parse_device };
	int n;

	if (!t || !devs)
		return -EINVAL;
	*devs = NULL;
	n = dump(t, VNEURON_CMD_GET_DEVICE, device, &x);
	if (n <= 0) {
		free(x.arr);
		if (n == 0 && device >= 0)
			return tel_err(t, ENODEV, "vneuron telemetry: no device %d", device);
		return n;
	}
	*devs = x.arr;
	return n;
}

int nd_telemetry_cores(struct nd_telemetry *t, int device, struct nd_tel_core **cores)
{
	struct xchg x = { .t = t, .elem = sizeof(struct nd_tel_core), .parse = parse_core };
	int n;

	if (!t || !cores)
		return -EINVAL;
	*cores = NULL;
	n = dump(t, VNEURON_CMD_GET_CORE, device, &x);
	if (n <= 0) {
		free(x.arr);
		return n;
	}
	*cores = x.arr;
	return n;
}

/* ---- events ---- */

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * Read what the event socket has (one datagram), waiting up to timeout_ms for it.
 * 1 if something was read, 0 if nothing came, -errno.
 */
static int ev_read(struct nd_telemetry *t, int timeout_ms)
{
	struct pollfd p = { .fd = nl_socket_get_fd(t->ev), .events = POLLIN };
	int e, pass;

	for (pass = 0; pass < 2; pass++) {
		e = nl_recvmsgs(t->ev, t->ev_cb);
		if (e >= 0)
			return 1;
		if (e != -NLE_AGAIN)
			return nl_fail(t, e, "reading events");
		if (!timeout_ms || pass)
			return 0;
		e = poll(&p, 1, timeout_ms);
		if (e < 0)
			return tel_err(t, errno, "vneuron telemetry: poll: %s", nd_strerror(errno));
		if (!e)
			return 0;
	}
	return 0;
}

/* Send a request on the event socket and wait for its ack (events are queued meanwhile). */
static int ev_request(struct nd_telemetry *t, uint8_t cmd)
{
	uint64_t deadline = now_ms() + REPLY_TIMEOUT_S * 1000;
	const char *what = cmd_names[cmd];
	struct nl_msg *msg = nlmsg_alloc();
	int e;

	if (!msg)
		return tel_err(t, ENOMEM, "vneuron telemetry: out of memory");
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, t->family, 0, 0, cmd,
			 VNEURON_GENL_VERSION)) {
		nlmsg_free(msg);
		return tel_err(t, ENOMEM, "vneuron telemetry: %s: message too small", what);
	}
	t->ev_acked = 0;
	t->ev_kerr = 0;
	t->ev_kmsg[0] = '\0';
	e = nl_send_auto(t->ev, msg);
	nlmsg_free(msg);
	if (e < 0)
		return nl_fail(t, e, what);
	while (!t->ev_acked) {
		uint64_t now = now_ms();

		if (now >= deadline)
			return tel_err(t, ETIMEDOUT, "vneuron telemetry: %s: no answer from the "
				       "module in %d s", what, REPLY_TIMEOUT_S);
		e = ev_read(t, (int)(deadline - now));
		if (e < 0)
			return e;
	}
	if (t->ev_kerr)
		return kernel_fail(t, t->ev_kerr, t->ev_kmsg, what);
	return 0;
}

int nd_telemetry_subscribe(struct nd_telemetry *t)
{
	int e;

	if (!t)
		return -EINVAL;
	e = ev_request(t, VNEURON_CMD_SUBSCRIBE);
	if (!e || e == -EALREADY)
		t->subscribed = 1;
	return e;
}

int nd_telemetry_unsubscribe(struct nd_telemetry *t)
{
	int e;

	if (!t)
		return -EINVAL;
	e = ev_request(t, VNEURON_CMD_UNSUBSCRIBE);
	if (!e || e == -ENOENT)
		t->subscribed = 0;
	return e;
}

int nd_telemetry_next_event(struct nd_telemetry *t, struct nd_tel_event *ev, int timeout_ms)
{
	uint64_t deadline = timeout_ms > 0 ? now_ms() + (uint64_t)timeout_ms : 0;
	int e;

	if (!t || !ev)
		return -EINVAL;
	for (;;) {
		int wait;

		if (t->q_len) {
			*ev = t->q[t->q_head];
			t->q_head = (t->q_head + 1) % t->q_cap;
			t->q_len--;
			return 1;
		}
		if (timeout_ms < 0) {
			wait = -1;
		} else if (timeout_ms == 0) {
			wait = 0;
		} else {
			uint64_t now = now_ms();

			wait = now >= deadline ? 0 : (int)(deadline - now);
		}
		e = ev_read(t, wait);
		if (e < 0)
			return e;
		/* a datagram without an event (a stray ack) does not end the wait early */
		if (!e && !t->q_len &&
		    (timeout_ms == 0 || (timeout_ms > 0 && now_ms() >= deadline)))
			return 0;
	}
}

const char *nd_tel_event_name(uint32_t type)
{
	static const char *const names[__VNEURON_EVENT_MAX] = {
		[VNEURON_EVENT_EXEC_START] = "exec_start",
		[VNEURON_EVENT_EXEC_END] = "exec_end",
		[VNEURON_EVENT_FAULT] = "fault",
		[VNEURON_EVENT_CORE_CLAIM] = "claim",
		[VNEURON_EVENT_CORE_RELEASE] = "release",
		[VNEURON_EVENT_RESET] = "reset",
		[VNEURON_EVENT_TRACE_START] = "trace_start",
		[VNEURON_EVENT_TRACE_STOP] = "trace_stop",
		[VNEURON_EVENT_ERROR] = "error",
		[VNEURON_EVENT_DROPPED] = "dropped",
	};

	return type < __VNEURON_EVENT_MAX && names[type] ? names[type] : "?";
}
