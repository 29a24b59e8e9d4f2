/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/**
 * DOC: libvnprofile
 *
 * The vneuron profiler as a library (libvnprofile.so.0, pkg-config libvnprofile, man
 * libvnprofile(3)): read a profile (.vntf) with the programs it ran (.vnef), get the
 * figures of ``vneuron-profile view`` (docs/metrics.md, docs/profiler.md), its findings
 * with their replayed gains, the executions and every event as arrays of fixed structs,
 * write each output format, and capture profiles around a workload. vneuron-profile is
 * a thin command line over this header; the Python package (docs/python.md) wraps it.
 *
 * Handles are opaque. Every function that can fail returns 0 or a negative errno and
 * says why through the print function (vnprofile_set_print()); vnprofile_last_error()
 * holds the calling thread's last error message. Strings and arrays a handle returns
 * stay valid until the handle is closed (or, for a view, released).
 *
 * Reading, in libbpf's open/load style:
 *
 *	struct vnprofile_opts o = { .sz = sizeof(o), .profiles = &prof, .nprofiles = 1,
 *				    .programs = &prog, .nprograms = 1 };
 *	struct vnprofile *p;
 *	const struct vnprofile_view *v;
 *
 *	err = vnprofile_open(&p, &o) ?: vnprofile_load(p) ?: vnprofile_view(p, 0, &v);
 *	vnprofile_write_file(p, VNPROFILE_PERFETTO, "k.pftrace", 0);
 *	vnprofile_close(p);
 *
 * A profile of an application that ran several programs has one view per program (each
 * program's executions, computed with that program); every output writes them all (text
 * headed per program, JSON as {"programs":[...]}) but Perfetto and HTML, which take one
 * (choose it with &vnprofile_opts.only).
 */
#ifndef VNPROFILE_H
#define VNPROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct vnprofile;		/* a profile with its programs: one view per program */
struct vnprofile_view;		/* one program's executions, computed and analysed */
struct vnprofile_capture;	/* a trace session writing a profile */
struct nd_host;			/* libvnprog's host backend (vnprog.h) */
struct nd_trace_opts;		/* libneurondev's ring options (neurondev.h) */
struct vneuron_model;		/* a device model (uapi/vneuron.h) */

/**
 * vnprofile_version() - the library's version (the project's, as nd_version())
 *
 * Return: "0.1.0", ...
 */
const char *vnprofile_version(void);

/* ---------------------------------------------------------------------------------- */
/* Messages                                                                           */

/**
 * enum vnprofile_level - what a message is
 * @VNPROFILE_ERROR: why the call that prints it fails
 * @VNPROFILE_WARN: something left out or assumed; the call goes on
 * @VNPROFILE_INFO: progress (capture's record count)
 */
enum vnprofile_level {
	VNPROFILE_ERROR,
	VNPROFILE_WARN,
	VNPROFILE_INFO,
};

/**
 * typedef vnprofile_print_fn - receives every message of the library
 * @level: enum vnprofile_level
 * @msg: the message, without a program name and without a final newline (a list
 *	 continues on further lines of the same message)
 */
typedef void (*vnprofile_print_fn)(enum vnprofile_level level, const char *msg);

/**
 * vnprofile_set_print() - sets the function that gets every message
 * @fn: the function; NULL: messages are printed on stderr as "vnprofile: MSG"
 *
 * Process-wide, as libbpf_set_print().
 *
 * Return: the previous function (NULL: stderr).
 */
vnprofile_print_fn vnprofile_set_print(vnprofile_print_fn fn);

/**
 * vnprofile_last_error() - the calling thread's last error message
 *
 * Return: the text of the last %VNPROFILE_ERROR message printed in this thread ("" if
 * none), valid until the next call of the library in the thread.
 */
const char *vnprofile_last_error(void);

/* ---------------------------------------------------------------------------------- */
/* Reading a profile                                                                  */

/* Flags of struct vnprofile_opts. */
#define VNPROFILE_SALVAGE	0x1u	/* read profiles cut short up to the damage */
#define VNPROFILE_NO_HASH_CHECK	0x2u	/* accept a program whose SHA-256 differs */
#define VNPROFILE_HOST_CLOCK	0x4u	/* executions at their host time (--clock host) */
#define VNPROFILE_NO_REPLAY	0x8u	/* estimated gains only, never run the program */
#define VNPROFILE_ONE_PROGRAM	0x10u	/* one profile of one program (as diff takes) */

/**
 * struct vnprofile_image - a program in memory
 * @data: the .vnef image (copied: the caller may free it after vnprofile_load())
 * @size: its size in bytes
 * @name: what messages and summaries call it, as a program's path
 */
