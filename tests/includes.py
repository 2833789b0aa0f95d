#!/usr/bin/python3
"""Include what you use: no file of src/ includes a header it uses nothing of. Checked with
include-what-you-use (Debian's iwyu, on clang), run on every file of src/ as the build's
compile_commands.json compiles it; each .c is judged with its own header, and a header without a
.c of its own wherever it is included.

Why iwyu and not a script of our own: it reads the code as a compiler does (macros, typedefs,
struct tags, what a macro's expansion uses), knows which glibc header is the public one for each
name, and gives the same answer on every run of the same tree. Only its removals are checked:
the headers it would add are mostly the C library's, which numaplan takes from basic/util.h on
purpose. With --no_fwd_decls a header counts as used when the file names a type it declares,
even through a pointer. tests/includes.imp maps json-c's headers to <json-c/json.h>, the one its
documentation names. TAP, a point per file. Usage: includes.py BUILD_DIR SOURCE_ROOT"""
import concurrent.futures
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

IWYU = 'include-what-you-use'
# Removals iwyu 8.18 gets wrong, each with the use that keeps the include: its glibc table
# makes <sys/syscall.h> private to <syscall.h>, which syscall(2) does not name (and a mapping
# cannot turn around).
KEEP = {'<sys/syscall.h>': re.compile(r'\bSYS_\w+')}

n = 0
failed = 0


def point(cond, desc, diag=''):
    global n, failed
    n += 1
    failed += not cond
    print('%sok %d - %s' % ('' if cond else 'not ', n, desc))
    for line in diag.splitlines() if not cond else []:
        print('#   ' + line)


def iwyu_args(entry, extra):
    """The compiler's arguments of a compile_commands.json entry, for iwyu: no output files."""
    args = entry['arguments'] if 'arguments' in entry else shlex.split(entry['command'])
    out = []
    skip = False
    for a in args[1:]:
        if skip:
            skip = False
            continue
        if a in ('-o', '-MF', '-MQ', '-MT'):
            skip = True
            continue
        if a in ('-c', '-MD', '-MMD'):
            continue
        out.append(a)
    # -w: warnings are gcc's business (and -Werror would stop clang at one only it gives).
    return [IWYU] + extra + ['-w'] + out


def run(entry, extra):
    p = subprocess.run(iwyu_args(entry, extra), cwd=entry['directory'], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    return entry, p.stdout


def verdicts(directory, text):
    """{path: [removed include lines]} for every file iwyu judged in `text`, and any fatal error."""
    found = {}
    current = None
    for line in text.splitlines():
        m = re.match(r'^\((.*) has correct #includes/fwd-decls\)$', line)
        if m:
            found.setdefault(os.path.normpath(os.path.join(directory, m.group(1))), [])
            current = None
            continue
        m = re.match(r'^(.*) should (add|remove) these lines:$', line)
        if m:
            path = os.path.normpath(os.path.join(directory, m.group(1)))
            found.setdefault(path, [])
            current = path if m.group(2) == 'remove' else None
            continue
        if not line.strip() or line.startswith('The full include-list'):
            current = None
            continue
        m = re.match(r'^- (#include\s+\S+)\s+// lines (\d+)-\d+', line)
        if current and m:
            found[current].append((int(m.group(2)), m.group(1)))
    errors = [l for l in text.splitlines() if ': fatal error:' in l or ': error:' in l]
    return found, errors


def self_check(extra):
    """iwyu, as this script runs it, reports an include nothing uses: the check can fail."""
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, 'unused.c'), 'w') as f:
            f.write('#include <math.h>\n#include <stdio.h>\n\nint main(void) {\n        puts("");\n        return 0;\n}\n')
        entry = {'directory': d, 'file': 'unused.c', 'arguments': ['cc', '-c', 'unused.c']}
        _, text = run(entry, extra)
        found, _ = verdicts(d, text)
        got = found.get(os.path.join(d, 'unused.c'))
        point(got == [(1, '#include <math.h>')],
              'iwyu, run as this check runs it, names an unused #include <math.h> and keeps <stdio.h>', text)


def main():
    build, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    src = os.path.join(root, 'src')
    if not shutil.which(IWYU):
        print('1..0 # SKIP include-what-you-use is not installed (Debian\'s iwyu, tests/packages)')
        return 0
    with open(os.path.join(build, 'compile_commands.json')) as f:
        db = json.load(f)
    entries = {}
    for e in db:
        path = os.path.normpath(os.path.join(e['directory'], e['file']))
        if path.startswith(src + os.sep) and path.endswith('.c'):
            entries.setdefault(path, e)
    headers = sorted(os.path.join(dp, f) for dp, _, fs in os.walk(src) for f in fs if f.endswith('.h'))
    lone = [h for h in headers if not os.path.exists(h[:-2] + '.c')]
    extra = ['-Xiwyu', '--no_fwd_decls', '-Xiwyu', '--mapping_file=' + os.path.join(root, 'tests', 'includes.imp')]
    self_check(extra)
    for h in lone:
        extra += ['-Xiwyu', '--check_also=*' + os.path.relpath(h, root)]
    point(len(entries) > 0, 'compile_commands.json names the files of src/ (%d)' % len(entries))

    found, errors = {}, {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=min(os.cpu_count() or 1, 4)) as pool:
        for entry, text in pool.map(lambda e: run(e, extra), entries.values()):
            v, errs = verdicts(entry['directory'], text)
            for path, removals in v.items():
                found.setdefault(path, set()).update(removals)
            if errs:
                errors[os.path.normpath(os.path.join(entry['directory'], entry['file']))] = errs
    for path in sorted(set(entries) | set(headers)):
        rel = os.path.relpath(path, root)
        if path in errors:
            point(False, '%s: iwyu reads it' % rel, '\n'.join(errors[path][:10]))
            continue
        if path not in found:
            point(False, '%s: iwyu judged it' % rel, 'no verdict: is it compiled, or included anywhere?')
            continue
        with open(path) as f:
            text = f.read()
        unused = []
        for line, inc in sorted(found[path]):
            header = inc.split(None, 1)[1]
            if header in KEEP and KEEP[header].search(text):
                continue
            unused.append('line %d: %s' % (line, inc))
        point(not unused, '%s: every #include is used' % rel, '\n'.join(unused))
    print('1..%d' % n)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
