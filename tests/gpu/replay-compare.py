#!/usr/bin/env python3
"""Set the findings of `railyard check --json` run on a node beside those of the same check
replayed from the node's gather bundle (`--bundle`): a bundle is worth keeping only if it
judges the node as the node was judged. Findings are compared by severity, check, subject,
expected and observed; the not-judged lists and the verdicts too. Prints each difference, then
one line; exit 0 when they agree, 1 when they differ, 2 when a file cannot be read."""
import argparse
import json
import sys


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        print(f"replay-compare: {path}: {e}")
        sys.exit(2)


def findings(run):
    return sorted(
        (f.get("severity"), f.get("check"), f.get("subject"), f.get("expected"), f.get("observed"))
        for f in run.get("findings") or [])


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("live")
    ap.add_argument("replay")
    a = ap.parse_args()
    live, replay = load(a.live), load(a.replay)
    lf, rf = findings(live), findings(replay)
    differ = 0
    for f in lf:
        if f not in rf:
            print("only live:   %s %s %s: expected %s, observed %s" % f)
            differ += 1
    for f in rf:
        if f not in lf:
            print("only replay: %s %s %s: expected %s, observed %s" % f)
            differ += 1
    ln, rn = sorted(live.get("not_judged") or []), sorted(replay.get("not_judged") or [])
    for n in ln:
        if n not in rn:
            print(f"not judged only live:   {n}")
            differ += 1
    for n in rn:
        if n not in ln:
            print(f"not judged only replay: {n}")
            differ += 1
    if live.get("verdict") != replay.get("verdict"):
        print(f"verdict: live {live.get('verdict')}, replay {replay.get('verdict')}")
        differ += 1
    if differ:
        print(f"replay-compare: {differ} difference(s) between the node and its bundle")
        return 1
    print(f"replay-compare: the bundle judges as the node: {len(lf)} findings, "
          f"{len(ln)} not judged, verdict {live.get('verdict')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
