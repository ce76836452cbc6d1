/* Shape/dtype rules of the sequence (LoD) ops (ops/sequence.yaml) and of py_func
 * (ops/callback.yaml). Offsets are int64 (int32 accepted) 1-D tensors [n + 1]; an absent offsets
 * tensor (a program's implicit LoD) leaves the number of sequences unknown (-1). Dims that depend
 * on offset values (padded lengths, rows of expanded or sliced outputs) are -1: the kernels then
 * make those outputs. Value checks (offsets start at 0, do not decrease, end at the row count)
 * run in the kernels. */
#include <string.h>
#include "generated/pd_ops_gen.h"

#define BAD(...) pd_set_error(PD_ERR_INVALID_ARGUMENT, __VA_ARGS__)
#define META(out, n)                                                      \
  pd_meta *m = pd_meta_list_resize(out, n);                               \
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory")

static pd_status need_float(const char *op, const char *name, const pd_tensor *t) {
  if (t->dtype != PD_FLOAT32 && t->dtype != PD_FLOAT64)
    return pd_set_error(PD_ERR_TYPE, "[%s] expected %s to be float32 or float64, received %s", op, name,
                        pd_dtype_name(t->dtype));
  return PD_OK;
}

static pd_status need_int(const char *op, const char *name, const pd_tensor *t) {
  if (t->dtype != PD_INT32 && t->dtype != PD_INT64)
    return pd_set_error(PD_ERR_TYPE, "[%s] expected %s to be int32 or int64, received %s", op, name,
                        pd_dtype_name(t->dtype));
  return PD_OK;
}

/* the number of sequences of offsets lod (-1: unknown) */
static pd_status lod_n(const char *op, const char *name, const pd_tensor *lod, int64_t *n) {
  *n = -1;
  if (!lod) return PD_OK;
  PD_TRY(need_int(op, name, lod));
  if (lod->ndim != 1)
    return BAD("[%s] expected %s (sequence offsets) to be 1-D, received %d-D", op, name, lod->ndim);
  if (lod->shape[0] < 1 && lod->shape[0] >= 0)
    return BAD("[%s] expected %s (sequence offsets) to hold at least one offset", op, name);
  *n = lod->shape[0] - 1;
  return PD_OK;
}

static pd_status need_rows(const char *op, const char *name, const pd_tensor *x) {
  if (x->ndim < 1) return BAD("[%s] expected %s with at least 1 dim (rows = sequence steps)", op, name);
  return PD_OK;
}

pd_status pd_infer_sequence_lod(const void *args, pd_meta_list *out) {
  const pd_sequence_lod_args *a = (const pd_sequence_lod_args *)args;
  int64_t n;
  PD_TRY(lod_n("sequence_lod", "x_lod", a->x_lod, &n));
  META(out, 1);
  int64_t len = a->x_lod ? a->x_lod->shape[0] : -1;
  pd_meta_set(m, PD_INT64, 1, &len);
  return PD_OK;
}

pd_status pd_infer_sequence_pool(const void *args, pd_meta_list *out) {
  const pd_sequence_pool_args *a = (const pd_sequence_pool_args *)args;
  PD_TRY(need_float("sequence_pool", "x", a->x));
  PD_TRY(need_rows("sequence_pool", "x", a->x));
  static const char *types[] = {"AVERAGE", "SUM", "SQRT", "MAX", "LAST", "FIRST"};
  int ok = 0;
  for (int i = 0; i < 6; i++) ok |= a->pooltype && strcmp(a->pooltype, types[i]) == 0;
  if (!ok)
    return BAD("[sequence_pool] expected pooltype in AVERAGE, SUM, SQRT, MAX, LAST, FIRST, received '%s'",
               a->pooltype ? a->pooltype : "(null)");
  int64_t n;
  PD_TRY(lod_n("sequence_pool", "x_lod", a->x_lod, &n));
  META(out, 2);
  pd_meta_like(&m[0], a->x);
  m[0].shape[0] = n;
  pd_meta_like(&m[1], a->x);
  m[1].shape[0] = n;
  m[1].dtype = PD_INT32;
  return PD_OK;
}

