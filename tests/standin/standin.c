/*
 * numaplan-standin: a stand-in inference server for numaplan's end-to-end tests.
 *
 * numaplan pins a service (llama.cpp, vLLM...) to NUMA nodes and then checks where its memory and
 * threads ended up, and that it answers a warm-up request. Real servers are too big to run in the
 * test guest, so this one only behaves like them where numaplan looks: it maps a "model" file,
 * holds an anonymous "KV cache", has extra threads and worker processes, and speaks just enough
 * HTTP/1.1 for /health and a completion request.
 *
 * Usage: numaplan-standin [OPTION]...
 *   --listen ADDR:PORT     listen there (default 127.0.0.1:8080); ADDR is a numeric IPv4
 *                          address or a bracketed IPv6 one ([::1]:8080); port 0 lets the kernel
 *                          pick one, which the ready line then shows
 *   --model FILE           mmap FILE read-only (MAP_SHARED), read each page once at startup, keep
 *                          the mapping, and read it again (one byte a page) on each completion
 *   --kv-mib N             hold N MiB of anonymous memory, written at startup and on each
 *                          completion (default 0)
 *   --huge-mib N           hold N MiB of huge pages (MAP_HUGETLB, the system's default size), written
 *                          at startup and on each completion, as servers with huge pages do
 *                          (default 0); the pool must hold them, or the start fails
 *   --workers N            fork N worker processes after those allocations; they serve nothing,
 *                          drop the parent's mappings and die with the parent (default 0)
 *   --worker-mib M         each worker holds and writes M MiB of its own (default 0)
 *   --threads N            start N idle threads, named "standin-idle" (default 0)
 *   --ready-after SECONDS  answer 503 on /health and completions until SECONDS after start
 *   --listen-after SECONDS do not bind until SECONDS after start (connections are refused)
 *   --fail-warmup          answer completions with 500 and a JSON error
 *   --fail-status CODE     the same, with status CODE (400-599) instead of 500
 *   --answer-after SECONDS take SECONDS before answering each completion (a slow model)
 *   --near-node NODE       the node of its accelerator: with --remote-penalty, where its memory
 *                          answers fast
 *   --remote-penalty SECONDS  take SECONDS more over each completion while most of its memory
 *                          (the KV cache, else the model, else the huge pages: 64 pages of it,
 *                          asked of move_pages(2)) sits on another node than --near-node's, as a
 *                          model whose memory is away from its GPU answers slower (none when
 *                          the kernel cannot say where it is); each completion's header
 *                          X-Standin-Penalty says whether it paid it (yes or no)
 *   --rank-devices PCI,... fork one worker (a rank, "standin-rankK") per PCI function, as a
 *                          tensor-parallel engine does: each maps its device's first BAR that
 *                          maps (/sys/bus/pci/devices/PCI/resourceN), binds itself to its CPUs
 *                          (--rank-cpus), then holds and writes --worker-mib MiB of its own
 *   --rank-cpus LIST;...   the ranks' CPU lists, ';'-separated, in their order (default
 *                          $NUMAPLAN_RANK_CPUS; none: they run where they were started)
 *   --pidfile FILE         write the main PID there once listening; removed at a clean exit
 *   -h, --help             this text
 * SECONDS may have a fraction (0.5); "start" is when the process started.
 *
 * HTTP: GET /health -> 200 {"status":"ok"}; POST /completion (llama.cpp) and POST
 * /v1/completions (OpenAI style) -> 200 with a small JSON completion; a known path with the wrong
 * method -> 405; anything else -> 404; a malformed request -> 400 (headers over 16 KiB -> 431,
 * a body over 1 MiB -> 413, Transfer-Encoding -> 501). Every answer is JSON, with
 * Content-Length and Connection: close. One request at a time, on the main thread.
 *
 * Once listening it prints one line on stderr:
 *   numaplan-standin: ready listen=ADDR:PORT pid=N model_bytes=N kv_mib=N huge_mib=N workers=N threads=N
 * then one line a request. SIGTERM or SIGINT: the workers are stopped and reaped, exit status 0.
 * Exit status 1: a runtime error (model file, memory, bind); 2: a bad command line.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROG "numaplan-standin"
#define HEAD_MAX (16 * 1024)   /* request line and headers */
#define BODY_MAX (1024 * 1024) /* bodies are read and dropped */
#define REQUEST_MS 5000        /* one client may hold the server this long */
#define LINGER_MS 1000         /* draining what a client still sends after our answer */
#define MAX_SECONDS 86400.0
#define MAX_COUNT 4096UL    /* --workers, --threads */
#define MAX_MIB (1UL << 20) /* --kv-mib, --worker-mib: 1 TiB */

struct options {
        const char *listen;
        const char *model;
        const char *pidfile;
        const char *rank_devices, *rank_cpus; /* --rank-devices, --rank-cpus */
        unsigned long kv_mib, huge_mib, workers, worker_mib, threads;
        double ready_after, listen_after, answer_after, remote_penalty;
        int fail_status; /* 0: completions succeed */
        long near_node;  /* -1: none given */
};

struct region {
        unsigned char *p;
        size_t len;
};

struct request {
        char *method;
        char *path;
        size_t content_length;
        bool has_length;
};

