/* Sequence kernels that move rows (ops/sequence.yaml): sequence_lod, concat, slice, expand,
 * expand_as, pad, unpad, reshape, reverse, enumerate, and the gradients that scatter rows back
 * (expand's and pad's sum in double). A sequence is rows [off[i], off[i + 1]) of its tensor;
 * rows are copied whole (any dtype), outputs whose row count depends on the offsets are made
 * here, and an output's offsets are written to its `<name>_lod` output. */
#include "sequence_util.h"

#define ROWB(t) ((size_t)pd_seq_width(t) * pd_dtype_size((t)->dtype))

/* ---------------------------------------------------------------- sequence_lod */
static pd_status sequence_lod_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_sequence_lod_args *a = (const pd_sequence_lod_args *)args;
  pd_seq s;
  int64_t rows = a->x->ndim ? a->x->shape[0] : 1;
  /* an outer level (x_lod_level set) indexes the next level, not rows */
  if (a->x_lod) PD_TRY(pd_seq_read("sequence_lod", "x", a->x_lod, a->x_lod_level == -1 ? rows : -1, &s));
  else PD_TRY(pd_seq_rows(rows, &s));
  pd_status st = pd_seq_off_tensor(s.off, s.n + 1, &out[0]);
  pd_seq_free(&s);
  return st;
}
pd_status pd_kernel_sequence_lod_bool(const void *a, pd_tensor **o, int n) { return sequence_lod_impl(a, o, n); }
PD_SEQ_K4(sequence_lod)

/* ---------------------------------------------------------------- sequence_concat */
/* the offsets of every input (x: their tensors for the row checks, or NULL) */
static pd_status read_lods(const char *op, const pd_tensor_list *x, const pd_tensor_list *lods, pd_seq *s) {
  for (int64_t k = 0; k < lods->n; k++) s[k].off = NULL;
  pd_status st = PD_OK;
  for (int64_t k = 0; st == PD_OK && k < lods->n; k++) {
    st = pd_seq_read(op, "x[i]", lods->data[k], x ? x->data[k]->shape[0] : -1, &s[k]);
    if (st == PD_OK && s[k].n != s[0].n)
      st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] input %lld holds %lld sequences, input 0 holds %lld", op,
                        (long long)k, (long long)s[k].n, (long long)s[0].n);
  }
  return st;
}

static pd_status sequence_concat_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_sequence_concat_args *a = (const pd_sequence_concat_args *)args;
  int64_t K = a->x.n;
  pd_seq *s = (pd_seq *)calloc((size_t)K, sizeof(pd_seq));
  pd_tensor **xc = (pd_tensor **)calloc((size_t)K, sizeof(pd_tensor *));
  int64_t *off = NULL;
  pd_status st = s && xc ? read_lods("sequence_concat", &a->x, &a->x_lod, s) : pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  for (int64_t k = 0; st == PD_OK && k < K; k++) st = pd_tensor_contiguous(a->x.data[k], &xc[k]);
  int64_t n = st == PD_OK ? s[0].n : 0, rows = 0;
  if (st == PD_OK) {
    off = (int64_t *)malloc(sizeof(int64_t) * (size_t)(n + 1));
    if (!off) st = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  }
  if (st == PD_OK) {
    off[0] = 0;
    for (int64_t i = 0; i < n; i++) {
      for (int64_t k = 0; k < K; k++) rows += s[k].off[i + 1] - s[k].off[i];
      off[i + 1] = rows;
    }
    int64_t sh[PD_MAX_DIMS];
    memcpy(sh, a->x.data[0]->shape, sizeof sh);
    sh[0] = rows;
    st = pd_seq_out(out, 0, a->x.data[0]->dtype, a->x.data[0]->ndim, sh);
  }
  if (st == PD_OK) {
    size_t rb = ROWB(a->x.data[0]);
    char *o = rows ? (char *)pd_tensor_data(out[0]) : NULL;
    for (int64_t i = 0; i < n; i++)
      for (int64_t k = 0; k < K; k++) {
        size_t nb = (size_t)(s[k].off[i + 1] - s[k].off[i]) * rb;
        if (nb) memcpy(o, (const char *)pd_tensor_data(xc[k]) + (size_t)s[k].off[i] * rb, nb);
        o += nb;
      }
    st = pd_seq_off_tensor(off, n + 1, &out[1]);
  }
  for (int64_t k = 0; s && k < K; k++) pd_seq_free(&s[k]);
  for (int64_t k = 0; xc && k < K; k++) pd_tensor_release(xc[k]);
  free(s);
  free(xc);
  free(off);
  return st;
}
PD_SEQ_K4(sequence_concat)

