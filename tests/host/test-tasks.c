/* SPDX-License-Identifier: MIT */
/* The /proc and cgroupfs readers of verify, replayed through a root: a unit's processes and their
 * start times, every thread's allowed CPUs and nodes, numastat, numa_maps pages, and locked and
 * pinned pages (status, smaps, an io_uring's fdinfo). Usage: test-tasks FIXTURES_DIR */

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/util.h"
#include "host/cgroup.h"
#include "host/container.h"
#include "host/numastat.h"
#include "host/root.h"
#include "host/tasks.h"
#include "tap.h"
#include "tmproot.h"

static void readers(void) {
        _cleanup_tmpdir_ char *d = make_tmpdir();
        _cleanup_root_ struct root *root = NULL;
        const char *cg = "/system.slice/llama.service";

        write_file(d, "sys/fs/cgroup/system.slice/llama.service/cgroup.procs", "100\n200\n");
        write_file(d, "proc/stat", "cpu  1 2 3\nbtime 1700000000\nprocesses 5\n");
        /* Field 22 (start time) is 1000 ticks: 10 s after boot; the name has a blank and parentheses. */
        write_file(d, "proc/100/stat",
                   "100 (llama (main)) S 1 100 100 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 3 0 1000 1 1\n");
        write_file(d, "proc/200/stat", "200 (worker) S 100 100 100 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 5000 1 1\n");
        write_file(d, "proc/100/task/100/status",
                   "Name:\tllama\nCpus_allowed_list:\t8-15,24-31\nMems_allowed_list:\t1\n");
        write_file(d, "proc/100/task/101/status",
                   "Name:\tllama-io\nCpus_allowed_list:\t0-31\nMems_allowed_list:\t0-1\n");
        write_file(d, "proc/200/task/200/status", "Name:\tworker\nCpus_allowed_list:\t8-15\nMems_allowed_list:\t1\n");
        write_file(d, "sys/devices/system/node/node1/numastat",
                   "numa_hit 10\nnuma_miss 2\nnuma_foreign 3\ninterleave_hit 0\nlocal_node 9\nother_node 4\n");
        write_file(d, "proc/100/numa_maps", "7f00 bind:1 anon=90 N1=90 kernelpagesize_kB=4\n");
        if (!ok(root_open(d, 0, &root) == 0, "a replayed root"))
                return;

        struct cgroup_tree tree = {0};
        ok(cgroup_tree_read(root, "/sys/fs/cgroup", cg, &tree) == 0 && tree.n_processes == 2,
           "cgroup.procs lists two processes");
        struct process *procs = tree.processes;
        is_str(procs[0].comm, "llama (main)", "the command name, parentheses and all");
        /* A capture's clock ticks at USER_HZ = 100, whatever the machine replaying it says. */
        ok(procs[0].start == 1700000000.0 + 1000.0 / 100, "start time from btime and field 22");
        ok(tree.n_cgroups == 1 && streq(tree.cgroups[0], cg) && procs[1].cgroup == 0, "each process with its cgroup");
        cgroup_tree_done(&tree);

        struct task *t;
        size_t k;
        _cleanup_strv_free_ char **unread = NULL;
        ok(process_tasks(root, 100, &t, &k, &unread) == 0 && k == 2 && !unread, "process 100 has two threads");
        if (k == 2) {
                struct task *io = t[0].tid == 101 ? &t[0] : &t[1];
                _cleanup_free_ char *cpus = cpuset_format(&io->cpus), *mems = cpuset_format(&io->mems);
                ok(streq(io->comm, "llama-io") && streq(cpus, "0-31") && streq(mems, "0-1"),
                   "a thread's name, allowed CPUs and nodes");
        }
        free(t);
        ok(process_tasks(root, 300, &t, &k, &unread) == 0 && k == 0 && !unread,
           "a process gone meanwhile has no threads, no error");
        free(t);

        struct page_tally pages;
        struct cpuset node1 = {0};
        cpuset_set(&node1, 1);
        page_tally_init(&pages, 4);
        ok(process_pages(root, 100, &node1, &pages) == 0 && pages.total[1] == 90, "numa_maps pages counted");
        ok(process_pages(root, 200, &node1, &pages) == -ENOENT, "a process without numa_maps has exited");
        page_tally_done(&pages);

        struct numastat *ns;
        int ids[] = {1};
        read_numastat(root, ids, 1, &ns);
        ok(ns[0].numa_miss == 2 && ns[0].numa_foreign == 3 && ns[0].other_node == 4, "numastat counters read");
        free(ns);

        ok(cgroup_tree_read(root, "/sys/fs/cgroup", "/system.slice/gone.service", &tree) < 0,
           "an unreadable cgroup is an error");
        cgroup_tree_done(&tree);
}

