/* SPDX-License-Identifier: MIT */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "basic/parse-util.h"
#include "basic/util.h"
#include "core/numa-maps.h"
#include "core/observed.h"
#include "core/placement.h"
#include "core/rank-locality.h"
#include "core/ranks.h"
#include "core/topology.h"
#include "core/verify-checks.h"

/* "N" wholly of digits, no sign, no leading zero but "0". */
static bool digits(const char *s, unsigned *ret) {
        unsigned long v = 0;
        if (!*s || (s[0] == '0' && s[1]))
                return false;
        for (; *s; s++) {
                if (*s < '0' || *s > '9' || v > 1000000)
                        return false;
                v = v * 10 + (unsigned long) (*s - '0');
        }
        *ret = (unsigned) v;
        return true;
}

/* "/sys/devices/pci0000:00/0000:00:02.0/resource0" or "..._wc": the function's address. */
static bool bar_path(const char *path, struct device_path *ret) {
        const char *base = strrchr(path, '/');
        if (!startswith(path, "/sys/") || !base || !startswith(base, "/resource"))
                return false;
        const char *n = base + strlen("/resource");
        size_t k = strspn(n, "0123456789");
        if (k == 0 || (n[k] && !streq(n + k, "_wc")))
                return false;
        const char *dir = base;
        while (dir > path && dir[-1] != '/')
                dir--;
        _cleanup_free_ char *name = xstrndup(dir, (size_t) (base - dir));
        struct pci_address a;
        if (pci_address_parse(name, false, &a) < 0)
                return false;
        pci_address_format(&a, ret->pci);
        return true;
}

enum device_map device_path_parse(const char *path, struct device_path *ret) {
        const char *rest;
        *ret = (struct device_path){0};
        if ((rest = startswith(path, "/dev/nvidia")) && digits(rest, &ret->number))
                return ret->kind = DEVICE_MAP_NVIDIA;
        if ((rest = startswith(path, "/dev/dri/")) && (startswith(rest, "renderD") || startswith(rest, "card")) &&
            !strchr(rest, '/') && strlen(rest) < sizeof(ret->name)) {
                unsigned n;
                if (digits(rest + strcspn(rest, "0123456789"), &n)) {
                        snprintf(ret->name, sizeof(ret->name), "%s", rest);
                        return ret->kind = DEVICE_MAP_DRM;
                }
        }
        if ((rest = startswith(path, "/dev/accel/")) && startswith(rest, "accel") && strlen(rest) < sizeof(ret->name) &&
            digits(rest + strlen("accel"), &ret->number)) {
                snprintf(ret->name, sizeof(ret->name), "%s", rest);
                return ret->kind = DEVICE_MAP_ACCEL;
        }
        if (bar_path(path, ret))
                return ret->kind = DEVICE_MAP_BAR;
        return DEVICE_MAP_NONE;
}

/* "START-END PERMS OFFSET MAJOR:MINOR INODE   PATH": five fields, then the path. Never past eol:
 * the line may be one of a text's. */
const char *maps_line_path(const char *line, const char *eol) {
        const char *p = line;
        for (int field = 0; field < 5; field++) {
                while (p < eol && *p == ' ')
                        p++;
                const char *start = p;
                while (p < eol && *p != ' ')
                        p++;
                if (p == start)
                        return NULL;
        }
        while (p < eol && *p == ' ')
                p++;
        return p < eol && *p == '/' ? p : NULL;
}

int nvidia_device_minor(const char *information, unsigned *ret) {
        for (const char *p = information; p && *p;) {
                const char *eol = strchrnul(p, '\n'), *v = startswith(p, "Device Minor:");
                if (v) {
                        _cleanup_free_ char *s = xstrndup(v, (size_t) (eol - v));
                        char *t = s + strspn(s, " \t");
                        t[strcspn(t, " \t\r")] = 0;
                        return digits(t, ret) ? 0 : -EINVAL;
                }
                p = *eol ? eol + 1 : eol;
        }
        return -EINVAL;
}

void rank_facts_done(struct rank_facts *f) {
        for (size_t i = 0; i < f->n; i++) {
                page_tally_done(f->v[i].pages);
                free(f->v[i].pages);
        }
        free(f->v);
        strv_free(f->several);
        *f = (struct rank_facts){0};
}

