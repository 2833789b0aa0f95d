/* SPDX-License-Identifier: MIT */
/* The audit's files, each read once through the root, so that a snapshot carries them and a
 * capture from before (without them) replays with these facts unknown. */

#include <ctype.h>

#include "basic/escape.h"
#include "basic/util.h"
#include "core/topology.h"
#include "host/host-tuning.h"
#include "host/root.h"
#include "core/tuning-parse.h"

#define SYS_CPU "sys/devices/system/cpu"

static void malformed(struct warnings *w, const char *path, const char *value, const char *unknown) {
        _cleanup_free_ char *shown = name_escape(value); /* whatever bytes the file held */
        warnings_add(w, WARNING_SYSFS_MALFORMED, NULL, "/%s: malformed ('%s'): %s unknown", path, shown, unknown);
}

/* A file of the audit that is there and cannot be read (a directory, a loop of links, past the
 * size limit): said, and its fact unknown. An absent one is a capture from before or a kernel
 * without it: unknown, and nothing said. */
static void unreadable(struct warnings *w, const char *path, int r, const char *unknown) {
        if (r == -ENOENT)
                return;
        warnings_add(w, WARNING_SYSFS_MALFORMED, NULL, "/%s: %s: %s unknown", path,
                     r == -EBADFD || r == -EISDIR ? "not a regular file"
                     : r == -EFBIG                ? "larger than any such file"
                                                  : strerror(-r),
                     unknown);
}

/* A name the kernel writes: printable, short; a governor's or driver's has no blanks, an idle
 * state's may ("haltpoll idle"). */
static bool is_name(const char *s, bool blanks) {
        if (!*s || strlen(s) > 64)
                return false;
        for (; *s; s++)
                if (!(blanks ? isprint((unsigned char) *s) : isgraph((unsigned char) *s)))
                        return false;
        return true;
}

static void read_link(struct root *root, struct pci_device *a, struct warnings *w) {
        static const char *const files[] = {"current_link_speed", "max_link_speed", "current_link_width",
                                            "max_link_width"};
        struct pcie_link *l = &a->pcie;
        char **speed[] = {&l->speed, &l->max_speed};
        unsigned *mts[] = {&l->speed_mts, &l->max_speed_mts};
        int *width[] = {&l->width, &l->max_width};

        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                _cleanup_free_ char *p = xasprintf("%s/%s", a->path, files[i]), *s = NULL;
                if (root_read_string(root, p, &s) < 0)
                        continue;
                if (i < 2) {
                        /* "Unknown" ("Unknown speed" before 5.x: a link that is down) is what the
                         * kernel writes: kept as it is, with no speed to compare. */
                        if (pcie_speed_parse(s, mts[i]) < 0 && !streq(s, "Unknown") && !streq(s, "Unknown speed")) {
                                malformed(w, p, s, "the device's link speed is");
                                continue;
                        }
                        free(*speed[i]);
                        *speed[i] = TAKE_PTR(s);
                } else if (pcie_width_parse(s, width[i - 2]) < 0)
                        malformed(w, p, s, "the device's link width is");
        }
}

/* scaling_governor of every online CPU (each has its policy's), scaling_driver once: the
 * kernel has one cpufreq driver at a time. A first CPU without cpufreq means none (a VM). */
static void read_cpufreq(struct root *root, const struct topology *t, struct host_tuning *h, struct warnings *w) {
        int first = cpuset_next(&t->online_cpus, 0);

        CPUSET_FOREACH(c, &t->online_cpus) {
                _cleanup_free_ char *p = xasprintf(SYS_CPU "/cpu%d/cpufreq/scaling_governor", c), *s = NULL;
                if (root_read_string(root, p, &s) < 0) {
                        if (c == first)
                                return;
                        continue;
                }
                if (!is_name(s, false)) {
                        malformed(w, p, s, "this CPU's governor is");
                        continue;
                }
                host_tuning_add_governor(h, s, (unsigned) c);
        }
        h->has_cpufreq = first >= 0;
        _cleanup_free_ char *p = xasprintf(SYS_CPU "/cpu%d/cpufreq/scaling_driver", first), *s = NULL;
        if (h->has_cpufreq && root_read_string(root, p, &s) >= 0 && is_name(s, false))
                h->cpufreq_driver = TAKE_PTR(s);
}

static int compare_uint(const void *a, const void *b) {
        unsigned x = *(const unsigned *) a, y = *(const unsigned *) b;
        return x < y ? -1 : x > y;
}

