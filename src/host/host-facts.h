/* SPDX-License-Identifier: MIT */
#pragma once

/* Facts about the host that a live process learns from system calls and a replayed capture from
 * the files the kernel fills them from: both answer through the root (root_is_live()), so that a
 * replay never mixes in the facts of the machine it runs on. */

#include <stdbool.h>
#include <stdint.h>

#include "basic/cpuset.h"

struct root;

/* The base page size in bytes: sysconf() live, AT_PAGESZ of proc/self/auxv in a capture, else
 * 4096. */
uint64_t host_page_size(struct root *root);
/* This machine's, for what acts on it (migrate, prepare): the one sysconf() of host/. */
uint64_t live_page_size(void);
/* USER_HZ, the unit of /proc/PID/stat's times: sysconf() live; 100 in a capture, which is what
 * every Linux architecture exports to user space. */
long host_clock_ticks(struct root *root);
/* When the host booted, in seconds since the epoch; 0 when unknown. Live, from the clocks: btime
 * in /proc/stat is rounded to the second, too coarse to tell whether a process started just
 * before or just after its drop-in was written. A capture carries /proc/stat. */
double host_boot_time(struct root *root);
/* The CPUs and memory nodes this process may use: sched_getaffinity() and get_mempolicy() live,
 * proc/self/status in a capture. False when neither answers. */
bool host_allowed_sets(struct root *root, struct cpuset *ret_cpus, struct cpuset *ret_mems);
/* Whether `path` (under the root) is a cgroup v2 file system: statfs() live; -EOPNOTSUPP in a
 * capture, whose mount table says instead. */
int host_is_cgroup2(struct root *root, const char *path);
