// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * `vneuron-profile view`: reads a program and a profile, computes the metrics and the
 * analysis and writes one output: a summary, the full event list, a Perfetto trace or the
 * web viewer, in a file or served over HTTP (docs/profiler.md).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin.h"
#include "metrics.h"
#include "profile.h"
#include "summary.h"
#include "vnprog.h"
#include "vntf.h"
#include "web.h"

/* The manual page's body, after its synopsis and commands (main.c). */
const char vnp_view_manual[] =
"\n"
"DESCRIPTION\n"
"    view joins the trace records of a profile with the program that produced them\n"
"    (its debug table gives every instruction a source line and a scope), computes\n"
"    the metrics of docs/metrics.md, classifies the execution and each scope by\n"
"    the resource that bounds it and prints advice backed by the evidence it found.\n"
"\n"
"    The profile records the SHA-256 of the program it was captured with; view\n"
"    refuses a program with another hash. Records lost during capture are counted\n"
"    and reported: the figures then cover only what was kept.\n"
"\n"
"OPTIONS (view)\n"
"    -n, --program FILE      the .vnef program (required)\n"
"    -s, --session FILE      the .vntf profile (required); repeat it to view the\n"
"                            profiles of several workers or nodes as one (a tab\n"
"                            per worker and core, collectives aligned); with\n"
"                            node sections (capture --node) they must be one\n"
"                            run: same program, node count and world size, no\n"
"                            rank twice; tabs \"node N worker W core C\", per-node\n"
"                            figures and inter/intra-node communication. A\n"
"                            directory stands for its *.vntf files. More than 16\n"
"                            workers in all: only the node summary, from one\n"
"                            streaming pass (summary-text; docs/scaling.md)\n"
"    -f, --output-format F   summary-text (default): a summary that fits a terminal;\n"
"                            summary-json: every metric, per scope and per line,\n"
"                              the DMA series and the advice, as one JSON object;\n"
"                            json: the summary-json object plus every instruction\n"
"                              and DMA descriptor with timestamps, engine, opcode,\n"
"                              operands and source location;\n"
"                            perfetto: a .pftrace protobuf for ui.perfetto.dev\n"
"                              (a track per engine, TensorE split into\n"
"                              LoadStationary and MultiplyMoving, a track per DMA\n"
"                              queue, DMA throughput and pending counters);\n"
"                            html: the web viewer as one self-contained page\n"
"                              (docs/profiler.md, \"The web viewer\").\n"
"    -o, --output-file FILE  write there instead of standard output (perfetto and\n"
"                            html are never written to a terminal: give -o or\n"
"                            redirect). FILE is written whole or not at all\n"
"                            (a temporary file renamed into place), is never one\n"
"                            of the inputs, and an existing FILE is refused\n"
"                            unless --force-overwrite\n"
"    --force-overwrite       replace an existing output file\n"
"    --salvage               read a profile cut short (a crash, a full disk):\n"
"                            every complete record, with a report of what could\n"
"                            not be read; without it such a profile is refused\n"
"    -m, --model-flops N     the model's useful flops per execution, for mfu\n"
"    -b, --bins N            bins of the DMA throughput and pending series (200)\n"
"    -t, --top N             rows of the scope and line tables (10)\n"
"    -q, --no-hash-check     accept a program whose hash differs (not advised)\n"
"    --serve                 serve the web viewer over HTTP until Ctrl-C\n"
"    --port N                its port (3001; 0: any free port)\n"
"    --bind ADDR             its address: numeric, or localhost (127.0.0.1, the\n"
"                            default: this machine only)\n"
"\n"
"ANALYSIS\n"
"    The execution and each scope (per execution, then summed) are classified by\n"
"    the saturated resource: compute-bound naming the engine, memory-bound (HBM),\n"
"    DMA-queue-bound (too few queues for HBM), overhead-bound naming the engine or\n"
"    queue whose fixed per-entry costs dominate, or latency-bound (nothing over\n"
"    half busy: dependencies and gaps), or communication-bound (collective\n"
"    transfers over half the critical path). The critical path of each execution is\n"
"    followed through semaphore waits; findings are ranked by the time their fix\n"
"    saves on it, and mechanical fixes are replayed on the device model\n"
"    (\"37.364 us -> 5.414 us, replayed\"). Rules:\n"
"      dma-queue-bound     queues busy, HBM not: spread over more (replayed)\n"
"      small-dma           descriptors' fixed costs dominate: merge (replayed)\n"
"      instruction-overhead  tiny instructions: batch them (replayed)\n"
"      engines-no-overlap  engines in use never run at the same time\n"
"      dma-no-overlap      DMA never overlaps compute (data loaded before compute)\n"
"      repeated-load       HBM bytes read more than twice: load once (replayed)\n"
"      tensor-idle         TensorE idle over 25% of the time while others work\n"
"      transpose-flops     transposes (and their PSUM copies) over 10% of flops\n"
"      semaphore-wait      waits not explained by the bound unit, with their root\n"
"      straggler-rank      one rank arrives last and the others wait for it\n"
"      collective-no-overlap  collectives' transfers never overlap compute\n"
"      small-collectives   many small collectives paying link latency: fuse them\n"
"      all-reduce-split    an all-reduce whose result is read only over 1/n:\n"
"                          a reduce-scatter (+ all-gather later) would do\n"
"      straggler-node      one node's ranks arrive last at inter-node\n"
"                          collectives and the other nodes wait for them\n"
"      inter-node-bound    collectives whose group crosses nodes hold most of\n"
"                          the communication time\n"
"\n"
"CAPTURE\n"
"    capture runs a program (or an application) with tracing on and writes a\n"
"    profile: see vneuron-profile capture --help.\n"
"\n"
"EXIT STATUS\n"
"    0 success; 1 bad input (unreadable, malformed, truncated or unknown-version\n"
"    profile, invalid program, program and profile that do not belong together);\n"
"    2 usage error (also: the output file is an input, exists without\n"
"    --force-overwrite, or is a terminal for perfetto or html); 3 out of memory,\n"
"    an output file that cannot be created, or a write error.\n"
"\n"
"EXAMPLES\n"
"    vneuron-profile view -n mlp.vnef -s mlp.vntf\n"
"    vneuron-profile view -n mlp.vnef -s mlp.vntf -f perfetto -o mlp.pftrace\n"
"\n"
"SEE ALSO\n"
"    docs/profiler.md, docs/metrics.md, docs/profile-format.md\n";

