/* Kernels of the inference fused ops (ops/infer_fused.yaml), written by the analysis passes
 * (csrc/graph/pd_pass_fuse.c):
 * - fused_conv2d: float32 runs one oneDNN primitive with the bias and the activation as post-ops
 *   (no separate pass over the output); float64, or a geometry oneDNN declines, runs conv2d's
 *   kernel and applies bias and activation in one pass over the output.
 * - fc: out[M, N] = act(in[M, K] W[K, N] + bias): the GEMM, then bias + activation per row while
 *   the row is in cache.
 * - fused_elementwise_add: act(x + y) in one loop (broadcasting as add).
 * Activations follow Paddle's fuse attributes (fuse_activation, fuse_alpha, fuse_beta) and what
 * our unfused ops compute (Paddle 2.6's swish ignores beta, relu6 clips at 6 unless fuse_beta says
 * otherwise). */
#include <oneapi/dnnl/dnnl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "pd_kernel_util.h"
#include "pd_gemm.h"
#include "pd_vmath.h"
#include "conv_dnnl.h"
#include "conv_geom.h"
#include "conv_pw_small.h"
#include "conv_winograd.h"
#include "../../core/pd_alloc.h"
#include "layout_dnnl.h"

enum { A_NONE, A_RELU, A_CLIP, A_LEAKY, A_HSWISH, A_SWISH, A_SIGMOID, A_HSIGMOID, A_TANH };
typedef struct {
  int kind;
  double a, b; /* CLIP: lo, hi; LEAKY: alpha; HSIGMOID: slope, offset */
} act_t;

static pd_status parse_act(const char *op, const char *name, double alpha, double beta, act_t *act) {
  act->a = act->b = 0;
  if (!name || !*name || !strcmp(name, "identity")) act->kind = A_NONE;
  else if (!strcmp(name, "relu")) act->kind = A_RELU;
  else if (!strcmp(name, "relu6")) {
    act->kind = A_CLIP;
    act->b = beta > 0 ? beta : 6.0;
  } else if (!strcmp(name, "clip")) {
    act->kind = A_CLIP;
    act->a = alpha;
    act->b = beta;
  } else if (!strcmp(name, "leaky_relu")) {
    act->kind = A_LEAKY;
    act->a = alpha;
  } else if (!strcmp(name, "hard_swish")) act->kind = A_HSWISH;
  else if (!strcmp(name, "swish")) act->kind = A_SWISH;
  else if (!strcmp(name, "sigmoid")) act->kind = A_SIGMOID;
  else if (!strcmp(name, "hard_sigmoid")) {
    act->kind = A_HSIGMOID;
    act->a = alpha != 0 ? alpha : 0.2;
    act->b = beta != 0 ? beta : 0.5;
  } else if (!strcmp(name, "tanh")) act->kind = A_TANH;
  else
    return pd_set_error(PD_ERR_UNIMPLEMENTED,
                        "[%s] fuse activation '%s' is not supported (expected relu, relu6, clip, leaky_relu, "
                        "hard_swish, swish, sigmoid, hard_sigmoid or tanh)",
                        op, name);
  return PD_OK;
}

