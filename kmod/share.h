/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The resources every user of the module shares (kmod/share.c): for each of enum
 * vneuron_share_kind a module-wide total, a per-user limit and a reserve only privileged
 * callers may take, all module parameters; and the charges of each user.
 *
 * The user charged is the caller's real uid as a kuid, or, inside a user namespace, the
 * creator of its outermost ancestor below the initial one (a namespace tree is one user
 * whatever uids it maps). Privileged: CAP_SYS_ADMIN (CAP_PERFMON too for subscriptions
 * and trace sessions) in the initial user namespace, held by the caller and by whoever
 * opened the file or socket it calls through.
 */
#ifndef VNK_SHARE_H
#define VNK_SHARE_H

#include <linux/types.h>

#include "vneuron.h"

struct file;
struct sk_buff;
struct vnk_user;

/**
 * vnk_shares_init() - fill in the limits whose default depends on the devices
 * @cores_total: cores of every device
 * @cores_per_device: cores of one device
 * @hbm_mb: each device's HBM budget
 *
 * The parameters' ranges are checked by their setter, at load and when root writes them.
 */
void vnk_shares_init(unsigned int cores_total, unsigned int cores_per_device,
		     unsigned int hbm_mb);

/**
 * vnk_share_charge() - take one of @kind for the calling task's user
 * @kind: enum vneuron_share_kind
 * @filp: the device file the call came through, or NULL
 * @skb: the netlink request it came as, or NULL
 *
 * A privileged caller is held only to the total; another to its user's limit (-EDQUOT)
 * and to the total less the reserve (-EAGAIN). May sleep.
 *
 * Return: the user charged, for vnk_share_uncharge(); ERR_PTR(-EDQUOT), -EAGAIN (the
 * module-wide total, or all but the reserve, is held), -ENOMEM.
 */
struct vnk_user *vnk_share_charge(unsigned int kind, struct file *filp,
				  const struct sk_buff *skb);

/**
 * vnk_share_charge_hbm() - charge @bytes of device @dev's HBM to the caller's user
 * @dev: the device's index
 * @bytes: a buffer's size, charged in whole VN_HBM_ALIGN pages
 * @filp: the device file the call came through
 *
 * As vnk_share_charge(), the reserve's refusal being -ENOMEM as for the budget's.
 *
 * Return: the user charged; ERR_PTR(-EDQUOT), -ENOMEM.
 */
struct vnk_user *vnk_share_charge_hbm(unsigned int dev, u64 bytes, struct file *filp);

/**
 * vnk_share_uncharge_hbm() - give back what vnk_share_charge_hbm() charged
 * @u: the user it returned
 * @dev: the same device
 * @bytes: the same size
 */
void vnk_share_uncharge_hbm(struct vnk_user *u, unsigned int dev, u64 bytes);

/**
 * vnk_share_uncharge() - give back one of @kind
 * @u: what vnk_share_charge() returned
 * @kind: the same kind
 *
 * Any context that may take a spinlock; never sleeps.
 */
void vnk_share_uncharge(struct vnk_user *u, unsigned int kind);

/**
 * vnk_share_privileged() - whether the caller may take the reserve of @kind
 * @kind: enum vneuron_share_kind
 * @filp: the device file the call came through, or NULL
 * @skb: the netlink request it came as, or NULL
 *
 * Return: true if both the calling task and the opener of @filp (or of @skb's socket)
 * have the capability @kind asks for.
 */
bool vnk_share_privileged(unsigned int kind, struct file *filp, const struct sk_buff *skb);

/**
 * vnk_share_report() - the shares as GET_INFO and the telemetry report them
 * @out: VNEURON_SHARE_COUNT entries
 * @dev: the device whose HBM is reported
 * @mine: fill user_used with the calling task's user's holdings (else 0)
 */
void vnk_share_report(struct vneuron_share *out, unsigned int dev, bool mine);

#endif /* VNK_SHARE_H */
