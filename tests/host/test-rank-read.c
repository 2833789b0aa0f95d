/* SPDX-License-Identifier: MIT */
/* Which process drives which accelerator, replayed through a root: /dev/nvidiaN by the NVIDIA
 * driver's minor numbers, a DRM render node by its sysfs class entry, a BAR's resource file by its
 * path; a process mapping two devices as much is named, not judged; a rank's pages counted
 * against its own node. Usage: test-rank-read FIXTURES_DIR */

#include <unistd.h>

#include "basic/util.h"
#include "core/numa-maps.h"
#include "core/observed.h"
#include "core/placement.h"
#include "core/rank-locality.h"
#include "host/rank-read.h"
#include "host/root.h"
#include "tap.h"
#include "tmproot.h"

static const char *const pcis[] = {"0000:18:00.0", "0000:9a:00.0", "0000:ab:00.0", "0000:db:00.0"};

static void roots(const char *d) {
        write_file(d, "proc/driver/nvidia/gpus/0000:18:00.0/information", "Model: H100\nDevice Minor: 0\n");
        write_file(d, "proc/driver/nvidia/gpus/0000:db:00.0/information", "Model: H100\nDevice Minor: 7\n");
        write_file(d, "sys/devices/pci0000:a0/0000:a0:01.0/0000:ab:00.0/vendor", "0x1002\n");
        write_file(d, "sys/devices/pci0000:a0/0000:a0:01.0/0000:ab:00.0/drm/renderD128/dev", "226:128\n");
        _cleanup_free_ char *cls = xasprintf("%s/sys/class/drm", d), *link = xasprintf("%s/renderD128", cls);
        write_file(d, "sys/class/drm/.keep", "");
        if (symlink("../../devices/pci0000:a0/0000:a0:01.0/0000:ab:00.0/drm/renderD128", link) < 0)
                printf("Bail out! symlink %s\n", link);
        _cleanup_free_ char *dev =
                xasprintf("%s/sys/devices/pci0000:a0/0000:a0:01.0/0000:ab:00.0/drm/renderD128/device", d);
        if (symlink("../../../0000:ab:00.0", dev) < 0)
                printf("Bail out! symlink %s\n", dev);
        /* 100: CUDA on GPU 0 (and the driver's control files, no one device's). */
        write_file(d, "proc/100/maps",
                   "7f0000000000-7f0000200000 rw-s 00000000 00:05 1034 /dev/nvidiactl\n"
                   "7f0000200000-7f0000400000 rw-s 00000000 00:05 1035 /dev/nvidia0\n"
                   "7f0000400000-7f0000401000 rw-s 00000000 00:05 1040 /dev/nvidia-uvm\n");
        write_file(d, "proc/100/numa_maps",
                   "7f1000000000 bind:0-1 anon=1000 dirty=1000 N0=990 N1=10 kernelpagesize_kB=4\n");
        /* 200: a BAR of 0000:9a:00.0, mapped from sysfs. */
        write_file(d, "proc/200/maps",
                   "7f0000000000-7f0001000000 rw-s 00000000 00:14 77 "
                   "/sys/devices/pci0000:97/0000:97:01.0/0000:9a:00.0/resource0\n");
        write_file(d, "proc/200/numa_maps", "7f1000000000 bind:0-1 anon=500 dirty=500 N0=500 kernelpagesize_kB=4\n");
        /* 300: the render node; 400: GPU 7 and the render node alike (a front process); 500: none. */
        write_file(d, "proc/300/maps", "7f0000000000-7f0000100000 rw-s 100000000 00:05 900 /dev/dri/renderD128\n");
        write_file(d, "proc/300/numa_maps", "");
        write_file(d, "proc/400/maps",
                   "7f0000000000-7f0000100000 rw-s 00000000 00:05 1042 /dev/nvidia7\n"
                   "7f0000100000-7f0000200000 rw-s 100000000 00:05 900 /dev/dri/renderD128\n");
        write_file(d, "proc/500/maps", "55d0c0a00000-55d0c0a10000 r-xp 00000000 fe:01 42 /usr/bin/server\n");
}

int main(void) {
        _cleanup_tmpdir_ char *d = make_tmpdir();
        _cleanup_root_ struct root *root = NULL;
        struct topology t = {0};
        struct pci_device accels[4] = {0};
        struct placement_rank ranks[4];
        struct placement pl = {.ranks = ranks, .n_ranks = 4};
        struct process procs[5];
        struct rank_facts rf;

        roots(d);
        for (size_t i = 0; i < 4; i++) {
                snprintf(accels[i].pci, sizeof(accels[i].pci), "%s", pcis[i]);
                ranks[i] = (struct placement_rank){.accel = i, .node = i == 0 ? 0 : 1};
        }
        t.accels = accels, t.n_accels = 4;
        for (int i = 0; i < 5; i++)
                procs[i] = (struct process){.pid = 100 * (i + 1)},
                snprintf(procs[i].comm, sizeof(procs[i].comm), "w%d", i);
        struct task_facts tf = {.processes = procs, .n_processes = 5, .readable = true};
        if (!ok(root_open(d, 0, &root) == 0, "a replayed root"))
                return done_testing();

        rank_processes(root, &t, &pl, &tf, 4, &rf);
        ok(rf.looked && rf.n == 3, "three processes drive one accelerator each");
        if (rf.n == 3) {
                ok(rf.v[0].pid == 100 && rf.v[0].rank == 0 && streq(rf.v[0].pci, "0000:18:00.0"),
                   "/dev/nvidia0 is the GPU whose driver's information says Device Minor: 0");
                ok(rf.v[1].pid == 200 && rf.v[1].rank == 1 && streq(rf.v[1].pci, "0000:9a:00.0"),
                   "a BAR's resource file is its function's");
                ok(rf.v[2].pid == 300 && rf.v[2].rank == 2 && streq(rf.v[2].pci, "0000:ab:00.0"),
                   "renderD128 is the function its sysfs class entry's device names");
                is_int(rf.v[0].pages->anon[0], 990, "a rank's own anonymous pages by node");
                is_int(rf.v[1].node, 1, "with its rank's node");
        }
        ok(rf.several && streq(rf.several[0], "pid 400 (w3)") && !rf.several[1],
           "a process that maps two devices as much is named, not judged");
        rank_facts_done(&rf);

        pl.n_ranks = 0;
        rank_processes(root, &t, &pl, &tf, 4, &rf);
        ok(rf.n == 0 && !rf.several, "a replica without accelerators has no rank");
        rank_facts_done(&rf);
        return done_testing();
}
