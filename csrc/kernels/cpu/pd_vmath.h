/* Branch-free float32/float64 exp, expm1, log, log1p, tanh and sigmoid that gcc vectorises
 * inside plain `for` loops (libm calls stay scalar). Special cases are handled with selects;
 * accuracy: float32 <= ~2 ulp, float64 <= ~1e-15 relative (checked by tests/c/test_vmath.c).
 * Technique: Cody-Waite range reduction by ln2 + Taylor polynomials, exponents built in bits. */
#ifndef PD_VMATH_H
#define PD_VMATH_H
#include <math.h>
#include <stdint.h>
#include <string.h>

/* always inlined: a call left in a loop (large units hit gcc's inline growth limits) would
 * stop its vectorisation */
#if defined(__GNUC__)
#define PD_VM_INL static inline __attribute__((always_inline))
#else
#define PD_VM_INL static inline
#endif

PD_VM_INL uint32_t pd_vm_f2u(float x) { uint32_t u; memcpy(&u, &x, 4); return u; }
PD_VM_INL float pd_vm_u2f(uint32_t u) { float x; memcpy(&x, &u, 4); return x; }
PD_VM_INL uint64_t pd_vm_d2u(double x) { uint64_t u; memcpy(&u, &x, 8); return u; }
PD_VM_INL double pd_vm_u2d(uint64_t u) { double x; memcpy(&x, &u, 8); return x; }
/* c ? a : b as a bit blend. Plain `?:` on floats is turned back into branches (the constant
 * arm gets folded and the FP ops left on the other path may trap under -ftrapping-math), which
 * stops if-conversion; the blend keeps the loop straight-line. */
PD_VM_INL float pd_vm_self(int c, float a, float b) {
  uint32_t m = (uint32_t)0 - (uint32_t)(c != 0);
  return pd_vm_u2f((pd_vm_f2u(a) & m) | (pd_vm_f2u(b) & ~m));
}
PD_VM_INL double pd_vm_seld(int c, double a, double b) {
  uint64_t m = (uint64_t)0 - (uint64_t)(c != 0);
  return pd_vm_u2d((pd_vm_d2u(a) & m) | (pd_vm_d2u(b) & ~m));
}

#define PD_VM_LN2HI_F 0.693145751953125f  /* ln2 with trailing zero bits: k*hi is exact */
#define PD_VM_LN2LO_F 1.428606765330187e-06f
#define PD_VM_LN2HI_D 0.6931471803691238     /* 0x3fe62e42fee00000 */
#define PD_VM_LN2LO_D 1.9082149292705877e-10 /* ln2 - LN2HI_D */
#define PD_VM_LOG2E 1.4426950408889634

/* ---------------- float32 ---------------- */

/* x = k ln2 + r, |r| <= ln2/2; returns r and k (as float and int). x must be finite-clamped;
 * NaN flows through r (k is then garbage, but no UB). */
PD_VM_INL float pd_vm_reduce_f(float x, float *kf, int32_t *ki) {
  const float magic = 12582912.0f; /* 1.5 * 2^23: adding it rounds to an integer */
  float t = x * (float)PD_VM_LOG2E + magic;
  int32_t k = (int32_t)(pd_vm_f2u(t) - pd_vm_f2u(magic));
  float kk = t - magic;
  float r = fmaf(kk, -PD_VM_LN2HI_F, x);
  *kf = kk;
  *ki = k;
  return fmaf(kk, -PD_VM_LN2LO_F, r);
}
/* 2^k for k in [-126, 127] */
PD_VM_INL float pd_vm_pow2f(int32_t k) { return pd_vm_u2f((uint32_t)(k + 127) << 23); }

/* e^r - 1 for |r| <= ln2/2 (Taylor to r^8; truncation < 1e-9 relative) */
PD_VM_INL float pd_vm_expm1_poly_f(float r) {
  float p = 2.48015873e-05f;
  p = fmaf(p, r, 1.98412698e-04f);
  p = fmaf(p, r, 1.38888889e-03f);
  p = fmaf(p, r, 8.33333333e-03f);
  p = fmaf(p, r, 4.16666667e-02f);
  p = fmaf(p, r, 1.66666667e-01f);
  p = fmaf(p, r, 0.5f);
  return fmaf(p * r, r, r);
}

PD_VM_INL float pd_vexpf(float x) {
  float xc = pd_vm_self(x < -104.0f, -104.0f, x); /* exp(-104) < 2^-150: rounds to 0 */
  xc = pd_vm_self(xc > 89.0f, 89.0f, xc);        /* exp(89) overflows to inf */
  float kf;
  int32_t k;
  float r = pd_vm_reduce_f(xc, &kf, &k);
  float p = 1.0f + pd_vm_expm1_poly_f(r);
  int32_t k1 = k >> 1, k2 = k - k1; /* two scalings reach subnormals and 2^128 */
  return p * pd_vm_pow2f(k1) * pd_vm_pow2f(k2);
}

