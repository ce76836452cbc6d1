/* The global generator (pd_random.h): mt19937_64 with std::seed_seq seeding and the standard
 * library's sampling transforms, as real Paddle's CPU kernels use them. */
#include "pd_random.h"
#include <math.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#define MT_M 156
#define MT_A 0xB5026F5AA96619E9ULL
#define UPPER 0xFFFFFFFF80000000ULL
#define LOWER 0x7FFFFFFFULL

void pd_mt64_seed(pd_mt64 *e, uint64_t s) {
  e->mt[0] = s;
  for (int i = 1; i < PD_MT_N; i++)
    e->mt[i] = 6364136223846793005ULL * (e->mt[i - 1] ^ (e->mt[i - 1] >> 62)) + (uint64_t)i;
  e->idx = PD_MT_N;
}

/* std::seed_seq{v}.generate over 2 * 312 32-bit words (the C++ standard's algorithm) */
void pd_mt64_seed_seq(pd_mt64 *e, uint64_t s) {
  enum { N = 2 * PD_MT_N };
  uint32_t b[N];
  const uint32_t v = (uint32_t)s;
  const size_t n = N, t = 11, p = (n - t) / 2, q = p + t, m = n; /* s = 1 value, m = max(s + 1, n) */
  for (size_t i = 0; i < n; i++) b[i] = 0x8b8b8b8bu;
  for (size_t k = 0; k < m; k++) {
    uint32_t r1 = b[k % n] ^ b[(k + p) % n] ^ b[(k + n - 1) % n];
    r1 = (r1 ^ (r1 >> 27)) * 1664525u;
    uint32_t r2 = r1 + (k == 0 ? 1u : (k <= 1 ? (uint32_t)(k % n) + v : (uint32_t)(k % n)));
    b[(k + p) % n] += r1;
    b[(k + q) % n] += r2;
    b[k % n] = r2;
  }
  for (size_t k = m; k < m + n; k++) {
    uint32_t r3 = b[k % n] + b[(k + p) % n] + b[(k + n - 1) % n];
    r3 = (r3 ^ (r3 >> 27)) * 1566083941u;
    uint32_t r4 = r3 - (uint32_t)(k % n);
    b[(k + p) % n] ^= r3;
    b[(k + q) % n] ^= r4;
    b[k % n] = r4;
  }
  int zero = 1;
  for (int i = 0; i < PD_MT_N; i++) {
    e->mt[i] = (uint64_t)b[2 * i] | ((uint64_t)b[2 * i + 1] << 32);
    if (i == 0 ? (e->mt[0] & UPPER) != 0 : e->mt[i] != 0) zero = 0;
  }
  if (zero) e->mt[0] = 1ULL << 63;
  e->idx = PD_MT_N;
}

/* the refill; each half reads only words the other half does not write in the same pass, so
 * the loops vectorise (the odd-bit select is a mask, not a branch) */
void pd_mt64_twist(pd_mt64 *e) {
  uint64_t *mt = e->mt;
  for (int i = 0; i < PD_MT_N - MT_M; i++) {
    uint64_t y = (mt[i] & UPPER) | (mt[i + 1] & LOWER);
    mt[i] = mt[i + MT_M] ^ (y >> 1) ^ ((0 - (y & 1)) & MT_A);
  }
  for (int i = PD_MT_N - MT_M; i < PD_MT_N - 1; i++) {
    uint64_t y = (mt[i] & UPPER) | (mt[i + 1] & LOWER);
    mt[i] = mt[i + MT_M - PD_MT_N] ^ (y >> 1) ^ ((0 - (y & 1)) & MT_A);
  }
  uint64_t y = (mt[PD_MT_N - 1] & UPPER) | (mt[0] & LOWER);
  mt[PD_MT_N - 1] = mt[MT_M - 1] ^ (y >> 1) ^ ((0 - (y & 1)) & MT_A);
  e->idx = 0;
}