static const char usage_text[] =
        "Usage: " PROG " [OPTION]...\n"
        "A stand-in inference server for numaplan's end-to-end tests.\n"
        "\n"
        "  --listen ADDR:PORT     listen there (default 127.0.0.1:8080; [::1]:PORT for IPv6;\n"
        "                         port 0: the kernel picks, the ready line shows it)\n"
        "  --model FILE           mmap FILE, read it at startup and on each completion\n"
        "  --kv-mib N             hold N MiB of anonymous memory, written at startup and on each\n"
        "                         completion\n"
        "  --huge-mib N           hold N MiB of huge pages (MAP_HUGETLB)\n"
        "  --workers N            fork N idle worker processes that die with this one\n"
        "  --worker-mib M         each worker holds and writes M MiB of its own\n"
        "  --threads N            start N idle threads (named standin-idle)\n"
        "  --ready-after SECONDS  answer 503 on /health and completions until then\n"
        "  --listen-after SECONDS do not listen until then\n"
        "  --fail-warmup          answer completions with 500\n"
        "  --fail-status CODE     answer completions with CODE (400-599)\n"
        "  --answer-after SECONDS take SECONDS before answering each completion\n"
        "  --near-node NODE       its accelerator's node, for --remote-penalty\n"
        "  --remote-penalty SECONDS  take SECONDS more over each completion while most of\n"
        "                         its memory sits on another node than --near-node\n"
        "  --rank-devices PCI,... one worker per device, mapping its BAR, bound to its CPUs\n"
        "  --rank-cpus LIST;...   the ranks' CPUs (default $NUMAPLAN_RANK_CPUS)\n"
        "  --pidfile FILE         write the PID there once listening\n"
        "  -h, --help             show this help\n"
        "\n"
        "SECONDS count from the start of the process and may have a fraction.\n"
        "GET /health, POST /completion, POST /v1/completions. SIGTERM/SIGINT: clean exit.\n";

static volatile sig_atomic_t stop_signal;
static int64_t start_ms;
static size_t page_size;
static struct options opt = {.listen = "127.0.0.1:8080", .near_node = -1};
static struct sockaddr_storage listen_addr;
static socklen_t listen_addr_len;
static struct region model, kv, huge;
static pid_t *workers;
static unsigned long n_workers;
static volatile unsigned long sink; /* model reads land here so they are not optimised away */

static void stop_workers(void);

/* One write a line: the ranks say things while the parent says it is ready, and stderr, unbuffered,
 * would interleave their pieces ("ready" lost in the middle of another line). */
static __attribute__((format(printf, 1, 0))) void vsay(const char *fmt, va_list ap) {
        char line[1024];
        int n = snprintf(line, sizeof line, "%s: ", PROG);

        n += vsnprintf(line + n, sizeof line - (size_t) n - 1, fmt, ap);
        if (n > (int) sizeof line - 2)
                n = (int) sizeof line - 2;
        line[n++] = '\n';
        (void) !write(STDERR_FILENO, line, (size_t) n);
}

static __attribute__((format(printf, 1, 2))) void say(const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vsay(fmt, ap);
        va_end(ap);
}

static _Noreturn __attribute__((format(printf, 1, 2))) void usage_error(const char *fmt, ...) {
        va_list ap;

        fputs(PROG ": ", stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputs("\nTry '" PROG " --help'.\n", stderr);
        exit(2);
}

/* A runtime error: workers already forked must not outlive us, so stop them first. */
static _Noreturn __attribute__((format(printf, 1, 2))) void die(const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vsay(fmt, ap);
        va_end(ap);
        stop_workers();
        exit(1);
}

static int64_t now_ms(void) {
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- command line ---- */

static unsigned long parse_count(const char *name, const char *s, unsigned long max) {
        char *end;
        unsigned long v;

        errno = 0;
        v = strtoul(s, &end, 10);
        /* strtoul takes "-1" and " 1": only plain digits are a count */
        if (!isdigit((unsigned char) s[0]) || *end || errno || v > max)
                usage_error("--%s: '%s' is not a whole number from 0 to %lu", name, s, max);
        return v;
}

static double parse_seconds(const char *name, const char *s) {
        char *end;
        double v;

        errno = 0;
        v = strtod(s, &end);
        if (!isdigit((unsigned char) s[0]) || *end || errno || !(v >= 0 && v <= MAX_SECONDS))
                usage_error("--%s: '%s' is not a number of seconds from 0 to %.0f", name, s, MAX_SECONDS);
        return v;
}

/* ADDR:PORT with a numeric address; a name would need a resolver, and tests use addresses. */
static void parse_listen(const char *s) {
        char host[INET6_ADDRSTRLEN + 2];
        const char *port_s, *colon;
        size_t host_len;
        unsigned long port;
        struct sockaddr_in *in4 = (struct sockaddr_in *) &listen_addr;
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) &listen_addr;

        if (s[0] == '[') {
                const char *close = strchr(s, ']');

                if (!close || close[1] != ':')
                        usage_error("--listen: '%s' is not [IPV6]:PORT", s);
                host_len = (size_t) (close - s - 1);
                port_s = close + 2;
                s++;
        } else {
                colon = strrchr(s, ':');
                if (!colon)
                        usage_error("--listen: '%s' is not ADDR:PORT", s);
                host_len = (size_t) (colon - s);
                port_s = colon + 1;
        }
        if (host_len == 0 || host_len >= sizeof host)
                usage_error("--listen: no usable address in '%s'", s);
        memcpy(host, s, host_len);
        host[host_len] = '\0';
        if (strlen(port_s) > 5 || strspn(port_s, "0123456789") != strlen(port_s) || !*port_s ||
            (port = strtoul(port_s, NULL, 10)) > 65535)
                usage_error("--listen: '%s' is not a port number", port_s);

        memset(&listen_addr, 0, sizeof listen_addr);
        if (inet_pton(AF_INET, host, &in4->sin_addr) == 1) {
                in4->sin_family = AF_INET;
                in4->sin_port = htons((uint16_t) port);
                listen_addr_len = sizeof *in4;
        } else if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
                in6->sin6_family = AF_INET6;
                in6->sin6_port = htons((uint16_t) port);
                listen_addr_len = sizeof *in6;
        } else {
                usage_error("--listen: '%s' is not a numeric IPv4 or IPv6 address", host);
        }
}

