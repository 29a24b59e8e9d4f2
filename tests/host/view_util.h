/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The `vneuron-profile view` tests' shared part (test_view*.c): seed 002's exp kernel,
 * naive and tiled, built with the program builder and captured on the host backend into
 * a .vntf (capture(), capture_app() for an application of two programs), the command run
 * with its output kept (profiler()), and the view fixture: both kernels' programs and
 * profiles in a temporary directory.
 */
#ifndef VIEW_UTIL_H
#define VIEW_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <pty.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vn_model.h"
#include "vnprog.h"
#include "../../profiler/builtin.h"
#include "../../profiler/capture/capture.h"
#include "../../profiler/format/sha256.h"
#include "../../profiler/model/timeline.h"
#include "../../profiler/format/vntf.h"
#include "vnp_synth.h"

/*
 * The 6.1 harness (and its FIXTURE macros) define functions without prototypes, compare
 * its int expectations with unsigned values, and expand ASSERT_* to a for loop.
 */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmisleading-indentation"
#include "kselftest_harness.h"

#define ROWS	128
#define COLS	4096
#define PROFILER "build/bin/vneuron-profile"
/* The source file the builder's call sites name: build() is here. */
#define BUILD_FILE "view_util.h"

static int store_line;		/* source line of the naive kernel's store */

/*
 * y = exp(x) * 2 + 1 on ScalarE, VectorE and GpSimdE. Naive: one load of everything,
 * then each engine over the whole tile, then one store. Tiled: 16 column tiles with their
 * own buffers, loads and stores spread over queues, so engines and DMA pipeline.
 */
static inline int build(int tiled, void **img, size_t *size)
{
	uint64_t shape[2] = { ROWS, COLS };
	unsigned int ntiles = tiled ? 16 : 1, w = COLS / ntiles, i;
	struct nd_builder *b;
	struct nd_tensor *in, *out;
	int ret;

	if (nd_builder_new(tiled ? "exp_tiled" : "exp_naive", &b))
		return -ENOMEM;
	in = nd_input(b, "x", ND_FP32, 2, shape);
	out = nd_output(b, "y", ND_FP32, 2, shape);
	for (i = 0; i < ntiles; i++) {
		struct nd_tile *t = nd_sbuf(b, "t", ND_FP32, ROWS, w);
		struct nd_tile *u = nd_sbuf(b, "u", ND_FP32, ROWS, w);
		int q = tiled ? (int)(i % 8) : 0;

		nd_scope_push(b, "exp");
		nd_scope_push(b, "load");
		nd_load(b, q, nd_whole(t), nd_hbm_rows(in, 0, (uint64_t)i * w));
		nd_scope_pop(b);
		nd_scope_push(b, "compute");
		nd_activate(b, nd_whole(u), nd_whole(t), ND_ACT_EXP, 1.0f, 0.0f);
		nd_tensor_scalar(b, ND_VECTOR, nd_whole(t), nd_whole(u), ND_MUL, 2.0f, 0);
		nd_tensor_scalar(b, ND_GPSIMD, nd_whole(u), nd_whole(t), ND_ADD, 1.0f, 0);
		nd_scope_pop(b);
		nd_scope_push(b, "store");
		store_line = __LINE__ + 1;
		nd_store(b, q + 8, nd_hbm_rows(out, 0, (uint64_t)i * w), nd_whole(u));
		nd_scope_pop(b);
		nd_scope_pop(b);
	}
	ret = nd_builder_finish(b, img, size);
	if (ret)
		fprintf(stderr, "# builder: %s\n", nd_builder_error(b));
	nd_builder_free(b);
	return ret;
}

static inline int write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");
	int ret = 0;

	if (!f)
		return -errno;
	if (fwrite(buf, 1, len, f) != len)
		ret = -EIO;
	if (fclose(f))
		ret = -EIO;
	return ret;
}

