/* Shape rules of the convolution, pooling and normalization families (ops/conv.yaml, pool.yaml,
 * norm.yaml) and the geometry helpers of csrc/kernels/cpu/conv_geom.h that kernels share.
 * Padding follows Paddle's UpdatePaddingAndDilation (SAME sets dilation 1; VALID zero pads). */
#include <string.h>
#include "generated/pd_ops_gen.h"
#include "../kernels/cpu/conv_geom.h"

static pd_status bad(const char *op, const char *msg) {
  return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] %s", op, msg);
}

static pd_status layout(const char *op, const pd_tensor *x, const char *fmt, int *nsp, int *nhwc) {
  if (x->ndim < 3 || x->ndim > 5)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected input with 3-5 dims, received %d", op,
                        x->ndim);
  *nsp = x->ndim - 2;
  *nhwc = fmt && (!strcmp(fmt, "NHWC") || !strcmp(fmt, "NLC") || !strcmp(fmt, "NDHWC"));
  if (fmt && !*nhwc && strcmp(fmt, "NCHW") && strcmp(fmt, "NCL") && strcmp(fmt, "NCDHW") &&
      strcmp(fmt, "AnyLayout"))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] unknown data_format %s", op, fmt);
  return PD_OK;
}

static void split_x(pd_conv_geom *g, const pd_tensor *x, int64_t *ch, int64_t *sp) {
  g->N = x->shape[0];
  *ch = g->nhwc ? x->shape[x->ndim - 1] : x->shape[1];
  for (int i = 0; i < 3; i++) sp[i] = 1;
  for (int i = 0; i < g->nsp; i++) sp[i] = x->shape[g->nhwc ? 1 + i : 2 + i];
}

static pd_status arr(const char *op, const char *nm, pd_int_array a, int nsp, int64_t dflt, int64_t *o) {
  for (int i = 0; i < 3; i++) o[i] = dflt;
  if (a.n == 0) return PD_OK;
  if (a.n != 1 && a.n != nsp)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected %s with 1 or %d values, received %lld", op,
                        nm, nsp, (long long)a.n);
  for (int i = 0; i < nsp; i++) o[i] = a.data[a.n == 1 ? 0 : i];
  return PD_OK;
}

static pd_status pads(const char *op, pd_int_array p, int nsp, int64_t *pl, int64_t *pr) {
  for (int i = 0; i < 3; i++) pl[i] = pr[i] = 0;
  if (p.n == 0) return PD_OK;
  if (p.n == 1 || p.n == nsp) {
    for (int i = 0; i < nsp; i++) pl[i] = pr[i] = p.data[p.n == 1 ? 0 : i];
  } else if (p.n == 2 * nsp) {
    for (int i = 0; i < nsp; i++) {
      pl[i] = p.data[2 * i];
      pr[i] = p.data[2 * i + 1];
    }
  } else {
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected paddings with %d or %d values, received %lld",
                        op, nsp, 2 * nsp, (long long)p.n);
  }
  for (int i = 0; i < nsp; i++)
    if (pl[i] < 0 || pr[i] < 0) return bad(op, "paddings must be >= 0");
  return PD_OK;
}

/* SAME/VALID: recompute pads from the input extent `in` (SAME also sets dilation to 1). */
static pd_status algo_pads(const char *op, const char *algo, int nsp, const int64_t *in, const int64_t *k,
                           const int64_t *s, int64_t *pl, int64_t *pr, int64_t *d) {
  if (!algo || !strcmp(algo, "EXPLICIT")) return PD_OK;
  if (!strcmp(algo, "VALID")) {
    for (int i = 0; i < nsp; i++) pl[i] = pr[i] = 0;
    return PD_OK;
  }
  if (strcmp(algo, "SAME")) return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] unknown padding_algorithm %s", op, algo);
  for (int i = 0; i < nsp; i++) {
    int64_t o = (in[i] + s[i] - 1) / s[i], sum = (o - 1) * s[i] + k[i] - in[i];
    if (sum < 0) sum = 0;
    pl[i] = sum / 2;
    pr[i] = sum - pl[i];
    if (d) d[i] = 1;
  }
  return PD_OK;
}

