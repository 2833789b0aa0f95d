/* SPDX-License-Identifier: MIT */
/* nics =: which network adapters each replica's servers use, chosen by the PCIe tree (pci_link(),
 * as show --matrix says it) and by node. Part of the plan (plan_compute() calls plan_nics()); the
 * start names what was chosen (core/nic-choice.h). */

#include <stdlib.h>

#include "basic/escape.h"
#include "basic/util.h"
#include "core/nic-choice.h"
#include "core/planner-nics.h"

/* A virtual function belongs to the VM it is passed to, not to the host's servers. */
static bool eligible(const struct pci_device *n) {
        return !n->virtual_function;
}

static const char *link_words(const char *link) {
        if (streq(link, "PIX"))
                return "the same PCIe switch";
        if (streq(link, "PXB"))
                return "the same PCIe root port, through several bridges";
        if (streq(link, "PHB"))
                return "the same PCIe host bridge";
        return "the same NUMA node, through another host bridge";
}

/* "0000:19:00.0 (ens1f0np0; RDMA mlx5_0)", names as the host gave them, escaped. */
static char *describe_nic(const struct pci_device *n, const char *iface) {
        struct strbuf b = {0};
        _cleanup_free_ char *shown = iface ? name_escape(iface) : NULL;

        strbuf_printf(&b, "%s (%s", n->pci, shown ? shown : "no interface yet");
        for (size_t i = 0; i < n->n_rdma; i++) {
                _cleanup_free_ char *r = name_escape(n->rdma[i].name);
                strbuf_printf(&b, "%s%s", i ? ", " : "; RDMA ", r);
        }
        strbuf_append(&b, ")");
        return strbuf_steal(&b);
}

static void add_nic(struct placement *pl, size_t nic, const char *link, const char *named) {
        size_t j = pl->n_nics;
        pl->nics = xrealloc(pl->nics, (j + 1) * sizeof(*pl->nics));
        for (; j > 0 && pl->nics[j - 1].nic > nic; j--)
                pl->nics[j] = pl->nics[j - 1];
        pl->nics[j] = (struct placement_nic){nic, link, named};
        pl->n_nics++;
}

/* nics = auto for a replica with accelerators: for each accelerator, the adapters at the nearest
 * rank it has (PIX, PXB, PHB, then NODE), never SYS; an adapter near two keeps its nearer link. */
static void choose_near(const struct topology *t, struct placement *pl) {
        int *rank = xmalloc0((t->n_nics + 1) * sizeof(int));
        const struct pci_device **to = xmalloc0((t->n_nics + 1) * sizeof(*to));

        for (size_t i = 0; i < t->n_nics; i++)
                rank[i] = -1;
        for (size_t j = 0; j < pl->n_accels; j++) {
                const struct pci_device *a = &t->accels[pl->accels[j]];
                int best = -1;
                for (size_t i = 0; i < t->n_nics; i++) {
                        int r = eligible(&t->nics[i]) ? pci_link_rank(pci_link(a, &t->nics[i])) : -1;
                        if (r >= 0 && r <= 3 && (best < 0 || r < best))
                                best = r;
                }
                for (size_t i = 0; best >= 0 && i < t->n_nics; i++)
                        if (eligible(&t->nics[i]) && pci_link_rank(pci_link(a, &t->nics[i])) == best &&
                            (rank[i] < 0 || best < rank[i])) {
                                rank[i] = best;
                                to[i] = a;
                        }
        }
        for (size_t i = 0; i < t->n_nics; i++) {
                if (rank[i] < 0)
                        continue;
                const char *link = pci_link(to[i], &t->nics[i]);
                add_nic(pl, i, link, NULL);
                _cleanup_free_ char *d = describe_nic(&t->nics[i], t->nics[i].iface);
                placement_explain(pl, "network adapter %s: %s to accelerator %s, %s: the nearest it has (nics = auto)",
                                  d, link, to[i]->pci, link_words(link));
        }
        free(rank);
        free(to);
}

/* nics = auto for a CPU-only replica: the adapters of its home nodes. */
static void choose_home(const struct topology *t, struct placement *pl) {
        for (size_t i = 0; i < t->n_nics; i++) {
                const struct pci_device *n = &t->nics[i];
                if (!eligible(n) || n->numa_node < 0 || !cpuset_isset(&pl->home, (unsigned) n->numa_node))
                        continue;
                add_nic(pl, i, "NODE", NULL);
                _cleanup_free_ char *d = describe_nic(n, n->iface);
                placement_explain(pl, "network adapter %s: on node %d, a CPU-only replica's home (nics = auto)", d,
                                  n->numa_node);
        }
}

static bool accels_have_node(const struct topology *t, const struct placement *pl) {
        for (size_t j = 0; j < pl->n_accels; j++)
                if (t->accels[pl->accels[j]].numa_node >= 0)
                        return true;
        return false;
}

/* The adapter nearest the replica's home, by node distance (then PCI order), among those with a
 * node; NULL when there is none. */
