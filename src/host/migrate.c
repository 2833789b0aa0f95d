/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <sys/mman.h>

#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/util.h"
#include "core/numa-maps.h"
#include "host/migrate.h"
#include "host/model-files.h"
#include "host/numa-dl.h"
#include "host/page-mover.h"

#define PROC_FILE_MAX (64U << 20)

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

static void by_node(const char *numa_maps, const struct cpuset *planned, uint64_t *ret) {
        struct page_tally t;
        page_tally_init(&t, (uint64_t) sysconf(_SC_PAGESIZE) / 1024);
        (void) page_tally_add(&t, numa_maps, NULL, planned);
        memcpy(ret, t.total, sizeof(t.total));
        page_tally_done(&t);
}

/* To one planned node, every page off the plan moves in one call: migrate_pages(2) from the nodes
 * off the plan that hold pages to it, the kernel walking the address space once, as
 * migratepages(8) does; pages on the plan are not touched. What moved is told by numa_maps before
 * and after, by node; what is left is moved page by page after it, which says why a page does
 * not move. Returns the numa_maps text afterwards (NULL when the bulk move was not tried). */
static char *move_bulk(pid_t pid, const struct cpuset *planned, const char *before, struct migrate_stats *st) {
        _cleanup_free_ uint64_t *was = xmalloc0(NUMA_NODES_MAX * sizeof(uint64_t)),
                                *now = xmalloc0(NUMA_NODES_MAX * sizeof(uint64_t));
        int target = cpuset_next(planned, 0);
        by_node(before, planned, was);

        struct bitmask *from = sym_numa_allocate_nodemask(), *to = sym_numa_allocate_nodemask();
        bool any = false;
        for (unsigned n = 0; n < NUMA_NODES_MAX && n < from->size; n++)
                if (was[n] && !cpuset_isset(planned, n)) {
                        sym_numa_bitmask_setbit(from, n);
                        any = true;
                }
        sym_numa_bitmask_setbit(to, (unsigned) target);
        int r = any ? sym_numa_migrate_pages(pid, from, to) : 0;
        sym_numa_bitmask_free(from);
        sym_numa_bitmask_free(to);
        if (!any || r < 0)
                return NULL;

        _cleanup_free_ char *path = xasprintf("/proc/%d/numa_maps", (int) pid);
        char *after = NULL;
        if (read_file_max(path, PROC_FILE_MAX, &after) < 0)
                return NULL;
        by_node(after, planned, now);
        for (unsigned n = 0; n < NUMA_NODES_MAX && n < MIGRATE_NODES_MAX; n++)
                if (!cpuset_isset(planned, n) && was[n] > now[n]) {
                        st->moved_from[n] += was[n] - now[n];
                        st->moved_to[target] += was[n] - now[n];
                }
        return after;
}

static bool kept(const char *line, const struct file_id *keep, size_t n_keep) {
        struct maps_entry e;
        return n_keep && maps_parse_line(line, line + strlen(line), &e) == 0 && e.id.ino &&
               bsearch(&e.id, keep, n_keep, sizeof(*keep), file_id_compare);
}

/* Does a kept file's mapping hold pages off the plan? Yes, too, when maps cannot be read. */
static bool kept_off_plan(const char *maps, const struct mapping_pages *mp, size_t n_mp, const struct file_id *keep,
                          size_t n_keep) {
        _cleanup_free_ struct maps_entry *e = NULL;
        size_t n = 0, cursor = 0;
        if (n_keep == 0)
                return false;
        if (maps_files(maps, &e, &n) < 0)
                return true;
        for (size_t i = 0; i < n; i++) {
                const struct mapping_pages *p;
                if (bsearch(&e[i].id, keep, n_keep, sizeof(*keep), file_id_compare) &&
                    (p = find_mapping(mp, n_mp, &cursor, e[i].start)) && p->off_plan)
                        return true;
        }
        return false;
}

