// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * `vneuron-profile capture`: runs a program (or a whole application) on a vneuron device
 * with tracing on and writes the raw records into a .vntf profile while it runs.
 *
 * Two device handles: one traces (TRACE_START, ring mappings, poll()), one runs the
 * program, so the drainer's poll() reports ring data only, never the run's completions.
 * A drainer thread owns the profile writer from the first record to the last drain;
 * the main thread writes the header sections before it starts and the lost counts and
 * the end section after it joined.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "neurondev.h"
#include "ring.h"
#include "sha256.h"
#include "timeline.h"
#include "vntf.h"

#define CAP_MAX_CORES	8
#define CAP_MAX_RINGS	8
#define CAP_MAX_INPUTS	64

static const char capture_usage[] =
"NAME\n"
"    vneuron-profile capture - run a program or an application with tracing on\n"
"\n"
"SYNOPSIS\n"
"    vneuron-profile capture -n PROGRAM.vnef -s PROFILE.vntf [NAME FILE ...]\n"
"                            [--num-exec N] [--profile-nth-exec K]\n"
"                            [--ignore-exec-errors] [--core C] [--device D]\n"
"                            [--ring-size BYTES] [--mode stop|overwrite]\n"
"    vneuron-profile capture -s PROFILE.vntf [--core C]... [--device D]\n"
"                            [--ring-size BYTES] [--mode stop|overwrite] -- APP [ARGS]\n"
"\n"
"DESCRIPTION\n"
"    The first form loads PROGRAM.vnef on /dev/vneuronD, binds every input and\n"
"    output tensor to a device buffer, fills the inputs (from the NAME FILE pairs,\n"
"    zeros for the others), runs the program N times on core C and writes every\n"
"    trace record of the traced executions into PROFILE.vntf, together with the\n"
"    device model, the program's SHA-256, name and debug table, the clocks, the\n"
"    rings' lost counts and the core's identity. Read it with\n"
"    'vneuron-profile view -n PROGRAM.vnef -s PROFILE.vntf'.\n"
"\n"
"    The second form traces cores of the device while APP runs (every execution\n"
"    any process starts there) and writes the profile when APP exits; APP gets\n"
"    VNEURON_PROFILE=PROFILE.vntf in its environment. Capture's exit status is then\n"
"    APP's (or 128+signal). APP also gets VNEURON_PROFILE_API=PROFILE.vntf.api:\n"
"    libneurondev logs every API call there (open, alloc, load, exec, wait, with\n"
"    host times and sequence numbers) and capture moves that log into the profile\n"
"    as one more stream, correlated with the device's records by execution number.\n"
"\n"
"    The rings are drained through mmap while the workload runs, by a thread woken\n"
"    by poll(); nothing is processed at capture time. Every record the device could\n"
"    not store (stop mode, ring full) or that was overwritten before it was read\n"
"    (overwrite mode) is counted, printed at the end and stored in the profile.\n"
"    On a terminal, runs longer than a second show their progress on stderr.\n"
"\n"
"INPUTS\n"
"    NAME FILE binds the input tensor NAME to FILE: a NumPy .npy file (little-endian\n"
"    float32, C order, as many elements as the tensor; converted for bf16 tensors)\n"
"    or raw bytes of exactly the tensor's size in its dtype.\n"
"\n"
"OPTIONS\n"
"    -n, --program FILE        the .vnef program to run\n"
"    -s, --session FILE        the .vntf profile to write (required)\n"
"    -N, --num-exec N          executions (default 1)\n"
"    -k, --profile-nth-exec K  trace only the K-th execution (1..N); the others run\n"
"                              untraced, as warm-up or cool-down (default: trace all)\n"
"    -i, --ignore-exec-errors  keep going when an execution fails (default: stop\n"
"                              after the failed one, still write the profile, exit 1)\n"
"    -c, --core C              core to run and trace (default 0); in the second\n"
"                              form, repeat it to trace several (default: all)\n"
"    -d, --device D            /dev/vneuronD (default 0)\n"
"    -r, --ring-size BYTES     data bytes per ring, a power of two from 4K to 256M;\n"
"                              suffixes K, M (default 4M: 65536 records per engine)\n"
"    -m, --mode MODE           stop: a full ring drops new records and counts them\n"
"                              (default); overwrite: a flight recorder that keeps the\n"
"                              newest records and counts the overwritten ones\n"
"    -w, --watermark BYTES     published bytes between two wake-ups of the drainer\n"
"                              (default half the ring)\n"
"    -q, --quiet               no progress, no summary line\n"
"    -h, --help                this text\n"
"\n"
"EXIT STATUS\n"
"    0 success; 1 bad input (unreadable or invalid program, bad input file) or a\n"
"    failed execution; 2 usage error; 3 device, memory or write error.\n"
"\n"
"EXAMPLES\n"
"    vneuron-profile capture -n mm.vnef -s mm.vntf a at.npy b b.npy --num-exec 10\n"
"    vneuron-profile capture -n mm.vnef -s mm.vntf -N 5 -k 5 --mode overwrite\n"
"    vneuron-profile capture -s app.vntf -- ./train --steps 100\n"
"\n"
"SEE ALSO\n"
"    vneuron-profile view, docs/profiler.md, docs/trace-buffer.md\n";