/* The enabled idle states of the first online CPU: the driver registers the same states for
 * every CPU, and cpupower idle-set disables them on every CPU alike. */
static void read_cpuidle(struct root *root, const struct topology *t, struct host_tuning *h, struct warnings *w) {
        int cpu = cpuset_next(&t->online_cpus, 0);
        _cleanup_free_ char *dir = xasprintf(SYS_CPU "/cpu%d/cpuidle", cpu);
        _cleanup_free_ unsigned *ids = NULL;
        size_t n = 0;
        _cleanup_closedir_ DIR *d = NULL;

        if (cpu < 0 || root_opendir(root, dir, &d) < 0)
                return;
        for (struct dirent *de; (de = readdir(d));) {
                const char *num = startswith(de->d_name, "state");
                uint64_t v;
                if (!num || parse_uint64(num, 10, &v) < 0 || v > 64)
                        continue;
                ids = xrealloc(ids, (n + 1) * sizeof(*ids));
                ids[n++] = (unsigned) v;
        }
        d = safe_closedir(d);
        if (n > 1)
                qsort(ids, n, sizeof(*ids), compare_uint);
        h->has_cpuidle = true;
        h->cpuidle_cpu = cpu;
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *pn = xasprintf("%s/state%u/name", dir, ids[i]),
                                    *pl = xasprintf("%s/state%u/latency", dir, ids[i]),
                                    *pd = xasprintf("%s/state%u/disable", dir, ids[i]), *name = NULL, *lat = NULL,
                                    *dis = NULL;
                uint64_t latency;
                if (root_read_string(root, pn, &name) < 0 || root_read_string(root, pl, &lat) < 0)
                        continue;
                if (!is_name(name, true) || parse_uint64(lat, 10, &latency) < 0) {
                        bool bad_name = !is_name(name, true);
                        malformed(w, bad_name ? pn : pl, bad_name ? name : lat, "an idle state is");
                        continue;
                }
                /* No disable file (kernels before 3.x): every state is enabled. */
                if (root_read_string(root, pd, &dis) >= 0 && !streq(dis, "0"))
                        continue;
                h->idle_states = xrealloc(h->idle_states, (h->n_idle_states + 1) * sizeof(*h->idle_states));
                h->idle_states[h->n_idle_states++] = (struct idle_state){.name = TAKE_PTR(name), .latency_us = latency};
        }
}

static void read_knobs(struct root *root, struct host_tuning *h, struct warnings *w) {
        _cleanup_free_ char *zr = NULL, *swaps = NULL, *rel = NULL;

        h->zone_reclaim_mode = -1;
        int r = root_read_string(root, "proc/sys/vm/zone_reclaim_mode", &zr);
        if (r < 0)
                unreadable(w, "proc/sys/vm/zone_reclaim_mode", r, "zone_reclaim_mode is");
        else if (parse_int(zr, &h->zone_reclaim_mode) < 0 || h->zone_reclaim_mode < 0) {
                malformed(w, "proc/sys/vm/zone_reclaim_mode", zr, "zone_reclaim_mode is");
                h->zone_reclaim_mode = -1;
        }
        /* /proc/swaps rather than meminfo's SwapTotal: it is what swapon shows, and a capture
         * from before (which holds meminfo) then replays with swap unknown, not "off". */
        r = root_read_file(root, "proc/swaps", &swaps, NULL);
        if (r < 0)
                unreadable(w, "proc/swaps", r, "swap is");
        else {
                h->has_swap = swaps_parse(swaps, &h->swap_bytes) >= 0;
                if (!h->has_swap)
                        warnings_add(w, WARNING_SYSFS_MALFORMED, NULL, "/proc/swaps: malformed: swap is unknown");
        }
        r = root_read_string(root, "proc/sys/kernel/osrelease", &rel);
        if (r < 0)
                unreadable(w, "proc/sys/kernel/osrelease", r, "the kernel's release is");
        else if (*rel) {
                if (is_name(rel, true))
                        h->kernel = TAKE_PTR(rel);
                else
                        malformed(w, "proc/sys/kernel/osrelease", rel, "the kernel's release is");
        }
}

/* Whether a directory has entries, and its first in version order (group 9 before 10), which is
 * opened so that a snapshot holds it; -errno when it cannot be listed. */
