// SPDX-License-Identifier: GPL-2.0
/*
 * The resources every user of the module shares, and each user's charges: no user can
 * take so much of one that another user, or a privileged monitor, is locked out.
 *
 * Each kind (enum vneuron_share_kind) has a module-wide total, a per-user limit and a
 * reserve, module parameters writable by root at any time (docs/security.md gives each
 * default and why); HBM has them per device, in percent of its
 * budget. A charge by an unprivileged caller is refused with -EDQUOT once its user holds
 * the per-user limit (the kernel's key quotas answer add_key() so), and with -EAGAIN
 * once the unprivileged together hold all but the reserve. A privileged caller meets
 * only the total, and takes the reserve first: what it holds there leaves the rest to
 * everyone else. The caller's own errno mapping (the telemetry's -EBUSY, HBM's -ENOMEM)
 * is its call's.
 *
 * Whose charge: the user of the calling task, at the time of the call, not the opener
 * of the file: an opener that drops its privileges, or hands its descriptor to another
 * user, leaves the charges to whoever makes the calls, and opening more files does not
 * escape the limit. The real uid (as the owner of a core is), as a kuid; inside a user
 * namespace the kuid of whoever created its outermost ancestor below the initial one,
 * so a namespace that maps many uids (subordinate ids, a container) is one user. Whose
 * privilege: the capability in the initial user namespace of both the calling task and
 * the opener of the file or socket (netlink_capable() checks a socket so): a descriptor
 * opened by root and handed to an unprivileged process opens no reserve, and neither
 * does an unprivileged process's descriptor handed to a privileged one.
 *
 * Bounded: a user's entry exists only while it holds a charge, and every charge counts
 * against a module-wide total, so there are never more entries than charges the totals
 * allow, however many uids a caller could take. Entries are charged to the memory
 * cgroup of the call that made them.
 *
 * Lock: vnk_share_lock, a spinlock, innermost: charges are taken under vnk_dev_core.lock
 * and vnk_file.comm_lock, given back from completions and vma closes; it nests nothing
 * and nothing sleeps under it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/err.h>
#include <linux/hashtable.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/netlink.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/user_namespace.h>
#include <net/sock.h>

#include "main.h"
#include "share.h"
#include "vn_hbm.h"
#include "vneuron_genl.h"

/* The largest value any share parameter takes. */
#define VNK_SHARE_MAX		BIT(20)
/* A per-user limit not given at load: derived from the devices (vnk_shares_init()). */
#define VNK_SHARE_AUTO		UINT_MAX

/**
 * struct vnk_share_limit - one kind's limits
 * @total: the module-wide total (a parameter, or fixed: see vnk_slot_limit())
 * @per_user: one user's limit
 * @reserved: the part of @total only privileged callers may take
 */
struct vnk_share_limit {
	unsigned int total;
	unsigned int per_user;
	unsigned int reserved;
};

static struct vnk_share_limit vnk_share_limits[VNEURON_SHARE_COUNT] = {
	[VNEURON_SHARE_COMMS] = { 256, 64, 32 },
	[VNEURON_SHARE_SUBSCRIBERS] = { VNEURON_GENL_MAX_SUBSCRIBERS, 8, 8 },
	[VNEURON_SHARE_TRACES] = { 0, VNK_SHARE_AUTO, 0 },
	[VNEURON_SHARE_NETQ_RINGS] = { 64, 16, 8 },
	[VNEURON_SHARE_EXECS] = { 65536, 16384, 8192 },
	[VNEURON_SHARE_CORES] = { 0, VNK_SHARE_AUTO, 0 },
};

static unsigned int vnk_cores_total;

/*
 * HBM: per device, in VN_HBM_ALIGN pages: a user's share and the reserve are percents
 * of each device's budget (hbm_mb).
 */
static unsigned int vnk_hbm_per_user_pct = 100;
static unsigned int vnk_hbm_reserved_pct;
static unsigned int vnk_hbm_pages;		/* each device's budget */

static int vnk_share_param_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, VNK_SHARE_MAX);
}

static const struct kernel_param_ops vnk_share_param_ops = {
	.set = vnk_share_param_set,
	.get = param_get_uint,
};