/* the oneDNN post-op chain for act (0 post-ops for A_NONE) */
static void act_post(const act_t *act, pd_conv_post *p) {
  memset(p, 0, sizeof(*p));
  switch (act->kind) {
  case A_RELU: p->n = 1, p->alg[0] = dnnl_eltwise_relu; break;
  case A_LEAKY: p->n = 1, p->alg[0] = dnnl_eltwise_relu, p->alpha[0] = (float)act->a; break;
  case A_CLIP: p->n = 1, p->alg[0] = dnnl_eltwise_clip, p->alpha[0] = (float)act->a, p->beta[0] = (float)act->b; break;
  /* oneDNN 3: x * clip(alpha * x + beta, 0, 1), alpha and beta explicit (2.x fixed them at 1/6, 1/2) */
  case A_HSWISH: p->n = 1, p->alg[0] = dnnl_eltwise_hardswish, p->alpha[0] = 1.0f / 6.0f, p->beta[0] = 0.5f; break;
  case A_SWISH: p->n = 1, p->alg[0] = dnnl_eltwise_swish, p->alpha[0] = 1.0f; break;
  case A_SIGMOID: p->n = 1, p->alg[0] = dnnl_eltwise_logistic; break;
  case A_TANH: p->n = 1, p->alg[0] = dnnl_eltwise_tanh; break;
  case A_HSIGMOID:
    p->n = 2;
    p->alg[0] = dnnl_eltwise_linear, p->alpha[0] = (float)act->a, p->beta[0] = (float)act->b;
    p->alg[1] = dnnl_eltwise_clip, p->alpha[1] = 0.0f, p->beta[1] = 1.0f;
    break;
  default: break;
  }
}

/* act as a clamp [lo, hi] (none, relu, clip: the activations the direct kernels apply at their
 * store); 0 for the others */
static int act_clamp(const act_t *act, float *lo, float *hi) {
  if (act->kind != A_NONE && act->kind != A_RELU && act->kind != A_CLIP) return 0;
  *lo = act->kind == A_NONE ? -INFINITY : (float)act->a;
  *hi = act->kind == A_CLIP ? (float)act->b : INFINITY;
  return 1;
}

#define DEF_ACT(SUF, T, EXP)                                                                        \
  static inline T act1_##SUF(const act_t *act, T v) {                                              \
    switch (act->kind) {                                                                           \
    case A_RELU: return v > 0 ? v : (T)0;                                                          \
    case A_CLIP: return v < (T)act->a ? (T)act->a : v > (T)act->b ? (T)act->b : v;                 \
    case A_LEAKY: return v > 0 ? v : v * (T)act->a;                                                \
    case A_HSWISH: {                                                                               \
      T r = v + (T)3;                                                                              \
      r = r < 0 ? (T)0 : r > (T)6 ? (T)6 : r;                                                      \
      return v * r / (T)6;                                                                         \
    }                                                                                              \
    case A_SWISH: return v / ((T)1 + EXP(-v));                                                     \
    case A_SIGMOID: return (T)1 / ((T)1 + EXP(-v));                                                \
    case A_HSIGMOID: {                                                                             \
      T r = v * (T)act->a + (T)act->b;                                                             \
      return r < 0 ? (T)0 : r > (T)1 ? (T)1 : r;                                                   \
    }                                                                                              \
    case A_TANH: return (T)tanh((double)v);                                                        \
    default: return v;                                                                             \
    }                                                                                              \
  }                                                                                                \
  /* y[i] = act(y[i] + b) over n elements (one loop per kind, so each vectorises) */               \
  static void bias_act_##SUF(T *restrict y, int64_t n, T b, const act_t *act) {                    \
    const T lo = (T)act->a, hi = (T)act->b;                                                        \
    switch (act->kind) {                                                                           \
    case A_NONE:                                                                                   \
      for (int64_t i = 0; i < n; i++) y[i] += b;                                                   \
      break;                                                                                       \
    case A_RELU:                                                                                   \
      for (int64_t i = 0; i < n; i++) {                                                            \
        T v = y[i] + b;                                                                            \
        y[i] = v > 0 ? v : (T)0;                                                                   \
      }                                                                                            \
      break;                                                                                       \
    case A_CLIP:                                                                                   \
      for (int64_t i = 0; i < n; i++) {                                                            \
        T v = y[i] + b;                                                                            \
        v = v < lo ? lo : v;                                                                       \
        y[i] = v > hi ? hi : v;                                                                    \
      }                                                                                            \
      break;                                                                                       \
    case A_HSWISH:                                                                                 \
      for (int64_t i = 0; i < n; i++) {                                                            \
        T v = y[i] + b, r = v + (T)3;                                                              \
        r = r < 0 ? (T)0 : r;                                                                      \
        r = r > (T)6 ? (T)6 : r;                                                                   \
        y[i] = v * r / (T)6;                                                                       \
      }                                                                                            \
      break;                                                                                       \
    case A_LEAKY:                                                                                  \
      for (int64_t i = 0; i < n; i++) {                                                            \
        T v = y[i] + b;                                                                            \
        y[i] = v > 0 ? v : v * lo;                                                                 \
      }                                                                                            \
      break;                                                                                       \
    case A_HSIGMOID:                                                                               \
      for (int64_t i = 0; i < n; i++) {                                                            \
        T r = (y[i] + b) * lo + hi;                                                                \
        r = r < 0 ? (T)0 : r;                                                                      \
        y[i] = r > (T)1 ? (T)1 : r;                                                                \
      }                                                                                            \
      break;                                                                                       \
    case A_SWISH:                                                                                  \
      for (int64_t i = 0; i < n; i++) {                                                            \
        T v = y[i] + b;                                                                            \
        y[i] = v / ((T)1 + EXP(-v));                                                               \
      }                                                                                            \
      break;                                                                                       \
    case A_SIGMOID:                                                                                \
      for (int64_t i = 0; i < n; i++) y[i] = (T)1 / ((T)1 + EXP(-(y[i] + b)));                     \
      break;                                                                                       \
    default:                                                                                       \
      for (int64_t i = 0; i < n; i++) y[i] = act1_##SUF(act, y[i] + b);                            \
    }                                                                                              \
  }
