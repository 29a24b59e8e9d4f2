// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Device memory: MEM_ALLOC/FREE/WRITE/READ and mmap of a buffer. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "apilog.h"
#include "nd_internal.h"

static int need_mem_cap(struct nd_device *dev)
{
	if (!(dev->info.caps & VNEURON_CAP_MEM))
		return nd_dev_err(dev, EOPNOTSUPP, "%s: the device has no memory ioctls",
				  dev->path);
	return 0;
}

int nd_mem_alloc(struct nd_device *dev, uint64_t size, struct nd_mem **memp)
{
	struct vneuron_mem_alloc a = { .size = size };
	uint64_t t0 = nd_api_t0(dev);
	struct nd_mem *mem;
	int ret;

	if (!dev || !memp)
		return -EINVAL;
	*memp = NULL;
	ret = need_mem_cap(dev);
	if (ret)
		return ret;
	if (!size)
		return nd_dev_err(dev, EINVAL, "%s: allocation of 0 bytes", dev->path);
	if (dev->info.max_alloc && size > dev->info.max_alloc)
		return nd_dev_err(dev, E2BIG, "%s: allocation of %llu bytes exceeds the device's "
				  "largest allocation, %llu bytes", dev->path,
				  (unsigned long long)size,
				  (unsigned long long)dev->info.max_alloc);
	mem = calloc(1, sizeof(*mem));
	if (!mem)
		return nd_dev_err(dev, ENOMEM, "out of host memory");
	if (ioctl(dev->fd, VNEURON_IOCTL_MEM_ALLOC, &a) < 0) {
		ret = errno;
		free(mem);
		if (ret == ENOMEM || ret == ENOSPC)
			return nd_dev_err(dev, ret, "%s: out of device memory allocating %llu bytes",
					  dev->path, (unsigned long long)size);
		return nd_dev_err(dev, ret, "%s: MEM_ALLOC of %llu bytes failed: %s", dev->path,
				  (unsigned long long)size, nd_strerror(ret));
	}
	mem->dev = dev;
	mem->handle = a.handle;
	mem->size = size;
	mem->mmap_offset = a.mmap_offset;
	mem->device_addr = a.device_addr;
	pthread_mutex_lock(&dev->lock);
	mem->next = dev->mems;
	dev->mems = mem;
	pthread_mutex_unlock(&dev->lock);
	*memp = mem;
	nd_api_note(dev, ND_API_MEM_ALLOC, t0, size, 0, 0, 0);
	return 0;
}

int nd_mem_free(struct nd_mem *mem)
{
	struct vneuron_mem_free f;
	struct nd_device *dev;
	struct nd_mem **pp;
	uint64_t t0;
	int ret = 0;

	if (!mem)
		return 0;
	dev = mem->dev;
	t0 = nd_api_t0(dev);
	pthread_mutex_lock(&dev->lock);
	for (pp = &dev->mems; *pp; pp = &(*pp)->next) {
		if (*pp == mem) {
			*pp = mem->next;
			break;
		}
	}
	pthread_mutex_unlock(&dev->lock);
	if (mem->map)
		munmap(mem->map, mem->size);
	memset(&f, 0, sizeof(f));
	f.handle = mem->handle;
	if (ioctl(dev->fd, VNEURON_IOCTL_MEM_FREE, &f) < 0)
		ret = nd_dev_err(dev, errno, "%s: MEM_FREE of handle %u failed: %s", dev->path,
				 mem->handle, nd_strerror(errno));
	nd_api_note(dev, ND_API_MEM_FREE, t0, mem->size, 0, 0, 0);
	free(mem);
	return ret;
}

static int mem_rw(struct nd_mem *mem, unsigned long cmd, const char *what, uint64_t offset,
		  const void *buf, uint64_t size)
{
	struct vneuron_mem_rw rw;
	struct nd_device *dev;
	uint64_t end;

	if (!mem)
		return -EINVAL;
	dev = mem->dev;
	if (!buf && size)
		return nd_dev_err(dev, EINVAL, "%s: %s with a NULL buffer", dev->path, what);
	if (__builtin_add_overflow(offset, size, &end) || end > mem->size)
		return nd_dev_err(dev, ERANGE, "%s: %s of %llu bytes at offset %llu is outside "
				  "the %llu-byte buffer", dev->path, what,
				  (unsigned long long)size, (unsigned long long)offset,
				  (unsigned long long)mem->size);
	memset(&rw, 0, sizeof(rw));
	rw.handle = mem->handle;
	rw.offset = offset;
	rw.size = size;
	rw.user_ptr = (uint64_t)(uintptr_t)buf;
	if (ioctl(dev->fd, cmd, &rw) < 0)
		return nd_dev_err(dev, errno, "%s: %s of %llu bytes at offset %llu failed: %s",
				  dev->path, what, (unsigned long long)size,
				  (unsigned long long)offset, nd_strerror(errno));
	return 0;
}

int nd_mem_write(struct nd_mem *mem, uint64_t offset, const void *src, uint64_t size)
{
	return mem_rw(mem, VNEURON_IOCTL_MEM_WRITE, "MEM_WRITE", offset, src, size);
}

int nd_mem_read(struct nd_mem *mem, uint64_t offset, void *dst, uint64_t size)
{
	return mem_rw(mem, VNEURON_IOCTL_MEM_READ, "MEM_READ", offset, dst, size);
}

int nd_mem_map(struct nd_mem *mem, void **ptrp)
{
	struct nd_device *dev;
	void *p;

	if (!mem || !ptrp)
		return -EINVAL;
	dev = mem->dev;
	pthread_mutex_lock(&dev->lock);
	if (!mem->map) {
		p = mmap(NULL, mem->size, PROT_READ | PROT_WRITE, MAP_SHARED, dev->fd,
			 (off_t)mem->mmap_offset);
		if (p == MAP_FAILED) {
			int e = errno;

			pthread_mutex_unlock(&dev->lock);
			return nd_dev_err(dev, e, "%s: mmap of handle %u (%llu bytes) failed: %s",
					  dev->path, mem->handle, (unsigned long long)mem->size,
					  nd_strerror(e));
		}
		mem->map = p;
	}
	*ptrp = mem->map;
	pthread_mutex_unlock(&dev->lock);
	return 0;
}

uint64_t nd_mem_size(const struct nd_mem *mem)
{
	return mem ? mem->size : 0;
}

uint64_t nd_mem_device_addr(const struct nd_mem *mem)
{
	return mem ? mem->device_addr : 0;
}

uint32_t nd_mem_handle(const struct nd_mem *mem)
{
	return mem ? mem->handle : 0;
}
