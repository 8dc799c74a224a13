#!/usr/bin/env python3
"""Write faulty variants of a healthy capture, one fault each, and an index of what each must
make `railyard check --map` say against the map captured from the healthy capture: exactly the
findings of the fault's class on the faulted part, and nothing elsewhere.

  inject.py [--seed S] [--nics NAME,...] CAPTURE OUTDIR

Captures and the fault classes each can express (the part is drawn with the seed):
  NCCL topology XML (NCCL_TOPO_DUMP_FILE):
    gpu-gen      one GPU's PCIe link one generation down           gpu.pcie.gen    gpuN
    gpu-width    one GPU's PCIe link at half its lanes              gpu.pcie.width  gpuN
    nic-gen      one RDMA NIC's PCIe link one generation down       nic.pcie.gen    NIC
    nic-width    one RDMA NIC's PCIe link at half its lanes         nic.pcie.width  NIC
    nvlink       one GPU with one NVLink fewer (of a bundle of 2+)  nvlink.state    gpuN
    port-rate    one RDMA port at half its rate                     nic.port.rate   NIC:PORT
  nvidia-smi nvlink --status output:
    nvlink       one active NVLink of one GPU inactive              nvlink.state    gpuN
  ibstat or ibstatus output:
    port-down    one active port down (Down, Polling)               nic.port.state and
                                                                    nic.port.phys_state NIC:PORT
    port-rate    one active port at half its rate                   nic.port.rate   NIC:PORT

  nvbandwidth's text output (host-to-device and device-to-host copies; the figure changed is the
  lowest of its test, so the test's median stays): one figure 1% below and one 1% above the floor
  gpu.pcie.bw sets, each against the golden map (the floor is the higher of the map's h2d_gbps
  and 0.75 of the test's median) and against the built-in references alone (no map: 0.70 of the
  GPU model's host link in place of the map's floor):
    h2d-map-below, h2d-ref-below                                    gpu.pcie.bw     gpuN
    h2d-map-above, h2d-ref-above                                    nothing
  p2pBandwidthLatencyTest output (a pair drawn among those with peer access; the node's median
  is the one its other pairs give): the pair's unidirectional P2P=Enabled figure 1% below and 1%
  above the floor gpu.p2p.bw sets (the higher of the map's nvlink_pair_gbps, 0.75 of the median,
  0.80 of the pair's copy through host memory, and for two PCIe GPUs of known models 0.50 of the
  narrower host link), and its P2P=Enabled latency 1% above and 1% below the ceiling
  gpu.p2p.latency sets (the lowest of the map's p2p_latency_us, the higher of 3 x the median
  and the median + 5 us, and 1000 us), against the golden map and the built-in references:
    p2p-map-below, p2p-ref-below                                    gpu.p2p.bw      gpuA-gpuB
    p2p-map-above, p2p-ref-above                                    nothing
    lat-map-above, lat-ref-above                                    gpu.p2p.latency gpuA-gpuB
    lat-map-below, lat-ref-below                                    nothing
  bandwidthTest output (one figure a direction): the lowest host copy 1% below and 1% above
  the floor gpu.pcie.bw sets (the map's h2d_gbps; 0.70 of the model's host link):
    bwtest-map-below, bwtest-ref-below                              gpu.pcie.bw     gpuN
    bwtest-map-above, bwtest-ref-above                              nothing
  nvbandwidth's latency tests (figures in ns): a drawn figure of host_device_latency_sm 1% above
  and 1% below the ceiling gpu.pcie.latency sets (the higher of 3 x the median and the median
  + 5 us, and 1000 us; no map key), one of device_to_device_latency_sm the same of
  gpu.p2p.latency (the map's p2p_latency_us too):
    pcielat-map-above, pcielat-ref-above                            gpu.pcie.latency gpuN
    pcielat-map-below, pcielat-ref-below                            nothing
    lat-map-above ... lat-ref-below                                 as p2pBandwidthLatencyTest's
  a sysfs tree (a directory that stands for /sys, with class/infiniband; each variant a copy):
    port-down    one active port Down, Polling                      nic.port.state and
                                                                    nic.port.phys_state NIC:PORT
    port-rate    one active port at half its rate                   nic.port.rate   NIC:PORT
  hwloc XML (lstopo --of xml; links given only as GB/s):
    gpu-rate     one GPU's link at half its rate: not judged, never   unjudged:gpu.pcie.gen gpuN
                 passed (--gpus: the GPUs the healthy capture passes on their rate)
    bridge       one bridge two or more levels above an RDMA NIC at   pcie.path       BUSID
                 half its rate, below what the NIC's own link carries
  ibnetdiscover output (the input of railyard fabric, checked against the healthy dump as
  --expect-fabric; subjects by the dump's node ids, ID:PORT, a cable's two ends joined by <->):
    link-width   one cable with both ends in the dump trained at 1x    link.width      A<->B
    link-speed   one such cable one speed down (QDR to DDR)            link.speed      A<->B
    link-down    one switch-to-switch cable gone from both ends: its   link.state      A<->B
                 ports are there, Down (ibnetdiscover lists linked ports only)
    link-moved   one HCA's cable moved to a free port of its switch    fabric.link.moved HCA:PORT

--nics names the RDMA devices railyard judges (the NICs of the healthy capture's map); by
default every one the capture lists. OUTDIR/index gets a line per variant: FILE CLASS FINDINGS,
the findings "check@subject" joined with ',' (subjects as railyard names them without the host:
GPUs numbered in PCI order, NICs by their RDMA device; a PCIe fault of a card with several RDMA
devices is found on each of them); "unjudged:CHECK@subject" where the part must be listed under
not judged for that check instead. --gpus likewise names the GPUs whose faults can be judged (by
default every one). The same seed and capture give the same variants; a capture with nothing of
a class gets no variant of it (an empty index where it has none at all). Exit 0, or 2 when the
capture cannot be read."""
import argparse
import math
import os
import random
import re
import shutil
import sys
import xml.etree.ElementTree as ET