static pd_status common(const char *op, const pd_tensor *x, const int64_t *wshape, int wndim,
                        pd_int_array strides, pd_int_array paddings, int64_t groups, pd_int_array dilations,
                        const char *fmt, pd_conv_geom *g) {
  memset(g, 0, sizeof(*g));
  PD_TRY(layout(op, x, fmt, &g->nsp, &g->nhwc));
  if (wndim != x->ndim)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected filter with %d dims, received %d", op, x->ndim,
                        wndim);
  if (groups < 1) return bad(op, "groups must be >= 1");
  g->G = groups;
  for (int i = 0; i < 3; i++) g->k[i] = 1;
  for (int i = 0; i < g->nsp; i++) g->k[i] = wshape[2 + i];
  PD_TRY(arr(op, "strides", strides, g->nsp, 1, g->s));
  PD_TRY(arr(op, "dilations", dilations, g->nsp, 1, g->d));
  PD_TRY(pads(op, paddings, g->nsp, g->pl, g->pr));
  for (int i = 0; i < g->nsp; i++)
    if (g->s[i] < 1 || g->d[i] < 1 || g->k[i] < 1) return bad(op, "strides, dilations and kernel sizes must be >= 1");
  return PD_OK;
}

pd_status pd_conv_geom_fwd(const char *op, const pd_tensor *x, const int64_t *wshape, int wndim,
                           pd_int_array strides, pd_int_array paddings, const char *algo,
                           int64_t groups, pd_int_array dilations, const char *fmt, pd_conv_geom *g) {
  PD_TRY(common(op, x, wshape, wndim, strides, paddings, groups, dilations, fmt, g));
  split_x(g, x, &g->C, g->in);
  g->O = wshape[0];
  if (g->C != wshape[1] * g->G)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[%s] expected input channels (%lld) == filter dim 1 (%lld) * groups (%lld)", op,
                        (long long)g->C, (long long)wshape[1], (long long)g->G);
  if (g->O % g->G) return bad(op, "filter dim 0 (output channels) must be divisible by groups");
  PD_TRY(algo_pads(op, algo, g->nsp, g->in, g->k, g->s, g->pl, g->pr, g->d));
  for (int i = 0; i < 3; i++) {
    int64_t ext = g->d[i] * (g->k[i] - 1) + 1;
    g->out[i] = (g->in[i] + g->pl[i] + g->pr[i] - ext) / g->s[i] + 1;
    if (g->in[i] + g->pl[i] + g->pr[i] < ext)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                          "[%s] padded input extent %lld is smaller than the dilated kernel %lld", op,
                          (long long)(g->in[i] + g->pl[i] + g->pr[i]), (long long)ext);
  }
  return PD_OK;
}

pd_status pd_conv_geom_tr(const char *op, const pd_tensor *x, const pd_tensor *w, pd_int_array strides,
                          pd_int_array paddings, pd_int_array output_padding, pd_int_array output_size,
                          const char *algo, int64_t groups, pd_int_array dilations, const char *fmt,
                          pd_conv_geom *g) {
  PD_TRY(common(op, x, w->shape, w->ndim, strides, paddings, groups, dilations, fmt, g));
  split_x(g, x, &g->O, g->out);
  if (w->shape[0] != g->O)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected input channels (%lld) == filter dim 0 (%lld)",
                        op, (long long)g->O, (long long)w->shape[0]);
  if (g->O % g->G) return bad(op, "input channels must be divisible by groups");
  g->C = w->shape[1] * g->G;
  PD_TRY(algo_pads(op, algo, g->nsp, g->out, g->k, g->s, g->pl, g->pr, g->d));
  int64_t op_[3];
  PD_TRY(arr(op, "output_padding", output_padding, g->nsp, 0, op_));
  for (int i = 0; i < 3; i++) {
    int64_t base = (g->out[i] - 1) * g->s[i] - g->pl[i] - g->pr[i] + g->d[i] * (g->k[i] - 1) + 1;
    int64_t v = base + (i < g->nsp ? op_[i] : 0);
    if (output_size.n > 0 && i < g->nsp) {
      if (output_size.n != g->nsp) return bad(op, "output_size must have one value per spatial dim");
      v = output_size.data[i];
      if (v < base || v >= base + g->s[i])
        return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] output_size %lld not in [%lld, %lld)", op,
                            (long long)v, (long long)base, (long long)(base + g->s[i]));
    } else if (i < g->nsp && op_[i] >= g->s[i] && op_[i] >= g->d[i]) {
      return bad(op, "output_padding must be smaller than stride or dilation");
    }
    if (v < 1) return bad(op, "transposed convolution output would be empty");
    g->in[i] = v;
  }
  return PD_OK;
}

