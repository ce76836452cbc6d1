// The 'nn' family (pd_cuda_nn.h): softmax / log_softmax, the fused softmax cross entropy and its
// gradient, layer_norm and batch_norm with their gradients, scale; matmul is in nn_cublas.cu and
// the reductions in nn_reduce.cu. Semantics mirror the CPU kernels (csrc/kernels/cpu/softmax.c,
// loss.c, norm.c); statistics in double, deterministic (fixed-order block reductions, no atomics).
#include <math.h>
#include <type_traits>
#include "nn_common.cuh"
#include "pd_cuda_nn.h"

extern "C" const pd_cuda_runtime pd_cuda_rt_table;
extern "C" int pd_cunn_gemm(int, int, int, int64_t, int64_t, int64_t, const void *, int64_t,
                            const void *, int64_t, void *, const pd_cuda_gemm_batch *);
extern "C" int pd_cunn_set_allow_tf32(int);
extern "C" int pd_cunn_reduce(int, const pd_cuda_tensor *, unsigned, void *, int);
extern "C" int pd_cunn_reduce2(int, const pd_cuda_tensor *, unsigned, void *, int, double);

namespace pdnn {

__device__ __forceinline__ float ld(const __half *p) { return __half2float(*p); }
__device__ __forceinline__ float ld(const __nv_bfloat16 *p) { return __bfloat162float(*p); }
__device__ __forceinline__ float ld(const float *p) { return *p; }
__device__ __forceinline__ double ld(const double *p) { return *p; }
__device__ __forceinline__ void st(__half *p, float v) { *p = __float2half_rn(v); }
__device__ __forceinline__ void st(__nv_bfloat16 *p, float v) { *p = __float2bfloat16_rn(v); }
__device__ __forceinline__ void st(float *p, float v) { *p = v; }
__device__ __forceinline__ void st(double *p, double v) { *p = v; }
__device__ __forceinline__ long long to_f(int8_t v) { return v; }
__device__ __forceinline__ long long to_f(uint8_t v) { return v; }
__device__ __forceinline__ long long to_f(int16_t v) { return v; }
__device__ __forceinline__ long long to_f(int32_t v) { return v; }
__device__ __forceinline__ long long to_f(int64_t v) { return v; }
__device__ __forceinline__ float xexp(float v) { return expf(v); }
__device__ __forceinline__ double xexp(double v) { return exp(v); }
__device__ __forceinline__ float xlog(float v) { return logf(v); }
__device__ __forceinline__ double xlog(double v) { return log(v); }

template <typename C> __device__ __forceinline__ C smax(C m, C v) { return ((v > m) | (v != v)) ? v : m; }

template <typename C> __device__ __forceinline__ C warp_sum(C v) {
#pragma unroll
  for (int k = 16; k > 0; k >>= 1) v += __shfl_xor_sync(0xffffffffu, v, k);
  return v;
}
template <typename C> __device__ __forceinline__ C warp_smax(C v) {
#pragma unroll
  for (int k = 16; k > 0; k >>= 1) v = smax(v, __shfl_xor_sync(0xffffffffu, v, k));
  return v;
}
template <typename C> __device__ __forceinline__ C warp_max_plain(C v) {
#pragma unroll
  for (int k = 16; k > 0; k >>= 1) {
    C o = __shfl_xor_sync(0xffffffffu, v, k);
    v = o > v ? o : v;
  }
  return v;
}
// block-wide sum / NaN-winning max of blockDim.x (a multiple of 32, <= 1024) threads; all get it
template <typename C, int MAX> __device__ C block_red(C v) {
  __shared__ C sh[32];
  __syncthreads();  // sh reused across calls
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
  v = MAX ? warp_smax(v) : warp_sum(v);
  if (lane == 0) sh[w] = v;
  __syncthreads();
  if (w == 0) {
    C t = lane < nw ? sh[lane] : (MAX ? (C)-INFINITY : (C)0);
    t = MAX ? warp_smax(t) : warp_sum(t);
    if (lane == 0) sh[0] = t;
  }
  __syncthreads();
  return sh[0];
}

static int check(const char *what) { return launch_check(what); }

static void *dev_alloc(size_t n, int *dev) {
  cudaGetDevice(dev);
  if (!pd_cuda_rt_table.alloc) {
    pd_cu_set_error(PD_CU_ERR_LAUNCH, "nn: the runtime's allocator is missing");
    return NULL;
  }
  return pd_cuda_rt_table.alloc(*dev, n);
}
static void dev_free(int dev, void *p) {
  if (p && pd_cuda_rt_table.free) pd_cuda_rt_table.free(dev, p);
}

// ---------------- softmax / log_softmax ----------------
// one group of G threads (a warp, or the block) per row of n (inner == 1)
template <typename T, int LOG>
__global__ void __launch_bounds__(256) softmax_warp(const T *__restrict__ x, T *__restrict__ y, int64_t rows, int64_t n) {
  typedef typename ctype<T>::type C;
  const int64_t r = (int64_t)blockIdx.x * 8 + (threadIdx.x >> 5);
  const int lane = threadIdx.x & 31;
  if (r >= rows) return;
  const T *xr = x + r * n;
  T *yr = y + r * n;
  C m = -INFINITY;
  for (int64_t j = lane; j < n; j += 32) m = smax(m, (C)ld(xr + j));
  m = warp_smax(m);
  if (isinf(m)) m = 0;
  C s = 0;
  for (int64_t j = lane; j < n; j += 32) s += xexp((C)ld(xr + j) - m);
  s = warp_sum(s);
  if (LOG) {
    const C sh = m + xlog(s);
    for (int64_t j = lane; j < n; j += 32) st(yr + j, (C)ld(xr + j) - sh);
  } else {
    const C inv = (C)1 / s;
    for (int64_t j = lane; j < n; j += 32) st(yr + j, xexp((C)ld(xr + j) - m) * inv);
  }
}
template <typename T, int LOG>
__global__ void __launch_bounds__(512) softmax_block(const T *__restrict__ x, T *__restrict__ y, int64_t n) {
  typedef typename ctype<T>::type C;
  const int64_t r = blockIdx.x;
  const T *xr = x + r * n;
  T *yr = y + r * n;
  C m = -INFINITY;
  for (int64_t j = threadIdx.x; j < n; j += blockDim.x) m = smax(m, (C)ld(xr + j));
  m = block_red<C, 1>(m);
  if (isinf(m)) m = 0;
  C s = 0;
  for (int64_t j = threadIdx.x; j < n; j += blockDim.x) s += xexp((C)ld(xr + j) - m);
  s = block_red<C, 0>(s);
  if (LOG) {
    const C sh = m + xlog(s);
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) st(yr + j, (C)ld(xr + j) - sh);
  } else {
    const C inv = (C)1 / s;
    for (int64_t j = threadIdx.x; j < n; j += blockDim.x) st(yr + j, xexp((C)ld(xr + j) - m) * inv);
  }
}
// inner > 1: a thread per (outer, inner) column, neighbours on neighbouring columns
template <typename T, int LOG>
__global__ void __launch_bounds__(256) softmax_cols(const T *__restrict__ x, T *__restrict__ y, int64_t outer, int64_t n, int64_t inner) {
  typedef typename ctype<T>::type C;
  const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= outer * inner) return;
  const int64_t o = t / inner, i = t - o * inner;
  const T *xc = x + o * n * inner + i;
  T *yc = y + o * n * inner + i;
  C m = -INFINITY;
  for (int64_t j = 0; j < n; j++) m = smax(m, (C)ld(xc + j * inner));
  if (isinf(m)) m = 0;
  C s = 0;
  for (int64_t j = 0; j < n; j++) s += xexp((C)ld(xc + j * inner) - m);
  if (LOG) {
    const C sh = m + xlog(s);
    for (int64_t j = 0; j < n; j++) st(yc + j * inner, (C)ld(xc + j * inner) - sh);
  } else {
    const C inv = (C)1 / s;
    for (int64_t j = 0; j < n; j++) st(yc + j * inner, xexp((C)ld(xc + j * inner) - m) * inv);
  }
}

