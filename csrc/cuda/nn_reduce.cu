// Reductions of the 'nn' family: sum / mean / prod / max / min / all / any / logsumexp over any
// axis set of a strided view, deterministic (fixed combination order, no atomics). The kept and
// reduced dims are merged where memory allows; when the fastest-moving dim is reduced a warp
// reduces each output ("row" mode), else a thread per output walks the reduced index with
// neighbouring threads on neighbouring outputs ("column" mode, coalesced: the bias gradient of
// [N, C] -> [C]). Long reductions are split into S chunks whose partials a second kernel folds
// in order.
#include <math.h>
#include <limits>
#include <type_traits>
#include "nn_common.cuh"
#include "pd_cuda_nn.h"

extern "C" const pd_cuda_runtime pd_cuda_rt_table;

namespace pdnn {

struct RedGeom {
  int nk, nr;
  int64_t n_out, R;
  int64_t kshape[PD_CUDA_MAX_DIMS], kstride[PD_CUDA_MAX_DIMS];
  int64_t rshape[PD_CUDA_MAX_DIMS], rstride[PD_CUDA_MAX_DIMS];
};

__device__ __forceinline__ int64_t goff(int n, const int64_t *shape, const int64_t *stride, int64_t i) {
  if (n == 1) return i * stride[0];
  int64_t off = 0;
  for (int d = n - 1; d >= 0; d--) {
    int64_t q = i / shape[d];
    off += (i - q * shape[d]) * stride[d];
    i = q;
  }
  return off;
}

template <typename A, typename T> __device__ __forceinline__ A cvt(T v) { return (A)v; }
template <> __device__ __forceinline__ float cvt<float, __half>(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float cvt<float, __nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }
template <> __device__ __forceinline__ double cvt<double, __half>(__half v) { return (double)__half2float(v); }
template <> __device__ __forceinline__ double cvt<double, __nv_bfloat16>(__nv_bfloat16 v) { return (double)__bfloat162float(v); }
// nonzero test of all / any (the CPU's PD_LD(p) != 0; NaN counts as nonzero)
template <typename T> __device__ __forceinline__ int nz(T v) { return v != (T)0; }
template <> __device__ __forceinline__ int nz<__half>(__half v) { return __half2float(v) != 0.0f; }
template <> __device__ __forceinline__ int nz<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v) != 0.0f; }

