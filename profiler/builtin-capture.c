// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * `vneuron-profile capture`: runs a program (or a whole application) on a vneuron device
 * with tracing on and writes the raw records into a .vntf profile while it runs
 * (docs/capture.md). This file: the manual, the options and which form runs;
 * the forms are builtin-capture-{program,workers,app}.c, the tracing libvnprofile's.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin-capture.h"

static const char capture_usage[] =
"NAME\n"
"    vneuron-profile capture - run a program or an application with tracing on\n"
"\n"
"SYNOPSIS\n"
"    vneuron-profile capture -n PROGRAM.vnef -s PROFILE.vntf [NAME FILE ...]\n"
"                            [--num-exec N] [--profile-nth-exec K]\n"
"                            [--ignore-exec-errors] [--core C] [--device D]\n"
"                            [--ring-size BYTES] [--mode stop|overwrite]\n"
"                            [--collectives-worker-count N\n"
"                             [--collectives-workers-per-node N]]\n"
"                            [--node ID/COUNT [--clock-offset NS[+-ERR]]]\n"
"                            [--force-overwrite] [--max-size BYTES]\n"
"    vneuron-profile capture --host [--model NAME] -n PROGRAM.vnef -s PROFILE.vntf\n"
"                            [--lnc N] [NAME FILE ...]\n"
"                            [--num-exec N] [--profile-nth-exec K] [options]\n"
"                            [--collectives-worker-count N]\n"
"    mpirun -np NODES [-H HOST,...] vneuron-profile capture [--host] [--device D]\n"
"                            -n PROGRAM.vnef -s PROFILE.vntf [NAME FILE ...]\n"
"                            --collectives-workers-per-node N [options]\n"
"    vneuron-profile capture -s PROFILE.vntf [--core C]... [--device D]\n"
"                            [--node ID/COUNT [--clock-offset NS[+-ERR]]]\n"
"                            [--force-overwrite] [--max-size BYTES]\n"
"                            [--ring-size BYTES] [--mode stop|overwrite] -- APP [ARGS]\n"
"\n"
"DESCRIPTION\n"
"    The first form loads PROGRAM.vnef on /dev/vneuronD, binds every input and\n"
"    output tensor to a device buffer, fills the inputs (from the NAME FILE pairs,\n"
"    zeros for the others), runs the program N times on core C and writes every\n"
"    trace record of the traced executions into PROFILE.vntf, together with the\n"
"    device model, the program's SHA-256, name and debug table, the clocks, the\n"
"    rings' lost counts and the core's identity. Read it with\n"
"    'vneuron-profile view -n PROGRAM.vnef -s PROFILE.vntf'.\n"
"\n"
"    With --collectives-worker-count N the program runs as N workers (ranks) of one\n"
"    communicator, one core each, all at once: rank r on core r % C of\n"
"    /dev/vneuron(D + r / C), C being the cores of a device (2 by default), so the\n"
"    workers fill the devices from D on. Their collectives meet; every worker's\n"
"    cores are traced into the one PROFILE.vntf, each stream naming its worker.\n"
"\n"
"    With --host the program runs on the host backend instead (libvnprog's\n"
"    nd_host: the device core that vneuron.ko runs, in threads of this process), so\n"
"    no module and no /dev/vneuron are needed. The profile has the same records,\n"
"    format and views: every modeled figure (times, bytes, flops, the summary's\n"
"    and the viewer's numbers) is identical to a capture on the module; only host\n"
"    times (host_ns, the clocks) differ. The profile records the backend (host or\n"
"    module), which view prints. Workers run a thread each, placed as on devices\n"
"    of the model's default cores (trn1: 2, trn2 and trn3: 8, as the module\n"
"    loaded with model=NAME). --host takes no --core, --device or APP.\n"
"\n"
"    The mpirun form runs under an MPI launcher: every MPI process is a node\n"
"    node (one per machine, or several on one machine standing in for nodes) that\n"
"    runs N workers on the module (or, with --host, the host backend), and the\n"
"    program's collectives span all NODES x N workers: node p's worker i is\n"
"    global rank p x N + i, its collectives exchanged with the other nodes over\n"
"    MPI (libvnmpi's proxy; on the module it serves the kernel's network queue).\n"
"    On the module a node's workers take one core each from core 0 of --device\n"
"    (0) on; the nodes on one machine take devices in turn after it (node 1 of two\n"
"    here with 2 workers on devices of 2 cores: /dev/vneuron1). Each\n"
"    process writes its own profile (see SEVERAL MACHINES) with the node section\n"
"    filled in: its node and node count, its workers' global ranks, and the offset\n"
"    of its host's CLOCK_MONOTONIC to node 0's with the error bound of that\n"
"    measure (measured with MPI at start). 'vneuron-profile view -s A -s B ...'\n"
"    merges the nodes' profiles.\n"
"\n"
"    The application form traces cores while APP runs (every execution any process\n"
"    starts there: with --device, that device's cores, else every core of every\n"
"    device, so all of an application's workers are in the profile) and writes\n"
"    the profile when APP exits; APP gets\n"
"    VNEURON_PROFILE=PROFILE.vntf in its environment. Capture's exit status is then\n"
"    APP's (or 128+signal). APP also gets VNEURON_PROFILE_API, naming a new file\n"
"    PROFILE.vntf.api.XXXXXX that capture creates for it (never an existing one)\n"
"    and removes after use: libneurondev logs every API call there (open, alloc,\n"
"    load, exec, wait, with host times and sequence numbers) and the\n"
"    application's ranges and marks (nd_range_push/pop, nd_mark; their names\n"
"    become string sections), and capture moves that log into the profile as one\n"
"    more stream, correlated with the device's records by execution number: view\n"
"    then attributes each execution to the ranges open on the thread that\n"
"    launched it.\n"
"\n"
"    The rings are drained through mmap while the workload runs, by a thread woken\n"
"    by poll(); nothing is processed at capture time. Every record the device could\n"
"    not store (stop mode, ring full) or that was overwritten before it was read\n"
"    (overwrite mode) is counted, printed at the end and stored in the profile.\n"
"    On a terminal, runs longer than a second show their progress on stderr\n"
"    (executions, records, the profile's size). After the first execution of a\n"
"    run of several, capture says the size it expects (that execution's bytes\n"
"    times N) when that is 64 MiB or more, or with --max-size, where it stops.\n"
"\n"
"INPUTS\n"
"    NAME FILE binds the input tensor NAME to FILE: a NumPy .npy file (little-endian\n"
"    float32, C order, as many elements as the tensor; converted for bf16 tensors)\n"
"    or raw bytes of exactly the tensor's size in its dtype. With workers, {rank}\n"
"    in FILE is replaced by each worker's rank (x x.{rank}.npy gives worker 1\n"
"    x.1.npy); a FILE without it is every worker's input.\n"
"\n"
"OPTIONS\n"
"    -n, --program FILE        the .vnef program to run\n"
"    -s, --session FILE        the .vntf profile to write (required)\n"
"    -N, --num-exec N          executions (default 1)\n"
"    -k, --profile-nth-exec K  trace only the K-th execution (1..N); the others run\n"
"                              untraced, as warm-up or cool-down (default: trace all)\n"
"    -i, --ignore-exec-errors  keep going when an execution fails (default: stop\n"
"                              after the failed one, still write the profile, exit 1)\n"
"    -c, --core C              core to run and trace (default 0); in the\n"
"                              application form, repeat it to trace several of\n"
"                              --device (default: all cores of all devices)\n"
"    -d, --device D            /dev/vneuronD (default 0; workers fill the devices\n"
"                              from D on)\n"
"    -r, --ring-size BYTES     data bytes per ring, a power of two from 4K to 256M;\n"
"                              suffixes K, M (default 4M: 65536 records per engine)\n"
"    -m, --mode MODE           stop: a full ring drops new records and counts them\n"
"                              (default); overwrite: a flight recorder that keeps the\n"
"                              newest records and counts the overwritten ones\n"
"    -w, --watermark BYTES     published bytes between two wake-ups of the drainer\n"
"                              (default half the ring)\n"
"    --collectives-worker-count N\n"
"                              run N workers (1..16) of one communicator, one core\n"
"                              each, filling the devices from --device on\n"
"    --collectives-workers-per-node N\n"
"                              workers on each node (1..16): under mpirun, every\n"
"                              process a node of N workers (above;\n"
"                              --collectives-worker-count, if given, must be N x\n"
"                              NODES); without mpirun, N equal to\n"
"                              --collectives-worker-count (all here)\n"
"    --node ID/COUNT           this machine is node ID of COUNT of a multi-node run:\n"
"                              the profile gets a node section (docs/profile-\n"
"                              format.md, \"Nodes\") and its workers the global\n"
"                              ranks ID x N .. ID x N + N - 1 of COUNT x N, N the\n"
"                              workers here (--collectives-worker-count, or 1);\n"
"                              view -s A -s B ... merges such profiles\n"
"    --clock-offset NS[+-ERR]  with --node: this host's CLOCK_MONOTONIC minus rank\n"
"                              0's host's, in ns, and the bound of its error (0\n"
"                              if not given): view aligns host events with it\n"
"    --max-size BYTES          stop writing records when the profile would pass\n"
"                              BYTES (at least 64K; suffixes K, M, G): the\n"
"                              program form stops after the running execution,\n"
"                              the records past the limit are counted, not\n"
"                              written, and the profile, complete and valid with\n"
"                              everything written before, is marked truncated\n"
"                              (view says PARTIAL); default: no limit\n"
"    --force-overwrite         replace an existing PROFILE.vntf (default: refuse)\n"
"    --host                    run on the host backend, without the module (above)\n"
"    --model NAME              with --host, the device model of the host cores:\n"
"                              trn1 (NeuronCore-v2, the default), trn2 (-v3) or\n"
"                              trn3 (-v4). The program must fit it (SBUF, PSUM,\n"
"                              dtypes: else refused naming the model and the\n"
"                              limit), its figures give the modeled times, and\n"
"                              the profile records it, so view's peaks, roofline\n"
"                              and advice and diff's utilisations are that\n"
"                              model's (docs/isa.md, \"Device models\"). A\n"
"                              device's profile has the model of its module\n"
"                              (insmod vneuron.ko model=NAME)\n"
"    --lnc N                   run the program (-n) on a logical core of N\n"
"                              physical cores, 1 (the default) or 2 (LNC=2:\n"
"                              trn2 and trn3; trn1 has no logical cores and is\n"
"                              refused, naming the model): program ids 0 and 1\n"
"                              run on cores C and C + 1 (--core C, even; with\n"
"                              --host host cores 0 and 1), both traced; the\n"
"                              profile says they are logical core C, and view\n"
"                              shows them under it (docs/isa.md, \"Logical\n"
"                              cores\"). Not with collectives workers (a rank is\n"
"                              one physical core) nor with -- APP\n"
"    -q, --quiet               no progress, no summary line\n"
"    -h, --help                this text\n"
"\n"
"THE PROFILE\n"
"    Every input (program, input files, APP) is read and checked before the\n"
"    profile is created. The profile is written to a temporary file next to it,\n"
"    renamed to PROFILE.vntf only when complete (after fsync), so a failed or\n"
"    killed capture leaves an existing file as it was; without --force-overwrite\n"
"    the rename never replaces a file that appeared meanwhile (it is kept and\n"
"    capture says where the profile is). PROFILE.vntf may not be one\n"
"    of the inputs (the same file under any name), and an existing one is refused\n"
"    unless --force-overwrite. SIGINT (Ctrl-C) or SIGTERM during the program form\n"
"    stops it after the running execution; the profile of the executions run so\n"
"    far is written complete and capture exits 128+signal. In the application\n"
"    form Ctrl-C goes to APP, SIGTERM is passed on to it, and the profile is\n"
"    written when APP has gone.\n"
"\n"
"SEVERAL MACHINES\n"
"    Under mpirun, vneuron-profile hands the capture over to vneuron-profile-mpi,\n"
"    the MPI helper built with mpicc (vneuron-profile itself never links MPI): it is\n"
"    $VNEURON_PROFILE_MPI if set, else next to vneuron-profile or in\n"
"    ../libexec/vneuron/ from it; capture says so if it is missing. MPI must give\n"
"    MPI_THREAD_MULTIPLE. Every process must be a node of its own: mpirun -np 2 -H\n"
"    a,b runs one on each machine; on one machine, VNEURON_NODE=process (mpirun -x\n"
"    VNEURON_NODE=process --oversubscribe -np 2) makes each process a node\n"
"    (VNEURON_NODE: unset or shared, the processes sharing memory are a node;\n"
"    process; or a number, this process's node). Node p writes PROFILE.vntf with\n"
"    {node} replaced by p, or without {node} with .nodeP inserted before .vntf\n"
"    (-s dp.vntf: dp.node0.vntf, dp.node1.vntf), on its own machine. {rank} in an\n"
"    input FILE is the global rank. A node that fails before the workers meet\n"
"    stops the others (they say so); one that fails later breaks the communicator,\n"
"    and the others' collectives end with an error, as on one machine.\n"
"\n"
"EXIT STATUS\n"
"    0 success; 1 bad input (unreadable or invalid program, bad input file) or a\n"
"    failed execution; 2 usage error (also: PROFILE.vntf is an input, or exists\n"
"    without --force-overwrite); 3 device, memory or write error; 128+signal when\n"
"    SIGINT or SIGTERM stopped the program form (the profile is complete).\n"
"\n"
"EXAMPLES\n"
"    vneuron-profile capture -n mm.vnef -s mm.vntf a at.npy b b.npy --num-exec 10\n"
"    vneuron-profile capture -n mm.vnef -s mm.vntf -N 5 -k 5 --mode overwrite\n"
"    vneuron-profile capture -n ddp.vnef -s ddp.vntf --collectives-worker-count 4 \\\n"
"        x x.{rank}.npy\n"
"    vneuron-profile capture --host -n mm.vnef -s mm.vntf a at.npy b b.npy\n"
"    mpirun -np 2 -H a,b vneuron-profile capture -n dp.vnef -s dp.vntf \\\n"
"        --collectives-workers-per-node 2\n"
"    vneuron-profile view -n dp.vnef -s dp.node0.vntf -s dp.node1.vntf\n"
"    vneuron-profile capture -s app.vntf -- ./train --steps 100\n"
"\n"
"SEE ALSO\n"
"    vneuron-profile view, docs/capture.md, docs/profiler.md, docs/trace-buffer.md\n";

