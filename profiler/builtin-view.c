// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * `vneuron-profile view`: reads a program and a profile, computes the metrics and the
 * analysis and writes one output: a summary, the full event list, a Perfetto trace or the
 * web viewer, in a file or served over HTTP (docs/profiler.md).
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtin.h"
#include "metrics.h"
#include "profile.h"
#include "sha256.h"
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
"    refuses a program with another hash. An application's profile (capture --\n"
"    APP) records every program it loaded and which one each execution ran: give\n"
"    them all (-n repeated, or a directory); view matches them by hash and shows\n"
"    each program's executions with that program, and refuses a profile whose\n"
"    programs it does not all have, listing them (name, size, short hash) and\n"
"    marking the missing. Records lost during capture are counted and reported:\n"
"    the figures then cover only what was kept.\n"
"\n"
"    With several executions, the summary gives the min, median and max of each\n"
"    execution's total time and of each engine's active time in it, and marks as\n"
"    OUTLIER an execution with a figure further from the median than both 3 x MAD\n"
"    (median absolute deviation) and a tenth of the median (3 executions or more).\n"
"\n"
"OPTIONS (view)\n"
"    -n, --program FILE      the .vnef program (required); repeat it, or give a\n"
"                            directory (all its *.vnef), for an application\n"
"                            that ran several: each program's executions get\n"
"                            their own summary (json: {\"programs\":[...]});\n"
"                            perfetto and html show one program only (--only)\n"
"    --only PROGRAM          show only the executions of that program: its name,\n"
"                            its path as given, or a prefix (6+ hex digits) of\n"
"                            its sha256 (the refusal message lists them)\n"
"    -s, --session FILE      the .vntf profile (required); repeat it to view the\n"
"                            profiles of several workers or nodes as one (a tab\n"
"                            per worker and core, collectives aligned); with\n"
"                            node sections (capture --node) they must be one\n"
"                            run: same program, node count and world size, no\n"
"                            rank twice; tabs \"node N worker W core C\", per-node\n"
"                            figures and inter/intra-node communication. A\n"
"                            directory stands for its *.vntf files. More than 64\n"
"                            workers in all (the communicator's most), or\n"
"                            profiles whose merged timeline would not fit\n"
"                            --memory-limit: only the node summary of a\n"
"                            multi-node run, from one streaming pass in constant\n"
"                            memory (summary-text; docs/scaling.md)\n"
"    --memory-limit SIZE     the most memory the merged timeline may take (about\n"
"                            52 bytes a record: 0.8 x the profiles' size), in\n"
"                            bytes or with K, M, G (half of this machine's\n"
"                            memory); beyond it view gives the node summary of\n"
"                            a multi-node run, and refuses other profiles\n"
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
"    -q, --no-hash-check     accept a program whose hash differs (not advised;\n"
"                            a profile of one program only)\n"
"    --clock CLOCK           the time axis: model (the default): each core's\n"
"                            executions back to back on the modeled clock, or\n"
"                            host: each execution at the host time its EXEC_START\n"
"                            record gives (CLOCK_MONOTONIC, from the first\n"
"                            execution or API call), its modeled offsets\n"
"                            unscaled; the summary gives the mapping's error and\n"
"                            perfetto adds a process per application process, a\n"
"                            track per thread (its ranges, API calls and marks),\n"
"                            an executions track per core and a flow from each\n"
"                            EXEC call to its execution; html adds host rows the\n"
"                            same way, a range's executions a click away\n"
"                            (docs/profiler.md, \"One clock\", \"Host rows\")\n"
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
"    profile, invalid program, program and profile that do not belong together,\n"
"    a program the profile ran not given); 2 usage error (also: the output file\n"
"    is an input, exists without --force-overwrite, or is a terminal for perfetto\n"
"    or html; several -n for a profile without program identity; perfetto or html\n"
"    of a profile of several programs); 3 out of memory,\n"
"    an output file that cannot be created, or a write error.\n"
"\n"
"EXAMPLES\n"
"    vneuron-profile view -n mlp.vnef -s mlp.vntf\n"
"    vneuron-profile view -n mlp.vnef -s mlp.vntf -f perfetto -o mlp.pftrace\n"
"    vneuron-profile view -n build/kernels/ -s app.vntf     # an application's\n"
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
#define VIEW_MAX_PROGRAMS	VNTF_MAX_PROGRAMS

