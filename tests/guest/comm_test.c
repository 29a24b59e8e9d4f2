// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Communicators in the guest (docs/uapi.md, "Communicators"): the COMM_* ioctls and
 * every error they give, the limits, a read-only file, races, EXEC of a collective
 * program on an unbound core, ids in no sysfs or debugfs file, another file and an
 * unprivileged process without the id. Runs after comm_collectives_test (name order),
 * so zz_drained checks both.
 */
#include "comm_cc.h"

TEST_F(comm, create_join_info_destroy)
{
	struct vneuron_comm_info in;
	uint8_t id[ID_BYTES], zero[ID_BYTES] = { 0 };
	uint32_t reg, h0, h1;
	long long base = vn_counter("comms");

	if (self->info.core_count < 2)
		SKIP(return, "needs two cores");
	ASSERT_EQ(0, comm_create(self->fd, 2, id, &reg));
	EXPECT_NE(0, reg);
	EXPECT_NE(0, memcmp(id, zero, ID_BYTES));
	EXPECT_EQ(base + 1, vn_counter("comms"));

	ASSERT_EQ(0, comm_info(self->fd, reg, &in));
	EXPECT_EQ(2, in.nranks);
	EXPECT_EQ(NONE, in.rank);
	EXPECT_EQ(NONE, in.core);
	EXPECT_EQ(0, in.joined);
	EXPECT_EQ(0, in.broken);
	EXPECT_EQ(NONE, in.failed_rank);

	ASSERT_EQ(0, comm_join(self->fd, id, 1, 0, &h1));
	ASSERT_EQ(0, comm_join(self->fd, id, 0, 1, &h0));
	EXPECT_NE(h0, h1);
	EXPECT_NE(reg, h0);
	/* the join claimed the cores for this process, as EXEC does */
	EXPECT_EQ(getpid(), vn_owner_pid(0));
	EXPECT_EQ(getpid(), vn_owner_pid(1));
	ASSERT_EQ(0, comm_info(self->fd, h1, &in));
	EXPECT_EQ(1, in.rank);
	EXPECT_EQ(0, in.core);
	EXPECT_EQ(2, in.joined);
	EXPECT_EQ(3, in.joined_mask);
	EXPECT_EQ(0, in.collectives);

	/* a rank that leaves breaks it for the other */
	ASSERT_EQ(0, comm_destroy(self->fd, h1));
	EXPECT_EQ(-ENOENT, comm_destroy(self->fd, h1));
	EXPECT_EQ(-ENOENT, comm_info(self->fd, h1, &in));
	ASSERT_EQ(0, comm_info(self->fd, h0, &in));
	EXPECT_EQ(1, in.broken);
	EXPECT_EQ(1, in.failed_rank);
	EXPECT_EQ(EPIPE, in.failure);
	/* a rank is taken once, even after it left */
	EXPECT_EQ(-EEXIST, comm_join(self->fd, id, 1, 0, NULL));

	/* the registration ends: nobody finds it; the rank keeps it alive */
	ASSERT_EQ(0, comm_destroy(self->fd, reg));
	EXPECT_EQ(base + 1, vn_counter("comms"));
	ASSERT_EQ(0, comm_info(self->fd, h0, &in));
	EXPECT_EQ(2, in.nranks);
	ASSERT_EQ(0, comm_destroy(self->fd, h0));
	EXPECT_EQ(base, vn_counter("comms"));
}