void pd_conv_shape(const pd_conv_geom *g, int64_t ch, const int64_t *sp, int *ndim, int64_t *shape) {
  int k = 0;
  shape[k++] = g->N;
  if (!g->nhwc) shape[k++] = ch;
  for (int i = 0; i < g->nsp; i++) shape[k++] = sp[i];
  if (g->nhwc) shape[k++] = ch;
  *ndim = k;
}

pd_status pd_pool_geom_make(const char *op, const pd_tensor *x, pd_int_array ksize, pd_int_array strides,
                            pd_int_array paddings, int ceil_mode, int exclusive, const char *fmt,
                            const char *ptype, int global, int adaptive, const char *algo,
                            pd_pool_geom *g) {
  memset(g, 0, sizeof(*g));
  PD_TRY(layout(op, x, fmt, &g->nsp, &g->nhwc));
  pd_conv_geom cg;
  memset(&cg, 0, sizeof(cg));
  cg.nsp = g->nsp;
  cg.nhwc = g->nhwc;
  split_x(&cg, x, &g->C, g->in);
  g->N = cg.N;
  if (!strcmp(ptype, "max")) g->is_max = 1;
  else if (strcmp(ptype, "avg")) return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] unknown pooling_type %s", op, ptype);
  g->exclusive = exclusive;
  g->adaptive = adaptive && !global;
  PD_TRY(arr(op, "kernel_size", ksize, g->nsp, 1, g->k));
  PD_TRY(arr(op, "strides", strides, g->nsp, 1, g->s));
  PD_TRY(pads(op, paddings, g->nsp, g->pl, g->pr));
  if (global) {
    for (int i = 0; i < 3; i++) {
      g->k[i] = g->in[i];
      g->s[i] = 1;
      g->pl[i] = g->pr[i] = 0;
    }
  }
  if (g->adaptive) {
    for (int i = 0; i < 3; i++) {
      g->out[i] = i < g->nsp ? g->k[i] : 1;
      if (g->out[i] < 1) return bad(op, "adaptive output size must be >= 1");
    }
    return PD_OK;
  }
  PD_TRY(algo_pads(op, algo, g->nsp, g->in, g->k, g->s, g->pl, g->pr, NULL));
  for (int i = 0; i < 3; i++) {
    if (g->k[i] < 1 || g->s[i] < 1) return bad(op, "kernel_size and strides must be >= 1");
    /* Paddle's output size, with C's division toward zero: a kernel up to one stride larger
     * than the padded input still gives one (clipped) window */
    int64_t span = g->in[i] + g->pl[i] + g->pr[i] - g->k[i];
    g->out[i] = (ceil_mode ? (span + g->s[i] - 1) / g->s[i] : span / g->s[i]) + 1;
    if (g->out[i] < 1 || g->in[i] < 1)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] kernel %lld larger than padded input %lld", op,
                          (long long)g->k[i], (long long)(g->in[i] + g->pl[i] + g->pr[i]));
  }
  return PD_OK;
}

/* ---- infer_meta ---- */
pd_status pd_infer_conv(const void *args, pd_meta_list *out) {
  const pd_conv2d_args *a = (const pd_conv2d_args *)args;
  pd_conv_geom g;
  PD_TRY(pd_check_same_dtype("conv", "input", a->input, "filter", a->filter));
  PD_TRY(pd_conv_geom_fwd("conv", a->input, a->filter->shape, a->filter->ndim, a->strides, a->paddings,
                          a->padding_algorithm, a->groups, a->dilations, a->data_format, &g));
  if (a->bias) {
    PD_TRY(pd_check_same_dtype("conv", "input", a->input, "bias", a->bias));
    if (a->bias->ndim != 1 || a->bias->shape[0] != g.O)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[conv] expected bias of shape [%lld], received %d dims",
                          (long long)g.O, a->bias->ndim);
  }
  pd_meta *m = pd_meta_list_resize(out, 1);
  m->dtype = a->input->dtype;
  pd_conv_shape(&g, g.O, g.out, &m->ndim, m->shape);
  return PD_OK;
}

pd_status pd_infer_conv_transpose(const void *args, pd_meta_list *out) {
  const pd_conv2d_transpose_args *a = (const pd_conv2d_transpose_args *)args;
  pd_conv_geom g;
  PD_TRY(pd_check_same_dtype("conv_transpose", "x", a->x, "filter", a->filter));
  PD_TRY(pd_conv_geom_tr("conv_transpose", a->x, a->filter, a->strides, a->paddings, a->output_padding,
                         a->output_size, a->padding_algorithm, a->groups, a->dilations, a->data_format, &g));
  pd_meta *m = pd_meta_list_resize(out, 1);
  m->dtype = a->x->dtype;
  pd_conv_shape(&g, g.C, g.in, &m->ndim, m->shape);
  return PD_OK;
}

