// SPDX-License-Identifier: GPL-2.0
/*
 * Telemetry over generic netlink (uapi/vneuron_genl.h, docs/genl.md):
 * dumps of devices and cores, and events for subscribers.
 *
 * Events are produced where the work happens (an executor under its lock, an ioctl, a
 * trace session ending) and must never block it: they go into a fixed queue under a
 * spinlock, or are counted as dropped, and a work item sends them. Each subscriber is a
 * netlink socket that asked (VNEURON_CMD_SUBSCRIBE); the work item unicasts it the
 * events it may see, at most VNEURON_GENL_EVENT_BURST a period, non-blocking, and counts
 * what it could not send. A subscriber leaves when it asks or its socket is released
 * (NETLINK_URELEASE), so a reused port id never receives another's events.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "dev_core.h"
#include "device.h"
#include "genl.h"
#include "share.h"
#include "vn_exec.h"
#include "vn_stats.h"
#include "vneuron_genl.h"

/* One event as queued; the attributes it becomes are in vnk_event_fill(). */
struct vnk_event {
	u32 type;
	bool on_core;			/* @device and @core say which */
	bool about_task;		/* @pid and @uid say whose */
	bool unknown_task;		/* about a process no longer known: privileged only */
	bool exec;			/* @seq and (at the end) the status fields */
	u32 device;
	u32 core;
	pid_t pid;
	kuid_t uid;
	u32 status;
	u32 reason;
	u32 stream;
	u32 pc;
	u32 err;
	u64 seq;
	u64 model_ps;
	u64 host_ns;
	u64 trace_dropped;
	u64 ts_ns;
	char msg[48];
};

/**
 * struct vnk_subscriber - a socket receiving events
 * @node: in vnk_subs
 * @portid: its netlink port id
 * @user: the user charged for the subscription (kmod/share.c)
 * @uid: the real uid of whoever opened the socket
 * @uid_ok: the subscriber's real uid was @uid too: it sees the events about @uid's
 *	processes (a socket handed to another user sees none of them)
 * @privileged: it had CAP_PERFMON or CAP_SYS_ADMIN when it subscribed, and so had the
 *	socket's opener: sees every event
 * @dropped: events it missed since its last message
 * @qdropped_seen: the queue's drop count at its last message
 * @period_start: jiffies at the start of its current sending period
 * @sent: messages sent to it in that period
 */
struct vnk_subscriber {
	struct list_head node;
	u32 portid;
	struct vnk_user *user;
	kuid_t uid;
	bool uid_ok;
	bool privileged;
	u64 dropped;
	u64 qdropped_seen;
	unsigned long period_start;
	u32 sent;
};

static struct genl_family vnk_genl_family;

/* The queue; vnk_ev_lock guards it, the counters and vnk_ev_on. */
static DEFINE_SPINLOCK(vnk_ev_lock);
static struct vnk_event *vnk_ev_queue;
static u32 vnk_ev_head, vnk_ev_count;
static u64 vnk_ev_produced, vnk_ev_qdropped;
static bool vnk_ev_on;			/* someone subscribes: queue events */

/*
 * Events about one user the queue holds at most: one user's flood of executions cannot
 * crowd every other user's events, root's monitoring included, out of the queue (its own
 * are dropped, counted as every drop is). A slot per user with events queued, under
 * vnk_ev_lock; events about no process are not limited.
 */
#define VNK_EV_USER_SHARE	(VNEURON_GENL_EVENT_QUEUE / 4)
#define VNK_EV_USERS		64
#define VNK_EV_NOBODY		((uid_t)-1)	/* events about no process: not counted */
#define VNK_EV_UNKNOWN		((uid_t)-2)	/* about an owner no longer known */

static struct {
	uid_t uid;
	u32 queued;
} vnk_ev_users[VNK_EV_USERS];

/* The subscribers; vnk_sub_lock also serialises sending. */
static DEFINE_MUTEX(vnk_sub_lock);
static LIST_HEAD(vnk_subs);
static unsigned int vnk_nr_subs;

static void vnk_ev_work_fn(struct work_struct *w);
static DECLARE_WORK(vnk_ev_work, vnk_ev_work_fn);

