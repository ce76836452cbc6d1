/* Elementwise unary ops: math functions (exp, log, trig, erf ...), rounding, abs/neg/sign,
 * isnan/isinf/isfinite, bitwise_not, and the parameterised ones (pow with a scalar exponent,
 * clip, scale, logit), plus cast (core cast loops). Kernels are stamped per dtype by macros;
 * <tgmath.h> picks the float/double/complex variant of each math function. */
#include "pd_kernel_util.h"
#include "../pd_kernel_shared.h"

/* Vectorised libm: glibc >= 2.35 ships SIMD variants (libmvec, reached through -lm) of these
 * functions; declaring them `simd` lets gcc call the 8-wide (AVX2) versions from the
 * contiguous float32/float64 loops (<= 4 ulp, like Eigen's/numpy's SIMD paths). exp, log and
 * sqrt join only when the build passes -fno-math-errno (gcc treats them as errno-writing). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__GLIBC__) && \
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
#define PD_SIMD_DECL(f) \
  __attribute__((__simd__("notinbranch"))) extern float f##f(float); \
  __attribute__((__simd__("notinbranch"))) extern double f(double);
PD_SIMD_DECL(exp) PD_SIMD_DECL(expm1) PD_SIMD_DECL(log) PD_SIMD_DECL(log2) PD_SIMD_DECL(log10)
PD_SIMD_DECL(log1p) PD_SIMD_DECL(sin) PD_SIMD_DECL(cos) PD_SIMD_DECL(tan) PD_SIMD_DECL(asin)
PD_SIMD_DECL(acos) PD_SIMD_DECL(atan) PD_SIMD_DECL(sinh) PD_SIMD_DECL(cosh) PD_SIMD_DECL(tanh)
PD_SIMD_DECL(asinh) PD_SIMD_DECL(acosh) PD_SIMD_DECL(atanh) PD_SIMD_DECL(erf)
#endif
#include "pd_vmath.h"
#include <tgmath.h> /* after the declarations above: it turns exp, log ... into macros */

/* exp, expm1, log, log1p, tanh, sigmoid of float/double through pd_vmath.h: inlined and
 * vectorised by gcc (float16/bfloat16 compute in float and take the float variant). */
#define VM(F, a) _Generic((a), float: pd_v##F##f, double: pd_v##F)(a)
/* float64 exp and tanh: glibc's vector math library (libmvec) is faster than our degree-13
 * polynomial for double (measured), so those keep libm (gcc vectorises the calls). */
#define VM_F32_ONLY(F, a) _Generic((a), float: pd_v##F##f, double: F)(a)

/* Parameters of the parameterised ops: f0 raw double (pow exponent, logit eps); c0/c1 the
 * Scalars (clip bounds, scale/bias) converted to the input dtype, saturated for integers. */
typedef struct {
  double f0;
  double g0, g1;   /* float/complex dtypes */
  int64_t i0, i1;  /* integer/bool dtypes */
  int flag;
} uparams;

#define PD_PRM_bool(P, k) ((int)(P)->i##k)
#define PD_PRM_u8(P, k) ((int)(P)->i##k)
#define PD_PRM_i8(P, k) ((int)(P)->i##k)
#define PD_PRM_i16(P, k) ((int)(P)->i##k)
#define PD_PRM_i32(P, k) ((int32_t)(P)->i##k)
#define PD_PRM_i64(P, k) ((int64_t)(P)->i##k)
#define PD_PRM_f16(P, k) ((float)(P)->g##k)
#define PD_PRM_bf16(P, k) ((float)(P)->g##k)
#define PD_PRM_f32(P, k) ((float)(P)->g##k)
#define PD_PRM_f64(P, k) ((double)(P)->g##k)
#define PD_PRM_c64(P, k) ((pd_complex64)(P)->g##k)
#define PD_PRM_c128(P, k) ((pd_complex128)(P)->g##k)

/* Scalar -> value representable in dtype dt (pd_scalar_saturate: integers saturate; NaN -> 0). */
static void set_param(uparams *P, int k, pd_scalar s, pd_dtype dt) {
  int64_t v = pd_scalar_saturate(s, dt);
  if (k == 0) {
    P->g0 = s.f;
    P->i0 = v;
  } else {
    P->g1 = s.f;
    P->i1 = v;
  }
}

