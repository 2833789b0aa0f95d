#!/bin/bash
# Bash completion, in a real interactive bash with bash-completion loaded, as a user's shell has
# it: each line is typed into bash on a terminal, then TAB (or M-*, which inserts every
# completion), and the line as readline left it is compared. Commands, each command's options
# (exactly those its --help lists), paths with spaces (escaped or quoted), directories with their
# trailing slash, --config=FILE, PCI addresses under --sysfs-root, and the replica units of the
# unit directory and of the generator's. Usage: completion.sh NUMAPLAN COMPLETION_FILE (the one
# the build made from shell-completion/numaplan.bash.in)
set -u
numaplan=$1
completion=$2
. "$(dirname "$0")/tap.sh"
bc=/usr/share/bash-completion/bash_completion
[ -f "$bc" ] || skip_all "bash-completion is not installed, and without it numaplan's completion is never loaded"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
S=$scratch/t
mkdir -p "$S/my models/sub dir" "$S/host/sys/bus/pci/devices/0000:aa:00.0" "$S/host/sys/bus/pci/devices/0000:ab:00.0" \
	"$S/etc/x.service.d" "$S/etc/y.service.d" "$S/gen/llama@0.service.d" "$S/gen/llama@.service.d"
: >"$S/my models/a b.conf"
: >"$S/etc/x.service.d/50-numaplan.conf"
: >"$S/etc/y.service.d/60-admin.conf"
: >"$S/gen/llama@0.service.d/50-numaplan.conf"
: >"$S/gen/llama@.service.d/50-numaplan.conf"

# typed KEYS...: each KEYS typed on a fresh line ("\t" TAB, "\e*" insert-completions), one line of
# output each: the line readline holds after it.
typed() {
	printf '%s\n' "$@" >"$scratch/keys"
	python3 - "$bc" "$completion" "$scratch" "$scratch/keys" "$(scaled 10)" <<'PY'
import fcntl, os, pty, re, select, struct, sys, termios
bc, comp, home, keys, wait = sys.argv[1:]
with open(home + "/inputrc", "w") as f:
    f.write("set bell-style none\nset completion-query-items 100000\nset page-completions off\n")
env = {"HOME": home, "PATH": os.environ["PATH"], "TERM": "dumb", "INPUTRC": home + "/inputrc",
       "PS1": "$ ", "LANG": "C.UTF-8", "HISTFILE": "/dev/null"}
pid, fd = pty.fork()
if pid == 0:
    os.execvpe("bash", ["bash", "--norc", "--noprofile", "-i"], env)
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 2000, 0, 0))
buf = b""
def until(pattern, timeout=int(wait)):
    global buf
    while True:
        m = re.search(pattern, buf, re.S)
        if m:
            buf = buf[m.end():]
            return m
        r, _, _ = select.select([fd], [], [], timeout)
        if not r:
            return None
        try:
            data = os.read(fd, 65536)
        except OSError:
            return None
        if not data:
            return None
        buf += data
def send(s):
    os.write(fd, s.encode())
send("source %s; source %s\n" % (bc, comp))
send("bind -x '\"\\C-t\": printf \"\\n<<%s>>\\n\" \"$READLINE_LINE\"'; echo READY\n")
until(rb"\nREADY")
for line in open(keys).read().splitlines():
    keys = line.replace("\\t", "\t").replace("\\e", "\x1b")
    send(keys + "\x14")
    m = until(rb"<<(.*?)>>\r?\n")
    print(m.group(1).decode() if m else "(no answer from bash)")
    send("\x15")
send("exit\n")
os.waitpid(pid, 0)
PY
}

