/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/util.h"
#include "core/irqs.h"
#include "core/topology.h"
#include "live/irq-steer.h"

void irq_changes_done(struct irq_changes *c) {
        free(c->v);
        *c = (struct irq_changes){0};
}

bool irq_changes_any(const struct irq_changes *c) {
        for (size_t i = 0; i < c->n; i++)
                if ((c->v[i].action == IRQ_STEERED || c->v[i].action == IRQ_RESTORED) &&
                    !cpuset_equal(&c->v[i].before, &c->v[i].after))
                        return true;
        return false;
}

bool irq_changes_failed(const struct irq_changes *c) {
        for (size_t i = 0; i < c->n; i++)
                if (c->v[i].action == IRQ_FAILED)
                        return true;
        return false;
}

const char *irq_action_to_string(enum irq_action a) {
        static const char *const names[] = {"unchanged", "steered", "restored", "left", "failed"};
        return names[a];
}

static char *affinity_path(const char *proc_irq, unsigned irq) {
        return xasprintf("%s/%u/smp_affinity_list", proc_irq, irq);
}

static int read_affinity(const char *path, struct cpuset *ret) {
        _cleanup_free_ char *s = NULL;
        int r = read_file(path, &s);
        return r < 0 ? r : cpuset_parse_list(s, ret);
}

/* The kernel moves the interrupt during the write: -EINVAL for a set without an online CPU,
 * -EIO for an interrupt whose affinity it manages itself (a driver's queues spread at probe). */
static int write_affinity(const char *path, const struct cpuset *cpus) {
        _cleanup_close_ int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
        if (fd < 0)
                return -errno;
        _cleanup_free_ char *list = cpuset_format(cpus), *text = xasprintf("%s\n", list);
        ssize_t n = write(fd, text, strlen(text));
        if (n != (ssize_t) strlen(text))
                return n < 0 ? -errno : -EIO;
        return 0;
}

/* Sets `path` to `cpus` unless `dry`, and reads back what the kernel took. */
static int set_affinity(const char *path, const struct cpuset *cpus, bool dry, struct irq_change *c) {
        c->after = *cpus;
        if (dry)
                return 0;
        int r = write_affinity(path, cpus);
        if (r < 0) {
                _cleanup_free_ char *list = cpuset_format(cpus);
                c->action = r == -EIO ? IRQ_LEFT : IRQ_FAILED;
                c->error = r;
                c->after = c->before;
                if (r == -EIO)
                        log_notice("IRQ %u of %s: the kernel manages its affinity itself (it spread the device's "
                                   "queues when the driver started) and refuses to move it: left as it is",
                                   c->irq, c->pci);
                else
                        log_error_errno(r, "cannot set %s to %s: %m", path, list);
                return r;
        }
        (void) read_affinity(path, &c->after);
        return 0;
}

/* An interrupt apply steers: to the target's CPUs, recording what it was set to before numaplan
 * first set it. */
static void steer_one(const char *proc_irq, const struct irq_record_entry *want, const struct irq_record *old, bool dry,
                      struct irq_change *c, struct irq_record *keep) {
        _cleanup_free_ char *path = affinity_path(proc_irq, want->irq);
        const struct irq_record_entry *rec = irq_record_find(old, want->irq);
        struct irq_record_entry *e = xmalloc0(sizeof(*e));

        *c = (struct irq_change){.irq = want->irq, .action = IRQ_UNCHANGED};
        snprintf(c->pci, sizeof(c->pci), "%s", want->pci);
        int r = read_affinity(path, &c->before);
        if (r < 0) {
                log_error_errno(r, "cannot read %s: %m", path);
                *c = (struct irq_change){.irq = want->irq, .action = IRQ_FAILED, .error = r};
                snprintf(c->pci, sizeof(c->pci), "%s", want->pci);
                if (rec)
                        irq_record_put(keep, rec);
                free(e);
                return;
        }
        c->has_before = true;
        c->after = c->before;
        *e = (struct irq_record_entry){.irq = want->irq, .before = rec ? rec->before : c->before};
        snprintf(e->pci, sizeof(e->pci), "%s", want->pci);
        if (!cpuset_equal(&c->before, &want->set)) {
                c->action = IRQ_STEERED;
                if (set_affinity(path, &want->set, dry, c) < 0 && !rec) {
                        free(e);
                        return;
                }
        }
        e->set = c->action == IRQ_FAILED || c->action == IRQ_LEFT ? rec->set : c->after;
        irq_record_put(keep, e);
        free(e);
}

/* An interrupt the record holds and apply no longer steers (or remove): back to what it was set
 * to before numaplan, unless it was changed since numaplan set it. */
static void give_back_one(const char *proc_irq, const struct irq_record_entry *rec, bool dry, struct irq_change *c,
                          struct irq_record *keep) {
        _cleanup_free_ char *path = affinity_path(proc_irq, rec->irq);

        *c = (struct irq_change){.irq = rec->irq, .action = IRQ_UNCHANGED};
        snprintf(c->pci, sizeof(c->pci), "%s", rec->pci);
        int r = read_affinity(path, &c->before);
        if (r == -ENOENT) {
                log_info("IRQ %u of %s is gone (its device was unbound, or its driver reloaded): nothing to give back",
                         rec->irq, rec->pci);
                return;
        }
        if (r < 0) {
                log_error_errno(r, "cannot read %s: %m", path);
                c->action = IRQ_FAILED;
                c->error = r;
                irq_record_put(keep, rec);
                return;
        }
        c->has_before = true;
        c->after = c->before;
        if (!cpuset_equal(&c->before, &rec->set)) {
                _cleanup_free_ char *now = cpuset_format(&c->before), *set = cpuset_format(&rec->set),
                                    *before = cpuset_format(&rec->before);
                log_warning("IRQ %u of %s is set to CPUs %s, not the %s numaplan set: changed since, so left as it is "
                            "(before numaplan: %s)",
                            rec->irq, rec->pci, now, set, before);
                c->action = IRQ_LEFT;
                return;
        }
        if (cpuset_equal(&c->before, &rec->before))
                return;
        c->action = IRQ_RESTORED;
        if (set_affinity(path, &rec->before, dry, c) < 0)
                irq_record_put(keep, rec);
}

