/* SPDX-License-Identifier: MIT */
#include <sys/stat.h>

#include "basic/log.h"
#include "basic/util.h"
#include "core/placement.h"
#include "core/warnings.h"
#include "systemd/bus.h"
#include "systemd/systemd-dl.h"
#include "systemd/unit-state.h"

static int get_string(sd_bus *bus, const char *path, const char *iface, const char *name, char **ret) {
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = sym_sd_bus_get_property_string(bus, SD_DEST, path, iface, name, &error, ret);
        if (r < 0)
                log_debug("%s %s: %s", path, name, error.message ? error.message : strerror(-r));
        return r;
}

/* systemd's CPU and node sets travel as byte arrays, bit n in byte n/8. A property the running
 * systemd lacks reads as the empty set. */
static int get_set(sd_bus *bus, const char *path, const char *name, struct cpuset *ret) {
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_bus_message_ sd_bus_message *reply = NULL;
        const void *p;
        size_t n;

        cpuset_clear(ret);
        int r = sym_sd_bus_get_property(bus, SD_DEST, path, SD_SERVICE, name, &error, &reply, "ay");
        if (r < 0)
                return 0;
        r = sym_sd_bus_message_read_array(reply, 'y', &p, &n);
        if (r < 0)
                return r;
        return cpuset_from_bytes(p, n, ret);
}

int unit_state_read(sd_bus *bus, const char *unit, struct unit_state *ret) {
        _cleanup_free_ char *path = NULL;
        struct unit_state s = {.numa_policy = -1};
        int r;

        r = bus_unit_path(unit, &path);
        if (r < 0)
                return log_error_errno(r, "%s: %m", unit);
        r = get_string(bus, path, SD_UNIT, "LoadState", &s.load_state);
        if (r < 0)
                return log_error_errno(r, "cannot ask systemd about %s: %m", unit);
        (void) get_string(bus, path, SD_UNIT, "ActiveState", &s.active_state);
        (void) get_string(bus, path, SD_UNIT, "SubState", &s.sub_state);
        (void) get_string(bus, path, SD_SERVICE, "ControlGroup", &s.control_group);
        (void) sym_sd_bus_get_property_strv(bus, SD_DEST, path, SD_UNIT, "DropInPaths", NULL, &s.dropin_paths);
        (void) sym_sd_bus_get_property_trivial(bus, SD_DEST, path, SD_SERVICE, "NUMAPolicy", NULL, 'i', &s.numa_policy);
        int from_numa = 0;
        (void) sym_sd_bus_get_property_trivial(bus, SD_DEST, path, SD_SERVICE, "CPUAffinityFromNUMA", NULL, 'b',
                                               &from_numa);
        s.cpu_affinity_from_numa = from_numa;
        static const char *const sets[] = {"NUMAMask", "CPUAffinity", "EffectiveCPUs", "EffectiveMemoryNodes"};
        struct cpuset *dst[] = {&s.numa_mask, &s.cpu_affinity, &s.effective_cpus, &s.effective_mems};
        for (size_t i = 0; i < ELEMENTSOF(sets); i++)
                if (get_set(bus, path, sets[i], dst[i]) < 0)
                        log_warning("%s: cannot decode %s", unit, sets[i]);
        if (!s.dropin_paths)
                s.dropin_paths = xmalloc0(sizeof(char *));
        *ret = s;
        return 0;
}

int unit_status_read(sd_bus *bus, const char *unit, struct unit_status *ret) {
        _cleanup_bus_error_ sd_bus_error error = SD_BUS_ERROR_NULL;
        _cleanup_bus_message_ sd_bus_message *reply = NULL;
        _cleanup_free_ char *path = NULL;
        struct unit_status s = {0};
        int r;

        r = bus_unit_path(unit, &path);
        if (r < 0)
                return log_error_errno(r, "%s: %m", unit);
        r = sym_sd_bus_call_method(bus, SD_DEST, path, "org.freedesktop.DBus.Properties", "GetAll", &error, &reply, "s",
                                   SD_UNIT);
        if (r < 0)
                return log_error_errno(r, "cannot ask systemd about %s: %s", unit,
                                       error.message ? error.message : strerror(-r));
        r = sym_sd_bus_message_enter_container(reply, 'a', "{sv}");
        while (r > 0 && (r = sym_sd_bus_message_enter_container(reply, 'e', "sv")) > 0) {
                const char *name;
                char **dst = NULL;
                r = sym_sd_bus_message_read(reply, "s", &name);
                if (r < 0)
                        break;
                if (streq(name, "LoadState"))
                        dst = &s.load_state;
                else if (streq(name, "ActiveState"))
                        dst = &s.active_state;
                else if (streq(name, "SubState"))
                        dst = &s.sub_state;
                if (dst) {
                        const char *v;
                        r = sym_sd_bus_message_read(reply, "v", "s", &v);
                        if (r >= 0)
                                *dst = xstrdup(v);
                } else if (streq(name, "DropInPaths")) {
                        r = sym_sd_bus_message_enter_container(reply, 'v', "as");
                        if (r >= 0)
                                r = sym_sd_bus_message_read_strv(reply, &s.dropin_paths);
                        if (r >= 0)
                                r = sym_sd_bus_message_exit_container(reply);
                } else if (streq(name, "ActiveEnterTimestamp"))
                        r = sym_sd_bus_message_read(reply, "v", "t", &s.active_enter_usec);
                else
                        r = sym_sd_bus_message_skip(reply, "v");
                if (r >= 0)
                        r = sym_sd_bus_message_exit_container(reply);
        }
        if (r < 0) {
                unit_status_done(&s);
                return log_error_errno(r, "cannot read what systemd says of %s: %m", unit);
        }
        if (!s.dropin_paths)
                s.dropin_paths = xmalloc0(sizeof(char *));
        *ret = s;
        return 0;
}

