/* SPDX-License-Identifier: MIT */
/* The commit of a change set and its journal, against a temporary unit directory: a multi-file
 * change (an update, a creation, a removal) killed at every write step by the fault shim
 * (tests/lib/fault-preload.c, linked into this test), and failed at every step, then recovered:
 * always the whole old plan or the whole new one, never a mix, no temporary left; a kill while a
 * failed commit is being undone, and while recovering; the journal's content; and journals and
 * directories that recovery must not follow. */

#include <dirent.h>
#include <json-c/json.h>
#include <sys/stat.h>

#include "basic/log.h"
#include "basic/util.h"
#include "capture.h"
#include "child.h"
#include "small-plan.h"
#include "systemd/changeset.h"
#include "tap.h"
#include "tmproot.h"

static const char *conf1 = "[replica a]\nunit = a.service\nmemory = 1G\n\n"
                           "[replica b]\nunit = b@0.service\nmemory = 1G\n";
/* a is updated, c created (its <unit>.d made), b removed: two files staged. */
static const char *conf2 = "[replica a]\nunit = a.service\nmemory = 2G\n\n"
                           "[replica c]\nunit = c.service\nmemory = 1G\n";
#define N_STAGED 2
/* The journal is written (a temporary, then its rename) after the staging: from this step on,
 * a kill leaves a journal. */
#define FIRST_JOURNALED_STEP (N_STAGED + 3)

static struct small_plan plan1, plan2;
static char *old_state, *new_state;

/* One run of apply's commit (or of the recovery, without a plan) in a child process, so that
 * the shim counts its write steps from 1 and a kill ends the child only. */
struct job {
        const char *units;
        const struct small_plan *sp;
        unsigned kill_at, fail_at;
};

static int job_run(void *arg) {
        const struct job *j = arg;
        char n[16];

        if (j->kill_at) {
                snprintf(n, sizeof(n), "%u", j->kill_at);
                setenv("NUMAPLAN_TEST_KILL_AT_STEP", n, 1);
        }
        if (j->fail_at) {
                snprintf(n, sizeof(n), "%u", j->fail_at);
                setenv("NUMAPLAN_TEST_FAIL_AT_STEP", n, 1);
        }
        if (!j->sp)
                return changeset_recover(j->units);
        struct changeset cs;
        int r = changeset_for_plan(j->units, &small_env, j->sp->t, j->sp->c, j->sp->p, &cs);
        if (r < 0)
                return r;
        r = changeset_commit(&cs);
        changeset_done(&cs);
        return r;
}

static int commit_in_child(const char *units, const struct small_plan *sp, unsigned kill_at, unsigned fail_at) {
        struct job j = {units, sp, kill_at, fail_at};
        return run_child(job_run, &j, NULL);
}

static int recover_in_child(const char *units, unsigned kill_at) {
        struct job j = {units, NULL, kill_at, 0};
        return run_child(job_run, &j, NULL);
}

/* A unit directory in the old plan's state, with an admin's file that nothing may touch. */
static char *old_units(const char *d) {
        char *units = xasprintf("%s/units", d);
        rm_rf(units);
        write_file(units, "x.service.d/10-admin.conf", "[Service]\nNice=5\n");
        if (commit_in_child(units, &plan1, 0, 0) != 0) {
                printf("Bail out! the first apply\n");
                exit(1);
        }
        return units;
}

static char *state(const char *units) {
        return tree_state(units, false);
}

static bool has_journal(const char *units) {
        _cleanup_free_ char *p = xasprintf("%s/" CHANGESET_JOURNAL, units);
        struct stat st;
        return lstat(p, &st) == 0;
}

/* "forward", "undo", or NULL without a journal (malloc'd). */
static char *journal_mode(const char *units) {
        _cleanup_free_ char *p = xasprintf("%s/" CHANGESET_JOURNAL, units), *text = read_whole(p);
        json_object *o = text ? json_tokener_parse(text) : NULL, *mode;
        char *m = o && json_object_object_get_ex(o, "mode", &mode) ? xstrdup(json_object_get_string(mode)) : NULL;
        if (o)
                json_object_put(o);
        return m;
}

