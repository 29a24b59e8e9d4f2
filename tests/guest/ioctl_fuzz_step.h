/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * ioctl_fuzz_test.c's operations through io_uring, bad ioctls, the network queue,
 * poll, bursts and fork, and the step that picks one operation (ioctl_fuzz.h and
 * ioctl_fuzz_ops.h are included before it). Included once, by ioctl_fuzz_test.c.
 */
#ifndef IOCTL_FUZZ_STEP_H
#define IOCTL_FUZZ_STEP_H

/* io_uring: CQEs that have arrived (or, with wait, one within 100 ms). */
static void fz_reap_cqes(struct fz_worker *w, bool wait)
{
	struct __kernel_timespec ts = { .tv_nsec = 100000000 };
	struct io_uring_cqe *cqe;
	struct fz_slot *s;
	int ret;

	while (w->inflight) {
		ret = wait ? io_uring_wait_cqe_timeout(&w->ring, &cqe, &ts) :
			     io_uring_peek_cqe(&w->ring, &cqe);
		if (ret)
			return;
		wait = false;
		if (cqe->user_data >= FZ_SLOTS || !w->slot[cqe->user_data].busy) {
			fz_bad(w, FZ_URING_CQE, 0, "CQE for no command: %llu",
			       (unsigned long long)cqe->user_data);
			io_uring_cqe_seen(&w->ring, cqe);
			continue;
		}
		s = &w->slot[cqe->user_data];
		/* a CQE's res: 0 or the execution's end (-EIO, -ETIMEDOUT, -ECANCELED) */
		ret = cqe->res;
		io_uring_cqe_seen(&w->ring, cqe);
		if (ret == -EIO || ret == -ECANCELED)
			fz_add(&sh->ops[FZ_URING_CQE], 1);
		else
			fz_note(w, FZ_URING_CQE, ret);
		if (s->has_status && (!ret || ret == -EIO || ret == -ETIMEDOUT))
			fz_status(w, FZ_URING_CQE, &s->w, s->blob);
		fz_blob_put(s->blob);
		s->busy = false;
		w->inflight--;
	}
}

static void op_uring_exec(struct fz_worker *w, struct fz_file *f)
{
	struct io_uring_sqe *sqe;
	struct vneuron_uring_cmd uc;
	const struct fz_prog *p;
	struct fz_slot *s = NULL;
	uint64_t scratch;
	unsigned int i;
	int ret;

	if (!w->ring_on) {
		ret = io_uring_queue_init(2 * FZ_SLOTS, &w->ring, 0);
		fz_note(w, FZ_URING_EXEC, ret);
		w->ring_on = !ret;
		return;
	}
	fz_reap_cqes(w, w->inflight == FZ_SLOTS);
	for (i = 0; i < FZ_SLOTS && !s; i++)
		if (!w->slot[i].busy)
			s = &w->slot[i];
	if (!s)
		return;
	p = fz_exec_args(w, f, &s->e, s->h, &scratch);
	memset(&s->w, 0, sizeof(s->w));
	uc.exec_ptr = (uintptr_t)&s->e;
	uc.status_ptr = (uintptr_t)&s->w;
	s->has_status = true;
	switch (fz_below(w, 16)) {
	case 0: uc.status_ptr = 0; s->has_status = false; break;
	case 1: uc.status_ptr = (uintptr_t)fz_bad_ptr(w, true); s->has_status = false; break;
	case 2: uc.exec_ptr = (uintptr_t)fz_bad_ptr(w, false); break;
	}
	sqe = io_uring_get_sqe(&w->ring);
	if (!sqe)
		return;
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = f->fd;
	sqe->cmd_op = fz_one_in(w, 24) ? _IOW(VNEURON_IOCTL_BASE, 0x41, struct vneuron_uring_cmd) :
					 VNEURON_URING_CMD_EXEC;
	sqe->user_data = (uint64_t)(s - w->slot);
	if (fz_one_in(w, 8))
		sqe->flags |= IOSQE_ASYNC;
	memcpy(sqe->cmd, &uc, sizeof(uc));
	s->busy = true;
	s->blob = fz_blob_get(p ? p->blob : NULL);
	w->inflight++;
	ret = io_uring_submit(&w->ring);
	fz_note(w, FZ_URING_EXEC, ret < 0 ? ret : 0);
	fz_reap_cqes(w, false);
}

