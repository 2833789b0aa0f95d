# -*- coding: utf-8 -*-
# SPDX-License-Identifier: MIT
"""Options every numaplan.host module takes."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type


class ModuleDocFragment(object):

    DOCUMENTATION = r'''
options:
  binary:
    description:
      - The numaplan executable, by name (looked up on C(PATH), then C(/sbin), C(/usr/sbin), C(/usr/local/sbin)) or by path.
    type: str
    default: numaplan
  config:
    description:
      - The configuration file, passed as C(-c). It replaces C(/etc/numaplan/numaplan.conf) and C(/etc/numaplan/conf.d/*.conf).
      - Unset, numaplan reads those.
      - When numaplan runs as root it refuses a file not owned by root or writable by group or others.
    type: path
  sysfs_root:
    description:
      - Read C(SYSFS_ROOT/sys) and C(SYSFS_ROOT/proc) instead of C(/sys) and C(/proc), as numaplan's C(--sysfs-root).
      - For replaying a captured host (C(numaplan snapshot)) in tests and staging.
    type: path
requirements:
  - numaplan on the managed host
notes:
  - The module runs numaplan on the managed host and reads its C(--json) output.
'''

    UNIT_DIR = r'''
options:
  unit_dir:
    description:
      - Where the drop-ins are, as numaplan's C(--unit-dir). Default C(/etc/systemd/system).
      - For any other directory numaplan keeps its lock and marker inside it (C(UNIT_DIR/.numaplan.lock), C(UNIT_DIR/.numaplan/)).
      - With I(sysfs_root), numaplan requires a unit directory of your own.
    type: path
'''
