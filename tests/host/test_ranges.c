// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Application ranges (issue 16): nd_range_push/pop and nd_mark as libneurondev logs them
 * (nesting per thread, depth limit, unbalanced pops, names cleaned), the capture's merge
 * of that log into a profile (names as string sections), the reader's refusal of bad
 * names, each execution attributed to the ranges open at its EXEC call, and the
 * host-overhead finding for an application that leaves its core idle between executions.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vnp_synth.h"
#include "../../profiler/capture/capture.h"
#include "../../profiler/model/profile.h"
#include "../../profiler/format/vntf.h"

/* The 6.1 harness defines non-static helpers without prototypes. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop

#define EQ(a, b)	EXPECT_EQ((int64_t)(a), (int64_t)(b))
#define AEQ(a, b)	ASSERT_EQ((int64_t)(a), (int64_t)(b))
#define REC		sizeof(struct vneuron_trace_record)

static char log_path[] = "/tmp/test_ranges.XXXXXX";

/* The API log every range call of this process goes to (set before the first call). */
static void __attribute__((constructor)) set_log(void)
{
	int fd = mkstemp(log_path);

	if (fd < 0)
		abort();
	close(fd);
	setenv("VNEURON_PROFILE_API", log_path, 1);
}

static void __attribute__((destructor)) rm_log(void)
{
	unlink(log_path);
}

static void clear_log(void)
{
	if (truncate(log_path, 0))
		abort();
}

/* The log's records: *n of them, malloc()ed. */
static struct vneuron_trace_record *read_log(size_t *n)
{
	FILE *f = fopen(log_path, "rb");
	struct vneuron_trace_record *r = malloc(4096 * REC);

	*n = f && r ? fread(r, REC, 4096, f) : 0;
	if (f)
		fclose(f);
	return r;
}

static void *worker(void *arg)
{
	const char *tag = arg;
	char a[32], b[32];
	intptr_t ok = 1;
	int i;

	snprintf(a, sizeof(a), "%s outer", tag);
	snprintf(b, sizeof(b), "%s inner", tag);
	for (i = 0; i < 50; i++) {
		ok &= nd_range_push(a) == 1;
		ok &= nd_range_push(b) == 2;
		ok &= nd_mark("tick") == 0;
		ok &= nd_range_pop() == 1;
		ok &= nd_range_pop() == 0;
	}
	return (void *)ok;
}

/*
 * A forked child logs to the same file under its own pid and starts with no range open:
 * its parent's open range is not its own (the profile replays (pid, thread) stacks).
 */
TEST(forked_child_starts_with_no_range)
{
	struct vneuron_trace_record *r;
	size_t n, i, child = 0;
	int st;
	pid_t pid;

	clear_log();
	ASSERT_EQ(nd_range_push("parent"), 1);
	pid = fork();
	ASSERT_GE(pid, 0);
	if (!pid)
		_exit(nd_range_pop() == -ENOENT && nd_range_push("child") == 1 &&
		      nd_range_pop() == 0 ? 0 : 1);
	ASSERT_EQ(waitpid(pid, &st, 0), pid);
	EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
	EQ(nd_range_pop(), 0);
	r = read_log(&n);
	/* parent: push + name, pop; child: push + name, pop */
	AEQ(n, 6);
	for (i = 0; i < n; i++) {
		if (r[i].elements != (uint32_t)pid)
			continue;
		child++;
		if (r[i].opcode == ND_API_RANGE_PUSH) {
			EQ(r[i].dma_desc, 1);
			EXPECT_EQ(memcmp(&r[i + 1], "child", 5), 0);
			i++;
			child++;
		} else {
			EQ(r[i].opcode, ND_API_RANGE_POP);
			EQ(r[i].dma_desc, 0);
		}
	}
	EQ(child, 3);
	free(r);
}

