#include "config.h"

#include "ib/ibfabric.h"

/* Built without libibnetdisc/libibmad: live discovery says so; ibnetdiscover files still load. */

int ibf_live_available(void)
{
    return 0;
}

int ibf_discover(struct ibf_fabric *f, const struct ibf_live_opts *o, ry_error_t *err)
{
    (void)f;
    (void)o;
    return ry_errorf(err, "this railyard was built without libibnetdisc/libibmad: live fabric "
                          "discovery is not available (read a dump with --ibnetdiscover FILE)");
}

int ibf_discover_cached(struct ibf_fabric *f, const char *path, ry_error_t *err)
{
    (void)f;
    return ry_errorf(err,
                     "%s: this railyard was built without libibnetdisc: its fabric caches "
                     "cannot be read",
                     path);
}

int ibf_sample_counters(struct ibf_fabric *f, const struct ibf_live_opts *o, int slot,
                        ry_error_t *err)
{
    (void)f;
    (void)o;
    (void)slot;
    return ry_errorf(err, "this railyard was built without libibnetdisc/libibmad: PMA counters "
                          "are not available");
}

int ibf_mad_open(struct ibf_live_opts *o, ry_error_t *err)
{
    (void)o;
    return ry_errorf(err, "this railyard was built without libibnetdisc/libibmad: PMA counters "
                          "are not available");
}

void ibf_mad_close(struct ibf_live_opts *o)
{
    (void)o;
}

void *ibf_port_mad_open(const char *ca, int port, int timeout_ms, ry_error_t *err)
{
    (void)timeout_ms;
    ry_errorf(err,
              "%s port %d has no counters in sysfs, and this railyard was built without libibmad "
              "to ask its PMA",
              ca, port);
    return NULL;
}

int ibf_port_mad_read(void *mad, const char *ca, int port, struct ibf_port_read *r, ry_error_t *err)
{
    (void)mad;
    (void)r;
    return ry_errorf(err, "%s port %d: no libibmad", ca, port);
}

void ibf_port_mad_close(void *mad)
{
    (void)mad;
}
