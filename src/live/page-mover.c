/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <linux/kernel-page-flags.h>
#include <numaif.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/util.h"
#include "core/numa-maps.h"
#include "host/host-facts.h"
#include "live/numa-dl.h"
#include "live/page-mover.h"

/* Pages per move_pages(2) call (256 MiB of 4 KiB pages; the arrays take 3 MiB a worker). Each
 * call begins by draining every CPU's page lists and waiting out an RCU grace period
 * (lru_cache_disable()): few large calls, not many small ones. */
#define BATCH STRETCH_BATCH
#define WORKERS_MAX 8

void stretches_add(struct stretches *s, struct stretch run) {
        for (size_t done = 0; done < run.n; done += BATCH) {
                struct stretch piece = run;
                piece.start = run.start + done * run.page;
                piece.n = run.n - done < BATCH ? run.n - done : BATCH;
                s->v = xrealloc(s->v, (s->n + 1) * sizeof(*s->v));
                s->v[s->n++] = piece;
        }
}

void stretches_done(struct stretches *s) {
        free(s->v);
        *s = (struct stretches){0};
}

struct shared {
        atomic_size_t next;
        _Atomic uint64_t changed; /* files (by stretch.file) said to have changed */
        int error[WORKERS_MAX];
        struct migrate_stats st[WORKERS_MAX];
};

struct mover {
        pid_t pid;
        const struct cpuset *planned;
        int target;    /* the one planned node, or -1 for several */
        int move_flag; /* MPOL_MF_MOVE_ALL for another process, MPOL_MF_MOVE for files */
        bool dry, spread, read_in;
        unsigned next_target;
        struct migrate_stats *st;
        struct shared *sh;
        void *addrs[BATCH], *picked[BATCH], *busy[BATCH];
        int status[BATCH], from[BATCH], to[BATCH], after[BATCH], targets[BATCH], now[BATCH];
        size_t pick[BATCH], busy_at[BATCH];
        unsigned char mask[BATCH];
};

/* Runs of pages a move leaves in doubt are settled one per round; past this many, what is left is
 * only asked where it is. */
#define SETTLE_ROUNDS_MAX 16
/* The most pages a large folio holds (a 2 MiB transparent huge page of 4 KiB pages). */
#define FOLIO_PAGES_MAX 512

static bool fatal(int e) {
        return e == ESRCH || e == EPERM || e == EINVAL || e == EFAULT;
}

/* What is left in doubt after the last round: where it is now, moved or not moved. */
static int ask_rest(struct mover *m, size_t n, void **addrs, int *status) {
        if (n && sym_numa_move_pages(m->pid, n, addrs, NULL, status, 0) < 0)
                return -errno;
        return 0;
}

/* A large folio (a transparent huge page) moves as one: move_pages(2) takes it at the first of its
 * pages asked about and says EBUSY of the next (it cannot take what it already took). How many
 * of addrs[g, n) are that folio's tail pages from addrs[g] on, as pagemap's frame numbers and
 * kpageflags' compound bits say (root only); 0 when addrs[g] is not known to be one. */
static size_t folio_tail(pid_t pid, void *const *addrs, size_t g, size_t n) {
        uint64_t page = live_page_size(), start = (uint64_t) (uintptr_t) addrs[g], map[FOLIO_PAGES_MAX],
                 flags[FOLIO_PAGES_MAX];
        _cleanup_free_ char *path = pid ? xasprintf("/proc/%d/pagemap", (int) pid) : xstrdup("/proc/self/pagemap");
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC), kf = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
        size_t max = n - g < FOLIO_PAGES_MAX ? n - g : FOLIO_PAGES_MAX;
        const uint64_t present = UINT64_C(1) << 63, pfn_mask = (UINT64_C(1) << 55) - 1,
                       tail = UINT64_C(1) << KPF_COMPOUND_TAIL;

        ssize_t got = fd >= 0 && kf >= 0 ? pread(fd, map, max * 8, (off_t) (start / page * 8)) : -1;
        if (got < 8 || !(map[0] & present) || !(map[0] & pfn_mask))
                return 0; /* no frame numbers: not root */
        size_t have = (size_t) got / 8;
        got = pread(kf, flags, have * 8, (off_t) ((map[0] & pfn_mask) * 8));
        if (got < 8 || !(flags[0] & tail))
                return 0;
        have = (size_t) got / 8 < have ? (size_t) got / 8 : have;
        size_t k = 1;
        while (k < have && (uint64_t) (uintptr_t) addrs[g + k] == start + k * page && (map[k] & present) &&
               (map[k] & pfn_mask) == (map[0] & pfn_mask) + k && (flags[k] & tail))
                k++;
        return k;
}

