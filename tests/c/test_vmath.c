/* Accuracy tests for csrc/kernels/cpu/pd_vmath.h (the vectorisable exp/expm1/log/log1p/tanh/
 * sigmoid): float32 over a strided sweep of all bit patterns against double-precision libm
 * (max ulp error), float64 over random bit patterns and dense ranges against libm (relative
 * error), plus the special values (inf, NaN, zeros, subnormals, overflow/underflow edges). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "kernels/cpu/pd_vmath.h"
#include "pd_test.h"

/* ---- float32: ulp distance on the ordered integer line (inf is one past FLT_MAX) ---- */
static int64_t ord_f(float x) {
  int32_t i;
  memcpy(&i, &x, 4);
  return i < 0 ? (int64_t)INT32_MIN - i : i;
}
static int64_t ulp_f(float y, float ref) {
  if (ref != ref) return y != y ? 0 : INT32_MAX;
  if (y != y) return INT32_MAX;
  int64_t d = ord_f(y) - ord_f(ref);
  return d < 0 ? -d : d;
}

static double sig_ref(double x) { return x >= 0 ? 1 / (1 + exp(-x)) : exp(x) / (1 + exp(x)); }

typedef float (*ff)(float);
typedef double (*dd)(double);

/* strided sweep over all 2^32 patterns (about 4.2M values) plus a dense sweep of [-2, 2] */
static int64_t sweep_f(ff f, dd ref, const char *name) {
  int64_t worst = 0;
  float wx = 0;
  for (uint64_t b = 0; b < (1ull << 32); b += 1021) {
    uint32_t u = (uint32_t)b;
    float x;
    memcpy(&x, &u, 4);
    int64_t e = ulp_f(f(x), (float)ref((double)x));
    if (e > worst) worst = e, wx = x;
  }
  for (int i = -1000000; i <= 1000000; i++) {
    float x = (float)i * 2e-6f;
    int64_t e = ulp_f(f(x), (float)ref((double)x));
    if (e > worst) worst = e, wx = x;
  }
  printf("    %-8s float32 max error %lld ulp (at %.9g)\n", name, (long long)worst, (double)wx);
  return worst;
}

static float vexpf(float x) { return pd_vexpf(x); }
static float vexpm1f(float x) { return pd_vexpm1f(x); }
static float vlogf(float x) { return pd_vlogf(x); }
static float vlog1pf(float x) { return pd_vlog1pf(x); }
static float vtanhf(float x) { return pd_vtanhf(x); }
static float vsigf(float x) { return pd_vsigmoidf(x); }

static void test_f32_sweep(void) {
  CHECK(sweep_f(vexpf, exp, "exp") <= 1);
  CHECK(sweep_f(vexpm1f, expm1, "expm1") <= 2);
  CHECK(sweep_f(vlogf, log, "log") <= 1);
  CHECK(sweep_f(vlog1pf, log1p, "log1p") <= 2);
  CHECK(sweep_f(vtanhf, tanh, "tanh") <= 3);
  CHECK(sweep_f(vsigf, sig_ref, "sigmoid") <= 2);
}

static int same_f(float a, float b) {
  return (a != a && b != b) || (a == b && signbit(a) == signbit(b));
}

static void test_f32_special(void) {
  const float inf = INFINITY;
  CHECK(same_f(pd_vexpf(inf), inf) && same_f(pd_vexpf(-inf), 0.0f) && isnan(pd_vexpf(NAN)));
  CHECK(same_f(pd_vexpf(0.0f), 1.0f) && same_f(pd_vexpf(-0.0f), 1.0f));
  CHECK(same_f(pd_vexpf(88.73f), inf) && same_f(pd_vexpf(1000.0f), inf));
  CHECK(pd_vexpf(88.72f) < inf && pd_vexpf(88.72f) > 3e38f);
  CHECK(same_f(pd_vexpf(-104.0f), 0.0f) && same_f(pd_vexpf(-1000.0f), 0.0f));
  CHECK(pd_vexpf(-103.0f) > 0.0f && pd_vexpf(-87.5f) < FLT_MIN); /* gradual underflow */
  CHECK(same_f(pd_vexpm1f(inf), inf) && same_f(pd_vexpm1f(-inf), -1.0f) && isnan(pd_vexpm1f(NAN)));
  CHECK(same_f(pd_vexpm1f(-0.0f), -0.0f) && same_f(pd_vexpm1f(1e-40f), 1e-40f));
  CHECK(same_f(pd_vlogf(0.0f), -inf) && same_f(pd_vlogf(-0.0f), -inf));
  CHECK(isnan(pd_vlogf(-1.0f)) && isnan(pd_vlogf(-inf)) && isnan(pd_vlogf(NAN)));
  CHECK(same_f(pd_vlogf(inf), inf) && same_f(pd_vlogf(1.0f), 0.0f));
  CHECK(ulp_f(pd_vlogf(1e-45f), (float)log((double)1e-45f)) <= 1);
  CHECK(same_f(pd_vlog1pf(-1.0f), -inf) && isnan(pd_vlog1pf(-2.0f)) && same_f(pd_vlog1pf(inf), inf));
  CHECK(same_f(pd_vlog1pf(-0.0f), -0.0f) && same_f(pd_vlog1pf(1e-30f), 1e-30f));
  CHECK(same_f(pd_vtanhf(inf), 1.0f) && same_f(pd_vtanhf(-inf), -1.0f) && isnan(pd_vtanhf(NAN)));
  CHECK(same_f(pd_vtanhf(-0.0f), -0.0f) && same_f(pd_vtanhf(1e-30f), 1e-30f));
  CHECK(same_f(pd_vtanhf(12.0f), 1.0f) && same_f(pd_vtanhf(-12.0f), -1.0f));
  CHECK(same_f(pd_vsigmoidf(inf), 1.0f) && same_f(pd_vsigmoidf(-inf), 0.0f));
  CHECK(isnan(pd_vsigmoidf(NAN)) && same_f(pd_vsigmoidf(0.0f), 0.5f));
  CHECK(pd_vsigmoidf(-100.0f) > 0.0f); /* the lower tail keeps its (subnormal) value */
}

