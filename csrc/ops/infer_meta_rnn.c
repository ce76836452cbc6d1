/* Shape/dtype rules of the recurrent-network ops (ops/rnn.yaml): the fused LSTM cell
 * (gates [B, 4H], c_prev [B, H] -> h, c [B, H]) and its gradient, and the whole-sequence ops
 * lstm_seq / gru_seq / simple_rnn_seq with their *_seq_grad ops. */
#include <stdio.h>
#include <string.h>
#include "pd_op.h"
#include "generated/pd_ops_gen.h"

static pd_status check_cell(const char *op, const pd_tensor *gates, const pd_tensor *c_prev) {
  PD_TRY(pd_check_same_dtype(op, "gates", gates, "c_prev", c_prev));
  if (gates->ndim != 2 || c_prev->ndim != 2)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[%s] expected gates [B, 4H] and c_prev [B, H] to be 2-D, received %d-D and %d-D",
                        op, gates->ndim, c_prev->ndim);
  if (gates->shape[0] != c_prev->shape[0] || gates->shape[1] != 4 * c_prev->shape[1])
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "[%s] expected gates of shape [B, 4H] = [%lld, %lld] for c_prev [%lld, %lld], "
                        "received [%lld, %lld]", op, (long long)c_prev->shape[0],
                        (long long)(4 * c_prev->shape[1]), (long long)c_prev->shape[0],
                        (long long)c_prev->shape[1], (long long)gates->shape[0], (long long)gates->shape[1]);
  return PD_OK;
}

pd_status pd_infer_lstm_cell(const void *args, pd_meta_list *out) {
  const pd_lstm_cell_fused_args *a = (const pd_lstm_cell_fused_args *)args;
  PD_TRY(check_cell("lstm_cell_fused", a->gates, a->c_prev));
  pd_meta *m = pd_meta_list_resize(out, 2);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  pd_meta_like(&m[0], a->c_prev);
  pd_meta_like(&m[1], a->c_prev);
  return PD_OK;
}

pd_status pd_infer_lstm_cell_grad(const void *args, pd_meta_list *out) {
  const pd_lstm_cell_fused_grad_args *a = (const pd_lstm_cell_fused_grad_args *)args;
  const char *op = "lstm_cell_fused_grad";
  PD_TRY(check_cell(op, a->gates, a->c_prev));
  const pd_tensor *same[3] = {a->c, a->dh, a->dc};
  const char *names[3] = {"c", "dh", "dc"};
  for (int k = 0; k < 3; k++) {
    PD_TRY(pd_check_same_dtype(op, "c_prev", a->c_prev, names[k], same[k]));
    if (same[k]->ndim != 2 || same[k]->shape[0] != a->c_prev->shape[0] ||
        same[k]->shape[1] != a->c_prev->shape[1])
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected %s to have c_prev's shape [%lld, %lld]",
                          op, names[k], (long long)a->c_prev->shape[0], (long long)a->c_prev->shape[1]);
  }
  pd_meta *m = pd_meta_list_resize(out, 2);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  pd_meta_like(&m[0], a->gates);
  pd_meta_like(&m[1], a->c_prev);
  return PD_OK;
}

/* ---- whole-sequence ops (lstm_seq, gru_seq, simple_rnn_seq and their grads) ---- */
typedef struct {
  int64_t T, B, In, H; /* In: input size */
} seq_dims;

static void shape_str(int nd, const int64_t *s, char *buf, size_t n) {
  size_t k = 0;
  k += (size_t)snprintf(buf + k, n - k, "[");
  for (int i = 0; i < nd && k < n; i++) k += (size_t)snprintf(buf + k, n - k, i ? ", %lld" : "%lld", (long long)s[i]);
  if (k < n) snprintf(buf + k, n - k, "]");
}

