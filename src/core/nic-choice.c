/* SPDX-License-Identifier: MIT */
/* What the start makes of the adapters the plan chose (core/planner-nics.c): their names as udev
 * gave them by then, and the variables that tell the servers which to use. */

#include <string.h>

#include "basic/escape.h"
#include "basic/util.h"
#include "core/nic-choice.h"

const struct pci_device *nic_with_iface(const struct topology *t, const char *name) {
        for (size_t i = 0; i < t->n_nics; i++)
                for (size_t j = 0; j < t->nics[i].n_ifaces; j++)
                        if (streq(t->nics[i].ifaces[j].name, name))
                                return &t->nics[i];
        return NULL;
}

const char *nic_first_iface(const struct pci_device *n) {
        for (size_t j = 0; j < n->n_ifaces; j++)
                if (n->ifaces[j].named)
                        return n->ifaces[j].name;
        return n->n_ifaces ? n->ifaces[0].name : NULL;
}

static const struct pci_device *nic_at(const struct topology *t, const char *item) {
        struct pci_address a;
        if (pci_address_parse(item, false, &a) < 0)
                return NULL;
        for (size_t i = 0; i < t->n_nics; i++)
                if (pci_address_compare(&t->nics[i].address, &a) == 0)
                        return &t->nics[i];
        return NULL;
}

struct nic_pick *nic_resolve(const struct topology *t, char *const *items, size_t *ret_n, char **ret_problems) {
        struct nic_pick *v = xmalloc0((strv_length(items) + 1) * sizeof(*v));
        struct strbuf problems = {0};
        size_t n = 0;

        for (size_t k = 0; items[k]; k++) {
                struct pci_address a;
                bool pci = pci_address_parse(items[k], false, &a) >= 0;
                const struct pci_device *nic = pci ? nic_at(t, items[k]) : nic_with_iface(t, items[k]);
                _cleanup_free_ char *shown = name_escape(items[k]);
                if (!nic) {
                        strbuf_printf(&problems, "%s %s: no network adapter %s\n", pci ? "adapter" : "interface", shown,
                                      pci ? "at that address" : "has it");
                        continue;
                }
                /* In PCI-address order, as numaplan.conf(5) promises, whatever order nics = LIST names
                 * them in: every replica then hands its libraries the adapters alike. Stable: one
                 * adapter's interfaces keep the order given. */
                size_t j = n++;
                for (; j > 0 && pci_address_compare(&v[j - 1].nic->address, &nic->address) > 0; j--)
                        v[j] = v[j - 1];
                v[j] = (struct nic_pick){nic, pci ? nic_first_iface(nic) : items[k]};
        }
        *ret_n = n;
        *ret_problems = problems.len ? strbuf_steal(&problems) : NULL;
        return v;
}

bool nic_resolved(const struct topology *t, char *const *items) {
        for (size_t k = 0; items[k]; k++) {
                const struct pci_device *nic = nic_at(t, items[k]);
                if (!nic)
                        nic = nic_with_iface(t, items[k]);
                bool named = nic && nic->n_rdma > 0;
                for (size_t j = 0; nic && j < nic->n_ifaces; j++)
                        named = named || nic->ifaces[j].named;
                if (!named)
                        return false;
        }
        return true;
}

/* A name that can stand in a comma-separated list of an environment file. */
static bool listable(const char *s) {
        return *s && !strchr(s, ',') && !find_unsafe(s, NULL);
}

/* KEY="VALUE", the value as systemd's environment files read a double-quoted one. */
static void env_line(struct strbuf *b, const char *key, const char *value) {
        strbuf_printf(b, "%s=\"", key);
        for (const char *s = value; *s; s++) {
                if (strchr("\"\\`$", *s))
                        strbuf_putc(b, '\\');
                strbuf_putc(b, *s);
        }
        strbuf_append(b, "\"\n");
}

char *nic_environment(const struct nic_pick *picks, size_t n, char **ret_skipped) {
        struct strbuf names = {0}, hca = {0}, ucx = {0}, skipped = {0}, b = {0};

        for (size_t i = 0; i < n; i++) {
                const struct pci_device *nic = picks[i].nic;
                const char *iface = picks[i].iface && listable(picks[i].iface) ? picks[i].iface : NULL;
                if (picks[i].iface && !iface) {
                        _cleanup_free_ char *s = name_escape(picks[i].iface);
                        strbuf_printf(&skipped, "%sinterface %s of %s", skipped.len ? ", " : "", s, nic->pci);
                }
                if (iface)
                        strbuf_printf(&names, "%s%s", names.len ? "," : "", iface);
                bool ports = false, again = false;
                for (size_t j = 0; j < i; j++)
                        again = again || picks[j].nic == nic; /* its RDMA devices are listed once */
                for (size_t r = 0; r < nic->n_rdma && !again; r++) {
                        if (!listable(nic->rdma[r].name))
                                continue;
                        strbuf_printf(&hca, "%s%s", hca.len ? "," : "", nic->rdma[r].name);
                        for (size_t p = 0; p < nic->rdma[r].n_ports; p++, ports = true)
                                strbuf_printf(&ucx, "%s%s:%u", ucx.len ? "," : "", nic->rdma[r].name,
                                              nic->rdma[r].ports[p]);
                }
                if (!ports && iface && !(again && nic->n_rdma))
                        strbuf_printf(&ucx, "%s%s", ucx.len ? "," : "", iface);
        }
        strbuf_append(&b, "# The replica's network adapters, as numaplan prepare found them at its start.\n");
        if (names.len) {
                _cleanup_free_ char *exact = xasprintf("=%s", names.s);
                env_line(&b, "NUMAPLAN_NICS", names.s);
                env_line(&b, "NCCL_SOCKET_IFNAME", exact);
                env_line(&b, "GLOO_SOCKET_IFNAME", names.s);
        }
        if (hca.len) {
                _cleanup_free_ char *exact = xasprintf("=%s", hca.s);
                env_line(&b, "NCCL_IB_HCA", exact);
        }
        if (ucx.len)
                env_line(&b, "UCX_NET_DEVICES", ucx.s);
        *ret_skipped = skipped.len ? strbuf_steal(&skipped) : NULL;
        strbuf_done(&names);
        strbuf_done(&hca);
        strbuf_done(&ucx);
        return strbuf_steal(&b);
}