GENS = ["2.5 GT/s", "5.0 GT/s", "8.0 GT/s", "16.0 GT/s", "32.0 GT/s", "64.0 GT/s"]


def gen_down(speed):
    """the link speed one generation down, or None where there is none below"""
    for i, g in enumerate(GENS):
        if speed.startswith(g) and i > 0:
            return GENS[i - 1] + speed[len(g):]
    return None


def busid_key(b):
    """PCI order: domain, bus, device, function as numbers"""
    m = re.match(r"([0-9a-fA-F]+):([0-9a-fA-F]+):([0-9a-fA-F]+)\.([0-9a-fA-F]+)$", b)
    return tuple(int(x, 16) for x in m.groups()) if m else (1 << 40,)


def parts(root, judged):
    """(GPU pci elements in PCI order, [(nic pci element, net element)] of RDMA NICs)"""
    gpus, nics = [], []
    for pci in root.iter("pci"):
        if pci.find("gpu") is not None:
            gpus.append(pci)
        nic = pci.find("nic")
        if nic is not None:
            for net in nic.findall("net"):
                # NCCL lists sockets' NICs too (eth0): an RDMA device has a GUID
                if net.get("guid") and net.get("name") and (judged is None or net.get("name") in judged):
                    nics.append((pci, net))
    gpus.sort(key=lambda p: busid_key(p.get("busid", "")))
    return gpus, nics


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--nics", default=None)
    ap.add_argument("--gpus", default=None)
    ap.add_argument("capture")
    ap.add_argument("outdir")
    a = ap.parse_args()
    try:
        if os.path.isdir(a.capture):
            index = sysfs_variants(a)
            with open(os.path.join(a.outdir, "index"), "w", encoding="utf-8") as f:
                f.write("".join(line + "\n" for line in index))
            return 0
        with open(a.capture, encoding="utf-8") as f:
            text = f.read()
        if re.match(r"\s*GPU \d+: ", text):
            index = nvlink_variants(text, a)
        elif re.search(r"^\s*(Unidirectional|Bidirectional) P2P=|^\[P2P \(Peer-to-Peer\)|^P2P Connectivity Matrix", text, re.M):
            index = p2p_variants(text, a)
        elif re.search(r"^\[CUDA Bandwidth Test\]|^\s*(Host to Device|Device to Host) Bandwidth, ", text, re.M):
            index = bwtest_variants(text, a)
        elif re.search(r"^(Running \w+\.|nvbandwidth Version)", text, re.M):
            index = nvbandwidth_variants(text, a)
        elif re.search(r"^(Switch|Ca)\s+\d+\s+\"", text, re.M):
            index = ibnd_variants(text, a)
        elif not text.lstrip().startswith("<"):
            index = ibstat_variants(text, a)
        elif ET.fromstring(text).tag == "topology":
            index = hwloc_variants(text, a)
        else:
            index = nccl_variants(text, a)
    except (OSError, ET.ParseError, ValueError) as e:
        print(f"inject.py: {a.capture}: {e}", file=sys.stderr)
        return 2
    os.makedirs(a.outdir, exist_ok=True)
    with open(os.path.join(a.outdir, "index"), "w", encoding="utf-8") as f:
        f.write("".join(line + "\n" for line in index))
    return 0


def start(a):
    """the seeded draw of a capture's variants (the same for the same seed and capture), with
    OUTDIR made"""
    os.makedirs(a.outdir, exist_ok=True)
    return random.Random(f"{a.seed}:{os.path.basename(a.capture)}")


def emit(a, index, name, cls, text, findings):
    """write one variant and its index line"""
    with open(os.path.join(a.outdir, name), "w", encoding="utf-8") as f:
        f.write(text)
    index.append(f"{name} {cls} " + ",".join(findings))


def nvlink_variants(text, a):
    """`nvidia-smi nvlink --status`: one active link of one GPU inactive"""
    lines = text.splitlines(keepends=True)
    links, gpu = [], None
    for i, line in enumerate(lines):
        m = re.match(r"\s*GPU (\d+): ", line)
        if m:
            gpu = m.group(1)
        elif gpu is not None and re.match(r"\s*Link \d+: ", line) and "inactive" not in line:
            links.append((gpu, i))
    if not links:
        raise ValueError("no active NVLink to fault")
    rng = start(a)
    gpu, i = rng.choice(links)
    out = list(lines)
    out[i] = re.sub(r"(Link \d+: ).*", r"\1<inactive>", out[i])
    index = []
    emit(a, index, "nvlink.txt", "nvlink", "".join(out), [f"nvlink.state@gpu{gpu}"])
    return index