enum {
        OPT_LISTEN = 256,
        OPT_MODEL,
        OPT_KV_MIB,
        OPT_WORKERS,
        OPT_WORKER_MIB,
        OPT_THREADS,
        OPT_READY_AFTER,
        OPT_LISTEN_AFTER,
        OPT_FAIL_WARMUP,
        OPT_FAIL_STATUS,
        OPT_PIDFILE,
        OPT_ANSWER_AFTER,
        OPT_HUGE_MIB,
        OPT_NEAR_NODE,
        OPT_REMOTE_PENALTY,
        OPT_RANK_DEVICES,
        OPT_RANK_CPUS,
};

static void parse_options(int argc, char **argv) {
        static const struct option longopts[] = {
                {"listen", required_argument, NULL, OPT_LISTEN},
                {"model", required_argument, NULL, OPT_MODEL},
                {"kv-mib", required_argument, NULL, OPT_KV_MIB},
                {"huge-mib", required_argument, NULL, OPT_HUGE_MIB},
                {"workers", required_argument, NULL, OPT_WORKERS},
                {"worker-mib", required_argument, NULL, OPT_WORKER_MIB},
                {"threads", required_argument, NULL, OPT_THREADS},
                {"ready-after", required_argument, NULL, OPT_READY_AFTER},
                {"listen-after", required_argument, NULL, OPT_LISTEN_AFTER},
                {"fail-warmup", no_argument, NULL, OPT_FAIL_WARMUP},
                {"fail-status", required_argument, NULL, OPT_FAIL_STATUS},
                {"pidfile", required_argument, NULL, OPT_PIDFILE},
                {"answer-after", required_argument, NULL, OPT_ANSWER_AFTER},
                {"near-node", required_argument, NULL, OPT_NEAR_NODE},
                {"remote-penalty", required_argument, NULL, OPT_REMOTE_PENALTY},
                {"rank-devices", required_argument, NULL, OPT_RANK_DEVICES},
                {"rank-cpus", required_argument, NULL, OPT_RANK_CPUS},
                {"help", no_argument, NULL, 'h'},
                {NULL, 0, NULL, 0},
        };
        int c;

        while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
                switch (c) {
                case OPT_LISTEN:
                        opt.listen = optarg;
                        break;
                case OPT_MODEL:
                        if (!*optarg)
                                usage_error("--model: empty file name");
                        opt.model = optarg;
                        break;
                case OPT_KV_MIB:
                        opt.kv_mib = parse_count("kv-mib", optarg, MAX_MIB);
                        break;
                case OPT_HUGE_MIB:
                        opt.huge_mib = parse_count("huge-mib", optarg, MAX_MIB);
                        break;
                case OPT_WORKERS:
                        opt.workers = parse_count("workers", optarg, MAX_COUNT);
                        break;
                case OPT_WORKER_MIB:
                        opt.worker_mib = parse_count("worker-mib", optarg, MAX_MIB);
                        break;
                case OPT_THREADS:
                        opt.threads = parse_count("threads", optarg, MAX_COUNT);
                        break;
                case OPT_READY_AFTER:
                        opt.ready_after = parse_seconds("ready-after", optarg);
                        break;
                case OPT_LISTEN_AFTER:
                        opt.listen_after = parse_seconds("listen-after", optarg);
                        break;
                case OPT_ANSWER_AFTER:
                        opt.answer_after = parse_seconds("answer-after", optarg);
                        break;
                case OPT_FAIL_WARMUP:
                        if (!opt.fail_status)
                                opt.fail_status = 500;
                        break;
                case OPT_FAIL_STATUS:
                        opt.fail_status = (int) parse_count("fail-status", optarg, 599);
                        if (opt.fail_status < 400)
                                usage_error("--fail-status: '%s' is not an error status (400-599)", optarg);
                        break;
                case OPT_NEAR_NODE:
                        opt.near_node = (long) parse_count("near-node", optarg, 1023);
                        break;
                case OPT_REMOTE_PENALTY:
                        opt.remote_penalty = parse_seconds("remote-penalty", optarg);
                        break;
                case OPT_RANK_DEVICES:
                        opt.rank_devices = optarg;
                        break;
                case OPT_RANK_CPUS:
                        opt.rank_cpus = optarg;
                        break;
                case OPT_PIDFILE:
                        if (!*optarg)
                                usage_error("--pidfile: empty file name");
                        opt.pidfile = optarg;
                        break;
                case 'h':
                        fputs(usage_text, stdout);
                        exit(0);
                default: /* getopt_long has said what is wrong */
                        fputs("Try '" PROG " --help'.\n", stderr);
                        exit(2);
                }
        }
        if (optind < argc)
                usage_error("unexpected argument '%s'", argv[optind]);
        if (opt.remote_penalty > 0 && opt.near_node < 0)
                usage_error("--remote-penalty needs --near-node: away from which node?");
        parse_listen(opt.listen);
}