/* A host event as the device's trace record of it (exec_seq 0). */
static inline void ev_record(const struct nd_event *ev, struct vneuron_trace_record *r)
{
	memset(r, 0, sizeof(*r));
	r->pc = ev->pc;
	r->model_start_ps = ev->start_ps;
	r->model_end_ps = ev->end_ps;
	r->elements = (uint32_t)ev->elements;
	r->bytes = (uint32_t)ev->bytes;
	r->flops = ev->flops;
	r->sem_wait = ev->wait_sem == ~0u ? VNEURON_TRACE_NO_SEM : (uint16_t)ev->wait_sem;
	r->sem_value = ev->wait_value;
	r->sem_signal = VNEURON_TRACE_NO_SEM;
	if (ev->stream < 4) {
		r->kind = VNEURON_TRACE_INSN;
		r->engine = (uint8_t)ev->stream;
		r->opcode = (uint16_t)ev->opcode;
	} else {
		r->kind = VNEURON_TRACE_DMA;
		r->engine = VNEURON_TRACE_ENGINE_DMA;
		r->dma_queue = (uint16_t)(ev->stream - 4);
		r->dma_desc = (uint16_t)ev->pc;
	}
}

/* The identity of an image as section 9 (and the program section) records it. */
static inline void identity(const void *img, size_t size, const char *name, struct vntf_program *p)
{
	memset(p, 0, sizeof(*p));
	p->hash_algo = VNTF_HASH_SHA256;
	p->hash_len = 32;
	vnp_sha256(img, size, p->hash);
	p->image_size = size;
	snprintf(p->name, sizeof(p->name), "%s", name);
}

/* Issue 12: the two test programs, built, with their names. */
struct two_programs {
	void *img[2];
	size_t size[2];
	const char *name[2];
};

static inline int two_programs(struct two_programs *tp)
{
	tp->name[0] = "exp_naive";
	tp->name[1] = "exp_tiled";
	return build(0, &tp->img[0], &tp->size[0]) ?: build(1, &tp->img[1], &tp->size[1]);
}

static inline void two_programs_free(struct two_programs *tp)
{
	free(tp->img[0]);
	free(tp->img[1]);
}

/*
 * An application's profile (capture -- app) of n executions on core 0: execution i runs
 * the two programs' prog[i] (0 naive, 1 tiled) on the host and its records carry
 * exec_seq i; those of execution slow (if < n) take three times as long (a planted
 * outlier). With identity, section 9 says which program each execution ran; without, the
 * profile names no program, as before it existed.
 */
static inline int capture_app(const char *path, const unsigned int *prog, unsigned int n,
			      int identity_section, unsigned int slow)
{
	size_t bytes = (size_t)ROWS * COLS * 4, nev, i;
	float *x = calloc(1, bytes), *y = malloc(bytes);
	struct nd_host_tensor t[2] = { { "x", x, bytes }, { "y", y, bytes } };
	struct vntf_clock clk = { .model_unit_ps = 1 };
	struct vntf_program progs[2];
	struct vntf_exec_program execs[16];
	struct two_programs tp = { 0 };
	struct vneuron_trace_record r;
	const struct nd_event *ev;
	struct nd_run_result res;
	struct nd_error err;
	struct vntf_writer *w = NULL;
	struct nd_host *h;
	unsigned int s, e, nprogs = 0;
	int ret;

	if (n > 16)
		return -EINVAL;
	ret = two_programs(&tp) ?: vntf_writer_open(&w, path);
	if (ret)
		goto out;
	ret = vntf_write_model(w, &vn_model_trn1) ?: vntf_write_clock(w, &clk);
	for (s = 0; s < VNEF_STREAMS && !ret; s++) {
		struct vntf_worker wk = { .stream = s, .nr_workers = 1, .ring_size = 1 << 20,
					  .engine = s < 4 ? s : VNEURON_TRACE_ENGINE_DMA };

		ret = vntf_write_worker(w, &wk);
	}
	for (e = 0; e < n && !ret; e++) {
		ret = nd_host_open(NULL, &h, &err);
		if (ret)
			break;
		nd_host_record(h, 1);
		ret = nd_host_run(h, tp.img[prog[e]], tp.size[prog[e]], t, 2, 0, &res);
		ev = ret ? NULL : nd_host_events(h, &nev);
		for (i = 0; ev && i < nev && !ret; i++) {
			ev_record(&ev[i], &r);
			r.exec_seq = e;
			if (e == slow) {
				r.model_start_ps *= 3;
				r.model_end_ps *= 3;
			}
			ret = vntf_write_records(w, ev[i].stream, &r, 1);
		}
		nd_host_close(h);
		execs[e] = (struct vntf_exec_program){ .exec_seq = e, .program = prog[e] };
		if (prog[e] + 1 > nprogs)
			nprogs = prog[e] + 1;
	}
	for (s = 0; s < nprogs; s++)
		identity(tp.img[s], tp.size[s], tp.name[s], &progs[s]);
	if (!ret && identity_section)
		ret = vntf_write_exec_programs(w, progs, nprogs, execs, n);
	if (ret)
		vntf_writer_abort(w);
	else
		ret = vntf_writer_finish(w, 1);
out:
	two_programs_free(&tp);
	free(x);
	free(y);
	return ret;
}

