/* SPDX-License-Identifier: MIT */
/* Where apply steers interrupts, on hosts made here: a replica's accelerators to its CPUs, the
 * network adapters on its home nodes to the CPUs of every replica with irq-affinity = yes there,
 * nothing of the replicas without it; irqbalance's drop-in; irq-remote; the record's text; and the
 * lists of thousands of interrupts. */

#include "basic/util.h"
#include "core/dropin.h"
#include "core/irqs.h"
#include "core/planner.h"
#include "core/topology.h"
#include "core/warnings.h"
#include "small-plan.h"
#include "tap.h"

/* A device on `node` (-1: none) with interrupts first..first+n-1, each set to `set` and served
 * by `served`. */
static void add_device(struct topology *t, enum pci_kind kind, const char *pci, int node, unsigned first, unsigned n,
                       const char *set, const char *served) {
        struct pci_device **v = kind == PCI_NIC ? &t->nics : &t->accels;
        size_t *count = kind == PCI_NIC ? &t->n_nics : &t->n_accels;
        struct pci_address addr;
        pci_address_parse(pci, false, &addr);
        *v = xrealloc(*v, (*count + 1) * sizeof(**v));
        size_t i = (*count)++; /* in PCI-address order, as the readers keep them */
        for (; i > 0 && pci_address_compare(&(*v)[i - 1].address, &addr) > 0; i--)
                (*v)[i] = (*v)[i - 1];
        struct pci_device *a = &(*v)[i];
        *a = (struct pci_device){.kind = kind,
                                 .numa_node = node,
                                 .sysfs_numa_node = node,
                                 .ids_known = true,
                                 .vendor = 0x10de,
                                 .device = 0x2330,
                                 .class = kind == PCI_NIC ? 0x020000 : 0x030200,
                                 .compute = kind == PCI_ACCELERATOR,
                                 .numa_source = NUMA_SOURCE_NUMA_NODE};
        a->address = addr;
        pci_address_format(&a->address, a->pci);
        a->irqs.known = true;
        a->irqs.msi = true;
        for (unsigned k = 0; k < n; k++) {
                struct device_irq *q = device_irqs_add(&a->irqs, first + k);
                q->has_affinity = cpuset_parse_list(set, &q->affinity) >= 0;
                q->has_effective = cpuset_parse_list(served, &q->effective) >= 0;
        }
}

/* The two-node host (CPUs 0-3 and 4-7) with a GPU and an adapter on each node. */
static struct topology *host(void) {
        struct topology *t = small_host();
        add_device(t, PCI_ACCELERATOR, "0000:01:00.0", 0, 120, 1, "0-7", "5");
        add_device(t, PCI_ACCELERATOR, "0000:81:00.0", 1, 121, 2, "0-7", "1");
        add_device(t, PCI_NIC, "0000:11:00.0", 0, 60, 4, "0-7", "0");
        add_device(t, PCI_NIC, "0000:91:00.0", 1, 70, 2, "0-7", "6");
        return t;
}

static struct plan *plan_of(const struct topology *t, const char *text, struct config **ret_c) {
        struct error_at err = {0};
        struct warnings w = {0};
        struct plan *p = NULL;
        int r = config_parse_string(text, "test.conf", ret_c, &err);
        if (r >= 0)
                r = plan_compute(t, *ret_c, &w, &p, &err);
        warnings_done(&w);
        if (r < 0) {
                printf("Bail out! %s:%u: %s\n", strempty(err.at.file), err.at.line, strempty(err.message));
                exit(1);
        }
        return p;
}

static char *target_cpus(const struct irq_targets *tg, const struct pci_device *a) {
        const struct irq_target *x = irq_target_of(tg, a);
        return x ? cpuset_format(&x->cpus) : xstrdup("(not steered)");
}