// ---- ops: A accumulator, init(), load(v, o), comb(a, b), fin(a, o) -> value stored ----
template <typename T, typename Acc> struct SumOp {
  typedef Acc A;
  __device__ A init() const { return (A)0; }
  __device__ A load(T v, int64_t, int64_t) const { return cvt<A, T>(v); }
  __device__ A comb(A a, A b) const { return a + b; }
  __device__ A fin(A a, int64_t) const { return a; }
};
template <typename T, typename Acc> struct MeanOp {
  typedef Acc A;
  Acc k;
  __device__ A init() const { return (A)0; }
  __device__ A load(T v, int64_t, int64_t) const { return cvt<A, T>(v); }
  __device__ A comb(A a, A b) const { return a + b; }
  __device__ A fin(A a, int64_t) const { return a * k; }
};
template <typename T, typename Acc> struct ProdOp {
  typedef Acc A;
  __device__ A init() const { return (A)1; }
  __device__ A load(T v, int64_t, int64_t) const { return cvt<A, T>(v); }
  __device__ A comb(A a, A b) const { return a * b; }
  __device__ A fin(A a, int64_t) const { return a; }
};
// NaN wins, as the CPU's C_MAX / C_MIN
template <typename T, typename Acc> struct MaxOp {
  typedef Acc A;
  __device__ A init() const {
    return std::numeric_limits<A>::has_infinity ? -std::numeric_limits<A>::infinity()
                                                : std::numeric_limits<A>::lowest();
  }
  __device__ A load(T v, int64_t, int64_t) const { return cvt<A, T>(v); }
  __device__ A comb(A a, A b) const { return ((b > a) | (b != b)) ? b : a; }
  __device__ A fin(A a, int64_t) const { return a; }
};
template <typename T, typename Acc> struct MinOp {
  typedef Acc A;
  __device__ A init() const {
    return std::numeric_limits<A>::has_infinity ? std::numeric_limits<A>::infinity()
                                                : std::numeric_limits<A>::max();
  }
  __device__ A load(T v, int64_t, int64_t) const { return cvt<A, T>(v); }
  __device__ A comb(A a, A b) const { return ((b < a) | (b != b)) ? b : a; }
  __device__ A fin(A a, int64_t) const { return a; }
};
template <typename T> struct AllOp {
  typedef int A;
  __device__ A init() const { return 1; }
  __device__ A load(T v, int64_t, int64_t) const { return nz<T>(v); }
  __device__ A comb(A a, A b) const { return a & b; }
  __device__ A fin(A a, int64_t) const { return a; }
};
template <typename T> struct AnyOp {
  typedef int A;
  __device__ A init() const { return 0; }
  __device__ A load(T v, int64_t, int64_t) const { return nz<T>(v); }
  __device__ A comb(A a, A b) const { return a | b; }
  __device__ A fin(A a, int64_t) const { return a; }
};
// logsumexp's second pass: sum of exp(v - c[o]) in double, c already the max with inf -> 0
template <typename T> struct LseOp {
  typedef double A;
  const double *c;
  __device__ A init() const { return 0.0; }
  __device__ A load(T v, int64_t o, int64_t) const { return exp(cvt<double, T>(v) - c[o]); }
  __device__ A comb(A a, A b) const { return a + b; }
  __device__ A fin(A a, int64_t o) const { return c[o] + log(a); }
};
// logsumexp's first pass: the max in double, inf -> 0 (CPU: c = max; isinf(c) -> 0)
template <typename T> struct LseMaxOp {
  typedef double A;
  __device__ A init() const { return -INFINITY; }
  __device__ A load(T v, int64_t, int64_t) const { return cvt<double, T>(v); }
  __device__ A comb(A a, A b) const { return ((b > a) | (b != b)) ? b : a; }
  __device__ A fin(A a, int64_t) const { return isinf(a) ? 0.0 : a; }
};


template <typename A> __device__ __forceinline__ A shfl_x(A v, int k) { return __shfl_xor_sync(0xffffffffu, v, k); }

// ---- argmax / argmin: the first index of the extreme, NaN the most extreme (CPU's GT_MAX) ----
template <typename C> struct ArgAcc { C v; long long i; };
template <typename C> __device__ __forceinline__ ArgAcc<C> shfl_x(ArgAcc<C> a, int k) {
  ArgAcc<C> b;
  b.v = __shfl_xor_sync(0xffffffffu, a.v, k);
  b.i = __shfl_xor_sync(0xffffffffu, a.i, k);
  return b;
}
template <typename T, typename C, int MAX> struct ArgOp {
  typedef ArgAcc<C> A;
  __device__ static bool better(C v, C b) { return MAX ? ((v > b) || (v != v && b == b)) : ((v < b) || (v != v && b == b)); }
  __device__ A init() const {
    A a;
    a.v = MAX ? (std::numeric_limits<C>::has_infinity ? -std::numeric_limits<C>::infinity() : std::numeric_limits<C>::lowest())
              : (std::numeric_limits<C>::has_infinity ? std::numeric_limits<C>::infinity() : std::numeric_limits<C>::max());
    a.i = INT64_MAX;
    return a;
  }
  __device__ A load(T v, int64_t, int64_t r) const { A a; a.v = cvt<C, T>(v); a.i = r; return a; }
  __device__ A comb(A a, A b) const {
    if (better(b.v, a.v)) return b;
    if (better(a.v, b.v)) return a;
    return b.i < a.i ? b : a;
  }
  __device__ long long fin(A a, int64_t) const { return a.i; }
};

