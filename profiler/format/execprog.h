/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Which program each execution ran (docs/profile-format.md, "Exec programs"): built at
 * capture from the API log's PROGRAM_ID, EXEC and WAIT records (neurondev.h) and written
 * as section 9 of the profile.
 */
#ifndef VNP_EXECPROG_H
#define VNP_EXECPROG_H

#include <stdint.h>

#include "vntf.h"

/* A loaded program of one process: its identity, assembled from PROGRAM_ID chunks. */
struct vnp_loaded {
	uint32_t pid, id;		/* the process and its PROGRAM_LOAD's pc */
	uint32_t chunks;		/* bit i: chunk i seen */
	uint64_t size;
	uint8_t bytes[ND_API_ID_CHUNKS * ND_API_ID_CHUNK];	/* SHA-256, then the name */
};

/* An EXEC call (its program) or a WAIT (its execution's core and exec_seq). */
struct vnp_api_exec {
	uint32_t pid, device, exec_id;	/* exec_id: its low 32 bits, as logged */
	uint32_t core, value;		/* EXEC: the program's id; WAIT: the exec_seq */
	uint32_t uring;			/* exec_id is io_uring's, the library's own */
};

struct vnp_execmap {
	struct vnp_loaded *loaded;
	uint32_t nloaded, loaded_cap;
	struct vnp_api_exec *exec, *wait;
	uint32_t nexec, exec_cap, nwait, wait_cap;
};

/*
 * Takes what it needs of an API record: 1 if it is a PROGRAM_ID record (not kept in the
 * profile's stream), 0 otherwise, -ENOMEM.
 */
int vnp_execmap_note(struct vnp_execmap *m, const struct vneuron_trace_record *r);
/*
 * Section 9 from what was noted: each waited-for execution with the identity of the
 * program its EXEC named (identical images once). Nothing if no program was loaded.
 * 0 or -errno (-ENOMEM, the writer's).
 */
int vnp_execmap_write(struct vnp_execmap *m, struct vntf_writer *w);
void vnp_execmap_free(struct vnp_execmap *m);

#endif /* VNP_EXECPROG_H */
