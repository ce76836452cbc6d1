/* Shape and dtype rules of ops/sparse_tensor.yaml (COO/CSR index conversions, CSR @ dense, its
 * transpose and SDDMM). Unknown (-1) dims of static programs pass unchecked; the kernels
 * (csrc/kernels/cpu/sparse_tensor.c) check the index contents. */
#include "generated/pd_ops_gen.h"

static pd_status need(const char *op, const char *name, const pd_tensor *t, int ndim, int int64) {
  if (ndim >= 0 && t->ndim != ndim)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected %s to have %d dims, received %d",
                        op, name, ndim, t->ndim);
  if (int64 && t->dtype != PD_INT64)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected %s to be int64, received %s", op,
                        name, pd_dtype_name(t->dtype));
  return PD_OK;
}

static int known_ne(int64_t a, int64_t b) { return a >= 0 && b >= 0 && a != b; }

static pd_status dims_mismatch(const char *op, const char *what, int64_t want, int64_t got) {
  return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected %s to be %lld, received %lld", op,
                      what, (long long)want, (long long)got);
}

static pd_status check_shape(const char *op, pd_int_array shape, int lo, int hi) {
  if (shape.n < lo || shape.n > hi)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected a shape of %d to %d dims, received %lld",
                        op, lo, hi, (long long)shape.n);
  for (int64_t d = 0; d < shape.n; d++)
    if (shape.data[d] < 0)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected non-negative sizes in shape, "
                          "received %lld at dim %lld", op, (long long)shape.data[d], (long long)d);
  return PD_OK;
}

pd_status pd_infer_sparse_coo_coalesce_index(const void *args, pd_meta_list *out) {
  const pd_sparse_coo_coalesce_index_args *a = (const pd_sparse_coo_coalesce_index_args *)args;
  const char *op = "sparse_coo_coalesce_index";
  PD_TRY(need(op, "indices", a->indices, 2, 1));
  PD_TRY(check_shape(op, a->shape, 1, PD_MAX_DIMS));
  if (a->indices->shape[0] >= 0 && (a->indices->shape[0] < 1 || a->indices->shape[0] > a->shape.n))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected indices to have 1 to %lld rows "
                        "(sparse dims of shape %lld dims), received %lld", op, (long long)a->shape.n,
                        (long long)a->shape.n, (long long)a->indices->shape[0]);
  int64_t s0[2] = {a->indices->shape[0], -1}, s1 = a->indices->shape[1];
  pd_meta_list_resize(out, 2);
  pd_meta_set(&out->m[0], PD_INT64, 2, s0);
  pd_meta_set(&out->m[1], PD_INT64, 1, &s1);
  return PD_OK;
}

pd_status pd_infer_sparse_csr_to_coo_index(const void *args, pd_meta_list *out) {
  const pd_sparse_csr_to_coo_index_args *a = (const pd_sparse_csr_to_coo_index_args *)args;
  const char *op = "sparse_csr_to_coo_index";
  PD_TRY(need(op, "crows", a->crows, 1, 1));
  PD_TRY(need(op, "cols", a->cols, 1, 1));
  PD_TRY(check_shape(op, a->shape, 2, 3));
  int64_t b = a->shape.n == 3 ? a->shape.data[0] : 1, m = a->shape.data[a->shape.n - 2];
  if (known_ne(a->crows->shape[0], b * (m + 1)))
    return dims_mismatch(op, "the length of crows (batches x (rows + 1))", b * (m + 1), a->crows->shape[0]);
  int64_t s[2] = {a->shape.n, a->cols->shape[0]};
  pd_meta_set(pd_meta_list_resize(out, 1), PD_INT64, 2, s);
  return PD_OK;
}

pd_status pd_infer_sparse_coo_to_csr_crows(const void *args, pd_meta_list *out) {
  const pd_sparse_coo_to_csr_crows_args *a = (const pd_sparse_coo_to_csr_crows_args *)args;
  const char *op = "sparse_coo_to_csr_crows";
  PD_TRY(need(op, "indices", a->indices, 2, 1));
  PD_TRY(check_shape(op, a->shape, 2, 3));
  if (known_ne(a->indices->shape[0], a->shape.n))
    return dims_mismatch(op, "the rows of indices (dims of shape)", a->shape.n, a->indices->shape[0]);
  int64_t b = a->shape.n == 3 ? a->shape.data[0] : 1, m = a->shape.data[a->shape.n - 2];
  int64_t n = b * (m + 1);
  pd_meta_set(pd_meta_list_resize(out, 1), PD_INT64, 1, &n);
  return PD_OK;
}