template <typename T, int LOG>
static int softmax_t(const void *x, void *y, int64_t outer, int64_t n, int64_t inner) {
  cudaStream_t s = stream();
  const T *xp = (const T *)x;
  T *yp = (T *)y;
  if (inner == 1) {
    if (n <= 1024) softmax_warp<T, LOG><<<(unsigned)((outer + 7) / 8), 256, 0, s>>>(xp, yp, outer, n);
    else softmax_block<T, LOG><<<(unsigned)outer, 512, 0, s>>>(xp, yp, n);
  } else {
    softmax_cols<T, LOG><<<(unsigned)((outer * inner + 255) / 256), 256, 0, s>>>(xp, yp, outer, n, inner);
  }
  return check(LOG ? "log_softmax" : "softmax");
}

// ---------------- cross_entropy_with_softmax ----------------
__device__ __forceinline__ int64_t lab_at(const void *lab, int ldt, int64_t r) {
  return ldt == PD_CU_INT64 ? ((const int64_t *)lab)[r] : (int64_t)((const int32_t *)lab)[r];
}
// a warp per row r = (o, i); elements at base + j * inner
template <typename T>
__global__ void __launch_bounds__(256) ce_fwd(const T *__restrict__ x, const void *lab, int ldt, int soft, int64_t ig,
                                              T *__restrict__ sm, T *__restrict__ loss, int64_t outer, int64_t n,
                                              int64_t inner, int *bad) {
  const int64_t r = (int64_t)blockIdx.x * 8 + (threadIdx.x >> 5);
  const int lane = threadIdx.x & 31;
  if (r >= outer * inner) return;
  const int64_t o = r / inner, i = r - o * inner, base = o * n * inner + i;
  const T *xr = x + base;
  T *sr = sm + base;
  T m = xr[0];  // the CPU's plain max from x[0] (no NaN rule, no inf fix)
  for (int64_t j = lane; j < n; j += 32) m = xr[j * inner] > m ? xr[j * inner] : m;
  m = warp_max_plain(m);
  T s = 0;
  for (int64_t j = lane; j < n; j += 32) s += xexp(xr[j * inner] - m);
  s = warp_sum(s);
  const T inv = (T)1 / s, lse = m + xlog(s);
  for (int64_t j = lane; j < n; j += 32) sr[j * inner] = xexp(xr[j * inner] - m) * inv;
  if (soft) {
    const T *lr = (const T *)lab + base;
    T acc = 0;
    for (int64_t j = lane; j < n; j += 32) acc += lr[j * inner] * (lse - xr[j * inner]);
    acc = warp_sum(acc);
    if (lane == 0) loss[r] = acc;
  } else if (lane == 0) {
    const int64_t h = lab_at(lab, ldt, r);
    if (h == ig) {
      loss[r] = 0;
    } else if (h < 0 || h >= n) {
      loss[r] = NAN;
      *bad = 1;
    } else {
      loss[r] = lse - xr[h * inner];
    }
  }
}
template <typename T>
__global__ void __launch_bounds__(256) ce_bwd(const void *lab, int ldt, int soft, int64_t ig, const T *__restrict__ sm,
                                              const T *__restrict__ dl, const T *__restrict__ q, T *__restrict__ dx,
                                              int64_t outer, int64_t n, int64_t inner, int *bad) {
  const int64_t r = (int64_t)blockIdx.x * 8 + (threadIdx.x >> 5);
  const int lane = threadIdx.x & 31;
  if (r >= outer * inner) return;
  const int64_t o = r / inner, i = r - o * inner, base = o * n * inner + i;
  const T *s = sm + base;
  const T *qq = q ? q + base : NULL;
  T *d = dx + base;
  const T g = dl[r];
  T rr = 0;
  if (qq)
    for (int64_t j = lane; j < n; j += 32) rr += qq[j * inner] * s[j * inner];
  rr = warp_sum(rr);
  if (soft) {
    const T *lr = (const T *)lab + base;
    T sl = 0;
    for (int64_t j = lane; j < n; j += 32) sl += lr[j * inner];
    sl = warp_sum(sl);
    const T c = g * sl - rr;
    for (int64_t j = lane; j < n; j += 32)
      d[j * inner] = s[j * inner] * (c + (qq ? qq[j * inner] : (T)0)) - lr[j * inner] * g;
  } else {
    const int64_t h = lab_at(lab, ldt, r);
    const int ok = h == ig || (h >= 0 && h < n);
    if (!ok && lane == 0 && bad) *bad = 1;
    const T c = (h == ig ? (T)0 : g) - rr;
    for (int64_t j = lane; j < n; j += 32) {
      T v = s[j * inner] * (c + (qq ? qq[j * inner] : (T)0));
      if (j == h && h != ig) v -= g;
      d[j * inner] = ok ? v : (T)NAN;
    }
  }
}

