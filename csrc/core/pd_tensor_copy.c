/* Copies between tensors of any layout and dtype: copy_ (broadcasting src into dst, casting),
 * cast, fill_, clone and contiguous. They sit above both the tensor core (pd_tensor.c) and the
 * strided iterator (pd_iter.c), which serves them: the core itself never calls the iterator. */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include "pd_tensor.h"
#include "pd_iter.h"
#include "pd_cast.h"
#include "pd_device.h"

pd_status pd_tensor_copy_(pd_tensor *dst, pd_tensor *src) {
  if (dst->numel == 0) return PD_OK;
  if (pd_tensor_on_gpu(dst) || pd_tensor_on_gpu(src)) return pd_device_copy_(dst, src);
  size_t isz = pd_dtype_size(dst->dtype);
  if (dst->dtype == src->dtype && dst->numel == src->numel && pd_tensor_is_contiguous(dst) &&
      pd_tensor_is_contiguous(src) && dst->ndim >= src->ndim) {
    int same = 1;
    int off = dst->ndim - src->ndim;
    for (int d = 0; d < src->ndim; d++)
      if (src->shape[d] != dst->shape[d + off]) same = 0;
    if (same) {
      memmove(pd_tensor_data(dst), pd_tensor_data(src), (size_t)dst->numel * isz);
      return PD_OK;
    }
  }
  pd_iter it;
  pd_tensor *ops[2] = {dst, src};
  PD_TRY(pd_iter_init(&it, "copy", 2, ops));
  pd_iter_run(&it, pd_cast_loop(src->dtype, dst->dtype), NULL, 0);
  return PD_OK;
}

pd_status pd_tensor_cast(pd_tensor *src, pd_dtype dtype, pd_tensor **out) {
  if (src->dtype == dtype) {
    pd_tensor_retain(src);
    *out = src;
    return PD_OK;
  }
  pd_tensor *o;
  PD_TRY(pd_tensor_empty_on(pd_tensor_device(src), dtype, src->ndim, src->shape, &o));
  pd_status s = pd_tensor_copy_(o, src);
  if (s != PD_OK) {
    pd_tensor_release(o);
    return s;
  }
  *out = o;
  return PD_OK;
}

pd_status pd_tensor_fill_(pd_tensor *t, double re, double im) {
  if (t->numel == 0) return PD_OK;
  if (pd_tensor_on_gpu(t)) return pd_device_fill_(t, re, im);
  /* one element, then broadcast-copy it */
  unsigned char buf[16];
  pd_store_from_complex(buf, t->dtype, re, im);
  if (pd_tensor_is_contiguous(t)) {
    size_t isz = pd_dtype_size(t->dtype), n = (size_t)t->numel;
    char *d = (char *)pd_tensor_data(t);
    int zero = 1;
    for (size_t k = 0; k < isz; k++) zero &= buf[k] == 0;
    if (zero) {
      memset(d, 0, n * isz);
    } else if (isz == 4) {
      uint32_t v;
      memcpy(&v, buf, 4);
      for (size_t i = 0; i < n; i++) memcpy(d + 4 * i, &v, 4);
    } else if (isz == 8) {
      uint64_t v;
      memcpy(&v, buf, 8);
      for (size_t i = 0; i < n; i++) memcpy(d + 8 * i, &v, 8);
    } else {
      for (size_t i = 0; i < n; i++) memcpy(d + isz * i, buf, isz);
    }
    return PD_OK;
  }
  pd_storage tmp_s;
  atomic_init(&tmp_s.refcount, 1);
  tmp_s.data = buf;
  tmp_s.nbytes = sizeof buf;
  tmp_s.deleter = NULL;
  tmp_s.device = PD_CPU;
  pd_tensor one;
  memset(&one, 0, sizeof one);
  one.dtype = t->dtype;
  one.ndim = 0;
  one.numel = 1;
  one.storage = &tmp_s;
  return pd_tensor_copy_(t, &one);
}

pd_status pd_tensor_clone(pd_tensor *t, pd_tensor **out) {
  pd_tensor *o;
  PD_TRY(pd_tensor_empty_on(pd_tensor_device(t), t->dtype, t->ndim, t->shape, &o));
  pd_status s = pd_tensor_copy_(o, t);
  if (s != PD_OK) {
    pd_tensor_release(o);
    return s;
  }
  *out = o;
  return PD_OK;
}

pd_status pd_tensor_contiguous(pd_tensor *t, pd_tensor **out) {
  if (pd_tensor_is_contiguous(t)) {
    pd_tensor_retain(t);
    *out = t;
    return PD_OK;
  }
  return pd_tensor_clone(t, out);
}
