// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * How an execution ended, in words: one table of the statuses and reasons of
 * uapi/vneuron.h for every message of the libraries and their tools, and where.
 */
#include <errno.h>
#include <stdio.h>

#include "neurondev.h"
#include "vn_isa.h"

/* Each status: its id (the enum's name, for tables and JSON) and its words. */
static const struct {
	const char *id;
	const char *name;
} results[] = {
	[VNEURON_EXEC_OK] = { "OK", "ok" },
	[VNEURON_EXEC_ERROR] = { "ERROR", "error" },
	[VNEURON_EXEC_TIMEOUT] = { "TIMEOUT", "timeout" },
	[VNEURON_EXEC_ABORTED] = { "ABORTED", "aborted" },
	[VNEURON_EXEC_FAULT] = { "FAULT", "device fault" },
};

/* Each reason: an id for JSON and its words. */
static const struct {
	const char *id;
	const char *name;
} reasons[] = {
	[VNEURON_REASON_NONE] = { "none", "" },
	[VNEURON_REASON_DEADLOCK] = { "deadlock", "deadlock on semaphores" },
	[VNEURON_REASON_TIME_LIMIT] = { "time-limit", "time limit" },
	[VNEURON_REASON_RESET] = { "reset", "core reset" },
	[VNEURON_REASON_STOP] = { "stop", "module unload" },
	[VNEURON_REASON_NOMEM] = { "nomem", "out of scratch memory" },
	[VNEURON_REASON_CANCEL] = { "cancel", "cancelled: its process closed the device" },
	[VNEURON_REASON_FAULT_SBUF] = { "sbuf", "an access outside SBUF or its partition" },
	[VNEURON_REASON_FAULT_PSUM] = { "psum", "an access outside PSUM or its partition" },
	[VNEURON_REASON_FAULT_HBM] = { "hbm", "an access outside a bound HBM buffer" },
	[VNEURON_REASON_FAULT_SEM] = { "semaphore", "a semaphore outside its table" },
	[VNEURON_REASON_FAULT_STATE] = { "state", "operands the engine cannot hold" },
	[VNEURON_REASON_CC_MISSING] = { "cc-missing", "ranks never arrived at a collective" },
	[VNEURON_REASON_CC_PEER] = {
		"cc-peer", "another rank failed or left the communicator" },
	[VNEURON_REASON_CC_MISMATCH] = { "cc-mismatch", "the ranks disagree on a collective" },
};

#define N_RESULTS	(sizeof(results) / sizeof(results[0]))
#define N_REASONS	(sizeof(reasons) / sizeof(reasons[0]))

const char *nd_exec_result_name(uint32_t result)
{
	return result < N_RESULTS && results[result].name ? results[result].name :
	       "unknown status";
}

const char *nd_exec_result_id(uint32_t result)
{
	return result < N_RESULTS && results[result].id ? results[result].id : "?";
}

const char *nd_exec_reason_name(uint32_t reason)
{
	return reason < N_REASONS && reasons[reason].name ? reasons[reason].name :
	       "unknown reason";
}

const char *nd_exec_reason_id(uint32_t reason)
{
	return reason < N_REASONS && reasons[reason].id ? reasons[reason].id : "?";
}

const char *nd_stream_name(uint32_t stream)
{
	static const char *const queues[VNEF_DMA_QUEUES] = {
		"DMA0", "DMA1", "DMA2", "DMA3", "DMA4", "DMA5", "DMA6", "DMA7", "DMA8",
		"DMA9", "DMA10", "DMA11", "DMA12", "DMA13", "DMA14", "DMA15",
	};

	if (stream < VNEF_ENGINES)
		return vn_engine_name(stream);
	if (stream == VNEF_STREAM_CC)
		return VN_CC_ENGINE_NAME;
	return stream - VNEF_ENGINES < VNEF_DMA_QUEUES ? queues[stream - VNEF_ENGINES] : "?";
}

int nd_run_errno(const struct nd_run_result *r)
{
	switch (r->result) {
	case VNEURON_EXEC_OK:
		return 0;
	case VNEURON_EXEC_TIMEOUT:
		return ETIMEDOUT;
	case VNEURON_EXEC_ABORTED:
		return ECANCELED;
	default:
		return EIO;
	}
}

const char *nd_run_describe(const struct nd_run_result *r, char *buf, size_t len)
{
	if (r->result == VNEURON_EXEC_OK) {
		snprintf(buf, len, "ok");
	} else if (r->stream == VNEURON_STREAM_NONE) {
		snprintf(buf, len, "execution %s%s%s", nd_exec_result_name(r->result),
			 r->reason ? ": " : "", r->reason ? nd_exec_reason_name(r->reason) : "");
	} else {
		snprintf(buf, len, "execution %s%s%s at %s entry %u",
			 nd_exec_result_name(r->result), r->reason ? ": " : "",
			 r->reason ? nd_exec_reason_name(r->reason) : "",
			 nd_stream_name(r->stream), r->pc);
	}
	return buf;
}