pd_status pd_infer_conv_grad_filter(const void *args, pd_meta_list *out) {
  const pd_conv2d_grad_filter_args *a = (const pd_conv2d_grad_filter_args *)args;
  pd_conv_geom g;
  const char *op = "conv2d_grad_filter";
  PD_TRY(pd_check_same_dtype(op, "input", a->input, "dout", a->dout));
  if (a->filter_shape.n != a->input->ndim) return bad(op, "filter_shape must have as many dims as input");
  PD_TRY(pd_conv_geom_fwd(op, a->input, a->filter_shape.data, (int)a->filter_shape.n, a->strides, a->paddings,
                          a->padding_algorithm, a->groups, a->dilations, a->data_format, &g));
  int nd;
  int64_t sh[PD_MAX_DIMS];
  pd_conv_shape(&g, g.O, g.out, &nd, sh);
  if (nd != a->dout->ndim) return bad(op, "dout shape does not match the convolution output");
  for (int i = 0; i < nd; i++)
    if (sh[i] != a->dout->shape[i]) return bad(op, "dout shape does not match the convolution output");
  pd_meta *m = pd_meta_list_resize(out, 1);
  pd_meta_set(m, a->input->dtype, (int)a->filter_shape.n, a->filter_shape.data);
  return PD_OK;
}

static void pool_out_meta(const pd_pool_geom *g, pd_dtype dt, pd_meta *m) {
  pd_conv_geom cg;
  memset(&cg, 0, sizeof(cg));
  cg.N = g->N;
  cg.nsp = g->nsp;
  cg.nhwc = g->nhwc;
  m->dtype = dt;
  pd_conv_shape(&cg, g->C, g->out, &m->ndim, m->shape);
}

pd_status pd_infer_pool(const void *args, pd_meta_list *out) {
  const pd_pool2d_args *a = (const pd_pool2d_args *)args;
  pd_pool_geom g;
  PD_TRY(pd_pool_geom_make("pool2d", a->x, a->kernel_size, a->strides, a->paddings, a->ceil_mode, a->exclusive,
                           a->data_format, a->pooling_type, a->global_pooling, a->adaptive, a->padding_algorithm, &g));
  pd_meta *m = pd_meta_list_resize(out, 1);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[pool2d] out of memory");
  pool_out_meta(&g, a->x->dtype, m);
  return PD_OK;
}

pd_status pd_infer_pool_grad(const void *args, pd_meta_list *out) {
  const pd_pool2d_grad_args *a = (const pd_pool2d_grad_args *)args;
  pd_pool_geom g;
  pd_meta om;
  PD_TRY(pd_check_same_dtype("pool2d_grad", "x", a->x, "dout", a->dout));
  PD_TRY(pd_pool_geom_make("pool2d_grad", a->x, a->kernel_size, a->strides, a->paddings, a->ceil_mode, a->exclusive,
                           a->data_format, a->pooling_type, a->global_pooling, a->adaptive, a->padding_algorithm, &g));
  pool_out_meta(&g, a->x->dtype, &om);
  int ok = om.ndim == a->dout->ndim;
  for (int i = 0; ok && i < om.ndim; i++) ok = om.shape[i] == a->dout->shape[i];
  if (!ok) return bad("pool2d_grad", "dout shape does not match the pooling output");
  pd_meta *m = pd_meta_list_resize(out, 1);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[pool2d_grad] out of memory");
  pd_meta_like(m, a->x);
  return PD_OK;
}

pd_status pd_infer_pool_index(const void *args, pd_meta_list *out) {
  const pd_max_pool2d_with_index_args *a = (const pd_max_pool2d_with_index_args *)args;
  pd_pool_geom g;
  PD_TRY(pd_pool_geom_make("max_pool2d_with_index", a->x, a->kernel_size, a->strides, a->paddings, a->ceil_mode, 1,
                           a->data_format, "max", a->global_pooling, a->adaptive, a->padding_algorithm, &g));
  pd_meta *m = pd_meta_list_resize(out, 2);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[max_pool2d_with_index] out of memory");
  pool_out_meta(&g, a->x->dtype, &m[0]);
  m[1] = m[0];
  m[1].dtype = PD_INT32 /* Paddle's Mask */;
  return PD_OK;
}