/* The pages said EBUSY that are on their target now: a large folio's tail pages, moved with it. */
static int settle_busy(struct mover *m, void **addrs, const int *to, int *status, size_t lo, size_t n) {
        size_t k = 0;
        for (size_t i = lo; i < n; i++)
                if (status[i] == -EBUSY) {
                        m->busy[k] = addrs[i];
                        m->busy_at[k++] = i;
                }
        if (k && sym_numa_move_pages(m->pid, k, m->busy, NULL, m->now, 0) < 0)
                return fatal(errno) ? -errno : 0;
        for (size_t j = 0; j < k; j++)
                if (m->now[j] == to[m->busy_at[j]])
                        status[m->busy_at[j]] = m->now[j];
        return 0;
}

/* After a call that stopped (it returned how many pages it did not move): the run it stopped at,
 * asked where its pages are now (migrate_settle()); and when the page that ended the run was
 * said EBUSY and has not moved, the rest of its large folio, which failed with its head in the
 * run. Returns where the next round starts, n when nothing is left in doubt. */
static ssize_t settle_stopped(struct mover *m, void **addrs, int *to, int *status, size_t lo, size_t n) {
        size_t start, end = migrate_stopped_run(status + lo, to + lo, n - lo, &start);
        if (start == n - lo)
                return (ssize_t) n;
        start += lo, end += lo;
        if (sym_numa_move_pages(m->pid, end - start, addrs + start, NULL, m->now, 0) < 0)
                return fatal(errno) ? -errno : (ssize_t) n;
        migrate_settle(status + start, to + start, m->now, end - start);
        if (end == n || status[end] == MIGRATE_STATUS_UNSET)
                return (ssize_t) end; /* another target's run, never tried */
        size_t k = status[end] == -EBUSY ? folio_tail(m->pid, addrs, end, n) : 0;
        for (size_t i = end; i < end + k; i++)
                status[i] = MIGRATE_STATUS_PINNED;
        return (ssize_t) (end + (k ? k : 1)); /* the page that ended the run keeps what the kernel said */
}

/* move_pages(2) of addrs[0, n) to to[], each page's outcome in status[]: its node now, -errno, or
 * MIGRATE_STATUS_PINNED. A page the kernel cannot migrate (pinned) makes it return a positive
 * count and write no status from the run of pages it was moving on (migrate_stopped_run()):
 * that run's pages are asked where they are now, and what it never tried is moved again. */
static int move_settled(struct mover *m, size_t n, void **addrs, int *to, int *status) {
        size_t lo = 0;
        for (unsigned round = 0; lo < n; round++) {
                for (size_t i = lo; i < n; i++)
                        status[i] = MIGRATE_STATUS_UNSET;
                if (round == SETTLE_ROUNDS_MAX)
                        return ask_rest(m, n - lo, addrs + lo, status + lo);
                long r = sym_numa_move_pages(m->pid, n - lo, addrs + lo, to + lo, status + lo, m->move_flag);
                int e = errno;
                if (r < 0 && fatal(e))
                        return -e;
                int k = settle_busy(m, addrs, to, status, lo, n);
                if (k < 0)
                        return k;
                if (r < 0) { /* it stopped there: the rest did not move, for that reason */
                        for (size_t i = lo; i < n; i++)
                                if (status[i] == MIGRATE_STATUS_UNSET)
                                        status[i] = e < MIGRATE_ERRNO_MAX ? -e : MIGRATE_STATUS_UNSET;
                        return 0;
                }
                if (r == 0)
                        return 0;
                ssize_t next = settle_stopped(m, addrs, to, status, lo, n);
                if (next < 0)
                        return (int) next;
                lo = (size_t) next;
        }
        return 0;
}