/* Arguments: flags, pad, ranges, struct sizes, handles 0 and unknown. */
TEST_F(comm, bad_arguments)
{
	struct vneuron_comm_create c = { .nranks = 2 };
	struct vneuron_comm_join j = { 0 };
	struct vneuron_comm_info in = { 0 };
	uint8_t id[ID_BYTES];
	uint32_t reg;
	struct {
		struct vneuron_comm_info in;
		uint64_t tail;
	} big = { 0 };

	EXPECT_EQ(-EINVAL, comm_create(self->fd, 0, NULL, NULL));
	EXPECT_EQ(-EINVAL, comm_create(self->fd, VNEF_CC_MAX_RANKS + 1, NULL, NULL));
	EXPECT_EQ(-EINVAL, comm_create(self->fd, ~0u, NULL, NULL));
	c.flags = 1;
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_COMM_CREATE, &c));
	c.flags = 0;
	c.pad = 1;
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_COMM_CREATE, &c));
	EXPECT_EQ(0, c.handle);

	ASSERT_EQ(0, comm_create(self->fd, VNEF_CC_MAX_RANKS, id, &reg));
	memcpy(j.id, id, ID_BYTES);
	j.rank = VNEF_CC_MAX_RANKS;
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_COMM_JOIN, &j));
	j.rank = ~0u;
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_COMM_JOIN, &j));
	j.rank = 0;
	j.core = self->info.core_count;
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_COMM_JOIN, &j));
	j.core = 0;
	j.flags = 1;
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_COMM_JOIN, &j));
	/* nothing was claimed by the refused calls */
	EXPECT_EQ(0, vn_owner_pid(0));

	EXPECT_EQ(-ENOENT, comm_info(self->fd, 0, NULL));
	EXPECT_EQ(-ENOENT, comm_info(self->fd, 12345, NULL));
	EXPECT_EQ(-ENOENT, comm_destroy(self->fd, 0));
	EXPECT_EQ(-ENOENT, comm_destroy(self->fd, ~0u));
	in.handle = reg;
	in.flags = 1;
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_COMM_INFO, &in));
	{
		struct vneuron_comm_destroy d = { .handle = reg, .flags = 2 };

		EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, VNEURON_IOCTL_COMM_DESTROY, &d));
	}
	/* a larger struct: zero tail accepted, non-zero refused */
	big.in.handle = reg;
	EXPECT_EQ(0, vn_ioctl(self->fd, _IOWR(VNEURON_IOCTL_BASE, 0x0c, big), &big));
	EXPECT_EQ(VNEF_CC_MAX_RANKS, big.in.nranks);
	big.tail = 1;
	EXPECT_EQ(-E2BIG, vn_ioctl(self->fd, _IOWR(VNEURON_IOCTL_BASE, 0x0c, big), &big));
	/* a smaller one than the first version */
	EXPECT_EQ(-EINVAL, vn_ioctl(self->fd, _IOWR(VNEURON_IOCTL_BASE, 0x0c, uint32_t), &big));
	EXPECT_EQ(0, comm_destroy(self->fd, reg));
}

/* A read-only file may make none of these calls. */
TEST_F(comm, read_only_file)
{
	uint8_t id[ID_BYTES];
	uint32_t reg;
	int ro = open(VN_DEV, O_RDONLY | O_CLOEXEC);

	ASSERT_LE(0, ro);
	ASSERT_EQ(0, comm_create(self->fd, 1, id, &reg));
	EXPECT_EQ(-EBADF, comm_create(ro, 1, NULL, NULL));
	EXPECT_EQ(-EBADF, comm_join(ro, id, 0, 0, NULL));
	EXPECT_EQ(-EBADF, comm_info(ro, reg, NULL));
	EXPECT_EQ(-EBADF, comm_destroy(ro, reg));
	close(ro);
	/* nothing happened to it */
	EXPECT_EQ(0, comm_join(self->fd, id, 0, 0, NULL));
}