static void steering_choice(void) {
        struct topology *t = host();
        struct config *c = NULL;
        struct irq_targets tg;
        struct plan *p = plan_of(t,
                                 "[numaplan]\nirq-affinity = yes\n"
                                 "[replica a]\nunit = a.service\naccelerators = 0000:01:00.0\n"
                                 "[replica b]\nunit = b.service\naccelerators = 0000:81:00.0\nirq-affinity = no\n",
                                 &c);

        ok(p->replicas[0].irq_affinity && !p->replicas[1].irq_affinity,
           "irq-affinity: [numaplan]'s for replica a, its own no for replica b");
        ok(replica_uses_nic(&p->replicas[0], 0) && !replica_uses_nic(&p->replicas[0], 1),
           "a replica uses the adapter the plan gave it (nics = auto: its node's), not the other node's");
        irq_targets_for_plan(t, p, &tg);
        is_int(tg.n, 2, "two devices steered: a's GPU and the adapter on its node");
        char *gpu = target_cpus(&tg, &t->accels[0]), *nic = target_cpus(&tg, &t->nics[0]),
             *other = target_cpus(&tg, &t->accels[1]), *nic1 = target_cpus(&tg, &t->nics[1]);
        is_str(gpu, "0-3", "a's GPU to a's CPUs");
        is_str(nic, "0-3", "node 0's adapter to the CPUs of a, which uses it");
        is_str(other, "(not steered)", "b's GPU is left: b has irq-affinity = no");
        is_str(nic1, "(not steered)", "and so is node 1's adapter, which only b uses");
        ok(irq_targets_any(&tg), "the targets have interrupts to steer");
        free(gpu), free(nic), free(other), free(nic1);

        char *text = dropin_render_irqbalance(&tg, c, "/usr/sbin/irqbalance");
        ok(text && startswith(text, DROPIN_HEADER), "irqbalance's drop-in is numaplan's, by its first line");
        ok(text && strstr(text, "\n[Service]\nExecStart=\nExecStart=\"/usr/sbin/irqbalance\" --foreground "
                                "$IRQBALANCE_ARGS --banirq=60 --banirq=61 --banirq=62 --banirq=63 --banirq=120\n"),
           "it restarts irqbalance with the admin's arguments and a ban of each steered interrupt");
        ok(text && strstr(text, "# 0000:11:00.0 (replica a): IRQs 60-63 on CPUs 0-3\n"),
           "and says which device and replica");
        if (!ok(text && !strstr(text, "121") && !strstr(text, "--banirq=70"), "b's interrupts are not banned"))
                tap_diag("drop-in", text);
        free(text);
        irq_targets_done(&tg);
        plan_free(p);
        config_free(c);
        topology_free(t);
}

static void shared_adapter(void) {
        struct topology *t = host();
        struct config *c = NULL;
        struct irq_targets tg;
        add_device(t, PCI_ACCELERATOR, "0000:02:00.0", 0, 122, 1, "0-7", "2"); /* a second GPU on node 0 */
        struct plan *p = plan_of(t,
                                 "[numaplan]\nirq-affinity = yes\n"
                                 "[replica a]\nunit = a.service\naccelerators = 0000:01:00.0\n"
                                 "[replica c]\nunit = c.service\naccelerators = 0000:02:00.0\n",
                                 &c);
        irq_targets_for_plan(t, p, &tg);
        char *nic = target_cpus(&tg, &t->nics[0]), *gpu = target_cpus(&tg, topology_accel(t, "0000:01:00.0"));
        const struct irq_target *x = irq_target_of(&tg, &t->nics[0]);
        _cleanup_free_ char *a = cpuset_format(&p->replicas[0].cpus);
        is_str(a, "0-1", "two replicas share node 0: a on CPUs 0-1");
        is_str(gpu, "0-1", "a's GPU to a's CPUs alone");
        is_str(nic, "0-3", "node 0's adapter to the CPUs of both");
        is_str(x ? x->replicas : "", "a, c", "the target names both replicas");
        free(nic), free(gpu);
        irq_targets_done(&tg);
        plan_free(p);
        config_free(c);

        /* A legacy line (no message-signalled interrupt) may be shared: not steered. */
        struct pci_device *gpu1 = (struct pci_device *) topology_accel(t, "0000:01:00.0");
        gpu1->irqs.msi = false;
        p = plan_of(t, "[numaplan]\nirq-affinity = yes\n[replica a]\nunit = a.service\naccelerators = 0000:01:00.0\n",
                    &c);
        irq_targets_for_plan(t, p, &tg);
        ok(!irq_target_of(&tg, gpu1) && irq_target_of(&tg, &t->nics[0]),
           "a GPU with only its legacy line is not steered, the adapter beside it is");
        irq_targets_done(&tg);
        plan_free(p);
        config_free(c);
        gpu1->irqs.msi = true;

        /* nics = none: the replica uses no adapter, so only its GPU is steered. */
        p = plan_of(t,
                    "[numaplan]\nirq-affinity = yes\nnics = none\n[replica a]\nunit = a.service\naccelerators = "
                    "0000:01:00.0\n",
                    &c);
        irq_targets_for_plan(t, p, &tg);
        ok(irq_target_of(&tg, &t->accels[0]) && !irq_target_of(&tg, &t->nics[0]),
           "nics = none: the GPU is steered, the adapter it does not use is not");
        irq_targets_done(&tg);
        plan_free(p);
        config_free(c);

        /* Without irq-affinity anywhere: no target, no drop-in. */
        p = plan_of(t, "[replica a]\nunit = a.service\naccelerators = 0000:01:00.0\n", &c);
        irq_targets_for_plan(t, p, &tg);
        is_int(tg.n, 0, "irq-affinity = no (the default): nothing steered");
        ok(dropin_render_irqbalance(&tg, c, "/usr/sbin/irqbalance") == NULL, "and no irqbalance drop-in");
        irq_targets_done(&tg);
        plan_free(p);
        config_free(c);
        topology_free(t);
}

