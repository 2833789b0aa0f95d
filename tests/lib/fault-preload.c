/* SPDX-License-Identifier: MIT */
/* Faults that tests cannot otherwise make happen at a chosen moment, injected from outside the
 * program: preloaded (LD_PRELOAD) into the numaplan a test runs, or linked into a unit test. The
 * program itself knows nothing of them.
 *
 * Write steps. numaplan changes a directory it writes to in three ways, each a write step: it
 * creates a temporary beside a file (an exclusive create of a name ".#NAME.XXXXXX"), it renames
 * (renameat: a temporary over its file, or a journal's change finished), and it removes a file
 * (unlinkat of a name that is not a temporary). Removing a temporary (a clean-up) or a directory,
 * and making a directory, are not steps. The steps of a process are counted from 1, from the
 * first made while one of these is set (a child goes on from its parent's count, a new program
 * starts again):
 *   NUMAPLAN_TEST_KILL_AT_STEP=N    the process is killed (SIGKILL) just before its N-th step;
 *   NUMAPLAN_TEST_FAIL_AT_STEP=N    its N-th step fails with EIO, changing nothing;
 *   NUMAPLAN_TEST_STALL_AT_STEP=N   its N-th step waits until the process is killed (a disk that
 *                                   stopped answering).
 * Each says so on stderr, "fault-preload: killed at write step N (NAME: WHAT)", with the file the
 * step is for (NAME: the target of a temporary, the new name of a rename) and what it does
 * ("write temporary", "rename", "unlink").
 *
 * With NUMAPLAN_TEST_TRUNCATE_AFTER_MINCORE=PATH, the first mincore(2) of the process (and of its
 * children) that reports a cached page truncates PATH to nothing, as another writer could between
 * prepare's look at a model's page cache and its touch of those pages. */

/* openat() and openat64() both, each under its own name. */
#undef _FILE_OFFSET_BITS
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef int openat_fn(int, const char *, int, ...);
typedef int renameat_fn(int, const char *, int, const char *);
typedef int unlinkat_fn(int, const char *, int);
typedef int mincore_fn(void *, size_t, unsigned char *);

static openat_fn *real_openat, *real_openat64;
static renameat_fn *real_renameat;
static unlinkat_fn *real_unlinkat;
static mincore_fn *real_mincore;

/* Resolved before main(): numaplan's generator writes from a worker that shares the parent's
 * memory (clone() with CLONE_VM), where the dynamic linker's locks are best left alone. */
__attribute__((constructor)) static void resolve(void) {
        real_openat = (openat_fn *) dlsym(RTLD_NEXT, "openat");
        real_openat64 = (openat_fn *) dlsym(RTLD_NEXT, "openat64");
        real_renameat = (renameat_fn *) dlsym(RTLD_NEXT, "renameat");
        real_unlinkat = (unlinkat_fn *) dlsym(RTLD_NEXT, "unlinkat");
        real_mincore = (mincore_fn *) dlsym(RTLD_NEXT, "mincore");
}

static unsigned step_number(const char *name) {
        const char *v = getenv(name);
        return v ? (unsigned) strtoul(v, NULL, 10) : 0;
}

static const char *base_name(const char *path) {
        const char *slash = strrchr(path, '/');
        return slash ? slash + 1 : path;
}

static bool is_temporary(const char *path) {
        return strncmp(base_name(path), ".#", 2) == 0;
}

static unsigned step; /* shared with a CLONE_VM worker, as numaplan's own memory is */

/* One write step for `name`: the fault set for it, if any. 0 to go on (1 when counted), -1 with
 * errno EIO to fail. */
static int write_step(const char *what, const char *name, int name_len) {
        unsigned kill_at = step_number("NUMAPLAN_TEST_KILL_AT_STEP"),
                 fail_at = step_number("NUMAPLAN_TEST_FAIL_AT_STEP"),
                 stall_at = step_number("NUMAPLAN_TEST_STALL_AT_STEP");

        if (!kill_at && !fail_at && !stall_at)
                return 0;
        step++;
        if (stall_at == step) {
                fprintf(stderr, "fault-preload: stalled at write step %u (%.*s: %s)\n", step, name_len, name, what);
                for (;;)
                        pause();
        }
        if (kill_at == step) {
                fprintf(stderr, "fault-preload: killed at write step %u (%.*s: %s)\n", step, name_len, name, what);
                raise(SIGKILL);
                _exit(137);
        }
        if (fail_at == step) {
                fprintf(stderr, "fault-preload: failing write step %u (%.*s: %s)\n", step, name_len, name, what);
                errno = EIO;
                return -1;
        }
        return 1;
}

/* A temporary's creation is a step: ".#NAME.XXXXXX", made with O_CREAT | O_EXCL. */
static int open_step(int flags, const char *path) {
        const char *b = base_name(path), *dot = strrchr(b, '.');
        if ((flags & (O_CREAT | O_EXCL)) != (O_CREAT | O_EXCL) || !is_temporary(path) || dot < b + 2)
                return 0;
        return write_step("write temporary", b + 2, (int) (dot - (b + 2)));
}

static int open_at(openat_fn *real, const char *sym, int dirfd, const char *path, int flags, va_list ap) {
        mode_t mode = (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t) va_arg(ap, int) : 0;
        if (!real)
                real = (openat_fn *) dlsym(RTLD_NEXT, sym);
        int counted = open_step(flags, path);
        if (counted < 0)
                return -1;
        int fd = real(dirfd, path, flags, mode);
        if (fd < 0 && errno == EEXIST && counted)
                step--; /* the name was taken: the next try is the same step */
        return fd;
}

int openat(int dirfd, const char *path, int flags, ...) {
        va_list ap;
        va_start(ap, flags);
        int r = open_at(real_openat, "openat", dirfd, path, flags, ap);
        va_end(ap);
        return r;
}

int openat64(int dirfd, const char *path, int flags, ...) {
        va_list ap;
        va_start(ap, flags);
        int r = open_at(real_openat64, "openat64", dirfd, path, flags, ap);
        va_end(ap);
        return r;
}

int renameat(int olddirfd, const char *oldpath, int newdirfd, const char *newpath) {
        if (!real_renameat)
                real_renameat = (renameat_fn *) dlsym(RTLD_NEXT, "renameat");
        const char *b = base_name(newpath);
        if (write_step("rename", b, (int) strlen(b)) < 0)
                return -1;
        return real_renameat(olddirfd, oldpath, newdirfd, newpath);
}

int unlinkat(int dirfd, const char *path, int flags) {
        if (!real_unlinkat)
                real_unlinkat = (unlinkat_fn *) dlsym(RTLD_NEXT, "unlinkat");
        const char *b = base_name(path);
        if (!(flags & AT_REMOVEDIR) && !is_temporary(path) && write_step("unlink", b, (int) strlen(b)) < 0)
                return -1;
        return real_unlinkat(dirfd, path, flags);
}

int mincore(void *addr, size_t length, unsigned char *vec) {
        if (!real_mincore)
                real_mincore = (mincore_fn *) dlsym(RTLD_NEXT, "mincore");
        int r = real_mincore(addr, length, vec);
        const char *path = getenv("NUMAPLAN_TEST_TRUNCATE_AFTER_MINCORE");
        if (r == 0 && path && length && (vec[0] & 1)) {
                (void) truncate(path, 0);
                unsetenv("NUMAPLAN_TEST_TRUNCATE_AFTER_MINCORE");
        }
        return r;
}
