/* SPDX-License-Identifier: MIT */
/* numaplan snapshot: a tar of exactly the sysfs and /proc files that topology discovery read, so
 * that `numaplan show --sysfs-root <extracted>` reproduces this host. It is what a user attaches
 * to a bug report, and how the project captures its own test hosts. */

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

#include "basic/log.h"
#include "basic/util.h"
#include "cli/verbs.h"
#include "host/archive-dl.h"
#include "host/root.h"
#include "stage/inputs.h"

/* A snapshot goes into bug reports: of the mount table, keep the lines numaplan uses (cgroup
 * and the pseudo file systems), not where the host keeps everything else. */
static char *filter_mounts(const struct root_entry *e, size_t *ret_len) {
        struct strbuf b = {0};
        for (const char *p = e->data; *p;) {
                const char *eol = strchrnul(p, '\n');
                char where[256] = "", type[32] = "";
                if (sscanf(p, "%*s %255s %31s", where, type) == 2 &&
                    (startswith(type, "cgroup") || startswith(where, "/sys/fs/cgroup") || streq(type, "sysfs") ||
                     streq(type, "proc")))
                        strbuf_printf(&b, "%.*s\n", (int) (eol - p), p);
                p = *eol ? eol + 1 : eol;
        }
        *ret_len = b.len;
        return strbuf_steal(&b);
}

/* Of the kernel command line, the IOMMU's parameters: the rest (root=, a cluster's secrets) is
 * the host's own business. */
static char *filter_cmdline(const struct root_entry *e, size_t *ret_len) {
        static const char *const keep[] = {"iommu=", "iommu.", "intel_iommu=", "amd_iommu="};
        struct strbuf b = {0};
        for (const char *p = e->data; *p;) {
                size_t n = strcspn(p, " \t\n");
                for (size_t i = 0; n && i < ELEMENTSOF(keep); i++)
                        if (strncmp(p, keep[i], strlen(keep[i])) == 0) {
                                strbuf_printf(&b, "%s%.*s", b.len ? " " : "", (int) n, p);
                                break;
                        }
                p += n;
                p += strspn(p, " \t\n");
        }
        strbuf_append(&b, "\n");
        *ret_len = b.len;
        return strbuf_steal(&b);
}

static int add_entry(struct archive *a, const struct root_entry *e_in, time_t now) {
        struct archive_entry *ae = sym_archive_entry_new();
        struct root_entry filtered = *e_in;
        const struct root_entry *e = e_in;
        _cleanup_free_ char *kept = NULL;
        int r = 0;

        if (e->data && (streq(e->path, "proc/self/mounts") || streq(e->path, "proc/mounts"))) {
                filtered.data = kept = filter_mounts(e_in, &filtered.len);
                e = &filtered;
        } else if (e->data && streq(e->path, "proc/cmdline")) {
                filtered.data = kept = filter_cmdline(e_in, &filtered.len);
                e = &filtered;
        }

        sym_archive_entry_set_pathname(ae, e->path);
        sym_archive_entry_set_mtime(ae, now, 0);
        if (e->link) {
                sym_archive_entry_set_filetype(ae, AE_IFLNK);
                sym_archive_entry_set_perm(ae, 0777);
                sym_archive_entry_set_symlink(ae, e->link);
        } else if (e->data) {
                sym_archive_entry_set_filetype(ae, AE_IFREG);
                sym_archive_entry_set_perm(ae, 0644);
                sym_archive_entry_set_size(ae, (la_int64_t) e->len);
        } else {
                sym_archive_entry_set_filetype(ae, AE_IFDIR);
                sym_archive_entry_set_perm(ae, 0755);
        }
        if (sym_archive_write_header(a, ae) != ARCHIVE_OK ||
            (e->data && e->len > 0 && sym_archive_write_data(a, e->data, e->len) != (la_ssize_t) e->len))
                r = log_error_errno(-EIO, "cannot add %s: %s", e->path, sym_archive_error_string(a));
        sym_archive_entry_free(ae);
        return r;
}

