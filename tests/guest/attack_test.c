// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The attacker's questions of issue 25, each made as an attack in the guest, with the
 * refusal or the fault it must get (docs/security.md, "The attacker's questions"); on
 * the debug kernel KASAN, lockdep and kmemleak watch every one. Here:
 *
 * 1. collectives: a rank (another user, trusted with the id) whose collective disagrees
 *    with its peer's in count, opcode, dtype, reduction, shift or group geometry, or
 *    whose group outgrows its own tensors, or that works in place, on one device or
 *    two: the peer's buffers outside its tensors, and its output, stay untouched;
 * 4. pooled executions reused by another user (per core) or another process (per file):
 *    nothing of the previous one's left;
 * 6. a communicator's id: in no reply, event, file of /proc, sysfs or debugfs, or the
 *    kernel log, and no id one bit off is accepted.
 *
 * 2, 3 are in attack_netq_test.c, 5 in attack_genl_test.c; this file runs after them
 * (tools/guest-tests runs them in name order), so zz_drained checks all three.
 */
#include "attack_util.h"

/* ---- 1. collectives ---- */

struct rank_res {
	int err;			/* -errno of a step, 0 if it ran */
	int step;
	uint32_t status, reason, stream;
	bool out_untouched;		/* its output is still all OUT_FILL */
	bool canary_ok;			/* its other buffer still all CANARY_FILL */
	float x[COUNT];			/* the first elements of its output */
};

/* One rank, in a child: as uid, on device dev, core core. */
static void rank_child(const uint8_t *id, uid_t uid, int dev, uint32_t rank, uint32_t core,
		       const struct cc_spec *s, struct rank_res *r)
{
	uint64_t inb = s->nin * dt_bytes(s->dt), outb = s->nout * dt_bytes(s->dt), i, eid;
	uint8_t *in = malloc(inb + 1), *out = malloc(outb), *can = malloc(CANARY);
	uint32_t prog, h[2], hc;
	struct vneuron_wait w;
	size_t size;
	void *img;
	int fd, ret;

#define STEP(n, expr) do { r->step = (n); ret = (expr); if (ret < 0) { r->err = ret; _exit(0); } } while (0)
	if (!in || !out || !can)
		_exit(1);
	STEP(1, uid ? party_drop(uid) : 0);
	fd = open_dev(dev, O_RDWR);
	STEP(2, fd < 0 ? -errno : 0);
	STEP(3, cc_spec_image(s, &img, &size) ? -EINVAL : 0);
	STEP(4, comm_join(fd, id, rank, core, NULL));
	STEP(5, vn_prog_load(fd, img, size, &prog, NULL));
	for (i = 0; i < inb; i++)
		in[i] = (uint8_t)(rank * 16 + (i % 7));
	if (s->dt == ND_FP32)
		for (i = 0; i < s->nin; i++)
			((float *)in)[i] = (float)(rank + 1) + (float)(i % 13);
	memset(out, OUT_FILL, outb);
	memset(can, CANARY_FILL, CANARY);
	if (s->inplace) {
		for (i = 0; i < s->nout; i++)
			((float *)out)[i] = (float)(rank + 1) + (float)(i % 13);
		STEP(6, vn_alloc(fd, outb, NULL));
		h[0] = ret;
		STEP(7, vn_rw(fd, 1, h[0], 0, out, outb));
	} else {
		STEP(6, vn_alloc(fd, inb, NULL));
		h[0] = ret;
		STEP(7, vn_alloc(fd, outb, NULL));
		h[1] = ret;
		STEP(8, vn_rw(fd, 1, h[0], 0, in, inb));
		STEP(9, vn_rw(fd, 1, h[1], 0, out, outb));
	}
	STEP(10, vn_alloc(fd, CANARY, NULL));
	hc = ret;
	STEP(11, vn_rw(fd, 1, hc, 0, can, CANARY));
	STEP(12, vn_exec_on(fd, prog, core, h, s->inplace ? 1 : 2, 20 * SEC, &eid));
	STEP(13, vn_wait_for(fd, eid, VNEURON_WAIT_FOREVER, &w));
	r->status = w.status;
	r->reason = w.reason;
	r->stream = w.stream;
	STEP(14, vn_rw(fd, 0, s->inplace ? h[0] : h[1], 0, out, outb));
	STEP(15, vn_rw(fd, 0, hc, 0, can, CANARY));
	r->out_untouched = all_bytes(out, outb, OUT_FILL);
	r->canary_ok = all_bytes(can, CANARY, CANARY_FILL);
	if (s->dt == ND_FP32)
		memcpy(r->x, out, (s->nout < COUNT ? s->nout : COUNT) * 4);
	r->step = 0;
	close(fd);
	_exit(0);
#undef STEP
}

