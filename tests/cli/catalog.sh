#!/bin/bash
# The journal's catalog of numaplan's entries: one entry for every MESSAGE_ID numaplan sends
# (src/systemd/journal.c), each with its subject, definer and documentation, the same IDs in
# numaplan(8), JOURNAL, and journalctl compiles and lists it (in a root of the test's own).
# Usage: catalog.sh SOURCE_DIR
set -u
src=$1
. "$(dirname "$0")/tap.sh"
command -v journalctl >/dev/null || skip_all "journalctl (systemd) is not installed"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
catalog=$src/units/numaplan.catalog

sent=$(sed -n '/journal_message_ids\[_JOURNAL_KIND_MAX\] = {/,/^};/p' "$src/src/systemd/journal.c" |
	grep -oE '"[0-9a-f]{32}"' | tr -d '"' | sort)
explained=$(grep -oE '^-- [0-9a-f]{32}$' "$catalog" | cut -c4- | sort)
documented=$(sed -n '/^\.SH JOURNAL$/,/^\.SH /p' "$src/man/numaplan.8" | grep -oE '^\.B [0-9a-f]{32}$' | cut -c4- | sort)
is "numaplan sends five kinds of entries" "$(wc -l <<<"$sent")" 5
is "the catalog explains each MESSAGE_ID numaplan sends, and no other" "$explained" "$sent"
is "numaplan(8), JOURNAL, names each" "$documented" "$sent"
missing=$(awk '/^-- / { if (id != "" && n != 3) print id; id = $2; n = 0 }
	/^(Subject|Defined-By|Documentation): ./ { n++ } END { if (n != 3) print id }' "$catalog")
is "each entry has its Subject, Defined-By and Documentation" "$missing" ""

mkdir -p "$scratch/root/usr/lib/systemd/catalog"
cp "$catalog" "$scratch/root/usr/lib/systemd/catalog/"
out=$(journalctl --root="$scratch/root" --update-catalog 2>&1) && ok "journalctl compiles it" ||
	fail "journalctl --update-catalog" "$out"
listed=$(journalctl --root="$scratch/root" --list-catalog 2>/dev/null | awk '$2 == "numaplan:" { print $1 }' | sort)
is "and lists each entry, defined by numaplan" "$listed" "$sent"
done_testing
