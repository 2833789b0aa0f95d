/* SPDX-License-Identifier: MIT */
/* Where numaplan-generator is, and the files it and generator mode share. */

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/util.h"
#include "core/placement.h"
#include "core/unit-name.h"
#include "systemd/generator-files.h"

#define CONFIG_SCAN_MAX (4U << 20)

bool is_generator_name(const char *argv0) {
        const char *slash = strrchr(argv0, '/');
        return streq(slash ? slash + 1 : argv0, GENERATOR_NAME);
}

/* systemd's system generator directories, highest priority first (systemd.generator(7)). */
static const char *const generator_paths[] = {
        "/run/systemd/system-generators",       "/etc/systemd/system-generators",
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
                const char *dir = copy ? strtok_r(save ? NULL : copy, ":", &save) :
                                         i < ELEMENTSOF(generator_paths) ? generator_paths[i++] : NULL;
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

char *generator_marker(const char *dir) {
        return xasprintf("%s/.numaplan/applied", dir);
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

char **generator_read_removed(const char *runtime_dir, bool *ret_all, bool *ret_exists) {
        _cleanup_free_ char *path = xasprintf("%s/" GENERATOR_REMOVED, runtime_dir), *text = NULL;
        char **v = xmalloc0(sizeof(char *));
        size_t n = 0;

        *ret_all = false;
        *ret_exists = read_file(path, &text) >= 0;
        for (char *line = text, *next; line && *line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = '\0';
                if (streq(line, "*"))
                        *ret_all = true;
                else if (*line && *line != '#' && unit_name_is_valid_service(line, NULL)) {
                        v = xrealloc(v, (n + 2) * sizeof(char *));
                        v[n++] = xstrdup(line);
                        v[n] = NULL;
                }
        }
        return v;
}

char *generator_units_record_text(const struct plan *plan) {
        char **v = xmalloc0(sizeof(char *));
        size_t n = 0;
        struct strbuf b = {0};

        /* As the configuration names them: a template's as "tp@%i.service". */
        for (size_t i = 0; i < plan->n_replicas; i++) {
                const struct placement *pl = &plan->replicas[i];
                const char *u = pl->conf && pl->conf->unit ? pl->conf->unit : pl->unit;
                if (!strv_contains(v, u)) {
                        v = xrealloc(v, (n + 2) * sizeof(char *));
                        v[n++] = xstrdup(u);
                        v[n] = NULL;
                }
        }
        strbuf_append(&b, "# the units of numaplan's last plan, which " GENERATOR_NAME " keeps from starting when it "
                          "cannot place them\n");
        for (size_t i = 0; i < n; i++)
                strbuf_printf(&b, "%s\n", v[i]);
        strv_free(v);
        return strbuf_steal(&b);
}

int generator_write_units_record(const char *dir, const struct plan *plan) {
        _cleanup_free_ char *text = generator_units_record_text(plan), *old = NULL;
        _cleanup_close_ int dfd = -1;
        int r = mkdir_parents(dir, 0755);
        if (r >= 0)
                r = dfd = open_dir_at(AT_FDCWD, dir, false, NULL);
        if (r >= 0 && read_regular_at(dfd, GENERATOR_UNITS_RECORD, CONFIG_SCAN_MAX, &old) >= 0 && streq(old, text))
                return 0;
        if (r >= 0)
                r = write_file_atomic_at(dfd, GENERATOR_UNITS_RECORD, text);
        if (r < 0)
                return log_error_errno(r, "cannot record the plan's units in %s/" GENERATOR_UNITS_RECORD ": %m",
                                       dir);
        return 0;
}

