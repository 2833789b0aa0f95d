/* SPDX-License-Identifier: MIT */
#include <ctype.h>

#include "basic/util.h"
#include "core/tuning-parse.h"

int pcie_speed_parse(const char *s, unsigned *ret_mts) {
        unsigned whole = 0, tenths = 0;
        const char *p = s;

        if (!isdigit((unsigned char) *p))
                return -EINVAL;
        while (isdigit((unsigned char) *p)) {
                whole = whole * 10 + (unsigned) (*p++ - '0');
                if (whole > 1000)
                        return -EINVAL;
        }
        if (*p == '.') {
                p++;
                if (!isdigit((unsigned char) *p))
                        return -EINVAL;
                tenths = (unsigned) (*p++ - '0');
                if (isdigit((unsigned char) *p)) /* no speed has a second decimal */
                        return -EINVAL;
        }
        p = startswith(p, " GT/s");
        if (!p || (*p && !streq(p, " PCIe")))
                return -EINVAL;
        if (whole == 0 && tenths == 0)
                return -EINVAL;
        *ret_mts = whole * 1000 + tenths * 100;
        return 0;
}

int pcie_width_parse(const char *s, int *ret) {
        int v;

        if (!isdigit((unsigned char) *s) || parse_int(s, &v) < 0 || v > 63)
                return -EINVAL;
        *ret = v;
        return 0;
}

int pcie_devctl_decode(uint16_t devctl, int *ret_max_read_request, int *ret_max_payload) {
        unsigned mrrs = (devctl >> 12) & 7, mps = (devctl >> 5) & 7;

        if (mrrs > 5 || mps > 5)
                return -EINVAL;
        *ret_max_read_request = 128 << mrrs;
        *ret_max_payload = 128 << mps;
        return 0;
}

/* The n-th blank-separated field before `end`, counting from the right (0: the last). */
static int field_from_right(const char *line, const char *end, unsigned n, const char **ret, size_t *ret_len) {
        const char *p = end;

        for (unsigned i = 0;; i++) {
                while (p > line && (p[-1] == ' ' || p[-1] == '\t'))
                        p--;
                const char *e = p;
                while (p > line && p[-1] != ' ' && p[-1] != '\t')
                        p--;
                if (p == e)
                        return -EINVAL;
                if (i == n) {
                        *ret = p;
                        *ret_len = (size_t) (e - p);
                        return 0;
                }
        }
}

int swaps_parse(const char *text, uint64_t *ret_bytes) {
        uint64_t sum = 0;
        const char *p = startswith(text, "Filename");

        if (!p)
                return -EINVAL;
        for (p = strchrnul(p, '\n'); *p == '\n' && p[1]; p = strchrnul(p + 1, '\n')) {
                const char *line = p + 1, *eol = strchrnul(line, '\n'), *f, *name;
                size_t len, name_len;
                uint64_t kb;
                char num[24];

                /* From the right: Priority, Used, Size, Type, then the file name (which may hold
                 * escaped blanks, never raw ones). */
                if (field_from_right(line, eol, 2, &f, &len) < 0 ||
                    field_from_right(line, eol, 4, &name, &name_len) < 0 || len >= sizeof(num))
                        return -EINVAL;
                memcpy(num, f, len);
                num[len] = 0;
                if (parse_uint64(num, 10, &kb) < 0)
                        return -EINVAL;
                if (kb > UINT64_MAX / 1024 || sum > UINT64_MAX - kb * 1024)
                        return -ERANGE;
                sum += kb * 1024;
        }
        *ret_bytes = sum;
        return 0;
}

/* One option of x86's iommu= list: [opt, end). */
static bool option_is(const char *opt, const char *end, const char *name) {
        size_t n = strlen(name);
        return (size_t) (end - opt) == n && strncmp(opt, name, n) == 0;
}

/* What one command-line word [w, end) says, or IOMMU_UNKNOWN. */
static enum iommu_mode word_iommu(const char *w, const char *end) {
        const char *v;

        if ((v = startswith(w, "iommu="))) {
                enum iommu_mode m = IOMMU_UNKNOWN;
                for (const char *o = v; o < end;) {
                        const char *c = memchr(o, ',', (size_t) (end - o));
                        const char *oe = c ? c : end;
                        if (option_is(o, oe, "pt"))
                                m = IOMMU_PASSTHROUGH;
                        else if (option_is(o, oe, "nopt"))
                                m = IOMMU_TRANSLATED;
                        else if (option_is(o, oe, "off"))
                                m = IOMMU_OFF;
                        o = oe + 1;
                }
                return m;
        }
        if ((v = startswith(w, "iommu.passthrough=")))
                return option_is(v, end, "1") || option_is(v, end, "y") || option_is(v, end, "on") ? IOMMU_PASSTHROUGH
                       : option_is(v, end, "0") || option_is(v, end, "n") || option_is(v, end, "off") ? IOMMU_TRANSLATED
                                                                                                      : IOMMU_UNKNOWN;
        if ((v = startswith(w, "intel_iommu=")) || (v = startswith(w, "amd_iommu="))) {
                /* Either takes a comma list; off anywhere in it turns the IOMMU off. */
                for (const char *o = v; o < end;) {
                        const char *c = memchr(o, ',', (size_t) (end - o));
                        const char *oe = c ? c : end;
                        if (option_is(o, oe, "off"))
                                return IOMMU_OFF;
                        o = oe + 1;
                }
        }
        return IOMMU_UNKNOWN;
}

int cmdline_iommu(const char *cmdline, enum iommu_mode *ret, const char **ret_param, size_t *ret_len) {
        enum iommu_mode found = IOMMU_UNKNOWN;
        const char *param = NULL;
        size_t len = 0;

        for (const char *p = cmdline; *p;) {
                while (isspace((unsigned char) *p))
                        p++;
                if (!*p || startswith(p, "-- ") || streq(p, "--"))
                        break; /* the rest is init's */
                const char *e = p;
                while (*e && !isspace((unsigned char) *e))
                        e++;
                enum iommu_mode m = word_iommu(p, e);
                if (m != IOMMU_UNKNOWN) {
                        found = m;
                        param = p;
                        len = (size_t) (e - p);
                }
                p = e;
        }
        if (found == IOMMU_UNKNOWN)
                return -ENOENT;
        *ret = found;
        *ret_param = param;
        *ret_len = len;
        return 0;
}

int iommu_type_parse(const char *s, enum iommu_mode *ret) {
        if (streq(s, "identity"))
                *ret = IOMMU_PASSTHROUGH;
        else if (streq(s, "DMA") || streq(s, "DMA-FQ"))
                *ret = IOMMU_TRANSLATED;
        else
                return -EINVAL;
        return 0;
}
