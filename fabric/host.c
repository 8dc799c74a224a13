#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "fabric/host.h"

double fabric_host_parse_pressure(const char *text)
{
    const char *s = text;

    /* "some avg10=0.00 avg60=0.00 avg300=0.00 total=<us>" */
    while (s && *s) {
        const char *t;
        unsigned long long us;
        if (strncmp(s, "some ", 5) == 0 && (t = strstr(s, " total=")) &&
            (!strchr(s, '\n') || t < strchr(s, '\n')) && sscanf(t + 7, "%llu", &us) == 1)
            return (double)us / 1e6;
        s = strchr(s, '\n');
        s = s ? s + 1 : NULL;
    }
    return -1;
}

void fabric_host_sample(struct fabric_host_sample *s)
{
    struct timespec ts;
    unsigned long long run, delay;
    char text[512];
    size_t n;
    FILE *f;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    s->wall = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
    s->cpu = clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0
                 ? (double)ts.tv_sec + (double)ts.tv_nsec / 1e9
                 : -1;
    s->wait = -1;
    /* the process's own scheduler statistics: "<ns on a CPU> <ns waiting on a runqueue>
     * <timeslices>" (this thread's; not a machine fact, so not read through a sysfs root) */
    if ((f = fopen("/proc/thread-self/schedstat", "r")) ||
        (f = fopen("/proc/self/schedstat", "r"))) {
        if (fscanf(f, "%llu %llu", &run, &delay) == 2)
            s->wait = (double)delay / 1e9;
        fclose(f);
    }
    /* the host's CPU pressure now, as it is over the round (a live figure of this kernel, read
     * where the rank runs, like its schedstat) */
    s->pressure = -1;
    if ((f = fopen("/proc/pressure/cpu", "r"))) {
        n = fread(text, 1, sizeof(text) - 1, f);
        text[n] = '\0';
        s->pressure = fabric_host_parse_pressure(text);
        fclose(f);
    }
}

static double frac(double x, double wall)
{
    if (x < 0 || wall <= 0)
        return -1;
    return x / wall > 1 ? 1 : x / wall;
}

void fabric_host_load(const struct fabric_host_sample *a, const struct fabric_host_sample *b,
                      double *cpu_frac, double *wait_frac, double *pressure_frac)
{
    double wall = b->wall - a->wall;

#ifdef RAILYARD_SMPI
    /* simulated ranks share one real process: its load says nothing of the simulated links */
    (void)wall;
    *cpu_frac = *wait_frac = *pressure_frac = -1;
    return;
#endif
    *cpu_frac = a->cpu >= 0 && b->cpu >= a->cpu ? frac(b->cpu - a->cpu, wall) : -1;
    *wait_frac = a->wait >= 0 && b->wait >= a->wait ? frac(b->wait - a->wait, wall) : -1;
    *pressure_frac =
        a->pressure >= 0 && b->pressure >= a->pressure ? frac(b->pressure - a->pressure, wall) : -1;
}

double fabric_host_share(double cpu_a, double wait_a, double pressure_a, double cpu_b,
                         double wait_b, double pressure_b)
{
    double wait = wait_a > wait_b ? wait_a : wait_b,
           pressure = pressure_a > pressure_b ? pressure_a : pressure_b;

    /* the host's pressure is some task's wait, not necessarily the link's: it explains at most
     * FABRIC_HOST_PRESSURE_MAX of the floor (a link slower than that is the link's) */
    if (pressure > FABRIC_HOST_PRESSURE_MAX)
        pressure = FABRIC_HOST_PRESSURE_MAX;
    if (pressure > wait)
        wait = pressure;
    if (cpu_a >= FABRIC_HOST_CPU || cpu_b >= FABRIC_HOST_CPU)
        return 0;
    return wait > 0 ? 1 - wait : 1;
}
