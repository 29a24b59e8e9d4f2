/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* libneurondev's handles, shared by its source files; not installed. */
#ifndef ND_INTERNAL_H
#define ND_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "neurondev.h"
#include "nd_error.h"

struct nd_mem {
	struct nd_device *dev;
	struct nd_mem *next;		/* the device's list, under dev->lock */
	uint32_t handle;
	uint64_t size;
	uint64_t mmap_offset;
	uint64_t device_addr;
	void *map;			/* mmap()ed view, made on first nd_mem_map() */
};

struct nd_device {
	int fd;
	char path[64];
	struct vneuron_info info;
	pthread_mutex_t lock;		/* protects err and mems */
	struct nd_error err;
	struct nd_mem *mems;
	struct nd_comm *comms;		/* its communicator handles, under lock (comm.c) */
	int api_log;			/* the API log's fd + 1, 0 if none (apilog.c) */
	unsigned int lnc;		/* 0 or 1: physical cores; 2: LNC=2 (lnc.c) */
};

/* The device a program was loaded on (exec.c), or NULL. */
struct nd_device *nd_program_dev(const struct nd_program *p);

/*
 * The EXEC handle array of a program from its bindings by name (exec.c, uring.c): h has
 * one zeroed entry per tensor of prog. 0 or -errno, with the message on the device.
 */
int nd_bind_handles(const struct nd_program *prog, const struct nd_bind *binds,
		    unsigned int count, uint32_t *h);
/* The program as the device core reads it (exec.c): its streams and tensors. */
struct vn_program;
const struct vn_program *nd_program_vp(const struct nd_program *p);
/* Its id in the API log: its PROGRAM_LOAD record's pc (0: not logged). */
uint32_t nd_program_api_id(const struct nd_program *p);

/* comm.c: destroy every communicator handle of dev (nd_close()). */
void nd_comm_close_all(struct nd_device *dev);
/*
 * comm.c: if r ended at a collective and core of dev is bound to a communicator, its
 * words with what the communicator knows into buf (nd_comm_describe()), returning 1;
 * else 0.
 */
int nd_comm_describe_core(struct nd_device *dev, const struct nd_program *prog,
			  unsigned int core, const struct nd_run_result *r, char *buf,
			  size_t len);

/*
 * lnc.c: whether a device of info can take LNC=lnc launches (nd_lnc_check()), and
 * core as a logical core's first (nd_lnc_core_check()): 0 or -errno with the words in
 * buf. No device call: tests/host/test_lnc_dev.c checks them.
 */
int nd_lnc_check(const struct vneuron_info *info, unsigned int lnc, char *buf, size_t len);
int nd_lnc_core_check(const struct vneuron_info *info, unsigned int core, char *buf,
		      size_t len);
/*
 * lnc.c: EXEC's flags for prog on core under dev's LNC (0, or VNEURON_EXEC_LNC2), or
 * -errno with the message on the device.
 */
int nd_lnc_exec_flags(struct nd_device *dev, const struct nd_program *prog,
		      unsigned int core, uint32_t *flags);

/* A WAIT's or an io_uring completion's status as a result. */
void nd_result_from_wait(const struct vneuron_wait *w, struct nd_run_result *res);

#endif /* ND_INTERNAL_H */
