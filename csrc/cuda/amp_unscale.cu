// Mixed precision (ops/amp.yaml) on the GPU, appended to the 'misc' family's table: the GradScaler's
// check_finite_and_unscale_ over a whole list of gradients in one launch per 48 tensors (a
// by-value descriptor of pointers / sizes / dtypes, Apex's multi_tensor_apply shape), and
// update_loss_scaling_'s scalar rule in one thread. The CPU kernels (csrc/kernels/cpu/amp.c) are
// the reference: x = x * inv with inv = 1.0f / scale rounded in float (float64 gradients multiply
// by (double)inv), 16-bit floats computed in float and rounded to nearest even on the store, an
// element is bad when x * 0 is NaN (inf or nan), and the gradients are unscaled even when found.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>
#include "pd_cuda_api.h"
#include "pd_cuda_misc.h"

extern "C" void pd_cu_set_error(int code, const char *fmt, ...);
extern "C" void *pd_cu_current_stream(void);

namespace {

constexpr int kThreads = 256;
constexpr int kPerThread = 16;
constexpr int64_t kPerBlock = (int64_t)kThreads * kPerThread; // elements one block unscales
constexpr int kMaxT = 48;                                      // tensors per launch

struct unscale_list {
  void *data[kMaxT];
  int64_t numel[kMaxT];
  int64_t first_block[kMaxT + 1]; // tensor i owns blocks [first_block[i], first_block[i+1])
  int dtype[kMaxT];
  int n;
};

__device__ __forceinline__ bool unscale_elem(void *p, int dt, int64_t i, float inv) {
  switch (dt) {
    case PD_CU_FLOAT16: {
      __half *h = (__half *)p;
      const float v = __half2float(h[i]);
      const float z = __fmul_rn(v, 0.0f);
      h[i] = __float2half_rn(__fmul_rn(v, inv));
      return z != z;
    }
    case PD_CU_BFLOAT16: {
      __nv_bfloat16 *h = (__nv_bfloat16 *)p;
      const float v = __bfloat162float(h[i]);
      const float z = __fmul_rn(v, 0.0f);
      h[i] = __float2bfloat16_rn(__fmul_rn(v, inv));
      return z != z;
    }
    case PD_CU_FLOAT32: {
      float *f = (float *)p;
      const float v = f[i];
      const float z = __fmul_rn(v, 0.0f);
      f[i] = __fmul_rn(v, inv);
      return z != z;
    }
    default: {
      double *d = (double *)p;
      const double v = d[i];
      const double z = __dmul_rn(v, 0.0);
      d[i] = __dmul_rn(v, (double)inv);
      return z != z;
    }
  }
}

__global__ void __launch_bounds__(kThreads) k_unscale(const unscale_list L, const float *scale, bool *found) {
  const int64_t blk = blockIdx.x;
  int t = 0;
  while (t + 1 < L.n && blk >= L.first_block[t + 1]) t++;
  const float inv = __fdiv_rn(1.0f, *scale); // the CPU's 1.0f / scale
  const int64_t n = L.numel[t];
  const int64_t begin = (blk - L.first_block[t]) * kPerBlock;
  const int64_t end = begin + kPerBlock < n ? begin + kPerBlock : n;
  void *p = L.data[t];
  const int dt = L.dtype[t];
  int bad = 0;
  for (int64_t i = begin + threadIdx.x; i < end; i += kThreads) bad |= (int)unscale_elem(p, dt, i, inv);
  if (__syncthreads_or(bad) && threadIdx.x == 0) *found = true; // every writer stores the same value
}

__global__ void k_update_scaling(float *scale, const bool *found_inf, int32_t *good, int32_t *bad,
                                 int64_t incr_every, int64_t decr_every, float incr_ratio, float decr_ratio) {
  if (*found_inf) {
    *good = 0;
    *bad += 1;
    if ((int64_t)*bad == decr_every) {
      const float s = __fmul_rn(*scale, decr_ratio);
      *scale = s < 1.0f ? 1.0f : s;
      *bad = 0;
    }
  } else {
    *bad = 0;
    *good += 1;
    if ((int64_t)*good == incr_every) {
      const float s = __fmul_rn(*scale, incr_ratio);
      if (isfinite(s)) *scale = s;
      *good = 0;
    }
  }
}

int check_launch(const char *what) {
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    pd_cu_set_error(PD_CU_ERR_LAUNCH, "%s: kernel launch failed: %s", what, cudaGetErrorString(e));
    return -1;
  }
  return 0;
}

} // namespace

extern "C" int pd_cuamp_unscale(int n, void *const *data, const int64_t *numel, const int *dtype,
                                const void *scale, void *found_inf) {
  cudaStream_t s = (cudaStream_t)pd_cu_current_stream();
  for (int i = 0; i < n; i++) {
    const int dt = dtype[i];
    if (dt != PD_CU_FLOAT16 && dt != PD_CU_BFLOAT16 && dt != PD_CU_FLOAT32 && dt != PD_CU_FLOAT64) {
      pd_cu_set_error(PD_CU_ERR_UNSUPPORTED, "check_finite_and_unscale_: dtype %d is not supported on GPU", dt);
      return -1;
    }
  }
  cudaError_t e = cudaMemsetAsync(found_inf, 0, 1, s);
  if (e != cudaSuccess) {
    pd_cu_set_error(PD_CU_ERR_LAUNCH, "check_finite_and_unscale_: cudaMemsetAsync: %s", cudaGetErrorString(e));
    return -1;
  }
  unscale_list L;
  L.n = 0;
  int64_t blocks = 0;
  for (int i = 0; i <= n; i++) {
    const bool flush = L.n > 0 && (L.n == kMaxT || i == n ||
                                   (numel[i] > 0 && blocks + (numel[i] + kPerBlock - 1) / kPerBlock > (int64_t)INT32_MAX));
    if (flush) {
      L.first_block[L.n] = blocks;
      k_unscale<<<(unsigned)blocks, kThreads, 0, s>>>(L, (const float *)scale, (bool *)found_inf);
      if (check_launch("check_finite_and_unscale_")) return -1;
      L.n = 0;
      blocks = 0;
    }
    if (i == n) break;
    if (numel[i] <= 0) continue;
    const int64_t nb = (numel[i] + kPerBlock - 1) / kPerBlock;
    if (nb > (int64_t)INT32_MAX) {
      pd_cu_set_error(PD_CU_ERR_INVALID, "check_finite_and_unscale_: a tensor of %lld elements is too large",
                      (long long)numel[i]);
      return -1;
    }
    L.data[L.n] = data[i];
    L.numel[L.n] = numel[i];
    L.dtype[L.n] = dtype[i];
    L.first_block[L.n] = blocks;
    L.n++;
    blocks += nb;
  }
  return 0;
}

extern "C" int pd_cuamp_update_scaling(void *loss_scaling, const void *found_inf, void *good_steps, void *bad_steps,
                                       int64_t incr_every, int64_t decr_every, float incr_ratio, float decr_ratio) {
  cudaStream_t s = (cudaStream_t)pd_cu_current_stream();
  k_update_scaling<<<1, 1, 0, s>>>((float *)loss_scaling, (const bool *)found_inf, (int32_t *)good_steps,
                                   (int32_t *)bad_steps, incr_every, decr_every, incr_ratio, decr_ratio);
  return check_launch("update_loss_scaling_");
}