/* Joins that must fail: unknown ids, a taken rank, cores owned or bound. */
TEST_F(comm, join_errors)
{
	uint8_t id[ID_BYTES], id2[ID_BYTES], wrong[ID_BYTES];
	struct vneuron_comm_info in;
	uint32_t reg, reg2, h, oh, k;
	unsigned int bit;
	int other;

	if (self->info.core_count < 2)
		SKIP(return, "needs two cores");
	ASSERT_EQ(0, comm_create(self->fd, 4, id, &reg));
	ASSERT_EQ(0, comm_create(self->fd, 4, id2, &reg2));
	EXPECT_NE(0, memcmp(id, id2, ID_BYTES));
	/* every id one bit away is nobody's */
	for (bit = 0; bit < ID_BYTES * 8; bit++) {
		memcpy(wrong, id, ID_BYTES);
		wrong[bit / 8] ^= 1u << (bit % 8);
		if (memcmp(wrong, id2, ID_BYTES))
			ASSERT_EQ(-ENOENT, comm_join(self->fd, wrong, 0, 0, NULL)) TH_LOG("bit %u", bit);
	}
	EXPECT_EQ(-EINVAL, comm_join(self->fd, id, 4, 0, NULL));
	ASSERT_EQ(0, comm_join(self->fd, id, 2, 0, &h));
	EXPECT_EQ(-EEXIST, comm_join(self->fd, id, 2, 1, NULL));
	/* core 0 runs rank 2 already: not another rank, of this or another communicator */
	EXPECT_EQ(-EBUSY, comm_join(self->fd, id, 3, 0, NULL));
	EXPECT_EQ(-EBUSY, comm_join(self->fd, id2, 0, 0, NULL));
	/* another file: core 0 is ours */
	other = vn_open();
	ASSERT_LE(0, other);
	EXPECT_EQ(-EBUSY, comm_join(other, id, 3, 0, NULL));
	EXPECT_EQ(0, comm_join(other, id, 3, 1, &oh));
	/* handles are numbered per file: its only one is its rank, ours are not its */
	ASSERT_EQ(0, comm_info(other, oh, &in));
	EXPECT_EQ(3, in.rank);
	for (k = 1; k < 100; k++) {
		if (k == oh)
			continue;
		EXPECT_EQ(-ENOENT, comm_info(other, k, NULL)) TH_LOG("handle %u", k);
		EXPECT_EQ(-ENOENT, comm_destroy(other, k)) TH_LOG("handle %u", k);
	}
	ASSERT_EQ(0, comm_info(self->fd, reg, &in));
	EXPECT_EQ(2, in.joined);
	/* after leaving, the core may be bound again */
	EXPECT_EQ(0, comm_destroy(self->fd, h));
	EXPECT_EQ(0, comm_join(self->fd, id2, 0, 0, NULL));
	/* the registration ends: later joins find nothing */
	EXPECT_EQ(0, comm_destroy(self->fd, reg));
	EXPECT_EQ(-ENOENT, comm_join(other, id, 1, 1, NULL));
	close(other);
}

/* 64 handles per file, 256 communicators in the module, and everything goes at close. */
TEST_F_TIMEOUT(comm, limits, 120)
{
	long long base = vn_counter("comms");
	int fds[5], i, k, made = 0, ret = 0;
	uint8_t id[ID_BYTES];

	ASSERT_LE(0, base);
	for (k = 0; k < 64; k++)
		ASSERT_EQ(0, comm_create(self->fd, 2, k ? NULL : id, NULL)) TH_LOG("handle %d", k);
	EXPECT_EQ(-ENOSPC, comm_create(self->fd, 2, NULL, NULL));
	EXPECT_EQ(-ENOSPC, comm_join(self->fd, id, 0, 0, NULL));
	made = 64;
	/* the module's 256, shared by every file */
	for (i = 0; i < 5 && !ret; i++) {
		fds[i] = vn_open();
		ASSERT_LE(0, fds[i]);
		for (k = 0; k < 64; k++) {
			ret = comm_create(fds[i], 1, NULL, NULL);
			if (ret)
				break;
			made++;
		}
	}
	EXPECT_EQ(-EAGAIN, ret);
	EXPECT_EQ(256, base + made);
	EXPECT_EQ(256, vn_counter("comms"));
	while (i--)
		close(fds[i]);
	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(base, vn_counter("comms"));
}

