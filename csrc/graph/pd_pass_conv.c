/* conv_bn_fuse_pass (Paddle's name): conv2d / depthwise_conv2d (NCHW, no Bias input) whose output
 * only an inference batch_norm reads becomes the convolution with scaled filters plus an
 * elementwise_add (axis 1) of the folded bias, as Paddle's pass leaves it:
 *   s = scale / sqrt(variance + epsilon);  W'[o] = W[o] * s[o];  b' = bias - mean * s
 * The folded values are new persistables (the originals are swept when nothing reads them). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pd_pass.h"

static int is_conv(const pd_opdesc *op) {
  return !strcmp(op->type, "conv2d") || !strcmp(op->type, "depthwise_conv2d");
}

static pd_status rename_slot(pd_opdesc *op, int is_out, const char *from, const char *to) {
  const pd_opslot *s = pd_opdesc_slot(op, is_out, from);
  if (!s) return PD_OK;
  int n = s->n;
  const char **args = (const char **)malloc(sizeof(char *) * (size_t)(n ? n : 1));
  char **copies = (char **)calloc((size_t)(n ? n : 1), sizeof(char *));
  pd_status st = args && copies ? PD_OK : pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  for (int k = 0; st == PD_OK && k < n; k++) {
    size_t l = strlen(s->args[k]) + 1;
    if (!(copies[k] = (char *)malloc(l))) st = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
    else memcpy(copies[k], s->args[k], l);
    args[k] = copies[k];
  }
  if (st == PD_OK) st = pd_opdesc_remove_slot(op, is_out, from);
  if (st == PD_OK) st = pd_opdesc_set_slot(op, is_out, to, n, args);
  for (int k = 0; copies && k < n; k++) free(copies[k]);
  free(copies);
  free(args);
  return st;
}

/* folds batch_norm op j into conv op i when everything fits; *done says whether it did. A
 * conv2d_transpose (transpose: its filter is [C, O, kh, kw], groups 1) scales the filter along
 * dim 1; pre_bias (or NULL): the persistable per-channel bias an elementwise_add added to the
 * convolution's output before the batch_norm, folded in too (b' = bias + (pre_bias - mean) * s) */
