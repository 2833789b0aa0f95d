/* SPDX-License-Identifier: MIT */
/* The numa_maps parser: lines captured from real processes (tests/fixtures/numa_maps/), plus the
 * shapes a second node adds. Usage: test-numa-maps FIXTURES_DIR */

#include "core/numa-maps.h"
#include "tap.h"
#include "tmproot.h"
#include "basic/util.h"

static struct cpuset nodes(const char *list) {
        struct cpuset s;
        cpuset_parse_list(list, &s);
        return s;
}

static char **units(const char *a) {
        char **v = xmalloc0(2 * sizeof(char *));
        v[0] = xstrdup(a);
        return v;
}

/* A replica's pages, split into its own and the program code it shares. */
static void split(void) {
        static const char numa_maps[] =
                "1000 bind:1 file=/usr/bin/node mapped=100 N0=100 kernelpagesize_kB=4\n"
                "2000 bind:1 file=/usr/bin/node mapped=20 N0=20 kernelpagesize_kB=4\n"
                "3000 bind:1 file=/srv/m.gguf mapped=50 N0=50 kernelpagesize_kB=4\n"
                "4000 bind:1 anon=300 dirty=300 N1=300 kernelpagesize_kB=4\n"
                "5000 bind:1 file=/opt/only-mine.so mapped=10 N0=10 kernelpagesize_kB=4\n"
                "6000 bind:1 file=/srv/models/x/run.bin mapped=5 N0=5 kernelpagesize_kB=4\n"
                "7000 bind:1 file=/usr/lib/libc.so.6 anon=4 dirty=4 mapped=8 N0=2 N1=6 kernelpagesize_kB=4\n";
        static const char maps[] = "1000-2000 r-xp 00000000 fe:01 11 /usr/bin/node\n"
                                   "2000-3000 r--p 00001000 fe:01 11 /usr/bin/node\n"
                                   "3000-4000 r--s 00000000 fe:01 12 /srv/m.gguf\n"
                                   "4000-5000 rw-p 00000000 00:00 0\n"
                                   "5000-6000 r-xp 00000000 fe:01 13 /opt/only-mine.so\n"
                                   "6000-7000 r-xp 00000000 fe:01 14 /srv/models/x/run.bin\n"
                                   "7000-8000 rw-p 00000000 fe:01 15 /usr/lib/libc.so.6\n";
        /* The same binary seen from another mount namespace: another path, the same inode. */
        static const char numa_maps2[] = "1000 bind:1 file=/app/node mapped=100 N0=100 kernelpagesize_kB=4\n";
        static const char maps2[] = "1000-2000 r-xp 00000000 fe:01 11 /app/node\n";
        struct cpuset n1 = nodes("1");
        struct page_tally t;

        page_tally_init(&t, 4);
        is_int(page_tally_add(&t, numa_maps, maps, &n1), 0, "numa_maps with its maps");
        is_int(page_tally_add(&t, numa_maps2, maps2, &n1), 0, "a second process");
        is_int(t.n_files, 5, "files go by inode: the binary's two segments and its other path are one file");
        const struct file_pages *node = &t.files[0], *libc = &t.files[4];
        ok(node->exec && node->total == 220 && file_pages_node(node) == 0,
           "the binary: program code, 220 pages on node 0");
        ok(!t.files[1].exec && libc->total == 4 && !libc->exec,
           "a data file, and libc's written data segment: not code");

        /* Who else maps each: the binary and the data file by the other replica, the model's
         * executable by another unit, only-mine.so by no one. */
        char **mapped_by[] = {units("llama@0.service"), units("llama@0.service"), NULL, units("other.service"),
                              units("cron.service")};
        char *models[] = {(char *) "/srv/models/x/", NULL};
        page_tally_split(&t, mapped_by, models);
        ok(t.files[0].shared, "program code another replica maps is shared");
        ok(!t.files[1].shared, "a data file another replica maps is the replica's own");
        ok(!t.files[2].shared, "program code no one else maps is its own");
        ok(t.files[3].model && !t.files[3].shared, "a file under model = is its own, executable or not");
        ok(!t.files[4].shared, "libc's data segment, written (anon) or not, is not code: its own");
        is_int(page_tally_sum(t.shared), 220, "shared: the binary's pages");
        is_int(t.shared[0], 220, "on node 0");
        is_int(page_tally_own_sum(&t), 300 + 50 + 10 + 5 + 8,
               "own: anon, the data file, own code, the model, libc's data");
        is_int(page_tally_own_on(&t, &n1), 300 + 6, "own on node 1: the anon and libc's node-1 pages");
        ok(t.files[0].mapped_by && streq(t.files[0].mapped_by[0], "llama@0.service"),
           "the units are kept for the report");

        /* Split again, nobody else maps anything now: nothing is shared. */
        page_tally_split(&t, NULL, NULL);
        is_int(page_tally_sum(t.shared), 0, "a second split starts over: alone, everything is its own");
        page_tally_done(&t);

        /* Without maps (an older capture), files go by path and nothing is known to be code. */
        page_tally_init(&t, 4);
        page_tally_add(&t, numa_maps, NULL, &n1);
        page_tally_add(&t, numa_maps2, NULL, &n1);
        is_int(t.n_files, 6, "without maps, by path");
        char **all[6] = {units("x.service"), units("x.service"), units("x.service"),
                         units("x.service"), units("x.service"), units("x.service")};
        page_tally_split(&t, all, NULL);
        is_int(page_tally_sum(t.shared), 0, "and nothing is shared, however many map it");
        page_tally_done(&t);
}

