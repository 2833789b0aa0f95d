/* SPDX-License-Identifier: MIT */
#include <fcntl.h>

#include "basic/escape.h"
#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/util.h"
#include "core/proc-maps.h"
#include "core/numa-maps.h"
#include "host/host-facts.h"
#include "live/migrate.h"
#include "host/model-files.h"
#include "live/numa-dl.h"
#include "live/page-mover.h"

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
        page_tally_init(&t, live_page_size() / 1024);
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
        if (read_file_max(path, READ_PROC_MAX, &after) < 0)
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
        uint64_t base = live_page_size();
        int r = dlopen_libnuma();
        if (r < 0)
                return r;

        /* Both read whole, then walked: the process goes on meanwhile, and a mapping gone since
         * shows as a page status, not an error. */
        if (read_file_max(maps_path, READ_PROC_MAX, &maps) < 0 || read_file_max(numa_path, READ_PROC_MAX, &numa) < 0)
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
                uint64_t start, end;
                if (!maps_line_range(line, strlen(line), &start, &end))
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
                stretches_add(
                        &s,
                        (struct stretch){
                                .start = start, .n = (size_t) ((end - start) / page), .page = page, .fd = -1, .mp = p});
        }
        /* The page-by-page pass counts what it sees; the counts of resident pages are taken
         * above, once. */
        struct migrate_stats *pass = xmalloc0(sizeof(*pass));
        r = pages_move(pid, &s, planned, &(struct move_how){.dry = dry}, pass);
        stretches_done(&s);
        for (size_t i = 0; i < MIGRATE_NODES_MAX; i++) {
                st->moved_from[i] += pass->moved_from[i];
                st->moved_to[i] += pass->moved_to[i];
        }
        for (size_t i = 0; i < MIGRATE_ERRNO_MAX; i++)
                st->failed[i] += pass->failed[i];
        st->pinned += pass->pinned;
        free(pass);
        return r;
}

/* Links out of a model's tree named one by one; past that, counted. */
#define LINKS_SAID_MAX 10

struct files {
        struct stretches s;
        int fds[STRETCH_FILES_MAX];
        char *paths[STRETCH_FILES_MAX];
        size_t n;
        const struct cpuset *planned;
        const struct move_how *how;
        struct migrate_stats *st;
        unsigned failed, links_out;
        int error; /* of a pass that could not move at all */
};

/* The files gathered so far are moved, and their descriptors closed: a model of thousands of
 * shards holds STRETCH_FILES_MAX descriptors at most. */
static void flush(struct files *f) {
        if (f->s.n && f->error >= 0) {
                int r = pages_move(0, &f->s, f->planned, f->how, f->st);
                if (r < 0)
                        f->error = r;
        }
        for (size_t i = 0; i < f->n; i++) {
                close(f->fds[i]);
                free(f->paths[i]);
        }
        f->n = 0;
        stretches_done(&f->s);
}

/* A run of the file being added, from `run` (its start, page, descriptor and path) to `end`. */
static void add_run(struct files *f, const struct stretch *run, uint64_t end) {
        struct stretch s = *run;
        s.n = (size_t) ((end - run->start) / run->page);
        s.file = (unsigned) f->n;
        stretches_add(&f->s, s);
}

/* The file's data, as stretches: only what SEEK_DATA finds (a sparse file's holes hold no page
 * cache), page-aligned, runs close together merged into one while they fit one batch. */
static void add_data(struct files *f, int fd, uint64_t size, const char *path) {
        uint64_t page = live_page_size(), batch = (uint64_t) STRETCH_BATCH * page;
        uint64_t run_start = 0, run_end = 0;
        bool have_run = false;

        for (uint64_t pos = 0; pos < size;) {
                off_t data = lseek(fd, (off_t) pos, SEEK_DATA), hole;
                if (data < 0 && errno == ENXIO)
                        break; /* nothing but a hole from here */
                if (data < 0)  /* a file system without SEEK_DATA: all of it is data */
                        data = (off_t) pos, hole = (off_t) size;
                else if ((hole = lseek(fd, data, SEEK_HOLE)) < 0 || (uint64_t) hole > size)
                        hole = (off_t) size;
                uint64_t a = (uint64_t) data / page * page, b = ((uint64_t) hole + page - 1) / page * page;
                if (b <= a)
                        break;
                if (have_run && b - run_start <= batch)
                        run_end = b;
                else {
                        if (have_run)
                                add_run(f, &(struct stretch){.start = run_start, .page = page, .fd = fd, .path = path},
                                        run_end);
                        run_start = a;
                        run_end = b;
                        have_run = true;
                }
                pos = (uint64_t) hole;
        }
        if (have_run)
                add_run(f, &(struct stretch){.start = run_start, .page = page, .fd = fd, .path = path}, run_end);
}

static int add_file(const struct model_entry *e, void *userdata) {
        struct files *f = userdata;
        _cleanup_free_ char *path = name_escape(e->path);

        switch (e->event) {
        case MODEL_UNREACHABLE:
                log_warning("%s: %s: its page cache is left where it is", path, strerror(-e->error));
                f->failed++;
                return 0;
        case MODEL_NOT_FILE:
                log_warning("%s is %s, not a model's file: left alone", path, e->what);
                f->failed += e->named;
                return 0;
        case MODEL_LINK_OUT:
                if (f->links_out++ < LINKS_SAID_MAX) {
                        _cleanup_free_ char *target = name_escape(e->target);
                        log_warning("%s: a link out of the model's tree (to %s%s%s): not followed", path,
                                    e->target ? target : "somewhere unreadable", e->what ? ", " : "",
                                    strempty(e->what));
                }
                return 0;
        case MODEL_FILE:
                break;
        }
        if (e->st->st_size == 0)
                return 0;
        int fd = fcntl(e->fd, F_DUPFD_CLOEXEC, 3);
        if (fd < 0 && errno == EMFILE && f->n > 0) {
                flush(f); /* a low LimitNOFILE=: fewer files at a time */
                fd = fcntl(e->fd, F_DUPFD_CLOEXEC, 3);
        }
        if (fd < 0) {
                log_warning("%s: %m: its page cache is left where it is", path);
                f->failed++;
                return 0;
        }
        f->fds[f->n] = fd;
        f->paths[f->n] = TAKE_PTR(path);
        add_data(f, fd, (uint64_t) e->st->st_size, f->paths[f->n]);
        f->n++;
        if (f->n == STRETCH_FILES_MAX)
                flush(f);
        return 0;
}

int migrate_files(char *const *paths, const struct cpuset *planned, const struct move_how *how,
                  struct migrate_stats *st, unsigned *ret_failed) {
        struct files f = {.planned = planned, .how = how, .st = st};
        int r = dlopen_libnuma();
        if (r < 0)
                return r;
        st->page_size = live_page_size();
        r = model_files_walk(paths, add_file, &f);
        flush(&f);
        if (f.links_out > LINKS_SAID_MAX)
                log_warning("%u more links out of the model's tree not followed", f.links_out - LINKS_SAID_MAX);
        *ret_failed = f.failed;
        return r < 0 ? r : f.error;
}
