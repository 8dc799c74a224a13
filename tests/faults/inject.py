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

--nics names the RDMA devices railyard judges (the NICs of the healthy capture's map); by
default every one the capture lists. OUTDIR/index gets a line per variant: FILE CLASS FINDINGS,
the findings "check@subject" joined with ',' (subjects as railyard names them without the host:
GPUs numbered in PCI order, NICs by their RDMA device; a PCIe fault of a card with several RDMA
devices is found on each of them). The same seed and capture give the same variants. Exit 0, or
2 when the capture cannot be read."""
import argparse
import os
import random
import re
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
    ap.add_argument("capture")
    ap.add_argument("outdir")
    a = ap.parse_args()
    try:
        with open(a.capture, encoding="utf-8") as f:
            text = f.read()
        if re.match(r"\s*GPU \d+: ", text):
            index = nvlink_variants(text, a)
        elif not text.lstrip().startswith("<"):
            index = ibstat_variants(text, a)
        else:
            ET.fromstring(text)
            index = nccl_variants(text, a)
    except (OSError, ET.ParseError, ValueError) as e:
        print(f"inject.py: {a.capture}: {e}", file=sys.stderr)
        return 2
    with open(os.path.join(a.outdir, "index"), "w", encoding="utf-8") as f:
        f.write("".join(line + "\n" for line in index))
    return 0


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
    rng = random.Random(f"{a.seed}:{os.path.basename(a.capture)}")
    os.makedirs(a.outdir, exist_ok=True)
    gpu, i = rng.choice(links)
    out = list(lines)
    out[i] = re.sub(r"(Link \d+: ).*", r"\1<inactive>", out[i])
    with open(os.path.join(a.outdir, "nvlink.txt"), "w", encoding="utf-8") as f:
        f.write("".join(out))
    return [f"nvlink.txt nvlink nvlink.state@gpu{gpu}"]


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
    rng = random.Random(f"{a.seed}:{os.path.basename(a.capture)}")
    os.makedirs(a.outdir, exist_ok=True)
    index = []

    def write(cls, edits, findings):
        out = list(lines)
        for i, (old, new) in edits.items():
            if old not in out[i]:
                raise ValueError(f"line {i + 1}: no '{old}'")
            out[i] = out[i].replace(old, new, 1)
        with open(os.path.join(a.outdir, cls + ".txt"), "w", encoding="utf-8") as f:
            f.write("".join(out))
        index.append(f"{cls}.txt {cls} " + ",".join(findings))

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


def nccl_variants(text, a):
    rng = random.Random(f"{a.seed}:{os.path.basename(a.capture)}")
    os.makedirs(a.outdir, exist_ok=True)
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
