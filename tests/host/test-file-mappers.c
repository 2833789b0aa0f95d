/* SPDX-License-Identifier: MIT */
/* Who else maps a replica's files, from a replayed /proc: one scan of every process's maps, the
 * units from their cgroups, a replica's own processes left out; then the split of its pages, from
 * every process's maps and lazily, the same. */

#include "basic/util.h"
#include "host/file-mappers.h"
#include "host/root.h"
#include "host/tasks.h"
#include "tap.h"
#include "tmproot.h"

#define ENGINE "1000-2000 r-xp 00000000 fe:01 7 /opt/engine/node\n"
#define LIBC "3000-4000 r-xp 00000000 fe:01 9 /usr/lib/libc.so.6\n"
#define MODEL "5000-6000 r--s 00000000 fe:01 8 /srv/m.gguf\n"

/* The lazy split gives replica_pages_split()'s split, reading fewer maps. Each case: the replicas
 * (PID lists, 0-terminated), every_replica, the maps it may read at most, and a check of the
 * lists it found. */
struct lazy_case {
        const char *what;
        pid_t pids[2][3];
        size_t n;
        bool every_replica;
        int max_read;
};

static void split_both(struct root *root, const struct lazy_case *c, bool lazily, struct page_tally *t, int *ret_read) {
        struct replica_pages rp[2];
        struct process procs[2][3] = {0};
        struct cpuset n1 = {0};

        cpuset_set(&n1, 1);
        for (size_t i = 0; i < c->n; i++) {
                page_tally_init(&t[i], 4);
                rp[i] = (struct replica_pages){.pages = &t[i], .processes = procs[i]};
                for (size_t k = 0; c->pids[i][k]; k++) {
                        procs[i][k].pid = c->pids[i][k];
                        (void) process_pages(root, c->pids[i][k], &n1, &t[i]);
                        rp[i].n_processes++;
                }
        }
        *ret_read = lazily ? replica_pages_split_lazily(root, rp, c->n, c->every_replica)
                           : replica_pages_split(root, rp, c->n);
}

static bool same_split(const struct page_tally *a, const struct page_tally *b) {
        bool same = a->n_files == b->n_files && page_tally_own_sum(a) == page_tally_own_sum(b) &&
                    page_tally_sum(a->shared) == page_tally_sum(b->shared);
        for (size_t k = 0; same && k < a->n_files; k++)
                same = a->files[k].shared == b->files[k].shared && a->files[k].model == b->files[k].model;
        return same;
}

static bool lists(const struct file_pages *f, const char *const *want) {
        size_t n = 0;
        for (; want[n]; n++)
                if (!f->mapped_by || !strv_contains(f->mapped_by, want[n]))
                        return false;
        return (n == 0 && !f->mapped_by) || (f->mapped_by && strv_length(f->mapped_by) == n);
}

static void test_lazily(struct root *root, const char *d) {
        /* The numa_maps of llama@0 (100), llama@1 (200, 201), and 600: a process of a unit of its
         * own whose program (inode 10) no one else maps. */
        write_file(d, "proc/100/numa_maps",
                   "1000 bind:0 file=/opt/engine/node mapped=90 N0=90 kernelpagesize_kB=4\n"
                   "3000 bind:0 file=/usr/lib/libc.so.6 mapped=40 N0=40 kernelpagesize_kB=4\n"
                   "5000 bind:0 file=/srv/m.gguf mapped=200 N0=200 kernelpagesize_kB=4\n");
        write_file(d, "proc/201/numa_maps",
                   "3000 bind:1 file=/usr/lib/libc.so.6 mapped=40 N0=40 kernelpagesize_kB=4\n");
        write_file(d, "proc/600/maps", "1000-2000 r-xp 00000000 fe:01 10 /opt/tool/tool\n" LIBC);
        write_file(d, "proc/600/numa_maps",
                   "1000 default file=/opt/tool/tool mapped=5 N1=5 kernelpagesize_kB=4\n"
                   "3000 default file=/usr/lib/libc.so.6 mapped=40 N0=40 kernelpagesize_kB=4\n");
        write_file(d, "proc/600/cgroup", "0::/system.slice/tool.service\n");

        static const struct lazy_case cases[] = {
                {"two replicas of one engine", {{100}, {200, 201}}, 2, true, 3},
                {"llama@1 alone", {{200, 201}}, 1, true, 7},
                {"a program no one else maps", {{600}}, 1, true, 7},
                {"llama@0 alone, its model off the plan", {{100}}, 1, false, 7},
        };
        for (size_t c = 0; c < ELEMENTSOF(cases); c++) {
                struct page_tally full[2], lazy[2];
                int read_full, read_lazy;
                split_both(root, &cases[c], false, full, &read_full);
                split_both(root, &cases[c], true, lazy, &read_lazy);
                bool same = true;
                for (size_t i = 0; i < cases[c].n; i++)
                        same = same && same_split(&full[i], &lazy[i]);
                ok(same, "%s: the lazy split is the whole scan's", cases[c].what);
                ok(read_lazy >= 0 && read_lazy <= cases[c].max_read && read_full == 7,
                   "%s: %d maps read, at most %d (the whole scan: %d)", cases[c].what, read_lazy, cases[c].max_read,
                   read_full);
                if (c == 0) {
                        /* llama@0's engine and libc are llama@1's too: no one else's maps read. */
                        ok(lists(&lazy[0].files[0], (const char *const[]){"llama@1.service", NULL}) &&
                                   lists(&lazy[0].files[1], (const char *const[]){"llama@1.service", NULL}) &&
                                   lists(&lazy[1].files[0], (const char *const[]){"llama@0.service", NULL}),
                           "two replicas: each other's units, from their own maps");
                        ok(lists(&full[0].files[1],
                                 (const char *const[]){"llama@1.service", "cron.service", "tool.service", NULL}),
                           "the whole scan lists every unit that maps libc");
                } else if (c == 2)
                        ok(!lazy[0].files[0].shared && lists(&lazy[0].files[0], (const char *const[]){NULL}),
                           "a program no one else maps is the replica's own, after every process was read");
                else if (c == 3)
                        ok(lists(&lazy[0].files[2], (const char *const[]){"-", NULL}),
                           "a file off the plan, other replicas unknown: every unit that maps it, as the whole scan "
                           "finds");
                for (size_t i = 0; i < cases[c].n; i++) {
                        page_tally_done(&full[i]);
                        page_tally_done(&lazy[i]);
                }
        }
}

