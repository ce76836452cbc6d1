/* Metric kernels of static programs (ops/metric.yaml). auc: Paddle's auc op. Each row's
 * positive probability (the last column of predict) goes to bucket (uint32)(p * num_thresholds),
 * computed in predict's type as Paddle does, of the positive or negative statistics (updated in
 * place); the AUC is the trapezoid ROC area over the accumulated buckets, from the highest
 * threshold down, divided by #pos * #neg. With slide_steps > 0 the statistics hold slide_steps
 * rings of buckets, then their running sum, then a step counter (the sliding-window AUC). */
#include <string.h>
#include "pd_kernel_util.h"

static double trapezoid(double x1, double x2, double y1, double y2) {
  return (x1 > x2 ? x1 - x2 : x2 - x1) * (y1 + y2) / 2.0;
}

static double calc_auc(const int64_t *pos, const int64_t *neg, int64_t nt) {
  double auc = 0, tp = 0, tn = 0;
  for (int64_t i = nt; i >= 0; i--) {
    double pp = tp, pn = tn;
    tp += (double)pos[i];
    tn += (double)neg[i];
    auc += trapezoid(tn, pn, tp, pp);
  }
  if (tp > 0 && tn > 0) auc = auc / tp / tn;
  return auc;
}

static int64_t label_at(const pd_tensor *l, int64_t i) {
  const char *base = (const char *)pd_tensor_data(l);
  return l->dtype == PD_INT64 ? ((const int64_t *)base)[i] : ((const int32_t *)base)[i];
}

#define DEF_AUC(SUF, T)                                                                            \
  pd_status pd_kernel_auc_##SUF(const void *args, pd_tensor **out, int n_out) {                    \
    (void)n_out;                                                                                   \
    const pd_auc_args *a = (const pd_auc_args *)args;                                              \
    pd_tensor *pc = a->predict, *lc = a->label;                                                    \
    pd_status st = PD_OK;                                                                          \
    if (!pd_tensor_is_contiguous(pc)) PD_TRY(pd_tensor_contiguous(a->predict, &pc));               \
    if (!pd_tensor_is_contiguous(lc)) {                                                            \
      st = pd_tensor_contiguous(a->label, &lc);                                                    \
      if (st != PD_OK) {                                                                           \
        if (pc != a->predict) pd_tensor_release(pc);                                               \
        return st;                                                                                 \
      }                                                                                            \
    }                                                                                              \
    const int64_t nt = a->num_thresholds, slide = a->slide_steps, blen = nt + 1;                   \
    const int64_t rows = pc->shape[0], width = pc->shape[1];                                       \
    const T *p = (const T *)pd_tensor_data(pc);                                                    \
    int64_t *pos = (int64_t *)pd_tensor_data(a->stat_pos);                                         \
    int64_t *neg = (int64_t *)pd_tensor_data(a->stat_neg);                                         \
    int fake = 0;                                                                                  \
    if (a->ins_tag_weight)                                                                         \
      fake = pd_load_as_double(pd_tensor_data(a->ins_tag_weight), a->ins_tag_weight->dtype) == 0;  \
    for (int64_t i = 0; i < rows && st == PD_OK; i++) {                                            \
      T v = p[i * width + width - 1];                                                              \
      if (!(v >= (T)0 && v <= (T)1))                                                               \
        st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[auc] expected every probability in [0, 1], "  \
                          "row %lld has %g", (long long)i, (double)v);                             \
    }                                                                                              \
    if (st == PD_OK && !fake) {                                                                    \
      int64_t cur = 0, sum = slide * blen;                                                         \
      if (slide > 0) {                                                                             \
        cur = (pos[(slide + 1) * blen] % slide) * blen;                                            \
        for (int64_t k = 0; k < blen; k++) {                                                       \
          pos[sum + k] -= pos[cur + k];                                                            \
          neg[sum + k] -= neg[cur + k];                                                            \
        }                                                                                          \
        memset(pos + cur, 0, sizeof(int64_t) * (size_t)blen);                                      \
        memset(neg + cur, 0, sizeof(int64_t) * (size_t)blen);                                      \
      }                                                                                            \
      for (int64_t i = 0; i < rows; i++) {                                                         \
        uint32_t bin = (uint32_t)(p[i * width + width - 1] * (T)nt);                               \
        int64_t lab = label_at(lc, i);                                                             \
        if (lab > 0) pos[cur + bin] += 1;                                                          \
        else if (lab == 0) neg[cur + bin] += 1;                                                    \
      }                                                                                            \
      if (slide > 0)                                                                               \
        for (int64_t k = 0; k < blen; k++) {                                                       \
          pos[sum + k] += pos[cur + k];                                                            \
          neg[sum + k] += neg[cur + k];                                                            \
        }                                                                                          \
    }                                                                                              \
    if (st == PD_OK) {                                                                             \
      int64_t sum = slide * blen;                                                                  \
      *(double *)pd_tensor_data(out[0]) = calc_auc(pos + sum, neg + sum, nt);                      \
      if (slide > 0 && !fake) {                                                                    \
        pos[(slide + 1) * blen] += 1;                                                              \
        neg[(slide + 1) * blen] += 1;                                                              \
      }                                                                                            \
    }                                                                                              \
    if (pc != a->predict) pd_tensor_release(pc);                                                   \
    if (lc != a->label) pd_tensor_release(lc);                                                     \
    return st;                                                                                     \
  }
DEF_AUC(f32, float)
DEF_AUC(f64, double)
