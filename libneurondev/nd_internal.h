/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* libneurondev internals shared by its source files; not installed. */
#ifndef ND_INTERNAL_H
#define ND_INTERNAL_H

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "neurondev.h"
#include "vneuron_trace.h"

#define ND_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* Fill an nd_error (may be NULL) and return -code. */
int nd_seterr(struct nd_error *e, int code, const char *fmt, ...) ND_PRINTF(3, 4);
int nd_vseterr(struct nd_error *e, int code, const char *fmt, va_list ap);

struct nd_mem {
	struct nd_device *dev;
	struct nd_mem *next;		/* the device's list, under dev->lock */
	uint32_t handle;
	uint64_t size;
	uint64_t mmap_offset;
	uint64_t device_addr;
	void *map;			/* mmap()ed view, made on first nd_mem_map() */
};

struct nd_device {
	int fd;
	char path[64];
	struct vneuron_info info;
	pthread_mutex_t lock;		/* protects err and mems */
	struct nd_error err;
	struct nd_mem *mems;
	int api_log;			/* API call log (trace.c): its fd + 1, 0 if none */
};

/*
 * Application profiling (trace.c): with VNEURON_PROFILE_API set, each device handle
 * appends one record per API call to that file for `vneuron-profile capture -- app`.
 * nd_api_t0() is the call's start (0 when not logging); nd_api_note() logs it.
 */
uint64_t nd_api_t0(const struct nd_device *dev);
void nd_api_note(struct nd_device *dev, unsigned int call, uint64_t t0, uint64_t bytes,
		 uint32_t core, uint64_t exec_id, uint64_t seq);
void nd_api_open(struct nd_device *dev, uint64_t t0);
void nd_api_close(struct nd_device *dev);

/* Record an error on the device handle and return -code. */
int nd_dev_err(struct nd_device *dev, int code, const char *fmt, ...) ND_PRINTF(3, 4);

/* The device a program was loaded on (dev_exec.c), or NULL. */
struct nd_device *nd_program_dev(const struct nd_program *p);

/* ------------------------------------------------------------------------------- */
/* The builder                                                                     */

#include "vneuron_program.h"

#define ND_MAX_SCOPE	16

struct nd_tensor {
	struct nd_builder *b;
	uint32_t index;
	uint32_t kind;			/* enum vnef_tensor_kind */
	uint32_t dtype;
	uint32_t rank;
	uint32_t name_off;
	uint64_t shape[VNEF_MAX_RANK];
	uint64_t numel;
	uint64_t size;
	uint64_t const_off;
	char *name;
};

struct nd_tile {
	struct nd_builder *b;
	uint32_t id;
	uint32_t mem;			/* ND_SBUF or ND_PSUM */
	uint32_t dtype;
	uint32_t partitions;
	uint32_t free;			/* elements */
	uint32_t offset;		/* bytes into each partition */
	uint32_t bytes;			/* reserved bytes in each partition */
	int freed;
	char name[32];
};

/* One entry of a stream: an instruction or a DMA descriptor, before semaphores. */
struct nd_entry {
	union {
		struct vnef_instr in;
		struct vnef_dma_desc d;
	} u;
	int32_t dep_stream;		/* the entry waits on (dep_stream, dep_index); -1: none */
	uint32_t dep_index;
	int signals;			/* another stream waits on this entry */
	uint32_t file_off, line, scope_off;
};

struct nd_stream {
	struct nd_entry *e;
	/*
	 * vc[i * VNEF_STREAMS + t]: how many entries of stream t are known to be complete
	 * once entry i completes (a vector clock). It drops waits already implied.
	 */
	uint32_t *vc;
	uint32_t n, cap;
};

/* Who touched a region: partitions [p_lo, p_hi) x bytes [b_lo, b_hi) of a space. */
struct nd_access {
	uint32_t space;			/* ND_SBUF, ND_PSUM, or ND_SPACE_HBM + tensor index */
	uint32_t p_lo, p_hi;
	uint64_t b_lo, b_hi;
	uint32_t stream;
	uint32_t index;
	int write;
};
#define ND_SPACE_HBM	16

struct nd_region {
	uint32_t off, size;
};

/*
 * The accesses still relevant in one space (SBUF, PSUM, one HBM tensor), sorted by b_lo;
 * maxlen bounds b_hi - b_lo so a lookup scans only the records that can overlap.
 */
struct nd_space {
	struct nd_access *a;
	uint32_t n, cap;
	uint64_t maxlen;
};
#define ND_SPACES	(ND_SPACE_HBM + VNEF_MAX_TENSORS)

struct nd_builder {
	char *name;
	int first_err;
	char first_msg[ND_ERRMSG_MAX];
	char last_msg[ND_ERRMSG_MAX];

	char *str;			/* string table being built */
	uint32_t str_len, str_cap;
	uint32_t *str_hash;		/* open addressing: offsets + 1, 0 = empty */
	uint32_t hash_cap, hash_n;

	struct nd_tensor **tensors;
	uint32_t ntensors, tensors_cap;
	uint8_t *cdata;			/* CONST section */
	uint64_t clen, ccap;

	struct nd_tile **tiles;
	uint32_t ntiles, tiles_cap;
	struct nd_region *alloc[3];	/* allocated ranges of SBUF and PSUM, sorted */
	uint32_t nalloc[3], alloc_cap[3];

	char *scope[ND_MAX_SCOPE];
	int depth;

	struct nd_stream s[VNEF_STREAMS];
	struct nd_space sp[ND_SPACES];
	uint32_t next_queue;

	/* TensorE: the stationary operand loaded last (shape checks of MultiplyMoving). */
	int stat_valid;
	uint32_t stat_k, stat_m, stat_dtype;
};

int nd_berr(struct nd_builder *b, int code, const char *fmt, ...) ND_PRINTF(3, 4);
uint32_t nd_str(struct nd_builder *b, const char *s);	/* 0 on failure (error set) */
/* Append an entry to a stream after the waits its accesses need. */
int nd_emit(struct nd_builder *b, uint32_t stream, struct nd_entry *e,
	    const struct nd_access *acc, uint32_t nacc, const char *opname,
	    const char *file, int line);
uint32_t nd_dtype_size(uint32_t dt);
const char *nd_stream_name(uint32_t stream);
int nd_layout(struct nd_builder *b, void **imagep, size_t *sizep);

#endif /* ND_INTERNAL_H */
