/* railyard top's model and layout, without a terminal: rates from two samples, judgements,
 * sort and filter, the rails grid, empty views saying why, hostile strings made inert, and the
 * layout cut to the width it is given. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readers/nvml.h"
#include "tests/tap/tap.h"
#include "top/source.h"
#include "top/top.h"

static struct top_port *port(struct top_model *m, const char *node, const char *dev, int rail,
                             enum top_state st)
{
    struct top_port *p = top_model_port(m, node, dev, 1);
    p->rail = rail;
    p->state = st;
    snprintf(p->state_text, sizeof(p->state_text), "%s", st == TOP_STATE_UP ? "ACTIVE" : "DOWN");
    p->rate_gbps = 400;
    return p;
}

static const char *find_line(struct top_line *l, size_t n, const char *needle)
{
    for (size_t i = 0; i < n; i++)
        if (strstr(l[i].text, needle))
            return l[i].text;
    return NULL;
}

static int line_sev(struct top_line *l, size_t n, const char *needle)
{
    for (size_t i = 0; i < n; i++)
        if (strstr(l[i].text, needle))
            return (int)l[i].sev;
    return -1;
}

int main(void)
{
    struct top_model m;
    struct top_line lines[64], head[2], foot;
    struct top_port *a, *b, *c;
    size_t n;
    char buf[16];

    top_model_init(&m);
    snprintf(m.source, sizeof(m.source), "test");

    /* empty: the view says why */
    snprintf(m.empty_why, sizeof(m.empty_why), "no RDMA device under /sys/class/infiniband");
    top_model_derive(&m);
    top_model_view(&m);
    n = top_layout_view(&m, 120, lines, 64);
    is_int((long long)n, 2, "an empty ports view: the column header and one line");
    is_str(lines[1].text, "no RDMA device under /sys/class/infiniband",
           "...saying why it is empty");
    m.view = TOP_VIEW_RAILS;
    n = top_layout_view(&m, 120, lines, 64);
    ok(n == 2 && strstr(lines[1].text, "no RDMA device") != NULL, "the rails view says the same");
    m.view = TOP_VIEW_PORTS;

    /* three ports, two samples a second apart */
    a = port(&m, "gpu02", "mlx5_0", 0, TOP_STATE_UP);
    b = port(&m, "gpu10", "mlx5_1", 1, TOP_STATE_UP);
    c = port(&m, "gpu01", "mlx5_1", 1, TOP_STATE_DOWN);
    is_int((long long)m.n, 3, "three ports");
    ok(top_model_port(&m, "gpu02", "mlx5_0", 1) == a, "a port is found again, not added");
    top_port_sample(a, 10.0, 0, 0, 5, "SymbolErrorCounter=5");
    top_port_sample(b, 10.0, 1000, 1000, 0, "");
    top_model_derive(&m);
    ok(isnan(a->tx_gbps) && isnan(a->err_per_s), "one sample: rates are n/a");
    top_port_sample(a, 11.0, 50000000000ULL / 8, 25000000000ULL / 8, 5, "SymbolErrorCounter=5");
    top_port_sample(b, 10.5, 1000 + 12500000, 1000, 3, "PortRcvErrors=3");
    top_model_derive(&m);
    ok(fabs(a->tx_gbps - 50) < 1e-9 && fabs(a->rx_gbps - 25) < 1e-9,
       "TX 50 and RX 25 Gb/s from the deltas");
    ok(a->err_per_s == 0 && a->sev == TOP_OK, "errors that did not rise: the port is fine");
    ok(fabs(b->err_per_s - 6) < 1e-9, "3 errors in 0.5 s: 6/s");
    is_int(b->sev, TOP_FAIL, "errors rising: fail");
    is_str(b->why, "errors rising: PortRcvErrors +3", "...naming the counter and the rise");
    is_int(c->sev, TOP_FAIL, "a port down: fail");
    ok(fabs(b->tx_gbps - 0.2) < 1e-9, "12.5 MB in 0.5 s: 0.2 Gb/s");
    /* a counter that went backwards (reset): no negative rate */
    top_port_sample(a, 12.0, 10, 10, 0, "");
    top_model_derive(&m);
    ok(isnan(a->tx_gbps) && a->err_per_s == 0, "counters reset: rate n/a, no negative errors");

    /* expected rate and cabling */
    a->expect_gbps = 800;
    top_model_derive(&m);
    is_int(a->sev, TOP_WARN, "trained below the map's rate: warn");
    a->expect_gbps = NAN;
    a->peer_rail = 2;
    snprintf(a->peer, sizeof(a->peer), "leaf-r2-0:7");
    top_model_derive(&m);
    is_int(a->sev, TOP_FAIL, "cabled to another rail's leaf: fail");
    ok(strstr(a->why, "leaf-r2-0:7, a leaf of rail 2") != NULL, "...naming the leaf: %s", a->why);

    /* sort and filter */
    top_model_view(&m);
    n = top_layout_view(&m, 120, lines, 64);
    is_int((long long)n, 4, "the header and three rows");
    ok(lines[0].header && strstr(lines[0].text, "NODE") && strstr(lines[0].text, "ERR/s"),
       "column header");
    ok(strstr(lines[1].text, "gpu01") && strstr(lines[2].text, "gpu02") &&
           strstr(lines[3].text, "gpu10"),
       "sorted by node in natural order (gpu2 before gpu10)");
    m.sort = TOP_SORT_ERRORS;
    top_model_view(&m);
    n = top_layout_view(&m, 120, lines, 64);
    ok(strstr(lines[1].text, "gpu10") != NULL, "sorted by errors: the erroring port first");
    m.reverse = 1;
    top_model_view(&m);
    n = top_layout_view(&m, 120, lines, 64);
    ok(strstr(lines[n - 1].text, "gpu10") == NULL && strstr(lines[1].text, "gpu10") == NULL,
       "reversed: the erroring port is not first");
    m.reverse = 0;
    m.sort = TOP_SORT_NODE;
    snprintf(m.filter, sizeof(m.filter), "gpu02");
    top_model_view(&m);
    n = top_layout_view(&m, 120, lines, 64);
    ok(n == 2 && strstr(lines[1].text, "gpu02"), "filter gpu02: one row");
    snprintf(m.filter, sizeof(m.filter), "rail1");
    top_model_view(&m);
    is_int((long long)m.nshown, 2, "filter rail1: the two rail-1 ports");
    snprintf(m.filter, sizeof(m.filter), "nothing");
    top_model_view(&m);
    n = top_layout_view(&m, 120, lines, 64);
    ok(n == 2 && strstr(lines[1].text, "no port matches"), "a filter that matches nothing says so");
    m.filter[0] = '\0';
    top_model_view(&m);

    /* colours follow the judgement */
    n = top_layout_view(&m, 120, lines, 64);
    is_int(line_sev(lines, n, "gpu10"), TOP_FAIL, "the erroring row is red");
    is_int(line_sev(lines, n, "gpu01"), TOP_FAIL, "the down row is red");
    ok(find_line(lines, n, "n/a") != NULL, "unknown values are shown as n/a");

    /* rails view: nodes x rails, the miscabled port marked */
    m.view = TOP_VIEW_RAILS;
    n = top_layout_view(&m, 120, lines, 64);
    ok(strstr(lines[0].text, "rail0") && strstr(lines[0].text, "rail1"),
       "rails header: rail0 rail1");
    ok(find_line(lines, n, "X>r2") != NULL, "the port on rail 2's leaf: X>r2");
    ok(find_line(lines, n, "DOWN") != NULL, "the down port: DOWN");
    ok(find_line(lines, n, "ERR") != NULL, "the erroring port: ERR");

    /* findings view: fails first, source findings too */
    top_model_add_finding(&m, TOP_WARN, "link.speed", "gpu03/mlx5_0:1", "EDR, expected HDR");
    m.view = TOP_VIEW_FINDINGS;
    n = top_layout_view(&m, 120, lines, 64);
    ok(n == 5 && strncmp(lines[1].text, "FAIL", 4) == 0 && strncmp(lines[4].text, "WARN", 4) == 0,
       "findings: three failures, then the warning");
    top_layout_header(&m, 120, head);
    ok(strstr(head[0].text, "ports up 2/3") != NULL, "header: ports up 2/3 (%s)", head[0].text);
    ok(strstr(head[1].text, "3 fail, 1 warn") != NULL, "header: 3 fail, 1 warn");
    top_layout_footer(&m, 120, &foot);
    ok(strstr(foot.text, "[findings]") && strstr(foot.text, "q quit"),
       "footer: the view and the keys");

    /* hostile strings and width */
    m.view = TOP_VIEW_PORTS;
    port(&m, "evil\033[31mnode", "mlx5_9", 3, TOP_STATE_UP);
    top_model_derive(&m);
    top_model_view(&m);
    n = top_layout_view(&m, 200, lines, 64);
    ok(find_line(lines, n, "evil\\x1b[31m") != NULL,
       "an escape sequence in a name is shown as \\x1b");
    ok(find_line(lines, n, "\033") == NULL, "...and never reaches the terminal");
    n = top_layout_view(&m, 20, lines, 64);
    ok(strlen(lines[1].text) <= 20, "lines are cut to the width (20)");
    n = top_layout_view(&m, 0, lines, 64);
    ok(lines[0].text[0] == '\0', "width 0: nothing drawn, no crash");
    is_int((long long)top_layout_view(&m, 80, lines, 2), 2, "at most max lines");
    /* the pair matrix of --follow */
    m.view = TOP_VIEW_MATRIX;
    n = top_layout_view(&m, 120, lines, 64);
    ok(n == 2 && strstr(lines[0].text, "no pair matrix"), "matrix without --follow: says so");
    m.mnodes = 3;
    m.mrails = 1;
    m.mnames = calloc(3, sizeof(*m.mnames));
    m.matrix = calloc(9, 1);
    snprintf(m.mnames[0], sizeof(m.mnames[0]), "n1");
    snprintf(m.mnames[1], sizeof(m.mnames[1]), "n2");
    snprintf(m.mnames[2], sizeof(m.mnames[2]), "n3");
    m.matrix[0 * 3 + 1] = TOP_CELL_GOOD;
    m.matrix[1 * 3 + 2] = TOP_CELL_LOW;
    m.matrix[2 * 3 + 0] = TOP_CELL_FAILED;
    snprintf(m.progress, sizeof(m.progress), "round 1/2");
    n = top_layout_view(&m, 120, lines, 64);
    is_int((long long)n, 8, "matrix: progress, legend (two lines), rail header, ruler, three rows");
    is_str(lines[2].text, ". not yet", "a run in progress: '.' is not yet measured");
    is_str(lines[4].text, "                   012", "the columns carry the node indexes");
    ok(!strcmp(lines[5].text, "0 n1                #.") && lines[5].sev == TOP_OK,
       "row 0 n1: good to n2, not yet to n3: %s", lines[5].text);
    ok(!strcmp(lines[6].text, "1 n2               . -") && lines[6].sev == TOP_FAIL,
       "row 1 n2: low to n3, red");
    ok(!strcmp(lines[7].text, "2 n3               X. ") && lines[7].sev == TOP_FAIL,
       "row 2 n3: failed to n1, red");
    m.mcomplete = 1; /* all-pairs: one direction of each pair, n1-n2, n2-n3, n3-n1 */
    n = top_layout_view(&m, 120, lines, 64);
    is_str(lines[2].text, ". not measured: this run measured one direction of each pair",
           "a finished one-direction run says what '.' means");
    m.matrix[1 * 3 + 0] = TOP_CELL_GOOD;
    n = top_layout_view(&m, 120, lines, 64);
    is_str(lines[2].text, ". not measured in this run", "a finished run measuring both ways");
    {
        /* 12 nodes: two ruler lines, the tens above the units */
        struct top_model big;
        top_model_init(&big);
        big.view = TOP_VIEW_MATRIX;
        big.mnodes = 12, big.mrails = 1, big.mcomplete = 1;
        big.mnames = calloc(12, sizeof(*big.mnames));
        big.matrix = calloc(144, 1);
        for (int k = 0; k < 12; k++)
            snprintf(big.mnames[k], sizeof(big.mnames[k]), "node%02d", k + 1);
        n = top_layout_view(&big, 120, lines, 64);
        ok(!strcmp(lines[4].text, "                              11") &&
               !strcmp(lines[5].text, "                    012345678901") &&
               !strncmp(lines[17].text, "11 node12", 9),
           "12 nodes: a two-line ruler (%s|%s), rows numbered to 11 (%s)", lines[4].text,
           lines[5].text, lines[17].text);
        top_model_free(&big);
    }
    is_str(top_fmt_gbps(NAN, buf, sizeof(buf)), "n/a", "n/a for an unknown rate");
    is_str(top_fmt_gbps(399.96, buf, sizeof(buf)), "400", "400 for 399.96");
    /* the NVLink view: why it is empty, then links with their rates, errors and state */
    m.view = TOP_VIEW_NVLINK;
    snprintf(m.nvlink_why, sizeof(m.nvlink_why), "NVLink: n/a, no NVIDIA driver (test)");
    n = top_layout_view(&m, 120, lines, 64);
    ok(n == 2 && !strcmp(lines[1].text, "NVLink: n/a, no NVIDIA driver (test)"),
       "NVLink view without a driver: the reason");
    {
        struct top_port *l0 = top_model_nvlink(&m, "GPU0 0000:18:00.0", 0);
        struct top_port *l1 = top_model_nvlink(&m, "GPU0 0000:18:00.0", 1);
        struct top_port *l2 = top_model_nvlink(&m, "GPU1 0000:2a:00.0", 0);
        ok(top_model_nvlink(&m, "GPU0 0000:18:00.0", 1) == l1 && m.nnv == 3,
           "an NVLink link is found again by GPU and link");
        l0->state = l1->state = TOP_STATE_UP;
        l2->state = TOP_STATE_DOWN;
        snprintf(l2->state_text, sizeof(l2->state_text), "Down");
        snprintf(l0->peer, sizeof(l0->peer), "0000:c1:00.0 (NVSwitch)");
        /* 25 GB in 1 s sent on link 0; link 1's CRC flit errors rise by 3 */
        top_port_sample(l0, 10, 0, 0, 0, "replay=0 recovery=0 crc_flit=0 crc_data=0");
        top_port_sample(l0, 11, 25000000000ull, 1000000000ull, 0,
                        "replay=0 recovery=0 crc_flit=0 crc_data=0");
        top_port_sample(l1, 10, 0, 0, 5, "replay=0 recovery=0 crc_flit=5 crc_data=0");
        top_port_sample(l1, 11, 0, 0, 8, "replay=0 recovery=0 crc_flit=8 crc_data=0");
        top_model_derive(&m);
        n = top_layout_view(&m, 160, lines, 64);
        is_int((long long)n, 4, "NVLink view: header and three links");
        ok(find_line(lines, n, "nvlink0") && strstr(find_line(lines, n, "nvlink0"), " 200 ") &&
               strstr(find_line(lines, n, "nvlink0"), "8.00") &&
               strstr(find_line(lines, n, "nvlink0"), "(NVSwitch)") &&
               line_sev(lines, n, "nvlink0") == TOP_OK,
           "link 0: 200 Gb/s sent, 8 received, its NVSwitch named: %s",
           find_line(lines, n, "nvlink0"));
        is_int(line_sev(lines, n, "nvlink1"), TOP_FAIL, "link 1: errors rising, red");
        ok(find_line(lines, n, "crc_flit +3") != NULL, "...naming the counter and its rise");
        ok(line_sev(lines, n, "GPU1") == TOP_FAIL && find_line(lines, n, "link Down"),
           "a link that is down: red, said");
    }
    /* the NVLink rows from what the driver gives: a GPU pair on NVLink with one link down, and a
     * GPU whose links are all down (a PCIe card without its bridge) */
    {
        struct top_model nm;
        struct topo_nvlink_sample v[5];
        memset(v, 0, sizeof(v));
        for (int i = 0; i < 5; i++) {
            v[i].gpu = i < 3 ? 0 : i < 4 ? 1 : 2;
            v[i].link = i < 3 ? (unsigned)i : 0;
            snprintf(v[i].busid, sizeof(v[i].busid), "%s",
                     i < 3   ? "0000:18:00.0"
                     : i < 4 ? "0000:2a:00.0"
                             : "0000:3b:00.0");
            v[i].active = i != 1 && i != 4;
            v[i].have_data = 1;
            v[i].have_errors = 1 | 4; /* replay and CRC flit */
        }
        snprintf(v[0].remote, sizeof(v[0].remote), "0000:2a:00.0");
        snprintf(v[2].remote, sizeof(v[2].remote), "0000:c1:00.0");
        snprintf(v[3].remote, sizeof(v[3].remote), "ffffffff:ff:ff.0"); /* a Blackwell link */
        top_model_init(&nm);
        nm.view = TOP_VIEW_NVLINK;
        top_nvlink_rows(&nm, v, 5, 1.0);
        v[0].tx_kib = 1000000; /* 1,024,000,000 bytes in 1 s */
        v[2].errors[2] = 4;
        top_nvlink_rows(&nm, v, 5, 2.0);
        top_model_derive(&nm);
        n = top_layout_view(&nm, 200, lines, 64);
        is_int((long long)nm.nnv, 5, "NVLink rows: one per link the driver gives");
        ok(find_line(lines, n, "GPU0 0000:18:00.0        nvlink0") &&
               strstr(find_line(lines, n, "nvlink0"), "GPU1 0000:2a:00.0") &&
               strstr(find_line(lines, n, "nvlink0"), "8.19"),
           "a link to another GPU of the node names it; 8.19 Gb/s from the KiB counter: %s",
           find_line(lines, n, "nvlink0"));
        is_int(line_sev(lines, n, "nvlink1"), TOP_FAIL, "a link down beside links up: red");
        ok(find_line(lines, n, "GPU1 0000:2a:00.0        nvlink0") &&
               strstr(find_line(lines, n, "GPU1 0000:2a:00.0        nvlink0"), "NVSwitch fabric"),
           "a link to the switch fabric's one address (B200/GB200/GB300) names the fabric: %s",
           find_line(lines, n, "GPU1 0000:2a:00.0        nvlink0"));
        ok(find_line(lines, n, "0000:c1:00.0 (NVSwitch)") == NULL &&
               find_line(lines, n, "crc_flit +4"),
           "a rising CRC flit counter is named (and replaces the peer as the why)");
        ok(line_sev(lines, n, "GPU2") == TOP_OK &&
               find_line(lines, n, "no NVLink of this GPU is up"),
           "a GPU none of whose links is up is not judged, and said");
        /* P: the pair to probe */
        {
            char pa[32], pb[32];
            nm.view = TOP_VIEW_PORTS;
            ok(!top_p2p_select(&nm, pa, pb, sizeof(pa)) &&
                   strstr(nm.status, "from the NVLink view"),
               "P outside the NVLink view: says where it runs");
            nm.view = TOP_VIEW_NVLINK;
            nm.nv_selected = 0;
            ok(top_p2p_select(&nm, pa, pb, sizeof(pa)) && !strcmp(pa, "0000:18:00.0") &&
                   !strcmp(pb, "0000:2a:00.0"),
               "P on a link to another GPU: that pair (%s, %s)", pa, pb);
            nm.nv_selected = 3;
            ok(!top_p2p_select(&nm, pa, pb, sizeof(pa)) &&
                   strstr(nm.status, "GPU1 0000:2a:00.0 marked"),
               "P on a link to the switch fabric: its GPU is marked (%s)", nm.status);
            ok(!top_p2p_select(&nm, pa, pb, sizeof(pa)) && nm.p2p_mark[0],
               "P again on the same GPU: still waiting for the other");
            nm.nv_selected = 4;
            ok(top_p2p_select(&nm, pa, pb, sizeof(pa)) && !strcmp(pa, "0000:3b:00.0") &&
                   !strcmp(pb, "0000:2a:00.0") && !nm.p2p_mark[0],
               "P on another GPU's link: the marked GPU and this one (%s, %s)", pa, pb);
            nm.nv_selected = 2;
            ok(!top_p2p_select(&nm, pa, pb, sizeof(pa)) &&
                   strstr(nm.status, "GPU0 0000:18:00.0 marked"),
               "a link to a switch address: marked, not paired with the switch (%s)", nm.status);
        }
        top_model_free(&nm);
    }
    /* a source that could not be read: the header says so in red; a port whose counters were
     * not read is yellow with the reason */
    m.view = TOP_VIEW_PORTS;
    snprintf(m.source_error, sizeof(m.source_error), "no port answered a PMA counter query");
    top_layout_header(&m, 200, head);
    ok(strstr(head[1].text, "SOURCE NOT READ: no port answered") && head[1].sev == TOP_FAIL,
       "source not read: said on the header, red: %s", head[1].text);
    m.source_error[0] = '\0';
    {
        struct top_port *u = port(&m, "gpu09", "mlx5_0", 0, TOP_STATE_UP);
        snprintf(u->unread, sizeof(u->unread), "PortCounters query to LID 7 port 1 failed");
        top_model_derive(&m);
        top_model_view(&m);
        n = top_layout_view(&m, 200, lines, 64);
        ok(line_sev(lines, n, "gpu09") == TOP_WARN &&
               find_line(lines, n, "counters not read: PortCounters query to LID 7"),
           "a port not read: yellow, with why");
    }
    top_model_free(&m);

    /* a fabric's worth of ports: each found again in any order, none added twice, the hash
     * rebuilt as it grows; a name longer than a row keeps is found by its cut form */
    {
        char node[32], dev[16], longname[TOP_NAME + 40];
        size_t bad = 0;
        top_model_init(&m);
        for (int i = 0; i < 20000; i++) {
            snprintf(node, sizeof(node), "gpu%04d", i / 8);
            snprintf(dev, sizeof(dev), "mlx5_%d", i % 8);
            top_model_port(&m, node, dev, 1);
        }
        is_int((long long)m.n, 20000, "20000 ports added");
        for (int i = 19999; i >= 0; i -= 7) { /* backwards, skipping: never the hint */
            struct top_port *p;
            snprintf(node, sizeof(node), "gpu%04d", i / 8);
            snprintf(dev, sizeof(dev), "mlx5_%d", i % 8);
            p = top_model_port(&m, node, dev, 1);
            bad += strcmp(p->node, node) || strcmp(p->dev, dev) || p->port != 1;
        }
        is_int((long long)bad, 0, "...each found again out of order");
        is_int((long long)m.n, 20000, "...and none added twice");
        top_model_port(&m, "gpu0001", "mlx5_1", 2);
        is_int((long long)m.n, 20001, "another port number of the same HCA is another row");
        memset(longname, 'x', sizeof(longname) - 1);
        longname[sizeof(longname) - 1] = '\0';
        a = top_model_port(&m, longname, "mlx5_0", 1);
        ok(top_model_port(&m, longname, "mlx5_0", 1) == a && m.n == 20002,
           "a name past a row's width is found again (its cut form)");
        top_model_clear_ports(&m);
        is_int((long long)m.n, 0, "cleared: no port");
        top_model_port(&m, "gpu0000", "mlx5_0", 1);
        is_int((long long)m.n, 1, "...and a port after it is new");
        top_model_free(&m);
    }
    /* the names are ranked once, and again for a port added or a discovery that replaced them */
    {
        struct top_model mr;
        static const char *want1[] = { "gpu2", "gpu5", "gpu10" },
                          *want2[] = { "gpu2", "gpu3", "gpu5", "gpu10", "gpu11" },
                          *want3[] = { "gpu1", "gpu4", "gpu9", "gpu20", "gpu30" };
        int bad = 0;
        top_model_init(&mr);
        port(&mr, "gpu10", "mlx5_0", 0, TOP_STATE_UP);
        port(&mr, "gpu2", "mlx5_0", 0, TOP_STATE_UP);
        port(&mr, "gpu5", "mlx5_0", 0, TOP_STATE_UP);
        top_model_view(&mr);
        for (size_t i = 0; i < 3; i++)
            bad += mr.nshown != 3 || strcmp(mr.p[mr.order[i]].node, want1[i]);
        is_int(bad, 0, "ranked by name: gpu2, gpu5, gpu10");
        port(&mr, "gpu3", "mlx5_0", 0, TOP_STATE_UP); /* added after the first view */
        port(&mr, "gpu11", "mlx5_0", 0, TOP_STATE_UP);
        top_model_view(&mr);
        bad = 0;
        for (size_t i = 0; i < 5; i++)
            bad += mr.nshown != 5 || strcmp(mr.p[mr.order[i]].node, want2[i]);
        is_int(bad, 0, "ports added later take their places by name: gpu3 after gpu2, gpu11 last");
        top_model_clear_ports(&mr); /* a new discovery: as many ports, other names */
        port(&mr, "gpu20", "mlx5_0", 0, TOP_STATE_UP);
        port(&mr, "gpu9", "mlx5_0", 0, TOP_STATE_UP);
        port(&mr, "gpu1", "mlx5_0", 0, TOP_STATE_UP);
        port(&mr, "gpu4", "mlx5_0", 0, TOP_STATE_UP);
        port(&mr, "gpu30", "mlx5_0", 0, TOP_STATE_UP);
        top_model_view(&mr);
        bad = 0;
        for (size_t i = 0; i < 5; i++)
            bad += mr.nshown != 5 || strcmp(mr.p[mr.order[i]].node, want3[i]);
        is_int(bad, 0,
               "after a new discovery of as many ports: ranked again (gpu1, gpu4, gpu9, gpu20, "
               "gpu30)");
        top_model_free(&mr);
    }
    return done_testing();
}
