// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * `vneuron-profile capture`: runs a program (or a whole application) on a vneuron device
 * with tracing on and writes the raw records into a .vntf profile while it runs
 * (docs/profiler.md, "capture"); the tracing itself is profiler/capture.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include "builtin.h"
#include "capture.h"
#include "vnprog.h"
#include "timeline.h"

#define MAX_INPUTS	64
/* --host places workers as the module does by default: two cores a device */
#define HOST_CORES_PER_DEVICE	2

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
"                            [--force-overwrite]\n"
"    vneuron-profile capture --host -n PROGRAM.vnef -s PROFILE.vntf [NAME FILE ...]\n"
"                            [--num-exec N] [--profile-nth-exec K] [options]\n"
"                            [--collectives-worker-count N]\n"
"    mpirun -np NODES [-H HOST,...] vneuron-profile capture [--host] [--device D]\n"
"                            -n PROGRAM.vnef -s PROFILE.vntf [NAME FILE ...]\n"
"                            --collectives-workers-per-node N [options]\n"
"    vneuron-profile capture -s PROFILE.vntf [--core C]... [--device D]\n"
"                            [--node ID/COUNT [--clock-offset NS[+-ERR]]]\n"
"                            [--force-overwrite]\n"
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
"    of 2 cores (the module's default). --host takes no --core, --device or APP.\n"
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
"    On a terminal, runs longer than a second show their progress on stderr.\n"
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
"    --force-overwrite         replace an existing PROFILE.vntf (default: refuse)\n"
"    --host                    run on the host backend, without the module (above)\n"
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
"    vneuron-profile view, docs/profiler.md, docs/trace-buffer.md\n";

