// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Collectives (docs/metrics.md, "Collectives"): the CC events of the members of one
 * group at one collective entry in one round, joined into one collective each; per
 * opcode and per rank; nccl-tests' size, algbw and busbw.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "metrics_priv.h"
#include "vn_isa.h"
#include "../util/sorted.h"

double vnp_cc_bus_factor(unsigned int op, unsigned int n)
{
	if (!n)
		return 0;
	switch (op) {
	case VNEF_CC_ALL_REDUCE:
		return 2.0 * (n - 1) / n;
	case VNEF_CC_ALL_GATHER:
	case VNEF_CC_REDUCE_SCATTER:
	case VNEF_CC_ALL_TO_ALL:
		return (double)(n - 1) / n;
	case VNEF_CC_PERMUTE:
		return 1;
	default:
		return 0;
	}
}

uint64_t vnp_cc_size(unsigned int op, unsigned int n, uint64_t in_bytes)
{
	/* all-gather's buffer is the gathered output; the others' the input */
	return op == VNEF_CC_ALL_GATHER ? in_bytes * n : in_bytes;
}

double vnp_coll_algbw(const struct vnp_coll *c)
{
	uint64_t t = c->end - c->last_arrival;

	return t ? (double)c->size / ((double)t * 1e-12) : 0;
}

double vnp_coll_busbw(const struct vnp_coll *c)
{
	return vnp_coll_algbw(c) * vnp_cc_bus_factor(c->op, c->members);
}

/* A CC event with the key of its collective, for grouping. */
struct cc_key {
	uint32_t round, pc;
	uint16_t last;
	size_t ev;
};

static int cmp_cc_key(const void *x, const void *y)
{
	const struct cc_key *a = x, *b = y;

	return vnp_cmp(a->round, b->round) ?: vnp_cmp(a->pc, b->pc) ?:
	       vnp_cmp(a->last, b->last) ?: vnp_cmp(a->ev, b->ev);
}

static int cmp_member(const void *x, const void *y)
{
	return vnp_cmp(((const struct vnp_cc_member *)x)->ev,
		       ((const struct vnp_cc_member *)y)->ev);
}

uint32_t vnp_cc_coll_of(const struct vnp_metrics *m, size_t ev)
{
	size_t lo = m->cc_of ? VNP_LOWER_BOUND(m->cc_of, m->cc_events, ev, ev) : 0;

	return m->cc_of && lo < m->cc_events && m->cc_of[lo].ev == ev ? m->cc_of[lo].coll :
	       VNP_NONE;
}

/*
 * Groups the CC events into collectives (struct vnp_coll) and sums them per opcode and
 * per rank. NOPs are events but no collective. Memory: a few words per CC event (a
 * collective stream holds at most VNEF_MAX_CC_INSTRS entries an execution). 0 or -ENOMEM.
 */
int vnp_collectives_compute(const struct vnp_timeline *tl, struct vnp_metrics *m)
{
	struct cc_key *k;
	size_t n = 0, i, j;
	unsigned int c;

	if (!m->cc_events)
		return 0;
	k = malloc(m->cc_events * sizeof(*k));
	m->cc_of = malloc(m->cc_events * sizeof(*m->cc_of));
	m->coll = malloc(m->cc_events * sizeof(*m->coll));
	if (!k || !m->cc_of || !m->coll) {
		free(k);
		return -ENOMEM;
	}
	for (c = 0; c < tl->ncores; c++) {
		unsigned int t = c * VNEF_STREAMS + VNEF_STREAM_CC;
		uint32_t exec = 0, round = 0;

		for (i = tl->track_off[t]; i < tl->track_off[t + 1]; i++) {
			const struct vnp_ev e_copy = vnp_tl_ev(tl, i), *e = &e_copy;

			if (i == tl->track_off[t] || e->exec != exec) {
				exec = e->exec;
				round = vnp_tl_exec_round(tl, c, exec);
			}
			k[n++] = (struct cc_key){ .round = round, .pc = e->pc,
						  .last = (uint16_t)vnp_cc_last(e), .ev = i };
		}
	}
	qsort(k, n, sizeof(*k), cmp_cc_key);
	m->ncoll = 0;
	for (i = 0; i < n; i = j) {
		const struct vnp_ev e0_copy = vnp_tl_ev(tl, k[i].ev), *e0 = &e0_copy;
		struct vnp_coll *x = &m->coll[m->ncoll];
		uint64_t in = 0;

		*x = (struct vnp_coll){ .first_arrival = UINT64_MAX, .pc = k[i].pc,
					.round = k[i].round, .op = (uint16_t)vnp_cc_op(e0),
					.members = (uint16_t)vnp_cc_members(e0),
					.last_rank = k[i].last, .ev_last = k[i].ev };
		for (j = i; j < n && k[j].round == k[i].round && k[j].pc == k[i].pc &&
			    k[j].last == k[i].last; j++) {
			const struct vnp_ev e_copy = vnp_tl_ev(tl, k[j].ev), *e = &e_copy;

			m->cc_of[j] = (struct vnp_cc_member){ .ev = k[j].ev, .coll = m->ncoll };
			x->first_arrival = u64min(x->first_arrival, e->start);
			x->last_arrival = u64max(x->last_arrival, e->start + vnp_cc_wait(e));
			x->end = u64max(x->end, e->end);
			x->wait_ps += vnp_cc_wait(e);
			in = u64max(in, e->bytes);
			if (e->start >= vnp_tl_start(tl, x->ev_last))
				x->ev_last = k[j].ev;
			x->seen++;
		}
		x->size = vnp_cc_size(x->op, x->members, in);
		if (x->op != VNEF_CC_NOP)
			m->ncoll++;
		else
			for (; i < j; i++)	/* a NOP is no collective */
				m->cc_of[i].coll = VNP_NONE;
	}
	free(k);
	qsort(m->cc_of, n, sizeof(*m->cc_of), cmp_member);
	/* per opcode, then per rank */
	for (i = 0; i < m->ncoll; i++) {
		const struct vnp_coll *x = &m->coll[i];
		struct vnp_cc_op *o = &m->cc_op[x->op];

		o->count++;
		o->bytes += x->size;
		o->time_ps += x->end - x->last_arrival;
		o->bus_bytes += (double)x->size * vnp_cc_bus_factor(x->op, x->members);
		o->wait_ps += x->wait_ps;
		if (x->last_arrival > x->first_arrival && x->last_rank < VNEF_CC_MAX_RANKS) {
			m->cc_rank[x->last_rank].last++;
			m->cc_rank[x->last_rank].caused_ps += x->wait_ps;
			m->cc_rank[x->last_rank].late_ps += x->last_arrival - x->first_arrival;
		}
	}
	for (i = 0; i < n; i++) {
		const struct vnp_ev e_copy = vnp_tl_ev(tl, m->cc_of[i].ev), *e = &e_copy;
		unsigned int r = vnp_cc_rank(e);

		if (m->cc_of[i].coll == VNP_NONE || r >= VNEF_CC_MAX_RANKS)
			continue;
		if (!m->cc_rank[r].count)
			m->cc_rank[r].core = e->core;
		m->cc_rank[r].count++;
		m->cc_rank[r].waited_ps += vnp_cc_wait(e);
		if (r + 1 > m->cc_nranks)
			m->cc_nranks = r + 1;
	}
	return 0;
}
