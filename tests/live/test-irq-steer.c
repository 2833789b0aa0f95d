/* SPDX-License-Identifier: MIT */
/* Interrupts on copies of the kernel's files: a device's read from msi_irqs/ or irq and
 * /proc/irq/N under a root; steering them and giving them back on a copy of /proc/irq, with the
 * record of what they were before (the real /proc/irq is the guest's to show); and whether
 * irqbalance runs. */

#include <sys/stat.h>

#include "basic/log.h"
#include "basic/util.h"
#include "core/irq-list.h"
#include "core/irqs.h"
#include "core/topology.h"
#include "host/irq-read.h"
#include "live/irq-steer.h"
#include "host/root.h"
#include "tap.h"
#include "tmproot.h"

#define DEV "sys/bus/pci/devices/0000:42:00.0"

static char *affinity_of(const char *d, unsigned irq) {
        _cleanup_free_ char *p = xasprintf("%s/irq/%u/smp_affinity_list", d, irq);
        char *s = read_whole(p);
        return s ? s : xstrdup("(none)");
}

static const struct irq_change *change_of(const struct irq_changes *c, unsigned irq) {
        for (size_t i = 0; i < c->n; i++)
                if (c->v[i].irq == irq)
                        return &c->v[i];
        return NULL;
}

static enum irq_action action_of(const struct irq_changes *c, unsigned irq) {
        const struct irq_change *q = change_of(c, irq);
        return q ? q->action : (enum irq_action) - 1;
}

static void reading(void) {
        _cleanup_tmpdir_ char *d = make_tmpdir();
        struct root *root;
        struct warnings w = {0};
        struct topology t = {0};
        struct pci_device devs[2] = {{.kind = PCI_NIC, .path = xstrdup(DEV)},
                                     {.kind = PCI_NIC, .path = xstrdup("sys/bus/pci/devices/0000:22:00.0")}};

        write_file(d, DEV "/msi_irqs/47", "msix\n");
        write_file(d, DEV "/msi_irqs/45", "msix\n");
        write_file(d, DEV "/irq", "11\n");
        write_file(d, "proc/irq/45/smp_affinity_list", "0-3\n");
        write_file(d, "proc/irq/45/effective_affinity_list", "1\n");
        write_file(d, "proc/irq/47/smp_affinity_list", "two\n");
        write_file(d, "sys/bus/pci/devices/0000:22:00.0/irq", "0\n");
        t.nics = devs;
        t.n_nics = 2;
        if (root_open(d, 0, &root) < 0) {
                printf("Bail out! cannot open %s\n", d);
                exit(1);
        }
        irqs_read(root, &t, &w);
        const struct device_irqs *q = &devs[0].irqs;
        ok(q->known && q->msi && q->n == 2 && q->v[0].irq == 45 && q->v[1].irq == 47,
           "msi_irqs/ names the device's interrupts, by number; irq (the legacy line) is not taken beside them");
        ok(q->n == 2 && q->v[0].has_affinity && cpuset_count(&q->v[0].affinity) == 4 && q->v[0].has_effective &&
                   cpuset_isset(&q->v[0].effective, 1),
           "each with the CPUs it is set to and those that served it");
        ok(q->n == 2 && !q->v[1].has_affinity && !q->v[1].has_effective,
           "a malformed list is unknown, an absent one too");
        ok(w.n == 1 && w.v[0].code == WARNING_SYSFS_MALFORMED &&
                   strstr(w.v[0].message, "/proc/irq/47/smp_affinity_list"),
           "and the malformed one is a warning naming it");
        ok(devs[1].irqs.known && devs[1].irqs.n == 0, "irq 0 without msi_irqs/: known, no interrupt");
        root_free(root);
        warnings_done(&w);
        for (size_t i = 0; i < 2; i++) {
                free(devs[i].path);
                device_irqs_done(&devs[i].irqs);
        }
}

static void irqbalance(void) {
        _cleanup_tmpdir_ char *d = make_tmpdir();
        struct root *root;

        write_file(d, "proc/self/status", "Name:\tnumaplan\n");
        ok(root_open(d, 0, &root) == 0 && irqbalance_find(root) == 0, "no process under /proc: unknown");
        root_free(root);
        write_file(d, "proc/1/comm", "systemd\n");
        write_file(d, "proc/640/comm", "sshd\n");
        ok(root_open(d, 0, &root) == 0 && irqbalance_find(root) == -1, "processes, none named irqbalance: none runs");
        root_free(root);
        write_file(d, "proc/812/comm", "irqbalance\n");
        ok(root_open(d, ROOT_RECORD, &root) == 0 && irqbalance_find(root) == 812, "one named irqbalance: its pid");
        size_t n;
        const struct root_entry *e = root_recorded(root, &n);
        bool comm812 = false, others = false;
        for (size_t i = 0; i < n; i++) {
                comm812 = comm812 || streq(e[i].path, "proc/812/comm");
                others = others || streq(e[i].path, "proc/1/comm") || streq(e[i].path, "proc/640/comm");
        }
        ok(comm812 && !others, "a snapshot keeps irqbalance's name and no other process's");
        root_free(root);
}

