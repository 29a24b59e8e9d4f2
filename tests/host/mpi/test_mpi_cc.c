// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Collectives across MPI processes (libvnmpi): run by tests/host/mpi/cc.sh under
 * `mpirun -np P`, each process a node with 2 ranks (threads). Every collective's results
 * against the C reference over the ranks in rank order (cc_ref.h), bit for bit, and its
 * modeled completion against the ring by hand and across the processes; nodes that
 * disagree, a node that never comes, and (--kill, --exit) a node that dies. Rank 0 prints
 * TAP.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi_tap.h"
#include "vnmpi.h"
#include "vn_comm.h"
#include "vn_os.h"
#include "../cc_ref.h"
#include "vneuron_program.h"

#define NLOCAL 2
#define COUNT 10000

/* one(): each rank's output is its input (an all-reduce in place) */
static int in_place;

struct local {
	struct vn_comm *cm;
	u32 rank;
	struct vn_cc_args a;
	u64 arrive_ps;
	u64 deadline_ns;	/* 0: none */
	int ret;
	struct vn_cc_result res;
};

static void *local_main(void *p)
{
	struct local *l = p;

	l->ret = vn_comm_collective(l->cm, l->rank, &l->a, l->arrive_ps, l->deadline_ns, NULL,
				    &l->res);
	return NULL;
}

/*
 * Runs op on the local ranks; checks the outputs exactly and that every process got
 * the same completion, equal to want_ps when it is not 0.
 */
static void one(struct nd_mpi_comm *c, u32 op, u32 reduce, u32 shift, u64 want_ps,
		const char *name)
{
	struct vn_comm *cm = nd_host_comm_core(nd_mpi_comm_host(c));
	u32 n = vn_comm_size(cm), first = nd_mpi_comm_first(c), k, r;
	u64 inb = vn_cc_in_bytes(op, n, VNEF_DT_FP32, COUNT);
	u64 outb = vn_cc_out_bytes(op, n, VNEF_DT_FP32, COUNT);
	u64 in_elems = inb / 4, out_elems = outb / 4, e, done[64], mydone;
	const struct cc_ref_in vals = { NULL, 0 };
	struct local l[NLOCAL];
	pthread_t t[NLOCAL];
	float *in[NLOCAL], *out[NLOCAL], want;
	char what[160];
	int ok = 1, q;

	for (k = 0; k < NLOCAL; k++) {
		r = first + k;
		in[k] = malloc(inb);
		out[k] = calloc(1, outb);
		/* rank r's input element e is cc_val(r, e) */
		for (e = 0; e < in_elems; e++)
			in[k][e] = cc_val(r, e);
		l[k] = (struct local){ .cm = cm, .rank = r, .arrive_ps = 1000 * (r + 1),
			.a = { .op = op, .reduce = reduce, .dtype = VNEF_DT_FP32,
			       .count = COUNT, .shift = shift, .in = in[k],
			       .out = in_place ? in[k] : out[k] } };
		pthread_create(&t[k], NULL, local_main, &l[k]);
	}
	for (k = 0; k < NLOCAL; k++)
		pthread_join(t[k], NULL);
	for (k = 0; k < NLOCAL; k++) {
		r = first + k;
		if (l[k].ret || l[k].res.done_ps != l[0].res.done_ps) {
			ok = 0;
			fprintf(stderr, "%s: rank %u: %d, done %llu\n", name, r, l[k].ret,
				(unsigned long long)l[k].res.done_ps);
		}
		for (e = 0; ok && e < out_elems; e++) {
			const float *o = in_place ? in[k] : out[k];

			want = cc_ref(&vals, op, reduce, n, r, shift, COUNT, e);
			if (memcmp(&want, &o[e], 4)) {
				ok = 0;
				fprintf(stderr, "%s: rank %u element %llu: %a, want %a\n", name, r,
					(unsigned long long)e, o[e], want);
			}
		}
		free(in[k]);
		free(out[k]);
	}
	report(ok, name);
	/* The proxy may call MPI meanwhile: MPI_THREAD_MULTIPLE. */
	mydone = l[0].res.done_ps;
	MPI_Allgather(&mydone, 1, MPI_UINT64_T, done, 1, MPI_UINT64_T, MPI_COMM_WORLD);
	ok = 1;
	for (q = 0; q < nproc; q++)
		if (done[q] != done[0] || (want_ps && done[q] != want_ps))
			ok = 0;
	if (!ok && !me)
		fprintf(stderr, "%s: done %llu on rank 0, want %llu\n", name,
			(unsigned long long)done[0], (unsigned long long)want_ps);
	snprintf(what, sizeof(what), "%s: the same modeled completion on every process", name);
	report(ok, what);
}

