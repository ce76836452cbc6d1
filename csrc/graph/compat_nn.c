/* Custom converters of ops/compat.yaml for the nn family: convolutions (depthwise, AnyLayout,
 * no fused bias in Paddle's op), pooling, dropout (is_test, Paddle's mode names), the
 * interpolate_v2 ops (sizes from attributes or tensors), unpool and the rnn op (one op for every
 * layer and direction of an LSTM / GRU / simple RNN, run as our per-direction sequence ops). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "compat_util.h"
#include "pd_trace.h"

/* sets the data_format-like string field of args from the op's attribute (AnyLayout -> ours) */
static void fix_format(pd_convert_ctx *c, int our, void *args, const char *field, const char *attr, int ndim) {
  const char **f = (const char **)pd_cv_field(our, args, field);
  if (!f) return;
  pd_status st = PD_OK;
  const char *v = pd_cv_str(c, attr, NULL, &st);
  if (st != PD_OK) pd_clear_error();
  if (v && strcmp(v, "AnyLayout") != 0) return;
  if (!v && *f) return;
  *f = pd_cvx_format(v ? v : "NCHW", ndim);
}

/* ---------------------------------------------------------------- convolutions */
/* conv2d / depthwise_conv2d / conv3d (depthwise is conv2d with groups = channels) */
pd_status pd_cv_load_conv(pd_convert_ctx *c) {
  pd_tensor *x;
  PD_TRY(pd_cv_need(c, "Input", &x));
  int our = x->ndim == 5 || strcmp(pd_cv_op(c)->type, "conv3d") == 0 ? PD_OP_CONV3D : PD_OP_CONV2D;
  const pd_compat_def *def = pd_compat_for_op(our);
  void *args;
  PD_TRY(pd_cv_fill(c, def, our, &args));
  fix_format(c, our, args, "data_format", "data_format", x->ndim);
  return pd_cv_finish(c, def, our, args);
}

pd_status pd_cv_save_conv(int our_op, const void *args, pd_opdesc *op, const char *const *in_names,
                          const char *const *out_names) {
  (void)in_names;
  (void)out_names;
  if (*(pd_tensor *const *)pd_cv_field(our_op, (void *)args, "bias"))
    return pd_set_error(PD_ERR_UNIMPLEMENTED, "[%s] Paddle's op takes no bias: add it with a separate op "
                        "(paddle.nn.functional.conv2d does while a program records)", op->type);
  return PD_OK;
}

/* fused_conv2d (oneDNN's fused form the inference passes write): AnyLayout is channel-first; a
 * residual input (fuse_residual_connection) is not supported */
pd_status pd_cv_load_fused_conv(pd_convert_ctx *c) {
  pd_tensor *x;
  PD_TRY(pd_cv_need(c, "Input", &x));
  pd_status st = PD_OK;
  /* Paddle writes fuse_residual_connection always; without it (our recorder) the input decides */
  int64_t res = pd_cv_int(c, "fuse_residual_connection", pd_cv_in(c, "ResidualData", 0) != NULL, &st);
  PD_TRY(st);
  if (res && !pd_cv_in(c, "ResidualData", 0))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[fused_conv2d] fuse_residual_connection is true but the ResidualData input is missing");
  int our;
  const pd_compat_def *def = pd_cv_def(c, &our);
  void *args;
  PD_TRY(pd_cv_fill(c, def, our, &args));
  if (!res) /* as Paddle's oneDNN kernel: ResidualData counts only with fuse_residual_connection */
    *(pd_tensor **)pd_cv_field(our, args, "residual_data") = NULL;
  fix_format(c, our, args, "data_format", "data_format", x->ndim);
  return pd_cv_finish(c, def, our, args);
}

