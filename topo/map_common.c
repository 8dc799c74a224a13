#include "config.h"

#include <stddef.h>

#include <stdlib.h>
#include <string.h>

#include "common/hostlist.h"
#include "topo/map.h"

/* The parts of the map that do not need libyaml. */

static void type_free(struct map_node_type *t)
{
    free(t->name);
    free(t->gpu_model);
    for (size_t i = 0; i < t->nnics; i++) {
        free(t->nics[i].name);
        free(t->nics[i].netdev);
    }
    free(t->nics);
    for (size_t i = 0; i < t->nignore; i++)
        free(t->ignore[i]);
    free(t->ignore);
    for (size_t i = 0; i < t->nseverity; i++)
        free(t->severity[i].check);
    free(t->severity);
}

#define TH_KEY(f)                                                                                  \
    {                                                                                              \
#f, offsetof(struct map_thresholds, f)                                                     \
    }
const struct map_threshold_key map_threshold_keys[] = {
    TH_KEY(rail_bw_gbps),      TH_KEY(gdr_bw_gbps),    TH_KEY(h2d_gbps),
    TH_KEY(nvlink_pair_gbps),  TH_KEY(local_gbps),     TH_KEY(p2p_latency_us),
    TH_KEY(l2_latency_us),     TH_KEY(mem_latency_us), TH_KEY(launch_latency_us),
    TH_KEY(goodput_ratio_min), TH_KEY(ecn_marked_max), TH_KEY(collective_busbw_ratio_min),
};
const size_t map_nthreshold_keys = sizeof(map_threshold_keys) / sizeof(map_threshold_keys[0]);

double *topo_map_threshold_at(struct map_thresholds *th, size_t i)
{
    return (double *)((char *)th + map_threshold_keys[i].offset);
}

double *topo_map_threshold(struct map_thresholds *th, const char *key)
{
    for (size_t i = 0; i < map_nthreshold_keys; i++)
        if (!strcmp(map_threshold_keys[i].name, key))
            return topo_map_threshold_at(th, i);
    return NULL;
}

int topo_map_threshold_is_share(const char *key)
{
    return !strcmp(key, "goodput_ratio_min") || !strcmp(key, "ecn_marked_max") ||
           !strcmp(key, "collective_busbw_ratio_min");
}

void topo_map_thresholds_unset(struct map_thresholds *th)
{
    for (size_t i = 0; i < map_nthreshold_keys; i++)
        *topo_map_threshold_at(th, i) = -1;
}

void topo_map_destroy(struct topo_map *map)
{
    if (!map)
        return;
    for (size_t i = 0; i < map->ntypes; i++)
        type_free(&map->types[i]);
    free(map->types);
    for (size_t i = 0; i < map->nnodes; i++) {
        free(map->nodes[i].hostlist);
        free(map->nodes[i].type);
    }
    free(map->nodes);
    for (size_t i = 0; i < map->nrails; i++) {
        for (size_t j = 0; j < map->rails[i].nswitches; j++)
            free(map->rails[i].switches[j]);
        free(map->rails[i].switches);
    }
    free(map->rails);
    for (size_t i = 0; i < map->nseverity; i++)
        free(map->severity[i].check);
    free(map->severity);
    for (size_t i = 0; i < map->nignore; i++)
        free(map->ignore[i]);
    free(map->ignore);
    for (size_t i = 0; i < map->fabric.ncounters; i++)
        free(map->fabric.counters[i].name);
    free(map->fabric.counters);
    for (size_t i = 0; i < map->watch.nlimits; i++)
        free(map->watch.limits[i].name);
    free(map->watch.limits);
    free(map->fabric.expect);
    free(map->fabric.node_name_map);
    free(map->cluster);
    free(map->path);
    free(map);
}

const struct map_node_type *topo_map_type_by_name(const struct topo_map *map, const char *name)
{
    for (size_t i = 0; name && i < map->ntypes; i++)
        if (!strcmp(map->types[i].name, name))
            return &map->types[i];
    return NULL;
}

size_t topo_map_rail_ids(const struct topo_map *map, const struct map_node_type *type, int *ids,
                         size_t max)
{
    unsigned char on[TOPO_MAP_RAILS] = { 0 };
    size_t n = 0;
    for (size_t t = 0; t < map->ntypes; t++)
        for (size_t i = 0; (!type || &map->types[t] == type) && i < map->types[t].nnics; i++)
            if (map->types[t].nics[i].rail >= 0 && map->types[t].nics[i].rail < TOPO_MAP_RAILS)
                on[map->types[t].nics[i].rail] = 1;
    for (int id = 0; id < TOPO_MAP_RAILS; id++)
        if (on[id] && n++ < max)
            ids[n - 1] = id;
    return n;
}

const struct map_node_type *topo_map_type_for_host(const struct topo_map *map, const char *host)
{
    for (size_t i = 0; host && i < map->nnodes; i++)
        if (ry_hostlist_match(map->nodes[i].hostlist, host, NULL) == 1)
            return topo_map_type_by_name(map, map->nodes[i].type);
    return NULL;
}

const char *topo_sev_name(enum topo_sev s)
{
    switch (s) {
    case TOPO_SEV_OK: return "ok";
    case TOPO_SEV_WARN: return "warn";
    case TOPO_SEV_FAIL: return "fail";
    default: return "ignore";
    }
}
