/* SPDX-License-Identifier: MIT */
#pragma once

/* What places the replicas at the next boot: numaplan-generator when it is installed, else
 * numaplan.service when something wants it at boot (systemctl enable: a link in a unit
 * directory's sysinit.target.wants/), else nothing, and then apply's drop-ins stay as written,
 * not re-planned for the hardware found at that boot. Read from the unit files systemd reads at
 * boot, as `systemctl is-enabled` does, so that a test's unit directory stands for a host's. */

#include <stdbool.h>

#define BOOT_SERVICE "numaplan.service"

enum boot_step_kind {
        BOOT_STEP_NONE,
        BOOT_STEP_SERVICE,
        BOOT_STEP_GENERATOR,
};

struct boot_step {
        enum boot_step_kind kind;
        char *where;          /* the link that wants numaplan.service, or the generator; NULL for none */
        const char *why_none; /* for none: what the service lacks */
};

/* For drop-ins in `unit_dir`: systemd's own directories when `system_dirs` (this host's next
 * boot), else `unit_dir` alone (a test's tree: its sysinit.target.wants/ and its mask); in
 * `generator` mode, the generator. */
void boot_step_find(const char *unit_dir, bool system_dirs, bool generator, struct boot_step *ret);
void boot_step_done(struct boot_step *b);
/* "numaplan.service", "numaplan-generator", or NULL for none. */
const char *boot_step_name(const struct boot_step *b);
/* The warning that no boot step will run (for none), or the sentence naming the one that will. */
char *boot_step_describe(const struct boot_step *b);
