// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The CC-core's worker: runs the collective stream of the current execution, whose
 * collectives wait for the other ranks of its communicator (core/vn_comm.h).
 */
#include "vn_sched.h"
#include "vn_comm.h"

#define VN_SPIN_NS	20000	/* the CC-core polls a semaphore this long before sleeping */

/*
 * The CC-core waits for sem >= val. 0, or -EINTR when the execution is ending. It first
 * polls for up to VN_SPIN_NS, yielding the CPU, without the lock: most hand-offs take
 * microseconds, less than a sleep and a wake-up cost. sem_val is read racily there and
 * again under the lock.
 */
static int wait_sem(struct vn_core *c, u32 sid, u32 sem, u32 val)
{
	u64 until;
	int r = 0;

	if (c->sem_val[sem] < val && !c->abort) {
		vn_lock_drop(c->lock);
		until = vn_time_ns() + VN_SPIN_NS;
		while (vn_load_acquire(&c->sem_val[sem]) < val && !vn_load_acquire(&c->abort) &&
		       vn_time_ns() < until)
			vn_thread_yield();
		vn_lock_take(c->lock);
	}
	while (c->sem_val[sem] < val) {
		if (c->abort) {
			r = -EINTR;
			break;
		}
		vn_stream_block(c, sid, sem, val);
		if (vn_deadlocked(c)) {
			vn_set_abort(c, VN_RES_TIMEOUT, VN_REASON_DEADLOCK, sid, c->ss[sid].pc);
			r = -EINTR;
			break;
		}
		if (vn_cond_wait_worker(c->wcond[VN_CC_WORKER], c->lock, vn_wait_deadline(c)) ==
		    -ETIMEDOUT &&
		    c->sem_val[sem] < val && vn_time_ns() >= vn_wait_deadline(c)) {
			vn_set_abort(c, VN_RES_TIMEOUT, VN_REASON_TIME_LIMIT, sid, c->ss[sid].pc);
			r = -EINTR;
			break;
		}
	}
	c->ss[sid].state = VN_SS_RUN;
	return r;
}

/*
 * The collective engine's side of a collective: the executor's own check of both HBM
 * ranges for the actual group (the validator could only check one rank's share), then
 * the rendezvous. 0, or -EFAULT with f filled in, or the rendezvous's error.
 */
static int cc_collective(struct vn_core *c, struct vn_exec *ex, const struct vnef_cc_instr *in,
			 u64 start, struct vn_cc_result *res, struct vn_fault *f)
{
	const struct vn_cc_opcode_info *info = vn_cc_opcode_info(in->opcode);
	u32 members[VN_COMM_MAX_RANKS], idx, g;
	const struct vn_bind *src, *dst;
	struct vn_cc_args a;
	u64 inb, outb, end;

	g = vn_cc_group(vn_comm_size(ex->comm), ex->rank, in->group_size, in->group_stride,
			members, &idx);
	inb = vn_cc_in_bytes(info->comm_op, g ? g : 1, in->dtype, in->count);
	outb = vn_cc_out_bytes(info->comm_op, g ? g : 1, in->dtype, in->count);
	if (in->src_tensor >= ex->prog->tensor_count || in->dst_tensor >= ex->prog->tensor_count) {
		*f = (struct vn_fault){ .mem = VNEF_MEM_HBM, .index = in->src_tensor };
		return -EFAULT;
	}
	src = &ex->binds[in->src_tensor];
	dst = &ex->binds[in->dst_tensor];
	if (!inb || check_add_overflow(in->src_offset, inb, &end) || end > src->size ||
	    end > ex->prog->tensors[in->src_tensor].size) {
		*f = (struct vn_fault){ .mem = VNEF_MEM_HBM, .index = in->src_tensor,
					.offset = in->src_offset, .len = inb };
		return -EFAULT;
	}
	if (!outb || check_add_overflow(in->dst_offset, outb, &end) || end > dst->size ||
	    end > ex->prog->tensors[in->dst_tensor].size) {
		*f = (struct vn_fault){ .mem = VNEF_MEM_HBM, .index = in->dst_tensor,
					.offset = in->dst_offset, .len = outb };
		return -EFAULT;
	}
	a = (struct vn_cc_args){
		.op = info->comm_op, .dtype = in->dtype,
		.reduce = in->reduce == VNEF_ALU_MAX ? VN_CC_MAX : VN_CC_SUM,
		.group_size = in->group_size, .group_stride = in->group_stride,
		.shift = in->shift, .count = in->count,
		.in = (const u8 *)src->ptr + in->src_offset,
		.out = (u8 *)dst->ptr + in->dst_offset,
	};
	return vn_comm_collective(ex->comm, ex->rank, &a, start, c->deadline_ns, &c->abort, res);
}

