/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The library's messages (vnprofile.h, "Messages"): every error, warning and progress
 * line goes through vnp_log() to the print function the program set, never straight to
 * stderr, so a command line prefixes its name and Python turns them into exceptions and
 * warnings.
 */
#ifndef VNP_LOG_H
#define VNP_LOG_H

#include "../vnprofile.h"

/*
 * A message of level (VNPROFILE_ERROR, _WARN, _INFO) to the print function; an error is
 * also kept as the thread's last (vnprofile_last_error()).
 */
void vnp_log(enum vnprofile_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
#define vnp_err(...)	vnp_log(VNPROFILE_ERROR, __VA_ARGS__)
#define vnp_warn(...)	vnp_log(VNPROFILE_WARN, __VA_ARGS__)
/* The thread's last error, not printed: the caller may say it later, or not at all. */
void vnp_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* VNP_LOG_H */
