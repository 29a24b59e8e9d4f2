// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * `vneuron-profile view` end to end, without the kernel: a kernel built with the program
 * builder runs on the host backend (the device core's executor), its events become trace
 * records in a .vntf written by the profile writer, and the command reads both files.
 * Checks the outputs, the advice on a naive and a tiled version of the same kernel
 * (seed 002's exp kernel: "no overlap between engines, no overlap between DMA and
 * compute"; the tiled version keeps every tile in its own buffers, so nothing waits
 * for a buffer to be released), and every input error: a program and profile that do not belong together,
 * a truncated profile, an unknown version, missing files and bad usage, each with a
 * message and a non-zero exit. Device faults (ERROR records): kept by the timeline on
 * their execution's place, named in the text summary, the JSON and the Perfetto trace;
 * impossible ones counted as malformed (synthetic timelines from vnp_synth.h, and the
 * command on a profile of the real kernel with an ERROR record added).
 */
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

static int store_line;		/* source line of the naive kernel's store */

/*
 * y = exp(x) * 2 + 1 on ScalarE, VectorE and GpSimdE. Naive: one load of everything,
 * then each engine over the whole tile, then one store. Tiled: 16 column tiles with their
 * own buffers, loads and stores spread over queues, so engines and DMA pipeline.
 */
static int build(int tiled, void **img, size_t *size)
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

static int write_file(const char *path, const void *buf, size_t len)
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
static void ev_record(const struct nd_event *ev, struct vneuron_trace_record *r)
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
static void identity(const void *img, size_t size, const char *name, struct vntf_program *p)
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

static int two_programs(struct two_programs *tp)
{
	tp->name[0] = "exp_naive";
	tp->name[1] = "exp_tiled";
	return build(0, &tp->img[0], &tp->size[0]) ?: build(1, &tp->img[1], &tp->size[1]);
}

static void two_programs_free(struct two_programs *tp)
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
static int capture_app(const char *path, const unsigned int *prog, unsigned int n,
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
static int capture(const void *img, size_t size, const char *path, int lost, int fault)
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
static int profiler(char **out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int profiler(char **out, const char *fmt, ...)
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
static void teardown(char *out, const char *dir)
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

TEST_F(view, naive_kernel_gets_the_seed_advice)
{
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s", self->naive_prog,
			      self->naive_prof));
	EXPECT_NE(NULL, strstr(self->out, "vneuron-profile: exp_naive"));
	EXPECT_NE(NULL, strstr(self->out, "[dma-no-overlap] DMA never overlaps compute"));
	EXPECT_NE(NULL, strstr(self->out, "[engines-no-overlap]"));
	EXPECT_NE(NULL, strstr(self->out, "exp/compute/exp"));
	EXPECT_NE(NULL, strstr(self->out, "test_view.c:"));
	if (getenv("VNP_DUMP"))
		fputs(self->out, stderr);
	free(self->out);
	/* unwrapped in json: the seed's own finding */
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f summary-json", self->naive_prog,
			      self->naive_prof));
	EXPECT_NE(NULL, strstr(self->out, "the data is fully loaded before compute starts"));
}

TEST_F(view, tiled_kernel_overlaps)
{
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s", self->tiled_prog,
			      self->tiled_prof));
	EXPECT_EQ(NULL, strstr(self->out, "[dma-no-overlap]"));
	EXPECT_EQ(NULL, strstr(self->out, "[engines-no-overlap]"));
	if (getenv("VNP_DUMP"))
		fputs(self->out, stderr);
}

TEST_F(view, every_output_format)
{
	char path[160], cmd[400];

	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s --output-format summary-json",
			      self->naive_prog, self->naive_prof));
	EXPECT_NE(NULL, strstr(self->out, "\"total_time_ps\":"));
	EXPECT_NE(NULL, strstr(self->out, "\"rule\":\"dma-no-overlap\""));
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f json", self->naive_prog,
			      self->naive_prof));
	EXPECT_NE(NULL, strstr(self->out, "\"events\":["));
	EXPECT_NE(NULL, strstr(self->out, "\"opcode\":\"ACTIVATE\""));
	EXPECT_NE(NULL, strstr(self->out, "\"scope\":\"exp/compute/"));
	EXPECT_NE(NULL, strstr(self->out, "\"src0\":{\"mem\":\"SBUF\""));
	EXPECT_NE(NULL, strstr(self->out, "\"src\":{\"mem\":\"HBM\",\"tensor\":\"x\""));
	free(self->out);
	/* both JSON outputs parse */
	snprintf(path, sizeof(path), "%s/t.json", self->dir);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f json -o %s", self->tiled_prog,
			      self->tiled_prof, path));
	snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys; d = json.load(open(sys.argv[1]));"
		 " sys.exit(len(d[\"events\"]) != d[\"summary\"][\"event_count\"])' %s", path);
	EXPECT_EQ(0, system(cmd));
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f summary-json -o %s "
			      "--force-overwrite", self->naive_prog, self->naive_prof, path));
	snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' %s",
		 path);
	EXPECT_EQ(0, system(cmd));
	free(self->out);
	snprintf(path, sizeof(path), "%s/t.pftrace", self->dir);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f perfetto --output-file %s",
			      self->naive_prog, self->naive_prof, path));
	snprintf(cmd, sizeof(cmd), "protoc -Itests/perfetto --decode=perfetto.protos.Trace "
		 "tests/perfetto/trace.proto < %s > /dev/null", path);
	EXPECT_EQ(0, system(cmd));
}

TEST_F(view, lost_records_are_reported)
{
	char path[160];
	void *img;
	size_t size;

	ASSERT_EQ(0, build(0, &img, &size));
	snprintf(path, sizeof(path), "%s/lost.vntf", self->dir);
	ASSERT_EQ(0, capture(img, size, path, 1, 0));
	free(img);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s", self->naive_prog, path));
	/* max(5 announced, 7 dropped) + 2 overwritten */
	EXPECT_NE(NULL, strstr(self->out, "WARNING: 9 records lost in capture"));
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f summary-json", self->naive_prog,
			      path));
	EXPECT_NE(NULL, strstr(self->out, "\"lost_records\":9,"));
}

TEST_F(view, program_and_profile_must_belong_together)
{
	EXPECT_EQ(1, profiler(&self->out, "view -n %s -s %s", self->tiled_prog,
			      self->naive_prof));
	EXPECT_NE(NULL, strstr(self->out, "do not belong together"));
	EXPECT_NE(NULL, strstr(self->out, "sha256"));
}

TEST_F(view, truncated_profile)
{
	char path[160];
	struct stat st;
	void *buf;
	FILE *f;

	ASSERT_EQ(0, stat(self->naive_prof, &st));
	buf = malloc((size_t)st.st_size);
	f = fopen(self->naive_prof, "rb");
	ASSERT_EQ(1, fread(buf, (size_t)st.st_size, 1, f));
	fclose(f);
	snprintf(path, sizeof(path), "%s/cut.vntf", self->dir);
	/* cut in the middle of the records, and just before the end section */
	ASSERT_EQ(0, write_file(path, buf, (size_t)st.st_size / 2));
	EXPECT_EQ(1, profiler(&self->out, "view -n %s -s %s", self->naive_prog, path));
	EXPECT_NE(NULL, strstr(self->out, path));
	free(self->out);
	ASSERT_EQ(0, write_file(path, buf, (size_t)st.st_size - 8));
	EXPECT_EQ(1, profiler(&self->out, "view -n %s -s %s", self->naive_prog, path));
	EXPECT_NE(NULL, strstr(self->out, path));
	free(self->out);
	/* an unknown major version */
	((struct vntf_file_header *)buf)->version_major = 99;
	ASSERT_EQ(0, write_file(path, buf, (size_t)st.st_size));
	EXPECT_EQ(1, profiler(&self->out, "view -n %s -s %s", self->naive_prog, path));
	EXPECT_NE(NULL, strstr(self->out, "99"));
	self->out[0] = 0;
	free(buf);
}

TEST_F(view, bad_program_and_usage)
{
	char path[160];

	snprintf(path, sizeof(path), "%s/garbage.vnef", self->dir);
	ASSERT_EQ(0, write_file(path, "not a program at all", 20));
	EXPECT_EQ(1, profiler(&self->out, "view -n %s -s %s", path, self->naive_prof));
	EXPECT_NE(NULL, strstr(self->out, "invalid program"));
	free(self->out);
	EXPECT_EQ(1, profiler(&self->out, "view -n %s/none.vnef -s %s", self->dir,
			      self->naive_prof));
	EXPECT_NE(NULL, strstr(self->out, "No such file"));
	free(self->out);
	EXPECT_EQ(1, profiler(&self->out, "view -n %s -s %s/none.vntf", self->naive_prog,
			      self->dir));
	free(self->out);
	EXPECT_EQ(2, profiler(&self->out, "view -n %s", self->naive_prog));
	free(self->out);
	EXPECT_EQ(2, profiler(&self->out, "view -n %s -s %s -f xml", self->naive_prog,
			      self->naive_prof));
	free(self->out);
	EXPECT_EQ(2, profiler(&self->out, "frobnicate"));
	free(self->out);
	EXPECT_EQ(0, profiler(&self->out, "--help"));
	EXPECT_NE(NULL, strstr(self->out, "--output-format"));
}

/* Text with the summary's line wrapping undone: each newline and its indent one space. */
static char *unwrap(const char *in)
{
	char *out = malloc(strlen(in) + 1), *q = out;

	while (*in) {
		if (*in == '\n' && in[1] == ' ') {
			while (in[1] == ' ')
				in++;
			*q++ = ' ';
			in++;
			continue;
		}
		*q++ = *in++;
	}
	*q = 0;
	return out;
}

