// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vneuron-cc-bench: an nccl-tests-like benchmark of the collectives (all_reduce,
 * all_gather, reduce_scatter, all_to_all, permute) over N ranks, on the host backend
 * (each rank a host core in its own thread) or on /dev/vneuronN cores joined into a
 * communicator; modeled and host time, algorithm and bus bandwidth, results checked
 * against a C reference.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vnprog.h"

#define TOOL "vneuron-cc-bench"
#define MAX_BYTES (1ull << 30)		/* -e limit: a rank's buffers are this big */

static void usage(FILE *f)
{
	fputs(
"NAME\n"
"    vneuron-cc-bench - bandwidth of the collectives, like nccl-tests\n"
"\n"
"SYNOPSIS\n"
"    vneuron-cc-bench [-b SIZE] [-e SIZE] [-f FACTOR] [-n RANKS]\n"
"                     [--cores-per-device C] [-d fp32|bf16] [-o OPS] [-i ITERS]\n"
"                     [-w WARMUP] [--check] [--host [--model NAME] | --device D]\n"
"                     [-q]\n"
"\n"
"DESCRIPTION\n"
"    Builds, for every collective and size, a program of one collective on the\n"
"    collective engine (the CC-core) and runs it on every rank of a communicator\n"
"    (SPMD: the same program on each rank, each rank a thread), then prints a\n"
"    table per collective as nccl-tests does:\n"
"\n"
"      size       bytes of the buffer nccl-tests names: all_reduce and permute\n"
"                 a rank's send (= receive) buffer, all_gather the receive\n"
"                 buffer (n x the send buffer), reduce_scatter the send buffer\n"
"                 (n x the receive buffer), all_to_all a rank's send buffer\n"
"                 (n chunks, one per rank)\n"
"      count      elements in size\n"
"      type       fp32 or bf16\n"
"      model_us   the modeled duration of the execution (the slowest rank's;\n"
"                 every rank completes a collective at one modeled time)\n"
"      host_us    wall time per iteration, from the ranks starting their runs\n"
"                 to the last one returning (mean over the iterations)\n"
"      algbw      size / time in GB/s (10^9 bytes per second), from the modeled\n"
"                 and from the host time\n"
"      busbw      algbw x the bus factor: all_reduce 2(n-1)/n, all_gather,\n"
"                 reduce_scatter and all_to_all (n-1)/n, permute 1\n"
"      check      ok when --check compared every rank's output with the C\n"
"                 reference, - without --check\n"
"\n"
"    Sizes run from -b to -e, multiplied by -f each step. A size that does not\n"
"    split into whole elements per rank (and per chunk) is rounded down, and\n"
"    the rounded size is printed. The permute sends each rank's buffer to the\n"
"    next rank (shift 1). Reductions are sums.\n"
"\n"
"    Ranks are laid out as devices x cores per device: rank r is core\n"
"    r mod C of device r / C, so with the default 4 ranks and 2 cores per device\n"
"    ranks 0 and 1 share device 0 (the model's intra-device link) and reach\n"
"    ranks 2 and 3 over the inter-device link. On the host backend the devices\n"
"    are modeled; with --device D they are /dev/vneuronD, D+1, ...\n"
"\n"
"OPTIONS\n"
"    -b, --minbytes SIZE     smallest size (default 1K); SIZE takes K, M, G\n"
"                            (powers of 1024)\n"
"    -e, --maxbytes SIZE     largest size (default 64M, at most 1G)\n"
"    -f, --stepfactor F      multiply the size by F each step (default 4, >= 2)\n"
"    -n, --ranks N           ranks (default 4, 1 to 64)\n"
"    --cores-per-device C    cores of one device the ranks use (default 2)\n"
"    -d, --datatype T        fp32 (default) or bf16\n"
"    -o, --op OPS            all (default) or a comma-separated list of\n"
"                            all_reduce, all_gather, reduce_scatter,\n"
"                            all_to_all, permute\n"
"    -i, --iters N           timed iterations per size (default 3)\n"
"    -w, --warmup N          untimed iterations before them (default 1)\n"
"    -c, --check             check every rank's output of the last iteration\n"
"                            against a C reference: sums in rank order in fp32\n"
"                            (bf16 inputs widened, the sum rounded to bf16 to\n"
"                            nearest even), copies exactly; they must be equal\n"
"                            bit for bit\n"
"    --host                  run on the host backend (the default): the device\n"
"                            core built into libvncore, no module needed\n"
"    --model NAME            the host backend's device model: trn1\n"
"                            (NeuronCore-v2, the default), trn2 (-v3) or trn3\n"
"                            (-v4); its collective links (docs/isa.md, \"Device\n"
"                            models\": bandwidth and latency of a hop within a\n"
"                            device and between devices) give model_us. A\n"
"                            device has the model its module was loaded with\n"
"                            (insmod vneuron.ko model=NAME)\n"
"    --device D              run on /dev/vneuronD and the devices after it\n"
"    -q, --quiet             print only the tables\n"
"    -h, --help              this help\n"
"    --version               the versions of the tool, its libraries and the\n"
"                            module\n"
"\n"
"EXIT STATUS\n"
"    0 when every run ended OK (and matched, with --check); 1 when a run failed\n"
"    or a result differs; 2 on bad usage.\n"
"\n"
"EXAMPLES\n"
"    vneuron-cc-bench -b 1K -e 64M -f 4 --check\n"
"    vneuron-cc-bench -o all_reduce -n 8 --cores-per-device 2 -d bf16\n"
"    vneuron-cc-bench --device 0 -n 4 -e 1M\n", f);
}

