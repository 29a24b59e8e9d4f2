// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * How an execution ended, in words: one table of the statuses and reasons of
 * uapi/vneuron.h for every message of the library and its tools.
 */
#include <errno.h>
#include <stdio.h>

#include "nd_internal.h"
#include "vneuron.h"

static const char *const result_names[] = {
	[VNEURON_EXEC_OK] = "ok",
	[VNEURON_EXEC_ERROR] = "error",
	[VNEURON_EXEC_TIMEOUT] = "timeout",
	[VNEURON_EXEC_ABORTED] = "aborted",
	[VNEURON_EXEC_FAULT] = "device fault",
};

static const char *const reason_names[] = {
	[VNEURON_REASON_NONE] = "",
	[VNEURON_REASON_DEADLOCK] = "deadlock on semaphores",
	[VNEURON_REASON_TIME_LIMIT] = "time limit",
	[VNEURON_REASON_RESET] = "core reset",
	[VNEURON_REASON_STOP] = "module unload",
	[VNEURON_REASON_NOMEM] = "out of scratch memory",
	[VNEURON_REASON_CANCEL] = "cancelled: its process closed the device",
	[VNEURON_REASON_FAULT_SBUF] = "an access outside SBUF or its partition",
	[VNEURON_REASON_FAULT_PSUM] = "an access outside PSUM or its partition",
	[VNEURON_REASON_FAULT_HBM] = "an access outside a bound HBM buffer",
	[VNEURON_REASON_FAULT_SEM] = "a semaphore outside its table",
	[VNEURON_REASON_FAULT_STATE] = "operands the engine cannot hold",
};

const char *nd_exec_result_name(uint32_t result)
{
	if (result < sizeof(result_names) / sizeof(result_names[0]) && result_names[result])
		return result_names[result];
	return "unknown status";
}

const char *nd_exec_reason_name(uint32_t reason)
{
	if (reason < sizeof(reason_names) / sizeof(reason_names[0]) && reason_names[reason])
		return reason_names[reason];
	return "unknown reason";
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
