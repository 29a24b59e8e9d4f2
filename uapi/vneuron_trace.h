/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR MIT */
/*
 * vneuron trace rings: the record format, the shared pages of a ring and the ioctls
 * that start and stop tracing. docs/trace-buffer.md explains
 * the protocol and its memory ordering.
 *
 * A ring has one producer (the device's thread that runs its engine) and one consumer (the
 * profiler, through mmap). Positions are byte counts that only grow, never wrap and are
 * always multiples of the record size; a record at position P lives at data offset
 * P & (data_size - 1). data_size is a power of two and a multiple of the page size, and
 * records are 64 bytes, so no record ever straddles the end of the data area: the data
 * is mapped once, not twice as in kernel/bpf/ringbuf.c.
 *
 * Mapping of ring i (offsets returned by VNEURON_IOCTL_TRACE_START):
 *   mmap_offset + i * ring_stride:             consumer page, PROT_READ | PROT_WRITE
 *   mmap_offset + i * ring_stride + page size: control page then the data pages, PROT_READ
 * The consumer page holds consumer_pos, the only value userspace writes; the kernel
 * refuses writable mappings of the rest (the split of kernel/bpf/ringbuf.c), and the
 * producer never trusts consumer_pos for more than flow control.
 *
 * All fields are little-endian (the device and its host share one byte order; the
 * profile format records it).
 */
#ifndef _UAPI_VNEURON_TRACE_H
#define _UAPI_VNEURON_TRACE_H

#include <linux/ioctl.h>
#include <linux/types.h>

#include "vneuron.h"

