/* SPDX-License-Identifier: MIT */
/* numaplan-generator (generator/generator.h).
 *
 * The generator is the plan's own code path: inputs_load() reads the configuration and this
 * boot's host, changeset_for_plan() renders exactly the drop-ins `plan` prints, and the commit
 * writes them. What differs is the contract of a generator: it runs before most of the system,
 * so it talks to no one (no D-Bus), writes only below its directory, logs to the kernel log, ends
 * within GENERATOR_TIMEOUT_S, and exits 0 whatever happens to the configuration or the host (2 only
 * for drop-ins that would hand root a path another user could replace: it writes none then).
 * systemd boots on either way.
 * When it cannot place the replicas it still writes their drop-ins, asserting the marker it then
 * does not write: the replicas fail to start with "Assertion failed" rather than start unpinned. */

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/wait.h>

#include "basic/escape.h"
#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/util.h"
#include "core/config.h"
#include "core/dropin.h"
#include "core/placement.h"
#include "core/unit-name.h"
#include "generator/generator.h"
#include "host/config-files.h"
#include "stage/inputs.h"
#include "stage/deploy-generator.h"
#include "stage/deploy.h"
#include "systemd/changeset.h"
#include "systemd/generator-files.h"

#define CONFIG_SCAN_MAX (4U << 20)

/* --- Files below a directory, never through a link ------------------------------------------- */

static int read_unit_file_at(int udfd, const char *unit, const char *name, char **ret) {
        _cleanup_free_ char *d = xasprintf("%s.d", unit);
        *ret = NULL;
        if (udfd < 0)
                return udfd;
        _cleanup_close_ int dfd = open_dir_at(udfd, d, false, NULL);
        if (dfd < 0)
                return dfd;
        return read_regular_at(dfd, name, DROPIN_SIZE_MAX, ret);
}

static int read_unit_file(const char *dir, const char *unit, const char *name, char **ret) {
        _cleanup_close_ int udfd = open_dir_at(AT_FDCWD, dir, false, NULL);
        return read_unit_file_at(udfd, unit, name, ret);
}

/* --- The generator ----------------------------------------------------------------------------- */

/* Adds a unit to keep from starting when there is no plan, once: a template's unit is its
 * template ("llama@.service"), whose drop-ins every instance takes. */
static void add_unit(char ***v, size_t *n, const char *value) {
        _cleanup_free_ char *u = unit_name_mangle(value), *probe = unit_template_instance(u, "0");
        if (!unit_name_is_valid_service(probe, NULL))
                return;
        if (strstr(u, "%i")) {
                /* %i in a template's instance ("tp@%i.service", "tp@.%i.service"): every
                 * instance takes the template's drop-ins ("tp@.service"). %i anywhere else
                 * ("tp.%i.service") names no unit a drop-in could be written for. */
                const char *at = strchr(u, '@');
                if (!at || strstr(u, "%i") < at)
                        return;
                char *t = xasprintf("%.*s@.service", (int) (at - u), u);
                free(u);
                u = t;
        } else if (!unit_name_is_valid_service(u, NULL))
                return;
        if (strv_contains(*v, u))
                return;
        *v = xrealloc(*v, (*n + 2) * sizeof(char *));
        (*v)[(*n)++] = TAKE_PTR(u);
        (*v)[*n] = NULL;
}

/* The units of one file's text, read by the configuration's parser for its unit = lines only:
 * it names them even when the rest does not parse. */
static void units_of_text(const char *text, size_t len, const char *name, char ***v, size_t *n) {
        _cleanup_strv_free_ char **units = config_units_of_text(text, len, name);
        for (size_t i = 0; units[i]; i++)
                add_unit(v, n, units[i]);
}

char **generator_units_of_text(const char *text, size_t len, const char *name) {
        char **v = xmalloc0(sizeof(char *));
        size_t n = 0;
        units_of_text(text, len, name, &v, &n);
        return v;
}

static void scan_units(const char *path, char ***v, size_t *n) {
        _cleanup_free_ char *text = NULL;
        if (read_file_max(path, CONFIG_SCAN_MAX, &text) >= 0)
                units_of_text(text, strlen(text), path, v, n);
}

/* The record of the last plan's units, which apply in generator mode writes beside apply's
 * drop-ins, where it lasts across boots: whatever the generator cannot read of the
 * configuration, the units it last placed are kept from starting unplaced. */
