#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xmalloc.h"
#include "topo/iba.h"

static const char *const speed_names[IBF_NSPEEDS] = {
    "unknown", "SDR", "DDR", "QDR", "FDR10", "FDR", "EDR", "HDR", "NDR", "XDR",
};

const char *ibf_speed_name(enum ibf_speed s)
{
    return s > 0 && s < IBF_NSPEEDS ? speed_names[s] : "unknown";
}

enum ibf_speed ibf_speed_parse(const char *s)
{
    for (int i = 1; i < IBF_NSPEEDS; i++)
        if (!strcasecmp(s, speed_names[i]))
            return (enum ibf_speed)i;
    return IBF_SPEED_UNKNOWN;
}

const char *ibf_state_name(int state)
{
    static const char *const n[] = { "n/a", "Down", "Initialize", "Armed", "Active" };
    return state >= 0 && state <= 4 ? n[state] : "n/a";
}

const char *const ibf_phys_names[8] = {
    "NOP",
    "Sleep",
    "Polling",
    "Disabled",
    "PortConfigurationTraining",
    "LinkUp",
    "LinkErrorRecovery",
    "PhyTest",
};

const char *ibf_phys_name(int phys)
{
    return phys >= 1 && phys <= 7 ? ibf_phys_names[phys] : "n/a";
}

static const struct {
    const char *name;
    int bits;
} ctrs[IBF_NCTR] = {
    [IBF_SYMBOL_ERR] = { "SymbolErrorCounter", 16 },
    [IBF_LINK_RECOVERY] = { "LinkErrorRecoveryCounter", 8 },
    [IBF_LINK_DOWNED] = { "LinkDownedCounter", 8 },
    [IBF_RCV_ERR] = { "PortRcvErrors", 16 },
    [IBF_RCV_REMOTE_PHYS] = { "PortRcvRemotePhysicalErrors", 16 },
    [IBF_RCV_SWITCH_RELAY] = { "PortRcvSwitchRelayErrors", 16 },
    [IBF_XMIT_DISCARDS] = { "PortXmitDiscards", 16 },
    [IBF_XMIT_CONSTRAINT] = { "PortXmitConstraintErrors", 8 },
    [IBF_RCV_CONSTRAINT] = { "PortRcvConstraintErrors", 8 },
    [IBF_LOCAL_INTEGRITY] = { "LocalLinkIntegrityErrors", 4 },
    [IBF_EXCESS_OVERRUN] = { "ExcessiveBufferOverrunErrors", 4 },
    [IBF_VL15_DROPPED] = { "VL15Dropped", 16 },
    [IBF_XMIT_WAIT] = { "PortXmitWait", 32 },
    [IBF_XMIT_DATA] = { "PortXmitData", 32 },
    [IBF_RCV_DATA] = { "PortRcvData", 32 },
    [IBF_XMIT_PKTS] = { "PortXmitPkts", 32 },
    [IBF_RCV_PKTS] = { "PortRcvPkts", 32 },
};

const char *ibf_ctr_name(enum ibf_ctr c)
{
    return c < IBF_NCTR ? ctrs[c].name : "?";
}

int ibf_ctr_parse(const char *name)
{
    for (int i = 0; i < IBF_NCTR; i++)
        if (!strcmp(name, ctrs[i].name))
            return i;
    return -1;
}

int ibf_ctr_bits(enum ibf_ctr c)
{
    return c < IBF_NCTR ? ctrs[c].bits : 0;
}

int topo_ib_parse_rate(const char *s, double *gbps, int *width, char **speed)
{
    char *end;
    const char *p;
    double v;

    *width = 0;
    *speed = NULL;
    v = strtod(s, &end);
    if (end == s || v < 0)
        return -1;
    while (*end == ' ')
        end++;
    if (strncmp(end, "Gb/sec", 6) != 0)
        return -1;
    *gbps = v;
    /* the part in parentheses: "(4X NDR)" */
    if ((p = strchr(end, '(')) != NULL) {
        int w;
        char name[32];
        if (sscanf(p, "(%dX %31[^)])", &w, name) == 2) {
            *width = w;
            *speed = xstrdup(name);
        }
    }
    return 0;
}
