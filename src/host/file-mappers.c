/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <dirent.h>
#include <unistd.h>

#include "basic/util.h"
#include "core/numa-maps.h"
#include "core/observed.h"
#include "core/unit-name.h"
#include "host/cgroup.h"
#include "host/file-mappers.h"
#include "host/root.h"

static int pid_compare(const void *a, const void *b) {
        pid_t x = *(const pid_t *) a, y = *(const pid_t *) b;
        return x < y ? -1 : x > y;
}

struct scan {
        const struct file_mappers *m;
        size_t *hits; /* indices into m->ids of the files this process maps, each once */
        size_t n_hits;
        size_t lines;
};

static void scan_mapping(const struct maps_entry *e, void *userdata) {
        struct scan *s = userdata;
        const struct file_id *f = bsearch(&e->id, s->m->ids, s->m->n_ids, sizeof(*f), file_id_compare);
        if (!f)
                return;
        size_t i = (size_t) (f - s->m->ids);
        /* A file's mappings of one process come together or not: only the last hit can repeat. */
        if (s->n_hits && s->hits[s->n_hits - 1] == i)
                return;
        for (size_t k = 0; k < s->n_hits; k++)
                if (s->hits[k] == i)
                        return;
        s->hits = xrealloc(s->hits, (s->n_hits + 1) * sizeof(*s->hits));
        s->hits[s->n_hits++] = i;
}

static int scan_line(const char *line, const char *eol, void *userdata) {
        struct scan *s = userdata;
        struct maps_entry e;
        s->lines++;
        if (eol > line && maps_parse_line(line, eol, &e) < 0)
                return -EINVAL;
        if (eol > line && e.id.ino != 0)
                scan_mapping(&e, s);
        return 0;
}

/* Reads one process's maps, a piece at a time (whatever its size), and records it as a mapper of
 * each file asked about that it maps, and its unit. With `wanted` (by index into m->ids), a process
 * none of whose files is wanted is not recorded, nor its unit read. Returns whether it was
 * recorded; -errno when its maps cannot be read (gone, or a kernel thread we may not read). */
static int scan_process(struct root *root, struct file_mappers *m, pid_t pid, const bool *wanted) {
        _cleanup_free_ char *path = xasprintf("proc/%d/maps", (int) pid);
        struct scan s = {.m = m};
        int r = root_read_lines(root, path, scan_line, &s);
        if (r < 0 && s.lines == 0) {
                free(s.hits);
                return r;
        }
        m->processes++; /* one that broke off counts with the files found up to there */
        bool want = s.n_hits > 0 && !wanted;
        for (size_t k = 0; wanted && !want && k < s.n_hits; k++)
                want = wanted[s.hits[k]];
        if (!want) {
                free(s.hits);
                return 0;
        }
        for (size_t k = 0; k < s.n_hits; k++) {
                struct pid_list *l = &m->mappers[s.hits[k]];
                l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
                l->v[l->n++] = pid;
        }
        free(s.hits);
        _cleanup_free_ char *cgroup = NULL;
        m->units = xrealloc(m->units, (m->n_units + 1) * sizeof(*m->units));
        m->units[m->n_units++] = (struct pid_unit){
                .pid = pid,
                .unit = cgroup_of_process(root, pid, &cgroup) >= 0 ? cgroup_unit(cgroup) : NULL,
        };
        return 1;
}

static void file_mappers_init(const struct file_id *ids, size_t n, struct file_mappers *ret) {
        struct file_mappers m = {0};

        if (n) {
                m.ids = xmalloc0(n * sizeof(*m.ids));
                memcpy(m.ids, ids, n * sizeof(*ids));
                qsort(m.ids, n, sizeof(*m.ids), file_id_compare);
                for (size_t i = 0; i < n; i++)
                        if (m.n_ids == 0 || !file_id_eq(m.ids[m.n_ids - 1], m.ids[i]))
                                m.ids[m.n_ids++] = m.ids[i];
                m.mappers = xmalloc0(m.n_ids * sizeof(*m.mappers));
        }
        *ret = m;
}

/* Each list in pid order, for the lookups of file_mappers_units(). */
static void file_mappers_sort(struct file_mappers *m) {
        if (m->n_units)
                qsort(m->units, m->n_units, sizeof(*m->units), pid_compare);
        for (size_t i = 0; i < m->n_ids; i++)
                if (m->mappers[i].n)
                        qsort(m->mappers[i].v, m->mappers[i].n, sizeof(pid_t), pid_compare);
}

/* Which of the host's processes scan_host() reads, and until when; all zero: every one, to the end. */
struct host_scan {
        const pid_t *skip; /* already read, ascending */
        size_t n_skip;
        const bool *wanted; /* by index into m->ids, as scan_process() takes it */
        bool (*more)(const struct file_mappers *m, void *userdata); /* NULL: to the end */
        void *userdata;
};

/* Every process listed in `d` (/proc) but numaplan itself and those `hs` skips, its maps read by
 * scan_process(), until `hs` says there is nothing left to find. */
