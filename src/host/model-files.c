/* SPDX-License-Identifier: MIT */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sys/statfs.h>
#include <sys/syscall.h>

#include "basic/fileio.h"
#include "basic/inode-set.h"
#include "basic/util.h"
#include "host/model-files.h"

struct walk {
        model_file_fn fn;
        void *userdata;
        struct inode_set seen;
        dev_t dev_fs; /* the file system on /dev, when it is one of its own */
        bool have_dev_fs;
};

static bool seen_before(struct walk *w, const struct stat *st) {
        return !inode_set_add(&w->seen, st->st_dev, st->st_ino);
}

static int emit(struct walk *w, struct model_entry e) {
        return w->fn(&e, w->userdata);
}

/* `rel` below `tree`, resolved by the kernel without leaving it. A kernel without openat2()
 * (before 5.6) follows no link below a named directory at all. */
int model_open_beneath(int tree, const char *rel, int flags) {
        struct open_how how = {.flags = (uint64_t) flags, .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS};
        long fd = syscall(SYS_openat2, tree, rel, &how, sizeof(how));
        if (fd < 0 && errno == ENOSYS)
                fd = openat(tree, rel, flags | O_NOFOLLOW);
        return fd < 0 ? -errno : (int) fd;
}

/* Why what `fd` names is no model's file, or NULL: not a regular file or directory, or on one of
 * the kernel's own file systems, whose files are interfaces, not data. */
static const char *not_model(const struct walk *w, int fd, const struct stat *st) {
        static const struct {
                long magic;
                const char *what;
        } kernel_fs[] = {
                {PROC_SUPER_MAGIC, "on /proc"},       {SYSFS_MAGIC, "on /sys"},
                {DEVPTS_SUPER_MAGIC, "under /dev"},   {DEBUGFS_MAGIC, "on debugfs"},
                {TRACEFS_MAGIC, "on tracefs"},        {SECURITYFS_MAGIC, "on securityfs"},
                {CGROUP2_SUPER_MAGIC, "on cgroupfs"}, {CGROUP_SUPER_MAGIC, "on cgroupfs"},
                {BPF_FS_MAGIC, "on bpffs"},           {EFIVARFS_MAGIC, "on efivarfs"},
        };
        struct statfs fs;

        if (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode))
                return file_type_name(st->st_mode);
        if (w->have_dev_fs && st->st_dev == w->dev_fs)
                return "under /dev";
        if (fstatfs(fd, &fs) == 0)
                for (size_t i = 0; i < ELEMENTSOF(kernel_fs); i++)
                        if ((long) fs.f_type == kernel_fs[i].magic)
                                return kernel_fs[i].what;
        return NULL;
}

