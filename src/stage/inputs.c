/* SPDX-License-Identifier: MIT */
#include <libgen.h>
#include <sys/stat.h>

#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/util.h"
#include "core/config.h"
#include "core/irqs.h"
#include "core/planner.h"
#include "core/topology.h"
#include "core/tuning-checks.h"
#include "core/unit-name.h"
#include "host/config-files.h"
#include "host/host-warnings.h"
#include "host/root.h"
#include "host/topology-read.h"
#include "stage/inputs.h"
#include "systemd/bus.h"
#include "systemd/generator-files.h"
#include "systemd/journal.h"
#include "systemd/systemd-dl.h"
#include "systemd/unit-state.h"

/* One of systemd's unit directories, by name or by identity (a link to one, a bind mount of one). */
bool is_systemd_unit_dir(const char *dir) {
        static const char *const dirs[] = {UNIT_DIR_PERSISTENT, UNIT_DIR_RUNTIME};
        struct stat st, sys;
        bool known = stat(dir, &st) == 0;

        for (size_t i = 0; i < ELEMENTSOF(dirs); i++)
                if (streq(dir, dirs[i]) ||
                    (known && stat(dirs[i], &sys) == 0 && st.st_dev == sys.st_dev && st.st_ino == sys.st_ino))
                        return true;
        return false;
}

void inputs_dirs(const struct globals *g, bool runtime, struct inputs *in) {
        in->unit_dir = g->unit_dir ? g->unit_dir : runtime ? UNIT_DIR_RUNTIME : UNIT_DIR_PERSISTENT;
        free(in->marker);
        in->system_dirs = is_systemd_unit_dir(in->unit_dir);
        in->live = streq(g->sysfs_root, "/");
        _cleanup_free_ char *own =
                g->runtime_dir || in->system_dirs ? NULL : xasprintf("%s/" STATE_RUNTIME_SUBDIR, in->unit_dir);
        state_paths_init(&in->state, g->runtime_dir ? g->runtime_dir : own ? own : STATE_RUNTIME_DIR);
        in->marker = xstrdup(in->state.unplaced);
        /* Generator mode: the drop-ins are the generator's, and so is their marker, which it
         * writes where it may write, in its own directory; the lock stays apply's. */
        const char *gen = generator_dir_for(g->generator_dir, g->unit_dir, g->sysfs_root);
        in->generator = gen != NULL;
        in->apply_dirs[0] = in->apply_dirs[1] = NULL;
        if (gen) {
                in->apply_dirs[0] = in->unit_dir;
                if (in->system_dirs) /* both of systemd's directories outrank the generator's */
                        in->apply_dirs[1] =
                                streq(in->unit_dir, UNIT_DIR_RUNTIME) ? UNIT_DIR_PERSISTENT : UNIT_DIR_RUNTIME;
                in->unit_dir = gen;
                free(in->marker);
                in->marker = xasprintf("%s/" STATE_GENERATOR_MARKER, gen);
        }
        free(in->exe);
        /* The binary that writes the drop-ins is the one they run: a path that exists now (in
         * generator mode, the generator's, which writes them). */
        in->exe = in->generator ? generator_exe_for(g->generator_dir) : NULL;
        if (!in->exe)
                in->exe = self_exe();
        in->env = (struct dropin_env){.marker = in->marker,
                                      .marker_blocks = !in->generator,
                                      .exe = in->exe,
                                      .models = in->state.models,
                                      .nics = in->state.nics};
}

bool plan_units_valid(const struct plan *plan) {
        for (size_t i = 0; i < plan->n_replicas; i++) {
                const char *why;
                if (!unit_name_is_valid_service(plan->replicas[i].unit, &why)) {
                        log_error_at(replica_where(plan->replicas[i].conf, REPLICA_UNIT), "unit '%s' %s",
                                     plan->replicas[i].unit, why);
                        return false;
                }
        }
        return true;
}

void inputs_journal(const struct inputs *in, bool live) {
        if (live && in->system_dirs && (!in->generator || streq(in->unit_dir, GENERATOR_DIR)))
                journal_enable();
}