static const char *which(const char *s) {
        return streq_ptr(s, old_state) ? "the old plan" : streq_ptr(s, new_state) ? "the new plan" : "a mix";
}

/* Killed at every step of the commit: recovery gives the old plan when no journal was written,
 * the new one when it was; a second kill, of the recovery itself, changes nothing in that. */
static unsigned killed(const char *d) {
        unsigned steps = 0;

        for (unsigned n = 1; n < 40; n++) {
                _cleanup_free_ char *units = old_units(d);
                int r = commit_in_child(units, &plan2, n, 0);
                if (r != CHILD_KILLED) {
                        _cleanup_free_ char *s = state(units);
                        ok(r == 0 && streq(s, new_state), "with no step %u, the commit completes: the new plan", n);
                        break;
                }
                steps = n;
                bool journal = has_journal(units);
                ok(journal == (n >= FIRST_JOURNALED_STEP) && changeset_interrupted(units) == journal,
                   "killed at step %u: %s", n,
                   journal ? "the journal is there, and interrupted says so" : "no journal yet");

                if (journal) {
                        /* The recovery killed at its first step (finishing a change, or the journal's
                         * unlink): the journal stays, for the next recovery. */
                        is_int(recover_in_child(units, 1), CHILD_KILLED, "killed at step %u, the recovery killed too",
                               n);
                        ok(has_journal(units), "the journal is still there");
                }
                r = recover_in_child(units, 0);
                _cleanup_free_ char *s = state(units);
                is_int(r, journal ? 1 : 0, "killed at step %u: the recovery has %s", n,
                       journal ? "something to finish" : "nothing to finish");
                const char *want = journal ? new_state : old_state;
                /* Killed between making c.service.d and staging c's drop-in in it, the directory
                 * stays, empty: recovery cannot tell it from an admin's. */
                char *empty_dir = strstr(s, "c.service.d dir 0755\n");
                bool left_empty = !journal && empty_dir && !strstr(s, "c.service.d/");
                if (left_empty) {
                        todo(false, "recovery cannot tell an empty <unit>.d the commit made from an admin's",
                             "killed at step %u: no empty <unit>.d left behind", n);
                        memmove(empty_dir, empty_dir + strlen("c.service.d dir 0755\n"),
                                strlen(empty_dir + strlen("c.service.d dir 0755\n")) + 1);
                }
                if (!ok(streq(s, want), "killed at step %u: %s after recovery, no journal, no temporary (got %s)", n,
                        journal ? "the new plan" : "the old plan", which(s))) {
                        tap_diag("got", s);
                        tap_diag("want", want);
                }
                ok(!changeset_interrupted(units), "not interrupted any more");
        }
        /* Staging, the journal's two steps, a rename each for a and c, the unlink of b, the
         * journal's unlink. */
        is_int(steps, N_STAGED + 2 + 3 + 1, "the commit has a write step for each file it stages, renames or unlinks");
        return steps;
}

/* Failed at every step: -EIO and every file as it was; except the last step, the journal's
 * unlink, after which every drop-in is in place and the journal is left to the next recovery. */