uint64_t pd_mt64_below(pd_mt64 *e, uint64_t range) {
  if (range == 0) return pd_mt64_next(e); /* the full 64-bit range */
  unsigned __int128 prod = (unsigned __int128)pd_mt64_next(e) * range;
  uint64_t low = (uint64_t)prod;
  if (low < range) {
    uint64_t threshold = (0 - range) % range;
    while (low < threshold) {
      prod = (unsigned __int128)pd_mt64_next(e) * range;
      low = (uint64_t)prod;
    }
  }
  return (uint64_t)(prod >> 64);
}

float pd_mt64_normal_f(pd_mt64 *e, pd_normal_state *s) {
  if (s->has) {
    s->has = 0;
    return (float)s->saved;
  }
  float x, y, r2;
  do {
    x = 2.0f * pd_mt64_unit_f(e) - 1.0f;
    y = 2.0f * pd_mt64_unit_f(e) - 1.0f;
    r2 = x * x + y * y;
  } while (r2 > 1.0f || r2 == 0.0f);
  const float mult = sqrtf(-2.0f * logf(r2) / r2);
  s->saved = (double)(x * mult);
  s->has = 1;
  return y * mult;
}

double pd_mt64_normal_d(pd_mt64 *e, pd_normal_state *s) {
  if (s->has) {
    s->has = 0;
    return s->saved;
  }
  double x, y, r2;
  do {
    x = 2.0 * pd_mt64_unit_d(e) - 1.0;
    y = 2.0 * pd_mt64_unit_d(e) - 1.0;
    r2 = x * x + y * y;
  } while (r2 > 1.0 || r2 == 0.0);
  const double mult = sqrt(-2.0 * log(r2) / r2);
  s->saved = x * mult;
  s->has = 1;
  return y * mult;
}

/* ---------------------------------------------------------------- the global engine */
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pd_mt64 g_engine;

/* DataLoader workers seed the engine right after fork(): the lock must not be copied held (see
 * pd_alloc.c's alloc_prefork). */
static void random_prefork(void) { pthread_mutex_lock(&g_mu); }
static void random_postfork(void) { pthread_mutex_unlock(&g_mu); }
__attribute__((constructor)) static void random_atfork_init(void) {
  pthread_atfork(random_prefork, random_postfork, random_postfork);
}
static uint64_t g_seed;
static int g_seeded;

