# SPDX-License-Identifier: MIT
"""TAP for the Python tests of the fleet tier (run.py, sanity.py): numbered points, the diagnostics
of a failure, skips, and the plan at the end."""

import sys


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def check(self, cond, what, diag=None):
        self.n += 1
        print('%s %d - %s' % ('ok' if cond else 'not ok', self.n, what))
        if not cond:
            self.failed += 1
            for line in str(diag or '').splitlines()[-40:]:
                print('#   ' + line)
        sys.stdout.flush()
        return cond

    def skip(self, what, why):
        self.n += 1
        print('ok %d - %s # SKIP %s' % (self.n, what, why))

    def done(self):
        print('1..%d' % self.n)
        return 1 if self.failed else 0