struct vnprofile_image {
	const void *data;
	size_t size;
	const char *name;
};

/**
 * struct vnprofile_opts - what to read and how
 * @sz: sizeof(struct vnprofile_opts): fields added later read as 0 from older callers
 * @profiles: .vntf files; a directory stands for its *.vntf files (the profiles of
 *	several workers or nodes, read as one)
 * @nprofiles: their number (at least 1)
 * @programs: .vnef files; a directory stands for its *.vnef files (one that is not a
 *	valid program is skipped with a warning)
 * @nprograms: their number
 * @images: programs in memory, after @programs
 * @nimages: their number; @nprograms + @nimages is at least 1
 * @only: of a profile that ran several programs, the one to view: its name, a path as
 *	given, or 6+ hex digits of its SHA-256; NULL: all
 * @flags: VNPROFILE_SALVAGE, VNPROFILE_NO_HASH_CHECK, VNPROFILE_HOST_CLOCK,
 *	VNPROFILE_NO_REPLAY, VNPROFILE_ONE_PROGRAM
 * @model_flops: the model's useful flops per execution, for mfu (0: unknown)
 * @bins: bins of the DMA throughput and pending series (0: 200)
 * @top: rows of the scope and line tables of the text summary (0: 10; negative: none)
 * @memory_limit: the most memory the merged timeline may take, in bytes (0: half of
 *	the machine's); beyond it only the node summary of a multi-node run is given
 */
struct vnprofile_opts {
	size_t sz;
	const char *const *profiles;
	unsigned int nprofiles;
	const char *const *programs;
	unsigned int nprograms;
	const struct vnprofile_image *images;
	unsigned int nimages;
	const char *only;
	unsigned int flags;
	uint64_t model_flops;
	unsigned int bins;
	int top;
	uint64_t memory_limit;
};

/**
 * vnprofile_open() - a profile to read, nothing read yet
 * @pp: the new handle
 * @opts: what to read (copied)
 *
 * Directories of @opts.profiles are listed here, so vnprofile_inputs() and
 * vnprofile_check_output() know every file before anything is read.
 *
 * Return: 0; -EINVAL (bad options), -ENOENT (a directory without profiles), -E2BIG
 * (more than 4096 profiles), -ENOMEM.
 */
int vnprofile_open(struct vnprofile **pp, const struct vnprofile_opts *opts);

/**
 * vnprofile_inputs() - the files read: programs as given, then every profile
 * @p: the profile
 * @n: their number
 *
 * Return: the paths (an output must never be one of them).
 */
const char *const *vnprofile_inputs(const struct vnprofile *p, unsigned int *n);

/**
 * vnprofile_check_output() - whether an output file may be written
 * @p: the profile
 * @path: the output
 * @force: an existing file may be replaced
 *
 * Return: 0; -EINVAL (@path is one of the inputs, under any name), -EEXIST (it exists
 * and !@force).
 */
int vnprofile_check_output(const struct vnprofile *p, const char *path, int force);

/**
 * vnprofile_load() - reads the programs and what the profiles ran, and matches them
 * @p: the profile
 *
 * Every program is loaded and validated by the kernel's own loader; the profiles are
 * read once for the programs they ran (their SHA-256), and each program they ran gets a
 * view. The views' records are read when a view is asked for (vnprofile_view()).
 *
 * Return: 0; -EDOM (a refusal of the request: several programs for a profile that
 * names none, @opts.only matching none or several, a multi-node summary with several
 * programs), -ENOMEM, -E2BIG (more than 256 programs), other -errno (bad input: a
 * program or profile that cannot be read, a program the profiles ran not given).
 */
int vnprofile_load(struct vnprofile *p);

/**
 * vnprofile_nodes_only() - whether only the node summary can be given
 * @p: a loaded profile
 *
 * More than 64 workers, or a merged timeline over &vnprofile_opts.memory_limit: the
 * profiles are a multi-node run summed in one streaming pass (vnprofile_nodes()), and
 * only %VNPROFILE_SUMMARY_TEXT is written. vnprofile_view() gives -E2BIG then, as it
 * does when the records hold more core slots than a timeline.
 *
 * Return: 1 or 0.
 */
int vnprofile_nodes_only(const struct vnprofile *p);

/**
 * vnprofile_nodes() - the node figures of a run too big for one timeline
 * @p: a profile whose view gave -E2BIG, or vnprofile_nodes_only()
 *
 * One pass over each file's records in constant memory (docs/scaling.md); afterwards
 * vnprofile_write() of %VNPROFILE_SUMMARY_TEXT gives the node summary.
 *
 * Return: 0; -ENOMEM, other -errno (bad input, or not a multi-node run: said).
 */
