/* multiclass_nms3 (ops/vision.yaml), Paddle's detection post-processing: per image and class
 * (background skipped), the boxes scoring above score_threshold, best first (stable), at most
 * nms_top_k, greedily suppressed by IoU > an adaptive threshold (times nms_eta while above 0.5);
 * then at most keep_top_k per image by score (stable). Out rows [label, score, box...] by class,
 * Index the row of each box in the flattened input, NmsRoisNum the rows per image. Scores
 * [N, C, M] with boxes [N, M, 4], or scores [M, C] with boxes [M, C, 4] and rois_num per image.
 * IoU in the input's precision (float32 as Paddle); normalized = false adds 1 to widths. */
#include <stdlib.h>
#include <string.h>
#include "vision_util.h"

typedef struct {
  double score;
  int label, idx;
} cand;

/* stable descending sort by score (insertion into a merge buffer) */
static void sort_desc(cand *v, int n, cand *tmp) {
  for (int w = 1; w < n; w *= 2)
    for (int lo = 0; lo < n; lo += 2 * w) {
      int mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n, i = lo, j = mid, k = lo;
      while (i < mid && j < hi) tmp[k++] = v[j].score > v[i].score ? v[j++] : v[i++];
      while (i < mid) tmp[k++] = v[i++];
      while (j < hi) tmp[k++] = v[j++];
      for (k = lo; k < hi; k++) v[k] = tmp[k];
    }
}

static int cmp_idx(const void *a, const void *b) {
  const cand *x = (const cand *)a, *y = (const cand *)b;
  return x->idx - y->idx;
}

#define DEFINE_IOU(T)                                                                              \
  static T area_##T(const T *b, int norm) {                                                         \
    if (b[2] < b[0] || b[3] < b[1]) return (T)0;                                                    \
    T w = b[2] - b[0], h = b[3] - b[1];                                                             \
    return norm ? w * h : (w + 1) * (h + 1);                                                        \
  }                                                                                                 \
  static T iou_##T(const T *a, const T *b, int norm) {                                              \
    if (b[0] > a[2] || b[2] < a[0] || b[1] > a[3] || b[3] < a[1]) return (T)0;                     \
    T x0 = a[0] > b[0] ? a[0] : b[0], y0 = a[1] > b[1] ? a[1] : b[1];                               \
    T x1 = a[2] < b[2] ? a[2] : b[2], y1 = a[3] < b[3] ? a[3] : b[3];                               \
    T off = norm ? (T)0 : (T)1;                                                                     \
    T inter = (x1 - x0 + off) * (y1 - y0 + off);                                                    \
    return inter / (area_##T(a, norm) + area_##T(b, norm) - inter);                                 \
  }
DEFINE_IOU(float)
DEFINE_IOU(double)

typedef struct {
  const pd_multiclass_nms3_args *a;
  int f64;
  const void *boxes;   /* this image: 3-D case [M, 4]; 2-D case [M, C, 4] */
  const void *scores;  /* 3-D case [C, M]; 2-D case [M, C] */
  int M, C, three_d;
  cand *buf, *tmp;
  float *bf;  /* boxes of one class as T, [M][4] */
  double *bd;
} nms_ctx;

static double score_at(const nms_ctx *x, int c, int i) {
  int64_t k = x->three_d ? (int64_t)c * x->M + i : (int64_t)i * x->C + c;
  return x->f64 ? ((const double *)x->scores)[k] : (double)((const float *)x->scores)[k];
}

static const void *box_at(const nms_ctx *x, int c, int i) {
  int64_t k = x->three_d ? (int64_t)i * 4 : ((int64_t)i * x->C + c) * 4;
  return x->f64 ? (const void *)((const double *)x->boxes + k) : (const void *)((const float *)x->boxes + k);
}

/* NMS of class c: selected (label c) appended to out; returns the count */
static int nms_class(nms_ctx *x, int c, cand *out) {
  const pd_multiclass_nms3_args *a = x->a;
  int n = 0;
  for (int i = 0; i < x->M; i++) {
    double s = score_at(x, c, i);
    int above = x->f64 ? s > a->score_threshold : (float)s > (float)a->score_threshold;
    if (above) x->buf[n++] = (cand){s, c, i};
  }
  sort_desc(x->buf, n, x->tmp);
  if (a->nms_top_k > -1 && a->nms_top_k < n) n = (int)a->nms_top_k;
  double thr = x->f64 ? a->nms_threshold : (double)(float)a->nms_threshold;
  double eta = x->f64 ? a->nms_eta : (double)(float)a->nms_eta;
  int kept = 0;
  for (int i = 0; i < n; i++) {
    const void *bi = box_at(x, c, x->buf[i].idx);
    int keep = 1;
    for (int j = 0; j < kept && keep; j++) {
      const void *bj = box_at(x, c, out[j].idx);
      double ov = x->f64 ? iou_double((const double *)bi, (const double *)bj, a->normalized)
                         : (double)iou_float((const float *)bi, (const float *)bj, a->normalized);
      keep = x->f64 ? ov <= thr : (float)ov <= (float)thr;
    }
    if (keep) {
      out[kept++] = x->buf[i];
      if (eta < 1 && thr > 0.5) thr = x->f64 ? thr * eta : (double)((float)thr * (float)eta);
    }
  }
  if (!x->three_d) qsort(out, (size_t)kept, sizeof(cand), cmp_idx);
  return kept;
}