/* ---- the collectives ---- */

enum { OP_AR, OP_AG, OP_RS, OP_A2A, OP_PERM, OP_N };

static const struct {
	const char *name;
	uint32_t opcode;
} ops[OP_N] = {
	[OP_AR] = { "all_reduce", VNEF_CC_ALL_REDUCE },
	[OP_AG] = { "all_gather", VNEF_CC_ALL_GATHER },
	[OP_RS] = { "reduce_scatter", VNEF_CC_REDUCE_SCATTER },
	[OP_A2A] = { "all_to_all", VNEF_CC_ALL_TO_ALL },
	[OP_PERM] = { "permute", VNEF_CC_PERMUTE },
};

/* One collective of one size: the count of its instruction, its buffers' elements. */
struct shape {
	uint64_t count;			/* the instruction's count */
	uint64_t in, out;		/* elements of a rank's src and dst */
	uint64_t size_elems;		/* the elements nccl-tests calls size */
};

static int shape_of(int op, uint64_t bytes, unsigned int n, unsigned int esz,
		    struct shape *s)
{
	uint64_t e = bytes / esz;

	switch (op) {
	case OP_AR:
	case OP_PERM:
		s->count = e;
		s->in = s->out = s->size_elems = e;
		break;
	case OP_AG:
		s->count = e / n;
		s->in = s->count;
		s->out = s->size_elems = s->count * n;
		break;
	case OP_RS:
		s->count = e / n;
		s->in = s->size_elems = s->count * n;
		s->out = s->count;
		break;
	default:	/* OP_A2A */
		s->count = e / n;
		s->in = s->out = s->size_elems = s->count * n;
		break;
	}
	return s->count ? 0 : -1;
}

static double bus_factor(int op, unsigned int n)
{
	if (op == OP_AR)
		return 2.0 * (n - 1) / n;
	if (op == OP_PERM)
		return 1.0;
	return (double)(n - 1) / n;
}

/* ---- the ranks ---- */

struct opts {
	uint64_t minb, maxb, factor;
	unsigned int nranks, cpd, iters, warmup;
	int check, host, quiet;
	const struct vneuron_model *model;	/* --model: the host's (NULL: trn1) */
	unsigned int device;
	enum nd_dtype dt;
	int want[OP_N];
};

struct rank {
	struct nd_host *h;
	struct nd_device *dev;
	struct nd_comm *comm;
	struct nd_program *prog;
	struct nd_mem *src_mem, *dst_mem;
	void *src, *dst;
	/* the job */
	struct bench *bn;
	uint64_t model_ps;
	double host_s;			/* rank 0: sum of the timed iterations */
	int failed;
	char msg[256];
};

