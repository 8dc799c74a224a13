#include "config.h"

#include <string.h>

#include "probes/gpu.h"

/* Built without CUDA: the probes cannot run, and say so. */

const char probe_kernels_ptx[] = "";

int gpu_probe_run(struct topo_node *node, const struct gpu_probe_opts *o, char *notes,
                  size_t notes_len, ry_error_t *err)
{
    (void)node;
    (void)o;
    if (notes && notes_len)
        notes[0] = '\0';
    return ry_errorf(err, "this railyard was built without CUDA (configure --with-cuda)");
}
