// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Replayed gains: change a copy of the program's tables, write them as an image, and run
 * it on a host core. The core runs the numerics too (on zeroed inputs): that keeps the
 * replay the very executor the profile came from, at the price of host time, which is
 * small for the kernels a profile shows.
 *
 * Collectives: the collective stream goes into every rebuilt image unchanged (waits on
 * semaphores whose increments a fix removes are renumbered like the others), and an
 * image with one runs on as many host cores as a communicator it fits needs (see
 * replay_ranks()), one rank each, all submitted at once; rank 0's time is the replay's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "vn_comm.h"
#include "vn_exec.h"
#include "vn_isa.h"
#include "vn_program.h"

struct pimg {
	struct vnef_instr *in[VNEF_ENGINES];
	uint32_t nin[VNEF_ENGINES];
	struct vnef_dma_desc *d[VNEF_DMA_QUEUES];
	uint32_t nd[VNEF_DMA_QUEUES];
	struct vnef_cc_instr *cc;	/* the collective stream: no fix changes its work */
	uint32_t ncc;
	struct vnef_debug *dbg;
	uint32_t ndbg;
};

/*
 * After a transform renumbered stream's first n entries (map[old] = new, bit 31: dropped),
 * its debug records follow: renumbered, or gone with their entry.
 */
static void remap_debug(struct pimg *g, uint32_t stream, const uint32_t *map, uint32_t n)
{
	uint32_t i, j;

	for (i = 0, j = 0; i < g->ndbg; i++) {
		struct vnef_debug x = g->dbg[i];

		if (x.stream == stream && x.index < n) {
			if (map[x.index] & 0x80000000u)
				continue;
			x.index = map[x.index];
		}
		g->dbg[j++] = x;
	}
	g->ndbg = j;
}

struct vnp_replay {
	const struct vnp_prog *p;
	const struct vn_program *vp;
	struct vneuron_model m;
	uint64_t base;
};

static void pimg_free(struct pimg *g)
{
	unsigned int i;

	for (i = 0; i < VNEF_ENGINES; i++)
		free(g->in[i]);
	for (i = 0; i < VNEF_DMA_QUEUES; i++)
		free(g->d[i]);
	free(g->cc);
	free(g->dbg);
	memset(g, 0, sizeof(*g));
}

static void *dup_or_empty(const void *src, size_t n)
{
	void *d = malloc(n ? n : 1);

	if (d && n)
		memcpy(d, src, n);
	return d;
}

static int pimg_load(struct pimg *g, const struct vnp_prog *p)
{
	unsigned int i;

	memset(g, 0, sizeof(*g));
	g->ncc = p->ncc;
	g->cc = dup_or_empty(p->cc, (size_t)p->ncc * sizeof(*p->cc));
	if (!g->cc)
		goto nomem;
	for (i = 0; i < VNEF_ENGINES; i++) {
		g->nin[i] = p->ninstr[i];
		g->in[i] = dup_or_empty(p->instr[i], p->ninstr[i] * sizeof(*p->instr[i]));
		if (!g->in[i])
			goto nomem;
	}
	for (i = 0; i < VNEF_DMA_QUEUES; i++) {
		g->nd[i] = p->ndesc[i];
		g->d[i] = dup_or_empty(p->desc[i], p->ndesc[i] * sizeof(*p->desc[i]));
		if (!g->d[i])
			goto nomem;
	}
	g->ndbg = p->ndebug;
	g->dbg = dup_or_empty(p->debug, p->ndebug * sizeof(*p->debug));
	if (g->dbg)
		return 0;
nomem:
	pimg_free(g);
	return -ENOMEM;
}

