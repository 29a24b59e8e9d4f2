/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Communicators (kmod/comm.c): COMM_CREATE, COMM_JOIN, COMM_INFO, COMM_DESTROY, the
 * module-wide registry of communicators by id, and what a file's release does to its
 * communicator handles. The rendezvous and the data movement are the device core's
 * (core/vn_comm.h); a registration's network queue is kmod/netq.c's, its mapped ring
 * kmod/netq_ring.c's.
 */
#ifndef VNK_COMM_H
#define VNK_COMM_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>

#include "netq.h"
#include "vneuron.h"

struct vn_comm;
struct vn_core;
struct vnk_file;
struct vnk_user;

/* Communicator handles one open file may hold: registrations and ranks together. */
#define VNK_MAX_COMM_HANDLES	64
/**
 * struct vnk_comm - a communicator as the module knows it
 * @ref: its registration holds one while registered, each rank's handle one
 * @node: in the registry while registered
 * @registered: findable by @id (under vnk_comm_lock)
 * @nranks: its ranks
 * @joined: bit r: rank r joined (under vnk_comm_lock); never cleared once a rank was
 *	bound, so a rank that left cannot be taken again
 * @nq: its network queue, if COMM_NODES gave it remote ranks (kmod/netq.c)
 * @cm: the device core's communicator, one reference
 * @user: the user charged for it (kmod/share.c): its creator
 * @id: the secret id
 */
struct vnk_comm {
	struct kref ref;
	struct list_head node;
	bool registered;
	u32 nranks;
	u64 joined;
	struct vnk_netq nq;
	struct vn_comm *cm;
	struct vnk_user *user;
	u8 id[VNEURON_COMM_ID_BYTES];
};

/**
 * struct vnk_comm_handle - one handle of a file's table (vnk_file.comms)
 * @comm: the communicator, one reference
 * @rank: the rank bound, or VNEURON_COMM_NONE for the creator's registration
 * @core: the core bound as @rank
 * @ec: that core's executor: valid while the file owns the core, i.e. until its release
 */
struct vnk_comm_handle {
	struct vnk_comm *comm;
	u32 rank;
	u32 core;
	struct vn_core *ec;
};

/*
 * The registry of communicators, and what it guards: their @registered, @joined and
 * network queue state (struct vnk_netq). Taken under vnk_file.comm_lock; nests only
 * vn_comm's lock; no reference is dropped under it.
 */
extern struct mutex vnk_comm_lock;

/**
 * vnk_comm_file_init() - initialise the communicator state of a new file
 * @vf: the file being opened
 */
void vnk_comm_file_init(struct vnk_file *vf);

/**
 * vnk_comm_put() - drop a reference on a communicator
 * @c: the communicator; the last reference frees it
 */
void vnk_comm_put(struct vnk_comm *c);

/**
 * vnk_comm_create_ioctl() - VNEURON_IOCTL_COMM_CREATE
 * @vf: the calling file
 * @data: struct vneuron_comm_create
 *
 * Return: 0, -EINVAL, -ENOSPC (the file's handles), -EDQUOT (the caller's user's
 * share), -EAGAIN (the module's communicators, or all but the reserve), -ENOMEM, -EINTR.
 */
int vnk_comm_create_ioctl(struct vnk_file *vf, void *data);

/**
 * vnk_comm_join_ioctl() - VNEURON_IOCTL_COMM_JOIN
 * @vf: the calling file
 * @data: struct vneuron_comm_join
 *
 * Return: 0, -ENOENT (no communicator has the id), -EINVAL, -EEXIST (the rank joined
 * already), -EBUSY (the core is another file's, or bound already), -ENOSPC, -ENOMEM,
 * -EINTR.
 */
int vnk_comm_join_ioctl(struct vnk_file *vf, void *data);

/**
 * vnk_comm_info_ioctl() - VNEURON_IOCTL_COMM_INFO
 * @vf: the calling file
 * @data: struct vneuron_comm_info
 *
 * Return: 0, -EINVAL, -ENOENT, -EINTR.
 */
int vnk_comm_info_ioctl(struct vnk_file *vf, void *data);

/**
 * vnk_comm_destroy_ioctl() - VNEURON_IOCTL_COMM_DESTROY
 * @vf: the calling file
 * @data: struct vneuron_comm_destroy
 *
 * Return: 0, -EINVAL, -ENOENT, -EINTR.
 */
int vnk_comm_destroy_ioctl(struct vnk_file *vf, void *data);

/**
 * vnk_comm_create_undo() - end the registration a CREATE made, when its result could not
 *	be copied out
 * @vf: the calling file
 * @data: struct vneuron_comm_create as vnk_comm_create_ioctl() filled it
 */
void vnk_comm_create_undo(struct vnk_file *vf, void *data);

/**
 * vnk_comm_join_undo() - leave the rank a JOIN made, when its result could not be copied
 *	out
 * @vf: the calling file
 * @data: struct vneuron_comm_join as vnk_comm_join_ioctl() filled it
 *
 * The rank leaves as COMM_DESTROY would make it: the communicator breaks.
 */
void vnk_comm_join_undo(struct vnk_file *vf, void *data);

/**
 * vnk_comm_release_all() - @vf is released: every handle of it is destroyed
 * @vf: the file; no ioctl of it runs; it still owns its cores
 *
 * Its ranks leave (their communicators break for the other ranks) and its
 * registrations end (a network queue's registration breaks its communicator). Waits for
 * nobody.
 */
void vnk_comm_release_all(struct vnk_file *vf);

#endif /* VNK_COMM_H */