DEF_ACT(f32, float, pd_vexpf)
DEF_ACT(f64, double, exp)

/* ---------------------------------------------------------------- fused_conv2d */
/* out (contiguous conv output of g) = act(out + bias[channel]) */
static pd_status conv_bias_act(const pd_conv_geom *g, pd_tensor *out, pd_tensor *bias, const act_t *act) {
  pd_tensor *bc = NULL;
  if (bias) PD_TRY(pd_tensor_contiguous(bias, &bc));
  const int64_t L = g->out[0] * g->out[1] * g->out[2], O = g->O, N = g->N;
  const int f32 = out->dtype == PD_FLOAT32;
  void *y = pd_tensor_data(out);
  const void *b = bc ? pd_tensor_data(bc) : NULL;
  if (g->nhwc) {
    _Pragma("omp parallel for if (N * L * O > 65536)")
    for (int64_t r = 0; r < N * L; r++)
      for (int64_t c = 0; c < O; c++) {
        if (f32) {
          float *p = (float *)y + r * O + c;
          *p = act1_f32(act, *p + (b ? ((const float *)b)[c] : 0.0f));
        } else {
          double *p = (double *)y + r * O + c;
          *p = act1_f64(act, *p + (b ? ((const double *)b)[c] : 0.0));
        }
      }
  } else {
    _Pragma("omp parallel for if (N * L * O > 65536)")
    for (int64_t p = 0; p < N * O; p++) {
      if (f32) bias_act_f32((float *)y + p * L, L, b ? ((const float *)b)[p % O] : 0.0f, act);
      else bias_act_f64((double *)y + p * L, L, b ? ((const double *)b)[p % O] : 0.0, act);
    }
  }
  if (bc) pd_tensor_release(bc);
  return PD_OK;
}

/* y = act(y + r) over n elements (y and r in one layout) */
#define DEF_RES_ACT(SUF, T)                                                                         \
  static void res_act_##SUF(T *restrict y, const T *restrict r, int64_t n, const act_t *act) {      \
    _Pragma("omp parallel for if (n > 65536)")                                                     \
    for (int64_t c = 0; c < n; c += 4096) {                                                        \
      const int64_t e = c + 4096 < n ? c + 4096 : n;                                               \
      if (act->kind == A_RELU)                                                                     \
        for (int64_t i = c; i < e; i++) {                                                          \
          T v = y[i] + r[i];                                                                       \
          y[i] = v > 0 ? v : (T)0;                                                                 \
        }                                                                                          \
      else if (act->kind == A_NONE)                                                                \
        for (int64_t i = c; i < e; i++) y[i] += r[i];                                              \
      else                                                                                         \
        for (int64_t i = c; i < e; i++) y[i] = act1_##SUF(act, y[i] + r[i]);                       \
    }                                                                                              \
  }
