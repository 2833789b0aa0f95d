#!/bin/sh
# SPDX-License-Identifier: MIT
# The Ansible collection numaplan.host (ansible/) against fixture hosts; prints TAP and exits 0
# only when every test point passed. Needs ansible-core (Debian: apt-get install ansible-core).
# Usage: tests/ansible/run.sh NUMAPLAN_BINARY FIXTURES_DIR   (FIXTURES_DIR holds hosts/)
set -eu
if [ $# -ne 2 ]; then
	echo "usage: $0 NUMAPLAN_BINARY FIXTURES_DIR" >&2
	exit 2
fi
exec python3 "$(dirname "$0")/run.py" "$@"