static int vnk_share_pct_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, 100);
}

static const struct kernel_param_ops vnk_share_pct_ops = {
	.set = vnk_share_pct_set,
	.get = param_get_uint,
};

/* Writable by root at any time: a new value holds for the charges after it. */
#define VNK_LIM(kind)	vnk_share_limits[VNEURON_SHARE_##kind]

module_param_cb(comms_total, &vnk_share_param_ops, &VNK_LIM(COMMS).total, 0644);
MODULE_PARM_DESC(comms_total, "Communicators the module holds at once (0..1048576, default 256)");

module_param_cb(comms_per_user, &vnk_share_param_ops, &VNK_LIM(COMMS).per_user, 0644);
MODULE_PARM_DESC(comms_per_user, "Communicators one user holds at once (default 64)");

module_param_cb(comms_reserved, &vnk_share_param_ops, &VNK_LIM(COMMS).reserved, 0644);
MODULE_PARM_DESC(comms_reserved, "Communicators kept for CAP_SYS_ADMIN (default 32)");

module_param_cb(subscribers_per_user, &vnk_share_param_ops, &VNK_LIM(SUBSCRIBERS).per_user, 0644);
MODULE_PARM_DESC(subscribers_per_user, "Telemetry subscriptions of one user (default 8)");

module_param_cb(subscribers_reserved, &vnk_share_param_ops, &VNK_LIM(SUBSCRIBERS).reserved, 0644);
MODULE_PARM_DESC(subscribers_reserved, "Telemetry subscriptions kept for CAP_PERFMON/CAP_SYS_ADMIN (default 8)");

module_param_cb(traces_per_user, &vnk_share_param_ops, &VNK_LIM(TRACES).per_user, 0644);
MODULE_PARM_DESC(traces_per_user, "Trace sessions of one user (default: a quarter of all cores, at least one device's)");

module_param_cb(netq_rings_total, &vnk_share_param_ops, &VNK_LIM(NETQ_RINGS).total, 0644);
MODULE_PARM_DESC(netq_rings_total, "Network queue rings the module holds at once (default 64)");

module_param_cb(netq_rings_per_user, &vnk_share_param_ops, &VNK_LIM(NETQ_RINGS).per_user, 0644);
MODULE_PARM_DESC(netq_rings_per_user, "Network queue rings of one user (default 16)");

module_param_cb(netq_rings_reserved, &vnk_share_param_ops, &VNK_LIM(NETQ_RINGS).reserved, 0644);
MODULE_PARM_DESC(netq_rings_reserved, "Network queue rings kept for CAP_SYS_ADMIN (default 8)");

module_param_cb(execs_total, &vnk_share_param_ops, &VNK_LIM(EXECS).total, 0644);
MODULE_PARM_DESC(execs_total, "Executions the module holds at once (default 65536)");

module_param_cb(execs_per_user, &vnk_share_param_ops, &VNK_LIM(EXECS).per_user, 0644);
MODULE_PARM_DESC(execs_per_user, "Executions one user holds at once (default 16384)");

module_param_cb(execs_reserved, &vnk_share_param_ops, &VNK_LIM(EXECS).reserved, 0644);
MODULE_PARM_DESC(execs_reserved, "Executions kept for CAP_SYS_ADMIN (default 8192)");

module_param_cb(cores_per_user, &vnk_share_param_ops, &VNK_LIM(CORES).per_user, 0644);
MODULE_PARM_DESC(cores_per_user, "Cores one user claims at once (default: a quarter of all cores, at least one device's)");

module_param_cb(cores_reserved, &vnk_share_param_ops, &VNK_LIM(CORES).reserved, 0644);
MODULE_PARM_DESC(cores_reserved, "Cores kept for CAP_SYS_ADMIN (default 0)");

module_param_cb(hbm_per_user_pct, &vnk_share_pct_ops, &vnk_hbm_per_user_pct, 0644);
MODULE_PARM_DESC(hbm_per_user_pct, "Percent of a device's HBM one user holds (0..100, default 100)");

