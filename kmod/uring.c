// SPDX-License-Identifier: GPL-2.0
/*
 * EXEC through io_uring: IORING_OP_URING_CMD with cmd_op VNEURON_URING_CMD_EXEC
 * (docs/uapi.md). The command is validated and queued like the EXEC ioctl, but never
 * enters the file's exec table: its CQE is posted when the execution ends.
 *
 * There is no cancellation callback for uring commands in 6.1. Instead a command's
 * execution belongs to the submitting process like an ioctl one: when that process
 * closes the device file or exits, flush() cancels it (kmod/exec.c), its CQE is posted
 * promptly, and io_uring's ring teardown, which waits for every request, never waits
 * for long. Otherwise an execution always ends on its own (its host time limit, RESET,
 * unload). The executor's completion runs on a worker; the status is copied out and the
 * CQE posted from task work in the submitter's context (or io_uring's fallback worker
 * if that task is exiting, which has no user memory to write to).
 */
#include <linux/io_uring.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "exec.h"
#include "file.h"
#include "uring.h"
#include "vneuron.h"

struct vnk_uring_pdu {
	struct vnk_exec *kx;		/* set by the completion */
	u64 status_ptr;
};

static_assert(sizeof(struct vnk_uring_pdu) <= sizeof_field(struct io_uring_cmd, pdu));
/* The command must fit the 16 bytes of a 64-byte SQE. */
static_assert(sizeof(struct vneuron_uring_cmd) == 16);

static struct vnk_uring_pdu *vnk_uring_pdu(struct io_uring_cmd *cmd)
{
	return (struct vnk_uring_pdu *)cmd->pdu;
}

static int vnk_uring_res(u32 status)
{
	switch (status) {
	case VNEURON_EXEC_OK:
		return 0;
	case VNEURON_EXEC_TIMEOUT:
		return -ETIMEDOUT;
	case VNEURON_EXEC_ABORTED:
		return -ECANCELED;
	default:
		return -EIO;
	}
}

static void vnk_uring_finish(struct io_uring_cmd *cmd, unsigned int issue_flags)
{
	struct vnk_uring_pdu *pdu = vnk_uring_pdu(cmd);
	struct vneuron_wait w = { 0 };
	int res;

	vnk_exec_result(pdu->kx, &w);
	vnk_exec_release(pdu->kx);
	res = vnk_uring_res(w.status);
	if (pdu->status_ptr) {
		/* A dying task or the fallback worker: nobody is left to read it. */
		if ((current->flags & (PF_EXITING | PF_KTHREAD)) || !current->mm)
			res = -ECANCELED;
		else if (copy_to_user(u64_to_user_ptr(pdu->status_ptr), &w, sizeof(w)))
			res = -EFAULT;
	}
	vnk_uring_cmd_done(cmd, res, 0, issue_flags);
}

#if VNK_URING_ISSUE_FLAGS
static void vnk_uring_task_work(struct io_uring_cmd *cmd, unsigned int issue_flags)
{
	vnk_uring_finish(cmd, issue_flags);
}
#else
static void vnk_uring_task_work(struct io_uring_cmd *cmd)
{
	vnk_uring_finish(cmd, 0);
}
#endif

/* From an executor worker, no lock held: the rest needs the submitter's context. */
static void vnk_uring_exec_done(struct vnk_exec *kx, void *arg)
{
	struct io_uring_cmd *cmd = arg;

	vnk_uring_pdu(cmd)->kx = kx;
	io_uring_cmd_complete_in_task(cmd, vnk_uring_task_work);
}

static int vnk_uring_exec(struct vnk_file *vf, struct io_uring_cmd *cmd, unsigned int issue_flags)
{
	const struct vneuron_uring_cmd *uc = cmd->cmd;
	struct vnk_uring_pdu *pdu = vnk_uring_pdu(cmd);
	struct vneuron_exec arg;
	u64 exec_ptr;
	int ret;

	/* Registered buffers mean nothing here; completion is by CQE, not polling. */
	if (cmd->flags & IORING_URING_CMD_FIXED)
		return -EINVAL;
	if (issue_flags & IO_URING_F_IOPOLL)
		return -EOPNOTSUPP;
	/* A 128-byte SQE's command area is 80 bytes: the rest is reserved. */
	if ((issue_flags & IO_URING_F_SQE128) && memchr_inv(uc + 1, 0, 64))
		return -EINVAL;
	/* The SQE is shared with userspace: read each field once. */
	exec_ptr = READ_ONCE(uc->exec_ptr);
	pdu->status_ptr = READ_ONCE(uc->status_ptr);
	pdu->kx = NULL;
	if (copy_from_user(&arg, u64_to_user_ptr(exec_ptr), sizeof(arg)))
		return -EFAULT;
	if (arg.exec_id)
		return -EINVAL;
	ret = vnk_exec_async(vf, &arg, vnk_uring_exec_done, cmd);
	return ret ? ret : -EIOCBQUEUED;
}

int vnk_uring_cmd(struct io_uring_cmd *cmd, unsigned int issue_flags)
{
	struct vnk_file *vf = cmd->file->private_data;

	/* As for the ioctls: a read-only descriptor may only query. */
	if (!vf->writable)
		return -EBADF;
	switch (cmd->cmd_op) {
	case VNEURON_URING_CMD_EXEC:
		return vnk_uring_exec(vf, cmd, issue_flags);
	default:
		return -ENOTTY;
	}
}
