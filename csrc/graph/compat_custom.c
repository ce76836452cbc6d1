/* Custom operators in programs (ops/custom_compat.yaml): recording writes Paddle's custom-operator
 * form (type = the operator's name, slots and attributes by the names its library declares; the
 * gradient op "<name>_grad" takes the forward inputs, outputs and "<out>@GRAD" and gives
 * "<in>@GRAD"), loading reads it back into our generic custom_op (pd_convert.c sends every type
 * the registry knows here). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pd_compat.h"
#include "../ops/custom_op.h"
#include "../ops/generated/pd_ops_gen.h"

static pd_status grad_slot(char *buf, size_t cap, const char *name) {
  if ((size_t)snprintf(buf, cap, "%s@GRAD", name) >= cap)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[custom_op] slot name %s is too long", name);
  return PD_OK;
}

static pd_status set1(pd_opdesc *op, int is_out, const char *slot, const char *var) {
  return pd_opdesc_set_slot(op, is_out, slot, var ? 1 : 0, &var);
}

static const char *var_name(const pd_tensor *t) { return t && t->var ? t->var->name : NULL; }

pd_status pd_cv_save_custom_op(int our_op, const void *args, pd_opdesc *op, const char *const *in_names,
                               const char *const *out_names) {
  (void)our_op;
  (void)in_names;
  const pd_custom_op_args *a = (const pd_custom_op_args *)args;
  const pd_custom_entry *e = pd_custom_find(a->op_type);
  if (!e) return pd_set_error(PD_ERR_NOT_FOUND, "[custom_op] no custom operator named %s is loaded", a->op_type);
  int ni = e->n_inputs, no = e->n_outputs;
  char type[300], slot[300];
  snprintf(type, sizeof type, "%s%s", e->name, a->grad ? "_grad" : "");
  PD_TRY(pd_opdesc_set_type(op, type));
  pd_opdesc_remove_slot(op, 0, "X");
  pd_opdesc_remove_slot(op, 1, "Out");
  pd_opdesc_remove_attr(op, "op_type");
  pd_opdesc_remove_attr(op, "attrs");
  pd_opdesc_remove_attr(op, "grad");
  pd_clear_error();
  for (int i = 0; i < ni; i++) PD_TRY(set1(op, 0, e->inputs[i], var_name(a->x.data[i])));
  if (!a->grad) {
    for (int j = 0; j < no; j++) PD_TRY(set1(op, 1, e->outputs[j], out_names[j]));
  } else {
    for (int j = 0; j < no; j++) {
      PD_TRY(set1(op, 0, e->outputs[j], var_name(a->x.data[ni + j])));
      PD_TRY(grad_slot(slot, sizeof slot, e->outputs[j]));
      PD_TRY(set1(op, 0, slot, var_name(a->x.data[ni + no + j])));
    }
    for (int i = 0; i < ni; i++) {
      PD_TRY(grad_slot(slot, sizeof slot, e->inputs[i]));
      PD_TRY(set1(op, 1, slot, out_names[i]));
    }
  }
  for (int k = 0; k < e->n_attrs; k++) {
    double v = a->attrs.data[k];
    switch (e->attr_kinds[k]) {
      case PD_CATTR_INT: PD_TRY(pd_opdesc_set_attr_int(op, e->attr_names[k], PD_AT_INT, (int64_t)v)); break;
      case PD_CATTR_INT64: PD_TRY(pd_opdesc_set_attr_int(op, e->attr_names[k], PD_AT_LONG, (int64_t)v)); break;
      case PD_CATTR_BOOL: PD_TRY(pd_opdesc_set_attr_int(op, e->attr_names[k], PD_AT_BOOLEAN, v != 0)); break;
      case PD_CATTR_FLOAT: PD_TRY(pd_opdesc_set_attr_float(op, e->attr_names[k], PD_AT_FLOAT, v)); break;
    }
  }
  return PD_OK;
}

pd_status pd_cv_load_custom_op(pd_convert_ctx *c) {
  const pd_opdesc *op = pd_cv_op(c);
  int grad = 0;
  const pd_custom_entry *e = pd_custom_find(op->type);
  if (!e && (e = pd_custom_find_grad(op->type)) != NULL) grad = 1;
  if (!e)
    return pd_cv_error(c, PD_ERR_NOT_FOUND, "no custom operator of this name is loaded: load its library first "
                       "(paddle.utils.cpp_extension.load, or PD_LoadCustomOpLibrary in C)");
  int ni = e->n_inputs, no = e->n_outputs, nx = grad ? ni + 2 * no : ni;
  pd_tensor **x = (pd_tensor **)pd_cv_alloc(c, sizeof(pd_tensor *) * (size_t)nx);
  double *at = (double *)pd_cv_alloc(c, sizeof(double) * (size_t)(e->n_attrs + 1));
  pd_tensor **o = (pd_tensor **)pd_cv_alloc(c, sizeof(pd_tensor *) * (size_t)(ni > no ? ni : no));
  if (!x || !at || !o) return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory");
  char slot[300];
  for (int i = 0; i < ni; i++) PD_TRY(pd_cv_need(c, e->inputs[i], &x[i]));
  for (int j = 0; grad && j < no; j++) {
    PD_TRY(pd_cv_need(c, e->outputs[j], &x[ni + j]));
    PD_TRY(grad_slot(slot, sizeof slot, e->outputs[j]));
    PD_TRY(pd_cv_need(c, slot, &x[ni + no + j]));
  }
  pd_status st = PD_OK;
  for (int k = 0; k < e->n_attrs; k++) {
    if (!pd_cv_has(c, e->attr_names[k]))
      return pd_cv_error(c, PD_ERR_INVALID_ARGUMENT, "the attribute %s is missing", e->attr_names[k]);
    at[k] = pd_cv_float(c, e->attr_names[k], NAN, &st);
    PD_TRY(st);
  }
  pd_custom_op_args a = {.x = {x, nx}, .op_type = e->name, .attrs = {at, e->n_attrs}, .grad = grad};
  int n = 0, want = grad ? ni : no;
  PD_TRY(pd_cv_run(c, PD_OP_CUSTOM_OP, &a, o, want, &n));
  for (int k = 0; k < n; k++) {
    if (st == PD_OK) {
      if (grad) st = grad_slot(slot, sizeof slot, e->inputs[k]);
      if (st == PD_OK) st = pd_cv_out(c, grad ? slot : e->outputs[k], 0, o[k]);
    }
    pd_tensor_release(o[k]);
  }
  return st;
}
