// The 'misc' family (pd_cuda_misc.h): dropout apply / backward, fused optimizer updates,
// embedding (+ deterministic backward), gather / index_select, strided copy (concat / stack /
// split), topk. The CPU kernels (csrc/kernels/cpu/) are the reference semantics; arithmetic that
// must round as the CPU's (the CPU build is ISO C11: no multiply-add contraction) goes through
// explicit round-to-nearest intrinsics (__fmul_rn / __fadd_rn / __dmul_rn ...), which nvcc never
// fuses into an FMA; division and sqrt are IEEE (no fast-math).
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>
#include "pd_cuda_misc.h"

extern "C" void pd_cu_set_error(int code, const char *fmt, ...);
extern "C" void *pd_cu_current_stream(void);

namespace {

constexpr int kThreads = 256;
typedef pd_cuda_tensor TV;

inline cudaStream_t stream() { return (cudaStream_t)pd_cu_current_stream(); }

int launch_check(const char *what) {
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    pd_cu_set_error(PD_CU_ERR_LAUNCH, "%s: %s", what, cudaGetErrorString(e));
    return -1;
  }
  return 0;
}
int bad(const char *fmt, const char *what) {
  pd_cu_set_error(PD_CU_ERR_INVALID, fmt, what);
  return -1;
}
int unsupported(const char *what, int dtype) {
  pd_cu_set_error(PD_CU_ERR_UNSUPPORTED, "%s: dtype code %d is not supported on GPU", what, dtype);
  return -1;
}

inline unsigned grid_for(int64_t n) {
  int64_t b = (n + kThreads - 1) / kThreads;
  if (b > 65535LL * 32) b = 65535LL * 32; // grid-stride loops cover the rest
  return (unsigned)(b < 1 ? 1 : b);
}

bool is_contig(const TV &t) {
  int64_t s = 1;
  for (int d = t.ndim - 1; d >= 0; d--) {
    if (t.shape[d] != 1 && t.strides[d] != s) return false;
    s *= t.shape[d];
  }
  return true;
}

// element offset of row-major linear index i in t
__device__ __forceinline__ int64_t off_of(const TV &t, int64_t i) {
  int64_t off = 0;
  for (int d = t.ndim - 1; d >= 0; d--) {
    int64_t s = t.shape[d];
    int64_t c = i % s;
    i /= s;
    off += c * t.strides[d];
  }
  return off;
}