/* A regular file, once: opened for reading as it was found (same file), handed over, closed. */
static int walk_file(struct walk *w, int dirfd, const char *rel, const char *path, bool named, const struct stat *st) {
        if (seen_before(w, st))
                return 0;
        int fd = named ? open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
                       : model_open_beneath(dirfd, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        if (named && fd < 0)
                fd = -errno;
        struct stat now;
        if (fd >= 0 && (fstat(fd, &now) < 0 || now.st_dev != st->st_dev || now.st_ino != st->st_ino)) {
                close(fd);
                fd = -ESTALE; /* replaced between the look and the open */
        }
        if (fd < 0)
                return emit(
                        w, (struct model_entry){.event = MODEL_UNREACHABLE, .path = path, .named = named, .error = fd});
        int r = emit(w, (struct model_entry){.event = MODEL_FILE, .path = path, .named = named, .fd = fd, .st = &now});
        close(fd);
        return r;
}

static char *link_target(int tree, const char *rel) {
        char buf[4096];
        int fd = model_open_beneath(tree, rel, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        ssize_t n = fd < 0 ? -1 : readlinkat(fd, "", buf, sizeof(buf) - 1);
        if (fd >= 0)
                close(fd);
        if (n < 0)
                return NULL;
        buf[n] = 0;
        return xstrdup(buf);
}

static int walk_dir(struct walk *w, int tree, const char *rel, const char *path, unsigned depth);

/* An entry below a named directory: `rel` from the tree's top, `path` for messages. */
static int walk_entry(struct walk *w, int tree, const char *rel, const char *path, bool is_link, unsigned depth) {
        struct stat st;
        int fd = model_open_beneath(tree, rel, O_PATH | O_CLOEXEC);

        if (fd < 0 && is_link && (fd == -EXDEV || fd == -ELOOP || fd == -ENOENT)) {
                _cleanup_free_ char *target = link_target(tree, rel);
                /* ENOENT: a link to nothing in the tree, which may lead out of it once filled */
                return emit(w, (struct model_entry){.event = fd == -ENOENT ? MODEL_UNREACHABLE : MODEL_LINK_OUT,
                                                    .path = path,
                                                    .error = fd,
                                                    .target = target});
        }
        if (fd < 0)
                return emit(w, (struct model_entry){.event = MODEL_UNREACHABLE, .path = path, .error = fd});
        if (fstat(fd, &st) < 0) {
                int r = -errno;
                close(fd);
                return emit(w, (struct model_entry){.event = MODEL_UNREACHABLE, .path = path, .error = r});
        }
        const char *what = S_ISLNK(st.st_mode) ? NULL : not_model(w, fd, &st);
        close(fd);
        if (S_ISLNK(st.st_mode) || (what && is_link)) {
                _cleanup_free_ char *target = link_target(tree, rel);
                return emit(w, (struct model_entry){.event = MODEL_LINK_OUT,
                                                    .path = path,
                                                    .error = -EXDEV,
                                                    .what = what,
                                                    .target = target});
        }
        if (what && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
                /* a kernel file system mounted inside the tree */
                return emit(
                        w, (struct model_entry){.event = MODEL_NOT_FILE, .path = path, .error = -EBADFD, .what = what});
        if (S_ISDIR(st.st_mode) && depth >= MODEL_DEPTH_MAX)
                return emit(w, (struct model_entry){.event = MODEL_NOT_FILE,
                                                    .path = path,
                                                    .error = -ELOOP,
                                                    .what = "a directory " STRINGIFY(MODEL_DEPTH_MAX) " levels down"});
        if (S_ISDIR(st.st_mode))
                return walk_dir(w, tree, rel, path, depth);
        if (S_ISREG(st.st_mode))
                return walk_file(w, tree, rel, path, false, &st);
        return 0; /* a FIFO, socket or device in the tree is no file of the model */
}

struct name {
        char *name;
        bool is_link;
};

static int name_cmp(const void *a, const void *b) {
        return strcmp(((const struct name *) a)->name, ((const struct name *) b)->name);
}

/* The entries of the directory open as `fd` (taken over and closed, so that one directory is
 * open at a time however deep the walk), hidden ones left out: partial downloads, locks. */
static struct name *read_names(int fd, size_t *ret_n, int *ret_error) {
        _cleanup_closedir_ DIR *d = fd_opendir(fd);
        struct name *names = NULL;
        size_t n = 0;

        *ret_error = d ? 0 : -errno;
        for (struct dirent *de; d && (de = readdir(d));) {
                struct stat lst;
                if (de->d_name[0] == '.')
                        continue;
                bool link = de->d_type == DT_LNK;
                if (de->d_type == DT_UNKNOWN && fstatat(dirfd(d), de->d_name, &lst, AT_SYMLINK_NOFOLLOW) == 0)
                        link = S_ISLNK(lst.st_mode);
                names = xrealloc(names, (n + 1) * sizeof(*names));
                names[n++] = (struct name){xstrdup(de->d_name), link};
        }
        *ret_n = n;
        return names;
}

static int walk_dir(struct walk *w, int tree, const char *rel, const char *path, unsigned depth) {
        struct stat st;
        int fd = model_open_beneath(tree, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return emit(w, (struct model_entry){
                                       .event = MODEL_UNREACHABLE, .path = path, .named = depth == 0, .error = fd});
        if (fstat(fd, &st) < 0 || seen_before(w, &st)) {
                close(fd);
                return 0;
        }
        size_t n = 0;
        int error = 0;
        struct name *names = read_names(fd, &n, &error);
        if (error < 0)
                return emit(w, (struct model_entry){.event = MODEL_UNREACHABLE, .path = path, .error = error});
        if (n)
                qsort(names, n, sizeof(*names), name_cmp);

        int r = 0;
        for (size_t i = 0; i < n; i++) {
                if (r >= 0) {
                        _cleanup_free_ char *crel = streq(rel, ".") ? xstrdup(names[i].name)
                                                                    : xasprintf("%s/%s", rel, names[i].name),
                                            *cpath = xasprintf("%s/%s", path, names[i].name);
                        r = walk_entry(w, tree, crel, cpath, names[i].is_link, depth + 1);
                }
                free(names[i].name);
        }
        free(names);
        return r;
}

/* A Hugging Face snapshot, <repo>/snapshots/<rev> beside <repo>/blobs: its files link to
 * ../../blobs/<hash>, so the model's tree is the repository. Then *ret_tree is the repository and
 * *ret_rel the snapshot below it. Decided by the directories themselves, not their names as
 * given: the snapshot's parent must be the repository's "snapshots". */
static bool hugging_face_snapshot(int fd, const struct stat *st, int *ret_tree, char **ret_rel) {
        struct stat parent, snaps, blobs;
        _cleanup_close_ int repo = -1;

        if (fstatat(fd, "..", &parent, 0) < 0 || (repo = openat(fd, "../..", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
                return false;
        if (fstatat(repo, "snapshots", &snaps, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(snaps.st_mode) ||
            snaps.st_dev != parent.st_dev || snaps.st_ino != parent.st_ino ||
            fstatat(repo, "blobs", &blobs, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(blobs.st_mode))
                return false;
        _cleanup_closedir_ DIR *d = opendir_at(repo, "snapshots");
        for (struct dirent *de; d && (de = readdir(d));) {
                struct stat e;
                if (de->d_name[0] != '.' && fstatat(dirfd(d), de->d_name, &e, AT_SYMLINK_NOFOLLOW) == 0 &&
                    S_ISDIR(e.st_mode) && e.st_dev == st->st_dev && e.st_ino == st->st_ino) {
                        *ret_rel = xasprintf("snapshots/%s", de->d_name);
                        *ret_tree = TAKE_FD(repo);
                        return true;
                }
        }
        return false;
}

void model_tree(int fd, const struct stat *st, int *ret_tree, char **ret_rel) {
        *ret_rel = NULL;
        if (!hugging_face_snapshot(fd, st, ret_tree, ret_rel)) {
                *ret_tree = fcntl(fd, F_DUPFD_CLOEXEC, 3);
                *ret_rel = xstrdup(".");
        }
}

static int walk_named(struct walk *w, const char *path) {
        struct stat st;
        _cleanup_close_ int fd = open(path, O_PATH | O_CLOEXEC);

        if (fd < 0 || fstat(fd, &st) < 0)
                return emit(w, (struct model_entry){
                                       .event = MODEL_UNREACHABLE, .path = path, .named = true, .error = -errno});
        const char *what = not_model(w, fd, &st);
        if (what)
                return emit(w, (struct model_entry){.event = MODEL_NOT_FILE,
                                                    .path = path,
                                                    .named = true,
                                                    .error = -EBADFD,
                                                    .what = what,
                                                    .st = &st});
        if (S_ISREG(st.st_mode))
                return walk_file(w, AT_FDCWD, NULL, path, true, &st);

        _cleanup_free_ char *rel = NULL;
        int tree = -1;
        if (!hugging_face_snapshot(fd, &st, &tree, &rel))
                tree = TAKE_FD(fd);
        int r = walk_dir(w, tree, rel ? rel : ".", path, 0);
        close(tree);
        return r;
}

int model_files_walk(char *const *paths, model_file_fn fn, void *userdata) {
        struct walk w = {.fn = fn, .userdata = userdata};
        struct stat dev, root;
        int r = 0;

        /* /dev is devtmpfs, which looks like any tmpfs: told by its device, when it has its own. */
        if (stat("/dev", &dev) == 0 && stat("/", &root) == 0 && dev.st_dev != root.st_dev) {
                w.dev_fs = dev.st_dev;
                w.have_dev_fs = true;
        }
        for (size_t i = 0; r >= 0 && paths && paths[i]; i++)
                r = walk_named(&w, paths[i]);
        inode_set_done(&w.seen);
        return r;
}

struct sizing {
        uint64_t bytes, pages, page_size;
        char *bad;
        const char *what;
};

static int add_size(const struct model_entry *e, void *userdata) {
        struct sizing *s = userdata;
        switch (e->event) {
        case MODEL_FILE:
                s->bytes += (uint64_t) e->st->st_size;
                s->pages += ((uint64_t) e->st->st_size + s->page_size - 1) / s->page_size;
                return 0;
        case MODEL_UNREACHABLE:
                s->bad = xstrdup(e->path);
                return e->error;
        case MODEL_NOT_FILE:
                if (!e->named)
                        return 0;
                s->bad = xstrdup(e->path);
                s->what = e->what;
                return -EBADFD;
        case MODEL_LINK_OUT:
                return 0;
        }
        return 0;
}

int model_files_size(char *const *paths, uint64_t *ret, uint64_t *ret_in_pages, char **ret_path,
                     const char **ret_what) {
        long page = sysconf(_SC_PAGESIZE);
        struct sizing s = {.page_size = page > 0 ? (uint64_t) page : 4096};
        int r = model_files_walk(paths, add_size, &s);
        if (r < 0) {
                *ret_path = s.bad;
                *ret_what = s.what;
                return r;
        }
        *ret = s.bytes;
        *ret_in_pages = s.pages * s.page_size;
        return 0;
}
