// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The timeline's event store (timeline.h): 16 bytes an event (start, 32-bit duration,
 * shape id), the shapes interned by hash while adding, executions as runs and long
 * durations in side tables; each track sorted and the tracks joined at finish; event i
 * decoded on demand; the merged walk of all tracks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "timeline.h"
#include "../util/sorted.h"

/* timeline.h; the timeline's other arrays (executions, markers, faults) grow by it too. */
int vnp_grow(void **arr, size_t n, size_t *cap, size_t size, size_t first)
{
	size_t nc;
	void *p;

	if (n < *cap)
		return 0;
	nc = *cap ? *cap + *cap / 2 : first;
	if (nc < *cap || nc > SIZE_MAX / size)
		return -ENOMEM;
	p = realloc(*arr, nc * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = nc;
	return 0;
}

static inline uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x9e3779b97f4a7c15ull;
	return h ^ h >> 29;
}

static uint64_t shape_hash(const struct vnp_shape *s)
{
	uint64_t h = mix(0, s->flops);

	h = mix(h, (uint64_t)s->pc << 32 | s->bytes);
	h = mix(h, (uint64_t)s->elements << 32 | (uint64_t)s->opcode << 16 | s->sem_wait);
	h = mix(h, (uint64_t)s->sem_signal << 16 | (uint64_t)s->stream << 8 | s->core);
	return h;
}

static bool shape_eq(const struct vnp_shape *a, const struct vnp_shape *b)
{
	return a->flops == b->flops && a->pc == b->pc && a->bytes == b->bytes &&
	       a->elements == b->elements && a->opcode == b->opcode &&
	       a->sem_wait == b->sem_wait && a->sem_signal == b->sem_signal &&
	       a->stream == b->stream && a->core == b->core;
}

/* The hash table at twice its size (rehashed from the shapes). 0 or -ENOMEM. */
static int rehash(struct vnp_timeline *tl)
{
	size_t cap = tl->shape_hash_cap ? tl->shape_hash_cap * 2 : 4096, i;
	uint32_t *h;

	if (cap > SIZE_MAX / sizeof(*h))
		return -ENOMEM;
	h = calloc(cap, sizeof(*h));
	if (!h)
		return -ENOMEM;
	for (i = 0; i < tl->nshapes; i++) {
		size_t k = shape_hash(&tl->shapes[i]) & (cap - 1);

		while (h[k])
			k = (k + 1) & (cap - 1);
		h[k] = (uint32_t)i + 1;
	}
	free(tl->shape_hash);
	tl->shape_hash = h;
	tl->shape_hash_cap = cap;
	return 0;
}

/* Shape s added as a new one: its id in *id. 0, -ENOMEM or -EOVERFLOW (2^32 - 1 shapes). */
static int add_shape(struct vnp_timeline *tl, const struct vnp_shape *s, uint32_t *id)
{
	if (tl->nshapes >= UINT32_MAX - 1)
		return -EOVERFLOW;
	if (vnp_grow((void **)&tl->shapes, tl->nshapes, &tl->shapes_cap, sizeof(*s), 1024))
		return -ENOMEM;
	if (!tl->shapes_direct) {
		if (vnp_grow((void **)&tl->shape_next, tl->nshapes, &tl->shape_next_cap,
			     sizeof(*tl->shape_next), 1024))
			return -ENOMEM;
		tl->shape_next[tl->nshapes] = 0;
	}
	tl->shapes[tl->nshapes] = *s;
	*id = tl->nshapes++;
	return 0;
}

/*
 * Interning stops paying once over half the events so far brought a new shape (checked
 * from tl->shapes_try events on, as the hash table grows: a program's first execution
 * is all new shapes): a profile that does not repeat, or a hostile one. Then each event
 * appends its own shape and the hash table and hints are freed, so such a profile
 * costs the 48 bytes an event it did before (16 + 32).
 */
static void stop_interning(struct vnp_timeline *tl)
{
	free(tl->shape_hash);
	free(tl->shape_next);
	tl->shape_hash = NULL;
	tl->shape_next = NULL;
	tl->shape_hash_cap = 0;
	tl->shape_next_cap = 0;
	tl->shapes_direct = 1;
}