pd_status pd_infer_sequence_pool_grad(const void *args, pd_meta_list *out) {
  const pd_sequence_pool_grad_args *a = (const pd_sequence_pool_grad_args *)args;
  PD_TRY(need_float("sequence_pool_grad", "dout", a->dout));
  int64_t n;
  PD_TRY(lod_n("sequence_pool_grad", "x_lod", a->x_lod, &n));
  META(out, 1);
  pd_meta_like(m, a->x);
  m->dtype = a->dout->dtype;
  return PD_OK;
}

pd_status pd_infer_sequence_same(const void *args, pd_meta_list *out) {
  /* sequence_softmax and sequence_reverse share their leading fields (x, x_lod) */
  const pd_sequence_reverse_args *a = (const pd_sequence_reverse_args *)args;
  PD_TRY(need_rows("sequence", "x", a->x));
  int64_t n;
  PD_TRY(lod_n("sequence", "x_lod", a->x_lod, &n));
  META(out, 1);
  pd_meta_like(m, a->x);
  return PD_OK;
}

pd_status pd_infer_sequence_softmax_grad(const void *args, pd_meta_list *out) {
  const pd_sequence_softmax_grad_args *a = (const pd_sequence_softmax_grad_args *)args;
  PD_TRY(pd_check_same_dtype("sequence_softmax_grad", "out", a->out, "dout", a->dout));
  META(out, 1);
  pd_meta_like(m, a->out);
  return PD_OK;
}

static pd_status context_check(const char *op, const pd_tensor *x, const pd_tensor *lod, int64_t len) {
  PD_TRY(need_float(op, "x", x));
  if (x->ndim != 2) return BAD("[%s] expected x of shape [total_steps, width], received %d-D", op, x->ndim);
  int64_t n;
  PD_TRY(lod_n(op, "x_lod", lod, &n));
  if (len < 1) return BAD("[%s] expected context_length >= 1, received %lld", op, (long long)len);
  return PD_OK;
}

pd_status pd_infer_sequence_conv(const void *args, pd_meta_list *out) {
  const pd_sequence_conv_args *a = (const pd_sequence_conv_args *)args;
  PD_TRY(context_check("sequence_conv", a->x, a->x_lod, a->context_length));
  PD_TRY(pd_check_same_dtype("sequence_conv", "x", a->x, "filter", a->filter));
  if (a->context_stride != 1)
    return BAD("[sequence_conv] only context_stride = 1 is supported, received %lld", (long long)a->context_stride);
  int64_t k = a->context_length * a->x->shape[1];
  if (a->filter->ndim != 2 || (a->filter->shape[0] != k && a->filter->shape[0] >= 0 && a->x->shape[1] >= 0))
    return BAD("[sequence_conv] expected filter of shape [context_length * width = %lld, num_filters]",
               (long long)k);
  META(out, 1);
  int64_t sh[2] = {a->x->shape[0], a->filter->shape[1]};
  pd_meta_set(m, a->x->dtype, 2, sh);
  return PD_OK;
}

pd_status pd_infer_sequence_context(const void *args, pd_meta_list *out) {
  const pd_sequence_context_args *a = (const pd_sequence_context_args *)args;
  PD_TRY(context_check("sequence_context", a->x, a->x_lod, a->context_length));
  META(out, 1);
  int64_t sh[2] = {a->x->shape[0], a->x->shape[1] * a->context_length};
  pd_meta_set(m, a->x->dtype, 2, sh);
  return PD_OK;
}

pd_status pd_infer_sequence_context_grad(const void *args, pd_meta_list *out) {
  const pd_sequence_context_grad_args *a = (const pd_sequence_context_grad_args *)args;
  PD_TRY(need_float("sequence_context_grad", "dout", a->dout));
  if (a->x->ndim != 2 || a->dout->ndim != 2)
    return BAD("[sequence_context_grad] expected 2-D x and dout");
  META(out, 1);
  pd_meta_like(m, a->x);
  m->dtype = a->dout->dtype;
  return PD_OK;
}