/* conv2d_transpose / depthwise_conv2d_transpose / conv3d_transpose */
pd_status pd_cv_load_conv_transpose(pd_convert_ctx *c) {
  pd_tensor *x;
  PD_TRY(pd_cv_need(c, "Input", &x));
  int our = x->ndim == 5 ? PD_OP_CONV3D_TRANSPOSE : PD_OP_CONV2D_TRANSPOSE;
  const pd_compat_def *def = pd_compat_for_op(our);
  void *args;
  PD_TRY(pd_cv_fill(c, def, our, &args));
  fix_format(c, our, args, "data_format", "data_format", x->ndim);
  pd_tensor *o, *b = pd_cv_in(c, "Bias", 0);
  PD_TRY(pd_cv_run1(c, our, args, &o));
  if (b) { /* the extra Bias input (oneDNN's fused form): per output channel */
    const char *fmt = *(const char **)pd_cv_field(our, args, "data_format");
    int cl = fmt && fmt[1] != 'C';
    pd_tensor *bb, *t;
    pd_status s = pd_cvx_align(c, b, o->ndim, cl ? o->ndim - 1 : 1, &bb);
    if (s == PD_OK) {
      s = pd_cvx_binary(c, PD_OP_ADD, o, bb, &t);
      pd_tensor_release(bb);
    }
    pd_tensor_release(o);
    PD_TRY(s);
    o = t;
  }
  return pd_cv_bind(c, "Output", o);
}

/* pool2d / pool3d: ksize is our kernel_size; AnyLayout is channel-first */
pd_status pd_cv_load_pool(pd_convert_ctx *c) {
  pd_tensor *x;
  PD_TRY(pd_cv_need(c, "X", &x));
  int our;
  const pd_compat_def *def = pd_cv_def(c, &our);
  void *args;
  PD_TRY(pd_cv_fill(c, def, our, &args));
  fix_format(c, our, args, "data_format", "data_format", x->ndim);
  const char **pt = (const char **)pd_cv_field(our, args, "pooling_type");
  if (pt && (!*pt || !**pt)) *pt = "max";
  return pd_cv_finish(c, def, our, args);
}

/* max_pool2d_with_index: Paddle's Mask is int32 (ours int64) */
pd_status pd_cv_load_max_pool_index(pd_convert_ctx *c) {
  int our;
  const pd_compat_def *def = pd_cv_def(c, &our);
  void *args;
  PD_TRY(pd_cv_fill(c, def, our, &args));
  pd_tensor *o[2], *m;
  int n;
  PD_TRY(pd_cv_run(c, our, args, o, 2, &n));
  pd_status s = pd_cv_out(c, "Out", 0, o[0]);
  if (s == PD_OK && n > 1) {
    /* the Mask is int32, as Paddle's; a Mask variable declared int64 (what our recorder wrote
     * before the op gave int32) gets its declared dtype */
    const pd_opdesc *op = pd_cv_op(c);
    const pd_opslot *ms = pd_opdesc_slot(op, 1, "Mask");
    const pd_var *mv = ms && ms->n > 0 && op->block ? pd_block_find_var_recursive(op->block, ms->args[0]) : NULL;
    if (mv && mv->dtype == PD_INT64) {
      s = pd_cvx_cast(c, o[1], PD_INT64, &m);
      if (s == PD_OK) s = pd_cv_bind(c, "Mask", m);
    } else {
      s = pd_cv_out(c, "Mask", 0, o[1]);
    }
  }
  for (int k = 0; k < n; k++) pd_tensor_release(o[k]);
  return s;
}

/* ---------------------------------------------------------------- dropout */
/* Paddle: dropout_implementation downgrade_in_infer (its default) / upscale_in_train; at
 * inference (is_test) the first scales by 1 - p, the second is the identity */
