/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "basic/util.h"
#include "host/numastat.h"
#include "host/root.h"

void numastat_parse(const char *text, struct numastat *ret) {
        static const char *const keys[] = {"numa_hit", "numa_miss", "numa_foreign", "other_node"};
        uint64_t *dst[] = {&ret->numa_hit, &ret->numa_miss, &ret->numa_foreign, &ret->other_node};

        for (size_t k = 0; k < ELEMENTSOF(keys); k++) {
                const char *p = strstr(text, keys[k]);
                size_t kl = strlen(keys[k]);
                while (p && ((p != text && p[-1] != '\n') || p[kl] != ' '))
                        p = strstr(p + 1, keys[k]);
                uint64_t v;
                char *end;
                if (!p)
                        continue;
                p += kl + strspn(p + kl, " ");
                /* A counter: digits to the end of the line, else left at 0 (unknown). */
                size_t digits = strspn(p, "0123456789");
                _cleanup_free_ char *num = xstrndup(p, digits);
                errno = 0;
                v = strtoull(num, &end, 10);
                if (digits && !*end && errno == 0 && (p[digits] == '\n' || p[digits] == 0))
                        *dst[k] = v;
        }
}

int read_numastat(struct root *root, const int *nodes, size_t n_nodes, struct numastat **ret) {
        struct numastat *v = xmalloc0((n_nodes + 1) * sizeof(*v));

        for (size_t i = 0; i < n_nodes; i++) {
                _cleanup_free_ char *path = xasprintf("sys/devices/system/node/node%d/numastat", nodes[i]),
                                    *text = NULL;
                v[i].node = nodes[i];
                if (root_read_file(root, path, &text, NULL) >= 0)
                        numastat_parse(text, &v[i]);
        }
        *ret = v;
        return 0;
}
