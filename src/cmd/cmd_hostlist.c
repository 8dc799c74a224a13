#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/hostlist.h"
#include "src/cmd/cmd.h"

/* railyard hostlist: Slurm-style host lists expanded (common/hostlist.c), so that scripts need no
 * parser of their own. Every list is checked before anything is printed: a script never acts on
 * half of what it was given. */

static int on_opt(int opt, const char *arg, void *ctx)
{
    (void)arg;
    if (opt != 'c')
        return -1;
    *(int *)ctx = 1;
    return 0;
}

static int print_host(const char *host, void *ctx)
{
    (void)ctx;
    return puts(host) == EOF ? -1 : 0;
}

static int run(int argc, char **argv)
{
    static const struct option extra[] = {
        { "count", no_argument, NULL, 'c' },
        { NULL, 0, NULL, 0 },
    };
    struct cmd_common common;
    ry_error_t err = { "" };
    int idx, count = 0, rc = RY_EXIT_OK;

    if ((idx = cmd_parse(&cmd_hostlist, argc, argv, &common, extra, "c", on_opt, &count)) < 0)
        return idx == -2 ? RY_EXIT_OK : RY_EXIT_ERROR;
    if (idx >= argc) {
        cmd_error("hostlist: give a host list (node[01-04,07],login1)");
        return RY_EXIT_ERROR;
    }
    for (int i = idx; i < argc; i++)
        if (ry_hostlist_validate(argv[i], &err) < 0) {
            cmd_error("hostlist: bad host list '%s': %s", argv[i], err.text);
            rc = RY_EXIT_ERROR;
        }
    if (rc != RY_EXIT_OK)
        return rc;
    for (int i = idx; i < argc; i++) {
        if (count)
            printf("%zu\n", ry_hostlist_count(argv[i]));
        else if (ry_hostlist_expand(argv[i], print_host, NULL, &err) != 0)
            break;
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        cmd_error("hostlist: cannot write: %s", strerror(errno));
        return RY_EXIT_ERROR;
    }
    return RY_EXIT_OK;
}

const struct cmd_entry cmd_hostlist = {
    .name = "hostlist",
    .run = run,
    .usage = "hostlist [--count] <hostlist>...",
    .summary = "expand host lists (node[01-04,07]) one host per line, or count them",
    .options = "  -c, --count          print how many hosts each list names instead\n",
    .no_node_inputs = 1,
    .options_anywhere = 1,
};
