/* RoI kernels (ops/vision.yaml): roi_align (bilinear samples averaged per bin, Paddle's aligned /
 * legacy box conventions), roi_pool (max per bin of the rounded box, with the argmax plane index)
 * and psroi_pool (position-sensitive average), plus their gradients. Forward passes run rois in
 * parallel; gradients run input channels in parallel (disjoint planes, deterministic sums).
 * Also the shared helpers of vision_util.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "vision_util.h"

/* ---------------------------------------------------------------- shared helpers */
pd_status pd_vision_f64(const char *op, pd_tensor *t, double **buf) {
  pd_tensor *c;
  PD_TRY(pd_tensor_contiguous(t, &c));
  double *b = (double *)malloc(sizeof(double) * (size_t)(t->numel + 1));
  if (!b) {
    pd_tensor_release(c);
    return pd_vision_oom(op);
  }
  const char *p = (const char *)pd_tensor_data(c);
  size_t es = pd_dtype_size(c->dtype);
  for (int64_t i = 0; i < c->numel; i++) b[i] = pd_load_as_double(p + (size_t)i * es, c->dtype);
  pd_tensor_release(c);
  *buf = b;
  return PD_OK;
}

pd_status pd_vision_i64(const char *op, pd_tensor *t, int64_t **buf) {
  pd_tensor *c;
  PD_TRY(pd_tensor_contiguous(t, &c));
  int64_t *b = (int64_t *)malloc(sizeof(int64_t) * (size_t)(t->numel + 1));
  if (!b) {
    pd_tensor_release(c);
    return pd_vision_oom(op);
  }
  const char *p = (const char *)pd_tensor_data(c);
  size_t es = pd_dtype_size(c->dtype);
  for (int64_t i = 0; i < c->numel; i++) b[i] = pd_load_as_int64(p + (size_t)i * es, c->dtype);
  pd_tensor_release(c);
  *buf = b;
  return PD_OK;
}

pd_status pd_vision_batch_ids(const char *op, pd_tensor *boxes_num, int64_t R, int64_t **ids) {
  int64_t *cnt;
  PD_TRY(pd_vision_i64(op, boxes_num, &cnt));
  int64_t tot = 0;
  for (int64_t b = 0; b < boxes_num->numel; b++) {
    if (cnt[b] < 0) {
      pd_status s = pd_set_error(PD_ERR_INVALID_ARGUMENT,
                                 "[%s] expected non-negative boxes_num, received %lld at %lld", op,
                                 (long long)cnt[b], (long long)b);
      free(cnt);
      return s;
    }
    tot += cnt[b];
  }
  if (tot != R) {
    free(cnt);
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[%s] expected boxes_num to sum to the number of boxes (%lld), received %lld", op,
                        (long long)R, (long long)tot);
  }
  int64_t *id = (int64_t *)malloc(sizeof(int64_t) * (size_t)(R + 1));
  if (!id) {
    free(cnt);
    return pd_vision_oom(op);
  }
  int64_t k = 0;
  for (int64_t b = 0; b < boxes_num->numel; b++)
    for (int64_t j = 0; j < cnt[b]; j++) id[k++] = b;
  free(cnt);
  *ids = id;
  return PD_OK;
}

/* ---------------------------------------------------------------- roi_align geometry */
typedef struct {
  int64_t i[4];
  double w[4];
} tap;

typedef struct {
  int64_t gh, gw, n; /* grid per bin, taps per bin (gh * gw) */
  tap *t;            /* [ph * pw * n]: bin (py, px) owns t[(py * pw + px) * n ...] */
} roi_taps;

typedef struct {
  double x1, y1, bh, bw, cnt;
  int64_t gh, gw;
} align_geom;

