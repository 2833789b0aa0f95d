/* SPDX-License-Identifier: MIT */
/* Locked and pinned pages: the readers of status (VmLck, VmPin), smaps (which mappings are
 * locked) and an io_uring's fdinfo (its registered buffers), on a capture of numaplan-pinner
 * (tests/fixtures/proc/pinner/: 1 MiB locked, 1 MiB pinned, on a one-node host, kernel 6.18, its
 * binary's path rewritten) and on the shapes older kernels write; the tally of a replica's locked
 * and pinned pages by node, what memory-locality then advises, and verify's words for them.
 * Usage: test-held-pages FIXTURES_DIR */

#include <errno.h>

#include "basic/util.h"
#include "core/held-pages.h"
#include "core/numa-maps.h"
#include "core/planner.h"
#include "core/verify-checks.h"
#include "tap.h"
#include "tmproot.h"

#define PID "27830"

static struct cpuset set(const char *list) {
        struct cpuset s;
        cpuset_parse_list(list, &s);
        return s;
}

static char *fixture(const char *dir, const char *name) {
        _cleanup_free_ char *path = xasprintf("%s/proc/pinner/proc/" PID "/%s", dir, name);
        return read_whole(path);
}

static void status(void) {
        uint64_t locked = 1, pinned = 1;
        is_int(status_held_kb("Name:\tx\nVmLck:\t    1024 kB\nVmPin:\t  2048 kB\n", &locked, &pinned), 0,
               "VmLck and VmPin read");
        ok(locked == 1024 && pinned == 2048, "in kB, as the kernel writes them");
        is_int(status_held_kb("Name:\tx\nVmLck:\t       0 kB\n", &locked, &pinned), 0, "a kernel without VmPin");
        is_int(pinned, 0, "has no pinned pages to say");
        is_int(status_held_kb("Name:\tkthreadd\nState:\tS (sleeping)\n", &locked, &pinned), -ENOENT,
               "a kernel thread has no address space: -ENOENT");
        is_int(status_held_kb("VmLck:\t12 MB\n", &locked, &pinned), -EINVAL, "a unit other than kB is refused");
        is_int(status_held_kb("VmLck:\t99999999999999999999999 kB\n", &locked, &pinned), -EINVAL,
               "and a number past 64 bits");
}

static void smaps(void) {
        struct smaps_mapping *m = NULL;
        size_t n = 0;
        static const char text[] = "00400000-00401000 r-xp 00000000 fe:01 12 /usr/bin/x\n"
                                   "Size:                  4 kB\n"
                                   "Locked:                0 kB\n"
                                   "VmFlags: rd ex mr mw me \n"
                                   "7f0000000000-7f0000100000 rw-p 00000000 00:00 0 \n"
                                   "Rss:                1024 kB\n"
                                   "Locked:             1024 kB\n"
                                   "VmFlags: rd wr mr mw me lo ac \n"
                                   "7f0000100000-7f0000200000 rw-p 00000000 00:00 0 \n"
                                   "VmFlags: rd wr mr mw me lock ac \n";
        is_int(smaps_mappings(text, &m, &n), 0, "smaps parses");
        ok(n == 3 && m[0].start == 0x400000 && m[0].end == 0x401000, "every mapping, with its range");
        ok(!m[0].locked && m[1].locked, "VmFlags' lo marks the locked one");
        ok(!m[2].locked, "lo only as a word of its own");
        free(m);
        m = NULL;
        is_int(smaps_mappings("Size: 4 kB\n", &m, &n), -EINVAL, "a field before any mapping is refused");
        is_int(smaps_mappings("00400000-00401000 r-xp 00000000 fe:01 12 /x\n12345\n", &m, &n), -EINVAL,
               "and a line that is neither a mapping nor a field");
}

