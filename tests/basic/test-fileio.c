/* SPDX-License-Identifier: MIT */
/* Files as root in directories others may have prepared, in a temporary directory: reads that
 * never follow a link (-ELOOP), never open a FIFO, device or socket (-EBADFD) and stop at a size
 * (-EFBIG); the atomic replace and its temporaries, with a kill and a failure at each step (the
 * fault shim, tests/lib/fault-preload.c, linked into this test); directories opened or made
 * without following links; the lock and who holds it. */

#include <dirent.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "basic/fileio.h"
#include "basic/log.h"
#include "basic/util.h"
#include "capture.h"
#include "child.h"
#include "tap.h"
#include "tmproot.h"

static char *dir;

static char *at(const char *name) {
        return xasprintf("%s/%s", dir, name);
}

static char *content_of(const char *name) {
        _cleanup_free_ char *p = at(name);
        return read_whole(p);
}

static bool exists(const char *name) {
        _cleanup_free_ char *p = at(name);
        struct stat st;
        return lstat(p, &st) == 0;
}

/* The names in the test directory that are temporaries, counted. */
static unsigned temporaries(void) {
        _cleanup_close_ int fd = open_dir_at(AT_FDCWD, dir, false, NULL);
        DIR *d = fdopendir(TAKE_FD(fd));
        unsigned n = 0;
        for (struct dirent *de; d && (de = readdir(d));)
                n += is_temporary_name(de->d_name);
        if (d)
                closedir(d);
        return n;
}

struct replace {
        const char *name, *content;
};

static int replace_child(void *arg) {
        const struct replace *r = arg;
        _cleanup_close_ int fd = open_dir_at(AT_FDCWD, dir, false, NULL);
        return fd < 0 ? fd : write_file_atomic_at(fd, r->name, r->content);
}

/* The replace is two steps, the temporary and the rename; each child counts from 1, since this
 * process has set no fault when these run. */
static void hook(void) {
        struct replace r = {"hooked.conf", "new\n"};
        write_file(dir, "hooked.conf", "old\n");

        is_int(run_child(replace_child, &r, "NUMAPLAN_TEST_FAIL_AT_STEP=1"), -EIO,
               "step 1 (the temporary) fails with -EIO");
        _cleanup_free_ char *c1 = content_of("hooked.conf");
        ok(streq_ptr(c1, "old\n") && temporaries() == 0, "the file is as it was, no temporary");

        is_int(run_child(replace_child, &r, "NUMAPLAN_TEST_FAIL_AT_STEP=2"), -EIO,
               "step 2 (the rename) fails with -EIO");
        _cleanup_free_ char *c2 = content_of("hooked.conf");
        ok(streq_ptr(c2, "old\n") && temporaries() == 0, "the file is as it was, its temporary removed");

        is_int(run_child(replace_child, &r, "NUMAPLAN_TEST_KILL_AT_STEP=1"), CHILD_KILLED, "killed at step 1");
        _cleanup_free_ char *c3 = content_of("hooked.conf");
        ok(streq_ptr(c3, "old\n") && temporaries() == 0, "the file is as it was, nothing staged");

        is_int(run_child(replace_child, &r, "NUMAPLAN_TEST_KILL_AT_STEP=2"), CHILD_KILLED, "killed at step 2");
        _cleanup_free_ char *c4 = content_of("hooked.conf");
        ok(streq_ptr(c4, "old\n") && temporaries() == 1, "the file is as it was, the complete temporary left behind");

        is_int(run_child(replace_child, &r, "NUMAPLAN_TEST_KILL_AT_STEP=3"), 0, "no step 3: the replace is done");
        _cleanup_free_ char *c5 = content_of("hooked.conf");
        ok(streq_ptr(c5, "new\n"), "and the file replaced");

        _cleanup_close_ int fd = open_dir_at(AT_FDCWD, dir, false, NULL);
        write_file(dir, ".#hooked.conf.zzzzzz", "another run's\n");
        write_file(dir, ".#hooked.confX", "not a temporary of it\n");
        write_file(dir, ".#other.conf.abcdef", "another file's\n");
        remove_stale_temporaries_at(fd, "hooked.conf");
        ok(temporaries() == 2 && exists(".#hooked.confX") && exists(".#other.conf.abcdef") && exists("hooked.conf"),
           "remove_stale_temporaries_at removes the file's temporaries only");
        remove_stale_temporaries_at(fd, "other.conf");
        ok(temporaries() == 1 && !exists(".#other.conf.abcdef"), "and another file's when asked");
        _cleanup_free_ char *x = at(".#hooked.confX");
        unlink(x);
}

