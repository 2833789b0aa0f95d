/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/util.h"
#include "core/dropin.h"
#include "systemd/bus.h"
#include "systemd/changeset.h"
#include "systemd/deploy.h"
#include "systemd/systemd-dl.h"

#define MARKER_TEXT "numaplan apply succeeded on this boot\n"
#define UNPLACED_TEXT \
        "numaplan's boot step has not placed the replicas at this boot: they start once numaplan apply succeeds\n"

/* Idempotent like the drop-ins: an apply that changes nothing writes nothing. Into a directory
 * made anew (WRITE_VOLATILE) there is nothing to compare. */
static int write_marker(const char *marker, const char *text, unsigned flags) {
        return write_file_path(marker, text, flags & WRITE_VOLATILE ? flags : flags | WRITE_IF_CHANGED);
}

int deploy_write_marker(const char *marker, unsigned flags) {
        int r = write_marker(marker, MARKER_TEXT, flags);
        if (r < 0)
                return log_error_errno(r,
                                       "cannot create %s: %m; every replica's drop-in asserts it, so the replicas will "
                                       "not start: fix the cause and run numaplan apply again",
                                       marker);
        return 0;
}

int deploy_block_replicas(const char *unplaced) {
        int r = write_marker(unplaced, UNPLACED_TEXT, 0);
        if (r < 0)
                return log_error_errno(r, "cannot create %s: %m", unplaced);
        return 0;
}

int deploy_remove_marker(const char *unplaced) {
        _cleanup_free_ char *dir_copy = xstrdup(unplaced), *name_copy = xstrdup(unplaced);
        const char *name = basename(name_copy);
        _cleanup_close_ int dfd = open_dir_at(AT_FDCWD, dirname(dir_copy), false, NULL);

        int r = dfd;
        if (dfd >= 0) {
                remove_stale_temporaries_at(dfd, name); /* of a boot step killed as it made it */
                r = unlinkat(dfd, name, 0) < 0 ? -errno : 0;
        }
        if (r < 0 && r != -ENOENT) /* ENOENT: no boot step made it, or not even its directory */
                return log_error_errno(r,
                                       "cannot remove %s: %m; every replica's drop-in asserts it is not there, so the "
                                       "replicas will not start: fix the cause and run numaplan apply again",
                                       unplaced);
        return 0;
}

static bool is_running(sd_bus *bus, const char *unit) {
        _cleanup_free_ char *state = NULL;
        return bus_unit_string(bus, unit, SD_UNIT, "ActiveState", &state) >= 0 &&
               (streq(state, "active") || streq(state, "activating") || streq(state, "reloading"));
}

/* The running units of `cs` whose drop-in changed, restarted, and said. */
static int restart_units(sd_bus *bus, char **running, size_t n) {
        if (n == 0)
                return 0;
        int r = bus_restart_units(bus, running);
        if (r == 0)
                for (size_t i = 0; i < n; i++)
                        log_notice("restarted %s%s", running[i],
                                   streq(running[i], IRQBALANCE_UNIT)
                                           ? ", which reads numaplan's --banirq= as it starts"
                                           : "");
        return r;
}

int deploy_restart_helpers(sd_bus *bus, const struct changeset *cs) {
        _cleanup_free_ char **running = xmalloc0((cs->n + 1) * sizeof(char *));
        size_t n = 0;

        /* irqbalance reads its bans when it starts: restarted with them, or without. */
        for (size_t i = 0; i < cs->n; i++)
                if (cs->v[i].helper && cs->v[i].action != ACTION_UNCHANGED && is_running(bus, cs->v[i].unit))
                        running[n++] = cs->v[i].unit;
        return restart_units(bus, running, n);
}

int deploy_restart_or_tell(sd_bus *bus, const struct changeset *cs, bool restart) {
        _cleanup_free_ char **running = xmalloc0((cs->n + 1) * sizeof(char *));
        size_t n = 0;

        for (size_t i = 0; i < cs->n; i++) {
                if (cs->v[i].helper || cs->v[i].action == ACTION_UNCHANGED || !is_running(bus, cs->v[i].unit))
                        continue;
                if (restart && cs->v[i].action != ACTION_REMOVED)
                        running[n++] = cs->v[i].unit;
                else
                        log_notice("%s is running with its old placement: pinning takes effect when it starts "
                                   "(numaplan apply --restart, or systemctl restart %s)",
                                   cs->v[i].unit, cs->v[i].unit);
        }
        int r = restart_units(bus, running, n), h = deploy_restart_helpers(bus, cs);
        return r < 0 ? r : h < 0 ? h : r + h;
}

int deploy_prepare(const struct changeset *cs, const struct deploy_options_systemd *o, struct deployment *ret) {
        *ret = (struct deployment){0};
        if (!changeset_changed(cs) || !o->reload)
                return 0;
        int r = bus_connect(&ret->bus);
        if (r >= 0)
                r = bus_check_version(ret->bus);
        if (r < 0)
                deployment_done(ret);
        return r;
}

void deployment_done(struct deployment *d) {
        bus_unrefp(&d->bus);
        d->bus = NULL;
}

int deploy(struct deployment *d, const struct changeset *cs, const struct deploy_options_systemd *o,
           struct deploy_result *ret) {
        bool changed = changeset_changed(cs);
        sd_bus *bus = d->bus;
        int r;

        ret->stage = DEPLOY_COMMIT;
        if (changed) {
                r = changeset_commit(cs);
                if (r < 0)
                        return r;
        }

        ret->stage = DEPLOY_RELOAD;
        if (changed && o->reload && bus) {
                r = bus_reload(bus);
                if (r < 0)
                        return r;
                ret->stage = DEPLOY_RESTART;
                r = deploy_restart_or_tell(bus, cs, o->restart);
                if (r != 0)
                        return r < 0 ? r : -EIO;
        }

        /* Last: the drop-ins are in place and systemd knows them, so the replicas may start. */
        ret->stage = DEPLOY_MARKER;
        if (o->unplaced) {
                r = deploy_remove_marker(o->unplaced);
                if (r < 0)
                        return r;
        }
        ret->stage = DEPLOY_DONE;
        return 0;
}