static pd_status idx_check(const char *op, const pd_tensor *x, const pd_tensor *idx, int same_shape) {
  if (idx->dtype != PD_INT64 && idx->dtype != PD_INT32)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected int32/int64 indices", op);
  if (x->ndim < 3 || idx->ndim != x->ndim) return bad(op, "indices must have as many dims (3-5) as x");
  if (same_shape)
    for (int i = 0; i < x->ndim; i++)
      if (x->shape[i] != idx->shape[i]) return bad(op, "indices must have the shape of x");
  return PD_OK;
}

pd_status pd_infer_unpool(const void *args, pd_meta_list *out) {
  const pd_unpool_args *a = (const pd_unpool_args *)args;
  int nsp, nhwc;
  PD_TRY(idx_check("unpool", a->x, a->indices, 1));
  PD_TRY(layout("unpool", a->x, a->data_format, &nsp, &nhwc));
  if (a->output_size.n != nsp) return bad("unpool", "output_size must have one value per spatial dim");
  pd_conv_geom cg;
  memset(&cg, 0, sizeof(cg));
  cg.nsp = nsp;
  cg.nhwc = nhwc;
  int64_t ch, sp[3];
  split_x(&cg, a->x, &ch, sp);
  pd_meta *m = pd_meta_list_resize(out, 1);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[unpool] out of memory");
  m->dtype = a->x->dtype;
  pd_conv_shape(&cg, ch, a->output_size.data, &m->ndim, m->shape);
  return PD_OK;
}

pd_status pd_infer_pool_gather(const void *args, pd_meta_list *out) {
  const pd_pool_gather_args *a = (const pd_pool_gather_args *)args;
  int nsp, nhwc;
  PD_TRY(idx_check("pool_gather", a->x, a->indices, 0));
  PD_TRY(layout("pool_gather", a->x, a->data_format, &nsp, &nhwc));
  int c = nhwc ? a->x->ndim - 1 : 1;
  if (a->indices->shape[0] != a->x->shape[0] || a->indices->shape[c] != a->x->shape[c])
    return bad("pool_gather", "indices must match x in batch and channels");
  pd_meta *m = pd_meta_list_resize(out, 1);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[pool_gather] out of memory");
  pd_meta_set(m, a->x->dtype, a->indices->ndim, a->indices->shape);
  return PD_OK;
}

/* ---- normalization ---- */
static pd_status vec_check(const char *op, const char *nm, const pd_tensor *t, int64_t n, pd_dtype dt) {
  if (!t) return PD_OK;
  if (t->numel != n && !pd_trace_placeholders_active())
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected %s with %lld elements, received %lld", op, nm,
                        (long long)n, (long long)t->numel);
  if (t->dtype != dt)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] %s must be %s, received %s", op, nm, pd_dtype_name(dt), pd_dtype_name(t->dtype));
  return PD_OK;
}

static pd_status bn_channels(const char *op, const pd_tensor *x, const char *fmt, int64_t *C) {
  if (x->ndim < 2 || x->ndim > 5)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected x with 2-5 dims, received %d", op, x->ndim);
  int nhwc = fmt && (!strcmp(fmt, "NHWC") || !strcmp(fmt, "NLC") || !strcmp(fmt, "NDHWC"));
  *C = nhwc && x->ndim > 2 ? x->shape[x->ndim - 1] : x->shape[1];
  return PD_OK;
}

/* batch_norm's scale, bias and statistics: x's dtype, float32 for a bfloat16 x (auto_cast's
 * batch_norm keeps them float32, as Paddle's and PyTorch's low-precision batch norms do) */
static pd_dtype bn_stat_dtype(const pd_tensor *x) { return x->dtype == PD_BFLOAT16 ? PD_FLOAT32 : x->dtype; }

pd_status pd_infer_batch_norm(const void *args, pd_meta_list *out) {
  const pd_batch_norm_args *a = (const pd_batch_norm_args *)args;
  int64_t C = 0;
  PD_TRY(bn_channels("batch_norm", a->x, a->data_layout, &C));
  if (a->x->dtype != PD_FLOAT32 && a->x->dtype != PD_FLOAT64 && a->x->dtype != PD_BFLOAT16)
    return bad("batch_norm", "x must be float32, float64 or bfloat16");
  const pd_dtype sdt = bn_stat_dtype(a->x);
  PD_TRY(vec_check("batch_norm", "mean", a->mean, C, sdt));
  PD_TRY(vec_check("batch_norm", "variance", a->variance, C, sdt));
  PD_TRY(vec_check("batch_norm", "scale", a->scale, C, sdt));
  PD_TRY(vec_check("batch_norm", "bias", a->bias, C, sdt));
  pd_meta *m = pd_meta_list_resize(out, 3);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[batch_norm] out of memory");
  pd_meta_like(&m[0], a->x);
  pd_meta_set(&m[1], sdt, 1, &C);
  pd_meta_set(&m[2], sdt, 1, &C);
  return PD_OK;
}

