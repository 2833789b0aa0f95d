/* SPDX-License-Identifier: MIT */
/* The change set of apply and remove, against a temporary unit directory: what a plan creates,
 * updates and removes; nothing at all the second time; numaplan's own drop-ins told from an
 * admin's by their header, whatever their size; a link, a FIFO, a socket, a directory or an
 * admin's oversized file where a drop-in belongs refused by apply (nothing written) and left alone
 * by remove; and irqbalance's drop-in: never over an admin's file, never past what numaplan reads
 * back, the admin's other drop-ins that set ExecStart= named. */

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "basic/log.h"
#include "basic/util.h"
#include "capture.h"
#include "small-plan.h"
#include "systemd/changeset.h"
#include "tap.h"
#include "tmproot.h"

static const char *conf1 = "[replica a]\nunit = a.service\nmemory = 1G\n\n"
                           "[replica b]\nunit = b@0.service\nmemory = 1G\n";
/* a grows, b leaves the configuration, c comes. */
static const char *conf2 = "[replica a]\nunit = a.service\nmemory = 2G\n\n"
                           "[replica c]\nunit = c.service\nmemory = 1G\n";

static const struct change *find(const struct changeset *cs, const char *unit) {
        for (size_t i = 0; i < cs->n; i++)
                if (streq(cs->v[i].unit, unit))
                        return &cs->v[i];
        return NULL;
}

static enum action action_of(const struct changeset *cs, const char *unit) {
        const struct change *c = find(cs, unit);
        return c ? c->action : (enum action) - 1;
}

/* changeset_for_plan() with its messages on stderr captured. */
static int for_plan(const char *units, const struct small_plan *sp, struct changeset *cs, char **ret_said) {
        struct capture c;
        capture_begin(&c, STDERR_FILENO);
        int r = changeset_for_plan(units, &small_env, sp->t, sp->c, sp->p, cs);
        *ret_said = capture_end(&c);
        return r;
}

static int for_removal(const char *units, char *const *which, struct changeset *cs, char **ret_said) {
        struct capture c;
        capture_begin(&c, STDERR_FILENO);
        int r = changeset_for_removal(units, which, cs);
        *ret_said = capture_end(&c);
        return r;
}

/* A plan into an empty (absent) unit directory, committed, then planned again. */
static void plan_and_again(void) {
        _cleanup_tmpdir_ char *d = make_tmpdir();
        _cleanup_free_ char *units = xasprintf("%s/units", d), *said = NULL;
        struct small_plan sp;
        struct changeset cs;

        small_plan_make(&sp, conf1);
        _cleanup_free_ char *before = tree_state(d, true);
        if (!ok(for_plan(units, &sp, &cs, &said) == 0, "a change set for a unit directory not there yet"))
                return;
        is_int(cs.n, 2, "one change a replica");
        ok(!cs.removal && streq(cs.unit_dir, units), "for apply, in that directory");
        bool all = cs.n == 2;
        for (size_t i = 0; i < cs.n && i < sp.p->n_replicas; i++) {
                const struct placement *pl = &sp.p->replicas[i];
                const struct change *c = find(&cs, pl->unit);
                _cleanup_free_ char *want = dropin_render(sp.t, sp.c, sp.p, pl, &small_env),
                                    *dir = xasprintf("%s.d", pl->unit),
                                    *path = xasprintf("%s/%s.d/" DROPIN_NAME, units, pl->unit);
                all = all && c && c->action == ACTION_CREATED && !c->old && streq(c->new, want) && streq(c->dir, dir) &&
                      streq(c->path, path);
        }
        ok(all, "each created, with the drop-in the core renders, its <unit>.d and its path");
        ok(changeset_changed(&cs) && changeset_count(&cs, ACTION_CREATED) == 2 &&
                   changeset_count(&cs, ACTION_UPDATED) == 0,
           "changed: two created");
        _cleanup_free_ char *after_plan = tree_state(d, true);
        is_str(after_plan, before, "making it writes nothing");
        is_str(said, "", "and says nothing");

        is_int(changeset_commit(&cs), 0, "the commit");
        _cleanup_free_ char *a = xasprintf("%s/a.service.d/" DROPIN_NAME, units),
                            *b = xasprintf("%s/b@0.service.d/" DROPIN_NAME, units);
        _cleanup_free_ char *got_a = read_whole(a), *got_b = read_whole(b);
        ok(streq_ptr(got_a, find(&cs, "a.service")->new) && streq_ptr(got_b, find(&cs, "b@0.service")->new),
           "puts each drop-in in place");
        struct stat st;
        ok(stat(a, &st) == 0 && (st.st_mode & 07777) == 0644, "mode 0644");
        _cleanup_free_ char *committed = tree_state(units, true);
        ok(!strstr(committed, CHANGESET_JOURNAL) && !strstr(committed, "/.#"), "no journal and no temporary left");
        changeset_done(&cs);
        ok(cs.n == 0 && !cs.v && !cs.unit_dir, "changeset_done empties it");

        /* Idempotence: the same plan again is no change, and committing it touches nothing. */
        _cleanup_free_ char *said2 = NULL;
        ok(for_plan(units, &sp, &cs, &said2) == 0 && cs.n == 2, "the same plan again");
        ok(action_of(&cs, "a.service") == ACTION_UNCHANGED && action_of(&cs, "b@0.service") == ACTION_UNCHANGED &&
                   !changeset_changed(&cs) && streq_ptr(find(&cs, "a.service")->old, find(&cs, "a.service")->new),
           "is unchanged, old and new the same");
        is_int(changeset_commit(&cs), 0, "its commit");
        _cleanup_free_ char *again = tree_state(units, true);
        is_str(again, committed, "leaves every file as it was, inodes included");
        changeset_done(&cs);
        small_plan_done(&sp);
}

