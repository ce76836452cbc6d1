/* Hand-written backward rules of the recurrent ops (ops/rnn.yaml): the fused LSTM cell (one fused
 * grad kernel gives d gates and d c_prev) and the whole-sequence lstm_seq / gru_seq /
 * simple_rnn_seq, whose *_seq_grad ops run the reverse recurrence and all weight gradients in C.
 * The grad ops have no rules of their own, so a create_graph backward through them is refused
 * with a NotImplementedError that says so. */
#include <stdlib.h>
#include "pd_autograd.h"
#include "../ops/generated/pd_ops_gen.h"

#define NEEDS(n, i) ((n)->edges[i].node || (n)->edges[i].leaf)

pd_status pd_bw_lstm_cell(pd_node *n, pd_tensor **gout, pd_tensor **gin);
pd_status pd_bw_lstm_seq(pd_node *n, pd_tensor **gout, pd_tensor **gin);
pd_status pd_bw_gru_seq(pd_node *n, pd_tensor **gout, pd_tensor **gin);
pd_status pd_bw_simple_rnn_seq(pd_node *n, pd_tensor **gout, pd_tensor **gin);

pd_status pd_bw_lstm_cell(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!NEEDS(n, 0) && !NEEDS(n, 1)) return PD_OK;
  if (pd_grad_enabled())
    return pd_set_error(PD_ERR_UNIMPLEMENTED,
                        "[lstm_cell_fused] higher-order gradients (create_graph=True) are not supported");
  pd_tensor *gates, *c_prev, *c;
  PD_TRY(pd_node_saved(n, 0, &gates));
  PD_TRY(pd_node_saved(n, 1, &c_prev));
  PD_TRY(pd_node_saved(n, 2, &c));
  pd_lstm_cell_fused_grad_args a = {.gates = gates, .c_prev = c_prev, .c = c, .dh = gout[0], .dc = gout[1]};
  pd_tensor *buf[4], **outs = buf;
  int no = -4;
  PD_TRY(pd_op_run(PD_OP_LSTM_CELL_FUSED_GRAD, &a, &outs, &no));
  for (int i = 0; i < 2; i++) {
    if (NEEDS(n, i)) gin[i] = outs[i];
    else pd_tensor_release(outs[i]);
  }
  return PD_OK;
}

/* ---- whole-sequence ops ---- */
/* Saved tensors 0..count-1 (the one at k_opt, seq_len, may be absent). */
static pd_status saved_all(pd_node *n, int count, int k_opt, pd_tensor **s) {
  for (int k = 0; k < count; k++) {
    if (k == k_opt && (k >= n->n_saved || !n->saved[k])) {
      s[k] = NULL;
      continue;
    }
    PD_TRY(pd_node_saved(n, k, &s[k]));
  }
  return PD_OK;
}

/* Common checks; returns 1 when there is nothing to do. */
static int seq_skip(pd_node *n, pd_tensor **gout, int n_out, int n_diff_edges) {
  int any_out = 0, any_need = 0;
  for (int i = 0; i < n_out; i++) any_out |= gout[i] != NULL;
  for (int i = 0; i < n_diff_edges; i++) any_need |= NEEDS(n, i);
  return !any_out || !any_need;
}

static pd_status no_double(const char *op) {
  return pd_set_error(PD_ERR_UNIMPLEMENTED,
                      "[%s] higher-order gradients (create_graph=True) through the fused recurrence are not "
                      "supported; build the network from the cells (paddle.nn.RNN over a custom cell) for that",
                      op);
}

/* Hands the grad op's outputs to the inputs that need them: map[i] = output index for edge i
 * (-1: none). Unused outputs are released. */
static void hand_out(pd_node *n, pd_tensor **outs, int n_outs, const int *map, int n_edges, pd_tensor **gin) {
  for (int i = 0; i < n_edges; i++) {
    if (map[i] < 0 || !NEEDS(n, i)) continue;
    pd_tensor_retain(outs[map[i]]);
    gin[i] = outs[map[i]];
  }
  for (int k = 0; k < n_outs; k++) pd_tensor_release(outs[k]);
}