TEST(ranges_nest_per_thread)
{
	struct vneuron_trace_record *r;
	uint32_t tid[2] = { 0, 0 }, depth[2] = { 0, 0 };
	char name[2][ND_RANGE_NAME_MAX + 1];
	pthread_t t[2];
	void *ok;
	size_t n, i, k;

	clear_log();
	ASSERT_EQ(pthread_create(&t[0], NULL, worker, "A"), 0);
	ASSERT_EQ(pthread_create(&t[1], NULL, worker, "B"), 0);
	for (i = 0; i < 2; i++) {
		pthread_join(t[i], &ok);
		EXPECT_TRUE(ok != NULL);
	}
	r = read_log(&n);
	/* 50 x (push+name, push+name, mark+name, pop, pop) per thread */
	EQ(n, 2 * 50 * 8);
	for (i = 0; i < n; i++) {
		unsigned int th;

		ASSERT_EQ(r[i].kind, VNEURON_TRACE_MARKER);
		EQ(r[i].elements, getpid());
		for (th = 0; th < 2 && tid[th] && tid[th] != (uint32_t)r[i].model_start_ps; th++)
			;
		ASSERT_LT(th, 2u);
		tid[th] = (uint32_t)r[i].model_start_ps;
		switch (r[i].opcode) {
		case ND_API_RANGE_PUSH:
			EQ(r[i].dma_desc, depth[th] + 1);
			depth[th] = r[i].dma_desc;
			ASSERT_LT(r[i].bytes, sizeof(name[0]));
			memcpy(name[th], &r[i + 1], r[i].bytes);
			name[th][r[i].bytes] = 0;
			/* outer at depth 1, inner at depth 2, of this thread's own tag */
			EXPECT_STREQ(name[th] + 2, depth[th] == 1 ? "outer" : "inner");
			i++;
			break;
		case ND_API_MARK:
			EQ(r[i].dma_desc, 2);
			EQ(r[i].bytes, 4);
			EXPECT_EQ(memcmp(&r[i + 1], "tick", 4), 0);
			i++;
			break;
		case ND_API_RANGE_POP:
			EQ(r[i].dma_desc, depth[th] - 1);
			depth[th] = r[i].dma_desc;
			break;
		default:
			EXPECT_EQ(r[i].opcode, 0);
		}
	}
	EXPECT_NE(tid[0], tid[1]);
	for (k = 0; k < 2; k++)
		EQ(depth[k], 0);
	free(r);
}

TEST(depth_limit_and_unbalanced_pop)
{
	struct vneuron_trace_record *r;
	size_t n, i, push = 0, pop = 0;
	int d;

	clear_log();
	EQ(nd_range_pop(), -ENOENT);
	EQ(nd_range_push(NULL), -EINVAL);
	EQ(nd_range_push(""), -EINVAL);
	EQ(nd_mark(NULL), -EINVAL);
	for (d = 1; d <= ND_RANGE_MAX_DEPTH; d++)
		EQ(nd_range_push("deep"), d);
	/* past the limit: counted, not recorded, balanced by its pop */
	EQ(nd_range_push("too deep"), -E2BIG);
	EQ(nd_range_push("too deep"), -E2BIG);
	EQ(nd_range_pop(), ND_RANGE_MAX_DEPTH + 1);
	EQ(nd_range_pop(), ND_RANGE_MAX_DEPTH);
	for (d = ND_RANGE_MAX_DEPTH - 1; d >= 0; d--)
		EQ(nd_range_pop(), d);
	EQ(nd_range_pop(), -ENOENT);
	r = read_log(&n);
	for (i = 0; i < n; i++) {
		if (r[i].opcode == ND_API_RANGE_PUSH) {
			push++;
			EXPECT_LE(r[i].dma_desc, ND_RANGE_MAX_DEPTH);
			i++;
		} else if (r[i].opcode == ND_API_RANGE_POP) {
			pop++;
		}
	}
	EQ(push, ND_RANGE_MAX_DEPTH);
	EQ(pop, ND_RANGE_MAX_DEPTH);
	free(r);
}