static void names(void) {
        ok(is_temporary_name(".#50-numaplan.conf.a1B2c3") && is_temporary_name(".#x"), "'.#...' is a temporary");
        ok(!is_temporary_name("50-numaplan.conf") && !is_temporary_name("#x") && !is_temporary_name(".x") &&
                   !is_temporary_name(".") && !is_temporary_name(""),
           "other names are not");
}

/* A read's result, freed when a read wrote one, and set back to `untouched`. */
static char untouched[] = "untouched";
static void reset(char **s) {
        if (*s != untouched)
                free(*s);
        *s = untouched;
}

static void reads(void) {
        _cleanup_close_ int fd = open_dir_at(AT_FDCWD, dir, false, NULL);
        char *s = untouched;

        write_file(dir, "plain", "line\n");
        ok(read_regular_at(fd, "plain", 100, &s) == 0 && streq(s, "line\n"), "a regular file is read whole");
        reset(&s);
        is_int(read_regular_at(fd, "absent", 100, &s), -ENOENT, "an absent file is -ENOENT");
        ok(s == untouched, "and *ret is left alone");

        _cleanup_free_ char *plain = at("plain"), *link = at("link");
        if (symlink(plain, link) < 0)
                abort();
        is_int(read_regular_at(fd, "link", 100, &s), -ELOOP, "a link is not followed: -ELOOP");
        ok(read_file(link, &s) == 0 && streq(s, "line\n"), "read_file() of a path follows it");
        reset(&s);

        _cleanup_free_ char *fifo = at("fifo");
        if (mkfifo(fifo, 0600) < 0)
                abort();
        s = untouched;
        is_int(read_regular_at(fd, "fifo", 100, &s), -EBADFD,
               "a FIFO is -EBADFD, and opening it does not wait for a writer");
        is_int(read_file(fifo, &s), -EBADFD, "by path too");

        _cleanup_free_ char *null = at("null");
        if (symlink("/dev/null", null) < 0)
                abort();
        is_int(read_file(null, &s), -EBADFD, "a device (through a link) is -EBADFD");

        _cleanup_free_ char *sock = at("sock");
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        _cleanup_close_ int sfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (strlen(sock) < sizeof(sa.sun_path)) {
                strcpy(sa.sun_path, sock);
                if (sfd < 0 || bind(sfd, (struct sockaddr *) &sa, sizeof(sa)) < 0)
                        abort();
                is_int(read_regular_at(fd, "sock", 100, &s), -EBADFD, "a socket is -EBADFD");
        } else
                ok(1, "a socket # SKIP the temporary directory's path is too long for one");
        if (mkdirat(fd, "subdir", 0755) < 0)
                abort();
        is_int(read_regular_at(fd, "subdir", 100, &s), -EISDIR, "a directory is -EISDIR");
        ok(s == untouched, "no failure wrote *ret");

        /* The limit: exactly `max` bytes are read, one more is -EFBIG; past the first buffer. */
        char big[10001];
        memset(big, 'x', sizeof(big) - 1);
        big[10000] = 0;
        write_file(dir, "big", big);
        ok(read_regular_at(fd, "big", 10000, &s) == 0 && strlen(s) == 10000, "a file of the limit's size is read");
        reset(&s);
        is_int(read_regular_at(fd, "big", 9999, &s), -EFBIG, "one byte past the limit is -EFBIG");
        is_int(read_file_max(plain, 4, &s), -EFBIG, "read_file_max() too");
        ok(s == untouched, "and *ret is left alone");
        _cleanup_free_ char *huge = xmalloc0(READ_FILE_MAX + 2);
        memset(huge, 'y', READ_FILE_MAX + 1);
        write_file(dir, "huge", huge);
        _cleanup_free_ char *huge_path = at("huge");
        is_int(read_file(huge_path, &s), -EFBIG, "read_file() stops at READ_FILE_MAX");

        /* A descriptor: all of it, NULs counted; a pipe with READ_ONE_SHOT ends at its short read. */
        int p[2];
        size_t len = 0;
        if (pipe(p) < 0 || write(p[1], "a\0b", 3) != 3)
                abort();
        ok(read_fd_all(p[0], 100, READ_ONE_SHOT, &s, &len) == 0 && len == 3 && memcmp(s, "a\0b", 4) == 0,
           "READ_ONE_SHOT: the one read, NULs and all, NUL-terminated, while the writer stays open");
        reset(&s);
        close(p[1]);
        ok(read_fd_all(p[0], 100, 0, &s, NULL) == 0 && streq(s, ""), "then end of file: empty");
        reset(&s);
        close(p[0]);
}

