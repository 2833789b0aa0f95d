/* SPDX-License-Identifier: MIT */
#include <string.h>
#include <sys/stat.h>

#include "basic/util.h"
#include "systemd/dropin-seen.h"

static bool same_file(const char *a, const struct stat *sa, const char *b) {
        struct stat sb;
        if (!sa) /* ours is not there: only its own name can be it */
                return streq(a, b);
        return stat(b, &sb) == 0 && sa->st_dev == sb.st_dev && sa->st_ino == sb.st_ino;
}

void dropin_seen(char *const *dropin_paths, const char *ours, struct dropin_seen *ret) {
        struct stat st;
        bool exists = stat(ours, &st) == 0;
        /* "/llama@0.service.d/50-numaplan.conf": the unit's directory and the file's name. */
        const char *slash = strrchr(ours, '/'), *dir = slash;
        while (dir && dir > ours && dir[-1] != '/')
                dir--;
        const char *tail = dir && dir > ours ? dir - 1 : ours;

        *ret = (struct dropin_seen){.index = -1};
        for (size_t i = 0; dropin_paths && dropin_paths[i]; i++) {
                const char *p = dropin_paths[i];
                if (same_file(ours, exists ? &st : NULL, p)) {
                        ret->index = (int) i;
                        ret->instead = NULL;
                        return;
                }
                size_t lp = strlen(p), lt = strlen(tail);
                if (!ret->instead && lp >= lt && streq(p + lp - lt, tail))
                        ret->instead = p;
        }
}