/* The plan changes: an update, a creation, a removal; an admin's files are kept. */
static void plan_changes(void) {
        _cleanup_tmpdir_ char *d = make_tmpdir();
        _cleanup_free_ char *units = xasprintf("%s/units", d), *said = NULL;
        struct small_plan sp1, sp2;
        struct changeset cs;

        small_plan_make(&sp1, conf1);
        small_plan_make(&sp2, conf2);
        if (for_plan(units, &sp1, &cs, &said) < 0 || changeset_commit(&cs) < 0) {
                printf("Bail out! the first apply\n");
                exit(1);
        }
        _cleanup_free_ char *old_a = xstrdup(find(&cs, "a.service")->new);
        changeset_done(&cs);
        write_file(units, "b@0.service.d/10-admin.conf", "[Service]\nNice=5\n");
        write_file(units, "x.service.d/" DROPIN_NAME, "[Service]\n# the admin's, of the same name\n");
        write_file(units, "gone.service.d/" DROPIN_NAME, DROPIN_HEADER "\n[Service]\n");

        _cleanup_free_ char *said2 = NULL;
        if (!ok(for_plan(units, &sp2, &cs, &said2) == 0, "a change set for the changed plan"))
                return;
        ok(action_of(&cs, "a.service") == ACTION_UPDATED && streq_ptr(find(&cs, "a.service")->old, old_a),
           "a: updated, its old content kept for the report and the undo");
        ok(action_of(&cs, "c.service") == ACTION_CREATED, "c: created");
        ok(action_of(&cs, "b@0.service") == ACTION_REMOVED && !find(&cs, "b@0.service")->new,
           "b, no longer planned: removed");
        ok(action_of(&cs, "gone.service") == ACTION_REMOVED, "as is any drop-in numaplan wrote for a unit not planned");
        ok(!find(&cs, "x.service"), "an admin's file of the same name is not numaplan's to remove");
        is_int(cs.n, 4, "four changes");
        is_int(changeset_commit(&cs), 0, "committed");
        _cleanup_free_ char *state = tree_state(units, false);
        ok(strstr(state, "b@0.service.d/10-admin.conf file") && !strstr(state, "b@0.service.d/" DROPIN_NAME),
           "b's drop-in is gone, the admin's file beside it kept");
        ok(!strstr(state, "gone.service.d"), "an emptied <unit>.d is removed");
        ok(strstr(state, "x.service.d/" DROPIN_NAME " file 0644 '[Service]\\n# the admin's") != NULL,
           "the admin's drop-in untouched");
        changeset_done(&cs);

        /* Every unit with a drop-in of numaplan's: sorted; not an admin's, not through a link,
         * not under a name that is no service. */
        _cleanup_free_ char *a_dir = xasprintf("%s/a.service.d", units), *l = xasprintf("%s/l.service.d", units);
        if (symlink(a_dir, l) < 0)
                abort();
        write_file(units, "not a unit.d/" DROPIN_NAME, DROPIN_HEADER "\n");
        write_file(units, "y.socket.d/" DROPIN_NAME, DROPIN_HEADER "\n");
        _cleanup_strv_free_ char **ours = changeset_our_units(units);
        ok(strv_length(ours) == 2 && streq(ours[0], "a.service") && streq(ours[1], "c.service"),
           "changeset_our_units: a.service, c.service");
        _cleanup_free_ char *none = xasprintf("%s/none", d);
        _cleanup_strv_free_ char **empty = changeset_our_units(none);
        ok(empty && !empty[0], "none in a directory that is not there");

        /* remove: all of numaplan's, then nothing left to remove. */
        _cleanup_free_ char *said3 = NULL;
        ok(for_removal(units, NULL, &cs, &said3) == 0 && cs.removal && cs.n == 2 &&
                   changeset_count(&cs, ACTION_REMOVED) == 2,
           "removing all: numaplan's two");
        is_int(changeset_commit(&cs), 0, "committed");
        changeset_done(&cs);
        _cleanup_strv_free_ char **left = changeset_our_units(units);
        ok(left && !left[0], "none of numaplan's left");
        _cleanup_free_ char *removed = tree_state(units, false);
        ok(!strstr(removed, "a.service.d ") && !strstr(removed, "c.service.d") && strstr(removed, "x.service.d/") &&
                   strstr(removed, "l.service.d link"),
           "their directories gone, the admin's and the link left");

        char *named[] = {(char *) "a.service", NULL};
        _cleanup_free_ char *said4 = NULL;
        ok(for_removal(units, named, &cs, &said4) == 0 && cs.n == 1 &&
                   action_of(&cs, "a.service") == ACTION_UNCHANGED && !changeset_changed(&cs),
           "removing a unit without a drop-in: unchanged");
        changeset_done(&cs);
        _cleanup_free_ char *said5 = NULL;
        ok(for_removal(none, NULL, &cs, &said5) == 0 && cs.n == 0, "removing from a unit directory not there: nothing");
        changeset_done(&cs);
        small_plan_done(&sp1);
        small_plan_done(&sp2);
}