struct view_opts {
	const char *program, *profile, *out;
	const char *program_args[VIEW_MAX_PROGRAMS];	/* every -n: a file or a directory */
	unsigned int nprogram_args;
	const char *only;		/* --only: the one program to show */
	const char *profiles[VIEW_MAX_PROFILES];	/* every -s: one per worker or node */
	unsigned int nprofiles;
	char *owned[VIEW_MAX_PROFILES];		/* the paths found in directories */
	unsigned int nowned;
	const struct format *fmt;
	uint64_t model_flops;
	uint64_t mem_limit;	/* --memory-limit: bytes, 0 half the machine's memory */
	unsigned int bins, top;
	int no_hash, help, force, salvage;
	int host_clock;		/* --clock host */
	/* web viewer: --serve [--port N] [--bind ADDR] */
	int serve, net_opts;
	unsigned int port;
	const char *bind;
};

/* A program given (-n, or a .vnef of a -n directory), loaded. */
struct view_prog {
	char *path;
	bool from_dir;		/* not named on the command line */
	struct vnp_prog prog;
	uint8_t hash[32];
	size_t size;
};

/* The programs given and what the profiles ran. */
struct view_progs {
	struct view_prog *p;
	unsigned int n;
	struct vnp_ran ran;
	/* the views: one per program the profiles ran (or one for them all) */
	unsigned int ngroups;
	unsigned int group_prog[VIEW_MAX_PROGRAMS];	/* index in p */
	int group_want[VIEW_MAX_PROGRAMS];		/* index in ran.progs, -1: all */
};

/* What view computes from one program and the profile. */
struct view_data {
	char too_big[512];		/* -E2BIG: what the timeline said of the workers */
	const struct vnp_prog *prog;
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
		{ "only", required_argument, NULL, 'O' },
		{ "clock", required_argument, NULL, 'C' },
		{ "memory-limit", required_argument, NULL, 'L' },
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
			if (o->nprogram_args == VIEW_MAX_PROGRAMS) {
				bad = "at most 256 programs (-n) at once";
				break;
			}
			o->program = optarg;
			o->program_args[o->nprogram_args++] = optarg;
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
		case 'O':
			o->only = optarg;
			break;
		case 'C':
			if (!strcmp(optarg, "host") || !strcmp(optarg, "model"))
				o->host_clock = !strcmp(optarg, "host");
			else
				bad = "--clock needs host or model";
			break;
		case 'L':
			if (vnp_parse_uint(optarg, UINT64_MAX, 1, &o->mem_limit) || !o->mem_limit)
				bad = "--memory-limit needs a size: bytes, or a number with K, M or G";
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

static int is_vnef(const struct dirent *e)
{
	size_t n = strlen(e->d_name);

	return n > 5 && !strcmp(e->d_name + n - 5, ".vnef");
}

/* Adds and loads one program file. 0, or -errno (said, unless a directory's: skipped). */
static int add_prog(struct view_progs *vp, const char *path, bool from_dir)
{
	struct view_prog *p;
	const void *image;
	char err[512];
	int ret;

	if (vp->n == VIEW_MAX_PROGRAMS) {
		fprintf(stderr, "vneuron-profile: more than %d programs\n", VIEW_MAX_PROGRAMS);
		return -E2BIG;
	}
	p = &vp->p[vp->n];
	memset(p, 0, sizeof(*p));
	p->path = strdup(path);
	if (!p->path)
		return -ENOMEM;
	p->from_dir = from_dir;
	ret = vnp_prog_open(&p->prog, path, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "vneuron-profile: %s: %s%s\n", path, err,
			from_dir ? " (skipped)" : "");
		free(p->path);
		return from_dir && ret != -ENOMEM ? 0 : ret;
	}
	image = vnp_prog_image(&p->prog, &p->size);
	vnp_sha256(image, p->size, p->hash);
	vp->n++;
	return 0;
}