#define ROWS	128
#define COLS	64
#define N	(ROWS * COLS)

struct prog_rank {
	struct nd_host *h;
	const void *img;
	size_t size;
	struct nd_host_tensor t[2];
	u64 limit_ns;		/* 0: 20 s */
	int ret;
	struct nd_run_result res;
	u64 cc_ps;		/* the collective's modeled cost, from its event */
	char msg[256];
};

static void *prog_main(void *arg)
{
	struct prog_rank *r = arg;
	const struct nd_event *ev;
	size_t nev, k;

	nd_host_record(r->h, 1);
	r->ret = nd_host_run(r->h, r->img, r->size, r->t, 2,
			     r->limit_ns ? r->limit_ns : 20ull * 1000000000ull, &r->res);
	snprintf(r->msg, sizeof(r->msg), "%s", nd_host_error(r->h));
	ev = nd_host_events(r->h, &nev);
	for (k = 0; k < nev; k++)
		if (ev[k].stream == VNEF_STREAM_CC)
			r->cc_ps = ev[k].end_ps - ev[k].cc_latest_ps;
	return NULL;
}

/* A builder-made program: y = (sum over ranks of 2 x_r) + 1, the all-reduce on HBM. */
static void *allreduce_image(size_t *size)
{
	static const uint64_t shape[] = { ROWS, COLS };
	struct nd_builder *b;
	void *img = NULL;

	if (nd_builder_new("allreduce", &b))
		return NULL;
	{
		struct nd_tensor *tx = nd_input(b, "x", ND_FP32, 2, shape);
		struct nd_tensor *ts = nd_scratch(b, "s", ND_FP32, 2, shape);
		struct nd_tensor *ty = nd_output(b, "y", ND_FP32, 2, shape);
		struct nd_tile *ta = nd_sbuf(b, "t", ND_FP32, ROWS, COLS);
		struct nd_tile *u = nd_sbuf(b, "u", ND_FP32, ROWS, COLS);

		nd_load(b, 0, nd_whole(ta), nd_hbm_rows(tx, 0, 0));
		nd_tensor_scalar(b, ND_VECTOR, nd_whole(ta), nd_whole(ta), ND_MUL, 2.0f, 0);
		nd_store(b, 1, nd_hbm_rows(ts, 0, 0), nd_whole(ta));
		nd_all_reduce(b, ts, ts, N, ND_ADD);
		nd_load(b, 2, nd_whole(u), nd_hbm_rows(ts, 0, 0));
		nd_tensor_scalar(b, ND_GPSIMD, nd_whole(u), nd_whole(u), ND_ADD, 1.0f, 0);
		nd_store(b, 3, nd_hbm_rows(ty, 0, 0), nd_whole(u));
	}
	if (nd_builder_finish(b, &img, size))
		img = NULL;
	nd_builder_free(b);
	return img;
}

/*
 * The local ranks run img on host handles bound to them, each within limit_ns (0: 20 s),
 * x[k] in and y[k] out (allocated here, local rank k's x filled with seed first + k + 1).
 * 0, or -1 if a handle could not be set up (nothing run).
 */
