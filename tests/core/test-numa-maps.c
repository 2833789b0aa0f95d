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
        is_int(page_tally_add(&t, captured, &n0), 0, "every captured line parses");
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
        is_int(page_tally_add(&t, captured, &n1), 0, "planned on node 1 instead");
        model = false;
        for (size_t i = 0; i < t.n_files; i++)
                model = model || (streq(t.files[i].path, "/srv/models/q.gguf") && t.files[i].off_plan == 768);
        ok(model, "then the model's pages are off the plan");
        page_tally_done(&t);

        /* Two nodes: a bound replica whose model page cache sits on node 0. */
        static const char two_nodes[] =
                "55d0c0a00000 bind:1 file=/usr/bin/llama-server mapped=30 N1=30 kernelpagesize_kB=4\n"
                "55d0c2b4c000 bind:1 heap anon=4000 dirty=4000 active=0 N1=4000 kernelpagesize_kB=4\n"
                "7f3a00000000 bind:1 file=/srv/models/q.gguf mapped=12000 mapmax=2 N0=11000 N1=1000 kernelpagesize_kB=4\n"
                "7f3b00000000 bind:1 anon=14000 dirty=14000 active=0 N1=14000 kernelpagesize_kB=4\n"
                "7f3c00000000 interleave:0-1 file=/usr/lib/libc.so.6 anon=10 dirty=10 N0=20 N1=20 kernelpagesize_kB=4\n"
                "7f3d00000000 bind:1 file=/dev/hugepages/kv huge dirty=3 N1=3 kernelpagesize_kB=2048\n"
                "7ffc10000000 bind:1 stack anon=12 dirty=12 N1=12 kernelpagesize_kB=4\n"
                "7ffc20000000 default\n";
        page_tally_init(&t, 4);
        is_int(page_tally_add(&t, two_nodes, &n1), 0, "two-node lines parse");
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
        is_int(page_tally_add(&t, two_nodes, &n1), 0, "a second process adds up");
        is_int(t.total[0], 2 * (11000 + 20), "across processes");
        page_tally_done(&t);

        page_tally_init(&t, 4);
        ok(page_tally_add(&t, "7f00 bind:1 N1=x kernelpagesize_kB=4\n", &n1) < 0, "a count that is not a number is rejected");
        ok(page_tally_add(&t, "zzzz bind:1 N1=3\n", &n1) < 0, "an address that is not hex is rejected");
        ok(page_tally_add(&t, "7f00 bind:1 N5000=3\n", &n1) < 0, "a node beyond the kernel's limit is rejected");
        ok(page_tally_add(&t, "", &n1) == 0 && page_tally_sum(t.total) == 0, "an empty numa_maps (a kernel thread) is fine");
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
                int r = page_tally_add(&t, hostile[i], &n1);
                ok(r == -ERANGE && page_tally_sum(t.total) == 0, "refused, nothing counted: %.*s", (int) strlen(hostile[i]) - 1,
                   hostile[i]);
                page_tally_done(&t);
        }
        page_tally_init(&t, 4);
        ok(page_tally_add(&t, "0 default huge N1=17592186044415 kernelpagesize_kB=16777216\n", &n1) == 0 &&
                   page_tally_add(&t, "0 default huge N1=17592186044415 kernelpagesize_kB=16777216\n", &n1) == 0 &&
                   t.total[1] == UINT64_MAX,
           "the largest counts the kernel could print saturate, never wrap");
        page_tally_done(&t);
        return done_testing();
}