/* ---- memory ---- */

/* One byte a page is enough to fault every page in (and keep it counted as used). */
static unsigned long read_pages(const struct region *r) {
        unsigned long sum = 0;

        for (size_t off = 0; off < r->len; off += page_size)
                sum += r->p[off];
        return sum;
}

/* Writing (not just reading) makes the kernel give each page a frame of its own. */
static void write_pages(struct region *r) {
        for (size_t off = 0; off < r->len; off += page_size)
                r->p[off]++;
}

static struct region alloc_anon(unsigned long mib, int flags, const char *what) {
        struct region r = {NULL, 0};

        if (mib == 0)
                return r;
        if (mib > SIZE_MAX >> 20)
                die("%s: %lu MiB does not fit in memory", what, mib);
        r.len = (size_t) mib << 20;
        r.p = mmap(NULL, r.len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);
        if (r.p == MAP_FAILED)
                die("%s: cannot map %lu MiB: %s", what, mib, strerror(errno));
        write_pages(&r);
        return r;
}

/* MAP_SHARED and read through the mapping, as llama.cpp does by default: the pages are page
 * cache, allocated (when not cached yet) where this process runs, and numa_maps lists them. */
static void load_model(const char *path) {
        struct stat st;
        int fd = open(path, O_RDONLY | O_CLOEXEC);

        if (fd < 0)
                die("cannot open model %s: %s", path, strerror(errno));
        if (fstat(fd, &st) < 0)
                die("cannot stat model %s: %s", path, strerror(errno));
        if (!S_ISREG(st.st_mode))
                die("model %s is not a regular file", path);
        if (st.st_size == 0)
                die("model %s is empty", path);
        if ((uintmax_t) st.st_size > SIZE_MAX)
                die("model %s is too large to map", path);
        model.len = (size_t) st.st_size;
        model.p = mmap(NULL, model.len, PROT_READ, MAP_SHARED, fd, 0);
        if (model.p == MAP_FAILED)
                die("cannot map model %s: %s", path, strerror(errno));
        close(fd); /* the mapping keeps the file */
        sink += read_pages(&model);
}

/* The node most of a region's pages sit on, of up to 64 spread over it; -1 when unknown (no
 * pages, no NUMA). move_pages(2) with no target nodes only says where each page is. */
static long region_node(const struct region *r) {
        void *pages[64];
        int status[64], count[64] = {0}, best = -1;
        size_t n_pages = r->len / page_size, n = n_pages < 64 ? n_pages : 64;

        for (size_t i = 0; i < n; i++)
                pages[i] = r->p + (i * n_pages / n) * page_size;
        if (n == 0 || syscall(SYS_move_pages, 0, (unsigned long) n, pages, NULL, status, 0) < 0)
                return -1;
        for (size_t i = 0; i < n; i++)
                if (status[i] >= 0 && status[i] < 64 && ++count[status[i]] > (best < 0 ? 0 : count[best]))
                        best = status[i];
        return best;
}

/* Where its memory is: the KV cache, else the model, else the huge pages. */
static long memory_node(void) {
        return region_node(kv.p ? &kv : model.p ? &model : &huge);
}

static void pause_for(double seconds) {
        struct timespec ts = {.tv_sec = (time_t) seconds,
                              .tv_nsec = (long) ((seconds - (double) (time_t) seconds) * 1e9)};
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !stop_signal)
                ;
}

/* What a completion "computes": it touches the weights and the KV cache again. */
static void use_memory(void) {
        sink += read_pages(&model);
        write_pages(&kv);
        write_pages(&huge);
}

/* ---- workers and threads ---- */

static _Noreturn void worker_main(pid_t parent) {
        struct region own;
        sigset_t none;

        n_workers = 0; /* the parent's list, not ours to stop */
        /* Die with the parent even when it is SIGKILLed and cannot stop us itself. */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent) /* it died before prctl took effect */
                _exit(0);
        prctl(PR_SET_NAME, "standin-worker");
        signal(SIGTERM, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        /* Only this worker's own pages stay in its numa_maps, not copies of the parent's. */
        if (model.p)
                munmap(model.p, model.len);
        if (kv.p)
                munmap(kv.p, kv.len);
        own = alloc_anon(opt.worker_mib, 0, "--worker-mib");
        (void) own; /* held for the worker's life, like the parent's */
        for (;;)
                pause();
}

static void start_workers(void) {
        pid_t parent = getpid();

        if (opt.workers == 0)
                return;
        workers = calloc(opt.workers, sizeof *workers);
        if (!workers)
                die("out of memory");
        fflush(NULL); /* nothing buffered gets written twice */
        for (unsigned long i = 0; i < opt.workers; i++) {
                pid_t pid = fork();

                if (pid < 0)
                        die("cannot fork worker %lu: %s", i + 1, strerror(errno));
                if (pid == 0)
                        worker_main(parent);
                workers[n_workers++] = pid;
        }
}

static void stop_workers(void) {
        for (unsigned long i = 0; i < n_workers; i++)
                kill(workers[i], SIGTERM);
        for (unsigned long i = 0; i < n_workers; i++)
                while (waitpid(workers[i], NULL, 0) < 0 && errno == EINTR)
                        ;
        n_workers = 0;
}

