/* Shape/dtype rules of the reduction family (sum, mean, max ..., arg-reductions, norms, scans),
 * matmul/dot and softmax, plus the axis helpers of csrc/kernels/cpu/reduce_common.h that both the
 * rules and the kernels use. A full reduction has no dims left: pd_scalar_dims (pd_op.h) makes it [1] (Paddle 2.3, the
 * default) or keeps it 0-D (Paddle 2.6, FLAGS_set_to_1d off). */
#include "generated/pd_ops_gen.h"
#include "../kernels/cpu/reduce_common.h"

pd_status pd_reduce_mask(const char *op, int ndim, pd_int_array axis, unsigned *mask) {
  unsigned m = 0;
  if (axis.n == 0) {
    m = ndim > 0 ? (1u << ndim) - 1 : 1u;
  } else {
    for (int64_t i = 0; i < axis.n; i++) {
      int a;
      PD_TRY(pd_norm_axis(op, axis.data[i], ndim, &a));
      m |= 1u << a;
    }
  }
  *mask = m;
  return PD_OK;
}

void pd_reduce_out_shape(int ndim, const int64_t *shape, unsigned mask, int keepdim, int *ondim,
                         int64_t *oshape) {
  int k = 0;
  for (int d = 0; d < ndim; d++) {
    if (mask & (1u << d)) {
      if (keepdim) oshape[k++] = 1;
    } else {
      oshape[k++] = shape[d];
    }
  }
  *ondim = k;
  pd_scalar_dims(ondim, oshape);
}

pd_status pd_reduce_prepare(pd_tensor *x, unsigned mask, pd_tensor **xc, pd_rshape *rs) {
  /* groups of consecutive non-trivial dims with the same reduced flag */
  int64_t gsize[PD_MAX_DIMS];
  int gred[PD_MAX_DIMS], ng = 0;
  for (int d = 0; d < x->ndim; d++) {
    if (x->shape[d] == 1) continue;
    int r = (mask >> d) & 1;
    if (ng > 0 && gred[ng - 1] == r) {
      gsize[ng - 1] *= x->shape[d];
    } else {
      gsize[ng] = x->shape[d];
      gred[ng++] = r;
    }
  }
  rs->outer = 1;
  rs->red = 1;
  rs->inner = 1;
  int g = 0;
  if (g < ng && !gred[g]) rs->outer = gsize[g++];
  if (g < ng && gred[g]) rs->red = gsize[g++];
  if (g < ng && !gred[g]) rs->inner = gsize[g++];
  if (g == ng) return pd_tensor_contiguous(x, xc);
  /* scattered reduced axes: copy with the kept axes first */
  int64_t shape[PD_MAX_DIMS], strides[PD_MAX_DIMS];
  int k = 0;
  rs->outer = 1;
  rs->red = 1;
  rs->inner = 1;
  for (int pass = 0; pass < 2; pass++)
    for (int d = 0; d < x->ndim; d++) {
      if ((int)((mask >> d) & 1) != pass) continue;
      shape[k] = x->shape[d];
      strides[k++] = x->strides[d];
      if (pass) rs->red *= x->shape[d];
      else rs->outer *= x->shape[d];
    }
  pd_tensor *v;
  PD_TRY(pd_tensor_view(x, k, shape, strides, x->offset, &v));
  pd_status s = pd_tensor_clone(v, xc);
  pd_tensor_release(v);
  return s;
}

pd_status pd_axis_prepare(pd_tensor *x, int axis, pd_tensor **xc, pd_rshape *rs) {
  rs->outer = 1;
  rs->red = 1;
  rs->inner = 1;
  for (int d = 0; d < x->ndim; d++) {
    if (d < axis) rs->outer *= x->shape[d];
    else if (d == axis) rs->red = x->shape[d];
    else rs->inner *= x->shape[d];
  }
  return pd_tensor_contiguous(x, xc);
}

/* ---- reductions over an axis list: (Tensor x, int[] axis, bool keepdim, ...) ---- */
typedef struct { pd_tensor *x; pd_int_array axis; int keepdim; } red_args;

static pd_status reduce_meta(const char *op, const void *args, pd_dtype dt, pd_meta_list *out) {
  const red_args *a = (const red_args *)args;
  unsigned mask;
  PD_TRY(pd_reduce_mask(op, a->x->ndim, a->axis, &mask));
  pd_meta *m = pd_meta_list_resize(out, 1);
  pd_reduce_out_shape(a->x->ndim, a->x->shape, mask, a->keepdim, &m->ndim, m->shape);
  m->dtype = dt;
  return PD_OK;
}