/*
 * A communicator of two ranks: rank 0 the attacker (UID_A) running a on core 1 of
 * device dev_a, rank 1 the victim (UID_B) running v on core 0 of device dev_v. (The
 * attacker's faults stay off core 0, whose fault count telemetry_tools_test expects 0.)
 */
static int run_pair(const struct cc_spec *a, int dev_a, const struct cc_spec *v, int dev_v,
		    struct rank_res *res)
{
	uint8_t *id = shared(ID_BYTES);
	int fd = open_dev(0, O_RDWR), ret;
	pid_t pa, pv;

	if (!id || fd < 0)
		return -ENOMEM;
	ret = comm_create(fd, 2, id, NULL);
	if (ret)
		return ret;
	memset(res, 0, 2 * sizeof(*res));
	pa = fork();
	if (!pa)
		rank_child(id, UID_A, dev_a, 0, 1, a, &res[0]);
	pv = fork();
	if (!pv)
		rank_child(id, UID_B, dev_v, 1, 0, v, &res[1]);
	ret = wait_exit(pa) | wait_exit(pv);
	close(fd);
	munmap(id, ID_BYTES);
	return ret ? -ECHILD : 0;
}

static const struct {
	const char *what;
	struct cc_spec a, v;
	bool a_alone;			/* the attacker's group is itself alone: it runs */
} mismatches[] = {
	{ "a larger count", AR(64 * COUNT), AR(COUNT), false },
	{ "another opcode (all-gather into the victim's all-reduce)",
	  { VNEF_CC_ALL_GATHER, ND_FP32, COUNT, ND_ADD, 0, 0, 0, COUNT, 2 * COUNT, false },
	  AR(COUNT), false },
	{ "another dtype",
	  { VNEF_CC_ALL_REDUCE, ND_BF16, COUNT, ND_ADD, 0, 0, 0, COUNT, COUNT, false },
	  AR(COUNT), false },
	{ "another reduction",
	  { VNEF_CC_ALL_REDUCE, ND_FP32, COUNT, ND_MAX, 0, 0, 0, COUNT, COUNT, false },
	  AR(COUNT), false },
	{ "another permute shift",
	  { VNEF_CC_PERMUTE, ND_FP32, COUNT, ND_ADD, 0, 0, 1, COUNT, COUNT, false },
	  { VNEF_CC_PERMUTE, ND_FP32, COUNT, ND_ADD, 0, 0, 0, COUNT, COUNT, false }, false },
	{ "a permute shift past the communicator (the same one modulo 2)",
	  { VNEF_CC_PERMUTE, ND_FP32, COUNT, ND_ADD, 0, 0, 63, COUNT, COUNT, false },
	  { VNEF_CC_PERMUTE, ND_FP32, COUNT, ND_ADD, 0, 0, 1, COUNT, COUNT, false }, false },
	{ "a group that does not fit the communicator",
	  { VNEF_CC_ALL_REDUCE, ND_FP32, COUNT, ND_ADD, 2, 2, 0, COUNT, COUNT, false },
	  AR(COUNT), false },
	{ "another group geometry (the attacker in a group of its own)",
	  { VNEF_CC_ALL_REDUCE, ND_FP32, COUNT, ND_ADD, 1, 1, 0, COUNT, COUNT, false },
	  AR(COUNT), true },
};

static void expect_untouched(struct __test_metadata *_metadata, const char *what,
			     const struct rank_res *r, bool out_too, bool a_alone)
{
	EXPECT_EQ(0, r[1].err) TH_LOG("%s: the victim's step %d: %s", what, r[1].step,
				      strerror(-r[1].err));
	EXPECT_NE(VNEURON_EXEC_OK, r[1].status) TH_LOG("%s: the victim's collective ran", what);
	if (out_too)
		EXPECT_TRUE(r[1].out_untouched) TH_LOG("%s: the victim's output was written",
						       what);
	EXPECT_TRUE(r[1].canary_ok) TH_LOG("%s: the victim's other buffer changed", what);
	EXPECT_TRUE(a_alone || r[0].err || r[0].status != VNEURON_EXEC_OK)
		TH_LOG("%s: the attacker's collective ran", what);
	EXPECT_TRUE(r[0].err || r[0].canary_ok) TH_LOG("%s", what);
}

