/* Sequence kernels that compute (ops/sequence.yaml): sequence_pool (AVERAGE/SUM/SQRT/MAX/LAST/
 * FIRST; empty sequences give pad_value), sequence_softmax, sequence_conv (= the context window
 * of every step, zeros outside its sequence, times the filter: sequence_context + GEMM),
 * sequence_scatter, row_conv (lookahead convolution), crf_decoding (Viterbi) and the gradients.
 * All compute in double on float64 working copies and cast into their outputs. */
#include <math.h>
#include "pd_gemm.h"
#include "sequence_util.h"

#define OOM() pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory")
#define D64(t) ((double *)pd_tensor_data(t))

/* ---------------------------------------------------------------- sequence_pool */
enum { P_AVG, P_SUM, P_SQRT, P_MAX, P_LAST, P_FIRST };
static int pool_kind(const char *s) {
  static const char *k[] = {"AVERAGE", "SUM", "SQRT", "MAX", "LAST", "FIRST"};
  for (int i = 0; i < 6; i++)
    if (s && strcmp(s, k[i]) == 0) return i;
  return P_AVG;
}

static pd_status sequence_pool_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_sequence_pool_args *a = (const pd_sequence_pool_args *)args;
  pd_seq s;
  PD_TRY(pd_seq_read("sequence_pool", "x", a->x_lod, a->x->shape[0], &s));
  int kind = pool_kind(a->pooltype);
  int64_t w = pd_seq_width(a->x), sh[PD_MAX_DIMS];
  memcpy(sh, a->x->shape, sizeof sh);
  sh[0] = s.n;
  pd_tensor *x = NULL, *o = NULL;
  pd_status st = pd_seq_f64(a->x, &x);
  if (st == PD_OK) st = pd_tensor_empty(PD_FLOAT64, a->x->ndim, sh, &o);
  if (st == PD_OK) st = pd_seq_out(out, 1, PD_INT32, a->x->ndim, sh);
  if (st == PD_OK) st = pd_seq_out(out, 0, a->x->dtype, a->x->ndim, sh);
  if (st == PD_OK && o->numel) {
    const double *xv = x->numel ? D64(x) : NULL;
    double *ov = D64(o);
    int32_t *idx = (int32_t *)pd_tensor_data(out[1]);
    for (int64_t i = 0; i < s.n; i++) {
      int64_t b = s.off[i], e = s.off[i + 1], L = e - b;
      for (int64_t j = 0; j < w; j++) {
        double v = a->pad_value;
        int32_t mi = kind == P_MAX && !L ? -1 : 0;
        if (L) switch (kind) {
            case P_LAST: v = xv[(e - 1) * w + j]; break;
            case P_FIRST: v = xv[b * w + j]; break;
            case P_MAX:
              v = xv[b * w + j];
              mi = (int32_t)b;
              for (int64_t r = b + 1; r < e; r++)
                if (xv[r * w + j] > v) v = xv[r * w + j], mi = (int32_t)r;
              break;
            default:
              v = 0;
              for (int64_t r = b; r < e; r++) v += xv[r * w + j];
              if (kind == P_AVG) v /= (double)L;
              else if (kind == P_SQRT) v /= sqrt((double)L);
          }
        ov[i * w + j] = v;
        idx[i * w + j] = mi;
      }
    }
  }
  if (st == PD_OK) st = pd_seq_store(&out[0], o, a->x->dtype);
  pd_seq_free(&s);
  pd_tensor_release(x);
  pd_tensor_release(o);
  return st;
}
PD_SEQ_K2(sequence_pool)

