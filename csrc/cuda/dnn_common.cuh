// Shared by the 'dnn' family's .cu files (dnn.cu, dnn_pool.cu): stream, errors, launch sizes,
// element loads / stores in float (or double) for the four float dtypes.
#ifndef PD_DNN_COMMON_CUH
#define PD_DNN_COMMON_CUH
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>
#include "pd_cuda_dnn.h"
#include "rt_internal.h"

namespace pddnn {

constexpr int kThreads = 256;

inline cudaStream_t stream() { return (cudaStream_t)pd_cu_current_stream(); }

inline int launch_check(const char *what) {
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    pd_cu_set_error(PD_CU_ERR_LAUNCH, "%s: %s", what, cudaGetErrorString(e));
    return -1;
  }
  return 0;
}

inline unsigned grid_for(int64_t n) {
  int64_t b = (n + kThreads - 1) / kThreads;
  const int64_t cap = 65535LL * 64; // grid-stride loops cover the rest
  return (unsigned)(b < 1 ? 1 : (b > cap ? cap : b));
}

inline size_t dtype_size(int dtype) {
  switch (dtype) {
    case PD_CU_FLOAT16: case PD_CU_BFLOAT16: return 2;
    case PD_CU_FLOAT32: return 4;
    case PD_CU_FLOAT64: return 8;
    default: return 0;
  }
}

// The compute type of a storage type: float for the 16-bit floats and float, double for double.
template <typename T> struct acc_of { typedef float type; };
template <> struct acc_of<double> { typedef double type; };

// host and device (the pooling element functions are also checked on the host: tests/cuda/dnn_pool_host_check.cu)
#define PD_HD __host__ __device__ __forceinline__
PD_HD float to_acc(__half v) { return __half2float(v); }
PD_HD float to_acc(__nv_bfloat16 v) { return __bfloat162float(v); }
PD_HD float to_acc(float v) { return v; }
PD_HD double to_acc(double v) { return v; }
template <typename T> PD_HD T from_acc(float v);
template <> PD_HD __half from_acc<__half>(float v) { return __float2half_rn(v); }
template <> PD_HD __nv_bfloat16 from_acc<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <> PD_HD float from_acc<float>(float v) { return v; }
template <typename T> PD_HD T from_acc(double v);
template <> PD_HD double from_acc<double>(double v) { return v; }

// Round-to-nearest products / sums that nvcc never contracts into an FMA (the CPU build is ISO C
// without contraction).
#ifdef __CUDA_ARCH__
PD_HD float mul_rn(float a, float b) { return __fmul_rn(a, b); }
PD_HD double mul_rn(double a, double b) { return __dmul_rn(a, b); }
PD_HD float add_rn(float a, float b) { return __fadd_rn(a, b); }
PD_HD double add_rn(double a, double b) { return __dadd_rn(a, b); }
#else
PD_HD float mul_rn(float a, float b) { return a * b; }
PD_HD double mul_rn(double a, double b) { return a * b; }
PD_HD float add_rn(float a, float b) { return a + b; }
PD_HD double add_rn(double a, double b) { return a + b; }
#endif

} // namespace pddnn
#endif