/*
 * Question 1: a rank disagreeing with its peer's collective (count, opcode, dtype,
 * reduction, shift, group geometry) moves nothing: ERROR CC_MISMATCH, or ABORTED
 * CC_PEER once the communicator broke; the peer's output and other buffers untouched.
 */
TEST_F_TIMEOUT(atk, cc_mismatch_moves_nothing, 600)
{
	struct rank_res *r = shared(2 * sizeof(*r));
	unsigned int k;

	ASSERT_NE(NULL, r);
	for (k = 0; k < sizeof(mismatches) / sizeof(mismatches[0]); k++) {
		ASSERT_EQ(0, run_pair(&mismatches[k].a, 0, &mismatches[k].v, 0, r))
			TH_LOG("%s", mismatches[k].what);
		expect_untouched(_metadata, mismatches[k].what, r, true, mismatches[k].a_alone);
		EXPECT_TRUE(r[1].status == VNEURON_EXEC_ERROR ||
			    r[1].status == VNEURON_EXEC_ABORTED)
			TH_LOG("%s: status %u reason %u", mismatches[k].what, r[1].status,
			       r[1].reason);
		if (r[1].status == VNEURON_EXEC_ERROR)
			EXPECT_EQ(VNEURON_REASON_CC_MISMATCH, r[1].reason);
	}
	EXPECT_TRUE(drained());
}

/*
 * Question 1, group geometry and counts: a collective of every rank whose output (or
 * input) holds one rank's share but not the group's faults on that rank (FAULT_HBM on
 * the CC stream), before any byte moves; the peer, whose tensors fit, is not written.
 */
TEST_F_TIMEOUT(atk, cc_group_outgrows_tensors, 300)
{
	struct rank_res *r = shared(2 * sizeof(*r));
	const struct cc_spec small[] = {
		{ VNEF_CC_ALL_GATHER, ND_FP32, COUNT, ND_ADD, 0, 0, 0, COUNT, COUNT, false },
		{ VNEF_CC_REDUCE_SCATTER, ND_FP32, COUNT, ND_ADD, 0, 0, 0, COUNT, COUNT, false },
		{ VNEF_CC_ALL_TO_ALL, ND_FP32, COUNT, ND_ADD, 0, 0, 0, COUNT, COUNT, false },
	};
	const struct cc_spec fits[] = {
		{ VNEF_CC_ALL_GATHER, ND_FP32, COUNT, ND_ADD, 0, 0, 0, COUNT, 2 * COUNT, false },
		{ VNEF_CC_REDUCE_SCATTER, ND_FP32, COUNT, ND_ADD, 0, 0, 0, 2 * COUNT, COUNT, false },
		{ VNEF_CC_ALL_TO_ALL, ND_FP32, COUNT, ND_ADD, 0, 0, 0, 2 * COUNT, 2 * COUNT, false },
	};
	unsigned int k;

	ASSERT_NE(NULL, r);
	for (k = 0; k < 3; k++) {
		ASSERT_EQ(0, run_pair(&small[k], 0, &fits[k], 0, r));
		EXPECT_EQ(0, r[0].err) TH_LOG("op %u: step %d %s", small[k].opcode, r[0].step,
					      strerror(-r[0].err));
		EXPECT_EQ(VNEURON_EXEC_FAULT, r[0].status) TH_LOG("op %u", small[k].opcode);
		EXPECT_EQ(VNEURON_REASON_FAULT_HBM, r[0].reason);
		EXPECT_EQ(VNEURON_STREAM_CC, r[0].stream);
		EXPECT_TRUE(r[0].out_untouched) TH_LOG("op %u: the faulting rank's output",
						       small[k].opcode);
		expect_untouched(_metadata, "a group outgrowing its tensors", r, true, false);
	}
	EXPECT_TRUE(drained());
}

/* Question 1, in place: an all-reduce on one tensor is exact and writes nothing else. */
TEST_F_TIMEOUT(atk, cc_in_place, 300)
{
	struct rank_res *r = shared(2 * sizeof(*r));
	const struct cc_spec s = {
		VNEF_CC_ALL_REDUCE, ND_FP32, COUNT, ND_ADD, 0, 0, 0, COUNT, COUNT, true,
	};
	unsigned int i, bad = 0;

	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, run_pair(&s, 0, &s, 0, r));
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(0, r[i].err) TH_LOG("rank %u step %d", i, r[i].step);
		EXPECT_EQ(VNEURON_EXEC_OK, r[i].status) TH_LOG("rank %u reason %u", i, r[i].reason);
		EXPECT_TRUE(r[i].canary_ok);
	}
	for (i = 0; i < COUNT; i++)
		bad += r[0].x[i] != 3.0f + 2.0f * (float)(i % 13) || r[1].x[i] != r[0].x[i];
	EXPECT_EQ(0, bad);
	EXPECT_TRUE(drained());
}