pd_status pd_cv_load_dropout(pd_convert_ctx *c) {
  pd_tensor *x, *o;
  PD_TRY(pd_cv_need(c, "X", &x));
  pd_status st = PD_OK;
  double p = pd_cv_float(c, "dropout_prob", 0.5, &st);
  int64_t is_test = pd_cv_int(c, "is_test", 0, &st), seed = pd_cv_int(c, "seed", 0, &st),
          fix = pd_cv_int(c, "fix_seed", 0, &st);
  const char *impl = pd_cv_str(c, "dropout_implementation", "downgrade_in_infer", &st);
  PD_TRY(st);
  int up = strcmp(impl, "upscale_in_train") == 0;
  if (!up && strcmp(impl, "downgrade_in_infer") != 0)
    return pd_cv_error(c, PD_ERR_INVALID_ARGUMENT, "unknown dropout_implementation '%s'", impl);
  if (is_test) {
    if (up) return pd_cv_out(c, "Out", 0, x);
    PD_TRY(pd_cvx_scale(c, x, 1.0 - (double)(float)p, 0.0, &o));
    return pd_cv_bind(c, "Out", o);
  }
  pd_dropout_args a = {x, p, up ? "upscale_in_train" : "downscale_in_infer", fix ? seed : 0};
  pd_tensor *outs[2];
  int n;
  PD_TRY(pd_cv_run(c, PD_OP_DROPOUT, &a, outs, 2, &n));
  pd_status s = pd_cv_out(c, "Out", 0, outs[0]);
  if (s == PD_OK && n > 1) s = pd_cv_out(c, "Mask", 0, outs[1]);
  for (int k = 0; k < n; k++) pd_tensor_release(outs[k]);
  return s;
}

pd_status pd_cv_save_dropout(int our_op, const void *args, pd_opdesc *op, const char *const *in_names,
                             const char *const *out_names) {
  (void)our_op;
  (void)in_names;
  (void)out_names;
  const pd_dropout_args *a = (const pd_dropout_args *)args;
  int up = a->mode && strcmp(a->mode, "upscale_in_train") == 0;
  PD_TRY(pd_opdesc_set_attr_str(op, "dropout_implementation", up ? "upscale_in_train" : "downgrade_in_infer"));
  return pd_opdesc_set_attr_int(op, "fix_seed", PD_AT_BOOLEAN, a->seed != 0);
}

/* ---------------------------------------------------------------- interpolate */
static const char *const k_modes[][2] = {{"nearest", "nearest_interp_v2"}, {"bilinear", "bilinear_interp_v2"},
                                         {"bicubic", "bicubic_interp_v2"}, {"linear", "linear_interp_v2"},
                                         {"trilinear", "trilinear_interp_v2"}};

/* *_interp_v2: the sizes from the attributes when they are known while compiling (our interp,
 * differentiable), else from the tensors when the program runs (interp_v2) */
