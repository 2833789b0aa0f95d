#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The Ansible collection numaplan.host against fixture hosts, as TAP.

The collection is the tarball ansible-galaxy built (tests/ansible/build-collection.sh), installed
with ansible-galaxy into the scratch directory, as an admin installs it. One ansible-playbook run
(site.yml) over an inventory of fixture hosts records every task's result
(callback_plugins/numaplan_record.py); this script then judges the results, the unit directories'
listings taken between tasks (tree_state.py) and numaplan's own plan --json. Every --json
document numaplan prints, to the modules or to this script, is checked against its schema
(the build's schemas/, with tests/lib/json-schema.py).
Usage: run.py NUMAPLAN_BINARY FIXTURES_DIR COLLECTION_TARBALL. Set NUMAPLAN_KEEP_TMP=1 to keep the
scratch directory.
"""

import grp
import hashlib
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import traceback

from tap import Tap

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.normpath(os.path.join(HERE, '..', '..'))
VERBS = ('show', 'plan', 'apply', 'remove', 'verify', 'status', 'migrate')
# numaplan as the modules run it, keeping each --json document in DOCS as N.VERB.json.
KEEPER = """#!/bin/sh
doc=$(mktemp "%(docs)s/XXXXXX")
"%(binary)s" "$@" >"$doc"
rc=$?
cat "$doc"
verb=
for a in "$@"; do
    case $a in show|plan|apply|remove|verify|status|migrate) verb=$a; break ;; esac
done
case " $* " in
*" --json "*) mv "$doc" "$doc.$verb.json" ;;
*) rm -f "$doc" ;;
esac
exit $rc
"""
MODULES = {
    'apply': ['binary', 'config', 'sysfs_root', 'unit_dir', 'state', 'units', 'reload', 'restart'],
    'verify': ['binary', 'config', 'sysfs_root', 'unit_dir', 'units', 'warmup', 'fail_on_mismatch'],
    'facts': ['binary', 'config', 'sysfs_root'],
}
# Inventory host -> fixture host: two sockets, NPS4 (8 nodes), a memory-only node, one node.
HOSTS = {
    'dgx': 'dgx-2s-8gpu',
    'nps4': 'nps4-2s-8gpu',
    'gh200': 'gh200-memonly',
    'single': 'single-node',
}
CONFIG = '[replicas inference]\nunit = inference@%i.service\nper = accelerator\nmemory = 32G\n'
CONFIG2 = CONFIG.replace('32G', '16G')
CONFIG_BAD = '[numaplan]\nheadroom = 10%\nno-such-key = 1\n'
# numaplan verify's verdict where systemd answers and a replica is not pinned (exit 1); "argv"
# shows the command line the module built.
SUMMARY = 'NOT pinned as planned: numa-policy: want bind, got default'
VERIFY_STUB = """#!/bin/sh
printf '{"ok": false, "argv": "%%s", "units": [{"unit": "inference@0.service", "ok": false, "summary": "%s"}]}' "$*"
exit 1
""" % SUMMARY
DROPIN = '50-numaplan.conf'
SYSTEMCTL_STUB = '#!/bin/sh\nprintf "%s\\n" "$*" >>"$SYSTEMCTL_LOG"\n'


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(text)
    os.chmod(path, 0o644)  # numaplan, as root, refuses group- or world-writable files


def numaplan_json(binary, *args):
    out = subprocess.run([binary] + list(args) + ['--json'], capture_output=True, text=True, check=True)
    verb = next(a for a in args if a in VERBS)
    fd, path = tempfile.mkstemp(suffix='.%s.json' % verb, dir=os.environ['NUMAPLAN_JSON_DOCS'])
    with os.fdopen(fd, 'w') as f:
        f.write(out.stdout)
    return json.loads(out.stdout)


def check_schemas(tap, docs):
    """One point: every document kept in `docs` matches its verb's schema."""
    args = ['%s=%s' % (name.split('.')[-2], os.path.join(docs, name)) for name in sorted(os.listdir(docs))]
    python = next((p for p in ('/usr/bin/python3', sys.executable)
                   if subprocess.call([p, '-c', 'import jsonschema'], stderr=subprocess.DEVNULL) == 0), None)
    what = "every --json document numaplan printed here matches its verb's schema"
    if not python:
        tap.skip(what, 'python3-jsonschema is not installed')
        return
    out = subprocess.run([python, os.path.join(SOURCE, 'tests', 'lib', 'json-schema.py'),
                          os.environ.get('NUMAPLAN_SCHEMA_DIR', os.path.join(SOURCE, 'build', 'schemas'))]
                         + args, capture_output=True, text=True)
    last = (out.stdout.strip().splitlines() or [''])[-1]
    tap.check(out.returncode == 0 and len(args) > 0, '%s: %s' % (what, last), out.stdout + out.stderr)


