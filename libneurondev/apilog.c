// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The API log of `vneuron-profile capture -- app` (apilog.h; the record format is in
 * neurondev.h, docs/profiler.md): one MARKER record per call, appended to the file
 * VNEURON_PROFILE_API names.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "apilog.h"
#include "nd_internal.h"
#include "nd_sha256.h"
#include "vn_program.h"

static const char *const api_names[ND_API_END - ND_API_MARKER] = {
	[ND_API_OPEN - ND_API_MARKER] = "open",
	[ND_API_CLOSE - ND_API_MARKER] = "close",
	[ND_API_MEM_ALLOC - ND_API_MARKER] = "mem_alloc",
	[ND_API_MEM_FREE - ND_API_MARKER] = "mem_free",
	[ND_API_PROGRAM_LOAD - ND_API_MARKER] = "program_load",
	[ND_API_EXEC - ND_API_MARKER] = "exec",
	[ND_API_WAIT - ND_API_MARKER] = "wait",
	[ND_API_RANGE_PUSH - ND_API_MARKER] = "range_push",
	[ND_API_RANGE_POP - ND_API_MARKER] = "range_pop",
	[ND_API_MARK - ND_API_MARKER] = "mark",
	[ND_API_PROGRAM_ID - ND_API_MARKER] = "program_id",
};

const char *nd_api_call_name(uint32_t opcode)
{
	uint32_t k = opcode - ND_API_MARKER;

	return opcode > ND_API_MARKER && opcode < ND_API_END && api_names[k] ? api_names[k] :
	       "other";
}

static uint64_t api_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t nd_api_t0(const struct nd_device *dev)
{
	/* No handle yet (open): whether the process logs at all. */
	if (!dev)
		return getenv("VNEURON_PROFILE_API") ? api_now() : 0;
	return dev->api_log ? api_now() : 0;
}

/* One call sequence per process: the capture merges the logs of all its handles. */
static uint32_t api_seq;

/*
 * This thread's open ranges, recorded or not (past ND_RANGE_MAX_DEPTH): the depth the
 * records carry is capped there.
 */
static _Thread_local uint32_t range_depth;

static uint16_t depth_now(void)
{
	return range_depth < ND_RANGE_MAX_DEPTH ? (uint16_t)range_depth : ND_RANGE_MAX_DEPTH;
}

/* N of the handle's /dev/vneuronN (its path's trailing number), 0 if it has none. */
static uint64_t api_devnum(const struct nd_device *dev)
{
	const char *p = dev->path + strlen(dev->path);

	while (p > dev->path && p[-1] >= '0' && p[-1] <= '9')
		p--;
	return strtoull(p, NULL, 10);
}

/*
 * A record of call that started at t0, the fields every API record has filled in; its
 * call sequence number.
 */
static uint32_t api_rec(struct vneuron_trace_record *r, unsigned int call, uint64_t t0)
{
	memset(r, 0, sizeof(*r));
	r->kind = VNEURON_TRACE_MARKER;
	r->engine = VNEURON_TRACE_ENGINE_CORE;
	r->opcode = (uint16_t)call;
	r->pc = __atomic_add_fetch(&api_seq, 1, __ATOMIC_RELAXED);
	r->host_ns = t0;
	r->elements = (uint32_t)getpid();
	r->model_start_ps = (uint64_t)syscall(SYS_gettid);
	r->dma_desc = depth_now();
	r->sem_wait = VNEURON_TRACE_NO_SEM;
	r->sem_signal = VNEURON_TRACE_NO_SEM;
	return r->pc;
}

/* One write of whole records to an O_APPEND file: records never interleave. */
static void api_write(int fd, const void *p, size_t n)
{
	ssize_t w = write(fd, p, n);

	(void)w;
}

