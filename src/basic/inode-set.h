/* SPDX-License-Identifier: MIT */
#pragma once

/* A set of files by device and inode, for walks that must see each file once however many links
 * reach it: constant time a file, so that a tree of 100,000 files costs 100,000 lookups, not
 * their square. */

#include <stdbool.h>
#include <sys/types.h>

struct inode_set {
        struct inode_key {
                dev_t dev;
                ino_t ino;
                bool used;
        } * v;
        size_t n, size; /* entries held, slots (a power of two, or 0) */
};

/* Adds the file; whether it was not there yet. */
bool inode_set_add(struct inode_set *s, dev_t dev, ino_t ino);
void inode_set_done(struct inode_set *s);