def ibstat_variants(text, a):
    """ports of `ibstat` (CA 'X' ... Port N: State: Active) or `ibstatus` (Infiniband device 'X'
    port N status: state: 4: ACTIVE) output: one active port down, one at half its rate"""
    lines = text.splitlines(keepends=True)
    judged = set(a.nics.split(",")) if a.nics else None
    ports = {}  # (nic, port) -> {"state": i, "phys": i, "rate": i}
    nic = port = None
    for i, line in enumerate(lines):
        m = re.match(r"CA '([^']+)'", line)
        if m:
            nic, port = m.group(1), None
            continue
        m = re.match(r"Infiniband device '([^']+)' port (\d+) status:", line)
        if m:
            nic, port = m.group(1), m.group(2)
            continue
        m = re.match(r"\s+Port (\d+):", line)
        if m and nic:
            port = m.group(1)
            continue
        if not nic or not port or (judged is not None and nic not in judged):
            continue
        key = (nic, port)
        f = line.strip().lower()
        if f.startswith("state:"):
            ports.setdefault(key, {})["state"] = i
        elif f.startswith("physical state:") or f.startswith("phys state:"):
            ports.setdefault(key, {})["phys"] = i
        elif f.startswith("rate:"):
            ports.setdefault(key, {})["rate"] = i
    active = sorted(k for k, v in ports.items()
                    if "state" in v and "active" in lines[v["state"]].lower()
                    and "phys" in v and "linkup" in lines[v["phys"]].lower())
    if not active:
        raise ValueError("no active port to fault")
    rng = start(a)
    index = []

    def write(cls, edits, findings):
        out = list(lines)
        for i, (old, new) in edits.items():
            if old not in out[i]:
                raise ValueError(f"line {i + 1}: no '{old}'")
            out[i] = out[i].replace(old, new, 1)
        emit(a, index, cls + ".txt", cls, "".join(out), findings)

    nic, port = rng.choice(active)
    v = ports[(nic, port)]
    ibstatus = "ACTIVE" in lines[v["state"]]
    write("port-down",
          {v["state"]: ("4: ACTIVE", "1: DOWN") if ibstatus else ("Active", "Down"),
           v["phys"]: ("5: LinkUp", "2: Polling") if ibstatus else ("LinkUp", "Polling")},
          [f"nic.port.state@{nic}:{port}", f"nic.port.phys_state@{nic}:{port}"])
    cand = [k for k in active if "rate" in ports[k] and re.search(r"\d+", lines[ports[k]["rate"]].split(":", 1)[1])]
    if cand:
        nic, port = rng.choice(cand)
        i = ports[(nic, port)]["rate"]
        rate = re.search(r"\d+", lines[i].split(":", 1)[1]).group(0)
        # ibstatus also names the width and speed: "200 Gb/sec (4X HDR)" becomes a 2X link
        edits = {i: (f"{rate}", f"{int(rate) // 2}")}
        write("port-rate", edits, [f"nic.port.rate@{nic}:{port}"])
    return index


SPEED_DOWN = {"DDR": "SDR", "QDR": "DDR", "FDR10": "QDR", "FDR": "QDR", "EDR": "FDR",
              "HDR": "EDR", "NDR": "HDR", "XDR": "NDR"}


def ibnd_variants(text, a):
    """ibnetdiscover's dump: a node header ('Switch 36 "S-..."', 'Ca 2 "H-..."') and a line per
    cabled port ('[P](guid) "REMOTE"[RP](guid) # ... 4xQDR')"""
    lines = text.splitlines(keepends=True)
    port_re = re.compile(r'^\[(\d+)\](\([0-9a-fA-F]+\))?(\s+)"([^"]+)"\[(\d+)\]')
    ends = {}  # (id, port) -> line index
    kind, nports, node = {}, {}, None
    for i, line in enumerate(lines):
        m = re.match(r'(Switch|Ca|Router)\s+(\d+)\s+"([^"]+)"', line)
        if m:
            node = m.group(3)
            kind[node], nports[node] = m.group(1), int(m.group(2))
            continue
        m = port_re.match(line)
        if m and node:
            ends[(node, int(m.group(1)))] = i
    cables = []  # ((id, port), (id, port)) with both ends in the dump, each once
    for (n, p), i in sorted(ends.items()):
        m = port_re.match(lines[i])
        far = (m.group(4), int(m.group(5)))
        if far in ends and (n, p) < far and port_re.match(lines[ends[far]]).group(4) == n:
            cables.append(((n, p), far))
    if not cables:
        raise ValueError("no cable with both ends in the dump")
    rng = start(a)
    index = []

    def write(cls, out, findings):
        emit(a, index, cls + ".topo", cls, "".join(out), findings)

    def name(c):
        return f"{c[0][0]}:{c[0][1]}<->{c[1][0]}:{c[1][1]}"

    # a cable at 1x, or one speed down: both ends say so
    wide = [c for c in cables if all(re.search(r"\b4x[A-Z0-9]+\s*$", lines[ends[e]]) for e in c)]
    if wide:
        c = rng.choice(wide)
        out = list(lines)
        for e in c:
            out[ends[e]] = re.sub(r"\b4x([A-Z0-9]+)(\s*)$", r"1x\1\2", out[ends[e]])
        write("link-width", out, [f"link.width@{name(c)}"])
    fast = [c for c in cables
            if all((m := re.search(r"\b(\d+)x([A-Z0-9]+)\s*$", lines[ends[e]])) and m.group(2) in SPEED_DOWN
                   for e in c)]
    if fast:
        c = rng.choice(fast)
        out = list(lines)
        for e in c:
            out[ends[e]] = re.sub(r"\b(\d+)x([A-Z0-9]+)(\s*)$",
                                  lambda m: f"{m.group(1)}x{SPEED_DOWN[m.group(2)]}{m.group(3)}", out[ends[e]])
        write("link-speed", out, [f"link.speed@{name(c)}"])
    # a switch-to-switch cable unplugged: both switches stay in the dump, the ports Down
    isl = [c for c in cables if kind.get(c[0][0]) == "Switch" and kind.get(c[1][0]) == "Switch"]
    if isl:
        c = rng.choice(isl)
        out = [line for i, line in enumerate(lines) if i not in (ends[c[0]], ends[c[1]])]
        write("link-down", out, [f"link.state@{name(c)}"])
    # an HCA's cable moved to a port of the same switch that nothing uses
    movable = []
    for c in cables:
        for ca, sw in (c, c[::-1]):
            if kind.get(ca[0]) == "Ca" and kind.get(sw[0]) == "Switch":
                free = [q for q in range(1, nports[sw[0]] + 1) if (sw[0], q) not in ends]
                if free:
                    movable.append((ca, sw, free))
    if movable:
        ca, sw, free = rng.choice(movable)
        q = rng.choice(free)
        out = list(lines)
        out[ends[sw]] = re.sub(r"^\[\d+\]", f"[{q}]", out[ends[sw]])
        out[ends[ca]] = re.sub(r'^(\[\d+\](\([0-9a-fA-F]+\))?\s+"[^"]+")\[\d+\]', rf"\g<1>[{q}]", out[ends[ca]])
        write("link-moved", out, [f"fabric.link.moved@{ca[0]}:{ca[1]}"])
    return index