/* An admin's drop-in where numaplan's belongs: apply replaces it, saying so; remove leaves it. */
static void foreign(void) {
        _cleanup_tmpdir_ char *d = make_tmpdir();
        _cleanup_free_ char *said = NULL;
        struct small_plan sp;
        struct changeset cs;

        small_plan_make(&sp, conf1);
        write_file(d, "a.service.d/" DROPIN_NAME, "[Service]\nCPUAffinity=0\n");
        _cleanup_free_ char *path = xasprintf("%s/a.service.d/" DROPIN_NAME, d);
        ok(for_plan(d, &sp, &cs, &said) == 0 && action_of(&cs, "a.service") == ACTION_UPDATED,
           "apply: a drop-in of another's is updated");
        _cleanup_free_ char *warned =
                xasprintf("numaplan: warning: %s was not written by numaplan; it will be replaced\n", path);
        is_str(said, warned, "with a warning naming it");
        changeset_done(&cs);

        char *named[] = {(char *) "a.service", NULL};
        _cleanup_free_ char *said2 = NULL, *before = tree_state(d, true);
        ok(for_removal(d, named, &cs, &said2) == 0 && action_of(&cs, "a.service") == ACTION_UNCHANGED &&
                   !find(&cs, "a.service")->old,
           "remove: it is not numaplan's, so unchanged");
        _cleanup_free_ char *left = xasprintf("numaplan: warning: %s was not written by numaplan; left alone\n", path);
        is_str(said2, left, "with a warning naming it");
        is_int(changeset_commit(&cs), 0, "the commit");
        _cleanup_free_ char *after = tree_state(d, true);
        is_str(after, before, "leaves it");
        changeset_done(&cs);
        small_plan_done(&sp);
}

