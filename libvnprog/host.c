// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The host backend: programs run on the host build of the device core, so kernels can be
 * tested without the module. Validation (core/program.c) and execution (core/vn_exec.h) are
 * the very code vneuron.ko runs. Collectives: a host handle's core is bound to a rank of a
 * communicator (core/vn_comm.h), and each rank runs in its own thread.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "vnprog_int.h"
#include "vn_comm.h"
#include "vn_exec.h"
#include "vn_model.h"
#include "vn_os.h"
#include "vn_program.h"
#include "vn_trace.h"

#define HT_PAGE		4096u	/* the consumer page, and the control page before the data */

/*
 * A host handle's trace session: the module's rings (uapi/vneuron_trace.h) in host
 * memory, one per producer thread of the core, written by the same code (core/trace.c,
 * core/trace_event.c) from the same hooks as vneuron.ko's (kmod/trace.c).
 */
struct nd_host_trace {
	struct nd_host *h;
	int efd;			/* readable when a ring passed its watermark or an
					 * execution ended */
	int stopped;
	uint64_t ring_size;
	struct vn_trace_ring prod[VN_TRACE_RINGS_PER_CORE];
	struct vneuron_trace_consumer *cons[VN_TRACE_RINGS_PER_CORE];
	unsigned char *map[VN_TRACE_RINGS_PER_CORE];	/* control page, then the data */
	/* LNC=2: program id 1's session (its core's rings), owned by this one */
	struct nd_host_trace *pair;
};

/* A communicator of host ranks: the device core's (core/vn_comm.h), one reference. */
struct nd_host_comm {
	struct vn_comm *cm;
};

struct nd_host {
	struct vn_core *core;
	struct vn_core *core2;		/* LNC=2: program id 1's core (nd_host_set_lnc()) */
	const struct vneuron_model *model;
	int record;
	pthread_mutex_t lock;		/* events: the hook runs on the core's workers */
	struct nd_event *ev;
	size_t nev, cap;
	int ev_nomem;
	struct nd_error err;		/* the last run's message */
	struct nd_host_trace *trace;	/* tracing the following runs, or NULL */
	/* nd_host_set_stop(): asked while a run waits; true ends it */
	int (*stop)(void *arg);
	void *stop_arg;
	/* The last image run, validated: the same bytes again skip load and validation. */
	struct vn_program *cached;
	void *cached_img;
	size_t cached_size;
};

/* The validated program of image: the cached one if the bytes are the same. */
static int host_program(struct nd_host *h, const void *image, size_t size,
			struct vn_program **pp, struct vn_prog_error *pe)
{
	void *copy;
	int ret;

	if (h->cached && size == h->cached_size && !memcmp(image, h->cached_img, size)) {
		vn_program_get(h->cached);
		*pp = h->cached;
		return 0;
	}
	ret = vn_program_load(image, size, pp, pe);
	if (ret)
		return ret;
	copy = malloc(size);
	if (!copy)
		return 0;		/* runs, uncached */
	memcpy(copy, image, size);
	if (h->cached)
		vn_program_put(h->cached);
	free(h->cached_img);
	vn_program_get(*pp);
	h->cached = *pp;
	h->cached_img = copy;
	h->cached_size = size;
	return 0;
}

const char *nd_host_error(const struct nd_host *h)
{
	return h ? h->err.msg : "no host handle";
}

void nd_model_names(char *buf, size_t size)
{
	size_t n = 0;
	u32 i;

	if (!size)
		return;
	buf[0] = '\0';
	for (i = 0; i < vn_model_count() && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%.*s", i ? ", " : "",
				      (int)sizeof(vn_model_at(i)->name), vn_model_at(i)->name);
}

int nd_model_lookup(const char *name, const struct vneuron_model **m, struct nd_error *err)
{
	const struct vneuron_model *f = name ? vn_model_find(name) : NULL;
	char names[64];

	if (m)
		*m = f;
	if (f)
		return 0;
	nd_model_names(names, sizeof(names));
	return nd_seterr(err, EINVAL, "unknown model '%s' (the models are %s)",
			 name ? name : "", names);
}