/* A unit that delegates (podman run --cgroups=split): the server runs in cgroups below the unit's. */
static void subtree(void) {
        _cleanup_tmpdir_ char *d = make_tmpdir();
        _cleanup_root_ struct root *root = NULL;
        const char *cg = "/system.slice/llama.service";

        write_file(d, "sys/fs/cgroup/system.slice/llama.service/cgroup.procs", "10\n");
        write_file(d, "sys/fs/cgroup/system.slice/llama.service/supervisor/cgroup.procs", "11\n");
        write_file(d, "sys/fs/cgroup/system.slice/llama.service/libpod-payload-ab12/cgroup.procs", "12\n13\n");
        write_file(d, "sys/fs/cgroup/system.slice/llama.service/libpod-payload-ab12/inner/cgroup.procs", "14\n");
        write_file(d, "sys/fs/cgroup/system.slice/llama.service/libpod-payload-ab12/cpuset.cpus.effective", "2-3\n");
        write_file(d, "sys/fs/cgroup/system.slice/llama.service/libpod-payload-ab12/cpuset.mems.effective", "1\n");
        write_file(d, "proc/14/cgroup", "0::/system.slice/llama.service/libpod-payload-ab12/inner\n");
        write_file(d, "proc/15/cgroup", "12:cpuset:/x\n");
        if (!ok(root_open(d, 0, &root) == 0, "a replayed root with child cgroups"))
                return;

        struct cgroup_tree t = {0};
        ok(cgroup_tree_read(root, "/sys/fs/cgroup", cg, &t) == 0 && t.n_processes == 5 && t.n_cgroups == 4,
           "the walk finds five processes in four cgroups");
        if (t.n_processes == 5) {
                ok(t.processes[0].pid == 10 && t.processes[0].cgroup == 0, "the unit's own cgroup first");
                /* Depth first, children sorted by name: payload (12, 13), its inner (14), then
                 * supervisor (11), whatever order readdir() gives. */
                static const struct {
                        pid_t pid;
                        const char *cgroup;
                } want[] = {
                        {10, "/system.slice/llama.service"},
                        {12, "/system.slice/llama.service/libpod-payload-ab12"},
                        {13, "/system.slice/llama.service/libpod-payload-ab12"},
                        {14, "/system.slice/llama.service/libpod-payload-ab12/inner"},
                        {11, "/system.slice/llama.service/supervisor"},
                };
                bool in_order = true;
                for (size_t i = 0; i < ELEMENTSOF(want); i++) {
                        in_order = in_order && t.processes[i].pid == want[i].pid &&
                                   streq(t.cgroups[t.processes[i].cgroup], want[i].cgroup);
                        if (!in_order) {
                                printf("#   process %zu: got %d in %s\n", i, (int) t.processes[i].pid,
                                       t.cgroups[t.processes[i].cgroup]);
                                break;
                        }
                }
                ok(in_order, "each process with its own cgroup, parents before children, siblings by name");
                ok(t.n_cgroups == 4 && streq(t.cgroups[1], want[1].cgroup) && streq(t.cgroups[2], want[3].cgroup) &&
                           streq(t.cgroups[3], want[4].cgroup) && !t.cgroups[4],
                   "the cgroups in that order, NULL-terminated");
                bool inner = false;
                for (size_t i = 0; i < t.n_processes; i++)
                        inner = inner || (t.processes[i].pid == 14 &&
                                          streq(t.cgroups[t.processes[i].cgroup],
                                                "/system.slice/llama.service/libpod-payload-ab12/inner"));
                ok(inner, "the grandchild cgroup's process is found, with its path");
        }
        cgroup_tree_done(&t);

        _cleanup_free_ char *c = NULL;
        ok(cgroup_of_process(root, 14, &c) == 0 && streq(c, "/system.slice/llama.service/libpod-payload-ab12/inner"),
           "a process's cgroup v2 path");
        free(c);
        c = NULL;
        ok(cgroup_of_process(root, 15, &c) == -ENOENT, "no cgroup v2 line: not found");
        struct cpuset cpus, mems;
        ok(cgroup_cpuset(root, "/sys/fs/cgroup", "/system.slice/llama.service/libpod-payload-ab12", &cpus, &mems) ==
                           0 &&
                   cpuset_count(&cpus) == 2 && cpuset_isset(&mems, 1),
           "a cgroup's effective cpuset");
        ok(cgroup_is_below("/system.slice/a.service/x", "/system.slice/a.service") &&
                   cgroup_is_below("/system.slice/a.service", "/system.slice/a.service") &&
                   !cgroup_is_below("/system.slice/a.service2", "/system.slice/a.service"),
           "below a cgroup is its own path or one under it, not a name that begins alike");
}

