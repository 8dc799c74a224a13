#ifndef RAILYARD_FABRIC_HOST_H
#define RAILYARD_FABRIC_HOST_H

/* Whether a measurement was limited by its own host rather than by the link: the CPU time the
 * measuring thread used, and the time it was runnable but waited for a CPU (the scheduler's
 * run delay), over the measurement. A rank that waited for a CPU a tenth of a round, or that
 * used a full core, measured its host as much as its link. */

struct fabric_host_sample {
    double wall; /* CLOCK_MONOTONIC, seconds */
    double cpu;  /* the thread's CPU time, seconds; <0 unknown */
    double wait; /* the thread's run delay so far, seconds (/proc/thread-self/schedstat);
                    <0 unknown (a kernel without schedstat) */
};

/* Sample the calling thread now. */
void fabric_host_sample(struct fabric_host_sample *s);

/* Over [a, b]: the share of the wall time the thread ran (*cpu_frac) and waited for a CPU
 * (*wait_frac), each in 0..1, or -1 when unknown. */
void fabric_host_load(const struct fabric_host_sample *a, const struct fabric_host_sample *b,
                      double *cpu_frac, double *wait_frac);

/* The rule, on the figures of the two ends of a link (each <0 when unknown): the share of the
 * link's expected bandwidth its hosts could have delivered, 1 when neither was starved (waited
 * for a CPU less than FABRIC_HOST_WAIT of the round) nor CPU-bound (ran FABRIC_HOST_CPU of it);
 * 1 - the longer wait otherwise, 0 when an end was CPU-bound. */
#define FABRIC_HOST_WAIT 0.10
#define FABRIC_HOST_CPU  0.90
double fabric_host_share(double cpu_a, double wait_a, double cpu_b, double wait_b);

#endif
