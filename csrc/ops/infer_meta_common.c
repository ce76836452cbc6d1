/* Shape/dtype rules of the common nn ops (ops/common.yaml): embedding and its gradient,
 * dropout (out + uint8 mask), pad, interp (resize) and unfold/fold, with the argument checks
 * these ops make before any kernel runs. pd_unfold_geometry is shared with the kernels. */
#include <string.h>
#include "generated/pd_ops_gen.h"
#include "infer_meta_common.h"

#define BAD(...) pd_set_error(PD_ERR_INVALID_ARGUMENT, __VA_ARGS__)

static pd_status need_float(const char *op, const char *name, const pd_tensor *t) {
  if (t->dtype != PD_FLOAT32 && t->dtype != PD_FLOAT64 && t->dtype != PD_FLOAT16 &&
      t->dtype != PD_BFLOAT16)
    return pd_set_error(PD_ERR_TYPE, "[%s] expected %s to be a floating tensor, received %s", op,
                        name, pd_dtype_name(t->dtype));
  return PD_OK;
}

static pd_status need_index(const char *op, const pd_tensor *x) {
  if (x->dtype != PD_INT32 && x->dtype != PD_INT64)
    return pd_set_error(PD_ERR_TYPE, "[%s] expected x (the ids) to be int32 or int64, received %s",
                        op, pd_dtype_name(x->dtype));
  return PD_OK;
}

pd_status pd_infer_embedding(const void *args, pd_meta_list *out) {
  const pd_embedding_args *a = (const pd_embedding_args *)args;
  PD_TRY(need_index("embedding", a->x));
  PD_TRY(need_float("embedding", "weight", a->weight));
  if (a->weight->ndim != 2)
    return BAD("[embedding] expected weight to be 2-D [num_embeddings, embedding_dim], received "
               "%d-D", a->weight->ndim);
  if (a->x->ndim + 1 > PD_MAX_DIMS) return BAD("[embedding] x has too many dims");
  pd_meta *m = pd_meta_list_resize(out, 1);
  pd_meta_set(m, a->weight->dtype, a->x->ndim, a->x->shape);
  m->shape[m->ndim++] = a->weight->shape[1];
  return PD_OK;
}

pd_status pd_infer_embedding_grad(const void *args, pd_meta_list *out) {
  const pd_embedding_grad_args *a = (const pd_embedding_grad_args *)args;
  PD_TRY(need_index("embedding_grad", a->x));
  if (a->weight->ndim != 2 || a->dout->ndim != a->x->ndim + 1 ||
      a->dout->shape[a->dout->ndim - 1] != a->weight->shape[1] || a->x->numel * a->weight->shape[1] != a->dout->numel)
    return BAD("[embedding_grad] expected dout of shape x.shape + [%lld]",
               (long long)(a->weight->ndim == 2 ? a->weight->shape[1] : -1));
  pd_meta *m = pd_meta_list_resize(out, 1);
  pd_meta_set(m, a->dout->dtype, 2, a->weight->shape);
  return PD_OK;
}

pd_status pd_dropout_mode(const char *op, const char *mode, int *upscale) {
  if (mode && strcmp(mode, "upscale_in_train") == 0) *upscale = 1;
  else if (mode && strcmp(mode, "downscale_in_infer") == 0) *upscale = 0;
  else
    return BAD("[%s] expected mode 'upscale_in_train' or 'downscale_in_infer', received '%s'", op,
               mode ? mode : "(null)");
  return PD_OK;
}

pd_status pd_infer_dropout(const void *args, pd_meta_list *out) {
  const pd_dropout_args *a = (const pd_dropout_args *)args;
  int up;
  PD_TRY(need_float("dropout", "x", a->x));
  PD_TRY(pd_dropout_mode("dropout", a->mode, &up));
  if (!(a->p >= 0.0 && a->p <= 1.0)) return BAD("[dropout] expected 0 <= p <= 1, received %g", a->p);
  pd_meta *m = pd_meta_list_resize(out, 2);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  pd_meta_like(&m[0], a->x);
  pd_meta_like(&m[1], a->x);
  m[1].dtype = PD_UINT8;
  return PD_OK;
}

