// Copies with casts (every pair of bool / integer / float dtypes, as the CPU cast loops), fills
// and where: the arity-1 / arity-3 templates of ew_common.cuh; same-dtype moves use the raw
// element bits (uint8/16/32/64), so they are instantiated per element size only.
#include <string.h>
#include "ew_math.cuh"

namespace pdew {

static bool is_real_or_bool(int dt) { return dt >= PD_CU_BOOL && dt <= PD_CU_FLOAT64; }
static int elem_size(int dt) {
  static const int sz[PD_CU_NUM_DTYPES] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8, 8, 16};
  return dt >= 0 && dt < PD_CU_NUM_DTYPES ? sz[dt] : 0;
}

template <class O> struct CastTo {
  template <class C> __device__ __forceinline__ O operator()(C v) const { return st_cast<O>(v); }
};

template <class S> struct CopyInner {
  const pd_cuda_tensor *dst, *src;
  template <class O> int operator()() const {
    if constexpr (std::is_same<O, S>::value) {
      return -3; // same dtype: handled by the raw path
    } else {
      return launch1<O, S>(dst, src, CastTo<O>{}, "copy");
    }
  }
};
struct CopyOuter {
  const pd_cuda_tensor *dst, *src;
  template <class S> int operator()() const { return dispatch_dtype(dst->dtype, CopyInner<S>{dst, src}); }
};

// src broadcast to dst's shape (numpy rules, right-aligned) -> *v
static int bcast_to(const pd_cuda_tensor *dst, const pd_cuda_tensor *src, pd_cuda_tensor *v) {
  *v = *src;
  if (src->ndim == dst->ndim) {
    int same = 1;
    for (int d = 0; d < dst->ndim && same; d++) same = src->shape[d] == dst->shape[d];
    if (same) return 0;
  }
  v->ndim = dst->ndim;
  v->numel = dst->numel;
  const int lead = dst->ndim - src->ndim;
  for (int d = 0; d < lead && d < src->ndim; d++) // extra leading dims of src must be 1
    if (src->shape[d] != 1) goto bad;
  for (int d = 0; d < dst->ndim; d++) {
    const int sd = d - lead;
    v->shape[d] = dst->shape[d];
    if (sd < 0) {
      v->strides[d] = 0;
    } else if (src->shape[sd] == dst->shape[d]) {
      v->strides[d] = src->strides[sd];
    } else if (src->shape[sd] == 1) {
      v->strides[d] = 0;
    } else {
      goto bad;
    }
  }
  return 0;
bad:
  return fail(PD_CU_ERR_INVALID, "copy: source of %d dims cannot be broadcast to the destination's %d dims", src->ndim,
              dst->ndim);
}

struct Pass {
  template <class C> __device__ __forceinline__ C operator()(C v) const { return v; }
};

template <class U> static int raw_copy(const pd_cuda_tensor *dst, const pd_cuda_tensor *src) {
  return launch1<U, U>(dst, src, Pass{}, "copy");
}

static bool dense(const pd_cuda_tensor *t) {
  int64_t expect = 1;
  for (int d = t->ndim - 1; d >= 0; d--) {
    if (t->shape[d] != 1 && t->strides[d] != expect) return false;
    expect *= t->shape[d];
  }
  return true;
}

int copy(const pd_cuda_tensor *dst, const pd_cuda_tensor *src) {
  if (!is_real_or_bool(dst->dtype) || !is_real_or_bool(src->dtype))
    return fail(PD_CU_ERR_UNSUPPORTED, "copy: %s -> %s is not implemented on GPU", dtype_name(src->dtype),
                dtype_name(dst->dtype));
  if (dst->numel <= 0) return 0;
  pd_cuda_tensor sv;
  if (bcast_to(dst, src, &sv)) return -1;
  if (src->dtype == dst->dtype) {
    const int es = elem_size(dst->dtype);
    if (dense(dst) && dense(&sv)) {
      if (dst->data == sv.data) return 0;
      if (cudaMemcpyAsync(dst->data, sv.data, (size_t)dst->numel * (size_t)es, cudaMemcpyDeviceToDevice, stream()) !=
          cudaSuccess)
        return check_launch("copy") ? -1 : fail(PD_CU_ERR_LAUNCH, "copy: cudaMemcpyAsync failed");
      return 0;
    }
    switch (es) {
      case 1: return raw_copy<uint8_t>(dst, &sv);
      case 2: return raw_copy<uint16_t>(dst, &sv);
      case 4: return raw_copy<uint32_t>(dst, &sv);
      default: return raw_copy<uint64_t>(dst, &sv);
    }
  }
  const int rc = dispatch_dtype(src->dtype, CopyOuter{dst, &sv});
  if (rc < -1) return fail(PD_CU_ERR_UNSUPPORTED, "copy: %s -> %s", dtype_name(src->dtype), dtype_name(dst->dtype));
  return rc;
}

// ---- fills ----
template <class U, int VEC> __global__ void __launch_bounds__(kThreads) k_fill_contig(U *o, int64_t n, U v) {
  const int64_t nv = n / VEC;
  Vec<U, VEC> vv;
#pragma unroll
  for (int j = 0; j < VEC; j++) vv.v[j] = v;
  for (int64_t i = gtid(); i < nv; i += gstride()) reinterpret_cast<Vec<U, VEC> *>(o)[i] = vv;
  const int64_t t = nv * VEC + gtid();
  if (t < n) o[t] = v;
}
template <class U, class IdxT> __global__ void __launch_bounds__(kThreads) k_fill_strided(U *o, Geo g, IdxT n, U v) {
  for (IdxT i = (IdxT)gtid(); i < n; i += (IdxT)gstride()) {
    int64_t off[1];
    offsets<1>(g, i, off);
    o[off[0]] = v;
  }
}

