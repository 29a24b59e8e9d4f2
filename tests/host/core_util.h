/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Helpers for the core's host tests: on-chip access, references, running a program. */
#ifndef CORE_UTIL_H
#define CORE_UTIL_H

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/wait.h>
#include "vn_exec.h"
#include "vn_program.h"
#include "vnef_build.h"

/* Independent of the core's own conversion: round to nearest even via the exponent. */
static inline float ref_bf16(float f)
{
	uint32_t u;

	if (isnan(f))
		return f;
	memcpy(&u, &f, 4);
	u = (u + 0x7fff + ((u >> 16) & 1)) & 0xffff0000u;
	memcpy(&f, &u, 4);
	return f;
}

static inline float ref_q(uint32_t dt, float v)
{
	return dt == VNEF_DT_BF16 ? ref_bf16(v) : v;
}

static inline uint8_t *chip_addr(struct vn_core *c, uint32_t mem, uint32_t p, uint32_t off)
{
	return (mem == VNEF_MEM_PSUM ? vn_core_psum(c, p) : vn_core_sbuf(c, p)) + off;
}

static inline void chip_put(struct vn_core *c, uint32_t mem, uint32_t dt, uint32_t p,
			    uint32_t off, uint32_t j, float v)
{
	uint8_t *a = chip_addr(c, mem, p, off);

	if (dt == VNEF_DT_BF16) {
		uint32_t u;
		uint16_t h;

		v = ref_bf16(v);
		memcpy(&u, &v, 4);
		h = u >> 16;
		memcpy(a + 2 * j, &h, 2);
	} else {
		memcpy(a + 4 * j, &v, 4);
	}
}

static inline float chip_get(struct vn_core *c, uint32_t mem, uint32_t dt, uint32_t p,
			     uint32_t off, uint32_t j)
{
	uint8_t *a = chip_addr(c, mem, p, off);
	float v;

	if (dt == VNEF_DT_BF16) {
		uint32_t u = 0;
		uint16_t h;

		memcpy(&h, a + 2 * j, 2);
		u = (uint32_t)h << 16;
		memcpy(&v, &u, 4);
	} else {
		memcpy(&v, a + 4 * j, 4);
	}
	return v;
}

/* Deterministic values in [-2, 2). */
static inline float gen(uint32_t seed, uint32_t p, uint32_t j)
{
	uint32_t x = seed * 0x9e3779b9u ^ p * 0x85ebca6bu ^ j * 0xc2b2ae35u;

	x ^= x >> 15;
	x *= 0x2c1b3c6du;
	x ^= x >> 12;
	return (float)(x & 0xffff) / 16384.0f - 2.0f;
}

/* Fill [np x f] contiguous at off with gen(seed), rounded to dt. */
static inline void chip_fill(struct vn_core *c, uint32_t mem, uint32_t dt, uint32_t p0,
			     uint32_t np, uint32_t off, uint32_t f, uint32_t seed)
{
	uint32_t p, j;

	for (p = 0; p < np; p++)
		for (j = 0; j < f; j++)
			chip_put(c, mem, dt, p0 + p, off, j, gen(seed, p, j));
}

static inline int near(float got, float want, float rel, float abs_tol)
{
	if (isnan(want))
		return isnan(got);
	if (isinf(want))
		return got == want;
	return fabsf(got - want) <= abs_tol + rel * fabsf(want);
}

/* Load, run with binds, wait; returns the status (program load must succeed). */
static inline int run_image(struct vn_core *c, const uint8_t *img, uint64_t size,
			    const struct vn_bind *binds, uint32_t nb, struct vn_exec_status *st)
{
	struct vn_prog_error err;
	struct vn_program *p;
	struct vn_exec *ex;
	int r;

	r = vn_program_load(img, size, &p, &err);
	if (r) {
		fprintf(stderr, "load: %d check %s sec %u idx %u: %s\n", r,
			vn_check_name(err.check), err.section, err.index, err.msg);
		return r;
	}
	r = vn_exec_submit(c, p, binds, nb, 0, NULL, NULL, &ex);
	vn_program_put(p);
	if (r)
		return r;
	r = vn_exec_wait(ex, 0);
	vn_exec_status(ex, st);
	vn_exec_put(ex);
	return r;
}

