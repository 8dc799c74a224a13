#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/file.h"
#include "common/xmalloc.h"
#include "readers/pastes.h"
#include "topo/iba.h"

/* close f; a file without a line is an error too */
static int finish(FILE *f, int rc, int lines, const char *path, const char *why_empty,
                  ry_error_t *err)
{
    fclose(f);
    if (rc == 0 && lines == 0) {
        errno = EINVAL;
        rc = ry_errorf(err, "%s: empty file%s", path, why_empty);
    }
    return rc;
}

static struct topo_nic *nic_named(struct topo_node *node, const char *name)
{
    struct topo_nic *n = topo_node_nic_by_name(node, name);

    if (!n) {
        n = topo_node_add_nic(node);
        n->name = xstrdup(name);
    }
    n->rdma = 1;
    return n;
}

static struct topo_port *port_num(struct topo_nic *nic, int num)
{
    for (size_t i = 0; i < nic->nports; i++)
        if (nic->ports[i].num == num)
            return &nic->ports[i];
    struct topo_port *p = topo_nic_add_port(nic);
    p->num = num;
    return p;
}

static const char *const ib_states[] = { "NOP", "DOWN", "INIT", "ARMED", "ACTIVE" };

/* ibstat spells states as words ("Active", "Initializing"), ibstatus as "4: ACTIVE" */
static void set_state(struct topo_port *p, const char *v)
{
    static const struct {
        const char *word;
        int num;
    } words[] = {
        { "Down", 1 }, { "Initializing", 2 }, { "Init", 2 }, { "Armed", 3 }, { "Active", 4 }
    };
    int num = -1;

    if (isdigit((unsigned char)v[0]))
        num = atoi(v);
    for (size_t i = 0; num < 0 && i < sizeof(words) / sizeof(words[0]); i++)
        if (!strcasecmp(v, words[i].word))
            num = words[i].num;
    p->state = num;
    free(p->state_str);
    p->state_str = xstrdup(num >= 0 && num <= 4 ? ib_states[num] : v);
}

static void set_phys(struct topo_port *p, const char *v)
{
    int num = -1;
    const char *name = v;

    if (isdigit((unsigned char)v[0])) {
        num = atoi(v);
        if ((name = strchr(v, ':')))
            name = ry_trim((char *)name + 1);
        else
            name = v;
    } else
        for (int i = 0; i < 8; i++)
            if (!strcasecmp(v, ibf_phys_names[i]))
                num = i;
    if (num < 0 && !strncasecmp(v, "Phy Test", 8))
        num = 7;
    p->phys_state = num;
    free(p->phys_str);
    p->phys_str = xstrdup(num >= 0 && num <= 7 ? ibf_phys_names[num] : name);
}

int topo_ibstat_read(struct topo_node *node, const char *path, ry_error_t *err)
{
    struct topo_nic *nic = NULL;
    struct topo_port *port = NULL;
    char line[512];
    int lineno = 0, rc = 0;
    FILE *f;

    if (!(f = fopen(path, "r")))
        return ry_errorf(err, "cannot open %s: %s", path, strerror(errno));
    while (rc == 0 && fgets(line, sizeof(line), f)) {
        char name[128], *s = ry_paste_line(line), *colon, *v;
        int num;
        lineno++;
        if (!*s)
            continue;
        if (sscanf(s, "CA '%127[^']'", name) == 1) {
            nic = nic_named(node, name);
            port = NULL;
            continue;
        }
        if (sscanf(s, "Infiniband device '%127[^']' port %d", name, &num) == 2) {
            nic = nic_named(node, name);
            port = port_num(nic, num);
            continue;
        }
        if (!strncmp(s, "ibpanic:", 8)) {
            char *q = strstr(s, "IB device '");
            if (q && sscanf(q, "IB device '%127[^']'", name) == 1) {
                node->missing_nics =
                    xrealloc(node->missing_nics, (node->nmissing_nics + 1) * sizeof(char *));
                node->missing_nics[node->nmissing_nics++] = xstrdup(name);
            }
            continue;
        }
        if (sscanf(s, "Port %d:", &num) == 1 && nic) {
            port = port_num(nic, num);
            continue;
        }
        if (!(colon = strchr(s, ':')) || !nic) {
            errno = EINVAL;
            rc = ry_errorf(err, "%s:%d: not ibstat or ibstatus output: '%.60s'", path, lineno, s);
            break;
        }
        *colon = '\0';
        v = ry_trim(colon + 1);
        if (!strcmp(s, "CA type"))
            free(nic->hca_type), nic->hca_type = xstrdup(v);
        else if (!strcmp(s, "Firmware version"))
            free(nic->fw_ver), nic->fw_ver = xstrdup(v);
        else if (!strcmp(s, "Node GUID"))
            free(nic->node_guid), nic->node_guid = xstrdup(v);
        else if (!port)
            continue; /* other device lines: Number of ports, Hardware version... */
        else if (!strcasecmp(s, "State") || !strcmp(s, "state"))
            set_state(port, v);
        else if (!strcasecmp(s, "Physical state") || !strcmp(s, "phys state"))
            set_phys(port, v);
        else if (!strcasecmp(s, "Rate")) {
            double g;
            int w;
            char *speed;
            char *end;
            if (topo_ib_parse_rate(v, &g, &w, &speed) == 0) {
                port->rate_gbps = g;
                port->width = w;
                free(port->speed);
                port->speed = speed;
            } else if ((g = strtod(v, &end)) >= 0 && end != v && *ry_trim(end) == '\0')
                port->rate_gbps = g; /* ibstat: "Rate: 400" */
            else {
                errno = EINVAL;
                rc = ry_errorf(err, "%s:%d: rate '%s' is not a number", path, lineno, v);
            }
        } else if (!strcasecmp(s, "Link layer") || !strcmp(s, "link_layer"))
            port->link_layer = !strcmp(v, "InfiniBand") ? TOPO_LL_INFINIBAND
                               : !strcmp(v, "Ethernet") ? TOPO_LL_ETHERNET
                                                        : TOPO_LL_UNKNOWN;
        else if (!strcasecmp(s, "Base lid"))
            port->lid = (int)strtol(v, NULL, 0);
    }
    rc = finish(f, rc, lineno, path, "", err);
    if (rc == 0) {
        node->nics_listed = 1;
        topo_node_add_source(node, "ibstat %s", path);
    }
    return rc;
}

