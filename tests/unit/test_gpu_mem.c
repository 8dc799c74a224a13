#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabric/cuda.h"
#include "fabric/mem.h"
#include "tests/tap/tap.h"

/* GPU memory as the verbs transport uses it, on a real GPU: the driver loaded at run time, a
 * buffer on the device, the data pattern written and checked through it, a corruption found at
 * its offset, and the dma-buf export that GPUDirect RDMA registration starts from. Without a
 * GPU driver it skips, saying why. Usage: test_gpu_mem.t [cuda:N | cuda:BUSID] (default cuda:0). */

int main(int argc, char **argv)
{
    const char *spec = argc > 1 ? argv[1] : "cuda:0";
    const size_t msg = 64 * 1024, size = 16 * msg;
    struct fabric_mem m;
    ry_error_t err = { "" };
    int fd = -1;

    if (fabric_cuda_load(&err) < 0)
        skip_all(err.text);
    if (fabric_mem_alloc(&m, spec, NULL, NULL, size, &err) < 0) {
        ok(0, "%s: %s", spec, err.text);
        return done_testing();
    }
    ok(1, "%s: %zu bytes on %s (%s, dma-buf attribute %d, GPUDirect RDMA attribute %d)", spec,
       m.size, m.desc, m.gpu.name, m.gpu.dma_buf, m.gpu.gdr);
    ok(m.cuda && m.dev.dptr != 0 && m.size >= size, "device memory, page-rounded size");
    is_int(fabric_mem_fill(&m, msg, &err), 0, "pattern written through the driver %s", err.text);
    memset(m.host, 0, m.size); /* the check must read the device, not the staging copy */
    is_int(fabric_mem_check(&m, 0, m.size, msg, 1, &err), 0, "every byte read back %s", err.text);
    {
        char bad = 0x55;
        fabric_cuda_copy(&m.dev, 5 * msg + 777, &bad, 1, 1, &err);
        ok(fabric_mem_check(&m, 0, m.size, msg, 1, &err) < 0 &&
               strstr(err.text, "offset 328457 of the GPU buffer"),
           "a corrupted byte is found at its offset: %s", err.text);
    }
    is_int(fabric_mem_clear(&m, &err), 0, "cleared");
    ok(fabric_mem_check(&m, 0, msg, msg, 0, &err) < 0, "a cleared buffer fails the check");
    if (fabric_cuda_dmabuf(&m.dev, &fd, &err) == 0) {
        char link[64], target[256] = "";
        ssize_t n;
        snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
        n = readlink(link, target, sizeof(target) - 1);
        target[n > 0 ? n : 0] = '\0';
        ok(fd >= 0, "exported as dma-buf: fd %d -> %s", fd, target);
        ok(strstr(target, "dmabuf") != NULL, "the descriptor is a dma-buf");
        close(fd);
    } else {
        ok(m.gpu.dma_buf != 1, "dma-buf export refused (%s), and the driver does not claim it",
           err.text);
        diag("dma-buf export: %s", err.text);
    }
    fabric_mem_free(&m);
    return done_testing();
}