int vnprofile_nodes(struct vnprofile *p);

/**
 * vnprofile_close() - frees the profile and its views
 * @p: the profile (NULL: nothing)
 */
void vnprofile_close(struct vnprofile *p);

/**
 * vnprofile_nviews() - the views: one per program the profiles ran
 * @p: a loaded profile
 *
 * Return: their number (1 for a profile of one program).
 */
unsigned int vnprofile_nviews(const struct vnprofile *p);

/**
 * vnprofile_view() - a view, read and analysed on first use
 * @p: a loaded profile
 * @i: which, below vnprofile_nviews()
 * @vp: the view, valid until vnprofile_view_release() or vnprofile_close()
 *
 * Reads the records of the executions of view @i's program into a timeline, computes
 * the metrics and the analysis (classification, critical path, findings, replays).
 *
 * Return: 0; -ERANGE (@i), -E2BIG (more core slots than a timeline holds: only the node
 * summary, vnprofile_nodes(); the reason is vnprofile_last_error(), not printed),
 * -ENOMEM, other -errno (bad input: the program and profile do not belong together, a
 * malformed or truncated profile).
 */
int vnprofile_view(struct vnprofile *p, unsigned int i, const struct vnprofile_view **vp);

/**
 * vnprofile_view_release() - frees a view's memory (it is read again when asked for)
 * @p: the profile
 * @i: the view
 */
void vnprofile_view_release(struct vnprofile *p, unsigned int i);

/* ---------------------------------------------------------------------------------- */
/* Figures of a view (docs/metrics.md)                                                */

/**
 * struct vnprofile_summary - the headline figures of a view (summary-json's names)
 * @program: the program's name ("" if it has none)
 * @program_path: its path as given (or &vnprofile_image.name)
 * @model: the device model's name
 * @backend: "module", "host" or "unknown" (the capture's backend)
 * @cores: core slots (a worker's core each)
 * @executions: executions, (core slot, exec) pairs
 * @total_time_ps: first start to last end, modeled (total_time_ps)
 * @core_time_ps: total time x cores (core_time_ps)
 * @critical_path_ps: the critical paths of all executions (critical_path_ps)
 * @event_count: instructions, DMA descriptors and collectives
 * @instruction_count: engine instructions
 * @dma_count: DMA descriptors
 * @collective_count: collectives (counted once, not per member)
 * @hardware_flops: TensorE flops, transposes included
 * @hbm_read_bytes: bytes read from HBM
 * @hbm_write_bytes: bytes written to HBM
 * @dma_bytes: bytes moved by DMA
 * @lost_records: records lost during capture
 * @malformed_records: impossible records skipped
 * @hfu: hardware flops utilisation, 0..1
 * @mfu: model flops utilisation, 0..1; negative without &vnprofile_opts.model_flops
 * @mbu: HBM bandwidth utilisation, 0..1
 * @arithmetic_intensity: TensorE flops (no transposes) per HBM byte
 * @ridge_point: the device's peak flops over its HBM bandwidth
 * @class_id: "compute-bound", "memory-bound", ... (class)
 * @class_label: with the unit and its figure: "compute-bound (ScalarE 90% busy)"
 * @class_why: the numbers that decided it
 * @bound_unit: "ScalarE", "DMA q3", "HBM", or "" (none)
 * @findings: the findings (vnprofile_view_finding())
 */
struct vnprofile_summary {
	const char *program;
	const char *program_path;
	const char *model;
	const char *backend;
	uint32_t cores;
	uint64_t executions;
	uint64_t total_time_ps;
	uint64_t core_time_ps;
	uint64_t critical_path_ps;
	uint64_t event_count;
	uint64_t instruction_count;
	uint64_t dma_count;
	uint64_t collective_count;
	uint64_t hardware_flops;
	uint64_t hbm_read_bytes;
	uint64_t hbm_write_bytes;
	uint64_t dma_bytes;
	uint64_t lost_records;
	uint64_t malformed_records;
	double hfu;
	double mfu;
	double mbu;
	double arithmetic_intensity;
	double ridge_point;
	const char *class_id;
	const char *class_label;
	const char *class_why;
	const char *bound_unit;
	unsigned int findings;
};

/**
 * vnprofile_view_summary() - the headline figures
 * @v: the view
 * @s: filled
 */
void vnprofile_view_summary(const struct vnprofile_view *v, struct vnprofile_summary *s);