/* A result that cannot be copied out undoes the call. */
TEST_F(comm, efault_undoes)
{
	long long base = vn_counter("comms");
	struct vneuron_comm_create *c;
	struct vneuron_comm_join *j;
	struct vneuron_comm_info in;
	uint8_t id[ID_BYTES];
	uint32_t reg, h;
	char *page = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, page);
	c = (void *)page;
	c->nranks = 2;
	ASSERT_EQ(0, mprotect(page, PAGE, PROT_READ));
	EXPECT_EQ(-EFAULT, vn_ioctl(self->fd, VNEURON_IOCTL_COMM_CREATE, c));
	EXPECT_EQ(base, vn_counter("comms"));
	EXPECT_EQ(-ENOENT, comm_info(self->fd, 1, NULL));

	ASSERT_EQ(0, comm_create(self->fd, 2, id, &reg));
	ASSERT_EQ(0, mprotect(page, PAGE, PROT_READ | PROT_WRITE));
	j = (void *)page;
	memset(j, 0, sizeof(*j));
	memcpy(j->id, id, ID_BYTES);
	ASSERT_EQ(0, mprotect(page, PAGE, PROT_READ));
	EXPECT_EQ(-EFAULT, vn_ioctl(self->fd, VNEURON_IOCTL_COMM_JOIN, j));
	/* the rank joined and left again: taken, and the communicator is broken */
	EXPECT_EQ(-EEXIST, comm_join(self->fd, id, 0, 0, NULL));
	ASSERT_EQ(0, comm_join(self->fd, id, 1, 0, &h));
	ASSERT_EQ(0, comm_info(self->fd, h, &in));
	EXPECT_EQ(1, in.broken);
	EXPECT_EQ(0, in.failed_rank);
	munmap(page, PAGE);
	/* the argument itself unreadable */
	EXPECT_EQ(-EFAULT, vn_ioctl(self->fd, VNEURON_IOCTL_COMM_INFO, NULL));
}

/* Closing a file: its ranks leave, its registrations end. */
TEST_F(comm, release_leaves_and_unregisters)
{
	struct vneuron_comm_info in;
	uint8_t id[ID_BYTES], id2[ID_BYTES];
	uint32_t h0;
	int a = vn_open(), b = vn_open();

	if (self->info.core_count < 2)
		SKIP(return, "needs two cores");
	ASSERT_LE(0, a);
	ASSERT_LE(0, b);
	ASSERT_EQ(0, comm_create(self->fd, 2, id, NULL));
	ASSERT_EQ(0, comm_join(a, id, 0, 0, &h0));
	ASSERT_EQ(0, comm_join(b, id, 1, 1, NULL));
	close(b);
	ASSERT_EQ(0, comm_info(a, h0, &in));
	EXPECT_EQ(1, in.broken);
	EXPECT_EQ(1, in.failed_rank);
	EXPECT_EQ(EPIPE, in.failure);
	/* b's core is free again */
	EXPECT_EQ(0, vn_owner_pid(1));

	b = vn_open();
	ASSERT_LE(0, b);
	ASSERT_EQ(0, comm_create(b, 2, id2, NULL));
	close(b);
	EXPECT_EQ(-ENOENT, comm_join(a, id2, 0, 1, NULL));
	close(a);
}

/* Threads of one file and two files racing on one communicator; nothing leaks. */
struct race {
	int fd;
	const uint8_t *id;
	uint32_t core;
	int joined;
	int errors;
};

static void *race_thread(void *arg)
{
	struct race *r = arg;
	uint32_t h, k;
	int ret;

	for (k = 0; k < 200; k++) {
		ret = comm_join(r->fd, r->id, k % 8, r->core, &h);
		if (!ret) {
			r->joined++;
			if (comm_info(r->fd, h, NULL) || comm_destroy(r->fd, h))
				r->errors++;
		} else if (ret != -EEXIST && ret != -EBUSY) {
			r->errors++;
		}
		ret = comm_create(r->fd, 2, NULL, &h);
		if (!ret)
			comm_destroy(r->fd, h);
		else if (ret != -ENOSPC)
			r->errors++;
	}
	return NULL;
}