/* ---- ranks: one worker per device, as tensor-parallel engines run ---- */

/* The `k`-th ';'-separated item of `lists` into `set`; false when there is none or it does not
 * parse ("0-3,8"). */
static bool rank_cpu_list(const char *lists, unsigned long k, cpu_set_t *set) {
        const char *p = lists;
        for (unsigned long i = 0; p && i < k; i++)
                p = (p = strchr(p, ';')) ? p + 1 : NULL;
        if (!p || !*p || *p == ';')
                return false;
        CPU_ZERO(set);
        while (*p && *p != ';') {
                char *end;
                unsigned long lo = strtoul(p, &end, 10), hi = lo;
                if (end == p)
                        return false;
                if (*end == '-')
                        hi = strtoul(end + 1, &end, 10);
                for (unsigned long c = lo; c <= hi && c < CPU_SETSIZE; c++)
                        CPU_SET((int) c, set);
                p = *end == ',' ? end + 1 : end;
                if (*end != ',' && *end != ';' && *end)
                        return false;
        }
        return true;
}

/* The device's first BAR that maps, held for good: the mapping verify finds it by. */
static void map_device(const char *pci) {
        for (int n = 0; n < 6; n++) {
                char path[128];
                struct stat st;
                snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/resource%d", pci, n);
                int fd = open(path, O_RDONLY | O_CLOEXEC);
                if (fd < 0)
                        continue;
                size_t len = fstat(fd, &st) == 0 && st.st_size > 0 ? (size_t) st.st_size : 0;
                void *p = len ? mmap(NULL, len < (1u << 20) ? len : (1u << 20), PROT_READ, MAP_SHARED, fd, 0)
                              : MAP_FAILED;
                close(fd);
                if (p != MAP_FAILED)
                        return;
        }
        say("rank of %s: none of its BARs maps", pci);
}