/* An output of a synthetic view into a string. */
static char *synth_out(struct synth *s, int (*fn)(FILE *, const struct vnp_view *))
{
	struct vnp_view v = { .tl = &s->tl, .m = &s->m, .a = &s->a, .top = 5 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (fn(f, &v)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

/* Execution exec on core 0: EXEC_START at 0, an instruction, EXEC_END (status) at 1 us. */
static void synth_run_exec(struct synth *s, uint32_t exec, unsigned int status,
			   unsigned int reason)
{
	size_t first = s->n, i;

	synth_exec(s, 0, 1000);
	synth_insn(s, 1, VNEF_OP_COPY, 100, 200, 0);
	s->r[first + 1].opcode = (uint16_t)status;
	s->r[first + 1].elements = reason;
	for (i = first; i < s->n; i++)
		s->r[i].exec_seq = exec;
}

/*
 * One fault per execution, of each kind: kept with every field, on its execution's place
 * in the timeline (executions are laid out back to back, 1 us each), in time order, and
 * named in the text summary and the JSON.
 */
TEST(device_faults_are_kept_and_named)
{
	static struct vnef_instr vec[8];
	struct synth *s = synth_new();
	const struct vnp_fault *f;
	char *out, *txt;

	/* the program's VectorE entry 7, so the fault names its opcode */
	vec[7].opcode = VNEF_OP_TENSOR_TENSOR;
	s->prog.instr[VNEURON_ENGINE_VECTOR] = vec;
	s->prog.ninstr[VNEURON_ENGINE_VECTOR] = 8;
	synth_debug(s, VNEF_STREAM_DMA(3), 2, "k.c", 42, "mlp/fc1");
	synth_run_exec(s, 0, VNEURON_EXEC_OK, 0);
	synth_run_exec(s, 1, VNEURON_EXEC_FAULT, VNEURON_REASON_FAULT_SBUF);
	synth_fault(s, 1, VNEF_STREAM_DMA(3), 2, 500, VNEURON_REASON_FAULT_SBUF, VNEF_MEM_SBUF,
		    131, 0, 64);
	synth_run_exec(s, 2, VNEURON_EXEC_FAULT, VNEURON_REASON_FAULT_PSUM);
	synth_fault(s, 2, VNEURON_ENGINE_VECTOR, 7, 300, VNEURON_REASON_FAULT_PSUM,
		    VNEF_MEM_PSUM, 5, 2048, 0);
	synth_run_exec(s, 3, VNEURON_EXEC_FAULT, VNEURON_REASON_FAULT_SEM);
	synth_fault(s, 3, VNEURON_ENGINE_GPSIMD, 1, 250, VNEURON_REASON_FAULT_SEM, 0, 5, 3, 0);
	synth_run_exec(s, 4, VNEURON_EXEC_FAULT, VNEURON_REASON_FAULT_HBM);
	synth_fault(s, 4, VNEF_STREAM_DMA(0), 0, 100, VNEURON_REASON_FAULT_HBM, VNEF_MEM_HBM,
		    1, 1000, 24);
	synth_run_exec(s, 5, VNEURON_EXEC_FAULT, VNEURON_REASON_FAULT_STATE);
	synth_fault(s, 5, VNEURON_ENGINE_TENSOR, 0, 0, VNEURON_REASON_FAULT_STATE, 0, 0, 0, 0);
	ASSERT_EQ(0, synth_run(s, 8));
	EXPECT_EQ(0, s->tl.malformed);
	ASSERT_EQ(5, s->tl.nfaults);
	EXPECT_EQ(1, s->tl.exec_status[VNEURON_EXEC_OK]);
	EXPECT_EQ(5, s->tl.exec_status[VNEURON_EXEC_FAULT]);
	f = &s->tl.faults[0];
	EXPECT_EQ(0, f->core);
	EXPECT_EQ(1, f->exec);
	EXPECT_EQ(VNEF_STREAM_DMA(3), f->stream);
	EXPECT_EQ(2, f->pc);
	EXPECT_EQ(VNEURON_REASON_FAULT_SBUF, f->reason);
	EXPECT_EQ(VNEF_MEM_SBUF, f->mem);
	EXPECT_EQ(131, f->index);
	EXPECT_EQ(0, f->offset);
	EXPECT_EQ(64, f->len);
	EXPECT_EQ(500 * NS, f->model_ps);
	EXPECT_EQ(1500 * NS, f->time);		/* execution 1 starts after execution 0 */
	EXPECT_EQ(2300 * NS, s->tl.faults[1].time);
	EXPECT_EQ(VNEURON_ENGINE_VECTOR, s->tl.faults[1].stream);
	EXPECT_EQ(3250 * NS, s->tl.faults[2].time);
	EXPECT_EQ(4100 * NS, s->tl.faults[3].time);
	EXPECT_EQ(5000 * NS, s->tl.faults[4].time);
	/* faults are no work: the events' figures do not count them */
	EXPECT_EQ(6, s->m.event_count);

	out = synth_out(s, vnp_summary_text);
	ASSERT_NE(NULL, out);
	txt = unwrap(out);
	if (getenv("VNP_DUMP"))
		fputs(out, stderr);
	EXPECT_NE(NULL, strstr(txt, "executions ended: 1 OK, 5 FAULT"));
	EXPECT_NE(NULL, strstr(txt, "Device faults (5)"));
	EXPECT_NE(NULL, strstr(txt, "1. exec 1, DMA q3 desc 2, k.c:42 in mlp/fc1, at 1.500 us: "
			       "DMA chunk outside SBUF: partition 131, bytes 0..63"));
	EXPECT_NE(NULL, strstr(txt, "2. exec 2, VectorE pc 7 (TENSOR_TENSOR), at 2.300 us: operand "
			       "outside PSUM "
			       "partition 5 (offset 2048)"));
	EXPECT_NE(NULL, strstr(txt, "3. exec 3, GpSimdE pc 1, at 3.250 us: semaphore 5 value 3 "
			       "beyond its table"));
	EXPECT_NE(NULL, strstr(txt, "4. exec 4, DMA q0 desc 0, at 4.100 us: DMA chunk outside "
			       "HBM tensor 1 (y): bytes 1000..1023"));
	EXPECT_NE(NULL, strstr(txt, "5. exec 5, TensorE pc 0, at 5.000 us: operands the engine "
			       "cannot hold"));
	/* every line of the section fits 80 columns */
	{
		const char *p = strstr(out, "Device faults"), *nl;

		ASSERT_NE(NULL, p);
		for (; (nl = strchr(p, '\n')) && nl != p; p = nl + 1)
			EXPECT_GE(80, nl - p);
	}
	free(txt);
	free(out);

	out = synth_out(s, vnp_summary_json);
	ASSERT_NE(NULL, out);
	EXPECT_NE(NULL, strstr(out, "\"exec_status\":{\"OK\":1,\"FAULT\":5}"));
	EXPECT_NE(NULL, strstr(out, "\"faults\":[\n {\"core\":0,\"exec\":1,\"engine\":\"DMA q3\","
			       "\"stream\":7,\"queue\":3,\"pc\":2,\"opcode\":\"DMA\","
			       "\"reason\":\"sbuf\",\"reason_code\":7,\"memory\":\"SBUF\","
			       "\"index\":131,\"offset\":0,\"length\":64,\"time_ps\":1500000,"
			       "\"exec_time_ps\":500000,\"file\":\"k.c\",\"line\":42,"
			       "\"scope\":\"mlp/fc1\",\"what\":\"DMA chunk outside SBUF: partition "
			       "131, bytes 0..63\"}"));
	EXPECT_NE(NULL, strstr(out, "\"reason\":\"semaphore\",\"reason_code\":10,"
			       "\"memory\":\"none\",\"index\":5,\"offset\":3,"));
	EXPECT_NE(NULL, strstr(out, "\"tensor_name\":\"y\""));
	EXPECT_NE(NULL, strstr(out, "\"engine\":\"VectorE\",\"stream\":1,\"pc\":7,"
			       "\"opcode\":\"TENSOR_TENSOR\",\"reason\":\"psum\","));
	free(out);
	synth_free(s);
}

/* ERROR records no device writes: counted as malformed, kept nowhere. */
TEST(impossible_fault_records_are_malformed)
{
	struct synth *s = synth_new();
	char *out;

	synth_run_exec(s, 0, VNEURON_EXEC_FAULT, VNEURON_REASON_FAULT_SBUF);
	/* reasons that are no fault */
	synth_fault(s, 0, 1, 0, 100, VNEURON_REASON_DEADLOCK, VNEF_MEM_SBUF, 0, 0, 4);
	synth_fault(s, 0, 1, 0, 100, VNEURON_REASON_FAULT_STATE + 1, VNEF_MEM_SBUF, 0, 0, 4);
	synth_fault(s, 0, 1, 0, 100, 0, 0, 0, 0, 0);
	/* streams out of range: the core itself, a DMA queue past the last */
	synth_fault(s, 0, 1, 0, 100, VNEURON_REASON_FAULT_SBUF, VNEF_MEM_SBUF, 0, 0, 4)->engine =
		VNEURON_TRACE_ENGINE_CORE;
	synth_fault(s, 0, VNEF_STREAM_DMA(0), 0, 100, VNEURON_REASON_FAULT_SBUF, VNEF_MEM_SBUF,
		    0, 0, 4)->dma_queue = VNEF_DMA_QUEUES;
	/* an unknown memory, an end before the start */
	synth_fault(s, 0, 1, 0, 100, VNEURON_REASON_FAULT_SBUF, VNEF_MEM_HBM + 1, 0, 0, 4);
	synth_fault(s, 0, 1, 0, 100, VNEURON_REASON_FAULT_SBUF, VNEF_MEM_SBUF, 0, 0, 4)
		->model_end_ps = 0;
	/* and one good one */
	synth_fault(s, 0, 2, 3, 100, VNEURON_REASON_FAULT_SBUF, VNEF_MEM_SBUF, 9, 16, 4);
	ASSERT_EQ(0, synth_run(s, 0));
	EXPECT_EQ(7, s->tl.malformed);
	ASSERT_EQ(1, s->tl.nfaults);
	EXPECT_EQ(VNEURON_ENGINE_SCALAR, s->tl.faults[0].stream);
	EXPECT_EQ(9, s->tl.faults[0].index);
	out = synth_out(s, vnp_summary_text);
	ASSERT_NE(NULL, out);
	EXPECT_NE(NULL, strstr(out, "7 malformed records skipped"));
	EXPECT_NE(NULL, strstr(out, "Device faults (1)"));
	free(out);
	out = synth_out(s, vnp_summary_json);
	ASSERT_NE(NULL, out);
	EXPECT_NE(NULL, strstr(out, "\"malformed_records\":7,"));
	free(out);
	synth_free(s);
}

/* The command on a real kernel's profile with the store faulting: every output shows it. */
TEST_F(view, device_fault_in_every_output)
{
	char path[160], out[160], cmd[800], want[256];
	void *img;
	size_t size;

	ASSERT_EQ(0, build(0, &img, &size));
	snprintf(path, sizeof(path), "%s/fault.vntf", self->dir);
	ASSERT_EQ(0, capture(img, size, path, 0, 1));
	free(img);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s", self->naive_prog, path));
	{
		char *txt = unwrap(self->out);

		if (getenv("VNP_DUMP"))
			fputs(self->out, stderr);
		EXPECT_NE(NULL, strstr(txt, "executions ended: 1 FAULT"));
		EXPECT_NE(NULL, strstr(txt, "Device faults (1)"));
		EXPECT_NE(NULL, strstr(txt, "1. exec 0, DMA q8 desc 0, "));
		/* the builder's scope of the store: exp/store, then the operation */
		snprintf(want, sizeof(want), "test_view.c:%d in exp/store/", store_line);
		EXPECT_NE(NULL, strstr(txt, want));
		EXPECT_NE(NULL, strstr(txt, ": DMA chunk outside SBUF: partition 131, bytes 0..63"));
		EXPECT_EQ(NULL, strstr(txt, "malformed"));
		free(txt);
	}
	free(self->out);
	/* summary-json and json: the fields, checked by a JSON parser */
	snprintf(out, sizeof(out), "%s/fault.json", self->dir);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f json -o %s", self->naive_prog, path,
			      out));
	snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys; s = json.load(open(sys.argv[1]))"
		 "[\"summary\"]; f = s[\"faults\"]; g = f[0]; sys.exit(not (len(f) == 1 and "
		 "s[\"exec_status\"] == {\"FAULT\": 1} and s[\"malformed_records\"] == 0 and "
		 "g[\"engine\"] == \"DMA q8\" and g[\"queue\"] == 8 and g[\"pc\"] == 0 and "
		 "g[\"exec\"] == 0 and g[\"reason\"] == \"sbuf\" and g[\"memory\"] == \"SBUF\" and "
		 "g[\"index\"] == 131 and g[\"offset\"] == 0 and g[\"length\"] == 64 and "
		 "g[\"line\"] == %d and g[\"file\"].endswith(\"test_view.c\") and "
		 "g[\"scope\"].startswith(\"exp/store/\") and \"partition 131\" in g[\"what\"]))' %s",
		 store_line, out);
	EXPECT_EQ(0, system(cmd));
	free(self->out);
	/* perfetto: the instant on DMA q8's track */
	snprintf(out, sizeof(out), "%s/fault.pftrace", self->dir);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f perfetto -o %s", self->naive_prog,
			      path, out));
	snprintf(cmd, sizeof(cmd), "protoc -Itests/perfetto --decode=perfetto.protos.Trace "
		 "tests/perfetto/trace.proto < %s | grep -c 'name: \"device fault: DMA chunk "
		 "outside SBUF: partition 131, bytes 0..63\"' | grep -qx 1", out);
	EXPECT_EQ(0, system(cmd));
}

