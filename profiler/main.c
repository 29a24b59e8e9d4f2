// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * vneuron-profile: the profiler's command line. `view` reads a program and a profile
 * and writes a summary, the full event list or a Perfetto trace (docs/profiler.md).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "neurondev.h"
#include "vn_model.h"
#include "sha256.h"
#include "summary.h"
#include "vntf.h"
#include "web.h"

static const char usage_text[] =
"NAME\n"
"    vneuron-profile - profile programs on the vneuron virtual accelerator\n"
"\n"
"SYNOPSIS\n"
"    vneuron-profile view -n PROGRAM.vnef -s PROFILE.vntf\n"
"                         [--output-format FORMAT] [--output-file FILE]\n"
"                         [--model-flops N] [--bins N] [--top N]\n"
"                         [--serve [--port N] [--bind ADDR]]\n"
"    vneuron-profile capture -n PROGRAM.vnef -s PROFILE.vntf ... | -- APP ARGS\n"
"    vneuron-profile --help | help [view|capture]\n"
"\n"
"DESCRIPTION\n"
"    view joins the trace records of a profile with the program that produced them\n"
"    (its debug table gives every instruction a source line and a scope), computes\n"
"    the metrics of docs/metrics.md, classifies the execution and each scope on the\n"
"    roofline and prints advice backed by the evidence it found.\n"
"\n"
"    The profile records the SHA-256 of the program it was captured with; view\n"
"    refuses a program with another hash. Records lost during capture are counted\n"
"    and reported: the figures then cover only what was kept.\n"
"\n"
"OPTIONS (view)\n"
"    -n, --program FILE      the .vnef program (required)\n"
"    -s, --session FILE      the .vntf profile (required)\n"
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
"    -o, --output-file FILE  write there instead of standard output\n"
"    -m, --model-flops N     the model's useful flops per execution, for mfu\n"
"    -b, --bins N            bins of the DMA throughput and pending series (200)\n"
"    -t, --top N             rows of the scope and line tables (10)\n"
"    -q, --no-hash-check     accept a program whose hash differs (not advised)\n"
"    --serve                 serve the web viewer over HTTP until Ctrl-C\n"
"    --port N                its port (3001; 0: any free port)\n"
"    --bind ADDR             its address (127.0.0.1: this machine only)\n"
"\n"
"ANALYSIS\n"
"    The execution and each scope are classified compute-, memory-,\n"
"    communication- or overhead-bound: overhead if engines and DMA are busy less\n"
"    than half the time, else by arithmetic intensity against the ridge point\n"
"    (TensorE peak / HBM bandwidth). Advice rules, each printed with its evidence:\n"
"      engines-no-overlap  engines in use never run at the same time\n"
"      dma-no-overlap      DMA never overlaps compute (data loaded before compute)\n"
"      small-dma           DMA transfers average under 32 KiB\n"
"      repeated-load       one HBM range read more than twice per execution\n"
"      tensor-idle         TensorE idle over 25% of the time while others work\n"
"      transpose-flops     transposes over 10% of TensorE flops\n"
"      semaphore-wait      an engine (or DMA queue) waits over 10% of the time,\n"
"                          and for which engine\n"
"\n"
"CAPTURE\n"
"    capture runs a program (or an application) with tracing on and writes a\n"
"    profile: see vneuron-profile capture --help.\n"
"\n"
"EXIT STATUS\n"
"    0 success; 1 bad input (unreadable, malformed, truncated or unknown-version\n"
"    profile, invalid program, program and profile that do not belong together);\n"
"    2 usage error; 3 out of memory or write error.\n"
"\n"
"EXAMPLES\n"
"    vneuron-profile view -n mlp.vnef -s mlp.vntf\n"
"    vneuron-profile view -n mlp.vnef -s mlp.vntf -f perfetto -o mlp.pftrace\n"
"\n"
"SEE ALSO\n"
"    docs/profiler.md, docs/metrics.md, docs/profile-format.md\n";

static void usage(FILE *f)
{
	fputs(usage_text, f);
}

enum fmt { F_TEXT, F_SJSON, F_JSON, F_PERFETTO, F_HTML };