TEST_F_TIMEOUT(comm, races, 120)
{
	long long base = vn_counter("comms");
	struct race r[4];
	pthread_t t[4];
	uint8_t id[ID_BYTES];
	int fd2 = vn_open(), i, joined = 0;

	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, comm_create(self->fd, 8, id, NULL));
	for (i = 0; i < 4; i++) {
		r[i] = (struct race){ .fd = i & 1 ? fd2 : self->fd, .id = id,
				      .core = (i / 2) % self->info.core_count };
		ASSERT_EQ(0, pthread_create(&t[i], NULL, race_thread, &r[i]));
	}
	for (i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		EXPECT_EQ(0, r[i].errors);
		joined += r[i].joined;
	}
	/* each of the 8 ranks joined exactly once */
	EXPECT_EQ(8, joined);
	close(fd2);
	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(base, vn_counter("comms"));
}

/* EXEC of a collective program needs a communicator on its core. */
TEST_F(comm, exec_unbound_enotconn)
{
	const struct cc_op o = { VNEF_CC_ALL_REDUCE, ND_FP32, 64, ND_ADD, 0, 0, 0 };
	uint32_t prog, h[2], hc;
	uint8_t id[ID_BYTES];
	struct vneuron_wait w;
	size_t size;
	void *img;
	uint64_t x;

	ASSERT_EQ(0, cc_image(&o, 1, &img, &size));
	ASSERT_EQ(0, vn_prog_load(self->fd, img, size, &prog, NULL));
	free(img);
	h[0] = vn_alloc(self->fd, 256, NULL);
	h[1] = vn_alloc(self->fd, 256, NULL);
	EXPECT_EQ(-ENOTCONN, vn_exec_on(self->fd, prog, 0, h, 2, 0, &x));
	/* a refused EXEC claims nothing: the core stays free for others */
	EXPECT_EQ(0, vn_owner_pid(0));
	/* bound: a communicator of one rank runs it */
	ASSERT_EQ(0, comm_create(self->fd, 1, id, NULL));
	ASSERT_EQ(0, comm_join(self->fd, id, 0, 0, &hc));
	ASSERT_EQ(0, vn_run_on(self->fd, prog, 0, h, 2, &w));
	EXPECT_EQ(VNEURON_EXEC_OK, w.status) TH_LOG("reason %u", w.reason);
	/* the other core is still unbound */
	if (self->info.core_count > 1)
		EXPECT_EQ(-ENOTCONN, vn_exec_on(self->fd, prog, 1, h, 2, 0, &x));
	/* unbound again */
	ASSERT_EQ(0, comm_destroy(self->fd, hc));
	EXPECT_EQ(-ENOTCONN, vn_exec_on(self->fd, prog, 0, h, 2, 0, &x));
}

/* Every collective on two cores of one device, checked against the C reference. */

/* Ids never appear in sysfs or debugfs. */
static const char *walk_needle;
static int walk_found;

static int walk_file(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	char buf[4096];
	ssize_t n;
	int fd;

	(void)ftw;
	if (type != FTW_F || !(st->st_mode & S_IRUSR))
		return 0;
	fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0) {
		buf[n] = '\0';
		if (strstr(buf, walk_needle))
			walk_found++;
	}
	return 0;
}

TEST_F(comm, id_not_in_sysfs_or_debugfs)
{
	char text[ND_COMM_ID_STRLEN], real[4096];
	nd_comm_id id;
	uint32_t reg;

	ASSERT_EQ(0, comm_create(self->fd, 2, id.bytes, &reg));
	ASSERT_EQ(0, comm_join(self->fd, id.bytes, 0, 0, NULL));
	nd_comm_id_format(&id, text);
	walk_needle = text;
	walk_found = 0;
	ASSERT_NE(NULL, realpath(VN_SYSFS, real));
	EXPECT_EQ(0, nftw(real, walk_file, 16, FTW_PHYS));
	EXPECT_EQ(0, nftw("/sys/kernel/debug/vneuron", walk_file, 16, FTW_PHYS));
	EXPECT_EQ(0, nftw("/sys/module/vneuron/parameters", walk_file, 16, FTW_PHYS));
	EXPECT_EQ(0, walk_found);
}