/* A device with interrupts 45 and 46, steered to CPUs 2-3. */
struct fixture {
        struct pci_device dev;
        struct irq_target target;
        struct irq_targets want;
};

static void fixture_init(struct fixture *f) {
        *f = (struct fixture){.dev = {.kind = PCI_NIC}};
        snprintf(f->dev.pci, sizeof(f->dev.pci), "0000:42:00.0");
        device_irqs_add(&f->dev.irqs, 45);
        device_irqs_add(&f->dev.irqs, 46);
        f->target = (struct irq_target){.dev = &f->dev};
        cpuset_parse_list("2-3", &f->target.cpus);
        f->want = (struct irq_targets){.v = &f->target, .n = 1};
}

static void steering(void) {
        _cleanup_tmpdir_ char *d = make_tmpdir();
        _cleanup_free_ char *proc = xasprintf("%s/irq", d), *record = xasprintf("%s/run/irqs", d);
        struct fixture f;
        struct irq_changes c;

        fixture_init(&f);
        write_file(d, "irq/45/smp_affinity_list", "0-3\n");
        write_file(d, "irq/46/smp_affinity_list", "0-3\n");
        ok(irqs_steer(proc, record, &f.want, true, &c) == 0 && c.n == 2 && action_of(&c, 45) == IRQ_STEERED &&
                   irq_changes_any(&c),
           "dry: both would be steered");
        _cleanup_free_ char *a0 = affinity_of(d, 45);
        is_str(a0, "0-3\n", "and nothing is written");
        ok(access(record, F_OK) < 0, "nor recorded");
        irq_changes_done(&c);

        ok(irqs_steer(proc, record, &f.want, false, &c) == 0 && action_of(&c, 45) == IRQ_STEERED &&
                   action_of(&c, 46) == IRQ_STEERED && !irq_changes_failed(&c),
           "steered: both");
        _cleanup_free_ char *a1 = affinity_of(d, 45), *r1 = read_whole(record);
        is_str(a1, "2-3\n", "IRQ 45 is set to CPUs 2-3");
        ok(r1 && strstr(r1, "\n45 0000:42:00.0 0-3 2-3\n46 0000:42:00.0 0-3 2-3\n"),
           "the record holds each with what it was before and what numaplan set");
        irq_changes_done(&c);

        ok(irqs_steer(proc, record, &f.want, false, &c) == 0 && !irq_changes_any(&c) &&
                   action_of(&c, 45) == IRQ_UNCHANGED,
           "again: nothing changes");
        _cleanup_free_ char *r2 = read_whole(record);
        is_str(r2, r1, "and the record still says what was there before numaplan");
        irq_changes_done(&c);

        write_file(d, "irq/46/smp_affinity_list", "0-1\n"); /* moved by hand since */
        ok(irqs_steer(proc, record, NULL, false, &c) == 0 && action_of(&c, 45) == IRQ_RESTORED &&
                   action_of(&c, 46) == IRQ_LEFT,
           "given back: 45 restored; 46, moved since numaplan set it, left");
        _cleanup_free_ char *a2 = affinity_of(d, 45), *a3 = affinity_of(d, 46);
        is_str(a2, "0-3\n", "45 is back on CPUs 0-3");
        is_str(a3, "0-1\n", "46 stays where the admin put it");
        ok(access(record, F_OK) < 0, "and the record is gone with the last of them");
        irq_changes_done(&c);
        device_irqs_done(&f.dev.irqs);
}

static void gone_and_broken(void) {
        _cleanup_tmpdir_ char *d = make_tmpdir();
        _cleanup_free_ char *proc = xasprintf("%s/irq", d), *record = xasprintf("%s/run/irqs", d),
                            *gone = xasprintf("%s/irq/45", d);
        struct fixture f;
        struct irq_changes c;

        fixture_init(&f);
        write_file(d, "irq/45/smp_affinity_list", "0-3\n");
        write_file(d, "irq/46/smp_affinity_list", "0-3\n");
        ok(irqs_steer(proc, record, &f.want, false, &c) == 0, "steered");
        irq_changes_done(&c);
        rm_rf(gone);
        ok(irqs_steer(proc, record, NULL, false, &c) == 0 && action_of(&c, 45) == IRQ_UNCHANGED &&
                   !change_of(&c, 45)->has_before && action_of(&c, 46) == IRQ_RESTORED && !irq_changes_failed(&c),
           "an interrupt gone since (its driver reloaded) has nothing to give back, and fails nothing");
        irq_changes_done(&c);

        write_file(d, "irq/45/smp_affinity_list/x", ""); /* a directory where the file belongs */
        ok(irqs_steer(proc, record, &f.want, false, &c) == 0 && action_of(&c, 45) == IRQ_FAILED &&
                   change_of(&c, 45)->error < 0 && action_of(&c, 46) == IRQ_STEERED && irq_changes_failed(&c),
           "one that cannot be read fails, said; the others are steered");
        _cleanup_free_ char *r = read_whole(record);
        ok(r && !strstr(r, "\n45 ") && strstr(r, "\n46 "), "and only what was set is recorded");
        irq_changes_done(&c);

        write_file(d, "run/irqs", "# header\n46 0000:42:00.0 0-3\n");
        ok(irqs_steer(proc, record, NULL, false, &c) == -EINVAL, "a record that is not numaplan's is refused");
        _cleanup_free_ char *a = affinity_of(d, 46);
        is_str(a, "2-3\n", "and nothing is touched");
        device_irqs_done(&f.dev.irqs);
}

