/* Shape and dtype rules of ops/tensor_extra.yaml: triangular masks, complex parts and views,
 * diagonals, searchsorted, histogram, bincount, mode, the reduce variants of put_along_axis,
 * logcumsumexp, polygamma, tril/triu_indices and the sliding-window view tensor_unfold. Every
 * rule checks its inputs and names the op in its error. */
#include "infer_meta_tensor_extra.h"

static pd_status bad(const char *op, const char *what) {
  return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] %s", op, what);
}

int pd_complex_part_dtype(pd_dtype t) {
  return t == PD_COMPLEX64 ? PD_FLOAT32 : t == PD_COMPLEX128 ? PD_FLOAT64 : -1;
}

pd_status pd_diagonal_geometry(const char *op, const pd_tensor *x, int64_t offset, int64_t axis1,
                               int64_t axis2, int *ndim, int64_t *shape, int64_t *strides,
                               int64_t *off) {
  if (x->ndim < 2)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected x with at least 2 dims, received %d",
                        op, x->ndim);
  int a1, a2;
  PD_TRY(pd_norm_axis(op, axis1, x->ndim, &a1));
  PD_TRY(pd_norm_axis(op, axis2, x->ndim, &a2));
  if (a1 == a2)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] axis1 and axis2 must differ, both are %d", op, a1);
  int nd = 0;
  for (int d = 0; d < x->ndim; d++)
    if (d != a1 && d != a2) {
      shape[nd] = x->shape[d];
      strides[nd++] = x->strides[d];
    }
  int64_t n1 = x->shape[a1], n2 = x->shape[a2], len, o = x->offset;
  if (offset >= 0) {
    len = n2 - offset < n1 ? n2 - offset : n1;
    if (len > 0) o += offset * x->strides[a2];
  } else {
    len = n1 + offset < n2 ? n1 + offset : n2;
    if (len > 0) o -= offset * x->strides[a1];
  }
  if (len < 0) len = 0;
  shape[nd] = len;
  strides[nd++] = x->strides[a1] + x->strides[a2];
  *ndim = nd;
  *off = len > 0 ? o : x->offset;
  return PD_OK;
}

pd_status pd_infer_tril_triu(const void *args, pd_meta_list *out) {
  const pd_tril_triu_args *a = (const pd_tril_triu_args *)args;
  if (a->x->ndim < 2)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[tril_triu] expected x with at least 2 dims, received %d",
                        a->x->ndim);
  pd_meta_like(pd_meta_list_resize(out, 1), a->x);
  return PD_OK;
}

pd_status pd_infer_complex_part(const void *args, pd_meta_list *out) {
  const pd_real_args *a = (const pd_real_args *)args;
  int dt = pd_complex_part_dtype(a->x->dtype);
  if (dt < 0)
    return pd_set_error(PD_ERR_TYPE, "[real/imag] expected a complex64 or complex128 x, received %s",
                        pd_dtype_name(a->x->dtype));
  pd_meta_set(pd_meta_list_resize(out, 1), (pd_dtype)dt, a->x->ndim, a->x->shape);
  return PD_OK;
}

pd_status pd_infer_complex(const void *args, pd_meta_list *out) {
  const pd_complex_args *a = (const pd_complex_args *)args;
  if (a->x->dtype != a->y->dtype || (a->x->dtype != PD_FLOAT32 && a->x->dtype != PD_FLOAT64))
    return pd_set_error(PD_ERR_TYPE, "[complex] expected real and imag of one dtype, float32 or "
                        "float64, received %s and %s", pd_dtype_name(a->x->dtype), pd_dtype_name(a->y->dtype));
  int nd;
  int64_t sh[PD_MAX_DIMS];
  PD_TRY(pd_broadcast_shapes("complex", a->x->ndim, a->x->shape, a->y->ndim, a->y->shape, &nd, sh));
  pd_meta_set(pd_meta_list_resize(out, 1), a->x->dtype == PD_FLOAT32 ? PD_COMPLEX64 : PD_COMPLEX128, nd, sh);
  return PD_OK;
}

