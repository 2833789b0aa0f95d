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
        struct file_mappers *m;
        pid_t pid;
        bool hit;
};

static void scan_mapping(const struct maps_entry *e, void *userdata) {
        struct scan *s = userdata;
        const struct file_id *f = bsearch(&e->id, s->m->ids, s->m->n_ids, sizeof(*f), file_id_compare);
        if (!f)
                return;
        struct pid_list *l = &s->m->mappers[f - s->m->ids];
        /* A file's mappings of one process come together or not: only the last entry can repeat. */
        if (l->n && l->v[l->n - 1] == s->pid)
                return;
        for (size_t i = 0; i < l->n; i++)
                if (l->v[i] == s->pid)
                        return;
        l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
        l->v[l->n++] = s->pid;
        s->hit = true;
}

int file_mappers_scan(struct root *root, const struct file_id *ids, size_t n, struct file_mappers *ret) {
        struct file_mappers m = {0};
        DIR *d;

        if (n) {
                m.ids = xmalloc0(n * sizeof(*m.ids));
                memcpy(m.ids, ids, n * sizeof(*ids));
                qsort(m.ids, n, sizeof(*m.ids), file_id_compare);
                for (size_t i = 0; i < n; i++)
                        if (m.n_ids == 0 || !file_id_eq(m.ids[m.n_ids - 1], m.ids[i]))
                                m.ids[m.n_ids++] = m.ids[i];
                m.mappers = xmalloc0(m.n_ids * sizeof(*m.mappers));
        }
        int r = root_opendir(root, "proc", &d);
        if (r < 0) {
                file_mappers_done(&m);
                return r;
        }
        pid_t self = root_is_live(root) ? getpid() : 0;
        struct dirent *de;
        while (m.n_ids && (de = readdir(d))) {
                if (!isdigit((unsigned char) de->d_name[0]))
                        continue;
                pid_t pid = (pid_t) atoi(de->d_name);
                if (pid == self)
                        continue;
                _cleanup_free_ char *path = xasprintf("proc/%d/maps", (int) pid), *text = NULL;
                if (root_read_file(root, path, &text, NULL) < 0)
                        continue; /* gone, or a kernel thread we may not read */
                m.processes++;
                struct scan s = {.m = &m, .pid = pid};
                (void) maps_each_file(text, scan_mapping, &s);
                if (!s.hit)
                        continue;
                _cleanup_free_ char *cgroup = NULL;
                m.units = xrealloc(m.units, (m.n_units + 1) * sizeof(*m.units));
                m.units[m.n_units++] = (struct pid_unit){
                        .pid = pid,
                        .unit = cgroup_of_process(root, pid, &cgroup) >= 0 ? cgroup_unit(cgroup) : NULL,
                };
        }
        closedir(d);
        if (m.n_units)
                qsort(m.units, m.n_units, sizeof(*m.units), pid_compare);
        for (size_t i = 0; i < m.n_ids; i++)
                if (m.mappers[i].n)
                        qsort(m.mappers[i].v, m.mappers[i].n, sizeof(pid_t), pid_compare);
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

int replica_pages_split(struct root *root, struct replica_pages *v, size_t n) {
        struct file_id *ids = NULL;
        size_t n_ids = 0;

        for (size_t i = 0; i < n; i++)
                for (size_t k = 0; k < v[i].pages->n_files; k++)
                        if (v[i].pages->files[k].id.ino) {
                                ids = xrealloc(ids, (n_ids + 1) * sizeof(*ids));
                                ids[n_ids++] = v[i].pages->files[k].id;
                        }
        struct file_mappers m = {0};
        int r = file_mappers_scan(root, ids, n_ids, &m);
        free(ids);
        for (size_t i = 0; i < n; i++) {
                struct page_tally *t = v[i].pages;
                _cleanup_free_ pid_t *own = xmalloc0((v[i].n_processes + 1) * sizeof(pid_t));
                for (size_t k = 0; k < v[i].n_processes; k++)
                        own[k] = v[i].processes[k].pid;
                if (v[i].n_processes)
                        qsort(own, v[i].n_processes, sizeof(pid_t), pid_compare);
                char ***mapped_by = xmalloc0((t->n_files + 1) * sizeof(*mapped_by));
                for (size_t k = 0; r >= 0 && k < t->n_files; k++)
                        mapped_by[k] = file_mappers_units(&m, t->files[k].id, own, v[i].n_processes);
                _cleanup_strv_free_ char **models = model_paths(root, v[i].models);
                page_tally_split(t, mapped_by, models);
                free(mapped_by);
        }
        unsigned scanned = m.processes;
        file_mappers_done(&m);
        return r < 0 ? r : (int) scanned;
}
