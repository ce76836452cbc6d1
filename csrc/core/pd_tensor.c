/* Tensor and storage lifetime, views, contiguity, and shape helpers (copies and casts between
 * tensors: pd_tensor_copy.c, above the strided iterator). */
#include "pd_tensor.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pd_alloc.h"
#include "pd_device.h"

/* ---------------- storage ---------------- */
pd_status pd_storage_new(size_t nbytes, pd_storage **out) {
  if (__builtin_expect(pd_device_current() >= 0, 0)) return pd_storage_new_on(pd_device_current(), nbytes, out);
  pd_storage *s = (pd_storage *)malloc(sizeof *s);
  if (!s) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory allocating a storage");
  s->data = pd_alloc(nbytes);
  if (!s->data) {
    free(s);
    return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED,
                        "out of memory: cannot allocate %zu bytes for a tensor", nbytes);
  }
  atomic_init(&s->refcount, 1);
  s->nbytes = nbytes;
  s->deleter = NULL;
  s->deleter_ctx = NULL;
  s->version = 0;
  s->device = -1; /* PD_CPU */
  *out = s;
  return PD_OK;
}

pd_status pd_storage_wrap(void *data, size_t nbytes, void (*deleter)(void *, void *), void *ctx,
                          pd_storage **out) {
  pd_storage *s = (pd_storage *)malloc(sizeof *s);
  if (!s) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory allocating a storage");
  atomic_init(&s->refcount, 1);
  s->data = data;
  s->nbytes = nbytes;
  s->deleter = deleter;
  s->deleter_ctx = ctx;
  s->version = 0;
  s->device = -1; /* PD_CPU */
  *out = s;
  return PD_OK;
}

void pd_storage_retain(pd_storage *s) {
  if (s) atomic_fetch_add_explicit(&s->refcount, 1, memory_order_relaxed);
}

void pd_storage_release(pd_storage *s) {
  if (!s) return;
  if (atomic_fetch_sub_explicit(&s->refcount, 1, memory_order_acq_rel) != 1) return;
  if (s->deleter) s->deleter(s->deleter_ctx, s->data);
  else pd_free(s->data);
  free(s);
}

/* ---------------- tensors ---------------- */
void pd_contiguous_strides(int ndim, const int64_t *shape, int64_t *strides) {
  int64_t st = 1;
  for (int d = ndim - 1; d >= 0; d--) {
    strides[d] = st;
    st *= shape[d] > 0 ? shape[d] : 1;
  }
}

static pd_status check_shape(int ndim, const int64_t *shape) {
  if (ndim < 0 || ndim > PD_MAX_DIMS)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "a tensor may have at most %d dimensions, received %d", PD_MAX_DIMS, ndim);
  int64_t n = 1;
  for (int d = 0; d < ndim; d++) {
    if (shape[d] < 0)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                          "each dimension of a shape must be >= 0, received %lld at axis %d",
                          (long long)shape[d], d);
    if (shape[d] > 0 && n > INT64_MAX / shape[d])
      return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "the shape's element count overflows int64");
    n *= shape[d];
  }
  return PD_OK;
}

static pd_status tensor_struct(pd_dtype dtype, int ndim, const int64_t *shape, pd_tensor **out) {
  if (!pd_dtype_is_valid((int)dtype))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "unknown dtype code %d", (int)dtype);
  PD_TRY(check_shape(ndim, shape));
  pd_tensor *t = (pd_tensor *)calloc(1, sizeof *t);
  if (!t) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory allocating a tensor");
  atomic_init(&t->refcount, 1);
  t->stop_gradient = 1;
  t->dtype = dtype;
  t->ndim = ndim;
  for (int d = 0; d < ndim; d++) t->shape[d] = shape[d];
  pd_contiguous_strides(ndim, t->shape, t->strides);
  t->numel = pd_shape_numel(ndim, t->shape);
  *out = t;
  return PD_OK;
}

pd_status pd_tensor_meta(pd_dtype dtype, int ndim, const int64_t *shape, pd_tensor **out) {
  return tensor_struct(dtype, ndim, shape, out);
}

pd_status pd_tensor_alloc(pd_tensor *t) {
  if (t->storage) return PD_OK;
  size_t isz = pd_dtype_size(t->dtype);
  if (t->numel > 0 && (uint64_t)t->numel > (uint64_t)(SIZE_MAX / 2) / isz)
    return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "tensor of %lld elements is too large",
                        (long long)t->numel);
  PD_TRY(pd_storage_new((size_t)t->numel * isz, &t->storage));
  pd_contiguous_strides(t->ndim, t->shape, t->strides);
  t->offset = 0;
  return PD_OK;
}

pd_status pd_tensor_empty(pd_dtype dtype, int ndim, const int64_t *shape, pd_tensor **out) {
  pd_tensor *t;
  PD_TRY(tensor_struct(dtype, ndim, shape, &t));
  pd_status s = pd_tensor_alloc(t);
  if (s != PD_OK) {
    free(t);
    return s;
  }
  *out = t;
  return PD_OK;
}

