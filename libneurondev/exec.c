// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Programs and executions on the device: PROGRAM_LOAD, EXEC and WAIT (docs/uapi.md). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "apilog.h"
#include "nd_internal.h"
#include "vn_program.h"

struct nd_program {
	struct nd_device *dev;
	uint32_t handle;
	struct vn_program *vp;		/* the image as the core reads it: its tensor table */
	uint32_t api_id;		/* its id in the API log (0: not logged) */
};

int nd_program_load(struct nd_device *dev, const void *image, size_t size,
		    struct nd_program **progp, struct nd_load_error *le)
{
	struct vneuron_program_load a = {
		.image_ptr = (uintptr_t)image,
		.image_size = size,
	};
	uint64_t t0 = nd_api_t0(dev);
	struct nd_program *p;
	int ret;

	if (le)
		memset(le, 0, sizeof(*le));
	if (!dev || !progp)
		return -EINVAL;
	*progp = NULL;
	if (!(dev->info.caps & VNEURON_CAP_EXEC))
		return nd_dev_err(dev, EOPNOTSUPP, "%s: the device cannot run programs",
				  dev->path);
	if (ioctl(dev->fd, VNEURON_IOCTL_PROGRAM_LOAD, &a) < 0) {
		ret = -errno;
		if (ret == -EINVAL && a.check) {
			if (le) {
				le->check = a.check;
				le->section = a.section;
				le->index = a.index;
				memcpy(le->msg, a.msg, sizeof(le->msg));
				le->msg[sizeof(le->msg) - 1] = '\0';
			}
			a.msg[sizeof(a.msg) - 1] = '\0';
			return nd_dev_err(dev, EINVAL,
					  "the device refused the program: %s check: %s (section %d, entry %d)",
					  vn_check_name(a.check),
					  a.msg, (int)a.section, (int)a.index);
		}
		return nd_dev_err(dev, ret, "PROGRAM_LOAD of %zu bytes: %s", size,
				  nd_strerror(ret));
	}
	/* The module keeps its copy; ours names the tensors for binding. */
	p = calloc(1, sizeof(*p));
	if (p) {
		p->dev = dev;
		p->handle = a.handle;
		ret = vn_program_load(image, size, &p->vp, NULL);
	} else {
		ret = -ENOMEM;
	}
	if (ret) {
		struct vneuron_program_unload u = { .handle = a.handle };

		ioctl(dev->fd, VNEURON_IOCTL_PROGRAM_UNLOAD, &u);
		free(p);
		return nd_dev_err(dev, ret, "cannot keep the program's tensor table: %s",
				  nd_strerror(ret));
	}
	*progp = p;
	p->api_id = nd_api_note(dev, ND_API_PROGRAM_LOAD, t0, size, 0, 0, 0);
	nd_api_program_id(dev, p->api_id, p->vp, image, size);
	return 0;
}

int nd_program_unload(struct nd_program *p)
{
	struct vneuron_program_unload u;
	int ret = 0;

	if (!p)
		return 0;
	u = (struct vneuron_program_unload){ .handle = p->handle };
	if (ioctl(p->dev->fd, VNEURON_IOCTL_PROGRAM_UNLOAD, &u) < 0)
		ret = nd_dev_err(p->dev, errno, "PROGRAM_UNLOAD: %s", nd_strerror(errno));
	vn_program_put(p->vp);
	free(p);
	return ret;
}

uint32_t nd_program_handle(const struct nd_program *p)
{
	return p ? p->handle : 0;
}

uint32_t nd_program_tensor_count(const struct nd_program *p)
{
	return p ? p->vp->tensor_count : 0;
}

struct nd_device *nd_program_dev(const struct nd_program *p)
{
	return p ? p->dev : NULL;
}

const struct vn_program *nd_program_vp(const struct nd_program *p)
{
	return p ? p->vp : NULL;
}

uint32_t nd_program_api_id(const struct nd_program *p)
{
	return p ? p->api_id : 0;
}

int nd_program_tensor(const struct nd_program *p, const char *name)
{
	if (!p || !name)
		return -EINVAL;
	return vn_program_tensor(p->vp, name);
}

