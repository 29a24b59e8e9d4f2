// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target: arbitrary text into the assembler (libvnprog/asm_lex.c, asm_parse.c, asm_operand.c).
 *
 * No crash, no leak; an error always has a message; whatever assembles without the
 * validator is either accepted by it or refused cleanly (a known check, a message);
 * an accepted image disassembles, and the text reassembles to the same bytes.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vnprog.h"
#include "vn_program.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nd_asm_diag d;
	struct vn_prog_error pe;
	struct nd_error err;
	void *img = NULL, *img2 = NULL;
	size_t isz, isz2, tlen = 0;
	char *text = NULL;
	int ret, exact = 0;
	FILE *f;

	if (size > (1u << 16))
		return 0;
	ret = nd_asm((const char *)data, size, "fuzz.vasm", ND_ASM_NO_VALIDATE, &img, &isz, &d,
		     NULL);
	if (ret) {
		if (img || (ret != -EINVAL && ret != -ENOMEM && ret != -E2BIG) || !d.msg[0])
			__builtin_trap();
		return 0;
	}
	ret = vn_program_check(img, isz, &pe);
	if (ret) {
		if (ret != -EINVAL || pe.check == VNEF_CHK_OK || pe.check >= VNEF_CHK_NR || !pe.msg)
			__builtin_trap();
		/* The validating assembler refuses the same text, at a place. */
		if (nd_asm((const char *)data, size, "fuzz.vasm", 0, &img2, &isz2, &d, NULL) !=
		    -EINVAL || img2 || !d.msg[0])
			__builtin_trap();
		free(img);
		return 0;
	}
	f = open_memstream(&text, &tlen);
	if (!f)
		__builtin_trap();
	ret = nd_dis(img, isz, 0, f, &exact, &err);
	fclose(f);
	if (ret || !exact)
		__builtin_trap();
	if (nd_asm(text, tlen, "dis.vasm", 0, &img2, &isz2, &d, NULL) || isz2 != isz ||
	    memcmp(img, img2, isz))
		__builtin_trap();
	free(text);
	free(img);
	free(img2);
	return 0;
}