def dropins_of(listing):
    return {p: e['sha256'] for p, e in listing.items() if p.endswith('/' + DROPIN)}


def plan_dropins(plan, unit_dir):
    return {os.path.relpath(r['dropin_path'], unit_dir): hashlib.sha256(r['dropin'].encode()).hexdigest()
            for r in plan['replicas']}


def setup(tmp, binary, fixtures, collections):
    paths = dict(config=tmp + '/conf/numaplan.conf', config2=tmp + '/conf/numaplan-16g.conf',
                 config_bad=tmp + '/conf/broken.conf')
    write(paths['config'], CONFIG)
    write(paths['config2'], CONFIG2)
    write(paths['config_bad'], CONFIG_BAD)
    paths['verify_stub'] = tmp + '/verify-stub'
    write(paths['verify_stub'], VERIFY_STUB)
    os.chmod(paths['verify_stub'], 0o755)
    paths['stub_bin'] = tmp + '/bin'
    docs = os.environ['NUMAPLAN_JSON_DOCS'] = tmp + '/json'
    os.makedirs(docs)
    keeper = tmp + '/keeper/numaplan'
    write(keeper, KEEPER % dict(docs=docs, binary=binary))
    os.chmod(keeper, 0o755)
    write(paths['stub_bin'] + '/systemctl', SYSTEMCTL_STUB)
    os.chmod(paths['stub_bin'] + '/systemctl', 0o755)
    hosts = {}
    for name, fixture in HOSTS.items():
        hosts[name] = dict(sysfs_root=os.path.join(fixtures, fixture), unit_dir='%s/%s/units' % (tmp, name),
                           role_dir='%s/%s/role' % (tmp, name))
        os.makedirs(hosts[name]['unit_dir'])
    inventory = dict(all=dict(
        vars=dict(paths, ansible_connection='local', ansible_python_interpreter='{{ ansible_playbook_python }}',
                  numaplan_bin=keeper, tree_state=os.path.join(HERE, 'tree_state.py'),
                  owner=pwd.getpwuid(os.getuid()).pw_name, group=grp.getgrgid(os.getgid()).gr_name),
        children=dict(fixtures=dict(hosts=hosts))))
    # JSON is YAML: the yaml inventory plugin reads it.
    with open(tmp + '/inventory.json', 'w') as f:
        json.dump(inventory, f, indent=1)
    with open(tmp + '/ansible.cfg', 'w') as f:
        f.write('[defaults]\ncallback_plugins = %s\ncallbacks_enabled = numaplan_record\nforks = %d\n'
                'local_tmp = %s/ansible-local\nremote_tmp = %s/ansible-remote\nretry_files_enabled = false\n'
                'nocolor = true\ninterpreter_python = auto_silent\n[connection]\npipelining = true\n'
                % (HERE + '/callback_plugins', len(HOSTS), tmp, tmp))
    env = dict(os.environ, ANSIBLE_CONFIG=tmp + '/ansible.cfg', ANSIBLE_HOME=tmp + '/ansible-home',
               ANSIBLE_COLLECTIONS_PATH=collections, NUMAPLAN_RECORD=tmp + '/record.jsonl',
               ANSIBLE_NOCOLOR='1', PYTHONDONTWRITEBYTECODE='1')
    return paths, hosts, env


class Records:
    def __init__(self, path):
        self.by = {}
        if os.path.exists(path):
            with open(path) as f:
                for line in f:
                    r = json.loads(line)
                    self.by[(r['play'], r['host'], r['task'])] = r

    def get(self, host, task, play='Apply and remove'):
        return self.by.get((play, host, task)) or dict(status='missing', result={})

    def listing(self, host, task):
        r = self.get(host, task)
        return json.loads(r['result']['stdout']) if r['status'] == 'ok' else None


def finish(proc):
    out = proc.communicate()[0]
    return proc.returncode, out