static pd_status fold(pd_pass_ctx *c, pd_block *b, int i, int j, int transpose, const char *pre_bias, int *done) {
  *done = 0;
  pd_opdesc *conv = b->ops[i], *bn = b->ops[j];
  const char *w_name = pd_pass_in(conv, "Filter");
  const pd_opslot *cb = pd_opdesc_slot(conv, 0, "Bias");
  if (!w_name || (cb && cb->n)) return PD_OK;
  const char *fmt = pd_pass_attr_str(conv, "data_format", "NCHW");
  if (strcmp(fmt, "NCHW") && strcmp(fmt, "AnyLayout")) return PD_OK;
  if (strcmp(pd_pass_attr_str(bn, "data_layout", "NCHW"), "NCHW")) return PD_OK;
  if (!pd_pass_attr_int(bn, "is_test", 0) && !pd_pass_attr_int(bn, "use_global_stats", 0)) return PD_OK;
  const char *sc = pd_pass_in(bn, "Scale"), *bi = pd_pass_in(bn, "Bias"), *mu = pd_pass_in(bn, "Mean"),
             *va = pd_pass_in(bn, "Variance"), *y = pd_pass_out(bn, "Y");
  if (!sc || !bi || !mu || !va || !y) return PD_OK;
  pd_tensor *W = pd_pass_param(c, w_name), *S = pd_pass_param(c, sc), *B = pd_pass_param(c, bi),
            *M = pd_pass_param(c, mu), *V = pd_pass_param(c, va);
  if (!W || !S || !B || !M || !V || W->ndim != 4 || !pd_tensor_is_contiguous(W)) return PD_OK;
  const int64_t co = transpose ? W->shape[1] : W->shape[0];
  pd_tensor *PB = pre_bias ? pd_pass_param(c, pre_bias) : NULL;
  if (pre_bias && (!PB || PB->numel != co || !pd_tensor_is_contiguous(PB))) return PD_OK;
  if (S->numel != co || B->numel != co || M->numel != co || V->numel != co) return PD_OK;
  if (!pd_tensor_is_contiguous(S) || !pd_tensor_is_contiguous(B) || !pd_tensor_is_contiguous(M) ||
      !pd_tensor_is_contiguous(V))
    return PD_OK;
  const double eps = pd_pass_attr_float(bn, "epsilon", 1e-5);
  const float *w = (const float *)pd_tensor_data(W), *s = (const float *)pd_tensor_data(S),
              *bb = (const float *)pd_tensor_data(B), *m = (const float *)pd_tensor_data(M),
              *v = (const float *)pd_tensor_data(V);
  pd_tensor *W2, *B2;
  PD_TRY(pd_tensor_empty(PD_FLOAT32, W->ndim, W->shape, &W2));
  int64_t bshape[1] = {co};
  pd_status st = pd_tensor_empty(PD_FLOAT32, 1, bshape, &B2);
  if (st != PD_OK) {
    pd_tensor_release(W2);
    return st;
  }
  float *w2 = (float *)pd_tensor_data(W2), *b2 = (float *)pd_tensor_data(B2);
  const float *pb = PB ? (const float *)pd_tensor_data(PB) : NULL;
  const int64_t per = W->numel / co / (transpose ? W->shape[0] : 1); /* kh * kw (transpose), else C * kh * kw */
  for (int64_t o = 0; o < co; o++) {
    /* in float32 as Paddle's pass computes it */
    float f = s[o] / sqrtf(v[o] + (float)eps);
    if (transpose)
      for (int64_t ci = 0; ci < W->shape[0]; ci++)
        for (int64_t k = 0; k < per; k++) w2[(ci * co + o) * per + k] = w[(ci * co + o) * per + k] * f;
    else
      for (int64_t k = 0; k < per; k++) w2[o * per + k] = w[o * per + k] * f;
    b2[o] = pb ? bb[o] + (pb[o] - m[o]) * f : bb[o] - m[o] * f;
  }
  char wn[512], bn_name[512];
  PD_TRY(pd_pass_new_param(c, b, w_name, W2, wn, sizeof wn));
  PD_TRY(pd_pass_new_param(c, b, bi, B2, bn_name, sizeof bn_name));
  const char *wa[1] = {wn}, *ya[1] = {bn_name};
  PD_TRY(pd_opdesc_set_slot(conv, 0, "Filter", 1, wa));
  /* the batch_norm becomes elementwise_add(X = conv output, Y = folded bias, axis = 1) -> Y */
  PD_TRY(pd_opdesc_set_type(bn, "elementwise_add"));
  static const char *const drop_in[] = {"Scale", "Bias", "Mean", "Variance", "MomentumTensor"};
  static const char *const drop_out[] = {"MeanOut", "VarianceOut", "SavedMean", "SavedVariance", "ReserveSpace"};
  for (size_t k = 0; k < sizeof drop_in / sizeof *drop_in; k++) PD_TRY(pd_opdesc_remove_slot(bn, 0, drop_in[k]));
  for (size_t k = 0; k < sizeof drop_out / sizeof *drop_out; k++) PD_TRY(pd_opdesc_remove_slot(bn, 1, drop_out[k]));
  PD_TRY(pd_opdesc_set_slot(bn, 0, "Y", 1, ya));
  PD_TRY(rename_slot(bn, 1, "Y", "Out"));
  while (bn->n_attrs) {
    char an[256];
    snprintf(an, sizeof an, "%s", bn->attrs[0].name);
    PD_TRY(pd_opdesc_remove_attr(bn, an));
  }
  PD_TRY(pd_opdesc_set_attr_int(bn, "axis", PD_AT_INT, 1));
  *done = 1;
  return PD_OK;
}