/*
 * Runs the image on the host and writes its events as a profile. With lost, DMA q0's
 * stream also carries a LOST record of 5 and a lost section of 7 dropped (the producer's
 * total, the 5 included) and 2 overwritten. With fault, ring 0 ends the execution as a
 * fault of the store (DMA q8 descriptor 0) would: an ERROR record (a chunk outside SBUF,
 * partition 131, bytes 0..63) at the store's start, then EXEC_END with status FAULT.
 */
static inline int capture(const void *img, size_t size, const char *path, int lost, int fault)
{
	size_t bytes = (size_t)ROWS * COLS * 4, nev, i;
	float *x = malloc(bytes), *y = malloc(bytes);
	struct nd_host_tensor t[2] = { { "x", x, bytes }, { "y", y, bytes } };
	struct vntf_clock clk = { .model_unit_ps = 1 };
	struct vntf_program prog = { .hash_algo = VNTF_HASH_SHA256, .hash_len = 32 };
	struct vneuron_trace_record r;
	const struct nd_event *ev;
	struct nd_run_result res;
	struct nd_error err;
	struct vntf_writer *w;
	struct nd_host *h;
	unsigned int s;
	int ret;

	for (i = 0; i < (size_t)ROWS * COLS; i++)
		x[i] = (float)(i % 17) / 17.0f;
	ret = nd_host_open(NULL, &h, &err);
	if (ret)
		goto out;
	nd_host_record(h, 1);
	ret = nd_host_run(h, img, size, t, 2, 0, &res);
	if (ret) {
		fprintf(stderr, "# host run: %s\n", nd_host_error(h));
		nd_host_close(h);
		goto out;
	}
	ev = nd_host_events(h, &nev);
	vnp_sha256(img, size, prog.hash);
	prog.image_size = size;
	snprintf(prog.name, sizeof(prog.name), "exp");
	ret = vntf_writer_open(&w, path);
	if (ret) {
		nd_host_close(h);
		goto out;
	}
	ret = vntf_write_model(w, &vn_model_trn1) ?: vntf_write_clock(w, &clk) ?:
	      vntf_write_program(w, &prog, NULL, 0);
	for (s = 0; s < VNEF_STREAMS && !ret; s++) {
		struct vntf_worker wk = { .stream = s, .nr_workers = 1, .ring_size = 1 << 20,
					  .engine = s < 4 ? s : VNEURON_TRACE_ENGINE_DMA };

		ret = vntf_write_worker(w, &wk);
	}
	for (i = 0; i < nev && !ret; i++) {
		ev_record(&ev[i], &r);
		ret = vntf_write_records(w, ev[i].stream, &r, 1);
	}
	if (fault && !ret) {
		uint64_t at = 0, end = 0;

		for (i = 0; i < nev; i++) {
			if (ev[i].stream == VNEF_STREAM_DMA(8) && ev[i].pc == 0)
				at = ev[i].start_ps;
			if (ev[i].end_ps > end)
				end = ev[i].end_ps;
		}
		memset(&r, 0, sizeof(r));
		r.kind = VNEURON_TRACE_ERROR;
		r.engine = VNEURON_TRACE_ENGINE_DMA;
		r.dma_queue = 8;
		r.dma_desc = 0;
		r.pc = 0;
		r.opcode = VNEURON_REASON_FAULT_SBUF;
		r.elements = VNEF_MEM_SBUF;
		r.sem_value = 131;
		r.count = 0;
		r.bytes = 64;
		r.model_start_ps = at;
		r.model_end_ps = at;
		r.sem_wait = VNEURON_TRACE_NO_SEM;
		r.sem_signal = VNEURON_TRACE_NO_SEM;
		ret = vntf_write_records(w, 0, &r, 1);
		memset(&r, 0, sizeof(r));
		r.kind = VNEURON_TRACE_EXEC_END;
		r.engine = VNEURON_TRACE_ENGINE_CORE;
		r.opcode = VNEURON_EXEC_FAULT;
		r.elements = VNEURON_REASON_FAULT_SBUF;
		r.model_end_ps = end;
		r.sem_wait = VNEURON_TRACE_NO_SEM;
		r.sem_signal = VNEURON_TRACE_NO_SEM;
		if (!ret)
			ret = vntf_write_records(w, 0, &r, 1);
	}
	if (lost && !ret) {
		memset(&r, 0, sizeof(r));
		r.kind = VNEURON_TRACE_LOST;
		r.engine = VNEURON_TRACE_ENGINE_DMA;
		r.count = 5;
		r.sem_wait = VNEURON_TRACE_NO_SEM;
		r.sem_signal = VNEURON_TRACE_NO_SEM;
		ret = vntf_write_records(w, 4, &r, 1) ?: vntf_write_lost(w, 4, 7, 2);
	}
	nd_host_close(h);
	if (ret)
		vntf_writer_abort(w);
	else
		ret = vntf_writer_finish(w, 1);
out:
	free(x);
	free(y);
	return ret;
}