/* Whether the changes are one a number from `first`, in order, even ones `a`, odd ones `b`. */
static bool changes_are(const struct irq_changes *c, unsigned first, size_t n, enum irq_action a, enum irq_action b) {
        if (c->n != n)
                return false;
        for (size_t i = 0; i < n; i++)
                if (c->v[i].irq != first + i || c->v[i].action != (c->v[i].irq % 2 ? b : a))
                        return false;
        return true;
}

/* Interrupts of two adapters whose numbers interleave, each set before to CPUs of a long list: the
 * record past 1 MiB, read back; the changes and the record in number order. */
static void steering_many(void) {
        enum { N = 600, FIRST = 1000 };
        _cleanup_tmpdir_ char *d = make_tmpdir();
        _cleanup_free_ char *proc = xasprintf("%s/irq", d), *record = xasprintf("%s/run/irqs", d);
        struct pci_device a = {.kind = PCI_NIC, .pci = "0000:11:00.0"}, b = {.kind = PCI_NIC, .pci = "0000:12:00.0"};
        struct irq_target targets[2] = {{.dev = &a}, {.dev = &b}};
        struct irq_targets want = {.v = targets, .n = 2};
        struct strbuf before = {0};
        struct irq_changes c;
        unsigned *v = xmalloc0(N * sizeof(*v));

        for (unsigned cpu = 0; cpu < 2048; cpu += 2)
                strbuf_printf(&before, "%s%u", cpu ? "," : "", cpu);
        strbuf_append(&before, "\n");
        for (unsigned i = 0; i < N; i++) {
                _cleanup_free_ char *p = xasprintf("irq/%u/smp_affinity_list", FIRST + i);
                write_file(d, p, before.s);
        }
        for (unsigned i = 0; i < N / 2; i++) /* a's even, b's odd */
                v[i] = FIRST + 2 * i, v[N / 2 + i] = FIRST + 2 * i + 1;
        device_irqs_set(&a.irqs, v, N / 2);
        device_irqs_set(&b.irqs, v + N / 2, N / 2);
        cpuset_parse_list("2-3", &targets[0].cpus);
        cpuset_parse_list("4-5", &targets[1].cpus);

        ok(irqs_steer(proc, record, &want, false, &c) == 0 && changes_are(&c, FIRST, N, IRQ_STEERED, IRQ_STEERED),
           "%d interrupts of two adapters steered, the changes in number order", N);
        irq_changes_done(&c);
        _cleanup_free_ char *text = read_whole(record);
        struct irq_record r = {0};
        unsigned line = 0;
        bool ordered = text && irq_record_parse(text, &r, &line) == 0 && r.n == N;
        for (size_t i = 0; ordered && i < r.n; i++)
                ordered = r.v[i].irq == FIRST + i && streq(r.v[i].pci, i % 2 ? b.pci : a.pci);
        ok(ordered && strlen(text) > (1U << 20), "the record holds each once, in order, past 1 MiB (%zu bytes)",
           text ? strlen(text) : 0);
        irq_record_done(&r);
        _cleanup_free_ char *odd = affinity_of(d, FIRST + 1);
        is_str(odd, "4-5\n", "b's to its CPUs");

        ok(irqs_steer(proc, record, &want, false, &c) == 0 && changes_are(&c, FIRST, N, IRQ_UNCHANGED, IRQ_UNCHANGED),
           "again: the record read back, nothing to do");
        irq_changes_done(&c);

        want.n = 1; /* b no longer steered: its interrupts, between a's, given back */
        ok(irqs_steer(proc, record, &want, false, &c) == 0 && changes_are(&c, FIRST, N, IRQ_UNCHANGED, IRQ_RESTORED),
           "one adapter given back, in number order between the other's");
        irq_changes_done(&c);
        _cleanup_free_ char *back = affinity_of(d, FIRST + 1);
        is_str(back, before.s, "to the CPUs it had before");

        bool restored = irqs_steer(proc, record, NULL, false, &c) == 0 && c.n == N / 2;
        for (size_t i = 0; restored && i < c.n; i++)
                restored = c.v[i].irq == FIRST + 2 * i && c.v[i].action == IRQ_RESTORED;
        ok(restored && access(record, F_OK) < 0, "remove gives back the other's: the record gone");
        irq_changes_done(&c);
        strbuf_done(&before);
        device_irqs_done(&a.irqs);
        device_irqs_done(&b.irqs);
        free(v);
}

int main(void) {
        log_set_max_level(LOG_ERR - 1);
        reading();
        irqbalance();
        steering();
        gone_and_broken();
        steering_many();
        return done_testing();
}
