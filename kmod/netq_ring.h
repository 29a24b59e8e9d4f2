/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A network queue's mapped ring (kmod/netq_ring.c): NETQ_RING_SETUP, the mapping,
 * NETQ_DOORBELL and poll(). One ring pair per registration with remote ranks.
 */
#ifndef VNK_NETQ_RING_H
#define VNK_NETQ_RING_H

#include <linux/poll.h>

struct vm_area_struct;
struct vnk_comm;
struct vnk_file;
struct vnk_netq_ring;

/**
 * vnk_netq_ring_setup_ioctl() - VNEURON_IOCTL_NETQ_RING_SETUP: serve a network queue
 *	through a mapped ring
 * @vf: the calling file
 * @data: struct vneuron_netq_ring_setup
 *
 * Return: 0, -EINVAL, -ENOENT, -EBUSY (a ring already, or a NETQ_WAIT request out),
 * -EDQUOT (the caller's user's share of rings), -EAGAIN (the module's rings, or all but
 * the reserve), -ENOMEM, -EINTR.
 */
int vnk_netq_ring_setup_ioctl(struct vnk_file *vf, void *data);

/**
 * vnk_netq_ring_setup_undo() - the ring's offset never reached the caller: it goes
 * @vf: the calling file
 * @data: struct vneuron_netq_ring_setup as vnk_netq_ring_setup_ioctl() filled it
 */
void vnk_netq_ring_setup_undo(struct vnk_file *vf, void *data);

/**
 * vnk_netq_doorbell_ioctl() - VNEURON_IOCTL_NETQ_DOORBELL: consume a ring's completions
 * @vf: the calling file
 * @data: struct vneuron_netq_doorbell
 *
 * Return: 0, -EINVAL (a bad completion or argument), -ENOENT, -EBUSY, -EPIPE, -ENOMEM,
 * -EINTR.
 */
int vnk_netq_doorbell_ioctl(struct vnk_file *vf, void *data);

/**
 * vnk_netq_mmap() - map a network queue ring of @vf (at VNEURON_MMAP_NETQ_BASE and up)
 * @vf: the file
 * @vma: the new mapping: from the ring's start, at most its length, shared
 *
 * Return: 0, -EINVAL, -EACCES (PROT_EXEC).
 */
int vnk_netq_mmap(struct vnk_file *vf, struct vm_area_struct *vma);

/**
 * vnk_netq_poll() - EPOLLIN while a ring of @vf has requests its proxy has not read
 * @vf: the file
 * @filp: its struct file
 * @wait: the poll table
 *
 * Return: the mask.
 */
__poll_t vnk_netq_poll(struct vnk_file *vf, struct file *filp, poll_table *wait);

/**
 * vnk_netq_ring_get() - take a reference on a ring
 * @ring: the ring, held by the caller's communicator (under vnk_comm_lock)
 */
void vnk_netq_ring_get(struct vnk_netq_ring *ring);

/**
 * vnk_netq_ring_put() - drop a reference on a ring
 * @ring: the ring; the last reference frees it
 */
void vnk_netq_ring_put(struct vnk_netq_ring *ring);

/**
 * vnk_netq_ring_detach() - registration @c of @vf goes, and its ring with it
 * @vf: the registration's file, its comm_lock held
 * @c: the communicator
 *
 * No more requests are posted, the stage is let go, and the mappings keep only the
 * pages. Ranks posted partially point into the stage: the communicator breaks.
 */
void vnk_netq_ring_detach(struct vnk_file *vf, struct vnk_comm *c);

#endif /* VNK_NETQ_RING_H */
