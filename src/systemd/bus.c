/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <sys/stat.h>

#include "systemd/bus.h"
#include "basic/log.h"
#include "basic/util.h"
#include "systemd/systemd-dl.h"

#define JOB_TIMEOUT_USEC (180ULL * 1000 * 1000)

bool booted_with_systemd(void) {
        struct stat st;
        return lstat("/run/systemd/system", &st) == 0 && S_ISDIR(st.st_mode);
}

/* bus_connect(), saying why it cannot connect at `level`. */
static int connect_at(sd_bus **ret, int level) {
        _cleanup_bus_ sd_bus *bus = NULL;
        int r;

        if (!booted_with_systemd())
                return log_internal(level, -EHOSTDOWN, NOT_BOOTED_WITH_SYSTEMD);

        r = dlopen_libsystemd();
        if (r < 0)
                return r;
        if (geteuid() == 0) {
                r = sym_sd_bus_new(&bus);
                if (r >= 0)
                        r = sym_sd_bus_set_address(bus, "unix:path=/run/systemd/private");
                if (r >= 0)
                        r = sym_sd_bus_start(bus);
                if (r < 0) {
                        log_debug_errno(r, "systemd's private socket: %m; trying the system bus");
                        sym_sd_bus_flush_close_unref(bus);
                        bus = NULL;
                }
        }
        if (!bus) {
                r = sym_sd_bus_open_system(&bus);
                if (r < 0)
                        return log_internal(level, r, "cannot reach systemd over D-Bus: %m");
        }
        /* A reload of a large system can take longer than sd-bus's default 25 s. */
        (void) sym_sd_bus_set_method_call_timeout(bus, JOB_TIMEOUT_USEC);
        *ret = TAKE_PTR(bus);
        return 0;
}

int bus_connect(sd_bus **ret) {
        return connect_at(ret, LOG_ERR);
}

int bus_connect_quiet(sd_bus **ret) {
        return connect_at(ret, LOG_DEBUG);
}

int bus_reload(sd_bus *bus) {
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_bus_message_ sd_bus_message *reply = NULL;

        /* systemd answers Reload only once the reload is done. */
        int r = sym_sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, "Reload", &error, &reply, "");
        if (r < 0)
                return log_error_errno(r, "systemd reload failed: %s", error.message ? error.message : strerror(-r));
        return 0;
}

int bus_unit_path(const char *unit, char **ret) {
        int r = sym_sd_bus_path_encode(SD_PATH "/unit", unit, ret);
        return r < 0 ? r : 0;
}

int bus_unit_string(sd_bus *bus, const char *unit, const char *interface, const char *property, char **ret) {
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *path = NULL;

        int r = bus_unit_path(unit, &path);
        if (r < 0)
                return r;
        r = sym_sd_bus_get_property_string(bus, SD_DEST, path, interface, property, &error, ret);
        if (r < 0)
                return log_debug_errno(r, "%s %s: %s", unit, property, error.message ? error.message : strerror(-r));
        return 0;
}

struct job_wait {
        char **done; /* job paths that JobRemoved reported */
        char **results;
        size_t n;
        char **jobs; /* the job of each unit, or NULL where none could start */
        size_t n_jobs;
};

static int on_job_removed(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        struct job_wait *w = userdata;
        const char *path, *unit, *result;
        uint32_t id;

        (void) error;
        if (sym_sd_bus_message_read(m, "uoss", &id, &path, &unit, &result) < 0)
                return 0;
        w->done = xrealloc(w->done, (w->n + 1) * sizeof(char *));
        w->results = xrealloc(w->results, (w->n + 1) * sizeof(char *));
        w->done[w->n] = xstrdup(path);
        w->results[w->n++] = xstrdup(result);
        return 0;
}

static const char *job_result(const struct job_wait *w, const char *job) {
        for (size_t i = 0; i < w->n; i++)
                if (streq(w->done[i], job))
                        return w->results[i];
        return NULL;
}

static void job_wait_done(struct job_wait *w) {
        strv_free_n(w->done, w->n);
        strv_free_n(w->results, w->n);
        strv_free_n(w->jobs, w->n_jobs);
        *w = (struct job_wait){0};
}

/* What a job does to a unit: the manager's method, and the word for it in messages. */
struct unit_job {
        const char *method, *verb, *doing;
};
static const struct unit_job job_restart = {"RestartUnit", "restart", "restarting"},
                             job_stop = {"StopUnit", "stop", "stopping"};

/* Starts a job for each unit: its job in jobs[i], or NULL after saying why. How many could not
 * be started. */
