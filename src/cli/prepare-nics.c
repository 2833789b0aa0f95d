/* SPDX-License-Identifier: MIT */
/* prepare --nics: the plan chose the adapters from the PCIe tree, whole from the first moment of a
 * boot; their interfaces and RDMA devices are named later (drivers load, udev renames eth0), after
 * the generator and numaplan.service ran. The start is the first moment that knows the names. */

#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

#include "basic/escape.h"
#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/util.h"
#include "cli/prepare-nics.h"
#include "cli/verbs.h"
#include "core/nic-choice.h"
#include "core/topology.h"
#include "host/root.h"
#include "host/topology-read.h"

/* udev is still handling events (its queue file is there), as at boot. */
static bool udev_busy(struct root *root) {
        struct stat st;
        return root_is_live(root) && root_lstat(root, "run/udev/queue", &st, NULL) >= 0;
}

/* The host's adapters, read again while udev names them, until every item has a name. */
static struct topology *read_adapters(struct root *root, char **items) {
        struct timespec pause = {0, 200 * 1000 * 1000};
        struct topology *t = NULL;

        for (unsigned tries = 0;; tries++) {
                struct warnings w = {0};
                if (topology_read(root, TOPOLOGY_NICS, &w, &t) < 0)
                        t = NULL;
                warnings_done(&w);
                if (!t || nic_resolved(t, items) || !udev_busy(root) || tries >= NIC_NAME_WAIT_S * 5)
                        return t;
                topology_free(t);
                (void) nanosleep(&pause, NULL);
        }
}

/* "ens1 (0000:42:00.0; RDMA rxe0)" for each pick, for the line that says what the start found. */
static char *describe(const struct nic_pick *picks, size_t n) {
        struct strbuf b = {0};
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *iface = picks[i].iface ? name_escape(picks[i].iface) : xstrdup("no interface");
                strbuf_printf(&b, "%s%s (%s", i ? ", " : "", iface, picks[i].nic->pci);
                for (size_t r = 0; r < picks[i].nic->n_rdma; r++) {
                        _cleanup_free_ char *s = name_escape(picks[i].nic->rdma[r].name);
                        strbuf_printf(&b, "%s%s", r ? ", " : "; RDMA ", s);
                }
                strbuf_append(&b, ")");
        }
        if (!b.len)
                strbuf_append(&b, "none");
        return strbuf_steal(&b);
}

int prepare_nics(const struct globals *g, const char *value, const char *env_file, bool dry_run) {
        if (!dry_run && (!env_file || env_file[0] != '/'))
                return verb_usage_error("prepare", "--nics needs --nics-env FILE, an absolute path");
        _cleanup_strv_free_ char **items = xmalloc0(sizeof(char *));
        size_t n_items = 0;
        for (const char *p = value; *p;) {
                size_t len = strcspn(p, ",");
                if (len) {
                        items = xrealloc(items, (n_items + 2) * sizeof(char *));
                        items[n_items++] = xstrndup(p, len);
                        items[n_items] = NULL;
                }
                p += len + (p[len] == ',');
        }
        _cleanup_root_ struct root *root = NULL;
        int r = root_open(g->sysfs_root, 0, &root);
        if (r < 0) {
                log_warning("cannot open %s (%s): no network adapter named to the server", g->sysfs_root, strerror(-r));
                return EXIT_OK;
        }
        _cleanup_topology_ struct topology *t = read_adapters(root, items);
        size_t n = 0;
        _cleanup_free_ char *problems = NULL, *skipped = NULL;
        _cleanup_free_ struct nic_pick *picks = t ? nic_resolve(t, items, &n, &problems) : NULL;
        _cleanup_free_ char *text = nic_environment(picks, n, &skipped), *found = describe(picks, n);
        if (problems)
                log_warning("%s", strip_trailing(problems));
        if (skipped)
                log_warning("left out of the variables, as no list of them can hold the name: %s", skipped);
        if (dry_run) {
                printf("(dry run) network adapters %s; would write:\n%s", found, text);
                return EXIT_OK;
        }
        /* /run is made anew at every boot: the replace is atomic, and no fsync is owed. */
        r = write_file_path(env_file, text, WRITE_VOLATILE);
        if (r < 0)
                log_warning("cannot write %s (%s): no network adapter named to the server", env_file, strerror(-r));
        else
                log_notice("network adapters %s: named to the server in %s", found, env_file);
        return EXIT_OK;
}
