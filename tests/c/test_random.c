/* The random generator (csrc/core/pd_random.h) against independent references: the C++
 * standard's check value for mt19937_64 (the 10000th draw of a default-seeded engine), the
 * values real Paddle prints for paddle.seed(33); paddle.rand([2, 2]) (from the conformance
 * issue), bounded integers staying in range and uniform, the branchless u64 -> float/double
 * conversions equal to the compiler's casts, and state save/restore. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "pd_test.h"
#include "../../csrc/core/pd_random.h"

static void test_mt19937_64_standard_check_value(void) {
  pd_mt64 e;
  pd_mt64_seed(&e, 5489u); /* the default seed */
  uint64_t v = 0;
  for (int i = 0; i < 10000; i++) v = pd_mt64_next(&e);
  CHECK(v == 9981545732273789042ULL); /* [rand.predef]: the 10000th invocation */
}

static void test_paddle_seed_33(void) {
  pd_random_seed(33);
  pd_rng_use u;
  pd_rng_begin(&u, 0);
  const float want[4] = {0.946356654f, 0.99746263f, 0.576844156f, 0.893772542f};
  for (int i = 0; i < 4; i++) CHECK(fabsf(pd_mt64_unit_f(u.e) - want[i]) < 5e-9f);
  pd_rng_end(&u);
}

static void test_below_in_range_and_uniform(void) {
  pd_mt64 e;
  pd_mt64_seed_seq(&e, 7);
  int counts[7] = {0};
  for (int i = 0; i < 70000; i++) {
    uint64_t v = pd_mt64_below(&e, 7);
    CHECK(v < 7);
    if (v < 7) counts[v]++;
  }
  for (int k = 0; k < 7; k++) CHECK(abs(counts[k] - 10000) < 4 * 93); /* 4 sd of Binomial(70000, 1/7) */
  for (int i = 0; i < 1000; i++) CHECK(pd_mt64_below(&e, 1) == 0);
  uint64_t big = (1ULL << 63) + 12345;
  for (int i = 0; i < 1000; i++) CHECK(pd_mt64_below(&e, big) < big);
}

static void test_conversions_equal_casts(void) {
  pd_mt64 e;
  pd_mt64_seed_seq(&e, 11);
  for (int i = 0; i < 200000; i++) {
    uint64_t x = pd_mt64_next(&e) >> (i % 64);
    CHECK(pd_u64_to_f32(x) == (float)x);
    CHECK(pd_u64_to_f64(x) == (double)x);
  }
  const uint64_t edge[] = {0, 1, 3, (1ULL << 24) + 1, (1ULL << 53) + 1, ~0ULL, 1ULL << 63, (1ULL << 63) + 1,
                           (1ULL << 63) + (1ULL << 39), (1ULL << 63) + (1ULL << 40) + (1ULL << 39)};
  for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++) {
    CHECK(pd_u64_to_f32(edge[i]) == (float)edge[i]);
    CHECK(pd_u64_to_f64(edge[i]) == (double)edge[i]);
  }
}

static void test_state_roundtrip(void) {
  pd_random_seed(3);
  size_t n = pd_random_state_size();
  void *st = malloc(n);
  pd_random_get_state(st);
  uint64_t a[500], b[500];
  pd_rng_use u;
  pd_rng_begin(&u, 0);
  for (int i = 0; i < 500; i++) a[i] = pd_mt64_next(u.e);
  pd_rng_end(&u);
  CHECK(pd_random_set_state(st, n) == 1);
  pd_rng_begin(&u, 0);
  for (int i = 0; i < 500; i++) b[i] = pd_mt64_next(u.e);
  pd_rng_end(&u);
  CHECK(memcmp(a, b, sizeof a) == 0);
  CHECK(pd_random_set_state(st, n - 1) == 0);
  ((uint64_t *)st)[0] ^= 1;
  CHECK(pd_random_set_state(st, n) == 0);
  free(st);
}

int main(void) {
  printf("test_random\n");
  RUN(test_mt19937_64_standard_check_value);
  RUN(test_paddle_seed_33);
  RUN(test_below_in_range_and_uniform);
  RUN(test_conversions_equal_casts);
  RUN(test_state_roundtrip);
  return PD_TEST_RESULT();
}
