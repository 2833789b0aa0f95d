/* SPDX-License-Identifier: MIT */
/* Rule 5's split of a node's cores by kind and L3 cache. Kinds come first: each replica gets its
 * even share of each kind, the most capable kind shared out first (a replica that waits on its
 * slowest thread is as fast as its slowest core). Then L3 caches: each replica in turn takes whole
 * caches that hold exactly its share, else one cache that holds it all (the fullest that can, to
 * keep the others whole), else whole caches and the rest where most of it fits. Without kinds and
 * caches, that is the cores in the order of the node's CPU list, as rule 5 has always split them. */

#include "basic/util.h"
#include "core/cpu-split.h"
#include "core/warnings.h"

#define explain placement_explain

/* The node's cores with their kinds and caches numbered densely from 0: kinds by rank (unknown
 * last), caches in the order of their first core. */
struct split {
        size_t n, n_kinds, n_real, n_domains; /* n_real: kinds known, before the unknown one */
        bool best_known;                      /* kind 0 is the node's most capable, of several */
        int *kind, *domain;
        size_t *cap; /* [domain * n_kinds + kind]: the node's cores there */
        size_t *left;
        int *owner;
};

static void split_done(struct split *s) {
        free(s->kind);
        free(s->domain);
        free(s->cap);
        free(s->left);
}

/* `by_kind` false: every core one kind, for the split by L3 alone. */
static void split_init(struct split *s, const struct split_core *cores, size_t n, bool by_kind, bool ranked) {
        *s = (struct split){.n = n, .kind = xmalloc0((n + 1) * sizeof(int)), .domain = xmalloc0((n + 1) * sizeof(int))};
        int max_kind = -1;
        bool unknown = false;
        for (size_t i = 0; i < n; i++) {
                max_kind = by_kind && cores[i].kind > max_kind ? cores[i].kind : max_kind;
                unknown = unknown || (by_kind && cores[i].kind < 0);
        }
        /* Dense kinds: the ranks present, in order, then unknown. */
        _cleanup_free_ int *dense = xmalloc0((size_t) (max_kind + 2) * sizeof(int));
        for (size_t i = 0; i < n; i++)
                if (by_kind && cores[i].kind >= 0)
                        dense[cores[i].kind] = 1;
        size_t real = 0;
        for (int k = 0; k <= max_kind; k++)
                dense[k] = dense[k] ? (int) real++ : -1;
        s->n_real = real;
        s->n_kinds = real + (unknown || real == 0);
        s->best_known = ranked && real >= 2;
        for (size_t i = 0; i < n; i++) {
                s->kind[i] = by_kind && cores[i].kind >= 0 ? dense[cores[i].kind] : (int) s->n_kinds - 1;
                s->domain[i] = -1;
                for (size_t j = 0; j < i && s->domain[i] < 0; j++)
                        if (cores[j].domain == cores[i].domain)
                                s->domain[i] = s->domain[j];
                if (s->domain[i] < 0)
                        s->domain[i] = (int) s->n_domains++;
        }
        s->cap = xmalloc0((s->n_domains * s->n_kinds + 1) * sizeof(size_t));
        for (size_t i = 0; i < n; i++)
                s->cap[(size_t) s->domain[i] * s->n_kinds + (size_t) s->kind[i]]++;
}

/* Each replica's share of each kind, q[r * n_kinds + k]: the most capable kind first, shared
 * evenly among the replicas that still need cores (the first ones one more where it does not
 * divide), each given no more than it needs; a best replica takes of kind 0 only. */
static void quotas(const struct split *s, const struct split_want *want, size_t nw, size_t *q) {
        _cleanup_free_ size_t *need = xmalloc0((nw + 1) * sizeof(size_t));
        for (size_t r = 0; r < nw; r++)
                need[r] = want[r].take;
        for (size_t k = 0; k < s->n_kinds; k++) {
                size_t avail = 0;
                for (size_t d = 0; d < s->n_domains; d++)
                        avail += s->cap[d * s->n_kinds + k];
                for (;;) {
                        size_t takers = 0;
                        for (size_t r = 0; r < nw; r++)
                                takers += need[r] > 0 && (k == 0 || !want[r].best || !s->best_known);
                        if (takers == 0 || avail == 0)
                                break;
                        size_t share = avail / takers;
                        for (size_t r = 0; r < nw && avail > 0; r++) {
                                if (need[r] == 0 || (k > 0 && want[r].best && s->best_known))
                                        continue;
                                size_t g = share == 0 ? 1 : share < need[r] ? share : need[r];
                                q[r * s->n_kinds + k] += g;
                                need[r] -= g;
                                avail -= g;
                        }
                }
        }
}