static pd_status sequence_concat_grad_impl(const void *args, pd_tensor **out, int n_out) {
  const pd_sequence_concat_grad_args *a = (const pd_sequence_concat_grad_args *)args;
  int64_t K = a->x_lod.n;
  pd_seq *s = (pd_seq *)calloc((size_t)(K ? K : 1), sizeof(pd_seq));
  if (!s) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  pd_tensor *dc = NULL;
  pd_status st = read_lods("sequence_concat_grad", NULL, &a->x_lod, s);
  if (st == PD_OK) st = pd_tensor_contiguous(a->dout, &dc);
  int64_t tot = 0;
  for (int64_t k = 0; st == PD_OK && k < K; k++) tot += s[k].off[s[k].n];
  if (st == PD_OK && tot != a->dout->shape[0])
    st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[sequence_concat_grad] the inputs hold %lld rows, dout %lld",
                      (long long)tot, (long long)a->dout->shape[0]);
  for (int64_t k = 0; st == PD_OK && k < K && k < n_out; k++) {
    int64_t sh[PD_MAX_DIMS];
    memcpy(sh, a->dout->shape, sizeof sh);
    sh[0] = s[k].off[s[k].n];
    st = pd_seq_out(out, (int)k, a->dout->dtype, a->dout->ndim, sh);
  }
  if (st == PD_OK) {
    size_t rb = ROWB(a->dout);
    const char *d = (const char *)pd_tensor_data(dc);
    for (int64_t i = 0; K && i < s[0].n; i++)
      for (int64_t k = 0; k < K; k++) {
        size_t nb = (size_t)(s[k].off[i + 1] - s[k].off[i]) * rb;
        if (nb) memcpy((char *)pd_tensor_data(out[k]) + (size_t)s[k].off[i] * rb, d, nb);
        d += nb;
      }
  }
  for (int64_t k = 0; k < K; k++) pd_seq_free(&s[k]);
  free(s);
  pd_tensor_release(dc);
  return st;
}
PD_SEQ_K2(sequence_concat_grad)

/* ---------------------------------------------------------------- sequence_slice */
/* the slices [begin_i, begin_i + len_i) of each sequence, checked */
static pd_status slice_ranges(const char *op, const pd_seq *s, const pd_tensor *offset, const pd_tensor *length,
                              int64_t **beg, int64_t **len) {
  int64_t no = 0, nl = 0;
  *beg = *len = NULL;
  PD_TRY(pd_seq_ints(offset, beg, &no));
  pd_status st = pd_seq_ints(length, len, &nl);
  if (st == PD_OK && (no != s->n || nl != s->n))
    st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected one offset and one length per sequence (%lld), "
                      "received %lld and %lld", op, (long long)s->n, (long long)no, (long long)nl);
  for (int64_t i = 0; st == PD_OK && i < s->n; i++) {
    int64_t L = s->off[i + 1] - s->off[i];
    if ((*beg)[i] < 0 || (*len)[i] < 0 || (*beg)[i] + (*len)[i] > L)
      st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] sequence %lld has %lld steps: offset %lld, length %lld "
                        "is out of range", op, (long long)i, (long long)L, (long long)(*beg)[i], (long long)(*len)[i]);
  }
  if (st != PD_OK) {
    free(*beg);
    free(*len);
    *beg = *len = NULL;
  }
  return st;
}