/* Whose share of the queue an event takes. */
static uid_t vnk_ev_user(const struct vnk_event *ev)
{
	if (ev->unknown_task)
		return VNK_EV_UNKNOWN;
	return ev->about_task ? from_kuid(&init_user_ns, ev->uid) : VNK_EV_NOBODY;
}

/*
 * Under vnk_ev_lock: one more queued event about @uid (@add 1), or one less (-1).
 * false if it may not be queued: its user holds its share, or too many users do.
 */
static bool vnk_ev_account(uid_t uid, int add)
{
	int i, free = -1;

	lockdep_assert_held(&vnk_ev_lock);
	if (uid == VNK_EV_NOBODY)
		return true;
	for (i = 0; i < VNK_EV_USERS; i++) {
		if (vnk_ev_users[i].queued && vnk_ev_users[i].uid == uid)
			break;
		if (!vnk_ev_users[i].queued && free < 0)
			free = i;
	}
	if (i == VNK_EV_USERS) {
		if (add < 0 || free < 0)
			return false;
		i = free;
		vnk_ev_users[i].uid = uid;
	}
	if (add > 0 && vnk_ev_users[i].queued >= VNK_EV_USER_SHARE)
		return false;
	vnk_ev_users[i].queued += add;
	return true;
}

static void vnk_event_post(struct vnk_event *ev)
{
	unsigned long flags;
	bool kick = false;

	spin_lock_irqsave(&vnk_ev_lock, flags);
	vnk_ev_produced++;
	if (vnk_ev_on) {
		if (vnk_ev_count == VNEURON_GENL_EVENT_QUEUE ||
		    !vnk_ev_account(vnk_ev_user(ev), 1)) {
			vnk_ev_qdropped++;
		} else {
			/* Only now: in an emulated guest a clock read costs microseconds. */
			ev->ts_ns = ktime_get_ns();
			vnk_ev_queue[(vnk_ev_head + vnk_ev_count) % VNEURON_GENL_EVENT_QUEUE] = *ev;
			vnk_ev_count++;
			kick = true;
		}
	}
	spin_unlock_irqrestore(&vnk_ev_lock, flags);
	if (kick)
		queue_work(system_unbound_wq, &vnk_ev_work);
}

void vnk_event_exec(void *arg, const struct vn_exec_status *st, bool end)
{
	struct vnk_dev_core *core = arg;
	struct vnk_event ev = {
		.type = end ? VNEURON_EVENT_EXEC_END : VNEURON_EVENT_EXEC_START,
		.on_core = true, .exec = true,
		.device = core->vdev->index, .core = core->index, .seq = st->seq,
	};

	u64 claim;
	unsigned int seq;

	/* The owner's identity as published at its claim (vnk_dev_core_claim()), whole. */
	do {
		seq = read_seqcount_begin(&core->ev_seq);
		claim = READ_ONCE(core->ev_claim);
		ev.pid = READ_ONCE(core->ev_pid);
		ev.uid = KUIDT_INIT(READ_ONCE(core->ev_uid));
	} while (read_seqcount_retry(&core->ev_seq, seq));
	/*
	 * An execution of an owner that has released the core since (cancelled at its
	 * close, ending after): its owner is no longer known here, so it is nobody's to
	 * see but a privileged monitor's, never an event about no process (everyone's).
	 */
	if (st->owner == claim) {
		ev.about_task = true;
	} else {
		ev.unknown_task = true;
		ev.pid = 0;
		ev.uid = GLOBAL_ROOT_UID;
	}
	if (end) {
		ev.status = st->result;
		ev.reason = st->reason;
		ev.model_ps = st->model_ps;
		ev.host_ns = st->host_ns;
		ev.stream = st->stream;
		ev.pc = st->pc;
	}
	vnk_event_post(&ev);
	if (end && st->result == VN_RES_FAULT) {
		ev.type = VNEURON_EVENT_FAULT;
		vnk_event_post(&ev);
	}
}

