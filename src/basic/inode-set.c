/* SPDX-License-Identifier: MIT */
#include "basic/inode-set.h"
#include "basic/util.h"

static size_t slot(const struct inode_set *s, dev_t dev, ino_t ino) {
        /* splitmix64's finaliser: inode numbers come in runs, which it spreads over the table. */
        uint64_t h = (uint64_t) ino ^ ((uint64_t) dev << 32 | (uint64_t) dev >> 32);
        h = (h ^ (h >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        h = (h ^ (h >> 27)) * UINT64_C(0x94d049bb133111eb);
        h ^= h >> 31;
        size_t i = (size_t) h & (s->size - 1);
        while (s->v[i].used && !(s->v[i].dev == dev && s->v[i].ino == ino))
                i = (i + 1) & (s->size - 1);
        return i;
}

static void grow(struct inode_set *s) {
        struct inode_set bigger = {.size = s->size ? s->size * 2 : 64};
        bigger.v = xmalloc0(bigger.size * sizeof(*bigger.v));
        for (size_t i = 0; i < s->size; i++)
                if (s->v[i].used)
                        bigger.v[slot(&bigger, s->v[i].dev, s->v[i].ino)] = s->v[i];
        bigger.n = s->n;
        free(s->v);
        *s = bigger;
}

bool inode_set_add(struct inode_set *s, dev_t dev, ino_t ino) {
        if ((s->n + 1) * 2 > s->size) /* at most half full: probes stay short */
                grow(s);
        size_t i = slot(s, dev, ino);
        if (s->v[i].used)
                return false;
        s->v[i] = (struct inode_key){dev, ino, true};
        s->n++;
        return true;
}

void inode_set_done(struct inode_set *s) {
        free(s->v);
        *s = (struct inode_set){0};
}
