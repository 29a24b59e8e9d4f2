/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR MIT */
/*
 * vneuron: a virtual ML accelerator modelled on the AWS NeuronCore-v2.
 * The userspace ABI of /dev/vneuronN. See docs/uapi.md for every ioctl and its errors.
 *
 * Rules (Documentation/process/botching-up-ioctls.rst): fixed-size structs of __u32/__u64
 * with explicit padding, pointers as __u64, every flag and pad checked (unknown bits or a
 * non-zero pad give -EINVAL), capabilities instead of version guessing, absolute
 * CLOCK_MONOTONIC timeouts. The size encoded in an ioctl number is the size of the struct
 * the caller was built with: the kernel accepts a larger struct if the extra bytes are
 * zero (copy_struct_from_user(), else -E2BIG) and a smaller one only if it is at least
 * the first published size (else -EINVAL). Output structs are copied back truncated to
 * the caller's size.
 */
#ifndef _UAPI_VNEURON_H
#define _UAPI_VNEURON_H

#include <linux/const.h>
#include <linux/ioctl.h>
#include <linux/types.h>

#if defined(__cplusplus)
extern "C" {
#endif

/*
 * 2: device faults (VNEURON_EXEC_FAULT), per-file limits in GET_INFO, exclusive core
 * ownership (docs/security.md).
 * 3: the ioctl magic is 'J' (VNEURON_IOCTL_BASE); callers built for 'V' get -ENOTTY.
 * 4: communicators and the collective engine (VNEURON_CAP_COLLECTIVES): COMM_* ioctls,
 * .vnef version 2, a sixth trace ring, CC trace records, reasons CC_*.
 * 5: ranks on other nodes and the network queue (VNEURON_CAP_NETQ): COMM_NODES,
 * NETQ_WAIT, NETQ_COMPLETE.
 * 6: the network queue as a mapped ring (VNEURON_CAP_NETQ_RING): NETQ_RING_SETUP,
 * NETQ_DOORBELL, VNEURON_MMAP_NETQ_BASE; NETQ_WAIT and NETQ_COMPLETE stay.
 * 7: per-user limits and a privileged reserve on every resource the module's users
 * share (VNEURON_CAP_SHARES): vneuron_info.shares; -EDQUOT past a user's limit; a trace
 * session may be taken over (TRACE_STOP then gives -ECANCELED).
 * 8: logical cores (VNEURON_CAP_LNC): VNEURON_EXEC_LNC2 runs a program as two SPMD
 * instances on cores 2k and 2k + 1; .vnef's PROGRAM_ID and DMA pid_stride.
 */
#define VNEURON_UAPI_VERSION		8

/* Capability bits in vneuron_info.caps. */
#define VNEURON_CAP_MEM			_BITULL(0)	/* MEM_* ioctls and mmap */
#define VNEURON_CAP_EXEC		_BITULL(1)	/* PROGRAM_* and EXEC/WAIT */
#define VNEURON_CAP_TRACE		_BITULL(2)	/* trace rings */
#define VNEURON_CAP_URING_CMD		_BITULL(3)	/* EXEC through IORING_OP_URING_CMD */
#define VNEURON_CAP_BF16		_BITULL(4)
#define VNEURON_CAP_FAULT		_BITULL(5)	/* status VNEURON_EXEC_FAULT, trace ERROR */
#define VNEURON_CAP_LIMITS		_BITULL(6)	/* vneuron_info.limits */
#define VNEURON_CAP_OWNERSHIP		_BITULL(7)	/* a core belongs to one file */
#define VNEURON_CAP_COLLECTIVES		_BITULL(8)	/* COMM_* ioctls, the CC stream */
#define VNEURON_CAP_NETQ		_BITULL(9)	/* COMM_NODES, NETQ_* */
#define VNEURON_CAP_NETQ_RING		_BITULL(10)	/* NETQ_RING_SETUP, NETQ_DOORBELL */
#define VNEURON_CAP_SHARES		_BITULL(11)	/* vneuron_info.shares, per-user limits */
#define VNEURON_CAP_LNC			_BITULL(12)	/* VNEURON_EXEC_LNC2 (on trn2, trn3) */

/**
 * enum vneuron_engine - the compute engines of a core
 * @VNEURON_ENGINE_TENSOR: TensorE, the systolic array
 * @VNEURON_ENGINE_VECTOR: VectorE
 * @VNEURON_ENGINE_SCALAR: ScalarE, activation functions
 * @VNEURON_ENGINE_GPSIMD: GpSimdE
 * @VNEURON_ENGINE_COUNT: number of engines
 *
 * In this order everywhere (trace records, sysfs, profiles).
 */
enum vneuron_engine {
	VNEURON_ENGINE_TENSOR = 0,
	VNEURON_ENGINE_VECTOR = 1,
	VNEURON_ENGINE_SCALAR = 2,
	VNEURON_ENGINE_GPSIMD = 3,
	VNEURON_ENGINE_COUNT = 4,
};

/**
 * struct vneuron_model - the device model's figures
 * @name: NUL-padded model name: "trn1", "trn2" or "trn3"
 * @tensor_rows: TensorE rows, 128
 * @tensor_cols: TensorE columns, 128
 * @tensor_khz: TensorE clock (trn1 2800000, trn2 and trn3 2400000)
 * @vector_lanes: VectorE lanes, 128
 * @vector_khz: VectorE clock (trn1 1120000, trn2 960000, trn3 1200000)
 * @scalar_lanes: ScalarE lanes, 128
 * @scalar_khz: ScalarE clock (trn1 1400000, trn2 and trn3 1200000)
 * @gpsimd_cores: GpSimdE cores, 8
 * @gpsimd_khz: GpSimdE clock (trn1 1400000, trn2 and trn3 1200000)
 * @partitions: SBUF and PSUM partitions, 128
 * @sbuf_partition_bytes: SBUF bytes per partition (trn1 192 KiB, trn2 224 KiB, trn3
 *	256 KiB)
 * @psum_partition_bytes: PSUM bytes per partition, 16 KiB
 * @psum_bank_bytes: PSUM bank size, 2 KiB
 * @dma_engines: DMA engines per core, 16
 * @dma_desc_overhead_ns: fixed cost per DMA descriptor
 * @pad: 0
 * @dma_engine_bw: bytes/s per DMA engine
 * @hbm_bw: HBM bytes/s per core
 * @hbm_modeled_bytes: modeled HBM per core
 * @peak_flops_bf16: TensorE peak per core, bf16
 * @peak_flops_fp32: TensorE peak per core, fp32
 *
 * The one table the driver, the library and the profiler share (docs/uapi.md, "The
 * device model"; docs/isa.md, "Device models", has every figure's source). Frequencies
 * in kHz, bandwidths in bytes/s, peaks in FLOP/s. Its layout is frozen (struct
 * vneuron_info holds it before other members): what differs between generations beyond
 * these figures is in struct vneuron_model_gen.
 */
struct vneuron_model {
	char name[16];
	__u32 tensor_rows;
	__u32 tensor_cols;
	__u32 tensor_khz;
	__u32 vector_lanes;
	__u32 vector_khz;
	__u32 scalar_lanes;
	__u32 scalar_khz;
	__u32 gpsimd_cores;
	__u32 gpsimd_khz;
	__u32 partitions;
	__u32 sbuf_partition_bytes;
	__u32 psum_partition_bytes;
	__u32 psum_bank_bytes;
	__u32 dma_engines;
	__u32 dma_desc_overhead_ns;
	__u32 pad;
	__u64 dma_engine_bw;
	__u64 hbm_bw;
	__u64 hbm_modeled_bytes;
	__u64 peak_flops_bf16;
	__u64 peak_flops_fp32;
};

/**
 * struct vneuron_model_gen - what else differs between device generations
 * @generation: NUL-padded NeuronCore version: "NeuronCore-v2", "-v3", "-v4"
 * @cores_per_device: physical cores of one device (a chip): 2, 8, 8
 * @lnc: physical cores a logical core may join: 1 (trn1: no logical cores), 2
 * @dtypes: bit d set for each enum vnef_dtype d (uapi/vneuron_program.h) the model has
 * @tensor_fp32_passes: TensorE cycles per column with an fp32 operand: 4 (a quarter
 *	of the bf16 rate)
 * @tensor_fp8_rows: contraction rows a TensorE processing element takes per cycle with
 *	fp8 inputs in double-row mode: 1 (trn1: fp8 runs at the bf16 rate), 2
 * @perf_dtypes: the dtypes (bits as @dtypes) the engines' performance modes take:
 *	none (trn1), bf16 (trn2), bf16 and fp8 (trn3)
 * @vector_copy_rate: VectorE elements per lane per cycle for COPY and TENSOR_SCALAR
 *	when every operand has a dtype of @perf_dtypes and is in SBUF and contiguous (its
 *	performance mode): 1 (trn1), 4; halved (at least 1) for an operand in PSUM, and
 *	again for a strided one
 * @vector_tt_rate: the same for TENSOR_TENSOR with both sources in SBUF: 1, 2
 * @scalar_copy_rate: ScalarE elements per lane per cycle for COPY of SBUF operands of
 *	@perf_dtypes: 1, 1, 2 (trn3)
 * @cc_cores: collective cores per device: 6, 20, 16
 * @cc_intra_latency_ns: a collective hop between two cores of one device
 * @cc_inter_latency_ns: a collective hop between two devices
 * @cc_intra_bw: bytes/s of a collective hop between two cores of one device
 * @cc_inter_bw: bytes/s of a collective hop between two devices
 * @link_bw: NeuronLink bytes/s of one device
 * @hbm_device_bytes: HBM of one device: 32, 96, 144 GiB
 * @hbm_device_bw: HBM bytes/s of one device (struct vneuron_model.hbm_bw is its share
 *	per core)
 * @dma_device_bw: DMA bytes/s of one device
 * @peak_flops_fp8: TensorE peak per core with fp8 inputs (double-row mode where the
 *	model has it)
 *
 * The figures of struct vneuron_model's model that the first generation did not need
 * (docs/isa.md, "Device models", gives each one's source). Bandwidths in bytes/s.
 */
struct vneuron_model_gen {
	char generation[16];
	__u32 cores_per_device;
	__u32 lnc;
	__u32 dtypes;
	__u32 tensor_fp32_passes;
	__u32 tensor_fp8_rows;
	__u32 perf_dtypes;
	__u32 vector_copy_rate;
	__u32 vector_tt_rate;
	__u32 scalar_copy_rate;
	__u32 cc_cores;
	__u32 cc_intra_latency_ns;
	__u32 cc_inter_latency_ns;
	__u64 cc_intra_bw;
	__u64 cc_inter_bw;
	__u64 link_bw;
	__u64 hbm_device_bytes;
	__u64 hbm_device_bw;
	__u64 dma_device_bw;
	__u64 peak_flops_fp8;
};

/**
 * struct vneuron_limits - what one open file may hold at once
 * @max_programs: loaded programs
 * @max_execs: executions submitted and not yet reaped
 * @max_program_bytes: bytes of loaded program images
 * @max_exec_bytes: core-provided scratch and semaphore tables of its executions
 * @max_trace_bytes: trace ring memory of the file's sessions
 *
 * Set by module parameters (docs/uapi.md). Beyond them the call that would pass one
 * fails (-ENOSPC, or -EAGAIN for executions).
 */
struct vneuron_limits {
	__u32 max_programs;
	__u32 max_execs;
	__u64 max_program_bytes;
	__u64 max_exec_bytes;
	__u64 max_trace_bytes;
};

/**
 * enum vneuron_share_kind - the resources every user of the module shares
 * @VNEURON_SHARE_COMMS: communicators, from COMM_CREATE to their last reference
 * @VNEURON_SHARE_SUBSCRIBERS: telemetry subscriptions (VNEURON_CMD_SUBSCRIBE)
 * @VNEURON_SHARE_TRACES: trace sessions taking a core's executions (TRACE_START until
 *	TRACE_STOP, close, or a takeover)
 * @VNEURON_SHARE_NETQ_RINGS: network queue rings (NETQ_RING_SETUP until the
 *	registration goes and the last mapping of the ring with it)
 * @VNEURON_SHARE_EXECS: executions submitted and not yet ended and reaped (EXEC and
 *	io_uring)
 * @VNEURON_SHARE_CORES: cores claimed, on every device of the module
 * @VNEURON_SHARE_HBM: this device's HBM budget, in 4 KiB pages (buffers from MEM_ALLOC
 *	until their last reference), per device: the only kind not module-wide
 * @VNEURON_SHARE_COUNT: entries of &vneuron_info.shares
 *
 * The index of each in &vneuron_info.shares, and in the telemetry's
 * VNEURON_A_SHARES nest (plus one). New kinds are appended with a new uapi version.
 */
enum vneuron_share_kind {
	VNEURON_SHARE_COMMS = 0,
	VNEURON_SHARE_SUBSCRIBERS = 1,
	VNEURON_SHARE_TRACES = 2,
	VNEURON_SHARE_NETQ_RINGS = 3,
	VNEURON_SHARE_EXECS = 4,
	VNEURON_SHARE_CORES = 5,
	VNEURON_SHARE_HBM = 6,
	VNEURON_SHARE_COUNT = 7,
};

/**
 * struct vneuron_share - one shared resource: its limits and its use now
 * @total: the most the module holds at once, for every user together
 * @per_user: the most one user holds at once; one more gives -EDQUOT, unless the
 *	caller is privileged
 * @reserved: of @total, the part only privileged callers may take: others are refused
 *	(the resource's "module is full" error: -EAGAIN, -EBUSY for subscriptions, -ENOMEM
 *	for HBM) once they hold @total - @reserved
 * @used: held now, by every user
 * @user_used: held now by the caller's user (GET_INFO; the user as docs/uapi.md's
 *	security model defines it)
 * @reserved_used: of @used, held in the reserve (privileged callers take it first)
 *
 * Privileged: CAP_SYS_ADMIN, or for telemetry subscriptions and trace sessions
 * CAP_PERFMON, both in the caller and in whoever opened the file or socket it uses.
 * Unprivileged callers together hold at most @total - @reserved: @used -
 * @reserved_used.
 */
struct vneuron_share {
	__u32 total;
	__u32 per_user;
	__u32 reserved;
	__u32 used;
	__u32 user_used;
	__u32 reserved_used;
};

/**
 * struct vneuron_info - argument of %VNEURON_IOCTL_GET_INFO
 * @uapi_version: out: %VNEURON_UAPI_VERSION of the module
 * @flags: in: must be 0
 * @caps: out: VNEURON_CAP_*
 * @device_index: out: N of /dev/vneuronN
 * @device_count: out: devices of the module
 * @core_count: out: cores of this device
 * @max_mem_handles: out: live buffers per open file
 * @hbm_bytes: out: host memory backing this device's HBM
 * @hbm_used: out: bytes allocated now, by all files
 * @max_alloc: out: largest single allocation
 * @model: out: the device model's figures
 * @limits: out: the per-file limits (uapi 2, %VNEURON_CAP_LIMITS); a version-1
 *	caller's struct ends just before it
 * @shares: out: the resources every user shares, by enum vneuron_share_kind (uapi 7,
 *	%VNEURON_CAP_SHARES); an older caller's struct ends just before it
 *
 * The device, its limits and the model: the one call a read-only file may make.
 */
struct vneuron_info {
	__u32 uapi_version;
	__u32 flags;
	__u64 caps;
	__u32 device_index;
	__u32 device_count;
	__u32 core_count;
	__u32 max_mem_handles;
	__u64 hbm_bytes;
	__u64 hbm_used;
	__u64 max_alloc;
	struct vneuron_model model;
	struct vneuron_limits limits;
	struct vneuron_share shares[VNEURON_SHARE_COUNT];
};

/**
 * struct vneuron_mem_alloc - argument of %VNEURON_IOCTL_MEM_ALLOC
 * @size: in: bytes, > 0
 * @flags: in: must be 0
 * @handle: out: non-zero
 * @mmap_offset: out: offset to pass to mmap()
 * @device_addr: out: the buffer's address in the device's HBM space
 *
 * Device memory, zeroed, owned by the calling file.
 */
struct vneuron_mem_alloc {
	__u64 size;
	__u32 flags;
	__u32 handle;
	__u64 mmap_offset;
	__u64 device_addr;
};

/*
 * mmap() offsets are opaque: pass a buffer's mmap_offset (plus a page-aligned offset
 * into the buffer for a partial map). Buffers use offsets below VNEURON_MMAP_TRACE_BASE;
 * the range from it up to VNEURON_MMAP_NETQ_BASE is for trace rings, the range above
 * that for network queue rings.
 */
#define VNEURON_MMAP_TRACE_BASE		_BITULL(52)

/**
 * struct vneuron_mem_free - argument of %VNEURON_IOCTL_MEM_FREE
 * @handle: the buffer
 * @flags: must be 0
 */
struct vneuron_mem_free {
	__u32 handle;
	__u32 flags;
};

/**
 * struct vneuron_mem_rw - argument of %VNEURON_IOCTL_MEM_WRITE and %VNEURON_IOCTL_MEM_READ
 * @handle: the buffer
 * @flags: must be 0
 * @offset: into the buffer
 * @size: bytes; offset + size <= buffer size
 * @user_ptr: the user memory to copy from (WRITE) or to (READ)
 *
 * Copies to and from a buffer.
 */
struct vneuron_mem_rw {
	__u32 handle;
	__u32 flags;
	__u64 offset;
	__u64 size;
	__u64 user_ptr;
};

/**
 * struct vneuron_reset - argument of %VNEURON_IOCTL_RESET
 * @core: the core
 * @flags: must be 0
 *
 * Stop a core's work, fail what is queued, clear its state. Only the file that owns the
 * core (or, for an unowned core, any writer) or CAP_SYS_ADMIN.
 */
struct vneuron_reset {
	__u32 core;
	__u32 flags;
};

/**
 * struct vneuron_program_load - argument of %VNEURON_IOCTL_PROGRAM_LOAD
 * @image_ptr: in: the image
 * @image_size: in: bytes, 1..VNEF_MAX_IMAGE_BYTES
 * @flags: in: must be 0
 * @handle: out: non-zero
 * @check: out on -EINVAL: enum vnef_check, else 0
 * @section: out on -EINVAL: section table index, or ~0
 * @index: out on -EINVAL: entry in that section, or ~0
 * @tensor_count: out: bindings EXEC expects
 * @msg: out on -EINVAL: NUL-terminated, English
 *
 * Validate a .vnef image (uapi/vneuron_program.h) and keep a copy of it as a program of
 * the calling file. On -EINVAL the check that failed is copied back (@check, @section,
 * @index, @msg) so tools can say why; nothing is logged.
 */
struct vneuron_program_load {
	__u64 image_ptr;
	__u64 image_size;
	__u32 flags;
	__u32 handle;
	__u32 check;
	__u32 section;
	__u32 index;
	__u32 tensor_count;
	char msg[64];
};

/**
 * struct vneuron_program_unload - argument of %VNEURON_IOCTL_PROGRAM_UNLOAD
 * @handle: the program
 * @flags: must be 0
 *
 * Drop a program; running executions keep their copy.
 */
struct vneuron_program_unload {
	__u32 handle;
	__u32 flags;
};

/* vneuron_exec.flags: launch on a logical core of two physical cores (LNC=2). */
#define VNEURON_EXEC_LNC2		_BITUL(0)

/**
 * struct vneuron_exec - argument of %VNEURON_IOCTL_EXEC
 * @program: in: program handle
 * @core: in: 0..core_count-1
 * @mem_handles_ptr: in: __u32 array of @mem_count buffer handles
 * @mem_count: in: = the program's tensor_count
 * @flags: in: 0, or %VNEURON_EXEC_LNC2
 * @time_limit_ns: in: host-time limit, 0 for the default (30 s)
 * @exec_id: out: non-zero, per file
 *
 * With %VNEURON_EXEC_LNC2, @core is a logical core's first physical core (even, and
 * @core + 1 < core_count, else -EINVAL; a model without logical cores, trn1, gives
 * -EOPNOTSUPP, as does a program with a collective stream): the program runs as two
 * SPMD instances, program id 0 on @core and 1 on @core + 1, both bound to the same
 * buffers (HBM is shared). Both cores are claimed (a refused call claims neither). WAIT
 * reports one execution: the first failing instance's status, the later end's
 * model_ps and host_ns (docs/uapi.md, "EXEC").
 *
 * Queue a program on a core without blocking. @mem_handles_ptr points to @mem_count
 * buffer handles of this file, one per program tensor in tensor order: inputs and
 * outputs need a buffer at least the tensor's size; scratch tensors take a buffer or 0
 * (the core provides zeroed scratch); constants take 0. Every bound buffer stays alive
 * until the execution ends, even if freed meanwhile.
 */
struct vneuron_exec {
	__u32 program;
	__u32 core;
	__u64 mem_handles_ptr;
	__u32 mem_count;
	__u32 flags;
	__u64 time_limit_ns;
	__u64 exec_id;
};

/**
 * enum vneuron_exec_status - how an execution ended (vneuron_wait.status)
 * @VNEURON_EXEC_OK: it ran to its end
 * @VNEURON_EXEC_ERROR: stream, pc and reason say where
 * @VNEURON_EXEC_TIMEOUT: time limit or a deadlock on semaphores
 * @VNEURON_EXEC_ABORTED: reset, cancel or unload
 * @VNEURON_EXEC_FAULT: an access outside its memory: reason says which
 */
enum vneuron_exec_status {
	VNEURON_EXEC_OK = 0,
	VNEURON_EXEC_ERROR = 1,
	VNEURON_EXEC_TIMEOUT = 2,
	VNEURON_EXEC_ABORTED = 3,
	VNEURON_EXEC_FAULT = 4,
};

/**
 * enum vneuron_exec_reason - why an execution ended (vneuron_wait.reason)
 * @VNEURON_REASON_NONE: no reason to give
 * @VNEURON_REASON_DEADLOCK: every stream blocked on a semaphore
 * @VNEURON_REASON_TIME_LIMIT: its host-time limit passed
 * @VNEURON_REASON_RESET: VNEURON_IOCTL_RESET
 * @VNEURON_REASON_STOP: module unload
 * @VNEURON_REASON_NOMEM: the core could not allocate for it
 * @VNEURON_REASON_CANCEL: its process closed the device file or exited
 * @VNEURON_REASON_FAULT_SBUF: outside SBUF or the partition
 * @VNEURON_REASON_FAULT_PSUM: outside PSUM or the partition
 * @VNEURON_REASON_FAULT_HBM: outside the buffer bound to the tensor
 * @VNEURON_REASON_FAULT_SEM: a semaphore id or value outside its table
 * @VNEURON_REASON_FAULT_STATE: operands the engine's state cannot hold
 * @VNEURON_REASON_CC_MISSING: %VNEURON_EXEC_TIMEOUT: ranks of the communicator never
 *	arrived at the collective (stream %VNEURON_STREAM_CC, pc) before the time limit;
 *	the communicator's info says which
 * @VNEURON_REASON_CC_PEER: %VNEURON_EXEC_ABORTED: another rank's execution ended without
 *	reaching this collective (it failed, was cancelled or its process died), or the
 *	communicator was broken by an earlier failure
 * @VNEURON_REASON_CC_MISMATCH: %VNEURON_EXEC_ERROR: the ranks disagree on the collective
 *	(opcode, dtype, count, reduction, group), its group does not fit the communicator,
 *	or a PERMUTE's shift is out of its group
 *
 * The FAULT_* reasons come with %VNEURON_EXEC_FAULT: stream and pc say which entry;
 * the trace has an ERROR record.
 */
enum vneuron_exec_reason {
	VNEURON_REASON_NONE = 0,
	VNEURON_REASON_DEADLOCK = 1,
	VNEURON_REASON_TIME_LIMIT = 2,
	VNEURON_REASON_RESET = 3,
	VNEURON_REASON_STOP = 4,
	VNEURON_REASON_NOMEM = 5,
	VNEURON_REASON_CANCEL = 6,
	VNEURON_REASON_FAULT_SBUF = 7,
	VNEURON_REASON_FAULT_PSUM = 8,
	VNEURON_REASON_FAULT_HBM = 9,
	VNEURON_REASON_FAULT_SEM = 10,
	VNEURON_REASON_FAULT_STATE = 11,
	VNEURON_REASON_CC_MISSING = 12,
	VNEURON_REASON_CC_PEER = 13,
	VNEURON_REASON_CC_MISMATCH = 14,
};

/* The stream value for "no stream": engines are 0..3, DMA queue q is 4 + q, CC is 20. */
#define VNEURON_STREAM_NONE		0xffffffffu
#define VNEURON_STREAM_CC		20

/* Wait without a deadline. */
#define VNEURON_WAIT_FOREVER		(~0ULL)

/**
 * struct vneuron_wait - argument of %VNEURON_IOCTL_WAIT
 * @exec_id: in: the execution
 * @timeout_ns: in: absolute CLOCK_MONOTONIC deadline
 * @flags: in: must be 0
 * @status: out: enum vneuron_exec_status
 * @reason: out: enum vneuron_exec_reason
 * @stream: out: where it failed, or %VNEURON_STREAM_NONE
 * @pc: out: entry index in that stream
 * @core: out: the core it ran on
 * @seq: out: the execution's sequence number on its core
 * @model_ps: out: modeled duration, picoseconds
 * @host_ns: out: host time from start to end
 *
 * Wait for an execution of this file until the absolute CLOCK_MONOTONIC @timeout_ns (a
 * time in the past only checks; %VNEURON_WAIT_FOREVER waits without a deadline).
 * Returns 0 with the status once the execution has ended; the exec_id is then forgotten
 * (a second WAIT gives -ENOENT). -ETIMEDOUT if it is still queued or running at the
 * timeout.
 */
struct vneuron_wait {
	__u64 exec_id;
	__u64 timeout_ns;
	__u32 flags;
	__u32 status;
	__u32 reason;
	__u32 stream;
	__u32 pc;
	__u32 core;
	__u64 seq;
	__u64 model_ps;
	__u64 host_ns;
};

/**
 * struct vneuron_uring_cmd - the command area of %VNEURON_URING_CMD_EXEC
 * @exec_ptr: in: struct vneuron_exec, as for EXEC; its exec_id must be 0
 * @status_ptr: in: struct vneuron_wait written at the end, or 0
 *
 * EXEC through io_uring (%VNEURON_CAP_URING_CMD): an IORING_OP_URING_CMD SQE on
 * /dev/vneuronN with cmd_op %VNEURON_URING_CMD_EXEC and this struct in the SQE's command
 * area (16 bytes: a plain 64-byte SQE suffices; with IORING_SETUP_SQE128 the other 64
 * bytes must be zero). uring_cmd_flags must be 0. The CQE arrives when the execution
 * ends: res 0 (OK), -EIO (ERROR, FAULT), -ETIMEDOUT (TIMEOUT), -ECANCELED (ABORTED), or
 * the -errno EXEC would give when it is refused; -EFAULT if the status cannot be written.
 * The device file must be open for writing (else -EBADF). Closing the device file or
 * exiting cancels the process's commands (docs/uapi.md).
 */
struct vneuron_uring_cmd {
	__u64 exec_ptr;
	__u64 status_ptr;
};

/* Bytes of a communicator's id (struct vneuron_comm_create.id). */
#define VNEURON_COMM_ID_BYTES		16
/* vneuron_comm_info.rank and .core of the creator's handle, .failed_rank of none. */
#define VNEURON_COMM_NONE		0xffffffffu

/**
 * struct vneuron_comm_create - argument of %VNEURON_IOCTL_COMM_CREATE
 * @nranks: in: ranks of the communicator, 1..%VNEF_CC_MAX_RANKS (64)
 * @flags: in: must be 0
 * @id: out: the communicator's id, 16 random bytes: a secret, as NCCL's ncclUniqueId;
 *	knowing it is the only way to join
 * @handle: out: the registration, a non-zero handle of the calling file
 * @pad: must be 0
 *
 * A new communicator, registered (findable by @id) until the calling file destroys
 * @handle (%VNEURON_IOCTL_COMM_DESTROY) or closes. Pass @id to every rank's process (a
 * pipe, a file, the environment); each joins with %VNEURON_IOCTL_COMM_JOIN. Ranks that
 * joined keep the communicator alive after it is no longer registered. Errors: EINVAL
 * (@nranks, @flags, @pad), ENOSPC (the file holds 64 communicator handles), EAGAIN (the
 * module holds 256 communicators), ENOMEM, EBADF (read-only file).
 */
struct vneuron_comm_create {
	__u32 nranks;
	__u32 flags;
	__u8 id[VNEURON_COMM_ID_BYTES];
	__u32 handle;
	__u32 pad;
};

/**
 * struct vneuron_comm_join - argument of %VNEURON_IOCTL_COMM_JOIN
 * @id: in: the communicator's id, from %VNEURON_IOCTL_COMM_CREATE
 * @rank: in: the rank to be, below the communicator's nranks
 * @core: in: the core of this device that runs the rank's executions
 * @flags: in: must be 0
 * @handle: out: the rank's handle, non-zero, of the calling file
 *
 * Bind @core of this device as rank @rank of the communicator: executions the file
 * submits on @core afterwards run their collective stream (%VNEURON_STREAM_CC) as that
 * rank. The file claims @core as EXEC does (the core is then the file's until it
 * closes). Ranks of one communicator may be cores of different devices. Errors: ENOENT
 * (no registered communicator has @id), EINVAL (@rank >= nranks, @core >= core_count,
 * @flags), EEXIST (@rank has joined already), EBUSY (another file owns @core, or @core is
 * bound to a communicator already), ENOSPC (the file holds 64 communicator handles),
 * ENOMEM, EINTR, EBADF (read-only file).
 */
struct vneuron_comm_join {
	__u8 id[VNEURON_COMM_ID_BYTES];
	__u32 rank;
	__u32 core;
	__u32 flags;
	__u32 handle;
};

/**
 * struct vneuron_comm_info - argument of %VNEURON_IOCTL_COMM_INFO
 * @handle: in: a communicator handle of the calling file (a registration or a rank)
 * @flags: in: must be 0
 * @nranks: out: ranks of the communicator
 * @rank: out: the handle's rank, or %VNEURON_COMM_NONE for a registration
 * @core: out: the core bound as that rank, or %VNEURON_COMM_NONE
 * @joined: out: ranks that joined so far
 * @broken: out: 1 once a rank failed or left: every later collective ends ABORTED
 *	(reason CC_PEER) at once
 * @failed_rank: out: the rank whose failure broke it, or %VNEURON_COMM_NONE
 * @failure: out: that failure as a positive errno: ETIMEDOUT (ranks never arrived),
 *	EPIPE (the rank left or its execution ended early), EINVAL (a mismatched
 *	collective), EINTR (its execution was stopped); 0 if not broken
 * @pad: 0
 * @joined_mask: out: bit r: rank r joined
 * @missing: out: after a timeout at a collective, bit r: rank r had not arrived
 * @collectives: out: collectives completed (once per group)
 *
 * The state of a communicator, for the ranks and its creator.
 */
struct vneuron_comm_info {
	__u32 handle;
	__u32 flags;
	__u32 nranks;
	__u32 rank;
	__u32 core;
	__u32 joined;
	__u32 broken;
	__u32 failed_rank;
	__u32 failure;
	__u32 pad;
	__u64 joined_mask;
	__u64 missing;
	__u64 collectives;
};

/**
 * struct vneuron_comm_destroy - argument of %VNEURON_IOCTL_COMM_DESTROY
 * @handle: a communicator handle of the calling file
 * @flags: must be 0
 *
 * Drop a handle. A registration: the communicator is no longer found by its id (ranks
 * that joined keep it); one serving a network queue (%VNEURON_IOCTL_COMM_NODES) breaks
 * it too, its remote ranks having no proxy any more. A rank: it leaves, its core is
 * unbound (later executions on it have no communicator), and the communicator breaks
 * for every rank: collectives that
 * have not completed, this rank's queued executions' included, end ABORTED with reason
 * CC_PEER. Wait for the rank's executions before leaving. Closing the file destroys
 * every handle it holds. Errors: EINVAL (@flags), ENOENT (not a handle of this file).
 */
struct vneuron_comm_destroy {
	__u32 handle;
	__u32 flags;
};

/**
 * struct vneuron_comm_nodes - argument of %VNEURON_IOCTL_COMM_NODES
 * @handle: in: the registration of a communicator (%VNEURON_IOCTL_COMM_CREATE's handle)
 *	of the calling file, before any rank joined
 * @node: in: the node this machine is
 * @nodes: in: user pointer to __u32[@nranks]: rank r's node. Ranks whose node is not
 *	@node are remote: they cannot join here, and the calling file serves their side
 *	of every collective through its network queue (%VNEURON_IOCTL_NETQ_WAIT).
 *	At least one rank must be local and one remote.
 * @devices: in: user pointer to __u32[@nranks]: rank r's device on its node, for the
 *	cost model (two ranks of one node on one device share the intra-device link);
 *	every node must pass the same arrays, so that every node models the same time
 * @nranks: in: entries of the arrays, the communicator's nranks
 * @flags: in: must be 0
 *
 * Declares once which ranks run on other nodes. The network queue, served by this
 * registration only: when every local rank stands at a collective, the kernel copies
 * their inputs into a buffer of the calling file (the stage) and hands out the request
 * (the collective and their modeled arrivals); the proxy exchanges them with the other
 * nodes (libvnmpi does it with MPI), writes the remote ranks' inputs into the stage and
 * completes the request with their arrivals. The kernel then reduces every rank's data
 * in rank order and models the time as for ranks of one node, so results and timelines
 * are the same on every node.
 *
 * The queue is served one of two ways: a mapped ring of request and completion
 * descriptors (%VNEURON_IOCTL_NETQ_RING_SETUP, uapi 6), the kernel posting each
 * request as soon as the local ranks stand at the collective and poll() waking the
 * proxy; or blocking ioctls (%VNEURON_IOCTL_NETQ_WAIT, %VNEURON_IOCTL_NETQ_COMPLETE,
 * uapi 5), refused (EBUSY) on a registration with a ring. A proxy that closes the file,
 * destroys the registration or unmaps its ring breaks the communicator (its ranks'
 * collectives end ABORTED, reason CC_PEER); one that never serves lets the ranks'
 * executions end at their time limit (TIMEOUT, reason CC_MISSING naming the remote
 * ranks). Collectives of such a communicator must be of every rank (group_size 0).
 * Errors: EINVAL (@flags, @nranks, node values that leave no rank local or none
 * remote, a handle that is a rank's), ENOENT (not a handle of this file), EBUSY (a
 * rank joined already, or the nodes were set already), EFAULT, EINTR.
 */
struct vneuron_comm_nodes {
	__u32 handle;
	__u32 node;
	__u64 nodes;
	__u64 devices;
	__u32 nranks;
	__u32 flags;
};

/* The network queue's structs (requests, completions, the ring) */
#include "vneuron_netq.h"

/**
 * VNEURON_IOCTL_BASE - the ioctl magic of vneuron, 'J'
 *
 * Not registered to anyone in Documentation/userspace-api/ioctl/ioctl-number.rst. Up to
 * uapi version 2 it was 'V', which video4linux and the VT layer share; numbers built
 * with 'V' now give -ENOTTY.
 */
#define VNEURON_IOCTL_BASE		'J'

/**
 * VNEURON_IOCTL_GET_INFO - the device, its limits and the model (&struct vneuron_info)
 */
#define VNEURON_IOCTL_GET_INFO		_IOWR(VNEURON_IOCTL_BASE, 0x00, struct vneuron_info)

/**
 * VNEURON_IOCTL_MEM_ALLOC - a zeroed device buffer (&struct vneuron_mem_alloc)
 */
#define VNEURON_IOCTL_MEM_ALLOC		_IOWR(VNEURON_IOCTL_BASE, 0x01, struct vneuron_mem_alloc)

/**
 * VNEURON_IOCTL_MEM_FREE - drop a buffer handle (&struct vneuron_mem_free)
 */
#define VNEURON_IOCTL_MEM_FREE		_IOW(VNEURON_IOCTL_BASE, 0x02, struct vneuron_mem_free)

/**
 * VNEURON_IOCTL_MEM_WRITE - copy user memory into a buffer (&struct vneuron_mem_rw)
 */
#define VNEURON_IOCTL_MEM_WRITE		_IOW(VNEURON_IOCTL_BASE, 0x03, struct vneuron_mem_rw)

/**
 * VNEURON_IOCTL_MEM_READ - copy a buffer into user memory (&struct vneuron_mem_rw)
 */
#define VNEURON_IOCTL_MEM_READ		_IOW(VNEURON_IOCTL_BASE, 0x04, struct vneuron_mem_rw)

/**
 * VNEURON_IOCTL_RESET - stop a core's work and clear its state (&struct vneuron_reset)
 */
#define VNEURON_IOCTL_RESET		_IOW(VNEURON_IOCTL_BASE, 0x05, struct vneuron_reset)

/**
 * VNEURON_IOCTL_PROGRAM_LOAD - validate and keep a .vnef image
 *
 * Argument: &struct vneuron_program_load.
 */
#define VNEURON_IOCTL_PROGRAM_LOAD	_IOWR(VNEURON_IOCTL_BASE, 0x06, struct vneuron_program_load)

/**
 * VNEURON_IOCTL_PROGRAM_UNLOAD - drop a program handle (&struct vneuron_program_unload)
 */
#define VNEURON_IOCTL_PROGRAM_UNLOAD	\
	_IOW(VNEURON_IOCTL_BASE, 0x07, struct vneuron_program_unload)

/**
 * VNEURON_IOCTL_EXEC - queue a program on a core (&struct vneuron_exec)
 */
#define VNEURON_IOCTL_EXEC		_IOWR(VNEURON_IOCTL_BASE, 0x08, struct vneuron_exec)

/**
 * VNEURON_IOCTL_WAIT - wait for an execution and reap it (&struct vneuron_wait)
 */
#define VNEURON_IOCTL_WAIT		_IOWR(VNEURON_IOCTL_BASE, 0x09, struct vneuron_wait)

/**
 * VNEURON_IOCTL_COMM_CREATE - a new communicator and its id (&struct vneuron_comm_create)
 */
#define VNEURON_IOCTL_COMM_CREATE	_IOWR(VNEURON_IOCTL_BASE, 0x0a, struct vneuron_comm_create)

/**
 * VNEURON_IOCTL_COMM_JOIN - bind a core as a rank of a communicator
 *
 * Argument: &struct vneuron_comm_join.
 */
#define VNEURON_IOCTL_COMM_JOIN		_IOWR(VNEURON_IOCTL_BASE, 0x0b, struct vneuron_comm_join)

/**
 * VNEURON_IOCTL_COMM_INFO - a communicator's state (&struct vneuron_comm_info)
 */
#define VNEURON_IOCTL_COMM_INFO		_IOWR(VNEURON_IOCTL_BASE, 0x0c, struct vneuron_comm_info)

/**
 * VNEURON_IOCTL_COMM_DESTROY - leave a communicator or end its registration
 *
 * Argument: &struct vneuron_comm_destroy.
 */
#define VNEURON_IOCTL_COMM_DESTROY	_IOW(VNEURON_IOCTL_BASE, 0x0d, struct vneuron_comm_destroy)

/**
 * VNEURON_IOCTL_COMM_NODES - declare a communicator's ranks on other nodes
 *
 * Argument: &struct vneuron_comm_nodes.
 */
#define VNEURON_IOCTL_COMM_NODES	_IOW(VNEURON_IOCTL_BASE, 0x0e, struct vneuron_comm_nodes)

/**
 * VNEURON_IOCTL_NETQ_WAIT - the network queue's next request (&struct vneuron_netq_wait)
 */
#define VNEURON_IOCTL_NETQ_WAIT		_IOWR(VNEURON_IOCTL_BASE, 0x0f, struct vneuron_netq_wait)

/**
 * VNEURON_IOCTL_NETQ_COMPLETE - complete or fail a network request
 *
 * Argument: &struct vneuron_netq_complete.
 */
#define VNEURON_IOCTL_NETQ_COMPLETE	\
	_IOW(VNEURON_IOCTL_BASE, 0x10, struct vneuron_netq_complete)

/**
 * VNEURON_IOCTL_NETQ_RING_SETUP - serve a network queue through a mapped ring
 *
 * Argument: &struct vneuron_netq_ring_setup.
 */
#define VNEURON_IOCTL_NETQ_RING_SETUP	\
	_IOWR(VNEURON_IOCTL_BASE, 0x11, struct vneuron_netq_ring_setup)

/**
 * VNEURON_IOCTL_NETQ_DOORBELL - consume a ring's completions
 *
 * Argument: &struct vneuron_netq_doorbell.
 */
#define VNEURON_IOCTL_NETQ_DOORBELL	\
	_IOW(VNEURON_IOCTL_BASE, 0x12, struct vneuron_netq_doorbell)

/**
 * VNEURON_URING_CMD_EXEC - io_uring command op of EXEC (&struct vneuron_uring_cmd)
 *
 * The value of io_uring_cmd.cmd_op, numbered like an ioctl.
 */
#define VNEURON_URING_CMD_EXEC		_IOW(VNEURON_IOCTL_BASE, 0x40, struct vneuron_uring_cmd)

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_VNEURON_H */
