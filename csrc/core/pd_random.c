/* Global Philox generator state (see pd_random.h). */
#include "pd_random.h"
#include <stdatomic.h>
#include <time.h>

static uint64_t g_key = 0x853c49e6748fea9bULL;
static _Atomic uint64_t g_offset = 0;
static int g_seeded = 0;

static void ensure_seeded(void) {
  if (!g_seeded) {
    g_seeded = 1;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    g_key = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ULL ^ (uint64_t)ts.tv_sec;
  }
}

void pd_random_seed(uint64_t seed) {
  g_seeded = 1;
  g_key = seed;
  atomic_store(&g_offset, 0);
}

void pd_random_get_state(uint64_t *seed, uint64_t *offset) {
  ensure_seeded();
  *seed = g_key;
  *offset = atomic_load(&g_offset);
}

void pd_random_set_state(uint64_t seed, uint64_t offset) {
  g_seeded = 1;
  g_key = seed;
  atomic_store(&g_offset, offset);
}

void pd_random_reserve(uint64_t n, uint64_t *key, uint64_t *first) {
  ensure_seeded();
  *key = g_key;
  *first = atomic_fetch_add(&g_offset, n);
}