// ---- two-pass reductions in double (CPU's mr_run): var / std / frobenius_norm / p_norm ----
template <typename T> struct DSumOp {  // the mean (first pass of var / std)
  typedef double A;
  double k;
  __device__ A init() const { return 0.0; }
  __device__ A load(T v, int64_t, int64_t) const { return cvt<double, T>(v); }
  __device__ A comb(A a, A b) const { return a + b; }
  __device__ A fin(A a, int64_t) const { return a / k; }
};
template <typename T> struct VarOp {
  typedef double A;
  const double *c;
  double den;
  int sq;
  __device__ A init() const { return 0.0; }
  __device__ A load(T v, int64_t o, int64_t) const { double d = cvt<double, T>(v) - c[o]; return d * d; }
  __device__ A comb(A a, A b) const { return a + b; }
  __device__ A fin(A a, int64_t) const { double r = den > 0 ? a / den : NAN; return sq ? sqrt(r) : r; }
};
// p-norms: mode 0 count nonzero, 1 sum |v|, 2 sqrt(sum v^2), 3 (sum |v|^p)^(1/p), 4 max |v|, 5 min |v|
template <typename T> struct PNormOp {
  typedef double A;
  int mode;
  double p;
  __device__ A init() const { return mode == 5 ? INFINITY : 0.0; }
  __device__ A load(T v, int64_t, int64_t) const {
    const double d = cvt<double, T>(v);
    switch (mode) {
      case 0: return d != 0;
      case 2: return d * d;
      case 3: return pow(fabs(d), p);
      default: return fabs(d);
    }
  }
  __device__ A comb(A a, A b) const {
    if (mode == 4) return ((b > a) | (b != b)) ? b : a;
    if (mode == 5) return ((b < a) | (b != b)) ? b : a;
    return a + b;
  }
  __device__ A fin(A a, int64_t) const { return mode == 2 ? sqrt(a) : mode == 3 ? pow(a, 1.0 / p) : a; }
};

template <typename A> __device__ __forceinline__ void store_out(void *out, int odt, int64_t i, A v) {
  switch (odt) {
    case PD_CU_BOOL: ((uint8_t *)out)[i] = v != (A)0; break;
    case PD_CU_UINT8: ((uint8_t *)out)[i] = (uint8_t)(int64_t)v; break;
    case PD_CU_INT8: ((int8_t *)out)[i] = (int8_t)(int64_t)v; break;
    case PD_CU_INT16: ((int16_t *)out)[i] = (int16_t)(int64_t)v; break;
    case PD_CU_INT32: ((int32_t *)out)[i] = (int32_t)(int64_t)v; break;
    case PD_CU_INT64: ((int64_t *)out)[i] = (int64_t)v; break;
    case PD_CU_FLOAT16: ((__half *)out)[i] = __float2half_rn((float)v); break;
    case PD_CU_BFLOAT16: ((__nv_bfloat16 *)out)[i] = __float2bfloat16_rn((float)v); break;
    case PD_CU_FLOAT32: ((float *)out)[i] = (float)v; break;
    case PD_CU_FLOAT64: ((double *)out)[i] = (double)v; break;
    default: break;
  }
}

// row mode: one warp per (output, chunk)
template <typename T, typename Op>
__global__ void __launch_bounds__(256) red_rows(const T *__restrict__ x, RedGeom g, int S, int64_t chunk,
                                                typename Op::A *part, void *out, int odt, Op op) {
  typedef typename Op::A A;
  const int64_t w = (int64_t)blockIdx.x * 8 + (threadIdx.x >> 5);
  const int lane = threadIdx.x & 31;
  if (w >= g.n_out * S) return;
  const int64_t o = w / S, s = w - o * S;
  const int64_t base = goff(g.nk, g.kshape, g.kstride, o);
  const int64_t r0 = s * chunk, r1 = r0 + chunk < g.R ? r0 + chunk : g.R;
  A acc = op.init();
  if (g.nr == 1) {
    const int64_t st = g.rstride[0];
    for (int64_t r = r0 + lane; r < r1; r += 32) acc = op.comb(acc, op.load(x[base + r * st], o, r));
  } else {
    for (int64_t r = r0 + lane; r < r1; r += 32)
      acc = op.comb(acc, op.load(x[base + goff(g.nr, g.rshape, g.rstride, r)], o, r));
  }
#pragma unroll
  for (int k = 16; k > 0; k >>= 1) acc = op.comb(acc, shfl_x(acc, k));
  if (lane == 0) {
    if (S == 1) store_out(out, odt, o, op.fin(acc, o));
    else part[o * S + s] = acc;
  }
}