/* Build, run with no HBM tensors, expect OK. */
static inline int run_vb(struct vn_core *c, struct vb *b, struct vn_exec_status *st)
{
	uint64_t size;
	uint8_t *img = vb_finish(b, &size);
	int r = run_image(c, img, size, NULL, b->nten, st);

	free(img);
	vb_free(b);
	if (!r && st->result != VN_RES_OK)
		r = -EIO;
	return r;
}

/* Load b's image for the model m (NULL: trn1; b is freed); 0 or the loader's error. */
static inline int load_vb_for(const struct vneuron_model *m, struct vb *b, struct vn_program **p)
{
	struct vn_prog_error err;
	uint64_t size;
	uint8_t *img = vb_finish(b, &size);
	int r = vn_program_load_for(m, img, size, p, &err);

	if (r)
		fprintf(stderr, "load: %d check %s sec %u idx %u: %s\n", r,
			vn_check_name(err.check), err.section, err.index, err.msg);
	free(img);
	vb_free(b);
	return r;
}

static inline int load_vb(struct vb *b, struct vn_program **p)
{
	return load_vb_for(NULL, b, p);
}

/* Submit a loaded program, wait for its end; 0 and its status, or the submit error. */
static inline int run_prog(struct vn_core *c, struct vn_program *p, const struct vn_bind *binds,
			   uint32_t nb, struct vn_exec_status *st)
{
	struct vn_exec *ex;
	int r = vn_exec_submit(c, p, binds, nb, 0, NULL, NULL, &ex);

	if (r)
		return r;
	r = vn_exec_wait(ex, 0);
	vn_exec_status(ex, st);
	vn_exec_put(ex);
	return r;
}

/*
 * A loaded program's own copy of an entry, writable: changing it after vn_program_load()
 * simulates a validator that let the change through, to reach the executor's own checks.
 */
static inline struct vnef_dma_desc *prog_desc(struct vn_program *p, uint32_t q, uint32_t i)
{
	const uint8_t *at = (const uint8_t *)&p->streams[VNEF_STREAM_DMA(q)].desc[i];

	return (struct vnef_dma_desc *)(p->image + (at - p->image));
}

static inline struct vnef_instr *prog_instr(struct vn_program *p, uint32_t engine, uint32_t i)
{
	const uint8_t *at = (const uint8_t *)&p->streams[engine].instr[i];

	return (struct vnef_instr *)(p->image + (at - p->image));
}

/* True if every byte of SBUF and PSUM is zero. */
static inline bool chip_all_zero(struct vn_core *c)
{
	uint32_t p, i;

	for (p = 0; p < VNEF_PARTITIONS; p++) {
		const uint8_t *s = vn_core_sbuf(c, p), *q = vn_core_psum(c, p);

		for (i = 0; i < VNEF_SBUF_PART_BYTES; i++)
			if (s[i])
				return false;
		for (i = 0; i < VNEF_PSUM_PART_BYTES; i++)
			if (q[i])
				return false;
	}
	return true;
}

/* FPU sections begun so far (core/os_user.c, host build only). */
extern unsigned long vn_os_fpu_sections;
/* Scheduling points of validation so far (vn_cond_resched(), host build only). */
extern unsigned long vn_os_resched_points;

/*
 * Runs fn(arg) in a forked child whose stderr is captured (the harness has no death
 * test): returns the child's wait status, with up to size - 1 bytes of its stderr in buf.
 * The child exits 0 if fn returns.
 */
static inline int run_child(void (*fn)(void *arg), void *arg, char *buf, size_t size)
{
	int fds[2], status = -1;
	char sink[256];
	size_t n = 0;
	ssize_t r;
	pid_t pid;

	buf[0] = 0;
	if (pipe(fds))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (!pid) {
		close(fds[0]);
		dup2(fds[1], 2);
		close(fds[1]);
		fn(arg);
		_exit(0);
	}
	close(fds[1]);
	for (;;) {
		if (n + 1 < size)
			r = read(fds[0], buf + n, size - 1 - n);
		else
			r = read(fds[0], sink, sizeof(sink));	/* drain: never block the child */
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (n + 1 < size)
			n += r;
	}
	buf[n] = 0;
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return status;
}

/* The child died of SIGABRT. */
static inline bool aborted(int status)
{
	return status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

#endif /* CORE_UTIL_H */