/* The id of shape s, added if new. 0, -ENOMEM or -EOVERFLOW (2^32 - 1 shapes). */
static int intern(struct vnp_timeline *tl, const struct vnp_shape *s, uint32_t *id)
{
	uint32_t x;
	size_t k;
	int ret;

	/* at most half full */
	if ((size_t)tl->nshapes + 1 > tl->shape_hash_cap / 2) {
		if (tl->n >= tl->shapes_try && tl->nshapes > tl->n / 2) {
			stop_interning(tl);
			return add_shape(tl, s, id);
		}
		ret = rehash(tl);
		if (ret)
			return ret;
	}
	k = shape_hash(s) & (tl->shape_hash_cap - 1);
	while ((x = tl->shape_hash[k])) {
		if (shape_eq(&tl->shapes[x - 1], s)) {
			*id = x - 1;
			return 0;
		}
		k = (k + 1) & (tl->shape_hash_cap - 1);
	}
	ret = add_shape(tl, s, id);
	if (!ret)
		tl->shape_hash[k] = *id + 1;
	return ret;
}

/* Appends (start, dur, shape, exec) to a track being built. 0 or -ENOMEM. */
static int tb_push(struct vnp_track_build *b, uint64_t start, uint64_t dur, uint32_t shape,
		   uint32_t exec)
{
	struct vnp_cev *c;

	if (vnp_grow((void **)&b->ev, b->n, &b->cap, sizeof(*b->ev), 1024))
		return -ENOMEM;
	if (!b->nrun || b->run[b->nrun - 1].exec != exec) {
		if (vnp_grow((void **)&b->run, b->nrun, &b->runcap, sizeof(*b->run), 16))
			return -ENOMEM;
		b->run[b->nrun++] = (struct vnp_run){ .first = b->n, .exec = exec };
	}
	if (dur >= VNP_DUR_LONG) {
		if (vnp_grow((void **)&b->lng, b->nlng, &b->lngcap, sizeof(*b->lng), 16))
			return -ENOMEM;
		b->lng[b->nlng++] = (struct vnp_long_dur){ .idx = b->n, .dur = dur };
	}
	c = &b->ev[b->n++];
	c->start = start;
	c->dur = dur >= VNP_DUR_LONG ? VNP_DUR_LONG : (uint32_t)dur;
	c->shape = shape;
	return 0;
}

int vnp_tl_push(struct vnp_timeline *tl, unsigned int t, const struct vnp_ev *e)
{
	struct vnp_shape s = {
		.flops = e->flops, .pc = e->pc, .bytes = e->bytes, .elements = e->elements,
		.opcode = e->opcode, .sem_wait = e->sem_wait, .sem_signal = e->sem_signal,
		.stream = e->stream, .core = e->core,
	};
	struct vnp_track_build *b;
	uint32_t id, next;
	int ret;

	if (t >= VNP_TRACKS)
		return -EINVAL;
	if (!tl->tb) {
		tl->tb = calloc(VNP_TRACKS, sizeof(*tl->tb));
		if (!tl->tb)
			return -ENOMEM;
	}
	b = &tl->tb[t];
	if (tl->shapes_direct) {
		ret = add_shape(tl, &s, &id);
		if (ret)
			return ret;
		goto push;
	}
	/*
	 * A program repeats: the shape that followed this track's last one last time is
	 * likely next again, and checking it costs no hash table probe (a cache miss).
	 */
	next = b->last ? tl->shape_next[b->last - 1] : 0;
	if (next && shape_eq(&tl->shapes[next - 1], &s)) {
		id = next - 1;
	} else {
		ret = intern(tl, &s, &id);
		if (ret)
			return ret;
		if (b->last && !tl->shapes_direct)
			tl->shape_next[b->last - 1] = id + 1;
	}
	b->last = id + 1;
push:
	ret = tb_push(b, e->start, e->end - e->start, id, e->exec);
	if (ret)
		return ret;
	tl->n++;
	/* a hostile profile takes up to about 80 bytes an event: the bound is real */
	if (tl->mem_limit && !(tl->n % VNP_MEM_CHECK) && vnp_tl_store_bytes(tl) > tl->mem_limit)
		return -E2BIG;
	return 0;
}

