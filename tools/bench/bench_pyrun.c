// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The C side of py_run_overhead (tools/bench/py_run_overhead.py): a small program (z = x
 * + y, fp32 [128 x 64], the Python tests' "add") run on the host backend through the
 * program runner (vnrun.h: what the Python package runs through), its tensors bound to
 * the same buffers once and run again and again, as a C application runs it.
 * Standalone it prints its time per run; with --ns-per-run it prints only that number,
 * for the Python script that measures both sides in turn, and --vasm prints the
 * program, which that script assembles, so both sides run the same one.
 *
 *   BENCH host_run_small_c_us=X us/run
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "vnrun.h"

#define ROWS	128
#define COLS	64

static const char add_vasm[] =
	".program \"add\"\n"
	".tensor x input fp32 [128, 64]\n"
	".tensor y input fp32 [128, 64]\n"
	".tensor z output fp32 [128, 64]\n"
	".queue 0\n"
	"\tdma sbuf[0; 0, 1]@0x0, x@0x0[0, 256], 1 x 128 x 256 signal s4\n"
	".queue 1\n"
	"\tdma sbuf[0; 0, 1]@0x100, y@0x0[0, 256], 1 x 128 x 256 signal s5\n"
	".engine vector\n"
	"\tnop wait s4 >= 1\n"
	"\ttensor_tensor add sbuf.fp32[0:128]@0x200[64], sbuf.fp32[0:128]@0x0[64], "
	"sbuf.fp32[0:128]@0x100[64] wait s5 >= 1 signal s1\n"
	".queue 2\n"
	"\tdma z@0x0[0, 256], sbuf[0; 0, 1]@0x200, 1 x 128 x 256 wait s1 >= 1\n";

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	static float x[ROWS * COLS], y[ROWS * COLS], z[ROWS * COLS];
	unsigned int n = 2000, i, k, rounds = 5;
	int quiet = argc > 1 && !strcmp(argv[1], "--ns-per-run");

	if (argc > 1 && !strcmp(argv[1], "--vasm"))
		return fputs(add_vasm, stdout) < 0;
	double best = 1e30, t0;
	struct nd_runner *r;
	struct nd_error err;
	size_t size;
	void *img;

	for (i = 0; i < ROWS * COLS; i++) {
		x[i] = (float)i;
		y[i] = 1.0f;
	}
	if (nd_asm(add_vasm, sizeof(add_vasm) - 1, "add.vasm", 0, &img, &size, NULL, stderr) ||
	    nd_runner_open_host(NULL, &r, &err))
		return 1;
	if (nd_runner_load_image(r, img, size, NULL, NULL) ||
	    nd_runner_bind(r, 0, "x", x, sizeof(x)) || nd_runner_bind(r, 0, "y", y, sizeof(y)) ||
	    nd_runner_bind(r, 0, "z", z, sizeof(z))) {
		fprintf(stderr, "bench_pyrun: %s\n", nd_runner_error(r));
		return 1;
	}
	for (k = 0; k <= rounds; k++) {		/* round 0 warms up */
		t0 = now_ns();
		for (i = 0; i < n; i++) {
			if (nd_runner_run(r, 1, 0, NULL)) {
				fprintf(stderr, "bench_pyrun: %s\n", nd_runner_error(r));
				return 1;
			}
		}
		t0 = (now_ns() - t0) / n;
		if (k && t0 < best)
			best = t0;
	}
	if (z[5] != 6.0f)
		return 1;
	if (quiet)
		printf("%.0f\n", best);
	else
		printf("BENCH host_run_small_c_us=%.2f us/run\n", best / 1000);
	nd_runner_close(r);
	free(img);
	return 0;
}