// column mode: blockDim (32, 8): x over outputs, y over the chunk's rows; grid.y = chunk
template <typename T, typename Op>
__global__ void __launch_bounds__(256) red_cols(const T *__restrict__ x, RedGeom g, int S, int64_t chunk,
                                                typename Op::A *part, void *out, int odt, Op op) {
  typedef typename Op::A A;
  __shared__ A sh[8][33];
  const int64_t o = (int64_t)blockIdx.x * 32 + threadIdx.x;
  const int64_t s = blockIdx.y;
  A acc = op.init();
  if (o < g.n_out) {
    const int64_t base = goff(g.nk, g.kshape, g.kstride, o);
    const int64_t r0 = s * chunk, r1 = r0 + chunk < g.R ? r0 + chunk : g.R;
    if (g.nr <= 1) {
      const int64_t st = g.nr ? g.rstride[0] : 0;
      for (int64_t r = r0 + threadIdx.y; r < r1; r += 8) acc = op.comb(acc, op.load(x[base + r * st], o, r));
    } else {
      for (int64_t r = r0 + threadIdx.y; r < r1; r += 8)
        acc = op.comb(acc, op.load(x[base + goff(g.nr, g.rshape, g.rstride, r)], o, r));
    }
  }
  sh[threadIdx.y][threadIdx.x] = acc;
  __syncthreads();
  if (threadIdx.y == 0 && o < g.n_out) {
    for (int k = 1; k < 8; k++) acc = op.comb(acc, sh[k][threadIdx.x]);
    if (S == 1) store_out(out, odt, o, op.fin(acc, o));
    else part[o * S + s] = acc;
  }
}

// folds the S partials of each output in a fixed order: a warp per output, lane l combines
// partials l, l + 32, ... then the lanes combine in a fixed butterfly
template <typename Op>
__global__ void __launch_bounds__(256) red_fold(const typename Op::A *part, int64_t n_out, int S, void *out, int odt, Op op) {
  typedef typename Op::A A;
  const int64_t o = (int64_t)blockIdx.x * 8 + (threadIdx.x >> 5);
  const int lane = threadIdx.x & 31;
  if (o >= n_out) return;
  A acc = op.init();
  for (int s = lane; s < S; s += 32) acc = op.comb(acc, part[o * S + s]);
#pragma unroll
  for (int k = 16; k > 0; k >>= 1) acc = op.comb(acc, shfl_x(acc, k));
  if (lane == 0) store_out(out, odt, o, op.fin(acc, o));
}

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

static int sm_count() {
  static int n = 0;
  if (!n) {
    int dev = 0;
    cudaGetDevice(&dev);
    if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || n <= 0) n = 108;
  }
  return n;
}

// run op over geometry g; out of dtype odt
template <typename T, typename Op>
static int run_red(const T *x, const RedGeom &g, int rows_mode, void *out, int odt, Op op, const char *name) {
  typedef typename Op::A A;
  if (g.n_out == 0) return 0;
  const int64_t target = (int64_t)sm_count() * 2048;  // threads worth filling the GPU
  int64_t S = 1;
  if (rows_mode) {
    int64_t units = g.n_out * 32;
    if (units < target && g.R > 2048) {
      S = (target + units - 1) / units;
      int64_t smax = (g.R + 1023) / 1024;
      if (S > smax) S = smax;
    }
  } else {
    int64_t units = ((g.n_out + 31) / 32) * 256;
    if (units < target && g.R > 256) {
      S = (target + units - 1) / units;
      int64_t smax = (g.R + 127) / 128;
      if (S > smax) S = smax;
      if (S > 65535) S = 65535;
    }
  }
  const int64_t chunk = S > 1 ? (g.R + S - 1) / S : (g.R > 0 ? g.R : 1);
  A *part = NULL;
  int dev = 0;
  if (S > 1) {
    part = (A *)dev_alloc((size_t)(g.n_out * S) * sizeof(A), &dev);
    if (!part) return -1;
  }
  cudaStream_t st = stream();
  if (rows_mode) {
    const int64_t warps = g.n_out * S, blocks = (warps + 7) / 8;
    red_rows<T, Op><<<(unsigned)blocks, 256, 0, st>>>(x, g, (int)S, chunk, part, out, odt, op);
  } else {
    dim3 grid((unsigned)((g.n_out + 31) / 32), (unsigned)S);
    red_cols<T, Op><<<grid, dim3(32, 8), 0, st>>>(x, g, (int)S, chunk, part, out, odt, op);
  }
  int rc = launch_check(name);
  if (rc == 0 && S > 1) {
    red_fold<Op><<<(unsigned)((g.n_out + 7) / 8), 256, 0, st>>>(part, g.n_out, (int)S, out, odt, op);
    rc = launch_check(name);
  }
  dev_free(dev, part);
  return rc;
}

