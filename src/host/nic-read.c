/* SPDX-License-Identifier: MIT */
/* A network adapter's interfaces and RDMA devices. An interface lives below its PCI function's
 * net/, or, for a virtio adapter, below the virtio device in between (virtio3/net/enp34s0). An
 * RDMA device of a PCI function (mlx5_0) links to it (`device`); a soft-RoCE device (rxe0) has no
 * PCI device and says which interface it sits on. */

#include <dirent.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "basic/util.h"
#include "core/pci.h"
#include "core/topology.h"
#include "host/nic-read.h"
#include "host/root.h"

#define INFINIBAND "sys/class/infiniband"

/* Whether udev has given the interface its name: its record in udev's database, by the
 * interface's index, is there. At boot the kernel's name comes first (eth0), and udev renames
 * it later. A capture's names are final: it was taken on a running host. */
static bool iface_named(struct root *root, const char *dir) {
        if (!root_is_live(root))
                return true;
        _cleanup_free_ char *p = xasprintf("%s/ifindex", dir), *s = NULL;
        uint64_t index;
        if (root_read_string(root, p, &s) < 0 || parse_uint64(s, 10, &index) < 0)
                return false;
        _cleanup_free_ char *record = xasprintf("run/udev/data/n%" PRIu64, index);
        struct stat st;
        return root_lstat(root, record, &st, NULL) >= 0;
}

/* The interfaces listed in `dir` (a net/ directory), added to the adapter's. */
static void add_ifaces(struct root *root, struct pci_device *a, const char *dir) {
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;

        if (root_opendir(root, dir, &d) < 0)
                return;
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.')
                        continue;
                _cleanup_free_ char *sub = xasprintf("%s/%s", dir, de->d_name);
                a->ifaces = xrealloc(a->ifaces, (a->n_ifaces + 1) * sizeof(*a->ifaces));
                a->ifaces[a->n_ifaces++] = (struct net_iface){xstrdup(de->d_name), iface_named(root, sub)};
                root_record_dir(root, sub); /* so that a snapshot keeps the name */
        }
}

static int compare_iface(const void *x, const void *y) {
        return strcmp(((const struct net_iface *) x)->name, ((const struct net_iface *) y)->name);
}

/* net/, and each virtioN/net/ below the function. */
static void read_ifaces(struct root *root, struct pci_device *a) {
        _cleanup_free_ char *net = xasprintf("%s/net", a->path);
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;

        add_ifaces(root, a, net);
        if (root_opendir(root, a->path, &d) >= 0)
                while ((de = readdir(d)))
                        if (startswith(de->d_name, "virtio") && de->d_name[6] >= '0' && de->d_name[6] <= '9') {
                                _cleanup_free_ char *v = xasprintf("%s/%s/net", a->path, de->d_name);
                                add_ifaces(root, a, v);
                        }
        if (a->n_ifaces > 1)
                qsort(a->ifaces, a->n_ifaces, sizeof(*a->ifaces), compare_iface);
        free(a->iface);
        a->iface = a->n_ifaces ? xstrdup(a->ifaces[0].name) : NULL;
}

/* The adapter whose PCI address ends the link (mlx5_0/device -> ../../../0000:19:00.0). */
static struct pci_device *by_link(struct pci_device *nics, size_t n, const char *link) {
        const char *base = strrchr(link, '/');
        struct pci_address addr;

        if (pci_address_parse(base ? base + 1 : link, false, &addr) < 0)
                return NULL;
        for (size_t i = 0; i < n; i++)
                if (pci_address_compare(&nics[i].address, &addr) == 0)
                        return &nics[i];
        return NULL;
}

static struct pci_device *by_iface(struct pci_device *nics, size_t n, const char *name) {
        for (size_t i = 0; i < n; i++)
                for (size_t j = 0; j < nics[i].n_ifaces; j++)
                        if (streq(nics[i].ifaces[j].name, name))
                                return &nics[i];
        return NULL;
}

