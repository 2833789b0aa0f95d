#!/bin/bash
# One style for the whole tree: every C file of src/ and tests/ as clang-format formats it with
# the checked-in .clang-format (Debian 12's clang-format 14, tests/packages). TAP; skipped, saying
# so, without clang-format. Usage: format.sh SOURCE_ROOT
set -u
cd "$1" || exit 1
. tests/cli/tap.sh
command -v clang-format >/dev/null || skip_all "no clang-format (tests/packages installs it)"
while IFS= read -r -d '' f; do
	if out=$(clang-format --dry-run --Werror "$f" 2>&1); then
		ok "$f is formatted"
	else
		fail "$f is formatted (clang-format -i $f)" "$(head -8 <<<"$out")"
	fi
done < <(git ls-files -z --cached --others --exclude-standard -- 'src/*.[ch]' 'tests/*.[ch]' ':!tests/fixtures/*' 2>/dev/null ||
	find src tests -name '*.[ch]' -not -path 'tests/fixtures/*' -print0)
done_testing
