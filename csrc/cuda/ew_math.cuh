// Math helpers and the elementwise functors (one per op), on compute values (ew_common.cuh).
// Each mirrors the CPU kernel's expression (csrc/kernels/cpu/{unary,binary,compare,activation}.c).
#ifndef PD_EW_MATH_CUH
#define PD_EW_MATH_CUH
#include "ew_common.cuh"

namespace pdew {

#define PD_EW_MF(name, ff, fd)                                             \
  __device__ __forceinline__ float name(float a) { return ff(a); }       \
  __device__ __forceinline__ double name(double a) { return fd(a); }
PD_EW_MF(m_exp, expf, exp)
PD_EW_MF(m_expm1, expm1f, expm1)
PD_EW_MF(m_log, logf, log)
PD_EW_MF(m_log2, log2f, log2)
PD_EW_MF(m_log10, log10f, log10)
PD_EW_MF(m_log1p, log1pf, log1p)
PD_EW_MF(m_sqrt, sqrtf, sqrt)
PD_EW_MF(m_sin, sinf, sin)
PD_EW_MF(m_cos, cosf, cos)
PD_EW_MF(m_tan, tanf, tan)
PD_EW_MF(m_asin, asinf, asin)
PD_EW_MF(m_acos, acosf, acos)
PD_EW_MF(m_atan, atanf, atan)
PD_EW_MF(m_sinh, sinhf, sinh)
PD_EW_MF(m_cosh, coshf, cosh)
PD_EW_MF(m_tanh, tanhf, tanh)
PD_EW_MF(m_asinh, asinhf, asinh)
PD_EW_MF(m_acosh, acoshf, acosh)
PD_EW_MF(m_atanh, atanhf, atanh)
PD_EW_MF(m_erf, erff, erf)
PD_EW_MF(m_floor, floorf, floor)
PD_EW_MF(m_ceil, ceilf, ceil)
PD_EW_MF(m_round, roundf, round) // half away from zero, as C round
PD_EW_MF(m_trunc, truncf, trunc)
PD_EW_MF(m_fabs, fabsf, fabs)
#undef PD_EW_MF
__device__ __forceinline__ float m_pow(float a, float b) { return powf(a, b); }
__device__ __forceinline__ double m_pow(double a, double b) { return pow(a, b); }
__device__ __forceinline__ float m_fmod(float a, float b) { return fmodf(a, b); }
__device__ __forceinline__ double m_fmod(double a, double b) { return fmod(a, b); }
__device__ __forceinline__ float m_atan2(float a, float b) { return atan2f(a, b); }
__device__ __forceinline__ double m_atan2(double a, double b) { return atan2(a, b); }
// pd_vmath.h's sigmoid: exp(-|x|) in (0, 1], no overflow
template <class C> __device__ __forceinline__ C m_sigmoid(C x) {
  const C e = m_exp(-m_fabs(x));
  return (x < 0 ? e : (C)1) / ((C)1 + e);
}
template <class C> __device__ __forceinline__ bool m_isnan(C v) { return v != v; }

// ---------------- unary ----------------
#define PD_EW_UF(NAME, EXPR)                                                       \
  struct NAME {                                                                    \
    template <class C> __device__ __forceinline__ C operator()(C a) const { return (EXPR); } \
  };
PD_EW_UF(FExp, m_exp(a))
PD_EW_UF(FExpm1, m_expm1(a))
PD_EW_UF(FLog, m_log(a))
PD_EW_UF(FLog2, m_log2(a))
PD_EW_UF(FLog10, m_log10(a))
PD_EW_UF(FLog1p, m_log1p(a))
PD_EW_UF(FSqrt, m_sqrt(a))
PD_EW_UF(FRsqrt, (C)1 / m_sqrt(a))
PD_EW_UF(FReciprocal, (C)1 / a)
PD_EW_UF(FSin, m_sin(a))
PD_EW_UF(FCos, m_cos(a))
PD_EW_UF(FTan, m_tan(a))
PD_EW_UF(FAsin, m_asin(a))
PD_EW_UF(FAcos, m_acos(a))
PD_EW_UF(FAtan, m_atan(a))
PD_EW_UF(FSinh, m_sinh(a))
PD_EW_UF(FCosh, m_cosh(a))
PD_EW_UF(FTanh, m_tanh(a))
PD_EW_UF(FAsinh, m_asinh(a))
PD_EW_UF(FAcosh, m_acosh(a))
PD_EW_UF(FAtanh, m_atanh(a))
PD_EW_UF(FErf, m_erf(a))
PD_EW_UF(FSigmoid, m_sigmoid(a))
PD_EW_UF(FFloor, m_floor(a))
PD_EW_UF(FCeil, m_ceil(a))
PD_EW_UF(FRound, m_round(a))
PD_EW_UF(FTrunc, m_trunc(a))
PD_EW_UF(Ident, a)
PD_EW_UF(INeg, -a)
PD_EW_UF(FNeg, -a + (C)0) // Paddle's neg is x * -1 + 0: +0 for either zero
PD_EW_UF(Square, a * a)
PD_EW_UF(ISign, (C)((a > 0) - (a < 0)))
PD_EW_UF(FSign, a > 0 ? (C)1 : (a < 0 ? (C)-1 : a)) // keeps NaN and signed zero
PD_EW_UF(BNot, (C)!a)
PD_EW_UF(INot, (C)~a)
PD_EW_UF(IAbs, a < 0 ? (C)-a : a)
PD_EW_UF(FAbs, m_fabs(a))
PD_EW_UF(FRelu, a < 0 ? (C)0 : a) // NaN stays NaN
PD_EW_UF(FHardswish, a * (a + 3 < 0 ? (C)0 : (a + 3 > 6 ? (C)6 : a + 3)) * ((C)1 / 6))
PD_EW_UF(FSilu, a * m_sigmoid(a))
#undef PD_EW_UF

// isnan / isinf / isfinite / logical_not -> bool (int 0/1)
struct FIsnan { template <class C> __device__ __forceinline__ int operator()(C a) const { return isnan(a); } };
struct FIsinf { template <class C> __device__ __forceinline__ int operator()(C a) const { return isinf(a); } };
struct FIsfinite { template <class C> __device__ __forceinline__ int operator()(C a) const { return isfinite(a); } };
struct IConst { int v; template <class C> __device__ __forceinline__ int operator()(C) const { return v; } };
struct LNot { template <class C> __device__ __forceinline__ int operator()(C a) const { return a == 0; } };

// erfinv in double as the CPU kernel: Giles' polynomial then two Newton steps on erf(x) - y
__device__ __forceinline__ double erfinv_d(double y) {
  if (y != y) return y;
  if (y <= -1) return y == -1 ? -__longlong_as_double(0x7ff0000000000000LL) : __longlong_as_double(0x7ff8000000000000LL);
  if (y >= 1) return y == 1 ? __longlong_as_double(0x7ff0000000000000LL) : __longlong_as_double(0x7ff8000000000000LL);
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
    const double e = erf(x) - y;
    const double dx = e / (1.1283791670955126 * exp(-x * x));
    if (dx != dx || isinf(dx)) break;
    x -= dx;
  }
  return x;
}
struct FErfinv { template <class C> __device__ __forceinline__ double operator()(C a) const { return erfinv_d((double)a); } };