static int first_entry(struct root *root, const char *path, char **ret_first) {
        _cleanup_free_ char *first = NULL;
        _cleanup_closedir_ DIR *d = NULL;

        int r = root_opendir(root, path, &d);
        if (r < 0)
                return r;
        for (struct dirent *de; (de = readdir(d));)
                if (de->d_name[0] != '.' && (!first || strverscmp(de->d_name, first) < 0)) {
                        free(first);
                        first = xstrdup(de->d_name);
                }
        _cleanup_free_ char *sub = first ? xasprintf("%s/%s", path, first) : NULL;
        if (sub)
                root_record_dir(root, sub);
        *ret_first = TAKE_PTR(first);
        return *ret_first != NULL;
}

/* A group's default domain type (kernels since 5.6) is the truth; the kernel command line is
 * what an older kernel leaves to go by. Without IOMMU groups no device is translated. */
static void read_iommu(struct root *root, const struct topology *t, struct host_tuning *h, struct warnings *w) {
        _cleanup_free_ char *first = NULL, *unit = NULL, *cmdline = NULL;

        int r = first_entry(root, "sys/kernel/iommu_groups", &first);
        if (r < 0) {
                /* Absent: a kernel without IOMMU support, or a capture from before. */
                unreadable(w, "sys/kernel/iommu_groups", r, "the IOMMU's mode is");
                if (r != -ENOENT)
                        h->iommu_how = xstrdup("/sys/kernel/iommu_groups cannot be listed");
                return;
        }
        if (r == 0) {
                h->iommu = IOMMU_OFF;
                h->iommu_how = first_entry(root, "sys/class/iommu", &unit) > 0
                                       ? xasprintf("no IOMMU groups in /sys/kernel/iommu_groups, though "
                                                   "/sys/class/iommu lists %s",
                                                   unit)
                                       : xstrdup("no IOMMU groups in /sys/kernel/iommu_groups, no IOMMU in "
                                                 "/sys/class/iommu");
                return;
        }

        /* The groups of the compute accelerators, which the warning is about; else the lowest. */
        for (size_t i = 0; i < t->n_accels && h->iommu != IOMMU_TRANSLATED; i++) {
                const struct pci_device *a = &t->accels[i];
                _cleanup_free_ char *p = xasprintf("%s/iommu_group/type", a->path), *s = NULL;
                enum iommu_mode m;
                if (!a->compute || root_read_string(root, p, &s) < 0 || iommu_type_parse(s, &m) < 0 ||
                    (h->iommu != IOMMU_UNKNOWN && m != IOMMU_TRANSLATED))
                        continue;
                h->iommu = m;
                free(h->iommu_how);
                h->iommu_how = xasprintf("the default domain type %s of the IOMMU group of %s", s, a->pci);
        }
        if (h->iommu == IOMMU_UNKNOWN) {
                _cleanup_free_ char *p = xasprintf("sys/kernel/iommu_groups/%s/type", first), *s = NULL;
                enum iommu_mode m;
                if (root_read_string(root, p, &s) >= 0 && iommu_type_parse(s, &m) >= 0) {
                        h->iommu = m;
                        h->iommu_how = xasprintf("the default domain type %s of IOMMU group %s", s, first);
                }
        }
        if (h->iommu != IOMMU_UNKNOWN)
                return;
        const char *param;
        size_t len;
        enum iommu_mode m;
        r = root_read_string(root, "proc/cmdline", &cmdline);
        if (r < 0)
                unreadable(w, "proc/cmdline", r, "what the kernel command line says of the IOMMU is");
        if (r >= 0 && cmdline_iommu(cmdline, &m, &param, &len) >= 0 && m != IOMMU_OFF) {
                h->iommu = m;
                h->iommu_how =
                        xasprintf("%.*s on the kernel command line (no IOMMU group has a type file)", (int) len, param);
                return;
        }
        h->iommu = IOMMU_TRANSLATED;
        h->iommu_how = xstrdup(r < 0 && r != -ENOENT
                                       ? "IOMMU groups without a type file, and an unreadable kernel command line: "
                                         "the kernel's default assumed"
                                       : "IOMMU groups without a type file, and no iommu=pt on the kernel command "
                                         "line: the kernel's default");
}

void host_tuning_read(struct root *root, struct topology *t, struct warnings *w) {
        struct host_tuning *h = xmalloc0(sizeof(*h));

        for (size_t i = 0; i < t->n_accels; i++)
                read_link(root, &t->accels[i], w);
        for (size_t i = 0; i < t->n_nics; i++)
                read_link(root, &t->nics[i], w);
        read_cpufreq(root, t, h, w);
        read_cpuidle(root, t, h, w);
        read_knobs(root, h, w);
        read_iommu(root, t, h, w);
        host_tuning_free(t->tuning);
        t->tuning = h;
}