static int start_jobs(sd_bus *bus, const struct unit_job *what, char *const *units, size_t n, char **jobs) {
        int failed = 0;
        for (size_t i = 0; i < n; i++) {
                _cleanup_bus_message_ sd_bus_message *reply = NULL;
                _cleanup_bus_error_ sd_bus_error e = SD_BUS_ERROR_NULL;
                const char *job;
                int r = sym_sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, what->method, &e, &reply, "ss",
                                               units[i], "replace");
                if (r < 0 || sym_sd_bus_message_read(reply, "o", &job) < 0) {
                        log_error("cannot %s %s: %s", what->verb, units[i], e.message ? e.message : strerror(-r));
                        failed++;
                        continue;
                }
                jobs[i] = xstrdup(job);
        }
        return failed;
}

/* Waits for the job of one unit: 0 when it is done, 1 when it failed or timed out (said), -errno
 * when systemd is gone. */
static int wait_job(sd_bus *bus, struct job_wait *w, const struct unit_job *what, const char *job, const char *unit) {
        while (!job_result(w, job)) {
                int r = sym_sd_bus_process(bus, NULL);
                if (r < 0)
                        return log_error_errno(r, "lost systemd while waiting for jobs: %m");
                if (r == 0 && sym_sd_bus_wait(bus, JOB_TIMEOUT_USEC) == 0) {
                        log_error("timed out waiting for the %s of %s", what->verb, unit);
                        return 1;
                }
        }
        const char *result = job_result(w, job);
        if (streq(result, "done"))
                return 0;
        log_error("%s %s: %s (see journalctl -u %s)", what->doing, unit, result, unit);
        return 1;
}

static int run_jobs(sd_bus *bus, const struct unit_job *what, char *const *units) {
        _cleanup_bus_slot_ sd_bus_slot *slot = NULL;
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        size_t n = strv_length(units);
        _cleanup_(job_wait_done) struct job_wait w = {.jobs = xmalloc0((n + 1) * sizeof(char *)), .n_jobs = n};
        char **jobs = w.jobs;

        /* Signals reach a client only after Subscribe; match before the jobs start. */
        int r = sym_sd_bus_match_signal(bus, &slot, SD_DEST, SD_PATH, SD_MANAGER, "JobRemoved", on_job_removed, &w);
        if (r >= 0)
                r = sym_sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, "Subscribe", &error, NULL, "");
        if (r < 0)
                return log_error_errno(r, "cannot watch systemd's jobs: %s",
                                       error.message ? error.message : strerror(-r));
        int failed = start_jobs(bus, what, units, n, jobs);
        for (size_t i = 0; i < n; i++) {
                r = jobs[i] ? wait_job(bus, &w, what, jobs[i], units[i]) : 0;
                if (r < 0)
                        return r;
                failed += r;
        }
        return failed;
}

int bus_restart_units(sd_bus *bus, char *const *units) {
        return run_jobs(bus, &job_restart, units);
}

int bus_stop_units(sd_bus *bus, char *const *units) {
        return run_jobs(bus, &job_stop, units);
}

int bus_reset_failed(sd_bus *bus, const char *unit) {
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = sym_sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, "ResetFailedUnit", &error, NULL, "s", unit);
        if (r < 0)
                return log_debug_errno(r, "ResetFailedUnit %s: %s", unit, error.message ? error.message : strerror(-r));
        return 0;
}

#define SYSTEMD_MIN_VERSION 243

int bus_check_version(sd_bus *bus) {
        int version;
        if (bus_systemd_version(bus, &version) >= 0 && version < SYSTEMD_MIN_VERSION)
                return log_error_errno(-EOPNOTSUPP,
                                       "systemd %d is too old: NUMAPolicy= and NUMAMask= need systemd %d or later",
                                       version, SYSTEMD_MIN_VERSION);
        return 0;
}

int bus_systemd_version(sd_bus *bus, int *ret) {
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_free_ char *v = NULL;

        int r = sym_sd_bus_get_property_string(bus, SD_DEST, SD_PATH, SD_MANAGER, "Version", &error, &v);
        if (r < 0)
                return r;
        /* "252.39-1~deb12u1", "v255", "255-rc1": the first number. */
        const char *p = v + strcspn(v, "0123456789");
        *ret = atoi(p);
        return 0;
}

int bus_lookup_dynamic_user(sd_bus *bus, const char *name, uint32_t *ret) {
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_bus_message_ sd_bus_message *reply = NULL;
        uint32_t uid;

        int r = sym_sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, "LookupDynamicUserByName", &error, &reply,
                                       "s", name);
        if (r >= 0)
                r = sym_sd_bus_message_read(reply, "u", &uid);
        if (r < 0)
                return log_debug_errno(r, "LookupDynamicUserByName %s: %s", name,
                                       error.message ? error.message : strerror(-r));
        *ret = uid;
        return 0;
}
