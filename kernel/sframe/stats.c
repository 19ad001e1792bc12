// SPDX-License-Identifier: GPL-2.0
/*
 * The module's counters (per CPU, struct sframe_stats) and its SFrame
 * switch: state every other file may touch, defined in a file that
 * calls none of them.
 */
#include <linux/percpu.h>
#include <linux/string.h>

#include "sframe_unwind.h"

bool sframe_enabled = true;
DEFINE_PER_CPU(struct sframe_stats, sframe_stats);

/**
 * sframe_stats_sum() - sum the per-CPU counters
 * @sum: filled in
 *
 * The per-CPU counts summed; walk_ns_max is their maximum.
 */
void sframe_stats_sum(struct sframe_stats *sum)
{
	u64 *dst = (u64 *)sum, walk_ns_max = 0;
	const struct sframe_stats *st;
	unsigned int cpu, i;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		st = per_cpu_ptr(&sframe_stats, cpu);
		for (i = 0; i < sizeof(*sum) / sizeof(u64); i++)
			dst[i] += READ_ONCE(((const u64 *)st)[i]);
		walk_ns_max = max(walk_ns_max, READ_ONCE(st->walk_ns_max));
	}
	sum->walk_ns_max = walk_ns_max;
}
