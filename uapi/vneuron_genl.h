/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR MIT */
/*
 * vneuron telemetry over generic netlink (docs/genl.md): the family
 * VNEURON_GENL_NAME, resolved through the generic netlink controller.
 *
 * Requests carry only the attributes their command lists below; the kernel validates
 * them strictly (an unknown attribute, a wrong type or length, or an attribute that is
 * only ever sent by the kernel gives -EINVAL with an extended ack naming it).
 *
 * Who sees what: the per-core figures are those sysfs shows to every user. The owner of
 * a core (pid, uid) is reported to a requester of the same uid, or one with CAP_PERFMON
 * or CAP_SYS_ADMIN; to others the core says only that it is owned
 * (VNEURON_A_OWNER_HIDDEN). Events go to subscribers (VNEURON_CMD_SUBSCRIBE), each
 * receiving only the events about processes of its own uid unless it had CAP_PERFMON or
 * CAP_SYS_ADMIN when it subscribed; events about no process (module errors) go to every
 * subscriber.
 */
#ifndef _UAPI_VNEURON_GENL_H
#define _UAPI_VNEURON_GENL_H

#define VNEURON_GENL_NAME		"vneuron"
#define VNEURON_GENL_VERSION		1

/*
 * Subscribers at once (VNEURON_CMD_SUBSCRIBE gives -EBUSY beyond); a user's share and the
 * privileged reserve are module parameters (VNEURON_A_SHARES).
 */
#define VNEURON_GENL_MAX_SUBSCRIBERS	32

/**
 * enum vneuron_genl_cmd - commands of the vneuron family
 * @VNEURON_CMD_UNSPEC: never used
 * @VNEURON_CMD_GET_DEVICE: dump every device (or the one @VNEURON_A_DEVICE names:
 *	-ENODEV if none): one message each, with @VNEURON_A_DEVICE,
 *	@VNEURON_A_NR_CORES, @VNEURON_A_HBM_SIZE, @VNEURON_A_HBM_USED, @VNEURON_A_HBM_PEAK,
 *	@VNEURON_A_UAPI_VERSION, @VNEURON_A_MODULE_VERSION, @VNEURON_A_EVENTS_PRODUCED,
 *	@VNEURON_A_EVENTS_DROPPED, (uapi 7) @VNEURON_A_SHARES and @VNEURON_A_MODEL_NAME
 * @VNEURON_CMD_GET_CORE: dump every core of every device (or of the device
 *	@VNEURON_A_DEVICE names): one consistent snapshot per core, with the core's
 *	attributes (see enum vneuron_genl_attr)
 * @VNEURON_CMD_SUBSCRIBE: the sending socket receives events (@VNEURON_CMD_EVENT
 *	messages) from now on until it unsubscribes or closes; -EALREADY if it does,
 *	-EDQUOT past the sender's user's share of subscriptions, -EBUSY past
 *	%VNEURON_GENL_MAX_SUBSCRIBERS (or past what the privileged reserve leaves, for an
 *	unprivileged sender)
 * @VNEURON_CMD_UNSUBSCRIBE: stop receiving events; -ENOENT if not subscribed
 * @VNEURON_CMD_EVENT: kernel to subscriber only: one event (enum vneuron_genl_event)
 * @__VNEURON_CMD_MAX: one past the last
 */
enum vneuron_genl_cmd {
	VNEURON_CMD_UNSPEC,
	VNEURON_CMD_GET_DEVICE,
	VNEURON_CMD_GET_CORE,
	VNEURON_CMD_SUBSCRIBE,
	VNEURON_CMD_UNSUBSCRIBE,
	VNEURON_CMD_EVENT,
	__VNEURON_CMD_MAX,
};

/**
 * enum vneuron_genl_event - what a VNEURON_CMD_EVENT message reports (VNEURON_A_EVENT)
 * @VNEURON_EVENT_UNSPEC: never sent
 * @VNEURON_EVENT_EXEC_START: an execution started on a core (@VNEURON_A_EXEC_SEQ)
 * @VNEURON_EVENT_EXEC_END: it ended: @VNEURON_A_STATUS, @VNEURON_A_REASON,
 *	@VNEURON_A_MODEL_PS, @VNEURON_A_HOST_NS
 * @VNEURON_EVENT_FAULT: it ended with VNEURON_EXEC_FAULT: @VNEURON_A_REASON,
 *	@VNEURON_A_STREAM and @VNEURON_A_PC say which check and where (after its EXEC_END)
 * @VNEURON_EVENT_CORE_CLAIM: a process claimed a core (its first EXEC there)
 * @VNEURON_EVENT_CORE_RELEASE: the owning file was released
 * @VNEURON_EVENT_RESET: VNEURON_IOCTL_RESET of a core
 * @VNEURON_EVENT_TRACE_START: a trace session started on a core (@VNEURON_A_PID: the
 *	tracer)
 * @VNEURON_EVENT_TRACE_STOP: it stopped: @VNEURON_A_TRACE_DROPPED records its rings
 *	dropped
 * @VNEURON_EVENT_ERROR: the module could not do something a user asked of it or one of
 *	its own jobs: @VNEURON_A_ERRNO (positive), @VNEURON_A_MESSAGE
 * @VNEURON_EVENT_DROPPED: only @VNEURON_A_DROPPED: what this subscriber missed, sent
 *	when the module's queue empties with misses not yet reported in another message
 * @__VNEURON_EVENT_MAX: one past the last
 *
 * Every event has @VNEURON_A_EVENT, @VNEURON_A_TIMESTAMP_NS and, where it concerns one,
 * @VNEURON_A_DEVICE, @VNEURON_A_CORE, @VNEURON_A_PID and @VNEURON_A_UID. Events are
 * queued by the module (never blocking the work they describe) and sent at most
 * %VNEURON_GENL_EVENT_BURST per %VNEURON_GENL_EVENT_PERIOD_MS to each subscriber; what
 * could not be queued or sent (a full queue, a full socket) is counted and the next
 * message to that subscriber carries the count in @VNEURON_A_DROPPED (a full queue
 * counts for every subscriber, whoever the lost event was about).
 */