static void uring(void) {
        struct address_range *b = NULL;
        size_t n = 0;
        static const char info[] = "SqMask:\t0x3\nUserFiles:\t1\n    0: model.gguf\nUserBufs:\t4\n"
                                   "    0: 0x7f0000000000/1048576\n    1: <none>\n    2: 0xffffffffffffffff/1\n"
                                   "    3: 0x7f0000200000/4096\nPersonalities:\n    1\n";
        is_int(uring_buffers(info, &b, &n), 2, "two buffers registered");
        ok(n == 2 && b[0].start == 0x7f0000000000 && b[0].end == 0x7f0000100000 && b[1].end == 0x7f0000201000,
           "their addresses and lengths");
        is_int(uring_buffers("pos:\t0\nflags:\t02\n", &b, &n), 0, "a file that is no io_uring has none");
        is_int(uring_buffers("UserBufs:\t1\n    0: 0xzz/1\n", &b, &n), -EINVAL,
               "an address that is no number is refused");
        is_int(uring_buffers("UserBufs:\t1\n    0: 0x1000/\n", &b, &n), -EINVAL, "a length missing too");
        is_int(n, 2, "nothing is appended then");
        struct address_range merged[] = {{0x1000, 0x3000}, {0x2000, 0x5000}, {0x9000, 0xa000}};
        is_int(pinned_bytes_within(merged, 3, 0x2000, 0x9800), 0x3800, "buffers within a range, overlaps counted once");
        free(b);
}

/* The capture: VmLck 1024 kB, VmPin 1024 kB; the locked mapping and the io_uring buffer are
 * mappings of their own, all on node 0. */
static void captured(const char *dir) {
        _cleanup_free_ char *st = fixture(dir, "status"), *sm = fixture(dir, "smaps"), *nm = fixture(dir, "numa_maps"),
                            *maps = fixture(dir, "maps"), *info = fixture(dir, "fdinfo/3"),
                            *other = fixture(dir, "fdinfo/0");
        if (!ok(st && sm && nm && maps && info && other, "the capture is there"))
                return;
        struct process_held h = {0};
        _cleanup_free_ struct smaps_mapping *m = NULL;
        _cleanup_free_ struct address_range *b = NULL;
        is_int(status_held_kb(st, &h.locked_kb, &h.pinned_kb), 0, "its status reads");
        ok(h.locked_kb == 1024 && h.pinned_kb == 1024, "1 MiB locked, 1 MiB pinned");
        is_int(smaps_mappings(sm, &m, &h.n_mappings), 0, "its smaps reads");
        size_t locked = 0;
        for (size_t i = 0; i < h.n_mappings; i++)
                locked += m[i].locked;
        is_int(locked, 1, "one mapping is locked");
        is_int(uring_buffers(info, &b, &h.n_pinned), 1, "its io_uring lists one buffer");
        is_int(uring_buffers(other, &b, &h.n_pinned), 0, "and /dev/null's fdinfo none");
        h.mappings = m, h.pinned = b;

        struct page_tally t;
        struct cpuset node1 = set("1");
        page_tally_init(&t, 4);
        is_int(page_tally_add_held(&t, nm, maps, &node1, &h), 0, "its numa_maps tallies, with what it holds");
        ok(t.held.vm_locked == 256 && t.held.vm_pinned == 256, "VmLck and VmPin: 256 pages each");
        ok(t.locked[0] == 256 && page_tally_sum(t.locked) == 256, "the locked mapping's 256 pages, on node 0");
        ok(t.held.locked_size == 256 && t.held.locked_unmapped == 0,
           "VmLck is the locked mapping's size: nothing beyond");
        ok(t.held.pinned_listed == 256 && t.pin_mapped[0] == 256, "the buffer's 256 pages, its mapping on node 0");
        is_int(t.held.pinned_off_plan, 256, "planned on node 1: all 256 pinned pages are off the plan");
        page_tally_done(&t);
        struct cpuset node0 = set("0");
        page_tally_init(&t, 4);
        page_tally_add_held(&t, nm, maps, &node0, &h);
        is_int(t.held.pinned_off_plan, 0, "planned on node 0: none");
        page_tally_done(&t);
}

static struct placement on_node1(void) {
        static struct replica_conf conf = {.name = (char *) "pin"};
        return (struct placement){.name = (char *) "pin",
                                  .unit = (char *) "pin.service",
                                  .conf = &conf,
                                  .nodes = set("1"),
                                  .policy = POLICY_BIND,
                                  .min_local_bp = 9900};
}

