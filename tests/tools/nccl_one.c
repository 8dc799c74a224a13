#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "fabric/nccl.h"
#include "fabric/transport.h"

/* One rank's NCCL all-reduce on GPU 0 through railyard's NCCL path (fabric/nccl.c, libnccl.so.2
 * by dlopen): what railyard-fabric's collective phase does on each rank of a GPU cluster, on the
 * one GPU a test machine has (NCCL refuses two ranks on one GPU).
 *   nccl_one [BYTES]     default 64 MiB
 * Prints the figures; exit 0 when the collective ran, 1 when it failed, 77 (skip) when NCCL or
 * the GPU cannot be loaded here, saying why. */
int main(int argc, char **argv)
{
    size_t size = argc > 1 ? strtoull(argv[1], NULL, 0) : 64u << 20;
    unsigned char id[FABRIC_NCCL_ID_BYTES];
    struct fabric_nccl *h;
    ry_error_t err = { "" };
    double warm, sec;
    int version = 0, iters = 20;

    if (fabric_nccl_load(0, &version, &err) < 0) {
        printf("cannot run here: %s\n", err.text);
        return 77;
    }
    if (fabric_nccl_unique_id(id, &err) < 0 || !(h = fabric_nccl_open(id, 1, 0, 0, size, &err))) {
        printf("NCCL %d: %s\n", version, err.text);
        return 1;
    }
    if (fabric_nccl_time(h, FABRIC_COLL_ALLREDUCE, size, 2, fabric_now() + 60, &warm, &err) < 0 ||
        fabric_nccl_time(h, FABRIC_COLL_ALLREDUCE, size, iters, fabric_now() + 60, &sec, &err) <
            0) {
        printf("NCCL %d: %s\n", version, err.text);
        fabric_nccl_close(h);
        return 1;
    }
    printf("NCCL %d allreduce %zu bytes, 1 rank on GPU 0: %.1f us per iteration (%d), algbw "
           "%.2f GB/s, busbw %.2f GB/s\n",
           version, size, sec * 1e6, iters, (double)size / sec / 1e9,
           (double)size / sec / 1e9 * fabric_coll_bus_factor(FABRIC_COLL_ALLREDUCE, 1));
    fabric_nccl_close(h);
    return 0;
}
