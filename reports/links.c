#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_ZLIB
#include <zlib.h>
#endif

#include "common/hash.h"
#include "common/xmalloc.h"
#include "reports/links.h"

/* ---- the record ---- */

#define U32_NONE UINT32_MAX
#define U16_NONE UINT16_MAX

static void put16(unsigned char *p, uint16_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint16_t get16(const unsigned char *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const unsigned char *p)
{
    return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* v in units of 1/scale (10^prec), or none (all ones): the decimal printf rounds it to, so that
 * the value read back is the one that decimal parses to */
static int fixed(double v, int prec, uint64_t max, uint64_t *out)
{
    char buf[64], digits[64];
    size_t k = 0;
    unsigned long long u;

    if (isnan(v) || v < 0) {
        *out = max;
        return 0;
    }
    if (v * pow(10, prec) >= (double)(max - 1))
        return -1;
    snprintf(buf, sizeof(buf), "%.*f", prec, v);
    for (const char *s = buf; *s && k + 1 < sizeof(digits); s++)
        if (*s != '.')
            digits[k++] = *s;
    digits[k] = '\0';
    u = strtoull(digits, NULL, 10);
    *out = u;
    return 0;
}

static uint16_t fixed16(double v)
{
    if (isnan(v) || v < 0)
        return U16_NONE;
    if (v * 1000 >= U16_NONE - 1)
        return U16_NONE - 1;
    return (uint16_t)llround(v * 1000);
}

static double unfixed(uint64_t u, uint64_t none, double scale)
{
    return u == none ? NAN : (double)u / scale;
}

static double unfixed16(uint16_t u)
{
    return u == U16_NONE ? -1 : (double)u / 1000;
}

/* an error count in 31 bits: -1 unknown, saturated at INT32_MAX (a round with two billion
 * errors is named for them either way) */
static uint32_t count31(long long v)
{
    return (uint32_t)(int32_t)(v < 0 ? -1 : v > INT32_MAX ? INT32_MAX : v);
}

/* the record's layout: railyard-report(5) */
static int encode(const struct ry_link *l, unsigned char *p)
{
    uint64_t bw, p50, p99;

    if (fixed(l->bw_gbps, 6, UINT64_MAX, &bw) < 0 || fixed(l->lat_p50_us, 2, U32_NONE, &p50) < 0 ||
        fixed(l->lat_p99_us, 2, U32_NONE, &p99) < 0 || l->retrans > INT32_MAX)
        return -1;
    put32(p, l->from);
    put32(p + 4, l->to);
    put32(p + 8, l->round);
    put16(p + 12, (uint16_t)l->rail);
    put16(p + 14, (uint16_t)l->flags);
    put64(p + 16, bw);
    put32(p + 24, (uint32_t)p50);
    put32(p + 28, (uint32_t)p99);
    put16(p + 32, fixed16(l->cpu_from));
    put16(p + 34, fixed16(l->wait_from));
    put16(p + 36, fixed16(l->cpu_to));
    put16(p + 38, fixed16(l->wait_to));
    put32(p + 40, l->extra);
    put32(p + 44, (uint32_t)(int32_t)(l->retrans < 0 ? -1 : l->retrans));
    put32(p + 48, count31(l->errors_from));
    put32(p + 52, count31(l->errors_to));
    put16(p + 56, fixed16(l->pressure_from));
    put16(p + 58, fixed16(l->pressure_to));
    put16(p + 60, l->ce_frac < 0 ? U16_NONE : (uint16_t)lround(fmin(l->ce_frac, 1) * 10000));
    put16(p + 62, 0); /* reserved */
    put64(p + 64, l->bytes < 0 ? UINT64_MAX : (uint64_t)l->bytes);
    put64(p + 72, l->wire_bytes < 0 ? UINT64_MAX : (uint64_t)l->wire_bytes);
    return 0;
}

/* an unsigned 64-bit count, -1 when all ones or past a long long */
static long long count64(uint64_t v)
{
    return v > (uint64_t)LLONG_MAX ? -1 : (long long)v;
}

double ry_link_goodput_ratio(const struct ry_link *l)
{
    return l->bytes > 0 && l->wire_bytes > 0 ? (double)l->bytes / (double)l->wire_bytes : -1;
}

/* the size of a record of version v */
static size_t record_bytes(unsigned v)
{
    return v < 3 ? 64 : RY_LINK_RECORD_BYTES;
}

/* a record of the given version (1: 64-bit error counts at 48 and 56, no pressure; 1 and 2: no
 * wire figures) */
static void decode(const unsigned char *p, unsigned version, struct ry_link *l)
{
    l->ce_frac = -1;
    l->bytes = l->wire_bytes = -1;
    l->from = get32(p);
    l->to = get32(p + 4);
    l->round = get32(p + 8);
    l->rail = get16(p + 12);
    l->flags = get16(p + 14);
    l->bw_gbps = unfixed(get64(p + 16), UINT64_MAX, 1e6);
    l->lat_p50_us = unfixed(get32(p + 24), U32_NONE, 1e2);
    l->lat_p99_us = unfixed(get32(p + 28), U32_NONE, 1e2);
    l->cpu_from = unfixed16(get16(p + 32));
    l->wait_from = unfixed16(get16(p + 34));
    l->cpu_to = unfixed16(get16(p + 36));
    l->wait_to = unfixed16(get16(p + 38));
    l->extra = get32(p + 40);
    l->retrans = (int32_t)get32(p + 44);
    if (version == 1) {
        l->errors_from = (long long)get64(p + 48);
        l->errors_to = (long long)get64(p + 56);
        l->pressure_from = l->pressure_to = -1;
        return;
    }
    l->errors_from = (int32_t)get32(p + 48);
    l->errors_to = (int32_t)get32(p + 52);
    l->pressure_from = unfixed16(get16(p + 56));
    l->pressure_to = unfixed16(get16(p + 58));
    if (version < 3)
        return;
    l->ce_frac = get16(p + 60) == U16_NONE ? -1 : (double)get16(p + 60) / 10000;
    l->bytes = count64(get64(p + 64));
    l->wire_bytes = count64(get64(p + 72));
}

int ry_link_quantize(struct ry_link *l)
{
    unsigned char rec[RY_LINK_RECORD_BYTES];

    if (encode(l, rec) < 0)
        return -1;
    decode(rec, RY_LINKS_VERSION, l);
    return 0;
}

const char *ry_links_file_name(void)
{
#ifdef HAVE_ZLIB
    return "links.bin.gz";
#else
    return "links.bin";
#endif
}

/* ---- writing ---- */

struct ry_links_writer {
    char path[4200];
#ifdef HAVE_ZLIB
    gzFile gz;
#else
    FILE *fp;
#endif
    size_t count;
    struct ry_link_extra *extra;
    char **key; /* the five strings joined, to find an extra again */
    size_t nextra, extra_alloc;
    size_t *slot; /* open addressing: extra index + 1, 0 empty */
    size_t nslot;
};

static int wr(struct ry_links_writer *w, const void *p, size_t n, ry_error_t *err)
{
#ifdef HAVE_ZLIB
    if (gzwrite(w->gz, p, (unsigned)n) != (int)n) {
        int e;
        const char *m = gzerror(w->gz, &e);
        return ry_errorf(err, "%s: %s", w->path, e == Z_ERRNO ? strerror(errno) : m);
    }
#else
    if (fwrite(p, 1, n, w->fp) != n)
        return ry_errorf(err, "%s: %s", w->path, strerror(errno));
#endif
    return 0;
}

struct ry_links_writer *ry_links_writer_open(const char *dir, ry_error_t *err)
{
    struct ry_links_writer *w = xcalloc(1, sizeof(*w));
    unsigned char hdr[RY_LINKS_HEADER_BYTES] = { 0 };

    snprintf(w->path, sizeof(w->path), "%s/%s", dir, ry_links_file_name());
#ifdef HAVE_ZLIB
    /* level 1: a round's records compress four to sixfold at once; more costs rank 0 time */
    w->gz = gzopen(w->path, "wb1");
    if (!w->gz) {
        ry_errorf(err, "%s: %s", w->path, errno ? strerror(errno) : "cannot open");
        free(w);
        return NULL;
    }
    gzbuffer(w->gz, 1 << 18);
#else
    if (!(w->fp = fopen(w->path, "wb"))) {
        ry_errorf(err, "%s: %s", w->path, strerror(errno));
        free(w);
        return NULL;
    }
#endif
    memcpy(hdr, RY_LINKS_MAGIC, 8);
    put16(hdr + 8, RY_LINKS_VERSION);
    put16(hdr + 10, RY_LINK_RECORD_BYTES);
    if (wr(w, hdr, sizeof(hdr), err) < 0 || ry_links_writer_flush(w, err) < 0) {
        ry_links_writer_close(w);
        return NULL;
    }
    return w;
}

static size_t hash(const char *s)
{
    return ry_hash_str(RY_HASH_INIT, s);
}

static void rehash(struct ry_links_writer *w)
{
    free(w->slot);
    w->nslot = w->nslot ? w->nslot * 2 : 64;
    w->slot = xcalloc(w->nslot, sizeof(*w->slot));
    for (size_t i = 0; i < w->nextra; i++) {
        size_t s = hash(w->key[i]) & (w->nslot - 1);
        while (w->slot[s])
            s = (s + 1) & (w->nslot - 1);
        w->slot[s] = i + 1;
    }
}

/* the index of x's strings, added when new; RY_LINK_NONE when all are empty */
static uint32_t extra_index(struct ry_links_writer *w, const struct ry_link_extra *x)
{
    const char *f[5] = { x->error, x->counters_from, x->counters_to, x->mem_from, x->mem_to };
    char *key;
    size_t s;
    int any = 0;

    for (int i = 0; i < 5; i++)
        any |= f[i] && *f[i];
    if (!any)
        return RY_LINK_NONE;
    key = xasprintf("%c%s\x1f%c%s\x1f%c%s\x1f%c%s\x1f%c%s", f[0] ? '+' : '-', f[0] ? f[0] : "",
                    f[1] ? '+' : '-', f[1] ? f[1] : "", f[2] ? '+' : '-', f[2] ? f[2] : "",
                    f[3] ? '+' : '-', f[3] ? f[3] : "", f[4] ? '+' : '-', f[4] ? f[4] : "");
    if ((w->nextra + 1) * 2 > w->nslot)
        rehash(w);
    for (s = hash(key) & (w->nslot - 1); w->slot[s]; s = (s + 1) & (w->nslot - 1))
        if (!strcmp(w->key[w->slot[s] - 1], key)) {
            free(key);
            return (uint32_t)(w->slot[s] - 1);
        }
    xgrow(&w->extra, &w->extra_alloc, w->nextra + 1, sizeof(*w->extra));
    w->key = xrealloc(w->key, w->extra_alloc * sizeof(*w->key));
    w->key[w->nextra] = key;
    w->extra[w->nextra] =
        (struct ry_link_extra){ f[0] ? xstrdup(f[0]) : NULL, f[1] && *f[1] ? xstrdup(f[1]) : NULL,
                                f[2] && *f[2] ? xstrdup(f[2]) : NULL,
                                f[3] && *f[3] ? xstrdup(f[3]) : NULL,
                                f[4] && *f[4] ? xstrdup(f[4]) : NULL };
    w->slot[s] = w->nextra + 1;
    return (uint32_t)w->nextra++;
}

int ry_links_writer_add(struct ry_links_writer *w, const struct ry_link *l,
                        const struct ry_link_extra *x, ry_error_t *err)
{
    unsigned char rec[RY_LINK_RECORD_BYTES];
    struct ry_link c = *l;

    c.extra = x ? extra_index(w, x) : RY_LINK_NONE;
    if (l->rail < 0 || l->rail > UINT16_MAX)
        return ry_errorf(err, "%s: link %u->%u: rail %d past a record's range", w->path, l->from,
                         l->to, l->rail);
    if (encode(&c, rec) < 0)
        return ry_errorf(err, "%s: link %u->%u rail %d: a figure past the record's range", w->path,
                         l->from, l->to, l->rail);
    if (wr(w, rec, sizeof(rec), err) < 0)
        return -1;
    w->count++;
    return 0;
}

int ry_links_writer_flush(struct ry_links_writer *w, ry_error_t *err)
{
#ifdef HAVE_ZLIB
    /* Z_FINISH ends the gzip member; the next write starts another */
    if (gzflush(w->gz, Z_FINISH) != Z_OK) {
        int e;
        const char *m = gzerror(w->gz, &e);
        return ry_errorf(err, "%s: %s", w->path, e == Z_ERRNO ? strerror(errno) : m);
    }
#else
    if (fflush(w->fp) != 0)
        return ry_errorf(err, "%s: %s", w->path, strerror(errno));
#endif
    return 0;
}

size_t ry_links_writer_count(const struct ry_links_writer *w)
{
    return w->count;
}

size_t ry_links_writer_nextra(const struct ry_links_writer *w)
{
    return w->nextra;
}

const struct ry_link_extra *ry_links_writer_extra(const struct ry_links_writer *w, size_t i)
{
    return i < w->nextra ? &w->extra[i] : NULL;
}

void ry_links_writer_close(struct ry_links_writer *w)
{
    if (!w)
        return;
#ifdef HAVE_ZLIB
    gzclose(w->gz);
#else
    fclose(w->fp);
#endif
    for (size_t i = 0; i < w->nextra; i++) {
        free((char *)w->extra[i].error);
        free((char *)w->extra[i].counters_from);
        free((char *)w->extra[i].counters_to);
        free((char *)w->extra[i].mem_from);
        free((char *)w->extra[i].mem_to);
        free(w->key[i]);
    }
    free(w->extra);
    free(w->key);
    free(w->slot);
    free(w);
}

/* ---- reading ---- */

struct rd {
    const char *path;
#ifdef HAVE_ZLIB
    gzFile gz;
#else
    FILE *fp;
#endif
};

/* bytes read (< n at the end), -1 with err */
static long long rd(struct rd *r, void *p, size_t n, ry_error_t *err)
{
#ifdef HAVE_ZLIB
    int got = gzread(r->gz, p, (unsigned)n);
    if (got < 0) {
        int e;
        const char *m = gzerror(r->gz, &e);
        return ry_errorf(err, "%s: %s", r->path, e == Z_ERRNO ? strerror(errno) : m);
    }
    return got;
#else
    size_t got = fread(p, 1, n, r->fp);
    if (got < n && ferror(r->fp))
        return ry_errorf(err, "%s: %s", r->path, strerror(errno));
    return (long long)got;
#endif
}

int ry_links_read(const char *path, size_t count, struct ry_link **v, ry_error_t *err)
{
    struct rd r = { .path = path };
    unsigned char hdr[RY_LINKS_HEADER_BYTES], *buf = NULL;
    const size_t chunk = 4096;
    size_t done = 0;
    long long got;
    unsigned version;
    size_t size;
    int rc = -1;

    *v = NULL;
#ifdef HAVE_ZLIB
    if (!(r.gz = gzopen(path, "rb")))
        return ry_errorf(err, "%s: %s", path, errno ? strerror(errno) : "cannot open");
    gzbuffer(r.gz, 1 << 18);
#else
    if (!(r.fp = fopen(path, "rb")))
        return ry_errorf(err, "%s: %s", path, strerror(errno));
#endif
    if ((got = rd(&r, hdr, sizeof(hdr), err)) < 0)
        goto out;
    if (got >= 2 && hdr[0] == 0x1f && hdr[1] == 0x8b) {
        ry_errorf(err, "%s: compressed link records, and railyard was built without zlib", path);
        goto out;
    }
    if (got < (long long)sizeof(hdr) || memcmp(hdr, RY_LINKS_MAGIC, 8)) {
        ry_errorf(err, "%s: not a railyard link record file (no RYLINKS header)", path);
        goto out;
    }
    version = get16(hdr + 8);
    size = version >= 1 && version <= RY_LINKS_VERSION ? record_bytes(version) : 0;
    if (!size || get16(hdr + 10) != size) {
        ry_errorf(err,
                  "%s: link records of version %u, %u bytes each; this railyard reads "
                  "versions 1 to %d (version %d: %d bytes)",
                  path, version, get16(hdr + 10), RY_LINKS_VERSION, RY_LINKS_VERSION,
                  RY_LINK_RECORD_BYTES);
        goto out;
    }
    *v = xmalloc_large(count ? count : 1, sizeof(**v)); /* decode fills every field */
    buf = xmalloc(chunk * size);
    while (done < count) {
        size_t want = count - done < chunk ? count - done : chunk;
        if ((got = rd(&r, buf, want * size, err)) < 0)
            goto out;
        for (size_t i = 0; i < (size_t)got / size; i++)
            decode(buf + i * size, version, &(*v)[done + i]);
        done += (size_t)got / size;
        if ((size_t)got < want * size)
            break;
    }
    if (done < count) {
        ry_errorf(err, "%s: %zu of %zu link records (the file ends early)", path, done, count);
        goto out;
    }
    rc = 0;
out:
#ifdef HAVE_ZLIB
    gzclose(r.gz);
#else
    fclose(r.fp);
#endif
    free(buf);
    if (rc < 0) {
        free(*v);
        *v = NULL;
    }
    return rc;
}

int ry_links_check(const char *path, const struct ry_link *v, size_t n, size_t nnodes, int rails,
                   size_t nextra, ry_error_t *err)
{
    for (size_t i = 0; i < n; i++) {
        const struct ry_link *l = &v[i];
        if (l->from >= nnodes || l->to >= nnodes)
            return ry_errorf(err, "%s: link record %zu: node %u past the report's %zu nodes", path,
                             i, l->from >= nnodes ? l->from : l->to, nnodes);
        if (l->rail >= rails)
            return ry_errorf(err, "%s: link record %zu: rail %d past the report's %d rails", path,
                             i, l->rail, rails);
        if (l->extra != RY_LINK_NONE && l->extra >= nextra)
            return ry_errorf(err, "%s: link record %zu: strings %u past the report's %zu", path, i,
                             l->extra, nextra);
        if (l->flags & ~(RY_LINK_OK | RY_LINK_LATENCY))
            return ry_errorf(err, "%s: link record %zu: unknown flags 0x%x", path, i, l->flags);
    }
    return 0;
}