#define UN_DEF(NAME, SUF, OSUF, T, OT, CT, SETUP, EXPR)                                     \
  static void NAME##_loop_##SUF(char **d, const int64_t *st, int64_t n, void *ctx) {         \
    const uparams *P = (const uparams *)ctx;                                                 \
    const double f0 = P->f0;                                                                 \
    const CT c0 = PD_PRM_##SUF(P, 0), c1 = PD_PRM_##SUF(P, 1);                               \
    const int flag = P->flag;                                                                \
    (void)f0, (void)c0, (void)c1, (void)flag;                                                \
    char *o = d[0];                                                                          \
    const char *px = d[1];                                                                   \
    const int64_t si = (int64_t)sizeof(T), so = (int64_t)sizeof(OT);                         \
    if (st[0] == so && st[1] == si) {                                                        \
      for (int64_t i = 0; i < n; i++) {                                                      \
        CT a = PD_LD_##SUF(px + i * si);                                                     \
        PD_ST_##OSUF(o + i * so, (EXPR));                                                    \
      }                                                                                      \
    } else {                                                                                 \
      for (int64_t i = 0; i < n; i++, o += st[0], px += st[1]) {                             \
        CT a = PD_LD_##SUF(px);                                                              \
        PD_ST_##OSUF(o, (EXPR));                                                             \
      }                                                                                      \
    }                                                                                        \
  }                                                                                          \
  pd_status pd_kernel_##NAME##_##SUF(const void *args, pd_tensor **out, int n_out) {          \
    (void)n_out;                                                                             \
    const pd_##NAME##_args *A = (const pd_##NAME##_args *)args;                              \
    uparams P;                                                                               \
    memset(&P, 0, sizeof P);                                                                 \
    SETUP;                                                                                   \
    return pd_run_unary(#NAME, out[0], A->x, NAME##_loop_##SUF, &P);                         \
  }

/* Stamp one op over a dtype group; output dtype = input dtype. */
#define UN_F(NAME, SETUP, EXPR)                                                 \
  UN_DEF(NAME, f16, f16, pd_float16, pd_float16, float, SETUP, EXPR)            \
  UN_DEF(NAME, bf16, bf16, pd_bfloat16, pd_bfloat16, float, SETUP, EXPR)        \
  UN_DEF(NAME, f32, f32, float, float, float, SETUP, EXPR)                      \
  UN_DEF(NAME, f64, f64, double, double, double, SETUP, EXPR)
#define UN_C(NAME, SETUP, EXPR)                                                         \
  UN_DEF(NAME, c64, c64, pd_complex64, pd_complex64, pd_complex64, SETUP, EXPR)         \
  UN_DEF(NAME, c128, c128, pd_complex128, pd_complex128, pd_complex128, SETUP, EXPR)
#define UN_I(NAME, SETUP, EXPR)                                 \
  UN_DEF(NAME, u8, u8, uint8_t, uint8_t, int, SETUP, EXPR)      \
  UN_DEF(NAME, i8, i8, int8_t, int8_t, int, SETUP, EXPR)        \
  UN_DEF(NAME, i16, i16, int16_t, int16_t, int, SETUP, EXPR)    \
  UN_DEF(NAME, i32, i32, int32_t, int32_t, int32_t, SETUP, EXPR) \
  UN_DEF(NAME, i64, i64, int64_t, int64_t, int64_t, SETUP, EXPR)
#define UN_B(NAME, SETUP, EXPR) UN_DEF(NAME, bool, bool, uint8_t, uint8_t, int, SETUP, EXPR)
#define NOSETUP (void)A
#define UN_FC(NAME, EXPR) UN_F(NAME, NOSETUP, EXPR) UN_C(NAME, NOSETUP, EXPR)

