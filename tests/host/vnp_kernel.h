/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Real profiles for the analyzer's tests: assembler text (docs/assembler.md) assembled,
 * run on the host backend (the device core's executor) with its events kept, and the
 * events made into a timeline as a capture would, one execution after another.
 */
#ifndef VNP_KERNEL_H
#define VNP_KERNEL_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vnprog.h"
#include "vn_model.h"
#include "vn_program.h"
#include "../../profiler/analysis/analyze.h"
#include "../../profiler/analysis/replay.h"
#include "../../profiler/format/sha256.h"
#include "../../profiler/output/summary.h"
#include "../../profiler/format/vntf.h"

struct kern {
	void *img;
	size_t size;
	uint64_t model_ps;		/* one execution */
	struct vnp_prog prog;
	struct vnp_timeline tl;
	struct vnp_metrics m;
	struct vnp_analysis a;
};

/* Text built with printf formats (kernels are unrolled by the test). */
struct text {
	char *s;
	size_t n, cap;
};

static inline void tx(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void tx(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->s ? t->s + t->n : NULL, t->s ? t->cap - t->n : 0, fmt, ap);
		va_end(ap);
		if (t->s && t->n + (size_t)n < t->cap)
			break;
		t->cap = (t->cap + (size_t)n + 1) * 2;
		t->s = realloc(t->s, t->cap);
		if (!t->s)
			abort();
	}
	t->n += (size_t)n;
}

/* Binds every input and output tensor to zeroed memory and runs; events in h. */
static inline int kern_exec(struct nd_host *h, const struct vn_program *p, const void *img,
			    size_t size, uint64_t *ps)
{
	struct nd_host_tensor t[16] = { { 0 } };
	struct nd_run_result res;
	unsigned int n = 0, i;
	int ret;

	for (i = 0; i < p->tensor_count && n < 16; i++) {
		if (p->tensors[i].kind != VNEF_TENSOR_INPUT &&
		    p->tensors[i].kind != VNEF_TENSOR_OUTPUT)
			continue;
		t[n].name = vn_program_str(p, p->tensors[i].name_off);
		t[n].size = p->tensors[i].size;
		t[n].data = calloc(1, t[n].size);
		n++;
	}
	ret = nd_host_run(h, img, size, t, n, 0, &res);
	if (ret)
		fprintf(stderr, "# host run: %s\n", nd_host_error(h));
	*ps = res.model_ps;
	for (i = 0; i < n; i++)
		free(t[i].data);
	return ret;
}

static inline int kern_add(struct kern *k, struct nd_host *h, uint32_t seq)
{
	const struct nd_event *ev;
	struct vneuron_trace_record r;
	size_t nev, i;
	int ret = 0;

	ev = nd_host_events(h, &nev);
	for (i = 0; i < nev && !ret; i++) {
		memset(&r, 0, sizeof(r));
		r.pc = ev[i].pc;
		r.exec_seq = seq;
		r.model_start_ps = ev[i].start_ps;
		r.model_end_ps = ev[i].end_ps;
		r.elements = (uint32_t)ev[i].elements;
		r.bytes = (uint32_t)ev[i].bytes;
		r.flops = ev[i].flops;
		r.sem_wait = ev[i].wait_sem == ~0u ? VNEURON_TRACE_NO_SEM : (uint16_t)ev[i].wait_sem;
		r.sem_value = ev[i].wait_value;
		r.sem_signal = VNEURON_TRACE_NO_SEM;
		if (ev[i].stream < VNEF_ENGINES) {
			r.kind = VNEURON_TRACE_INSN;
			r.engine = (uint8_t)ev[i].stream;
			r.opcode = (uint16_t)ev[i].opcode;
		} else {
			r.kind = VNEURON_TRACE_DMA;
			r.engine = VNEURON_TRACE_ENGINE_DMA;
			r.dma_queue = (uint16_t)(ev[i].stream - VNEF_ENGINES);
			r.dma_desc = (uint16_t)ev[i].pc;
		}
		ret = vnp_tl_add(&k->tl, 0, &r, 1);
	}
	return ret;
}