# The host link of the GPU models the captures name, GB/s each way (PCIe rate per lane, the line
# code deducted): the test's own table, not railyard's
HOST_LINK = [("A100", 16 * 16 * 128 / 130 / 8), ("H100", 32 * 16 * 128 / 130 / 8),
             ("H200", 32 * 16 * 128 / 130 / 8), ("RTX 4090", 16 * 16 * 128 / 130 / 8),
             ("RTX 5090", 32 * 16 * 128 / 130 / 8)]
# gpu.pcie.bw's terms as railyard-checks(7) gives them
FLOOR_HOST, SIBLING, GOLDEN = 0.70, 0.75, 0.85


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def nvbandwidth_variants(text, a):
    """nvbandwidth's host copies: a matrix of one row (the CPU) and a column per GPU"""
    lines = text.splitlines(keepends=True)
    model = {int(m.group(1)): m.group(2) for m in
             (re.match(r"Device (\d+): (.*)", line) for line in lines) if m}
    tests, test, cols = [], None, None
    for i, line in enumerate(lines):
        m = re.match(r"Running (\w+)\.", line)
        if m:
            test = m.group(1) if re.match(r"(host_to_device|device_to_host)_memcpy_(ce|sm)$", m.group(1)) else None
            cols = None
            continue
        if test and cols is None and re.match(r"\s*\d+(\s+\d+)*\s*$", line):
            cols = [int(x) for x in line.split()]
            continue
        if test and cols is not None and re.match(r"\s*0\s+\d", line):
            spans = [m.span() for m in re.finditer(r"\d+\.\d+", line)]
            vals = [float(line[x:y]) for x, y in spans]
            if len(vals) == len(cols):
                tests.append((test, i, [(g, v, sp) for g, v, sp in zip(cols, vals, spans)]))
            test = None
    lat = nvbandwidth_latencies(lines)
    if not tests and not lat:
        return []
    rng = start(a)
    index = latency_variants(lines, lat, rng, a)
    if not tests:
        return index
    # the golden map's floor: the slowest test's median times 0.85, rounded down to 0.1
    golden = min(median([v for _, v, _ in t[2]]) for t in tests) * GOLDEN
    golden = int(golden * 10 + 1e-6) / 10
    t = rng.choice(tests)
    g, v, (x, y) = min(t[2], key=lambda e: e[1])
    bound = next((b for name, b in HOST_LINK if name in model.get(g, "")), None)
    sibling = [SIBLING * median([e[1] for e in t[2]])] if len(t[2]) >= 3 else []
    # the map's floor takes the place of the link's bound
    for mode, terms in (("map", [golden] + sibling), ("ref", ([FLOOR_HOST * bound] if bound else []) + sibling)):
        if not terms:
            continue
        floor = max(terms)
        for side, f, findings in (("below", 0.99, [f"gpu.pcie.bw@gpu{g}"]), ("above", 1.01, [])):
            out = list(lines)
            new = f"{floor * f:.2f}".rjust(y - x)
            out[t[1]] = out[t[1]][:x] + new + out[t[1]][y:]
            emit(a, index, f"h2d-{mode}-{side}.txt", f"h2d-{mode}-{side}", "".join(out), findings)
    return index


# the GPUs' host links (GB/s) and whether they are NVLink parts (a pair's peer copies then have
# no bound from a capture that does not say its NVLinks), railyard-checks(7)'s references
MODELS = [  # (words of the model, host link GB/s, NVLink part)
    (("A100", "PCIe"), 31.5, False), (("A100", "SXM"), 31.5, True), (("A100",), 31.5, False),
    (("H100", "NVL"), 63.0, False), (("H100", "PCIe"), 63.0, False), (("H100",), 63.0, True),
    (("H200",), 63.0, True), (("B200",), 63.0, True), (("B300",), 63.0, True),
    (("RTX", "4090"), 31.5, False), (("RTX", "5090"), 63.0, False), (("RTX", "2080"), 15.75, False),
    (("GTX", "1080"), 15.75, False), (("A6000",), 31.5, False), (("L40S",), 31.5, False),
    (("P100",), 15.75, False), (("V100",), 15.75, False)]