struct bench {
	const struct opts *o;
	unsigned int n, esz;
	struct rank *rk;
	pthread_barrier_t bar;
	/* the current job */
	const void *image;
	size_t size;
	uint64_t in_bytes, out_bytes;
	int fail;			/* any rank failed in this job */
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int run_once(struct rank *k)
{
	struct bench *bn = k->bn;
	struct nd_run_result res = { 0 };
	int ret;

	if (bn->o->host) {
		struct nd_host_tensor t[2] = {
			{ "src", k->src, bn->in_bytes }, { "dst", k->dst, bn->out_bytes },
		};

		ret = nd_host_run(k->h, bn->image, bn->size, t, 2, 0, &res);
		if (ret)
			snprintf(k->msg, sizeof(k->msg), "%s", nd_host_error(k->h));
	} else {
		struct nd_bind bind[2] = { { "src", k->src_mem }, { "dst", k->dst_mem } };

		ret = nd_run(k->prog, nd_comm_core(k->comm), bind, 2, 0, &res);
		if (ret == -EIO || ret == -ETIMEDOUT)
			nd_comm_describe(k->comm, k->prog, &res, k->msg, sizeof(k->msg));
		else if (ret)
			snprintf(k->msg, sizeof(k->msg), "%s", nd_device_error(k->dev));
	}
	if (!ret)
		k->model_ps = res.model_ps;
	return ret;
}

static void *rank_main(void *arg)
{
	struct rank *k = arg;
	struct bench *bn = k->bn;
	unsigned int it, total = bn->o->warmup + bn->o->iters;
	double t0;

	k->failed = 0;
	k->host_s = 0;
	k->msg[0] = '\0';
	for (it = 0; it < total; it++) {
		pthread_barrier_wait(&bn->bar);
		/* a failed rank broke the communicator: the others' runs ended too */
		if (__atomic_load_n(&bn->fail, __ATOMIC_RELAXED))
			break;
		t0 = now();
		if (run_once(k)) {
			k->failed = 1;
			__atomic_store_n(&bn->fail, 1, __ATOMIC_RELAXED);
		}
		pthread_barrier_wait(&bn->bar);
		if (it >= bn->o->warmup)
			k->host_s += now() - t0;
	}
	return NULL;
}

/* Run the current job on every rank, each in its own thread. */
static int run_job(struct bench *bn)
{
	pthread_t th[VNEF_CC_MAX_RANKS];
	unsigned int i, started = 0;
	int ret = 0;

	bn->fail = 0;
	if (pthread_barrier_init(&bn->bar, NULL, bn->n))
		return -1;
	for (i = 0; i < bn->n; i++) {
		bn->rk[i].bn = bn;
		if (pthread_create(&th[i], NULL, rank_main, &bn->rk[i]))
			break;
		started++;
	}
	if (started < bn->n) {
		/* cannot happen short of resources; the barrier would never open */
		fprintf(stderr, TOOL ": cannot start %u threads\n", bn->n);
		exit(1);
	}
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&bn->bar);
	for (i = 0; i < bn->n; i++) {
		if (!bn->rk[i].failed)
			continue;
		fprintf(stderr, TOOL ": rank %u: %s\n", i, bn->rk[i].msg);
		ret = -1;
	}
	return ret;
}

/* ---- inputs and the reference ---- */

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

/* Rank r's element i: uniform in [-1, 1), the same on every machine. */
static float input_value(unsigned int r, uint64_t i)
{
	uint64_t x = mix(((uint64_t)r << 40) ^ i ^ 0x9e3779b97f4a7c15ull);

	return (float)((double)(x >> 40) / 8388608.0 - 1.0);
}

static void fill_input(void *buf, enum nd_dtype dt, unsigned int r, uint64_t n)
{
	uint64_t i;

	for (i = 0; i < n; i++) {
		float v = input_value(r, i);

		if (dt == ND_BF16)
			((uint16_t *)buf)[i] = nd_fp32_to_bf16(v);
		else
			((float *)buf)[i] = v;
	}
}

static float get(const void *buf, enum nd_dtype dt, uint64_t i)
{
	return dt == ND_BF16 ? nd_bf16_to_fp32(((const uint16_t *)buf)[i])
			     : ((const float *)buf)[i];
}