/* the detections of one image into det (by class, then as selected); returns the count */
static int nms_image(nms_ctx *x, cand *det) {
  const pd_multiclass_nms3_args *a = x->a;
  int total = 0;
  for (int c = 0; c < x->C; c++) {
    if (c == a->background_label) continue;
    total += nms_class(x, c, det + total);
  }
  if (a->keep_top_k > -1 && total > a->keep_top_k) {
    for (int i = 0; i < total; i++) det[i].score = (double)(float)det[i].score; /* Paddle keeps float */
    sort_desc(det, total, x->tmp);
    total = (int)a->keep_top_k;
    /* regroup by class (ascending), each in the order it now has (by index for 2-D scores) */
    memcpy(x->tmp, det, sizeof(cand) * (size_t)total);
    int k = 0;
    for (int c = 0; c < x->C; c++) {
      int start = k;
      for (int i = 0; i < total; i++)
        if (x->tmp[i].label == c) det[k++] = x->tmp[i];
      if (!x->three_d) qsort(det + start, (size_t)(k - start), sizeof(cand), cmp_idx);
    }
  }
  for (int i = 0; i < total; i++) det[i].score = score_at(x, det[i].label, det[i].idx);
  return total;
}

pd_status pd_infer_multiclass_nms3(const void *args, pd_meta_list *out) {
  const pd_multiclass_nms3_args *a = (const pd_multiclass_nms3_args *)args;
  const pd_tensor *b = a->bboxes, *s = a->scores;
  if (b->dtype != PD_FLOAT32 && b->dtype != PD_FLOAT64)
    return pd_set_error(PD_ERR_TYPE, "[multiclass_nms3] expected float32 or float64 boxes");
  if (s->dtype != b->dtype) return pd_set_error(PD_ERR_TYPE, "[multiclass_nms3] scores and bboxes differ in dtype");
  if (!(b->ndim == 3 && (s->ndim == 3 || s->ndim == 2)))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[multiclass_nms3] expected bboxes [N, M, 4] with scores "
                        "[N, C, M], or bboxes [M, C, 4] with scores [M, C]");
  if (b->shape[2] != 4 && b->shape[2] >= 0)
    return pd_set_error(PD_ERR_UNIMPLEMENTED, "[multiclass_nms3] only 4-value boxes are supported, received %lld",
                        (long long)b->shape[2]);
  pd_meta *m = pd_meta_list_resize(out, 3);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  int64_t o[2] = {-1, 6}, idx[2] = {-1, 1}, n = s->ndim == 3 ? s->shape[0] : (a->rois_num ? a->rois_num->numel : 1);
  pd_meta_set(&m[0], b->dtype, 2, o);
  pd_meta_set(&m[1], PD_INT32, 2, idx);
  pd_meta_set(&m[2], PD_INT32, 1, &n);
  return PD_OK;
}

