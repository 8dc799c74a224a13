#ifndef RAILYARD_REPORTS_LINKS_H
#define RAILYARD_REPORTS_LINKS_H

#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* A railyard-fabric run's links as fixed binary records beside its report.json
 * (railyard-report(5), "LINK RECORDS"): a run of a thousand nodes measures millions of links,
 * which as JSON objects made a report of hundreds of megabytes that took half a minute to parse.
 * The file is appended to as the rounds end (a round never rewrites what came before) and, with
 * zlib, is a series of gzip members (zcat reads it). report.json names the file, how many records
 * are valid, and the strings the records point to (errors, counters, memory), each once.
 *
 * Record (little-endian, RY_LINK_RECORD_BYTES, railyard-report(5)): from, to (node_names
 * indexes), round (from 1), rail, flags; goodput in kb/s (1e-6 Gb/s), latencies p50 and p99 in
 * 1/100 us; host CPU and wait shares of each end in 1/1000; the strings' index; the sender's
 * retransmissions and each end's error counts; each end's host CPU pressure in 1/1000; the share
 * of the packets delivered CE-marked in 1/10000; the bytes delivered and the sender's bytes on the
 * wire. A field that is unknown holds its type's all-ones value (-1 for the counts). Versions 1
 * (64-bit error counts, no pressure) and 2 (no wire figures), 64 bytes a record, are still
 * read. */

#define RY_LINKS_MAGIC        "RYLINKS\n"
#define RY_LINKS_VERSION      3
#define RY_LINK_RECORD_BYTES  80
#define RY_LINKS_HEADER_BYTES 16

/* railyard-fabric's default (--link-records auto): records past this many links */
#define RY_LINKS_INLINE_MAX 20000

#define RY_LINK_OK      0x1u /* measured; else failed (the strings say why) */
#define RY_LINK_LATENCY 0x2u /* a latency sweep's ping-pong only link */
#define RY_LINK_NONE    UINT32_MAX

/* One link, decoded. Numbers unknown are NAN (doubles) or -1 (counts). */
struct ry_link {
    uint32_t from, to; /* node indexes */
    uint32_t round;    /* from 1 */
    int rail;          /* 0..65535 in a record; a JSON report may say anything */
    unsigned flags;    /* RY_LINK_OK, RY_LINK_LATENCY */
    uint32_t extra;    /* index of its strings, RY_LINK_NONE: none */
    double bw_gbps, lat_p50_us, lat_p99_us;
    double cpu_from, wait_from, cpu_to, wait_to; /* <0: unknown */
    double pressure_from, pressure_to;           /* each end's host CPU pressure, <0: unknown */
    long long retrans, errors_from, errors_to;
    double ce_frac;              /* the share delivered CE-marked, <0: unknown */
    long long bytes, wire_bytes; /* delivered; the sender's on the wire, -1: unknown */
};

/* The share of l's wire bytes that arrived, <0 when unknown. */
double ry_link_goodput_ratio(const struct ry_link *l);

/* The strings of a link, NULL where none. */
struct ry_link_extra {
    const char *error, *counters_from, *counters_to, *mem_from, *mem_to;
};

/* Round l's figures to the precision of a record, as reading it back would give them: the
 * JSON encoding does the same, so a report reads alike in both. -1 when one is out of range. */
int ry_link_quantize(struct ry_link *l);

/* The file name beside report.json: links.bin.gz with zlib, else links.bin. */
const char *ry_links_file_name(void);

/* ---- writing ---- */

struct ry_links_writer;

/* Create (truncate) DIR/<ry_links_file_name()> and write its header. NULL with err. */
struct ry_links_writer *ry_links_writer_open(const char *dir, ry_error_t *err);
/* Append one link, its numbers at a record's precision (goodput to 1 kb/s, latency to 10 ns, CPU
 * shares to 0.001); its strings are kept once (x NULL: none). */
int ry_links_writer_add(struct ry_links_writer *w, const struct ry_link *l,
                        const struct ry_link_extra *x, ry_error_t *err);
/* Finish what was appended (a complete gzip member, written out): after it, the records so far
 * can be named in report.json. 0, or -1 with err. */
int ry_links_writer_flush(struct ry_links_writer *w, ry_error_t *err);
size_t ry_links_writer_count(const struct ry_links_writer *w);
size_t ry_links_writer_nextra(const struct ry_links_writer *w);
const struct ry_link_extra *ry_links_writer_extra(const struct ry_links_writer *w, size_t i);
void ry_links_writer_close(struct ry_links_writer *w);

/* ---- reading ---- */

/* Read the first count records of path into *v (count entries, the caller frees). Checks the
 * header and that count records are there; more are ignored (a run cut short between the two
 * writes). 0, or -1 with err naming the file and, for a bad record, its index. Indexes are not
 * checked against the report: the caller does (ry_links_check). */
int ry_links_read(const char *path, size_t count, struct ry_link **v, ry_error_t *err);
/* Check every record's node indexes (< nnodes), rail (< rails) and strings index (< nextra or
 * none): 0, or -1 with err naming path and the first bad record. */
int ry_links_check(const char *path, const struct ry_link *v, size_t n, size_t nnodes, int rails,
                   size_t nextra, ry_error_t *err);

#endif
