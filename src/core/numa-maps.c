/* SPDX-License-Identifier: MIT */
/* A numa_maps line, as fs/proc/task_mmu.c prints it:
 *   7f3e9fab4000 bind:1 file=/usr/lib/x86_64-linux-gnu/libc.so.6 mapped=204 mapmax=6 N1=204 kernelpagesize_kB=4
 *   561e28110000 default heap anon=4 dirty=4 active=0 N0=4 kernelpagesize_kB=4
 *   7f0000000000 default file=/dev/hugepages/x huge dirty=2 N0=2 kernelpagesize_kB=2048
 * The address and policy, then either file=PATH (path with blanks escaped as octal), or heap,
 * stack, huge, and key=value counts; Nx= are pages resident on node x. */

#include <ctype.h>
#include <inttypes.h>

#include "core/numa-maps.h"
#include "basic/util.h"

void page_tally_init(struct page_tally *t, uint64_t base_kb) {
        *t = (struct page_tally){.base_kb = base_kb ? base_kb : 4};
}

void page_tally_done(struct page_tally *t) {
        for (size_t i = 0; i < t->n_files; i++) {
                free(t->files[i].path);
                free(t->files[i].nodes);
                strv_free(t->files[i].mapped_by);
        }
        free(t->files);
        t->files = NULL;
        t->n_files = 0;
        for (size_t i = 0; i < t->n_unread; i++) {
                free(t->unread[i].path);
                free(t->unread[i].error);
        }
        free(t->unread);
        t->unread = NULL;
        t->n_unread = 0;
}

uint64_t page_tally_sum(const uint64_t *by_node) {
        uint64_t s = 0;
        for (size_t i = 0; i < NUMA_NODES_MAX; i++)
                s += by_node[i];
        return s;
}

uint64_t page_tally_on(const uint64_t *by_node, const struct cpuset *nodes) {
        uint64_t s = 0;
        CPUSET_FOREACH(n, nodes) {
                if (n >= NUMA_NODES_MAX)
                        break;
                s += by_node[n];
        }
        return s;
}

uint64_t page_tally_own_sum(const struct page_tally *t) {
        return page_tally_sum(t->total) - page_tally_sum(t->shared);
}

uint64_t page_tally_own_on(const struct page_tally *t, const struct cpuset *nodes) {
        return page_tally_on(t->total, nodes) - page_tally_on(t->shared, nodes);
}

/* A file is one inode wherever it is mapped from; without maps, one path. */
static struct file_pages *file_entry(struct page_tally *t, const char *path, size_t len, struct file_id id) {
        for (size_t i = 0; i < t->n_files; i++) {
                struct file_pages *f = &t->files[i];
                if (id.ino ? file_id_eq(f->id, id)
                           : f->id.ino == 0 && strlen(f->path) == len && strncmp(f->path, path, len) == 0)
                        return f;
        }
        t->files = xgrow(t->files, t->n_files, sizeof(*t->files));
        t->files[t->n_files] = (struct file_pages){.path = xstrndup(path, len), .id = id};
        return &t->files[t->n_files++];
}

static void file_add_node(struct file_pages *f, int node, uint64_t pages) {
        for (size_t i = 0; i < f->n_nodes; i++)
                if (f->nodes[i].node == node) {
                        f->nodes[i].pages =
                                f->nodes[i].pages > UINT64_MAX - pages ? UINT64_MAX : f->nodes[i].pages + pages;
                        return;
                }
        f->nodes = xgrow(f->nodes, f->n_nodes, sizeof(*f->nodes));
        f->nodes[f->n_nodes++] = (struct node_pages){node, pages};
}

int file_pages_node(const struct file_pages *f) {
        int best = -1;
        uint64_t most = 0;
        for (size_t i = 0; i < f->n_nodes; i++)
                if (f->nodes[i].pages > most || (f->nodes[i].pages == most && most && f->nodes[i].node < best)) {
                        most = f->nodes[i].pages;
                        best = f->nodes[i].node;
                }
        return best;
}