#if defined(__cplusplus)
extern "C" {
#endif

#define VNEURON_TRACE_VERSION		1
#define VNEURON_TRACE_RECORD_SIZE	64

/**
 * enum vneuron_trace_kind - what a trace record is (vneuron_trace_record.kind)
 * @VNEURON_TRACE_INSN: one engine instruction
 * @VNEURON_TRACE_DMA: one DMA descriptor
 * @VNEURON_TRACE_SEM: a semaphore set outside an instruction
 * @VNEURON_TRACE_EXEC_START: an execution starts on this ring's unit
 * @VNEURON_TRACE_EXEC_END: an execution ended
 * @VNEURON_TRACE_MARKER: opcode = marker id, count = user value
 * @VNEURON_TRACE_LOST: count = records dropped just before this one
 * @VNEURON_TRACE_ERROR: a device fault ended the execution (see below)
 * @VNEURON_TRACE_CC: one collective engine instruction (see below)
 * @VNEURON_TRACE_KIND_MAX: the largest kind
 */
enum vneuron_trace_kind {
	VNEURON_TRACE_INSN = 1,
	VNEURON_TRACE_DMA = 2,
	VNEURON_TRACE_SEM = 3,
	VNEURON_TRACE_EXEC_START = 4,
	VNEURON_TRACE_EXEC_END = 5,
	VNEURON_TRACE_MARKER = 6,
	VNEURON_TRACE_LOST = 7,
	VNEURON_TRACE_ERROR = 8,
	VNEURON_TRACE_CC = 9,
	VNEURON_TRACE_KIND_MAX = 9,
};

/*
 * ERROR records (ring 0, just before EXEC_END; VNEURON_CAP_FAULT): where the executor's
 * own check stopped an access. engine, pc, dma_queue and dma_desc name the faulting entry
 * as for INSN and DMA records; opcode is the reason (enum vneuron_exec_reason,
 * VNEURON_REASON_FAULT_*); elements the memory (enum vnef_mem, 0 for a semaphore or the
 * engine's state); sem_value the partition (SBUF, PSUM), tensor index (HBM) or
 * semaphore; count the byte offset in that partition or tensor (semaphore: the value);
 * bytes the access's length; model_start_ps = model_end_ps the entry's modeled start.
 */

/*
 * CC records (engine %VNEURON_TRACE_ENGINE_CC, on the collective engine's ring): opcode
 * is enum vnef_cc_opcode and pc the entry of the collective stream; model_start_ps is
 * when this rank arrived, count when the last member of its group arrived (the data
 * moves from then) and model_end_ps when the collective completed, the same on every
 * member; bytes is this rank's input in bytes; elements the members of its group;
 * dma_queue this rank's number in the communicator and dma_desc the member that arrived
 * last (the lowest rank of a tie); sem_* as for INSN. A NOP has count = model_start_ps,
 * elements 1 and dma_desc = dma_queue.
 */

/*
 * MARKER opcodes from 0x8000 up are not the kernel's: libneurondev's API log uses them
 * (ND_API_MARKER in libneurondev/neurondev.h, docs/profiler.md), so the kernel keeps its
 * MARKER opcodes below.
 */

/* vneuron_trace_record.engine: enum vneuron_engine (0..3) or one of these. */
#define VNEURON_TRACE_ENGINE_DMA	0x10	/* dma_queue and dma_desc say which */
#define VNEURON_TRACE_ENGINE_CC	0x20	/* the collective engine (CC-core) */
#define VNEURON_TRACE_ENGINE_CORE	0xff	/* the core itself (exec start/end) */

/* A semaphore id meaning "none" in sem_wait / sem_signal. */
#define VNEURON_TRACE_NO_SEM		0xffff

/**
 * struct vneuron_trace_record - one trace record
 * @kind: enum vneuron_trace_kind
 * @engine: enum vneuron_engine or VNEURON_TRACE_ENGINE_*
 * @opcode: instruction opcode; marker id
 * @pc: instruction index in the engine's stream
 * @model_start_ps: modeled start
 * @model_end_ps: modeled end
 * @host_ns: CLOCK_MONOTONIC when the record was written
 * @exec_seq: execution sequence number on this core
 * @elements: operand elements processed
 * @flops: INSN: floating-point operations
 * @count: LOST: records dropped; MARKER: user value
 * @bytes: bytes read + written (INSN) or moved (DMA)
 * @sem_value: value waited for (INSN, DMA); new value (SEM)
 * @sem_wait: semaphore waited for, or %VNEURON_TRACE_NO_SEM
 * @sem_signal: semaphore incremented on completion, or %VNEURON_TRACE_NO_SEM
 * @dma_queue: DMA: queue of the core
 * @dma_desc: DMA: descriptor index in the queue's ring
 *
 * 64 bytes, naturally aligned, no implicit padding. Times: model_* in picoseconds of
 * the modeled clock from the start of the execution @exec_seq (one TensorE cycle is
 * ~357 ps, so ns would lose cycles). EXEC_START/EXEC_END (engine
 * %VNEURON_TRACE_ENGINE_CORE, on ring 0): at EXEC_END, @model_end_ps is the execution's
 * modeled duration, @opcode its status (enum vneuron_exec_status) and @elements its
 * reason; at EXEC_START of one instance of a launch on a logical core
 * (%VNEURON_EXEC_LNC2), @opcode is its LNC (2) and @pc its program id, else both are
 * zero. Fields a kind does not use are zero (ids: %VNEURON_TRACE_NO_SEM). Records
 * never hold a kernel address.
 */
struct vneuron_trace_record {
	__u8 kind;
	__u8 engine;
	__u16 opcode;
	__u32 pc;
	__u64 model_start_ps;
	__u64 model_end_ps;
	__u64 host_ns;
	__u32 exec_seq;
	__u32 elements;
	union {
		__u64 flops;
		__u64 count;
	};
	__u32 bytes;
	__u32 sem_value;
	__u16 sem_wait;
	__u16 sem_signal;
	__u16 dma_queue;
	__u16 dma_desc;
};

/* vneuron_trace_ctrl.mode */
#define VNEURON_TRACE_MODE_STOP		0	/* full ring: drop new records, count them */
#define VNEURON_TRACE_MODE_OVERWRITE	1	/* flight recorder: overwrite the oldest */

#define VNEURON_TRACE_CTRL_MAGIC	0x52544e56	/* "VNTR" */

/**
 * struct vneuron_trace_consumer - the consumer page of a ring
 * @consumer_pos: the position up to which the consumer has finished reading
 *
 * The first page of a ring mapping, writable: the consumer stores @consumer_pos with a
 * release store after its last read of the data (docs/trace-buffer.md).
 */
struct vneuron_trace_consumer {
	__u64 consumer_pos;
};

/**
 * struct vneuron_trace_ctrl - the control page of a ring
 * @magic: %VNEURON_TRACE_CTRL_MAGIC
 * @version: %VNEURON_TRACE_VERSION
 * @record_size: %VNEURON_TRACE_RECORD_SIZE
 * @mode: VNEURON_TRACE_MODE_*
 * @data_offset: from the start of this page to the data
 * @data_size: bytes, a power of two
 * @watermark: bytes published between two wake-ups
 * @batch: records per position update, at most
 * @core: core of the device
 * @engine: producer: enum vneuron_engine or VNEURON_TRACE_ENGINE_*
 * @start_host_ns: CLOCK_MONOTONIC at TRACE_START
 * @reserved0: 0
 * @producer_pos: records below it are complete
 * @write_pos: overwrite mode: slots below it may be being written
 * @dropped: stop mode: records dropped, total
 * @reserved1: 0
 *
 * The second page of a ring mapping, read-only. Line 0 (@magic to @reserved0) is set
 * before the ring is mapped and never changes; line 1 (offset 64, @producer_pos on) is
 * the producer's, published with release stores.
 */
struct vneuron_trace_ctrl {
	__u32 magic;
	__u32 version;
	__u32 record_size;
	__u32 mode;
	__u64 data_offset;
	__u64 data_size;
	__u32 watermark;
	__u32 batch;
	__u32 core;
	__u32 engine;
	__u64 start_host_ns;
	__u64 reserved0;
	__u64 producer_pos;
	__u64 write_pos;
	__u64 dropped;
	__u64 reserved1[5];
};

/**
 * struct vneuron_trace_start - argument of %VNEURON_IOCTL_TRACE_START
 * @core: in: the core
 * @mode: in: VNEURON_TRACE_MODE_*
 * @ring_size: in: data bytes per ring, power of two, 4 KiB..256 MiB
 * @watermark: in: bytes; 0 = ring_size / 2; < ring_size. out: the value in force
 * @flags: in: must be 0
 * @nr_rings: out: rings of the session
 * @pad: must be 0
 * @mmap_offset: out: ring 0's consumer page
 * @ring_stride: out: from one ring's mapping to the next
 * @consumer_len: out: length of the writable mapping
 * @ring_len: out: control page + data, mapped read-only
 *
 * Start tracing one core: one ring per producer (the four
 * engines, then the DMA queues' worker, then the collective engine (6 rings since uapi
 * version 4); vneuron_trace_ctrl.engine says which), each of
 * ring_size data bytes, all in the same mode. Every execution that starts on the core
 * from then on is traced if the caller may see its owner: the file's own, or those of a
 * process of the caller's user (real uid and gid equal to every id of the owner) that is
 * dumpable, as ptrace's rule has it, or any with CAP_PERFMON or CAP_SYS_ADMIN. Other
 * executions run untraced. One already running is
 * not traced. The rings belong to the calling file: only it can map them (other files
 * get EINVAL), and they stop when it closes (mappings keep the memory). poll() on the
 * file reports EPOLLIN when any of its rings holds unread records; the producers wake it
 * each time watermark more bytes have been published and at the end of every execution
 * (when the rings are published completely, with an EXEC_END record on ring 0).
 * Errors: EINVAL (core, mode, ring_size not a power of two in MIN..MAX or below the page
 * size, watermark >= ring_size or not a multiple of the record size, flags or pad),
 * EBUSY (some file is already tracing that core), EPERM (the core's owner is a process
 * the caller may not trace), ENOSPC (the file's rings would pass its max_trace_bytes),
 * ENOMEM, EBADF (read-only file).
 *
 * mmap of ring i: offset mmap_offset + i * ring_stride, length consumer_len, may be
 * writable; offset mmap_offset + i * ring_stride + consumer_len, length up to ring_len,
 * read-only (a writable mapping gives EACCES, mprotect() cannot add write later). Any
 * other offset or a longer length gives EINVAL; MAP_PRIVATE gives EINVAL.
 */
struct vneuron_trace_start {
	__u32 core;
	__u32 mode;
	__u64 ring_size;
	__u32 watermark;
	__u32 flags;
	__u32 nr_rings;
	__u32 pad;
	__u64 mmap_offset;
	__u64 ring_stride;
	__u64 consumer_len;
	__u64 ring_len;
};

/**
 * struct vneuron_trace_stop - argument of %VNEURON_IOCTL_TRACE_STOP
 * @core: the core
 * @flags: must be 0
 *
 * Stop producing: new executions are not traced; a traced one
 * still running stays traced to its end, then every ring is published and pollers woken.
 * The call waits for that end (killable: a fatal signal ends the wait, not the stop;
 * closing the file never waits). The rings stay mapped and readable until the file
 * closes or starts that core again. Errors: EINVAL (core, flags), ENOENT (this file is
 * not tracing that core), EINTR (killed while waiting).
 */
struct vneuron_trace_stop {
	__u32 core;
	__u32 flags;
};

#define VNEURON_TRACE_MIN_RING		4096ULL
#define VNEURON_TRACE_MAX_RING		(256ULL << 20)

/**
 * VNEURON_IOCTL_TRACE_START - start tracing a core (&struct vneuron_trace_start)
 */
#define VNEURON_IOCTL_TRACE_START	_IOWR(VNEURON_IOCTL_BASE, 0x20, struct vneuron_trace_start)

/**
 * VNEURON_IOCTL_TRACE_STOP - stop tracing a core (&struct vneuron_trace_stop)
 */
#define VNEURON_IOCTL_TRACE_STOP	_IOW(VNEURON_IOCTL_BASE, 0x21, struct vneuron_trace_stop)

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_VNEURON_TRACE_H */
