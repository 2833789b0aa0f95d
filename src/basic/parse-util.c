/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <inttypes.h>
#include <strings.h>

#include "basic/parse-util.h"
#include "basic/util.h"

/* Digits with at most `max_decimals` decimals, scaled by 10^max_decimals. */
static int parse_fixed(const char **p, unsigned max_decimals, uint64_t *ret) {
        const char *s = *p;
        uint64_t v = 0;
        unsigned decimals = 0;
        bool dot = false, digits = false;

        for (;; s++) {
                if (isdigit((unsigned char) *s)) {
                        if (dot && decimals == max_decimals)
                                return -EINVAL;
                        uint64_t d = (uint64_t) (*s - '0');
                        if (v > (UINT64_MAX - d) / 10)
                                return -ERANGE;
                        v = v * 10 + d;
                        digits = true;
                        decimals += dot;
                } else if (*s == '.' && !dot && max_decimals > 0)
                        dot = true;
                else
                        break;
        }
        if (!digits)
                return -EINVAL;
        for (; decimals < max_decimals; decimals++) {
                if (v > UINT64_MAX / 10)
                        return -ERANGE;
                v *= 10;
        }
        *p = s;
        *ret = v;
        return 0;
}

int parse_size(const char *s, uint64_t *ret) {
        static const char suffixes[] = "KMGT";
        uint64_t v;

        int r = parse_fixed(&s, 0, &v);
        if (r < 0)
                return r;
        if (*s) {
                /* K, M, G, T, or KiB, MiB, GiB, TiB: binary either way. */
                const char *k = strchr(suffixes, toupper((unsigned char) *s));
                if (!k || (s[1] && strcmp(s + 1, "iB") != 0))
                        return -EINVAL;
                for (long i = 0; i <= k - suffixes; i++) {
                        if (v > UINT64_MAX / 1024)
                                return -ERANGE;
                        v *= 1024;
                }
        }
        *ret = v;
        return 0;
}

int parse_percent(const char *s, unsigned *ret_bp) {
        uint64_t v;

        /* Basis points: two decimals of a percent are as fine as anyone sizes memory. */
        int r = parse_fixed(&s, 2, &v);
        if (r < 0)
                return r;
        if (!streq(s, "%"))
                return -EINVAL;
        if (v > 10000)
                return -ERANGE;
        *ret_bp = (unsigned) v;
        return 0;
}

int parse_duration_ms(const char *s, uint64_t *ret) {
        static const struct {
                const char *suffix;
                uint64_t ms;
        } units[] = {{"", 1000}, {"s", 1000}, {"ms", 1}, {"m", 60000}, {"min", 60000}};
        uint64_t v;

        int r = parse_fixed(&s, 0, &v);
        if (r < 0)
                return r;
        for (size_t i = 0; i < ELEMENTSOF(units); i++)
                if (streq(s, units[i].suffix)) {
                        if (v > UINT64_MAX / units[i].ms)
                                return -ERANGE;
                        *ret = v * units[i].ms;
                        return 0;
                }
        return -EINVAL;
}

int parse_boolean(const char *s, bool *ret) {
        static const char *const yes[] = {"yes", "true", "on", "1"}, *const no[] = {"no", "false", "off", "0"};

        for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
                if (strcasecmp(s, yes[i]) == 0) {
                        *ret = true;
                        return 0;
                }
                if (strcasecmp(s, no[i]) == 0) {
                        *ret = false;
                        return 0;
                }
        }
        return -EINVAL;
}

char *format_share(uint64_t part, uint64_t whole) {
        uint64_t per_mille = whole ? (uint64_t) ((unsigned __int128) part * 1000 / whole) : 0;
        return xasprintf("%" PRIu64 ".%" PRIu64 "%%", per_mille / 10, per_mille % 10);
}

void format_percent(char *buf, size_t n, unsigned bp) {
        if (bp % 100 == 0)
                snprintf(buf, n, "%u%%", bp / 100);
        else if (bp % 10 == 0)
                snprintf(buf, n, "%u.%u%%", bp / 100, bp / 10 % 10);
        else
                snprintf(buf, n, "%u.%02u%%", bp / 100, bp % 100);
}
