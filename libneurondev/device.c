// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Opening /dev/vneuronN, GET_INFO and RESET. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apilog.h"
#include "nd_internal.h"

int nd_device_fd(const struct nd_device *dev)
{
	return dev ? dev->fd : -1;
}

/* Why an open() of a device node failed, in words a user can act on. */
static int open_error(struct nd_error *err, const char *path, int e)
{
	switch (e) {
	case ENOENT:
	case ENXIO:
	case ENODEV:
		return nd_seterr(err, e, "%s: no such device; is vneuron.ko loaded?", path);
	case EACCES:
	case EPERM:
		return nd_seterr(err, e, "%s: permission denied (check the node's mode or group)",
				 path);
	default:
		return nd_seterr(err, e, "%s: open failed: %s", path, nd_strerror(e));
	}
}

int nd_open_path(const char *path, struct nd_device **devp, struct nd_error *err)
{
	uint64_t t0 = nd_api_t0(NULL);
	struct nd_device *dev;
	struct stat st;
	int fd, e;

	if (err) {
		err->code = 0;
		err->msg[0] = '\0';
	}
	if (!devp)
		return nd_seterr(err, EINVAL, "nd_open: devp is NULL");
	*devp = NULL;
	if (!path || !*path)
		return nd_seterr(err, EINVAL, "nd_open: empty device path");
	if (strlen(path) >= sizeof(dev->path))
		return nd_seterr(err, ENAMETOOLONG, "nd_open: device path too long");

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return open_error(err, path, errno);
	if (fstat(fd, &st) == 0 && !S_ISCHR(st.st_mode)) {
		close(fd);
		return nd_seterr(err, ENOTTY, "%s: not a character device (not a vneuron device)",
				 path);
	}

	dev = calloc(1, sizeof(*dev));
	if (!dev) {
		close(fd);
		return nd_seterr(err, ENOMEM, "%s: out of memory", path);
	}
	dev->fd = fd;
	snprintf(dev->path, sizeof(dev->path), "%s", path);
	pthread_mutex_init(&dev->lock, NULL);

	if (ioctl(fd, VNEURON_IOCTL_GET_INFO, &dev->info) < 0) {
		e = errno;
		if (e == ENOTTY)
			nd_seterr(err, e, "%s: not a vneuron device (GET_INFO not supported)", path);
		else
			nd_seterr(err, e, "%s: GET_INFO failed: %s", path, nd_strerror(e));
		nd_close(dev);
		return -e;
	}
	if (dev->info.uapi_version < 1) {
		nd_seterr(err, EPROTO, "%s: device reports uapi version %u; need at least 1",
			  path, dev->info.uapi_version);
		nd_close(dev);
		return -EPROTO;
	}
	nd_api_open(dev, t0);
	*devp = dev;
	return 0;
}

int nd_open(unsigned int index, struct nd_device **devp, struct nd_error *err)
{
	char path[32];

	snprintf(path, sizeof(path), "/dev/vneuron%u", index);
	return nd_open_path(path, devp, err);
}

void nd_close(struct nd_device *dev)
{
	if (!dev)
		return;
	nd_comm_close_all(dev);
	while (dev->mems)
		nd_mem_free(dev->mems);
	nd_api_close(dev);
	if (dev->fd >= 0)
		close(dev->fd);
	pthread_mutex_destroy(&dev->lock);
	free(dev);
}

int nd_info(struct nd_device *dev, struct vneuron_info *info)
{
	struct vneuron_info tmp;

	if (!dev || !info)
		return -EINVAL;
	memset(&tmp, 0, sizeof(tmp));
	if (ioctl(dev->fd, VNEURON_IOCTL_GET_INFO, &tmp) < 0)
		return nd_dev_err(dev, errno, "%s: GET_INFO failed: %s", dev->path,
				  nd_strerror(errno));
	*info = tmp;
	return 0;
}

int nd_reset(struct nd_device *dev, unsigned int core)
{
	struct vneuron_reset r = { .core = core };

	if (!dev)
		return -EINVAL;
	if (core >= dev->info.core_count)
		return nd_dev_err(dev, EINVAL, "%s: reset of core %u, but the device has %u",
				  dev->path, core, dev->info.core_count);
	if (ioctl(dev->fd, VNEURON_IOCTL_RESET, &r) < 0)
		return nd_dev_err(dev, errno, "%s: reset of core %u failed: %s", dev->path, core,
				  nd_strerror(errno));
	return 0;
}