static pd_status sequence_slice_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_sequence_slice_args *a = (const pd_sequence_slice_args *)args;
  pd_seq s;
  PD_TRY(pd_seq_read("sequence_slice", "x", a->x_lod, a->x->shape[0], &s));
  int64_t *beg, *len, *off = NULL;
  pd_tensor *xc = NULL;
  pd_status st = slice_ranges("sequence_slice", &s, a->offset, a->length, &beg, &len);
  if (st == PD_OK) st = pd_tensor_contiguous(a->x, &xc);
  if (st == PD_OK && !(off = (int64_t *)malloc(sizeof(int64_t) * (size_t)(s.n + 1))))
    st = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  if (st == PD_OK) {
    off[0] = 0;
    for (int64_t i = 0; i < s.n; i++) off[i + 1] = off[i] + len[i];
    int64_t sh[PD_MAX_DIMS];
    memcpy(sh, a->x->shape, sizeof sh);
    sh[0] = off[s.n];
    st = pd_seq_out(out, 0, a->x->dtype, a->x->ndim, sh);
  }
  if (st == PD_OK) {
    size_t rb = ROWB(a->x);
    for (int64_t i = 0; i < s.n; i++)
      if (len[i])
        memcpy((char *)pd_tensor_data(out[0]) + (size_t)off[i] * rb,
               (const char *)pd_tensor_data(xc) + (size_t)(s.off[i] + beg[i]) * rb, (size_t)len[i] * rb);
    st = pd_seq_off_tensor(off, s.n + 1, &out[1]);
  }
  pd_seq_free(&s);
  free(beg);
  free(len);
  free(off);
  pd_tensor_release(xc);
  return st;
}
PD_SEQ_K4(sequence_slice)

static pd_status sequence_slice_grad_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_sequence_slice_grad_args *a = (const pd_sequence_slice_grad_args *)args;
  pd_seq s;
  PD_TRY(pd_seq_read("sequence_slice_grad", "x", a->x_lod, a->x->shape[0], &s));
  int64_t *beg, *len;
  pd_tensor *dc = NULL;
  pd_status st = slice_ranges("sequence_slice_grad", &s, a->offset, a->length, &beg, &len);
  if (st == PD_OK) st = pd_tensor_contiguous(a->dout, &dc);
  if (st == PD_OK) {
    size_t rb = ROWB(a->dout);
    if (out[0]->numel) memset(pd_tensor_data(out[0]), 0, (size_t)out[0]->numel * pd_dtype_size(out[0]->dtype));
    int64_t r = 0;
    for (int64_t i = 0; i < s.n; i++) {
      if (len[i])
        memcpy((char *)pd_tensor_data(out[0]) + (size_t)(s.off[i] + beg[i]) * rb,
               (const char *)pd_tensor_data(dc) + (size_t)r * rb, (size_t)len[i] * rb);
      r += len[i];
    }
  }
  pd_seq_free(&s);
  free(beg);
  free(len);
  pd_tensor_release(dc);
  return st;
}
PD_SEQ_K2(sequence_slice_grad)

/* ---------------------------------------------------------------- sequence_expand */
/* x's sequences (its offsets, or one row each) and y's reference level, checked together */
static pd_status expand_seqs(const char *op, const pd_tensor *x, const pd_tensor *x_lod, const pd_tensor *y_lod,
                             int64_t y_rows, pd_seq *xs, pd_seq *ys) {
  PD_TRY(pd_seq_read(op, "y", y_lod, y_rows, ys));
  pd_status st = x_lod ? pd_seq_read(op, "x", x_lod, x->shape[0], xs) : pd_seq_rows(x->shape[0], xs);
  if (st == PD_OK && xs->n != ys->n)
    st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] x holds %lld sequences (rows without a LoD) but the "
                      "referred LoD level of y holds %lld", op, (long long)xs->n, (long long)ys->n);
  if (st != PD_OK) {
    pd_seq_free(ys);
    pd_seq_free(xs);
  }
  return st;
}