struct opts {
	const char *program, *profile, *out;
	enum fmt fmt;
	uint64_t model_flops;
	unsigned int bins, top;
	int no_hash;
	/* web viewer: --serve [--port N] [--bind ADDR] */
	int serve, net_opts;
	unsigned int port;
	const char *bind;
};

static void hex(const uint8_t *h, unsigned int n, char *out)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", h[i]);
	out[2 * n] = 0;
}

/* Dense core slots for (device, worker, core) triples, one Perfetto process each. */
struct slots {
	uint32_t key[VNP_MAX_CORES][3];
	unsigned int n;
};

static int slot_of(struct slots *s, const struct vntf_worker *w)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (s->key[i][0] == w->device && s->key[i][1] == w->worker &&
		    s->key[i][2] == w->core)
			return (int)i;
	if (s->n == VNP_MAX_CORES)
		return -1;
	s->key[s->n][0] = w->device;
	s->key[s->n][1] = w->worker;
	s->key[s->n][2] = w->core;
	return (int)s->n++;
}

/* Does one of the profile's programs have this image's hash? Prints why not. */
static int same_program(const struct opts *o, const struct vntf_info *info,
			const uint8_t *hash, size_t size)
{
	const struct vntf_program *p;
	char h1[65], h2[65];
	uint32_t i;

	for (i = 0; i < info->nr_programs; i++) {
		p = &info->programs[i].prog;
		if (p->hash_algo == VNTF_HASH_SHA256 && p->hash_len == 32 &&
		    !memcmp(p->hash, hash, 32) && p->image_size == size)
			return 1;
	}
	p = &info->programs[0].prog;
	hex(hash, 32, h1);
	hex(p->hash, p->hash_len <= 32 ? p->hash_len : 32, h2);
	fprintf(stderr, "vneuron-profile: %s and %s do not belong together: the profile was "
		"captured with program \"%.64s\" (sha256 %s, %llu bytes), the file has sha256 "
		"%s (%zu bytes)\n", o->profile, o->program, p->name, h2,
		(unsigned long long)p->image_size, h1, size);
	return 0;
}

