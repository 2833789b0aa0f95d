/* SPDX-License-Identifier: MIT */
/* What migrate and prepare move, without a kernel: which mappings of a captured numa_maps are
 * scanned, which pages of a captured move_pages(2) answer are picked and where they go, how the
 * kernel's answer after the move is counted, pinned pages included, which move_pages(2) answers
 * with no status; and the huge page pools' record and arithmetic. */

#include <errno.h>

#include "basic/util.h"
#include "core/hugepages.h"
#include "core/proc-maps.h"
#include "core/migrate.h"
#include "core/numa-maps.h"
#include "core/planner.h"
#include "tap.h"

static struct cpuset set(const char *s) {
        struct cpuset c;
        cpuset_parse_list(s, &c);
        return c;
}

/* A llama.cpp-like server bound to node 1, captured after its model was read on node 0: the
 * binary and libc on both nodes, its heap on node 1, the model's page cache on node 0, a CUDA-like
 * reservation with nothing resident, a hugetlb arena on node 1. */
static const char captured[] =
        "55d0c0a00000 bind:1 file=/usr/bin/llama-server mapped=310 mapmax=2 N0=200 N1=110 kernelpagesize_kB=4\n"
        "55d0c1a00000 bind:1 heap anon=5000 dirty=5000 N1=5000 kernelpagesize_kB=4\n"
        "7f1000000000 bind:1 file=/srv/models/q.gguf mapped=16384 mapmax=1 N0=16000 N1=384 kernelpagesize_kB=4\n"
        "7f2000000000 bind:1\n"
        "7f3000000000 bind:1 file=/dev/hugepages/arena huge dirty=8 N1=8 kernelpagesize_kB=2048\n"
        "7ffd00000000 bind:1 stack anon=33 dirty=33 N1=33 kernelpagesize_kB=4\n";

static void mappings(void) {
        struct cpuset node1 = set("1");
        struct mapping_pages *m = NULL;
        size_t n = 0;

        ok(numa_maps_mappings(captured, &node1, &m, &n) == 0 && n == 6, "every mapping of the capture is read");
        is_int(m[0].start, 0x55d0c0a00000, "its start address");
        is_int(m[0].off_plan, 200, "the binary: 200 of its pages off node 1");
        is_int(m[1].off_plan, 0, "the heap is in place: not scanned");
        is_int(m[2].resident, 16384, "the model: 16384 resident");
        is_int(m[2].off_plan, 16000, "16000 of them off the plan");
        ok(m[3].resident == 0 && m[3].off_plan == 0, "a reservation with nothing resident is not scanned");
        ok(m[4].page_kb == 2048 && m[4].resident == 8 && m[4].off_plan == 0, "huge pages counted in their own size");
        size_t scanned = 0;
        for (size_t i = 0; i < n; i++)
                scanned += m[i].off_plan > 0;
        is_int(scanned, 2, "only the binary and the model are scanned page by page");
        free(m);
        ok(numa_maps_mappings("zz bind:1 N0=1\n", &node1, &m, &n) < 0, "a line the kernel would not print is refused");
}

static void selection(void) {
        struct cpuset node1 = set("1"), both = set("1-2"), none = {0};
        struct migrate_stats *st = xmalloc0(sizeof(*st));
        /* move_pages(2) without target nodes: the node of each page, or -errno. */
        int status[] = {0, 1, -ENOENT, 0, -EFAULT, 1, 0, 3};
        size_t pick[8];
        int to[8];
        unsigned next = 0;
        struct migrate_batch base = {.status = status, .n = 8, .weight = 1},
                             huge = {.status = status, .n = 8, .weight = 512};

        size_t k = migrate_select(&base, &node1, &next, st, pick, to);
        is_int(k, 4, "the pages off node 1 are picked, the absent ones skipped");
        ok(pick[0] == 0 && pick[1] == 3 && pick[2] == 6 && pick[3] == 7, "by their index in the batch");
        ok(to[0] == 1 && to[1] == 1 && to[2] == 1 && to[3] == 1, "all to node 1");
        is_int(st->resident, 6, "six pages resident");
        is_int(st->on_plan, 2, "two already there");

        memset(st, 0, sizeof(*st));
        next = 0;
        k = migrate_select(&huge, &both, &next, st, pick, to);
        ok(k == 4 && pick[0] == 0 && pick[1] == 6 && pick[2] == 3 && pick[3] == 7,
           "over two planned nodes the targets take turns, as interleave would (pages 0 and 6 to node 1, 3 and 7 "
           "to node 2)");
        ok(to[0] == 1 && to[1] == 1 && to[2] == 2 && to[3] == 2,
           "and the picks come grouped by target: move_pages(2) moves each node's run in one pass");
        is_int(st->resident, 6 * 512, "a huge page weighs its base pages");

        memset(st, 0, sizeof(*st));
        k = migrate_select(&base, &none, &next, st, pick, to);
        is_int(k, 0, "no planned node: nothing is picked");

        /* The answer after the move: the node each page is on now, or -errno. */
        int from[] = {0, 0, 0, 3}, target[] = {1, 1, 1, 1}, after[] = {1, -EBUSY, 0, -ENOMEM};
        memset(st, 0, sizeof(*st));
        migrate_account(from, target, after, 4, 1, st);
        is_int(st->moved_from[0], 1, "one page left node 0");
        is_int(st->moved_to[1], 1, "and reached node 1");
        is_int(st->failed[EBUSY], 1, "one was busy");
        is_int(st->failed[ENOMEM], 1, "one found the node full");
        is_int(st->failed[0], 1, "one stayed without a reason");
        is_int(migrate_moved(st), 1, "moved in all");
        is_int(migrate_failed(st), 3, "not moved in all");
        free(st);
}

