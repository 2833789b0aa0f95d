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
#include <unistd.h>

#include "basic/util.h"
#include "host/pci-ids.h"

/* Below this many bytes, a range is read line by line rather than halved again. */
#define LINEAR_SPAN 4096

struct line {
        size_t start, end; /* the line without its newline (nor a carriage return) */
        int nest;          /* leading tabs; -1 for a blank or comment line */
};

static size_t line_end(const struct pci_ids *ids, size_t pos) {
        const char *nl = memchr(ids->text + pos, '\n', ids->len - pos);
        return nl ? (size_t) (nl - ids->text) : ids->len;
}

static struct line line_at(const struct pci_ids *ids, size_t pos) {
        struct line l = {.start = pos, .end = line_end(ids, pos)};
        const char *s = ids->text;

        for (size_t i = pos; i < l.end; i++)
                if (s[i] == '\r') {
                        l.end = i;
                        break;
                }
        size_t p = pos;
        while (p < l.end && (s[p] == ' ' || s[p] == '\t'))
                p++;
        if (p == l.end || s[p] == '#') {
                l.nest = -1;
                return l;
        }
        for (p = pos; p < l.end && s[p] == '\t'; p++)
                ;
        l.nest = (int) (p - pos);
        return l;
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

/* The id of an entry line at `nest` ("vvvv" or "\tdddd", a blank after it); -1 for another line. */
static int entry_id(const struct pci_ids *ids, const struct line *l, int nest) {
        size_t p = l->start + (size_t) nest;
        int id = 0;

        if (l->nest != nest || l->end - p < 5)
                return -1;
        for (size_t i = 0; i < 4; i++) {
                int d = hex_digit(ids->text[p + i]);
                if (d < 0)
                        return -1;
                id = id << 4 | d;
        }
        return ids->text[p + 4] == ' ' || ids->text[p + 4] == '\t' ? id : -1;
}

/* The first entry at `nest` starting in [pos, end), with its id; `end` when there is none. A
 * line at a lower nesting ends the search there: for a device, the next vendor ends its list. */
static size_t next_entry(const struct pci_ids *ids, size_t pos, size_t end, int nest, int *ret_id) {
        while (pos < end) {
                struct line l = line_at(ids, pos);
                if (l.nest >= 0 && l.nest < nest)
                        return end;
                int id = entry_id(ids, &l, nest);
                if (id >= 0) {
                        *ret_id = id;
                        return pos;
                }
                pos = line_end(ids, pos) + 1;
        }
        return end;
}

/* The first entry at `nest` in [lo, end) whose id is `key` or above, in the order the file keeps
 * (bisection, then line by line); `end` when there is none. */
static size_t lower_bound(const struct pci_ids *ids, size_t lo, size_t end, int nest, int key, int *ret_id) {
        size_t hi = end, pos;
        int id = -1;

        /* Every entry before lo is below key; when the first entry at or after mid is not, the
         * first that is not lies before it (none is between mid and it). */
        while (hi - lo > LINEAR_SPAN) {
                size_t mid = line_end(ids, lo + (hi - lo) / 2) + 1; /* the next line's start */
                if (mid >= hi)
                        break;
                pos = next_entry(ids, mid, hi, nest, &id);
                if (pos < hi && id < key)
                        lo = line_end(ids, pos) + 1;
                else
                        hi = mid;
        }
        for (pos = next_entry(ids, lo, end, nest, &id); pos < end && id < key;
             pos = next_entry(ids, line_end(ids, pos) + 1, end, nest, &id))
                ;
        *ret_id = id;
        return pos;
}

/* The entry with id `key` at `nest` in [lo, end), or `end`. */
static size_t find_entry(const struct pci_ids *ids, size_t lo, size_t end, int nest, int key) {
        int id;
        size_t pos = lower_bound(ids, lo, end, nest, key, &id);

        return pos < end && id == key ? pos : end;
}

/* The name of the entry starting at `pos`: after its id and blanks, one trailing blank off, as
 * libpci takes it; NULL when empty. */
static char *entry_name(const struct pci_ids *ids, size_t pos, int nest) {
        struct line l = line_at(ids, pos);
        size_t p = l.start + (size_t) nest + 4, e = l.end;

        while (p < e && (ids->text[p] == ' ' || ids->text[p] == '\t'))
                p++;
        if (e > p && (ids->text[e - 1] == ' ' || ids->text[e - 1] == '\t'))
                e--;
        return e > p ? xstrndup(ids->text + p, e - p) : NULL;
}

void pci_ids_lookup(const struct pci_ids *ids, unsigned vendor, unsigned device, char **ret_vendor,
                    char **ret_device) {
        size_t v = find_entry(ids, 0, ids->len, 0, (int) vendor);
        int id;

        *ret_vendor = *ret_device = NULL;
        if (v >= ids->len)
                return;
        *ret_vendor = entry_name(ids, v, 0);
        size_t first = line_end(ids, v) + 1;
        if (first >= ids->len)
                return;
        /* The vendor's devices end at the next vendor (a device search stops at any line that
         * is not nested, such as the class list's "C 00"). */
        size_t next = lower_bound(ids, first, ids->len, 0, (int) vendor + 1, &id);
        size_t d = find_entry(ids, first, next, 1, (int) device);
        if (d < next)
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
