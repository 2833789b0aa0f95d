/* SPDX-License-Identifier: MIT */
/* model-copies = per-node's copy step, in temporary directories (the tmpfs it mounts is the CLI
 * tests' and the guest's to test): a Hugging Face cache copied with its links, a copy made once
 * and then found fresh, a changed or removed file followed; a model that cannot be copied whole
 * (a link out of its tree, a tree too deep) gets a link to its original instead of a part; names
 * of 255 bytes; a copy whose directories a user swapped for links, which is never followed out;
 * the pruning of directories of copies, which follows no link either. */

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "basic/log.h"
#include "basic/util.h"
#include "live/copy-place.h"
#include "live/model-copy.h"
#include "tap.h"
#include "tmproot.h"

static char *in(const char *a, const char *b) {
        return xasprintf("%s/%s", a, b);
}

static struct copy_stats st;

/* Copies `paths` into the directory `dest` as prepare does into its tmpfs. */
static enum copy_outcome copy(const char *dest, char **paths, bool dry) {
        int fd = open(dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        struct stat s;
        st = (struct copy_stats){0};
        if (fd < 0 || fstat(fd, &s) < 0)
                return COPY_NONE;
        enum copy_outcome o = model_copy_files(fd, s.st_dev, dest, paths, dry, &st);
        close(fd);
        return o;
}

static bool is_link_to(const char *path, const char *target) {
        char buf[4096];
        ssize_t k = readlink(path, buf, sizeof(buf) - 1);
        if (k < 0)
                return false;
        buf[k] = 0;
        return streq(buf, target);
}

static void hugging_face(const char *d) {
        _cleanup_free_ char *repo = in(d, "hf/models--org--m"), *snap = in(repo, "snapshots/r1");
        _cleanup_free_ char *l1 = in(snap, "model.safetensors"), *l2 = in(snap, "config.json"), *dest = in(d, "copies");
        write_file(d, "hf/models--org--m/blobs/aaa", "weights");
        write_file(d, "hf/models--org--m/blobs/bbb", "config");
        write_file(d, "hf/models--org--m/refs/main", "r1");
        write_file(d, "hf/models--org--m/.locks/x", "");
        write_file(d, "one.gguf", "gguf");
        _cleanup_free_ char *snaps = in(repo, "snapshots");
        mkdir(snaps, 0755);
        mkdir(snap, 0755);
        ok(symlink("../../blobs/aaa", l1) == 0 && symlink("../../blobs/bbb", l2) == 0,
           "a Hugging Face cache: snapshots linking into blobs");
        mkdir(dest, 0755);

        _cleanup_free_ char *one = in(d, "one.gguf");
        char *paths[] = {repo, one, NULL};
        is_int(copy(dest, paths, true), COPY_WHOLE, "a dry run");
        _cleanup_free_ char *copied = model_copy_path(dest, repo), *copied_one = model_copy_path(dest, one);
        ok(access(copied, F_OK) < 0 && st.files == 4 && st.fresh == 0, "copies nothing, says what it would (%u files)",
           st.files);

        is_int(copy(dest, paths, false), COPY_WHOLE, "the copy: whole");
        ok(st.files == 4 && st.links == 2 && st.partial == 0, "4 files, 2 links kept");
        _cleanup_free_ char *cl = in(copied, "snapshots/r1/model.safetensors"), *text = read_whole(cl);
        is_str(text, "weights", "a snapshot's link resolves in the copy, to the copy's blob");
        ok(is_link_to(cl, "../../blobs/aaa"), "kept as the same relative link");
        _cleanup_free_ char *lock = in(copied, ".locks"), *t1 = read_whole(copied_one);
        ok(access(lock, F_OK) < 0, "nothing of hidden files");
        is_str(t1, "gguf", "a single file is copied under its own path");
        struct stat a, b;
        _cleanup_free_ char *blob = in(repo, "blobs/aaa"), *cblob = in(copied, "blobs/aaa");
        ok(stat(blob, &a) == 0 && stat(cblob, &b) == 0 && a.st_mtim.tv_sec == b.st_mtim.tv_sec &&
                   a.st_mtim.tv_nsec == b.st_mtim.tv_nsec && (a.st_mode & 0777) == (b.st_mode & 0777),
           "the copy keeps the original's time and mode");

        is_int(copy(dest, paths, false), COPY_WHOLE, "a second start");
        ok(st.files == 0 && st.fresh == 4, "finds every copy fresh, copies nothing");

        write_file(d, "hf/models--org--m/blobs/aaa", "new weights");
        _cleanup_free_ char *bbb = in(repo, "blobs/bbb");
        unlink(bbb);
        is_int(copy(dest, paths, false), COPY_WHOLE, "after the model changed");
        _cleanup_free_ char *t2 = read_whole(cblob), *gone = in(copied, "blobs/bbb");
        ok(st.files == 1 && t2 && streq(t2, "new weights"), "the changed file is copied again");
        ok(access(gone, F_OK) < 0, "a file the original no longer has goes from the copy");
        write_file(d, "hf/models--org--m/blobs/bbb", "config");

        /* A snapshot named, not its repository: its links lead into the repository's blobs, the
         * model's tree, and the copy holds their files in their place. */
        char *snapshot[] = {snap, NULL};
        is_int(copy(dest, snapshot, false), COPY_WHOLE, "a Hugging Face snapshot named");
        _cleanup_free_ char *csnap = model_copy_path(dest, snap), *cfile = in(csnap, "model.safetensors"),
                            *ctext = read_whole(cfile);
        struct stat ls;
        ok(ctext && streq(ctext, "new weights") && lstat(cfile, &ls) == 0 && S_ISREG(ls.st_mode),
           "its link into the blobs arrives as the blob's file");
        _cleanup_free_ char *l3 = in(snap, "passwd");
        ok(symlink("/etc/passwd", l3) == 0, "a link out of the repository");
        is_int(copy(dest, snapshot, false), COPY_LINKED, "then no whole copy of the snapshot");
        ok(is_link_to(csnap, snap), "its copy is the link to the original, not part of one");

        char *missing[] = {(char *) "/nonexistent/model", NULL};
        is_int(copy(dest, missing, false), COPY_LINKED, "a model that is not there: a link to where it would be");
}

/* A user who owns the copy swaps its directories for links: nothing is written or removed
 * through them. */
static void swapped(const char *d) {
        _cleanup_free_ char *model = in(d, "m"), *dest = in(d, "swap"), *outside = in(d, "outside"),
                            *victim = in(outside, "keep"), *sub = NULL;
        write_file(d, "m/sub/a.bin", "a");
        write_file(d, "m/b.bin", "b");
        write_file(d, "outside/keep", "precious");
        mkdir(dest, 0755);
        char *paths[] = {model, NULL};
        is_int(copy(dest, paths, false), COPY_WHOLE, "a model copied");
        _cleanup_free_ char *cmodel = model_copy_path(dest, model);
        sub = in(cmodel, "sub");
        _cleanup_free_ char *sub_a = in(sub, "a.bin");
        unlink(sub_a);
        rmdir(sub);
        ok(symlink(outside, sub) == 0, "its directory sub swapped for a link to another directory");
        _cleanup_free_ char *before = tree_state(outside, true);
        is_int(copy(dest, paths, false), COPY_WHOLE, "copied again");
        _cleanup_free_ char *after = tree_state(outside, true), *keep = read_whole(victim);
        is_str(after, before, "nothing written or removed where the link pointed");
        ok(lstat(sub, &(struct stat){0}) == 0 && access(sub_a, F_OK) == 0, "the link replaced by the copy's directory");

        /* A directory above the copy (the model's own parents) swapped for a link. */
        char *top = xstrdup(model + 1);
        *strchr(top, '/') = 0;
        _cleanup_free_ char *ctop = in(dest, top), *moved = in(d, "swap-moved");
        free(top);
        ok(rename(ctop, moved) == 0 && symlink(outside, ctop) == 0, "a parent of the copy swapped for a link");
        is_int(copy(dest, paths, false), COPY_WHOLE, "copied again");
        _cleanup_free_ char *after2 = tree_state(outside, true);
        is_str(after2, before, "nothing written or removed through it");
}

static void hard_shapes(const char *d) {
        _cleanup_free_ char *dest = in(d, "shapes");
        mkdir(dest, 0755);
        char name[256];
        memset(name, 'n', 255);
        name[255] = 0;
        _cleanup_free_ char *rel = xasprintf("long/%s", name), *longdir = in(d, "long");
        write_file(d, rel, "long");
        char *paths[] = {longdir, NULL};
        is_int(copy(dest, paths, false), COPY_WHOLE, "a file name of 255 bytes");
        _cleanup_free_ char *clong = model_copy_path(dest, longdir), *cfile = in(clong, name), *t = read_whole(cfile);
        is_str(t, "long", "copied under its name");

        struct strbuf deep = {0};
        strbuf_append(&deep, "deep");
        for (int i = 0; i < 20; i++)
                strbuf_append(&deep, "/d");
        strbuf_append(&deep, "/f");
        write_file(d, deep.s, "20 levels");
        _cleanup_free_ char *deepdir = in(d, "deep");
        char *dp[] = {deepdir, NULL};
        is_int(copy(dest, dp, false), COPY_WHOLE, "a file 20 directories down: copied");
        strbuf_done(&deep);
        strbuf_append(&deep, "deeper");
        for (int i = 0; i < 40; i++)
                strbuf_append(&deep, "/d");
        strbuf_append(&deep, "/f");
        write_file(d, deep.s, "40 levels");
        strbuf_done(&deep);
        _cleanup_free_ char *deeper = in(d, "deeper"), *cdeeper = model_copy_path(dest, deeper);
        char *dp2[] = {deeper, NULL};
        is_int(copy(dest, dp2, false), COPY_LINKED, "40 directories down: refused with a message, the original linked");
        ok(is_link_to(cdeeper, deeper), "not part of it");
}

static void prune(const char *d) {
        _cleanup_free_ char *models = in(d, "models"), *n0 = in(models, "node0"), *n1 = in(models, "nodes0-1"),
                            *other = in(models, "other"), *nl = in(models, "node9"), *outside = in(d, "prune-outside");
        write_file(d, "models/nodes0-1/x", "x");
        write_file(d, "prune-outside/keep", "precious");
        mkdir(n0, 0755);
        mkdir(other, 0755);
        ok(symlink(outside, nl) == 0, "a directory of copies swapped for a link");
        char *keep[] = {(char *) "node0", NULL};
        is_int(copy_places_prune(models, keep), 1, "prune: one directory of copies not kept");
        _cleanup_free_ char *victim = in(outside, "keep"), *t = read_whole(victim);
        ok(access(n0, F_OK) == 0 && access(n1, F_OK) < 0 && access(other, F_OK) == 0,
           "it went, the kept one and what is not numaplan's stay");
        ok(t && streq(t, "precious") && is_link_to(nl, outside), "the link and what it points to are left as they are");
        chmod(models, 0777);
        is_int(copy_places_prune(models, NULL), 0, "a directory of copies others may write: nothing pruned");
}

int main(void) {
        _cleanup_tmpdir_ char *d = make_tmpdir();

        log_set_max_level(LOG_ERR - 1);
        chmod(d, 0755);
        hugging_face(d);
        swapped(d);
        hard_shapes(d);
        prune(d);
        return done_testing();
}