pd_status pd_cv_load_interp(pd_convert_ctx *c) {
  pd_tensor *x, *o;
  PD_TRY(pd_cv_need(c, "X", &x));
  const char *type = pd_cv_op(c)->type, *method = NULL;
  for (int i = 0; i < 5; i++)
    if (strcmp(type, k_modes[i][1]) == 0) method = k_modes[i][0];
  pd_status st = PD_OK;
  const char *attr_method = pd_cv_str(c, "interp_method", NULL, &st);
  const char *layout = pd_cv_str(c, "data_layout", "NCHW", &st);
  int64_t out_d = pd_cv_int(c, "out_d", -1, &st), out_h = pd_cv_int(c, "out_h", -1, &st),
          out_w = pd_cv_int(c, "out_w", -1, &st), align_mode = pd_cv_int(c, "align_mode", 1, &st),
          align_corners = pd_cv_int(c, "align_corners", 1, &st);
  int64_t nsc;
  const double *sc = pd_cv_floats(c, "scale", &nsc, &st);
  PD_TRY(st);
  if (!method) method = attr_method ? attr_method : "bilinear";
  if (nsc < 0) nsc = 0;
  int nd = x->ndim, ns = nd - 2;
  if (ns < 1 || ns > 3) return pd_cv_error(c, PD_ERR_INVALID_ARGUMENT, "expected a 3-D to 5-D input");
  pd_tensor *size_t_ = pd_cv_in(c, "OutSize", 0), *scale_t = pd_cv_in(c, "Scale", 0);
  int nsz = pd_cv_in_count(c, "SizeTensor");
  pd_interp_v2_args v2;
  memset(&v2, 0, sizeof v2);
  pd_tensor **szl = NULL;
  if (nsz > 0) {
    szl = (pd_tensor **)pd_cv_alloc(c, sizeof(pd_tensor *) * (size_t)nsz);
    if (!szl) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
    for (int k = 0; k < nsz; k++) szl[k] = pd_cv_in(c, "SizeTensor", k);
  }
  v2.x = x;
  v2.size_tensor = (pd_tensor_list){szl, nsz};
  v2.data_layout = layout;
  v2.out_d = out_d;
  v2.out_h = out_h;
  v2.out_w = out_w;
  v2.scale = (pd_float_array){sc, nsc};
  v2.interp_method = method;
  v2.align_corners = (int)align_corners;
  v2.align_mode = align_mode;
  v2.out_size = size_t_;
  v2.scale_tensor = scale_t;
  /* the static case: no tensors and sizes known from the attributes (and x's dims for scales) */
  pd_meta_list ml;
  ml.n = 0;
  ml.m = ml.inline_m;
  int dynamic = size_t_ || scale_t || nsz > 0;
  if (!dynamic) {
    PD_TRY(pd_op_defs[PD_OP_INTERP_V2].infer_meta(&v2, &ml));
    int cl = strcmp(layout, "NCHW") != 0;
    for (int i = 0; i < ns; i++)
      if (ml.m[0].shape[(cl ? 1 : 2) + i] < 0) dynamic = 1;
    if (!dynamic) {
      int64_t sizes[3];
      double scales[3];
      int with_scale = nsc > (ns == 1 ? 0 : 1);
      for (int i = 0; i < ns; i++) {
        sizes[i] = ml.m[0].shape[(cl ? 1 : 2) + i];
        scales[i] = with_scale ? (double)(float)sc[i] : 0.0;
      }
      pd_meta_list_free(&ml);
      static const char *const first[] = {"NCL", "NCHW", "NCDHW"}, *const last[] = {"NLC", "NHWC", "NDHWC"};
      pd_interp_args ia = {x, {sizes, ns}, {scales, with_scale ? ns : 0}, method, (int)align_corners, align_mode,
                           cl ? last[ns - 1] : first[ns - 1]};
      PD_TRY(pd_cv_run1(c, PD_OP_INTERP, &ia, &o));
      return pd_cv_bind(c, "Out", o);
    }
  }
  pd_meta_list_free(&ml);
  PD_TRY(pd_cv_run1(c, PD_OP_INTERP_V2, &v2, &o));
  return pd_cv_bind(c, "Out", o);
}

