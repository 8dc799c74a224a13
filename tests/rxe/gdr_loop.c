#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "probes/gdr_loop.h"

/* The GPUDirect loop of railyard probe (probes/gdr_loop.c) on one port, whatever the memory:
 * gdr_loop NETDEV MEM [SECONDS]. Prints "gbytes X mem DESC", exit 0, or the error, exit 2. Run
 * by tests/rxe/guest-tests.sh on a Soft-RoCE port, where host memory loops and GPU memory
 * cannot be had. */
int main(int argc, char **argv)
{
    struct gdr_loop r;
    ry_error_t err = { "" };

    if (argc < 3) {
        fprintf(stderr, "usage: gdr_loop NETDEV MEM [SECONDS]\n");
        return 2;
    }
    if (gdr_loopback(argv[1], argv[2], argc > 3 ? atof(argv[3]) : 1.0, &r, &err) < 0) {
        fprintf(stderr, "gdr_loop: %s\n", err.text);
        return 2;
    }
    printf("gbytes %.4f mem %s\n", r.gbytes, r.mem);
    return 0;
}
