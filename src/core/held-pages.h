/* SPDX-License-Identifier: MIT */
#pragma once

/* Locked and pinned memory of a process, from the text of its /proc files. Pure: callers hand in
 * the text.
 *
 * Locked (mlock(2), mlockall(2), MAP_LOCKED): the kernel keeps the pages in memory, but may still
 * move them between nodes. /proc/PID/status's VmLck is mm->locked_vm: the size of the mappings
 * marked VM_LOCKED (smaps' VmFlags "lo"), resident or not, plus what a driver pinned and
 * accounted as locked (vfio's type1 IOMMU driver does). /proc/PID/smaps says which mappings are
 * locked; numa_maps where their resident pages are.
 *
 * Pinned (pin_user_pages(), FOLL_PIN | FOLL_LONGTERM): held for a device's DMA; the kernel cannot
 * migrate such a page (mm/migrate.c: its references are more than its mappings account for).
 * VmPin is mm->pinned_vm, which only some pinners count: RDMA memory regions
 * (drivers/infiniband/core/umem.c), io_uring's registered buffers (io_uring/rsrc.c, in the ring
 * creator's mm), vhost-vdpa. Not counted there: vfio (in VmLck), and drivers that pin without
 * accounting (NVIDIA's registers host memory with pin_user_pages() and counts it nowhere).
 * No file says which page is pinned or on which node: kpageflags, pagemap, smaps and numa_maps
 * have no pin bit; /proc/vmstat's nr_foll_pin_acquired and _released are the host's totals. One
 * pinner lists its pages: an io_uring's /proc/PID/fdinfo/FD names each registered buffer's
 * address and length, so the mappings that hold them, and their nodes, are known. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* [start, end) of a process's address space. */
struct address_range {
        uint64_t start, end;
};

/* One mapping of smaps: its range, and whether it is locked (VM_LOCKED). */
struct smaps_mapping {
        uint64_t start, end;
        bool locked;
};

/* VmLck and VmPin of a /proc/PID/status text, in kB. -ENOENT for a process without an address
 * space (a kernel thread, a zombie: no VmLck); VmPin absent (an old kernel) is 0. -EINVAL
 * for a value that is not "N kB". */
int status_held_kb(const char *status, uint64_t *ret_locked_kb, uint64_t *ret_pinned_kb);

/* Every mapping of a /proc/PID/smaps text, sorted by start (the kernel's order), locked or not.
 * -EINVAL when a line comes before the first mapping's header, or is neither a header nor a
 * "Key:" line. */
int smaps_mappings(const char *smaps, struct smaps_mapping **ret, size_t *ret_n);
int smaps_mapping_compare(const void *a, const void *b);
/* The same a line at a time, for a text read in pieces (smaps holds some 700 bytes a mapping):
 * each line [line, eol) in order (-EINVAL as above), then smaps_parser_finish(). On an error the
 * caller frees p->v. */
struct smaps_parser {
        struct smaps_mapping *v;
        size_t n;
};
int smaps_parser_line(struct smaps_parser *p, const char *line, const char *eol);
void smaps_parser_finish(struct smaps_parser *p, struct smaps_mapping **ret, size_t *ret_n);

/* The buffers registered with an io_uring, from its /proc/PID/fdinfo/FD text: the lines after
 * "UserBufs:", one "N: 0xADDRESS/LENGTH" each ("N: <none>" for an empty slot, a length that
 * runs past the address space for a sparse one: left out). Appended to *ret (n in *ret_n).
 * Returns how many it appended; -EINVAL for an address or length that does not parse. The
 * kernel lists them only when the ring's lock is free: a busy ring may list fewer. */
int uring_buffers(const char *fdinfo, struct address_range **ret, size_t *ret_n);

/* What one process holds, for page_tally_add_held(): VmLck and VmPin, its mappings (from smaps,
 * sorted by start) and the pinned buffers listed for it (sorted by start). */
struct process_held {
        uint64_t locked_kb, pinned_kb;
        const struct smaps_mapping *mappings;
        size_t n_mappings;
        const struct address_range *pinned;
        size_t n_pinned;
};

/* The bytes of `pinned` (sorted, any overlap counted once) within [start, end). */
uint64_t pinned_bytes_within(const struct address_range *pinned, size_t n, uint64_t start, uint64_t end);
int address_range_compare(const void *a, const void *b);