/* Sampling geometry of one roi; ValueError for non-finite or absurdly large boxes. */
static pd_status align_geometry(const char *op, const double *box, int64_t ph, int64_t pw, double ss, int64_t sr,
                                int aligned, align_geom *g) {
  double off = aligned ? 0.5 : 0.0;
  double x1 = box[0] * ss - off, y1 = box[1] * ss - off, x2 = box[2] * ss - off, y2 = box[3] * ss - off;
  double rw = x2 - x1, rh = y2 - y1;
  if (!isfinite(rw) || !isfinite(rh) || !isfinite(x1) || !isfinite(y1))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected finite box coordinates", op);
  if (!aligned) {
    rw = rw > 1.0 ? rw : 1.0;
    rh = rh > 1.0 ? rh : 1.0;
  }
  g->x1 = x1;
  g->y1 = y1;
  g->bh = rh / (double)ph;
  g->bw = rw / (double)pw;
  double gh = sr > 0 ? (double)sr : ceil(rh / (double)ph), gw = sr > 0 ? (double)sr : ceil(rw / (double)pw);
  if (gh < 0) gh = 0;
  if (gw < 0) gw = 0;
  if (gh * gw * (double)(ph * pw) > (double)((int64_t)1 << 28))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[%s] box too large for adaptive sampling (%.0f x %.0f samples per bin)", op, gh, gw);
  g->gh = (int64_t)gh;
  g->gw = (int64_t)gw;
  g->cnt = (double)(g->gh * g->gw > 1 ? g->gh * g->gw : 1);
  return PD_OK;
}

/* Bilinear taps of every sample of one roi (weights divided by the sample count); only fails
 * for lack of memory (the geometry was checked by align_geometry). */
static int align_taps(int64_t H, int64_t W, const align_geom *g, int64_t ph, int64_t pw, roi_taps *rt) {
  const int64_t gh = g->gh, gw = g->gw;
  const double x1 = g->x1, y1 = g->y1, bh = g->bh, bw = g->bw, cnt = g->cnt;
  rt->gh = gh;
  rt->gw = gw;
  rt->n = gh * gw;
  rt->t = (tap *)malloc(sizeof(tap) * (size_t)(ph * pw * rt->n + 1));
  if (!rt->t) return 1;
  tap *t = rt->t;
  for (int64_t py = 0; py < ph; py++)
    for (int64_t px = 0; px < pw; px++)
      for (int64_t iy = 0; iy < gh; iy++) {
        double y0 = y1 + (double)py * bh + ((double)iy + 0.5) * bh / (double)gh;
        for (int64_t ix = 0; ix < gw; ix++, t++) {
          double y = y0, x = x1 + (double)px * bw + ((double)ix + 0.5) * bw / (double)gw;
          memset(t, 0, sizeof *t);
          if (y < -1.0 || y > (double)H || x < -1.0 || x > (double)W) continue;
          if (y <= 0) y = 0;
          if (x <= 0) x = 0;
          int64_t yl = (int64_t)y, xl = (int64_t)x, yh, xh;
          if (yl >= H - 1) {
            yh = yl = H - 1;
            y = (double)yl;
          } else {
            yh = yl + 1;
          }
          if (xl >= W - 1) {
            xh = xl = W - 1;
            x = (double)xl;
          } else {
            xh = xl + 1;
          }
          double ly = y - (double)yl, lx = x - (double)xl, hy = 1.0 - ly, hx = 1.0 - lx;
          t->i[0] = yl * W + xl;
          t->i[1] = yl * W + xh;
          t->i[2] = yh * W + xl;
          t->i[3] = yh * W + xh;
          t->w[0] = hy * hx / cnt;
          t->w[1] = hy * lx / cnt;
          t->w[2] = ly * hx / cnt;
          t->w[3] = ly * lx / cnt;
        }
      }
  return 0;
}

/* Loads boxes (as doubles) and the per-box image index. */
static pd_status load_rois(const char *op, pd_tensor *boxes, pd_tensor *boxes_num, double **bx, int64_t **ids) {
  PD_TRY(pd_vision_batch_ids(op, boxes_num, boxes->shape[0], ids));
  pd_status s = pd_vision_f64(op, boxes, bx);
  if (s != PD_OK) free(*ids);
  return s;
}