static int view(const struct opts *o)
{
	struct vnp_prog prog;
	struct vnp_timeline tl;
	struct vnp_metrics m;
	struct vnp_analysis a;
	struct vntf_reader *r = NULL;
	const struct vntf_info *info;
	struct vntf_chunk c;
	struct slots slots = { .n = 0 };
	struct vnp_view v;
	const char *labels[VNP_MAX_CORES] = { NULL };
	char lb[VNP_MAX_CORES][64];
	char err[512];
	uint8_t hash[32];
	void *image = NULL;
	size_t size = 0;
	int ret, started = 0, status = 1;
	uint32_t i;
	FILE *out = stdout;

	ret = nd_read_file(o->program, VNEF_MAX_IMAGE_BYTES, &image, &size);
	if (ret) {
		fprintf(stderr, "vneuron-profile: %s: %s\n", o->program,
			ret == -EFBIG ? "larger than a program can be" : strerror(-ret));
		return 1;
	}
	ret = vnp_prog_load(&prog, image, size, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "vneuron-profile: %s: %s\n", o->program, err);
		free(image);
		return ret == -ENOMEM ? 3 : 1;
	}
	vnp_sha256(image, size, hash);
	free(image);

	ret = vntf_open_file(&r, o->profile, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "vneuron-profile: %s: %s\n", o->profile, err);
		vnp_prog_free(&prog);
		return ret == -ENOMEM ? 3 : 1;
	}
	info = vntf_reader_info(r);
	for (;;) {
		ret = vntf_next(r, &c);
		if (ret <= 0)
			break;
		if (!started) {
			/* programs are declared before records: refuse a stranger early */
			if (info->nr_programs && !o->no_hash &&
			    !same_program(o, info, hash, size))
				goto out;
			if (!info->have_model)
				fprintf(stderr, "vneuron-profile: %s: no device model in the profile; "
					"using the trn1 defaults\n", o->profile);
			vnp_tl_init(&tl, info->have_model ? &info->model : &vn_model_trn1, &prog);
			tl.model_flops = o->model_flops;
			started = 1;
		}
		ret = slot_of(&slots, &info->streams[c.index].worker);
		if (ret < 0) {
			fprintf(stderr, "vneuron-profile: %s: more than %d cores and workers in one "
				"profile\n", o->profile, VNP_MAX_CORES);
			goto out;
		}
		ret = vnp_tl_add(&tl, (unsigned int)ret, c.recs, c.count);
		if (ret) {
			fprintf(stderr, "vneuron-profile: out of memory loading %s\n", o->profile);
			status = 3;
			goto out;
		}
	}
	if (ret < 0) {
		fprintf(stderr, "vneuron-profile: %s: %s\n", o->profile, vntf_error(r));
		goto out;
	}
	if (info->have_model && (!info->model.peak_flops_bf16 || !info->model.hbm_bw)) {
		fprintf(stderr, "vneuron-profile: %s: the device model in the profile has no "
			"TensorE peak or HBM bandwidth\n", o->profile);
		goto out;
	}
	if (!started) {
		vnp_tl_init(&tl, info->have_model ? &info->model : &vn_model_trn1, &prog);
		tl.model_flops = o->model_flops;
		started = 1;
	}
	/* the program identity: one of the profile's programs must be this one */
	if (info->nr_programs && !o->no_hash) {
		if (!same_program(o, info, hash, size))
			goto out;
	} else if (!info->nr_programs) {
		fprintf(stderr, "vneuron-profile: %s records no program identity; assuming %s "
			"is the program it ran\n", o->profile, o->program);
	}
	/*
	 * Stop mode: the LOST records in the stream count drops as they happen and the lost
	 * section the producer's total (LOST counts + drops not yet announced = dropped), so
	 * the larger is the truth; overwrite mode: records overwritten before reading.
	 */
	{
		uint64_t dropped = 0, overwritten = 0;

		for (i = 0; i < info->nr_streams; i++) {
			dropped += info->streams[i].dropped;
			overwritten += info->streams[i].overwritten;
		}
		if (dropped > tl.lost)
			tl.lost = dropped;
		tl.lost += overwritten;
	}

	if (vnp_tl_finish(&tl) || vnp_metrics_compute(&tl, o->bins, &m)) {
		fprintf(stderr, "vneuron-profile: out of memory\n");
		status = 3;
		goto out;
	}
	if (vnp_analyze(&tl, &m, &a)) {
		fprintf(stderr, "vneuron-profile: out of memory\n");
		vnp_metrics_free(&m);
		status = 3;
		goto out;
	}
	for (i = 0; i < slots.n; i++) {	/* the web viewer's tabs */
		snprintf(lb[i], sizeof(lb[i]), "worker %u core %u", slots.key[i][1],
			 slots.key[i][2]);
		labels[i] = lb[i];
	}
	if (o->serve) {
		v = (struct vnp_view){ .tl = &tl, .m = &m, .a = &a, .program_path = o->program,
				       .profile_path = o->profile, .top = o->top };
		ret = vnp_web_serve(&v, labels, o->bind, o->port);
		status = !ret ? 0 : ret == -ENOMEM ? 3 : 1;
		goto done;
	}
	if (o->out) {
		out = fopen(o->out, o->fmt == F_PERFETTO ? "wb" : "w");
		if (!out) {
			fprintf(stderr, "vneuron-profile: %s: %s\n", o->out, strerror(errno));
			status = 1;
			goto done;
		}
	}
	v = (struct vnp_view){ .tl = &tl, .m = &m, .a = &a, .program_path = o->program,
			       .profile_path = o->profile, .top = o->top };
	switch (o->fmt) {
	case F_TEXT:
		ret = vnp_summary_text(out, &v);
		break;
	case F_SJSON:
		ret = vnp_summary_json(out, &v);
		break;
	case F_JSON:
		ret = vnp_json_events(out, &v);
		break;
	case F_PERFETTO:
		ret = vnp_perfetto(out, &v);
		break;
	case F_HTML:
		ret = vnp_web_html(out, &v, labels);
		break;
	default:
		ret = -EINVAL;
	}
	if (fflush(out) && !ret)
		ret = -EIO;
	if (o->out && fclose(out) && !ret)
		ret = -EIO;
	if (ret) {
		fprintf(stderr, "vneuron-profile: writing %s: %s\n", o->out ? o->out : "output",
			strerror(-ret));
		status = 3;
	} else {
		status = 0;
	}
