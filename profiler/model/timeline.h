/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The view side of the profiler: a profile's trace records joined with the program that
 * produced them, as a compact in-memory timeline (docs/profiler.md, docs/metrics.md).
 *
 * Events are stored compactly (events.c), 16 bytes each, never one
 * allocation per event, sorted by (core, stream, start): the events of one track (an
 * engine or a DMA queue of a core) are one contiguous, start-ordered range of tl->cev,
 * each a start, a duration and the id of its "shape": the rest of the event (pc, opcode,
 * flops, bytes, elements, semaphores, core, stream), interned in tl->shapes, since a
 * program run many times repeats few (about its instructions x cores). Durations of 2^32
 * ps or more sit in a side table (tl->longd), the execution in a run-length table
 * (tl->runs: it changes once per execution of a track). A profile whose every event
 * differs still works: interning stops once it does not pay, 48 bytes an event as before.
 * Callers read an event decoded by value (vnp_tl_ev(): struct vnp_ev) or one field
 * (vnp_tl_start(), vnp_tl_end(), vnp_tl_shape(), vnp_tl_ev_exec()); the timeline is
 * read-only once finished. vnp_iter walks all tracks merged in start order, which is
 * what every single-pass metric needs.
 */
#ifndef VNP_TIMELINE_H
#define VNP_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "neurondev.h"
#include "../format/prog.h"
#include "vneuron.h"
#include "vneuron_trace.h"

#define VNP_MAX_CORES		64
#define VNP_TRACKS		(VNP_MAX_CORES * VNEF_STREAMS)
#define VNP_OP_DMA		0xffffu		/* vnp_ev.opcode of a DMA descriptor */
#define VNP_OP_CC		0xff00u		/* + enum vnef_cc_opcode: a collective */

/*
 * One instruction, DMA descriptor or collective, decoded (48 bytes). Times in modeled
 * picoseconds. A collective (stream VNEF_STREAM_CC, a CC record of
 * uapi/vneuron_trace.h) runs from this rank's arrival (start) to its completion (end);
 * flops holds the time it waited for the last member of its group (count - start of
 * the record) and elements packs members | last rank << 8 | this rank << 16: use the
 * vnp_cc_*() accessors below.
 */
struct vnp_ev {
	uint64_t start;
	uint64_t end;
	uint64_t flops;
	uint32_t pc;		/* index in the stream (engine instruction or descriptor) */
	uint32_t bytes;
	uint32_t elements;
	uint32_t exec;		/* exec_seq */
	uint16_t opcode;	/* enum vnef_opcode, VNP_OP_DMA or VNP_OP_CC + op */
	uint16_t sem_wait;	/* VNEURON_TRACE_NO_SEM if none */
	uint16_t sem_signal;
	uint8_t stream;		/* engine 0..3, VNEF_STREAM_DMA(queue) or VNEF_STREAM_CC */
	uint8_t core;
};

static inline int vnp_ev_is_cc(const struct vnp_ev *e)
{
	return e->stream == VNEF_STREAM_CC;
}

/* A DMA queue's stream (not an engine, not the CC engine). */
static inline int vnp_stream_is_dma(unsigned int stream)
{
	return stream >= VNEF_ENGINES && stream < VNEF_STREAM_CC;
}

/* A collective's opcode (enum vnef_cc_opcode), group size, last member and rank. */
static inline unsigned int vnp_cc_op(const struct vnp_ev *e)
{
	return (unsigned int)e->opcode - VNP_OP_CC;
}

static inline unsigned int vnp_cc_members(const struct vnp_ev *e)
{
	return e->elements & 0xffu;
}

static inline unsigned int vnp_cc_last(const struct vnp_ev *e)
{
	return e->elements >> 8 & 0xffu;
}

static inline unsigned int vnp_cc_rank(const struct vnp_ev *e)
{
	return e->elements >> 16 & 0xffu;
}

/* Waiting for the last member (load imbalance), then moving the data (transfer). */
static inline uint64_t vnp_cc_wait(const struct vnp_ev *e)
{
	return e->flops;
}