static void failed(const char *d, unsigned steps) {
        for (unsigned n = 1; n <= steps + 1; n++) {
                _cleanup_free_ char *units = old_units(d);
                struct capture c;
                capture_begin(&c, STDERR_FILENO);
                log_set_max_level(LOG_ERR);
                int r = commit_in_child(units, &plan2, 0, n);
                log_set_max_level(LOG_ERR - 1);
                _cleanup_free_ char *said = capture_end(&c), *s = state(units);
                if (n > steps) {
                        ok(r == 0 && streq(s, new_state), "with no step %u, nothing fails: the new plan", n);
                        break;
                }
                is_int(r, -EIO, "failed at step %u: -EIO", n);
                if (n < steps) {
                        if (!ok(streq(s, old_state),
                                "failed at step %u: every file as it was, no journal, no temporary (got %s)", n,
                                which(s)))
                                tap_diag("got", s);
                        ok(strstr(said, "nothing changed: every drop-in is as it was") != NULL, "and it says so");
                        continue;
                }
                ok(has_journal(units) && strstr(said, "every drop-in is in place") &&
                           strstr(said, "run numaplan apply again"),
                   "failed at the journal's unlink: every drop-in in place, the journal left, and it says what to do");
                is_int(recover_in_child(units, 0), 1, "the next recovery finishes it");
                _cleanup_free_ char *after = state(units);
                ok(streq(after, new_state), "to the new plan");
        }
}

/* A commit that fails after the journal undoes what it did, recording the undo first: killed
 * meanwhile, the recovery goes the way the journal says, forward before the undo is recorded
 * and back after, and in both cases to one whole plan. */
static void killed_while_undoing(const char *d, unsigned steps) {
        unsigned forward = 0, undo = 0;

        for (unsigned f = FIRST_JOURNALED_STEP; f < steps; f++)
                for (unsigned k = f + 1; k < f + 20; k++) {
                        _cleanup_free_ char *units = old_units(d);
                        int r = commit_in_child(units, &plan2, k, f);
                        if (r != CHILD_KILLED) {
                                _cleanup_free_ char *s = state(units);
                                ok(r == -EIO && streq(s, old_state),
                                   "failed at step %u, its undo done by step %u: the old plan", f, k - 1);
                                break;
                        }
                        _cleanup_free_ char *mode = journal_mode(units);
                        bool back = streq_ptr(mode, "undo");
                        forward += !back;
                        undo += back;
                        int rr = recover_in_child(units, 0);
                        _cleanup_free_ char *s = state(units);
                        const char *want = back ? old_state : new_state;
                        if (!ok(rr == 1 && streq(s, want),
                                "failed at step %u, killed at %u: the journal says %s, recovered to %s", f, k,
                                strempty(mode), which(s)))
                                tap_diag("got", s);
                }
        ok(forward > 0 && undo > 0, "kills before the undo was recorded (%u) and after (%u)", forward, undo);
}

/* The journal's changes against what the commit was to do: a, c, b in the change set's order. */
static void journal_changes(const char *units, json_object *changes, const char *const *olds) {
        static const char *const dirs[] = {"a.service.d", "c.service.d", "b@0.service.d"};
        bool dirs_ok = true, old_ok = true, made_ok = true, staged_ok = true;

        for (size_t i = 0; i < 3; i++) {
                json_object *c = json_object_array_get_idx(changes, i), *dir, *staged, *old, *made;
                if (!json_object_object_get_ex(c, "dir", &dir) || !json_object_object_get_ex(c, "staged", &staged) ||
                    !json_object_object_get_ex(c, "old", &old) || !json_object_object_get_ex(c, "made_dir", &made)) {
                        dirs_ok = false;
                        continue;
                }
                dirs_ok = dirs_ok && streq(json_object_get_string(dir), dirs[i]);
                old_ok = old_ok && (olds[i] ? streq_ptr(json_object_get_string(old), olds[i])
                                            : json_object_is_type(old, json_type_null));
                made_ok = made_ok && json_object_get_boolean(made) == (i == 1);
                if (i == 2) {
                        staged_ok = staged_ok && json_object_is_type(staged, json_type_null);
                        continue;
                }
                /* The staged file is there, complete: the new drop-in. */
                const char *name = json_object_get_string(staged);
                _cleanup_free_ char *path = xasprintf("%s/%s/%s", units, dirs[i], name), *content = read_whole(path),
                                    *want = dropin_render(plan2.t, plan2.c, plan2.p, &plan2.p->replicas[i], &small_env);
                staged_ok = staged_ok && startswith(name, ".#" DROPIN_NAME ".") && streq_ptr(content, want);
        }
        ok(dirs_ok, "a, c, b in the change set's order, each by its <unit>.d");
        ok(staged_ok, "the staged files are named, there, and hold the new drop-ins; a removal stages none");
        ok(old_ok, "the old content of each, null for c, which had none");
        ok(made_ok, "made_dir for c alone, whose <unit>.d the staging made");
}

