#ifndef RAILYARD_FABRIC_HOST_H
#define RAILYARD_FABRIC_HOST_H

/* Whether a measurement was limited by its own host rather than by the link: the CPU time the
 * measuring thread used, the time it was runnable but waited for a CPU (the scheduler's run
 * delay), and the host's CPU pressure (the share of the time some task of the host waited for a
 * CPU: the kernel's network work, softirq threads among them, which the rank's own figures do
 * not see), over the measurement. A rank that waited for a CPU a tenth of a round, whose host
 * was short of CPU a tenth of it, or that used a full core, measured its host as much as its
 * link. */

struct fabric_host_sample {
    double wall;     /* CLOCK_MONOTONIC, seconds */
    double cpu;      /* the thread's CPU time, seconds; <0 unknown */
    double wait;     /* the thread's run delay so far, seconds (/proc/thread-self/schedstat);
                        <0 unknown (a kernel without schedstat) */
    double pressure; /* the host's "some" CPU stall time so far, seconds (/proc/pressure/cpu);
                        <0 unknown (a kernel without PSI, or it switched off) */
};

/* Sample the calling thread and its host now. */
void fabric_host_sample(struct fabric_host_sample *s);

/* The "some" total of a /proc/pressure/cpu text, in seconds; -1 when it has none. */
double fabric_host_parse_pressure(const char *text);

/* Over [a, b]: the share of the wall time the thread ran (*cpu_frac), waited for a CPU
 * (*wait_frac), and some task of the host waited for one (*pressure_frac), each in 0..1, or -1
 * when unknown. */
void fabric_host_load(const struct fabric_host_sample *a, const struct fabric_host_sample *b,
                      double *cpu_frac, double *wait_frac, double *pressure_frac);

/* The rule, on the figures of the two ends of a link (each <0 when unknown): the share of the
 * link's expected bandwidth its hosts could have delivered: 1 - the longest wait or pressure
 * (the time lost explains that much of the floor, however small: a busy host slows a link by a
 * few percent with waits of a few percent), 1 where none is known, 0 when an end was CPU-bound
 * (ran FABRIC_HOST_CPU of the round). A pressure counts for at most FABRIC_HOST_PRESSURE_MAX: it
 * is the wait of some task of the host, the rank's own among them, not a measure of the link's
 * loss. Pass -1 as the pressures for the rank's own figures alone. FABRIC_HOST_WAIT is the wait
 * past which a latency is the scheduler's, and a report names the wait. */
#define FABRIC_HOST_WAIT         0.10
#define FABRIC_HOST_CPU          0.90
#define FABRIC_HOST_PRESSURE_MAX 0.50
double fabric_host_share(double cpu_a, double wait_a, double pressure_a, double cpu_b,
                         double wait_b, double pressure_b);

#endif
