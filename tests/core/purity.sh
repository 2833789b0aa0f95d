#!/bin/bash
# The core's objects call no I/O of libc: nothing that opens, reads, writes, prints, stats, asks
# the clock or the environment, or loads libraries. (That they call no other numaplan layer is
# checked by linking core-purity.) Usage: purity.sh LIBCORE.a
set -u
. "$(dirname "$0")/../cli/tap.sh"
lib=$1
forbidden='^(open|openat|open64|creat|read|pread|write|pwrite|close|fopen|fopen64|fdopen|freopen|fread|fwrite|fgets|fputs|fputc|puts|putchar|printf|fprintf|vprintf|vfprintf|dprintf|perror|stat|fstat|lstat|fstatat|stat64|statfs|access|faccessat|opendir|fdopendir|readdir|readdir64|glob|realpath|unlink|rename|mkdir|rmdir|socket|connect|getenv|secure_getenv|time|clock_gettime|gettimeofday|sysconf|syscall|dlopen|dlsym|mmap|ioctl|getpid|geteuid|getuid|__fprintf_chk|__printf_chk|__vfprintf_chk|__vprintf_chk|__read_chk|__fread_chk|__fgets_chk|__open_2|__open64_2|__xstat|__fxstat|__lxstat)$'
if ! command -v nm >/dev/null; then
	skip_all "nm (binutils) is not installed"
fi
undefined=$(nm -u --format=posix "$lib" | awk '{print $1}' | sort -u)
[ -n "$undefined" ] && ok "libcore's undefined symbols listed ($(wc -l <<<"$undefined") of them)" || fail "nm lists libcore's undefined symbols"
bad=$(grep -E "$forbidden" <<<"$undefined" | tr '\n' ' ')
is "libcore calls no I/O function of libc" "$bad" ""
# And its sources include nothing of the layers above.
src=$(cd "$(dirname "$0")/../../src/core" && pwd)
above=$(grep -l '#include "\(host\|systemd\|cli\)/' "$src"/*.[ch] 2>/dev/null | xargs -r -n1 basename | tr '\n' ' ')
is "src/core includes no header of host, systemd or cli" "$above" ""
done_testing