/* The journal as the kill at the first rename leaves it: every change, before any is made. */
static void journal_content(const char *d) {
        _cleanup_free_ char *units = old_units(d);
        _cleanup_free_ char *a = xasprintf("%s/a.service.d/" DROPIN_NAME, units),
                            *b = xasprintf("%s/b@0.service.d/" DROPIN_NAME, units);
        _cleanup_free_ char *old_a = read_whole(a), *old_b = read_whole(b);

        is_int(commit_in_child(units, &plan2, FIRST_JOURNALED_STEP, 0), CHILD_KILLED, "killed at the first rename");
        _cleanup_free_ char *p = xasprintf("%s/" CHANGESET_JOURNAL, units), *text = read_whole(p);
        json_object *o = text ? json_tokener_parse(text) : NULL, *v, *changes = NULL;
        if (ok(o && json_object_object_get_ex(o, "changes", &changes) && json_object_array_length(changes) == 3,
               "the journal is JSON with the three changes")) {
                ok(json_object_object_get_ex(o, "version", &v) && json_object_get_int(v) == 1 &&
                           json_object_object_get_ex(o, "mode", &v) && streq(json_object_get_string(v), "forward"),
                   "version 1, forward");
                const char *olds[] = {old_a, NULL, old_b};
                journal_changes(units, changes, olds);
        }
        _cleanup_free_ char *new_a = read_whole(a);
        ok(streq_ptr(new_a, old_a), "and nothing renamed yet");
        if (o)
                json_object_put(o);
        recover_in_child(units, 0);
}

/* changeset_recover() with its messages captured. */
static int recover(const char *units, char **ret_said) {
        struct capture c;
        log_set_max_level(LOG_NOTICE);
        capture_begin(&c, STDERR_FILENO);
        int r = changeset_recover(units);
        *ret_said = capture_end(&c);
        log_set_max_level(LOG_ERR - 1);
        return r;
}

/* Without a journal: the temporaries of runs killed while staging go, with a <unit>.d they alone
 * kept; nothing else does, and nothing through a link. */
static void stale(const char *d) {
        _cleanup_free_ char *units = old_units(d), *said = NULL;
        write_file(units, "a.service.d/.#" DROPIN_NAME ".Ab12Cd", "staged by a killed run\n");
        write_file(units, "z.service.d/.#" DROPIN_NAME ".Qw34Er", "staged by a killed run\n");
        write_file(units, "y.service.d/.#" DROPIN_NAME ".Zx56Cv", "staged by a killed run\n");
        write_file(units, "y.service.d/10-admin.conf", "");
        write_file(units, ".#" CHANGESET_JOURNAL ".Jk78Lm", "{}");
        write_file(units, ".#someone-elses", "");
        write_file(d, "elsewhere/.#" DROPIN_NAME ".Op90As", "not in the unit directory\n");
        _cleanup_free_ char *elsewhere = xasprintf("%s/elsewhere", d), *link = xasprintf("%s/l.service.d", units);
        if (symlink(elsewhere, link) < 0)
                abort();
        ok(!changeset_interrupted(units), "temporaries alone are no interrupted commit");
        is_int(recover(units, &said), 0, "recovery without a journal: nothing to finish");
        _cleanup_free_ char *s = state(units);
        ok(!strstr(s, "/.#") && !strstr(s, "z.service.d") && strstr(s, "y.service.d/10-admin.conf") &&
                   strstr(s, "a.service.d/" DROPIN_NAME),
           "the staged temporaries are gone, with the <unit>.d one alone kept; other files stay");
        ok(!strstr(s, ".#" CHANGESET_JOURNAL) && strstr(s, ".#someone-elses file"),
           "a journal's temporary is gone, a file of that look of someone else's is not");
        _cleanup_free_ char *through = xasprintf("%s/elsewhere/.#" DROPIN_NAME ".Op90As", d);
        ok(access(through, F_OK) == 0 && strstr(s, "l.service.d link"), "nothing is removed through a link");
        is_str(said, "", "and it says nothing");
}