FLOOR_PCIE_P2P, P2P_VS_HOST, SIBLING_LAT, SIBLING_LAT_MIN, GOLDEN_CEIL, LAT_CEILING = 0.50, 0.80, 3.0, 5.0, 1.5, 1000.0


def model_of(name):
    """(host link GB/s, NVLink part) of a GPU's name, or None where railyard has no reference"""
    words = re.split(r"[\s-]+", name or "")
    for toks, host, nvl in MODELS:
        if all(any(w == t or (t == "SXM" and w.startswith("SXM")) for w in words) for t in toks):
            return host, nvl
    return None


def put(line, span, value, decimals):
    """line with the figure at span replaced by value (right-aligned in its column)"""
    x, y = span
    new = f"{value:.{decimals}f}".rjust(y - x)
    if len(new) > y - x:
        new = " " + new
    return line[:x] + new + line[y:]


def p2p_variants(text, a):
    """p2pBandwidthLatencyTest: one peer pair's unidirectional P2P=Enabled figure 1% below and
    1% above the floor gpu.p2p.bw sets, and one pair's P2P=Enabled latency 1% above and 1% below
    the ceiling gpu.p2p.latency sets, each against the golden map and the built-in references.
    The pair is drawn with the seed; the node's median is the one the other figures give once
    the changed one is below it (a latency above it)."""
    lines = text.splitlines(keepends=True)
    model, peer, mats = {}, {}, []
    cur = None
    for i, line in enumerate(lines):
        s = line.strip()
        m = re.match(r"Device: (\d+), ([^,]*),", s)
        if m:
            model[int(m.group(1))] = m.group(2)
            continue
        m = re.match(r"Device=(\d+) (CAN|CANNOT) Access Peer Device=(\d+)", s)
        if m:
            peer[(int(m.group(1)), int(m.group(3)))] = m.group(2) == "CAN"
            continue
        if re.match(r"(Unidirectional|Bidirectional|P2P=)", s) and "Matrix" in s:
            kind = None
            if s.startswith("Unidirectional") and s.endswith("Matrix (GB/s)"):
                kind = "p2p" if "P2P=Enabled" in s else "host"
            elif "Latency" in s and s.endswith("Matrix (us)"):
                kind = "lat" if "P2P=Enabled" in s else None
            cur = {"kind": kind, "title": s, "cols": None, "cells": []} if kind else None
            if cur:
                mats.append(cur)
            continue
        if cur is None:
            continue
        if cur["cols"] is None:
            m = re.match(r"\s*(D\\D|GPU)((\s+\d+)+)\s*$", line)
            if m:
                cur["cols"] = [int(x) for x in m.group(2).split()]
            continue
        m = re.match(r"\s*(\d+)\s", line)
        if not m:
            cur = None  # the matrix ends (a CPU block of a latency matrix is not read)
            continue
        row = int(m.group(1))
        spans = [f.span() for f in re.finditer(r"\d+\.\d+", line)]
        if len(spans) != len(cur["cols"]):
            cur = None
            continue
        for col, sp in zip(cur["cols"], spans):
            if col != row:
                cur["cells"].append((row, col, float(line[sp[0]:sp[1]]), i, sp))
    ok = lambda c: peer.get((c[0], c[1]), True)
    groups = [m for m in mats if m["kind"] in ("p2p", "lat") and len([c for c in m["cells"] if ok(c)]) > 0]
    if not groups:
        return []
    rng = start(a)
    index = []
    host = {(c[0], c[1]): c[2] for m in mats if m["kind"] == "host" for c in m["cells"]}

    def variant(cls, cell, value, decimals, findings):
        out = list(lines)
        out[cell[3]] = put(out[cell[3]], cell[4], value, decimals)
        emit(a, index, f"{cls}.txt", cls, "".join(out), findings)

    bw = [m for m in groups if m["kind"] == "p2p"]
    if bw:
        golden = min(median([c[2] for c in m["cells"] if ok(c)]) for m in bw) * GOLDEN
        golden = int(golden * 10 + 1e-6) / 10
        m = rng.choice(bw)
        cells = [c for c in m["cells"] if ok(c)]
        cell = rng.choice(cells)
        g, h = cell[0], cell[1]
        pair = f"gpu{min(g, h)}-gpu{max(g, h)}"  # railyard names a pair lower GPU first
        # the median the node's other pairs give once this figure is below it
        rest = [c[2] for c in cells if c is not cell] + [-math.inf]
        terms = ([SIBLING * median(rest)] if len(cells) >= 3 else []) + \
            ([P2P_VS_HOST * host[(g, h)]] if (g, h) in host else [])
        ma, mb = model_of(model.get(g)), model_of(model.get(h))
        pcie = [FLOOR_PCIE_P2P * min(ma[0], mb[0])] if ma and mb and not ma[1] and not mb[1] else []
        for mode, t in (("map", [golden] + terms), ("ref", pcie + terms)):
            if not t:
                continue
            floor = max(t)
            variant(f"p2p-{mode}-below", cell, floor * 0.99, 2, [f"gpu.p2p.bw@{pair}"])
            variant(f"p2p-{mode}-above", cell, floor * 1.01, 2, [])
    lat = [m for m in groups if m["kind"] == "lat"]
    if lat:
        golden = max(median([c[2] for c in m["cells"] if ok(c)]) for m in lat) * GOLDEN_CEIL
        golden = math.ceil(golden * 100 - 1e-6) / 100
        m = rng.choice(lat)
        cells = [c for c in m["cells"] if ok(c)]
        cell = rng.choice(cells)
        g, h = cell[0], cell[1]
        pair = f"gpu{min(g, h)}-gpu{max(g, h)}"
        med = median([c[2] for c in cells if c is not cell] + [math.inf])  # once it is above
        terms = [LAT_CEILING] + ([max(SIBLING_LAT * med, med + SIBLING_LAT_MIN)] if len(cells) >= 3 else [])
        for mode, t in (("map", [golden] + terms), ("ref", terms)):
            ceiling = min(t)
            variant(f"lat-{mode}-above", cell, ceiling * 1.01, 2, [f"gpu.p2p.latency@{pair}"])
            variant(f"lat-{mode}-below", cell, ceiling * 0.99, 2, [])
    return index