void vnk_event_core(struct vnk_dev_core *core, u32 type, pid_t pid, kuid_t uid)
{
	struct vnk_event ev = {
		.type = type, .on_core = true, .about_task = pid != 0,
		.device = core->vdev->index, .core = core->index, .pid = pid, .uid = uid,
	};

	vnk_event_post(&ev);
}

void vnk_event_trace(struct vnk_dev_core *core, u32 type, pid_t pid, kuid_t uid, u64 dropped)
{
	struct vnk_event ev = {
		.type = type, .on_core = true, .about_task = true,
		.device = core->vdev->index, .core = core->index, .pid = pid, .uid = uid,
		.trace_dropped = dropped,
	};

	vnk_event_post(&ev);
}

void vnk_event_error(int err, const char *msg)
{
	struct vnk_event ev = { .type = VNEURON_EVENT_ERROR, .err = err };

	strscpy(ev.msg, msg, sizeof(ev.msg));
	vnk_event_post(&ev);
}

/* ---- sending ---- */

static int vnk_put_u64(struct sk_buff *skb, int attr, u64 v)
{
	return nla_put_u64_64bit(skb, attr, v, VNEURON_A_PAD);
}

static int vnk_event_fill(struct sk_buff *skb, const struct vnk_event *ev, u64 dropped)
{
	if (nla_put_u32(skb, VNEURON_A_EVENT, ev->type) ||
	    vnk_put_u64(skb, VNEURON_A_TIMESTAMP_NS, ev->ts_ns))
		return -EMSGSIZE;
	if (dropped && vnk_put_u64(skb, VNEURON_A_DROPPED, dropped))
		return -EMSGSIZE;
	if (ev->on_core && (nla_put_u32(skb, VNEURON_A_DEVICE, ev->device) ||
			    nla_put_u32(skb, VNEURON_A_CORE, ev->core)))
		return -EMSGSIZE;
	if (ev->about_task &&
	    (nla_put_u32(skb, VNEURON_A_PID, ev->pid) ||
	     nla_put_u32(skb, VNEURON_A_UID, from_kuid_munged(&init_user_ns, ev->uid))))
		return -EMSGSIZE;
	if (ev->exec && vnk_put_u64(skb, VNEURON_A_EXEC_SEQ, ev->seq))
		return -EMSGSIZE;
	switch (ev->type) {
	case VNEURON_EVENT_EXEC_END:
	case VNEURON_EVENT_FAULT:
		if (nla_put_u32(skb, VNEURON_A_STATUS, ev->status) ||
		    nla_put_u32(skb, VNEURON_A_REASON, ev->reason) ||
		    vnk_put_u64(skb, VNEURON_A_MODEL_PS, ev->model_ps) ||
		    vnk_put_u64(skb, VNEURON_A_HOST_NS, ev->host_ns))
			return -EMSGSIZE;
		if (ev->type == VNEURON_EVENT_FAULT &&
		    (nla_put_u32(skb, VNEURON_A_STREAM, ev->stream) ||
		     nla_put_u32(skb, VNEURON_A_PC, ev->pc)))
			return -EMSGSIZE;
		break;
	case VNEURON_EVENT_TRACE_STOP:
		if (vnk_put_u64(skb, VNEURON_A_TRACE_DROPPED, ev->trace_dropped))
			return -EMSGSIZE;
		break;
	case VNEURON_EVENT_ERROR:
		if (nla_put_u32(skb, VNEURON_A_ERRNO, ev->err) ||
		    nla_put_string(skb, VNEURON_A_MESSAGE, ev->msg))
			return -EMSGSIZE;
		break;
	}
	return 0;
}

static void vnk_sub_remove(struct vnk_subscriber *sub)
{
	lockdep_assert_held(&vnk_sub_lock);
	list_del(&sub->node);
	vnk_share_uncharge(sub->user, VNEURON_SHARE_SUBSCRIBERS);
	kfree(sub);
	if (--vnk_nr_subs)
		return;
	spin_lock_irq(&vnk_ev_lock);
	vnk_ev_on = false;
	vnk_ev_head = 0;
	vnk_ev_count = 0;
	memset(vnk_ev_users, 0, sizeof(vnk_ev_users));
	spin_unlock_irq(&vnk_ev_lock);
}

