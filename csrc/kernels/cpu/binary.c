/* Elementwise binary arithmetic with numpy broadcasting (add, subtract, multiply, divide,
 * floor_divide, remainder, elementwise_pow, maximum/minimum, fmax/fmin, atan2, bitwise ops).
 * Each op gets one kernel per dtype; the inner loop has a contiguous fast path the compiler
 * vectorises, a scalar-operand path, and a generic strided path. */
#include <stdatomic.h>
#include "pd_kernel_util.h"

typedef struct { pd_tensor *x, *y; } bin_args;

#define BIN_LOOP(NAME, SUF, T, CT, EXPR)                                                    \
  static void NAME##_loop_##SUF(char **d, const int64_t *st, int64_t n, void *ctx) {       \
    (void)ctx;                                                                             \
    char *o = d[0];                                                                        \
    const char *px = d[1], *py = d[2];                                                     \
    const int64_t s = (int64_t)sizeof(T);                                                  \
    if (st[0] == s && st[1] == s && st[2] == s) {                                          \
      for (int64_t i = 0; i < n; i++) {                                                    \
        CT a = PD_LD_##SUF(px + i * s), b = PD_LD_##SUF(py + i * s);                       \
        PD_ST_##SUF(o + i * s, (EXPR));                                                    \
      }                                                                                    \
    } else if (st[0] == s && st[1] == s && st[2] == 0) {                                   \
      CT b = PD_LD_##SUF(py);                                                              \
      for (int64_t i = 0; i < n; i++) {                                                    \
        CT a = PD_LD_##SUF(px + i * s);                                                    \
        PD_ST_##SUF(o + i * s, (EXPR));                                                    \
      }                                                                                    \
    } else {                                                                               \
      for (int64_t i = 0; i < n; i++, o += st[0], px += st[1], py += st[2]) {              \
        CT a = PD_LD_##SUF(px), b = PD_LD_##SUF(py);                                       \
        PD_ST_##SUF(o, (EXPR));                                                            \
      }                                                                                    \
    }                                                                                      \
  }                                                                                        \
  pd_status pd_kernel_##NAME##_##SUF(const void *args, pd_tensor **out, int n_out) {        \
    (void)n_out;                                                                           \
    const bin_args *a = (const bin_args *)args;                                            \
    return pd_run_binary(#NAME, out[0], a->x, a->y, NAME##_loop_##SUF, NULL);              \
  }

#define DEF_ADD(SUF, T, CT) BIN_LOOP(add, SUF, T, CT, a + b)
#define DEF_SUB(SUF, T, CT) BIN_LOOP(subtract, SUF, T, CT, a - b)
#define DEF_MUL(SUF, T, CT) BIN_LOOP(multiply, SUF, T, CT, a * b)
#define DEF_DIV(SUF, T, CT) BIN_LOOP(divide, SUF, T, CT, a / b)
PD_FOR_ALL(DEF_ADD)
PD_FOR_ALL(DEF_SUB)
PD_FOR_ALL(DEF_MUL)
PD_FOR_FLOAT(DEF_DIV)
PD_FOR_COMPLEX(DEF_DIV)

/* integer true division is defined on the float path by the Python layer (cast first), as
 * Paddle does; integer kernels here use C division with a zero check. */