int inputs_host(const struct globals *g, unsigned flags, const struct config *config, struct inputs *in) {
        struct error_at err = {0};

        int r = root_open(g->sysfs_root, flags & INPUTS_RECORD ? ROOT_RECORD : 0, &in->root);
        if (r < 0) {
                log_error_errno(r, "cannot open %s: %m", g->sysfs_root);
                return EXIT_ENV;
        }
        in->live = root_is_live(in->root);
        r = topology_read(
                in->root,
                (flags & INPUTS_NAMES ? TOPOLOGY_NAMES : 0) | (flags & INPUTS_DEVICES ? TOPOLOGY_DEVICES : 0) |
                        (flags & INPUTS_TUNING ? TOPOLOGY_TUNING : 0) | (flags & INPUTS_NICS ? TOPOLOGY_NICS : 0) |
                        (flags & INPUTS_IRQS ? TOPOLOGY_IRQS : 0) | (flags & INPUTS_CPU_KINDS ? TOPOLOGY_KINDS : 0) |
                        (flags & INPUTS_L3 ? TOPOLOGY_L3 : 0),
                &in->warnings, &in->topology);
        if (r < 0)
                return EXIT_ENV;
        r = EXIT_OK;
        if (config && topology_apply_overrides(in->topology, config, &err) < 0) {
                log_error_at_done(&err);
                r = EXIT_USAGE;
        }
        host_warnings_collect(in->root, in->topology, &in->warnings);
        if (flags & INPUTS_IRQS) /* once the overrides say each device's node */
                irq_warnings(in->topology, &in->warnings);
        if (flags & INPUTS_TUNING)
                inputs_tuning_warnings(in, config);
        return r;
}

void inputs_tuning_warnings(struct inputs *in, const struct config *config) {
        _cleanup_plan_ struct plan *own = NULL;
        const struct plan *p = in->plan;

        /* Only cpu-governor and swap-bound-replica need one; what it decides is plan's to say. */
        if (!p && config && tuning_wants_plan(in->topology) && warnings_count(&in->warnings, SEVERITY_ERROR) == 0) {
                struct warnings quiet = {0};
                struct error_at err = {0};
                if (plan_compute(in->topology, config, &quiet, &own, &err) >= 0)
                        p = own;
                error_at_done(&err);
                warnings_done(&quiet);
        }
        tuning_warnings(in->topology, p, &in->warnings);
}

void inputs_read_tuning(struct inputs *in) {
        topology_read_tuning(in->root, in->topology, &in->warnings);
        inputs_tuning_warnings(in, in->config);
}

/* What the configuration names that is not there. Units are asked of systemd when they are this
 * host's (a live root, systemd's unit directories); a test's unit directory, or a replayed host's
 * units, are looked for as files. */
static void named_warnings(const struct globals *g, struct inputs *in) {
        const char *dir = g->unit_dir && !is_systemd_unit_dir(g->unit_dir) ? g->unit_dir : NULL;
        _cleanup_bus_ sd_bus *bus = NULL;

        config_model_warnings(in->config, &in->warnings);
        if (!dir && root_is_live(in->root))
                (void) bus_connect_quiet(&bus);
        plan_unit_warnings(in->plan, bus, dir, &in->warnings);
}

/* Whether rule 5 may split a node's cores: between replicas, or for cores:N. Only then is a
 * node's L3 of use to the plan. */
static bool may_split_nodes(const struct config *c) {
        size_t split = 0;
        for (size_t i = 0; i < c->n_replicas; i++)
                split += c->replicas[i].is_template || c->replicas[i].cores ? 2 : 1;
        return split > 1;
}

