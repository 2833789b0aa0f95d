/* SPDX-License-Identifier: MIT */
#include "basic/log.h"
#include "basic/util.h"
#include "core/dropin.h"
#include "core/placement.h"
#include "host/trusted-path.h"
#include "stage/inputs.h"
#include "stage/trust.h"

/* `path`, run or read by root for `unit` as `what`: EXIT_OK, or EXIT_USAGE said. */
static int check(const char *path, unsigned flags, const char *unit, const char *what, const char *fix) {
        _cleanup_(untrusted_done) struct untrusted u = {0};

        int r = path_trusted(path, flags, &u);
        if (r > 0)
                return EXIT_OK;
        if (r < 0) {
                log_error_errno(r, "cannot look at %s, which %s's drop-in would have root %s: %m; nothing written",
                                path, unit, what);
                return EXIT_USAGE;
        }
        log_error("%s %s: another user could replace it, and %s's drop-in would have root %s at every start of it; "
                  "nothing written. %s",
                  u.path, u.why, unit, what, fix);
        return EXIT_USAGE;
}

int inputs_check_trusted(const struct inputs *in, const char *irqbalance) {
        for (size_t i = 0; i < in->plan->n_replicas; i++) {
                const struct placement *pl = &in->plan->replicas[i];
                if (!dropin_runs_prepare(in->topology, pl, &in->env))
                        continue;
                _cleanup_free_ char *run = xasprintf("run %s (ExecStartPre=+)", in->exe);
                int r = check(in->exe, 0, pl->unit, run,
                              "Install numaplan (meson install, or the Debian package) and run the installed binary: "
                              "the drop-ins name the binary that wrote them");
                if (r != EXIT_OK)
                        return r;
                _cleanup_free_ char *write = xasprintf("write into %s and read its files", in->state.runtime_dir);
                r = check(in->state.runtime_dir, TRUST_DIRECTORY | TRUST_MISSING_OK, pl->unit, write,
                          "Give --runtime-dir a directory that only root can write, or leave it to its default");
                if (r != EXIT_OK)
                        return r;
                break; /* the same binary and directory for every replica */
        }
        /* Not installed (a test's tree, a host without it): its drop-in runs nothing until a
         * package puts it there, and a directory root holds is where a package would. */
        if (irqbalance)
                return check(irqbalance, TRUST_MISSING_OK, "irqbalance.service", "run it",
                             "Install irqbalance from the distribution's package");
        return EXIT_OK;
}