pd_status pd_infer_as_real(const void *args, pd_meta_list *out) {
  const pd_as_real_args *a = (const pd_as_real_args *)args;
  int dt = pd_complex_part_dtype(a->x->dtype);
  if (dt < 0)
    return pd_set_error(PD_ERR_TYPE, "[as_real] expected a complex64 or complex128 x, received %s",
                        pd_dtype_name(a->x->dtype));
  if (a->x->ndim >= PD_MAX_DIMS) return bad("as_real", "x has too many dims");
  pd_meta *m = pd_meta_list_resize(out, 1);
  pd_meta_set(m, (pd_dtype)dt, a->x->ndim, a->x->shape);
  m->shape[m->ndim++] = 2;
  return PD_OK;
}

pd_status pd_infer_as_complex(const void *args, pd_meta_list *out) {
  const pd_as_complex_args *a = (const pd_as_complex_args *)args;
  const pd_tensor *x = a->x;
  if (x->dtype != PD_FLOAT32 && x->dtype != PD_FLOAT64)
    return pd_set_error(PD_ERR_TYPE, "[as_complex] expected a float32 or float64 x, received %s",
                        pd_dtype_name(x->dtype));
  if (x->ndim < 1 || x->shape[x->ndim - 1] != 2) {
    char b[128];
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[as_complex] expected x's last dim to be 2, received shape %s",
                        pd_shape_str(x->ndim, x->shape, b, sizeof b));
  }
  int64_t one = 1;
  pd_meta_set(pd_meta_list_resize(out, 1), x->dtype == PD_FLOAT32 ? PD_COMPLEX64 : PD_COMPLEX128,
              x->ndim > 1 ? x->ndim - 1 : 1, x->ndim > 1 ? x->shape : &one);
  return PD_OK;
}

pd_status pd_infer_diagonal(const void *args, pd_meta_list *out) {
  const pd_diagonal_args *a = (const pd_diagonal_args *)args;
  int nd;
  int64_t sh[PD_MAX_DIMS], st[PD_MAX_DIMS], off;
  PD_TRY(pd_diagonal_geometry("diagonal", a->x, a->offset, a->axis1, a->axis2, &nd, sh, st, &off));
  pd_meta_set(pd_meta_list_resize(out, 1), a->x->dtype, nd, sh);
  return PD_OK;
}

pd_status pd_infer_fill_diagonal_tensor(const void *args, pd_meta_list *out) {
  const pd_fill_diagonal_tensor_args *a = (const pd_fill_diagonal_tensor_args *)args;
  int nd;
  int64_t sh[PD_MAX_DIMS], st[PD_MAX_DIMS], off;
  PD_TRY(pd_diagonal_geometry("fill_diagonal_tensor", a->x, a->offset, a->dim1, a->dim2, &nd, sh, st, &off));
  PD_TRY(pd_check_same_dtype("fill_diagonal_tensor", "y", a->y, "x", a->x));
  int ok = a->y->ndim == nd;
  for (int d = 0; ok && d < nd; d++) ok = a->y->shape[d] == sh[d];
  if (!ok) {
    char b1[128], b2[128];
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[fill_diagonal_tensor] expected y of shape %s, received %s",
                        pd_shape_str(nd, sh, b1, sizeof b1), pd_shape_str(a->y->ndim, a->y->shape, b2, sizeof b2));
  }
  pd_meta_like(pd_meta_list_resize(out, 1), a->x);
  return PD_OK;
}

pd_status pd_infer_searchsorted(const void *args, pd_meta_list *out) {
  const pd_searchsorted_args *a = (const pd_searchsorted_args *)args;
  const pd_tensor *s = a->sorted_sequence, *v = a->values;
  PD_TRY(pd_check_same_dtype("searchsorted", "values", v, "sorted_sequence", s));
  if (s->ndim > 1) {
    int ok = s->ndim == v->ndim;
    for (int d = 0; ok && d < s->ndim - 1; d++) ok = s->shape[d] == v->shape[d];
    if (!ok) {
      char b1[128], b2[128];
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[searchsorted] expected sorted_sequence (%s) and values "
                          "(%s) to share all dims but the last", pd_shape_str(s->ndim, s->shape, b1, sizeof b1),
                          pd_shape_str(v->ndim, v->shape, b2, sizeof b2));
    }
  }
  pd_meta_set(pd_meta_list_resize(out, 1), a->out_int32 ? PD_INT32 : PD_INT64, v->ndim, v->shape);
  return PD_OK;
}