int migrate_process(pid_t pid, const struct cpuset *planned, const struct file_id *keep, size_t n_keep, bool dry,
                    struct migrate_stats *st) {
        _cleanup_free_ char *maps_path = xasprintf("/proc/%d/maps", (int) pid),
                            *numa_path = xasprintf("/proc/%d/numa_maps", (int) pid), *maps = NULL, *numa = NULL;
        _cleanup_free_ struct mapping_pages *mp = NULL;
        struct stretches s = {0};
        size_t n_mp = 0, cursor = 0;
        uint64_t base = (uint64_t) sysconf(_SC_PAGESIZE);
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
        st->page_size = base;
        /* Counted as the kernel had them: resident, and on the plan, before anything moved. */
        for (size_t i = 0; i < n_mp; i++) {
                uint64_t w = mp[i].page_kb * 1024 / base ? mp[i].page_kb * 1024 / base : 1;
                st->resident += mp[i].resident * w;
                st->on_plan += (mp[i].resident - mp[i].off_plan) * w;
        }
        /* migrate_pages(2) moves every page off the nodes it is given, the kept ones too: with a kept
         * mapping off the plan, page by page only. */
        bool bulk = !dry && cpuset_count(planned) == 1 && !kept_off_plan(maps, mp, n_mp, keep, n_keep);
        if (bulk) {
                char *after = move_bulk(pid, planned, numa, st);
                if (after) {
                        /* What is left off the plan, page by page, with the reasons. */
                        free(numa);
                        numa = after;
                        free(mp);
                        mp = NULL;
                        if (numa_maps_mappings(numa, planned, &mp, &n_mp) < 0)
                                return 0;
                }
        }
        for (char *save = NULL, *line = strtok_r(maps, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                unsigned long long start, end;
                char perms[8] = "";
                if (sscanf(line, "%llx-%llx %7s", &start, &end, perms) != 3 || end <= start)
                        continue;
                /* The kernel's own pages (vdso, vvar, vsyscall) and guard gaps are not the process's. */
                if (strstr(line, " [v") || perms[0] == '-')
                        continue;
                const struct mapping_pages *p = find_mapping(mp, n_mp, &cursor, start);
                uint64_t page = p && p->page_kb ? p->page_kb * 1024 : base;
                if (kept(line, keep, n_keep)) {
                        if (p)
                                st->kept += p->off_plan * (page / base ? page / base : 1);
                        continue;
                }
                /* All in place (or nothing resident, as in the address space a GPU runtime reserves):
                 * not scanned page by page. */
                if (p && p->off_plan == 0)
                        continue;
                stretches_add(&s, (struct stretch){.start = start, .n = (size_t) ((end - start) / page), .page = page,
                                                   .fd = -1, .mp = p});
        }
        /* The page-by-page pass counts what it sees; the counts of resident pages are taken
         * above, once. */
        struct migrate_stats *pass = xmalloc0(sizeof(*pass));
        r = pages_move(pid, &s, planned, dry, pass);
        stretches_done(&s);
        for (size_t i = 0; i < MIGRATE_NODES_MAX; i++) {
                st->moved_from[i] += pass->moved_from[i];
                st->moved_to[i] += pass->moved_to[i];
        }
        for (size_t i = 0; i < MIGRATE_ERRNO_MAX; i++)
                st->failed[i] += pass->failed[i];
        free(pass);
        return r;
}

struct files {
        struct stretches s;
        int *fds;
        unsigned char **masks;
        char **paths;
        size_t n;
        unsigned failed;
};

static int add_file(const char *path, const struct stat *st, void *userdata) {
        struct files *f = userdata;
        size_t page = (size_t) sysconf(_SC_PAGESIZE);

        if (!st) {
                log_warning("%s: %m: its page cache is left where it is", path);
                f->failed++;
                return 0;
        }
        if (st->st_size == 0)
                return 0;
        int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) {
                log_warning("%s: %m: its page cache is left where it is", path);
                f->failed++;
                return 0;
        }
        size_t len = (size_t) st->st_size, pages = (len + page - 1) / page;
        /* Mapped to ask mincore(2) which pages are cached, never touched here. */
        void *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
        unsigned char *mask = map == MAP_FAILED ? NULL : xmalloc0(pages);
        if (!mask || mincore(map, len, mask) < 0) {
                log_warning("%s: cannot map it (%m): its page cache is left where it is", path);
                f->failed++;
                free(mask);
                if (map != MAP_FAILED)
                        munmap(map, len);
                close(fd);
                return 0;
        }
        munmap(map, len);
        f->fds = xrealloc(f->fds, (f->n + 1) * sizeof(int));
        f->masks = xrealloc(f->masks, (f->n + 1) * sizeof(char *));
        f->paths = xrealloc(f->paths, (f->n + 1) * sizeof(char *));
        f->fds[f->n] = fd;
        f->masks[f->n] = mask;
        f->paths[f->n] = xstrdup(path);
        stretches_add(&f->s, (struct stretch){.start = 0, .n = pages, .page = page, .fd = fd, .mask = mask,
                                              .path = f->paths[f->n]});
        f->n++;
        return 0;
}

int migrate_files(char *const *paths, const struct cpuset *planned, bool dry, struct migrate_stats *st,
                  unsigned *ret_failed) {
        struct files f = {0};
        int r = dlopen_libnuma();
        if (r < 0)
                return r;
        r = model_files_walk(paths, add_file, &f);
        if (r >= 0)
                r = pages_move(0, &f.s, planned, dry, st);
        for (size_t i = 0; i < f.n; i++) {
                close(f.fds[i]);
                free(f.masks[i]);
                free(f.paths[i]);
        }
        free(f.fds);
        free(f.masks);
        free(f.paths);
        stretches_done(&f.s);
        *ret_failed = f.failed;
        return r;
}
