/* SPDX-License-Identifier: MIT */
/* The I/O around core/verify-metrics.c: the clock, and the atomic write of the file. */

#include <fcntl.h>
#include <libgen.h>
#include <sys/stat.h>
#include <time.h>

#include "basic/escape.h"
#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/util.h"
#include "cli/metrics-file.h"

static double seconds(clockid_t clock) {
        struct timespec ts;
        if (clock_gettime(clock, &ts) < 0)
                return 0;
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

double now_realtime_s(void) {
        return seconds(CLOCK_REALTIME);
}

double now_monotonic_s(void) {
        return seconds(CLOCK_MONOTONIC);
}

int metrics_write_file(const char *path, const struct metrics_run *run, const struct metrics_unit *units, size_t n) {
        _cleanup_free_ char *d = xstrdup(path), *b = xstrdup(path), *text = NULL;
        const char *dir = dirname(d), *name = basename(b);

        if (!*path || path[strlen(path) - 1] == '/' || streq(name, ".") || streq(name, ".."))
                return log_error_errno(-EINVAL, "--metrics %s: not a file name", path);
        _cleanup_close_ int dfd = open_dir_at(AT_FDCWD, dir, false, NULL);
        if (dfd < 0)
                return log_error_errno(dfd, "Failed to open %s, the directory of --metrics %s: %m", dir, path);
        /* What is there is replaced: a file, or a link (the link itself, never its target). Anything
         * else (a FIFO another program reads, /dev/full) is someone's, not a metrics file. */
        struct stat st;
        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
                _cleanup_free_ char *shown = name_escape(path);
                return log_error_errno(-EEXIST, "--metrics %s is %s, not a file: refused, nothing written", shown,
                                       file_type_name(st.st_mode));
        }
        text = metrics_format(run, units, n);
        remove_stale_temporaries_at(dfd, name);
        int r = write_file_atomic_at(dfd, name, text);
        if (r < 0)
                return log_error_errno(r, "Failed to write %s: %m", path);
        return 0;
}