static int cmp_dbg(const void *x, const void *y)
{
	const struct vnef_debug *a = x, *b = y;

	if (a->stream != b->stream)
		return a->stream < b->stream ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

#define ALIGN8(x)	(((x) + 7) & ~(uint64_t)7)

/* The tables as a .vnef image: header, section table, then each section 8-aligned. */
static int pimg_write(const struct vnp_replay *r, struct pimg *g, void **imgp, size_t *sizep)
{
	const struct vnp_prog *p = r->p;
	struct vnef_section sec[VNEF_MAX_SECTIONS];
	const void *data[VNEF_MAX_SECTIONS];
	struct vnef_header *h;
	unsigned int ns = 0, i;
	uint64_t off;
	uint8_t *img;

#define ADD(t, idx, ptr, bytes, cnt, esz) do {					\
		sec[ns] = (struct vnef_section){ .type = (t), .index = (idx),	\
			.size = (bytes), .count = (cnt), .entry_size = (esz) };	\
		data[ns++] = (ptr);						\
	} while (0)

	ADD(VNEF_SEC_STRTAB, 0, p->strtab, p->strtab_size, 0, 0);
	ADD(VNEF_SEC_TENSORS, 0, p->tensors, (uint64_t)p->ntensors * sizeof(*p->tensors),
	    p->ntensors, sizeof(*p->tensors));
	if (r->vp->const_size)
		ADD(VNEF_SEC_CONST, 0, r->vp->consts, r->vp->const_size, 0, 0);
	for (i = 0; i < VNEF_ENGINES; i++)
		if (g->nin[i])
			ADD(VNEF_SEC_INSTR, i, g->in[i], (uint64_t)g->nin[i] * sizeof(*g->in[i]),
			    g->nin[i], sizeof(*g->in[i]));
	for (i = 0; i < VNEF_DMA_QUEUES; i++)
		if (g->nd[i])
			ADD(VNEF_SEC_DMA, i, g->d[i], (uint64_t)g->nd[i] * sizeof(*g->d[i]),
			    g->nd[i], sizeof(*g->d[i]));
	if (g->ncc)
		ADD(VNEF_SEC_CC, 0, g->cc, (uint64_t)g->ncc * sizeof(*g->cc), g->ncc,
		    sizeof(*g->cc));
	if (g->ndbg) {
		qsort(g->dbg, g->ndbg, sizeof(*g->dbg), cmp_dbg);
		ADD(VNEF_SEC_DEBUG, 0, g->dbg, (uint64_t)g->ndbg * sizeof(*g->dbg), g->ndbg,
		    sizeof(*g->dbg));
	}
#undef ADD
	off = ALIGN8(sizeof(*h) + ns * sizeof(*sec));
	for (i = 0; i < ns; i++) {
		sec[i].offset = off;
		off = ALIGN8(off + sec[i].size);
	}
	img = calloc(1, off);
	if (!img)
		return -ENOMEM;
	h = (struct vnef_header *)img;
	/* the version of the image the profile came from (2 with a collective stream) */
	*h = (struct vnef_header){ .magic = VNEF_MAGIC,
				   .version = ((const struct vnef_header *)r->vp->image)->version,
				   .header_size = sizeof(*h), .total_size = off,
				   .section_count = ns, .section_entry_size = sizeof(*sec) };
	if (p->name && p->strtab && p->name >= p->strtab && p->name < p->strtab + p->strtab_size)
		h->name_off = (uint32_t)(p->name - p->strtab);
	memcpy(img + sizeof(*h), sec, ns * sizeof(*sec));
	for (i = 0; i < ns; i++)
		if (sec[i].size)
			memcpy(img + sec[i].offset, data[i], sec[i].size);
	*imgp = img;
	*sizep = off;
	return 0;
}

/* At most this many host cores replay a program with collectives. */
#define REPLAY_MAX_RANKS	16