struct mapping {
        uint64_t start;
        const char *path;
        size_t path_len;
        bool huge;
        uint64_t anon, page_kb;
        uint64_t count[NUMA_NODES_MAX];
        int max_node;
};

/* More pages than any mapping can hold (64 PiB of 4 KiB pages): a line claiming more is not the
 * kernel's. Keeping counts below it keeps every product and sum here from wrapping. */
#define PAGES_MAX (UINT64_C(1) << 44)
/* The largest page any architecture has: 16 GiB (POWER). */
#define PAGE_KB_MAX (UINT64_C(16) << 20)

/* Totals across mappings and processes saturate rather than wrap. */
static void add(uint64_t *sum, uint64_t v) {
        *sum = *sum > UINT64_MAX - v ? UINT64_MAX : *sum + v;
}

/* The decimal number in [p, end): digits only, at least one, no wrap-around. */
static int parse_digits(const char *p, const char *end, uint64_t *ret) {
        uint64_t v = 0;

        if (p == end)
                return -EINVAL;
        for (; p < end; p++) {
                if (!isdigit((unsigned char) *p))
                        return -EINVAL;
                uint64_t d = (uint64_t) (*p - '0');
                if (v > (UINT64_MAX - d) / 10)
                        return -ERANGE;
                v = v * 10 + d;
        }
        *ret = v;
        return 0;
}

static int parse_line(const char *p, const char *eol, struct mapping *m) {
        /* Only the nodes the previous line touched need clearing: a big process has thousands
         * of mappings, and NUMA_NODES_MAX counters each. */
        for (int n = 0; n <= m->max_node; n++)
                m->count[n] = 0;
        m->path = NULL;
        m->path_len = 0;
        m->huge = false;
        m->anon = 0;
        m->page_kb = 4;
        m->max_node = -1;

        /* The address, then the policy. */
        for (int field = 0; field < 2; field++) {
                const char *s = p;
                while (p < eol && !isspace((unsigned char) *p))
                        p++;
                if (p == s)
                        return -EINVAL;
                if (field == 0) {
                        if (p - s > 16)
                                return -ERANGE;
                        m->start = 0;
                        for (const char *q = s; q < p; q++) {
                                if (!isxdigit((unsigned char) *q))
                                        return -EINVAL;
                                m->start =
                                        m->start << 4 | (uint64_t) (isdigit((unsigned char) *q)
                                                                            ? *q - '0'
                                                                            : (tolower((unsigned char) *q) - 'a' + 10));
                        }
                }
                while (p < eol && isspace((unsigned char) *p))
                        p++;
        }
        while (p < eol) {
                const char *tok = p;
                while (p < eol && !isspace((unsigned char) *p))
                        p++;
                size_t len = (size_t) (p - tok);
                while (p < eol && isspace((unsigned char) *p))
                        p++;

                const char *eq = memchr(tok, '=', len);
                if (!eq) {
                        m->huge = m->huge || (len == 4 && strncmp(tok, "huge", 4) == 0);
                        continue; /* heap, stack, huge */
                }
                if (eq - tok == 4 && strncmp(tok, "file", 4) == 0) {
                        m->path = eq + 1;
                        m->path_len = len - 5;
                        continue;
                }
                uint64_t v;
                int r = parse_digits(eq + 1, tok + len, &v);
                if (r < 0)
                        return r;
                if (v > PAGES_MAX && !(eq - tok == 17 && strncmp(tok, "kernelpagesize_kB", 17) == 0))
                        return -ERANGE;
                if (tok[0] == 'N' && eq - tok > 1) {
                        uint64_t node;
                        r = parse_digits(tok + 1, eq, &node);
                        if (r < 0)
                                return r;
                        if (node >= NUMA_NODES_MAX)
                                return -ERANGE;
                        if (m->count[node] + v > PAGES_MAX)
                                return -ERANGE;
                        m->count[node] += v;
                        m->max_node = (int) node > m->max_node ? (int) node : m->max_node;
                } else if (eq - tok == 4 && strncmp(tok, "anon", 4) == 0)
                        m->anon = v;
                else if (eq - tok == 17 && strncmp(tok, "kernelpagesize_kB", 17) == 0) {
                        if (v > PAGE_KB_MAX)
                                return -ERANGE;
                        m->page_kb = v ? v : 4;
                }
        }
        return 0;
}