// the label check: a device flag read back (this synchronises the stream)
static int ce_flag_result(int *flag, int dev, const char *op, int64_t n, int64_t ig) {
  int host = 0;
  int rc = pd_cuda_rt_table.memcpy ? pd_cuda_rt_table.memcpy(&host, flag, sizeof(int), PD_CU_D2H) : -1;
  dev_free(dev, flag);
  if (rc) return -1;
  if (host) {
    pd_cu_set_error(PD_CU_ERR_INVALID, "%s: expected label values in [0, %lld) or ignore_index %lld", op,
                    (long long)n, (long long)ig);
    return -1;
  }
  return 0;
}

template <typename T>
static int ce_t(const void *logits, const void *label, int ldt, int soft, int64_t ig, void *sm, void *loss,
                int64_t outer, int64_t n, int64_t inner) {
  const int64_t rows = outer * inner;
  if (rows == 0) return 0;
  cudaStream_t s = stream();
  if (n == 0) return cudaMemsetAsync(loss, 0, (size_t)rows * sizeof(T), s) == cudaSuccess ? 0 : check("cross_entropy_with_softmax");
  int dev = 0;
  int *flag = NULL;
  if (!soft) {
    flag = (int *)dev_alloc(sizeof(int), &dev);
    if (!flag) return -1;
    cudaMemsetAsync(flag, 0, sizeof(int), s);
  }
  ce_fwd<T><<<(unsigned)((rows + 7) / 8), 256, 0, s>>>((const T *)logits, label, ldt, soft, ig, (T *)sm, (T *)loss,
                                                       outer, n, inner, flag);
  if (check("cross_entropy_with_softmax")) {
    dev_free(dev, flag);
    return -1;
  }
  return soft ? 0 : ce_flag_result(flag, dev, "cross_entropy_with_softmax", n, ig);
}
// The gradient does not read the flag back (no synchronisation on the training path): the
// forward has validated the same labels; a row whose label is out of range gets NaN gradients.
template <typename T>
static int ce_grad_t(const void *label, int ldt, int soft, int64_t ig, const void *sm, const void *dl, const void *q,
                     void *dx, int64_t outer, int64_t n, int64_t inner) {
  const int64_t rows = outer * inner;
  if (rows == 0 || n == 0) return 0;
  ce_bwd<T><<<(unsigned)((rows + 7) / 8), 256, 0, stream()>>>(label, ldt, soft, ig, (const T *)sm, (const T *)dl,
                                                              (const T *)q, (T *)dx, outer, n, inner, NULL);
  return check("cross_entropy_with_softmax_grad");
}

// ---------------- column partial sums (layer_norm's dscale / dbias, batch_norm's statistics) ----
// part[s * W + j] = sum over rows a of chunk s of F(a, j) (two sums at once, double)
template <typename F>
__global__ void __launch_bounds__(256) colpart(int64_t A, int64_t W, int64_t chunk, double2 *part, F f) {
  __shared__ double2 sh[8][33];
  const int64_t j = (int64_t)blockIdx.x * 32 + threadIdx.x, s = blockIdx.y;
  double2 acc = make_double2(0, 0);
  if (j < W) {
    const int64_t a1 = (s + 1) * chunk < A ? (s + 1) * chunk : A;
    for (int64_t a = s * chunk + threadIdx.y; a < a1; a += 8) {
      double2 v = f(a, j);
      acc.x += v.x;
      acc.y += v.y;
    }
  }
  sh[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.y == 0 && j < W) {
    for (int k = 1; k < 8; k++) {
      acc.x += sh[k][threadIdx.x].x;
      acc.y += sh[k][threadIdx.x].y;
    }
    part[s * W + j] = acc;
  }
}
// out[g] = sum over s and b < B of part[s * W + g * B + b]; a block per group g
__global__ void __launch_bounds__(256) colfold(const double2 *part, int64_t S, int64_t W, int64_t B, double2 *out) {
  const int64_t g = blockIdx.x;
  double sx = 0, sy = 0;
  for (int64_t t = threadIdx.x; t < S * B; t += blockDim.x) {
    const int64_t s = t / B, b = t - s * B;
    const double2 v = part[s * W + g * B + b];
    sx += v.x;
    sy += v.y;
  }
  sx = block_red<double, 0>(sx);
  sy = block_red<double, 0>(sy);
  if (threadIdx.x == 0) out[g] = make_double2(sx, sy);
}
// sums over A rows of W columns, grouped by B consecutive columns -> out[W / B] (device)
template <typename F>
static int colsums(int64_t A, int64_t W, int64_t B, F f, double2 *out, const char *name) {
  static int sms = 0;
  if (!sms) {
    int dev = 0;
    cudaGetDevice(&dev);
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || sms <= 0) sms = 108;
  }
  const int64_t units = ((W + 31) / 32) * 256, target = (int64_t)sms * 2048;
  int64_t S = 1;
  if (units < target && A > 64) {
    S = (target + units - 1) / units;
    const int64_t smax = (A + 31) / 32;
    if (S > smax) S = smax;
    if (S > 65535) S = 65535;
  }
  const int64_t chunk = (A + S - 1) / S > 0 ? (A + S - 1) / S : 1;
  int dev;
  double2 *part = (double2 *)dev_alloc((size_t)(S * W) * sizeof(double2), &dev);
  if (!part) return -1;
  cudaStream_t s = stream();
  colpart<F><<<dim3((unsigned)((W + 31) / 32), (unsigned)S), dim3(32, 8), 0, s>>>(A, W, chunk, part, f);
  int rc = check(name);
  if (!rc) {
    colfold<<<(unsigned)(W / B), 256, 0, s>>>(part, S, W, B, out);
    rc = check(name);
  }
  dev_free(dev, part);
  return rc;
}

