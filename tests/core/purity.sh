#!/bin/bash
# The core's objects call no I/O of libc: nothing that opens, reads, writes, prints, stats, asks
# the clock or the environment, or loads libraries. (That they call no other numaplan layer is
# checked by linking core-purity.) The pure half of basic, which the core links, is held to the
# same. Usage: purity.sh LIB.a FOLDER (core or basic)
set -u
. "$(dirname "$0")/../cli/tap.sh"
lib=$1
folder=${2:-core}
forbidden='^(open|openat|open64|creat|read|pread|write|pwrite|close|fopen|fopen64|fdopen|freopen|fread|fwrite|fgets|fputs|fputc|puts|putchar|printf|fprintf|vprintf|vfprintf|dprintf|perror|stat|fstat|lstat|fstatat|stat64|statfs|access|faccessat|opendir|fdopendir|readdir|readdir64|glob|realpath|unlink|rename|mkdir|rmdir|socket|connect|getenv|secure_getenv|time|clock_gettime|gettimeofday|sysconf|syscall|dlopen|dlsym|mmap|ioctl|getpid|geteuid|getuid|__fprintf_chk|__printf_chk|__vfprintf_chk|__vprintf_chk|__read_chk|__fread_chk|__fgets_chk|__open_2|__open64_2|__xstat|__fxstat|__lxstat)$'
if ! command -v nm >/dev/null; then
	skip_all "nm (binutils) is not installed"
fi
undefined=$(nm -u --format=posix "$lib" | awk '{print $1}' | sort -u)
[ -n "$undefined" ] && ok "lib$folder's undefined symbols listed ($(wc -l <<<"$undefined") of them)" || fail "nm lists lib$folder's undefined symbols"
bad=$(grep -E "$forbidden" <<<"$undefined" | tr '\n' ' ')
is "lib$folder calls no I/O function of libc" "$bad" ""
# And its sources include nothing of the layers above (tests/layers.py checks every folder).
src=$(cd "$(dirname "$0")/../../src/$folder" && pwd)
above=$(grep -l '#include "\(host\|systemd\|cli\|generator\)/' "$src"/*.[ch] 2>/dev/null | xargs -r -n1 basename | tr '\n' ' ')
is "src/$folder includes no header of host, systemd, cli or generator" "$above" ""
done_testing
