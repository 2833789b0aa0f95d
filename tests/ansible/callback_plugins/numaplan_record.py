# -*- coding: utf-8 -*-
# SPDX-License-Identifier: MIT
"""Writes every task result as one JSON line to $NUMAPLAN_RECORD, for run.py to judge:
cheaper than a task per result in the playbook, and it sees failed tasks too."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

import json
import os

from ansible.plugins.callback import CallbackBase


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'aggregate'
    CALLBACK_NAME = 'numaplan_record'
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super(CallbackModule, self).__init__()
        self._out = open(os.environ['NUMAPLAN_RECORD'], 'a')
        self._play = None

    def v2_playbook_on_play_start(self, play):
        self._play = play.get_name()

    def _record(self, result, status):
        line = dict(play=self._play, host=result._host.get_name(), task=result._task.get_name(),
                    status=status, result=result._result)
        self._out.write(json.dumps(line, default=str) + '\n')
        self._out.flush()

    def v2_runner_on_ok(self, result):
        self._record(result, 'changed' if result._result.get('changed') else 'ok')

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._record(result, 'failed')

    def v2_runner_on_skipped(self, result):
        self._record(result, 'skipped')

    def v2_runner_on_unreachable(self, result):
        self._record(result, 'unreachable')