/* Every -n: a .vnef file, or a directory whose *.vnef files are all taken. 0 or -errno. */
static int load_programs(struct view_progs *vp, const struct view_opts *o)
{
	struct dirent **ents;
	char path[PATH_MAX];
	unsigned int i;
	struct stat st;
	int n, j, ret = 0;

	vp->p = calloc(VIEW_MAX_PROGRAMS, sizeof(*vp->p));
	if (!vp->p)
		return -ENOMEM;
	for (i = 0; i < o->nprogram_args && !ret; i++) {
		if (stat(o->program_args[i], &st) || !S_ISDIR(st.st_mode)) {
			ret = add_prog(vp, o->program_args[i], false);
			continue;
		}
		n = scandir(o->program_args[i], &ents, is_vnef, alphasort);
		if (n < 0) {
			fprintf(stderr, "vneuron-profile: %s: %s\n", o->program_args[i],
				strerror(errno));
			return -errno;
		}
		if (!n)
			fprintf(stderr, "vneuron-profile: %s: no .vnef files in the directory\n",
				o->program_args[i]);
		for (j = 0; j < n; j++) {
			snprintf(path, sizeof(path), "%s/%s", o->program_args[i], ents[j]->d_name);
			if (!ret)
				ret = add_prog(vp, path, true);
			free(ents[j]);
		}
		free(ents);
	}
	if (!ret && !vp->n) {
		fprintf(stderr, "vneuron-profile: no program to view with (-n)\n");
		ret = -ENOENT;
	}
	return ret;
}

static void free_programs(struct view_progs *vp)
{
	unsigned int i;

	for (i = 0; vp->p && i < vp->n; i++) {
		vnp_prog_free(&vp->p[i].prog);
		free(vp->p[i].path);
	}
	free(vp->p);
	vnp_ran_free(&vp->ran);
	memset(vp, 0, sizeof(*vp));
}

/* The given program with the identity of the profiles' program k, or -1. */
static int given(const struct view_progs *vp, uint32_t k)
{
	unsigned int i;

	for (i = 0; i < vp->n; i++)
		if (vnp_ran_find(&vp->ran, vp->p[i].hash, vp->p[i].size) == (int)k)
			return (int)i;
	return -1;
}

/*
 * Matches what the profiles ran with the programs given: one view per program they
 * ran. 0, or -EINVAL (refused: said, with the profiles' programs) or -EDOM (a usage
 * error: said).
 */
static int match_programs(struct view_progs *vp, const struct view_opts *o)
{
	const char *what = o->nprofiles > 1 ? "the profiles" : o->profile;
	const char *paths[VNTF_MAX_PROGRAMS];
	unsigned int i, missing = 0;
	int k;

	if (!vp->ran.nprogs) {
		/* a profile that names no program: the one given, as before */
		if (vp->n > 1) {
			fprintf(stderr, "vneuron-profile: %s records no program identity: give "
				"the one program it ran (one -n), not %u\n", what, vp->n);
			return -EDOM;
		}
		vp->ngroups = 1;
		vp->group_want[0] = -1;
		return 0;
	}
	for (i = 0; i < vp->ran.nprogs; i++) {
		k = given(vp, i);
		if (k < 0) {
			missing++;
			continue;
		}
		vp->group_prog[vp->ngroups] = (unsigned int)k;
		vp->group_want[vp->ngroups++] = vp->ran.nprogs > 1 ? (int)i : -1;
	}
	if (missing && o->no_hash && vp->n == 1 && vp->ran.nprogs == 1) {
		/* -q: the program given for the one the profile ran, as asked */
		vp->ngroups = 1;
		vp->group_prog[0] = 0;
		vp->group_want[0] = -1;
		return 0;
	}
	if (missing) {
		fprintf(stderr, "vneuron-profile: %s and the programs given do not belong "
			"together: it ran %u program%s, %u of them not given (-n FILE or -n "
			"DIRECTORY):\n", what, vp->ran.nprogs, vp->ran.nprogs > 1 ? "s" : "",
			missing);
		for (i = 0; i < vp->ran.nprogs; i++) {
			k = given(vp, i);
			paths[i] = k < 0 ? NULL : vp->p[k].path;
		}
		vnp_ran_list(stderr, &vp->ran, paths);
		return -EINVAL;
	}
	for (i = 0; i < vp->n; i++)
		if (!vp->p[i].from_dir &&
		    vnp_ran_find(&vp->ran, vp->p[i].hash, vp->p[i].size) < 0)
			fprintf(stderr, "vneuron-profile: %s is not a program %s ran: ignored\n",
				vp->p[i].path, what);
	return 0;
}