/* move_pages(2) of pages one of which is pinned: the kernel returns a positive count and leaves the
 * statuses of the run it stopped at, and of every page after it, as they were. */
static void pinned(void) {
        const int U = MIGRATE_STATUS_UNSET;
        int to[] = {1, 1, 1, 1, 2, 2};
        int status[] = {1, 1, U, U, U, U};
        size_t start, end = migrate_stopped_run(status, to, 6, &start);
        ok(start == 2 && end == 4,
           "the run it stopped at: the first page left unset and those after it bound for the same "
           "node (got %zu to %zu)",
           start, end);

        int now[] = {1, 0};
        migrate_settle(status + start, to + start, now, end - start);
        ok(status[2] == 1, "asked afterwards, a page of that run on its target moved");
        ok(status[3] == MIGRATE_STATUS_PINNED, "one still off the plan is held: pinned");
        end = migrate_stopped_run(status, to, 6, &start);
        ok(start == 4 && end == 6, "the pages it never tried are the next run, for the next call");

        int written[] = {1, U, -EFAULT, U}, one[] = {1, 1, 1, 1};
        end = migrate_stopped_run(written, one, 4, &start);
        ok(start == 1 && end == 2, "a page whose status it wrote (not queued) ends the run");
        int all[] = {1, -ENOENT, 1};
        end = migrate_stopped_run(all, one, 3, &start);
        ok(start == 3 && end == 3, "every status written: no run in doubt");
        int gone[] = {-ENOENT}, pinned_status[1];
        migrate_settle(pinned_status, one, gone, 1);
        is_int(pinned_status[0], -ENOENT, "a page gone meanwhile is said as the kernel says it");

        struct migrate_stats *st = xmalloc0(sizeof(*st));
        int from[] = {0, 0, 0, 0, 0, 0}, after[] = {1, 1, 1, MIGRATE_STATUS_PINNED, -EBUSY, U};
        migrate_account(from, to, after, 6, 1, st);
        is_int(st->pinned, 1, "a pinned page is counted as pinned");
        is_int(st->failed[EBUSY], 1, "not as EBUSY, which is another reason");
        is_int(st->failed[0], 1, "a status never written is a page not moved, reason unknown");
        is_int(migrate_failed(st), 3, "and all three did not move");
        is_int(migrate_moved(st), 3, "three moved");
        free(st);
}

static void pools(void) {
        struct pools p = {0}, q;
        unsigned line = 0;

        pools_add(&p, 1, 2048, 512);
        pools_add(&p, 0, 1048576, 4);
        pools_add(&p, 1, 2048, 10);
        _cleanup_free_ char *text = pools_format(&p);
        is_str(text,
               "# numaplan's huge pages: NODE PAGE_KB PAGES OTHERS (others' pages beside them then)\n"
               "0 1048576 4 0\n1 2048 522 0\n",
               "the record: sorted, one line a pool, shares summed");
        ok(pools_parse(text, &q, &line) == 0 && pools_get(&q, 1, 2048) == 522 && pools_get(&q, 0, 1048576) == 4,
           "and read back");
        pools_done(&q);
        ok(pools_parse("1 2048 5\nx\n", &q, &line) < 0 && line == 2, "a bad record names its line");
        pools_done(&p);

        /* Others held 100 pages when numaplan recorded its 20. */
        struct pool rec = {1, 2048, 20, 100, true}, old = {1, 2048, 20, 0, false};
        struct pool_share sh = pools_share(120, &rec);
        ok(sh.ours == 20 && sh.others == 100 && !sh.disagrees, "the pool as recorded: 20 numaplan's, 100 others'");
        sh = pools_share(150, &rec);
        ok(sh.ours == 20 && sh.others == 130 && sh.disagrees, "others added 30: still 20 numaplan's, and said");
        sh = pools_share(105, &rec);
        ok(sh.ours == 5 && sh.others == 100 && sh.disagrees,
           "the pool shrank to 105: numaplan's at most the 5 beyond others'");
        sh = pools_share(5, &(struct pool){1, 2048, 9, 5, true});
        ok(sh.ours == 0 && sh.others == 5 && sh.disagrees,
           "a record claiming more than numaplan reserved: others' 5 stay others'");
        sh = pools_share(120, &old);
        ok(sh.ours == 0 && sh.others == 120 && sh.disagrees,
           "a record without others' count: none taken as numaplan's");
        sh = pools_share(120, NULL);
        ok(sh.ours == 0 && sh.others == 120 && !sh.disagrees, "no record: all others'");
        is_int(pools_target(100, 50), 150, "target: others' pages plus the plan's");
        is_int(pools_granted(100, 150), 50, "all granted");
        is_int(pools_granted(100, 130), 30, "a shortfall: numaplan's share is what came beyond others'");
        is_int(pools_granted(100, 90), 0, "never below none");
        ok(pools_parse("# comment\n1 2048 20 100\n0 2048 3\n", &q, &line) == 0 &&
                   pools_find(&q, 1, 2048)->others == 100 && pools_find(&q, 1, 2048)->others_known &&
                   !pools_find(&q, 0, 2048)->others_known,
           "a record of both forms: others' count known only where it is written");
        pools_done(&q);

        struct hugepage_share shares[] = {{0, 3}, {1, 2}};
        struct placement pl = {.hugepage_kb = 2048, .hugepages = shares, .n_hugepages = 2};
        struct plan plan = {.replicas = &pl, .n_replicas = 1};
        pools_for_plan(&plan, &p);
        ok(p.n == 2 && pools_get(&p, 0, 2048) == 3 && pools_get(&p, 1, 2048) == 2, "a plan's pools, per node");
        pools_done(&p);
}

