/* SPDX-License-Identifier: MIT */
/* Accelerators, network adapters and NVMe drives, from their sysfs files under the root; the PCI
 * Express capability in config space through libpci's sysfs backend (its sysfs.path pointed into
 * the root).
 *
 * Cost shapes this file. libpci (with libudev and zlib) takes longer to load than all of
 * `numactl --hardware` takes to run, and its ID database longer still. So numaplan reads class,
 * IDs and node from each device's files itself (class and IDs from its modalias, one file);
 * loads libpci only for config space (show, snapshot, verify --metrics), and only for devices that
 * have a config file, handing it just those (pci_get_dev, no scan of the bus); and looks a name up
 * in udev's hwdb, else in pci.ids for that device alone. libpci reports errors through a callback
 * that must not return (its default calls exit()): ours jumps back to the call that failed, so a
 * trimmed sysfs tree costs one device's details, never the process. */

#include <setjmp.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <stdarg.h>
#include <unistd.h>

#include "basic/escape.h"
#include "basic/log.h"
#include "basic/util.h"
#include "core/pci.h"
#include "core/topology.h"
#include "host/pci-dl.h"
#include "host/pci-ids.h"
#include "host/nic-read.h"
#include "host/pci-read.h"
#include "host/root.h"
#include "core/tuning-parse.h"
#include "host/udev-dl.h"

#define PCI_DEVICES "sys/bus/pci/devices"

static jmp_buf pci_jump;
static char pci_error_message[512];

static _Noreturn void on_pci_error(char *msg, ...) {
        va_list ap;

        va_start(ap, msg);
        vsnprintf(pci_error_message, sizeof(pci_error_message), msg, ap);
        va_end(ap);
        strip_trailing(pci_error_message);
        longjmp(pci_jump, 1);
}

static void on_pci_warning(char *msg, ...) {
        va_list ap;
        char buf[512];

        va_start(ap, msg);
        vsnprintf(buf, sizeof(buf), msg, ap);
        va_end(ap);
        log_debug("libpci: %s", strip_trailing(buf));
}

static void on_pci_debug(_unused_ char *msg, ...) {
}

static char *device_path(const struct pci_device *a, const char *file) {
        return xasprintf("%s/%s", a->path, file);
}

/* The device's directory: sysfs's bus entry is a link into the device tree, whose path shows the
 * bridges above the device (for `show --matrix`). Read through that path, a snapshot keeps the
 * tree and the link both. A bus entry that is a directory (a fixture) is used as it is. */
static char *device_dir(struct root *root, const char *name) {
        _cleanup_free_ char *entry = xasprintf(PCI_DEVICES "/%s", name), *link = NULL;

        if (root_lstat(root, entry, NULL, &link) < 0 || !link || link[0] == '/')
                return TAKE_PTR(entry);
        _cleanup_free_ char *target = xstrdup(link);
        /* "../../../devices/pci0000:17/0000:17:00.0/0000:18:00.0", relative to sys/bus/pci/devices */
        char *parts[64];
        size_t n = 0;
        _cleanup_free_ char *base = xstrdup(PCI_DEVICES);
        for (char *t = strtok(base, "/"); t && n < ELEMENTSOF(parts); t = strtok(NULL, "/"))
                parts[n++] = t;
        for (char *t = strtok(link, "/"); t; t = strtok(NULL, "/")) {
                if (streq(t, ".."))
                        n -= n > 0;
                else if (!streq(t, ".") && n < ELEMENTSOF(parts))
                        parts[n++] = t;
        }
        struct strbuf b = {0};
        for (size_t i = 0; i < n; i++) {
                if (i)
                        strbuf_putc(&b, '/');
                strbuf_append(&b, parts[i]);
        }
        if (!startswith(strempty(b.s), "sys/devices/")) {
                strbuf_done(&b);
                return TAKE_PTR(entry);
        }
        root_record_link(root, entry, target);
        return strbuf_steal(&b);
}