static uint32_t gcd(uint32_t a, uint32_t b)
{
	while (b) {
		uint32_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * The ranks a program's collectives are replayed on: a multiple of every replica group's
 * span (group_size x group_stride) and, when a collective over every rank (group_size 0)
 * has a side that grows with the number of ranks, the largest such multiple its tensors
 * hold (so an all_gather into 8 x count replays on 8 ranks); else the smallest one of at
 * least 2 ranks. 0 when none fits REPLAY_MAX_RANKS.
 */
static uint32_t replay_ranks(const struct vn_program *p)
{
	const struct vn_stream *st = &p->streams[VNEF_STREAM_CC];
	uint64_t most = REPLAY_MAX_RANKS;
	uint32_t n = 1, i, span;
	int bounded = 0;

	for (i = 0; i < st->count; i++) {
		const struct vnef_cc_instr *in = &st->cc[i];
		const struct vn_cc_opcode_info *info = vn_cc_opcode_info(in->opcode);
		uint64_t one, k;
		int side;

		if (!info || !(info->uses & VN_CC_USES_DATA))
			continue;
		if (in->group_size) {
			span = (uint32_t)in->group_size * in->group_stride;
			n = n / gcd(n, span) * span;
			if (n > REPLAY_MAX_RANKS)
				return 0;
			continue;
		}
		for (side = 0; side < 2; side++) {
			uint64_t off = side ? in->dst_offset : in->src_offset;
			uint64_t size = p->tensors[side ? in->dst_tensor : in->src_tensor].size;

			one = side ? vn_cc_out_bytes(info->comm_op, 1, in->dtype, in->count) :
				     vn_cc_in_bytes(info->comm_op, 1, in->dtype, in->count);
			if (one == (side ? vn_cc_out_bytes(info->comm_op, 2, in->dtype, in->count) :
				     vn_cc_in_bytes(info->comm_op, 2, in->dtype, in->count)))
				continue;	/* does not grow */
			k = one && size > off ? (size - off) / one : 1;
			if (k < most)
				most = k;
			bounded = 1;
		}
	}
	if (!bounded)
		return n < 2 ? 2 : n;
	/* a multiple of n the buffers hold; if none, n (the executor then refuses it) */
	return most >= n ? (uint32_t)(most / n * n) : n;
}

int vnp_replay_image(const void *img, size_t size, const struct vneuron_model *m,
		     uint64_t *ps)
{
	struct vn_program *p = NULL;
	struct vn_core *c[REPLAY_MAX_RANKS] = { NULL };
	struct vn_exec *ex[REPLAY_MAX_RANKS] = { NULL };
	struct vn_bind *binds[REPLAY_MAX_RANKS] = { NULL };
	struct vn_comm *cm = NULL;
	struct vn_exec_status st;
	uint32_t i, k, n = 1;
	int ret;

	ret = vn_program_load(img, size, &p, NULL);
	if (ret)
		return ret == -ENOMEM ? ret : -EIO;
	if (p->streams[VNEF_STREAM_CC].count) {
		struct vn_comm_params prm = { .intra = vn_cc_intra_device,
					      .inter = vn_cc_inter_device };

		prm.nranks = n = replay_ranks(p);
		ret = n ? vn_comm_create(&prm, &cm) : -EIO;
		if (ret)
			goto out;
	}
	for (k = 0; !ret && k < n; k++) {
		binds[k] = calloc(p->tensor_count + 1, sizeof(*binds[k]));
		ret = binds[k] ? vn_core_create(m, "replay", &c[k]) : -ENOMEM;
		for (i = 0; !ret && i < p->tensor_count; i++) {
			uint32_t kind = p->tensors[i].kind;

			if (kind != VNEF_TENSOR_INPUT && kind != VNEF_TENSOR_OUTPUT)
				continue;
			binds[k][i].size = p->tensors[i].size;
			binds[k][i].ptr = calloc(1, binds[k][i].size ? binds[k][i].size : 1);
			if (!binds[k][i].ptr)
				ret = -ENOMEM;
		}
		if (ret)
			break;
		vn_core_set_fault_abort(c[k], false);
		if (cm)
			vn_core_set_comm(c[k], cm, k);
	}
	/* every rank's execution queued before any is waited for: they meet */
	for (k = 0; !ret && k < n; k++)
		ret = vn_exec_submit(c[k], p, binds[k], p->tensor_count, VNP_REPLAY_LIMIT_NS, NULL,
				     NULL, &ex[k]);
	for (k = 0; !ret && k < n; k++) {
		ret = vn_exec_wait(ex[k], 0);
		if (!ret) {
			vn_exec_status(ex[k], &st);
			if (st.result != VN_RES_OK)
				ret = -EIO;
			else if (!k)
				*ps = st.model_ps;
		}
	}
out:
	/* destroying a core ends its execution: a rank left waiting gives up at once */
	for (k = 0; k < n; k++) {
		if (ex[k])
			vn_exec_put(ex[k]);
		if (c[k])
			vn_core_destroy(c[k]);
		for (i = 0; binds[k] && i < p->tensor_count; i++)
			free(binds[k][i].ptr);
		free(binds[k]);
	}
	if (cm)
		vn_comm_put(cm);
	vn_program_put(p);
	return ret;
}

static int run(const struct vnp_replay *r, struct pimg *g, uint64_t *ps)
{
	void *img;
	size_t size;
	int ret = pimg_write(r, g, &img, &size);

	if (ret)
		return ret;
	ret = vnp_replay_image(img, size, &r->m, ps);
	free(img);
	return ret;
}

int vnp_replay_open(struct vnp_replay **rp, const struct vnp_prog *p,
		    const struct vneuron_model *m)
{
	struct vnp_replay *r;
	struct pimg g;
	int ret;

	*rp = NULL;
	if (!p || !p->owner || !p->strtab || !p->tensors)
		return -ENOENT;
	if (((const struct vn_program *)p->owner)->total_entries > VNP_REPLAY_MAX_ENTRIES)
		return -E2BIG;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->p = p;
	r->vp = p->owner;
	r->m = *m;
	ret = pimg_load(&g, p);
	if (!ret)
		ret = run(r, &g, &r->base);
	pimg_free(&g);
	if (ret) {
		free(r);
		return ret;
	}
	*rp = r;
	return 0;
}

void vnp_replay_close(struct vnp_replay *r)
{
	free(r);
}

uint64_t vnp_replay_base(const struct vnp_replay *r)
{
	return r->base;
}

/* ---- spread a queue ---- */

/* Semaphores nobody signals or waits for, lowest first; how many were found. */
static unsigned int free_sems(const struct pimg *g, uint32_t *out, unsigned int want)
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

static void msg(char *what, size_t len, const char *s)
{
	snprintf(what, len, "%s", s);
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

	ret = pimg_load(&g, r->p);
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
		msg(what, len, nsq ? "every queue is in use" : "no queue to spread");
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
	if (free_sems(&g, c, ksum) < ksum) {
		msg(what, len, "not enough free semaphores to join the queues");
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
					msg(what, len, "a DMA descriptor waits for a queue to spread");
					goto out;
				}
	for (j = 0; j < g.ncc; j++)
		for (x = 0; x < nsq; x++)
			if ((g.cc[j].flags & VNEF_IF_WAIT) && (sq[x].mask >> g.cc[j].wait_sem & 1)) {
				msg(what, len, "a collective waits for a queue to spread");
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
	ret = run(r, &g, ps);
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
	pimg_free(&g);
	return ret;
}

/* ---- merge descriptors ---- */

static int ep_step(const struct vnef_dma_ep *a, const struct vnef_dma_ep *b,
		   uint64_t *off, uint32_t *part)
{
	if (a->mem != b->mem || a->tensor != b->tensor || b->offset < a->offset ||
	    b->partition < a->partition ||
	    memcmp(a->part_stride, b->part_stride, sizeof(a->part_stride)) ||
	    a->stride[0] != b->stride[0])
		return 0;
	*off = b->offset - a->offset;
	*part = b->partition - a->partition;
	return 1;
}

/* Whether b continues a's run with the steps found so far (set on the second). */
static int continues(const struct vnef_dma_desc *a, const struct vnef_dma_desc *b,
		     uint64_t step[2], uint32_t pstep[2], int first)
{
	uint64_t o[2];
	uint32_t p[2];

	if (a->chunk_bytes != b->chunk_bytes || a->count[0] != b->count[0] ||
	    a->count[1] != 1 || b->count[1] != 1 || (b->flags & VNEF_IF_WAIT) ||
	    a->signal_mask || !ep_step(&a->src, &b->src, &o[0], &p[0]) ||
	    !ep_step(&a->dst, &b->dst, &o[1], &p[1]))
		return 0;
	if (first) {
		step[0] = o[0];
		step[1] = o[1];
		pstep[0] = p[0];
		pstep[1] = p[1];
		return 1;
	}
	return o[0] == step[0] && o[1] == step[1] && p[0] == pstep[0] && p[1] == pstep[1];
}

int vnp_replay_merge(struct vnp_replay *r, uint64_t *ps, char *what, size_t len)
{
	uint32_t before = 0, after = 0, q, i, j, o, *map = NULL;
	struct pimg g;
	int ret;

	ret = pimg_load(&g, r->p);
	if (ret)
		return ret;
	for (q = 0; q < VNEF_DMA_QUEUES; q++) {
		struct vnef_dma_desc *d = g.d[q];
		uint32_t n = g.nd[q];

		before += n;
		free(map);
		map = calloc(n ? n : 1, sizeof(*map));
		if (!map) {
			ret = -ENOMEM;
			goto out;
		}
		for (i = 0, o = 0; i < n; i = j, o++) {
			uint64_t step[2] = { 0 };
			uint32_t pstep[2] = { 0 };
			struct vnef_dma_desc m = d[i];

			map[i] = o;
			for (j = i + 1; j < n && continues(&d[j - 1], &d[j], step, pstep, j == i + 1);
			     j++)
				map[j] = o | 0x80000000u;	/* merged away */
			if (j - i > 1) {
				m.count[1] = j - i;
				m.src.stride[1] = step[0];
				m.src.part_stride[1] = pstep[0];
				m.dst.stride[1] = step[1];
				m.dst.part_stride[1] = pstep[1];
				m.signal_mask = d[j - 1].signal_mask;
			}
			d[o] = m;
		}
		g.nd[q] = o;
		after += o;
		remap_debug(&g, VNEF_STREAM_DMA(q), map, n);
	}
	ret = -ENOTSUP;
	if (after == before) {
		msg(what, len, "no run of descriptors advances by a constant step");
		goto out;
	}
	ret = run(r, &g, ps);
	if (!ret)
		snprintf(what, len, "merging %u descriptors into %u", before, after);
out:
	free(map);
	pimg_free(&g);
	return ret;
}

/* ---- batch instructions ---- */

/* b's operand continues a's by one row of a's size (or stays put: a scalar column). */
static int ap_next(const struct vnef_ap *a, const struct vnef_ap *b, int column)
{
	uint64_t row = (uint64_t)a->count[0] * vn_dtype_bytes(a->dtype);

	if (a->mem != b->mem || a->dtype != b->dtype || a->start_partition != b->start_partition ||
	    a->partitions != b->partitions || memcmp(a->count, b->count, sizeof(a->count)) ||
	    memcmp(a->stride, b->stride, sizeof(a->stride)))
		return 0;
	if (a->mem == VNEF_MEM_NONE || column)
		return a->offset == b->offset;
	return a->count[1] == 1 && a->stride[0] == 1 && b->offset == a->offset + row;
}

static int batchable(const struct vnef_instr *a, const struct vnef_instr *b)
{
	const struct vn_opcode_info *info = vn_opcode_info(a->opcode);
	uint32_t col = a->flags & (VNEF_IF_SCALAR_COLUMN | VNEF_IF_BIAS_COLUMN);

	return info && info->cost == VN_COST_ELEMENTWISE && a->opcode == b->opcode &&
	       (a->flags & ~VNEF_IF_WAIT) == (b->flags & ~VNEF_IF_WAIT) &&
	       !(b->flags & VNEF_IF_WAIT) && !a->signal_mask && a->op == b->op &&
	       !memcmp(a->imm, b->imm, sizeof(a->imm)) && ap_next(&a->dst, &b->dst, 0) &&
	       ap_next(&a->src0, &b->src0, 0) && ap_next(&a->src1, &b->src1, !!col);
}

int vnp_replay_batch(struct vnp_replay *r, unsigned int e, uint64_t *ps, char *what,
		     size_t len)
{
	uint32_t n, i, j, o, *map = NULL;
	struct vnef_instr *in;
	struct pimg g;
	int ret;

	if (e >= VNEF_ENGINES)
		return -EINVAL;
	ret = pimg_load(&g, r->p);
	if (ret)
		return ret;
	in = g.in[e];
	n = g.nin[e];
	map = calloc(n ? n : 1, sizeof(*map));
	if (!map) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0, o = 0; i < n; i = j, o++) {
		struct vnef_instr m = in[i];
		uint32_t k;

		map[i] = o;
		for (j = i + 1; j < n && batchable(&in[j - 1], &in[j]); j++)
			map[j] = o | 0x80000000u;
		k = j - i;
		if (k > 1) {
			m.dst.count[0] *= k;
			m.src0.count[0] *= k;
			if (m.src1.mem != VNEF_MEM_NONE &&
			    !(m.flags & (VNEF_IF_SCALAR_COLUMN | VNEF_IF_BIAS_COLUMN)))
				m.src1.count[0] *= k;
			m.signal_mask = in[j - 1].signal_mask;
		}
		in[o] = m;
	}
	ret = -ENOTSUP;
	if (o == n) {
		msg(what, len, "no run of instructions walks a row in equal steps");
		goto out;
	}
	remap_debug(&g, e, map, n);
	g.nin[e] = o;
	ret = run(r, &g, ps);
	if (!ret)
		snprintf(what, len, "batching %s's %u instructions into %u", vn_engine_name(e),
			 n, o);
out:
	free(map);
	pimg_free(&g);
	return ret;
}

/* ---- load once ---- */

/* An on-chip region's bounding box: partitions [p0, p1), bytes [b0, b1). */
struct box {
	uint64_t p0, p1, b0, b1;
};

static int overlap(const struct box *a, const struct box *b)
{
	return a->p0 < b->p1 && b->p0 < a->p1 && a->b0 < b->b1 && b->b0 < a->b1;
}

static struct box desc_box(const struct vnef_dma_desc *d)
{
	const struct vnef_dma_ep *e = &d->dst;
	uint64_t c1 = d->count[1] - 1, c0 = d->count[0] - 1;

	return (struct box){ e->partition,
			     e->partition + c1 * e->part_stride[1] + c0 * e->part_stride[0] + 1,
			     e->offset, e->offset + c1 * e->stride[1] + c0 * e->stride[0] +
			     d->chunk_bytes };
}

static struct box ap_box(const struct vnef_ap *a)
{
	uint64_t el = vn_dtype_bytes(a->dtype);

	return (struct box){ a->start_partition, (uint64_t)a->start_partition + a->partitions,
			     a->offset, a->offset + ((uint64_t)(a->count[1] - 1) * a->stride[1] +
			     (uint64_t)(a->count[0] - 1) * a->stride[0] + 1) * el };
}

/* Whether anything but descriptors identical to d writes where d writes. */
static int written_by_others(const struct pimg *g, const struct vnef_dma_desc *d)
{
	struct box b = desc_box(d), x;
	unsigned int q, e;
	uint32_t i;

	for (e = 0; e < VNEF_ENGINES; e++)
		for (i = 0; i < g->nin[e]; i++) {
			if (g->in[e][i].dst.mem != d->dst.mem)
				continue;
			x = ap_box(&g->in[e][i].dst);
			if (overlap(&b, &x))
				return 1;
		}
	for (q = 0; q < VNEF_DMA_QUEUES; q++)
		for (i = 0; i < g->nd[q]; i++) {
			const struct vnef_dma_desc *o = &g->d[q][i];

			if (o->dst.mem != d->dst.mem || (!memcmp(&o->src, &d->src, sizeof(o->src)) &&
			    !memcmp(&o->dst, &d->dst, sizeof(o->dst)) &&
			    !memcmp(o->count, d->count, sizeof(o->count)) &&
			    o->chunk_bytes == d->chunk_bytes))
				continue;
			x = desc_box(o);
			if (overlap(&b, &x))
				return 1;
		}
	return 0;
}

/* A wait (an entry's flags, sem and value) on s past the removed k-th increment: one less. */
static void drop_wait(uint32_t *flags, uint32_t *sem, uint32_t *value, uint32_t s, uint32_t k)
{
	if ((*flags & VNEF_IF_WAIT) && *sem == s && *value >= k && !--*value) {
		*flags &= ~VNEF_IF_WAIT;
		*sem = 0;
	}
}

/* Every wait on semaphore s for a value past the removed k-th increment waits one less. */
static void drop_increment(struct pimg *g, uint32_t s, uint32_t k)
{
	unsigned int e, q;
	uint32_t i;

	for (e = 0; e < VNEF_ENGINES; e++)
		for (i = 0; i < g->nin[e]; i++)
			drop_wait(&g->in[e][i].flags, &g->in[e][i].wait_sem,
				  &g->in[e][i].wait_value, s, k);
	for (q = 0; q < VNEF_DMA_QUEUES; q++)
		for (i = 0; i < g->nd[q]; i++)
			drop_wait(&g->d[q][i].flags, &g->d[q][i].wait_sem,
				  &g->d[q][i].wait_value, s, k);
	for (i = 0; i < g->ncc; i++)
		drop_wait(&g->cc[i].flags, &g->cc[i].wait_sem, &g->cc[i].wait_value, s, k);
}

int vnp_replay_dedup(struct vnp_replay *r, uint64_t *ps, char *what, size_t len)
{
	uint32_t q, i, j, o, ndrop = 0, *map = NULL, s;
	struct pimg g;
	int ret;

	ret = pimg_load(&g, r->p);
	if (ret)
		return ret;
	for (q = 0; q < VNEF_DMA_QUEUES; q++) {
		struct vnef_dma_desc *d = g.d[q], *kept;
		uint32_t n = g.nd[q], inc[VNEF_MAX_SEMS] = { 0 };

		free(map);
		map = calloc(n ? n : 1, sizeof(*map));
		kept = calloc(n ? n : 1, sizeof(*kept));
		if (!map || !kept) {
			free(kept);
			ret = -ENOMEM;
			goto out;
		}
		for (i = 0, o = 0; i < n; i++) {
			int again = 0;

			for (j = 0; j < i && !again && d[i].src.mem == VNEF_MEM_HBM &&
			     d[i].dst.mem != VNEF_MEM_HBM; j++)
				again = !(map[j] & 0x80000000u) &&
					!memcmp(&d[j].src, &d[i].src, sizeof(d[i].src)) &&
					!memcmp(&d[j].dst, &d[i].dst, sizeof(d[i].dst)) &&
					!memcmp(d[j].count, d[i].count, sizeof(d[i].count)) &&
					d[j].chunk_bytes == d[i].chunk_bytes;
			if (again && !written_by_others(&g, &d[i])) {
				/* its increments go: later waits count one less for each */
				for (s = 0; s < VNEF_MAX_SEMS; s++)
					if (d[i].signal_mask >> s & 1)
						drop_increment(&g, s, inc[s] + 1);
				map[i] = 0x80000000u;
				ndrop++;
				continue;
			}
			for (s = 0; s < VNEF_MAX_SEMS; s++)
				inc[s] += (uint32_t)(d[i].signal_mask >> s & 1);
			map[i] = o;
			kept[o++] = d[i];
		}
		free(g.d[q]);
		g.d[q] = kept;
		g.nd[q] = o;
		remap_debug(&g, VNEF_STREAM_DMA(q), map, n);
	}
	ret = -ENOTSUP;
	if (!ndrop) {
		msg(what, len, "no descriptor loads the same data to the same place alone");
		goto out;
	}
	ret = run(r, &g, ps);
	if (!ret)
		snprintf(what, len, "loading once: %u repeated descriptors removed", ndrop);
out:
	free(map);
	pimg_free(&g);
	return ret;
}