static pd_status sequence_pool_grad_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_sequence_pool_grad_args *a = (const pd_sequence_pool_grad_args *)args;
  pd_seq s;
  PD_TRY(pd_seq_read("sequence_pool_grad", "x", a->x_lod, a->x->shape[0], &s));
  int kind = pool_kind(a->pooltype);
  int64_t w = pd_seq_width(a->x);
  pd_tensor *d = NULL, *g = NULL;
  int64_t *mi = NULL, nmi = 0;
  pd_status st = pd_seq_f64(a->dout, &d);
  if (st == PD_OK && (a->dout->shape[0] != s.n || a->dout->numel != s.n * w))
    st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[sequence_pool_grad] expected dout of %lld rows of %lld elements",
                      (long long)s.n, (long long)w);
  if (st == PD_OK && kind == P_MAX) {
    st = pd_seq_ints(a->max_index, &mi, &nmi);
    if (st == PD_OK && nmi != s.n * w)
      st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[sequence_pool_grad] expected max_index with the shape of dout");
  }
  if (st == PD_OK) st = pd_tensor_zeros(PD_FLOAT64, a->x->ndim, a->x->shape, &g);
  if (st == PD_OK && g->numel) {
    const double *dv = d->numel ? D64(d) : NULL;
    double *gv = D64(g);
    for (int64_t i = 0; i < s.n && st == PD_OK; i++) {
      int64_t b = s.off[i], e = s.off[i + 1], L = e - b;
      if (!L) continue;
      for (int64_t j = 0; j < w; j++) {
        double v = dv[i * w + j];
        switch (kind) {
          case P_LAST: gv[(e - 1) * w + j] += v; break;
          case P_FIRST: gv[b * w + j] += v; break;
          case P_MAX: {
            int64_t r = mi[i * w + j];
            if (r < b || r >= e) {
              st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[sequence_pool_grad] max_index %lld is outside sequence "
                                "%lld's rows [%lld, %lld)", (long long)r, (long long)i, (long long)b, (long long)e);
              break;
            }
            gv[r * w + j] += v;
            break;
          }
          default: {
            double f = kind == P_AVG ? v / (double)L : kind == P_SQRT ? v / sqrt((double)L) : v;
            for (int64_t r = b; r < e; r++) gv[r * w + j] = f;
          }
        }
      }
    }
  }
  if (st == PD_OK) st = pd_seq_store(&out[0], g, a->dout->dtype);
  pd_seq_free(&s);
  free(mi);
  pd_tensor_release(d);
  pd_tensor_release(g);
  return st;
}
PD_SEQ_K2(sequence_pool_grad)

/* ---------------------------------------------------------------- sequence_softmax */
static pd_status softmax_check(const char *op, const pd_tensor *x) {
  if (x->numel != x->shape[0])
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected one element per step (x of shape [total_steps] or "
                        "[total_steps, 1]), received %lld elements in %lld rows", op, (long long)x->numel,
                        (long long)x->shape[0]);
  return PD_OK;
}

static pd_status sequence_softmax_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_sequence_softmax_args *a = (const pd_sequence_softmax_args *)args;
  PD_TRY(softmax_check("sequence_softmax", a->x));
  pd_seq s;
  PD_TRY(pd_seq_read("sequence_softmax", "x", a->x_lod, a->x->shape[0], &s));
  pd_tensor *x = NULL;
  pd_status st = pd_seq_f64(a->x, &x);
  if (st == PD_OK && x->numel) {
    double *v = D64(x); /* a private copy unless x was float64 and contiguous: write into a new one */
    pd_tensor *o;
    st = pd_tensor_empty(PD_FLOAT64, x->ndim, x->shape, &o);
    if (st == PD_OK) {
      double *ov = D64(o);
      for (int64_t i = 0; i < s.n; i++) {
        int64_t b = s.off[i], e = s.off[i + 1];
        if (b == e) continue;
        double m = v[b], sum = 0;
        for (int64_t r = b + 1; r < e; r++) m = v[r] > m ? v[r] : m;
        for (int64_t r = b; r < e; r++) sum += ov[r] = exp(v[r] - m);
        for (int64_t r = b; r < e; r++) ov[r] /= sum;
      }
      st = pd_seq_store(&out[0], o, a->x->dtype);
      pd_tensor_release(o);
    }
  }
  pd_seq_free(&s);
  pd_tensor_release(x);
  return st;
}
PD_SEQ_K2(sequence_softmax)

