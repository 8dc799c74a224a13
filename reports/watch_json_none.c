#include "config.h"

#include <string.h>

#include "reports/watch_json.h"

/* railyard built without a JSON library: watch cannot keep its log or its state */

char *ry_watch_event_line(enum watch_phase phase, const struct watch_event *e, const char *host,
                          double wall_minus_mono, ry_error_t *err)
{
    (void)phase, (void)e, (void)host, (void)wall_minus_mono;
    ry_errorf(err, "railyard was built without a JSON library (jansson): no event log");
    return NULL;
}

int ry_watch_state_write(const char *path, const struct ry_watch_state *s, ry_error_t *err)
{
    (void)s;
    return ry_errorf(err, "%s: railyard was built without a JSON library (jansson): no state file",
                     path);
}

int ry_watch_state_read(const char *path, struct ry_watch_read *r, ry_error_t *err)
{
    memset(r, 0, sizeof(*r));
    return ry_errorf(err,
                     "%s: railyard was built without a JSON library (jansson): the watch's "
                     "state cannot be read",
                     path);
}

void ry_watch_read_free(struct ry_watch_read *r)
{
    (void)r;
}

int ry_watch_events_list(const char *log, const struct ry_watch_events_query *q, FILE *fp,
                         ry_error_t *err)
{
    (void)q, (void)fp;
    return ry_errorf(err,
                     "%s: railyard was built without a JSON library (jansson): the events "
                     "cannot be read",
                     log);
}

int ry_watch_event_parse(const char *line, struct ry_watch_seen *e, char *host, size_t hostlen)
{
    (void)line, (void)host, (void)hostlen;
    memset(e, 0, sizeof(*e));
    return -1;
}
