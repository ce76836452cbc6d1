/* YOLOv3 kernels (ops/vision.yaml): yolo_box (decode boxes and class scores per anchor and grid
 * cell, Paddle's iou_aware layout and clipping) and yolo_loss / yolo_loss_grad (Paddle's yolov3
 * loss: per-cell ignore mask from the best IoU with any gt box, best-anchor assignment of each gt,
 * sigmoid cross entropy on x/y/objectness/classes, L1 on w/h). Images run in parallel; values
 * compute in double. The grad recomputes the assignment instead of taking the masks, and adds
 * (rather than overwrites) the terms of gt boxes that land on the same cell. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "vision_util.h"

static inline double ldx(const void *p, int f64, int64_t i) {
  return f64 ? ((const double *)p)[i] : (double)((const float *)p)[i];
}
static inline void stx(void *p, int f64, int64_t i, double v) {
  if (f64)
    ((double *)p)[i] = v;
  else
    ((float *)p)[i] = (float)v;
}
static inline double sigm(double v) { return 1.0 / (1.0 + exp(-v)); }

/* ---------------------------------------------------------------- yolo_box */
/* the offset of x's (n, c, cell) for C channels of S cells: plain NCHW (B = 0) or the predictor's
 * blocked nChw<B>c (B = x's layout tag; the last block padded to B lanes: csrc/graph/pd_exec_layout.c
 * lets yolo_box read its x blocked, so the head's convolution output is not reordered for it) */
static inline int64_t xat(int64_t n, int64_t c, int64_t cell, int64_t C, int64_t S, int64_t B) {
  if (!B) return (n * C + c) * S + cell;
  return ((n * ((C + B - 1) / B) + c / B) * S + cell) * B + c % B;
}
static pd_status yolo_box_impl(const pd_yolo_box_args *a, pd_tensor **out, int f64) {
  const char *op = "yolo_box";
  int64_t *isz;
  pd_tensor *xc;
  PD_TRY(pd_vision_i64(op, a->img_size, &isz));
  pd_status st = pd_tensor_contiguous(a->x, &xc);
  if (st != PD_OK) {
    free(isz);
    return st;
  }
  const int64_t N = a->x->shape[0], C = a->x->shape[1], H = a->x->shape[2], W = a->x->shape[3], S = H * W;
  const int64_t an = a->anchors.n / 2, cls = a->class_num, ent = 5 + cls, M = an * S;
  const int64_t iou = a->iou_aware ? 1 : 0, B = f64 ? 0 : xc->layout;
  const double scale = a->scale_x_y, bias = -0.5 * (scale - 1.0), fac = a->iou_aware_factor;
  const int64_t in_h = a->downsample_ratio * H, in_w = a->downsample_ratio * W;
  const void *x = pd_tensor_data(xc);
  void *bx = pd_tensor_data(out[0]), *sc = pd_tensor_data(out[1]);
  memset(bx, 0, (size_t)out[0]->numel * pd_dtype_size(out[0]->dtype));
  memset(sc, 0, (size_t)out[1]->numel * pd_dtype_size(out[1]->dtype));
#pragma omp parallel for collapse(2) if (N * M * cls > 65536)
  for (int64_t n = 0; n < N; n++)
    for (int64_t j = 0; j < an; j++) {
      const double ih = (double)isz[2 * n], iw = (double)isz[2 * n + 1];
      /* anchor j's channels start after the an IoU planes when iou_aware */
      const int64_t c0 = iou * an + j * ent;
      for (int64_t k = 0; k < H; k++)
        for (int64_t l = 0; l < W; l++) {
          const int64_t cell = k * W + l;
          double conf = sigm(ldx(x, f64, xat(n, c0 + 4, cell, C, S, B)));
          if (iou) conf = pow(conf, 1.0 - fac) * pow(sigm(ldx(x, f64, xat(n, j, cell, C, S, B))), fac);
          if (conf < a->conf_thresh) continue;
          const double cx = ((double)l + sigm(ldx(x, f64, xat(n, c0, cell, C, S, B))) * scale + bias) * iw / (double)W;
          const double cy = ((double)k + sigm(ldx(x, f64, xat(n, c0 + 1, cell, C, S, B))) * scale + bias) * ih / (double)H;
          const double aw = (double)a->anchors.data[2 * j], ah = (double)a->anchors.data[2 * j + 1];
          const double bw = exp(ldx(x, f64, xat(n, c0 + 2, cell, C, S, B))) * aw * iw / (double)in_w;
          const double bh = exp(ldx(x, f64, xat(n, c0 + 3, cell, C, S, B))) * ah * ih / (double)in_h;
          double b[4] = {cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2};
          if (a->clip_bbox) {
            b[0] = b[0] > 0 ? b[0] : 0;
            b[1] = b[1] > 0 ? b[1] : 0;
            b[2] = b[2] < iw - 1 ? b[2] : iw - 1;
            b[3] = b[3] < ih - 1 ? b[3] : ih - 1;
          }
          const int64_t o = n * M + j * S + cell;
          for (int q = 0; q < 4; q++) stx(bx, f64, o * 4 + q, b[q]);
          for (int64_t c = 0; c < cls; c++)
            stx(sc, f64, o * cls + c, conf * sigm(ldx(x, f64, xat(n, c0 + 5 + c, cell, C, S, B))));
        }
    }
  pd_tensor_release(xc);
  free(isz);
  return PD_OK;
}
pd_status pd_kernel_yolo_box_f32(const void *args, pd_tensor **out, int n_out) {
  return yolo_box_impl((const pd_yolo_box_args *)args, out, 0);
}
pd_status pd_kernel_yolo_box_f64(const void *args, pd_tensor **out, int n_out) {
  return yolo_box_impl((const pd_yolo_box_args *)args, out, 1);
}