int nd_bind_handles(const struct nd_program *p, const struct nd_bind *binds,
		    unsigned int count, uint32_t *h)
{
	unsigned int i;
	int idx;

	if (count && !binds)
		return nd_dev_err(p->dev, EINVAL, "%u bindings but no array", count);
	for (i = 0; i < count; i++) {
		const struct nd_bind *b = &binds[i];

		idx = b->name ? nd_program_tensor(p, b->name) : -EINVAL;
		if (idx < 0 || !b->mem || b->mem->dev != p->dev)
			return nd_dev_err(p->dev, EINVAL, "binding %u ('%s'): %s", i,
					  b->name ? b->name : "(null)",
					  idx < 0 ? "no such tensor" : "not a buffer of this device");
		if (h[idx])
			return nd_dev_err(p->dev, EINVAL, "tensor '%s' is bound twice", b->name);
		h[idx] = b->mem->handle;
	}
	return 0;
}

void nd_result_from_wait(const struct vneuron_wait *w, struct nd_run_result *res)
{
	*res = (struct nd_run_result){
		.result = w->status,
		.reason = w->reason,
		.stream = w->stream,
		.pc = w->pc,
		.model_ps = w->model_ps,
		.host_ns = w->host_ns,
	};
}

int nd_exec(struct nd_program *p, unsigned int core, const struct nd_bind *binds,
	    unsigned int count, uint64_t limit_ns, uint64_t *exec_idp)
{
	struct vneuron_exec e;
	uint32_t *h, flags;
	uint64_t t0;
	int ret;

	if (!p)
		return -EINVAL;
	t0 = nd_api_t0(p->dev);
	if (exec_idp)
		*exec_idp = 0;
	ret = nd_lnc_exec_flags(p->dev, p, core, &flags);
	if (ret)
		return ret;
	h = calloc(p->vp->tensor_count + 1, sizeof(*h));
	if (!h)
		return nd_dev_err(p->dev, ENOMEM, "out of memory");
	ret = nd_bind_handles(p, binds, count, h);
	if (ret)
		goto out;
	e = (struct vneuron_exec){
		.program = p->handle,
		.core = core,
		.mem_handles_ptr = (uintptr_t)h,
		.mem_count = p->vp->tensor_count,
		.flags = flags,
		.time_limit_ns = limit_ns,
	};
	if (ioctl(p->dev->fd, VNEURON_IOCTL_EXEC, &e) < 0) {
		ret = -errno;
		if (ret == -EBUSY && flags)
			ret = nd_dev_err(p->dev, EBUSY, "EXEC on logical core %u: core %u or %u is "
					 "another open file's", core, core, core + 1);
		else
			ret = nd_dev_err(p->dev, -ret, "EXEC on %score %u: %s",
					 flags ? "logical " : "", core, nd_strerror(-ret));
		goto out;
	}
	if (exec_idp)
		*exec_idp = e.exec_id;
	nd_api_note(p->dev, ND_API_EXEC, t0, p->api_id, core, e.exec_id, 0);
out:
	free(h);
	return ret;
}

int nd_wait(struct nd_device *dev, uint64_t exec_id, uint64_t timeout_ns,
	    struct nd_run_result *res)
{
	struct vneuron_wait w = { .exec_id = exec_id, .timeout_ns = timeout_ns };
	uint64_t t0 = nd_api_t0(dev);

	if (res)
		memset(res, 0, sizeof(*res));
	if (!dev)
		return -EINVAL;
	if (ioctl(dev->fd, VNEURON_IOCTL_WAIT, &w) < 0) {
		if (errno == ETIMEDOUT)
			return -ETIMEDOUT;
		return nd_dev_err(dev, errno, "WAIT for execution %llu: %s",
				  (unsigned long long)exec_id, nd_strerror(errno));
	}
	nd_api_note(dev, ND_API_WAIT, t0, 0, w.core, exec_id, w.seq);
	if (res)
		nd_result_from_wait(&w, res);
	return 0;
}

int nd_run(struct nd_program *p, unsigned int core, const struct nd_bind *binds,
	   unsigned int count, uint64_t limit_ns, struct nd_run_result *res)
{
	struct nd_run_result r;
	char msg[ND_ERRMSG_MAX];
	uint64_t id;
	int ret;

	ret = nd_exec(p, core, binds, count, limit_ns, &id);
	if (ret)
		return ret;
	ret = nd_wait(p->dev, id, ND_WAIT_FOREVER, &r);
	if (res)
		*res = r;
	if (ret)
		return ret;
	if (r.result == VNEURON_EXEC_OK)
		return 0;
	/* At a collective, the communicator says who never arrived or who failed. */
	if (!nd_comm_describe_core(p->dev, p, core, &r, msg, sizeof(msg)))
		nd_run_describe(&r, msg, sizeof(msg));
	return nd_dev_err(p->dev, nd_run_errno(&r), "%s", msg);
}