void unit_status_done(struct unit_status *s) {
        free(s->load_state);
        free(s->active_state);
        free(s->sub_state);
        strv_free(s->dropin_paths);
        *s = (struct unit_status){0};
}

/* systemd's unit path for system units, but the generators' and the transient directories, whose
 * units live only while systemd runs. */
static const char *const unit_path[] = {"/etc/systemd/system",           "/run/systemd/system",
                                        "/usr/local/lib/systemd/system", "/usr/lib/systemd/system",
                                        "/lib/systemd/system",           NULL};

/* Whether `name` is a file in one of `dirs` (NULL-terminated): a link followed, so that one to
 * /dev/null, a masked unit, is known. One stat a directory until found. */
static bool file_known(const char *const *dirs, const char *name) {
        for (size_t i = 0; dirs[i]; i++) {
                _cleanup_free_ char *path = xasprintf("%s/%s", dirs[i], name);
                struct stat st;
                if (stat(path, &st) == 0)
                        return true;
        }
        return false;
}

/* An instance's template ("x@1.service" gives "x@.service"), or NULL for a unit that is none. */
static char *template_of(const char *unit) {
        const char *at = strchr(unit, '@'), *dot = strrchr(unit, '.');
        if (!at || !dot || dot < at + 2)
                return NULL;
        return xasprintf("%.*s%s", (int) (at - unit + 1), unit, dot);
}

int unit_known(sd_bus *bus, const char *dir, const char *unit) {
        if (bus) {
                _cleanup_free_ char *state = NULL;
                int r = bus_unit_string(bus, unit, SD_UNIT, "LoadState", &state);
                return r < 0 ? r : !streq(state, "not-found");
        }
        const char *const own[] = {dir, NULL}, *const *dirs = dir ? own : unit_path;
        _cleanup_free_ char *template = template_of(unit);
        /* The template first: the one file all of its instances share. */
        return (template && file_known(dirs, template)) || file_known(dirs, unit);
}

/* Where the answer came from, for the message. */
static char *unknown_how(sd_bus *bus, const char *dir, bool instances) {
        if (bus)
                return xstrdup("LoadState=not-found");
        const char *what = instances ? "no unit file of that name, nor its template's," : "no unit file of that name";
        if (dir)
                return xasprintf("%s in %s", what, dir);
        return xasprintf("%s in systemd's unit path, %s, %s, %s, %s or %s", what, unit_path[0], unit_path[1],
                         unit_path[2], unit_path[3], unit_path[4]);
}

void plan_unit_warnings(const struct plan *p, sd_bus *bus, const char *dir, struct warnings *w) {
        const char *const own[] = {dir, NULL}, *const *dirs = dir ? own : unit_path;

        for (size_t i = 0; i < p->n_replicas;) {
                const struct replica_conf *r = p->replicas[i].conf;
                struct strbuf units = {0};
                size_t n = 0, shown = 0;
                bool ask = bus != NULL;
                /* A template's instances stand together in the plan: one warning for them, and one
                 * look for their template's file, which most have. */
                _cleanup_free_ char *template = template_of(p->replicas[i].unit);
                bool shared = !ask && template && file_known(dirs, template);
                for (; i < p->n_replicas && p->replicas[i].conf == r; i++) {
                        const char *unit = p->replicas[i].unit;
                        int k = shared ? 1 : ask ? unit_known(bus, NULL, unit) : file_known(dirs, unit);
                        if (k < 0) /* the bus cannot say: the files do */
                                ask = false, k = unit_known(NULL, dir, unit);
                        if (k > 0)
                                continue;
                        if (n++ < 3)
                                strbuf_printf(&units, "%s%s", shown++ ? ", " : "", unit);
                }
                if (n == 0) {
                        strbuf_done(&units);
                        continue;
                }
                if (n > shown)
                        strbuf_printf(&units, " and %zu more", n - shown);
                _cleanup_free_ char *how = unknown_how(ask ? bus : NULL, dir, template != NULL);
                struct where at = replica_where(r, REPLICA_UNIT);
                warnings_add(
                        w, WARNING_UNIT_UNKNOWN, r->name,
                        "%s:%u: [%s %s]: systemd knows no unit %s (%s): its drop-in pins nothing until the unit is "
                        "installed; check the name",
                        at.file, at.line, r->is_template ? "replicas" : "replica", r->name, units.s, how);
                strbuf_done(&units);
        }
}
