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
 * ownership (docs/uapi.md, "Security model").
 */
#define VNEURON_UAPI_VERSION		2

/* Capability bits in vneuron_info.caps. */
#define VNEURON_CAP_MEM			_BITULL(0)	/* MEM_* ioctls and mmap */
#define VNEURON_CAP_EXEC		_BITULL(1)	/* PROGRAM_* and EXEC/WAIT */
#define VNEURON_CAP_TRACE		_BITULL(2)	/* trace rings */
#define VNEURON_CAP_URING_CMD		_BITULL(3)	/* EXEC through IORING_OP_URING_CMD */
#define VNEURON_CAP_BF16		_BITULL(4)
#define VNEURON_CAP_FAULT		_BITULL(5)	/* status VNEURON_EXEC_FAULT, trace ERROR */
#define VNEURON_CAP_LIMITS		_BITULL(6)	/* vneuron_info.limits */
#define VNEURON_CAP_OWNERSHIP		_BITULL(7)	/* a core belongs to one file */

/* Engines of a core, in this order everywhere (trace records, sysfs, profiles). */
enum vneuron_engine {
	VNEURON_ENGINE_TENSOR = 0,
	VNEURON_ENGINE_VECTOR = 1,
	VNEURON_ENGINE_SCALAR = 2,
	VNEURON_ENGINE_GPSIMD = 3,
	VNEURON_ENGINE_COUNT = 4,
};

/*
 * The device model's figures: the one table the driver, the library and the profiler
 * share. Frequencies in kHz, bandwidths in bytes/s, peaks in FLOP/s.
 */
struct vneuron_model {
	char name[16];			/* "trn1" */
	__u32 tensor_rows;		/* 128 */
	__u32 tensor_cols;		/* 128 */
	__u32 tensor_khz;		/* 2800000 */
	__u32 vector_lanes;		/* 128 */
	__u32 vector_khz;		/* 1120000 */
	__u32 scalar_lanes;		/* 128 */
	__u32 scalar_khz;		/* 1400000 */
	__u32 gpsimd_cores;		/* 8 */
	__u32 gpsimd_khz;		/* 1400000 */
	__u32 partitions;		/* 128 */
	__u32 sbuf_partition_bytes;	/* 192 KiB */
	__u32 psum_partition_bytes;	/* 16 KiB */
	__u32 psum_bank_bytes;		/* 2 KiB */
	__u32 dma_engines;		/* 16 per core */
	__u32 dma_desc_overhead_ns;	/* fixed cost per descriptor */
	__u32 pad;			/* 0 */
	__u64 dma_engine_bw;		/* bytes/s per DMA engine */
	__u64 hbm_bw;			/* bytes/s per core */
	__u64 hbm_modeled_bytes;	/* modeled HBM per core */
	__u64 peak_flops_bf16;		/* TensorE peak per core */
	__u64 peak_flops_fp32;
};

/*
 * Per open file, set by module parameters (docs/uapi.md): what one file may hold at once.
 * Beyond them the call that would pass one fails (-ENOSPC, or -EAGAIN for executions).
 */
struct vneuron_limits {
	__u32 max_programs;		/* loaded programs */
	__u32 max_execs;		/* executions submitted and not yet reaped */
	__u64 max_program_bytes;	/* bytes of loaded program images */
	__u64 max_exec_bytes;		/* core-provided scratch and semaphore tables of them */
	__u64 max_trace_bytes;		/* trace ring memory of the file's sessions */
};

/* VNEURON_IOCTL_GET_INFO: the device, its limits and the model. All output. */
struct vneuron_info {
	__u32 uapi_version;
	__u32 flags;			/* in: must be 0 */
	__u64 caps;			/* VNEURON_CAP_* */
	__u32 device_index;		/* N of /dev/vneuronN */
	__u32 device_count;
	__u32 core_count;		/* cores of this device */
	__u32 max_mem_handles;		/* per open file */
	__u64 hbm_bytes;		/* host memory backing this device's HBM */
	__u64 hbm_used;			/* bytes allocated now, by all files */
	__u64 max_alloc;		/* largest single allocation */
	struct vneuron_model model;
	/* uapi 2 (VNEURON_CAP_LIMITS): a version-1 caller's struct ends above */
	struct vneuron_limits limits;
};

/* VNEURON_IOCTL_MEM_ALLOC: device memory, zeroed, owned by the calling file. */
struct vneuron_mem_alloc {
	__u64 size;			/* in: bytes, > 0 */
	__u32 flags;			/* in: must be 0 */
	__u32 handle;			/* out: non-zero */
	__u64 mmap_offset;		/* out: offset to pass to mmap() */
	__u64 device_addr;		/* out: the buffer's address in the device's HBM space */
};

