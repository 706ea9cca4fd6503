#!/usr/bin/env python3
"""Compiles and runs every example in the zset documentation (docs/ and README.md).

An example is a fenced block that opens with exactly ```cpp (signatures use ```c++ and are
not compiled). A block containing `int main(` is compiled as it is; in any other block, lines
starting with #include go first and the rest becomes the body of main() after the includes in
PRELUDE. Examples check themselves with assert(), so they are built with assertions enabled
and must exit with status 0.

    tools/check_doc_examples.py [--cxx g++] [--flag=-stdlib=libc++] [--docs docs]
                                [--readme README.md] [--include include] [-j N] [-v]

Exit status: 0 when every example builds warning-free and runs successfully, 1 otherwise.
"""
import argparse
import concurrent.futures
import os
import pathlib
import re
import subprocess
import sys
import tempfile

PRELUDE = """#include <zset/zset.hpp>

#include <array>
#include <cassert>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <iterator>
#if __has_include(<memory_resource>)
#include <memory_resource>
#endif
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

int main() {
"""

FLAGS = ["-std=c++17", "-Wall", "-Wextra", "-Wpedantic", "-Wconversion", "-Wshadow", "-Werror",
         "-UNDEBUG", "-O0"]

FENCE = re.compile(r"^```cpp[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)


def examples(doc):
    text = doc.read_text(encoding="utf-8")
    for m in FENCE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        yield line, m.group(1)


def program(body):
    if "int main(" in body:
        return body
    lines = body.splitlines(True)
    includes = "".join(l for l in lines if l.startswith("#include"))
    statements = [l for l in lines if not l.startswith("#include")]
    indented = "".join("    " + l if l.strip() else l for l in statements)
    return includes + PRELUDE + indented + "    return 0;\n}\n"


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cxx", default=os.environ.get("CXX", "g++"))
    ap.add_argument("--docs", default=str(root / "docs"))
    ap.add_argument("--readme", default=str(root / "README.md"),
                    help="also check this file's examples (empty: none)")
    ap.add_argument("--include", default=str(root / "include"))
    ap.add_argument("--flag", action="append", default=[],
                    help="extra compiler flag (repeatable), e.g. --flag=-stdlib=libc++")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                    help="examples built at once (default: one per core)")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()

    docs_root = pathlib.Path(args.docs)
    sources = sorted(docs_root.rglob("*.md"))
    if args.readme:
        sources.append(pathlib.Path(args.readme))
    work = [("%s:%d" % (os.path.relpath(doc, docs_root.parent), line), body)
            for doc in sources for line, body in examples(doc)]

    def check(item):
        """Builds and runs one example in its own directory; returns an error text or None."""
        where, body = item
        with tempfile.TemporaryDirectory(prefix="zset-doc-") as tmp:
            src = pathlib.Path(tmp) / "example.cpp"
            exe = pathlib.Path(tmp) / "example"
            src.write_text(program(body), encoding="utf-8")
            build = subprocess.run([args.cxx] + FLAGS + args.flag +
                                   ["-I", args.include, str(src), "-o", str(exe)],
                                   capture_output=True, text=True)
            if build.returncode != 0:
                return "FAIL (build) %s\n%s" % (where, build.stderr)
            run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
            if run.returncode != 0:
                return "FAIL (run, exit %d) %s\n%s%s" % (run.returncode, where, run.stdout,
                                                          run.stderr)
        return None

    total = len(work)
    failures = 0
    # compiles dominate: one per core
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for (where, _), error in zip(work, pool.map(check, work)):
            if error:
                failures += 1
                print(error)
            elif args.verbose:
                print("ok   %s" % where)
    print("%d of %d documentation examples passed" % (total - failures, total))
    return 1 if failures or total == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