struct cap_input {
	const char *name, *path;
};

struct cap_opts {
	const char *program, *profile;
	unsigned int num_exec, nth, device, nr_cores, cores[CAP_MAX_CORES];
	int ignore_errors, quiet, mode, watermark_set;
	uint64_t ring_size, watermark;
	unsigned int nr_inputs;
	struct cap_input inputs[CAP_MAX_INPUTS];
	char **app;
};

/* A program image's tensors and debug table, read with every bound checked. */
struct cap_tensor {
	const char *name;
	uint32_t kind, dtype;
	uint64_t size, numel;
};

struct cap_prog {
	uint8_t *img;
	size_t size;
	char name[64];
	uint32_t nr;
	struct cap_tensor *t;
	const void *debug;
	size_t debug_size;
};

struct cap {
	struct nd_device *tdev;		/* the tracing file */
	unsigned int nr_cores;
	unsigned int core[CAP_MAX_CORES];
	struct nd_trace *tr[CAP_MAX_CORES];
	unsigned int nr_rings[CAP_MAX_CORES];
	struct vnp_ring ring[CAP_MAX_CORES][CAP_MAX_RINGS];
	struct vntf_writer *w;
	pthread_t thr;
	int running;
	int stop;			/* atomic: main -> drainer */
	int err;			/* drainer's error, after join */
	uint64_t records;		/* atomic: drained so far */
};

