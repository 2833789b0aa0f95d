/* SPDX-License-Identifier: MIT */
/* A container as its engine describes it: GET /containers/NAME/json of Docker's Engine API, over
 * its unix socket. podman answers the same request on its own socket (podman.socket), so one
 * client serves both. */

#include <inttypes.h>
#include <stdarg.h>
#include <sys/stat.h>

#include "basic/escape.h"
#include "basic/json-util.h"
#include "basic/util.h"
#include "host/cgroup.h"
#include "host/container.h"
#include "host/curl-dl.h"
#include "host/root.h"

#define INSPECT_MAX (4U << 20)
#define INSPECT_TIMEOUT_MS 5000L

/* Where each engine listens, below the root; the first socket that exists is asked. */
static const struct {
        const char *engine, *socket;
} engines[] = {
        {"docker", "run/docker.sock"},
        {"podman", "run/podman/podman.sock"},
};

/* What the engine says about a container is taken as far as it can be checked: every field
 * numaplan uses has its type and range checked, and a field that fails says which. */

/* The largest PID Linux hands out (PID_MAX_LIMIT). */
#define PID_MAX 4194304
#define CPUSET_TEXT_MAX 4096

static _printf_(2, 3) int bad(struct container_facts *cf, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        free(cf->why);
        cf->why = xvasprintf(fmt, ap);
        va_end(ap);
        return -EBADMSG;
}

static const char *type_name(json_type t) {
        switch (t) {
        case json_type_null:
                return "null";
        case json_type_boolean:
                return "true or false";
        case json_type_double:
                return "a fraction";
        case json_type_int:
                return "a number";
        case json_type_object:
                return "an object";
        case json_type_array:
                return "an array";
        case json_type_string:
                return "a string";
        }
        return "something else";
}

/* o[key] of type `type`: 1 found, 0 absent, -EBADMSG (said) of another type. */
static int field(struct container_facts *cf, json_object *o, const char *where, const char *key, json_type type,
                 json_object **ret) {
        if (!json_object_object_get_ex(o, key, ret))
                return 0;
        if (!json_object_is_type(*ret, type))
                return bad(cf, "%s%s is %s, not %s", where, key, type_name(json_object_get_type(*ret)),
                           type_name(type));
        return 1;
}

static bool is_container_id(const char *s) {
        size_t n = strspn(s, "0123456789abcdef");
        return n == CONTAINER_ID_LEN && !s[n];
}

static int cpuset_flag(struct container_facts *cf, json_object *host, const char *key, char **ret) {
        json_object *v;
        struct cpuset set;
        int r = host ? field(cf, host, "HostConfig.", key, json_type_string, &v) : 0;
        if (r < 0)
                return r;
        /* Unset flags are "" (docker) or absent (podman without them). */
        const char *text = r ? json_object_get_string(v) : "";
        if (strlen(text) > CPUSET_TEXT_MAX || cpuset_parse_list(text, &set) < 0) {
                _cleanup_free_ char *shown = name_escape(text);
                return bad(cf, "HostConfig.%s '%.64s' is not a list of %s", key, shown,
                           streq(key, "CpusetCpus") ? "CPUs" : "nodes");
        }
        *ret = xstrdup(text);
        return 0;
}