/* 0 when the two files have the same bytes. */
static int same_bytes(const char *a, const char *b)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "cmp -s %s %s", a, b);
	return system(cmd);
}

/* How many files in dir (temporary files left behind would show). */
static int files_in(const char *dir)
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

/* Issue 12: view -o never writes over one of its inputs, whatever the name. */
TEST_F(view, output_never_overwrites_an_input)
{
	char keep[160], alias[160];
	int n;

	snprintf(keep, sizeof(keep), "%s/keep.vntf", self->dir);
	snprintf(alias, sizeof(alias), "%s/alias.vntf", self->dir);
	ASSERT_EQ(0, link(self->naive_prof, keep));
	ASSERT_EQ(0, symlink(self->naive_prof, alias));
	n = files_in(self->dir);
	EXPECT_EQ(2, profiler(&self->out, "view -n %s -s %s -o %s", self->naive_prog,
			      self->naive_prof, self->naive_prof));
	EXPECT_NE(NULL, strstr(self->out, "would overwrite the input"));
	free(self->out);
	/* the same file under another name (a hard link, a symlink), even when forced */
	EXPECT_EQ(2, profiler(&self->out, "view -n %s -s %s -o %s --force-overwrite",
			      self->naive_prog, self->naive_prof, alias));
	free(self->out);
	EXPECT_EQ(2, profiler(&self->out, "view -n %s -s %s -f json -o %s --force-overwrite",
			      self->naive_prog, alias, keep));
	free(self->out);
	EXPECT_EQ(2, profiler(&self->out, "view -n %s -s %s -o %s --force-overwrite",
			      self->naive_prog, self->naive_prof, self->naive_prog));
	free(self->out);
	self->out = NULL;
	/* the profile and the program intact, no temporary file left */
	EXPECT_EQ(0, same_bytes(self->naive_prof, keep));
	EXPECT_EQ(0, profiler(&self->out, "view -n %s -s %s -o /dev/null", self->naive_prog,
			      self->naive_prof));
	EXPECT_EQ(n, files_in(self->dir));
}

/* Issue 12: an existing output only with --force-overwrite; a failed run leaves it. */
TEST_F(view, existing_output_needs_force_overwrite)
{
	char path[160], bad[160];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "%s/old.txt", self->dir);
	snprintf(bad, sizeof(bad), "%s/bad.vntf", self->dir);
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	fputs("the user's file\n", f);
	fclose(f);
	f = fopen(bad, "w");
	ASSERT_NE(NULL, f);
	fputs("not a profile\n", f);
	fclose(f);
	n = files_in(self->dir);
	EXPECT_EQ(2, profiler(&self->out, "view -n %s -s %s -o %s", self->naive_prog,
			      self->naive_prof, path));
	EXPECT_NE(NULL, strstr(self->out, "exists; use --force-overwrite"));
	free(self->out);
	/* a bad input with --force-overwrite: refused, the old output kept */
	EXPECT_EQ(1, profiler(&self->out, "view -n %s -s %s -o %s --force-overwrite",
			      self->naive_prog, bad, path));
	free(self->out);
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	{
		char line[64] = "";

		EXPECT_NE(NULL, fgets(line, sizeof(line), f));
		EXPECT_STREQ("the user's file\n", line);
	}
	fclose(f);
	/* replaced with it */
	EXPECT_EQ(0, profiler(&self->out, "view -n %s -s %s -o %s --force-overwrite",
			      self->naive_prog, self->naive_prof, path));
	free(self->out);
	self->out = NULL;
	{
		char *txt = NULL;
		size_t len = 0;

		ASSERT_EQ(0, nd_read_file(path, 1 << 20, (void **)&txt, &len));
		txt = realloc(txt, len + 1);
		txt[len] = 0;
		EXPECT_NE(NULL, strstr(txt, "vneuron-profile: exp_naive"));
		free(txt);
	}
	EXPECT_EQ(n, files_in(self->dir));
	/* a directory that does not exist: a failed write, status 3 */
	EXPECT_EQ(3, profiler(&self->out, "view -n %s -s %s -o %s/no/such/x.txt",
			      self->naive_prog, self->naive_prof, self->dir));
}

/* 1 if the file at path holds s (binary files too), 0 if not, -1 if unreadable. */
static int file_has(const char *path, const char *s)
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

/* Issue 12: a profile cut short is refused, and read by --salvage with a report. */
TEST_F(view, truncated_profile_salvaged)
{
	char cut[160], out[200];
	struct stat st;
	void *img;
	size_t size, at;
	FILE *f;

	ASSERT_EQ(0, nd_read_file(self->tiled_prof, 1 << 26, &img, &size));
	snprintf(cut, sizeof(cut), "%s/cut.vntf", self->dir);
	/* as a crash leaves it: the end section and half of the last section gone */
	f = fopen(cut, "wb");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(size - 100, fwrite(img, 1, size - 100, f));
	fclose(f);
	free(img);
	EXPECT_EQ(1, profiler(&self->out, "view -n %s -s %s", self->tiled_prog, cut));
	EXPECT_NE(NULL, strstr(self->out, "truncated file"));
	EXPECT_NE(NULL, strstr(self->out, "--salvage reads every complete record"));
	free(self->out);
	EXPECT_EQ(0, profiler(&self->out, "view -n %s -s %s --salvage", self->tiled_prog, cut));
	EXPECT_NE(NULL, strstr(self->out, "salvaged "));
	EXPECT_NE(NULL, strstr(self->out, "could not be read (truncated file"));
	EXPECT_NE(NULL, strstr(self->out, "vneuron-profile: exp_tiled"));
	/* partial data said loudly (issue 29): text, JSON, Perfetto, HTML */
	EXPECT_NE(NULL, strstr(self->out, "PARTIAL: 1 file cut short, salvaged"));
	free(self->out);
	EXPECT_EQ(0, profiler(&self->out, "view -n %s -s %s --salvage -f summary-json",
			      self->tiled_prog, cut));
	EXPECT_NE(NULL, strstr(self->out, "\"partial\":true,\"salvaged_files\":1"));
	free(self->out);
	snprintf(out, sizeof(out), "%s/cut.pftrace", self->dir);
	EXPECT_EQ(0, profiler(&self->out, "view -n %s -s %s --salvage -f perfetto -o %s",
			      self->tiled_prog, cut, out));
	EXPECT_EQ(1, file_has(out, "(PARTIAL: salvaged profile)"));
	free(self->out);
	snprintf(out, sizeof(out), "%s/cut.html", self->dir);
	if (!profiler(&self->out, "view -n %s -s %s --salvage -f html -o %s", self->tiled_prog,
		      cut, out))
		EXPECT_EQ(1, file_has(out, "\"partial\":true"));
	free(self->out);
	/* cut before the first event record: a partial profile, but no class from nothing */
	for (at = 64; at < size - 100; at += 16) {
		ASSERT_EQ(0, truncate(cut, (off_t)at));
		self->out = NULL;
		if (profiler(&self->out, "view -n %s -s %s --salvage -f summary-json",
			     self->tiled_prog, cut) == 0 &&
		    strstr(self->out, "\"event_count\":0,"))
			break;
		free(self->out);
		self->out = NULL;
		ASSERT_EQ(0, nd_read_file(self->tiled_prof, 1 << 26, &img, &size));
		f = fopen(cut, "wb");
		ASSERT_NE(NULL, f);
		ASSERT_EQ(size - 100, fwrite(img, 1, size - 100, f));
		fclose(f);
		free(img);
	}
	ASSERT_NE(NULL, self->out);
	EXPECT_NE(NULL, strstr(self->out, "\"partial\":true"));
	EXPECT_NE(NULL, strstr(self->out, "\"class\":\"idle\""));
	EXPECT_NE(NULL, strstr(self->out, "\"class_label\":\"none (partial profile: no events "
			       "read)\""));
	EXPECT_EQ(NULL, strstr(self->out, "latency-bound"));
	free(self->out);
	/* cut between sections: no end section; the whole profile still read */
	ASSERT_EQ(0, stat(self->tiled_prof, &st));
	ASSERT_EQ(0, truncate(cut, 0));
	ASSERT_EQ(0, nd_read_file(self->tiled_prof, 1 << 26, &img, &size));
	f = fopen(cut, "wb");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(size - 40, fwrite(img, 1, size - 40, f));	/* the end section: 16 + 24 */
	fclose(f);
	free(img);
	EXPECT_EQ(1, profiler(&self->out, "view -n %s -s %s", self->tiled_prog, cut));
	EXPECT_NE(NULL, strstr(self->out, "no end section"));
	free(self->out);
	EXPECT_EQ(0, profiler(&self->out, "view -n %s -s %s --salvage -f summary-json",
			      self->tiled_prog, cut));
	EXPECT_NE(NULL, strstr(self->out, "the 0 bytes from offset"));
	EXPECT_NE(NULL, strstr(self->out, "\"total_time_ps\":"));
	free(self->out);
	/* cut inside the header: nothing to salvage */
	ASSERT_EQ(0, truncate(cut, 20));
	EXPECT_EQ(1, profiler(&self->out, "view -n %s -s %s --salvage", self->tiled_prog, cut));
}