static int write_tar(int fd, const struct root *root) {
        size_t n;
        const struct root_entry *e = root_recorded(root, &n);
        time_t now = time(NULL);
        struct archive *a = sym_archive_write_new();
        int r = 0;

        if (sym_archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
            sym_archive_write_open_fd(a, fd) != ARCHIVE_OK)
                r = log_error_errno(-EIO, "cannot start the archive: %s", sym_archive_error_string(a));
        for (size_t i = 0; r == 0 && i < n; i++)
                r = add_entry(a, &e[i], now);
        if (sym_archive_write_close(a) != ARCHIVE_OK && r == 0)
                r = log_error_errno(-EIO, "cannot finish the archive: %s", sym_archive_error_string(a));
        sym_archive_write_free(a);
        return r;
}

/* Writes next to `path` and renames, so a failed capture never leaves a truncated tar behind. */
static int write_snapshot_file(const char *path, const struct root *root) {
        _cleanup_free_ char *tmp = xasprintf("%s.XXXXXX", path);
        _cleanup_close_ int fd = mkostemp(tmp, O_CLOEXEC);
        int r;

        if (fd < 0)
                return log_error_errno(-errno, "cannot create %s: %m", tmp);
        r = write_tar(fd, root);
        if (r == 0 && (fchmod(fd, 0644) < 0 || fsync(fd) < 0))
                r = log_error_errno(-errno, "cannot write %s: %m", tmp);
        if (r == 0 && rename(tmp, path) < 0)
                r = log_error_errno(-errno, "cannot rename %s to %s: %m", tmp, path);
        if (r < 0)
                (void) unlink(tmp);
        return r;
}

struct snapshot_args {
        const char *output;
};

static const struct verb_option options[] = {
        VERB_VALUE("output", 'o', struct snapshot_args, output, "FILE",
                   "write FILE (default numaplan-snapshot-HOSTNAME.tar; - for stdout)"),
        {},
};

static int run(const void *args, int argc, char **argv, const struct globals *g) {
        const struct snapshot_args *a = args;
        _cleanup_free_ char *default_path = NULL;
        const char *output = a->output;
        _cleanup_inputs_ struct inputs in = {0};
        int r;

        (void) argc;
        (void) argv;
        if (!output) {
                char host[256] = "host";
                (void) gethostname(host, sizeof(host) - 1);
                default_path = xasprintf("numaplan-snapshot-%s.tar", host);
                output = default_path;
        }
        if (streq(output, "-") && isatty(STDOUT_FILENO))
                return verb_usage_error("snapshot", "refusing to write a tar archive to a terminal");

        if (dlopen_libarchive() < 0)
                return EXIT_ENV;

        /* Everything show reads, warnings included, so that the replay shows the same. */
        r = inputs_host(g,
                        INPUTS_RECORD | INPUTS_NAMES | INPUTS_DEVICES | INPUTS_TUNING | INPUTS_IRQS | INPUTS_CPU_KINDS |
                                INPUTS_L3,
                        NULL, &in);
        if (r != EXIT_OK)
                return r;
        r = streq(output, "-") ? write_tar(STDOUT_FILENO, in.root) : write_snapshot_file(output, in.root);
        if (r == 0 && !streq(output, "-")) {
                size_t n;
                (void) root_recorded(in.root, &n);
                log_notice("wrote %s: %zu entries from %s; replay with 'numaplan show --sysfs-root DIR' after "
                           "extracting it",
                           output, n, root_path(in.root));
        }
        return r < 0 ? EXIT_ENV : EXIT_OK;
}

const struct verb verb_snapshot = {
        .name = "snapshot",
        .rank = 90,
        .summary = "capture the sysfs/procfs files numaplan reads",
        .options = options,
        .args_size = sizeof(struct snapshot_args),
        .max_args = 0,
        .run = run,
        .usage = "numaplan snapshot [-o FILE.tar]",
        .description = "Capture the sysfs and /proc files numaplan reads into a tar archive. Extract it and\n"
                       "run 'numaplan show --sysfs-root DIR' to see this host elsewhere.",
};
