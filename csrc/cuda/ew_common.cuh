// The elementwise family's one kernel template per arity (pd_cuda_elementwise.h).
// Shared by ew_unary.cu, ew_binary.cu, ew_copy.cu; internal to libpaddle_c_cuda.so.
//
//   ld(v)       storage element -> compute value (bool -> int 0/1, float16/bfloat16 -> float,
//               bool/uint8/int8/int16 as int: the CPU kernels' compute types, pd_kernel_util.h)
//   st_op<O>    compute value -> storage as the CPU kernels store (PD_ST_*: 16-bit floats through
//               float; float -> integer as x86's cvtt: NaN / out of range -> INT32_MIN (then
//               wrapped to the width) or INT64_MIN)
//   st_cast<O>  the same for the cast loops (cast_loops.c): float64 / int64 -> float16 /
//               bfloat16 round once from double
//   functor f   __device__ R operator()(C...) on compute values; R == O is stored as is
//   k{1,2,3}_contig<VEC>  all operands contiguous: VEC elements per 16-byte vector access
//   k{1,2,3}_strided<IdxT> any strides: the linear index decomposed over the output's dims
//               (dims coalesced on the host first), 64-bit element offsets; IdxT = uint32 for
//               n < 2^31, else int64
// Both are grid-stride loops of 256 threads. The host side does no allocation and no sync.
#ifndef PD_EW_COMMON_CUH
#define PD_EW_COMMON_CUH
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>
#include <type_traits>
#include "pd_cuda_elementwise.h"

extern "C" void pd_cu_set_error(int code, const char *fmt, ...);
extern "C" void *pd_cu_current_stream(void);