/* Issue 12, smaller things: a missing profile named once; -n and -s swapped said. */
TEST_F(view, messages_name_the_mistake)
{
	char none[160], twice[400];

	/* issue 29: a mistyped long option gets the one it resembles */
	EXPECT_EQ(2, profiler(&self->out, "view --fromat text"));
	EXPECT_NE(NULL, strstr(self->out, "did you mean '--output-format'?")) TH_LOG("%s", self->out);
	free(self->out);
	EXPECT_EQ(2, profiler(&self->out, "view --salvge"));
	EXPECT_NE(NULL, strstr(self->out, "did you mean '--salvage'?")) TH_LOG("%s", self->out);
	free(self->out);
	EXPECT_EQ(2, profiler(&self->out, "view --zzzzzz"));
	EXPECT_EQ(NULL, strstr(self->out, "did you mean")) TH_LOG("%s", self->out);
	free(self->out);
	EXPECT_EQ(2, profiler(&self->out, "diff --fial-on 3 a b"));
	EXPECT_NE(NULL, strstr(self->out, "did you mean '--fail-on'?")) TH_LOG("%s", self->out);
	free(self->out);

	snprintf(none, sizeof(none), "%s/nothere.vntf", self->dir);
	EXPECT_EQ(1, profiler(&self->out, "view -n %s -s %s", self->naive_prog, none));
	snprintf(twice, sizeof(twice), "%s: %s", none, none);
	EXPECT_NE(NULL, strstr(self->out, "nothere.vntf: No such file"));
	EXPECT_EQ(NULL, strstr(self->out, twice));
	free(self->out);
	EXPECT_EQ(1, profiler(&self->out, "view -n %s -s %s", self->naive_prof,
			      self->naive_prog));
	EXPECT_NE(NULL, strstr(self->out, "is a profile (.vntf): -n takes the program"));
	free(self->out);
	EXPECT_EQ(1, profiler(&self->out, "view -n %s -s %s", self->naive_prog,
			      self->naive_prog));
	EXPECT_NE(NULL, strstr(self->out, "bad magic"));
	EXPECT_NE(NULL, strstr(self->out, "is a program (.vnef): -s takes the profile"));
}

/*
 * Issue 12, "Profiles that say what ran": an application that ran two programs is viewed
 * with both, each execution with its own program's figures (as its own profile gives);
 * a missing one is refused with the list; a directory of programs does.
 */
TEST_F(view, application_of_two_programs)
{
	static const unsigned int prog[3] = { 0, 1, 0 };
	char app[160], a[160], n[160], t[160], dir[160], path[200], cmd[1200];
	struct two_programs tp;

	ASSERT_EQ(0, two_programs(&tp));
	snprintf(app, sizeof(app), "%s/app.vntf", self->dir);
	ASSERT_EQ(0, capture_app(app, prog, 3, 1, 99));

	ASSERT_EQ(0, profiler(&self->out, "view -n %s -n %s -s %s", self->naive_prog,
			      self->tiled_prog, app));
	EXPECT_NE(NULL, strstr(self->out, "=== Program 1 of 2: \"exp_naive\""));
	EXPECT_NE(NULL, strstr(self->out, "=== Program 2 of 2: \"exp_tiled\""));
	EXPECT_NE(NULL, strstr(self->out, "naive.vnef), 2 executions ==="));
	EXPECT_NE(NULL, strstr(self->out, "tiled.vnef), 1 execution ==="));
	EXPECT_EQ(NULL, strstr(self->out, "records no program identity"));
	free(self->out);

	/* each program's figures: twice the naive run, once the tiled one */
	snprintf(a, sizeof(a), "%s/app.json", self->dir);
	snprintf(n, sizeof(n), "%s/naive.json", self->dir);
	snprintf(t, sizeof(t), "%s/tiled.json", self->dir);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -n %s -s %s -f summary-json -o %s",
			      self->tiled_prog, self->naive_prog, app, a));
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f summary-json -o %s",
			      self->naive_prog, self->naive_prof, n));
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f summary-json -o %s",
			      self->tiled_prog, self->tiled_prof, t));
	snprintf(cmd, sizeof(cmd), "python3 -c '\n"
		 "import json, sys\n"
		 "a, n, t = (json.load(open(f)) for f in sys.argv[1:])\n"
		 "p = a[\"programs\"]\n"
		 "ok = len(p) == 2 and p[0][\"program\"] == \"exp_naive\" and "
		 "p[1][\"program\"] == \"exp_tiled\"\n"
		 "ok = ok and p[0][\"executions\"] == 2 and p[1][\"executions\"] == 1\n"
		 "ok = ok and p[0][\"event_count\"] == 2 * n[\"event_count\"]\n"
		 "ok = ok and p[1][\"event_count\"] == t[\"event_count\"]\n"
		 "ok = ok and p[1][\"total_time_ps\"] == t[\"total_time_ps\"]\n"
		 "ok = ok and p[0][\"hardware_flops\"] == 2 * n[\"hardware_flops\"]\n"
		 "ok = ok and len(p[1][\"scopes\"]) > 1 and p[1][\"scopes\"] == t[\"scopes\"]\n"
		 "sys.exit(not ok)' %s %s %s", a, n, t);
	EXPECT_EQ(0, system(cmd));
	free(self->out);

	/* one missing: refused, the profile's programs listed */
	EXPECT_EQ(1, profiler(&self->out, "view -n %s -s %s", self->naive_prog, app));
	EXPECT_NE(NULL, strstr(self->out, "do not belong together: it ran 2 programs, 1 of "
			       "them not given"));
	EXPECT_NE(NULL, strstr(self->out, "\"exp_tiled\" ("));
	EXPECT_NE(NULL, strstr(self->out, "bytes, sha256 "));
	EXPECT_NE(NULL, strstr(self->out, "): missing"));
	snprintf(path, sizeof(path), "): %s", self->naive_prog);
	EXPECT_NE(NULL, strstr(self->out, path));
	free(self->out);

	/* a directory of programs (and something else) */
	snprintf(dir, sizeof(dir), "%s/progs", self->dir);
	ASSERT_EQ(0, mkdir(dir, 0700));
	snprintf(path, sizeof(path), "%s/b.vnef", dir);
	ASSERT_EQ(0, write_file(path, tp.img[0], tp.size[0]));
	snprintf(path, sizeof(path), "%s/a.vnef", dir);
	ASSERT_EQ(0, write_file(path, tp.img[1], tp.size[1]));
	snprintf(path, sizeof(path), "%s/notes.txt", dir);
	ASSERT_EQ(0, write_file(path, "notes", 5));
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s", dir, app));
	EXPECT_NE(NULL, strstr(self->out, "=== Program 1 of 2: \"exp_naive\" (" ));
	EXPECT_NE(NULL, strstr(self->out, "progs/b.vnef), 2 executions ==="));
	EXPECT_NE(NULL, strstr(self->out, "progs/a.vnef), 1 execution ==="));
	free(self->out);

	/* the one-program outputs say they cannot show two */
	snprintf(path, sizeof(path), "%s/app.pftrace", self->dir);
	EXPECT_EQ(2, profiler(&self->out, "view -n %s -s %s -f perfetto -o %s", dir, app, path));
	EXPECT_NE(NULL, strstr(self->out, "ran 2 programs"));
	EXPECT_NE(0, access(path, F_OK));
	free(self->out);
	/* --only chooses one: by name, or by a prefix of its hash */
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f perfetto -o %s --only exp_tiled",
			      dir, app, path));
	EXPECT_EQ(0, access(path, F_OK));
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s --only exp_naive", dir, app));
	EXPECT_NE(NULL, strstr(self->out, "vneuron-profile: exp_naive\n"));
	EXPECT_NE(NULL, strstr(self->out, ", 2 execs\n"));
	EXPECT_EQ(NULL, strstr(self->out, "=== Program"));
	free(self->out);
	{
		struct vntf_program id;
		char h[16];
		int i;

		identity(tp.img[1], tp.size[1], "", &id);
		for (i = 0; i < 4; i++)
			sprintf(h + 2 * i, "%02x", id.hash[i]);
		ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s --only %s", dir, app, h));
		EXPECT_NE(NULL, strstr(self->out, "vneuron-profile: exp_tiled\n"));
		free(self->out);
	}
	EXPECT_EQ(2, profiler(&self->out, "view -n %s -s %s --only nothing", dir, app));
	EXPECT_NE(NULL, strstr(self->out, "--only nothing: none of the programs shown"));
	free(self->out);

	/* diff compares one program's profiles: it says what this one ran */
	EXPECT_EQ(1, profiler(&self->out, "diff -n %s %s %s", self->naive_prog, app, app));
	EXPECT_NE(NULL, strstr(self->out, "it ran 2 programs, this command takes one:"));
	EXPECT_NE(NULL, strstr(self->out, "\"exp_tiled\" ("));
	two_programs_free(&tp);
}

