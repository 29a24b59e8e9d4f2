// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * _vneuron._Profile: a profile (.vntf) with its programs, over libvnprofile
 * (profiler/vnprofile.h). The low-level half: one view per program by index, its
 * figures as dicts, its events and executions as NumPy structured arrays over the
 * library's own arrays (no copy; the arrays keep the profile alive), and the outputs.
 * vneuron.Profile (python/vneuron/profile.py) is the user's face of it.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"
#include "vnprofile.h"

struct vnpy_profile {
	PyObject_HEAD
	struct vnprofile *p;
	pthread_mutex_t lock;		/* the library's handle: one call at a time */
	unsigned int nviews;
	/* The path strings and their array: the library keeps pointers to them. */
	PyObject *keep_profiles, *keep_programs, *keep_only;
	const char **profiles, **programs;
};

static PyTypeObject ProfileType;
static PyArray_Descr *event_descr, *exec_descr;

/* The library's message for ret (its last error, else the errno's name). */
static PyObject *raise_prof(PyObject *type, int ret, const char *what)
{
	const char *m = vnprofile_last_error();

	if (ret == -ENOMEM)
		return PyErr_NoMemory();
	return vnpy_raise(type, ret, "%s%s%s", what ? what : "", what ? ": " : "",
			  m && *m ? m : nd_strerror(ret));
}

/* Strings of a sequence (str or os.PathLike) into argv (NULL-terminated), owners in keep. */
static int path_list(PyObject *seq, PyObject **keep, const char ***argv, unsigned int *n)
{
	Py_ssize_t i, len;

	*argv = NULL;
	*n = 0;
	*keep = PyList_New(0);
	if (!*keep)
		return -1;
	if (seq == Py_None)
		return 0;
	len = PySequence_Length(seq);
	if (len < 0)
		return -1;
	*argv = PyMem_Calloc((size_t)len + 1, sizeof(char *));
	if (!*argv) {
		PyErr_NoMemory();
		return -1;
	}
	for (i = 0; i < len; i++) {
		PyObject *item = PySequence_GetItem(seq, i), *b = NULL;
		int r;

		if (!item)
			return -1;
		r = PyUnicode_FSConverter(item, &b);
		Py_DECREF(item);
		if (!r)
			return -1;
		r = PyList_Append(*keep, b);
		Py_DECREF(b);
		if (r)
			return -1;
		(*argv)[i] = PyBytes_AS_STRING(b);
	}
	*n = (unsigned int)len;
	return 0;
}

/* Images: a sequence of (bytes-like, name) pairs. */
static int image_list(PyObject *seq, PyObject *keep, struct vnprofile_image **imgs,
		      Py_buffer **views, unsigned int *n)
{
	Py_ssize_t i, len;

	*imgs = NULL;
	*views = NULL;
	*n = 0;
	if (seq == Py_None)
		return 0;
	len = PySequence_Length(seq);
	if (len < 0)
		return -1;
	*imgs = PyMem_Calloc((size_t)len + 1, sizeof(**imgs));
	*views = PyMem_Calloc((size_t)len + 1, sizeof(**views));
	if (!*imgs || !*views) {
		PyErr_NoMemory();
		return -1;
	}
	for (i = 0; i < len; i++) {
		PyObject *item = PySequence_GetItem(seq, i), *data, *name;
		const char *s;

		if (!item)
			return -1;
		if (!PyArg_ParseTuple(item, "OU", &data, &name) ||
		    PyList_Append(keep, item) ||
		    PyObject_GetBuffer(data, &(*views)[i], PyBUF_C_CONTIGUOUS)) {
			Py_DECREF(item);
			return -1;
		}
		Py_DECREF(item);
		*n = (unsigned int)i + 1;
		s = PyUnicode_AsUTF8(name);
		if (!s)
			return -1;
		(*imgs)[i] = (struct vnprofile_image){ (*views)[i].buf, (size_t)(*views)[i].len, s };
	}
	return 0;
}