/* Assembles text, runs it nexec times and analyzes the profile (flags: vnp_analyze_opts). */
static inline struct kern *kern_run(const char *text, const char *name, unsigned int nexec,
				    unsigned int flags)
{
	struct kern *k = calloc(1, sizeof(*k));
	struct nd_asm_diag d;
	struct nd_error err;
	struct nd_host *h = NULL;
	char msg[256];
	unsigned int x;
	int ret;

	ret = nd_asm(text, strlen(text), name, 0, &k->img, &k->size, &d, stderr);
	if (!ret)
		ret = vnp_prog_load(&k->prog, k->img, k->size, msg, sizeof(msg));
	if (!ret)
		ret = nd_host_open(NULL, &h, &err);
	if (ret) {
		free(k);
		return NULL;
	}
	nd_host_record(h, 1);
	vnp_tl_init(&k->tl, &vn_model_trn1, &k->prog);
	for (x = 0; x < nexec && !ret; x++)
		ret = kern_exec(h, k->prog.owner, k->img, k->size, &k->model_ps) ?:
		      kern_add(k, h, x + 1);
	nd_host_close(h);
	if (!ret)
		ret = vnp_tl_finish(&k->tl);
	if (!ret)
		ret = vnp_metrics_compute(&k->tl, 0, &k->m);
	if (!ret)
		ret = vnp_analyze_opts(&k->tl, &k->m, &k->a, flags);
	if (ret) {
		fprintf(stderr, "# kern_run %s: %d\n", name, ret);
		return NULL;
	}
	if (getenv("VNP_DUMP")) {
		struct vnp_view v = { .tl = &k->tl, .m = &k->m, .a = &k->a, .top = 5 };

		vnp_summary_text(stdout, &v);
		fflush(stdout);
	}
	return k;
}

static inline void kern_free(struct kern *k)
{
	if (!k)
		return;
	vnp_analysis_free(&k->a);
	vnp_metrics_free(&k->m);
	vnp_tl_free(&k->tl);
	vnp_prog_free(&k->prog);
	free(k->img);
	free(k);
}