static void add_recorded_units(const struct inputs *in, char ***v, size_t *n) {
        for (size_t k = 0; k < ELEMENTSOF(in->apply_dirs) && in->apply_dirs[k]; k++) {
                _cleanup_strv_free_ char **units = state_read_units_record(in->apply_dirs[k]);
                for (size_t i = 0; units[i]; i++)
                        add_unit(v, n, units[i]);
        }
}

/* The write end of the pipe to the parent, which keeps the time, or -1: the worker names each
 * unit it knows of, so that a parent whose worker did not finish keeps those from starting. */
static int report_fd = -1;

static void report_units(char *const *units) {
        struct strbuf lines = {0};

        for (size_t i = 0; report_fd >= 0 && units && units[i]; i++) {
                strbuf_append(&lines, units[i]);
                strbuf_putc(&lines, '\n');
        }
        if (lines.len) /* at once: every line the parent reads wakes it */
                (void) !write(report_fd, lines.s, lines.len);
        strbuf_done(&lines);
}

char *generator_block_text(const char *why, const char *marker) {
        _cleanup_free_ char *shown = name_escape(why);
        return xasprintf(DROPIN_HEADER "-generator: no placement at this boot. Do not edit: fix the cause, then run "
                                       "numaplan apply.\n# %s\n[Unit]\nAfter=numaplan.service\nAssertPathExists=%s\n",
                         shown, marker);
}

/* The units to keep from starting when there is no plan: those of the last plan (the record),
 * and those the configuration names, parsed when it can be (quietly: what is wrong was said),
 * else read for its `unit =` lines. */
static char **blocked_units(const struct inputs *in, const char *config_path) {
        char **v = xmalloc0(sizeof(char *));
        size_t n = 0;
        _cleanup_config_ struct config *c = NULL;
        int level = log_get_max_level();

        add_recorded_units(in, &v, &n);
        log_set_max_level(0);
        int r = config_load(config_path, &c);
        log_set_max_level(level);
        if (r >= 0) {
                for (size_t i = 0; i < c->n_replicas; i++)
                        if (c->replicas[i].unit)
                                add_unit(&v, &n, c->replicas[i].unit);
                return v;
        }
        _cleanup_strv_free_ char **files = config_files(config_path);
        for (size_t i = 0; files[i]; i++)
                scan_units(files[i], &v, &n);
        return v;
}

/* No plan at this boot: every unit the configuration names gets a drop-in that asserts the
 * marker, which is not written, so none starts with a placement this boot does not have. */
static void block_all(const struct globals *g, const char *config_path) {
        _cleanup_inputs_ struct inputs in = {0};
        _cleanup_strbuf_ struct strbuf names = {0};
        size_t n = 0;

        inputs_dirs(g, false, &in);
        _cleanup_strv_free_ char **units = blocked_units(&in, config_path);
        _cleanup_free_ char *text = generator_block_text(log_first_error() ? log_first_error() : "no plan", in.marker);
        report_units(units);
        for (size_t i = 0; units[i]; i++)
                if (deploy_write_unit_file(in.unit_dir, units[i], DROPIN_NAME, text) >= 0) {
                        strbuf_printf(&names, "%s%s", n ? ", " : "", units[i]);
                        n++;
                }
        if (n)
                log_error("no placement at this boot: %s kept from starting (each asserts %s, which is not there); "
                          "fix the cause, then run numaplan apply",
                          names.s, in.marker);
        else
                log_error("no placement at this boot, and no replica unit found in the configuration to keep from "
                          "starting");
}

static void report_plan_units(const struct plan *plan) {
        if (report_fd < 0)
                return;
        _cleanup_free_ char **units = xmalloc0((plan->n_replicas + 1) * sizeof(char *));
        for (size_t i = 0; i < plan->n_replicas; i++)
                units[i] = plan->replicas[i].unit;
        report_units(units);
}

/* EXIT_OK, whatever went wrong with the configuration or the host (said, and the replicas kept
 * from starting); EXIT_USAGE, with nothing written, for drop-ins that would hand root a path
 * another user could replace (stage/trust.h): where it is installed is not the configuration's
 * fault, and a replica started unplaced is better than none. */