pd_status pd_pass_conv_bn(pd_pass_ctx *c) {
  pd_block *b = c->prog->blocks[0];
  for (int i = 0; i < b->n_ops; i++) {
    if (!is_conv(b->ops[i])) continue;
    const char *out = pd_pass_out(b->ops[i], "Output");
    int first;
    if (!out || pd_pass_is_protected(c, out) || pd_pass_readers(b, out, &first) != 1) continue;
    if (strcmp(b->ops[first]->type, "batch_norm") != 0) continue;
    const char *x = pd_pass_in(b->ops[first], "X");
    if (!x || strcmp(x, out) != 0) continue;
    /* the filter must not feed another op (it is replaced, not rewritten in place, but a shared
     * filter would still be read by the other conv: fine; only the conv's own use changes) */
    int done;
    PD_TRY(fold(c, b, i, first, 0, NULL, &done));
    c->n_rewrites += done;
  }
  pd_program_touch(c->prog);
  return PD_OK;
}

/* conv_transpose_eltwiseadd_bn_fuse_pass / conv_transpose_bn_fuse_pass (Paddle's names):
 * conv2d_transpose (NCHW, groups 1, no Bias) -> [elementwise_add of a persistable per-channel
 * bias, axis 1] -> inference batch_norm, each output read only by the next op, becomes the
 * transposed convolution with filters scaled per output channel plus one elementwise_add of the
 * folded bias (which elementwise_act_onednn_fuse_pass may then fuse with a following relu):
 * ppocrv3_det's DB head ran the bias add, the batch_norm and the relu as three passes over its
 * largest values. */
pd_status pd_pass_conv_transpose_bn(pd_pass_ctx *c) {
  pd_block *b = c->prog->blocks[0];
  for (int i = 0; i < b->n_ops; i++) {
    pd_opdesc *op = b->ops[i];
    if (strcmp(op->type, "conv2d_transpose") != 0 || pd_pass_attr_int(op, "groups", 1) != 1) continue;
    const char *out = pd_pass_out(op, "Output");
    int j;
    if (!out || pd_pass_is_protected(c, out) || pd_pass_readers(b, out, &j) != 1) continue;
    const char *w_name = pd_pass_in(op, "Filter");
    pd_tensor *W = w_name ? pd_pass_param(c, w_name) : NULL;
    if (!W || W->ndim != 4) continue;
    const char *pre_bias = NULL, *bn_in = out;
    int add = -1, rop = -1;
    if (!strcmp(b->ops[j]->type, "elementwise_add")) {
      /* the bias as Paddle's static Conv2DTranspose adds it (axis 1) or a dygraph-exported
       * program's reshape2 of it to [1, C, 1, 1] */
      const char *x = pd_pass_in(b->ops[j], "X"), *y = pd_pass_in(b->ops[j], "Y"), *ao = pd_pass_out(b->ops[j], "Out");
      const char *src = y ? pd_pass_bias_source(c, b, j, y, W->shape[1], &rop) : NULL;
      const int64_t axis = pd_pass_attr_int(b->ops[j], "axis", -1);
      if (!x || !ao || strcmp(x, out) != 0 || !src || (rop < 0 ? axis != 1 : (axis != -1 && axis != 1)) ||
          pd_pass_is_protected(c, ao) || pd_pass_readers(b, ao, NULL) != 1)
        continue;
      pd_tensor *Y = pd_pass_param(c, src);
      int nd = 0;
      for (int k = 0; k < Y->ndim; k++) nd += Y->shape[k] != 1;
      if (nd > 1) continue;
      pre_bias = src;
      bn_in = ao;
      add = j;
      pd_pass_readers(b, ao, &j);
    }
    const char *bx = pd_pass_in(b->ops[j], "X");
    if (strcmp(b->ops[j]->type, "batch_norm") != 0 || !bx || strcmp(bx, bn_in) != 0) continue;
    char pb_name[512] = "", ao_name[512] = "", r_name[512] = "";
    if (pre_bias) {
      snprintf(pb_name, sizeof pb_name, "%s", pre_bias);
      snprintf(ao_name, sizeof ao_name, "%s", bn_in);
      if (rop >= 0) snprintf(r_name, sizeof r_name, "%s", pd_pass_in(b->ops[add], "Y"));
    }
    char out_name[512];
    snprintf(out_name, sizeof out_name, "%s", out);
    int done;
    PD_TRY(fold(c, b, i, j, 1, pre_bias ? pb_name : NULL, &done));
    if (!done) continue;
    if (add >= 0) { /* its bias is in the folded one now: the add is the identity */
      int dropped;
      PD_TRY(pd_pass_drop_identity(c, b, add, out_name, ao_name, &dropped));
      if (!dropped)
        return pd_set_error(PD_ERR_FATAL, "conv_transpose_eltwiseadd_bn_fuse_pass: could not remove the bias add");
      if (r_name[0]) PD_TRY(pd_pass_drop_bias_reshape(c, b, r_name, &i));
    }
    c->n_rewrites++;
  }
  pd_program_touch(c->prog);
  return PD_OK;
}