static const struct format {
	const char *name;
	/* NULL for html, which also needs the tabs' labels */
	int (*write)(FILE *f, const struct vnp_view *v);
	int binary;	/* never written to a terminal */
} formats[] = {
	{ "summary-text", vnp_summary_text, 0 },
	{ "summary-json", vnp_summary_json, 0 },
	{ "json", vnp_json_events, 0 },
	{ "perfetto", vnp_perfetto, 1 },
	{ "html", NULL, 1 },
};

#define NR_FORMATS	(sizeof(formats) / sizeof(formats[0]))

/* -s files (a directory counts its .vntf files); the timeline holds VNP_MAX_CORES workers */
#define VIEW_MAX_PROFILES	4096

struct view_opts {
	const char *program, *profile, *out;
	const char *profiles[VIEW_MAX_PROFILES];	/* every -s: one per worker or node */
	unsigned int nprofiles;
	char *owned[VIEW_MAX_PROFILES];		/* the paths found in directories */
	unsigned int nowned;
	const struct format *fmt;
	uint64_t model_flops;
	unsigned int bins, top;
	int no_hash, help, force, salvage;
	/* web viewer: --serve [--port N] [--bind ADDR] */
	int serve, net_opts;
	unsigned int port;
	const char *bind;
};

/* What view computes from the program and the profile. */
struct view_data {
	int streamed;			/* too many workers: node figures only (scan) */
	char too_big[512];		/* what the timeline said of them */
	struct vnp_prog prog;
	struct vnp_profile pf;
	struct vnp_metrics m;
	struct vnp_analysis a;
	struct vnp_view v;
};