/* Reads a "0x1234"-style attribute; false when absent or malformed. */
static bool read_hex(struct root *root, const struct pci_device *a, const char *file, uint64_t *ret) {
        _cleanup_free_ char *p = device_path(a, file), *s = NULL;
        return root_read_string(root, p, &s) >= 0 && parse_uint64(s, 16, ret) >= 0;
}

/* A snapshot keeps the files that modalias stood in for, as a capture without it is read. */
static void record_files(struct root *root, const struct pci_device *a, const char *const *files, size_t n) {
        for (size_t i = 0; i < n && root_is_recording(root); i++) {
                _cleanup_free_ char *p = device_path(a, files[i]);
                root_record_file(root, p);
        }
}

/* Class and IDs from modalias, one file where class, vendor and device are three: the kernel
 * writes it for every PCI device, though a capture may lack it (then read_ids() reads the IDs).
 * False, with a warning, when no class can be read. */
static bool read_class(struct root *root, struct warnings *w, struct pci_device *a) {
        _cleanup_free_ char *p = device_path(a, "modalias"), *s = NULL;
        uint64_t class;

        int r = root_read_string(root, p, &s);
        if (r >= 0 && pci_modalias_parse(s, &a->vendor, &a->device, &a->class) >= 0) {
                a->ids_known = true;
                record_files(root, a, (const char *const[]){"class"}, 1);
                return true;
        }
        if (r != -ENOENT) { /* there, and not the kernel's: said, as numaplan(8) promises */
                _cleanup_free_ char *shown = name_escape(p); /* the path follows a capture's link */
                warnings_add(w, WARNING_SYSFS_MALFORMED, NULL,
                             "/%s: %s: PCI device %s's class and IDs are read from class, vendor and device instead",
                             shown,
                             r >= 0                         ? "malformed"
                             : r == -EBADFD || r == -EISDIR ? "not a regular file"
                                                            : strerror(-r),
                             a->pci);
        }
        if (!read_hex(root, a, "class", &class) || class > 0xffffff) {
                warnings_add(w, WARNING_PCI_INCOMPLETE, a->pci, "PCI device %s: no readable class; skipped", a->pci);
                return false;
        }
        a->class = (uint32_t) class;
        return true;
}

static bool wanted(uint32_t class, unsigned flags, enum pci_kind *ret) {
        bool devices = flags & PCI_DEVICES_TOO;
        if (pci_class_is_accelerator(class))
                *ret = PCI_ACCELERATOR;
        else if ((devices || flags & PCI_NICS) && pci_class_is_nic(class))
                *ret = PCI_NIC;
        else if (devices && pci_class_is_nvme(class))
                *ret = PCI_STORAGE;
        else
                return false;
        return true;
}

/* The devices whose class says accelerator (and, as `flags` ask, network adapter or NVMe drive),
 * with address, class and directory filled in. */
static void find_candidates(struct root *root, unsigned flags, struct warnings *w, struct pci_device **ret,
                            size_t *ret_n) {
        _cleanup_free_ struct pci_device *list = NULL;
        size_t n = 0;
        struct dirent *de;
        _cleanup_closedir_ DIR *d = NULL;

        *ret = NULL;
        *ret_n = 0;
        int r = root_opendir(root, PCI_DEVICES, &d);
        if (r == -ENOENT)
                return; /* no PCI tree (containers, trimmed captures): no accelerators */
        if (r < 0) {
                /* There and unreadable (a loop of links, a file): what the host has is unknown. */
                warnings_add(w, WARNING_HOST_UNPLANNABLE, NULL,
                             "/" PCI_DEVICES ": %s: the accelerators are unknown, so no plan can place them",
                             r == -ENOTDIR ? "not a directory" : strerror(-r));
                return;
        }
        (void) root_keep_dir(root, PCI_DEVICES); /* each entry's link is read from it */
        while ((de = readdir(d))) {
                struct pci_device a = {.numa_node = -1};

                pcie_link_init(&a.pcie);
                if (de->d_name[0] == '.')
                        continue;
                if (pci_address_parse(de->d_name, false, &a.address) < 0) {
                        _cleanup_free_ char *shown = name_escape(de->d_name);
                        log_debug("PCI entry %s: not an address, ignored", shown);
                        continue;
                }
                pci_address_format(&a.address, a.pci);
                a.path = device_dir(root, de->d_name);
                a.index = -1;
                if (!read_class(root, w, &a) || !wanted(a.class, flags, &a.kind)) {
                        free(a.path);
                        continue;
                }
                list = xgrow(list, n, sizeof(*list));
                list[n++] = a;
        }
        *ret = TAKE_PTR(list);
        *ret_n = n;
}