PD_VM_INL float pd_vexpm1f(float x) {
  float xc = pd_vm_self(x < -20.0f, -20.0f, x); /* expm1(-20) rounds to -1 */
  xc = pd_vm_self(xc > 80.0f, 80.0f, xc);
  float kf;
  int32_t k;
  float r = pd_vm_reduce_f(xc, &kf, &k);
  float p = pd_vm_expm1_poly_f(r);
  float s = pd_vm_pow2f(k);
  float y = fmaf(s, p, s - 1.0f); /* 2^k (1 + p) - 1 */
  y = pd_vm_self(x == 0.0f, x, y); /* keeps -0 */
  return pd_vm_self(x > 80.0f, pd_vexpf(x), y);
}

/* log(1 + f) for f in [sqrt(1/2) - 1, sqrt(2) - 1], without the k ln2 part (s = f / (2 + f)):
 * log(1 + f) = f - (hfsq - s (hfsq + R)), R = 2 s^2/3 + 2 s^4/5 + ... */
PD_VM_INL float pd_vm_log1p_core_f(float f, float klo) {
  float s = f / (2.0f + f), z = s * s;
  float R = 0.22222222f;
  R = fmaf(R, z, 0.28571429f);
  R = fmaf(R, z, 0.4f);
  R = fmaf(R, z, 0.66666667f);
  R *= z;
  float hfsq = 0.5f * f * f;
  return f - (hfsq - fmaf(s, hfsq + R, klo));
}

PD_VM_INL float pd_vlogf(float x) {
  int sub = x < 1.17549435e-38f; /* subnormal (and 0/negatives, fixed below) */
  float xs = pd_vm_self(sub, x * 8388608.0f, x);
  uint32_t ix = pd_vm_f2u(xs) + (0x3f800000u - 0x3f3504f3u); /* m in [sqrt(1/2), sqrt(2)) */
  int32_t e = (int32_t)(ix >> 23) - 127 - (23 & -sub);
  float m = pd_vm_u2f((ix & 0x007fffffu) + 0x3f3504f3u);
  float ef = (float)e;
  float y = fmaf(ef, PD_VM_LN2HI_F, pd_vm_log1p_core_f(m - 1.0f, ef * PD_VM_LN2LO_F));
  y = pd_vm_self(x == 0.0f, -INFINITY, y);
  y = pd_vm_self(x < 0.0f, NAN, y);
  return pd_vm_self((x >= INFINITY) | (x != x), x + x, y);
}

PD_VM_INL float pd_vlog1pf(float x) {
  float u = 1.0f + x;
  float c = (u - 1.0f) - x; /* rounding error of u */
  float y = pd_vlogf(u) - c / u;
  y = pd_vm_self(x == 0.0f, x, y); /* keeps -0 */
  y = pd_vm_self(x == -1.0f, -INFINITY, y);
  y = pd_vm_self(x < -1.0f, NAN, y);
  return pd_vm_self((x >= INFINITY) | (x != x), x + x, y);
}

PD_VM_INL float pd_vtanhf(float x) {
  float ax = fabsf(x);
  ax = pd_vm_self(ax > 10.0f, 10.0f, ax); /* tanh(10) rounds to 1; NaN stays */
  float t = pd_vexpm1f(2.0f * ax);
  return copysignf(t / (t + 2.0f), x);
}

PD_VM_INL float pd_vsigmoidf(float x) {
  float e = pd_vexpf(-fabsf(x)); /* exp(-|x|) in (0, 1] */
  return pd_vm_self(x < 0, e, 1.0f) / (1.0f + e);
}

/* ---------------- float64 ---------------- */

PD_VM_INL double pd_vm_reduce_d(double x, int64_t *ki) {
  const double magic = 6755399441055744.0; /* 1.5 * 2^52 */
  double t = x * PD_VM_LOG2E + magic;
  *ki = (int64_t)(pd_vm_d2u(t) - pd_vm_d2u(magic));
  double kk = t - magic;
  double r = fma(kk, -PD_VM_LN2HI_D, x);
  return fma(kk, -PD_VM_LN2LO_D, r);
}
PD_VM_INL double pd_vm_pow2d(int64_t k) { return pd_vm_u2d((uint64_t)(k + 1023) << 52); }

