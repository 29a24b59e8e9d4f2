// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Multi-node profiles (issue 14): the node section (.vntf section 8) written and read
 * back, a malformed one refused; view's merge of 2 nodes x 2 workers (tabs, Perfetto
 * processes, aligned device and host times, per-node figures, inter/intra-node split);
 * profiles that do not belong together refused; the straggler-node rule on a planted
 * straggler and not otherwise; inter-node-bound.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vnp_nodes_synth.h"
#include "vnprog.h"
#include "run_util.h"
#include "../../profiler/analysis/analyze.h"
#include "../../profiler/model/profile.h"
#include "../../profiler/output/summary.h"

/* The 6.1 harness (and its fixtures) define non-static functions without prototypes. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"

#define EQ(a, b)	EXPECT_EQ((int64_t)(a), (int64_t)(b))
#define AEQ(a, b)	ASSERT_EQ((int64_t)(a), (int64_t)(b))

struct run {
	struct vnef_cc_instr cc[NSYNTH_MAX_CC];
	struct vnp_prog prog;
	struct vnp_profile pf;
	struct vnp_metrics m;
	struct vnp_analysis a;
	char err[512];
};

/* Reads the profiles as view does and analyzes them: 0 or the reader's -errno (err). */
static int load(struct run *x, const char *const *paths, unsigned int n, const struct nsynth *o)
{
	int ret;

	memset(x, 0, sizeof(*x));
	x->prog.ncc = nsynth_cc(o, x->cc);
	x->prog.cc = x->cc;
	x->prog.name = "nodes";
	ret = vnp_prog_index(&x->prog);
	if (ret)
		return ret;
	ret = vnp_profile_read_opts(&x->pf, paths, n, &x->prog, "nodes.vnef", true, false,
				    x->err, sizeof(x->err));
	if (ret)
		return ret;
	ret = vnp_tl_finish(&x->pf.tl) ?: vnp_metrics_compute(&x->pf.tl, 10, &x->m) ?:
	      vnp_analyze(&x->pf.tl, &x->m, &x->a);
	return ret;
}

static void unload(struct run *x)
{
	vnp_analysis_free(&x->a);
	vnp_metrics_free(&x->m);
	vnp_profile_free(&x->pf);
	vnp_prog_free(&x->prog);
}

static const struct vnp_finding *finding(const struct run *x, enum vnp_rule r)
{
	unsigned int i;

	for (i = 0; i < x->a.n; i++)
		if (x->a.f[i].rule == r)
			return &x->a.f[i];
	return NULL;
}

/* An output into a string (free it). */
static char *output(int (*fn)(FILE *, const struct vnp_view *), const struct run *x,
		    size_t *len)
{
	struct vnp_view v = { .tl = &x->pf.tl, .m = &x->m, .a = &x->a, .program_path = "p",
			      .profile_path = "s", .labels = x->pf.labels, .top = 10 };
	char *s = NULL;
	FILE *f = open_memstream(&s, len);

	if (!f || fn(f, &v)) {
		if (f)
			fclose(f);
		free(s);
		return NULL;
	}
	fclose(f);
	return s;
}

static int has(const char *s, size_t len, const char *what)
{
	return memmem(s, len, what, strlen(what)) != NULL;
}

FIXTURE(nodes) {
	char dir[64];
	char path[4][96];
	const char *paths[4];
	struct nsynth o;
	struct run x;
};

FIXTURE_SETUP(nodes)
{
	unsigned int i;

	snprintf(self->dir, sizeof(self->dir), "/tmp/vnp_nodes_XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	for (i = 0; i < 4; i++) {
		snprintf(self->path[i], sizeof(self->path[i]), "%s/n%u.vntf", self->dir, i);
		self->paths[i] = self->path[i];
	}
	self->o = (struct nsynth){ .nr_nodes = 2, .per_node = 2, .colls = 4, .intra = 2,
				   .straggler = ~0u, .hash = 7, .insns = 40 };
}

FIXTURE_TEARDOWN(nodes)
{
	unsigned int i;

	for (i = 0; i < 4; i++)
		unlink(self->path[i]);
	rmdir(self->dir);
}

