#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The collection as ansible-galaxy built it, as TAP: what it carries (LICENSE, CHANGELOG.md) and
ansible-test's validate-modules sanity test on it, offline.

ansible-test runs each sanity test in a virtual environment of its own, which it fills with pip
from PyPI. Debian packages what validate-modules imports (python3-voluptuous, python3-yaml,
python3-jinja2), so this script makes that environment beforehand, seeing the system's packages,
at the path ansible-test computes for it (under a temporary HOME), and ansible-test uses it as it
finds it. Usage: sanity.py COLLECTION_TARBALL
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

from tap import Tap

NAMESPACE, NAME = 'numaplan', 'host'
# ansible-test's own path for the venv of a sanity test (ansible_test._internal.commands.sanity).
VENV_PATH = r'''
import sys
from ansible_test._internal.python_requirements import collect_requirements
from ansible_test._internal.host_configs import NativePythonConfig
from ansible_test._internal.commands.sanity import hash_pip_commands
version = '%d.%d' % sys.version_info[:2]
python = NativePythonConfig(version=version, path=sys.executable)
commands = collect_requirements(python=python, controller=True, virtualenv=False, command=None, ansible=False,
                                cryptography=False, coverage=False, minimize=False, sanity='validate-modules')
print('%s %s' % (version, hash_pip_commands(commands)))
'''


def check_contents(tap, tarball):
    with tarfile.open(tarball) as tar:
        names = tar.getnames()
        manifest = json.load(tar.extractfile('MANIFEST.json'))['collection_info']
        text = {n: tar.extractfile(n).read().decode() for n in ('LICENSE', 'CHANGELOG.md') if n in names}
    tap.check(manifest['license'] == ['MIT'] and text.get('LICENSE', '').startswith('MIT License\n'),
              'the built collection carries LICENSE, MIT as galaxy.yml says', manifest['license'])
    tap.check('\n## %s\n' % manifest['version'] in text.get('CHANGELOG.md', ''),
              'it carries CHANGELOG.md, with its version %s' % manifest['version'])
    stray = [n for n in names if '__pycache__' in n or n.endswith(('.pyc', '.tar.gz'))]
    tap.check(not stray, 'it carries no byte code or tarballs', stray)


def check_ignores(tap, root):
    path = os.path.join(root, 'tests', 'sanity', 'ignore-2.14.txt')
    lines = open(path).read().splitlines() if os.path.exists(path) else []
    bare = [line for line in lines if not re.search(r'\S+ \S+ +# \S', line)]
    tap.check(not bare, 'every entry of tests/sanity/ignore-2.14.txt says why (%d entries)' % len(lines), bare)


def validate_modules(tap, tmp, root):
    what = 'ansible-test sanity --test validate-modules passes'
    ansible_test = shutil.which('ansible-test')
    if not ansible_test:
        return tap.skip(what, 'ansible-core is not installed (Debian: apt-get install ansible-core)')
    with open(ansible_test) as f:
        python = f.readline()[2:].strip()  # ansible-test's interpreter, whose packages it imports
    missing = subprocess.run([python, '-c', 'import voluptuous, yaml, jinja2'], capture_output=True, text=True)
    if missing.returncode:
        return tap.skip(what, 'validate-modules needs python3-voluptuous (Debian: apt-get install python3-voluptuous)')
    found = subprocess.run([python, '-c', VENV_PATH], capture_output=True, text=True)
    if not tap.check(found.returncode == 0, 'ansible-test says where its validate-modules venv goes', found.stderr):
        return
    version, digest = found.stdout.split()
    home = os.path.join(tmp, 'home')
    venv = os.path.join(home, '.ansible', 'test', 'venv', 'sanity.validate-modules', version, digest)
    subprocess.run([python, '-m', 'venv', '--system-site-packages', '--without-pip', venv], check=True)
    libyaml = subprocess.run([python, '-c', 'import yaml; print(hasattr(yaml, "CSafeLoader"))'],
                             capture_output=True, text=True).stdout.strip() == 'True'
    for name, text in (('meta.install.json', '[]'), ('meta.yaml.json', json.dumps(libyaml)), ('marker.txt', '')):
        with open(os.path.join(venv, name), 'w') as f:
            f.write(text)
    env = dict(os.environ, HOME=home, ANSIBLE_HOME=os.path.join(home, '.ansible'), ANSIBLE_NOCOLOR='1',
               PYTHONDONTWRITEBYTECODE='1')
    run = subprocess.run([ansible_test, 'sanity', '--test', 'validate-modules', '--python', version, '--color', 'no'],
                         cwd=root, env=env, capture_output=True, text=True)
    out = run.stdout + run.stderr
    tap.check(run.returncode == 0 and 'Running sanity test "validate-modules"' in out and 'Installing' not in out,
              what + ' (ansible-core %s, tests/sanity/ignore-2.14.txt)' % version_of(ansible_test), out)


def version_of(ansible_test):
    out = subprocess.run([ansible_test, '--version'], capture_output=True, text=True).stdout.split()
    return out[-1] if out else '?'


def main():
    if len(sys.argv) != 2:
        sys.exit('usage: sanity.py COLLECTION_TARBALL')
    tarball = sys.argv[1]
    if os.path.getsize(tarball) == 0:
        print('1..0 # SKIP the collection was not built: ' + open(tarball + '.status').read().strip())
        return 0
    tap = Tap()
    tmp = tempfile.mkdtemp(prefix='numaplan-sanity.')
    try:
        check_contents(tap, tarball)
        root = os.path.join(tmp, 'ansible_collections', NAMESPACE, NAME)
        os.makedirs(root)
        with tarfile.open(tarball) as tar:
            tar.extractall(root)
        check_ignores(tap, root)
        validate_modules(tap, tmp, root)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return tap.done()


if __name__ == '__main__':
    sys.exit(main())
