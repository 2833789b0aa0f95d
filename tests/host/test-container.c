/* SPDX-License-Identifier: MIT */
/* What verify takes from a container engine: every field of its answer checked for type and
 * range, and the container's processes only from the cgroup the engine names for its ID. A fake
 * engine answers on a unix socket under a replayed root, as docker's API does on /run/docker.sock. */
#include <errno.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "basic/log.h"
#include "basic/util.h"
#include "core/numa-maps.h"
#include "core/observed.h"
#include "core/planner.h"
#include "core/verify-checks.h"
#include "host/container.h"
#include "host/root.h"
#include "tap.h"
#include "tmproot.h"

#define ID "8f2c1d0a4b3e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8"
#define HOSTCONFIG "\"HostConfig\":{\"CpusetCpus\":\"2-3\",\"CpusetMems\":\"1\"}"

static void parse_fails(const char *json, const char *why, const char *what) {
        struct container_facts cf = {0};
        int r = container_parse_inspect(json, &cf);
        if (!ok(r == -EBADMSG && cf.why && strstr(cf.why, why), "%s: refused, saying so", what))
                printf("#   r=%d why='%s'\n", r, strempty(cf.why));
        container_facts_done(&cf);
}

static void fields(void) {
        struct container_facts cf = {0};
        ok(container_parse_inspect("{\"Id\":\"" ID "\",\"State\":{\"Running\":true,\"Pid\":5000}," HOSTCONFIG "}",
                                   &cf) == 0 &&
                   cf.pid == 5000 && cf.running,
           "a well-formed answer is taken");
        container_facts_done(&cf);
        parse_fails("{\"Id\":\"" ID "\",\"State\":{\"Running\":true,\"Pid\":\"5000\"}," HOSTCONFIG "}",
                    "State.Pid is a string, not a number", "Pid as a string");
        parse_fails("{\"Id\":\"" ID "\",\"State\":{\"Running\":true,\"Pid\":4294972296}," HOSTCONFIG "}",
                    "State.Pid 4294972296 is not the PID", "a Pid that wraps to 5000 in 32 bits");
        parse_fails("{\"Id\":\"" ID "\",\"State\":{\"Running\":true,\"Pid\":-5}," HOSTCONFIG "}", "State.Pid -5 is not",
                    "a negative Pid");
        parse_fails("{\"Id\":\"" ID "\",\"State\":{\"Running\":true,\"Pid\":5000.5}," HOSTCONFIG "}",
                    "State.Pid is a fraction", "a fractional Pid");
        parse_fails("{\"Id\":\"" ID "\",\"State\":{\"Running\":true,\"Pid\":1}," HOSTCONFIG "}",
                    "State.Pid is 1, this host's init", "Pid 1 has its own message");
        parse_fails("{\"Id\":\"" ID "\",\"State\":{\"Running\":true,\"Pid\":0}," HOSTCONFIG "}",
                    "State.Pid 0 is not the PID of a running process", "a running container with Pid 0");
        parse_fails("{\"Id\":\"" ID "\",\"State\":{\"Running\":\"yes\",\"Pid\":5000}}", "State.Running is a string",
                    "Running as a string");
        parse_fails("{\"Id\":\"" ID "\",\"State\":{\"Pid\":5000}}", "no State.Running", "no Running");
        parse_fails("{\"Id\":\"" ID "\",\"State\":[]}", "State is an array", "State as an array");
        parse_fails("{\"Id\":\"../../etc\",\"State\":{\"Running\":true,\"Pid\":5000}}", "is not a container ID",
                    "an Id that is no container ID (it becomes part of a cgroup path)");
        parse_fails("{\"Id\":42,\"State\":{\"Running\":true,\"Pid\":5000}}", "Id is a number, not a string",
                    "a numeric Id");
        parse_fails("{\"Id\":\"" ID "\",\"State\":{\"Running\":true,\"Pid\":5000},\"HostConfig\":{\"CpusetCpus\":23}}",
                    "HostConfig.CpusetCpus is a number", "a numeric CpusetCpus");
        parse_fails("{\"Id\":\"" ID
                    "\",\"State\":{\"Running\":true,\"Pid\":5000},\"HostConfig\":{\"CpusetMems\":\"one\"}}",
                    "HostConfig.CpusetMems 'one' is not a list of nodes", "a CpusetMems that is no list");
        parse_fails("{\"Id\":\"" ID "\",\"State\":{\"Running\":true,\"Pid\":5000},\"HostConfig\":\"x\"}",
                    "HostConfig is a string", "HostConfig as a string");
        parse_fails("\"" ID "\"", "not a JSON object", "an answer that is no object");
}

static void check_scope(const char *engine, const char *cgroup, const char *want, const char *what) {
        _cleanup_free_ char *got = NULL;
        int r = container_scope(engine, ID, cgroup, &got);
        if (want)
                is_str(r == 0 ? got : NULL, want, "%s", what);
        else
                ok(r == -ESRCH, "%s: not the container's", what);
}

