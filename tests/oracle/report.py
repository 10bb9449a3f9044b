"""List every command the classifier calls `safe` that the oracle contradicts.

.venv/bin/python -m tests.oracle.report            # contradictions, then a summary
.venv/bin/python -m tests.oracle.report --brief    # one line per command: its first violation
.venv/bin/python -m tests.oracle.report -j 4 --source generated
"""

from __future__ import annotations

import argparse
import re
import sys
import time

from .cases import safe_cases
from .runner import check_all, describe, jobs
from .sandbox import missing_tools


def short(violation: str) -> str:
    """A violation without its syscall's full text: `execve: executes /usr/bin/touch, …`."""
    call = re.search(r"\(pid \d+: (\w+)\(", violation)
    head = violation.split(" (pid ")[0]
    if call is None:
        return head if len(head) <= 200 else head[:197] + "..."
    return f"{call[1]}: {head}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.oracle.report")
    parser.add_argument("-j", "--jobs", type=int, default=jobs())
    parser.add_argument("--source", default="", help="only cases whose source starts with this")
    parser.add_argument("--brief", action="store_true", help="one line per contradiction")
    args = parser.parse_args(argv)
    reason = missing_tools()
    if reason is not None:
        print(f"oracle cannot run: {reason}", file=sys.stderr)
        return 2
    cases = [case for case in safe_cases() if case.source.startswith(args.source)]
    started = time.monotonic()
    outcomes = check_all(cases, args.jobs)
    bad = [(case, outcome) for case, outcome in outcomes.items() if outcome.violations]
    for case, outcome in bad:
        if args.brief:
            print(f"[{case.source}] {case.label}\n    {short(outcome.violations[0])}")
        else:
            print(describe(case, outcome), end="\n\n")
    errors = [case for case, outcome in outcomes.items() if outcome.error]
    for case in errors:
        print(f"oracle error on {case.label}: {outcomes[case].error}", file=sys.stderr)
    print(
        f"{len(bad)} of {len(cases)} `safe` commands contradicted "
        f"({time.monotonic() - started:.0f} s, {args.jobs} at once)"
    )
    return 1 if bad or errors else 0


if __name__ == "__main__":
    sys.exit(main())