/*
 * --only: keeps the one view whose program has that name, was given at that path or has
 * a SHA-256 starting with those hex digits (6 or more). 0, or -EDOM (said: none or
 * several match).
 */
static int only_program(struct view_progs *vp, const struct view_opts *o)
{
	unsigned int g, found = 0, keep = 0;
	size_t n = strlen(o->only);
	char hash[65];

	for (g = 0; g < vp->ngroups; g++) {
		const struct view_prog *p = &vp->p[vp->group_prog[g]];
		unsigned int i;

		for (i = 0; i < 32; i++)
			sprintf(hash + 2 * i, "%02x", p->hash[i]);
		if ((p->prog.name && !strcmp(p->prog.name, o->only)) || !strcmp(p->path, o->only) ||
		    (n >= 6 && n <= 64 && !strncasecmp(hash, o->only, n))) {
			found++;
			keep = g;
		}
	}
	if (found != 1) {
		fprintf(stderr, "vneuron-profile: --only %s: %s of the programs shown; give a "
			"name, a path given with -n or a sha256 prefix (6+ digits)\n", o->only,
			found ? "several" : "none");
		return -EDOM;
	}
	vp->group_prog[0] = vp->group_prog[keep];
	vp->group_want[0] = vp->group_want[keep];
	vp->ngroups = 1;
	return 0;
}

/* Loads the programs and what the profiles ran, and matches them. 0 or -errno (said). */
static int view_programs(struct view_progs *vp, const struct view_opts *o)
{
	char err[512];
	int ret;

	memset(vp, 0, sizeof(*vp));
	ret = load_programs(vp, o);
	if (ret) {
		if (ret != -ENOMEM && vp->n < o->nprogram_args)
			swap_hint(o);
		return ret;
	}
	ret = vnp_profile_ran(&vp->ran, o->profiles, o->nprofiles, o->salvage, err,
			      sizeof(err));
	if (ret) {
		fprintf(stderr, "vneuron-profile: %s\n", err);
		if (strstr(err, "truncated file"))
			fprintf(stderr, "vneuron-profile: the profile was cut short; --salvage "
				"reads every complete record in it\n");
		else if (strstr(err, "bad magic"))
			swap_hint(o);
		return ret;
	}
	ret = match_programs(vp, o);
	if (!ret && o->only)
		ret = only_program(vp, o);
	return ret;
}

/*
 * Reads the profile for view g of vp (a program and the executions that ran it) and
 * analyzes it. 0, or -errno (said).
 */
