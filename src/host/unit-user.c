/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "basic/util.h"
#include "host/unit-user.h"

void unit_user_done(struct unit_user *u) {
        free(u->name);
        free(u->groups);
        *u = (struct unit_user){0};
}

int unit_user_lookup(const char *name, struct unit_user *ret) {
        struct passwd pw, *found = NULL;
        char buf[16384];

        errno = 0;
        int e = getpwnam_r(name, &pw, buf, sizeof(buf), &found);
        if (e != 0 || !found)
                return e ? -e : -ENOENT;
        int n = 64;
        gid_t *groups = xmalloc0((size_t) n * sizeof(gid_t));
        if (getgrouplist(name, pw.pw_gid, groups, &n) < 0) {
                groups = xrealloc(groups, (size_t) n * sizeof(gid_t));
                if (getgrouplist(name, pw.pw_gid, groups, &n) < 0)
                        n = 0; /* its primary group alone, then */
        }
        *ret = (struct unit_user){
                .name = xstrdup(name), .uid = pw.pw_uid, .gid = pw.pw_gid, .groups = groups, .n_groups = (size_t) n};
        return 0;
}

void unit_user_dynamic(const char *name, uid_t uid, struct unit_user *ret) {
        *ret = (struct unit_user){.name = xstrdup(name), .uid = uid, .gid = (gid_t) uid};
}

int unit_user_become(const struct unit_user *u) {
        struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
        struct __user_cap_data_struct caps[_LINUX_CAPABILITY_U32S_3] = {{0}};
        uid_t ru, eu, su;

        if (u->uid == 0)
                return -EPERM; /* nothing to drop to */
        if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0 || setgroups(u->n_groups, u->groups) < 0 ||
            setresgid(u->gid, u->gid, u->gid) < 0)
                return -errno;
        /* The bounding set first, while CAP_SETPCAP is still held. */
        for (unsigned long c = 0; prctl(PR_CAPBSET_READ, c, 0, 0, 0) >= 0; c++)
                if (c != CAP_FOWNER && prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0)
                        return -errno;
        if (setresuid(u->uid, u->uid, u->uid) < 0)
                return -errno;
        caps[CAP_TO_INDEX(CAP_FOWNER)].permitted = caps[CAP_TO_INDEX(CAP_FOWNER)].effective = CAP_TO_MASK(CAP_FOWNER);
        if (syscall(SYS_capset, &h, caps) < 0 || prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0 ||
            prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                return -errno;
        /* No way back: all three UIDs are the user's. */
        if (getresuid(&ru, &eu, &su) < 0 || ru != u->uid || eu != u->uid || su != u->uid || setuid(0) == 0)
                return -EPERM;
        return 0;
}
