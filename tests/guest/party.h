/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Parties of the guest's multi-user tests (shares_test, attack_test): a child process
 * running as some user (root with its capabilities, or an unprivileged uid whose groups
 * give it the device nodes), holding devices, telemetry subscriptions and what it made
 * through them, and doing one thing at a time at the test's word (party_call()), so a
 * test can have user A hold its share while user B and root ask for theirs.
 *
 * A party may open files (and a telemetry socket) as root before it drops to its uid:
 * the audit's attacker, who opened the device and then ran as uid 65534.
 */
#ifndef PARTY_H
#define PARTY_H

#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kmod_test.h"
#include "neurondev.h"
#include "vnprog.h"
#include "../cc_program.h"

#define PARTY_GID	4343		/* the nodes' group while the tests run */
#define PARTY_FILES	16
#define PARTY_TELS	16
#define PARAMS_DIR	"/sys/module/vneuron/parameters/"

enum party_op {
	P_OPEN,			/* a: device: a file slot */
	P_CLOSE,		/* a: file slot */
	P_COMM_CREATE,		/* a: file: a registration handle */
	P_TEL_OPEN,		/* a telemetry handle's slot */
	P_SUBSCRIBE,		/* a: telemetry slot */
	P_TRACE_START,		/* a: file, b: core */
	P_TRACE_STOP,		/* a: file, b: core */
	P_RUN,			/* a: file, b: core: one tiny execution, reaped: claims the core */
	P_SUBMIT,		/* a: file, b: core: one tiny execution, never reaped */
	P_ALLOC,		/* a: file, b: bytes: a buffer's handle */
	P_RING,			/* a: file: a registration with a remote rank and a ring */
	P_USED,			/* a: file, b: enum vneuron_share_kind: GET_INFO's user_used */
	P_USERNS,		/* enter a new user namespace, its uid 0 this party's uid */
	P_TEL_EVENTS,		/* a: telemetry slot, b: ms: events about a device or process */
	P_TEL_HIDDEN,		/* a: telemetry slot, b: core of device 0: 1 hidden, 0 shown,
				 * 2 not owned */
	P_EXIT,
};

struct party_msg {
	int op;
	int64_t a, b;
};

struct party {
	pid_t pid;
	int to, from;
	uid_t uid;
};

/* The child's state. */
static int party_fd[PARTY_FILES];
static uint32_t party_prog[PARTY_FILES];
static struct nd_telemetry *party_tel[PARTY_TELS];

static inline int party_slot_fd(int64_t i)
{
	return i >= 0 && i < PARTY_FILES ? party_fd[i] : -1;
}

/* A one-element memset, the smallest program. */
static inline int party_tiny(void **img, size_t *size)
{
	struct nd_builder *b;
	struct nd_tile *t;
	int ret;

	if (nd_builder_new("tiny", &b))
		return -1;
	t = nd_sbuf(b, "t", ND_FP32, 1, 1);
	nd_memset(b, ND_VECTOR, nd_whole(t), 1.0f);
	ret = nd_builder_finish(b, img, size);
	nd_builder_free(b);
	return ret;
}

static inline int party_prog_of(int64_t slot)
{
	int fd = party_slot_fd(slot), ret;
	size_t size;
	void *img;

	if (fd < 0)
		return -EBADF;
	if (party_prog[slot])
		return 0;
	if (party_tiny(&img, &size))
		return -EINVAL;
	ret = vn_prog_load(fd, img, size, &party_prog[slot], NULL);
	free(img);
	return ret;
}

static inline int party_open_slot(int dev)
{
	char path[32];
	int i, fd;

	snprintf(path, sizeof(path), "/dev/vneuron%d", dev);
	for (i = 0; i < PARTY_FILES; i++) {
		if (party_fd[i] >= 0)
			continue;
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		party_fd[i] = fd;
		party_prog[i] = 0;
		return i;
	}
	return -EMFILE;
}