static int view_load(struct view_data *d, const struct view_opts *o,
		     const struct view_progs *vp, unsigned int g)
{
	const struct view_prog *p = &vp->p[vp->group_prog[g]];
	char err[512];
	int ret;

	memset(d, 0, sizeof(*d));
	d->prog = &p->prog;
	ret = vnp_profile_read_ran(&d->pf, o->profiles, o->nprofiles, d->prog, p->path,
				   !o->no_hash, o->salvage, &vp->ran, vp->group_want[g], err,
				   sizeof(err));
	if (ret == -E2BIG && vp->ngroups == 1) {
		/* more workers than the timeline holds: the caller tries the node figures */
		snprintf(d->too_big, sizeof(d->too_big), "%s", err);
		return ret;
	}
	if (ret) {
		fprintf(stderr, "vneuron-profile: %s\n", err);
		return ret;
	}
	if (d->pf.nr_salvaged && !g)
		fprintf(stderr, "vneuron-profile: %s", d->pf.salvaged);
	if (d->pf.no_identity && !g)
		fprintf(stderr, "vneuron-profile: %s records no program identity; assuming %s "
			"is the program it ran\n", o->nprofiles > 1 ? "a profile" : o->profile,
			p->path);
	if (d->pf.unplaced_records)
		fprintf(stderr, "vneuron-profile: %llu records of executions whose program "
			"the profile does not know were left out of %s's view\n",
			(unsigned long long)d->pf.unplaced_records, p->path);
	d->pf.tl.model_flops = o->model_flops;
	d->pf.tl.host_clock = o->host_clock;
	ret = vnp_tl_finish(&d->pf.tl) ?: vnp_metrics_compute(&d->pf.tl, o->bins, &d->m);
	if (ret)
		goto oom;
	ret = vnp_analyze(&d->pf.tl, &d->m, &d->a);
	if (ret) {
		vnp_metrics_free(&d->m);
		goto oom;
	}
	d->v = (struct vnp_view){ .tl = &d->pf.tl, .m = &d->m, .a = &d->a,
				  .program_path = p->path, .profile_path = o->profile,
				  .labels = d->pf.labels, .top = o->top };
	return 0;
oom:
	fprintf(stderr, "vneuron-profile: out of memory\n");
	vnp_profile_free(&d->pf);
	return ret;
}

static int open_output(const struct view_opts *o, struct nd_outfile *out);

/*
 * The node summary of a run with more workers than the timeline holds
 * (vnp_nodes_scan(): streaming, docs/scaling.md). Exit status.
 */
static int view_streamed(const struct view_opts *o, const struct vnp_prog *prog,
			 const char *prog_path, const char *too_big)
{
	struct vnp_nodes *n = calloc(1, sizeof(*n));
	struct nd_outfile out;
	uint64_t core_ps;
	char err[512];
	int ret;

	if (o->serve || o->fmt->write != vnp_summary_text) {
		if (too_big)
			fprintf(stderr, "vneuron-profile: %s\n", too_big);
		else
			fprintf(stderr, "vneuron-profile: the profiles hold more workers than "
				"the merged timeline's %d\n", VNP_MAX_CORES);
		fprintf(stderr, "vneuron-profile: only the node summary (--output-format "
			"summary-text) is available for them (docs/scaling.md)\n");
		free(n);
		return VNP_EXIT_USAGE;
	}
	if (!n) {
		fprintf(stderr, "vneuron-profile: out of memory\n");
		return VNP_EXIT_SYSTEM;
	}
	ret = vnp_nodes_scan(o->profiles, o->nprofiles, prog, prog_path, !o->no_hash,
			     n, &core_ps, err, sizeof(err));
	if (ret) {
		/* not a multi-node run: the timeline's own refusal says it best */
		fprintf(stderr, "vneuron-profile: %s\n", too_big &&
			strstr(err, "has no node section:") ? too_big : err);
		free(n);
		return ret == -ENOMEM ? VNP_EXIT_SYSTEM : VNP_EXIT_INPUT;
	}
	ret = open_output(o, &out);
	if (ret) {
		free(n);
		return ret == -EINVAL || ret == -EEXIST ? VNP_EXIT_USAGE : VNP_EXIT_SYSTEM;
	}
	ret = vnp_nodes_summary_text(out.f, n, core_ps, prog_path, o->nprofiles);
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
}

/*
 * The output (libvnprog's nd_out_open(): never an input, an existing file only with
 * --force-overwrite, a temporary file until complete), or standard output. 0 or -errno
 * (said).
 */
static int open_output(const struct view_opts *o, struct nd_outfile *out)
{
	const char *inputs[VIEW_MAX_PROFILES + VIEW_MAX_PROGRAMS];
	char msg[PATH_MAX * 2 + 128];
	int ret;

	memcpy(inputs, o->program_args, o->nprogram_args * sizeof(*inputs));
	memcpy(inputs + o->nprogram_args, o->profiles, o->nprofiles * sizeof(*inputs));
	ret = nd_out_open(out, o->out ?: "-", inputs, o->nprogram_args + o->nprofiles,
			  o->force ? ND_OUT_FORCE : 0, msg, sizeof(msg));
	if (ret)
		fprintf(stderr, "vneuron-profile: %s\n", msg);
	return ret;
}

