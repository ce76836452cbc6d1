/* Fusion passes (Paddle's names), run after conv_bn_fuse_pass so the folded bias adds are there:
 * - conv_bias_mkldnn_fuse_pass: conv2d / depthwise_conv2d (NCHW, no Bias) whose output only an
 *   elementwise_add(axis 1) of a persistable per-channel vector reads becomes oneDNN's
 *   fused_conv2d with that vector as Bias (one primitive: the bias is added while the output is
 *   in registers).
 * - conv_elementwise_add_mkldnn_fuse_pass: conv + elementwise_add of a same-shaped value ->
 *   fused_conv2d with ResidualData (oneDNN's sum post-op; pd_pass_conv_residual below).
 * - conv_activation_mkldnn_fuse_pass: conv2d / depthwise_conv2d / fused_conv2d followed by an
 *   activation only it feeds (relu, relu6, clip, leaky_relu, hard_swish, swish / silu, sigmoid,
 *   hard_sigmoid, tanh) becomes fused_conv2d with fuse_activation / fuse_alpha / fuse_beta (a oneDNN post-op).
 * - fc_fuse_pass: mul (y_num_col_dims 1), matmul (no transposes, alpha 1) or matmul_v2 (no
 *   transposes) with a persistable 2-D
 *   weight, then elementwise_add of a persistable [N] bias on the last axis, then optionally relu,
 *   becomes Paddle's fc op (Input, W, Bias; in_num_col_dims, activation_type).
 * - elementwise_act_onednn_fuse_pass: elementwise_add followed by an activation only it feeds
 *   becomes fused_elementwise_add with fuse_activation (one pass over the data).
 * Each absorbed op's output name becomes the fused op's output; the intermediate var goes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pd_pass.h"

static int is_conv(const pd_opdesc *op) {
  return !strcmp(op->type, "conv2d") || !strcmp(op->type, "depthwise_conv2d");
}

static int nchw(const pd_opdesc *op) {
  const char *f = pd_pass_attr_str(op, "data_format", "NCHW");
  return !strcmp(f, "NCHW") || !strcmp(f, "AnyLayout");
}

/* the single reader j (> i) of op i's output `out` when out is an intermediate the pass may remove */
static int sole_reader(const pd_pass_ctx *c, const pd_block *b, const char *out) {
  int j;
  if (!out || pd_pass_is_protected(c, out) || pd_pass_readers(b, out, &j) != 1) return -1;
  return j;
}

/* op i takes over op j's output (op j's slot jslot) in its slot islot, and op j goes. */
static pd_status absorb(pd_pass_ctx *c, pd_block *b, int i, const char *islot, int j, const char *jslot, int *done) {
  *done = 0;
  const char *jo = pd_pass_out(b->ops[j], jslot);
  if (!jo || pd_pass_writer(b, jo, b->n_ops) != j) return PD_OK;
  int r;
  if (pd_pass_readers(b, jo, &r) > 0 && r < j) return PD_OK;
  char name[512];
  snprintf(name, sizeof name, "%s", jo);
  const char *args[1] = {name};
  PD_TRY(pd_opdesc_set_slot(b->ops[i], 1, islot, 1, args));
  PD_TRY(pd_pass_remove_op(c, b, j));
  *done = 1;
  return PD_OK;
}

/* conv2d / depthwise_conv2d -> fused_conv2d (same slots and attributes, Bias empty) */
static pd_status to_fused_conv(pd_opdesc *op) {
  if (!strcmp(op->type, "fused_conv2d")) return PD_OK;
  PD_TRY(pd_opdesc_set_type(op, "fused_conv2d"));
  if (!pd_opdesc_attr(op, "fuse_activation")) PD_TRY(pd_opdesc_set_attr_str(op, "fuse_activation", ""));
  return PD_OK;
}

