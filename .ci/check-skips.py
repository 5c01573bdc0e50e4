#!/usr/bin/env python3
"""No silent skip: reads the output of `swift test` (make test) and fails when a test or suite was skipped without
a reason, and, in CI (CI=true), when one was skipped for any reason but "needs make TARGET": a target CI runs on
its own (sandbox-attack, slurm-test, openjd-test). A CI machine has every package, so any other skip there is a
check that silently stopped running."""
import os
import re
import sys

SKIP = re.compile(r'^\S+ (Test|Suite) "(?P<name>.*)" skipped(?P<rest>.*)$')
REASON = re.compile(r'^: "(?P<reason>.*)"$')


def main(log: str) -> int:
    in_ci = os.environ.get("CI") == "true"
    silent, unexpected, expected = [], [], 0
    with open(log, encoding="utf-8", errors="replace") as output:
        for line in output:
            match = SKIP.match(line.rstrip("\n"))
            if not match:
                continue
            reason = REASON.match(match["rest"])
            what = f'{match[1].lower()} "{match["name"]}"'
            if not reason:
                silent.append(what)
            elif in_ci and not reason["reason"].startswith("needs make "):
                unexpected.append(f'{what}: {reason["reason"]}')
            else:
                expected += 1
    for what in silent:
        print(f"make test: {what} was skipped without a reason; give its .enabled(if:) trait one", file=sys.stderr)
    for what in unexpected:
        print(f"make test: {what} was skipped in CI, where every package is installed", file=sys.stderr)
    print(f"make test: {expected} skips for the targets that run them"
          + (f", {len(silent) + len(unexpected)} not allowed" if silent or unexpected else ""))
    return 1 if silent or unexpected else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: check-skips.py SWIFT-TEST-OUTPUT")
    sys.exit(main(sys.argv[1]))