int main(int argc, char **argv) {
        struct page_tally t;
        struct cpuset n0 = nodes("0"), n1 = nodes("1");

        if (argc < 2) {
                printf("Bail out! usage: test-numa-maps FIXTURES_DIR\n");
                return 1;
        }

        /* Captured from a process with a hugetlb mapping, a read model file, malloc'ed memory,
         * heap, stack, shared libraries, and mappings with no resident page. */
        _cleanup_free_ char *path = xasprintf("%s/numa_maps/one-node-huge.numa_maps", argv[1]);
        _cleanup_free_ char *captured = read_whole(path);
        if (!ok(captured != NULL, "captured numa_maps readable"))
                return done_testing();
        page_tally_init(&t, 4);
        is_int(page_tally_add(&t, captured, NULL, &n0), 0, "every captured line parses");
        is_int(t.huge[0], 2 * 512, "2 huge pages of 2 MiB count as 1024 pages of 4 KiB");
        is_int(t.total[0], 3164 + 1024, "total: every N0= count, huge ones scaled");
        is_int(t.anon[0], 2073, "anon: heap, stack, malloc'ed memory, copy-on-write pages of files");
        is_int(t.file[0], 1091, "file: libraries, the binary, the model");
        is_int(page_tally_on(t.total, &n0), page_tally_sum(t.total), "all of it on node 0");
        bool model = false;
        for (size_t i = 0; i < t.n_files; i++)
                model = model || (streq(t.files[i].path, "/srv/models/q.gguf") && t.files[i].total == 768 &&
                                  t.files[i].off_plan == 0);
        ok(model, "the model file's 768 pages are counted under its path, none off the plan");
        page_tally_done(&t);

        page_tally_init(&t, 4);
        is_int(page_tally_add(&t, captured, NULL, &n1), 0, "planned on node 1 instead");
        model = false;
        for (size_t i = 0; i < t.n_files; i++)
                model = model || (streq(t.files[i].path, "/srv/models/q.gguf") && t.files[i].off_plan == 768);
        ok(model, "then the model's pages are off the plan");
        page_tally_done(&t);

        /* Two nodes: a bound replica whose model page cache sits on node 0. */
        static const char two_nodes[] =
                "55d0c0a00000 bind:1 file=/usr/bin/llama-server mapped=30 N1=30 kernelpagesize_kB=4\n"
                "55d0c2b4c000 bind:1 heap anon=4000 dirty=4000 active=0 N1=4000 kernelpagesize_kB=4\n"
                "7f3a00000000 bind:1 file=/srv/models/q.gguf mapped=12000 mapmax=2 N0=11000 N1=1000 "
                "kernelpagesize_kB=4\n"
                "7f3b00000000 bind:1 anon=14000 dirty=14000 active=0 N1=14000 kernelpagesize_kB=4\n"
                "7f3c00000000 interleave:0-1 file=/usr/lib/libc.so.6 anon=10 dirty=10 N0=20 N1=20 kernelpagesize_kB=4\n"
                "7f3d00000000 bind:1 file=/dev/hugepages/kv huge dirty=3 N1=3 kernelpagesize_kB=2048\n"
                "7ffc10000000 bind:1 stack anon=12 dirty=12 N1=12 kernelpagesize_kB=4\n"
                "7ffc20000000 default\n";
        page_tally_init(&t, 4);
        is_int(page_tally_add(&t, two_nodes, NULL, &n1), 0, "two-node lines parse");
        is_int(t.total[0], 11000 + 20, "node 0: the model's cache and half of libc");
        is_int(t.total[1], 30 + 4000 + 1000 + 14000 + 20 + 3 * 512 + 12, "node 1: the rest");
        is_int(t.huge[1], 1536, "hugetlb pages on node 1");
        is_int(t.anon[0], 5, "a file mapping's anon pages split by node in proportion");
        is_int(t.file[0], 11015, "and its file pages");
        size_t remote = 0;
        for (size_t i = 0; i < t.n_files; i++)
                if (t.files[i].off_plan * 2 > t.files[i].total) {
                        remote++;
                        is_str(t.files[i].path, "/srv/models/q.gguf", "the remote file is the model");
                }
        is_int(remote, 1, "one file has most of its pages off the plan (libc has half)");
        uint64_t planned = page_tally_on(t.total, &n1), total = page_tally_sum(t.total);
        ok(planned * 1000 / total == 651, "locality 65.1%% (%llu of %llu)", (unsigned long long) planned,
           (unsigned long long) total);
        is_int(t.processes, 1, "one process counted");
        is_int(page_tally_add(&t, two_nodes, NULL, &n1), 0, "a second process adds up");
        is_int(t.total[0], 2 * (11000 + 20), "across processes");
        page_tally_done(&t);

        page_tally_init(&t, 4);
        ok(page_tally_add(&t, "7f00 bind:1 N1=x kernelpagesize_kB=4\n", NULL, &n1) < 0,
           "a count that is not a number is rejected");
        ok(page_tally_add(&t, "zzzz bind:1 N1=3\n", NULL, &n1) < 0, "an address that is not hex is rejected");
        ok(page_tally_add(&t, "7f00 bind:1 N5000=3\n", NULL, &n1) < 0, "a node beyond the kernel's limit is rejected");
        ok(page_tally_add(&t, "", NULL, &n1) == 0 && page_tally_sum(t.total) == 0,
           "an empty numa_maps (a kernel thread) is fine");
        page_tally_done(&t);

        /* Hostile numbers: a node past INT_MAX once turned negative through atoi and wrote
         * count[-1]; counts wrapped. Each such line is refused, and nothing is counted from it. */
        static const char *const hostile[] = {
                "0 default N2147483648=1\n",
                "0 default N4294967295=1\n",
                "0 default N99999999999999999999=1\n",
                "0 default N1=18446744073709551615\n",
                "0 default N1=99999999999999999999999\n",
                "0 default N1=17592186044416 N1=17592186044416\n",
                "0 default huge N1=3 kernelpagesize_kB=1099511627776\n",
                "0 default anon=99999999999999999999 N1=3\n",
        };
        for (size_t i = 0; i < ELEMENTSOF(hostile); i++) {
                page_tally_init(&t, 4);
                int r = page_tally_add(&t, hostile[i], NULL, &n1);
                ok(r == -ERANGE && page_tally_sum(t.total) == 0, "refused, nothing counted: %.*s",
                   (int) strlen(hostile[i]) - 1, hostile[i]);
                page_tally_done(&t);
        }
        page_tally_init(&t, 4);
        ok(page_tally_add(&t, "0 default huge N1=17592186044415 kernelpagesize_kB=16777216\n", NULL, &n1) == 0 &&
                   page_tally_add(&t, "0 default huge N1=17592186044415 kernelpagesize_kB=16777216\n", NULL, &n1) ==
                           0 &&
                   t.total[1] == UINT64_MAX,
           "the largest counts the kernel could print saturate, never wrap");
        page_tally_done(&t);
        split();
        return done_testing();
}