/* Commands the module does not have: ENOTTY, whatever the file. */
static void op_bad_ioctl(struct fz_worker *w, struct fz_file *f)
{
	static const unsigned long known[] = {
		VNEURON_IOCTL_GET_INFO, VNEURON_IOCTL_MEM_ALLOC, VNEURON_IOCTL_MEM_FREE,
		VNEURON_IOCTL_MEM_WRITE, VNEURON_IOCTL_MEM_READ, VNEURON_IOCTL_RESET,
		VNEURON_IOCTL_PROGRAM_LOAD, VNEURON_IOCTL_PROGRAM_UNLOAD, VNEURON_IOCTL_EXEC,
		VNEURON_IOCTL_WAIT, VNEURON_IOCTL_TRACE_START, VNEURON_IOCTL_TRACE_STOP,
		VNEURON_IOCTL_COMM_CREATE, VNEURON_IOCTL_COMM_JOIN, VNEURON_IOCTL_COMM_INFO,
		VNEURON_IOCTL_COMM_DESTROY, VNEURON_IOCTL_COMM_NODES, VNEURON_IOCTL_NETQ_WAIT,
		VNEURON_IOCTL_NETQ_COMPLETE, VNEURON_IOCTL_NETQ_RING_SETUP,
		VNEURON_IOCTL_NETQ_DOORBELL,
	};
	unsigned long cmd = VNM_PICK(&w->r, known), sizeless, k;
	bool exists = false;
	size_t i;
	int ret;

	switch (fz_below(w, 3)) {
	case 0:	/* another direction */
		cmd ^= (unsigned long)(1 + fz_below(w, 3)) << _IOC_DIRSHIFT;
		break;
	case 1:	/* another number */
		cmd = _IOC(fz_below(w, 4), VNEURON_IOCTL_BASE, fz_below(w, 256), fz_below(w, 1024));
		break;
	default:	/* another type */
		cmd = (cmd & ~((unsigned long)_IOC_TYPEMASK << _IOC_TYPESHIFT)) |
		      ((unsigned long)('v' + fz_below(w, 4)) << _IOC_TYPESHIFT);
		break;
	}
	sizeless = cmd & ~((unsigned long)_IOC_SIZEMASK << _IOC_SIZESHIFT);
	for (i = 0; i < VNM_N(known); i++) {
		k = known[i] & ~((unsigned long)_IOC_SIZEMASK << _IOC_SIZESHIFT);
		exists |= k == sizeless;
	}
	if (exists)
		return;
	memset(w->arg, 0, sizeof(w->arg));
	ret = vn_ioctl(f->fd, cmd, w->arg);
	fz_note(w, FZ_BAD_IOCTL, ret);
	if (ret != -ENOTTY)
		fz_bad(w, FZ_BAD_IOCTL, -ret, "ioctl %#lx: %d, not ENOTTY", cmd, ret);
}

/*
 * The network queue (docs/uapi.md, "Ranks on other nodes"): a communicator with ranks on
 * another node, then COMM_NODES, NETQ_WAIT (a short wait: nobody stands at a
 * collective) and NETQ_COMPLETE with random arguments, handles and pointers; sometimes
 * a ring (NETQ_RING_SETUP), mapped, filled with garbage and rung (NETQ_DOORBELL); the
 * registration kept or destroyed (a kept one breaks at close).
 */
/* A ring on registration reg (or a random handle): set up, mapped, scribbled on, rung. */
static void op_netq_ring(struct fz_worker *w, struct fz_file *f, uint32_t reg, uint32_t stage)
{
	struct vneuron_netq_ring_setup rs = {
		.handle = fz_one_in(w, 8) ? fz_below(w, 4) : reg,
		.entries = fz_one_in(w, 4) ? (uint32_t)fz_edge(w, 4) : 2u << fz_below(w, 6),
		.stage = stage,
		.stage_offset = fz_one_in(w, 4) ? fz_edge(w, 8) : fz_below(w, 8192),
		.stage_size = fz_one_in(w, 4) ? fz_edge(w, 8) : fz_below(w, 8192),
		.flags = fz_one_in(w, 32),
	};
	struct vneuron_netq_doorbell db = { .handle = rs.handle };
	uint32_t *m, i, words;
	int ret;

	ret = fz_ioctl(w, f, FZ_NETQ, VNEURON_IOCTL_NETQ_RING_SETUP, &rs, sizeof(rs));
	fz_note(w, FZ_NETQ, ret);
	if (ret)
		return;
	m = mmap(NULL, rs.mmap_len, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd,
		 (off_t)rs.mmap_offset);
	if (m == MAP_FAILED) {
		fz_bad(w, FZ_NETQ, errno, "mmap of a ring just set up: %d", -errno);
		return;
	}
	/* Garbage in every index and some descriptor words: the kernel checks them all. */
	words = (uint32_t)(rs.mmap_len / sizeof(*m));
	for (i = 0; i < 64; i++)
		m[fz_below(w, words)] = (uint32_t)fz_edge(w, 4);
	if (fz_one_in(w, 2))
		m[32] = (uint32_t)fz_below(w, 4);	/* cpl_head a little ahead */
	if (fz_one_in(w, 4)) {
		db.flags = VNEURON_NETQ_DOORBELL_STAGE;
		db.stage = stage;
		db.stage_size = fz_below(w, 8192);
	}
	fz_note(w, FZ_NETQ,
		fz_ioctl(w, f, FZ_NETQ, VNEURON_IOCTL_NETQ_DOORBELL, &db, sizeof(db)));
	/* Its last unmapping breaks the communicator; the file's close frees the rest. */
	munmap(m, rs.mmap_len);
}