/* Geometry of every roi (checked before any parallel work). */
static pd_status align_all(const char *op, const double *bx, int64_t R, int64_t ph, int64_t pw, double ss,
                           int64_t sr, int aligned, align_geom **geo) {
  align_geom *g = (align_geom *)malloc(sizeof(align_geom) * (size_t)(R + 1));
  if (!g) return pd_vision_oom(op);
  for (int64_t r = 0; r < R; r++) {
    pd_status s = align_geometry(op, bx + 4 * r, ph, pw, ss, sr, aligned, &g[r]);
    if (s != PD_OK) {
      free(g);
      return s;
    }
  }
  *geo = g;
  return PD_OK;
}

#define DEF_ROI_ALIGN(SUF, T)                                                                              \
  pd_status pd_kernel_roi_align_##SUF(const void *args, pd_tensor **out, int n_out) {                     \
    const pd_roi_align_args *a = (const pd_roi_align_args *)args;                                         \
    const char *op = "roi_align";                                                                         \
    const int64_t R = a->boxes->shape[0], C = a->x->shape[1], H = a->x->shape[2], W = a->x->shape[3];     \
    const int64_t ph = a->pooled_height, pw = a->pooled_width;                                            \
    double *bx;                                                                                           \
    int64_t *ids;                                                                                         \
    align_geom *geo = NULL;                                                                               \
    pd_tensor *xc = NULL;                                                                                 \
    PD_TRY(load_rois(op, a->boxes, a->boxes_num, &bx, &ids));                                              \
    pd_status st = align_all(op, bx, R, ph, pw, a->spatial_scale, a->sampling_ratio, a->aligned, &geo);   \
    if (st == PD_OK) st = pd_tensor_contiguous(a->x, &xc);                                                \
    int err = 0;                                                                                          \
    if (st == PD_OK) {                                                                                    \
      const T *x = (const T *)pd_tensor_data(xc);                                                         \
      T *y = (T *)pd_tensor_data(out[0]);                                                                 \
      _Pragma("omp parallel for schedule(dynamic) if (R > 1 && R * C * ph * pw > 4096)")                 \
      for (int64_t r = 0; r < R; r++) {                                                                   \
        roi_taps rt;                                                                                      \
        if (align_taps(H, W, &geo[r], ph, pw, &rt)) {                                                     \
          __atomic_store_n(&err, 1, __ATOMIC_RELAXED);                                                    \
          continue;                                                                                       \
        }                                                                                                 \
        for (int64_t c = 0; c < C; c++) {                                                                 \
          const T *xp = x + (ids[r] * C + c) * H * W;                                                     \
          T *yp = y + (r * C + c) * ph * pw;                                                              \
          for (int64_t b = 0; b < ph * pw; b++) {                                                         \
            const tap *t = rt.t + b * rt.n;                                                               \
            double acc = 0;                                                                               \
            for (int64_t k = 0; k < rt.n; k++)                                                            \
              acc += t[k].w[0] * xp[t[k].i[0]] + t[k].w[1] * xp[t[k].i[1]] + t[k].w[2] * xp[t[k].i[2]] +  \
                     t[k].w[3] * xp[t[k].i[3]];                                                           \
            yp[b] = (T)acc;                                                                               \
          }                                                                                               \
        }                                                                                                 \
        free(rt.t);                                                                                       \
      }                                                                                                   \
    }                                                                                                     \
    if (xc) pd_tensor_release(xc);                                                                        \
    free(geo);                                                                                            \
    free(bx);                                                                                             \
    free(ids);                                                                                            \
    if (st == PD_OK && err) st = pd_vision_oom(op);                                                       \
    return st;                                                                                            \
  }