namespace pdew {

struct pbool { uint8_t v; }; // bool storage (any nonzero byte reads as true)

template <class T> struct Tr;
template <> struct Tr<pbool> { using C = int; };
template <> struct Tr<uint8_t> { using C = int; };
template <> struct Tr<int8_t> { using C = int; };
template <> struct Tr<int16_t> { using C = int; };
template <> struct Tr<int32_t> { using C = int32_t; };
template <> struct Tr<int64_t> { using C = int64_t; };
template <> struct Tr<__half> { using C = float; };
template <> struct Tr<__nv_bfloat16> { using C = float; };
template <> struct Tr<float> { using C = float; };
template <> struct Tr<double> { using C = double; };
// raw element bits (same-dtype copies, where, fills)
template <> struct Tr<uint16_t> { using C = uint16_t; };
template <> struct Tr<uint32_t> { using C = uint32_t; };
template <> struct Tr<uint64_t> { using C = uint64_t; };

template <class T> constexpr bool is_fp = std::is_same<T, __half>::value || std::is_same<T, __nv_bfloat16>::value ||
                                          std::is_same<T, float>::value || std::is_same<T, double>::value;
template <class T> constexpr bool is_bool = std::is_same<T, pbool>::value;
template <class T> constexpr bool is_int = std::is_same<T, uint8_t>::value || std::is_same<T, int8_t>::value ||
                                           std::is_same<T, int16_t>::value || std::is_same<T, int32_t>::value ||
                                           std::is_same<T, int64_t>::value;

__device__ __forceinline__ int ld(pbool v) { return v.v != 0; }
__device__ __forceinline__ float ld(__half v) { return __half2float(v); }
__device__ __forceinline__ float ld(__nv_bfloat16 v) { return __bfloat162float(v); }
template <class T> __device__ __forceinline__ typename Tr<T>::C ld(T v) { return (typename Tr<T>::C)v; }

// x86 cvttss2si / cvttsd2si: the CPU build's float -> integer conversion
template <class O, class V> __device__ __forceinline__ O f2i(V v) {
  if constexpr (sizeof(O) == 8) {
    const double d = (double)v;
    return (d >= -9223372036854775808.0 && d < 9223372036854775808.0) ? (O)(long long)d : (O)INT64_MIN;
  } else if constexpr (std::is_same<V, float>::value) {
    const int32_t r = (v >= -2147483648.0f && v < 2147483648.0f) ? (int32_t)v : INT32_MIN;
    return (O)r;
  } else {
    const double d = (double)v;
    const int32_t r = (d > -2147483649.0 && d < 2147483648.0) ? (int32_t)d : INT32_MIN;
    return (O)r;
  }
}

template <class O, class V> __device__ __forceinline__ O st_op(V v) {
  if constexpr (is_bool<O>) {
    pbool b;
    b.v = (uint8_t)(v != 0);
    return b;
  } else if constexpr (std::is_same<O, __half>::value) {
    return __float2half_rn((float)v);
  } else if constexpr (std::is_same<O, __nv_bfloat16>::value) {
    return __float2bfloat16_rn((float)v);
  } else if constexpr (std::is_integral<O>::value && std::is_floating_point<V>::value) {
    return f2i<O>(v);
  } else {
    return (O)v;
  }
}

template <class O, class V> __device__ __forceinline__ O st_cast(V v) {
  if constexpr (std::is_same<O, __half>::value && (std::is_same<V, double>::value || std::is_same<V, int64_t>::value)) {
    return __double2half((double)v);
  } else if constexpr (std::is_same<O, __nv_bfloat16>::value &&
                       (std::is_same<V, double>::value || std::is_same<V, int64_t>::value)) {
    return __double2bfloat16((double)v);
  } else {
    return st_op<O>(v);
  }
}

template <class O, class R> __device__ __forceinline__ O put(R r) {
  if constexpr (std::is_same<O, R>::value) return r;
  else return st_op<O>(r);
}

template <class T, int N> struct alignas(sizeof(T) * N) Vec { T v[N]; };

constexpr int kThreads = 256;

struct Geo {
  int ndim;
  int64_t shape[PD_CUDA_MAX_DIMS];
  int64_t st[4][PD_CUDA_MAX_DIMS]; // operand 0 = the output
};

template <int N, class IdxT> __device__ __forceinline__ void offsets(const Geo &g, IdxT idx, int64_t *off) {
#pragma unroll
  for (int k = 0; k < N; k++) off[k] = 0;
  for (int d = g.ndim - 1; d >= 1; --d) {
    const IdxT s = (IdxT)g.shape[d];
    const IdxT q = idx / s, r = idx - q * s;
    idx = q;
#pragma unroll
    for (int k = 0; k < N; k++) off[k] += (int64_t)r * g.st[k][d];
  }
#pragma unroll
  for (int k = 0; k < N; k++) off[k] += (int64_t)idx * g.st[k][0];
}

__device__ __forceinline__ int64_t gtid() { return (int64_t)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ int64_t gstride() { return (int64_t)gridDim.x * blockDim.x; }

// ---- arity 1 ----
template <class O, class A, class F, int VEC>
__global__ void __launch_bounds__(kThreads) k1_contig(O *o, const A *a, int64_t n, F f) {
  const int64_t nv = n / VEC;
  for (int64_t i = gtid(); i < nv; i += gstride()) {
    const Vec<A, VEC> va = reinterpret_cast<const Vec<A, VEC> *>(a)[i];
    Vec<O, VEC> vo;
#pragma unroll
    for (int j = 0; j < VEC; j++) vo.v[j] = put<O>(f(ld(va.v[j])));
    reinterpret_cast<Vec<O, VEC> *>(o)[i] = vo;
  }
  const int64_t t = nv * VEC + gtid();
  if (t < n) o[t] = put<O>(f(ld(a[t])));
}
template <class O, class A, class F, class IdxT>
__global__ void __launch_bounds__(kThreads) k1_strided(O *o, const A *a, Geo g, IdxT n, F f) {
  for (IdxT i = (IdxT)gtid(); i < n; i += (IdxT)gstride()) {
    int64_t off[2];
    offsets<2>(g, i, off);
    o[off[0]] = put<O>(f(ld(a[off[1]])));
  }
}

// ---- arity 2 ----
template <class O, class A, class B, class F, int VEC>
__global__ void __launch_bounds__(kThreads) k2_contig(O *o, const A *a,
                                                      const B *b, int64_t n, F f) {
  const int64_t nv = n / VEC;
  for (int64_t i = gtid(); i < nv; i += gstride()) {
    const Vec<A, VEC> va = reinterpret_cast<const Vec<A, VEC> *>(a)[i];
    const Vec<B, VEC> vb = reinterpret_cast<const Vec<B, VEC> *>(b)[i];
    Vec<O, VEC> vo;
#pragma unroll
    for (int j = 0; j < VEC; j++) vo.v[j] = put<O>(f(ld(va.v[j]), ld(vb.v[j])));
    reinterpret_cast<Vec<O, VEC> *>(o)[i] = vo;
  }
  const int64_t t = nv * VEC + gtid();
  if (t < n) o[t] = put<O>(f(ld(a[t]), ld(b[t])));
}
template <class O, class A, class B, class F, class IdxT>
__global__ void __launch_bounds__(kThreads) k2_strided(O *o, const A *a, const B *b, Geo g, IdxT n, F f) {
  for (IdxT i = (IdxT)gtid(); i < n; i += (IdxT)gstride()) {
    int64_t off[3];
    offsets<3>(g, i, off);
    o[off[0]] = put<O>(f(ld(a[off[1]]), ld(b[off[2]])));
  }
}

// ---- arity 3 ----
template <class O, class A, class B, class C, class F, int VEC>
__global__ void __launch_bounds__(kThreads) k3_contig(O *o, const A *a,
                                                      const B *b, const C *c,
                                                      int64_t n, F f) {
  const int64_t nv = n / VEC;
  for (int64_t i = gtid(); i < nv; i += gstride()) {
    const Vec<A, VEC> va = reinterpret_cast<const Vec<A, VEC> *>(a)[i];
    const Vec<B, VEC> vb = reinterpret_cast<const Vec<B, VEC> *>(b)[i];
    const Vec<C, VEC> vc = reinterpret_cast<const Vec<C, VEC> *>(c)[i];
    Vec<O, VEC> vo;
#pragma unroll
    for (int j = 0; j < VEC; j++) vo.v[j] = put<O>(f(ld(va.v[j]), ld(vb.v[j]), ld(vc.v[j])));
    reinterpret_cast<Vec<O, VEC> *>(o)[i] = vo;
  }
  const int64_t t = nv * VEC + gtid();
  if (t < n) o[t] = put<O>(f(ld(a[t]), ld(b[t]), ld(c[t])));
}
template <class O, class A, class B, class C, class F, class IdxT>
__global__ void __launch_bounds__(kThreads) k3_strided(O *o, const A *a, const B *b, const C *c, Geo g, IdxT n,
                                                       F f) {
  for (IdxT i = (IdxT)gtid(); i < n; i += (IdxT)gstride()) {
    int64_t off[4];
    offsets<4>(g, i, off);
    o[off[0]] = put<O>(f(ld(a[off[1]]), ld(b[off[2]]), ld(c[off[3]])));
  }
}

// ---- host side ----
// Number of blocks for `work` items: enough to fill the GPU, grid-stride beyond.
int grid_for(int64_t work);
// Reports a launch error (cudaGetLastError) as PD_CU_ERR_LAUNCH; 0 when none.
int check_launch(const char *what);
int fail(int code, const char *fmt, ...);
// Shapes: every operand must have out's shape (inputs broadcast already). Fills g with the
// coalesced geometry of nops operands (ops[0] = out); returns 1 when all are contiguous.
int make_geo(Geo *g, int nops, const pd_cuda_tensor *const *ops, const char *what, int *err);
static inline cudaStream_t stream() { return (cudaStream_t)pd_cu_current_stream(); }
static inline bool aligned(const void *p, size_t a) { return ((uintptr_t)p % a) == 0; }

template <class O, class A> constexpr int vec_for() {
  constexpr size_t m = sizeof(O) > sizeof(A) ? sizeof(O) : sizeof(A);
  return (int)(16 / m);
}
template <class O, class A, class B> constexpr int vec_for3() {
  constexpr size_t m0 = sizeof(O) > sizeof(A) ? sizeof(O) : sizeof(A);
  constexpr size_t m = m0 > sizeof(B) ? m0 : sizeof(B);
  return (int)(16 / m);
}
template <class O, class A, class B, class C> constexpr int vec_for4() {
  constexpr size_t m0 = sizeof(O) > sizeof(A) ? sizeof(O) : sizeof(A);
  constexpr size_t m1 = sizeof(B) > sizeof(C) ? sizeof(B) : sizeof(C);
  return (int)(16 / (m0 > m1 ? m0 : m1));
}

template <class O, class A, class F>
int launch1(const pd_cuda_tensor *o, const pd_cuda_tensor *a, F f, const char *what) {
  const int64_t n = o->numel;
  if (n <= 0) return 0;
  Geo g;
  const pd_cuda_tensor *ops[2] = {o, a};
  int err = 0;
  const int contig = make_geo(&g, 2, ops, what, &err);
  if (err) return -1;
  O *po = (O *)o->data;
  const A *pa = (const A *)a->data;
  constexpr int V = vec_for<O, A>();
  if (contig && aligned(po, sizeof(O) * V) && aligned(pa, sizeof(A) * V)) {
    k1_contig<O, A, F, V><<<grid_for((n + V - 1) / V), kThreads, 0, stream()>>>(po, pa, n, f);
  } else if (n < ((int64_t)1 << 31)) {
    k1_strided<O, A, F, uint32_t><<<grid_for(n), kThreads, 0, stream()>>>(po, pa, g, (uint32_t)n, f);
  } else {
    k1_strided<O, A, F, int64_t><<<grid_for(n), kThreads, 0, stream()>>>(po, pa, g, n, f);
  }
  return check_launch(what);
}

template <class O, class A, class B, class F>
int launch2(const pd_cuda_tensor *o, const pd_cuda_tensor *a, const pd_cuda_tensor *b, F f, const char *what) {
  const int64_t n = o->numel;
  if (n <= 0) return 0;
  Geo g;
  const pd_cuda_tensor *ops[3] = {o, a, b};
  int err = 0;
  const int contig = make_geo(&g, 3, ops, what, &err);
  if (err) return -1;
  O *po = (O *)o->data;
  const A *pa = (const A *)a->data;
  const B *pb = (const B *)b->data;
  constexpr int V = vec_for3<O, A, B>();
  if (contig && aligned(po, sizeof(O) * V) && aligned(pa, sizeof(A) * V) && aligned(pb, sizeof(B) * V)) {
    k2_contig<O, A, B, F, V><<<grid_for((n + V - 1) / V), kThreads, 0, stream()>>>(po, pa, pb, n, f);
  } else if (n < ((int64_t)1 << 31)) {
    k2_strided<O, A, B, F, uint32_t><<<grid_for(n), kThreads, 0, stream()>>>(po, pa, pb, g, (uint32_t)n, f);
  } else {
    k2_strided<O, A, B, F, int64_t><<<grid_for(n), kThreads, 0, stream()>>>(po, pa, pb, g, n, f);
  }
  return check_launch(what);
}

template <class O, class A, class B, class C, class F>
int launch3(const pd_cuda_tensor *o, const pd_cuda_tensor *a, const pd_cuda_tensor *b, const pd_cuda_tensor *c, F f,
            const char *what) {
  const int64_t n = o->numel;
  if (n <= 0) return 0;
  Geo g;
  const pd_cuda_tensor *ops[4] = {o, a, b, c};
  int err = 0;
  const int contig = make_geo(&g, 4, ops, what, &err);
  if (err) return -1;
  O *po = (O *)o->data;
  const A *pa = (const A *)a->data;
  const B *pb = (const B *)b->data;
  const C *pc = (const C *)c->data;
  constexpr int V = vec_for4<O, A, B, C>();
  if (contig && aligned(po, sizeof(O) * V) && aligned(pa, sizeof(A) * V) && aligned(pb, sizeof(B) * V) &&
      aligned(pc, sizeof(C) * V)) {
    k3_contig<O, A, B, C, F, V><<<grid_for((n + V - 1) / V), kThreads, 0, stream()>>>(po, pa, pb, pc, n, f);
  } else if (n < ((int64_t)1 << 31)) {
    k3_strided<O, A, B, C, F, uint32_t><<<grid_for(n), kThreads, 0, stream()>>>(po, pa, pb, pc, g, (uint32_t)n, f);
  } else {
    k3_strided<O, A, B, C, F, int64_t><<<grid_for(n), kThreads, 0, stream()>>>(po, pa, pb, pc, g, n, f);
  }
  return check_launch(what);
}

// Calls body.template operator()<T>() with T the storage type of dtype (real dtypes and bool);
// returns -2 for complex / unknown dtypes.
template <class Body> int dispatch_dtype(int dtype, Body &&body) {
  switch (dtype) {
    case PD_CU_BOOL: return body.template operator()<pbool>();
    case PD_CU_UINT8: return body.template operator()<uint8_t>();
    case PD_CU_INT8: return body.template operator()<int8_t>();
    case PD_CU_INT16: return body.template operator()<int16_t>();
    case PD_CU_INT32: return body.template operator()<int32_t>();
    case PD_CU_INT64: return body.template operator()<int64_t>();
    case PD_CU_FLOAT16: return body.template operator()<__half>();
    case PD_CU_BFLOAT16: return body.template operator()<__nv_bfloat16>();
    case PD_CU_FLOAT32: return body.template operator()<float>();
    case PD_CU_FLOAT64: return body.template operator()<double>();
    default: return -2;
  }
}

const char *dtype_name(int dtype);

} // namespace pdew
#endif
