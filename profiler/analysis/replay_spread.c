// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * spread (dma-queue-bound, docs/profiler.md "Replay"): a queue's descriptors round robin
 * over it and the empty queues, each signalling a semaphore of its own, and the engines'
 * waits rewired through NOPs to wait for every queue's share.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "replay_priv.h"
#include "vn_isa.h"
#include "vn_program.h"

/* Semaphores nobody signals or waits for, lowest first; how many were found. */
unsigned int rp_free_sems(const struct pimg *g, uint32_t *out, unsigned int want)
{
	uint64_t used = 0;
	unsigned int i, j, n = 0;

	for (i = 0; i < VNEF_ENGINES; i++)
		for (j = 0; j < g->nin[i]; j++) {
			used |= g->in[i][j].signal_mask;
			if (g->in[i][j].flags & VNEF_IF_WAIT)
				used |= 1ull << g->in[i][j].wait_sem;
		}
	for (i = 0; i < VNEF_DMA_QUEUES; i++)
		for (j = 0; j < g->nd[i]; j++) {
			used |= g->d[i][j].signal_mask;
			if (g->d[i][j].flags & VNEF_IF_WAIT)
				used |= 1ull << g->d[i][j].wait_sem;
		}
	for (j = 0; j < g->ncc; j++) {
		used |= g->cc[j].signal_mask;
		if (g->cc[j].flags & VNEF_IF_WAIT)
			used |= 1ull << g->cc[j].wait_sem;
	}
	for (i = 0; i < VNEF_MAX_SEMS && n < want; i++)
		if (!(used & (1ull << i)))
			out[n++] = i;
	return n;
}

/* One spread queue: its target queues, their new semaphores, pieces per target so far. */
struct sq {
	uint32_t q, k, n;
	uint32_t tq[VNEF_DMA_QUEUES], c[VNEF_DMA_QUEUES];
	uint32_t *cnt;			/* [n][k]: pieces on each target up to descriptor i */
	uint32_t *sig[VNEF_MAX_SEMS];	/* desc index of each increment of q's semaphores */
	uint32_t nsig[VNEF_MAX_SEMS];
	uint64_t mask;			/* q's semaphores */
};

/*
 * Rewrites engine e so that each instruction waiting for a spread queue's k-th signal
 * waits instead for every target of that queue to have finished its pieces of the
 * descriptors up to the one that made the signal: NOPs on the targets' semaphores, the
 * instruction itself on the last one.
 */
static int rewire_engine(struct pimg *g, unsigned int e, const struct sq *sq, unsigned int nsq)
{
	struct vnef_instr *old = g->in[e], *nw;
	uint32_t n = g->nin[e], extra = 0, i, j, o = 0, *map, dn, x;
	struct vnef_debug *dbg;

	for (i = 0; i < n; i++)
		for (x = 0; x < nsq; x++)
			if ((old[i].flags & VNEF_IF_WAIT) && (sq[x].mask >> old[i].wait_sem & 1))
				extra += sq[x].k - 1;
	if (!extra)
		return 0;
	nw = calloc(n + extra, sizeof(*nw));
	map = calloc(n ? n : 1, sizeof(*map));
	dbg = calloc(g->ndbg + extra + 1, sizeof(*dbg));
	if (!nw || !map || !dbg) {
		free(nw);
		free(map);
		free(dbg);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		const struct vnef_instr *in = &old[i];
		const struct sq *w = NULL;
		uint32_t v, d, last = 0;

		for (x = 0; x < nsq && (in->flags & VNEF_IF_WAIT); x++)
			if (sq[x].mask >> in->wait_sem & 1)
				w = &sq[x];
		if (!w) {
			nw[o] = *in;
			map[i] = o++;
			continue;
		}
		v = in->wait_value < w->nsig[in->wait_sem] ? in->wait_value :
		    w->nsig[in->wait_sem];
		d = w->sig[in->wait_sem][v - 1];
		for (j = 0; j < w->k; j++)
			if (w->cnt[d * w->k + j])
				last = j;
		for (j = 0; j < w->k; j++) {
			struct vnef_instr *y = &nw[o];
			uint32_t need = w->cnt[d * w->k + j];

			if (j != last) {
				memset(y, 0, sizeof(*y));
				y->opcode = VNEF_OP_NOP;
			} else {
				*y = *in;
				map[i] = o;
			}
			o++;
			y->flags &= ~VNEF_IF_WAIT;
			y->wait_sem = 0;
			y->wait_value = 0;
			if (need) {
				y->flags |= VNEF_IF_WAIT;
				y->wait_sem = w->c[j];
				y->wait_value = need;
			}
		}
	}
	/* debug: entries of e move with their instruction; each NOP gets its owner's */
	dn = 0;
	for (i = 0; i < g->ndbg; i++) {
		struct vnef_debug y = g->dbg[i];

		if (y.stream == e && y.index < n) {
			uint32_t to = map[y.index], from = y.index ? map[y.index - 1] + 1 : 0;

			for (j = from; j <= to; j++) {
				y.index = j;
				dbg[dn++] = y;
			}
			continue;
		}
		dbg[dn++] = y;
	}
	free(map);
	free(g->in[e]);
	free(g->dbg);
	g->in[e] = nw;
	g->nin[e] = o;
	g->dbg = dbg;
	g->ndbg = dn;
	return 0;
}

