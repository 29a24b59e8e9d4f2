/* SPDX-License-Identifier: GPL-2.0 */
/* Executions of an open file (kmod/exec.c): EXEC, WAIT, poll, flush, io_uring. */
#ifndef VNK_EXEC_H
#define VNK_EXEC_H

#include <linux/poll.h>

#include "vneuron.h"

struct file;
struct vnk_exec;
struct vnk_file;

/**
 * vnk_exec_ioctl() - VNEURON_IOCTL_EXEC: validate and queue an execution
 * @vf: the calling file
 * @data: struct vneuron_exec
 *
 * Return: 0, -EINVAL, -ENOENT, -EBUSY, -EAGAIN, -EDQUOT (the user's share of
 * executions or cores), -ENOSPC, -ENOMEM, -E2BIG, -EFAULT, -EINTR.
 */
int vnk_exec_ioctl(struct vnk_file *vf, void *data);

/**
 * vnk_exec_undo() - EXEC's id never reached the caller: cancel and forget it
 * @vf: the calling file
 * @data: struct vneuron_exec as vnk_exec_ioctl() filled it
 */
void vnk_exec_undo(struct vnk_file *vf, void *data);

/**
 * vnk_wait_ioctl() - VNEURON_IOCTL_WAIT: wait for an execution and reap it
 * @vf: the calling file
 * @data: struct vneuron_wait
 *
 * Return: 0, -EINVAL, -ENOENT, -ETIMEDOUT, -ERESTARTSYS, -EINTR.
 */
int vnk_wait_ioctl(struct vnk_file *vf, void *data);

/**
 * vnk_exec_poll() - poll() readiness of @vf's executions
 * @vf: the file
 * @filp: its struct file
 * @wait: the poll table
 *
 * Return: EPOLLIN | EPOLLRDNORM while an execution has completed and is not reaped.
 */
__poll_t vnk_exec_poll(struct vnk_file *vf, struct file *filp, poll_table *wait);

/**
 * vnk_exec_flush() - close() by a process: cancel its queued and running executions
 * @vf: the file
 *
 * Ioctl and io_uring ones alike; waits for nothing.
 */
void vnk_exec_flush(struct vnk_file *vf);

/**
 * vnk_exec_release_all() - @vf is released: cancel what runs, forget what is unreaped
 * @vf: the file; no ioctl of it runs
 */
void vnk_exec_release_all(struct vnk_file *vf);
/**
 * vnk_exec_free_spares() - free the ended executions @vf kept for reuse
 * @vf: the file, at its last reference (nobody can add one any more)
 */
void vnk_exec_free_spares(struct vnk_file *vf);

/**
 * typedef vnk_exec_notify_fn - told that an execution queued by vnk_exec_async() ended
 * @kx: the execution, owned by the callee from now on
 * @arg: the notify_arg given to vnk_exec_async()
 *
 * Runs on an executor worker with no lock held.
 */
typedef void (*vnk_exec_notify_fn)(struct vnk_exec *kx, void *arg);

/**
 * vnk_exec_async() - validate and queue an execution told to @notify, not WAIT
 * @vf: the submitting file
 * @arg: as for EXEC; exec_id is not written
 * @notify: called when the execution ends
 * @notify_arg: its second argument
 *
 * The execution never enters the file's exec table. @notify then owns it, reads it
 * with vnk_exec_result() and drops it with vnk_exec_release().
 *
 * Return: 0 (@notify will be called), or the negative errno EXEC would give.
 */
int vnk_exec_async(struct vnk_file *vf, const struct vneuron_exec *arg,
		   vnk_exec_notify_fn notify, void *notify_arg);

/**
 * vnk_exec_result() - how a notified execution ended, as WAIT reports it
 * @kx: the execution handed to the notify function
 * @w: filled but for exec_id, timeout_ns and flags
 */
void vnk_exec_result(struct vnk_exec *kx, struct vneuron_wait *w);

/**
 * vnk_exec_release() - drop a notified execution
 * @kx: the execution handed to the notify function
 */
void vnk_exec_release(struct vnk_exec *kx);

#endif /* VNK_EXEC_H */