pd_status pd_infer_histogram(const void *args, pd_meta_list *out) {
  const pd_histogram_args *a = (const pd_histogram_args *)args;
  if (a->bins < 1)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[histogram] expected bins >= 1, received %lld", (long long)a->bins);
  if (a->max < a->min)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[histogram] expected max >= min, received min %lld, max %lld",
                        (long long)a->min, (long long)a->max);
  int64_t b = a->bins;
  pd_meta_set(pd_meta_list_resize(out, 1), PD_INT64, 1, &b);
  return PD_OK;
}

pd_status pd_infer_bincount(const void *args, pd_meta_list *out) {
  const pd_bincount_args *a = (const pd_bincount_args *)args;
  if (a->x->ndim != 1) return bad("bincount", "expected a 1-D x");
  if (a->minlength < 0)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[bincount] expected minlength >= 0, received %lld",
                        (long long)a->minlength);
  pd_dtype dt = PD_INT64;
  if (a->weights) {
    if (a->weights->ndim != 1 || a->weights->shape[0] != a->x->shape[0])
      return bad("bincount", "expected weights with x's shape");
    if (a->weights->dtype == PD_FLOAT32 || a->weights->dtype == PD_FLOAT64) dt = a->weights->dtype;
    else if (a->weights->dtype != PD_INT32 && a->weights->dtype != PD_INT64)
      return pd_set_error(PD_ERR_TYPE, "[bincount] expected int32, int64, float32 or float64 weights, received %s",
                          pd_dtype_name(a->weights->dtype));
  }
  int64_t n = -1;
  pd_meta_set(pd_meta_list_resize(out, 1), dt, 1, &n);
  return PD_OK;
}

pd_status pd_infer_mode(const void *args, pd_meta_list *out) {
  const pd_mode_args *a = (const pd_mode_args *)args;
  int ax;
  PD_TRY(pd_norm_axis("mode", a->axis, a->x->ndim, &ax));
  if (a->x->shape[ax] == 0) return bad("mode", "expected a non-empty axis");
  pd_meta *m = pd_meta_list_resize(out, 2);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  pd_meta_like(&m[0], a->x);
  m[0].shape[ax] = 1;
  m[1] = m[0];
  m[1].dtype = PD_INT64;
  return PD_OK;
}

/* put_along_axis and put_along_axis_mul share put_along_axis_add's argument layout and rule. */
pd_status pd_infer_put_along_axis(const void *args, pd_meta_list *out) {
  const pd_put_along_axis_args *a = (const pd_put_along_axis_args *)args;
  pd_put_along_axis_add_args b = {.x = a->x, .indices = a->indices, .values = a->values, .axis = a->axis};
  return pd_infer_put_along_axis_add(&b, out);
}

pd_status pd_infer_put_along_axis_mul_grad(const void *args, pd_meta_list *out) {
  const pd_put_along_axis_mul_grad_args *a = (const pd_put_along_axis_mul_grad_args *)args;
  pd_put_along_axis_add_args b = {.x = a->x, .indices = a->indices, .values = a->values, .axis = a->axis};
  PD_TRY(pd_infer_put_along_axis_add(&b, out));
  PD_TRY(pd_check_same_dtype("put_along_axis_mul_grad", "dout", a->dout, "x", a->x));
  if (a->dout->ndim != a->x->ndim || memcmp(a->dout->shape, a->x->shape, sizeof(int64_t) * (size_t)a->x->ndim))
    return bad("put_along_axis_mul_grad", "expected dout with x's shape");
  pd_meta_set(&out->m[0], a->x->dtype, a->values->ndim, a->values->shape);
  return PD_OK;
}