/* Journals recovery must not act on, and directories it must not follow. */
static void hostile(const char *d) {
        _cleanup_free_ char *said = NULL, *none = xasprintf("%s/none", d);
        is_int(recover(none, &said), 0, "a unit directory not there: nothing to recover");
        ok(!changeset_interrupted(none), "and nothing interrupted");

        _cleanup_free_ char *units = old_units(d);
        write_file(units, CHANGESET_JOURNAL, "{\"version\": 1, \"mode\": \"forw");
        _cleanup_free_ char *said1 = NULL;
        is_int(recover(units, &said1), -EBADMSG, "a journal that is not JSON: -EBADMSG");
        ok(strstr(said1, "is not a journal numaplan can read: check the drop-ins, then delete it") != NULL,
           "saying what to do");
        ok(changeset_interrupted(units), "it is left, and the directory still interrupted");

        /* Names that would steer the recovery out of the unit directory, beside one good change. */
        write_file(d, "outside/" DROPIN_NAME, "theirs\n");
        write_file(d, "outside/.#staged", "ours?\n");
        write_file(units, "a.service.d/.#" DROPIN_NAME ".Gd12Ok", "finished\n");
        write_file(units, CHANGESET_JOURNAL,
                   "{\"version\": 1, \"mode\": \"forward\", \"changes\": ["
                   "{\"dir\": \"../outside\", \"staged\": \".#staged\", \"old\": null, \"made_dir\": false},"
                   "{\"dir\": \".\", \"staged\": null, \"old\": null, \"made_dir\": false},"
                   "{\"dir\": \"b@0.service.d\", \"staged\": \"../../outside/.#staged\", \"old\": null, \"made_dir\": "
                   "false},"
                   "{\"staged\": null},"
                   "{\"dir\": \"a.service.d\", \"staged\": \".#" DROPIN_NAME
                   ".Gd12Ok\", \"old\": null, \"made_dir\": false}]}");
        _cleanup_free_ char *said2 = NULL;
        is_int(recover(units, &said2), -EIO, "a journal naming paths outside: -EIO");
        ok(strstr(said2, "could not be finished (4 changes left)") != NULL, "each refused, counted");
        _cleanup_free_ char *theirs = xasprintf("%s/outside/" DROPIN_NAME, d), *t = read_whole(theirs),
                            *staged = xasprintf("%s/outside/.#staged", d),
                            *b = xasprintf("%s/b@0.service.d/" DROPIN_NAME, units);
        ok(streq_ptr(t, "theirs\n") && access(staged, F_OK) == 0 && access(b, F_OK) == 0,
           "nothing outside touched, b's drop-in kept");
        _cleanup_free_ char *a = xasprintf("%s/a.service.d/" DROPIN_NAME, units), *got_a = read_whole(a);
        is_str(got_a, "finished\n", "the good change is finished all the same");
        ok(changeset_interrupted(units), "the journal stays for the admin");

        /* The journal as a link, or a FIFO: not read. */
        _cleanup_free_ char *journal = xasprintf("%s/" CHANGESET_JOURNAL, units),
                            *target = xasprintf("%s/outside/j", d);
        write_file(d, "outside/j", "{\"version\": 1, \"mode\": \"forward\", \"changes\": []}");
        unlink(journal);
        if (symlink(target, journal) < 0)
                abort();
        _cleanup_free_ char *said3 = NULL;
        is_int(recover(units, &said3), -ELOOP, "a journal that is a link: -ELOOP, not followed");
        ok(access(target, F_OK) == 0 && strstr(said3, "cannot read") != NULL, "its target kept, and it says so");
        unlink(journal);
        if (mkfifo(journal, 0600) < 0)
                abort();
        _cleanup_free_ char *said4 = NULL;
        is_int(recover(units, &said4), -EBADFD, "a journal that is a FIFO: -EBADFD, without waiting for a writer");
        unlink(journal);

        /* A <unit>.d the journal names, replaced by a link since: not followed. */
        write_file(d, "outside2/.#" DROPIN_NAME ".Hj34Kl", "staged?\n");
        _cleanup_free_ char *c = xasprintf("%s/c.service.d", units), *outside2 = xasprintf("%s/outside2", d);
        if (symlink(outside2, c) < 0)
                abort();
        write_file(units, CHANGESET_JOURNAL,
                   "{\"version\": 1, \"mode\": \"forward\", \"changes\": ["
                   "{\"dir\": \"c.service.d\", \"staged\": \".#" DROPIN_NAME
                   ".Hj34Kl\", \"old\": null, \"made_dir\": true}]}");
        _cleanup_free_ char *said5 = NULL;
        is_int(recover(units, &said5), -EIO, "a <unit>.d that became a link: not finished");
        _cleanup_free_ char *moved = xasprintf("%s/outside2/" DROPIN_NAME, d),
                            *kept = xasprintf("%s/outside2/.#" DROPIN_NAME ".Hj34Kl", d);
        ok(access(moved, F_OK) != 0 && access(kept, F_OK) == 0, "nothing renamed through it");
        ok(strstr(said5, "cannot finish") && strstr(said5, "c.service.d"), "naming it");
        unlink(journal);
        unlink(c);

        /* The unit directory itself a link. */
        _cleanup_free_ char *ul = xasprintf("%s/units-link", d);
        if (symlink(units, ul) < 0)
                abort();
        _cleanup_free_ char *said6 = NULL;
        is_int(recover(ul, &said6), -ELOOP, "a unit directory that is a link: -ELOOP");
}