/* docker's answer to GET /containers/NAME/json, cut to what numaplan reads (podman's compatible
 * API leaves unset flags out). */
#define ID "8f2c1d0a4b3e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8"
static void inspect(void) {
        struct container_facts cf = {0};
        ok(container_parse_inspect("{\"Id\":\"" ID "\",\"Name\":\"/llama\",\"State\":{\"Running\":true,\"Pid\":4242},"
                                   "\"HostConfig\":{\"CpusetCpus\":\"2-3\",\"CpusetMems\":\"1\"}}",
                                   &cf) == 0 &&
                   cf.running && cf.pid == 4242 && streq(cf.id, ID) && streq(cf.cpuset_cpus, "2-3") &&
                   streq(cf.cpuset_mems, "1"),
           "a running container's PID and cpuset flags");
        container_facts_done(&cf);
        ok(container_parse_inspect("{\"Id\":\"" ID "\",\"State\":{\"Running\":false,\"Pid\":0},\"HostConfig\":{}}",
                                   &cf) == 0 &&
                   !cf.running && streq(cf.cpuset_cpus, "") && streq(cf.cpuset_mems, ""),
           "a stopped container without cpuset flags");
        container_facts_done(&cf);
        ok(container_parse_inspect("{\"message\":\"No such container: llama\"}", &cf) == -EBADMSG,
           "an error answer is no container");
        container_facts_done(&cf);
        ok(container_parse_inspect("[1,", &cf) == -EBADMSG, "broken JSON is no container");
        container_facts_done(&cf);
}

/* Locked and pinned pages read through a root: the capture of numaplan-pinner (1 MiB locked, 1 MiB
 * pinned by an io_uring, on node 0; tests/fixtures/proc/pinner/), and hand-made processes. */
