// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vneuron-run: run a .vnef program once (or N times) on /dev/vneuronN or on the host
 * backend, inputs from .npy files or zeros, outputs summarised and saved as .npy.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "vnprog.h"
#include "vn_program.h"

static void usage(FILE *f)
{
	fputs(
"NAME\n"
"    vneuron-run - run a .vnef program with inputs from .npy files\n"
"\n"
"SYNOPSIS\n"
"    vneuron-run PROGRAM.vnef [NAME FILE ...] [--save-output DIR] [--num-exec N]\n"
"                [--host] [--device D] [--core C] [-q]\n"
"\n"
"DESCRIPTION\n"
"    Validates PROGRAM.vnef (the same checks the module makes), binds every input\n"
"    and output tensor to a buffer, fills each input from the .npy file given for\n"
"    it or with zeros, runs the program on core C of /dev/vneuronD (or on the host\n"
"    backend with --host) and prints how it ended, its modeled and host time, and\n"
"    for every output its shape, minimum, maximum and mean. Scratch tensors are\n"
"    provided zeroed by the core; constants come from the image.\n"
"\n"
"INPUTS\n"
"    NAME FILE binds the input tensor NAME to FILE, a NumPy .npy file of\n"
"    little-endian float32 ('<f4') in C order with as many elements as the tensor\n"
"    (its shape may differ, e.g. flattened); bf16 tensors get the values rounded to\n"
"    nearest even. The reader is strict: another dtype, Fortran order or a header it\n"
"    cannot parse is an error, not a guess. Inputs not named are zeros.\n"
"    In Python: numpy.save('x.npy', x.astype(numpy.float32)).\n"
"\n"
"OPTIONS\n"
"    --save-output DIR   write every output to DIR/NAME.npy as float32 (bf16\n"
"                        outputs widened); DIR is created if missing. Each file\n"
"                        is checked before the run: never one of the inputs\n"
"                        (the same file under any name), an existing one only\n"
"                        with --force-overwrite; written whole or not at all\n"
"    --force-overwrite   replace existing DIR/NAME.npy files\n"
"    -N, --num-exec N    run N times (default 1); outputs are from the last run\n"
"    --host              run on the host backend: no module needed\n"
"    -d, --device D      /dev/vneuronD (default 0)\n"
"    -c, --core C        core to run on (default 0)\n"
"    -q, --quiet         print only errors\n"
"    -h, --help          this help\n"
"    --version           the versions of the tool, its libraries and the module\n"
"\n"
"EXIT STATUS\n"
"    0 when every execution ended OK; 1 when the program was refused, an\n"
"    execution failed or a file could not be read or written; 2 on bad usage\n"
"    (also: a core the device does not have, an input bound twice, an output\n"
"    file that is an input or exists without --force-overwrite).\n"
"\n"
"EXAMPLES\n"
"    example-exp --variant pipelined --write-vnef exp.vnef -q\n"
"    python3 -c 'import numpy; numpy.save(\"in.npy\", numpy.random.rand(250, 512)"
".astype(\"f4\"))'\n"
"    vneuron-run exp.vnef in in.npy --save-output out/\n", f);
}

struct binding {
	const struct vnef_tensor *t;
	const char *name;
	const char *file;
	void *data;
	struct nd_mem *mem;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t elems(const struct vnef_tensor *t)
{
	uint64_t n = 1;
	unsigned int i;

	for (i = 0; i < t->rank; i++)
		n *= t->shape[i];
	return n;
}

static void shape_str(const struct vnef_tensor *t, char *buf, size_t size)
{
	size_t n = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < t->rank && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%llu", i ? " x " : "",
				      (unsigned long long)t->shape[i]);
}

static float elem(const struct binding *b, uint64_t i)
{
	if (b->t->dtype == VNEF_DT_BF16)
		return nd_bf16_to_fp32(((const uint16_t *)b->data)[i]);
	return ((const float *)b->data)[i];
}

static int fill_input(struct binding *b)
{
	struct nd_error err = { 0 };
	struct nd_npy npy;
	const float *src;
	void *file;
	uint64_t i, n = elems(b->t);

	if (nd_npy_load(b->file, &npy, &file, &err)) {
		fprintf(stderr, "vneuron-run: %s\n", err.msg);
		return -1;
	}
	if (npy.count != n) {
		fprintf(stderr, "vneuron-run: %s: %llu elements, input '%s' has %llu\n", b->file,
			(unsigned long long)npy.count, b->name, (unsigned long long)n);
		free(file);
		return -1;
	}
	src = (const float *)((const char *)file + npy.data_off);
	for (i = 0; i < n; i++) {
		float v;

		memcpy(&v, src + i, 4);
		if (b->t->dtype == VNEF_DT_BF16)
			((uint16_t *)b->data)[i] = nd_fp32_to_bf16(v);
		else
			((float *)b->data)[i] = v;
	}
	free(file);
	return 0;
}

