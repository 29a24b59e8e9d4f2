/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The vneuron assembly language (docs/assembler.md): a text form of .vnef programs.
 * nd_asm() parses it into an image, nd_dis() prints an image back as text; the
 * formatters print one instruction or descriptor in the same syntax (for other tools,
 * e.g. the profiler).
 *
 * Round trip: for an image in the canonical layout (the one nd_asm() and the builder
 * write: STRTAB, TENSORS, CONST, streams in id order, DEBUG with one entry per entry),
 * nd_asm(nd_dis(image)) is byte-identical to the image, debug table included.
 */
#ifndef ND_ASM_H
#define ND_ASM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "vneuron_program.h"
#include "neurondev.h"

#if defined(__cplusplus)
extern "C" {
#endif

/* One assembler error: where (1-based; line 0 when not tied to a line) and what. */
struct nd_asm_diag {
	unsigned int line;
	unsigned int col;
	char msg[224];
};

/* nd_asm() flags. */
#define ND_ASM_NO_VALIDATE	0x1u	/* skip the core validator (write invalid images) */

/*
 * Assemble len bytes of text. filename names the source in messages and, by default,
 * in the debug table. On success *imagep (malloc()ed) and *sizep hold the image. On
 * failure it returns -EINVAL for errors in the text (-ENOMEM, -E2BIG otherwise), every
 * error is printed to errs (may be NULL) as "file:line:col: error: message", and the
 * first is copied to *first (may be NULL). Unless ND_ASM_NO_VALIDATE, the image is
 * checked by the core's validator and a refusal is reported at the offending line.
 */
int nd_asm(const char *text, size_t len, const char *filename, unsigned int flags,
	   void **imagep, size_t *sizep, struct nd_asm_diag *first, FILE *errs);

/* nd_dis() flags. */
#define ND_DIS_NO_LAYOUT	0x1u	/* never write a .strtab directive */

/*
 * Print a valid image as assembly. -EINVAL (message in err) when the validator refuses
 * it. *exact (may be NULL) is set to 1 when reassembling the text gives the same bytes,
 * 0 when the image's layout is not canonical (the text is still the same program).
 */
int nd_dis(const void *image, size_t size, unsigned int flags, FILE *out, int *exact,
	   struct nd_error *err);

/*
 * One instruction or descriptor as a line of assembly (no indentation, no newline),
 * snprintf-style: returns the length it needs. DMA endpoints name tensors through
 * names[tensor] when names is given and tensor < ntensors, else as "#index".
 */
size_t nd_asm_format_instr(char *buf, size_t size, const struct vnef_instr *in);
size_t nd_asm_format_desc(char *buf, size_t size, const struct vnef_dma_desc *d,
			  const char *const *names, uint32_t ntensors);

/* Names of the text form ("vector", "queue 3", "tensor_scalar", "exp"); "?" if unknown. */
const char *nd_asm_engine_name(uint32_t engine);
const char *nd_asm_opcode_name(uint32_t opcode);
const char *nd_asm_alu_name(uint32_t alu);
const char *nd_asm_act_name(uint32_t act);

#if defined(__cplusplus)
}
#endif

#endif /* ND_ASM_H */