/* One message to one subscriber: 0, or it missed it (counted), or it is gone. */
static void vnk_sub_send(struct vnk_subscriber *sub, const struct vnk_event *ev, u64 qdropped)
{
	u64 dropped = sub->dropped + (qdropped - sub->qdropped_seen);
	struct sk_buff *skb;
	void *hdr;
	int ret;

	if (time_after_eq(jiffies, sub->period_start +
			  msecs_to_jiffies(VNEURON_GENL_EVENT_PERIOD_MS))) {
		sub->period_start = jiffies;
		sub->sent = 0;
	}
	if (sub->sent >= VNEURON_GENL_EVENT_BURST) {
		sub->dropped++;
		return;
	}
	skb = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!skb) {
		sub->dropped++;
		return;
	}
	hdr = genlmsg_put(skb, 0, 0, &vnk_genl_family, 0, VNEURON_CMD_EVENT);
	if (!hdr || vnk_event_fill(skb, ev, dropped)) {
		nlmsg_free(skb);
		sub->dropped++;
		return;
	}
	genlmsg_end(skb, hdr);
	/* Non-blocking: a full socket is the subscriber's loss, counted. */
	ret = genlmsg_unicast(&init_net, skb, sub->portid);
	if (ret == -ECONNREFUSED) {
		vnk_sub_remove(sub);
		return;
	}
	if (ret) {
		sub->dropped++;
		return;
	}
	sub->dropped = 0;
	sub->qdropped_seen = qdropped;
	sub->sent++;
}

static bool vnk_sub_may_see(const struct vnk_subscriber *sub, const struct vnk_event *ev)
{
	if (sub->privileged)
		return true;
	if (ev->unknown_task)
		return false;
	return !ev->about_task || (sub->uid_ok && uid_eq(sub->uid, ev->uid));
}

static void vnk_ev_work_fn(struct work_struct *w)
{
	struct vnk_subscriber *sub, *tmp;
	struct vnk_event ev = { .type = VNEURON_EVENT_DROPPED };
	u64 qdropped;

	mutex_lock(&vnk_sub_lock);
	for (;;) {
		spin_lock_irq(&vnk_ev_lock);
		qdropped = vnk_ev_qdropped;
		if (!vnk_ev_count) {
			spin_unlock_irq(&vnk_ev_lock);
			break;
		}
		ev = vnk_ev_queue[vnk_ev_head];
		vnk_ev_head = (vnk_ev_head + 1) % VNEURON_GENL_EVENT_QUEUE;
		vnk_ev_count--;
		vnk_ev_account(vnk_ev_user(&ev), -1);
		spin_unlock_irq(&vnk_ev_lock);
		list_for_each_entry_safe(sub, tmp, &vnk_subs, node)
			if (vnk_sub_may_see(sub, &ev))
				vnk_sub_send(sub, &ev, qdropped);
		cond_resched();
	}
	/* Misses nobody has been told of yet: say them now, not at some later event. */
	ev = (struct vnk_event){ .type = VNEURON_EVENT_DROPPED, .ts_ns = ktime_get_ns() };
	list_for_each_entry_safe(sub, tmp, &vnk_subs, node) {
		if (!sub->dropped && qdropped == sub->qdropped_seen)
			continue;
		/* Past its budget: the next period's work item tells it. */
		if (sub->sent >= VNEURON_GENL_EVENT_BURST &&
		    time_before(jiffies, sub->period_start +
				msecs_to_jiffies(VNEURON_GENL_EVENT_PERIOD_MS))) {
			queue_work(system_unbound_wq, &vnk_ev_work);
			continue;
		}
		sub->dropped--;		/* this message itself is not a miss */
		vnk_sub_send(sub, &ev, qdropped);
	}
	mutex_unlock(&vnk_sub_lock);
}

/* ---- requests ---- */

/* The credentials of whoever opened the requesting socket. */
static const struct cred *vnk_requester_cred(const struct sk_buff *skb)
{
	const struct sock *sk = NETLINK_CB(skb).sk;

	if (sk && sk->sk_socket && sk->sk_socket->file)
		return sk->sk_socket->file->f_cred;
	return current_cred();
}

