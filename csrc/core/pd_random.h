/* The global random generator: counter-based Philox-4x32-10 keyed by the seed. Each random op
 * reserves a block of counters (pd_random_reserve), so results depend only on (seed, order of
 * ops) and kernels can fill in parallel. paddle.seed sets the key and resets the counter. */
#ifndef PD_RANDOM_H
#define PD_RANDOM_H
#include <stdint.h>

void pd_random_seed(uint64_t seed);
void pd_random_get_state(uint64_t *seed, uint64_t *offset);
void pd_random_set_state(uint64_t seed, uint64_t offset);
/* Reserves n counters; returns the key and the first counter. Thread-safe. */
void pd_random_reserve(uint64_t n, uint64_t *key, uint64_t *first);

/* The Philox key of an op's own nonzero seed attribute (dropout, attention_core). */
static inline uint64_t pd_random_seed_key(int64_t seed) {
  uint64_t z = (uint64_t)seed * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL;
  z = (z ^ (z >> 31)) * 0xD6E8FEB86659FD93ULL;
  return z ^ (z >> 32);
}

/* Bernoulli masks (pd_random_vec.c): m[4c + j] = ((word j of counter first + c) >> 8) >= thr for
 * counters c in [c0, c1) with 4c + j < n; AVX2 at run time where the CPU has it, the same bits.
 * pd_philox_keep_threshold(p): the thr that keeps a position with probability 1 - p, equal to
 * the test (w >> 8) * 2^-24 >= (float)p (and none kept for p >= 1). */
void pd_philox_mask(uint8_t *m, int64_t n, uint64_t key, uint64_t first, uint32_t thr, int64_t c0, int64_t c1);
uint32_t pd_philox_keep_threshold(double p);

/* Four 32-bit random words for (key, counter). */
static inline void pd_philox(uint64_t key, uint64_t ctr, uint32_t out[4]) {
  uint32_t c0 = (uint32_t)ctr, c1 = (uint32_t)(ctr >> 32), c2 = 0, c3 = 0;
  uint32_t k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32);
  for (int r = 0; r < 10; r++) {
    uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
    uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
    c1 = (uint32_t)p1;
    c3 = (uint32_t)p0;
    c0 = n0;
    c2 = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}
/* Uniform in [0, 1) with 24 (float) or 53 (double) random bits. */
static inline float pd_u32_to_unit_f(uint32_t x) { return (float)(x >> 8) * (1.0f / 16777216.0f); }
static inline double pd_u64_to_unit_d(uint32_t hi, uint32_t lo) {
  return (double)((((uint64_t)hi << 32) | lo) >> 11) * (1.0 / 9007199254740992.0);
}
#endif