/* ---------------------------------------------------------------- yolo_loss */
typedef struct {
  const void *x;
  int f64;
  int64_t N, H, W, S, B, mn, an, cls, ent, isz;
  const int64_t *anchors, *mask;
  const double *gt, *score; /* gt [N, B, 4]; score [N, B] or NULL */
  const int64_t *label;
  double scale, bias, ignore, pos, neg;
} yolo_ctx;

static double sce(double v, double label) { return (v > 0 ? v : 0.0) - v * label + log(1.0 + exp(-fabs(v))); }
static double sce_grad(double v, double label) { return sigm(v) - label; }

/* IoU of boxes given as (center x, center y, w, h). */
static double iou_cwh(const double *a, const double *b) {
  double l = fmax(a[0] - a[2] / 2, b[0] - b[2] / 2), r = fmin(a[0] + a[2] / 2, b[0] + b[2] / 2);
  double t = fmax(a[1] - a[3] / 2, b[1] - b[3] / 2), d = fmin(a[1] + a[3] / 2, b[1] + b[3] / 2);
  double w = r - l, h = d - t, in = (w < 0 || h < 0) ? 0.0 : w * h;
  return in / (a[2] * a[3] + b[2] * b[3] - in);
}

static int gt_valid(const double *g) { return !(g[2] < 1e-6 || g[3] < 1e-6); }

/* Objectness mask (-1 ignore, 0 negative, score positive) and gt -> anchor-mask slot of image n;
 * gi/gj get each gt's cell (clamped into the grid). */