module_param_cb(hbm_reserved_pct, &vnk_share_pct_ops, &vnk_hbm_reserved_pct, 0644);
MODULE_PARM_DESC(hbm_reserved_pct, "Percent of a device's HBM kept for CAP_SYS_ADMIN (default 0)");

/**
 * struct vnk_held - what is held of one slot: a kind, or one device's HBM pages
 * @used: held in all
 * @reserve: of @used, held in the reserve (privileged callers take it first)
 */
struct vnk_held {
	unsigned int used;
	unsigned int reserve;
};

/* A slot per kind, then one per device for its HBM (VNEURON_SHARE_HBM's own is unused). */
#define VNK_SLOTS		(VNEURON_SHARE_COUNT + VNK_MAX_DEVICES)
#define VNK_HBM_SLOT(dev)	(VNEURON_SHARE_COUNT + (dev))

/**
 * struct vnk_user - one user's charges
 * @node: in vnk_users
 * @uid: the user
 * @h: what it holds, by slot
 * @held: its charges (a buffer's pages are one): the entry goes when it reaches 0
 */
struct vnk_user {
	struct hlist_node node;
	kuid_t uid;
	struct vnk_held h[VNK_SLOTS];
	unsigned int held;
};

static DEFINE_SPINLOCK(vnk_share_lock);
static DEFINE_HASHTABLE(vnk_users, 6);
static struct vnk_held vnk_pool[VNK_SLOTS];

void vnk_shares_init(unsigned int cores_total, unsigned int cores_per_device,
		     unsigned int hbm_mb)
{
	/* One user may always use a whole device, and at most a quarter of a large module. */
	unsigned int share = max(cores_total / 4, cores_per_device);

	vnk_cores_total = cores_total;
	vnk_hbm_pages = ((u64)hbm_mb << 20) / VN_HBM_ALIGN;
	if (vnk_share_limits[VNEURON_SHARE_TRACES].per_user == VNK_SHARE_AUTO)
		vnk_share_limits[VNEURON_SHARE_TRACES].per_user = share;
	if (vnk_share_limits[VNEURON_SHARE_CORES].per_user == VNK_SHARE_AUTO)
		vnk_share_limits[VNEURON_SHARE_CORES].per_user = share;
}

/* The HBM part of one device: a share of the pages in percent of its budget. */
static unsigned int vnk_hbm_pct(unsigned int pct)
{
	return div_u64((u64)vnk_hbm_pages * min(pct, 100U), 100);
}

/*
 * A slot's limits now, as reported. Slots past VNEURON_SHARE_COUNT are the HBM of the
 * second device on: vnk_share_limits[] is indexed only below it (forming the address of
 * an element past the end is undefined too, and UBSAN stops the debug kernel on it).
 */
static struct vnk_share_limit vnk_slot_limit(unsigned int slot)
{
	const struct vnk_share_limit *l;

	if (slot >= VNEURON_SHARE_COUNT || slot == VNEURON_SHARE_HBM)
		return (struct vnk_share_limit){
			.total = vnk_hbm_pages,
			.per_user = vnk_hbm_pct(READ_ONCE(vnk_hbm_per_user_pct)),
			.reserved = vnk_hbm_pct(READ_ONCE(vnk_hbm_reserved_pct)),
		};
	l = &vnk_share_limits[slot];
	switch (slot) {
	case VNEURON_SHARE_SUBSCRIBERS:
		return (struct vnk_share_limit){ VNEURON_GENL_MAX_SUBSCRIBERS,
						 READ_ONCE(l->per_user), READ_ONCE(l->reserved) };
	case VNEURON_SHARE_TRACES:	/* one session per core */
	case VNEURON_SHARE_CORES:
		return (struct vnk_share_limit){ vnk_cores_total, READ_ONCE(l->per_user),
						 READ_ONCE(l->reserved) };
	default:
		return (struct vnk_share_limit){ READ_ONCE(l->total), READ_ONCE(l->per_user),
						 READ_ONCE(l->reserved) };
	}
}

/* The user a call is charged to (see the top of the file). */
static kuid_t vnk_share_uid(void)
{
	const struct user_namespace *ns = current_user_ns();

	if (ns == &init_user_ns)
		return current_uid();
	while (ns->parent != &init_user_ns)
		ns = ns->parent;
	return ns->owner;
}

