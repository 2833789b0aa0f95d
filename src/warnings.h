/* SPDX-License-Identifier: MIT */
#pragma once

struct root;
struct topology;

/* Adds SPEC's warnings (stable codes) about what hurts pinning on this host to t->warnings. */
void warnings_collect(struct root *root, struct topology *t);
