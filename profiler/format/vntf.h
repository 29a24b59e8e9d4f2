/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The .vntf profile format (docs/profile-format.md): a header, then sections. Capture
 * writes it streaming, with constant memory; the reader validates every byte it uses
 * and reports a problem as a sentence that names it, never by crashing.
 */
#ifndef VNP_VNTF_H
#define VNP_VNTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "neurondev.h"
#include "vneuron.h"
#include "vneuron_trace.h"

#define VNTF_MAGIC		"\x89VNTF\r\n\x1a"
#define VNTF_VERSION_MAJOR	1	/* a reader reads its own major version only */
#define VNTF_VERSION_MINOR	1	/* newer minors add optional sections only */

/* On-disk structures, little-endian, 8-byte aligned. */
struct vntf_file_header {
	uint8_t magic[8];
	uint16_t version_major;
	uint16_t version_minor;
	uint32_t header_size;		/* sizeof(struct vntf_file_header) for 1.0 */
	uint32_t flags;			/* 0 */
	uint32_t record_size;		/* VNEURON_TRACE_RECORD_SIZE */
	uint64_t reserved;		/* 0 */
};

struct vntf_section_header {
	uint32_t type;			/* enum vntf_section */
	uint32_t flags;			/* VNTF_SEC_* */
	uint64_t size;			/* payload bytes; the next section starts 8-aligned */
};

/* A reader that does not know a section's type skips it if this flag is set. */
#define VNTF_SEC_OPTIONAL	0x1u

enum vntf_section {
	VNTF_SEC_MODEL = 1,		/* struct vneuron_model */
	VNTF_SEC_PROGRAM = 2,		/* struct vntf_program + debug table bytes */
	VNTF_SEC_CLOCK = 3,		/* struct vntf_clock */
	VNTF_SEC_WORKER = 4,		/* struct vntf_worker: declares a stream */
	VNTF_SEC_RECORDS = 5,		/* struct vntf_records + count records */
	VNTF_SEC_LOST = 6,		/* struct vntf_lost: totals so far for a stream */
	VNTF_SEC_END = 7,		/* struct vntf_end: last section of a complete file */
	/* 1.1: optional sections (VNTF_SEC_OPTIONAL), skipped by 1.0 readers */
	VNTF_SEC_NODE = 8,		/* struct vntf_node: the node of a multi-node run */
	VNTF_SEC_EXEC_PROGRAMS = 9,	/* struct vntf_exec_programs + tables: what each ran */
	/* 10 is kept for application ranges' own data */
	VNTF_SEC_STRING = 11,		/* struct vntf_string + len bytes: a range name */
	VNTF_SEC_BACKEND = 12,		/* struct vntf_backend: what ran the workload */
	VNTF_SEC_TRUNCATED = 13,	/* struct vntf_truncated: records cut by a size limit */
	VNTF_SEC_LNC = 14,		/* struct vntf_lnc: cores grouped as logical cores */
};

/*
 * A capture stopped writing records at its size limit (capture --max-size): the file is
 * complete and valid, and holds every record written before the limit; records records
 * came after and were not written. At most once, before the end section.
 */
struct vntf_truncated {
	uint64_t max_bytes;		/* the limit, > 0 */
	uint64_t records;		/* records not written, > 0 */
};

/* What ran the captured executions (section 12; a 1.0 file has none: unknown). */
enum vntf_backend_kind {
	VNTF_BACKEND_UNKNOWN = 0,
	VNTF_BACKEND_MODULE = 1,	/* vneuron.ko, /dev/vneuronN */
	VNTF_BACKEND_HOST = 2,		/* libvnprog's host backend: the device core in
					 * threads of the capturing process (capture --host) */
};

struct vntf_backend {
	uint32_t backend;		/* enum vntf_backend_kind, not UNKNOWN */
	uint32_t reserved;		/* 0 */
};

/*
 * Logical cores (section 14, docs/profile-format.md): with lnc 2, cores 2k and 2k + 1 of
 * a device are logical core k, core 2k running program id 0 and 2k + 1 program id 1.
 */