/* What is where a drop-in belongs: made by `make` in the unit directory. */
struct intruder {
        const char *what;
        void (*make)(const char *units);
        int error;
        const char *subject; /* the path the message names, below the unit directory */
        const char *why;
};

static void make_link(const char *units) {
        write_file(units, "elsewhere/" DROPIN_NAME, DROPIN_HEADER "\n");
        _cleanup_free_ char *target = xasprintf("%s/elsewhere/" DROPIN_NAME, units),
                            *p = xasprintf("%s/a.service.d/" DROPIN_NAME, units);
        write_file(units, "a.service.d/10-admin.conf", "");
        if (symlink(target, p) < 0)
                abort();
}
static void make_dir_link(const char *units) {
        write_file(units, "elsewhere/" DROPIN_NAME, DROPIN_HEADER "\n");
        _cleanup_free_ char *target = xasprintf("%s/elsewhere", units), *p = xasprintf("%s/a.service.d", units);
        if (symlink(target, p) < 0)
                abort();
}
static void make_fifo(const char *units) {
        write_file(units, "a.service.d/10-admin.conf", "");
        _cleanup_free_ char *p = xasprintf("%s/a.service.d/" DROPIN_NAME, units);
        if (mkfifo(p, 0644) < 0)
                abort();
}
static void make_socket(const char *units) {
        write_file(units, "a.service.d/10-admin.conf", "");
        _cleanup_free_ char *p = xasprintf("%s/a.service.d/" DROPIN_NAME, units);
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0 || strlen(p) >= sizeof(sa.sun_path))
                abort();
        strcpy(sa.sun_path, p);
        if (bind(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0)
                abort();
        close(fd);
}
static void make_file_dir(const char *units) {
        write_file(units, "a.service.d", "a file where the directory belongs\n");
}
static void make_dropin_dir(const char *units) {
        write_file(units, "a.service.d/" DROPIN_NAME "/x", "");
}
/* `size` bytes: `first` line, then comment lines. */
static char *big_text(const char *first, size_t size) {
        char *big = xmalloc0(size + 1);
        memset(big, '#', size);
        for (size_t i = 80; i < size; i += 80)
                big[i] = '\n';
        memcpy(big, first, strlen(first));
        return big;
}
static void make_big(const char *units) {
        _cleanup_free_ char *big = big_text("[Service]\n", DROPIN_SIZE_MAX + 1);
        write_file(units, "a.service.d/" DROPIN_NAME, big);
}

static const struct intruder intruders[] = {
        {"a link for the drop-in", make_link, -ELOOP, "a.service.d/" DROPIN_NAME, "is a symbolic link"},
        {"a link for <unit>.d", make_dir_link, -ELOOP, "a.service.d", "is a symbolic link"},
        {"a FIFO", make_fifo, -EBADFD, "a.service.d/" DROPIN_NAME, "is a FIFO, a device or a socket"},
        {"a socket", make_socket, -EBADFD, "a.service.d/" DROPIN_NAME, "is a FIFO, a device or a socket"},
        {"a file for <unit>.d", make_file_dir, -ENOTDIR, "a.service.d", "is not where a drop-in can be"},
        {"a directory for the drop-in", make_dropin_dir, -EISDIR, "a.service.d/" DROPIN_NAME,
         "is not where a drop-in can be"},
        {"an admin's file past the most numaplan writes", make_big, -EFBIG, "a.service.d/" DROPIN_NAME,
         "is larger than any drop-in numaplan writes, and not numaplan's"},
};