static inline uint64_t vnp_cc_xfer(const struct vnp_ev *e)
{
	return e->end - e->start - e->flops;
}

/* MARKER records, and LOST records (id VNP_MARKER_LOST, value = records lost). */
#define VNP_MARKER_LOST		0xffffffffu
#define VNP_API_KINDS		(ND_API_END - ND_API_MARKER)	/* 0: other, then the calls */

struct vnp_marker {
	uint64_t time;		/* ps */
	uint64_t value;
	uint32_t id;
	uint32_t exec;
	uint8_t core;
};

/*
 * An ERROR record: a device fault that ended its execution (uapi/vneuron_trace.h). time
 * is on the timeline (the execution's shift added, as for events), model_ps the record's
 * own modeled time.
 */
struct vnp_fault {
	uint64_t time;		/* ps */
	uint64_t model_ps;
	uint64_t offset;	/* bytes into the partition or tensor; semaphore: the value */
	uint32_t pc;		/* entry of the stream: instruction or descriptor index */
	uint32_t exec;
	uint32_t index;		/* partition (SBUF, PSUM), tensor (HBM) or semaphore */
	uint32_t len;		/* bytes of the access, 0 if not an access */
	uint16_t reason;	/* VNEURON_REASON_FAULT_SBUF..STATE */
	uint8_t mem;		/* enum vnef_mem; 0 for a semaphore or the engine's state */
	uint8_t stream;		/* engine 0..3 or VNEF_STREAM_DMA(queue) */
	uint8_t core;
};

/* EXEC_END statuses counted per enum vneuron_exec_status; the last slot: unknown ones. */
#define VNP_EXEC_STATUSES	(VNEURON_EXEC_FAULT + 2)

/*
 * One execution of one core, in the records' own clock: lo = earliest start (events,
 * EXEC_START), hi = latest end (events, EXEC_END). Records may count modeled time from
 * each execution's start, so two executions would overlap; finish lays them out back to
 * back in exec_seq order (shift), which leaves times that already increase unchanged.
 */
struct vnp_exec {
	uint64_t key;		/* core << 32 | exec_seq */
	uint64_t lo, hi;
	uint64_t shift;		/* added to every time of the execution */
	/*
	 * After finish: with collectives in the profile, its index among its core's
	 * executions with collectives (VNP_NONE if it has none); else among all of them
	 */
	uint32_t round;
	uint8_t has_cc;		/* it holds collectives */
	uint16_t end_status;	/* its EXEC_END's status + 1 (enum vneuron_exec_status), 0: none */
	uint16_t end_reason;	/* ... and reason (enum vneuron_exec_reason) */
	uint16_t rdepth;	/* application ranges open at its launch (0: none known) */
	uint32_t rstack;	/* their name ids in vnp_ranges.pool, outermost first */
	uint64_t host_lo;	/* CLOCK_MONOTONIC of its EXEC_START record, 0 if unknown */
	uint64_t host_hi;	/* of its EXEC_END record */
	/*
	 * Host clock only (tl->host_clock): how far its placement may be from the host time
	 * its events happened at, in ps (docs/profiler.md "One clock"); UINT64_MAX if it had
	 * no EXEC_START host time and was placed after the one before it.
	 */
	uint64_t map_err;
};

/*
 * Application ranges (ranges.c, docs/capture.md "Application ranges"): the
 * nd_range_push() / nd_range_pop() records of the API stream replayed per thread, and
 * each execution tied to the ranges open on the thread whose EXEC call launched it (the
 * EXEC call's exec id joined with the WAIT call's core and sequence number).
 */
#define VNP_RANGE_THREADS	4096	/* threads followed; others' ranges are skipped */

struct vnp_range_thread {
	uint32_t pid, tid;
	uint32_t depth;
	uint32_t snap;			/* pool offset of the current stack, or UINT32_MAX */
	uint32_t name[ND_RANGE_MAX_DEPTH];
};

