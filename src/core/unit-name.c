/* SPDX-License-Identifier: MIT */
#include <ctype.h>

#include "core/unit-name.h"
#include "basic/util.h"

#define UNIT_NAME_MAX 256

static bool valid_char(char c) {
        return isascii((unsigned char) c) && (isalnum((unsigned char) c) || strchr(":-_.\\", c));
}

bool unit_name_is_valid_service(const char *name, const char **ret_why) {
        const char *why = NULL;
        size_t n = strlen(name);
        const char *suffix = n >= strlen(".service") ? name + n - strlen(".service") : NULL;
        const char *at = strchr(name, '@');

        if (n == 0)
                why = "is empty";
        else if (n >= UNIT_NAME_MAX)
                why = "is 256 bytes or longer";
        else if (!suffix || !streq(suffix, ".service"))
                why = "does not end in .service";
        else if (suffix == name || name[0] == '@')
                why = "has no name before its suffix";
        else if (strstr(name, ".."))
                why = "contains '..'"; /* systemd would allow it; a path built from it should not */
        else if (at && strchr(at + 1, '@'))
                why = "has more than one '@'";
        else if (at && at + 1 == suffix)
                why = "is a template without an instance";
        else
                for (const char *p = name; p < suffix; p++)
                        if (*p != '@' && !valid_char(*p)) {
                                why = *p == '/' ? "contains '/'" : "contains a character systemd does not allow";
                                break;
                        }
        if (why && ret_why)
                *ret_why = why;
        return !why;
}

char *unit_name_mangle(const char *name) {
        static const char *const suffixes[] = {".service", ".socket", ".target", ".device", ".mount", ".automount",
                                               ".swap",    ".path",   ".timer",  ".slice",  ".scope"};
        size_t n = strlen(name);
        for (size_t i = 0; i < ELEMENTSOF(suffixes); i++) {
                size_t k = strlen(suffixes[i]);
                if (n > k && streq(name + n - k, suffixes[i]))
                        return xstrdup(name);
        }
        return xasprintf("%s.service", name);
}

char *unit_template_instance(const char *pattern, const char *instance) {
        const char *i = strstr(pattern, "%i");
        return i ? xasprintf("%.*s%s%s", (int) (i - pattern), pattern, instance, i + 2) : xstrdup(pattern);
}

char *cgroup_unit(const char *cgroup) {
        for (const char *p = cgroup; p && *p;) {
                p += strspn(p, "/");
                size_t n = strcspn(p, "/");
                if ((n > 8 && strncmp(p + n - 8, ".service", 8) == 0) ||
                    (n > 6 && strncmp(p + n - 6, ".scope", 6) == 0))
                        return xstrndup(p, n);
                p += n;
        }
        return NULL;
}