// ---------------- layer_norm ----------------
template <typename T>
__global__ void __launch_bounds__(256) ln_fwd(int64_t D, const T *__restrict__ x, const T *__restrict__ sc,
                                              const T *__restrict__ bi, T *__restrict__ y, T *__restrict__ mo,
                                              T *__restrict__ vo, double eps) {
  const int64_t r = blockIdx.x;
  const T *p = x + r * D;
  T *q = y + r * D;
  double s = 0;
  for (int64_t j = threadIdx.x; j < D; j += blockDim.x) s += (double)p[j];
  const double mean = block_red<double, 0>(s) / (double)D;
  const T m = (T)mean;
  const double dm = mean - (double)m;
  double s2 = 0;
  for (int64_t j = threadIdx.x; j < D; j += blockDim.x) {
    const T d = p[j] - m;
    s2 += (double)(d * d);
  }
  double var = block_red<double, 0>(s2) / (double)D - dm * dm;
  if (var < 0) var = 0;
  const T inv = (T)(1.0 / sqrt(var + eps));
  if (threadIdx.x == 0) {
    mo[r] = m;
    vo[r] = (T)var;
  }
  for (int64_t j = threadIdx.x; j < D; j += blockDim.x) {
    T v = (p[j] - m) * inv;
    if (sc) v = v * sc[j];
    if (bi) v = v + bi[j];
    q[j] = v;
  }
}
template <typename T>
__global__ void __launch_bounds__(256) ln_bwd(int64_t D, const T *__restrict__ x, const T *__restrict__ sc,
                                              const T *__restrict__ mo, const T *__restrict__ vo,
                                              const T *__restrict__ dy, T *__restrict__ dx, double eps,
                                              const T *__restrict__ gm, const T *__restrict__ gv) {
  const int64_t r = blockIdx.x;
  const T *p = x + r * D, *d = dy + r * D;
  T *q = dx + r * D;
  const T inv = (T)(1.0 / sqrt((double)vo[r] + eps)), mean = mo[r];
  double sa = 0, sb = 0;
  for (int64_t j = threadIdx.x; j < D; j += blockDim.x) {
    const T g = sc ? d[j] * sc[j] : d[j];
    sa += (double)g;
    sb += (double)(g * (p[j] - mean));
  }
  const double a = block_red<double, 0>(sa) / (double)D;
  const double bsum = block_red<double, 0>(sb) * (double)inv / (double)D;
  const double ii = (double)inv, mm = (double)mean;
  const double ex = gm ? (double)gm[r] / (double)D : 0, ev = gv ? 2.0 * (double)gv[r] / (double)D : 0;
  const T k2 = (T)(ev - ii * ii * bsum), k3 = (T)(ii * ii * bsum * mm - ii * a + ex - ev * mm);
  for (int64_t j = threadIdx.x; j < D; j += blockDim.x) {
    const T g = sc ? d[j] * sc[j] : d[j];
    q[j] = inv * g + k2 * p[j] + k3;
  }
}
template <typename T> struct LnParamF {
  const T *x, *dy, *mo, *vo;
  int64_t D;
  double eps;
  __device__ double2 operator()(int64_t a, int64_t j) const {
    const T inv = (T)(1.0 / sqrt((double)vo[a] + eps));
    const T d = dy[a * D + j];
    return make_double2((double)(d * ((x[a * D + j] - mo[a]) * inv)), (double)d);
  }
};
__global__ void store2(const double2 *in, int64_t n, float *o1, float *o2) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (o1) o1[i] = (float)in[i].x;
  if (o2) o2[i] = (float)in[i].y;
}
__global__ void store2(const double2 *in, int64_t n, double *o1, double *o2) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (o1) o1[i] = in[i].x;
  if (o2) o2[i] = in[i].y;
}

static unsigned row_threads(int64_t D) { return D <= 64 ? 32 : D <= 512 ? 128 : 256; }