static int run_locals(struct nd_mpi_comm *c, const void *img, size_t size, u64 limit_ns,
		      struct prog_rank *pr, float **x, float **y)
{
	u32 first = nd_mpi_comm_first(c), k;
	pthread_t t[NLOCAL];
	struct nd_error err;
	int ok = 1;

	for (k = 0; k < NLOCAL; k++) {
		x[k] = malloc(N * sizeof(float));
		y[k] = calloc(N, sizeof(float));
		cc_fill(x[k], N, first + k + 1);
		pr[k] = (struct prog_rank){ .img = img, .size = size, .limit_ns = limit_ns };
		pr[k].t[0] = (struct nd_host_tensor){ "x", x[k], N * sizeof(float) };
		pr[k].t[1] = (struct nd_host_tensor){ "y", y[k], N * sizeof(float) };
		if (nd_host_open(NULL, &pr[k].h, &err) ||
		    nd_host_set_comm(pr[k].h, nd_mpi_comm_host(c), first + k))
			ok = 0;
	}
	for (k = 0; ok && k < NLOCAL; k++)
		pthread_create(&t[k], NULL, prog_main, &pr[k]);
	for (k = 0; ok && k < NLOCAL; k++)
		pthread_join(t[k], NULL);
	return ok ? 0 : -1;
}

static void close_locals(struct prog_rank *pr, float **x, float **y)
{
	u32 k;

	for (k = 0; k < NLOCAL; k++) {
		nd_host_close(pr[k].h);
		free(x[k]);
		free(y[k]);
	}
}

/* The host backend: allreduce_image() on the local ranks, the all-reduce crossing processes. */
static void program(struct nd_mpi_comm *c)
{
	u32 n = nd_mpi_comm_nodes(c) * NLOCAL, first = nd_mpi_comm_first(c), k, r;
	float *x[NLOCAL], *y[NLOCAL], *xs[VN_COMM_MAX_RANKS], *ref;
	const struct cc_ref_in twice = { (const float *const *)xs, 2.0f };
	struct prog_rank pr[NLOCAL];
	u64 model[64], mine;
	size_t size, e;
	void *img = allreduce_image(&size);
	int ok = 1, q;

	if (!img) {
		report(0, "program: the builder");
		return;
	}
	/* every rank's input, for the reference: 2 x_r summed in rank order, + 1 */
	ref = malloc(N * sizeof(float));
	for (r = 0; r < n; r++) {
		xs[r] = malloc(N * sizeof(float));
		cc_fill(xs[r], N, r + 1);
	}
	for (e = 0; e < N; e++)
		ref[e] = cc_ref_reduce(&twice, VN_CC_SUM, n, e) + 1.0f;
	if (run_locals(c, img, size, 0, pr, x, y))
		ok = 0;
	for (k = 0; ok && k < NLOCAL; k++) {
		if (pr[k].ret || memcmp(ref, y[k], N * sizeof(float)) ||
		    pr[k].res.model_ps != pr[0].res.model_ps ||
		    /* 2 nodes: 6 steps of 8192 B, the net hop 10 us + 81920 ps */
		    (n == 4 && pr[k].cc_ps != 6 * 10081920ull)) {
			fprintf(stderr, "program: rank %u: %d %s, cc %llu\n", first + k, pr[k].ret,
				pr[k].msg, (unsigned long long)pr[k].cc_ps);
			ok = 0;
		}
	}
	report(ok, "program: nd_host_run all-reduce across nodes, exact, cost by hand");
	mine = ok ? pr[0].res.model_ps : 0;
	MPI_Allgather(&mine, 1, MPI_UINT64_T, model, 1, MPI_UINT64_T, MPI_COMM_WORLD);
	for (q = 0; q < nproc; q++)
		if (!model[q] || model[q] != model[0])
			ok = 0;
	report(ok, "program: the same modeled end on every process");
	close_locals(pr, x, y);
	for (r = 0; r < n; r++)
		free(xs[r]);
	free(ref);
	free(img);
}