// ---- float helpers: no contraction ----
__device__ __forceinline__ float mul(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ float add(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double add(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ float dv(float a, float b) { return __fdiv_rn(a, b); }
__device__ __forceinline__ double dv(double a, double b) { return __ddiv_rn(a, b); }

// The optimizer kernels of the CPU run with FTZ | DAZ set (pd_ftz_enter, issue 24): subnormal
// inputs read as zero and subnormal results become zero. Float: PTX's .ftz forms (sign-preserving
// flush of inputs and results); double has no .ftz form, so its results and inputs are flushed by
// hand. z(x) is the DAZ read of x.
__device__ __forceinline__ float z(float a) {
  float r;
  asm("mul.rn.ftz.f32 %0, %1, 0f3F800000;" : "=f"(r) : "f"(a));
  return r;
}
__device__ __forceinline__ double z(double a) { return fabs(a) < 2.2250738585072014e-308 ? copysign(0.0, a) : a; }
__device__ __forceinline__ float zmul(float a, float b) {
  float r;
  asm("mul.rn.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
__device__ __forceinline__ float zadd(float a, float b) {
  float r;
  asm("add.rn.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
__device__ __forceinline__ float zsub(float a, float b) {
  float r;
  asm("sub.rn.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
__device__ __forceinline__ float zdiv(float a, float b) {
  float r;
  asm("div.rn.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
__device__ __forceinline__ float zsqrt(float a) {
  float r;
  asm("sqrt.rn.ftz.f32 %0, %1;" : "=f"(r) : "f"(a));
  return r;
}
__device__ __forceinline__ double zmul(double a, double b) { return z(__dmul_rn(z(a), z(b))); }
__device__ __forceinline__ double zadd(double a, double b) { return z(__dadd_rn(z(a), z(b))); }
__device__ __forceinline__ double zsub(double a, double b) { return z(__dsub_rn(z(a), z(b))); }
__device__ __forceinline__ double zdiv(double a, double b) { return z(__ddiv_rn(z(a), z(b))); }
__device__ __forceinline__ double zsqrt(double a) { return z(__dsqrt_rn(z(a))); }

// storage <-> compute type
template <typename T> struct CT_ { typedef T type; };
template <> struct CT_<__half> { typedef float type; };
template <> struct CT_<__nv_bfloat16> { typedef float type; };
__device__ __forceinline__ float ld(__half v) { return __half2float(v); }
__device__ __forceinline__ float ld(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float ld(float v) { return v; }
__device__ __forceinline__ double ld(double v) { return v; }
template <typename T> __device__ __forceinline__ T st(float v);
template <> __device__ __forceinline__ __half st<__half>(float v) { return __float2half_rn(v); }
template <> __device__ __forceinline__ __nv_bfloat16 st<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <> __device__ __forceinline__ float st<float>(float v) { return v; }
template <typename T> __device__ __forceinline__ T st(double v);
template <> __device__ __forceinline__ double st<double>(double v) { return v; }

// a scalar tensor's value as double (pd_load_as_complex's real part / pd_load_as_double)
__device__ double ld_scalar(const void *p, int dt) {
  switch (dt) {
    case PD_CU_BOOL: case PD_CU_UINT8: return (double)*(const uint8_t *)p;
    case PD_CU_INT8: return (double)*(const int8_t *)p;
    case PD_CU_INT16: return (double)*(const int16_t *)p;
    case PD_CU_INT32: return (double)*(const int32_t *)p;
    case PD_CU_INT64: return (double)*(const int64_t *)p;
    case PD_CU_FLOAT16: return (double)__half2float(*(const __half *)p);
    case PD_CU_BFLOAT16: return (double)__bfloat162float(*(const __nv_bfloat16 *)p);
    case PD_CU_FLOAT32: case PD_CU_COMPLEX64: return (double)*(const float *)p;
    case PD_CU_FLOAT64: case PD_CU_COMPLEX128: return *(const double *)p;
  }
  return 0.0;
}
// pd_store_from_double for the float dtypes a pow tensor can have
__device__ void st_scalar(void *p, int dt, double v) {
  switch (dt) {
    case PD_CU_FLOAT16: *(__half *)p = __double2half(v); break;
    case PD_CU_BFLOAT16: *(__nv_bfloat16 *)p = __double2bfloat16(v); break;
    case PD_CU_FLOAT32: *(float *)p = (float)v; break;
    case PD_CU_FLOAT64: *(double *)p = v; break;
    default: break;
  }
}

bool float_dtype(int dt) {
  return dt == PD_CU_FLOAT16 || dt == PD_CU_BFLOAT16 || dt == PD_CU_FLOAT32 || dt == PD_CU_FLOAT64;
}

// =====================================================================================
// dropout
template <typename T>
__global__ void k_dropout_apply(TV x, const uint8_t *__restrict__ m, T *__restrict__ out, int64_t n,
                                typename CT_<T>::type keep, int up, int xc) {
  typedef typename CT_<T>::type C;
  const T *xd = (const T *)x.data;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    C v = ld(xd[xc ? i : off_of(x, i)]);
    C r = m[i] ? (up ? dv(v, keep) : v) : (C)0;
    out[i] = st<T>(r);
  }
}

template <typename T>
__global__ void k_dropout_grad(TV mk, TV g, TV dx, int64_t n, typename CT_<T>::type sc, int allc) {
  typedef typename CT_<T>::type C;
  const uint8_t *m = (const uint8_t *)mk.data;
  const T *gd = (const T *)g.data;
  T *o = (T *)dx.data;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    int64_t im = allc ? i : off_of(mk, i), ig = allc ? i : off_of(g, i), io = allc ? i : off_of(dx, i);
    C r = m[im] ? mul(ld(gd[ig]), sc) : (C)0;
    o[io] = st<T>(r);
  }
}

int dropout_apply(const TV *x, const TV *mask, const TV *out, double keep, int up) {
  int64_t n = out->numel;
  if (n == 0) return 0;
  if (x->dtype != out->dtype || x->numel != n || mask->numel != n || !is_contig(*mask) || !is_contig(*out))
    return bad("%s: expected x and out of one dtype and numel, contiguous mask and out", "dropout");
  int xc = is_contig(*x);
  const uint8_t *m = (const uint8_t *)mask->data;
  switch (out->dtype) {
    case PD_CU_FLOAT16: k_dropout_apply<__half><<<grid_for(n), kThreads, 0, stream()>>>(*x, m, (__half *)out->data, n, (float)keep, up, xc); break;
    case PD_CU_BFLOAT16: k_dropout_apply<__nv_bfloat16><<<grid_for(n), kThreads, 0, stream()>>>(*x, m, (__nv_bfloat16 *)out->data, n, (float)keep, up, xc); break;
    case PD_CU_FLOAT32: k_dropout_apply<float><<<grid_for(n), kThreads, 0, stream()>>>(*x, m, (float *)out->data, n, (float)keep, up, xc); break;
    case PD_CU_FLOAT64: k_dropout_apply<double><<<grid_for(n), kThreads, 0, stream()>>>(*x, m, (double *)out->data, n, keep, up, xc); break;
    default: return unsupported("dropout", out->dtype);
  }
  return launch_check("dropout");
}

int dropout_grad(const TV *mask, const TV *dout, const TV *dx, double scale) {
  int64_t n = dx->numel;
  if (n == 0) return 0;
  if (dout->dtype != dx->dtype || dout->numel != n || mask->numel != n)
    return bad("%s: expected mask, dout and dx of one numel, dout and dx of one dtype", "dropout_grad");
  if (mask->dtype != PD_CU_UINT8 && mask->dtype != PD_CU_BOOL && mask->dtype != PD_CU_INT8)
    return unsupported("dropout_grad (mask)", mask->dtype);
  int allc = is_contig(*mask) && is_contig(*dout) && is_contig(*dx);
  switch (dx->dtype) {
    case PD_CU_FLOAT16: k_dropout_grad<__half><<<grid_for(n), kThreads, 0, stream()>>>(*mask, *dout, *dx, n, (float)scale, allc); break;
    case PD_CU_BFLOAT16: k_dropout_grad<__nv_bfloat16><<<grid_for(n), kThreads, 0, stream()>>>(*mask, *dout, *dx, n, (float)scale, allc); break;
    case PD_CU_FLOAT32: k_dropout_grad<float><<<grid_for(n), kThreads, 0, stream()>>>(*mask, *dout, *dx, n, (float)scale, allc); break;
    case PD_CU_FLOAT64: k_dropout_grad<double><<<grid_for(n), kThreads, 0, stream()>>>(*mask, *dout, *dx, n, scale, allc); break;
    default: return unsupported("dropout_grad", dx->dtype);
  }
  return launch_check("dropout_grad");
}

// dropout with a device-drawn mask: pd_random.h's pd_philox and pd_u32_to_unit_f, word for word
__device__ __forceinline__ void philox(uint64_t key, uint64_t ctr, uint32_t out[4]) {
  uint32_t c0 = (uint32_t)ctr, c1 = (uint32_t)(ctr >> 32), c2 = 0, c3 = 0;
  uint32_t k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32);
#pragma unroll
  for (int r = 0; r < 10; r++) {
    uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
    uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
    c1 = (uint32_t)p1;
    c3 = (uint32_t)p0;
    c0 = n0;
    c2 = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}

template <typename T>
__global__ void k_dropout_philox(TV x, uint8_t *__restrict__ m, T *__restrict__ out, int64_t n, uint64_t key,
                                 uint64_t ctr, float p, typename CT_<T>::type keep, int up, int xc) {
  typedef typename CT_<T>::type C;
  const T *xd = (const T *)x.data;
  const int64_t groups = (n + 3) / 4;
  for (int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; q < groups;
       q += (int64_t)gridDim.x * blockDim.x) {
    uint32_t w[4];
    philox(key, ctr + (uint64_t)q, w);
#pragma unroll
    for (int e = 0; e < 4; e++) {
      int64_t i = 4 * q + e;
      if (i >= n) break;
      float u = __fmul_rn((float)(w[e] >> 8), 1.0f / 16777216.0f);
      uint8_t k = !(u < p);
      m[i] = k;
      C v = ld(xd[xc ? i : off_of(x, i)]);
      out[i] = st<T>(k ? (up ? dv(v, keep) : v) : (C)0);
    }
  }
}

int dropout_philox(const TV *x, const TV *mask, const TV *out, uint64_t key, uint64_t ctr, float p, double keep,
                   int up) {
  int64_t n = out->numel;
  if (n == 0) return 0;
  if (x->dtype != out->dtype || x->numel != n || mask->numel != n || mask->dtype != PD_CU_UINT8 ||
      !is_contig(*mask) || !is_contig(*out))
    return bad("%s: expected x and out of one dtype and numel, contiguous uint8 mask and out", "dropout");
  int xc = is_contig(*x);
  uint8_t *m = (uint8_t *)mask->data;
  unsigned gr = grid_for((n + 3) / 4);
  cudaStream_t s = stream();
  switch (out->dtype) {
    case PD_CU_FLOAT16: k_dropout_philox<__half><<<gr, kThreads, 0, s>>>(*x, m, (__half *)out->data, n, key, ctr, p, (float)keep, up, xc); break;
    case PD_CU_BFLOAT16: k_dropout_philox<__nv_bfloat16><<<gr, kThreads, 0, s>>>(*x, m, (__nv_bfloat16 *)out->data, n, key, ctr, p, (float)keep, up, xc); break;
    case PD_CU_FLOAT32: k_dropout_philox<float><<<gr, kThreads, 0, s>>>(*x, m, (float *)out->data, n, key, ctr, p, (float)keep, up, xc); break;
    case PD_CU_FLOAT64: k_dropout_philox<double><<<gr, kThreads, 0, s>>>(*x, m, (double *)out->data, n, key, ctr, p, keep, up, xc); break;
    default: return unsupported("dropout", out->dtype);
  }
  return launch_check("dropout");
}

// =====================================================================================
// optimizer updates (csrc/kernels/cpu/optim.c, operation by operation)
struct OptArgs {
  pd_cuda_opt o;
  TV grad;
  int gc; // grad contiguous
  void *p;
  float *mp;
  void *a0, *a1, *a2;
  int64_t n;
};

__device__ __forceinline__ int skipped(const pd_cuda_opt &o) {
  return o.skip && ld_scalar(o.skip, o.skip_dtype) != 0.0;
}
__device__ __forceinline__ double eff_lr(const pd_cuda_opt &o) {
  return o.lr_tensor ? __dmul_rn(ld_scalar(o.lr_tensor, o.lr_dtype), o.lr) : o.lr;
}

template <typename C> __device__ __forceinline__ C sgnv(C p) { return (C)((p > 0) - (p < 0)); }

template <typename T, int KIND>
__global__ void k_opt(OptArgs a) {
  typedef typename CT_<T>::type C;
  const pd_cuda_opt &o = a.o;
  if (skipped(o)) return;
  const double lr = eff_lr(o);
  // the step constants, derived in double as the CPU kernel derives them on the host
  double h[6] = {0, 0, 0, 0, 0, 0};
  switch (o.kind) {
    case PD_CU_OPT_SGD: h[0] = lr; break;
    case PD_CU_OPT_MOMENTUM:
      h[0] = lr; h[1] = o.mu; h[2] = o.use_nesterov ? 1.0 : 0.0; h[3] = o.use_nesterov ? o.mu : 1.0;
      break;
    case PD_CU_OPT_ADAM: {
      double b1p = ld_scalar(o.beta1_pow, o.beta1_pow_dtype), b2p = ld_scalar(o.beta2_pow, o.beta2_pow_dtype);
      double s2 = __dsqrt_rn(__dsub_rn(1.0, b2p));
      h[0] = __ddiv_rn(__dmul_rn(lr, s2), __dsub_rn(1.0, b1p));
      h[1] = o.beta1; h[2] = o.beta2;
      h[3] = __dmul_rn(o.epsilon, s2);
      h[4] = __dsub_rn(1.0, __dmul_rn(lr, o.coeff));
      break;
    }
    case PD_CU_OPT_ADAMAX: {
      double b1p = ld_scalar(o.beta1_pow, o.beta1_pow_dtype);
      h[0] = __ddiv_rn(lr, __dsub_rn(1.0, b1p));
      h[1] = o.beta1; h[2] = o.beta2; h[3] = o.epsilon;
      break;
    }
    case PD_CU_OPT_ADAGRAD: h[0] = lr; h[1] = o.epsilon; break;
    case PD_CU_OPT_ADADELTA: h[0] = o.rho; h[1] = o.epsilon; h[2] = lr; break;
    case PD_CU_OPT_RMSPROP:
      h[0] = lr; h[1] = o.rho; h[2] = o.epsilon; h[3] = o.momentum; h[4] = o.centered ? 1.0 : 0.0;
      break;
  }
  const C L1 = z((C)o.l1), L2 = z((C)o.l2), RS = z((C)o.rescale);
  T *P = (T *)a.p;
  const T *G = (const T *)a.grad.data;
  C *A0 = (C *)a.a0, *A1 = (C *)a.a1, *A2 = (C *)a.a2;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < a.n;
       i += (int64_t)gridDim.x * blockDim.x) {
    C p = z(a.mp ? (C)a.mp[i] : ld(P[i]));
    C gr = z(ld(G[a.gc ? i : off_of(a.grad, i)]));
    C g = zadd(zadd(zmul(gr, RS), zmul(L2, p)), zmul(L1, sgnv(p)));
    switch (KIND) {
      case PD_CU_OPT_SGD: p = zsub(p, zmul(z((C)h[0]), g)); break;
      case PD_CU_OPT_MOMENTUM: {
        const C LR = z((C)h[0]), MU = z((C)h[1]), CG = z((C)h[2]), CV = z((C)h[3]);
        C v = zadd(zmul(MU, z(A0[i])), g);
        A0[i] = v;
        p = zsub(p, zmul(LR, zadd(zmul(CG, g), zmul(CV, v))));
        break;
      }
      case PD_CU_OPT_ADAM: {
        const C LRT = z((C)h[0]), B1 = z((C)h[1]), B2 = z((C)h[2]), EPST = z((C)h[3]), DEC = z((C)h[4]);
        const C OB1 = zsub((C)1, B1), OB2 = zsub((C)1, B2);
        C m1 = zadd(zmul(B1, z(A0[i])), zmul(OB1, g));
        C m2 = zadd(zmul(B2, z(A1[i])), zmul(zmul(OB2, g), g));
        A0[i] = m1;
        A1[i] = m2;
        p = zsub(zmul(p, DEC), zmul(LRT, zdiv(m1, zadd(zsqrt(m2), EPST))));
        break;
      }
      case PD_CU_OPT_ADAMAX: {
        const C LRT = z((C)h[0]), B1 = z((C)h[1]), B2 = z((C)h[2]), EPS = z((C)h[3]), OB1 = zsub((C)1, B1);
        C m = zadd(zmul(B1, z(A0[i])), zmul(OB1, g));
        C u = zadd(zmul(B2, z(A1[i])), EPS);
        C ag = fabs(g); // g is already flushed
        u = u > ag ? u : ag;
        A0[i] = m;
        A1[i] = u;
        p = zsub(p, zmul(LRT, zdiv(m, u)));
        break;
      }
      case PD_CU_OPT_ADAGRAD: {
        const C LR = z((C)h[0]), EPS = z((C)h[1]);
        C m = zadd(z(A0[i]), zmul(g, g));
        A0[i] = m;
        p = zsub(p, zdiv(zmul(LR, g), zadd(zsqrt(m), EPS)));
        break;
      }
      case PD_CU_OPT_ADADELTA: {
        const C RHO = z((C)h[0]), EPS = z((C)h[1]), ORHO = zsub((C)1, RHO), LR = z((C)h[2]);
        C eg = zadd(zmul(RHO, z(A0[i])), zmul(zmul(ORHO, g), g));
        C d = zmul(-zsqrt(zdiv(zadd(z(A1[i]), EPS), zadd(eg, EPS))), g);
        A1[i] = zadd(zmul(RHO, z(A1[i])), zmul(zmul(ORHO, d), d));
        A0[i] = eg;
        p = zadd(p, zmul(LR, d));
        break;
      }
      case PD_CU_OPT_RMSPROP: {
        const C LR = z((C)h[0]), RHO = z((C)h[1]), EPS = z((C)h[2]), MOM = z((C)h[3]), CEN = z((C)h[4]);
        const C ORHO = zsub((C)1, RHO);
        C ms = zadd(zmul(RHO, z(A0[i])), zmul(zmul(ORHO, g), g));
        C mg = zmul(CEN, zadd(zmul(RHO, z(A1[i])), zmul(ORHO, g)));
        C mo = zadd(zmul(MOM, z(A2[i])), zdiv(zmul(LR, g), zsqrt(zadd(zsub(ms, zmul(mg, mg)), EPS))));
        A0[i] = ms;
        A1[i] = mg;
        A2[i] = mo;
        p = zsub(p, mo);
        break;
      }
    }
    if (a.mp) a.mp[i] = z((float)p);
    P[i] = st<T>(p);
  }
}

__global__ void k_opt_finish(pd_cuda_opt o) {
  if (skipped(o)) return;
  if (o.beta1_pow) {
    double b = ld_scalar(o.beta1_pow, o.beta1_pow_dtype);
    st_scalar((void *)o.beta1_pow, o.beta1_pow_dtype, __dmul_rn(b, o.beta1));
  }
  if (o.beta2_pow) {
    double b = ld_scalar(o.beta2_pow, o.beta2_pow_dtype);
    st_scalar((void *)o.beta2_pow, o.beta2_pow_dtype, __dmul_rn(b, o.beta2));
  }
}

int opt_update(const pd_cuda_opt *o, const TV *param, const TV *grad, const TV *master, const TV *acc0,
               const TV *acc1, const TV *acc2) {
  int64_t n = param->numel;
  if (n == 0) return 0;
  int nacc = o->kind == PD_CU_OPT_SGD ? 0
           : (o->kind == PD_CU_OPT_MOMENTUM || o->kind == PD_CU_OPT_ADAGRAD) ? 1
           : o->kind == PD_CU_OPT_RMSPROP ? 3 : 2;
  const TV *acc[3] = {acc0, acc1, acc2};
  int ct = (param->dtype == PD_CU_FLOAT16 || param->dtype == PD_CU_BFLOAT16) ? PD_CU_FLOAT32 : param->dtype;
  if (!is_contig(*param) || grad->dtype != param->dtype || grad->numel != n)
    return bad("%s: expected a contiguous param and a grad of its dtype and numel", "optimizer");
  if (master && (master->dtype != PD_CU_FLOAT32 || master->numel != n || !is_contig(*master)))
    return bad("%s: expected a contiguous float32 master_param of param's numel", "optimizer");
  for (int k = 0; k < nacc; k++)
    if (!acc[k] || acc[k]->dtype != ct || acc[k]->numel != n || !is_contig(*acc[k]))
      return bad("%s: expected contiguous accumulators of param's numel in the compute dtype", "optimizer");
  if ((o->kind == PD_CU_OPT_ADAM && (!o->beta1_pow || !o->beta2_pow)) || (o->kind == PD_CU_OPT_ADAMAX && !o->beta1_pow))
    return bad("%s: missing beta pow", "optimizer");
  OptArgs a;
  a.o = *o;
  a.grad = *grad;
  a.gc = is_contig(*grad);
  a.p = param->data;
  a.mp = master ? (float *)master->data : nullptr;
  a.a0 = nacc > 0 ? acc0->data : nullptr;
  a.a1 = nacc > 1 ? acc1->data : nullptr;
  a.a2 = nacc > 2 ? acc2->data : nullptr;
  a.n = n;
  // the step constants are derived once per thread: a grid of a few waves, each thread looping
  unsigned gr = grid_for(n);
  if (gr > 2048) gr = 2048;
  cudaStream_t s = stream();
#define OPT_KINDS(T)                                                            \
  switch (o->kind) {                                                            \
    case PD_CU_OPT_SGD: k_opt<T, PD_CU_OPT_SGD><<<gr, kThreads, 0, s>>>(a); break; \
    case PD_CU_OPT_MOMENTUM: k_opt<T, PD_CU_OPT_MOMENTUM><<<gr, kThreads, 0, s>>>(a); break; \
    case PD_CU_OPT_ADAM: k_opt<T, PD_CU_OPT_ADAM><<<gr, kThreads, 0, s>>>(a); break; \
    case PD_CU_OPT_ADAMAX: k_opt<T, PD_CU_OPT_ADAMAX><<<gr, kThreads, 0, s>>>(a); break; \
    case PD_CU_OPT_ADAGRAD: k_opt<T, PD_CU_OPT_ADAGRAD><<<gr, kThreads, 0, s>>>(a); break; \
    case PD_CU_OPT_ADADELTA: k_opt<T, PD_CU_OPT_ADADELTA><<<gr, kThreads, 0, s>>>(a); break; \
    case PD_CU_OPT_RMSPROP: k_opt<T, PD_CU_OPT_RMSPROP><<<gr, kThreads, 0, s>>>(a); break; \
    default: return bad("%s: unknown update kind", "optimizer");              \
  }
  switch (param->dtype) {
    case PD_CU_FLOAT16: OPT_KINDS(__half) break;
    case PD_CU_BFLOAT16: OPT_KINDS(__nv_bfloat16) break;
    case PD_CU_FLOAT32: OPT_KINDS(float) break;
    case PD_CU_FLOAT64: OPT_KINDS(double) break;
    default: return unsupported("optimizer", param->dtype);
  }
#undef OPT_KINDS
  return launch_check("optimizer update");
}

int opt_finish(const pd_cuda_opt *o) {
  if (!o->beta1_pow && !o->beta2_pow) return 0;
  if ((o->beta1_pow && !float_dtype(o->beta1_pow_dtype)) || (o->beta2_pow && !float_dtype(o->beta2_pow_dtype)))
    return bad("%s: expected floating beta pow tensors", "optimizer");
  k_opt_finish<<<1, 1, 0, stream()>>>(*o);
  return launch_check("optimizer beta pow");
}

// =====================================================================================
// index reads shared by embedding / gather
__device__ __forceinline__ int64_t ld_index(const TV &t, int64_t i, int contig) {
  int64_t o = contig ? i : off_of(t, i);
  return t.dtype == PD_CU_INT32 ? (int64_t)((const int32_t *)t.data)[o] : ((const int64_t *)t.data)[o];
}
__device__ __forceinline__ void flag_error(int *flag, int64_t *val, int64_t v) {
  if (atomicCAS(flag, 0, 1) == 0) *val = v;
}

template <typename T>
__global__ void k_embedding(TV ids, int idc, TV w, T *__restrict__ out, int64_t n, int64_t dim, int64_t pad,
                            int *flag, int64_t *val) {
  const int64_t rows = w.shape[0], total = n * dim;
  const T *wd = (const T *)w.data;
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total;
       e += (int64_t)gridDim.x * blockDim.x) {
    int64_t i = e / dim, j = e - i * dim;
    int64_t id = ld_index(ids, i, idc);
    T v;
    memset(&v, 0, sizeof v);
    if (id < 0 || id >= rows) {
      if (j == 0) flag_error(flag, val, id);
    } else if (id != pad) {
      v = wd[id * w.strides[0] + j * w.strides[1]];
    }
    out[e] = v;
  }
}

// embedding_grad, deterministic and sort-free across rows: per-row hit counts (integer atomics),
// their exclusive scan, each id's position filled into its row's bucket (in any order), then one
// block per weight row: rows no id hits are zeroed; a bucket of up to kBucketSort positions is
// sorted in shared memory (bitonic) so the gradient rows are added in increasing position, the
// CPU kernel's order; a larger bucket (a very frequent id) scans all ids in order instead.
constexpr int kBucketSort = 2048;

__global__ void k_count_ids(TV ids, int idc, int64_t n, int64_t rows, int64_t pad, int *cnt, int *flag, int64_t *val) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    int64_t id = ld_index(ids, i, idc);
    if (id < 0 || id >= rows) flag_error(flag, val, id);
    else if (id != pad) atomicAdd(&cnt[id], 1);
  }
}

// one block of 1024: start = exclusive scan of cnt; cur = 0
__global__ void k_scan_rows(const int *cnt, int *start, int *cur, int64_t rows) {
  __shared__ int part[1024];
  const int64_t chunk = (rows + 1023) / 1024, b = threadIdx.x * chunk, e = b + chunk < rows ? b + chunk : rows;
  int s = 0;
  for (int64_t r = b; r < e; r++) s += cnt[r];
  part[threadIdx.x] = s;
  __syncthreads();
  for (int w = 1; w < 1024; w <<= 1) { // inclusive Hillis-Steele scan
    int v = threadIdx.x >= w ? part[threadIdx.x - w] : 0;
    __syncthreads();
    part[threadIdx.x] += v;
    __syncthreads();
  }
  int run = part[threadIdx.x] - s;
  for (int64_t r = b; r < e; r++) {
    start[r] = run;
    cur[r] = 0;
    run += cnt[r];
  }
}

__global__ void k_fill_pos(TV ids, int idc, int64_t n, int64_t rows, int64_t pad, const int *start, int *cur, int *pos) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    int64_t id = ld_index(ids, i, idc);
    if (id < 0 || id >= rows || id == pad) continue;
    pos[start[id] + atomicAdd(&cur[id], 1)] = (int)i;
  }
}

template <typename T>
__global__ void k_embedding_grad(TV ids, int idc, TV g, T *__restrict__ dw, int64_t n, int64_t rows,
                                 int64_t dim, const int *cnt, const int *start, const int *pos) {
  __shared__ int sp[kBucketSort];
  __shared__ int64_t sid[kThreads];
  const T *gd = (const T *)g.data;
  const int64_t gs0 = g.strides[0], gs1 = g.strides[1];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    T *dst = dw + r * dim;
    const int m = cnt[r];
    if (m == 0) {
      for (int64_t j = threadIdx.x; j < dim; j += blockDim.x) dst[j] = (T)0;
      continue;
    }
    if (m <= kBucketSort) {
      int P = 1;
      while (P < m) P <<= 1;
      __syncthreads();
      for (int t = threadIdx.x; t < P; t += blockDim.x) sp[t] = t < m ? pos[start[r] + t] : 0x7fffffff;
      __syncthreads();
      for (int k = 2; k <= P; k <<= 1)
        for (int j = k >> 1; j > 0; j >>= 1) {
          for (int t = threadIdx.x; t < P; t += blockDim.x) {
            int u = t ^ j;
            if (u > t) {
              int x = sp[t], y = sp[u];
              if ((x > y) == ((t & k) == 0)) {
                sp[t] = y;
                sp[u] = x;
              }
            }
          }
          __syncthreads();
        }
      for (int64_t j = threadIdx.x; j < dim; j += blockDim.x) {
        T acc = (T)0;
        for (int t = 0; t < m; t++) acc = add(acc, gd[(int64_t)sp[t] * gs0 + j * gs1]);
        dst[j] = acc;
      }
      continue;
    }
    for (int64_t j0 = 0; j0 < dim; j0 += blockDim.x) {
      int64_t j = j0 + threadIdx.x;
      T acc = (T)0;
      for (int64_t i0 = 0; i0 < n; i0 += kThreads) {
        __syncthreads();
        if (i0 + threadIdx.x < n) sid[threadIdx.x] = ld_index(ids, i0 + threadIdx.x, idc);
        __syncthreads();
        int64_t mm = n - i0 < kThreads ? n - i0 : kThreads;
        if (j < dim)
          for (int64_t t = 0; t < mm; t++)
            if (sid[t] == r) acc = add(acc, gd[(i0 + t) * gs0 + j * gs1]);
      }
      if (j < dim) dst[j] = acc;
    }
  }
}

int embedding(const TV *ids, const TV *weight, const TV *out, int64_t pad, int *flag, int64_t *val) {
  int64_t n = ids->numel, dim = weight->ndim == 2 ? weight->shape[1] : -1;
  if (weight->ndim != 2 || out->numel != n * dim || out->dtype != weight->dtype || !is_contig(*out))
    return bad("%s: expected weight [rows, dim] and a contiguous out [n, dim]", "embedding");
  if (ids->dtype != PD_CU_INT32 && ids->dtype != PD_CU_INT64) return unsupported("embedding (ids)", ids->dtype);
  if (n * dim == 0) return 0;
  int idc = is_contig(*ids);
  unsigned gr = grid_for(n * dim);
  switch (weight->dtype) {
    case PD_CU_FLOAT16: case PD_CU_BFLOAT16:
      k_embedding<uint16_t><<<gr, kThreads, 0, stream()>>>(*ids, idc, *weight, (uint16_t *)out->data, n, dim, pad, flag, val); break;
    case PD_CU_FLOAT32:
      k_embedding<float><<<gr, kThreads, 0, stream()>>>(*ids, idc, *weight, (float *)out->data, n, dim, pad, flag, val); break;
    case PD_CU_FLOAT64:
      k_embedding<double><<<gr, kThreads, 0, stream()>>>(*ids, idc, *weight, (double *)out->data, n, dim, pad, flag, val); break;
    default: return unsupported("embedding", weight->dtype);
  }
  return launch_check("embedding");
}

int embedding_grad(const TV *ids, const TV *dout, const TV *dw, int64_t pad, int *scratch, int *flag, int64_t *val) {
  if (dw->ndim != 2 || !is_contig(*dw) || dout->dtype != dw->dtype)
    return bad("%s: expected a contiguous dweight [rows, dim] of dout's dtype", "embedding_grad");
  int64_t n = ids->numel, rows = dw->shape[0], dim = dw->shape[1];
  if (dout->numel != n * dim) return bad("%s: expected dout of ids.numel * dim elements", "embedding_grad");
  if (ids->dtype != PD_CU_INT32 && ids->dtype != PD_CU_INT64) return unsupported("embedding_grad (ids)", ids->dtype);
  if (dw->dtype != PD_CU_FLOAT32 && dw->dtype != PD_CU_FLOAT64) return unsupported("embedding_grad", dw->dtype);
  if (n >= 0x7fffffffLL) return bad("%s: expected fewer than 2^31 - 1 ids", "embedding_grad");
  int *cnt = scratch, *start = scratch + rows, *cur = scratch + 2 * rows, *pos = scratch + 3 * rows;
  if (n == 0 && rows * dim == 0) return 0;
  // dout as [n, dim]: its own strides when it is 2-D-like; otherwise require contiguity
  TV g;
  memset(&g, 0, sizeof g);
  g.data = dout->data;
  g.dtype = dout->dtype;
  g.ndim = 2;
  g.numel = n * dim;
  g.shape[0] = n;
  g.shape[1] = dim;
  if (is_contig(*dout)) {
    g.strides[0] = dim;
    g.strides[1] = 1;
  } else if (dout->ndim == 2) {
    g.strides[0] = dout->strides[0];
    g.strides[1] = dout->strides[1];
  } else {
    return bad("%s: a non-contiguous dout must be 2-D", "embedding_grad");
  }
  int idc = is_contig(*ids);
  if (rows > 0) {
    cudaError_t e = cudaMemsetAsync(cnt, 0, sizeof(int) * (size_t)rows, stream());
    if (e != cudaSuccess) {
      pd_cu_set_error(PD_CU_ERR_LAUNCH, "embedding_grad: %s", cudaGetErrorString(e));
      return -1;
    }
  }
  if (n > 0) k_count_ids<<<grid_for(n), kThreads, 0, stream()>>>(*ids, idc, n, rows, pad, cnt, flag, val);
  if (rows * dim > 0) {
    k_scan_rows<<<1, 1024, 0, stream()>>>(cnt, start, cur, rows);
    if (n > 0) k_fill_pos<<<grid_for(n), kThreads, 0, stream()>>>(*ids, idc, n, rows, pad, start, cur, pos);
    unsigned gr = (unsigned)(rows < 65535LL * 16 ? rows : 65535LL * 16);
    if (dw->dtype == PD_CU_FLOAT32)
      k_embedding_grad<float><<<gr, kThreads, 0, stream()>>>(*ids, idc, g, (float *)dw->data, n, rows, dim, cnt, start, pos);
    else
      k_embedding_grad<double><<<gr, kThreads, 0, stream()>>>(*ids, idc, g, (double *)dw->data, n, rows, dim, cnt, start, pos);
  }
  return launch_check("embedding_grad");
}

// =====================================================================================
// gather / copy: elements moved as bytes (1, 2, 4, 8 or 16)
struct B16 { uint64_t a, b; };
template <int S> struct ElemT;
template <> struct ElemT<1> { typedef uint8_t type; };
template <> struct ElemT<2> { typedef uint16_t type; };
template <> struct ElemT<4> { typedef uint32_t type; };
template <> struct ElemT<8> { typedef uint64_t type; };
template <> struct ElemT<16> { typedef B16 type; };

int elem_size(int dt) {
  switch (dt) {
    case PD_CU_BOOL: case PD_CU_UINT8: case PD_CU_INT8: return 1;
    case PD_CU_INT16: case PD_CU_FLOAT16: case PD_CU_BFLOAT16: return 2;
    case PD_CU_INT32: case PD_CU_FLOAT32: return 4;
    case PD_CU_INT64: case PD_CU_FLOAT64: case PD_CU_COMPLEX64: return 8;
    case PD_CU_COMPLEX128: return 16;
  }
  return 0;
}

template <typename E>
__global__ void k_gather(TV x, TV idx, int idc, int ax, TV out, int oc, int *flag, int64_t *val) {
  const int64_t n = out.numel, dimx = x.shape[ax];
  const E *xd = (const E *)x.data;
  E *od = (E *)out.data;
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n; e += (int64_t)gridDim.x * blockDim.x) {
    int64_t r = e, xo = 0, oo = 0, ok = 1;
    for (int d = out.ndim - 1; d >= 0; d--) {
      int64_t s = out.shape[d], c = r % s;
      r /= s;
      oo += c * out.strides[d];
      if (d == ax) {
        int64_t v = ld_index(idx, c, idc);
        if (v < -dimx || v >= dimx) {
          flag_error(flag, val, v);
          ok = 0;
          v = 0;
        }
        if (v < 0) v += dimx;
        xo += v * x.strides[d];
      } else {
        xo += c * x.strides[d];
      }
    }
    E v;
    if (ok) v = xd[xo];
    else memset(&v, 0, sizeof v);
    od[oc ? e : oo] = v;
  }
}

template <typename E>
__global__ void k_copy(TV dst, TV src, int dc, int sc) {
  const int64_t n = dst.numel;
  const E *s = (const E *)src.data;
  E *d = (E *)dst.data;
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n; e += (int64_t)gridDim.x * blockDim.x)
    d[dc ? e : off_of(dst, e)] = s[sc ? e : off_of(src, e)];
}

int gather(const TV *x, const TV *index, int ax, const TV *out, int *flag, int64_t *val) {
  if (ax < 0 || ax >= x->ndim || out->ndim != x->ndim || out->dtype != x->dtype || index->numel != out->shape[ax])
    return bad("%s: expected out of x's ndim and dtype with index.numel on the axis", "gather");
  if (index->dtype != PD_CU_INT32 && index->dtype != PD_CU_INT64) return unsupported("gather (index)", index->dtype);
  int64_t n = out->numel;
  if (n == 0) return 0;
  int idc = is_contig(*index), oc = is_contig(*out);
  unsigned gr = grid_for(n);
  cudaStream_t s = stream();
  switch (elem_size(x->dtype)) {
    case 1: k_gather<uint8_t><<<gr, kThreads, 0, s>>>(*x, *index, idc, ax, *out, oc, flag, val); break;
    case 2: k_gather<uint16_t><<<gr, kThreads, 0, s>>>(*x, *index, idc, ax, *out, oc, flag, val); break;
    case 4: k_gather<uint32_t><<<gr, kThreads, 0, s>>>(*x, *index, idc, ax, *out, oc, flag, val); break;
    case 8: k_gather<uint64_t><<<gr, kThreads, 0, s>>>(*x, *index, idc, ax, *out, oc, flag, val); break;
    case 16: k_gather<B16><<<gr, kThreads, 0, s>>>(*x, *index, idc, ax, *out, oc, flag, val); break;
    default: return unsupported("gather", x->dtype);
  }
  return launch_check("gather");
}

int copy(const TV *dst, const TV *src) {
  if (dst->dtype != src->dtype || dst->numel != src->numel || dst->ndim != src->ndim)
    return bad("%s: expected dst and src of one dtype and shape", "copy");
  for (int d = 0; d < dst->ndim; d++)
    if (dst->shape[d] != src->shape[d]) return bad("%s: expected dst and src of one shape", "copy");
  int64_t n = dst->numel;
  if (n == 0) return 0;
  int dc = is_contig(*dst), sc = is_contig(*src);
  int es = elem_size(dst->dtype);
  cudaStream_t s = stream();
  if (dc && sc) {
    cudaError_t e = cudaMemcpyAsync(dst->data, src->data, (size_t)n * (size_t)es, cudaMemcpyDeviceToDevice, s);
    if (e != cudaSuccess) {
      pd_cu_set_error(PD_CU_ERR_LAUNCH, "copy: %s", cudaGetErrorString(e));
      return -1;
    }
    return 0;
  }
  unsigned gr = grid_for(n);
  switch (es) {
    case 1: k_copy<uint8_t><<<gr, kThreads, 0, s>>>(*dst, *src, dc, sc); break;
    case 2: k_copy<uint16_t><<<gr, kThreads, 0, s>>>(*dst, *src, dc, sc); break;
    case 4: k_copy<uint32_t><<<gr, kThreads, 0, s>>>(*dst, *src, dc, sc); break;
    case 8: k_copy<uint64_t><<<gr, kThreads, 0, s>>>(*dst, *src, dc, sc); break;
    case 16: k_copy<B16><<<gr, kThreads, 0, s>>>(*dst, *src, dc, sc); break;
    default: return unsupported("copy", dst->dtype);
  }
  return launch_check("copy");
}

// =====================================================================================
// topk: one block per row, k passes; pass t picks the first element (in the stable sort's strict
// total order: value order with NaN above all, then index) after the one pass t-1 picked
template <typename T> struct KeyT { typedef T type; };
template <> struct KeyT<__half> { typedef float type; };
template <> struct KeyT<__nv_bfloat16> { typedef float type; };
template <typename T> __device__ __forceinline__ typename KeyT<T>::type key(T v) { return v; }
template <> __device__ __forceinline__ float key<__half>(__half v) { return __half2float(v); }
template <> __device__ __forceinline__ float key<__nv_bfloat16>(__nv_bfloat16 v) { return __bfloat162float(v); }

template <typename K>
__device__ __forceinline__ int cmpk(K x, K y) { // sort.c's cmp: NaN above everything, NaNs equal
  int xn = x != x, yn = y != y;
  if (xn || yn) return xn == yn ? 0 : (xn ? 1 : -1);
  return x < y ? -1 : (x > y ? 1 : 0);
}
// a before b in the sort (desc: larger first), ties by index
template <typename K>
__device__ __forceinline__ bool before(K av, int64_t ai, K bv, int64_t bi, int desc) {
  int r = cmpk(av, bv);
  if (r != 0) return desc ? r > 0 : r < 0;
  return ai < bi;
}

template <typename T>
__global__ void k_topk(TV xr, int64_t xs, int64_t len, TV vr, int64_t vs, TV ir, int64_t is, int64_t k,
                       int64_t rows, int desc) {
  typedef typename KeyT<T>::type K;
  __shared__ K sv[kThreads];
  __shared__ int64_t si[kThreads];
  const T *xd = (const T *)xr.data;
  T *vd = (T *)vr.data;
  int64_t *id = (int64_t *)ir.data;
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const int64_t xo = off_of(xr, r), vo = off_of(vr, r), io = off_of(ir, r);
    K pv = K();
    int64_t pi = -1; // nothing picked yet
    for (int64_t t = 0; t < k; t++) {
      K bv = K();
      int64_t bi = -1;
      for (int64_t j = threadIdx.x; j < len; j += blockDim.x) {
        K v = key(xd[xo + j * xs]);
        if (pi >= 0 && !before(pv, pi, v, j, desc)) continue;
        if (bi < 0 || before(v, j, bv, bi, desc)) {
          bv = v;
          bi = j;
        }
      }
      sv[threadIdx.x] = bv;
      si[threadIdx.x] = bi;
      __syncthreads();
      for (int w = blockDim.x / 2; w > 0; w >>= 1) {
        if (threadIdx.x < w) {
          int64_t oi = si[threadIdx.x + w];
          K ov = sv[threadIdx.x + w];
          if (oi >= 0 && (si[threadIdx.x] < 0 || before(ov, oi, sv[threadIdx.x], si[threadIdx.x], desc))) {
            sv[threadIdx.x] = ov;
            si[threadIdx.x] = oi;
          }
        }
        __syncthreads();
      }
      pi = si[0];
      pv = sv[0];
      if (threadIdx.x == 0) {
        vd[vo + t * vs] = xd[xo + pi * xs];
        id[io + t * is] = pi;
      }
      __syncthreads();
    }
  }
}

