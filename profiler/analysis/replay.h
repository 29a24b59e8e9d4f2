/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Replayed gains (docs/profiler.md, "Replay"): a rule's mechanical fix applied to the
 * program image, and the changed program run on the host build of the device core
 * (libvncore, the executor vneuron.ko runs), whose modeled time is deterministic. The
 * gain reported is the replayed time of the unchanged program against the changed one.
 */
#ifndef VNP_REPLAY_H
#define VNP_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "../format/prog.h"
#include "vneuron.h"

struct vnp_replay;

/*
 * Replays run the numerics too, so they are kept for programs a replay finishes quickly:
 * at most this many entries, and each run is stopped after this much host time (the
 * finding then keeps its estimate).
 */
#define VNP_REPLAY_MAX_ENTRIES	200000
#define VNP_REPLAY_LIMIT_NS	(10ull * 1000000000ull)

/*
 * Prepares replays of p (which must come from an image) on model m and replays it
 * unchanged. 0, -ENOENT (no image), -E2BIG (over VNP_REPLAY_MAX_ENTRIES), -ENOMEM, or
 * -EIO if it does not run to the end.
 */
int vnp_replay_open(struct vnp_replay **rp, const struct vnp_prog *p,
		    const struct vneuron_model *m);
void vnp_replay_close(struct vnp_replay *r);
/* The unchanged program's modeled time (one execution). */
uint64_t vnp_replay_base(const struct vnp_replay *r);

/*
 * The fixes. Each returns 0 with the changed program's modeled time in *ps and what was
 * changed in what ("spreading q0's 64 descriptors over 16 queues"); -ENOTSUP when the
 * change is not mechanical for this program (the reason in what); -ENOMEM; -EIO if the
 * changed program was refused or did not run to the end.
 *
 * spread: the queues in qmask (bit q) share out the queues the program leaves empty;
 * each one's descriptors go round robin over it and its share (cut into pieces along
 * their outer dimension when there are fewer descriptors than queues); an engine
 * waiting for a spread queue waits for each of its queues with NOPs.
 */
int vnp_replay_spread(struct vnp_replay *r, uint32_t qmask, uint64_t *ps, char *what,
		      size_t len);
/*
 * merge: on every queue, runs of back-to-back descriptors of the same shape whose
 * addresses advance by a constant step become one descriptor with one more dimension
 * (only the run's first may wait, only its last may signal).
 */
int vnp_replay_merge(struct vnp_replay *r, uint64_t *ps, char *what, size_t len);

/*
 * batch: on engine e, runs of back-to-back elementwise instructions (same opcode, op,
 * immediates and shapes) whose operands walk one dense row in steps of their own size
 * become one instruction over the whole row (only the first may wait, only the last
 * may signal; a per-partition scalar column stays put).
 */
int vnp_replay_batch(struct vnp_replay *r, unsigned int e, uint64_t *ps, char *what,
		     size_t len);

/*
 * dedup: descriptors that load again exactly what an earlier descriptor of the same
 * queue loaded into the same place go, when nothing else in the program writes that
 * place; waits on the queue's semaphores count the increments that remain.
 */
int vnp_replay_dedup(struct vnp_replay *r, uint64_t *ps, char *what, size_t len);

/*
 * The last changed program r ran (the image and its events as trace records of one
 * execution, exec_seq 1) and its modeled time: what a second analysis reads. -ENOENT
 * if none ran or its events were lost (no memory).
 */
struct vneuron_trace_record;
int vnp_replay_last(const struct vnp_replay *r, const void **img, size_t *size,
		    const struct vneuron_trace_record **rec, size_t *n, uint64_t *ps);

/* The modeled time of one execution of an image on model m (a fixed twin's). */
int vnp_replay_image(const void *img, size_t size, const struct vneuron_model *m,
		     uint64_t *ps);

#endif /* VNP_REPLAY_H */
