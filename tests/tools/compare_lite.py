"""The parts of shared/fixtures/tools/compare.py that tests/tools/check_oldbags.py uses (copied)."""
import argparse
import gzip
import json
import math
import os
import signal
import subprocess
import sys

REL_TOL = 1e-6          # message floats: relative tolerance
TIME_TOL = 2e-6         # info start/end/duration (seconds; reference prints %.6f)
SIGNAL_EXIT_CODES = {128 + s for s in (4, 6, 7, 8, 11)}   # shell-style signal exits


# ----------------------------------------------------------------- running
class Run:
    def __init__(self, rc, out, err, note=None):
        self.rc, self.out, self.err, self.note = rc, out, err, note


def run(binary, args, timeout):
    if not binary or not os.path.isfile(binary) or not os.access(binary, os.X_OK):
        return Run(None, b'', b'', 'bagscope binary not found or not executable: %r' % binary)
    try:
        p = subprocess.Popen([binary] + args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, start_new_session=True)
    except OSError as ex:
        return Run(None, b'', b'', 'could not execute %s: %s' % (binary, ex))
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)     # the whole process group
        except OSError:
            p.kill()
        out, err = p.communicate()
        return Run(None, out or b'', err or b'', 'timed out after %ss' % timeout)
    return Run(p.returncode, out, err)


def died(r):
    """None if the process ended normally, else a reason."""
    if r.note:
        return r.note
    if r.rc < 0:
        try:
            name = signal.Signals(-r.rc).name
        except ValueError:
            name = str(-r.rc)
        return 'killed by signal %s' % name
    if r.rc in SIGNAL_EXIT_CODES:
        return 'exit status %d looks like a signal death' % r.rc
    return None


def stderr_text(r):
    return r.err.decode('utf-8', 'replace').strip()


def short(b, n=300):
    s = b.decode('utf-8', 'replace') if isinstance(b, bytes) else str(b)
    s = s.strip().replace('\n', ' | ')
    return s if len(s) <= n else s[:n] + '...'


# ------------------------------------------------------------- comparisons
def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def cmp_value(exp, act, path):
    """Return None when act matches exp, else a description of the first difference."""
    if isinstance(exp, dict):
        if not isinstance(act, dict):
            return '%s: expected an object, got %s' % (path, short(json.dumps(act), 80))
        if list(act.keys()) != list(exp.keys()):
            extra = [k for k in act if k not in exp]
            missing = [k for k in exp if k not in act]
            if extra or missing:
                return '%s: unexpected fields %s, missing fields %s (constants must not appear)' % (
                    path, extra[:10], missing[:10])
            return '%s: field order %s, expected definition order %s' % (
                path, list(act.keys())[:20], list(exp.keys())[:20])
        for k in exp:
            d = cmp_value(exp[k], act[k], path + '.' + k)
            if d:
                return d
        return None
    if isinstance(exp, list):
        if not isinstance(act, list):
            return '%s: expected an array, got %s' % (path, short(json.dumps(act), 80))
        if len(act) != len(exp):
            return '%s: array length %d, expected %d' % (path, len(act), len(exp))
        for i, (e, a) in enumerate(zip(exp, act)):
            d = cmp_value(e, a, '%s[%d]' % (path, i))
            if d:
                return d
        return None
    if isinstance(exp, bool):
        if isinstance(act, bool) and act == exp:
            return None
        if is_num(act) and isinstance(act, int) and act == int(exp):
            return None      # 0/1 accepted for bool
        return '%s: %r, expected %r' % (path, act, exp)
    if isinstance(exp, int):
        if isinstance(act, int) and not isinstance(act, bool) and act == exp:
            return None
        return '%s: %r, expected exactly %r' % (path, act, exp)
    if isinstance(exp, float):
        if is_num(act):
            a = float(act)
            if a == exp or abs(a - exp) <= REL_TOL * max(abs(a), abs(exp)):
                return None
        return '%s: %r, expected %r (rel tol %g)' % (path, act, exp, REL_TOL)
    if isinstance(exp, str):
        if isinstance(act, str) and act == exp:
            return None
        return '%s: %s, expected %s' % (path, short(json.dumps(act, ensure_ascii=True), 120),
                                        short(json.dumps(exp, ensure_ascii=True), 120))
    if exp is None:
        return None if act is None else '%s: %r, expected null' % (path, act)
    return '%s: cannot compare %r' % (path, exp)


def cmp_record(exp, act, where):
    if not isinstance(act, dict):
        return '%s: not a JSON object' % where
    for k in ('topic', 'type', 'time_ns', 'msg'):
        if k not in act:
            return '%s: missing key %r' % (where, k)
    for k in ('topic', 'type'):
        if act[k] != exp[k]:
            return '%s: %s %r, expected %r' % (where, k, act[k], exp[k])
    if not (isinstance(act['time_ns'], int) and not isinstance(act['time_ns'], bool)) \
            or act['time_ns'] != exp['time_ns']:
        return '%s: time_ns %r, expected %r' % (where, act['time_ns'], exp['time_ns'])
    d = cmp_value(exp['msg'], act['msg'], 'msg')
    if d:
        return '%s (%s @%d): %s' % (where, exp['topic'], exp['time_ns'], d)
    return None


def load_jsonl(path):
    op = gzip.open if path.endswith('.gz') else open
    with op(path, 'rt', encoding='utf-8') as f:
        return [json.loads(line) for line in f if line.strip()]


def parse_jsonl_output(r):
    try:
        text = r.out.decode('utf-8')
    except UnicodeDecodeError as ex:
        return None, 'stdout is not valid UTF-8 (%s)' % ex
    recs = []
    for n, line in enumerate(text.split('\n'), 1):
        if not line.strip():
            continue
        try:
            recs.append(json.loads(line))
        except ValueError as ex:
            return recs, 'stdout line %d is not JSON (%s): %s' % (n, ex, short(line, 120))
    return recs, None

