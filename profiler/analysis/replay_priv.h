/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* What the replay's core (replay.c) and its program changes (replay_*.c) share. */
#ifndef VNP_REPLAY_PRIV_H
#define VNP_REPLAY_PRIV_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "replay.h"
#include "vneuron_program.h"
#include "vneuron_trace.h"

struct vn_program;

/* A copy of the program's tables that a change edits. */
struct pimg {
	struct vnef_instr *in[VNEF_ENGINES];
	uint32_t nin[VNEF_ENGINES];
	struct vnef_dma_desc *d[VNEF_DMA_QUEUES];
	uint32_t nd[VNEF_DMA_QUEUES];
	struct vnef_cc_instr *cc;	/* the collective stream: no fix changes its work */
	uint32_t ncc;
	struct vnef_debug *dbg;
	uint32_t ndbg;
};

/* The events of a replay, as trace records (rp_hook() appends them). */
struct rp_rec {
	pthread_mutex_t lock;
	struct vneuron_trace_record *r;
	size_t n, cap;
	int nomem;
};

struct vnp_replay {
	const struct vnp_prog *p;
	const struct vn_program *vp;
	struct vneuron_model m;
	uint64_t base;
	/* the last changed program run, for its second analysis (vnp_replay_last()) */
	void *img;
	size_t size;
	uint64_t ps;
	struct rp_rec rec;
};

/* replay.c: the tables of r's program into g (0 or -ENOMEM), freed ... */
int rp_pimg_load(struct pimg *g, const struct vnp_prog *p);
void rp_pimg_free(struct pimg *g);
/* ... its debug records following a renumbering (map[old] = new, bit 31: dropped) ... */
void rp_remap_debug(struct pimg *g, uint32_t stream, const uint32_t *map, uint32_t n);
/* ... and g written as an image and run on a host core: *ps one execution. */
int rp_run(struct vnp_replay *r, struct pimg *g, uint64_t *ps);

/* ... why a change does not apply, into what, ... */
void rp_msg(char *what, size_t len, const char *s);
/* ... a map of n entries (old -> new, bit 31: dropped) instead of *map: 0 or -ENOMEM ... */
int rp_map(uint32_t **map, uint32_t n);
/* ... and g run if changed, else -ENOTSUP with unchanged said into what. */
int rp_run_if(struct vnp_replay *r, struct pimg *g, int changed, uint64_t *ps,
	      char *what, size_t len, const char *unchanged);

/*
 * A change of every DMA queue in turn, run: a copy of r's tables whose queue q fn
 * rewrites, filling map[old] = new (bit 31: dropped) and returning its new count (or
 * -errno); the debug records follow, the counts before and after add up; the copy is
 * run if it changed (else -ENOTSUP and unchanged, said into what).
 */
typedef int (*rp_queue_fn)(struct pimg *g, uint32_t q, uint32_t *map);
int rp_replay_queues(struct vnp_replay *r, rp_queue_fn fn, uint64_t *ps, char *what,
		     size_t len, const char *unchanged, uint32_t *before, uint32_t *after);

/* replay_spread.c: free semaphores of g. */
unsigned int rp_free_sems(const struct pimg *g, uint32_t *out, unsigned int want);

#endif /* VNP_REPLAY_PRIV_H */