/* nd_api_note(); sig is the record's sem_signal (ND_API_URING for io_uring's). */
static uint32_t api_note(struct nd_device *dev, unsigned int call, uint64_t t0, uint64_t bytes,
			 uint32_t core, uint64_t exec_id, uint64_t seq, uint16_t sig)
{
	struct vneuron_trace_record r;
	uint32_t pc;

	if (!dev || !dev->api_log || !t0)
		return 0;
	pc = api_rec(&r, call, t0);
	r.count = api_now() - t0;
	r.bytes = bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)bytes;
	r.exec_seq = (uint32_t)seq;
	r.sem_value = (uint32_t)exec_id;
	r.sem_signal = sig;
	r.dma_queue = (uint16_t)core;
	if (call == ND_API_EXEC || call == ND_API_WAIT)
		r.model_end_ps = api_devnum(dev);
	api_write(dev->api_log - 1, &r, sizeof(r));
	return pc;
}

uint32_t nd_api_note(struct nd_device *dev, unsigned int call, uint64_t t0, uint64_t bytes,
		     uint32_t core, uint64_t exec_id, uint64_t seq)
{
	return api_note(dev, call, t0, bytes, core, exec_id, seq, VNEURON_TRACE_NO_SEM);
}

/* io_uring's executions get ids of ours: the kernel gives them none. */
static uint32_t uring_ids;

uint32_t nd_api_uring_id(const struct nd_device *dev)
{
	if (!dev || !dev->api_log)
		return 0;
	return __atomic_add_fetch(&uring_ids, 1, __ATOMIC_RELAXED) ?:
	       __atomic_add_fetch(&uring_ids, 1, __ATOMIC_RELAXED);
}

void nd_api_note_uring(struct nd_device *dev, unsigned int call, uint64_t t0,
		       uint32_t prog_id, uint32_t core, uint32_t id, uint64_t seq)
{
	if (id)
		api_note(dev, call, t0, prog_id, core, id, seq, ND_API_URING);
}

void nd_api_program_id(struct nd_device *dev, uint32_t id, const struct vn_program *vp,
		       const void *image, size_t size)
{
	uint8_t id_bytes[ND_API_ID_CHUNKS * ND_API_ID_CHUNK] = { 0 };	/* hash, name */
	const struct vnef_header *h = image;
	struct vneuron_trace_record r;
	uint64_t now = api_now();
	unsigned int i;

	if (!dev || !dev->api_log || !id)
		return;
	/* the identity the profiler matches programs by: the image exactly as loaded */
	nd_sha256(image, size, id_bytes);
	snprintf((char *)id_bytes + 32, sizeof(id_bytes) - 32, "%s",
		 vn_program_str(vp, h->name_off));
	for (i = 0; i < ND_API_ID_CHUNKS; i++) {
		api_rec(&r, ND_API_PROGRAM_ID, now);
		r.exec_seq = i;
		r.sem_value = id;
		r.count = size;
		memcpy(&r.model_start_ps, id_bytes + i * ND_API_ID_CHUNK, 8);
		memcpy(&r.model_end_ps, id_bytes + i * ND_API_ID_CHUNK + 8, 8);
		api_write(dev->api_log - 1, &r, sizeof(r));
	}
}

/* ---- application ranges ---- */

/* Length of the UTF-8 sequence at s (n bytes left), 0 if it is not a valid one. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t k, i;
	uint32_t c;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		k = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		k = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		k = 4;
	else
		return 0;
	if (k > n)
		return 0;
	c = s[0] & (0x7fu >> k);
	for (i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3fu);
	}
	/* overlong forms, surrogates, past U+10FFFF */
	if ((k == 3 && c < 0x800) || (k == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return k;
}

static int is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

size_t nd_range_name_clean(char dst[ND_RANGE_NAME_MAX + 1], const char *src, size_t len)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t i = 0, o = 0, k;

	while (i < len && s[i]) {
		k = is_control(s[i]) ? 0 : utf8_len(s + i, strnlen(src + i, len - i));
		if (o + (k ? k : 1) > ND_RANGE_NAME_MAX)
			break;		/* cut before a character that does not fit */
		if (k) {
			memcpy(dst + o, s + i, k);
			o += k;
			i += k;
		} else {
			dst[o++] = '?';
			i++;
		}
	}
	dst[o] = 0;
	return o;
}