#define DEF_IDIV(SUF, T, CT)                                                              \
  static void divide_loop_##SUF(char **d, const int64_t *st, int64_t n, void *ctx) {     \
    int *zero = (int *)ctx;                                                              \
    char *o = d[0];                                                                      \
    const char *px = d[1], *py = d[2];                                                   \
    for (int64_t i = 0; i < n; i++, o += st[0], px += st[1], py += st[2]) {              \
      CT a = PD_LD_##SUF(px), b = PD_LD_##SUF(py);                                       \
      if (b == 0) {                                                                      \
        *zero = 1;                                                                       \
        PD_ST_##SUF(o, 0);                                                               \
      } else {                                                                           \
        PD_ST_##SUF(o, a / b);                                                           \
      }                                                                                  \
    }                                                                                    \
  }                                                                                      \
  pd_status pd_kernel_divide_##SUF(const void *args, pd_tensor **out, int n_out) {        \
    (void)n_out;                                                                         \
    const bin_args *a = (const bin_args *)args;                                          \
    int zero = 0;                                                                        \
    PD_TRY(pd_run_binary("divide", out[0], a->x, a->y, divide_loop_##SUF, &zero));       \
    if (zero)                                                                            \
      return pd_set_error(PD_ERR_INVALID_ARGUMENT,                                       \
                          "[divide] integer division by zero: y contains 0");            \
    return PD_OK;                                                                        \
  }
PD_FOR_INT(DEF_IDIV)

/* ---- floor_divide / remainder: floor semantics (result takes the divisor's sign) ---- */
/* Integer helpers in int64 (every integer dtype fits); b == -1 avoids the INT_MIN / -1 trap. */
static inline int64_t floordiv_i64(int64_t a, int64_t b) {
  if (b == -1) return (int64_t)(0u - (uint64_t)a);
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}
static inline int64_t mod_i64(int64_t a, int64_t b) {
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
static inline double fmod_floor_d(double a, double b) {
  double r = fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
static inline float fmod_floor_f(float a, float b) {
  float r = fmodf(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

/* Integer loop with a division-by-zero flag (set from any thread; only ever set to 1). */
#define IDIV_LOOP(NAME, SUF, T, FN)                                                       \
  static void NAME##_loop_##SUF(char **d, const int64_t *st, int64_t n, void *ctx) {     \
    atomic_int *zero = (atomic_int *)ctx;                                                \
    char *o = d[0];                                                                      \
    const char *px = d[1], *py = d[2];                                                   \
    int z = 0;                                                                           \
    for (int64_t i = 0; i < n; i++, o += st[0], px += st[1], py += st[2]) {              \
      int64_t a = (int64_t)PD_LD_##SUF(px), b = (int64_t)PD_LD_##SUF(py);                \
      if (b == 0) {                                                                      \
        z = 1;                                                                           \
        PD_ST_##SUF(o, 0);                                                               \
      } else {                                                                           \
        PD_ST_##SUF(o, FN(a, b));                                                        \
      }                                                                                  \
    }                                                                                    \
    if (z) atomic_store_explicit(zero, 1, memory_order_relaxed);                         \
  }                                                                                      \
  pd_status pd_kernel_##NAME##_##SUF(const void *args, pd_tensor **out, int n_out) {      \
    (void)n_out;                                                                         \
    const bin_args *a = (const bin_args *)args;                                          \
    atomic_int zero;                                                                     \
    atomic_init(&zero, 0);                                                               \
    PD_TRY(pd_run_binary(#NAME, out[0], a->x, a->y, NAME##_loop_##SUF, &zero));          \
    if (atomic_load(&zero))                                                              \
      return pd_set_error(PD_ERR_INVALID_ARGUMENT,                                       \
                          "[" #NAME "] integer division by zero: y contains 0");         \
    return PD_OK;                                                                        \
  }
#define DEF_IFLOORDIV(SUF, T, CT) IDIV_LOOP(floor_divide, SUF, T, floordiv_i64)
#define DEF_IMOD(SUF, T, CT) IDIV_LOOP(remainder, SUF, T, mod_i64)
PD_FOR_INT(DEF_IFLOORDIV)
PD_FOR_INT(DEF_IMOD)

BIN_LOOP(floor_divide, f16, pd_float16, float, floorf(a / b))
BIN_LOOP(floor_divide, bf16, pd_bfloat16, float, floorf(a / b))
BIN_LOOP(floor_divide, f32, float, float, floorf(a / b))
BIN_LOOP(floor_divide, f64, double, double, floor(a / b))
BIN_LOOP(remainder, f16, pd_float16, float, fmod_floor_f(a, b))
BIN_LOOP(remainder, bf16, pd_bfloat16, float, fmod_floor_f(a, b))
BIN_LOOP(remainder, f32, float, float, fmod_floor_f(a, b))
BIN_LOOP(remainder, f64, double, double, fmod_floor_d(a, b))

/* ---- elementwise_pow ---- */
/* Exact integer power by squaring (wrapping like C unsigned arithmetic); a negative exponent
 * gives trunc(a ** b): 1 for a == 1, +-1 for a == -1, else 0. */
static inline int64_t ipow_i64(int64_t a, int64_t b) {
  if (b < 0) return a == 1 ? 1 : (a == -1 ? ((b & 1) ? -1 : 1) : 0);
  uint64_t r = 1, base = (uint64_t)a;
  while (b) {
    if (b & 1) r *= base;
    base *= base;
    b >>= 1;
  }
  return (int64_t)r;
}
#define DEF_IPOW(SUF, T, CT) BIN_LOOP(elementwise_pow, SUF, T, CT, ipow_i64((int64_t)a, (int64_t)b))
PD_FOR_INT(DEF_IPOW)
BIN_LOOP(elementwise_pow, f16, pd_float16, float, powf(a, b))
BIN_LOOP(elementwise_pow, bf16, pd_bfloat16, float, powf(a, b))
BIN_LOOP(elementwise_pow, f32, float, float, powf(a, b))
BIN_LOOP(elementwise_pow, f64, double, double, pow(a, b))
/* complex: exp(b log a) (C99 cpow), with numpy's values where that formula has none: a ** 0 = 1,
 * 0 ** b = 0 for Re(b) > 0 */
static inline pd_complex128 cpow_c128(pd_complex128 a, pd_complex128 b) {
  if (creal(b) == 0 && cimag(b) == 0) return 1.0;
  if (creal(a) == 0 && cimag(a) == 0 && creal(b) > 0) return 0.0;
  return cpow(a, b);
}
static inline pd_complex64 cpow_c64(pd_complex64 a, pd_complex64 b) {
  if (crealf(b) == 0 && cimagf(b) == 0) return 1.0f;
  if (crealf(a) == 0 && cimagf(a) == 0 && crealf(b) > 0) return 0.0f;
  return cpowf(a, b);
}
BIN_LOOP(elementwise_pow, c64, pd_complex64, pd_complex64, cpow_c64(a, b))
BIN_LOOP(elementwise_pow, c128, pd_complex128, pd_complex128, cpow_c128(a, b))

/* ---- maximum / minimum (NaN propagates, as numpy and Paddle 2.3 document) and fmax / fmin
 * (NaN ignored unless both are NaN) ---- */
static inline int nan_d(double v) { return v != v; } /* constant-folds away for integers */
#define DEF_MAX(SUF, T, CT) BIN_LOOP(maximum, SUF, T, CT, (a > b || nan_d(a)) ? a : b)
#define DEF_MIN(SUF, T, CT) BIN_LOOP(minimum, SUF, T, CT, (a < b || nan_d(a)) ? a : b)
#define DEF_FMAX(SUF, T, CT) BIN_LOOP(fmax, SUF, T, CT, (a > b || nan_d(b)) ? a : b)
#define DEF_FMIN(SUF, T, CT) BIN_LOOP(fmin, SUF, T, CT, (a < b || nan_d(b)) ? a : b)
PD_FOR_REAL(DEF_MAX)
PD_FOR_REAL(DEF_MIN)
PD_FOR_REAL(DEF_FMAX)
PD_FOR_REAL(DEF_FMIN)

/* ---- bitwise ops (bool and integers) ---- */
#define DEF_BAND(SUF, T, CT) BIN_LOOP(bitwise_and, SUF, T, CT, a & b)
#define DEF_BOR(SUF, T, CT) BIN_LOOP(bitwise_or, SUF, T, CT, a | b)
#define DEF_BXOR(SUF, T, CT) BIN_LOOP(bitwise_xor, SUF, T, CT, a ^ b)
PD_FOR_BOOL(DEF_BAND) PD_FOR_INT(DEF_BAND)
PD_FOR_BOOL(DEF_BOR) PD_FOR_INT(DEF_BOR)
PD_FOR_BOOL(DEF_BXOR) PD_FOR_INT(DEF_BXOR)

/* ---- atan2: floats keep their dtype; integers compute and store float64 ---- */
BIN_LOOP(atan2, f16, pd_float16, float, atan2f(a, b))
BIN_LOOP(atan2, bf16, pd_bfloat16, float, atan2f(a, b))
BIN_LOOP(atan2, f32, float, float, atan2f(a, b))
BIN_LOOP(atan2, f64, double, double, atan2(a, b))
#define DEF_IATAN2(SUF, T, CT)                                                            \
  static void atan2_loop_##SUF(char **d, const int64_t *st, int64_t n, void *ctx) {      \
    (void)ctx;                                                                           \
    char *o = d[0];                                                                      \
    const char *px = d[1], *py = d[2];                                                   \
    for (int64_t i = 0; i < n; i++, o += st[0], px += st[1], py += st[2])                \
      *(double *)o = atan2((double)PD_LD_##SUF(px), (double)PD_LD_##SUF(py));            \
  }                                                                                      \
  pd_status pd_kernel_atan2_##SUF(const void *args, pd_tensor **out, int n_out) {         \
    (void)n_out;                                                                         \
    const bin_args *a = (const bin_args *)args;                                          \
    return pd_run_binary("atan2", out[0], a->x, a->y, atan2_loop_##SUF, NULL);           \
  }
PD_FOR_INT(DEF_IATAN2)
