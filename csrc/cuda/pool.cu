// pool2d / pool3d and pool2d_grad (ops/pool.yaml) on the GPU, appended to the 'misc' table. The
// CPU's generic loops (csrc/kernels/cpu/pool.c, pool_f32 / pool_f64) are the reference, on the
// same pd_pool_geom the glue gets from pd_pool_geom_make: windows from win(), max takes the first
// largest element (a NaN wins over numbers), an empty window gives 0; avg sums the window in
// (d, h, w) order and multiplies by 1 / count (exclusive / adaptive: the clipped window, else the
// padded extent). The gradient runs one thread per INPUT element that visits the outputs whose
// windows cover it in the CPU's output order and adds what the CPU scatters there (max: dout at
// the window's argmax, recomputed from x; avg: dout * inv), so sums come out in the CPU's order
// without atomics. NCHW or channels-last read in place (no permute copies).
#include <cuda_runtime.h>
#include <stdint.h>
#include "pd_cuda_api.h"
#include "pd_cuda_misc.h"

extern "C" void pd_cu_set_error(int code, const char *fmt, ...);
extern "C" void *pd_cu_current_stream(void);

namespace {

constexpr int kThreads = 256;
typedef pd_cuda_pool_geom PG;

__device__ __forceinline__ void win(const PG &g, int i, int64_t o, int64_t *lo, int64_t *hi, int64_t *ext) {
  if (g.adaptive) {
    *lo = o * g.in[i] / g.out[i];
    *hi = ((o + 1) * g.in[i] + g.out[i] - 1) / g.out[i];
    *ext = *hi - *lo;
    return;
  }
  int64_t s = o * g.s[i] - g.pl[i], e = s + g.k[i];
  if (e > g.in[i] + g.pr[i]) e = g.in[i] + g.pr[i];
  *ext = e - s;
  *lo = s < 0 ? 0 : s;
  *hi = e > g.in[i] ? g.in[i] : e;
}

// element ii of plane p = n * C + c in a tensor of S elements per plane
__device__ __forceinline__ int64_t at(const PG &g, int64_t p, int64_t ii, int64_t S) {
  if (!g.nhwc) return p * S + ii;
  const int64_t n = p / g.C, c = p % g.C;
  return (n * S + ii) * g.C + c;
}

// the CPU's max over a window: first largest, a NaN wins over numbers; -1 for an empty window
template <typename T>
__device__ __forceinline__ int64_t argmax(const PG &g, const T *x, int64_t p, int64_t IS, int64_t d0, int64_t d1,
                                          int64_t h0, int64_t h1, int64_t w0, int64_t w1, T *bestv) {
  T best = 0;
  int64_t bi = -1;
  for (int64_t d = d0; d < d1; d++)
    for (int64_t h = h0; h < h1; h++)
      for (int64_t w = w0; w < w1; w++) {
        const int64_t ii = (d * g.in[1] + h) * g.in[2] + w;
        const T v = x[at(g, p, ii, IS)];
        if (bi < 0 || v > best || (v != v && best == best)) {
          best = v;
          bi = ii;
        }
      }
  *bestv = best;
  return bi;
}

template <typename T> __device__ __forceinline__ T mul(T a, T b);
template <> __device__ __forceinline__ float mul<float>(float a, float b) { return __fmul_rn(a, b); }
template <> __device__ __forceinline__ double mul<double>(double a, double b) { return __dmul_rn(a, b); }
template <typename T> __device__ __forceinline__ T add(T a, T b);
template <> __device__ __forceinline__ float add<float>(float a, float b) { return __fadd_rn(a, b); }
template <> __device__ __forceinline__ double add<double>(double a, double b) { return __dadd_rn(a, b); }
template <typename T> __device__ __forceinline__ T inv_of(int64_t cnt);
template <> __device__ __forceinline__ float inv_of<float>(int64_t cnt) { return cnt > 0 ? __fdiv_rn(1.0f, (float)cnt) : 0.0f; }
template <> __device__ __forceinline__ double inv_of<double>(int64_t cnt) { return cnt > 0 ? __ddiv_rn(1.0, (double)cnt) : 0.0; }

template <typename T>
__global__ void __launch_bounds__(kThreads) k_pool_fwd(const PG g, const T *x, T *y, int64_t total) {
  const int64_t IS = g.in[0] * g.in[1] * g.in[2], OS = g.out[0] * g.out[1] * g.out[2];
  const int64_t st = (int64_t)gridDim.x * blockDim.x;
  for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += st) {
    const int64_t p = t / OS, oi = t % OS;
    const int64_t ow = oi % g.out[2], oh = (oi / g.out[2]) % g.out[1], od = oi / (g.out[2] * g.out[1]);
    int64_t d0, d1, h0, h1, w0, w1, ed, eh, ew;
    win(g, 0, od, &d0, &d1, &ed);
    win(g, 1, oh, &h0, &h1, &eh);
    win(g, 2, ow, &w0, &w1, &ew);
    T r;
    if (g.is_max) {
      T best;
      const int64_t bi = argmax<T>(g, x, p, IS, d0, d1, h0, h1, w0, w1, &best);
      r = bi < 0 ? (T)0 : best;
    } else {
      const int64_t cnt = (g.exclusive || g.adaptive) ? (d1 - d0) * (h1 - h0) * (w1 - w0) : ed * eh * ew;
      T acc = 0;
      for (int64_t d = d0; d < d1; d++)
        for (int64_t h = h0; h < h1; h++)
          for (int64_t w = w0; w < w1; w++) acc = add(acc, x[at(g, p, (d * g.in[1] + h) * g.in[2] + w, IS)]);
      r = mul(acc, inv_of<T>(cnt));
    }
    y[at(g, p, oi, OS)] = r;
  }
}

