/* SPDX-License-Identifier: MIT */
/* Who else maps a replica's files, from a replayed /proc: one scan of every process's maps, the
 * units from their cgroups, a replica's own processes left out; then the split of its pages. */

#include "basic/util.h"
#include "host/file-mappers.h"
#include "host/root.h"
#include "host/tasks.h"
#include "tap.h"
#include "tmproot.h"

#define ENGINE "1000-2000 r-xp 00000000 fe:01 7 /opt/engine/node\n"
#define LIBC "3000-4000 r-xp 00000000 fe:01 9 /usr/lib/libc.so.6\n"
#define MODEL "5000-6000 r--s 00000000 fe:01 8 /srv/m.gguf\n"

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

        struct file_id ids[] = {{UINT64_C(0xfe) << 32 | 1, 9}, {UINT64_C(0xfe) << 32 | 1, 7},
                                {UINT64_C(0xfe) << 32 | 1, 7}, {UINT64_C(0xfe) << 32 | 1, 8}, {3, 3}};
        struct file_mappers m;
        is_int(file_mappers_scan(root, ids, ELEMENTSOF(ids), &m), 0, "the scan");
        is_int(m.n_ids, 4, "the files asked about, each once");
        is_int(m.processes, 6, "every process's maps read once");

        pid_t llama1[] = {200, 201};
        _cleanup_strv_free_ char **engine = file_mappers_units(&m, ids[1], llama1, 2);
        ok(engine && streq(engine[0], "llama@0.service") && !engine[1], "the engine: llama@1 leaves itself out, finds llama@0");
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
        write_file(d, "proc/200/numa_maps", "1000 bind:1 file=/opt/engine/node mapped=90 N0=90 kernelpagesize_kB=4\n"
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
        return done_testing();
}