static void scan_host(struct root *root, DIR *d, struct file_mappers *m, const struct host_scan *hs) {
        pid_t self = root_is_live(root) ? getpid() : 0;
        struct dirent *de;

        while (m->n_ids && (!hs->more || hs->more(m, hs->userdata)) && (de = readdir(d))) {
                if (!isdigit((unsigned char) de->d_name[0]))
                        continue;
                pid_t pid = (pid_t) atoi(de->d_name);
                if (pid == self || (hs->n_skip && bsearch(&pid, hs->skip, hs->n_skip, sizeof(pid_t), pid_compare)))
                        continue;
                (void) scan_process(root, m, pid, hs->wanted);
        }
}

int file_mappers_scan(struct root *root, const struct file_id *ids, size_t n, struct file_mappers *ret) {
        struct file_mappers m;
        _cleanup_closedir_ DIR *d = NULL;

        file_mappers_init(ids, n, &m);
        int r = root_opendir(root, "proc", &d);
        if (r < 0) {
                file_mappers_done(&m);
                return r;
        }
        scan_host(root, d, &m, &(const struct host_scan){0});
        file_mappers_sort(&m);
        *ret = m;
        return 0;
}

void file_mappers_done(struct file_mappers *m) {
        for (size_t i = 0; i < m->n_ids; i++)
                free(m->mappers[i].v);
        for (size_t i = 0; i < m->n_units; i++)
                free(m->units[i].unit);
        free(m->ids);
        free(m->mappers);
        free(m->units);
        *m = (struct file_mappers){0};
}

char **file_mappers_units(const struct file_mappers *m, struct file_id id, const pid_t *exclude, size_t n_exclude) {
        const struct file_id *f = m->n_ids ? bsearch(&id, m->ids, m->n_ids, sizeof(id), file_id_compare) : NULL;
        char **units = NULL;
        size_t n = 0;

        if (!f || id.ino == 0)
                return NULL;
        const struct pid_list *l = &m->mappers[f - m->ids];
        for (size_t i = 0; i < l->n; i++) {
                if (n_exclude && bsearch(&l->v[i], exclude, n_exclude, sizeof(pid_t), pid_compare))
                        continue;
                const struct pid_unit *u = bsearch(&l->v[i], m->units, m->n_units, sizeof(*u), pid_compare);
                const char *name = u && u->unit ? u->unit : "-";
                if (units && strv_contains(units, name))
                        continue;
                units = xrealloc(units, (n + 2) * sizeof(*units));
                units[n++] = xstrdup(name);
                units[n] = NULL;
        }
        if (units)
                strv_sort(units, n);
        return units;
}

/* The model's paths as configured, and where they lead on the live host: the kernel names a
 * mapped file by its real path. */
static char **model_paths(struct root *root, char *const *models) {
        char **v = NULL;
        size_t n = 0;
        for (size_t i = 0; models && models[i]; i++) {
                v = xrealloc(v, (n + 3) * sizeof(*v));
                v[n++] = xstrdup(models[i]);
                char *real = root_is_live(root) ? realpath(models[i], NULL) : NULL;
                if (real && !streq(real, models[i]))
                        v[n++] = real;
                else
                        free(real);
                v[n] = NULL;
        }
        return v;
}

static pid_t *own_pids(const struct replica_pages *r) {
        pid_t *own = xmalloc0((r->n_processes + 1) * sizeof(pid_t));
        for (size_t k = 0; k < r->n_processes; k++)
                own[k] = r->processes[k].pid;
        if (r->n_processes)
                qsort(own, r->n_processes, sizeof(pid_t), pid_compare);
        return own;
}

/* Each replica's files, once each, for file_mappers_init(). */
static struct file_id *replica_files(const struct replica_pages *v, size_t n, size_t *ret_n) {
        struct file_id *ids = NULL;
        size_t n_ids = 0;

        for (size_t i = 0; i < n; i++)
                for (size_t k = 0; k < v[i].pages->n_files; k++)
                        if (v[i].pages->files[k].id.ino) {
                                ids = xrealloc(ids, (n_ids + 1) * sizeof(*ids));
                                ids[n_ids++] = v[i].pages->files[k].id;
                        }
        *ret_n = n_ids;
        return ids;
}

/* What the lazy split still has to find out. open[i]: file i of m->ids is program code of a
 * replica that no process outside the replica has been seen to map (whether it is shared);
 * every[i]: what every process maps of file i counts (a file off the plan when other replicas may
 * be elsewhere on the host). base[i]: file i's mappers among the replicas' own processes. */
struct questions {
        bool *open, *every;
        size_t *base;
};

static bool questions_left(const struct file_mappers *m, void *userdata) {
        struct questions *q = userdata;
        bool left = false;

        for (size_t i = 0; i < m->n_ids; i++) {
                /* A mapper beyond the replicas' own is outside every replica: the file is shared. */
                if (q->open[i] && !q->every[i] && m->mappers[i].n > q->base[i])
                        q->open[i] = false;
                left = left || q->open[i];
        }
        return left;
}

