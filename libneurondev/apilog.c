// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The API log of `vneuron-profile capture -- app` (apilog.h; the record format is in
 * neurondev.h, docs/profiler.md): one MARKER record per call, appended to the file
 * VNEURON_PROFILE_API names.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "apilog.h"
#include "nd_internal.h"

static const char *const api_names[ND_API_END - ND_API_MARKER] = {
	[ND_API_OPEN - ND_API_MARKER] = "open",
	[ND_API_CLOSE - ND_API_MARKER] = "close",
	[ND_API_MEM_ALLOC - ND_API_MARKER] = "mem_alloc",
	[ND_API_MEM_FREE - ND_API_MARKER] = "mem_free",
	[ND_API_PROGRAM_LOAD - ND_API_MARKER] = "program_load",
	[ND_API_EXEC - ND_API_MARKER] = "exec",
	[ND_API_WAIT - ND_API_MARKER] = "wait",
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

void nd_api_note(struct nd_device *dev, unsigned int call, uint64_t t0, uint64_t bytes,
		 uint32_t core, uint64_t exec_id, uint64_t seq)
{
	struct vneuron_trace_record r;
	ssize_t n;

	if (!dev || !dev->api_log || !t0)
		return;
	memset(&r, 0, sizeof(r));
	r.kind = VNEURON_TRACE_MARKER;
	r.engine = VNEURON_TRACE_ENGINE_CORE;
	r.opcode = (uint16_t)call;
	r.pc = __atomic_add_fetch(&api_seq, 1, __ATOMIC_RELAXED);
	r.host_ns = t0;
	r.count = api_now() - t0;
	r.elements = (uint32_t)getpid();
	r.bytes = bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)bytes;
	r.exec_seq = (uint32_t)seq;
	r.sem_value = (uint32_t)exec_id;
	r.sem_wait = VNEURON_TRACE_NO_SEM;
	r.sem_signal = VNEURON_TRACE_NO_SEM;
	r.dma_queue = (uint16_t)core;
	/* One write of a whole record to an O_APPEND file: records never interleave. */
	n = write(dev->api_log - 1, &r, sizeof(r));
	(void)n;
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
