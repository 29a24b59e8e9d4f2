// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * capture's application form (docs/capture.md, "Application form"): the cores of the
 * devices traced while an application runs, its libneurondev API log (ranges, calls)
 * merged into the profile when it exits; capture's exit status is the application's.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "builtin-capture.h"

/* The application's end, waited for; SIGTERM to capture is passed on to it. */
static int wait_app(pid_t pid, int *st)
{
	int fwd, ret;

	for (fwd = 0;;) {
		ret = waitpid(pid, st, WNOHANG);
		if (ret == pid)
			return 0;
		if (ret < 0 && errno != EINTR) {
			*st = 0;
			return 0;
		}
		if (vnp_signalled() == SIGTERM && !fwd) {
			kill(pid, SIGTERM);
			fwd = 1;
		}
		usleep(20000);
	}
}

/* The exit status of the application form: the application's own. */
int cap_app(const struct cap_opts *o)
{
	struct vnprofile_target t[CAP_MAX_CORES];
	struct vnprofile_capture *c = NULL;
	int st, status = VNP_EXIT_SYSTEM, ret;
	const char *api;
	unsigned int i;
	pid_t pid;

	/* --core of --device; else every core of every device: its workers may use any */
	for (i = 0; i < o->nr_cores; i++)
		t[i] = (struct vnprofile_target){ .device = o->device, .core = o->cores[i] };
	ret = cap_open(o, t, o->nr_cores, o->device_given || o->nr_cores ? 0 :
		       VNPROFILE_CAPTURE_ALL_DEVICES, NULL, 0, &c);
	if (ret) {
		status = ret == -ERANGE ? VNP_EXIT_USAGE : VNP_EXIT_SYSTEM;
		goto out;
	}
	/*
	 * The API log: a new file of our own next to the profile, named to the application
	 * in VNEURON_PROFILE_API and merged into the profile when it has gone.
	 */
	if (vnprofile_capture_start(c) || vnprofile_capture_api_log(c, &api))
		goto out;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		cap_err("fork: %s", strerror(errno));
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
	wait_app(pid, &st);
	signal(SIGINT, SIG_DFL);
	if (!vnprofile_capture_finish(c, pid))
		status = WIFEXITED(st) ? WEXITSTATUS(st) :
			 WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
out:
	vnprofile_capture_close(c);
	return status;
}
