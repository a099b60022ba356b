#!/usr/bin/env python3
"""Checks `bagscope info --json` and `cat --format json` on the pre-2.0 samples in this folder against
expected/NAME.expect.json (what each file holds, written from the generator's message stream and, for
monster.bag, from a byte walk). Topic names compare without a leading '/'. Definitions for 1.1 and
older come from Debian's message packages (apt-get install ros-std-msgs; ROS_PACKAGE_PATH=/usr/share).
Messages without a definition must print "msg": null.

    check_oldbags.py BIN     -> 'ok    oldfmt/...' / 'FAIL  oldfmt/...' lines, then 'N passed, N failed'"""
import json
import os
import sys

# bagscope's copy: the samples are in tests/data/oldbags, compare.py's helpers in compare_lite.py
TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HERE = os.path.join(TESTS, 'data', 'oldbags')
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_lite as compare                   # noqa: E402

os.environ['ROS_PACKAGE_PATH'] = '/usr/share'
os.environ.pop('BAGSCOPE_MSG_PATH', None)


def norm(t):
    return t.lstrip('/')


def check_info(binary, name, e):
    r = compare.run(binary, ['info', '--json', os.path.join(HERE, name + '.bag')], 30)
    why = compare.died(r)
    if why:
        return why
    if r.rc != 0:
        return 'exit %d: %s' % (r.rc, compare.short(r.err))
    try:
        j = json.loads(r.out.decode('utf-8'))
    except ValueError as ex:
        return 'not one JSON object: %s' % ex
    if not str(j.get('version', '')).startswith(e['version']):
        return 'version %r, expected %s' % (j.get('version'), e['version'])
    if j.get('messages') != e['messages']:
        return 'messages %r, expected %d' % (j.get('messages'), e['messages'])
    got = {norm(t.get('topic', '')): t.get('messages') for t in j.get('topics', [])}
    want = {norm(t): n for t, n in e['topics'].items()}
    if got != want:
        return 'topics %s, expected %s' % (got, want)
    for k in ('start', 'end'):
        if k + '_ns' in j:
            if j[k + '_ns'] != e[k + '_ns']:
                return '%s_ns %r, expected %d' % (k, j[k + '_ns'], e[k + '_ns'])
        elif not compare.is_num(j.get(k)) or abs(j[k] - e[k + '_ns'] / 1e9) > 2e-6:
            return '%s %r, expected %.9f' % (k, j.get(k), e[k + '_ns'] / 1e9)
    return None


def check_cat(binary, name, e):
    r = compare.run(binary, ['cat', '--format', 'json', os.path.join(HERE, name + '.bag')], 60)
    why = compare.died(r)
    if why:
        return why
    if r.rc not in (0, 1):
        return 'exit %d: %s' % (r.rc, compare.short(r.err))
    act, perr = compare.parse_jsonl_output(r)
    if perr:
        return perr
    exp = e['cat']
    if len(act) != len(exp):
        return '%d messages, expected %d' % (len(act), len(exp))
    for i, (x, a) in enumerate(zip(exp, act)):
        if norm(a.get('topic', '')) != norm(x['topic']) or a.get('time_ns') != x['time_ns']:
            return 'message %d is %s @%s, expected %s @%d' % (i, a.get('topic'), a.get('time_ns'), x['topic'], x['time_ns'])
        if x['type'] != '*' and a.get('type') != x['type']:
            return 'message %d type %r, expected %r' % (i, a.get('type'), x['type'])
        if 'size' in a and a['size'] != x['size']:
            return 'message %d size %r, expected %d' % (i, a['size'], x['size'])
        if x['msg'] is None:
            if a.get('msg') not in (None, {}):
                return 'message %d decoded without a definition: %s' % (i, compare.short(json.dumps(a.get('msg')), 80))
        else:
            d = compare.cmp_value(x['msg'], a.get('msg'), 'message %d msg' % i)
            if d:
                return d
    if r.rc != 0 and all(x['msg'] is not None for x in exp):
        return 'exit %d although every message decodes: %s' % (r.rc, compare.short(r.err))
    return None


def main():
    binary = os.path.abspath(sys.argv[1])
    passed = failed = 0
    for f in sorted(os.listdir(os.path.join(HERE, 'expected'))):
        if not f.endswith('.expect.json'):
            continue
        name = f[:-len('.expect.json')]
        with open(os.path.join(HERE, 'expected', f)) as fh:
            e = json.load(fh)
        for kind, fn in (('info', check_info), ('cat', check_cat)):
            why = fn(binary, name, e)
            if why:
                failed += 1
                print('FAIL  oldfmt/%s/%s: %s' % (kind, name, why))
            else:
                passed += 1
                print('ok    oldfmt/%s/%s' % (kind, name))
    print('%d passed, %d failed' % (passed, failed))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