/* Calls fn for each line of numa_maps, parsed; stops at the first line that does not parse. */
static int each_mapping(const char *numa_maps, void (*fn)(const struct mapping *m, void *userdata), void *userdata) {
        struct mapping *m = xmalloc0(sizeof(*m));
        int r = 0;

        m->max_node = -1;
        for (const char *p = numa_maps; *p;) {
                const char *eol = strchrnul(p, '\n');
                if (eol > p) {
                        r = parse_line(p, eol, m);
                        if (r < 0)
                                break;
                        fn(m, userdata);
                }
                p = *eol ? eol + 1 : eol;
        }
        free(m);
        return r;
}

struct tally_ctx {
        struct page_tally *t;
        const struct cpuset *planned;
        const struct maps_entry *maps;
        size_t n_maps, cursor;
        const struct process_held *held;
};

/* maps and numa_maps list the same mappings in the same order: look ahead first. A mapping made
 * between the two reads is not found, and is told apart by path. */
static const struct maps_entry *maps_lookup(struct tally_ctx *x, uint64_t start) {
        for (size_t i = x->cursor; i < x->n_maps; i++)
                if (x->maps[i].start == start) {
                        x->cursor = i + 1;
                        return &x->maps[i];
                }
        for (size_t i = 0; i < x->cursor && i < x->n_maps; i++)
                if (x->maps[i].start == start)
                        return &x->maps[i];
        return NULL;
}

static int mapping_start_compare(const void *key, const void *elem) {
        uint64_t start = *(const uint64_t *) key;
        const struct smaps_mapping *e = elem;
        return start < e->start ? -1 : start > e->start;
}

/* A mapping's pages that are locked, or may hold listed pinned buffers; `scale` base pages a
 * page of it. */
static void tally_held(struct tally_ctx *x, const struct mapping *m, uint64_t scale) {
        const struct process_held *h = x->held;
        struct page_tally *t = x->t;
        const struct smaps_mapping *e =
                h->n_mappings ? bsearch(&m->start, h->mappings, h->n_mappings, sizeof(*e), mapping_start_compare)
                              : NULL;
        if (!e)
                return; /* made between the reads */
        uint64_t pinned = pinned_bytes_within(h->pinned, h->n_pinned, e->start, e->end) / (t->base_kb * 1024);
        uint64_t resident = 0, on_plan = 0;
        for (int n = 0; n <= m->max_node; n++) {
                unsigned __int128 base = (unsigned __int128) m->count[n] * scale;
                uint64_t c = base > UINT64_MAX ? UINT64_MAX : (uint64_t) base;
                if (e->locked)
                        add(&t->locked[n], c);
                if (pinned)
                        add(&t->pin_mapped[n], c);
                add(&resident, c);
                if (cpuset_isset(x->planned, (unsigned) n))
                        add(&on_plan, c);
        }
        if (pinned > on_plan)
                add(&t->held.pinned_off_plan, (pinned < resident ? pinned : resident) - on_plan);
}