// outputs o of dim i whose window may cover input index v: [*o0, *o1)
__device__ __forceinline__ void cover(const PG &g, int i, int64_t v, int64_t *o0, int64_t *o1) {
  int64_t a, b;
  if (g.adaptive) {
    // members satisfy o > (v - 1) * out / in - 1 and lo(o) <= v; the loop checks each
    a = (v - 1) * g.out[i] / g.in[i] - 1;
    b = (v + 1) * g.out[i] / g.in[i] + 2;
  } else {
    // o * s - pl <= v < o * s - pl + k
    const int64_t num = v + g.pl[i] - g.k[i] + 1;
    a = num <= 0 ? 0 : (num + g.s[i] - 1) / g.s[i];
    b = (v + g.pl[i]) / g.s[i] + 1;
  }
  *o0 = a < 0 ? 0 : a;
  *o1 = b > g.out[i] ? g.out[i] : b;
}

template <typename T>
__global__ void __launch_bounds__(kThreads) k_pool_bwd(const PG g, const T *x, const T *dout, T *dx, int64_t total) {
  const int64_t IS = g.in[0] * g.in[1] * g.in[2], OS = g.out[0] * g.out[1] * g.out[2];
  const int64_t st = (int64_t)gridDim.x * blockDim.x;
  for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += st) {
    const int64_t p = t / IS, ii = t % IS;
    const int64_t iw = ii % g.in[2], ih = (ii / g.in[2]) % g.in[1], id = ii / (g.in[2] * g.in[1]);
    int64_t a0, a1, b0, b1, c0, c1;
    cover(g, 0, id, &a0, &a1);
    cover(g, 1, ih, &b0, &b1);
    cover(g, 2, iw, &c0, &c1);
    T acc = 0;
    for (int64_t od = a0; od < a1; od++) {
      int64_t d0, d1, ed;
      win(g, 0, od, &d0, &d1, &ed);
      if (id < d0 || id >= d1) continue;
      for (int64_t oh = b0; oh < b1; oh++) {
        int64_t h0, h1, eh;
        win(g, 1, oh, &h0, &h1, &eh);
        if (ih < h0 || ih >= h1) continue;
        for (int64_t ow = c0; ow < c1; ow++) {
          int64_t w0, w1, ew;
          win(g, 2, ow, &w0, &w1, &ew);
          if (iw < w0 || iw >= w1) continue;
          const int64_t oi = (od * g.out[1] + oh) * g.out[2] + ow;
          const T dv = dout[at(g, p, oi, OS)];
          if (g.is_max) {
            T best;
            if (argmax<T>(g, x, p, IS, d0, d1, h0, h1, w0, w1, &best) == ii) acc = add(acc, dv);
          } else {
            const int64_t cnt = (g.exclusive || g.adaptive) ? (d1 - d0) * (h1 - h0) * (w1 - w0) : ed * eh * ew;
            acc = add(acc, mul(dv, inv_of<T>(cnt)));
          }
        }
      }
    }
    dx[at(g, p, ii, IS)] = acc;
  }
}

template <typename T> int run(int mode, const PG &g, const void *x, const void *dout, void *y) {
  const int64_t P = g.N * g.C;
  const int64_t total = P * (mode == 0 ? g.out[0] * g.out[1] * g.out[2] : g.in[0] * g.in[1] * g.in[2]);
  if (total <= 0) return 0;
  int64_t blocks = (total + kThreads - 1) / kThreads;
  if (blocks > (1 << 20)) blocks = 1 << 20;
  cudaStream_t s = (cudaStream_t)pd_cu_current_stream();
  if (mode == 0)
    k_pool_fwd<T><<<(unsigned)blocks, kThreads, 0, s>>>(g, (const T *)x, (T *)y, total);
  else
    k_pool_bwd<T><<<(unsigned)blocks, kThreads, 0, s>>>(g, (const T *)x, (const T *)dout, (T *)y, total);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    pd_cu_set_error(PD_CU_ERR_LAUNCH, "pool: kernel launch failed: %s", cudaGetErrorString(e));
    return -1;
  }
  return 0;
}

} // namespace

extern "C" int pd_cupool_pool(int dtype, int mode, const pd_cuda_pool_geom *g, const void *x, const void *dout,
                              void *y) {
  if (dtype == PD_CU_FLOAT32) return run<float>(mode, *g, x, dout, y);
  if (dtype == PD_CU_FLOAT64) return run<double>(mode, *g, x, dout, y);
  pd_cu_set_error(PD_CU_ERR_UNSUPPORTED, "pool: dtype %d is not supported on GPU", dtype);
  return -1;
}
