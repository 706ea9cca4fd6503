#!/usr/bin/env python3
"""Finds comments that narrate history or quote measurements in zset's C++ sources.

A comment says what the code is and why, in the present tense (CONTRIBUTING.md, "Comments say
what is, and why"). The history of a choice lives in git, its standing reasons in
docs/design-log.md. This check scans the comments (// and /* */, string and character literals
skipped) of every .hpp, .h, .cpp, .cc and .inc file under the folders it is given for these
markers:

    "used to" (but "is used to", "be used to" ...)   what the code was
    "Before," / "Earlier" / "earlier version"         what came before
    "Run 12", "run #3"                                a benchmark run
    a date (2026-11-30)                               when
    "12 ns", "3.5 µs", "40 ms", "13%"                 a measured figure
    "12.3 -> 8.1"                                     a before/after pair

A comment that rests on a measurement states the claim and names the bench row that checks it
(bench/zset_bench.cpp, e.g. "bench row build_random"); a line that must keep a marker (a figure
that is a definition rather than a measurement) is listed in tools/comment_allowlist.txt, one
entry a line:

    <path relative to the repository> | <fragment of the line> | <why it stays>

    tools/check_comments.py include [module ...] [--allowlist FILE]

Exit status: 0 when no comment line outside the allow-list holds a marker, 1 otherwise (each hit
printed as file:line: marker: text), 2 on a bad allow-list or folder.
"""
import argparse
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SUFFIXES = {".hpp", ".h", ".cpp", ".cc", ".inc"}

MARKERS = [
    ("used to", re.compile(r"(?<!\bis )(?<!\bare )(?<!\bbe )(?<!\bbeen )(?<!\bbeing )"
                           r"(?<!\bget )(?<!\bgets )\bused to\b", re.I)),
    ("Before,", re.compile(r"\bBefore,")),
    ("Earlier", re.compile(r"\bEarlier\b|\bearlier (?:version|versions|code|design|alternative"
                           r"|alternatives|release|releases|layout|implementation)\b")),
    ("run number", re.compile(r"\b[Rr]uns? #?\d+\b")),
    ("date", re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b")),
    ("time figure", re.compile(r"\d(?:[.,]\d+)?\s?(?:ns|µs|us|ms)\b|\d\.\d+\s?s\b")),
    ("per cent figure", re.compile(r"\d(?:\.\d+)?\s?%(?![.\w])")),  # not a format: "%.17g"
    ("before -> after", re.compile(r"\d(?:\.\d+)?\s*(?:ns|µs|us|ms|s|%|x|×)?\s*(?:->|→)\s*"
                                   r"\d(?:\.\d+)?(?![\d.]*-?bits?\b)")),  # not "64 -> 128-bit"
]


def comments(text):
    """Yields (line number, comment text) for each line of each comment in a C++ source."""
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            yield line, text[i + 2:end]
            i = end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end
            for k, part in enumerate(text[i + 2:end].split("\n")):
                yield line + k, part
            line += text.count("\n", i, end)
            i = end + 2
        elif c == 'R' and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum()
                                                                       or text[i - 1] == "_")):
            open_paren = text.find("(", i + 2)
            delim = text[i + 2:open_paren]
            end = text.find(")" + delim + '"', open_paren)
            end = n if end < 0 else end + len(delim) + 2
            line += text.count("\n", i, end)
            i = end
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # a digit separator: 1'000'000
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        else:
            i += 1


def load_allowlist(path):
    entries = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        raw = raw.strip()
        if not raw or raw.startswith("#"):
            continue
        parts = [p.strip() for p in raw.split("|")]
        if len(parts) != 3 or not all(parts):
            sys.exit(f"{path}:{number}: expected '<path> | <fragment> | <reason>'")
        entries.append((parts[0], parts[1], number))
    return entries


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", help="folders to scan, relative to the repository")
    parser.add_argument("--allowlist", type=pathlib.Path,
                        default=ROOT / "tools" / "comment_allowlist.txt")
    args = parser.parse_args()
    allow = load_allowlist(args.allowlist) if args.allowlist.exists() else []
    used = set()
    hits = 0
    for folder in args.folders:
        base = (ROOT / folder) if not pathlib.Path(folder).is_absolute() else pathlib.Path(folder)
        if not base.is_dir():
            print(f"check_comments: no folder {folder}", file=sys.stderr)
            return 2
        for path in sorted(p for p in base.rglob("*") if p.suffix in SUFFIXES and p.is_file()):
            rel = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)
            for line, text in comments(path.read_text(encoding="utf-8")):
                found = [name for name, rx in MARKERS if rx.search(text)]
                if not found:
                    continue
                allowed = [e for e in allow if e[0] == rel and e[1] in text]
                if allowed:
                    used.update(e[2] for e in allowed)
                    continue
                hits += 1
                print(f"{rel}:{line}: {', '.join(found)}: {text.strip()}")
    for entry_path, fragment, number in allow:
        scanned = any(entry_path.startswith(f.rstrip("/") + "/") for f in args.folders)
        if scanned and number not in used:
            print(f"{args.allowlist.name}:{number}: unused entry ({entry_path} | {fragment})")
            hits += 1
    if hits:
        print(f"check_comments: {hits} comment line(s) narrate history or quote measurements; "
              "say what the code is and why, and name the bench row that checks a claim "
              "(CONTRIBUTING.md, \"Comments say what is, and why\")", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
