/* CTC and beam-search kernels (ops/nn_extra.yaml). warpctc: the CTC loss of unnormalised
 * logits [T, B, C] (softmax taken inside, as warp-ctc does) against padded labels, with the
 * forward (alpha) recursion in log space in double; warpctc_grad adds the backward (beta)
 * recursion: d loss / d logits = softmax - occupancy / p, scaled by dloss (and 1 / length with
 * norm_by_times). Like warp-ctc, a sequence too short for its labels gets loss 0 and gradient 0.
 * gather_tree: backtracks beam-search parents from the last step. */
#include <stdlib.h>
#include "pd_kernel_util.h"

static inline double lse2(double a, double b) {
  if (a == -INFINITY) return b;
  if (b == -INFINITY) return a;
  return a > b ? a + log1p(exp(b - a)) : b + log1p(exp(a - b));
}

static int64_t ld_int(const void *p, pd_dtype dt, int64_t i) {
  return dt == PD_INT64 ? ((const int64_t *)p)[i] : (int64_t)((const int32_t *)p)[i];
}

typedef struct {
  int64_t Tmax, B, C, Lmax, blank;
  const void *lab, *tl, *ll;
  pd_dtype lab_dt, tl_dt, ll_dt;
} ctc_in;

/* Checks the lengths and labels of every sequence. */
static pd_status ctc_validate(const char *op, const ctc_in *c) {
  for (int64_t b = 0; b < c->B; b++) {
    int64_t T = ld_int(c->tl, c->tl_dt, b), L = ld_int(c->ll, c->ll_dt, b);
    if (T < 0 || T > c->Tmax)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                          "[%s] expected input_lengths in [0, %lld] (max_logit_length), received "
                          "%lld for sequence %lld", op, (long long)c->Tmax, (long long)T, (long long)b);
    if (L < 0 || L > c->Lmax)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                          "[%s] expected label_lengths in [0, %lld] (max_label_length), received "
                          "%lld for sequence %lld", op, (long long)c->Lmax, (long long)L, (long long)b);
    for (int64_t i = 0; i < L; i++) {
      int64_t v = ld_int(c->lab, c->lab_dt, b * c->Lmax + i);
      if (v < 0 || v >= c->C)
        return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                            "[%s] expected labels in [0, %lld), received %lld in sequence %lld", op,
                            (long long)c->C, (long long)v, (long long)b);
    }
  }
  return PD_OK;
}

/* One sequence. lp: [T][C] log-softmax (filled here from x), ext: [S] labels with blanks,
 * al/be: [T][S]. Returns the loss (0 when infeasible); with g != NULL writes the gradient rows
 * t < T (scaled by gs) through gw(t, k, value). */
typedef struct {
  double *lp, *al, *be, *acc;
  int64_t *ext;
} ctc_ws;

static double ctc_seq(const ctc_in *c, int64_t b, int64_t T, int64_t L, ctc_ws *w, int *feasible) {
  const int64_t C = c->C, S = 2 * L + 1;
  int64_t rep = 0;
  for (int64_t i = 0; i < L; i++) {
    w->ext[2 * i] = c->blank;
    w->ext[2 * i + 1] = ld_int(c->lab, c->lab_dt, b * c->Lmax + i);
    if (i > 0 && w->ext[2 * i + 1] == w->ext[2 * i - 1]) rep++;
  }
  w->ext[2 * L] = c->blank;
  *feasible = T > 0 && L + rep <= T;
  if (!*feasible) return 0;
  double *al = w->al, *lp = w->lp;
  const int64_t *ext = w->ext;
  for (int64_t s = 0; s < S; s++) al[s] = -INFINITY;
  al[0] = lp[ext[0]];
  if (S > 1) al[1] = lp[ext[1]];
  for (int64_t t = 1; t < T; t++) {
    const double *prev = al + (t - 1) * S, *l = lp + t * C;
    double *cur = al + t * S;
    for (int64_t s = 0; s < S; s++) {
      double a = prev[s];
      if (s >= 1) a = lse2(a, prev[s - 1]);
      if (s >= 2 && ext[s] != c->blank && ext[s] != ext[s - 2]) a = lse2(a, prev[s - 2]);
      cur[s] = a == -INFINITY ? a : a + l[ext[s]];
    }
  }
  double lp_all = al[(T - 1) * S + S - 1];
  if (S > 1) lp_all = lse2(lp_all, al[(T - 1) * S + S - 2]);
  if (lp_all == -INFINITY) {
    *feasible = 0;
    return 0;
  }
  return -lp_all;
}

