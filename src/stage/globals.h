/* SPDX-License-Identifier: MIT */
#pragma once

/* What every run starts from, the verbs' and the generator's alike: the global options, and the
 * exit codes a run ends with. Only the two programs above this layer exit with them. */

enum {
        EXIT_OK = 0,     /* success, in sync, verified */
        EXIT_FAILED = 1, /* verification failed; apply --check: changes pending */
        EXIT_USAGE = 2,  /* bad usage or configuration; nothing written */
        EXIT_ENV = 3,    /* environment: no systemd on the bus, no cgroup v2 cpuset, unreadable sysfs */
};

struct globals {
        const char *sysfs_root;    /* "/" unless --sysfs-root */
        const char *unit_dir;      /* --unit-dir, or NULL: the verb's default (--runtime picks /run) */
        const char *runtime_dir;   /* --runtime-dir, or NULL: see inputs_dirs() */
        const char *generator_dir; /* --generator-dir, or NULL: see cli/generator-mode.h */
};