static void refused(void) {
        struct small_plan sp;
        small_plan_make(&sp, conf1);

        for (size_t i = 0; i < ELEMENTSOF(intruders); i++) {
                const struct intruder *x = &intruders[i];
                _cleanup_tmpdir_ char *d = make_tmpdir();
                _cleanup_free_ char *said = NULL;
                struct changeset cs = {.n = 99};

                x->make(d);
                _cleanup_free_ char *before = tree_state(d, true);
                is_int(for_plan(d, &sp, &cs, &said), x->error, "apply, %s: refused", x->what);
                _cleanup_free_ char *want = xasprintf("numaplan: error: %s/%s %s", d, x->subject, x->why);
                ok(startswith(said, want) && strstr(said, "refused, nothing written"), "naming it and why");
                if (!startswith(said, want))
                        tap_diag("said", said);
                ok(cs.n == 99, "no change set handed back");
                _cleanup_free_ char *after = tree_state(d, true);
                is_str(after, before, "nothing written");

                char *named[] = {(char *) "a.service", NULL};
                _cleanup_free_ char *said2 = NULL;
                ok(for_removal(d, named, &cs, &said2) == 0 && cs.n == 1 &&
                           action_of(&cs, "a.service") == ACTION_UNCHANGED,
                   "remove, %s: unchanged", x->what);
                ok(startswith(said2, "numaplan: warning: ") && strstr(said2, x->why) && strstr(said2, "left alone"),
                   "left alone, with a warning");
                is_int(changeset_commit(&cs), 0, "its commit");
                _cleanup_free_ char *removed = tree_state(d, true);
                is_str(removed, before, "nothing written");
                changeset_done(&cs);
        }
        small_plan_done(&sp);
}

/* irqbalance's drop-in beside the replicas': put into the set, a helper's, kept by the next plan
 * only when put again, removed with the rest, and never an admin's file of that name. */
static void irqbalance(void) {
        _cleanup_tmpdir_ char *d = make_tmpdir();
        _cleanup_free_ char *units = xasprintf("%s/units", d), *said = NULL, *said2 = NULL, *said3 = NULL,
                            *said4 = NULL;
        struct small_plan sp;
        struct changeset cs;

        small_plan_make(&sp, conf1);
        ok(for_plan(units, &sp, &cs, &said) == 0 &&
                   changeset_put(&cs, "irqbalance.service", xstrdup("# Generated by numaplan\n[Service]\n")) == 0,
           "irqbalance's drop-in put into the plan's set");
        const struct change *c = find(&cs, "irqbalance.service");
        ok(c && c->action == ACTION_CREATED && c->helper && !find(&cs, "a.service")->helper,
           "created, and marked a helper (restarted whenever it changes), the replicas not");
        ok(changeset_commit(&cs) == 0, "committed");
        changeset_done(&cs);
        ok(for_plan(units, &sp, &cs, &said2) == 0 && action_of(&cs, "irqbalance.service") == ACTION_REMOVED,
           "a plan that puts none removes it, as a drop-in of numaplan's no replica has");
        ok(changeset_put(&cs, "irqbalance.service", xstrdup("# Generated by numaplan\n[Service]\n")) == 0 &&
                   action_of(&cs, "irqbalance.service") == ACTION_UNCHANGED,
           "put again as it is: unchanged");
        changeset_done(&cs);
        ok(for_removal(units, NULL, &cs, &said3) == 0 && action_of(&cs, "irqbalance.service") == ACTION_REMOVED,
           "remove of every unit removes it too");
        ok(changeset_commit(&cs) == 0, "committed");
        changeset_done(&cs);
        write_file(units, "irqbalance.service.d/50-numaplan.conf", "[Service]\nExecStart=\n"); /* an admin's */
        ok(for_plan(units, &sp, &cs, &said4) == 0 && changeset_put(&cs, "irqbalance.service", NULL) == 0 &&
                   !find(&cs, "irqbalance.service"),
           "an admin's file of that name, and nothing to put: left alone");
        changeset_done(&cs);

        /* irqbalance.service is not a unit the admin gave numaplan: its files are the admin's. */
        _cleanup_free_ char *before = tree_state(units, true), *said5 = NULL, *said6 = NULL;
        struct capture cap;
        ok(for_plan(units, &sp, &cs, &said6) == 0, "planned again");
        capture_begin(&cap, STDERR_FILENO);
        int r = changeset_put(&cs, "irqbalance.service", xstrdup("# Generated by numaplan\n[Service]\n"));
        said5 = capture_end(&cap);
        ok(r == -EEXIST && !find(&cs, "irqbalance.service"), "an admin's file of that name, and bans to put: refused");
        _cleanup_free_ char *refused = xasprintf("numaplan: error: %s/irqbalance.service.d/50-numaplan.conf is not "
                                                 "numaplan's",
                                                 units);
        ok(startswith(said5, refused) && strstr(said5, "refused, nothing written") && strstr(said5, "another name"),
           "naming it, and what to do");
        if (!startswith(said5, refused))
                tap_diag("said", said5);
        changeset_done(&cs);
        _cleanup_free_ char *after = tree_state(units, true);
        is_str(after, before, "and it is as it was");
        small_plan_done(&sp);
}