/* Nodes that disagree (node 0 brings another count): every node breaks, none hangs. */
static void disagree(void)
{
	struct nd_mpi_comm *c;
	struct local l[NLOCAL];
	pthread_t t[NLOCAL];
	float *buf[NLOCAL];
	u32 k;
	int ok = 1, ret;

	if (nd_mpi_comm_new(MPI_COMM_WORLD, NLOCAL, NULL, &c)) {
		report(0, "disagreeing nodes: nd_mpi_comm_new");
		return;
	}
	for (k = 0; k < NLOCAL; k++) {
		buf[k] = calloc(2 * COUNT, sizeof(float));
		l[k] = (struct local){ .cm = nd_host_comm_core(nd_mpi_comm_host(c)),
			.rank = nd_mpi_comm_first(c) + k,
			.a = { .op = VN_CC_ALL_REDUCE, .reduce = VN_CC_SUM, .dtype = VNEF_DT_FP32,
			       .count = me ? COUNT : COUNT / 2, .in = buf[k],
			       .out = buf[k] + COUNT } };
		pthread_create(&t[k], NULL, local_main, &l[k]);
	}
	for (k = 0; k < NLOCAL; k++) {
		pthread_join(t[k], NULL);
		if (l[k].ret != -EPIPE)
			ok = 0;
		free(buf[k]);
	}
	ok = ok && nd_host_comm_broken(nd_mpi_comm_host(c));
	ret = nd_mpi_comm_free(c);
	report(ok && ret == -EINVAL,
	       "disagreeing nodes: every rank's collective ends -EPIPE, the proxy's -EINVAL");
}

/* The local ranks' all-reduce of COUNT elements, each waiting until deadline_ns. */
static void locals_run(struct nd_mpi_comm *c, struct local *l, float **buf, u64 deadline_ns)
{
	pthread_t t[NLOCAL];
	u32 k;

	for (k = 0; k < NLOCAL; k++) {
		buf[k] = calloc(2 * COUNT, sizeof(float));
		l[k] = (struct local){ .cm = nd_host_comm_core(nd_mpi_comm_host(c)),
			.rank = nd_mpi_comm_first(c) + k, .deadline_ns = deadline_ns,
			.a = { .op = VN_CC_ALL_REDUCE, .reduce = VN_CC_SUM, .dtype = VNEF_DT_FP32,
			       .count = COUNT, .in = buf[k], .out = buf[k] + COUNT } };
		pthread_create(&t[k], NULL, local_main, &l[k]);
	}
	for (k = 0; k < NLOCAL; k++)
		pthread_join(t[k], NULL);
}

/*
 * The last node never comes to a collective: the others' ranks end at their time limit,
 * -ETIMEDOUT naming its ranks (TIMEOUT, CC_MISSING in an execution); when it comes
 * later, its ranks find the communicator broken by a peer (-EPIPE: ABORTED, CC_PEER).
 */
