/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <string.h>

#include "basic/util.h"
#include "core/proc-maps.h"
#include "host/rank-read.h"
#include "host/root.h"
#include "host/tasks.h"

/* What the device files resolve to, looked up once a run. */
struct resolver {
        struct root *root;
        bool nvidia_read;
        unsigned *minors; /* NVIDIA's: minor i is function pcis[i] */
        char (*pcis)[PCI_ADDRESS_MAX];
        size_t n;
};

static void resolver_done(struct resolver *r) {
        free(r->minors);
        free(r->pcis);
}

/* The driver's minor numbers of its GPUs, by function. */
static void read_nvidia(struct resolver *r) {
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;

        r->nvidia_read = true;
        if (root_opendir(r->root, "proc/driver/nvidia/gpus", &d) < 0)
                return;
        while ((de = readdir(d))) {
                struct pci_address a;
                unsigned minor;
                _cleanup_free_ char *text = NULL,
                                    *path = xasprintf("proc/driver/nvidia/gpus/%s/information", de->d_name);
                if (pci_address_parse(de->d_name, false, &a) < 0 || root_read_file(r->root, path, &text, NULL) < 0 ||
                    nvidia_device_minor(text, &minor) < 0)
                        continue;
                r->minors = xrealloc(r->minors, (r->n + 1) * sizeof(*r->minors));
                r->pcis = xrealloc(r->pcis, (r->n + 1) * sizeof(*r->pcis));
                r->minors[r->n] = minor;
                pci_address_format(&a, r->pcis[r->n++]);
        }
}

/* The function a sysfs class entry's `device` link names. */
static bool class_device(struct resolver *r, const char *class, const char *name, char pci[PCI_ADDRESS_MAX]) {
        _cleanup_free_ char *path = xasprintf("sys/class/%s/%s/device", class, name), *link = NULL;
        struct pci_address a;
        if (root_lstat(r->root, path, NULL, &link) < 0 || !link)
                return false;
        const char *base = strrchr(link, '/');
        if (pci_address_parse(base ? base + 1 : link, false, &a) < 0)
                return false;
        pci_address_format(&a, pci);
        return true;
}

/* The PCI function a mapped device file is; false for one not known. */
static bool resolve(struct resolver *r, const struct device_path *dp, char pci[PCI_ADDRESS_MAX]) {
        switch (dp->kind) {
        case DEVICE_MAP_NVIDIA:
                if (!r->nvidia_read)
                        read_nvidia(r);
                for (size_t i = 0; i < r->n; i++)
                        if (r->minors[i] == dp->number) {
                                memcpy(pci, r->pcis[i], PCI_ADDRESS_MAX);
                                return true;
                        }
                return false;
        case DEVICE_MAP_DRM:
                return class_device(r, "drm", dp->name, pci);
        case DEVICE_MAP_ACCEL:
                return class_device(r, "accel", dp->name, pci);
        case DEVICE_MAP_BAR:
                memcpy(pci, dp->pci, PCI_ADDRESS_MAX);
                return true;
        case DEVICE_MAP_NONE:
                break;
        }
        return false;
}

/* One process's maps: the bytes it maps of each rank's device. */
struct mapped {
        struct resolver *r;
        const struct topology *t;
        const struct placement *pl;
        uint64_t *bytes; /* by rank */
};

static int maps_line(const char *line, const char *eol, void *userdata) {
        struct mapped *m = userdata;
        const char *path = maps_line_path(line, eol);
        struct device_path dp;
        struct maps_entry e;
        char pci[PCI_ADDRESS_MAX];

        if (!path || device_path_parse(path, &dp) == DEVICE_MAP_NONE || maps_parse_line(line, eol, &e) < 0 ||
            !resolve(m->r, &dp, pci))
                return 0;
        for (size_t k = 0; k < m->pl->n_ranks; k++)
                if (streq(m->t->accels[m->pl->ranks[k].accel].pci, pci))
                        m->bytes[k] += e.end > e.start ? e.end - e.start : 1;
        return 0;
}

/* The rank a process drives, -1 for none; -2 for several alike. */
static int process_rank(struct resolver *r, const struct topology *t, const struct placement *pl, pid_t pid) {
        _cleanup_free_ char *path = xasprintf("proc/%d/maps", (int) pid);
        _cleanup_free_ uint64_t *bytes = xmalloc0((pl->n_ranks + 1) * sizeof(uint64_t));
        struct mapped m = {.r = r, .t = t, .pl = pl, .bytes = bytes};
        size_t any = 0;

        if (root_read_lines(r->root, path, maps_line, &m) < 0)
                return -1; /* gone, or unreadable: memory-locality says so */
        for (size_t k = 0; k < pl->n_ranks; k++)
                any += bytes[k] > 0;
        int k = rank_driven(bytes, pl->n_ranks);
        return k < 0 && any ? -2 : k;
}

static void add_several(struct rank_facts *f, const struct process *p) {
        size_t n = strv_length(f->several);
        f->several = xrealloc(f->several, (n + 2) * sizeof(char *));
        f->several[n] = xasprintf("pid %d (%s)", (int) p->pid, p->comm);
        f->several[n + 1] = NULL;
}

void rank_processes(struct root *root, const struct topology *t, const struct placement *pl,
                    const struct task_facts *tf, uint64_t base_kb, struct rank_facts *ret) {
        struct resolver r = {.root = root};

        *ret = (struct rank_facts){.looked = true};
        for (size_t i = 0; pl->n_ranks && i < tf->n_processes; i++) {
                const struct process *p = &tf->processes[i];
                int k = process_rank(&r, t, pl, p->pid);
                if (k == -2)
                        add_several(ret, p);
                if (k < 0)
                        continue;
                struct cpuset node = {0};
                if (pl->ranks[k].node >= 0)
                        cpuset_set(&node, (unsigned) pl->ranks[k].node);
                struct page_tally *pages = xmalloc0(sizeof(*pages));
                page_tally_init(pages, base_kb);
                if (process_pages(root, p->pid, &node, pages) == -ENOENT) {
                        page_tally_done(pages);
                        free(pages);
                        continue;
                }
                ret->v = xrealloc(ret->v, (ret->n + 1) * sizeof(*ret->v));
                ret->v[ret->n] = (struct rank_process){
                        .pid = p->pid, .rank = (size_t) k, .node = pl->ranks[k].node, .pages = pages};
                memcpy(ret->v[ret->n].pci, t->accels[pl->ranks[k].accel].pci, PCI_ADDRESS_MAX);
                snprintf(ret->v[ret->n++].comm, sizeof(ret->v[0].comm), "%s", p->comm);
        }
        resolver_done(&r);
}
