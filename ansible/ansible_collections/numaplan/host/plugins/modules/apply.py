#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: MIT

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r'''
module: apply
short_description: Write or remove numaplan's systemd drop-ins
version_added: 0.1.0
description:
  - Places the replicas of a numaplan configuration on the host's NUMA nodes and writes one systemd
    drop-in per replica unit (C(UNIT_DIR/UNIT.d/50-numaplan.conf)), with C(numaplan apply).
  - With I(state=absent), deletes numaplan's drop-ins with C(numaplan remove).
  - numaplan writes all or nothing and only what changed, so the module is idempotent.
  - "A configuration error fails the task with numaplan's C(FILE:LINE: reason) in C(msg); nothing is written."
options:
  state:
    description:
      - C(present) writes the plan's drop-ins and removes numaplan's drop-ins of replicas that left the configuration.
      - C(absent) removes numaplan's drop-ins (only files whose first line says numaplan wrote them).
    type: str
    choices: [present, absent]
    default: present
  units:
    description:
      - With I(state=absent), the units whose drop-ins to remove. Empty means every numaplan drop-in in the unit directory.
      - Not allowed with I(state=present), which always applies the whole configuration.
    type: list
    elements: str
    default: []
  reload:
    description:
      - Reload systemd once if anything changed. C(false) passes C(--no-reload), which numaplan
        requires with I(sysfs_root).
    type: bool
    default: true
  restart:
    description:
      - Restart the running replica units whose drop-in changed (C(--restart)), waiting for each. Needs I(reload).
      - Without it, a running unit keeps its old placement until it restarts; numaplan says so in C(messages).
    type: bool
    default: false
extends_documentation_fragment:
  - numaplan.host.common
  - numaplan.host.common.unit_dir
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details:
      - I(state=present) runs C(numaplan apply --check), whose actions are those pending.
      - I(state=absent) lists numaplan's drop-ins itself (there is no C(numaplan remove --check)), recognising them
        by their first line as numaplan does. An interrupted apply that C(remove) would finish first is not foreseen.
  diff_mode:
    support: full
    details:
      - The unified diff of every drop-in, as C(numaplan apply --diff) prints it, in C(diff.prepared).
  platform:
    platforms: posix
seealso:
  - module: numaplan.host.verify
  - module: numaplan.host.facts
author:
  # An author without a GitHub account, as validate-modules spells it.
  - numaplan maintainers (!UNKNOWN)
'''

EXAMPLES = r'''
- name: Pin the inference replicas as /etc/numaplan/numaplan.conf says
  numaplan.host.apply:

- name: Apply another configuration and restart the replicas it moves
  numaplan.host.apply:
    config: /etc/numaplan/staging.conf
    restart: true

- name: Replay a captured host into a directory of our own
  numaplan.host.apply:
    config: /srv/numaplan/numaplan.conf
    sysfs_root: /srv/captures/dgx-01
    unit_dir: /tmp/dgx-01-units
    reload: false

- name: Give two units back to systemd's defaults
  numaplan.host.apply:
    state: absent
    units:
      - inference@0.service
      - inference@1.service
'''

RETURN = r'''
changed:
  description: Whether any drop-in was (or, in check mode, would be) created, updated or removed.
  returned: always
  type: bool
units:
  description: Each unit numaplan considered and what happened to its drop-in.
  returned: always
  type: list
  elements: dict
  contains:
    unit:
      description: The systemd unit.
      type: str
      sample: inference@0.service
    action:
      description: C(created), C(updated), C(unchanged) or C(removed).
      type: str
      sample: created
  sample: [{"unit": "inference@0.service", "action": "created"}]
plan:
  description:
    - The document of C(numaplan plan --json) with the same options; keys C(replicas), C(nodes), C(warnings).
    - Each replica has C(name), C(unit), C(accelerators), C(nodes), C(policy), C(cpus), C(cpu_affinity),
      C(memory_bytes), C(dropin_path) and C(dropin) (the drop-in's text).
  returned: when I(state=present)
  type: dict
messages:
  description: numaplan's notices and warnings, one a line (warnings are also the task's warnings).
  returned: always
  type: list
  elements: str
  sample: ["numaplan: inference@0.service is running with its old placement: pinning takes effect when it starts ..."]
diff:
  description: In diff mode, C(prepared) holds the unified diff of the drop-ins.
  returned: in diff mode
  type: dict
'''