def check_docs(tap, docs):
    for name, (rc, out) in docs.items():
        if name == 'role':
            tap.check(rc == 0 and '> NUMAPLAN.HOST.NUMAPLAN' in out and 'numaplan_replicas' in out,
                      'ansible-doc -t role renders numaplan.host.numaplan', out)
            continue
        missing = [o for o in MODULES[name] if '- %s\n' % o not in out]
        tap.check(rc == 0 and '> NUMAPLAN.HOST.%s' % name.upper() in out and not missing
                  and 'EXAMPLES' in out and 'RETURN VALUES' in out,
                  'ansible-doc renders numaplan.host.%s with every option' % name,
                  'missing: %s\n%s' % (missing, out))


def check_host(tap, rec, binary, h, host, paths):
    unit_dir = host['unit_dir']
    sysfs = ['--sysfs-root', host['sysfs_root'], '--unit-dir', unit_dir]
    plan = numaplan_json(binary, 'plan', '-c', paths['config'], *sysfs)
    planned = [r['unit'] for r in plan['replicas']]
    want = plan_dropins(plan, unit_dir)

    r = rec.get(h, 'check')
    res = r['result']
    tap.check(res.get('changed') is True and [u['unit'] for u in res.get('units', [])] == planned
              and all(u['action'] == 'created' for u in res['units']),
              '%s: check mode reports changed, every planned unit to be created' % h, res)
    diff = res.get('diff', {}).get('prepared', '')
    tap.check(all('+++ %s\n' % r['dropin_path'] in diff and
                  ''.join('+' + line + '\n' for line in r['dropin'].splitlines()) in diff for r in plan['replicas']),
              '%s: check mode with diff shows every drop-in of the plan' % h, diff or res)
    before, after = rec.listing(h, 'listing before check'), rec.listing(h, 'listing after check')
    tap.check(before is not None and before == after,
              '%s: check mode leaves the unit directory byte-identical' % h,
              'before: %s\nafter:  %s' % (before, after))

    res = rec.get(h, 'first')['result']
    tap.check(res.get('changed') is True and [u['unit'] for u in res.get('units', [])] == planned
              and all(u['action'] == 'created' for u in res['units']),
              '%s: the first run is changed and creates every planned unit' % h, res)
    got = dropins_of(rec.listing(h, 'listing after first') or {})
    tap.check(got and got == want, '%s: the first run writes exactly the drop-ins of numaplan plan --json' % h,
              'got:  %s\nwant: %s' % (got, want))
    tap.check(res.get('plan') == plan, '%s: the module returns numaplan plan --json as plan' % h,
              'got: %s' % res.get('plan'))

    res = rec.get(h, 'second')['result']
    tap.check(res.get('changed') is False and all(u.get('action') == 'unchanged' for u in res.get('units', [{}])),
              '%s: a second run is not changed' % h, res)
    after_first = rec.listing(h, 'listing after first')
    tap.check(after_first is not None and after_first == rec.listing(h, 'listing after second and diff check'),
              '%s: the second run and check mode on an applied directory touch nothing' % h)

    plan2 = numaplan_json(binary, 'plan', '-c', paths['config2'], *sysfs)
    res = rec.get(h, 'diff')['result']
    diff = res.get('diff', {}).get('prepared', '')
    hunks = all('--- %s\n+++ %s\n' % (r['dropin_path'], r['dropin_path']) in diff for r in plan2['replicas'])
    tap.check(res.get('changed') is True and hunks and '-# replica' in diff and '+# replica' in diff
              and all(u['action'] == 'updated' for u in res['units']),
              '%s: diff mode shows the diff of every updated drop-in' % h, diff or res)
    check_diff = rec.get(h, 'diff check')['result'].get('diff', {}).get('prepared')
    tap.check(check_diff == diff, '%s: check mode shows the same diff as the run' % h,
              'check: %s\nrun:   %s' % (check_diff, diff))

    res = rec.get(h, 'absent check')['result']
    diff = res.get('diff', {}).get('prepared', '')
    removed = [u['unit'] for u in res.get('units', []) if u['action'] == 'removed']
    tap.check(res.get('changed') is True and removed == sorted(planned)
              and all('--- %s\n+++ /dev/null\n' % r['dropin_path'] in diff for r in plan2['replicas']),
              '%s: state=absent in check mode reports every drop-in removed, with its diff' % h, res)
    after_diff = rec.listing(h, 'listing after diff')
    tap.check(after_diff is not None and after_diff == rec.listing(h, 'listing after absent check'),
              '%s: state=absent in check mode leaves the unit directory byte-identical' % h)
    res = rec.get(h, 'absent check short name')['result']
    tap.check(res.get('changed') is True and res.get('units') == [dict(unit=planned[0], action='removed')],
              '%s: state=absent in check mode reads a unit named without .service as numaplan does' % h, res)
    check_bad, bad = rec.get(h, 'absent check bad name'), rec.get(h, 'absent bad name')
    tap.check(check_bad['status'] == bad['status'] == 'failed' and 'is not a service unit name' in bad['result'].get('msg', '')
              and check_bad['result'].get('msg') == bad['result'].get('msg'),
              '%s: state=absent refuses a bad unit name in check mode with numaplan\'s own message' % h,
              'check: %s\nrun:   %s' % (check_bad, bad))
    res = rec.get(h, 'absent one')['result']
    tap.check(res.get('changed') is True and res.get('units') == [dict(unit=planned[0], action='removed')],
              '%s: state=absent with units removes the drop-ins of those units only' % h, res)
    res = rec.get(h, 'absent')['result']
    left = dropins_of(rec.listing(h, 'listing after absent') or {'x/' + DROPIN: None})
    # On a host with one replica there is nothing left to remove: not changed.
    tap.check(res.get('changed') is (len(planned) > 1) and not left
              and sorted(u['unit'] for u in res.get('units', []) if u['action'] == 'removed') == sorted(planned[1:]),
              '%s: state=absent removes every other drop-in' % h, '%s\nleft: %s' % (res, left))

    r = rec.get(h, 'broken')
    msg = r['result'].get('msg', '')
    tap.check(r['status'] == 'failed' and (paths['config_bad'] + ':3: ') in msg,
              '%s: a broken configuration fails the task with file:line in msg' % h, r)

    r = rec.get(h, 'verify')
    res = r['result']
    msg = res.get('msg', '')
    if res.get('rc') not in (None, 3) or 'verify' in res:
        tap.skip('%s: verify without systemd fails with numaplan\'s message' % h, 'systemd answers here')
    else:
        errors = [line[len('numaplan: error: '):] for line in res.get('stderr', '').splitlines()
                  if line.startswith('numaplan: error: ')]
        tap.check(r['status'] == 'failed' and res.get('rc') == 3 and errors and all(e in msg for e in errors)
                  and msg.startswith('numaplan verify failed (exit 3): '),
                  '%s: verify without systemd fails with numaplan\'s message' % h, res)

    r = rec.get(h, 'verify mismatch')
    res = r['result']
    argv = res.get('verify', {}).get('argv')
    tap.check(r['status'] == 'failed' and res.get('msg') == 'inference@0.service: ' + SUMMARY and res.get('ok') is False,
              '%s: verify fails naming the unit, with numaplan\'s summary, when a replica is not pinned' % h, res)
    tap.check(argv == 'verify --json --no-warmup -- inference@0.service',
              '%s: verify passes --no-warmup and the units after --' % h, argv)
    r = rec.get(h, 'verify mismatch tolerated')
    tap.check(r['status'] == 'ok' and r['result'].get('ok') is False and r['result'].get('verify', {}).get('units'),
              '%s: verify with fail_on_mismatch false succeeds and returns ok false and the document' % h, r)

    res = rec.get(h, 'facts')['result']
    show = numaplan_json(binary, 'show', '-c', paths['config'], '--sysfs-root', host['sysfs_root'])
    tap.check(res.get('ansible_facts', {}).get('numaplan', {}).get('nodes') == show['nodes'] and show['nodes'],
              '%s: facts returns the fixture host\'s nodes as ansible_facts.numaplan' % h, res)