static void op_netq(struct fz_worker *w, struct fz_file *f)
{
	static const uint32_t errs[] = { 0, EIO, ETIMEDOUT, EPIPE, EINVAL, EINTR, ENOMEM, 9999 };
	uint32_t nodes[4], devs[4] = { 0 }, n = 1 + fz_below(w, 4), i, stage;
	struct vneuron_comm_create cc = { .nranks = n };
	struct vneuron_comm_destroy d = { 0 };
	struct vneuron_netq_complete nc;
	struct vneuron_comm_nodes nd;
	struct vneuron_netq_wait nw;
	uint64_t arr[4] = { 0 };
	int ret;

	ret = fz_ioctl(w, f, FZ_NETQ, VNEURON_IOCTL_COMM_CREATE, &cc, sizeof(cc));
	fz_note(w, FZ_NETQ, ret);
	if (ret)
		return;
	for (i = 0; i < n; i++)
		nodes[i] = fz_below(w, 3);
	nd = (struct vneuron_comm_nodes){
		.handle = fz_one_in(w, 8) ? fz_below(w, 4) : cc.handle, .node = fz_below(w, 2),
		.nodes = (uintptr_t)(fz_one_in(w, 16) ? fz_bad_ptr(w, false) : nodes),
		.devices = (uintptr_t)devs, .nranks = fz_one_in(w, 8) ? fz_below(w, 70) : n,
		.flags = fz_one_in(w, 16),
	};
	fz_note(w, FZ_NETQ, fz_ioctl(w, f, FZ_NETQ, VNEURON_IOCTL_COMM_NODES, &nd, sizeof(nd)));
	stage = f->nmem && !fz_one_in(w, 8) ? f->mem[fz_below(w, f->nmem)].handle :
					      fz_below(w, 8);
	nw = (struct vneuron_netq_wait){
		.handle = fz_one_in(w, 8) ? fz_below(w, 4) : cc.handle,
		.timeout_ns = fz_one_in(w, 16) ? 0 : vn_now_ns() + fz_below(w, 2000000),
		.stage = stage,
		.stage_offset = fz_one_in(w, 4) ? fz_edge(w, 8) : fz_below(w, 8192),
		.stage_size = fz_one_in(w, 4) ? fz_edge(w, 8) : fz_below(w, 8192),
		.arrivals = (uintptr_t)(fz_one_in(w, 8) ? fz_bad_ptr(w, true) : arr),
		.pad = fz_one_in(w, 32),
	};
	fz_note(w, FZ_NETQ, fz_ioctl(w, f, FZ_NETQ, VNEURON_IOCTL_NETQ_WAIT, &nw, sizeof(nw)));
	for (i = 0; i < n; i++)
		arr[i] = fz_one_in(w, 4) ? fz_edge(w, 8) : fz_below(w, 1000000);
	nc = (struct vneuron_netq_complete){
		.handle = fz_one_in(w, 8) ? fz_below(w, 4) : cc.handle,
		.id = fz_below(w, 4), .stage = stage,
		.stage_offset = fz_one_in(w, 4) ? fz_edge(w, 8) : fz_below(w, 8192),
		.arrivals = (uintptr_t)(fz_one_in(w, 8) ? fz_bad_ptr(w, false) : arr),
		.error = errs[fz_below(w, VNM_N(errs))], .failed_rank = fz_below(w, 6),
		.missing = fz_one_in(w, 2) ? 0 : fz_edge(w, 8) & 0xf,
	};
	fz_note(w, FZ_NETQ,
		fz_ioctl(w, f, FZ_NETQ, VNEURON_IOCTL_NETQ_COMPLETE, &nc, sizeof(nc)));
	if (fz_one_in(w, 2))
		op_netq_ring(w, f, cc.handle, stage);
	if (fz_one_in(w, 4))
		return;
	d.handle = cc.handle;
	fz_note(w, FZ_NETQ, fz_ioctl(w, f, FZ_NETQ, VNEURON_IOCTL_COMM_DESTROY, &d, sizeof(d)));
}

static void op_poll(struct fz_worker *w, struct fz_file *f)
{
	struct pollfd p = { .fd = f->fd, .events = POLLIN };
	int ret = poll(&p, 1, fz_below(w, 5));

	fz_note(w, FZ_POLL, ret < 0 ? -errno : 0);
}