TEST(names_are_cleaned)
{
	char out[ND_RANGE_NAME_MAX + 1], big[300];
	size_t len;

	EQ(nd_range_name_clean(out, "layer\tfc1\x7f", SIZE_MAX), 10);
	EXPECT_STREQ(out, "layer?fc1?");
	EQ(nd_range_name_clean(out, "bad \xff\xfe utf8 \xc3\xa9", SIZE_MAX), 14);
	EXPECT_STREQ(out, "bad ?? utf8 \xc3\xa9");
	/* cut at the limit, never inside a character */
	memset(big, 'a', sizeof(big));
	big[ND_RANGE_NAME_MAX - 1] = (char)0xc3;
	big[ND_RANGE_NAME_MAX] = (char)0xa9;
	big[sizeof(big) - 1] = 0;
	len = nd_range_name_clean(out, big, SIZE_MAX);
	EQ(len, ND_RANGE_NAME_MAX - 1);
	EXPECT_TRUE(nd_range_name_ok(out, len));
	EXPECT_FALSE(nd_range_name_ok("a\nb", 3));
	EXPECT_FALSE(nd_range_name_ok("", 0));
	EXPECT_FALSE(nd_range_name_ok(big, sizeof(big) - 1));
}

/* A profile's bytes with the API log merged, for the reader. */
static char *merged(size_t *len, uint64_t *records, uint64_t *skipped)
{
	struct vntf_worker wk = { .stream = 5, .engine = VNEURON_TRACE_ENGINE_CORE, .pid = 1,
				  .nr_workers = 1 };
	struct vntf_clock clk = { .model_unit_ps = 1 };
	struct vntf_writer *w;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len), *in = fopen(log_path, "rb");

	if (!f || !in || vntf_writer_create(&w, f) || vntf_write_model(w, &vn_model_trn1) ||
	    vntf_write_clock(w, &clk) || vnp_api_log_merge(w, in, &wk, records, skipped, NULL) ||
	    vntf_writer_finish(w, 1))
		abort();
	fclose(in);
	fclose(f);
	return buf;
}

TEST(merge_interns_names)
{
	struct vneuron_trace_record junk = { .kind = VNEURON_TRACE_INSN };
	const struct vntf_info *info;
	struct vntf_reader *rd;
	struct vntf_chunk c;
	uint64_t records = 0, skipped = 0;
	char err[256], *buf;
	size_t len, i, pushes = 0;
	FILE *f;

	clear_log();
	nd_range_push("step 1");
	nd_range_push("fc1");
	nd_range_pop();
	nd_range_pop();
	nd_range_push("step 1");	/* the same name: one string */
	nd_range_pop();
	f = fopen(log_path, "ab");
	ASSERT_TRUE(f != NULL);
	fwrite(&junk, REC, 1, f);	/* not an API record: left out */
	fclose(f);
	buf = merged(&len, &records, &skipped);
	EQ(records, 6);
	EQ(skipped, 1);
	ASSERT_EQ(vntf_open_mem(&rd, buf, len, err, sizeof(err)), 0);
	while (vntf_next(rd, &c) > 0)
		for (i = 0; i < c.count; i++)
			if (c.recs[i].opcode == ND_API_RANGE_PUSH)
				EQ(c.recs[i].sem_value, pushes++ == 1 ? 1 : 0);
	info = vntf_reader_info(rd);
	EXPECT_TRUE(info->complete);
	AEQ(info->nr_strings, 2);
	EXPECT_STREQ(info->strings[0], "step 1");
	EXPECT_STREQ(info->strings[1], "fc1");
	EQ(pushes, 3);
	vntf_close(rd);
	free(buf);
}

/* A profile whose one string section is bad in the way bad() makes it: the error. */
static int bad_string(void (*bad)(struct vntf_string *h, char *name), char *err, size_t errlen)
{
	struct vntf_file_header fh = { .magic = VNTF_MAGIC, .version_major = 1,
				       .version_minor = 1, .header_size = sizeof(fh),
				       .record_size = REC };
	struct vntf_section_header sh = { .type = VNTF_SEC_STRING, .flags = VNTF_SEC_OPTIONAL };
	struct vntf_string h = { .id = 0, .len = 3 };
	struct vntf_reader *rd;
	struct vntf_chunk c;
	char name[512], buf[1024];
	size_t off = 0;
	int ret;

	memset(name, 'x', sizeof(name));
	memcpy(name, "fc1", 3);
	bad(&h, name);
	sh.size = sizeof(h) + h.len;
	memcpy(buf, &fh, sizeof(fh));
	off += sizeof(fh);
	memcpy(buf + off, &sh, sizeof(sh));
	off += sizeof(sh);
	memcpy(buf + off, &h, sizeof(h));
	off += sizeof(h);
	memcpy(buf + off, name, h.len);
	off += (h.len + 7) & ~7u;
	ret = vntf_open_mem(&rd, buf, off, err, errlen);
	if (ret)
		return ret;
	ret = vntf_next(rd, &c);
	snprintf(err, errlen, "%s", vntf_error(rd));
	vntf_close(rd);
	return ret;
}