static void held(const char *fixtures) {
        _cleanup_free_ char *captured = xasprintf("%s/proc/pinner", fixtures);
        _cleanup_root_ struct root *root = NULL;
        struct cpuset node1 = {0};
        struct page_tally t;

        cpuset_set(&node1, 1);
        if (!ok(root_open(captured, 0, &root) == 0, "the capture as a root"))
                return;
        page_tally_init(&t, 4);
        is_int(process_pages(root, 27830, &node1, &t), 0, "its pages read");
        ok(t.held.vm_locked == 256 && t.held.vm_pinned == 256, "status: VmLck and VmPin, 256 pages each");
        is_int(t.locked[0], 256, "smaps: its locked mapping's 256 pages, on node 0");
        ok(t.held.pinned_listed == 256 && t.pin_mapped[0] == 256,
           "fd/3 is an io_uring: its fdinfo lists the 256 pinned pages, their mapping on node 0");
        is_int(t.held.pinned_off_plan, 256, "all off node 1");
        page_tally_done(&t);
        root = root_free(root);

        _cleanup_tmpdir_ char *d = make_tmpdir();
        write_file(d, "proc/10/numa_maps", "7f00000000 bind:1 anon=256 N0=256 kernelpagesize_kB=4\n");
        write_file(d, "proc/10/status", "Name:\tx\nVmLck:\t       0 kB\nVmPin:\t    1024 kB\n");
        write_file(d, "proc/10/smaps", "7f00000000-7f00100000 rw-p 00000000 00:00 0 \nVmFlags: rd wr \n");
        write_file(d, "proc/10/fdinfo/3", "UserBufs:\t1\n    0: 0x7f00000000/1048576\n");
        write_file(d, "proc/10/fdinfo/4", "UserBufs:\t1\n    0: 0x7f00000000/1048576\n");
        write_file(d, "proc/20/numa_maps", "7f00000000 bind:1 anon=256 N1=256 kernelpagesize_kB=4\n");
        write_file(d, "proc/20/status", "Name:\tx\nVmLck:\t    2048 kB\nVmPin:\t       0 kB\n");
        write_file(d, "proc/30/numa_maps", "7f00000000 bind:1 anon=256 N1=256 kernelpagesize_kB=4\n");
        write_file(d, "proc/30/status", "Name:\tx\nVmLck:\t       0 kB\nVmPin:\t       0 kB\n");
        write_file(d, "proc/30/smaps", "7f00000000-7f00100000 rw-p 00000000 00:00 0 \nVmFlags: rd wr lo \n");
        _cleanup_free_ char *fd = xasprintf("%s/proc/10/fd", d), *l3 = xasprintf("%s/3", fd),
                            *l4 = xasprintf("%s/4", fd);
        if (mkdir(fd, 0755) < 0 || symlink("anon_inode:[io_uring]", l3) < 0 || symlink("anon_inode:[io_uring]", l4) < 0)
                return (void) ok(false, "links made");
        if (!ok(root_open(d, 0, &root) == 0, "a hand-made root"))
                return;
        page_tally_init(&t, 4);
        process_pages(root, 10, &node1, &t);
        ok(t.held.vm_pinned == 256 && t.held.pinned_listed == 256,
           "a ring open twice (fd 3 and 4) lists its buffer twice: counted once");
        page_tally_done(&t);
        page_tally_init(&t, 4);
        process_pages(root, 20, &node1, &t);
        ok(t.held.vm_locked == 512 && page_tally_sum(t.locked) == 0 && t.held.locked_unmapped == 0,
           "VmLck with no smaps to say which mappings: counted, with no node, and not taken for a driver's");
        ok(t.n_unread == 1 && t.unread[0].source == PAGE_SOURCE_SMAPS && streq(t.unread[0].path, "/proc/20/smaps"),
           "and its nodes said unknown, the smaps named, not reported as none");
        page_tally_done(&t);
        page_tally_init(&t, 4);
        process_pages(root, 30, &node1, &t);
        ok(page_tally_sum(t.locked) == 0, "VmLck and VmPin 0: smaps is not read (its lo is not believed)");
        page_tally_done(&t);
}

/* A replica of 100,000 mappings: its smaps is 72 MB, past what one read takes (READ_PROC_MAX). Every
 * fourth mapping is locked, two pages each on node 1: VmLck is 50,000 pages, all placed. */