DEF_RES_ACT(f32, float)
DEF_RES_ACT(f64, double)

static pd_status fused_conv(const void *args, pd_tensor **out);

/* fused_conv2d with residual_data r: out = act(conv(x) + bias + r). float32 with the output
 * blocked: r is copied into out in that layout (nothing to copy when the memory plan put out in r's
 * own buffer) and one oneDNN primitive adds it (sum post-op) before the activation. Otherwise
 * (plain output, float64, a geometry oneDNN declines): the convolution with its bias alone, then
 * act(out + r) in one pass. */
static pd_status fused_conv_residual(const pd_fused_conv2d_args *a, const act_t *act, const pd_conv_geom *g,
                                     pd_tensor **out) {
  pd_tensor *r = a->residual_data, *o = out[0];
  if (r->dtype != o->dtype || r->ndim != o->ndim || memcmp(r->shape, o->shape, sizeof(int64_t) * (size_t)o->ndim) != 0) {
    char b1[128], b2[128];
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[fused_conv2d] expected residual_data of the output's shape %s, received %s",
                        pd_shape_str(o->ndim, o->shape, b1, sizeof b1), pd_shape_str(r->ndim, r->shape, b2, sizeof b2));
  }
  if (o->numel == 0) return PD_OK;
  const int f32 = o->dtype == PD_FLOAT32;
  const int xblk = a->input->layout;
  const int yblk = f32 && pd_layout_want && g->nsp == 2 && !g->nhwc ? pd_layout_block_for(g->O, g->out[0] * g->out[1]) : 0;
  pd_tensor *rc = NULL, *wc = NULL, *bc = NULL;
  pd_status st = PD_OK;
  const int same_buf = pd_tensor_data(r) == pd_tensor_data(o);
  /* padded channels (C not a multiple of the block) need a larger buffer than the plain one */
  const size_t yneed = (size_t)o->shape[0] * (size_t)pd_layout_cpad(o->shape[1], yblk) * (size_t)(o->numel / (o->shape[0] * o->shape[1])) * sizeof(float);
  if (yblk && same_buf && r->layout == 0 && pd_tensor_is_contiguous(r) &&
      (size_t)r->offset * sizeof(float) + yneed <= r->storage->nbytes) {
    /* the memory plan put out in r's plain buffer (from a shape's second run on; its first run,
     * before the plan, gave out a buffer of its own): make r blocked in place through a scratch
     * copy, so that every run takes the same fused path, with the same rounding and the same
     * layouts downstream */
    const size_t bytes = yneed;
    float *tmp = (float *)pd_alloc(bytes); /* the caching allocator: this runs on every run */
    if (!tmp) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[fused_conv2d] out of memory (%zu bytes)", bytes);
    pd_layout_copy(r, tmp, yblk);
    memcpy(pd_tensor_data(r), tmp, bytes);
    pd_free(tmp);
    r->layout = yblk;
  }
  if (yblk && pd_tensor_is_contiguous(r) && (!same_buf || r->layout == yblk)) {
    if (!same_buf) {
      PD_TRY(pd_layout_reserve(&out[0], yblk));
      o = out[0];
    }
    float *y = (float *)pd_tensor_data(o);
    pd_layout_copy(r, y, yblk);
    pd_conv_post post;
    act_post(act, &post);
    post.sum = 1;
    int res = 0;
    float lo, hi;
    if ((st = pd_tensor_contiguous(a->filter, &wc)) == PD_OK && (!a->bias || (st = pd_tensor_contiguous(a->bias, &bc)) == PD_OK)) {
      /* the small-plane 1x1 layers (conv_pw_small.c), the residual already in y */
      if (pd_conv_wcache_cur && !pd_conv_bf16_infer_on(g) && act_clamp(act, &lo, &hi))
        res = pd_conv_pw_small(g, (const float *)pd_tensor_data(a->input), xblk, (const float *)pd_tensor_data(wc),
                               bc ? (const float *)pd_tensor_data(bc) : NULL, y, yblk, 1, lo, hi);
      if (res == 0)
        res = pd_conv_dnnl_blocked(g, (float *)pd_tensor_data(a->input), (float *)pd_tensor_data(wc), y,
                                 bc ? (float *)pd_tensor_data(bc) : NULL, &post, xblk, yblk);
      if (res < 0) st = PD_ERR_RESOURCE_EXHAUSTED;
    }
    if (wc) pd_tensor_release(wc);
    if (bc) pd_tensor_release(bc);
    PD_TRY(st);
    if (res > 0) {
      o->layout = yblk;
      return PD_OK;
    }
    /* declined (out untouched, holding r blocked): the convolution alone below */
  }
  /* r as a plain contiguous tensor of its own (out may share r's buffer: it is overwritten next) */
  if (r->layout || same_buf || !pd_tensor_is_contiguous(r)) {
    PD_TRY(pd_tensor_empty(r->dtype, r->ndim, r->shape, &rc));
    if (r->layout || pd_tensor_is_contiguous(r)) {
      if (f32) pd_layout_copy(r, (float *)pd_tensor_data(rc), 0);
      else memcpy(pd_tensor_data(rc), pd_tensor_data(r), (size_t)r->numel * pd_dtype_size(r->dtype));
    } else if ((st = pd_tensor_copy_(rc, r)) != PD_OK) {
      pd_tensor_release(rc);
      return st;
    }
  } else {
    pd_tensor_retain(r);
    rc = r;
  }
  pd_fused_conv2d_args pa = *a;
  pa.residual_data = NULL;
  pa.fuse_activation = "";
  pa.fuse_alpha = pa.fuse_beta = 0;
  const int want = pd_layout_want;
  pd_layout_want = 0;
  o->layout = 0;
  st = fused_conv(&pa, out);
  pd_layout_want = want;
  if (st == PD_OK) {
    if (out[0]->layout) st = pd_set_error(PD_ERR_FATAL, "[fused_conv2d] internal: a blocked output on the plain path");
    else if (f32) res_act_f32((float *)pd_tensor_data(out[0]), (const float *)pd_tensor_data(rc), o->numel, act);
    else res_act_f64((double *)pd_tensor_data(out[0]), (const double *)pd_tensor_data(rc), o->numel, act);
  }
  pd_tensor_release(rc);
  return st;
}

