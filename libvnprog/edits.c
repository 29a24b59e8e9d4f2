// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Edit distance for "did you mean" (nd_edits(), vnprog.h): the assembler's mnemonics and
 * the tools' long options share it.
 */
#include <stddef.h>

#include "vnprog.h"

/* Edits between a[0..na) and b[0..nb): insert, delete, change, swap two neighbours. */
unsigned int nd_edits(const char *a, size_t na, const char *b, size_t nb)
{
	unsigned int d[40][40];
	size_t i, j;

	if (na >= 40 || nb >= 40)
		return 99;
	for (i = 0; i <= na; i++)
		d[i][0] = (unsigned int)i;
	for (j = 0; j <= nb; j++)
		d[0][j] = (unsigned int)j;
	for (i = 1; i <= na; i++)
		for (j = 1; j <= nb; j++) {
			unsigned int c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			if (d[i - 1][j] + 1 < c)
				c = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < c)
				c = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < c)
				c = d[i - 2][j - 2] + 1;
			d[i][j] = c;
		}
	return d[na][nb];
}
