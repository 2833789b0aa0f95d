/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <errno.h>

#include "core/sysfs-parse.h"
#include "basic/util.h"

static const char *skip_blank(const char *p) {
        while (*p == ' ' || *p == '\t')
                p++;
        return p;
}

/* One meminfo line [p, eol): "[Node N ]Key: value[ kB]". */
static int meminfo_line(const char *p, const char *eol, const char **ret_key, size_t *ret_key_len,
                        uint64_t *ret_value) {
        const char *s = startswith(p, "Node ");
        if (s) {
                s = skip_blank(s);
                if (!isdigit((unsigned char) *s))
                        return -EINVAL;
                while (isdigit((unsigned char) *s))
                        s++;
                if (*s != ' ' && *s != '\t')
                        return -EINVAL;
                p = skip_blank(s);
        }

        const char *key = p;
        while (p < eol && *p != ':' && !isspace((unsigned char) *p))
                p++;
        if (p == key || p >= eol || *p != ':')
                return -EINVAL;
        size_t key_len = (size_t) (p - key);
        p = skip_blank(p + 1);

        if (!isdigit((unsigned char) *p))
                return -EINVAL;
        uint64_t v = 0;
        while (p < eol && isdigit((unsigned char) *p)) {
                uint64_t d = (uint64_t) (*p - '0');
                if (v > (UINT64_MAX - d) / 10)
                        return -ERANGE;
                v = v * 10 + d;
                p++;
        }
        p = skip_blank(p);
        bool kb = false;
        if (eol - p >= 2 && strncmp(p, "kB", 2) == 0) {
                kb = true;
                p = skip_blank(p + 2);
        }
        if (p != eol)
                return -EINVAL;
        if (kb) {
                if (v > UINT64_MAX / 1024)
                        return -ERANGE;
                v *= 1024;
        }
        *ret_key = key;
        *ret_key_len = key_len;
        *ret_value = v;
        return 0;
}

int meminfo_get(const char *text, const char *key, uint64_t *ret) {
        bool found = false;
        uint64_t value = 0;

        for (const char *p = text; *p;) {
                const char *eol = strchrnul(p, '\n');
                const char *k;
                size_t klen;
                uint64_t v;

                if (eol > p) {
                        int r = meminfo_line(p, eol, &k, &klen, &v);
                        if (r < 0)
                                return r;
                        if (!found && klen == strlen(key) && strncmp(k, key, klen) == 0) {
                                found = true;
                                value = v;
                        }
                }
                p = *eol ? eol + 1 : eol;
        }
        if (!found)
                return -ENOENT;
        *ret = value;
        return 0;
}

int distance_parse(const char *text, int **ret, size_t *ret_n) {
        _cleanup_free_ int *v = NULL;
        size_t n = 0;
        const char *p = text;

        for (;;) {
                while (isspace((unsigned char) *p))
                        p++;
                if (!*p)
                        break;
                if (!isdigit((unsigned char) *p))
                        return -EINVAL;
                long d = 0;
                while (isdigit((unsigned char) *p)) {
                        d = d * 10 + (*p - '0');
                        if (d > 255) /* the ACPI SLIT holds bytes */
                                return -ERANGE;
                        p++;
                }
                if (*p && !isspace((unsigned char) *p))
                        return -EINVAL;
                v = xrealloc(v, (n + 1) * sizeof(int));
                v[n++] = (int) d;
        }
        if (n == 0)
                return -EINVAL;
        *ret = TAKE_PTR(v);
        *ret_n = n;
        return 0;
}

int status_field(const char *text, const char *key, const char **ret, size_t *ret_len) {
        size_t klen = strlen(key);

        for (const char *p = text; *p;) {
                const char *eol = strchrnul(p, '\n');
                if (strncmp(p, key, klen) == 0 && p[klen] == ':') {
                        const char *v = skip_blank(p + klen + 1);
                        *ret = v;
                        *ret_len = (size_t) (eol - v);
                        return 0;
                }
                p = *eol ? eol + 1 : eol;
        }
        return -ENOENT;
}
