#!/bin/bash
# numaplan in a real terminal (tmux: the screen read back with its escapes) and through a pipe:
# colour on a terminal only (warnings yellow, errors red, notices plain; none for NO_COLOR,
# SYSTEMD_COLORS=0 or --no-color), long messages wrapped at the terminal's width and whole in a
# pipe, and systemctl's pager: less -FRSXMK for a long answer, quitting by itself for a short
# one, $SYSTEMD_PAGER before $PAGER, none for "cat", "" or --no-pager, none in a pipe; its rules:
# LESS set over the admin's ($SYSTEMD_LESS, else FRSXMK), LESSCHARSET, a $PAGER split into words
# without a shell, one that cannot start falling back to less and at last to a plain copy (the
# answer whole, numaplan's exit code), Ctrl-C in a less without K; and secure mode under sudo,
# pkexec or a changed EUID: less with LESSSECURE=1 (its shell escape refused) and no other pager,
# unless SYSTEMD_PAGERSECURE says otherwise.
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
# on an xterm with no pager, less, sudo or colour settings of the caller's; $scratch/done appears
# when it ends.
term() {
	[ -z "$sock" ] || tmux -S "$sock" kill-server 2>/dev/null
	n_term=$((n_term + 1))
	sock=$scratch/tmux.$n_term # a server of its own each time: a dying one keeps its socket a while
	rm -f "$scratch/done"
	tmux -S "$sock" -f /dev/null new-session -d -x "$1" -y "$2" \
		"env -u PAGER -u SYSTEMD_PAGER -u NO_COLOR -u SYSTEMD_COLORS -u COLUMNS -u LESS -u LESSCHARSET -u LESSSECURE \
		-u SYSTEMD_LESS -u SYSTEMD_LESSCHARSET -u SYSTEMD_PAGERSECURE -u SUDO_UID -u PKEXEC_UID TERM=xterm-256color $3
		touch $scratch/done; sleep 600"
}
# wait_for WHAT: until a file of $scratch exists (done, or file:NAME) or the screen shows WHAT;
# 10 s (scaled) at most.
tenths=$(($(scaled 10) * 10))
wait_for() {
	local i f=
	case $1 in done) f=$scratch/done ;; file:*) f=$scratch/${1#file:} ;; esac
	for i in $(seq "$tenths"); do
		if [ -n "$f" ]; then [ -e "$f" ] && return 0
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
grep -q "^  notice: pcie-link-slow: " "$scratch/screen" && ok "a notice in plain text, said to be one" ||
	fail "a notice plain" "$(cat -v "$scratch/screen" | grep pcie-link-slow)"
long=$(plain | awk 'length > 100')
is "no line wider than the terminal's 100 columns" "$long" ""
if plain | grep -A1 "^  warning: cpu-governor: CPUs 1-15,17-31" | tail -1 | grep -q "^    [^ ]"; then
	ok "a long warning wrapped, under its code"
else fail "a long warning wrapped" "$(plain | grep -A3 cpu-governor)"; fi

term 100 300 "$numaplan plan -c /dev/null --sysfs-root $host --no-pager"
wait_for done || fail "plan ended" "$(plain)"
if plain | grep -q "^warning: nic-remote: replicas inference-4, " && ! plain | grep -q "^warning:  " &&
	plain | grep -A1 "^warning: nic-remote: replicas inference-4" | tail -1 | grep -q "^           [^ ]"; then
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
n_json=$("$numaplan" show --json -c /dev/null --sysfs-root "$host" | python3 -c 'import json,sys; print(len({w["code"] for w in json.load(sys.stdin)["warnings"]}))')
n_text=$(sed -n '/^warnings:/,$p' "$scratch/piped" | grep -c '^  [a-z]*: [a-z0-9-]*: ')
n_lines=$(sed -n '/^warnings:/,$p' "$scratch/piped" | grep -c '^  ')
is "each code whole on one line in a pipe ($n_json codes)" "$n_text $n_lines" "$n_json $n_json"

# ---- the pager ----
term 100 20 "$numaplan plan -c /dev/null --sysfs-root $host"
if wait_for "lines 1-" && [ ! -e "$scratch/done" ]; then
	ok "plan on a terminal: less, with its verbose prompt, and numaplan waits for it"
else fail "plan in the pager" "$(plain)"; fi
tmux -S "$sock" send-keys q
wait_for done && ok "q quits it, and numaplan ends" || fail "q ends the pager" "$(plain)"

term 100 20 "SYSTEMD_PAGER='head -n 3' PAGER=less $numaplan plan -c /dev/null --sysfs-root $host"
wait_for done
is "\$SYSTEMD_PAGER before \$PAGER, split into words" "$(plain | grep -c .)" 3

for how in "SYSTEMD_PAGER=cat" "PAGER=cat" "PAGER=" "SYSTEMD_PAGER=' cat '" "TERM=dumb" "env -u TERM" ""; do
	flag=
	[ -n "$how" ] || flag=--no-pager
	term 100 20 "$how $numaplan plan -c /dev/null --sysfs-root $host $flag >/dev/tty"
	wait_for done && ok "no pager: ${how:-$flag}" || fail "no pager: ${how:-$flag}" "$(plain)"
done
term 100 20 "$numaplan plan -c /dev/null --sysfs-root $host 2>$scratch/stderr"
wait_for done && ok "no pager: stderr no terminal" || fail "no pager: stderr no terminal" "$(plain)"

term 250 120 "$numaplan show -c /dev/null --sysfs-root $host 0000:01:00.0"
wait_for done && ok "a short answer that fits the screen (in height, and in width: -S cuts, it does not fold): less quits by itself (-F)" || fail "less -F" "$(plain)"

# ---- the pager's rules, as systemctl's ----
plan_cmd="$numaplan plan -c /dev/null --sysfs-root $host"
short_cmd="$numaplan show -c /dev/null --sysfs-root $host 0000:01:00.0"
# A pager that is not less: it notes that it ran, with its arguments and what less would be told.
mark_pager() { # mark_pager PATH
	cat >"$1" <<-EOF
		#!/bin/sh
		printf '%s\n' "ran \$#:\$*" "LESS=\${LESS-unset}" "LESSCHARSET=\${LESSCHARSET-unset}" \\
			"LESSSECURE=\${LESSSECURE-unset}" >"$scratch/pager-ran"
		exec cat
	EOF
	chmod 0755 "$1"
}
mark_pager "$scratch/mark-pager"
mkdir -p "$scratch/with space" "$scratch/no-pagers"
mark_pager "$scratch/with space/mark pager"
ran() { cat "$scratch/pager-ran" 2>/dev/null || echo "did not run"; }

# What an answer looks like on the screen unpaged: what each way of paging it must leave there
# when it fits (less -F: in height, and in width) or is copied.
term 250 300 "$plan_cmd --no-pager; echo \$? >$scratch/rc"
wait_for done
plain >"$scratch/unpaged"
want_rc=$(cat "$scratch/rc")
# whole DESCRIPTION: the screen of a command that has ended holds the answer as unpaged, and it
# exited as unpaged.
whole() {
	if wait_for done && plain | cmp -s - "$scratch/unpaged" && [ "$(cat "$scratch/rc")" = "$want_rc" ]; then
		ok "$1"
	else fail "$1" "exit $(cat "$scratch/rc" 2>/dev/null), want $want_rc" "$(plain | diff "$scratch/unpaged" - | head -n 20)"; fi
}

# A $PAGER that cannot start: the next of pager, less, more; the answer whole, numaplan's code.
rm -f "$scratch/rc"
term 250 300 "PAGER=/nonexistent/pager $plan_cmd; echo \$? >$scratch/rc"
whole "PAGER=/nonexistent/pager: the answer through the next pager, whole, with numaplan's exit code"
rm -f "$scratch/rc"
term 100 20 "PAGER=/nonexistent/pager $numaplan plan -c $scratch/no-such.conf; echo \$? >$scratch/rc"
wait_for done
is "PAGER=/nonexistent/pager and a failing plan: numaplan's exit code" "$(cat "$scratch/rc")" 2
# Words, with the shell's quotes and no shell.
rm -f "$scratch/pager-ran"
term 100 20 "SYSTEMD_PAGER=\"'$scratch/with space/mark pager' 'a b' c\" $plan_cmd"
wait_for done
is "\$SYSTEMD_PAGER split into words with its quotes, no shell" "$(head -n 1 "$scratch/pager-ran" 2>&1)" "ran 2:a b c"

# LESS is numaplan's, whatever the admin's profile says: $SYSTEMD_LESS, else FRSXMK.
term 250 120 "LESS=-R $short_cmd"
d="LESS=-R in the environment: less still quits by itself on a short answer (LESS=FRSXMK)"
wait_for done && ok "$d" || fail "$d" "$(plain)"
term 250 120 "SYSTEMD_LESS=RSXMK LESS=FRSXMK $short_cmd"
d="SYSTEMD_LESS=RSXMK (no F): less waits at the end of a short answer"
if wait_for "(END)" && [ ! -e "$scratch/done" ]; then ok "$d"; else fail "$d" "$(plain)"; fi
tmux -S "$sock" send-keys q
wait_for done
rm -f "$scratch/pager-ran"
term 100 20 "LESS=-R LESSCHARSET=koi8-r SYSTEMD_PAGER=$scratch/mark-pager LC_ALL=C.UTF-8 $plan_cmd"
wait_for done
is "what the pager is told: LESS=FRSXMK over the admin's, LESSCHARSET=utf-8 in a UTF-8 locale, no LESSSECURE" \
	"$(tail -n 3 "$scratch/pager-ran" 2>&1 | tr '\n' ' ')" "LESS=FRSXMK LESSCHARSET=utf-8 LESSSECURE=unset "
rm -f "$scratch/pager-ran"
term 100 20 "SYSTEMD_LESS=Rx4 SYSTEMD_LESSCHARSET=latin1 SYSTEMD_PAGER=$scratch/mark-pager LC_ALL=C.UTF-8 $plan_cmd"
wait_for done
is "SYSTEMD_LESS and SYSTEMD_LESSCHARSET: as given" "$(sed -n 2,3p "$scratch/pager-ran" 2>&1 | tr '\n' ' ')" \
	"LESS=Rx4 LESSCHARSET=latin1 "
rm -f "$scratch/pager-ran"
term 100 20 "LESSCHARSET=koi8-r SYSTEMD_PAGER=$scratch/mark-pager LC_ALL=C $plan_cmd"
wait_for done
is "a locale chosen and not UTF-8 (LC_ALL=C): the admin's LESSCHARSET stays" "$(sed -n 3p "$scratch/pager-ran" 2>&1)" \
	"LESSCHARSET=koi8-r"

# Ctrl-C: with K, less and numaplan end (as systemctl); less without K stays, and so does numaplan.
# Its exit code is written by a shell that outlives a Ctrl-C: one with a trap for it (its children
# get SIGINT's default back), which bash -c, the window's, is not.
printf '#!/bin/bash\ntrap : INT\n"$@"\necho $? >%s/rc\n' "$scratch" >"$scratch/rc-of"
chmod 0755 "$scratch/rc-of"
rm -f "$scratch/rc"
term 100 20 "$scratch/rc-of $plan_cmd"
wait_for "lines 1-"
tmux -S "$sock" send-keys C-c
wait_for done
is "Ctrl-C in less (LESS=...K): it quits, and numaplan ends as interrupted" "$(cat "$scratch/rc" 2>&1)" 130
rm -f "$scratch/rc"
term 100 20 "SYSTEMD_LESS=RSXM $scratch/rc-of $plan_cmd"
wait_for "lines 1-"
tmux -S "$sock" send-keys C-c
# less drops what was typed before it saw the interrupt: q until it has ended.
for i in $(seq $((tenths / 2))); do
	[ -e "$scratch/done" ] && break
	tmux -S "$sock" send-keys q
	sleep 0.2
done
is "Ctrl-C in a less without K: numaplan stays until q, and exits as it would" "$(cat "$scratch/rc" 2>&1)" "$want_rc"

# Secure mode. sudo numaplan on a small terminal: a root shell is one "!sh" away in a less that
# is not secure. shell_escape HOW...: types !touch MARKER and Enter into less, MARKER in a
# directory anyone may write (for an EUID that is not root's); prints "escaped" or "refused".
mkdir -m 1777 "$scratch/open"
chmod 0711 "$scratch"
shell_escape() {
	rm -f "$scratch/open/escaped"
	term 100 20 "$* $plan_cmd"
	wait_for "lines 1-" || { echo "no less: $(plain | tail -n 3)"; return; }
	tmux -S "$sock" send-keys '!'
	# Secure, less says so; else it prompts for the command, a "!" alone on the last line.
	local i answer=
	for i in $(seq "$tenths"); do
		if plain | grep -q "Command not available"; then answer=refused && break; fi
		if [ "$(plain | sed '/^$/d' | tail -n 1)" = "!" ]; then answer=prompt && break; fi
		sleep 0.1
	done
	tmux -S "$sock" send-keys "touch $scratch/open/escaped" Enter
	case $answer in
	refused) # the rest went to less as commands, harmless: the marker must still not appear
		wait_for "Pattern not found"
		[ -e "$scratch/open/escaped" ] && echo escaped || echo refused ;;
	prompt) wait_for file:open/escaped && echo escaped || echo "no marker: $(plain | tail -n 3)" ;;
	*) echo "neither refused nor prompted: $(plain | tail -n 3)" ;;
	esac
}
is "no sudo: less's !command runs a shell (so that the next points can fail)" "$(shell_escape)" escaped
is "SUDO_UID set: less in secure mode refuses !command (LESSSECURE=1)" "$(shell_escape SUDO_UID=1000)" refused
is "PKEXEC_UID set: refused too" "$(shell_escape PKEXEC_UID=1000)" refused
is "SUDO_UID and SYSTEMD_PAGERSECURE=0: the admin's choice, !command runs" \
	"$(shell_escape SUDO_UID=1000 SYSTEMD_PAGERSECURE=0)" escaped