static void absent(void)
{
	u64 late_ranks = ((1ull << NLOCAL) - 1) << ((nproc - 1) * NLOCAL);
	struct vn_comm_state st;
	struct nd_mpi_comm *c;
	struct local l[NLOCAL];
	float *buf[NLOCAL];
	int late = me == nproc - 1, ok = 1, ret;
	u32 k;

	if (nd_mpi_comm_new(MPI_COMM_WORLD, NLOCAL, NULL, &c)) {
		report(0, "absent node: nd_mpi_comm_new");
		return;
	}
	if (!late) {
		locals_run(c, l, buf, vn_time_ns() + 1500000000ull);
		for (k = 0; k < NLOCAL; k++) {
			if (l[k].ret != -ETIMEDOUT || l[k].res.missing != late_ranks) {
				fprintf(stderr, "absent: rank %u: %d, missing %#llx\n", l[k].rank,
					l[k].ret, (unsigned long long)l[k].res.missing);
				ok = 0;
			}
			free(buf[k]);
		}
		vn_comm_state(nd_host_comm_core(nd_mpi_comm_host(c)), &st);
		if (!st.broken || st.failure != -ETIMEDOUT || st.missing != late_ranks)
			ok = 0;
	}
	report(ok, "absent node: the others' ranks end -ETIMEDOUT at their limit, naming its ranks");
	/*
	 * The others gave up (report() met them all) and sent their break: now the late
	 * node comes, once the break had time to arrive (vnmpi.h: a node that comes before
	 * it may complete the collective with the inputs its peers sent before giving up).
	 */
	ok = 1;
	if (late) {
		usleep(200000);
		locals_run(c, l, buf, vn_time_ns() + 30000000000ull);
		for (k = 0; k < NLOCAL; k++) {
			if (l[k].ret != -EPIPE) {
				fprintf(stderr, "absent: late rank %u: %d\n", l[k].rank, l[k].ret);
				ok = 0;
			}
			free(buf[k]);
		}
		vn_comm_state(nd_host_comm_core(nd_mpi_comm_host(c)), &st);
		/* named: a rank of another node, which gave up */
		if (!st.broken || st.failed_rank >= nd_mpi_comm_first(c))
			ok = 0;
	}
	report(ok, "absent node: when it comes, its ranks end -EPIPE, a peer's rank named");
	ret = nd_mpi_comm_free(c);
	report(ret == -EPIPE, "absent node: nd_mpi_comm_free returns -EPIPE on every node");
}

/*
 * The same through executions (nd_host_run() of allreduce_image()): the nodes that came
 * end TIMEOUT, CC_MISSING at their time limit (the collective names the wait even when an
 * engine waits on its semaphore: core/vn_sched.h VN_CC_GRACE_NS), the late node's ranks
 * missing; the late node, when it comes, ABORTED, CC_PEER.
 */
static void absent_runs(void)
{
	u64 late_ranks = ((1ull << NLOCAL) - 1) << ((nproc - 1) * NLOCAL);
	float *x[NLOCAL], *y[NLOCAL];
	struct prog_rank pr[NLOCAL];
	struct vn_comm_state st;
	struct nd_mpi_comm *c;
	int late = me == nproc - 1, ok = 1, ran = 0, ret;
	size_t size;
	void *img = allreduce_image(&size);
	u32 k;

	if (!img || nd_mpi_comm_new(MPI_COMM_WORLD, NLOCAL, NULL, &c)) {
		report(0, "absent node, executions: the image and nd_mpi_comm_new");
		free(img);
		return;
	}
	if (!late) {
		ok = !run_locals(c, img, size, 1500000000ull, pr, x, y);
		ran = 1;
		for (k = 0; ok && k < NLOCAL; k++) {
			if (pr[k].ret != -ETIMEDOUT || pr[k].res.result != VNEURON_EXEC_TIMEOUT ||
			    pr[k].res.reason != VNEURON_REASON_CC_MISSING) {
				fprintf(stderr, "absent runs: rank %u: %d %s\n",
					nd_mpi_comm_first(c) + k, pr[k].ret, pr[k].msg);
				ok = 0;
			}
		}
		vn_comm_state(nd_host_comm_core(nd_mpi_comm_host(c)), &st);
		if (!st.broken || st.missing != late_ranks)
			ok = 0;
	}
	report(ok, "absent node, executions: TIMEOUT at the limit, its ranks missing");
	ok = 1;
	if (late) {
		usleep(200000);		/* as in absent(): the break has arrived */
		ok = !run_locals(c, img, size, 30000000000ull, pr, x, y);
		ran = 1;
		if (!ok)
			fprintf(stderr, "absent runs: late node: no handles\n");
		for (k = 0; ok && k < NLOCAL; k++) {
			if (pr[k].res.result != VNEURON_EXEC_ABORTED ||
			    pr[k].res.reason != VNEURON_REASON_CC_PEER) {
				fprintf(stderr, "absent runs: late rank %u: %d %s\n",
					nd_mpi_comm_first(c) + k, pr[k].ret, pr[k].msg);
				ok = 0;
			}
		}
	}
	report(ok, "absent node, executions: the late node's executions end ABORTED, CC_PEER");
	if (ran)
		close_locals(pr, x, y);
	ret = nd_mpi_comm_free(c);
	report(ret == -EPIPE, "absent node, executions: nd_mpi_comm_free returns -EPIPE");
	free(img);
}

