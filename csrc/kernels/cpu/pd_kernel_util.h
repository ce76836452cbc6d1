/* Helpers shared by the CPU kernel files: per-dtype load/store macros (16-bit floats compute in
 * float), and the PD_FOR_EACH_* lists used to stamp out one kernel per dtype. A kernel for op
 * `foo` and dtype suffix `f32` is named pd_kernel_foo_f32 (see tools/opgen/dtypes.py). */
#ifndef PD_KERNEL_UTIL_H
#define PD_KERNEL_UTIL_H
#include <math.h>
#include <string.h>
#if defined(__x86_64__) || defined(__SSE__)
#include <xmmintrin.h>
#endif
#include "../../core/pd_iter.h"
#include "../../ops/generated/pd_ops_gen.h"

/* X(suffix, storage type, compute type, LOAD(ptr)->compute, STORE(ptr, compute value)) */
#define PD_LD_PLAIN(T, p) (*(const T *)(p))
#define PD_ST_PLAIN(T, p, v) (*(T *)(p) = (T)(v))

#define PD_LD_bool(p) ((int)(*(const uint8_t *)(p) != 0))
#define PD_ST_bool(p, v) (*(uint8_t *)(p) = (uint8_t)((v) != 0))
#define PD_LD_u8(p) PD_LD_PLAIN(uint8_t, p)
#define PD_ST_u8(p, v) PD_ST_PLAIN(uint8_t, p, v)
#define PD_LD_i8(p) PD_LD_PLAIN(int8_t, p)
#define PD_ST_i8(p, v) PD_ST_PLAIN(int8_t, p, v)
#define PD_LD_i16(p) PD_LD_PLAIN(int16_t, p)
#define PD_ST_i16(p, v) PD_ST_PLAIN(int16_t, p, v)
#define PD_LD_i32(p) PD_LD_PLAIN(int32_t, p)
#define PD_ST_i32(p, v) PD_ST_PLAIN(int32_t, p, v)
#define PD_LD_i64(p) PD_LD_PLAIN(int64_t, p)
#define PD_ST_i64(p, v) PD_ST_PLAIN(int64_t, p, v)
#define PD_LD_f16(p) pd_f16_to_f32(*(const pd_float16 *)(p))
#define PD_ST_f16(p, v) (*(pd_float16 *)(p) = pd_f32_to_f16((float)(v)))
#define PD_LD_bf16(p) pd_bf16_to_f32(*(const pd_bfloat16 *)(p))
#define PD_ST_bf16(p, v) (*(pd_bfloat16 *)(p) = pd_f32_to_bf16((float)(v)))
#define PD_LD_f32(p) PD_LD_PLAIN(float, p)
#define PD_ST_f32(p, v) PD_ST_PLAIN(float, p, v)
#define PD_LD_f64(p) PD_LD_PLAIN(double, p)
#define PD_ST_f64(p, v) PD_ST_PLAIN(double, p, v)
#define PD_LD_c64(p) PD_LD_PLAIN(pd_complex64, p)
#define PD_ST_c64(p, v) PD_ST_PLAIN(pd_complex64, p, v)
#define PD_LD_c128(p) PD_LD_PLAIN(pd_complex128, p)
#define PD_ST_c128(p, v) PD_ST_PLAIN(pd_complex128, p, v)

/* X(SUF, T /storage/, CT /compute/) */
#define PD_FOR_INT(X) X(u8, uint8_t, int) X(i8, int8_t, int) X(i16, int16_t, int) \
  X(i32, int32_t, int32_t) X(i64, int64_t, int64_t)
#define PD_FOR_FLOAT(X) X(f16, pd_float16, float) X(bf16, pd_bfloat16, float) \
  X(f32, float, float) X(f64, double, double)
#define PD_FOR_COMPLEX(X) X(c64, pd_complex64, pd_complex64) X(c128, pd_complex128, pd_complex128)
#define PD_FOR_BOOL(X) X(bool, uint8_t, int)
#define PD_FOR_REAL(X) PD_FOR_INT(X) PD_FOR_FLOAT(X)
#define PD_FOR_ALL(X) PD_FOR_BOOL(X) PD_FOR_REAL(X) PD_FOR_COMPLEX(X)

/* Runs loop over (out, x, y) with broadcasting (out already allocated). */
static inline pd_status pd_run_binary(const char *op, pd_tensor *out, pd_tensor *x, pd_tensor *y,
                                      pd_loop_fn loop, void *ctx) {
  pd_iter it;
  pd_tensor *ops[3] = {out, x, y};
  PD_TRY(pd_iter_init(&it, op, 3, ops));
  pd_iter_run(&it, loop, ctx, 0);
  return PD_OK;
}
static inline pd_status pd_run_unary(const char *op, pd_tensor *out, pd_tensor *x, pd_loop_fn loop,
                                     void *ctx) {
  pd_iter it;
  pd_tensor *ops[2] = {out, x};
  PD_TRY(pd_iter_init(&it, op, 2, ops));
  pd_iter_run(&it, loop, ctx, 0);
  return PD_OK;
}


/* Flush-to-zero and denormals-are-zero for the calling thread, scoped: the optimizer update
 * kernels (optim.c, selected_rows.c) run their loops between pd_ftz_enter and pd_ftz_leave, so
 * moments/velocities/accumulators decaying below the smallest normal float become 0 instead of
 * slow subnormals (issue 24). Ordinary ops keep IEEE subnormals (x * 2 of 1e-39 is 2e-39). */
#if defined(__x86_64__) || defined(__SSE__)
static inline unsigned pd_ftz_enter(void) {
  unsigned old = _mm_getcsr();
  _mm_setcsr(old | 0x8040u); /* FTZ (bit 15) | DAZ (bit 6) */
  return old;
}
static inline void pd_ftz_leave(unsigned old) { _mm_setcsr(old); }
#else
static inline unsigned pd_ftz_enter(void) { return 0; }
static inline void pd_ftz_leave(unsigned old) { (void)old; }
#endif

#endif