/*
 * A file that lives for one execution: open, load, EXEC, close at once. Its release
 * cancels the execution and drops the core, whose executor then goes, racing the
 * workers that were about to start it.
 */
static void op_burst(struct fz_worker *w)
{
	struct fz_file *f;
	unsigned int i;

	fz_add(&sh->ops[FZ_BURST], 1);
	for (i = 0; i < FZ_FILES && w->f[i].fd >= 0; i++)
		;
	if (i == FZ_FILES) {
		f = fz_file(w);
		if (f)
			op_close(w, f);
	}
	for (i = 0; i < FZ_FILES && w->f[i].fd >= 0; i++)
		;
	op_open(w);		/* into slot i, the first free one */
	if (i == FZ_FILES || w->f[i].fd < 0)
		return;
	f = &w->f[i];
	op_program_load(w, f);
	if (f->nprog) {
		w->want = 0;
		op_exec(w, f);
		if (f->nexec)
			fz_add(&sh->ok[FZ_BURST], 1);
	}
	if (fz_one_in(w, 4))
		usleep(fz_below(w, 2000));
	op_close(w, f);
}

static void fz_step(struct fz_worker *w);

/* A child with the worker's files (the same open files) for a while. */
static void op_fork(struct fz_worker *w)
{
	unsigned int i, n;
	pid_t pid, me;
	int st;

	for (i = 0; i < FZ_KIDS; i++) {
		if (w->kid[i] > 0 && waitpid(w->kid[i], &st, WNOHANG) == w->kid[i]) {
			if (WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL)
				fz_bad(w, FZ_FORK, 0, "child %d died of signal %d", w->kid[i],
				       WTERMSIG(st));
			else if (WIFEXITED(st) && WEXITSTATUS(st))
				fz_bad(w, FZ_FORK, 0, "child %d exited %d", w->kid[i],
				       WEXITSTATUS(st));
			w->kid[i] = 0;
		}
	}
	for (i = 0; i < FZ_KIDS && w->kid[i] > 0; i++)
		;
	if (i == FZ_KIDS) {
		i = fz_below(w, FZ_KIDS);
		fz_pid_note(sh->killed, &sh->nkilled, FZ_NKILLED, w->kid[i]);
		kill(w->kid[i], SIGKILL);
		return;
	}
	me = getpid();
	pid = fork();
	fz_note(w, FZ_FORK, pid < 0 ? -errno : 0);
	if (pid < 0)
		return;
	if (pid) {
		fz_add(&sh->children, 1);
		w->kid[i] = pid;
		return;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != me)
		_exit(0);	/* the worker went before the signal was set */
	w->child = true;
	w->ring_on = false;	/* the ring's memory is the parent's too: not ours */
	w->inflight = 0;
	memset(w->kid, 0, sizeof(w->kid));
	w->seed = vnm_rand(&w->r);
	n = 5 + fz_below(w, 40);
	for (i = 0; i < n && !__atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE); i++)
		fz_step(w);
	_exit(0);
}

/* One random operation. */
static void fz_step(struct fz_worker *w)
{
	struct fz_file *f = fz_file(w);
	unsigned int c = fz_below(w, 100);

	w->step++;
	if (!f || c < 4) {
		op_open(w);
		return;
	}
	if (c < 7)
		op_close(w, f);
	else if (c < 10)
		op_get_info(w, f);
	else if (c < 18)
		fz_alloc(w, f, fz_alloc_size(w));
	else if (c < 22)
		op_mem_free(w, f);
	else if (c < 26)
		op_mem_rw(w, f, true);
	else if (c < 30)
		op_mem_rw(w, f, false);
	else if (c < 33)
		op_reset(w, f);
	else if (c < 43)
		op_program_load(w, f);
	else if (c < 46)
		op_program_unload(w, f);
	else if (c < 58 && !f->nprog && !fz_one_in(w, 4))
		op_program_load(w, f);	/* what an EXEC needs, mostly first */
	else if (c < 58)
		op_exec(w, f);
	else if (c < 68 && !f->nexec && !fz_one_in(w, 4))
		op_exec(w, f);
	else if (c < 68)
		op_wait(w, f);
	else if (c < 71)
		op_trace_start(w, f);
	else if (c < 74)
		op_trace_stop(w, f);
	else if (c < 80)
		op_mmap(w, f);
	else if (c < 82)
		op_mprotect(w);
	else if (c < 85)
		op_munmap(w);
	else if (c < 92 && !w->child)
		op_uring_exec(w, f);
	else if (c < 94)
		op_bad_ioctl(w, f);
	else if (c < 95)
		op_netq(w, f);
	else if (c < 96)
		op_poll(w, f);
	else if (c < 97)
		op_burst(w);
	else if (!w->child)
		op_fork(w);
}

#endif /* IOCTL_FUZZ_STEP_H */
