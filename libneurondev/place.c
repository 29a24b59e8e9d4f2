// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Where a process of a multi-node job stands, told explicitly (neurondev.h, struct
 * nd_place): arguments or environment variables checked as hostile input.
 */
#include <errno.h>
#include <stdlib.h>

#include "neurondev.h"
#include "nd_error.h"

/* One of the four values: what it is called (for messages) and its default. */
struct place_value {
	const char *what;
	const char *s;
	uint32_t *into;
	uint32_t def;
};

/* A decimal number of at most ND_PLACE_MAX: digits only, no sign, no blanks. */
static int place_number(const struct place_value *v, struct nd_error *err)
{
	unsigned long x = 0;
	const char *p;

	if (!v->s) {
		*v->into = v->def;
		return 0;
	}
	if (!*v->s)
		return nd_seterr(err, EINVAL, "%s is empty: want a decimal number", v->what);
	for (p = v->s; *p; p++) {
		if (*p < '0' || *p > '9')
			return nd_seterr(err, EINVAL, "%s '%s' is not a decimal number", v->what,
					 v->s);
		x = x * 10 + (unsigned long)(*p - '0');
		if (x > ND_PLACE_MAX)
			return nd_seterr(err, EINVAL, "%s '%s' is above %d", v->what, v->s,
					 ND_PLACE_MAX);
	}
	*v->into = (uint32_t)x;
	return 0;
}

static int place_check(const struct place_value *v, struct nd_place *pl, struct nd_error *err)
{
	unsigned int i;
	int ret;

	for (i = 0; i < 4; i++) {
		ret = place_number(&v[i], err);
		if (ret)
			return ret;
	}
	if (!v[3].s)
		pl->nodes = pl->node + 1;
	if (!pl->size)
		return nd_seterr(err, EINVAL, "%s is 0: a job has at least one process", v[1].what);
	if (pl->rank >= pl->size)
		return nd_seterr(err, EINVAL, "%s %u is not below %s %u", v[0].what, pl->rank,
				 v[1].what, pl->size);
	if (!pl->nodes)
		return nd_seterr(err, EINVAL, "%s is 0: a job has at least one node", v[3].what);
	if (pl->node >= pl->nodes)
		return nd_seterr(err, EINVAL, "%s %u is not below %s %u", v[2].what, pl->node,
				 v[3].what, pl->nodes);
	if (pl->nodes > pl->size)
		return nd_seterr(err, EINVAL, "%s %u is above %s %u: a node without a process",
				 v[3].what, pl->nodes, v[1].what, pl->size);
	return 0;
}

/* The four values checked into tmp, then *pl; *pl untouched on an error. */
static int place_fill(const struct place_value *v, struct nd_place *tmp, struct nd_place *pl,
		      struct nd_error *err)
{
	int ret;

	if (!pl)
		return nd_seterr(err, EINVAL, "no place to fill in");
	ret = place_check(v, tmp, err);
	if (!ret)
		*pl = *tmp;
	return ret;
}

int nd_place_parse(const char *rank, const char *size, const char *node, const char *nodes,
		   struct nd_place *pl, struct nd_error *err)
{
	struct nd_place tmp;
	const struct place_value v[4] = {
		{ "the rank", rank, &tmp.rank, 0 },
		{ "the size", size, &tmp.size, 1 },
		{ "the node", node, &tmp.node, 0 },
		{ "the node count", nodes, &tmp.nodes, 1 },
	};

	return place_fill(v, &tmp, pl, err);
}

int nd_place_from_env(struct nd_place *pl, struct nd_error *err)
{
	struct nd_place tmp;
	const struct place_value v[4] = {
		{ "VNEURON_RANK", getenv("VNEURON_RANK"), &tmp.rank, 0 },
		{ "VNEURON_WORLD_SIZE", getenv("VNEURON_WORLD_SIZE"), &tmp.size, 1 },
		{ "VNEURON_NODE", getenv("VNEURON_NODE"), &tmp.node, 0 },
		{ "VNEURON_NODES", getenv("VNEURON_NODES"), &tmp.nodes, 1 },
	};

	return place_fill(v, &tmp, pl, err);
}
