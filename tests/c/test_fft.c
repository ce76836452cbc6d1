/* C unit tests of the FFT kernels' fast paths (csrc/kernels/cpu/fft_engine.c): the six-step form of
 * long 1-d c2c transforms (n = 2^16, a non-power of two, a batch of two long rows, with a
 * remainder tile) and the half-length r2c (batched rows, one long row, an odd offset that takes
 * FFTW's r2c), each checked bin by bin against a direct O(n) sum in double at sampled
 * frequencies and, for c2c, by the inverse round trip. The ASan/UBSan build runs it too, so the
 * tiles, padding and transposed copies stay inside their blocks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "autograd/pd_autograd.h"
#include "ops/generated/pd_ops_gen.h"
#include "pd_test.h"

static uint64_t lcg = 777;
static double rnd(void) {
  lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(lcg >> 11) / 9007199254740992.0 - 0.5;
}

static pd_tensor *run1(int op, const void *args) {
  pd_tensor *buf[4], **o = buf;
  int n = -4;
  if (pd_op_run(op, args, &o, &n) != PD_OK) return NULL;
  for (int i = 1; i < n; i++) pd_tensor_release(o[i]);
  return o[0];
}

/* X[k] = sum_t x[t] e^(sign 2 pi i k t / n) of row r (complex interleaved or real, float or double) */
static void direct(const void *x, int cplx, int dbl, int64_t n, int64_t k, int sign, double *re, double *im) {
  double sr = 0, si = 0;
  for (int64_t t = 0; t < n; t++) {
    double a = 6.283185307179586 * (double)((k * t) % n) / (double)n, c = cos(a), s = sign * sin(a);
    double xr, xi = 0;
    if (cplx) {
      xr = dbl ? ((const double *)x)[2 * t] : ((const float *)x)[2 * t];
      xi = dbl ? ((const double *)x)[2 * t + 1] : ((const float *)x)[2 * t + 1];
    } else {
      xr = dbl ? ((const double *)x)[t] : ((const float *)x)[t];
    }
    sr += xr * c - xi * s;
    si += xr * s + xi * c;
  }
  *re = sr;
  *im = si;
}

static double bin_err(const void *y, int dbl, int64_t k, double re, double im, double ref_scale) {
  double yr = dbl ? ((const double *)y)[2 * k] : ((const float *)y)[2 * k];
  double yi = dbl ? ((const double *)y)[2 * k + 1] : ((const float *)y)[2 * k + 1];
  return hypot(yr - re, yi - im) / ref_scale;
}

/* c2c of rows x n (forward, "backward" norm), bins against the direct sum, then the inverse
 * ("backward" norm: 1/n) back to x */
static void check_c2c(int64_t rows, int64_t n, int dbl) {
  int64_t shape[2] = {rows, n};
  pd_tensor *x = NULL;
  CHECK(pd_tensor_empty(dbl ? PD_COMPLEX128 : PD_COMPLEX64, 2, shape, &x) == PD_OK);
  if (!x) return;
  for (int64_t i = 0; i < 2 * rows * n; i++) {
    if (dbl)
      ((double *)pd_tensor_data(x))[i] = rnd();
    else
      ((float *)pd_tensor_data(x))[i] = (float)rnd();
  }
  int64_t ax = 1;
  pd_fft_c2c_args a = {x, {&ax, 1}, "backward", 1};
  for (int rep = 0; rep < 3; rep++) { /* the third call re-plans the tiles' plans with FFTW_MEASURE */
    pd_tensor *y = run1(PD_OP_FFT_C2C, &a);
    CHECK(y != NULL);
    if (!y) break;
    double worst = 0, sc = sqrt((double)n);
    for (int s = 0; s < 6; s++) {
      int64_t r = s % rows, k = s == 0 ? 0 : s == 1 ? n - 1 : (int64_t)((rnd() + 0.5) * (double)n) % n;
      double re, im;
      size_t es = dbl ? 16 : 8;
      direct((const char *)pd_tensor_data(x) + (size_t)(r * n) * es, 1, dbl, n, k, -1, &re, &im);
      double e = bin_err((const char *)pd_tensor_data(y) + (size_t)(r * n) * es, dbl, k, re, im, sc);
      if (e > worst) worst = e;
    }
    CHECK(worst < (dbl ? 1e-12 : 2e-5));
    pd_fft_c2c_args b = {y, {&ax, 1}, "backward", 0};
    pd_tensor *z = run1(PD_OP_FFT_C2C, &b);
    CHECK(z != NULL);
    if (z) {
      double md = 0;
      for (int64_t i = 0; i < 2 * rows * n; i++) {
        double u = dbl ? ((double *)pd_tensor_data(z))[i] : ((float *)pd_tensor_data(z))[i];
        double v = dbl ? ((double *)pd_tensor_data(x))[i] : ((float *)pd_tensor_data(x))[i];
        if (fabs(u - v) > md) md = fabs(u - v);
      }
      CHECK(md < (dbl ? 1e-13 : 2e-6));
      pd_tensor_release(z);
    }
    pd_tensor_release(y);
  }
  pd_tensor_release(x);
}

