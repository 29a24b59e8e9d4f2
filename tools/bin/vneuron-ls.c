// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vneuron-ls: the vneuron devices of this machine, their cores, memory and usage, and
 * the module and uapi versions (cf. neuron-ls). GET_INFO gives the device and model;
 * sysfs gives the per-core counters and the module's parameters.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "neurondev.h"

#define MAX_DEVICES 16

static void usage(FILE *f)
{
	fputs(
"NAME\n"
"    vneuron-ls - list vneuron devices, cores, memory, usage and versions\n"
"\n"
"SYNOPSIS\n"
"    vneuron-ls [--json] [--model] [--device D]\n"
"\n"
"DESCRIPTION\n"
"    Opens every /dev/vneuronN (or only /dev/vneuronD), asks it for its information\n"
"    (VNEURON_IOCTL_GET_INFO) and prints one table row per device: cores, HBM\n"
"    backed and in use, the device model (trn1, trn2 or trn3: the module\n"
"    parameter model) and its capabilities. Below it, per core,\n"
"    the process that owns it (a core belongs to one open file at a time: the first\n"
"    to run on it; /sys/class/vneuron/vneuronN/coreM/owner_pid) and the counters of\n"
"    /sys/class/vneuron/vneuronN/coreM/stats (executions ok, failed and timed out,\n"
"    device faults, busy time, bytes moved, flops); then what one open file may hold\n"
"    (the per-file limits), the resources every user of the module shares (each\n"
"    one's total, what one user may hold, what is kept for privileged callers, what\n"
"    is held now and what your user holds: docs/security.md), the\n"
"    module (version, srcversion and parameters from /sys/module/vneuron) and the\n"
"    uapi versions of the module and of this tool.\n"
"    --model adds the device model's figures (engines, clocks, SBUF, PSUM, DMA, HBM\n"
"    bandwidth, peak FLOP/s). Opening a device read-only is enough: the tool changes\n"
"    nothing.\n"
"\n"
"    Without the module loaded it says so and exits 1: load it with\n"
"    'sudo insmod vneuron.ko' or run inside the guest ('make vm-shell').\n"
"\n"
"OPTIONS\n"
"    --json        one JSON object: {\"devices\": [...], \"module\": {...}}\n"
"    --model       also print the device model's figures\n"
"    --device D    only /dev/vneuronD\n"
"    -h, --help    this help\n"
"    --version     the versions of the tool, libneurondev and the module\n"
"\n"
"EXIT STATUS\n"
"    0 when at least one device was listed, 1 otherwise, 2 on bad usage.\n"
"\n"
"EXAMPLE\n"
"    vneuron-ls\n"
"    vneuron-ls --json | python3 -m json.tool\n", f);
}

static int read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)size, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	n = strlen(buf);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

static unsigned long long stat_of(unsigned int dev, unsigned int core, const char *name,
				  const char *field)
{
	char path[160], v[64];

	snprintf(path, sizeof(path), "/sys/class/vneuron/vneuron%u/core%u/stats/%s/%s", dev,
		 core, name, field);
	if (read_line(path, v, sizeof(v)))
		return 0;
	return strtoull(v, NULL, 10);
}

static const char *const stat_names[] = {
	"executions_ok", "executions_failed", "executions_timed_out", "device_faults",
	"busy_time_ns", "bytes_moved", "flops",
};

/* The pid owning a core (0: none), from sysfs. */
static long owner_of(unsigned int dev, unsigned int core)
{
	char path[128], v[32];

	snprintf(path, sizeof(path), "/sys/class/vneuron/vneuron%u/core%u/owner_pid", dev, core);
	if (read_line(path, v, sizeof(v)))
		return 0;
	return strtol(v, NULL, 10);
}

static void caps_str(uint64_t caps, char *buf, size_t size)
{
	static const char *const names[] = {
		"mem", "exec", "trace", "uring_cmd", "bf16", "fault", "limits", "ownership",
		"collectives", "netq", "netq_ring", "shares"
	};
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (caps & (1ull << i))
			n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s%s",
					      n ? "," : "", names[i]);
}

/*
 * The next line of a comma-separated list that fits in width columns: its length (up to
 * and with the comma it breaks after; a name longer than width is cut), *rest the line
 * after it.
 */
