/* SPDX-License-Identifier: MIT */
/* The topology model without a host: PCI addresses and classes, the node fallback for
 * accelerators, and accelerator-nodes overrides. */

#include "core/config.h"
#include "core/pci.h"
#include "core/topology.h"
#include "tap.h"

static void test_addresses(void) {
        struct pci_address a;
        char buf[PCI_ADDRESS_MAX];

        ok(pci_address_parse("0000:3b:00.0", false, &a) == 0 && a.bus == 0x3b && a.func == 0, "a full address");
        ok(pci_address_parse("0000:3B:1f.7", false, &a) == 0 && a.bus == 0x3b && a.dev == 0x1f && a.func == 7,
           "upper case, the highest device and function");
        ok(pci_address_parse("10000:00:00.0", false, &a) == 0 && a.domain == 0x10000,
           "a 32-bit domain, as sysfs names it");
        pci_address_format(&a, buf);
        is_str(buf, "10000:00:00.0", "formatted as sysfs names it");
        ok(pci_address_parse("3b:00.0", true, &a) == 0 && a.domain == 0 && a.bus == 0x3b, "the short form is domain 0");
        ok(pci_address_parse("3b:00.0", false, &a) == -EINVAL, "but only where allowed (not for sysfs names)");
        ok(pci_address_parse("0:3b:00.0", true, &a) == -EINVAL, "a domain of fewer than four digits is refused");
        ok(pci_address_parse("0000:3b:00.8", true, &a) == -ERANGE, "a function past 7 is refused");
        ok(pci_address_parse("0000:3b:20.0", true, &a) == -ERANGE, "a device past 0x1f is refused");
        ok(pci_address_parse("0000:3b:00.a", true, &a) == -EINVAL, "a function is a decimal digit");
        ok(pci_address_parse("0000:3b:00.0 ", true, &a) == -EINVAL, "nothing may follow");
        ok(pci_address_parse("0000:+3:00.0", true, &a) == -EINVAL, "no signs");
        ok(pci_address_parse("0000:100:00.0", true, &a) == -EINVAL, "a bus has two digits at most");
        ok(pci_address_parse("", true, &a) == -EINVAL && pci_address_parse(":00.0", true, &a) == -EINVAL,
           "empty fields are refused");
        struct pci_address x = {0, 0x3b, 0, 0}, y = {0, 0x3b, 0, 1}, z = {1, 0, 0, 0};
        ok(pci_address_compare(&x, &y) < 0 && pci_address_compare(&y, &z) < 0 && pci_address_compare(&x, &x) == 0,
           "addresses sort by domain, bus, device, function");
}

static void test_modalias(void) {
        uint16_t v = 0, d = 0;
        uint32_t c = 0;

        ok(pci_modalias_parse("pci:v000010DEd00002330sv000010DEsd000016C1bc03sc02i00", &v, &d, &c) == 0 &&
                   v == 0x10de && d == 0x2330 && c == 0x030200,
           "a modalias gives vendor, device and class");
        ok(pci_modalias_parse("pci:v00008086d00000B25sv00008086sd00000000bc0Bsc40i01", &v, &d, &c) == 0 &&
                   c == 0x0b4001,
           "hex digits of either case, the programming interface last");
        ok(pci_modalias_parse("pci:v000010DEd00002330sv000010DEsd000016C1bc03sc02", &v, &d, &c) == -EINVAL,
           "a field missing is refused");
        ok(pci_modalias_parse("pci:v000010DEd0002330sv000010DEsd000016C1bc03sc02i00", &v, &d, &c) == -EINVAL,
           "a field of too few digits is refused");
        ok(pci_modalias_parse("pci:v000010DEd00002330sv000010DEsd000016C1bc03sc02i00x", &v, &d, &c) == -EINVAL,
           "nothing may follow");
        ok(pci_modalias_parse("pci:v000110DEd00002330sv000010DEsd000016C1bc03sc02i00", &v, &d, &c) == -EINVAL,
           "a vendor ID above 0xffff is refused");
        ok(pci_modalias_parse("usb:v1D6Bp0002d0606dc09dsc00dp01ic09isc00ip00in00", &v, &d, &c) == -EINVAL &&
                   pci_modalias_parse("", &v, &d, &c) == -EINVAL,
           "another bus's modalias, or none, is refused");
}

static void test_classes(void) {
        ok(pci_class_is_accelerator(0x030000), "VGA is listed");
        ok(pci_class_is_accelerator(0x030200), "3D controller is listed");
        ok(pci_class_is_accelerator(0x038000), "other display is listed");
        ok(pci_class_is_accelerator(0x120000), "processing accelerator is listed");
        ok(pci_class_is_accelerator(0x0b4000), "co-processor is listed");
        ok(!pci_class_is_accelerator(0x0b0000), "other processors are not");
        ok(!pci_class_is_accelerator(0x020000), "a NIC is not");
        ok(!pci_class_is_accelerator(0x010802), "NVMe is not");

        ok(!pci_is_compute(0x1a03, 0x030000), "ASPEED VGA is not compute");
        ok(!pci_is_compute(0x1234, 0x038000), "QEMU bochs-display is not compute");
        ok(!pci_is_compute(0x1af4, 0x030000), "virtio-gpu is not compute");
        ok(pci_is_compute(0x1a03, 0x030200), "a 3D controller is compute whoever made it");
        ok(pci_is_compute(0x10de, 0x030000), "an NVIDIA VGA is compute");
        ok(pci_is_compute(0x1002, 0x120000), "an AMD accelerator is compute");
}

