// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The API log of `vneuron-profile capture -- app` (apilog.h; the record format is in
 * neurondev.h, docs/profiler.md): one MARKER record per call, appended to the file
 * VNEURON_PROFILE_API names.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* N of the handle's /dev/vneuronN (its path's trailing number), 0 if it has none. */
static uint16_t api_devnum(const struct nd_device *dev)
{
	const char *p = dev->path + strlen(dev->path);
	unsigned long n;

	while (p > dev->path && p[-1] >= '0' && p[-1] <= '9')
		p--;
	n = strtoul(p, NULL, 10);
	return n > UINT16_MAX ? UINT16_MAX : (uint16_t)n;
}

/* A record of the call with every field an API record has in common; 0 if not logging. */
static uint32_t api_fill(struct vneuron_trace_record *r, unsigned int call, uint64_t t0,
			 uint64_t now)
{
	memset(r, 0, sizeof(*r));
	r->kind = VNEURON_TRACE_MARKER;
	r->engine = VNEURON_TRACE_ENGINE_CORE;
	r->opcode = (uint16_t)call;
	r->pc = __atomic_add_fetch(&api_seq, 1, __ATOMIC_RELAXED);
	r->host_ns = t0;
	r->count = now - t0;
	r->elements = (uint32_t)getpid();
	r->sem_wait = VNEURON_TRACE_NO_SEM;
	r->sem_signal = VNEURON_TRACE_NO_SEM;
	return r->pc;
}

/* One write of a whole record to an O_APPEND file: records never interleave. */
static void api_write(struct nd_device *dev, const struct vneuron_trace_record *r)
{
	ssize_t n = write(dev->api_log - 1, r, sizeof(*r));

	(void)n;
}

uint32_t nd_api_note(struct nd_device *dev, unsigned int call, uint64_t t0, uint64_t bytes,
		     uint32_t core, uint64_t exec_id, uint64_t seq)
{
	struct vneuron_trace_record r;
	uint32_t pc;

	if (!dev || !dev->api_log || !t0)
		return 0;
	pc = api_fill(&r, call, t0, api_now());
	r.bytes = bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)bytes;
	r.exec_seq = (uint32_t)seq;
	r.sem_value = (uint32_t)exec_id;
	r.dma_queue = (uint16_t)core;
	if (call == ND_API_EXEC || call == ND_API_WAIT)
		r.dma_desc = api_devnum(dev);
	api_write(dev, &r);
	return pc;
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
		api_fill(&r, ND_API_PROGRAM_ID, now, now);
		r.exec_seq = i;
		r.sem_value = id;
		r.count = size;
		memcpy(&r.model_start_ps, id_bytes + i * ND_API_ID_CHUNK, 8);
		memcpy(&r.model_end_ps, id_bytes + i * ND_API_ID_CHUNK + 8, 8);
		api_write(dev, &r);
	}
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
