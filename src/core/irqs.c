/* SPDX-License-Identifier: MIT */
#include <errno.h>

#include "basic/util.h"
#include "core/irq-list.h"
#include "core/irqs.h"
#include "core/placement.h"
#include "core/topology.h"
#include "core/warnings.h"

bool replica_uses_nic(const struct placement *pl, size_t nic) {
        for (size_t i = 0; i < pl->n_nics; i++)
                if (pl->nics[i].nic == nic)
                        return true;
        return false;
}

/* Adds a replica's CPUs, and its name, to a device's target. */
static void serve(struct cpuset *cpus, struct strbuf *names, const struct placement *pl) {
        cpuset_or(cpus, &pl->cpus);
        strbuf_printf(names, "%s%s", names->len ? ", " : "", pl->name);
}

void irq_targets_for_plan(const struct topology *t, const struct plan *p, struct irq_targets *ret) {
        size_t n = t->n_accels + t->n_nics;
        *ret = (struct irq_targets){0};
        bool any = false;
        for (size_t i = 0; i < p->n_replicas; i++)
                any = any || p->replicas[i].irq_affinity;
        if (!any || n == 0)
                return;
        struct cpuset *cpus = xmalloc0(n * sizeof(*cpus));
        struct strbuf *names = xmalloc0(n * sizeof(*names));
        for (size_t i = 0; i < p->n_replicas; i++) {
                const struct placement *pl = &p->replicas[i];
                if (!pl->irq_affinity)
                        continue;
                for (size_t j = 0; j < pl->n_accels; j++)
                        serve(&cpus[pl->accels[j]], &names[pl->accels[j]], pl);
                for (size_t j = 0; j < t->n_nics; j++)
                        if (replica_uses_nic(pl, j))
                                serve(&cpus[t->n_accels + j], &names[t->n_accels + j], pl);
        }
        ret->v = xmalloc0((n + 1) * sizeof(*ret->v));
        for (size_t k = 0; k < n; k++) {
                const struct pci_device *dev = k < t->n_accels ? &t->accels[k] : &t->nics[k - t->n_accels];
                /* A legacy line may be shared with other devices: not the device's alone to move. */
                if (!names[k].len || !dev->irqs.msi) {
                        strbuf_done(&names[k]);
                        continue;
                }
                ret->v[ret->n++] = (struct irq_target){
                        .dev = dev,
                        .cpus = cpus[k],
                        .replicas = strbuf_steal(&names[k]),
                };
        }
        free(cpus);
        free(names);
}

void irq_targets_done(struct irq_targets *t) {
        for (size_t i = 0; i < t->n; i++)
                free(t->v[i].replicas);
        free(t->v);
        *t = (struct irq_targets){0};
}

const struct irq_target *irq_target_of(const struct irq_targets *t, const struct pci_device *dev) {
        for (size_t i = 0; t && i < t->n; i++)
                if (t->v[i].dev == dev)
                        return &t->v[i];
        return NULL;
}

bool irq_targets_any(const struct irq_targets *t) {
        for (size_t i = 0; i < t->n; i++)
                if (t->v[i].dev->irqs.n)
                        return true;
        return false;
}

/* "IRQ 45 set to 0-7 (served by 3)" for up to four of the remote ones. */
static void remote_warning(const struct pci_device *a, const struct node *n, struct warnings *w) {
        struct strbuf b = {0};
        unsigned shown = 0, remote = 0;
        for (size_t i = 0; i < a->irqs.n; i++) {
                const struct device_irq *q = &a->irqs.v[i];
                if (!device_irq_remote(q, &n->cpus) || remote++ >= 4)
                        continue;
                _cleanup_free_ char *set = cpuset_format(&q->affinity), *eff = cpuset_format(&q->effective);
                strbuf_printf(&b, "%sIRQ %u set to %s (served by %s)", shown++ ? ", " : "", q->irq, set,
                              q->has_effective && *eff ? eff : "unknown CPUs");
        }
        if (remote > shown)
                strbuf_printf(&b, " and %u more", remote - shown);
        _cleanup_free_ char *cpus = cpuset_format(&n->cpus),
                            *which = remote == a->irqs.n ? xasprintf("the interrupt%s of", remote > 1 ? "s" : "")
                                                         : xasprintf("%u of the %zu interrupts of", remote, a->irqs.n);
        warnings_add(
                w, WARNING_IRQ_REMOTE, a->pci,
                "%s %s (node %d, CPUs %s) %s set to other nodes' CPUs only: %s; each is handled "
                "across the interconnect, away from the device and the replica that waits for it: irq-affinity = yes "
                "has numaplan apply steer %s to the replica's CPUs",
                which, a->pci, a->numa_node, cpus, remote > 1 ? "are" : "is", b.s, remote > 1 ? "them" : "it");
        strbuf_done(&b);
}

