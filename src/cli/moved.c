/* SPDX-License-Identifier: MIT */
#include <string.h>
#include <time.h>

#include "basic/json-util.h"
#include "basic/util.h"
#include "cli/moved.h"

double moved_now(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* errno 0 stands for a page the kernel left where it was, or put elsewhere, without saying why. */
static const char *errno_name(size_t e) {
        const char *n = e ? strerrorname_np((int) e) : NULL;
        return n ? n : "not moved";
}

static void by_node(struct strbuf *b, const uint64_t *v, const char *sep) {
        bool first = true;
        for (size_t n = 0; n < MIGRATE_NODES_MAX; n++)
                if (v[n]) {
                        strbuf_printf(b, "%snode %zu: %" PRIu64, first ? "" : sep, n, v[n]);
                        first = false;
                }
}

char *moved_summary(const struct migrate_stats *st, double seconds) {
        struct strbuf b = {0};
        char size[FORMAT_BYTES_MAX];
        uint64_t moved = migrate_moved(st), failed = migrate_failed(st);

        format_bytes(size, sizeof(size), moved * st->page_size);
        strbuf_printf(&b, "moved %" PRIu64 " pages (%s) in %.3f s", moved, size, seconds);
        if (moved) {
                strbuf_append(&b, ", from ");
                by_node(&b, st->moved_from, ", ");
                strbuf_append(&b, " to ");
                by_node(&b, st->moved_to, ", ");
        }
        if (failed) {
                strbuf_printf(&b, "; %" PRIu64 " pages did not move (", failed);
                bool first = true;
                if (st->pinned) {
                        strbuf_printf(&b, "pinned: %" PRIu64, st->pinned);
                        first = false;
                }
                for (size_t e = 0; e < MIGRATE_ERRNO_MAX; e++)
                        if (st->failed[e]) {
                                strbuf_printf(&b, "%s%s: %" PRIu64, first ? "" : ", ", errno_name(e), st->failed[e]);
                                first = false;
                        }
                strbuf_append(&b, ")");
        }
        if (st->pinned)
                strbuf_printf(&b,
                              "; the %" PRIu64 " pinned pages are held for DMA or I/O (an RDMA memory region, an "
                              "io_uring buffer, a device driver's): the kernel does not move a pinned page, only a "
                              "restart of their process does, whose memory policy then places them",
                              st->pinned);
        if (st->kept)
                strbuf_printf(&b,
                              "; %" PRIu64 " pages off the plan left where they are, for the other units that map "
                              "them (shared program code, or a file another replica reads)",
                              st->kept);
        return strbuf_steal(&b);
}

json_object *moved_json(const struct migrate_stats *st, double seconds) {
        json_object *o = json_object_new_object(), *failed = json_object_new_object(), *why = json_object_new_object();
        uint64_t moved = migrate_moved(st);

        json_object_object_add(o, "pages", json_uint64(moved));
        json_object_object_add(o, "bytes", json_uint64(moved * st->page_size));
        json_object_object_add(o, "from", json_by_node(st->moved_from, MIGRATE_NODES_MAX));
        json_object_object_add(o, "to", json_by_node(st->moved_to, MIGRATE_NODES_MAX));
        for (size_t e = 0; e < MIGRATE_ERRNO_MAX; e++)
                if (st->failed[e])
                        json_object_object_add(why, errno_name(e), json_uint64(st->failed[e]));
        json_object_object_add(failed, "pages", json_uint64(migrate_failed(st)));
        json_object_object_add(failed, "pinned_pages", json_uint64(st->pinned));
        json_object_object_add(failed, "by_errno", why);
        json_object_object_add(o, "failed", failed);
        json_object_object_add(o, "kept_pages", json_uint64(st->kept));
        json_object_object_add(o, "seconds", json_object_new_double(seconds));
        json_object_object_add(o, "resident_pages", json_uint64(st->resident));
        json_object_object_add(o, "on_plan_before_pages", json_uint64(st->on_plan));
        json_object_object_add(o, "page_size", json_uint64(st->page_size));
        return o;
}
