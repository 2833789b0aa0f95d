/* SPDX-License-Identifier: MIT */
/* What the start makes of a replica's network adapters (core/nic-choice.h), on adapters made
 * here: resolving the drop-in's items, and the variables written for the servers, with their
 * formats, their quoting, and names that cannot stand in a list. The choice itself is the
 * planner's, tested on the fixture hosts (tests/host/test-planner.c). */

#include "basic/util.h"
#include "core/config.h"
#include "core/nic-choice.h"
#include "core/pci.h"
#include "core/topology.h"
#include "tap.h"

static unsigned port1[] = {1}, ports12[] = {1, 2};

static void adapter(struct pci_device *a, const char *pci, struct net_iface *ifaces, size_t n_ifaces,
                    struct rdma_dev *rdma, size_t n_rdma) {
        *a = (struct pci_device){.kind = PCI_NIC,
                                 .numa_node = 0,
                                 .ifaces = ifaces,
                                 .n_ifaces = n_ifaces,
                                 .rdma = rdma,
                                 .n_rdma = n_rdma};
        pci_address_parse(pci, false, &a->address);
        pci_address_format(&a->address, a->pci);
}

/* The environment file for the items, as prepare writes it. */
static char *env_for(const struct topology *t, char **items, char **ret_problems, char **ret_skipped) {
        size_t n;
        _cleanup_free_ struct nic_pick *picks = nic_resolve(t, items, &n, ret_problems);
        return nic_environment(picks, n, ret_skipped);
}

