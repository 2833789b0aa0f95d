#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: MIT

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r'''
module: verify
short_description: Prove that numaplan's replicas run as planned
version_added: 0.1.0
description:
  - Runs C(numaplan verify --json) on the host, which checks for each replica unit systemd's view over D-Bus
    (NUMAPolicy, NUMAMask, CPU affinity, effective CPUs and memory nodes, drop-ins), every task's allowed CPUs and
    nodes, a warm-up request, and the share of its resident pages on its planned nodes.
  - Needs a running systemd (243 or later). When numaplan cannot reach it (exit 3) the task fails with numaplan's message.
  - Never changes anything.
options:
  units:
    description:
      - The units to verify. Empty means every replica of the configuration.
    type: list
    elements: str
    default: []
  warmup:
    description:
      - Send each replica's warm-up request (C(warmup-url)) before counting pages. C(false) passes C(--no-warmup),
        and the warm-up check passes as skipped.
    type: bool
    default: true
  fail_on_mismatch:
    description:
      - "Fail the task when a replica is not pinned as planned, C(msg) holding C(UNIT: SUMMARY) for each such unit.
        With C(false) the task succeeds and C(ok) says so."
    type: bool
    default: true
extends_documentation_fragment:
  - numaplan.host.common
  - numaplan.host.common.unit_dir
  - ansible.builtin.action_common_attributes
attributes:
  check_mode:
    support: full
    details:
      - Runs as in a normal run, warm-up included, since verify changes nothing.
  diff_mode:
    support: none
  platform:
    platforms: posix
seealso:
  - module: numaplan.host.apply
author:
  # An author without a GitHub account, as validate-modules spells it.
  - numaplan maintainers (!UNKNOWN)
'''

EXAMPLES = r'''
- name: Prove every replica is pinned, without sending traffic
  numaplan.host.verify:
    warmup: false

- name: Look at one replica without failing the play
  numaplan.host.verify:
    units: [llama-server@0.service]
    fail_on_mismatch: false
  register: pinning

- name: Say what is wrong
  ansible.builtin.debug:
    msg: "{{ pinning.verify.units | rejectattr('ok') | map(attribute='summary') | list }}"
  when: not pinning.ok
'''

RETURN = r'''
ok:
  description: Whether every check of every unit passed.
  returned: success, or a mismatch
  type: bool
verify:
  description:
    - The document of C(numaplan verify --json). C(units) holds, per unit, C(unit), C(ok), C(summary) (the verdict in words),
      C(checks) (each with C(name), C(ok), C(want), C(got), C(detail)), C(pages) and C(remote_files).
  returned: success, or a mismatch
  type: dict
  sample: {"ok": true, "units": [{"unit": "inference@0.service", "ok": true, "summary": "pinned as planned", "checks": []}]}
'''

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.numaplan.host.plugins.module_utils.numaplan import EXIT_FAILED, EXIT_OK, Numaplan, argument_spec


def main():
    module = AnsibleModule(
        argument_spec=argument_spec(
            units=dict(type='list', elements='str', default=[]),
            warmup=dict(type='bool', default=True),
            fail_on_mismatch=dict(type='bool', default=True),
        ),
        supports_check_mode=True,
    )
    p = module.params
    np = Numaplan(module)
    # Exit 1 is a verdict (not pinned), reported from the document; 2 and 3 fail with numaplan's message.
    doc, err = np.run_json('verify', [] if p['warmup'] else ['--no-warmup'], units=p['units'],
                           ok=(EXIT_OK, EXIT_FAILED))[1:]
    result = dict(changed=False, ok=bool(doc.get('ok')), verify=doc, messages=np.warn_from(err))
    if not result['ok'] and p['fail_on_mismatch']:
        wrong = ['%s: %s' % (u.get('unit'), u.get('summary') or 'not pinned as planned')
                 for u in doc.get('units', []) if not u.get('ok')]
        module.fail_json(msg='; '.join(wrong) or 'not pinned as planned', **result)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
