// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * `vneuron-profile view`: reads a program and a profile, computes the metrics and the
 * analysis and writes one output: a summary, the full event list, a Perfetto trace or the
 * web viewer, in a file or served over HTTP (docs/profiler.md). Options and exit
 * statuses; the work is libvnprofile's (vnprofile.h).
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "vnprofile.h"
#include "vnprog.h"

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
"    --memory-limit SIZE     the most memory the merged timeline may take, in\n"
"                            bytes or with K, M, G (half of this machine's\n"
"                            memory): about 16 bytes a record for a program run\n"
"                            many times, up to 80 if every event differs;\n"
"                            estimated from the profiles' size (0.3 x), held\n"
"                            while reading; beyond it view gives the node summary\n"
"                            of a multi-node run, and refuses other profiles\n"
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
"    --web-detail N          html and --serve: past N events (1500000) the page\n"
"                            carries per row 4096 time bins (busy time, events,\n"
"                            dominant opcode) instead of its events, so it stays a\n"
"                            few MB; zoomed in below a bin, the served page fetches\n"
"                            the window's events (a written file says detail needs\n"
"                            --serve)\n"
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

/* -s and -n given at once */
#define VIEW_MAX_PROFILES	4096
#define VIEW_MAX_PROGRAMS	256

struct view_opts {
	const char *program, *profile, *out;
	const char *program_args[VIEW_MAX_PROGRAMS];	/* every -n: a file or a directory */
	unsigned int nprogram_args;
	const char *only;		/* --only: the one program to show */
	const char *profiles[VIEW_MAX_PROFILES];	/* every -s: one per worker or node */
	unsigned int nprofiles;
	enum vnprofile_format fmt;
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
		{ "web-detail", required_argument, NULL, 'W' },
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

	*o = (struct view_opts){ .fmt = VNPROFILE_SUMMARY_TEXT, .top = 10, .port = 3001,
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
			if (vnprofile_format_parse(optarg, &o->fmt))
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
		case 'W':
			if (vnp_parse_uint(optarg, UINT32_MAX, 0, &x) || !x)
				bad = "--web-detail needs 1..4294967295 events";
			else
				vnprofile_set_web_detail((size_t)x);
			break;
		case 'B':
			o->bind = optarg;
			o->net_opts = 1;
			break;
		case 'h':
			o->help = 1;
			return 0;
		default:
			vnp_cli_did_you_mean(lo, argc, argv);
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
	else if (!o->serve && vnprofile_format_binary(o->fmt) &&
		 (!o->out || !strcmp(o->out, "-")) && isatty(STDOUT_FILENO))
		bad = o->fmt == VNPROFILE_PERFETTO ? "a Perfetto trace is binary: not written to "
		      "a terminal; give -o FILE.pftrace or redirect standard output" :
		      "the web viewer is a whole page: not written to a terminal; give -o "
		      "FILE.html, redirect standard output or use --serve";
	if (bad) {
		fprintf(stderr, "vneuron-profile: %s\n", bad);
		return -EINVAL;
	}
	return 0;
}

/* The exit status of a failure to read: memory (3) or the input (1). */
static int input_status(int ret)
{
	return ret == -ENOMEM ? VNP_EXIT_SYSTEM : VNP_EXIT_INPUT;
}

/*
 * The output (libvnprog's nd_out_open(): never an input, an existing file only with
 * --force-overwrite, a temporary file until complete), or standard output. 0 or -errno
 * (said).
 */
static int open_output(const struct view_opts *o, const struct vnprofile *p,
		       struct nd_outfile *out)
{
	char msg[PATH_MAX * 2 + 128];
	const char *const *inputs;
	unsigned int n;
	int ret;

