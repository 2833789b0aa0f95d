/* SPDX-License-Identifier: MIT */
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "basic/util.h"
#include "systemd/boot-step.h"
#include "systemd/generator-files.h"

/* Where systemd looks for units at boot, highest priority first (systemd.unit(5)); /run is gone
 * by then. */
static const char *const boot_unit_dirs[] = {
        "/etc/systemd/system",
        "/usr/local/lib/systemd/system",
        "/usr/lib/systemd/system",
        "/lib/systemd/system",
};

/* A link to /dev/null or an empty file: systemctl mask. */
static bool is_mask(const char *path) {
        struct stat st;
        if (stat(path, &st) < 0)
                return false;
        return (S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3)) || (S_ISREG(st.st_mode) && st.st_size == 0);
}

/* The first "<dir>/<target>.wants/numaplan.service" (or .requires/) there is, or NULL. */
static char *wanted_in(const char *dir) {
        _cleanup_closedir_ DIR *d = opendir(dir);

        for (struct dirent *de; d && (de = readdir(d));) {
                if (!endswith(de->d_name, ".wants") && !endswith(de->d_name, ".requires"))
                        continue;
                _cleanup_free_ char *link = xasprintf("%s/%s/" BOOT_SERVICE, dir, de->d_name);
                if (access(link, F_OK) == 0)
                        return TAKE_PTR(link);
        }
        return NULL;
}

void boot_step_find(const char *unit_dir, bool system_dirs, bool generator, struct boot_step *ret) {
        const char *const *dirs = system_dirs ? boot_unit_dirs : (const char *const[]){unit_dir};
        size_t n = system_dirs ? ELEMENTSOF(boot_unit_dirs) : 1;
        bool installed = false;

        *ret = (struct boot_step){.kind = BOOT_STEP_NONE};
        if (generator) {
                ret->kind = BOOT_STEP_GENERATOR;
                return;
        }
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *unit = xasprintf("%s/" BOOT_SERVICE, dirs[i]);
                /* The first of a name is the unit: a mask in a directory that outranks it wins. */
                if (!installed && is_mask(unit)) {
                        ret->why_none = BOOT_SERVICE " is masked";
                        return;
                }
                installed = installed || access(unit, F_OK) == 0;
                if (!ret->where)
                        ret->where = wanted_in(dirs[i]);
        }
        if (ret->where && installed)
                ret->kind = BOOT_STEP_SERVICE;
        else
                ret->why_none = installed ? BOOT_SERVICE " is not enabled" : BOOT_SERVICE " is not installed";
}

void boot_step_done(struct boot_step *b) {
        free(b->where);
        *b = (struct boot_step){0};
}

const char *boot_step_name(const struct boot_step *b) {
        return b->kind == BOOT_STEP_SERVICE ? BOOT_SERVICE : b->kind == BOOT_STEP_GENERATOR ? GENERATOR_NAME : NULL;
}

char *boot_step_describe(const struct boot_step *b) {
        switch (b->kind) {
        case BOOT_STEP_SERVICE:
                return xasprintf("at the next boot, " BOOT_SERVICE " (wanted by %s) plans again for the hardware found "
                                 "then and applies before the replicas start",
                                 b->where);
        case BOOT_STEP_GENERATOR:
                return xstrdup("at the next boot, " GENERATOR_NAME
                               " plans again for the hardware found then and writes "
                               "the replicas' drop-ins");
        case BOOT_STEP_NONE:
        default:
                return xasprintf("no boot step will run at the next boot (%s, and " GENERATOR_NAME " is not "
                                 "installed): the replicas start with these drop-ins as written, not planned again "
                                 "for the hardware found then, and without huge pages reserved or interrupts steered "
                                 "for them; to plan at every boot: systemctl enable " BOOT_SERVICE,
                                 b->why_none);
        }
}