/* Piece p of parts of descriptor d, cut along its outer dimension that has rows. */
static struct vnef_dma_desc piece(const struct vnef_dma_desc *d, uint32_t p, uint32_t parts)
{
	struct vnef_dma_desc x = *d;
	unsigned int dim = d->count[1] > 1 ? 1 : 0;
	uint32_t rows = d->count[dim], r0 = (uint32_t)((uint64_t)rows * p / parts);
	uint32_t r1 = (uint32_t)((uint64_t)rows * (p + 1) / parts);

	x.count[dim] = r1 - r0;
	x.src.offset += (uint64_t)r0 * d->src.stride[dim];
	x.src.partition += r0 * d->src.part_stride[dim];
	x.dst.offset += (uint64_t)r0 * d->dst.stride[dim];
	x.dst.partition += r0 * d->dst.part_stride[dim];
	return x;
}

/* Spreads the queue of s over its targets: pieces round robin, counts per target. */
static int spread_one(struct pimg *g, struct sq *s, struct vnef_dma_desc **nd, uint32_t *nnd)
{
	const struct vnef_dma_desc *old = g->d[s->q];
	uint32_t i, p, t = 0, parts, total = 0, rows, *pos;

	s->n = g->nd[s->q];
	s->cnt = calloc((size_t)s->n * s->k + 1, sizeof(*s->cnt));
	pos = calloc(s->k, sizeof(*pos));
	if (!s->cnt || !pos) {
		free(pos);
		return -ENOMEM;
	}
	/* fewer descriptors than queues: cut each in pieces */
	parts = s->n < s->k ? (s->k + s->n - 1) / s->n : 1;
	for (i = 0; i < s->n; i++) {
		rows = old[i].count[old[i].count[1] > 1 ? 1 : 0];
		total += parts < rows ? parts : rows;
	}
	for (i = 0; i < s->k; i++) {
		nd[i] = calloc(total / s->k + 2, sizeof(**nd));
		if (!nd[i]) {
			free(pos);
			return -ENOMEM;
		}
	}
	for (i = 0; i < s->n; i++) {
		uint32_t np;

		rows = old[i].count[old[i].count[1] > 1 ? 1 : 0];
		np = parts < rows ? parts : rows;
		for (p = 0; p < np; p++, t = (t + 1) % s->k) {
			struct vnef_dma_desc x = piece(&old[i], p, np);

			x.signal_mask = 1ull << s->c[t];
			nd[t][nnd[t]++] = x;
			pos[t]++;
		}
		memcpy(&s->cnt[(size_t)i * s->k], pos, s->k * sizeof(*pos));
	}
	free(pos);
	return 0;
}