/*
 * --kill, --exit: the last node's process is killed (SIGKILL) or exits without
 * MPI_Finalize() while the others wait at a collective with a long limit. Open MPI's
 * mpirun then ends the whole job, naming the process (tests/host/mpi/cc.sh checks what it
 * prints and that nothing hangs); a library that lets the survivors run on reports the
 * dead node to them instead (an MPI error: -EPIPE naming its first rank).
 */
static int killed(int how)
{
	struct nd_mpi_comm *c;
	struct local l[NLOCAL];
	float *buf[NLOCAL];
	u32 k;

	if (nd_mpi_comm_new(MPI_COMM_WORLD, NLOCAL, NULL, &c))
		return 1;
	if (me == nproc - 1) {
		usleep(300000);
		if (how)
			raise(SIGKILL);
		_exit(0);
	}
	locals_run(c, l, buf, vn_time_ns() + 100000000000ull);
	for (k = 0; k < NLOCAL; k++) {
		fprintf(stderr, "killed: rank %u: %d\n", l[k].rank, l[k].ret);
		free(buf[k]);
	}
	fprintf(stderr, "killed: nd_mpi_comm_free: %d\n", nd_mpi_comm_free(c));
	MPI_Finalize();
	return 1;
}

/*
 * A node frees its communicator as soon as its own ranks have the result, while its
 * inputs may still be on the way to slower nodes: those must still complete, exactly.
 * Large inputs (beyond Open MPI's eager sends), several rounds: a race, so a stress.
 */
static void free_after_last(void)
{
	const u64 count = 1u << 20, rounds = 8;
	const struct cc_ref_in vals = { NULL, 0 };
	struct nd_mpi_comm *c;
	struct local l[NLOCAL];
	pthread_t t[NLOCAL];
	float *in[NLOCAL], *out[NLOCAL], want;
	u64 round, e;
	u32 k, r, n;
	int ok = 1, ret;

	for (k = 0; k < NLOCAL; k++) {
		in[k] = malloc(count * 4);
		out[k] = malloc(count * 4);
		if (!in[k] || !out[k])
			ok = 0;
	}
	for (round = 0; ok && round < rounds; round++) {
		ret = nd_mpi_comm_new(MPI_COMM_WORLD, NLOCAL, NULL, &c);
		if (ret) {
			fprintf(stderr, "free_after_last: round %llu: new %d\n",
				(unsigned long long)round, ret);
			ok = 0;
			break;
		}
		n = vn_comm_size(nd_host_comm_core(nd_mpi_comm_host(c)));
		for (k = 0; k < NLOCAL; k++) {
			r = nd_mpi_comm_first(c) + k;
			for (e = 0; e < count; e++)
				in[k][e] = cc_val(r, e);
			l[k] = (struct local){ .cm = nd_host_comm_core(nd_mpi_comm_host(c)),
				.rank = r, .a = { .op = VN_CC_ALL_REDUCE, .reduce = VN_CC_SUM,
						  .dtype = VNEF_DT_FP32, .count = count,
						  .in = in[k], .out = out[k] } };
			pthread_create(&t[k], NULL, local_main, &l[k]);
		}
		for (k = 0; k < NLOCAL; k++)
			pthread_join(t[k], NULL);
		/* No barrier: this node leaves at once. */
		ret = nd_mpi_comm_free(c);
		for (k = 0; k < NLOCAL; k++) {
			if (l[k].ret)
				ok = 0;
			for (e = 0; ok && e < count; e += 4099) {
				want = cc_ref(&vals, VN_CC_ALL_REDUCE, VN_CC_SUM, n, 0, 0, count, e);
				if (memcmp(&want, &out[k][e], 4))
					ok = 0;
			}
		}
		if (ret || !ok) {
			fprintf(stderr, "free_after_last: round %llu: collective %d %d, free %d\n",
				(unsigned long long)round, l[0].ret, l[1].ret, ret);
			ok = 0;
		}
	}
	for (k = 0; k < NLOCAL; k++) {
		free(in[k]);
		free(out[k]);
	}
	report(ok, "free right after the last collective: every node's collective completes");
}

