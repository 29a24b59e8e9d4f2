/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The package core's objects (device.c, program.c, run.c, result.c, profile.c,
 * capture.c), shared between their files; the NKI half uses them from Python only.
 *
 * Lifetimes: a Program holds a reference to its Device, so a Device object outlives its
 * programs. Device.close() unloads every program of the device (they then refuse to
 * run) and closes the handle; it waits for runs in progress (the device's `life` lock:
 * every run holds it shared, close exclusive). Locks are only ever taken with the GIL
 * released, so no thread waits for a lock while holding the GIL.
 */
#ifndef VNPY_RUNTIME_H
#define VNPY_RUNTIME_H

#include <pthread.h>
#include <stdint.h>

#include "vnpy.h"
#include "vnrun.h"

struct vn_program;

enum vnpy_backend {
	VNPY_HOST,		/* libvnprog's host backend: the device core in this process */
	VNPY_DEVICE,		/* /dev/vneuronN through libneurondev */
};

struct vnpy_program;
struct vnpy_capture;

struct vnpy_device {
	PyObject_HEAD
	enum vnpy_backend backend;
	struct nd_device *nd;		/* VNPY_DEVICE */
	struct nd_runner *runner;	/* VNPY_HOST: the runner of its one host core */
	struct nd_host *host;		/* VNPY_HOST: that core, for captures */
	struct vnpy_program *loaded;	/* VNPY_HOST: the program loaded in the runner */
	const struct vneuron_model *model;	/* VNPY_HOST: its model (model=; trn1) */
	int index;			/* N of /dev/vneuronN; -1 for the host */
	unsigned int core;		/* the core programs run on */
	unsigned int lnc;		/* physical cores a run takes: 1, or 2 (lnc=2) */
	int closed;
	pthread_rwlock_t life;		/* runs: shared; close: exclusive */
	pthread_mutex_t host_lock;	/* the host core runs one program at a time */
	struct vnpy_program *programs;	/* live programs of this device (list, GIL) */
	struct vnpy_capture *capture;	/* a capture tracing it (capture.c), or NULL */
	PyObject *weakrefs;
};

/* A tensor of a program as the runs see it. */
struct vnpy_tensor {
	const char *name;		/* in the program's string table */
	PyObject *pyname;		/* the same, interned */
	uint32_t kind;			/* VNEF_TENSOR_* */
	uint32_t dtype;			/* VNEF_DT_* */
	int type_num;			/* NPY_FLOAT32, NPY_UINT16 (bf16) */
	int ndim;
	npy_intp shape[VNEF_MAX_RANK];
	uint64_t size;			/* bytes */
	int bound;			/* an input or output: given at each run */
	int written;			/* an output every OK run writes whole: its new
					 * arrays need no zeroing (nd_program_writes_all()) */
	void *bound_to;			/* run.c: the buffer its runner has it bound to
					 * (NULL: none), so a run rebinds only a new one */
};

struct vnpy_program {
	PyObject_HEAD
	struct vnpy_device *dev;	/* a reference */
	struct vnpy_program *next;	/* in dev->programs */
	struct vnpy_program **pprev;
	struct vn_program *vp;		/* the validated image: tensors, names */
	struct nd_runner *r;		/* VNPY_DEVICE: its runner, the program loaded */
	pthread_mutex_t run_lock;	/* VNPY_DEVICE: binding and running are one step */
	long buffers;			/* VNPY_DEVICE: device buffers its runs made */
	long long buffer_bytes;
	int unloaded;
	uint32_t ntensors;
	struct vnpy_tensor *tensors;	/* every tensor of the image, in its order */
	uint32_t nbound;		/* inputs and outputs */
	PyObject *name;			/* str */
	PyObject *infos;		/* tuple of TensorInfo */
	PyObject *weakrefs;
};

extern PyTypeObject vnpy_DeviceType;
extern PyTypeObject vnpy_ProgramType;
extern PyTypeObject vnpy_ResultType;

/* What a run gives back, for the Result. */
struct vnpy_run_out {
	struct nd_run_result res;
	double host_s;
};

/*
 * run.c: one execution of p with its bound tensors' host buffers (data[i] for the i-th
 * tensor of p with .bound, NULL for the others), called with the GIL released.
 * interruptible: the main thread's run, which SIGINT stops. Returns 0, or -errno with
 * a message in msg: -EIO (and the like) when the execution ran and failed (out->res says
 * how), -EINTR when SIGINT stopped it, -EBADF for a closed device or an unloaded
 * program, other values when it did not run. *ran says whether out->res is valid.
 */
int vnpy_run(struct vnpy_program *p, void *const *data, struct vnpy_run_out *out,
	     uint64_t limit_ns, int interruptible, int *ran, char *msg, size_t len);
/* run.c: the host backend's runner of d (d->runner, d->host); -errno with msg. */
int vnpy_run_open_host(struct vnpy_device *d, unsigned int lnc, char *msg, size_t len);
/* run.c: closes d's runner (its programs released first). */
void vnpy_run_close(struct vnpy_device *d);
/*
 * run.c: makes p runnable (the module: its runner over d->nd, the image loaded and
 * validated by the module; le says which check refused it); -errno with msg.
 */
int vnpy_run_load(struct vnpy_program *p, struct nd_load_error *le, char *msg, size_t len);
/* run.c: frees what p's runs hold (its runner, device buffers); idempotent. */
void vnpy_run_release(struct vnpy_program *p);

/* program.c: a Program of dev from an image (copied), or NULL with an exception. */
PyObject *vnpy_program_new(struct vnpy_device *dev, const void *image, size_t size);
/* program.c: unloads p (its device resources); idempotent. GIL held, life exclusive. */
void vnpy_program_unload(struct vnpy_program *p);

int vnpy_init_result(PyObject *m);
/* result.c: a Result of p's run, with its output arrays (a dict, stolen). */
PyObject *vnpy_result_new(PyObject *outputs, const struct vnpy_run_out *out);

/* errors.c: the exception of an execution that ran and failed (ExecutionError). */
PyObject *vnpy_raise_exec(int err, const struct nd_run_result *r, const char *msg);
/* errors.c: ValidationError with .check, .section, .entry (~0u: none). */
PyObject *vnpy_raise_validation(int err, const char *check, uint32_t section,
				uint32_t entry, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* capture.c: vneuron.capture; vnpy_capture_abort() drops a capture of a closing device. */
int vnpy_init_capture(PyObject *m);
void vnpy_capture_abort(struct vnpy_capture *c);

/* counters.c: the package's own counts, for leak tests (vneuron.counters()). */
struct vnpy_counters {
	long devices;			/* open Device handles */
	long programs;			/* live Program objects */
	long results;			/* live Result objects */
	long buffers;			/* device buffers held by programs */
	long long buffer_bytes;
	long long runs;			/* runs started */
	long running;			/* runs in progress (the GIL released) */
	long long interrupted;		/* runs stopped by SIGINT */
};
extern struct vnpy_counters vnpy_count;

#endif