static _Noreturn void rank_main(pid_t parent, unsigned long k, const char *pci) {
        char name[16];
        cpu_set_t cpus;
        sigset_t none;

        n_workers = 0; /* the parent's list, not ours to stop */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
                _exit(0);
        snprintf(name, sizeof name, "standin-rank%lu", k);
        prctl(PR_SET_NAME, name);
        signal(SIGTERM, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        if (model.p)
                munmap(model.p, model.len);
        if (kv.p)
                munmap(kv.p, kv.len);
        /* Bound first, so that what it writes next comes from its node (the memory policy takes
         * the node nearest the CPU that allocates). */
        if (opt.rank_cpus && rank_cpu_list(opt.rank_cpus, k, &cpus) && sched_setaffinity(0, sizeof cpus, &cpus) < 0)
                say("rank %lu: cannot bind to its CPUs: %s", k, strerror(errno));
        map_device(pci);
        (void) alloc_anon(opt.worker_mib, 0, "--worker-mib");
        for (;;)
                pause();
}

static void start_rank_workers(void) {
        pid_t parent = getpid();
        char pci[32];
        unsigned long k = 0;

        if (!opt.rank_devices)
                return;
        if (!opt.rank_cpus)
                opt.rank_cpus = getenv("NUMAPLAN_RANK_CPUS");
        fflush(NULL);
        for (const char *p = opt.rank_devices; *p; k++) {
                size_t len = strcspn(p, ",");
                snprintf(pci, sizeof pci, "%.*s", (int) (len < sizeof pci ? len : sizeof pci - 1), p);
                p += len + (p[len] == ',');
                pid_t *more = realloc(workers, (n_workers + 1) * sizeof *workers);
                if (!more)
                        die("out of memory");
                workers = more;
                pid_t pid = fork();
                if (pid < 0)
                        die("cannot fork rank %lu: %s", k, strerror(errno));
                if (pid == 0)
                        rank_main(parent, k, pci);
                workers[n_workers++] = pid;
        }
}

static void *idle_thread(void *arg) {
        (void) arg;
        for (;;)
                pause(); /* every signal is blocked here: it sleeps for good */
        return NULL;
}

static void start_threads(void) {
        sigset_t all, old;

        /* Threads inherit the mask: with all signals blocked, SIGTERM goes to the main thread. */
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        for (unsigned long i = 0; i < opt.threads; i++) {
                pthread_t t;
                int err = pthread_create(&t, NULL, idle_thread, NULL);

                if (err)
                        die("cannot start thread %lu: %s", i + 1, strerror(err));
                pthread_setname_np(t, "standin-idle");
                pthread_detach(t);
        }
        pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* ---- HTTP ---- */

static const char *reason(int status) {
        switch (status) {
        case 200:
                return "OK";
        case 400:
                return "Bad Request";
        case 404:
                return "Not Found";
        case 405:
                return "Method Not Allowed";
        case 408:
                return "Request Timeout";
        case 413:
                return "Content Too Large";
        case 431:
                return "Request Header Fields Too Large";
        case 500:
                return "Internal Server Error";
        case 501:
                return "Not Implemented";
        case 503:
                return "Service Unavailable";
        case 505:
                return "HTTP Version Not Supported";
        default:
                return status < 500 ? "Client Error" : "Server Error";
        }
}

/* The error "type" llama.cpp's server uses, so a client that reads it sees familiar values. */
static const char *error_type(int status) {
        switch (status) {
        case 404:
                return "not_found_error";
        case 501:
                return "not_supported_error";
        case 503:
                return "unavailable_error";
        default:
                return status < 500 ? "invalid_request_error" : "server_error";
        }
}

static void send_all(int fd, const char *p, size_t n) {
        while (n > 0) {
                ssize_t sent = send(fd, p, n, MSG_NOSIGNAL);

                if (sent < 0 && errno == EINTR)
                        continue;
                if (sent <= 0)
                        return; /* the client left or stalled: nothing more to do for it */
                p += sent;
                n -= (size_t) sent;
        }
}

static void respond(int fd, int status, const char *extra_header, const char *body) {
        char buf[2048];
        int n = snprintf(buf, sizeof buf,
                         "HTTP/1.1 %d %s\r\n"
                         "Content-Type: application/json\r\n"
                         "Content-Length: %zu\r\n"
                         "Connection: close\r\n"
                         "Server: " PROG "\r\n"
                         "%s"
                         "\r\n%s",
                         status, reason(status), strlen(body), extra_header, body);

        if (n > 0 && (size_t) n < sizeof buf)
                send_all(fd, buf, (size_t) n);
}

/* message: a fixed string of ours, with nothing JSON would need escaped */
static void respond_error_with(int fd, int status, const char *extra_header, const char *message) {
        char body[512];

        snprintf(body, sizeof body, "{\"error\":{\"code\":%d,\"message\":\"%s\",\"type\":\"%s\"}}", status, message,
                 error_type(status));
        respond(fd, status, extra_header, body);
}

static void respond_error(int fd, int status, const char *message) {
        respond_error_with(fd, status, "", message);
}

/* recv() that gives up at the deadline: the server is single-threaded and SIGTERM waits while a
 * request is handled, so one slow client must not hold it long. 0: EOF; -1: error or timeout. */
static ssize_t recv_until(int fd, void *buf, size_t n, int64_t deadline) {
        for (;;) {
                int64_t left = deadline - now_ms();
                struct pollfd p = {.fd = fd, .events = POLLIN};
                ssize_t got;
                int r;

                if (left <= 0) {
                        errno = ETIMEDOUT;
                        return -1;
                }
                r = poll(&p, 1, (int) left);
                if (r < 0 && errno != EINTR)
                        return -1;
                if (r <= 0)
                        continue;
                got = recv(fd, buf, n, 0);
                if (got < 0 && errno == EINTR)
                        continue;
                return got;
        }
}

/* Where the headers end (just past the blank line), or 0. Bare LF line ends are accepted too. */
static size_t head_end(const char *b, size_t len, size_t from) {
        for (size_t i = from; i < len; i++) {
                if (b[i] != '\n')
                        continue;
                if (i + 1 < len && b[i + 1] == '\n')
                        return i + 2;
                if (i + 2 < len && b[i + 1] == '\r' && b[i + 2] == '\n')
                        return i + 3;
        }
        return 0;
}

/* Reads the request line and headers into buf. 0: *head is their length and *len what was read
 * (the start of the body may be in it); -1: the client sent nothing; else an HTTP status. */
static int read_head(int fd, char *buf, size_t *len, size_t *head, int64_t deadline, const char **why) {
        while (*len < HEAD_MAX) {
                ssize_t n = recv_until(fd, buf + *len, HEAD_MAX - *len, deadline);
                size_t from = *len >= 2 ? *len - 2 : 0; /* a blank line may straddle two reads */

                if (n <= 0) {
                        if (*len == 0)
                                return -1; /* a port probe, or a client that gave up */
                        *why = n == 0 ? "request ends before its headers do" : "request timed out";
                        return n == 0 ? 400 : 408;
                }
                *len += (size_t) n;
                *head = head_end(buf, *len, from);
                if (*head)
                        return 0;
        }
        *why = "request headers over 16 KiB";
        return 431;
}

/* tchar from RFC 9110: what a method or header name may be made of */
static bool is_token(const char *s) {
        if (!*s)
                return false;
        for (; *s; s++)
                if (!isalnum((unsigned char) *s) && !strchr("!#$%&'*+-.^_`|~", *s))
                        return false;
        return true;
}

/* Control characters have no place in a target or a header value (tab aside, in values). */
static bool has_ctl(const char *s, bool tab_ok) {
        for (; *s; s++)
                if (((unsigned char) *s < 0x20 && !(tab_ok && *s == '\t')) || *s == 0x7f)
                        return true;
        return false;
}

/* Ends the line at line with a NUL (dropping a CR before the LF); returns the next line. */
static char *cut_line(char *line) {
        char *nl = strchr(line, '\n'); /* there is one: the head ends with a blank line */

        *nl = '\0';
        if (nl > line && nl[-1] == '\r')
                nl[-1] = '\0';
        return nl + 1;
}

static int parse_request_line(char *line, struct request *rq, const char **why) {
        char *target, *version, *query;

        *why = "malformed request line";
        target = strchr(line, ' ');
        if (!target)
                return 400;
        *target++ = '\0';
        version = strchr(target, ' ');
        if (!version)
                return 400;
        *version++ = '\0';
        if (!is_token(line) || target[0] != '/' || has_ctl(target, false))
                return 400;
        if (strncmp(version, "HTTP/", 5) || !isdigit((unsigned char) version[5]) || version[6] != '.' ||
            !isdigit((unsigned char) version[7]) || version[8])
                return 400;
        if (version[5] != '1') {
                *why = "only HTTP/1.x is spoken here";
                return 505;
        }
        query = strchr(target, '?'); /* routing looks at the path alone */
        if (query)
                *query = '\0';
        rq->method = line;
        rq->path = target;
        return 0;
}

static int parse_content_length(const char *value, struct request *rq, const char **why) {
        size_t digits = strlen(value), n;

        if (!digits || strspn(value, "0123456789") != digits) {
                *why = "malformed Content-Length";
                return 400;
        }
        if (digits > 9 || (n = strtoul(value, NULL, 10)) > BODY_MAX) {
                *why = "request body over 1 MiB";
                return 413;
        }
        if (rq->has_length && n != rq->content_length) {
                *why = "conflicting Content-Length headers";
                return 400;
        }
        rq->has_length = true;
        rq->content_length = n;
        return 0;
}

static int parse_header(char *line, struct request *rq, const char **why) {
        char *colon, *value, *end;

        *why = "malformed header";
        if (*line == ' ' || *line == '\t') /* obsolete line folding: RFC 9112 lets us refuse it */
                return 400;
        colon = strchr(line, ':');
        if (!colon)
                return 400;
        *colon = '\0';
        if (!is_token(line))
                return 400;
        value = colon + 1;
        value += strspn(value, " \t");
        end = value + strlen(value);
        while (end > value && (end[-1] == ' ' || end[-1] == '\t'))
                *--end = '\0';
        if (has_ctl(value, true))
                return 400;
        if (!strcasecmp(line, "Content-Length"))
                return parse_content_length(value, rq, why);
        if (!strcasecmp(line, "Transfer-Encoding")) {
                *why = "Transfer-Encoding is not supported: send Content-Length";
                return 501;
        }
        return 0;
}

static int parse_head(char *buf, size_t head, struct request *rq, const char **why) {
        char *line, *next;
        int status;

        if (memchr(buf, '\0', head)) {
                *why = "NUL byte in request";
                return 400;
        }
        next = cut_line(buf);
        status = parse_request_line(buf, rq, why);
        for (line = next; status == 0 && line < buf + head; line = next) {
                next = cut_line(line);
                if (!*line)
                        break; /* the blank line */
                status = parse_header(line, rq, why);
        }
        return status;
}

/* Reads and drops the body; have: how much of it came with the headers. */
static int read_body(int fd, size_t length, size_t have, int64_t deadline, const char **why) {
        char junk[4096];

        while (have < length) {
                size_t want = length - have < sizeof junk ? length - have : sizeof junk;
                ssize_t n = recv_until(fd, junk, want, deadline);

                if (n <= 0) {
                        *why = n == 0 ? "request ends before its body does" : "request timed out";
                        return n == 0 ? 400 : 408;
                }
                have += (size_t) n;
        }
        return 0;
}

static int route(int fd, const struct request *rq) {
        bool health = !strcmp(rq->path, "/health");
        bool llama = !strcmp(rq->path, "/completion");
        bool openai = !strcmp(rq->path, "/v1/completions");
        const char *method = health ? "GET" : "POST";

        if (!health && !llama && !openai) {
                respond_error(fd, 404, "no such endpoint");
                return 404;
        }
        if (strcmp(rq->method, method)) {
                respond_error_with(fd, 405, health ? "Allow: GET\r\n" : "Allow: POST\r\n", "method not allowed");
                return 405;
        }
        if (now_ms() - start_ms < (int64_t) (opt.ready_after * 1000)) {
                respond_error(fd, 503, "Loading model");
                return 503;
        }
        if (health) {
                respond(fd, 200, "", "{\"status\":\"ok\"}");
                return 200;
        }
        use_memory();
        if (opt.answer_after > 0)
                pause_for(opt.answer_after);
        /* Said in a header, so that a test need not judge it by the clock. */
        const char *penalty = "X-Standin-Penalty: no\r\n";
        if (opt.remote_penalty > 0) {
                long node = memory_node();
                if (node >= 0 && node != opt.near_node) {
                        pause_for(opt.remote_penalty);
                        penalty = "X-Standin-Penalty: yes\r\n";
                }
        }
        if (opt.fail_status) {
                respond_error(fd, opt.fail_status, "warm-up failure requested with --fail-warmup");
                return opt.fail_status;
        }
        if (openai)
                respond(fd, 200, penalty,
                        "{\"object\":\"text_completion\",\"model\":\"standin\",\"choices\":[{\"index\":0,"
                        "\"text\":\" standing in\",\"finish_reason\":\"length\"}],"
                        "\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":16,\"total_tokens\":20}}");
        else
                respond(fd, 200, penalty,
                        "{\"content\":\" standing in\",\"tokens\":16,\"tokens_predicted\":16,\"stop\":true}");
        return 200;
}

/* Answer sent: stop writing, then read what the client still sends until it closes, so that
 * closing with unread data does not turn into a reset that could destroy the answer. */
static void linger_close(int fd) {
        char junk[4096];
        int64_t deadline = now_ms() + LINGER_MS;

        shutdown(fd, SHUT_WR);
        while (recv_until(fd, junk, sizeof junk, deadline) > 0)
                ;
        close(fd);
}

static void handle_client(int fd) {
        static char buf[HEAD_MAX];
        int64_t deadline = now_ms() + REQUEST_MS;
        struct request rq = {0};
        const char *why = "";
        size_t len = 0, head = 0;
        int status = read_head(fd, buf, &len, &head, deadline, &why);

        if (status == 0)
                status = parse_head(buf, head, &rq, &why);
        if (status == 0)
                status = read_body(fd, rq.content_length, len - head, deadline, &why);
        if (status == 0) {
                status = route(fd, &rq);
                say("%s %s -> %d", rq.method, rq.path, status);
        } else if (status > 0) {
                respond_error(fd, status, why);
                say("bad request -> %d (%s)", status, why);
        }
        linger_close(fd);
}

/* ---- main ---- */

/* Sleeps until at_ms (monotonic) with the stop signals let through; false: one came. */
static bool sleep_until(int64_t at_ms, const sigset_t *wait_mask) {
        while (!stop_signal) {
                int64_t left = at_ms - now_ms();
                struct timespec ts;

                if (left <= 0)
                        return true;
                ts.tv_sec = (time_t) (left / 1000);
                ts.tv_nsec = (long) (left % 1000) * 1000000;
                ppoll(NULL, 0, &ts, wait_mask);
        }
        return false;
}

static int open_listener(char *shown, size_t shown_size) {
        struct sockaddr_storage ss;
        socklen_t len = sizeof ss;
        char host[INET6_ADDRSTRLEN];
        int one = 1;
        int fd = socket(listen_addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

        if (fd < 0)
                die("socket: %s", strerror(errno));
        /* a restarted server must not wait for the last one's connections in TIME_WAIT */
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, (struct sockaddr *) &listen_addr, listen_addr_len) < 0)
                die("cannot listen on %s: %s", opt.listen, strerror(errno));
        if (listen(fd, 64) < 0)
                die("cannot listen on %s: %s", opt.listen, strerror(errno));
        /* with port 0 only getsockname knows the port */
        if (getsockname(fd, (struct sockaddr *) &ss, &len) < 0)
                die("getsockname: %s", strerror(errno));
        if (ss.ss_family == AF_INET6) {
                struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) &ss;

                inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof host);
                snprintf(shown, shown_size, "[%s]:%u", host, ntohs(in6->sin6_port));
        } else {
                struct sockaddr_in *in4 = (struct sockaddr_in *) &ss;

                inet_ntop(AF_INET, &in4->sin_addr, host, sizeof host);
                snprintf(shown, shown_size, "%s:%u", host, ntohs(in4->sin_port));
        }
        return fd;
}