uint64_t vnp_tl_store_bytes(const struct vnp_timeline *tl)
{
	uint64_t bytes = (uint64_t)tl->shapes_cap * sizeof(*tl->shapes) +
			 (uint64_t)tl->shape_hash_cap * sizeof(*tl->shape_hash) +
			 (uint64_t)tl->shape_next_cap * sizeof(*tl->shape_next);
	unsigned int t;

	if (!tl->tb)
		return bytes;
	bytes += (uint64_t)VNP_TRACKS * sizeof(*tl->tb);
	for (t = 0; t < VNP_TRACKS; t++) {
		const struct vnp_track_build *b = &tl->tb[t];

		bytes += (uint64_t)b->cap * sizeof(*b->ev) + (uint64_t)b->runcap * sizeof(*b->run) +
			 (uint64_t)b->lngcap * sizeof(*b->lng);
	}
	return bytes;
}

/* ------------------------------------------------------------------------------------ */
/* Sorting a track that arrived out of order                                            */

/* An event of the track being sorted: by (start, exec, pc). */
struct sev {
	uint64_t start, dur;
	uint32_t exec, pc, shape;
};

static inline int ev_less(const struct sev *a, const struct sev *b)
{
	if (a->start != b->start)
		return a->start < b->start;
	if (a->exec != b->exec)
		return a->exec < b->exec;
	return a->pc < b->pc;
}

static inline void ev_swap(struct sev *a, struct sev *b)
{
	struct sev t = *a;

	*a = *b;
	*b = t;
}

static void sift_down(struct sev *v, size_t i, size_t n)
{
	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			return;
		if (c + 1 < n && ev_less(&v[c], &v[c + 1]))
			c++;
		if (!ev_less(&v[i], &v[c]))
			return;
		ev_swap(&v[i], &v[c]);
		i = c;
	}
}

static void heap_sort(struct sev *v, size_t n)
{
	size_t i;

	for (i = n / 2; i-- > 0;)
		sift_down(v, i, n);
	for (i = n; i-- > 1;) {
		ev_swap(&v[0], &v[i]);
		sift_down(v, 0, i);
	}
}

/*
 * In-place introsort: glibc's qsort may allocate a copy of the whole array (merge
 * sort). Not stable: the order of equal keys is this algorithm's, as it always was.
 */
static void sort_events(struct sev *v, size_t n, unsigned int depth)
{
	while (n > 16) {
		size_t mid = n / 2, i, j;
		struct sev pivot;

		if (!depth--) {
			heap_sort(v, n);
			return;
		}
		if (ev_less(&v[mid], &v[0]))
			ev_swap(&v[mid], &v[0]);
		if (ev_less(&v[n - 1], &v[0]))
			ev_swap(&v[n - 1], &v[0]);
		if (ev_less(&v[n - 1], &v[mid]))
			ev_swap(&v[n - 1], &v[mid]);
		pivot = v[mid];
		i = 0;
		j = n - 1;
		for (;;) {
			while (ev_less(&v[i], &pivot))
				i++;
			while (ev_less(&pivot, &v[j]))
				j--;
			if (i >= j)
				break;
			ev_swap(&v[i], &v[j]);
			i++;
			j--;
		}
		/* [0, j] <= pivot <= [j + 1, n): recurse on the smaller side. */
		if (j + 1 < n - j - 1) {
			sort_events(v, j + 1, depth);
			v += j + 1;
			n -= j + 1;
		} else {
			sort_events(v + j + 1, n - j - 1, depth);
			n = j + 1;
		}
	}
	for (size_t i = 1; i < n; i++) {
		struct sev t = v[i];
		size_t j = i;

		while (j > 0 && ev_less(&t, &v[j - 1])) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = t;
	}
}

/* Event k of a track being built, as a sort key (*run: a cursor in its runs, from 0). */
static struct sev tb_get(const struct vnp_timeline *tl, const struct vnp_track_build *b,
			 size_t k, size_t *run, size_t *lng)
{
	const struct vnp_cev *c = &b->ev[k];
	struct sev s = { .start = c->start, .dur = c->dur, .shape = c->shape };

	while (*run + 1 < b->nrun && b->run[*run + 1].first <= k)
		(*run)++;
	s.exec = b->run[*run].exec;
	s.pc = tl->shapes[c->shape].pc;
	if (c->dur == VNP_DUR_LONG) {
		while (*lng < b->nlng && b->lng[*lng].idx < k)
			(*lng)++;
		s.dur = *lng < b->nlng && b->lng[*lng].idx == k ? b->lng[*lng].dur : c->dur;
	}
	return s;
}

