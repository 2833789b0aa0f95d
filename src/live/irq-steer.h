/* SPDX-License-Identifier: MIT */
#pragma once

/* Steering interrupts to the CPUs apply chose (core/irqs.h) and giving them back: each one's
 * <proc_irq>/N/smp_affinity_list, with what it was set to before numaplan recorded in a file
 * beside numaplan's other state, so that `remove` (and an apply whose plan no longer steers it)
 * sets it back. The directory is a parameter so that tests run on a copy. */

#include <stdbool.h>

#include "basic/cpuset.h"
#include "core/pci.h"

struct irq_targets;

#define PROC_IRQ_DIR "/proc/irq"

enum irq_action {
        IRQ_UNCHANGED, /* steered already, or nothing to give back */
        IRQ_STEERED,   /* set to numaplan's CPUs */
        IRQ_RESTORED,  /* given back: set to what it was before numaplan */
        IRQ_LEFT,      /* left as it is (said): to give back, but changed since numaplan set it; or
                        * the kernel manages its affinity (error -EIO) */
        IRQ_FAILED,    /* the read or the write failed (said): as it was */
};

struct irq_change {
        unsigned irq;
        char pci[PCI_ADDRESS_MAX];
        enum irq_action action;      /* with `dry`, what would be done */
        bool has_before;             /* `before` could be read */
        struct cpuset before, after; /* the CPUs it is set to before, and after (or would be) */
        int error;                   /* IRQ_FAILED: -errno; IRQ_LEFT: -EIO, the kernel manages its affinity */
};

struct irq_changes {
        struct irq_change *v; /* by number */
        size_t n;
};

void irq_changes_done(struct irq_changes *c);
#define _cleanup_irq_changes_ __attribute__((cleanup(irq_changes_done)))
/* Whether an interrupt's CPUs change, or would. */
bool irq_changes_any(const struct irq_changes *c);
bool irq_changes_failed(const struct irq_changes *c);
const char *irq_action_to_string(enum irq_action a);

/* Sets every interrupt of `want`'s devices (NULL: none) to its target's CPUs, gives back each one
 * the record holds that `want` no longer steers, and records what numaplan set and what was there
 * before (kept from the first apply that set it). With `dry`, reads and reckons only. Returns 0
 * (a write that failed is an IRQ_FAILED change, said), or -errno (said) when the record cannot be
 * read or written. */
int irqs_steer(const char *proc_irq, const char *record, const struct irq_targets *want, bool dry,
               struct irq_changes *ret);

/* irqbalance's binary, as its unit runs it: the first of /usr/sbin, /usr/bin and /sbin that holds
 * one, else /usr/sbin/irqbalance (Debian's). */
const char *irqbalance_exe(void);