static size_t caps_line(const char *s, size_t width, const char **rest)
{
	size_t n = strlen(s), cut = 0, i;

	if (n <= width) {
		*rest = s + n;
		return n;
	}
	for (i = 0; i < width; i++)
		if (s[i] == ',')
			cut = i + 1;
	if (!cut)
		cut = width;
	*rest = s + cut;
	return cut;
}

/* enum vneuron_share_kind's names, in JSON and in the listing. */
static const char *const share_names[VNEURON_SHARE_COUNT] = {
	[VNEURON_SHARE_COMMS] = "comms",
	[VNEURON_SHARE_SUBSCRIBERS] = "subscribers",
	[VNEURON_SHARE_TRACES] = "traces",
	[VNEURON_SHARE_NETQ_RINGS] = "netq_rings",
	[VNEURON_SHARE_EXECS] = "execs",
	[VNEURON_SHARE_CORES] = "cores",
	[VNEURON_SHARE_HBM] = "hbm_pages",
};

static const char *const share_what[VNEURON_SHARE_COUNT] = {
	[VNEURON_SHARE_COMMS] = "communicators",
	[VNEURON_SHARE_SUBSCRIBERS] = "telemetry subscriptions",
	[VNEURON_SHARE_TRACES] = "trace sessions",
	[VNEURON_SHARE_NETQ_RINGS] = "network queue rings",
	[VNEURON_SHARE_EXECS] = "executions",
	[VNEURON_SHARE_CORES] = "cores",
	[VNEURON_SHARE_HBM] = "HBM pages (this device)",
};

static double mib(uint64_t b)
{
	return (double)b / (1024.0 * 1024.0);
}