pd_status pd_infer_put_along_axis_mul_pairs(const void *args, pd_meta_list *out) {
  const pd_put_along_axis_mul_pairs_args *a = (const pd_put_along_axis_mul_pairs_args *)args;
  pd_put_along_axis_mul_grad_args b = {.x = a->x, .indices = a->indices, .values = a->values, .dout = a->dout,
                                       .axis = a->axis};
  PD_TRY(pd_infer_put_along_axis_mul_grad(&b, out));
  PD_TRY(pd_check_same_dtype("put_along_axis_mul_pairs", "h", a->h, "x", a->x));
  if (a->h->ndim != a->values->ndim ||
      memcmp(a->h->shape, a->values->shape, sizeof(int64_t) * (size_t)a->values->ndim))
    return bad("put_along_axis_mul_pairs", "expected h with values' shape");
  return PD_OK;
}

pd_status pd_infer_logcumsumexp(const void *args, pd_meta_list *out) {
  const pd_logcumsumexp_args *a = (const pd_logcumsumexp_args *)args;
  int ax;
  PD_TRY(pd_norm_axis("logcumsumexp", a->axis, a->x->ndim, &ax));
  pd_meta_like(pd_meta_list_resize(out, 1), a->x);
  return PD_OK;
}

/* logcumsumexp_grad / logcumsumexp_grad_t: x, lse and dout of one shape and dtype */
pd_status pd_infer_logcumsumexp_grad(const void *args, pd_meta_list *out) {
  const pd_logcumsumexp_grad_args *a = (const pd_logcumsumexp_grad_args *)args;
  int ax;
  PD_TRY(pd_norm_axis("logcumsumexp_grad", a->axis, a->x->ndim, &ax));
  PD_TRY(pd_check_same_dtype("logcumsumexp_grad", "lse", a->lse, "x", a->x));
  PD_TRY(pd_check_same_dtype("logcumsumexp_grad", "dout", a->dout, "x", a->x));
  const pd_tensor *t[2] = {a->lse, a->dout};
  for (int i = 0; i < 2; i++)
    if (t[i]->ndim != a->x->ndim || memcmp(t[i]->shape, a->x->shape, sizeof(int64_t) * (size_t)a->x->ndim))
      return bad("logcumsumexp_grad", "expected x, lse and dout of one shape");
  pd_meta_like(pd_meta_list_resize(out, 1), a->x);
  return PD_OK;
}

pd_status pd_infer_polygamma(const void *args, pd_meta_list *out) {
  const pd_polygamma_args *a = (const pd_polygamma_args *)args;
  if (a->n < 0)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[polygamma] expected a non-negative order n, received %lld",
                        (long long)a->n);
  pd_meta_like(pd_meta_list_resize(out, 1), a->x);
  return PD_OK;
}

/* number of (i, j), 0 <= i < rows, 0 <= j < cols, with j - i <= offset (lower) or >= offset */
int64_t pd_tri_count(int64_t rows, int64_t cols, int64_t offset, int lower) {
  int64_t n = 0;
  for (int64_t i = 0; i < rows; i++) {
    int64_t lo = lower ? 0 : i + offset, hi = lower ? i + offset + 1 : cols; /* [lo, hi) */
    if (lo < 0) lo = 0;
    if (hi > cols) hi = cols;
    if (hi > lo) n += hi - lo;
  }
  return n;
}

static pd_status infer_tri_indices(const char *op, const pd_tril_indices_args *a, int lower,
                                   pd_meta_list *out) {
  if (a->rows < 0 || a->cols < 0)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected non-negative rows and cols, received %lld and %lld",
                        op, (long long)a->rows, (long long)a->cols);
  int dt = a->dtype < 0 ? PD_INT64 : a->dtype;
  if (dt != PD_INT32 && dt != PD_INT64)
    return pd_set_error(PD_ERR_TYPE, "[%s] expected dtype int32 or int64, received %s", op,
                        pd_dtype_name((pd_dtype)dt));
  int64_t sh[2] = {2, pd_tri_count(a->rows, a->cols, a->offset, lower)};
  pd_meta_set(pd_meta_list_resize(out, 1), (pd_dtype)dt, 2, sh);
  return PD_OK;
}
pd_status pd_infer_tril_indices(const void *args, pd_meta_list *out) {
  return infer_tri_indices("tril_indices", (const pd_tril_indices_args *)args, 1, out);
}
/* triu_indices has tril_indices' argument layout */
pd_status pd_infer_triu_indices(const void *args, pd_meta_list *out) {
  return infer_tri_indices("triu_indices", (const pd_tril_indices_args *)args, 0, out);
}