static void dirs(void) {
        bool created = true;
        _cleanup_free_ char *top = at("top");
        _cleanup_close_ int fd = open_dir_at(AT_FDCWD, top, false, &created);
        is_int(fd, -ENOENT, "an absent directory, without create: -ENOENT");
        ok(!created, "and not created");
        fd = open_dir_at(AT_FDCWD, top, true, &created);
        struct stat st;
        ok(fd >= 0 && created && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 07777) == 0755,
           "with create: made, 0755, and said so");
        closep(&fd);
        fd = open_dir_at(AT_FDCWD, top, true, &created);
        ok(fd >= 0 && !created, "an existing one is opened, not made");

        _cleanup_close_ int sub = open_dir_at(fd, "unit.d", true, NULL);
        ok(sub >= 0, "relative to a directory, ret_created NULL");
        _cleanup_free_ char *link = at("top/link.d"), *target = at("top/unit.d");
        if (symlink(target, link) < 0)
                abort();
        is_int(open_dir_at(fd, "link.d", false, NULL), -ELOOP, "a link to a directory: -ELOOP");
        is_int(open_dir_at(fd, "link.d", true, &created), -ELOOP, "also with create");
        _cleanup_free_ char *dangling = at("top/dangling.d");
        if (symlink("/nonexistent-numaplan-test", dangling) < 0)
                abort();
        is_int(open_dir_at(fd, "dangling.d", true, &created), -ELOOP, "a dangling link is not made a directory");
        ok(!created, "and nothing is made");
        write_file(dir, "top/file.d", "x");
        is_int(open_dir_at(fd, "file.d", true, NULL), -ENOTDIR, "a file: -ENOTDIR");

        _cleanup_free_ char *deep = at("a/b/c");
        ok(mkdir_parents(deep, 0755) == 0 && exists("a/b/c"), "mkdir_parents makes every component");
        ok(mkdir_parents(deep, 0755) == 0, "and is content when they exist");
        _cleanup_free_ char *through_file = at("top/file.d/x");
        is_int(mkdir_parents(through_file, 0755), -ENOTDIR, "through a file: -ENOTDIR");
}