	inputs = vnprofile_inputs(p, &n);
	ret = nd_out_open(out, o->out ?: "-", inputs, n, o->force ? ND_OUT_FORCE : 0, msg,
			  sizeof(msg));
	if (ret)
		fprintf(stderr, "vneuron-profile: %s\n", msg);
	return ret;
}

/* The exit status of an output that could not be opened. */
static int output_status(int ret)
{
	return ret == -EINVAL || ret == -EEXIST ? VNP_EXIT_USAGE : VNP_EXIT_SYSTEM;
}

/*
 * The node summary of a run with more workers than the timeline holds (streaming,
 * docs/scaling.md): summary-text only. Exit status.
 */
static int view_streamed(const struct view_opts *o, struct vnprofile *p)
{
	struct nd_outfile out;
	int ret;

	if (vnprofile_can_write(p, o->serve ? VNPROFILE_HTML : o->fmt))
		return VNP_EXIT_USAGE;
	ret = vnprofile_nodes(p);
	if (ret)
		return input_status(ret);
	ret = open_output(o, p, &out);
	if (ret)
		return output_status(ret);
	ret = vnprofile_write(p, VNPROFILE_SUMMARY_TEXT, out.f);
	if (ret)
		nd_out_abort(&out);
	else
		ret = nd_out_commit(&out);
	if (ret) {
		fprintf(stderr, "vneuron-profile: writing %s: %s\n", o->out ? o->out : "output",
			strerror(-ret));
		return VNP_EXIT_SYSTEM;
	}
	return VNP_EXIT_OK;
}

/* --serve: the web viewer of the one view over HTTP until stopped. Exit status. */
static int view_serve(const struct view_opts *o, struct vnprofile *p)
{
	const struct vnprofile_view *v;
	int ret = vnprofile_view(p, 0, &v);

	if (ret == -E2BIG && vnprofile_nviews(p) == 1)
		return view_streamed(o, p);
	if (ret)
		return input_status(ret);
	ret = vnprofile_serve(v, o->bind, o->port);
	return !ret ? VNP_EXIT_OK : input_status(ret);
}

/* view, once the profile is loaded: an exit status. */
static int view_write(const struct view_opts *o, struct vnprofile *p)
{
	const struct vnprofile_view *v;
	struct nd_outfile out;
	unsigned int g, n = vnprofile_nviews(p);
	int ret, status;

	if (vnprofile_nodes_only(p))
		return view_streamed(o, p);
	if (n > 1 && (o->serve || o->fmt == VNPROFILE_PERFETTO || o->fmt == VNPROFILE_HTML) &&
	    vnprofile_can_write(p, o->fmt == VNPROFILE_PERFETTO ? VNPROFILE_PERFETTO :
			        VNPROFILE_HTML))
		return VNP_EXIT_USAGE;
	if (o->serve)
		return view_serve(o, p);
	/* every view is computed before the output is complete: a refusal leaves no file */
	ret = open_output(o, p, &out);
	if (ret)
		return output_status(ret);
	status = VNP_EXIT_OK;
	for (g = 0; g < n && status == VNP_EXIT_OK; g++) {
		ret = vnprofile_view(p, g, &v);
		if (ret == -E2BIG && n == 1) {
			nd_out_abort(&out);
			return view_streamed(o, p);
		}
		if (ret) {
			status = input_status(ret);
			break;
		}
		ret = vnprofile_write_view(v, o->fmt, out.f);
		vnprofile_view_release(p, g);
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
	return status;
}

/* view: an exit status. */
static int view_run(const struct view_opts *o)
{
	struct vnprofile_opts po = {
		.sz = sizeof(po), .profiles = o->profiles, .nprofiles = o->nprofiles,
		.programs = o->program_args, .nprograms = o->nprogram_args, .only = o->only,
		.model_flops = o->model_flops, .bins = o->bins,
		.top = o->top ? (int)o->top : -1, .memory_limit = o->mem_limit,
		.flags = (o->salvage ? VNPROFILE_SALVAGE : 0) |
			 (o->no_hash ? VNPROFILE_NO_HASH_CHECK : 0) |
			 (o->host_clock ? VNPROFILE_HOST_CLOCK : 0) };
	struct vnprofile *p;
	int ret, status;

	ret = vnprofile_open(&p, &po);
	if (ret)
		return ret == -E2BIG ? VNP_EXIT_USAGE : input_status(ret);
	/* refuse an output that is an input or exists before the work */
	if (o->out && !o->serve && vnprofile_check_output(p, o->out, o->force)) {
		vnprofile_close(p);
		return VNP_EXIT_USAGE;
	}
	ret = vnprofile_load(p);
	if (ret)
		status = ret == -ENOMEM || ret == -E2BIG ? VNP_EXIT_SYSTEM :
			 ret == -EDOM ? VNP_EXIT_USAGE : VNP_EXIT_INPUT;
	else
		status = view_write(o, p);
	vnprofile_close(p);
	return status;
}

int cmd_view(int argc, char **argv)
{
	struct view_opts o;

	vnp_cli_messages("vneuron-profile: ");
	if (parse_opts(argc, argv, &o))
		return VNP_EXIT_USAGE;
	if (o.help) {
		vnp_usage(stdout);
		return VNP_EXIT_OK;
	}
	return view_run(&o);
}
