#ifndef RAILYARD_TOP_TEST_H
#define RAILYARD_TOP_TEST_H

#include <stddef.h>
#include <sys/types.h>

#include "common/error.h"
#include "top/top.h"
#include "topo/map.h"

/* The active test of railyard top: a command template ({node}, {peer}, {rail}, {pairs}: a file
 * holding the line "<node> <peer>") that prints railyard-fabric's --json, run in the background
 * for one port and a peer. */
struct top_test {
    pid_t pid; /* running: > 0 */
    int fd;
    char *buf;
    size_t len, cap;
    double started, deadline;
    char node[TOP_NAME], peer[TOP_NAME], pairs[256];
    int rail;
    enum top_sev sev;
};

/* The environment variables that hold the values of {node}, {peer}, {rail} and {pairs} */
#define TOP_TEST_ENV_NODE  "RAILYARD_TOP_NODE"
#define TOP_TEST_ENV_PEER  "RAILYARD_TOP_PEER"
#define TOP_TEST_ENV_RAIL  "RAILYARD_TOP_RAIL"
#define TOP_TEST_ENV_PAIRS "RAILYARD_TOP_PAIRS"

/* The command given to sh -c for a template (free it): each {name} becomes a quoted reference
 * to its variable, fit for where it stands in the template's quotes, so that no value is ever
 * read as shell code. */
char *top_test_command(const char *tmpl);

void top_test_init(struct top_test *t);
int top_test_running(const struct top_test *t);
/* The peer of port p: the next node (natural order) with a port on its rail, else the map's
 * next host. 0, or -1 when there is none. */
int top_test_peer(const struct top_model *m, const struct topo_map *map, const struct top_port *p,
                  char *peer, size_t len);
/* Start the test; 0, or -1 with err (one test at a time). */
int top_test_start(struct top_test *t, const char *tmpl, const struct top_port *p, const char *peer,
                   double timeout, ry_error_t *err);
/* Read what the test printed; when it ended (or passed its deadline, then stopped), m->status
 * says the result. 1 when the status changed to a result, 0 otherwise. Never blocks. */
int top_test_poll(struct top_test *t, struct top_model *m);
/* Stop a running test (its process group) and free. */
void top_test_stop(struct top_test *t);

#endif