/* Beta (log probability of the remaining emissions after t from state s, t's excluded) and the
 * gradient rows. */
static void ctc_grad_rows(const ctc_in *c, int64_t T, int64_t L, double loss, ctc_ws *w, double gs,
                          void *g, pd_dtype gdt, int64_t gstride) {
  const int64_t C = c->C, S = 2 * L + 1;
  double *be = w->be, *al = w->al, *lp = w->lp, *acc = w->acc;
  const int64_t *ext = w->ext;
  for (int64_t s = 0; s < S; s++) be[(T - 1) * S + s] = -INFINITY;
  be[(T - 1) * S + S - 1] = 0;
  if (S > 1) be[(T - 1) * S + S - 2] = 0;
  for (int64_t t = T - 2; t >= 0; t--) {
    const double *nx = be + (t + 1) * S, *l = lp + (t + 1) * C;
    double *cur = be + t * S;
    for (int64_t s = 0; s < S; s++) {
      double v = nx[s] == -INFINITY ? -INFINITY : nx[s] + l[ext[s]];
      if (s + 1 < S && nx[s + 1] != -INFINITY) v = lse2(v, nx[s + 1] + l[ext[s + 1]]);
      if (s + 2 < S && ext[s + 2] != c->blank && ext[s + 2] != ext[s] && nx[s + 2] != -INFINITY)
        v = lse2(v, nx[s + 2] + l[ext[s + 2]]);
      cur[s] = v;
    }
  }
  for (int64_t t = 0; t < T; t++) {
    for (int64_t k = 0; k < C; k++) acc[k] = -INFINITY;
    for (int64_t s = 0; s < S; s++) {
      double a = al[t * S + s], bb = be[t * S + s];
      if (a != -INFINITY && bb != -INFINITY) acc[ext[s]] = lse2(acc[ext[s]], a + bb);
    }
    char *row = (char *)g + t * gstride * (int64_t)pd_dtype_size(gdt);
    for (int64_t k = 0; k < C; k++) {
      double v = exp(lp[t * C + k]) - (acc[k] == -INFINITY ? 0.0 : exp(acc[k] + loss));
      pd_store_from_double(row + k * (int64_t)pd_dtype_size(gdt), gdt, v * gs);
    }
  }
}

/* log-softmax of the T rows of sequence b into w->lp */
#define CTC_LOGSOFTMAX(T_, X, b, T, C, B, lp)                                                    \
  for (int64_t t = 0; t < (T); t++) {                                                           \
    const T_ *r = (X) + (t * (B) + (b)) * (C);                                                  \
    double m = (double)r[0], sum = 0;                                                           \
    for (int64_t k = 1; k < (C); k++) m = (double)r[k] > m ? (double)r[k] : m;                  \
    for (int64_t k = 0; k < (C); k++) sum += exp((double)r[k] - m);                             \
    const double ls = m + log(sum);                                                             \
    for (int64_t k = 0; k < (C); k++) (lp)[t * (C) + k] = (double)r[k] - ls;                    \
  }

static pd_status ctc_ws_alloc(ctc_ws *w, int64_t Tmax, int64_t C, int64_t Lmax) {
  int64_t S = 2 * Lmax + 1, T = Tmax > 0 ? Tmax : 1;
  w->lp = (double *)malloc(sizeof(double) * (size_t)(T * C));
  w->al = (double *)malloc(sizeof(double) * (size_t)(T * S));
  w->be = (double *)malloc(sizeof(double) * (size_t)(T * S));
  w->acc = (double *)malloc(sizeof(double) * (size_t)C);
  w->ext = (int64_t *)malloc(sizeof(int64_t) * (size_t)S);
  if (!w->lp || !w->al || !w->be || !w->acc || !w->ext) return PD_ERR_RESOURCE_EXHAUSTED;
  return PD_OK;
}
static void ctc_ws_free(ctc_ws *w) {
  free(w->lp);
  free(w->al);
  free(w->be);
  free(w->acc);
  free(w->ext);
}

