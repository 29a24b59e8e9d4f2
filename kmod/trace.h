/* SPDX-License-Identifier: GPL-2.0 */
/* Trace sessions of an open file (kmod/trace.c). */
#ifndef VNK_TRACE_H
#define VNK_TRACE_H

#include <linux/poll.h>

struct file;
struct vm_area_struct;
struct vnk_dev_core;
struct vnk_file;

/**
 * vnk_trace_core_claimed() - the core's owner changed: which executions its session sees
 * @core: the core; the caller holds @core->lock, in the new claimer's context
 */
void vnk_trace_core_claimed(struct vnk_dev_core *core);

/**
 * vnk_trace_start_ioctl() - VNEURON_IOCTL_TRACE_START
 * @vf: the calling file
 * @data: struct vneuron_trace_start
 *
 * Return: 0, -EINVAL, -EBUSY, -EPERM, -ENOSPC, -ENOMEM, -EINTR.
 */
int vnk_trace_start_ioctl(struct vnk_file *vf, void *data);

/**
 * vnk_trace_start_undo() - TRACE_START's answer never arrived: stop the session
 * @vf: the calling file
 * @data: struct vneuron_trace_start as vnk_trace_start_ioctl() filled it
 */
void vnk_trace_start_undo(struct vnk_file *vf, void *data);

/**
 * vnk_trace_stop_ioctl() - VNEURON_IOCTL_TRACE_STOP
 * @vf: the calling file
 * @data: struct vneuron_trace_stop
 *
 * Return: 0, -EINVAL, -ENOENT, -EINTR (killed waiting for a traced execution's end).
 */
int vnk_trace_stop_ioctl(struct vnk_file *vf, void *data);

/**
 * vnk_trace_mmap() - map a ring of one of @vf's sessions (VNEURON_MMAP_TRACE_BASE and up)
 * @vf: the file
 * @vma: the new mapping
 *
 * Return: 0, -EINVAL, -EACCES.
 */
int vnk_trace_mmap(struct vnk_file *vf, struct vm_area_struct *vma);

/**
 * vnk_trace_poll() - poll() readiness of @vf's trace rings
 * @vf: the file
 * @filp: its struct file
 * @wait: the poll table
 *
 * Return: EPOLLIN | EPOLLRDNORM while a ring of its sessions holds unread records.
 */
__poll_t vnk_trace_poll(struct vnk_file *vf, struct file *filp, poll_table *wait);

/**
 * vnk_trace_release_all() - @vf is released: detach its sessions, waiting for nothing
 * @vf: the file; no ioctl of it runs
 */
void vnk_trace_release_all(struct vnk_file *vf);

#endif /* VNK_TRACE_H */