/*
 * Writes view g of ngroups: a program's part of a profile that ran several is headed
 * (text) or an element of a "programs" array (json). 0 or -errno.
 */
static int write_view(FILE *f, const struct view_opts *o, const struct view_data *d,
		      unsigned int g, unsigned int ngroups)
{
	const char *name = d->prog->name && *d->prog->name ? d->prog->name : "unnamed";
	int json = o->fmt->write && o->fmt->write != vnp_summary_text;
	int ret;

	if (ngroups > 1 && json)
		fputs(g ? "," : "{\"programs\":[", f);
	else if (ngroups > 1)
		fprintf(f, "%s=== Program %u of %u: \"%s\" (%s), %llu execution%s ===\n",
			g ? "\n" : "", g + 1, ngroups, name, d->v.program_path,
			(unsigned long long)d->pf.tl.nexec, d->pf.tl.nexec == 1 ? "" : "s");
	ret = o->fmt->write ? o->fmt->write(f, &d->v) : vnp_web_html(f, &d->v, d->pf.labels);
	if (!ret && ngroups > 1 && json && g + 1 == ngroups)
		fputs("]}\n", f);
	if (!ret && ferror(f))
		ret = -EIO;
	return ret;
}

/*
 * More profiles than the timeline holds: a multi-node run's node figures, from one
 * streaming pass (one program). Exit status.
 */
static int view_big(const struct view_opts *o, const char *why)
{
	struct view_progs vp;
	int ret, status;

	memset(&vp, 0, sizeof(vp));
	ret = load_programs(&vp, o);
	if (ret) {
		free_programs(&vp);
		return ret == -ENOMEM ? VNP_EXIT_SYSTEM : VNP_EXIT_INPUT;
	}
	if (vp.n != 1) {
		fprintf(stderr, "vneuron-profile: %u profiles: the node summary of a multi-node "
			"run takes one program (-n), not %u\n", o->nprofiles, vp.n);
		free_programs(&vp);
		return VNP_EXIT_USAGE;
	}
	status = view_streamed(o, &vp.p[0].prog, vp.p[0].path, why);
	free_programs(&vp);
	return status;
}

/*
 * The merged timeline's memory, estimated from the profiles' sizes before reading them:
 * 52 bytes an event (measured: bench_merge, docs/scaling.md) for a 64-byte record, so
 * 13/16 of the bytes (other sections count as records: an overestimate). -errno of stat.
 */
static int timeline_estimate(const struct view_opts *o, uint64_t *bytes)
{
	struct stat st;
	unsigned int i;

	*bytes = 0;
	for (i = 0; i < o->nprofiles; i++) {
		if (stat(o->profiles[i], &st))
			return -errno;
		if (S_ISREG(st.st_mode))
			*bytes += (uint64_t)st.st_size / 16 * 13;
	}
	return 0;
}

/* --memory-limit, or half of the machine's memory (1 GiB if unknown). */
static uint64_t memory_limit(const struct view_opts *o)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	if (o->mem_limit)
		return o->mem_limit;
	if (pages <= 0 || size <= 0)
		return 1ull << 30;
	return (uint64_t)pages * (uint64_t)size / 2;
}