/* The RDMA device's port numbers, ascending. */
static void read_ports(struct root *root, const char *name, struct rdma_dev *ret) {
        _cleanup_free_ char *dir = xasprintf(INFINIBAND "/%s/ports", name);
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;

        if (root_opendir(root, dir, &d) < 0)
                return;
        while ((de = readdir(d))) {
                uint64_t port;
                if (de->d_name[0] == '.' || parse_uint64(de->d_name, 10, &port) < 0 || port > 255)
                        continue;
                size_t j = ret->n_ports;
                ret->ports = xrealloc(ret->ports, (j + 1) * sizeof(unsigned));
                for (; j > 0 && ret->ports[j - 1] > port; j--)
                        ret->ports[j] = ret->ports[j - 1];
                ret->ports[j] = (unsigned) port;
                ret->n_ports++;
        }
}

/* The adapter an RDMA device belongs to: its `device` link's, else that of the interface it sits
 * on (rxe's `parent`, else its first port's first network device). */
static struct pci_device *rdma_owner(struct root *root, struct pci_device *nics, size_t n, const char *name,
                                     const struct rdma_dev *dev, bool *ret_via_netdev) {
        _cleanup_free_ char *device = xasprintf(INFINIBAND "/%s/device", name), *link = NULL;
        struct stat st;

        *ret_via_netdev = false;
        if (root_lstat(root, device, &st, &link) >= 0 && link) {
                root_record_link(root, device, link);
                return by_link(nics, n, link);
        }
        *ret_via_netdev = true;
        _cleanup_free_ char *parent = xasprintf(INFINIBAND "/%s/parent", name), *netdev = NULL;
        if (root_read_string(root, parent, &netdev) >= 0 && *netdev)
                return by_iface(nics, n, netdev);
        if (dev->n_ports == 0)
                return NULL;
        _cleanup_free_ char *ndev = xasprintf(INFINIBAND "/%s/ports/%u/gid_attrs/ndevs/0", name, dev->ports[0]);
        free(netdev);
        netdev = NULL;
        return root_read_string(root, ndev, &netdev) >= 0 && *netdev ? by_iface(nics, n, netdev) : NULL;
}

static int compare_rdma(const void *x, const void *y) {
        return strcmp(((const struct rdma_dev *) x)->name, ((const struct rdma_dev *) y)->name);
}

static void read_rdma(struct root *root, struct pci_device *nics, size_t n) {
        _cleanup_closedir_ DIR *d = NULL;
        struct dirent *de;

        if (root_opendir(root, INFINIBAND, &d) < 0)
                return; /* no RDMA device, or none of the kernel's RDMA core */
        while ((de = readdir(d))) {
                struct rdma_dev dev = {0};
                bool via;
                if (de->d_name[0] == '.')
                        continue;
                read_ports(root, de->d_name, &dev);
                struct pci_device *a = rdma_owner(root, nics, n, de->d_name, &dev, &via);
                if (!a) {
                        free(dev.ports);
                        continue;
                }
                dev.name = xstrdup(de->d_name);
                dev.via_netdev = via;
                a->rdma = xrealloc(a->rdma, (a->n_rdma + 1) * sizeof(*a->rdma));
                a->rdma[a->n_rdma++] = dev;
        }
        for (size_t i = 0; i < n; i++)
                if (nics[i].n_rdma > 1)
                        qsort(nics[i].rdma, nics[i].n_rdma, sizeof(*nics[i].rdma), compare_rdma);
}

void nic_read_details(struct root *root, struct pci_device *nics, size_t n) {
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *physfn = xasprintf("%s/physfn", nics[i].path);
                struct stat st;
                nics[i].virtual_function = root_lstat(root, physfn, &st, NULL) >= 0;
                read_ifaces(root, &nics[i]);
        }
        if (n > 0)
                read_rdma(root, nics, n);
}