/* "severity: code: text\n" into the strbuf, as show and plan print each line. */
static void text_line(const struct warning *first, const char *text, void *userdata) {
        strbuf_printf(userdata, "%s: %s: %s\n", severity_to_string(warning_kinds[first->code].severity),
                      warning_code(first), text);
}

static void remote(void) {
        struct topology *t = small_host();
        struct warnings w = {0};
        add_device(t, PCI_ACCELERATOR, "0000:81:00.0", 1, 124, 1, "0-3", "3"); /* set to node 0 only */
        add_device(t, PCI_ACCELERATOR, "0000:a1:00.0", 1, 125, 1, "0-7", "2"); /* every CPU, served on node 0 */
        add_device(t, PCI_ACCELERATOR, "0000:c1:00.0", 1, 126, 1, "4-7", "0"); /* its node, served before it was set */
        add_device(t, PCI_NIC, "0000:11:00.0", 0, 60, 2, "0-3", "0");
        struct device_irq *q = device_irqs_add(&t->nics[0].irqs, 62); /* set to node 1, served who knows where */
        q->has_affinity = cpuset_parse_list("4-7", &q->affinity) >= 0;
        add_device(t, PCI_ACCELERATOR, "0000:e2:00.0", -1, 130, 1, "4", "4"); /* no node: not judged */

        irq_warnings(t, &w);
        is_int(w.n, 2, "irq-remote: the GPU set to the other node's CPUs, the adapter with one such interrupt");
        ok(w.n > 0 && w.v[0].code == WARNING_IRQ_REMOTE && streq(w.v[0].subject, "0000:81:00.0") &&
                   strstr(w.v[0].message, "IRQ 124 set to 0-3 (served by 3)"),
           "it names the device, the interrupt, where it is set and where it was served");
        ok(w.n > 1 && streq(w.v[1].subject, "0000:11:00.0") && strstr(w.v[1].message, "1 of the 3 interrupts of") &&
                   strstr(w.v[1].message, "served by unknown CPUs"),
           "one of the adapter's three, its served CPUs unknown");
        ok(!warnings_has(&w, WARNING_IRQ_REMOTE, "0000:a1:00.0"),
           "an interrupt set to every CPU (the kernel's default) is not warned of, though the other node served it");
        ok(!warnings_has(&w, WARNING_IRQ_REMOTE, "0000:c1:00.0"),
           "nor one set to its node's CPUs that the other node served last: judged by the set affinity");

        /* The text: a notice found first still comes after them, each code once. */
        struct warnings all = {0};
        warnings_add(&all, WARNING_IOMMU_TRANSLATED, NULL, "a notice");
        for (size_t i = 0; i < w.n; i++)
                warnings_add(&all, w.v[i].code, w.v[i].subject, "%s", w.v[i].message);
        warnings_add(&all, WARNING_HOST_UNPLANNABLE, NULL, "one error");
        warnings_add(&all, WARNING_HOST_UNPLANNABLE, NULL, "another");
        struct strbuf text = {0};
        warnings_for_text(&all, false, text_line, &text);
        is_str(text.s,
               "error: host-unplannable: 2 errors: what is unreadable makes any plan on this host impossible or wrong "
               "(-v prints each)\n"
               "warning: irq-remote: devices 0000:81:00.0, 0000:11:00.0: a device's interrupts are set to other nodes' "
               "CPUs only (-v prints each)\n"
               "notice: iommu-translated: a notice\n",
               "text: errors, warnings, notices; irq-remote once, naming both devices");
        strbuf_done(&text);
        warnings_for_text(&all, true, text_line, &text);
        ok(text.s && strstr(text.s, "warning: irq-remote: the interrupt of 0000:81:00.0") &&
                   strstr(text.s, "warning: irq-remote: 1 of the 3 interrupts of 0000:11:00.0") &&
                   strstr(text.s, "error: host-unplannable: another\nwarning:"),
           "-v: each in full, in the same order");
        strbuf_done(&text);
        warnings_done(&all);
        warnings_done(&w);
        topology_free(t);
}