struct want {
        unsigned irq;
        size_t target;
};

static int compare_want(const void *a, const void *b) {
        const struct want *x = a, *y = b;
        if (x->irq != y->irq)
                return x->irq < y->irq ? -1 : 1;
        return x->target < y->target ? -1 : x->target > y->target;
}

/* Every interrupt of the targets' devices, to its device's CPUs: an interrupt two devices share
 * (a legacy line) to both devices' CPUs, named by the first. Sorted first, so that the record is
 * built in order: the devices' numbers interleave. */
static void collect_wants(const struct irq_targets *t, struct irq_record *ret) {
        struct irq_record_entry *e = xmalloc0(sizeof(*e));
        size_t n = 0;

        for (size_t i = 0; t && i < t->n; i++)
                n += t->v[i].dev->irqs.n;
        _cleanup_free_ struct want *w = xmalloc0((n + 1) * sizeof(*w));
        n = 0;
        for (size_t i = 0; t && i < t->n; i++)
                for (size_t k = 0; k < t->v[i].dev->irqs.n; k++)
                        w[n++] = (struct want){t->v[i].dev->irqs.v[k].irq, i};
        if (n > 1)
                qsort(w, n, sizeof(*w), compare_want);
        *ret = (struct irq_record){0};
        for (size_t k = 0; k < n; k++) {
                const struct irq_target *target = &t->v[w[k].target];
                if (k > 0 && w[k].irq == w[k - 1].irq) {
                        cpuset_or(&ret->v[ret->n - 1].set, &target->cpus);
                        continue;
                }
                *e = (struct irq_record_entry){.irq = w[k].irq, .set = target->cpus};
                snprintf(e->pci, sizeof(e->pci), "%s", target->dev->pci);
                irq_record_put(ret, e);
        }
        free(e);
}

/* numaplan's own file, a line an interrupt: some 40 bytes each, more for CPU lists of many ranges. */
#define RECORD_SIZE_MAX (64U << 20)

static int read_record(const char *record, struct irq_record *ret, bool *ret_exists) {
        _cleanup_free_ char *text = NULL;
        unsigned line;
        int r = read_file_max(record, RECORD_SIZE_MAX, &text);

        *ret = (struct irq_record){0};
        *ret_exists = r != -ENOENT;
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return log_error_errno(r, "cannot read %s: %m", record);
        if (irq_record_parse(text, ret, &line) < 0)
                return log_error_at((struct where){record, line},
                                    "not a record of numaplan's interrupts: remove the file, and set the interrupts "
                                    "back by hand if numaplan steered them");
        return 0;
}

/* The record, replaced atomically; removed when it holds nothing. */
static int write_record(const char *record, const struct irq_record *r, bool existed) {
        _cleanup_free_ char *text = r->n ? irq_record_format(r) : NULL;

        if (r->n == 0 && !existed)
                return 0;
        int e = write_file_path(record, text, 0);
        if (e < 0)
                return log_error_errno(e, "cannot record numaplan's interrupts in %s: %m", record);
        return 0;
}

int irqs_steer(const char *proc_irq, const char *record, const struct irq_targets *want, bool dry,
               struct irq_changes *ret) {
        struct irq_record old, wants, keep = {0};
        struct irq_changes c = {0};
        bool existed;

        int r = read_record(record, &old, &existed);
        if (r < 0)
                return r;
        collect_wants(want, &wants);
        c.v = xmalloc0((wants.n + old.n + 1) * sizeof(*c.v));
        /* Both lists in number order at once, so that `keep` and the changes grow at their end. */
        for (size_t i = 0, j = 0; i < wants.n || j < old.n;) {
                if (j < old.n && i < wants.n && old.v[j].irq == wants.v[i].irq)
                        j++; /* steered again */
                else if (j == old.n || (i < wants.n && wants.v[i].irq < old.v[j].irq))
                        steer_one(proc_irq, &wants.v[i++], &old, dry, &c.v[c.n++], &keep);
                else
                        give_back_one(proc_irq, &old.v[j++], dry, &c.v[c.n++], &keep);
        }
        if (!dry)
                r = write_record(record, &keep, existed);
        irq_record_done(&old);
        irq_record_done(&wants);
        irq_record_done(&keep);
        if (r < 0) {
                irq_changes_done(&c);
                return r;
        }
        *ret = c;
        return 0;
}

const char *irqbalance_exe(void) {
        static const char *const paths[] = {"/usr/sbin/irqbalance", "/usr/bin/irqbalance", "/sbin/irqbalance"};
        for (size_t i = 0; i < ELEMENTSOF(paths); i++)
                if (access(paths[i], X_OK) == 0)
                        return paths[i];
        return paths[0];
}
