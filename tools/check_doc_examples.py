#!/usr/bin/env python3
"""Compiles and runs every example in the zset documentation (docs/ and README.md).

An example is a fenced block that opens with exactly ```cpp (signatures use ```c++ and are
not compiled). A block containing `int main(` is compiled as it is; in any other block, lines
starting with #include go first and the rest becomes the body of main() after the includes in
PRELUDE. Examples check themselves with assert(), so they are built with assertions enabled
and must exit with status 0.

Compiling is what costs (75 examples, ~2.3 s of CPU each, almost all of it parsing and
instantiating zset): so the body-only examples without other preprocessor lines are compiled in
a few batches, one function per example in a program that runs the example its argument names,
and each still runs as a process of its own. A batch that does not build is checked again one
example at a time, so a failure names its example and the compiler's lines match it.

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

HEADERS = """#include <zset/zset.hpp>

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
"""
PRELUDE = HEADERS + "\nint main() {\n"

FLAGS = ["-std=c++17", "-Wall", "-Wextra", "-Wpedantic", "-Wconversion", "-Wshadow", "-Werror",
         "-UNDEBUG", "-O0"]

FENCE = re.compile(r"^```cpp[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)


def examples(doc):
    text = doc.read_text(encoding="utf-8")
    for m in FENCE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        yield line, m.group(1)


def split(body):
    """(the #include lines, the other lines indented as a function body)"""
    lines = body.splitlines(True)
    includes = "".join(l for l in lines if l.startswith("#include"))
    statements = [l for l in lines if not l.startswith("#include")]
    return includes, "".join("    " + l if l.strip() else l for l in statements)


def program(body):
    if "int main(" in body:
        return body
    includes, indented = split(body)
    return includes + PRELUDE + indented + "    return 0;\n}\n"


def batchable(body):
    """A body-only example whose lines other than #include hold no preprocessor directive."""
    return "int main(" not in body and not any(
        l.lstrip().startswith("#") for l in body.splitlines() if not l.startswith("#include"))


def batch_program(bodies):
    """One program holding every example as a function; argv[1] picks the one to run."""
    includes, functions, cases = [], [], []
    for k, body in enumerate(bodies):
        own, indented = split(body)
        includes += [l for l in own.splitlines(True) if l not in includes]
        functions.append("static int doc_example_%d() {\n%s    return 0;\n}\n" % (k, indented))
        cases.append("    case %d: return doc_example_%d();\n" % (k, k))
    return ("".join(includes) + HEADERS + "#include <cstdlib>\n\n" + "\n".join(functions) +
            "\nint main(int argc, char** argv) {\n    if (argc != 2) return 2;\n"
            "    switch (std::atoi(argv[1])) {\n" + "".join(cases) + "    }\n    return 2;\n}\n")


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

    def build(tmp, source):
        """Compiles source in tmp; returns (the program, None) or (None, the compiler's output)."""
        src = pathlib.Path(tmp) / "example.cpp"
        exe = pathlib.Path(tmp) / "example"
        src.write_text(source, encoding="utf-8")
        result = subprocess.run([args.cxx] + FLAGS + args.flag +
                                ["-I", args.include, str(src), "-o", str(exe)],
                                capture_output=True, text=True)
        return (exe, None) if result.returncode == 0 else (None, result.stderr)

    def run(where, command):
        result = subprocess.run(command, capture_output=True, text=True, timeout=60)
        if result.returncode != 0:
            return "FAIL (run, exit %d) %s\n%s%s" % (result.returncode, where, result.stdout,
                                                      result.stderr)
        return None

    def check(item):
        """Builds and runs one example in its own directory; returns an error text or None."""
        where, body = item
        with tempfile.TemporaryDirectory(prefix="zset-doc-") as tmp:
            exe, errors = build(tmp, program(body))
            if exe is None:
                return "FAIL (build) %s\n%s" % (where, errors)
            return run(where, [str(exe)])

    def check_batch(items):
        """check() for each of items, built as one program; a list of error texts or None."""
        with tempfile.TemporaryDirectory(prefix="zset-doc-") as tmp:
            exe, _ = build(tmp, batch_program([body for _, body in items]))
            if exe is None:  # find which: one at a time
                return [check(item) for item in items]
            return [run(where, [str(exe), str(k)]) for k, (where, _) in enumerate(items)]

    alone = [item for item in work if not batchable(item[1])]
    together = [item for item in work if batchable(item[1])]
    batches = [together[i::args.jobs] for i in range(args.jobs) if together[i::args.jobs]]
    tasks = [(check_batch, batch) for batch in batches] + [(check, item) for item in alone]
    order = [item for batch in batches for item in batch] + alone

    total = len(work)
    failures = 0
    # compiles dominate: one per core
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = []
        for (function, _), result in zip(tasks, pool.map(lambda t: t[0](t[1]), tasks)):
            results += result if function is check_batch else [result]
        for (where, _), error in zip(order, results):
            if error:
                failures += 1
                print(error)
            elif args.verbose:
                print("ok   %s" % where)
    print("%d of %d documentation examples passed" % (total - failures, total))
    return 1 if failures or total == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