/* Bitwise equal, as the stored dtype. */
static int same(const void *buf, enum nd_dtype dt, uint64_t i, float want)
{
	if (dt == ND_BF16)
		return ((const uint16_t *)buf)[i] == nd_fp32_to_bf16(want);
	return !memcmp((const float *)buf + i, &want, 4);
}

/* Sum over the ranks, in rank order, of element i of each src. */
static float sum_ranks(const struct bench *bn, uint64_t i)
{
	float s = 0;
	unsigned int r;

	for (r = 0; r < bn->n; r++)
		s = r ? s + get(bn->rk[r].src, bn->o->dt, i) : get(bn->rk[r].src, bn->o->dt, i);
	return s;
}

static int check_job(const struct bench *bn, int op, const struct shape *s)
{
	enum nd_dtype dt = bn->o->dt;
	unsigned int n = bn->n, r;
	uint64_t i, c = s->count;

	for (r = 0; r < n; r++) {
		const void *out = bn->rk[r].dst;

		for (i = 0; i < s->out; i++) {
			float want;

			switch (op) {
			case OP_AR:
				want = sum_ranks(bn, i);
				break;
			case OP_RS:
				want = sum_ranks(bn, r * c + i);
				break;
			case OP_AG:
				want = get(bn->rk[i / c].src, dt, i % c);
				break;
			case OP_A2A:	/* chunk j of rank r is rank j's chunk r */
				want = get(bn->rk[i / c].src, dt, r * c + i % c);
				break;
			default:	/* OP_PERM: rank r receives from r - 1 */
				want = get(bn->rk[(r + n - 1) % n].src, dt, i);
				break;
			}
			if (!same(out, dt, i, want)) {
				fprintf(stderr, TOOL ": %s, %llu elements: rank %u "
					"dst[%llu] = %.9g, want %.9g\n", ops[op].name,
					(unsigned long long)s->size_elems, r, (unsigned long long)i,
					get(out, dt, i), want);
				return -1;
			}
		}
	}
	return 0;
}

/* ---- one collective, one size ---- */

static int build(int op, const struct shape *s, enum nd_dtype dt, void **image,
		 size_t *size)
{
	struct nd_builder *b = NULL;
	struct nd_tensor *src, *dst;
	uint64_t ishape[1] = { s->in }, oshape[1] = { s->out };
	char name[64];
	int ret;

	snprintf(name, sizeof(name), "cc_%s_%llu", ops[op].name,
		 (unsigned long long)s->size_elems);
	ret = nd_builder_new(name, &b);
	if (ret)
		return ret;
	src = nd_input(b, "src", dt, 1, ishape);
	dst = nd_output(b, "dst", dt, 1, oshape);
	if (src && dst) {
		switch (op) {
		case OP_AR:
			nd_all_reduce(b, dst, src, s->count, ND_ADD);
			break;
		case OP_AG:
			nd_all_gather(b, dst, src, s->count);
			break;
		case OP_RS:
			nd_reduce_scatter(b, dst, src, s->count, ND_ADD);
			break;
		case OP_A2A:
			nd_all_to_all(b, dst, src, s->count);
			break;
		default:
			nd_permute(b, dst, src, s->count, 1);
			break;
		}
	}
	ret = nd_builder_finish(b, image, size);
	if (ret)
		fprintf(stderr, TOOL ": building %s: %s\n", name, nd_builder_error(b));
	nd_builder_free(b);
	return ret;
}

static void fmt_bw(char *buf, size_t len, double gbs)
{
	if (gbs >= 100)
		snprintf(buf, len, "%.1f", gbs);
	else
		snprintf(buf, len, "%.3f", gbs);
}

struct totals {
	double model_bus, host_bus;
	unsigned int rows, checked;
};