/* A mapping whose resident pages all sit on one node off the plan, moving to one planned node:
 * every page is asked to move at once, without asking first where it is, since where each is
 * and where it goes are known. One walk of the page tables instead of two. */
static int move_known(struct mover *m, size_t n, uint64_t weight, int from) {
        struct migrate_stats *st = m->st;
        int r = move_settled(m, n, m->addrs, m->targets, m->after);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++) {
                int s = m->after[i];
                if (s == -ENOENT || s == -EFAULT)
                        continue; /* not present */
                st->resident += weight;
                if (s == m->target) {
                        st->moved_from[from] += weight;
                        st->moved_to[s] += weight;
                } else if (s == MIGRATE_STATUS_PINNED)
                        st->pinned += weight;
                else
                        st->failed[s >= 0 || s == MIGRATE_STATUS_UNSET ? 0 : -s < MIGRATE_ERRNO_MAX ? -s : 0] += weight;
        }
        return 0;
}

/* One batch of page addresses, each `weight` base pages, of a mapping numa_maps describes as `mp`
 * (NULL: unknown): where are they, and move those off plan. */
static int move_batch(struct mover *m, size_t n, uint64_t weight, const struct mapping_pages *mp) {
        if (n == 0)
                return 0;
        if (!m->dry && m->target >= 0 && mp && mp->from_node >= 0 && mp->from_node < MIGRATE_NODES_MAX &&
            mp->off_plan == mp->resident)
                return move_known(m, n, weight, mp->from_node);
        if (sym_numa_move_pages(m->pid, n, m->addrs, NULL, m->status, 0) < 0)
                return -errno;
        struct migrate_batch b = {.status = m->status, .n = n, .weight = weight};
        size_t k = m->spread ? migrate_select_spread(&b, m->planned, &m->next_target, m->st, m->pick, m->to)
                             : migrate_select(&b, m->planned, &m->next_target, m->st, m->pick, m->to);
        if (k == 0)
                return 0;
        for (size_t i = 0; i < k; i++) {
                m->picked[i] = m->addrs[m->pick[i]];
                m->from[i] = m->status[m->pick[i]];
        }
        if (m->dry) {
                /* What would move: counted as if the kernel moved every page picked. */
                migrate_account(m->from, m->to, m->to, k, weight, m->st);
                return 0;
        }
        int r = move_settled(m, k, m->picked, m->to, m->after);
        if (r < 0)
                return r;
        migrate_account(m->from, m->to, m->after, k, weight, m->st);
        return 0;
}

/* numa_maps of this process for the mapping at `addr`: where the pages this worker mapped are. */
static bool own_mapping(const void *addr, const struct cpuset *planned, struct mapping_pages *ret) {
        _cleanup_free_ char *text = NULL;
        _cleanup_free_ struct mapping_pages *v = NULL;
        size_t n = 0;
        if (read_file_max("/proc/self/numa_maps", READ_PROC_MAX, &text) < 0 ||
            numa_maps_mappings(text, planned, &v, &n) < 0)
                return false;
        for (size_t i = 0; i < n; i++)
                if (v[i].start == (uint64_t) (uintptr_t) addr) {
                        *ret = v[i];
                        return true;
                }
        return false;
}

/* Where a worker is while it touches a file's pages: a page past the end of a file truncated
 * since mincore(2) looked raises SIGBUS, which jumps back here instead of killing it. */
static sigjmp_buf *volatile touching;

static void on_sigbus(int sig, siginfo_t *si, void *ctx) {
        (void) si;
        (void) ctx;
        if (touching)
                siglongjmp(*touching, 1);
        signal(sig, SIG_DFL); /* not ours: the fault recurs and ends the process as it would have */
}

/* The file of `s` changed under the worker: said once per file, by whichever worker saw it. */
static void file_changed(struct mover *m, const struct stretch *s) {
        uint64_t bit = UINT64_C(1) << (s->file % STRETCH_FILES_MAX);
        if (!(atomic_fetch_or(&m->sh->changed, bit) & bit))
                log_warning("%s: changed (shrank) while prepared: the rest of its page cache is left where it is",
                            s->path);
}

/* Maps each cached page of `map` here (a minor fault, no I/O) so that move_pages(2) can reach
 * it; their addresses in m->addrs. *ret_faulted when the file ended under it. */