static void ok_name(struct vntf_string *h, char *name)
{
}

static void long_name(struct vntf_string *h, char *name)
{
	h->len = 300;
}

static void ctrl_name(struct vntf_string *h, char *name)
{
	name[1] = '\n';
}

static void wrong_id(struct vntf_string *h, char *name)
{
	h->id = 7;
}

TEST(bad_names_in_a_profile_are_refused)
{
	char err[256];

	/* a good one reads up to the missing end section */
	EQ(bad_string(ok_name, err, sizeof(err)), -EINVAL);
	EXPECT_TRUE(strstr(err, "no end section") != NULL);
	EQ(bad_string(long_name, err, sizeof(err)), -EINVAL);
	EXPECT_TRUE(strstr(err, "(string)") && strstr(err, "exceeds the limit")) TH_LOG("%s", err);
	EQ(bad_string(ctrl_name, err, sizeof(err)), -EINVAL);
	EXPECT_TRUE(strstr(err, "range name 0 is not") != NULL) TH_LOG("%s", err);
	EQ(bad_string(wrong_id, err, sizeof(err)), -EINVAL);
	EXPECT_TRUE(strstr(err, "name id 7, expected 0") != NULL) TH_LOG("%s", err);
}

/* ---- attribution and launch gaps on synthetic timelines ---- */

/* Execution seq of core 0: one TensorE instruction of dur ns, host times in ns. */
static void exec_at(struct synth *s, uint32_t seq, uint64_t dur, uint64_t host_lo,
		    uint64_t host_hi)
{
	synth_app_exec(s, seq, dur, 1000 * (seq + 1), host_lo, host_hi);
}

static struct vneuron_trace_record *api(struct synth *s, unsigned int call, uint32_t pid,
					uint32_t tid, uint32_t depth)
{
	return synth_api(s, call, pid, tid, depth);
}

static void push(struct synth *s, uint32_t pid, uint32_t tid, uint32_t depth, uint32_t id)
{
	api(s, ND_API_RANGE_PUSH, pid, tid, depth)->sem_value = id;
}

static void launch(struct synth *s, uint32_t pid, uint32_t tid, uint32_t exec_id,
		   uint32_t seq)
{
	struct vneuron_trace_record *r = api(s, ND_API_EXEC, pid, tid, 0);

	r->sem_value = exec_id;
	r = api(s, ND_API_WAIT, pid, tid, 0);
	r->sem_value = exec_id;
	r->exec_seq = seq;
}

static const char *const names[] = { "step", "fc1", "fc2", "proc2", NULL };

/* The execution seq's ranges as "a/b/c". */
static const char *stack_of(struct synth *s, uint32_t seq, char *buf, size_t len)
{
	const struct vnp_exec *x = vnp_tl_exec(&s->tl, 0, seq);
	const uint32_t *ids;
	unsigned int n, i;

	buf[0] = 0;
	n = x ? vnp_exec_ranges(&s->tl, x, &ids) : 0;
	for (i = 0; i < n; i++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? "/" : "",
			 vnp_range_name(&s->tl, ids[i]));
	return buf;
}