/* the persistable per-channel bias behind y: y itself, or a reshape2 of a persistable to
^ * [1, C or -1, 1, 1] (a Conv2D's bias in dygraph-exported programs); *reshape_op: that reshape2's index */
const char *pd_pass_bias_source(const pd_pass_ctx *c, const pd_block *b, int before, const char *y, int64_t C,
                                int *reshape_op) {
  *reshape_op = -1;
  pd_tensor *B = pd_pass_param(c, y);
  if (B) return B->numel == C ? y : NULL;
  int w = pd_pass_writer(b, y, before);
  if (w < 0 || strcmp(b->ops[w]->type, "reshape2") != 0) return NULL;
  const pd_opdesc *r = b->ops[w];
  const pd_opslot *s1 = pd_opdesc_slot(r, 0, "Shape"), *s2 = pd_opdesc_slot(r, 0, "ShapeTensor");
  if ((s1 && s1->n) || (s2 && s2->n)) return NULL;
  const char *rx = pd_pass_in(r, "X");
  pd_tensor *R = rx ? pd_pass_param(c, rx) : NULL;
  const pd_attr *sh = pd_opdesc_attr(r, "shape");
  if (!R || R->numel != C || !sh || (sh->type != PD_AT_INTS && sh->type != PD_AT_LONGS) || sh->n != 4 ||
      sh->ints[0] != 1 || (sh->ints[1] != C && sh->ints[1] != -1) || sh->ints[2] != 1 || sh->ints[3] != 1)
    return NULL;
  *reshape_op = w;
  return rx;
}

pd_status pd_pass_drop_bias_reshape(pd_pass_ctx *c, pd_block *b, const char *name, int *i) {
  if (pd_pass_is_protected(c, name) || pd_pass_readers(b, name, NULL) != 0) return PD_OK;
  int w = pd_pass_writer(b, name, b->n_ops);
  if (w < 0 || strcmp(b->ops[w]->type, "reshape2") != 0) return PD_OK;
  PD_TRY(pd_pass_remove_op(c, b, w));
  if (w < *i) (*i)--;
  return PD_OK;
}

/* ---------------------------------------------------------------- conv + bias */
pd_status pd_pass_conv_bias(pd_pass_ctx *c) {
  pd_block *b = c->prog->blocks[0];
  for (int i = 0; i < b->n_ops; i++) {
    pd_opdesc *op = b->ops[i];
    if (!is_conv(op) || !nchw(op)) continue;
    const pd_opslot *cb = pd_opdesc_slot(op, 0, "Bias");
    const pd_opslot *rd = pd_opdesc_slot(op, 0, "ResidualData");
    if ((cb && cb->n) || (rd && rd->n)) continue;
    const char *w = pd_pass_in(op, "Filter");
    int j = sole_reader(c, b, pd_pass_out(op, "Output"));
    if (!w || j < 0) continue;
    pd_opdesc *add = b->ops[j];
    if (strcmp(add->type, "elementwise_add") != 0) continue;
    const char *x = pd_pass_in(add, "X"), *y = pd_pass_in(add, "Y");
    if (!x || !y || strcmp(x, pd_pass_out(op, "Output")) != 0) continue;
    pd_tensor *W = pd_pass_param(c, w);
    if (!W || W->ndim != 4) continue;
    int rop;
    const char *src = pd_pass_bias_source(c, b, j, y, W->shape[0], &rop);
    int64_t axis = pd_pass_attr_int(add, "axis", -1);
    if (!src || (rop < 0 ? axis != 1 : (axis != -1 && axis != 0))) continue;
    pd_tensor *B = pd_pass_param(c, src);
    int bdims = 0;
    for (int k = 0; k < B->ndim; k++) bdims += B->shape[k] != 1;
    if (bdims > 1) continue;
    char bname[512], rname[512] = "";
    snprintf(bname, sizeof bname, "%s", src);
    if (rop >= 0) snprintf(rname, sizeof rname, "%s", y);
    const char *ba[1] = {bname};
    int done;
    PD_TRY(absorb(c, b, i, "Output", j, "Out", &done));
    if (!done) continue;
    PD_TRY(to_fused_conv(op));
    PD_TRY(pd_opdesc_set_slot(op, 0, "Bias", 1, ba));
    if (rname[0]) PD_TRY(pd_pass_drop_bias_reshape(c, b, rname, &i));
    c->n_rewrites++;
  }
  pd_program_touch(c->prog);
  return PD_OK;
}