/* view, once the -s directories are expanded: an exit status. */
static int view_run(const struct view_opts *o)
{
	uint64_t need;
	struct view_progs vp;
	struct view_data d;
	struct nd_outfile out;
	unsigned int g;
	int ret, status;

	/* refuse an output that is an input or exists before the work */
	if (o->out && !o->serve) {
		const char *inputs[VIEW_MAX_PROFILES + VIEW_MAX_PROGRAMS];
		char msg[PATH_MAX * 2 + 128];

		memcpy(inputs, o->program_args, o->nprogram_args * sizeof(*inputs));
		memcpy(inputs + o->nprogram_args, o->profiles, o->nprofiles * sizeof(*inputs));
		if (nd_out_check(o->out, inputs, o->nprogram_args + o->nprofiles,
				 o->force ? ND_OUT_FORCE : 0, msg, sizeof(msg))) {
			fprintf(stderr, "vneuron-profile: %s\n", msg);
			return VNP_EXIT_USAGE;
		}
	}
	if (o->nprofiles > VNP_MAX_CORES)
		return view_big(o, NULL);
	if (!timeline_estimate(o, &need) && need > memory_limit(o)) {
		char why[256];

		snprintf(why, sizeof(why), "the merged timeline of %s would take about "
			 "%.1f MiB, more than --memory-limit (%.1f MiB%s): raise it to read "
			 "them whole",
			 o->nprofiles > 1 ? "these profiles" : "this profile",
			 need / 1048576.0, memory_limit(o) / 1048576.0,
			 o->mem_limit ? "" : ": half of this machine's memory");
		return view_big(o, why);
	}
	ret = view_programs(&vp, o);
	if (ret) {
		free_programs(&vp);
		return ret == -ENOMEM || ret == -E2BIG ? VNP_EXIT_SYSTEM :
		       ret == -EDOM ? VNP_EXIT_USAGE : VNP_EXIT_INPUT;
	}
	if (vp.ngroups > 1 && (o->serve || !o->fmt->write ||
			       o->fmt->write == vnp_perfetto)) {
		fprintf(stderr, "vneuron-profile: %s ran %u programs: the %s shows one; choose "
			"it with --only NAME, or use summary-text, summary-json or json, which "
			"show each\n",
			o->nprofiles > 1 ? "the profiles" : o->profile, vp.ngroups,
			o->fmt->write ? "Perfetto trace" : "web viewer");
		free_programs(&vp);
		return VNP_EXIT_USAGE;
	}
	if (o->serve) {
		ret = view_load(&d, o, &vp, 0);
		if (ret == -E2BIG && d.too_big[0]) {
			status = view_streamed(o, d.prog, vp.p[vp.group_prog[0]].path, d.too_big);
			free_programs(&vp);
			return status;
		}
		if (!ret) {
			ret = vnp_web_serve(&d.v, d.pf.labels, o->bind, o->port);
			view_free(&d);
			status = !ret ? VNP_EXIT_OK : ret == -ENOMEM ? VNP_EXIT_SYSTEM :
				 VNP_EXIT_INPUT;
		} else {
			status = ret == -ENOMEM ? VNP_EXIT_SYSTEM : VNP_EXIT_INPUT;
		}
		free_programs(&vp);
		return status;
	}
	/* every view is computed before the output is opened: a refusal leaves no file */
	ret = open_output(o, &out);
	if (ret) {
		free_programs(&vp);
		return ret == -EINVAL || ret == -EEXIST ? VNP_EXIT_USAGE : VNP_EXIT_SYSTEM;
	}
	status = VNP_EXIT_OK;
	for (g = 0; g < vp.ngroups && status == VNP_EXIT_OK; g++) {
		ret = view_load(&d, o, &vp, g);
		if (ret == -E2BIG && d.too_big[0]) {
			nd_out_abort(&out);
			status = view_streamed(o, d.prog, vp.p[vp.group_prog[0]].path, d.too_big);
			free_programs(&vp);
			return status;
		}
		if (ret) {
			status = ret == -ENOMEM ? VNP_EXIT_SYSTEM : VNP_EXIT_INPUT;
			break;
		}
		ret = write_view(out.f, o, &d, g, vp.ngroups);
		view_free(&d);
		if (ret) {
			fprintf(stderr, "vneuron-profile: writing %s: %s\n",
				o->out ? o->out : "output", strerror(-ret));
			status = VNP_EXIT_SYSTEM;
		}
	}
	if (status != VNP_EXIT_OK) {
		nd_out_abort(&out);
	} else if ((ret = nd_out_commit(&out))) {
		char msg[PATH_MAX * 2 + 256];

		fprintf(stderr, "vneuron-profile: writing: %s\n",
			nd_out_strerror(&out, ret, msg, sizeof(msg)));
		nd_out_release(&out);
		status = VNP_EXIT_SYSTEM;
	}
	free_programs(&vp);
	return status;
}

int cmd_view(int argc, char **argv)
{
	struct view_opts o;
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
	status = view_run(&o);
	free_owned(&o);
	return status;
}