int rank_driven(const uint64_t *mapped, size_t n) {
        int best = -1;
        bool tie = false;
        for (size_t k = 0; k < n; k++) {
                if (!mapped[k])
                        continue;
                if (best < 0 || mapped[k] > mapped[best]) {
                        best = (int) k;
                        tie = false;
                } else if (mapped[k] == mapped[best])
                        tie = true;
        }
        return tie ? -1 : best;
}

void rank_anonymous(const struct rank_process *p, uint64_t *by_node) {
        for (int n = 0; n < NUMA_NODES_MAX; n++)
                by_node[n] = p->pages->anon[n] + p->pages->huge[n];
}

bool spread_even(const uint64_t *by_node, const struct cpuset *nodes) {
        uint64_t total = page_tally_sum(by_node), k = cpuset_count(nodes);
        if (k == 0 || total == 0)
                return true;
        CPUSET_FOREACH(n, nodes) {
                uint64_t v = n < NUMA_NODES_MAX ? by_node[n] : 0;
                unsigned __int128 off = v * k > total ? v * k - total : total - v * k;
                if (off * 100 > (unsigned __int128) total * 15)
                        return false;
        }
        return true;
}

/* ---- the check ---- */

/* The replica's CPUs on `node`: where its rank there may run. */
static struct cpuset node_cpus(const struct verify_facts *f, int node) {
        const struct node *n = f->topology ? topology_node(f->topology, node) : NULL;
        struct cpuset s = n ? n->cpus : (struct cpuset){0};
        cpuset_and(&s, &f->pl->cpus);
        return s;
}

/* The CPUs its threads may run on, all together; false when one runs off `allowed`. */
static bool threads_within(const struct task_facts *tf, pid_t pid, const struct cpuset *allowed, struct cpuset *ret) {
        bool ok = true;
        cpuset_clear(ret);
        for (size_t i = 0; tf && i < tf->n_tasks; i++)
                if (tf->tasks[i].pid == pid) {
                        cpuset_or(ret, &tf->tasks[i].cpus);
                        ok = ok && cpuset_is_subset(&tf->tasks[i].cpus, allowed);
                }
        return ok;
}

/* A kind of its pages on its node against min-local; `what` said in `d` when short. */
static bool kind_reaches(const uint64_t *by_node, int node, unsigned min_local_bp, const char *what, struct strbuf *d) {
        uint64_t total = page_tally_sum(by_node), on = node >= 0 && node < NUMA_NODES_MAX ? by_node[node] : 0;
        if (locality_reaches(on, total, min_local_bp))
                return true;
        strbuf_printf(d, "; %" PRIu64 " of its %" PRIu64 " %s on node %d (", on, total, what, node);
        page_counts_text(d, by_node, "none");
        strbuf_append(d, ")");
        return false;
}

/* One rank judged: true when it passes; what it is and where, in `d`. */
static bool judge_rank(const struct verify_facts *f, const struct rank_process *p, struct strbuf *d) {
        const struct placement_rank *r = &f->pl->ranks[p->rank];
        const struct page_tally *t = p->pages;
        const char *pci = p->pci;
        uint64_t *own = xmalloc0(NUMA_NODES_MAX * sizeof(*own));
        struct cpuset allowed = node_cpus(f, r->node), ran;
        struct strbuf why = {0};

        rank_anonymous(p, own);
        bool ok = kind_reaches(own, r->node, f->pl->min_local_bp, "anonymous pages", &why);
        ok = kind_reaches(t->locked, r->node, f->pl->min_local_bp, "locked pages", &why) && ok;
        ok = kind_reaches(t->pin_mapped, r->node, f->pl->min_local_bp, "pinned pages", &why) && ok;
        bool within = threads_within(f->tasks, p->pid, &allowed, &ran);
        _cleanup_free_ char *cpus = cpuset_format(&ran), *want = cpuset_format(&allowed),
                            *rank_cpus = cpuset_format(&r->cpus);
        if (!within)
                strbuf_printf(&why, "; its threads run on CPUs %s, not only node %d's %s", cpus, r->node, want);
        if (page_tally_unread_of(t, PAGE_SOURCE_NUMA_MAPS)) {
                strbuf_printf(&why, "; %s: %s", t->unread[0].path, t->unread[0].error);
                ok = false;
        }
        strbuf_printf(d, "%spid %d (%s) drives %s, rank %zu on node %d: ", d->len ? "; " : "", (int) p->pid, p->comm,
                      pci, p->rank, r->node);
        if (ok && within) {
                strbuf_printf(d, "%" PRIu64 " of its %" PRIu64 " anonymous pages there, its threads on CPUs %s",
                              r->node < NUMA_NODES_MAX && r->node >= 0 ? own[r->node] : 0, page_tally_sum(own), cpus);
        } else /* why.s starts with "; " */
                strbuf_printf(d, "%s: start it bound to its rank's CPUs, entry %zu of NUMAPLAN_RANK_CPUS (%s)",
                              why.s + 2, p->rank, rank_cpus);
        strbuf_done(&why);
        free(own);
        return ok && within;
}