/* The vendor and device IDs, from their files where modalias did not give them. A file that
 * cannot be read is said as libpci said it when it read them ("Cannot open ..."), naming the bus
 * entry, so that a replayed capture warns as the captured host did; the device is then reported
 * without IDs. */
static void read_ids(struct root *root, struct warnings *w, struct pci_device *a) {
        static const char *const files[] = {"vendor", "device"};
        uint16_t ids[ELEMENTSOF(files)];

        if (a->ids_known) { /* from modalias */
                record_files(root, a, files, ELEMENTSOF(files));
                return;
        }
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                _cleanup_free_ char *p = device_path(a, files[i]), *s = NULL;
                uint64_t v;
                int r = root_read_string(root, p, &s);
                if (r >= 0 && parse_uint64(s, 16, &v) >= 0 && v <= 0xffff) {
                        ids[i] = (uint16_t) v;
                        continue;
                }

                _cleanup_free_ char *shown = xasprintf("/" PCI_DEVICES "/%s/%s", a->pci, files[i]), *why = NULL;
                if (r == -EBADFD || r == -EISDIR)
                        why = xasprintf("%s is not a regular file", shown);
                else if (r == -EFBIG)
                        why = xasprintf("%s is larger than any such file", shown);
                else if (r < 0)
                        why = xasprintf("Cannot open %s: %s", shown, strerror(-r));
                else
                        why = xasprintf("%s: '%s' is no PCI ID", shown, s);
                warnings_add(w, WARNING_PCI_INCOMPLETE, a->pci, "PCI device %s: %s; reported from the files present",
                             a->pci, why);
                return;
        }
        a->vendor = ids[0];
        a->device = ids[1];
        a->ids_known = true;
}

/* The device's numa_node, read here rather than by libpci, which keeps an int of whatever the
 * file says (99999999999999 became 276447231): -1 or a node id, or -1 with a warning. */
static void read_numa_node(struct root *root, struct warnings *w, struct pci_device *a) {
        _cleanup_free_ char *p = device_path(a, "numa_node"), *s = NULL;
        int node;

        a->sysfs_numa_node = -1;
        if (root_read_string(root, p, &s) < 0)
                return;
        if (parse_int(s, &node) < 0 || node < -1 || node >= CPUSET_MAX)
                warnings_add(w, WARNING_PCI_INCOMPLETE, a->pci,
                             "/%s: '%s' is no node number; the device is taken to "
                             "report none",
                             p, s);
        else
                a->sysfs_numa_node = node;
}

static void read_local_cpus(struct root *root, struct warnings *w, struct pci_device *a) {
        static const char *const files[] = {"local_cpulist", "local_cpus"};

        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                _cleanup_free_ char *p = device_path(a, files[i]), *s = NULL;
                if (root_read_file(root, p, &s, NULL) < 0)
                        continue;
                _cleanup_free_ struct cpuset *set = xmalloc(sizeof(*set));
                int r = i == 0 ? cpuset_parse_list(s, set) : cpuset_parse_mask(s, set);
                if (r < 0) {
                        warnings_add(w, WARNING_PCI_INCOMPLETE, a->pci, "/%s: malformed CPU %s, ignored", p,
                                     i == 0 ? "list" : "mask");
                        continue;
                }
                a->local_cpus = TAKE_PTR(set);
                return;
        }
}

/* libpci names the files it failed on by their full path; a warning names them as the host
 * does (/sys/...), so that a replayed capture warns as the captured host did. */