/* A profile of one program viewed with another: refused, naming the one it ran. */
TEST_F(view, application_profile_with_the_wrong_program)
{
	static const unsigned int prog[2] = { 0, 0 };
	char app[160];

	snprintf(app, sizeof(app), "%s/app1.vntf", self->dir);
	ASSERT_EQ(0, capture_app(app, prog, 2, 1, 99));
	EXPECT_EQ(1, profiler(&self->out, "view -n %s -s %s", self->tiled_prog, app));
	EXPECT_NE(NULL, strstr(self->out, "it ran 1 program, 1 of them not given"));
	EXPECT_NE(NULL, strstr(self->out, "\"exp_naive\" ("));
	EXPECT_NE(NULL, strstr(self->out, "): missing"));
	free(self->out);
	/* the right one, and an extra one named on the command line: said, ignored */
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -n %s -s %s", self->naive_prog,
			      self->tiled_prog, app));
	EXPECT_NE(NULL, strstr(self->out, "vneuron-profile: exp_naive\n"));
	EXPECT_NE(NULL, strstr(self->out, "tiled.vnef is not a program"));
	EXPECT_EQ(NULL, strstr(self->out, "=== Program"));
	free(self->out);
	/* diff: the program it ran, and another */
	EXPECT_EQ(0, profiler(&self->out, "diff -n %s %s %s", self->naive_prog, app, app));
	free(self->out);
	EXPECT_EQ(1, profiler(&self->out, "diff -n %s %s %s", self->tiled_prog, app, app));
	EXPECT_NE(NULL, strstr(self->out, "it ran 1 program, this command takes one:"));
	EXPECT_NE(NULL, strstr(self->out, "): missing"));
}

/* A profile from before section 9 (no identity): viewed as before, with one program. */
TEST_F(view, application_profile_without_identity)
{
	static const unsigned int prog[2] = { 0, 0 };
	char app[160];

	snprintf(app, sizeof(app), "%s/old.vntf", self->dir);
	ASSERT_EQ(0, capture_app(app, prog, 2, 0, 99));
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s", self->naive_prog, app));
	EXPECT_NE(NULL, strstr(self->out, "records no program identity; assuming"));
	EXPECT_NE(NULL, strstr(self->out, "2 execs"));
	free(self->out);
	EXPECT_EQ(2, profiler(&self->out, "view -n %s -n %s -s %s", self->naive_prog,
			      self->tiled_prog, app));
	EXPECT_NE(NULL, strstr(self->out, "give the one program it ran (one -n), not 2"));
}

/* Per-execution statistics: a planted slow execution is marked, none otherwise. */
TEST_F(view, execution_statistics_and_outliers)
{
	static const unsigned int prog[5] = { 0, 0, 0, 0, 0 };
	char app[160];

	snprintf(app, sizeof(app), "%s/slow.vntf", self->dir);
	ASSERT_EQ(0, capture_app(app, prog, 5, 1, 3));
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s", self->naive_prog, app));
	EXPECT_NE(NULL, strstr(self->out, "\nExecutions (5): min"));
	EXPECT_NE(NULL, strstr(self->out, "\n  total "));
	EXPECT_NE(NULL, strstr(self->out, "OUTLIER worker 0 core 0 exec 3: total "));
	EXPECT_EQ(NULL, strstr(self->out, "exec 2: total"));
	if (getenv("VNP_DUMP"))
		fputs(self->out, stderr);
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f summary-json", self->naive_prog,
			      app));
	EXPECT_NE(NULL, strstr(self->out, "\"execution_stats\":{\"count\":5,"));
	EXPECT_NE(NULL, strstr(self->out, "\"outliers\":[{\"core\":0,\"worker\":\"worker 0 "
			       "core 0\",\"exec\":3,"));
	EXPECT_NE(NULL, strstr(self->out, "\"outlying\":[\"total\""));
	free(self->out);

	snprintf(app, sizeof(app), "%s/even.vntf", self->dir);
	ASSERT_EQ(0, capture_app(app, prog, 5, 1, 99));
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s", self->naive_prog, app));
	EXPECT_NE(NULL, strstr(self->out, "\nExecutions (5): min"));
	EXPECT_NE(NULL, strstr(self->out, "no outliers (beyond median +- max(3 x MAD, 10% of "
			       "median))"));
	EXPECT_EQ(NULL, strstr(self->out, "OUTLIER"));
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f summary-json", self->naive_prog,
			      app));
	EXPECT_NE(NULL, strstr(self->out, "\"outliers\":[]"));
}

/* The outlier rule itself: 3 x MAD, at least a tenth of the median, 3 executions. */
TEST(outlier_rule)
{
	struct vnp_spread s = { .min = 90, .median = 100, .max = 200, .mad = 0 };

	EXPECT_EQ(0, vnp_xs_outlier(&s, 5, 110));
	EXPECT_EQ(1, vnp_xs_outlier(&s, 5, 111));
	EXPECT_EQ(1, vnp_xs_outlier(&s, 5, 89));
	EXPECT_EQ(0, vnp_xs_outlier(&s, 2, 200));
	s.mad = 20;
	EXPECT_EQ(0, vnp_xs_outlier(&s, 5, 160));
	EXPECT_EQ(1, vnp_xs_outlier(&s, 5, 161));
	s.mad = UINT64_MAX;
	EXPECT_EQ(0, vnp_xs_outlier(&s, 5, UINT64_MAX));
}