/* ---- float64: relative error against libm ---- */
static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_u64(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static double rel_d(double y, double ref) {
  if (ref != ref) return y != y ? 0 : INFINITY;
  if (y == ref) return 0;
  if (y != y || isinf(y) || isinf(ref)) return INFINITY;
  double d = fabs(y - ref);
  if (d <= 2 * 4.9406564584124654e-324) return 0; /* within 2 subnormal ulps */
  return d / fabs(ref);
}

static double sweep_d(dd f, dd ref, double lo, double hi, const char *name) {
  double worst = 0, wx = 0;
  for (int i = 0; i < 1000000; i++) { /* random bit patterns: every magnitude */
    uint64_t u = next_u64();
    double x;
    memcpy(&x, &u, 8);
    double e = rel_d(f(x), ref(x));
    if (e > worst) worst = e, wx = x;
  }
  for (int i = 0; i <= 1000000; i++) { /* dense over the interesting range */
    double x = lo + (hi - lo) * ((double)i / 1000000);
    double e = rel_d(f(x), ref(x));
    if (e > worst) worst = e, wx = x;
  }
  for (int i = 0; i < 1000000; i++) { /* log-uniform magnitudes of both signs */
    double x = ldexp((double)(next_u64() >> 11) * 0x1p-53, (int)(next_u64() % 80) - 60);
    x = (next_u64() & 1) ? -x : x;
    double e = rel_d(f(x), ref(x));
    if (e > worst) worst = e, wx = x;
  }
  printf("    %-8s float64 max relative error %.3g (at %.17g)\n", name, worst, wx);
  return worst;
}

static void test_f64_sweep(void) {
  CHECK(sweep_d(pd_vexp, exp, -750, 750, "exp") <= 1e-15);
  CHECK(sweep_d(pd_vexpm1, expm1, -50, 50, "expm1") <= 1e-15);
  CHECK(sweep_d(pd_vlog, log, 0, 4, "log") <= 1e-15);
  CHECK(sweep_d(pd_vlog1p, log1p, -1, 3, "log1p") <= 1e-15);
  CHECK(sweep_d(pd_vtanh, tanh, -25, 25, "tanh") <= 1e-15);
  CHECK(sweep_d(pd_vsigmoid, sig_ref, -750, 750, "sigmoid") <= 1e-15);
}

static int same_d(double a, double b) {
  return (a != a && b != b) || (a == b && signbit(a) == signbit(b));
}

static void test_f64_special(void) {
  const double inf = INFINITY;
  CHECK(same_d(pd_vexp(inf), inf) && same_d(pd_vexp(-inf), 0.0) && isnan(pd_vexp(NAN)));
  CHECK(same_d(pd_vexp(709.79), inf) && same_d(pd_vexp(-746.0), 0.0));
  CHECK(pd_vexp(709.78) < inf && same_d(pd_vexp(-745.0), 4.9406564584124654e-324));
  CHECK(same_d(pd_vexpm1(-0.0), -0.0) && same_d(pd_vexpm1(-inf), -1.0) && same_d(pd_vexpm1(inf), inf));
  CHECK(same_d(pd_vlog(0.0), -inf) && isnan(pd_vlog(-1e-300)) && same_d(pd_vlog(inf), inf));
  CHECK(isnan(pd_vlog(NAN)) && same_d(pd_vlog(1.0), 0.0));
  CHECK(rel_d(pd_vlog(4.9406564584124654e-324), log(4.9406564584124654e-324)) <= 1e-15);
  CHECK(same_d(pd_vlog1p(-1.0), -inf) && isnan(pd_vlog1p(-1.5)) && same_d(pd_vlog1p(-0.0), -0.0));
  CHECK(same_d(pd_vtanh(-0.0), -0.0) && same_d(pd_vtanh(30.0), 1.0) && same_d(pd_vtanh(-inf), -1.0));
  CHECK(isnan(pd_vtanh(NAN)) && isnan(pd_vsigmoid(NAN)));
  CHECK(same_d(pd_vsigmoid(inf), 1.0) && same_d(pd_vsigmoid(-inf), 0.0));
  CHECK(pd_vsigmoid(-700.0) > 0.0);
}

int main(void) {
  RUN(test_f32_special);
  RUN(test_f64_special);
  RUN(test_f32_sweep);
  RUN(test_f64_sweep);
  return PD_TEST_RESULT();
}
