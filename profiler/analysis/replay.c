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
#include "replay_priv.h"
#include "vn_comm.h"
#include "vn_exec.h"
#include "vn_isa.h"
#include "vn_program.h"
#include "vn_trace_event.h"

/*
 * After a transform renumbered stream's first n entries (map[old] = new, bit 31: dropped),
 * its debug records follow: renumbered, or gone with their entry.
 */
void rp_remap_debug(struct pimg *g, uint32_t stream, const uint32_t *map, uint32_t n)
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

void rp_pimg_free(struct pimg *g)
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

int rp_pimg_load(struct pimg *g, const struct vnp_prog *p)
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
	rp_pimg_free(g);
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

/*
 * Event hook: the event as the trace record capture would read, from the device's own
 * encoder (core/vn_trace_event.h); with no host time and the first execution's number,
 * so that a replay's records are the same at every run.
 */
static void rp_hook(void *arg, const struct vn_event *e)
{
	struct rp_rec *rc = arg;
	struct vn_event ev = *e;
	struct vn_trace_words w;

	ev.exec_seq = 1;
	ev.host_ns = 0;
	vn_trace_event_words(&w, &ev);
	pthread_mutex_lock(&rc->lock);
	if (rc->n == rc->cap) {
		size_t ncap = rc->cap ? rc->cap * 2 : 1024;
		struct vneuron_trace_record *q = realloc(rc->r, ncap * sizeof(*q));

		if (!q) {
			rc->nomem = 1;
			pthread_mutex_unlock(&rc->lock);
			return;
		}
		rc->r = q;
		rc->cap = ncap;
	}
	vn_trace_rec_words(&rc->r[rc->n++], &w);
	pthread_mutex_unlock(&rc->lock);
}

/* One execution of an image on model m; its events into rec if not NULL (rank 0's). */
static int replay_run(const void *img, size_t size, const struct vneuron_model *m,
		      uint64_t *ps, struct rp_rec *rec)
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
		struct vn_comm_params prm = { 0 };

		/* the links of the profile's model, as its collectives ran on */
		vn_cc_links_of(m, &prm.intra, &prm.inter);
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
		if (rec && !k)
			vn_core_set_hook(c[k], rp_hook, rec);
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

int vnp_replay_image(const void *img, size_t size, const struct vneuron_model *m,
		     uint64_t *ps)
{
	return replay_run(img, size, m, ps, NULL);
}

/* The image and the events of a changed program are kept for its second analysis. */
int rp_run(struct vnp_replay *r, struct pimg *g, uint64_t *ps)
{
	void *img;
	size_t size;
	int ret = pimg_write(r, g, &img, &size);

	if (ret)
		return ret;
	free(r->img);
	r->img = NULL;
	r->rec.n = 0;
	r->rec.nomem = 0;
	ret = replay_run(img, size, &r->m, ps, &r->rec);
	if (ret) {
		free(img);
		return ret;
	}
	r->img = img;
	r->size = size;
	r->ps = *ps;
	return 0;
}

int vnp_replay_last(const struct vnp_replay *r, const void **img, size_t *size,
		    const struct vneuron_trace_record **rec, size_t *n, uint64_t *ps)
{
	if (!r || !r->img || r->rec.nomem || !r->rec.n)
		return -ENOENT;
	*img = r->img;
	*size = r->size;
	*rec = r->rec.r;
	*n = r->rec.n;
	*ps = r->ps;
	return 0;
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
	pthread_mutex_init(&r->rec.lock, NULL);
	ret = rp_pimg_load(&g, p);
	if (!ret)
		ret = rp_run(r, &g, &r->base);
	rp_pimg_free(&g);
	if (ret) {
		vnp_replay_close(r);
		return ret;
	}
	/* the unchanged program is no fix: nothing to analyse again */
	free(r->img);
	r->img = NULL;
	*rp = r;
	return 0;
}

void vnp_replay_close(struct vnp_replay *r)
{
	if (!r)
		return;
	free(r->img);
	free(r->rec.r);
	pthread_mutex_destroy(&r->rec.lock);
	free(r);
}

uint64_t vnp_replay_base(const struct vnp_replay *r)
{
	return r->base;
}

void rp_msg(char *what, size_t len, const char *s)
{
	snprintf(what, len, "%s", s);
}

int rp_map(uint32_t **map, uint32_t n)
{
	free(*map);
	*map = calloc(n ? n : 1, sizeof(**map));
	return *map ? 0 : -ENOMEM;
}

int rp_run_if(struct vnp_replay *r, struct pimg *g, int changed, uint64_t *ps,
	      char *what, size_t len, const char *unchanged)
{
	if (!changed) {
		rp_msg(what, len, unchanged);
		return -ENOTSUP;
	}
	return rp_run(r, g, ps);
}

int rp_replay_queues(struct vnp_replay *r, rp_queue_fn fn, uint64_t *ps, char *what,
		     size_t len, const char *unchanged, uint32_t *before, uint32_t *after)
{
	uint32_t q, n, *map = NULL;
	struct pimg g;
	int ret;

	*before = *after = 0;
	ret = rp_pimg_load(&g, r->p);
	for (q = 0; q < VNEF_DMA_QUEUES && !ret; q++) {
		n = g.nd[q];
		ret = rp_map(&map, n);
		if (!ret)
			ret = fn(&g, q, map);
		if (ret < 0)
			break;
		g.nd[q] = (uint32_t)ret;
		*before += n;
		*after += (uint32_t)ret;
		rp_remap_debug(&g, VNEF_STREAM_DMA(q), map, n);
		ret = 0;
	}
	free(map);
	if (!ret)
		ret = rp_run_if(r, &g, *after != *before, ps, what, len, unchanged);
	rp_pimg_free(&g);
	return ret;
}
