#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: MIT

from __future__ import absolute_import, division, print_function
__metaclass__ = type

DOCUMENTATION = r'''
module: facts
short_description: The host's NUMA nodes and accelerators as numaplan sees them
version_added: 0.1.0
description:
  - Runs C(numaplan show --json) and sets its document as the fact C(ansible_facts.numaplan).
  - Never changes anything.
extends_documentation_fragment:
  - numaplan.host.common
  - ansible.builtin.action_common_attributes
  - ansible.builtin.action_common_attributes.facts
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
  facts:
    support: full
  platform:
    platforms: posix
notes:
  - I(config) matters only through its C(accelerator-nodes), which give accelerators their node.
seealso:
  - module: numaplan.host.apply
author:
  # An author without a GitHub account, as validate-modules spells it.
  - numaplan maintainers (!UNKNOWN)
'''

EXAMPLES = r'''
- name: Read the topology
  numaplan.host.facts:

- name: Size the replicas by the number of nodes
  ansible.builtin.debug:
    msg: "{{ ansible_facts.numaplan.nodes | length }} nodes, {{ ansible_facts.numaplan.accelerators | selectattr('compute') | list | length }} GPUs"
'''

RETURN = r'''
ansible_facts:
  description: Facts to add to the host's.
  returned: always
  type: dict
  contains:
    numaplan:
      description:
        - The document of C(numaplan show --json).
        - C(nodes), each with C(id), C(cpus), C(cores), C(kind), C(memory_total_bytes), C(memory_free_bytes), C(distances).
        - C(accelerators), each with C(pci), C(vendor), C(device), C(class), C(name), C(numa_node), C(numa_source),
          C(local_cpus), C(compute).
        - C(warnings), each with C(code), C(severity), C(message).
      type: dict
      sample: {"nodes": [{"id": 0, "cpus": "0-13", "kind": "cpu+memory", "cores": 8}], "accelerators": [], "warnings": []}
'''

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.numaplan.host.plugins.module_utils.numaplan import Numaplan, argument_spec


def main():
    module = AnsibleModule(argument_spec=argument_spec(unit_dir=False), supports_check_mode=True)
    doc = Numaplan(module).run_json('show')[1]
    module.exit_json(changed=False, ansible_facts=dict(numaplan=doc))


if __name__ == '__main__':
    main()
