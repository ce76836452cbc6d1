/* Random numbers, as real Paddle's CPU generator makes them: a 64-bit Mersenne Twister
 * (mt19937_64) that paddle.seed(s) seeds through a seed sequence of {s}, and the sampling
 * transforms of the C++ standard library Paddle's kernels use (uniform reals from one 64-bit
 * draw, normals by Marsaglia's polar method with one value kept, uniform integers by Lemire's
 * multiply-shift with rejection). So `paddle.seed(33); paddle.rand([2, 2])` gives real Paddle's
 * numbers bit for bit, and a seeded experiment draws the same stream in both frameworks. An op
 * with a non-zero seed attribute uses a private engine seeded with it directly (Paddle's rule).
 *
 * Ops that want parallel generation (dropout is not one: it follows Paddle's stream) take a
 * Philox-4x32-10 key drawn from the engine (pd_random_reserve_seeded): deterministic for a seed and an
 * op order, fillable by counter in parallel. */
#ifndef PD_RANDOM_H
#define PD_RANDOM_H
#include <stddef.h>
#include <stdint.h>

#define PD_MT_N 312
typedef struct {
  uint64_t mt[PD_MT_N];
  int idx;
} pd_mt64;

/* std::mt19937_64::seed(s) */
void pd_mt64_seed(pd_mt64 *e, uint64_t s);
/* std::mt19937_64::seed(std::seed_seq{s}) (s taken modulo 2^32, as seed_seq stores it) */
void pd_mt64_seed_seq(pd_mt64 *e, uint64_t s);
void pd_mt64_twist(pd_mt64 *e);
static inline uint64_t pd_mt64_next(pd_mt64 *e) {
  if (e->idx >= PD_MT_N) pd_mt64_twist(e);
  uint64_t y = e->mt[e->idx++];
  y ^= (y >> 29) & 0x5555555555555555ULL;
  y ^= (y << 17) & 0x71D67FFFEDA60000ULL;
  y ^= (y << 37) & 0xFFF7EEE000000000ULL;
  y ^= y >> 43;
  return y;
}
/* (float)x and (double)x for unsigned x, rounded to nearest as the conversion rounds, without
 * the branch on the top bit the compiler emits (random draws mispredict it half the time): the
 * halved value keeps a sticky bit, so doubling it rounds the same */
static inline float pd_u64_to_f32(uint64_t x) {
  float lo = (float)(int64_t)x, hi = (float)(int64_t)((x >> 1) | (x & 1)) * 2.0f;
  return (int64_t)x < 0 ? hi : lo;
}
static inline double pd_u64_to_f64(uint64_t x) {
  double lo = (double)(int64_t)x, hi = (double)(int64_t)((x >> 1) | (x & 1)) * 2.0;
  return (int64_t)x < 0 ? hi : lo;
}
/* generate_canonical: [0, 1) from one draw, rounded as the standard library does */
static inline float pd_mt64_unit_f(pd_mt64 *e) {
  float u = pd_u64_to_f32(pd_mt64_next(e)) * 5.42101086242752217004e-20f; /* 2^-64 */
  return u >= 1.0f ? 0.99999994039535522461f : u;
}
static inline double pd_mt64_unit_d(pd_mt64 *e) {
  double u = pd_u64_to_f64(pd_mt64_next(e)) * 5.42101086242752217004e-20;
  return u >= 1.0 ? 0.99999999999999988898 : u;
}
/* std::uniform_int_distribution<>(0, range - 1) for range >= 1 (Lemire with 128-bit products,
 * libstdc++'s path for a 64-bit engine) */
uint64_t pd_mt64_below(pd_mt64 *e, uint64_t range);

/* std::normal_distribution: the polar method yields two values, the second kept for the next
 * call; one state per kernel call, as each Paddle kernel makes its own distribution object. */
typedef struct {
  int has;
  double saved;
} pd_normal_state;
float pd_mt64_normal_f(pd_mt64 *e, pd_normal_state *s);   /* standard normal in float */
double pd_mt64_normal_d(pd_mt64 *e, pd_normal_state *s);  /* standard normal in double */

/* ---- the global engine (Paddle's default CPU generator) ---- */
void pd_random_seed(uint64_t seed);
uint64_t pd_random_initial_seed(void);
/* An op's engine: seed != 0 gives a private engine seeded with it (u->local); else the global
 * engine, locked until pd_rng_end. */
typedef struct {
  pd_mt64 *e;
  pd_mt64 local;
  int locked;
} pd_rng_use;
void pd_rng_begin(pd_rng_use *u, int64_t seed);
void pd_rng_end(pd_rng_use *u);
/* The engine's whole state as bytes (seed, position, the 312 words): pd_random_state_size()
 * bytes; set returns 0 when buf is not a state this build wrote. */
size_t pd_random_state_size(void);
void pd_random_get_state(void *buf);
int pd_random_set_state(const void *buf, size_t n);

/* Dropout's keep mask as real Paddle's CPU dropout draws it: m[i] = !(u_i < p) with u_i from
 * uniform_real_distribution<float>(0, 1), element by element from the engine (seed != 0: a
 * private engine); p >= 1 keeps nothing and draws nothing. The dropout op and fused kernels
 * that contain a dropout (attention_core) share it, so they draw the same stream. */
void pd_dropout_mask(uint8_t *m, int64_t n, double p, int64_t seed);

/* SplitMix64's finaliser: a well-mixed 64-bit key from any integer (seeds, counters). */
static inline uint64_t pd_mix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
/* A Philox key for parallel fills: seed != 0 -> pd_mix64(seed); else one draw of the global
 * engine. Counters start at *first = 0. */
void pd_random_reserve_seeded(int64_t seed, uint64_t *key, uint64_t *first);

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