/**
 * struct vnprofile_finding - one finding of the analysis (summary-json "advice")
 * @rule: its rule's id ("dma-no-overlap", docs/profiler.md "Analysis and advice")
 * @title: what was found
 * @evidence: the numbers and places it was found from
 * @advice: what to change, naming scopes and source lines
 * @gain: the gain as text ("37.364 us -> 5.414 us, replayed", or the estimate)
 * @impact: @saved_ps over the critical path: the ranking
 * @saved_ps: time the fix saves on the critical path, all executions
 * @replayed: the fix was run on the device model (@before_ps, @after_ps)
 * @before_ps: one execution, replayed unchanged
 * @after_ps: one execution, replayed with the fix
 * @then_class: replayed: the fixed program's class, analysed again ("compute-bound"),
 *	NULL if it was not (an estimate, or the second analysis could not be made)
 * @then: what bounds the fixed program next, as text (NULL with @then_class)
 */
struct vnprofile_finding {
	const char *rule;
	const char *title;
	const char *evidence;
	const char *advice;
	const char *gain;
	double impact;
	double saved_ps;
	int replayed;
	uint64_t before_ps;
	uint64_t after_ps;
	const char *then_class;
	const char *then;
};

/**
 * vnprofile_view_finding() - the i-th finding, in rank order
 * @v: the view
 * @i: below &vnprofile_summary.findings
 * @f: filled
 *
 * Return: 0 or -ERANGE.
 */
int vnprofile_view_finding(const struct vnprofile_view *v, unsigned int i,
			   struct vnprofile_finding *f);

/**
 * struct vnprofile_core - a core slot: one traced core of one worker
 * @device: its /dev/vneuronN (or the device a host handle stood for)
 * @core: the core on it
 * @worker: the worker's rank (0 without workers)
 * @nr_workers: the workers of its run (1 without)
 * @node: its node of a multi-node run (0 otherwise)
 * @label: "worker W core C" (the viewer's tab)
 */
struct vnprofile_core {
	uint32_t device;
	uint32_t core;
	uint32_t worker;
	uint32_t nr_workers;
	uint32_t node;
	const char *label;
};

/**
 * vnprofile_view_cores() - the core slots, indexed by the events' @core
 * @v: the view
 *
 * Return: their number.
 */
unsigned int vnprofile_view_cores(const struct vnprofile_view *v);
/* Core slot i; 0 or -ERANGE. */
int vnprofile_view_core(const struct vnprofile_view *v, unsigned int i,
			struct vnprofile_core *c);

/* &vnprofile_exec.status of an execution without an EXEC_END record. */
#define VNPROFILE_STATUS_NONE	0xffffu

/**
 * struct vnprofile_exec - one execution of one core (64 bytes)
 * @start_ps: where it starts on the view's timeline (events' times are on it too)
 * @end_ps: where it ends
 * @model_ps: its modeled time (@end_ps - @start_ps)
 * @host_start_ns: CLOCK_MONOTONIC of its EXEC_START record (0: unknown)
 * @host_end_ns: of its EXEC_END record (0: unknown)
 * @exec: its sequence number on the core (the events' @exec)
 * @round: its index among its core's executions (with collectives: among those with
 *	collectives), which aligns the workers' executions
 * @core: its core slot
 * @worker: the core's worker (rank)
 * @status: enum vneuron_exec_status of its EXEC_END (0 OK), or VNPROFILE_STATUS_NONE
 * @reason: enum vneuron_exec_reason of a failure (0 none)
 * @pad: zero
 */
struct vnprofile_exec {
	uint64_t start_ps;
	uint64_t end_ps;
	uint64_t model_ps;
	uint64_t host_start_ns;
	uint64_t host_end_ns;
	uint32_t exec;
	uint32_t round;
	uint16_t core;
	uint16_t worker;
	uint16_t status;
	uint16_t reason;
	uint32_t pad[2];
};

/**
 * vnprofile_view_execs() - the executions, by (core slot, exec)
 * @v: the view
 * @n: their number
 *
 * Return: the array (NULL if out of memory, with *@n 0).
 */
const struct vnprofile_exec *vnprofile_view_execs(const struct vnprofile_view *v, size_t *n);

/* &vnprofile_event.engine: the units of the metrics. */
#define VNPROFILE_ENGINE_TENSOR		0
#define VNPROFILE_ENGINE_VECTOR		1
#define VNPROFILE_ENGINE_SCALAR		2
#define VNPROFILE_ENGINE_GPSIMD		3
#define VNPROFILE_ENGINE_DMA		4
#define VNPROFILE_ENGINE_CC		5
/* &vnprofile_event.opcode of a DMA descriptor; a collective's is 0xff00 + its op. */
#define VNPROFILE_OP_DMA		0xffffu
#define VNPROFILE_OP_CC			0xff00u
/* No semaphore, no queue, no rank. */
#define VNPROFILE_NONE16		0xffffu
#define VNPROFILE_NONE8			0xffu