static void yolo_assign(const yolo_ctx *c, int64_t n, double *obj, int32_t *match, int64_t *gi, int64_t *gj) {
  const int64_t S = c->S, B = c->B;
  memset(obj, 0, sizeof(double) * (size_t)(c->mn * S));
  for (int64_t j = 0; j < c->mn; j++) {
    const int64_t base = (n * c->mn + j) * c->ent * S, a = c->mask[j];
    for (int64_t k = 0; k < c->H; k++)
      for (int64_t l = 0; l < c->W; l++) {
        const int64_t cell = k * c->W + l;
        double p[4] = {((double)l + sigm(ldx(c->x, c->f64, base + cell)) * c->scale + c->bias) / (double)c->H,
                       ((double)k + sigm(ldx(c->x, c->f64, base + S + cell)) * c->scale + c->bias) / (double)c->H,
                       exp(ldx(c->x, c->f64, base + 2 * S + cell)) * (double)c->anchors[2 * a] / (double)c->isz,
                       exp(ldx(c->x, c->f64, base + 3 * S + cell)) * (double)c->anchors[2 * a + 1] / (double)c->isz};
        double best = 0;
        for (int64_t t = 0; t < B; t++) {
          const double *g = c->gt + (n * B + t) * 4;
          if (!gt_valid(g)) continue;
          double v = iou_cwh(p, g);
          if (v > best) best = v;
        }
        if (best > c->ignore) obj[j * S + cell] = -1;
      }
  }
  for (int64_t t = 0; t < B; t++) {
    const double *g = c->gt + (n * B + t) * 4;
    match[t] = -1;
    if (!gt_valid(g)) continue;
    const double x = g[0] * (double)c->W, y = g[1] * (double)c->H; /* cell, clamped into the grid */
    gi[t] = !(x >= 1.0) ? 0 : (x >= (double)c->W ? c->W - 1 : (int64_t)x);
    gj[t] = !(y >= 1.0) ? 0 : (y >= (double)c->H ? c->H - 1 : (int64_t)y);
    double best = 0, shifted[4] = {0, 0, g[2], g[3]};
    int64_t bn = 0;
    for (int64_t a = 0; a < c->an; a++) {
      double ab[4] = {0, 0, (double)c->anchors[2 * a] / (double)c->isz, (double)c->anchors[2 * a + 1] / (double)c->isz};
      double v = iou_cwh(ab, shifted);
      if (v > best) {
        best = v;
        bn = a;
      }
    }
    for (int64_t j = c->mn - 1; j >= 0; j--) /* the first slot holding the anchor */
      if (c->mask[j] == bn) match[t] = (int32_t)j;
    if (match[t] >= 0) obj[match[t] * S + gj[t] * c->W + gi[t]] = c->score ? c->score[n * B + t] : 1.0;
  }
}

/* Loss of image n (grad == NULL) or its x-gradient scaled by lg (added into grad). */
static double yolo_image(const yolo_ctx *c, int64_t n, const double *obj, const int32_t *match, const int64_t *gi,
                         const int64_t *gj, void *grad, double lg) {
  const int64_t S = c->S, B = c->B;
  double loss = 0;
  for (int64_t t = 0; t < B; t++) {
    if (match[t] < 0) continue;
    const double *g = c->gt + (n * B + t) * 4;
    const double s = c->score ? c->score[n * B + t] : 1.0;
    const int64_t a = c->mask[match[t]], cell = gj[t] * c->W + gi[t];
    const int64_t base = (n * c->mn + match[t]) * c->ent * S + cell;
    const double tx = g[0] * (double)c->H - (double)gi[t], ty = g[1] * (double)c->H - (double)gj[t];
    const double tw = log(g[2] * (double)c->isz / (double)c->anchors[2 * a]);
    const double th = log(g[3] * (double)c->isz / (double)c->anchors[2 * a + 1]);
    const double w = (2.0 - g[2] * g[3]) * s;
    double e[4];
    for (int q = 0; q < 4; q++) e[q] = ldx(c->x, c->f64, base + q * S);
    const int64_t lab = c->label[n * B + t];
    if (!grad) {
      loss += (sce(e[0], tx) + sce(e[1], ty) + fabs(e[2] - tw) + fabs(e[3] - th)) * w;
      for (int64_t k = 0; k < c->cls; k++)
        loss += sce(ldx(c->x, c->f64, base + (5 + k) * S), k == lab ? c->pos : c->neg) * s;
    } else {
      double d[4] = {sce_grad(e[0], tx), sce_grad(e[1], ty), e[2] > tw ? 1.0 : -1.0, e[3] > th ? 1.0 : -1.0};
      for (int q = 0; q < 4; q++) stx(grad, c->f64, base + q * S, ldx(grad, c->f64, base + q * S) + d[q] * w * lg);
      for (int64_t k = 0; k < c->cls; k++) {
        const int64_t i = base + (5 + k) * S;
        const double d = sce_grad(ldx(c->x, c->f64, i), k == lab ? c->pos : c->neg) * s * lg;
        stx(grad, c->f64, i, ldx(grad, c->f64, i) + d);
      }
    }
  }
  for (int64_t j = 0; j < c->mn; j++)
    for (int64_t cell = 0; cell < S; cell++) {
      const double o = obj[j * S + cell];
      const int64_t i = (n * c->mn + j) * c->ent * S + 4 * S + cell;
      const double v = ldx(c->x, c->f64, i);
      if (o > 1e-5) {
        if (grad) stx(grad, c->f64, i, ldx(grad, c->f64, i) + sce_grad(v, 1.0) * o * lg);
        else loss += sce(v, 1.0) * o;
      } else if (o > -0.5) {
        if (grad) stx(grad, c->f64, i, ldx(grad, c->f64, i) + sce_grad(v, 0.0) * lg);
        else loss += sce(v, 0.0);
      }
    }
  return loss;
}

