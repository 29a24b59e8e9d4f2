/* SPDX-License-Identifier: GPL-2.0 */
/* Programs: validated .vnef images in a per-file table (kmod/program.c). */
#ifndef VNK_PROGRAM_H
#define VNK_PROGRAM_H

#include <linux/types.h>

struct vn_program;	/* core/vn_program.h */
struct vnk_file;

/**
 * vnk_program_load_ioctl() - VNEURON_IOCTL_PROGRAM_LOAD
 * @vf: the calling file
 * @data: struct vneuron_program_load; on a refused image, which check failed
 *
 * Return: 0, -EINVAL, -E2BIG, -ENOSPC, -ENOMEM, -EFAULT, -EINTR.
 */
int vnk_program_load_ioctl(struct vnk_file *vf, void *data);

/**
 * vnk_program_load_undo() - PROGRAM_LOAD's handle never reached the caller: unload it
 * @vf: the calling file
 * @data: struct vneuron_program_load as vnk_program_load_ioctl() filled it
 */
void vnk_program_load_undo(struct vnk_file *vf, void *data);

/**
 * vnk_program_unload_ioctl() - VNEURON_IOCTL_PROGRAM_UNLOAD
 * @vf: the calling file
 * @data: struct vneuron_program_unload
 *
 * Return: 0, -EINVAL, -ENOENT.
 */
int vnk_program_unload_ioctl(struct vnk_file *vf, void *data);

/**
 * vnk_program_get() - a program of @vf by handle, with a reference
 * @vf: the file
 * @handle: the handle
 *
 * Return: the program, which the caller drops with vn_program_put(), or NULL.
 */
struct vn_program *vnk_program_get(struct vnk_file *vf, u32 handle);

/**
 * vnk_program_release_all() - @vf is released: unload its programs
 * @vf: the file
 *
 * Submitted executions keep theirs.
 */
void vnk_program_release_all(struct vnk_file *vf);

#endif /* VNK_PROGRAM_H */