/* ---------------------------------------------------------------- conv + residual add */
/* var x's static dims equal y's (unknown extents at the same places: the batch, or the spatial
 * dims of a model with a variable input size; the kernel checks the shapes it receives) */
static int same_static_shape(const pd_block *b, const char *x, const char *y) {
  const pd_var *u = pd_block_find_var(b, x), *v = pd_block_find_var(b, y);
  if (!u || !v || u->ndim != 4 || v->ndim != 4 || u->dtype != v->dtype || u->dims[1] < 0) return 0;
  for (int k = 0; k < 4; k++)
    if (u->dims[k] != v->dims[k]) return 0;
  return 1;
}

/* the convolution (conv2d / depthwise_conv2d / fused_conv2d, NCHW, no activation or residual yet)
 * writing `name` before op j, read only by op j; -1 none */
static int residual_conv(const pd_pass_ctx *c, const pd_block *b, const char *name, int j) {
  int i = pd_pass_writer(b, name, j);
  if (i < 0 || sole_reader(c, b, name) != j) return -1;
  const pd_opdesc *op = b->ops[i];
  if (!(is_conv(op) || !strcmp(op->type, "fused_conv2d")) || !nchw(op)) return -1;
  const char *fa = pd_pass_attr_str(op, "fuse_activation", "");
  const pd_opslot *rd = pd_opdesc_slot(op, 0, "ResidualData");
  if ((fa && *fa) || (rd && rd->n) || pd_pass_attr_int(op, "fuse_residual_connection", 0)) return -1;
  const char *out = pd_pass_out(op, "Output");
  if (!out || strcmp(out, name) != 0) return -1;
  /* its inputs keep their values up to op j (it may move there) */
  for (int s = 0; s < op->n_in; s++)
    for (int k = 0; k < op->in[s].n; k++)
      if (pd_pass_writer(b, op->in[s].args[k], j) > i) return -1;
  return i;
}

/* conv_elementwise_add_mkldnn_fuse_pass: elementwise_add(conv(x), r) with r of the convolution's
 * shape -> fused_conv2d with ResidualData r (fuse_residual_connection): the add is oneDNN's sum
 * post-op, ahead of the activation conv_activation_mkldnn_fuse_pass adds next (ResNet's
 * conv -> add(shortcut) -> relu becomes one primitive). Of two convolution operands the later one
 * takes the other as its residual; when r is computed after the convolution, the convolution
 * moves to the add's place. */
pd_status pd_pass_conv_residual(pd_pass_ctx *c) {
  pd_block *b = c->prog->blocks[0];
  for (int j = 0; j < b->n_ops; j++) {
    pd_opdesc *add = b->ops[j];
    if (strcmp(add->type, "elementwise_add") != 0) continue;
    const char *x = pd_pass_in(add, "X"), *y = pd_pass_in(add, "Y");
    if (!x || !y || !strcmp(x, y) || !same_static_shape(b, x, y)) continue;
    const pd_opslot *xs = pd_opdesc_slot(add, 0, "X"), *ys = pd_opdesc_slot(add, 0, "Y");
    if (xs->n != 1 || ys->n != 1) continue;
    int ix = residual_conv(c, b, x, j), iy = residual_conv(c, b, y, j);
    if (ix < 0 && iy < 0) continue;
    const int i = ix > iy ? ix : iy;
    char rname[512];
    snprintf(rname, sizeof rname, "%s", i == ix ? y : x);
    const int rw = pd_pass_writer(b, rname, j);
    int done;
    PD_TRY(absorb(c, b, i, "Output", j, "Out", &done));
    if (!done) continue;
    pd_opdesc *op = b->ops[i];
    PD_TRY(to_fused_conv(op));
    const char *ra[1] = {rname};
    PD_TRY(pd_opdesc_set_slot(op, 0, "ResidualData", 1, ra));
    PD_TRY(pd_opdesc_set_attr_int(op, "fuse_residual_connection", PD_AT_BOOLEAN, 1));
    if (rw > i) { /* r is computed after the convolution: the convolution moves to the add's place */
      memmove(&b->ops[i], &b->ops[i + 1], sizeof(pd_opdesc *) * (size_t)(j - 1 - i));
      b->ops[j - 1] = op;
    }
    j--; /* op j is gone: the op now at j is the next one */
    c->n_rewrites++;
  }
  pd_program_touch(c->prog);
  return PD_OK;
}