/**
 * struct vnprofile_event - one instruction, DMA descriptor or collective (80 bytes)
 * @start_ps: start on the view's timeline, modeled picoseconds
 * @end_ps: end
 * @flops: flops (0 for descriptors and collectives)
 * @wait_ps: the semaphore wait just before it (0: none)
 * @cc_wait_ps: a collective's wait for the last member of its group (else 0)
 * @bytes: bytes it moved or touched
 * @elements: elements (0 for collectives)
 * @pc: its index in its stream (instruction or descriptor)
 * @exec: its execution's sequence number on the core (&vnprofile_exec.exec)
 * @file: its source file, an index into vnprofile_view_strings() (0: unknown)
 * @line: its source line (0: unknown)
 * @scope: its scope path ("mlp/fc1"), a string index (0: none)
 * @opcode: enum vnef_opcode, VNPROFILE_OP_DMA, or VNPROFILE_OP_CC + enum vnef_cc_opcode
 *	(vnprofile_opcode_name())
 * @worker: the rank of its core's worker (0 without workers)
 * @sem_wait: the semaphore it waited for (VNPROFILE_NONE16: none)
 * @sem_signal: the semaphore it signalled (VNPROFILE_NONE16: none)
 * @core: its core slot (vnprofile_view_core())
 * @stream: 0..3 an engine, 4 + q DMA queue q, 20 the collective engine
 *	(vnprofile_stream_name())
 * @engine: VNPROFILE_ENGINE_* (every DMA queue is VNPROFILE_ENGINE_DMA)
 * @queue: its DMA queue (VNPROFILE_NONE8 for others)
 *
 * Layout, for a NumPy structured dtype: eight-byte fields at 0, 8, 16, 24, 32; u32 at
 * 40 (bytes), 44 (elements), 48 (pc), 52 (exec), 56 (file), 60 (line), 64 (scope); u16
 * at 68 (opcode), 70 (worker), 72 (sem_wait), 74 (sem_signal); u8 at 76 (core), 77
 * (stream), 78 (engine), 79 (queue); native byte order, no padding.
 */
struct vnprofile_event {
	uint64_t start_ps;
	uint64_t end_ps;
	uint64_t flops;
	uint64_t wait_ps;
	uint64_t cc_wait_ps;
	uint32_t bytes;
	uint32_t elements;
	uint32_t pc;
	uint32_t exec;
	uint32_t file;
	uint32_t line;
	uint32_t scope;
	uint16_t opcode;
	uint16_t worker;
	uint16_t sem_wait;
	uint16_t sem_signal;
	uint8_t core;
	uint8_t stream;
	uint8_t engine;
	uint8_t queue;
};

/**
 * vnprofile_view_events() - every instruction, descriptor and collective
 * @v: the view
 * @n: their number
 *
 * In start order, as the json output lists them (its "events"); built on first use and
 * kept with the view, so a NumPy array can wrap it without a copy.
 *
 * Return: the array (NULL with *@n 0 if there are none or memory ran out).
 */
const struct vnprofile_event *vnprofile_view_events(const struct vnprofile_view *v,
						    size_t *n);

/**
 * vnprofile_view_strings() - the events' string table
 * @v: the view
 * @n: its size
 *
 * Index 0 is "", then the program's source files and scope paths.
 *
 * Return: the strings.
 */
const char *const *vnprofile_view_strings(const struct vnprofile_view *v, size_t *n);

/* ---------------------------------------------------------------------------------- */
/* Names                                                                              */

/* "MULTIPLY_MOVING", "DMA", "ALL_REDUCE" for an event's opcode; "?" if unknown. */
const char *vnprofile_opcode_name(unsigned int opcode);
/* "TensorE", "DMA q3", "CC-core" for a stream, into buf. */
const char *vnprofile_stream_name(unsigned int stream, char *buf, size_t len);
/* "TensorE" ... "GpSimdE", "DMA", "CC-core" for VNPROFILE_ENGINE_*. */
const char *vnprofile_engine_name(unsigned int engine);
/* "OK", "ERROR", "TIMEOUT", "ABORTED", "FAULT"; "?" otherwise. */
const char *vnprofile_exec_status_name(unsigned int status);
/* A failure's reason as text (nd_exec_reason_name()) for enum vneuron_exec_reason. */
const char *vnprofile_exec_reason_name(unsigned int reason);