/*
 * One API call, range push or pop, or mark as the application logged it (host side, for
 * the host rows of the host-clock view). start is host ns; after finish, the EXEC calls
 * whose execution is known have its core and exec_seq (core VNP_MAX_CORES otherwise).
 */
struct vnp_call {
	uint64_t start, dur;	/* host ns */
	uint32_t pid, tid;
	uint32_t arg;		/* RANGE_PUSH, MARK: the name id; EXEC, WAIT: the exec id */
	uint32_t seq;		/* EXEC: the execution's exec_seq after finish */
	uint16_t kind;		/* opcode - ND_API_MARKER (0: unknown) */
	uint16_t depth;		/* the thread's range depth after the call */
	uint16_t core;		/* EXEC after finish, WAIT: the timeline core */
};

/*
 * An EXEC call (wait 0: its stack) or a WAIT call (wait 1: where it ran); uring: of an
 * io_uring submission, whose exec_id is the library's (neurondev.h ND_API_URING).
 */
struct vnp_api_link {
	uint32_t pid, exec_id;
	uint32_t call;			/* index in vnp_ranges.calls */
	uint32_t core, seq;
	uint32_t stack;			/* pool offset */
	uint16_t depth;
	uint8_t wait, uring;
};

struct vnp_ranges {
	char **names;			/* by id, from the profile's string sections (owned) */
	uint32_t nnames;
	/* set per profile file before its API records: */
	uint16_t core_slot[VNP_MAX_CORES];	/* an API record's core -> timeline core */
	/*
	 * ... first by its device and core (EXEC, WAIT: model_end_ps, dma_queue), when the
	 * file's streams say where each (device, core) is: an application on several
	 * devices has a core 0 on each
	 */
	uint32_t map_dev[VNP_MAX_CORES];
	uint16_t map_core[VNP_MAX_CORES], map_slot[VNP_MAX_CORES];
	unsigned int nmap;
	uint32_t id_base;		/* added to its name ids (names of earlier files) */
	struct vnp_range_thread *th;
	size_t nth, thcap;
	struct vnp_api_link *ln;
	size_t nln, lncap;
	uint32_t *pool;			/* stacks of name ids, outermost first */
	size_t npool, poolcap;
	struct vnp_call *calls;		/* every API record, in the order read */
	size_t ncalls, callcap;
	uint64_t pushes, pops, marks;
	uint64_t bad;			/* pushes and pops that do not nest, unknown names */
	uint64_t attributed;		/* executions tied to their EXEC call */
};

#define VNP_NO_RANK		0xffffu
#define VNP_SHAPES_TRY		(1ull << 24)	/* tl->shapes_try's default */

/* A stored event (16 bytes): the rest is its shape. */
struct vnp_cev {
	uint64_t start;		/* ps */
	uint32_t dur;		/* end - start, VNP_DUR_LONG: in tl->longd */
	uint32_t shape;		/* index in tl->shapes */
};

#define VNP_DUR_LONG		UINT32_MAX

/* What events share: a struct vnp_ev less its times and execution. */
struct vnp_shape {
	uint64_t flops;
	uint32_t pc, bytes, elements;
	uint16_t opcode, sem_wait, sem_signal;
	uint8_t stream, core;
};

/* From event first (by track: a track's first event starts one), execution exec. */
struct vnp_run {
	uint64_t first;
	uint32_t exec;
};

/* A duration that does not fit the 32 bits of struct vnp_cev. */
struct vnp_long_dur {
	uint64_t idx;
	uint64_t dur;
};

/* One track while adding (events.c): its events, runs and long durations, by index. */
struct vnp_track_build {
	struct vnp_cev *ev;
	struct vnp_run *run;
	struct vnp_long_dur *lng;
	size_t n, cap, nrun, runcap, nlng, lngcap;
	uint32_t last;		/* its last event's shape + 1, 0 if none */
};

