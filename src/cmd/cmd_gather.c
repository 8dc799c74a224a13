#include "config.h"

#include <stdio.h>
#include <string.h>

#include "readers/discover.h"
#include "src/cmd/cmd.h"

struct gather_opts {
    const char *output;
};

static int on_opt(int opt, const char *arg, void *ctx)
{
    struct gather_opts *g = ctx;

    if (opt != 'o')
        return -1;
    g->output = arg;
    return 0;
}

static int run(int argc, char **argv)
{
    static const struct option extra[] = {
        { "output", required_argument, NULL, 'o' },
        { NULL, 0, NULL, 0 },
    };
    struct gather_opts g = { NULL };
    struct cmd_common common;
    ry_error_t err = { "" };
    int idx;

    if ((idx = cmd_parse(&cmd_gather, argc, argv, &common, extra, "o:", on_opt, &g)) < 0)
        return idx == -2 ? RY_EXIT_OK : RY_EXIT_ERROR;
    if (idx < argc) {
        cmd_error("gather: unexpected argument '%s'", argv[idx]);
        return RY_EXIT_ERROR;
    }
    if (topo_inputs_given(&common.inputs)) {
        cmd_error("gather: captures the live machine; it takes no input options");
        return RY_EXIT_ERROR;
    }
    if (!g.output) {
        cmd_error("gather: -o <file.tar.gz> is required");
        return RY_EXIT_ERROR;
    }
    if (topo_gather(g.output, &err) < 0) {
        cmd_error("gather: %s", err.text);
        return RY_EXIT_ERROR;
    }
    if (common.verbose)
        fprintf(stderr, "railyard: gather: wrote %s\n", g.output);
    return RY_EXIT_OK;
}

const struct cmd_entry cmd_gather = {
    .name = "gather",
    .run = run,
    .usage = "gather -o <file.tar.gz> [-v]",
    .summary = "capture what discovery reads on this node into a bundle for --bundle",
    .options = "  -o, --output <file>  the bundle to write (required)\n",
};