/* Whether a program b accepts is accepted by a too (the limits vn_program_fits() reads). */
static bool model_covers(const struct vneuron_model *a, const struct vneuron_model *b)
{
	u32 mem, dt;

	for (mem = VNEF_MEM_SBUF; mem <= VNEF_MEM_PSUM; mem++)
		if (vn_model_part_bytes(a, mem) < vn_model_part_bytes(b, mem))
			return false;
	for (dt = 0; dt < VNEF_DT_COUNT; dt++)
		if (vn_model_has_dtype(b, dt) && !vn_model_has_dtype(a, dt))
			return false;
	return a->partitions >= b->partitions && a->hbm_modeled_bytes >= b->hbm_modeled_bytes;
}

const struct vneuron_model *nd_model_widest(void)
{
	u32 i, j, n = vn_model_count();

	for (i = 0; i < n; i++) {
		for (j = 0; j < n && model_covers(vn_model_at(i), vn_model_at(j)); j++)
			;
		if (j == n)
			return vn_model_at(i);
	}
	return NULL;
}

int nd_host_open(const struct vneuron_model *m, struct nd_host **hp, struct nd_error *err)
{
	struct nd_host *h;
	int ret;

	if (!hp)
		return nd_seterr(err, EINVAL, "nd_host_open: hp is NULL");
	*hp = NULL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return nd_seterr(err, ENOMEM, "out of memory");
	ret = vn_core_create(m, "host", &h->core);
	if (ret) {
		free(h);
		return nd_seterr(err, ret, "cannot create a host core: %s", nd_strerror(ret));
	}
	h->model = m ? m : &vn_model_trn1;
	pthread_mutex_init(&h->lock, NULL);
	*hp = h;
	return 0;
}

int nd_host_set_lnc(struct nd_host *h, unsigned int lnc)
{
	int ret;

	if (!h)
		return -EINVAL;
	if (lnc != 1 && lnc != VN_LNC_MAX)
		return nd_seterr(&h->err, EINVAL, "LNC=%u: a logical core is 1 or %u physical "
				 "cores", lnc, VN_LNC_MAX);
	if (lnc > vn_model_gen(h->model)->lnc)
		return nd_seterr(&h->err, EINVAL, "LNC=%u: model %.16s has no logical cores "
				 "(LNC=2 needs trn2 or trn3)", lnc, h->model->name);
	if (h->trace && (lnc == 2) != !!h->core2)
		return nd_seterr(&h->err, EBUSY, "LNC=%u: set it before tracing starts "
				 "(nd_host_trace_start())", lnc);
	if (lnc == 1) {
		vn_core_destroy(h->core2);
		h->core2 = NULL;
		return 0;
	}
	if (h->core2)
		return 0;
	ret = vn_core_create(h->model, "host1", &h->core2);
	if (ret)
		return nd_seterr(&h->err, ret, "cannot create a second host core: %s",
				 nd_strerror(ret));
	return 0;
}

void nd_host_close(struct nd_host *h)
{
	if (!h)
		return;
	vn_core_destroy(h->core);
	if (h->core2)
		vn_core_destroy(h->core2);
	nd_host_trace_free(h->trace);
	if (h->cached)
		vn_program_put(h->cached);
	free(h->cached_img);
	pthread_mutex_destroy(&h->lock);
	free(h->ev);
	free(h);
}

void nd_host_record(struct nd_host *h, int on)
{
	if (h)
		h->record = !!on;
}

static void record(struct nd_host *h, const struct vn_event *e, uint32_t core);

/* Event hook: the worker that ran the event writes its own ring (as kmod/trace.c). */
static void hook(void *arg, const struct vn_event *e)
{
	struct nd_host *h = arg;

	if (h->trace && !h->trace->stopped)
		vn_trace_event(&h->trace->prod[vn_trace_ring_of(e->stream)], e);
	if (h->record)
		record(h, e, 0);
}

