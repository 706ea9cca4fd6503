#!/usr/bin/env python3
"""Runs test cases of a Catch2 binary one by one, each alone in its own process, by name.

A test case must pass when it is the only one run (`zset_tests "<name>"`): it computes what it
checks itself and reads no state another case left behind. Running the whole binary hides a
case that depends on the cases declared before it; this script finds such cases.

It lists the binary's cases (hidden ones too: `[.]`, `[.tag]`), picks all of them or a
deterministic sample, runs each alone (several at a time with -j) and reports every case that
fails, with the command that replays it. Each run also has Catch2 fail a case that makes no
assertion (`-w NoAssertions`), and a run counts as passed only when Catch2's totals say that it
ran exactly one case.

  tools/run_cases_alone.py build/tests/zset_tests --all -j2
  tools/run_cases_alone.py build/tests/zset_tests --sample 40 --seed auto -j2

--seed auto takes the seed from `git rev-parse HEAD` (else today's date), so each commit checks
another sample and, over commits, every case. The seed is printed; --seed <it> replays the same
sample. Hidden cases and cases tagged [soak] are left out unless --hidden / --soak is given.
Exit status: 0 if every selected case passed alone, 1 if any failed (or has a name starting
with '-', which Catch2 reads as an option), 2 on a usage error.
"""

import argparse
import datetime
import os
import random
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

# Characters the Catch2 test-spec parser gives a meaning to inside a name (v2 and v3): a
# backslash makes the next one literal.
SPEC_SPECIALS = set('\\,[]*"~')


def spec_for(name):
    """The test spec that selects exactly the case called `name`. A leading '-' would read as
    an option and a leading '#' as a file tag: escaped too."""
    spec = "".join("\\" + c if c in SPEC_SPECIALS else c for c in name)
    return "\\" + spec if spec[:1] in ("-", "#") else spec


def run(cmd, timeout=None):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          universal_newlines=True, errors="replace", timeout=timeout)


def list_cases(binary):
    """Every case of the binary as (name, tags), hidden ones included.

    Catch2 v2 lists with --list-tests (-l); v3 with --list-tests too, in another layout. Both
    wrap long names and tag lists over several indented lines, so the names are read with
    --list-test-names-only (v2) or `--list-tests --verbosity quiet` (v3), one a line, and the
    tags with --list-tests --verbosity high per name only when needed (see tags_of)."""
    names = None
    for args in (["--list-test-names-only"], ["--list-tests", "--verbosity", "quiet"]):
        # a spec of "*" plus "[.]" lists the hidden cases too ("*" alone leaves them out)
        # (Catch2 v2 exits with the number of cases listed, so the status tells nothing)
        out = run([binary, *args, "*,[.]"])
        if out.stdout.strip() and "Unrecognised" not in out.stdout:
            names = [line.rstrip("\r") for line in out.stdout.splitlines() if line.strip()]
            # v2 quotes a name that starts with '#', which would read as a file tag
            names = [n[1:-1] if len(n) > 1 and n[0] == '"' and n[-1] == '"' else n for n in names]
            break
    if names is None:
        sys.exit("run_cases_alone: cannot list the test cases of " + binary)
    return sorted(set(names))


def tagged(binary, spec):
    """The names the spec selects (to learn which cases carry a tag)."""
    for args in (["--list-test-names-only"], ["--list-tests", "--verbosity", "quiet"]):
        out = run([binary, *args, spec])
        if "Unrecognised" not in out.stdout:
            return {line.rstrip("\r") for line in out.stdout.splitlines() if line.strip()}
    return set()