static void record(void) {
        struct irq_record r;
        unsigned line = 0;
        const char *text = "# numaplan's interrupts\n"
                           "60 0000:11:00.0 0-7 0-3\n"
                           "45 0000:42:00.0 - 2-3\n";

        ok(irq_record_parse(text, &r, &line) == 0 && r.n == 2, "a record of two interrupts parses");
        ok(r.n == 2 && r.v[0].irq == 45 && cpuset_is_empty(&r.v[0].before) && cpuset_count(&r.v[0].set) == 2,
           "by number; '-' is the empty set");
        char *back = irq_record_format(&r);
        ok(strstr(back, "\n45 0000:42:00.0 - 2-3\n60 0000:11:00.0 0-7 0-3\n") != NULL, "and reads back as written");
        free(back);
        irq_record_done(&r);
        static const char *const bad[] = {"60 0000:11:00.0 0-7\n", "x 0000:11:00.0 0-7 0-3\n", "60 11:00.0 0-7 0-3\n",
                                          "60 0000:11:00.0 0-7 zz\n", "60 0000:11:00.0 0-7 0-3 9\n"};
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                _cleanup_free_ char *t = xasprintf("# header\n%s", bad[i]);
                ok(irq_record_parse(t, &r, &line) == -EINVAL && line == 2, "not a record line, named: %.*s",
                   (int) strcspn(bad[i], "\n"), bad[i]);
        }
}

/* A permutation of 0..n-1, the same at every run. */
static void shuffle(unsigned *v, size_t n) {
        uint64_t x = 88172645463325252ULL;
        for (size_t i = n; i > 1; i--) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                size_t j = (size_t) (x % i);
                unsigned k = v[i - 1];
                v[i - 1] = v[j], v[j] = k;
        }
}

/* Thousands of interrupts, as a host of 1,024 CPUs with a queue a CPU on each adapter has: each
 * list in number order, each interrupt once, whatever order the kernel lists them in. */
