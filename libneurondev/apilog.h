/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The API log (apilog.c; its record format is in neurondev.h): with VNEURON_PROFILE_API
 * set, each device handle appends one record per API call to that file for
 * `vneuron-profile capture -- app`. Not installed.
 */
#ifndef ND_APILOG_H
#define ND_APILOG_H

#include <stdint.h>

#include "neurondev.h"

/* The call's start, to pass to nd_api_note(); 0 when dev does not log (dev NULL: open). */
uint64_t nd_api_t0(const struct nd_device *dev);
/*
 * Log one call of enum nd_api_call that started at t0 (nothing if t0 is 0): the record's
 * call sequence number (pc), 0 if nothing was logged.
 */
uint32_t nd_api_note(struct nd_device *dev, unsigned int call, uint64_t t0, uint64_t bytes,
		     uint32_t core, uint64_t exec_id, uint64_t seq);
/*
 * io_uring submissions (uring.c): an id of the process's for one execution, 0 when dev
 * does not log; its EXEC record at submission and its WAIT record when its completion
 * is reaped, both with sem_signal ND_API_URING and that id (nothing if id is 0).
 */
uint32_t nd_api_uring_id(const struct nd_device *dev);
void nd_api_note_uring(struct nd_device *dev, unsigned int call, uint64_t t0,
		       uint32_t prog_id, uint32_t core, uint32_t id, uint64_t seq);
/*
 * The PROGRAM_ID records of a program just loaded (vp, from image), whose PROGRAM_LOAD
 * record's pc is id: its SHA-256, name and size (neurondev.h). Nothing if id is 0.
 */
struct vn_program;
void nd_api_program_id(struct nd_device *dev, uint32_t id, const struct vn_program *vp,
		       const void *image, size_t size);
/* At open (logs ND_API_OPEN if the process logs) and close (ND_API_CLOSE). */
void nd_api_open(struct nd_device *dev, uint64_t t0);
void nd_api_close(struct nd_device *dev);

#endif /* ND_APILOG_H */
