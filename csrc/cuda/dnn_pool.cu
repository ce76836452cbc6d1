// Pooling of the 'dnn' family (pd_cuda_dnn.h) on our own kernels, not cuDNN's: the CPU kernel
// (csrc/kernels/cpu/pool.c) is the reference and cuDNN's pooling cannot express all of it
// (asymmetric paddings, ceil_mode's clipped windows whose non-exclusive count stops at the right
// padding, adaptive windows, empty windows giving 0 and mask -1, the first maximum of a window as
// its argmax, a NaN taking the maximum). Each kernel computes what pool.c computes, in the same
// order of operations: the average's sum runs over the window in d, h, w order and is multiplied
// by 1 / count; the backward gathers, for each input element, the contributions of the windows
// containing it in increasing output order (pool.c's scatter order), so float32 / float64 results
// are the CPU's bit for bit (pool.c's whole-plane average sums in 8 lanes: the last bits may
// differ there). 16-bit floats compute in float and round once.
#include "dnn_common.cuh"

using namespace pddnn;

namespace {

typedef pd_cuda_pool_geom PG;

__device__ __forceinline__ void win(const PG &g, int i, int64_t o, int64_t &lo, int64_t &hi, int64_t &ext) {
  if (g.adaptive) {
    lo = o * g.in[i] / g.out[i];
    hi = ((o + 1) * g.in[i] + g.out[i] - 1) / g.out[i];
    ext = hi - lo;
    return;
  }
  int64_t s = o * g.s[i] - g.pl[i], e = s + g.k[i];
  if (e > g.in[i] + g.pr[i]) e = g.in[i] + g.pr[i];
  ext = e - s;
  lo = s < 0 ? 0 : s;
  hi = e > g.in[i] ? g.in[i] : e;
}

// the first maximum of window [d0,d1) x [h0,h1) x [w0,w1) of plane xb (element ii at xb[ii * step])
template <typename T>
__device__ __forceinline__ int64_t argmax_win(const PG &g, const T *xb, int64_t step, int64_t d0, int64_t d1,
                                              int64_t h0, int64_t h1, int64_t w0, int64_t w1,
                                              typename acc_of<T>::type &best) {
  typedef typename acc_of<T>::type A;
  best = A(0);
  int64_t bi = -1;
  for (int64_t d = d0; d < d1; d++)
    for (int64_t h = h0; h < h1; h++)
      for (int64_t w = w0; w < w1; w++) {
        const int64_t ii = (d * g.in[1] + h) * g.in[2] + w;
        const A v = to_acc(xb[ii * step]);
        if (bi < 0 || v > best || (v != v && best == best)) {
          best = v;
          bi = ii;
        }
      }
  return bi;
}

template <typename T>
__global__ void pool_fwd_kernel(PG g, const T *__restrict__ x, T *__restrict__ y, int32_t *__restrict__ mask,
                                int64_t n) {
  typedef typename acc_of<T>::type A;
  const int64_t IS = g.in[0] * g.in[1] * g.in[2], OS = g.out[0] * g.out[1] * g.out[2];
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    int64_t c, o, nn;
    if (g.nhwc) {
      c = i % g.C;
      o = (i / g.C) % OS;
      nn = i / (g.C * OS);
    } else {
      o = i % OS;
      c = (i / OS) % g.C;
      nn = i / (OS * g.C);
    }
    const int64_t ow = o % g.out[2], oh = (o / g.out[2]) % g.out[1], od = o / (g.out[2] * g.out[1]);
    int64_t d0, d1, h0, h1, w0, w1, ed, eh, ew;
    win(g, 0, od, d0, d1, ed);
    win(g, 1, oh, h0, h1, eh);
    win(g, 2, ow, w0, w1, ew);
    const T *xb = g.nhwc ? x + nn * IS * g.C + c : x + (nn * g.C + c) * IS;
    const int64_t step = g.nhwc ? g.C : 1;
    if (g.is_max) {
      A best;
      const int64_t bi = argmax_win(g, xb, step, d0, d1, h0, h1, w0, w1, best);
      y[i] = from_acc<T>(bi < 0 ? A(0) : best);
      if (mask) mask[i] = bi < 0 ? -1 : (int32_t)bi;
    } else {
      const int64_t cnt = (g.exclusive || g.adaptive) ? (d1 - d0) * (h1 - h0) * (w1 - w0) : ed * eh * ew;
      const A inv = cnt > 0 ? A(1) / (A)cnt : A(0);
      A acc = A(0);
      for (int64_t d = d0; d < d1; d++)
        for (int64_t h = h0; h < h1; h++)
          for (int64_t w = w0; w < w1; w++) acc = add_rn(acc, to_acc(xb[((d * g.in[1] + h) * g.in[2] + w) * step]));
      y[i] = from_acc<T>(mul_rn(acc, inv));
    }
  }
}