def check_role(tap, rec, binary, h, host):
    first, second = 'Role, first run', 'Role, second run'
    conf = host['role_dir'] + '/etc/numaplan.conf'
    units = host['role_dir'] + '/units'
    installed = rec.get(h, 'numaplan.host.numaplan : Install the numaplan configuration', first)
    text = open(conf).read() if os.path.exists(conf) else ''
    mode = os.stat(conf).st_mode & 0o7777 if text else None
    tap.check(installed['status'] == 'changed' and mode == 0o644 and '\n[replica first]\nunit = first-replica.service\n'
              'accelerators = count:1\nmemory = 8G\nmin-local = 90%\n' in text
              and '\n[replicas inference]\n' in text and 'visible-devices = yes\n' in text,
              '%s: the role installs its configuration from variables, mode 0644' % h,
              'mode %s\n%s\n%s' % (oct(mode or 0), text, installed))
    applied = rec.get(h, 'numaplan.host.numaplan : Apply the plan', first)
    plan = numaplan_json(binary, 'plan', '-c', conf, '--sysfs-root', host['sysfs_root'], '--unit-dir', units) \
        if text else {'replicas': []}
    got = {}
    for r in plan['replicas']:
        if os.path.exists(r['dropin_path']):
            got[r['unit']] = open(r['dropin_path']).read() == r['dropin']
    tap.check(applied['status'] == 'changed' and plan['replicas'] and all(got.get(r['unit']) for r in plan['replicas']),
              '%s: the role applies it: the drop-ins of numaplan plan --json are written' % h, applied)
    handler = rec.get(h, 'numaplan.host.numaplan : Restart the replicas numaplan moved', first)
    log = host['role_dir'] + '/systemctl.log'
    calls = open(log).read().splitlines() if os.path.exists(log) else []
    want = 'try-restart -- ' + ' '.join(r['unit'] for r in plan['replicas'])
    tap.check(handler['status'] == 'changed' and calls == [want],
              '%s: the handler restarts (try-restart) exactly the units whose drop-in was created' % h,
              'calls: %s\nwant: %s\n%s' % (calls, want, handler))
    again = [rec.get(h, 'numaplan.host.numaplan : ' + t, second)
             for t in ('Install the numaplan configuration', 'Apply the plan', 'Restart the replicas numaplan moved')]
    calls = open(log).read().splitlines() if os.path.exists(log) else []
    tap.check(again[0]['status'] == 'ok' and again[1]['status'] == 'ok' and again[2]['status'] == 'missing'
              and len(calls) == 1,
              '%s: the role run again changes nothing and restarts nothing' % h, '%s\ncalls: %s' % (again, calls))


