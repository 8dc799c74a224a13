#ifndef RAILYARD_REPORTS_RENDER_JSON_H
#define RAILYARD_REPORTS_RENDER_JSON_H

#include <jansson.h>

/* Field access for the renderers (reports/render*.c): a missing or mistyped field reads as
 * NULL or the default, never as an error. */

static inline const char *str(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static inline double num(json_t *o, const char *key, double dflt)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : dflt;
}

#endif