/* A message of capture's own, as the library's are printed (vnp_cli_messages()). */
static void cap_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void cap_err(const char *fmt, ...)
{
	va_list ap;

	fputs("vneuron-profile capture: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

#define RANK_TAG	"{rank}"
/* -s with workers on several nodes: each node's profile, the tag replaced by its number */
#define NODE_TAG	"{node}"

struct cap_input {
	const char *name, *path;
	void *data;			/* the tensor's bytes, read from path */
	/* path with {rank}: each worker's bytes (data is then NULL) */
	void *rank_data[VNP_CAP_MAX_CORES];
};

struct cap_opts {
	const char *program, *profile;
	unsigned int num_exec, nth, device, nr_cores, cores[VNP_CAP_MAX_CORES];
	int device_given;
	unsigned int workers, per_node;		/* --collectives-*; 0: not given */
	/* --node ID/COUNT, --clock-offset NS[+-ERR]: the node section */
	int have_node, have_offset;
	struct vntf_node node;
	int ignore_errors, quiet, help, force, host;
	struct nd_trace_opts trace;
	unsigned int nr_inputs;
	struct cap_input inputs[MAX_INPUTS];
	char **app;
	/*
	 * Several nodes (--collectives-workers-per-node under mpirun): in vneuron-profile,
	 * exec_mpi hands the capture over to vneuron-profile-mpi; there, nodes says where
	 * this process stands, rank_base is the global rank of its worker 0 ({rank} in
	 * input files) and profile_buf this node's profile name.
	 */
	const struct vnp_cap_nodes *nodes;
	int exec_mpi;
	unsigned int rank_base;
	char profile_buf[PATH_MAX];
};

/* The program form's run: the program on its own device file, its tensors' buffers. */
struct run {
	struct vnp_prog prog;
	struct vnp_capture cap;
	struct nd_device *dev;
	struct nd_program *loaded;
	unsigned int nb;
	struct nd_bind *binds;
	struct nd_mem **mems;
	/* --host: host buffers instead of device memory */
	unsigned int nht;
	struct nd_host_tensor *ht;
};

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

/* vnp_cap_create() with capture's inputs and --force-overwrite. */
static int create_profile(struct vnp_capture *c, const struct cap_opts *o,
			  const struct vnp_prog *prog)
{
	const char *in[MAX_INPUTS * 2 + 2];
	char buf[8192];
	unsigned int n = input_paths(o, in, buf, sizeof(buf), MAX_INPUTS * 2 + 2);

	if (o->have_node) {
		c->have_node = 1;
		c->node = o->node;
		gethostname(c->node.hostname, sizeof(c->node.hostname) - 1);
	}
	return vnp_cap_create(c, o->profile, prog, in, n, o->force ? ND_OUT_FORCE : 0);
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
		{ "node", required_argument, NULL, 'O' },
		{ "clock-offset", required_argument, NULL, 'C' },
		{ NULL, 0, NULL, 0 },
	};
	static const char ring_sizes[] = "a power of two from 4K to 256M";
	char core_max[48], watermarks[48];
	uint64_t v = 0;
	int opt, i, dashdash = 0, ret = 0;

	*o = (struct cap_opts){ .num_exec = 1, .nodes = nodes };
	snprintf(core_max, sizeof(core_max), "a core number from 0 to %u",
		 VNP_CAP_MAX_CORES - 1);
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
			ret = num_opt("core", optarg, 0, VNP_CAP_MAX_CORES - 1, 0, core_max, &v);
			if (!ret && o->nr_cores == VNP_CAP_MAX_CORES) {
				cap_err("--core given more than %u times", VNP_CAP_MAX_CORES);
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
			ret = num_opt("collectives-worker-count", optarg, 1, VNP_CAP_MAX_CORES, 0,
				      "a number of workers from 1 to 16", &v);
			o->workers = (unsigned int)v;
			break;
		case 'P':
			ret = num_opt("collectives-workers-per-node", optarg, 1, VNP_CAP_MAX_CORES,
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
		case 'O':
			ret = node_opt(optarg, o);
			break;
		case 'C':
			ret = offset_opt(optarg, o);
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
			    "mpirun, one process a node (docs/profiler.md, \"Several "
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
			    "--collectives-workers-per-node %u (docs/profiler.md, \"Several "
			    "machines\"), or all of them here (leave out "
			    "--collectives-workers-per-node)", o->workers - o->per_node,
			    o->workers, o->per_node);
		return -EINVAL;
	}
	return 0;
}

/* ---- the program form ---- */

/*
 * Reads an input file into a tensor's bytes: a .npy of float32 (converted for a bf16
 * tensor) or raw bytes of exactly the tensor's size. 0 or -errno (said).
 */
static int read_input(const struct vnef_tensor *t, struct cap_input *in)
{
	uint64_t numel = 1, i;
	struct nd_error e;
	struct nd_npy npy;
	uint8_t *file, *buf;
	void *raw = NULL;
	size_t len;
	int ret;

	for (i = 0; i < t->rank && i < VNEF_MAX_RANK; i++)
		numel *= t->shape[i];
	ret = nd_read_file(in->path, VNEF_MAX_TENSOR_BYTES * 2 + 4096, &raw, &len);
	if (ret) {
		cap_err("input '%s': %s: %s", in->name, in->path, strerror(-ret));
		return ret;
	}
	file = raw;
	if (len < 6 || memcmp(file, "\x93NUMPY", 6)) {
		if (len != t->size) {
			cap_err("input '%s': %s is %zu bytes of raw data, the tensor %llu "
				    "bytes (or give a .npy file)", in->name, in->path, len,
				    (unsigned long long)t->size);
			free(file);
			return -EINVAL;
		}
		in->data = file;
		return 0;
	}
	ret = nd_npy_parse(file, len, &npy, &e);
	if (ret) {
		cap_err("input '%s': %s: %s", in->name, in->path, e.msg);
		free(file);
		return ret;
	}
	if (npy.count != numel) {
		cap_err("input '%s': %s holds %llu elements, the tensor %llu", in->name,
			    in->path, (unsigned long long)npy.count, (unsigned long long)numel);
		free(file);
		return -EINVAL;
	}
	buf = malloc(t->size);
	if (!buf) {
		free(file);
		return -ENOMEM;
	}
	for (i = 0; i < numel; i++) {
		float f;

		memcpy(&f, file + npy.data_off + 4 * i, 4);
		if (t->dtype == VNEF_DT_FP32) {
			memcpy(buf + 4 * i, &f, 4);
		} else {
			uint16_t h = nd_fp32_to_bf16(f);

			memcpy(buf + 2 * i, &h, 2);
		}
	}
	free(file);
	in->data = buf;
	return 0;
}

/* A FILE with {rank}: each worker's own file, the tag replaced by its rank. */
static int read_rank_inputs(const struct vnef_tensor *t, struct cap_input *in,
			    unsigned int workers, unsigned int base)
{
	const char *tag = strstr(in->path, RANK_TAG);
	struct cap_input one = { .name = in->name };
	char path[PATH_MAX];
	unsigned int r;
	int ret;

	for (r = 0; r < workers; r++) {
		snprintf(path, sizeof(path), "%.*s%u%s", (int)(tag - in->path), in->path,
			 base + r, tag + strlen(RANK_TAG));
		one.path = path;
		one.data = NULL;
		ret = read_input(t, &one);
		if (ret)
			return ret;
		in->rank_data[r] = one.data;
	}
	return 0;
}

/*
 * Every NAME FILE pair names an input tensor of the program; the first pair of a name
 * gives its bytes. 0 or -errno (said).
 */
static int read_inputs(const struct vnp_prog *p, struct cap_opts *o)
{
	unsigned int i, k;
	int j, ret;

	for (i = 0; i < o->nr_inputs; i++) {
		j = vnp_prog_tensor(p, o->inputs[i].name);
		if (j < 0 || p->tensors[j].kind != VNEF_TENSOR_INPUT) {
			cap_err("%s has no input tensor '%s'", o->program, o->inputs[i].name);
			return -ENOENT;
		}
	}
	for (i = 0; i < o->nr_inputs; i++) {
		for (k = 0; k < i; k++)
			if (!strcmp(o->inputs[k].name, o->inputs[i].name))
				break;
		if (k < i)
			continue;
		j = vnp_prog_tensor(p, o->inputs[i].name);
		if (o->workers && strstr(o->inputs[i].path, RANK_TAG)) {
			ret = read_rank_inputs(&p->tensors[j], &o->inputs[i], o->workers,
					       o->rank_base);
			if (ret)
				return ret;
			continue;
		}
		ret = read_input(&p->tensors[j], &o->inputs[i]);
		if (ret)
			return ret;
	}
	return 0;
}

static void free_inputs(struct cap_opts *o)
{
	unsigned int i, r;

	for (i = 0; i < o->nr_inputs; i++) {
		free(o->inputs[i].data);
		o->inputs[i].data = NULL;
		for (r = 0; r < VNP_CAP_MAX_CORES; r++) {
			free(o->inputs[i].rank_data[r]);
			o->inputs[i].rank_data[r] = NULL;
		}
	}
}

/* The program on a device file of its own. 0 or -errno (said). */
static int run_open(struct run *r, const struct cap_opts *o)
{
	struct nd_error e;
	int ret = nd_open(o->device, &r->dev, &e);

	if (ret)
		cap_err("%s", e.msg);
	return ret;
}

/* Loads the program on the device: what the kernel refuses is bad input. */
static int run_load(struct run *r, const struct cap_opts *o)
{
	struct nd_load_error le;
	const void *image;
	size_t size;
	int ret;

	image = vnp_prog_image(&r->prog, &size);
	ret = nd_program_load(r->dev, image, size, &r->loaded, &le);
	if (ret)
		cap_err("%s: %s", o->program, nd_device_error(r->dev));
	return ret;
}

/* The bytes input tensor name gets (a worker's own for a FILE with {rank}), or NULL. */
static const void *input_data(const struct cap_opts *o, const char *name, unsigned int rank)
{
	unsigned int i;

	for (i = 0; i < o->nr_inputs; i++) {
		const void *data = o->inputs[i].data ?:
				   (rank < VNP_CAP_MAX_CORES ? o->inputs[i].rank_data[rank] : NULL);

		if (data && !strcmp(name, o->inputs[i].name))
			return data;
	}
	return NULL;
}

/*
 * A device buffer for every input and output tensor (scratch tensors come from the core,
 * constants from the image), filled from the inputs given (a worker's own for a FILE
 * with {rank}); the others stay zero, as device memory starts. 0 or -errno (said).
 */
static int bind_tensors(struct nd_device *dev, const struct vnp_prog *p,
			const struct cap_opts *o, unsigned int rank, unsigned int *nb,
			struct nd_bind **binds, struct nd_mem ***mems)
{
	const void *data;
	uint32_t j;
	int ret;

	*binds = calloc(p->ntensors + 1, sizeof(**binds));
	*mems = calloc(p->ntensors + 1, sizeof(**mems));
	if (!*binds || !*mems)
		return -ENOMEM;
	for (j = 0; j < p->ntensors; j++) {
		const struct vnef_tensor *t = &p->tensors[j];
		const char *name = vnp_prog_str(p, t->name_off);
		struct nd_mem **m = &(*mems)[*nb];

		if (t->kind != VNEF_TENSOR_INPUT && t->kind != VNEF_TENSOR_OUTPUT)
			continue;
		ret = nd_mem_alloc(dev, t->size, m);
		if (ret) {
			cap_err("tensor '%s' (%llu bytes): %s", name,
				    (unsigned long long)t->size, nd_device_error(dev));
			return ret;
		}
		(*binds)[*nb].name = name;
		(*binds)[(*nb)++].mem = *m;
		data = input_data(o, name, rank);
		ret = data ? nd_mem_write(*m, 0, data, t->size) : 0;
		if (ret) {
			cap_err("input '%s': %s", name, nd_device_error(dev));
			return ret;
		}
	}
	return 0;
}

/*
 * --host: a zeroed host buffer for every input and output tensor, filled as
 * bind_tensors() fills device memory. 0 or -ENOMEM (said).
 */
static int host_tensors(const struct vnp_prog *p, const struct cap_opts *o, unsigned int rank,
			unsigned int *n, struct nd_host_tensor **tp)
{
	const void *data;
	uint32_t j;

	*tp = calloc(p->ntensors + 1, sizeof(**tp));
	if (!*tp)
		goto nomem;
	for (j = 0; j < p->ntensors; j++) {
		const struct vnef_tensor *t = &p->tensors[j];
		struct nd_host_tensor *ht = &(*tp)[*n];

		if (t->kind != VNEF_TENSOR_INPUT && t->kind != VNEF_TENSOR_OUTPUT)
			continue;
		ht->name = vnp_prog_str(p, t->name_off);
		ht->size = t->size;
		ht->data = t->size <= SIZE_MAX ? calloc(1, (size_t)t->size ?: 1) : NULL;
		if (!ht->data)
			goto nomem;
		++*n;
		data = input_data(o, ht->name, rank);
		if (data)
			memcpy(ht->data, data, (size_t)t->size);
	}
	return 0;
nomem:
	cap_err("out of memory for the program's tensors");
	return -ENOMEM;
}

static void host_tensors_free(struct nd_host_tensor *t, unsigned int n)
{
	unsigned int i;

	for (i = 0; t && i < n; i++)
		free(t[i].data);
	free(t);
}

/*
 * --host: one execution of the program on host core h. 0 with *res (an execution that
 * failed is a result), or -errno for one that could not run (said).
 */
static int host_exec(struct nd_host *h, const struct vnp_prog *p,
		     const struct nd_host_tensor *t, unsigned int n, struct nd_run_result *res)
{
	const void *image;
	size_t size;
	int ret;

	image = vnp_prog_image(p, &size);
	ret = nd_host_run(h, image, size, t, n, 0, res);
	if (ret && res->result == VNEURON_EXEC_OK) {
		cap_err("%s", nd_host_error(h));
		return ret;
	}
	return 0;
}

static int run_bind(struct run *r, const struct cap_opts *o)
{
	return bind_tensors(r->dev, &r->prog, o, 0, &r->nb, &r->binds, &r->mems);
}

static void run_free(struct run *r)
{
	unsigned int j;

	host_tensors_free(r->ht, r->nht);
	for (j = 0; r->mems && j < r->nb; j++)
		nd_mem_free(r->mems[j]);
	free(r->mems);
	free(r->binds);
	if (r->loaded)
		nd_program_unload(r->loaded);
	nd_close(r->dev);
	vnp_cap_close(&r->cap);
	vnp_prog_free(&r->prog);
}

/* On a terminal, runs longer than a second show their progress five times a second. */
static void progress(const struct vnp_capture *c, unsigned int i, unsigned int n, uint64_t t0,
		     uint64_t *last, int done)
{
	uint64_t t = vnp_now_ns(CLOCK_MONOTONIC);

	if (!done && (t - t0 < 1000000000ull || t - *last < 200000000ull))
		return;
	if (!*last && done)
		return;		/* short run: nothing was shown */
	*last = t;
	fprintf(stderr, "\rexecution %u/%u, %llu records, %.1f s%s", i, n,
		(unsigned long long)vnp_cap_records(c), (double)(t - t0) / 1e9,
		done ? "\n" : "");
}

/* "execution 1 ended FAULT: access outside SBUF (reason 7) at DMA q3 desc 2" */
static void exec_failed(const struct nd_run_result *res, unsigned int i,
			const struct cap_opts *o)
{
	char where[48] = "", sn[32];

	if (res->stream < VNEF_STREAMS)
		snprintf(where, sizeof(where), " at %s %s %u",
			 vnp_stream_name(res->stream, sn, sizeof(sn)),
			 res->stream < VNEF_ENGINES ? "pc" : "desc", res->pc);
	/* FAULT: the profile's ERROR record says which access (view shows it) */
	cap_err("execution %u ended %s%s%s (reason %u)%s%s", i,
		    vnp_exec_status_name(res->result), *vnp_exec_reason_name(res->reason) ?
		    ": " : "", vnp_exec_reason_name(res->reason), res->reason, where,
		    o->ignore_errors ? "; going on (--ignore-exec-errors)" : "");
}

/*
 * Runs the program --num-exec times, tracing all executions or the --profile-nth-exec
 * one; a failed execution stops the runs unless --ignore-exec-errors. 0 or -errno
 * (said); *failed counts the executions that did not end OK.
 */
static int run_execs(struct run *r, const struct cap_opts *o, unsigned int *failed)
{
	int tty = isatty(2) && !o->quiet, ret;
	uint64_t t0, last = 0;
	unsigned int i;

	*failed = 0;
	if (!o->nth) {
		ret = vnp_cap_start(&r->cap, &o->trace);
		if (ret)
			return ret;
	}
	t0 = vnp_now_ns(CLOCK_MONOTONIC);
	for (i = 1; i <= o->num_exec; i++) {
		struct nd_run_result res;
		uint64_t id;

		if (o->nth == i) {
			ret = vnp_cap_start(&r->cap, &o->trace);
			if (ret)
				return ret;
		}
		if (o->host) {
			ret = host_exec(r->cap.hosts[0], &r->prog, r->ht, r->nht, &res);
		} else {
			ret = nd_exec(r->loaded, r->cap.core[0], r->binds, r->nb, 0, &id) ?:
			      nd_wait(r->dev, id, ND_WAIT_FOREVER, &res);
			if (ret)
				cap_err("execution %u: %s", i, nd_device_error(r->dev));
		}
		if (ret)
			return ret;
		if (o->nth == i) {
			ret = vnp_cap_stop(&r->cap);
			if (ret)
				return ret;
		}
		if (res.result != VNEURON_EXEC_OK) {
			if (tty && last)
				fputc('\n', stderr);
			exec_failed(&res, i, o);
			++*failed;
			if (!o->ignore_errors)
				break;
		}
		if (tty)
			progress(&r->cap, i, o->num_exec, t0, &last, 0);
		if (vnp_signalled())
			break;
	}
	if (tty)
		progress(&r->cap, i > o->num_exec ? o->num_exec : i, o->num_exec, t0, &last, 1);
	return 0;
}

/* SIGINT or SIGTERM ended the run early: said, and 128+signal. */
static int stopped_by_signal(void)
{
	int sig = vnp_signalled();

	cap_err("stopped by %s after the running execution; the profile is complete",
		    strsignal(sig));
	return 128 + sig;
}

/* The exit status of the program form. */
static int cmd_capture_program(struct cap_opts *o)
{
	struct run r = { 0 };
	unsigned int failed = 0;
	char err[512];
	int ret, status;

	ret = vnp_prog_open(&r.prog, o->program, err, sizeof(err));
	if (ret) {
		cap_err("%s: %s", o->program, err);
		status = ret == -ENOMEM ? VNP_EXIT_SYSTEM : VNP_EXIT_INPUT;
		goto out;
	}
	ret = read_inputs(&r.prog, o);
	if (ret) {
		status = ret == -ENOMEM ? VNP_EXIT_SYSTEM : VNP_EXIT_INPUT;
		goto out;
	}
	status = VNP_EXIT_SYSTEM;
	if (o->host) {
		/* the host backend: nothing to open or load, buffers in this process */
		if (vnp_cap_open_host(&r.cap, 1, HOST_CORES_PER_DEVICE, 0) ||
		    create_profile(&r.cap, o, &r.prog) ||
		    host_tensors(&r.prog, o, 0, &r.nht, &r.ht) || run_execs(&r, o, &failed))
			goto out;
		goto finish;
	}
	if (vnp_cap_open(&r.cap, o->device))
		goto out;
	/* one core: the one given, or core 0 */
	if (vnp_cap_cores(&r.cap, o->cores, 1)) {
		status = VNP_EXIT_USAGE;
		goto out;
	}
	if (create_profile(&r.cap, o, &r.prog) || run_open(&r, o))
		goto out;
	if (run_load(&r, o)) {
		status = VNP_EXIT_INPUT;
		goto out;
	}
	if (run_bind(&r, o) || run_execs(&r, o, &failed))
		goto out;
finish:
	ret = vnp_cap_finish(&r.cap, o->quiet);
	status = ret ? VNP_EXIT_SYSTEM : failed ? VNP_EXIT_INPUT : VNP_EXIT_OK;
	if (!ret && vnp_signalled())
		status = stopped_by_signal();
	if (failed && o->ignore_errors)
		cap_err("%u of %u executions failed", failed, o->num_exec);
out:
	free_inputs(o);
	run_free(&r);
	return status;
}

/* ---- the program form with collectives workers ---- */

/* One worker (rank): its core, its communicator handle, its buffers. */
struct worker {
	unsigned int dev;		/* index of its device in the capture's and the run's */
	unsigned int core;
	struct nd_comm *comm;
	unsigned int nb;
	struct nd_bind *binds;
	struct nd_mem **mems;
	uint64_t id;			/* its execution in flight */
	int queued;
	struct nd_run_result res;
	/* --host: its host buffers, the thread running its execution, how that went */
	unsigned int nht;
	struct nd_host_tensor *ht;
	struct nd_host *h;
	const struct vnp_prog *prog;
	int ret;
};

struct wrun {
	struct vnp_prog prog;
	struct vnp_capture cap;
	struct nd_device *dev[VNP_CAP_MAX_DEVICES];	/* the workers' device files */
	struct nd_program *loaded[VNP_CAP_MAX_DEVICES];
	struct worker w[VNP_CAP_MAX_CORES];
	unsigned int n;
	nd_comm_id id;
	int registered;
	struct nd_host_comm *hcomm;	/* --host: the host ranks' communicator */
	const struct vnp_cap_nodes *nodes;	/* hcomm spans the nodes: theirs to free */
};

/*
 * Where the workers run: rank r on the r-th core counting from core 0 of /dev/vneuronD
 * on, device after device (each with its own core count). Opens the devices for tracing
 * and tells the capture. 0 or -errno (said).
 */
static int place_workers(struct wrun *wr, const struct cap_opts *o)
{
	unsigned int dev[VNP_CAP_MAX_CORES], core[VNP_CAP_MAX_CORES], r, d = 0, k = 0;
	int idx;

	for (r = 0; r < o->workers; r++) {
		if (k == wr->cap.core_count[d]) {
			/* this device is full: the next one */
			idx = vnp_cap_add_device(&wr->cap, wr->cap.devnum[d] + 1, 1);
			if (idx == -ENODEV) {
				cap_err("%u workers need %u more core%s than /dev/vneuron%u.."
					    "%u have (load the module with more devices or "
					    "cores)", o->workers, o->workers - r,
					    o->workers - r == 1 ? "" : "s", o->device,
					    wr->cap.devnum[d]);
				return -ENODEV;
			}
			if (idx < 0)
				return idx;
			d = (unsigned int)idx;
			k = 0;
		}
		dev[r] = d;
		core[r] = k++;
	}
	wr->n = o->workers;
	return vnp_cap_place(&wr->cap, dev, core, o->workers, 1);
}

static int nodes_comm_new(struct wrun *wr, const struct cap_opts *o, const uint32_t *dev);

/* The program on every worker's device, the communicator, each worker's buffers. */
static int workers_open(struct wrun *wr, const struct cap_opts *o)
{
	uint32_t dev[VNP_CAP_MAX_CORES];
	struct nd_load_error le;
	struct nd_error e;
	const void *image;
	unsigned int d, r;
	size_t size;
	int ret;

	image = vnp_prog_image(&wr->prog, &size);
	for (d = 0; d < wr->cap.ndev; d++) {
		ret = nd_open(wr->cap.devnum[d], &wr->dev[d], &e);
		if (ret) {
			cap_err("%s", e.msg);
			return ret;
		}
		ret = nd_program_load(wr->dev[d], image, size, &wr->loaded[d], &le);
		if (ret) {
			cap_err("%s: %s", o->program, nd_device_error(wr->dev[d]));
			return -EINVAL;		/* the program is refused: bad input */
		}
	}
	if (o->nodes) {
		/* registered by MPI's proxy, which unregisters it when it ends */
		for (r = 0; r < wr->n; r++)
			dev[r] = wr->cap.cdev[r];
		ret = nodes_comm_new(wr, o, dev);
		if (ret)
			return ret == -EINVAL ? -EIO : ret;
	} else {
		ret = nd_comm_create(wr->dev[0], wr->n, &wr->id);
		if (ret) {
			cap_err("a communicator of %u ranks: %s", wr->n, ret == -EOPNOTSUPP ?
				    "the module has no collectives (VNEURON_CAP_COLLECTIVES)" :
				    nd_device_error(wr->dev[0]));
			return ret == -EINVAL ? -EIO : ret;
		}
		wr->registered = 1;
	}
	for (r = 0; r < wr->n; r++) {
		struct worker *w = &wr->w[r];

		w->dev = wr->cap.cdev[r];
		w->core = wr->cap.core[r];
		ret = nd_comm_join(wr->dev[w->dev], &wr->id, o->rank_base + r, w->core,
				   &w->comm);
		if (ret) {
			cap_err("worker %u on /dev/vneuron%u core %u: %s", r,
				    wr->cap.devnum[w->dev], w->core, nd_device_error(wr->dev[w->dev]));
			return ret == -EINVAL ? -EIO : ret;
		}
		ret = bind_tensors(wr->dev[w->dev], &wr->prog, o, r, &w->nb, &w->binds,
				   &w->mems);
		if (ret)
			return ret == -EINVAL ? -EIO : ret;
	}
	if (wr->registered)
		nd_comm_unregister(wr->dev[0], &wr->id);
	wr->registered = 0;
	return 0;
}

/*
 * Several nodes: the communicator of this node's workers spanning every node's (MPI's
 * proxy, through o->nodes: host ranks with --host, else the module's on the first
 * device, whose id goes to wr->id), its first rank checked against the node section's.
 * 0 or -errno (said).
 */
static int nodes_comm_new(struct wrun *wr, const struct cap_opts *o, const uint32_t *dev)
{
	const struct vnp_cap_nodes *n = o->nodes;
	unsigned int first;
	int ret;

	if (o->host)
		ret = n->comm_new(n->ctx, wr->n, dev, &wr->hcomm, &first);
	else
		ret = n->comm_new_dev(n->ctx, wr->dev[0], wr->n, dev, &wr->id, &first);
	if (ret == -ECANCELED) {
		cap_err("node %u: another node failed before the workers met (its error "
			    "above); stopping", n->node);
		return ret;
	}
	if (ret) {
		cap_err("node %u: a communicator of %u workers here across %u nodes: %s",
			    n->node, wr->n, n->nr_nodes, ret == -EOPNOTSUPP ?
			    "the module has no network queue (VNEURON_CAP_NETQ)" :
			    strerror(-ret));
		return ret;
	}
	wr->nodes = n;
	if (first != o->rank_base) {
		cap_err("node %u: MPI numbers its first worker %u, the profile %u", n->node,
			    first, o->rank_base);
		return -EPROTO;
	}
	return 0;
}

/*
 * The communicator across nodes ends (before MPI does): 0, or the proxy's error (said:
 * a broken communicator, arguments that differ between nodes, MPI failing).
 */
static int nodes_comm_end(struct wrun *wr)
{
	unsigned int r;
	int ret;

	if (!wr->nodes)
		return 0;
	for (r = 0; r < wr->n; r++)
		if (wr->w[r].h)
			nd_host_set_comm(wr->w[r].h, NULL, 0);
	ret = wr->nodes->comm_free(wr->nodes->ctx);
	if (ret)
		cap_err("node %u: the communicator across nodes ended with an error: %s",
			    wr->nodes->node, strerror(-ret));
	wr->nodes = NULL;
	wr->hcomm = NULL;
	return ret;
}

/*
 * --host: the workers on host cores (placed as on devices of two cores, so two ranks of
 * one device exchange over the intra-device link as on the module), one communicator,
 * each worker's buffers. 0 or -errno (said).
 */
static int host_workers_open(struct wrun *wr, const struct cap_opts *o)
{
	uint32_t dev[VNP_CAP_MAX_CORES];
	unsigned int r;
	int ret;

	wr->n = o->workers;
	for (r = 0; r < wr->n; r++)
		dev[r] = wr->cap.cdev[r];
	if (o->nodes) {
		ret = nodes_comm_new(wr, o, dev);
		if (ret)
			return ret;
	} else {
		ret = nd_host_comm_new(wr->n, dev, &wr->hcomm);
		if (ret) {
			cap_err("a host communicator of %u ranks: %s", wr->n, strerror(-ret));
			return ret;
		}
	}
	for (r = 0; r < wr->n; r++) {
		struct worker *w = &wr->w[r];

		w->h = wr->cap.hosts[r];
		w->prog = &wr->prog;
		ret = nd_host_set_comm(w->h, wr->hcomm, o->rank_base + r) ?:
		      host_tensors(&wr->prog, o, r, &w->nht, &w->ht);
		if (ret)
			return ret;
	}
	return 0;
}

static void *host_worker_thread(void *arg)
{
	struct worker *w = arg;

	w->ret = host_exec(w->h, w->prog, w->ht, w->nht, &w->res);
	return NULL;
}

/* --host: one execution on every worker at once, a thread each, as ranks run. */
static int host_workers_round(struct wrun *wr, unsigned int i)
{
	pthread_t thr[VNP_CAP_MAX_CORES];
	unsigned int r, started;
	int ret = 0, e;

	for (started = 0; started < wr->n; started++) {
		e = pthread_create(&thr[started], NULL, host_worker_thread, &wr->w[started]);
		if (e) {
			cap_err("execution %u: cannot start worker %u's thread: %s", i,
				    started, strerror(e));
			/* the ranks started meet nobody: a broken communicator ends them */
			ret = -e;
			break;
		}
	}
	for (r = 0; r < started; r++) {
		pthread_join(thr[r], NULL);
		if (wr->w[r].ret && !ret)
			ret = wr->w[r].ret;
	}
	return ret;
}

static void workers_free(struct wrun *wr)
{
	unsigned int r, j, d;

	for (r = 0; r < wr->n; r++) {
		struct worker *w = &wr->w[r];

		host_tensors_free(w->ht, w->nht);
		if (w->h)
			nd_host_set_comm(w->h, NULL, 0);
		for (j = 0; w->mems && j < w->nb; j++)
			nd_mem_free(w->mems[j]);
		free(w->mems);
		free(w->binds);
		nd_comm_destroy(w->comm);
	}
	nd_host_comm_free(wr->hcomm);
	if (wr->registered)
		nd_comm_unregister(wr->dev[0], &wr->id);
	for (d = 0; d < VNP_CAP_MAX_DEVICES; d++) {
		if (wr->loaded[d])
			nd_program_unload(wr->loaded[d]);
		nd_close(wr->dev[d]);
	}
	vnp_cap_close(&wr->cap);
	vnp_prog_free(&wr->prog);
}

/* "worker 2: execution 1 ended ABORTED: collective 0 (ALL_REDUCE) ... rank 1 left" */
static void worker_failed(struct wrun *wr, unsigned int r, unsigned int i,
			  const struct cap_opts *o)
{
	struct worker *w = &wr->w[r];
	char what[256];

	if (o->host)
		/* no module to ask: the status and reason */
		snprintf(what, sizeof(what), "%s (reason %u)",
			 vnp_exec_reason_name(w->res.reason), w->res.reason);
	else
		nd_comm_describe(w->comm, wr->loaded[w->dev], &w->res, what, sizeof(what));
	cap_err("worker %u: execution %u ended %s: %s%s", r, i,
		    vnp_exec_status_name(w->res.result), what,
		    o->ignore_errors ? "; going on (--ignore-exec-errors)" : "");
}

/*
 * Runs the program --num-exec times on every worker at once (each execution of a rank
 * meets the others' at its collectives), tracing all executions or the K-th of each
 * worker. A failed execution breaks the communicator, so the runs stop unless
 * --ignore-exec-errors (and then every later collective fails too). 0 or -errno (said);
 * *failed counts the workers' executions that did not end OK.
 */
static int workers_execs(struct wrun *wr, const struct cap_opts *o, unsigned int *failed)
{
	int tty = isatty(2) && !o->quiet, ret;
	uint64_t t0, last = 0;
	unsigned int i, r, bad;

	*failed = 0;
	if (!o->nth) {
		ret = vnp_cap_start(&wr->cap, &o->trace);
		if (ret)
			return ret;
	}
	t0 = vnp_now_ns(CLOCK_MONOTONIC);
	for (i = 1; i <= o->num_exec; i++) {
		if (o->nth == i) {
			ret = vnp_cap_start(&wr->cap, &o->trace);
			if (ret)
				return ret;
		}
		ret = 0;
		for (r = 0; r < wr->n && !ret && !o->host; r++) {
			struct worker *w = &wr->w[r];

			ret = nd_exec(wr->loaded[w->dev], w->core, w->binds, w->nb, 0, &w->id);
			if (ret)
				cap_err("worker %u: execution %u: %s", r, i,
					    nd_device_error(wr->dev[w->dev]));
			w->queued = !ret;
		}
		if (o->host)
			ret = host_workers_round(wr, i);
		/* every queued execution is waited for, even after a failed submission */
		for (r = 0; r < wr->n; r++) {
			struct worker *w = &wr->w[r];
			int wret;

			if (!w->queued)
				continue;
			w->queued = 0;
			wret = nd_wait(wr->dev[w->dev], w->id, ND_WAIT_FOREVER, &w->res);
			if (wret && !ret) {
				cap_err("worker %u: execution %u: %s", r, i,
					    nd_device_error(wr->dev[w->dev]));
				ret = wret;
			}
		}
		if (ret)
			return ret;
		if (o->nth == i) {
			ret = vnp_cap_stop(&wr->cap);
			if (ret)
				return ret;
		}
		for (r = 0, bad = 0; r < wr->n; r++) {
			if (wr->w[r].res.result == VNEURON_EXEC_OK)
				continue;
			if (tty && last && !bad)
				fputc('\n', stderr);
			worker_failed(wr, r, i, o);
			bad++;
		}
		*failed += bad;
		if (bad && !o->ignore_errors)
			break;
		if (tty)
			progress(&wr->cap, i, o->num_exec, t0, &last, 0);
		if (vnp_signalled())
			break;
	}
	if (tty)
		progress(&wr->cap, i > o->num_exec ? o->num_exec : i, o->num_exec, t0, &last, 1);
	return 0;
}

/*
 * Nodes on one machine (mpirun's processes standing in for nodes): the local-th takes
 * the devices after those of the nodes before it, each node as many as its workers
 * fill from --device on (devices of that one's core count). 0 or -errno (said).
 */
static int node_device(struct wrun *wr, struct cap_opts *o)
{
	unsigned int cores = wr->cap.core_count[0];
	uint64_t first;

	if (!cores) {
		cap_err("/dev/vneuron%u has no cores", o->device);
		return -ENODEV;
	}
	first = o->device + (uint64_t)o->nodes->local * ((o->workers + cores - 1) / cores);
	if (first > UINT_MAX) {
		cap_err("node %u: --device %u is too high for %u nodes here", o->nodes->node,
			    o->device, o->nodes->local + 1);
		return -ERANGE;
	}
	vnp_cap_close(&wr->cap);
	memset(&wr->cap, 0, sizeof(wr->cap));
	o->device = (unsigned int)first;
	if (!vnp_cap_open(&wr->cap, o->device))
		return 0;
	cap_err("node %u, after %u other node%s on this machine: its workers take "
		    "/dev/vneuron%u on, after theirs (load the module with devices for every "
		    "node here)", o->nodes->node, o->nodes->local,
		    o->nodes->local == 1 ? "" : "s", o->device);
	return -ENODEV;
}

/* The exit status of the program form with --collectives-worker-count. */
static int cmd_capture_workers(struct cap_opts *o)
{
	struct wrun *wr = calloc(1, sizeof(*wr));
	unsigned int failed = 0;
	char err[512];
	int ret, status = VNP_EXIT_SYSTEM;

	if (!wr) {
		cap_err("out of memory");
		return VNP_EXIT_SYSTEM;
	}
	ret = vnp_prog_open(&wr->prog, o->program, err, sizeof(err));
	if (ret) {
		cap_err("%s: %s", o->program, err);
		status = ret == -ENOMEM ? VNP_EXIT_SYSTEM : VNP_EXIT_INPUT;
		goto out;
	}
	ret = read_inputs(&wr->prog, o);
	if (ret) {
		status = ret == -ENOMEM ? VNP_EXIT_SYSTEM : VNP_EXIT_INPUT;
		goto out;
	}
	if (o->host) {
		if (vnp_cap_open_host(&wr->cap, o->workers, HOST_CORES_PER_DEVICE, 1) ||
		    create_profile(&wr->cap, o, &wr->prog))
			goto out;
		ret = host_workers_open(wr, o);
		if (ret)
			goto out;
		goto run;
	}
	if (vnp_cap_open(&wr->cap, o->device))
		goto out;
	if (o->nodes && o->nodes->local) {
		ret = node_device(wr, o);
		if (ret) {
			status = ret == -ERANGE ? VNP_EXIT_USAGE : VNP_EXIT_SYSTEM;
			goto out;
		}
	}
	ret = place_workers(wr, o);
	if (ret) {
		status = ret == -ENODEV || ret == -ERANGE ? VNP_EXIT_USAGE : VNP_EXIT_SYSTEM;
		goto out;
	}
	if (create_profile(&wr->cap, o, &wr->prog))
		goto out;
	ret = workers_open(wr, o);
	if (ret) {
		status = ret == -EINVAL ? VNP_EXIT_INPUT : VNP_EXIT_SYSTEM;
		goto out;
	}
run:
	if (workers_execs(wr, o, &failed))
		goto out;
	ret = vnp_cap_finish(&wr->cap, o->quiet);
	status = ret ? VNP_EXIT_SYSTEM : failed ? VNP_EXIT_INPUT : VNP_EXIT_OK;
	if (!ret && vnp_signalled())
		status = stopped_by_signal();
	if (failed && o->ignore_errors)
		cap_err("%u of %u executions failed", failed, o->num_exec * wr->n);
out:
	if (nodes_comm_end(wr) && status == VNP_EXIT_OK)
		status = VNP_EXIT_SYSTEM;
	free_inputs(o);
	workers_free(wr);
	free(wr);
	return status;
}

/* ---- the application form ---- */

/* The exit status of the application form: the application's own. */
static int cmd_capture_app(const struct cap_opts *o)
{
	char api[PATH_MAX + 16];
	struct vnp_capture c = { 0 };
	int st, status = VNP_EXIT_SYSTEM, fd, ret, fwd;
	pid_t pid;

	if (vnp_cap_open(&c, o->device))
		goto out;
	if (!o->device_given && !o->nr_cores) {
		/* every core of every device: the application's workers may use any */
		unsigned int d;
		int idx = 0;

		for (d = o->device + 1; d < o->device + VNP_CAP_MAX_DEVICES && idx >= 0; d++)
			idx = vnp_cap_add_device(&c, d, 1);
		if (idx < 0 && idx != -ENODEV)
			goto out;
		vnp_cap_all_cores(&c);
	} else if (vnp_cap_cores(&c, o->cores, o->nr_cores)) {
		status = VNP_EXIT_USAGE;
		goto out;
	}
	if (create_profile(&c, o, NULL) || vnp_cap_start(&c, &o->trace))
		goto out;
	/*
	 * The API log: a new file of our own next to the profile (mkstemp(): O_EXCL, so
	 * nothing that is there, a file or a symlink, is truncated or followed), named to
	 * the application in VNEURON_PROFILE_API and removed once merged.
	 */
	if ((size_t)snprintf(api, sizeof(api), "%s.api.XXXXXX", o->profile) >= sizeof(api)) {
		cap_err("%s: the name is too long", o->profile);
		goto out;
	}
	fd = mkstemp(api);
	if (fd < 0) {
		cap_err("%s: cannot create the API log next to it: %s", o->profile,
			    strerror(errno));
		goto out;
	}
	close(fd);
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		cap_err("fork: %s", strerror(errno));
		unlink(api);
		goto out;
	}
	if (!pid) {
		setenv("VNEURON_PROFILE", o->profile, 1);
		setenv("VNEURON_PROFILE_API", api, 1);
		execvp(o->app[0], o->app);
		cap_err("%s: %s", o->app[0], strerror(errno));
		_exit(127);
	}
	/*
	 * The application owns the terminal's ^C; we stay to write what it left. SIGTERM
	 * is passed on to it, and we still write the profile when it has gone.
	 */
	signal(SIGINT, SIG_IGN);
	vnp_catch_signals();
	for (fwd = 0;;) {
		ret = waitpid(pid, &st, WNOHANG);
		if (ret == pid)
			break;
		if (ret < 0 && errno != EINTR) {
			st = 0;
			break;
		}
		if (vnp_signalled() == SIGTERM && !fwd) {
			kill(pid, SIGTERM);
			fwd = 1;
		}
		usleep(20000);
	}
	signal(SIGINT, SIG_DFL);
	ret = vnp_cap_stop(&c);
	if (ret)
		unlink(api);
	else
		ret = vnp_cap_merge_api(&c, api, pid) ?: vnp_cap_finish(&c, o->quiet);
	if (!ret)
		status = WIFEXITED(st) ? WEXITSTATUS(st) :
			 WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
out:
	vnp_cap_close(&c);
	return status;
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
		return cmd_capture_app(&o);
	vnp_catch_signals();
	return o.workers ? cmd_capture_workers(&o) : cmd_capture_program(&o);
}

int cmd_capture(int argc, char **argv)
{
	return capture_main(argc, argv, NULL);
}

int cmd_capture_nodes(int argc, char **argv, const struct vnp_cap_nodes *nodes)
{
	return capture_main(argc, argv, nodes);
}