/* our interp -> *_interp_v2 (the type by mode; out_d/out_h/out_w and data_layout) */
pd_status pd_cv_save_interp(int our_op, const void *args, pd_opdesc *op, const char *const *in_names,
                            const char *const *out_names) {
  (void)in_names;
  (void)out_names;
  const char *mode;
  if (our_op == PD_OP_INTERP) {
    const pd_interp_args *a = (const pd_interp_args *)args;
    mode = a->mode;
    int ns = a->x->ndim - 2;
    int cl0 = a->data_format && a->data_format[1] != 'C';
    /* Paddle's op takes the output size from the scale when one is given (and the coordinates'
     * ratio from it): our sizes must be what its kernel computes, (int)(in * (float)scale) */
    for (int i = 0; a->scale.n > 0 && i < ns; i++) {
      int64_t in = a->x->shape[(cl0 ? 1 : 2) + i];
      if (a->scale.n < ns || i >= (int)a->out_size.n || in < 0 ||
          (int64_t)(int)((float)in * (float)a->scale.data[i]) != a->out_size.data[i])
        return pd_set_error(PD_ERR_UNIMPLEMENTED, "[interp] an output size other than the input size times the "
                            "scale has no Paddle form (Paddle's *_interp_v2 computes it from the scale)");
    }
    int64_t o[3] = {-1, -1, -1};
    for (int i = 0; i < ns && i < (int)a->out_size.n; i++) o[3 - ns + i] = a->out_size.data[i];
    PD_TRY(pd_opdesc_set_attr_int(op, "out_d", PD_AT_INT, o[0]));
    PD_TRY(pd_opdesc_set_attr_int(op, "out_h", PD_AT_INT, o[1]));
    PD_TRY(pd_opdesc_set_attr_int(op, "out_w", PD_AT_INT, o[2]));
    int cl = a->data_format && a->data_format[1] != 'C';
    /* Paddle's interpolate kernels read only "NCHW" as channel-first, whatever the rank */
    PD_TRY(pd_opdesc_set_attr_str(op, "data_layout", cl ? (ns == 3 ? "NDHWC" : "NHWC") : "NCHW"));
  } else {
    mode = ((const pd_interp_v2_args *)args)->interp_method;
  }
  for (int i = 0; i < 5; i++)
    if (mode && strcmp(mode, k_modes[i][0]) == 0) return pd_opdesc_set_type(op, k_modes[i][1]);
  return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[interp] unknown mode '%s'", mode ? mode : "(null)");
}

/* ---------------------------------------------------------------- unpool */
pd_status pd_cv_load_unpool(pd_convert_ctx *c) {
  pd_tensor *x, *idx, *o;
  PD_TRY(pd_cv_need(c, "X", &x));
  PD_TRY(pd_cv_need(c, "Indices", &idx));
  pd_status st = PD_OK;
  int64_t nk, ns, np, no;
  const int64_t *k = pd_cv_ints(c, "ksize", &nk, &st), *s = pd_cv_ints(c, "strides", &ns, &st),
                *p = pd_cv_ints(c, "paddings", &np, &st), *osz = pd_cv_ints(c, "output_size", &no, &st);
  const char *fmt = pd_cv_str(c, "data_format", "NCHW", &st);
  PD_TRY(st);
  int sp = x->ndim - 2;
  int64_t *out = (int64_t *)pd_cv_alloc(c, sizeof(int64_t) * 3);
  if (!out || sp < 1 || sp > 3) return pd_cv_error(c, PD_ERR_INVALID_ARGUMENT, "expected a 4-D or 5-D input");
  int given = no == sp;
  for (int i = 0; given && i < sp; i++) given = osz[i] > 0;
  for (int i = 0; i < sp; i++) {
    if (given) {
      out[i] = osz[i];
    } else { /* (in - 1) * stride - 2 * pad + ksize */
      int cl = fmt[1] != 'C';
      int64_t in = x->shape[(cl ? 1 : 2) + i];
      int64_t kk = nk > i ? k[i] : 1, ss = ns > i ? s[i] : 1, pp = np > i ? p[i] : 0;
      out[i] = (in - 1) * ss - 2 * pp + kk;
    }
  }
  pd_unpool_args a = {x, idx, {out, sp}, fmt, 0};
  PD_TRY(pd_cv_run1(c, PD_OP_UNPOOL, &a, &o));
  return pd_cv_bind(c, "Out", o);
}