/* Node n's profile into path[f], with its host clock offset_ns from rank 0's. */
static int node_file(struct __test_metadata *_metadata, FIXTURE_DATA(nodes) *self,
		     unsigned int f, unsigned int n, int64_t offset_ns)
{
	struct nsynth o = self->o;

	o.node = n;
	o.offset_ns = offset_ns;
	EXPECT_EQ(0, nsynth_write(self->path[f], &o));
	return 0;
}

TEST_F(nodes, section_round_trip)
{
	struct vntf_reader *r;
	struct vntf_chunk c;
	const struct vntf_info *in;
	char err[256];

	node_file(_metadata, self, 0, 1, -1500);
	ASSERT_EQ(0, vntf_open_file(&r, self->path[0], err, sizeof(err)));
	while (vntf_next(r, &c) > 0)
		;
	in = vntf_reader_info(r);
	EXPECT_TRUE(in->complete);
	EXPECT_TRUE(in->have_node);
	EQ(in->version_minor, 1);
	EQ(in->node.node, 1);
	EQ(in->node.nr_nodes, 2);
	EQ(in->node.first_rank, 2);
	EQ(in->node.ranks, 2);
	EQ(in->node.world_size, 4);
	EQ(in->node.clock_offset_ns, -1500);
	EQ(in->node.clock_error_ns, 2000);
	EXPECT_STREQ("host1", in->node.hostname);
	vntf_close(r);
}

TEST(node_writer_refuses)
{
	struct vntf_node ok = { .nr_nodes = 2, .ranks = 1, .world_size = 2 }, bad;
	struct vneuron_trace_record rec = { .kind = VNEURON_TRACE_MARKER };
	struct vntf_clock clk = { .model_unit_ps = 1 };
	struct vntf_worker wk = { .nr_workers = 1 };
	struct vntf_writer *w;
	FILE *f = tmpfile();

	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, vntf_writer_create(&w, f));
	bad = ok;
	bad.node = 2;			/* not below the count */
	EXPECT_EQ(-EINVAL, vntf_write_node(w, &bad));
	bad = ok;
	bad.first_rank = 2;		/* past the world */
	EXPECT_EQ(-EINVAL, vntf_write_node(w, &bad));
	bad = ok;
	memset(bad.hostname, 'x', sizeof(bad.hostname));
	EXPECT_EQ(-EINVAL, vntf_write_node(w, &bad));
	EXPECT_EQ(0, vntf_write_node(w, &ok));
	EXPECT_EQ(-EINVAL, vntf_write_node(w, &ok));	/* a second one */
	vntf_writer_abort(w);
	fclose(f);

	/* after records: refused */
	f = tmpfile();
	ASSERT_EQ(0, vntf_writer_create(&w, f));
	ASSERT_EQ(0, vntf_write_model(w, &vn_model_trn1));
	ASSERT_EQ(0, vntf_write_clock(w, &clk));
	ASSERT_EQ(0, vntf_write_worker(w, &wk));
	ASSERT_EQ(0, vntf_write_records(w, 0, &rec, 1));
	EXPECT_EQ(-EINVAL, vntf_write_node(w, &ok));
	vntf_writer_abort(w);
	fclose(f);
}

/* The first node section's payload in a file image, or NULL. */
static struct vntf_node *find_node(uint8_t *b, size_t len)
{
	size_t off = sizeof(struct vntf_file_header);

	while (off + sizeof(struct vntf_section_header) <= len) {
		struct vntf_section_header *h = (void *)(b + off);

		if (h->type == VNTF_SEC_NODE)
			return (void *)(h + 1);
		off += sizeof(*h) + ((h->size + 7) & ~7ull);
	}
	return NULL;
}