static pd_status sequence_expand_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_sequence_expand_args *a = (const pd_sequence_expand_args *)args;
  pd_seq xs, ys;
  PD_TRY(expand_seqs("sequence_expand", a->x, a->x_lod, a->y_lod, -1, &xs, &ys));
  int64_t rows = 0, n = 0;
  for (int64_t i = 0; i < xs.n; i++) n += ys.off[i + 1] - ys.off[i];
  int64_t *off = (int64_t *)malloc(sizeof(int64_t) * (size_t)(n + 1));
  pd_tensor *xc = NULL;
  pd_status st = off ? pd_tensor_contiguous(a->x, &xc) : pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  if (st == PD_OK) {
    int64_t k = 0;
    off[0] = 0;
    for (int64_t i = 0; i < xs.n; i++)
      for (int64_t r = ys.off[i]; r < ys.off[i + 1]; r++) {
        rows += xs.off[i + 1] - xs.off[i];
        off[++k] = rows;
      }
    int64_t sh[PD_MAX_DIMS];
    memcpy(sh, a->x->shape, sizeof sh);
    sh[0] = rows;
    st = pd_seq_out(out, 0, a->x->dtype, a->x->ndim, sh);
  }
  if (st == PD_OK) {
    size_t rb = ROWB(a->x);
    char *o = rows ? (char *)pd_tensor_data(out[0]) : NULL;
    for (int64_t i = 0; i < xs.n; i++) {
      size_t nb = (size_t)(xs.off[i + 1] - xs.off[i]) * rb;
      for (int64_t r = ys.off[i]; r < ys.off[i + 1] && nb; r++) {
        memcpy(o, (const char *)pd_tensor_data(xc) + (size_t)xs.off[i] * rb, nb);
        o += nb;
      }
    }
    /* x without a LoD: the result has none either (Paddle's sequence_expand) */
    st = pd_seq_off_tensor(off, a->x_lod ? n + 1 : 0, &out[1]);
  }
  pd_seq_free(&xs);
  pd_seq_free(&ys);
  free(off);
  pd_tensor_release(xc);
  return st;
}
PD_SEQ_K4(sequence_expand)

static pd_status sequence_expand_grad_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_sequence_expand_grad_args *a = (const pd_sequence_expand_grad_args *)args;
  pd_seq xs, ys;
  PD_TRY(expand_seqs("sequence_expand_grad", a->x, a->x_lod, a->y_lod, -1, &xs, &ys));
  pd_tensor *d = NULL, *g = NULL;
  pd_status st = pd_seq_f64(a->dout, &d);
  if (st == PD_OK) st = pd_tensor_zeros(PD_FLOAT64, a->x->ndim, a->x->shape, &g);
  if (st == PD_OK) {
    int64_t w = pd_seq_width(a->x), r0 = 0;
    const double *dd = (const double *)pd_tensor_data(d);
    double *gg = g->numel ? (double *)pd_tensor_data(g) : NULL;
    for (int64_t i = 0; i < xs.n; i++) {
      int64_t L = xs.off[i + 1] - xs.off[i];
      for (int64_t r = ys.off[i]; r < ys.off[i + 1]; r++, r0 += L)
        for (int64_t j = 0; j < L * w; j++) gg[xs.off[i] * w + j] += dd[r0 * w + j];
    }
    if (r0 != a->dout->shape[0])
      st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[sequence_expand_grad] dout has %lld rows, the expansion %lld",
                        (long long)a->dout->shape[0], (long long)r0);
  }
  if (st == PD_OK) st = pd_seq_store(&out[0], g, a->dout->dtype);
  pd_seq_free(&xs);
  pd_seq_free(&ys);
  pd_tensor_release(d);
  pd_tensor_release(g);
  return st;
}
PD_SEQ_K2(sequence_expand_grad)

static pd_status sequence_expand_as_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_sequence_expand_as_args *a = (const pd_sequence_expand_as_args *)args;
  pd_seq xs, ys;
  PD_TRY(expand_seqs("sequence_expand_as", a->x, NULL, a->y_lod, a->y->shape[0], &xs, &ys));
  pd_tensor *xc = NULL;
  pd_status st = pd_tensor_contiguous(a->x, &xc);
  if (st == PD_OK) {
    int64_t sh[PD_MAX_DIMS];
    memcpy(sh, a->x->shape, sizeof sh);
    sh[0] = ys.off[ys.n];
    st = pd_seq_out(out, 0, a->x->dtype, a->x->ndim, sh);
  }
  if (st == PD_OK) {
    size_t rb = ROWB(a->x);
    for (int64_t i = 0; i < ys.n; i++)
      for (int64_t r = ys.off[i]; r < ys.off[i + 1]; r++)
        memcpy((char *)pd_tensor_data(out[0]) + (size_t)r * rb, (const char *)pd_tensor_data(xc) + (size_t)i * rb, rb);
    st = pd_seq_off_tensor(ys.off, ys.n + 1, &out[1]);
  }
  pd_seq_free(&xs);
  pd_seq_free(&ys);
  pd_tensor_release(xc);
  return st;
}
PD_SEQ_K4(sequence_expand_as)

