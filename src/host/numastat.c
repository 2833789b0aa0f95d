/* SPDX-License-Identifier: MIT */
#include "basic/util.h"
#include "host/numastat.h"
#include "host/root.h"

int read_numastat(struct root *root, const int *nodes, size_t n_nodes, struct numastat **ret) {
        struct numastat *v = xmalloc0((n_nodes + 1) * sizeof(*v));

        for (size_t i = 0; i < n_nodes; i++) {
                _cleanup_free_ char *path = xasprintf("sys/devices/system/node/node%d/numastat", nodes[i]), *text = NULL;
                v[i].node = nodes[i];
                if (root_read_file(root, path, &text, NULL) < 0)
                        continue;
                static const char *const keys[] = {"numa_hit", "numa_miss", "numa_foreign", "other_node"};
                uint64_t *dst[] = {&v[i].numa_hit, &v[i].numa_miss, &v[i].numa_foreign, &v[i].other_node};
                for (size_t k = 0; k < ELEMENTSOF(keys); k++) {
                        const char *p = strstr(text, keys[k]);
                        size_t kl = strlen(keys[k]);
                        while (p && ((p != text && p[-1] != '\n') || p[kl] != ' '))
                                p = strstr(p + 1, keys[k]);
                        if (p)
                                *dst[k] = strtoull(p + kl, NULL, 10);
                }
        }
        *ret = v;
        return 0;
}
