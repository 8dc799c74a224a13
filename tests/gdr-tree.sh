#!/bin/bash
# gdr-tree.sh DIR MLX5-DIR [options]: build a sysfs tree (DIR/sys) and a /proc tree (DIR/proc)
# for railyard check --gdr, laid out as one GPU/NIC pair of an HGX H100 board: a PCIe switch
# under root port 0000:15:01.0, the GPU (10de:2330, 3D controller) at 0000:18:00.0 below
# downstream port 0000:17:00.0, the NIC at 0000:19:00.0 below downstream port 0000:17:01.0. The
# NIC's class/infiniband directory is a copy of MLX5-DIR (a real capture). PCI config space is
# written in the layout the PCIe specification gives (PCI Express capability at 0x40, ACS
# extended capability at 0x100 on the switch ports), so libpci reads it as it reads /sys.
#   --acs HEX        ACS Control of the downstream ports (default 0: P2P goes straight through)
#   --no-acs-cap     the switch ports have no ACS capability
#   --phb            no switch: GPU and NIC under two root ports of one host bridge
#   --peermem        nvidia_peermem loaded
#   --proprietary    the NVIDIA proprietary kernel module (default: the open one)
#   --no-driver      no NVIDIA kernel module loaded
#   --kernel REL     kernel release (default 6.8.0-49-generic)
#   --uplink GTS     the switch's upstream link (its upstream port and the root port above)
#                    trained at GTS GT/s (default 32.0, as every link: Gen5 x16)
#   --gpu-idle       the GPU's link (the GPU and its downstream port) trained at 2.5 GT/s, as
#                    an idle GPU's is
# Every device and port has its current_link_speed/width and max_link_speed/width.
set -eu
dir=$1 mlx=$2
shift 2
acs=0 acscap=1 phb=0 peermem=0 open=1 driver=1 kernel=6.8.0-49-generic uplink=32.0 idle=0
while [ $# -gt 0 ]; do
    case $1 in
    --acs) acs=$2; shift 2 ;;
    --no-acs-cap) acscap=0; shift ;;
    --phb) phb=1; shift ;;
    --peermem) peermem=1; shift ;;
    --proprietary) open=0; shift ;;
    --no-driver) driver=0; shift ;;
    --kernel) kernel=$2; shift 2 ;;
    --uplink) uplink=$2; shift 2 ;;
    --gpu-idle) idle=1; shift ;;
    *) echo "gdr-tree.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
S=$dir/sys
mkdir -p "$S/bus/pci/devices" "$S/class/infiniband" "$S/module" "$dir/proc/sys/kernel"