int main(int argc, char **argv)
{
	struct nd_mpi_comm *c;
	u64 arr;
	int level, ret;

	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &level);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &nproc);
	if (argc > 1 && (!strcmp(argv[1], "--kill") || !strcmp(argv[1], "--exit")))
		return killed(!strcmp(argv[1], "--kill"));
	if (!me)
		printf("TAP version 13\n");
	ret = nd_mpi_comm_new(MPI_COMM_WORLD, NLOCAL, NULL, &c);
	report(!ret, "nd_mpi_comm_new");
	if (ret) {
		MPI_Finalize();
		return 1;
	}
	/*
	 * 2 nodes of 2 ranks on one device each: all-reduce of 40000 B, 6 steps of 10000 B;
	 * the slowest hop crosses nodes, 10 us + 10000 B / (100000 B/us) = 10.1 us. The
	 * latest arrival is rank 3's, 4000 ps.
	 */
	arr = 1000ull * NLOCAL * nproc;
	one(c, VN_CC_ALL_REDUCE, VN_CC_SUM, 0, nproc == 2 ? arr + 6 * 10100000ull : 0,
	    "all-reduce sum across nodes, exact");
	one(c, VN_CC_ALL_REDUCE, VN_CC_SUM, 0, nproc == 2 ? arr + 6 * 10100000ull : 0,
	    "all-reduce again: the same modeled time");
	one(c, VN_CC_ALL_REDUCE, VN_CC_MAX, 0, 0, "all-reduce max");
	/* each node's slice goes out before the reduced ones land on it (rsag.c) */
	in_place = 1;
	one(c, VN_CC_ALL_REDUCE, VN_CC_SUM, 0, nproc == 2 ? arr + 6 * 10100000ull : 0,
	    "all-reduce in place across nodes, exact");
	in_place = 0;
	one(c, VN_CC_REDUCE_SCATTER, VN_CC_SUM, 0, 0, "reduce-scatter");
	/* all-gather: 3 steps of 40000 B, the net hop 10 us + 400000 ps */
	one(c, VN_CC_ALL_GATHER, VN_CC_SUM, 0, nproc == 2 ? arr + 3 * 10400000ull : 0,
	    "all-gather");
	one(c, VN_CC_ALL_TO_ALL, VN_CC_SUM, 0, 0, "all-to-all");
	one(c, VN_CC_PERMUTE, VN_CC_SUM, 1, 0, "permute by 1");
	one(c, VN_CC_PERMUTE, VN_CC_SUM, 3, 0, "permute by 3");
	program(c);
	report(nd_mpi_comm_collectives(c) == 10, "the proxy moved 10 collectives");
	ret = nd_mpi_comm_free(c);
	report(!ret, "nd_mpi_comm_free: no proxy error");
	free_after_last();
	disagree();
	absent();
	absent_runs();
	if (!me)
		printf("1..%d\n# Totals: pass:%d fail:%d\n", ntest, ntest - nfail, nfail);
	MPI_Finalize();
	return nfail ? 1 : 0;
}
