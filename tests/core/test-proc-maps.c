/* SPDX-License-Identifier: MIT */
/* The /proc/PID/maps parser: which file each mapping is (device and inode) and whether it is
 * program code, as the kernel prints them; and lines it would not print. */

#include "basic/util.h"
#include "core/proc-maps.h"
#include "tap.h"

static const char maps[] =
        "55d0c6a00000-55d0c6a28000 r--p 00000000 fe:01 1835049                    /usr/bin/bash\n"
        "55d0c6a28000-55d0c6b00000 r-xp 00028000 fe:01 1835049                    /usr/bin/bash\n"
        "55d0c8000000-55d0c8021000 rw-p 00000000 00:00 0                          [heap]\n"
        "7f3e9fa00000-7f3e9fa28000 r--s 00000000 103:05 42                        /srv/models/my model.gguf\n"
        "7f3e9fb00000-7f3e9fb01000 rw-p 00000000 00:00 0 \n"
        "7ffd5e5f2000-7ffd5e613000 rw-p 00000000 00:00 0                          [stack]\n"
        "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n";

int main(void) {
        struct maps_entry *e = NULL;
        size_t n = 0;

        is_int(maps_files(maps, &e, &n), 0, "a captured maps parses");
        is_int(n, 3, "three file mappings: anonymous ones, the heap, the stack and vsyscall are left out");
        if (n == 3) {
                ok(e[0].start == 0x55d0c6a00000 && !e[0].exec && e[0].id.dev == (UINT64_C(0xfe) << 32 | 1) &&
                           e[0].id.ino == 1835049,
                   "start, device and inode of a read-only segment");
                ok(e[1].exec && file_id_eq(e[0].id, e[1].id), "the text segment: executable, the same file");
                ok(e[2].id.dev == (UINT64_C(0x103) << 32 | 5) && e[2].id.ino == 42 && !e[2].exec,
                   "a three-digit major, a path with a blank, a shared data mapping");
        }
        free(e);

        is_int(maps_files("", &e, &n), 0, "an empty maps (a kernel thread) is fine");
        is_int(n, 0, "and has no file");
        free(e);

        static const char *const bad[] = {
                "zz-1000 r-xp 00000000 fe:01 5 /x\n",
                "1000 r-xp 00000000 fe:01 5 /x\n",
                "1000-2000 r-x 00000000 fe:01 5 /x\n",
                "1000-2000 r-xp 00000000 fe01 5 /x\n",
                "1000-2000 r-xp 00000000 fe:01 5x /x\n",
                "1000-2000 r-xp 00000000 fe:01 99999999999999999999 /x\n",
                "1000-2000 r-xp 00000000 1fffffffff:01 5 /x\n",
                "10000000000000000-2000 r-xp 00000000 fe:01 5 /x\n",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                e = NULL;
                ok(maps_files(bad[i], &e, &n) == -EINVAL && !e, "refused: %.*s", (int) strlen(bad[i]) - 1, bad[i]);
        }

        struct file_id ids[] = {{2, 1}, {1, 9}, {1, 2}};
        qsort(ids, ELEMENTSOF(ids), sizeof(ids[0]), file_id_compare);
        ok(ids[0].dev == 1 && ids[0].ino == 2 && ids[1].ino == 9 && ids[2].dev == 2,
           "files sort by device, then inode");
        return done_testing();
}
