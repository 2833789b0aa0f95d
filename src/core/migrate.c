/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "basic/util.h"
#include "core/migrate.h"

/* The picks grouped by target, the planned nodes in order, each group in the batch's order. */
static void group_by_target(const struct cpuset *planned, size_t *pick, int *to, size_t k) {
        _cleanup_free_ size_t *p = xmalloc0((k + 1) * sizeof(*p));
        _cleanup_free_ int *t = xmalloc0((k + 1) * sizeof(*t));
        size_t j = 0;
        CPUSET_FOREACH(c, planned)
                for (size_t i = 0; i < k; i++)
                        if (to[i] == (int) c) {
                                p[j] = pick[i];
                                t[j++] = to[i];
                        }
        memcpy(pick, p, j * sizeof(*p));
        memcpy(to, t, j * sizeof(*t));
}

size_t migrate_select(const struct migrate_batch *b, const struct cpuset *planned, unsigned *next_target,
                      struct migrate_stats *st, size_t *pick, int *to) {
        unsigned targets = cpuset_count(planned);
        size_t k = 0;

        for (size_t i = 0; i < b->n; i++) {
                int node = b->status[i];
                if (node < 0)
                        continue; /* not present (never faulted in, or gone): nothing to move */
                st->resident += b->weight;
                if (cpuset_isset(planned, node)) {
                        st->on_plan += b->weight;
                        continue;
                }
                if (targets == 0)
                        continue;
                /* The planned nodes in turn: interleaved as the plan's policy would have put them;
                 * for one node, all there. */
                unsigned want = *next_target % targets, j = 0;
                int target = -1;
                CPUSET_FOREACH(c, planned)
                        if (j++ == want) {
                                target = c;
                                break;
                        }
                (*next_target)++;
                pick[k] = i;
                to[k] = target;
                k++;
        }
        if (targets > 1 && k > 1)
                group_by_target(planned, pick, to, k);
        return k;
}

/* The nodes of `planned` in order, and each one's share of `resident` pages: an even split, the
 * remainder to those from `first` on. Returns how many nodes. */
static unsigned spread_quotas(const struct cpuset *planned, uint64_t resident, unsigned first, int *ids,
                              uint64_t *quota) {
        unsigned k = 0;
        CPUSET_FOREACH(c, planned)
                if (k < MIGRATE_NODES_MAX)
                        ids[k++] = c;
        for (unsigned j = 0; j < k; j++)
                quota[j] = resident / k + ((j + k - first % k) % k < resident % k);
        return k;
}

size_t migrate_select_spread(const struct migrate_batch *b, const struct cpuset *planned, unsigned *next_target,
                             struct migrate_stats *st, size_t *pick, int *to) {
        _cleanup_free_ int *ids = xmalloc0(MIGRATE_NODES_MAX * sizeof(int));
        _cleanup_free_ uint64_t *quota = xmalloc0(MIGRATE_NODES_MAX * sizeof(uint64_t)),
                                *held = xmalloc0(MIGRATE_NODES_MAX * sizeof(uint64_t));
        uint64_t resident = 0;
        size_t k = 0;

        for (size_t i = 0; i < b->n; i++)
                resident += b->status[i] >= 0;
        unsigned n = spread_quotas(planned, resident, *next_target, ids, quota);
        if (n == 0)
                return 0;
        *next_target += (unsigned) (resident % n);
        for (size_t i = 0; i < b->n; i++) {
                int node = b->status[i];
                if (node < 0)
                        continue; /* not present */
                st->resident += b->weight;
                unsigned j = 0;
                while (j < n && ids[j] != node)
                        j++;
                if (j < n && held[j] < quota[j]) {
                        held[j]++;
                        st->on_plan += b->weight;
                } else
                        pick[k++] = i;
        }
        /* The nodes short of their share, in turn, take what is picked. */
        unsigned j = 0;
        for (size_t m = 0; m < k; m++) {
                while (held[j] >= quota[j])
                        j = (j + 1) % n;
                held[j]++;
                to[m] = ids[j];
                j = (j + 1) % n;
        }
        if (k > 1)
                group_by_target(planned, pick, to, k);
        return k;
}

void migrate_account(const int *from, const int *to, const int *status_after, size_t n, uint64_t weight,
                     struct migrate_stats *st) {
        for (size_t i = 0; i < n; i++) {
                int s = status_after[i];
                if (s == to[i] && from[i] >= 0 && from[i] < MIGRATE_NODES_MAX && s < MIGRATE_NODES_MAX) {
                        st->moved_from[from[i]] += weight;
                        st->moved_to[s] += weight;
                } else if (s >= 0)
                        st->failed[0] += weight; /* it stayed, or went elsewhere: errno 0 */
                else if (s == MIGRATE_STATUS_PINNED)
                        st->pinned += weight;
                else if (s == MIGRATE_STATUS_UNSET)
                        st->failed[0] += weight; /* no word from the kernel */
                else
                        st->failed[-s < MIGRATE_ERRNO_MAX ? -s : 0] += weight;
        }
}

size_t migrate_stopped_run(const int *status, const int *to, size_t n, size_t *ret_start) {
        size_t start = 0, end;
        while (start < n && status[start] != MIGRATE_STATUS_UNSET)
                start++;
        for (end = start; end < n && status[end] == MIGRATE_STATUS_UNSET && to[end] == to[start]; end++)
                ;
        *ret_start = start;
        return start == n ? n : end;
}

void migrate_settle(int *status, const int *to, const int *now, size_t n) {
        for (size_t i = 0; i < n; i++)
                status[i] = now[i] == to[i] || now[i] < 0 ? now[i] : MIGRATE_STATUS_PINNED;
}

uint64_t migrate_moved(const struct migrate_stats *st) {
        uint64_t n = 0;
        for (size_t i = 0; i < MIGRATE_NODES_MAX; i++)
                n += st->moved_to[i];
        return n;
}

uint64_t migrate_failed(const struct migrate_stats *st) {
        uint64_t n = 0;
        for (size_t i = 0; i < MIGRATE_ERRNO_MAX; i++)
                n += st->failed[i];
        return n + st->pinned;
}
