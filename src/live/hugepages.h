/* SPDX-License-Identifier: MIT */
#pragma once

/* The kernel's huge page pools per node (<node_dir>/nodeN/hugepages/hugepages-<K>kB/nr_hugepages),
 * reserved for the plan and given back, with numaplan's own share recorded in a file beside its
 * other state. The node directory is a parameter so that tests run on a copy. */

#include <stdbool.h>

#include "core/hugepages.h"

#define SYS_NODE_DIR "/sys/devices/system/node"

struct pool_change {
        int node;
        uint64_t page_kb;
        uint64_t wanted;        /* numaplan's pages the plan asks for */
        uint64_t before, after; /* nr_hugepages before and after */
        uint64_t ours;          /* numaplan's pages after: less than wanted is a shortfall */
        int error;              /* -errno of the pool's write, 0 */
        bool no_pool;           /* the node has no pool of that page size */
        bool disagrees;         /* the pool is not what numaplan's record said (said) */
};

struct pool_changes {
        struct pool_change *v;
        size_t n;
        bool record_gone; /* the record was removed since numaplan ran (said) */
};

void pool_changes_done(struct pool_changes *c);
#define _cleanup_pool_changes_ __attribute__((cleanup(pool_changes_done)))
bool pool_changes_any(const struct pool_changes *c); /* a pool's size changes, or would */
bool pool_changes_short(const struct pool_changes *c);

/* Sets each pool `want` names, and each one recorded that it no longer names, to the pages
 * others hold plus numaplan's, reads back what the kernel granted (fragmented memory grants
 * less), and records numaplan's pages in `record`. With `dry`, reads and reckons only. Returns
 * 0, or -errno (said) when the record cannot be read or written. */
int hugepages_reserve(const char *node_dir, const char *record, const struct pools *want, bool dry,
                      struct pool_changes *ret);
/* The page sizes of a node's pools, as "2.0 MiB, 1.0 GiB" ("none" without any). */
char *hugepages_sizes(const char *node_dir, int node);
