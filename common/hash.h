#ifndef RAILYARD_COMMON_HASH_H
#define RAILYARD_COMMON_HASH_H

#include <stddef.h>
#include <stdint.h>

/* FNV-1a over a string, for the open-addressing tables of names (link strings, console rows):
 * start from RY_HASH_INIT, chain ry_hash_str/ry_hash_byte for keys of several parts. */
#define RY_HASH_INIT ((size_t)(1469598103934665603ULL & SIZE_MAX))

static inline size_t ry_hash_byte(size_t h, unsigned char c)
{
    return (h ^ c) * (size_t)1099511628211ULL;
}

static inline size_t ry_hash_str(size_t h, const char *s)
{
    for (; *s; s++)
        h = ry_hash_byte(h, (unsigned char)*s);
    return h;
}

#endif