/* ---------------------------------------------------------------- activations */
/* The fuse attributes of activation op `act` (Paddle's oneDNN mapping: leaky_relu alpha ->
 * fuse_alpha, relu6 threshold -> fuse_beta, hard_sigmoid slope / offset -> fuse_alpha / fuse_beta),
 * with the values our unfused ops compute (Paddle 2.6's relu6 clips at 6 and swish ignores beta);
 * 0 when the op is not a fusable activation. */
static int act_attrs(const pd_opdesc *act, double *alpha, double *beta) {
  const char *t = act->type;
  *alpha = *beta = 0.0;
  if (!strcmp(t, "relu") || !strcmp(t, "hard_swish") || !strcmp(t, "sigmoid") || !strcmp(t, "tanh")) return 1;
  if (!strcmp(t, "relu6")) {
    *beta = 6.0;
    return 1;
  }
  if (!strcmp(t, "clip")) { /* bounds as attributes only */
    const pd_opslot *mn = pd_opdesc_slot(act, 0, "Min"), *mx = pd_opdesc_slot(act, 0, "Max");
    if ((mn && mn->n) || (mx && mx->n)) return 0;
    *alpha = pd_pass_attr_float(act, "min", 0.0);
    *beta = pd_pass_attr_float(act, "max", 0.0);
    return 1;
  }
  if (!strcmp(t, "swish") || !strcmp(t, "silu")) {
    *alpha = 1.0;
    return 1;
  }
  if (!strcmp(t, "leaky_relu")) {
    *alpha = pd_pass_attr_float(act, "alpha", 0.02);
    return 1;
  }
  if (!strcmp(t, "hard_sigmoid")) {
    *alpha = pd_pass_attr_float(act, "slope", 0.2);
    *beta = pd_pass_attr_float(act, "offset", 0.5);
    return 1;
  }
  return 0;
}

/* op i (output slot oslot) followed by an activation only it feeds: the activation goes into op i's
 * fuse attributes (convert turns op i into its fused form first). */
static pd_status fuse_act(pd_pass_ctx *c, pd_block *b, int i, const char *oslot, pd_status (*convert)(pd_opdesc *),
                          int *done) {
  *done = 0;
  pd_opdesc *op = b->ops[i];
  const char *fa = pd_pass_attr_str(op, "fuse_activation", "");
  if (fa && *fa) return PD_OK;
  const char *out = pd_pass_out(op, oslot);
  int j = sole_reader(c, b, out);
  if (j < 0) return PD_OK;
  pd_opdesc *act = b->ops[j];
  const char *x = pd_pass_in(act, "X");
  double alpha, beta;
  if (!x || strcmp(x, out) != 0 || !act_attrs(act, &alpha, &beta)) return PD_OK;
  char type[64];
  snprintf(type, sizeof type, "%s", !strcmp(act->type, "silu") ? "swish" : act->type);
  PD_TRY(absorb(c, b, i, oslot, j, "Out", done));
  if (!*done) return PD_OK;
  PD_TRY(convert(op));
  PD_TRY(pd_opdesc_set_attr_str(op, "fuse_activation", type));
  PD_TRY(pd_opdesc_set_attr_float(op, "fuse_alpha", PD_AT_FLOAT, alpha));
  PD_TRY(pd_opdesc_set_attr_float(op, "fuse_beta", PD_AT_FLOAT, beta));
  return PD_OK;
}