/* ---- plain math ---- */
UN_F(exp, NOSETUP, VM_F32_ONLY(exp, a))
UN_C(exp, NOSETUP, exp(a))
UN_F(expm1, NOSETUP, VM(expm1, a))
UN_F(log, NOSETUP, VM(log, a))
UN_C(log, NOSETUP, log(a))
UN_F(log2, NOSETUP, log2(a))
UN_F(log10, NOSETUP, log10(a))
UN_F(log1p, NOSETUP, VM(log1p, a))
UN_FC(sqrt, sqrt(a))
UN_F(rsqrt, NOSETUP, 1 / sqrt(a))
UN_FC(reciprocal, 1 / a)
UN_FC(sin, sin(a))
UN_FC(cos, cos(a))
UN_FC(tan, tan(a))
UN_F(asin, NOSETUP, asin(a))
UN_F(acos, NOSETUP, acos(a))
UN_F(atan, NOSETUP, atan(a))
UN_FC(sinh, sinh(a))
UN_FC(cosh, cosh(a))
UN_F(tanh, NOSETUP, VM_F32_ONLY(tanh, a))
UN_C(tanh, NOSETUP, tanh(a))
UN_F(asinh, NOSETUP, asinh(a))
UN_F(acosh, NOSETUP, acosh(a))
UN_F(atanh, NOSETUP, atanh(a))
UN_F(erf, NOSETUP, erf(a))
UN_F(sigmoid, NOSETUP, VM(sigmoid, a))
UN_F(floor, NOSETUP, floor(a))
UN_F(ceil, NOSETUP, ceil(a))
UN_F(round, NOSETUP, round(a)) /* C round: half away from zero, as Paddle */
UN_F(trunc, NOSETUP, trunc(a))
UN_I(trunc, NOSETUP, a)

/* erfinv in double: Giles' single-precision polynomial as the start, then two Newton steps on
 * erf(x) - y (converges to double precision). */
static double erfinv_d(double y) {
  if (y != y) return y;
  if (y <= -1) return y == -1 ? -INFINITY : NAN;
  if (y >= 1) return y == 1 ? INFINITY : NAN;
  double w = -log((1.0 - y) * (1.0 + y)), x;
  if (w < 5.0) {
    w -= 2.5;
    x = 2.81022636e-08;
    x = 3.43273939e-07 + x * w;
    x = -3.5233877e-06 + x * w;
    x = -4.39150654e-06 + x * w;
    x = 0.00021858087 + x * w;
    x = -0.00125372503 + x * w;
    x = -0.00417768164 + x * w;
    x = 0.246640727 + x * w;
    x = 1.50140941 + x * w;
  } else {
    w = sqrt(w) - 3.0;
    x = -0.000200214257;
    x = 0.000100950558 + x * w;
    x = 0.00134934322 + x * w;
    x = -0.00367342844 + x * w;
    x = 0.00573950773 + x * w;
    x = -0.0076224613 + x * w;
    x = 0.00943887047 + x * w;
    x = 1.00167406 + x * w;
    x = 2.83297682 + x * w;
  }
  x *= y;
  for (int k = 0; k < 2; k++) {
    double e = erf(x) - y;
    double dx = e / (1.1283791670955126 * exp(-x * x));
    if (dx != dx || isinf(dx)) break;
    x -= dx;
  }
  return x;
}
UN_F(erfinv, NOSETUP, erfinv_d((double)a))

/* ---- arithmetic on integers too ---- */
UN_I(neg, NOSETUP, -a)
UN_F(neg, NOSETUP, -a + 0) /* Paddle's neg is scale(x, -1): x * -1 + 0, +0 for either zero */
UN_C(neg, NOSETUP, -a)
UN_I(square, NOSETUP, a * a)
UN_FC(square, a * a)
UN_I(sign, NOSETUP, (a > 0) - (a < 0))
UN_F(sign, NOSETUP, a > 0 ? 1 : (a < 0 ? -1 : a)) /* keeps NaN and signed zero */
UN_B(bitwise_not, NOSETUP, !a)
UN_I(bitwise_not, NOSETUP, ~a)

/* abs: complex gives the real dtype */
UN_I(abs, NOSETUP, a < 0 ? -a : a)
UN_F(abs, NOSETUP, fabs(a))
UN_DEF(abs, c64, f32, pd_complex64, float, pd_complex64, NOSETUP, cabsf(a))
UN_DEF(abs, c128, f64, pd_complex128, double, pd_complex128, NOSETUP, cabs(a))