pd_status pd_infer_sequence_concat(const void *args, pd_meta_list *out) {
  const pd_sequence_concat_args *a = (const pd_sequence_concat_args *)args;
  if (a->x.n < 1) return BAD("[sequence_concat] expected at least one input");
  if (a->x_lod.n != a->x.n)
    return BAD("[sequence_concat] expected one offsets tensor per input (%lld), received %lld",
               (long long)a->x.n, (long long)a->x_lod.n);
  const pd_tensor *x0 = a->x.data[0];
  PD_TRY(need_rows("sequence_concat", "x[0]", x0));
  int64_t rows = 0, n0 = -1;
  for (int64_t i = 0; i < a->x.n; i++) {
    const pd_tensor *t = a->x.data[i];
    PD_TRY(pd_check_same_dtype("sequence_concat", "x[0]", x0, "x[i]", t));
    int ok = t->ndim == x0->ndim;
    for (int d = 1; ok && d < t->ndim; d++) ok = t->shape[d] == x0->shape[d];
    if (!ok) return BAD("[sequence_concat] expected every input to have x[0]'s shape except the rows");
    rows = rows < 0 || t->shape[0] < 0 ? -1 : rows + t->shape[0];
    int64_t n;
    PD_TRY(lod_n("sequence_concat", "x_lod[i]", a->x_lod.data[i], &n));
    if (i == 0) n0 = n;
    else if (n != n0 && n >= 0 && n0 >= 0)
      return BAD("[sequence_concat] expected every input to hold the same number of sequences (%lld), "
                 "received %lld in input %lld", (long long)n0, (long long)n, (long long)i);
  }
  META(out, 2);
  pd_meta_like(&m[0], x0);
  m[0].shape[0] = rows;
  int64_t nl = a->x_lod.data[0]->shape[0];
  pd_meta_set(&m[1], PD_INT64, 1, &nl);
  return PD_OK;
}

pd_status pd_infer_sequence_concat_grad(const void *args, pd_meta_list *out) {
  const pd_sequence_concat_grad_args *a = (const pd_sequence_concat_grad_args *)args;
  PD_TRY(need_rows("sequence_concat_grad", "dout", a->dout));
  pd_meta *m = pd_meta_list_resize(out, (int)a->x_lod.n);
  if (!m && a->x_lod.n) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  for (int64_t i = 0; i < a->x_lod.n; i++) {
    pd_meta_like(&m[i], a->dout);
    m[i].shape[0] = -1;
  }
  return PD_OK;
}

pd_status pd_infer_sequence_slice(const void *args, pd_meta_list *out) {
  const pd_sequence_slice_args *a = (const pd_sequence_slice_args *)args;
  PD_TRY(need_rows("sequence_slice", "x", a->x));
  PD_TRY(need_int("sequence_slice", "offset", a->offset));
  PD_TRY(need_int("sequence_slice", "length", a->length));
  int64_t n;
  PD_TRY(lod_n("sequence_slice", "x_lod", a->x_lod, &n));
  META(out, 2);
  pd_meta_like(&m[0], a->x);
  m[0].shape[0] = -1;
  int64_t nl = n < 0 ? -1 : n + 1;
  pd_meta_set(&m[1], PD_INT64, 1, &nl);
  return PD_OK;
}

pd_status pd_infer_sequence_slice_grad(const void *args, pd_meta_list *out) {
  const pd_sequence_slice_grad_args *a = (const pd_sequence_slice_grad_args *)args;
  META(out, 1);
  pd_meta_like(m, a->x);
  m->dtype = a->dout->dtype;
  return PD_OK;
}

pd_status pd_infer_sequence_expand(const void *args, pd_meta_list *out) {
  const pd_sequence_expand_args *a = (const pd_sequence_expand_args *)args;
  PD_TRY(need_rows("sequence_expand", "x", a->x));
  int64_t n;
  PD_TRY(lod_n("sequence_expand", "x_lod", a->x_lod, &n));
  PD_TRY(lod_n("sequence_expand", "y_lod", a->y_lod, &n));
  META(out, 2);
  pd_meta_like(&m[0], a->x);
  m[0].shape[0] = -1;
  int64_t nl = -1;
  pd_meta_set(&m[1], PD_INT64, 1, &nl);
  return PD_OK;
}

