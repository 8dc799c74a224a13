#ifndef RAILYARD_TOPO_IBA_H
#define RAILYARD_TOPO_IBA_H

/* InfiniBand facts as the IBA specification names them: link speeds, port states, PMA counters,
 * and the port rate strings sysfs and ibstat print. Shared by the map, the readers and the
 * fabric model in ib/ (whose ibf_ prefix these names keep). */

/* Link speeds, slowest first (the order is used to say "slower than expected"). */
enum ibf_speed {
    IBF_SPEED_UNKNOWN = 0,
    IBF_SDR,
    IBF_DDR,
    IBF_QDR,
    IBF_FDR10,
    IBF_FDR,
    IBF_EDR,
    IBF_HDR,
    IBF_NDR,
    IBF_XDR,
    IBF_NSPEEDS
};

/* PortInfo:PortState and PortPhysicalState values (0: not known, as in a dump). */
enum { IBF_STATE_DOWN = 1, IBF_STATE_INIT = 2, IBF_STATE_ARMED = 3, IBF_STATE_ACTIVE = 4 };
enum { IBF_PHYS_SLEEP = 1, IBF_PHYS_POLLING = 2, IBF_PHYS_DISABLED = 3, IBF_PHYS_LINKUP = 5 };

/* PMA counters, named as in the IBA specification and perfquery. The error counters come first
 * (up to IBF_NERRCTR), then the traffic counters. */
enum ibf_ctr {
    IBF_SYMBOL_ERR,
    IBF_LINK_RECOVERY,
    IBF_LINK_DOWNED,
    IBF_RCV_ERR,
    IBF_RCV_REMOTE_PHYS,
    IBF_RCV_SWITCH_RELAY,
    IBF_XMIT_DISCARDS,
    IBF_XMIT_CONSTRAINT,
    IBF_RCV_CONSTRAINT,
    IBF_LOCAL_INTEGRITY,
    IBF_EXCESS_OVERRUN,
    IBF_VL15_DROPPED,
    IBF_NERRCTR,
    IBF_XMIT_WAIT = IBF_NERRCTR,
    IBF_XMIT_DATA, /* in 4-octet words, as the PMA counts */
    IBF_RCV_DATA,
    IBF_XMIT_PKTS,
    IBF_RCV_PKTS,
    IBF_NCTR
};

const char *ibf_speed_name(enum ibf_speed s);
enum ibf_speed ibf_speed_parse(const char *s); /* "HDR" (any case) or IBF_SPEED_UNKNOWN */
const char *ibf_state_name(int state);
const char *ibf_phys_name(int phys);
extern const char *const ibf_phys_names[8]; /* PortPhysicalState 0-7 as the IBA names them */
const char *ibf_ctr_name(enum ibf_ctr c);
int ibf_ctr_parse(const char *name); /* index or -1 */
int ibf_ctr_bits(enum ibf_ctr c);    /* width of the PortCounters field */

/* Parse a port rate as sysfs writes it ("400 Gb/sec (4X NDR)", "25 Gb/sec (1X EDR)",
 * "100 Gb/sec (2X HDR)"): rate in Gb/s, lanes and speed name (allocated, may be NULL).
 * Returns 0 or -1 when s is not a rate. */
int topo_ib_parse_rate(const char *s, double *gbps, int *width, char **speed);

#endif
