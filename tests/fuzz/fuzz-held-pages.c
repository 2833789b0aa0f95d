/* SPDX-License-Identifier: MIT */
/* The readers of locked and pinned memory that verify trusts, and the tally they feed. The input
 * is a process's files, NUL between them: numa_maps, smaps (which mappings are locked), status
 * (VmLck, VmPin), an io_uring's fdinfo (its registered buffers); those missing are empty. */
#include "core/held-pages.h"
#include "core/numa-maps.h"
#include "fuzz.h"

/* The next part of the input, from *p to the NUL ending it. */
static const char *part(const char **p, const char *end) {
        const char *s = *p;
        if (s < end)
                *p = s + strlen(s) + 1;
        return s < end ? s : "";
}

static void parse(const char *smaps, const char *status, const char *fdinfo, struct process_held *h,
                  struct smaps_mapping **m, struct address_range **b) {
        if (status_held_kb(status, &h->locked_kb, &h->pinned_kb) < 0)
                h->locked_kb = h->pinned_kb = 0;
        if (smaps_mappings(smaps, m, &h->n_mappings) == 0)
                for (size_t i = 0; i < h->n_mappings; i++)
                        fuzz_assert((*m)[i].start < (*m)[i].end && (i == 0 || (*m)[i - 1].start <= (*m)[i].start));
        if (uring_buffers(fdinfo, b, &h->n_pinned) >= 0 && h->n_pinned) {
                qsort(*b, h->n_pinned, sizeof(**b), address_range_compare);
                for (size_t i = 0; i < h->n_pinned; i++)
                        fuzz_assert((*b)[i].start < (*b)[i].end &&
                                    pinned_bytes_within(*b, h->n_pinned, (*b)[i].start, (*b)[i].end) ==
                                            (*b)[i].end - (*b)[i].start);
        }
        h->mappings = *m, h->pinned = *b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        const char *p = s, *end = s + size;
        const char *numa_maps = part(&p, end), *smaps = part(&p, end), *status = part(&p, end), *fdinfo = part(&p, end);
        struct process_held h = {0};
        struct smaps_mapping *m = NULL;
        struct address_range *b = NULL;
        struct cpuset planned = {0};
        struct page_tally *t = malloc(sizeof(*t));

        if (!t)
                abort();
        parse(smaps, status, fdinfo, &h, &m, &b);
        cpuset_set(&planned, 1);
        page_tally_init(t, 4);
        (void) page_tally_add_held(t, numa_maps, NULL, &planned, &h);
        for (int n = 0; n < NUMA_NODES_MAX; n++)
                fuzz_assert(t->locked[n] <= t->total[n] && t->pin_mapped[n] <= t->total[n]);
        page_tally_done(t);
        free(t);
        free(m);
        free(b);
        free(s);
        return 0;
}
