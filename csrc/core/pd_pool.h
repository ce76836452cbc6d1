/* How many OpenMP threads a kernel call may use (pd_pool.c): one pool, shared by Python threads
 * and adapted to other processes taking the cores. pd_op_run's kernel call is bracketed by
 * pd_pool_enter / pd_pool_leave. */
#ifndef PD_POOL_H
#define PD_POOL_H
#include <stdint.h>

/* kernel calls whose inputs and outputs all hold fewer elements than this never split (every
 * kernel's grain is larger) and skip the bookkeeping */
#define PD_POOL_SMALL 16384

typedef struct {
  int kind; /* 0: nested or single-thread config, 1: holds the pool (3: and is timed, 4: and is
             * a timed sample), 2: ran
             * beside the holder */
  uint64_t t0;
} pd_pool_ticket;

pd_pool_ticket pd_pool_enter(void);
void pd_pool_leave(pd_pool_ticket t);
void pd_pool_set_threads(int n); /* paddle.set_num_threads */
/* FLAGS_cpu_deterministic (read from the environment once; the setter overrides it): every call
 * at the configured count, no governor windows, so results repeat bit for bit */
int pd_pool_deterministic(void);
void pd_pool_set_deterministic(int on);
int pd_pool_threads(void);       /* the configured count */
/* n, or 1 on the thread that called fork() in a child process (its libgomp pool is stale):
 * every omp_set_num_threads outside this file goes through it */
int pd_pool_clamp(int n);
void pd_pool_stats(long *guest_calls, long *windows, long *single_calls, int *mode);
/* Around creating a oneDNN primitive, which may fix its thread count then (the GEMM convolution
 * splits its sums and its work by it for good): where the governor has left this thread on fewer
 * threads than configured (a one-thread window; also for calls too small to enter the pool, which
 * run on the ICV it left), the configured count (the predictor's own where set) for the creation,
 * so a primitive first made in such a window does not run on one thread (and compute other last
 * bits) from then on. Returns what pd_pool_create_end restores (0: nothing changed: a guest call
 * beside the holder, inside a parallel region, or already at the configured count). */
int pd_pool_create_begin(void);
void pd_pool_create_end(int prev);
/* a predictor run on this thread: n threads in place of the configured count (the governor still
 * decides per kernel call); returns what pd_pool_local_end restores */
int pd_pool_local_begin(int n);
void pd_pool_local_end(int prev);

/* the pool for a region the caller runs itself (the predictor's batch split across the threads,
 * each part on one thread): 1 where no kernel call holds it (then the caller holds it until
 * pd_pool_hold_release; no governor accounting), 0 where one does */
int pd_pool_hold_try(void);
void pd_pool_hold_release(void);

#endif