/* scale_fold_pass (ours): y = scale(op(x, W), s) with bias 0, W a float32 persistable of conv2d /
 * depthwise_conv2d (Filter), matmul_v2 or mul (Y), and op's output read by the scale alone,
 * becomes op(x, s * W): the scale op goes. */
pd_status pd_pass_scale_fold(pd_pass_ctx *c) {
  pd_block *b = c->prog->blocks[0];
  for (int i = 0; i < b->n_ops; i++) {
    pd_opdesc *op = b->ops[i];
    const char *wslot = is_conv(op) ? "Filter" : (!strcmp(op->type, "matmul_v2") || !strcmp(op->type, "mul")) ? "Y"
                                                                                                             : NULL;
    const char *oslot = is_conv(op) ? "Output" : "Out";
    if (!wslot) continue;
    const char *w_name = pd_pass_in(op, wslot), *out = pd_pass_out(op, oslot);
    int j;
    if (!w_name || !out || pd_pass_is_protected(c, out) || pd_pass_readers(b, out, &j) != 1) continue;
    pd_opdesc *sc = b->ops[j];
    if (strcmp(sc->type, "scale") != 0 || pd_opdesc_slot(sc, 0, "ScaleTensor")) continue;
    const char *sx = pd_pass_in(sc, "X"), *so = pd_pass_out(sc, "Out");
    if (!sx || !so || strcmp(sx, out) != 0 || pd_pass_attr_float(sc, "bias", 0.0) != 0.0) continue;
    pd_tensor *W = pd_pass_param(c, w_name);
    if (!W || !pd_tensor_is_contiguous(W)) continue;
    const float f = (float)pd_pass_attr_float(sc, "scale", 1.0);
    pd_tensor *W2;
    PD_TRY(pd_tensor_empty(PD_FLOAT32, W->ndim, W->shape, &W2));
    const float *w = (const float *)pd_tensor_data(W);
    float *w2 = (float *)pd_tensor_data(W2);
    for (int64_t k = 0; k < W->numel; k++) w2[k] = w[k] * f;
    char wn[512];
    PD_TRY(pd_pass_new_param(c, b, w_name, W2, wn, sizeof wn));
    const char *wa[1] = {wn};
    PD_TRY(pd_opdesc_set_slot(op, 0, wslot, 1, wa));
    /* the scale is now the identity from out to so */
    int done; /* (drop_identity copies the names before it edits the program) */
    PD_TRY(pd_pass_drop_identity(c, b, j, out, so, &done));
    if (!done) PD_TRY(pd_opdesc_set_attr_float(sc, "scale", PD_AT_FLOAT, 1.0));
    c->n_rewrites++;
  }
  pd_program_touch(c->prog);
  return PD_OK;
}