/* A replica on node 1 whose buffer of 256 pages, pinned, sits on node 0 with part of its heap. */
static void advice(void) {
        static const char nm[] = "7f0000000000 bind:1 anon=1000 N1=1000 kernelpagesize_kB=4\n"
                                 "7f1000000000 bind:1 anon=256 N0=256 kernelpagesize_kB=4\n"
                                 "7f2000000000 bind:1 anon=100 N0=100 kernelpagesize_kB=4\n";
        static const struct smaps_mapping m[] = {{0x7f0000000000, 0x7f0000400000, false},
                                                 {0x7f1000000000, 0x7f1000100000, true},
                                                 {0x7f2000000000, 0x7f2000100000, false}};
        static const struct address_range b[] = {{0x7f1000000000, 0x7f1000100000}};
        struct process_held h = {
                .locked_kb = 1024, .pinned_kb = 1024, .mappings = m, .n_mappings = 3, .pinned = b, .n_pinned = 1};
        struct placement pl = on_node1();
        struct task_facts tf = {.n_processes = 1};
        struct check c = {0};
        struct page_tally t;

        page_tally_init(&t, 4);
        page_tally_add_held(&t, nm, NULL, &pl.nodes, &h);
        check_memory_locality(&(struct verify_facts){.pages = &t, .pl = &pl, .tasks = &tf}, &c);
        ok(!c.ok, "356 of its 1356 pages off node 1: memory-locality fails");
        ok(c.detail &&
                   strstr(c.detail, "256 pinned pages (1.0 MiB, buffers registered with io_uring) sit off the plan") &&
                   strstr(c.detail, "only a restart of pin.service moves them"),
           "the detail names the pinned pages off the plan, and a restart");
        ok(c.detail && !strstr(c.detail, "numaplan migrate"), "and does not advise migrate, which cannot move them");
        if (c.detail)
                printf("#   %s\n", c.detail);
        check_done(&c);
        _cleanup_free_ char *report = held_report(&t);
        is_str(report,
               "  locked: 256 pages (1.0 MiB, VmLck); its locked mappings' resident pages: node 0: 256\n"
               "  pinned: 256 pages (1.0 MiB, VmPin); 256 in buffers registered with io_uring, whose mappings hold "
               "node "
               "0: 256; 256 off the plan: only a restart moves a pinned page\n",
               "verify's words for what it locked and pinned");
        page_tally_done(&t);

        /* An RDMA memory region: VmPin with no buffer listed, the same pages off the plan. */
        h = (struct process_held){.pinned_kb = 1024, .mappings = m, .n_mappings = 3};
        page_tally_init(&t, 4);
        page_tally_add_held(&t, nm, NULL, &pl.nodes, &h);
        check_memory_locality(&(struct verify_facts){.pages = &t, .pl = &pl, .tasks = &tf}, &c);
        ok(c.detail &&
                   strstr(c.detail,
                          "256 of its pages (1.0 MiB) are pinned for DMA (VmPin) and no file says on which node") &&
                   strstr(c.detail, "numaplan migrate pin.service moves what is off the plan"),
           "pinned pages no file places: migrate moves the others and counts those it cannot");
        check_done(&c);
        _cleanup_free_ char *rdma = held_report(&t);
        is_str(rdma,
               "  pinned: 256 pages (1.0 MiB, VmPin); 256 that no file places: among its resident pages, on nodes "
               "0-1\n",
               "their nodes bounded by those of its resident pages");
        page_tally_done(&t);

        /* A virtual machine's memory pinned by vfio: VmLck beyond the locked mappings. */
        h = (struct process_held){.locked_kb = 5120, .mappings = m, .n_mappings = 3};
        page_tally_init(&t, 4);
        page_tally_add_held(&t, nm, NULL, &pl.nodes, &h);
        ok(t.held.vm_locked == 1280 && t.held.locked_size == 256 && t.held.locked_unmapped == 1024,
           "VmLck of 1280 pages, 256 in its locked mapping: 1024 beyond it");
        _cleanup_free_ char *vfio = held_report(&t);
        is_str(vfio,
               "  locked: 1280 pages (5.0 MiB, VmLck); its locked mappings' resident pages: node 0: 256; 1024 beyond "
               "its locked mappings, pinned by a driver that counts them as locked (vfio does)\n",
               "which a driver pinned and counted as locked");
        page_tally_done(&t);

        /* Nothing held: nothing said. */
        page_tally_init(&t, 4);
        page_tally_add_held(&t, nm, NULL, &pl.nodes, NULL);
        ok(held_report(&t) == NULL, "a replica that holds nothing gets no line");
        page_tally_done(&t);
}

int main(int argc, char **argv) {
        if (argc < 2) {
                printf("Bail out! usage: test-held-pages FIXTURES_DIR\n");
                return 1;
        }
        status();
        smaps();
        uring();
        captured(argv[1]);
        advice();
        return done_testing();
}