/* Loads the side inputs; on success the caller frees *gt, *score, *label and releases *xc. */
static pd_status yolo_setup(const char *op, pd_tensor *x, pd_tensor *gt_box, pd_tensor *gt_label, pd_tensor *gt_score,
                            pd_int_array anchors, pd_int_array mask, int64_t cls, double ignore, int64_t ratio,
                            int smooth, double scale_xy, int f64, yolo_ctx *c, pd_tensor **xc) {
  memset(c, 0, sizeof *c);
  double *gt = NULL, *sc = NULL;
  int64_t *lab = NULL;
  pd_status st = pd_vision_f64(op, gt_box, &gt);
  if (st == PD_OK) st = pd_vision_i64(op, gt_label, &lab);
  if (st == PD_OK && gt_score) st = pd_vision_f64(op, gt_score, &sc);
  if (st == PD_OK) st = pd_tensor_contiguous(x, xc);
  if (st != PD_OK) {
    free(gt);
    free(sc);
    free(lab);
    return st;
  }
  c->x = pd_tensor_data(*xc);
  c->f64 = f64;
  c->N = x->shape[0];
  c->H = x->shape[2];
  c->W = x->shape[3];
  c->S = c->H * c->W;
  c->B = gt_box->shape[1];
  c->mn = mask.n;
  c->an = anchors.n / 2;
  c->cls = cls;
  c->ent = 5 + cls;
  c->isz = ratio * c->H;
  c->anchors = anchors.data;
  c->mask = mask.data;
  c->gt = gt;
  c->score = sc;
  c->label = lab;
  c->scale = scale_xy;
  c->bias = -0.5 * (scale_xy - 1.0);
  c->ignore = ignore;
  c->pos = 1.0;
  c->neg = 0.0;
  if (smooth) {
    double w = fmin(1.0 / (double)cls, 1.0 / 40);
    c->pos = 1.0 - w;
    c->neg = w;
  }
  return PD_OK;
}
static void yolo_free(yolo_ctx *c, pd_tensor *xc) {
  free((void *)c->gt);
  free((void *)c->score);
  free((void *)c->label);
  pd_tensor_release(xc);
}