struct vntf_lnc {
	uint32_t lnc;			/* 2 (a profile without the section: 1) */
	uint32_t reserved;		/* 0 */
};

#define VNTF_HASH_NONE		0
#define VNTF_HASH_SHA256	1

struct vntf_program {
	uint32_t hash_algo;		/* VNTF_HASH_* */
	uint32_t hash_len;		/* <= 32 */
	uint8_t hash[32];		/* of the whole .vnef image */
	uint64_t image_size;		/* bytes of the .vnef image */
	uint64_t debug_size;		/* bytes of debug table following this struct */
	char name[64];			/* NUL-terminated */
};

struct vntf_clock {
	uint64_t host_start_ns;		/* CLOCK_MONOTONIC at capture start */
	uint64_t realtime_start_ns;	/* CLOCK_REALTIME at the same moment */
	uint64_t host_resolution_ns;	/* clock_getres(CLOCK_MONOTONIC) */
	uint32_t model_unit_ps;		/* model_*_ps fields are in units of this: 1 */
	uint32_t reserved;		/* 0 */
};

/* One stream of records: a trace ring of one engine of one core, on one worker. */
struct vntf_worker {
	uint32_t stream;		/* < VNTF_MAX_STREAMS, unique in the file */
	uint32_t device;		/* N of /dev/vneuronN */
	uint32_t core;
	uint32_t engine;		/* enum vneuron_engine or VNEURON_TRACE_ENGINE_* */
	uint32_t mode;			/* VNEURON_TRACE_MODE_* */
	uint32_t pid;			/* process that captured */
	uint32_t worker;		/* collectives worker (rank); 0 alone */
	uint32_t nr_workers;		/* >= 1 */
	uint64_t ring_size;		/* data bytes of the ring */
	char hostname[64];		/* NUL-terminated */
};

struct vntf_records {
	uint32_t stream;
	uint32_t count;			/* records following, <= VNTF_MAX_CHUNK */
};

struct vntf_lost {
	uint32_t stream;
	uint32_t reserved;		/* 0 */
	uint64_t dropped;		/* producer: ring full (stop mode) */
	uint64_t overwritten;		/* consumer: overwritten before read (overwrite mode) */
};

/*
 * The node a multi-node run's profile was captured on (optional, at most one, before
 * any records). Its workers' vntf_worker.worker are global ranks in
 * [first_rank, first_rank + ranks) and nr_workers is world_size.
 */
struct vntf_node {
	uint32_t node;			/* < nr_nodes */
	uint32_t nr_nodes;		/* >= 1 */
	uint32_t first_rank;		/* global rank of the node's first worker */
	uint32_t ranks;			/* workers on this node, >= 1 */
	uint32_t world_size;		/* ranks of all nodes: first_rank + ranks <= it */
	uint32_t reserved;		/* 0 */
	int64_t clock_offset_ns;	/* this host's CLOCK_MONOTONIC - rank 0's host's */
	uint64_t clock_error_ns;	/* bound on the offset's error (0: exact or assumed) */
	char hostname[64];		/* NUL-terminated */
};

/*
 * One name of an application range or mark (nd_range_push(), nd_mark()): the API
 * stream's RANGE_PUSH and MARK records carry its id in sem_value. Ids count from 0 in
 * file order; a name is 1..ND_RANGE_NAME_MAX bytes that nd_range_name_ok() accepts, no
 * NUL.
 */
struct vntf_string {
	uint32_t id;
	uint32_t len;			/* bytes following */
};

struct vntf_end {
	uint64_t sections;		/* sections before this one */
	uint64_t records;		/* records in all RECORDS sections */
	uint64_t host_end_ns;		/* CLOCK_MONOTONIC at capture end */
};

/*
 * The programs an application ran and which one each execution ran (capture -- app):
 * nr_programs struct vntf_program (debug_size 0, no debug table) follow, then nr_execs
 * struct vntf_exec_program, each execution (device, core, exec_seq) once.
 */
struct vntf_exec_programs {
	uint32_t nr_programs;		/* <= VNTF_MAX_PROGRAMS */
	uint32_t nr_execs;		/* <= VNTF_MAX_EXECS */
};

