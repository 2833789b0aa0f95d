/* SPDX-License-Identifier: MIT */
#include "core/sysfs-parse.h"
#include "tap.h"
#include "basic/util.h"

/* A node meminfo as Linux 6.x writes it (trimmed). */
static const char node_meminfo[] = "Node 1 MemTotal:       131912124 kB\n"
                                   "Node 1 MemFree:        120117504 kB\n"
                                   "Node 1 Active(anon):       12345 kB\n"
                                   "Node 1 HugePages_Total:     0\n"
                                   "Node 1 HugePages_Free:      0\n";

static const char proc_meminfo[] = "MemTotal:       16384256 kB\n"
                                   "MemFree:         1234567 kB\n"
                                   "HugePages_Total:       0\n"
                                   "Hugepagesize:       2048 kB\n"
                                   "Hugetlb:               0 kB\n";

int main(void) {
        uint64_t v;

        ok(meminfo_get(node_meminfo, "MemTotal", &v) == 0 && v == UINT64_C(131912124) * 1024, "node MemTotal in bytes");
        ok(meminfo_get(node_meminfo, "MemFree", &v) == 0 && v == UINT64_C(120117504) * 1024, "node MemFree");
        ok(meminfo_get(node_meminfo, "HugePages_Total", &v) == 0 && v == 0, "bare counts are not scaled");
        ok(meminfo_get(node_meminfo, "Active(anon)", &v) == 0 && v == 12345 * 1024, "keys with parentheses");
        is_int(meminfo_get(node_meminfo, "MemUsed", &v), -ENOENT, "absent key is -ENOENT");
        is_int(meminfo_get(node_meminfo, "Mem", &v), -ENOENT, "a key prefix does not match");
        ok(meminfo_get(proc_meminfo, "MemTotal", &v) == 0 && v == UINT64_C(16384256) * 1024, "/proc/meminfo shape");
        ok(meminfo_get(proc_meminfo, "Hugetlb", &v) == 0 && v == 0, "Hugetlb");
        is_int(meminfo_get("Node 0 MemTotal 5 kB\n", "MemTotal", &v), -EINVAL, "missing colon is malformed");
        is_int(meminfo_get("Node 0 MemTotal: five kB\n", "MemTotal", &v), -EINVAL, "words are malformed");
        is_int(meminfo_get("Node 0 MemTotal: 5 MB\n", "MemTotal", &v), -EINVAL, "unknown unit is malformed");
        is_int(meminfo_get("Node x MemTotal: 5 kB\n", "MemTotal", &v), -EINVAL, "bad node number is malformed");
        is_int(meminfo_get("MemTotal: 99999999999999999999 kB\n", "MemTotal", &v), -ERANGE, "overflow");
        is_int(meminfo_get("", "MemTotal", &v), -ENOENT, "empty file has no key");
        ok(meminfo_get("MemTotal: 5 kB\n\n", "MemTotal", &v) == 0 && v == 5120, "blank lines are fine");

        int *d = NULL;
        size_t n = 0;
        ok(distance_parse("10 21 21 21\n", &d, &n) == 0 && n == 4 && d[0] == 10 && d[3] == 21, "distance row");
        free(d);
        d = NULL;
        ok(distance_parse("10\n", &d, &n) == 0 && n == 1 && d[0] == 10, "one node");
        free(d);
        d = NULL;
        ok(distance_parse("10 2x\n", &d, &n) < 0, "junk in a row is rejected");
        ok(distance_parse("\n", &d, &n) < 0, "an empty row is rejected");
        ok(distance_parse("10 300\n", &d, &n) == -ERANGE, "distances are bytes");
        ok(distance_parse("10 -1\n", &d, &n) < 0, "negative distances are rejected");

        static const char status[] = "Name:\tnumaplan\nCpus_allowed:\tff\nCpus_allowed_list:\t0-7\n"
                                     "Mems_allowed_list:\t0-1\n";
        const char *val;
        size_t len;
        ok(status_field(status, "Cpus_allowed_list", &val, &len) == 0 && len == 3 && strncmp(val, "0-7", 3) == 0,
           "status field value");
        ok(status_field(status, "Mems_allowed_list", &val, &len) == 0 && strncmp(val, "0-1", len) == 0,
           "last status field");
        is_int(status_field(status, "Cpus_allowed_li", &val, &len), -ENOENT, "status keys match whole");

        return done_testing();
}