pd_status pd_cv_save_unpool(int our_op, const void *args, pd_opdesc *op, const char *const *in_names,
                            const char *const *out_names) {
  (void)our_op;
  (void)in_names;
  (void)out_names;
  const pd_unpool_args *a = (const pd_unpool_args *)args;
  if (a->accumulate) return pd_set_error(PD_ERR_UNIMPLEMENTED, "[unpool] accumulate has no Paddle form");
  int64_t ns = a->output_size.n, ones[3] = {1, 1, 1}, zeros[3] = {0, 0, 0};
  PD_TRY(pd_opdesc_set_attr_ints(op, "ksize", PD_AT_INTS, ns, ones));
  PD_TRY(pd_opdesc_set_attr_ints(op, "strides", PD_AT_INTS, ns, ones));
  PD_TRY(pd_opdesc_set_attr_ints(op, "paddings", PD_AT_INTS, ns, zeros));
  return pd_opdesc_set_attr_str(op, "unpooling_type", "max");
}

/* ---------------------------------------------------------------- rnn */
/* Paddle's rnn op: Input [T, N, I] (time-major); PreState h0 (and c0 for LSTM), each
 * [layers * dirs, N, H]; WeightList: w_ih, w_hh of every (layer, direction), then b_ih, b_hh in
 * the same order; Out [T, N, dirs * H]; State the final h (and c) like PreState. */
static pd_status state_slice(pd_convert_ctx *c, pd_tensor *s, int64_t k, pd_tensor **o) {
  int64_t ax = 0, st = k, en = k + 1;
  pd_slice_args a = {s, {&ax, 1}, {&st, 1}, {&en, 1}};
  pd_tensor *t;
  PD_TRY(pd_cv_run1(c, PD_OP_SLICE, &a, &t));
  pd_squeeze_args q = {t, {&ax, 1}};
  pd_status r = pd_cv_run1(c, PD_OP_SQUEEZE, &q, o);
  pd_tensor_release(t);
  return r;
}

/* Input's batch-major source when the op before is transpose2(X, axis [1, 0, 2]) -> Input, as
 * Paddle's nn.LSTM/GRU/SimpleRNN (and ours, python/paddle/nn/layer/rnn.py) write a batch-major
 * layer: the recurrence then runs on X itself (lstm_seq's batch-major rows, the rows eager mode
 * uses: a recorded program's results and gradients equal eager's bit for bit), Out is its
 * transpose. NULL otherwise. */
static pd_tensor *batch_major_source(pd_convert_ctx *c) {
  const pd_opdesc *pv = pd_cv_prev_op(c);
  if (!pv || strcmp(pv->type, "transpose2") != 0) return NULL;
  const pd_opslot *po = pd_opdesc_slot(pv, 1, "Out"), *pi = pd_opdesc_slot(pv, 0, "X");
  const pd_opslot *xi = pd_opdesc_slot(pd_cv_op(c), 0, "Input");
  const pd_attr *ax = pd_opdesc_attr(pv, "axis");
  if (!po || !pi || !xi || po->n != 1 || pi->n != 1 || xi->n != 1 || !ax || ax->type != PD_AT_INTS || ax->n != 3 ||
      ax->ints[0] != 1 || ax->ints[1] != 0 || ax->ints[2] != 2 || strcmp(po->args[0], xi->args[0]) != 0 ||
      strcmp(pi->args[0], po->args[0]) == 0)
    return NULL;
  return pd_cv_var(c, pi->args[0]);
}

static pd_status swap01(pd_convert_ctx *c, pd_tensor *x, pd_tensor **o) {
  int64_t perm[3] = {1, 0, 2};
  pd_transpose_args a = {x, {perm, 3}};
  return pd_cv_run1(c, PD_OP_TRANSPOSE, &a, o);
}