#define DEF_ROI_ALIGN_GRAD(SUF, T)                                                                         \
  pd_status pd_kernel_roi_align_grad_##SUF(const void *args, pd_tensor **out, int n_out) {                \
    const pd_roi_align_grad_args *a = (const pd_roi_align_grad_args *)args;                               \
    const char *op = "roi_align_grad";                                                                    \
    const int64_t R = a->boxes->shape[0], C = a->x_shape.data[1], H = a->x_shape.data[2];                 \
    const int64_t W = a->x_shape.data[3], ph = a->pooled_height, pw = a->pooled_width;                    \
    double *bx;                                                                                           \
    int64_t *ids;                                                                                         \
    align_geom *geo = NULL;                                                                               \
    pd_tensor *gc = NULL;                                                                                 \
    PD_TRY(load_rois(op, a->boxes, a->boxes_num, &bx, &ids));                                              \
    pd_status st = align_all(op, bx, R, ph, pw, a->spatial_scale, a->sampling_ratio, a->aligned, &geo);   \
    if (st == PD_OK) st = pd_tensor_contiguous(a->out_grad, &gc);                                         \
    T *gx = (T *)pd_tensor_data(out[0]);                                                                  \
    memset(gx, 0, sizeof(T) * (size_t)out[0]->numel);                                                     \
    for (int64_t r = 0; st == PD_OK && r < R; r++) {                                                      \
      roi_taps rt;                                                                                        \
      if (align_taps(H, W, &geo[r], ph, pw, &rt)) {                                                       \
        st = pd_vision_oom(op);                                                                           \
        break;                                                                                            \
      }                                                                                                   \
      const T *dy = (const T *)pd_tensor_data(gc) + r * C * ph * pw;                                      \
      T *gb = gx + ids[r] * C * H * W;                                                                    \
      _Pragma("omp parallel for if (C * ph * pw * rt.n > 16384)")                                         \
      for (int64_t c = 0; c < C; c++) {                                                                   \
        T *gp = gb + c * H * W;                                                                           \
        for (int64_t b = 0; b < ph * pw; b++) {                                                           \
          const tap *t = rt.t + b * rt.n;                                                                 \
          const double g = (double)dy[c * ph * pw + b];                                                   \
          for (int64_t k = 0; k < rt.n; k++)                                                              \
            for (int q = 0; q < 4; q++) gp[t[k].i[q]] += (T)(t[k].w[q] * g);                              \
        }                                                                                                 \
      }                                                                                                   \
      free(rt.t);                                                                                         \
    }                                                                                                     \
    if (gc) pd_tensor_release(gc);                                                                        \
    free(geo);                                                                                            \
    free(bx);                                                                                             \
    free(ids);                                                                                            \
    return st;                                                                                            \
  }

/* ---------------------------------------------------------------- roi_pool */
static double c_round(double v) { return round(v); } /* halves away from zero, as C's round */

/* Bin [hs, he) x [ws, we) of output (py, px) of a box (Paddle's float32 bin sizes). */
static void pool_bin(const double *box, double ss, int64_t ph, int64_t pw, int64_t H, int64_t W, int64_t py,
                     int64_t px, int64_t *hs, int64_t *he, int64_t *ws, int64_t *we) {
  int64_t sw = (int64_t)c_round(box[0] * ss), sh = (int64_t)c_round(box[1] * ss);
  int64_t ew = (int64_t)c_round(box[2] * ss), eh = (int64_t)c_round(box[3] * ss);
  int64_t rh = eh - sh + 1 > 1 ? eh - sh + 1 : 1, rw = ew - sw + 1 > 1 ? ew - sw + 1 : 1;
  float bh = (float)rh / (float)ph, bw = (float)rw / (float)pw;
  int64_t a = (int64_t)floorf((float)py * bh) + sh, b = (int64_t)ceilf((float)(py + 1) * bh) + sh;
  int64_t c = (int64_t)floorf((float)px * bw) + sw, d = (int64_t)ceilf((float)(px + 1) * bw) + sw;
  *hs = a < 0 ? 0 : (a > H ? H : a);
  *he = b < 0 ? 0 : (b > H ? H : b);
  *ws = c < 0 ? 0 : (c > W ? W : c);
  *we = d < 0 ? 0 : (d > W ? W : d);
}

/* Finite and small enough for the integer bin arithmetic, before and after scaling. */
static int box_ok(const double *b, double ss) {
  for (int i = 0; i < 4; i++)
    if (!(fabs(b[i]) < 1e15) || !(fabs((fabs(b[i]) + 1.0) * ss) < 1e15)) return 0;
  return 1;
}
static pd_status check_boxes(const char *op, const double *bx, int64_t R, double ss) {
  for (int64_t r = 0; r < R; r++)
    if (!box_ok(bx + 4 * r, ss))
      return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                          "[%s] expected finite box coordinates below 1e15 (also after spatial_scale)", op);
  return PD_OK;
}