TEST(executions_are_attributed_to_their_ranges)
{
	struct synth *s = synth_new();
	char b[128];
	uint32_t i;

	s->range_names = names;
	for (i = 0; i < 4; i++)
		exec_at(s, i, 100 * (i + 1), 0, 0);
	/* process 10: thread 1 step/fc1 -> exec 0, step/fc2 -> exec 1; thread 2 none -> 2 */
	push(s, 10, 1, 1, 0);
	push(s, 10, 1, 2, 1);
	push(s, 10, 2, 1, 2);		/* thread 2's own stack ... */
	api(s, ND_API_RANGE_POP, 10, 2, 0);	/* ... closed before its launch */
	launch(s, 10, 1, 100, 0);
	api(s, ND_API_RANGE_POP, 10, 1, 1);
	push(s, 10, 1, 2, 2);
	launch(s, 10, 1, 101, 1);
	launch(s, 10, 2, 102, 2);
	/* process 11 (same tid, another process): proc2 -> exec 3 */
	push(s, 11, 1, 1, 3);
	launch(s, 11, 1, 103, 3);
	/* a pop that does not nest is counted, not applied */
	api(s, ND_API_RANGE_POP, 11, 1, 5);
	AEQ(synth_run(s, 0), 0);
	EXPECT_STREQ(stack_of(s, 0, b, sizeof(b)), "step/fc1");
	EXPECT_STREQ(stack_of(s, 1, b, sizeof(b)), "step/fc2");
	EXPECT_STREQ(stack_of(s, 2, b, sizeof(b)), "");
	EXPECT_STREQ(stack_of(s, 3, b, sizeof(b)), "proc2");
	EQ(s->tl.rg.attributed, 4);
	EQ(s->tl.rg.bad, 1);
	/* innermost (self) and rolled up (all) */
	AEQ(s->m.nranges, 4);
	EQ(s->m.range[1].execs, 1);
	EQ(s->m.range[1].device_ps, 100 * NS);
	EQ(s->m.range[1].self.flops, 1000);
	EQ(s->m.range[2].device_ps, 200 * NS);
	EQ(s->m.range[0].execs, 0);
	EQ(s->m.range[0].all_execs, 2);
	EQ(s->m.range[0].all_device_ps, 300 * NS);
	EQ(s->m.range[0].all.flops, 3000);
	EQ(s->m.range[4].execs, 1);		/* no range */
	EQ(s->m.range[4].device_ps, 300 * NS);
	EQ(s->m.range[3].device_ps, 400 * NS);
	synth_free(s);
}

/*
 * Issue 16's "layer fc1: 41% of device time, memory-bound": a range's executions broken
 * down by the program's layers (scope paths and their prefixes). Execution seq: TensorE 300 ns in scope mlp/fc1, then
 * VectorE 100 ns in mlp/fc2.
 */
static void layered_exec(struct synth *s, uint32_t seq)
{
	size_t first = s->n, i;

	synth_debug(s, 0, synth_insn(s, 0, VNEF_OP_MULTIPLY_MOVING, 0, 300, 1000), "mlp.c", 1,
		    "mlp/fc1");
	synth_debug(s, 1, synth_insn(s, 1, VNEF_OP_TENSOR_TENSOR, 300, 400, 0), "mlp.c", 2,
		    "mlp/fc2");
	synth_exec(s, 0, 400);
	for (i = first; i < s->n; i++)
		s->r[i].exec_seq = seq;
}