struct vnp_timeline {
	struct vneuron_model model;
	const struct vnp_prog *prog;	/* may be NULL */
	struct vnp_cev *cev;			/* after finish: all events, by track */
	size_t n;
	size_t track_off[VNP_TRACKS + 1];	/* after finish: t = core * VNEF_STREAMS + stream */
	struct vnp_run *runs;			/* after finish: by first */
	size_t nruns;
	struct vnp_long_dur *longd;		/* after finish: by idx */
	size_t nlongd;
	struct vnp_shape *shapes;		/* distinct shapes, by id */
	uint32_t nshapes;
	size_t shapes_cap;
	uint32_t *shape_hash;			/* while adding: id + 1 by hash, 0 free */
	size_t shape_hash_cap;			/* a power of 2 */
	uint32_t *shape_next;			/* while adding: by id, the shape + 1 that
						 * followed it on its track last (0: none) */
	size_t shape_next_cap;
	uint8_t shapes_direct;			/* interning stopped paying (events.c) */
	uint64_t shapes_try;			/* events read before it may stop */
	struct vnp_track_build *tb;		/* while adding: VNP_TRACKS of them */
	uint64_t mem_limit;			/* the store's bytes while adding (0: any):
						 * past it vnp_tl_add() gives -E2BIG */
	unsigned int ncores;			/* highest core seen + 1 */
	uint64_t t0, t1;			/* first start, last end (ps) */
	uint64_t lost;				/* records lost before reaching the profile */
	uint64_t malformed;			/* records skipped as impossible */
	uint32_t salvaged;			/* files read only in part (--salvage):
						 * a partial profile */
	uint32_t cut_files;			/* files a capture cut at --max-size */
	uint64_t cut_records;			/* the records they cut: partial too */
	uint64_t nexec;				/* distinct (core, exec_seq) executions */
	uint32_t backends;			/* 1 << vntf backend of each profile read */
	/*
	 * Logical cores (a profile's logical-cores section, LNC=2): each core slot's
	 * logical core, a number from 1 the same for the two slots of one (0: none), and
	 * its physical core: the logical core is pcore / 2, the program id pcore & 1
	 */
	uint16_t lcore[VNP_MAX_CORES];
	uint16_t pcore[VNP_MAX_CORES];
	uint64_t ncc;				/* collectives (CC events) */
	uint16_t cc_rank[VNP_MAX_CORES];	/* each core's rank in its CC records, or VNP_NO_RANK */
	uint64_t model_flops;			/* per execution, for mfu; 0: unknown */
	/* after finish: DMA queues the program gives descriptors (else: that ran something) */
	uint8_t dma_queues[VNP_MAX_CORES];
	/*
	 * After finish, from desc_prog (tl->prog then; unused once tl->prog differs): each
	 * descriptor's memories as vnp_ev_dma_mems() gives them (src | dst << 2) and its
	 * bytes (count[0] * count[1] * chunk_bytes), read per DMA event: the program's
	 * descriptors are 100+ bytes each and missed the cache at every read
	 */
	const struct vnp_prog *desc_prog;
	uint8_t *desc_mem[VNEF_DMA_QUEUES];
	uint64_t *desc_n[VNEF_DMA_QUEUES];
	uint32_t desc_len[VNEF_DMA_QUEUES];
	/* the same for the engines' instructions, what vnp_ev_fixed() reads of them */
	struct vnp_instr_cost *instr_cost[VNEF_ENGINES];
	uint32_t instr_len[VNEF_ENGINES];
	uint32_t sig_stream[VNEF_MAX_SEMS];	/* signaller seen in records, or VNP_NONE */
	struct vnp_marker *markers;
	size_t nmarkers, markers_cap;
	/*
	 * libneurondev API calls logged by `capture -- app` (MARKER records with opcode >=
	 * ND_API_MARKER): host-side, no modeled time, so counted here per call
	 * (index opcode - ND_API_MARKER, 0 = unknown call) rather than placed.
	 */
	uint64_t api_calls[VNP_API_KINDS];
	uint64_t api_ns[VNP_API_KINDS];
	/* each core's first call start and last call end, on its host's clock (0: none) */
	uint64_t api_first_ns[VNP_MAX_CORES], api_last_ns[VNP_MAX_CORES];
	/*
	 * Several nodes (profiles with node sections, docs/profile-format.md "Nodes"; set by
	 * profile.c, nr_nodes 0 otherwise): each core slot's node, that node's ranks
	 * [node_first_rank, + node_ranks) and its host clock's offset to rank 0's; each
	 * global rank's node (VNP_NO_RANK if no profile of it was read).
	 */
	unsigned int nr_nodes;
	uint16_t core_node[VNP_MAX_CORES];
	uint16_t node_first_rank[VNP_MAX_CORES], node_ranks[VNP_MAX_CORES];
	int64_t host_offset_ns[VNP_MAX_CORES];
	uint64_t host_error_ns[VNP_MAX_CORES];
	uint16_t rank_node[VNEF_CC_MAX_RANKS];
	struct vnp_fault *faults;		/* ERROR records; by (time, core) after finish */
	size_t nfaults, faults_cap;
	uint64_t exec_status[VNP_EXEC_STATUSES];	/* EXEC_END records by status */
	struct vnp_exec *execs;			/* nexec of them; by key after finish */
	size_t nexecs_cap;
	size_t last_exec;			/* index of the last one looked up */
	uint32_t *exec_hash;			/* while adding: index + 1 by key, 0 free */
	size_t exec_hash_cap;			/* a power of 2, at most half full */
	struct vnp_ranges rg;
	/*
	 * Set before finish: lay executions out on the host clock (docs/profiler.md "One
	 * clock"): each at its EXEC_START's host time, host_base_ns is time 0; map_err_max
	 * and map_err_median over the executions that had one (ps), map_unplaced those
	 * without an EXEC_START host time.
	 */
	int host_clock;
	uint64_t host_base_ns;
	uint64_t map_err_max, map_err_median, map_unplaced;
	/*
	 * How many times longer the host took than the model (median over the executions
	 * with both spans of host span / modeled span; 0: unknown). Emulated, the host's
	 * clock runs thousands of times slower than the modeled device: that is the span
	 * term of map_err, not a placement error. start_err_*: the start term alone (how
	 * far a placed start is from its EXEC_START host time, at least 1 ns).
	 */
	double host_slowdown;
	uint64_t start_err_max, start_err_median;
#define VNP_HOST_SLOW	2.0	/* a host_slowdown from which the summary says emulation */
	int finished;
};

