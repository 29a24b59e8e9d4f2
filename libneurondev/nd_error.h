/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Error helpers of libneurondev and libvnprog (error.c): a message into a struct
 * nd_error or a device handle, and the negative errno the call returns. Not installed.
 */
#ifndef ND_ERROR_H
#define ND_ERROR_H

#include <stdarg.h>

#include "neurondev.h"

#define ND_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* Fill an nd_error (may be NULL) and return -code (code may be given either sign). */
int nd_seterr(struct nd_error *e, int code, const char *fmt, ...) ND_PRINTF(3, 4);
int nd_vseterr(struct nd_error *e, int code, const char *fmt, va_list ap);

/* Record an error on the device handle (under its lock) and return -code. */
int nd_dev_err(struct nd_device *dev, int code, const char *fmt, ...) ND_PRINTF(3, 4);

#endif /* ND_ERROR_H */
