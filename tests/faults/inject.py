#!/usr/bin/env python3
"""Write faulty variants of a healthy NCCL topology capture (NCCL_TOPO_DUMP_FILE output), one
fault each, and an index of what each must make `railyard check --map` say against the map
captured from the healthy capture: exactly one finding, of the fault's check, on the faulted
part, and nothing elsewhere.

  inject.py [--seed S] [--nics NAME,...] CAPTURE OUTDIR

Fault classes (each where the capture can express it; the part is drawn with the seed):
  gpu-gen      one GPU's PCIe link one generation down           gpu.pcie.gen    gpuN
  gpu-width    one GPU's PCIe link at half its lanes              gpu.pcie.width  gpuN
  nic-gen      one RDMA NIC's PCIe link one generation down       nic.pcie.gen    NIC
  nic-width    one RDMA NIC's PCIe link at half its lanes         nic.pcie.width  NIC
  nvlink       one GPU with one NVLink fewer (of a bundle of 2+)  nvlink.state    gpuN
  port-rate    one RDMA port at half its rate                     nic.port.rate   NIC:PORT

--nics names the RDMA devices railyard judges (the NICs of the healthy capture's map); by
default every net with a GUID. OUTDIR/index gets a line per variant: FILE CLASS CHECK SUBJECTS
(the subjects as railyard names them without the host, joined with ',': GPUs numbered in PCI
order, NICs by their RDMA device; a PCIe fault of a card with several RDMA devices is found on
each of them). The same seed and capture give the same variants. Exit 0, or 2 when the capture
cannot be read."""
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
        ET.fromstring(text)
    except (OSError, ET.ParseError) as e:
        print(f"inject.py: {a.capture}: {e}", file=sys.stderr)
        return 2
    rng = random.Random(f"{a.seed}:{os.path.basename(a.capture)}")
    os.makedirs(a.outdir, exist_ok=True)
    index = []

    def variant(cls, check, subject, mutate):
        """parse the capture afresh, let mutate(root) make the fault, write it out"""
        root = ET.fromstring(text)
        mutate(root)
        name = f"{cls}.xml"
        ET.ElementTree(root).write(os.path.join(a.outdir, name), encoding="unicode")
        index.append(f"{name} {cls} {check} {subject}")

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

    with open(os.path.join(a.outdir, "index"), "w", encoding="utf-8") as f:
        f.write("".join(line + "\n" for line in index))
    return 0


if __name__ == "__main__":
    sys.exit(main())
