/* SPDX-License-Identifier: MIT */
#pragma once

/* numaplan as a systemd generator (systemd.generator(7)).
 *
 * Run as "numaplan-generator" by systemd at boot and at every daemon-reload, numaplan writes the
 * replicas' drop-ins into the generator's normal directory (/run/systemd/generator): the plan of
 * this configuration on this boot's hardware, with no reload on the boot path. With the generator
 * installed (generator mode, cli/generator-mode.h) apply and remove leave the drop-ins to it. */

#include <stddef.h>

/* The units a configuration's text names (NULL-terminated), as the generator keeps them from
 * starting when it has no plan: from the configuration when the text parses alone, else from its
 * `unit =` lines; a template's unit as its template ("tp@.service"). */
char **generator_units_of_text(const char *text, size_t len, const char *name);
/* The drop-in that keeps a unit from starting: it asserts `marker`, with `why`, escaped, on its
 * second line. */
char *generator_block_text(const char *why, const char *marker);

/* numaplan-generator NORMAL [EARLY LATE]. Never fails the boot: exits 0 whatever the plan; 2 only
 * for a command line systemd never gives. */
int generator_main(int argc, char **argv);