TEST_F(nodes, malformed_section_refused)
{
	static const struct { const char *what; int field; } cases[] = {
		{ "node id not below the node count", 0 },
		{ "its ranks do not fit the world size", 1 },
		{ "reserved field set", 2 },
		{ "unterminated hostname", 3 },
	};
	struct vntf_reader *r;
	struct vntf_chunk c;
	char err[256];
	unsigned int i;
	uint8_t *b;
	size_t len;
	FILE *f;
	int ret;

	node_file(_metadata, self, 0, 0, 0);
	f = fopen(self->path[0], "rb");
	ASSERT_NE(NULL, f);
	fseek(f, 0, SEEK_END);
	len = (size_t)ftell(f);
	rewind(f);
	b = malloc(len);
	ASSERT_EQ(len, fread(b, 1, len, f));
	fclose(f);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t *copy = malloc(len);
		struct vntf_node *n;

		memcpy(copy, b, len);
		n = find_node(copy, len);
		ASSERT_NE(NULL, n);
		if (cases[i].field == 0)
			n->node = 9;
		else if (cases[i].field == 1)
			n->ranks = 100;
		else if (cases[i].field == 2)
			n->reserved = 1;
		else
			memset(n->hostname, 'h', sizeof(n->hostname));
		ASSERT_EQ(0, vntf_open_mem(&r, copy, len, err, sizeof(err)));
		while ((ret = vntf_next(r, &c)) > 0)
			;
		EXPECT_EQ(-EINVAL, ret);
		EXPECT_NE(NULL, strstr(vntf_error(r), "(node)"))
			TH_LOG("%s", vntf_error(r));
		EXPECT_NE(NULL, strstr(vntf_error(r), cases[i].what))
			TH_LOG("%s", vntf_error(r));
		vntf_close(r);
		free(copy);
	}
	free(b);
}

TEST_F(nodes, merge_two_by_two)
{
	struct run *x = &self->x;
	const struct vnp_nodes *n;
	char *s;
	size_t len, i;
	uint64_t end0 = 0;

	node_file(_metadata, self, 0, 0, 0);
	node_file(_metadata, self, 1, 1, 5000000);	/* node 1's clock 5 ms ahead */
	ASSERT_EQ(0, load(x, self->paths, 2, &self->o)) TH_LOG("%s", x->err);
	/* tabs: a slot per (node, worker), named so */
	AEQ(x->pf.nslots, 4);
	EXPECT_STREQ("node 0 worker 0 core 0", x->pf.labels[0]);
	EXPECT_STREQ("node 0 worker 1 core 0", x->pf.labels[1]);
	EXPECT_STREQ("node 1 worker 2 core 0", x->pf.labels[2]);
	EXPECT_STREQ("node 1 worker 3 core 0", x->pf.labels[3]);
	EQ(x->pf.tl.nr_nodes, 2);
	EQ(x->pf.tl.core_node[3], 1);
	EQ(x->pf.tl.rank_node[2], 1);
	/* device times on the shared modeled clock: a collective completes at once on all */
	for (i = 0; i < x->pf.tl.n; i++) {
		const struct vnp_ev e_copy = vnp_tl_ev(&x->pf.tl, i), *e = &e_copy;

		if (vnp_ev_is_cc(e) && e->pc == 0) {
			if (!end0)
				end0 = e->end;
			EQ(e->end, end0);
		}
	}
	EXPECT_NE(0, (int64_t)end0);
	/* 4 whole-world collectives + 2 pcs x 2 node groups */
	EQ(x->m.ncoll, 8);
	n = &x->m.nodes;
	EQ(n->nr_nodes, 2);
	EQ(n->seen, 2);
	EQ(n->node[0].cores, 2);
	EQ(n->node[1].cores, 2);
	EQ(n->inter_events, 16);
	EQ(n->intra_events, 8);
	EQ(n->inter_waits, 0);
	EQ(n->inter_ps, 16 * NSYNTH_XFER_NS * 1000);
	EQ(n->intra_ps, 8 * NSYNTH_XFER_NS * 1000);
	EQ(n->node[0].busy_ps, 2 * 6 * NSYNTH_WORK_NS * 1000);
	EQ(n->node[0].inter_ps, 2 * 4 * NSYNTH_XFER_NS * 1000);
	EQ(n->node[1].busy_ps, n->node[0].busy_ps);
	EQ(n->node[0].cc_ps, 2 * 6 * NSYNTH_XFER_NS * 1000);
	/* host events on the measured offsets: the API calls line up on rank 0's clock */
	EXPECT_NE(0, (int64_t)n->node[0].api_first_ns);
	EQ(n->node[1].api_first_ns, n->node[0].api_first_ns);
	EQ(n->node[1].api_error_ns, 2000);
	/* balanced: no straggler node */
	EXPECT_EQ(NULL, finding(x, VNP_RULE_NODE_STRAGGLER));

	s = output(vnp_summary_text, x, &len);
	ASSERT_NE(NULL, s);
	EXPECT_TRUE(has(s, len, "Nodes: 2 of 2 in the profile"));
	EXPECT_TRUE(has(s, len, "communication: inter-node 320.000 us (66.7%, 16 events"))
		TH_LOG("%s", s);
	EXPECT_TRUE(has(s, len, "intra-node 160.000 us (8 events"));
	free(s);
	s = output(vnp_summary_json, x, &len);
	ASSERT_NE(NULL, s);
	EXPECT_TRUE(has(s, len, "\"nodes\":{\"count\":2,\"seen\":2,\"inter_node_ps\":320000000,"
			"\"intra_node_ps\":160000000,")) TH_LOG("%.400s", strstr(s, "\"nodes\"") ?: s);
	EXPECT_TRUE(has(s, len, "{\"node\":1,\"cores\":2,\"busy_ps\":1200000000,"));
	free(s);
	/* Perfetto: a process per node, the workers' rows its threads */
	s = output(vnp_perfetto, x, &len);
	ASSERT_NE(NULL, s);
	EXPECT_TRUE(has(s, len, "node 0"));
	EXPECT_TRUE(has(s, len, "node 1"));
	EXPECT_TRUE(has(s, len, "node 1 worker 3 core 0: TensorE MultiplyMoving"));
	EXPECT_TRUE(has(s, len, "node 0 worker 1 core 0: CC-core"));
	free(s);
	unload(x);
}