static void err_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void err_msg(const char *fmt, ...)
{
	va_list ap;

	fputs("vneuron-profile capture: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static uint64_t now_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int parse_uint(const char *s, unsigned long long max, unsigned long long *v, int sfx)
{
	unsigned long long x, m = 1;
	char *end;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	if (sfx && *end) {
		if (!strcmp(end, "K") || !strcmp(end, "k") || !strcmp(end, "KiB"))
			m = 1ull << 10;
		else if (!strcmp(end, "M") || !strcmp(end, "MiB"))
			m = 1ull << 20;
		else
			return -1;
		end += strlen(end);
	}
	if (*end || x > max / m)
		return -1;
	*v = x * m;
	return 0;
}

/* ---- the program image ---- */

static const char *strtab_at(const uint8_t *st, uint64_t st_size, uint32_t off)
{
	if (!st || off >= st_size || !memchr(st + off, 0, st_size - off))
		return NULL;
	return (const char *)st + off;
}

static int prog_parse(struct cap_prog *p, const char *path)
{
	const struct vnef_header *h;
	const struct vnef_section *sec;
	const struct vnef_tensor *vt = NULL;
	const uint8_t *st = NULL;
	uint64_t st_size = 0;
	uint32_t i, nt = 0;
	void *raw = NULL;
	int ret;

	ret = nd_read_file(path, VNEF_MAX_IMAGE_BYTES, &raw, &p->size);
	p->img = raw;
	if (ret) {
		err_msg("%s: %s", path, ret == -EFBIG ? "larger than a program may be" :
			strerror(-ret));
		return ret == -ENOMEM ? 3 : 1;
	}
	h = (const void *)p->img;
	if (p->size < sizeof(*h) || h->magic != VNEF_MAGIC) {
		err_msg("%s: not a .vnef program (bad magic)", path);
		return 1;
	}
	if (h->version != VNEF_VERSION) {
		err_msg("%s: .vnef version %u, this build reads version %u", path, h->version,
			VNEF_VERSION);
		return 1;
	}
	if (h->header_size < sizeof(*h) || h->section_entry_size != sizeof(*sec) ||
	    h->total_size != p->size || h->section_count > VNEF_MAX_SECTIONS ||
	    h->header_size + (uint64_t)h->section_count * sizeof(*sec) > p->size) {
		err_msg("%s: truncated or malformed .vnef header", path);
		return 1;
	}
	sec = (const void *)(p->img + h->header_size);
	for (i = 0; i < h->section_count; i++) {
		if (sec[i].offset > p->size || sec[i].size > p->size - sec[i].offset ||
		    sec[i].offset % 8) {
			err_msg("%s: section %u lies outside the image", path, i);
			return 1;
		}
		if (sec[i].type == VNEF_SEC_STRTAB) {
			st = p->img + sec[i].offset;
			st_size = sec[i].size;
		} else if (sec[i].type == VNEF_SEC_TENSORS) {
			if (sec[i].entry_size != sizeof(*vt) ||
			    (uint64_t)sec[i].count * sizeof(*vt) > sec[i].size) {
				err_msg("%s: malformed tensor table", path);
				return 1;
			}
			vt = (const void *)(p->img + sec[i].offset);
			nt = sec[i].count;
		} else if (sec[i].type == VNEF_SEC_DEBUG) {
			p->debug = p->img + sec[i].offset;
			p->debug_size = sec[i].size;
		}
	}
	snprintf(p->name, sizeof(p->name), "%s",
		 strtab_at(st, st_size, h->name_off) ?: "");
	p->t = calloc(nt ? nt : 1, sizeof(*p->t));
	if (!p->t)
		return 3;
	p->nr = nt;
	for (i = 0; i < nt; i++) {
		struct cap_tensor *t = &p->t[i];
		uint32_t d;

		t->name = strtab_at(st, st_size, vt[i].name_off);
		t->kind = vt[i].kind;
		t->dtype = vt[i].dtype;
		t->size = vt[i].size;
		t->numel = vt[i].rank ? 1 : 0;
		for (d = 0; d < vt[i].rank && d < VNEF_MAX_RANK; d++)
			t->numel *= vt[i].shape[d];
		if (!t->name || (t->dtype != VNEF_DT_FP32 && t->dtype != VNEF_DT_BF16) ||
		    t->numel * (t->dtype == VNEF_DT_FP32 ? 4 : 2) != t->size) {
			err_msg("%s: tensor %u is malformed", path, i);
			return 1;
		}
	}
	return 0;
}

/* ---- inputs: .npy or raw ---- */

/* The data of a version 1-3 .npy of little-endian float32 in C order, element count n. */
static int npy_data(const uint8_t *b, size_t len, const uint8_t **data, uint64_t *n,
		    const char **why)
{
	size_t hl, off;
	const char *h, *p;
	char hdr[1024];
	uint64_t count = 1;

	if (len < 10 || memcmp(b, "\x93NUMPY", 6)) {
		*why = "not a .npy file";
		return -1;
	}
	if (b[6] == 1) {
		hl = b[8] | (size_t)b[9] << 8;
		off = 10;
	} else if ((b[6] == 2 || b[6] == 3) && len >= 12) {
		hl = b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24;
		off = 12;
	} else {
		*why = "unknown .npy version";
		return -1;
	}
	if (hl >= sizeof(hdr) || off + hl > len) {
		*why = "truncated .npy header";
		return -1;
	}
	memcpy(hdr, b + off, hl);
	hdr[hl] = 0;
	h = hdr;
	if (!strstr(h, "'descr': '<f4'") && !strstr(h, "'descr':'<f4'")) {
		*why = "dtype is not little-endian float32 ('<f4')";
		return -1;
	}
	if (strstr(h, "'fortran_order': True")) {
		*why = "Fortran order is not supported (save C order)";
		return -1;
	}
	p = strstr(h, "'shape':");
	p = p ? strchr(p, '(') : NULL;
	if (!p) {
		*why = "no shape in the .npy header";
		return -1;
	}
	for (p++; *p && *p != ')';) {
		unsigned long long d;
		char *end;

		while (*p == ' ' || *p == ',')
			p++;
		if (*p == ')')
			break;
		d = strtoull(p, &end, 10);
		if (end == p || (d && count > UINT64_MAX / d)) {
			*why = "bad shape in the .npy header";
			return -1;
		}
		count *= d;
		p = end;
	}
	off += hl;
	if ((len - off) / 4 < count) {
		*why = "fewer elements than the header says";
		return -1;
	}
	*data = b + off;
	*n = count;
	return 0;
}

/* Fills buf (the tensor's size) from a file; 0 or an exit status. */
static int load_input(const struct cap_tensor *t, const char *path, uint8_t *buf)
{
	const uint8_t *data;
	const char *why = NULL;
	uint8_t *file;
	void *raw = NULL;
	size_t len;
	uint64_t n, i;
	int ret;

	ret = nd_read_file(path, VNEF_MAX_TENSOR_BYTES * 2 + 4096, &raw, &len);
	file = raw;
	if (ret) {
		err_msg("input '%s': %s: %s", t->name, path, strerror(-ret));
		return ret == -ENOMEM ? 3 : 1;
	}
	if (len >= 6 && !memcmp(file, "\x93NUMPY", 6)) {
		if (npy_data(file, len, &data, &n, &why)) {
			err_msg("input '%s': %s: %s", t->name, path, why);
			free(file);
			return 1;
		}
		if (n != t->numel) {
			err_msg("input '%s': %s holds %llu elements, the tensor %llu", t->name,
				path, (unsigned long long)n, (unsigned long long)t->numel);
			free(file);
			return 1;
		}
		for (i = 0; i < n; i++) {
			float f;

			memcpy(&f, data + 4 * i, 4);
			if (t->dtype == VNEF_DT_FP32) {
				memcpy(buf + 4 * i, &f, 4);
			} else {
				uint16_t h = nd_fp32_to_bf16(f);

				memcpy(buf + 2 * i, &h, 2);
			}
		}
	} else if (len == t->size) {
		memcpy(buf, file, len);
	} else {
		err_msg("input '%s': %s is %zu bytes of raw data, the tensor %llu bytes "
			"(or give a .npy file)", t->name, path, len, (unsigned long long)t->size);
		free(file);
		return 1;
	}
	free(file);
	return 0;
}

/* ---- tracing and the drainer ---- */

static ssize_t drain_all(struct cap *c)
{
	ssize_t n, total = 0;
	unsigned int i, j;

	for (i = 0; i < c->nr_cores; i++) {
		for (j = 0; j < c->nr_rings[i]; j++) {
			n = vnp_ring_drain_vntf(&c->ring[i][j], c->w, i * CAP_MAX_RINGS + j);
			if (n < 0)
				return n;
			total += n;
		}
	}
	return total;
}

static void *drainer(void *arg)
{
	struct cap *c = arg;
	ssize_t n;
	int stop, r;

	for (;;) {
		stop = __atomic_load_n(&c->stop, __ATOMIC_ACQUIRE);
		n = drain_all(c);
		if (n < 0) {
			c->err = (int)n;
			break;
		}
		__atomic_add_fetch(&c->records, (uint64_t)n, __ATOMIC_RELAXED);
		/* Set after the rings were stopped: this pass saw their last records. */
		if (stop)
			break;
		if (!n) {
			r = nd_trace_poll(c->tdev, 50);
			if (r < 0 && r != -EINTR) {
				c->err = r;
				break;
			}
		}
	}
	return NULL;
}

static int cap_trace_start(struct cap *c, const struct cap_opts *o,
			   const struct vneuron_info *info)
{
	struct nd_trace_opts to = {
		.mode = (uint32_t)o->mode,
		.ring_size = o->ring_size,
		.watermark = (uint32_t)o->watermark,
	};
	struct vntf_worker wk = { .device = o->device, .pid = (uint32_t)getpid(),
				  .nr_workers = 1 };
	unsigned int i, j;
	int ret;

	gethostname(wk.hostname, sizeof(wk.hostname) - 1);
	for (i = 0; i < c->nr_cores; i++) {
		ret = nd_trace_start(c->tdev, c->core[i], &to, &c->tr[i]);
		if (ret) {
			err_msg("%s", nd_device_error(c->tdev));
			return 3;
		}
		c->nr_rings[i] = nd_trace_nr_rings(c->tr[i]);
		if (c->nr_rings[i] > CAP_MAX_RINGS) {
			err_msg("the device reports %u rings per core, this build handles %u",
				c->nr_rings[i], CAP_MAX_RINGS);
			return 3;
		}
		for (j = 0; j < c->nr_rings[i]; j++) {
			struct nd_trace_ring m;

			if (nd_trace_ring(c->tr[i], j, &m) ||
			    vnp_ring_init(&c->ring[i][j], m.cons, m.ctrl, m.ctrl_len)) {
				err_msg("core %u ring %u: the control page is not valid", c->core[i],
					j);
				return 3;
			}
			wk.stream = i * CAP_MAX_RINGS + j;
			wk.core = c->core[i];
			wk.engine = c->ring[i][j].ctrl->engine;
			wk.mode = c->ring[i][j].ctrl->mode;
			wk.ring_size = c->ring[i][j].ctrl->data_size;
			ret = vntf_write_worker(c->w, &wk);
			if (ret)
				return 3;
		}
	}
	(void)info;
	ret = pthread_create(&c->thr, NULL, drainer, c);
	if (ret) {
		err_msg("cannot start the drainer thread: %s", strerror(ret));
		return 3;
	}
	c->running = 1;
	return 0;
}

/* Stops the rings, lets the drainer take the rest, joins it. 0 or an exit status. */
static int cap_trace_stop(struct cap *c)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < c->nr_cores; i++)
		if (c->tr[i] && nd_trace_stop(c->tr[i])) {
			err_msg("%s", nd_device_error(c->tdev));
			ret = 3;
		}
	if (c->running) {
		__atomic_store_n(&c->stop, 1, __ATOMIC_RELEASE);
		pthread_join(c->thr, NULL);
		c->running = 0;
		if (c->err) {
			err_msg("draining the rings: %s", c->err == -EIO ?
				"a ring's positions are corrupt" : strerror(-c->err));
			ret = 3;
		}
	}
	return ret;
}