static int parse_format(const char *s, struct view_opts *o)
{
	char names[96] = "";
	size_t i;

	for (i = 0; i < NR_FORMATS; i++) {
		if (!strcmp(s, formats[i].name)) {
			o->fmt = &formats[i];
			return 0;
		}
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			 i ? ", " : "", formats[i].name);
	}
	fprintf(stderr, "vneuron-profile: unknown output format '%s' (%s)\n", s, names);
	return -EINVAL;
}

/* 0 (o->help: print the manual and stop), or -EINVAL with the reason printed. */
static int parse_opts(int argc, char **argv, struct view_opts *o)
{
	static const struct option lo[] = {
		{ "program", required_argument, NULL, 'n' },
		{ "session", required_argument, NULL, 's' },
		{ "output-format", required_argument, NULL, 'f' },
		{ "output-file", required_argument, NULL, 'o' },
		{ "model-flops", required_argument, NULL, 'm' },
		{ "bins", required_argument, NULL, 'b' },
		{ "top", required_argument, NULL, 't' },
		{ "no-hash-check", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "serve", no_argument, NULL, 'S' },
		{ "port", required_argument, NULL, 'P' },
		{ "bind", required_argument, NULL, 'B' },
		{ "force-overwrite", no_argument, NULL, 'F' },
		{ "salvage", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *bad = NULL;
	uint64_t x = 0;
	int ch;

	*o = (struct view_opts){ .fmt = &formats[0], .top = 10, .port = 3001,
				 .bind = "127.0.0.1" };
	optind = 1;
	while ((ch = getopt_long(argc, argv, "n:s:f:o:m:b:t:qh", lo, NULL)) != -1) {
		switch (ch) {
		case 'n':
			o->program = optarg;
			break;
		case 's':
			if (o->nprofiles == VIEW_MAX_PROFILES) {
				bad = "at most 4096 profiles (-s) at once";
				break;
			}
			o->profile = optarg;
			o->profiles[o->nprofiles++] = optarg;
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'f':
			if (parse_format(optarg, o))
				return -EINVAL;
			break;
		case 'm':
			if (vnp_parse_uint(optarg, UINT64_MAX, 0, &o->model_flops))
				bad = "--model-flops needs a number";
			break;
		case 'b':
			if (vnp_parse_uint(optarg, 1000000, 0, &x) || !x)
				bad = "--bins needs 1..1000000";
			o->bins = (unsigned int)x;
			break;
		case 't':
			if (vnp_parse_uint(optarg, 100000, 0, &x))
				bad = "--top needs 0..100000";
			o->top = (unsigned int)x;
			break;
		case 'q':
			o->no_hash = 1;
			break;
		case 'S':
			o->serve = 1;
			break;
		case 'F':
			o->force = 1;
			break;
		case 'V':
			o->salvage = 1;
			break;
		case 'P':
			if (vnp_parse_uint(optarg, 65535, 0, &x))
				bad = "--port needs 0..65535";
			o->port = (unsigned int)x;
			o->net_opts = 1;
			break;
		case 'B':
			o->bind = optarg;
			o->net_opts = 1;
			break;
		case 'h':
			o->help = 1;
			return 0;
		default:
			fprintf(stderr, "Try 'vneuron-profile --help'.\n");
			return -EINVAL;
		}
		if (bad) {
			fprintf(stderr, "vneuron-profile: %s\n", bad);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "vneuron-profile: unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
	if (!o->program || !o->profile)
		bad = "view needs -n PROGRAM.vnef and -s PROFILE.vntf\n"
		      "Try 'vneuron-profile --help'.";
	else if (o->net_opts && !o->serve)
		bad = "--port and --bind go with --serve";
	else if (o->serve && o->out)
		bad = "--serve writes no file; for one use --output-format html -o FILE";
	else if (!o->serve && o->fmt->binary && (!o->out || !strcmp(o->out, "-")) &&
		 isatty(STDOUT_FILENO))
		bad = o->fmt->write ? "a Perfetto trace is binary: not written to a terminal; "
		      "give -o FILE.pftrace or redirect standard output" :
		      "the web viewer is a whole page: not written to a terminal; give -o "
		      "FILE.html, redirect standard output or use --serve";
	if (bad) {
		fprintf(stderr, "vneuron-profile: %s\n", bad);
		return -EINVAL;
	}
	return 0;
}

static int is_vntf(const struct dirent *e)
{
	size_t n = strlen(e->d_name);

	return n > 5 && !strcmp(e->d_name + n - 5, ".vntf");
}

/*
 * A -s that is a directory stands for its *.vntf files, in name order (a run's profiles
 * gathered in one place). 0, or -errno with the reason said.
 */
static int expand_dirs(struct view_opts *o)
{
	const char *in[VIEW_MAX_PROFILES];
	unsigned int n = o->nprofiles, i, k;
	struct dirent **list;
	struct stat st;
	int m, j;

	memcpy(in, o->profiles, n * sizeof(*in));
	o->nprofiles = 0;
	for (i = 0; i < n; i++) {
		if (stat(in[i], &st) || !S_ISDIR(st.st_mode)) {
			if (o->nprofiles == VIEW_MAX_PROFILES)
				goto too_many;
			o->profiles[o->nprofiles++] = in[i];
			continue;
		}
		m = scandir(in[i], &list, is_vntf, alphasort);
		if (m < 0) {
			fprintf(stderr, "vneuron-profile: %s: %s\n", in[i], strerror(errno));
			return -errno;
		}
		if (!m)
			fprintf(stderr, "vneuron-profile: %s: no .vntf file in it\n", in[i]);
		for (j = 0, k = 0; j < m; j++) {
			char *p = NULL;

			if (o->nprofiles < VIEW_MAX_PROFILES && asprintf(&p, "%s/%s", in[i],
								       list[j]->d_name) > 0) {
				o->owned[o->nowned++] = p;
				o->profiles[o->nprofiles++] = p;
			} else {
				k = 1;
			}
			free(list[j]);
		}
		free(list);
		if (k)
			goto too_many;
		if (!m)
			return -ENOENT;
	}
	o->profile = o->nprofiles ? o->profiles[0] : o->profile;
	return 0;
too_many:
	fprintf(stderr, "vneuron-profile: more than %d profiles (or out of memory)\n",
		VIEW_MAX_PROFILES);
	return -E2BIG;
}

static void free_owned(struct view_opts *o)
{
	while (o->nowned)
		free(o->owned[--o->nowned]);
}

/* Whether path starts with magic (n bytes). */
static int has_magic(const char *path, const void *magic, size_t n)
{
	char buf[8];
	FILE *f = fopen(path, "rb");
	int yes;

	if (!f)
		return 0;
	yes = n <= sizeof(buf) && fread(buf, 1, n, f) == n && !memcmp(buf, magic, n);
	fclose(f);
	return yes;
}

/* -n and -s swapped (or a profile given as the program): say so. */
static void swap_hint(const struct view_opts *o)
{
	const uint32_t vnef = VNEF_MAGIC;
	unsigned int i;

	if (has_magic(o->program, VNTF_MAGIC, 8)) {
		fprintf(stderr, "vneuron-profile: %s is a profile (.vntf): -n takes the program "
			"(.vnef), -s the profile\n", o->program);
		return;
	}
	for (i = 0; i < o->nprofiles; i++)
		if (has_magic(o->profiles[i], &vnef, 4)) {
			fprintf(stderr, "vneuron-profile: %s is a program (.vnef): -s takes the "
				"profile (.vntf), -n the program\n", o->profiles[i]);
			return;
		}
}

/* Reads the program and the profile and analyzes them. 0, or -errno (said). */
static int view_load(struct view_data *d, const struct view_opts *o)
{
	char err[512];
	int ret;

	memset(d, 0, sizeof(*d));
	ret = vnp_prog_open(&d->prog, o->program, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "vneuron-profile: %s: %s\n", o->program, err);
		swap_hint(o);
		return ret;
	}
	ret = o->nprofiles > VNP_MAX_CORES ? -E2BIG :
	      vnp_profile_read_opts(&d->pf, o->profiles, o->nprofiles, &d->prog, o->program,
				    !o->no_hash, o->salvage, err, sizeof(err));
	if (ret == -E2BIG) {
		/* more workers than the timeline holds: a multi-node run's node figures */
		d->streamed = 1;
		if (o->nprofiles <= VNP_MAX_CORES)
			snprintf(d->too_big, sizeof(d->too_big), "%s", err);
		return 0;
	}
	if (ret) {
		fprintf(stderr, "vneuron-profile: %s\n", err);
		if (strstr(err, "truncated file"))
			fprintf(stderr, "vneuron-profile: the profile was cut short; --salvage "
				"reads every complete record in it\n");
		else if (strstr(err, "bad magic"))
			swap_hint(o);
		goto free_prog;
	}
	if (d->pf.nr_salvaged)
		fprintf(stderr, "vneuron-profile: %s", d->pf.salvaged);
	if (d->pf.no_identity)
		fprintf(stderr, "vneuron-profile: %s records no program identity; assuming %s "
			"is the program it ran\n", o->nprofiles > 1 ? "a profile" : o->profile,
			o->program);
	d->pf.tl.model_flops = o->model_flops;
	ret = vnp_tl_finish(&d->pf.tl) ?: vnp_metrics_compute(&d->pf.tl, o->bins, &d->m);
	if (ret)
		goto oom;
	ret = vnp_analyze(&d->pf.tl, &d->m, &d->a);
	if (ret) {
		vnp_metrics_free(&d->m);
		goto oom;
	}
	d->v = (struct vnp_view){ .tl = &d->pf.tl, .m = &d->m, .a = &d->a,
				  .program_path = o->program, .profile_path = o->profile,
				  .labels = d->pf.labels, .top = o->top };
	return 0;
oom:
	fprintf(stderr, "vneuron-profile: out of memory\n");
	vnp_profile_free(&d->pf);
free_prog:
	vnp_prog_free(&d->prog);
	return ret;
}

static int open_output(const struct view_opts *o, struct nd_outfile *out);

/*
 * The node summary of a run with more workers than the timeline holds
 * (vnp_nodes_scan(): streaming, docs/scaling.md). Exit status.
 */
static int view_streamed(const struct view_opts *o, struct view_data *d)
{
	struct vnp_nodes *n = calloc(1, sizeof(*n));
	struct nd_outfile out;
	uint64_t core_ps;
	char err[512];
	int ret;

	if (o->serve || o->fmt->write != vnp_summary_text) {
		if (d->too_big[0])
			fprintf(stderr, "vneuron-profile: %s\n", d->too_big);
		fprintf(stderr, "vneuron-profile: the profiles hold more workers than the merged "
			"timeline's %d: only the node summary (--output-format summary-text) "
			"is available for them (docs/scaling.md)\n", VNP_MAX_CORES);
		free(n);
		return VNP_EXIT_USAGE;
	}
	if (!n) {
		fprintf(stderr, "vneuron-profile: out of memory\n");
		return VNP_EXIT_SYSTEM;
	}
	ret = vnp_nodes_scan(o->profiles, o->nprofiles, &d->prog, o->program, !o->no_hash,
			     n, &core_ps, err, sizeof(err));
	if (ret) {
		/* not a multi-node run: the timeline's own refusal says it best */
		fprintf(stderr, "vneuron-profile: %s\n", d->too_big[0] &&
			strstr(err, "has no node section:") ? d->too_big : err);
		free(n);
		return ret == -ENOMEM ? VNP_EXIT_SYSTEM : VNP_EXIT_INPUT;
	}
	ret = open_output(o, &out);
	if (ret) {
		free(n);
		return ret == -EINVAL || ret == -EEXIST ? VNP_EXIT_USAGE : VNP_EXIT_SYSTEM;
	}
	ret = vnp_nodes_summary_text(out.f, n, core_ps, o->program, o->nprofiles);
	if (ret)
		nd_out_abort(&out);
	else
		ret = nd_out_commit(&out);
	free(n);
	if (ret) {
		fprintf(stderr, "vneuron-profile: writing %s: %s\n", o->out ? o->out : "output",
			strerror(-ret));
		return VNP_EXIT_SYSTEM;
	}
	return VNP_EXIT_OK;
}

static void view_free(struct view_data *d)
{
	vnp_analysis_free(&d->a);
	vnp_metrics_free(&d->m);
	vnp_profile_free(&d->pf);
	vnp_prog_free(&d->prog);
}

/*
 * The output (libvnprog's nd_out_open(): never an input, an existing file only with
 * --force-overwrite, a temporary file until complete), or standard output. 0 or -errno
 * (said).
 */
static int open_output(const struct view_opts *o, struct nd_outfile *out)
{
	const char *inputs[VIEW_MAX_PROFILES + 1];
	char msg[PATH_MAX * 2 + 128];
	int ret;

	inputs[0] = o->program;
	memcpy(inputs + 1, o->profiles, o->nprofiles * sizeof(*inputs));
	ret = nd_out_open(out, o->out ?: "-", inputs, o->nprofiles + 1,
			  o->force ? ND_OUT_FORCE : 0, msg, sizeof(msg));
	if (ret)
		fprintf(stderr, "vneuron-profile: %s\n", msg);
	return ret;
}

/* Writes the chosen output and commits it (or removes it). 0 or -errno (said). */
static int write_output(struct nd_outfile *out, const struct view_opts *o,
			const struct view_data *d)
{
	int ret;

	if (o->fmt->write)
		ret = o->fmt->write(out->f, &d->v);
	else
		ret = vnp_web_html(out->f, &d->v, d->pf.labels);
	if (ret)
		nd_out_abort(out);
	else
		ret = nd_out_commit(out);
	if (ret)
		fprintf(stderr, "vneuron-profile: writing %s: %s\n", o->out ? o->out : "output",
			strerror(-ret));
	return ret;
}

int cmd_view(int argc, char **argv)
{
	struct view_opts o;
	struct view_data d;
	struct nd_outfile out;
	int ret, status;

	if (parse_opts(argc, argv, &o))
		return VNP_EXIT_USAGE;
	if (o.help) {
		vnp_usage(stdout);
		return VNP_EXIT_OK;
	}
	ret = expand_dirs(&o);
	if (ret) {
		free_owned(&o);
		return ret == -E2BIG ? VNP_EXIT_USAGE : VNP_EXIT_INPUT;
	}
	/* refuse an output that is an input or exists before the work */
	if (o.out && !o.serve) {
		const char *inputs[VIEW_MAX_PROFILES + 1] = { o.program };
		char msg[PATH_MAX * 2 + 128];

		memcpy(inputs + 1, o.profiles, o.nprofiles * sizeof(*inputs));
		if (nd_out_check(o.out, inputs, o.nprofiles + 1, o.force ? ND_OUT_FORCE : 0,
				 msg, sizeof(msg))) {
			fprintf(stderr, "vneuron-profile: %s\n", msg);
			free_owned(&o);
			return VNP_EXIT_USAGE;
		}
	}
	ret = view_load(&d, &o);
	if (ret) {
		free_owned(&o);
		return ret == -ENOMEM ? VNP_EXIT_SYSTEM : VNP_EXIT_INPUT;
	}
	if (d.streamed) {
		status = view_streamed(&o, &d);
		vnp_prog_free(&d.prog);
		free_owned(&o);
		return status;
	}
	if (o.serve) {
		ret = vnp_web_serve(&d.v, d.pf.labels, o.bind, o.port);
		status = !ret ? VNP_EXIT_OK : ret == -ENOMEM ? VNP_EXIT_SYSTEM : VNP_EXIT_INPUT;
	} else if ((ret = open_output(&o, &out))) {
		status = ret == -EINVAL || ret == -EEXIST ? VNP_EXIT_USAGE : VNP_EXIT_SYSTEM;
	} else {
		status = write_output(&out, &o, &d) ? VNP_EXIT_SYSTEM : VNP_EXIT_OK;
	}
	view_free(&d);
	free_owned(&o);
	return status;
}