void irq_warnings(const struct topology *t, struct warnings *w) {
        const struct pci_device *lists[] = {t->accels, t->nics};
        size_t ns[] = {t->n_accels, t->n_nics};
        for (size_t l = 0; l < ELEMENTSOF(lists); l++)
                for (size_t i = 0; i < ns[l]; i++) {
                        const struct pci_device *a = &lists[l][i];
                        const struct node *n = a->numa_node >= 0 ? topology_node(t, a->numa_node) : NULL;
                        if (n && !cpuset_is_empty(&n->cpus) && device_irqs_remote(&a->irqs, &n->cpus))
                                remote_warning(a, n, w);
                }
}

void irq_record_done(struct irq_record *r) {
        free(r->v);
        *r = (struct irq_record){0};
}

/* The index of the entry of `irq`, or of the first after it: by halves, a record may hold thousands. */
static size_t record_index(const struct irq_record *r, unsigned irq) {
        size_t lo = 0, hi = r->n;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (r->v[mid].irq < irq)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo;
}

const struct irq_record_entry *irq_record_find(const struct irq_record *r, unsigned irq) {
        size_t i = record_index(r, irq);
        return i < r->n && r->v[i].irq == irq ? &r->v[i] : NULL;
}

void irq_record_put(struct irq_record *r, const struct irq_record_entry *e) {
        size_t i = record_index(r, e->irq);
        if (i < r->n && r->v[i].irq == e->irq) {
                r->v[i] = *e;
                return;
        }
        if (r->n == r->allocated)
                r->v = xrealloc(r->v, (r->allocated = r->allocated ? 2 * r->allocated : 16) * sizeof(*r->v));
        memmove(&r->v[i + 1], &r->v[i], (r->n - i) * sizeof(*r->v));
        r->v[i] = *e;
        r->n++;
}

static int parse_cpus(const char *s, struct cpuset *ret) {
        if (streq(s, "-")) {
                cpuset_clear(ret);
                return 0;
        }
        return cpuset_parse_list(s, ret);
}

/* One "IRQ PCI BEFORE SET" line. */
static int parse_entry(char *l, struct irq_record_entry *e) {
        char *w[5] = {0}, *save = NULL;
        size_t n = 0;
        uint64_t irq;
        struct pci_address a;
        for (char *t = strtok_r(l, " ", &save); t; t = strtok_r(NULL, " ", &save), n++)
                if (n < ELEMENTSOF(w))
                        w[n] = t;
        if (n != 4 || parse_uint64(w[0], 10, &irq) < 0 || irq > UINT32_MAX || pci_address_parse(w[1], false, &a) < 0 ||
            parse_cpus(w[2], &e->before) < 0 || parse_cpus(w[3], &e->set) < 0)
                return -EINVAL;
        e->irq = (unsigned) irq;
        pci_address_format(&a, e->pci);
        return 0;
}

int irq_record_parse(const char *text, struct irq_record *ret, unsigned *ret_line) {
        struct irq_record r = {0};
        unsigned line = 0;
        /* Each entry holds two CPU sets: one on the heap, not a 2 KiB local per line. */
        struct irq_record_entry *e = xmalloc0(sizeof(*e));

        for (const char *s = text; *s;) {
                const char *eol = strchrnul(s, '\n');
                _cleanup_free_ char *l = xstrndup(s, (size_t) (eol - s));
                line++;
                s = *eol ? eol + 1 : eol;
                if (!*l || *l == '#')
                        continue;
                if (parse_entry(l, e) < 0) {
                        free(e);
                        irq_record_done(&r);
                        *ret_line = line;
                        return -EINVAL;
                }
                irq_record_put(&r, e);
        }
        free(e);
        *ret = r;
        return 0;
}

char *irq_record_format(const struct irq_record *r) {
        struct strbuf b = {0};
        strbuf_append(&b, "# numaplan's interrupts: IRQ PCI BEFORE SET (the CPUs it was set to before numaplan, "
                          "those numaplan set)\n");
        for (size_t i = 0; i < r->n; i++) {
                _cleanup_free_ char *before = cpuset_format(&r->v[i].before), *set = cpuset_format(&r->v[i].set);
                strbuf_printf(&b, "%u %s %s %s\n", r->v[i].irq, r->v[i].pci, *before ? before : "-", *set ? set : "-");
        }
        return strbuf_steal(&b);
}