static int profile_init(PyObject *self, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "profiles", "programs", "images", "only", "flags",
				  "model_flops", NULL };
	struct vnpy_profile *pr = (struct vnpy_profile *)self;
	PyObject *profiles, *programs = Py_None, *images = Py_None, *only = Py_None;
	PyObject *keep1 = NULL, *keep2 = NULL, *onlyb = NULL;
	struct vnprofile_opts o = { .sz = sizeof(o) };
	struct vnprofile_image *imgs = NULL;
	const char **pv = NULL, **gv = NULL;
	Py_buffer *views = NULL;
	unsigned int nimg = 0, flags = 0, i;
	unsigned long long mf = 0;
	int ret = -1, r;

	if (pr->p) {
		PyErr_SetString(PyExc_RuntimeError, "Profile.__init__ called twice");
		return -1;
	}
	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OOOIK", kwlist, &profiles, &programs,
					 &images, &only, &flags, &mf))
		return -1;
	if (path_list(profiles, &keep1, &pv, &o.nprofiles) ||
	    path_list(programs, &keep2, &gv, &o.nprograms) ||
	    image_list(images, keep2, &imgs, &views, &nimg))
		goto out;
	if (only != Py_None && !PyUnicode_FSConverter(only, &onlyb))
		goto out;
	o.profiles = pv;
	o.programs = gv;
	/* kept for the handle's life, freed by dealloc */
	pr->profiles = pv;
	pr->programs = gv;
	pr->keep_profiles = keep1;
	pr->keep_programs = keep2;
	pr->keep_only = onlyb;
	pv = gv = NULL;
	keep1 = keep2 = onlyb = NULL;
	o.images = imgs;
	o.nimages = nimg;
	o.only = pr->keep_only ? PyBytes_AS_STRING(pr->keep_only) : NULL;
	o.flags = flags;
	o.model_flops = mf;
	Py_BEGIN_ALLOW_THREADS
	r = vnprofile_open(&pr->p, &o);
	if (!r)
		r = vnprofile_load(pr->p);
	Py_END_ALLOW_THREADS
	if (r) {
		raise_prof(vnpy_Error, r, NULL);
		vnprofile_close(pr->p);
		pr->p = NULL;
		goto out;
	}
	pr->nviews = vnprofile_nviews(pr->p);
	ret = 0;
out:
	for (i = 0; i < nimg; i++)
		PyBuffer_Release(&views[i]);
	PyMem_Free(views);
	PyMem_Free(imgs);
	PyMem_Free(pv);
	PyMem_Free(gv);
	Py_XDECREF(keep1);
	Py_XDECREF(keep2);
	Py_XDECREF(onlyb);
	return ret;
}

static PyObject *profile_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
	struct vnpy_profile *pr = (struct vnpy_profile *)type->tp_alloc(type, 0);

	if (pr)
		pthread_mutex_init(&pr->lock, NULL);
	return (PyObject *)pr;
}

static void profile_dealloc(PyObject *self)
{
	struct vnpy_profile *pr = (struct vnpy_profile *)self;

	vnprofile_close(pr->p);
	PyMem_Free(pr->profiles);
	PyMem_Free(pr->programs);
	Py_XDECREF(pr->keep_profiles);
	Py_XDECREF(pr->keep_programs);
	Py_XDECREF(pr->keep_only);
	pthread_mutex_destroy(&pr->lock);
	Py_TYPE(self)->tp_free(self);
}