pd_status pd_infer_sequence_expand_grad(const void *args, pd_meta_list *out) {
  const pd_sequence_expand_grad_args *a = (const pd_sequence_expand_grad_args *)args;
  META(out, 1);
  pd_meta_like(m, a->x);
  m->dtype = a->dout->dtype;
  return PD_OK;
}

pd_status pd_infer_sequence_expand_as(const void *args, pd_meta_list *out) {
  const pd_sequence_expand_as_args *a = (const pd_sequence_expand_as_args *)args;
  PD_TRY(need_rows("sequence_expand_as", "x", a->x));
  PD_TRY(need_rows("sequence_expand_as", "y", a->y));
  int64_t n;
  PD_TRY(lod_n("sequence_expand_as", "y_lod", a->y_lod, &n));
  if (n >= 0 && a->x->shape[0] >= 0 && n != a->x->shape[0])
    return BAD("[sequence_expand_as] expected x to have one row per sequence of y (%lld), received %lld",
               (long long)n, (long long)a->x->shape[0]);
  META(out, 2);
  pd_meta_like(&m[0], a->x);
  m[0].shape[0] = a->y->shape[0];
  int64_t nl = a->y_lod ? a->y_lod->shape[0] : -1;
  pd_meta_set(&m[1], PD_INT64, 1, &nl);
  return PD_OK;
}

pd_status pd_infer_sequence_pad(const void *args, pd_meta_list *out) {
  const pd_sequence_pad_args *a = (const pd_sequence_pad_args *)args;
  PD_TRY(need_rows("sequence_pad", "x", a->x));
  PD_TRY(pd_check_same_dtype("sequence_pad", "x", a->x, "pad_value", a->pad_value));
  int64_t step = 1;
  for (int d = 1; d < a->x->ndim; d++) step *= a->x->shape[d];
  if (a->pad_value->numel != 1 && a->pad_value->numel != step && step >= 0)
    return BAD("[sequence_pad] expected pad_value with 1 element or one step's %lld elements, received %lld",
               (long long)step, (long long)a->pad_value->numel);
  int64_t n;
  PD_TRY(lod_n("sequence_pad", "x_lod", a->x_lod, &n));
  if (a->x->ndim + 1 > PD_MAX_DIMS) return BAD("[sequence_pad] x has too many dims");
  META(out, 2);
  int64_t sh[PD_MAX_DIMS];
  sh[0] = n;
  sh[1] = a->padded_length > 0 ? a->padded_length : -1;
  for (int d = 1; d < a->x->ndim; d++) sh[d + 1] = a->x->shape[d];
  pd_meta_set(&m[0], a->x->dtype, a->x->ndim + 1, sh);
  pd_meta_set(&m[1], PD_INT64, 1, &n);
  return PD_OK;
}

pd_status pd_infer_sequence_pad_grad(const void *args, pd_meta_list *out) {
  const pd_sequence_pad_grad_args *a = (const pd_sequence_pad_grad_args *)args;
  META(out, 2);
  pd_meta_like(&m[0], a->x);
  m[0].dtype = a->dout->dtype;
  pd_meta_like(&m[1], a->pad_value);
  m[1].dtype = a->dout->dtype;
  return PD_OK;
}

pd_status pd_infer_sequence_unpad(const void *args, pd_meta_list *out) {
  const pd_sequence_unpad_args *a = (const pd_sequence_unpad_args *)args;
  PD_TRY(need_int("sequence_unpad", "length", a->length));
  if (a->x->ndim < 2) return BAD("[sequence_unpad] expected x of shape [batch, max_len, ...], received %d-D", a->x->ndim);
  META(out, 2);
  pd_meta_like(&m[0], a->x);
  m[0].ndim = a->x->ndim - 1;
  m[0].shape[0] = -1;
  for (int d = 1; d < m[0].ndim; d++) m[0].shape[d] = a->x->shape[d + 1];
  int64_t nl = a->x->shape[0] < 0 ? -1 : a->x->shape[0] + 1;
  pd_meta_set(&m[1], PD_INT64, 1, &nl);
  return PD_OK;
}

