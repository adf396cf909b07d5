#!/usr/bin/env python3
"""What a run of the suite took, from its xUnit reports (swift test
--xunit-output FILE writes FILE and FILE's -swift-testing twin).

    python3 scripts/test-report.py REPORT.xml [--limit SECONDS] [--exemptions FILE]

Prints the number of tests per target (passed, failed, skipped: a
parallel run reports skipped tests as passed), then the
15 slowest test cases with their times; exits 1 when a test case that
the exemptions file does not list took more than --limit seconds (20 by
default). The exemptions file lists one test case per line ("Class.test",
or "Class.test()" for Swift Testing), then its reason; # starts a comment.
"""
import argparse
import collections
import os
import sys
import xml.etree.ElementTree as ET


def cases(report):
    """(target, name, seconds, outcome) of every test case of the report
    and of its Swift Testing twin."""
    base, extension = os.path.splitext(report)
    for path in (report, base + "-swift-testing" + extension):
        if not os.path.exists(path):
            continue
        for case in ET.parse(path).iter("testcase"):
            classname = case.get("classname", "")
            outcome = "passed"
            if case.find("failure") is not None or case.find("error") is not None:
                outcome = "failed"
            elif case.find("skipped") is not None:
                outcome = "skipped"
            name = classname.split(".", 1)[-1] + "." + case.get("name", "")
            yield classname.split(".", 1)[0], name, float(case.get("time", "0")), outcome


def exemptions(path):
    """The exempt test cases, by name, with their reasons."""
    exempt = {}
    if path and os.path.exists(path):
        for line in open(path, encoding="utf-8"):
            line = line.strip()
            if line and not line.startswith("#"):
                name, _, reason = line.partition(" ")
                exempt[name] = reason.strip()
    return exempt


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("report")
    parser.add_argument("--limit", type=float, default=20)
    parser.add_argument("--exemptions")
    options = parser.parse_args()
    all_cases = list(cases(options.report))
    if not all_cases:
        print(f"test report: no test case in {options.report}", file=sys.stderr)
        return 1
    counts = collections.defaultdict(collections.Counter)
    for target, _, _, outcome in all_cases:
        counts[target][outcome] += 1
    # swift test --parallel writes no <skipped> element: a skipped test
    # reads as passed there, so the count says so rather than "0 skipped".
    reports_skips = any(outcome == "skipped" for _, _, _, outcome in all_cases)
    print("== tests per target")
    for target in sorted(counts):
        count = counts[target]
        if reports_skips:
            print(f"  {target}: {sum(count.values())} ({count['passed']} passed, {count['failed']} failed, {count['skipped']} skipped)")
        else:
            print(f"  {target}: {sum(count.values())} ({count['passed']} passed or skipped, {count['failed']} failed)")
    print(f"  all: {len(all_cases)}, {sum(seconds for _, _, seconds, _ in all_cases):.0f} s of test time")
    slowest = sorted(all_cases, key=lambda case: -case[2])
    exempt = exemptions(options.exemptions)
    print("== the 15 slowest test cases")
    for target, name, seconds, _ in slowest[:15]:
        mark = " (exempt)" if name in exempt else ""
        print(f"  {seconds:7.1f} s  {target}.{name}{mark}")
    over = [(name, seconds) for _, name, seconds, _ in slowest if seconds > options.limit and name not in exempt]
    for name, seconds in over:
        print(f"error: {name} took {seconds:.1f} s, over the {options.limit:g} s a test may take "
              f"(make it quicker, or list it with its reason in {options.exemptions})", file=sys.stderr)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
