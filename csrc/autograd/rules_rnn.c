/* Hand-written backward rule of the fused LSTM cell (ops/rnn.yaml): one fused grad kernel gives
 * d gates and d c_prev from the saved gates, c_prev and c. The fused grad op has no rule of its
 * own, so a create_graph backward through the cell is refused with a clear error. */
#include "pd_autograd.h"
#include "../ops/generated/pd_ops_gen.h"

#define NEEDS(n, i) ((n)->edges[i].node || (n)->edges[i].leaf)

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