pd_status pd_infer_sequence_unpad_grad(const void *args, pd_meta_list *out) {
  const pd_sequence_unpad_grad_args *a = (const pd_sequence_unpad_grad_args *)args;
  META(out, 1);
  pd_meta_like(m, a->x);
  m->dtype = a->dout->dtype;
  return PD_OK;
}

pd_status pd_infer_sequence_reshape(const void *args, pd_meta_list *out) {
  const pd_sequence_reshape_args *a = (const pd_sequence_reshape_args *)args;
  if (a->x->ndim != 2) return BAD("[sequence_reshape] expected x of shape [total_steps, width], received %d-D", a->x->ndim);
  if (a->new_dim < 1) return BAD("[sequence_reshape] expected new_dim >= 1, received %lld", (long long)a->new_dim);
  int64_t n;
  PD_TRY(lod_n("sequence_reshape", "x_lod", a->x_lod, &n));
  META(out, 2);
  /* rows depend on the offsets (each sequence must split evenly: the kernel checks) */
  int64_t sh[2] = {-1, a->new_dim};
  pd_meta_set(&m[0], a->x->dtype, 2, sh);
  int64_t nl = n < 0 ? -1 : n + 1;
  pd_meta_set(&m[1], PD_INT64, 1, &nl);
  return PD_OK;
}

pd_status pd_infer_sequence_scatter(const void *args, pd_meta_list *out) {
  const pd_sequence_scatter_args *a = (const pd_sequence_scatter_args *)args;
  PD_TRY(need_float("sequence_scatter", "x", a->x));
  PD_TRY(pd_check_same_dtype("sequence_scatter", "x", a->x, "updates", a->updates));
  PD_TRY(need_int("sequence_scatter", "ids", a->ids));
  if (a->x->ndim != 2) return BAD("[sequence_scatter] expected x of shape [batch, width], received %d-D", a->x->ndim);
  if (a->ids->numel != a->updates->numel && a->ids->numel >= 0 && a->updates->numel >= 0 &&
      a->ids->shape[0] >= 0 && a->updates->shape[0] >= 0)
    return BAD("[sequence_scatter] expected one update per id (%lld ids, %lld updates)",
               (long long)a->ids->numel, (long long)a->updates->numel);
  int64_t n;
  PD_TRY(lod_n("sequence_scatter", "ids_lod", a->ids_lod, &n));
  META(out, 1);
  pd_meta_like(m, a->x);
  return PD_OK;
}

pd_status pd_infer_sequence_scatter_grad(const void *args, pd_meta_list *out) {
  const pd_sequence_scatter_grad_args *a = (const pd_sequence_scatter_grad_args *)args;
  META(out, 1);
  pd_meta_like(m, a->ids);
  m->dtype = a->dout->dtype;
  return PD_OK;
}

pd_status pd_infer_sequence_enumerate(const void *args, pd_meta_list *out) {
  const pd_sequence_enumerate_args *a = (const pd_sequence_enumerate_args *)args;
  PD_TRY(need_int("sequence_enumerate", "x", a->x));
  if (a->win_size < 1) return BAD("[sequence_enumerate] expected win_size >= 1, received %lld", (long long)a->win_size);
  if (a->x->ndim > 2 || (a->x->ndim == 2 && a->x->shape[1] != 1))
    return BAD("[sequence_enumerate] expected x of shape [total_steps, 1] or [total_steps]");
  int64_t n;
  PD_TRY(lod_n("sequence_enumerate", "x_lod", a->x_lod, &n));
  META(out, 1);
  int64_t sh[2] = {a->x->ndim ? a->x->shape[0] : 1, a->win_size};
  pd_meta_set(m, a->x->dtype, 2, sh);
  return PD_OK;
}