le16() { printf '\\x%02x\\x%02x' $(($1 & 255)) $((($1 >> 8) & 255)); } # as escapes for put
put() { # put FILE OFFSET BYTES...
    printf "$3" | dd of="$1" bs=1 seek=$(($2)) conv=notrunc status=none
}
# config FILE VENDOR DEVICE CLASS24 HEADER-TYPE PCIE-PORT-TYPE [ACS-CTRL]
config() {
    local f=$1
    head -c 4096 /dev/zero >"$f"
    put "$f" 0x00 "$(le16 "$2")$(le16 "$3")"
    put "$f" 0x06 "$(le16 0x0010)"                 # status: capabilities list
    put "$f" 0x09 "$(printf '\\x%02x\\x%02x\\x%02x' $(($4 & 255)) $((($4 >> 8) & 255)) $((($4 >> 16) & 255)))"
    put "$f" 0x0e "$(printf '\\x%02x' "$5")"
    put "$f" 0x34 '\x40'                           # first capability
    put "$f" 0x40 "\\x10\\x00$(le16 $((0x02 | ($6 << 4))))" # PCI Express, v2, port type
    if [ $# -ge 7 ]; then
        put "$f" 0x100 '\x0d\x00\x01\x00'         # ACS, version 1, last
        put "$f" 0x104 "$(le16 0x005f)"            # ACS capabilities: SV TB RR CR UF DT
        put "$f" 0x106 "$(le16 "$7")"
    fi
}
# dev PATH-UNDER-devices BUSID VENDOR DEVICE CLASS24 HDR PORTTYPE [ACS]
dev() {
    local p=$S/devices/$1 b=$2
    shift 2
    mkdir -p "$p"
    config "$p/config" "$@"
    printf '0x%04x\n' "$1" >"$p/vendor"
    printf '0x%04x\n' "$2" >"$p/device"
    printf '0x%06x\n' "$3" >"$p/class"
    echo 0 >"$p/numa_node"
    echo 0 >"$p/irq" # lspci -A linux-sysfs reads these too
    for _ in 1 2 3 4 5 6 7; do echo "0x0000000000000000 0x0000000000000000 0x0000000000000000"; done >"$p/resource"
    ln -s "../../../devices/${p#"$S"/devices/}" "$S/bus/pci/devices/$b"
    link "$b" 32.0
}
# link BUSID GTS: the device's link trained at GTS GT/s x16, capable of 32 GT/s x16
link() {
    local p
    p=$(readlink -f "$S/bus/pci/devices/$1")
    printf '%s GT/s PCIe\n' "$2" >"$p/current_link_speed"
    echo 16 >"$p/current_link_width"
    echo "32.0 GT/s PCIe" >"$p/max_link_speed"
    echo 16 >"$p/max_link_width"
}
acsargs=()
[ "$acscap" -eq 1 ] && acsargs=("$acs")
rp=pci0000:15/0000:15:01.0
dev "$rp" 0000:15:01.0 0x8086 0x352a 0x060400 1 4
if [ "$phb" -eq 1 ]; then
    dev "$rp/0000:18:00.0" 0000:18:00.0 0x10de 0x2330 0x030200 0 0
    dev pci0000:15/0000:15:02.0 0000:15:02.0 0x8086 0x352b 0x060400 1 4
    nic=pci0000:15/0000:15:02.0/0000:19:00.0
else
    up=$rp/0000:16:00.0
    dev "$up" 0000:16:00.0 0x1000 0xc030 0x060400 1 5 ${acsargs[@]+"${acsargs[@]}"}
    dev "$up/0000:17:00.0" 0000:17:00.0 0x1000 0xc030 0x060400 1 6 ${acsargs[@]+"${acsargs[@]}"}
    dev "$up/0000:17:01.0" 0000:17:01.0 0x1000 0xc030 0x060400 1 6 ${acsargs[@]+"${acsargs[@]}"}
    dev "$up/0000:17:00.0/0000:18:00.0" 0000:18:00.0 0x10de 0x2330 0x030200 0 0
    nic=$up/0000:17:01.0/0000:19:00.0
fi
dev "$nic" 0000:19:00.0 0x15b3 0x1021 0x020700 0 0
if [ "$phb" -eq 0 ]; then
    link 0000:15:01.0 "$uplink"
    link 0000:16:00.0 "$uplink"
    if [ "$idle" -eq 1 ]; then link 0000:17:00.0 2.5; link 0000:18:00.0 2.5; fi
fi
cp -r "$mlx" "$S/class/infiniband/mlx5_0"
ln -s "../../../devices/$nic" "$S/class/infiniband/mlx5_0/device"
echo "$kernel" >"$dir/proc/sys/kernel/osrelease"
if [ "$driver" -eq 1 ]; then
    mkdir -p "$S/module/nvidia" "$dir/proc/driver/nvidia"
    echo 550.127.05 >"$S/module/nvidia/version"
    if [ "$open" -eq 1 ]; then
        echo "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.127.05  Release Build  (dvs-builder@U16-I3-B03-4-3)  Tue Oct  8 03:22:07 UTC 2024"
    else
        echo "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.127.05  Tue Oct  8 03:22:07 UTC 2024"
    fi >"$dir/proc/driver/nvidia/version"
fi
[ "$peermem" -eq 1 ] && mkdir -p "$S/module/nvidia_peermem"
exit 0