/* Runs argv on a pseudo-terminal: its exit status, its output in out. */
static int on_tty(char *const argv[], char *out, size_t outlen)
{
	size_t len = 0;
	ssize_t n;
	pid_t pid;
	int fd, st;

	pid = forkpty(&fd, NULL, NULL, NULL);
	if (pid < 0)
		return -1;
	if (!pid) {
		execv(argv[0], argv);
		_exit(127);
	}
	for (;;) {
		n = read(fd, out + len, outlen - 1 - len);
		if (n <= 0)
			break;	/* EIO once the child has gone */
		len += (size_t)n;
		if (len == outlen - 1)
			break;
	}
	out[len] = 0;
	close(fd);
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Issue 12: perfetto and html are never written to a terminal. */
TEST_F(view, binary_output_not_to_a_terminal)
{
	char out[1 << 16];
	char *pf[] = { PROFILER, "view", "-n", self->naive_prog, "-s", self->naive_prof,
		       "-f", "perfetto", NULL };
	char *html[] = { PROFILER, "view", "-n", self->naive_prog, "-s", self->naive_prof,
			 "-f", "html", NULL };
	char *text[] = { PROFILER, "view", "-n", self->naive_prog, "-s", self->naive_prof,
			 NULL };

	EXPECT_EQ(2, on_tty(pf, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "not written to a terminal"));
	EXPECT_EQ(2, on_tty(html, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "not written to a terminal"));
	EXPECT_EQ(0, on_tty(text, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "vneuron-profile: exp_naive"));
	/* redirected, it is written */
	EXPECT_EQ(0, profiler(&self->out, "view -n %s -s %s -f perfetto > /dev/null",
			      self->naive_prog, self->naive_prof));
}

/*
 * Issue 12: capture checks its profile path before anything else (no device needed):
 * -s naming the program, or an existing profile, is refused and the file intact; with
 * --force-overwrite a bad input still leaves the old profile as it was.
 */
TEST_F(view, capture_never_loses_a_file)
{
	char keep[160];

	snprintf(keep, sizeof(keep), "%s/keep.vnef", self->dir);
	ASSERT_EQ(0, link(self->naive_prog, keep));
	EXPECT_EQ(2, profiler(&self->out, "capture -n %s -s %s", self->naive_prog,
			      self->naive_prog));
	EXPECT_NE(NULL, strstr(self->out, "would overwrite the input"));
	free(self->out);
	EXPECT_EQ(2, profiler(&self->out, "capture --force-overwrite -n %s -s %s",
			      self->naive_prog, keep));
	free(self->out);
	EXPECT_EQ(0, same_bytes(self->naive_prog, keep));
	/* an input file as the profile */
	EXPECT_EQ(2, profiler(&self->out, "capture --force-overwrite -n %s -s %s x %s",
			      self->naive_prog, self->naive_prof, self->naive_prof));
	free(self->out);
	/* an existing profile */
	EXPECT_EQ(2, profiler(&self->out, "capture -n %s -s %s x /nonexist.npy",
			      self->naive_prog, self->tiled_prof));
	EXPECT_NE(NULL, strstr(self->out, "exists; use --force-overwrite"));
	free(self->out);
	EXPECT_EQ(1, profiler(&self->out, "capture --force-overwrite -n %s -s %s x "
			      "/nonexist.npy", self->naive_prog, self->tiled_prof));
	free(self->out);
	self->out = NULL;
	EXPECT_EQ(0, profiler(&self->out, "view -n %s -s %s -o /dev/null", self->tiled_prog,
			      self->tiled_prof));
	/* the application form too */
	free(self->out);
	EXPECT_EQ(2, profiler(&self->out, "capture -s %s -- true", self->tiled_prof));
}

/* The number after key ("\"total_time_ps\":") in a JSON text, or ~0 if absent. */
static unsigned long long json_num(const char *json, const char *key)
{
	const char *p = strstr(json, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : ~0ull;
}

/*
 * Issue 12: `capture --host` runs the program on the host backend (no module) and
 * writes a profile whose modeled figures are the model's own: the same as the fixture's
 * profile, built from the host executor's events directly, and the same on a second
 * capture; the profile says it came from the host backend, and view prints that.
 */
TEST_F(view, host_capture_matches_the_model)
{
	static const char *const keys[] = {
		"\"total_time_ps\":", "\"event_count\":", "\"instruction_count\":",
		"\"dma_count\":", "\"core_time_ps\":", "\"critical_path_ps\":",
	};
	char prof[160], prof2[160], err[256];
	char *ref = NULL, *host = NULL, *host2 = NULL;
	struct vntf_reader *r;
	struct vntf_chunk c;
	unsigned int i;

	snprintf(prof, sizeof(prof), "%s/host.vntf", self->dir);
	snprintf(prof2, sizeof(prof2), "%s/host2.vntf", self->dir);
	ASSERT_EQ(0, profiler(&self->out, "capture --host -q -n %s -s %s", self->tiled_prog,
			      prof));
	free(self->out);
	self->out = NULL;
	ASSERT_EQ(0, profiler(&self->out, "capture --host -q -n %s -s %s", self->tiled_prog,
			      prof2));
	ASSERT_EQ(0, profiler(&ref, "view -n %s -s %s -f summary-json", self->tiled_prog,
			      self->tiled_prof));
	ASSERT_EQ(0, profiler(&host, "view -n %s -s %s -f summary-json", self->tiled_prog,
			      prof));
	ASSERT_EQ(0, profiler(&host2, "view -n %s -s %s -f summary-json", self->tiled_prog,
			      prof2));
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		EXPECT_NE(~0ull, json_num(host, keys[i]));
		EXPECT_EQ(json_num(ref, keys[i]), json_num(host, keys[i])) {
			TH_LOG("%s differs from the model's", keys[i]);
		}
	}
	EXPECT_NE(NULL, strstr(host, "\"backend\":\"host\""));
	/* two host captures: the same summary, byte for byte (no host time in it) */
	EXPECT_STREQ(host, host2);
	free(ref);
	free(host);
	free(host2);
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s", self->tiled_prog, prof));
	EXPECT_NE(NULL, strstr(self->out, "captured on the host backend"));
	/* the backend section (type 12), optional, and the execution records */
	ASSERT_EQ(0, vntf_open_file(&r, prof, err, sizeof(err)));
	while (vntf_next(r, &c) > 0)
		;
	EXPECT_EQ(VNTF_BACKEND_HOST, vntf_reader_info(r)->backend);
	EXPECT_TRUE(vntf_reader_info(r)->complete);
	EXPECT_EQ(1, vntf_reader_info(r)->version_minor);
	vntf_close(r);
	/* what --host cannot do is said, status 2 */
	free(self->out);
	EXPECT_EQ(2, profiler(&self->out, "capture --host --core 1 -n %s -s %s/x.vntf",
			      self->tiled_prog, self->dir));
	EXPECT_NE(NULL, strstr(self->out, "--host runs on host threads"));
	free(self->out);
	EXPECT_EQ(2, profiler(&self->out, "capture --host -s %s/x.vntf -- true", self->dir));
	EXPECT_NE(NULL, strstr(self->out, "--host runs a program"));
}

/*
 * Issue 29: `capture --max-size BYTES` says the size it expects, stops at the limit
 * after the running execution, and leaves a valid profile within it, marked truncated,
 * that view calls PARTIAL; a bad size is refused with the reason, status 2.
 */
TEST_F(view, capture_max_size)
{
	static const char *const bad[] = { "10K", "12Q", "-1", "", "99999999999999999999" };
	char prof[160], err[256];
	struct vntf_reader *r;
	struct vntf_chunk c;
	struct stat st;
	unsigned int i;

	snprintf(prof, sizeof(prof), "%s/cut.vntf", self->dir);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(2, profiler(&self->out, "capture --host -n %s -s %s --max-size '%s'",
				      self->tiled_prog, prof, bad[i]));
		EXPECT_NE(NULL, strstr(self->out, "give a size in bytes of at least 64K, with "
				       "an optional suffix K, M or G")) TH_LOG("%s", self->out);
		free(self->out);
		EXPECT_NE(0, access(prof, F_OK));
	}
	ASSERT_EQ(0, profiler(&self->out, "capture --host -n %s -s %s -N 400 --max-size 64K",
			      self->tiled_prog, prof)) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "capture: about ")) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "expected for 400 executions")) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "--max-size 64.0 KiB stops it after about"))
		TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "of 400 at --max-size 65536")) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "marked truncated")) TH_LOG("%s", self->out);
	ASSERT_EQ(0, stat(prof, &st));
	EXPECT_GE(65536, st.st_size);
	ASSERT_EQ(0, vntf_open_file(&r, prof, err, sizeof(err)));
	while (vntf_next(r, &c) > 0)
		;
	EXPECT_TRUE(vntf_reader_info(r)->complete) TH_LOG("%s", vntf_error(r));
	EXPECT_EQ(65536, vntf_reader_info(r)->max_bytes);
	EXPECT_LT(0, vntf_reader_info(r)->cut_records);
	vntf_close(r);
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s", self->tiled_prog, prof));
	EXPECT_NE(NULL, strstr(self->out, "PARTIAL: the capture stopped writing at its "
			       "--max-size")) TH_LOG("%s", self->out);
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f summary-json", self->tiled_prog,
			      prof));
	EXPECT_NE(NULL, strstr(self->out, "\"partial\":true,\"salvaged_files\":0,"
			       "\"cut_records\":"));
	free(self->out);
	/* small and without a limit: no estimate, not partial */
	ASSERT_EQ(0, profiler(&self->out, "capture --host -n %s -s %s -N 5 --force-overwrite",
			      self->tiled_prog, prof));
	EXPECT_EQ(NULL, strstr(self->out, "expected for")) TH_LOG("%s", self->out);
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f summary-json", self->tiled_prog,
			      prof));
	EXPECT_NE(NULL, strstr(self->out, "\"partial\":false,\"salvaged_files\":0,"
			       "\"cut_records\":0"));
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "capture --help"));
	EXPECT_NE(NULL, strstr(self->out, "--max-size BYTES"));
}

/*
 * Issue 28: `capture --host --model NAME` runs on that model, the profile records it and
 * view uses its peaks; diff of two models says so before any figure, with the speed
 * ratio and each model's utilisations; a bad --model is refused naming the valid ones.
 */
TEST_F(view, host_capture_per_model)
{
	static const char *const models[] = { "trn1", "trn2", "trn3" };
	char prof[3][160], want[96];
	char *js = NULL, *p, *q;
	unsigned int i;

	for (i = 0; i < 3; i++) {
		snprintf(prof[i], sizeof(prof[i]), "%s/%s.vntf", self->dir, models[i]);
		free(self->out);
		ASSERT_EQ(0, profiler(&self->out, "capture --host --model %s -q -n %s -s %s",
				      models[i], self->tiled_prog, prof[i])) TH_LOG("%s", self->out);
		free(js);
		ASSERT_EQ(0, profiler(&js, "view -n %s -s %s -f summary-json", self->tiled_prog,
				      prof[i]));
		snprintf(want, sizeof(want), "\"model\":\"%s\"", models[i]);
		EXPECT_NE(NULL, strstr(js, want)) TH_LOG("%s", js);
	}
	/* trn3's TensorE peak (the last summary): 128 x 128 x 2 flops at 2.4 GHz */
	EXPECT_NE(NULL, strstr(js, "\"peak_flops\":7.86432e+13")) TH_LOG("%s", js);
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s", self->tiled_prog, prof[1]));
	EXPECT_NE(NULL, strstr(self->out, "model trn2: TensorE 78.6 TFLOP/s, HBM 362 GB/s"))
		TH_LOG("%s", self->out);
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "diff -n %s %s %s", self->tiled_prog, prof[0],
			      prof[1]));
	p = strstr(self->out, "different device models: A ran on trn1, B on trn2");
	q = strstr(self->out, "total time");
	ASSERT_NE(NULL, p) TH_LOG("%s", self->out);
	ASSERT_NE(NULL, q);
	EXPECT_LT(p, q) TH_LOG("the models are said before any figure");
	EXPECT_NE(NULL, strstr(self->out, "on trn2 than A on trn1; TensorE utilisation "))
		TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "utilisation per model                 trn1"))
		TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "of 91.8 and 78.6 TFLOP/s")) TH_LOG("%s", self->out);
	/* the same model: no such note */
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "diff -n %s %s %s", self->tiled_prog, prof[1],
			      prof[1]));
	EXPECT_EQ(NULL, strstr(self->out, "different device models"));
	free(self->out);
	EXPECT_EQ(2, profiler(&self->out, "capture --host --model trn9 -n %s -s %s/x.vntf",
			      self->tiled_prog, self->dir));
	EXPECT_NE(NULL, strstr(self->out, "--model: unknown model 'trn9' (the models are trn1, "
			       "trn2, trn3)")) TH_LOG("%s", self->out);
	free(self->out);
	EXPECT_EQ(2, profiler(&self->out, "capture --model trn2 -n %s -s %s/x.vntf",
			      self->tiled_prog, self->dir));
	EXPECT_NE(NULL, strstr(self->out, "--model trn2 is for --host")) TH_LOG("%s", self->out);
	free(js);
}

/*
 * Issue 12: `capture --host --collectives-worker-count 4` runs the ranks as threads of
 * one host communicator: every worker's streams are in the profile with its rank, the
 * collectives meet (CC records on every rank), and a second capture gives the same
 * summary.
 */
TEST_F(view, host_capture_workers)
{
	char prog[160], prof[160], err[256];
	char *a = NULL, *b = NULL;
	struct vntf_reader *r;
	struct vntf_chunk c;
	unsigned int ranks = 0, i;
	uint64_t cc = 0;

	if (access("build/bin/example-mlp-dp", X_OK))
		SKIP(return, "build/bin/example-mlp-dp is not built (make)");
	snprintf(prog, sizeof(prog), "%s/dp.vnef", self->dir);
	snprintf(prof, sizeof(prof), "%s/dp.vntf", self->dir);
	snprintf(err, sizeof(err), "build/bin/example-mlp-dp -q --host --steps 2 --write-vnef %s "
		 "> /dev/null", prog);
	ASSERT_EQ(0, system(err));
	ASSERT_EQ(0, profiler(&self->out, "capture --host -q -n %s -s %s "
			      "--collectives-worker-count 4", prog, prof));
	ASSERT_EQ(0, profiler(&a, "view -n %s -s %s", prog, prof));
	EXPECT_NE(NULL, strstr(a, "4 cores")) TH_LOG("%s", a);
	EXPECT_NE(NULL, strstr(a, "over 4 ranks")) TH_LOG("%s", a);
	ASSERT_EQ(0, vntf_open_file(&r, prof, err, sizeof(err)));
	while (vntf_next(r, &c) > 0)
		for (i = 0; i < c.count; i++)
			cc += c.recs[i].kind == VNEURON_TRACE_CC;
	for (i = 0; i < vntf_reader_info(r)->nr_streams; i++) {
		const struct vntf_worker *w = &vntf_reader_info(r)->streams[i].worker;

		EXPECT_EQ(4, w->nr_workers);
		ranks |= 1u << w->worker;
		/* placed as the module places them: two cores a device */
		EXPECT_EQ(w->worker / 2, w->device);
		EXPECT_EQ(w->worker % 2, w->core);
	}
	EXPECT_EQ(VNTF_BACKEND_HOST, vntf_reader_info(r)->backend);
	vntf_close(r);
	EXPECT_EQ(0xfu, ranks);
	EXPECT_LT(0, (int64_t)cc);
	EXPECT_EQ(0, cc % 4);			/* each collective on every rank */
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "capture --host -q --force-overwrite -n %s -s %s "
			      "--collectives-worker-count 4", prog, prof));
	ASSERT_EQ(0, profiler(&b, "view -n %s -s %s", prog, prof));
	EXPECT_STREQ(a, b);
	free(a);
	free(b);
}