pd_status pd_infer_row_conv(const void *args, pd_meta_list *out) {
  const pd_row_conv_args *a = (const pd_row_conv_args *)args;
  PD_TRY(need_float("row_conv", "x", a->x));
  PD_TRY(pd_check_same_dtype("row_conv", "x", a->x, "filter", a->filter));
  int want = a->x_lod ? 2 : 3;
  if (a->x->ndim != want && !(a->x->ndim == 2 || a->x->ndim == 3))
    return BAD("[row_conv] expected x of shape [total_steps, width] (with a LoD) or [batch, steps, width]");
  int64_t D = a->x->shape[a->x->ndim - 1];
  if (a->filter->ndim != 2 || (a->filter->shape[1] != D && D >= 0 && a->filter->shape[1] >= 0))
    return BAD("[row_conv] expected filter of shape [future_context_size + 1, width = %lld]", (long long)D);
  int64_t n;
  PD_TRY(lod_n("row_conv", "x_lod", a->x_lod, &n));
  META(out, 1);
  pd_meta_like(m, a->x);
  return PD_OK;
}

pd_status pd_infer_row_conv_grad(const void *args, pd_meta_list *out) {
  const pd_row_conv_grad_args *a = (const pd_row_conv_grad_args *)args;
  META(out, 2);
  pd_meta_like(&m[0], a->x);
  pd_meta_like(&m[1], a->filter);
  return PD_OK;
}

pd_status pd_infer_crf_decoding(const void *args, pd_meta_list *out) {
  const pd_crf_decoding_args *a = (const pd_crf_decoding_args *)args;
  PD_TRY(need_float("crf_decoding", "emission", a->emission));
  PD_TRY(pd_check_same_dtype("crf_decoding", "emission", a->emission, "transition", a->transition));
  int padded = a->length != NULL;
  if (a->emission->ndim != (padded ? 3 : 2))
    return BAD("[crf_decoding] expected emission of shape %s, received %d-D",
               padded ? "[batch, steps, tags] (with length)" : "[total_steps, tags] (with a LoD)", a->emission->ndim);
  int64_t D = a->emission->shape[a->emission->ndim - 1];
  if (a->transition->ndim != 2 || (D >= 0 && (a->transition->shape[0] != D + 2 || a->transition->shape[1] != D)))
    return BAD("[crf_decoding] expected transition of shape [tags + 2, tags] = [%lld, %lld]", (long long)(D + 2),
               (long long)D);
  if (a->label) PD_TRY(need_int("crf_decoding", "label", a->label));
  if (a->length) PD_TRY(need_int("crf_decoding", "length", a->length));
  int64_t n;
  PD_TRY(lod_n("crf_decoding", "emission_lod", a->emission_lod, &n));
  META(out, 1);
  int64_t sh[2] = {a->emission->shape[0], padded ? a->emission->shape[1] : 1};
  pd_meta_set(m, PD_INT64, 2, sh);
  return PD_OK;
}

/* py_func (ops/callback.yaml): the outputs are the variables the program declared for them */
pd_status pd_infer_py_func(const void *args, pd_meta_list *out) {
  const pd_py_func_args *a = (const pd_py_func_args *)args;
  int64_t n = a->out_dtypes.n, tot = 0;
  if (a->out_ndims.n != n) return BAD("[py_func] expected one rank per output (%lld), received %lld", (long long)n, (long long)a->out_ndims.n);
  for (int64_t k = 0; k < n; k++) {
    if (a->out_ndims.data[k] < 0 || a->out_ndims.data[k] > PD_MAX_DIMS) return BAD("[py_func] output %lld: bad rank", (long long)k);
    if (!pd_dtype_is_valid((int)a->out_dtypes.data[k])) return BAD("[py_func] output %lld: bad dtype", (long long)k);
    tot += a->out_ndims.data[k];
  }
  if (tot != a->out_dims.n) return BAD("[py_func] expected %lld output dims, received %lld", (long long)tot, (long long)a->out_dims.n);
  pd_meta *m = pd_meta_list_resize(out, (int)n);
  if (!m && n) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  const int64_t *d = a->out_dims.data;
  for (int64_t k = 0; k < n; k++) {
    pd_meta_set(&m[k], (pd_dtype)a->out_dtypes.data[k], (int)a->out_ndims.data[k], d);
    d += a->out_ndims.data[k];
  }
  return PD_OK;
}
