#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reports/links.h"
#include "tests/tap/tap.h"

/* railyard-fabric's link records (reports/links.h): what is written reads back at the stated
 * precision, the strings are kept once, a file cut short or of another kind is refused with its
 * name, and the index checks catch each bad field. */

static struct ry_link link_of(uint32_t from, uint32_t to, int rail, double bw)
{
    struct ry_link l;
    memset(&l, 0, sizeof(l));
    l.from = from;
    l.to = to;
    l.round = 3;
    l.rail = rail;
    l.flags = RY_LINK_OK;
    l.extra = RY_LINK_NONE;
    l.bw_gbps = bw;
    l.lat_p50_us = 2.345;
    l.lat_p99_us = 7.891;
    l.cpu_from = 0.98765;
    l.wait_from = 0.0123;
    l.cpu_to = -1;
    l.wait_to = -1;
    l.retrans = 17;
    l.errors_from = 5000000000LL; /* past 32 bits */
    l.errors_to = -1;
    l.pressure_from = 0.4567;
    l.pressure_to = -1;
    l.ce_frac = 0.012345;
    l.bytes = 98765432100LL;
    l.wire_bytes = 99765432100LL;
    return l;
}

static char dir[64];

static void put_file(const char *name, const void *p, size_t n)
{
    char path[128];
    FILE *fp;
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    fp = fopen(path, "wb");
    fwrite(p, 1, n, fp);
    fclose(fp);
}