static pd_status sequence_softmax_grad_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_sequence_softmax_grad_args *a = (const pd_sequence_softmax_grad_args *)args;
  PD_TRY(softmax_check("sequence_softmax_grad", a->out));
  pd_seq s;
  PD_TRY(pd_seq_read("sequence_softmax_grad", "out", a->x_lod, a->out->shape[0], &s));
  pd_tensor *y = NULL, *d = NULL, *g = NULL;
  pd_status st = pd_seq_f64(a->out, &y);
  if (st == PD_OK) st = pd_seq_f64(a->dout, &d);
  if (st == PD_OK) st = pd_tensor_empty(PD_FLOAT64, a->out->ndim, a->out->shape, &g);
  if (st == PD_OK && g->numel) {
    const double *yv = D64(y), *dv = D64(d);
    double *gv = D64(g);
    for (int64_t i = 0; i < s.n; i++) {
      double dot = 0;
      for (int64_t r = s.off[i]; r < s.off[i + 1]; r++) dot += yv[r] * dv[r];
      for (int64_t r = s.off[i]; r < s.off[i + 1]; r++) gv[r] = yv[r] * (dv[r] - dot);
    }
  }
  if (st == PD_OK) st = pd_seq_store(&out[0], g, a->dout->dtype);
  pd_seq_free(&s);
  pd_tensor_release(y);
  pd_tensor_release(d);
  pd_tensor_release(g);
  return st;
}
PD_SEQ_K2(sequence_softmax_grad)

/* ---------------------------------------------------------------- context windows */
/* col[t, j * D + d] = x[t + start + j, d] inside t's sequence, else 0 (dir 0); the transpose,
 * dx[t + start + j, d] += col[t, j * D + d] (dir 1) */
static void context_run(const pd_seq *s, int64_t D, int64_t L, int64_t start, double *x, double *col, int dir) {
  for (int64_t i = 0; i < s->n; i++) {
    int64_t b = s->off[i], e = s->off[i + 1];
    for (int64_t t = b; t < e; t++)
      for (int64_t j = 0; j < L; j++) {
        int64_t src = t + start + j;
        double *c = col + (t * L + j) * D;
        if (src < b || src >= e) {
          if (!dir) memset(c, 0, sizeof(double) * (size_t)D);
          continue;
        }
        double *xr = x + src * D;
        if (dir)
          for (int64_t d = 0; d < D; d++) xr[d] += c[d];
        else
          memcpy(c, xr, sizeof(double) * (size_t)D);
      }
  }
}

/* col of x (float64 [N, L * D]), new reference */
static pd_status context_col(const char *op, pd_tensor *xt, const pd_tensor *lod, int64_t L, int64_t start,
                             pd_tensor **col, pd_seq *s) {
  PD_TRY(pd_seq_read(op, "x", lod, xt->shape[0], s));
  pd_tensor *x = NULL;
  int64_t sh[2] = {xt->shape[0], L * xt->shape[1]};
  pd_status st = pd_seq_f64(xt, &x);
  if (st == PD_OK) st = pd_tensor_empty(PD_FLOAT64, 2, sh, col);
  if (st == PD_OK && (*col)->numel) context_run(s, xt->shape[1], L, start, D64(x), D64(*col), 0);
  pd_tensor_release(x);
  if (st != PD_OK) pd_seq_free(s);
  return st;
}

static pd_status sequence_context_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_sequence_context_args *a = (const pd_sequence_context_args *)args;
  pd_tensor *col;
  pd_seq s;
  PD_TRY(context_col("sequence_context", a->x, a->x_lod, a->context_length, a->context_start, &col, &s));
  pd_status st = pd_seq_store(&out[0], col, a->x->dtype);
  pd_seq_free(&s);
  pd_tensor_release(col);
  return st;
}
PD_SEQ_K2(sequence_context)