done:
	vnp_analysis_free(&a);
	vnp_metrics_free(&m);
out:
	if (started)
		vnp_tl_free(&tl);
	vntf_close(r);
	vnp_prog_free(&prog);
	return status;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || end == s || *end || *s == '-' ? -1 : 0;
}

static int cmd_view(int argc, char **argv)
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
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .fmt = F_TEXT, .bins = 0, .top = 10, .port = 3001,
			  .bind = "127.0.0.1" };
	uint64_t x;
	int ch;

	optind = 1;
	while ((ch = getopt_long(argc, argv, "n:s:f:o:m:b:t:qh", lo, NULL)) != -1) {
		switch (ch) {
		case 'n':
			o.program = optarg;
			break;
		case 's':
			o.profile = optarg;
			break;
		case 'o':
			o.out = optarg;
			break;
		case 'f':
			if (!strcmp(optarg, "summary-text"))
				o.fmt = F_TEXT;
			else if (!strcmp(optarg, "summary-json"))
				o.fmt = F_SJSON;
			else if (!strcmp(optarg, "json"))
				o.fmt = F_JSON;
			else if (!strcmp(optarg, "perfetto"))
				o.fmt = F_PERFETTO;
			else if (!strcmp(optarg, "html"))
				o.fmt = F_HTML;
			else {
				fprintf(stderr, "vneuron-profile: unknown output format '%s' "
					"(summary-text, summary-json, json, perfetto, html)\n", optarg);
				return 2;
			}
			break;
		case 'm':
			if (parse_u64(optarg, &o.model_flops)) {
				fprintf(stderr, "vneuron-profile: --model-flops needs a number\n");
				return 2;
			}
			break;
		case 'b':
			if (parse_u64(optarg, &x) || !x || x > 1000000) {
				fprintf(stderr, "vneuron-profile: --bins needs 1..1000000\n");
				return 2;
			}
			o.bins = (unsigned int)x;
			break;
		case 't':
			if (parse_u64(optarg, &x) || x > 100000) {
				fprintf(stderr, "vneuron-profile: --top needs 0..100000\n");
				return 2;
			}
			o.top = (unsigned int)x;
			break;
		case 'q':
			o.no_hash = 1;
			break;
		case 'S':
			o.serve = 1;
			break;
		case 'P':
			if (parse_u64(optarg, &x) || x > 65535) {
				fprintf(stderr, "vneuron-profile: --port needs 0..65535\n");
				return 2;
			}
			o.port = (unsigned int)x;
			o.net_opts = 1;
			break;
		case 'B':
			o.bind = optarg;
			o.net_opts = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			fprintf(stderr, "Try 'vneuron-profile --help'.\n");
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "vneuron-profile: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (!o.program || !o.profile) {
		fprintf(stderr, "vneuron-profile: view needs -n PROGRAM.vnef and -s PROFILE.vntf\n"
			"Try 'vneuron-profile --help'.\n");
		return 2;
	}
	if (o.net_opts && !o.serve) {
		fprintf(stderr, "vneuron-profile: --port and --bind go with --serve\n");
		return 2;
	}
	if (o.serve && o.out) {
		fprintf(stderr, "vneuron-profile: --serve writes no file; for one use "
			"--output-format html -o FILE\n");
		return 2;
	}
	return view(&o);
}

/* ==== capture: profiler/capture.c ==================================================== */
static int cmd_capture(int argc, char **argv)
{
	return vnp_capture_main(argc, argv);
}
/* ==== end of capture ==================================================================== */

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "view"))
		return cmd_view(argc - 1, argv + 1);
	if (!strcmp(argv[1], "capture"))
		return cmd_capture(argc - 1, argv + 1);
	fprintf(stderr, "vneuron-profile: unknown command '%s' (view, capture, help)\n", argv[1]);
	return 2;
}
