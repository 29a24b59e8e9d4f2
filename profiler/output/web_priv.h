/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* What the web viewer's files share (web.c, web_data.c, web_host.c, web_serve.c). */
#ifndef VNP_WEB_PRIV_H
#define VNP_WEB_PRIV_H

#include <stddef.h>
#include <stdio.h>

#include "web.h"

/*
 * The data, escaped to sit inside a <script> element, in a malloc()ed buffer. 0,
 * -ENOMEM or -EIO.
 */
int vnp_web_data_buf(const struct vnp_view *v, const char *const *labels, char **out,
		     size_t *outlen);
/* The host rows' data (,"host":{...} under --clock host). 0 or -ENOMEM. */
int vnp_web_host_json(FILE *f, const struct vnp_timeline *tl);
/* The page with its style, script and data (NULL: the page fetches data.json). */
void vnp_web_page(FILE *f, const char *data, size_t len);

#endif /* VNP_WEB_PRIV_H */