/* t (NULL allowed when optional) must have dtype like x and the given shape. */
static pd_status check_arg(const char *op, const char *name, const pd_tensor *t, const pd_tensor *x, int nd,
                           const int64_t *shape) {
  if (!t) return PD_OK;
  PD_TRY(pd_check_same_dtype(op, "x", x, name, t));
  int ok = t->ndim == nd;
  for (int i = 0; ok && i < nd; i++) ok = t->shape[i] == shape[i];
  if (!ok) {
    char want[96], got[96];
    shape_str(nd, shape, want, sizeof want);
    shape_str(t->ndim, t->shape, got, sizeof got);
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected %s of shape %s, received %s", op, name, want, got);
  }
  return PD_OK;
}

/* x [B, T, I] (time_major: [T, B, I]), w_ih [G*H, I], w_hh [G*H, H], h0/c0 [B, H], biases
 * [G*H], seq_len int32/int64 [B]. */
static pd_status check_seq(const char *op, int G, const pd_tensor *x, const pd_tensor *h0, const pd_tensor *c0,
                           const pd_tensor *w_ih, const pd_tensor *w_hh, const pd_tensor *b_ih,
                           const pd_tensor *b_hh, const pd_tensor *seq_len, int time_major, seq_dims *d) {
  if (x->ndim != 3)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected x to be 3-D %s, received %d-D", op,
                        time_major ? "[T, B, I]" : "[B, T, I]", x->ndim);
  if (!pd_dtype_is_float(x->dtype))
    return pd_set_error(PD_ERR_TYPE, "[%s] expected x of a floating dtype, received %s", op,
                        pd_dtype_name(x->dtype));
  if (w_hh->ndim != 2 || w_hh->shape[0] != G * w_hh->shape[1]) {
    char got[96];
    shape_str(w_hh->ndim, w_hh->shape, got, sizeof got);
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected w_hh of shape [%d * H, H], received %s", op, G, got);
  }
  d->T = x->shape[time_major ? 0 : 1];
  d->B = x->shape[time_major ? 1 : 0];
  d->In = x->shape[2];
  d->H = w_hh->shape[1];
  const int64_t gh = G * d->H, sw[2] = {gh, d->In}, sh[2] = {d->B, d->H}, sb[1] = {gh}, sw2[2] = {gh, d->H};
  PD_TRY(check_arg(op, "w_hh", w_hh, x, 2, sw2));
  PD_TRY(check_arg(op, "w_ih", w_ih, x, 2, sw));
  PD_TRY(check_arg(op, "h0", h0, x, 2, sh));
  PD_TRY(check_arg(op, "c0", c0, x, 2, sh));
  PD_TRY(check_arg(op, "b_ih", b_ih, x, 1, sb));
  PD_TRY(check_arg(op, "b_hh", b_hh, x, 1, sb));
  if (seq_len) {
    if (seq_len->dtype != PD_INT32 && seq_len->dtype != PD_INT64)
      return pd_set_error(PD_ERR_TYPE, "[%s] expected seq_len of dtype int32 or int64, received %s", op,
                          pd_dtype_name(seq_len->dtype));
    if (seq_len->ndim != 1 || seq_len->shape[0] != d->B)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] expected seq_len of shape [%lld] (the batch size)", op,
                          (long long)d->B);
  }
  return PD_OK;
}

/* [B, T, F] or [T, B, F] */
static void seq_meta(pd_meta *m, pd_dtype dt, const seq_dims *d, int64_t F, int time_major) {
  int64_t s[3] = {time_major ? d->T : d->B, time_major ? d->B : d->T, F};
  pd_meta_set(m, dt, 3, s);
}

static pd_status check_seq_like(const char *op, const char *name, const pd_tensor *t, const pd_tensor *x,
                                const seq_dims *d, int64_t F, int time_major) {
  int64_t s[3] = {time_major ? d->T : d->B, time_major ? d->B : d->T, F};
  return check_arg(op, name, t, x, 3, s);
}

static pd_status check_act(const char *op, const char *act) {
  if (!act || (strcmp(act, "tanh") != 0 && strcmp(act, "relu") != 0))
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] activation should be 'tanh' or 'relu', received '%s'", op,
                        act ? act : "(null)");
  return PD_OK;
}