// t without dim ax (the rows' view), its stride on ax in *s
TV drop_dim(const TV &t, int ax, int64_t *s) {
  TV r = t;
  r.ndim = 0;
  r.numel = 1;
  for (int d = 0; d < t.ndim; d++)
    if (d != ax) {
      r.shape[r.ndim] = t.shape[d];
      r.strides[r.ndim++] = t.strides[d];
      r.numel *= t.shape[d];
    }
  *s = t.strides[ax];
  return r;
}

int topk(const TV *x, int ax, int64_t k, int largest, const TV *vals, const TV *inds) {
  if (ax < 0 || ax >= x->ndim || vals->ndim != x->ndim || inds->ndim != x->ndim || vals->dtype != x->dtype ||
      inds->dtype != PD_CU_INT64 || k < 0 || k > x->shape[ax] || vals->shape[ax] != k || inds->shape[ax] != k)
    return bad("%s: expected vals (x's dtype) and int64 inds of x's shape with k on the axis", "topk");
  if (vals->numel == 0) return 0;
  int64_t xs, vs, is;
  TV xr = drop_dim(*x, ax, &xs), vr = drop_dim(*vals, ax, &vs), ir = drop_dim(*inds, ax, &is);
  int64_t rows = xr.numel, len = x->shape[ax];
  unsigned gr = (unsigned)(rows < 65535LL * 16 ? rows : 65535LL * 16);
  cudaStream_t s = stream();
#define TOPK_CASE(CODE, T) \
  case CODE: k_topk<T><<<gr, kThreads, 0, s>>>(xr, xs, len, vr, vs, ir, is, k, rows, largest); break;
  switch (x->dtype) {
    TOPK_CASE(PD_CU_UINT8, uint8_t)
    TOPK_CASE(PD_CU_INT8, int8_t)
    TOPK_CASE(PD_CU_INT16, int16_t)
    TOPK_CASE(PD_CU_INT32, int32_t)
    TOPK_CASE(PD_CU_INT64, int64_t)
    TOPK_CASE(PD_CU_FLOAT16, __half)
    TOPK_CASE(PD_CU_BFLOAT16, __nv_bfloat16)
    TOPK_CASE(PD_CU_FLOAT32, float)
    TOPK_CASE(PD_CU_FLOAT64, double)
    default: return unsupported("topk", x->dtype);
  }
#undef TOPK_CASE
  return launch_check("topk");
}

} // namespace

// mixed precision: csrc/cuda/amp_unscale.cu
extern "C" int pd_cuamp_unscale(int n, void *const *data, const int64_t *numel, const int *dtype,
                                const void *scale, void *found_inf);
extern "C" int pd_cuamp_update_scaling(void *loss_scaling, const void *found_inf, void *good_steps,
                                       void *bad_steps, int64_t incr_every, int64_t decr_every,
                                       float incr_ratio, float decr_ratio);

extern "C" const pd_cuda_misc pd_cuda_misc_table = {
    dropout_apply, dropout_grad, opt_update, opt_finish, embedding, embedding_grad, gather, copy, topk,
    dropout_philox, pd_cuamp_unscale, pd_cuamp_update_scaling,
};