/* A link put where the commit is to make a <unit>.d, between the change set and its commit:
 * refused, and the whole change undone. */
static void swapped(const char *d) {
        _cleanup_free_ char *units = old_units(d);
        _cleanup_free_ char *before = state(units);
        struct changeset cs;
        if (changeset_for_plan(units, &small_env, plan2.t, plan2.c, plan2.p, &cs) < 0) {
                printf("Bail out! the change set\n");
                exit(1);
        }
        write_file(d, "elsewhere3/keep", "");
        _cleanup_free_ char *target = xasprintf("%s/elsewhere3", d), *c = xasprintf("%s/c.service.d", units);
        if (symlink(target, c) < 0)
                abort();
        _cleanup_free_ char *with_link = state(units);
        is_int(changeset_commit(&cs), -ELOOP, "a link where the commit makes c.service.d: -ELOOP");
        _cleanup_free_ char *after = state(units), *inside = tree_state(target, false);
        is_str(after, with_link, "every file as it was (the link too)");
        is_str(inside, "keep file 0644 ''\n", "nothing written through the link");
        changeset_done(&cs);
        ok(!streq(before, with_link), "(the link was there)");
}

/* A generator's commit into an empty directory: killed at every step, it leaves whole drop-ins
 * and temporaries of whole ones, never a journal nor a part of a file; done, it holds what the
 * journaled commit makes of the same plan. An update is not a creation: refused, nothing written. */
struct fresh_job {
        const char *units;
        unsigned kill_at;
};

static int fresh_run(void *arg) {
        const struct fresh_job *j = arg;
        char n[16];
        struct changeset cs;

        if (j->kill_at) {
                snprintf(n, sizeof(n), "%u", j->kill_at);
                setenv("NUMAPLAN_TEST_KILL_AT_STEP", n, 1);
        }
        int r = changeset_for_plan(j->units, &small_env, plan1.t, plan1.c, plan1.p, &cs);
        if (r >= 0)
                r = changeset_commit_fresh(&cs);
        changeset_done(&cs);
        return r;
}