int topo_nvlink_status_read(struct topo_node *node, const char *path, ry_error_t *err)
{
    struct topo_gpu *g = NULL;
    char line[512];
    int lineno = 0, rc = 0, gpu_lines = 0;
    FILE *f;

    if (!(f = fopen(path, "r")))
        return ry_errorf(err, "cannot open %s: %s", path, strerror(errno));
    while (rc == 0 && fgets(line, sizeof(line), f)) {
        char *s = ry_paste_line(line), model[160];
        unsigned idx, link;
        lineno++;
        if (!*s)
            continue;
        if (sscanf(s, "GPU %u: %159[^(]", &idx, model) == 2) {
            if (idx > 1024) {
                errno = EINVAL;
                rc = ry_errorf(err, "%s:%d: GPU index %u out of range", path, lineno, idx);
                break;
            }
            /* nvidia-smi numbers GPUs in PCI order: GPU i is node->gpus[i] when another
             * source listed them, else a new GPU that keeps the number */
            if (idx < node->ngpus && node->gpus[idx].loc.busid[0])
                g = &node->gpus[idx];
            else {
                g = NULL;
                for (size_t i = 0; i < node->ngpus && !g; i++)
                    if (node->gpus[i].index == (int)idx)
                        g = &node->gpus[i];
                if (!g) {
                    g = topo_node_add_gpu(node);
                    g->index = (int)idx;
                }
            }
            if (!g->model)
                g->model = xstrdup(ry_trim(model));
            if (!g->vendor)
                g->vendor = xstrdup("NVIDIA");
            g->nvlink_links = g->nvlink_active = 0;
            gpu_lines++;
            continue;
        }
        if (g && sscanf(s, "Link %u:", &link) == 1) {
            g->nvlink_links++;
            if (!strstr(s, "inactive"))
                g->nvlink_active++;
            continue;
        }
        if (g && strstr(s, "all links are inactive")) {
            g->nvlink_links = -1; /* how many exist is not said */
            g->nvlink_active = 0;
            continue;
        }
        errno = EINVAL;
        rc = ry_errorf(err, "%s:%d: not nvidia-smi nvlink --status output: '%.60s'", path, lineno,
                       s);
    }
    if (rc == 0 && gpu_lines == 0) {
        /* nothing but blank lines: what nvidia-smi prints where no GPU shows an NVLink (one GPU
         * of a board in a VM); the GPUs the other inputs list have none */
        fclose(f);
        for (size_t i = 0; i < node->ngpus; i++)
            node->gpus[i].nvlink_links = node->gpus[i].nvlink_active = 0;
        topo_node_add_source(node, "nvlink-status %s (empty: no GPU shows an NVLink)", path);
        return 0;
    }
    rc = finish(f, rc, lineno, path, "", err);
    if (rc == 0) {
        node->gpus_listed = 1;
        topo_node_add_source(node, "nvlink-status %s", path);
    }
    return rc;
}