static int generate(const struct globals *g, const char *config_path) {
        _cleanup_inputs_ struct inputs in = {0};
        _cleanup_deploy_outcome_ struct deploy_outcome out = {0};

        if (inputs_load(g, config_path, false, 0, &in) != EXIT_OK || !plan_units_valid(in.plan)) {
                block_all(g, config_path);
                return EXIT_OK;
        }
        report_plan_units(in.plan);
        int r = deploy_run(&in, &(struct deploy_options){.kind = DEPLOY_GENERATE}, &out);
        if (r != EXIT_OK || !out.changed)
                return r;
        log_notice("placed %zu replica%s from %s: %s", out.placed, out.placed == 1 ? "" : "s",
                   config_sources(in.config), out.placed_names);
        if (out.left_out)
                log_notice("left out %zu replica%s that numaplan remove took out until the next boot", out.left_out,
                           out.left_out == 1 ? "" : "s");
        return EXIT_OK;
}

static void generator_help(void) {
        printf("Usage: " GENERATOR_NAME " [OPTIONS] NORMAL-DIR [EARLY-DIR LATE-DIR]\n\n"
               "numaplan as a systemd generator: writes each replica unit's drop-in, exactly as numaplan\n"
               "plan shows it, into NORMAL-DIR (systemd gives /run/systemd/generator), from the\n"
               "configuration and this boot's hardware. Run by systemd at boot and at every\n"
               "daemon-reload; logs to the kernel log when systemd runs it. Exits 0, also when it cannot\n"
               "place the replicas (it keeps them from starting then); 2, writing nothing, when its drop-ins\n"
               "would have root run a binary another user could replace.\n\n"
               "  -c, --config FILE      read FILE instead of " CONFIG_FILE " and " CONFIG_DROPIN_DIR "/\n"
               "      --sysfs-root DIR   read DIR/sys and DIR/proc instead of /sys and /proc\n"
               "      --unit-dir DIR     where apply's drop-ins that outrank the generator's are (default\n"
               "                         " UNIT_DIR_PERSISTENT " and " UNIT_DIR_RUNTIME ")\n"
               "      --runtime-dir DIR  where numaplan remove records what it took out (default\n"
               "                         " STATE_RUNTIME_DIR ")\n"
               "  -v, --verbose          say more\n");
}

/* --- The time limit --------------------------------------------------------------------------- */

/* What a worker that did not finish left in the generator's directory: its temporaries and its
 * commit's journal go (nothing will finish that commit: the next daemon-reload starts afresh);
 * the drop-ins it put in place stay, asserting the marker it never wrote. */
static void clean_up_after(const char *dir) {
        _cleanup_close_ int dfd = open_dir_at(AT_FDCWD, dir, false, NULL);
        _cleanup_closedir_ DIR *d = dfd < 0 ? NULL : fd_opendir(dup(dfd));

        for (struct dirent *de; d && (de = readdir(d));) {
                size_t len = strlen(de->d_name);
                if (is_temporary_name(de->d_name) || streq(de->d_name, CHANGESET_JOURNAL))
                        (void) unlinkat(dfd, de->d_name, 0);
                else if ((len > 2 && streq(de->d_name + len - 2, ".d")) || streq(de->d_name, ".numaplan")) {
                        _cleanup_close_ int sub = open_dir_at(dfd, de->d_name, false, NULL);
                        _cleanup_closedir_ DIR *sd = sub < 0 ? NULL : fd_opendir(dup(sub));
                        for (struct dirent *e; sd && (e = readdir(sd));)
                                if (is_temporary_name(e->d_name))
                                        (void) unlinkat(sub, e->d_name, 0);
                        (void) unlinkat(dfd, de->d_name, AT_REMOVEDIR); /* only when it is empty now */
                }
        }
}

/* The worker did not finish: say what is in place, and keep every unit it named (`reported`, one
 * a line) from starting. */