/* Program id 1's core (LNC=2): its events into the pair's rings. */
static void hook1(void *arg, const struct vn_event *e)
{
	struct nd_host *h = arg;
	struct nd_host_trace *t = h->trace ? h->trace->pair : NULL;

	if (t && !t->stopped)
		vn_trace_event(&t->prod[vn_trace_ring_of(e->stream)], e);
	if (h->record)
		record(h, e, 1);
}

static void trace_wake(void *arg)
{
	struct nd_host_trace *t = arg;
	uint64_t one = 1;

	/* A full counter (never read) is still readable: nothing more to say. */
	if (write(t->efd, &one, sizeof(one)) < 0)
		return;
}

/* An execution's edge into session t: its records, then at the end every ring published. */
static bool trace_edge(struct nd_host_trace *t, const struct vn_exec_status *st, bool end)
{
	unsigned int i;

	if (!t || t->stopped)
		return true;
	vn_trace_exec_edge(&t->prod[0], st, end);
	if (end) {
		for (i = 0; i < VN_TRACE_RINGS_PER_CORE; i++)
			vn_trace_flush(&t->prod[i]);
		trace_wake(t);
	}
	return true;
}

/* Edge hook, no worker producing. */
static bool edge(void *arg, const struct vn_exec_status *st, bool end)
{
	struct nd_host *h = arg;

	return trace_edge(h->trace, st, end);
}

/* Program id 1's core's (LNC=2). */
static bool edge1(void *arg, const struct vn_exec_status *st, bool end)
{
	struct nd_host *h = arg;

	return trace_edge(h->trace ? h->trace->pair : NULL, st, end);
}

static void record(struct nd_host *h, const struct vn_event *e, uint32_t core)
{
	struct nd_event *n;

	pthread_mutex_lock(&h->lock);
	if (h->nev == h->cap) {
		size_t ncap = h->cap ? h->cap * 2 : 1024;
		struct nd_event *q = realloc(h->ev, ncap * sizeof(*q));

		if (!q) {
			h->ev_nomem = 1;
			pthread_mutex_unlock(&h->lock);
			return;
		}
		h->ev = q;
		h->cap = ncap;
	}
	n = &h->ev[h->nev++];
	n->stream = e->stream;
	n->opcode = e->opcode;
	n->pc = e->pc;
	n->flags = e->flags;
	n->start_ps = e->start_ps;
	n->end_ps = e->end_ps;
	n->elements = e->elements;
	n->bytes = e->bytes;
	n->flops = e->flops;
	n->hbm_read = e->hbm_read;
	n->hbm_write = e->hbm_write;
	n->wait_sem = e->wait_sem;
	n->wait_value = e->wait_value;
	n->cc_rank = e->stream == VNEF_STREAM_CC ? e->cc_rank : 0;
	n->cc_members = e->stream == VNEF_STREAM_CC ? e->cc_members : 0;
	n->cc_last = e->stream == VNEF_STREAM_CC ? e->cc_last : 0;
	n->cc_latest_ps = e->stream == VNEF_STREAM_CC ? e->cc_latest_ps : 0;
	n->core = core;
	pthread_mutex_unlock(&h->lock);
}

