/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The web viewer (docs/viewer.md): the page of profiler/output/web/, built
 * into the binary, with the timeline and the summary as JSON, written as one
 * self-contained file or served over HTTP on a loopback port.
 */
#ifndef VNP_WEB_H
#define VNP_WEB_H

#include <stdio.h>

#include "summary.h"

/* labels[core slot] names the tabs ("worker 1 core 0"); NULL or a NULL entry: "core N". */
int vnp_web_html(FILE *f, const struct vnp_view *v, const char *const *labels);
/* The viewer's data alone (what the served page fetches). 0, -ENOMEM or -EIO. */
int vnp_web_data(FILE *f, const struct vnp_view *v, const char *const *labels);
/*
 * Serves the page on bind:port (port 0: any free port) until SIGINT or SIGTERM, printing
 * the URL on stdout. 0 after a clean stop, else -errno with the reason on stderr.
 */
int vnp_web_serve(const struct vnp_view *v, const char *const *labels, const char *addr,
		  unsigned int port);

#endif /* VNP_WEB_H */