static inline int party_tel_slot(void)
{
	struct nd_error err;
	int i, ret;

	for (i = 0; i < PARTY_TELS; i++) {
		if (party_tel[i])
			continue;
		ret = nd_telemetry_open(&party_tel[i], &err);
		return ret ? ret : i;
	}
	return -EMFILE;
}

/* A registration whose rank 1 is on another node, served through a ring. */
static inline int party_ring(int fd)
{
	static const uint32_t nodes[2] = { 0, 1 }, devs[2] = { 0, 0 };
	struct vneuron_comm_create c = { .nranks = 2 };
	struct vneuron_comm_nodes n = {
		.node = 0, .nodes = (uintptr_t)nodes, .devices = (uintptr_t)devs, .nranks = 2,
	};
	struct vneuron_netq_ring_setup r = { .entries = 2, .stage_size = 4096 };
	int ret, stage;

	ret = vn_ioctl(fd, VNEURON_IOCTL_COMM_CREATE, &c);
	if (ret)
		return ret;
	n.handle = c.handle;
	ret = vn_ioctl(fd, VNEURON_IOCTL_COMM_NODES, &n);
	if (ret)
		return ret;
	stage = vn_alloc(fd, 4096, NULL);
	if (stage < 0)
		return stage;
	r.handle = c.handle;
	r.stage = (uint32_t)stage;
	return vn_ioctl(fd, VNEURON_IOCTL_NETQ_RING_SETUP, &r);
}

/* Into a new user namespace whose uid 0 is this process's uid. */
static inline int party_userns(void)
{
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();

	int ret;

	if (unshare(CLONE_NEWUSER))
		return -errno;
	ret = vn_write_file("/proc/self/setgroups", "deny");
	snprintf(map, sizeof(map), "0 %u 1", uid);
	if (!ret)
		ret = vn_write_file("/proc/self/uid_map", map);
	snprintf(map, sizeof(map), "0 %u 1", gid);
	if (!ret)
		ret = vn_write_file("/proc/self/gid_map", map);
	return ret;
}

/* Events received within ms that are about a device or a process (not ERROR, DROPPED). */
static inline int party_tel_events(int64_t slot, int64_t ms)
{
	uint64_t end = vn_now_ns() + (uint64_t)ms * 1000000ull, now;
	struct nd_tel_event ev;
	int n = 0, ret;

	if (slot < 0 || slot >= PARTY_TELS || !party_tel[slot])
		return -EBADF;
	while ((now = vn_now_ns()) < end) {
		ret = nd_telemetry_next_event(party_tel[slot], &ev, (int)((end - now) / 1000000));
		if (ret < 0)
			return ret;
		if (ret && ev.type != VNEURON_EVENT_ERROR && ev.type != VNEURON_EVENT_DROPPED)
			n++;
	}
	return n;
}

/* How core of device 0 shows its owner to this party's dump. */
static inline int party_tel_hidden(int64_t slot, int64_t core)
{
	struct nd_tel_core *c = NULL;
	int n, i, ret = -ENOENT;

	if (slot < 0 || slot >= PARTY_TELS || !party_tel[slot])
		return -EBADF;
	n = nd_telemetry_cores(party_tel[slot], 0, &c);
	for (i = 0; i < n; i++)
		if (c[i].core == core)
			ret = c[i].owner_hidden ? 1 : c[i].owner_pid ? 0 : 2;
	free(c);
	return n < 0 ? n : ret;
}

