// SPDX-License-Identifier: GPL-2.0 OR MIT
/* The table of the advice rules (rules.h), which analyze.c walks. */
#include "rule.h"

#define VNP_RULE_ENTRY(e, n)	[VNP_RULE_##e] = &vnp_rule_##n,
const struct vnp_rule_def *const vnp_rules[VNP_RULE_COUNT] = {
	VNP_RULES(VNP_RULE_ENTRY)
};

const char *vnp_rule_id(enum vnp_rule r)
{
	return (unsigned int)r < VNP_RULE_COUNT ? vnp_rules[r]->name : "?";
}