static pd_status sequence_context_grad_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_sequence_context_grad_args *a = (const pd_sequence_context_grad_args *)args;
  pd_seq s;
  PD_TRY(pd_seq_read("sequence_context_grad", "x", a->x_lod, a->x->shape[0], &s));
  pd_tensor *d = NULL, *g = NULL;
  int64_t D = a->x->shape[1], L = a->context_length;
  pd_status st = pd_seq_f64(a->dout, &d);
  if (st == PD_OK && (a->dout->shape[0] != a->x->shape[0] || a->dout->shape[1] != L * D))
    st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[sequence_context_grad] expected dout of shape [%lld, %lld]",
                      (long long)a->x->shape[0], (long long)(L * D));
  if (st == PD_OK) st = pd_tensor_zeros(PD_FLOAT64, 2, a->x->shape, &g);
  if (st == PD_OK && g->numel) context_run(&s, D, L, a->context_start, D64(g), D64(d), 1);
  if (st == PD_OK) st = pd_seq_store(&out[0], g, a->dout->dtype);
  pd_seq_free(&s);
  pd_tensor_release(d);
  pd_tensor_release(g);
  return st;
}
PD_SEQ_K2(sequence_context_grad)

static pd_status sequence_conv_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_sequence_conv_args *a = (const pd_sequence_conv_args *)args;
  pd_tensor *col, *f = NULL, *o = NULL;
  pd_seq s;
  PD_TRY(context_col("sequence_conv", a->x, a->x_lod, a->context_length, a->context_start, &col, &s));
  int64_t N = col->shape[0], K = col->shape[1], M = a->filter->shape[1];
  int64_t sh[2] = {N, M};
  pd_status st = pd_seq_f64(a->filter, &f);
  if (st == PD_OK) st = pd_tensor_zeros(PD_FLOAT64, 2, sh, &o);
  if (st == PD_OK && N > 0 && M > 0 && K > 0) pd_gemm(PD_FLOAT64, 0, 0, N, M, K, D64(col), K, D64(f), M, D64(o), M);
  if (st == PD_OK) st = pd_seq_store(&out[0], o, a->x->dtype);
  pd_seq_free(&s);
  pd_tensor_release(col);
  pd_tensor_release(f);
  pd_tensor_release(o);
  return st;
}
PD_SEQ_K2(sequence_conv)

/* ---------------------------------------------------------------- sequence_scatter */
static pd_status scatter_prep(const char *op, const pd_tensor *x_like_rows, int64_t M, const pd_tensor *ids,
                              const pd_tensor *lod, pd_seq *s, int64_t **iv) {
  int64_t n = 0;
  PD_TRY(pd_seq_read(op, "ids", lod, ids->ndim ? ids->shape[0] : 1, s));
  pd_status st = pd_seq_ints(ids, iv, &n);
  if (st == PD_OK && s->n != x_like_rows->shape[0])
    st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected one sequence of ids per row of x (%lld), received %lld",
                      op, (long long)x_like_rows->shape[0], (long long)s->n);
  if (st == PD_OK && n != s->off[s->n])
    st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected ids of shape [steps, 1]", op);
  for (int64_t j = 0; st == PD_OK && j < n; j++)
    if ((*iv)[j] < 0 || (*iv)[j] >= M)
      st = pd_set_error(PD_ERR_OUT_OF_RANGE, "[%s] id %lld is outside [0, %lld)", op, (long long)(*iv)[j], (long long)M);
  if (st != PD_OK) {
    pd_seq_free(s);
    free(*iv);
    *iv = NULL;
  }
  return st;
}