static void scopes(void) {
        check_scope("docker", "/system.slice/docker-" ID ".scope", "/system.slice/docker-" ID ".scope",
                    "docker's systemd scope");
        check_scope("docker", "/system.slice/docker-" ID ".scope/init.scope", "/system.slice/docker-" ID ".scope",
                    "a cgroup inside docker's scope: the scope");
        check_scope("docker", "/docker/" ID, "/docker/" ID, "docker's cgroupfs driver");
        check_scope("podman", "/machine.slice/libpod-" ID ".scope/container", "/machine.slice/libpod-" ID ".scope",
                    "podman's scope");
        check_scope("podman", "/system.slice/llama.service/libpod-payload-" ID,
                    "/system.slice/llama.service/libpod-payload-" ID, "podman --cgroups=split below the unit");
        check_scope("docker", "/system.slice/postgres.service", NULL, "postgres.service");
        check_scope("docker", "/system.slice/docker-" ID ".scope-x", NULL, "a name that only begins alike");
        check_scope("docker", "/system.slice/libpod-" ID ".scope", NULL, "podman's scope for docker's container");
        check_scope("docker", "/x/" ID, NULL, "the bare ID outside docker/");
}

/* A fake engine: answers every request on `socket` with `body`, until killed. */
static pid_t serve(const char *socket_path, const char *body) {
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", socket_path);
        if (fd < 0 || bind(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0 || listen(fd, 4) < 0)
                abort();
        pid_t pid = fork();
        if (pid != 0) {
                close(fd);
                return pid;
        }
        for (;;) {
                int c = accept(fd, NULL, NULL);
                char buf[4096];
                size_t have = 0;
                if (c < 0)
                        _exit(1);
                while (have < sizeof(buf) - 1) {
                        ssize_t n = read(c, buf + have, sizeof(buf) - 1 - have);
                        if (n <= 0)
                                break;
                        have += (size_t) n;
                        buf[have] = 0;
                        if (strstr(buf, "\r\n\r\n"))
                                break;
                }
                char *reply = xasprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n"
                                        "Connection: close\r\n\r\n%s",
                                        strlen(body), body);
                (void) !write(c, reply, strlen(reply));
                free(reply);
                close(c);
        }
}

static void ask(const char *d, struct root *root, const char *body, struct container_facts *cf) {
        _cleanup_free_ char *sock = xasprintf("%s/run/docker.sock", d);
        unlink(sock);
        pid_t server = serve(sock, body);
        *cf = (struct container_facts){.name = "boxed"};
        (void) container_inspect(root, "/sys/fs/cgroup", cf);
        kill(server, SIGKILL);
        waitpid(server, NULL, 0);
}

static void engine(void) {
        _cleanup_tmpdir_ char *d = make_tmpdir();
        _cleanup_root_ struct root *root = NULL;
        struct container_facts cf;

        write_file(d, "proc/5000/cgroup", "0::/system.slice/postgres.service\n");
        write_file(d, "proc/5000/comm", "postgres\n");
        write_file(d, "proc/6000/cgroup", "0::/system.slice/docker-" ID ".scope\n");
        write_file(d, "sys/fs/cgroup/system.slice/docker-" ID ".scope/cpuset.cpus.effective", "2-3\n");
        write_file(d, "sys/fs/cgroup/system.slice/docker-" ID ".scope/cpuset.mems.effective", "1\n");
        write_file(d, "run/.keep", "");
        if (!ok(root_open(d, 0, &root) == 0, "a replayed root with a docker socket"))
                return;

        ask(d, root, "{\"Id\":\"" ID "\",\"State\":{\"Running\":true,\"Pid\":5000}," HOSTCONFIG "}", &cf);
        ok(cf.error < 0 && cf.why &&
                   strstr(cf.why, "docker names PID 5000 (postgres) as container boxed's, but it runs in "
                                  "/system.slice/postgres.service") &&
                   !cf.cgroup,
           "a PID in postgres.service: refused, its cgroup not taken");
        printf("# %s\n", strempty(cf.why));
        container_facts_done(&cf);

        ask(d, root, "{\"Id\":\"" ID "\",\"State\":{\"Running\":true,\"Pid\":\"5000\"}," HOSTCONFIG "}", &cf);
        ok(cf.error == -EBADMSG && cf.why &&
                   strstr(cf.why, "docker's answer about boxed does not hold up: State.Pid is a string"),
           "a string Pid over the socket: refused, naming the field");
        container_facts_done(&cf);

        ask(d, root, "{\"Id\":\"" ID "\",\"State\":{\"Running\":true,\"Pid\":6000}," HOSTCONFIG "}", &cf);
        ok(cf.error == 0 && streq_ptr(cf.cgroup, "/system.slice/docker-" ID ".scope") && cf.have_cpuset &&
                   cpuset_isset(&cf.mems, 1),
           "a PID in the container's own scope: its cgroup and cpuset taken");
        container_facts_done(&cf);

        ask(d, root, "{\"Id\":\"" ID "\",\"State\":{\"Running\":true,\"Pid\":7000}," HOSTCONFIG "}", &cf);
        ok(cf.error < 0 && cf.why && strstr(cf.why, "no such process runs here"),
           "a PID that does not run here: refused");
        container_facts_done(&cf);
}

int main(void) {
        log_set_max_level(LOG_ERR - 1);
        signal(SIGPIPE, SIG_IGN);
        fields();
        scopes();
        engine();
        return done_testing();
}
