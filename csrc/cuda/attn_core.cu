// attention_core (ops/attention.yaml) on the GPU, appended to the 'nn' family's table: the row
// kernels between the GEMMs (the GEMMs are nn_cublas.cu's pd_cunn_gemm_c, straight from the
// projections' head column blocks as on the CPU). The CPU kernels (csrc/kernels/cpu/attention.c)
// are the reference: s = s * scale + mask, then softmax in place (a NaN or +inf anywhere, or a
// row of -inf, makes the row NaN on both); dropout(P) = m ? P / keep : 0 with keep rounded in T;
// the gradient row g = (m ? g * dsc : 0) + dP, s = sum(g * p), g = p * (g - s) * scale. Products
// and sums use the _rn intrinsics (nvcc never fuses them; the CPU build is ISO C, no
// contraction). One warp per row, 256 threads per block; float32 / float64.
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include "pd_cuda_api.h"
#include "pd_cuda_nn.h"

extern "C" void pd_cu_set_error(int code, const char *fmt, ...);
extern "C" void *pd_cu_current_stream(void);

namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ float mul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ float add(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double add(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ float sub(float a, float b) { return __fsub_rn(a, b); }
__device__ __forceinline__ double sub(double a, double b) { return __dsub_rn(a, b); }
__device__ __forceinline__ float div_(float a, float b) { return __fdiv_rn(a, b); }
__device__ __forceinline__ double div_(double a, double b) { return __ddiv_rn(a, b); }
__device__ __forceinline__ float ex(float a) { return expf(a); }
__device__ __forceinline__ double ex(double a) { return exp(a); }

template <typename T> __device__ __forceinline__ T warp_sum(T v) {
  for (int o = 16; o > 0; o >>= 1) v = add(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
template <typename T> __device__ __forceinline__ T warp_max(T v) {
  for (int o = 16; o > 0; o >>= 1) {
    T u = __shfl_xor_sync(0xffffffffu, v, o);
    v = u > v ? u : v;
  }
  return v;
}

// rows r = (b * H + h) * Tq + i of S [rows, n]
template <typename T>
__global__ void __launch_bounds__(kThreads) k_softmax(T *S, const T *mask, int64_t rows, int64_t n, int64_t H,
                                                      int64_t Tq, int64_t Mb, int64_t Mh, T scale) {
  const int lane = threadIdx.x & 31;
  const int64_t nw = ((int64_t)gridDim.x * blockDim.x) >> 5;
  for (int64_t r = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5; r < rows; r += nw) {
    T *s = S + r * n;
    const T *mk = nullptr;
    if (mask) {
      const int64_t bh = r / Tq, i = r % Tq, b = bh / H, h = bh % H;
      mk = mask + (((Mb > 1 ? b : 0) * Mh + (Mh > 1 ? h : 0)) * Tq + i) * n;
    }
    T mx = -INFINITY;
    for (int64_t j = lane; j < n; j += 32) {
      T v = mul(s[j], scale);
      if (mk) v = add(v, mk[j]);
      s[j] = v;
      mx = v > mx ? v : mx; // a NaN is skipped here and makes the sum NaN below, as on the CPU
    }
    mx = warp_max(mx);
    T sum = 0;
    for (int64_t j = lane; j < n; j += 32) {
      const T e = ex(sub(s[j], mx));
      s[j] = e;
      sum = add(sum, e);
    }
    sum = warp_sum(sum);
    const T inv = div_((T)1, sum);
    for (int64_t j = lane; j < n; j += 32) s[j] = mul(s[j], inv);
  }
}

template <typename T>
__global__ void __launch_bounds__(kThreads) k_dropout(const T *P, const uint8_t *m, T *D, int64_t n, T keep) {
  const int64_t st = (int64_t)gridDim.x * blockDim.x;
  for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += st)
    D[e] = m[e] != 0 ? div_(P[e], keep) : (T)0;
}

template <typename T>
__global__ void __launch_bounds__(kThreads) k_softmax_grad(T *G, const T *P, const uint8_t *m, const T *dP,
                                                           int64_t rows, int64_t n, T dsc, T scale) {
  const int lane = threadIdx.x & 31;
  const int64_t nw = ((int64_t)gridDim.x * blockDim.x) >> 5;
  for (int64_t r = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5; r < rows; r += nw) {
    T *g = G + r * n;
    const T *p = P + r * n;
    const uint8_t *mr = m ? m + r * n : nullptr;
    const T *dp = dP ? dP + r * n : nullptr;
    T acc = 0;
    for (int64_t j = lane; j < n; j += 32) {
      T v = g[j];
      if (mr) v = mr[j] != 0 ? mul(v, dsc) : (T)0;
      if (dp) v = add(v, dp[j]);
      g[j] = v;
      acc = add(acc, mul(v, p[j]));
    }
    const T s = warp_sum(acc);
    for (int64_t j = lane; j < n; j += 32) g[j] = mul(mul(p[j], sub(g[j], s)), scale);
  }
}

unsigned grid_rows(int64_t rows) {
  int64_t b = (rows + kThreads / 32 - 1) / (kThreads / 32);
  return (unsigned)(b < (1 << 20) ? (b > 0 ? b : 1) : (1 << 20));
}
unsigned grid_elems(int64_t n) {
  int64_t b = (n + kThreads - 1) / kThreads;
  return (unsigned)(b < (1 << 20) ? (b > 0 ? b : 1) : (1 << 20));
}

int done(const char *what) {
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    pd_cu_set_error(PD_CU_ERR_LAUNCH, "%s: kernel launch failed: %s", what, cudaGetErrorString(e));
    return -1;
  }
  return 0;
}
int bad_dtype(const char *what, int dt) {
  pd_cu_set_error(PD_CU_ERR_UNSUPPORTED, "%s: dtype %d is not supported on GPU", what, dt);
  return -1;
}

} // namespace

extern "C" int pd_cuattn_softmax(int dtype, void *s, const void *mask, int64_t B, int64_t H, int64_t Tq, int64_t Tk,
                                 int64_t Mb, int64_t Mh, double scale) {
  const int64_t rows = B * H * Tq;
  if (rows <= 0 || Tk <= 0) return 0;
  cudaStream_t st = (cudaStream_t)pd_cu_current_stream();
  if (dtype == PD_CU_FLOAT32)
    k_softmax<float><<<grid_rows(rows), kThreads, 0, st>>>((float *)s, (const float *)mask, rows, Tk, H, Tq, Mb, Mh,
                                                           (float)scale);
  else if (dtype == PD_CU_FLOAT64)
    k_softmax<double><<<grid_rows(rows), kThreads, 0, st>>>((double *)s, (const double *)mask, rows, Tk, H, Tq, Mb,
                                                            Mh, scale);
  else
    return bad_dtype("attention_core", dtype);
  return done("attention_core softmax");
}

extern "C" int pd_cuattn_dropout(int dtype, const void *P, const void *m, void *D, int64_t n, double keep) {
  if (n <= 0) return 0;
  cudaStream_t st = (cudaStream_t)pd_cu_current_stream();
  if (dtype == PD_CU_FLOAT32)
    k_dropout<float><<<grid_elems(n), kThreads, 0, st>>>((const float *)P, (const uint8_t *)m, (float *)D, n,
                                                         (float)keep);
  else if (dtype == PD_CU_FLOAT64)
    k_dropout<double><<<grid_elems(n), kThreads, 0, st>>>((const double *)P, (const uint8_t *)m, (double *)D, n,
                                                          keep);
  else
    return bad_dtype("attention_core", dtype);
  return done("attention_core dropout");
}

extern "C" int pd_cuattn_softmax_grad(int dtype, void *G, const void *P, const void *m, const void *dP,
                                      int64_t rows, int64_t n, double dsc, double scale) {
  if (rows <= 0 || n <= 0) return 0;
  cudaStream_t st = (cudaStream_t)pd_cu_current_stream();
  if (dtype == PD_CU_FLOAT32)
    k_softmax_grad<float><<<grid_rows(rows), kThreads, 0, st>>>((float *)G, (const float *)P, (const uint8_t *)m,
                                                                (const float *)dP, rows, n, (float)dsc,
                                                                (float)scale);
  else if (dtype == PD_CU_FLOAT64)
    k_softmax_grad<double><<<grid_rows(rows), kThreads, 0, st>>>((double *)G, (const double *)P,
                                                                 (const uint8_t *)m, (const double *)dP, rows,
                                                                 n, dsc, scale);
  else
    return bad_dtype("attention_core_grad", dtype);
  return done("attention_core_grad softmax");
}