static inline int party_do(const struct party_msg *m)
{
	struct vneuron_wait w;
	struct vneuron_info info;
	struct vneuron_trace_start ts;
	struct vneuron_trace_stop tp;
	struct vneuron_comm_create cc;
	int fd = party_slot_fd(m->a), ret;
	uint64_t id;

	switch (m->op) {
	case P_OPEN:
		return party_open_slot((int)m->a);
	case P_CLOSE:
		if (fd < 0)
			return -EBADF;
		close(fd);
		party_fd[m->a] = -1;
		return 0;
	case P_COMM_CREATE:
		cc = (struct vneuron_comm_create){ .nranks = 2 };
		ret = vn_ioctl(fd, VNEURON_IOCTL_COMM_CREATE, &cc);
		return ret ? ret : (int)cc.handle;
	case P_TEL_OPEN:
		return party_tel_slot();
	case P_SUBSCRIBE:
		if (m->a < 0 || m->a >= PARTY_TELS || !party_tel[m->a])
			return -EBADF;
		return nd_telemetry_subscribe(party_tel[m->a]);
	case P_TRACE_START:
		ts = (struct vneuron_trace_start){ .core = (uint32_t)m->b, .ring_size = 4096 };
		return vn_ioctl(fd, VNEURON_IOCTL_TRACE_START, &ts);
	case P_TRACE_STOP:
		tp = (struct vneuron_trace_stop){ .core = (uint32_t)m->b };
		return vn_ioctl(fd, VNEURON_IOCTL_TRACE_STOP, &tp);
	case P_RUN:
		ret = party_prog_of(m->a);
		if (!ret)
			ret = vn_run_on(fd, party_prog[m->a], (uint32_t)m->b, NULL, 0, &w);
		return ret ? ret : (int)w.status;
	case P_SUBMIT:
		ret = party_prog_of(m->a);
		return ret ? ret : vn_exec_on(fd, party_prog[m->a], (uint32_t)m->b, NULL, 0, 0, &id);
	case P_ALLOC:
		return vn_alloc(fd, (uint64_t)m->b, NULL);
	case P_RING:
		return fd < 0 ? -EBADF : party_ring(fd);
	case P_USED:
		memset(&info, 0, sizeof(info));
		ret = vn_ioctl(fd, VNEURON_IOCTL_GET_INFO, &info);
		if (ret || m->b < 0 || m->b >= VNEURON_SHARE_COUNT)
			return ret ? ret : -EINVAL;
		return (int)info.shares[m->b].user_used;
	case P_USERNS:
		return party_userns();
	case P_TEL_EVENTS:
		return party_tel_events(m->a, m->b);
	case P_TEL_HIDDEN:
		return party_tel_hidden(m->a, m->b);
	}
	return -ENOSYS;
}

static inline void party_main(int in, int out)
{
	struct party_msg m;
	int ret;

	while (read(in, &m, sizeof(m)) == sizeof(m)) {
		if (m.op == P_EXIT)
			break;
		ret = party_do(&m);
		if (write(out, &ret, sizeof(ret)) != sizeof(ret))
			break;
	}
	_exit(0);
}

