#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "topo/iba.h"
#include "topo/map.h"
#include "topo/model.h"
#include "tests/tap/tap.h"

/* topo/map.c on maps written here: every key read into its field, every bound of every number
 * accepted at its edge and refused one step past it, and every refusal naming the file, line and
 * column of what it refuses, in the words railyard-map(5) uses. */

#ifdef HAVE_YAML

static struct topo_map *load_as(const char *name, const char *yaml, ry_error_t *err)
{
    err->text[0] = '\0';
    return topo_map_load_buffer(yaml, strlen(yaml), name, err);
}

/* a map that must load; NULL (and the error said) where it does not */
static struct topo_map *good(const char *yaml, const char *what)
{
    ry_error_t err;
    struct topo_map *m = load_as("t.map", yaml, &err);

    if (!ok(m != NULL, "%s: loads", what))
        diag("error: %s", err.text);
    return m;
}

/* a map that must be refused with exactly this message */
static void bad(const char *yaml, const char *want, const char *what)
{
    ry_error_t err;
    struct topo_map *m = load_as("t.map", yaml, &err);

    if (m) {
        ok(0, "%s: refused", what);
        topo_map_destroy(m);
        return;
    }
    is_str(err.text, want, "%s", what);
}

/* a map of one node type "g" whose body (indented under it) is given, one node of it */
#define TYPE(body) "node_types:\n  g:\n" body "nodes:\n  n1: g\n"
/* a NIC entry of node type "g", as a flow mapping on line 4 (column 9) */
#define NIC(fields) TYPE("    nics:\n      - {" fields "}\n")
/* the gpus section of node type "g", as a flow mapping on line 3 */
#define GPUS(fields) TYPE("    gpus: {" fields "}\n")

