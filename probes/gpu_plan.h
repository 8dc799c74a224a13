#ifndef RAILYARD_PROBES_GPU_PLAN_H
#define RAILYARD_PROBES_GPU_PLAN_H

#include <stddef.h>
#include <stdint.h>

/* How the GPU probes (probes/gpu.c) size and lay out their work, as pure functions of what the
 * driver reports: built in every configuration, so that the unit tests check them where no GPU
 * is (tests/unit/test_gpu_plan.c). */

/* Pointer chase. A chain is span bytes of 64-bit words; every stride bytes a node whose first
 * word is the word index of the next node; the nodes form one cycle in a random order fixed by
 * seed. gpu_chain_build fills chain (span / 8 words; span and stride multiples of 8, stride at
 * most span) and returns the number of nodes, 0 when the sizes are unusable. */
size_t gpu_chain_build(uint64_t *chain, size_t span, size_t stride, uint64_t seed);

/* Follow the chain on the host as the chase kernel does: from word index start, steps loads.
 * Returns the word index reached, or UINT64_MAX when a load would leave the chain's words
 * (what the GPU reports as an illegal address). */
uint64_t gpu_chain_walk(const uint64_t *chain, size_t words, uint64_t start, uint64_t steps);

/* A latency chase: the chain's size, an untimed warm-up from node 0, then the timed chase.
 * For memory latency the timed chase visits only nodes the warm-up did not touch and starts
 * after flush_bytes of other data went through L2 (the chain was just uploaded, and its end
 * would still be there); for the L2-hit latency the chain fits in L2 and the warm-up visits
 * every node first. */
struct gpu_chase_plan {
    size_t span, stride; /* bytes of the chain, bytes per node */
    uint64_t nodes;
    uint64_t warm_steps;  /* the warm-up from word 0 (it also fills the TLB) */
    uint64_t timed_steps; /* the timed chase, from where the warm-up ended */
    size_t flush_bytes;   /* streamed through L2 between the upload and the warm-up (0: none) */
};

/* Memory latency over a buffer of span bytes (4 KiB nodes) on a GPU whose L2 holds l2_bytes
 * (0: unknown, taken as 128 MiB), with up to steps timed loads. The flush is twice the L2, at
 * most span. -1 when span is too small for a chain. */
int gpu_chase_plan_memory(struct gpu_chase_plan *p, size_t span, size_t l2_bytes, uint64_t steps);

/* L2-hit latency: a chain of 64-byte nodes of 1 MiB, or a quarter of a smaller L2. */
int gpu_chase_plan_l2(struct gpu_chase_plan *p, size_t l2_bytes, uint64_t steps);

/* The bytes of each of a GPU's two buffers: at least the copy size, 256 MiB, and four times
 * the L2 (so that the flush and the memory chain both pass well beyond it). */
size_t gpu_buffer_span(size_t copy_bytes, size_t l2_bytes);

/* The SM copy kernel's grid: enough blocks of block threads to fill every multiprocessor (the
 * most threads one multiprocessor runs at once), at least one block per multiprocessor; when
 * the driver gave neither count (0), 1024 blocks. Never more blocks than the copy has groups
 * of block x 4 words (each thread keeps four 16-byte loads in flight), never fewer than 1. */
unsigned gpu_copy_grid(int multiprocessors, int max_threads_per_mp, unsigned block,
                       uint64_t words16);

#endif
