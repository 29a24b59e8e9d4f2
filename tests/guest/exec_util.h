/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Program-building helpers shared by the guest execution tests (exec_test, uring_test). */
#ifndef EXEC_UTIL_H
#define EXEC_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vnprog.h"
#include "vn_program.h"
#include "kmod_test.h"
#include "../test_data.h"

static inline int finish(struct nd_builder *b, void **img, size_t *size)
{
	int ret = nd_builder_finish(b, img, size);

	if (ret)
		fprintf(stderr, "# builder: %s\n", nd_builder_error(b));
	nd_builder_free(b);
	return ret;
}

static inline void *section(void *img, uint32_t type, uint32_t index, uint32_t *count)
{
	struct vnef_header *h = img;
	struct vnef_section *s = (void *)((uint8_t *)img + h->header_size);
	uint32_t i;

	for (i = 0; i < h->section_count; i++) {
		if (s[i].type == type && s[i].index == index) {
			if (count)
				*count = s[i].count;
			return (uint8_t *)img + s[i].offset;
		}
	}
	return NULL;
}

static inline int long_image(void **img, size_t *size)
{
	struct nd_builder *b;
	struct nd_tile *t0, *t1;
	int i;

	if (nd_builder_new("long", &b))
		return -1;
	t0 = nd_sbuf(b, "t0", ND_FP32, 128, 16384);
	t1 = nd_sbuf(b, "t1", ND_FP32, 128, 16384);
	nd_memset(b, ND_VECTOR, nd_whole(t0), 0.5f);
	for (i = 0; i < 4000; i++)
		nd_activate(b, nd_whole(i & 1 ? t0 : t1), nd_whole(i & 1 ? t1 : t0),
			    ND_ACT_TANH, 1.0f, 0.0f);
	return finish(b, img, size);
}

static __attribute__((noinline, unused)) int deadlock_image(void **img, size_t *size)
{
	struct nd_builder *b;
	struct nd_tile *a, *c, *e;
	struct vnef_instr *v, *s;
	uint32_t nv = 0, ns = 0;

	if (nd_builder_new("deadlock", &b))
		return -1;
	a = nd_sbuf(b, "a", ND_FP32, 128, 64);
	c = nd_sbuf(b, "c", ND_FP32, 128, 64);
	e = nd_sbuf(b, "e", ND_FP32, 128, 64);
	nd_memset(b, ND_VECTOR, nd_whole(a), 1.0f);
	nd_activate(b, nd_whole(c), nd_whole(a), ND_ACT_EXP, 1.0f, 0.0f);
	nd_copy(b, ND_VECTOR, nd_whole(e), nd_whole(c));
	if (finish(b, img, size))
		return -1;
	v = section(*img, VNEF_SEC_INSTR, ND_VECTOR, &nv);
	s = section(*img, VNEF_SEC_INSTR, ND_SCALAR, &ns);
	if (!v || !s || nv < 2 || ns < 1 || !s[0].signal_mask || v[0].flags & VNEF_IF_WAIT)
		return -1;
	v[0].flags |= VNEF_IF_WAIT;
	v[0].wait_sem = __builtin_ctzll(s[0].signal_mask);
	v[0].wait_value = 1;
	return 0;
}

static inline int counters_drained(void)
{
	static const char *const names[] = {
		"mem_objects", "mem_bytes", "open_files", "programs", "execs", "comms",
	};
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (vn_counter(names[i]) != 0)
			return 0;
	return 1;
}

#endif /* EXEC_UTIL_H */