static bool untouched(const struct split *s, size_t d) {
        for (size_t k = 0; k < s->n_kinds; k++)
                if (s->left[d * s->n_kinds + k] != s->cap[d * s->n_kinds + k])
                        return false;
        return true;
}

/* Untouched caches from `d` on whose cores add up to `need` kind by kind, marked in `pick`. */
static bool exact(const struct split *s, size_t *need, size_t d, bool *pick) {
        bool done = true;
        for (size_t k = 0; k < s->n_kinds; k++)
                done = done && need[k] == 0;
        if (done || d == s->n_domains)
                return done;
        bool fits = untouched(s, d);
        for (size_t k = 0; k < s->n_kinds && fits; k++)
                fits = s->cap[d * s->n_kinds + k] <= need[k];
        if (fits) {
                for (size_t k = 0; k < s->n_kinds; k++)
                        need[k] -= s->cap[d * s->n_kinds + k];
                if (exact(s, need, d + 1, pick))
                        return (pick[d] = true);
                for (size_t k = 0; k < s->n_kinds; k++)
                        need[k] += s->cap[d * s->n_kinds + k];
        }
        return exact(s, need, d + 1, pick);
}

/* Replica r takes up to need[k] cores of each kind of cache d, lowest first. */
static void take(struct split *s, size_t d, int r, size_t *need) {
        for (size_t i = 0; i < s->n; i++) {
                size_t k = (size_t) s->kind[i];
                if (s->domain[i] != (int) d || s->owner[i] >= 0 || need[k] == 0)
                        continue;
                s->owner[i] = r;
                need[k]--;
                s->left[d * s->n_kinds + k]--;
        }
}

/* The cache that holds all of `need` with the fewest cores left (then the first); with `or_most`,
 * failing that the one that holds most of it. -1 for none. */
static int fitting(const struct split *s, const size_t *need, bool or_most) {
        int best = -1;
        size_t best_left = 0, best_part = 0;
        for (size_t d = 0; d < s->n_domains; d++) {
                size_t left = 0, part = 0;
                bool all = true;
                for (size_t k = 0; k < s->n_kinds; k++) {
                        size_t l = s->left[d * s->n_kinds + k];
                        left += l;
                        part += l < need[k] ? l : need[k];
                        all = all && l >= need[k];
                }
                if (or_most ? part > best_part : all && part > 0 && (best < 0 || left < best_left)) {
                        best = (int) d;
                        best_left = left;
                        best_part = part;
                }
        }
        return best;
}

static void place_one(struct split *s, int r, size_t *need) {
        _cleanup_free_ bool *pick = xmalloc0(s->n_domains + 1);
        _cleanup_free_ size_t *trial = xmalloc0((s->n_kinds + 1) * sizeof(size_t));
        memcpy(trial, need, s->n_kinds * sizeof(size_t));
        /* Past 16 caches a node, the search would cost more than the cache saves. */
        if (s->n_domains > 1 && s->n_domains <= 16 && exact(s, trial, 0, pick)) {
                for (size_t d = 0; d < s->n_domains; d++)
                        if (pick[d])
                                take(s, d, r, need);
                return;
        }
        int d = fitting(s, need, false);
        if (d < 0) /* whole caches it can fill, then the rest */
                for (size_t e = 0; e < s->n_domains; e++) {
                        bool fits = untouched(s, e);
                        for (size_t k = 0; k < s->n_kinds && fits; k++)
                                fits = s->cap[e * s->n_kinds + k] <= need[k];
                        if (fits)
                                take(s, e, r, need);
                }
        while ((d = fitting(s, need, false)) >= 0 || (d = fitting(s, need, true)) >= 0)
                take(s, (size_t) d, r, need);
}

