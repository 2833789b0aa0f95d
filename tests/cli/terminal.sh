#!/bin/bash
# numaplan in a real terminal (tmux: the screen read back with its escapes) and through a pipe:
# colour on a terminal only (warnings yellow, errors red, notices plain; none for NO_COLOR,
# SYSTEMD_COLORS=0 or --no-color), long messages wrapped at the terminal's width and whole in a
# pipe, and systemctl's pager: less -FRSXMK for a long answer, quitting by itself for a short
# one, $SYSTEMD_PAGER before $PAGER, none for "cat", "" or --no-pager, none in a pipe.
# Usage: terminal.sh NUMAPLAN FIXTURES
set -u
numaplan=$1
fixtures=$2
. "$(dirname "$0")/tap.sh"
command -v tmux >/dev/null || skip_all "tmux is not installed (Debian: apt-get install tmux)"
command -v less >/dev/null || skip_all "less is not installed (Debian: apt-get install less)"

scratch=$(mktemp -d)
sock=
n_term=0
trap '[ -z "$sock" ] || tmux -S "$sock" kill-server 2>/dev/null; rm -rf "$scratch"' EXIT
host=$fixtures/hosts/untuned-2s-8gpu
esc=$'\033'

# term WIDTH HEIGHT COMMAND: runs COMMAND (a shell line) in a fresh tmux window of that size, as
# on an xterm with no pager or colour settings of the caller's; $scratch/done appears when it ends.
term() {
	[ -z "$sock" ] || tmux -S "$sock" kill-server 2>/dev/null
	n_term=$((n_term + 1))
	sock=$scratch/tmux.$n_term # a server of its own each time: a dying one keeps its socket a while
	rm -f "$scratch/done"
	tmux -S "$sock" -f /dev/null new-session -d -x "$1" -y "$2" \
		"env -u PAGER -u SYSTEMD_PAGER -u NO_COLOR -u SYSTEMD_COLORS -u COLUMNS -u LESS TERM=xterm-256color $3; touch $scratch/done; sleep 600"
}
# wait_for WHAT: until the file $scratch/WHAT exists (done) or the screen shows WHAT; 10 s at most.
wait_for() {
	local i
	for i in $(seq 100); do
		if [ "$1" = done ]; then [ -e "$scratch/done" ] && return 0
		else screen | grep -qF -- "$1" && return 0; fi
		sleep 0.1
	done
	return 1
}
screen() { tmux -S "$sock" capture-pane -p -e; }
plain() { tmux -S "$sock" capture-pane -p; }
show_cmd="$numaplan show -c /dev/null --sysfs-root $host"

# ---- colour and wrapping on a terminal ----
term 100 200 "$show_cmd --no-pager"
wait_for done || fail "show ended" "$(plain)"
screen >"$scratch/screen"
if grep -q "${esc}\[[0-9;]*33m${esc}\?\[\?[0-9;]*m\?numa-balancing-on" "$scratch/screen" ||
	grep -q "33m.*numa-balancing-on" "$scratch/screen"; then
	ok "a warning's code in yellow on a terminal"
else fail "a warning in yellow" "$(cat -v "$scratch/screen" | grep numa-balancing)"; fi
grep -q "^  pcie-link-slow: " "$scratch/screen" && ok "a notice in plain text" ||
	fail "a notice plain" "$(cat -v "$scratch/screen" | grep pcie-link-slow)"
long=$(plain | awk 'length > 100')
is "no line wider than the terminal's 100 columns" "$long" ""
if plain | grep -A1 "^  irq-remote: the interrupt of 0000:81:00.0" | tail -1 | grep -q "^    [^ ]"; then
	ok "a long warning wrapped, under its code"
else fail "a long warning wrapped" "$(plain | grep -A3 irq-remote)"; fi

term 100 300 "$numaplan plan -c /dev/null --sysfs-root $host --no-pager"
wait_for done || fail "plan ended" "$(plain)"
if plain | grep -q "^warning: nic-remote: replica inference-4" && ! plain | grep -q "^warning:  " &&
	plain | grep -A1 "^warning: nic-remote: replica inference-4" | tail -1 | grep -q "^           [^ ]"; then
	ok "plan's warnings wrapped under their code, continuation lines blank before it"