static const char *unrooted_error(struct root *root) {
        static char buf[sizeof(pci_error_message)];
        _cleanup_free_ char *prefix = root_join(root, "sys");
        const char *p = strstr(pci_error_message, prefix);

        if (!p || streq(prefix, "/sys"))
                return pci_error_message;
        snprintf(buf, sizeof(buf), "%.*s/sys%s", (int) (p - pci_error_message), pci_error_message, p + strlen(prefix));
        return buf;
}

/* One libpci call; false (pci_error_message says why) when libpci gave up. */
static bool pci_fill(struct pci_dev *d, int flags) {
        if (setjmp(pci_jump) != 0)
                return false;
        sym_pci_fill_info(d, flags);
        return true;
}

/* libpci opens <sysfs.path>/devices/ADDR/config with plain open(): in a capture, a link out of it
 * (an absolute one) would have it read this machine's files, a FIFO would hang it. Before handing
 * it a device, check that the file it will open is the one the root shows (`st`), and regular. */
static bool config_safe(struct root *root, struct warnings *w, const struct pci_device *a, const struct stat *st) {
        _cleanup_free_ char *entry = xasprintf(PCI_DEVICES "/%s", a->pci), *link = NULL;
        _cleanup_free_ char *config = xasprintf("%s/config", entry), *opened = root_join(root, config);
        struct stat est, cst;

        if (root_lstat(root, entry, &est, &link) >= 0 && link && link[0] == '/')
                warnings_add(w, WARNING_PCI_UNREADABLE, NULL,
                             "/%s is a link out of the capture (%s): PCI devices read from their files alone", entry,
                             link);
        else if (!S_ISREG(st->st_mode))
                warnings_add(w, WARNING_PCI_UNREADABLE, NULL,
                             "/%s is not a regular file: PCI devices read from their files alone", config);
        else if (stat(opened, &cst) < 0 || cst.st_dev != st->st_dev || cst.st_ino != st->st_ino)
                warnings_add(w, WARNING_PCI_UNREADABLE, NULL,
                             "/%s leads out of the capture: PCI devices read from their files alone", config);
        else
                return true;
        return false;
}

/* libpci, set up for config space alone: it scans nothing, and reads each device it is handed. */
static struct pci_access *pci_open(struct root *root, struct warnings *w) {
        _cleanup_free_ char *sysfs_path = root_join(root, "sys/bus/pci");

        if (dlopen_libpci() < 0)
                return NULL;
        struct pci_access *pacc = sym_pci_alloc();
        pacc->error = on_pci_error;
        pacc->warning = on_pci_warning;
        pacc->debug = on_pci_debug;
        pacc->method = PCI_ACCESS_SYS_BUS_PCI;
        pacc->id_lookup_mode = 0; /* no ~/.pciids-cache, no network lookups */
        sym_pci_set_param(pacc, "sysfs.path", sysfs_path);
        if (setjmp(pci_jump) != 0) {
                warnings_add(w, WARNING_PCI_UNREADABLE, NULL, "libpci cannot read /sys/bus/pci: %s",
                             unrooted_error(root));
                sym_pci_cleanup(pacc);
                return NULL;
        }
        sym_pci_init(pacc);
        return pacc;
}

/* Device Control of the PCI Express capability, for MaxReadReq and MaxPayload. sysfs hands a
 * reader without CAP_SYS_ADMIN only the first 64 bytes of config space, where the capability list
 * starts but no capability lives: libpci then finds none, and a read past 64 bytes tells that
 * apart from a function that has none. */