/* Runs the profiler; its exit status, stdout+stderr in *out (malloc()ed). */
static inline int profiler(char **out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline int profiler(char **out, const char *fmt, ...)
{
	char cmd[2048], buf[4096];
	size_t len = 0, n;
	va_list ap;
	FILE *p;
	int st;

	va_start(ap, fmt);
	n = (size_t)snprintf(cmd, sizeof(cmd), "%s ", PROFILER);
	vsnprintf(cmd + n, sizeof(cmd) - n, fmt, ap);
	va_end(ap);
	strncat(cmd, " 2>&1", sizeof(cmd) - strlen(cmd) - 1);
	*out = calloc(1, 1);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0) {
		*out = realloc(*out, len + n + 1);
		memcpy(*out + len, buf, n);
		len += n;
		(*out)[len] = 0;
	}
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A fixture's end: its output freed, its directory (if made) removed. */
static inline void teardown(char *out, const char *dir)
{
	char cmd[128];

	free(out);
	if (dir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd))
			fprintf(stderr, "# could not remove %s\n", dir);
	}
}

FIXTURE(view) {
	char dir[64], naive_prog[128], naive_prof[128], tiled_prog[128], tiled_prof[128];
	char *out;
};

FIXTURE_SETUP(view)
{
	void *img;
	size_t size;

	self->out = NULL;
	if (access(PROFILER, X_OK))
		SKIP(return, "%s is not built (make)", PROFILER);
	snprintf(self->dir, sizeof(self->dir), "/tmp/vnp_view_XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->naive_prog, sizeof(self->naive_prog), "%s/naive.vnef", self->dir);
	snprintf(self->naive_prof, sizeof(self->naive_prof), "%s/naive.vntf", self->dir);
	snprintf(self->tiled_prog, sizeof(self->tiled_prog), "%s/tiled.vnef", self->dir);
	snprintf(self->tiled_prof, sizeof(self->tiled_prof), "%s/tiled.vntf", self->dir);
	ASSERT_EQ(0, build(0, &img, &size));
	ASSERT_EQ(0, write_file(self->naive_prog, img, size));
	ASSERT_EQ(0, capture(img, size, self->naive_prof, 0, 0));
	free(img);
	ASSERT_EQ(0, build(1, &img, &size));
	ASSERT_EQ(0, write_file(self->tiled_prog, img, size));
	ASSERT_EQ(0, capture(img, size, self->tiled_prof, 0, 0));
	free(img);
}

FIXTURE_TEARDOWN(view)
{
	teardown(self->out, self->dir);
}

/* 0 when the two files have the same bytes. */
static inline int same_bytes(const char *a, const char *b)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "cmp -s %s %s", a, b);
	return system(cmd);
}

/* How many files in dir (temporary files left behind would show). */
static inline int files_in(const char *dir)
{
	char cmd[200], out[32] = "";
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls -A %s | wc -l", dir);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	if (!fgets(out, sizeof(out), p))
		out[0] = 0;
	pclose(p);
	return atoi(out);
}

/* 1 if the file at path holds s (binary files too), 0 if not, -1 if unreadable. */
static inline int file_has(const char *path, const char *s)
{
	void *img;
	size_t size;
	int has;

	if (nd_read_file(path, 1 << 26, &img, &size))
		return -1;
	has = memmem(img, size, s, strlen(s)) != NULL;
	free(img);
	return has;
}

#endif