static bool vnk_requester_privileged(const struct sk_buff *skb)
{
	return netlink_capable(skb, CAP_PERFMON) || netlink_capable(skb, CAP_SYS_ADMIN);
}

/*
 * Anyone may subscribe (docs/telemetry.md, "Who may subscribe"): what a subscriber
 * receives is filtered by who it is, and the subscriptions are a shared resource, each
 * user's share limited and a reserve kept for privileged monitors (kmod/share.c).
 */
static int vnk_genl_subscribe(struct sk_buff *skb, struct genl_info *info)
{
	struct vnk_subscriber *sub;
	struct vnk_user *user;
	kuid_t opener;

	mutex_lock(&vnk_sub_lock);
	list_for_each_entry(sub, &vnk_subs, node) {
		if (sub->portid == info->snd_portid) {
			mutex_unlock(&vnk_sub_lock);
			return -EALREADY;
		}
	}
	user = vnk_share_charge(VNEURON_SHARE_SUBSCRIBERS, NULL, skb);
	if (IS_ERR(user)) {
		mutex_unlock(&vnk_sub_lock);
		if (PTR_ERR(user) == -EDQUOT) {
			NL_SET_ERR_MSG(info->extack, "this user holds its share of subscriptions");
			return -EDQUOT;
		}
		if (PTR_ERR(user) == -ENOMEM)
			return -ENOMEM;
		NL_SET_ERR_MSG(info->extack, "too many subscribers");
		return -EBUSY;
	}
	sub = kzalloc(sizeof(*sub), GFP_KERNEL_ACCOUNT);
	if (!sub) {
		vnk_share_uncharge(user, VNEURON_SHARE_SUBSCRIBERS);
		mutex_unlock(&vnk_sub_lock);
		return -ENOMEM;
	}
	opener = vnk_requester_cred(skb)->uid;
	sub->portid = info->snd_portid;
	sub->user = user;
	sub->uid = opener;
	sub->uid_ok = uid_eq(opener, current_uid());
	sub->privileged = vnk_requester_privileged(skb);
	sub->period_start = jiffies;
	spin_lock_irq(&vnk_ev_lock);
	sub->qdropped_seen = vnk_ev_qdropped;
	vnk_ev_on = true;
	spin_unlock_irq(&vnk_ev_lock);
	list_add_tail(&sub->node, &vnk_subs);
	vnk_nr_subs++;
	mutex_unlock(&vnk_sub_lock);
	return 0;
}

static int vnk_genl_unsubscribe(struct sk_buff *skb, struct genl_info *info)
{
	struct vnk_subscriber *sub;
	int ret = -ENOENT;

	mutex_lock(&vnk_sub_lock);
	list_for_each_entry(sub, &vnk_subs, node) {
		if (sub->portid == info->snd_portid) {
			vnk_sub_remove(sub);
			ret = 0;
			break;
		}
	}
	mutex_unlock(&vnk_sub_lock);
	return ret;
}

/* The device a request names (VNEURON_A_DEVICE), -1 for all, or -ENODEV. */
static long vnk_requested_device(struct nlattr **attrs, struct netlink_ext_ack *extack)
{
	u32 dev;

	if (!attrs || !attrs[VNEURON_A_DEVICE])
		return -1;
	dev = nla_get_u32(attrs[VNEURON_A_DEVICE]);
	if (!vnk_device_get(dev)) {
		NL_SET_ERR_MSG_ATTR(extack, attrs[VNEURON_A_DEVICE], "no such device");
		return -ENODEV;
	}
	return dev;
}