pd_status pd_infer_dropout_grad(const void *args, pd_meta_list *out) {
  const pd_dropout_grad_args *a = (const pd_dropout_grad_args *)args;
  int up;
  PD_TRY(pd_dropout_mode("dropout_grad", a->mode, &up));
  if (a->mask->numel != a->dout->numel || a->mask->ndim != a->dout->ndim)
    return BAD("[dropout_grad] expected mask and dout of the same shape");
  pd_meta_like(pd_meta_list_resize(out, 1), a->dout);
  return PD_OK;
}

/* ---- pad ---- */
pd_status pd_pad_mode(const char *op, const char *mode, int *code) {
  static const char *const names[] = {"constant", "reflect", "replicate", "circular"};
  for (int i = 0; i < 4; i++)
    if (mode && strcmp(mode, names[i]) == 0) {
      *code = i;
      return PD_OK;
    }
  return BAD("[%s] expected mode 'constant', 'reflect', 'replicate' or 'circular', received '%s'",
             op, mode ? mode : "(null)");
}

pd_status pd_pad_check(const char *op, const pd_tensor *x, pd_int_array pads, const char *mode,
                       int64_t *out_shape) {
  int code;
  PD_TRY(pd_pad_mode(op, mode, &code));
  if (pads.n != 2 * (int64_t)x->ndim)
    return BAD("[%s] expected %d paddings (before, after for each of the %d dims), received %lld",
               op, 2 * x->ndim, x->ndim, (long long)pads.n);
  for (int d = 0; d < x->ndim; d++) {
    int64_t b = pads.data[2 * d], e = pads.data[2 * d + 1], n = x->shape[d];
    if (b < 0 || e < 0) return BAD("[%s] expected paddings >= 0, received %lld, %lld for dim %d", op,
                                   (long long)b, (long long)e, d);
    if ((b || e) && code == 1 && (b >= n || e >= n))
      return BAD("[%s] reflect padding needs paddings < the dim size (%lld), received %lld, %lld "
                 "for dim %d", op, (long long)n, (long long)b, (long long)e, d);
    if ((b || e) && code == 2 && n == 0)
      return BAD("[%s] replicate padding of an empty dim %d", op, d);
    if ((b || e) && code == 3 && (b > n || e > n))
      return BAD("[%s] circular padding needs paddings <= the dim size (%lld), received %lld, "
                 "%lld for dim %d", op, (long long)n, (long long)b, (long long)e, d);
    out_shape[d] = n + b + e;
  }
  return PD_OK;
}

pd_status pd_infer_pad(const void *args, pd_meta_list *out) {
  const pd_pad_args *a = (const pd_pad_args *)args;
  int64_t shp[PD_MAX_DIMS];
  PD_TRY(pd_pad_check("pad", a->x, a->paddings, a->mode, shp));
  pd_meta_set(pd_meta_list_resize(out, 1), a->x->dtype, a->x->ndim, shp);
  return PD_OK;
}

pd_status pd_infer_pad_grad(const void *args, pd_meta_list *out) {
  const pd_pad_grad_args *a = (const pd_pad_grad_args *)args;
  int64_t shp[PD_MAX_DIMS];
  PD_TRY(pd_pad_check("pad_grad", a->x, a->paddings, a->mode, shp));
  if (a->dout->ndim != a->x->ndim || memcmp(shp, a->dout->shape, sizeof(int64_t) * (size_t)a->x->ndim))
    return BAD("[pad_grad] dout's shape does not match the padded shape of x");
  pd_meta_set(pd_meta_list_resize(out, 1), a->dout->dtype, a->x->ndim, a->x->shape);
  return PD_OK;
}