static pd_status sequence_scatter_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_sequence_scatter_args *a = (const pd_sequence_scatter_args *)args;
  pd_seq s;
  int64_t *iv, M = a->x->shape[1];
  PD_TRY(scatter_prep("sequence_scatter", a->x, M, a->ids, a->ids_lod, &s, &iv));
  pd_tensor *x = NULL, *u = NULL, *o = NULL;
  pd_status st = pd_seq_f64(a->x, &x);
  if (st == PD_OK) st = pd_seq_f64(a->updates, &u);
  if (st == PD_OK && u->numel != s.off[s.n])
    st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[sequence_scatter] expected one update per id");
  if (st == PD_OK) st = pd_tensor_clone(x, &o);
  if (st == PD_OK && o->numel) {
    double *ov = D64(o);
    const double *uv = u->numel ? D64(u) : NULL;
    for (int64_t i = 0; i < s.n; i++)
      for (int64_t j = s.off[i]; j < s.off[i + 1]; j++) ov[i * M + iv[j]] += uv[j];
  }
  if (st == PD_OK) st = pd_seq_store(&out[0], o, a->x->dtype);
  pd_seq_free(&s);
  free(iv);
  pd_tensor_release(x);
  pd_tensor_release(u);
  pd_tensor_release(o);
  return st;
}
PD_SEQ_K2(sequence_scatter)

static pd_status sequence_scatter_grad_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_sequence_scatter_grad_args *a = (const pd_sequence_scatter_grad_args *)args;
  pd_seq s;
  int64_t *iv, M = a->dout->ndim == 2 ? a->dout->shape[1] : 0;
  PD_TRY(scatter_prep("sequence_scatter_grad", a->dout, M, a->ids, a->ids_lod, &s, &iv));
  pd_tensor *d = NULL, *g = NULL;
  pd_status st = pd_seq_f64(a->dout, &d);
  if (st == PD_OK) st = pd_tensor_empty(PD_FLOAT64, a->ids->ndim, a->ids->shape, &g);
  if (st == PD_OK && g->numel) {
    const double *dv = D64(d);
    double *gv = D64(g);
    for (int64_t i = 0; i < s.n; i++)
      for (int64_t j = s.off[i]; j < s.off[i + 1]; j++) gv[j] = dv[i * M + iv[j]];
  }
  if (st == PD_OK) st = pd_seq_store(&out[0], g, a->dout->dtype);
  pd_seq_free(&s);
  free(iv);
  pd_tensor_release(d);
  pd_tensor_release(g);
  return st;
}
PD_SEQ_K2(sequence_scatter_grad)

/* ---------------------------------------------------------------- row_conv */
/* the sequences of x: its offsets, or [B, T, D] as B sequences of T steps */
static pd_status row_seqs(const char *op, const pd_tensor *x, const pd_tensor *lod, pd_seq *s) {
  if (lod) {
    if (x->ndim != 2)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected x of shape [total_steps, width] with a LoD", op);
    return pd_seq_read(op, "x", lod, x->shape[0], s);
  }
  if (x->ndim != 3)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] x carries no LoD: expected x of shape [batch, steps, width]", op);
  PD_TRY(pd_seq_rows(x->shape[0], s));
  for (int64_t i = 0; i <= s->n; i++) s->off[i] = i * x->shape[1];
  return PD_OK;
}

static pd_status row_conv_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_row_conv_args *a = (const pd_row_conv_args *)args;
  pd_seq s;
  PD_TRY(row_seqs("row_conv", a->x, a->x_lod, &s));
  pd_tensor *x = NULL, *f = NULL, *o = NULL;
  int64_t D = a->x->shape[a->x->ndim - 1], K = a->filter->shape[0];
  pd_status st = pd_seq_f64(a->x, &x);
  if (st == PD_OK) st = pd_seq_f64(a->filter, &f);
  if (st == PD_OK) st = pd_tensor_zeros(PD_FLOAT64, a->x->ndim, a->x->shape, &o);
  if (st == PD_OK && o->numel) {
    const double *xv = D64(x), *fv = K ? D64(f) : NULL;
    double *ov = D64(o);
    for (int64_t i = 0; i < s.n; i++)
      for (int64_t t = s.off[i]; t < s.off[i + 1]; t++)
        for (int64_t j = 0; j < K && t + j < s.off[i + 1]; j++)
          for (int64_t d = 0; d < D; d++) ov[t * D + d] += xv[(t + j) * D + d] * fv[j * D + d];
  }
  if (st == PD_OK) st = pd_seq_store(&out[0], o, a->x->dtype);
  pd_seq_free(&s);
  pd_tensor_release(x);
  pd_tensor_release(f);
  pd_tensor_release(o);
  return st;
}
PD_SEQ_K2(row_conv)