/* The ranges of /proc/PID/maps that migrate scans. */
static void maps_ranges(void) {
        static const struct {
                const char *line;
                bool taken;
                uint64_t start, end;
        } cases[] = {
                {"7f6f24190000-7f6f24290000 r--s 00000000 fe:01 2883591   /srv/models/q.gguf", true, 0x7f6f24190000,
                 0x7f6f24290000},
                {"55d9f7400000-55d9f7460000 r-xp 0000f000 fe:01 1835067   /usr/local/bin/numaplan", true,
                 0x55d9f7400000, 0x55d9f7460000},
                {"7f6f24561000-7f6f24562000 ---p 00000000 00:00 0", false, 0, 0},
                {"7ffd5a3f8000-7ffd5a3fa000 r-xp 00000000 00:00 0          [vdso]", false, 0, 0},
                {"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0  [vsyscall]", false, 0, 0},
                {"2000-1000 r--p 0 0 0", false, 0, 0},
                {"-1-5 r--p 0 0 0", false, 0, 0},
                {"10000000000000000-20000000000000000 r--p 0 0 0", false, 0, 0},
                {"1000-2000", false, 0, 0},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                uint64_t start = 0, end = 0;
                bool r = maps_line_range(cases[i].line, strlen(cases[i].line), &start, &end);
                ok(r == cases[i].taken && (!r || (start == cases[i].start && end == cases[i].end)), "maps: '%.40s' %s",
                   cases[i].line, cases[i].taken ? "is scanned" : "is not");
        }
}

/* prepare --spread: a model's pages evenly over the planned nodes, the fewest moved. */
static void spreading(void) {
        struct cpuset both = set("0-1");
        struct migrate_stats *st = xmalloc0(sizeof(*st));
        /* Eight pages all on node 0, one absent: four stay, three go to node 1. */
        int all0[] = {0, 0, 0, 0, 0, 0, 0, -ENOENT, 0};
        size_t pick[9];
        int to[9];
        unsigned next = 0;
        struct migrate_batch b = {.status = all0, .n = 9, .weight = 1};

        size_t k = migrate_select_spread(&b, &both, &next, st, pick, to);
        is_int(k, 4, "of eight pages on node 0, four move");
        ok(to[0] == 1 && to[1] == 1 && to[2] == 1 && to[3] == 1, "all to node 1");
        is_int(st->on_plan, 4, "four stay, their share");
        is_int(st->resident, 8, "eight resident");

        /* Already even: nothing moves; off the plan (node 2): to the node short of its share. */
        int even[] = {0, 1, 0, 1, 2, 1};
        memset(st, 0, sizeof(*st));
        next = 0;
        b = (struct migrate_batch){.status = even, .n = 6, .weight = 1};
        k = migrate_select_spread(&b, &both, &next, st, pick, to);
        ok(k == 1 && pick[0] == 4 && to[0] == 0, "only the page off the plan moves, to node 0, short of its share");
        is_int(st->on_plan, 5, "the others stay");

        /* An odd count: the remainder goes to the nodes in turn, batch after batch. */
        int odd[] = {0, 0, 0};
        memset(st, 0, sizeof(*st));
        next = 0;
        b = (struct migrate_batch){.status = odd, .n = 3, .weight = 1};
        k = migrate_select_spread(&b, &both, &next, st, pick, to);
        is_int(k, 1, "three pages: node 0 keeps two");
        k = migrate_select_spread(&b, &both, &next, st, pick, to);
        is_int(k, 2, "the next three: node 1 takes two");
        free(st);
}

int main(void) {
        mappings();
        selection();
        spreading();
        pinned();
        pools();
        maps_ranges();
        return done_testing();
}