static void merge(int *n, int64_t *shape, int64_t *stride) {
  int m = 0;
  for (int d = 0; d < *n; d++) {
    if (m > 0 && stride[m - 1] == stride[d] * shape[d]) {
      shape[m - 1] *= shape[d];
      stride[m - 1] = stride[d];
    } else {
      shape[m] = shape[d];
      stride[m] = stride[d];
      m++;
    }
  }
  *n = m;
}

// the geometry; returns row mode (1) or column mode (0)
static int make_geom(const pd_cuda_tensor *x, unsigned mask, RedGeom *g) {
  g->nk = g->nr = 0;
  g->n_out = 1;
  g->R = 1;
  int64_t best = -1;
  int best_red = 1;
  for (int d = 0; d < x->ndim; d++) {
    const int red = (mask >> d) & 1;
    if (red) g->R *= x->shape[d];
    else g->n_out *= x->shape[d];
    if (x->shape[d] == 1) continue;
    const int64_t as = x->strides[d] < 0 ? -x->strides[d] : x->strides[d];
    if (as != 0 && (best < 0 || as <= best)) {
      best = as;
      best_red = red;
    }
    if (red) {
      g->rshape[g->nr] = x->shape[d];
      g->rstride[g->nr++] = x->strides[d];
    } else {
      g->kshape[g->nk] = x->shape[d];
      g->kstride[g->nk++] = x->strides[d];
    }
  }
  merge(&g->nk, g->kshape, g->kstride);
  merge(&g->nr, g->rshape, g->rstride);
  if (g->nk == 0) {
    g->nk = 1;
    g->kshape[0] = 1;
    g->kstride[0] = 0;
  }
  if (g->nr == 0) {
    g->rshape[0] = 1;
    g->rstride[0] = 0;
  }
  if (g->n_out == 1) return 1;
  if (g->nr == 0) return 0;
  return best_red;
}

template <typename T, typename SAcc>
static int reduce_t(int kind, const pd_cuda_tensor *x, unsigned mask, void *out, int odt) {
  RedGeom g;
  const int rows = make_geom(x, mask, &g);
  const T *p = (const T *)x->data;
  switch (kind) {
    case PD_CU_RED_SUM: return run_red(p, g, rows, out, odt, SumOp<T, SAcc>(), "sum");
    case PD_CU_RED_PROD: return run_red(p, g, rows, out, odt, ProdOp<T, SAcc>(), "prod");
    case PD_CU_RED_MEAN:
      if constexpr (std::numeric_limits<SAcc>::has_quiet_NaN) {
        MeanOp<T, SAcc> op;  // CPU: acc *= (ACC)(1.0 / red); an empty reduction gives NaN
        op.k = g.R ? (SAcc)(1.0 / (double)g.R) : (SAcc)NAN;
        return run_red(p, g, rows, out, odt, op, "mean");
      }
      break;
    case PD_CU_RED_ALL: return run_red(p, g, rows, out, odt, AllOp<T>(), "all");
    case PD_CU_RED_ANY: return run_red(p, g, rows, out, odt, AnyOp<T>(), "any");
    default: break;
  }
  return 1;  // not handled here
}

template <typename T, typename MAcc>
static int reduce_minmax(int kind, const pd_cuda_tensor *x, unsigned mask, void *out, int odt) {
  RedGeom g;
  const int rows = make_geom(x, mask, &g);
  const T *p = (const T *)x->data;
  if (kind == PD_CU_RED_MAX) return run_red(p, g, rows, out, odt, MaxOp<T, MAcc>(), "max");
  return run_red(p, g, rows, out, odt, MinOp<T, MAcc>(), "min");
}

