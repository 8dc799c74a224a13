#!/usr/bin/env python3
"""Read a `railyard probe --json` run on a GPU machine and say whether each figure is plausible
for the GPU found, then set railyard's figures beside nvbandwidth's from the same run (its text
output): the railyard/nvbandwidth ratio for the host-to-GPU, GPU-to-host and device-local copy
engine copies of every GPU both measured. A figure either tool failed to give is named and left
out of the ratios, never averaged in. Needs only python3 (no jq).

    probe-report.py PROBE_JSON [--quick QUICK_JSON] [--nvbandwidth NVB_TXT] [--model NAME]

Exit: 0 every figure plausible, 1 one is not (or one the probe must give is missing), 2 the
probe's output cannot be read.
"""
import argparse
import json
import re
import sys

# plausible ranges (GB/s or us): wide, for any data-center GPU from V100 on; tighter for the
# Hopper parts (H100, H200, H20), whose host link is PCIe Gen5 x16
WIDE = {
    "host": (8, 130),
    "local": (200, 10000),
    "l2": (0.03, 1),
    "mem": (0.2, 5),
    "launch": (1, 100),
}
HOPPER = dict(WIDE, host=(35, 64), local=(1000, 5000))
GROUPS = {
    "host_to_device_ce": "host",
    "device_to_host_ce": "host",
    "device_local_copy_ce": "local",
    "device_local_copy_sm": "local",
    "l2_latency_sm": "l2",
    "memory_latency_sm": "mem",
    "kernel_launch_latency": "launch",
    "graph_launch_latency": "launch",
}
# the probe's group, nvbandwidth's test of the same copy
REFERENCE = [
    ("host_to_device_ce", "host_to_device_memcpy_ce"),
    ("device_to_host_ce", "device_to_host_memcpy_ce"),
    ("device_local_copy_ce", "device_local_copy"),
]


def figures(doc):
    """{(group, gpu, peer): value} of a probe JSON document"""
    out = {}
    for m in doc.get("measurements") or []:
        for v in m.get("values") or []:
            out[(m.get("name"), v.get("gpu"), v.get("peer"))] = v.get("value")
    return out


def nvbandwidth(path):
    """{(test, gpu): GB/s} from nvbandwidth's text output: for the tests whose matrix has one
    row (a host or a local copy), the column is the GPU"""
    out, test, cols = {}, None, None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.match(r"^Running (\S+)\.\s*$", line)
            if m:
                test, cols = m.group(1), None
                continue
            if test is None:
                continue
            words = line.split()
            if cols is None and words and all(w.isdigit() for w in words):
                cols = [int(w) for w in words]
                continue
            if cols is not None and words and words[0] == "0" and len(words) == len(cols) + 1:
                for gpu, val in zip(cols, words[1:]):
                    try:
                        out[(test, gpu)] = float(val)
                    except ValueError:
                        pass  # N/A
                test = None
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("probe")
    ap.add_argument("--quick")
    ap.add_argument("--nvbandwidth")
    ap.add_argument("--model", default="")
    a = ap.parse_args()
    try:
        with open(a.probe, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"probe-report: {a.probe}: {e}")
        return 2
    if doc.get("verdict") == "cannot-judge":
        print(f"probe-report: the probe could not judge: {doc.get('cannot_judge')}")
        return 2
    fig = figures(doc)
    model = a.model or ""
    ranges = HOPPER if re.search(r"H100|H200|H20\b|H20-", model) else WIDE
    print(f"GPU: {model or 'unknown'}; {doc.get('gpus')} GPU(s); verdict {doc.get('verdict')}")
    if doc.get("notes"):
        print("notes:\n  " + doc["notes"].strip().replace("\n", "\n  "))
    for f in doc.get("findings") or []:
        print(f"finding: {f.get('severity')} {f.get('check')} {f.get('subject')}: expected "
              f"{f.get('expected')}, observed {f.get('observed')}")
    for why in doc.get("not_judged") or []:
        print(f"not judged: {why}")
    bad = 0
    for (group, gpu, peer), v in sorted(fig.items(), key=lambda x: (x[0][0], x[0][1], x[0][2] or -1)):
        tag = f"{group} gpu{gpu}" + (f" peer {peer}" if peer is not None else "")
        kind = GROUPS.get(group)
        if kind is None:
            print(f"  {tag}: {v}")
            continue
        lo, hi = ranges[kind]
        if not isinstance(v, (int, float)) or v < lo or v > hi:
            print(f"IMPLAUSIBLE {tag}: {v} (expected {lo} .. {hi})")
            bad = 1
        else:
            print(f"  {tag}: {v} (plausible: {lo} .. {hi})")
    gpus = sorted({g for (_, g, p) in fig if p is None})
    for g in gpus:
        if ("graph_launch_latency", g, None) not in fig:
            print(f"MISSING graph_launch_latency gpu{g}")
            bad = 1
        mem, l2 = fig.get(("memory_latency_sm", g, None)), fig.get(("l2_latency_sm", g, None))
        if mem is not None and l2 is not None:
            # an L2 hit is several times faster than a load from memory: a memory figure near
            # the L2 one was taken from L2
            if mem < 1.3 * l2:
                print(f"IMPLAUSIBLE memory_latency_sm gpu{g}: {mem} us, not past 1.3 x the L2 "
                      f"hit ({l2} us): an L2 figure")
                bad = 1
            else:
                print(f"  gpu{g} memory / L2 latency: {mem / l2:.2f}")
        sm, ce = fig.get(("device_local_copy_sm", g, None)), fig.get(("device_local_copy_ce", g, None))
        if sm and ce:
            print(f"  gpu{g} device-local copy, SM / copy engine: {sm / ce:.3f}")
    if a.quick:
        try:
            with open(a.quick, encoding="utf-8") as f:
                q = json.load(f)
            print(f"quick tier: verdict {q.get('verdict')}, {len(figures(q))} figures")
        except (OSError, ValueError) as e:
            print(f"quick tier: not read ({e})")
    if a.nvbandwidth:
        try:
            ref = nvbandwidth(a.nvbandwidth)
        except OSError as e:
            ref = {}
            print(f"nvbandwidth: not read ({e}): no ratios")
        for ours, theirs in REFERENCE:
            for g in gpus:
                x, y = fig.get((ours, g, None)), ref.get((theirs, g))
                if x is None or y is None or y <= 0:
                    print(f"gpu{g} {theirs}: a figure is missing (railyard {x}, nvbandwidth {y}): "
                          "left out")
                    continue
                print(f"gpu{g} {theirs}: railyard {x} GB/s, nvbandwidth {y} GB/s, "
                      f"ratio {x / y:.3f}")
    print("every figure plausible" if not bad else "some figures implausible")
    return bad


if __name__ == "__main__":
    sys.exit(main())
