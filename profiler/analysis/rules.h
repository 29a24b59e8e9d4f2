/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The advice rules, one line each (docs/profiler.md, "Analysis and advice"): X(ENUM,
 * name) makes VNP_RULE_ENUM (analyze.h) and names the rule's struct vnp_rule_def
 * vnp_rule_name (rule.h), defined in the rule's own file. analyze.c runs them in this
 * order, and findings that save the same time rank in it. Adding a rule: its file, and
 * its line here (docs/development.md, "Adding a rule").
 */
#ifndef VNP_RULES_H
#define VNP_RULES_H

#define VNP_RULES(X)						\
	X(ENGINES_NO_OVERLAP, engines_no_overlap)		\
	X(DMA_NO_OVERLAP, dma_no_overlap)			\
	X(SMALL_DMA, small_dma)					\
	X(REPEATED_LOAD, repeated_load)				\
	X(TENSOR_IDLE, tensor_idle)				\
	X(TRANSPOSE_FLOPS, transpose_flops)			\
	X(SEM_WAIT, semaphore_wait)				\
	X(DMA_QUEUE_BOUND, dma_queue_bound)			\
	X(INSTR_OVERHEAD, instruction_overhead)			\
	X(CC_STRAGGLER, straggler_rank)				\
	X(CC_NO_OVERLAP, collective_no_overlap)			\
	X(CC_SMALL, small_collectives)				\
	X(CC_SPLIT, all_reduce_split)				\
	X(NODE_STRAGGLER, straggler_node)			\
	X(INTER_NODE_BOUND, inter_node_bound)			\
	X(HOST_OVERHEAD, host_overhead)

#endif /* VNP_RULES_H */