pd_status pd_pass_conv_act(pd_pass_ctx *c) {
  pd_block *b = c->prog->blocks[0];
  for (int i = 0; i < b->n_ops; i++) {
    pd_opdesc *op = b->ops[i];
    if (!(is_conv(op) || !strcmp(op->type, "fused_conv2d")) || !nchw(op)) continue;
    /* with a residual the activation follows the sum, as in Paddle's oneDNN kernel */
    int done;
    PD_TRY(fuse_act(c, b, i, "Output", to_fused_conv, &done));
    c->n_rewrites += done;
  }
  pd_program_touch(c->prog);
  return PD_OK;
}

/* conv_to_fused_pass (ours): every NCHW conv2d / depthwise_conv2d left without a bias or an
 * activation to fuse becomes fused_conv2d too, so it runs oneDNN's primitive with the predictor's
 * cached weights and blocked activations (csrc/graph/pd_exec_layout.c) like the others instead of
 * conv2d's kernel with reorders in and out (ppocrv3_det's FPN convolutions) */
pd_status pd_pass_conv_to_fused(pd_pass_ctx *c) {
  pd_block *b = c->prog->blocks[0];
  for (int i = 0; i < b->n_ops; i++) {
    pd_opdesc *op = b->ops[i];
    if (!is_conv(op) || !nchw(op)) continue;
    const pd_opslot *rd = pd_opdesc_slot(op, 0, "ResidualData");
    if (rd && rd->n) continue;
    const pd_var *x = pd_block_find_var(b, pd_pass_in(op, "Input") ? pd_pass_in(op, "Input") : "");
    if (!x || x->ndim != 4) continue;
    PD_TRY(to_fused_conv(op));
    c->n_rewrites++;
  }
  pd_program_touch(c->prog);
  return PD_OK;
}

static pd_status to_fused_add(pd_opdesc *op) { return pd_opdesc_set_type(op, "fused_elementwise_add"); }

pd_status pd_pass_elementwise_act(pd_pass_ctx *c) {
  pd_block *b = c->prog->blocks[0];
  for (int i = 0; i < b->n_ops; i++) {
    pd_opdesc *op = b->ops[i];
    if (strcmp(op->type, "elementwise_add") != 0) continue;
    int done;
    PD_TRY(fuse_act(c, b, i, "Out", to_fused_add, &done));
    c->n_rewrites += done;
  }
  pd_program_touch(c->prog);
  return PD_OK;
}

/* ---------------------------------------------------------------- y + y * s -> y * (s + 1) */
/* se_residual_fold_pass (ours): t = elementwise_mul(y, s) read only by u = elementwise_add(y, t)
 * (either operand order, numpy broadcasting: axis -1) becomes t = scale(s, 1, bias 1) and
 * u = elementwise_mul(y, t): one pass over y instead of two when s is small (ppocrv3_det's RSE
 * neck: s is a [N, C, 1, 1] squeeze-excitation scale, and the multiply then runs on the blocks,
 * "Blocked activations in the predictor"). Only when s's static extents are y's or 1, and 1 where y's
 * are not (else the scale would be as large as the multiply); rounding differs from the two ops' by an ulp. */
