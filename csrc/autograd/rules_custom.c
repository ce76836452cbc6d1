/* Backward rule of custom operators (ops/custom.yaml, csrc/ops/custom_op.c): the same generic op
 * with grad=true runs the operator's backward function on (inputs, outputs, the outputs'
 * gradients) and returns the inputs' gradients. Saved: the outputs, then the inputs. */
#include <stdlib.h>
#include "pd_autograd.h"
#include "../ops/custom_op.h"
#include "../ops/generated/pd_ops_gen.h"

#define NEEDS(n, i) ((n)->edges[i].node || (n)->edges[i].leaf)

pd_status pd_bw_custom_op(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  const pd_custom_op_args *a = (const pd_custom_op_args *)n->args;
  int ni = n->n_edges, no = n->n_out, any = 0;
  for (int i = 0; i < ni; i++) any |= NEEDS(n, i);
  if (!any) return PD_OK;
  if (a->grad)
    return pd_set_error(PD_ERR_UNIMPLEMENTED, "[%s_grad] custom operators have no double backward", a->op_type);
  const pd_custom_entry *e = pd_custom_find(a->op_type);
  if (!e) return pd_set_error(PD_ERR_NOT_FOUND, "[custom_op] the operator %s is no longer registered", a->op_type);
  if (!e->backward)
    return pd_set_error(PD_ERR_UNIMPLEMENTED, "[%s] the operator has no backward function, so no gradient flows "
                        "through it (set stop_gradient=True on its inputs, or give it a backward)", e->name);
  pd_tensor **ins = (pd_tensor **)calloc((size_t)(ni + 2 * no + 1), sizeof(pd_tensor *));
  if (!ins) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  pd_status st = PD_OK;
  for (int i = 0; st == PD_OK && i < ni; i++) st = pd_node_saved(n, no + i, &ins[i]);
  for (int j = 0; st == PD_OK && j < no; j++) st = pd_node_saved(n, j, &ins[ni + j]);
  for (int j = 0; st == PD_OK && j < no; j++) {
    if (!gout[j]) st = pd_set_error(PD_ERR_PRECONDITION_NOT_MET, "[%s] output %d has no gradient", e->name, j);
    ins[ni + no + j] = gout[j];
  }
  pd_tensor **o = NULL;
  int cnt = 0;
  if (st == PD_OK) {
    pd_custom_op_args g = *a;
    g.x.data = ins;
    g.x.n = ni + 2 * no;
    g.grad = 1;
    st = pd_op_run(PD_OP_CUSTOM_OP, &g, &o, &cnt);
  }
  for (int i = 0; st == PD_OK && i < cnt; i++) {
    if (i < ni && NEEDS(n, i)) gin[i] = o[i];
    else pd_tensor_release(o[i]);
  }
  free(o);
  free(ins);
  return st;
}