static size_t touch_cached(struct mover *m, uint8_t *map, size_t n_pages, uint64_t page, bool *ret_faulted) {
        sigjmp_buf jump;
        volatile size_t n = 0;

        if (sigsetjmp(jump, 1)) {
                touching = NULL;
                *ret_faulted = true;
                return 0;
        }
        touching = &jump;
        for (size_t i = 0; i < n_pages; i++)
                if (m->mask[i] & 1) {
                        (void) *(volatile uint8_t *) (map + i * page);
                        m->addrs[n++] = map + i * page;
                }
        touching = NULL;
        return n;
}

static int move_file_stretch(struct mover *m, const struct stretch *s) {
        struct stat st;
        size_t n_pages = s->n;

        /* Only what the file still holds: a file truncated since it was listed is not mapped
         * past its end. */
        if (fstat(s->fd, &st) < 0)
                return -errno;
        if ((uint64_t) st.st_size <= s->start) {
                file_changed(m, s);
                return 0;
        }
        uint64_t left = ((uint64_t) st.st_size - s->start + s->page - 1) / s->page;
        if (left < n_pages) {
                n_pages = (size_t) left;
                file_changed(m, s);
        }
        size_t len = n_pages * s->page;
        uint8_t *map = mmap(NULL, len, PROT_READ, MAP_SHARED, s->fd, (off_t) s->start);
        if (map == MAP_FAILED)
                return -errno;
        if (mincore(map, len, m->mask) < 0) {
                int r = -errno;
                munmap(map, len);
                return r;
        }
        if (m->read_in) /* every page, those not cached read in where the worker's policy says */
                for (size_t i = 0; i < n_pages; i++)
                        if (!(m->mask[i] & 1)) {
                                m->mask[i] = 1;
                                m->st->read_in++;
                        }
        bool faulted = false;
        size_t n = touch_cached(m, map, n_pages, s->page, &faulted);
        if (faulted) {
                munmap(map, len);
                file_changed(m, s);
                return 0;
        }
        struct mapping_pages mp;
        int r = move_batch(m, n, 1, own_mapping(map, m->planned, &mp) ? &mp : NULL);
        munmap(map, len);
        return r;
}

static int move_stretch(struct mover *m, const struct stretch *s) {
        if (s->fd >= 0)
                return move_file_stretch(m, s);
        for (size_t i = 0; i < s->n; i++)
                m->addrs[i] = (void *) (uintptr_t) (s->start + i * s->page);
        return move_batch(m, s->n, s->page / m->st->page_size ? s->page / m->st->page_size : 1, s->mp);
}

/* A worker's memory policy, to put back: the first worker is prepare itself, which goes on. */
struct policy_saved {
        int mode;
        unsigned long mask[CPUSET_MAX / 64];
        bool saved;
};

/* A file's pages read in by this worker are allocated interleaved over `nodes`, evenly from the
 * start rather than all on the worker's node: fewer to move after. */
static void interleave_reads(const struct cpuset *nodes, struct policy_saved *old) {
        unsigned long mask[CPUSET_MAX / 64] = {0};
        old->saved = syscall(SYS_get_mempolicy, &old->mode, old->mask, (unsigned long) CPUSET_MAX + 1, NULL, 0UL) == 0;
        CPUSET_FOREACH(n, nodes)
                mask[n / 64] |= 1UL << (n % 64);
        if (syscall(SYS_set_mempolicy, MPOL_INTERLEAVE, mask, (unsigned long) CPUSET_MAX + 1) < 0)
                log_debug("set_mempolicy(MPOL_INTERLEAVE): %m: pages read in go where this worker runs");
}

static void restore_policy(const struct policy_saved *old) {
        if (old->saved)
                (void) syscall(SYS_set_mempolicy, old->mode, old->mask, (unsigned long) CPUSET_MAX + 1);
}

