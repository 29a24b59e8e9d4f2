/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * ioctl_fuzz_test.c's operations on files, memory, programs, executions, trace
 * sessions and maps, each checked against the oracle of ioctl_fuzz.h (included before
 * it). Included once, by ioctl_fuzz_test.c.
 */
#ifndef IOCTL_FUZZ_OPS_H
#define IOCTL_FUZZ_OPS_H

/* ---- operations ---- */

static void op_open(struct fz_worker *w)
{
	unsigned int i, dev = fz_below(w, fz_ndev);
	char path[64];
	int fd, flags = fz_one_in(w, 8) ? O_RDONLY : O_RDWR;

	for (i = 0; i < FZ_FILES && w->f[i].fd >= 0; i++)
		;
	if (i == FZ_FILES)
		return;
	snprintf(path, sizeof(path), "/dev/vneuron%u", fz_one_in(w, 64) ? 9 : dev);
	fd = open(path, flags | (fz_one_in(w, 2) ? O_CLOEXEC : 0));
	fz_note(w, FZ_OPEN, fd < 0 ? -errno : 0);
	if (fd < 0)
		return;
	fz_forget_file(&w->f[i]);
	w->f[i].fd = fd;
	w->f[i].dev = dev;
	w->f[i].rw = flags == O_RDWR;
}

static void op_close(struct fz_worker *w, struct fz_file *f)
{
	fz_note(w, FZ_CLOSE, close(f->fd) ? -errno : 0);
	fz_forget_file(f);
}

static void op_get_info(struct fz_worker *w, struct fz_file *f)
{
	struct vneuron_info info;
	unsigned int size = sizeof(info);
	int ret;

	memset(&info, 0, sizeof(info));
	if (fz_one_in(w, 16))
		info.flags = (uint32_t)fz_edge(w, 4);
	if (fz_one_in(w, 4))
		size = offsetof(struct vneuron_info, limits);	/* a version-1 caller */
	ret = fz_ioctl(w, f, FZ_GET_INFO,
		       (VNEURON_IOCTL_GET_INFO & ~((unsigned long)_IOC_SIZEMASK << _IOC_SIZESHIFT)) |
		       ((unsigned long)size << _IOC_SIZESHIFT), &info, size);
	if (!ret && (info.core_count != fz_cores[f->dev] || info.device_index != f->dev))
		fz_bad(w, FZ_GET_INFO, 0, "GET_INFO: %u cores, device %u", info.core_count,
		       info.device_index);
}

static uint64_t fz_alloc_size(struct fz_worker *w)
{
	switch (fz_below(w, 8)) {
	case 0: return fz_edge(w, 8);
	case 1: return fz_one_in(w, 16) ? fz_hbm_bytes : fz_hbm_bytes + 1;
	case 2: return 4096 * (1 + fz_below(w, 64));
	default: return 1 + fz_below(w, 65536);
	}
}

/* MEM_ALLOC of size bytes, kept in f's table if there is room: its handle or 0. */
static uint32_t fz_alloc(struct fz_worker *w, struct fz_file *f, uint64_t size)
{
	struct vneuron_mem_alloc a = { .size = size };
	struct vneuron_mem_free fr = { 0 };

	if (fz_one_in(w, 32))
		a.flags = (uint32_t)fz_edge(w, 4);
	if (fz_ioctl(w, f, FZ_MEM_ALLOC, VNEURON_IOCTL_MEM_ALLOC, &a, sizeof(a)) || !a.handle)
		return 0;
	if (f->nmem < FZ_MEMS) {
		f->mem[f->nmem++] = (struct fz_mem){ a.handle, a.size, a.mmap_offset };
		return a.handle;
	}
	fr.handle = a.handle;
	fz_ioctl(w, f, FZ_MEM_FREE, VNEURON_IOCTL_MEM_FREE, &fr, sizeof(fr));
	return 0;
}

static void op_mem_free(struct fz_worker *w, struct fz_file *f)
{
	struct vneuron_mem_free a = { .handle = fz_handle(w, f) };

	if (fz_one_in(w, 32))
		a.flags = 1;
	if (!fz_ioctl(w, f, FZ_MEM_FREE, VNEURON_IOCTL_MEM_FREE, &a, sizeof(a)))
		fz_mem_drop(f, a.handle);
}