/* Question 1, ranks on two devices: the same refusals across /dev/vneuron0 and 1. */
TEST_F_TIMEOUT(atk, cc_two_devices, 600)
{
	struct rank_res *r = shared(2 * sizeof(*r));
	const struct cc_spec s = {
		VNEF_CC_ALL_REDUCE, ND_FP32, COUNT, ND_ADD, 0, 0, 0, COUNT, COUNT, true,
	};
	unsigned int k;

	ASSERT_NE(NULL, r);
	if (!have_device(1))
		SKIP(return, "needs /dev/vneuron1 (devices=2)");
	for (k = 0; k < 3; k++) {
		ASSERT_EQ(0, run_pair(&mismatches[k].a, 0, &mismatches[k].v, 1, r));
		expect_untouched(_metadata, mismatches[k].what, r, true, false);
	}
	ASSERT_EQ(0, run_pair(&s, 0, &s, 1, r));
	EXPECT_EQ(VNEURON_EXEC_OK, r[0].status);
	EXPECT_EQ(VNEURON_EXEC_OK, r[1].status);
	EXPECT_EQ(3.0f, r[1].x[0]);
	EXPECT_TRUE(r[1].canary_ok);
	EXPECT_TRUE(drained());
}

/* ---- 4. pooled executions ---- */

#define PART		128
#define FREE		256

/* dirty: "in" -> SBUF -> core-provided scratch "s"; peek: scratch "s" -> SBUF -> "out". */
static int pool_image(bool dirty, void **img, size_t *size)
{
	uint64_t shape[2] = { PART, FREE };
	struct nd_tensor *io, *s;
	struct nd_builder *b;
	struct nd_tile *t;
	int ret;

	if (nd_builder_new(dirty ? "dirty" : "peek", &b))
		return -1;
	io = dirty ? nd_input(b, "in", ND_FP32, 2, shape) : nd_output(b, "out", ND_FP32, 2, shape);
	s = nd_scratch(b, "s", ND_FP32, 2, shape);
	t = nd_sbuf(b, "t", ND_FP32, PART, FREE);
	if (dirty) {
		nd_load(b, 0, nd_whole(t), nd_hbm_rows(io, 0, 0));
		nd_store(b, 1, nd_hbm_rows(s, 0, 0), nd_whole(t));
	} else {
		nd_load(b, 0, nd_whole(t), nd_hbm_rows(s, 0, 0));
		nd_store(b, 1, nd_hbm_rows(io, 0, 0), nd_whole(t));
	}
	ret = nd_builder_finish(b, img, size);
	if (ret)
		fprintf(stderr, "# builder: %s\n", nd_builder_error(b));
	nd_builder_free(b);
	return ret;
}

/* n dirty executions on core of fd (spares for the pools). 0 or -errno. */
static int run_dirty(int fd, uint32_t core, int n)
{
	float *in = malloc(PART * FREE * 4);
	uint32_t prog, h[2] = { 0, 0 };
	struct vneuron_wait w;
	size_t size;
	void *img;
	int ret, i;

	if (!in || pool_image(true, &img, &size))
		return -ENOMEM;
	for (i = 0; i < PART * FREE; i++)
		in[i] = 1.0f + (float)i;
	ret = vn_prog_load(fd, img, size, &prog, NULL);
	free(img);
	if (!ret)
		ret = vn_alloc(fd, PART * FREE * 4, NULL);
	if (ret >= 0) {
		h[0] = ret;
		ret = vn_rw(fd, 1, h[0], 0, in, PART * FREE * 4);
	}
	for (i = 0; i < n && !ret; i++) {
		ret = vn_run_on(fd, prog, core, h, 2, &w);
		if (!ret && w.status != VNEURON_EXEC_OK)
			ret = -EIO;
	}
	free(in);
	return ret;
}