static void large_smaps(void) {
        _cleanup_tmpdir_ char *d = make_tmpdir();
        _cleanup_root_ struct root *root = NULL;
        _cleanup_free_ char *dir = xasprintf("%s/proc/40", d), *sp = xasprintf("%s/smaps", dir),
                            *np = xasprintf("%s/numa_maps", dir);
        enum { MAPPINGS = 100000 };

        write_file(d, "proc/40/status", "Name:\tllama\nVmLck:\t  200000 kB\nVmPin:\t       0 kB\n");
        FILE *s = fopen(sp, "we"), *n = fopen(np, "we");
        if (!s || !n)
                return (void) ok(false, "the files made");
        for (unsigned i = 0; i < MAPPINGS; i++) {
                unsigned long long a = 0x7f0000000000ULL + (unsigned long long) i * 0x4000;
                bool lo = i % 4 == 0;
                fprintf(s, "%llx-%llx rw-p 00000000 00:00 0 \n", a, a + 0x2000);
                static const char *const keys[] = {
                        "Size",          "KernelPageSize", "MMUPageSize",     "Rss",
                        "Pss",           "Pss_Dirty",      "Shared_Clean",    "Shared_Dirty",
                        "Private_Clean", "Private_Dirty",  "Referenced",      "Anonymous",
                        "KSM",           "LazyFree",       "AnonHugePages",   "ShmemPmdMapped",
                        "FilePmdMapped", "Shared_Hugetlb", "Private_Hugetlb", "Swap",
                        "SwapPss",       "Locked"};
                for (size_t k = 0; k < ELEMENTSOF(keys); k++)
                        fprintf(s, "%s:%*u kB\n", keys[k], (int) (24 - strlen(keys[k])), k == 1 || k == 2 ? 4 : 8);
                fprintf(s, "THPeligible:    0\nVmFlags: rd wr mr mw me ac%s \n", lo ? " lo" : "");
                fprintf(n, "%llx bind:1 anon=2 dirty=2 N1=2 kernelpagesize_kB=4\n", a);
        }
        long size = ftell(s);
        if (fclose(s) != 0 || fclose(n) != 0)
                return (void) ok(false, "the files written");
        ok(size > (long) READ_PROC_MAX, "its smaps is %ld bytes, past one read's %u", size, READ_PROC_MAX);

        if (!ok(root_open(d, 0, &root) == 0, "a hand-made root"))
                return;
        struct page_tally t;
        struct cpuset node1 = {0};
        struct rusage before, after;
        cpuset_set(&node1, 1);
        page_tally_init(&t, 4);
        getrusage(RUSAGE_SELF, &before);
        is_int(process_pages(root, 40, &node1, &t), 0, "its pages read");
        getrusage(RUSAGE_SELF, &after);
        is_int(t.n_unread, 0, "nothing left unread");
        is_int(t.held.vm_locked, 50000, "VmLck: 50,000 pages");
        is_int(t.locked[1], 50000, "smaps read whole: the locked mappings' 50,000 pages, on node 1, not none");
        ok(t.held.locked_size == 50000 && t.held.locked_unmapped == 0, "their size, and nothing taken for a driver's");
        is_int(t.total[1], 200000, "every mapping's pages counted");
        /* Read by line: the peak grows by the mappings' table, not by the file (ASan's own
         * bookkeeping included). */
        ok(after.ru_maxrss - before.ru_maxrss < 32 * 1024, "memory stays bounded: %ld KiB more at the peak",
           after.ru_maxrss - before.ru_maxrss);
        page_tally_done(&t);
}

/* What cannot be read is said, never taken as none: a directory, a FIFO or a line that does not parse
 * where a file of the process's belongs. */
