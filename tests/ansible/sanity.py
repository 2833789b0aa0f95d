#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The collection as ansible-galaxy built it, as TAP: what it carries (LICENSE, CHANGELOG.md) and
every sanity test ansible-test has for it (pylint, validate-modules, import, pep8, yamllint,
shellcheck and the code-smell tests), offline.

ansible-test runs each sanity test in a virtual environment of its own, which it fills with pip
from PyPI. Debian packages what the tests import or run (python3-voluptuous, pylint,
python3-pycodestyle, yamllint, shellcheck, python3-venv), so this script makes each environment
beforehand, seeing the system's packages, at the path ansible-test computes for it (under a
temporary HOME), and ansible-test uses it as it finds it: pylint with ansible-test's own
configuration for collections (its disallowed names among its checks), Debian's pylint in place
of the one ansible-test would pin.
Usage: sanity.py COLLECTION_TARBALL
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
# ansible-test's own path for a sanity test's venv (ansible_test._internal.commands.sanity,
# create_sanity_virtualenv): "VERSION LABEL HASH" for the test NAME, minimized for the import test's.
VENV_PATH = r'''
import sys
from ansible_test._internal.python_requirements import collect_requirements
from ansible_test._internal.host_configs import NativePythonConfig
from ansible_test._internal.commands.sanity import hash_pip_commands
version = '%d.%d' % sys.version_info[:2]
python = NativePythonConfig(version=version, path=sys.executable)
for name in sys.argv[1:]:
    commands = collect_requirements(python=python, controller=True, virtualenv=False, command=None, ansible=False,
                                    cryptography=False, coverage=False, minimize=name.startswith('import.'),
                                    sanity=name)
    print('%s %s %s' % (version, 'sanity.' + name if commands else 'sanity', hash_pip_commands(commands)))
'''
# What the tests import or run, and the Debian packages that have them.
NEEDS = (('python3', '-c', 'import voluptuous, yaml, jinja2, pylint, pycodestyle, venv, ensurepip'),
         ('yamllint', '--version'), ('shellcheck', '--version'))
PACKAGES = 'python3-voluptuous pylint python3-pycodestyle yamllint shellcheck python3-venv'


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


def make_venvs(python, home, names):
    """Each test's venv where ansible-test looks for it, seeing the system's packages (the import
    test's with pip, which it runs), marked as filled."""
    found = subprocess.run([python, '-c', VENV_PATH] + names, capture_output=True, text=True, check=True)
    libyaml = subprocess.run([python, '-c', 'import yaml; print(hasattr(yaml, "CSafeLoader"))'],
                             capture_output=True, text=True).stdout.strip() == 'True'
    for name, line in zip(names, found.stdout.split('\n')):
        version, label, digest = line.split()
        venv = os.path.join(home, '.ansible', 'test', 'venv', label, version, digest)
        if os.path.exists(venv):
            continue
        pip = [] if name.startswith('import.') else ['--without-pip']
        subprocess.run([python, '-m', 'venv', '--system-site-packages'] + pip + [venv], check=True)
        for meta, text in (('meta.install.json', '[]'), ('meta.yaml.json', json.dumps(libyaml)), ('marker.txt', '')):
            with open(os.path.join(venv, meta), 'w') as f:
                f.write(text)
    return found.stdout.split()[0]


def sanity(tap, tmp, root):
    """ansible-test sanity, every test it has for a collection, offline."""
    what = 'ansible-test sanity passes, every test (pylint, validate-modules, import, pep8, yamllint...)'
    ansible_test = shutil.which('ansible-test')
    if not ansible_test:
        return tap.skip(what, 'ansible-core is not installed (Debian: apt-get install ansible-core)')
    with open(ansible_test) as f:
        python = f.readline()[2:].strip()  # ansible-test's interpreter, whose packages it imports
    need = [cmd for cmd in NEEDS if subprocess.run([python if cmd[0] == 'python3' else cmd[0]] + list(cmd[1:]),
                                                    capture_output=True).returncode != 0]
    if need:
        return tap.skip(what, 'missing %s (Debian: apt-get install %s)' % (need[0][0], PACKAGES))
    home = os.path.join(tmp, 'home')
    env = dict(os.environ, HOME=home, ANSIBLE_HOME=os.path.join(home, '.ansible'), ANSIBLE_NOCOLOR='1',
               PYTHONDONTWRITEBYTECODE='1')
    tests = subprocess.run([ansible_test, 'sanity', '--list-tests'], cwd=root, env=env, capture_output=True,
                           text=True).stdout.split()
    if not tap.check(len(tests) > 10 and 'pylint' in tests, 'ansible-test lists its sanity tests (%d)' % len(tests)):
        return
    version = make_venvs(python, home, tests + ['import.plugin', 'import.module'])
    run = subprocess.run([ansible_test, 'sanity', '--python', version, '--color', 'no'], cwd=root, env=env,
                         capture_output=True, text=True)
    out = run.stdout + run.stderr
    ran = set(re.findall(r'Running sanity test "([^"]+)"', out))
    tap.check(run.returncode == 0 and {'pylint', 'validate-modules', 'import', 'pep8'} <= ran and 'Installing' not in out,
              what + ' (ansible-core %s, %d tests; tests/sanity/ignore-2.14.txt)' % (version_of(ansible_test), len(ran)),
              out)


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
        sanity(tap, tmp, root)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return tap.done()


if __name__ == '__main__':
    sys.exit(main())