TEST(range_device_time_by_layer)
{
	static const char *const rn[] = { "train", "eval", NULL };
	/* span (ns) of each layer in one execution */
	static const struct { const char *name; uint64_t span; uint32_t depth; } lay[] = {
		{ "mlp", 400, 1 }, { "mlp/fc1", 300, 2 }, { "mlp/fc2", 100, 2 },
	};
	struct synth *s = synth_new();
	const struct vnp_range_layer *x;
	char *buf = NULL;
	size_t len = 0;
	struct vnp_view v;
	uint32_t i, k, seen = 0;
	FILE *f;

	s->range_names = rn;
	for (i = 0; i < 3; i++)
		layered_exec(s, i);
	push(s, 10, 1, 1, 0);
	launch(s, 10, 1, 100, 0);
	launch(s, 10, 1, 101, 1);
	api(s, ND_API_RANGE_POP, 10, 1, 0);
	push(s, 10, 1, 1, 1);
	launch(s, 10, 1, 102, 2);
	AEQ(synth_run(s, 0), 0);
	EQ(s->tl.rg.attributed, 3);
	AEQ(s->m.nlayers, 3);
	AEQ(s->m.nrs, 6);
	for (i = 0; i < s->m.nrs; i++) {
		x = &s->m.rs[i];
		ASSERT_LT(x->range, 2u);
		ASSERT_LT(x->layer, s->m.nlayers);
		for (k = 0; k < 3 && strcmp(lay[k].name, s->m.layer[x->layer].name); k++)
			;
		ASSERT_LT(k, 3u);
		EQ(s->m.layer[x->layer].depth, lay[k].depth);
		seen |= 1u << (x->range * 3 + k);
		/* each execution's part, summed over the range's executions */
		EQ(x->g.span_ps, (x->range ? 1 : 2) * lay[k].span * NS);
		EQ(x->g.count, (x->range ? 1 : 2) * (k ? 1 : 2));
		EXPECT_NE((int)s->a.range_scope[i].cls, (int)VNP_CLASS_NONE);
		EQ(vnp_range_layer(&s->m, x->range, x->layer), i);
	}
	EQ(seen, 63);
	EQ(vnp_range_layer(&s->m, 2, 0), VNP_NONE);	/* "no range" ran nothing */
	EQ(s->m.range[0].device_ps, 800 * NS);
	v = (struct vnp_view){ .tl = &s->tl, .m = &s->m, .a = &s->a, .top = 5 };
	f = open_memstream(&buf, &len);
	EQ(vnp_summary_text(f, &v), 0);
	EQ(vnp_summary_json(f, &v), 0);
	fclose(f);
	/* flops in decimal units, not as a size */
	EXPECT_TRUE(strstr(buf, "flop, ") != NULL) TH_LOG("%s", buf);
	EXPECT_TRUE(strstr(buf, "B flops") == NULL) TH_LOG("%s", buf);
	/* a tree: the layer, then its parts the longest first */
	EXPECT_TRUE(strstr(buf, "\n      mlp                          100.0% of its device time "
			   "(800.000 ns), ") != NULL) TH_LOG("%s", buf);
	EXPECT_TRUE(strstr(buf, "\n        fc1                         75.0% of its device time "
			   "(600.000 ns), ") != NULL);
	EXPECT_TRUE(strstr(buf, "\n        fc2                         25.0% of its device time "
			   "(200.000 ns), ") != NULL);
	EXPECT_TRUE(strstr(buf, "(600.000 ns), ") < strstr(buf, "(200.000 ns), "));
	EXPECT_TRUE(strstr(buf, "\"name\":\"train\",") != NULL);
	EXPECT_TRUE(strstr(buf, "\"layers\":[{\"layer\":\"mlp\",\"depth\":1,\"span_ps\":800000,"
			   "\"device_share\":1,\"instr_ps\":800000,\"work_share\":1,") != NULL);
	EXPECT_TRUE(strstr(buf, "{\"layer\":\"mlp/fc1\",\"depth\":2,\"span_ps\":600000,"
			   "\"device_share\":0.75,\"instr_ps\":600000,\"work_share\":0.75,") != NULL);
	/* with -t 1: the top layer only */
	free(buf);
	buf = NULL;
	v.top = 1;
	f = open_memstream(&buf, &len);
	EQ(vnp_summary_text(f, &v), 0);
	fclose(f);
	EXPECT_TRUE(strstr(buf, "      ... and 2 more layers") != NULL);
	EXPECT_TRUE(strstr(buf, "        fc1 ") == NULL);
	free(buf);
	synth_free(s);

	/* no execution attributed: no layers, no pairs */
	s = synth_new();
	layered_exec(s, 0);
	AEQ(synth_run(s, 0), 0);
	EQ(s->m.nrs, 0);
	EQ(s->m.nlayers, 0);
	synth_free(s);
}

/*
 * io_uring's executions have ids of the library's (sem_signal ND_API_URING), in their
 * own space: one equal to an ioctl execution's exec id links to its own EXEC call.
 */