int container_parse_inspect(const char *text, struct container_facts *cf) {
        _cleanup_json_ json_object *o = json_tokener_parse(text);
        json_object *state = NULL, *host = NULL, *v;
        int r;

        if (!o || !json_object_is_type(o, json_type_object))
                return bad(cf, "the answer is not a JSON object");
        if ((r = field(cf, o, "", "Id", json_type_string, &v)) <= 0)
                return r < 0 ? r : bad(cf, "the answer has no Id: not a container's description");
        if (!is_container_id(json_object_get_string(v))) {
                _cleanup_free_ char *shown = name_escape(json_object_get_string(v));
                return bad(cf, "Id '%.80s' is not a container ID (%d hex digits)", shown, CONTAINER_ID_LEN);
        }
        cf->id = xstrdup(json_object_get_string(v));
        if ((r = field(cf, o, "", "State", json_type_object, &state)) <= 0)
                return r < 0 ? r : bad(cf, "the answer has no State");
        if ((r = field(cf, state, "State.", "Running", json_type_boolean, &v)) <= 0)
                return r < 0 ? r : bad(cf, "the answer has no State.Running");
        cf->running = json_object_get_boolean(v);
        if ((r = field(cf, state, "State.", "Pid", json_type_int, &v)) <= 0)
                return r < 0 ? r : bad(cf, "the answer has no State.Pid");
        int64_t pid = json_object_get_int64(v);
        /* json-c clamps what int64 cannot hold: a number that large is not a PID either. */
        if (pid < 0 || pid > PID_MAX || (pid == 0 && cf->running))
                return bad(cf, "State.Pid %" PRId64 " is not the PID of a running process (1 to %d)", pid, PID_MAX);
        if (pid == 1 && cf->running)
                return bad(cf, "State.Pid is 1, this host's init, not a container's process (does the engine run in "
                               "another PID namespace?)");
        cf->pid = (pid_t) pid;
        if ((r = field(cf, o, "", "HostConfig", json_type_object, &host)) < 0)
                return r;
        if ((r = cpuset_flag(cf, host, "CpusetCpus", &cf->cpuset_cpus)) < 0 ||
            (r = cpuset_flag(cf, host, "CpusetMems", &cf->cpuset_mems)) < 0)
                return r;
        return 0;
}

/* The cgroup the engine names for container `id`: docker's system.slice/docker-ID.scope (or, with
 * its cgroupfs driver, docker/ID), podman's libpod-ID.scope, libpod-ID, or, with
 * --cgroups=split, libpod-payload-ID below the unit's cgroup. */
int container_scope(const char *engine, const char *id, const char *cgroup, char **ret) {
        bool docker = streq(engine, "docker");
        if (!is_container_id(id) || cgroup[0] != '/')
                return -EINVAL;
        _cleanup_free_ char *scope = xasprintf("%s-%s.scope", docker ? "docker" : "libpod", id),
                            *payload = xasprintf("libpod-payload-%s", id), *plain = xasprintf("libpod-%s", id);
        const char *prev = "";
        size_t prev_len = 0;

        for (const char *p = cgroup + 1; *p;) {
                size_t len = strcspn(p, "/");
                bool match = (strlen(scope) == len && strncmp(p, scope, len) == 0) ||
                             (!docker && strlen(payload) == len && strncmp(p, payload, len) == 0) ||
                             (!docker && strlen(plain) == len && strncmp(p, plain, len) == 0) ||
                             (docker && strlen(id) == len && strncmp(p, id, len) == 0 && prev_len == 6 &&
                              strncmp(prev, "docker", 6) == 0);
                if (match) {
                        *ret = xstrndup(cgroup, (size_t) (p + len - cgroup));
                        return 0;
                }
                prev = p;
                prev_len = len;
                p += len;
                p += *p == '/';
        }
        return -ESRCH;
}

struct body {
        struct strbuf b;
        bool too_big;
};

static size_t collect(char *p, size_t size, size_t n, void *user) {
        struct body *body = user;
        if (body->b.len + size * n > INSPECT_MAX) {
                body->too_big = true;
                return 0;
        }
        strbuf_printf(&body->b, "%.*s", (int) (size * n), p);
        return size * n;
}

/* GET PATH on the engine's socket: the HTTP status, the body in *ret. */
static int engine_get(const char *socket, const char *path, long *status, char **ret, char **why) {
        int r = dlopen_libcurl();
        if (r < 0) {
                *why = xstrdup("libcurl is not available");
                return r;
        }
        sym_curl_global_init(CURL_GLOBAL_DEFAULT);
        CURL *c = sym_curl_easy_init();
        if (!c)
                return -ENOMEM;
        _cleanup_free_ char *url = xasprintf("http://localhost%s", path);
        struct body body = {0};
        sym_curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, socket);
        sym_curl_easy_setopt(c, CURLOPT_URL, url);
        sym_curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
        sym_curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
        sym_curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
        /* podman.socket starts its service on the first request: give it a few seconds. */
        sym_curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, INSPECT_TIMEOUT_MS);
        sym_curl_easy_setopt(c, CURLOPT_USERAGENT, "numaplan-verify");
        CURLcode e = sym_curl_easy_perform(c);
        *status = 0;
        if (e == CURLE_OK)
                sym_curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
        else
                *why = body.too_big ? xasprintf("%s: the answer is over %u MiB", socket, INSPECT_MAX >> 20)
                                    : xasprintf("%s: %s", socket, sym_curl_easy_strerror(e));
        sym_curl_easy_cleanup(c);
        if (e != CURLE_OK) {
                strbuf_done(&body.b);
                return -EIO;
        }
        *ret = body.b.s ? strbuf_steal(&body.b) : xstrdup("");
        return 0;
}