/* View i, read and analysed on first use; NULL with an exception. */
static const struct vnprofile_view *get_view(struct vnpy_profile *pr, PyObject *arg)
{
	const struct vnprofile_view *v = NULL;
	long i;
	int r;

	if (!pr->p) {
		vnpy_raise(vnpy_Error, EINVAL, "the profile is not open");
		return NULL;
	}
	i = PyLong_AsLong(arg);
	if (i == -1 && PyErr_Occurred())
		return NULL;
	if (i < 0 || i >= (long)pr->nviews) {
		PyErr_Format(PyExc_IndexError, "view %ld: the profile has %u", i, pr->nviews);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	pthread_mutex_lock(&pr->lock);
	r = vnprofile_view(pr->p, (unsigned int)i, &v);
	pthread_mutex_unlock(&pr->lock);
	Py_END_ALLOW_THREADS
	if (r) {
		raise_prof(vnpy_Error, r, NULL);
		return NULL;
	}
	return v;
}

static PyObject *str_or_none(const char *s)
{
	if (!s)
		Py_RETURN_NONE;
	return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
}

static PyObject *profile_summary(PyObject *self, PyObject *arg)
{
	const struct vnprofile_view *v = get_view((struct vnpy_profile *)self, arg);
	struct vnprofile_summary s;

	if (!v)
		return NULL;
	vnprofile_view_summary(v, &s);
	return Py_BuildValue("{s:N,s:N,s:N,s:N,s:I,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,"
			     "s:K,s:K,s:K,s:K,s:d,s:d,s:d,s:d,s:d,s:N,s:N,s:N,s:N,s:I}",
			     "program", str_or_none(s.program),
			     "program_path", str_or_none(s.program_path),
			     "model", str_or_none(s.model), "backend", str_or_none(s.backend),
			     "cores", s.cores, "executions", (unsigned long long)s.executions,
			     "total_time_ps", (unsigned long long)s.total_time_ps,
			     "core_time_ps", (unsigned long long)s.core_time_ps,
			     "critical_path_ps", (unsigned long long)s.critical_path_ps,
			     "event_count", (unsigned long long)s.event_count,
			     "instruction_count", (unsigned long long)s.instruction_count,
			     "dma_count", (unsigned long long)s.dma_count,
			     "collective_count", (unsigned long long)s.collective_count,
			     "hardware_flops", (unsigned long long)s.hardware_flops,
			     "hbm_read_bytes", (unsigned long long)s.hbm_read_bytes,
			     "hbm_write_bytes", (unsigned long long)s.hbm_write_bytes,
			     "dma_bytes", (unsigned long long)s.dma_bytes,
			     "lost_records", (unsigned long long)s.lost_records,
			     "malformed_records", (unsigned long long)s.malformed_records,
			     "hfu", s.hfu, "mfu", s.mfu, "mbu", s.mbu,
			     "arithmetic_intensity", s.arithmetic_intensity,
			     "ridge_point", s.ridge_point, "class", str_or_none(s.class_id),
			     "class_label", str_or_none(s.class_label),
			     "class_why", str_or_none(s.class_why),
			     "bound_unit", str_or_none(s.bound_unit), "findings", s.findings);
}

static PyObject *profile_findings(PyObject *self, PyObject *arg)
{
	const struct vnprofile_view *v = get_view((struct vnpy_profile *)self, arg);
	struct vnprofile_summary s;
	struct vnprofile_finding f;
	PyObject *l;
	unsigned int i;

	if (!v)
		return NULL;
	vnprofile_view_summary(v, &s);
	l = PyList_New(0);
	for (i = 0; l && i < s.findings; i++) {
		PyObject *d;

		if (vnprofile_view_finding(v, i, &f))
			break;
		d = Py_BuildValue("{s:N,s:N,s:N,s:N,s:N,s:d,s:d,s:O,s:K,s:K,s:N,s:N}",
				  "rule", str_or_none(f.rule), "title", str_or_none(f.title),
				  "evidence", str_or_none(f.evidence),
				  "advice", str_or_none(f.advice), "gain", str_or_none(f.gain),
				  "impact", f.impact, "saved_ps", f.saved_ps,
				  "replayed", f.replayed ? Py_True : Py_False,
				  "before_ps", (unsigned long long)f.before_ps,
				  "after_ps", (unsigned long long)f.after_ps,
				  "then_class", str_or_none(f.then_class),
				  "then", str_or_none(f.then));
		if (!d || PyList_Append(l, d))
			Py_CLEAR(l);
		Py_XDECREF(d);
	}
	return l;
}

static PyObject *profile_cores(PyObject *self, PyObject *arg)
{
	const struct vnprofile_view *v = get_view((struct vnpy_profile *)self, arg);
	struct vnprofile_core c;
	unsigned int i, n;
	PyObject *l;

	if (!v)
		return NULL;
	n = vnprofile_view_cores(v);
	l = PyList_New(0);
	for (i = 0; l && i < n; i++) {
		PyObject *d;

		if (vnprofile_view_core(v, i, &c))
			break;
		d = Py_BuildValue("{s:I,s:I,s:I,s:I,s:I,s:N}", "device", c.device, "core", c.core,
				  "worker", c.worker, "nr_workers", c.nr_workers, "node", c.node,
				  "label", str_or_none(c.label));
		if (!d || PyList_Append(l, d))
			Py_CLEAR(l);
		Py_XDECREF(d);
	}
	return l;
}

static PyObject *profile_strings(PyObject *self, PyObject *arg)
{
	const struct vnprofile_view *v = get_view((struct vnpy_profile *)self, arg);
	const char *const *s;
	size_t i, n = 0;
	PyObject *l;

	if (!v)
		return NULL;
	s = vnprofile_view_strings(v, &n);
	l = PyList_New((Py_ssize_t)n);
	for (i = 0; l && i < n; i++) {
		PyObject *t = str_or_none(s[i] ? s[i] : "");

		if (!t) {
			Py_CLEAR(l);
			break;
		}
		PyList_SET_ITEM(l, (Py_ssize_t)i, t);
	}
	return l;
}

/* A read-only array of n records of descr over data, which self owns. */
static PyObject *wrap(PyObject *self, PyArray_Descr *descr, const void *data, size_t n)
{
	npy_intp dim = (npy_intp)n;
	PyObject *a;

	Py_INCREF(descr);
	if (!data || !n)
		return PyArray_Zeros(1, &dim, descr, 0);
	a = PyArray_NewFromDescr(&PyArray_Type, descr, 1, &dim, NULL, (void *)data, 0, NULL);
	if (!a)
		return NULL;
	Py_INCREF(self);
	if (PyArray_SetBaseObject((PyArrayObject *)a, self)) {
		Py_DECREF(a);
		return NULL;
	}
	return a;
}

static PyObject *profile_events(PyObject *self, PyObject *arg)
{
	const struct vnprofile_view *v = get_view((struct vnpy_profile *)self, arg);
	const struct vnprofile_event *e;
	size_t n = 0;

	if (!v)
		return NULL;
	e = vnprofile_view_events(v, &n);
	return wrap(self, event_descr, e, n);
}

static PyObject *profile_executions(PyObject *self, PyObject *arg)
{
	const struct vnprofile_view *v = get_view((struct vnpy_profile *)self, arg);
	const struct vnprofile_exec *e;
	size_t n = 0;

	if (!v)
		return NULL;
	e = vnprofile_view_execs(v, &n);
	return wrap(self, exec_descr, e, n);
}

static int format_of(PyObject *name, enum vnprofile_format *fmt)
{
	const char *s = PyUnicode_AsUTF8(name);

	if (!s)
		return -1;
	if (vnprofile_format_parse(s, fmt)) {
		vnpy_raise(vnpy_Error, EINVAL, "format '%s': summary-text, summary-json, json, "
			   "perfetto or html", s);
		return -1;
	}
	return 0;
}

static PyObject *profile_render(PyObject *self, PyObject *args)
{
	struct vnpy_profile *pr = (struct vnpy_profile *)self;
	enum vnprofile_format fmt;
	PyObject *name, *ret;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int r;

	if (!PyArg_ParseTuple(args, "U", &name) || format_of(name, &fmt))
		return NULL;
	if (!pr->p)
		return vnpy_raise(vnpy_Error, EINVAL, "the profile is not open");
	f = open_memstream(&buf, &len);
	if (!f)
		return PyErr_NoMemory();
	Py_BEGIN_ALLOW_THREADS
	pthread_mutex_lock(&pr->lock);
	r = vnprofile_can_write(pr->p, fmt);
	if (!r)
		r = vnprofile_write(pr->p, fmt, f);
	pthread_mutex_unlock(&pr->lock);
	Py_END_ALLOW_THREADS
	if (fclose(f) && !r)
		r = -EIO;
	if (r) {
		free(buf);
		return raise_prof(vnpy_Error, r, vnprofile_format_name(fmt));
	}
	if (vnprofile_format_binary(fmt) && fmt == VNPROFILE_PERFETTO)
		ret = PyBytes_FromStringAndSize(buf, (Py_ssize_t)len);
	else
		ret = PyUnicode_DecodeUTF8(buf, (Py_ssize_t)len, "replace");
	free(buf);
	return ret;
}

static PyObject *profile_write(PyObject *self, PyObject *args)
{
	struct vnpy_profile *pr = (struct vnpy_profile *)self;
	enum vnprofile_format fmt;
	PyObject *path, *name;
	int force = 0, r;

	if (!PyArg_ParseTuple(args, "O&U|p", PyUnicode_FSConverter, &path, &name, &force))
		return NULL;
	if (format_of(name, &fmt) || !pr->p) {
		if (!PyErr_Occurred())
			vnpy_raise(vnpy_Error, EINVAL, "the profile is not open");
		Py_DECREF(path);
		return NULL;
	}
	Py_BEGIN_ALLOW_THREADS
	pthread_mutex_lock(&pr->lock);
	r = vnprofile_can_write(pr->p, fmt);
	if (!r)
		r = vnprofile_write_file(pr->p, fmt, PyBytes_AS_STRING(path),
					 force ? VNPROFILE_FORCE : 0);
	pthread_mutex_unlock(&pr->lock);
	Py_END_ALLOW_THREADS
	if (r) {
		raise_prof(r == -EEXIST ? PyExc_FileExistsError : vnpy_Error, r,
			   PyBytes_AS_STRING(path));
		Py_DECREF(path);
		return NULL;
	}
	Py_DECREF(path);
	Py_RETURN_NONE;
}

static PyObject *profile_nviews(PyObject *self, void *closure)
{
	return PyLong_FromUnsignedLong(((struct vnpy_profile *)self)->nviews);
}

/* Names of the events' numbers, for the Python layer's tables. */
static PyObject *opcode_name(PyObject *self, PyObject *arg)
{
	unsigned long v = PyLong_AsUnsignedLong(arg);

	if (v == (unsigned long)-1 && PyErr_Occurred())
		return NULL;
	return PyUnicode_FromString(vnprofile_opcode_name((unsigned int)v));
}

static PyObject *stream_name(PyObject *self, PyObject *arg)
{
	unsigned long v = PyLong_AsUnsignedLong(arg);
	char buf[32];

	if (v == (unsigned long)-1 && PyErr_Occurred())
		return NULL;
	return PyUnicode_FromString(vnprofile_stream_name((unsigned int)v, buf, sizeof(buf)));
}

static PyObject *engine_name(PyObject *self, PyObject *arg)
{
	unsigned long v = PyLong_AsUnsignedLong(arg);

	if (v == (unsigned long)-1 && PyErr_Occurred())
		return NULL;
	return PyUnicode_FromString(vnprofile_engine_name((unsigned int)v));
}

static PyMethodDef profile_methods[] = {
	{ "_summary", profile_summary, METH_O, "The headline figures of view i (a dict)." },
	{ "_findings", profile_findings, METH_O, "The findings of view i (dicts)." },
	{ "_cores", profile_cores, METH_O, "The core slots of view i (dicts)." },
	{ "_strings", profile_strings, METH_O, "The events' string table of view i." },
	{ "_events", profile_events, METH_O, "The events of view i (structured array)." },
	{ "_executions", profile_executions, METH_O, "The executions of view i." },
	{ "_render", profile_render, METH_VARARGS, "The whole profile in a format." },
	{ "_write", profile_write, METH_VARARGS, "The whole profile into a file." },
	{ NULL }
};

static PyGetSetDef profile_getset[] = {
	{ "_nviews", profile_nviews, NULL, "The views: one per program.", NULL },
	{ NULL }
};

static PyTypeObject ProfileType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "vneuron._vneuron._Profile",
	.tp_basicsize = sizeof(struct vnpy_profile),
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
	.tp_doc = "libvnprofile's profile handle (vneuron.Profile is its user face).",
	.tp_new = profile_new,
	.tp_init = profile_init,
	.tp_dealloc = profile_dealloc,
	.tp_methods = profile_methods,
	.tp_getset = profile_getset,
};