pd_status pd_infer_lstm_seq(const void *args, pd_meta_list *out) {
  const pd_lstm_seq_args *a = (const pd_lstm_seq_args *)args;
  seq_dims d = {0, 0, 0, 0};
  PD_TRY(check_seq("lstm_seq", 4, a->x, a->h0, a->c0, a->w_ih, a->w_hh, a->b_ih, a->b_hh, a->seq_len,
                   a->time_major, &d));
  pd_meta *m = pd_meta_list_resize(out, 5);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  seq_meta(&m[0], a->x->dtype, &d, d.H, a->time_major);
  pd_meta_like(&m[1], a->h0);
  pd_meta_like(&m[2], a->c0);
  seq_meta(&m[3], a->x->dtype, &d, 4 * d.H, a->time_major); /* reserves: laid out as x */
  seq_meta(&m[4], a->x->dtype, &d, d.H, a->time_major);
  return PD_OK;
}

/* the grad ops: dx (empty [0] when need_dx is false), dh0 [, dc0] (empty when need_dh0 is
 * false), dw_ih, dw_hh, bias grads */
static void grad_metas(pd_meta *m, const pd_tensor *x, const pd_tensor *h0, const pd_tensor *w_ih,
                       const pd_tensor *w_hh, int need_dx, int need_dh0, int with_c, int n_db) {
  int k = 0;
  const int64_t zero[1] = {0}, gh[1] = {w_hh->shape[0]};
  if (need_dx) pd_meta_like(&m[k++], x);
  else pd_meta_set(&m[k++], x->dtype, 1, zero);
  for (int i = 0; i < 1 + (with_c != 0); i++) {
    if (need_dh0) pd_meta_like(&m[k++], h0);
    else pd_meta_set(&m[k++], x->dtype, 1, zero);
  }
  pd_meta_like(&m[k++], w_ih);
  pd_meta_like(&m[k++], w_hh);
  for (int i = 0; i < n_db; i++) pd_meta_set(&m[k++], x->dtype, 1, gh);
}

pd_status pd_infer_lstm_seq_grad(const void *args, pd_meta_list *out) {
  const pd_lstm_seq_grad_args *a = (const pd_lstm_seq_grad_args *)args;
  const char *op = "lstm_seq_grad";
  seq_dims d = {0, 0, 0, 0};
  PD_TRY(check_seq(op, 4, a->x, a->h0, a->c0, a->w_ih, a->w_hh, NULL, NULL, a->seq_len, a->time_major, &d));
  const int tm = a->time_major;
  PD_TRY(check_seq_like(op, "out", a->out, a->x, &d, d.H, tm));
  PD_TRY(check_seq_like(op, "gates", a->gates, a->x, &d, 4 * d.H, tm));
  PD_TRY(check_seq_like(op, "cells", a->cells, a->x, &d, d.H, tm));
  PD_TRY(check_seq_like(op, "dout", a->dout, a->x, &d, d.H, tm));
  PD_TRY(check_seq_like(op, "dgates", a->dgates, a->x, &d, 4 * d.H, tm));
  PD_TRY(check_seq_like(op, "dcells", a->dcells, a->x, &d, d.H, tm));
  const int64_t sh[2] = {d.B, d.H};
  PD_TRY(check_arg(op, "dh_n", a->dh_n, a->x, 2, sh));
  PD_TRY(check_arg(op, "dc_n", a->dc_n, a->x, 2, sh));
  pd_meta *m = pd_meta_list_resize(out, 6);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  grad_metas(m, a->x, a->h0, a->w_ih, a->w_hh, a->need_dx, a->need_dh0, 1, 1);
  return PD_OK;
}