/* Drop from root to uid, with PARTY_GID (the nodes' group) as its only group. */
static inline int party_drop(uid_t uid)
{
	gid_t g = PARTY_GID;

	if (setgroups(1, &g) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		return -errno;
	/* As a process the user started: the uid change made it undumpable (root's /proc). */
	if (prctl(PR_SET_DUMPABLE, 1))
		return -errno;
	return 0;
}

/*
 * A party as uid (0: root, keeping its capabilities), having opened pre_files files of
 * /dev/vneuron0 and pre_tels telemetry handles as root first (slots 0..). 0 or -errno.
 */
static inline int party_start(struct party *p, uid_t uid, int pre_files, int pre_tels)
{
	int to[2], from[2], i, ret = 0;

	if (pipe(to) || pipe(from))
		return -errno;
	p->uid = uid;
	p->pid = fork();
	if (p->pid < 0)
		return -errno;
	if (!p->pid) {
		close(to[1]);
		close(from[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (i = 0; i < PARTY_FILES; i++)
			party_fd[i] = -1;
		memset(party_tel, 0, sizeof(party_tel));
		for (i = 0; i < pre_files && !ret; i++)
			ret = party_open_slot(0) < 0 ? -1 : 0;
		for (i = 0; i < pre_tels && !ret; i++)
			ret = party_tel_slot() < 0 ? -1 : 0;
		if (!ret && uid)
			ret = party_drop(uid);
		if (write(from[1], &ret, sizeof(ret)) != sizeof(ret) || ret)
			_exit(1);
		party_main(to[0], from[1]);
	}
	close(to[0]);
	close(from[1]);
	p->to = to[1];
	p->from = from[0];
	if (read(p->from, &ret, sizeof(ret)) != sizeof(ret))
		return -EIO;
	return ret;
}

/* What the party answers to op (a -errno, or the op's result). */
static inline int party_call(struct party *p, int op, int64_t a, int64_t b)
{
	struct party_msg m = { .op = op, .a = a, .b = b };
	int ret;

	if (write(p->to, &m, sizeof(m)) != sizeof(m) ||
	    read(p->from, &ret, sizeof(ret)) != sizeof(ret))
		return -EPIPE;
	return ret;
}

/* The party exits (everything it held is released): its exit status. */
static inline int party_end(struct party *p)
{
	struct party_msg m = { .op = P_EXIT };
	int st = 0;

	if (p->pid <= 0)
		return -1;
	if (write(p->to, &m, sizeof(m)) != sizeof(m))
		kill(p->pid, SIGKILL);
	close(p->to);
	close(p->from);
	waitpid(p->pid, &st, 0);
	p->pid = 0;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* ---- the nodes and the parameters, put back as they were ---- */

struct node_was {
	struct stat st[2];
	bool have[2];
};

/* Both nodes to root:PARTY_GID 0660, as a deployment's udev rule gives its group. */
static inline int nodes_for_group(struct node_was *was)
{
	char path[32];
	int i;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "/dev/vneuron%d", i);
		was->have[i] = !stat(path, &was->st[i]);
		if (was->have[i] && (chown(path, 0, PARTY_GID) || chmod(path, 0660)))
			return -errno;
	}
	return 0;
}

static inline void nodes_restore(const struct node_was *was)
{
	char path[32];
	int i;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "/dev/vneuron%d", i);
		if (was->have[i] && (chown(path, was->st[i].st_uid, was->st[i].st_gid) ||
				     chmod(path, was->st[i].st_mode & 07777)))
			fprintf(stderr, "# could not restore %s\n", path);
	}
}

static inline long long param_get(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), PARAMS_DIR "%s", name);
	return vn_read_num(path);
}

static inline int param_set(const char *name, long long v)
{
	char path[128], val[32];

	snprintf(path, sizeof(path), PARAMS_DIR "%s", name);
	snprintf(val, sizeof(val), "%lld", v);
	return vn_write_file(path, val);
}

/* Every writable share parameter, saved and put back. */
static const char *const share_params[] = {
	"comms_total", "comms_per_user", "comms_reserved", "subscribers_per_user",
	"subscribers_reserved", "traces_per_user", "netq_rings_total", "netq_rings_per_user",
	"netq_rings_reserved", "execs_total", "execs_per_user", "execs_reserved",
	"cores_per_user", "cores_reserved", "hbm_per_user_pct", "hbm_reserved_pct",
};
#define NR_SHARE_PARAMS	(sizeof(share_params) / sizeof(share_params[0]))

struct params_was {
	long long v[NR_SHARE_PARAMS];
};

static inline void params_save(struct params_was *was)
{
	size_t i;

	for (i = 0; i < NR_SHARE_PARAMS; i++)
		was->v[i] = param_get(share_params[i]);
}

static inline void params_restore(const struct params_was *was)
{
	size_t i;

	for (i = 0; i < NR_SHARE_PARAMS; i++)
		if (was->v[i] >= 0 && param_set(share_params[i], was->v[i]))
			fprintf(stderr, "# could not restore %s\n", share_params[i]);
}

#endif /* PARTY_H */
