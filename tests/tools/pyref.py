#!/usr/bin/python3 -S
"""pyref.py - run a Python reference script in a process that has imported
Debian's python3-rosbag already.

    tests/tools/pyref.py SCRIPT|-|-c CODE [ARG...]

does what `/usr/bin/python3 SCRIPT|-|-c CODE [ARG...]` does (the same
arguments, working directory, environment, stdin, stdout, stderr and exit
status), but the script runs in a child forked from a server that imported
rosbag, genpy, numpy and the message packages once. Importing them costs
0.3 s of CPU, most of a reference script's run, and the tests run some 30
such scripts in each tree.

The server is started by the first client that finds none, listens on a
UNIX socket in /tmp named after the made-bags directory ($BAGSCOPE_MADE, as
tests/tools/made-bags.sh: test.sh gives both of its trees the same one) and
this file, and exits when no script has come or run for IDLE seconds. The
client hands it its stdin, stdout and stderr (SCM_RIGHTS) with its arguments,
directory, umask and environment (TZ applied), and exits with the status the
script ends with; the script is killed when the client is (a timeout).
A script runs as `python3` would run it (sys.argv, sys.path[0], __main__,
its atexit functions, SystemExit), with fresh seeds for random and
numpy.random; the atexit functions of the server's imports do not run. Where no
server can be had, the client runs the script with /usr/bin/python3 itself.
Environment: BAGSCOPE_MADE, BUILDDIR.
"""
import hashlib
import json
import os
import signal
import socket
import struct
import sys
import threading
import time
import types

PY = '/usr/bin/python3'
IDLE = 20


def sock_path():
    made = os.environ.get('BAGSCOPE_MADE') or os.path.join(os.environ.get('BUILDDIR', '.'), 'tests', 'made')
    made = os.path.abspath(made)
    me = os.path.abspath(__file__)
    st = os.stat(me)
    key = '%s %s %d %d %d' % (made, me, st.st_size, st.st_mtime_ns, os.getuid())
    return made, '/tmp/bagscope-pyref-%s.sock' % hashlib.sha1(key.encode()).hexdigest()[:16]


def recv_exact(conn, n):
    data = b''
    while len(data) < n:
        piece = conn.recv(n - len(data))
        if not piece:
            raise EOFError
        data += piece
    return data


def run_child(conn):
    """In the forked child: take the client's stdio and request, run the script, report its status."""
    head, fds, _, _ = socket.recv_fds(conn, 4, 3)
    req = json.loads(recv_exact(conn, struct.unpack('<I', head)[0]))
    conn.sendall(b'+')   # taken: from here the script's run is this child's
    for i, fd in enumerate(fds):
        os.dup2(fd, i)
        os.close(fd)
    sys.stdin = open(0, 'r', closefd=False)
    sys.stdout = open(1, 'w', closefd=False)
    sys.stderr = open(2, 'w', buffering=1, errors='backslashreplace', closefd=False)
    os.chdir(req['cwd'])
    os.umask(req['umask'])
    os.environ.clear()
    os.environ.update(req['env'])
    time.tzset()   # TZ=... as the client was given it
    # a client that is gone (killed by timeout, or by the test's end) takes the script with it
    def watch():
        try:
            gone = conn.recv(1) == b''
        except OSError:
            gone = True
        if gone:
            os.kill(os.getpid(), signal.SIGKILL)
    threading.Thread(target=watch, daemon=True).start()
    import atexit
    import random
    atexit._clear()   # the imports' (rospy's shutdown waits 0.1 s): the script's own run at its end
    random.seed()
    if 'numpy' in sys.modules:
        sys.modules['numpy'].random.seed()
    argv = req['argv']
    code = 0
    try:
        if argv[0] == '-c':
            sys.argv = ['-c'] + argv[2:]
            sys.path[0] = ''
            source, name = argv[1], '<string>'
        elif argv[0] == '-':
            sys.argv = argv
            sys.path[0] = ''
            source, name = sys.stdin.read(), '<stdin>'
        else:
            sys.argv = argv
            sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))
            with open(argv[0], 'rb') as f:
                source, name = f.read(), argv[0]
        main = types.ModuleType('__main__')
        if not name.startswith('<'):
            main.__file__ = name   # a script's, not -c's or stdin's (python3 gives them none)
        sys.modules['__main__'] = main
        exec(compile(source, name, 'exec'), main.__dict__)
    except SystemExit as e:
        if e.code is None:
            code = 0
        elif isinstance(e.code, int):
            code = e.code
        else:
            print(e.code, file=sys.stderr)
            code = 1
    except BaseException as e:
        import traceback
        tb = e.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
            tb = tb.tb_next   # the script's frames alone, as python3 prints them
        traceback.print_exception(type(e), e, tb)
        code = 1
    atexit._run_exitfuncs()
    for f in (sys.stdout, sys.stderr):
        try:
            f.flush()
        except (OSError, ValueError):
            code = code or 120
    conn.sendall(struct.pack('<i', code & 0xff))
    os._exit(code & 0xff)


