// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libneurondev's communicator calls that need no device: ids as text, the names of the
 * CC-core and of the CC_* reasons, describing a result without a communicator, and
 * every call's NULL arguments. tests/guest/comm_test.c and
 * comm_collectives_test.c cover the rest in the guest.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include "neurondev.h"

TEST(id_text_round_trip)
{
	char text[ND_COMM_ID_STRLEN], line[64];
	nd_comm_id id, back;
	unsigned int i;

	for (i = 0; i < ND_COMM_ID_BYTES; i++)
		id.bytes[i] = (unsigned char)(i * 37 + 0xa5);
	ASSERT_TRUE(nd_comm_id_format(&id, text) == text);
	EXPECT_EQ(32u, strlen(text));
	EXPECT_EQ(0, strncmp(text, "a5caef14395e83a8", 16));
	ASSERT_EQ(0, nd_comm_id_parse(text, &back));
	EXPECT_EQ(0, memcmp(&id, &back, sizeof(id)));
	/* upper case, white space around it (a line from a pipe) */
	for (i = 0; text[i]; i++)
		if (text[i] >= 'a')
			text[i] -= 'a' - 'A';
	snprintf(line, sizeof(line), " \t%s\r\n", text);
	memset(&back, 0, sizeof(back));
	ASSERT_EQ(0, nd_comm_id_parse(line, &back));
	EXPECT_EQ(0, memcmp(&id, &back, sizeof(id)));
}

TEST(id_text_refused)
{
	static const char *const bad[] = {
		"",
		"   ",
		"0123456789abcdef0123456789abcde",		/* 31 digits */
		"0123456789abcdef0123456789abcdef0",		/* 33 */
		"0123456789abcdef0123456789abcdeg",
		"0123456789abcdef 0123456789abcdef",
		"0123456789abcdef0123456789abcdef x",
		"x0123456789abcdef0123456789abcdef",
		"0x23456789abcdef0123456789abcdef",
	};
	char text[ND_COMM_ID_STRLEN];
	nd_comm_id id, keep;
	unsigned int i;

	memset(&id, 0x5a, sizeof(id));
	keep = id;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-EINVAL, nd_comm_id_parse(bad[i], &id)) TH_LOG("'%s'", bad[i]);
		/* a refused text leaves the id as it was */
		EXPECT_EQ(0, memcmp(&id, &keep, sizeof(id)));
	}
	EXPECT_EQ(-EINVAL, nd_comm_id_parse(NULL, &id));
	EXPECT_EQ(-EINVAL, nd_comm_id_parse("0123456789abcdef0123456789abcdef", NULL));
	EXPECT_EQ(NULL, nd_comm_id_format(NULL, text));
	EXPECT_EQ(NULL, nd_comm_id_format(&id, NULL));
}

TEST(stream_and_reason_names)
{
	uint32_t s;

	EXPECT_STREQ("TensorE", nd_stream_name(0));
	EXPECT_STREQ("DMA0", nd_stream_name(VNEF_ENGINES));
	EXPECT_STREQ("DMA15", nd_stream_name(VNEF_STREAM_CC - 1));
	EXPECT_STREQ("CC-core", nd_stream_name(VNEURON_STREAM_CC));
	EXPECT_STREQ("?", nd_stream_name(VNEF_STREAMS));
	EXPECT_STREQ("?", nd_stream_name(VNEURON_STREAM_NONE));
	/* every value a status may carry has a name (ASan: no read past the tables) */
	for (s = 0; s < 64; s++)
		EXPECT_NE(NULL, nd_stream_name(s));
	EXPECT_STREQ("cc-missing", nd_exec_reason_id(VNEURON_REASON_CC_MISSING));
	EXPECT_STREQ("cc-peer", nd_exec_reason_id(VNEURON_REASON_CC_PEER));
	EXPECT_STREQ("cc-mismatch", nd_exec_reason_id(VNEURON_REASON_CC_MISMATCH));
	EXPECT_STREQ("ranks never arrived at a collective",
		     nd_exec_reason_name(VNEURON_REASON_CC_MISSING));
	EXPECT_STREQ("?", nd_exec_reason_id(VNEURON_REASON_CC_MISMATCH + 1));
}

TEST(describe_without_a_communicator)
{
	struct nd_run_result r = {
		.result = VNEURON_EXEC_TIMEOUT,
		.reason = VNEURON_REASON_CC_MISSING,
		.stream = VNEURON_STREAM_CC,
		.pc = 3,
	};
	char buf[256];

	EXPECT_STREQ("execution timeout: ranks never arrived at a collective at CC-core entry 3",
		     nd_run_describe(&r, buf, sizeof(buf)));
	/* no communicator: the plain words */
	EXPECT_STREQ(buf, nd_comm_describe(NULL, NULL, &r, buf, sizeof(buf)));
	EXPECT_STREQ("no result", nd_comm_describe(NULL, NULL, NULL, buf, sizeof(buf)));
}

TEST(null_arguments)
{
	struct nd_comm_info info;
	struct nd_comm *c = (void *)1;
	nd_comm_id id = { { 0 } };

	EXPECT_EQ(-EINVAL, nd_comm_create(NULL, 2, &id));
	EXPECT_EQ(-EINVAL, nd_comm_join(NULL, &id, 0, 0, &c));
	EXPECT_EQ(NULL, c);
	EXPECT_EQ(-EINVAL, nd_comm_unregister(NULL, &id));
	EXPECT_EQ(-EINVAL, nd_comm_info(NULL, &info));
	EXPECT_EQ(0, nd_comm_destroy(NULL));
	EXPECT_EQ(~0u, nd_comm_rank(NULL));
	EXPECT_EQ(0u, nd_comm_size(NULL));
	EXPECT_EQ(NULL, nd_comm_device(NULL));
}

TEST_HARNESS_MAIN
