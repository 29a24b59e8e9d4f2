// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The .vntf profile format (docs/profile-format.md): what the writer (vntf_write.c) and
 * the reader (vntf_read.c) share: the layout's checks, section names, the backend names
 * and the node section's rules.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vntf.h"
#include "vntf_priv.h"

_Static_assert(sizeof(struct vntf_file_header) == 32, "vntf header");
_Static_assert(sizeof(struct vntf_section_header) == 16, "vntf section header");
_Static_assert(sizeof(struct vntf_program) == 120, "vntf program");
_Static_assert(sizeof(struct vntf_clock) == 32, "vntf clock");
_Static_assert(sizeof(struct vntf_worker) == 104, "vntf worker");
_Static_assert(sizeof(struct vntf_records) == 8, "vntf records");
_Static_assert(sizeof(struct vntf_lost) == 24, "vntf lost");
_Static_assert(sizeof(struct vntf_end) == 24, "vntf end");
_Static_assert(sizeof(struct vntf_node) == 104, "vntf node");
_Static_assert(sizeof(struct vntf_truncated) == 16, "vntf truncated");
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the format is little-endian");

static const char *const section_names[] = {
	[VNTF_SEC_MODEL] = "model",
	[VNTF_SEC_PROGRAM] = "program",
	[VNTF_SEC_CLOCK] = "clock",
	[VNTF_SEC_WORKER] = "worker",
	[VNTF_SEC_RECORDS] = "records",
	[VNTF_SEC_LOST] = "lost",
	[VNTF_SEC_END] = "end",
	[VNTF_SEC_EXEC_PROGRAMS] = "exec programs",
	[VNTF_SEC_BACKEND] = "backend",
	[VNTF_SEC_NODE] = "node",
	[VNTF_SEC_STRING] = "string",
	[VNTF_SEC_TRUNCATED] = "truncated",
	[VNTF_SEC_LNC] = "logical cores",
};

const char *vntf_section_name(uint32_t type)
{
	if (type < sizeof(section_names) / sizeof(section_names[0]) && section_names[type])
		return section_names[type];
	return "unknown";
}

bool vntf_has_nul(const char *s, size_t n)
{
	return memchr(s, 0, n) != NULL;
}

const char *vntf_backend_name(uint32_t backend)
{
	return backend == VNTF_BACKEND_MODULE ? "module" :
	       backend == VNTF_BACKEND_HOST ? "host" : "unknown";
}

bool vntf_node_ok(const struct vntf_node *n, const char **why)
{
	const char *bad = NULL;

	if (!n->nr_nodes || n->node >= n->nr_nodes)
		bad = "node id not below the node count";
	else if (!n->ranks || n->first_rank > n->world_size ||
		 n->ranks > n->world_size - n->first_rank)
		bad = "its ranks do not fit the world size";
	else if (n->world_size < n->nr_nodes)
		bad = "fewer ranks than nodes";
	else if (n->reserved)
		bad = "reserved field set";
	else if (n->clock_error_ns > INT64_MAX || n->clock_offset_ns == INT64_MIN)
		bad = "clock offset or error bound out of range";
	else if (!vntf_has_nul(n->hostname, sizeof(n->hostname)))
		bad = "unterminated hostname";
	if (why)
		*why = bad;
	return !bad;
}

bool vntf_program_ok(const struct vntf_program *p)
{
	if (p->hash_len > sizeof(p->hash) || !vntf_has_nul(p->name, sizeof(p->name)))
		return false;
	if (p->hash_algo == VNTF_HASH_NONE)
		return p->hash_len == 0;
	return p->hash_algo == VNTF_HASH_SHA256 && p->hash_len == 32;
}


/* A program of section 9: an identity without a debug table. */
bool vntf_exec_program_ok(const struct vntf_program *p)
{
	return vntf_program_ok(p) && !p->debug_size;
}


bool vntf_worker_ok(const struct vntf_worker *wk)
{
	return wk->stream < VNTF_MAX_STREAMS && wk->nr_workers >= 1 &&
	       wk->worker < wk->nr_workers && wk->mode <= VNEURON_TRACE_MODE_OVERWRITE &&
	       vntf_has_nul(wk->hostname, sizeof(wk->hostname));
}