static pd_status row_conv_grad_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_row_conv_grad_args *a = (const pd_row_conv_grad_args *)args;
  pd_seq s;
  PD_TRY(row_seqs("row_conv_grad", a->x, a->x_lod, &s));
  pd_tensor *x = NULL, *f = NULL, *d = NULL, *gx = NULL, *gf = NULL;
  int64_t D = a->x->shape[a->x->ndim - 1], K = a->filter->shape[0];
  pd_status st = pd_seq_f64(a->x, &x);
  if (st == PD_OK) st = pd_seq_f64(a->filter, &f);
  if (st == PD_OK) st = pd_seq_f64(a->dout, &d);
  if (st == PD_OK) st = pd_tensor_zeros(PD_FLOAT64, a->x->ndim, a->x->shape, &gx);
  if (st == PD_OK) st = pd_tensor_zeros(PD_FLOAT64, a->filter->ndim, a->filter->shape, &gf);
  if (st == PD_OK && gx->numel && gf->numel) {
    const double *xv = D64(x), *fv = D64(f), *dv = D64(d);
    double *gxv = D64(gx), *gfv = D64(gf);
    for (int64_t i = 0; i < s.n; i++)
      for (int64_t t = s.off[i]; t < s.off[i + 1]; t++)
        for (int64_t j = 0; j < K && t + j < s.off[i + 1]; j++)
          for (int64_t dd = 0; dd < D; dd++) {
            gxv[(t + j) * D + dd] += dv[t * D + dd] * fv[j * D + dd];
            gfv[j * D + dd] += dv[t * D + dd] * xv[(t + j) * D + dd];
          }
  }
  if (st == PD_OK) st = pd_seq_store(&out[0], gx, a->x->dtype);
  if (st == PD_OK) st = pd_seq_store(&out[1], gf, a->x->dtype);
  pd_seq_free(&s);
  pd_tensor_release(x);
  pd_tensor_release(f);
  pd_tensor_release(d);
  pd_tensor_release(gx);
  pd_tensor_release(gf);
  return st;
}
PD_SEQ_K2(row_conv_grad)

/* ---------------------------------------------------------------- crf_decoding */
/* Viterbi over steps x[0..T) (rows of D scores) with transition w ([D + 2, D]: start, end, then
 * D x D); the best path into path[0..T) (first maximum on ties) */
static pd_status viterbi(const double *x, int64_t T, int64_t D, const double *w, int64_t *path) {
  if (T <= 0) return PD_OK;
  double *alpha = (double *)malloc(sizeof(double) * (size_t)(T * D));
  int64_t *track = (int64_t *)malloc(sizeof(int64_t) * (size_t)(T * D));
  if (!alpha || !track) {
    free(alpha);
    free(track);
    return OOM();
  }
  for (int64_t j = 0; j < D; j++) alpha[j] = w[j] + x[j];
  for (int64_t t = 1; t < T; t++)
    for (int64_t j = 0; j < D; j++) {
      double best = -INFINITY;
      int64_t bi = 0;
      for (int64_t i = 0; i < D; i++) {
        double v = alpha[(t - 1) * D + i] + w[(i + 2) * D + j];
        if (v > best) best = v, bi = i;
      }
      alpha[t * D + j] = best + x[t * D + j];
      track[t * D + j] = bi;
    }
  double best = -INFINITY;
  int64_t bj = 0;
  for (int64_t j = 0; j < D; j++) {
    double v = alpha[(T - 1) * D + j] + w[D + j];
    if (v > best) best = v, bj = j;
  }
  path[T - 1] = bj;
  for (int64_t t = T - 1; t > 0; t--) path[t - 1] = bj = track[t * D + bj];
  free(alpha);
  free(track);
  return PD_OK;
}