/* ---------------------------------------------------------------------------------- */
/* Outputs                                                                            */

/**
 * enum vnprofile_format - the outputs of view (docs/profiler.md, "Outputs")
 * @VNPROFILE_SUMMARY_TEXT: the text summary (80 columns)
 * @VNPROFILE_SUMMARY_JSON: every metric as one JSON object
 * @VNPROFILE_JSON: {"summary": ..., "events": [...]}
 * @VNPROFILE_PERFETTO: a Perfetto trace (protobuf, binary)
 * @VNPROFILE_HTML: the web viewer as one self-contained page
 * @VNPROFILE_FORMATS: their number
 */
enum vnprofile_format {
	VNPROFILE_SUMMARY_TEXT,
	VNPROFILE_SUMMARY_JSON,
	VNPROFILE_JSON,
	VNPROFILE_PERFETTO,
	VNPROFILE_HTML,
	VNPROFILE_FORMATS,
};

/* "summary-text", "summary-json", "json", "perfetto", "html"; NULL out of range. */
const char *vnprofile_format_name(enum vnprofile_format fmt);
/* The format of that name: 0, or -EINVAL. */
int vnprofile_format_parse(const char *name, enum vnprofile_format *fmt);
/* Whether the format is binary or a whole page (not for a terminal). */
int vnprofile_format_binary(enum vnprofile_format fmt);

/**
 * vnprofile_can_write() - whether the profile can be written in a format
 * @p: a loaded profile
 * @fmt: the format
 *
 * Return: 0; -EDOM (said) for Perfetto or HTML of several programs (choose one with
 * &vnprofile_opts.only), and for another format than summary-text of a run that gives
 * only the node summary; -EINVAL (not loaded, no such format).
 */
int vnprofile_can_write(const struct vnprofile *p, enum vnprofile_format fmt);

/**
 * vnprofile_write_view() - one view in a format
 * @v: the view
 * @fmt: the format
 * @f: where
 *
 * A view of a profile of several programs is written as its part of the whole: the
 * text headed "=== Program 1 of 2: ...", JSON as an element of {"programs":[...]}
 * (the first view opens it, the last closes it).
 *
 * Return: 0; -EIO (a write failed), -ENOMEM.
 */
int vnprofile_write_view(const struct vnprofile_view *v, enum vnprofile_format fmt, FILE *f);

/**
 * vnprofile_write() - the whole profile in a format
 * @p: a loaded profile
 * @fmt: the format
 * @f: where
 *
 * Every view in turn (each read, written, and released if it was not in use), or
 * the node summary after vnprofile_nodes().
 *
 * Return: 0; vnprofile_can_write()'s refusals (before anything is written), -EIO (a
 * write failed), -ENOMEM, or vnprofile_view()'s error.
 */
int vnprofile_write(struct vnprofile *p, enum vnprofile_format fmt, FILE *f);

/**
 * vnprofile_write_buf() - the whole profile in a format, in memory
 * @p: a loaded profile
 * @fmt: the format
 * @buf: a malloc()ed buffer with the output and a NUL after it (free() it)
 * @len: the output's length
 *
 * Return: 0, or vnprofile_write()'s errors (*@buf NULL then).
 */
int vnprofile_write_buf(struct vnprofile *p, enum vnprofile_format fmt, char **buf,
			size_t *len);

/* Flags of vnprofile_write_file(). */
#define VNPROFILE_FORCE		0x1u	/* replace an existing file */

/**
 * vnprofile_write_file() - the whole profile into a file, atomically
 * @p: a loaded profile
 * @fmt: the format
 * @path: the file ("-": standard output)
 * @flags: VNPROFILE_FORCE
 *
 * Through libvnprog's output files (nd_out_open()): @path is never one of the inputs,
 * an existing file only with VNPROFILE_FORCE, and the data goes to a temporary file
 * renamed into place when complete; on failure nothing is left.
 *
 * Return: 0, vnprofile_check_output()'s refusals, or -errno (creating or writing the
 * file, or vnprofile_write()'s).
 */
int vnprofile_write_file(struct vnprofile *p, enum vnprofile_format fmt, const char *path,
			 unsigned int flags);

/**
 * vnprofile_serve() - serves the web viewer of a view over HTTP
 * @v: the view
 * @addr: a numeric address or "localhost" (loopback only answers loopback names)
 * @port: the port (0: any free one)
 *
 * Prints "serving the viewer at http://ADDR:PORT/" on stdout and serves until SIGINT or
 * SIGTERM (docs/viewer.md).
 *
 * Return: 0 after a clean stop; -errno (a bad address, a port in use, ...).
 */