static void decode_config(struct root *root, struct pci_dev *d, struct pci_device *a, const char *path) {
        struct stat st;
        uint8_t probe[4];

        if (!pci_fill(d, PCI_FILL_CAPS))
                return;
        if (setjmp(pci_jump) != 0)
                return;
        struct pci_cap *cap = sym_pci_find_cap(d, PCI_CAP_ID_EXP, PCI_CAP_NORMAL);
        if (!cap) {
                /* Only now is it worth the system calls to say why. */
                a->pcie.config = sym_pci_read_block(d, 64, probe, sizeof(probe)) ? PCIE_CONFIG_NO_CAP
                                 : root_lstat(root, path, &st, NULL) < 0         ? PCIE_CONFIG_ABSENT
                                                                                 : PCIE_CONFIG_SHORT;
                return;
        }
        uint16_t ctl = sym_pci_read_word(d, cap->addr + PCI_EXP_DEVCTL);
        a->pcie.config = pcie_devctl_decode(ctl, &a->pcie.max_read_request, &a->pcie.max_payload) >= 0
                                 ? PCIE_CONFIG_READ
                                 : PCIE_CONFIG_INVALID;
}

static void read_config(struct root *root, struct pci_access *pacc, struct pci_device *a) {
        _cleanup_free_ char *p = device_path(a, "config");

        root_record_file(root, p); /* libpci reads it itself */
        a->pcie.config = PCIE_CONFIG_UNREAD;
        struct pci_dev *d = sym_pci_get_dev(pacc, (int) a->address.domain, (int) a->address.bus, (int) a->address.dev,
                                            (int) a->address.func);
        decode_config(root, d, a, p);
        sym_pci_free_dev(d);
}

/* Since Linux 4.13 the kernel gives a PCI Express function its link attributes (max_link_speed
 * and the others) and a conventional PCI function none. So on this machine's own sysfs, under
 * such a kernel, a device without them has no PCI Express capability, known without loading
 * libpci (about as long as numactl --hardware takes to run) to look for it. A capture is read
 * with libpci as always: its files may have been trimmed. */
static bool kernel_marks_pcie(struct root *root) {
        struct utsname u;
        unsigned major, minor;

        return root_is_live(root) && uname(&u) == 0 && sscanf(u.release, "%u.%u", &major, &minor) == 2 &&
               (major > 4 || (major == 4 && minor >= 13));
}

/* The Device Control sizes of accelerators and network adapters (drives have none read): absent
 * without a config file, unread where libpci is missing, kept out or failing, or without IDs. */
static void read_configs(struct root *root, struct warnings *w, struct pci_device **devs, size_t n) {
        bool safe = true, any = false, marked = kernel_marks_pcie(root);

        for (size_t i = 0; i < n; i++) {
                struct pci_device *a = devs[i];
                _cleanup_free_ char *p = device_path(a, "config"), *link = device_path(a, "max_link_speed");
                struct stat st;
                if (a->kind == PCI_STORAGE)
                        continue;
                a->pcie.config = root_lstat(root, p, &st, NULL) < 0 ? PCIE_CONFIG_ABSENT : PCIE_CONFIG_UNREAD;
                if (a->pcie.config == PCIE_CONFIG_ABSENT || !a->ids_known)
                        continue;
                if (marked && root_lstat(root, link, &st, NULL) < 0) {
                        a->pcie.config = PCIE_CONFIG_NO_CAP;
                        continue;
                }
                any = true;
                if (safe && root_is_capture(root))
                        safe = config_safe(root, w, a, &st);
        }
        struct pci_access *pacc = any && safe ? pci_open(root, w) : NULL;
        if (!pacc)
                return;
        for (size_t i = 0; i < n; i++)
                if (devs[i]->kind != PCI_STORAGE && devs[i]->ids_known && devs[i]->pcie.config == PCIE_CONFIG_UNREAD)
                        read_config(root, pacc, devs[i]);
        sym_pci_cleanup(pacc);
}

/* udev's hardware database: "pci:v000010DEd00002335" gives ID_VENDOR_FROM_DATABASE and
 * ID_MODEL_FROM_DATABASE, as libpci's own hwdb lookup asks it. */
struct names {
        bool hwdb_tried, ids_tried;
        struct udev *udev;
        struct udev_hwdb *hwdb;
        struct pci_ids ids;
};

/* Where sd_hwdb_new() looks for the compiled database, in its order: without one, libudev is not
 * worth loading (it takes longer than a name's lookup in pci.ids). */
