/* SPDX-License-Identifier: MIT */
#pragma once

/* The interrupts of the accelerators and network adapters already found (core/irqs.h), read
 * under the root so that captures replay them: a device's msi_irqs/ (its message-signalled
 * interrupts), else its irq (the legacy line; 0 is none), and each interrupt's
 * /proc/irq/N/smp_affinity_list and effective_affinity_list. A file that is there but malformed
 * is a sysfs-malformed warning in `w`; one that is absent leaves its fact unknown. */

#include "core/warnings.h"

struct root;
struct topology;

void irqs_read(struct root *root, struct topology *t, struct warnings *w);
/* Whether irqbalance runs: the pid of a process named irqbalance in /proc, -1 for none, 0 when
 * the root shows no process at all (a fixture, a capture from before). The names of the other
 * processes stay out of a snapshot: it keeps irqbalance's, else that of the first process, which
 * replays "none runs". */
int irqbalance_find(struct root *root);