is "SYSTEMD_PAGERSECURE=1 without sudo: refused" "$(shell_escape SYSTEMD_PAGERSECURE=yes)" refused
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	is "an effective UID that is not the real one (setpriv --euid=65534): refused" \
		"$(shell_escape setpriv --euid=65534)" refused
else ok "# SKIP an effective UID that is not the real one: needs root and setpriv"; fi

# No pager but less in secure mode: $PAGER is not run, the answer still reaches the terminal.
rm -f "$scratch/pager-ran" "$scratch/rc"
term 250 300 "SUDO_UID=1000 PAGER=$scratch/mark-pager $plan_cmd; echo \$? >$scratch/rc"
whole "SUDO_UID and PAGER=a pager that is not less: the answer whole, through less"
is "and that pager did not run" "$(ran)" "did not run"
rm -f "$scratch/pager-ran" "$scratch/rc"
term 250 300 "SUDO_UID=1000 SYSTEMD_PAGER=$scratch/mark-pager PATH=$scratch/no-pagers $plan_cmd; echo \$? >$scratch/rc"
whole "SUDO_UID and no less to run: the answer copied whole, unpaged"
is "and \$SYSTEMD_PAGER did not run" "$(ran)" "did not run"
rm -f "$scratch/pager-ran"
term 100 20 "SUDO_UID=1000 SYSTEMD_PAGERSECURE=0 PAGER=$scratch/mark-pager $plan_cmd"
wait_for done
is "SUDO_UID and SYSTEMD_PAGERSECURE=0: \$PAGER runs, not told LESSSECURE" "$(sed -n '1p;4p' "$scratch/pager-ran" 2>&1 | tr '\n' ' ')" \
	"ran 0: LESSSECURE=unset "
rm -f "$scratch/pager-ran" "$scratch/rc"
term 250 300 "SUDO_UID=1000 SYSTEMD_PAGERSECURE=1 PAGER=$scratch/mark-pager $plan_cmd; echo \$? >$scratch/rc"
whole "SUDO_UID and SYSTEMD_PAGERSECURE=1: the answer whole, through less"
is "and \$PAGER did not run: in secure mode only less, whoever set it" "$(ran)" "did not run"

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