static pd_status fused_conv(const void *args, pd_tensor **out) {
  const pd_fused_conv2d_args *a = (const pd_fused_conv2d_args *)args;
  act_t act;
  PD_TRY(parse_act("fused_conv2d", a->fuse_activation, a->fuse_alpha, a->fuse_beta, &act));
  pd_conv_geom g;
  PD_TRY(pd_conv_geom_fwd("fused_conv2d", a->input, a->filter->shape, a->filter->ndim, a->strides, a->paddings,
                          a->padding_algorithm, a->groups, a->dilations, a->data_format, &g));
  if (a->residual_data) return fused_conv_residual(a, &act, &g, out);
  const int xblk = a->input->layout;
  float lo, hi;
  if (out[0]->dtype == PD_FLOAT32 && out[0]->numel > 0 && pd_conv_wcache_cur && !pd_conv_bf16_infer_on(&g) &&
      act_clamp(&act, &lo, &hi)) {
    /* the predictor's stride-1 3x3 convolutions: Winograd F(2x2, 3x3) where it pays (conv_winograd.c),
     * its stride-2 ones polyphase Winograd (conv_winograd_s2.c);
     * its 1x1 convolutions on small planes: conv_pw_small.c */
    const int yblk = pd_layout_want && g.nsp == 2 && !g.nhwc ? pd_layout_block_for(g.O, g.out[0] * g.out[1]) : 0;
    pd_tensor *xc = NULL, *wc = NULL, *bc = NULL;
    pd_status st;
    int r = 0;
    PD_TRY(pd_layout_reserve(&out[0], yblk)); /* padded channels: a larger storage */
    if ((st = xblk ? (pd_tensor_retain(a->input), xc = a->input, PD_OK) : pd_tensor_contiguous(a->input, &xc)) == PD_OK &&
        (st = pd_tensor_contiguous(a->filter, &wc)) == PD_OK && (!a->bias || (st = pd_tensor_contiguous(a->bias, &bc)) == PD_OK)) {
      const float *xp = (const float *)pd_tensor_data(xc), *wp = (const float *)pd_tensor_data(wc);
      const float *bp = bc ? (const float *)pd_tensor_data(bc) : NULL;
      float *yp = (float *)pd_tensor_data(out[0]);
      r = pd_conv_pw_small(&g, xp, xblk, wp, bp, yp, yblk, 0, lo, hi);
      if (r == 0) r = pd_conv_winograd(&g, xp, xblk, wp, bp, yp, yblk, lo, hi);
      if (r == 0) r = pd_conv_winograd_s2(&g, xp, xblk, wp, bp, yp, yblk, lo, hi);
      if (r < 0) st = PD_ERR_RESOURCE_EXHAUSTED;
    }
    if (xc) pd_tensor_release(xc);
    if (wc) pd_tensor_release(wc);
    if (bc) pd_tensor_release(bc);
    PD_TRY(st);
    if (r > 0) {
      out[0]->layout = yblk;
      return PD_OK;
    }
  }
  if (xblk || (pd_layout_want && out[0]->dtype == PD_FLOAT32)) {
    /* the inference executor's blocked activations (layout_dnnl.h): x as it is, y blocked where
     * the executor lets it and the channels fill whole blocks */
    const int yblk = pd_layout_want && g.nsp == 2 && !g.nhwc ? pd_layout_block_for(g.O, g.out[0] * g.out[1]) : 0;
    int r = 0;
    if (out[0]->dtype == PD_FLOAT32 && out[0]->numel > 0 && (xblk || yblk)) {
      pd_tensor *wc = NULL, *bc = NULL;
      pd_status st;
      PD_TRY(pd_layout_reserve(&out[0], yblk)); /* padded channels: a larger storage */
      if ((st = pd_tensor_contiguous(a->filter, &wc)) == PD_OK && (!a->bias || (st = pd_tensor_contiguous(a->bias, &bc)) == PD_OK)) {
        pd_conv_post post;
        act_post(&act, &post);
        r = pd_conv_dnnl_blocked(&g, (float *)pd_tensor_data(a->input), (float *)pd_tensor_data(wc),
                                 (float *)pd_tensor_data(out[0]), bc ? (float *)pd_tensor_data(bc) : NULL, &post, xblk,
                                 yblk);
        if (r < 0) st = PD_ERR_RESOURCE_EXHAUSTED;
      }
      if (wc) pd_tensor_release(wc);
      if (bc) pd_tensor_release(bc);
      PD_TRY(st);
      if (r > 0) {
        out[0]->layout = yblk;
        return PD_OK;
      }
    }
    if (xblk) { /* declined: the plain path on a plain copy of x */
      pd_fused_conv2d_args pa = *a;
      PD_TRY(pd_layout_to_plain(a->input, &pa.input));
      const int want = pd_layout_want;
      pd_layout_want = 0;
      pd_status st = fused_conv(&pa, out);
      pd_layout_want = want;
      pd_tensor_release(pa.input);
      return st;
    }
  }
  if (out[0]->dtype == PD_FLOAT32 && out[0]->numel > 0) {
    pd_tensor *xc = NULL, *wc = NULL, *bc = NULL;
    pd_status st;
    int r = 0;
    if ((st = pd_tensor_contiguous(a->input, &xc)) == PD_OK && (st = pd_tensor_contiguous(a->filter, &wc)) == PD_OK &&
        (!a->bias || (st = pd_tensor_contiguous(a->bias, &bc)) == PD_OK)) {
      pd_conv_post post;
      act_post(&act, &post);
      r = pd_conv_dnnl_post(&g, (float *)pd_tensor_data(xc), (float *)pd_tensor_data(wc),
                            (float *)pd_tensor_data(out[0]), bc ? (float *)pd_tensor_data(bc) : NULL, &post);
      if (r < 0) st = PD_ERR_RESOURCE_EXHAUSTED;
      if (r == 2 && st == PD_OK) st = conv_bias_act(&g, out[0], NULL, &act); /* ran without the post-ops */
    }
    if (xc) pd_tensor_release(xc);
    if (wc) pd_tensor_release(wc);
    if (bc) pd_tensor_release(bc);
    PD_TRY(st);
    if (r > 0) return PD_OK;
  }
  /* conv2d's kernel (float64 / declined geometries), then bias + activation in one pass */
  pd_conv2d_args ca;
  memset(&ca, 0, sizeof(ca));
  ca.input = a->input;
  ca.filter = a->filter;
  ca.strides = a->strides;
  ca.paddings = a->paddings;
  ca.padding_algorithm = a->padding_algorithm;
  ca.groups = a->groups;
  ca.dilations = a->dilations;
  ca.data_format = a->data_format;
  PD_TRY(out[0]->dtype == PD_FLOAT32 ? pd_kernel_conv2d_f32(&ca, out, 1) : pd_kernel_conv2d_f64(&ca, out, 1));
  if (!a->bias && act.kind == A_NONE) return PD_OK;
  return conv_bias_act(&g, out[0], a->bias, &act);
}