static void test_six_step_c2c(void) {
  check_c2c(1, 65536, 0);   /* 256 x 256 */
  check_c2c(1, 65536, 1);
  check_c2c(1, 100100, 0);  /* 308 x 325: remainder tiles in both passes */
  check_c2c(2, 196608, 1);  /* a batch of two long rows, 384 x 512 */
  check_c2c(1, 65537, 0);   /* prime: FFTW's own plan */
}

/* r2c of rows x n real values starting `off` elements into a buffer (a view), against the direct
 * sum at sampled bins (incl. 0 and n/2) */
static void check_r2c(int64_t rows, int64_t n, int64_t off, int dbl) {
  int64_t len = rows * n + off, shape[2] = {rows, n};
  pd_tensor *base = NULL, *x = NULL;
  CHECK(pd_tensor_empty(dbl ? PD_FLOAT64 : PD_FLOAT32, 1, &len, &base) == PD_OK);
  if (!base) return;
  for (int64_t i = 0; i < len; i++) {
    if (dbl)
      ((double *)pd_tensor_data(base))[i] = rnd();
    else
      ((float *)pd_tensor_data(base))[i] = (float)rnd();
  }
  int64_t st[2] = {n, 1};
  CHECK(pd_tensor_view(base, 2, shape, st, base->offset + off, &x) == PD_OK);
  if (!x) {
    pd_tensor_release(base);
    return;
  }
  int64_t ax = 1;
  pd_fft_r2c_args a = {x, {&ax, 1}, "backward", 1, 1};
  for (int rep = 0; rep < 3; rep++) {
    pd_tensor *y = run1(PD_OP_FFT_R2C, &a);
    CHECK(y != NULL);
    if (!y) break;
    CHECK(y->shape[1] == n / 2 + 1);
    double worst = 0;
    size_t es = dbl ? 8 : 4;
    for (int s = 0; s < 6; s++) {
      int64_t r = s % rows, k = s == 0 ? 0 : s == 1 ? n / 2 : (int64_t)((rnd() + 0.5) * (double)(n / 2 + 1)) % (n / 2 + 1);
      double re, im;
      direct((const char *)pd_tensor_data(base) + (size_t)(off + r * n) * es, 0, dbl, n, k, -1, &re, &im);
      double e = bin_err((const char *)pd_tensor_data(y) + (size_t)(r * (n / 2 + 1)) * 2 * es, dbl, k, re, im,
                         sqrt((double)n));
      if (e > worst) worst = e;
    }
    CHECK(worst < (dbl ? 1e-12 : 2e-5));
    pd_tensor_release(y);
  }
  pd_tensor_release(x);
  pd_tensor_release(base);
}

static void test_half_length_r2c(void) {
  check_r2c(37, 1024, 0, 0); /* chunks of 16 rows and a remainder */
  check_r2c(37, 1024, 0, 1);
  check_r2c(5, 66, 0, 0);    /* odd half length */
  check_r2c(1, 1 << 17, 0, 0); /* one long row: the six-step c2c of 2^16 inside */
  check_r2c(1, 1 << 17, 0, 1);
  check_r2c(3, 1024, 1, 0);  /* rows at an odd float offset: FFTW's r2c */
}

int main(void) {
  pd_autograd_init();
  RUN(test_six_step_c2c);
  RUN(test_half_length_r2c);
  return PD_TEST_RESULT();
}