template <typename T>
static int ln_t(int64_t R, int64_t D, const void *x, const void *sc, const void *bi, void *y, void *mo, void *vo,
                double eps) {
  if (R == 0) return 0;
  ln_fwd<T><<<(unsigned)R, row_threads(D), 0, stream()>>>(D, (const T *)x, (const T *)sc, (const T *)bi, (T *)y,
                                                           (T *)mo, (T *)vo, eps);
  return check("layer_norm");
}
template <typename T>
static int ln_grad_t(int64_t R, int64_t D, const void *x, const void *sc, const void *mo, const void *vo,
                     const void *dy, void *dx, void *dsc, void *dbi, double eps, const void *gm, const void *gv) {
  cudaStream_t s = stream();
  if (R > 0 && D > 0) {
    ln_bwd<T><<<(unsigned)R, row_threads(D), 0, s>>>(D, (const T *)x, (const T *)sc, (const T *)mo, (const T *)vo,
                                                      (const T *)dy, (T *)dx, eps, (const T *)gm, (const T *)gv);
    if (check("layer_norm_grad")) return -1;
  }
  if ((dsc || dbi) && D > 0) {
    if (R == 0) {
      if (dsc) cudaMemsetAsync(dsc, 0, (size_t)D * sizeof(T), s);
      if (dbi) cudaMemsetAsync(dbi, 0, (size_t)D * sizeof(T), s);
      return check("layer_norm_grad");
    }
    int dev;
    double2 *tot = (double2 *)dev_alloc((size_t)D * sizeof(double2), &dev);
    if (!tot) return -1;
    LnParamF<T> f = {(const T *)x, (const T *)dy, (const T *)mo, (const T *)vo, D, eps};
    int rc = colsums(R, D, 1, f, tot, "layer_norm_grad");
    if (!rc) {
      store2<<<(unsigned)((D + 255) / 256), 256, 0, s>>>(tot, D, (T *)dsc, (T *)dbi);
      rc = check("layer_norm_grad");
    }
    dev_free(dev, tot);
    return rc;
  }
  return 0;
}

// ---------------- batch_norm over [A, C, B] ----------------
template <typename T> struct BnSumF {
  const T *x;
  __device__ double2 operator()(int64_t a, int64_t j) const { return make_double2((double)x[a * W + j], 0.0); }
  int64_t W;
};
template <typename T> struct BnVarF {
  const T *x;
  const double2 *mean;  // .x = mean of channel
  int64_t W, B;
  __device__ double2 operator()(int64_t a, int64_t j) const {
    const T d = x[a * W + j] - (T)mean[j / B].x;
    return make_double2((double)(d * d), 0.0);
  }
};
template <typename T> struct BnGradF {
  const T *x, *dy, *sm;
  int64_t W, B;
  __device__ double2 operator()(int64_t a, int64_t j) const {
    const T q = dy[a * W + j];
    return make_double2((double)q, (double)(q * (x[a * W + j] - sm[j / B])));
  }
};
// per channel: stats (or the running ones) -> running update, saved outputs, k1 / k3
template <typename T>
__global__ void bn_coef(int64_t C, double M, const double2 *sum, const double2 *sq, T *rm, T *rv, const T *sc,
                        const T *bi, T *smean, T *sinv, T *k, int train, double mom, double eps) {
  const int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= C) return;
  double mean, var;
  if (train) {
    mean = M > 0 ? sum[c].x / M : 0;
    var = M > 0 ? sq[c].x / M : 0;
    rm[c] = (T)(mom * (double)rm[c] + (1 - mom) * mean);
    rv[c] = (T)(mom * (double)rv[c] + (1 - mom) * var);
  } else {
    mean = (double)rm[c];
    var = (double)rv[c];
  }
  const double inv = 1.0 / sqrt(var + eps), g = sc ? (double)sc[c] : 1;
  smean[c] = (T)mean;
  sinv[c] = (T)inv;
  k[c] = (T)(g * inv);
  k[C + c] = (T)((bi ? (double)bi[c] : 0) - mean * g * inv);
}
// the mean as a double2 (for BnVarF) from the sums
__global__ void bn_mean(int64_t C, double M, double2 *sum) {
  const int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (c < C) sum[c].x = M > 0 ? sum[c].x / M : 0;
}
__global__ void bn_unmean(int64_t C, double M, double2 *sum) {
  const int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (c < C) sum[c].x = sum[c].x * M;
}
// y = k1[c] * u + k2[c] * v + k3[c]  (k2 / v may be NULL)
template <typename T>
__global__ void bn_apply(int64_t n, int64_t C, int64_t B, const T *__restrict__ u, const T *__restrict__ v,
                         const T *__restrict__ k1, const T *__restrict__ k2, const T *__restrict__ k3, T *__restrict__ y) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t c = (i / B) % C;
    y[i] = v ? k1[c] * u[i] + k2[c] * v[i] + k3[c] : k1[c] * u[i] + k3[c];
  }
}
template <typename T>
__global__ void bn_gcoef(int64_t C, double M, const double2 *sums, const T *sc, const T *smean, const T *sinv,
                         T *dsc, T *dbi, T *dm, T *dv, T *k, int global, const T *gm, const T *gi) {
  const int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= C) return;
  const double inv = (double)sinv[c], g = sc ? (double)sc[c] : 1, sd = sums[c].x, sx = sums[c].y * inv;
  const double em = gm ? (double)gm[c] : 0, ei = gi ? (double)gi[c] : 0;
  if (dsc) dsc[c] = (T)sx;
  if (dbi) dbi[c] = (T)sd;
  if (dm) dm[c] = (T)(global ? -g * inv * sd + em : 0);
  if (dv) dv[c] = (T)(global ? -0.5 * inv * inv * (g * sx + inv * ei) : 0);
  const double k1 = g * inv, k2 = global ? 0 : g * inv * sd / M - em / M,
               k3 = global ? 0 : g * inv * inv * sx / M + ei * inv * inv * inv / M;
  k[c] = (T)k1;
  k[C + c] = (T)(-k3);
  k[2 * C + c] = (T)(k3 * (double)smean[c] - k2);
}

static unsigned grid_for(int64_t n) {
  int64_t b = (n + 255) / 256;
  return (unsigned)(b > 65535 * 8 ? 65535 * 8 : (b < 1 ? 1 : b));
}

