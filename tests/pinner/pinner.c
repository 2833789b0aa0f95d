/*
 * numaplan-pinner: a process that holds memory the ways a replica can, for numaplan's end-to-end
 * tests of locked and pinned pages. A replica's RDMA memory regions pin its buffers for the
 * NIC's DMA (ibv_reg_mr); without RDMA hardware, a buffer registered with an io_uring
 * (IORING_REGISTER_BUFFERS) is pinned the same way: pin_user_pages() with FOLL_LONGTERM,
 * counted in the process's VmPin, and the kernel will not migrate its pages until the ring lets
 * them go. Locking (mlock) is not pinning: a locked page stays in memory but may still move.
 *
 * Usage: numaplan-pinner [--anon-mib N] [--lock-mib N] [--pin-mib N]
 *   --anon-mib N   hold N MiB of anonymous memory, written once (default 0)
 *   --lock-mib N   hold N MiB of anonymous memory locked with mlock(2) (default 0)
 *   --pin-mib N    hold N MiB of anonymous memory, written, then registered with an io_uring as one
 *                  fixed buffer: pinned (default 0; at most 1024, io_uring's limit for a buffer)
 *   -h, --help     this text
 * Each region is a mapping of its own, allocated where the process's memory policy says, in that
 * order. Then it prints one line on stdout and waits for SIGTERM or SIGINT (exit status 0):
 *   numaplan-pinner: ready pid=N anon=ADDR/BYTES lock=ADDR/BYTES pin=ADDR/BYTES
 * Exit status 1: the memory, mlock or io_uring failed (said on stderr); 2: a bad command line.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <getopt.h>
#include <linux/io_uring.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

static void usage(FILE *f) {
        fputs("usage: numaplan-pinner [--anon-mib N] [--lock-mib N] [--pin-mib N]\n", f);
}

static int mib_arg(const char *s, unsigned long max, unsigned long *ret) {
        char *end;
        errno = 0;
        unsigned long v = strtoul(s, &end, 10);
        if (errno || end == s || *end || v > max || s[0] == '-')
                return -1;
        *ret = v;
        return 0;
}

/* `mib` MiB of anonymous memory of its own mapping, every page written. */
static char *region(unsigned long mib) {
        size_t len = mib << 20;
        char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
                return NULL;
        for (size_t i = 0; i < len; i += 4096)
                p[i] = 1;
        return p;
}

/* Registers [p, p + len) with a new io_uring as its one fixed buffer: the kernel pins it. The
 * ring stays open, so the pin lasts as long as the process. */
static int pin(char *p, size_t len) {
        struct io_uring_params params;
        memset(&params, 0, sizeof(params));
        int ring = (int) syscall(__NR_io_uring_setup, 1, &params);
        if (ring < 0)
                return -errno;
        struct iovec iov = {.iov_base = p, .iov_len = len};
        if (syscall(__NR_io_uring_register, ring, IORING_REGISTER_BUFFERS, &iov, 1) < 0)
                return -errno;
        return 0;
}

static volatile sig_atomic_t stop;

static void on_signal(int sig) {
        (void) sig;
        stop = 1;
}

int main(int argc, char **argv) {
        static const struct option options[] = {
                {"anon-mib", required_argument, NULL, 'a'},
                {"lock-mib", required_argument, NULL, 'l'},
                {"pin-mib", required_argument, NULL, 'p'},
                {"help", no_argument, NULL, 'h'},
                {0},
        };
        unsigned long mib[3] = {0}; /* anon, lock, pin */
        int c;

        while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
                int k = c == 'a' ? 0 : c == 'l' ? 1 : c == 'p' ? 2 : -1;
                if (c == 'h') {
                        usage(stdout);
                        return 0;
                }
                if (k < 0 || mib_arg(optarg, k == 2 ? 1024 : 65536, &mib[k]) < 0) {
                        if (k >= 0)
                                fprintf(stderr, "numaplan-pinner: --%s wants a number of MiB, got '%s'\n",
                                        options[k].name, optarg);
                        usage(stderr);
                        return 2;
                }
        }
        if (optind < argc) {
                usage(stderr);
                return 2;
        }

        char *p[3] = {NULL};
        for (int k = 0; k < 3; k++) {
                if (mib[k] == 0)
                        continue;
                if (!(p[k] = region(mib[k]))) {
                        fprintf(stderr, "numaplan-pinner: %lu MiB: %s\n", mib[k], strerror(errno));
                        return 1;
                }
        }
        if (p[1] && mlock(p[1], mib[1] << 20) < 0) {
                fprintf(stderr, "numaplan-pinner: mlock of %lu MiB: %s\n", mib[1], strerror(errno));
                return 1;
        }
        int r = p[2] ? pin(p[2], mib[2] << 20) : 0;
        if (r < 0) {
                fprintf(stderr, "numaplan-pinner: io_uring buffer of %lu MiB: %s\n", mib[2], strerror(-r));
                return 1;
        }

        /* The signals blocked but while it waits: one that comes before the wait is not lost. */
        sigset_t block, waiting;
        sigemptyset(&block);
        sigaddset(&block, SIGTERM);
        sigaddset(&block, SIGINT);
        sigprocmask(SIG_BLOCK, &block, &waiting);
        struct sigaction sa = {.sa_handler = on_signal};
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        printf("numaplan-pinner: ready pid=%d anon=%p/%lu lock=%p/%lu pin=%p/%lu\n", (int) getpid(), (void *) p[0],
               mib[0] << 20, (void *) p[1], mib[1] << 20, (void *) p[2], mib[2] << 20);
        fflush(stdout);
        while (!stop)
                sigsuspend(&waiting);
        return 0;
}
