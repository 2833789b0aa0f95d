/* SPDX-License-Identifier: MIT */
/* numaplan's main(): run by systemd as numaplan-generator, the generator (its own command line,
 * its own rules: never fail the boot); else, or given a command, the verbs. The one file that
 * sees both. */

#include "cli/dispatch.h"
#include "generator/generator.h"
#include "systemd/generator-files.h"

int main(int argc, char **argv) {
        if (argc > 0 && is_generator_name(argv[0]) && !cli_names_command(argc, argv))
                return generator_main(argc, argv);
        return cli_main(argc, argv);
}