enum vneuron_genl_event {
	VNEURON_EVENT_UNSPEC,
	VNEURON_EVENT_EXEC_START,
	VNEURON_EVENT_EXEC_END,
	VNEURON_EVENT_FAULT,
	VNEURON_EVENT_CORE_CLAIM,
	VNEURON_EVENT_CORE_RELEASE,
	VNEURON_EVENT_RESET,
	VNEURON_EVENT_TRACE_START,
	VNEURON_EVENT_TRACE_STOP,
	VNEURON_EVENT_ERROR,
	VNEURON_EVENT_DROPPED,
	__VNEURON_EVENT_MAX,
};

/* Event pacing: events a subscriber may receive per period. */
#define VNEURON_GENL_EVENT_BURST	2048
#define VNEURON_GENL_EVENT_PERIOD_MS	100
/* Events the module holds before it drops (counted). */
#define VNEURON_GENL_EVENT_QUEUE	4096

/**
 * enum vneuron_genl_attr - attributes of the vneuron family
 * @VNEURON_A_UNSPEC: never used
 * @VNEURON_A_DEVICE: u32, N of /dev/vneuronN (also a request filter)
 * @VNEURON_A_CORE: u32, M of coreM
 * @VNEURON_A_NR_CORES: u32
 * @VNEURON_A_HBM_SIZE: u64, bytes
 * @VNEURON_A_HBM_USED: u64, bytes allocated now
 * @VNEURON_A_HBM_PEAK: u64, the most ever allocated at once
 * @VNEURON_A_UAPI_VERSION: u32, VNEURON_UAPI_VERSION of the module
 * @VNEURON_A_MODULE_VERSION: string, the module's version
 * @VNEURON_A_EVENTS_PRODUCED: u64, events the module produced since it was loaded
 * @VNEURON_A_EVENTS_DROPPED: u64, of those, dropped before they were queued
 * @VNEURON_A_OWNER_PID: u32, the owning process (0: nobody owns the core)
 * @VNEURON_A_OWNER_UID: u32, its real uid
 * @VNEURON_A_OWNER_HIDDEN: flag: owned by a process the requester may not see
 * @VNEURON_A_EXEC_OK: u64, executions that ended OK since the module was loaded
 * @VNEURON_A_EXEC_ERROR: u64, ended ERROR
 * @VNEURON_A_EXEC_TIMEOUT: u64, ended TIMEOUT
 * @VNEURON_A_EXEC_ABORTED: u64, ended ABORTED
 * @VNEURON_A_EXEC_FAULT: u64, ended FAULT (sysfs device_faults)
 * @VNEURON_A_BUSY_NS: u64, sysfs busy_time_ns total: modeled busy time of all streams
 * @VNEURON_A_BYTES: u64, sysfs bytes_moved total
 * @VNEURON_A_FLOPS: u64, sysfs flops total
 * @VNEURON_A_MODEL_PS: u64, modeled time: of all executions (core) or of one (event)
 * @VNEURON_A_STREAM_BUSY: nested: one u64 per stream, of type stream + 1 (the four
 *	engines, then DMA queues 0..15), its modeled busy time in ps since load
 * @VNEURON_A_HBM_READ: u64, bytes DMA read from HBM since load
 * @VNEURON_A_HBM_WRITE: u64, bytes DMA wrote to HBM since load
 * @VNEURON_A_INSTRUCTIONS: u64, engine instructions run since load
 * @VNEURON_A_DESCRIPTORS: u64, DMA descriptors run since load
 * @VNEURON_A_TRACED: flag: a trace session takes this core's executions
 * @VNEURON_A_TIMESTAMP_NS: u64, CLOCK_MONOTONIC of the snapshot or the event
 * @VNEURON_A_EVENT: u32, enum vneuron_genl_event
 * @VNEURON_A_PID: u32, the process the event is about (0: none)
 * @VNEURON_A_UID: u32, its real uid
 * @VNEURON_A_EXEC_SEQ: u64, the execution's sequence number on its core (from 1),
 *	as in its trace records
 * @VNEURON_A_STATUS: u32, enum vneuron_exec_status
 * @VNEURON_A_REASON: u32, enum vneuron_exec_reason
 * @VNEURON_A_HOST_NS: u64, host time: the execution took (event), all the core's executions
 *	took since load (core)
 * @VNEURON_A_STREAM: u32, the stream of a fault
 * @VNEURON_A_PC: u32, the entry of a fault
 * @VNEURON_A_TRACE_DROPPED: u64, records a trace session's rings dropped
 * @VNEURON_A_ERRNO: u32, a positive errno
 * @VNEURON_A_MESSAGE: string, what failed
 * @VNEURON_A_DROPPED: u64, events this subscriber missed since its previous message
 * @VNEURON_A_PAD: padding for 64-bit attributes
 * @VNEURON_A_SHARES: nested (device dump, uapi 7): the resources every user of the
 *	module shares, one nest each of type enum vneuron_share_kind + 1, holding
 *	@VNEURON_A_SHARE_TOTAL, @VNEURON_A_SHARE_PER_USER, @VNEURON_A_SHARE_RESERVED,
 *	@VNEURON_A_SHARE_USED and @VNEURON_A_SHARE_RESERVED_USED (struct vneuron_share of
 *	uapi/vneuron.h)
 * @VNEURON_A_SHARE_TOTAL: u32, in a share's nest: the most held at once by everyone
 * @VNEURON_A_SHARE_PER_USER: u32, in a share's nest: the most one user holds
 * @VNEURON_A_SHARE_RESERVED: u32, in a share's nest: kept for privileged callers
 * @VNEURON_A_SHARE_USED: u32, in a share's nest: held now by everyone
 * @VNEURON_A_SHARE_RESERVED_USED: u32, in a share's nest: of those, held in the reserve
 * @VNEURON_A_MODEL_NAME: string (device dump): the device model, "trn1", "trn2" or
 *	"trn3" (the module parameter model; GET_INFO's model.name); a module before it
 *	had only trn1
 * @__VNEURON_A_MAX: one past the last
 */