def run_case(binary, name, timeout, extra):
    """Runs one case alone; returns (name, ok, seconds, output)."""
    # (Catch2 v2 takes one -w only, so a spec that selects nothing is caught from the totals)
    cmd = [binary, spec_for(name), "-w", "NoAssertions", *extra]
    start = time.monotonic()
    try:
        out = run(cmd, timeout)
    except subprocess.TimeoutExpired:
        return name, False, time.monotonic() - start, "timed out after %d s" % timeout
    seconds = time.monotonic() - start
    ok = out.returncode == 0
    # the spec must have selected this one case: Catch2's totals say how many ran
    totals = re.search(r"\bin (\d+) test cases?\b|test cases: *(\d+)", out.stdout)
    ran = int(totals.group(1) or totals.group(2)) if totals else 0
    if ok and ran != 1:
        ok = False
        out.stdout += "\nrun_cases_alone: the spec ran %d cases, not this one alone\n" % ran
    return name, ok, seconds, out.stdout


def auto_seed():
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, universal_newlines=True,
                             cwd=os.path.dirname(os.path.abspath(__file__)))
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    except OSError:
        pass
    return datetime.date.today().isoformat()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("binary", help="the Catch2 test binary (e.g. build/tests/zset_tests)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--all", action="store_true", help="run every selected case (default)")
    which.add_argument("--sample", type=int, metavar="N", help="run a sample of N cases")
    p.add_argument("--seed", default="auto",
                   help="the sample's seed: any string; auto = git HEAD, else the date")
    p.add_argument("--hidden", action="store_true", help="include hidden cases ([.], [.tag])")
    p.add_argument("--soak", action="store_true", help="include [soak] cases")
    p.add_argument("--exclude", action="append", default=[], metavar="SPEC",
                   help="leave out the cases a Catch2 spec selects (e.g. '[far]'); repeatable")
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--timeout", type=int, default=1800, help="seconds per case (default 1800)")
    p.add_argument("--times", action="store_true", help="print each case's time")
    p.add_argument("extra", nargs="*", help="more arguments for every run (after --)")
    a = p.parse_args()
    if a.jobs < 1 or (a.sample is not None and a.sample < 1):
        p.error("-j and --sample take a positive number")
    binary = os.path.abspath(a.binary)
    if not os.access(binary, os.X_OK):
        p.error(a.binary + " is not an executable")

    names = list_cases(binary)
    left_out = set()
    if not a.hidden:
        left_out |= tagged(binary, "[.]")
    if not a.soak:
        left_out |= tagged(binary, "[soak]")
    for spec in a.exclude:
        left_out |= tagged(binary, spec)
    cases = [n for n in names if n not in left_out]
    chosen = cases
    what = "all %d cases" % len(cases)
    if a.sample is not None and a.sample < len(cases):
        seed = auto_seed() if a.seed == "auto" else a.seed
        chosen = sorted(random.Random(seed).sample(cases, a.sample))
        what = "a sample of %d of %d cases, seed %s (--sample %d --seed %s replays it)" % (
            a.sample, len(cases), seed, a.sample, seed)
    print("run_cases_alone: %s, each alone, %d at a time (%d listed, %d left out)"
          % (what, a.jobs, len(names), len(names) - len(cases)), flush=True)

    start = time.monotonic()
    failed = []
    with ThreadPoolExecutor(max_workers=a.jobs) as pool:
        jobs = [pool.submit(run_case, binary, n, a.timeout, a.extra) for n in chosen]
        for job in jobs:
            name, ok, seconds, output = job.result()
            if a.times:
                print("  %7.1f s  %s%s" % (seconds, name, "" if ok else "  FAILED"), flush=True)
            if not ok:
                failed.append(name)
                print("FAILED alone: %s\n  replay: %s '%s' -w NoAssertions\n%s"
                      % (name, a.binary, spec_for(name), output), flush=True)
    elapsed = time.monotonic() - start
    print("run_cases_alone: %d cases, %d failed alone, %.0f s" % (len(chosen), len(failed),
                                                                  elapsed))
    for name in failed:
        print("  failed: " + name)
    # a name Catch2 reads as an option cannot be given to the binary as it is (the runs above
    # escape it)
    misnamed = [n for n in chosen if n.startswith("-")]
    for name in misnamed:
        print("  misnamed (starts with '-', which Catch2 reads as an option): " + name)
    return 1 if failed or misnamed else 0


if __name__ == "__main__":
    sys.exit(main())