TEST_F(nodes, straggler_node)
{
	struct run *x = &self->x;
	const struct vnp_finding *f;

	self->o.straggler = 1;
	self->o.late_ns = 50000;
	node_file(_metadata, self, 0, 0, 0);
	node_file(_metadata, self, 1, 1, 0);
	ASSERT_EQ(0, load(x, self->paths, 2, &self->o)) TH_LOG("%s", x->err);
	/* node 0's two ranks wait 50 us at each of the 4 inter-node collectives */
	EQ(x->m.nodes.inter_waits, 8);
	EQ(x->m.nodes.node[1].last, 8);
	EQ(x->m.nodes.node[0].last, 0);
	EQ(x->m.nodes.node[1].caused_ps, 2 * 4 * 50000 * 1000ull);
	f = finding(x, VNP_RULE_NODE_STRAGGLER);
	ASSERT_NE(NULL, f);
	EXPECT_NE(NULL, strstr(f->title, "Node 1 is the straggler: other nodes' ranks wait "
			       "for it 8 times")) TH_LOG("%s", f->title);
	EXPECT_STREQ("straggler-node", vnp_rule_id(f->rule));
	unload(x);

	/* a straggler too little late: under the threshold */
	self->o.late_ns = 100;
	node_file(_metadata, self, 0, 0, 0);
	node_file(_metadata, self, 1, 1, 0);
	ASSERT_EQ(0, load(x, self->paths, 2, &self->o)) TH_LOG("%s", x->err);
	EQ(x->m.nodes.node[1].last, 8);
	EXPECT_EQ(NULL, finding(x, VNP_RULE_NODE_STRAGGLER));
	unload(x);
}

TEST_F(nodes, inter_node_bound)
{
	struct run *x = &self->x;
	const struct vnp_finding *f;

	/* only whole-world collectives, little compute: communication crosses nodes */
	self->o.intra = 0;
	node_file(_metadata, self, 0, 0, 0);
	node_file(_metadata, self, 1, 1, 0);
	ASSERT_EQ(0, load(x, self->paths, 2, &self->o)) TH_LOG("%s", x->err);
	f = finding(x, VNP_RULE_INTER_NODE_BOUND);
	ASSERT_NE(NULL, f);
	EXPECT_NE(NULL, strstr(f->title, "100.0% of the communication time"))
		TH_LOG("%s", f->title);
	unload(x);

	/* only intra-node collectives: not inter-node-bound */
	self->o.colls = 0;
	self->o.intra = 4;
	node_file(_metadata, self, 0, 0, 0);
	node_file(_metadata, self, 1, 1, 0);
	ASSERT_EQ(0, load(x, self->paths, 2, &self->o)) TH_LOG("%s", x->err);
	EQ(x->m.nodes.inter_events, 0);
	EXPECT_EQ(NULL, finding(x, VNP_RULE_INTER_NODE_BOUND));
	unload(x);
}

