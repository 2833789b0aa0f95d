#!/bin/bash
# Bash completion: commands, each command's options (exactly those its --help lists), unit names
# and PCI addresses. Usage: completion.sh NUMAPLAN SOURCE_DIR
set -u
numaplan=$1
src=$2
. "$(dirname "$0")/tap.sh"

complete_line() { # complete_line WORDS...: prints what completing the last word offers
	bash -c '
		source "$1/shell-completion/numaplan.bash"
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		_numaplan
		printf "%s\n" "${COMPREPLY[@]}"' _ "$src" "$@" | sort | tr '\n' ' '
}

case $(complete_line numaplan "") in *"apply "*"plan "*"show "*"status "*"verify "*) ok "commands complete" ;; *) fail "commands" "$(complete_line numaplan "")" ;; esac
is "a prefix completes to its command" "$(complete_line numaplan sna)" "snapshot "
verbs=$("$numaplan" --help | sed -n '/^Commands:/,/^$/p' | awk 'NF > 1 { print $1 }')
is "completion offers every command --help lists" "$(complete_line numaplan "" | tr ' ' '\n' | grep -v '^$' | sort | tr '\n' ' ')" "$(printf '%s\n' $verbs | sort | tr '\n' ' ')"
for verb in $verbs; do
	offered=$(complete_line numaplan "$verb" - | tr ' ' '\n' | grep -v '^$' | sort -u)
	helped=$("$numaplan" "$verb" --help | grep -E '^Usage:|^  +-' | grep -oE '(^|[ [])--?[a-z][a-z-]*' | tr -d ' [' | sort -u)
	global="--generator-dir --help --quiet --runtime-dir --sysfs-root --unit-dir --verbose --version -h -q -v"
	missing=$(comm -13 <(echo "$offered") <(echo "$helped") | tr '\n' ' ')
	extra=$(comm -23 <(echo "$offered") <(printf '%s\n' $helped $global | sort -u) | tr '\n' ' ')
	is "$verb: completion offers every option its --help lists, and no other" "$missing|$extra" "|"
done
is "after -c, files" "$(complete_line numaplan plan -c "$src/profiles/per-acc")" "$src/profiles/per-accelerator.conf "
case $(complete_line numaplan show "") in "" | *":"*) ok "show completes PCI addresses (or none on this host)" ;; *) fail "show PCI" "$(complete_line numaplan show "")" ;; esac
done_testing
