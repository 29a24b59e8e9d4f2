// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vneuron-run: run a .vnef program once (or N times) on /dev/vneuronN or on the host
 * backend, inputs from .npy files or zeros, outputs summarised and saved as .npy: the
 * command line of libvnprog's runner (vnrun.h), which does all of it.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "vnrun.h"

static void usage(FILE *f)
{
	fputs(
"NAME\n"
"    vneuron-run - run a .vnef program with inputs from .npy files\n"
"\n"
"SYNOPSIS\n"
"    vneuron-run PROGRAM.vnef [NAME FILE ...] [--save-output DIR] [--num-exec N]\n"
"                [--host [--model NAME]] [--lnc N] [--device D] [--core C] [-q]\n"
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
"    --model NAME        the host backend's device model: trn1 (NeuronCore-v2,\n"
"                        the default), trn2 (-v3) or trn3 (-v4); its engine\n"
"                        clocks, SBUF, DMA and HBM figures give the modeled time,\n"
"                        and a program that does not fit it (its SBUF, PSUM or\n"
"                        dtypes) is refused naming the model and the limit\n"
"                        (docs/isa.md, \"Device models\"). Only with --host: a\n"
"                        device has the model its module was loaded with\n"
"                        (insmod vneuron.ko model=NAME)\n"
"    --lnc N             run on a logical core of N physical cores, 1 (the\n"
"                        default) or 2 (LNC=2, trn2 and trn3; trn1 has no\n"
"                        logical cores and is refused): two SPMD instances,\n"
"                        program ids 0 and 1 (PROGRAM_ID, DMA pid_stride), on two\n"
"                        cores sharing the tensors; the modeled time is the later\n"
"                        instance's end (docs/isa.md, \"Logical cores\"). On a\n"
"                        device, --core C is the logical core's first physical\n"
"                        core (even; C and C + 1 run it, EXEC's\n"
"                        VNEURON_EXEC_LNC2); with --host, cores 0 and 1\n"
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

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void shape_str(const struct nd_runner_tensor *t, char *buf, size_t size)
{
	size_t n = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < t->rank && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%llu", i ? " x " : "",
				      (unsigned long long)t->shape[i]);
}

/* The input and output lines of the summary. */
static int summary(struct nd_runner *r, const char *const *pairs, unsigned int npairs)
{
	struct nd_runner_tensor t;
	unsigned int i, j;
	int n = nd_runner_tensor_count(r);

	for (i = 0; n > 0 && i < (unsigned int)n; i++) {
		const char *file = "zeros", *dt;
		double mn = INFINITY, mx = -INFINITY, sum = 0;
		uint64_t k;
		void *data;
		char sh[96];

		if (nd_runner_tensor(r, i, &t))
			return -1;
		dt = t.dtype == VNEF_DT_BF16 ? "bf16" : "fp32";
		shape_str(&t, sh, sizeof(sh));
		if (t.kind == VNEF_TENSOR_INPUT) {
			for (j = 0; j < npairs; j += 2)
				if (!strcmp(pairs[j], t.name))
					file = pairs[j + 1];
			printf("  in  %-12s [%s] %s: %s\n", t.name, sh, dt, file);
			continue;
		}
		if (t.kind != VNEF_TENSOR_OUTPUT)
			continue;
		/* the runner's buffer: on a device its memory, mapped */
		if (nd_runner_data(r, 0, t.name, &data, NULL))
			return -1;
		for (k = 0; k < t.elements; k++) {
			double v = t.dtype == VNEF_DT_BF16 ?
				   nd_bf16_to_fp32(((const uint16_t *)data)[k]) :
				   ((const float *)data)[k];

			mn = v < mn ? v : mn;
			mx = v > mx ? v : mx;
			sum += v;
		}
		printf("  out %-12s [%s] %s: min %g max %g mean %g\n", t.name, sh, dt, mn, mx,
		       t.elements ? sum / (double)t.elements : 0.0);
	}
	return 0;
}

/* Every output to DIR/NAME.npy, the path checked now. 0, or the exit status. */
static int bind_outputs(struct nd_runner *r, const char *dir, int force)
{
	struct nd_runner_tensor t;
	char path[4096];
	int i, n = nd_runner_tensor_count(r);

	for (i = 0; i < n; i++) {
		if (nd_runner_tensor(r, (unsigned int)i, &t) || t.kind != VNEF_TENSOR_OUTPUT)
			continue;
		snprintf(path, sizeof(path), "%s/%s.npy", dir, t.name);
		if (nd_runner_bind_file(r, 0, t.name, path, force ? ND_BIND_FORCE : 0)) {
			fprintf(stderr, "vneuron-run: %s\n", nd_runner_error(r));
			return 2;
		}
	}
	return 0;
}

/*
 * A lone argument after the program ("prog.vnef x.npy": the name left out): the
 * program's inputs, read on the host backend (no device needed), in the message. 2.
 */
static int lone_arg(const char *prog, const char *a)
{
	struct nd_runner_tensor t;
	struct nd_error err = { 0 };
	struct nd_runner *r = NULL;
	const char *first = NULL;
	int n, i;

	fprintf(stderr, "vneuron-run: '%s' needs a NAME: inputs are NAME FILE pairs", a);
	/* only to read its tensors: the widest model refuses no program a device takes */
	if (!nd_runner_open_host(nd_model_widest(), &r, &err) &&
	    !nd_runner_load_file(r, prog, NULL)) {
		n = nd_runner_tensor_count(r);
		fprintf(stderr, "; %s's inputs:", prog);
		for (i = 0; i < n; i++)
			if (!nd_runner_tensor(r, (unsigned int)i, &t) &&
			    t.kind == VNEF_TENSOR_INPUT) {
				fprintf(stderr, " %s", t.name);
				first = first ? first : t.name;
			}
		if (!first)
			fputs(" none", stderr);
		else
			fprintf(stderr, " (e.g. vneuron-run %s %s %s)", prog, first, a);
	}
	fputc('\n', stderr);
	nd_runner_close(r);
	return 2;
}

/* "vneuron-run --host ARGS": the same command on the host backend, when there is no device. */
static void host_form(int argc, char **argv)
{
	int i;

	fputs("  without the module, run it on the host backend: vneuron-run --host", stderr);
	for (i = 1; i < argc; i++)
		fprintf(stderr, " %s", argv[i]);
	fputc('\n', stderr);
}

int main(int argc, char **argv)
{
	const char *prog = NULL, *save = NULL, *pairs[2 * 64], *model_name = NULL, *lone = NULL;
	const struct vneuron_model *model = NULL;
	unsigned int npairs = 0, dev_index = 0, core = 0, nexec = 1, lnc = 1, i, j;
	int host = 0, quiet = 0, force = 0, ret = 1, made = 0;
	struct nd_runner_exec x = { 0 };
	struct nd_error err = { 0 };
	struct nd_runner *r = NULL;
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
		} else if (!strcmp(a, "--model")) {
			if (!v) {
				fprintf(stderr, "vneuron-run: --model needs a name (trn1, trn2, "
					"trn3)\n");
				return 2;
			}
			if (nd_model_lookup(v, &model, &err)) {
				fprintf(stderr, "vneuron-run: --model: %s\n", err.msg);
				return 2;
			}
			model_name = v;
			i++;
		} else if (!strcmp(a, "-N") || !strcmp(a, "--num-exec")) {
			num = &nexec;
		} else if (!strcmp(a, "-d") || !strcmp(a, "--device")) {
			num = &dev_index;
		} else if (!strcmp(a, "-c") || !strcmp(a, "--core")) {
			num = &core;
		} else if (!strcmp(a, "--lnc")) {
			num = &lnc;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "vneuron-run: unknown option '%s' (see --help)\n", a);
			return 2;
		} else if (!prog) {
			prog = a;
		} else {
			if (!v || (v[0] == '-' && v[1])) {
				/* said with the program's inputs once the options are read */
				lone = lone ? lone : a;
				continue;
			}
			if (npairs >= sizeof(pairs) / sizeof(pairs[0])) {
				fprintf(stderr, "vneuron-run: over %zu NAME FILE pairs\n",
					sizeof(pairs) / sizeof(pairs[0]) / 2);
				return 2;
			}
			pairs[npairs++] = a;
			pairs[npairs++] = v;
			i++;
		}
		if (num) {
			char *end;
			unsigned long n = v ? strtoul(v, &end, 10) : 0;

			if (!v || !*v || *end || n > 1000000) {
				fprintf(stderr, "vneuron-run: %s expects a number, got '%s'\n", a,
					v ? v : "");
				return 2;
			}
			if (num == &nexec && !n) {
				fprintf(stderr, "vneuron-run: %s 0: run at least once (1..1000000)\n",
					a);
				return 2;
			}
			*num = (unsigned int)n;
			i++;
		}
	}
	if (!prog) {
		fprintf(stderr, "vneuron-run: no program given (see --help)\n");
		return 2;
	}
	if (model_name && !host) {
		fprintf(stderr, "vneuron-run: --model %s is for --host: a device has the model "
			"its module was loaded with (vneuron-ls shows it)\n", model_name);
		return 2;
	}
	if (lone)
		return lone_arg(prog, lone);
	if (host ? nd_runner_open_host(model, &r, &err) :
		   nd_runner_open_device(dev_index, core, &r, &err)) {
		if (err.code == -ERANGE) {
			fprintf(stderr, "vneuron-run: --%s\n", err.msg);
			return 2;
		}
		fprintf(stderr, "vneuron-run: %s%s\n", host ? "host backend: " : "", err.msg);
		if (!host && (err.code == -ENOENT || err.code == -ENXIO || err.code == -ENODEV))
			host_form(argc, argv);
		return 1;
	}
	if (lnc != 1 && nd_runner_set_lnc(r, lnc)) {
		fprintf(stderr, "vneuron-run: --lnc: %s\n", nd_runner_error(r));
		ret = 2;
		goto out;
	}
	if (nd_runner_load_file(r, prog, NULL))
		goto runner_err;
	/* inputs named by NAME FILE pairs (the shape may differ), the others zeros */
	for (j = 0; j < npairs; j += 2) {
		ret = nd_runner_bind_file(r, 0, pairs[j], pairs[j + 1],
					  ND_BIND_INPUT | ND_BIND_ANY_SHAPE);
		if (ret) {
			ret = ret == -EEXIST ? 2 : 1;
			goto say;
		}
	}
	ret = 1;
	if (nd_runner_bind_zeros(r, 0, NULL))
		goto runner_err;
	/* every output file is checked before anything runs */
	if (save) {
		ret = bind_outputs(r, save, force);
		if (ret)
			goto out;
		ret = 1;
		made = !mkdir(save, 0777);
		if (!made && errno != EEXIST) {
			fprintf(stderr, "vneuron-run: %s: %s\n", save, strerror(errno));
			goto out;
		}
	}
	t0 = now();
	if (nd_runner_run(r, nexec, 0, NULL))
		goto runner_err;
	t1 = now();
	nd_runner_result(r, 0, &x);
	if (!quiet) {
		printf("%s on %s: %u execution%s OK, modeled %.3f us each, host %.3f ms each\n",
		       prog, nd_runner_where(r), nexec, nexec == 1 ? "" : "s",
		       (double)x.res.model_ps * 1e-6, (t1 - t0) * 1e3 / nexec);
		if (summary(r, pairs, npairs))
			goto runner_err;
		if (save)
			printf("outputs saved in %s/\n", save);
	}
	ret = 0;
	goto out;
runner_err:
	ret = 1;
say:
	fprintf(stderr, "vneuron-run: %s\n", nd_runner_error(r));
out:
	nd_runner_close(r);
	/* a failed run leaves no folder it made */
	if (ret && made)
		rmdir(save);
	return ret;
}