int vnp_replay_spread(struct vnp_replay *r, uint32_t qmask, uint64_t *ps, char *what,
		      size_t len)
{
	struct sq sq[VNEF_DMA_QUEUES] = { 0 };
	struct vnef_dma_desc *nd[VNEF_DMA_QUEUES][VNEF_DMA_QUEUES] = { { 0 } };
	uint32_t nnd[VNEF_DMA_QUEUES][VNEF_DMA_QUEUES] = { { 0 } };
	uint32_t c[VNEF_MAX_SEMS], nsq = 0, nfree = 0, i, j, x, s, ksum = 0, before = 0, after;
	struct pimg g;
	int ret;

	ret = rp_pimg_load(&g, r->p);
	if (ret)
		return ret;
	for (i = 0; i < VNEF_DMA_QUEUES; i++) {
		if ((qmask >> i & 1) && g.nd[i]) {
			sq[nsq].q = i;
			sq[nsq].tq[0] = i;
			sq[nsq++].k = 1;
			before += g.nd[i];
		}
		nfree += !g.nd[i];
	}
	ret = -ENOTSUP;
	if (!nsq || !nfree) {
		rp_msg(what, len, nsq ? "every queue is in use" : "no queue to spread");
		goto out;
	}
	/* the free queues in turn to the spread queues */
	for (i = 0, x = 0; i < VNEF_DMA_QUEUES; i++)
		if (!g.nd[i]) {
			sq[x].tq[sq[x].k++] = i;
			x = (x + 1) % nsq;
		}
	for (x = 0; x < nsq; x++)
		ksum += sq[x].k;
	if (rp_free_sems(&g, c, ksum) < ksum) {
		rp_msg(what, len, "not enough free semaphores to join the queues");
		goto out;
	}
	for (x = 0, j = 0; x < nsq; x++) {
		for (i = 0; i < sq[x].k; i++)
			sq[x].c[i] = c[j++];
		for (i = 0; i < g.nd[sq[x].q]; i++)
			sq[x].mask |= g.d[sq[x].q][i].signal_mask;
	}
	/* only engines may wait on a spread queue: a queue cannot run the joining NOPs */
	for (i = 0; i < VNEF_DMA_QUEUES; i++)
		for (j = 0; j < g.nd[i]; j++)
			for (x = 0; x < nsq; x++)
				if ((g.d[i][j].flags & VNEF_IF_WAIT) &&
				    (sq[x].mask >> g.d[i][j].wait_sem & 1)) {
					rp_msg(what, len, "a DMA descriptor waits for a queue to spread");
					goto out;
				}
	for (j = 0; j < g.ncc; j++)
		for (x = 0; x < nsq; x++)
			if ((g.cc[j].flags & VNEF_IF_WAIT) && (sq[x].mask >> g.cc[j].wait_sem & 1)) {
				rp_msg(what, len, "a collective waits for a queue to spread");
				goto out;
			}
	for (x = 0; x < nsq; x++) {
		struct sq *q = &sq[x];

		for (s = 0; s < VNEF_MAX_SEMS; s++) {
			if (!(q->mask >> s & 1))
				continue;
			q->sig[s] = calloc(g.nd[q->q], sizeof(**q->sig));
			if (!q->sig[s]) {
				ret = -ENOMEM;
				goto out;
			}
			for (i = 0; i < g.nd[q->q]; i++)
				if (g.d[q->q][i].signal_mask >> s & 1)
					q->sig[s][q->nsig[s]++] = i;
		}
		ret = spread_one(&g, q, nd[x], nnd[x]);
		if (ret)
			goto out;
	}
	/* debug entries follow their descriptor's first piece */
	for (i = 0; i < g.ndbg; i++)
		for (x = 0; x < nsq; x++)
			if (g.dbg[i].stream == VNEF_STREAM_DMA(sq[x].q) && g.dbg[i].index < sq[x].n) {
				uint32_t d = g.dbg[i].index, t, k = sq[x].k;
				uint32_t before_d = 0;

				for (t = 0; t < k; t++)
					before_d += d ? sq[x].cnt[(d - 1) * k + t] : 0;
				t = before_d % k;
				g.dbg[i].stream = VNEF_STREAM_DMA(sq[x].tq[t]);
				g.dbg[i].index = d ? sq[x].cnt[(d - 1) * k + t] : 0;
				break;
			}
	after = 0;
	for (x = 0; x < nsq; x++)
		for (i = 0; i < sq[x].k; i++) {
			free(g.d[sq[x].tq[i]]);
			g.d[sq[x].tq[i]] = nd[x][i];
			g.nd[sq[x].tq[i]] = nnd[x][i];
			after += nnd[x][i];
			nd[x][i] = NULL;
		}
	for (i = 0; i < VNEF_ENGINES; i++) {
		ret = rewire_engine(&g, i, sq, nsq);
		if (ret)
			goto out;
	}
	ret = rp_run(r, &g, ps);
	if (!ret && nsq == 1 && after == before)
		snprintf(what, len, "spreading q%u's %u descriptors over %u queues", sq[0].q,
			 before, sq[0].k);
	else if (!ret)
		snprintf(what, len, "spreading %u queues' %u descriptors as %u over %u queues",
			 nsq, before, after, ksum);
out:
	for (x = 0; x < VNEF_DMA_QUEUES; x++) {
		for (i = 0; i < VNEF_DMA_QUEUES; i++)
			free(nd[x][i]);
		free(sq[x].cnt);
		for (s = 0; s < VNEF_MAX_SEMS; s++)
			free(sq[x].sig[s]);
	}
	rp_pimg_free(&g);
	return ret;
}