/* Sorts a track that arrived out of order (a ring's records arrive in order). */
static int tb_sort(const struct vnp_timeline *tl, struct vnp_track_build *b)
{
	struct vnp_track_build nb = { 0 };
	size_t k, run = 0, lng = 0, n = b->n;
	unsigned int depth = 0;
	struct sev prev, cur, *v;
	bool sorted = true;

	for (k = 0; k < n && sorted; k++) {
		cur = tb_get(tl, b, k, &run, &lng);
		sorted = !k || !ev_less(&cur, &prev);
		prev = cur;
	}
	if (sorted)
		return 0;
	if (n > SIZE_MAX / sizeof(*v))
		return -ENOMEM;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	run = lng = 0;
	for (k = 0; k < n; k++)
		v[k] = tb_get(tl, b, k, &run, &lng);
	for (k = n; k; k >>= 1)
		depth += 2;
	sort_events(v, n, depth);
	/* rebuilt in place of the old arrays, freed first so as not to hold both */
	free(b->ev);
	free(b->run);
	free(b->lng);
	*b = nb;
	for (k = 0; k < n; k++)
		if (tb_push(b, v[k].start, v[k].dur, v[k].shape, v[k].exec)) {
			free(v);
			return -ENOMEM;
		}
	free(v);
	return 0;
}

static void tb_free(struct vnp_track_build *b)
{
	free(b->ev);
	free(b->run);
	free(b->lng);
	memset(b, 0, sizeof(*b));
}

/*
 * Sorts each track and joins them into tl->cev, tl->runs and tl->longd, freeing each
 * track's arrays as soon as they are copied (the new array's pages are touched only as
 * written), so the peak stays near one copy of the events.
 */
int vnp_tl_pack(struct vnp_timeline *tl)
{
	size_t nrun = 0, nlng = 0, off = 0, r = 0, l = 0, k;
	unsigned int t;

	free(tl->shape_hash);		/* no more adds */
	free(tl->shape_next);
	tl->shape_hash = NULL;
	tl->shape_next = NULL;
	tl->shape_hash_cap = 0;
	tl->shape_next_cap = 0;
	if (!tl->tb) {
		memset(tl->track_off, 0, sizeof(tl->track_off));
		return 0;
	}
	for (t = 0; t < VNP_TRACKS; t++) {
		if (tb_sort(tl, &tl->tb[t]))
			return -ENOMEM;
		nrun += tl->tb[t].nrun;
		nlng += tl->tb[t].nlng;
	}
	if (tl->n > SIZE_MAX / sizeof(*tl->cev) || nrun > SIZE_MAX / sizeof(*tl->runs) ||
	    nlng > SIZE_MAX / sizeof(*tl->longd))
		return -ENOMEM;
	tl->cev = tl->n ? malloc(tl->n * sizeof(*tl->cev)) : NULL;
	tl->runs = nrun ? malloc(nrun * sizeof(*tl->runs)) : NULL;
	tl->longd = nlng ? malloc(nlng * sizeof(*tl->longd)) : NULL;
	if ((tl->n && !tl->cev) || (nrun && !tl->runs) || (nlng && !tl->longd))
		return -ENOMEM;
	for (t = 0; t < VNP_TRACKS; t++) {
		struct vnp_track_build *b = &tl->tb[t];

		tl->track_off[t] = off;
		if (b->n)
			memcpy(tl->cev + off, b->ev, b->n * sizeof(*b->ev));
		for (k = 0; k < b->nrun; k++)
			tl->runs[r++] = (struct vnp_run){ .first = off + b->run[k].first,
							  .exec = b->run[k].exec };
		for (k = 0; k < b->nlng; k++)
			tl->longd[l++] = (struct vnp_long_dur){ .idx = off + b->lng[k].idx,
								.dur = b->lng[k].dur };
		off += b->n;
		tb_free(b);
	}
	tl->track_off[VNP_TRACKS] = off;
	tl->nruns = nrun;
	tl->nlongd = nlng;
	free(tl->tb);
	tl->tb = NULL;
	return 0;
}