static pd_status ctc_prepare(const char *op, pd_tensor **in, pd_tensor **cc, int k, int64_t blank,
                             ctc_in *c) {
  for (int i = 0; i < k; i++) cc[i] = NULL;
  for (int i = 0; i < k; i++) {
    pd_status s = pd_tensor_contiguous(in[i], &cc[i]);
    if (s != PD_OK) {
      for (int j = 0; j < i; j++) pd_tensor_release(cc[j]);
      return s;
    }
  }
  c->Tmax = cc[0]->shape[0];
  c->B = cc[0]->shape[1];
  c->C = cc[0]->shape[2];
  c->Lmax = cc[1]->shape[1];
  c->blank = blank;
  c->lab = pd_tensor_data(cc[1]);
  c->lab_dt = cc[1]->dtype;
  c->tl = pd_tensor_data(cc[2]);
  c->tl_dt = cc[2]->dtype;
  c->ll = pd_tensor_data(cc[3]);
  c->ll_dt = cc[3]->dtype;
  pd_status s = ctc_validate(op, c);
  if (s != PD_OK)
    for (int j = 0; j < k; j++) pd_tensor_release(cc[j]);
  return s;
}

#define CTC_DEF(SUF, T_)                                                                        \
  pd_status pd_kernel_warpctc_##SUF(const void *args, pd_tensor **out, int n_out) {             \
    (void)n_out;                                                                                \
    const pd_warpctc_args *A = (const pd_warpctc_args *)args;                                   \
    pd_tensor *in[4] = {A->logits, A->label, A->logits_length, A->labels_length}, *cc[4];       \
    ctc_in c;                                                                                   \
    PD_TRY(ctc_prepare("warpctc", in, cc, 4, A->blank, &c));                                    \
    const T_ *x = (const T_ *)pd_tensor_data(cc[0]);                                            \
    T_ *loss = (T_ *)pd_tensor_data(out[0]);                                                    \
    int oom = 0;                                                                                \
    _Pragma("omp parallel reduction(|| : oom) if (c.B > 1)")                                    \
    {                                                                                           \
      ctc_ws w;                                                                                 \
      if (ctc_ws_alloc(&w, c.Tmax, c.C, c.Lmax) != PD_OK) oom = 1;                              \
      _Pragma("omp for schedule(dynamic)")                                                      \
      for (int64_t b = 0; b < c.B; b++) {                                                       \
        if (oom) continue;                                                                      \
        int64_t T = ld_int(c.tl, c.tl_dt, b), L = ld_int(c.ll, c.ll_dt, b);                     \
        CTC_LOGSOFTMAX(T_, x, b, T, c.C, c.B, w.lp)                                             \
        int feas;                                                                               \
        loss[b] = (T_)ctc_seq(&c, b, T, L, &w, &feas);                                          \
      }                                                                                         \
      ctc_ws_free(&w);                                                                          \
    }                                                                                           \
    for (int j = 0; j < 4; j++) pd_tensor_release(cc[j]);                                      \
    if (oom) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[warpctc] out of memory");         \
    return PD_OK;                                                                               \
  }                                                                                             \
  pd_status pd_kernel_warpctc_grad_##SUF(const void *args, pd_tensor **out, int n_out) {        \
    (void)n_out;                                                                                \
    const pd_warpctc_grad_args *A = (const pd_warpctc_grad_args *)args;                         \
    pd_tensor *in[5] = {A->logits, A->label, A->logits_length, A->labels_length, A->dloss}, *cc[5]; \
    ctc_in c;                                                                                   \
    PD_TRY(ctc_prepare("warpctc_grad", in, cc, 5, A->blank, &c));                               \
    pd_status st = pd_tensor_fill_(out[0], 0, 0);                                               \
    if (st != PD_OK) {                                                                          \
      for (int j = 0; j < 5; j++) pd_tensor_release(cc[j]);                                     \
      return st;                                                                                \
    }                                                                                           \
    const T_ *x = (const T_ *)pd_tensor_data(cc[0]), *dl = (const T_ *)pd_tensor_data(cc[4]);   \
    T_ *g = (T_ *)pd_tensor_data(out[0]);                                                       \
    const int norm = A->norm_by_times;                                                          \
    int oom = 0;                                                                                \
    _Pragma("omp parallel reduction(|| : oom) if (c.B > 1)")                                    \
    {                                                                                           \
      ctc_ws w;                                                                                 \
      if (ctc_ws_alloc(&w, c.Tmax, c.C, c.Lmax) != PD_OK) oom = 1;                              \
      _Pragma("omp for schedule(dynamic)")                                                      \
      for (int64_t b = 0; b < c.B; b++) {                                                       \
        if (oom) continue;                                                                      \
        int64_t T = ld_int(c.tl, c.tl_dt, b), L = ld_int(c.ll, c.ll_dt, b);                     \
        CTC_LOGSOFTMAX(T_, x, b, T, c.C, c.B, w.lp)                                             \
        int feas;                                                                               \
        double loss = ctc_seq(&c, b, T, L, &w, &feas);                                          \
        if (!feas) continue;                                                                    \
        double gs = (double)dl[b] / (norm ? (double)T : 1.0);                                   \
        ctc_grad_rows(&c, T, L, loss, &w, gs, g + b * c.C, out[0]->dtype, c.B * c.C);           \
      }                                                                                         \
      ctc_ws_free(&w);                                                                          \
    }                                                                                           \
    for (int j = 0; j < 5; j++) pd_tensor_release(cc[j]);                                      \
    if (oom) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[warpctc_grad] out of memory");    \
    return PD_OK;                                                                               \
  }