static void tally_mapping(const struct mapping *m, void *userdata) {
        struct tally_ctx *x = userdata;
        struct page_tally *t = x->t;
        const struct cpuset *planned = x->planned;
        uint64_t total = 0, scale = m->page_kb / t->base_kb ? m->page_kb / t->base_kb : 1;
        bool huge = m->huge || m->page_kb > t->base_kb;

        for (int n = 0; n <= m->max_node; n++)
                total += m->count[n]; /* each count <= PAGES_MAX: no wrap */
        struct file_pages *f = NULL;
        if (m->path && !huge) {
                const struct maps_entry *e = maps_lookup(x, m->start);
                f = file_entry(t, m->path, m->path_len, e ? e->id : (struct file_id){0});
                f->exec = f->exec || (e && e->exec);
        }
        for (int n = 0; n <= m->max_node; n++) {
                uint64_t c = m->count[n];
                if (c == 0)
                        continue;
                unsigned __int128 base = (unsigned __int128) c * scale;
                uint64_t pages = base > UINT64_MAX ? UINT64_MAX : (uint64_t) base;
                add(&t->total[n], pages);
                if (huge) {
                        add(&t->huge[n], pages);
                        continue;
                }
                /* numa_maps gives the anon count of the mapping, not per node: anonymous (COW)
                 * pages of a file mapping split in proportion. */
                uint64_t anon = !m->path           ? c
                                : m->anon >= total ? c
                                                   : (uint64_t) ((unsigned __int128) c * m->anon / total);
                add(&t->anon[n], anon);
                add(&t->file[n], c - anon);
                if (f && c > anon) {
                        add(&f->total, c - anon);
                        file_add_node(f, n, c - anon);
                        if (!cpuset_isset(planned, n))
                                add(&f->off_plan, c - anon);
                }
        }
        if (x->held)
                tally_held(x, m, scale);
}

/* The process's VmLck and VmPin, its locked mappings' size, and its listed pinned buffers. */
static void held_totals_add(struct held_totals *ht, const struct process_held *h, uint64_t base_kb) {
        uint64_t size = 0, listed = 0, vm_locked = h->locked_kb / base_kb;
        for (size_t i = 0; i < h->n_mappings; i++)
                if (h->mappings[i].locked)
                        size += (h->mappings[i].end - h->mappings[i].start) / (base_kb * 1024);
        for (size_t i = 0; i < h->n_pinned; i++)
                listed += (h->pinned[i].end - h->pinned[i].start + base_kb * 1024 - 1) / (base_kb * 1024);
        add(&ht->vm_locked, vm_locked);
        add(&ht->locked_size, size);
        if (h->n_mappings) /* smaps read: what VmLck has beyond the locked mappings is a driver's */
                add(&ht->locked_unmapped, vm_locked > size ? vm_locked - size : 0);
        add(&ht->vm_pinned, h->pinned_kb / base_kb);
        add(&ht->pinned_listed, listed);
}

struct page_tally_reader {
        struct tally_ctx x;
        struct mapping m;
};

struct page_tally_reader *page_tally_begin(struct page_tally *t, const struct maps_entry *maps, size_t n_maps,
                                           const struct cpuset *planned, const struct process_held *held) {
        struct page_tally_reader *rd = xmalloc0(sizeof(*rd));

        rd->x = (struct tally_ctx){.t = t, .planned = planned, .held = held, .maps = maps, .n_maps = n_maps};
        rd->m.max_node = -1;
        t->processes++;
        if (held)
                held_totals_add(&t->held, held, t->base_kb);
        return rd;
}

int page_tally_line(struct page_tally_reader *rd, const char *line, const char *eol) {
        if (eol == line)
                return 0;
        int r = parse_line(line, eol, &rd->m);
        if (r < 0)
                return r;
        tally_mapping(&rd->m, &rd->x);
        return 0;
}

struct page_tally_reader *page_tally_end(struct page_tally_reader *rd) {
        free(rd);
        return NULL;
}

int page_tally_add_held(struct page_tally *t, const char *numa_maps, const char *maps, const struct cpuset *planned,
                        const struct process_held *held) {
        _cleanup_free_ struct maps_entry *entries = NULL;
        size_t n_maps = 0;

        /* A maps text that does not parse only loses the files' identities. */
        if (maps && maps_files(maps, &entries, &n_maps) < 0)
                n_maps = 0;
        struct page_tally_reader *rd = page_tally_begin(t, entries, n_maps, planned, held);
        int r = 0;
        for (const char *p = numa_maps; *p && r >= 0;) {
                const char *eol = strchrnul(p, '\n');
                r = page_tally_line(rd, p, eol);
                p = *eol ? eol + 1 : eol;
        }
        page_tally_end(rd);
        return r;
}

