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

int bus_connect(sd_bus **ret) {
        _cleanup_bus_ sd_bus *bus = NULL;
        int r;

        if (!booted_with_systemd())
                return log_error_errno(-EHOSTDOWN, NOT_BOOTED_WITH_SYSTEMD);

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
                        return log_error_errno(r, "cannot reach systemd over D-Bus: %m");
        }
        /* A reload of a large system can take longer than sd-bus's default 25 s. */
        (void) sym_sd_bus_set_method_call_timeout(bus, JOB_TIMEOUT_USEC);
        *ret = TAKE_PTR(bus);
        return 0;
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

int bus_restart_units(sd_bus *bus, char *const *units) {
        _cleanup_bus_slot_ sd_bus_slot *slot = NULL;
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        struct job_wait w = {0};
        size_t n = strv_length(units);
        char **jobs = xmalloc0((n + 1) * sizeof(char *));
        int r, failed = 0;

        /* Signals reach a client only after Subscribe; match before the jobs start. */
        r = sym_sd_bus_match_signal(bus, &slot, SD_DEST, SD_PATH, SD_MANAGER, "JobRemoved", on_job_removed, &w);
        if (r >= 0)
                r = sym_sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, "Subscribe", &error, NULL, "");
        if (r < 0) {
                log_error_errno(r, "cannot watch systemd's jobs: %s", error.message ? error.message : strerror(-r));
                goto out;
        }

        for (size_t i = 0; i < n; i++) {
                _cleanup_bus_message_ sd_bus_message *reply = NULL;
                _cleanup_bus_error_ sd_bus_error e = SD_BUS_ERROR_NULL;
                const char *job;
                r = sym_sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, "RestartUnit", &e, &reply, "ss", units[i],
                                           "replace");
                if (r < 0 || sym_sd_bus_message_read(reply, "o", &job) < 0) {
                        log_error("cannot restart %s: %s", units[i], e.message ? e.message : strerror(-r));
                        failed++;
                        continue;
                }
                jobs[i] = xstrdup(job);
        }

        for (size_t i = 0; i < n; i++) {
                while (jobs[i] && !job_result(&w, jobs[i])) {
                        r = sym_sd_bus_process(bus, NULL);
                        if (r < 0) {
                                log_error_errno(r, "lost systemd while waiting for jobs: %m");
                                goto out;
                        }
                        if (r == 0 && sym_sd_bus_wait(bus, JOB_TIMEOUT_USEC) == 0) {
                                log_error("timed out waiting for the restart of %s", units[i]);
                                failed++;
                                break;
                        }
                }
                const char *result = jobs[i] ? job_result(&w, jobs[i]) : NULL;
                if (result && !streq(result, "done")) {
                        log_error("restarting %s: %s (see journalctl -u %s)", units[i], result, units[i]);
                        failed++;
                }
        }
        r = failed;
out:
        for (size_t i = 0; i < w.n; i++) {
                free(w.done[i]);
                free(w.results[i]);
        }
        free(w.done);
        free(w.results);
        for (size_t i = 0; i < n; i++)
                free(jobs[i]);
        free(jobs);
        return r;
}

#define SYSTEMD_MIN_VERSION 243

int bus_check_version(sd_bus *bus) {
        int version;
        if (bus_systemd_version(bus, &version) >= 0 && version < SYSTEMD_MIN_VERSION)
                return log_error_errno(-EOPNOTSUPP, "systemd %d is too old: NUMAPolicy= and NUMAMask= need systemd %d or later",
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

        int r = sym_sd_bus_call_method(bus, SD_DEST, SD_PATH, SD_MANAGER, "LookupDynamicUserByName", &error, &reply, "s",
                                       name);
        if (r >= 0)
                r = sym_sd_bus_message_read(reply, "u", &uid);
        if (r < 0)
                return log_debug_errno(r, "LookupDynamicUserByName %s: %s", name, error.message ? error.message : strerror(-r));
        *ret = uid;
        return 0;
}