int inputs_load(const struct globals *g, const char *config_path, bool runtime, unsigned flags, struct inputs *ret) {
        struct inputs in = {0};
        struct error_at err = {0};

        inputs_dirs(g, runtime, &in);
        int r = config_load(config_path, &in.config);
        if (r < 0) {
                inputs_done(&in);
                return r == -ENOENT || r == -EINVAL || r == -EPERM ? EXIT_USAGE : EXIT_ENV;
        }
        if (config_wants_nics(in.config))
                flags |= INPUTS_NICS;
        if (flags & INPUTS_IRQS_ASKED && config_irq_affinity_any(in.config))
                flags |= INPUTS_DEVICES | INPUTS_IRQS;
        flags |= INPUTS_CPU_KINDS | (may_split_nodes(in.config) ? INPUTS_L3 : 0);
        r = inputs_host(g, flags, in.config, &in);
        /* What the host does not let numaplan read right makes any plan wrong: say each, plan
         * nothing. `show` still shows the rest. */
        if (r == EXIT_OK && warnings_count(&in.warnings, SEVERITY_ERROR) > 0) {
                for (size_t i = 0; i < in.warnings.n; i++)
                        if (warning_kinds[in.warnings.v[i].code].severity == SEVERITY_ERROR)
                                log_error("%s: %s", warning_code(&in.warnings.v[i]), in.warnings.v[i].message);
                log_error("no plan on this host until that is fixed (numaplan show shows the rest)");
                r = EXIT_ENV;
        }
        if (r == EXIT_OK && plan_compute(in.topology, in.config, &in.warnings, &in.plan, &err) < 0) {
                log_error_at_done(&err);
                r = EXIT_USAGE;
        }
        if (r != EXIT_OK) {
                inputs_done(&in);
                return r;
        }
        if (flags & INPUTS_NAMED)
                named_warnings(g, &in);
        /* -v: every decision and why, per replica (stderr: stdout is the verb's). */
        for (size_t i = 0; i < in.plan->n_replicas; i++)
                for (size_t j = 0; j < in.plan->replicas[i].n_why; j++)
                        log_info("%s: %s", in.plan->replicas[i].name, in.plan->replicas[i].why[j]);
        *ret = in;
        return EXIT_OK;
}

void inputs_done(struct inputs *in) {
        plan_free(in->plan);
        config_free(in->config);
        topology_free(in->topology);
        root_free(in->root);
        warnings_done(&in->warnings);
        state_paths_done(&in->state);
        free(in->marker);
        free(in->exe);
        *in = (struct inputs){0};
}

int inputs_select(const struct inputs *in, int argc, char **argv, const struct placement ***ret, size_t *ret_n) {
        const struct placement **v = xmalloc0((in->plan->n_replicas + 1) * sizeof(*v));
        size_t n = 0;
        int r = EXIT_OK;

        for (size_t i = 0; i < in->plan->n_replicas; i++) {
                bool wanted = argc == 0;
                for (int k = 0; k < argc && !wanted; k++) {
                        _cleanup_free_ char *u = unit_name_mangle(argv[k]);
                        wanted = streq(u, in->plan->replicas[i].unit);
                }
                if (wanted)
                        v[n++] = &in->plan->replicas[i];
        }
        for (int k = 0; k < argc; k++) {
                _cleanup_free_ char *u = unit_name_mangle(argv[k]);
                bool known = false;
                for (size_t i = 0; i < n && !known; i++)
                        known = streq(u, v[i]->unit);
                if (!known) {
                        log_error("%s is not a replica unit of the configuration", u);
                        r = EXIT_USAGE;
                }
        }
        *ret = v;
        *ret_n = n;
        return r;
}

int inputs_lock(const struct inputs *in, bool create, int *ret_fd) {
        const char *lock = in->state.lock;
        _cleanup_free_ char *copy = xstrdup(lock);

        *ret_fd = -1;
        /* A command that writes nothing (apply --check) creates nothing: it waits for a holder
         * when there can be one, and otherwise needs no lock. */
        if (!create && access(lock, F_OK) < 0)
                return EXIT_OK;
        int r = mkdir_parents(dirname(copy), 0755);
        if (r < 0) {
                log_error_errno(r, "cannot create the directory of %s: %m", lock);
                return EXIT_ENV;
        }
        /* Bounded: a holder that hangs must not hang every later apply of the host with it. */
        unsigned timeout = LOCK_TIMEOUT_S;
        const char *e = getenv("NUMAPLAN_LOCK_TIMEOUT");
        if (e && parse_uint64(e, 10, &(uint64_t){0}) >= 0)
                timeout = (unsigned) strtoul(e, NULL, 10);
        int fd = lock_file(lock, timeout);
        if (fd == -ETIMEDOUT)
                return EXIT_ENV; /* said who holds it */
        if (fd < 0) {
                log_error_errno(fd, "cannot take the apply lock %s: %m", lock);
                return EXIT_ENV;
        }
        *ret_fd = fd;
        return EXIT_OK;
}

static void log_one_warning(const struct warning *first, const char *text, _unused_ void *userdata) {
        if (warning_kinds[first->code].severity == SEVERITY_WARNING)
                log_warning("%s: %s", warning_code(first), text);
}

/* As show and plan print them: each code once, -v each in full. */
void log_warnings(const struct warnings *w, bool each) {
        warnings_for_text(w, each || log_get_max_level() >= LOG_INFO, log_one_warning, NULL);
}