/* The streaming pass gives the timeline's node figures (more workers than 64 use it). */
TEST_F(nodes, streaming_scan_matches)
{
	struct run *x = &self->x;
	struct vnp_nodes *n = calloc(1, sizeof(*n));
	struct nsynth o = self->o;
	uint64_t core_ps = 0;
	char err[512];
	unsigned int k;

	ASSERT_NE(NULL, n);
	self->o.straggler = 1;
	self->o.late_ns = 50000;
	node_file(_metadata, self, 0, 0, 0);
	node_file(_metadata, self, 1, 1, 3000000);
	ASSERT_EQ(0, load(x, self->paths, 2, &self->o)) TH_LOG("%s", x->err);
	ASSERT_EQ(0, vnp_nodes_scan(self->paths, 2, &x->prog, "nodes.vnef", true, n, &core_ps,
				    err, sizeof(err))) TH_LOG("%s", err);
	EQ(n->nr_nodes, 2);
	EQ(n->seen, 2);
	EQ(n->inter_ps, x->m.nodes.inter_ps);
	EQ(n->intra_ps, x->m.nodes.intra_ps);
	EQ(n->inter_xfer_ps, x->m.nodes.inter_xfer_ps);
	EQ(n->inter_events, x->m.nodes.inter_events);
	EQ(n->intra_events, x->m.nodes.intra_events);
	EQ(n->inter_waits, x->m.nodes.inter_waits);
	for (k = 0; k < 2; k++) {
		EQ(n->node[k].cores, x->m.nodes.node[k].cores);
		EQ(n->node[k].busy_ps, x->m.nodes.node[k].busy_ps);
		EQ(n->node[k].cc_ps, x->m.nodes.node[k].cc_ps);
		EQ(n->node[k].cc_wait_ps, x->m.nodes.node[k].cc_wait_ps);
		EQ(n->node[k].last, x->m.nodes.node[k].last);
		EQ(n->node[k].caused_ps, x->m.nodes.node[k].caused_ps);
		EQ(n->node[k].api_first_ns, x->m.nodes.node[k].api_first_ns);
	}
	EQ(core_ps, x->m.core_ps);
	EQ(vnp_nodes_straggler(n, core_ps), 1);
	unload(x);

	/* a file without a node section: refused before any record is read */
	o.node = 1;
	o.no_node = 1;
	ASSERT_EQ(0, nsynth_write(self->path[1], &o));
	EXPECT_EQ(-EINVAL, vnp_nodes_scan(self->paths, 2, NULL, "nodes.vnef", false, n,
					  &core_ps, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "n1.vntf has no node section")) TH_LOG("%s", err);
	free(n);
}

TEST_F(nodes, refusals)
{
	struct run *x = &self->x;
	struct nsynth o = self->o;

	/* another program's profile */
	node_file(_metadata, self, 0, 0, 0);
	o.node = 1;
	o.hash = 8;
	ASSERT_EQ(0, nsynth_write(self->path[1], &o));
	EXPECT_EQ(-EINVAL, load(x, self->paths, 2, &self->o));
	EXPECT_NE(NULL, strstr(x->err, "are not profiles of one run: captured with program"))
		TH_LOG("%s", x->err);

	/* the same node (its ranks) twice */
	node_file(_metadata, self, 1, 0, 0);
	EXPECT_EQ(-EINVAL, load(x, self->paths, 2, &self->o));
	EXPECT_NE(NULL, strstr(x->err, "both hold rank 0")) TH_LOG("%s", x->err);

	/* one without a node section */
	o = self->o;
	o.node = 1;
	o.no_node = 1;
	ASSERT_EQ(0, nsynth_write(self->path[1], &o));
	EXPECT_EQ(-EINVAL, load(x, self->paths, 2, &self->o));
	EXPECT_NE(NULL, strstr(x->err, "n1.vntf has no node section but"))
		TH_LOG("%s", x->err);

	/* node counts that disagree */
	o = self->o;
	o.node = 1;
	o.nr_nodes = 3;
	ASSERT_EQ(0, nsynth_write(self->path[1], &o));
	EXPECT_EQ(-EINVAL, load(x, self->paths, 2, &self->o));
	EXPECT_NE(NULL, strstr(x->err, "2 nodes of 4 ranks in all against 3 nodes of 6"))
		TH_LOG("%s", x->err);
	vnp_prog_free(&x->prog);
}