CTC_DEF(f32, float)
CTC_DEF(f64, double)

/* ---- gather_tree ---- */
#define GT_DEF(SUF, T_)                                                                         \
  pd_status pd_kernel_gather_tree_##SUF(const void *args, pd_tensor **out, int n_out) {         \
    (void)n_out;                                                                                \
    const pd_gather_tree_args *A = (const pd_gather_tree_args *)args;                           \
    pd_tensor *ids_c, *par_c;                                                                   \
    PD_TRY(pd_tensor_contiguous(A->ids, &ids_c));                                               \
    pd_status st = pd_tensor_contiguous(A->parents, &par_c);                                    \
    if (st != PD_OK) {                                                                          \
      pd_tensor_release(ids_c);                                                                 \
      return st;                                                                                \
    }                                                                                           \
    const int64_t Tn = ids_c->shape[0], B = ids_c->shape[1], W = ids_c->shape[2];               \
    const T_ *ids = (const T_ *)pd_tensor_data(ids_c), *par = (const T_ *)pd_tensor_data(par_c); \
    T_ *o = (T_ *)pd_tensor_data(out[0]);                                                       \
    int64_t bad = -1, bad_v = 0;                                                                \
    for (int64_t b = 0; b < B && bad < 0 && Tn > 0; b++)                                        \
      for (int64_t k = 0; k < W && bad < 0; k++) {                                              \
        int64_t i = ((Tn - 1) * B + b) * W + k;                                                 \
        o[i] = ids[i];                                                                          \
        int64_t p = (int64_t)par[i];                                                            \
        for (int64_t t = Tn - 2; t >= 0; t--) {                                                 \
          if (p < 0 || p >= W) {                                                                \
            bad = t + 1;                                                                        \
            bad_v = p;                                                                          \
            break;                                                                              \
          }                                                                                     \
          int64_t base = (t * B + b) * W;                                                       \
          o[base + k] = ids[base + p];                                                          \
          p = (int64_t)par[base + p];                                                           \
        }                                                                                       \
      }                                                                                         \
    pd_tensor_release(ids_c);                                                                   \
    pd_tensor_release(par_c);                                                                   \
    if (bad >= 0)                                                                               \
      return pd_set_error(PD_ERR_INVALID_ARGUMENT,                                              \
                          "[gather_tree] expected parents in [0, beam_size=%lld), received %lld " \
                          "at step %lld", (long long)W, (long long)bad_v, (long long)bad);      \
    return PD_OK;                                                                               \
  }

GT_DEF(i32, int32_t)
GT_DEF(i64, int64_t)