/* same dtype as x */
pd_status pd_infer_reduce(const void *args, pd_meta_list *out) {
  return reduce_meta("reduce", args, ((const red_args *)args)->x->dtype, out);
}

/* bool result (all, any) */
pd_status pd_infer_reduce_bool(const void *args, pd_meta_list *out) {
  return reduce_meta("reduce", args, PD_BOOL, out);
}

/* sum: dtype given, else int64 for bool/int32 inputs, else x's dtype */
pd_status pd_infer_sum(const void *args, pd_meta_list *out) {
  const pd_sum_args *a = (const pd_sum_args *)args;
  pd_dtype dt = a->x->dtype;
  if (a->dtype >= 0) dt = (pd_dtype)a->dtype;
  else if (dt == PD_BOOL || dt == PD_INT32) dt = PD_INT64;
  return reduce_meta("sum", args, dt, out);
}

/* p_norm: (Tensor x, float porder, int axis, float epsilon, bool keepdim, bool asvector) */
pd_status pd_infer_p_norm(const void *args, pd_meta_list *out) {
  const pd_p_norm_args *a = (const pd_p_norm_args *)args;
  pd_meta *m = pd_meta_list_resize(out, 1);
  m->dtype = a->x->dtype;
  unsigned mask;
  if (a->asvector) {
    mask = a->x->ndim > 0 ? (1u << a->x->ndim) - 1 : 1u;
  } else {
    int ax;
    PD_TRY(pd_norm_axis("p_norm", a->axis, a->x->ndim, &ax));
    mask = 1u << ax;
  }
  pd_reduce_out_shape(a->x->ndim, a->x->shape, mask, a->keepdim, &m->ndim, m->shape);
  return PD_OK;
}

/* argmax/argmin: (Tensor x, int axis, bool keepdim, bool flatten, DataType dtype) */
pd_status pd_infer_arg_reduce(const void *args, pd_meta_list *out) {
  const pd_argmax_args *a = (const pd_argmax_args *)args;
  pd_meta *m = pd_meta_list_resize(out, 1);
  if (a->dtype >= 0 && a->dtype != PD_INT32 && a->dtype != PD_INT64)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[argmax] expected dtype int32 or int64, received %s",
                        pd_dtype_name((pd_dtype)a->dtype));
  m->dtype = a->dtype == PD_INT32 ? PD_INT32 : PD_INT64;
  if (a->x->numel == 0)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[argmax] expected a non-empty input, received numel 0");
  if (a->flatten) {
    if (a->keepdim) {
      m->ndim = a->x->ndim > 0 ? a->x->ndim : 1;
      for (int d = 0; d < m->ndim; d++) m->shape[d] = 1;
    } else {
      m->ndim = 0;
      pd_scalar_meta(m);
    }
    return PD_OK;
  }
  int ax;
  PD_TRY(pd_norm_axis("argmax", a->axis, a->x->ndim, &ax));
  pd_reduce_out_shape(a->x->ndim, a->x->shape, 1u << ax, a->keepdim, &m->ndim, m->shape);
  return PD_OK;
}

/* cumsum: (Tensor x, int axis, bool flatten, ...): x's shape, or [numel] when flattened */
pd_status pd_infer_cumsum(const void *args, pd_meta_list *out) {
  const pd_cumsum_args *a = (const pd_cumsum_args *)args;
  pd_meta *m = pd_meta_list_resize(out, 1);
  m->dtype = a->x->dtype;
  if (a->flatten || a->x->ndim == 0) {
    m->ndim = 1;
    m->shape[0] = a->x->numel;
    return PD_OK;
  }
  int ax;
  PD_TRY(pd_norm_axis_as(PD_ERR_OUT_OF_RANGE, "cumsum", a->axis, a->x->ndim, &ax));
  pd_meta_like(m, a->x);
  return PD_OK;
}

/* (Tensor x, int axis) ops keeping x's shape: cumprod, softmax, log_softmax */
typedef struct { pd_tensor *x; int64_t axis; } x_axis_args;
pd_status pd_infer_axis_unchanged(const void *args, pd_meta_list *out) {
  const x_axis_args *a = (const x_axis_args *)args;
  int ax;
  PD_TRY(pd_norm_axis("axis", a->axis, a->x->ndim, &ax));
  pd_meta_like(pd_meta_list_resize(out, 1), a->x);
  return PD_OK;
}

