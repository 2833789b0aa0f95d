/* SPDX-License-Identifier: MIT */
/* The /proc and cgroupfs readers of verify, replayed through a root: a unit's processes and their
 * start times, every thread's allowed CPUs and nodes, numastat, and numa_maps pages. */

#include "basic/log.h"
#include "basic/util.h"
#include "host/cgroup.h"
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
        write_file(d, "proc/100/stat", "100 (llama (main)) S 1 100 100 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 3 0 1000 1 1\n");
        write_file(d, "proc/200/stat", "200 (worker) S 100 100 100 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 5000 1 1\n");
        write_file(d, "proc/100/task/100/status", "Name:\tllama\nCpus_allowed_list:\t8-15,24-31\nMems_allowed_list:\t1\n");
        write_file(d, "proc/100/task/101/status", "Name:\tllama-io\nCpus_allowed_list:\t0-31\nMems_allowed_list:\t0-1\n");
        write_file(d, "proc/200/task/200/status", "Name:\tworker\nCpus_allowed_list:\t8-15\nMems_allowed_list:\t1\n");
        write_file(d, "sys/devices/system/node/node1/numastat",
                   "numa_hit 10\nnuma_miss 2\nnuma_foreign 3\ninterleave_hit 0\nlocal_node 9\nother_node 4\n");
        write_file(d, "proc/100/numa_maps", "7f00 bind:1 anon=90 N1=90 kernelpagesize_kB=4\n");
        if (!ok(root_open(d, 0, &root) == 0, "a replayed root"))
                return;

        struct process *procs;
        size_t n;
        ok(cgroup_processes(root, "/sys/fs/cgroup", cg, &procs, &n) == 0 && n == 2, "cgroup.procs lists two processes");
        is_str(procs[0].comm, "llama (main)", "the command name, parentheses and all");
        /* A capture's clock ticks at USER_HZ = 100, whatever the machine replaying it says. */
        ok(procs[0].start == 1700000000.0 + 1000.0 / 100, "start time from btime and field 22");

        struct task *t;
        size_t k;
        ok(process_tasks(root, 100, &t, &k) == 0 && k == 2, "process 100 has two threads");
        if (k == 2) {
                struct task *io = t[0].tid == 101 ? &t[0] : &t[1];
                _cleanup_free_ char *cpus = cpuset_format(&io->cpus), *mems = cpuset_format(&io->mems);
                ok(streq(io->comm, "llama-io") && streq(cpus, "0-31") && streq(mems, "0-1"),
                   "a thread's name, allowed CPUs and nodes");
        }
        free(t);
        ok(process_tasks(root, 300, &t, &k) == 0 && k == 0, "a process gone meanwhile has no threads, no error");
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

        ok(cgroup_processes(root, "/sys/fs/cgroup", "/system.slice/gone.service", &procs, &n) < 0,
           "an unreadable cgroup is an error");
        free(procs);
}

int main(void) {
        log_set_max_level(LOG_ERR - 1);
        readers();
        return done_testing();
}

