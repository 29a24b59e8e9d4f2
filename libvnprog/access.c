// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The builder's hazard test between two accesses (struct nd_access, vnprog_int.h): whether
 * they conflict (one writes bytes the other touches) and whether one covers the other, per
 * program id when either has a pid_stride (a logical core's two instances).
 */
#include "vnprog_int.h"
#include "vn_program.h"

/*
 * An access's bytes as program id pid makes it. b_lo and b_hi hold both instances' (so
 * the sorted search finds every candidate); two accesses are ordered only by what one
 * instance does, so conflicts and covers compare instance by instance: a store of each
 * instance's slice does not wait for the other slice's.
 */
static void at_pid(const struct nd_access *a, unsigned int pid, uint64_t *lo, uint64_t *hi)
{
	uint64_t all = (uint64_t)a->pid_stride * (VN_LNC_MAX - 1);

	*lo = a->b_lo + (uint64_t)a->pid_stride * pid;
	*hi = *lo + (a->b_hi - a->b_lo - all);
}

int nd_access_conflicts(const struct nd_access *a, const struct nd_access *r)
{
	uint64_t alo, ahi, rlo, rhi;
	unsigned int pid;

	if (a->space != r->space || !(a->write || r->write) || a->p_lo >= r->p_hi ||
	    r->p_lo >= a->p_hi || a->b_lo >= r->b_hi || r->b_lo >= a->b_hi)
		return 0;
	if (!a->pid_stride && !r->pid_stride)
		return 1;
	for (pid = 0; pid < VN_LNC_MAX; pid++) {
		at_pid(a, pid, &alo, &ahi);
		at_pid(r, pid, &rlo, &rhi);
		if (alo < rhi && rlo < ahi)
			return 1;
	}
	return 0;
}

int nd_access_covers(const struct nd_access *a, const struct nd_access *r)
{
	uint64_t alo, ahi, rlo, rhi;
	unsigned int pid;

	if (a->space != r->space || a->p_lo > r->p_lo || r->p_hi > a->p_hi)
		return 0;
	for (pid = 0; pid < VN_LNC_MAX; pid++) {
		at_pid(a, pid, &alo, &ahi);
		at_pid(r, pid, &rlo, &rhi);
		if (alo > rlo || rhi > ahi)
			return 0;
		if (!a->pid_stride && !r->pid_stride)
			break;
	}
	return 1;
}