#define DEF_ROI_POOL(SUF, T)                                                                               \
  pd_status pd_kernel_roi_pool_##SUF(const void *args, pd_tensor **out, int n_out) {                      \
    const pd_roi_pool_args *a = (const pd_roi_pool_args *)args;                                           \
    double *bx;                                                                                           \
    int64_t *ids;                                                                                         \
    PD_TRY(load_rois("roi_pool", a->boxes, a->boxes_num, &bx, &ids));                                     \
    pd_tensor *xc = NULL;                                                                                 \
    pd_status st = pd_tensor_contiguous(a->x, &xc);                                                       \
    const int64_t R = a->boxes->shape[0], C = a->x->shape[1], H = a->x->shape[2], W = a->x->shape[3];     \
    const int64_t ph = a->pooled_height, pw = a->pooled_width;                                            \
    if (st == PD_OK) st = check_boxes("roi_pool", bx, R, a->spatial_scale);                               \
    if (st == PD_OK) {                                                                                    \
      const T *x = (const T *)pd_tensor_data(xc);                                                         \
      T *y = (T *)pd_tensor_data(out[0]);                                                                 \
      int64_t *am = (int64_t *)pd_tensor_data(out[1]);                                                    \
      _Pragma("omp parallel for schedule(dynamic) if (R > 1 && R * C * ph * pw > 4096)")                 \
      for (int64_t r = 0; r < R; r++)                                                                     \
        for (int64_t py = 0; py < ph; py++)                                                               \
          for (int64_t px = 0; px < pw; px++) {                                                           \
            int64_t hs, he, ws, we;                                                                       \
            pool_bin(bx + 4 * r, a->spatial_scale, ph, pw, H, W, py, px, &hs, &he, &ws, &we);             \
            for (int64_t c = 0; c < C; c++) {                                                             \
              const T *xp = x + (ids[r] * C + c) * H * W;                                                 \
              const int64_t o = ((r * C + c) * ph + py) * pw + px;                                        \
              T best = 0;                                                                                 \
              int64_t bi = -1;                                                                            \
              for (int64_t h = hs; h < he; h++)                                                           \
                for (int64_t w = ws; w < we; w++)                                                         \
                  if (bi < 0 || xp[h * W + w] > best) {                                                   \
                    best = xp[h * W + w];                                                                 \
                    bi = h * W + w;                                                                       \
                  }                                                                                       \
              y[o] = best;                                                                                \
              am[o] = bi;                                                                                 \
            }                                                                                             \
          }                                                                                               \
    }                                                                                                     \
    if (xc) pd_tensor_release(xc);                                                                        \
    free(bx);                                                                                             \
    free(ids);                                                                                            \
    return st;                                                                                            \
  }

#define DEF_ROI_POOL_GRAD(SUF, T)                                                                          \
  pd_status pd_kernel_roi_pool_grad_##SUF(const void *args, pd_tensor **out, int n_out) {                 \
    const pd_roi_pool_grad_args *a = (const pd_roi_pool_grad_args *)args;                                 \
    const char *op = "roi_pool_grad";                                                                     \
    const int64_t R = a->arg_max->shape[0], C = a->x_shape.data[1];                                       \
    const int64_t HW = a->x_shape.data[2] * a->x_shape.data[3], P = a->arg_max->shape[2] * a->arg_max->shape[3]; \
    int64_t *ids;                                                                                         \
    PD_TRY(pd_vision_batch_ids(op, a->boxes_num, R, &ids));                                               \
    pd_tensor *gc = NULL, *mc = NULL;                                                                     \
    pd_status st = pd_tensor_contiguous(a->out_grad, &gc);                                                \
    if (st == PD_OK) st = pd_tensor_contiguous(a->arg_max, &mc);                                          \
    T *gx = (T *)pd_tensor_data(out[0]);                                                                  \
    memset(gx, 0, sizeof(T) * (size_t)out[0]->numel);                                                     \
    if (st == PD_OK) {                                                                                    \
      const T *dy = (const T *)pd_tensor_data(gc);                                                        \
      const int64_t *am = (const int64_t *)pd_tensor_data(mc);                                            \
      for (int64_t i = 0; i < mc->numel; i++)                                                             \
        if (am[i] < -1 || am[i] >= HW) {                                                                  \
          st = pd_set_error(PD_ERR_OUT_OF_RANGE, "[%s] arg_max %lld is out of range [-1, %lld)", op,      \
                            (long long)am[i], (long long)HW);                                             \
          break;                                                                                          \
        }                                                                                                 \
      if (st == PD_OK) {                                                                                  \
        _Pragma("omp parallel for if (R * C * P > 32768)")                                                \
        for (int64_t c = 0; c < C; c++)                                                                   \
          for (int64_t r = 0; r < R; r++) {                                                               \
            T *gp = gx + (ids[r] * C + c) * HW;                                                           \
            const int64_t o = (r * C + c) * P;                                                            \
            for (int64_t k = 0; k < P; k++)                                                               \
              if (am[o + k] >= 0) gp[am[o + k]] += dy[o + k];                                             \
          }                                                                                               \
      }                                                                                                   \
    }                                                                                                     \
    if (gc) pd_tensor_release(gc);                                                                        \
    if (mc) pd_tensor_release(mc);                                                                        \
    free(ids);                                                                                            \
    return st;                                                                                            \
  }

