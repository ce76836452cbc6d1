/* Box kernels (ops/vision.yaml): nms (greedy suppression in input order, IoU > threshold
 * suppresses, no +1 pixel offset; the output length depends on the data so the kernel makes
 * it), box_coder (Paddle's encode_center_size / decode_center_size with a variance tensor, a
 * 4-value variance or none) and prior_box (SSD priors per feature cell, both orders). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "vision_util.h"

static inline void stx(void *p, int f64, int64_t i, double v) {
  if (f64)
    ((double *)p)[i] = v;
  else
    ((float *)p)[i] = (float)v;
}

/* ---------------------------------------------------------------- nms */
static int overlaps(const double *a, const double *b, double thr) {
  double iw = fmin(a[2], b[2]) - fmax(a[0], b[0]), ih = fmin(a[3], b[3]) - fmax(a[1], b[1]);
  double in = (iw > 0 ? iw : 0) * (ih > 0 ? ih : 0);
  double un = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - in;
  return in / un > thr;
}

static pd_status nms_impl(const pd_nms_args *a, pd_tensor **out) {
  const int64_t n = a->boxes->shape[0];
  double *b;
  PD_TRY(pd_vision_f64("nms", a->boxes, &b));
  unsigned char *dead = (unsigned char *)calloc((size_t)(n + 1), 1);
  if (!dead) {
    free(b);
    return pd_vision_oom("nms");
  }
  int64_t kept = 0;
  for (int64_t i = 0; i < n; i++) {
    if (dead[i]) continue;
    kept++;
    const double *bi = b + 4 * i;
#pragma omp parallel for if (n - i > 8192)
    for (int64_t j = i + 1; j < n; j++)
      if (!dead[j] && overlaps(bi, b + 4 * j, a->threshold)) dead[j] = 1;
  }
  pd_status st = pd_tensor_empty(PD_INT64, 1, &kept, &out[0]);
  if (st == PD_OK) {
    int64_t *o = (int64_t *)pd_tensor_data(out[0]);
    for (int64_t i = 0; i < n; i++)
      if (!dead[i]) *o++ = i;
  }
  free(dead);
  free(b);
  return st;
}
pd_status pd_kernel_nms_f32(const void *args, pd_tensor **out, int n_out) {
  return nms_impl((const pd_nms_args *)args, out);
}
pd_status pd_kernel_nms_f64(const void *args, pd_tensor **out, int n_out) {
  return nms_impl((const pd_nms_args *)args, out);
}

/* ---------------------------------------------------------------- box_coder */
static pd_status box_coder_impl(const pd_box_coder_args *a, pd_tensor **out, int f64) {
  const char *op = "box_coder";
  double *p = NULL, *v = NULL, *t = NULL;
  pd_status st = pd_vision_f64(op, a->prior_box, &p);
  if (st == PD_OK && a->prior_box_var) st = pd_vision_f64(op, a->prior_box_var, &v);
  if (st == PD_OK) st = pd_vision_f64(op, a->target_box, &t);
  if (st == PD_OK) {
    const int encode = !strcmp(a->code_type, "encode_center_size");
    const double one = a->box_normalized ? 0.0 : 1.0;
    const int64_t R = out[0]->shape[0], Cn = out[0]->shape[1];
    void *o = pd_tensor_data(out[0]);
#pragma omp parallel for collapse(2) if (R * Cn > 16384)
    for (int64_t i = 0; i < R; i++)
      for (int64_t j = 0; j < Cn; j++) {
        const int64_t q = (encode || a->axis == 0) ? j : i; /* prior box index */
        const double *pb = p + 4 * q;
        const double pw = pb[2] - pb[0] + one, ph = pb[3] - pb[1] + one;
        const double pcx = pb[0] + pw / 2, pcy = pb[1] + ph / 2;
        double var[4] = {1, 1, 1, 1};
        for (int k = 0; k < 4; k++) {
          if (v) var[k] = v[4 * q + k];
          else if (a->variance.n == 4) var[k] = a->variance.data[k];
        }
        double r[4];
        if (encode) {
          const double *tb = t + 4 * i;
          const double tcx = (tb[2] + tb[0]) / 2, tcy = (tb[3] + tb[1]) / 2;
          const double tw = tb[2] - tb[0] + one, th = tb[3] - tb[1] + one;
          r[0] = (tcx - pcx) / pw / var[0];
          r[1] = (tcy - pcy) / ph / var[1];
          r[2] = log(fabs(tw / pw)) / var[2];
          r[3] = log(fabs(th / ph)) / var[3];
        } else {
          const double *tb = t + (i * Cn + j) * 4;
          const double cx = var[0] * tb[0] * pw + pcx, cy = var[1] * tb[1] * ph + pcy;
          const double w = exp(var[2] * tb[2]) * pw, h = exp(var[3] * tb[3]) * ph;
          r[0] = cx - w / 2;
          r[1] = cy - h / 2;
          r[2] = cx + w / 2 - one;
          r[3] = cy + h / 2 - one;
        }
        for (int k = 0; k < 4; k++) stx(o, f64, (i * Cn + j) * 4 + k, r[k]);
      }
  }
  free(p);
  free(v);
  free(t);
  return st;
}
pd_status pd_kernel_box_coder_f32(const void *args, pd_tensor **out, int n_out) {
  return box_coder_impl((const pd_box_coder_args *)args, out, 0);
}
pd_status pd_kernel_box_coder_f64(const void *args, pd_tensor **out, int n_out) {
  return box_coder_impl((const pd_box_coder_args *)args, out, 1);
}