/*
 * A CC record that can be true: its own engine, a known opcode, arrival <= the last
 * member's arrival <= completion, 1..64 members, ranks below 64.
 */
bool vnp_cc_record_ok(const struct vneuron_trace_record *r);

void vnp_tl_init(struct vnp_timeline *tl, const struct vneuron_model *m,
		 const struct vnp_prog *prog);
/*
 * Adds records of one core (the records of a profile, in any order, in as many calls
 * as convenient). Impossible records (unknown kind or engine, end before start, DMA
 * queue out of range, an ERROR record whose reason is not a fault or whose memory is
 * unknown) are counted in tl->malformed and skipped. 0, -ENOMEM, -EOVERFLOW (over
 * 2^32 - 1 distinct event shapes) or -E2BIG (the store outgrew tl->mem_limit).
 */
int vnp_tl_add(struct vnp_timeline *tl, unsigned int core,
	       const struct vneuron_trace_record *recs, size_t n);
/* Sorts and indexes; no more adds after this. 0 or -ENOMEM. */
int vnp_tl_finish(struct vnp_timeline *tl);
void vnp_tl_free(struct vnp_timeline *tl);

/*
 * events.c: the store. Appends an event to track t (shape interned). 0, -ENOMEM,
 * -EOVERFLOW, or -E2BIG once the store holds more than tl->mem_limit bytes (looked at
 * every VNP_MEM_CHECK events).
 */