#define FIELD(st, f, t) { #f, t, offsetof(struct st, f) }

struct field {
	const char *name;
	int type;
	size_t off;
};

/* A structured dtype naming each field of a C struct at its offset. */
static PyArray_Descr *struct_descr(const struct field *f, size_t n, size_t size)
{
	PyObject *names = PyList_New(0), *formats = PyList_New(0), *offsets = PyList_New(0);
	PyObject *spec = NULL;
	PyArray_Descr *d = NULL;
	size_t i;

	for (i = 0; names && formats && offsets && i < n; i++) {
		PyObject *nm = PyUnicode_FromString(f[i].name);
		PyObject *fm = (PyObject *)PyArray_DescrFromType(f[i].type);
		PyObject *of = PyLong_FromSize_t(f[i].off);

		if (!nm || !fm || !of || PyList_Append(names, nm) || PyList_Append(formats, fm) ||
		    PyList_Append(offsets, of))
			Py_CLEAR(names);
		Py_XDECREF(nm);
		Py_XDECREF(fm);
		Py_XDECREF(of);
	}
	if (names && formats && offsets)
		spec = Py_BuildValue("{s:O,s:O,s:O,s:n}", "names", names, "formats", formats,
				     "offsets", offsets, "itemsize", (Py_ssize_t)size);
	if (spec && !PyArray_DescrConverter(spec, &d))
		d = NULL;
	Py_XDECREF(spec);
	Py_XDECREF(names);
	Py_XDECREF(formats);
	Py_XDECREF(offsets);
	return d;
}