/* A peek on core of fd: 1 if its output (a copy of fresh scratch) is all zero. */
static int run_peek(int fd, uint32_t core)
{
	float *out = malloc(PART * FREE * 4);
	uint32_t prog, h[2] = { 0, 0 };
	struct vneuron_wait w;
	size_t size;
	void *img;
	int ret;

	if (!out || pool_image(false, &img, &size))
		return -ENOMEM;
	ret = vn_prog_load(fd, img, size, &prog, NULL);
	free(img);
	if (!ret)
		ret = vn_alloc(fd, PART * FREE * 4, NULL);
	if (ret >= 0) {
		h[0] = ret;
		memset(out, 0xee, PART * FREE * 4);
		ret = vn_rw(fd, 1, h[0], 0, out, PART * FREE * 4);
	}
	if (!ret)
		ret = vn_run_on(fd, prog, core, h, 2, &w);
	if (!ret && w.status != VNEURON_EXEC_OK)
		ret = -EIO;
	if (!ret)
		ret = vn_rw(fd, 0, h[0], 0, out, PART * FREE * 4);
	if (!ret)
		ret = all_bytes(out, PART * FREE * 4, 0);
	free(out);
	return ret;
}

/*
 * Question 4: the core's pool of spare executions (kept alive across owners here by
 * root's trace session on the core) and a file's own spares: user A fills them with
 * executions (66: more than a pool keeps) that leave data in their scratch and semaphore
 * tables; user B then claims the core and reads its fresh scratch: zero; and a
 * root-opened file's spares reused by the nobody it was handed to: zero too.
 */
TEST_F_TIMEOUT(atk, pooled_executions_keep_nothing, 600)
{
	struct vneuron_trace_start ts = { .core = 0, .ring_size = 4096 };
	int tfd = vn_open(), fd, *res = shared(sizeof(int) * 4);
	pid_t p;

	ASSERT_NE(NULL, res);
	ASSERT_LE(0, tfd);
	ASSERT_EQ(0, vn_ioctl(tfd, VNEURON_IOCTL_TRACE_START, &ts));
	p = fork();
	ASSERT_LE(0, p);
	if (!p) {
		fd = -1;
		res[0] = party_drop(UID_A);
		if (!res[0]) {
			fd = vn_open();
			res[0] = fd < 0 ? -errno : run_dirty(fd, 0, 66);
		}
		_exit(0);
	}
	ASSERT_EQ(0, wait_exit(p));
	EXPECT_EQ(0, res[0]) TH_LOG("user A: %s", strerror(-res[0]));
	p = fork();
	ASSERT_LE(0, p);
	if (!p) {
		res[1] = party_drop(UID_B);
		if (!res[1]) {
			fd = vn_open();
			res[1] = fd < 0 ? -errno : run_peek(fd, 0);
		}
		_exit(0);
	}
	ASSERT_EQ(0, wait_exit(p));
	EXPECT_EQ(1, res[1]) TH_LOG("user B saw user A's scratch (%d)", res[1]);

	/* A file's spares: root's, then the nobody it hands the file to. */
	fd = vn_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, run_dirty(fd, 1, 66));
	p = fork();
	ASSERT_LE(0, p);
	if (!p) {
		res[2] = party_drop(NOBODY);
		if (!res[2])
			res[2] = run_peek(fd, 1);
		_exit(0);
	}
	ASSERT_EQ(0, wait_exit(p));
	EXPECT_EQ(1, res[2]) TH_LOG("nobody saw root's scratch (%d)", res[2]);
	close(fd);
	close(tfd);
	EXPECT_TRUE(drained());
}

/* ---- 6. the communicator's id ---- */

static bool contains(const uint8_t *hay, size_t n, const uint8_t *needle, size_t k)
{
	size_t i;

	for (i = 0; i + k <= n; i++)
		if (!memcmp(hay + i, needle, k))
			return true;
	return false;
}

/* The id found in the file at path, as bytes or in hex: 1, 0 not, -1 unreadable. */
static int file_has(const char *path, const uint8_t *id, const char *hex)
{
	static uint8_t buf[1 << 20];
	ssize_t n, total = 0;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while (total < (ssize_t)sizeof(buf) &&
	       (n = read(fd, buf + total, sizeof(buf) - total)) > 0)
		total += n;
	close(fd);
	return contains(buf, total, id, ID_BYTES) ||
	       contains(buf, total, (const uint8_t *)hex, 2 * ID_BYTES) ||
	       contains(buf, total, (const uint8_t *)hex + 8, 16);
}