static void op_mem_rw(struct fz_worker *w, struct fz_file *f, bool write)
{
	struct fz_mem *m = fz_mem(w, f);
	struct vneuron_mem_rw a = { .handle = fz_handle(w, f) };
	uint64_t room = m ? m->size : 4096;

	if (m && !fz_one_in(w, 8))
		a.handle = m->handle;
	a.offset = fz_below(w, (uint32_t)(room < FZ_BUF ? room : FZ_BUF));
	a.size = 1 + fz_below(w, FZ_BUF - 1);
	if (a.offset + a.size > room && !fz_one_in(w, 8))
		a.size = room > a.offset ? room - a.offset : 1;
	if (a.size > FZ_BUF)
		a.size = FZ_BUF;
	a.user_ptr = (uintptr_t)w->buf;
	switch (fz_below(w, 16)) {
	case 0: a.size = 0; break;
	case 1: a.offset = fz_edge(w, 8); break;
	case 2: a.user_ptr = (uintptr_t)fz_bad_ptr(w, !write); break;
	case 3: a.flags = (uint32_t)fz_edge(w, 4); break;
	case 4:	/* a device mapping as the user memory */
		if (w->nmap) {
			struct fz_map *mp = &w->map[fz_below(w, w->nmap)];

			if (write || mp->writable) {
				a.user_ptr = (uintptr_t)mp->p;
				a.size = mp->len < a.size ? mp->len : a.size;
			}
		}
		break;
	case 5: a.size = fz_edge(w, 8); a.user_ptr = (uintptr_t)fz_bad_ptr(w, true); break;
	}
	if (!write && a.user_ptr == (uintptr_t)w->buf && a.size > FZ_BUF)
		a.size = FZ_BUF;
	fz_ioctl(w, f, write ? FZ_MEM_WRITE : FZ_MEM_READ,
		 write ? VNEURON_IOCTL_MEM_WRITE : VNEURON_IOCTL_MEM_READ, &a, sizeof(a));
}

static void op_reset(struct fz_worker *w, struct fz_file *f)
{
	struct vneuron_reset a = { .core = fz_core(w, f) };

	if (fz_one_in(w, 16))
		a.flags = (uint32_t)fz_edge(w, 4);
	fz_ioctl(w, f, FZ_RESET, VNEURON_IOCTL_RESET, &a, sizeof(a));
}

/* The tensors of an image as the tensor table says (the kernel's count comes back). */
static void fz_prog_info(struct fz_prog *p, const uint8_t *img, size_t size)
{
	struct vnm_img im;
	struct vnef_tensor t;
	uint32_t i;

	memset(p->kind, 0, sizeof(p->kind));
	memset(p->size, 0, sizeof(p->size));
	if (!vnm_parse(&im, (uint8_t *)img, size) || im.ten < 0)
		return;
	for (i = 0; i < FZ_TENS && i < im.sec[im.ten].n; i++) {
		memcpy(&t, vnm_entry(&im, (uint32_t)im.ten, i), sizeof(t));
		p->kind[i] = (uint8_t)t.kind;
		p->size[i] = t.size;
	}
}

static void op_exec(struct fz_worker *w, struct fz_file *f);

