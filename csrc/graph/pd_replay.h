/* The replay behind append_backward (pd_backward.c), shared with the control-flow gradients
 * (pd_control_flow_grad.c): a block's ops are replayed through their converters into the autograd
 * nodes eager mode makes, over meta tensors bound to the program's variables. A replay maps each
 * variable name to the tensor standing for its current value; ops the converters cannot express
 * (control flow) have special replays, looked up by op type. */
#ifndef PD_REPLAY_H
#define PD_REPLAY_H
#include "pd_program.h"

typedef struct pd_replay {
  pd_block *block;
  char **names;          /* name -> current meta tensor (after the op that last wrote it) */
  pd_tensor **tensors;
  int n, cap;
  const char *const *no_grad;
  int n_no_grad;
} pd_replay;

/* The tensor of variable `name` (borrowed): the current one, else a new leaf (stop_gradient
 * from the variable, its dtype and the no_grad list); NULL if no variable has that name. */
pd_tensor *pd_replay_in(pd_replay *r, const char *name);
/* Binds t to variable `name` from now on (what a converter's output does). */
pd_status pd_replay_out(pd_replay *r, const char *name, pd_tensor *t);
/* The current tensor of name, or NULL (no leaf is made). */
pd_tensor *pd_replay_lookup(const pd_replay *r, const char *name);
/* Sets the tensor of name (a new reference is taken). */
pd_status pd_replay_put(pd_replay *r, const char *name, pd_tensor *t);
/* Replays ops [from, to) of r->block (grad mode on, the replay tracer installed). */
pd_status pd_replay_ops(pd_replay *r, int from, int to);
void pd_replay_free(pd_replay *r);
/* 1 if variables of this type and dtype carry gradients (float/complex dense tensors). */
int pd_replay_var_is_diff(const pd_var *v);

/* Names a conversion's intermediate (placeholder v) that a gradient op reads: a variable of the
 * converted op's block, listed in the op's PD_CV_TEMPS_SLOT (pd_convert.h). No-op for other vars. */
pd_status pd_replay_name_temp(pd_var *v);

/* Special replays (control flow): make the op's autograd node and bind its outputs. */
typedef pd_status (*pd_replay_special_fn)(pd_replay *r, const pd_opdesc *op);
pd_status pd_cf_replay_conditional_block(pd_replay *r, const pd_opdesc *op);
pd_status pd_cf_replay_select_input(pd_replay *r, const pd_opdesc *op);
pd_status pd_cf_replay_while(pd_replay *r, const pd_opdesc *op);
pd_status pd_cf_replay_increment(pd_replay *r, const pd_opdesc *op);
pd_status pd_cf_replay_no_grad(pd_replay *r, const pd_opdesc *op);
pd_status pd_cf_replay_grad_op(pd_replay *r, const pd_opdesc *op);

#endif