void cap_err(const char *fmt, ...)
{
	va_list ap;

	fputs("vneuron-profile capture: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void cap_host_hint(const struct cap_opts *o, int ret)
{
	if (o->host || (ret != -ENOENT && ret != -ENXIO && ret != -ENODEV))
		return;
	fprintf(stderr, "  without the module, capture on the host backend: vneuron-profile "
		"capture --host -n %s -s %s", o->program ? o->program : "PROGRAM",
		o->profile ? o->profile : "PROFILE");
	if (o->workers)
		fprintf(stderr, " --collectives-worker-count %u", o->workers);
	fputs(" (and the other options as given)\n", stderr);
}

/* ---- options ---- */

/*
 * Every file capture reads, for the output check: the program, the input files (with
 * {rank}, each worker's), the application. Returns how many (at most max).
 */
static unsigned int input_paths(const struct cap_opts *o, const char **in, char *buf,
				size_t buflen, unsigned int max)
{
	unsigned int n = 0, i, r;
	const char *tag;
	size_t used = 0;

	if (o->program && n < max)
		in[n++] = o->program;
	if (o->app && n < max)
		in[n++] = o->app[0];
	for (i = 0; i < o->nr_inputs && n < max; i++) {
		tag = strstr(o->inputs[i].path, RANK_TAG);
		if (!tag || !o->workers) {
			in[n++] = o->inputs[i].path;
			continue;
		}
		for (r = 0; r < o->workers && n < max; r++) {
			int len = snprintf(buf + used, buflen - used, "%.*s%u%s",
					   (int)(tag - o->inputs[i].path), o->inputs[i].path,
					   o->rank_base + r, tag + strlen(RANK_TAG));

			if (len < 0 || (size_t)len >= buflen - used)
				return n;
			in[n++] = buf + used;
			used += (size_t)len + 1;
		}
	}
	return n;
}

/* The output check before anything is read or touched: 0, or -errno (said). */
static int check_profile_path(const struct cap_opts *o)
{
	const char *in[MAX_INPUTS * 2 + 2];
	char buf[8192], msg[PATH_MAX * 2 + 128];
	unsigned int n = input_paths(o, in, buf, sizeof(buf), MAX_INPUTS * 2 + 2);
	int ret = nd_out_check(o->profile, in, n, o->force ? ND_OUT_FORCE : 0, msg,
			       sizeof(msg));

	if (ret)
		cap_err("%s", msg);
	return ret;
}

int cap_open(const struct cap_opts *o, const struct vnprofile_target *targets,
	     unsigned int n, unsigned int flags, const void *image, size_t size,
	     struct vnprofile_capture **c)
{
	const char *in[MAX_INPUTS * 2 + 2];
	char buf[8192];
	struct vnprofile_capture_opts co = {
		.sz = sizeof(co), .targets = targets, .ntargets = n, .device = o->device,
		.trace = &o->trace, .model = o->model, .program = image, .program_size = size,
		.inputs = in,
		.ninputs = input_paths(o, in, buf, sizeof(buf), MAX_INPUTS * 2 + 2),
		.flags = flags | (o->force ? VNPROFILE_CAPTURE_FORCE : 0) |
			 (o->quiet ? VNPROFILE_CAPTURE_QUIET : 0) |
			 (o->have_node ? VNPROFILE_CAPTURE_NODE : 0),
		.node = o->node.node, .nr_nodes = o->node.nr_nodes,
		.first_rank = o->node.first_rank, .ranks = o->node.ranks,
		.world_size = o->node.world_size, .clock_offset_ns = o->node.clock_offset_ns,
		.clock_error_ns = o->node.clock_error_ns, .max_bytes = o->max_bytes };

	return vnprofile_capture_open(c, o->profile, &co);
}

static int bad_value(const char *name, const char *arg, const char *what)
{
	cap_err("--%s '%s': give %s", name, arg, what);
	return -EINVAL;
}

/* A number option's value, in [min, max]: 0, or -EINVAL with the reason said. */
static int num_opt(const char *name, const char *arg, uint64_t min, uint64_t max,
		   int suffixes, const char *what, uint64_t *v)
{
	if (!vnp_parse_uint(arg, max, suffixes, v) && *v >= min)
		return 0;
	return bad_value(name, arg, what);
}

/* --node ID/COUNT: 0, or -EINVAL with the reason said. */
static int node_opt(const char *arg, struct cap_opts *o)
{
	const char *what = "ID/COUNT, a node number below a node count (0/2, 1/2)";
	unsigned long long id, count;
	char *end, *end2;

	errno = 0;
	id = strtoull(arg, &end, 10);
	if (errno || end == arg || *end != '/' || arg[0] == '-')
		return bad_value("node", arg, what);
	count = strtoull(end + 1, &end2, 10);
	if (errno || end2 == end + 1 || *end2 || end[1] == '-' || !count || id >= count ||
	    count > VNEF_CC_MAX_RANKS)
		return bad_value("node", arg, what);
	o->node.node = (uint32_t)id;
	o->node.nr_nodes = (uint32_t)count;
	o->have_node = 1;
	return 0;
}

/* --clock-offset NS[+-ERR]: 0, or -EINVAL with the reason said. */
static int offset_opt(const char *arg, struct cap_opts *o)
{
	const char *what = "NS or NS+-ERR, nanoseconds (-1500+-200)";
	long long ns;
	uint64_t err = 0;
	char *end;

	errno = 0;
	ns = strtoll(arg, &end, 10);
	if (errno || end == arg || ns == LLONG_MIN ||
	    (*end && (strncmp(end, "+-", 2) || vnp_parse_uint(end + 2, INT64_MAX, 0, &err))))
		return bad_value("clock-offset", arg, what);
	o->node.clock_offset_ns = ns;
	o->node.clock_error_ns = err;
	o->have_offset = 1;
	return 0;
}

/*
 * --node's ranks: every node runs as many ranks as this one (its workers, or 1), so
 * they are node-major. 0, or -EINVAL with the reason said.
 */
static int node_ranks(struct cap_opts *o)
{
	uint32_t per = o->workers ? o->workers : 1;

	if (o->have_offset && !o->have_node) {
		cap_err("--clock-offset goes with --node");
		return -EINVAL;
	}
	if (!o->have_node)
		return 0;
	o->node.ranks = per;
	o->node.first_rank = o->node.node * per;
	o->node.world_size = o->node.nr_nodes * per;
	if (o->node.world_size > VNEF_CC_MAX_RANKS) {
		cap_err("--node %u/%u with %u workers each is %u ranks; a communicator has "
			    "at most %u", o->node.node, o->node.nr_nodes, per, o->node.world_size,
			    VNEF_CC_MAX_RANKS);
		return -EINVAL;
	}
	return 0;
}

/* An MPI launcher started this process (Open MPI's mpirun, PMIx, MPICH's PMI). */
static int mpi_launcher(void)
{
	return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_RANK");
}

/*
 * This node's profile: -s with {node} replaced by the node's number, else with
 * .nodeID inserted before .vntf (prof.vntf: prof.node0.vntf), or added to a name
 * without it. 0 or -EINVAL (said).
 */
static int node_profile(struct cap_opts *o)
{
	const char *p = o->profile, *tag = strstr(p, NODE_TAG);
	size_t len = strlen(p), size = sizeof(o->profile_buf);
	unsigned int id = o->node.node;
	int n;

	if (tag)
		n = snprintf(o->profile_buf, size, "%.*s%u%s", (int)(tag - p), p, id,
			     tag + strlen(NODE_TAG));
	else if (len >= 5 && !strcmp(p + len - 5, ".vntf"))
		n = snprintf(o->profile_buf, size, "%.*s.node%u.vntf", (int)(len - 5), p, id);
	else
		n = snprintf(o->profile_buf, size, "%s.node%u", p, id);
	if (n < 0 || (size_t)n >= size) {
		cap_err("-s %s: node %u's profile name is too long", p, id);
		return -EINVAL;
	}
	o->profile = o->profile_buf;
	return 0;
}

/*
 * --collectives-workers-per-node under an MPI launcher: every MPI process is a node
 * running that many workers on the module (or the host backend with --host), their
 * collectives spanning all nodes' workers. In vneuron-profile: checked, then handed
 * over to vneuron-profile-mpi (o->exec_mpi); there (o->nodes): the node section from
 * MPI, the workers this node's, the profile this node's own. 0, or -EINVAL with the
 * reason said.
 */
static int nodes_opts(struct cap_opts *o)
{
	const struct vnp_cap_nodes *n = o->nodes;
	uint64_t total;

	if (o->nr_cores) {
		cap_err("workers take one core each, from core 0 of the node's device on: "
			    "give no --core");
		return -EINVAL;
	}
	if (o->have_node || o->have_offset) {
		cap_err("under mpirun MPI gives the node and measures the clock offset: "
			    "leave out --node and --clock-offset");
		return -EINVAL;
	}
	if (!n) {
		o->exec_mpi = 1;
		return 0;
	}
	total = (uint64_t)o->per_node * n->nr_nodes;
	if (o->workers && o->workers != total) {
		cap_err("--collectives-worker-count %u is not --collectives-workers-per-node "
			    "%u times the %u nodes (MPI processes): give %llu or leave it out",
			    o->workers, o->per_node, n->nr_nodes, (unsigned long long)total);
		return -EINVAL;
	}
	o->workers = o->per_node;
	o->node.node = n->node;
	o->node.nr_nodes = n->nr_nodes;
	o->node.clock_offset_ns = n->clock_offset_ns;
	o->node.clock_error_ns = n->clock_error_ns;
	o->have_node = 1;
	o->have_offset = 1;
	o->rank_base = n->node * o->per_node;
	if (node_profile(o))
		return -EINVAL;
	return node_ranks(o);
}

/* 0 (o->help: print the manual and stop), or -EINVAL with the reason said. */
static int parse_opts(int argc, char **argv, struct cap_opts *o,
		      const struct vnp_cap_nodes *nodes)
{
	static const struct option lo[] = {
		{ "program", required_argument, NULL, 'n' },
		{ "session", required_argument, NULL, 's' },
		{ "num-exec", required_argument, NULL, 'N' },
		{ "profile-nth-exec", required_argument, NULL, 'k' },
		{ "ignore-exec-errors", no_argument, NULL, 'i' },
		{ "core", required_argument, NULL, 'c' },
		{ "device", required_argument, NULL, 'd' },
		{ "ring-size", required_argument, NULL, 'r' },
		{ "mode", required_argument, NULL, 'm' },
		{ "watermark", required_argument, NULL, 'w' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "collectives-worker-count", required_argument, NULL, 'W' },
		{ "collectives-workers-per-node", required_argument, NULL, 'P' },
		{ "force-overwrite", no_argument, NULL, 'F' },
		{ "host", no_argument, NULL, 'H' },
		{ "model", required_argument, NULL, 'M' },
		{ "lnc", required_argument, NULL, 'L' },
		{ "node", required_argument, NULL, 'O' },
		{ "clock-offset", required_argument, NULL, 'C' },
		{ "max-size", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	static const char ring_sizes[] = "a power of two from 4K to 256M";
	char core_max[48], watermarks[48];
	uint64_t v = 0;
	int opt, i, dashdash = 0, ret = 0;

	*o = (struct cap_opts){ .num_exec = 1, .nodes = nodes };
	snprintf(core_max, sizeof(core_max), "a core number from 0 to %u",
		 CAP_MAX_CORES - 1);
	snprintf(watermarks, sizeof(watermarks), "bytes, a multiple of %u",
		 VNEURON_TRACE_RECORD_SIZE);
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			dashdash = i;
			break;
		}
	optind = 1;
	opterr = 0;
	/* Options and NAME FILE pairs in any order; "--" ends capture's own arguments. */
	while (!ret && (opt = getopt_long(dashdash ? dashdash : argc, argv,
					  "n:s:N:k:ic:d:r:m:w:qh", lo, NULL)) != -1) {
		switch (opt) {
		case 'n':
			o->program = optarg;
			break;
		case 's':
			o->profile = optarg;
			break;
		case 'N':
			ret = num_opt("num-exec", optarg, 1, UINT_MAX, 0, "a count of at least 1",
				      &v);
			o->num_exec = (unsigned int)v;
			break;
		case 'k':
			ret = num_opt("profile-nth-exec", optarg, 1, UINT_MAX, 0,
				      "an execution number from 1", &v);
			o->nth = (unsigned int)v;
			break;
		case 'i':
			o->ignore_errors = 1;
			break;
		case 'c':
			ret = num_opt("core", optarg, 0, CAP_MAX_CORES - 1, 0, core_max, &v);
			if (!ret && o->nr_cores == CAP_MAX_CORES) {
				cap_err("--core given more than %u times", CAP_MAX_CORES);
				ret = -EINVAL;
			}
			if (!ret)
				o->cores[o->nr_cores++] = (unsigned int)v;
			break;
		case 'd':
			ret = num_opt("device", optarg, 0, 255, 0, "a device number", &v);
			o->device = (unsigned int)v;
			o->device_given = 1;
			break;
		case 'W':
			ret = num_opt("collectives-worker-count", optarg, 1, CAP_MAX_CORES, 0,
				      "a number of workers from 1 to 16", &v);
			o->workers = (unsigned int)v;
			break;
		case 'P':
			ret = num_opt("collectives-workers-per-node", optarg, 1, CAP_MAX_CORES,
				      0, "a number of workers from 1 to 16", &v);
			o->per_node = (unsigned int)v;
			break;
		case 'r':
			ret = num_opt("ring-size", optarg, VNEURON_TRACE_MIN_RING,
				      VNEURON_TRACE_MAX_RING, 1, ring_sizes, &v);
			if (!ret && (v & (v - 1)))
				ret = bad_value("ring-size", optarg, ring_sizes);
			o->trace.ring_size = v;
			break;
		case 'm':
			if (!strcmp(optarg, "stop"))
				o->trace.mode = VNEURON_TRACE_MODE_STOP;
			else if (!strcmp(optarg, "overwrite"))
				o->trace.mode = VNEURON_TRACE_MODE_OVERWRITE;
			else
				ret = bad_value("mode", optarg, "stop or overwrite");
			break;
		case 'w':
			ret = num_opt("watermark", optarg, 0, UINT32_MAX, 1, watermarks, &v);
			if (!ret && v % VNEURON_TRACE_RECORD_SIZE)
				ret = bad_value("watermark", optarg, watermarks);
			o->trace.watermark = (uint32_t)v;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'F':
			o->force = 1;
			break;
		case 'H':
			o->host = 1;
			break;
		case 'M': {
			struct nd_error e = { 0 };

			if (nd_model_lookup(optarg, &o->model, &e)) {
				cap_err("--model: %s", e.msg);
				ret = -EINVAL;
			}
			break;
		}
		case 'L':
			ret = num_opt("lnc", optarg, 1, 2, 0, "1 or 2: a logical core is 1 or 2 "
				      "physical cores", &v);
			o->lnc = (unsigned int)v;
			break;
		case 'O':
			ret = node_opt(optarg, o);
			break;
		case 'C':
			ret = offset_opt(optarg, o);
			break;
		case 'S':
			ret = num_opt("max-size", optarg, CAP_MIN_SIZE, UINT64_MAX, 1,
				      "a size in bytes of at least 64K, with an optional suffix K, "
				      "M or G (KiB, MiB, GiB)", &v);
			o->max_bytes = v;
			break;
		case 'h':
			o->help = 1;
			return 0;
		default:
			if (optopt)
				cap_err("option '-%c' %s", optopt, strchr("nsNkcdrmw", optopt) ?
					    "needs a value" : "is unknown");
			else
				cap_err("option '%s' is unknown or needs a value",
					    argv[optind - 1]);
			if (!optopt)
				vnp_cli_did_you_mean(lo, argc, argv);
			fputs("Try 'vneuron-profile capture --help'.\n", stderr);
			return -EINVAL;
		}
	}
	if (ret)
		return ret;
	if (!o->profile) {
		cap_err("give the profile to write with -s PROFILE.vntf");
		return -EINVAL;
	}
	if (nodes && !o->per_node) {
		cap_err("vneuron-profile-mpi captures one node of an MPI job: give "
			    "--collectives-workers-per-node (vneuron-profile capture runs it)");
		return -EINVAL;
	}
	if (o->model && !o->host) {
		cap_err("--model %.16s is for --host: a device's profile records the model its "
			"module was loaded with (insmod vneuron.ko model=NAME)", o->model->name);
		return -EINVAL;
	}
	if (o->lnc > 1 && (o->workers || o->per_node)) {
		cap_err("--lnc 2 runs one logical core: it takes no collectives workers (a "
			"collective's rank is one physical core; the module refuses a program "
			"with a CC stream on a logical core)");
		return -EINVAL;
	}
	if (o->lnc > 1 && dashdash) {
		cap_err("--lnc 2 is for the program form (-n): an application launches its "
			"own logical cores (nd_set_lnc()); trace both of one with --core 2k "
			"--core 2k+1");
		return -EINVAL;
	}
	if (o->host && dashdash) {
		cap_err("--host runs a program (-n) on host threads; an application's own "
			    "device files need the module: leave out --host, or capture the "
			    "application's program with -n");
		return -EINVAL;
	}
	if (o->host && (o->nr_cores || o->device_given)) {
		cap_err("--core and --device name the module's cores; --host runs on host "
			    "threads (workers are placed as on devices of %u cores)",
			    HOST_CORES_PER_DEVICE);
		return -EINVAL;
	}
	if (dashdash) {
		if (o->program || optind < dashdash) {
			cap_err("the application form takes no program and no inputs "
				    "(-n and NAME FILE pairs are for the program form)");
			return -EINVAL;
		}
		if (dashdash + 1 >= argc) {
			cap_err("nothing to run after '--'");
			return -EINVAL;
		}
		if (o->nth || o->num_exec != 1 || o->ignore_errors || o->workers ||
		    o->per_node) {
			cap_err("--num-exec, --profile-nth-exec, --ignore-exec-errors and "
				    "--collectives-* are for the program form (an application makes "
				    "its own workers: every core is traced)");
			return -EINVAL;
		}
		o->app = argv + dashdash + 1;
		return node_ranks(o);
	}
	if (!o->program) {
		cap_err("give the program to run with -n PROGRAM.vnef, or an application "
			    "after '--'");
		return -EINVAL;
	}
	if ((argc - optind) % 2) {
		cap_err("inputs come in NAME FILE pairs; '%s' has no file", argv[argc - 1]);
		return -EINVAL;
	}
	for (i = optind; i + 1 < argc; i += 2) {
		if (o->nr_inputs == MAX_INPUTS) {
			cap_err("more than %u inputs", MAX_INPUTS);
			return -EINVAL;
		}
		o->inputs[o->nr_inputs].name = argv[i];
		o->inputs[o->nr_inputs].path = argv[i + 1];
		o->nr_inputs++;
	}
	if (o->nth > o->num_exec) {
		cap_err("--profile-nth-exec %u is beyond --num-exec %u", o->nth, o->num_exec);
		return -EINVAL;
	}
	if (o->nr_cores > 1) {
		cap_err("the program form runs on one core: give --core once");
		return -EINVAL;
	}
	if (o->per_node && (nodes || mpi_launcher()))
		return nodes_opts(o);
	if (o->per_node && !o->workers) {
		cap_err("--collectives-workers-per-node %u without --collectives-worker-count "
			    "gives the workers of each node of an MPI job: run capture under "
			    "mpirun, one process a node (docs/capture.md, \"Several "
			    "machines\"), or give --collectives-worker-count to run them all here",
			    o->per_node);
		return -EINVAL;
	}
	if (o->workers && o->nr_cores) {
		cap_err("workers take one core each, from core 0 of --device on: give no "
			    "--core");
		return -EINVAL;
	}
	if (o->per_node && o->per_node > o->workers) {
		cap_err("--collectives-workers-per-node %u is more than the %u workers",
			    o->per_node, o->workers);
		return -EINVAL;
	}
	if (node_ranks(o))
		return -EINVAL;
	if (o->per_node && o->per_node < o->workers) {
		cap_err("%u of the %u workers would run on other machines: run capture "
			    "under mpirun, one process a node, with "
			    "--collectives-workers-per-node %u (docs/capture.md, \"Several "
			    "machines\"), or all of them here (leave out "
			    "--collectives-workers-per-node)", o->workers - o->per_node,
			    o->workers, o->per_node);
		return -EINVAL;
	}
	return 0;
}

/*
 * vneuron-profile capture under mpirun, workers per node: vneuron-profile-mpi (MPI's side,
 * built with mpicc) takes over, with this command's arguments. It is $VNEURON_PROFILE_MPI
 * if set, else next to this program or in ../libexec/vneuron/ from it. Returns only on
 * failure (said): 2 if it is not there.
 */
static int exec_mpi_helper(int argc, char **argv)
{
	const char *env = getenv("VNEURON_PROFILE_MPI"), *name = "vneuron-profile-mpi";
	char self[PATH_MAX], cand[2][PATH_MAX + 64], *slash;
	unsigned int n = 0, i;
	char **av;
	ssize_t len;

	if (env && *env) {
		snprintf(cand[n++], sizeof(cand[0]), "%s", env);
	} else {
		len = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (len > 0) {
			self[len] = 0;
			slash = strrchr(self, '/');
			if (slash)
				*slash = 0;
			snprintf(cand[n++], sizeof(cand[0]), "%s/%s", self, name);
			snprintf(cand[n++], sizeof(cand[0]), "%s/../libexec/vneuron/%s", self, name);
		}
	}
	av = calloc((size_t)argc + 2, sizeof(*av));
	if (!av) {
		cap_err("out of memory");
		return VNP_EXIT_SYSTEM;
	}
	memcpy(av + 1, argv, (size_t)argc * sizeof(*av));
	for (i = 0; i < n; i++) {
		if (access(cand[i], X_OK))
			continue;
		av[0] = cand[i];
		fflush(NULL);
		execv(cand[i], av);
		cap_err("%s: %s", cand[i], strerror(errno));
		free(av);
		return VNP_EXIT_SYSTEM;
	}
	free(av);
	if (env && *env)
		cap_err("VNEURON_PROFILE_MPI=%s: no such program (the MPI helper, "
			    "%s)", env, name);
	else
		cap_err("--collectives-workers-per-node under mpirun needs %s, the MPI "
			    "helper built with mpicc (make builds it when Open MPI is installed); "
			    "it is not in %s nor %s (or set VNEURON_PROFILE_MPI)", name,
			    n ? cand[0] : "(unknown)", n > 1 ? cand[1] : "(unknown)");
	return VNP_EXIT_USAGE;
}

static int capture_main(int argc, char **argv, const struct vnp_cap_nodes *nodes)
{
	struct cap_opts o;

	vnp_cli_messages("vneuron-profile capture: ");
	if (parse_opts(argc, argv, &o, nodes))
		return VNP_EXIT_USAGE;
	if (o.help) {
		fputs(capture_usage, stdout);
		return VNP_EXIT_OK;
	}
	if (o.exec_mpi)
		return exec_mpi_helper(argc, argv);
	if (check_profile_path(&o))
		return VNP_EXIT_USAGE;
	if (o.app)
		return cap_app(&o);
	vnp_catch_signals();
	return o.workers ? cap_workers(&o) : cap_program(&o);
}

int cmd_capture(int argc, char **argv)
{
	return capture_main(argc, argv, NULL);
}

int cmd_capture_nodes(int argc, char **argv, const struct vnp_cap_nodes *nodes)
{
	return capture_main(argc, argv, nodes);
}