static void run(struct split *s, const struct split_want *want, size_t nw, int *owner) {
        _cleanup_free_ size_t *q = xmalloc0((nw * s->n_kinds + 1) * sizeof(size_t));
        s->owner = owner;
        s->left = xmalloc0((s->n_domains * s->n_kinds + 1) * sizeof(size_t));
        memcpy(s->left, s->cap, s->n_domains * s->n_kinds * sizeof(size_t));
        for (size_t i = 0; i < s->n; i++)
                owner[i] = -1;
        quotas(s, want, nw, q);
        for (size_t r = 0; r < nw; r++)
                place_one(s, (int) r, &q[r * s->n_kinds]);
}

/* Which caches replica r has cores in, and which of them it holds whole. */
static void tally(const struct split *s, const int *owner, int r, struct split_result *res) {
        _cleanup_free_ size_t *mine = xmalloc0((s->n_domains + 1) * sizeof(size_t)),
                              *all = xmalloc0((s->n_domains + 1) * sizeof(size_t));
        bool least = true;
        *res = (struct split_result){0};
        for (size_t i = 0; i < s->n; i++) {
                all[s->domain[i]]++;
                if (owner[i] != r)
                        continue;
                mine[s->domain[i]]++;
                res->got++;
                res->best += s->best_known && s->kind[i] == 0;
                /* The least capable: the last ranked kind (not cores of no known kind). */
                least = least && s->best_known && (size_t) s->kind[i] == s->n_real - 1;
        }
        for (size_t d = 0; d < s->n_domains; d++) {
                res->domains += mine[d] > 0;
                res->whole += mine[d] > 0 && mine[d] == all[d];
        }
        res->of = (unsigned) s->n_domains;
        res->straddles = res->domains > 1 && res->whole < res->domains;
        res->least_only = least && res->got > 0;
}

void cpu_split(const struct split_input *in, int *owner, struct split_result *res) {
        const struct split_core *cores = in->cores;
        const struct split_want *want = in->want;
        size_t n = in->n, n_want = in->n_want;
        bool ranked = in->ranked;
        struct split s, by_l3;
        split_init(&s, cores, n, true, ranked);
        run(&s, want, n_want, owner);
        for (size_t r = 0; r < n_want; r++)
                tally(&s, owner, (int) r, &res[r]);
        if (s.n_domains > 1) {
                _cleanup_free_ int *other = xmalloc0((n + 1) * sizeof(int));
                _cleanup_free_ struct split_want *plain = xmalloc0((n_want + 1) * sizeof(*plain));
                for (size_t r = 0; r < n_want; r++)
                        plain[r] = (struct split_want){.take = want[r].take};
                split_init(&by_l3, cores, n, false, false);
                run(&by_l3, plain, n_want, other);
                for (size_t r = 0; r < n_want; r++) {
                        struct split_result alone;
                        tally(&by_l3, other, (int) r, &alone);
                        res[r].could_be_whole = res[r].straddles && !alone.straddles;
                }
                split_done(&by_l3);
        }
        split_done(&s);
}

/* ---- the planner's side ---- */

static bool kinds_ranked(const struct topology *t) {
        return t->kind_of && t->kinds.n > 1 && t->kinds.ranked_by != KINDS_UNRANKED;
}

static int kind_of(const struct topology *t, int cpu) {
        return t->kind_of && cpu <= t->max_cpu ? t->kind_of[cpu] : -1;
}

/* The rank of the most capable kind of `cpus`, when they hold ranked kinds of several; else -1. */
static int best_kind(const struct topology *t, const struct cpuset *cpus) {
        int best = -1, worst = -1;
        if (!kinds_ranked(t))
                return -1;
        CPUSET_FOREACH(c, cpus) {
                int k = kind_of(t, c);
                if (k < 0)
                        continue;
                best = best < 0 || k < best ? k : best;
                worst = k > worst ? k : worst;
        }
        return best != worst ? best : -1;
}

struct cpuset cpu_kinds_best(const struct topology *t, const struct cpuset *cpus) {
        struct cpuset s = *cpus;
        int b = best_kind(t, cpus);
        if (b >= 0)
                cpuset_and(&s, &t->kinds.v[b].cpus);
        return s;
}

void cpu_kinds_best_environment(struct strbuf *b, const struct topology *t, const struct cpuset *cpus) {
        struct cpuset best = cpu_kinds_best(t, cpus);
        _cleanup_free_ char *list = cpuset_format(&best);
        strbuf_join(b, "Environment=NUMAPLAN_BEST_CPUS=", list, "\n");
}

