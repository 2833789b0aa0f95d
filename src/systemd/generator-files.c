/* SPDX-License-Identifier: MIT */
/* Where numaplan-generator is, and the files it and generator mode share. */

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "basic/util.h"
#include "systemd/generator-files.h"

#define CONFIG_SCAN_MAX (4U << 20)

bool is_generator_name(const char *argv0) {
        const char *slash = strrchr(argv0, '/');
        return streq(slash ? slash + 1 : argv0, GENERATOR_NAME);
}

/* systemd's system generator directories, highest priority first (systemd.generator(7)). */
static const char *const generator_paths[] = {
        "/run/systemd/system-generators",           "/etc/systemd/system-generators",
        "/usr/local/lib/systemd/system-generators", "/usr/lib/systemd/system-generators",
        "/lib/systemd/system-generators",
};

/* The installed generator systemd runs (the first one found, as systemd takes the first of a
 * name), or NULL when there is none or it is masked (a link to /dev/null, or an empty file). */
static char *generator_installed_path(void) {
        const char *env = getenv("SYSTEMD_GENERATOR_PATH");
        _cleanup_free_ char *copy = env ? xstrdup(env) : NULL;
        char *save = NULL;
        size_t i = 0;

        for (;;) {
                const char *dir = copy                              ? strtok_r(save ? NULL : copy, ":", &save)
                                  : i < ELEMENTSOF(generator_paths) ? generator_paths[i++]
                                                                    : NULL;
                struct stat st;
                if (!dir)
                        return NULL;
                _cleanup_free_ char *p = xasprintf("%s/" GENERATOR_NAME, dir);
                if (lstat(p, &st) < 0)
                        continue;
                if (stat(p, &st) < 0 || (S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3)) ||
                    (S_ISREG(st.st_mode) && st.st_size == 0) || !S_ISREG(st.st_mode) || !(st.st_mode & 0111))
                        return NULL; /* masked, or nothing systemd would run */
                return TAKE_PTR(p);
        }
}

bool generator_installed(void) {
        _cleanup_free_ char *p = generator_installed_path();
        return p != NULL;
}

const char *generator_dir_for(const char *option, const char *unit_dir, const char *sysfs_root) {
        if (option)
                return option;
        /* A test's unit directory or a replayed host is never this host's generator's business. */
        if (unit_dir || !streq(sysfs_root, "/"))
                return NULL;
        return generator_installed() ? GENERATOR_DIR : NULL;
}

char *generator_exe_for(const char *option) {
        /* The drop-ins name the binary that runs `prepare`: the installed generator (which is
         * numaplan, under another name when copied), so that the generator and the commands
         * render the same bytes. */
        if (option)
                return NULL;
        _cleanup_free_ char *p = generator_installed_path();
        return p ? realpath(p, NULL) : NULL;
}