int vnprofile_serve(const struct vnprofile_view *v, const char *addr, unsigned int port);

/**
 * vnprofile_set_web_detail() - the web viewer's summary-level threshold
 * @max_events: a profile with more events than this gets, in its html page and served
 *	page, per row time bins instead of its events; --serve then answers a time
 *	window's events (docs/viewer.md, "Large profiles"). 0: the default, 1,500,000.
 *
 * Process-wide: set it before vnprofile_write() or vnprofile_serve().
 */
void vnprofile_set_web_detail(size_t max_events);

/**
 * vnprofile_write_diff() - profile B against profile A (docs/profiler.md, "diff")
 * @f: where
 * @a: a loaded profile of one program, its view 0 read
 * @a_path: A's profile as the text names it
 * @b: the same for B
 * @b_path: B's profile as the text names it
 *
 * Per execution: total time, critical path, class, hfu and mbu, each engine's and DMA
 * queue's active time, each scope by name, each rule fired in either.
 *
 * Return: 0; -EINVAL (a profile not loaded or without its view).
 */
int vnprofile_write_diff(FILE *f, const struct vnprofile *a, const char *a_path,
			 const struct vnprofile *b, const char *b_path);

/* ---------------------------------------------------------------------------------- */
/* Capture                                                                            */

/**
 * struct vnprofile_target - a core to trace
 * @device: its /dev/vneuronN; for a host handle, the device it stands for (the worker
 *	sections and the collectives' links say it)
 * @core: the core; for a host handle, its place on @device
 * @host: libvnprog's host backend handle to trace, or NULL: the device's core
 */
struct vnprofile_target {
	uint32_t device;
	uint32_t core;
	struct nd_host *host;
};

/* Flags of struct vnprofile_capture_opts. */
#define VNPROFILE_CAPTURE_FORCE		0x1u	/* replace an existing profile */
#define VNPROFILE_CAPTURE_QUIET		0x2u	/* no record count at the end */
#define VNPROFILE_CAPTURE_WORKERS	0x4u	/* target i is rank i of a communicator */
#define VNPROFILE_CAPTURE_NODE		0x8u	/* the node fields are set */
#define VNPROFILE_CAPTURE_ALL_DEVICES	0x10u	/* no targets: the devices after too */
/*
 * The targets are logical cores: host handles set with nd_host_set_lnc(h, 2), or a
 * device's even cores (their programs launched with nd_set_lnc(dev, 2)); each traced as
 * its even core and the next, program ids 0 and 1, the profile saying they are one
 * (docs/profile-format.md). Not with VNPROFILE_CAPTURE_WORKERS.
 */
#define VNPROFILE_CAPTURE_LNC2		0x20u
/* The most cores one capture traces. */
#define VNPROFILE_CAPTURE_MAX_TARGETS	16

/**
 * struct vnprofile_capture_opts - what to trace and how
 * @sz: sizeof(struct vnprofile_capture_opts)
 * @flags: VNPROFILE_CAPTURE_*
 * @targets: the cores to trace (all host handles, or all device cores); at most
 *	VNPROFILE_CAPTURE_MAX_TARGETS
 * @ntargets: their number; 0: every core of @device, and with
 *	VNPROFILE_CAPTURE_ALL_DEVICES of every device after it that exists (as capture
 *	-- APP traces them)
 * @device: with @ntargets 0, the device (the first)
 * @trace: ring size, mode and watermark (NULL: stop mode, 4 MiB, half the ring)
 * @model: the model the host handles were opened with (NULL: trn1, nd_host_open()'s
 *	default); a device says its own
 * @program: the image the profile is of (its SHA-256, size, name and debug table are
 *	written), or NULL
 * @program_size: its size
 * @inputs: files the profile must never replace (the program, input files, ...)
 * @ninputs: their number
 * @node: this node's number of a multi-node run (VNPROFILE_CAPTURE_NODE)
 * @nr_nodes: the run's nodes
 * @first_rank: the global rank of this node's rank 0
 * @ranks: the workers on this node (0: @ntargets, or 1)
 * @world_size: the run's workers
 * @clock_offset_ns: this host's CLOCK_MONOTONIC minus node 0's
 * @clock_error_ns: the bound of that offset's error
 * @max_bytes: a size limit for the profile (capture --max-size), 0 none: records past it
 *	are not written but counted, and the profile, complete and valid, is marked
 *	truncated (vnprofile_capture_cut())
 */