static int save_output(const char *dir, const struct binding *b)
{
	struct nd_error err = { 0 };
	uint64_t i, n = elems(b->t), shape[VNEF_MAX_RANK];
	char path[4096];
	float *f;
	int ret;

	for (i = 0; i < b->t->rank; i++)
		shape[i] = b->t->shape[i];

	f = malloc(n * 4 + 4);
	if (!f)
		return -1;
	for (i = 0; i < n; i++)
		f[i] = elem(b, i);
	snprintf(path, sizeof(path), "%s/%s.npy", dir, b->name);
	ret = nd_npy_save(path, shape, b->t->rank, f, &err);
	free(f);
	if (ret) {
		fprintf(stderr, "vneuron-run: %s\n", err.msg);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *prog = NULL, *save = NULL, *pairs[2 * 64];
	unsigned int npairs = 0, dev_index = 0, core = 0, nexec = 1, nb = 0, i, j, e;
	int host = 0, quiet = 0, force = 0, ret = 1;
	struct binding b[VNEF_MAX_TENSORS];
	struct nd_run_result res = { 0 };
	struct nd_error err = { 0 };
	struct vn_prog_error pe = { 0 };
	struct vn_program *vp = NULL;
	struct nd_device *dev = NULL;
	struct nd_program *p = NULL;
	struct nd_host *h = NULL;
	size_t size;
	void *img = NULL;
	double t0, t1;

	for (i = 1; i < (unsigned int)argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < (unsigned int)argc ? argv[i + 1] : NULL;
		unsigned int *num = NULL;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--version")) {
			return nd_tool_version(stdout, "vneuron-run") ? 1 : 0;
		} else if (!strcmp(a, "--host")) {
			host = 1;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			quiet = 1;
		} else if (!strcmp(a, "--force-overwrite")) {
			force = 1;
		} else if (!strcmp(a, "--save-output")) {
			if (!v) {
				fprintf(stderr, "vneuron-run: --save-output needs a directory\n");
				return 2;
			}
			save = v;
			i++;
		} else if (!strcmp(a, "-N") || !strcmp(a, "--num-exec")) {
			num = &nexec;
		} else if (!strcmp(a, "-d") || !strcmp(a, "--device")) {
			num = &dev_index;
		} else if (!strcmp(a, "-c") || !strcmp(a, "--core")) {
			num = &core;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "vneuron-run: unknown option '%s' (see --help)\n", a);
			return 2;
		} else if (!prog) {
			prog = a;
		} else {
			if (!v || npairs >= sizeof(pairs) / sizeof(pairs[0])) {
				fprintf(stderr, "vneuron-run: '%s' needs a file: NAME FILE pairs\n",
					a);
				return 2;
			}
			pairs[npairs++] = a;
			pairs[npairs++] = v;
			i++;
		}
		if (num) {
			char *end;
			unsigned long x = v ? strtoul(v, &end, 10) : 0;

			if (!v || !*v || *end || x > 1000000) {
				fprintf(stderr, "vneuron-run: %s expects a number, got '%s'\n", a,
					v ? v : "");
				return 2;
			}
			if (num == &nexec && !x) {
				fprintf(stderr, "vneuron-run: %s 0: run at least once (1..1000000)\n",
					a);
				return 2;
			}
			*num = (unsigned int)x;
			i++;
		}
	}
	if (!prog) {
		fprintf(stderr, "vneuron-run: no program given (see --help)\n");
		return 2;
	}
	memset(b, 0, sizeof(b));
	if (nd_vnef_read(prog, &img, &size, &err)) {
		fprintf(stderr, "vneuron-run: %s\n", err.msg);
		return 1;
	}
	if (vn_program_load(img, size, &vp, &pe)) {
		fprintf(stderr, "vneuron-run: %s: refused by the validator: %s check: %s\n", prog,
			vn_check_name(pe.check), pe.msg ? pe.msg : "");
		goto out;
	}
	for (i = 0; i < vp->tensor_count; i++) {
		const struct vnef_tensor *t = &vp->tensors[i];

		if (t->kind != VNEF_TENSOR_INPUT && t->kind != VNEF_TENSOR_OUTPUT)
			continue;
		b[nb].t = t;
		b[nb].name = vn_program_str(vp, t->name_off);
		b[nb].data = calloc(1, t->size ? t->size : 1);
		if (!b[nb++].data)
			goto out;
	}
	for (j = 0; j < npairs; j += 2) {
		for (i = 0; i < nb; i++)
			if (!strcmp(b[i].name, pairs[j]))
				break;
		if (i == nb || b[i].t->kind != VNEF_TENSOR_INPUT) {
			fprintf(stderr, "vneuron-run: %s has no input '%s'; its inputs:", prog,
				pairs[j]);
			for (i = 0; i < nb; i++)
				if (b[i].t->kind == VNEF_TENSOR_INPUT)
					fprintf(stderr, " %s", b[i].name);
			fprintf(stderr, "\n");
			goto out;
		}
		if (b[i].file) {
			fprintf(stderr, "vneuron-run: input '%s' is bound twice (%s, then %s)\n",
				pairs[j], b[i].file, pairs[j + 1]);
			ret = 2;
			goto out;
		}
		b[i].file = pairs[j + 1];
		if (fill_input(&b[i]))
			goto out;
	}
	/* every output file is checked before anything runs */
	for (i = 0; save && i < nb; i++) {
		const char *in[1 + 64];
		char path[4096], msg[8400];

		if (b[i].t->kind != VNEF_TENSOR_OUTPUT)
			continue;
		in[0] = prog;
		for (j = 1; j < npairs; j += 2)
			in[1 + j / 2] = pairs[j];
		snprintf(path, sizeof(path), "%s/%s.npy", save, b[i].name);
		if (nd_out_check(path, in, 1 + npairs / 2, force ? ND_OUT_FORCE : 0, msg,
				 sizeof(msg))) {
			fprintf(stderr, "vneuron-run: %s\n", msg);
			ret = 2;
			goto out;
		}
	}
	if (host) {
		if (nd_host_open(NULL, &h, &err)) {
			fprintf(stderr, "vneuron-run: host backend: %s\n", err.msg);
			goto out;
		}
	} else {
		struct nd_load_error le;

		struct vneuron_info info;

		if (nd_open(dev_index, &dev, &err)) {
			fprintf(stderr, "vneuron-run: %s (or use --host)\n", err.msg);
			goto out;
		}
		if (!nd_info(dev, &info) && core >= info.core_count) {
			fprintf(stderr, "vneuron-run: --core %u: /dev/vneuron%u has %u cores\n",
				core, dev_index, info.core_count);
			ret = 2;
			goto out;
		}
		for (i = 0; i < nb; i++) {
			if (nd_mem_alloc(dev, b[i].t->size, &b[i].mem) ||
			    (b[i].t->kind == VNEF_TENSOR_INPUT &&
			     nd_mem_write(b[i].mem, 0, b[i].data, b[i].t->size)))
				goto dev_err;
		}
		if (nd_program_load(dev, img, size, &p, &le))
			goto dev_err;
	}
	t0 = now();
	for (e = 0; e < nexec; e++) {
		if (host) {
			struct nd_host_tensor ht[VNEF_MAX_TENSORS];

			for (i = 0; i < nb; i++)
				ht[i] = (struct nd_host_tensor){ b[i].name, b[i].data, b[i].t->size };
			if (nd_host_run(h, img, size, ht, nb, 0, &res)) {
				fprintf(stderr, "vneuron-run: execution %u: %s\n", e + 1,
					nd_host_error(h));
				goto out;
			}
		} else {
			struct nd_bind bind[VNEF_MAX_TENSORS];

			for (i = 0; i < nb; i++)
				bind[i] = (struct nd_bind){ b[i].name, b[i].mem };
			if (nd_run(p, core, bind, nb, 0, &res))
				goto dev_err;
		}
	}
	t1 = now();
	if (!host)
		for (i = 0; i < nb; i++)
			if (b[i].t->kind == VNEF_TENSOR_OUTPUT &&
			    nd_mem_read(b[i].mem, 0, b[i].data, b[i].t->size))
				goto dev_err;
	if (!quiet) {
		printf("%s on %s", prog, host ? "the host backend" : "");
		if (!host)
			printf("/dev/vneuron%u core %u", dev_index, core);
		printf(": %u execution%s OK, modeled %.3f us each, host %.3f ms each\n", nexec,
		       nexec == 1 ? "" : "s", (double)res.model_ps * 1e-6,
		       (t1 - t0) * 1e3 / nexec);
		for (i = 0; i < nb; i++) {
			uint64_t k, n = elems(b[i].t);
			double mn = INFINITY, mx = -INFINITY, sum = 0;
			char sh[96];

			shape_str(b[i].t, sh, sizeof(sh));
			if (b[i].t->kind == VNEF_TENSOR_INPUT) {
				printf("  in  %-12s [%s] %s: %s\n", b[i].name, sh,
				       b[i].t->dtype == VNEF_DT_BF16 ? "bf16" : "fp32",
				       b[i].file ? b[i].file : "zeros");
				continue;
			}
			for (k = 0; k < n; k++) {
				double v = elem(&b[i], k);

				mn = v < mn ? v : mn;
				mx = v > mx ? v : mx;
				sum += v;
			}
			printf("  out %-12s [%s] %s: min %g max %g mean %g\n", b[i].name, sh,
			       b[i].t->dtype == VNEF_DT_BF16 ? "bf16" : "fp32", mn, mx,
			       n ? sum / (double)n : 0.0);
		}
	}
	if (save) {
		if (mkdir(save, 0777) && errno != EEXIST) {
			fprintf(stderr, "vneuron-run: %s: %s\n", save, strerror(errno));
			goto out;
		}
		for (i = 0; i < nb; i++)
			if (b[i].t->kind == VNEF_TENSOR_OUTPUT && save_output(save, &b[i]))
				goto out;
		if (!quiet)
			printf("outputs saved in %s/\n", save);
	}
	ret = 0;
	goto out;
dev_err:
	fprintf(stderr, "vneuron-run: %s\n", nd_device_error(dev));
out:
	if (p)
		nd_program_unload(p);
	nd_close(dev);
	nd_host_close(h);
	for (i = 0; i < nb; i++)
		free(b[i].data);
	if (vp)
		vn_program_put(vp);
	free(img);
	return ret;
}