static bool mapped_outside(const struct file_mappers *m, size_t i, const pid_t *own, size_t n_own) {
        for (size_t k = 0; k < m->mappers[i].n; k++)
                if (!n_own || !bsearch(&m->mappers[i].v[k], own, n_own, sizeof(pid_t), pid_compare))
                        return true;
        return false;
}

/* The replicas' own processes' maps, then the host's other processes only while a question of
 * the split is open (struct questions). */
static int scan_lazily(struct root *root, struct replica_pages *v, size_t n, bool every_replica,
                       struct file_mappers *m) {
        size_t n_ids, n_pids = 0;
        _cleanup_free_ struct file_id *ids = replica_files(v, n, &n_ids);
        _cleanup_closedir_ DIR *d = NULL;

        file_mappers_init(ids, n_ids, m);
        /* Listed first, as the whole scan would: without /proc, no process is known to map anything. */
        int r = root_opendir(root, "proc", &d);
        if (r < 0)
                return r;
        size_t all = 0;
        for (size_t i = 0; i < n; i++)
                all += v[i].n_processes;
        _cleanup_free_ pid_t *pids = xmalloc0((all + 1) * sizeof(pid_t));
        for (size_t i = 0; i < n; i++)
                for (size_t k = 0; k < v[i].n_processes; k++)
                        pids[n_pids++] = v[i].processes[k].pid;
        if (n_pids)
                qsort(pids, n_pids, sizeof(pid_t), pid_compare);
        size_t unique = 0;
        pid_t self = root_is_live(root) ? getpid() : 0;
        for (size_t k = 0; k < n_pids; k++)
                if (unique == 0 || pids[unique - 1] != pids[k])
                        pids[unique++] = pids[k];
        for (size_t k = 0; k < unique; k++)
                if (pids[k] != self)
                        (void) scan_process(root, m, pids[k], NULL);

        struct questions q = {
                .open = xmalloc0((m->n_ids + 1) * sizeof(bool)),
                .every = xmalloc0((m->n_ids + 1) * sizeof(bool)),
                .base = xmalloc0((m->n_ids + 1) * sizeof(size_t)),
        };
        bool any = false;
        for (size_t i = 0; i < m->n_ids; i++)
                q.base[i] = m->mappers[i].n;
        for (size_t i = 0; i < n; i++) {
                struct page_tally *t = v[i].pages;
                _cleanup_free_ pid_t *own = own_pids(&v[i]);
                _cleanup_strv_free_ char **models = model_paths(root, v[i].models);
                page_tally_split(t, NULL, models); /* which files are the model */
                for (size_t k = 0; k < t->n_files; k++) {
                        const struct file_pages *f = &t->files[k];
                        const struct file_id *id =
                                f->id.ino ? bsearch(&f->id, m->ids, m->n_ids, sizeof(*id), file_id_compare) : NULL;
                        if (!id)
                                continue;
                        size_t x = (size_t) (id - m->ids);
                        if (f->exec && !f->model) {
                                if (!mapped_outside(m, x, own, v[i].n_processes))
                                        q.open[x] = any = true;
                        } else if (!every_replica && f->off_plan)
                                q.open[x] = q.every[x] = any = true;
                }
        }
        if (any) {
                struct host_scan hs = {
                        .skip = pids, .n_skip = unique, .wanted = q.open, .more = questions_left, .userdata = &q};
                scan_host(root, d, m, &hs);
        }
        free(q.open);
        free(q.every);
        free(q.base);
        return 0;
}

/* The split of each replica's pages, from `m` (r < 0: nothing known, every page its own). */
static void split(struct root *root, struct replica_pages *v, size_t n, const struct file_mappers *m, int r) {
        for (size_t i = 0; i < n; i++) {
                struct page_tally *t = v[i].pages;
                _cleanup_free_ pid_t *own = own_pids(&v[i]);
                char ***mapped_by = xmalloc0((t->n_files + 1) * sizeof(*mapped_by));
                for (size_t k = 0; r >= 0 && k < t->n_files; k++)
                        mapped_by[k] = file_mappers_units(m, t->files[k].id, own, v[i].n_processes);
                _cleanup_strv_free_ char **models = model_paths(root, v[i].models);
                page_tally_split(t, mapped_by, models);
                free(mapped_by);
        }
}

int replica_pages_split(struct root *root, struct replica_pages *v, size_t n) {
        size_t n_ids;
        _cleanup_free_ struct file_id *ids = replica_files(v, n, &n_ids);
        struct file_mappers m = {0};

        int r = file_mappers_scan(root, ids, n_ids, &m);
        split(root, v, n, &m, r);
        unsigned scanned = m.processes;
        file_mappers_done(&m);
        return r < 0 ? r : (int) scanned;
}

int replica_pages_split_lazily(struct root *root, struct replica_pages *v, size_t n, bool every_replica) {
        struct file_mappers m = {0};

        int r = scan_lazily(root, v, n, every_replica, &m);
        file_mappers_sort(&m);
        split(root, v, n, &m, r);
        unsigned scanned = m.processes;
        file_mappers_done(&m);
        return r < 0 ? r : (int) scanned;
}