struct vnprofile_capture_opts {
	size_t sz;
	unsigned int flags;
	const struct vnprofile_target *targets;
	unsigned int ntargets;
	unsigned int device;
	const struct nd_trace_opts *trace;
	const struct vneuron_model *model;
	const void *program;
	size_t program_size;
	const char *const *inputs;
	unsigned int ninputs;
	uint32_t node;
	uint32_t nr_nodes;
	uint32_t first_rank;
	uint32_t ranks;
	uint32_t world_size;
	int64_t clock_offset_ns;
	uint64_t clock_error_ns;
	uint64_t max_bytes;
};

/**
 * vnprofile_capture_open() - a new profile and the trace sessions to fill it
 * @cp: the new handle
 * @path: the profile to write (a temporary file next to it until finished)
 * @opts: what to trace
 *
 * Opens the devices' tracing files (another file of the caller's runs the workload, so
 * the drainer's poll() reports ring data only), checks the cores, and creates the
 * profile with the device model, the clocks and the program's identity. Nothing is
 * traced before vnprofile_capture_start().
 *
 * Return: 0; -EINVAL (@path is one of the inputs, or bad options), -EEXIST (@path exists
 * without VNPROFILE_CAPTURE_FORCE), -ENODEV, -ERANGE (a core the device does not have),
 * -E2BIG (too many targets), -ENOMEM, or the device's error.
 */
int vnprofile_capture_open(struct vnprofile_capture **cp, const char *path,
			   const struct vnprofile_capture_opts *opts);

/**
 * vnprofile_capture_start() - starts tracing and the drainer thread
 * @c: the capture
 *
 * Every execution that starts on a traced core from now on (from any process, for a
 * device) is recorded. Call it once.
 *
 * Return: 0 or -errno.
 */
int vnprofile_capture_start(struct vnprofile_capture *c);

/**
 * vnprofile_capture_stop() - stops tracing; the drainer takes what is left
 * @c: the capture
 *
 * Executions after it are not traced (capture's --profile-nth-exec).
 *
 * Return: 0 or -errno.
 */
int vnprofile_capture_stop(struct vnprofile_capture *c);

/**
 * vnprofile_capture_records() - records written so far (the drainer's count)
 * @c: the capture
 *
 * Return: the count.
 */
uint64_t vnprofile_capture_records(const struct vnprofile_capture *c);

/**
 * vnprofile_capture_cut() - records not written for the size limit so far
 * @c: the capture
 *
 * Until vnprofile_capture_finish(); safe while the drainer runs. Nonzero once the
 * profile reached its &vnprofile_capture_opts.max_bytes: the caller may stop its work.
 *
 * Return: the count.
 */
uint64_t vnprofile_capture_cut(const struct vnprofile_capture *c);

/**
 * vnprofile_capture_bytes() - the profile's size so far (records not yet flushed too)
 * @c: the capture
 *
 * Until vnprofile_capture_finish(); safe while the drainer runs.
 *
 * Return: bytes.
 */
uint64_t vnprofile_capture_bytes(const struct vnprofile_capture *c);

/**
 * vnprofile_capture_api_log() - an API log for an application to write
 * @c: the capture
 * @path: its path, to give the application as VNEURON_PROFILE_API (with
 *	VNEURON_PROFILE set to the profile's path)
 *
 * A new file next to the profile (mkstemp(): nothing there is truncated or followed);
 * libneurondev in the application appends a record per API call and range to it, and
 * vnprofile_capture_finish() moves it into the profile.
 *
 * Return: 0 or -errno.
 */
int vnprofile_capture_api_log(struct vnprofile_capture *c, const char **path);

/**
 * vnprofile_capture_finish() - completes the profile and renames it into place
 * @c: the capture
 * @pid: the application whose API log it takes (vnprofile_capture_api_log()), or 0
 *
 * Stops tracing, drains the rings, merges the API log (one stream, section 9: which
 * program each execution ran), writes the lost counts and the end, and renames the file
 * into place. Says how many records it holds and how many were lost (the loss even with
 * VNPROFILE_CAPTURE_QUIET).
 *
 * Return: 0 or -errno.
 */
int vnprofile_capture_finish(struct vnprofile_capture *c, pid_t pid);

/**
 * vnprofile_capture_close() - stops what runs and frees the capture
 * @c: the capture (NULL: nothing)
 *
 * A profile not finished is removed (an existing file under its name stays as it was),
 * and so is an API log.
 */
void vnprofile_capture_close(struct vnprofile_capture *c);

#ifdef __cplusplus
}
#endif

#endif /* VNPROFILE_H */