/* Lost-count sections, a summary line; the totals in *lostp. */
static int cap_write_lost(struct cap *c, int quiet)
{
	uint64_t dropped = 0, over = 0;
	unsigned int i, j;

	for (i = 0; i < c->nr_cores; i++) {
		for (j = 0; j < c->nr_rings[i]; j++) {
			struct vnp_ring *r = &c->ring[i][j];

			if (vnp_ring_write_lost(r, c->w, i * CAP_MAX_RINGS + j))
				return 3;
			dropped += vnp_ring_dropped(r);
			over += vnp_ring_lost(r);
		}
	}
	if (!quiet)
		fprintf(stderr, "vneuron-profile capture: %llu records", (unsigned long long)
			__atomic_load_n(&c->records, __ATOMIC_RELAXED));
	if (dropped || over)
		fprintf(stderr, "%s%llu records lost (%llu dropped on full rings, "
			"%llu overwritten before they were read)\n", quiet ?
			"vneuron-profile capture: " : ", ",
			(unsigned long long)(dropped + over), (unsigned long long)dropped,
			(unsigned long long)over);
	else if (!quiet)
		fputs(", none lost\n", stderr);
	return 0;
}

static void cap_free(struct cap *c)
{
	unsigned int i;

	for (i = 0; i < c->nr_cores; i++)
		nd_trace_free(c->tr[i]);
	nd_close(c->tdev);
}