def bwtest_variants(text, a):
    """bandwidthTest (CUDA samples): one GPU's host-to-device or device-to-host figure 1% below
    and 1% above the floor gpu.pcie.bw sets, against the golden map and the built-in references"""
    lines = text.splitlines(keepends=True)
    model, figs, test, dev, scale = {}, [], None, 0, 1.0
    for i, line in enumerate(lines):
        s = line.strip()
        m = re.match(r"Device (\d+): (.*)", s)
        if m:
            model[int(m.group(1))] = m.group(2).strip()
            dev = int(m.group(1))
            continue
        m = re.match(r"(Host to Device|Device to Host|Device to Device) Bandwidth", s)
        if m:
            test = None if m.group(1) == "Device to Device" else m.group(1)
            continue
        m = re.match(r"Transfer Size \(Bytes\)\s+Bandwidth\((GB|MB)/s\)", s)
        if m:
            scale = 1.0 if m.group(1) == "GB" else 1 / 1000
            continue
        m = re.match(r"\s*\d+\s+(\d+\.\d+)\s*$", line)
        if m and test:
            figs.append((test, dev, float(m.group(1)) * scale, i, m.span(1), scale))
    if not figs:
        return []
    rng = start(a)
    index = []
    # one figure a test and GPU: the map's floor is the slowest test's median x 0.85
    golden = min(f[2] for f in figs) * GOLDEN
    golden = int(golden * 10 + 1e-6) / 10
    cell = rng.choice([f for f in figs if f[2] == min(x[2] for x in figs)])
    g = cell[1]
    ref = model_of(model.get(g))
    for mode, t in (("map", [golden]), ("ref", [FLOOR_HOST * ref[0]] if ref else [])):
        if not t:
            continue
        floor = max(t)
        for side, f, findings in (("below", 0.99, [f"gpu.pcie.bw@gpu{g}"]), ("above", 1.01, [])):
            out = list(lines)
            out[cell[3]] = put(out[cell[3]], cell[4], floor * f / cell[5], 2)
            emit(a, index, f"bwtest-{mode}-{side}.txt", f"bwtest-{mode}-{side}", "".join(out), findings)
    return index


def nvbandwidth_latencies(lines):
    """nvbandwidth's latency tests, as [(check, cells)]: host_device_latency_sm's row (the CPU)
    gpu.pcie.latency, device_to_device_latency_sm's pairs gpu.p2p.latency; a cell is (GPU or
    (GPU, GPU), figure in us, line, span)"""
    out, test, cols, cells = [], None, None, None
    for i, line in enumerate(lines):
        m = re.match(r"Running (\w+)\.", line)
        if m:
            test = m.group(1) if m.group(1) in ("host_device_latency_sm", "device_to_device_latency_sm") else None
            cols, cells = None, []
            if test:
                out.append(("gpu.pcie.latency" if test.startswith("host") else "gpu.p2p.latency", cells))
            continue
        if not test:
            continue
        if cols is None:
            if re.match(r"\s*\d+(\s+\d+)*\s*$", line):
                cols = [int(x) for x in line.split()]
            continue
        m = re.match(r"\s*(\d+)\s", line)
        if not m:
            test = None
            continue
        row = int(m.group(1))
        toks = list(re.finditer(r"N/A|\d+\.\d+", line[m.end():]))
        if len(toks) != len(cols):
            continue
        for col, t in zip(cols, toks):
            if t.group(0) != "N/A":
                part = col if test.startswith("host") else (row, col)
                span = (m.end() + t.start(), m.end() + t.end())
                cells.append((part, float(t.group(0)) / 1000, i, span))
    return [(check, cells) for check, cells in out if cells]