/*
 * mmap() offsets are opaque: pass a buffer's mmap_offset (plus a page-aligned offset
 * into the buffer for a partial map). Buffers use offsets below VNEURON_MMAP_TRACE_BASE;
 * the range from it up is reserved for trace rings.
 */
#define VNEURON_MMAP_TRACE_BASE		_BITULL(52)

/* VNEURON_IOCTL_MEM_FREE */
struct vneuron_mem_free {
	__u32 handle;
	__u32 flags;			/* must be 0 */
};

/* VNEURON_IOCTL_MEM_WRITE and VNEURON_IOCTL_MEM_READ: copies to and from a buffer. */
struct vneuron_mem_rw {
	__u32 handle;
	__u32 flags;			/* must be 0 */
	__u64 offset;			/* into the buffer */
	__u64 size;			/* bytes; offset + size <= buffer size */
	__u64 user_ptr;			/* the user memory to copy from or to */
};

/*
 * VNEURON_IOCTL_RESET: stop a core's work, fail what is queued, clear its state. Only
 * the file that owns the core (or, for an unowned core, any writer) or CAP_SYS_ADMIN.
 */
struct vneuron_reset {
	__u32 core;
	__u32 flags;			/* must be 0 */
};

/*
 * VNEURON_IOCTL_PROGRAM_LOAD: validate a .vnef image (uapi/vneuron_program.h) and keep a
 * copy of it as a program of the calling file. On -EINVAL the check that failed is
 * copied back (check, section, index, msg) so tools can say why; nothing is logged.
 */
struct vneuron_program_load {
	__u64 image_ptr;		/* in: the image */
	__u64 image_size;		/* in: bytes, 1..VNEF_MAX_IMAGE_BYTES */
	__u32 flags;			/* in: must be 0 */
	__u32 handle;			/* out: non-zero */
	__u32 check;			/* out on -EINVAL: enum vnef_check, else 0 */
	__u32 section;			/* out on -EINVAL: section table index, or ~0 */
	__u32 index;			/* out on -EINVAL: entry in that section, or ~0 */
	__u32 tensor_count;		/* out: bindings EXEC expects */
	char msg[64];			/* out on -EINVAL: NUL-terminated, English */
};

/* VNEURON_IOCTL_PROGRAM_UNLOAD: drop a program; running executions keep their copy. */
struct vneuron_program_unload {
	__u32 handle;
	__u32 flags;			/* must be 0 */
};

/*
 * VNEURON_IOCTL_EXEC: queue a program on a core without blocking. mem_handles_ptr points
 * to mem_count __u32 buffer handles of this file, one per program tensor in tensor
 * order: inputs and outputs need a buffer at least the tensor's size; scratch tensors
 * take a buffer or 0 (the core provides zeroed scratch); constants take 0. Every bound
 * buffer stays alive until the execution ends, even if freed meanwhile.
 */
struct vneuron_exec {
	__u32 program;			/* in: program handle */
	__u32 core;			/* in: 0..core_count-1 */
	__u64 mem_handles_ptr;		/* in: __u32 array */
	__u32 mem_count;		/* in: = the program's tensor_count */
	__u32 flags;			/* in: must be 0 */
	__u64 time_limit_ns;		/* in: host-time limit, 0 for the default (30 s) */
	__u64 exec_id;			/* out: non-zero, per file */
};

/* Results in vneuron_wait.status. */
enum vneuron_exec_status {
	VNEURON_EXEC_OK = 0,
	VNEURON_EXEC_ERROR = 1,		/* stream, pc and reason say where */
	VNEURON_EXEC_TIMEOUT = 2,	/* time limit or a deadlock on semaphores */
	VNEURON_EXEC_ABORTED = 3,	/* reset, cancel or unload */
	VNEURON_EXEC_FAULT = 4,		/* an access outside its memory: reason says which */
};

/* Why it ended (vneuron_wait.reason). */
enum vneuron_exec_reason {
	VNEURON_REASON_NONE = 0,
	VNEURON_REASON_DEADLOCK = 1,	/* every stream blocked on a semaphore */
	VNEURON_REASON_TIME_LIMIT = 2,
	VNEURON_REASON_RESET = 3,
	VNEURON_REASON_STOP = 4,	/* module unload */
	VNEURON_REASON_NOMEM = 5,
	VNEURON_REASON_CANCEL = 6,
	/* VNEURON_EXEC_FAULT: stream and pc say which entry; the trace has an ERROR record */
	VNEURON_REASON_FAULT_SBUF = 7,	/* outside SBUF or the partition */
	VNEURON_REASON_FAULT_PSUM = 8,	/* outside PSUM or the partition */
	VNEURON_REASON_FAULT_HBM = 9,	/* outside the buffer bound to the tensor */
	VNEURON_REASON_FAULT_SEM = 10,	/* a semaphore id or value outside its table */
	VNEURON_REASON_FAULT_STATE = 11, /* operands the engine's state cannot hold */
};

