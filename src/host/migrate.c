/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <numaif.h>
#include <sys/mman.h>

#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/util.h"
#include "core/numa-maps.h"
#include "host/migrate.h"
#include "host/model-files.h"
#include "host/numa-dl.h"

/* Pages per move_pages(2) call: the kernel moves a batch in one pass, and 4096 keeps the arrays
 * at 100 KiB. */
#define BATCH 4096
#define PROC_FILE_MAX (64U << 20)

struct mover {
        pid_t pid; /* 0: this process (the files it maps) */
        const struct cpuset *planned;
        bool dry;
        unsigned next_target;
        struct migrate_stats *st;
        void *addrs[BATCH], *picked[BATCH];
        int status[BATCH], from[BATCH], to[BATCH], after[BATCH];
        size_t pick[BATCH];
};

static struct mover *mover_new(pid_t pid, const struct cpuset *planned, bool dry, struct migrate_stats *st) {
        struct mover *m = xmalloc0(sizeof(*m));
        *m = (struct mover){.pid = pid, .planned = planned, .dry = dry, .st = st};
        st->page_size = (uint64_t) sysconf(_SC_PAGESIZE);
        return m;
}

/* One batch of page addresses, each `weight` base pages: where are they, and move those off plan. */
static int move_batch(struct mover *m, size_t n, uint64_t weight) {
        if (n == 0)
                return 0;
        if (sym_numa_move_pages(m->pid, n, m->addrs, NULL, m->status, 0) < 0)
                return -errno;
        size_t k = migrate_select(m->status, n, m->planned, &m->next_target, weight, m->st, m->pick, m->to);
        if (k == 0 || m->dry)
                return 0;
        for (size_t i = 0; i < k; i++) {
                m->picked[i] = m->addrs[m->pick[i]];
                m->from[i] = m->status[m->pick[i]];
        }
        /* With some pages unmovable the call fails as a whole, yet the status array still says
         * page by page what happened: only a failure of the call itself stops. */
        if (sym_numa_move_pages(m->pid, k, m->picked, m->to, m->after, MPOL_MF_MOVE_ALL) < 0 &&
            (errno == ESRCH || errno == EPERM || errno == EINVAL || errno == EFAULT))
                return -errno;
        migrate_account(m->from, m->to, m->after, k, weight, m->st);
        return 0;
}

static int move_range(struct mover *m, uint64_t start, uint64_t end, uint64_t page) {
        uint64_t weight = page / m->st->page_size ? page / m->st->page_size : 1;
        size_t n = 0;

        for (uint64_t a = start; a < end; a += page) {
                m->addrs[n++] = (void *) (uintptr_t) a;
                if (n == BATCH) {
                        int r = move_batch(m, n, weight);
                        if (r < 0)
                                return r;
                        n = 0;
                }
        }
        return move_batch(m, n, weight);
}

static const struct mapping_pages *find_mapping(const struct mapping_pages *v, size_t n, size_t *cursor,
                                                uint64_t start) {
        /* maps and numa_maps list the same mappings in the same order: look ahead first. */
        for (size_t i = *cursor; i < n; i++)
                if (v[i].start == start) {
                        *cursor = i + 1;
                        return &v[i];
                }
        for (size_t i = 0; i < *cursor && i < n; i++)
                if (v[i].start == start)
                        return &v[i];
        return NULL;
}

int migrate_process(pid_t pid, const struct cpuset *planned, bool dry, struct migrate_stats *st) {
        _cleanup_free_ char *maps_path = xasprintf("/proc/%d/maps", (int) pid),
                            *numa_path = xasprintf("/proc/%d/numa_maps", (int) pid), *maps = NULL, *numa = NULL;
        _cleanup_free_ struct mapping_pages *mp = NULL;
        size_t n_mp = 0, cursor = 0;
        int r = dlopen_libnuma();
        if (r < 0)
                return r;

        /* Both read whole, then walked: the process goes on meanwhile, and a mapping gone since
         * shows as a page status, not an error. */
        if (read_file_max(maps_path, PROC_FILE_MAX, &maps) < 0 || read_file_max(numa_path, PROC_FILE_MAX, &numa) < 0)
                return -ESRCH;
        r = numa_maps_mappings(numa, planned, &mp, &n_mp);
        if (r < 0)
                return r;
        _cleanup_free_ struct mover *m = mover_new(pid, planned, dry, st);

        r = 0;
        for (char *save = NULL, *line = strtok_r(maps, "\n", &save); r >= 0 && line; line = strtok_r(NULL, "\n", &save)) {
                unsigned long long start, end;
                char perms[8] = "";
                if (sscanf(line, "%llx-%llx %7s", &start, &end, perms) != 3)
                        continue;
                /* The kernel's own pages (vdso, vvar, vsyscall) and guard gaps are not the process's. */
                if (strstr(line, " [v") || perms[0] == '-')
                        continue;
                const struct mapping_pages *p = find_mapping(mp, n_mp, &cursor, start);
                uint64_t page = p ? p->page_kb * 1024 : st->page_size;
                if (p && p->off_plan == 0) {
                        /* All in place (or nothing resident, as in the address space a GPU runtime
                         * reserves): counted from numa_maps, not scanned page by page. */
                        uint64_t w = page / st->page_size ? page / st->page_size : 1;
                        st->resident += p->resident * w;
                        st->on_plan += p->resident * w;
                        continue;
                }
                r = move_range(m, start, end, page);
        }
        return r == -ESRCH || r == -EPERM ? r : 0;
}

struct file_walk {
        struct mover *m;
        unsigned failed;
};

static int move_file(const char *path, const struct stat *st, void *userdata) {
        struct file_walk *w = userdata;
        struct mover *m = w->m;
        size_t page = (size_t) m->st->page_size;

        if (!st) {
                log_warning("%s: %m: its page cache is left where it is", path);
                w->failed++;
                return 0;
        }
        if (st->st_size == 0)
                return 0;
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) {
                log_warning("%s: %m: its page cache is left where it is", path);
                w->failed++;
                return 0;
        }
        size_t len = (size_t) st->st_size, pages = (len + page - 1) / page;
        uint8_t *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
        if (map == MAP_FAILED) {
                log_warning("%s: cannot map it (%m): its page cache is left where it is", path);
                w->failed++;
                return 0;
        }
        _cleanup_free_ unsigned char *resident = xmalloc0(pages);
        int r = mincore(map, len, resident) < 0 ? -errno : 0;
        size_t n = 0;
        for (size_t i = 0; r >= 0 && i < pages; i++) {
                if (!(resident[i] & 1))
                        continue; /* not cached: the server's reads place it, under its policy */
                /* Map the cached page into this process (a minor fault, no I/O) so that
                 * move_pages(2) can reach it. */
                (void) *(volatile uint8_t *) (map + i * page);
                m->addrs[n++] = map + i * page;
                if (n == BATCH) {
                        r = move_batch(m, n, 1);
                        n = 0;
                }
        }
        if (r >= 0)
                r = move_batch(m, n, 1);
        munmap(map, len);
        if (r < 0) {
                log_warning("%s: %s: its page cache is left where it is", path, strerror(-r));
                w->failed++;
        }
        return 0;
}

int migrate_files(char *const *paths, const struct cpuset *planned, bool dry, struct migrate_stats *st,
                  unsigned *ret_failed) {
        int r = dlopen_libnuma();
        if (r < 0)
                return r;
        _cleanup_free_ struct mover *m = mover_new(0, planned, dry, st);
        struct file_walk w = {.m = m};
        r = model_files_walk(paths, move_file, &w);
        *ret_failed = w.failed;
        return r;
}