#define VNP_MEM_CHECK		65536u
int vnp_tl_push(struct vnp_timeline *tl, unsigned int t, const struct vnp_ev *e);
/*
 * Room for one more of size bytes in *arr, which holds n of *cap: grows by half from first
 * (large blocks are remapped, not copied). 0, or -ENOMEM (also if the size would overflow).
 */
int vnp_grow(void **arr, size_t n, size_t *cap, size_t size, size_t first);
/* The bytes the store holds while adding: its arrays as allocated. */
uint64_t vnp_tl_store_bytes(const struct vnp_timeline *tl);
/* In finish, times shifted: sorts each track, joins them into tl->cev. 0 or -ENOMEM. */
int vnp_tl_pack(struct vnp_timeline *tl);
void vnp_tl_store_free(struct vnp_timeline *tl);
/* After finish: where an execution of a core starts on the timeline (t0 if unknown). */
uint64_t vnp_tl_exec_start(const struct vnp_timeline *tl, unsigned int core, uint32_t exec);
/* After finish: the index in tl->execs of an execution of a core, SIZE_MAX if unknown. */
size_t vnp_tl_exec_index(const struct vnp_timeline *tl, unsigned int core, uint32_t exec);
/* After finish: the execution's round (struct vnp_exec), 0 if unknown. */
uint32_t vnp_tl_exec_round(const struct vnp_timeline *tl, unsigned int core, uint32_t exec);

/* After finish: the execution (core, exec), or NULL. */
const struct vnp_exec *vnp_tl_exec(const struct vnp_timeline *tl, unsigned int core,
				   uint32_t exec);

/* ranges.c */
/* An API record of a core's records (vnp_tl_add()): ranges replayed, EXEC/WAIT noted. */
int vnp_rg_add(struct vnp_timeline *tl, const struct vneuron_trace_record *r);
/* The next range name (a copy is kept). 0 or -ENOMEM. */
int vnp_rg_add_name(struct vnp_timeline *tl, const char *name);
/* In finish, once executions are sorted: ties each to its EXEC call's ranges. */
int vnp_rg_finish(struct vnp_timeline *tl);
void vnp_rg_free(struct vnp_timeline *tl);
/* Range name id's name ("?" if unknown). */
const char *vnp_range_name(const struct vnp_timeline *tl, uint32_t id);
/* An execution's ranges (name ids, outermost first): their count. */
unsigned int vnp_exec_ranges(const struct vnp_timeline *tl, const struct vnp_exec *x,
			     const uint32_t **ids);
/*
 * Launch gaps of core after finish: host time between the end of one of its executions
 * and the start of the next (EXEC_END and EXEC_START records' host_ns), summed; *held
 * the host time from its first start to its last end, *n the gaps counted.
 */
uint64_t vnp_tl_launch_gaps(const struct vnp_timeline *tl, unsigned int core, uint64_t *held,
			    uint64_t *n);

/* A host CLOCK_MONOTONIC time on the host-clock timeline (ps); 0 for times before its base. */
uint64_t vnp_tl_host_ps(const struct vnp_timeline *tl, uint64_t host_ns);

/* The backend the profiles were captured on: "module", "host", "mixed" or "unknown". */
const char *vnp_tl_backend(const struct vnp_timeline *tl);