/* ---------------------------------------------------------------- psroi_pool */
static void ps_bin(const double *box, double ss, int64_t ph, int64_t pw, int64_t H, int64_t W, int64_t py,
                   int64_t px, int64_t *hs, int64_t *he, int64_t *ws, int64_t *we) {
  double sw = c_round(box[0]) * ss, sh = c_round(box[1]) * ss;
  double ew = (c_round(box[2]) + 1.0) * ss, eh = (c_round(box[3]) + 1.0) * ss;
  double rh = eh - sh > 0.1 ? eh - sh : 0.1, rw = ew - sw > 0.1 ? ew - sw : 0.1;
  double bh = rh / (double)ph, bw = rw / (double)pw;
  int64_t a = (int64_t)floor((double)py * bh + sh), c = (int64_t)floor((double)px * bw + sw);
  int64_t b = (int64_t)ceil((double)(py + 1) * bh + sh), d = (int64_t)ceil((double)(px + 1) * bw + sw);
  *hs = a < 0 ? 0 : (a > H ? H : a);
  *he = b < 0 ? 0 : (b > H ? H : b);
  *ws = c < 0 ? 0 : (c > W ? W : c);
  *we = d < 0 ? 0 : (d > W ? W : d);
}

#define DEF_PSROI(SUF, T)                                                                                  \
  pd_status pd_kernel_psroi_pool_##SUF(const void *args, pd_tensor **out, int n_out) {                    \
    const pd_psroi_pool_args *a = (const pd_psroi_pool_args *)args;                                       \
    double *bx;                                                                                           \
    int64_t *ids;                                                                                         \
    PD_TRY(load_rois("psroi_pool", a->boxes, a->boxes_num, &bx, &ids));                                   \
    pd_tensor *xc = NULL;                                                                                 \
    pd_status st = pd_tensor_contiguous(a->x, &xc);                                                       \
    const int64_t R = a->boxes->shape[0], C = a->x->shape[1], H = a->x->shape[2], W = a->x->shape[3];     \
    const int64_t ph = a->pooled_height, pw = a->pooled_width, OC = a->output_channels;                   \
    if (st == PD_OK) st = check_boxes("psroi_pool", bx, R, a->spatial_scale);                             \
    if (st == PD_OK) {                                                                                    \
      const T *x = (const T *)pd_tensor_data(xc);                                                         \
      T *y = (T *)pd_tensor_data(out[0]);                                                                 \
      _Pragma("omp parallel for schedule(dynamic) if (R > 1 && R * OC * ph * pw > 4096)")                \
      for (int64_t r = 0; r < R; r++)                                                                     \
        for (int64_t py = 0; py < ph; py++)                                                               \
          for (int64_t px = 0; px < pw; px++) {                                                           \
            int64_t hs, he, ws, we;                                                                       \
            ps_bin(bx + 4 * r, a->spatial_scale, ph, pw, H, W, py, px, &hs, &he, &ws, &we);               \
            const double area = (double)((he - hs) * (we - ws));                                          \
            for (int64_t c = 0; c < OC; c++) {                                                            \
              const T *xp = x + (ids[r] * C + (c * ph + py) * pw + px) * H * W;                           \
              double acc = 0;                                                                             \
              for (int64_t h = hs; h < he; h++)                                                           \
                for (int64_t w = ws; w < we; w++) acc += xp[h * W + w];                                   \
              y[((r * OC + c) * ph + py) * pw + px] = (he <= hs || we <= ws) ? (T)0 : (T)(acc / area);    \
            }                                                                                             \
          }                                                                                               \
    }                                                                                                     \
    if (xc) pd_tensor_release(xc);                                                                        \
    free(bx);                                                                                             \
    free(ids);                                                                                            \
    return st;                                                                                            \
  }