template <typename T>
static int bn_t(int64_t A, int64_t C, int64_t B, const void *x, void *rm, void *rv, const void *sc, const void *bi,
                void *y, void *smean, void *sinv, int train, double mom, double eps) {
  if (C == 0) return 0;
  cudaStream_t s = stream();
  const int64_t W = C * B, n = A * W;
  const double M = (double)(A * B);
  int dev;
  char *buf = (char *)dev_alloc((size_t)C * (2 * sizeof(double2) + 2 * sizeof(T)), &dev);
  if (!buf) return -1;
  double2 *sum = (double2 *)buf, *sq = sum + C;
  T *k = (T *)(sq + C);
  int rc = 0;
  if (train) {
    if (n == 0) {
      cudaMemsetAsync(sum, 0, 2 * (size_t)C * sizeof(double2), s);
    } else {
      BnSumF<T> f1 = {(const T *)x, W};
      rc = colsums(A, W, B, f1, sum, "batch_norm");
      if (!rc) {
        bn_mean<<<(unsigned)((C + 255) / 256), 256, 0, s>>>(C, M, sum);
        BnVarF<T> f2 = {(const T *)x, sum, W, B};
        rc = colsums(A, W, B, f2, sq, "batch_norm");
        bn_unmean<<<(unsigned)((C + 255) / 256), 256, 0, s>>>(C, M, sum);
      }
    }
  }
  if (!rc) {
    bn_coef<T><<<(unsigned)((C + 255) / 256), 256, 0, s>>>(C, M, sum, sq, (T *)rm, (T *)rv, (const T *)sc,
                                                          (const T *)bi, (T *)smean, (T *)sinv, k, train, mom, eps);
    rc = check("batch_norm");
  }
  if (!rc && n > 0) {
    bn_apply<T><<<grid_for(n), 256, 0, s>>>(n, C, B, (const T *)x, (const T *)NULL, k, (const T *)NULL, k + C, (T *)y);
    rc = check("batch_norm");
  }
  dev_free(dev, buf);
  return rc;
}
template <typename T>
static int bn_grad_t(int64_t A, int64_t C, int64_t B, const void *x, const void *sc, const void *smean,
                     const void *sinv, const void *dy, void *dx, void *dsc, void *dbi, void *dm, void *dv,
                     int global, const void *gm, const void *gi) {
  if (C == 0) return 0;
  cudaStream_t s = stream();
  const int64_t W = C * B, n = A * W;
  const double M = (double)(A * B);
  int dev;
  char *buf = (char *)dev_alloc((size_t)C * (sizeof(double2) + 3 * sizeof(T)), &dev);
  if (!buf) return -1;
  double2 *sums = (double2 *)buf;
  T *k = (T *)(sums + C);
  int rc = 0;
  if (n == 0) {
    cudaMemsetAsync(sums, 0, (size_t)C * sizeof(double2), s);
  } else {
    BnGradF<T> f = {(const T *)x, (const T *)dy, (const T *)smean, W, B};
    rc = colsums(A, W, B, f, sums, "batch_norm_grad");
  }
  if (!rc) {
    bn_gcoef<T><<<(unsigned)((C + 255) / 256), 256, 0, s>>>(C, M, sums, (const T *)sc, (const T *)smean,
                                                           (const T *)sinv, (T *)dsc, (T *)dbi, (T *)dm, (T *)dv, k,
                                                           global, (const T *)gm, (const T *)gi);
    rc = check("batch_norm_grad");
  }
  if (!rc && n > 0) {
    bn_apply<T><<<grid_for(n), 256, 0, s>>>(n, C, B, (const T *)dy, (const T *)x, k, k + C, k + 2 * C, (T *)dx);
    rc = check("batch_norm_grad");
  }
  dev_free(dev, buf);
  return rc;
}

// ---------------- scale ----------------
template <typename T, typename C>
__global__ void scale_k(const T *__restrict__ x, T *__restrict__ y, int64_t n, C s) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    st(y + i, (C)ld(x + i) * s);
}

// ---------------- dot ----------------
template <typename T, typename A>
__global__ void __launch_bounds__(256) dot_k(const T *__restrict__ x, const T *__restrict__ y, int64_t rows, int64_t n,
                                             int64_t xr, int64_t xc, int64_t yr, int64_t yc, T *__restrict__ out) {
  const int64_t r = (int64_t)blockIdx.x * 8 + (threadIdx.x >> 5);
  const int lane = threadIdx.x & 31;
  if (r >= rows) return;
  A acc = 0;
  for (int64_t i = lane; i < n; i += 32) acc += (A)to_f(x[r * xr + i * xc]) * (A)to_f(y[r * yr + i * yc]);
#pragma unroll
  for (int k = 16; k > 0; k >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, k);
  if (lane == 0) {
    if constexpr (std::is_integral<T>::value) out[r] = (T)acc;
    else st(out + r, (typename ctype<T>::type)acc);
  }
}
template <typename T, typename A>
static int dot_t(const void *x, const void *y, int64_t rows, int64_t n, int64_t xr, int64_t xc, int64_t yr,
                 int64_t yc, void *out) {
  dot_k<T, A><<<(unsigned)((rows + 7) / 8), 256, 0, stream()>>>((const T *)x, (const T *)y, rows, n, xr, xc, yr, yc,
                                                                (T *)out);
  return check("dot");
}