static void ensure_seeded_locked(void) {
  if (g_seeded) return;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  g_seed = ((uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ULL ^ (uint64_t)ts.tv_sec) & 0xFFFFFFFFULL;
  pd_mt64_seed_seq(&g_engine, g_seed);
  g_seeded = 1;
}

void pd_random_seed(uint64_t seed) {
  pthread_mutex_lock(&g_mu);
  g_seed = seed;
  pd_mt64_seed_seq(&g_engine, seed);
  g_seeded = 1;
  pthread_mutex_unlock(&g_mu);
}

uint64_t pd_random_initial_seed(void) {
  pthread_mutex_lock(&g_mu);
  ensure_seeded_locked();
  uint64_t s = g_seed;
  pthread_mutex_unlock(&g_mu);
  return s;
}

void pd_rng_begin(pd_rng_use *u, int64_t seed) {
  if (seed != 0) {
    pd_mt64_seed(&u->local, (uint64_t)seed);
    u->e = &u->local;
    u->locked = 0;
    return;
  }
  pthread_mutex_lock(&g_mu);
  ensure_seeded_locked();
  u->e = &g_engine;
  u->locked = 1;
}

void pd_rng_end(pd_rng_use *u) {
  if (u->locked) pthread_mutex_unlock(&g_mu);
  u->locked = 0;
  u->e = NULL;
}

#define STATE_MAGIC 0x31544d4350ULL /* "PCMT1" */
size_t pd_random_state_size(void) { return sizeof(uint64_t) * (3 + PD_MT_N); }

void pd_random_get_state(void *buf) {
  uint64_t *w = (uint64_t *)buf;
  pthread_mutex_lock(&g_mu);
  ensure_seeded_locked();
  w[0] = STATE_MAGIC;
  w[1] = g_seed;
  w[2] = (uint64_t)g_engine.idx;
  memcpy(w + 3, g_engine.mt, sizeof g_engine.mt);
  pthread_mutex_unlock(&g_mu);
}

int pd_random_set_state(const void *buf, size_t n) {
  uint64_t w[3 + PD_MT_N];
  if (n != sizeof w) return 0;
  memcpy(w, buf, sizeof w);
  if (w[0] != STATE_MAGIC || w[2] > PD_MT_N) return 0;
  pthread_mutex_lock(&g_mu);
  g_seed = w[1];
  g_engine.idx = (int)w[2];
  memcpy(g_engine.mt, w + 3, sizeof g_engine.mt);
  g_seeded = 1;
  pthread_mutex_unlock(&g_mu);
  return 1;
}

void pd_random_reserve_seeded(int64_t seed, uint64_t *key, uint64_t *first) {
  *first = 0;
  if (seed != 0) {
    *key = pd_mix64((uint64_t)seed);
    return;
  }
  pd_rng_use u;
  pd_rng_begin(&u, 0);
  *key = pd_mt64_next(u.e);
  pd_rng_end(&u);
}

/* ---------------------------------------------------------------- dropout masks */
/* mask[i] = !(u_i < p), u_i from uniform_real_distribution<float>(0, 1) on the engine, element
 * by element: real Paddle's CPU dropout, so a seeded run drops the same elements (p == 1 draws
 * nothing, as there). u_i is the draw x_i rounded to float and scaled, a monotone function of
 * x_i, so u_i < p exactly when x_i is below a threshold found once: the loop is one draw and
 * one integer compare per element, no float conversion. */
static float unit_of(uint64_t x) {
  float u = pd_u64_to_f32(x) * 5.42101086242752217004e-20f;
  return u >= 1.0f ? 0.99999994039535522461f : u;
}

void pd_dropout_mask(uint8_t *m, int64_t n, double p, int64_t seed) {
  const float pf = (float)p;
  if (pf >= 1.0f) {
    memset(m, 0, (size_t)n);
    return;
  }
  /* keep (mask 1) exactly when x >= t: t = the first x with unit_of(x) >= pf */
  uint64_t lo = 0, hi = UINT64_MAX;
  int none_kept = unit_of(UINT64_MAX) < pf;
  while (!none_kept && lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (unit_of(mid) < pf) lo = mid + 1;
    else hi = mid;
  }
  const uint64_t t = lo;
  const uint8_t any = (uint8_t)!none_kept;
  pd_rng_use u;
  pd_rng_begin(&u, seed);
  /* pd_mt64_next's draws, a state block at a time: the tempering and the compare vectorise (the
   * mask was ~7% of a Transformer training step drawn one call per element) */
  pd_mt64 *e = u.e;
  for (int64_t i = 0; i < n;) {
    if (e->idx >= PD_MT_N) pd_mt64_twist(e);
    int64_t take = (int64_t)(PD_MT_N - e->idx);
    if (take > n - i) take = n - i;
    const uint64_t *restrict st = e->mt + e->idx;
    uint8_t *restrict mo = m + i;
    for (int64_t j = 0; j < take; j++) {
      uint64_t y = st[j];
      y ^= (y >> 29) & 0x5555555555555555ULL;
      y ^= (y << 17) & 0x71D67FFFEDA60000ULL;
      y ^= (y << 37) & 0xFFF7EEE000000000ULL;
      y ^= y >> 43;
      mo[j] = (uint8_t)(any & (y >= t));
    }
    e->idx += (int)take;
    i += take;
  }
  pd_rng_end(&u);
}