static int bench_size(struct bench *bn, int op, uint64_t bytes, struct totals *tot)
{
	const struct opts *o = bn->o;
	struct shape s;
	void *image = NULL;
	size_t isize;
	uint64_t model_ps = 0, sz;
	double host_us, ma, mb, ha, hb, f = bus_factor(op, bn->n);
	char b1[32], b2[32], b3[32], b4[32];
	unsigned int r;
	int ret;

	if (shape_of(op, bytes, bn->n, bn->esz, &s))
		return 0;	/* too small to give every rank an element */
	if (build(op, &s, o->dt, &image, &isize))
		return -1;
	bn->image = image;
	bn->size = isize;
	bn->in_bytes = s.in * bn->esz;
	bn->out_bytes = s.out * bn->esz;
	for (r = 0; r < bn->n; r++) {
		struct rank *k = &bn->rk[r];

		if (o->host) {
			/* poison dst (NaN), so a value not written fails the check */
			if (o->check)
				memset(k->dst, 0xff, bn->out_bytes);
			continue;
		}
		if (k->prog)
			nd_program_unload(k->prog);
		k->prog = NULL;
		ret = nd_program_load(k->dev, image, isize, &k->prog, NULL);
		if (!ret && o->check) {
			memset(k->dst, 0xff, bn->out_bytes);
			ret = nd_mem_write(k->dst_mem, 0, k->dst, bn->out_bytes);
		}
		if (!ret)
			ret = nd_mem_write(k->src_mem, 0, k->src, bn->in_bytes);
		if (ret) {
			fprintf(stderr, TOOL ": rank %u: %s\n", r, nd_device_error(k->dev));
			free(image);
			return -1;
		}
	}
	ret = run_job(bn);
	free(image);
	if (ret)
		return -1;
	for (r = 0; r < bn->n; r++) {
		if (bn->rk[r].model_ps > model_ps)
			model_ps = bn->rk[r].model_ps;
		if (!o->host && o->check &&
		    nd_mem_read(bn->rk[r].dst_mem, 0, bn->rk[r].dst, bn->out_bytes)) {
			fprintf(stderr, TOOL ": rank %u: %s\n", r,
				nd_device_error(bn->rk[r].dev));
			return -1;
		}
	}
	if (o->check && check_job(bn, op, &s))
		return -1;
	sz = s.size_elems * bn->esz;
	host_us = bn->rk[0].host_s / o->iters * 1e6;
	ma = model_ps ? (double)sz / ((double)model_ps * 1e-12) * 1e-9 : 0;
	mb = ma * f;
	ha = host_us > 0 ? (double)sz / (host_us * 1e-6) * 1e-9 : 0;
	hb = ha * f;
	fmt_bw(b1, sizeof(b1), ma);
	fmt_bw(b2, sizeof(b2), mb);
	fmt_bw(b3, sizeof(b3), ha);
	fmt_bw(b4, sizeof(b4), hb);
	printf("%12llu %11llu  %4s %11.3f %9s %9s %11.1f %9s %9s  %5s\n",
	       (unsigned long long)sz, (unsigned long long)s.size_elems,
	       o->dt == ND_BF16 ? "bf16" : "fp32", (double)model_ps * 1e-6, b1, b2, host_us,
	       b3, b4, o->check ? "ok" : "-");
	fflush(stdout);
	tot->model_bus += mb;
	tot->host_bus += hb;
	tot->rows++;
	tot->checked += o->check;
	return 0;
}

/* ---- setting up the ranks ---- */

static int setup_host(struct bench *bn)
{
	uint32_t device[VNEF_CC_MAX_RANKS];
	struct nd_host_comm *comm = NULL;
	struct nd_error err = { 0 };
	unsigned int r;
	int ret;

	for (r = 0; r < bn->n; r++)
		device[r] = r / bn->o->cpd;
	ret = nd_host_comm_new_model(bn->o->model, bn->n, device, &comm);
	if (ret) {
		fprintf(stderr, TOOL ": host communicator: %s\n", strerror(-ret));
		return -1;
	}
	for (r = 0; r < bn->n; r++) {
		ret = nd_host_open(bn->o->model, &bn->rk[r].h, &err);
		if (ret) {
			fprintf(stderr, TOOL ": host backend: %s\n", err.msg);
			break;
		}
		ret = nd_host_set_comm(bn->rk[r].h, comm, r);
		if (ret) {
			fprintf(stderr, TOOL ": rank %u: %s\n", r, nd_host_error(bn->rk[r].h));
			break;
		}
	}
	nd_host_comm_free(comm);	/* the handles keep it */
	return ret ? -1 : 0;
}

