/* SPDX-License-Identifier: MIT */
#pragma once

/* One line of /proc/PID/mountinfo (proc(5)): "36 35 98:0 /root /mnt rw master:1 - ext4 /dev/sda1
 * rw". Pure: text in, struct out. */

struct mountinfo {
        int id, parent;
        char *root, *mount_point; /* as the kernel escapes them (\040 for a blank) taken back */
        char *fstype, *source;
};

/* -EINVAL for a line that is not one; *ret filled only on success. */
int mountinfo_parse_line(const char *line, struct mountinfo *ret);
void mountinfo_done(struct mountinfo *m);