pd_status pd_pass_se_residual(pd_pass_ctx *c) {
  pd_block *b = c->prog->blocks[0];
  for (int i = 0; i < b->n_ops; i++) {
    pd_opdesc *mul = b->ops[i];
    if (strcmp(mul->type, "elementwise_mul") != 0 || pd_pass_attr_int(mul, "axis", -1) != -1) continue;
    const char *mx = pd_pass_in(mul, "X"), *my = pd_pass_in(mul, "Y"), *t = pd_pass_out(mul, "Out");
    int j;
    if (!mx || !my || !t || pd_pass_is_protected(c, t) || pd_pass_readers(b, t, &j) != 1) continue;
    pd_opdesc *add = b->ops[j];
    if (strcmp(add->type, "elementwise_add") != 0 || pd_pass_attr_int(add, "axis", -1) != -1) continue;
    const char *ax = pd_pass_in(add, "X"), *ay = pd_pass_in(add, "Y");
    if (!ax || !ay) continue;
    const char *y = !strcmp(ax, t) ? ay : !strcmp(ay, t) ? ax : NULL; /* the add's other operand */
    if (!y || !strcmp(y, t)) continue;
    const char *sc = !strcmp(mx, y) ? my : !strcmp(my, y) ? mx : NULL; /* the multiply's other one */
    if (!sc || !strcmp(sc, y)) continue;
    /* y and s unchanged between the multiply and the add */
    if (pd_pass_writer(b, y, j) > i || pd_pass_writer(b, sc, j) > i) continue;
    const pd_var *sv = pd_block_find_var(b, sc), *yv = pd_block_find_var(b, y);
    if (!sv || !yv || sv->ndim < 1 || sv->ndim != yv->ndim) continue;
    int same = 1, smaller = 0; /* s's static extents: y's or 1, and 1 somewhere y's is not */
    for (int k = 0; k < sv->ndim; k++) {
      if (sv->dims[k] != 1 && sv->dims[k] != yv->dims[k]) same = 0;
      if (sv->dims[k] == 1 && yv->dims[k] != 1) smaller = 1;
    }
    if (!same || !smaller) continue;
    char yn[512], sn[512], tn[512];
    snprintf(yn, sizeof yn, "%s", y);
    snprintf(sn, sizeof sn, "%s", sc);
    snprintf(tn, sizeof tn, "%s", t);
    /* the multiply becomes t = scale(s) = s + 1 (t now has s's shape) */
    PD_TRY(pd_opdesc_set_type(mul, "scale"));
    PD_TRY(pd_opdesc_remove_slot(mul, 0, "X"));
    PD_TRY(pd_opdesc_remove_slot(mul, 0, "Y"));
    const char *xa[1] = {sn}, *ya[1] = {yn}, *ta[1] = {tn};
    PD_TRY(pd_opdesc_set_slot(mul, 0, "X", 1, xa));
    while (mul->n_attrs) {
      char an[256];
      snprintf(an, sizeof an, "%s", mul->attrs[0].name);
      PD_TRY(pd_opdesc_remove_attr(mul, an));
    }
    PD_TRY(pd_opdesc_set_attr_float(mul, "scale", PD_AT_FLOAT, 1.0));
    PD_TRY(pd_opdesc_set_attr_float(mul, "bias", PD_AT_FLOAT, 1.0));
    PD_TRY(pd_opdesc_set_attr_int(mul, "bias_after_scale", PD_AT_BOOLEAN, 1));
    pd_var *tv = pd_block_find_var(b, tn);
    if (tv) {
      tv->ndim = sv->ndim;
      memcpy(tv->dims, sv->dims, sizeof(int64_t) * (size_t)sv->ndim);
    }
    /* the add becomes u = elementwise_mul(y, t) */
    PD_TRY(pd_opdesc_set_type(add, "elementwise_mul"));
    PD_TRY(pd_opdesc_remove_slot(add, 0, "X"));
    PD_TRY(pd_opdesc_remove_slot(add, 0, "Y"));
    PD_TRY(pd_opdesc_set_slot(add, 0, "X", 1, ya));
    PD_TRY(pd_opdesc_set_slot(add, 0, "Y", 1, ta));
    c->n_rewrites++;
  }
  pd_program_touch(c->prog);
  return PD_OK;
}