def main():
    if len(sys.argv) != 4:
        sys.exit('usage: run.sh NUMAPLAN_BINARY FIXTURES_DIR COLLECTION_TARBALL')
    binary, fixtures = os.path.abspath(sys.argv[1]), os.path.join(os.path.abspath(sys.argv[2]), 'hosts')
    tarball = os.path.abspath(sys.argv[3])
    tap = Tap()
    if not (shutil.which('ansible-playbook') and shutil.which('ansible-doc')):
        print('1..0 # SKIP ansible-core is not installed (Debian: apt-get install ansible-core)')
        return 0

    tmp = tempfile.mkdtemp(prefix='numaplan-ansible.')
    try:
        collections = tmp + '/collections'
        paths, hosts, env = setup(tmp, binary, fixtures, collections)
        install = subprocess.run(['ansible-galaxy', 'collection', 'install', '--offline', '-p', collections, tarball],
                                 env=env, capture_output=True, text=True)
        installed = os.path.join(collections, 'ansible_collections', 'numaplan', 'host', 'MANIFEST.json')
        if not tap.check(install.returncode == 0 and os.path.exists(installed),
                         'ansible-galaxy collection install --offline installs the built collection',
                         install.stdout + install.stderr):
            return tap.done()
        # ansible-doc beside the playbook: both spend most of their time starting Python.
        docs = {m: subprocess.Popen(['ansible-doc', 'numaplan.host.' + m], env=env, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True) for m in MODULES}
        docs['role'] = subprocess.Popen(['ansible-doc', '-t', 'role', 'numaplan.host.numaplan'], env=env,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        with open(tmp + '/playbook.log', 'w') as log:
            rc = subprocess.call(['ansible-playbook', '-i', tmp + '/inventory.json', os.path.join(HERE, 'site.yml')],
                                 env=env, stdout=log, stderr=subprocess.STDOUT)
        check_docs(tap, {m: finish(p) for m, p in docs.items()})
        tap.check(rc == 0, 'ansible-playbook site.yml exits 0', open(tmp + '/playbook.log').read())
        rec = Records(tmp + '/record.jsonl')
        for check, args in [(check_host, (paths,)), (check_role, ())]:
            for h in HOSTS:
                try:
                    check(tap, rec, binary, h, hosts[h], *args)
                except Exception:  # a crash in the checks is a failure to report, not to hide
                    tap.check(False, '%s: %s ran to the end' % (h, check.__name__), traceback.format_exc())
        check_schemas(tap, tmp + '/json')
    finally:
        if os.environ.get('NUMAPLAN_KEEP_TMP'):
            print('# kept ' + tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return tap.done()


if __name__ == '__main__':
    sys.exit(main())