else fail "plan's wrapped warnings" "$(plain | grep -A2 nic-remote | head -6)"; fi

for how in "NO_COLOR=1 $show_cmd --no-pager" "SYSTEMD_COLORS=0 $show_cmd --no-pager" "$show_cmd --no-pager --no-color"; do
	term 100 200 "$how"
	wait_for done || fail "show ended" "$(plain)"
	colours=$(screen | grep -c "${esc}\[[0-9;]*3[0-9]m")
	is "no colour for ${how%% *}${how##* --no-pager}" "$colours" 0
done
term 100 200 "SYSTEMD_COLORS=1 $show_cmd --no-pager >$scratch/forced"
wait_for done
grep -q "${esc}\[" "$scratch/forced" && ok "SYSTEMD_COLORS=1: colour into a file too" || fail "SYSTEMD_COLORS=1 forces colour"

# ---- a pipe: no colour, no pager, one line a message ----
term 100 30 "$show_cmd | cat >$scratch/piped"
wait_for done || fail "show into a pipe ended by itself (no pager)" "$(plain)"
if ! grep -q "$esc" "$scratch/piped"; then ok "a pipe gets no escape sequence"; else fail "no colour in a pipe"; fi
n_json=$("$numaplan" show --json -c /dev/null --sysfs-root "$host" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["warnings"]))')
n_text=$(sed -n '/^warnings:/,$p' "$scratch/piped" | grep -c '^  [a-z0-9-]*: ')
n_lines=$(sed -n '/^warnings:/,$p' "$scratch/piped" | grep -c '^  ')
is "each warning whole on one line in a pipe ($n_json warnings)" "$n_text $n_lines" "$n_json $n_json"

# ---- the pager ----
term 100 20 "$numaplan plan -c /dev/null --sysfs-root $host"
if wait_for "lines 1-" && [ ! -e "$scratch/done" ]; then
	ok "plan on a terminal: less, with its verbose prompt, and numaplan waits for it"
else fail "plan in the pager" "$(plain)"; fi
tmux -S "$sock" send-keys q
wait_for done && ok "q quits it, and numaplan ends" || fail "q ends the pager" "$(plain)"

term 100 20 "SYSTEMD_PAGER='head -n 3' PAGER=less $numaplan plan -c /dev/null --sysfs-root $host"
wait_for done
is "\$SYSTEMD_PAGER before \$PAGER, run by the shell" "$(plain | grep -c .)" 3

for how in "SYSTEMD_PAGER=cat" "PAGER=cat" "PAGER=" ""; do
	flag=
	[ -n "$how" ] || flag=--no-pager
	term 100 20 "$how $numaplan plan -c /dev/null --sysfs-root $host $flag >/dev/tty"
	wait_for done && ok "no pager: ${how:-$flag}" || fail "no pager: ${how:-$flag}" "$(plain)"
done

term 250 120 "$numaplan show -c /dev/null --sysfs-root $host 0000:01:00.0"
wait_for done && ok "a short answer that fits the screen (in height, and in width: -S cuts, it does not fold): less quits by itself (-F)" || fail "less -F" "$(plain)"

# ---- stderr: an error in red on a terminal, plain in a pipe ----
printf '[numaplan]\nno-such-key = 1\n' >"$scratch/bad.conf"
chmod 0644 "$scratch/bad.conf"
term 100 20 "$numaplan plan -c $scratch/bad.conf"
wait_for done
screen | grep -q "31m.*bad.conf:2:" && ok "an error's place in red on a terminal" || fail "an error in red" "$(screen | cat -v)"
"$numaplan" plan -c "$scratch/bad.conf" 2>"$scratch/err" >/dev/null
if ! grep -q "$esc" "$scratch/err" && grep -q "^$scratch/bad.conf:2: unknown key" "$scratch/err"; then
	ok "and plain into a file"
else fail "no colour on stderr into a file" "$(cat -v "$scratch/err")"; fi
done_testing