/* A model meant to be spread over the ranks' nodes (prepare --spread, or an interleaved copy):
 * its pages by node, judged even. True when it is, or when nothing says where it is. */
static bool judge_spread(const struct verify_facts *f, struct strbuf *d) {
        const struct placement *pl = f->pl;
        struct cpuset nodes = ranks_nodes(pl);
        cpuset_and(&nodes, &pl->nodes);
        if (!f->pages || !pl->conf->models || cpuset_count(&nodes) < 2)
                return true;
        if (pl->copies)
                nodes = pl->nodes; /* the tmpfs interleaves over all of them */
        _cleanup_free_ char *copy = pl->copies && f->models_dir ? xasprintf("%s/%s/", f->models_dir, pl->copies) : NULL;
        uint64_t *by = xmalloc0(NUMA_NODES_MAX * sizeof(*by));
        for (size_t i = 0; i < f->pages->n_files; i++) {
                const struct file_pages *fp = &f->pages->files[i];
                if (copy ? !startswith(fp->path, copy) : !fp->model)
                        continue;
                for (size_t k = 0; k < fp->n_nodes; k++)
                        if (fp->nodes[k].node >= 0 && fp->nodes[k].node < NUMA_NODES_MAX)
                                by[fp->nodes[k].node] += fp->nodes[k].pages;
        }
        bool ok = spread_even(by, &nodes);
        _cleanup_free_ char *list = cpuset_format(&nodes);
        if (page_tally_sum(by)) {
                strbuf_printf(d, "%sthe model's mapped pages, meant to be spread over nodes %s: ", d->len ? "; " : "",
                              list);
                page_counts_text(d, by, "none");
                if (!ok)
                        strbuf_printf(
                                d, ", not even (each node within 15%% of its share): %s",
                                copy ? "its copy's tmpfs interleaves it; remove the copy so that the next start makes "
                                       "it again"
                                     : "restart the unit, whose numaplan prepare --spread spreads it at the start");
        }
        free(by);
        return ok;
}

void check_rank_locality(const struct verify_facts *f, struct check *c) {
        const struct placement *pl = f->pl;
        const struct rank_facts *rf = f->ranks;
        char pct[16];
        format_percent(pct, sizeof(pct), pl->min_local_bp);
        char *want = xasprintf("each rank's pages >= %s on its accelerator's node, its threads there", pct), *got;
        struct strbuf d = {0};
        unsigned bad = 0;

        check_done(c);
        if (pl->n_ranks == 0) {
                *c = (struct check){.ok = true, .want = want, .got = xstrdup("CPU-only: no rank")};
                return;
        }
        for (size_t i = 0; rf && i < rf->n; i++)
                bad += !judge_rank(f, &rf->v[i], &d);
        bool spread = judge_spread(f, &d);
        for (size_t i = 0; rf && rf->several && rf->several[i]; i++)
                strbuf_printf(&d, "%snot judged: %s maps several of its accelerators as much", d.len ? "; " : "",
                              rf->several[i]);
        size_t n = rf ? rf->n : 0;
        if (n == 0)
                got = xstrdup("no process maps its accelerators");
        else if (bad)
                got = xasprintf("%u of %zu rank%s off %s", bad, n, n == 1 ? "" : "s",
                                n == 1 ? "its node" : "their nodes");
        else
                got = xasprintf("%zu rank%s on %s node%s", n, n == 1 ? "" : "s", n == 1 ? "its" : "their",
                                n == 1 ? "" : "s");
        if (!spread) {
                char *g = xasprintf("%s, the model not spread", got);
                free(got);
                got = g;
        }
        if (n == 0)
                strbuf_printf(&d,
                              "%sno process of the unit maps one of its accelerators (/dev/nvidiaN, /dev/dri/, "
                              "/dev/accel/, a BAR's resource file): no rank to judge",
                              d.len ? "; " : "");
        *c = (struct check){.ok = bad == 0 && spread, .want = want, .got = got, .detail = strbuf_steal(&d)};
}