/*
 * The capability in the initial user namespace, held by the caller and by the opener of
 * @filp or of @skb's socket (netlink_capable()'s rule), without an audit record: a
 * refusal here is a limit met, not a permission denied.
 */
static bool vnk_share_capable(int cap, struct file *filp, const struct sk_buff *skb)
{
	const struct sock *sk = skb ? NETLINK_CB(skb).sk : NULL;

	/* The caller first: most callers are not privileged, and this asks without a record. */
	if (!ns_capable_noaudit(&init_user_ns, cap))
		return false;
	if (skb)
		filp = sk && sk->sk_socket ? sk->sk_socket->file : NULL;
	return !(skb || filp) || (filp && file_ns_capable(filp, &init_user_ns, cap));
}

bool vnk_share_privileged(unsigned int kind, struct file *filp, const struct sk_buff *skb)
{
	if ((kind == VNEURON_SHARE_SUBSCRIBERS || kind == VNEURON_SHARE_TRACES) &&
	    vnk_share_capable(CAP_PERFMON, filp, skb))
		return true;
	return vnk_share_capable(CAP_SYS_ADMIN, filp, skb);
}

static struct vnk_user *vnk_user_find(kuid_t uid)
{
	struct vnk_user *u;

	lockdep_assert_held(&vnk_share_lock);
	hash_for_each_possible(vnk_users, u, node, __kuid_val(uid))
		if (uid_eq(u->uid, uid))
			return u;
	return NULL;
}

/* vnk_share_check()'s answer when it must know whether the caller is privileged. */
#define VNK_ASK_PRIV		LONG_MAX

/*
 * Under vnk_share_lock: may a caller of user @u (NULL: holds nothing), privileged (@priv
 * 1), not (0) or not known yet (-1: VNK_ASK_PRIV when it matters), take @n more of
 * @slot? The number of them that go into the reserve, or -EDQUOT
 * (its user's limit), -EAGAIN (the total, or all but the reserve: the caller maps it).
 *
 * A privileged caller takes the reserve first, so what it holds leaves the rest to
 * everyone else, and may go on into the rest up to the total. Another holds at most its
 * user's limit, and everyone but the privileged together at most the total less the
 * reserve.
 */
static long vnk_share_check(unsigned int slot, const struct vnk_user *u, u64 n, int priv)
{
	struct vnk_share_limit l = vnk_slot_limit(slot);
	const struct vnk_held *p = &vnk_pool[slot];
	u64 total = l.total, reserved = min(l.reserved, l.total);

	/* A session per core: the core's own slot (-EBUSY) bounds them, not a total. */
	if (slot == VNEURON_SHARE_TRACES)
		total = U64_MAX;
	/* Not known yet: needed only for a reserve to take first, or past the limits. */
	if (priv < 0 && reserved)
		return VNK_ASK_PRIV;
	if (priv > 0) {
		if (p->used + n > total)
			return -EAGAIN;
		return min_t(u64, n, reserved - min_t(u64, reserved, p->reserve));
	}
	/* Its own limit first: the refusal says what the caller itself can change. */
	if ((u ? u->h[slot].used : 0) + n > l.per_user)
		return priv < 0 ? VNK_ASK_PRIV : -EDQUOT;
	if (p->used + n > total || p->used - p->reserve + n > total - reserved)
		return priv < 0 ? VNK_ASK_PRIV : -EAGAIN;
	return 0;
}

/* Charge the caller's user @n of @slot (a kind: 1; a device's HBM: its pages). */
static struct vnk_user *vnk_share_take(unsigned int kind, unsigned int slot, u64 n,
				       struct file *filp, const struct sk_buff *skb)
{
	kuid_t uid = vnk_share_uid();
	struct vnk_user *u, *fresh = NULL;
	int priv = -1;
	long res;