// outputs whose window may contain input position p along dim i: [lo, hi] (checked by win)
__device__ __forceinline__ void out_range(const PG &g, int i, int64_t p, int64_t &lo, int64_t &hi) {
  if (g.adaptive) {
    lo = p * g.out[i] / g.in[i] - 1;
    hi = ((p + 1) * g.out[i] + g.in[i] - 1) / g.in[i];
  } else {
    const int64_t a = p + g.pl[i] - g.k[i] + 1;
    lo = a <= 0 ? 0 : (a + g.s[i] - 1) / g.s[i];
    hi = (p + g.pl[i]) / g.s[i];
  }
  if (lo < 0) lo = 0;
  if (hi > g.out[i] - 1) hi = g.out[i] - 1;
}

template <typename T>
__global__ void pool_bwd_kernel(PG g, const T *__restrict__ x, const T *__restrict__ dout, T *__restrict__ dx,
                                int64_t n) {
  typedef typename acc_of<T>::type A;
  const int64_t IS = g.in[0] * g.in[1] * g.in[2], OS = g.out[0] * g.out[1] * g.out[2];
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    int64_t c, ii, nn;
    if (g.nhwc) {
      c = i % g.C;
      ii = (i / g.C) % IS;
      nn = i / (g.C * IS);
    } else {
      ii = i % IS;
      c = (i / IS) % g.C;
      nn = i / (IS * g.C);
    }
    const int64_t pw = ii % g.in[2], ph = (ii / g.in[2]) % g.in[1], pd = ii / (g.in[2] * g.in[1]);
    const T *xb = g.nhwc ? x + nn * IS * g.C + c : x + (nn * g.C + c) * IS;
    const T *db = g.nhwc ? dout + nn * OS * g.C + c : dout + (nn * g.C + c) * OS;
    const int64_t step = g.nhwc ? g.C : 1;
    int64_t a0, b0, a1, b1, a2, b2;
    out_range(g, 0, pd, a0, b0);
    out_range(g, 1, ph, a1, b1);
    out_range(g, 2, pw, a2, b2);
    A acc = A(0);
    for (int64_t od = a0; od <= b0; od++) {
      int64_t d0, d1, ed;
      win(g, 0, od, d0, d1, ed);
      if (pd < d0 || pd >= d1) continue;
      for (int64_t oh = a1; oh <= b1; oh++) {
        int64_t h0, h1, eh;
        win(g, 1, oh, h0, h1, eh);
        if (ph < h0 || ph >= h1) continue;
        for (int64_t ow = a2; ow <= b2; ow++) {
          int64_t w0, w1, ew;
          win(g, 2, ow, w0, w1, ew);
          if (pw < w0 || pw >= w1) continue;
          const int64_t oi = (od * g.out[1] + oh) * g.out[2] + ow;
          const A dv = to_acc(db[oi * step]);
          if (g.is_max) {
            A best;
            if (argmax_win(g, xb, step, d0, d1, h0, h1, w0, w1, best) == ii) acc = add_rn(acc, dv);
          } else {
            const int64_t cnt = (g.exclusive || g.adaptive) ? (d1 - d0) * (h1 - h0) * (w1 - w0) : ed * eh * ew;
            const A inv = cnt > 0 ? A(1) / (A)cnt : A(0);
            acc = add_rn(acc, mul_rn(dv, inv));
          }
        }
      }
    }
    dx[i] = from_acc<T>(acc);
  }
}

// per plane, in index order (pool.c's scat): unpool writes / accumulates into the zeroed big plane
template <typename T, typename I>
__global__ void unpool_kernel(int64_t P, int64_t SS, int64_t BS, const T *__restrict__ small, const I *__restrict__ idx,
                              T *__restrict__ big, int accumulate) {
  for (int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; p < P; p += (int64_t)gridDim.x * blockDim.x) {
    T *b = big + p * BS;
    for (int64_t j = 0; j < SS; j++) {
      const int64_t k = (int64_t)idx[p * SS + j];
      if (k < 0 || k >= BS) continue;
      b[k] = accumulate ? from_acc<T>(add_rn(to_acc(b[k]), to_acc(small[p * SS + j]))) : small[p * SS + j];
    }
  }
}

template <typename T, typename I>
__global__ void gather_kernel(int64_t P, int64_t SS, int64_t BS, const T *__restrict__ big, const I *__restrict__ idx,
                              T *__restrict__ small) {
  const int64_t n = P * SS;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    const int64_t p = i / SS, k = (int64_t)idx[i];
    small[i] = (k >= 0 && k < BS) ? big[p * BS + k] : T(0.0f);
  }
}

