#!/usr/bin/env python3
"""A fault-injecting HTTP proxy for the remote tests, on 127.0.0.1.

    faultproxy.py UPSTREAM PORTFILE [--delay MS] [--delay-file PATH] [--bandwidth BYTES_PER_S]
                  [--reset-every N] [--fail-every N] [--ignore-range]
                  [--replace-after N --replacement PATH] [--pass-headers]

Every GET goes to UPSTREAM (http://127.0.0.1:PORT) with its Range header,
and the answer comes back with these faults:
  --delay MS          each answer waits MS milliseconds
  --delay-file PATH   each answer waits until the milliseconds PATH holds
                      have passed since its request came (read every 50 ms;
                      absent or empty: none): a test changes the delay while
                      it runs, and held answers go when it lowers it
  --bandwidth B       bodies flow at B bytes per second
  --reset-every N     every Nth answer stops halfway through its body and the
                      connection is reset (RST)
  --fail-every N      every Nth answer is 503 Service Unavailable
  --ignore-range      the Range header is dropped: the whole object, 200
  --replace-after N   after N answers, the object is PATH on the upstream
                      instead (another ETag, size, bytes): replaced mid-read
  --pass-headers      Host, Authorization and x-amz-* go upstream as sent (an
                      S3 server then checks the client's SigV4 signature)
The port it listens on is written to PORTFILE. It logs one line per request
on stderr: number, Range, status, body bytes sent, and "inflight=N": the
requests being answered at once when this one came (N counts it)."""
import argparse
import http.client
import http.server
import socket
import struct
import sys
import threading
import time

args = None
count = 0
inflight = 0
lock = threading.Lock()


def file_delay():
    """--delay-file's delay in seconds (0 if absent, empty or not a number)."""
    try:
        with open(args.delay_file) as f:
            return float(f.read().strip() or 0) / 1000
    except (OSError, ValueError):
        return 0


class Proxy(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def log_message(self, fmt, *a):
        pass

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        global inflight
        with lock:
            inflight += 1
            self.inflight = inflight
        try:
            self.get()
        finally:
            with lock:
                inflight -= 1

    def get(self):
        global count
        with lock:
            count += 1
            n = count
        path = self.path
        if args.replace_after and n > args.replace_after:
            path = args.replacement
        headers = {}
        if self.headers.get('Range') and not args.ignore_range:
            headers['Range'] = self.headers['Range']
        if args.pass_headers:
            for k, v in self.headers.items():
                if k.lower() in ('host', 'authorization') or k.lower().startswith('x-amz-'):
                    headers[k] = v
        if args.delay:
            time.sleep(args.delay / 1000)
        t0 = time.time()
        while args.delay_file and time.time() - t0 < file_delay():
            time.sleep(0.05)
        if args.fail_every and n % args.fail_every == 0:
            self.answer(n, 503, {'Content-Type': 'text/plain'}, b'busy\n')
            return
        up = http.client.HTTPConnection(args.upstream_host, args.upstream_port, timeout=30)
        up.request(self.command, path, headers=headers)
        r = up.getresponse()
        body = r.read()
        up.close()
        keep = {k: v for k, v in r.getheaders()
                if k.lower() in ('content-type', 'content-range', 'etag', 'last-modified', 'accept-ranges')}
        reset = args.reset_every and n % args.reset_every == 0 and len(body) > 1
        self.answer(n, r.status, keep, body, reset)

    def answer(self, n, status, headers, body, reset=False):
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        if self.command == 'HEAD':
            return
        sent = 0
        limit = len(body) // 2 if reset else len(body)
        step = max(1, args.bandwidth // 20) if args.bandwidth else 1 << 16
        while sent < limit:
            piece = body[sent:min(limit, sent + step)]
            self.wfile.write(piece)
            sent += len(piece)
            if args.bandwidth:
                time.sleep(len(piece) / args.bandwidth)
        self.wfile.flush()
        print('%d %s %d %d%s inflight=%d' % (n, self.headers.get('Range', '-')[:40], status, sent,
                                             ' reset' if reset else '', self.inflight),
              file=sys.stderr, flush=True)
        if reset:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack('ii', 1, 0))
            self.close_connection = True
            self.connection.close()


def main():
    global args
    p = argparse.ArgumentParser()
    p.add_argument('upstream')
    p.add_argument('portfile')
    p.add_argument('--delay', type=float, default=0)
    p.add_argument('--delay-file', default='')
    p.add_argument('--bandwidth', type=int, default=0)
    p.add_argument('--reset-every', type=int, default=0)
    p.add_argument('--fail-every', type=int, default=0)
    p.add_argument('--ignore-range', action='store_true')
    p.add_argument('--replace-after', type=int, default=0)
    p.add_argument('--replacement', default='')
    p.add_argument('--pass-headers', action='store_true')
    args = p.parse_args()
    host, port = args.upstream.split('//', 1)[1].rstrip('/').split(':')
    args.upstream_host, args.upstream_port = host, int(port)
    srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Proxy)
    srv.daemon_threads = True
    with open(args.portfile + '.tmp', 'w') as f:
        f.write('%d\n' % srv.server_address[1])
    import os
    os.rename(args.portfile + '.tmp', args.portfile)
    srv.serve_forever()


if __name__ == '__main__':
    main()