def latency_variants(lines, tests, rng, a):
    """a figure of a latency test (drawn with the seed) 1% above and 1% below the ceiling its
    check sets: the lowest of the map's p2p_latency_us (peer latencies: 1.5 x the golden node's
    median, rounded up to 0.01 us), the higher of 3 x the node's median and the median + 5 us
    (three figures or more), and 1000 us"""
    index = []
    peer = [c for check, c in tests if check == "gpu.p2p.latency"]
    golden = (math.ceil(max(median([x[1] for x in c]) for c in peer) * GOLDEN_CEIL * 100 - 1e-6) / 100
              if peer else None)
    for check, cells in tests:
        cell = rng.choice(cells)
        part = cell[0]
        subject = (f"gpu{part}" if isinstance(part, int)
                   else f"gpu{min(part)}-gpu{max(part)}")  # a pair lower GPU first
        med = median([c[1] for c in cells if c is not cell] + [math.inf])  # once it is above
        terms = [LAT_CEILING] + ([max(SIBLING_LAT * med, med + SIBLING_LAT_MIN)] if len(cells) >= 3 else [])
        cls = "lat" if check == "gpu.p2p.latency" else "pcielat"
        for mode, t in (("map", ([golden] if golden and check == "gpu.p2p.latency" else []) + terms),
                        ("ref", terms)):
            ceiling = min(t)
            for side, f, findings in (("above", 1.01, [f"{check}@{subject}"]), ("below", 0.99, [])):
                out = list(lines)
                out[cell[2]] = put(out[cell[2]], cell[3], ceiling * f * 1000, 2)  # in ns
                emit(a, index, f"{cls}-{mode}-{side}.txt", f"{cls}-{mode}-{side}", "".join(out), findings)
    return index


