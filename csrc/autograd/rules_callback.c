/* Backward rules of the ops that call back into Python (ops/callback.yaml). print: the gradient
 * passes through a print op with is_forward=false (it prints when print_phase is BACKWARD or
 * BOTH). py_func: another py_func calling backward_func on (x, out minus the skipped ones, then
 * every out's gradient), returning x's gradients; without backward_func no gradient flows.
 * py_func exists only in programs, so its rule reads the outputs' variables from the replay. */
#include <stdlib.h>
#include <strings.h>
#include "pd_autograd.h"
#include "../ops/generated/pd_ops_gen.h"

#define NEEDS(n, i) ((n)->edges[i].node || (n)->edges[i].leaf)

pd_status pd_bw_print(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!NEEDS(n, 0)) return PD_OK;
  const pd_print_args *a = (const pd_print_args *)n->args;
  const char *ph = a->print_phase ? a->print_phase : "BOTH";
  if (strcasecmp(ph, "BACKWARD") != 0 && strcasecmp(ph, "BOTH") != 0) {
    pd_tensor_retain(gout[0]);
    gin[0] = gout[0];
    return PD_OK;
  }
  pd_print_args p = *a;
  p.x = gout[0];
  p.is_forward = 0;
  return pd_bw_run1(PD_OP_PRINT, &p, &gin[0]);
}

static int listed(const pd_int_array *l, int64_t i) {
  for (int64_t k = 0; k < l->n; k++)
    if (l->data[k] == i) return 1;
  return 0;
}

pd_status pd_bw_py_func(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  const pd_py_func_args *a = (const pd_py_func_args *)n->args;
  int nx = n->n_edges, any = 0;
  for (int i = 0; i < nx; i++) any |= NEEDS(n, i);
  if (!any || a->backward_callable_id < 0) return PD_OK;
  if (!n->out_like)
    return pd_set_error(PD_ERR_PRECONDITION_NOT_MET, "[py_func] its backward exists only in a static program");
  int n_out = n->n_out, cnt = 0;
  pd_tensor **ins = (pd_tensor **)calloc((size_t)(nx + 2 * n_out + 1), sizeof(pd_tensor *));
  int64_t *meta = (int64_t *)malloc(sizeof(int64_t) * (size_t)(nx * (2 + PD_MAX_DIMS) + 1));
  if (!ins || !meta) {
    free(ins);
    free(meta);
    return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  }
  pd_status st = PD_OK;
  int64_t *dts = meta, *nds = meta + nx, *dims = meta + 2 * nx, nd = 0;
  for (int i = 0; st == PD_OK && i < nx; i++) {
    pd_tensor *x;
    st = pd_node_saved(n, i, &x);
    if (st != PD_OK) break;
    dts[i] = x->dtype;
    nds[i] = x->ndim;
    for (int d = 0; d < x->ndim; d++) dims[nd++] = x->shape[d];
    if (!listed(&a->skip_x, i)) ins[cnt++] = x;
  }
  for (int j = 0; st == PD_OK && j < n_out; j++) {
    if (listed(&a->skip_out, j)) continue;
    if (!n->out_like[j])
      st = pd_set_error(PD_ERR_PRECONDITION_NOT_MET, "[py_func] output %d has no program variable", j);
    else ins[cnt++] = n->out_like[j];
  }
  for (int j = 0; st == PD_OK && j < n_out; j++) {
    if (!gout[j]) st = pd_set_error(PD_ERR_PRECONDITION_NOT_MET, "[py_func] output %d has no gradient", j);
    else ins[cnt++] = gout[j];
  }
  pd_tensor **o = NULL;
  int no = 0;
  if (st == PD_OK) {
    pd_py_func_args g = {.x = {ins, cnt}, .forward_callable_id = a->backward_callable_id, .backward_callable_id = -1,
                         .out_dtypes = {dts, nx}, .out_ndims = {nds, nx}, .out_dims = {dims, nd},
                         .skip_x = {NULL, 0}, .skip_out = {NULL, 0}};
    st = pd_op_run(PD_OP_PY_FUNC, &g, &o, &no);
  }
  for (int i = 0; st == PD_OK && i < no; i++) {
    if (i < nx && NEEDS(n, i)) gin[i] = o[i];
    else pd_tensor_release(o[i]);
  }
  free(o);
  free(ins);
  free(meta);
  return st;
}