enum vneuron_genl_attr {
	VNEURON_A_UNSPEC,
	VNEURON_A_DEVICE,
	VNEURON_A_CORE,
	VNEURON_A_NR_CORES,
	VNEURON_A_HBM_SIZE,
	VNEURON_A_HBM_USED,
	VNEURON_A_HBM_PEAK,
	VNEURON_A_UAPI_VERSION,
	VNEURON_A_MODULE_VERSION,
	VNEURON_A_EVENTS_PRODUCED,
	VNEURON_A_EVENTS_DROPPED,
	VNEURON_A_OWNER_PID,
	VNEURON_A_OWNER_UID,
	VNEURON_A_OWNER_HIDDEN,
	VNEURON_A_EXEC_OK,
	VNEURON_A_EXEC_ERROR,
	VNEURON_A_EXEC_TIMEOUT,
	VNEURON_A_EXEC_ABORTED,
	VNEURON_A_EXEC_FAULT,
	VNEURON_A_BUSY_NS,
	VNEURON_A_BYTES,
	VNEURON_A_FLOPS,
	VNEURON_A_MODEL_PS,
	VNEURON_A_STREAM_BUSY,
	VNEURON_A_HBM_READ,
	VNEURON_A_HBM_WRITE,
	VNEURON_A_INSTRUCTIONS,
	VNEURON_A_DESCRIPTORS,
	VNEURON_A_TRACED,
	VNEURON_A_TIMESTAMP_NS,
	VNEURON_A_EVENT,
	VNEURON_A_PID,
	VNEURON_A_UID,
	VNEURON_A_EXEC_SEQ,
	VNEURON_A_STATUS,
	VNEURON_A_REASON,
	VNEURON_A_HOST_NS,
	VNEURON_A_STREAM,
	VNEURON_A_PC,
	VNEURON_A_TRACE_DROPPED,
	VNEURON_A_ERRNO,
	VNEURON_A_MESSAGE,
	VNEURON_A_DROPPED,
	VNEURON_A_PAD,
	VNEURON_A_SHARES,
	VNEURON_A_SHARE_TOTAL,
	VNEURON_A_SHARE_PER_USER,
	VNEURON_A_SHARE_RESERVED,
	VNEURON_A_SHARE_USED,
	VNEURON_A_SHARE_RESERVED_USED,
	VNEURON_A_MODEL_NAME,
	__VNEURON_A_MAX,
};

#define VNEURON_A_MAX			(__VNEURON_A_MAX - 1)

#endif /* _UAPI_VNEURON_GENL_H */