/* tensor_unfold: x's dims with axis -> the number of windows, then the window (size) last;
 * strides: axis's stride times step, then axis's stride. */
pd_status pd_window_geometry(const char *op, int ndim, const int64_t *shape, const int64_t *strides,
                             int64_t axis, int64_t size, int64_t step, int64_t *osh, int64_t *ost) {
  int ax;
  PD_TRY(pd_norm_axis(op, axis, ndim, &ax));
  if (ndim + 1 > PD_MAX_DIMS) return bad(op, "too many dims");
  if (step < 1)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected step >= 1, received %lld", op, (long long)step);
  if (size < 0 || size > shape[ax])
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected size in [0, %lld] (the size of axis %d), "
                        "received %lld", op, (long long)shape[ax], ax, (long long)size);
  for (int d = 0; d < ndim; d++) {
    osh[d] = shape[d];
    if (ost) ost[d] = strides[d];
  }
  osh[ax] = (shape[ax] - size) / step + 1;
  osh[ndim] = size;
  if (ost) {
    ost[ax] = strides[ax] * step;
    ost[ndim] = strides[ax];
  }
  return PD_OK;
}

pd_status pd_infer_tensor_unfold(const void *args, pd_meta_list *out) {
  const pd_tensor_unfold_args *a = (const pd_tensor_unfold_args *)args;
  int64_t sh[PD_MAX_DIMS];
  PD_TRY(pd_window_geometry("tensor_unfold", a->x->ndim, a->x->shape, NULL, a->axis, a->size, a->step, sh, NULL));
  pd_meta_set(pd_meta_list_resize(out, 1), a->x->dtype, a->x->ndim + 1, sh);
  return PD_OK;
}

pd_status pd_infer_tensor_unfold_grad(const void *args, pd_meta_list *out) {
  const pd_tensor_unfold_grad_args *a = (const pd_tensor_unfold_grad_args *)args;
  int nd = (int)a->x_shape.n;
  if (nd < 1 || nd >= PD_MAX_DIMS) return bad("tensor_unfold_grad", "expected 1 to 8 dims in x_shape");
  for (int d = 0; d < nd; d++)
    if (a->x_shape.data[d] < 0) return bad("tensor_unfold_grad", "expected non-negative x_shape");
  int64_t sh[PD_MAX_DIMS];
  PD_TRY(pd_window_geometry("tensor_unfold_grad", nd, a->x_shape.data, NULL, a->axis, a->size, a->step, sh, NULL));
  if (a->dout->ndim != nd + 1 || memcmp(a->dout->shape, sh, sizeof(int64_t) * (size_t)(nd + 1))) {
    char b1[128], b2[128];
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[tensor_unfold_grad] expected dout of shape %s, received %s",
                        pd_shape_str(nd + 1, sh, b1, sizeof b1),
                        pd_shape_str(a->dout->ndim, a->dout->shape, b2, sizeof b2));
  }
  pd_meta_set(pd_meta_list_resize(out, 1), a->dout->dtype, nd, a->x_shape.data);
  return PD_OK;
}

/* cummax / cummin (ops/api26.yaml): values like x, indices of x's shape in dtype (int32/int64) */
pd_status pd_infer_cumext(const void *args, pd_meta_list *out) {
  const pd_cummax_args *a = (const pd_cummax_args *)args; /* cummin's layout is the same */
  int ax;
  if (a->x->ndim) PD_TRY(pd_norm_axis("cummax", a->axis, a->x->ndim, &ax));
  if (a->dtype != PD_INT32 && a->dtype != PD_INT64)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[cummax] the dtype of the indices must be int32 or int64, "
                        "received %s", pd_dtype_name((pd_dtype)a->dtype));
  pd_meta *m = pd_meta_list_resize(out, 2);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  pd_meta_like(&m[0], a->x);
  m[1] = m[0];
  m[1].dtype = (pd_dtype)a->dtype;
  return PD_OK;
}
