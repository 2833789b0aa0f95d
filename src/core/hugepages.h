/* SPDX-License-Identifier: MIT */
#pragma once

/* Huge page pools: what the plan asks of each node, and what numaplan reserved, which it records
 * so that it gives back only its own (an admin's or another tool's pages stay). Pure: the record
 * is text in and text out; live/hugepages.c reads and writes the kernel's counters. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct plan;

struct pool {
        int node;
        uint64_t page_kb;
        uint64_t pages;
        /* In the record: what others held in the pool when numaplan last sized it (known: the
         * record says so; a record of an older numaplan does not). */
        uint64_t others;
        bool others_known;
};

struct pools {
        struct pool *v; /* by node, then page size; one entry each */
        size_t n;
};

void pools_done(struct pools *p);
/* Adds `pages` to the pool (node, page_kb), creating it. */
void pools_add(struct pools *p, int node, uint64_t page_kb, uint64_t pages);
/* A pool as the record keeps it: numaplan's pages and others' beside them. */
void pools_add_record(struct pools *p, int node, uint64_t page_kb, uint64_t pages, uint64_t others);
uint64_t pools_get(const struct pools *p, int node, uint64_t page_kb);
/* The entry of (node, page_kb), or NULL. */
const struct pool *pools_find(const struct pools *p, int node, uint64_t page_kb);

/* Every replica's share, summed per node and size. */
void pools_for_plan(const struct plan *plan, struct pools *ret);

/* The record: a comment line, then one "NODE PAGE_KB PAGES OTHERS" line a pool (OTHERS: the
 * pages others held beside numaplan's then; "NODE PAGE_KB PAGES", an older numaplan's, is read
 * with OTHERS unknown). -EINVAL on anything else, with *ret_line the line. */
int pools_parse(const char *text, struct pools *ret, unsigned *ret_line);
char *pools_format(const struct pools *p);

/* Whose pages a pool of `current` pages holds, by numaplan's record of it (NULL: none). */
struct pool_share {
        uint64_t ours, others;
        bool disagrees; /* the pool is not what the record says it left */
};
/* numaplan's are never more than the pool holds beyond what others held when it recorded them:
 * a record that claims more, or a pool shrunk since, costs others none of theirs. A record
 * without others' count gives numaplan none. */
struct pool_share pools_share(uint64_t current, const struct pool *recorded);
/* What to set nr_hugepages to: others' pages and numaplan's wanted ones. */
uint64_t pools_target(uint64_t others, uint64_t wanted);
/* Of what the kernel holds after the write, numaplan's: what is beyond the others'. */
uint64_t pools_granted(uint64_t others, uint64_t after);