/* ---------------------------------------------------------------- prior_box */
static pd_status prior_box_impl(const pd_prior_box_args *a, pd_tensor **out, int f64) {
  double ar[256];
  const int nar = pd_prior_box_ratios(a->aspect_ratios, (int)a->flip, ar, 256);
  const int64_t H = a->input->shape[2], W = a->input->shape[3];
  const double IH = (double)a->image->shape[2], IW = (double)a->image->shape[3];
  double sw = a->step_w, sh = a->step_h;
  if (sw == 0 || sh == 0) {
    sw = IW / (double)W;
    sh = IH / (double)H;
  }
  const int64_t np = out[0]->shape[2];
  void *b = pd_tensor_data(out[0]), *v = pd_tensor_data(out[1]);
#pragma omp parallel for collapse(2) if (H * W * np > 16384)
  for (int64_t h = 0; h < H; h++)
    for (int64_t w = 0; w < W; w++) {
      const double cx = ((double)w + a->offset) * sw, cy = ((double)h + a->offset) * sh;
      int64_t o = (h * W + w) * np * 4;
#define PUT(BW, BH)                                                     \
  do {                                                                  \
    double r_[4] = {(cx - (BW)) / IW, (cy - (BH)) / IH, (cx + (BW)) / IW, (cy + (BH)) / IH}; \
    for (int k_ = 0; k_ < 4; k_++) {                                    \
      double x_ = r_[k_];                                               \
      if (a->clip) x_ = x_ < 0 ? 0 : (x_ > 1 ? 1 : x_);                 \
      stx(b, f64, o + k_, x_);                                          \
      stx(v, f64, o + k_, a->variances.data[k_]);                       \
    }                                                                   \
    o += 4;                                                             \
  } while (0)
      for (int64_t s = 0; s < a->min_sizes.n; s++) {
        const double ms = a->min_sizes.data[s];
        if (a->min_max_aspect_ratios_order) {
          PUT(ms / 2, ms / 2);
          if (a->max_sizes.n) PUT(sqrt(ms * a->max_sizes.data[s]) / 2, sqrt(ms * a->max_sizes.data[s]) / 2);
          for (int r = 0; r < nar; r++)
            if (fabs(ar[r] - 1.0) >= 1e-6) PUT(ms * sqrt(ar[r]) / 2, ms / sqrt(ar[r]) / 2);
        } else {
          for (int r = 0; r < nar; r++) PUT(ms * sqrt(ar[r]) / 2, ms / sqrt(ar[r]) / 2);
          if (a->max_sizes.n) PUT(sqrt(ms * a->max_sizes.data[s]) / 2, sqrt(ms * a->max_sizes.data[s]) / 2);
        }
      }
#undef PUT
    }
  return PD_OK;
}
pd_status pd_kernel_prior_box_f32(const void *args, pd_tensor **out, int n_out) {
  return prior_box_impl((const pd_prior_box_args *)args, out, 0);
}
pd_status pd_kernel_prior_box_f64(const void *args, pd_tensor **out, int n_out) {
  return prior_box_impl((const pd_prior_box_args *)args, out, 1);
}