int main(int argc, char **argv)
{
	struct vneuron_info info[MAX_DEVICES];
	unsigned int idx[MAX_DEVICES], n = 0, d, c, s, first = 0, last = MAX_DEVICES - 1;
	int json = 0, model = 0, i, only = 0;
	char caps[128], srcv[64] = "", modver[32] = "", param[64];
	static const char *const params[] = {
		"model", "devices", "cores", "hbm_mb", "max_programs", "max_program_mb", "max_execs",
		"max_exec_mb", "max_trace_mb", "comms_total", "comms_per_user",
		"comms_reserved", "subscribers_per_user", "subscribers_reserved",
		"traces_per_user", "netq_rings_total", "netq_rings_per_user",
		"netq_rings_reserved", "execs_total", "execs_per_user", "execs_reserved",
		"cores_per_user", "cores_reserved", "hbm_per_user_pct", "hbm_reserved_pct",
	};
	const unsigned int nparams = sizeof(params) / sizeof(params[0]);

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = 1;
		} else if (!strcmp(argv[i], "--model")) {
			model = 1;
		} else if (!strcmp(argv[i], "--device") && i + 1 < argc) {
			char *end;
			unsigned long v = strtoul(argv[++i], &end, 10);

			if (*end || v >= MAX_DEVICES) {
				fprintf(stderr, "vneuron-ls: --device expects 0..%d\n",
					MAX_DEVICES - 1);
				return 2;
			}
			first = last = (unsigned int)v;
			only = 1;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[i], "--version")) {
			char v[512];

			nd_version_string(v, sizeof(v), "vneuron-ls", NULL);
			return fputs(v, stdout) == EOF ? 1 : 0;
		} else {
			fprintf(stderr, "vneuron-ls: unknown argument '%s' (see --help)\n", argv[i]);
			return 2;
		}
	}
	for (d = first; d <= last; d++) {
		struct nd_device *dev;
		struct nd_error err = { 0 };

		if (nd_open(d, &dev, &err)) {
			if (err.code != -ENOENT || only)
				fprintf(stderr, "vneuron-ls: %s\n", err.msg);
			continue;
		}
		if (!nd_info(dev, &info[n]))
			idx[n++] = d;
		else
			fprintf(stderr, "vneuron-ls: %s\n", nd_device_error(dev));
		nd_close(dev);
	}
	read_line("/sys/module/vneuron/srcversion", srcv, sizeof(srcv));
	read_line("/sys/module/vneuron/version", modver, sizeof(modver));
	if (json) {
		printf("{\"tool_uapi_version\": %d, \"module\": {\"loaded\": %s, "
		       "\"version\": \"%s\", \"srcversion\": \"%s\"", VNEURON_UAPI_VERSION,
		       access("/sys/module/vneuron", 0) ? "false" : "true", modver, srcv);
		for (s = 0; s < nparams; s++) {
			char path[96];

			snprintf(path, sizeof(path), "/sys/module/vneuron/parameters/%s",
				 params[s]);
			/* model is the one string; its value is one of the model names */
			if (!read_line(path, param, sizeof(param)))
				printf(s ? ", \"%s\": %s" : ", \"%s\": \"%s\"", params[s],
				       param);
		}
		printf("}, \"devices\": [");
		for (d = 0; d < n; d++) {
			const struct vneuron_info *x = &info[d];

			caps_str(x->caps, caps, sizeof(caps));
			printf("%s{\"device\": \"/dev/vneuron%u\", \"index\": %u, "
			       "\"uapi_version\": %u, \"caps\": \"%s\", \"model\": \"%.16s\", "
			       "\"cores\": %u, \"hbm_bytes\": %llu, \"hbm_used\": %llu, "
			       "\"max_alloc\": %llu, \"peak_flops_bf16\": %llu, "
			       "\"peak_flops_fp32\": %llu, \"hbm_bw\": %llu, \"core_stats\": [",
			       d ? ", " : "", idx[d], x->device_index, x->uapi_version, caps,
			       x->model.name, x->core_count, (unsigned long long)x->hbm_bytes,
			       (unsigned long long)x->hbm_used, (unsigned long long)x->max_alloc,
			       (unsigned long long)x->model.peak_flops_bf16,
			       (unsigned long long)x->model.peak_flops_fp32,
			       (unsigned long long)x->model.hbm_bw);
			if (x->caps & VNEURON_CAP_LIMITS)
				printf("], \"limits\": {\"max_programs\": %u, \"max_execs\": %u, "
				       "\"max_program_bytes\": %llu, \"max_exec_bytes\": %llu, "
				       "\"max_trace_bytes\": %llu}, \"core_stats\": [",
				       x->limits.max_programs, x->limits.max_execs,
				       (unsigned long long)x->limits.max_program_bytes,
				       (unsigned long long)x->limits.max_exec_bytes,
				       (unsigned long long)x->limits.max_trace_bytes);
			if (x->caps & VNEURON_CAP_SHARES) {
				printf("], \"shares\": {");
				for (s = 0; s < VNEURON_SHARE_COUNT; s++) {
					const struct vneuron_share *h = &x->shares[s];

					printf("%s\"%s\": {\"total\": %u, \"per_user\": %u, "
					       "\"reserved\": %u, \"used\": %u, "
					       "\"reserved_used\": %u, \"user_used\": %u}",
					       s ? ", " : "", share_names[s], h->total,
					       h->per_user, h->reserved, h->used,
					       h->reserved_used, h->user_used);
				}
				printf("}, \"core_stats\": [");
			}
			for (c = 0; c < x->core_count; c++) {
				printf("%s{\"core\": %u, \"owner_pid\": %ld", c ? ", " : "", c,
				       owner_of(idx[d], c));
				for (s = 0; s < sizeof(stat_names) / sizeof(stat_names[0]); s++)
					printf(", \"%s\": %llu", stat_names[s],
					       stat_of(idx[d], c, stat_names[s], "total"));
				printf("}");
			}
			printf("]}");
		}
		printf("]}\n");
		return n ? 0 : 1;
	}
	if (!n) {
		fprintf(stderr, "vneuron-ls: no vneuron device found; is vneuron.ko loaded? "
			"(sudo insmod vneuron.ko, or 'make vm-shell' for the guest)\n");
		return 1;
	}
	printf("+----------------+-------+-----------------------+-------+------------------------+\n");
	printf("| DEVICE         | CORES | HBM (used / backed)   | MODEL | CAPABILITIES           |\n");
	printf("+----------------+-------+-----------------------+-------+------------------------+\n");
	for (d = 0; d < n; d++) {
		const char *cp = caps, *rest;
		char mem[32];
		size_t len;

		caps_str(info[d].caps, caps, sizeof(caps));
		snprintf(mem, sizeof(mem), "%.1f / %.0f MiB", mib(info[d].hbm_used),
			 mib(info[d].hbm_bytes));
		/* CAPABILITIES wraps at commas onto lines of its own: the table keeps its width */
		len = caps_line(cp, 22, &rest);
		printf("| /dev/vneuron%-2u | %5u | %-21s | %-5.5s | %-22.*s |\n", idx[d],
		       info[d].core_count, mem, info[d].model.name, (int)len, cp);
		for (cp = rest; *cp; cp = rest) {
			len = caps_line(cp, 22, &rest);
			printf("| %-14s | %5s | %-21s | %-5s | %-22.*s |\n", "", "", "", "",
			       (int)len, cp);
		}
	}
	printf("+----------------+-------+-----------------------+-------+------------------------+\n");
	for (d = 0; d < n; d++) {
		printf("\n/dev/vneuron%u cores:\n", idx[d]);
		printf("  CORE    OWNER  EXEC OK  FAILED  TIMED OUT  FAULTS   BUSY (ms)   MOVED (MiB)"
		       "        GFLOP\n");
		for (c = 0; c < info[d].core_count; c++) {
			long owner = owner_of(idx[d], c);
			char who[16];

			snprintf(who, sizeof(who), owner ? "%ld" : "-", owner);
			printf("  %4u %8s %8llu %7llu %10llu %7llu %11.3f %13.1f %12.3f\n", c, who,
			       stat_of(idx[d], c, "executions_ok", "total"),
			       stat_of(idx[d], c, "executions_failed", "total"),
			       stat_of(idx[d], c, "executions_timed_out", "total"),
			       stat_of(idx[d], c, "device_faults", "total"),
			       (double)stat_of(idx[d], c, "busy_time_ns", "total") * 1e-6,
			       mib(stat_of(idx[d], c, "bytes_moved", "total")),
			       (double)stat_of(idx[d], c, "flops", "total") * 1e-9);
		}
		if (info[d].caps & VNEURON_CAP_LIMITS) {
			const struct vneuron_limits *l = &info[d].limits;

			printf("  per open file: %u programs (%.0f MiB of images), %u executions "
			       "(%.0f MiB of scratch), %.0f MiB of trace rings\n", l->max_programs,
			       mib(l->max_program_bytes), l->max_execs, mib(l->max_exec_bytes),
			       mib(l->max_trace_bytes));
		}
		if (info[d].caps & VNEURON_CAP_SHARES) {
			printf("  shared by every user:    held / total   one user   reserved"
			       "   yours\n");
			for (s = 0; s < VNEURON_SHARE_COUNT; s++) {
				const struct vneuron_share *h = &info[d].shares[s];

				printf("  %-23s %7u / %-7u %8u %10u %7u\n", share_what[s], h->used,
				       h->total, h->per_user, h->reserved, h->user_used);
			}
		}
		if (model) {
			const struct vneuron_model *m = &info[d].model;

			printf("  model %.16s: TensorE %ux%u at %.2f GHz (%.1f TFLOP/s bf16, "
			       "%.1f fp32)\n", m->name, m->tensor_rows, m->tensor_cols,
			       m->tensor_khz * 1e-6, (double)m->peak_flops_bf16 * 1e-12,
			       (double)m->peak_flops_fp32 * 1e-12);
			printf("    VectorE %u lanes at %.2f GHz, ScalarE %u lanes at %.2f GHz, "
			       "GpSimdE %u cores at %.2f GHz\n", m->vector_lanes,
			       m->vector_khz * 1e-6, m->scalar_lanes, m->scalar_khz * 1e-6,
			       m->gpsimd_cores, m->gpsimd_khz * 1e-6);
			printf("    SBUF %u x %u KiB, PSUM %u x %u KiB (banks of %u B), %u DMA "
			       "engines at %.1f GB/s, HBM %.0f GB/s and %.0f GiB modeled per core\n",
			       m->partitions, m->sbuf_partition_bytes >> 10, m->partitions,
			       m->psum_partition_bytes >> 10, m->psum_bank_bytes, m->dma_engines,
			       (double)m->dma_engine_bw * 1e-9, (double)m->hbm_bw * 1e-9,
			       (double)m->hbm_modeled_bytes / (1u << 30));
		}
	}
	printf("\nmodule: vneuron%s%s%s%s", modver[0] ? " " : "", modver,
	       srcv[0] ? " srcversion " : "", srcv);
	for (s = 0; s < nparams; s++) {
		char path[96];

		snprintf(path, sizeof(path), "/sys/module/vneuron/parameters/%s", params[s]);
		if (!read_line(path, param, sizeof(param)))
			printf(", %s=%s", params[s], param);
	}
	printf("\nuapi: module version %u, vneuron-ls built for version %d\n",
	       info[0].uapi_version, VNEURON_UAPI_VERSION);
	return 0;
}