pd_status pd_tensor_zeros(pd_dtype dtype, int ndim, const int64_t *shape, pd_tensor **out) {
  PD_TRY(pd_tensor_empty(dtype, ndim, shape, out));
  if ((*out)->storage->device >= 0) {
    pd_status s = pd_device_fill_(*out, 0.0, 0.0);
    if (s != PD_OK) pd_tensor_release(*out);
    return s;
  }
  memset((*out)->storage->data, 0, (size_t)(*out)->numel * pd_dtype_size(dtype));
  return PD_OK;
}

pd_status pd_tensor_from_storage(pd_storage *s, pd_dtype dtype, int ndim, const int64_t *shape,
                                 const int64_t *strides, int64_t offset, pd_tensor **out) {
  pd_tensor *t;
  PD_TRY(tensor_struct(dtype, ndim, shape, &t));
  if (strides)
    for (int d = 0; d < ndim; d++) t->strides[d] = strides[d];
  t->offset = offset;
  /* bounds check: every reachable element must lie inside the storage */
  if (t->numel > 0) {
    int64_t lo = offset, hi = offset;
    for (int d = 0; d < ndim; d++) {
      int64_t ext = (t->shape[d] - 1) * t->strides[d];
      if (ext < 0) lo += ext;
      else hi += ext;
    }
    int64_t cap = (int64_t)(s->nbytes / pd_dtype_size(dtype));
    if (lo < 0 || hi >= cap) {
      free(t);
      return pd_set_error(PD_ERR_OUT_OF_RANGE,
                          "a view reaches elements [%lld, %lld] of a storage of %lld elements",
                          (long long)lo, (long long)hi, (long long)cap);
    }
  }
  pd_storage_retain(s);
  t->storage = s;
  *out = t;
  return PD_OK;
}

pd_status pd_tensor_view(pd_tensor *base, int ndim, const int64_t *shape, const int64_t *strides,
                         int64_t offset, pd_tensor **out) {
  if (!base->storage)
    return pd_set_error(PD_ERR_PRECONDITION_NOT_MET, "the tensor holds no data (a program variable "
                        "or a shape-only tensor) and cannot be viewed");
  return pd_tensor_from_storage(base->storage, base->dtype, ndim, shape, strides, offset, out);
}

void (*pd_autograd_meta_free_hook)(struct pd_autograd_meta *) = NULL;
void (*pd_tensor_var_free_hook)(pd_tensor *) = NULL;
void (*pd_tensor_var_retain_hook)(struct pd_var *) = NULL;

pd_status pd_tensor_meta_like_var(const pd_tensor *t, pd_tensor **out) {
  pd_tensor *v = (pd_tensor *)calloc(1, sizeof *v);
  if (!v) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory allocating a tensor");
  atomic_init(&v->refcount, 1);
  v->stop_gradient = 1;
  v->dtype = t->dtype;
  v->ndim = t->ndim;
  for (int d = 0; d < t->ndim; d++) {
    v->shape[d] = t->shape[d];
    v->strides[d] = t->strides[d];
  }
  v->numel = t->numel;
  if (t->var && pd_tensor_var_retain_hook) {
    pd_tensor_var_retain_hook(t->var);
    v->var = t->var;
  }
  *out = v;
  return PD_OK;
}

void pd_tensor_retain(pd_tensor *t) {
  if (t) atomic_fetch_add_explicit(&t->refcount, 1, memory_order_relaxed);
}

void pd_tensor_release(pd_tensor *t) {
  if (!t) return;
  if (atomic_fetch_sub_explicit(&t->refcount, 1, memory_order_acq_rel) != 1) return;
  if (t->autograd && pd_autograd_meta_free_hook) pd_autograd_meta_free_hook(t->autograd);
  if (t->var && pd_tensor_var_free_hook) pd_tensor_var_free_hook(t);
  pd_storage_release(t->storage);
  free(t);
}

int pd_tensor_is_contiguous(const pd_tensor *t) {
  int64_t st = 1;
  for (int d = t->ndim - 1; d >= 0; d--) {
    if (t->shape[d] != 1 && t->strides[d] != st) return 0;
    st *= t->shape[d];
  }
  return 1;
}

void pd_tensor_bump_version(pd_tensor *t) {
  if (t && t->storage) t->storage->version++;
}

pd_status pd_norm_axis_as(pd_status code, const char *op, int64_t axis, int ndim, int *out) {
  int64_t lim = ndim > 0 ? ndim : 1;
  if (axis < -lim || axis >= lim)
    return pd_set_error(code, "[%s] axis must be in the range [%lld, %lld), received %lld", op,
                        (long long)-lim, (long long)lim, (long long)axis);
  *out = (int)(axis < 0 ? axis + lim : axis);
  return PD_OK;
}