static const struct pci_device *nearest_nic(const struct topology *t, const struct placement *pl, int *ret_d) {
        const struct pci_device *best = NULL;
        int best_d = 0;

        for (size_t i = 0; i < t->n_nics; i++) {
                const struct pci_device *n = &t->nics[i];
                if (!eligible(n) || n->numa_node < 0)
                        continue;
                int d = -1;
                CPUSET_FOREACH(h, &pl->home) {
                        int dd = topology_distance(t, h, n->numa_node);
                        d = d < 0 || dd < d ? dd : d;
                }
                if (d >= 0 && (!best || d < best_d)) {
                        best = n;
                        best_d = d;
                }
        }
        *ret_d = best_d;
        return best;
}

/* nic-remote: no adapter of the host sits on the replica's home nodes. */
static void check_remote(const struct topology *t, const struct placement *pl, struct warnings *w) {
        int d;
        for (size_t i = 0; i < t->n_nics; i++)
                if (eligible(&t->nics[i]) && t->nics[i].numa_node >= 0 &&
                    cpuset_isset(&pl->home, (unsigned) t->nics[i].numa_node))
                        return;
        const struct pci_device *n = nearest_nic(t, pl, &d);
        if (!n)
                return; /* no adapter with a node: nothing nearer to name */
        _cleanup_free_ char *home = cpuset_format(&pl->home), *desc = describe_nic(n, n->iface);
        warnings_add(w, WARNING_NIC_REMOTE, pl->name,
                     "replica %s has no network adapter on node%s %s: the nearest is %s on node %d (distance %d), "
                     "across the interconnect between nodes; %s",
                     pl->name, cpuset_count(&pl->home) > 1 ? "s" : "", *home ? home : "-", desc, n->numa_node, d,
                     pl->nics_mode == NICS_AUTO ? "nics = auto takes none from another node: name its interface in "
                                                  "nics = to use it all the same"
                                                : "the adapters its nics = names are reached across it");
}

/* Every adapter has at least one interface and each of them is named (udev has run): a name
 * found on none of them is a mistake, not an interface yet to come. */
static bool all_named(const struct topology *t) {
        for (size_t i = 0; i < t->n_nics; i++) {
                if (t->nics[i].n_ifaces == 0)
                        return false;
                for (size_t j = 0; j < t->nics[i].n_ifaces; j++)
                        if (!t->nics[i].ifaces[j].named)
                                return false;
        }
        return true;
}

static char *list_ifaces(const struct topology *t) {
        struct strbuf b = {0};
        for (size_t i = 0; i < t->n_nics; i++)
                for (size_t j = 0; j < t->nics[i].n_ifaces; j++) {
                        _cleanup_free_ char *s = name_escape(t->nics[i].ifaces[j].name);
                        strbuf_printf(&b, "%s%s", b.len ? ", " : "", s);
                }
        if (!b.len)
                strbuf_append(&b, "none");
        return strbuf_steal(&b);
}

/* nics = LIST: the adapter of each interface named. */
static int choose_listed(const struct topology *t, const struct config *c, struct placement *pl,
                         const struct nics_choice *nc, struct error_at *err) {
        for (size_t k = 0; k < nc->n; k++) {
                const char *name = nc->names[k];
                const struct pci_device *n = nic_with_iface(t, name);
                if (!n && all_named(t)) {
                        _cleanup_free_ char *have = list_ifaces(t);
                        return error_at_set(err, replica_nics_where(c, pl->conf),
                                            "replica %s: nics names %s, which no network adapter of this host has; "
                                            "their interfaces: %s",
                                            pl->name, name, have);
                }
                if (!n) {
                        placement_explain(pl,
                                          "interface %s: no network adapter has it now, and some have no interface "
                                          "named yet (udev names them at boot, after numaplan ran): numaplan "
                                          "prepare looks for it when the replica starts (nics =)",
                                          name);
                        continue;
                }
                bool local = n->numa_node >= 0 && cpuset_isset(&pl->home, (unsigned) n->numa_node);
                add_nic(pl, (size_t) (n - t->nics), NULL, name);
                _cleanup_free_ char *d = describe_nic(n, name);
                if (n->numa_node < 0)
                        placement_explain(pl, "network adapter %s: named in nics =; its node is unknown", d);
                else
                        placement_explain(pl, "network adapter %s: named in nics =, on node %d, %s", d, n->numa_node,
                                          local ? "the replica's" : "not the replica's");
        }
        return 0;
}

int plan_nics(const struct topology *t, const struct config *c, struct plan *p, struct warnings *w,
              struct error_at *err) {
        for (size_t i = 0; i < p->n_replicas; i++) {
                struct placement *pl = &p->replicas[i];
                const struct nics_choice *nc = replica_nics(c, pl->conf);
                pl->nics_mode = nc->mode;
                if (nc->mode == NICS_NONE) {
                        placement_explain(pl, "nics = none: no network adapter is named to its servers");
                        continue;
                }
                if (nc->mode == NICS_LIST) {
                        pl->nic_names = nc->names;
                        int r = choose_listed(t, c, pl, nc, err);
                        if (r < 0)
                                return r;
                } else if (accels_have_node(t, pl))
                        choose_near(t, pl);
                else
                        choose_home(t, pl);
                if (nc->mode == NICS_AUTO && pl->n_nics == 0 && t->n_nics > 0)
                        placement_explain(pl, "no network adapter near its accelerators or on its node: none from "
                                              "another node (nics = auto)");
                check_remote(t, pl, w);
        }
        return 0;
}
