/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* What timeline.c and host_clock.c share: the layout of executions. */
#ifndef VNP_TIMELINE_PRIV_H
#define VNP_TIMELINE_PRIV_H

#include <stdint.h>

#include "timeline.h"

/* An execution after cur on its core: sets its shift; where it ends. */
uint64_t vnp_tl_place(struct vnp_exec *x, uint64_t cur);
/* The executions on the host clock (host_clock.c). 0 or -ENOMEM. */
int vnp_tl_host_layout(struct vnp_timeline *tl);

#endif /* VNP_TIMELINE_PRIV_H */
