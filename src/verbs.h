/* SPDX-License-Identifier: MIT */
#pragma once

/* The verb table's contract: main.c parses the global options, then calls one verb with its own
 * arguments (argv[0] is the verb name). A verb returns the process exit code. */

#include <stdbool.h>

enum {
        EXIT_OK = 0,      /* success, in sync, verified */
        EXIT_FAILED = 1,  /* verification failed; apply --check: changes pending */
        EXIT_USAGE = 2,   /* bad usage or configuration; nothing written */
        EXIT_ENV = 3,     /* environment: no systemd on the bus, no cgroup v2 cpuset, unreadable sysfs */
};

struct globals {
        const char *sysfs_root; /* "/" unless --sysfs-root */
        const char *unit_dir;   /* NULL: the default for the verb (--runtime picks /run) */
};

struct verb {
        const char *name;
        int (*run)(int argc, char **argv, const struct globals *g);
        void (*help)(void);
        const char *summary;
};

int verb_show(int argc, char **argv, const struct globals *g);
void help_show(void);
int verb_snapshot(int argc, char **argv, const struct globals *g);
void help_snapshot(void);
int verb_plan(int argc, char **argv, const struct globals *g);
void help_plan(void);
int verb_apply(int argc, char **argv, const struct globals *g);
void help_apply(void);
int verb_remove(int argc, char **argv, const struct globals *g);
void help_remove(void);
int verb_verify(int argc, char **argv, const struct globals *g);
void help_verify(void);

/* Shared by the verbs' option parsers: prints the message (if any; getopt has printed its own)
 * and a pointer to --help. Returns EXIT_USAGE. */
int verb_usage_error(const char *verb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

struct root;
struct topology;
/* Opens the root of --sysfs-root (or /) and reads the host's topology, logging what failed.
 * HOST_RECORD keeps every file read for `numaplan snapshot`; HOST_NAMES names accelerators. */
enum { HOST_RECORD = 1 << 0, HOST_NAMES = 1 << 1 };
int host_open(const struct globals *g, unsigned flags, struct root **ret_root, struct topology **ret_topology);

/* Everything a plan is made of, loaded and checked: the configuration (-c, or /etc/numaplan),
 * the host, accelerator-nodes applied, and the plan. Returns an exit code: EXIT_OK, EXIT_USAGE
 * for a bad configuration (message printed as path:line), EXIT_ENV for an unreadable host. */
struct plan_inputs {
        struct root *root;
        struct topology *topology;
        struct config *config;
        struct plan *plan;
        const char *unit_dir;
};
int plan_load(const struct globals *g, const char *config_path, bool runtime, struct plan_inputs *ret);
void plan_inputs_done(struct plan_inputs *in);

#define UNIT_DIR_PERSISTENT "/etc/systemd/system"
#define UNIT_DIR_RUNTIME "/run/systemd/system"
