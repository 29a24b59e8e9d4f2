/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* What the .vntf writer and reader share (vntf.c); not installed. */
#ifndef VNP_VNTF_PRIV_H
#define VNP_VNTF_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REC		sizeof(struct vneuron_trace_record)
#define SMALL_MAX	4096		/* any fixed-size metadata section */

/* "model", "records", ...: "unknown" for another type. */
const char *vntf_section_name(uint32_t type);
/* Whether a fixed-size string field is terminated within its n bytes. */
bool vntf_has_nul(const char *s, size_t n);

/* A program, section-9 program or worker section the format accepts. */
bool vntf_program_ok(const struct vntf_program *p);
bool vntf_exec_program_ok(const struct vntf_program *p);
bool vntf_worker_ok(const struct vntf_worker *wk);

#endif /* VNP_VNTF_PRIV_H */
