/* SPDX-License-Identifier: MIT */
#pragma once

/* Where a node's model copies live (model-copies = per-node): <models>/nodeN, a tmpfs numaplan
 * mounts there, bound to the node. Root mounts it for the unit's user, who then copies into it,
 * and root takes it away again; so that no user steers root, each step is taken by descriptor:
 *   - <models> and each directory above it belong to root (or to whoever runs this, for a test),
 *     none is a link, and none is writable by others but a sticky one such as /tmp: nobody else
 *     can swap a name on the way;
 *   - <models>/.nodeN.lock is taken before anything is mounted, so that replicas starting
 *     together mount once and copy once;
 *   - nodeN is a directory, not a link (refused: the tmpfs would go where it points), and either
 *     no mount point, or numaplan's own tmpfs (source "numaplan-models"): any other mount is
 *     refused, since the tmpfs would hide it and `remove` would later delete what is below;
 *   - the tmpfs belongs to the unit's user (root, for a unit without User=): one that belongs to
 *     another user is refused, since that user could swap what this unit's server then reads. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct cpuset;

/* The source numaplan gives its tmpfs mounts, by which it knows them again. */
#define COPY_PLACE_SOURCE "numaplan-models"

struct copy_place {
        int fd;    /* the tmpfs' root, open for reading (-1: nothing mounted yet, in a dry run) */
        int lock;  /* <models>/.nodeN.lock, held until copy_place_done() */
        dev_t dev; /* the tmpfs': nothing beyond it is touched */
};

/* The tmpfs a directory of copies needs. */
struct copy_tmpfs {
        const struct cpuset *nodes; /* its memory policy: bound to these */
        uint64_t size;              /* bytes it must hold */
        uid_t uid;                  /* the server's user and group, who own it */
        gid_t gid;
};

/* Opens `dir` (absolute) as above, mounting the tmpfs `fs` or growing it. Root only. Each refusal
 * is said, naming what is wrong, and returns -errno (-ELOOP a link, -EBUSY another mount, -EPERM
 * another user's tmpfs or a directory others could change). With `dry`, changes nothing and says
 * what it would do. */
int copy_place_open(const char *dir, const struct copy_tmpfs *fs, bool dry, struct copy_place *ret);
void copy_place_done(struct copy_place *p);

/* Opens `path` (absolute) as a directory only root (or this process's user) can change, checked
 * as above, component by component; with `create`, makes what is missing (0755). -errno, said. */
int held_dir_open(const char *path, bool create, int *ret);

/* Takes away each directory of copies under `models_dir` ("node1", "nodes0-1") that `keep`
 * (NULL-terminated, may be NULL) does not name: numaplan's tmpfs unmounted (lazily: a server that
 * still maps a copy keeps its pages until it unmaps them), then what is left removed, within its
 * file system. A directory that is a link, holds another mount, or whose lock is held is left as
 * it is, and said. Returns how many went. */
int copy_places_prune(const char *models_dir, char *const *keep);

/* The server's NUMAPLAN_MODEL, in the file systemd reads for it after prepare ran
 * (EnvironmentFile=): made (as root, in a directory held as above) naming `model`, the original,
 * and kept open as *ret for model_env_write() once the copy is whole. -errno, said. */
int model_env_open(const char *path, const char *model, int *ret);
int model_env_write(int fd, const char *path, const char *model);