static pd_status crf_decoding_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_crf_decoding_args *a = (const pd_crf_decoding_args *)args;
  int padded = a->length != NULL;
  int64_t D = a->emission->shape[a->emission->ndim - 1];
  pd_seq s;
  pd_status st;
  if (padded) {
    int64_t *len = NULL, n = 0, B = a->emission->shape[0], T = a->emission->shape[1];
    PD_TRY(pd_seq_ints(a->length, &len, &n));
    st = n == B ? PD_OK : pd_set_error(PD_ERR_INVALID_ARGUMENT, "[crf_decoding] expected one length per batch row "
                                       "(%lld), received %lld", (long long)B, (long long)n);
    for (int64_t i = 0; st == PD_OK && i < B; i++)
      if (len[i] < 0 || len[i] > T)
        st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[crf_decoding] length %lld is outside [0, %lld]", (long long)len[i],
                          (long long)T);
    pd_tensor *x = NULL, *w = NULL;
    int64_t *lab = NULL, nl = 0;
    if (st == PD_OK) st = pd_seq_f64(a->emission, &x);
    if (st == PD_OK) st = pd_seq_f64(a->transition, &w);
    if (st == PD_OK && a->label) {
      st = pd_seq_ints(a->label, &lab, &nl);
      if (st == PD_OK && nl != B * T)
        st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[crf_decoding] expected label of shape [batch, steps]");
    }
    if (st == PD_OK && B > 0 && T > 0) {
      int64_t *o = (int64_t *)pd_tensor_data(out[0]);
      memset(o, 0, sizeof(int64_t) * (size_t)(B * T));
      for (int64_t i = 0; st == PD_OK && i < B; i++) st = viterbi(D64(x) + i * T * D, len[i], D, D64(w), o + i * T);
      for (int64_t i = 0; lab && i < B; i++)
        for (int64_t t = i * T; t < i * T + len[i]; t++) o[t] = o[t] == lab[t];
    }
    free(lab);
    free(len);
    pd_tensor_release(x);
    pd_tensor_release(w);
    return st;
  }
  PD_TRY(pd_seq_read("crf_decoding", "emission", a->emission_lod, a->emission->shape[0], &s));
  pd_tensor *x = NULL, *w = NULL;
  int64_t *lab = NULL, nl = 0;
  st = pd_seq_f64(a->emission, &x);
  if (st == PD_OK) st = pd_seq_f64(a->transition, &w);
  if (st == PD_OK && a->label) {
    st = pd_seq_ints(a->label, &lab, &nl);
    if (st == PD_OK && nl != s.off[s.n])
      st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[crf_decoding] expected one label per step (%lld), received %lld",
                        (long long)s.off[s.n], (long long)nl);
  }
  if (st == PD_OK) {
    int64_t *o = (int64_t *)pd_tensor_data(out[0]);
    for (int64_t i = 0; st == PD_OK && i < s.n; i++)
      st = viterbi(D64(x) + s.off[i] * D, s.off[i + 1] - s.off[i], D, D64(w), o + s.off[i]);
    for (int64_t t = 0; lab && st == PD_OK && t < s.off[s.n]; t++) o[t] = o[t] == lab[t];
  }
  free(lab);
  pd_seq_free(&s);
  pd_tensor_release(x);
  pd_tensor_release(w);
  return st;
}
PD_SEQ_K2(crf_decoding)
