/* SPDX-License-Identifier: MIT */
#pragma once

/* Huge page pools: what the plan asks of each node, and what numaplan reserved, which it records
 * so that it gives back only its own (an admin's or another tool's pages stay). Pure: the record
 * is text in and text out; host/hugepages.c reads and writes the kernel's counters. */

#include <stddef.h>
#include <stdint.h>

struct plan;

struct pool {
        int node;
        uint64_t page_kb;
        uint64_t pages;
};

struct pools {
        struct pool *v; /* by node, then page size; one entry each */
        size_t n;
};

void pools_done(struct pools *p);
/* Adds `pages` to the pool (node, page_kb), creating it. */
void pools_add(struct pools *p, int node, uint64_t page_kb, uint64_t pages);
uint64_t pools_get(const struct pools *p, int node, uint64_t page_kb);

/* Every replica's share, summed per node and size. */
void pools_for_plan(const struct plan *plan, struct pools *ret);

/* The record: one "node PAGE_KB PAGES" line a pool. -EINVAL on anything else, with *ret_line
 * the line. */
int pools_parse(const char *text, struct pools *ret, unsigned *ret_line);
char *pools_format(const struct pools *p);

/* What to set nr_hugepages to: the pages others hold (what the kernel has less what numaplan
 * recorded, never below none) and numaplan's wanted ones. */
uint64_t pools_target(uint64_t current, uint64_t recorded, uint64_t wanted);
/* Of what the kernel holds after the write, numaplan's: beyond the others', at most wanted. */
uint64_t pools_granted(uint64_t current_before, uint64_t recorded, uint64_t wanted, uint64_t after);