#define DEF_PSROI_GRAD(SUF, T)                                                                             \
  pd_status pd_kernel_psroi_pool_grad_##SUF(const void *args, pd_tensor **out, int n_out) {               \
    const pd_psroi_pool_grad_args *a = (const pd_psroi_pool_grad_args *)args;                             \
    double *bx;                                                                                           \
    int64_t *ids;                                                                                         \
    PD_TRY(load_rois("psroi_pool_grad", a->boxes, a->boxes_num, &bx, &ids));                              \
    pd_tensor *gc = NULL;                                                                                 \
    pd_status st = pd_tensor_contiguous(a->out_grad, &gc);                                                \
    const int64_t R = a->boxes->shape[0], C = a->x_shape.data[1], H = a->x_shape.data[2];                 \
    const int64_t W = a->x_shape.data[3], ph = a->pooled_height, pw = a->pooled_width;                    \
    const int64_t OC = a->output_channels;                                                                \
    if (st == PD_OK) st = check_boxes("psroi_pool_grad", bx, R, a->spatial_scale);                        \
    T *gx = (T *)pd_tensor_data(out[0]);                                                                  \
    memset(gx, 0, sizeof(T) * (size_t)out[0]->numel);                                                     \
    if (st == PD_OK) {                                                                                    \
      const T *dy = (const T *)pd_tensor_data(gc);                                                        \
      _Pragma("omp parallel for if (R * C > 256)")                                                        \
      for (int64_t ic = 0; ic < C; ic++) {                                                                \
        const int64_t c = ic / (ph * pw), py = (ic / pw) % ph, px = ic % pw;                              \
        for (int64_t r = 0; r < R; r++) {                                                                 \
          int64_t hs, he, ws, we;                                                                         \
          ps_bin(bx + 4 * r, a->spatial_scale, ph, pw, H, W, py, px, &hs, &he, &ws, &we);                 \
          if (he <= hs || we <= ws) continue;                                                             \
          const double g = (double)dy[((r * OC + c) * ph + py) * pw + px] / (double)((he - hs) * (we - ws)); \
          T *gp = gx + (ids[r] * C + ic) * H * W;                                                         \
          for (int64_t h = hs; h < he; h++)                                                               \
            for (int64_t w = ws; w < we; w++) gp[h * W + w] += (T)g;                                      \
        }                                                                                                 \
      }                                                                                                   \
    }                                                                                                     \
    if (gc) pd_tensor_release(gc);                                                                        \
    free(bx);                                                                                             \
    free(ids);                                                                                            \
    return st;                                                                                            \
  }

DEF_ROI_ALIGN(f32, float)
DEF_ROI_ALIGN(f64, double)
DEF_ROI_ALIGN_GRAD(f32, float)
DEF_ROI_ALIGN_GRAD(f64, double)
DEF_ROI_POOL(f32, float)
DEF_ROI_POOL(f64, double)
DEF_ROI_POOL_GRAD(f32, float)
DEF_ROI_POOL_GRAD(f64, double)
DEF_PSROI(f32, float)
DEF_PSROI(f64, double)
DEF_PSROI_GRAD(f32, float)
DEF_PSROI_GRAD(f64, double)
