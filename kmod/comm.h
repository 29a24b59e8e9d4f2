/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Communicators (kmod/comm.c): COMM_CREATE, COMM_JOIN, COMM_INFO, COMM_DESTROY, the
 * module-wide registry of communicators by id, and what a file's release does to its
 * communicator handles. The rendezvous and the data movement are the device core's
 * (core/vn_comm.h).
 */
#ifndef VNK_COMM_H
#define VNK_COMM_H

#include <linux/poll.h>

struct vm_area_struct;
struct vnk_file;

/* Communicator handles one open file may hold: registrations and ranks together. */
#define VNK_MAX_COMM_HANDLES	64
/* Communicators the module holds at once, registered or kept alive by their ranks. */
#define VNK_MAX_COMMS		256

/**
 * vnk_comm_file_init() - initialise the communicator state of a new file
 * @vf: the file being opened
 */
void vnk_comm_file_init(struct vnk_file *vf);

/**
 * vnk_comm_create_ioctl() - VNEURON_IOCTL_COMM_CREATE
 * @vf: the calling file
 * @data: struct vneuron_comm_create
 *
 * Return: 0, -EINVAL, -ENOSPC (the file's handles), -EAGAIN (the module's
 * communicators), -ENOMEM, -EINTR.
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
 * vnk_comm_nodes_ioctl() - VNEURON_IOCTL_COMM_NODES: declare the ranks of other nodes
 * @vf: the calling file
 * @data: struct vneuron_comm_nodes
 *
 * Return: 0, -EINVAL, -ENOENT, -EBUSY (a rank joined, or set already), -EFAULT,
 * -ENOMEM, -EINTR.
 */
int vnk_comm_nodes_ioctl(struct vnk_file *vf, void *data);

/**
 * vnk_netq_wait_ioctl() - VNEURON_IOCTL_NETQ_WAIT: the network queue's next request
 * @vf: the calling file
 * @data: struct vneuron_netq_wait
 *
 * Return: 0, -EINVAL, -ENOENT, -EBUSY (a request is out), -ETIMEDOUT, -EPIPE (the
 * communicator is broken), -EFAULT, -ENOMEM, -EINTR.
 */
int vnk_netq_wait_ioctl(struct vnk_file *vf, void *data);

/**
 * vnk_netq_wait_undo() - NETQ_WAIT's request id never reached the caller: it is
 *	given again by the next NETQ_WAIT
 * @vf: the calling file
 * @data: struct vneuron_netq_wait as vnk_netq_wait_ioctl() filled it
 */
void vnk_netq_wait_undo(struct vnk_file *vf, void *data);

/**
 * vnk_netq_complete_ioctl() - VNEURON_IOCTL_NETQ_COMPLETE: post the remote ranks, or
 *	break the communicator
 * @vf: the calling file
 * @data: struct vneuron_netq_complete
 *
 * Return: 0, -EINVAL, -ENOENT (no such request pending), -EPIPE (broken meanwhile),
 * -EFAULT, -ENOMEM, -EINTR.
 */
int vnk_netq_complete_ioctl(struct vnk_file *vf, void *data);

/**
 * vnk_netq_ring_setup_ioctl() - VNEURON_IOCTL_NETQ_RING_SETUP: serve a network queue
 *	through a mapped ring
 * @vf: the calling file
 * @data: struct vneuron_netq_ring_setup
 *
 * Return: 0, -EINVAL, -ENOENT, -EBUSY (a ring already, or a NETQ_WAIT request out),
 * -ENOMEM, -EINTR.
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
 * vnk_comm_release_all() - @vf is released: every handle of it is destroyed
 * @vf: the file; no ioctl of it runs; it still owns its cores
 *
 * Its ranks leave (their communicators break for the other ranks) and its
 * registrations end (a network queue's registration breaks its communicator). Waits for nobody.
 */
void vnk_comm_release_all(struct vnk_file *vf);

#endif /* VNK_COMM_H */
