/* SPDX-License-Identifier: MIT */
/* Reserving and giving back huge pages on a copy of the node directory: numaplan's share on top
 * of what others hold, recorded, resized by a later apply, and only it given back. (What the
 * kernel grants short of the ask is the guest's to show: a plain file grants all.) */

#include "basic/log.h"
#include "basic/util.h"
#include "host/hugepages.h"
#include "tap.h"
#include "tmproot.h"

static uint64_t pool_of(const char *d) {
        _cleanup_free_ char *p = xasprintf("%s/node/node1/hugepages/hugepages-2048kB/nr_hugepages", d), *s = read_whole(p);
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
        is_str(r1, "1 2048 50\n", "numaplan's 50 are recorded");
        pool_changes_done(&c);

        ok(hugepages_reserve(nodes, record, &want, false, &c) == 0 && !pool_changes_any(&c), "again: nothing changes");
        pool_changes_done(&c);

        want.v[0].pages = 30;
        ok(hugepages_reserve(nodes, record, &want, false, &c) == 0 && c.v[0].after == 130, "a smaller plan shrinks only numaplan's share");
        pool_changes_done(&c);

        write_file(d, "node/node1/hugepages/hugepages-2048kB/nr_hugepages", "200\n"); /* the admin adds 70 */
        struct pools none = {0};
        ok(hugepages_reserve(nodes, record, &none, false, &c) == 0 && c.v[0].after == 170,
           "given back: numaplan's 30 leave, the admin's 170 stay");
        is_int(pool_of(d), 170, "the pool holds the admin's");
        _cleanup_free_ char *r2 = record_of(d);
        is_str(r2, "(none)", "and the record is gone");
        pool_changes_done(&c);

        write_file(d, "run/numaplan/hugepages", "1 2048 5\nnot a record\n");
        ok(hugepages_reserve(nodes, record, &want, false, &c) < 0, "a record numaplan did not write is refused");
        is_int(pool_of(d), 170, "and nothing is touched");

        write_file(d, "run/numaplan/hugepages", "");
        pools_add(&want, 3, 2048, 1);
        ok(hugepages_reserve(nodes, record, &want, false, &c) == 0 && c.n == 2 && c.v[1].error < 0 && pool_changes_short(&c),
           "a node without the pool: the error is kept, and the plan is short there");
        pool_changes_done(&c);
        pools_done(&want);
        return done_testing();
}