bool cpu_kinds_narrow(const struct topology *t, const struct config *c, const struct placement *pl,
                      const struct cpuset *cpus) {
        return replica_cpu_kinds(c, pl->conf) == CPU_KINDS_BEST && best_kind(t, cpus) >= 0;
}

/* The node's cores as numbered, each with its kind and L3 cache (its first thread's). */
static struct split_core *node_cores(const struct node_split *ns) {
        struct split_core *v = xmalloc0((ns->n_cores + 1) * sizeof(*v));
        _cleanup_free_ bool *seen = xmalloc0(ns->n_cores + 1);
        CPUSET_FOREACH(c, ns->cpus) {
                int k = ns->core_at[c];
                if (k < 0 || seen[k])
                        continue;
                seen[k] = true;
                v[k] = (struct split_core){kind_of(ns->t, c),
                                           ns->t->l3_of && c <= ns->t->max_cpu ? ns->t->l3_of[c] : -1};
        }
        return v;
}

size_t node_split_pool(const struct node_split *ns) {
        struct cpuset usable = *ns->cpus;
        cpuset_andnot(&usable, &ns->c->reserve_cpus);
        int b = best_kind(ns->t, &usable);
        for (size_t i = 0; b >= 0 && i < ns->p->n_replicas; i++)
                if (ns->on[i] && replica_cpu_kinds(ns->c, ns->p->replicas[i].conf) != CPU_KINDS_BEST)
                        b = -1;
        if (b < 0)
                return ns->n_cores;
        _cleanup_free_ struct split_core *cores = node_cores(ns);
        size_t n = 0;
        for (size_t k = 0; k < ns->n_cores; k++)
                n += cores[k].kind == b;
        return n;
}

/* What kinds and caches did to a replica's share, for plan -v: "" when the node has neither. */
static char *split_details(const struct node_split *ns, const struct split_result *res, const struct cpuset *mine,
                           bool best) {
        struct strbuf b = {0};
        struct cpuset top = cpu_kinds_best(ns->t, mine);
        _cleanup_free_ char *top_list = cpuset_format(&top);
        if (best)
                strbuf_printf(&b, "; cpu-kinds = best: the node's most capable kind only");
        else if (res->best > 0 || res->least_only)
                strbuf_printf(&b, "; its even share of each kind of core, %zu of the most capable (CPUs %s)", res->best,
                              res->best ? top_list : "none");
        if (res->of > 1 && res->domains == 1)
                strbuf_printf(&b, "; within one of its %u L3 caches%s", res->of, res->whole ? ", whole" : "");
        else if (res->of > 1)
                strbuf_printf(&b, "; in %u of its %u L3 caches, %u of them whole", res->domains, res->of, res->whole);
        return b.len ? strbuf_steal(&b) : xstrdup("");
}

static void split_warnings(const struct node_split *ns, const struct placement *pl, const struct split_result *res,
                           const char *list, const struct split_want *want) {
        if (res->could_be_whole)
                warnings_add(ns->w, WARNING_L3_STRADDLE, pl->name,
                             "replica %s: its cores on node %d (CPUs %s) span %u L3 caches, %u of them whole, where "
                             "a split by L3 cache alone keeps it within whole ones: %s comes first (rule 5)",
                             pl->name, ns->node, list, res->domains, res->whole,
                             want->best ? "cpu-kinds = best's most capable kind" : "each replica's share of each kind");
        if (res->least_only)
                warnings_add(ns->w, WARNING_LEAST_CAPABLE_KIND, pl->name,
                             "replica %s: its cores on node %d (CPUs %s) are all of the node's least capable kind: "
                             "the node has fewer of its more capable cores than replicas (rule 5)",
                             pl->name, ns->node, list);
        if (res->got < want->take)
                warnings_add(ns->w, WARNING_CPU_KINDS_SHORT, pl->name,
                             "replica %s: cpu-kinds = best gives it %zu cores of node %d's most capable kind, fewer "
                             "than the %zu it is due: set its engine's threads from NUMAPLAN_NCORES",
                             pl->name, res->got, ns->node, want->take);
}