/* ---- interp ---- */
pd_status pd_interp_check(const char *op, int ndim, const int64_t *shape, pd_int_array size, pd_float_array scale,
                          const char *mode, const char *fmt, pd_interp_geom *g) {
  static const char *const modes[] = {"nearest", "linear", "bilinear", "trilinear", "bicubic"};
  static const int mode_nd[] = {0, 1, 2, 3, 2};
  g->mode = -1;
  for (int i = 0; i < 5; i++)
    if (mode && strcmp(mode, modes[i]) == 0) g->mode = i;
  if (g->mode < 0)
    return BAD("[%s] expected mode nearest, linear, bilinear, trilinear or bicubic, received '%s'",
               op, mode ? mode : "(null)");
  int ns = ndim - 2;
  if (ns < 1 || ns > 3 || (mode_nd[g->mode] && mode_nd[g->mode] != ns))
    return BAD("[%s] mode '%s' does not take a %d-D input", op, mode, ndim);
  if (!fmt || strlen(fmt) != (size_t)ndim || fmt[0] != 'N' ||
      (fmt[1] != 'C' && fmt[ndim - 1] != 'C'))
    return BAD("[%s] data_format '%s' does not fit a %d-D input", op, fmt ? fmt : "(null)", ndim);
  g->channel_last = fmt[1] != 'C';
  g->ns = ns;
  if (size.n != ns) return BAD("[%s] expected %d output sizes, received %lld", op, ns, (long long)size.n);
  if (scale.n != 0 && scale.n != ns)
    return BAD("[%s] expected 0 or %d scales, received %lld", op, ns, (long long)scale.n);
  g->n = shape[0];
  g->c = shape[g->channel_last ? ndim - 1 : 1];
  for (int i = 0; i < ns; i++) {
    g->in[i] = shape[(g->channel_last ? 1 : 2) + i];
    g->out[i] = size.data[i];
    g->scale[i] = scale.n ? scale.data[i] : 0.0;
    if (g->out[i] <= 0) return BAD("[%s] expected output sizes > 0, received %lld", op, (long long)g->out[i]);
    if (g->in[i] <= 0) return BAD("[%s] expected a non-empty input", op);
  }
  for (int d = 0; d < ndim; d++) g->out_shape[d] = shape[d];
  for (int i = 0; i < ns; i++) g->out_shape[(g->channel_last ? 1 : 2) + i] = g->out[i];
  return PD_OK;
}

pd_status pd_infer_interp(const void *args, pd_meta_list *out) {
  const pd_interp_args *a = (const pd_interp_args *)args;
  pd_interp_geom g;
  PD_TRY(need_float("interp", "x", a->x));
  PD_TRY(pd_interp_check("interp", a->x->ndim, a->x->shape, a->out_size, a->scale, a->mode, a->data_format, &g));
  pd_meta_set(pd_meta_list_resize(out, 1), a->x->dtype, a->x->ndim, g.out_shape);
  return PD_OK;
}

pd_status pd_infer_interp_grad(const void *args, pd_meta_list *out) {
  const pd_interp_grad_args *a = (const pd_interp_grad_args *)args;
  pd_interp_geom g;
  if (a->input_shape.n < 3 || a->input_shape.n > 5)
    return BAD("[interp_grad] expected a 3-D to 5-D input_shape, received %lld dims",
               (long long)a->input_shape.n);
  int nd = (int)a->input_shape.n;
  /* a program's input_shape may hold -1 for the batch and channel dims (unknown when the
   * backward was recorded): those are dout's */
  int64_t ish[PD_MAX_DIMS];
  int cl = a->data_format && a->data_format[0] == 'N' && a->data_format[strlen(a->data_format) - 1] == 'C';
  for (int d = 0; d < nd; d++) {
    ish[d] = a->input_shape.data[d];
    if (ish[d] < 0 && (d == 0 || d == (cl ? nd - 1 : 1)) && a->dout->ndim == nd) ish[d] = a->dout->shape[d];
  }
  PD_TRY(pd_interp_check("interp_grad", nd, ish, a->out_size, a->scale, a->mode, a->data_format, &g));
  if (a->dout->ndim != nd || memcmp(a->dout->shape, g.out_shape, sizeof(int64_t) * (size_t)nd))
    return BAD("[interp_grad] dout's shape does not match the output size");
  pd_meta_set(pd_meta_list_resize(out, 1), a->dout->dtype, nd, ish);
  return PD_OK;
}

