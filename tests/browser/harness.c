// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * browser_test's harness: its TAP lines, files and shell commands.
 */
#include "browser.h"

void tap(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d ", ok ? "ok" : "not ok", ++ntest);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	nfail += !ok;
}

void die(const char *fmt, ...)
{
	va_list ap;

	printf("not ok %d ", ++ntest);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n1..%d\n", ntest);
	exit(1);
}

int write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");
	int ret = 0;

	if (!f)
		return -errno;
	if (fwrite(buf, 1, len, f) != len)
		ret = -EIO;
	if (fclose(f))
		ret = -EIO;
	return ret;
}


/* dir/name's contents, NUL-terminated (malloc()ed), or NULL. */
char *slurp(const char *dir, const char *name)
{
	char path[320], *b = NULL;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (f && !fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 && (b = calloc(1, n + 1))) {
		rewind(f);
		if (fread(b, 1, n, f) != (size_t)n) {
			free(b);
			b = NULL;
		}
	}
	if (f)
		fclose(f);
	return b;
}

int run(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
