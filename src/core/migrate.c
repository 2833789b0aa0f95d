/* SPDX-License-Identifier: MIT */
#include "core/migrate.h"

size_t migrate_select(const int *status, size_t n, const struct cpuset *planned, unsigned *next_target,
                      uint64_t weight, struct migrate_stats *st, size_t *pick, int *to) {
        unsigned targets = cpuset_count(planned);
        size_t k = 0;

        for (size_t i = 0; i < n; i++) {
                int node = status[i];
                if (node < 0)
                        continue; /* not present (never faulted in, or gone): nothing to move */
                st->resident += weight;
                if (cpuset_isset(planned, node)) {
                        st->on_plan += weight;
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
                else
                        st->failed[-s < MIGRATE_ERRNO_MAX ? -s : 0] += weight;
        }
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
        return n;
}
