/* SPDX-License-Identifier: MIT */
#pragma once

#include <stdbool.h>

/* systemd's rules for a unit name a drop-in may be written for (src/basic/unit-name.c): only
 * [a-zA-Z0-9:_.\-@] (so never '/'), under 256 bytes, at most one '@' with a prefix before it and
 * an instance after it (a template itself, "foo@.service", takes no drop-in of ours), and the
 * ".service" suffix, the one unit type that runs replicas. On failure *ret_why says why. */
bool unit_name_is_valid_service(const char *name, const char **ret_why);

/* As systemctl takes a unit name: one without a unit type's suffix ("llama-server@0") means the
 * service. Returns a new string, the suffix added when there was none. */
char *unit_name_mangle(const char *name);

/* A template's name with its first %i replaced by `instance` ("llama@%i.service", "0" gives
 * "llama@0.service"); a copy of the name when it holds no %i. */
char *unit_template_instance(const char *pattern, const char *instance);

/* The unit a process belongs to, from its cgroup v2 path: the outermost component that is a
 * service or a scope ("/system.slice/llama@0.service/libpod-ID.scope" gives "llama@0.service",
 * "/init.scope" gives "init.scope"); NULL for a path with none (the root cgroup, a kernel thread). */
char *cgroup_unit(const char *cgroup);