/* The shared resources' limits and use (uapi 7): VNEURON_A_SHARES. */
static int vnk_shares_fill(struct sk_buff *skb, unsigned int dev)
{
	struct vneuron_share sh[VNEURON_SHARE_COUNT];
	struct nlattr *all, *one;
	u32 k;

	vnk_share_report(sh, dev, false);
	all = nla_nest_start(skb, VNEURON_A_SHARES);
	if (!all)
		return -EMSGSIZE;
	for (k = 0; k < VNEURON_SHARE_COUNT; k++) {
		one = nla_nest_start(skb, k + 1);
		if (!one || nla_put_u32(skb, VNEURON_A_SHARE_TOTAL, sh[k].total) ||
		    nla_put_u32(skb, VNEURON_A_SHARE_PER_USER, sh[k].per_user) ||
		    nla_put_u32(skb, VNEURON_A_SHARE_RESERVED, sh[k].reserved) ||
		    nla_put_u32(skb, VNEURON_A_SHARE_USED, sh[k].used) ||
		    nla_put_u32(skb, VNEURON_A_SHARE_RESERVED_USED, sh[k].reserved_used))
			return -EMSGSIZE;
		nla_nest_end(skb, one);
	}
	nla_nest_end(skb, all);
	return 0;
}

static int vnk_device_fill(struct sk_buff *skb, struct netlink_callback *cb,
			   struct vnk_device *vdev)
{
	u64 size, used, peak, produced, qdropped;
	void *hdr;

	mutex_lock(&vdev->hbm_lock);
	size = vdev->hbm.total;
	used = vdev->hbm.used;
	peak = vdev->hbm.peak;
	mutex_unlock(&vdev->hbm_lock);
	spin_lock_irq(&vnk_ev_lock);
	produced = vnk_ev_produced;
	qdropped = vnk_ev_qdropped;
	spin_unlock_irq(&vnk_ev_lock);

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &vnk_genl_family, NLM_F_MULTI, VNEURON_CMD_GET_DEVICE);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, VNEURON_A_DEVICE, vdev->index) ||
	    nla_put_u32(skb, VNEURON_A_NR_CORES, vdev->core_count) ||
	    vnk_put_u64(skb, VNEURON_A_HBM_SIZE, size) ||
	    vnk_put_u64(skb, VNEURON_A_HBM_USED, used) ||
	    vnk_put_u64(skb, VNEURON_A_HBM_PEAK, peak) ||
	    nla_put_u32(skb, VNEURON_A_UAPI_VERSION, VNEURON_UAPI_VERSION) ||
	    nla_put_string(skb, VNEURON_A_MODULE_VERSION, VNEURON_VERSION) ||
	    vnk_put_u64(skb, VNEURON_A_EVENTS_PRODUCED, produced) ||
	    vnk_put_u64(skb, VNEURON_A_EVENTS_DROPPED, qdropped) ||
	    vnk_shares_fill(skb, vdev->index) ||
	    nla_put_string(skb, VNEURON_A_MODEL_NAME, vdev->model->name)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int vnk_genl_get_device(struct sk_buff *skb, struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	long only = vnk_requested_device(info->attrs, cb->extack);
	struct vnk_device *vdev;
	unsigned long i;

	if (only < -1)
		return only;
	for (i = cb->args[0]; (vdev = vnk_device_get(i)); i++) {
		if (only >= 0 && i != only)
			continue;
		if (vnk_device_fill(skb, cb, vdev))
			break;
	}
	cb->args[0] = i;
	return skb->len;
}

/* What the owner fields say to this requester: 0 hidden, 1 shown, -1 none. */
static int vnk_owner_visibility(const struct sk_buff *req, const struct vnk_dev_core *core)
{
	if (!core->owner)
		return -1;
	if (vnk_requester_privileged(req))
		return 1;
	/* Both the socket's opener and the reader (a dump goes on in recvmsg()'s caller). */
	return uid_eq(vnk_requester_cred(req)->uid, core->owner_uid) &&
	       uid_eq(current_uid(), core->owner_uid);
}