/* ---- unfold / fold ---- */
pd_status pd_unfold_geometry(const char *op, int64_t h, int64_t w, pd_int_array k, pd_int_array s,
                             pd_int_array p, pd_int_array d, pd_unfold_geom *g) {
  if (k.n != 2 || s.n != 2 || p.n != 4 || d.n != 2)
    return BAD("[%s] expected 2 kernel sizes, 2 strides, 4 paddings and 2 dilations", op);
  for (int i = 0; i < 2; i++) {
    if (k.data[i] <= 0 || s.data[i] <= 0 || d.data[i] <= 0)
      return BAD("[%s] expected kernel sizes, strides and dilations > 0", op);
  }
  for (int i = 0; i < 4; i++)
    if (p.data[i] < 0) return BAD("[%s] expected paddings >= 0, received %lld", op, (long long)p.data[i]);
  g->h = h;
  g->w = w;
  g->kh = k.data[0];
  g->kw = k.data[1];
  g->sh = s.data[0];
  g->sw = s.data[1];
  g->pt = p.data[0];
  g->pl = p.data[1];
  g->dh = d.data[0];
  g->dw = d.data[1];
  int64_t eh = h + p.data[0] + p.data[2] - (g->dh * (g->kh - 1) + 1);
  int64_t ew = w + p.data[1] + p.data[3] - (g->dw * (g->kw - 1) + 1);
  if (eh < 0 || ew < 0)
    return BAD("[%s] the (dilated) kernel %lldx%lld is larger than the padded input %lldx%lld", op,
               (long long)(g->dh * (g->kh - 1) + 1), (long long)(g->dw * (g->kw - 1) + 1),
               (long long)(h + p.data[0] + p.data[2]), (long long)(w + p.data[1] + p.data[3]));
  g->oh = eh / g->sh + 1;
  g->ow = ew / g->sw + 1;
  return PD_OK;
}

pd_status pd_infer_unfold(const void *args, pd_meta_list *out) {
  const pd_unfold_args *a = (const pd_unfold_args *)args;
  if (a->x->ndim != 4) return BAD("[unfold] expected a 4-D input [N, C, H, W], received %d-D", a->x->ndim);
  pd_unfold_geom g;
  PD_TRY(pd_unfold_geometry("unfold", a->x->shape[2], a->x->shape[3], a->kernel_sizes, a->strides,
                            a->paddings, a->dilations, &g));
  int64_t shp[3] = {a->x->shape[0], a->x->shape[1] * g.kh * g.kw, g.oh * g.ow};
  pd_meta_set(pd_meta_list_resize(out, 1), a->x->dtype, 3, shp);
  return PD_OK;
}

pd_status pd_infer_fold(const void *args, pd_meta_list *out) {
  const pd_fold_args *a = (const pd_fold_args *)args;
  if (a->x->ndim != 3) return BAD("[fold] expected a 3-D input [N, C*kh*kw, L], received %d-D", a->x->ndim);
  if (a->output_sizes.n != 2) return BAD("[fold] expected 2 output sizes");
  pd_unfold_geom g;
  PD_TRY(pd_unfold_geometry("fold", a->output_sizes.data[0], a->output_sizes.data[1], a->kernel_sizes,
                            a->strides, a->paddings, a->dilations, &g));
  if (g.h <= 0 || g.w <= 0) return BAD("[fold] expected output sizes > 0");
  if (a->x->shape[1] % (g.kh * g.kw) != 0)
    return BAD("[fold] expected x.shape[1] (%lld) divisible by kh*kw (%lld)",
               (long long)a->x->shape[1], (long long)(g.kh * g.kw));
  if (a->x->shape[2] != g.oh * g.ow)
    return BAD("[fold] expected x.shape[2] == %lld blocks, received %lld", (long long)(g.oh * g.ow),
               (long long)a->x->shape[2]);
  int64_t shp[4] = {a->x->shape[0], a->x->shape[1] / (g.kh * g.kw), g.h, g.w};
  pd_meta_set(pd_meta_list_resize(out, 1), a->x->dtype, 4, shp);
  return PD_OK;
}