pd_status pd_infer_batch_norm_grad(const void *args, pd_meta_list *out) {
  const pd_batch_norm_grad_args *a = (const pd_batch_norm_grad_args *)args;
  int64_t C = 0;
  PD_TRY(bn_channels("batch_norm_grad", a->x, a->data_layout, &C));
  const pd_dtype sdt = bn_stat_dtype(a->x);
  PD_TRY(vec_check("batch_norm_grad", "scale", a->scale, C, sdt));
  PD_TRY(vec_check("batch_norm_grad", "saved_mean", a->saved_mean, C, sdt));
  PD_TRY(vec_check("batch_norm_grad", "saved_invstd", a->saved_invstd, C, sdt));
  PD_TRY(vec_check("batch_norm_grad", "dout", a->dout, a->x->numel, a->x->dtype));
  PD_TRY(vec_check("batch_norm_grad", "dsaved_mean", a->dsaved_mean, C, sdt));
  PD_TRY(vec_check("batch_norm_grad", "dsaved_invstd", a->dsaved_invstd, C, sdt));
  pd_meta *m = pd_meta_list_resize(out, 5);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[batch_norm_grad] out of memory");
  pd_meta_like(&m[0], a->x);
  for (int i = 1; i < 5; i++) pd_meta_set(&m[i], sdt, 1, &C);
  return PD_OK;
}

static pd_status ln_dims(const char *op, const pd_tensor *x, int64_t axis, int64_t *R, int64_t *D) {
  if (axis < 1 || axis >= x->ndim)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] begin_norm_axis must be in [1, %d), received %lld", op,
                        x->ndim, (long long)axis);
  if (x->dtype != PD_FLOAT32 && x->dtype != PD_FLOAT64) return bad(op, "x must be float32 or float64");
  *R = 1;
  *D = 1;
  for (int i = 0; i < x->ndim; i++) *(i < axis ? R : D) *= x->shape[i];
  return PD_OK;
}

pd_status pd_infer_layer_norm(const void *args, pd_meta_list *out) {
  const pd_layer_norm_args *a = (const pd_layer_norm_args *)args;
  int64_t R, D;
  PD_TRY(ln_dims("layer_norm", a->x, a->begin_norm_axis, &R, &D));
  PD_TRY(vec_check("layer_norm", "scale", a->scale, D, a->x->dtype));
  PD_TRY(vec_check("layer_norm", "bias", a->bias, D, a->x->dtype));
  pd_meta *m = pd_meta_list_resize(out, 3);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[layer_norm] out of memory");
  pd_meta_like(&m[0], a->x);
  pd_meta_set(&m[1], a->x->dtype, 1, &R);
  pd_meta_set(&m[2], a->x->dtype, 1, &R);
  return PD_OK;
}

pd_status pd_infer_layer_norm_grad(const void *args, pd_meta_list *out) {
  const pd_layer_norm_grad_args *a = (const pd_layer_norm_grad_args *)args;
  int64_t R, D;
  PD_TRY(ln_dims("layer_norm_grad", a->x, a->begin_norm_axis, &R, &D));
  PD_TRY(vec_check("layer_norm_grad", "scale", a->scale, D, a->x->dtype));
  PD_TRY(vec_check("layer_norm_grad", "mean", a->mean, R, a->x->dtype));
  PD_TRY(vec_check("layer_norm_grad", "variance", a->variance, R, a->x->dtype));
  PD_TRY(vec_check("layer_norm_grad", "dout", a->dout, a->x->numel, a->x->dtype));
  PD_TRY(vec_check("layer_norm_grad", "dmean", a->dmean, R, a->x->dtype));
  PD_TRY(vec_check("layer_norm_grad", "dvariance", a->dvariance, R, a->x->dtype));
  pd_meta *m = pd_meta_list_resize(out, 3);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[layer_norm_grad] out of memory");
  pd_meta_like(&m[0], a->x);
  pd_meta_set(&m[1], a->x->dtype, 1, &D);
  pd_meta_set(&m[2], a->x->dtype, 1, &D);
  return PD_OK;
}