/* Every file below dir (depth-limited), the count of those holding the id. */
static int tree_has(const char *dir, const uint8_t *id, const char *hex, int depth)
{
	char path[512];
	struct dirent *e;
	int found = 0;
	DIR *d;

	if (depth > 6 || !(d = opendir(dir)))
		return 0;
	while ((e = readdir(d))) {
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (lstat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode))
			found += tree_has(path, id, hex, depth + 1);
		else if (S_ISREG(st.st_mode) && file_has(path, id, hex) == 1) {
			fprintf(stderr, "# the id is in %s\n", path);
			found++;
		}
	}
	closedir(d);
	return found;
}

/*
 * Question 6: the id is in no reply (COMM_INFO of every handle), no telemetry message
 * (a privileged subscriber's, across create, join, a collective and destroy), no file
 * of sysfs, debugfs or the creator's /proc, and not in the kernel log; only the whole
 * id joins: every id one bit off is -ENOENT. (Its comparison is crypto_memneq(), whose
 * time does not depend on where ids differ: that is the code's, not a test's.)
 */
TEST_F_TIMEOUT(atk, comm_id_never_shown, 600)
{
	struct vneuron_comm_info ci;
	uint8_t id[ID_BYTES], bad[ID_BYTES];
	char hex[2 * ID_BYTES + 1], path[64];
	uint32_t reg, h0, h1, i, bit;
	struct raw e;
	static uint8_t msgs[1 << 20];
	size_t mlen = 0;
	int fd = vn_open(), n;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, raw_open(&e));
	ASSERT_EQ(0, raw_send(&e, VNEURON_CMD_SUBSCRIBE, 0));
	ASSERT_EQ(0, comm_create(fd, 2, id, &reg));
	for (i = 0; i < ID_BYTES; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	for (i = 0; i < 8 * ID_BYTES; i++) {
		memcpy(bad, id, ID_BYTES);
		bad[i / 8] ^= (uint8_t)(1u << (i % 8));
		bit = 0;
		EXPECT_EQ(-ENOENT, comm_join(fd, bad, 0, 0, &bit)) TH_LOG("bit %u", i);
	}
	ASSERT_EQ(0, comm_join(fd, id, 0, 0, &h0));
	ASSERT_EQ(0, comm_join(fd, id, 1, 1, &h1));
	{
		uint32_t hs[3] = { reg, h0, h1 };

		for (i = 0; i < 3; i++) {
			memset(&ci, 0, sizeof(ci));
			ci.handle = hs[i];
			ASSERT_EQ(0, vn_ioctl(fd, VNEURON_IOCTL_COMM_INFO, &ci));
			EXPECT_FALSE(contains((uint8_t *)&ci, sizeof(ci), id, 8) ||
				     contains((uint8_t *)&ci, sizeof(ci), id + 8, 8))
				TH_LOG("COMM_INFO of handle %u", hs[i]);
		}
	}
	EXPECT_EQ(0, tree_has("/sys/class/vneuron", id, hex, 0));
	EXPECT_EQ(0, tree_has("/sys/module/vneuron", id, hex, 0));
	EXPECT_EQ(0, tree_has("/sys/kernel/debug/vneuron", id, hex, 0));
	/* The files of /proc/PID itself (its subfolders are its threads and fds again). */
	snprintf(path, sizeof(path), "/proc/%d", getpid());
	EXPECT_EQ(0, tree_has(path, id, hex, 6));
	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", getpid(), fd);
	EXPECT_NE(1, file_has(path, id, hex));
	{
		struct vneuron_comm_destroy d = { .handle = h1 };

		EXPECT_EQ(0, vn_ioctl(fd, VNEURON_IOCTL_COMM_DESTROY, &d));
	}
	close(fd);
	/* Every event a privileged monitor got meanwhile, byte for byte. */
	for (;;) {
		struct pollfd p = { .fd = e.fd, .events = POLLIN };
		ssize_t got;

		if (poll(&p, 1, 1000) <= 0 || mlen >= sizeof(msgs))
			break;
		got = recv(e.fd, msgs + mlen, sizeof(msgs) - mlen, 0);
		if (got <= 0)
			break;
		mlen += got;
	}
	EXPECT_LT(0, mlen);
	EXPECT_FALSE(contains(msgs, mlen, id, 8) || contains(msgs, mlen, id + 8, 8));
	n = file_has("/dev/kmsg", id, hex);
	EXPECT_NE(1, n) TH_LOG("the id is in the kernel log");
	close(e.fd);
	EXPECT_TRUE(drained());
}

TEST(zz_drained)
{
	EXPECT_TRUE(drained());
}

TEST_HARNESS_MAIN