/*
 * Issue 12: the text summary and the web viewer give the same DMA peaks. The viewer
 * labels its counters with summary-json dma.series peaks (profiler/web/viewer.js,
 * counterLabel()), so: the text's "peak X GB/s (bins of T)" and "pending ... peak Y"
 * are the JSON's figures printed the same way, at the JSON's bin size, and the peaks
 * are the highest bins of the series the viewer draws (tests/browser checks the page).
 */
TEST_F(view, dma_series_text_and_json_agree)
{
	char *json = NULL, want[128], bins[32], path[160], cmd[512];
	const char *p;
	double tpk, ppk;

	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s --bins 37", self->tiled_prog,
			      self->tiled_prof));
	ASSERT_EQ(0, profiler(&json, "view -n %s -s %s --bins 37 -f summary-json",
			      self->tiled_prog, self->tiled_prof));
	p = strstr(json, "\"throughput_peak_bytes_per_s\":");
	ASSERT_NE(NULL, p);
	tpk = strtod(strchr(p, ':') + 1, NULL);
	p = strstr(json, "\"pending_peak\":");
	ASSERT_NE(NULL, p);
	ppk = strtod(strchr(p, ':') + 1, NULL);
	EXPECT_LT(0, tpk);
	EXPECT_LT(0, ppk);
	p = strstr(json, "\"bin_ps\":");
	ASSERT_NE(NULL, p);
	snprintf(want, sizeof(want), "peak %.2f GB/s (bins of %s)", tpk / 1e9,
		 vnp_fmt_time(strtoull(p + 9, NULL, 10), bins, sizeof(bins)));
	EXPECT_NE(NULL, strstr(self->out, want)) TH_LOG("want '%s' in the text", want);
	snprintf(want, sizeof(want), "pending DMA avg ");
	p = strstr(self->out, want);
	ASSERT_NE(NULL, p);
	snprintf(want, sizeof(want), ", peak %.2f\n", ppk);
	EXPECT_NE(NULL, strstr(p, want)) TH_LOG("want '%s' after 'pending DMA avg'", want);
	/* the peaks are the series' highest bins, 37 of them */
	snprintf(path, sizeof(path), "%s/s.json", self->dir);
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s --bins 37 -f summary-json -o %s",
			      self->tiled_prog, self->tiled_prof, path));
	snprintf(cmd, sizeof(cmd), "python3 -c 'import json,sys; s = json.load(open(sys.argv[1]))"
		 "[\"dma\"][\"series\"]; t, q = s[\"throughput_bytes_per_s\"], s[\"pending\"]; "
		 "near = lambda a, b: abs(a - b) <= 1e-5 * b; sys.exit(not (len(t) == len(q) == 37 and "
		 "near(max(t), s[\"throughput_peak_bytes_per_s\"]) and near(max(q), "
		 "s[\"pending_peak\"])))' %s", path);
	EXPECT_EQ(0, system(cmd));
	free(json);
}

/*
 * Issue 12: SIGINT and SIGTERM during capture's program form are noted, not fatal, so
 * the run stops after the running execution and writes the end section (the device
 * part runs only in the guest; this is the handler capture installs, profiler/options.c).
 */
TEST(capture_signals_are_caught)
{
	struct sigaction old;

	EXPECT_EQ(0, vnp_signalled());
	/* an ignored signal stays ignored (a background job's SIGINT, nohup's SIGHUP) */
	signal(SIGINT, SIG_IGN);
	vnp_catch_signals();
	ASSERT_EQ(0, sigaction(SIGINT, NULL, &old));
	EXPECT_TRUE(old.sa_handler == SIG_IGN);
	EXPECT_EQ(0, raise(SIGINT));
	EXPECT_EQ(0, vnp_signalled());
	/* from here as a foreground run has them, whoever started the test */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	vnp_catch_signals();
	EXPECT_EQ(0, raise(SIGINT));
	EXPECT_EQ(SIGINT, vnp_signalled());
	EXPECT_EQ(0, raise(SIGTERM));
	EXPECT_EQ(SIGINT, vnp_signalled());	/* the first one counts */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
}

/* Issue 12: the output helper's interrupted path: the old file stays, no temporary. */
TEST(outfile_abort_keeps_the_old_file)
{
	char dir[] = "/tmp/vnp_out_XXXXXX", path[64], msg[256], line[32] = "";
	struct nd_outfile o;
	FILE *f;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/p.vntf", dir);
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	fputs("old\n", f);
	fclose(f);
	EXPECT_EQ(-EEXIST, nd_out_open(&o, path, NULL, 0, 0, msg, sizeof(msg)));
	ASSERT_EQ(0, nd_out_open(&o, path, NULL, 0, ND_OUT_FORCE, msg, sizeof(msg)));
	fputs("half a new profile", o.f);
	EXPECT_EQ(2, files_in(dir));
	nd_out_abort(&o);
	EXPECT_EQ(1, files_in(dir));
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	EXPECT_NE(NULL, fgets(line, sizeof(line), f));
	fclose(f);
	EXPECT_STREQ("old\n", line);
	/* committed: replaced whole, with the old file's mode */
	ASSERT_EQ(0, chmod(path, 0640));
	ASSERT_EQ(0, nd_out_open(&o, path, NULL, 0, ND_OUT_FORCE, msg, sizeof(msg)));
	fputs("new\n", o.f);
	EXPECT_EQ(0, nd_out_commit(&o));
	f = fopen(path, "r");
	ASSERT_NE(NULL, f);
	EXPECT_NE(NULL, fgets(line, sizeof(line), f));
	fclose(f);
	EXPECT_STREQ("new\n", line);
	{
		struct stat st;

		ASSERT_EQ(0, stat(path, &st));
		EXPECT_EQ(0640, st.st_mode & 0777);
	}
	EXPECT_EQ(1, files_in(dir));
	unlink(path);
	rmdir(dir);
}

/* The first line of path, or "" */
static const char *first_line(const char *path, char *line, size_t len)
{
	FILE *f = fopen(path, "r");

	line[0] = '\0';
	if (f) {
		if (!fgets(line, (int)len, f))
			line[0] = '\0';
		fclose(f);
	}
	return line;
}

/*
 * Issue 12: a file created at the output's path between the check and the commit (by
 * someone else) is kept: without --force-overwrite the commit never replaces
 * (renameat2(RENAME_NOREPLACE), or link() + unlink() where that is missing), says so,
 * and keeps the output under its temporary name; with it, the file is replaced.
 */
TEST(outfile_commit_never_replaces_a_newcomer)
{
	static const unsigned int how[] = { 0, ND_OUT_LINK };
	char dir[] = "/tmp/vnp_out_XXXXXX", path[64], msg[512], line[32], kept[128];
	struct nd_outfile o;
	unsigned int i;
	FILE *f;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/p.vntf", dir);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, nd_out_open(&o, path, NULL, 0, how[i], msg, sizeof(msg)));
		fputs("ours\n", o.f);
		f = fopen(path, "wx");		/* someone else's, meanwhile */
		ASSERT_NE(NULL, f);
		fputs("theirs\n", f);
		fclose(f);
		EXPECT_EQ(-EEXIST, nd_out_commit(&o));
		EXPECT_STREQ("theirs\n", first_line(path, line, sizeof(line)));
		ASSERT_NE(NULL, o.kept);
		snprintf(kept, sizeof(kept), "%s", o.kept);
		EXPECT_STREQ("ours\n", first_line(kept, line, sizeof(line)));
		nd_out_strerror(&o, -EEXIST, msg, sizeof(msg));
		EXPECT_NE(NULL, strstr(msg, "was created by someone else")) TH_LOG("%s", msg);
		EXPECT_NE(NULL, strstr(msg, kept)) TH_LOG("%s", msg);
		nd_out_release(&o);
		EXPECT_EQ(2, files_in(dir));
		unlink(kept);
		unlink(path);
		/* nothing there: committed the same way */
		ASSERT_EQ(0, nd_out_open(&o, path, NULL, 0, how[i], msg, sizeof(msg)));
		fputs("ours\n", o.f);
		EXPECT_EQ(0, nd_out_commit(&o));
		EXPECT_STREQ("ours\n", first_line(path, line, sizeof(line)));
		EXPECT_EQ(1, files_in(dir));
		unlink(path);
	}
	/* --force-overwrite: replaced */
	ASSERT_EQ(0, nd_out_open(&o, path, NULL, 0, ND_OUT_FORCE, msg, sizeof(msg)));
	fputs("ours\n", o.f);
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	fputs("theirs\n", f);
	fclose(f);
	EXPECT_EQ(0, nd_out_commit(&o));
	EXPECT_STREQ("ours\n", first_line(path, line, sizeof(line)));
	EXPECT_EQ(1, files_in(dir));
	unlink(path);
	/* nd_out_write(): the same, in one call */
	EXPECT_EQ(0, nd_out_write(path, "a\n", 2, 0, msg, sizeof(msg)));
	EXPECT_EQ(-EEXIST, nd_out_write(path, "b\n", 2, 0, msg, sizeof(msg)));
	EXPECT_NE(NULL, strstr(msg, "use --force-overwrite")) TH_LOG("%s", msg);
	EXPECT_STREQ("a\n", first_line(path, line, sizeof(line)));
	EXPECT_EQ(0, nd_out_write(path, "b\n", 2, ND_OUT_FORCE, msg, sizeof(msg)));
	EXPECT_STREQ("b\n", first_line(path, line, sizeof(line)));
	unlink(path);
	rmdir(dir);
}