/* ---------------------------------------------------------------- sequence_pad / unpad */
static pd_status sequence_pad_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_sequence_pad_args *a = (const pd_sequence_pad_args *)args;
  pd_seq s;
  PD_TRY(pd_seq_read("sequence_pad", "x", a->x_lod, a->x->shape[0], &s));
  int64_t maxlen = 0;
  for (int64_t i = 0; i < s.n; i++)
    if (s.off[i + 1] - s.off[i] > maxlen) maxlen = s.off[i + 1] - s.off[i];
  pd_status st = PD_OK;
  int64_t L = maxlen;
  if (a->padded_length > 0) {
    if (a->padded_length < maxlen)
      st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[sequence_pad] padded_length (maxlen) %lld is less than the "
                        "longest sequence's %lld steps", (long long)a->padded_length, (long long)maxlen);
    L = a->padded_length;
  }
  pd_tensor *xc = NULL, *pc = NULL;
  if (st == PD_OK) st = pd_tensor_contiguous(a->x, &xc);
  if (st == PD_OK) st = pd_tensor_contiguous(a->pad_value, &pc);
  if (st == PD_OK) {
    int64_t sh[PD_MAX_DIMS];
    sh[0] = s.n;
    sh[1] = L;
    for (int d = 1; d < a->x->ndim; d++) sh[d + 1] = a->x->shape[d];
    st = pd_seq_out(out, 0, a->x->dtype, a->x->ndim + 1, sh);
  }
  if (st == PD_OK) st = pd_seq_out(out, 1, PD_INT64, 1, &s.n);
  if (st == PD_OK) {
    size_t rb = ROWB(a->x), es = pd_dtype_size(a->x->dtype);
    int64_t w = pd_seq_width(a->x);
    char *o = out[0]->numel ? (char *)pd_tensor_data(out[0]) : NULL;
    const char *pv = (const char *)pd_tensor_data(pc);
    int64_t *len = s.n ? (int64_t *)pd_tensor_data(out[1]) : NULL;
    for (int64_t i = 0; i < s.n; i++) {
      int64_t n = s.off[i + 1] - s.off[i];
      len[i] = n;
      char *row = o + (size_t)i * (size_t)L * rb;
      if (n) memcpy(row, (const char *)pd_tensor_data(xc) + (size_t)s.off[i] * rb, (size_t)n * rb);
      for (int64_t t = n; t < L; t++) {
        if (pc->numel == 1)
          for (int64_t j = 0; j < w; j++) memcpy(row + (size_t)t * rb + (size_t)j * es, pv, es);
        else
          memcpy(row + (size_t)t * rb, pv, rb);
      }
    }
  }
  pd_seq_free(&s);
  pd_tensor_release(xc);
  pd_tensor_release(pc);
  return st;
}
PD_SEQ_K4(sequence_pad)

static pd_status sequence_pad_grad_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_sequence_pad_grad_args *a = (const pd_sequence_pad_grad_args *)args;
  pd_seq s;
  PD_TRY(pd_seq_read("sequence_pad_grad", "x", a->x_lod, a->x->shape[0], &s));
  pd_tensor *d = NULL, *gx = NULL, *gp = NULL;
  pd_status st = pd_seq_f64(a->dout, &d);
  if (st == PD_OK && (a->dout->ndim != a->x->ndim + 1 || a->dout->shape[0] != s.n))
    st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[sequence_pad_grad] expected dout of shape [%lld, padded_length, ...]",
                      (long long)s.n);
  if (st == PD_OK) st = pd_tensor_zeros(PD_FLOAT64, a->x->ndim, a->x->shape, &gx);
  if (st == PD_OK) st = pd_tensor_zeros(PD_FLOAT64, a->pad_value->ndim, a->pad_value->shape, &gp);
  if (st == PD_OK) {
    int64_t w = pd_seq_width(a->x), L = a->dout->shape[1];
    const double *dd = (const double *)pd_tensor_data(d);
    double *x = gx->numel ? (double *)pd_tensor_data(gx) : NULL, *p = (double *)pd_tensor_data(gp);
    int scalar = a->pad_value->numel == 1;
    for (int64_t i = 0; i < s.n; i++) {
      int64_t n = s.off[i + 1] - s.off[i];
      const double *row = dd + i * L * w;
      if (n) memcpy(x + s.off[i] * w, row, sizeof(double) * (size_t)(n * w));
      for (int64_t t = n; t < L; t++)
        for (int64_t j = 0; j < w; j++) p[scalar ? 0 : j] += row[t * w + j];
    }
  }
  if (st == PD_OK) st = pd_seq_store(&out[0], gx, a->dout->dtype);
  if (st == PD_OK) st = pd_seq_store(&out[1], gp, a->dout->dtype);
  pd_seq_free(&s);
  pd_tensor_release(d);
  pd_tensor_release(gx);
  pd_tensor_release(gp);
  return st;
}
PD_SEQ_K2(sequence_pad_grad)