void page_tally_add_unread(struct page_tally *t, enum page_source source, char *path, char *error) {
        t->unread = xgrow(t->unread, t->n_unread, sizeof(*t->unread));
        t->unread[t->n_unread++] = (struct page_unread){.source = source, .path = path, .error = error};
}

bool page_tally_unread_of(const struct page_tally *t, enum page_source source) {
        for (size_t i = 0; i < t->n_unread; i++)
                if (t->unread[i].source == source)
                        return true;
        return false;
}

const char *page_source_lost(enum page_source source) {
        static const char *const lost[] = {
                [PAGE_SOURCE_NUMA_MAPS] = "where its pages are",
                [PAGE_SOURCE_MAPS] = "which file each mapping is, and which is program code",
                [PAGE_SOURCE_STATUS] = "its locked and pinned memory (VmLck, VmPin)",
                [PAGE_SOURCE_SMAPS] = "which mappings are locked or hold pinned buffers, so where those pages are",
                [PAGE_SOURCE_FDINFO] = "which buffers an io_uring pinned, so where they are",
        };
        return (unsigned) source < ELEMENTSOF(lost) ? lost[source] : "?";
}

int page_tally_add(struct page_tally *t, const char *numa_maps, const char *maps, const struct cpuset *planned) {
        return page_tally_add_held(t, numa_maps, maps, planned, NULL);
}

static bool under(const char *path, const char *dir) {
        size_t n = strlen(dir);
        while (n > 1 && dir[n - 1] == '/')
                n--;
        return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/' || (n == 1 && dir[0] == '/'));
}

void page_tally_split(struct page_tally *t, char ***mapped_by, char *const *models) {
        memset(t->shared, 0, sizeof(t->shared));
        for (size_t i = 0; i < t->n_files; i++) {
                struct file_pages *f = &t->files[i];
                strv_free(f->mapped_by);
                f->mapped_by = mapped_by ? mapped_by[i] : NULL;
                f->model = false;
                for (size_t k = 0; models && models[k] && !f->model; k++)
                        f->model = under(f->path, models[k]);
                f->shared = f->exec && f->mapped_by && f->mapped_by[0] && !f->model;
                if (!f->shared)
                        continue;
                for (size_t k = 0; k < f->n_nodes; k++)
                        if (f->nodes[k].node >= 0 && f->nodes[k].node < NUMA_NODES_MAX)
                                add(&t->shared[f->nodes[k].node], f->nodes[k].pages);
        }
}

struct mappings_ctx {
        const struct cpuset *planned;
        struct mapping_pages *v;
        size_t n;
};

static void collect_mapping(const struct mapping *m, void *userdata) {
        struct mappings_ctx *x = userdata;
        struct mapping_pages mp = {.start = m->start, .page_kb = m->page_kb, .from_node = -1};
        unsigned off_nodes = 0;
        for (int k = 0; k <= m->max_node; k++) {
                mp.resident += m->count[k];
                if (m->count[k] && !cpuset_isset(x->planned, (unsigned) k)) {
                        mp.off_plan += m->count[k];
                        mp.from_node = k;
                        off_nodes++;
                }
        }
        if (off_nodes != 1)
                mp.from_node = -1;
        x->v = xgrow(x->v, x->n, sizeof(*x->v));
        x->v[x->n++] = mp;
}

int numa_maps_mappings(const char *numa_maps, const struct cpuset *planned, struct mapping_pages **ret, size_t *ret_n) {
        struct mappings_ctx x = {.planned = planned};
        int r = each_mapping(numa_maps, collect_mapping, &x);
        if (r < 0) {
                free(x.v);
                return r;
        }
        *ret = x.v;
        *ret_n = x.n;
        return 0;
}

void page_counts_text(struct strbuf *b, const uint64_t *v, const char *none) {
        bool first = true;
        for (int n = 0; n < NUMA_NODES_MAX; n++)
                if (v[n]) {
                        strbuf_printf(b, "%snode %d: %" PRIu64, first ? "" : ", ", n, v[n]);
                        first = false;
                }
        if (first)
                strbuf_append(b, none);
}