#define PROFILER "build/bin/vneuron-profile"

/* A small program's .vnef at path (view -n needs one; -q: not the profiles' own). */
static int write_vnef(const char *path)
{
	uint64_t shape[2] = { 128, 4 };
	struct nd_builder *b;
	struct nd_tensor *in, *out;
	struct nd_tile *t;
	void *img = NULL;
	size_t size = 0;
	FILE *f;
	int ret;

	if (nd_builder_new("p", &b))
		return -ENOMEM;
	in = nd_input(b, "x", ND_FP32, 2, shape);
	out = nd_output(b, "y", ND_FP32, 2, shape);
	t = nd_sbuf(b, "t", ND_FP32, 128, 4);
	nd_load(b, 0, nd_whole(t), nd_hbm_rows(in, 0, 0));
	nd_store(b, 1, nd_hbm_rows(out, 0, 0), nd_whole(t));
	ret = nd_builder_finish(b, &img, &size);
	nd_builder_free(b);
	if (ret)
		return ret;
	f = fopen(path, "wb");
	ret = f && fwrite(img, 1, size, f) == size ? 0 : -EIO;
	if (f)
		fclose(f);
	free(img);
	return ret;
}

/* The command's output (stdout and stderr) into out; its exit status. */
static int run_cmd(const char *sub, const char *args, char *out, size_t len)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), PROFILER " %s %s", sub, args);
	return run_out(cmd, out, len);
}

static int run_view(const char *args, char *out, size_t len)
{
	return run_cmd("view", args, out, len);
}

/* capture's --node and --clock-offset: bad values named before any device is opened. */
TEST(capture_node_options)
{
	static const struct { const char *args, *want; } cases[] = {
		{ "--node 2/2", "--node '2/2': give ID/COUNT" },
		{ "--node 1", "--node '1': give ID/COUNT" },
		{ "--node 0/0", "give ID/COUNT" },
		{ "--node 0/2 --clock-offset 12x", "--clock-offset '12x': give NS or NS+-ERR" },
		{ "--node 0/2 --clock-offset 5+-", "--clock-offset '5+-'" },
		{ "--clock-offset 5", "--clock-offset goes with --node" },
		{ "--node 0/33 --collectives-worker-count 2", "is 66 ranks; a communicator has "
		  "at most 64" },
	};
	char out[4096], args[256];
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(args, sizeof(args), "-n /nonexistent.vnef -s /tmp/vnp_never.vntf %s",
			 cases[i].args);
		EXPECT_EQ(2, run_cmd("capture", args, out, sizeof(out))) TH_LOG("%s", out);
		EXPECT_NE(NULL, strstr(out, cases[i].want)) TH_LOG("%s: %s", cases[i].args, out);
	}
}

/* The profiles of a directory of nodes (nodes x 2 workers each). */
static void write_nodes(struct __test_metadata *_metadata, const char *dir, struct nsynth *o)
{
	char path[128];
	unsigned int i;

	snprintf(path, sizeof(path), "%s/p.vnef.bin", dir);
	ASSERT_EQ(0, write_vnef(path));
	for (i = 0; i < o->nr_nodes; i++) {
		o->node = i;
		o->offset_ns = (int64_t)i * 1000000;
		snprintf(path, sizeof(path), "%s/n%u.vntf", dir, i);
		ASSERT_EQ(0, nsynth_write(path, o));
	}
}