/* Every file in each <unit>.d of `units`, the drop-in or a temporary of it, is the drop-in the
 * journaled commit wrote for that unit into `whole`. */
static bool all_whole(const char *units, const char *whole) {
        static const char *const dirs[] = {"a.service.d", "b@0.service.d"};

        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                _cleanup_free_ char *dir = xasprintf("%s/%s", units, dirs[i]),
                                    *ref = xasprintf("%s/%s/" DROPIN_NAME, whole, dirs[i]), *want = read_whole(ref);
                DIR *dh = opendir(dir);
                for (struct dirent *de; dh && (de = readdir(dh));) {
                        if (de->d_name[0] == '.' && (!de->d_name[1] || streq(de->d_name, "..")))
                                continue;
                        _cleanup_free_ char *p = xasprintf("%s/%s", dir, de->d_name), *got = read_whole(p);
                        if (!streq_ptr(got, want)) {
                                closedir(dh);
                                return false;
                        }
                }
                if (dh)
                        closedir(dh);
        }
        return true;
}

static void fresh(const char *d) {
        _cleanup_free_ char *units = xasprintf("%s/fresh", d), *journaled = xasprintf("%s/journaled", d);
        unsigned n;

        rm_rf(journaled);
        if (commit_in_child(journaled, &plan1, 0, 0) != 0)
                abort();
        _cleanup_free_ char *want = state(journaled);
        for (n = 1; n < 20; n++) {
                rm_rf(units);
                struct fresh_job j = {units, n};
                int r = run_child(fresh_run, &j, NULL);
                _cleanup_free_ char *s = state(units);
                if (r != CHILD_KILLED) {
                        ok(r == 0 && streq(s, want),
                           "fresh: with no step %u it completes, as the journaled commit does", n);
                        break;
                }
                ok(!has_journal(units) && all_whole(units, journaled),
                   "fresh: killed at step %u, no journal, and every file there (temporaries too) a whole drop-in", n);
        }
        ok(n == 5, "fresh: two drop-ins staged, then renamed: four steps (%u)", n - 1);

        struct changeset cs;
        _cleanup_free_ char *before = state(journaled);
        if (changeset_for_plan(journaled, &small_env, plan2.t, plan2.c, plan2.p, &cs) < 0)
                abort();
        is_int(changeset_commit_fresh(&cs), -EEXIST, "fresh: an update is refused");
        _cleanup_free_ char *after = state(journaled);
        is_str(after, before, "and nothing is written");
        changeset_done(&cs);
}

int main(void) {
        _cleanup_tmpdir_ char *d = make_tmpdir();

        log_set_max_level(LOG_ERR - 1);
        small_plan_make(&plan1, conf1);
        small_plan_make(&plan2, conf2);
        {
                _cleanup_free_ char *units = old_units(d);
                old_state = state(units);
                if (commit_in_child(units, &plan2, 0, 0) != 0) {
                        printf("Bail out! the second apply\n");
                        return 1;
                }
                new_state = state(units);
        }
        ok(!streq(old_state, new_state) && strstr(old_state, "x.service.d/10-admin.conf") &&
                   strstr(new_state, "x.service.d/10-admin.conf") && strstr(new_state, "c.service.d") &&
                   !strstr(new_state, "b@0.service.d"),
           "the old and the new plan differ, the admin's file in both");

        unsigned steps = killed(d);
        journal_content(d);
        failed(d, steps);
        killed_while_undoing(d, steps);
        fresh(d);
        /* The rest in this process: its write steps no longer matter. */
        stale(d);
        hostile(d);
        swapped(d);

        free(old_state);
        free(new_state);
        small_plan_done(&plan1);
        small_plan_done(&plan2);
        return done_testing();
}