// pow(x, factor): floats in their compute type, integers in double (stored truncated)
struct FPowS { double f0; template <class C> __device__ __forceinline__ C operator()(C a) const { return m_pow(a, (C)f0); } };
struct IPowS { double f0; template <class C> __device__ __forceinline__ double operator()(C a) const { return pow((double)a, f0); } };
// logit(x, eps) in double
struct FLogit {
  double f0;
  template <class C> __device__ __forceinline__ double operator()(C a) const {
    double v = (double)a;
    if (f0 > 0) v = v < f0 ? f0 : (v > 1 - f0 ? 1 - f0 : v);
    return log(v / (1 - v));
  }
};
template <class C> struct Clip {
  C lo, hi;
  __device__ __forceinline__ C operator()(C a) const { return a < lo ? lo : (a > hi ? hi : a); }
};
// a * s + b without FMA contraction (the CPU build rounds the product first: -ffp-contract=off)
__device__ __forceinline__ float m_mul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double m_mul(double a, double b) { return __dmul_rn(a, b); }
template <class C> __device__ __forceinline__ C m_mul(C a, C b) { return a * b; }
template <class C> struct Scale {
  C s, b;
  int after;
  __device__ __forceinline__ C operator()(C a) const { return after ? m_mul(a, s) + b : m_mul(a + b, s); }
};
template <class C> struct LeakyRelu {
  C p0;
  __device__ __forceinline__ C operator()(C v) const { return v > 0 ? v : v * p0; }
};
template <class C> struct Elu {
  C p0;
  __device__ __forceinline__ C operator()(C v) const { return v > 0 ? v : p0 * m_expm1(v); }
};
template <class C> struct HardSigmoid {
  C p0, p1;
  __device__ __forceinline__ C operator()(C v) const {
    const C y = v * p0 + p1;
    return y < 0 ? (C)0 : (y > 1 ? (C)1 : y);
  }
};
// softplus with beta folded in: max(b, 0) + log1p(exp(-|b|))
template <class C> __device__ __forceinline__ C softplus0(C b) {
  return (b > 0 ? b : (C)0) + m_log1p(m_exp(b > 0 ? -b : b));
}
template <class C> struct Softplus {
  C p0, p1, p2; // beta, threshold, 1 / beta
  __device__ __forceinline__ C operator()(C v) const { return v * p0 > p1 ? v : softplus0(v * p0) * p2; }
};
template <class C> struct Mish {
  C p0; // threshold
  __device__ __forceinline__ C operator()(C v) const { return v * m_tanh(v > p0 ? v : softplus0(v)); }
};
#define PD_EW_GK ((C)0.7978845608028654)
#define PD_EW_GC ((C)0.044715)
template <class C> struct Gelu {
  int approximate;
  __device__ __forceinline__ C operator()(C v) const {
    if (approximate) return (C)0.5 * v * (1 + m_tanh(PD_EW_GK * (v + PD_EW_GC * v * v * v)));
    return v * (((C)1 + m_erf(v * (C)0.7071067811865476)) * (C)0.5);
  }
};