static void remove_nodes(const char *dir, const struct nsynth *o)
{
	char path[128];
	unsigned int i;

	for (i = 0; i < o->nr_nodes; i++) {
		snprintf(path, sizeof(path), "%s/n%u.vntf", dir, i);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/p.vnef.bin", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/x.json", dir);
	unlink(path);
	rmdir(dir);
}

/*
 * view -s DIR on 9 nodes x 2 workers, with a merged timeline above --memory-limit: the
 * node summary from the streaming pass, with the planted straggler; other formats
 * refused, saying why.
 */
TEST(view_streamed_directory)
{
	char dir[] = "/tmp/vnp_nodes_cli_XXXXXX", args[512], *out;
	struct nsynth o = { .nr_nodes = 9, .per_node = 2, .colls = 4, .intra = 2,
			    .straggler = 1, .late_ns = 50000, .hash = 7, .insns = 40 };

	out = malloc(65536);
	ASSERT_NE(NULL, out);
	ASSERT_NE(NULL, mkdtemp(dir));
	write_nodes(_metadata, dir, &o);
	snprintf(args, sizeof(args), "-q -n %s/p.vnef.bin -s %s --memory-limit 1K", dir, dir);
	EXPECT_EQ(0, run_view(args, out, 65536)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "9 profiles (node figures from a streaming pass"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "Nodes: 9 of 9 in the profile"));
	EXPECT_NE(NULL, strstr(out, "straggler node: 1 (other nodes' ranks waited for it 64 "
			       "times")) TH_LOG("%s", out);
	/* every node's API call at the same instant of rank 0's clock */
	EXPECT_NE(NULL, strstr(out, "  8         2 ")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "+1.000..")) TH_LOG("%s", out);
	snprintf(args, sizeof(args), "-q -n %s/p.vnef.bin -s %s --memory-limit 1K -f json "
		 "-o %s/x.json", dir, dir, dir);
	EXPECT_EQ(2, run_view(args, out, 65536));
	EXPECT_NE(NULL, strstr(out, "more than --memory-limit (0.0 MiB): raise it"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "only the node summary (--output-format summary-text)"))
		TH_LOG("%s", out);
	remove_nodes(dir, &o);
	free(out);
}

/*
 * 18 workers (more than the 16 an earlier timeline held) within the memory limit: the
 * whole merged view, every format, the same node figures as the streaming pass.
 */
TEST(view_merged_eighteen_workers)
{
	char dir[] = "/tmp/vnp_nodes_cli_XXXXXX", args[512], *out;
	struct nsynth o = { .nr_nodes = 9, .per_node = 2, .colls = 4, .intra = 2,
			    .straggler = 1, .late_ns = 50000, .hash = 7, .insns = 40 };

	out = malloc(1 << 20);
	ASSERT_NE(NULL, out);
	ASSERT_NE(NULL, mkdtemp(dir));
	write_nodes(_metadata, dir, &o);
	snprintf(args, sizeof(args), "-q -n %s/p.vnef.bin -s %s", dir, dir);
	EXPECT_EQ(0, run_view(args, out, 1 << 20)) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "streaming pass")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "18 cores, 18 execs")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "Nodes: 9 of 9 in the profile")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "[straggler-node] Node 1 is the straggler: other nodes' "
			       "ranks wait for it\n     64 times")) TH_LOG("%s", out);
	snprintf(args, sizeof(args), "-q -n %s/p.vnef.bin -s %s -f json -o %s/x.json", dir,
		 dir, dir);
	EXPECT_EQ(0, run_view(args, out, 1 << 20)) TH_LOG("%s", out);
	remove_nodes(dir, &o);
	free(out);
}

/* --memory-limit's values; a profile without node sections above it is refused. */
TEST(memory_limit_option)
{
	static const char *const bad[] = { "0", "x", "-1", "1T", "" };
	char args[256], out[4096];
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(args, sizeof(args), "-n a.vnef -s a.vntf --memory-limit '%s'", bad[i]);
		EXPECT_EQ(2, run_view(args, out, sizeof(out))) TH_LOG("%s", bad[i]);
		EXPECT_NE(NULL, strstr(out, "--memory-limit needs a size")) TH_LOG("%s", out);
	}
}

TEST_HARNESS_MAIN