/*
 * The attack: an unprivileged process that can open the node but does not know the id
 * finds nothing (random ids, ids one bit away, handle numbers of its own file); knowing
 * it, it still cannot take a core another file owns or a rank that joined. Knowing the
 * id is the trust: with it, it may join a free rank on a free core.
 */
struct attack {
	int started;
	int random_found;
	int flipped_found;
	int handles_found;
	int busy_ret;
	int exist_ret;
	int join_ret;
};

TEST_F_TIMEOUT(comm, unprivileged_without_the_id, 180)
{
	struct attack *a = shared(sizeof(*a));
	struct stat node;
	uint8_t id[ID_BYTES];
	uint32_t reg;
	int status;
	pid_t pid;

	ASSERT_NE(NULL, a);
	if (geteuid())
		SKIP(return, "needs root to drop to nobody");
	if (self->info.core_count < 2)
		SKIP(return, "needs two cores");
	ASSERT_EQ(0, stat(VN_DEV, &node));
	ASSERT_EQ(0, comm_create(self->fd, 2, id, &reg));
	ASSERT_EQ(0, comm_join(self->fd, id, 0, 0, NULL));
	ASSERT_EQ(0, chown(VN_DEV, 0, TEST_GID));
	ASSERT_EQ(0, chmod(VN_DEV, 0660));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		gid_t g = TEST_GID;
		uint8_t guess[ID_BYTES];
		unsigned int k;
		int fd, urnd;

		close(self->fd);
		if (setgroups(1, &g) || setgid(NOBODY) || setuid(NOBODY))
			_exit(1);
		fd = vn_open();
		urnd = open("/dev/urandom", O_RDONLY);
		if (fd < 0 || urnd < 0)
			_exit(2);
		a->started = 1;
		for (k = 0; k < 20000; k++) {
			if (read(urnd, guess, ID_BYTES) != ID_BYTES)
				_exit(3);
			a->random_found += comm_join(fd, guess, 1, 1, NULL) != -ENOENT;
		}
		for (k = 0; k < ID_BYTES * 8; k++) {
			memcpy(guess, id, ID_BYTES);
			guess[k / 8] ^= 1u << (k % 8);
			a->flipped_found += comm_join(fd, guess, 1, 1, NULL) != -ENOENT;
		}
		for (k = 0; k < 300; k++)
			a->handles_found += comm_info(fd, k, NULL) != -ENOENT ||
					    comm_destroy(fd, k) != -ENOENT;
		/* with the id: not a core root owns, not a rank that joined */
		a->busy_ret = comm_join(fd, id, 1, 0, NULL);
		a->exist_ret = comm_join(fd, id, 0, 1, NULL);
		a->join_ret = comm_join(fd, id, 1, 1, NULL);
		close(fd);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, chown(VN_DEV, node.st_uid, node.st_gid));
	EXPECT_EQ(0, chmod(VN_DEV, node.st_mode & 07777));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) TH_LOG("status %#x", status);
	EXPECT_EQ(1, a->started);
	EXPECT_EQ(0, a->random_found);
	EXPECT_EQ(0, a->flipped_found);
	EXPECT_EQ(0, a->handles_found);
	EXPECT_EQ(-EBUSY, a->busy_ret);
	EXPECT_EQ(-EEXIST, a->exist_ret);
	EXPECT_EQ(0, a->join_ret);
	/* its close made rank 1 leave: the communicator is broken for root's rank */
	{
		struct vneuron_comm_info in;

		ASSERT_EQ(0, comm_info(self->fd, reg, &in));
		EXPECT_EQ(3, in.joined_mask);
		EXPECT_EQ(1, in.broken);
		EXPECT_EQ(1, in.failed_rank);
	}
}

/* After everything: no communicator is left in the module. */
TEST_F(comm, zz_drained)
{
	EXPECT_EQ(0, vn_counter("comms"));
}

TEST_HARNESS_MAIN
