/* SPDX-License-Identifier: MIT */
#pragma once

/* Where apply steers the devices' interrupts (irq-affinity = yes, numaplan.conf(5)):
 * a replica's accelerators' to its CPUs, a network adapter's to the CPUs of the replicas that
 * use it, with irqbalance told to leave them alone. Pure: host/irq-read.c reads the kernel's
 * files, live/irq-steer.c writes them; the record of what numaplan changed is text in and text
 * out here. */

#include <stdbool.h>
#include <stddef.h>

#include "basic/cpuset.h"
#include "core/pci.h"

struct pci_device;
struct placement;
struct plan;
struct topology;
struct warnings;

/* Whether a replica uses network adapter `nic` (an index into topology.nics): the plan gave it
 * (nics = auto, or its interface named in nics = LIST). */
bool replica_uses_nic(const struct placement *pl, size_t nic);

/* A device whose interrupts apply steers, and to which CPUs. */
struct irq_target {
        const struct pci_device *dev;
        struct cpuset cpus; /* the CPUs of the replicas it serves, with irq-affinity = yes */
        char *replicas;     /* their names: "llama-0, llama-1" */
};

struct irq_targets {
        struct irq_target *v; /* accelerators, then network adapters, each in PCI-address order */
        size_t n;
};

/* Every device of a replica with irq-affinity = yes: its accelerators to its CPUs, the network
 * adapters it uses to the CPUs of all such replicas that use each. Only message-signalled
 * interrupts, which are the device's own: a legacy line may be shared with other devices. */
void irq_targets_for_plan(const struct topology *t, const struct plan *p, struct irq_targets *ret);
void irq_targets_done(struct irq_targets *t);
/* The target of `dev`, or NULL when apply does not steer it. */
const struct irq_target *irq_target_of(const struct irq_targets *t, const struct pci_device *dev);
/* Whether any target has an interrupt to steer. */
bool irq_targets_any(const struct irq_targets *t);

/* irq-remote: each accelerator and network adapter with a node whose interrupts are set to
 * other nodes' CPUs only (the set affinity judged; the effective one reported beside it). */
void irq_warnings(const struct topology *t, struct warnings *w);

/* The record of what numaplan changed (live/irq-steer.c): each interrupt it set, the device it
 * was the interrupt of, the CPUs it was set to before numaplan (what remove gives back), and
 * those numaplan set. */
struct irq_record_entry {
        unsigned irq;
        char pci[PCI_ADDRESS_MAX];
        struct cpuset before, set;
};

struct irq_record {
        struct irq_record_entry *v; /* by number */
        size_t n, allocated;
};

void irq_record_done(struct irq_record *r);
/* Puts `e` in its place by number, over the entry of its interrupt if there is one: at the end
 * costs nothing, elsewhere a move of those after it, so a record is best built in order. */
void irq_record_put(struct irq_record *r, const struct irq_record_entry *e);
const struct irq_record_entry *irq_record_find(const struct irq_record *r, unsigned irq);
/* A comment line, then "IRQ PCI BEFORE SET" lines (CPU lists; "-" for the empty set). -EINVAL on
 * anything else, with *ret_line the line. */
int irq_record_parse(const char *text, struct irq_record *ret, unsigned *ret_line);
char *irq_record_format(const struct irq_record *r);