template <class U> static int fill_u(const pd_cuda_tensor *dst, U v) {
  const int64_t n = dst->numel;
  if (n <= 0) return 0;
  Geo g;
  int err = 0;
  const int contig = make_geo(&g, 1, &dst, "fill", &err);
  if (err) return -1;
  U *po = (U *)dst->data;
  constexpr int V = (int)(16 / sizeof(U));
  if (contig) {
    unsigned char b[sizeof(U)];
    memcpy(b, &v, sizeof(U));
    bool uniform = true;
    for (size_t k = 1; k < sizeof(U); k++) uniform = uniform && b[k] == b[0];
    if (uniform) {
      if (cudaMemsetAsync(po, b[0], (size_t)n * sizeof(U), stream()) != cudaSuccess)
        return check_launch("fill") ? -1 : fail(PD_CU_ERR_LAUNCH, "fill: cudaMemsetAsync failed");
      return 0;
    }
    if (aligned(po, sizeof(U) * V)) {
      k_fill_contig<U, V><<<grid_for((n + V - 1) / V), kThreads, 0, stream()>>>(po, n, v);
      return check_launch("fill");
    }
  }
  if (n < ((int64_t)1 << 31))
    k_fill_strided<U, uint32_t><<<grid_for(n), kThreads, 0, stream()>>>(po, g, (uint32_t)n, v);
  else
    k_fill_strided<U, int64_t><<<grid_for(n), kThreads, 0, stream()>>>(po, g, n, v);
  return check_launch("fill");
}

int fill_bytes(const pd_cuda_tensor *dst, const void *elem) {
  switch (elem_size(dst->dtype)) {
    case 1: { uint8_t v; memcpy(&v, elem, 1); return fill_u<uint8_t>(dst, v); }
    case 2: { uint16_t v; memcpy(&v, elem, 2); return fill_u<uint16_t>(dst, v); }
    case 4: { uint32_t v; memcpy(&v, elem, 4); return fill_u<uint32_t>(dst, v); }
    case 8: { uint64_t v; memcpy(&v, elem, 8); return fill_u<uint64_t>(dst, v); }
    default:
      return fail(PD_CU_ERR_UNSUPPORTED, "fill: dtype %s is not implemented on GPU", dtype_name(dst->dtype));
  }
}

// value stored as pd_store_from_double (csrc/core/pd_tensor.c) stores it: integers through
// int64_t (x86 truncation, host code), 16-bit floats rounded once from double
int fill(const pd_cuda_tensor *dst, double v) {
  unsigned char e[8];
  switch (dst->dtype) {
    case PD_CU_BOOL: e[0] = (uint8_t)(v != 0); break;
    case PD_CU_UINT8: { uint8_t t = (uint8_t)(int64_t)v; memcpy(e, &t, 1); break; }
    case PD_CU_INT8: { int8_t t = (int8_t)(int64_t)v; memcpy(e, &t, 1); break; }
    case PD_CU_INT16: { int16_t t = (int16_t)(int64_t)v; memcpy(e, &t, 2); break; }
    case PD_CU_INT32: { int32_t t = (int32_t)(int64_t)v; memcpy(e, &t, 4); break; }
    case PD_CU_INT64: { int64_t t = (int64_t)v; memcpy(e, &t, 8); break; }
    case PD_CU_FLOAT16: { __half t = __double2half(v); memcpy(e, &t, 2); break; }
    case PD_CU_BFLOAT16: { __nv_bfloat16 t = __double2bfloat16(v); memcpy(e, &t, 2); break; }
    case PD_CU_FLOAT32: { float t = (float)v; memcpy(e, &t, 4); break; }
    case PD_CU_FLOAT64: memcpy(e, &v, 8); break;
    default: return fail(PD_CU_ERR_UNSUPPORTED, "fill: dtype %s is not implemented on GPU", dtype_name(dst->dtype));
  }
  return fill_bytes(dst, e);
}

// ---- where ----
struct Where {
  template <class A, class B> __device__ __forceinline__ B operator()(A c, B a, B b) const { return c ? a : b; }
};

int where(const pd_cuda_tensor *out, const pd_cuda_tensor *cond, const pd_cuda_tensor *x, const pd_cuda_tensor *y) {
  if (cond->dtype != PD_CU_BOOL)
    return fail(PD_CU_ERR_INVALID, "where: condition must be bool, received %s", dtype_name(cond->dtype));
  if (x->dtype != out->dtype || y->dtype != out->dtype)
    return fail(PD_CU_ERR_INVALID, "where: x (%s), y (%s) and out (%s) must have one dtype", dtype_name(x->dtype),
                dtype_name(y->dtype), dtype_name(out->dtype));
  switch (elem_size(out->dtype)) {
    case 1: return launch3<uint8_t, pbool, uint8_t, uint8_t>(out, cond, x, y, Where{}, "where");
    case 2: return launch3<uint16_t, pbool, uint16_t, uint16_t>(out, cond, x, y, Where{}, "where");
    case 4: return launch3<uint32_t, pbool, uint32_t, uint32_t>(out, cond, x, y, Where{}, "where");
    case 8: return launch3<uint64_t, pbool, uint64_t, uint64_t>(out, cond, x, y, Where{}, "where");
    default:
      return fail(PD_CU_ERR_UNSUPPORTED, "where: dtype %s is not implemented on GPU", dtype_name(out->dtype));
  }
}

} // namespace pdew