// ---------------- cumsum / cumprod: a thread per line, sequential as the CPU ----------------
template <typename T, typename A, int PROD>
__global__ void __launch_bounds__(256) scan_k(const T *__restrict__ x, T *__restrict__ y, int64_t outer, int64_t n,
                                              int64_t inner, int exclusive, int reverse) {
  const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= outer * inner) return;
  const int64_t o = t / inner, i = t - o * inner;
  const T *p = x + o * n * inner + i;
  T *q = y + o * n * inner + i;
  A acc = PROD ? (A)1 : (A)0;
  for (int64_t k = 0; k < n; k++) {
    const int64_t r = reverse ? n - 1 - k : k;
    const A v = (A)to_f(p[r * inner]);
    if (exclusive) {
      if constexpr (std::is_integral<T>::value) q[r * inner] = (T)acc;
      else st(q + r * inner, (typename ctype<T>::type)acc);
    }
    acc = PROD ? acc * v : acc + v;
    if (!exclusive) {
      if constexpr (std::is_integral<T>::value) q[r * inner] = (T)acc;
      else st(q + r * inner, (typename ctype<T>::type)acc);
    }
  }
}
template <typename T, typename A>
static int scan_t(int prod, const void *x, void *y, int64_t outer, int64_t n, int64_t inner, int exclusive, int reverse) {
  const int64_t lines = outer * inner;
  const unsigned g = (unsigned)((lines + 127) / 128);
  if (prod) scan_k<T, A, 1><<<g, 128, 0, stream()>>>((const T *)x, (T *)y, outer, n, inner, exclusive, reverse);
  else scan_k<T, A, 0><<<g, 128, 0, stream()>>>((const T *)x, (T *)y, outer, n, inner, exclusive, reverse);
  return check(prod ? "cumprod" : "cumsum");
}

} // namespace pdnn

using namespace pdnn;

#define FLOAT_DISPATCH(dt, name, CALL32, CALL64)                                               \
  do {                                                                                         \
    if ((dt) == PD_CU_FLOAT32) return CALL32;                                                  \
    if ((dt) == PD_CU_FLOAT64) return CALL64;                                                  \
    pd_cu_set_error(PD_CU_ERR_UNSUPPORTED, "%s: dtype %d is not supported on GPU", name, dt);  \
    return -1;                                                                                 \
  } while (0)

static int nn_softmax(int dt, const void *x, void *y, int64_t outer, int64_t n, int64_t inner, int log_) {
  if (outer * n * inner == 0) return 0;
  switch (dt) {
    case PD_CU_FLOAT16: return log_ ? softmax_t<__half, 1>(x, y, outer, n, inner) : softmax_t<__half, 0>(x, y, outer, n, inner);
    case PD_CU_BFLOAT16:
      return log_ ? softmax_t<__nv_bfloat16, 1>(x, y, outer, n, inner) : softmax_t<__nv_bfloat16, 0>(x, y, outer, n, inner);
    case PD_CU_FLOAT32: return log_ ? softmax_t<float, 1>(x, y, outer, n, inner) : softmax_t<float, 0>(x, y, outer, n, inner);
    case PD_CU_FLOAT64: return log_ ? softmax_t<double, 1>(x, y, outer, n, inner) : softmax_t<double, 0>(x, y, outer, n, inner);
    default: break;
  }
  pd_cu_set_error(PD_CU_ERR_UNSUPPORTED, "softmax: dtype %d is not supported on GPU", dt);
  return -1;
}
static int nn_ce(int dt, const void *logits, const void *label, int ldt, int soft, int64_t ig, void *sm, void *loss,
                 int64_t outer, int64_t n, int64_t inner) {
  FLOAT_DISPATCH(dt, "cross_entropy_with_softmax",
                 ce_t<float>(logits, label, ldt, soft, ig, sm, loss, outer, n, inner),
                 ce_t<double>(logits, label, ldt, soft, ig, sm, loss, outer, n, inner));
}
static int nn_ce_grad(int dt, const void *label, int ldt, int soft, int64_t ig, const void *sm, const void *dl,
                      const void *q, void *dx, int64_t outer, int64_t n, int64_t inner) {
  FLOAT_DISPATCH(dt, "cross_entropy_with_softmax_grad",
                 ce_grad_t<float>(label, ldt, soft, ig, sm, dl, q, dx, outer, n, inner),
                 ce_grad_t<double>(label, ldt, soft, ig, sm, dl, q, dx, outer, n, inner));
}
static int nn_ln(int dt, int64_t R, int64_t D, const void *x, const void *sc, const void *bi, void *y, void *mo,
                 void *vo, double eps) {
  FLOAT_DISPATCH(dt, "layer_norm", ln_t<float>(R, D, x, sc, bi, y, mo, vo, eps),
                 ln_t<double>(R, D, x, sc, bi, y, mo, vo, eps));
}
static int nn_ln_grad(int dt, int64_t R, int64_t D, const void *x, const void *sc, const void *mo, const void *vo,
                      const void *dy, void *dx, void *dsc, void *dbi, double eps, const void *gm, const void *gv) {
  FLOAT_DISPATCH(dt, "layer_norm_grad", ln_grad_t<float>(R, D, x, sc, mo, vo, dy, dx, dsc, dbi, eps, gm, gv),
                 ln_grad_t<double>(R, D, x, sc, mo, vo, dy, dx, dsc, dbi, eps, gm, gv));
}
static int nn_bn(int dt, int64_t A, int64_t C, int64_t B, const void *x, void *rm, void *rv, const void *sc,
                 const void *bi, void *y, void *smean, void *sinv, int train, double mom, double eps) {
  FLOAT_DISPATCH(dt, "batch_norm", bn_t<float>(A, C, B, x, rm, rv, sc, bi, y, smean, sinv, train, mom, eps),
                 bn_t<double>(A, C, B, x, rm, rv, sc, bi, y, smean, sinv, train, mom, eps));
}
static int nn_bn_grad(int dt, int64_t A, int64_t C, int64_t B, const void *x, const void *sc, const void *smean,
                      const void *sinv, const void *dy, void *dx, void *dsc, void *dbi, void *dm, void *dv, int global,
                      const void *gm, const void *gi) {
  FLOAT_DISPATCH(dt, "batch_norm_grad",
                 bn_grad_t<float>(A, C, B, x, sc, smean, sinv, dy, dx, dsc, dbi, dm, dv, global, gm, gi),
                 bn_grad_t<double>(A, C, B, x, sc, smean, sinv, dy, dx, dsc, dbi, dm, dv, global, gm, gi));
}
static int nn_scale(int dt, const void *x, void *y, int64_t n, double s) {
  if (n <= 0) return 0;
  cudaStream_t st = stream();
  const unsigned g = grid_for(n);
  switch (dt) {
    case PD_CU_FLOAT16:  // the CPU rounds the factor to x's dtype first
      scale_k<__half, float><<<g, 256, 0, st>>>((const __half *)x, (__half *)y, n, __half2float(__double2half(s)));
      break;
    case PD_CU_BFLOAT16:
      scale_k<__nv_bfloat16, float><<<g, 256, 0, st>>>((const __nv_bfloat16 *)x, (__nv_bfloat16 *)y, n,
                                                       __bfloat162float(__double2bfloat16(s)));
      break;
    case PD_CU_FLOAT32: scale_k<float, float><<<g, 256, 0, st>>>((const float *)x, (float *)y, n, (float)s); break;
    case PD_CU_FLOAT64: scale_k<double, double><<<g, 256, 0, st>>>((const double *)x, (double *)y, n, s); break;
    default:
      pd_cu_set_error(PD_CU_ERR_UNSUPPORTED, "scale: dtype %d is not supported on GPU", dt);
      return -1;
  }
  return check("scale");
}