	for (;;) {
		spin_lock(&vnk_share_lock);
		u = vnk_user_find(uid);
		res = vnk_share_check(slot, u, n, priv);
		if (res == VNK_ASK_PRIV) {
			/* The capability checks may sleep; the counts are checked again after. */
			spin_unlock(&vnk_share_lock);
			priv = vnk_share_privileged(kind, filp, skb);
			continue;
		}
		if (res >= 0 && !u && !fresh) {
			spin_unlock(&vnk_share_lock);
			fresh = kzalloc(sizeof(*fresh), GFP_KERNEL_ACCOUNT);
			if (!fresh)
				return ERR_PTR(-ENOMEM);
			continue;
		}
		if (res >= 0) {
			if (!u) {
				u = fresh;
				fresh = NULL;
				u->uid = uid;
				hash_add(vnk_users, &u->node, __kuid_val(uid));
				atomic64_inc(&vnk_counters.users);
			}
			u->h[slot].used += n;
			u->h[slot].reserve += res;
			vnk_pool[slot].used += n;
			vnk_pool[slot].reserve += res;
			u->held++;
		}
		spin_unlock(&vnk_share_lock);
		break;
	}
	kfree(fresh);
	return res < 0 ? ERR_PTR(res) : u;
}

struct vnk_user *vnk_share_charge(unsigned int kind, struct file *filp,
				  const struct sk_buff *skb)
{
	return vnk_share_take(kind, kind, 1, filp, skb);
}

struct vnk_user *vnk_share_charge_hbm(unsigned int dev, u64 bytes, struct file *filp)
{
	u64 pages = DIV_ROUND_UP_ULL(bytes, VN_HBM_ALIGN);
	long ret;
	struct vnk_user *u;

	if (dev >= VNK_MAX_DEVICES || pages > vnk_hbm_pages)
		return ERR_PTR(-ENOMEM);
	u = vnk_share_take(VNEURON_SHARE_HBM, VNK_HBM_SLOT(dev), pages, filp, NULL);
	ret = PTR_ERR_OR_ZERO(u);
	/* The budget's own refusal: what is left of it is not enough. */
	return ret == -EAGAIN ? ERR_PTR(-ENOMEM) : u;
}

/* @u gives back @n of @slot, from what it holds in the reserve first. */
static void vnk_share_put(struct vnk_user *u, unsigned int slot, u64 n)
{
	struct vnk_held *h = &u->h[slot], *p = &vnk_pool[slot];
	unsigned int res;
	bool gone;

	spin_lock(&vnk_share_lock);
	if (WARN_ON_ONCE(h->used < n || p->used < n || !u->held)) {
		spin_unlock(&vnk_share_lock);
		return;
	}
	res = min_t(u64, n, h->reserve);
	h->used -= n;
	h->reserve -= res;
	p->used -= n;
	p->reserve -= res;
	gone = !--u->held;
	if (gone)
		hash_del(&u->node);
	spin_unlock(&vnk_share_lock);
	if (gone) {
		kfree(u);
		atomic64_dec(&vnk_counters.users);
	}
}

void vnk_share_uncharge(struct vnk_user *u, unsigned int kind)
{
	vnk_share_put(u, kind, 1);
}

void vnk_share_uncharge_hbm(struct vnk_user *u, unsigned int dev, u64 bytes)
{
	vnk_share_put(u, VNK_HBM_SLOT(dev), DIV_ROUND_UP_ULL(bytes, VN_HBM_ALIGN));
}

void vnk_share_report(struct vneuron_share *out, unsigned int dev, bool mine)
{
	const struct vnk_user *u = NULL;
	struct vnk_share_limit l;
	unsigned int k, slot;

	spin_lock(&vnk_share_lock);
	if (mine)
		u = vnk_user_find(vnk_share_uid());
	for (k = 0; k < VNEURON_SHARE_COUNT; k++) {
		slot = k;
		if (k == VNEURON_SHARE_HBM)
			slot = dev < VNK_MAX_DEVICES ? VNK_HBM_SLOT(dev) : k;
		l = vnk_slot_limit(slot);
		out[k] = (struct vneuron_share){
			.total = l.total,
			.per_user = l.per_user,
			.reserved = l.reserved,
			.used = vnk_pool[slot].used,
			.reserved_used = vnk_pool[slot].reserve,
			.user_used = u ? u->h[slot].used : 0,
		};
	}
	spin_unlock(&vnk_share_lock);
}