static void many(void) {
        unsigned few[] = {47, 30, 45, 46, 46, 30};
        is_int(irq_numbers_unique(few, ELEMENTSOF(few)), 4, "numbers sorted, repeats dropped");
        ok(few[0] == 30 && few[1] == 45 && few[2] == 46 && few[3] == 47, "in order");
        is_int(irq_numbers_unique(few, 0), 0, "none");

        enum { N = 10000 };
        unsigned *v = xmalloc0((N + 100) * sizeof(*v));
        for (unsigned i = 0; i < N; i++)
                v[i] = 1000 + i;
        for (unsigned i = 0; i < 100; i++) /* some twice, as a directory read twice would list them */
                v[N + i] = 1000 + 97 * i;
        shuffle(v, N + 100);
        struct device_irqs d = {0};
        device_irqs_add(&d, 5); /* replaced */
        device_irqs_set(&d, v, N + 100);
        bool sorted = d.n == N, unknown = true;
        for (size_t i = 0; i < d.n; i++) {
                sorted = sorted && d.v[i].irq == 1000 + i;
                unknown = unknown && !d.v[i].has_affinity && !d.v[i].has_effective;
        }
        ok(sorted, "10,000 interrupts listed shuffled, some twice: in order, each once");
        ok(unknown, "their affinities unknown until read");
        char *s = device_irqs_format(&d);
        is_str(s, "1000-10999", "one run");
        free(s);

        /* Two adapters whose numbers interleave, and the one a GPU shares with one of them. */
        struct pci_device a = {.pci = "0000:11:00.0"}, b = {.pci = "0000:12:00.0"}, g = {.pci = "0000:01:00.0"};
        for (unsigned i = 0; i < N / 2; i++)
                v[i] = 2 * i + 2000, v[N / 2 + i] = 2 * i + 2001;
        shuffle(v, N / 2);
        device_irqs_set(&a.irqs, v, N / 2);
        device_irqs_set(&b.irqs, v + N / 2, N / 2);
        unsigned shared[] = {2000, 45};
        device_irqs_set(&g.irqs, shared, 2);
        struct irq_target targets[] = {{.dev = &g, .replicas = (char *) "a"},
                                       {.dev = &a, .replicas = (char *) "a"},
                                       {.dev = &b, .replicas = (char *) "b"}};
        struct irq_targets tg = {.v = targets, .n = ELEMENTSOF(targets)};
        struct config *c = NULL;
        struct error_at err = {0};
        config_parse_string("", "test.conf", &c, &err);
        struct strbuf want = {0};
        strbuf_append(&want, "ExecStart=\"/usr/sbin/irqbalance\" --foreground $IRQBALANCE_ARGS --banirq=45");
        for (unsigned i = 2000; i < 2000 + N; i++)
                strbuf_printf(&want, " --banirq=%u", i);
        strbuf_append(&want, "\n");
        _cleanup_free_ char *text = dropin_render_irqbalance(&tg, c, "/usr/sbin/irqbalance");
        const char *line = text ? strstr(text, "\nExecStart=\"") : NULL;
        ok(line && streq(line + 1, want.s), "irqbalance's drop-in bans all 10,001, in order, once each");
        ok(text && strstr(text, "# 0000:11:00.0 (replica a): IRQs 2000, 2002, 2004, "), "each adapter's own, in order");
        ok(text && strlen(text) < DROPIN_SIZE_MAX, "within what numaplan reads back of a drop-in (%zu bytes)",
           text ? strlen(text) : 0);
        strbuf_done(&want);
        config_free(c);
        device_irqs_done(&a.irqs);
        device_irqs_done(&b.irqs);
        device_irqs_done(&g.irqs);
        device_irqs_done(&d);
        free(v);

        /* The record, put out of order: by number, an interrupt once, its last entry kept. */
        struct irq_record r = {0};
        struct irq_record_entry *e = xmalloc0(sizeof(*e));
        static const unsigned order[] = {30, 10, 20, 20, 40, 5};
        for (size_t i = 0; i < ELEMENTSOF(order); i++) {
                *e = (struct irq_record_entry){.irq = order[i]};
                snprintf(e->pci, sizeof(e->pci), "0000:%02zx:00.0", i);
                irq_record_put(&r, e);
        }
        free(e);
        ok(r.n == 5 && r.v[0].irq == 5 && r.v[1].irq == 10 && r.v[2].irq == 20 && r.v[3].irq == 30 && r.v[4].irq == 40,
           "a record put out of order is by number");
        const struct irq_record_entry *twenty = irq_record_find(&r, 20);
        ok(twenty && streq(twenty->pci, "0000:03:00.0") && !irq_record_find(&r, 25) && !irq_record_find(&r, 50) &&
                   irq_record_find(&r, 5) == &r.v[0],
           "found by number, the last put of 20 kept; 25 and 50 not there");
        irq_record_done(&r);
}

static void numbers(void) {
        struct device_irqs d = {0};
        device_irqs_add(&d, 47);
        device_irqs_add(&d, 30);
        device_irqs_add(&d, 45);
        device_irqs_add(&d, 46);
        device_irqs_add(&d, 46);
        char *s = device_irqs_format(&d);
        is_str(s, "30, 45-47", "interrupt numbers, in order, once each, runs as ranges");
        free(s);
        device_irqs_done(&d);
}

int main(void) {
        steering_choice();
        shared_adapter();
        remote();
        record();
        numbers();
        many();
        return done_testing();
}
