/* SPDX-License-Identifier: MIT */
#pragma once

/* Generator mode: with numaplan-generator installed (or --generator-dir naming its directory),
 * the drop-ins are the generator's, `plan`, `verify` and `status` look there, and `apply` and
 * `remove` never write a drop-in of their own: they take apply's persistent drop-ins away (a
 * same-named drop-in in /etc/systemd/system or /run/systemd/system would win over the
 * generator's), record what `remove` took out, and reload, which runs the generator again. */

#include <stdbool.h>

struct changeset;
struct inputs;
struct irq_step;
struct pool_changes;

/* apply in generator mode: `gen` is the generator's directory against the plan. Removes apply's
 * drop-ins and the record of `remove`, reloads (the generator writes the plan), and checks that
 * the generator's directory then holds the plan. irqbalance's drop-in (`irqbalance`, taken; NULL
 * for none) is apply's still, in the first of apply's directories: the generator writes no
 * interrupt's number, which drivers give out after it ran. Returns the exit code. */
int generator_apply(const struct inputs *in, const struct changeset *gen, const struct pool_changes *pools,
                    char *irqbalance, struct irq_step *irqs, bool check, bool diff, bool reload, bool restart, bool json);
/* remove in generator mode: apply's drop-ins of `units` (all when empty) are removed, the units
 * recorded for the generator to leave out until the next boot, and systemd reloaded; `irqs`
 * (NULL: none) gives back numaplan's interrupts. */
int generator_remove(const struct inputs *in, char *const *units, const struct pool_changes *pools, struct irq_step *irqs,
                     bool reload, bool json);
