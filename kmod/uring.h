/* SPDX-License-Identifier: GPL-2.0 */
/* io_uring commands (kmod/uring.c). */
#ifndef VNK_URING_H
#define VNK_URING_H

struct io_uring_cmd;

/**
 * vnk_uring_cmd() - the file's uring_cmd operation: VNEURON_URING_CMD_EXEC
 * @cmd: the command
 * @issue_flags: IO_URING_F_*
 *
 * Return: -EIOCBQUEUED (the CQE comes when the execution ends), or a negative errno:
 * -EBADF (read-only file), -ENOTTY (unknown command), -EOPNOTSUPP (IOPOLL ring), or
 * what EXEC would give.
 */
int vnk_uring_cmd(struct io_uring_cmd *cmd, unsigned int issue_flags);

#endif /* VNK_URING_H */
