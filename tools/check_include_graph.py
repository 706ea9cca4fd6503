#!/usr/bin/env python3
"""Fails when a header under include/ includes, directly or through others, a header that includes it.

Usage: python3 tools/check_include_graph.py [ROOT ...]   (default: include)

Every *.hpp / *.h under each ROOT is a node. An edge goes from a header to each header it
includes that resolves under a ROOT: a quoted include relative to the including file's folder
first, then to each ROOT (as the compiler's -I would find it); an angle include such as
<zset/common.hpp> relative to each ROOT. Includes of anything else (the standard library,
<memory_resource>, a module's SDK) are not followed. Preprocessor conditions are ignored: a
header included under any #if is an edge, since some configuration compiles it.

Each strongly connected component of more than one header (or a header that includes itself)
is a cycle: it is printed as one chain that closes on its first header, followed by every
header in the component, and the exit status is 1. Standard library only.
"""

import os
import re
import sys
from collections import deque

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)
HEADER_SUFFIXES = (".hpp", ".h")


def headers_under(root):
    for folder, _, files in os.walk(root):
        for name in files:
            if name.endswith(HEADER_SUFFIXES):
                yield os.path.normpath(os.path.join(folder, name))


def includes_of(path):
    with open(path, encoding="utf-8") as f:
        text = BLOCK_COMMENT.sub("", f.read())
    for line in text.splitlines():
        m = INCLUDE.match(line)
        if m:
            yield m.group(1), m.group(2)


def resolve(path, kind, target, roots, known):
    candidates = []
    if kind == '"':
        candidates.append(os.path.join(os.path.dirname(path), target))
    candidates.extend(os.path.join(root, target) for root in roots)
    for c in candidates:
        c = os.path.normpath(c)
        if c in known:
            return c
    return None


def strongly_connected(graph):
    """Tarjan's algorithm, iterative: the components, each a list of nodes."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            advanced = False
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                out.append(sorted(component))
    return out


def cycle_through(graph, component):
    """A shortest chain from the component's first header back to itself, inside the component."""
    members = set(component)
    first = component[0]
    previous = {}
    queue = deque([first])
    while queue:
        node = queue.popleft()
        for nxt in sorted(graph[node]):
            if nxt not in members:
                continue
            if nxt == first:
                chain = [node]
                while chain[-1] != first:
                    chain.append(previous[chain[-1]])
                return chain[::-1] + [first]
            if nxt not in previous:
                previous[nxt] = node
                queue.append(nxt)
    return component + [first]


def main(argv):
    roots = [os.path.normpath(r) for r in (argv[1:] or ["include"])]
    for root in roots:
        if not os.path.isdir(root):
            print(f"check_include_graph: no folder {root}", file=sys.stderr)
            return 2
    known = {h for root in roots for h in headers_under(root)}
    graph = {h: set() for h in known}
    edges = 0
    for h in sorted(known):
        for kind, target in includes_of(h):
            to = resolve(h, kind, target, roots, known)
            if to is not None:
                graph[h].add(to)
                edges += 1
    cycles = [c for c in strongly_connected(graph) if len(c) > 1 or c[0] in graph[c[0]]]
    for component in cycles:
        chain = cycle_through(graph, component)
        print("include cycle: " + " -> ".join(chain))
        print("  headers in it: " + ", ".join(component))
    if cycles:
        print(
            f"check_include_graph: {len(cycles)} cycle(s): no header may include a header "
            "that includes it"
        )
        return 1
    print(f"check_include_graph: {len(known)} headers, {edges} includes, no cycle")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