pd_status pd_cv_load_rnn(pd_convert_ctx *c) {
  pd_tensor *x;
  PD_TRY(pd_cv_need(c, "Input", &x));
  pd_tensor *xb = batch_major_source(c);
  int tm = 1;
  if (xb && xb->ndim == 3 && x->ndim == 3) {
    x = xb;
    tm = 0;
  }
  pd_status st = PD_OK;
  const char *mode = pd_cv_str(c, "mode", "RNN_TANH", &st);
  int64_t layers = pd_cv_int(c, "num_layers", 1, &st), bidi = pd_cv_int(c, "is_bidirec", 0, &st),
          is_test = pd_cv_int(c, "is_test", 0, &st);
  double dp = pd_cv_float(c, "dropout_prob", 0.0, &st);
  PD_TRY(st);
  int lstm = strcmp(mode, "LSTM") == 0, gru = strcmp(mode, "GRU") == 0;
  if (!lstm && !gru && strcmp(mode, "RNN_TANH") != 0 && strcmp(mode, "RNN_RELU") != 0)
    return pd_cv_error(c, PD_ERR_INVALID_ARGUMENT, "unknown mode '%s'", mode);
  int dirs = bidi ? 2 : 1, nw = pd_cv_in_count(c, "WeightList"), n = (int)layers * dirs;
  if (layers < 1 || layers > 64 || (nw != 4 * n && nw != 2 * n))
    return pd_cv_error(c, PD_ERR_INVALID_ARGUMENT, "expected %d weights (and as many biases) for %lld layers, "
                       "received %d", 2 * n, (long long)layers, nw);
  int with_bias = nw == 4 * n;
  pd_tensor *h0, *c0 = NULL, *seq = pd_cv_in(c, "SequenceLength", 0);
  if (pd_cv_in_count(c, "PreState") < (lstm ? 2 : 1))
    return pd_cv_error(c, PD_ERR_INVALID_ARGUMENT, "PreState needs %d tensors", lstm ? 2 : 1);
  h0 = pd_cv_in(c, "PreState", 0);
  if (lstm) c0 = pd_cv_in(c, "PreState", 1);
  if (!h0 || (lstm && !c0)) return pd_cv_error(c, PD_ERR_INVALID_ARGUMENT, "PreState names no variable");
  pd_tensor **hs = (pd_tensor **)pd_cv_alloc(c, sizeof(pd_tensor *) * (size_t)(2 * n));
  if (!hs) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  pd_tensor **cs = hs + n;
  pd_tensor *in = x, *made = NULL;
  pd_status s = PD_OK;
  int nh = 0, nc = 0;
  for (int l = 0; s == PD_OK && l < layers; l++) {
    pd_tensor *outs[2] = {NULL, NULL};
    for (int d = 0; s == PD_OK && d < dirs; d++) {
      int k = l * dirs + d;
      pd_tensor *wih = pd_cv_in(c, "WeightList", 2 * k), *whh = pd_cv_in(c, "WeightList", 2 * k + 1);
      pd_tensor *bih = with_bias ? pd_cv_in(c, "WeightList", 2 * n + 2 * k) : NULL;
      pd_tensor *bhh = with_bias ? pd_cv_in(c, "WeightList", 2 * n + 2 * k + 1) : NULL;
      pd_tensor *hk = NULL, *ck = NULL, *o[5] = {NULL};
      int no = 0;
      s = state_slice(c, h0, k, &hk);
      if (s == PD_OK && lstm) s = state_slice(c, c0, k, &ck);
      if (s == PD_OK) {
        if (lstm) {
          pd_lstm_seq_args a = {in, hk, ck, wih, whh, bih, bhh, seq, d == 1, tm};
          s = pd_cv_run(c, PD_OP_LSTM_SEQ, &a, o, 5, &no);
        } else if (gru) {
          pd_gru_seq_args a = {in, hk, wih, whh, bih, bhh, seq, d == 1, tm};
          s = pd_cv_run(c, PD_OP_GRU_SEQ, &a, o, 5, &no);
        } else {
          pd_simple_rnn_seq_args a = {in, hk, wih, whh, bih, bhh, seq, strcmp(mode, "RNN_RELU") == 0 ? "relu" : "tanh",
                                      d == 1, tm};
          s = pd_cv_run(c, PD_OP_SIMPLE_RNN_SEQ, &a, o, 5, &no);
        }
      }
      pd_tensor_release(hk);
      pd_tensor_release(ck);
      if (s == PD_OK) {
        outs[d] = o[0];
        hs[nh++] = o[1];
        if (lstm) cs[nc++] = o[2];
        for (int j = lstm ? 3 : 2; j < no; j++) pd_tensor_release(o[j]);
      }
    }
    pd_tensor *lo = NULL;
    if (s == PD_OK && dirs == 2) {
      pd_concat_args ca = {{outs, 2}, -1};
      s = pd_cv_run1(c, PD_OP_CONCAT, &ca, &lo);
      pd_tensor_release(outs[0]);
      pd_tensor_release(outs[1]);
    } else {
      lo = outs[0];
    }
    if (s == PD_OK && !is_test && dp > 0 && l + 1 < layers) {
      pd_dropout_args da = {lo, dp, "upscale_in_train", 0};
      pd_tensor *dr[2];
      int ndr;
      s = pd_cv_run(c, PD_OP_DROPOUT, &da, dr, 2, &ndr);
      pd_tensor_release(lo);
      lo = s == PD_OK ? dr[0] : NULL;
      if (s == PD_OK && ndr > 1) pd_tensor_release(dr[1]);
    }
    pd_tensor_release(made);
    made = lo;
    in = lo;
  }
  if (s == PD_OK && !tm) {
    pd_tensor *t = NULL;
    s = swap01(c, made, &t);
    pd_tensor_release(made);
    made = t;
  }
  if (s == PD_OK) s = pd_cv_out(c, "Out", 0, made);
  for (int which = 0; which < (lstm ? 2 : 1) && s == PD_OK; which++) {
    pd_tensor *t;
    pd_stack_args sa = {{which ? cs : hs, n}, 0};
    s = pd_cv_run1(c, PD_OP_STACK, &sa, &t);
    if (s == PD_OK) {
      s = pd_cv_out(c, "State", which, t);
      pd_tensor_release(t);
    }
  }
  pd_tensor_release(made);
  for (int i = 0; i < nh; i++) pd_tensor_release(hs[i]);
  for (int i = 0; i < nc; i++) pd_tensor_release(cs[i]);
  return s;
}