static pd_status yolo_loss_impl(const pd_yolo_loss_args *a, pd_tensor **out, int f64) {
  const char *op = "yolo_loss";
  yolo_ctx c;
  pd_tensor *xc;
  PD_TRY(yolo_setup(op, a->x, a->gt_box, a->gt_label, a->gt_score, a->anchors, a->anchor_mask, a->class_num,
                    a->ignore_thresh, a->downsample_ratio, (int)a->use_label_smooth, a->scale_x_y, f64, &c, &xc));
  void *loss = pd_tensor_data(out[0]), *objo = pd_tensor_data(out[1]);
  int32_t *match = (int32_t *)pd_tensor_data(out[2]);
  int err = 0;
#pragma omp parallel for schedule(dynamic) if (c.N > 1 && c.N * c.mn * c.S * (c.B + 1) > 16384)
  for (int64_t n = 0; n < c.N; n++) {
    double *obj = (double *)malloc(sizeof(double) * (size_t)(c.mn * c.S + 1));
    int64_t *gij = (int64_t *)calloc((size_t)(2 * c.B + 1), sizeof(int64_t));
    if (!obj || !gij) {
      __atomic_store_n(&err, 1, __ATOMIC_RELAXED);
    } else {
      yolo_assign(&c, n, obj, match + n * c.B, gij, gij + c.B);
      stx(loss, f64, n, yolo_image(&c, n, obj, match + n * c.B, gij, gij + c.B, NULL, 0.0));
      for (int64_t i = 0; i < c.mn * c.S; i++) stx(objo, f64, n * c.mn * c.S + i, obj[i]);
    }
    free(obj);
    free(gij);
  }
  yolo_free(&c, xc);
  return err ? pd_vision_oom(op) : PD_OK;
}
pd_status pd_kernel_yolo_loss_f32(const void *args, pd_tensor **out, int n_out) {
  return yolo_loss_impl((const pd_yolo_loss_args *)args, out, 0);
}
pd_status pd_kernel_yolo_loss_f64(const void *args, pd_tensor **out, int n_out) {
  return yolo_loss_impl((const pd_yolo_loss_args *)args, out, 1);
}

static pd_status yolo_loss_grad_impl(const pd_yolo_loss_grad_args *a, pd_tensor **out, int f64) {
  const char *op = "yolo_loss_grad";
  yolo_ctx c;
  pd_tensor *xc;
  double *lg;
  PD_TRY(pd_vision_f64(op, a->loss_grad, &lg));
  pd_status st = yolo_setup(op, a->x, a->gt_box, a->gt_label, a->gt_score, a->anchors, a->anchor_mask,
                            a->class_num, a->ignore_thresh, a->downsample_ratio, (int)a->use_label_smooth,
                            a->scale_x_y, f64, &c, &xc);
  if (st != PD_OK) {
    free(lg);
    return st;
  }
  void *gx = pd_tensor_data(out[0]);
  memset(gx, 0, (size_t)out[0]->numel * pd_dtype_size(out[0]->dtype));
  int err = 0;
#pragma omp parallel for schedule(dynamic) if (c.N > 1 && c.N * c.mn * c.S * (c.B + 1) > 16384)
  for (int64_t n = 0; n < c.N; n++) {
    double *obj = (double *)malloc(sizeof(double) * (size_t)(c.mn * c.S + 1));
    int64_t *gij = (int64_t *)calloc((size_t)(2 * c.B + 1), sizeof(int64_t));
    int32_t *match = (int32_t *)malloc(sizeof(int32_t) * (size_t)(c.B + 1));
    if (!obj || !gij || !match) {
      __atomic_store_n(&err, 1, __ATOMIC_RELAXED);
    } else {
      yolo_assign(&c, n, obj, match, gij, gij + c.B);
      yolo_image(&c, n, obj, match, gij, gij + c.B, gx, lg[n]);
    }
    free(obj);
    free(gij);
    free(match);
  }
  yolo_free(&c, xc);
  free(lg);
  return err ? pd_vision_oom(op) : PD_OK;
}
pd_status pd_kernel_yolo_loss_grad_f32(const void *args, pd_tensor **out, int n_out) {
  return yolo_loss_grad_impl((const pd_yolo_loss_grad_args *)args, out, 0);
}
pd_status pd_kernel_yolo_loss_grad_f64(const void *args, pd_tensor **out, int n_out) {
  return yolo_loss_grad_impl((const pd_yolo_loss_grad_args *)args, out, 1);
}
