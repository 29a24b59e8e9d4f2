// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Error messages: errno names, struct nd_error and a device handle's last message. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "nd_internal.h"

const char *nd_strerror(int err)
{
	const char *s;

	if (err < 0)
		err = -err;
	if (err == 0)
		return "success";
	/* strerrordesc_np() returns static text: no locale state, safe from any thread. */
	s = strerrordesc_np(err);
	return s ? s : "unknown error";
}

int nd_vseterr(struct nd_error *e, int code, const char *fmt, va_list ap)
{
	if (code > 0)
		code = -code;
	if (e) {
		e->code = code;
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	}
	return code;
}

int nd_seterr(struct nd_error *e, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = nd_vseterr(e, code, fmt, ap);
	va_end(ap);
	return code;
}

int nd_dev_err(struct nd_device *dev, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pthread_mutex_lock(&dev->lock);
	code = nd_vseterr(&dev->err, code, fmt, ap);
	pthread_mutex_unlock(&dev->lock);
	va_end(ap);
	return code;
}

const char *nd_device_error(struct nd_device *dev)
{
	return dev ? dev->err.msg : "no device handle";
}

void nd_device_error_copy(struct nd_device *dev, char *buf, size_t size)
{
	if (!buf || !size)
		return;
	if (!dev) {
		snprintf(buf, size, "no device handle");
		return;
	}
	pthread_mutex_lock(&dev->lock);
	snprintf(buf, size, "%s", dev->err.msg);
	pthread_mutex_unlock(&dev->lock);
}
