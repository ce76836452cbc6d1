/* Data types: the enum (codes match nothing external; Paddle's VarType codes are mapped in
 * pd_dtype_from_vartype), element sizes, names, and float16/bfloat16 <-> float conversions
 * with round-to-nearest-even and NaN/inf preserved. */
#ifndef PD_DTYPE_H
#define PD_DTYPE_H
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <complex.h>

typedef enum {
  PD_BOOL = 0,
  PD_UINT8,
  PD_INT8,
  PD_INT16,
  PD_INT32,
  PD_INT64,
  PD_FLOAT16,
  PD_BFLOAT16,
  PD_FLOAT32,
  PD_FLOAT64,
  PD_COMPLEX64,
  PD_COMPLEX128,
  PD_NUM_DTYPES
} pd_dtype;

/* Storage types for the 16-bit floats: raw bits. */
typedef struct { uint16_t x; } pd_float16;
typedef struct { uint16_t x; } pd_bfloat16;
typedef float _Complex pd_complex64;
typedef double _Complex pd_complex128;

size_t pd_dtype_size(pd_dtype t);
const char *pd_dtype_name(pd_dtype t);  /* "float32" ... */
/* Parses "float32", "float", "int64", "bool", "complex64", "bfloat16" ...; -1 if unknown. */
int pd_dtype_from_name(const char *name);
/* Paddle's framework.proto VarType.Type code <-> pd_dtype; -1 if none. */
int pd_dtype_from_vartype(int vartype);
int pd_dtype_to_vartype(pd_dtype t);

static inline int pd_dtype_is_float(pd_dtype t) {
  return t == PD_FLOAT16 || t == PD_BFLOAT16 || t == PD_FLOAT32 || t == PD_FLOAT64;
}
static inline int pd_dtype_is_complex(pd_dtype t) { return t == PD_COMPLEX64 || t == PD_COMPLEX128; }
static inline int pd_dtype_is_int(pd_dtype t) { return t >= PD_UINT8 && t <= PD_INT64; }
static inline int pd_dtype_is_valid(int t) { return t >= 0 && t < PD_NUM_DTYPES; }

/* ---- float16 ---- */
static inline float pd_f16_to_f32(pd_float16 h) {
  uint32_t s = (uint32_t)(h.x & 0x8000) << 16;
  uint32_t e = (h.x >> 10) & 0x1f;
  uint32_t m = h.x & 0x3ff;
  uint32_t bits;
  if (e == 0) {
    if (m == 0) {
      bits = s;
    } else { /* subnormal: normalise */
      int k = -1;
      do { k++; m <<= 1; } while (!(m & 0x400));
      bits = s | ((uint32_t)(127 - 15 - k) << 23) | ((m & 0x3ff) << 13);
    }
  } else if (e == 31) {
    bits = s | 0x7f800000u | (m << 13) | (m ? 0x400000u : 0);
  } else {
    bits = s | ((e + 127 - 15) << 23) | (m << 13);
  }
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

static inline pd_float16 pd_f32_to_f16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  uint32_t ax = x & 0x7fffffffu;
  pd_float16 r;
  if (ax >= 0x7f800000u) { /* inf or nan */
    r.x = (uint16_t)(sign | 0x7c00 | (ax > 0x7f800000u ? (0x200 | ((ax >> 13) & 0x3ff)) : 0));
    return r;
  }
  if (ax >= 0x477ff000u) { /* rounds to >= 65520 -> inf */
    r.x = (uint16_t)(sign | 0x7c00);
    return r;
  }
  if (ax < 0x38800000u) { /* below smallest normal half (2^-14): subnormal or zero */
    if (ax < 0x33000000u) { /* < 2^-25: rounds to zero */
      r.x = (uint16_t)sign;
      return r;
    }
    uint32_t e = ax >> 23;
    uint32_t m = (ax & 0x7fffff) | 0x800000;
    uint32_t shift;
    /* value = m * 2^(e-150); half subnormal unit = 2^-24 -> q = m * 2^(e-150+24) */
    shift = 150 - 24 - e; /* = 126 - e, in [14, 24] */
    uint32_t q = m >> shift;
    uint32_t rem = m & ((1u << shift) - 1);
    uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1))) q++;
    r.x = (uint16_t)(sign | q);
    return r;
  }
  /* normal */
  uint32_t e = (ax >> 23) - 127 + 15;
  uint32_t m = ax & 0x7fffff;
  uint32_t q = (e << 10) | (m >> 13);
  uint32_t rem = m & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (q & 1))) q++;
  r.x = (uint16_t)(sign | q);
  return r;
}

/* ---- bfloat16 ---- */
/* the bit-level forms serve raw uint16_t buffers (attention's bf16 rows, MPI reductions) */
static inline float pd_bf16_bits_to_f32(uint16_t h) {
  uint32_t bits = (uint32_t)h << 16;
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

/* round to nearest even; a NaN stays a quiet NaN with its sign. Branch-free (a select), so loops
 * over it vectorise. */
static inline uint16_t pd_f32_to_bf16_bits(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  const uint32_t r = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16, nan = (x >> 16) | 0x40u;
  return (uint16_t)((x & 0x7fffffffu) > 0x7f800000u ? nan : r);
}

static inline float pd_bf16_to_f32(pd_bfloat16 h) { return pd_bf16_bits_to_f32(h.x); }

static inline pd_bfloat16 pd_f32_to_bf16(float f) {
  pd_bfloat16 r;
  r.x = pd_f32_to_bf16_bits(f);
  return r;
}

/* double -> 16-bit float without double rounding: go through float with round-to-odd (an
 * inexact result gets its last bit set), which float's 13 spare bits make exact for the next
 * rounding. */
static inline float pd_f64_to_f32_odd(double d) {
  float f = (float)d;
  if (d == d && (double)f != d) {
    uint32_t u;
    memcpy(&u, &f, 4);
    if (__builtin_fabs((double)f) > __builtin_fabs(d)) u -= 1;
    u |= 1;
    memcpy(&f, &u, 4);
  }
  return f;
}
static inline pd_float16 pd_f64_to_f16(double d) { return pd_f32_to_f16(pd_f64_to_f32_odd(d)); }
static inline pd_bfloat16 pd_f64_to_bf16(double d) { return pd_f32_to_bf16(pd_f64_to_f32_odd(d)); }

#endif