static int setup_device(struct bench *bn, uint64_t max_bytes)
{
	const struct opts *o = bn->o;
	struct nd_error err = { 0 };
	nd_comm_id id;
	unsigned int r;
	int ret;

	for (r = 0; r < bn->n; r++) {
		struct rank *k = &bn->rk[r];
		unsigned int d = o->device + r / o->cpd, core = r % o->cpd;

		/* a handle of its own per rank: each rank's thread uses only its own */
		ret = nd_open(d, &k->dev, &err);
		if (ret) {
			fprintf(stderr, TOOL ": rank %u: %s (or use --host)\n", r, err.msg);
			return -1;
		}
		if (!r) {
			ret = nd_comm_create(k->dev, bn->n, &id);
			if (ret) {
				fprintf(stderr, TOOL ": creating a communicator of %u ranks: %s\n",
					bn->n, nd_device_error(k->dev));
				return -1;
			}
		}
		ret = nd_comm_join(k->dev, &id, r, core, &k->comm);
		if (!ret)
			ret = nd_mem_alloc(k->dev, max_bytes, &k->src_mem);
		if (!ret)
			ret = nd_mem_alloc(k->dev, max_bytes, &k->dst_mem);
		if (ret) {
			fprintf(stderr, TOOL ": rank %u (/dev/vneuron%u core %u): %s\n", r, d, core,
				nd_device_error(k->dev));
			return -1;
		}
	}
	return 0;
}

static void teardown(struct bench *bn)
{
	unsigned int r;

	for (r = 0; r < bn->n; r++) {
		struct rank *k = &bn->rk[r];

		nd_host_close(k->h);
		if (k->prog)
			nd_program_unload(k->prog);
		if (k->src_mem)
			nd_mem_free(k->src_mem);
		if (k->dst_mem)
			nd_mem_free(k->dst_mem);
		nd_comm_destroy(k->comm);
		free(k->src);
		free(k->dst);
	}
	/* the devices last: rank 0's handle registered the communicator */
	for (r = bn->n; r-- > 0;)
		nd_close(bn->rk[r].dev);
}

/* ---- options ---- */

static int parse_size(const char *opt, const char *v, uint64_t *out)
{
	char *end;
	unsigned long long x;
	uint64_t mul = 1;

	errno = 0;
	x = v ? strtoull(v, &end, 10) : 0;
	if (!v || !*v || v[0] == '-' || errno || end == v)
		goto bad;
	if (*end == 'K' || *end == 'k')
		mul = 1ull << 10;
	else if (*end == 'M' || *end == 'm')
		mul = 1ull << 20;
	else if (*end == 'G' || *end == 'g')
		mul = 1ull << 30;
	if (mul > 1)
		end++;
	if (*end && strcmp(end, "B") && strcmp(end, "iB"))
		goto bad;
	if (x > (MAX_BYTES / mul))
		goto big;
	*out = x * mul;
	return 0;
bad:
	fprintf(stderr, TOOL ": %s expects a size in bytes (with K, M or G), not '%s'\n", opt,
		v ? v : "");
	return -1;
big:
	fprintf(stderr, TOOL ": %s: '%s' is above the limit of 1G\n", opt, v);
	return -1;
}

static int parse_num(const char *opt, const char *v, unsigned int lo, unsigned int hi,
		     unsigned int *out)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = v ? strtoul(v, &end, 10) : 0;
	if (!v || !*v || v[0] == '-' || *end || errno || x < lo || x > hi) {
		fprintf(stderr, TOOL ": %s expects a number from %u to %u, not '%s'\n", opt, lo,
			hi, v ? v : "");
		return -1;
	}
	*out = (unsigned int)x;
	return 0;
}