/* Runs the collective stream; returns with c->lock held and maybe an execution to complete. */
struct vn_exec *vn_run_cc(struct vn_core *c, struct vn_exec *ex)
{
	const u32 sid = VNEF_STREAM_CC;
	const struct vn_stream *st = &ex->prog->streams[sid];
	struct vn_stream_run *r = &c->ss[sid];
	struct vn_cc_result res;
	struct vn_fault f;
	struct vn_event ev;
	u32 pc;
	int ret;

	for (pc = 0; pc < st->count; pc++) {
		const struct vnef_cc_instr *in = &st->cc[pc];
		u64 start = r->t_ps;

		r->pc = pc;
		if (vn_load_acquire(&c->abort))
			break;
		if (vn_time_ns() > c->deadline_ns) {
			vn_lock_take(c->lock);
			vn_set_abort(c, VN_RES_TIMEOUT, VN_REASON_TIME_LIMIT, sid, pc);
			vn_lock_drop(c->lock);
			break;
		}
		if (in->flags & VNEF_IF_WAIT) {
			vn_lock_take(c->lock);
			if (!vn_wait_ok(ex, in->wait_sem, in->wait_value, start, &f)) {
				vn_set_fault(c, VN_REASON_FAULT_SEM, sid, pc, &f);
				vn_lock_drop(c->lock);
				break;
			}
			if (wait_sem(c, sid, in->wait_sem, in->wait_value)) {
				vn_lock_drop(c->lock);
				break;
			}
			start = max(start, ex->sem_base[in->wait_sem][in->wait_value - 1]);
			vn_lock_drop(c->lock);
		}
		memset(&ev, 0, sizeof(ev));
		ev.opcode = in->opcode;
		ev.dma_queue = VN_NO_IDX;
		ev.dma_desc = VN_NO_IDX;
		res = (struct vn_cc_result){ .done_ps = start, .latest_ps = start,
					     .last = ex->rank, .members = 1 };
		ret = 0;
		if (in->opcode != VNEF_CC_NOP) {
			/* cleared only once a failed collective has said so (vn_set_abort()) */
			vn_store_release(&c->cc_busy, 1);
			ret = cc_collective(c, ex, in, start, &res, &f);
			if (ret == -EFAULT) {
				/*
				 * Not a validator miss (it could not know the group): a fault
				 * status even on the host, which vn_set_fault() would abort.
				 */
				f.time_ps = start;
				vn_lock_take(c->lock);
				if (!c->abort) {
					ex->st.fault = f;
					vn_set_abort(c, VN_RES_FAULT, VN_REASON_FAULT_HBM, sid, pc);
				}
				vn_lock_drop(c->lock);
				break;
			}
		}
		if (ret) {
			vn_lock_take(c->lock);
			if (ret == -ETIMEDOUT)
				vn_set_abort(c, VN_RES_TIMEOUT, VN_REASON_CC_MISSING, sid, pc);
			else if (ret == -EINVAL)
				vn_set_abort(c, VN_RES_ERROR, VN_REASON_CC_MISMATCH, sid, pc);
			else	/* -EPIPE, or -EINTR when nothing else ended it */
				vn_set_abort(c, VN_RES_ABORTED, VN_REASON_CC_PEER, sid, pc);
			vn_lock_drop(c->lock);
			break;
		}
		vn_store_release(&c->cc_busy, 0);
		if (in->opcode != VNEF_CC_NOP) {
			const struct vn_cc_opcode_info *info = vn_cc_opcode_info(in->opcode);

			ev.elements = in->count;
			ev.bytes = vn_cc_in_bytes(info->comm_op, res.members, in->dtype, in->count);
			/* busy: the transfer; the wait for the last member is not work */
			r->busy_ps += res.done_ps - res.latest_ps;
			r->bytes += ev.bytes;
			r->entries++;
		}
		ev.cc_rank = ex->rank;
		ev.cc_members = res.members;
		ev.cc_last = res.last;
		ev.cc_latest_ps = res.latest_ps;
		r->t_ps = res.done_ps;
		if (in->signal_mask) {
			vn_lock_take(c->lock);
			if (!vn_signal_sems(c, ex, in->signal_mask, r->t_ps, &f)) {
				vn_set_fault(c, VN_REASON_FAULT_SEM, sid, pc, &f);
				vn_lock_drop(c->lock);
				break;
			}
			vn_lock_drop(c->lock);
		}
		if (unlikely(c->ex_hook))
			vn_emit(c, ex, &ev, sid, pc,
				in->flags & VNEF_IF_WAIT ? in->wait_sem : VN_NO_IDX,
				in->wait_value, in->signal_mask, start, r->t_ps);
	}
	vn_store_release(&c->cc_busy, 0);
	vn_lock_take(c->lock);
	return vn_stream_done(c, sid);
}
