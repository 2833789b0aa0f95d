/* SPDX-License-Identifier: MIT */
#include <dirent.h>

#include "basic/escape.h"
#include "basic/util.h"
#include "core/irq-list.h"
#include "core/topology.h"
#include "host/irq-read.h"
#include "host/root.h"

#define PROC_IRQ "proc/irq"

/* An interrupt number as the kernel names it: digits only, below 2^31. */
static bool irq_number(const char *s, unsigned *ret) {
        uint64_t v;
        if (parse_uint64(s, 10, &v) < 0 || v > INT32_MAX)
                return false;
        *ret = (unsigned) v;
        return true;
}

/* msi_irqs/: one entry per message-signalled interrupt, named by its number. Recorded one by one,
 * so that a snapshot keeps the names. */
static void read_msi(struct root *root, struct pci_device *a) {
        _cleanup_free_ char *dir = xasprintf("%s/msi_irqs", a->path);
        _cleanup_closedir_ DIR *d = NULL;
        _cleanup_free_ unsigned *irqs = NULL;
        size_t n = 0, allocated = 0;
        unsigned irq;

        if (root_opendir(root, dir, &d) < 0)
                return;
        a->irqs.known = true;
        /* In the directory's order, sorted once after: a NIC can have thousands. */
        for (struct dirent *de; (de = readdir(d));) {
                if (!irq_number(de->d_name, &irq))
                        continue;
                if (n == allocated)
                        irqs = xrealloc(irqs, (allocated = allocated ? 2 * allocated : 16) * sizeof(*irqs));
                irqs[n++] = irq;
                _cleanup_free_ char *entry = xasprintf("%s/%s", dir, de->d_name);
                root_record_file(root, entry);
        }
        device_irqs_set(&a->irqs, irqs, n);
        a->irqs.msi = a->irqs.n > 0;
}

/* irq: the legacy line, when no message-signalled interrupt is enabled; 0 means none. */
static void read_line(struct root *root, struct pci_device *a, struct warnings *w) {
        _cleanup_free_ char *p = xasprintf("%s/irq", a->path), *s = NULL;
        unsigned irq;

        if (root_read_string(root, p, &s) < 0)
                return;
        if (!irq_number(s, &irq)) {
                _cleanup_free_ char *shown = name_escape(s);
                warnings_add(w, WARNING_SYSFS_MALFORMED, NULL,
                             "/%s: malformed ('%s'): the device's interrupt is unknown", p, shown);
                return;
        }
        a->irqs.known = true;
        if (irq > 0)
                device_irqs_add(&a->irqs, irq);
}

static bool read_cpus(struct root *root, unsigned irq, const char *file, struct cpuset *ret, struct warnings *w) {
        char p[64];
        _cleanup_free_ char *s = NULL;

        snprintf(p, sizeof(p), PROC_IRQ "/%u/%s", irq, file);
        if (root_read_file(root, p, &s, NULL) < 0)
                return false;
        if (cpuset_parse_list(s, ret) >= 0)
                return true;
        _cleanup_free_ char *shown = name_escape(strip_trailing(s));
        warnings_add(w, WARNING_SYSFS_MALFORMED, NULL, "/%s: malformed ('%s'): the CPUs of IRQ %u are unknown", p,
                     shown, irq);
        return false;
}

static void read_device(struct root *root, struct pci_device *a, struct warnings *w) {
        device_irqs_done(&a->irqs);
        if (!a->path)
                return;
        read_msi(root, a);
        if (a->irqs.n == 0)
                read_line(root, a, w);
        for (size_t i = 0; i < a->irqs.n; i++) {
                struct device_irq *q = &a->irqs.v[i];
                q->has_affinity = read_cpus(root, q->irq, "smp_affinity_list", &q->affinity, w);
                q->has_effective = read_cpus(root, q->irq, "effective_affinity_list", &q->effective, w);
        }
}

void irqs_read(struct root *root, struct topology *t, struct warnings *w) {
        (void) root_keep_dir(root, PROC_IRQ); /* each interrupt's files are opened from it */
        for (size_t i = 0; i < t->n_accels; i++)
                read_device(root, &t->accels[i], w);
        for (size_t i = 0; i < t->n_nics; i++)
                read_device(root, &t->nics[i], w);
}

int irqbalance_find(struct root *root) {
        _cleanup_closedir_ DIR *d = NULL;
        char first[64] = "", p[64] = "";
        int found = 0;

        if (root_opendir(root, "proc", &d) < 0)
                return 0;
        for (struct dirent *de; found <= 0 && (de = readdir(d));) {
                unsigned pid;
                _cleanup_free_ char *comm = NULL;
                if (!irq_number(de->d_name, &pid) || pid == 0)
                        continue;
                snprintf(p, sizeof(p), "proc/%u/comm", pid);
                if (root_read_unrecorded(root, p, &comm) < 0)
                        continue; /* gone since the listing */
                if (!*first)
                        snprintf(first, sizeof(first), "%s", p);
                found = streq(comm, "irqbalance") ? (int) pid : -1;
        }
        /* A snapshot keeps what answers the question, and no other process's name. */
        if (*first)
                root_record_file(root, found > 0 ? p : first);
        return found;
}