static pd_status nms3_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_multiclass_nms3_args *a = (const pd_multiclass_nms3_args *)args;
  const char *op = "multiclass_nms3";
  pd_tensor *b = a->bboxes, *s = a->scores;
  int f64 = b->dtype == PD_FLOAT64, three_d = s->ndim == 3;
  pd_tensor *bc = NULL, *sc = NULL;
  PD_TRY(pd_tensor_contiguous(b, &bc));
  pd_status st = pd_tensor_contiguous(s, &sc);
  int64_t nimg, *lod = NULL, C, Mtot;
  if (three_d) {
    nimg = s->shape[0], C = s->shape[1], Mtot = s->shape[2];
    if (st == PD_OK && (b->shape[0] != nimg || b->shape[1] != Mtot))
      st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] bboxes [N, M, 4] do not match scores [N, C, M]", op);
  } else {
    C = s->shape[1], Mtot = s->shape[0];
    nimg = a->rois_num ? a->rois_num->numel : 1;
    if (st == PD_OK && (b->shape[0] != Mtot || b->shape[1] != C))
      st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] bboxes [M, C, 4] do not match scores [M, C]", op);
    lod = (int64_t *)calloc((size_t)(nimg + 1), sizeof(int64_t));
    if (!lod && st == PD_OK) st = pd_vision_oom(op);
    if (st == PD_OK && a->rois_num) {
      int64_t *cnt = NULL;
      st = pd_vision_i64(op, a->rois_num, &cnt);
      for (int64_t i = 0; st == PD_OK && i < nimg; i++) lod[i + 1] = lod[i] + cnt[i];
      free(cnt);
      if (st == PD_OK && lod[nimg] != Mtot) st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] RoisNum does not sum to %lld", op, (long long)Mtot);
    } else if (lod) {
      lod[1] = Mtot;
    }
  }
  int64_t per = three_d ? C * Mtot : Mtot * C; /* candidate bound per image */
  cand *det = NULL, *all = NULL;
  int64_t *starts = (int64_t *)calloc((size_t)(nimg + 1), sizeof(int64_t));
  nms_ctx x;
  memset(&x, 0, sizeof x);
  x.a = a;
  x.f64 = f64;
  x.C = (int)C;
  x.three_d = three_d;
  if (st == PD_OK) {
    x.buf = (cand *)malloc(sizeof(cand) * (size_t)(Mtot + 1));
    x.tmp = (cand *)malloc(sizeof(cand) * (size_t)(per + 1));
    det = (cand *)malloc(sizeof(cand) * (size_t)(per + 1));
    all = (cand *)malloc(sizeof(cand) * (size_t)(per * (three_d ? nimg : 1) + 1));
    if (!x.buf || !x.tmp || !det || !all || !starts) st = pd_vision_oom(op);
  }
  size_t es = f64 ? 8 : 4;
  for (int64_t i = 0; st == PD_OK && i < nimg; i++) {
    int64_t r0 = three_d ? 0 : lod[i], r1 = three_d ? Mtot : lod[i + 1];
    x.M = (int)(r1 - r0);
    x.boxes = (const char *)bc->storage->data + (bc->offset + (three_d ? i * Mtot * 4 : r0 * C * 4)) * (int64_t)es;
    x.scores = (const char *)sc->storage->data + (sc->offset + (three_d ? i * C * Mtot : r0 * C)) * (int64_t)es;
    int k = x.M > 0 ? nms_image(&x, det) : 0;
    for (int j = 0; j < k; j++) {
      det[j].idx = (int)(three_d ? i * Mtot + det[j].idx : (r0 + det[j].idx) * C + det[j].label);
      /* the box row: kept in score slot order below through (image, row) */
    }
    memcpy(all + starts[i], det, sizeof(cand) * (size_t)k);
    starts[i + 1] = starts[i] + k;
  }
  int64_t kept = st == PD_OK ? starts[nimg] : 0;
  int64_t shp[2] = {kept, 6}, ishp[2] = {kept, 1};
  if (st == PD_OK) st = pd_tensor_empty(b->dtype, 2, shp, &out[0]);
  if (st == PD_OK) st = pd_tensor_empty(PD_INT32, 2, ishp, &out[1]);
  if (st == PD_OK && !out[2]) st = pd_tensor_empty(PD_INT32, 1, &nimg, &out[2]);
  if (st == PD_OK) {
    char *o = (char *)pd_tensor_data(out[0]);
    int32_t *oi = (int32_t *)pd_tensor_data(out[1]), *on = (int32_t *)pd_tensor_data(out[2]);
    const char *bb = (const char *)bc->storage->data + bc->offset * (int64_t)es;
    for (int64_t r = 0; r < kept; r++) {
      const cand *d = &all[r];
      /* the box: 3-D: row idx of [N*M, 4]; 2-D: (row, class) of [M, C, 4] = flat index idx */
      const char *box = bb + (int64_t)d->idx * 4 * (int64_t)es;
      double row[6] = {(double)d->label, d->score, 0, 0, 0, 0};
      for (int q = 0; q < 4; q++) row[2 + q] = f64 ? ((const double *)box)[q] : (double)((const float *)box)[q];
      for (int q = 0; q < 6; q++) {
        if (f64) ((double *)o)[r * 6 + q] = row[q];
        else ((float *)o)[r * 6 + q] = (float)row[q];
      }
      oi[r] = d->idx;
    }
    for (int64_t i = 0; i < nimg; i++) on[i] = (int32_t)(starts[i + 1] - starts[i]);
  }
  free(x.buf);
  free(x.tmp);
  free(det);
  free(all);
  free(starts);
  free(lod);
  pd_tensor_release(bc);
  pd_tensor_release(sc);
  return st;
}

pd_status pd_kernel_multiclass_nms3_f32(const void *args, pd_tensor **out, int n_out) { return nms3_impl(args, out, n_out); }
pd_status pd_kernel_multiclass_nms3_f64(const void *args, pd_tensor **out, int n_out) { return nms3_impl(args, out, n_out); }