template <typename T>
static int reduce_lse(const pd_cuda_tensor *x, unsigned mask, void *out, int odt) {
  RedGeom g;
  const int rows = make_geom(x, mask, &g);
  if (g.n_out == 0) return 0;
  const T *p = (const T *)x->data;
  int dev;
  double *c = (double *)dev_alloc((size_t)g.n_out * sizeof(double), &dev);
  if (!c) return -1;
  int rc = run_red(p, g, rows, c, PD_CU_FLOAT64, LseMaxOp<T>(), "logsumexp");
  if (rc == 0) {
    LseOp<T> op;
    op.c = c;
    rc = run_red(p, g, rows, out, odt, op, "logsumexp");
  }
  dev_free(dev, c);
  return rc;
}


template <typename T>
static int reduce_arg(int kind, const pd_cuda_tensor *x, unsigned mask, void *out, int odt) {
  RedGeom g;
  const int rows = make_geom(x, mask, &g);
  typedef typename ctype<T>::type C0;
  typedef typename std::conditional<std::is_integral<T>::value, T, C0>::type C;
  const T *p = (const T *)x->data;
  if (kind == PD_CU_RED_ARGMAX) return run_red(p, g, rows, out, odt, ArgOp<T, C, 1>(), "argmax");
  return run_red(p, g, rows, out, odt, ArgOp<T, C, 0>(), "argmin");
}
template <typename T>
static int reduce_mr(int kind, const pd_cuda_tensor *x, unsigned mask, void *out, int odt, double param) {
  RedGeom g;
  const int rows = make_geom(x, mask, &g);
  if (g.n_out == 0) return 0;
  const T *p = (const T *)x->data;
  if (kind == PD_CU_RED_VAR || kind == PD_CU_RED_STD) {
    int dev;
    double *c = (double *)dev_alloc((size_t)g.n_out * sizeof(double), &dev);
    if (!c) return -1;
    DSumOp<T> m;
    m.k = (double)g.R;
    int rc = run_red(p, g, rows, c, PD_CU_FLOAT64, m, "var");
    if (rc == 0) {
      VarOp<T> op;
      op.c = c;
      op.den = (double)g.R - (param != 0 ? 1.0 : 0.0);
      op.sq = kind == PD_CU_RED_STD;
      rc = run_red(p, g, rows, out, odt, op, kind == PD_CU_RED_STD ? "std" : "var");
    }
    dev_free(dev, c);
    return rc;
  }
  PNormOp<T> op;
  op.p = param;
  if (kind == PD_CU_RED_FROBENIUS) op.mode = 2;
  else if (isinf(param)) op.mode = param > 0 ? 4 : 5;
  else if (param == 0) op.mode = 0;
  else if (param == 1) op.mode = 1;
  else if (param == 2) op.mode = 2;
  else op.mode = 3;
  return run_red(p, g, rows, out, odt, op, kind == PD_CU_RED_FROBENIUS ? "frobenius_norm" : "p_norm");
}

} // namespace pdnn

using namespace pdnn;