/* The stream value for "no stream": engines are 0..3, DMA queue q is 4 + q. */
#define VNEURON_STREAM_NONE		0xffffffffu

/* Wait without a deadline. */
#define VNEURON_WAIT_FOREVER		(~0ULL)

/*
 * VNEURON_IOCTL_WAIT: wait for an execution of this file until the absolute
 * CLOCK_MONOTONIC timeout_ns (a time in the past only checks; VNEURON_WAIT_FOREVER
 * waits without a deadline). Returns 0 with the status once the execution has ended;
 * the exec_id is then forgotten (a second WAIT gives -ENOENT). -ETIMEDOUT if it is
 * still queued or running at the timeout.
 */
struct vneuron_wait {
	__u64 exec_id;			/* in */
	__u64 timeout_ns;		/* in: absolute CLOCK_MONOTONIC */
	__u32 flags;			/* in: must be 0 */
	__u32 status;			/* out: enum vneuron_exec_status */
	__u32 reason;			/* out: enum vneuron_exec_reason */
	__u32 stream;			/* out: where it failed, or VNEURON_STREAM_NONE */
	__u32 pc;			/* out: entry index in that stream */
	__u32 core;			/* out */
	__u64 seq;			/* out: the execution's sequence number on its core */
	__u64 model_ps;			/* out: modeled duration, picoseconds */
	__u64 host_ns;			/* out: host time from start to end */
};

/*
 * EXEC through io_uring (VNEURON_CAP_URING_CMD): an IORING_OP_URING_CMD SQE on
 * /dev/vneuronN with cmd_op VNEURON_URING_CMD_EXEC and this struct in the SQE's command
 * area (16 bytes: a plain 64-byte SQE suffices; with IORING_SETUP_SQE128 the other 64
 * bytes must be zero). uring_cmd_flags must be 0. The CQE arrives when the execution
 * ends: res 0 (OK), -EIO (ERROR, FAULT), -ETIMEDOUT (TIMEOUT), -ECANCELED (ABORTED), or
 * the -errno EXEC would give when it is refused; -EFAULT if the status cannot be written.
 * The device file must be open for writing (else -EBADF). Closing the device file or
 * exiting cancels the process's commands (docs/uapi.md).
 */
struct vneuron_uring_cmd {
	__u64 exec_ptr;			/* in: struct vneuron_exec, as for EXEC; exec_id 0 */
	__u64 status_ptr;		/* in: struct vneuron_wait written at the end, or 0 */
};

#define VNEURON_IOCTL_BASE		'V'
#define VNEURON_IOCTL_GET_INFO		_IOWR(VNEURON_IOCTL_BASE, 0x00, struct vneuron_info)
#define VNEURON_IOCTL_MEM_ALLOC		_IOWR(VNEURON_IOCTL_BASE, 0x01, struct vneuron_mem_alloc)
#define VNEURON_IOCTL_MEM_FREE		_IOW(VNEURON_IOCTL_BASE, 0x02, struct vneuron_mem_free)
#define VNEURON_IOCTL_MEM_WRITE		_IOW(VNEURON_IOCTL_BASE, 0x03, struct vneuron_mem_rw)
#define VNEURON_IOCTL_MEM_READ		_IOW(VNEURON_IOCTL_BASE, 0x04, struct vneuron_mem_rw)
#define VNEURON_IOCTL_RESET		_IOW(VNEURON_IOCTL_BASE, 0x05, struct vneuron_reset)
#define VNEURON_IOCTL_PROGRAM_LOAD	_IOWR(VNEURON_IOCTL_BASE, 0x06, struct vneuron_program_load)
#define VNEURON_IOCTL_PROGRAM_UNLOAD	\
	_IOW(VNEURON_IOCTL_BASE, 0x07, struct vneuron_program_unload)
#define VNEURON_IOCTL_EXEC		_IOWR(VNEURON_IOCTL_BASE, 0x08, struct vneuron_exec)
#define VNEURON_IOCTL_WAIT		_IOWR(VNEURON_IOCTL_BASE, 0x09, struct vneuron_wait)

/* io_uring command ops (io_uring_cmd.cmd_op), numbered like ioctls. */
#define VNEURON_URING_CMD_EXEC		_IOW(VNEURON_IOCTL_BASE, 0x40, struct vneuron_uring_cmd)

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_VNEURON_H */