static int vnk_core_stats_fill(struct sk_buff *skb, const struct vn_core_stats *st)
{
	struct nlattr *nest;
	u32 s;

	if (vnk_put_u64(skb, VNEURON_A_EXEC_OK, st->results[VN_RES_OK]) ||
	    vnk_put_u64(skb, VNEURON_A_EXEC_ERROR, st->results[VN_RES_ERROR]) ||
	    vnk_put_u64(skb, VNEURON_A_EXEC_TIMEOUT, st->results[VN_RES_TIMEOUT]) ||
	    vnk_put_u64(skb, VNEURON_A_EXEC_ABORTED, st->results[VN_RES_ABORTED]) ||
	    vnk_put_u64(skb, VNEURON_A_EXEC_FAULT, st->c[VN_STAT_DEVICE_FAULTS].total) ||
	    vnk_put_u64(skb, VNEURON_A_BUSY_NS, st->c[VN_STAT_BUSY_NS].total) ||
	    vnk_put_u64(skb, VNEURON_A_BYTES, st->c[VN_STAT_BYTES_MOVED].total) ||
	    vnk_put_u64(skb, VNEURON_A_FLOPS, st->c[VN_STAT_FLOPS].total) ||
	    vnk_put_u64(skb, VNEURON_A_MODEL_PS, st->model_ps) ||
	    vnk_put_u64(skb, VNEURON_A_HOST_NS, st->host_ns) ||
	    vnk_put_u64(skb, VNEURON_A_HBM_READ, st->hbm_read) ||
	    vnk_put_u64(skb, VNEURON_A_HBM_WRITE, st->hbm_write) ||
	    vnk_put_u64(skb, VNEURON_A_INSTRUCTIONS, st->instructions) ||
	    vnk_put_u64(skb, VNEURON_A_DESCRIPTORS, st->descriptors))
		return -EMSGSIZE;
	nest = nla_nest_start(skb, VNEURON_A_STREAM_BUSY);
	if (!nest)
		return -EMSGSIZE;
	for (s = 0; s < VNEF_STREAMS; s++)
		if (vnk_put_u64(skb, s + 1, st->stream_busy_ps[s]))
			return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int vnk_core_fill(struct sk_buff *skb, struct netlink_callback *cb,
			 struct vnk_dev_core *core)
{
	struct vn_core_stats *st;
	pid_t owner = 0;
	bool traced;
	void *hdr;
	int shown, ret = -EMSGSIZE;

	st = kmalloc(sizeof(*st), GFP_KERNEL_ACCOUNT);
	if (!st)
		return -ENOMEM;
	if (mutex_lock_killable(&core->lock)) {
		kfree(st);
		return -EINTR;
	}
	shown = vnk_owner_visibility(cb->skb, core);
	if (shown > 0)
		owner = pid_vnr(core->owner_pid);
	traced = core->tsession;
	/* The counters of one moment, under the lock that orders claims and resets. */
	vn_core_stats_read(&core->stats, st);
	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &vnk_genl_family, NLM_F_MULTI, VNEURON_CMD_GET_CORE);
	if (!hdr)
		goto out;
	if (nla_put_u32(skb, VNEURON_A_DEVICE, core->vdev->index) ||
	    nla_put_u32(skb, VNEURON_A_CORE, core->index) ||
	    vnk_put_u64(skb, VNEURON_A_TIMESTAMP_NS, ktime_get_ns()) ||
	    (shown == 0 && nla_put_flag(skb, VNEURON_A_OWNER_HIDDEN)) ||
	    nla_put_u32(skb, VNEURON_A_OWNER_PID, owner) ||
	    (shown > 0 && nla_put_u32(skb, VNEURON_A_OWNER_UID,
				      from_kuid_munged(current_user_ns(), core->owner_uid))) ||
	    (traced && nla_put_flag(skb, VNEURON_A_TRACED)) ||
	    vnk_core_stats_fill(skb, st)) {
		genlmsg_cancel(skb, hdr);
		goto out;
	}
	genlmsg_end(skb, hdr);
	ret = 0;
out:
	mutex_unlock(&core->lock);
	kfree(st);
	return ret;
}

static int vnk_genl_get_core(struct sk_buff *skb, struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	long only = vnk_requested_device(info->attrs, cb->extack);
	struct vnk_device *vdev;
	unsigned long d = cb->args[0], c = cb->args[1];
	int ret = 0;

	if (only < -1)
		return only;
	for (; (vdev = vnk_device_get(d)); d++, c = 0) {
		if (only >= 0 && d != only)
			continue;
		for (; c < vdev->core_count; c++) {
			ret = vnk_core_fill(skb, cb, &vdev->cores[c]);
			if (ret)
				goto out;
		}
	}
out:
	cb->args[0] = d;
	cb->args[1] = c;
	/* A full message ends this part of the dump; an error before anything ends it all. */
	if (ret && ret != -EMSGSIZE && !skb->len)
		return ret;
	return skb->len;
}