static void writes(void) {
        _cleanup_close_ int fd = open_dir_at(AT_FDCWD, dir, false, NULL);
        struct stat st, st2;
        char *tmp = NULL;

        mode_t old_mask = umask(077);
        ok(write_temporary_at(fd, "t.conf", "staged\n", 0, &tmp) == 0 && is_temporary_name(tmp) &&
                   startswith(tmp, ".#t.conf.") && strlen(tmp) == strlen(".#t.conf.") + 6,
           "write_temporary_at: .#<name>.XXXXXX beside it");
        _cleanup_free_ char *staged = tmp ? content_of(tmp) : NULL;
        is_str(staged, "staged\n", "holding the content");
        ok(tmp && fstatat(fd, tmp, &st, AT_SYMLINK_NOFOLLOW) == 0 && (st.st_mode & 07777) == 0644,
           "mode 0644 whatever the umask");
        umask(old_mask);
        ok(tmp && rename_durably_at(fd, tmp, "t.conf") == 0 && !exists(tmp) && exists("t.conf"), "rename_durably_at");
        free(tmp);
        is_int(unlink_durably_at(fd, "t.conf"), 0, "unlink_durably_at");
        is_int(unlink_durably_at(fd, "t.conf"), -ENOENT, "again: -ENOENT");

        ok(write_file_atomic_at(fd, "a.conf", "one\n") == 0, "write_file_atomic_at creates");
        _cleanup_free_ char *a1 = content_of("a.conf");
        is_str(a1, "one\n", "the content");
        ok(fstatat(fd, "a.conf", &st, 0) == 0 && (st.st_mode & 07777) == 0644 && temporaries() == 0,
           "mode 0644, no temporary left");
        /* A replace is a new file renamed over the old: a hard link to the old keeps the old. */
        if (linkat(fd, "a.conf", fd, "a.old", 0) < 0)
                abort();
        ok(write_file_atomic_at(fd, "a.conf", "two\n") == 0 && fstatat(fd, "a.conf", &st2, 0) == 0 &&
                   st2.st_ino != st.st_ino,
           "a replace is a new inode");
        _cleanup_free_ char *a2 = content_of("a.conf"), *old = content_of("a.old");
        ok(streq_ptr(a2, "two\n") && streq_ptr(old, "one\n"), "the old file was never written in place");

        /* A link where the file belongs: the link is replaced, its target untouched. */
        write_file(dir, "outside", "theirs\n");
        _cleanup_free_ char *outside = at("outside");
        if (symlinkat(outside, fd, "l.conf") < 0)
                abort();
        ok(write_file_atomic_at(fd, "l.conf", "ours\n") == 0, "write_file_atomic_at over a link");
        _cleanup_free_ char *theirs = content_of("outside"), *ours = content_of("l.conf");
        ok(streq_ptr(theirs, "theirs\n") && fstatat(fd, "l.conf", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                   S_ISREG(st.st_mode) && streq_ptr(ours, "ours\n"),
           "never writes through it: the link's target is untouched, the link is now our file");

        /* A directory where the file belongs: the rename fails and the temporary goes. */
        if (mkdirat(fd, "d.conf", 0755) < 0)
                abort();
        ok(write_file_atomic_at(fd, "d.conf", "x\n") < 0 && temporaries() == 0,
           "a directory in the way: an error, no temporary");

        /* Volatile (a generator's directory): the same atomic replace, less the fsyncs. */
        ok(write_file_atomic_at_full(fd, "v.conf", "one\n", WRITE_VOLATILE) == 0 &&
                   write_file_atomic_at_full(fd, "v.conf", "two\n", WRITE_VOLATILE) == 0 && temporaries() == 0,
           "WRITE_VOLATILE: created and replaced, no temporary left");
        _cleanup_free_ char *v = content_of("v.conf");
        is_str(v, "two\n", "holding the new content");

        /* What the generator asks of its directory before it writes there without a journal. */
        ok(dir_is_empty_at(fd, "absent.d"), "dir_is_empty_at: an absent directory is empty");
        if (mkdirat(fd, "empty.d", 0755) < 0 || symlinkat("empty.d", fd, "link.d") < 0)
                abort();
        ok(dir_is_empty_at(fd, "empty.d"), "an empty one is");
        ok(!dir_is_empty_at(fd, "link.d"), "a link to one is not (never followed)");
        ok(!dir_is_empty_at(AT_FDCWD, dir), "one with files is not");
}

/* Holds the lock on `path` in a child until told on `release`; returns its PID. */
static pid_t hold_lock(const char *path, int *ret_release) {
        int go[2], ready[2];
        if (pipe(go) < 0 || pipe(ready) < 0)
                abort();
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0)
                abort();
        if (pid == 0) {
                char c = 0;
                close(go[1]);
                close(ready[0]);
                int fd = lock_file(path, 0);
                (void) !write(ready[1], &c, 1);
                (void) !read(go[0], &c, 1);
                _exit(fd >= 0 ? 0 : 1);
        }
        char c;
        close(go[0]);
        close(ready[1]);
        if (read(ready[0], &c, 1) != 1)
                abort();
        close(ready[0]);
        *ret_release = go[1];
        return pid;
}

