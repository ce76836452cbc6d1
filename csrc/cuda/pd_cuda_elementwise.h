/* The 'elementwise' family of libpaddle_c_cuda.so (see pd_cuda_api.h for the conventions).
 * Owner: helper "cuew". Kernels: csrc/cuda/elementwise.cu (+ ew_*.cu/.cuh); glue:
 * csrc/kernels/gpu/elementwise.c.
 *
 * Every launcher takes views whose shape is the OUTPUT's shape: inputs already broadcast to it
 * (stride 0 on broadcast dims, pd_cu_bcast). Exception: copy() also accepts a src of fewer or
 * size-1 dims and broadcasts it itself (numpy rules, right-aligned). The output may be strided
 * (copy / fill write into views); inputs may be any strided view. Arithmetic mirrors the CPU
 * kernels of csrc/kernels/cpu/{binary,unary,compare,activation}.c exactly: the same compute
 * type (int for bool/uint8/int8/int16, the dtype for int32/int64, float for float16/bfloat16/
 * float32, double for float64), the same formulas and the same float -> integer store (x86
 * truncation: NaN and out-of-range give INT32_MIN then wrap to the width, or INT64_MIN).
 * numel 0 launches nothing. A dtype an op does not have returns -1 with PD_CU_ERR_UNSUPPORTED.
 * Complex dtypes are not implemented. */