/* Written aside and renamed: whoever polls for the file never reads it half written. */
static void write_pidfile(void) {
        char tmp[PATH_MAX];
        FILE *f;

        if (!opt.pidfile)
                return;
        if (snprintf(tmp, sizeof tmp, "%s.tmp", opt.pidfile) >= (int) sizeof tmp)
                die("--pidfile: name too long");
        f = fopen(tmp, "we");
        if (!f)
                die("cannot write %s: %s", tmp, strerror(errno));
        fprintf(f, "%ld\n", (long) getpid());
        if (fclose(f) != 0 || rename(tmp, opt.pidfile) < 0)
                die("cannot write %s: %s", opt.pidfile, strerror(errno));
}

static void on_stop(int sig) {
        stop_signal = sig;
}

int main(int argc, char **argv) {
        struct sigaction sa;
        sigset_t stops, wait_mask;
        char shown[INET6_ADDRSTRLEN + 16];
        int lfd;

        start_ms = now_ms();
        page_size = (size_t) sysconf(_SC_PAGESIZE);
        parse_options(argc, argv);

        /* A client that leaves early must not kill us through a write. */
        signal(SIGPIPE, SIG_IGN);
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_stop;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        /* The stop signals stay blocked but in ppoll(), which lets them in atomically: checking a
	 * flag and then blocking in accept() could miss a signal that comes in between. */
        sigemptyset(&stops);
        sigaddset(&stops, SIGTERM);
        sigaddset(&stops, SIGINT);
        sigprocmask(SIG_BLOCK, &stops, &wait_mask);
        sigdelset(&wait_mask, SIGTERM);
        sigdelset(&wait_mask, SIGINT);

        if (opt.model)
                load_model(opt.model);
        kv = alloc_anon(opt.kv_mib, 0, "--kv-mib");
        /* Huge pages come from the pool of the node the memory policy picks, never by fault-time
	 * fallback: the pool must be there before the server starts. */
        huge = alloc_anon(opt.huge_mib, MAP_HUGETLB, "--huge-mib");
        start_workers();
        start_rank_workers();
        start_threads();

        if (!sleep_until(start_ms + (int64_t) (opt.listen_after * 1000), &wait_mask))
                goto out;
        lfd = open_listener(shown, sizeof shown);
        write_pidfile();
        say("ready listen=%s pid=%ld model_bytes=%zu kv_mib=%lu huge_mib=%lu workers=%lu threads=%lu", shown,
            (long) getpid(), model.len, opt.kv_mib, opt.huge_mib, opt.workers, opt.threads);

        while (!stop_signal) {
                struct pollfd p = {.fd = lfd, .events = POLLIN};
                int c;

                if (ppoll(&p, 1, NULL, &wait_mask) < 0)
                        continue; /* EINTR: the loop condition sees why */
                c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
                if (c >= 0) {
                        handle_client(c);
                } else if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                        /* the connection stays queued: do not spin on it */
                        say("accept: %s", strerror(errno));
                        sleep_until(now_ms() + 100, &wait_mask);
                }
        }
        close(lfd);
        if (opt.pidfile)
                unlink(opt.pidfile);
out:
        say("stopping on signal %d", (int) stop_signal);
        stop_workers();
        free(workers);
        return 0;
}