struct vntf_exec_program {
	uint32_t device;		/* N of /dev/vneuronN, as vntf_worker.device */
	uint32_t core;
	uint32_t exec_seq;		/* the records' exec_seq */
	uint32_t program;		/* < nr_programs */
};

#define VNTF_MAX_EXECS		(1u << 20)

/* Orders struct vntf_exec_program by (device, core, exec_seq): for qsort()/bsearch(). */
int vntf_exec_cmp(const void *a, const void *b);
#define VNTF_MAX_STREAMS	1024
#define VNTF_MAX_PROGRAMS	256
#define VNTF_MAX_CHUNK		65536		/* records per RECORDS section */
#define VNTF_MAX_DEBUG		(256u << 20)	/* debug table bytes */
#define VNTF_MAX_OPTIONAL	(16u << 20)	/* an unknown optional section */
#define VNTF_MAX_STRINGS	65536		/* string sections in a file */

/* --- Writing ------------------------------------------------------------------ */

struct vntf_writer;

/*
 * Starts a profile on f (left open by vntf_writer_finish()) or at path. Then, in this
 * order: model and clock, programs and workers (any time before their records), records
 * and lost counts, and vntf_writer_finish(). Functions return 0 or -errno: -EINVAL for a
 * call out of order or a bad argument, -EIO if writing failed (errno of the failure in
 * vntf_writer_errno()).
 */
int vntf_writer_create(struct vntf_writer **w, FILE *f);
int vntf_writer_open(struct vntf_writer **w, const char *path);
int vntf_write_model(struct vntf_writer *w, const struct vneuron_model *m);
int vntf_write_clock(struct vntf_writer *w, const struct vntf_clock *c);
int vntf_write_program(struct vntf_writer *w, const struct vntf_program *p,
		       const void *debug, size_t debug_size);
int vntf_write_worker(struct vntf_writer *w, const struct vntf_worker *wk);
/* The backend section (once, before the records): VNTF_BACKEND_MODULE or _HOST. */
int vntf_write_backend(struct vntf_writer *w, uint32_t backend);
/* The logical-cores section (once, before the records): lnc 2 (-EINVAL otherwise). */
int vntf_write_lnc(struct vntf_writer *w, uint32_t lnc);
/* "module", "host", or "unknown" (a 1.0 profile). */
const char *vntf_backend_name(uint32_t backend);
/* The node section: once, before any records (-EINVAL otherwise or if n is invalid). */
int vntf_write_node(struct vntf_writer *w, const struct vntf_node *n);
/* Whether n is self-consistent (the reader's and writer's check); why not in why. */
bool vntf_node_ok(const struct vntf_node *n, const char **why);
/* The next range name (its id is the number written before it), before its records. */
int vntf_write_string(struct vntf_writer *w, const char *s, size_t len);
/* Records as drained; coalesced into sections of up to VNTF_MAX_CHUNK records. */
int vntf_write_records(struct vntf_writer *w, uint32_t stream,
		       const struct vneuron_trace_record *recs, size_t n);
int vntf_write_lost(struct vntf_writer *w, uint32_t stream, uint64_t dropped,
		    uint64_t overwritten);
/* The programs and the executions' programs (section 9; at most once). */
int vntf_write_exec_programs(struct vntf_writer *w, const struct vntf_program *progs,
			     uint32_t nr_programs, const struct vntf_exec_program *execs,
			     uint32_t nr_execs);
/* One consumer pass over a trace ring (nd_ring_drain()) into stream: records or -errno. */
ssize_t vntf_drain_ring(struct vntf_writer *w, uint32_t stream, struct nd_ring *r);
/* The ring's LOST section: what its producer dropped and what was overwritten unread. */
int vntf_write_ring_lost(struct vntf_writer *w, uint32_t stream, const struct nd_ring *r);
/*
 * A size limit (capture --max-size): from here records that would take the file past
 * max_bytes, less room kept for the lost counts and the end section, are not written but
 * counted (vntf_writer_cut()); vntf_writer_finish() then writes a truncated section.
 * The file's size stays within max_bytes. -EINVAL for 0.
 */