verbs=$("$numaplan" --help | sed -n '/^Commands:/,/^$/p' | awk 'NF > 1 { print $1 }')
global="--generator-dir --help --quiet --runtime-dir --sysfs-root --unit-dir --verbose --version -h -q -v"
keys=('numaplan sna\t' 'numaplan \e*')
for verb in $verbs; do keys+=("numaplan $verb -\\e*"); done
keys+=(
	"numaplan plan -c $S/my\\ mo\\t"
	"numaplan plan -c $S/my\\ models/a\\t"
	"numaplan plan --config=$S/my\\ models/a\\t"
	"numaplan plan -c \"$S/my models/a\\t"
	"numaplan plan -c ~/t/my\\ models/a\\t"
	"numaplan --sysfs-root $S/ho\\t"
	"numaplan show --sysfs-root $S/host \\e*"
	"numaplan show --sysfs-root=$S/host 0000:aa\\t"
	"numaplan show 0000:aa\\t"
	"numaplan verify --unit-dir $S/etc --generator-dir $S/gen \\e*"
	"numaplan status --unit-dir=$S/etc --generator-dir=$S/gen ll\\t"
	"numaplan prepare --nodes 0 -- $S/my\\ models/a\\t"
	"numaplan snapshot -o $S/my\\ models/su\\t"
	"numaplan help pla\\t"
)
mapfile -t got < <(typed "${keys[@]}")
[ ${#got[@]} -eq ${#keys[@]} ] || fail "bash answered every line" "${#got[@]} answers to ${#keys[@]} lines"
k=0
next() { line=${got[k]-} k=$((k + 1)); } # the next answer, in $line

next
is "a prefix completes to its command" "$line" "numaplan snapshot "
next
is "completion offers every command --help lists" "$(tr ' ' '\n' <<<"${line#numaplan }" | grep . | sort | tr '\n' ' ')" \
	"$(printf '%s\n' $verbs | sort | tr '\n' ' ')"
for verb in $verbs; do
	next
	offered=$(tr ' ' '\n' <<<"${line#numaplan "$verb" }" | grep . | sort -u)
	helped=$("$numaplan" "$verb" --help | grep -E '^Usage:|^  +-' | grep -oE '(^|[ [])--?[a-z][a-z-]*' | tr -d ' [' | sort -u)
	missing=$(comm -13 <(echo "$offered") <(echo "$helped") | grep . | tr '\n' ' ')
	extra=$(comm -23 <(echo "$offered") <(printf '%s\n' $helped $global | sort -u) | tr '\n' ' ')
	is "$verb: completion offers every option its --help lists, and no other" "$missing|$extra" "|"
done
next
is "a directory with a space: escaped, with its trailing slash and no space after" "$line" \
	"numaplan plan -c $S/my\\ models/"
next
is "a file with a space in it, after -c: one word, escaped" "$line" "numaplan plan -c $S/my\\ models/a\\ b.conf "
next
is "--config=FILE completes the file" "$line" "numaplan plan --config=$S/my\\ models/a\\ b.conf "
next
is "a quoted path completes inside its quotes" "$line" "numaplan plan -c \"$S/my models/a b.conf\" "
next
is "~ is the home directory" "$line" "numaplan plan -c ~/t/my\\ models/a\\ b.conf "
next
is "--sysfs-root completes a directory, with its trailing slash" "$line" "numaplan --sysfs-root $S/host/"
next
is "show: PCI addresses of the --sysfs-root given" "$line" "numaplan show --sysfs-root $S/host 0000:aa:00.0 0000:ab:00.0 "
next
is "show: --sysfs-root=DIR too" "$line" "numaplan show --sysfs-root=$S/host 0000:aa:00.0 "
next
[ -d /sys/bus/pci/devices/0000:aa:00.0 ] || is "show without --sysfs-root: this host's /sys, not the one of another line" "$line" "numaplan show 0000:aa"
next
is "verify: units with numaplan's drop-in in the unit directory and the generator's, no template" "$line" \
	"numaplan verify --unit-dir $S/etc --generator-dir $S/gen llama@0.service x.service "
next
is "status: a unit only the generator placed, with --generator-dir=DIR" "$line" \
	"numaplan status --unit-dir=$S/etc --generator-dir=$S/gen llama@0.service "
next
is "prepare: the model's files" "$line" "numaplan prepare --nodes 0 -- $S/my\\ models/a\\ b.conf "
next
is "snapshot -o: into a directory with a space" "$line" "numaplan snapshot -o $S/my\\ models/sub\\ dir/"
next
is "help: a command" "$line" "numaplan help plan "
done_testing