static bool hwdb_present(void) {
        static const char *const paths[] = {"/etc/systemd/hwdb/hwdb.bin",     "/etc/udev/hwdb.bin",
                                            "/usr/lib/systemd/hwdb/hwdb.bin", "/lib/systemd/hwdb/hwdb.bin",
                                            "/usr/lib/udev/hwdb.bin",         "/lib/udev/hwdb.bin"};

        for (size_t i = 0; i < ELEMENTSOF(paths); i++)
                if (access(paths[i], F_OK) == 0)
                        return true;
        return false;
}

static void hwdb_lookup(struct names *h, const struct pci_device *a, char **ret_vendor, char **ret_model) {
        char key[64];

        if (!h->hwdb_tried) {
                h->hwdb_tried = true;
                if (hwdb_present() && dlopen_libudev() >= 0 && (h->udev = sym_udev_new()))
                        h->hwdb = sym_udev_hwdb_new(h->udev);
        }
        if (!h->hwdb)
                return;
        snprintf(key, sizeof(key), "pci:v%08Xd%08X", a->vendor, a->device);
        for (struct udev_list_entry *e = sym_udev_hwdb_get_properties_list_entry(h->hwdb, key, 0); e;
             e = sym_udev_list_entry_get_next(e)) {
                const char *name = sym_udev_list_entry_get_name(e), *value = sym_udev_list_entry_get_value(e);
                if (streq(name, "ID_VENDOR_FROM_DATABASE") && !*ret_vendor)
                        *ret_vendor = xstrdup(value);
                else if (streq(name, "ID_MODEL_FROM_DATABASE") && !*ret_model)
                        *ret_model = xstrdup(value);
        }
}

/* pci.ids where libpci finds it (this machine's, also for a capture, as lspci would name it). */
static void ids_lookup(struct names *h, const struct pci_device *a, char **ret_vendor, char **ret_model) {
        _cleanup_free_ char *v = NULL, *d = NULL;

        if (!h->ids_tried) {
                h->ids_tried = true;
                int r = pci_ids_open(PCI_IDS_PATH, &h->ids);
                if (r < 0)
                        log_debug("no PCI ID database at %s (%s); names left out", PCI_IDS_PATH, strerror(-r));
        }
        if (!h->ids.text)
                return;
        pci_ids_lookup(&h->ids, a->vendor, a->device, &v, &d);
        if (!*ret_vendor)
                *ret_vendor = TAKE_PTR(v);
        if (!*ret_model)
                *ret_model = TAKE_PTR(d);
}

static void names_done(struct names *h) {
        if (h->hwdb)
                sym_udev_hwdb_unref(h->hwdb);
        if (h->udev)
                sym_udev_unref(h->udev);
        pci_ids_close(&h->ids);
}

/* "Vendor Device" as lspci prints it. udev's hwdb first (mmap'ed and indexed); pci.ids only for
 * what hwdb lacks, or on hosts without it. */
static void lookup_name(struct names *h, struct pci_device *a) {
        _cleanup_free_ char *v = NULL, *d = NULL;

        hwdb_lookup(h, a, &v, &d);
        if (!v || !d)
                ids_lookup(h, a, &v, &d);
        if (v && d)
                a->name = xasprintf("%s %s", v, d);
        else if (v)
                a->name = xasprintf("%s Device %04x", v, a->device);
}

/* Devices of one model (eight GPUs) are looked up once. */
static void name_device(struct names *h, struct pci_device *list, size_t i) {
        for (size_t j = 0; j < i; j++)
                if (list[j].ids_known && list[j].vendor == list[i].vendor && list[j].device == list[i].device) {
                        list[i].name = list[j].name ? xstrdup(list[j].name) : NULL;
                        return;
                }
        lookup_name(h, &list[i]);
}

static int compare_devices(const void *x, const void *y) {
        const struct pci_device *a = x, *b = y;
        return pci_address_compare(&a->address, &b->address);
}