/* e^r - 1 for |r| <= ln2/2 (Taylor to r^13; truncation < 1e-17 relative) */
PD_VM_INL double pd_vm_expm1_poly_d(double r) {
  double p = 1.6059043836821613e-10;
  p = fma(p, r, 2.08767569878680990e-09);
  p = fma(p, r, 2.50521083854417188e-08);
  p = fma(p, r, 2.75573192239858907e-07);
  p = fma(p, r, 2.75573192239858907e-06);
  p = fma(p, r, 2.48015873015873016e-05);
  p = fma(p, r, 1.98412698412698413e-04);
  p = fma(p, r, 1.38888888888888889e-03);
  p = fma(p, r, 8.33333333333333333e-03);
  p = fma(p, r, 4.16666666666666667e-02);
  p = fma(p, r, 1.66666666666666667e-01);
  p = fma(p, r, 0.5);
  return fma(p * r, r, r);
}

PD_VM_INL double pd_vexp(double x) {
  double xc = pd_vm_seld(x < -746.0, -746.0, x);
  xc = pd_vm_seld(xc > 710.0, 710.0, xc);
  int64_t k;
  double r = pd_vm_reduce_d(xc, &k);
  double p = 1.0 + pd_vm_expm1_poly_d(r);
  int64_t k1 = k >> 1, k2 = k - k1;
  return p * pd_vm_pow2d(k1) * pd_vm_pow2d(k2);
}

PD_VM_INL double pd_vexpm1(double x) {
  double xc = pd_vm_seld(x < -40.0, -40.0, x);
  xc = pd_vm_seld(xc > 700.0, 700.0, xc);
  int64_t k;
  double r = pd_vm_reduce_d(xc, &k);
  double p = pd_vm_expm1_poly_d(r);
  double s = pd_vm_pow2d(k);
  double y = fma(s, p, s - 1.0);
  y = pd_vm_seld(x == 0.0, x, y);
  return pd_vm_seld(x > 700.0, pd_vexp(x), y);
}

PD_VM_INL double pd_vm_log1p_core_d(double f, double klo) {
  double s = f / (2.0 + f), z = s * s;
  double R = 2.0 / 23;
  R = fma(R, z, 2.0 / 21);
  R = fma(R, z, 2.0 / 19);
  R = fma(R, z, 2.0 / 17);
  R = fma(R, z, 2.0 / 15);
  R = fma(R, z, 2.0 / 13);
  R = fma(R, z, 2.0 / 11);
  R = fma(R, z, 2.0 / 9);
  R = fma(R, z, 2.0 / 7);
  R = fma(R, z, 2.0 / 5);
  R = fma(R, z, 2.0 / 3);
  R *= z;
  double hfsq = 0.5 * f * f;
  return f - (hfsq - fma(s, hfsq + R, klo));
}

PD_VM_INL double pd_vlog(double x) {
  int sub = x < 2.2250738585072014e-308;
  double xs = pd_vm_seld(sub, x * 18014398509481984.0, x); /* 2^54 */
  uint64_t ix = pd_vm_d2u(xs) + (0x3ff0000000000000ull - 0x3fe6a09e667f3bcdull);
  double m = pd_vm_u2d((ix & 0x000fffffffffffffull) + 0x3fe6a09e667f3bcdull);
  /* exponent as a double without an int64 -> double conversion (none in AVX2): 2^52 + e */
  double ef = pd_vm_u2d(0x4330000000000000ull | (ix >> 52)) -
              pd_vm_seld(sub, 4503599627370496.0 + 1023 + 54, 4503599627370496.0 + 1023);
  double y = fma(ef, PD_VM_LN2HI_D, pd_vm_log1p_core_d(m - 1.0, ef * PD_VM_LN2LO_D));
  y = pd_vm_seld(x == 0.0, -INFINITY, y);
  y = pd_vm_seld(x < 0.0, NAN, y);
  return pd_vm_seld((x >= INFINITY) | (x != x), x + x, y);
}

PD_VM_INL double pd_vlog1p(double x) {
  double u = 1.0 + x;
  double c = (u - 1.0) - x;
  double y = pd_vlog(u) - c / u;
  y = pd_vm_seld(x == 0.0, x, y);
  y = pd_vm_seld(x == -1.0, -INFINITY, y);
  y = pd_vm_seld(x < -1.0, NAN, y);
  return pd_vm_seld((x >= INFINITY) | (x != x), x + x, y);
}

PD_VM_INL double pd_vtanh(double x) {
  double ax = fabs(x);
  ax = pd_vm_seld(ax > 20.0, 20.0, ax);
  double t = pd_vexpm1(2.0 * ax);
  return copysign(t / (t + 2.0), x);
}

PD_VM_INL double pd_vsigmoid(double x) {
  double e = pd_vexp(-fabs(x));
  return pd_vm_seld(x < 0, e, 1.0) / (1.0 + e);
}

#endif
