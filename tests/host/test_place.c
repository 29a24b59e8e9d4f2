// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Where a process stands, told explicitly (libneurondev/place.c): nd_place_parse() and
 * nd_place_from_env(), their defaults and every refusal, with the value at fault named.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* the harness defines fixture functions without prototypes */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#include "neurondev.h"

TEST(defaults_and_explicit_values)
{
	struct nd_place pl;
	struct nd_error err = { 0 };

	ASSERT_EQ(0, nd_place_parse(NULL, NULL, NULL, NULL, &pl, &err));
	EXPECT_EQ(0u, pl.rank);
	EXPECT_EQ(1u, pl.size);
	EXPECT_EQ(0u, pl.node);
	EXPECT_EQ(1u, pl.nodes);
	ASSERT_EQ(0, nd_place_parse("5", "8", "2", "4", &pl, &err));
	EXPECT_EQ(5u, pl.rank);
	EXPECT_EQ(8u, pl.size);
	EXPECT_EQ(2u, pl.node);
	EXPECT_EQ(4u, pl.nodes);
	/* the node count defaults to the node + 1 */
	ASSERT_EQ(0, nd_place_parse("3", "4", "3", NULL, &pl, &err));
	EXPECT_EQ(4u, pl.nodes);
}

/* Each bad value is refused, the message naming it; pl is left alone. */
TEST(bad_values_are_named)
{
	static const struct {
		const char *rank, *size, *node, *nodes, *words;
	} bad[] = {
		{ "x", "2", NULL, NULL, "the rank 'x' is not a decimal number" },
		{ "-1", "2", NULL, NULL, "the rank '-1' is not a decimal number" },
		{ " 1", "2", NULL, NULL, "the rank ' 1' is not a decimal number" },
		{ "", "2", NULL, NULL, "the rank is empty" },
		{ "2", "2", NULL, NULL, "the rank 2 is not below the size 2" },
		{ "0", "0", NULL, NULL, "the size is 0" },
		{ "0", "99999999999999999999", NULL, NULL, "is above 65536" },
		{ "0", "4", "4", "4", "the node 4 is not below the node count 4" },
		{ "0", "4", "0", "0", "the node count is 0" },
		{ "0", "2", "0", "3", "the node count 3 is above the size 2" },
		{ "0", "2", "2", NULL, "the node count 3 is above the size 2" },
	};
	struct nd_place pl = { 7, 7, 7, 7 };
	struct nd_error err;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&err, 0, sizeof(err));
		EXPECT_EQ(-EINVAL, nd_place_parse(bad[i].rank, bad[i].size, bad[i].node,
						  bad[i].nodes, &pl, &err));
		EXPECT_NE(NULL, strstr(err.msg, bad[i].words))
			TH_LOG("case %u: '%s'", i, err.msg);
		EXPECT_EQ(7u, pl.rank);
	}
	EXPECT_EQ(-EINVAL, nd_place_parse(NULL, NULL, NULL, NULL, NULL, &err));
}

TEST(from_the_environment)
{
	struct nd_place pl;
	struct nd_error err = { 0 };

	unsetenv("VNEURON_RANK");
	unsetenv("VNEURON_WORLD_SIZE");
	unsetenv("VNEURON_NODE");
	unsetenv("VNEURON_NODES");
	ASSERT_EQ(0, nd_place_from_env(&pl, &err));
	EXPECT_EQ(1u, pl.size);
	setenv("VNEURON_RANK", "3", 1);
	setenv("VNEURON_WORLD_SIZE", "6", 1);
	setenv("VNEURON_NODE", "1", 1);
	setenv("VNEURON_NODES", "2", 1);
	ASSERT_EQ(0, nd_place_from_env(&pl, &err));
	EXPECT_EQ(3u, pl.rank);
	EXPECT_EQ(6u, pl.size);
	EXPECT_EQ(1u, pl.node);
	EXPECT_EQ(2u, pl.nodes);
	setenv("VNEURON_RANK", "6", 1);
	EXPECT_EQ(-EINVAL, nd_place_from_env(&pl, &err));
	EXPECT_NE(NULL, strstr(err.msg, "VNEURON_RANK 6 is not below VNEURON_WORLD_SIZE 6"))
		TH_LOG("'%s'", err.msg);
	setenv("VNEURON_RANK", "1", 1);
	setenv("VNEURON_NODE", "shared", 1);
	EXPECT_EQ(-EINVAL, nd_place_from_env(&pl, &err));
	EXPECT_NE(NULL, strstr(err.msg, "VNEURON_NODE 'shared' is not a decimal number"))
		TH_LOG("'%s'", err.msg);
	unsetenv("VNEURON_RANK");
	unsetenv("VNEURON_WORLD_SIZE");
	unsetenv("VNEURON_NODE");
	unsetenv("VNEURON_NODES");
}

TEST_HARNESS_MAIN