static pd_status check_csr(const char *op, const pd_tensor *crows, const pd_tensor *cols,
                           const pd_tensor *values) {
  PD_TRY(need(op, "crows", crows, 1, 1));
  PD_TRY(need(op, "cols", cols, 1, 1));
  if (values) {
    PD_TRY(need(op, "values", values, 1, 0));
    if (known_ne(values->shape[0], cols->shape[0]))
      return dims_mismatch(op, "the length of values (nnz of cols)", cols->shape[0], values->shape[0]);
  }
  return PD_OK;
}

static pd_status float_like(const char *op, const char *name, const pd_tensor *t, pd_dtype dt) {
  if (t->dtype != dt)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected %s to be %s like the values, received %s",
                        op, name, pd_dtype_name(dt), pd_dtype_name(t->dtype));
  return PD_OK;
}

pd_status pd_infer_sparse_csr_mm(const void *args, pd_meta_list *out) {
  const pd_sparse_csr_mm_args *a = (const pd_sparse_csr_mm_args *)args;
  const char *op = "sparse_csr_mm";
  PD_TRY(check_csr(op, a->crows, a->cols, a->values));
  PD_TRY(need(op, "y", a->y, 2, 0));
  PD_TRY(float_like(op, "y", a->y, a->values->dtype));
  int64_t s[2] = {a->crows->shape[0] < 0 ? -1 : a->crows->shape[0] - 1, a->y->shape[1]};
  if (a->crows->shape[0] == 0) return dims_mismatch(op, "the length of crows at least", 1, 0);
  pd_meta_set(pd_meta_list_resize(out, 1), a->values->dtype, 2, s);
  return PD_OK;
}

pd_status pd_infer_sparse_csr_mm_t(const void *args, pd_meta_list *out) {
  const pd_sparse_csr_mm_t_args *a = (const pd_sparse_csr_mm_t_args *)args;
  const char *op = "sparse_csr_mm_t";
  PD_TRY(check_csr(op, a->crows, a->cols, a->values));
  PD_TRY(need(op, "g", a->g, 2, 0));
  PD_TRY(float_like(op, "g", a->g, a->values->dtype));
  if (a->like->ndim < 1) return dims_mismatch(op, "the dims of like at least", 1, 0);
  if (a->crows->shape[0] == 0) return dims_mismatch(op, "the length of crows at least", 1, 0);
  if (a->crows->shape[0] >= 0 && known_ne(a->g->shape[0], a->crows->shape[0] - 1))
    return dims_mismatch(op, "the rows of g (rows of the sparse matrix)", a->crows->shape[0] - 1, a->g->shape[0]);
  int64_t s[2] = {a->like->shape[0], a->g->shape[1]};
  pd_meta_set(pd_meta_list_resize(out, 1), a->values->dtype, 2, s);
  return PD_OK;
}

pd_status pd_infer_sparse_sddmm(const void *args, pd_meta_list *out) {
  const pd_sparse_sddmm_args *a = (const pd_sparse_sddmm_args *)args;
  const char *op = "sparse_sddmm";
  PD_TRY(check_csr(op, a->crows, a->cols, NULL));
  PD_TRY(need(op, "x", a->x, 2, 0));
  PD_TRY(need(op, "yt", a->yt, 2, 0));
  PD_TRY(float_like(op, "yt", a->yt, a->x->dtype));
  if (a->crows->shape[0] == 0) return dims_mismatch(op, "the length of crows at least", 1, 0);
  if (a->crows->shape[0] >= 0 && known_ne(a->x->shape[0], a->crows->shape[0] - 1))
    return dims_mismatch(op, "the rows of x (rows of the mask)", a->crows->shape[0] - 1, a->x->shape[0]);
  if (known_ne(a->x->shape[1], a->yt->shape[1]))
    return dims_mismatch(op, "the inner dim of y", a->x->shape[1], a->yt->shape[1]);
  int64_t n = a->cols->shape[0];
  pd_meta_set(pd_meta_list_resize(out, 1), a->x->dtype, 1, &n);
  return PD_OK;
}