static void after_worker(const struct globals *g, const char *reported, const char *how) {
        _cleanup_inputs_ struct inputs in = {0};
        _cleanup_strbuf_ struct strbuf placed = {0}, blocked = {0};
        size_t n_placed = 0, n_blocked = 0;
        _cleanup_strv_free_ char **units = xmalloc0(sizeof(char *));
        _cleanup_free_ char *lines = xstrdup(reported);
        size_t n = 0;

        for (char *line = lines, *next; *line; line = next) {
                next = line + strcspn(line, "\n");
                if (*next)
                        *next++ = '\0';
                if (*line && !strv_contains(units, line)) {
                        units = xrealloc(units, (n + 2) * sizeof(char *));
                        units[n++] = xstrdup(line);
                        units[n] = NULL;
                }
        }
        inputs_dirs(g, false, &in);
        clean_up_after(in.unit_dir);
        _cleanup_free_ char *why = xasprintf(GENERATOR_NAME " %s", how), *text = generator_block_text(why, in.marker);
        for (size_t i = 0; units[i]; i++) {
                _cleanup_free_ char *old = NULL;
                struct strbuf *b = &placed;
                if (read_unit_file(in.unit_dir, units[i], DROPIN_NAME, &old) < 0 || !old) {
                        if (deploy_write_unit_file(in.unit_dir, units[i], DROPIN_NAME, text) < 0)
                                continue;
                        b = &blocked;
                }
                strbuf_printf(b, "%s%s", b->len ? ", " : "", units[i]);
                *(b == &placed ? &n_placed : &n_blocked) += 1;
        }
        if (n_placed + n_blocked == 0)
                log_error("%s, with no drop-in written and no replica unit known yet: the replicas start without "
                          "numaplan's placement",
                          how);
        else
                log_error("%s, without its marker %s: %s%s%s%s%s kept from starting", how, in.marker,
                          n_placed ? "the drop-ins in place keep " : "", n_placed ? placed.s : "",
                          n_placed && n_blocked ? "; " : "", n_blocked ? "drop-ins written now keep " : "",
                          n_blocked ? blocked.s : "");
}

/* The work happens in a worker process, so that the time limit can be kept however it is stuck
 * (a disk that stopped answering): the parent waits, reading the units the worker names, and
 * after GENERATOR_TIMEOUT_S stops it and finishes what it left.
 *
 * The worker runs in the parent's memory (clone() with CLONE_VM, as posix_spawn() starts its
 * child): a fork copied the page tables and faulted every page of code and data in again, which
 * cost as much as the plan. The price is a discipline. While the worker runs, the parent touches
 * nothing the worker may be using (the heap, stdio, errno: no call that can fail), only poll()
 * and read() of its pipe and of a signalfd, into memory the worker never sees; it learns of the
 * worker's end from SIGCHLD and of the time from SIGALRM, both blocked and read from the signalfd.
 * A worker that ended otherwise than by finishing may have left the heap half-changed: what
 * follows it runs in a fresh image of the program (exec, with --worker-ended). */

#define WORKER_STACK_SIZE (8U << 20) /* a main thread's default */
#define REPORT_MAX (64U << 10)

static char reported[REPORT_MAX + 1]; /* the worker's lines, as the parent read them */
static char worker_ended[128];        /* how it ended, when not by finishing */
static int worker_exit;               /* its exit code, when it finished */

struct worker_args {
        struct globals *g;
        const char *config;
        int report_fd;
        sigset_t mask;  /* the parent's, before it blocked SIGALRM and SIGCHLD */
        bool pinned;    /* the parent is on one CPU for the start: */
        cpu_set_t cpus; /* the ones it may use */
};

static int worker(void *userdata) {
        struct worker_args *a = userdata;

        report_fd = a->report_fd;
        sigprocmask(SIG_SETMASK, &a->mask, NULL);
        if (a->pinned)
                (void) sched_setaffinity(0, sizeof(a->cpus), &a->cpus);
        int r = generate(a->g, a->config);
        fflush(NULL); /* its buffers are the parent's too */
        _exit(r);
}

/* Until the worker is gone, or the time is up (then it is killed, and waited for 2 s more).
 * Returns false when it did not finish, with worker_ended saying how. */
static bool wait_for_worker(pid_t child, int report, int sfd) {
        struct pollfd fds[] = {{.fd = sfd, .events = POLLIN}, {.fd = report, .events = POLLIN}};
        size_t got = 0;
        bool killed = false;

        for (;;) {
                if (poll(fds, fds[1].fd >= 0 ? 2 : 1, -1) <= 0)
                        continue;
                if (fds[1].fd >= 0 && fds[1].revents) {
                        char scratch[256]; /* what does not fit is read, not kept */
                        ssize_t n = got < REPORT_MAX ? read(report, reported + got, REPORT_MAX - got)
                                                     : read(report, scratch, sizeof(scratch));
                        if (n > 0 && got < REPORT_MAX)
                                got += (size_t) n;
                        else if (n <= 0)
                                fds[1].fd = -1; /* the worker's end is closed: it is exiting */
                        continue;
                }
                struct signalfd_siginfo si;
                if (!fds[0].revents || read(sfd, &si, sizeof(si)) != sizeof(si))
                        continue;
                if (si.ssi_signo == SIGALRM && !killed) {
                        kill(child, SIGKILL);
                        killed = true;
                        snprintf(worker_ended, sizeof(worker_ended), "was not done after %d s: stopped",
                                 GENERATOR_TIMEOUT_S);
                        /* One stuck where even SIGKILL waits (a dead disk) is not waited for long. */
                        alarm(2);
                } else if (si.ssi_signo == SIGALRM)
                        return false;
                /* SIGCHLD: the worker is gone; what it wrote is all in the pipe by now. */
                int status;
                if (si.ssi_signo != SIGCHLD || waitpid(child, &status, WNOHANG) != child)
                        continue;
                while (fds[1].fd >= 0 && got < REPORT_MAX) {
                        ssize_t n = read(report, reported + got, REPORT_MAX - got);
                        if (n <= 0)
                                break;
                        got += (size_t) n;
                }
                if (WIFEXITED(status))
                        worker_exit = WEXITSTATUS(status);
                if (!killed && WIFSIGNALED(status))
                        snprintf(worker_ended, sizeof(worker_ended), "stopped by signal %d (%s)", WTERMSIG(status),
                                 sigdescr_np(WTERMSIG(status)) ? sigdescr_np(WTERMSIG(status)) : "?");
                return !killed && !WIFSIGNALED(status);
        }
}