static void locks(void) {
        _cleanup_free_ char *path = at("lock"), *link = at("lock-link"), *fifo = at("fifo");
        struct capture c;
        struct stat st;

        _cleanup_close_ int fd = lock_file(path, 0);
        ok(fd >= 0 && stat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0600,
           "lock_file creates the file, 0600, and locks it");
        capture_begin(&c, STDERR_FILENO);
        int again = lock_file(path, 0);
        _cleanup_free_ char *said = capture_end(&c);
        is_int(again, -ETIMEDOUT, "a second lock, even in this process, is refused: -ETIMEDOUT");
        _cleanup_free_ char *by_me = xasprintf("%s is held by PID %d after 0 s of waiting", path, (int) getpid());
        ok(strstr(said, by_me) != NULL, "naming the holder, this process");
        if (!strstr(said, by_me))
                printf("#   said '%s'\n", shown(said));
        closep(&fd);
        fd = lock_file(path, 0);
        ok(fd >= 0, "closed, it can be taken again");
        closep(&fd);

        int release;
        pid_t holder = hold_lock(path, &release);
        capture_begin(&c, STDERR_FILENO);
        again = lock_file(path, 1);
        _cleanup_free_ char *waited = capture_end(&c);
        is_int(again, -ETIMEDOUT, "held by another process for the whole timeout: -ETIMEDOUT");
        _cleanup_free_ char *waiting =
                                    xasprintf("waiting for another numaplan (PID %d) holding %s", (int) holder, path),
                            *held = xasprintf("%s is held by PID %d after 1 s of waiting", path, (int) holder);
        ok(strstr(waited, waiting) && strstr(waited, held), "it says it waits for that PID, then that it gave up");
        if (!strstr(waited, waiting) || !strstr(waited, held))
                printf("#   said '%s'\n", shown(waited));
        close(release);
        int status;
        ok(waitpid(holder, &status, 0) == holder && WIFEXITED(status) && WEXITSTATUS(status) == 0,
           "the holder had the lock");
        fd = lock_file(path, 0);
        ok(fd >= 0, "once it exits, the lock is free");

        if (symlink(path, link) < 0)
                abort();
        is_int(lock_file(link, 0), -ELOOP, "never through a link: -ELOOP");
        if (mkfifo(fifo, 0600) < 0 && errno != EEXIST)
                abort();
        is_int(lock_file(fifo, 0), -EBADFD, "a FIFO is -EBADFD");
}

int main(void) {
        _cleanup_tmpdir_ char *d = make_tmpdir();
        dir = d;
        umask(022);
        log_set_max_level(LOG_NOTICE);
        hook();
        names();
        reads();
        dirs();
        writes();
        _cleanup_tmpdir_ char *d2 = make_tmpdir();
        dir = d2;
        locks();
        return done_testing();
}