/* A drive's controller (nvme/<nvmeN>); a NIC's interfaces are nic_read_details()'s. */
static void read_iface(struct root *root, struct pci_device *a) {
        _cleanup_free_ char *dir = device_path(a, "nvme");
        struct dirent *de;
        _cleanup_closedir_ DIR *d = NULL;

        if (a->kind != PCI_STORAGE || root_opendir(root, dir, &d) < 0)
                return;
        while (!a->iface && (de = readdir(d)))
                if (de->d_name[0] != '.')
                        a->iface = xstrdup(de->d_name);
        /* Opened once more, so that a snapshot keeps the name. */
        _cleanup_free_ char *sub = a->iface ? xasprintf("%s/%s", dir, a->iface) : NULL;
        if (sub)
                root_record_dir(root, sub);
}

/* Each accelerator's number as CUDA (CUDA_DEVICE_ORDER=PCI_BUS_ID) and ROCm count them: its
 * place among its vendor's compute accelerators in PCI-address order. */
static void number_accelerators(struct topology *t) {
        for (size_t i = 0; i < t->n_accels; i++) {
                struct pci_device *a = &t->accels[i];
                a->index = -1;
                if (!a->compute || !a->ids_known)
                        continue;
                a->index = 0;
                for (size_t j = 0; j < i; j++)
                        a->index += t->accels[j].compute && t->accels[j].ids_known && t->accels[j].vendor == a->vendor;
        }
}

/* Moves the devices of `kind` from `list` into *ret. */
static void take_kind(struct pci_device *list, size_t n, enum pci_kind kind, struct pci_device **ret, size_t *ret_n) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
                k += list[i].kind == kind;
        *ret = xmalloc0((k + 1) * sizeof(**ret));
        *ret_n = 0;
        for (size_t i = 0; i < n; i++)
                if (list[i].kind == kind)
                        (*ret)[(*ret_n)++] = list[i];
}

int pci_read_devices(struct root *root, unsigned flags, struct warnings *w, struct topology *t) {
        struct pci_device *list;
        size_t n;
        struct names names = {0};

        find_candidates(root, flags, w, &list, &n);
        if (n == 0)
                return 0;

        for (size_t i = 0; i < n; i++)
                read_ids(root, w, &list[i]);
        for (size_t i = 0; i < n; i++) {
                struct pci_device *a = &list[i];
                read_numa_node(root, w, a);
                /* 32 files of a 32-GPU host that nothing but `show` reads once numa_node names the node. */
                if (flags & PCI_NAMES || a->sysfs_numa_node < 0)
                        read_local_cpus(root, w, a);
                read_iface(root, a);
                pci_device_resolve_node(a, a->sysfs_numa_node, t);
                a->compute = a->kind == PCI_ACCELERATOR && (!a->ids_known || pci_is_compute(a->vendor, a->class));
                if (flags & PCI_NAMES && a->ids_known)
                        name_device(&names, list, i);
        }
        names_done(&names);
        if (flags & PCI_CONFIG) {
                _cleanup_free_ struct pci_device **devs = xmalloc0(n * sizeof(*devs));
                for (size_t i = 0; i < n; i++)
                        devs[i] = &list[i];
                read_configs(root, w, devs, n);
        }

        if (n > 1)
                qsort(list, n, sizeof(*list), compare_devices);
        take_kind(list, n, PCI_ACCELERATOR, &t->accels, &t->n_accels);
        take_kind(list, n, PCI_NIC, &t->nics, &t->n_nics);
        take_kind(list, n, PCI_STORAGE, &t->storage, &t->n_storage);
        free(list);
        nic_read_details(root, t->nics, t->n_nics);
        number_accelerators(t);
        return 0;
}

void pci_read_config(struct root *root, struct topology *t) {
        struct warnings scratch = {0}; /* the first read warned already */
        size_t n = t->n_accels + t->n_nics;
        _cleanup_free_ struct pci_device **devs = xmalloc0((n + 1) * sizeof(*devs));

        for (size_t i = 0; i < t->n_accels; i++)
                devs[i] = &t->accels[i];
        for (size_t i = 0; i < t->n_nics; i++)
                devs[t->n_accels + i] = &t->nics[i];
        read_configs(root, &scratch, devs, n);
        warnings_done(&scratch);
}