int bad_dtype(const char *what, int dtype) {
  pd_cu_set_error(PD_CU_ERR_UNSUPPORTED, "%s: dtype code %d is not supported on GPU", what, dtype);
  return -1;
}

template <typename F>
int by_dtype(int dtype, const char *what, F f) {
  switch (dtype) {
    case PD_CU_FLOAT16: return f((__half *)0);
    case PD_CU_BFLOAT16: return f((__nv_bfloat16 *)0);
    case PD_CU_FLOAT32: return f((float *)0);
    case PD_CU_FLOAT64: return f((double *)0);
    default: return bad_dtype(what, dtype);
  }
}

int check_geom(const PG *g, const char *what) {
  for (int i = 0; i < 3; i++)
    if (g->in[i] < 0 || g->out[i] < 0 || (!g->adaptive && (g->s[i] < 1 || g->k[i] < 1))) {
      pd_cu_set_error(PD_CU_ERR_INVALID, "%s: bad pooling geometry in dim %d", what, i);
      return -1;
    }
  return 0;
}

} // namespace

extern "C" int pd_dnn_pool_fwd(int dtype, const pd_cuda_pool_geom *g, const void *x, void *y, int32_t *mask) {
  if (check_geom(g, "pool2d")) return -1;
  const int64_t n = g->N * g->C * g->out[0] * g->out[1] * g->out[2];
  if (n == 0) return 0;
  return by_dtype(dtype, "pool2d", [&](auto z) {
    typedef typename std::remove_pointer<decltype(z)>::type T;
    pool_fwd_kernel<T><<<grid_for(n), kThreads, 0, stream()>>>(*g, (const T *)x, (T *)y, mask, n);
    return launch_check("pool2d");
  });
}

extern "C" int pd_dnn_pool_bwd(int dtype, const pd_cuda_pool_geom *g, const void *x, const void *dout, void *dx) {
  if (check_geom(g, "pool2d_grad")) return -1;
  const int64_t n = g->N * g->C * g->in[0] * g->in[1] * g->in[2];
  if (n == 0) return 0;
  return by_dtype(dtype, "pool2d_grad", [&](auto z) {
    typedef typename std::remove_pointer<decltype(z)>::type T;
    pool_bwd_kernel<T><<<grid_for(n), kThreads, 0, stream()>>>(*g, (const T *)x, (const T *)dout, (T *)dx, n);
    return launch_check("pool2d_grad");
  });
}

extern "C" int pd_dnn_unpool(int dtype, int64_t P, int64_t SS, int64_t BS, const void *small, const void *idx,
                             int idx_dtype, void *big, int accumulate) {
  if (P * BS == 0) return 0;
  const size_t esz = dtype_size(dtype);
  if (esz == 0) return bad_dtype("unpool", dtype);
  cudaError_t e = cudaMemsetAsync(big, 0, (size_t)(P * BS) * esz, stream());
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    pd_cu_set_error(PD_CU_ERR_LAUNCH, "unpool: cudaMemsetAsync: %s", cudaGetErrorString(e));
    return -1;
  }
  if (SS == 0) return 0;
  return by_dtype(dtype, "unpool", [&](auto z) {
    typedef typename std::remove_pointer<decltype(z)>::type T;
    if (idx_dtype == PD_CU_INT32)
      unpool_kernel<T, int32_t><<<grid_for(P), kThreads, 0, stream()>>>(P, SS, BS, (const T *)small,
                                                                        (const int32_t *)idx, (T *)big, accumulate);
    else
      unpool_kernel<T, int64_t><<<grid_for(P), kThreads, 0, stream()>>>(P, SS, BS, (const T *)small,
                                                                        (const int64_t *)idx, (T *)big, accumulate);
    return launch_check("unpool");
  });
}

extern "C" int pd_dnn_pool_gather(int dtype, int64_t P, int64_t SS, int64_t BS, const void *big, const void *idx,
                                  int idx_dtype, void *small) {
  const int64_t n = P * SS;
  if (n == 0) return 0;
  return by_dtype(dtype, "pool_gather", [&](auto z) {
    typedef typename std::remove_pointer<decltype(z)>::type T;
    if (idx_dtype == PD_CU_INT32)
      gather_kernel<T, int32_t><<<grid_for(n), kThreads, 0, stream()>>>(P, SS, BS, (const T *)big,
                                                                        (const int32_t *)idx, (T *)small);
    else
      gather_kernel<T, int64_t><<<grid_for(n), kThreads, 0, stream()>>>(P, SS, BS, (const T *)big,
                                                                        (const int64_t *)idx, (T *)small);
    return launch_check("pool_gather");
  });
}