/* ---------------------------------------------------------------- fc */
static pd_status fc(const void *args, pd_tensor **out) {
  const pd_fc_args *a = (const pd_fc_args *)args;
  act_t act;
  const char *an = a->activation_type;
  if (an && *an && strcmp(an, "relu") != 0)
    return pd_set_error(PD_ERR_UNIMPLEMENTED, "[fc] activation_type '%s' is not supported (expected '' or relu)", an);
  PD_TRY(parse_act("fc", an, 0, 0, &act));
  pd_tensor *o = out[0];
  const int64_t N = a->w->shape[1], K = a->w->shape[0];
  const int64_t M = N > 0 ? o->numel / N : 0;
  if (o->numel == 0) return PD_OK;
  pd_tensor *xc = NULL, *wc = NULL, *bc = NULL;
  pd_status st;
  if ((st = pd_tensor_contiguous(a->input, &xc)) != PD_OK || (st = pd_tensor_contiguous(a->w, &wc)) != PD_OK ||
      (a->bias && (st = pd_tensor_contiguous(a->bias, &bc)) != PD_OK))
    goto done;
  const int f32 = o->dtype == PD_FLOAT32;
  if (K == 0) memset(pd_tensor_data(o), 0, (size_t)o->numel * pd_dtype_size(o->dtype));
  else if (!(f32 && M == 1 && K * N >= (1 << 18) &&
             pd_gemv_rows_f32((const float *)pd_tensor_data(xc), (const float *)pd_tensor_data(wc), K, N,
                              (float *)pd_tensor_data(o))))
    pd_gemm(o->dtype, 0, 0, M, N, K, pd_tensor_data(xc), K, pd_tensor_data(wc), N, pd_tensor_data(o), N);
  if (bc || act.kind != A_NONE) {
    void *y = pd_tensor_data(o);
    const void *b = bc ? pd_tensor_data(bc) : NULL;
    _Pragma("omp parallel for if (M * N > 65536)")
    for (int64_t r = 0; r < M; r++) {
      if (f32) {
        float *restrict yr = (float *)y + r * N;
        const float *restrict br = (const float *)b;
        if (act.kind == A_RELU && br)
          for (int64_t j = 0; j < N; j++) {
            float v = yr[j] + br[j];
            yr[j] = v > 0 ? v : 0.0f;
          }
        else if (br)
          for (int64_t j = 0; j < N; j++) yr[j] += br[j];
        else
          for (int64_t j = 0; j < N; j++) yr[j] = yr[j] > 0 ? yr[j] : 0.0f;
      } else {
        double *restrict yr = (double *)y + r * N;
        const double *restrict br = (const double *)b;
        for (int64_t j = 0; j < N; j++) yr[j] = act1_f64(&act, yr[j] + (br ? br[j] : 0.0));
      }
    }
  }
done:
  if (xc) pd_tensor_release(xc);
  if (wc) pd_tensor_release(wc);
  if (bc) pd_tensor_release(bc);
  return st;
}

