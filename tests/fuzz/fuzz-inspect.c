/* SPDX-License-Identifier: MIT */
/* A container engine's answer to GET /containers/NAME/json, and the cgroup that must hold the
 * container it names: the first line of the input is a process's cgroup path, the rest the
 * answer. Whatever is taken from it passed its checks. */
#include "basic/util.h"
#include "core/observed.h"
#include "fuzz.h"
#include "host/container.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size), *json = strchr(s, '\n');
        struct container_facts cf = {0};

        if (json)
                *json++ = 0;
        int r = container_parse_inspect(json ? json : s, &cf);
        if (r == 0) {
                fuzz_assert(cf.id && strlen(cf.id) == CONTAINER_ID_LEN && !strchr(cf.id, '/'));
                fuzz_assert(cf.pid >= 0 && (!cf.running || cf.pid > 1));
                fuzz_assert(cf.cpuset_cpus && cf.cpuset_mems);
                for (int e = 0; e < 2; e++) {
                        char *scope = NULL;
                        if (container_scope(e ? "docker" : "podman", cf.id, s, &scope) == 0) {
                                /* the scope is a leading part of the cgroup, ending at a component */
                                size_t n = strlen(scope);
                                fuzz_assert(strncmp(scope, s, n) == 0 && (s[n] == 0 || s[n] == '/') &&
                                            strstr(scope, cf.id));
                        }
                        free(scope);
                }
        } else
                fuzz_assert(r == -EBADMSG && cf.why);
        container_facts_done(&cf);
        free(s);
        return 0;
}