/* What the split went by, for plan -v. */
static const char *split_by(const struct split_result *res, bool best) {
        bool kinds = best || res->best > 0 || res->least_only, l3 = res->of > 1;
        return kinds && l3 ? "by kind of core and L3 cache"
               : kinds     ? "by kind of core"
               : l3        ? "by L3 cache"
                           : "in the order of its CPU list";
}

/* One replica's part of a split: its index among the node's `users`, what it asked, what it got. */
struct split_part {
        int u;
        size_t users;
        const struct split_want *want;
        const struct split_result *res;
};

/* A replica's part, which is placement `pl`: its CPUs, and why. */
static int give(const struct node_split *ns, struct placement *pl, const int *owner, const struct split_part *part) {
        const struct split_result *res = part->res;
        const struct split_want *want = part->want;
        size_t users = part->users;
        int u = part->u;
        struct cpuset mine = {0}, numbers = {0};
        CPUSET_FOREACH(c, ns->cpus)
                if (ns->core_at[c] >= 0 && owner[ns->core_at[c]] == u) {
                        cpuset_set(&mine, (unsigned) c);
                        cpuset_set(&numbers, (unsigned) ns->core_at[c]);
                }
        if (res->got == 0)
                return error_at_set(ns->err, replica_cpu_kinds_where(ns->c, pl->conf),
                                    "replica %s: cpu-kinds = best leaves it no core of node %d's most capable kind, "
                                    "which the %zu replicas there share",
                                    pl->name, ns->node, users);
        cpuset_or(&pl->cpus, &mine);
        _cleanup_free_ char *list = cpuset_format(&mine), *range = cpuset_format(&numbers),
                            *more = split_details(ns, res, &mine, want->best && best_kind(ns->t, ns->cpus) >= 0);
        const char *cores = res->got == 1 ? "core" : "cores";
        char by[64];
        if (users > 1)
                snprintf(by, sizeof(by), "is shared by %zu replicas", users);
        else
                snprintf(by, sizeof(by), "is this replica's alone");
        /* Cores are counted from 0, as CPUs and nodes are: "cores 0-3", never "cores 1-4". */
        if (pl->conf->cores)
                explain(pl,
                        "node %d %s: %s %s of its %zu, counted from 0 (CPUs %s), as cpus = cores:%u asks%s (rule "
                        "5)",
                        ns->node, by, cores, range, ns->n_cores, list, pl->conf->cores, more);
        else
                explain(pl,
                        "node %d %s: its %zu physical cores split evenly %s, SMT "
                        "siblings together; this one takes %s %s, counted from 0 (CPUs %s)%s (rule 5)",
                        ns->node, by, ns->n_cores, split_by(res, want->best), cores, range, list, more);
        split_warnings(ns, pl, res, list, want);
        return 0;
}

int node_split_cores(const struct node_split *ns, size_t base, size_t extra) {
        size_t n = ns->p->n_replicas, users = 0, even_seen = 0;
        _cleanup_free_ struct split_core *cores = node_cores(ns);
        _cleanup_free_ struct split_want *want = xmalloc0((n + 1) * sizeof(*want));
        _cleanup_free_ size_t *which = xmalloc0((n + 1) * sizeof(size_t));
        _cleanup_free_ int *owner = xmalloc0((ns->n_cores + 1) * sizeof(int));
        _cleanup_free_ struct split_result *res = xmalloc0((n + 1) * sizeof(*res));

        /* Earlier replicas first, the first `extra` of the even ones with one core more. */
        for (size_t i = 0; i < n; i++) {
                const struct replica_conf *conf = ns->p->replicas[i].conf;
                if (!ns->on[i])
                        continue;
                want[users] = (struct split_want){conf->cores ? conf->cores : base + (even_seen++ < extra),
                                                  replica_cpu_kinds(ns->c, conf) == CPU_KINDS_BEST};
                which[users++] = i;
        }
        cpu_split(&(struct split_input){cores, ns->n_cores, want, users, kinds_ranked(ns->t)}, owner, res);
        for (size_t u = 0; u < users; u++) {
                struct split_part part = {(int) u, users, &want[u], &res[u]};
                int r = give(ns, &ns->p->replicas[which[u]], owner, &part);
                if (r < 0)
                        return r;
        }
        return 0;
}