TEST(uring_ids_are_their_own)
{
	struct synth *s = synth_new();
	struct vneuron_trace_record *r;
	char b[128];
	uint32_t i;

	s->range_names = names;
	for (i = 0; i < 2; i++)
		exec_at(s, i, 100, 0, 0);
	push(s, 10, 1, 1, 1);		/* thread 1: fc1, by ioctl, exec id 7 */
	push(s, 10, 2, 1, 2);		/* thread 2: fc2, by io_uring, its id 7 */
	launch(s, 10, 1, 7, 0);
	r = api(s, ND_API_EXEC, 10, 2, 1);
	r->sem_value = 7;
	r->sem_signal = ND_API_URING;
	r = api(s, ND_API_WAIT, 10, 2, 1);
	r->sem_value = 7;
	r->sem_signal = ND_API_URING;
	r->exec_seq = 1;
	AEQ(synth_run(s, 0), 0);
	EQ(s->tl.rg.attributed, 2);
	EXPECT_STREQ(stack_of(s, 0, b, sizeof(b)), "fc1");
	EXPECT_STREQ(stack_of(s, 1, b, sizeof(b)), "fc2");
	synth_free(s);
}

/* Four executions of 10 us each, gap_ns of host time between them, all in "step". */
static struct synth *gappy(uint64_t gap_ns)
{
	struct synth *s = synth_new();
	uint64_t t = 1000000;
	uint32_t i;

	s->range_names = names;
	push(s, 10, 1, 1, 0);
	for (i = 0; i < 4; i++) {
		exec_at(s, i, 10000, t, t + 10000);
		launch(s, 10, 1, 100 + i, i);
		t += 10000 + gap_ns;
	}
	return s;
}

static int has_rule(const struct synth *s, enum vnp_rule r)
{
	unsigned int i;

	for (i = 0; i < s->a.n; i++)
		if (s->a.f[i].rule == r)
			return 1;
	return 0;
}

TEST(launch_gaps_fire_for_an_app_that_sleeps)
{
	struct synth *s = gappy(50000);	/* sleeps 50 us between 10 us executions */
	struct vnp_view v;
	uint64_t held, n;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	AEQ(synth_run(s, 0), 0);
	EQ(vnp_tl_launch_gaps(&s->tl, 0, &held, &n), 150000);
	EQ(n, 3);
	EQ(held, 4 * 10000 + 150000);
	EQ(s->m.range[0].gap_ns, 150000);
	ASSERT_TRUE(has_rule(s, VNP_RULE_HOST_OVERHEAD));
	v = (struct vnp_view){ .tl = &s->tl, .m = &s->m, .a = &s->a, .top = 5 };
	f = open_memstream(&buf, &len);
	EQ(vnp_summary_text(f, &v), 0);
	EQ(vnp_summary_json(f, &v), 0);
	fclose(f);
	EXPECT_TRUE(strstr(buf, "[host-overhead]") != NULL);
	EXPECT_TRUE(strstr(buf, "range \"step\": 150.000 us before 3 executions") != NULL)
		TH_LOG("%s", buf);
	EXPECT_TRUE(strstr(buf, "\"name\":\"step\",\"execs\":4") != NULL);
	free(buf);
	synth_free(s);
}

TEST(no_launch_gap_finding_for_an_app_that_keeps_its_core_busy)
{
	struct synth *s = gappy(500);		/* 0.5 us between 10 us executions */

	AEQ(synth_run(s, 0), 0);
	EXPECT_FALSE(has_rule(s, VNP_RULE_HOST_OVERHEAD));
	synth_free(s);
}

/* An EXEC and its WAIT as libneurondev logs them, from this thread at depth. */
static void log_exec(uint32_t exec_id, uint32_t seq, uint16_t depth)
{
	struct vneuron_trace_record r[2];
	FILE *f = fopen(log_path, "ab");
	unsigned int i;

	memset(r, 0, sizeof(r));
	for (i = 0; i < 2; i++) {
		r[i].kind = VNEURON_TRACE_MARKER;
		r[i].engine = VNEURON_TRACE_ENGINE_CORE;
		r[i].opcode = i ? ND_API_WAIT : ND_API_EXEC;
		r[i].elements = (uint32_t)getpid();
		r[i].model_start_ps = (uint64_t)syscall(SYS_gettid);
		r[i].dma_desc = depth;
		r[i].sem_value = exec_id;
		r[i].exec_seq = i ? seq : 0;
	}
	if (!f || fwrite(r, REC, 2, f) != 2)
		abort();
	fclose(f);
}

