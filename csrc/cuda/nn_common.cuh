// Shared by the 'nn' family's .cu files: error reporting (runtime.cu), the current stream, the
// dtype helpers.
#pragma once
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>
#include "pd_cuda_api.h"

extern "C" void pd_cu_set_error(int code, const char *fmt, ...);
extern "C" void *pd_cu_current_stream(void);

namespace pdnn {

static inline cudaStream_t stream() { return (cudaStream_t)pd_cu_current_stream(); }

// 0, or -1 with PD_CU_ERR_LAUNCH naming the launcher when the launch failed.
static inline int launch_check(const char *what) {
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    pd_cu_set_error(PD_CU_ERR_LAUNCH, "%s: kernel launch failed: %s", what, cudaGetErrorString(e));
    return -1;
  }
  return 0;
}

// float-like load / store for the storage types
template <typename T> struct io {
  static __device__ __forceinline__ float ld(T v) { return (float)v; }
};
__device__ __forceinline__ float to_f(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float to_f(float v) { return v; }
__device__ __forceinline__ double to_f(double v) { return v; }

// compute type: float for the 16-bit floats and float32, double for float64
template <typename T> struct ctype { typedef float type; };
template <> struct ctype<double> { typedef double type; };

template <typename T> __device__ __forceinline__ T from_c(float v);
template <> __device__ __forceinline__ float from_c<float>(float v) { return v; }
template <> __device__ __forceinline__ __half from_c<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 from_c<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <typename T> __device__ __forceinline__ T from_d(double v) { return (T)v; }

} // namespace pdnn
