#!/usr/bin/env python3
"""List the link-level dependencies between the object files of a directory
tree and the cycles among them (strongly connected components of more than
one file). Usage: link-cycles.py DIR [DIR...]  (object files: *.o under each,
libtool's .libs ones included). Exit 1 when there is a cycle."""
import subprocess, sys, os, collections

def objects(dirs):
    for d in dirs:
        for root, _, files in os.walk(d):
            for f in files:
                if f.endswith('.o'):
                    yield os.path.join(root, f)

def syms(obj, flag):
    out = subprocess.run(['nm', flag, obj], capture_output=True, text=True).stdout
    return {l.split()[-1] for l in out.splitlines() if l.strip()}

def name(obj):
    base = os.path.basename(obj)[:-2]
    # automake prefixes objects with the target: libbagscope_la-bag.o
    return os.path.join(os.path.dirname(obj).replace('/.libs', ''), base.split('-', 1)[1] if base.startswith(('libbagscope_la-', 'bagscope-')) else base)

def main():
    objs = list(objects(sys.argv[1:]))
    defs = {}
    for o in objs:
        for s in syms(o, '--defined-only'):
            defs.setdefault(s, o)
    graph = collections.defaultdict(set)
    for o in objs:
        for s in syms(o, '-u'):
            if s in defs and defs[s] != o:
                graph[o].add(defs[s])
    # Tarjan's strongly connected components
    index, low, stack, on, comps, n = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)
    def visit(v):
        index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v:
                    break
            comps.append(comp)
    for o in objs:
        if o not in index:
            visit(o)
    cycles = [sorted(name(x) for x in c) for c in comps if len(c) > 1]
    for c in cycles:
        print('cycle (%d files): %s' % (len(c), ' '.join(c)))
    print('%d object files, %d cycles' % (len(objs), len(cycles)))
    return 1 if cycles else 0

sys.exit(main())
