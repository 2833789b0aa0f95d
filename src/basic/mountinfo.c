/* SPDX-License-Identifier: MIT */
#include "basic/mountinfo.h"
#include "basic/util.h"

/* The next blank-separated field, with the kernel's octal escapes (\ooo) taken back; NULL at
 * the end of the line. */
static char *field(const char **p) {
        const char *s = *p + strspn(*p, " ");
        size_t n = strcspn(s, " \n");
        if (n == 0)
                return NULL;
        char *out = xmalloc0(n + 1), *o = out;
        for (size_t i = 0; i < n; i++) {
                if (s[i] == '\\' && i + 3 < n && s[i + 1] >= '0' && s[i + 1] <= '3' && s[i + 2] >= '0' &&
                    s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
                        *o++ = (char) ((s[i + 1] - '0') << 6 | (s[i + 2] - '0') << 3 | (s[i + 3] - '0'));
                        i += 3;
                } else
                        *o++ = s[i];
        }
        *p = s + n;
        return out;
}

static bool number(const char *s, int *ret) {
        return s && parse_int(s, ret) >= 0 && *ret >= 0;
}

int mountinfo_parse_line(const char *line, struct mountinfo *ret) {
        struct mountinfo m = {0};
        const char *p = line;
        _cleanup_free_ char *id = field(&p), *parent = field(&p), *devno = field(&p);
        bool ok = number(id, &m.id) && number(parent, &m.parent) && devno;

        if (ok) {
                m.root = field(&p);
                m.mount_point = field(&p);
        }
        /* Options, then optional fields until a lone "-". */
        for (char *f; ok && (f = field(&p));) {
                bool sep = streq(f, "-");
                free(f);
                if (sep) {
                        m.fstype = field(&p);
                        m.source = field(&p);
                        break;
                }
        }
        if (!ok || !m.root || !m.mount_point || !m.fstype || !m.source) {
                mountinfo_done(&m);
                return -EINVAL;
        }
        *ret = m;
        return 0;
}

void mountinfo_done(struct mountinfo *m) {
        free(m->root);
        free(m->mount_point);
        free(m->fstype);
        free(m->source);
        *m = (struct mountinfo){0};
}