extern "C" int pd_cunn_reduce(int kind, const pd_cuda_tensor *x, unsigned mask, void *out, int odt) {
  int rc = 1;
  const int dt = x->dtype;
  if (kind == PD_CU_RED_MAX || kind == PD_CU_RED_MIN) {
    switch (dt) {
      case PD_CU_UINT8: rc = reduce_minmax<uint8_t, uint8_t>(kind, x, mask, out, odt); break;
      case PD_CU_INT8: rc = reduce_minmax<int8_t, int8_t>(kind, x, mask, out, odt); break;
      case PD_CU_INT16: rc = reduce_minmax<int16_t, int>(kind, x, mask, out, odt); break;
      case PD_CU_INT32: rc = reduce_minmax<int32_t, int32_t>(kind, x, mask, out, odt); break;
      case PD_CU_INT64: rc = reduce_minmax<int64_t, int64_t>(kind, x, mask, out, odt); break;
      case PD_CU_FLOAT16: rc = reduce_minmax<__half, float>(kind, x, mask, out, odt); break;
      case PD_CU_BFLOAT16: rc = reduce_minmax<__nv_bfloat16, float>(kind, x, mask, out, odt); break;
      case PD_CU_FLOAT32: rc = reduce_minmax<float, float>(kind, x, mask, out, odt); break;
      case PD_CU_FLOAT64: rc = reduce_minmax<double, double>(kind, x, mask, out, odt); break;
      default: break;
    }
  } else if (kind == PD_CU_RED_LOGSUMEXP) {
    switch (dt) {
      case PD_CU_FLOAT16: rc = reduce_lse<__half>(x, mask, out, odt); break;
      case PD_CU_BFLOAT16: rc = reduce_lse<__nv_bfloat16>(x, mask, out, odt); break;
      case PD_CU_FLOAT32: rc = reduce_lse<float>(x, mask, out, odt); break;
      case PD_CU_FLOAT64: rc = reduce_lse<double>(x, mask, out, odt); break;
      default: break;
    }
  } else {
    switch (dt) {
      case PD_CU_BOOL: rc = reduce_t<uint8_t, long long>(kind, x, mask, out, odt); break;
      case PD_CU_UINT8: rc = reduce_t<uint8_t, long long>(kind, x, mask, out, odt); break;
      case PD_CU_INT8: rc = reduce_t<int8_t, long long>(kind, x, mask, out, odt); break;
      case PD_CU_INT16: rc = reduce_t<int16_t, long long>(kind, x, mask, out, odt); break;
      case PD_CU_INT32: rc = reduce_t<int32_t, long long>(kind, x, mask, out, odt); break;
      case PD_CU_INT64: rc = reduce_t<int64_t, long long>(kind, x, mask, out, odt); break;
      case PD_CU_FLOAT16: rc = reduce_t<__half, float>(kind, x, mask, out, odt); break;
      case PD_CU_BFLOAT16: rc = reduce_t<__nv_bfloat16, float>(kind, x, mask, out, odt); break;
      case PD_CU_FLOAT32: rc = reduce_t<float, float>(kind, x, mask, out, odt); break;
      case PD_CU_FLOAT64: rc = reduce_t<double, double>(kind, x, mask, out, odt); break;
      default: break;
    }
  }
  if (rc == 1) {
    pd_cu_set_error(PD_CU_ERR_UNSUPPORTED, "reduce kind %d is not implemented on GPU for dtype %d", kind, dt);
    return -1;
  }
  return rc;
}

extern "C" int pd_cunn_reduce2(int kind, const pd_cuda_tensor *x, unsigned mask, void *out, int odt, double param) {
  if (kind < PD_CU_RED_VAR) return pd_cunn_reduce(kind, x, mask, out, odt);
  int rc = 1;
  const int dt = x->dtype;
  if (kind == PD_CU_RED_ARGMAX || kind == PD_CU_RED_ARGMIN) {
    switch (dt) {
      case PD_CU_UINT8: rc = reduce_arg<uint8_t>(kind, x, mask, out, odt); break;
      case PD_CU_INT8: rc = reduce_arg<int8_t>(kind, x, mask, out, odt); break;
      case PD_CU_INT16: rc = reduce_arg<int16_t>(kind, x, mask, out, odt); break;
      case PD_CU_INT32: rc = reduce_arg<int32_t>(kind, x, mask, out, odt); break;
      case PD_CU_INT64: rc = reduce_arg<int64_t>(kind, x, mask, out, odt); break;
      case PD_CU_FLOAT16: rc = reduce_arg<__half>(kind, x, mask, out, odt); break;
      case PD_CU_BFLOAT16: rc = reduce_arg<__nv_bfloat16>(kind, x, mask, out, odt); break;
      case PD_CU_FLOAT32: rc = reduce_arg<float>(kind, x, mask, out, odt); break;
      case PD_CU_FLOAT64: rc = reduce_arg<double>(kind, x, mask, out, odt); break;
      default: break;
    }
  } else {
    switch (dt) {
      case PD_CU_FLOAT16: rc = reduce_mr<__half>(kind, x, mask, out, odt, param); break;
      case PD_CU_BFLOAT16: rc = reduce_mr<__nv_bfloat16>(kind, x, mask, out, odt, param); break;
      case PD_CU_FLOAT32: rc = reduce_mr<float>(kind, x, mask, out, odt, param); break;
      case PD_CU_FLOAT64: rc = reduce_mr<double>(kind, x, mask, out, odt, param); break;
      default: break;
    }
  }
  if (rc == 1) {
    pd_cu_set_error(PD_CU_ERR_UNSUPPORTED, "reduce kind %d is not implemented on GPU for dtype %d", kind, dt);
    return -1;
  }
  return rc;
}