/* The admin's other drop-ins of irqbalance that set ExecStart= too: one of the two commands runs,
 * by the order of the names, and apply says which. */
static void irqbalance_exec_start(void) {
        _cleanup_tmpdir_ char *d = make_tmpdir();
        _cleanup_free_ char *said = NULL;
        struct changeset cs = {.unit_dir = xstrdup(d)};
        struct capture cap;

        write_file(d, "irqbalance.service.d/40-early.conf", "[Service]\n  ExecStart =\n");
        write_file(d, "irqbalance.service.d/45-pre.conf", "[Service]\nExecStartPre=/bin/true\n# ExecStart=\n");
        write_file(d, "irqbalance.service.d/60-late.conf", "[Service]\nExecStart=\nExecStart=/usr/sbin/irqbalance\n");
        write_file(d, "irqbalance.service.d/.hidden.conf", "[Service]\nExecStart=\n");
        capture_begin(&cap, STDERR_FILENO);
        int r = changeset_put(&cs, "irqbalance.service", xstrdup(DROPIN_HEADER "\n[Service]\nExecStart=\n"));
        said = capture_end(&cap);
        ok(r == 0 && action_of(&cs, "irqbalance.service") == ACTION_CREATED, "put beside the admin's drop-ins");
        _cleanup_free_ char *early = xasprintf("%s/irqbalance.service.d/40-early.conf sets ExecStart= too", d),
                            *late = xasprintf("%s/irqbalance.service.d/60-late.conf sets ExecStart= too", d);
        const char *e = strstr(said, early), *l = strstr(said, late);
        ok(e && strstr(e, "numaplan's " DROPIN_NAME ", after it, replaces its command"),
           "one whose name sorts before: numaplan's command replaces its");
        ok(l && strstr(l, "its command, after " DROPIN_NAME "'s, is the one that runs, without numaplan's bans"),
           "one whose name sorts after: its command runs, without the bans");
        ok(!strstr(said, "45-pre.conf") && !strstr(said, ".hidden.conf"),
           "ExecStartPre= and a comment are not ExecStart=; a hidden file is not read by systemd");
        if (!e || !l)
                tap_diag("said", said);
        changeset_done(&cs);
}

/* A drop-in of numaplan's past DROPIN_SIZE_MAX: what an older numaplan wrote for irqbalance with
 * thousands of interrupts. Told by its first line, replaced and removed like any of its own. */
