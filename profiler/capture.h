/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* `vneuron-profile capture` (profiler/capture.c, docs/profiler.md). */
#ifndef VNP_CAPTURE_H
#define VNP_CAPTURE_H

/* argv[0] is "capture". Returns the exit status (0 ok, 1 bad input or failed run, 2 usage, 3 system). */
int vnp_capture_main(int argc, char **argv);

#endif /* VNP_CAPTURE_H */