static const struct field event_fields[] = {
	FIELD(vnprofile_event, start_ps, NPY_UINT64), FIELD(vnprofile_event, end_ps, NPY_UINT64),
	FIELD(vnprofile_event, flops, NPY_UINT64), FIELD(vnprofile_event, wait_ps, NPY_UINT64),
	FIELD(vnprofile_event, cc_wait_ps, NPY_UINT64), FIELD(vnprofile_event, bytes, NPY_UINT32),
	FIELD(vnprofile_event, elements, NPY_UINT32), FIELD(vnprofile_event, pc, NPY_UINT32),
	FIELD(vnprofile_event, exec, NPY_UINT32), FIELD(vnprofile_event, file, NPY_UINT32),
	FIELD(vnprofile_event, line, NPY_UINT32), FIELD(vnprofile_event, scope, NPY_UINT32),
	FIELD(vnprofile_event, opcode, NPY_UINT16), FIELD(vnprofile_event, worker, NPY_UINT16),
	FIELD(vnprofile_event, sem_wait, NPY_UINT16),
	FIELD(vnprofile_event, sem_signal, NPY_UINT16), FIELD(vnprofile_event, core, NPY_UINT8),
	FIELD(vnprofile_event, stream, NPY_UINT8), FIELD(vnprofile_event, engine, NPY_UINT8),
	FIELD(vnprofile_event, queue, NPY_UINT8),
};