int nd_range_name_ok(const char *s, size_t len)
{
	char clean[ND_RANGE_NAME_MAX + 1];

	return len && len <= ND_RANGE_NAME_MAX && nd_range_name_clean(clean, s, len) == len &&
	       !memcmp(clean, s, len);
}

/*
 * The process's log for ranges (ranges belong to no device handle): -2 until the first
 * call looks, -1 when not capturing, else its fd. The fast path tests it once.
 */
static int range_fd = -2;
static pthread_once_t range_once = PTHREAD_ONCE_INIT;

static void range_open(void)
{
	const char *path = getenv("VNEURON_PROFILE_API");
	int fd = path && *path ? open(path, O_WRONLY | O_APPEND | O_CLOEXEC) : -1;

	__atomic_store_n(&range_fd, fd < 0 ? -1 : fd, __ATOMIC_RELEASE);
}

/* The slow path: the log's fd, opening it on the first call; -1 if not capturing. */
static int range_log_fd(void)
{
	pthread_once(&range_once, range_open);
	return __atomic_load_n(&range_fd, __ATOMIC_ACQUIRE);
}

/* A PUSH or MARK record and its name in one write. */
static void range_note(unsigned int call, const char *name)
{
	struct vneuron_trace_record r[1 + (ND_RANGE_NAME_MAX + 64) / 64];
	char clean[ND_RANGE_NAME_MAX + 1];
	int fd = range_log_fd();
	size_t len, nr;

	if (fd < 0)
		return;
	api_rec(&r[0], call, api_now());
	len = name ? nd_range_name_clean(clean, name, SIZE_MAX) : 0;
	r[0].bytes = (uint32_t)len;
	nr = (len + sizeof(r[0]) - 1) / sizeof(r[0]);
	memset(&r[1], 0, nr * sizeof(r[0]));
	memcpy(&r[1], clean, len);
	api_write(fd, r, (1 + nr) * sizeof(r[0]));
}

/*
 * A forked child is a new thread of a new process: it starts with no range open (its
 * parent's stay the parent's), so its records nest from depth 0 as the profile replays
 * them per (pid, thread).
 */
static void range_forked(void)
{
	range_depth = 0;
}

/* Early: before an application's own constructors, which may fork. */
__attribute__((constructor(101))) static void range_atfork(void)
{
	pthread_atfork(NULL, NULL, range_forked);
}

int nd_range_push(const char *name)
{
	if (!name || !*name)
		return -EINVAL;
	if (range_depth >= ND_RANGE_MAX_DEPTH) {
		if (range_depth < UINT32_MAX)
			range_depth++;
		return -E2BIG;
	}
	range_depth++;
	if (__atomic_load_n(&range_fd, __ATOMIC_RELAXED) != -1)
		range_note(ND_API_RANGE_PUSH, name);
	return (int)range_depth;
}

int nd_range_pop(void)
{
	if (!range_depth)
		return -ENOENT;
	/* a range past the recorded depth had no PUSH record: nor has its pop */
	if (range_depth-- <= ND_RANGE_MAX_DEPTH &&
	    __atomic_load_n(&range_fd, __ATOMIC_RELAXED) != -1)
		range_note(ND_API_RANGE_POP, NULL);
	return (int)range_depth;
}

int nd_mark(const char *name)
{
	if (!name || !*name)
		return -EINVAL;
	if (__atomic_load_n(&range_fd, __ATOMIC_RELAXED) != -1)
		range_note(ND_API_MARK, name);
	return 0;
}

void nd_api_open(struct nd_device *dev, uint64_t t0)
{
	const char *path = getenv("VNEURON_PROFILE_API");
	int fd;

	if (!path || !*path || !t0)
		return;
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return;		/* not capturing after all: the application runs on */
	dev->api_log = fd + 1;
	nd_api_note(dev, ND_API_OPEN, t0, 0, 0, 0, 0);
}

void nd_api_close(struct nd_device *dev)
{
	if (!dev->api_log)
		return;
	nd_api_note(dev, ND_API_CLOSE, api_now(), 0, 0, 0, 0);
	close(dev->api_log - 1);
	dev->api_log = 0;
}