int main(void)
{
    ry_error_t err;
    struct ry_links_writer *w;
    struct ry_link *v = NULL, a = link_of(0, 1, 2, 391.2345678), b = link_of(1, 0, 7, NAN), q;
    struct ry_link_extra xa = { NULL, NULL, NULL, "cuda:0", "host" },
                         xb = { "connect: no route to host", NULL, "symbol_error +3", NULL, NULL };
    char path[128], cmd[256];

    snprintf(dir, sizeof(dir), "/tmp/test_links.XXXXXX");
    if (!mkdtemp(dir))
        skip_all("cannot make a temporary folder");
    snprintf(path, sizeof(path), "%s/%s", dir, ry_links_file_name());
    b.flags = 0;

    /* precision: goodput to 1 kb/s, latency to 10 ns, shares to 0.001 */
    q = a;
    is_int(ry_link_quantize(&q), 0, "a link's figures fit a record");
    ok(q.bw_gbps == 391.234568, "goodput kept to 1 kb/s: %.9f", q.bw_gbps);
    ok(q.lat_p50_us == 2.35 && q.lat_p99_us == 7.89, "latency kept to 10 ns: %.4f %.4f",
       q.lat_p50_us, q.lat_p99_us);
    ok(q.cpu_from == 0.988 && q.wait_from == 0.012, "host shares kept to 0.001: %.5f %.5f",
       q.cpu_from, q.wait_from);
    ok(q.cpu_to < 0 && q.wait_to < 0, "unknown shares stay unknown");
    is_int(q.retrans, 17, "retransmissions kept");
    is_int(q.errors_from, 2147483647LL, "an error count past 31 bits saturates");
    ok(q.pressure_from == 0.457 && q.pressure_to < 0,
       "host CPU pressure kept to 0.001, unknown stays unknown: %.5f %.5f", q.pressure_from,
       q.pressure_to);
    is_int(q.errors_to, -1, "an unknown error count stays unknown");
    ok(q.bytes == a.bytes && q.wire_bytes == a.wire_bytes,
       "bytes delivered and on the wire kept exactly: %lld %lld", q.bytes, q.wire_bytes);
    ok(fabs(ry_link_goodput_ratio(&q) - 98765432100.0 / 99765432100.0) < 1e-12,
       "the goodput ratio is delivered over the wire: %.6f", ry_link_goodput_ratio(&q));
    ok(q.ce_frac == 0.0123, "the share marked CE kept to 0.0001: %.6f", q.ce_frac);
    {
        struct ry_link u = a;
        u.bytes = u.wire_bytes = -1;
        u.ce_frac = -1;
        ry_link_quantize(&u);
        ok(u.bytes == -1 && u.wire_bytes == -1 && u.ce_frac < 0 && ry_link_goodput_ratio(&u) < 0,
           "unknown wire figures stay unknown, and so does the ratio");
    }
    {
        struct ry_link big = a;
        big.bw_gbps = 2e13;
        is_int(ry_link_quantize(&big), -1, "a goodput past a record's range is refused");
        big = a;
        big.retrans = 3000000000LL;
        is_int(ry_link_quantize(&big), -1, "retransmissions past 31 bits are refused");
    }

    /* writing: two flushes, strings once */
    w = ry_links_writer_open(dir, &err);
    ok(w != NULL, "writer opens %s", path);
    if (!w)
        return done_testing();
    is_int(ry_links_writer_add(w, &a, &xa, &err), 0, "first link appended");
    is_int(ry_links_writer_add(w, &b, &xb, &err), 0, "a failed link appended");
    is_int(ry_links_writer_flush(w, &err), 0, "first flush");
    for (int i = 0; i < 3; i++) {
        struct ry_link c = link_of(2, 3, 1, 100 + i);
        is_int(ry_links_writer_add(w, &c, &xa, &err), 0, "link %d appended after a flush", i + 3);
    }
    {
        struct ry_link bad = a;
        bad.rail = 70000;
        is_int(ry_links_writer_add(w, &bad, NULL, &err), -1, "a rail past 16 bits is refused");
        ok(strstr(err.text, "rail 70000") != NULL, "...and named: %s", err.text);
    }
    is_int(ry_links_writer_flush(w, &err), 0, "second flush");
    is_int((long long)ry_links_writer_count(w), 5, "five records");
    is_int((long long)ry_links_writer_nextra(w), 2, "two distinct sets of strings");
    is_str(ry_links_writer_extra(w, 0)->mem_from, "cuda:0", "strings kept: mem_from");
    is_str(ry_links_writer_extra(w, 1)->error, "connect: no route to host",
           "strings kept: the error");
    ok(ry_links_writer_extra(w, 1)->mem_from == NULL, "an absent string stays absent");
    ry_links_writer_close(w);
#ifdef HAVE_ZLIB
    /* one gzip member per flush: zcat reads the whole */
    snprintf(cmd, sizeof(cmd), "zcat %s | wc -c | grep -qx %d", path,
             RY_LINKS_HEADER_BYTES + 5 * RY_LINK_RECORD_BYTES);
    is_int(system(cmd), 0, "zcat reads every member: header and five records");
#else
    (void)cmd;
    ok(1, "no zlib: the records are plain");
#endif

    /* reading back */
    is_int(ry_links_read(path, 5, &v, &err), 0, "five records read back");
    if (v) {
        ok(v[0].bw_gbps == q.bw_gbps && v[0].lat_p50_us == q.lat_p50_us &&
               v[0].cpu_from == q.cpu_from && v[0].errors_from == q.errors_from &&
               v[0].pressure_from == q.pressure_from && v[0].pressure_to < 0 && v[0].round == 3 &&
               v[0].rail == 2 && v[0].from == 0 && v[0].to == 1,
           "the first reads as it was quantized");
        ok(isnan(v[1].bw_gbps) && !(v[1].flags & RY_LINK_OK) && v[1].extra == 1,
           "the failed link: no goodput, not ok, its strings");
        ok(v[0].extra == 0 && v[4].extra == 0, "the same strings share an index");
        ok(v[4].bw_gbps == 102, "the last record after the second flush");
        is_int(ry_links_check(path, v, 5, 4, 8, 2, &err), 0, "indexes within 4 nodes, 8 rails");
        is_int(ry_links_check(path, v, 5, 3, 8, 2, &err), -1, "node 3 past 3 nodes");
        ok(strstr(err.text, "link record 2") && strstr(err.text, path),
           "...names the file and the record: %s", err.text);
        is_int(ry_links_check(path, v, 5, 4, 7, 2, &err), -1, "rail 7 past 7 rails");
        is_int(ry_links_check(path, v, 5, 4, 8, 1, &err), -1, "strings 1 past 1");
        v[3].flags |= 0x80;
        is_int(ry_links_check(path, v, 5, 4, 8, 2, &err), -1, "an unknown flag");
        free(v);
    }
    is_int(ry_links_read(path, 3, &v, &err), 0, "fewer than the file holds: the rest ignored");
    free(v);
    is_int(ry_links_read(path, 6, &v, &err), -1, "more records than the file holds: refused");
    ok(strstr(err.text, "5 of 6") && strstr(err.text, path), "...saying how many: %s", err.text);
    ok(v == NULL, "...and nothing returned");

    /* files that are not records */
    {
        char junk[RY_LINKS_HEADER_BYTES + 8] = "RYLINKS\n";
        char other[80];
        snprintf(other, sizeof(other), "%s/other", dir);
        put_file("other", "{\"links\": []}\n", 14);
        is_int(ry_links_read(other, 1, &v, &err), -1, "a JSON file is refused");
        ok(strstr(err.text, "not a railyard link record file") != NULL, "...%s", err.text);
        unsigned char v1[RY_LINKS_HEADER_BYTES + 64]; /* versions 1 and 2: 64 bytes */
        junk[8] = RY_LINKS_VERSION + 1;               /* a later version */
        junk[10] = RY_LINK_RECORD_BYTES;
        put_file("other", junk, sizeof(junk));
        is_int(ry_links_read(other, 0, &v, &err), -1, "a later version is refused");
        ok(strstr(err.text, "version 4") && strstr(err.text, "versions 1 to 3"), "...%s", err.text);
        junk[8] = 2; /* version 2 with version 3's record size */
        put_file("other", junk, sizeof(junk));
        is_int(ry_links_read(other, 0, &v, &err), -1, "a record size not its version's is refused");
        ok(strstr(err.text, "version 2, 80 bytes") != NULL, "...%s", err.text);
        free(v);
        /* version 1: 64-bit error counts at 48 and 56, no pressure */
        memset(v1, 0, sizeof(v1));
        memcpy(v1, RY_LINKS_MAGIC, 8);
        v1[8] = 1;
        v1[10] = 64;
        {
            unsigned char *r = v1 + RY_LINKS_HEADER_BYTES;
            r[0] = 1;                /* from 1, to 0 */
            r[8] = 2;                /* round 2 */
            r[14] = RY_LINK_OK;      /* flags */
            r[16 + 2] = 1;           /* 65536 kb/s */
            r[48 + 4] = 1;           /* errors_from 2^32 */
            memset(r + 56, 0xff, 8); /* errors_to unknown */
        }
        put_file("other", v1, sizeof(v1));
        is_int(ry_links_read(other, 1, &v, &err), 0, "a version 1 file is read");
        ok(v && v[0].from == 1 && v[0].round == 2 && v[0].bw_gbps == 0.065536 &&
               v[0].errors_from == 4294967296LL && v[0].errors_to == -1 && v[0].pressure_from < 0 &&
               v[0].pressure_to < 0,
           "...its 64-bit error counts, and no pressure: %lld %lld %.3f", v ? v[0].errors_from : 0,
           v ? v[0].errors_to : 0, v ? v[0].pressure_from : 0);
        ok(v && v[0].bytes == -1 && v[0].wire_bytes == -1 && v[0].ce_frac < 0,
           "...and no wire figures");
        free(v);
        /* version 2: 32-bit error counts, pressure at 56, no wire figures */
        v1[8] = 2;
        memset(v1 + RY_LINKS_HEADER_BYTES + 48, 0, 16);
        v1[RY_LINKS_HEADER_BYTES + 48] = 9;               /* errors_from 9 */
        memset(v1 + RY_LINKS_HEADER_BYTES + 52, 0xff, 4); /* errors_to unknown */
        v1[RY_LINKS_HEADER_BYTES + 56] = 250;             /* pressure_from 0.25 */
        memset(v1 + RY_LINKS_HEADER_BYTES + 58, 0xff, 6); /* the rest unknown */
        put_file("other", v1, sizeof(v1));
        is_int(ry_links_read(other, 1, &v, &err), 0, "a version 2 file is read");
        ok(v && v[0].errors_from == 9 && v[0].errors_to == -1 && v[0].pressure_from == 0.25 &&
               v[0].bytes == -1 && v[0].wire_bytes == -1 && v[0].ce_frac < 0,
           "...its counts and pressure, and no wire figures");
        free(v);
        is_int(ry_links_read("/nonexistent/links.bin", 1, &v, &err), -1, "a missing file");
        ok(strstr(err.text, "/nonexistent/links.bin") != NULL, "...named: %s", err.text);
    }
#ifdef HAVE_ZLIB
    /* a member cut in the middle: zlib's error, with the file */
    snprintf(cmd, sizeof(cmd), "truncate -s -40 %s", path);
    if (system(cmd) == 0) {
        is_int(ry_links_read(path, 5, &v, &err), -1, "a file cut inside its last member");
        ok(strstr(err.text, path) != NULL, "...named: %s", err.text);
    }
#endif
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    if (system(cmd) != 0)
        diag("could not remove %s", dir);
    return done_testing();
}