/* A bad device filter is refused before the dump starts: an NLMSG_ERROR, not a DONE. */
static int vnk_genl_dump_start(struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	long only = vnk_requested_device(info->attrs, cb->extack);

	return only < -1 ? only : 0;
}

/*
 * Requests may carry only the device filter: everything else is refused (strict). With
 * resv_start_op 0 every command also has its header's reserved field and flags checked.
 */
static const struct nla_policy vnk_genl_policy[VNEURON_A_MAX + 1] = {
	[VNEURON_A_DEVICE] = { .type = NLA_U32 },
};

static const struct genl_ops vnk_genl_ops[] = {
	{
		.cmd = VNEURON_CMD_GET_DEVICE,
		.start = vnk_genl_dump_start,
		.dumpit = vnk_genl_get_device,
	},
	{
		.cmd = VNEURON_CMD_GET_CORE,
		.start = vnk_genl_dump_start,
		.dumpit = vnk_genl_get_core,
	},
	{
		.cmd = VNEURON_CMD_SUBSCRIBE,
		.doit = vnk_genl_subscribe,
	},
	{
		.cmd = VNEURON_CMD_UNSUBSCRIBE,
		.doit = vnk_genl_unsubscribe,
	},
};

static struct genl_family vnk_genl_family __ro_after_init = {
	.name = VNEURON_GENL_NAME,
	.version = VNEURON_GENL_VERSION,
	.maxattr = VNEURON_A_MAX,
	.policy = vnk_genl_policy,
	.module = THIS_MODULE,
	.ops = vnk_genl_ops,
	.n_ops = ARRAY_SIZE(vnk_genl_ops),
};

/* A released socket leaves: its port id may be someone else's next. */
static int vnk_genl_notify(struct notifier_block *nb, unsigned long state, void *ptr)
{
	struct netlink_notify *n = ptr;
	struct vnk_subscriber *sub, *tmp;

	if (state != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC ||
	    !net_eq(n->net, &init_net))
		return NOTIFY_DONE;
	mutex_lock(&vnk_sub_lock);
	list_for_each_entry_safe(sub, tmp, &vnk_subs, node)
		if (sub->portid == n->portid)
			vnk_sub_remove(sub);
	mutex_unlock(&vnk_sub_lock);
	return NOTIFY_DONE;
}

static struct notifier_block vnk_genl_nb = {
	.notifier_call = vnk_genl_notify,
};

int vnk_genl_init(void)
{
	int ret;

	vnk_ev_queue = kvcalloc(VNEURON_GENL_EVENT_QUEUE, sizeof(*vnk_ev_queue), GFP_KERNEL);
	if (!vnk_ev_queue)
		return -ENOMEM;
	ret = netlink_register_notifier(&vnk_genl_nb);
	if (ret)
		goto err_free;
	ret = genl_register_family(&vnk_genl_family);
	if (ret)
		goto err_notifier;
	return 0;

err_notifier:
	netlink_unregister_notifier(&vnk_genl_nb);
err_free:
	kvfree(vnk_ev_queue);
	vnk_ev_queue = NULL;
	return ret;
}

void vnk_genl_exit(void)
{
	struct vnk_subscriber *sub, *tmp;

	genl_unregister_family(&vnk_genl_family);
	netlink_unregister_notifier(&vnk_genl_nb);
	mutex_lock(&vnk_sub_lock);
	list_for_each_entry_safe(sub, tmp, &vnk_subs, node)
		vnk_sub_remove(sub);
	mutex_unlock(&vnk_sub_lock);
	/* Nothing queues any more (no subscriber); let a running send finish. */
	cancel_work_sync(&vnk_ev_work);
	kvfree(vnk_ev_queue);
	vnk_ev_queue = NULL;
}