/* matmul (matmul_v2 rules): 1-D operands are promoted ([K] -> [1, K] for x, [K, 1] for y) and
 * the added dim removed from the result; batch dims broadcast. */
pd_status pd_matmul_shapes(const pd_tensor *x, const pd_tensor *y, int tx, int ty, int64_t *M,
                           int64_t *N, int64_t *K, int *ondim, int64_t *oshape) {
  char sa[128], sb[128];
  if (x->ndim == 0 || y->ndim == 0)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[matmul] expected x and y to have at least 1 dim, received %d and %d",
                        x->ndim, y->ndim);
  int64_t xm, xk, yk, yn;
  if (x->ndim == 1) {
    xm = 1;
    xk = x->shape[0];
  } else {
    xm = x->shape[x->ndim - 2];
    xk = x->shape[x->ndim - 1];
    if (tx) { int64_t t = xm; xm = xk; xk = t; }
  }
  if (y->ndim == 1) {
    yk = y->shape[0];
    yn = 1;
  } else {
    yk = y->shape[y->ndim - 2];
    yn = y->shape[y->ndim - 1];
    if (ty) { int64_t t = yk; yk = yn; yn = t; }
  }
  if (xk != yk)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[matmul] expected the contracted dims to match (x's %lld vs y's %lld); "
                        "x: %s, y: %s, transpose_x=%d, transpose_y=%d",
                        (long long)xk, (long long)yk, pd_shape_str(x->ndim, x->shape, sa, sizeof sa),
                        pd_shape_str(y->ndim, y->shape, sb, sizeof sb), tx, ty);
  int nbx = x->ndim > 2 ? x->ndim - 2 : 0, nby = y->ndim > 2 ? y->ndim - 2 : 0;
  int nb = 0;
  if (nbx || nby) PD_TRY(pd_broadcast_shapes("matmul", nbx, x->shape, nby, y->shape, &nb, oshape));
  int k = nb;
  if (x->ndim > 1) oshape[k++] = xm;
  if (y->ndim > 1) oshape[k++] = yn;
  *ondim = k;
  pd_scalar_dims(ondim, oshape);
  *M = xm;
  *N = yn;
  *K = xk;
  return PD_OK;
}

pd_status pd_infer_matmul(const void *args, pd_meta_list *out) {
  const pd_matmul_args *a = (const pd_matmul_args *)args;
  PD_TRY(pd_check_same_dtype("matmul", "x", a->x, "y", a->y));
  pd_meta *m = pd_meta_list_resize(out, 1);
  int64_t M, N, K;
  PD_TRY(pd_matmul_shapes(a->x, a->y, a->transpose_x, a->transpose_y, &M, &N, &K, &m->ndim,
                          m->shape));
  m->dtype = a->x->dtype;
  return PD_OK;
}

/* dot: 1-D x 1-D -> the scalar rule ([1] or 0-D); 2-D [N, K] row-wise -> [N, 1] (Paddle 2.3;
 * paddle.dot squeezes it to Paddle 2.6's [N] with FLAGS_set_to_1d off) */
pd_status pd_infer_dot(const void *args, pd_meta_list *out) {
  const pd_dot_args *a = (const pd_dot_args *)args;
  char sa[128], sb[128];
  PD_TRY(pd_check_same_dtype("dot", "x", a->x, "y", a->y));
  if (a->x->ndim < 1 || a->x->ndim > 2 || a->x->ndim != a->y->ndim)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[dot] expected x and y to be both 1-D or both 2-D, received x: %s, y: %s",
                        pd_shape_str(a->x->ndim, a->x->shape, sa, sizeof sa),
                        pd_shape_str(a->y->ndim, a->y->shape, sb, sizeof sb));
  for (int d = 0; d < a->x->ndim; d++)
    if (a->x->shape[d] != a->y->shape[d])
      return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                          "[dot] expected x and y to have the same shape, received x: %s, y: %s",
                          pd_shape_str(a->x->ndim, a->x->shape, sa, sizeof sa),
                          pd_shape_str(a->y->ndim, a->y->shape, sb, sizeof sb));
  pd_meta *m = pd_meta_list_resize(out, 1);
  m->dtype = a->x->dtype;
  if (a->x->ndim == 1) {
    m->ndim = 0;
    pd_scalar_meta(m);
  } else {
    m->ndim = 2;
    m->shape[0] = a->x->shape[0];
    m->shape[1] = 1;
  }
  return PD_OK;
}
