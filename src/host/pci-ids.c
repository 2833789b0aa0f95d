/* SPDX-License-Identifier: MIT */
/* The name of one vendor and device in pci.ids, found where they are rather than by parsing the
 * whole file (libpci's pci_load_name_list reads all 36,000 lines into a hash, some 20 ms, for
 * the handful of names `show` prints). Lines are read as libpci reads them: a vendor is "vvvv"
 * at the start of a line, a device "\tdddd" below it, then blanks and the name; "#" comments
 * and blank lines are skipped, and any other line at the start ends a vendor's devices. The
 * file keeps vendors, and each vendor's devices, in ascending order ("Please keep sorted", its
 * header says): both are found by bisection, a few pages read of 1.3 MB. */

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "basic/util.h"
#include "host/pci-ids.h"

/* Below this many bytes, a range is read line by line rather than halved again. */
#define LINEAR_SPAN 4096
/* The lines a probe reads for an entry before it tries another point. */
#define PROBE_LINES 16

static size_t line_end(const struct pci_ids *ids, size_t pos) {
        const char *nl = memchr(ids->text + pos, '\n', ids->len - pos);
        return nl ? (size_t) (nl - ids->text) : ids->len;
}

/* The leading tabs of the line at `pos`; -1 for a blank or comment line. Only its first bytes are
 * read: most lines are skipped on that. */
static int nest_at(const struct pci_ids *ids, size_t pos) {
        const char *s = ids->text;
        size_t p = pos, tabs;

        while (p < ids->len && s[p] == '\t')
                p++;
        tabs = p - pos;
        while (p < ids->len && (s[p] == ' ' || s[p] == '\t'))
                p++;
        if (p == ids->len || s[p] == '\n' || s[p] == '\r' || s[p] == '#')
                return -1;
        return (int) tabs;
}