/* ---- isnan / isinf / isfinite -> bool ---- */
#define UN_TEST(NAME, FEXPR, CEXPR, IEXPR)                                              \
  UN_DEF(NAME, u8, bool, uint8_t, uint8_t, int, NOSETUP, ((void)a, IEXPR))              \
  UN_DEF(NAME, i8, bool, int8_t, uint8_t, int, NOSETUP, ((void)a, IEXPR))               \
  UN_DEF(NAME, i16, bool, int16_t, uint8_t, int, NOSETUP, ((void)a, IEXPR))             \
  UN_DEF(NAME, i32, bool, int32_t, uint8_t, int32_t, NOSETUP, ((void)a, IEXPR))         \
  UN_DEF(NAME, i64, bool, int64_t, uint8_t, int64_t, NOSETUP, ((void)a, IEXPR))         \
  UN_DEF(NAME, f16, bool, pd_float16, uint8_t, float, NOSETUP, FEXPR)                   \
  UN_DEF(NAME, bf16, bool, pd_bfloat16, uint8_t, float, NOSETUP, FEXPR)                 \
  UN_DEF(NAME, f32, bool, float, uint8_t, float, NOSETUP, FEXPR)                        \
  UN_DEF(NAME, f64, bool, double, uint8_t, double, NOSETUP, FEXPR)                      \
  UN_DEF(NAME, c64, bool, pd_complex64, uint8_t, pd_complex64, NOSETUP, CEXPR)          \
  UN_DEF(NAME, c128, bool, pd_complex128, uint8_t, pd_complex128, NOSETUP, CEXPR)
UN_TEST(isnan, isnan(a), isnan(creal(a)) || isnan(cimag(a)), 0)
UN_TEST(isinf, isinf(a), isinf(creal(a)) || isinf(cimag(a)), 0)
UN_TEST(isfinite, isfinite(a), isfinite(creal(a)) && isfinite(cimag(a)), 1)

/* ---- parameterised ---- */
/* pow(x, factor): floats in their compute type; integers in double, stored back truncated. */
#define POW_SETUP P.f0 = A->factor.f
UN_F(pow, POW_SETUP, pow(a, (__typeof__(a))f0))
UN_I(pow, POW_SETUP, pow((double)a, f0))
/* complex base, real exponent: exp(f log a); a ** 0 = 1 and 0 ** f = 0 for f > 0, as numpy */
UN_C(pow, POW_SETUP, f0 == 0 ? (__typeof__(a))1 : (a == 0 && f0 > 0 ? (__typeof__(a))0 : pow(a, (__typeof__(a))f0)))

/* logit(x, eps): log(x / (1 - x)), x clamped into [eps, 1 - eps] when eps > 0. */
#define LOGIT_CLAMP(a) (f0 > 0 ? ((a) < f0 ? f0 : ((a) > 1 - f0 ? 1 - f0 : (a))) : (a))
UN_F(logit, P.f0 = A->eps, log(LOGIT_CLAMP((double)a) / (1 - LOGIT_CLAMP((double)a))))

/* clip(x, min, max) */
static pd_status clip_setup(const pd_clip_args *A, uparams *P) {
  if (A->min.f > A->max.f)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[clip] expected min <= max, received min = %g and max = %g", A->min.f,
                        A->max.f);
  set_param(P, 0, A->min, A->x->dtype);
  set_param(P, 1, A->max, A->x->dtype);
  return PD_OK;
}
#define CLIP_SETUP PD_TRY(clip_setup(A, &P))
UN_I(clip, CLIP_SETUP, a < c0 ? c0 : (a > c1 ? c1 : a))
UN_F(clip, CLIP_SETUP, a < c0 ? c0 : (a > c1 ? c1 : a))

/* scale(x, scale, bias, bias_after_scale): scale and bias converted to x's dtype first. */
static void scale_setup(const pd_scale_args *A, uparams *P) {
  set_param(P, 0, A->scale, A->x->dtype);
  set_param(P, 1, A->bias, A->x->dtype);
  P->flag = A->bias_after_scale;
}
#define SCALE_SETUP scale_setup(A, &P)
UN_I(scale, SCALE_SETUP, flag ? a * c0 + c1 : (a + c1) * c0)
UN_F(scale, SCALE_SETUP, flag ? a * c0 + c1 : (a + c1) * c0)
UN_C(scale, SCALE_SETUP, flag ? a * c0 + c1 : (a + c1) * c0)

/* ---- cast: the core's (src, dst) cast loops through pd_tensor_copy_ ---- */
#define DEF_CAST(SUF, T, CT)                                                          \
  pd_status pd_kernel_cast_##SUF(const void *args, pd_tensor **out, int n_out) {      \
    (void)n_out;                                                                     \
    return pd_tensor_copy_(out[0], ((const pd_cast_args *)args)->x);                 \
  }
PD_FOR_ALL(DEF_CAST)
