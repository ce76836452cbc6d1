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
#include "dnn_pool.cuh"

using namespace pddnn;

namespace {

template <typename T>
__global__ void pool_fwd_kernel(PG g, const T *__restrict__ x, T *__restrict__ y, int32_t *__restrict__ mask,
                                int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    pool_fwd_at(g, x, i, y, mask);
}

template <typename T>
__global__ void pool_bwd_kernel(PG g, const T *__restrict__ x, const T *__restrict__ dout, T *__restrict__ dx,
                                int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    dx[i] = pool_bwd_at(g, x, dout, i);
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