def sysfs_variants(a):
    """ports of class/infiniband/DEV/ports/N (state "4: ACTIVE", phys_state "5: LinkUp", rate
    "400 Gb/sec (4X NDR)"): one active port down, one at half its rate"""
    ib = os.path.join(a.capture, "class", "infiniband")
    judged = set(a.nics.split(",")) if a.nics is not None else None

    def read(*p):
        try:
            with open(os.path.join(ib, *p), encoding="utf-8") as f:
                return f.read().strip()
        except OSError:
            return ""
    active = []
    for dev in sorted(os.listdir(ib)):
        if judged is not None and dev not in judged:
            continue
        ports = os.path.join(ib, dev, "ports")
        for port in sorted(os.listdir(ports)) if os.path.isdir(ports) else []:
            if "ACTIVE" in read(dev, "ports", port, "state") and "LinkUp" in read(dev, "ports", port, "phys_state"):
                active.append((dev, port))
    if not active:
        raise ValueError("no active port to fault")
    rng = start(a)
    index = []

    def variant(cls, dev, port, files, findings):
        out = os.path.join(a.outdir, cls)
        shutil.copytree(a.capture, out, symlinks=True)
        for name, text in files.items():
            with open(os.path.join(out, "class", "infiniband", dev, "ports", port, name), "w", encoding="utf-8") as f:
                f.write(text + "\n")
        index.append(f"{cls} {cls} " + ",".join(findings))

    dev, port = rng.choice(active)
    variant("port-down", dev, port, {"state": "1: DOWN", "phys_state": "2: Polling"},
            [f"nic.port.state@{dev}:{port}", f"nic.port.phys_state@{dev}:{port}"])
    cand = [(d, p) for d, p in active if re.match(r"\d+ Gb/sec", read(d, "ports", p, "rate"))]
    if cand:
        dev, port = rng.choice(cand)
        rate = read(dev, "ports", port, "rate")
        m = re.match(r"(\d+) Gb/sec \((\d+)X (.*)\)$", rate)
        half = (f"{int(m.group(1)) // 2} Gb/sec ({max(int(m.group(2)) // 2, 1)}X {m.group(3)})" if m
                else re.sub(r"^\d+", lambda x: str(int(x.group(0)) // 2), rate))
        variant("port-rate", dev, port, {"rate": half}, [f"nic.port.rate@{dev}:{port}"])
    return index


def hwloc_class(pci_type):
    """(class, vendor, device) of hwloc's pci_type="0302 [10de:2330] ..." """
    m = re.match(r"([0-9a-fA-F]{4}) \[([0-9a-fA-F]{4}):([0-9a-fA-F]{4})\]", pci_type or "")
    return tuple(int(x, 16) for x in m.groups()) if m else (0, 0, 0)


def hwloc_is_gpu(pci_type):
    """railyard's rule (topo/pci.c): a 3D controller, or the VGA or display function of the
    data-centre GPU vendors; the ES1000 of many BMCs is not one"""
    c, v, d = hwloc_class(pci_type)
    if v == 0x1002 and d == 0x515e:
        return False
    return c == 0x0302 or (c in (0x0300, 0x0380) and v in (0x10de, 0x1002))


def hwloc_variants(text, a):
    root = ET.fromstring(text)
    parent = {c: p for p in root.iter() for c in p}
    judged = set(a.nics.split(",")) if a.nics is not None else None
    gpus = sorted((o for o in root.iter("object") if o.get("type") == "PCIDev" and hwloc_is_gpu(o.get("pci_type"))),
                  key=lambda o: busid_key(o.get("pci_busid", "")))
    rng = start(a)
    index = []

    def write(cls, busid, rate, findings):
        """the capture with the link of the object at busid set to rate GB/s"""
        pat = re.compile(r'(pci_busid="' + re.escape(busid) + r'"[^>]*pci_link_speed=")[0-9.]+(")')
        out, n = pat.subn(rf"\g<1>{rate:.6f}\g<2>", text)
        if n != 1:
            raise ValueError(f"{busid}: {n} objects with that bus id and a link speed")
        emit(a, index, cls + ".xml", cls, out, findings)

    def speed(o):
        try:
            return float(o.get("pci_link_speed", "0"))
        except ValueError:
            return 0.0

    want = set(a.gpus.split(",")) if a.gpus is not None else None
    cand = [i for i, g in enumerate(gpus) if speed(g) > 0 and (want is None or f"gpu{i}" in want)]
    if cand:
        i = rng.choice(cand)
        write("gpu-rate", gpus[i].get("pci_busid"), speed(gpus[i]) / 2, [f"unjudged:gpu.pcie.gen@gpu{i}"])
    # the bridges above a judged RDMA NIC: its own link is the one under the bridge right above
    # it (a downstream port's status is its link below); the others, up to the root port, each
    # carry a link of their own
    cand = []
    for o in root.iter("object"):
        if o.get("type") != "PCIDev" or speed(o) <= 0:
            continue
        # hwloc's OpenFabrics OS devices (osdev_type 3) are the RDMA devices
        names = [d.get("name") for d in o if d.get("type") == "OSDev" and d.get("name")
                 and (d.get("osdev_type") == "3" if judged is None else d.get("name") in judged)]
        if not names:
            continue
        chain, p = [], parent.get(o)
        while p is not None and p.get("type") == "Bridge" and p.get("bridge_type", "").startswith("1-"):
            chain.append(p)
            p = parent.get(p)
        for k in range(1, len(chain)):
            v = speed(chain[k]) / 2
            others = [speed(b) for j, b in enumerate(chain[1:], 1) if j != k and speed(b) > 0]
            if speed(chain[k]) > 0 and v < 0.95 * speed(o) and all(v < x for x in others):
                cand.append(chain[k])
    if cand:
        b = rng.choice(sorted(set(cand), key=lambda x: busid_key(x.get("pci_busid", ""))))
        write("bridge", b.get("pci_busid"), speed(b) / 2, [f"pcie.path@{b.get('pci_busid')}"])
    return index  # empty where the capture has no link to fault


def nccl_variants(text, a):
    rng = start(a)
    index = []

    def variant(cls, check, subject, mutate):
        """parse the capture afresh, let mutate(root) make the fault, write it out"""
        root = ET.fromstring(text)
        mutate(root)
        name = f"{cls}.xml"
        ET.ElementTree(root).write(os.path.join(a.outdir, name), encoding="unicode")
        index.append(f"{name} {cls} " + ",".join(f"{check}@{s}" for s in subject.split(",")))

    root = ET.fromstring(text)
    gpus, nics = parts(root, set(a.nics.split(",")) if a.nics else None)

    def names_on(pci):
        """the judged RDMA devices of one PCI function, as railyard lists them"""
        return ",".join(sorted(n.get("name") for p, n in nics if p is pci))
    gpu_ids = [g.get("busid") for g in gpus]

    def gpu_el(r, busid):
        return next(p for p in r.iter("pci") if p.get("busid") == busid)

    def nic_el(r, name):
        for p in r.iter("pci"):
            nic = p.find("nic")
            if nic is not None:
                for net in nic.findall("net"):
                    if net.get("name") == name:
                        return p, net
        raise KeyError(name)

    # PCIe of a GPU
    cand = [i for i, g in enumerate(gpus) if gen_down(g.get("link_speed", ""))]
    if cand:
        i = rng.choice(cand)
        variant("gpu-gen", "gpu.pcie.gen", f"gpu{i}",
                lambda r: gpu_el(r, gpu_ids[i]).set("link_speed", gen_down(gpus[i].get("link_speed"))))
    cand = [i for i, g in enumerate(gpus) if g.get("link_width", "0").isdigit() and int(g.get("link_width")) >= 2]
    if cand:
        i = rng.choice(cand)
        variant("gpu-width", "gpu.pcie.width", f"gpu{i}",
                lambda r: gpu_el(r, gpu_ids[i]).set("link_width", str(int(gpus[i].get("link_width")) // 2)))
    # PCIe and port of an RDMA NIC
    cand = [n for n in nics if gen_down(n[0].get("link_speed", ""))]
    if cand:
        pci, net = rng.choice(cand)
        name = net.get("name")
        variant("nic-gen", "nic.pcie.gen", names_on(pci),
                lambda r: nic_el(r, name)[0].set("link_speed", gen_down(pci.get("link_speed"))))
    cand = [n for n in nics if n[0].get("link_width", "0").isdigit() and int(n[0].get("link_width")) >= 2]
    if cand:
        pci, net = rng.choice(cand)
        name = net.get("name")
        variant("nic-width", "nic.pcie.width", names_on(pci),
                lambda r: nic_el(r, name)[0].set("link_width", str(int(pci.get("link_width")) // 2)))
    cand = [n for n in nics if n[1].get("speed", "0").isdigit() and int(n[1].get("speed")) >= 2000]
    if cand:
        pci, net = rng.choice(cand)
        name = net.get("name")
        variant("port-rate", "nic.port.rate", f"{name}:{net.get('port', '1')}",
                lambda r: nic_el(r, name)[1].set("speed", str(int(net.get("speed")) // 2)))
    # an NVLink short
    cand = [(i, k) for i, g in enumerate(gpus)
            for k, l in enumerate(g.find("gpu").findall("nvlink"))
            if l.get("count", "0").isdigit() and int(l.get("count")) >= 2]
    if cand:
        i, k = rng.choice(cand)

        def short(r):
            link = gpu_el(r, gpu_ids[i]).find("gpu").findall("nvlink")[k]
            link.set("count", str(int(link.get("count")) - 1))
        variant("nvlink", "nvlink.state", f"gpu{i}", short)

    return index


if __name__ == "__main__":
    sys.exit(main())