static const struct field exec_fields[] = {
	FIELD(vnprofile_exec, start_ps, NPY_UINT64), FIELD(vnprofile_exec, end_ps, NPY_UINT64),
	FIELD(vnprofile_exec, model_ps, NPY_UINT64),
	FIELD(vnprofile_exec, host_start_ns, NPY_UINT64),
	FIELD(vnprofile_exec, host_end_ns, NPY_UINT64), FIELD(vnprofile_exec, exec, NPY_UINT32),
	FIELD(vnprofile_exec, round, NPY_UINT32), FIELD(vnprofile_exec, core, NPY_UINT16),
	FIELD(vnprofile_exec, worker, NPY_UINT16), FIELD(vnprofile_exec, status, NPY_UINT16),
	FIELD(vnprofile_exec, reason, NPY_UINT16),
};

static PyMethodDef name_functions[] = {
	{ "_opcode_name", opcode_name, METH_O, "An event's opcode as its name." },
	{ "_stream_name", stream_name, METH_O, "A stream's name (\"DMA q3\")." },
	{ "_engine_name", engine_name, METH_O, "An engine's name (\"TensorE\", \"DMA\")." },
	{ NULL }
};

/* Errors are raised with the library's message; warnings go to stderr as usual. */
static void print_msg(enum vnprofile_level level, const char *msg)
{
	if (level != VNPROFILE_ERROR)
		fprintf(stderr, "vnprofile: %s\n", msg);
}

int vnpy_init_profile(PyObject *m)
{
	event_descr = struct_descr(event_fields, sizeof(event_fields) / sizeof(event_fields[0]),
				   sizeof(struct vnprofile_event));
	exec_descr = struct_descr(exec_fields, sizeof(exec_fields) / sizeof(exec_fields[0]),
				  sizeof(struct vnprofile_exec));
	if (!event_descr || !exec_descr || PyModule_AddType(m, &ProfileType) ||
	    PyModule_AddObjectRef(m, "event_dtype", (PyObject *)event_descr) ||
	    PyModule_AddObjectRef(m, "execution_dtype", (PyObject *)exec_descr))
		return -1;
	vnprofile_set_print(print_msg);
	if (PyModule_AddIntConstant(m, "_SALVAGE", VNPROFILE_SALVAGE) ||
	    PyModule_AddIntConstant(m, "_NO_HASH_CHECK", VNPROFILE_NO_HASH_CHECK) ||
	    PyModule_AddIntConstant(m, "_HOST_CLOCK", VNPROFILE_HOST_CLOCK) ||
	    PyModule_AddIntConstant(m, "_NO_REPLAY", VNPROFILE_NO_REPLAY))
		return -1;
	return PyModule_AddFunctions(m, name_functions) ?: vnpy_init_capture(m);
}