/* ---------------------------------------------------------------- fused_elementwise_add */
#define DEF_ADD_ACT(SUF, T)                                                                         \
  static void add_act_loop_##SUF(char **d, const int64_t *s, int64_t n, void *ctx) {               \
    const act_t *act = (const act_t *)ctx;                                                         \
    char *po = d[0];                                                                               \
    const char *px = d[1], *py = d[2];                                                             \
    const int64_t so = s[0], sx = s[1], sy = s[2];                                                 \
    if (so == (int64_t)sizeof(T) && sx == (int64_t)sizeof(T) && sy == (int64_t)sizeof(T)) {        \
      T *restrict o = (T *)po;                                                                     \
      const T *restrict x = (const T *)px, *restrict y = (const T *)py;                            \
      if (act->kind == A_RELU)                                                                     \
        for (int64_t i = 0; i < n; i++) {                                                          \
          T v = x[i] + y[i];                                                                       \
          o[i] = v > 0 ? v : (T)0;                                                                 \
        }                                                                                          \
      else                                                                                         \
        for (int64_t i = 0; i < n; i++) o[i] = act1_##SUF(act, x[i] + y[i]);                       \
      return;                                                                                      \
    }                                                                                              \
    if (so == (int64_t)sizeof(T) && sx == (int64_t)sizeof(T) && sy == 0) {                         \
      bias_act_##SUF((T *)memmove(po, px, (size_t)n * sizeof(T)), n, *(const T *)py, act);         \
      return;                                                                                      \
    }                                                                                              \
    for (int64_t i = 0; i < n; i++)                                                                \
      *(T *)(po + i * so) = act1_##SUF(act, *(const T *)(px + i * sx) + *(const T *)(py + i * sy)); \
  }
