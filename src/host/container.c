/* SPDX-License-Identifier: MIT */
/* A container as its engine describes it: GET /containers/NAME/json of Docker's Engine API, over
 * its unix socket. podman answers the same request on its own socket (podman.socket), so one
 * client serves both. */

#include <sys/stat.h>

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

static const char *string_at(json_object *o, const char *a, const char *b) {
        json_object *v;
        if (!json_object_object_get_ex(o, a, &v))
                return NULL;
        if (b && !json_object_object_get_ex(v, b, &v))
                return NULL;
        return json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

int container_parse_inspect(const char *text, struct container_facts *cf) {
        _cleanup_json_ json_object *o = json_tokener_parse(text);
        json_object *state, *v;

        if (!o || !json_object_is_type(o, json_type_object) || !string_at(o, "Id", NULL))
                return -EBADMSG;
        cf->id = xstrdup(string_at(o, "Id", NULL));
        if (json_object_object_get_ex(o, "State", &state)) {
                if (json_object_object_get_ex(state, "Running", &v))
                        cf->running = json_object_get_boolean(v);
                if (json_object_object_get_ex(state, "Pid", &v))
                        cf->pid = (pid_t) json_object_get_int64(v);
        }
        /* Unset flags are "" (docker) or absent (podman without them). */
        cf->cpuset_cpus = xstrdup(strempty(string_at(o, "HostConfig", "CpusetCpus")));
        cf->cpuset_mems = xstrdup(strempty(string_at(o, "HostConfig", "CpusetMems")));
        return 0;
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
                if (status != 200 || container_parse_inspect(text, cf) < 0) {
                        cf->error = -EBADMSG;
                        cf->why = xasprintf("%s answered HTTP %ld, not a container's description", socket, status);
                        continue;
                }
                cf->engine = xstrdup(engines[i].engine);
                break;
        }
        if (tried == 0) {
                cf->error = -ENOENT;
                cf->why = xstrdup("no container engine listens here (/run/docker.sock, /run/podman/podman.sock)");
        }
        if (cf->error < 0 || !cf->running || cf->pid <= 0)
                return cf->error;
        if (cgroup_of_process(root, cf->pid, &cf->cgroup) >= 0 && mount)
                cf->have_cpuset = cgroup_cpuset(root, mount, cf->cgroup, &cf->cpus, &cf->mems) >= 0;
        return 0;
}
