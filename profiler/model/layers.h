/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Layers on the timeline: per execution, each debug scope path and each of its prefixes
 * ("mlp", "mlp/fc1", "mlp/fc1/matmul"; empty components skipped) spans the first start
 * to the last end of the execution's entries in it. The Perfetto trace and the page
 * draw them above the engines' rows (docs/profiler.md).
 */
#ifndef VNP_LAYERS_H
#define VNP_LAYERS_H

#include <stddef.h>
#include <stdint.h>

#include "timeline.h"

#define VNP_LAYER_DEPTHS	32	/* deeper components are left out */
#define VNP_LAYER_LANES		64	/* overlapping siblings a depth */

struct vnp_layer_span {
	uint64_t lo, hi;		/* the timeline's times (ps) */
	const char *path;		/* its scope's path: the layer is path[0..len) */
	uint32_t exec, scope, len;
	uint8_t core;
	uint8_t depth;			/* 1 at the top */
	uint8_t lane;			/* greedy among its core's depth; LANES: left out */
};

struct vnp_layer_spans {
	struct vnp_layer_span *s;	/* by core, depth, start */
	size_t n;
	char *norm, **np;		/* the scopes' paths without empty components */
};

/* The spans of tl's cores below ncores; 0 (none without scopes) or -ENOMEM. */
int vnp_layer_spans(const struct vnp_timeline *tl, unsigned int ncores,
		    struct vnp_layer_spans *ls);
void vnp_layer_spans_free(struct vnp_layer_spans *ls);

#endif