TEST(a_captured_profile_attributes_executions)
{
	char path[] = "/tmp/test_ranges_prof.XXXXXX", err[256], b[128];
	struct vntf_clock clk = { .model_unit_ps = 1 };
	struct vntf_worker dev = { .stream = 0, .engine = 0, .nr_workers = 1 };
	struct vntf_worker apiw = { .stream = 64, .engine = VNEURON_TRACE_ENGINE_CORE,
				    .nr_workers = 1 };
	struct vneuron_trace_record r[6];
	struct vnp_profile pf;
	struct vntf_writer *w;
	uint64_t records = 0, skipped = 0;
	const struct vnp_exec *x;
	struct synth *s = synth_new();
	const uint32_t *ids;
	unsigned int i, n;
	FILE *in;
	int fd = mkstemp(path);

	ASSERT_GE(fd, 0);
	close(fd);
	clear_log();
	nd_range_push("step 1");
	nd_range_push("layer fc1");
	log_exec(500, 0, 2);
	nd_range_pop();
	nd_range_push("layer fc2");
	log_exec(501, 1, 2);
	nd_range_pop();
	nd_range_pop();
	/* two executions of core 0: an instruction and their start and end each */
	memset(r, 0, sizeof(r));
	for (i = 0; i < 2; i++) {
		r[3 * i].kind = VNEURON_TRACE_EXEC_START;
		r[3 * i].engine = VNEURON_TRACE_ENGINE_CORE;
		r[3 * i + 1].kind = VNEURON_TRACE_INSN;
		r[3 * i + 1].opcode = VNEF_OP_MULTIPLY_MOVING;
		r[3 * i + 1].model_end_ps = 1000 * (i + 1);
		r[3 * i + 1].flops = 64;
		r[3 * i + 2].kind = VNEURON_TRACE_EXEC_END;
		r[3 * i + 2].engine = VNEURON_TRACE_ENGINE_CORE;
		r[3 * i + 2].model_end_ps = 1000 * (i + 1);
		r[3 * i].exec_seq = r[3 * i + 1].exec_seq = r[3 * i + 2].exec_seq = i;
		r[3 * i].sem_wait = r[3 * i + 1].sem_wait = r[3 * i + 2].sem_wait = NOSEM;
		r[3 * i].sem_signal = r[3 * i + 1].sem_signal = r[3 * i + 2].sem_signal = NOSEM;
	}
	in = fopen(log_path, "rb");
	ASSERT_TRUE(in != NULL);
	ASSERT_EQ(vntf_writer_open(&w, path), 0);
	ASSERT_EQ(vntf_write_model(w, &vn_model_trn1) ?: vntf_write_clock(w, &clk) ?:
		  vntf_write_worker(w, &dev) ?: vntf_write_records(w, 0, r, 6) ?:
		  vnp_api_log_merge(w, in, &apiw, &records, &skipped, NULL) ?:
		  vntf_writer_finish(w, 1), 0);
	fclose(in);
	EQ(skipped, 0);
	/* a program for the reader: synth's, indexed */
	synth_insn(s, 0, VNEF_OP_MULTIPLY_MOVING, 0, 1, 1);
	ASSERT_EQ(synth_run(s, 0), 0);
	ASSERT_EQ(vnp_profile_read(&pf, path, &s->prog, "synthetic", false, err, sizeof(err)),
		  0) TH_LOG("%s", err);
	ASSERT_EQ(vnp_tl_finish(&pf.tl), 0);
	EQ(pf.tl.rg.nnames, 3);
	EQ(pf.tl.rg.attributed, 2);
	for (i = 0; i < 2; i++) {
		x = vnp_tl_exec(&pf.tl, 0, i);
		ASSERT_TRUE(x != NULL);
		n = vnp_exec_ranges(&pf.tl, x, &ids);
		AEQ(n, 2);
		snprintf(b, sizeof(b), "%s/%s", vnp_range_name(&pf.tl, ids[0]),
			 vnp_range_name(&pf.tl, ids[1]));
		EXPECT_STREQ(b, i ? "step 1/layer fc2" : "step 1/layer fc1");
	}
	vnp_profile_free(&pf);
	synth_free(s);
	unlink(path);
}

TEST_HARNESS_MAIN