static void test_full_map(void)
{
    static const char yaml[] = "cluster: c1\n"
                               "node_types:\n"
                               "  hgx:\n"
                               "    gpus: {count: 8, model: H100, pci_id: 10de:2330,\n"
                               "           compute_capability: '9.0', pcie: {gen: 5, width: 16},\n"
                               "           nvlink: {links: 18}}\n"
                               "    nics:\n"
                               "      - {name: mlx5_0, netdev: ib0, rail: 0, port: 1,\n"
                               "         link_layer: InfiniBand, rate_gbps: 400, near_gpu: 0,\n"
                               "         path: PIX, numa: 0, pcie: {gen: 5, width: 16}}\n"
                               "      - {name: mlx5_0, rail: 1, port: 2, link_layer: RoCE}\n"
                               "      - {name: eth9, path: NV12}\n"
                               "    ignore: [mlx5_9, 'mlx5_8:2']\n"
                               "    severity: {nic.port.rate: warn, gpu.model: ignore}\n"
                               "    thresholds: {rail_bw_gbps: 350, goodput_ratio_min: 1,\n"
                               "                 ecn_marked_max: 0}\n"
                               "  cpu:\n"
                               "    nics:\n"
                               "      - {name: mlx5_0, rail: 0}\n"
                               "nodes:\n"
                               "  gpu[01-16]: hgx\n"
                               "  login1: cpu\n"
                               "rails:\n"
                               "  0: {switches: [leaf1, leaf2]}\n"
                               "  1:\n"
                               "fabric:\n"
                               "  speed: ndr\n"
                               "  width: 4X\n"
                               "  expect: golden.topo\n"
                               "  node_name_map: /etc/names\n"
                               "  interval: 3600\n"
                               "  counters:\n"
                               "    SymbolErrorCounter: {total: 0, rising: 2000000000}\n"
                               "    VL15Dropped: {rising: 5}\n"
                               "severity: {link.speed: fail}\n"
                               "ignore: ib9\n";
    ry_error_t err;
    struct topo_map *m = load_as("/maps/site/c1.map", yaml, &err);
    const struct map_node_type *t;

    if (!ok(m != NULL, "a map with every key loads"))
        diag("error: %s", err.text);
    if (!m)
        return;
    is_str(m->path, "/maps/site/c1.map", "its path kept");
    is_str(m->cluster, "c1", "cluster");
    is_int((long long)m->ntypes, 2, "two node types");
    t = &m->types[0];
    is_str(t->name, "hgx", "the first type's name");
    is_int(t->line * 100 + t->col, 303, "...and where it is (line 3, column 3)");
    is_int(t->gpu_count, 8, "gpus.count");
    is_str(t->gpu_model, "H100", "gpus.model");
    is_int((long long)t->gpu_pci_vendor * 0x10000 + t->gpu_pci_device, 0x10de2330, "gpus.pci_id");
    is_int(t->gpu_sm, 90, "gpus.compute_capability 9.0 is 90");
    is_int(t->pcie_gen * 100 + t->pcie_width, 516, "gpus.pcie gen 5 x16");
    is_int(t->nvlink_links, 18, "gpus.nvlink.links");
    is_int((long long)t->nnics, 3, "three NIC entries");
    is_str(t->nics[0].name, "mlx5_0", "nic name");
    is_str(t->nics[0].netdev, "ib0", "nic netdev");
    is_int(t->nics[0].rail, 0, "nic rail");
    is_int(t->nics[0].port, 1, "nic port");
    is_int(t->nics[0].link_layer, TOPO_LL_INFINIBAND, "link_layer InfiniBand");
    ok(fabs(t->nics[0].rate_gbps - 400) < 1e-9, "rate_gbps");
    is_int(t->nics[0].near_gpu, 0, "near_gpu");
    is_int(t->nics[0].path, TOPO_PATH_PIX, "path PIX");
    is_int(t->nics[0].numa, 0, "numa 0");
    is_int(t->nics[0].pcie_gen * 100 + t->nics[0].pcie_width, 516, "nic pcie gen 5 x16");
    is_int(t->nics[0].line * 100 + t->nics[0].col, 809, "the NIC entry's place (line 8, col 9)");
    is_int(t->nics[1].port, 2, "the same NIC's second port");
    is_int(t->nics[1].link_layer, TOPO_LL_ETHERNET, "link_layer RoCE is Ethernet");
    ok(t->nics[1].netdev == NULL, "no netdev: NULL");
    is_int(t->nics[2].path, TOPO_PATH_NV, "path NV12 is an NVLink path");
    is_int(t->nics[2].rail * 1000 + t->nics[2].near_gpu * 100 + t->nics[2].numa, -1101,
           "rail, near_gpu and numa unset: -1 each");
    is_int(t->nics[2].port, 1, "port unset: 1");
    ok(t->nics[2].rate_gbps < 0 && t->nics[2].link_layer == TOPO_LL_UNKNOWN &&
           t->nics[2].pcie_gen == 0 && t->nics[2].pcie_width == 0,
       "rate, link layer and PCIe link unset");
    is_int((long long)t->nignore, 2, "two ignored");
    is_str(t->ignore[1], "mlx5_8:2", "...the second a port");
    is_int((long long)t->nseverity, 2, "two severities");
    is_str(t->severity[0].check, "nic.port.rate", "the first override's check");
    is_int(t->severity[0].sev * 10 + t->severity[1].sev, TOPO_SEV_WARN * 10 + TOPO_SEV_IGNORE,
           "warn, then ignore");
    ok(fabs(t->thresholds.rail_bw_gbps - 350) < 1e-9, "thresholds.rail_bw_gbps");
    ok(t->thresholds.goodput_ratio_min == 1 && t->thresholds.ecn_marked_max == 0,
       "a share of exactly 1 and of 0 accepted");
    ok(t->thresholds.gdr_bw_gbps < 0, "an unset threshold stays unset");
    t = &m->types[1];
    is_int(t->gpu_count * 100 + t->nvlink_links * 10 + t->gpu_sm, -111,
           "a type without gpus: count, links and capability unset");
    ok(t->gpu_model == NULL && t->pcie_gen == 0 && t->gpu_pci_vendor == 0, "...model, link, id");
    is_int((long long)m->nnodes, 2, "two node entries");
    is_str(m->nodes[0].hostlist, "gpu[01-16]", "a host list");
    is_str(m->nodes[1].type, "cpu", "its type");
    is_int(m->nodes[1].line * 100 + m->nodes[1].col, 2211, "a node entry's type's place");
    is_int((long long)m->nrails, 2, "two rails");
    is_int(m->rails[0].id * 10 + (int)m->rails[0].nswitches, 2, "rail 0 with two switches");
    is_str(m->rails[0].switches[1], "leaf2", "...in order");
    is_int(m->rails[1].id * 10 + (int)m->rails[1].nswitches, 10, "rail 1 with nothing: no switch");
    is_int(m->rails[1].line * 100 + m->rails[1].col, 2503, "a rail's place");
    ok(m->fabric.present, "the fabric section is there");
    is_int(m->fabric.speed, IBF_NDR, "fabric.speed, in any case");
    is_int(m->fabric.width, 4, "fabric.width 4X");
    is_str(m->fabric.expect, "/maps/site/golden.topo", "expect: relative to the map's folder");
    is_str(m->fabric.node_name_map, "/etc/names", "node_name_map: an absolute path as it is");
    ok(m->fabric.interval == 3600, "interval of 3600 s, the longest");
    is_int((long long)m->fabric.ncounters, 2, "two counters");
    is_str(m->fabric.counters[1].name, "VL15Dropped", "the last error counter accepted");
    ok(m->fabric.counters[0].total == 0 && m->fabric.counters[0].rising == 2000000000,
       "total 0 and rising 2000000000, the bounds");
    ok(m->fabric.counters[1].total == -1 && m->fabric.counters[1].rising == 5,
       "a limit not given: -1");
    is_int(m->fabric.counters[1].line * 100 + m->fabric.counters[1].col, 3405, "a counter's place");
    is_int((long long)m->nseverity, 1, "a cluster-wide severity");
    is_int(m->severity[0].sev, TOPO_SEV_FAIL, "...fail");
    is_int((long long)m->nignore, 1, "a cluster-wide ignore given as one name");
    is_str(m->ignore[0], "ib9", "...kept");
    topo_map_destroy(m);

    /* a map name without a folder: the file names as given */
    m = load_as("c1.map", "node_types:\n  g: {nics: [{name: a}]}\nfabric: {expect: d/x.topo}\n",
                &err);
    ok(m && !strcmp(m->fabric.expect, "d/x.topo"),
       "expect of a map named without a folder: as it is");
    ok(m && m->fabric.interval < 0 && m->fabric.speed == 0 && m->fabric.width == 0,
       "fabric: interval, speed and width unset");
    topo_map_destroy(m);
    m = load_as("c1.map", "node_types:\n  g: {}\n", &err);
    ok(m && !m->fabric.present && m->nrails == 0 && m->nnodes == 0,
       "no fabric section: not present; no rails, no nodes");
    topo_map_destroy(m);
}