// ---------------- binary ----------------
#define PD_EW_BF(NAME, EXPR)                                                                \
  struct NAME {                                                                             \
    template <class C> __device__ __forceinline__ C operator()(C a, C b) const { return (EXPR); } \
  };
PD_EW_BF(Add, a + b)
PD_EW_BF(Sub, a - b)
PD_EW_BF(Mul, a * b)
PD_EW_BF(Div, a / b)
PD_EW_BF(FFloorDiv, m_floor(a / b))
PD_EW_BF(FPow, m_pow(a, b))
PD_EW_BF(Max, (a > b || m_isnan(a)) ? a : b)
PD_EW_BF(Min, (a < b || m_isnan(a)) ? a : b)
PD_EW_BF(FMax, (a > b || m_isnan(b)) ? a : b)
PD_EW_BF(FMin, (a < b || m_isnan(b)) ? a : b)
PD_EW_BF(FAtan2, m_atan2(a, b))
PD_EW_BF(BAnd, a & b)
PD_EW_BF(BOr, a | b)
PD_EW_BF(BXor, a ^ b)
PD_EW_BF(FReluGrad, a > 0 ? b : (C)0) // (out, dout)
PD_EW_BF(FHardswishGrad, b * (a < -3 ? (C)0 : (a > 3 ? (C)1 : (2 * a + 3) * ((C)1 / 6))))
#undef PD_EW_BF
struct FRemainder {
  template <class C> __device__ __forceinline__ C operator()(C a, C b) const {
    C r = m_fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
  }
};
struct IAtan2 { template <class C> __device__ __forceinline__ double operator()(C a, C b) const { return atan2((double)a, (double)b); } };
// integer power by squaring in uint64 (wrapping); negative exponents give trunc(a ** b)
__device__ __forceinline__ int64_t ipow_i64(int64_t a, int64_t b) {
  if (b < 0) return a == 1 ? 1 : (a == -1 ? ((b & 1) ? -1 : 1) : 0);
  uint64_t r = 1, base = (uint64_t)a;
  while (b) {
    if (b & 1) r *= base;
    base *= base;
    b >>= 1;
  }
  return (int64_t)r;
}
struct IPow { template <class C> __device__ __forceinline__ C operator()(C a, C b) const { return (C)ipow_i64((int64_t)a, (int64_t)b); } };
// integer division family: y == 0 stores 0 and raises the flag (the launcher reports it)
__device__ __forceinline__ int64_t floordiv_i64(int64_t a, int64_t b) {
  if (b == -1) return (int64_t)(0u - (uint64_t)a);
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}
__device__ __forceinline__ int64_t mod_i64(int64_t a, int64_t b) {
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
struct IDiv {
  int *zero;
  template <class C> __device__ __forceinline__ C operator()(C a, C b) const {
    if (b == 0) { *zero = 1; return 0; }
    return a / b;
  }
};
struct IFloorDiv {
  int *zero;
  template <class C> __device__ __forceinline__ C operator()(C a, C b) const {
    if (b == 0) { *zero = 1; return 0; }
    return (C)floordiv_i64((int64_t)a, (int64_t)b);
  }
};
struct IMod {
  int *zero;
  template <class C> __device__ __forceinline__ C operator()(C a, C b) const {
    if (b == 0) { *zero = 1; return 0; }
    return (C)mod_i64((int64_t)a, (int64_t)b);
  }
};
// comparisons / logical -> int 0/1
#define PD_EW_CF(NAME, EXPR)                                                                   \
  struct NAME {                                                                                \
    template <class C> __device__ __forceinline__ int operator()(C a, C b) const { return (EXPR); } \
  };
PD_EW_CF(Eq, a == b)
PD_EW_CF(Ne, a != b)
PD_EW_CF(Lt, a < b)
PD_EW_CF(Le, a <= b)
PD_EW_CF(Gt, a > b)
PD_EW_CF(Ge, a >= b)
PD_EW_CF(LAnd, (a != 0) & (b != 0))
PD_EW_CF(LOr, (a != 0) | (b != 0))
PD_EW_CF(LXor, (a != 0) ^ (b != 0))
#undef PD_EW_CF

// fused activation gradients: (v = x or out, g = dout)
template <class C> struct LeakyReluGrad {
  C p0;
  __device__ __forceinline__ C operator()(C v, C g) const { return v > 0 ? g : g * p0; }
};
template <class C> struct EluGrad {
  C p0;
  __device__ __forceinline__ C operator()(C v, C g) const { return v > 0 ? g : g * p0 * m_exp(v); }
};
template <class C> struct HardSigmoidGrad {
  C p0;
  __device__ __forceinline__ C operator()(C v, C g) const { return ((v > 0) & (v < 1)) ? g * p0 : (C)0; }
};
template <class C> struct SoftplusGrad {
  C p0, p1;
  __device__ __forceinline__ C operator()(C v, C g) const { return v * p0 > p1 ? g : g * m_sigmoid(v * p0); }
};
struct SiluGrad {
  template <class C> __device__ __forceinline__ C operator()(C v, C g) const {
    return g * m_sigmoid(v) * (1 + v * (1 - m_sigmoid(v)));
  }
};
template <class C> struct MishGrad {
  C p0;
  __device__ __forceinline__ C operator()(C v, C g) const {
    const C t = m_tanh(v > p0 ? v : softplus0(v));
    return g * (t + v * (1 - t * t) * (v > p0 ? (C)1 : m_sigmoid(v)));
  }
};
template <class C> struct GeluGrad {
  int approximate;
  __device__ __forceinline__ C operator()(C v, C g) const {
    if (approximate) {
      const C t = m_tanh(PD_EW_GK * (v + PD_EW_GC * v * v * v));
      return g * ((C)0.5 * (1 + t) + (C)0.5 * v * (1 - t * t) * PD_EW_GK * (1 + 3 * PD_EW_GC * v * v));
    }
    const C phi = ((C)1 + m_erf(v * (C)0.7071067811865476)) * (C)0.5;
    return g * (phi + v * m_exp((C)-0.5 * v * v) * (C)0.3989422804014327);
  }
};
#undef PD_EW_GK
#undef PD_EW_GC

} // namespace pdew
#endif