/*
 * Issue 12: the examples' --write-vnef goes through the output helper: an existing file
 * is refused before anything runs (status 2, the file intact), --force-overwrite
 * replaces it.
 */
TEST(examples_write_vnef_never_overwrites)
{
	char dir[] = "/tmp/vnp_ex_XXXXXX", path[64], *out = NULL, line[32];
	FILE *f;

	if (access("build/bin/example-exp", X_OK))
		SKIP(return, "build/bin/example-exp is not built (make)");
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/e.vnef", dir);
	f = fopen(path, "w");
	ASSERT_NE(NULL, f);
	fputs("keep\n", f);
	fclose(f);
	snprintf(line, sizeof(line), "%s", "");
	{
		char cmd[256];
		int st;

		snprintf(cmd, sizeof(cmd), "build/bin/example-exp -q --host --variant naive "
			 "--write-vnef %s 2>&1", path);
		f = popen(cmd, "r");
		ASSERT_NE(NULL, f);
		out = calloc(1, 4096);
		ASSERT_NE(NULL, out);
		if (!fread(out, 1, 4095, f))
			out[0] = '\0';
		st = pclose(f);
		EXPECT_EQ(2, WEXITSTATUS(st));
		EXPECT_NE(NULL, strstr(out, "exists; use --force-overwrite")) TH_LOG("%s", out);
		EXPECT_STREQ("keep\n", first_line(path, line, sizeof(line)));
		snprintf(cmd, sizeof(cmd), "build/bin/example-exp -q --host --variant naive "
			 "--write-vnef %s --force-overwrite > /dev/null", path);
		EXPECT_EQ(0, system(cmd));
		EXPECT_NE(0, strcmp("keep\n", first_line(path, line, sizeof(line))));
		EXPECT_EQ(1, files_in(dir));
	}
	free(out);
	unlink(path);
	rmdir(dir);
}

/* Issue 16, "One clock": view --clock host on an application's profile, and its errors. */
TEST_F(view, host_clock_option)
{
	static const unsigned int prog[3] = { 0, 0, 0 };
	char app[160], pf[200];

	snprintf(app, sizeof(app), "%s/clock.vntf", self->dir);
	ASSERT_EQ(0, capture_app(app, prog, 3, 1, 99));
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s --clock host", self->naive_prog,
			      app));
	/* the host backend's EXEC_START records carry no host time: said so */
	EXPECT_NE(NULL, strstr(self->out, "\nClock: host (no execution has an EXEC_START "
			       "host time"));
	if (getenv("VNP_DUMP"))
		fputs(self->out, stderr);
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s --clock host -f summary-json",
			      self->naive_prog, app));
	EXPECT_NE(NULL, strstr(self->out, "\"clock\":{\"axis\":\"host\",\"host_base_ns\":"));
	free(self->out);
	snprintf(pf, sizeof(pf), "%s/clock.pftrace", self->dir);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s --clock host -f perfetto -o %s",
			      self->naive_prog, app, pf));
	free(self->out);
	/* the default is the modeled clock */
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f summary-json", self->naive_prog,
			      app));
	EXPECT_NE(NULL, strstr(self->out, "\"clock\":{\"axis\":\"model\"}"));
	EXPECT_EQ(NULL, strstr(self->out, "Clock: host"));
	free(self->out);
	EXPECT_EQ(2, profiler(&self->out, "view -n %s -s %s --clock wall", self->naive_prog,
			      app));
	EXPECT_NE(NULL, strstr(self->out, "--clock needs host or model"));
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view --help"));
	EXPECT_NE(NULL, strstr(self->out, "--clock CLOCK"));
	EXPECT_NE(NULL, strstr(self->out, "--web-detail N"));
	free(self->out);
	/* the web viewer's summary-level threshold: 1..2^32-1 events */
	{
		static const char *const bad[] = { "0", "x", "4294967296", "-1", "" };
		unsigned int i;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			EXPECT_EQ(2, profiler(&self->out, "view -n %s -s %s -f html "
					      "--web-detail '%s'", self->naive_prog, app, bad[i]));
			EXPECT_NE(NULL, strstr(self->out, "--web-detail needs 1..4294967295 events"))
				TH_LOG("%s: %s", bad[i], self->out);
			free(self->out);
		}
	}
	self->out = NULL;
}

/*
 * The profile of a logical core (LNC=2, docs/isa.md "Logical cores"): capture --host
 * --model trn2 --lnc 2 traces both instances (program ids 0 and 1 on host cores 0 and
 * 1), the profile says they are logical core 0, and view shows them under it (the
 * summary, summary-json, Perfetto's names); --lnc's refusals; an LNC=1 profile says
 * nothing of logical cores.
 */
static unsigned int count(const char *s, const char *what)
{
	unsigned int n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

FIXTURE(lnc) {
	char dir[64], prog[128], prof[128];
	char *out;
};

FIXTURE_SETUP(lnc)
{
	void *text, *img;
	size_t len, size;

	self->out = NULL;
	self->dir[0] = 0;
	if (access(PROFILER, X_OK))
		SKIP(return, "%s is not built (make)", PROFILER);
	snprintf(self->dir, sizeof(self->dir), "/tmp/vnp_lnc_XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->prog, sizeof(self->prog), "%s/spmd.vnef", self->dir);
	snprintf(self->prof, sizeof(self->prof), "%s/spmd.vntf", self->dir);
	ASSERT_EQ(0, nd_read_file("examples/vasm/spmd.vasm", 1 << 20, &text, &len));
	ASSERT_EQ(0, nd_asm(text, len, "spmd.vasm", 0, &img, &size, NULL, stderr));
	ASSERT_EQ(0, write_file(self->prog, img, size));
	free(text);
	free(img);
}

FIXTURE_TEARDOWN(lnc)
{
	teardown(self->out, self->dir);
}

/* Both instances' events, and the logical core named in every view. */
TEST_F(lnc, capture_shows_both_cores_under_the_logical_one)
{
	char pf[160];

	ASSERT_EQ(0, profiler(&self->out, "capture --host --model trn2 --lnc 2 -n %s -s %s",
			 self->prog, self->prof)) TH_LOG("%s", self->out);
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s", self->prog, self->prof))
		TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "; 2 cores, 2 execs")) TH_LOG("%s", self->out);
	EXPECT_NE(NULL, strstr(self->out, "\n  logical core 0 (LNC=2): core 0 (program id 0), "
			       "core 1 (program id 1)\n")) TH_LOG("%s", self->out);
	/* each instance ran its PROGRAM_ID and its three DMAs on its own core */
	EXPECT_NE(NULL, strstr(self->out, "PROGRAM_ID 2 ")) TH_LOG("%s", self->out);
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f json", self->prog,
			 self->prof));
	EXPECT_EQ(6, count(self->out, "\"core\":0,"));
	EXPECT_EQ(6, count(self->out, "\"core\":1,"));
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f summary-json", self->prog,
			 self->prof));
	EXPECT_NE(NULL, strstr(self->out, ",\"logical_cores\":[{\"logical_core\":0,\"lnc\":2,"
			       "\"cores\":[0,1]}],")) TH_LOG("%s", self->out);
	free(self->out);
	snprintf(pf, sizeof(pf), "%s/spmd.pftrace", self->dir);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f perfetto -o %s", self->prog,
			 self->prof, pf));
	free(self->out);
	self->out = NULL;
	EXPECT_EQ(1, file_has(pf, "logical core 0 (LNC=2): spmd"));
	EXPECT_EQ(1, file_has(pf, "logical core 0 / core 0: spmd"));
	EXPECT_EQ(1, file_has(pf, "logical core 0 / core 1: spmd"));
}

/* --lnc: 1 or 2, on the host, a model with logical cores, no workers; each said. */
TEST_F(lnc, lnc_refusals)
{
	static const struct { const char *args, *msg; int status; } bad[] = {
		{ "--host --lnc 2", "model trn1 has no logical cores", 1 },
		{ "--host --model trn2 --lnc 3", "--lnc '3': give 1 or 2", 2 },
		{ "--host --model trn2 --lnc 0", "--lnc '0': give 1 or 2", 2 },
		{ "--host --model trn2 --lnc x", "--lnc 'x': give 1 or 2", 2 },
		/* on a device (no module here): refused by the open, not by --lnc */
		{ "--lnc 2", "/dev/vneuron0: no such device", 3 },
		{ "--host --model trn2 --lnc 2 --collectives-worker-count 2",
		  "it takes no collectives workers", 2 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(bad[i].status, profiler(&self->out, "capture %s -n %s -s %s",
					      bad[i].args, self->prog, self->prof))
			TH_LOG("%s: %s", bad[i].args, self->out);
		EXPECT_NE(NULL, strstr(self->out, bad[i].msg)) TH_LOG("%s", self->out);
		EXPECT_NE(0, access(self->prof, F_OK));		/* no profile written */
		free(self->out);
		self->out = NULL;
	}
	/* an application launches its own logical cores */
	EXPECT_EQ(2, profiler(&self->out, "capture --lnc 2 -s %s -- true", self->prof));
	EXPECT_NE(NULL, strstr(self->out, "--lnc 2 is for the program form (-n)"))
		TH_LOG("%s", self->out);
	free(self->out);
	self->out = NULL;
	ASSERT_EQ(0, profiler(&self->out, "capture --help"));
	EXPECT_NE(NULL, strstr(self->out, "--lnc N"));
}

/* LNC=1 (the default, or --lnc 1): no logical core in any view. */
TEST_F(lnc, lnc1_says_nothing)
{
	ASSERT_EQ(0, profiler(&self->out, "capture --host --model trn2 --lnc 1 -n %s -s %s",
			 self->prog, self->prof)) TH_LOG("%s", self->out);
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s", self->prog, self->prof));
	EXPECT_NE(NULL, strstr(self->out, "; 1 core, 1 exec")) TH_LOG("%s", self->out);
	EXPECT_EQ(NULL, strstr(self->out, "logical core"));
	free(self->out);
	ASSERT_EQ(0, profiler(&self->out, "view -n %s -s %s -f summary-json", self->prog,
			 self->prof));
	EXPECT_EQ(NULL, strstr(self->out, "logical_cores"));
}

TEST_HARNESS_MAIN