#ifndef PD_CUDA_ELEMENTWISE_H
#define PD_CUDA_ELEMENTWISE_H
#include "pd_cuda_api.h"
#ifdef __cplusplus
extern "C" {
#endif

/* unary(op, out, x, params): out has x's dtype unless noted */
enum {
  PD_CU_UN_EXP = 0, PD_CU_UN_EXPM1, PD_CU_UN_LOG, PD_CU_UN_LOG2, PD_CU_UN_LOG10, PD_CU_UN_LOG1P,
  PD_CU_UN_SQRT, PD_CU_UN_RSQRT, PD_CU_UN_RECIPROCAL, PD_CU_UN_SIN, PD_CU_UN_COS, PD_CU_UN_TAN,
  PD_CU_UN_ASIN, PD_CU_UN_ACOS, PD_CU_UN_ATAN, PD_CU_UN_SINH, PD_CU_UN_COSH, PD_CU_UN_TANH,
  PD_CU_UN_ASINH, PD_CU_UN_ACOSH, PD_CU_UN_ATANH, PD_CU_UN_ERF, PD_CU_UN_ERFINV,
  PD_CU_UN_SIGMOID, PD_CU_UN_FLOOR, PD_CU_UN_CEIL, PD_CU_UN_ROUND, /* floats */
  PD_CU_UN_TRUNC,       /* floats, ints */
  PD_CU_UN_NEG, PD_CU_UN_SQUARE, PD_CU_UN_SIGN, PD_CU_UN_ABS, /* ints, floats */
  PD_CU_UN_BITWISE_NOT, /* bool, ints */
  PD_CU_UN_ISNAN, PD_CU_UN_ISINF, PD_CU_UN_ISFINITE, /* ints, floats -> bool out */
  PD_CU_UN_LOGICAL_NOT, /* bool, ints, floats -> bool out */
  PD_CU_UN_POW,         /* f[0] = factor; ints, floats */
  PD_CU_UN_LOGIT,       /* f[0] = eps; floats */
  PD_CU_UN_CLIP,        /* floats: f[0], f[1] = min, max; ints: i[0], i[1] (saturated) */
  PD_CU_UN_SCALE,       /* floats: f[0] scale, f[1] bias; ints: i[0], i[1]; flag = bias_after_scale */
  /* activations (floats) */
  PD_CU_UN_RELU, PD_CU_UN_LEAKY_RELU /* f0 alpha */, PD_CU_UN_ELU /* f0 alpha */,
  PD_CU_UN_HARDSIGMOID /* f0 slope, f1 offset */, PD_CU_UN_HARDSWISH,
  PD_CU_UN_SOFTPLUS /* f0 beta, f1 threshold, f2 1/beta */, PD_CU_UN_SILU,
  PD_CU_UN_MISH /* f0 threshold */, PD_CU_UN_GELU /* flag approximate */,
  PD_CU_UN_NUM_OPS
};

/* binary(op, out, x, y, params): out has x's dtype unless noted */
enum {
  PD_CU_BIN_ADD = 0, PD_CU_BIN_SUBTRACT, PD_CU_BIN_MULTIPLY, /* bool, ints, floats */
  PD_CU_BIN_DIVIDE,       /* floats; ints: C division, y == 0 -> PD_CU_ERR_INVALID (synchronises) */
  PD_CU_BIN_FLOOR_DIVIDE, /* ints (y == 0 -> error, synchronises), floats */
  PD_CU_BIN_REMAINDER,    /* ints (y == 0 -> error, synchronises), floats */
  PD_CU_BIN_POW,          /* ints (exact, wrapping), floats */
  PD_CU_BIN_MAXIMUM, PD_CU_BIN_MINIMUM, PD_CU_BIN_FMAX, PD_CU_BIN_FMIN, /* ints, floats */
  PD_CU_BIN_ATAN2,        /* floats; ints -> float64 out */
  PD_CU_BIN_BITWISE_AND, PD_CU_BIN_BITWISE_OR, PD_CU_BIN_BITWISE_XOR, /* bool, ints */
  /* -> bool out */
  PD_CU_BIN_EQUAL, PD_CU_BIN_NOT_EQUAL, PD_CU_BIN_LESS_THAN, PD_CU_BIN_LESS_EQUAL,
  PD_CU_BIN_GREATER_THAN, PD_CU_BIN_GREATER_EQUAL, /* bool, ints, floats */
  PD_CU_BIN_LOGICAL_AND, PD_CU_BIN_LOGICAL_OR, PD_CU_BIN_LOGICAL_XOR, /* bool, ints, floats */
  /* fused activation gradients (floats): (x or out, dout) -> dx, params as the forward op */
  PD_CU_BIN_RELU_GRAD /* (out, dout) */, PD_CU_BIN_LEAKY_RELU_GRAD, PD_CU_BIN_ELU_GRAD,
  PD_CU_BIN_HARDSIGMOID_GRAD /* (out, dout), f0 slope */, PD_CU_BIN_HARDSWISH_GRAD,
  PD_CU_BIN_SOFTPLUS_GRAD, PD_CU_BIN_SILU_GRAD, PD_CU_BIN_MISH_GRAD, PD_CU_BIN_GELU_GRAD,
  PD_CU_BIN_NUM_OPS
};

typedef struct pd_cuda_ew_params {
  double f[3];  /* float parameters, converted to the compute type by the kernel */
  int64_t i[2]; /* integer parameters (integer dtypes) */
  int flag;
} pd_cuda_ew_params;

typedef struct pd_cuda_elementwise {
  /* params may be NULL for ops without parameters */
  int (*unary)(int op, const pd_cuda_tensor *out, const pd_cuda_tensor *x, const pd_cuda_ew_params *p);
  int (*binary)(int op, const pd_cuda_tensor *out, const pd_cuda_tensor *x, const pd_cuda_tensor *y,
                const pd_cuda_ew_params *p);
  /* out = cond ? x : y; cond bool (any nonzero byte is true), x / y of out's dtype */
  int (*where)(const pd_cuda_tensor *out, const pd_cuda_tensor *cond, const pd_cuda_tensor *x,
               const pd_cuda_tensor *y);
  /* dst[...] = (dst dtype) src[...] for every pair of bool / integer / float dtypes, as the CPU
   * cast loops (csrc/core/generated/cast_loops.c); src broadcast to dst's shape */
  int (*copy)(const pd_cuda_tensor *dst, const pd_cuda_tensor *src);
  /* every element of dst = value stored as pd_store_from_double does */
  int (*fill)(const pd_cuda_tensor *dst, double value);
  /* every element of dst = the pd_dtype_size(dst->dtype) bytes at elem (host memory) */
  int (*fill_bytes)(const pd_cuda_tensor *dst, const void *elem);
  /* 1 when unary / binary implement op for dtype (the input's dtype), else 0 */
  int (*has_unary)(int op, int dtype);
  int (*has_binary)(int op, int dtype);
} pd_cuda_elementwise;

#ifdef __cplusplus
}
#endif
#endif
