/* SPDX-License-Identifier: MIT */
#include "basic/util.h"
#include "core/irq-list.h"

void device_irqs_done(struct device_irqs *d) {
        free(d->v);
        *d = (struct device_irqs){0};
}

static int compare_number(const void *a, const void *b) {
        unsigned x = *(const unsigned *) a, y = *(const unsigned *) b;
        return x < y ? -1 : x > y;
}

size_t irq_numbers_unique(unsigned *v, size_t n) {
        size_t k = 0;
        if (n > 1)
                qsort(v, n, sizeof(*v), compare_number);
        for (size_t i = 0; i < n; i++)
                if (k == 0 || v[i] != v[k - 1])
                        v[k++] = v[i];
        return k;
}

void device_irqs_set(struct device_irqs *d, unsigned *irqs, size_t n) {
        free(d->v);
        d->n = irq_numbers_unique(irqs, n);
        d->v = d->n ? xmalloc0(d->n * sizeof(*d->v)) : NULL;
        for (size_t i = 0; i < d->n; i++)
                d->v[i].irq = irqs[i];
}

struct device_irq *device_irqs_add(struct device_irqs *d, unsigned irq) {
        size_t i = d->n;
        for (size_t k = 0; k < d->n; k++)
                if (d->v[k].irq == irq)
                        return &d->v[k];
        d->v = xrealloc(d->v, (d->n + 1) * sizeof(*d->v));
        for (; i > 0 && d->v[i - 1].irq > irq; i--)
                d->v[i] = d->v[i - 1];
        d->v[i] = (struct device_irq){.irq = irq};
        d->n++;
        return &d->v[i];
}

char *device_irqs_format(const struct device_irqs *d) {
        struct strbuf b = {0};
        for (size_t i = 0; i < d->n;) {
                size_t j = i;
                while (j + 1 < d->n && d->v[j + 1].irq == d->v[j].irq + 1)
                        j++;
                if (j == i)
                        strbuf_printf(&b, "%s%u", b.len ? ", " : "", d->v[i].irq);
                else
                        strbuf_printf(&b, "%s%u-%u", b.len ? ", " : "", d->v[i].irq, d->v[j].irq);
                i = j + 1;
        }
        return b.len ? strbuf_steal(&b) : xstrdup("");
}

static bool only_elsewhere(bool known, const struct cpuset *s, const struct cpuset *node_cpus) {
        return known && !cpuset_is_empty(s) && !cpuset_intersects(s, node_cpus);
}

/* Not by the CPU that served it last: on x86 that follows a new setting only when the interrupt
 * next fires, and one set to every CPU (the kernel's default) lands on either node. */
bool device_irq_remote(const struct device_irq *q, const struct cpuset *node_cpus) {
        return only_elsewhere(q->has_affinity, &q->affinity, node_cpus);
}

bool device_irqs_remote(const struct device_irqs *d, const struct cpuset *node_cpus) {
        for (size_t i = 0; i < d->n; i++)
                if (device_irq_remote(&d->v[i], node_cpus))
                        return true;
        return false;
}