/* The container's processes are taken from its own cgroup only: the process the engine names
 * must run in the cgroup the engine names for that container's ID, else the answer is someone
 * else's (a PID reused, an engine that lies) and nothing of it is taken. */
static int own_cgroup(struct root *root, const char *mount, struct container_facts *cf) {
        _cleanup_free_ char *cg = NULL, *comm = NULL, *comm_path = xasprintf("proc/%d/comm", (int) cf->pid);
        int r = cgroup_of_process(root, cf->pid, &cg);
        if (r < 0) {
                cf->error = r;
                cf->why = xasprintf("%s names PID %d as container %s's, and no such process runs here", cf->engine,
                                    (int) cf->pid, cf->name);
                return r;
        }
        r = container_scope(cf->engine, cf->id, cg, &cf->cgroup);
        if (r < 0) {
                (void) root_read_string(root, comm_path, &comm);
                _cleanup_free_ char *shown = name_escape(cg), *c = name_escape(comm ? comm : "?");
                cf->error = -EBADMSG;
                cf->why = xasprintf(
                        "%s names PID %d (%s) as container %s's, but it runs in %s, not in the cgroup %s gives "
                        "container %.12s: refused",
                        cf->engine, (int) cf->pid, c, cf->name, shown, cf->engine, cf->id);
                return cf->error;
        }
        if (mount)
                cf->have_cpuset = cgroup_cpuset(root, mount, cf->cgroup, &cf->cpus, &cf->mems) >= 0;
        return 0;
}

int container_inspect(struct root *root, const char *mount, struct container_facts *cf) {
        struct stat st;
        size_t tried = 0;

        for (size_t i = 0; i < ELEMENTSOF(engines); i++) {
                if (root_lstat(root, engines[i].socket, &st, NULL) < 0 || !S_ISSOCK(st.st_mode))
                        continue;
                tried++;
                _cleanup_free_ char *socket = root_join(root, engines[i].socket), *text = NULL,
                                    *path = xasprintf("/containers/%s/json", cf->name);
                long status;
                free(cf->why);
                cf->why = NULL;
                cf->error = engine_get(socket, path, &status, &text, &cf->why);
                if (cf->error < 0)
                        continue;
                if (status == 404) {
                        cf->error = -ENOENT;
                        cf->why = xasprintf("%s has no container %s (docker ps -a)", engines[i].engine, cf->name);
                        continue;
                }
                if (status != 200) {
                        cf->error = -EBADMSG;
                        cf->why = xasprintf("%s answered HTTP %ld, not a container's description", socket, status);
                        continue;
                }
                if (container_parse_inspect(text, cf) < 0) {
                        /* An answer that does not hold up is not asked of the next engine. */
                        cf->error = -EBADMSG;
                        _cleanup_free_ char *reason = TAKE_PTR(cf->why);
                        cf->why = xasprintf("%s's answer about %s does not hold up: %s", engines[i].engine, cf->name,
                                            reason);
                        return cf->error;
                }
                cf->engine = xstrdup(engines[i].engine);
                break;
        }
        if (tried == 0) {
                cf->error = -ENOENT;
                cf->why = xstrdup("no container engine listens here (/run/docker.sock, /run/podman/podman.sock)");
        }
        if (cf->error < 0 || !cf->running)
                return cf->error;
        return own_cgroup(root, mount, cf);
}