/* Three-way comparison for qsort() callbacks. */
static inline int vnp_cmp(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

static inline size_t vnp_tl_track_len(const struct vnp_timeline *tl, unsigned int t)
{
	return tl->track_off[t + 1] - tl->track_off[t];
}

/* After finish: event i's fields, and event i decoded. */
static inline uint64_t vnp_tl_start(const struct vnp_timeline *tl, size_t i)
{
	return tl->cev[i].start;
}

uint64_t vnp_tl_long_dur(const struct vnp_timeline *tl, size_t i);

static inline uint64_t vnp_tl_dur(const struct vnp_timeline *tl, size_t i)
{
	uint32_t d = tl->cev[i].dur;

	return d != VNP_DUR_LONG ? d : vnp_tl_long_dur(tl, i);
}

static inline uint64_t vnp_tl_end(const struct vnp_timeline *tl, size_t i)
{
	return tl->cev[i].start + vnp_tl_dur(tl, i);
}

static inline const struct vnp_shape *vnp_tl_shape(const struct vnp_timeline *tl, size_t i)
{
	return &tl->shapes[tl->cev[i].shape];
}

/*
 * The runs entry of event i: the last one whose first is at most i. Loops read events
 * in index order: the entry found last time (this thread's, checked against this
 * timeline, so only a hint) or the next one usually holds i, without a search. Inline,
 * as every pass reads every event through it: a caller's unused fields are not loaded.
 */
extern _Thread_local size_t vnp_tl_run_hint;
size_t vnp_tl_run_find(const struct vnp_timeline *tl, size_t i);

static inline bool vnp_tl_run_holds(const struct vnp_timeline *tl, size_t r, size_t i)
{
	return r < tl->nruns && tl->runs[r].first <= i &&
	       (r + 1 == tl->nruns || tl->runs[r + 1].first > i);
}

static inline size_t vnp_tl_run_of(const struct vnp_timeline *tl, size_t i)
{
	size_t h = vnp_tl_run_hint;

	if (vnp_tl_run_holds(tl, h, i))
		return h;
	if (vnp_tl_run_holds(tl, h + 1, i))
		return vnp_tl_run_hint = h + 1;
	return vnp_tl_run_find(tl, i);
}

static inline uint32_t vnp_tl_ev_exec(const struct vnp_timeline *tl, size_t i)
{
	return tl->nruns ? tl->runs[vnp_tl_run_of(tl, i)].exec : 0;
}

static inline void vnp_tl_decode(const struct vnp_timeline *tl, size_t i, uint32_t exec,
				 struct vnp_ev *e)
{
	const struct vnp_shape *s = vnp_tl_shape(tl, i);

	e->start = tl->cev[i].start;
	e->end = vnp_tl_end(tl, i);
	e->flops = s->flops;
	e->pc = s->pc;
	e->bytes = s->bytes;
	e->elements = s->elements;
	e->exec = exec;
	e->opcode = s->opcode;
	e->sem_wait = s->sem_wait;
	e->sem_signal = s->sem_signal;
	e->stream = s->stream;
	e->core = s->core;
}

static inline struct vnp_ev vnp_tl_ev(const struct vnp_timeline *tl, size_t i)
{
	struct vnp_ev e;

	vnp_tl_decode(tl, i, vnp_tl_ev_exec(tl, i), &e);
	return e;
}
/* The first event of track t starting at or after start (track_off[t + 1] if none). */
size_t vnp_tl_lower_bound(const struct vnp_timeline *tl, unsigned int t, uint64_t start);

static inline unsigned int vnp_ev_track(const struct vnp_ev *e)
{
	return (unsigned int)e->core * VNEF_STREAMS + e->stream;
}

static inline const struct vnp_loc *vnp_ev_loc(const struct vnp_timeline *tl,
					       const struct vnp_ev *e)
{
	return vnp_prog_loc(tl->prog, e->stream, e->pc);
}

/* The memory a DMA event reads (src) and writes (dst): enum vnef_mem, 0 if unknown. */
void vnp_ev_dma_mems(const struct vnp_timeline *tl, const struct vnp_ev *e,
		     unsigned int *src, unsigned int *dst);
/*
 * What vnp_ev_fixed() reads of an engine's instruction (profiler/model/progcache.c): its
 * opcode, whether its cost is per element (elementwise or reduce), and the count: for
 * TensorE the columns (partitions of a transpose), for the others the elements times
 * inputs (times partitions on GpSimdE).
 */
struct vnp_instr_cost {
	uint64_t n;
	uint16_t opcode;
	uint8_t per_elem;
};

/* Engine eng's instruction in, as the copy holds it. */
void vnp_instr_cost_of(unsigned int eng, const struct vnef_instr *in, struct vnp_instr_cost *c);
/* After finish: the program's descriptors and instructions copied as above. 0 or -ENOMEM. */
int vnp_tl_prog_copy(struct vnp_timeline *tl);
void vnp_tl_prog_copy_free(struct vnp_timeline *tl);
/*
 * An engine event's instruction from the finished timeline's copy: 1 and *c if it has
 * one, 0 if not, -1 if there is no copy (read the program).
 */
int vnp_tl_instr(const struct vnp_timeline *tl, const struct vnp_ev *e,
		 const struct vnp_instr_cost **c);
/*
 * A DMA event's descriptor from the finished timeline's copy: 1 and its memories (as
 * vnp_ev_dma_mems()) and bytes if it has one; 0 if it has none; -1 if there is no copy
 * (read the program).
 */
int vnp_tl_desc(const struct vnp_timeline *tl, const struct vnp_ev *e, unsigned int *src,
		unsigned int *dst, uint64_t *n);

/*
 * Walks every event of every track in (start, track) order: a binary heap of the tracks
 * keyed by their next event's start, the key kept in the heap (not read through the
 * event) since comparing is what the walk does most.
 */
struct vnp_iter_head {
	uint64_t start;		/* of the track's next event */
	size_t i;		/* that event */
	size_t end;		/* past the track's last one */
	size_t run;		/* tl->runs entry of event i */
	unsigned int track;
};

struct vnp_iter {
	const struct vnp_timeline *tl;
	struct vnp_iter_head heap[VNP_TRACKS];
	unsigned int nheap;
	size_t idx;		/* the index of the event vnp_iter_next() returned */
	struct vnp_ev cur;	/* that event, decoded */
};

void vnp_iter_init(struct vnp_iter *it, const struct vnp_timeline *tl);
/*
 * The next event in start order (the iterator's own copy, valid until the next call;
 * its index: it->idx), or NULL at the end.
 */
const struct vnp_ev *vnp_iter_next(struct vnp_iter *it);

/*
 * A fault for people: what was refused, e.g. "DMA chunk outside SBUF: partition 131,
 * bytes 0..63" or "semaphore 5 value 3 beyond its table", into buf.
 */
const char *vnp_fault_what(const struct vnp_timeline *tl, const struct vnp_fault *f,
			   char *buf, size_t len);
/* The faulting entry's opcode from the program (VNP_OP_DMA for a descriptor), or VNP_NONE. */
uint32_t vnp_fault_opcode(const struct vnp_timeline *tl, const struct vnp_fault *f);

/* Names for output. */
/* "TensorE" ... "GpSimdE", then "DMA" and "CC-core" (the units of metrics.h) */
const char *vnp_engine_name(unsigned int engine);
/* "MULTIPLY_MOVING", "DMA", "ALL_REDUCE" (VNP_OP_CC + op) */
const char *vnp_opcode_name(unsigned int opcode);
const char *vnp_mem_name(unsigned int mem);		/* "SBUF", "HBM", "?" */
const char *vnp_api_name(unsigned int kind);		/* "open", ... "wait", "other" */
const char *vnp_exec_status_name(unsigned int status);	/* "OK", ... "FAULT", "?" */
/* "deadlock", ... "SBUF fault"; "" for none, "?" if unknown. */
const char *vnp_exec_reason_name(unsigned int reason);
/* A fault reason's short id: "sbuf", "psum", "hbm", "semaphore", "state"; "?" if none. */
const char *vnp_fault_reason_id(unsigned int reason);
/* "TensorE", "DMA q3", "CC-core" into buf. */
const char *vnp_stream_name(unsigned int stream, char *buf, size_t len);

/* Small helpers for output: times in ps as human text ("12.345 us"), sizes. */
const char *vnp_fmt_time(uint64_t ps, char *buf, size_t len);
const char *vnp_fmt_bytes(double bytes, char *buf, size_t len);
/* A count of flops in decimal units (flop, kflop, Mflop, Gflop, Tflop). */
const char *vnp_fmt_flops(double n, char *buf, size_t len);
/* A JSON string literal (quotes included). */
void vnp_json_str(FILE *f, const char *s);

#endif /* VNP_TIMELINE_H */
