#!/bin/sh
# SPDX-License-Identifier: MIT
# The Ansible collection numaplan.host (ansible/) against fixture hosts; prints TAP and exits 0
# only when every test point passed. Needs ansible-core (Debian: apt-get install ansible-core).
# Usage: tests/ansible/run.sh NUMAPLAN_BINARY FIXTURES_DIR COLLECTION_TARBALL
#   (FIXTURES_DIR holds hosts/; the tarball is what tests/ansible/build-collection.sh built)
set -eu
if [ $# -ne 3 ]; then
	echo "usage: $0 NUMAPLAN_BINARY FIXTURES_DIR COLLECTION_TARBALL" >&2
	exit 2
fi
exec python3 "$(dirname "$0")/run.py" "$@"
