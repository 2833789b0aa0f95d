#!/usr/bin/env python3
# Writes a C program that makes the system calls a command made to read a replayed host, and
# nothing else: a floor under that command's own work. From strace's record of one run of the
# command (strace -f -y -e trace=openat,openat2,readlinkat,getdents64 -o RECORD), each open beneath
# ROOT is made again relative to the directory it was made from (each such directory opened once,
# as numaplan keeps them), each file read to its end and closed, each directory listed, each link
# read; opens that failed are made again too (a probe costs the same whether or not the file is
# there). What lies outside ROOT (the program's libraries, its configuration, its output) is left
# to the command's own work. The program is compiled as the empty program is (cc -O2).
# Usage: syscall-floor.py ROOT RECORD > floor.c
import os
import re
import sys

OPEN = re.compile(r'(?:\d+ +)?(openat2?)\((AT_FDCWD|\d+)<([^>]*)>, "((?:[^"\\]|\\.)*)", (?:\{flags=)?([A-Z_|0-9]+)')
LINK = re.compile(r'(?:\d+ +)?readlinkat\((\d+)<([^>]*)>, "((?:[^"\\]|\\.)*)"')


def beneath(root, path):
    rel = os.path.relpath(path, root)
    return None if rel == ".." or rel.startswith("../") else rel


def c_string(s):
    return '"%s"' % s.replace("\\", "\\\\").replace('"', '\\"')


def main(root, record):
    root = os.path.realpath(root)
    dirs, ops = ["."], []

    def dir_index(rel):
        if rel not in dirs:
            dirs.append(rel)
        return dirs.index(rel)

    def add(kind, at, name):
        """An operation on NAME opened from the directory AT (this machine's path)."""
        if name.startswith("/"):
            at, name = root, os.path.relpath(name, root) if beneath(root, name) else None
        if name is None:
            return
        d = beneath(root, at)
        if d is None:
            rel = beneath(root, os.path.normpath(os.path.join(at, name)))
            if rel is None:
                return
            d, name = ".", rel
        ops.append((kind, dir_index(d), name))

    for line in open(record):
        m = OPEN.match(line)
        if m:
            _, _, at, name, flags = m.groups()
            kind = "p" if "O_PATH" in flags else "d" if "O_DIRECTORY" in flags else "f"
            add(kind, at, name.encode().decode("unicode_escape"))
            continue
        m = LINK.match(line)
        if m:
            add("l", m.group(2), m.group(3).encode().decode("unicode_escape"))

    # A directory opened to be kept is opened once, up front; another O_PATH open (a probe, such
    # as a node's access0) is made again where it was.
    ops = [(k, d, n) for k, d, n in ops if k != "p" or os.path.normpath(os.path.join(dirs[d], n)) not in dirs]
    if len(dirs) > 255:
        sys.exit("syscall-floor.py: more than 255 directories")
    print("""/* Made by tests/bench/syscall-floor.py: %d operations. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Names in place, not pointers: nothing for the loader to relocate. */
static const char dirs[][%d] = {%s};
static const struct {
        char kind;
        unsigned char dir;
        char name[%d];
} ops[] = {%s};

int main(int argc, char **argv) {
        static char buf[1 << 16];
        int fds[sizeof(dirs) / sizeof(*dirs)];

        if (argc != 2)
                return 2;
        fds[0] = open(argv[1], O_PATH | O_DIRECTORY | O_CLOEXEC);
        for (unsigned i = 1; i < sizeof(dirs) / sizeof(*dirs); i++) {
                struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
                                       .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};
                fds[i] = (int) syscall(SYS_openat2, fds[0], dirs[i], &how, sizeof(how));
        }
        for (unsigned i = 0; i < sizeof(ops) / sizeof(*ops); i++) {
                int at = fds[ops[i].dir];
                if (ops[i].kind == 'l') {
                        (void) readlinkat(at, ops[i].name, buf, sizeof(buf));
                        continue;
                }
                int flags = ops[i].kind == 'p' ? O_PATH | O_DIRECTORY : ops[i].kind == 'd' ? O_RDONLY | O_DIRECTORY : O_RDONLY;
                struct open_how how = {.flags = (unsigned) flags | O_CLOEXEC,
                                       .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS};
                int fd = (int) syscall(SYS_openat2, at, ops[i].name, &how, sizeof(how));
                if (fd < 0)
                        continue;
                if (ops[i].kind == 'p')
                        ;
                else if (ops[i].kind == 'd')
                        while (syscall(SYS_getdents64, fd, buf, sizeof(buf)) > 0)
                                ;
                else
                        while (read(fd, buf, sizeof(buf)) == (ssize_t) sizeof(buf))
                                ;
                close(fd);
        }
        return 0;
}""" % (len(ops), max(len(d) for d in dirs) + 1, ", ".join(c_string(d) for d in dirs),
        max((len(n) for _, _, n in ops), default=0) + 1,
        ", ".join("{'%s', %d, %s}" % (k, d, c_string(n)) for k, d, n in ops)))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: syscall-floor.py ROOT RECORD > floor.c")
    main(sys.argv[1], sys.argv[2])