static void test_numbers(void)
{
    struct topo_map *m;

    /* each bound accepted at its edge, refused one past it */
    m = good(NIC("name: a, rail: 1023, port: 255, near_gpu: 1023, numa: 4095"),
             "the highest rail, port, near_gpu, numa");
    if (m)
        is_int(m->types[0].nics[0].rail + m->types[0].nics[0].port + m->types[0].nics[0].near_gpu +
                   m->types[0].nics[0].numa,
               1023 + 255 + 1023 + 4095, "...kept");
    topo_map_destroy(m);
    bad(NIC("name: a, rail: 1024"), "t.map:4:25: rail must be between 0 and 1023, not 1024",
        "rail 1024");
    bad(NIC("name: a, rail: -1"), "t.map:4:25: rail must be between 0 and 1023, not -1", "rail -1");
    bad(NIC("name: a, port: 0"), "t.map:4:25: port must be between 1 and 255, not 0", "port 0");
    bad(NIC("name: a, port: 256"), "t.map:4:25: port must be between 1 and 255, not 256",
        "port 256");
    bad(NIC("name: a, near_gpu: 1024"), "t.map:4:29: near_gpu must be between 0 and 1023, not 1024",
        "near_gpu 1024");
    bad(NIC("name: a, near_gpu: -1"), "t.map:4:29: near_gpu must be between 0 and 1023, not -1",
        "near_gpu -1");
    bad(NIC("name: a, numa: 4096"), "t.map:4:25: numa must be between 0 and 4095, not 4096",
        "numa 4096");
    bad(NIC("name: a, numa: -1"), "t.map:4:25: numa must be between 0 and 4095, not -1", "numa -1");
    bad(NIC("name: a, port: 1x"), "t.map:4:25: port must be an integer, not '1x'",
        "a port with a tail");
    bad(NIC("name: a, port: ''"), "t.map:4:25: port must be an integer, not ''", "an empty port");
    bad(NIC("name: a, port: 99999999999999999999"),
        "t.map:4:25: port must be an integer, not '99999999999999999999'", "a port past a long");
    bad(NIC("name: a, port: [1]"), "t.map:4:25: port must be a scalar, not a list",
        "a list for a port");
    m = good(NIC("name: a, rail: 0, port: 1, near_gpu: 0, numa: 0"),
             "the lowest rail, port, near_gpu, numa");
    if (m)
        is_int(m->types[0].nics[0].rail + m->types[0].nics[0].port + m->types[0].nics[0].near_gpu +
                   m->types[0].nics[0].numa,
               1, "...kept");
    topo_map_destroy(m);

    m = good(GPUS("count: 0, pcie: {gen: 1, width: 1}, nvlink: {links: 0}"),
             "gpus at their lowest");
    if (m)
        is_int(m->types[0].gpu_count * 1000 + m->types[0].pcie_gen * 100 +
                   m->types[0].pcie_width * 10 + m->types[0].nvlink_links,
               110, "...kept");
    topo_map_destroy(m);
    m = good(GPUS("count: 1024, pcie: {gen: 7, width: 32}, nvlink: {links: 64}"),
             "gpus at their highest");
    if (m)
        is_int(m->types[0].gpu_count * 10000 + m->types[0].pcie_gen * 1000 +
                   m->types[0].pcie_width * 10 + m->types[0].nvlink_links,
               10240000 + 7000 + 320 + 64, "...kept");
    topo_map_destroy(m);
    bad(GPUS("count: 1025"), "t.map:3:19: count must be between 0 and 1024, not 1025",
        "count 1025");
    bad(GPUS("count: -1"), "t.map:3:19: count must be between 0 and 1024, not -1", "count -1");
    bad(GPUS("pcie: {gen: 0}"), "t.map:3:24: gen must be between 1 and 7, not 0", "gen 0");
    bad(GPUS("pcie: {gen: 8}"), "t.map:3:24: gen must be between 1 and 7, not 8", "gen 8");
    bad(GPUS("pcie: {width: 0}"), "t.map:3:26: width must be between 1 and 32, not 0", "width 0");
    bad(GPUS("pcie: {width: 33}"), "t.map:3:26: width must be between 1 and 32, not 33",
        "width 33");
    bad(GPUS("nvlink: {links: 65, links: 18}"),
        "t.map:3:28: links must be between 0 and 64, not 65",
        "links out of range, then again in range: the first error stands");
    bad(GPUS("nvlink: {links: 65}"), "t.map:3:28: links must be between 0 and 64, not 65",
        "links 65");
    bad(GPUS("nvlink: {links: -1}"), "t.map:3:28: links must be between 0 and 64, not -1",
        "links -1");
    bad(GPUS("pcie: {lanes: 16}"),
        "t.map:3:19: unknown key 'lanes' in gpus.pcie (valid keys: gen, width)",
        "an unknown key of gpus.pcie, named with its place");
    bad(NIC("name: a, pcie: {gen: 8}"), "t.map:4:31: gen must be between 1 and 7, not 8",
        "a NIC's gen 8");
    bad(NIC("name: a, pcie: {widht: 8}"),
        "t.map:4:26: unknown key 'widht' in pcie (did you mean 'width'?)",
        "a NIC's pcie key misspelled");
    bad(NIC("name: a, pcie: 16"), "t.map:4:25: pcie must be a mapping, not a scalar",
        "a NIC's pcie not a mapping");

    /* rate_gbps: above 0 (0 would pass any port); the thresholds: non-negative numbers */
    bad(NIC("name: a, rate_gbps: 0"), "t.map:4:30: rate_gbps must be a positive number, not '0'",
        "rate_gbps 0: refused, it would pass any port");
    bad(NIC("name: a, rate_gbps: 0.0"),
        "t.map:4:30: rate_gbps must be a positive number, not '0.0'", "rate_gbps 0.0: refused");
    m = good(NIC("name: a, rate_gbps: 0.001"), "rate_gbps just above 0");
    if (m)
        ok(fabs(m->types[0].nics[0].rate_gbps - 0.001) < 1e-12, "...kept as given");
    topo_map_destroy(m);
    m = good(NIC("name: a, rate_gbps: 2.5"), "rate_gbps 2.5 (an SDR lane)");
    if (m)
        ok(fabs(m->types[0].nics[0].rate_gbps - 2.5) < 1e-12, "...kept as 2.5");
    topo_map_destroy(m);
    bad(NIC("name: a, rate_gbps: -0.5"),
        "t.map:4:30: rate_gbps must be a positive number, not '-0.5'", "a negative rate");
    bad(NIC("name: a, rate_gbps: nan"),
        "t.map:4:30: rate_gbps must be a positive number, not 'nan'",
        "a rate that is not a number");
    bad(NIC("name: a, rate_gbps: 400G"),
        "t.map:4:30: rate_gbps must be a positive number, not '400G'", "a rate with a unit");
    bad(NIC("name: a, rate_gbps: [400]"), "t.map:4:30: rate_gbps must be a scalar, not a list",
        "a rate as a list");
    bad(NIC("name: a, rate_gbps: ''"), "t.map:4:30: rate_gbps must be a positive number, not ''",
        "an empty rate");
    bad(TYPE("    thresholds: {goodput_ratio_min: 1.01}\n"),
        "t.map:3:37: goodput_ratio_min is a share of the traffic, from 0 to 1, not '1.01'",
        "a share above 1");
    bad(TYPE("    thresholds: {collective_busbw_ratio_min: 2}\n"),
        "t.map:3:46: collective_busbw_ratio_min is a share of the traffic, from 0 to 1, not '2'",
        "the collective share above 1");
    m = good(TYPE("    thresholds: {h2d_gbps: 55.5, launch_latency_us: 2, "
                  "collective_busbw_ratio_min: 0.5}\n"),
             "a floor above 1, a ceiling and a share below 1");
    if (m)
        ok(m->types[0].thresholds.h2d_gbps == 55.5 &&
               m->types[0].thresholds.launch_latency_us == 2 &&
               m->types[0].thresholds.collective_busbw_ratio_min == 0.5,
           "...each in its field");
    topo_map_destroy(m);
    bad(TYPE("    thresholds: {rail_bw_gpbs: 5}\n"),
        "t.map:3:18: unknown key 'rail_bw_gpbs' in thresholds (did you mean 'rail_bw_gbps'?)",
        "a threshold key misspelled: the nearest suggested");
    bad(TYPE("    thresholds: {rail_bw: 5}\n"),
        "t.map:3:18: unknown key 'rail_bw' in thresholds (valid keys: rail_bw_gbps, gdr_bw_gbps, "
        "h2d_gbps, "
        "nvlink_pair_gbps, local_gbps, p2p_latency_us, l2_latency_us, mem_latency_us, "
        "launch_latency_us, "
        "goodput_ratio_min, ecn_marked_max, collective_busbw_ratio_min)",
        "a threshold key five edits away: every key listed");
    bad(TYPE("    thresholds: {ecn_marked_max: -1}\n"),
        "t.map:3:34: ecn_marked_max must be a non-negative number, not '-1'", "a negative share");
    bad(TYPE("    thresholds: 5\n"), "t.map:3:17: thresholds must be a mapping, not a scalar",
        "thresholds not a mapping");
}