/* ---------------------------------------------------------------- deformable_conv */
pd_status pd_cv_save_deformable(int our_op, const void *args, pd_opdesc *op, const char *const *in_names,
                                const char *const *out_names) {
  (void)our_op;
  (void)in_names;
  (void)out_names;
  const pd_deformable_conv_args *a = (const pd_deformable_conv_args *)args;
  if (a->mask) return PD_OK;
  PD_TRY(pd_opdesc_remove_slot(op, 0, "Mask"));
  return pd_opdesc_set_type(op, "deformable_conv_v1");
}

pd_status pd_cv_load_deformable_v1(pd_convert_ctx *c) {
  const pd_compat_def *def = pd_compat_for_op(PD_OP_DEFORMABLE_CONV);
  return pd_cv_generic(c, def, PD_OP_DEFORMABLE_CONV);
}

/* max_pool2d_with_index: Paddle's op has no ceil_mode, data_format or padding_algorithm */
pd_status pd_cv_save_max_pool_index(int our_op, const void *args, pd_opdesc *op, const char *const *in_names,
                                    const char *const *out_names) {
  (void)our_op;
  (void)in_names;
  (void)out_names;
  (void)op;
  const pd_max_pool2d_with_index_args *a = (const pd_max_pool2d_with_index_args *)args;
  if (a->ceil_mode || (a->data_format && strcmp(a->data_format, "NCHW") != 0) ||
      (a->padding_algorithm && strcmp(a->padding_algorithm, "EXPLICIT") != 0))
    return pd_set_error(PD_ERR_UNIMPLEMENTED, "[max_pool2d_with_index] ceil_mode, channel-last data or a padding "
                        "algorithm have no Paddle form of this op");
  return PD_OK;
}
