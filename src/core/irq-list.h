/* SPDX-License-Identifier: MIT */
#pragma once

/* A PCI device's interrupts as the kernel shows them (host/irq-read.c reads them): the list a
 * device in the topology holds. Pure. Where apply steers them is core/irqs.h's. */

#include <stdbool.h>
#include <stddef.h>

#include "basic/cpuset.h"

struct device_irq {
        unsigned irq;
        bool has_affinity, has_effective; /* the file could be read */
        struct cpuset affinity;           /* smp_affinity_list: the CPUs it is set to */
        struct cpuset effective;          /* effective_affinity_list: the CPUs that served it last. On x86 it
                                  * follows a new setting only when the interrupt next fires: an
                                  * idle device keeps the old one */
};

struct device_irqs {
        bool known;           /* msi_irqs/ or irq could be read: v lists the interrupts (none: no interrupt) */
        bool msi;             /* message-signalled (msi_irqs/), else the legacy line that irq names */
        struct device_irq *v; /* by number */
        size_t n;
};

void device_irqs_done(struct device_irqs *d);
/* Sorts the `n` numbers of `v` and drops repeats; returns how many remain. */
size_t irq_numbers_unique(unsigned *v, size_t n);
/* The list becomes the interrupts `irqs` (in any order, repeats allowed; sorted in place): each
 * once, by number, its affinities unknown. For a device's many, where adding them one by one
 * costs the square of their number. */
void device_irqs_set(struct device_irqs *d, unsigned *irqs, size_t n);
/* Adds interrupt `irq` in number order (once), its affinities unknown; returns it. For a few. */
struct device_irq *device_irqs_add(struct device_irqs *d, unsigned irq);
/* "45-47", "30, 45-47": the numbers as a list. */
char *device_irqs_format(const struct device_irqs *d);
/* Whether the interrupt is set (smp_affinity_list) to CPUs of other nodes only, none of
 * `node_cpus`; where it was served last is not judged. */
bool device_irq_remote(const struct device_irq *q, const struct cpuset *node_cpus);
/* Whether any of its interrupts is. */
bool device_irqs_remote(const struct device_irqs *d, const struct cpuset *node_cpus);