static void test_words(void)
{
    struct topo_map *m;

    /* pci_id and compute_capability */
    bad(GPUS("pci_id: 10de2330"),
        "t.map:3:20: pci_id must be VENDOR:DEVICE, four hex digits each (e.g. 10de:2330), not "
        "'10de2330'",
        "a PCI id without its colon");
    bad(GPUS("pci_id: 10de:233"),
        "t.map:3:20: pci_id must be VENDOR:DEVICE, four hex digits each (e.g. 10de:2330), not "
        "'10de:233'",
        "a device id of three digits");
    bad(GPUS("pci_id: 10dg:2330"),
        "t.map:3:20: pci_id must be VENDOR:DEVICE, four hex digits each (e.g. 10de:2330), not "
        "'10dg:2330'",
        "a vendor id that is not hex");
    bad(GPUS("pci_id: 10de:233x"),
        "t.map:3:20: pci_id must be VENDOR:DEVICE, four hex digits each (e.g. 10de:2330), not "
        "'10de:233x'",
        "a device id that is not hex (its last digit)");
    bad(GPUS("pci_id: 0000:2330"),
        "t.map:3:20: pci_id must be VENDOR:DEVICE, four hex digits each (e.g. 10de:2330), not "
        "'0000:2330'",
        "vendor 0");
    bad(GPUS("pci_id: 10de:0000"),
        "t.map:3:20: pci_id must be VENDOR:DEVICE, four hex digits each (e.g. 10de:2330), not "
        "'10de:0000'",
        "device 0");
    bad(GPUS("pci_id: 10de:23300"),
        "t.map:3:20: pci_id must be VENDOR:DEVICE, four hex digits each (e.g. 10de:2330), not "
        "'10de:23300'",
        "a device id of five digits");
    m = good(GPUS("pci_id: 10DE:2b85"), "a PCI id in either case");
    if (m)
        is_int((long long)m->types[0].gpu_pci_vendor * 0x10000 + m->types[0].gpu_pci_device,
               0x10de2b85, "...read as hex");
    topo_map_destroy(m);
    m = good(GPUS("compute_capability: '10.0'"), "a capability of two digits");
    if (m)
        is_int(m->types[0].gpu_sm, 100, "...10.0 is 100");
    topo_map_destroy(m);
    m = good(GPUS("compute_capability: '12.1'"), "capability 12.1");
    if (m)
        is_int(m->types[0].gpu_sm, 121, "...is 121");
    topo_map_destroy(m);
    {
        static const char *const refused[] = { "9",   "9.",   ".9",  "9.10",  "0.9",
                                               "a.0", "1a.0", "9,0", "100.0", "9.x" };
        for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
            char yaml[256], want[256];
            snprintf(yaml, sizeof(yaml), GPUS("compute_capability: '%s'"), refused[i]);
            snprintf(want, sizeof(want),
                     "t.map:3:32: compute_capability must be MAJOR.MINOR (e.g. 9.0), not '%s'",
                     refused[i]);
            bad(yaml, want, refused[i]);
        }
    }

    /* link_layer, path */
    m = good(NIC("name: a, link_layer: ib}\n      - {name: b, link_layer: ETHERNET"),
             "IB and ETHERNET, in any case");
    if (m)
        is_int(m->types[0].nics[0].link_layer * 10 + m->types[0].nics[1].link_layer,
               TOPO_LL_INFINIBAND * 10 + TOPO_LL_ETHERNET, "...InfiniBand, Ethernet");
    topo_map_destroy(m);
    bad(NIC("name: a, link_layer: OPA"),
        "t.map:4:31: link_layer must be InfiniBand or Ethernet, not 'OPA'",
        "a link layer of another kind");
    bad(NIC("name: a, link_layer: [IB]"), "t.map:4:31: link_layer must be a scalar, not a list",
        "a link layer as a list");
    bad(NIC("name: a, path: X"),
        "t.map:4:25: path must be one of PIX, PXB, PHB, NODE, SYS, NV#, not 'X'",
        "path X (a device to itself)");
    m = good(NIC("name: a, path: NV"), "path NV without its count");
    if (m)
        is_int(m->types[0].nics[0].path, TOPO_PATH_NV, "...an NVLink path");
    topo_map_destroy(m);
    bad(NIC("name: a, path: pix"),
        "t.map:4:25: path must be one of PIX, PXB, PHB, NODE, SYS, NV#, not 'pix'",
        "a path in lower case");
    bad(NIC("name: a, path: [PIX]"), "t.map:4:25: path must be a scalar, not a list",
        "a list for a path");
    m = good(NIC("name: a, path: SYS}\n      - {name: b, path: NODE"), "paths SYS and NODE");
    if (m)
        is_int(m->types[0].nics[0].path * 10 + m->types[0].nics[1].path,
               TOPO_PATH_SYS * 10 + TOPO_PATH_NODE, "...kept");
    topo_map_destroy(m);

    /* severity */
    bad(TYPE("    severity: {gpu.modle: warn}\n"),
        "t.map:3:16: unknown check id 'gpu.modle' (see railyard-check(1))",
        "a severity of an unknown check");
    bad(TYPE("    severity: {gpu.model: error}\n"),
        "t.map:3:27: severity of 'gpu.model' must be warn, fail or ignore, not 'error'",
        "a severity word of another tool");
    bad(TYPE("    severity: {gpu.model: [warn]}\n"),
        "t.map:3:27: a severity must be a scalar, not a list", "a severity given as a list");
    bad(TYPE("    severity: [gpu.model]\n"), "t.map:3:15: severity must be a mapping, not a list",
        "severity given as a list");
    m = good("severity: {nic.port.: ignore}\nnode_types: {g: {}}\n", "a severity of a prefix");
    if (m)
        ok(m->nseverity == 1 && m->severity[0].sev == TOPO_SEV_IGNORE &&
               !strcmp(m->severity[0].check, "nic.port."),
           "...kept");
    topo_map_destroy(m);

    /* fabric */
    {
        static const char *const speeds[] = { "SDR", "DDR", "QDR", "FDR10", "FDR",
                                              "EDR", "HDR", "NDR", "XDR" };
        int all = 1;
        for (size_t i = 0; i < 9; i++) {
            char yaml[128];
            ry_error_t err;
            snprintf(yaml, sizeof(yaml), "node_types: {g: {}}\nfabric: {speed: %s}\n", speeds[i]);
            m = load_as("t.map", yaml, &err);
            all &= m && m->fabric.speed == (int)i + 1;
            topo_map_destroy(m);
        }
        ok(all, "each IB speed, SDR to XDR, read as its own");
    }
    bad("node_types: {g: {}}\nfabric: {speed: 400G}\n",
        "t.map:2:17: speed must be SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR or XDR",
        "a speed in Gb/s");
    {
        static const char *const widths[] = { "1x", "2", "4x", "8X", "12x" };
        static const int w[] = { 1, 2, 4, 8, 12 };
        int all = 1;
        for (size_t i = 0; i < 5; i++) {
            char yaml[128];
            ry_error_t err;
            snprintf(yaml, sizeof(yaml), "node_types: {g: {}}\nfabric: {width: %s}\n", widths[i]);
            m = load_as("t.map", yaml, &err);
            all &= m && m->fabric.width == w[i];
            topo_map_destroy(m);
        }
        ok(all, "each IB width, 1x to 12x, with its x or without");
    }
    {
        static const char *const refused[] = { "3x", "16x", "x", "4xx", "0", "4y" };
        for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
            char yaml[128];
            snprintf(yaml, sizeof(yaml), "node_types: {g: {}}\nfabric: {width: %s}\n", refused[i]);
            bad(yaml, "t.map:2:17: width must be 1x, 2x, 4x, 8x or 12x", refused[i]);
        }
    }
    bad("node_types: {g: {}}\nfabric: {interval: 0}\n",
        "t.map:2:20: interval takes seconds (0 < s <= 3600)", "interval 0");
    bad("node_types: {g: {}}\nfabric: {interval: 3600.5}\n",
        "t.map:2:20: interval takes seconds (0 < s <= 3600)", "interval past an hour");
    m = good("node_types: {g: {}}\nfabric: {interval: 0.01}\n", "interval of 10 ms");
    if (m)
        ok(m->fabric.interval == 0.01, "...kept");
    topo_map_destroy(m);
    /* the watch's thresholds: each at its edges, unset ones left unset */
    m = good("node_types: {g: {}}\nwatch: {interval: 0.05, flap_count: 64, flap_window: 1, "
             "grace: 0, limits: {SymbolErrorCounter: 0.5}}\n",
             "watch: every key at its lower edge (flap_count at its upper)");
    if (m)
        ok(m->watch.present && m->watch.interval == 0.05 && m->watch.flap_count == 64 &&
               m->watch.flap_window == 1 && m->watch.grace == 0 && m->watch.down_after < 0 &&
               m->watch.hold < 0 && m->watch.nlimits == 1 && m->watch.limits[0].per_s == 0.5 &&
               !strcmp(m->watch.limits[0].name, "SymbolErrorCounter"),
           "...kept, down_after and hold unset");
    topo_map_destroy(m);
    m = good("node_types: {g: {}}\n", "no watch: section");
    if (m)
        ok(!m->watch.present && m->watch.interval < 0 && m->watch.flap_count == 0,
           "...every watch threshold unset");
    topo_map_destroy(m);
    bad("node_types: {g: {}}\nwatch: {interval: 0.049}\n",
        "t.map:2:19: interval takes seconds (0.05 to 3600), not 0.049",
        "watch interval under 0.05");
    bad("node_types: {g: {}}\nwatch: {interval: 3600.1}\n",
        "t.map:2:19: interval takes seconds (0.05 to 3600), not 3600.1", "...past an hour");
    bad("node_types: {g: {}}\nwatch: {flap_window: 0.9}\n",
        "t.map:2:22: flap_window takes seconds (1 to 86400), not 0.9", "flap_window under 1 s");
    bad("node_types: {g: {}}\nwatch: {down_after: 86401}\n",
        "t.map:2:21: down_after takes seconds (0 to 86400), not 86401", "down_after past a day");
    bad("node_types: {g: {}}\nwatch: {flap_count: 65}\n",
        "t.map:2:21: flap_count must be between 1 and 64, not 65", "flap_count 65");
    bad("node_types: {g: {}}\nwatch: {flap_count: 0}\n",
        "t.map:2:21: flap_count must be between 1 and 64, not 0", "flap_count 0");
    bad("node_types: {g: {}}\nwatch: {hold: -1}\n",
        "t.map:2:15: hold must be a non-negative number, not '-1'", "hold negative");
    bad("node_types: {g: {}}\nwatch: {limits: [SymbolErrorCounter]}\n",
        "t.map:2:17: limits must be a mapping, not a list", "limits as a list");
    bad("node_types: {g: {}}\nwatch: {grace_s: 5}\n",
        "t.map:2:9: unknown key 'grace_s' in watch (did you mean 'grace'?)",
        "a misspelt watch key");
    bad("node_types: {g: {}}\nfabric: {counters: {PortXmitWait: {total: 1}}}\n",
        "t.map:2:21: 'PortXmitWait' is not a PMA error counter (SymbolErrorCounter, "
        "LinkErrorRecoveryCounter, "
        "LinkDownedCounter, PortRcvErrors, ...)",
        "a traffic counter is not an error counter");
    bad("node_types: {g: {}}\nfabric: {counters: {Symbols: {total: 1}}}\n",
        "t.map:2:21: 'Symbols' is not a PMA error counter (SymbolErrorCounter, "
        "LinkErrorRecoveryCounter, "
        "LinkDownedCounter, PortRcvErrors, ...)",
        "a counter of no name");
    bad("node_types: {g: {}}\nfabric: {counters: {LinkDownedCounter: {total: 2000000001}}}\n",
        "t.map:2:48: total must be between 0 and 2000000000, not 2000000001",
        "a total past the bound");
    bad("node_types: {g: {}}\nfabric: {counters: {LinkDownedCounter: {rising: -1}}}\n",
        "t.map:2:49: rising must be between 0 and 2000000000, not -1", "a negative rising");
    bad("node_types: {g: {}}\nfabric: {counters: {LinkDownedCounter: {totl: 1}}}\n",
        "t.map:2:41: unknown key 'totl' in a counter (did you mean 'total'?)",
        "a counter's key misspelled");
    bad("node_types: {g: {}}\nfabric: {counters: {LinkDownedCounter: 5}}\n",
        "t.map:2:40: a counter's limits must be a mapping, not a scalar",
        "a counter's limits as a number");
    bad("node_types: {g: {}}\nfabric: {counters: [LinkDownedCounter]}\n",
        "t.map:2:20: counters must be a mapping, not a list", "counters as a list");
    bad("node_types: {g: {}}\nfabric: {sped: NDR}\n",
        "t.map:2:10: unknown key 'sped' in fabric (did you mean 'speed'?)",
        "a fabric key misspelled");
    bad("node_types: {g: {}}\nfabric: NDR\n", "t.map:2:9: fabric must be a mapping, not a scalar",
        "fabric as a word");
    m = good("node_types: {g: {}}\nfabric: {expect: a.topo, expect: b.topo}\n",
             "expect given twice");
    if (m)
        is_str(m->fabric.expect, "b.topo", "...the last one counts");
    topo_map_destroy(m);
}