DEF_ADD_ACT(f32, float)
DEF_ADD_ACT(f64, double)

static pd_status fused_add(const void *args, pd_tensor **out, pd_loop_fn loop) {
  const pd_fused_elementwise_add_args *a = (const pd_fused_elementwise_add_args *)args;
  act_t act;
  PD_TRY(parse_act("fused_elementwise_add", a->fuse_activation, a->fuse_alpha, a->fuse_beta, &act));
  return pd_run_binary("fused_elementwise_add", out[0], a->x, a->y, loop, &act);
}

#define DEF_ENTRY(SUF)                                                                              \
  pd_status pd_kernel_fused_conv2d_##SUF(const void *args, pd_tensor **out, int n_out) {           \
    (void)n_out;                                                                                   \
    return fused_conv(args, out);                                                                  \
  }                                                                                                \
  pd_status pd_kernel_fc_##SUF(const void *args, pd_tensor **out, int n_out) {                     \
    (void)n_out;                                                                                   \
    return fc(args, out);                                                                          \
  }                                                                                                \
  pd_status pd_kernel_fused_elementwise_add_##SUF(const void *args, pd_tensor **out, int n_out) {  \
    (void)n_out;                                                                                   \
    return fused_add(args, out, add_act_loop_##SUF);                                               \
  }
DEF_ENTRY(f32)
DEF_ENTRY(f64)