pd_status pd_infer_gru_seq(const void *args, pd_meta_list *out) {
  const pd_gru_seq_args *a = (const pd_gru_seq_args *)args;
  seq_dims d = {0, 0, 0, 0};
  PD_TRY(check_seq("gru_seq", 3, a->x, a->h0, NULL, a->w_ih, a->w_hh, a->b_ih, a->b_hh, a->seq_len,
                   a->time_major, &d));
  pd_meta *m = pd_meta_list_resize(out, 4);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  seq_meta(&m[0], a->x->dtype, &d, d.H, a->time_major);
  pd_meta_like(&m[1], a->h0);
  seq_meta(&m[2], a->x->dtype, &d, 3 * d.H, a->time_major); /* reserves: laid out as x */
  seq_meta(&m[3], a->x->dtype, &d, d.H, a->time_major);
  return PD_OK;
}

pd_status pd_infer_gru_seq_grad(const void *args, pd_meta_list *out) {
  const pd_gru_seq_grad_args *a = (const pd_gru_seq_grad_args *)args;
  const char *op = "gru_seq_grad";
  seq_dims d = {0, 0, 0, 0};
  PD_TRY(check_seq(op, 3, a->x, a->h0, NULL, a->w_ih, a->w_hh, NULL, NULL, a->seq_len, a->time_major, &d));
  const int tm = a->time_major;
  PD_TRY(check_seq_like(op, "out", a->out, a->x, &d, d.H, tm));
  PD_TRY(check_seq_like(op, "gates", a->gates, a->x, &d, 3 * d.H, tm));
  PD_TRY(check_seq_like(op, "hc", a->hc, a->x, &d, d.H, tm));
  PD_TRY(check_seq_like(op, "dout", a->dout, a->x, &d, d.H, tm));
  PD_TRY(check_seq_like(op, "dgates", a->dgates, a->x, &d, 3 * d.H, tm));
  PD_TRY(check_seq_like(op, "dhc", a->dhc, a->x, &d, d.H, tm));
  const int64_t sh[2] = {d.B, d.H};
  PD_TRY(check_arg(op, "dh_n", a->dh_n, a->x, 2, sh));
  pd_meta *m = pd_meta_list_resize(out, 6);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  grad_metas(m, a->x, a->h0, a->w_ih, a->w_hh, a->need_dx, a->need_dh0, 0, 2);
  return PD_OK;
}

pd_status pd_infer_simple_rnn_seq(const void *args, pd_meta_list *out) {
  const pd_simple_rnn_seq_args *a = (const pd_simple_rnn_seq_args *)args;
  seq_dims d = {0, 0, 0, 0};
  PD_TRY(check_act("simple_rnn_seq", a->activation));
  PD_TRY(check_seq("simple_rnn_seq", 1, a->x, a->h0, NULL, a->w_ih, a->w_hh, a->b_ih, a->b_hh, a->seq_len,
                   a->time_major, &d));
  pd_meta *m = pd_meta_list_resize(out, 2);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  seq_meta(&m[0], a->x->dtype, &d, d.H, a->time_major);
  pd_meta_like(&m[1], a->h0);
  return PD_OK;
}

pd_status pd_infer_simple_rnn_seq_grad(const void *args, pd_meta_list *out) {
  const pd_simple_rnn_seq_grad_args *a = (const pd_simple_rnn_seq_grad_args *)args;
  const char *op = "simple_rnn_seq_grad";
  seq_dims d = {0, 0, 0, 0};
  PD_TRY(check_act(op, a->activation));
  PD_TRY(check_seq(op, 1, a->x, a->h0, NULL, a->w_ih, a->w_hh, NULL, NULL, a->seq_len, a->time_major, &d));
  PD_TRY(check_seq_like(op, "out", a->out, a->x, &d, d.H, a->time_major));
  PD_TRY(check_seq_like(op, "dout", a->dout, a->x, &d, d.H, a->time_major));
  const int64_t sh[2] = {d.B, d.H};
  PD_TRY(check_arg(op, "dh_n", a->dh_n, a->x, 2, sh));
  pd_meta *m = pd_meta_list_resize(out, 5);
  if (!m) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  grad_metas(m, a->x, a->h0, a->w_ih, a->w_hh, a->need_dx, a->need_dh0, 0, 1);
  return PD_OK;
}