/* ---------------------------------------------------------------- fc */
pd_status pd_pass_fc(pd_pass_ctx *c) {
  pd_block *b = c->prog->blocks[0];
  for (int i = 0; i < b->n_ops; i++) {
    pd_opdesc *op = b->ops[i];
    const int is_mul = !strcmp(op->type, "mul"), is_v1 = !strcmp(op->type, "matmul");
    if (!is_mul && !is_v1 && strcmp(op->type, "matmul_v2") != 0) continue;
    if (is_v1 && (pd_pass_attr_int(op, "transpose_X", 0) || pd_pass_attr_int(op, "transpose_Y", 0) ||
                  pd_pass_attr_float(op, "alpha", 1.0) != 1.0))
      continue;
    const char *x = pd_pass_in(op, "X"), *w = pd_pass_in(op, "Y"), *out = pd_pass_out(op, "Out");
    if (!x || !w || !out) continue;
    int64_t ncol;
    if (is_mul) {
      if (pd_pass_attr_int(op, "y_num_col_dims", 1) != 1) continue;
      ncol = pd_pass_attr_int(op, "x_num_col_dims", 1);
    } else {
      if (pd_pass_attr_int(op, "trans_x", 0) || pd_pass_attr_int(op, "trans_y", 0)) continue;
      const pd_var *xv = pd_block_find_var(b, x);
      if (!xv || xv->ndim < 2) continue;
      ncol = xv->ndim - 1;
    }
    pd_tensor *W = pd_pass_param(c, w);
    if (!W || W->ndim != 2 || ncol < 1) continue;
    int j = sole_reader(c, b, out);
    if (j < 0) continue;
    pd_opdesc *add = b->ops[j];
    const char *ax = pd_pass_in(add, "X"), *ay = pd_pass_in(add, "Y");
    if (strcmp(add->type, "elementwise_add") != 0 || !ax || !ay || strcmp(ax, out) != 0) continue;
    int64_t axis = pd_pass_attr_int(add, "axis", -1);
    pd_tensor *B = pd_pass_param(c, ay);
    if (!B || B->numel != W->shape[1] || (axis != -1 && axis != ncol)) continue;
    if (!(B->ndim == 1 || (B->ndim == 2 && B->shape[0] == 1 && axis == -1))) continue;
    char bname[512], xname[512], wname[512];
    snprintf(bname, sizeof bname, "%s", ay);
    snprintf(xname, sizeof xname, "%s", x);
    snprintf(wname, sizeof wname, "%s", w);
    int done;
    PD_TRY(absorb(c, b, i, "Out", j, "Out", &done));
    if (!done) continue;
    /* the op becomes fc(Input, W, Bias) with Paddle's attributes */
    const char *xa[1] = {xname}, *wa[1] = {wname}, *ba[1] = {bname};
    char oname[512];
    snprintf(oname, sizeof oname, "%s", pd_pass_out(op, "Out"));
    const char *oa[1] = {oname};
    PD_TRY(pd_opdesc_set_type(op, "fc"));
    PD_TRY(pd_opdesc_remove_slot(op, 0, "X"));
    PD_TRY(pd_opdesc_remove_slot(op, 0, "Y"));
    PD_TRY(pd_opdesc_set_slot(op, 0, "Input", 1, xa));
    PD_TRY(pd_opdesc_set_slot(op, 0, "W", 1, wa));
    PD_TRY(pd_opdesc_set_slot(op, 0, "Bias", 1, ba));
    PD_TRY(pd_opdesc_set_slot(op, 1, "Out", 1, oa));
    while (op->n_attrs) {
      char an[256];
      snprintf(an, sizeof an, "%s", op->attrs[0].name);
      PD_TRY(pd_opdesc_remove_attr(op, an));
    }
    PD_TRY(pd_opdesc_set_attr_int(op, "in_num_col_dims", PD_AT_INT, ncol));
    PD_TRY(pd_opdesc_set_attr_str(op, "activation_type", ""));
    PD_TRY(pd_opdesc_set_attr_int(op, "padding_weights", PD_AT_BOOLEAN, 0));
    /* a relu only it feeds */
    int k = sole_reader(c, b, oname);
    if (k >= 0 && !strcmp(b->ops[k]->type, "relu")) {
      const char *rx = pd_pass_in(b->ops[k], "X");
      if (rx && !strcmp(rx, oname)) {
        PD_TRY(absorb(c, b, i, "Out", k, "Out", &done));
        if (done) PD_TRY(pd_opdesc_set_attr_str(op, "activation_type", "relu"));
      }
    }
    c->n_rewrites++;
  }
  pd_program_touch(c->prog);
  return PD_OK;
}
