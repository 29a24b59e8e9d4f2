// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Text for the summaries (80 columns): wrapped lines, sparklines, lists of counts. */
#include <stdio.h>
#include <string.h>

#include "section.h"

/* Prints text wrapped at 78 columns, every line starting with indent. */
void vnp_wrap(FILE *f, const char *indent, const char *first, const char *s)
{
	size_t col, ind = strlen(indent);
	int space = first[0] && first[strlen(first) - 1] != ' ';

	fputs(first, f);
	col = strlen(first);
	while (*s) {
		size_t w = strcspn(s, " ");

		if (col > ind && col + 1 + w > 78) {
			fprintf(f, "\n%s", indent);
			col = ind;
			space = 0;
		}
		if (space) {
			fputc(' ', f);
			col++;
		}
		fwrite(s, 1, w, f);
		col += w;
		space = 1;
		s += w;
		while (*s == ' ')
			s++;
	}
	fputc('\n', f);
}

/* A series squeezed into 60 columns of " .:-=+*#%@", by the maximum of each column. */
void vnp_sparkline(FILE *f, const char *label, const double *v, unsigned int n,
		      double vmax)
{
	static const char levels[] = " .:-=+*#%@";
	unsigned int cols = n < 60 ? n : 60, c, i;

	fprintf(f, "%s|", label);
	for (c = 0; c < cols; c++) {
		unsigned int lo = c * n / cols, hi = (c + 1) * n / cols;
		double x = 0;

		for (i = lo; i < hi; i++)
			x = v[i] > x ? v[i] : x;
		fputc(levels[x <= 0 ? 0 : 1 + (int)(x / vmax * 8.999)], f);
	}
	fputs("|\n", f);
}

/* "k.c:42" and "mlp/fc1" of a stream's entry, "" where the debug table says nothing. */
void vnp_entry_loc(const struct vnp_timeline *tl, unsigned int stream, uint32_t pc,
		      char *src, size_t srclen, const char **scope)
{
	const struct vnp_loc *loc = vnp_prog_loc(tl->prog, stream, pc);

	vnp_prog_line(tl->prog, loc ? loc->line : VNP_NONE, src, srclen);
	*scope = vnp_prog_scope(tl->prog, loc ? loc->scope : VNP_NONE);
}

/* "NAME count (time); ..." of the nonzero counts into buf; a unit of time is unit_ps. */
void vnp_count_list(char *buf, size_t len, const char *(*name)(unsigned int),
		       const uint64_t *count, const uint64_t *time, uint64_t unit_ps,
		       unsigned int n)
{
	size_t k = 0;
	unsigned int i;
	char t1[32];

	buf[0] = 0;
	for (i = 0; i < n && k < len; i++)
		if (count[i])
			k += (size_t)snprintf(buf + k, len - k, "%s%s %llu (%s)", k ? "; " : "",
					      name(i), (unsigned long long)count[i],
					      vnp_fmt_time(time[i] * unit_ps, t1, sizeof(t1)));
}
