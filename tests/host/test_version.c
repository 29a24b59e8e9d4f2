// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Versions: nd_version_string() and nd_tool_version(), every user tool's --version, and
 * build/bin holding only user tools (test helpers are built with the tests). Run from the
 * top of the tree after `make` (tools/check does both).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* the harness defines fixture functions without prototypes */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#include "vnprog.h"
#include "run_util.h"

#define BIN "build/bin/"

#define MAX_TOOLS 32

/*
 * The user tools: tools/bin/NAME.c and vneuron-profile, what `make install` installs
 * (tools/install.mk). Returns how many, or -1.
 */
static int user_tools(char names[MAX_TOOLS][64])
{
	struct dirent *e;
	int n = 0;
	DIR *d;

	d = opendir("tools/bin");
	if (!d)
		return -1;
	while ((e = readdir(d)) && n < MAX_TOOLS - 1) {
		size_t len = strlen(e->d_name);

		if (len > 2 && len < 64 && !strcmp(e->d_name + len - 2, ".c"))
			snprintf(names[n++], 64, "%.*s", (int)len - 2, e->d_name);
	}
	closedir(d);
	snprintf(names[n++], 64, "vneuron-profile");
	return n;
}

/* Whether a tool is built on libvnprog: its source includes vnprog.h. */
static int uses_vnprog(const char *tool)
{
	char path[128], line[512];
	int found = 0;
	FILE *f;

	if (!strcmp(tool, "vneuron-profile"))
		return 1;
	snprintf(path, sizeof(path), "tools/bin/%s.c", tool);
	f = fopen(path, "r");
	if (!f)
		return 1;
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, "#include \"vnprog.h\"", 19);
	fclose(f);
	return found;
}

TEST(version_string)
{
	static const char *const libs[] = { "libfoo", "9.8", "libbar", "1", NULL };
	char want[128], buf[1024], small[16];
	int n;

	ASSERT_STREQ(VNEURON_VERSION, nd_version());
	ASSERT_STREQ(VNEURON_VERSION, nd_vnprog_version());
	n = nd_version_string(buf, sizeof(buf), "tool-x", libs);
	ASSERT_GT(n, 0);
	ASSERT_EQ((size_t)n, strlen(buf));
	snprintf(want, sizeof(want), "tool-x %s\nlibneurondev %s (uapi %d)\nlibfoo 9.8\nlibbar 1\n",
		 VNEURON_VERSION, VNEURON_VERSION, VNEURON_UAPI_VERSION);
	ASSERT_EQ(0, strncmp(buf, want, strlen(want))) TH_LOG("%s", buf);
	/* The last line is the module's, loaded or not. */
	ASSERT_NE(NULL, strstr(buf + strlen(want), "module vneuron "));
	ASSERT_EQ('\n', buf[n - 1]);

	/* snprintf() semantics: cut and terminated, the full length returned. */
	ASSERT_EQ(n, nd_version_string(small, sizeof(small), "tool-x", libs));
	ASSERT_EQ(sizeof(small) - 1, strlen(small));
	ASSERT_EQ(n, nd_version_string(NULL, 0, "tool-x", libs));
	ASSERT_EQ(-EINVAL, nd_version_string(NULL, 10, "tool-x", libs));

	/* No tool, no libraries: libneurondev's line comes first. */
	n = nd_version_string(buf, sizeof(buf), NULL, NULL);
	snprintf(want, sizeof(want), "libneurondev %s (uapi %d)\nmodule vneuron ", VNEURON_VERSION,
		 VNEURON_UAPI_VERSION);
	ASSERT_EQ(0, strncmp(buf, want, strlen(want))) TH_LOG("%s", buf);
}

TEST(tool_version)
{
	char want[128], buf[1024];
	size_t len;
	FILE *f;

	f = fmemopen(buf, sizeof(buf), "w");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, nd_tool_version(f, "tool-y"));
	fclose(f);
	snprintf(want, sizeof(want), "tool-y %s\nlibneurondev %s (uapi %d)\nlibvnprog %s\n",
		 VNEURON_VERSION, VNEURON_VERSION, VNEURON_UAPI_VERSION, VNEURON_VERSION);
	len = strlen(want);
	ASSERT_EQ(0, strncmp(buf, want, len)) TH_LOG("%s", buf);
	ASSERT_EQ(0, strncmp(buf + len, "module vneuron ", 15)) TH_LOG("%s", buf);
}

/* Every user tool: --version exits 0 with its own name, the libraries, uapi and module. */
TEST(every_tool)
{
	char cmd[256], want[128], out[4096], tools[MAX_TOOLS][64];
	int i, n, rc;

	if (access(BIN "vneuron-as", X_OK))
		SKIP(return, "build/bin not built: run make first");
	n = user_tools(tools);
	ASSERT_GT(n, 5);
	for (i = 0; i < n; i++) {
		snprintf(cmd, sizeof(cmd), BIN "%s --version", tools[i]);
		rc = run_out(cmd, out, sizeof(out));
		/* vneuron-profile is wired separately (profiler/main.c). */
		if (!strcmp(tools[i], "vneuron-profile") && rc == 2 &&
		    strstr(out, "unknown command '--version'")) {
			TH_LOG("vneuron-profile --version: not wired yet");
			continue;
		}
		EXPECT_EQ(0, rc) TH_LOG("%s: %s", cmd, out);
		snprintf(want, sizeof(want), "%s %s\nlibneurondev %s (uapi %d)\n", tools[i],
			 VNEURON_VERSION, VNEURON_VERSION, VNEURON_UAPI_VERSION);
		EXPECT_EQ(0, strncmp(out, want, strlen(want))) TH_LOG("%s: %s", cmd, out);
		/* The tools built on libvnprog name it too. */
		if (uses_vnprog(tools[i])) {
			snprintf(want, sizeof(want), "\nlibvnprog %s\n", VNEURON_VERSION);
			EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s: %s", cmd, out);
		}
		EXPECT_NE(NULL, strstr(out, "\nmodule vneuron ")) TH_LOG("%s: %s", cmd, out);
	}
}

/* build/bin: the user tools and the examples (example-*), nothing else. */
TEST(bin_holds_user_tools)
{
	char tools[MAX_TOOLS][64];
	struct dirent *e;
	int i, n;
	DIR *d;

	n = user_tools(tools);
	ASSERT_GT(n, 5);
	d = opendir(BIN);
	if (!d)
		SKIP(return, "build/bin not built: run make first");
	while ((e = readdir(d))) {
		const char *name = e->d_name;
		size_t len = strlen(name);
		int known = 0;

		if (name[0] == '.' || !strncmp(name, "example-", 8) ||
		    (len > 2 && !strcmp(name + len - 2, ".d")))
			continue;
		for (i = 0; i < n; i++)
			known |= !strcmp(name, tools[i]);
		EXPECT_TRUE(known) TH_LOG("build/bin/%s is not a user tool (tools/bin/)", name);
	}
	closedir(d);
}

TEST_HARNESS_MAIN