def fork_child(srv, conn):
    """A child that runs conn's request; its pid."""
    pid = os.fork()
    if pid == 0:
        srv.close()
        try:
            run_child(conn)
        finally:
            os._exit(1)
    conn.close()
    return pid


def serve(path):
    """Import what the reference scripts import, then fork a child per request till IDLE seconds pass unused."""
    import rosbag  # noqa: F401
    import genpy  # noqa: F401
    import numpy  # noqa: F401
    for mod in ('std_msgs.msg', 'geometry_msgs.msg', 'sensor_msgs.msg', 'tf2_msgs.msg',
                'diagnostic_msgs.msg', 'rosgraph_msgs.msg', 'yaml', 'sqlite3'):
        try:
            __import__(mod)
        except ImportError:
            pass
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    tmp = '%s.%d' % (path, os.getpid())
    srv.bind(tmp)
    srv.listen(64)
    os.rename(tmp, path)
    srv.settimeout(1)
    children, last = set(), time.monotonic()
    while True:
        try:
            conn, _ = srv.accept()
        except socket.timeout:
            conn = None
        while children:
            pid, _ = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            children.discard(pid)
        if conn is None:
            if children:
                last = time.monotonic()
            elif time.monotonic() - last > IDLE:
                break
            continue
        last = time.monotonic()
        children.add(fork_child(srv, conn))
    # gone: new clients start another server; the ones queued already are served
    os.unlink(path)
    srv.setblocking(False)
    while True:
        try:
            conn, _ = srv.accept()
        except OSError:
            break
        conn.setblocking(True)
        fork_child(srv, conn)


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
        return s
    except OSError:
        s.close()
        return None


def start_server(made, path):
    """A server for path, unless one is there: one client starts it (flock), the others wait for it."""
    import fcntl
    import subprocess
    os.makedirs(made, exist_ok=True)
    with open(os.path.join(made, 'pyref.lock'), 'w') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        s = connect(path)
        if s:
            return s
        try:
            os.unlink(path)   # a server that is gone left it
        except OSError:
            pass
        server = subprocess.Popen([PY, os.path.abspath(__file__), '--serve', path], stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                                  close_fds=True, cwd='/')
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and server.poll() is None:   # it ends at once without rosbag
            s = connect(path)
            if s:
                return s
            time.sleep(0.01)
    return None


def main():
    if sys.argv[1:2] == ['--serve']:
        serve(sys.argv[2])
        return
    argv = sys.argv[1:]
    if not argv:
        sys.exit('usage: pyref.py SCRIPT|-|-c CODE [ARG...]')
    if argv[0].startswith('-') and argv[0] not in ('-', '-c'):
        os.execv(PY, [PY] + argv)   # -m, -u ...: python3 itself
    made, path = sock_path()
    umask = os.umask(0)
    os.umask(umask)
    req = json.dumps({'argv': argv, 'cwd': os.getcwd(), 'umask': umask, 'env': dict(os.environ)}).encode()
    for _ in range(3):
        s = connect(path) or start_server(made, path)
        if s is None:
            break
        try:
            socket.send_fds(s, [struct.pack('<I', len(req))], [0, 1, 2])
            s.sendall(req)
            recv_exact(s, 1)
        except (EOFError, OSError):
            s.close()   # a server that was leaving: the request was not taken
            continue
        try:
            code = struct.unpack('<i', recv_exact(s, 4))[0]
        except (EOFError, OSError):
            sys.exit('pyref.py: the reference script ended without a status: %s' % ' '.join(argv)[:200])
        sys.exit(code)
    os.execv(PY, [PY] + argv)


if __name__ == '__main__':
    main()