/* The worker did not finish: after_worker() in a fresh image, with how it ended and what it
 * named; in this one only if that cannot be. */
static void finish_after_worker(struct globals *g, int argc, char **argv) {
        static char ended[sizeof(worker_ended) + 32], units[sizeof(reported) + 32];
        static char *args[64];

        snprintf(ended, sizeof(ended), "--worker-ended=%s", worker_ended);
        snprintf(units, sizeof(units), "--worker-units=%s", reported);
        if ((size_t) argc + 3 <= ELEMENTSOF(args)) {
                args[0] = argv[0];
                args[1] = ended;
                args[2] = units;
                for (int i = 1; i < argc; i++)
                        args[i + 2] = argv[i];
                args[argc + 2] = NULL;
                execv("/proc/self/exe", args);
        }
        after_worker(g, reported, worker_ended);
}

static int run_bounded(struct globals *g, const char *config, int argc, char **argv) {
        struct worker_args a = {.g = g, .config = config};
        sigset_t mask;
        int p[2];

        sigemptyset(&mask);
        sigaddset(&mask, SIGALRM);
        sigaddset(&mask, SIGCHLD);
        if (pipe2(p, O_CLOEXEC) < 0)
                return generate(g, config); /* unbounded, then, rather than not at all */
        int sfd = signalfd(-1, &mask, SFD_CLOEXEC);
        void *stack = mmap(NULL, WORKER_STACK_SIZE, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
        if (sfd < 0 || stack == MAP_FAILED || mprotect(stack, 4096, PROT_NONE) < 0) { /* a guard page */
                if (sfd >= 0)
                        close(sfd);
                if (stack != MAP_FAILED)
                        munmap(stack, WORKER_STACK_SIZE);
                close(p[0]);
                close(p[1]);
                return generate(g, config);
        }
        a.report_fd = p[1];
        /* SIGCHLD is how the worker's end is told: one ignored where the generator was started
         * would be neither sent nor waited for (the kernel reaps such a child itself). */
        struct sigaction dfl = {.sa_handler = SIG_DFL}, chld;
        sigaction(SIGCHLD, &dfl, &chld);
        /* The worker starts on this CPU, where the parent is about to sleep, and takes back every
         * CPU at once; the parent stays here until the worker is done. Another CPU woken for the
         * worker, and this one for the parent at the end, cost more in a virtual machine than the
         * clone itself (0.2 ms of a generator's 6 ms). */
        int cpu = sched_getcpu();
        cpu_set_t one;
        CPU_ZERO(&one);
        if (cpu >= 0 && cpu < CPU_SETSIZE)
                CPU_SET(cpu, &one);
        a.pinned = cpu >= 0 && cpu < CPU_SETSIZE && sched_getaffinity(0, sizeof(a.cpus), &a.cpus) == 0 &&
                   sched_setaffinity(0, sizeof(one), &one) == 0;
        sigprocmask(SIG_BLOCK, &mask, &a.mask);
        fflush(NULL);
        pid_t child = clone(worker, (char *) stack + WORKER_STACK_SIZE, CLONE_VM | SIGCHLD, &a);
        close(p[1]);
        if (child < 0) {
                if (a.pinned)
                        (void) sched_setaffinity(0, sizeof(a.cpus), &a.cpus);
                sigprocmask(SIG_SETMASK, &a.mask, NULL);
                sigaction(SIGCHLD, &chld, NULL);
                close(p[0]);
                close(sfd);
                munmap(stack, WORKER_STACK_SIZE);
                return generate(g, config);
        }
        alarm(GENERATOR_TIMEOUT_S);
        bool finished = wait_for_worker(child, p[0], sfd);
        alarm(0);
        if (a.pinned) /* woken on the CPU the worker ended on, it takes back the rest */
                (void) sched_setaffinity(0, sizeof(a.cpus), &a.cpus);
        close(p[0]);
        close(sfd);
        sigprocmask(SIG_SETMASK, &a.mask, NULL);
        sigaction(SIGCHLD, &chld, NULL);
        if (finished) {
                munmap(stack, WORKER_STACK_SIZE); /* a worker stuck in the kernel would still be on it */
                return worker_exit;
        }
        finish_after_worker(g, argc, argv);
        return EXIT_OK;
}

/* As systemd tells it (in_initrd()): $SYSTEMD_IN_INITRD when set, else /etc/initrd-release, here
 * below the root. */
static bool in_initrd(const char *root) {
        const char *e = getenv("SYSTEMD_IN_INITRD");
        if (e && *e)
                return streq(e, "1") || streq(e, "yes") || streq(e, "true") || streq(e, "on");
        _cleanup_free_ char *path = xasprintf("%s/etc/initrd-release", root);
        return access(path, F_OK) == 0;
}

int generator_main(int argc, char **argv) {
        struct globals g = {.sysfs_root = "/"};
        const char *config = NULL, *dirs[4] = {0}, *ended = NULL, *units = NULL;
        int n_dirs = 0, verbosity = 0;

        for (int i = 1; i < argc; i++) {
                /* --worker-ended and --worker-units are the generator's own, to itself: the
                 * fresh image that finishes after a worker that did not (run_bounded()). */
                static const char *const names[] = {
                        "--config",      "-c", "--sysfs-root", "--unit-dir", "--runtime-dir", "--worker-ended",
                        "--worker-units"};
                const char **dst[] = {&config, &config, &g.sysfs_root, &g.unit_dir, &g.runtime_dir, &ended, &units};
                const char *a = argv[i];
                bool taken = false;

                if (streq(a, "-h") || streq(a, "--help")) {
                        generator_help();
                        return EXIT_OK;
                }
                if (streq(a, "-v") || streq(a, "--verbose")) {
                        verbosity++;
                        continue;
                }
                for (size_t k = 0; k < ELEMENTSOF(names) && !taken; k++) {
                        const char *rest = startswith(a, names[k]);
                        if (!rest || (*rest && (*rest != '=' || names[k][1] != '-')))
                                continue;
                        if (!*rest && i + 1 >= argc) {
                                fprintf(stderr, GENERATOR_NAME ": option %s needs a value\n", a);
                                return EXIT_USAGE;
                        }
                        *dst[k] = *rest ? rest + 1 : argv[++i];
                        taken = true;
                }
                if (taken)
                        continue;
                if (a[0] == '-' || n_dirs == 3) {
                        fprintf(stderr, GENERATOR_NAME ": unexpected argument '%s'. Try '" GENERATOR_NAME " --help'.\n",
                                a);
                        return EXIT_USAGE;
                }
                dirs[n_dirs++] = a;
        }
        if (n_dirs != 1 && n_dirs != 3) {
                fprintf(stderr, GENERATOR_NAME
                        ": needs the generator directories (normal, early, late). Try '" GENERATOR_NAME " --help'.\n");
                return EXIT_USAGE;
        }

        /* systemd (251 and later) sets $SYSTEMD_SCOPE for the generators it runs: their stderr
         * reaches no journal there, the kernel log does. Run by hand or by a test: stderr. */
        if (getenv("SYSTEMD_SCOPE"))
                (void) log_open_kmsg(GENERATOR_NAME);
        log_set_max_level(verbosity == 0 ? LOG_NOTICE : verbosity == 1 ? LOG_INFO : LOG_DEBUG);
        if (in_initrd(g.sysfs_root)) {
                log_debug("in the initrd: no replica to place");
                return EXIT_OK;
        }
        /* Bounded: the boot waits for every generator. */
        g.generator_dir = dirs[0];
        if (!ended)
                return run_bounded(&g, config, argc, argv);
        after_worker(&g, units ? units : "", ended);
        return EXIT_OK;
}