static int cap_begin(struct cap *c, const struct cap_opts *o, struct vneuron_info *info,
		     const struct cap_prog *p)
{
	struct vntf_clock clk = { .model_unit_ps = 1 };
	struct vntf_program vp = { .hash_algo = VNTF_HASH_SHA256, .hash_len = 32 };
	struct timespec res;
	struct nd_error e;
	unsigned int i;
	int ret;

	ret = nd_open(o->device, &c->tdev, &e);
	if (ret) {
		err_msg("%s", e.msg);
		return 3;
	}
	if (nd_info(c->tdev, info)) {
		err_msg("%s", nd_device_error(c->tdev));
		return 3;
	}
	if (!(info->caps & VNEURON_CAP_TRACE)) {
		err_msg("/dev/vneuron%u has no trace rings (VNEURON_CAP_TRACE)", o->device);
		return 3;
	}
	if (o->nr_cores) {
		for (i = 0; i < o->nr_cores; i++) {
			if (o->cores[i] >= info->core_count) {
				err_msg("--core %u: /dev/vneuron%u has %u cores", o->cores[i],
					o->device, info->core_count);
				return 2;
			}
			c->core[i] = o->cores[i];
		}
		c->nr_cores = o->nr_cores;
	} else {
		c->nr_cores = info->core_count < CAP_MAX_CORES ? info->core_count : CAP_MAX_CORES;
		for (i = 0; i < c->nr_cores; i++)
			c->core[i] = i;
	}
	ret = vntf_writer_open(&c->w, o->profile);
	if (ret) {
		err_msg("%s: %s", o->profile, strerror(-ret));
		return 3;
	}
	clock_getres(CLOCK_MONOTONIC, &res);
	clk.host_start_ns = now_ns(CLOCK_MONOTONIC);
	clk.realtime_start_ns = now_ns(CLOCK_REALTIME);
	clk.host_resolution_ns = (uint64_t)res.tv_sec * 1000000000ull + (uint64_t)res.tv_nsec;
	ret = vntf_write_model(c->w, &info->model) ?: vntf_write_clock(c->w, &clk);
	if (!ret && p) {
		vnp_sha256(p->img, p->size, vp.hash);
		vp.image_size = p->size;
		snprintf(vp.name, sizeof(vp.name), "%s", p->name);
		ret = vntf_write_program(c->w, &vp, p->debug, p->debug_size);
	}
	if (ret) {
		err_msg("%s: cannot write the profile: %s", o->profile,
			strerror(vntf_writer_errno(c->w) ?: EINVAL));
		return 3;
	}
	return 0;
}

static int cap_finish(struct cap *c, const struct cap_opts *o, int status)
{
	int ret = cap_trace_stop(c);

	if (!ret)
		ret = cap_write_lost(c, o->quiet);
	if (!ret && vntf_writer_finish(c->w, now_ns(CLOCK_MONOTONIC))) {
		err_msg("%s: cannot write the profile: %s", o->profile, strerror(EIO));
		ret = 3;
	} else if (ret) {
		vntf_writer_abort(c->w);
	}
	c->w = NULL;
	return ret ? ret : status;
}

/* ---- the program form ---- */

static void progress(const struct cap *c, unsigned int i, unsigned int n, uint64_t t0,
		     uint64_t *last, int done)
{
	uint64_t t = now_ns(CLOCK_MONOTONIC);

	if (!done && (t - t0 < 1000000000ull || t - *last < 200000000ull))
		return;
	if (!*last && done)
		return;		/* short run: nothing was shown */
	*last = t;
	fprintf(stderr, "\rexecution %u/%u, %llu records, %.1f s%s", i, n,
		(unsigned long long)__atomic_load_n(&c->records, __ATOMIC_RELAXED),
		(double)(t - t0) / 1e9, done ? "\n" : "");
}