int vntf_writer_set_limit(struct vntf_writer *w, uint64_t max_bytes);
/* Records cut by the limit so far (safe from another thread than the writer's). */
uint64_t vntf_writer_cut(const struct vntf_writer *w);
/* Bytes in the file so far, records not yet flushed included (another thread too). */
uint64_t vntf_writer_bytes(const struct vntf_writer *w);
/* Writes the end section, flushes, closes what vntf_writer_open() opened, frees w. */
int vntf_writer_finish(struct vntf_writer *w, uint64_t host_end_ns);
/* Frees w without completing the file (an error path). */
void vntf_writer_abort(struct vntf_writer *w);
int vntf_writer_errno(const struct vntf_writer *w);

/* --- Reading ------------------------------------------------------------------ */

struct vntf_stream_info {
	struct vntf_worker worker;
	uint64_t records;		/* read so far */
	uint64_t dropped;		/* from the last LOST section */
	uint64_t overwritten;
};

struct vntf_program_info {
	struct vntf_program prog;
	const uint8_t *debug;		/* debug_size bytes, owned by the reader */
};

struct vntf_info {
	uint16_t version_major;
	uint16_t version_minor;
	bool have_model;
	bool have_clock;
	bool complete;			/* the end section was read and checked */
	bool have_node;			/* a node section was read: node is valid */
	struct vntf_node node;
	struct vneuron_model model;
	struct vntf_clock clock;
	uint32_t backend;		/* enum vntf_backend_kind (0: no section) */
	/* section 13: the capture's size limit and the records it cut (0: none) */
	uint64_t max_bytes, cut_records;
	uint32_t lnc;			/* section 14's: 2, or 1 without one */
	uint32_t nr_programs;
	struct vntf_program_info *programs;
	uint32_t nr_streams;
	struct vntf_stream_info *streams;	/* in the order declared */
	uint64_t records;
	uint64_t host_end_ns;		/* once complete */
	/* section 9, if the profile has one (have_exec_programs) */
	bool have_exec_programs;
	uint32_t nr_exec_programs;
	struct vntf_program *exec_programs;
	uint32_t nr_execs;
	struct vntf_exec_program *execs;	/* sorted by (device, core, exec_seq) */
	uint32_t nr_strings;
	char **strings;			/* range names by id, NUL-terminated */
};

struct vntf_chunk {
	uint32_t stream;		/* stream id (vntf_worker.stream) */
	uint32_t index;			/* its entry in vntf_info.streams */
	uint32_t count;
	uint32_t pad;
	const struct vneuron_trace_record *recs;	/* valid until the next call */
};

struct vntf_reader;

/* 0, or -errno with *err (if err) a message; *r is NULL then. */
int vntf_open_mem(struct vntf_reader **r, const void *buf, size_t len, char *err, size_t errlen);
int vntf_open_file(struct vntf_reader **r, const char *path, char *err, size_t errlen);

/*
 * The next chunk of records (1), the end of a complete file (0), or an error (-EINVAL:
 * malformed, -EIO: read error) described by vntf_error(). Metadata sections update
 * vntf_reader_info() as they are met.
 */
int vntf_next(struct vntf_reader *r, struct vntf_chunk *c);
const struct vntf_info *vntf_reader_info(const struct vntf_reader *r);
/*
 * From now on, read only the header of each records section (its stream and count,
 * checked against its size and counted as usual): vntf_next() returns such chunks with
 * recs NULL. For a pass that wants the other sections (what an application ran,
 * section 9, comes after the records) without reading every record.
 */
void vntf_headers_only(struct vntf_reader *r);
const char *vntf_error(const struct vntf_reader *r);
/*
 * Where the reader stands: *off the offset of the next section (after an error, of the
 * section that failed), *size the source's size, *sections the sections read whole.
 */
void vntf_reader_pos(const struct vntf_reader *r, uint64_t *off, uint64_t *size,
		     uint64_t *sections);
void vntf_close(struct vntf_reader *r);
/* The program (index in exec_programs) an execution ran by section 9, or -1. */
int vntf_exec_program_of(const struct vntf_info *info, uint32_t device, uint32_t core,
			 uint32_t exec_seq);

#endif /* VNP_VNTF_H */