static int nn_dot(int dt, const void *x, const void *y, int64_t rows, int64_t n, int64_t xr, int64_t xc, int64_t yr,
                  int64_t yc, void *out) {
  if (rows <= 0) return 0;
  switch (dt) {
    case PD_CU_UINT8: return dot_t<uint8_t, long long>(x, y, rows, n, xr, xc, yr, yc, out);
    case PD_CU_INT8: return dot_t<int8_t, long long>(x, y, rows, n, xr, xc, yr, yc, out);
    case PD_CU_INT16: return dot_t<int16_t, long long>(x, y, rows, n, xr, xc, yr, yc, out);
    case PD_CU_INT32: return dot_t<int32_t, long long>(x, y, rows, n, xr, xc, yr, yc, out);
    case PD_CU_INT64: return dot_t<int64_t, long long>(x, y, rows, n, xr, xc, yr, yc, out);
    case PD_CU_FLOAT16: return dot_t<__half, double>(x, y, rows, n, xr, xc, yr, yc, out);
    case PD_CU_BFLOAT16: return dot_t<__nv_bfloat16, double>(x, y, rows, n, xr, xc, yr, yc, out);
    case PD_CU_FLOAT32: return dot_t<float, double>(x, y, rows, n, xr, xc, yr, yc, out);
    case PD_CU_FLOAT64: return dot_t<double, double>(x, y, rows, n, xr, xc, yr, yc, out);
    default: break;
  }
  pd_cu_set_error(PD_CU_ERR_UNSUPPORTED, "dot: dtype %d is not supported on GPU", dt);
  return -1;
}

static int nn_scan(int dt, int prod, const void *x, void *y, int64_t outer, int64_t n, int64_t inner, int exclusive,
                   int reverse) {
  if (outer * n * inner == 0) return 0;
  switch (dt) {
    case PD_CU_UINT8: return scan_t<uint8_t, long long>(prod, x, y, outer, n, inner, exclusive, reverse);
    case PD_CU_INT8: return scan_t<int8_t, long long>(prod, x, y, outer, n, inner, exclusive, reverse);
    case PD_CU_INT16: return scan_t<int16_t, long long>(prod, x, y, outer, n, inner, exclusive, reverse);
    case PD_CU_INT32: return scan_t<int32_t, long long>(prod, x, y, outer, n, inner, exclusive, reverse);
    case PD_CU_INT64: return scan_t<int64_t, long long>(prod, x, y, outer, n, inner, exclusive, reverse);
    case PD_CU_FLOAT16: return scan_t<__half, float>(prod, x, y, outer, n, inner, exclusive, reverse);
    case PD_CU_BFLOAT16: return scan_t<__nv_bfloat16, float>(prod, x, y, outer, n, inner, exclusive, reverse);
    case PD_CU_FLOAT32: return scan_t<float, float>(prod, x, y, outer, n, inner, exclusive, reverse);
    case PD_CU_FLOAT64: return scan_t<double, double>(prod, x, y, outer, n, inner, exclusive, reverse);
    default: break;
  }
  pd_cu_set_error(PD_CU_ERR_UNSUPPORTED, "%s: dtype %d is not supported on GPU", prod ? "cumprod" : "cumsum", dt);
  return -1;
}

// attention_core (helper cuamp): nn_cublas.cu's gemm_c, attn_core.cu's row kernels
extern "C" int pd_cunn_gemm_c(int dtype, int ta, int tb, int64_t M, int64_t N, int64_t K, const void *A,
                              int64_t lda, const void *B, int64_t ldb, void *C, int64_t ldc,
                              const pd_cuda_gemm_batch *batch, const int64_t *cstride);
extern "C" int pd_cuattn_softmax(int dtype, void *s, const void *mask, int64_t B, int64_t H, int64_t Tq,
                                 int64_t Tk, int64_t Mb, int64_t Mh, double scale);
extern "C" int pd_cuattn_dropout(int dtype, const void *P, const void *m, void *D, int64_t n, double keep);
extern "C" int pd_cuattn_softmax_grad(int dtype, void *G, const void *P, const void *m, const void *dP,
                                      int64_t rows, int64_t n, double dsc, double scale);

extern "C" const pd_cuda_nn pd_cuda_nn_table = {
    pd_cunn_gemm, pd_cunn_set_allow_tf32, pd_cunn_reduce, nn_softmax, nn_ce, nn_ce_grad,
    nn_ln,        nn_ln_grad,             nn_bn,          nn_bn_grad, pd_cunn_reduce2, nn_dot, nn_scan, nn_scale,
    pd_cunn_gemm_c, pd_cuattn_softmax, pd_cuattn_dropout, pd_cuattn_softmax_grad,
};