static void test_node_fallback(void) {
        struct node nodes[2] = {{.id = 0}, {.id = 3}};
        struct topology t = {.nodes = nodes, .n_nodes = 2};
        struct pci_device a = {0};

        cpuset_parse_list("0-7", &nodes[0].cpus);
        cpuset_parse_list("8-15", &nodes[1].cpus);
        cpuset_parse_list("0-15", &t.online_cpus);

        pci_device_resolve_node(&a, 3, &t);
        ok(a.numa_node == 3 && a.numa_source == NUMA_SOURCE_NUMA_NODE, "numa_node >= 0 wins");

        struct cpuset local;
        a.local_cpus = &local;
        cpuset_parse_list("8-11", &local);
        pci_device_resolve_node(&a, -1, &t);
        ok(a.numa_node == 3 && a.numa_source == NUMA_SOURCE_LOCAL_CPUS, "-1: local CPUs inside node 3");

        cpuset_parse_list("0-15", &local);
        pci_device_resolve_node(&a, -1, &t);
        ok(a.numa_node == -1 && a.numa_source == NUMA_SOURCE_NONE, "-1: local CPUs across nodes say nothing");

        cpuset_parse_list("", &local);
        pci_device_resolve_node(&a, -1, &t);
        ok(a.numa_node == -1, "-1: an empty local mask says nothing");

        cpuset_parse_list("16-31", &local);
        pci_device_resolve_node(&a, -1, &t);
        ok(a.numa_node == -1, "-1: offline local CPUs say nothing");

        a.local_cpus = NULL;
        pci_device_resolve_node(&a, -1, &t);
        ok(a.numa_node == -1 && a.numa_source == NUMA_SOURCE_NONE, "-1 without local CPUs: none");

        /* Firmware that lists every CPU in every node: a mask inside both is no answer. */
        cpuset_parse_list("0-15", &nodes[1].cpus);
        a.local_cpus = &local;
        cpuset_parse_list("0-3", &local);
        pci_device_resolve_node(&a, -1, &t);
        ok(a.numa_node == -1, "-1: local CPUs inside two nodes say nothing");
}

static void test_overrides(void) {
        struct node nodes[2] = {{.id = 0}, {.id = 1}};
        struct pci_device accels[1] = {{.pci = "0000:3b:00.0", .numa_node = -1}};
        struct topology t = {.nodes = nodes, .n_nodes = 2, .accels = accels, .n_accels = 1};
        struct config *c = NULL;
        struct error_at err = {0};

        ok(config_parse_string("[numaplan]\naccelerator-nodes = 3b:00.0=1\n", "t.conf", &c, &err) == 0,
           "an override parses");
        ok(topology_apply_overrides(&t, c, &err) == 0 && accels[0].numa_node == 1 &&
                   accels[0].numa_source == NUMA_SOURCE_OVERRIDE,
           "accelerator-nodes sets the node, source override");
        config_free(c);
        ok(config_parse_string("[numaplan]\naccelerator-nodes = 3b:00.0=7\n", "t.conf", &c, &err) == 0 &&
                   topology_apply_overrides(&t, c, &err) < 0 && err.at.line == 2 && strstr(err.message, "names a node"),
           "a node the host lacks is an error at the key's line");
        error_at_done(&err);
        config_free(c);
        ok(config_parse_string("[numaplan]\naccelerator-nodes = 99:00.0=0\n", "t.conf", &c, &err) == 0 &&
                   topology_apply_overrides(&t, c, &err) < 0 && strstr(err.message, "this host has: 0000:3b:00.0"),
           "an unknown accelerator lists those found");
        error_at_done(&err);
        config_free(c);
}

/* Indexed or not, a node's id leads to its index, and an id no node has to -1. */
static void test_node_index(void) {
        struct node nodes[3] = {{.id = 0}, {.id = 3}, {.id = 7}};
        struct topology t = {.nodes = nodes, .n_nodes = 3};
        const int ids[] = {-1, 0, 1, 3, 6, 7, 8, 100000};
        int walked[ELEMENTSOF(ids)];

        for (size_t i = 0; i < ELEMENTSOF(ids); i++)
                walked[i] = topology_node_index(&t, ids[i]);
        ok(walked[1] == 0 && walked[3] == 1 && walked[5] == 2 && walked[0] == -1 && walked[2] == -1 &&
                   walked[4] == -1 && walked[6] == -1 && walked[7] == -1,
           "without an index: each node found by its id, other ids not");
        topology_index_nodes(&t);
        bool same = t.node_index && t.n_node_index == 8;
        for (size_t i = 0; i < ELEMENTSOF(ids); i++)
                same = same && topology_node_index(&t, ids[i]) == walked[i];
        ok(same, "indexed: the same answers, the index as long as the highest id");
        ok(topology_node(&t, 7) == &nodes[2] && !topology_node(&t, 5), "topology_node() through the index");
        free(t.node_index);

        struct topology none = {0};
        topology_index_nodes(&none);
        ok(!none.node_index && topology_node_index(&none, 0) == -1, "no node: no index, no node found");
}

int main(void) {
        test_addresses();
        test_modalias();
        test_classes();
        test_node_fallback();
        test_node_index();
        test_overrides();
        return done_testing();
}