static int parse_ops(const char *v, int *want)
{
	char buf[256], *tok, *save = NULL;
	int i;

	if (!v || strlen(v) >= sizeof(buf) || !*v)
		goto bad;
	if (!strcmp(v, "all")) {
		for (i = 0; i < OP_N; i++)
			want[i] = 1;
		return 0;
	}
	for (i = 0; i < OP_N; i++)
		want[i] = 0;
	strcpy(buf, v);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < OP_N; i++)
			if (!strcmp(tok, ops[i].name))
				break;
		if (i == OP_N) {
			fprintf(stderr, TOOL ": --op: unknown collective '%s': all_reduce, "
				"all_gather, reduce_scatter, all_to_all, permute or all\n", tok);
			return -1;
		}
		want[i] = 1;
	}
	return 0;
bad:
	fprintf(stderr, TOOL ": --op expects all or a comma-separated list of collectives\n");
	return -1;
}

static int parse_args(struct opts *o, int argc, char **argv)
{
	int i, dev_set = 0;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int r, took = 1;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 1;
		} else if (!strcmp(a, "--version")) {
			return nd_tool_version(stdout, TOOL) ? -2 : 2;
		} else if (!strcmp(a, "--host")) {
			o->host = 1;
			took = 0;
		} else if (!strcmp(a, "-c") || !strcmp(a, "--check")) {
			o->check = 1;
			took = 0;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			o->quiet = 1;
			took = 0;
		} else if (!strcmp(a, "-b") || !strcmp(a, "--minbytes")) {
			r = parse_size(a, v, &o->minb);
		} else if (!strcmp(a, "-e") || !strcmp(a, "--maxbytes")) {
			r = parse_size(a, v, &o->maxb);
		} else if (!strcmp(a, "-f") || !strcmp(a, "--stepfactor")) {
			unsigned int f;

			r = parse_num(a, v, 2, 1024, &f);
			o->factor = f;
		} else if (!strcmp(a, "-n") || !strcmp(a, "--ranks")) {
			r = parse_num(a, v, 1, VNEF_CC_MAX_RANKS, &o->nranks);
		} else if (!strcmp(a, "--cores-per-device")) {
			r = parse_num(a, v, 1, VNEF_CC_MAX_RANKS, &o->cpd);
		} else if (!strcmp(a, "-i") || !strcmp(a, "--iters")) {
			r = parse_num(a, v, 1, 100000, &o->iters);
		} else if (!strcmp(a, "-w") || !strcmp(a, "--warmup")) {
			r = parse_num(a, v, 0, 100000, &o->warmup);
		} else if (!strcmp(a, "--model")) {
			struct nd_error err = { 0 };

			r = nd_model_lookup(v, &o->model, &err);
			if (r)
				fprintf(stderr, TOOL ": --model: %s\n",
					v ? err.msg : "needs a name (trn1, trn2, trn3)");
		} else if (!strcmp(a, "--device")) {
			r = parse_num(a, v, 0, 255, &o->device);
			dev_set = 1;
		} else if (!strcmp(a, "-d") || !strcmp(a, "--datatype")) {
			r = 0;
			if (v && !strcmp(v, "fp32")) {
				o->dt = ND_FP32;
			} else if (v && !strcmp(v, "bf16")) {
				o->dt = ND_BF16;
			} else {
				fprintf(stderr, TOOL ": %s: fp32 or bf16, not '%s'\n", a,
					v ? v : "");
				r = -1;
			}
		} else if (!strcmp(a, "-o") || !strcmp(a, "--op")) {
			r = parse_ops(v, o->want);
		} else {
			fprintf(stderr, TOOL ": unknown option '%s' (see --help)\n", a);
			return -1;
		}
		if (took && r)
			return -1;
		i += took;
	}
	if (o->host && dev_set) {
		fprintf(stderr, TOOL ": --host and --device exclude each other\n");
		return -1;
	}
	if (o->model && dev_set) {
		fprintf(stderr, TOOL ": --model %.16s is for the host backend: a device has the "
			"model its module was loaded with (vneuron-ls shows it)\n", o->model->name);
		return -1;
	}
	o->host = !dev_set;
	if (!o->minb) {
		fprintf(stderr, TOOL ": -b: the smallest size must be at least 1 byte\n");
		return -1;
	}
	if (o->minb > o->maxb) {
		fprintf(stderr, TOOL ": -b %llu is above -e %llu\n", (unsigned long long)o->minb,
			(unsigned long long)o->maxb);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o = {
		.minb = 1ull << 10, .maxb = 64ull << 20, .factor = 4, .nranks = 4, .cpd = 2,
		.iters = 3, .warmup = 1, .dt = ND_FP32, .want = { 1, 1, 1, 1, 1 },
	};
	struct bench bn = { 0 };
	struct totals all = { 0 };
	unsigned int r, ndev;
	char where[48];
	uint64_t bytes;
	int op, ret = 1;

	ret = parse_args(&o, argc, argv);
	if (ret == 1 || ret == 2)
		return 0;
	if (ret == -2)
		return 1;
	if (ret)
		return 2;
	ret = 1;
	bn.o = &o;
	bn.n = o.nranks;
	bn.esz = o.dt == ND_BF16 ? 2 : 4;
	bn.rk = calloc(bn.n, sizeof(*bn.rk));
	if (!bn.rk)
		return 1;
	for (r = 0; r < bn.n; r++) {
		bn.rk[r].src = malloc(o.maxb);
		bn.rk[r].dst = malloc(o.maxb);
		if (!bn.rk[r].src || !bn.rk[r].dst) {
			fprintf(stderr, TOOL ": out of memory for %u x 2 buffers of %llu bytes\n",
				bn.n, (unsigned long long)o.maxb);
			goto out;
		}
		fill_input(bn.rk[r].src, o.dt, r, o.maxb / bn.esz);
	}
	if (o.host ? setup_host(&bn) : setup_device(&bn, o.maxb))
		goto out;
	ndev = (bn.n + o.cpd - 1) / o.cpd;
	snprintf(where, sizeof(where), "%s%s%.16s%s", o.host ? "host backend" : "device",
		 o.model ? " (" : "", o.model ? o.model->name : "", o.model ? ")" : "");
	if (!o.quiet) {
		printf("# %s: %u ranks (%u device%s x %u cores), %s, %s, %u iterations after %u "
		       "warm-up%s\n", TOOL, bn.n, ndev, ndev == 1 ? "" : "s", o.cpd,
		       where, o.dt == ND_BF16 ? "bf16" : "fp32",
		       o.iters, o.warmup, o.check ? ", checked" : "");
		if (!o.host)
			for (r = 0; r < bn.n; r++)
				printf("#   rank %u: /dev/vneuron%u core %u\n", r,
				       o.device + r / o.cpd, r % o.cpd);
		printf("# algbw = size / time, busbw = algbw x factor, in GB/s; model: modeled "
		       "time, host: wall time\n");
	}
	for (op = 0; op < OP_N; op++) {
		struct totals t = { 0 };

		if (!o.want[op])
			continue;
		printf("#\n# %s (bus factor %.3f)\n", ops[op].name, bus_factor(op, bn.n));
		printf("# %10s %11s  %4s %11s %9s %9s %11s %9s %9s  %5s\n", "size", "count",
		       "type", "model_us", "algbw", "busbw", "host_us", "algbw", "busbw",
		       "check");
		for (bytes = o.minb; bytes <= o.maxb; bytes *= o.factor) {
			if (bench_size(&bn, op, bytes, &t))
				goto out;
			if (bytes > o.maxb / o.factor)
				break;
		}
		if (!o.quiet && t.rows)
			printf("# %s: avg busbw %.3f GB/s modeled, %.3f GB/s host\n", ops[op].name,
			       t.model_bus / t.rows, t.host_bus / t.rows);
		all.rows += t.rows;
		all.checked += t.checked;
		all.model_bus += t.model_bus;
		all.host_bus += t.host_bus;
	}
	if (!o.quiet) {
		printf("#\n# Avg bus bandwidth: %.3f GB/s modeled, %.3f GB/s host (%u rows)\n",
		       all.rows ? all.model_bus / all.rows : 0.0,
		       all.rows ? all.host_bus / all.rows : 0.0, all.rows);
		if (o.check)
			printf("# check: %u of %u results match the C reference\n", all.checked,
			       all.rows);
	}
	ret = 0;
out:
	teardown(&bn);
	free(bn.rk);
	return ret;
}