static void oversized_ours(void) {
        _cleanup_tmpdir_ char *d = make_tmpdir();
        _cleanup_free_ char *big = big_text(DROPIN_HEADER "\n", DROPIN_SIZE_MAX + 4096), *said = NULL, *said2 = NULL,
                            *said3 = NULL;
        struct small_plan sp;
        struct changeset cs;

        small_plan_make(&sp, conf1);
        write_file(d, "a.service.d/" DROPIN_NAME, big);
        write_file(d, "irqbalance.service.d/" DROPIN_NAME, big);
        ok(for_plan(d, &sp, &cs, &said) == 0 && action_of(&cs, "a.service") == ACTION_UPDATED &&
                   streq(find(&cs, "a.service")->old, big),
           "apply: a replica's, read whole and updated");
        ok(action_of(&cs, "irqbalance.service") == ACTION_REMOVED && streq(find(&cs, "irqbalance.service")->old, big),
           "irqbalance's, which the plan does not put: removed");
        is_str(said, "", "nothing said");
        changeset_done(&cs);

        _cleanup_strv_free_ char **ours = changeset_our_units(d);
        ok(ours && ours[0] && streq(ours[0], "a.service") && ours[1] && streq(ours[1], "irqbalance.service") &&
                   !ours[2],
           "both are numaplan's");
        ok(for_removal(d, NULL, &cs, &said2) == 0 && action_of(&cs, "irqbalance.service") == ACTION_REMOVED &&
                   action_of(&cs, "a.service") == ACTION_REMOVED,
           "remove takes both");
        is_int(changeset_commit(&cs), 0, "the commit");
        changeset_done(&cs);
        _cleanup_free_ char *after = tree_state(d, false);
        ok(!strstr(after, DROPIN_NAME), "and they are gone");
        if (strstr(after, DROPIN_NAME))
                tap_diag("left", after);

        /* Past what the commit keeps a copy of: never numaplan's size, said and left. */
        _cleanup_free_ char *huge = big_text(DROPIN_HEADER "\n", 25U << 20);
        write_file(d, "irqbalance.service.d/" DROPIN_NAME, huge);
        ok(for_removal(d, NULL, &cs, &said3) == 0 && !find(&cs, "irqbalance.service"),
           "a numaplan file past 24 MiB: left");
        _cleanup_free_ char *warned = xasprintf(
                "numaplan: warning: %s/irqbalance.service.d/" DROPIN_NAME " is numaplan's, but past the 24 MiB", d);
        ok(startswith(said3, warned) && strstr(said3, "left alone"), "with a warning naming it");
        if (!startswith(said3, warned))
                tap_diag("said", said3);
        changeset_done(&cs);
        small_plan_done(&sp);
}

/* A text past DROPIN_SIZE_MAX is never written: what apply writes, it reads back. */
static void too_large(void) {
        _cleanup_tmpdir_ char *d = make_tmpdir();
        _cleanup_free_ char *said = NULL;
        struct changeset cs = {.unit_dir = xstrdup(d)};
        struct strbuf b = {0};
        struct capture cap;
        size_t n = 0;

        strbuf_append(&b, DROPIN_HEADER "\n[Service]\nExecStart=\nExecStart=\"/usr/sbin/irqbalance\" --foreground");
        for (; b.len <= DROPIN_SIZE_MAX; n++)
                strbuf_printf(&b, " --banirq=%zu", 100000 + n);
        _cleanup_free_ char *bans = xasprintf("513 KiB, banning %zu interrupts", n);
        capture_begin(&cap, STDERR_FILENO);
        int r = changeset_put(&cs, "irqbalance.service", strbuf_steal(&b));
        said = capture_end(&cap);
        ok(r == -E2BIG && cs.n == 0, "irqbalance's drop-in past the limit: refused");
        ok(strstr(said, "irqbalance.service.d/" DROPIN_NAME " would be ") && strstr(said, bans) &&
                   strstr(said, "refused, nothing written"),
           "naming the file, its size and how many interrupts it bans");
        if (!strstr(said, bans))
                tap_diag("said", said);
        _cleanup_free_ char *after = tree_state(d, false);
        ok(!strstr(after, "irqbalance"), "nothing written");
        changeset_done(&cs);
}

int main(void) {
        log_set_max_level(LOG_NOTICE);
        is_str(action_to_string(ACTION_UNCHANGED), "unchanged", "the actions' names");
        ok(streq(action_to_string(ACTION_CREATED), "created") && streq(action_to_string(ACTION_UPDATED), "updated") &&
                   streq(action_to_string(ACTION_REMOVED), "removed"),
           "as --json and the reports spell them");
        plan_and_again();
        plan_changes();
        foreign();
        refused();
        irqbalance();
        irqbalance_exec_start();
        oversized_ours();
        too_large();
        return done_testing();
}