static void op_program_load(struct fz_worker *w, struct fz_file *f)
{
	const typeof(fz_imgs[0]) *src = &fz_imgs[fz_below(w, fz_nimg)];
	struct vneuron_program_load a = { 0 };
	struct vn_prog_error e;
	bool mutated = fz_one_in(w, 2), exact = true;
	size_t size = src->size;
	unsigned int k, n;
	int ret, host;

	memcpy(w->img, src->img, size);
	if (mutated) {
		n = fz_one_in(w, 4) ? 2 + fz_below(w, 2) : 1;
		for (k = 0; k < n; k++)
			size = vnm_mutate(w->img, size, FZ_IMG_MAX, vnm_rand(&w->r), NULL);
		fz_add(&sh->loads_mutated, 1);
	}
	a.image_ptr = (uintptr_t)w->img;
	a.image_size = size;
	switch (fz_below(w, 24)) {
	case 0: a.image_size = 0; exact = false; break;
	case 1: a.image_size = VNEF_MAX_IMAGE_BYTES + 1ull; exact = false; break;
	case 2: a.image_ptr = (uintptr_t)fz_bad_ptr(w, false); exact = false; break;
	case 3: a.flags = (uint32_t)fz_edge(w, 4); exact = false; break;
	case 4: a.image_size = size + 8 * fz_below(w, 4); exact = a.image_size == size; break;
	}
	/* keep room for a program: the file's limit is 256 */
	if (f->nprog == FZ_PROGS) {
		struct vneuron_program_unload u = { .handle = f->prog[0].handle };

		fz_ioctl(w, f, FZ_PROGRAM_UNLOAD, VNEURON_IOCTL_PROGRAM_UNLOAD, &u, sizeof(u));
		fz_blob_put(f->prog[0].blob);
		f->prog[0] = f->prog[--f->nprog];
	}
	ret = fz_ioctl(w, f, FZ_PROGRAM_LOAD, VNEURON_IOCTL_PROGRAM_LOAD, &a, sizeof(a));
	if (mutated && !ret)
		fz_add(&sh->loads_mutated_ok, 1);
	/* the kernel's validator is core/program.c, as is the host build's: same verdict */
	if (exact && !w->altered && (!ret || ret == -EINVAL) && f->rw) {
		host = vn_program_check(w->img, size, &e);
		if (!ret != !host || (ret && a.check && a.check != e.check))
			fz_bad(w, FZ_PROGRAM_LOAD, -ret,
			       "kernel %d (check %u) vs host %d (check %u: %.24s)", ret, a.check,
			       host, host ? e.check : 0, host ? e.msg : "");
	}
	if (ret || !a.handle || f->nprog == FZ_PROGS)
		return;
	f->prog[f->nprog] = (struct fz_prog){ .handle = a.handle, .ntens = a.tensor_count,
					      .mutated = mutated };
	fz_prog_info(&f->prog[f->nprog], w->img, size);
	f->prog[f->nprog].blob = fz_blob_new(w->img, size);
	f->nprog++;
	/* run what the validator just took from the mutator, often at once */
	if (mutated && fz_one_in(w, 2)) {
		w->want = (int)f->nprog - 1;
		op_exec(w, f);
	}
}

static void op_program_unload(struct fz_worker *w, struct fz_file *f)
{
	struct vneuron_program_unload a = { .handle = (uint32_t)fz_edge(w, 4) };
	unsigned int i = f->nprog ? fz_below(w, f->nprog) : 0;

	if (f->nprog && !fz_one_in(w, 8))
		a.handle = f->prog[i].handle;
	if (fz_one_in(w, 32))
		a.flags = 1;
	if (!fz_ioctl(w, f, FZ_PROGRAM_UNLOAD, VNEURON_IOCTL_PROGRAM_UNLOAD, &a, sizeof(a)) &&
	    f->nprog && a.handle == f->prog[i].handle) {
		fz_blob_put(f->prog[i].blob);
		f->prog[i] = f->prog[--f->nprog];
	}
}

/* A buffer of this file of at least size bytes, made if needed: its handle or 0. */
static uint32_t fz_buffer(struct fz_worker *w, struct fz_file *f, uint64_t size)
{
	unsigned int i, k = f->nmem ? fz_below(w, f->nmem) : 0;

	for (i = 0; i < f->nmem; i++)
		if (f->mem[(k + i) % f->nmem].size >= size)
			return f->mem[(k + i) % f->nmem].handle;
	return size <= (4u << 20) ? fz_alloc(w, f, size) : 0;
}

/*
 * An EXEC's arguments: mostly right, sometimes one thing wrong. *scratch: what the core
 * would allocate for it (held from submission to completion), which we keep small: the
 * guest's memory is not what this test is about.
 */
static const struct fz_prog *fz_exec_args(struct fz_worker *w, struct fz_file *f,
					  struct vneuron_exec *e, uint32_t *h, uint64_t *scratch)
{
	static const uint64_t limits[] = {
		0, 1, 1000, 1000000, 10000000, 100000000, 100000000, 1000000000, 1000000000,
		600000000000ull,
	};
	const struct fz_prog *p = f->nprog ? &f->prog[fz_below(w, f->nprog)] : NULL;
	uint32_t i, n;

