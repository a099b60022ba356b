#!/usr/bin/env python3
"""Golden tests: `bagscope info --json` and `bagscope cat --format json` on the
fixture bags in tests/data/fixtures, compared with the outputs of the real ROS
tools stored beside them (see tests/data/fixtures/README.md for the rules).

    golden.py BAGSCOPE [--only NAME]

With GOLDEN_BASE_URL set (http://HOST:PORT/ serving tests/data/fixtures),
every bag is read through that URL instead of the file: the same checks.

Prints one line per check and ends with 'N passed, N failed'."""
import gzip
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, '..', 'data', 'fixtures')
EXP = os.path.join(DATA, 'expected')
FLOAT_TOL = 1e-6
TIME_TOL = 2e-6


def run(binary, args):
    p = subprocess.run([binary] + args, stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
    return p.returncode, p.stdout, p.stderr.decode('utf-8', 'replace')


def jsonl(path):
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rt', encoding='utf-8') as f:
        return [json.loads(line) for line in f if line.strip()]


def same(exp, act, path='msg'):
    """None if act matches exp under the contract's rules, else where not."""
    if isinstance(exp, dict):
        if not isinstance(act, dict) or list(act) != list(exp):
            return '%s: fields %s, expected %s' % (path, list(act)[:8] if isinstance(act, dict) else act, list(exp)[:8])
        for k in exp:
            d = same(exp[k], act[k], path + '.' + k)
            if d:
                return d
        return None
    if isinstance(exp, list):
        if not isinstance(act, list) or len(act) != len(exp):
            return '%s: expected an array of %d' % (path, len(exp))
        if exp == act and set(map(type, exp)) <= {int} and set(map(type, act)) <= {int}:
            return None                       # equal integer arrays (byte data), compared at C speed
        for i, (e, a) in enumerate(zip(exp, act)):
            d = same(e, a, '%s[%d]' % (path, i))
            if d:
                return d
        return None
    if isinstance(exp, bool) or exp is None or isinstance(exp, str):
        return None if act == exp and type(act) == type(exp) else '%s: %r, expected %r' % (path, act, exp)
    if isinstance(exp, int):
        return None if type(act) == int and act == exp else '%s: %r, expected exactly %r' % (path, act, exp)
    if isinstance(act, (int, float)) and not isinstance(act, bool):
        if act == exp or abs(act - exp) <= FLOAT_TOL * max(abs(act), abs(exp)):
            return None
    return '%s: %r, expected %r' % (path, act, exp)


def check_cat(exp, out):
    try:
        act = [json.loads(line) for line in out.decode('utf-8').splitlines() if line.strip()]
    except ValueError as e:
        return 'not JSON: %s' % e
    if len(act) != len(exp):
        return '%d messages, expected %d' % (len(act), len(exp))
    for i, (e, a) in enumerate(zip(exp, act)):
        for k in ('topic', 'type', 'time_ns'):
            if a.get(k) != e[k]:
                return 'message %d: %s %r, expected %r' % (i, k, a.get(k), e[k])
        d = same(e['msg'], a.get('msg'))
        if d:
            return 'message %d (%s): %s' % (i, e['topic'], d)
    return None


def check_info(ref, act, msgs):
    if act.get('size') != ref['size'] or float(act.get('version', 0)) != 2.0:
        return 'size/version %r/%r' % (act.get('size'), act.get('version'))
    if 'messages' not in ref:
        return None if act.get('messages', 0) == 0 and not act.get('topics') else 'empty bag lists messages'
    for k in ('messages', 'compression'):
        if act.get(k) != ref[k]:
            return '%s %r, expected %r' % (k, act.get(k), ref[k])
    for k in ('uncompressed', 'compressed'):
        if k in ref and act.get(k) != ref[k]:
            return '%s %r, expected %r' % (k, act.get(k), ref[k])
    lo = min(m['time_ns'] for m in msgs) / 1e9
    hi = max(m['time_ns'] for m in msgs) / 1e9
    if abs(act['start'] - lo) > TIME_TOL or abs(act['end'] - hi) > TIME_TOL:
        return 'start/end %r/%r, expected the true min/max %r/%r' % (act['start'], act['end'], lo, hi)
    if sorted((t['type'], t['md5']) for t in act['types']) != sorted((t['type'], t['md5']) for t in ref['types']):
        return 'types differ'
    want = {t['topic']: t for t in ref['topics']}
    got = {t['topic']: t for t in act['topics']}
    if sorted(want) != sorted(got):
        return 'topics %s, expected %s' % (sorted(got), sorted(want))
    for name, t in want.items():
        g = got[name]
        if g['messages'] != t['messages'] or g['type'] != t['type'] or g['connections'] != t.get('connections', 1):
            return 'topic %s: %r, expected %r' % (name, g, t)
    return None


def main():
    binary = os.path.abspath(sys.argv[1])
    only = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == '--only' else ''
    passed = failed = 0

    def report(name, why):
        nonlocal passed, failed
        if why:
            failed += 1
            print('FAIL  %s: %s' % (name, why))
        else:
            passed += 1
            print('ok    %s' % name)

    with open(os.path.join(EXP, 'manifest.json')) as f:
        manifest = json.load(f)
    for entry in manifest['bags']:
        if only not in entry['name']:
            continue
        bag = os.path.join(DATA, entry['bag'])
        if os.environ.get('GOLDEN_BASE_URL'):
            bag = os.environ['GOLDEN_BASE_URL'] + entry['bag']
        msgs = jsonl(os.path.join(EXP, entry['cat']))
        rc, out, err = run(binary, ['info', '--json', bag])
        if rc != 0:
            report('info/' + entry['name'], 'exit %d: %s' % (rc, err.strip()))
        else:
            with open(os.path.join(EXP, entry['info'])) as f:
                try:
                    act = json.loads(out)
                except ValueError as e:
                    report('info/' + entry['name'], 'not JSON: %s' % e)
                else:
                    report('info/' + entry['name'], check_info(json.load(f), act, msgs))
        cases = [('', [], msgs)] + [('/' + c['id'], c['args'], jsonl(os.path.join(EXP, c['expect'])))
                                    for c in entry.get('cases', [])]
        cases += [('/filter/' + c['id'], ['--filter', c['filter']] + c['args'],
                   jsonl(os.path.join(EXP, c['expect']))) for c in entry.get('filter_cases', [])]
        for suffix, args, exp in cases:
            rc, out, err = run(binary, ['cat', '--format', 'json'] + args + [bag])
            name = 'cat/' + entry['name'] + suffix
            report(name, 'exit %d: %s' % (rc, err.strip()) if rc != 0 else check_cat(exp, out))
        # refused before anything is read: exit 2, the problem on one line, a caret under it
        for c in entry.get('filter_errors', []):
            rc, out, err = run(binary, ['cat', '--format', 'json', '--filter', c['filter'], bag])
            lines = err.splitlines()
            ok = rc == 2 and not out and len(lines) == 2 and lines[1].strip() == '^'
            report('cat/%s/refuse/%s' % (entry['name'], c['id']),
                   None if ok else 'exit %d, stdout %r, stderr %r' % (rc, out[:80], err))
    # the text layout, against `TZ=UTC rosbag info [--freq]` run in the fixture folder
    for ref in sorted(os.listdir(os.path.join(EXP, 'text'))):
        name, kind = ref.split('.', 1)
        if only not in name:
            continue
        bag = next(os.path.join(d, name + '.bag') for d in ('bags', 'made', 'foreign/rosbag.js')
                   if os.path.exists(os.path.join(DATA, d, name + '.bag')))
        args = ['info', '--freq', bag] if kind.startswith('info-freq') else ['info', bag]
        p = subprocess.run([binary] + args, cwd=DATA, capture_output=True, env=dict(os.environ, TZ='UTC'))
        with open(os.path.join(EXP, 'text', ref)) as f:
            want = f.read().splitlines()
        got = p.stdout.decode('utf-8', 'replace').splitlines()
        if name == 'example-unsorted-chunks':
            # rosbag takes the first and last chunk in file order, bagscope the true
            # min/max; and rosbag's --freq sees this topic's stamps out of order
            skip = ('duration:', 'start:', 'end:', 'topics:')
            want = [l for l in want if not l.startswith(skip)]
            got = [l for l in got if not l.startswith(skip)]
        diff = next(('line %d: %r, rosbag says %r' % (i + 1, g, w) for i, (g, w) in enumerate(zip(got, want))
                     if g != w), None)
        if diff is None and len(got) != len(want):
            diff = '%d lines, rosbag prints %d' % (len(got), len(want))
        report('text/' + ref, diff)
    # CSV, against `rostopic echo -b BAG -p TOPIC` (files named BAG_topic_name.csv)
    for ref in sorted(os.listdir(os.path.join(EXP, 'csv'))):
        stem = ref[:-4]
        bagname = next(b for b in ('nested_bz2', 'tf_lz4', 'example') if stem.startswith(b + '_'))
        if only not in bagname:
            continue
        topic = stem[len(bagname):].replace('_', '/', 2) if bagname != 'example' else '/turtle1/pose'
        bag = next(os.path.join(DATA, d, bagname + '.bag') for d in ('bags', 'made', 'foreign/rosbag.js')
                   if os.path.exists(os.path.join(DATA, d, bagname + '.bag')))
        rc, out, err = run(binary, ['cat', '--format', 'csv', '--topic', topic, bag])
        with open(os.path.join(EXP, 'csv', ref), 'rb') as f:
            want = f.read()
        report('csv/' + ref, None if rc == 0 and out == want else 'exit %d, output differs from rostopic' % rc)
    with open(os.path.join(EXP, 'broken.json')) as f:
        broken = json.load(f)
    for entry in broken['files']:
        if only not in entry['name']:
            continue
        path = os.path.join(DATA, entry['file'])
        for sub in (['info', '--json'], ['cat', '--format', 'json']):
            name = 'broken/%s/%s' % (sub[0], entry['name'])
            rc, out, err = run(binary, sub + [path])
            lines = [l for l in err.splitlines() if l.strip()]
            if rc < 0 or rc > 2:
                report(name, 'exit status %d' % rc)
            elif entry['category'] == 'not_a_bag':
                report(name, None if rc != 0 and len(lines) == 1 else 'exit %d, stderr %r' % (rc, err))
            elif rc != 0 and not lines:
                report(name, 'exit %d with nothing on stderr' % rc)
            elif sub[0] == 'cat':
                try:
                    got = {(m['topic'], m['time_ns'], json.dumps(m['msg'], sort_keys=True))
                           for m in (json.loads(l) for l in out.decode('utf-8').splitlines() if l.strip())}
                except ValueError as e:
                    report(name, 'not JSON: %s' % e)
                    continue
                exp = jsonl(os.path.join(EXP, entry['recovered_expect']))
                missing = [m for m in exp if (m['topic'], m['time_ns'], json.dumps(m['msg'], sort_keys=True)) not in got]
                report(name, '%d of %d recovered messages missing' % (len(missing), len(exp)) if missing else None)
            else:
                report(name, None)
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
