/* The one-way latency of a cache line between CPU 0 and CPU 1 (ns): two threads pinned there
 * pass a counter back and forth for the given seconds (default 0.1) and the median of 0.05 s
 * windows is printed. On the 2-vCPU EPYC machines it reads ~42 ns when both vCPUs sit on one
 * core complex and ~185-210 ns when they sit on two (the host moves them every few minutes);
 * bench/harness.py core_latency_ns() compiles and runs it to label measurements. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static _Alignas(64) atomic_long flag;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int pin(int cpu) {
  cpu_set_t s;
  CPU_ZERO(&s);
  CPU_SET(cpu, &s);
  return pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

static void *peer(void *arg) {
  (void)arg;
  pin(1);
  for (;;) {
    long v = atomic_load_explicit(&flag, memory_order_acquire);
    if (v < 0) break;
    if (v & 1) atomic_store_explicit(&flag, v + 1, memory_order_release);
  }
  return NULL;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  double secs = argc > 1 ? atof(argv[1]) : 0.1;
  if (pin(0) != 0) return 2;
  pthread_t t;
  if (pthread_create(&t, NULL, peer, NULL) != 0) return 2;
  double w[256];
  int nw = 0;
  const double t0 = now();
  while (nw < 256 && (now() - t0 < secs || nw == 0)) {
    const double ts = now();
    long n = 0;
    while (now() - ts < 0.05) {
      for (int i = 0; i < 200; i++) {
        long v = atomic_load_explicit(&flag, memory_order_relaxed);
        atomic_store_explicit(&flag, v + 1, memory_order_release);
        while (atomic_load_explicit(&flag, memory_order_acquire) == v + 1) {
        }
      }
      n += 200;
    }
    w[nw++] = (now() - ts) / (double)n * 1e9 / 2;
  }
  atomic_store(&flag, -1);
  pthread_join(t, NULL);
  qsort(w, (size_t)nw, sizeof w[0], cmp);
  printf("%.0f\n", w[nw / 2]);
  return 0;
}
