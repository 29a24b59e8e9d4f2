/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * A program as the profiler reads it: a .vnef image loaded by the one loader,
 * vn_program_load() (core/program.c, the kernel's own validation), plus the tables that
 * join trace records to it: (stream, pc) -> source line and scope.
 */
#ifndef VNP_PROG_H
#define VNP_PROG_H

#include <stddef.h>
#include <stdint.h>

#include "vneuron_program.h"

#define VNP_NONE		0xffffffffu	/* no scope, no line, no stream */

/* Where an entry of the program came from: dense ids, VNP_NONE if unknown. */
struct vnp_loc {
	uint32_t scope;
	uint32_t line;
};

/* A source line: file (string table offset) and line number. */
struct vnp_line {
	uint32_t file_off;
	uint32_t line;
};

/*
 * The program, as far as the profiler needs it. vnp_prog_load() fills it from a .vnef
 * image; tests may fill the raw tables by hand and call vnp_prog_index(). Every pointer
 * may be NULL / count 0: events of unknown entries get no source location and DMA of
 * unknown descriptors no memory kinds.
 */
struct vnp_prog {
	const char *name;
	const char *strtab;
	uint32_t strtab_size;
	const struct vnef_tensor *tensors;
	uint32_t ntensors;
	const struct vnef_instr *instr[VNEF_ENGINES];
	uint32_t ninstr[VNEF_ENGINES];
	const struct vnef_dma_desc *desc[VNEF_DMA_QUEUES];
	uint32_t ndesc[VNEF_DMA_QUEUES];
	const struct vnef_cc_instr *cc;		/* the collective stream (VNEF_STREAM_CC) */
	uint32_t ncc;
	const struct vnef_debug *debug;
	uint32_t ndebug;
	/* derived by vnp_prog_index() */
	struct vnp_loc *loc[VNEF_STREAMS];	/* per entry of each stream */
	uint32_t nloc[VNEF_STREAMS];
	uint32_t *scope_off;			/* scope id -> string table offset */
	uint32_t nscopes;
	struct vnp_line *lines;			/* line id -> file and line */
	uint32_t nlines;
	uint32_t sem_writer[VNEF_MAX_SEMS];	/* stream, or VNP_NONE */
	void *owner;				/* the loaded struct vn_program, if any */
};

/* Loads and validates an image; 0 or -errno with a message in err. */
int vnp_prog_load(struct vnp_prog *p, const void *image, size_t size, char *err,
		  size_t errlen);
/* The same from a file; err does not repeat the path. */
int vnp_prog_open(struct vnp_prog *p, const char *path, char *err, size_t errlen);
/* Builds the derived tables from the raw ones. 0 or -ENOMEM / -EINVAL (bad offsets). */
int vnp_prog_index(struct vnp_prog *p);
void vnp_prog_free(struct vnp_prog *p);

/* The loaded image (the bytes the program's identity hashes); NULL if filled by hand. */
const void *vnp_prog_image(const struct vnp_prog *p, size_t *size);
/* A string of the table, "" for an offset outside it. */
const char *vnp_prog_str(const struct vnp_prog *p, uint32_t off);
const char *vnp_prog_scope(const struct vnp_prog *p, uint32_t scope);
/* "file.c:42" of a line id into buf, "" for VNP_NONE or an unknown id. */
const char *vnp_prog_line(const struct vnp_prog *p, uint32_t line, char *buf, size_t len);
/* Index of the tensor called name, or -ENOENT. */
int vnp_prog_tensor(const struct vnp_prog *p, const char *name);
/* NULL for a NULL program or an entry it does not have. */
const struct vnp_loc *vnp_prog_loc(const struct vnp_prog *p, unsigned int stream,
				   uint32_t pc);
const struct vnef_dma_desc *vnp_prog_desc(const struct vnp_prog *p, unsigned int queue,
					  uint32_t pc);
const struct vnef_instr *vnp_prog_instr(const struct vnp_prog *p, unsigned int engine,
					uint32_t pc);
const struct vnef_cc_instr *vnp_prog_cc(const struct vnp_prog *p, uint32_t pc);

#endif /* VNP_PROG_H */