void vnp_tl_store_free(struct vnp_timeline *tl)
{
	unsigned int t;

	if (tl->tb)
		for (t = 0; t < VNP_TRACKS; t++)
			tb_free(&tl->tb[t]);
	free(tl->tb);
	free(tl->cev);
	free(tl->runs);
	free(tl->longd);
	free(tl->shapes);
	free(tl->shape_hash);
	free(tl->shape_next);
}

/* ------------------------------------------------------------------------------------ */
/* Reading events                                                                         */

uint64_t vnp_tl_long_dur(const struct vnp_timeline *tl, size_t i)
{
	size_t k = VNP_LOWER_BOUND(tl->longd, tl->nlongd, idx, i);

	return k < tl->nlongd && tl->longd[k].idx == i ? tl->longd[k].dur : VNP_DUR_LONG;
}

_Thread_local size_t vnp_tl_run_hint;

size_t vnp_tl_run_find(const struct vnp_timeline *tl, size_t i)
{
	/* the first run starting past i, less one */
	size_t k = VNP_LOWER_BOUND(tl->runs, tl->nruns, first, (uint64_t)i + 1);

	vnp_tl_run_hint = k ? k - 1 : 0;
	return vnp_tl_run_hint;
}

size_t vnp_tl_lower_bound(const struct vnp_timeline *tl, unsigned int t, uint64_t start)
{
	return tl->track_off[t] + VNP_LOWER_BOUND(tl->cev + tl->track_off[t],
						  vnp_tl_track_len(tl, t), start, start);
}

/* ------------------------------------------------------------------------------------ */
/* Merged iteration: a binary heap of tracks keyed by their next event's start          */

static inline int it_less(const struct vnp_iter_head *x, const struct vnp_iter_head *y)
{
	return x->start < y->start || (x->start == y->start && x->track < y->track);
}

static void it_down(struct vnp_iter *it, unsigned int i)
{
	struct vnp_iter_head h = it->heap[i];
	unsigned int n = it->nheap;

	for (;;) {
		unsigned int c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && it_less(&it->heap[c + 1], &it->heap[c]))
			c++;
		if (!it_less(&it->heap[c], &h))
			break;
		it->heap[i] = it->heap[c];
		i = c;
	}
	it->heap[i] = h;
}

void vnp_iter_init(struct vnp_iter *it, const struct vnp_timeline *tl)
{
	unsigned int t;

	it->tl = tl;
	it->nheap = 0;
	it->idx = SIZE_MAX;
	for (t = 0; t < VNP_TRACKS; t++) {
		struct vnp_iter_head *h = &it->heap[it->nheap];

		if (!vnp_tl_track_len(tl, t))
			continue;
		h->i = tl->track_off[t];
		h->end = tl->track_off[t + 1];
		h->run = vnp_tl_run_of(tl, h->i);
		h->start = tl->cev[h->i].start;
		h->track = t;
		it->nheap++;
	}
	for (t = it->nheap / 2; t-- > 0;)
		it_down(it, t);
}

const struct vnp_ev *vnp_iter_next(struct vnp_iter *it)
{
	const struct vnp_timeline *tl = it->tl;
	struct vnp_iter_head *h = &it->heap[0];
	size_t i;

	if (!it->nheap)
		return NULL;
	i = h->i++;
	while (h->run + 1 < tl->nruns && tl->runs[h->run + 1].first <= i)
		h->run++;
	vnp_tl_decode(tl, i, tl->runs[h->run].exec, &it->cur);
	it->idx = i;
	if (h->i == h->end) {
		*h = it->heap[--it->nheap];
	} else {
		h->start = tl->cev[h->i].start;
		/* the same track usually comes next: no sift when it stays first */
		if ((it->nheap < 2 || !it_less(&it->heap[1], h)) &&
		    (it->nheap < 3 || !it_less(&it->heap[2], h)))
			return &it->cur;
	}
	it_down(it, 0);
	return &it->cur;
}
