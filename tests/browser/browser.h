/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What browser_test's files share (browser_test.c names them): the TAP harness, the
 * kernel's profile and its expected figures, the DevTools client and the pages' checks.
 */
#ifndef BROWSER_H
#define BROWSER_H

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vn_model.h"
#include "vnprog.h"
#include "../../profiler/format/sha256.h"
#include "../../profiler/model/timeline.h"
#include "../../profiler/format/vntf.h"

#define ROWS		128
#define COLS		2048
#define PROFILER	"build/bin/vneuron-profile"
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define RESULTS		"build/results"
#define CHROMIUM	"/usr/bin/chromium"

extern int ntest, nfail;	/* TAP lines written, failed */
extern char dir[256];		/* the run's temporary directory */
extern int mm_line;		/* source line of the matmul (browser_test.c) */

/* Expected figures of worker 0, from the events themselves. */
struct expect {
	size_t ls, mm, per_stream[VNEF_STREAMS], at_line, nev;
};

/* The device fault worker 1 reports (FAULT_TEXT is how the viewer names it). */
#define FAULT_PARTITION	5
#define FAULT_TEXT	"operand outside PSUM partition 5 (offset 2048)"

/* harness.c */
void tap(int ok, const char *fmt, ...);
void die(const char *fmt, ...) __attribute__((noreturn));
int write_file(const char *path, const void *buf, size_t len);
char *slurp(const char *dir, const char *name);
int run(const char *fmt, ...);

/* profile.c */
void ev_record(const struct nd_event *e, uint32_t exec, struct vneuron_trace_record *r);
int capture(const void *img, size_t size, const char *path, unsigned int workers,
	    unsigned int reps, struct expect *ex, int fault);

/* cdp.c */
int cdp_start(void);
void cdp_stop(void);
char *cdp(const char *method, const char *params_fmt, ...);
char *json_str(const char *s, const char *key);
char *eval(const char *expr);
long eval_long(const char *expr);
double eval_double(const char *expr);
void mouse(const char *type, double x, double y, int buttons);
void click(double x, double y);
int click_el(const char *sel);
int screenshot(const char *name);
int open_page(const char *url);
long lane_of(const char *name);
long row_count(const char *name);
void type_search(const char *text);
void attach(void);
pid_t serve_start(const char *prog, const char *prof, const char *detail, FILE **pf,
		  char *line, size_t n);

/* the pages: cc.c, app.c, lod.c */
void cc_checks(void);
void app_checks(const char *prog, const void *img, size_t size);
void lod_checks(const char *prog, const char *prof, const struct expect *ex);
int measure(const char *url);

#endif