int main(void) {
        struct net_iface cx_if[] = {{"ens1f0np0", true}}, ib_if[] = {{"ib0", true}, {"ib0.8001", true}},
                         virtio_if[] = {{"eth0", false}, {"ens1", true}}, odd_if[] = {{"we\"ird$`\\", true}},
                         comma_if[] = {{"a,b", true}};
        struct rdma_dev cx_rdma[] = {{"mlx5_0", port1, 1, false}}, ib_rdma[] = {{"mlx5_2", ports12, 2, false}},
                        rxe[] = {{"rxe0", port1, 1, true}};
        struct pci_device nics[5];
        adapter(&nics[0], "0000:14:00.0", cx_if, 1, cx_rdma, 1);
        adapter(&nics[1], "0000:42:00.0", virtio_if, 2, rxe, 1);
        adapter(&nics[2], "0000:56:00.0", ib_if, 2, ib_rdma, 1);
        adapter(&nics[3], "0000:60:00.0", odd_if, 1, NULL, 0);
        adapter(&nics[4], "0000:61:00.0", comma_if, 1, NULL, 0);
        struct topology t = {.nics = nics, .n_nics = 5};
        char *problems, *skipped;

        char *one[] = {"0000:14:00.0", NULL};
        _cleanup_free_ char *e = env_for(&t, one, &problems, &skipped);
        is_str(e,
               "# The replica's network adapters, as numaplan prepare found them at its start.\n"
               "NUMAPLAN_NICS=\"ens1f0np0\"\n"
               "NCCL_SOCKET_IFNAME=\"=ens1f0np0\"\n"
               "GLOO_SOCKET_IFNAME=\"ens1f0np0\"\n"
               "NCCL_IB_HCA=\"=mlx5_0\"\n"
               "UCX_NET_DEVICES=\"mlx5_0:1\"\n",
               "an adapter with an RDMA device: every variable; exact names after '=' for NCCL, DEVICE:PORT for UCX");
        ok(!problems && !skipped, "nothing left out");

        char *two[] = {"0000:42:00.0", "ib0.8001", "ib0", NULL};
        _cleanup_free_ char *e2 = env_for(&t, two, &problems, &skipped);
        ok(strstr(e2, "NUMAPLAN_NICS=\"ens1,ib0.8001,ib0\"\n") != NULL,
           "by address, the first interface udev named (not the kernel's eth0); by name, the one named");
        ok(strstr(e2, "NCCL_IB_HCA=\"=rxe0,mlx5_2\"\n") != NULL,
           "soft-RoCE on the virtio adapter; an adapter's RDMA device once");
        ok(strstr(e2, "UCX_NET_DEVICES=\"rxe0:1,mlx5_2:1,mlx5_2:2\"\n") != NULL, "every port of each, once");
        free(problems);
        free(skipped);

        /* nics = ib0, ens1f0np0: the list's order is not the adapters' */
        char *reversed[] = {"ib0", "ens1", "ens1f0np0", NULL};
        _cleanup_free_ char *er = env_for(&t, reversed, &problems, &skipped);
        ok(strstr(er, "NUMAPLAN_NICS=\"ens1f0np0,ens1,ib0\"\n") &&
                   strstr(er, "NCCL_SOCKET_IFNAME=\"=ens1f0np0,ens1,ib0\"\n"),
           "the interfaces in PCI-address order, not the list's");
        ok(strstr(er, "NCCL_IB_HCA=\"=mlx5_0,rxe0,mlx5_2\"\n") &&
                   strstr(er, "UCX_NET_DEVICES=\"mlx5_0:1,rxe0:1,mlx5_2:1,mlx5_2:2\"\n"),
           "and so NCCL's and UCX's devices");
        free(problems);
        free(skipped);
        char *one_adapter[] = {"ib0.8001", "ens1f0np0", "ib0", NULL};
        _cleanup_free_ char *eo = env_for(&t, one_adapter, &problems, &skipped);
        ok(strstr(eo, "NUMAPLAN_NICS=\"ens1f0np0,ib0.8001,ib0\"\n") != NULL,
           "one adapter's interfaces keep the list's order among themselves");
        free(problems);
        free(skipped);

        char *plain[] = {"0000:60:00.0", "0000:61:00.0", "nope0", "0000:99:00.0", NULL};
        _cleanup_free_ char *e3 = env_for(&t, plain, &problems, &skipped);
        ok(strstr(e3, "NUMAPLAN_NICS=\"we\\\"ird\\$\\`\\\\\"\n") != NULL,
           "quotes, '$', '`' and '\\' escaped as systemd's environment files read them");
        ok(strstr(e3, "UCX_NET_DEVICES=\"we\\\"ird\\$\\`\\\\\"\n") != NULL,
           "an adapter without RDMA: its interface for UCX");
        ok(!strstr(e3, "NCCL_IB_HCA"), "no NCCL_IB_HCA without an RDMA device");
        ok(!strstr(e3, "a,b"), "a name with a comma is left out of the lists");
        ok(skipped && strstr(skipped, "interface a,b of 0000:61:00.0"), "and said");
        ok(problems && strstr(problems, "interface nope0: no network adapter has it") &&
                   strstr(problems, "adapter 0000:99:00.0: no network adapter at that address"),
           "what does not resolve is said, one a line");
        free(problems);
        free(skipped);

        char *none[] = {NULL};
        _cleanup_free_ char *e4 = env_for(&t, none, &problems, &skipped);
        is_str(e4, "# The replica's network adapters, as numaplan prepare found them at its start.\n",
               "no adapter: the file holds no variable, so a stale one goes");

        char *unnamed[] = {"0000:42:00.0", NULL}, *named[] = {"0000:14:00.0", "ib0", NULL};
        ok(nic_resolved(&t, named), "adapters with named interfaces are resolved");
        virtio_if[1].named = false;
        rxe[0].name = "rxe0";
        nics[1].n_rdma = 0;
        ok(!nic_resolved(&t, unnamed), "an adapter whose interfaces udev has not named yet is not");
        nics[1].n_rdma = 1;
        ok(nic_resolved(&t, unnamed), "one with an RDMA device is: there is a name to give");

        struct config *c = NULL;
        struct error_at err = {0};
        ok(config_parse_string("[numaplan]\nnics = ens1, ib0\n", "t.conf", &c, &err) == 0 &&
                   c->nics.mode == NICS_LIST && c->nics.n == 2 && streq(c->nics.names[1], "ib0"),
           "nics = LIST in [numaplan]");
        config_free(c);
        static const char *const bad[] = {"nics = ens1:0\n", "nics = auto, ens1\n", "nics = a, a\n",
                                          "nics = abcdefghijklmnop\n", "nics = ,\n"};
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                _cleanup_free_ char *text = xasprintf("[replica r]\nunit = r.service\n%s", bad[i]);
                c = NULL;
                ok(config_parse_string(text, "t.conf", &c, &err) < 0 && err.at.line == 3, "refused at its line: %.*s",
                   (int) strlen(bad[i]) - 1, bad[i]);
                if (err.message)
                        printf("#   %s\n", err.message);
                error_at_done(&err);
                config_free(c);
        }
        return done_testing();
}