	/* the mutated programs the validator took are the interesting ones to run */
	for (i = 0; i < f->nprog && fz_one_in(w, 2); i++)
		if (f->prog[i].mutated)
			p = &f->prog[i];
	if (w->want >= 0 && (unsigned int)w->want < f->nprog)
		p = &f->prog[w->want];
	w->want = -1;
	n = p ? p->ntens : fz_below(w, 4);

	memset(e, 0, sizeof(*e));
	e->program = p && !fz_one_in(w, 16) ? p->handle : (uint32_t)fz_edge(w, 4);
	e->core = fz_core(w, f);
	e->time_limit_ns = fz_one_in(w, 32) ? fz_edge(w, 8) : VNM_PICK(&w->r, limits);
	for (i = 0; i < n && i < FZ_TENS; i++) {
		h[i] = 0;
		if (!p)
			continue;
		switch (p->kind[i]) {
		case VNEF_TENSOR_CONST:
			break;
		case VNEF_TENSOR_SCRATCH:
			if (fz_one_in(w, 2))
				h[i] = fz_buffer(w, f, p->size[i]);
			break;
		default:
			h[i] = fz_buffer(w, f, p->size[i]);
			break;
		}
		if (fz_one_in(w, 64))
			h[i] = fz_handle(w, f);
	}
	/* larger, but within the file's limit: a wrong buffer instead (a refusal) */
	*scratch = 0;
	for (i = 0; p && i < n && i < FZ_TENS; i++)
		if (p->kind[i] == VNEF_TENSOR_SCRATCH && !h[i])
			*scratch += (p->size[i] + 63) & ~63ull;
	if (*scratch > FZ_SCRATCH && *scratch <= fz_max_exec_bytes) {
		for (i = 0; i < n && i < FZ_TENS; i++)
			if (p->kind[i] == VNEF_TENSOR_SCRATCH && !h[i])
				h[i] = fz_handle(w, f);
		*scratch = 0;
	}
	e->mem_count = n;
	e->mem_handles_ptr = (uintptr_t)h;
	switch (fz_below(w, 24)) {
	case 0: e->mem_count = n + 1; break;
	case 1: e->mem_count = (uint32_t)fz_edge(w, 4); break;
	case 2: e->mem_handles_ptr = (uintptr_t)fz_bad_ptr(w, false); break;
	case 3: e->flags = (uint32_t)fz_edge(w, 4); break;
	case 4: e->exec_id = fz_edge(w, 8); break;
	}
	if (e->mem_count > FZ_TENS && e->mem_handles_ptr == (uintptr_t)h)
		e->mem_handles_ptr = (uintptr_t)fz_none;
	return p;
}