/* k's summary-text (json: summary-json), as a string to free. */
static inline char *kern_summary(const struct kern *k, int json)
{
	struct vnp_view v = { .tl = &k->tl, .m = &k->m, .a = &k->a, .top = 5 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (json ? vnp_summary_json(f, &v) : vnp_summary_text(f, &v)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

/* The modeled time of one execution of a kernel's text (a fixed twin's). */
static inline uint64_t twin_ps(const char *text, const char *name)
{
	void *img;
	size_t size;
	uint64_t ps = 0;

	if (nd_asm(text, strlen(text), name, 0, &img, &size, NULL, stderr))
		return 0;
	if (vnp_replay_image(img, size, &vn_model_trn1, &ps))
		ps = 0;
	free(img);
	return ps;
}

/*
 * Assembles text, writes it as dir/base.vnef and one host execution of it as the
 * profile dir/base.vntf, as capture would write it. 0 or -errno.
 */
static inline int kern_save(const char *text, const char *dir, const char *base)
{
	char path[512];
	void *img = NULL;
	size_t size, nev, i;
	struct vn_program *p = NULL;
	struct nd_error err;
	struct nd_host *h = NULL;
	struct vntf_clock clk = { .model_unit_ps = 1 };
	struct vntf_program prog = { .hash_algo = VNTF_HASH_SHA256, .hash_len = 32 };
	struct vntf_writer *w;
	const struct nd_event *ev;
	uint64_t ps;
	unsigned int st;
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "%s.vasm", base);
	ret = nd_asm(text, strlen(text), path, 0, &img, &size, NULL, stderr);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/%s.vnef", dir, base);
	f = fopen(path, "wb");
	if (!f || fwrite(img, 1, size, f) != size)
		ret = -EIO;
	if (f && fclose(f))
		ret = -EIO;
	ret = ret ?: vn_program_load(img, size, &p, NULL) ?: nd_host_open(NULL, &h, &err);
	if (ret)
		goto out;
	nd_host_record(h, 1);
	ret = kern_exec(h, p, img, size, &ps);
	if (ret)
		goto out;
	vnp_sha256(img, size, prog.hash);
	prog.image_size = size;
	snprintf(prog.name, sizeof(prog.name), "%s", base);
	snprintf(path, sizeof(path), "%s/%s.vntf", dir, base);
	ret = vntf_writer_open(&w, path);
	if (ret)
		goto out;
	ret = vntf_write_model(w, &vn_model_trn1) ?: vntf_write_clock(w, &clk) ?:
	      vntf_write_program(w, &prog, NULL, 0);
	for (st = 0; st < VNEF_STREAMS && !ret; st++) {
		struct vntf_worker wk = { .stream = st, .nr_workers = 1, .ring_size = 1 << 20,
					  .engine = st < 4 ? st : VNEURON_TRACE_ENGINE_DMA };

		ret = vntf_write_worker(w, &wk);
	}
	ev = nd_host_events(h, &nev);
	for (i = 0; i < nev && !ret; i++) {
		struct vneuron_trace_record r;

		memset(&r, 0, sizeof(r));
		r.pc = ev[i].pc;
		r.exec_seq = 1;
		r.model_start_ps = ev[i].start_ps;
		r.model_end_ps = ev[i].end_ps;
		r.elements = (uint32_t)ev[i].elements;
		r.bytes = (uint32_t)ev[i].bytes;
		r.flops = ev[i].flops;
		r.sem_wait = ev[i].wait_sem == ~0u ? VNEURON_TRACE_NO_SEM : (uint16_t)ev[i].wait_sem;
		r.sem_value = ev[i].wait_value;
		r.sem_signal = VNEURON_TRACE_NO_SEM;
		r.kind = ev[i].stream < 4 ? VNEURON_TRACE_INSN : VNEURON_TRACE_DMA;
		r.engine = ev[i].stream < 4 ? (uint8_t)ev[i].stream : VNEURON_TRACE_ENGINE_DMA;
		r.opcode = ev[i].stream < 4 ? (uint16_t)ev[i].opcode : 0;
		r.dma_queue = ev[i].stream < 4 ? 0 : (uint16_t)(ev[i].stream - 4);
		r.dma_desc = ev[i].stream < 4 ? 0 : (uint16_t)ev[i].pc;
		ret = vntf_write_records(w, ev[i].stream, &r, 1);
	}
	if (ret)
		vntf_writer_abort(w);
	else
		ret = vntf_writer_finish(w, 1);
out:
	nd_host_close(h);
	if (p)
		vn_program_put(p);
	free(img);
	return ret;
}

/*
 * A latency-bound kernel: load, VectorE, ScalarE, store, each waiting for the one before
 * (test_verdict.c's latency_bound_chain, test_vnprofile.c's profile).
 */
static const char vnp_chain[] __attribute__((unused)) =
	".program \"chain\"\n.tensor x input fp32 [128, 128]\n.tensor y output fp32 [128, 128]\n"
	".queue 0\n.scope \"chain/load\"\n"
	"\tdma sbuf[0; 0, 1]@0x0, x@0x0[0, 512], 1 x 128 x 512 signal s0\n"
	".engine vector\n.scope \"chain/scale\"\n"
	"\ttensor_scalar mul sbuf.fp32[0:128]@0x0[2048], sbuf.fp32[0:128]@0x0[2048], 2.0 "
	"wait s0 >= 1 signal s1\n"
	".engine scalar\n.scope \"chain/exp\"\n"
	"\tactivate exp sbuf.fp32[0:128]@0x0[2048], sbuf.fp32[0:128]@0x0[2048], 1.0, 0.0 "
	"wait s1 >= 1 signal s2\n"
	".queue 1\n.scope \"chain/store\"\n"
	"\tdma y@0x0[0, 512], sbuf[0; 0, 1]@0x0, 1 x 128 x 512 wait s2 >= 1\n";

#endif /* VNP_KERNEL_H */
