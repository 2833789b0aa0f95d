/* SPDX-License-Identifier: MIT */
/* model-copies = per-node's copy step, in temporary directories (the tmpfs it mounts is the
 * guest's to test): a Hugging Face cache copied with its links, a copy made once and then found
 * fresh, a changed or removed file followed, links out of the tree left out, a dry run. */

#include <sys/stat.h>
#include <unistd.h>

#include "basic/log.h"
#include "basic/util.h"
#include "host/model-copy.h"
#include "tap.h"
#include "tmproot.h"

static char *in(const char *a, const char *b) {
        return xasprintf("%s/%s", a, b);
}

int main(void) {
        _cleanup_tmpdir_ char *d = make_tmpdir();
        _cleanup_free_ char *repo = in(d, "hf/models--org--m"), *dest = in(d, "copies");
        struct copy_stats st = {0};

        log_set_max_level(LOG_ERR - 1);
        write_file(d, "hf/models--org--m/blobs/aaa", "weights");
        write_file(d, "hf/models--org--m/blobs/bbb", "config");
        write_file(d, "hf/models--org--m/refs/main", "r1");
        write_file(d, "hf/models--org--m/.locks/x", "");
        write_file(d, "one.gguf", "gguf");
        _cleanup_free_ char *snap = in(repo, "snapshots/r1"), *l1 = in(snap, "model.safetensors"), *l2 = in(snap, "config.json"),
                            *l3 = in(snap, "passwd");
        _cleanup_free_ char *snaps = in(repo, "snapshots");
        mkdir(snaps, 0755);
        mkdir(snap, 0755);
        ok(symlink("../../blobs/aaa", l1) == 0 && symlink("../../blobs/bbb", l2) == 0 && symlink("/etc/passwd", l3) == 0,
           "a Hugging Face cache: snapshots linking into blobs, and one link out of it");
        mkdir(dest, 0755);

        char *paths[] = {repo, NULL, NULL};
        _cleanup_free_ char *one = in(d, "one.gguf");
        paths[1] = one;
        is_int(model_copy_files(dest, paths, true, &st), 0, "a dry run");
        _cleanup_free_ char *copied = model_copy_path(dest, repo), *copied_one = model_copy_path(dest, one);
        ok(access(copied, F_OK) < 0 && st.files == 4 && st.fresh == 0, "copies nothing, says what it would (%u files)", st.files);

        st = (struct copy_stats){0};
        is_int(model_copy_files(dest, paths, false, &st), 0, "the copy");
        ok(st.files == 4 && st.links == 2 && st.skipped == 1, "4 files, 2 links kept, the link out of the tree left out");
        _cleanup_free_ char *cl = in(copied, "snapshots/r1/model.safetensors"), *text = read_whole(cl);
        is_str(text, "weights", "a snapshot's link resolves in the copy, to the copy's blob");
        char target[256] = "";
        ssize_t k = readlink(cl, target, sizeof(target) - 1);
        ok(k > 0 && streq(target, "../../blobs/aaa"), "kept as the same relative link");
        _cleanup_free_ char *out = in(copied, "snapshots/r1/passwd"), *lock = in(copied, ".locks");
        ok(access(out, F_OK) < 0 && access(lock, F_OK) < 0, "nothing of the link out, nor of hidden files");
        _cleanup_free_ char *t1 = read_whole(copied_one);
        is_str(t1, "gguf", "a single file is copied under its own path");
        struct stat a, b;
        _cleanup_free_ char *blob = in(repo, "blobs/aaa"), *cblob = in(copied, "blobs/aaa");
        ok(stat(blob, &a) == 0 && stat(cblob, &b) == 0 && a.st_mtim.tv_sec == b.st_mtim.tv_sec &&
                   a.st_mtim.tv_nsec == b.st_mtim.tv_nsec && (a.st_mode & 0777) == (b.st_mode & 0777),
           "the copy keeps the original's time and mode");

        st = (struct copy_stats){0};
        is_int(model_copy_files(dest, paths, false, &st), 0, "a second start");
        ok(st.files == 0 && st.fresh == 4, "finds every copy fresh, copies nothing");

        write_file(d, "hf/models--org--m/blobs/aaa", "new weights");
        _cleanup_free_ char *bbb = in(repo, "blobs/bbb");
        unlink(bbb);
        st = (struct copy_stats){0};
        is_int(model_copy_files(dest, paths, false, &st), 0, "after the model changed");
        _cleanup_free_ char *t2 = read_whole(cblob), *gone = in(copied, "blobs/bbb");
        ok(st.files == 1 && t2 && streq(t2, "new weights"), "the changed file is copied again");
        ok(access(gone, F_OK) < 0, "a file the original no longer has goes from the copy");

        /* A snapshot named, not its repository: its links lead into the repository's blobs, the
         * model's tree, and the copy holds their files in their place. */
        char *snapshot[] = {snap, NULL};
        st = (struct copy_stats){0};
        is_int(model_copy_files(dest, snapshot, false, &st), 0, "a Hugging Face snapshot named");
        _cleanup_free_ char *csnap = model_copy_path(dest, snap), *cfile = in(csnap, "model.safetensors"),
                            *ctext = read_whole(cfile), *cout = in(csnap, "passwd");
        struct stat ls;
        ok(ctext && streq(ctext, "new weights") && lstat(cfile, &ls) == 0 && S_ISREG(ls.st_mode),
           "its link into the blobs arrives as the blob's file");
        ok(access(cout, F_OK) < 0 && st.skipped == 2, "the link out of the repository, and the one to a blob gone, are left out");

        char *missing[] = {(char *) "/nonexistent/model", NULL};
        st = (struct copy_stats){0};
        ok(model_copy_files(dest, missing, false, &st) == -ENOENT, "a model that is not there: nothing to copy");

        _cleanup_free_ char *models = in(d, "models"), *n0 = in(models, "node0"), *n1 = in(models, "nodes0-1"),
                            *other = in(models, "other");
        mkdir(models, 0755);
        mkdir(n0, 0755);
        mkdir(n1, 0755);
        mkdir(other, 0755);
        write_file(d, "models/nodes0-1/x", "x");
        char *keep[] = {(char *) "node0", NULL};
        is_int(model_copies_prune(models, keep), 1, "prune: one directory of copies not kept");
        ok(access(n0, F_OK) == 0 && access(n1, F_OK) < 0 && access(other, F_OK) == 0,
           "it went, the kept one and what is not numaplan's stay");
        return done_testing();
}
