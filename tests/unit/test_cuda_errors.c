#include "config.h"

#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabric/cuda.h"
#include "tests/tap/tap.h"

/* fabric/cuda.c against the test driver (tests/tools/fakecuda.c) standing in for libcuda.so.1:
 * the paths a real driver takes only on a GPU in trouble. A failed allocation or a context
 * that cannot be made current leaves no reference on the primary context; a small buffer,
 * which cuMemAlloc does not page-align, is still exported as dma-buf (the driver takes only
 * page-aligned ranges); what was allocated is freed. The test runs itself again with the test
 * driver's folder first on LD_LIBRARY_PATH (read by the loader only at start). */

static int (*refs)(int);
static int (*live)(void);

int main(int argc, char **argv)
{
    struct fabric_cuda_buf b;
    ry_error_t err = { "" };
    void *dl;
    int fd = -1;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);

    if (!getenv("RAILYARD_FAKECUDA_RUN")) {
        char self[PATH_MAX], dir[PATH_MAX + 32];
        ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
        if (n <= 0)
            skip_all("cannot read /proc/self/exe");
        self[n] = '\0';
        snprintf(dir, sizeof(dir), "%s/../tools/fakecuda", dirname(self));
        setenv("LD_LIBRARY_PATH", dir, 1);
        setenv("RAILYARD_FAKECUDA_RUN", "1", 1);
        (void)argc;
        execv("/proc/self/exe", argv);
        skip_all("cannot run itself again");
    }
    if (!(dl = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) ||
        !(*(void **)&refs = dlsym(dl, "fakecuda_refs")) ||
        !(*(void **)&live = dlsym(dl, "fakecuda_live"))) {
        ok(0, "the test driver is loaded as libcuda.so.1 (%s)", dlerror());
        return done_testing();
    }
    is_int(fabric_cuda_load(&err), 0, "the test driver loads and initialises %s", err.text);

    unsetenv("FAKECUDA_FAIL");
    setenv("FAKECUDA_OFFSET", "256", 1);
    is_int(fabric_cuda_alloc(0, 1000, &b, &err), 0, "1000 bytes on GPU 0 %s", err.text);
    ok(b.dptr % page == 0 && b.size == page && b.base != b.dptr && b.dptr - b.base < page,
       "...a page-aligned buffer of a page (allocation at page + %llu, buffer at page + %llu)",
       (unsigned long long)(b.base % page), (unsigned long long)(b.dptr % page));
    is_int(refs(0), 1, "...holding one reference on the primary context");
    is_int(fabric_cuda_dmabuf(&b, &fd, &err), 0, "...exported as dma-buf %s", err.text);
    if (fd >= 0)
        close(fd);
    {
        char pat[3000], back[3000];
        memset(pat, 0x3c, sizeof(pat));
        ok(fabric_cuda_copy(&b, 1000, pat, sizeof(pat), 1, &err) == 0 &&
               fabric_cuda_copy(&b, 1000, back, sizeof(back), 0, &err) == 0 &&
               !memcmp(pat, back, sizeof(pat)),
           "...written and read back up to its last byte %s", err.text);
        ok(fabric_cuda_copy(&b, 2000, pat, sizeof(pat), 1, &err) < 0 &&
               strstr(err.text, "past the 4096-byte GPU buffer"),
           "...and no further: %s", err.text);
    }
    fabric_cuda_free(&b);
    ok(refs(0) == 0 && live() == 0, "freed: no reference, no allocation left (%d, %d)", refs(0),
       live());

    setenv("FAKECUDA_OFFSET", "0", 1);
    err.text[0] = '\0';
    is_int(fabric_cuda_alloc(0, 4 << 20, &b, &err), 0, "4 MiB, allocated page-aligned %s",
           err.text);
    ok(b.dptr == b.base && b.size == (size_t)4 << 20, "...the buffer starts at the allocation");
    fabric_cuda_free(&b);

    setenv("FAKECUDA_FAIL", "alloc", 1);
    ok(fabric_cuda_alloc(0, 1 << 20, &b, &err) < 0 &&
           !strcmp(err.text, "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (2)"),
       "an allocation the driver refuses: %s", err.text);
    ok(refs(0) == 0 && b.dptr == 0 && b.base == 0,
       "...leaves no reference on the primary context (%d) and no buffer", refs(0));
    fabric_cuda_free(&b);
    is_int(refs(0), 0, "...and freeing the empty buffer releases nothing");

    setenv("FAKECUDA_FAIL", "ctx_set", 1);
    ok(fabric_cuda_alloc(0, 1 << 20, &b, &err) < 0 && strstr(err.text, "cuCtxSetCurrent"),
       "a context that cannot be made current: %s", err.text);
    ok(refs(0) == 0 && live() == 0, "...leaves no reference (%d) and allocates nothing (%d)",
       refs(0), live());
    unsetenv("FAKECUDA_FAIL");

    ok(fabric_cuda_alloc(1, 4096, &b, &err) < 0 && strstr(err.text, "cuDeviceGet"),
       "a GPU the driver does not have: %s", err.text);
    is_int(refs(0), 0, "...nothing held");

    {
        struct fabric_cuda_buf x[3];
        int good = 0;
        setenv("FAKECUDA_OFFSET", "512", 1);
        for (int i = 0; i < 3; i++)
            good += fabric_cuda_alloc(0, 100 * (i + 1), &x[i], &err) == 0;
        is_int(refs(0), 3, "three buffers: three references (%d allocated)", good);
        for (int i = 0; i < 3; i++)
            fabric_cuda_free(&x[i]);
        ok(refs(0) == 0 && live() == 0, "...all given back");
    }
    return done_testing();
}