import difflib
import os
import stat

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.numaplan.host.plugins.module_utils.numaplan import (
    DEFAULT_UNIT_DIR, DROPIN_HEADER, DROPIN_NAME, EXIT_FAILED, EXIT_OK, Numaplan, argument_spec, service_name_error,
    split_stderr, unit_name_mangle)


def present(module, np):
    p = module.params
    if p['units']:
        module.fail_json(msg='units applies to state=absent only: state=present applies the whole configuration')

    # Planning first: a configuration error fails here with numaplan's file:line, and the plan
    # is part of the result.
    plan = np.run_json('plan')[1]

    args = []
    if module.check_mode:
        args.append('--check')
    if module._diff:
        args.append('--diff')
    if not p['reload']:
        args.append('--no-reload')
    if p['restart']:
        args.append('--restart')
    # Under --check, exit 1 means changes are pending, not a failure.
    rc, out, err = np.run('apply', ['--json'] + args, ok=(EXIT_OK, EXIT_FAILED) if module.check_mode else (EXIT_OK,))
    messages = np.warn_from(err)
    if rc == EXIT_FAILED and not out.strip():
        # apply --check found an interrupted apply: the next apply finishes it, a change.
        return dict(changed=True, units=[], plan=plan, messages=messages)
    doc = np.parse('apply', out, err)
    result = dict(changed=doc['changed'], units=doc['units'], plan=plan, messages=messages)
    if module._diff:
        result['diff'] = dict(prepared=''.join(line + '\n' for line in split_stderr(err)[1]))
    return result


def our_dropins(unit_dir, units):
    """{unit: text} of numaplan's drop-ins in unit_dir (of the named units, or all): what
    `numaplan remove` deletes. Like numaplan, a link or a special file is never ours."""
    if not units:
        try:
            names = sorted(os.listdir(unit_dir))
        except OSError:
            return {}
        units = [n[:-2] for n in names if n.endswith('.service.d')]
    found = {}
    for unit in units:
        directory = os.path.join(unit_dir, unit + '.d')
        path = os.path.join(directory, DROPIN_NAME)
        try:
            if not (stat.S_ISDIR(os.lstat(directory).st_mode) and stat.S_ISREG(os.lstat(path).st_mode)):
                continue
            with open(path, 'rb') as f:
                data = f.read()
        except (IOError, OSError):
            continue
        if data.startswith(DROPIN_HEADER.encode()):
            found[unit] = data.decode('utf-8', 'replace')
    return found


def removal_diff(unit_dir, dropins, units):
    out = []
    for unit in units:
        path = os.path.join(unit_dir, unit + '.d', DROPIN_NAME)
        out += difflib.unified_diff(dropins[unit].splitlines(True), [], path, '/dev/null')
    return ''.join(out)


def absent(module, np):
    p = module.params
    unit_dir = p['unit_dir'] or DEFAULT_UNIT_DIR
    # The names as numaplan reads them ("x" is x.service).
    names = [unit_name_mangle(u) for u in p['units']]
    if module.check_mode:
        # numaplan is not run: refuse what it refuses.
        for u in names:
            why = service_name_error(u)
            if why:
                module.fail_json(msg="numaplan remove failed (exit 2): '%s' is not a service unit name: it %s" % (u, why))
    # Read before removing: the diff needs what was there, and check mode needs nothing else.
    dropins = our_dropins(unit_dir, names)

    if module.check_mode:
        units = names or sorted(dropins)
        result = dict(changed=bool(dropins), messages=[],
                      units=[dict(unit=u, action='removed' if u in dropins else 'unchanged') for u in units])
    else:
        doc, err = np.run_json('remove', [] if p['reload'] else ['--no-reload'], units=p['units'])[1:]
        result = dict(changed=doc['changed'], units=doc['units'], messages=np.warn_from(err))

    if module._diff:
        removed = [u['unit'] for u in result['units'] if u['action'] == 'removed' and u['unit'] in dropins]
        result['diff'] = dict(prepared=removal_diff(unit_dir, dropins, removed))
    return result


def main():
    module = AnsibleModule(
        argument_spec=argument_spec(
            state=dict(type='str', default='present', choices=['present', 'absent']),
            units=dict(type='list', elements='str', default=[]),
            reload=dict(type='bool', default=True),
            restart=dict(type='bool', default=False),
        ),
        supports_check_mode=True,
    )
    np = Numaplan(module)
    result = present(module, np) if module.params['state'] == 'present' else absent(module, np)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