static void test_structure(void)
{
    struct topo_map *m;

    /* the nearest key: within three edits and shorter than the key */
    bad("clustr: x\nnode_types: {g: {}}\n",
        "t.map:1:1: unknown key 'clustr' in the map (did you mean 'cluster'?)",
        "one edit away: suggested");
    bad("NODES: {n1: g}\nnode_types: {g: {}}\n",
        "t.map:1:1: unknown key 'NODES' in the map (did you mean 'nodes'?)",
        "the case alone differs: suggested");
    bad("rial: {}\nnode_types: {g: {}}\n",
        "t.map:1:1: unknown key 'rial' in the map (did you mean 'rails'?)",
        "two edits away: suggested");
    bad("fabricxyz: {}\nnode_types: {g: {}}\n",
        "t.map:1:1: unknown key 'fabricxyz' in the map (did you mean 'fabric'?)",
        "three edits away: suggested");
    bad("fabricwxyz: {}\nnode_types: {g: {}}\n",
        "t.map:1:1: unknown key 'fabricwxyz' in the map (valid keys: cluster, node_types, nodes, "
        "rails, fabric, "
        "severity, ignore, watch)",
        "four edits away: the list of keys");
    bad("ab: {}\nnode_types: {g: {}}\n",
        "t.map:1:1: unknown key 'ab' in the map (valid keys: cluster, node_types, nodes, rails, "
        "fabric, severity, "
        "ignore, watch)",
        "as many edits as the key has letters: the list, not a guess");
    bad(GPUS("links: 18"), "t.map:3:12: unknown key 'links' in gpus (did you mean 'nvlink'?)",
        "links outside nvlink: nvlink suggested");
    bad(GPUS("nvlinks_per_gpu: 18"),
        "t.map:3:12: unknown key 'nvlinks_per_gpu' in gpus (valid keys: count, model, pci_id, "
        "compute_capability, "
        "pcie, nvlink)",
        "a gpus key far from all: the list of the gpus keys");
    bad(GPUS("pcie: {abc: 1}"),
        "t.map:3:19: unknown key 'abc' in gpus.pcie (valid keys: gen, width)",
        "as many edits from a key (gen) as it has letters: the list, not a guess");
    bad(GPUS("pci_id: [10de, 2330]"), "t.map:3:20: pci_id must be a scalar, not a list",
        "a PCI id as a list");
    bad(GPUS("compute_capability: {major: 9}"),
        "t.map:3:32: compute_capability must be a scalar, not a mapping",
        "a capability as a mapping");
    bad(GPUS("nvlink: {link: 18}"),
        "t.map:3:21: unknown key 'link' in gpus.nvlink (did you mean 'links'?)",
        "a key of gpus.nvlink misspelled");
    bad(GPUS("nvlink: 18"), "t.map:3:20: nvlink must be a mapping, not a scalar",
        "nvlink given as a number");
    bad(GPUS("nvlink: {[a]: 1}"), "t.map:3:21: a key must be a scalar, not a list",
        "a key of gpus.nvlink that is a list");
    bad(TYPE("    gpus: [8]\n"), "t.map:3:11: gpus must be a mapping, not a list",
        "gpus as a list");
    bad(NIC("name: a, nmae: b"),
        "t.map:4:19: unknown key 'nmae' in a NIC entry (did you mean 'name'?)",
        "a NIC key misspelled");
    bad(NIC("rail: 0"), "t.map:4:9: a NIC entry needs a name", "a NIC without a name");
    bad(TYPE("    nics:\n      - mlx5_0\n"),
        "t.map:4:9: a NIC entry must be a mapping, not a scalar", "a NIC given as a name");
    bad(TYPE("    nics: {name: a}\n"), "t.map:3:11: nics must be a list, not a mapping",
        "nics as a mapping");
    bad(TYPE("    nic: []\n"), "t.map:3:5: unknown key 'nic' in a node type (did you mean 'nics'?)",
        "a node type key misspelled");
    bad(TYPE("    [a]: 1\n"), "t.map:3:5: a key must be a scalar, not a list",
        "a key of a node type that is a list");
    bad("node_types:\n  g: [a]\n", "t.map:2:6: a node type must be a mapping, not a list",
        "a node type as a list");
    bad("node_types:\n  g: {}\n  g: {}\n", "t.map:3:3: node type 'g' is defined twice",
        "a node type twice");
    bad("node_types:\n  g: {nics: [{port: 1}]}\n  h: {}\n", "t.map:2:14: a NIC entry needs a name",
        "a bad node type before a good one: refused");
    bad("node_types: [g]\n", "t.map:1:13: node_types must be a mapping, not a list",
        "node_types as a list");
    bad("node_types:\n  {a: 1}: {}\n", "t.map:2:3: a key must be a scalar, not a mapping",
        "a node type named by a mapping");

    /* NICs: a name and port once each; near_gpu within the GPUs */
    bad(NIC("name: a, port: 2}\n      - {name: a, port: 2"),
        "t.map:5:9: NIC a port 2 is listed twice in node type 'g'", "a NIC port twice");
    m = good(NIC("name: a, port: 1}\n      - {name: a, port: 2}\n      - {name: b, port: 1"),
             "one NIC's two ports, and another NIC's port 1");
    topo_map_destroy(m);
    bad(TYPE("    gpus: {count: 4}\n    nics:\n      - {name: a, near_gpu: 4}\n"),
        "t.map:5:9: NIC a: near_gpu 4 but the type has 4 GPUs", "near_gpu as many as the GPUs");
    bad(TYPE("    gpus: {count: 0}\n    nics:\n      - {name: a, near_gpu: 0}\n"),
        "t.map:5:9: NIC a: near_gpu 0 but the type has 0 GPUs", "near_gpu 0 in a type of no GPU");
    m = good(TYPE("    gpus: {count: 4}\n    nics:\n      - {name: a, near_gpu: 3}\n"),
             "near_gpu the last GPU");
    topo_map_destroy(m);
    m = good(TYPE("    nics:\n      - {name: a, near_gpu: 7}\n"),
             "near_gpu where the type gives no count");
    topo_map_destroy(m);
    bad(TYPE(
            "    nics:\n      - {name: a}\n      - {name: b, near_gpu: 2}\n    gpus: {count: 2}\n"),
        "t.map:5:9: NIC b: near_gpu 2 but the type has 2 GPUs",
        "near_gpu checked when gpus comes after the NICs");

    /* ignore lists */
    bad(TYPE("    ignore: [a, [b]]\n"), "t.map:3:17: ignore must be a scalar, not a list",
        "a list inside ignore");
    bad("ignore: {a: 1}\nnode_types: {g: {}}\n", "t.map:1:9: ignore must be a list, not a mapping",
        "the cluster's ignore as a mapping");

    /* nodes */
    bad("node_types: {g: {}}\nnodes:\n  n[1-: g\n",
        "t.map:3:3: bad host list 'n[1-': unbalanced '[' in 'n[1-'",
        "a bad host list, with its reason");
    bad("node_types: {g: {}}\nnodes:\n  n1: [g]\n",
        "t.map:3:7: a node type name must be a scalar, not a list", "a node's type as a list");
    bad("node_types: {g: {}}\nnodes:\n  [n1]: g\n", "t.map:3:3: a key must be a scalar, not a list",
        "a host list that is a list");
    bad("node_types: {g: {}}\nnodes: [n1]\n", "t.map:2:8: nodes must be a mapping, not a list",
        "nodes as a list");
    bad("node_types: {g: {}, h: {}}\nnodes:\n  n1: g\n  n2: k\n",
        "t.map:4:7: node type 'k' is not defined in node_types",
        "a node of a type not defined (the second)");
    m = good("node_types: {g: {}, h: {}}\nnodes:\n  n1: h\n  n2: g\n",
             "nodes of each type, the second type first");
    topo_map_destroy(m);

    /* rails */
    bad(NIC("name: a, rail: 1") "rails:\n  0:\n  1:\n",
        "t.map:8:3: rail 0 has no NIC (no node type's nics use it)", "a rail that no NIC uses");
    bad(NIC("name: a, rail: 0}\n      - {name: b, rail: 1") "rails:\n  1:\n",
        "t.map:4:9: NIC a is on rail 0, which rails: does not declare",
        "a NIC on rail 0, undeclared");
    bad(NIC("name: a, rail: 1}\n      - {name: b, rail: 2") "rails:\n  1:\n",
        "t.map:5:9: NIC b is on rail 2, which rails: does not declare",
        "a NIC on an undeclared rail (the second)");
    m = good(NIC("name: a, rail: 1}\n      - {name: b") "rails:\n  1:\n",
             "a NIC without a rail beside declared rails");
    topo_map_destroy(m);
    m = good(NIC("name: a, rail: 5"), "a NIC's rail with no rails section");
    topo_map_destroy(m);
    m = good("node_types:\n  g: {}\n  h: {nics: [{name: a, rail: 0}]}\nrails: {0: }\n",
             "a rail used by the second type only");
    topo_map_destroy(m);
    bad(NIC("name: a, rail: 0") "rails:\n  0:\n  0:\n", "t.map:9:3: rail 0 is declared twice",
        "a rail twice");
    bad(NIC("name: a, rail: 0") "rails:\n  1024:\n",
        "t.map:8:3: a rail id must be between 0 and 1023, not 1024", "rail id 1024");
    bad(NIC("name: a, rail: 0") "rails:\n  zero:\n",
        "t.map:8:3: a rail id must be an integer, not 'zero'", "a rail id that is a word");
    bad(NIC("name: a, rail: 0") "rails:\n  0: leaf1\n",
        "t.map:8:6: a rail must be a mapping, not a scalar", "a rail given a bare word");
    bad(NIC("name: a, rail: 0") "rails:\n  0: {switch: [a]}\n",
        "t.map:8:7: unknown key 'switch' in a rail (did you mean 'switches'?)",
        "a rail key misspelled");
    bad(NIC("name: a, rail: 0") "rails:\n  0: {switches: {a: 1}}\n",
        "t.map:8:17: switches must be a list, not a mapping", "switches as a mapping");
    m = good(NIC("name: a, rail: 0") "rails:\n  0: {switches: leaf1}\n", "one switch as a word");
    if (m)
        ok(m->nrails == 1 && m->rails[0].nswitches == 1 &&
               !strcmp(m->rails[0].switches[0], "leaf1"),
           "...kept");
    topo_map_destroy(m);
    bad(NIC("name: a, rail: 0") "rails: [0]\n", "t.map:7:8: rails must be a mapping, not a list",
        "rails as a list");

    /* a key that is not a word, in every section: refused where it is */
    bad(TYPE("    severity: {[a]: warn}\n"), "t.map:3:16: a key must be a scalar, not a list",
        "a severity's key");
    bad(GPUS("pcie: {[a]: 1}"), "t.map:3:19: a key must be a scalar, not a list",
        "a key of gpus.pcie");
    bad(NIC("name: a, [b]: 1"), "t.map:4:19: a key must be a scalar, not a list",
        "a key of a NIC entry");
    bad(GPUS("[a]: 1"), "t.map:3:12: a key must be a scalar, not a list", "a key of gpus");
    bad(TYPE("    thresholds: {[a]: 1}\n"), "t.map:3:18: a key must be a scalar, not a list",
        "a key of thresholds");
    bad(NIC("name: a, rail: 0") "rails:\n  [0]: {}\n",
        "t.map:8:3: a key must be a scalar, not a list", "a rail's id as a list");
    bad(NIC("name: a, rail: 0") "rails:\n  0: {[a]: 1}\n",
        "t.map:8:7: a key must be a scalar, not a list", "a key of a rail");
    bad("node_types: {g: {}}\nfabric: {counters: {[a]: {total: 1}}}\n",
        "t.map:2:21: a key must be a scalar, not a list", "a counter's name as a list");
    bad("node_types: {g: {}}\nfabric: {counters: {LinkDownedCounter: {[a]: 1}}}\n",
        "t.map:2:41: a key must be a scalar, not a list", "a key of a counter's limits");
    bad("node_types: {g: {}}\nfabric: {[a]: 1}\n", "t.map:2:10: a key must be a scalar, not a list",
        "a key of fabric");
    bad("severity: {[a]: warn}\nnode_types: {g: {}}\n",
        "t.map:1:12: a key must be a scalar, not a list", "a key of the cluster's severity");

    /* the map as a whole */
    bad("", "t.map: empty map", "an empty file");
    bad("# nothing\n", "t.map: empty map", "a file of comments");
    bad("[a, b]\n", "t.map:1:1: the map must be a mapping, not a list", "a list");
    bad("cluster: c\n", "t.map: no node_types: a map describes at least one node type",
        "no node types");
    bad("node_types: {}\n", "t.map: no node_types: a map describes at least one node type",
        "node_types empty");
    bad("cluster: [a]\nnode_types: {g: {}}\n", "t.map:1:10: cluster must be a scalar, not a list",
        "a cluster name as a list");
    bad("node_types: {g: {}\n",
        "t.map:2:1: malformed YAML: did not find expected ',' or '}' while parsing a flow mapping",
        "malformed YAML: where and why");
    bad("node_types: {g: {}}\n[a]: 1\n", "t.map:2:1: a key must be a scalar, not a list",
        "a top-level key that is a list");
    m = good("cluster: 'c: 1'\nnode_types: {g: {}}\n", "a quoted cluster name with a colon");
    if (m)
        is_str(m->cluster, "c: 1", "...kept whole");
    topo_map_destroy(m);
}

static void test_file(void)
{
    ry_error_t err;
    char path[] = "/tmp/railyard-test-map.XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    struct topo_map *m;
    char want[600];

    if (!f) {
        ok(0, "a temporary file");
        return;
    }
    fputs("node_types:\n  g: {nics: [{name: a, port: 0}]}\n", f);
    fclose(f);
    m = topo_map_load(path, &err);
    snprintf(want, sizeof(want), "%s:2:30: port must be between 1 and 255, not 0", path);
    ok(m == NULL && !strcmp(err.text, want), "a file's error names the file: %s", err.text);
    unlink(path);
    m = topo_map_load(path, &err);
    ok(m == NULL && strstr(err.text, path) != NULL, "a file that is not there: named (%s)",
       err.text);
}

int main(void)
{
    test_full_map();
    test_numbers();
    test_words();
    test_structure();
    test_file();
    return done_testing();
}

#else

int main(void)
{
    skip_all("built without libyaml: no maps");
}

#endif