static int hex_digit(char c) {
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

/* The id of the entry at `pos` if it is one at `nest` ("vvvv" or "\tdddd", a blank after it);
 * -1 for another line. */
static int entry_id(const struct pci_ids *ids, size_t pos, int nest) {
        size_t p = pos + (size_t) nest;
        int id = 0;

        if (p + 5 > ids->len)
                return -1;
        for (size_t i = 0; i < 4; i++) {
                int d = hex_digit(ids->text[p + i]);
                if (d < 0)
                        return -1;
                id = id << 4 | d;
        }
        return ids->text[p + 4] == ' ' || ids->text[p + 4] == '\t' ? id : -1;
}

/* The first entry at `nest` among at most `max` lines from `pos` (a line's start) before `end`;
 * `end` when there is none. A line at a lower nesting ends the search there: for a device, the
 * next vendor ends its list. */
static size_t next_entry(const struct pci_ids *ids, size_t pos, size_t end, int nest, size_t max, int *ret_id) {
        for (size_t i = 0; pos < end && i < max; i++) {
                int n = nest_at(ids, pos);
                if (n >= 0 && n < nest)
                        return end;
                int id = n == nest ? entry_id(ids, pos, nest) : -1;
                if (id >= 0) {
                        *ret_id = id;
                        return pos;
                }
                pos = line_end(ids, pos) + 1;
        }
        return end;
}

/* The start of the line that ends where the line at `pos` starts (or where the text ends), not
 * before `lo`. */
static size_t line_before(const struct pci_ids *ids, size_t lo, size_t pos) {
        size_t e = pos > lo && ids->text[pos - 1] == '\n' ? pos - 1 : pos;
        const char *nl = e > lo ? memrchr(ids->text + lo, '\n', e - lo) : NULL;
        return nl ? (size_t) (nl - ids->text) + 1 : lo;
}

/* The entry with id `key` at `nest` in [lo, end), or `end`. Every entry before lo is below key,
 * every one from hi on above it: each round, a probe reads a few lines from the middle of the
 * range for an entry to compare, or else from another eighth of it (inside Intel's 10,000 lines
 * of devices no vendor is near, and reading to their end is what a lookup would cost). What is
 * left, or a range that one vendor's list fills, is read from both ends. */
static size_t find_entry(const struct pci_ids *ids, size_t lo, size_t end, int nest, int key) {
        static const unsigned eighths[] = {4, 2, 6, 1, 3, 5, 7};
        size_t hi = end;
        int id;

        while (hi - lo > LINEAR_SPAN) {
                size_t pos = hi;
                for (size_t i = 0; i < ELEMENTSOF(eighths) && pos == hi; i++) {
                        size_t mid = line_end(ids, lo + (hi - lo) / 8 * eighths[i]) + 1;
                        if (mid < hi)
                                pos = next_entry(ids, mid, hi, nest, PROBE_LINES, &id);
                }
                if (pos == hi)
                        break;
                if (id == key)
                        return pos;
                if (id < key)
                        lo = line_end(ids, pos) + 1;
                else
                        hi = pos;
        }
        for (size_t f = lo, b = hi; f < b;) {
                int n = nest_at(ids, f);
                if (n >= 0 && n < nest)
                        return end;
                if (n == nest && (id = entry_id(ids, f, nest)) >= 0) {
                        if (id == key)
                                return f;
                        if (id > key)
                                return end;
                }
                f = line_end(ids, f) + 1;
                if (f >= b)
                        break;
                b = line_before(ids, f, b);
                n = nest_at(ids, b);
                if (n == nest && (id = entry_id(ids, b, nest)) >= 0) {
                        if (id == key)
                                return b;
                        if (id < key)
                                return end;
                }
        }
        return end;
}

/* The name of the entry starting at `pos`: after its id and blanks, one trailing blank off, as
 * libpci takes it; NULL when empty. */
static char *entry_name(const struct pci_ids *ids, size_t pos, int nest) {
        size_t p = pos + (size_t) nest + 4, e = line_end(ids, pos);
        const char *cr = memchr(ids->text + p, '\r', e - p);

        if (cr) /* libpci ends a line at either */
                e = (size_t) (cr - ids->text);
        while (p < e && (ids->text[p] == ' ' || ids->text[p] == '\t'))
                p++;
        if (e > p && (ids->text[e - 1] == ' ' || ids->text[e - 1] == '\t'))
                e--;
        return e > p ? xstrndup(ids->text + p, e - p) : NULL;
}

void pci_ids_lookup(struct pci_ids *ids, unsigned vendor, unsigned device, char **ret_vendor, char **ret_device) {
        int id;

        *ret_vendor = *ret_device = NULL;
        /* The last vendor's place is kept: a host's devices come from a few vendors, and finding
         * where a large vendor's devices end (Intel's take 370 KB) is most of a lookup. */
        if (!ids->vendor_known || ids->vendor != vendor) {
                size_t v = find_entry(ids, 0, ids->len, 0, (int) vendor);
                if (v >= ids->len)
                        return;
                /* The vendor's devices end at the next vendor (a device search stops at any line
                 * that is not nested, such as the class list's "C 00"): read up to it, which costs
                 * half what bisecting for it does, bisection's probes landing in the large
                 * vendors' lists and reading to their ends. */
                size_t next = next_entry(ids, line_end(ids, v) + 1, ids->len, 0, SIZE_MAX, &id);
                ids->vendor_known = true;
                ids->vendor = vendor;
                ids->vendor_at = v;
                ids->devices_end = next;
        }
        *ret_vendor = entry_name(ids, ids->vendor_at, 0);
        size_t first = line_end(ids, ids->vendor_at) + 1;
        if (first >= ids->devices_end)
                return;
        size_t d = find_entry(ids, first, ids->devices_end, 1, (int) device);
        if (d < ids->devices_end)
                *ret_device = entry_name(ids, d, 1);
}

int pci_ids_open(const char *path, struct pci_ids *ret) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        struct stat st;

        if (fd < 0 || fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EBADFD;
        if (st.st_size == 0) {
                *ret = (struct pci_ids){.text = "", .len = 0};
                return 0;
        }
        void *m = mmap(NULL, (size_t) st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED)
                return -errno;
        *ret = (struct pci_ids){.text = m, .len = (size_t) st.st_size, .mapped = true};
        return 0;
}

void pci_ids_close(struct pci_ids *ids) {
        if (ids->mapped)
                munmap((void *) ids->text, ids->len);
        *ids = (struct pci_ids){0};
}