static int run_program(const struct cap_opts *o)
{
	struct cap c = { 0 };
	struct cap_prog p = { 0 };
	struct vneuron_info info;
	struct nd_device *xdev = NULL;
	struct nd_program *prog = NULL;
	struct nd_load_error le;
	struct nd_bind *binds = NULL;
	struct nd_mem **mems = NULL;
	unsigned int i, j, nb = 0, failed = 0;
	uint64_t t0, last = 0;
	int tty = isatty(2) && !o->quiet, ret, status = 0;
	struct nd_error e;

	ret = prog_parse(&p, o->program);
	if (ret)
		goto out;
	for (i = 0; i < o->nr_inputs; i++) {
		for (j = 0; j < p.nr; j++)
			if (!strcmp(p.t[j].name, o->inputs[i].name))
				break;
		if (j == p.nr || p.t[j].kind != VNEF_TENSOR_INPUT) {
			err_msg("%s has no input tensor '%s'", o->program, o->inputs[i].name);
			ret = 1;
			goto out;
		}
	}
	ret = cap_begin(&c, o, &info, &p);
	if (ret)
		goto out;
	if (nd_open(o->device, &xdev, &e)) {
		err_msg("%s", e.msg);
		ret = 3;
		goto out;
	}
	if (nd_program_load(xdev, p.img, p.size, &prog, &le)) {
		err_msg("%s: %s", o->program, nd_device_error(xdev));
		ret = 1;
		goto out;
	}
	binds = calloc(p.nr + 1, sizeof(*binds));
	mems = calloc(p.nr + 1, sizeof(*mems));
	if (!binds || !mems) {
		ret = 3;
		goto out;
	}
	for (j = 0; j < p.nr; j++) {
		const struct cap_tensor *t = &p.t[j];
		uint8_t *buf;

		if (t->kind != VNEF_TENSOR_INPUT && t->kind != VNEF_TENSOR_OUTPUT)
			continue;
		if (nd_mem_alloc(xdev, t->size, &mems[nb])) {
			err_msg("tensor '%s' (%llu bytes): %s", t->name,
				(unsigned long long)t->size, nd_device_error(xdev));
			ret = 3;
			goto out;
		}
		binds[nb].name = t->name;
		binds[nb].mem = mems[nb];
		nb++;
		for (i = 0; i < o->nr_inputs; i++)
			if (!strcmp(t->name, o->inputs[i].name))
				break;
		if (i == o->nr_inputs)
			continue;	/* device memory starts zeroed */
		buf = malloc(t->size);
		if (!buf) {
			ret = 3;
			goto out;
		}
		ret = load_input(t, o->inputs[i].path, buf);
		if (!ret && nd_mem_write(mems[nb - 1], 0, buf, t->size)) {
			err_msg("input '%s': %s", t->name, nd_device_error(xdev));
			ret = 3;
		}
		free(buf);
		if (ret)
			goto out;
	}
	if (!o->nth) {
		ret = cap_trace_start(&c, o, &info);
		if (ret)
			goto out;
	}
	t0 = now_ns(CLOCK_MONOTONIC);
	for (i = 1; i <= o->num_exec; i++) {
		struct nd_run_result r;
		uint64_t id;

		if (o->nth == i) {
			ret = cap_trace_start(&c, o, &info);
			if (ret)
				goto out;
		}
		if (nd_exec(prog, c.core[0], binds, nb, 0, &id) ||
		    nd_wait(xdev, id, ND_WAIT_FOREVER, &r)) {
			err_msg("execution %u: %s", i, nd_device_error(xdev));
			ret = 3;
			goto out;
		}
		if (o->nth == i) {
			ret = cap_trace_stop(&c);
			if (ret)
				goto out;
		}
		if (r.result != VNEURON_EXEC_OK) {
			char where[48] = "";

			if (tty && last)
				fputc('\n', stderr);
			if (r.stream < VNEF_STREAMS) {
				char sn[32];

				snprintf(where, sizeof(where), " at %s %s %u",
					 vnp_stream_name(r.stream, sn, sizeof(sn)),
					 r.stream < VNEF_ENGINES ? "pc" : "desc", r.pc);
			}
			/* FAULT: the profile's ERROR record says which access (view shows it) */
			err_msg("execution %u ended %s%s%s (reason %u)%s%s", i,
				vnp_exec_status_name(r.result), *vnp_exec_reason_name(r.reason) ?
				": " : "", vnp_exec_reason_name(r.reason), r.reason, where,
				o->ignore_errors ? "; going on (--ignore-exec-errors)" : "");
			failed++;
			status = 1;
			if (!o->ignore_errors)
				break;
		}
		if (tty)
			progress(&c, i, o->num_exec, t0, &last, 0);
	}
	if (tty)
		progress(&c, i > o->num_exec ? o->num_exec : i, o->num_exec, t0, &last, 1);
	ret = cap_finish(&c, o, status);
	if (failed && o->ignore_errors)
		err_msg("%u of %u executions failed", failed, o->num_exec);
out:
	if (c.w) {
		cap_trace_stop(&c);
		vntf_writer_abort(c.w);
	}
	for (j = 0; mems && j < nb; j++)
		nd_mem_free(mems[j]);
	free(mems);
	free(binds);
	if (prog)
		nd_program_unload(prog);
	nd_close(xdev);
	cap_free(&c);
	free(p.t);
	free(p.img);
	return ret;
}

