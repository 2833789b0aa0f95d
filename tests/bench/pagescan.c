/* SPDX-License-Identifier: MIT */
/* The page scan of `numaplan verify` on its own, for tests/bench/pages.sh and replicas.sh: reads
 * /proc/PID/numa_maps (and maps) of each PID through the same reader and parser and prints MiB
 * per node, as `numastat -p PID` does. With --split, each argument is one replica's PIDs,
 * comma-separated, and its pages are split into its own and shared program code as verify
 * does for the replicas it checks (every replica of the plan): from their maps, and other
 * processes' only while that is not enough; --every-process, from every process's maps (as
 * verify did before, and migrate does).
 * Usage: pagescan PID... | pagescan --split [--every-process] PID[,PID...]... */

#include <stdlib.h>

#include "basic/util.h"
#include "core/numa-maps.h"
#include "host/file-mappers.h"
#include "host/host-facts.h"
#include "host/root.h"
#include "host/tasks.h"

static void print(const char *name, const struct page_tally *t) {
        for (int n = 0; n < NUMA_NODES_MAX; n++)
                if (t->total[n])
                        printf("%snode %d: %.2f MiB (anon %.2f, file %.2f, huge %.2f; shared %.2f)\n", name, n,
                               (double) t->total[n] * (double) t->base_kb / 1024,
                               (double) t->anon[n] * (double) t->base_kb / 1024,
                               (double) t->file[n] * (double) t->base_kb / 1024,
                               (double) t->huge[n] * (double) t->base_kb / 1024,
                               (double) t->shared[n] * (double) t->base_kb / 1024);
}

int main(int argc, char **argv) {
        _cleanup_root_ struct root *root = NULL;
        struct cpuset none = {0};
        bool split = argc > 1 && streq(argv[1], "--split"),
             every = split && argc > 2 && streq(argv[2], "--every-process");
        int first = split ? 2 + every : 1, n = argc - first;

        if (n < 1 || root_open("/", 0, &root) < 0)
                return 2;
        struct page_tally *t = xmalloc0((size_t) n * sizeof(*t));
        struct replica_pages *rp = xmalloc0((size_t) n * sizeof(*rp));
        size_t np = 0, max = 0;
        for (int i = first; i < argc; i++)
                for (const char *s = argv[i]; s; s = strchr(s, ','), s = s ? s + 1 : NULL)
                        max++;
        struct process *procs = xmalloc0((max + 1) * sizeof(*procs));
        for (int g = 0; g < (split ? n : 1); g++) {
                page_tally_init(&t[g], host_page_size(root) / 1024);
                rp[g] = (struct replica_pages){.pages = &t[g], .processes = procs + np};
                for (int i = split ? first + g : first; i < (split ? first + g + 1 : argc); i++)
                        for (char *s = argv[i], *e; *s; s = *e ? e + 1 : e) {
                                pid_t pid = (pid_t) strtol(s, &e, 10);
                                if (process_pages(root, pid, &none, &t[g]) < 0)
                                        return 1;
                                procs[np++].pid = pid;
                                rp[g].n_processes++;
                        }
        }
        if (split) {
                int scanned = every ? replica_pages_split(root, rp, (size_t) n)
                                    : replica_pages_split_lazily(root, rp, (size_t) n, true);
                for (int g = 0; g < n; g++) {
                        char name[32];
                        snprintf(name, sizeof(name), "replica %d: ", g);
                        print(name, &t[g]);
                }
                printf("%d processes' maps scanned\n", scanned);
        } else
                print("", &t[0]);
        for (int g = 0; g < (split ? n : 1); g++)
                page_tally_done(&t[g]);
        free(t);
        free(rp);
        free(procs);
        return 0;
}