pd_status pd_norm_axis(const char *op, int64_t axis, int ndim, int *out) {
  return pd_norm_axis_as(PD_ERR_INVALID_ARGUMENT, op, axis, ndim, out); /* Paddle: InvalidArgument (ValueError) */
}

pd_status pd_broadcast_shapes(const char *op, int na, const int64_t *a, int nb, const int64_t *b,
                              int *nout, int64_t *out) {
  int n = na > nb ? na : nb;
  for (int i = 0; i < n; i++) {
    int ia = na - n + i, ib = nb - n + i;
    int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
    if (da != db && da != 1 && db != 1) {
      char sa[128], sb[128];
      return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                          "[%s] the shapes %s and %s cannot be broadcast together (dimension %d: "
                          "%lld vs %lld)",
                          op, pd_shape_str(na, a, sa, sizeof sa), pd_shape_str(nb, b, sb, sizeof sb),
                          i, (long long)da, (long long)db);
    }
    out[i] = da == 1 ? db : da;
  }
  *nout = n;
  return PD_OK;
}

const char *pd_shape_str(int ndim, const int64_t *shape, char *buf, size_t n) {
  size_t k = 0;
  k += (size_t)snprintf(buf + k, n - k, "[");
  for (int d = 0; d < ndim && k < n; d++)
    k += (size_t)snprintf(buf + k, n - k, d ? ", %lld" : "%lld", (long long)shape[d]);
  if (k < n) snprintf(buf + k, n - k, "]");
  return buf;
}

/* ---------------- scalar element access ---------------- */
void pd_load_as_complex(const void *p, pd_dtype t, double *re, double *im) {
  *im = 0;
  switch (t) {
    case PD_BOOL: *re = *(const uint8_t *)p != 0; break;
    case PD_UINT8: *re = *(const uint8_t *)p; break;
    case PD_INT8: *re = *(const int8_t *)p; break;
    case PD_INT16: *re = *(const int16_t *)p; break;
    case PD_INT32: *re = *(const int32_t *)p; break;
    case PD_INT64: *re = (double)*(const int64_t *)p; break;
    case PD_FLOAT16: *re = pd_f16_to_f32(*(const pd_float16 *)p); break;
    case PD_BFLOAT16: *re = pd_bf16_to_f32(*(const pd_bfloat16 *)p); break;
    case PD_FLOAT32: *re = *(const float *)p; break;
    case PD_FLOAT64: *re = *(const double *)p; break;
    case PD_COMPLEX64: {
      pd_complex64 c = *(const pd_complex64 *)p;
      *re = crealf(c);
      *im = cimagf(c);
      break;
    }
    case PD_COMPLEX128: {
      pd_complex128 c = *(const pd_complex128 *)p;
      *re = creal(c);
      *im = cimag(c);
      break;
    }
    default: *re = 0;
  }
}

double pd_load_as_double(const void *p, pd_dtype t) {
  double re, im;
  pd_load_as_complex(p, t, &re, &im);
  return re;
}

int64_t pd_load_as_int64(const void *p, pd_dtype t) {
  switch (t) {
    case PD_INT64: return *(const int64_t *)p;
    case PD_INT32: return *(const int32_t *)p;
    default: return (int64_t)pd_load_as_double(p, t);
  }
}

void pd_store_from_complex(void *p, pd_dtype t, double re, double im) {
  switch (t) {
    case PD_BOOL: *(uint8_t *)p = (re != 0 || im != 0); break;
    case PD_UINT8: *(uint8_t *)p = (uint8_t)(int64_t)re; break;
    case PD_INT8: *(int8_t *)p = (int8_t)(int64_t)re; break;
    case PD_INT16: *(int16_t *)p = (int16_t)(int64_t)re; break;
    case PD_INT32: *(int32_t *)p = (int32_t)(int64_t)re; break;
    case PD_INT64: *(int64_t *)p = (int64_t)re; break;
    case PD_FLOAT16: *(pd_float16 *)p = pd_f64_to_f16(re); break;
    case PD_BFLOAT16: *(pd_bfloat16 *)p = pd_f64_to_bf16(re); break;
    case PD_FLOAT32: *(float *)p = (float)re; break;
    case PD_FLOAT64: *(double *)p = re; break;
    case PD_COMPLEX64: *(pd_complex64 *)p = (float)re + (float)im * I; break;
    case PD_COMPLEX128: *(pd_complex128 *)p = re + im * I; break;
    default: break;
  }
}

void pd_store_from_double(void *p, pd_dtype t, double v) { pd_store_from_complex(p, t, v, 0); }

void pd_store_from_int64(void *p, pd_dtype t, int64_t v) {
  switch (t) {
    case PD_INT64: *(int64_t *)p = v; break;
    case PD_INT32: *(int32_t *)p = (int32_t)v; break;
    default: pd_store_from_double(p, t, (double)v);
  }
}
