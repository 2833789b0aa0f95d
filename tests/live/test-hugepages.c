/* SPDX-License-Identifier: MIT */
/* Reserving and giving back huge pages on a copy of the node directory: numaplan's share on top
 * of what others hold, recorded, resized by a later apply, and only it given back. (What the
 * kernel grants short of the ask is the guest's to show: a plain file grants all.) */

#include <unistd.h>

#include "basic/log.h"
#include "basic/util.h"
#include "live/hugepages.h"
#include "tap.h"
#include "tmproot.h"

#define HEADER "# numaplan's huge pages: NODE PAGE_KB PAGES OTHERS (others' pages beside them then)\n"

static uint64_t pool_of(const char *d) {
        _cleanup_free_ char *p = xasprintf("%s/node/node1/hugepages/hugepages-2048kB/nr_hugepages", d),
                            *s = read_whole(p);
        return s ? strtoull(s, NULL, 10) : UINT64_MAX;
}

static char *record_of(const char *d) {
        _cleanup_free_ char *p = xasprintf("%s/run/numaplan/hugepages", d);
        char *s = read_whole(p);
        return s ? s : xstrdup("(none)");
}

int main(void) {
        _cleanup_tmpdir_ char *d = make_tmpdir();
        _cleanup_free_ char *nodes = xasprintf("%s/node", d), *record = xasprintf("%s/run/numaplan/hugepages", d);
        struct pools want = {0};
        struct pool_changes c;

        log_set_max_level(LOG_ERR - 1);
        write_file(d, "node/node1/hugepages/hugepages-2048kB/nr_hugepages", "100\n"); /* an admin's */
        pools_add(&want, 1, 2048, 50);

        ok(hugepages_reserve(nodes, record, &want, true, &c) == 0 && c.n == 1 && c.v[0].after == 150 &&
                   pool_changes_any(&c),
           "dry: 150 pages would be there, the admin's 100 and the plan's 50");
        is_int(pool_of(d), 100, "and nothing is written");
        pool_changes_done(&c);

        ok(hugepages_reserve(nodes, record, &want, false, &c) == 0 && c.v[0].before == 100 && c.v[0].after == 150 &&
                   c.v[0].ours == 50 && !pool_changes_short(&c),
           "reserved: 100 -> 150, 50 of them numaplan's");
        is_int(pool_of(d), 150, "the pool holds 150");
        _cleanup_free_ char *r1 = record_of(d);
        is_str(r1, HEADER "1 2048 50 100\n", "numaplan's 50 are recorded, beside the admin's 100");
        pool_changes_done(&c);

        ok(hugepages_reserve(nodes, record, &want, false, &c) == 0 && !pool_changes_any(&c), "again: nothing changes");
        pool_changes_done(&c);

        want.v[0].pages = 30;
        ok(hugepages_reserve(nodes, record, &want, false, &c) == 0 && c.v[0].after == 130,
           "a smaller plan shrinks only numaplan's share");
        pool_changes_done(&c);

        write_file(d, "node/node1/hugepages/hugepages-2048kB/nr_hugepages", "200\n"); /* the admin adds 70 */
        struct pools none = {0};
        ok(hugepages_reserve(nodes, record, &none, false, &c) == 0 && c.v[0].after == 170,
           "given back: numaplan's 30 leave, the admin's 170 stay");
        is_int(pool_of(d), 170, "the pool holds the admin's");
        _cleanup_free_ char *r2 = record_of(d);
        is_str(r2, HEADER, "and the record holds none");
        pool_changes_done(&c);

        write_file(d, "run/numaplan/hugepages", "1 2048 5\nnot a record\n");
        ok(hugepages_reserve(nodes, record, &want, false, &c) < 0, "a record numaplan did not write is refused");
        is_int(pool_of(d), 170, "and nothing is touched");

        /* The admin's 5 pages, and a record that claims 9 of numaplan's beside them. */
        write_file(d, "node/node1/hugepages/hugepages-2048kB/nr_hugepages", "5\n");
        write_file(d, "run/numaplan/hugepages", "1 2048 9 5\n");
        ok(hugepages_reserve(nodes, record, &none, false, &c) == 0 && c.v[0].disagrees && c.v[0].after == 5,
           "remove with a record claiming more than the pool holds beyond others': the admin's 5 stay");
        is_int(pool_of(d), 5, "the pool holds the admin's 5");
        pool_changes_done(&c);
        write_file(d, "run/numaplan/hugepages", "1 2048 9\n");
        ok(hugepages_reserve(nodes, record, &none, false, &c) == 0 && c.v[0].disagrees && c.v[0].after == 5,
           "an older record without others' count: nothing of the pool given back, and said");
        pool_changes_done(&c);

        /* numaplan holds 20 beside the admin's 5; then its record is deleted. */
        pools_done(&want);
        pools_add(&want, 1, 2048, 20);
        ok(hugepages_reserve(nodes, record, &want, false, &c) == 0 && c.v[0].after == 25 && !c.record_gone,
           "reserved 20 beside the admin's 5");
        pool_changes_done(&c);
        _cleanup_free_ char *rec = xasprintf("%s/run/numaplan/hugepages", d);
        unlink(rec);
        ok(hugepages_reserve(nodes, record, &none, false, &c) == 0 && c.record_gone,
           "the record deleted: remove says so");
        is_int(pool_of(d), 25, "and gives back nothing it cannot know to be its own");
        pool_changes_done(&c);
        _cleanup_free_ char *rundir = xasprintf("%s/run/numaplan", d);
        rm_rf(rundir);
        ok(hugepages_reserve(nodes, record, &none, true, &c) == 0 && !c.record_gone,
           "no record and no runtime directory: the first run since boot, nothing to say");
        pool_changes_done(&c);

        write_file(d, "run/numaplan/hugepages", "");
        write_file(d, "node/node3/hugepages/hugepages-2048kB/nr_hugepages", "0\n");
        pools_add(&want, 3, 1048576, 1);
        ok(hugepages_reserve(nodes, record, &want, false, &c) == 0 && c.n == 2 && c.v[1].error < 0 && c.v[1].no_pool &&
                   pool_changes_short(&c),
           "a node without a pool of that size: named as such, and the plan is short there");
        _cleanup_free_ char *sizes = hugepages_sizes(nodes, 3);
        is_str(sizes, "2.0 MiB", "the node's pools, by size");
        pool_changes_done(&c);
        pools_done(&want);
        return done_testing();
}