static void unreadable(void) {
        _cleanup_tmpdir_ char *d = make_tmpdir();
        _cleanup_root_ struct root *root = NULL;
        struct cpuset node1 = {0};
        struct page_tally t;

        cpuset_set(&node1, 1);
        write_file(d, "proc/50/status", "Name:\tx\nVmLck:\t    1024 kB\nVmPin:\t       0 kB\n");
        write_file(d, "proc/50/smaps/x", "");
        write_file(d, "proc/50/numa_maps", "7f00000000 bind:1 anon=256 N1=256 kernelpagesize_kB=4\n");
        write_file(d, "proc/60/status", "Name:\tx\nVmLck:\t    1024 kB\nVmPin:\t       0 kB\n");
        write_file(d, "proc/60/smaps", "7f00000000-7f00100000 rw-p 00000000 00:00 0 \nnot a field\n");
        write_file(d, "proc/60/numa_maps", "7f00000000 bind:1 anon=256 N1=256 kernelpagesize_kB=4\n");
        write_file(d, "proc/70/numa_maps/x", "");
        write_file(d, "proc/80/numa_maps", "7f00000000 bind:1 anon=256 N1=256 kernelpagesize_kB=4\n");
        write_file(d, "proc/80/maps", "7f00000000-7f00100000 rw-p 00000000 fe:01 12 /m\nbroken\n");
        write_file(d, "proc/90/task/90/status", "Name:\tx\nCpus_allowed_list:\t1\nMems_allowed_list:\t1\n");
        write_file(d, "proc/90/task/91/status/x", "");
        write_file(d, "proc/90/task/92/status", "Name:\tx\nCpus_allowed_list:\tnone\nMems_allowed_list:\t1\n");
        _cleanup_free_ char *fifo = xasprintf("%s/proc/80/status", d);
        if (mkfifo(fifo, 0600) < 0)
                return (void) ok(false, "a FIFO made");
        if (!ok(root_open(d, 0, &root) == 0, "a hand-made root"))
                return;

        page_tally_init(&t, 4);
        is_int(process_pages(root, 50, &node1, &t), 0, "a directory for smaps: the pages still read");
        ok(t.n_unread == 1 && t.unread[0].source == PAGE_SOURCE_SMAPS && streq(t.unread[0].path, "/proc/50/smaps") &&
                   streq(t.unread[0].error, strerror(EISDIR)),
           "and the smaps said unread, with why");
        page_tally_done(&t);
        page_tally_init(&t, 4);
        process_pages(root, 60, &node1, &t);
        ok(t.n_unread == 1 && t.unread[0].source == PAGE_SOURCE_SMAPS && strstr(t.unread[0].error, "cannot read"),
           "a line of smaps that does not parse: said so");
        page_tally_done(&t);
        page_tally_init(&t, 4);
        ok(process_pages(root, 70, &node1, &t) == -EISDIR && t.n_unread == 1 &&
                   t.unread[0].source == PAGE_SOURCE_NUMA_MAPS && t.processes == 1,
           "a numa_maps that cannot be read is not a process that exited");
        page_tally_done(&t);
        page_tally_init(&t, 4);
        is_int(process_pages(root, 80, &node1, &t), 0, "a FIFO for status and a broken maps: the pages still read");
        ok(t.n_unread == 2 && t.unread[0].source == PAGE_SOURCE_STATUS && streq(t.unread[0].error, strerror(EBADFD)) &&
                   t.unread[1].source == PAGE_SOURCE_MAPS && strstr(t.unread[1].error, "cannot read"),
           "both said unread, in the order read");
        page_tally_done(&t);
        page_tally_init(&t, 4);
        is_int(process_pages(root, 99, &node1, &t), -ENOENT, "a process gone: nothing unread");
        is_int(t.n_unread, 0, "and nothing recorded");
        page_tally_done(&t);

        struct task *tasks;
        size_t k;
        _cleanup_strv_free_ char **why = NULL;
        ok(process_tasks(root, 90, &tasks, &k, &why) == 0 && k == 1, "one thread of three read");
        ok(strv_length(why) == 2 && strv_contains(why, "/proc/90/task/91/status: Is a directory") &&
                   strv_contains(why, "/proc/90/task/92/status: no allowed CPUs or nodes numaplan can read"),
           "the two others said unread, with why, not left out");
        free(tasks);
}

int main(int argc, char **argv) {
        log_set_max_level(LOG_ERR - 1);
        readers();
        subtree();
        inspect();
        large_smaps();
        unreadable();
        if (argc > 1)
                held(argv[1]);
        return done_testing();
}