/* ---- the application form ---- */

/* The stream of the application's API calls, after the rings' streams. */
#define CAP_API_STREAM	(CAP_MAX_CORES * CAP_MAX_RINGS)

/*
 * Moves the API call log the application's libneurondev wrote (VNEURON_PROFILE_API) into
 * the profile as one stream of MARKER records, and deletes it. 0 or an exit status.
 */
static int merge_api_log(struct cap *c, const char *path, pid_t pid, const char *hostname)
{
	struct vntf_worker wk = { .stream = CAP_API_STREAM, .engine = VNEURON_TRACE_ENGINE_CORE,
				  .pid = (uint32_t)pid, .nr_workers = 1 };
	struct vneuron_trace_record buf[256];
	size_t n, i, kept;
	int ret = 0, declared = 0;
	FILE *f = fopen(path, "rb");

	if (!f)
		return 0;
	snprintf(wk.hostname, sizeof(wk.hostname), "%s", hostname);
	while ((n = fread(buf, sizeof(buf[0]), 256, f)) > 0) {
		/* Only what libneurondev writes there: API markers. */
		for (i = kept = 0; i < n; i++)
			if (buf[i].kind == VNEURON_TRACE_MARKER && buf[i].opcode > VNEURON_TRACE_API)
				buf[kept++] = buf[i];
		if (!kept)
			continue;
		if (!declared && vntf_write_worker(c->w, &wk)) {
			ret = 3;
			break;
		}
		declared = 1;
		if (vntf_write_records(c->w, CAP_API_STREAM, buf, kept)) {
			ret = 3;
			break;
		}
		__atomic_add_fetch(&c->records, kept, __ATOMIC_RELAXED);
	}
	fclose(f);
	unlink(path);
	return ret;
}

static int run_app(const struct cap_opts *o)
{
	char api[PATH_MAX + 8], host[64] = "";
	struct cap c = { 0 };
	struct vneuron_info info;
	int ret, st, status, fd;
	pid_t pid;

	ret = cap_begin(&c, o, &info, NULL);
	if (!ret)
		ret = cap_trace_start(&c, o, &info);
	if (ret)
		goto out;
	gethostname(host, sizeof(host) - 1);
	snprintf(api, sizeof(api), "%s.api", o->profile);
	fd = open(api, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		err_msg("%s: %s", api, strerror(errno));
		ret = 3;
		goto out;
	}
	close(fd);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		err_msg("fork: %s", strerror(errno));
		unlink(api);
		ret = 3;
		goto out;
	}
	if (!pid) {
		setenv("VNEURON_PROFILE", o->profile, 1);
		setenv("VNEURON_PROFILE_API", api, 1);
		execvp(o->app[0], o->app);
		fprintf(stderr, "vneuron-profile capture: %s: %s\n", o->app[0], strerror(errno));
		_exit(127);
	}
	/* The application owns the terminal's ^C; we stay to write what it left. */
	signal(SIGINT, SIG_IGN);
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR) {
			st = 0;
			break;
		}
	}
	signal(SIGINT, SIG_DFL);
	status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
	ret = cap_trace_stop(&c);
	if (!ret)
		ret = merge_api_log(&c, api, pid, host);
	else
		unlink(api);
	if (!ret)
		ret = cap_finish(&c, o, status);
out:
	if (c.w) {
		cap_trace_stop(&c);
		vntf_writer_abort(c.w);
	}
	cap_free(&c);
	return ret;
}