static void fz_scratch_seen(uint64_t bytes)
{
	uint64_t old = __atomic_load_n(&sh->scratch_max, __ATOMIC_RELAXED);

	while (bytes > old && !__atomic_compare_exchange_n(&sh->scratch_max, &old, bytes, false,
							   __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

static void op_exec(struct fz_worker *w, struct fz_file *f)
{
	uint32_t h[FZ_TENS];
	struct vneuron_exec e;
	const struct fz_prog *p;
	uint64_t scratch;

	/* unreaped executions hold their scratch: no more than we can reap */
	if (f->nexec == FZ_EXECS)
		return;
	p = fz_exec_args(w, f, &e, h, &scratch);
	if (fz_ioctl(w, f, FZ_EXEC, VNEURON_IOCTL_EXEC, &e, sizeof(e)) || !e.exec_id)
		return;
	fz_scratch_seen(scratch);
	if (e.core < FZ_CORES)
		f->owns[e.core] = true;
	if (p && p->mutated)
		fz_add(&sh->execs_mutated, 1);
	f->exec[f->nexec++] = (struct fz_exec){ e.exec_id, e.time_limit_ns,
						fz_blob_get(p ? p->blob : NULL) };
}

static void op_wait(struct fz_worker *w, struct fz_file *f)
{
	struct vneuron_wait a = { .exec_id = fz_edge(w, 8) };
	unsigned int i = f->nexec ? fz_below(w, f->nexec) : 0;
	struct fz_exec *x = f->nexec && !fz_one_in(w, 8) ? &f->exec[i] : NULL;

	if (x)
		a.exec_id = x->id;
	switch (fz_below(w, 8)) {
	case 0: a.timeout_ns = 0; break;
	case 1: a.timeout_ns = fz_edge(w, 8); break;
	default: a.timeout_ns = fz_now() + 1000000ull * fz_below(w, 50); break;
	}
	/* without a deadline only what is sure to end soon */
	if (a.timeout_ns == VNEURON_WAIT_FOREVER &&
	    (!x || f->nexec > 1 || !x->limit_ns || x->limit_ns > 1000000000ull))
		a.timeout_ns = fz_now() + 10000000ull;
	if (fz_one_in(w, 32))
		a.flags = 1;
	if (fz_ioctl(w, f, FZ_WAIT, VNEURON_IOCTL_WAIT, &a, sizeof(a)))
		return;
	fz_status(w, FZ_WAIT, &a, x ? x->blob : NULL);
	if (x && a.exec_id == x->id) {
		fz_blob_put(x->blob);
		*x = f->exec[--f->nexec];
	}
}

static void fz_map_add(struct fz_worker *w, uint8_t *p, size_t len, bool writable,
		       bool may_write)
{
	if (w->nmap == FZ_MAPS) {
		munmap(w->map[0].p, w->map[0].len);
		w->map[0] = w->map[--w->nmap];
	}
	w->map[w->nmap++] = (struct fz_map){ p, len, writable, may_write };
}

static void op_trace_start(struct fz_worker *w, struct fz_file *f)
{
	/*
	 * Up to 16 MiB rings (80 MiB a session): sessions of 256 MiB rings on two cores
	 * would take the whole 2 GiB guest and bring the global OOM killer on the workers
	 * (security_test runs them in a memory cgroup instead). 2^29 is past the maximum.
	 */
	static const uint64_t sizes[] = {
		4096, 4096, 8192, 16384, 65536, 1 << 20, 0, 4095, 6000, 1ull << 24, 1ull << 29,
	};
	struct vneuron_trace_start a = { 0 };
	const struct vneuron_trace_ctrl *ctrl;
	uint8_t *cons, *ring;
	uint32_t i;
	int prot;

	a.core = fz_core(w, f);
	a.mode = fz_one_in(w, 16) ? 2 : fz_below(w, 2);
	a.ring_size = VNM_PICK(&w->r, sizes);
	switch (fz_below(w, 6)) {
	case 0: a.watermark = 64 * fz_below(w, 8); break;
	case 1: a.watermark = (uint32_t)fz_edge(w, 4); break;
	default: a.watermark = 0; break;
	}
	if (fz_one_in(w, 32))
		a.flags = 1;
	if (fz_one_in(w, 32))
		a.pad = 1;
	if (fz_ioctl(w, f, FZ_TRACE_START, VNEURON_IOCTL_TRACE_START, &a, sizeof(a)))
		return;
	if (a.core < FZ_CORES)
		f->tracing[a.core] = true;
	/* map ring i and look at it; the consumer position is ours to write, any value */
	i = fz_below(w, a.nr_rings + 1);
	cons = mmap(NULL, a.consumer_len, PROT_READ | PROT_WRITE, MAP_SHARED, f->fd,
		    a.mmap_offset + i * a.ring_stride);
	fz_note(w, FZ_MMAP, cons == MAP_FAILED ? -errno : 0);
	if (cons != MAP_FAILED) {
		if (i >= a.nr_rings)
			fz_bad(w, FZ_MMAP, 0, "ring %u of %u mapped", i, a.nr_rings);
		((struct vneuron_trace_consumer *)cons)->consumer_pos = fz_edge(w, 8);
		fz_map_add(w, cons, a.consumer_len, true, true);
	}
	prot = PROT_READ | (fz_one_in(w, 8) ? PROT_WRITE : 0);
	ring = mmap(NULL, a.ring_len, prot, MAP_SHARED, f->fd,
		    a.mmap_offset + i * a.ring_stride + a.consumer_len);
	fz_note(w, FZ_MMAP, ring == MAP_FAILED ? -errno : 0);
	if (ring == MAP_FAILED)
		return;
	if (i >= a.nr_rings || (prot & PROT_WRITE))
		fz_bad(w, FZ_MMAP, 0, "ring %u of %u mapped with prot %#x", i, a.nr_rings, prot);
	ctrl = (const void *)ring;
	if (ctrl->magic != VNEURON_TRACE_CTRL_MAGIC || ctrl->data_size != a.ring_size ||
	    ctrl->data_offset + a.ring_size > a.ring_len) {
		fz_bad(w, FZ_MMAP, 0, "ring control page: magic %#x data %llu at %llu",
		       ctrl->magic, (unsigned long long)ctrl->data_size,
		       (unsigned long long)ctrl->data_offset);
	} else {
		w->buf[0] = ring[ctrl->data_offset + fz_below(w, (uint32_t)a.ring_size)];
	}
	if (!fz_one_in(w, 4))
		munmap(ring, a.ring_len);
	else
		fz_map_add(w, ring, a.ring_len, false, false);
}

static void op_trace_stop(struct fz_worker *w, struct fz_file *f)
{
	struct vneuron_trace_stop a = { .core = fz_core(w, f) };
	uint32_t c;

	for (c = 0; c < FZ_CORES; c++)
		if (f->tracing[c] && fz_one_in(w, 2))
			a.core = c;
	if (fz_one_in(w, 32))
		a.flags = 1;
	if (!fz_ioctl(w, f, FZ_TRACE_STOP, VNEURON_IOCTL_TRACE_STOP, &a, sizeof(a)) &&
	    a.core < FZ_CORES)
		f->tracing[a.core] = false;
}

/* mmap of a buffer: mostly right, sometimes past its end, private, executable, foreign. */
static void op_mmap(struct fz_worker *w, struct fz_file *f)
{
	struct fz_mem *m = fz_mem(w, f);
	uint64_t pages = m ? (m->size + PAGE - 1) / PAGE : 1, first = fz_below(w, pages);
	uint64_t len = PAGE * (1 + fz_below(w, (uint32_t)(pages - first)));
	uint64_t off = m ? m->mmap_off + first * PAGE : PAGE * fz_below(w, 1024);
	int prot = PROT_READ | PROT_WRITE, flags = MAP_SHARED;
	uint8_t *p;

	switch (fz_below(w, 16)) {
	case 0: len += PAGE; break;
	case 1: flags = MAP_PRIVATE; break;
	case 2: prot |= PROT_EXEC; break;
	case 3: prot = PROT_READ; break;
	case 4: off = (uint64_t)(1 + fz_below(w, 64)) << 32; break;
	case 5: off = VNEURON_MMAP_TRACE_BASE + PAGE * fz_below(w, 4096); break;
	}
	p = mmap(NULL, len, prot, flags, f->fd, off);
	fz_note(w, FZ_MMAP, p == MAP_FAILED ? -errno : 0);
	if (p == MAP_FAILED)
		return;
	if (!f->rw || (prot & PROT_EXEC) || flags == MAP_PRIVATE)
		fz_bad(w, FZ_MMAP, 0, "mmap allowed: rw %d prot %#x flags %#x", f->rw, prot,
		       flags);
	/* the pages come in on first touch */
	w->buf[1] = p[fz_below(w, (uint32_t)len)];
	if (prot & PROT_WRITE)
		p[fz_below(w, (uint32_t)len)] = (uint8_t)w->step;
	fz_map_add(w, p, len, prot & PROT_WRITE, true);
}

/* A map may never become executable, nor a ring's read-only part writable. */
static void op_mprotect(struct fz_worker *w)
{
	struct fz_map *m;
	int prot, ret;

	if (!w->nmap)
		return;
	m = &w->map[fz_below(w, w->nmap)];
	prot = fz_one_in(w, 2) ? PROT_READ | PROT_EXEC : PROT_READ | PROT_WRITE;
	ret = mprotect(m->p, m->len, prot) ? -errno : 0;
	fz_note(w, FZ_MPROTECT, ret);
	if (!ret && ((prot & PROT_EXEC) || !m->may_write))
		fz_bad(w, FZ_MPROTECT, 0, "mprotect(%#x) allowed (may write %d)", prot,
		       m->may_write);
	if (!ret)
		m->writable = prot & PROT_WRITE;
}

static void op_munmap(struct fz_worker *w)
{
	unsigned int i;

	if (!w->nmap)
		return;
	i = fz_below(w, w->nmap);
	fz_note(w, FZ_MUNMAP, munmap(w->map[i].p, w->map[i].len) ? -errno : 0);
	w->map[i] = w->map[--w->nmap];
}

#endif /* IOCTL_FUZZ_OPS_H */