static pd_status unpad_lengths(const char *op, const pd_tensor *x, const pd_tensor *length, int64_t **len) {
  int64_t n = 0;
  PD_TRY(pd_seq_ints(length, len, &n));
  pd_status st = PD_OK;
  if (n != x->shape[0])
    st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected one length per row of x (%lld), received %lld", op,
                      (long long)x->shape[0], (long long)n);
  for (int64_t i = 0; st == PD_OK && i < n; i++)
    if ((*len)[i] < 0 || (*len)[i] > x->shape[1])
      st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] length %lld of sequence %lld is outside [0, %lld]", op,
                        (long long)(*len)[i], (long long)i, (long long)x->shape[1]);
  if (st != PD_OK) {
    free(*len);
    *len = NULL;
  }
  return st;
}

static pd_status sequence_unpad_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_sequence_unpad_args *a = (const pd_sequence_unpad_args *)args;
  int64_t *len, B = a->x->shape[0];
  PD_TRY(unpad_lengths("sequence_unpad", a->x, a->length, &len));
  int64_t *off = (int64_t *)malloc(sizeof(int64_t) * (size_t)(B + 1));
  pd_tensor *xc = NULL;
  pd_status st = off ? pd_tensor_contiguous(a->x, &xc) : pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  if (st == PD_OK) {
    off[0] = 0;
    for (int64_t i = 0; i < B; i++) off[i + 1] = off[i] + len[i];
    int64_t sh[PD_MAX_DIMS];
    sh[0] = off[B];
    for (int d = 2; d < a->x->ndim; d++) sh[d - 1] = a->x->shape[d];
    st = pd_seq_out(out, 0, a->x->dtype, a->x->ndim - 1, sh);
  }
  if (st == PD_OK) {
    size_t rb = (size_t)(pd_seq_width(a->x) / (a->x->shape[1] ? a->x->shape[1] : 1)) * pd_dtype_size(a->x->dtype);
    for (int64_t i = 0; i < B; i++)
      if (len[i])
        memcpy((char *)pd_tensor_data(out[0]) + (size_t)off[i] * rb,
               (const char *)pd_tensor_data(xc) + (size_t)(i * a->x->shape[1]) * rb, (size_t)len[i] * rb);
    st = pd_seq_off_tensor(off, B + 1, &out[1]);
  }
  free(len);
  free(off);
  pd_tensor_release(xc);
  return st;
}
PD_SEQ_K4(sequence_unpad)

static pd_status sequence_unpad_grad_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_sequence_unpad_grad_args *a = (const pd_sequence_unpad_grad_args *)args;
  int64_t *len, B = a->x->shape[0];
  PD_TRY(unpad_lengths("sequence_unpad_grad", a->x, a->length, &len));
  pd_tensor *dc = NULL;
  pd_status st = pd_tensor_contiguous(a->dout, &dc);
  if (st == PD_OK) {
    size_t rb = (size_t)(pd_seq_width(a->x) / (a->x->shape[1] ? a->x->shape[1] : 1)) * pd_dtype_size(out[0]->dtype);
    if (out[0]->numel) memset(pd_tensor_data(out[0]), 0, (size_t)out[0]->numel * pd_dtype_size(out[0]->dtype));
    int64_t r = 0;
    for (int64_t i = 0; i < B; i++) {
      if (len[i])
        memcpy((char *)pd_tensor_data(out[0]) + (size_t)(i * a->x->shape[1]) * rb,
               (const char *)pd_tensor_data(dc) + (size_t)r * rb, (size_t)len[i] * rb);
      r += len[i];
    }
    if (r != a->dout->shape[0])
      st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[sequence_unpad_grad] the lengths sum to %lld, dout has %lld rows",
                        (long long)r, (long long)a->dout->shape[0]);
  }
  free(len);
  pd_tensor_release(dc);
  return st;
}
PD_SEQ_K2(sequence_unpad_grad)