static int ev_cmp(const void *a, const void *b)
{
	const struct nd_event *x = a, *y = b;

	if (x->start_ps != y->start_ps)
		return x->start_ps < y->start_ps ? -1 : 1;
	if (x->core != y->core)
		return x->core < y->core ? -1 : 1;
	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

const struct nd_event *nd_host_events(const struct nd_host *h, size_t *count)
{
	if (count)
		*count = h ? h->nev : 0;
	return h ? h->ev : NULL;
}

static int bind_tensors(struct nd_host *h, const struct vn_program *p,
			const struct nd_host_tensor *t, unsigned int count, struct vn_bind *binds)
{
	unsigned int i, j;
	int idx;

	for (i = 0; i < count; i++) {
		if (!t[i].name)
			return nd_seterr(&h->err, EINVAL, "tensor binding %u has no name", i);
		idx = vn_program_tensor(p, t[i].name);
		if (idx < 0)
			return nd_seterr(&h->err, EINVAL, "the program has no tensor '%s'",
					 t[i].name);
		for (j = 0; j < i; j++)
			if (t[j].name && !strcmp(t[j].name, t[i].name))
				return nd_seterr(&h->err, EINVAL, "tensor '%s' is bound twice",
						 t[i].name);
		if (p->tensors[idx].kind == VNEF_TENSOR_CONST)
			return nd_seterr(&h->err, EINVAL, "tensor '%s' is a constant; it cannot be "
					 "bound", t[i].name);
		if (!t[i].data || t[i].size < p->tensors[idx].size)
			return nd_seterr(&h->err, EINVAL, "tensor '%s' needs %llu bytes, bound to "
					 "%llu", t[i].name, (unsigned long long)p->tensors[idx].size,
					 (unsigned long long)(t[i].data ? t[i].size : 0));
		binds[idx].ptr = t[i].data;
		binds[idx].size = t[i].size;
	}
	for (i = 0; i < p->tensor_count; i++) {
		const struct vnef_tensor *vt = &p->tensors[i];

		if (!binds[i].ptr && (vt->kind == VNEF_TENSOR_INPUT ||
				      vt->kind == VNEF_TENSOR_OUTPUT))
			return nd_seterr(&h->err, EINVAL, "%s tensor '%s' is not bound",
					 vt->kind == VNEF_TENSOR_INPUT ? "input" : "output",
					 vn_program_str(p, vt->name_off));
	}
	return 0;
}

void nd_host_set_stop(struct nd_host *h, int (*stop)(void *arg), void *arg)
{
	if (!h)
		return;
	h->stop = stop;
	h->stop_arg = arg;
}

#define HOST_STOP_POLL_NS	2000000ull	/* a stop is looked for this often */

/*
 * Waits for ex to end. With a stop function, in slices: when it says stop, the execution
 * is cancelled (the engines stop at their next bounded step) and waited for; *stopped
 * says so.
 */
static int host_wait(struct nd_host *h, struct vn_exec *ex, int *stopped)
{
	int ret;

	*stopped = 0;
	if (!h->stop)
		return vn_exec_wait(ex, 0);
	for (;;) {
		if (h->stop(h->stop_arg)) {
			vn_exec_cancel(ex);
			*stopped = 1;
			return vn_exec_wait(ex, 0);
		}
		ret = vn_exec_wait(ex, vn_time_ns() + HOST_STOP_POLL_NS);
		if (ret != -ETIMEDOUT)
			return ret;
	}
}

/*
 * Instance 1's end into instance 0's status, as the module's WAIT merges a logical
 * core's (kmod/exec.c): the first to fail says how; the times are the later end's.
 */
static void host_merge_status(struct vn_exec_status *st, struct vn_exec *ex2)
{
	struct vn_exec_status s2;
	u64 model_ps, host_ns;

	vn_exec_status(ex2, &s2);
	model_ps = st->model_ps > s2.model_ps ? st->model_ps : s2.model_ps;
	host_ns = st->host_ns > s2.host_ns ? st->host_ns : s2.host_ns;
	if (st->result == VN_RES_OK && s2.result != VN_RES_OK)
		*st = s2;
	st->model_ps = model_ps;
	st->host_ns = host_ns;
}

/* The host core's results are the uapi's, so one set of names serves both. */
_Static_assert((int)VN_RES_FAULT == (int)VNEURON_EXEC_FAULT, "result numbers");
_Static_assert((int)VN_REASON_FAULT_STATE == (int)VNEURON_REASON_FAULT_STATE,
	       "reason numbers");

int nd_host_run(struct nd_host *h, const void *image, size_t size,
		const struct nd_host_tensor *tensors, unsigned int count, uint64_t limit_ns,
		struct nd_run_result *res)
{
	struct vn_exec_status st;
	struct nd_run_result r;
	struct vn_prog_error pe;
	struct vn_program *p = NULL;
	struct vn_bind *binds = NULL;
	struct vn_exec *ex = NULL, *ex2 = NULL;
	int ret, stopped, stopped2 = 0;

	if (!h)
		return -EINVAL;
	h->err.msg[0] = '\0';
	if (res)
		memset(res, 0, sizeof(*res));
	if (!image || !size)
		return nd_seterr(&h->err, EINVAL, "no image");
	if (count && !tensors)
		return nd_seterr(&h->err, EINVAL, "%u tensors but no array", count);
	ret = host_program(h, image, size, &p, &pe);
	if (ret) {
		if (ret == -ENOMEM)
			return nd_seterr(&h->err, ENOMEM, "out of memory loading the program");
		return nd_seterr(&h->err, ret, "the image was rejected: %s check: %s (section %d, "
				 "entry %d)", vn_check_name(pe.check), pe.msg, (int)pe.section,
				 (int)pe.index);
	}
	binds = calloc(p->tensor_count + 1, sizeof(*binds));
	if (!binds) {
		ret = nd_seterr(&h->err, ENOMEM, "out of memory");
		goto out;
	}
	ret = bind_tensors(h, p, tensors, count, binds);
	if (ret)
		goto out;

	pthread_mutex_lock(&h->lock);
	h->nev = 0;
	h->ev_nomem = 0;
	pthread_mutex_unlock(&h->lock);
	if (h->record || h->trace)
		vn_core_set_hooks(h->core, hook, h->trace ? edge : NULL, h);
	else
		vn_core_set_hook(h->core, NULL, NULL);
	if (h->core2 && (h->record || (h->trace && h->trace->pair)))
		vn_core_set_hooks(h->core2, hook1, h->trace && h->trace->pair ? edge1 : NULL, h);
	else if (h->core2)
		vn_core_set_hook(h->core2, NULL, NULL);
	if (h->core2)		/* program id 0 of a logical core's launch */
		ret = vn_exec_submit_pid(h->core, p, binds, p->tensor_count, limit_ns, 0, NULL,
					 NULL, &ex);
	else
		ret = vn_exec_submit(h->core, p, binds, p->tensor_count, limit_ns, NULL, NULL,
				     &ex);
	if (ret == -ENOTCONN) {
		nd_seterr(&h->err, ret, "the program has collectives: bind the host to a rank of "
			  "a communicator first (nd_host_set_comm())");
		goto out;
	}
	if (!ret && h->core2)
		ret = vn_exec_submit_pid(h->core2, p, binds, p->tensor_count, limit_ns, 1, NULL,
					 NULL, &ex2);
	if (ret) {
		if (ex)
			vn_exec_cancel(ex);
		nd_seterr(&h->err, ret, "submit failed: %s", nd_strerror(ret));
		goto out;
	}
	ret = host_wait(h, ex, &stopped);
	if (!ret && ex2)
		ret = host_wait(h, ex2, &stopped2);
	if (ret) {
		nd_seterr(&h->err, ret, "wait failed: %s", nd_strerror(ret));
		goto out;
	}
	stopped |= stopped2;
	vn_exec_status(ex, &st);
	if (ex2)
		host_merge_status(&st, ex2);
	vn_core_set_hook(h->core, NULL, NULL);
	r = (struct nd_run_result){ .result = st.result, .reason = st.reason,
				    .stream = st.stream, .pc = st.pc, .model_ps = st.model_ps,
				    .host_ns = st.host_ns };
	if (res)
		*res = r;
	if (h->ev_nomem) {
		ret = nd_seterr(&h->err, ENOMEM, "out of memory recording events");
		goto out;
	}
	if (h->nev)
		qsort(h->ev, h->nev, sizeof(*h->ev), ev_cmp);
	if (stopped && st.result == VN_RES_ABORTED && st.reason == VN_REASON_CANCEL) {
		ret = nd_seterr(&h->err, EINTR, "the execution was stopped");
		goto out;
	}
	if (st.result != VN_RES_OK) {
		char msg[160];

		ret = nd_seterr(&h->err, nd_run_errno(&r), "%s",
				nd_run_describe(&r, msg, sizeof(msg)));
		goto out;
	}
	ret = 0;
out:
	if (ex2) {
		vn_exec_wait(ex2, 0);
		vn_exec_put(ex2);
	}
	if (ex)
		vn_exec_put(ex);
	vn_core_set_hook(h->core, NULL, NULL);
	if (h->core2)
		vn_core_set_hook(h->core2, NULL, NULL);
	free(binds);
	vn_program_put(p);
	return ret;
}

int nd_run_on_host(const void *image, size_t size, const struct nd_host_tensor *tensors,
		   unsigned int count, struct nd_run_result *res, struct nd_error *err)
{
	struct nd_host *h;
	int ret;

	ret = nd_host_open(NULL, &h, err);
	if (ret)
		return ret;
	ret = nd_host_run(h, image, size, tensors, count, 0, res);
	if (ret)
		nd_seterr(err, ret, "%s", h->err.msg);
	nd_host_close(h);
	return ret;
}

/* ---- communicators ---- */

int nd_host_comm_new(unsigned int nranks, const uint32_t *device, struct nd_host_comm **cp)
{
	return nd_host_comm_new_model(NULL, nranks, device, cp);
}

int nd_host_comm_new_model(const struct vneuron_model *m, unsigned int nranks,
			   const uint32_t *device, struct nd_host_comm **cp)
{
	struct vn_comm_params prm = { .nranks = nranks, .device = device };
	struct nd_host_comm *c;
	int ret;

	vn_cc_links_of(m, &prm.intra, &prm.inter);

	if (!cp)
		return -EINVAL;
	*cp = NULL;
	if (!nranks || nranks > VNEF_CC_MAX_RANKS)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	ret = vn_comm_create(&prm, &c->cm);
	if (ret) {
		free(c);
		return ret;
	}
	*cp = c;
	return 0;
}

void nd_host_comm_free(struct nd_host_comm *c)
{
	if (!c)
		return;
	vn_comm_put(c->cm);
	free(c);
}

unsigned int nd_host_comm_size(const struct nd_host_comm *c)
{
	return c ? vn_comm_size(c->cm) : 0;
}

int nd_host_comm_broken(struct nd_host_comm *c)
{
	struct vn_comm_state st;

	if (!c)
		return 0;
	vn_comm_state(c->cm, &st);
	return st.broken;
}

struct vn_comm *nd_host_comm_core(struct nd_host_comm *c)
{
	return c ? c->cm : NULL;
}

int nd_host_set_comm(struct nd_host *h, struct nd_host_comm *c, unsigned int rank)
{
	if (!h)
		return -EINVAL;
	if (c && rank >= vn_comm_size(c->cm))
		return nd_seterr(&h->err, EINVAL, "rank %u of a communicator of %u ranks", rank,
				 vn_comm_size(c->cm));
	vn_core_set_comm(h->core, c ? c->cm : NULL, c ? rank : 0);
	return 0;
}

/* ---- trace sessions ---- */

void nd_host_trace_free(struct nd_host_trace *t)
{
	unsigned int i;

	if (!t)
		return;
	if (t->h)
		t->h->trace = NULL;
	nd_host_trace_free(t->pair);
	for (i = 0; i < VN_TRACE_RINGS_PER_CORE; i++) {
		free(t->cons[i]);
		free(t->map[i]);
	}
	if (t->efd >= 0)
		close(t->efd);
	free(t);
}

/* One session's rings (a core's), unattached. */
static int trace_alloc(struct nd_host *h, const struct nd_trace_opts *o, uint64_t start_ns,
		       struct nd_host_trace **tp)
{
	struct vn_trace_params p = { .data_offset = HT_PAGE };
	struct nd_host_trace *t;
	unsigned int i;
	int ret;

	p.mode = o ? o->mode : VNEURON_TRACE_MODE_STOP;
	p.watermark = o ? o->watermark : 0;
	p.start_host_ns = start_ns;
	t = calloc(1, sizeof(*t));
	if (!t)
		return nd_seterr(&h->err, ENOMEM, "out of memory");
	t->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (t->efd < 0) {
		ret = nd_seterr(&h->err, errno, "eventfd: %s", nd_strerror(errno));
		free(t);
		return ret;
	}
	t->ring_size = o && o->ring_size ? o->ring_size : ND_TRACE_DEFAULT_RING;
	if (t->ring_size < VNEURON_TRACE_MIN_RING || t->ring_size > VNEURON_TRACE_MAX_RING ||
	    (t->ring_size & (t->ring_size - 1))) {
		ret = nd_seterr(&h->err, EINVAL, "ring size %llu: give a power of two from 4 KiB "
				"to 256 MiB", (unsigned long long)t->ring_size);
		goto err;
	}
	for (i = 0; i < VN_TRACE_RINGS_PER_CORE; i++) {
		/* zeroed, as the module's vmalloc()ed rings are */
		t->cons[i] = aligned_alloc(HT_PAGE, HT_PAGE);
		t->map[i] = aligned_alloc(HT_PAGE, HT_PAGE + t->ring_size);
		if (!t->cons[i] || !t->map[i]) {
			ret = nd_seterr(&h->err, ENOMEM, "out of memory for the trace rings");
			goto err;
		}
		memset(t->cons[i], 0, HT_PAGE);
		memset(t->map[i], 0, HT_PAGE + t->ring_size);
		p.engine = vn_trace_ring_engine(i);
		ret = vn_trace_ring_init(&t->prod[i], t->cons[i], (void *)t->map[i],
					 t->map[i] + HT_PAGE, t->ring_size, &p, trace_wake, t);
		if (ret) {
			ret = nd_seterr(&h->err, -ret, "trace ring %u (mode %u, watermark %u): "
					"invalid parameters", i, p.mode, p.watermark);
			goto err;
		}
	}
	*tp = t;
	return 0;
err:
	nd_host_trace_free(t);
	return ret;
}

int nd_host_trace_start(struct nd_host *h, const struct nd_trace_opts *o,
			struct nd_host_trace **tp)
{
	struct nd_host_trace *t;
	uint64_t now;
	int ret;

	if (!tp)
		return -EINVAL;
	*tp = NULL;
	if (!h)
		return -EINVAL;
	if (h->trace)
		return nd_seterr(&h->err, EBUSY, "the host core is traced already");
	now = vn_time_ns();
	ret = trace_alloc(h, o, now, &t);
	if (ret)
		return ret;
	/* LNC=2: program id 1's core gets its own session, as a second device core would */
	if (h->core2 && (ret = trace_alloc(h, o, now, &t->pair))) {
		nd_host_trace_free(t);
		return ret;
	}
	t->h = h;
	h->trace = t;
	*tp = t;
	return 0;
}

struct nd_host_trace *nd_host_trace_instance(struct nd_host_trace *t, unsigned int pid)
{
	if (!t)
		return NULL;
	return pid == 0 ? t : pid == 1 ? t->pair : NULL;
}

unsigned int nd_host_trace_nr_rings(const struct nd_host_trace *t)
{
	return t ? VN_TRACE_RINGS_PER_CORE : 0;
}

int nd_host_trace_ring(const struct nd_host_trace *t, unsigned int i, struct nd_ring *r)
{
	if (!t || !r || i >= VN_TRACE_RINGS_PER_CORE)
		return -EINVAL;
	return nd_ring_init(r, t->cons[i], t->map[i], HT_PAGE + t->ring_size);
}

int nd_host_trace_fd(const struct nd_host_trace *t)
{
	return t ? t->efd : -1;
}

int nd_host_trace_stop(struct nd_host_trace *t)
{
	unsigned int i;

	if (!t)
		return -EINVAL;
	if (t->stopped)
		return 0;
	/* Between runs (a handle is used by one thread): no worker produces now. */
	for (i = 0; i < VN_TRACE_RINGS_PER_CORE; i++)
		vn_trace_stop(&t->prod[i]);
	t->stopped = 1;
	trace_wake(t);
	if (t->pair)
		nd_host_trace_stop(t->pair);
	return 0;
}
