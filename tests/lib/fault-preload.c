/* SPDX-License-Identifier: MIT */
/* Faults that tests cannot otherwise make happen at a chosen moment, injected with LD_PRELOAD:
 * with NUMAPLAN_TEST_TRUNCATE_AFTER_MINCORE=PATH, the first mincore(2) of the process (and of its
 * children) that reports a cached page truncates PATH to nothing, as another writer could between
 * prepare's look at a model's page cache and its touch of those pages. */

#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int mincore(void *addr, size_t length, unsigned char *vec) {
        static int (*real)(void *, size_t, unsigned char *);
        if (!real)
                real = (int (*)(void *, size_t, unsigned char *)) dlsym(RTLD_NEXT, "mincore");
        int r = real(addr, length, vec);
        const char *path = getenv("NUMAPLAN_TEST_TRUNCATE_AFTER_MINCORE");
        if (r == 0 && path && length && (vec[0] & 1)) {
                (void) truncate(path, 0);
                unsetenv("NUMAPLAN_TEST_TRUNCATE_AFTER_MINCORE");
        }
        return r;
}