/* ---------------------------------------------------------------- reshape, reverse, enumerate */
static pd_status sequence_reshape_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_sequence_reshape_args *a = (const pd_sequence_reshape_args *)args;
  pd_seq s;
  PD_TRY(pd_seq_read("sequence_reshape", "x", a->x_lod, a->x->shape[0], &s));
  int64_t D = a->x->shape[1], nd = a->new_dim;
  pd_status st = PD_OK;
  int64_t *off = (int64_t *)malloc(sizeof(int64_t) * (size_t)(s.n + 1));
  if (!off) st = pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  for (int64_t i = 0; st == PD_OK && i <= s.n; i++) {
    if ((s.off[i] * D) % nd)
      st = pd_set_error(PD_ERR_INVALID_ARGUMENT, "[sequence_reshape] sequence %lld holds %lld elements, which do "
                        "not split into rows of new_dim = %lld", (long long)(i ? i - 1 : 0),
                        (long long)((s.off[i] - (i ? s.off[i - 1] : 0)) * D), (long long)nd);
    else off[i] = s.off[i] * D / nd;
  }
  pd_tensor *xc = NULL;
  if (st == PD_OK) st = pd_tensor_contiguous(a->x, &xc);
  if (st == PD_OK) {
    int64_t sh[2] = {off[s.n], nd};
    st = pd_seq_out(out, 0, a->x->dtype, 2, sh);
  }
  if (st == PD_OK && xc->numel) memcpy(pd_tensor_data(out[0]), pd_tensor_data(xc), (size_t)xc->numel * pd_dtype_size(xc->dtype));
  if (st == PD_OK) st = pd_seq_off_tensor(off, s.n + 1, &out[1]);
  pd_seq_free(&s);
  free(off);
  pd_tensor_release(xc);
  return st;
}
PD_SEQ_K4(sequence_reshape)

static pd_status sequence_reverse_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_sequence_reverse_args *a = (const pd_sequence_reverse_args *)args;
  pd_seq s;
  PD_TRY(pd_seq_read("sequence_reverse", "x", a->x_lod, a->x->shape[0], &s));
  pd_tensor *xc = NULL;
  pd_status st = pd_tensor_contiguous(a->x, &xc);
  if (st == PD_OK) {
    size_t rb = ROWB(a->x);
    for (int64_t i = 0; i < s.n; i++)
      for (int64_t r = s.off[i]; r < s.off[i + 1]; r++)
        memcpy((char *)pd_tensor_data(out[0]) + (size_t)(s.off[i] + s.off[i + 1] - 1 - r) * rb,
               (const char *)pd_tensor_data(xc) + (size_t)r * rb, rb);
  }
  pd_seq_free(&s);
  pd_tensor_release(xc);
  return st;
}
PD_SEQ_K4(sequence_reverse)

static pd_status sequence_enumerate_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_sequence_enumerate_args *a = (const pd_sequence_enumerate_args *)args;
  int64_t rows = a->x->ndim ? a->x->shape[0] : 1;
  pd_seq s;
  PD_TRY(pd_seq_read("sequence_enumerate", "x", a->x_lod, rows, &s));
  int64_t *v = NULL, n = 0, W = a->win_size;
  pd_status st = pd_seq_ints(a->x, &v, &n);
  if (st == PD_OK) {
    char *o = (char *)pd_tensor_data(out[0]);
    size_t es = pd_dtype_size(out[0]->dtype);
    for (int64_t i = 0; i < s.n; i++)
      for (int64_t r = s.off[i]; r < s.off[i + 1]; r++)
        for (int64_t j = 0; j < W; j++)
          pd_store_from_int64(o + (size_t)(r * W + j) * es, out[0]->dtype, r + j < s.off[i + 1] ? v[r + j] : a->pad_value);
    free(v);
  }
  pd_seq_free(&s);
  return st;
}
pd_status pd_kernel_sequence_enumerate_i32(const void *a, pd_tensor **o, int n) { return sequence_enumerate_impl(a, o, n); }
pd_status pd_kernel_sequence_enumerate_i64(const void *a, pd_tensor **o, int n) { return sequence_enumerate_impl(a, o, n); }