int vnp_capture_main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "program", required_argument, NULL, 'n' },
		{ "session", required_argument, NULL, 's' },
		{ "num-exec", required_argument, NULL, 'N' },
		{ "profile-nth-exec", required_argument, NULL, 'k' },
		{ "ignore-exec-errors", no_argument, NULL, 'i' },
		{ "core", required_argument, NULL, 'c' },
		{ "device", required_argument, NULL, 'd' },
		{ "ring-size", required_argument, NULL, 'r' },
		{ "mode", required_argument, NULL, 'm' },
		{ "watermark", required_argument, NULL, 'w' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cap_opts o = { .num_exec = 1 };
	unsigned long long v;
	int opt, i, dashdash = 0;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			dashdash = i;
			break;
		}
	optind = 1;
	opterr = 0;
	/* Options and NAME FILE pairs in any order; "--" ends capture's own arguments. */
	while ((opt = getopt_long(dashdash ? dashdash : argc, argv, "n:s:N:k:ic:d:r:m:w:qh",
				  lo, NULL)) != -1) {
		switch (opt) {
		case 'n':
			o.program = optarg;
			break;
		case 's':
			o.profile = optarg;
			break;
		case 'N':
			if (parse_uint(optarg, UINT_MAX, &v, 0) || !v) {
				err_msg("--num-exec '%s': give a count of at least 1", optarg);
				return 2;
			}
			o.num_exec = (unsigned int)v;
			break;
		case 'k':
			if (parse_uint(optarg, UINT_MAX, &v, 0) || !v) {
				err_msg("--profile-nth-exec '%s': give an execution number from 1",
					optarg);
				return 2;
			}
			o.nth = (unsigned int)v;
			break;
		case 'i':
			o.ignore_errors = 1;
			break;
		case 'c':
			if (parse_uint(optarg, CAP_MAX_CORES - 1, &v, 0)) {
				err_msg("--core '%s': give a core number from 0 to %u", optarg,
					CAP_MAX_CORES - 1);
				return 2;
			}
			if (o.nr_cores == CAP_MAX_CORES) {
				err_msg("--core given more than %u times", CAP_MAX_CORES);
				return 2;
			}
			o.cores[o.nr_cores++] = (unsigned int)v;
			break;
		case 'd':
			if (parse_uint(optarg, 255, &v, 0)) {
				err_msg("--device '%s': give a device number", optarg);
				return 2;
			}
			o.device = (unsigned int)v;
			break;
		case 'r':
			if (parse_uint(optarg, VNEURON_TRACE_MAX_RING, &v, 1) ||
			    v < VNEURON_TRACE_MIN_RING || (v & (v - 1))) {
				err_msg("--ring-size '%s': give a power of two from 4K to 256M",
					optarg);
				return 2;
			}
			o.ring_size = v;
			break;
		case 'm':
			if (!strcmp(optarg, "stop")) {
				o.mode = VNEURON_TRACE_MODE_STOP;
			} else if (!strcmp(optarg, "overwrite")) {
				o.mode = VNEURON_TRACE_MODE_OVERWRITE;
			} else {
				err_msg("--mode '%s': give stop or overwrite", optarg);
				return 2;
			}
			break;
		case 'w':
			if (parse_uint(optarg, UINT32_MAX, &v, 1) || v % VNEURON_TRACE_RECORD_SIZE) {
				err_msg("--watermark '%s': give bytes, a multiple of %u", optarg,
					VNEURON_TRACE_RECORD_SIZE);
				return 2;
			}
			o.watermark = v;
			break;
		case 'q':
			o.quiet = 1;
			break;
		case 'h':
			fputs(capture_usage, stdout);
			return 0;
		default:
			if (optopt)
				err_msg("option '-%c' %s", optopt, strchr("nsNkcdrmw", optopt) ?
					"needs a value" : "is unknown");
			else
				err_msg("option '%s' is unknown or needs a value",
					argv[optind - 1]);
			fputs("Try 'vneuron-profile capture --help'.\n", stderr);
			return 2;
		}
	}
	if (!o.profile) {
		err_msg("give the profile to write with -s PROFILE.vntf");
		return 2;
	}
	if (dashdash) {
		if (o.program || optind < dashdash) {
			err_msg("the application form takes no program and no inputs "
				"(-n and NAME FILE pairs are for the program form)");
			return 2;
		}
		if (dashdash + 1 >= argc) {
			err_msg("nothing to run after '--'");
			return 2;
		}
		if (o.nth || o.num_exec != 1 || o.ignore_errors) {
			err_msg("--num-exec, --profile-nth-exec and --ignore-exec-errors are for "
				"the program form");
			return 2;
		}
		o.app = argv + dashdash + 1;
		return run_app(&o);
	}
	if (!o.program) {
		err_msg("give the program to run with -n PROGRAM.vnef, or an application "
			"after '--'");
		return 2;
	}
	if ((argc - optind) % 2) {
		err_msg("inputs come in NAME FILE pairs; '%s' has no file", argv[argc - 1]);
		return 2;
	}
	for (i = optind; i + 1 < argc; i += 2) {
		if (o.nr_inputs == CAP_MAX_INPUTS) {
			err_msg("more than %u inputs", CAP_MAX_INPUTS);
			return 2;
		}
		o.inputs[o.nr_inputs].name = argv[i];
		o.inputs[o.nr_inputs].path = argv[i + 1];
		o.nr_inputs++;
	}
	if (o.nth > o.num_exec) {
		err_msg("--profile-nth-exec %u is beyond --num-exec %u", o.nth, o.num_exec);
		return 2;
	}
	if (o.nr_cores > 1) {
		err_msg("the program form runs on one core: give --core once");
		return 2;
	}
	if (!o.nr_cores)
		o.nr_cores = 1;	/* core 0 */
	return run_program(&o);
}
