// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Which program each execution ran, from the API log (execprog.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "execprog.h"

/* Room for one more element of size sz in *arr of *cap; 0 or -ENOMEM. */
static int grow(void *arr, uint32_t n, uint32_t *cap, size_t sz)
{
	void **p = arr, *nb;
	uint32_t nc;

	if (n < *cap)
		return 0;
	if (*cap >= UINT32_MAX / 2)
		return -ENOMEM;
	nc = *cap ? *cap * 2 : 64;
	nb = realloc(*p, (size_t)nc * sz);
	if (!nb)
		return -ENOMEM;
	*p = nb;
	*cap = nc;
	return 0;
}

static struct vnp_loaded *find_loaded(struct vnp_execmap *m, uint32_t pid, uint32_t id)
{
	uint32_t i;

	/* newest first: a process's loads are logged together */
	for (i = m->nloaded; i-- > 0;)
		if (m->loaded[i].pid == pid && m->loaded[i].id == id)
			return &m->loaded[i];
	return NULL;
}

static int note_chunk(struct vnp_execmap *m, const struct vneuron_trace_record *r)
{
	struct vnp_loaded *l = find_loaded(m, r->elements, r->sem_value);
	uint8_t *dst;

	if (r->exec_seq >= ND_API_ID_CHUNKS || !r->sem_value)
		return 1;	/* not ours to understand: dropped, never trusted */
	if (!l) {
		if (grow(&m->loaded, m->nloaded, &m->loaded_cap, sizeof(*m->loaded)))
			return -ENOMEM;
		l = &m->loaded[m->nloaded++];
		memset(l, 0, sizeof(*l));
		l->pid = r->elements;
		l->id = r->sem_value;
		l->size = r->count;
	}
	dst = l->bytes + r->exec_seq * ND_API_ID_CHUNK;
	memcpy(dst, &r->model_start_ps, 8);
	memcpy(dst + 8, &r->model_end_ps, 8);
	l->chunks |= 1u << r->exec_seq;
	return 1;
}

int vnp_execmap_note(struct vnp_execmap *m, const struct vneuron_trace_record *r)
{
	/* the device's N in model_end_ps (neurondev.h); a hostile one names no device */
	struct vnp_api_exec e = { .pid = r->elements,
				  .device = r->model_end_ps > UINT32_MAX ? UINT32_MAX :
					    (uint32_t)r->model_end_ps,
				  .exec_id = r->sem_value, .core = r->dma_queue,
				  .uring = r->sem_signal == ND_API_URING };

	switch (r->opcode) {
	case ND_API_PROGRAM_ID:
		return note_chunk(m, r);
	case ND_API_EXEC:
		e.value = r->bytes;
		if (grow(&m->exec, m->nexec, &m->exec_cap, sizeof(e)))
			return -ENOMEM;
		m->exec[m->nexec++] = e;
		return 0;
	case ND_API_WAIT:
		e.value = r->exec_seq;
		if (grow(&m->wait, m->nwait, &m->wait_cap, sizeof(e)))
			return -ENOMEM;
		m->wait[m->nwait++] = e;
		return 0;
	default:
		return 0;
	}
}

static int cmp_call(const void *a, const void *b)
{
	const struct vnp_api_exec *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	if (x->uring != y->uring)
		return x->uring < y->uring ? -1 : 1;
	return x->exec_id < y->exec_id ? -1 : x->exec_id > y->exec_id;
}

/* The index in progs of l's identity, added if new; -1 if l is incomplete or no room. */
static int identity(const struct vnp_loaded *l, struct vntf_program *progs, uint32_t *n,
		    uint32_t cap)
{
	struct vntf_program p = { .hash_algo = VNTF_HASH_SHA256, .hash_len = 32 };
	uint32_t i;

	if (l->chunks != (1u << ND_API_ID_CHUNKS) - 1)
		return -1;
	memcpy(p.hash, l->bytes, 32);
	p.image_size = l->size;
	snprintf(p.name, sizeof(p.name), "%.*s", (int)sizeof(p.name) - 1,
		 (const char *)l->bytes + 32);
	for (i = 0; i < *n; i++)
		if (!memcmp(progs[i].hash, p.hash, 32) && progs[i].image_size == p.image_size)
			return (int)i;
	if (*n == cap)
		return -1;
	progs[*n] = p;
	return (int)(*n)++;
}

int vnp_execmap_write(struct vnp_execmap *m, struct vntf_writer *w)
{
	struct vntf_program *progs;
	struct vntf_exec_program *out;
	struct vnp_api_exec *e;
	struct vnp_loaded *l;
	uint32_t nprogs = 0, nout = 0, i, j, cap;
	int ret = -ENOMEM, k;

	if (!m->nloaded)
		return 0;
	cap = m->nloaded < VNTF_MAX_PROGRAMS ? m->nloaded : VNTF_MAX_PROGRAMS;
	progs = calloc(cap, sizeof(*progs));
	out = calloc(m->nwait ? m->nwait : 1, sizeof(*out));
	if (!progs || !out)
		goto out;
	qsort(m->exec, m->nexec, sizeof(*m->exec), cmp_call);
	for (i = 0; i < m->nwait && nout < VNTF_MAX_EXECS; i++) {
		e = bsearch(&m->wait[i], m->exec, m->nexec, sizeof(*m->exec), cmp_call);
		l = e ? find_loaded(m, e->pid, e->value) : NULL;
		k = l ? identity(l, progs, &nprogs, cap) : -1;
		if (k < 0)
			continue;	/* not known: the view says it cannot place it */
		out[nout++] = (struct vntf_exec_program){ .device = m->wait[i].device,
			.core = m->wait[i].core, .exec_seq = m->wait[i].value,
			.program = (uint32_t)k };
	}
	/* an execution waited for twice is listed once */
	qsort(out, nout, sizeof(*out), vntf_exec_cmp);
	for (i = j = 0; i < nout; i++)
		if (!j || vntf_exec_cmp(&out[j - 1], &out[i]))
			out[j++] = out[i];
	ret = vntf_write_exec_programs(w, progs, nprogs, out, j);
out:
	free(progs);
	free(out);
	return ret;
}

void vnp_execmap_free(struct vnp_execmap *m)
{
	free(m->loaded);
	free(m->exec);
	free(m->wait);
	memset(m, 0, sizeof(*m));
}