int main(void) {
        _cleanup_tmpdir_ char *d = make_tmpdir();
        _cleanup_root_ struct root *root = NULL;

        /* llama@0: the engine, libc, the model; llama@1 (100 and its worker 101): the engine, libc;
         * cron: libc; 400: a kernel thread (empty maps, no unit); 500: in the root cgroup. */
        write_file(d, "proc/100/maps", ENGINE LIBC MODEL);
        write_file(d, "proc/100/cgroup", "0::/system.slice/system-llama.slice/llama@0.service\n");
        write_file(d, "proc/200/maps", ENGINE LIBC "7000-8000 rw-p 00000000 00:00 0 [heap]\n");
        write_file(d, "proc/200/cgroup", "0::/system.slice/system-llama.slice/llama@1.service\n");
        write_file(d, "proc/201/maps", LIBC);
        write_file(d, "proc/201/cgroup", "0::/system.slice/system-llama.slice/llama@1.service\n");
        write_file(d, "proc/300/maps", LIBC LIBC);
        write_file(d, "proc/300/cgroup", "0::/system.slice/cron.service\n");
        write_file(d, "proc/400/maps", "");
        write_file(d, "proc/500/maps", MODEL);
        write_file(d, "proc/500/cgroup", "0::/\n");
        write_file(d, "proc/self", "not a process\n");
        if (!ok(root_open(d, 0, &root) == 0, "a replayed root"))
                return done_testing();

        struct file_id ids[] = {{UINT64_C(0xfe) << 32 | 1, 9},
                                {UINT64_C(0xfe) << 32 | 1, 7},
                                {UINT64_C(0xfe) << 32 | 1, 7},
                                {UINT64_C(0xfe) << 32 | 1, 8},
                                {3, 3}};
        struct file_mappers m;
        is_int(file_mappers_scan(root, ids, ELEMENTSOF(ids), &m), 0, "the scan");
        is_int(m.n_ids, 4, "the files asked about, each once");
        is_int(m.processes, 6, "every process's maps read once");

        pid_t llama1[] = {200, 201};
        _cleanup_strv_free_ char **engine = file_mappers_units(&m, ids[1], llama1, 2);
        ok(engine && streq(engine[0], "llama@0.service") && !engine[1],
           "the engine: llama@1 leaves itself out, finds llama@0");
        _cleanup_strv_free_ char **libc = file_mappers_units(&m, ids[0], llama1, 2);
        ok(libc && streq(libc[0], "cron.service") && streq(libc[1], "llama@0.service") && !libc[2],
           "libc: each unit once, sorted, however many mappings a process has");
        _cleanup_strv_free_ char **model = file_mappers_units(&m, ids[3], (pid_t[]){100}, 1);
        ok(model && streq(model[0], "-") && !model[1], "a process in no unit counts as -");
        ok(!file_mappers_units(&m, ids[4], NULL, 0), "a file no one maps: NULL");
        pid_t all[] = {100, 200, 201, 300, 500};
        ok(!file_mappers_units(&m, ids[0], all, ELEMENTSOF(all)), "everyone excluded: NULL");
        file_mappers_done(&m);

        /* The split, for llama@1, from its numa_maps. */
        write_file(d, "proc/200/numa_maps",
                   "1000 bind:1 file=/opt/engine/node mapped=90 N0=90 kernelpagesize_kB=4\n"
                   "7000 bind:1 heap anon=30 dirty=30 N1=30 kernelpagesize_kB=4\n");
        struct page_tally t;
        struct cpuset n1 = {0};
        cpuset_set(&n1, 1);
        page_tally_init(&t, 4);
        is_int(process_pages(root, 200, &n1, &t), 0, "llama@1's pages, its maps read beside numa_maps");
        struct process procs[] = {{.pid = 201}, {.pid = 200}};
        struct replica_pages rp = {.pages = &t, .processes = procs, .n_processes = 2};
        is_int(replica_pages_split(root, &rp, 1), 6, "one scan for the split");
        ok(t.n_files == 1 && t.files[0].shared && t.shared[0] == 90, "the engine's binary is shared program code");
        is_int(page_tally_own_sum(&t), 30, "its own pages: the heap");
        page_tally_done(&t);

        test_lazily(root, d);
        return done_testing();
}