static void work(pid_t pid, const struct stretches *s, const struct cpuset *planned, const struct move_how *how,
                 struct shared *sh, unsigned w) {
        _cleanup_free_ struct mover *m = xmalloc0(sizeof(*m));
        /* Another process's pages move wherever they are shared. A file's pages move only when
         * no other process maps them: a running replica on another node keeps the pages it
         * reads (they count as EACCES). */
        *m = (struct mover){.pid = pid,
                            .planned = planned,
                            .dry = how->dry,
                            .spread = how->spread && pid == 0,
                            .read_in = how->read_in && !how->dry && pid == 0,
                            .sh = sh,
                            .st = &sh->st[w],
                            .target = -1,
                            .move_flag = pid ? MPOL_MF_MOVE_ALL : MPOL_MF_MOVE};
        if (cpuset_count(planned) == 1)
                m->target = cpuset_next(planned, 0);
        for (size_t i = 0; i < BATCH; i++)
                m->targets[i] = m->target;
        m->st->page_size = live_page_size();
        _cleanup_free_ struct policy_saved *old = xmalloc0(sizeof(*old));
        if (m->read_in)
                interleave_reads(planned, old);

        for (size_t i; (i = atomic_fetch_add(&sh->next, 1)) < s->n;) {
                int r = move_stretch(m, &s->v[i]);
                if (r == -ESRCH || r == -EPERM) {
                        sh->error[w] = r;
                        break;
                }
                if (r < 0 && s->v[i].path)
                        log_warning("%s: %s: part of its page cache is left where it is", s->v[i].path, strerror(-r));
        }
        restore_policy(old);
}

/* One CPU of this process's affinity (`set`) per worker. */
static unsigned worker_cpus(const cpu_set_t *set, int cpus[WORKERS_MAX]) {
        unsigned n = 0;
        for (int c = 0; c < CPU_SETSIZE && n < WORKERS_MAX; c++)
                if (CPU_ISSET(c, set))
                        cpus[n++] = c;
        return n;
}

static void pin(int cpu) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        (void) sched_setaffinity(0, sizeof(one), &one);
}

int pages_move(pid_t pid, const struct stretches *s, const struct cpuset *planned, const struct move_how *how,
               struct migrate_stats *st) {
        int cpus[WORKERS_MAX] = {0};
        cpu_set_t affinity;
        bool pinned = sched_getaffinity(0, sizeof(affinity), &affinity) == 0;
        unsigned workers = pinned && pid == 0 ? worker_cpus(&affinity, cpus) : 1, started = 0;
        if (workers == 0)
                workers = 1;
        if (workers > s->n)
                workers = s->n ? (unsigned) s->n : 1;
        struct shared *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (sh == MAP_FAILED)
                return -errno;
        memset(sh, 0, sizeof(*sh));
        struct sigaction bus = {.sa_sigaction = on_sigbus, .sa_flags = SA_SIGINFO}, old_bus;
        sigemptyset(&bus.sa_mask);
        (void) sigaction(SIGBUS, &bus, &old_bus);

        pid_t children[WORKERS_MAX];
        fflush(NULL);
        for (unsigned w = 1; w < workers; w++) {
                pid_t c = fork();
                if (c < 0)
                        break; /* fewer workers, then */
                if (c == 0) {
                        pin(cpus[w]);
                        work(pid, s, planned, how, sh, w);
                        _exit(0);
                }
                children[started++] = c;
        }
        if (workers > 1)
                pin(cpus[0]);
        work(pid, s, planned, how, sh, 0);
        for (unsigned i = 0; i < started; i++)
                while (waitpid(children[i], NULL, 0) < 0 && errno == EINTR)
                        ;
        if (workers > 1 && pinned)
                (void) sched_setaffinity(0, sizeof(affinity), &affinity);
        (void) sigaction(SIGBUS, &old_bus, NULL);

        int r = 0;
        st->page_size = live_page_size();
        for (unsigned w = 0; w < workers; w++) {
                const struct migrate_stats *x = &sh->st[w];
                st->resident += x->resident;
                st->on_plan += x->on_plan;
                for (size_t i = 0; i < MIGRATE_NODES_MAX; i++) {
                        st->moved_from[i] += x->moved_from[i];
                        st->moved_to[i] += x->moved_to[i];
                }
                for (size_t i = 0; i < MIGRATE_ERRNO_MAX; i++)
                        st->failed[i] += x->failed[i];
                st->pinned += x->pinned;
                st->read_in += x->read_in;
                if (sh->error[w] && !r)
                        r = sh->error[w];
        }
        munmap(sh, sizeof(*sh));
        return r;
}
