# shellcheck shell=bash
# Helpers for end-to-end scenarios, which may source it: . "$VM_LIB"
# Guest-side only: bash, coreutils, grep, sed and awk (mawk) are all there is.
#
#   vm_ok DESC / vm_not_ok DESC [DIAGNOSTIC...]   print a test point (not_ok counts a failure)
#   vm_check DESC CMD [ARG...]        ok when CMD succeeds; else not ok with its output
#   vm_check_eq DESC GOT WANT         ok when GOT = WANT
#   vm_check_match DESC GOT ERE       ok when GOT matches the extended regexp ERE
#   vm_diag TEXT...                   '#' diagnostic lines
#   vm_skip DESC REASON               an ok point with a SKIP directive
#   vm_done                           exit 1 if a point failed, else 0
#   vm_seconds S                      S seconds times NUMAPLAN_TEST_TIMEOUT_MULTIPLIER, rounded up:
#                                     a scenario's own limit on a wait, longer on a loaded host
#   json_flat < JSON                  one line per scalar: PATH<TAB>VALUE, PATH like
#                                     accelerators.0.class (strings unquoted, null as null;
#                                     \n and \t stay escaped: printf %b expands them); keeps
#                                     each document in $SHARE/results/*.json, which the host
#                                     checks against numaplan's JSON Schemas
#   json_get PATH < FLAT              the value at PATH of json_flat's output
#   json_count PREFIX < FLAT          how many array elements PREFIX.N.* has

VM_FAILED=0

vm_diag() {
	local line
	while IFS= read -r line; do
		printf '# %s\n' "$line"
	done <<<"$*"
}

vm_ok() { printf 'ok - %s\n' "$1"; }

vm_not_ok() {
	printf 'not ok - %s\n' "$1"
	VM_FAILED=$((VM_FAILED + 1))
	shift
	[ $# -eq 0 ] || vm_diag "$*"
}

vm_skip() { printf 'ok - %s # SKIP %s\n' "$1" "$2"; }

vm_check() {
	local desc=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -eq 0 ]; then
		vm_ok "$desc"
	else
		vm_not_ok "$desc" "command: $*" "exit status: $rc" "$out"
	fi
}

vm_check_eq() {
	if [ "$2" = "$3" ]; then
		vm_ok "$1"
	else
		vm_not_ok "$1" "got:  $2" "want: $3"
	fi
}

vm_check_match() {
	if [[ $2 =~ $3 ]]; then
		vm_ok "$1"
	else
		vm_not_ok "$1" "got:  $2" "want: /$3/"
	fi
}

vm_done() {
	[ "$VM_FAILED" -eq 0 ] && exit 0
	exit 1
}

vm_seconds() {
	awk -v s="$1" -v m="${NUMAPLAN_TEST_TIMEOUT_MULTIPLIER:-1}" \
		'BEGIN { m += 0; if (m <= 0) m = 1; v = s * m; printf "%d\n", (v > int(v) ? int(v) + 1 : v) }'
}

# json_flat [--foreign]: a JSON document on stdin as "path<TAB>value" lines. numaplan's documents
# are also kept in $SHARE/results for the host to check against their schemas; --foreign (a
# document of another program's, such as Ansible's results) is not.
json_flat() {
	local keep=
	[ "${1:-}" != --foreign ] && [ -d "${SHARE:-}/results" ] && keep=$SHARE/results/${SCENARIO:-scenario}.$BASHPID.$RANDOM.json
	awk -v keep="$keep" '
	function path(   j, p) {
		p = ""
		for (j = 1; j <= d; j++) p = p (j > 1 ? "." : "") (type[j] == "a" ? idx[j] : key[j])
		return p
	}
	{ s = s $0 "\n" }
	END {
		if (keep != "" && s ~ /^[ \t\r\n]*\{/) printf "%s", s > keep
		n = length(s); i = 1; d = 0; expkey = 0
		while (i <= n) {
			c = substr(s, i, 1)
			if (c == " " || c == "\t" || c == "\n" || c == "\r" || c == ":") { i++; continue }
			if (c == "{") { d++; type[d] = "o"; key[d] = ""; expkey = 1; i++; continue }
			if (c == "[") { d++; type[d] = "a"; idx[d] = 0; expkey = 0; i++; continue }
			if (c == "}" || c == "]") { d--; expkey = 0; i++; continue }
			if (c == ",") { if (type[d] == "a") idx[d]++; else expkey = 1; i++; continue }
			v = ""
			if (c == "\"") {
				i++
				while (i <= n) {
					c = substr(s, i, 1)
					if (c == "\\") {
						e = substr(s, i + 1, 1)
						if (e == "n") v = v "\\n"
						else if (e == "t") v = v "\\t"
						else if (e == "u") v = v "\\u"
						else v = v e
						i += 2
						continue
					}
					i++
					if (c == "\"") break
					v = v c
				}
				if (type[d] == "o" && expkey) { key[d] = v; expkey = 0; continue }
			} else {
				while (i <= n) {
					c = substr(s, i, 1)
					if (c == "," || c == "]" || c == "}" || c == " " || c == "\t" || c == "\n" || c == "\r") break
					v = v c
					i++
				}
			}
			print path() "\t" v
		}
	}'
}

json_get() { awk -F '\t' -v k="$1" '$1 == k { print $2; found = 1; exit } END { exit !found }'; }

json_count() {
	awk -F '\t' -v p="$1." 'index($1, p) == 1 { r = substr($1, length(p) + 1); sub(/\..*/, "", r); seen[r] = 1 }
		END { n = 0; for (k in seen) n++; print n }'
}
