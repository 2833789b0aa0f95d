/* SPDX-License-Identifier: MIT */
#pragma once

/* What the drop-ins hand to root at every start of a replica: the binary ExecStartPre=+ runs
 * (prepare), the directory it writes the model copies and the adapters' variables into, which
 * systemd then reads into the replica's environment (EnvironmentFile=), and the binary
 * irqbalance's drop-in runs. A user who can replace any of them, or a directory above, would be
 * root at the next start: apply and the generator refuse to write such drop-ins. */

struct inputs;

/* EXIT_OK when each path the plan's drop-ins hand to root is root's alone (host/trusted-path.h),
 * or none is handed over; else EXIT_USAGE, after saying which path, why, and what to do.
 * `irqbalance`: the binary irqbalance's drop-in names, NULL when there is none. */
int inputs_check_trusted(const struct inputs *in, const char *irqbalance);