pd_status pd_bw_lstm_seq(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (seq_skip(n, gout, 5, 7)) return PD_OK;
  if (pd_grad_enabled()) return no_double("lstm_seq");
  const pd_lstm_seq_args *f = (const pd_lstm_seq_args *)n->args;
  pd_tensor *s[9];
  PD_TRY(saved_all(n, 9, 5, s));
  pd_lstm_seq_grad_args a = {.x = s[0], .h0 = s[1], .c0 = s[2], .w_ih = s[3], .w_hh = s[4], .seq_len = s[5],
                             .out = s[6], .gates = s[7], .cells = s[8], .dout = gout[0], .dh_n = gout[1],
                             .dc_n = gout[2], .dgates = gout[3], .dcells = gout[4], .reverse = f->reverse,
                             .time_major = f->time_major, .need_dx = NEEDS(n, 0),
                             .need_dh0 = NEEDS(n, 1) || NEEDS(n, 2)};
  pd_tensor **outs = NULL;
  int no = 0;
  PD_TRY(pd_op_run(PD_OP_LSTM_SEQ_GRAD, &a, &outs, &no));
  /* outputs: dx, dh0, dc0, dw_ih, dw_hh, db (both biases get db) */
  static const int map[7] = {0, 1, 2, 3, 4, 5, 5};
  hand_out(n, outs, no, map, 7, gin);
  free(outs);
  return PD_OK;
}

pd_status pd_bw_gru_seq(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (seq_skip(n, gout, 4, 6)) return PD_OK;
  if (pd_grad_enabled()) return no_double("gru_seq");
  const pd_gru_seq_args *f = (const pd_gru_seq_args *)n->args;
  pd_tensor *s[8];
  PD_TRY(saved_all(n, 8, 4, s));
  pd_gru_seq_grad_args a = {.x = s[0], .h0 = s[1], .w_ih = s[2], .w_hh = s[3], .seq_len = s[4], .out = s[5],
                            .gates = s[6], .hc = s[7], .dout = gout[0], .dh_n = gout[1], .dgates = gout[2],
                            .dhc = gout[3], .reverse = f->reverse, .time_major = f->time_major,
                            .need_dx = NEEDS(n, 0), .need_dh0 = NEEDS(n, 1)};
  pd_tensor **outs = NULL;
  int no = 0;
  PD_TRY(pd_op_run(PD_OP_GRU_SEQ_GRAD, &a, &outs, &no));
  /* outputs: dx, dh0, dw_ih, dw_hh, db_ih, db_hh */
  static const int map[6] = {0, 1, 2, 3, 4, 5};
  hand_out(n, outs, no, map, 6, gin);
  free(outs);
  return PD_OK;
}

pd_status pd_bw_simple_rnn_seq(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (seq_skip(n, gout, 2, 6)) return PD_OK;
  if (pd_grad_enabled()) return no_double("simple_rnn_seq");
  const pd_simple_rnn_seq_args *f = (const pd_simple_rnn_seq_args *)n->args;
  pd_tensor *s[6];
  PD_TRY(saved_all(n, 6, 4, s));
  pd_simple_rnn_seq_grad_args a = {.x = s[0], .h0 = s[1], .w_ih = s[2], .w_hh = s[3], .seq_len = s[4],
                                   .out = s[5], .dout = gout[0], .dh_n = gout[1], .activation = f->activation,
                                   .reverse = f->reverse, .time_major = f->time_major, .need_dx = NEEDS(n, 0),
                                   .need_dh0 = NEEDS(n, 1)};
  pd_tensor **outs = NULL;
  int no = 0;
  PD_TRY(pd_op_run(PD_OP_SIMPLE_RNN_SEQ_GRAD, &a, &outs, &no));
  /* outputs: dx, dh0, dw_ih, dw_hh, db (both biases get db) */
  static const int map[6] = {0, 1, 2, 3, 4, 4};
  hand_out(n, outs, no, map, 6, gin);
  free(outs);
  return PD_OK;
}
