/* Control flow in the executor (pd_control_flow.c, pd_control_flow_while.c): compile functions for
 * Paddle's conditional_block(_grad), select_input/select_output, while(_grad), increment and
 * the tensor-array ops, registered in pd_exec_special.c. Sub-blocks become instruction lists of
 * the same plan; their values live in the plan's slots, shared by name with the parent. */
#ifndef PD_CONTROL_FLOW_H
#define PD_CONTROL_FLOW_H
#include "pd_exec_internal.h"

pd_status pd_cf_compile_conditional_block(pd_plan *p, int list, const pd_block *b, const pd_opdesc *op);
pd_status pd_cf_compile_conditional_block_grad(pd_plan *p, int list, const pd_block *b, const pd_opdesc *op);
pd_status pd_cf_compile_select_input(pd_plan *p, int list, const pd_block *b, const pd_opdesc *op);
pd_status pd_cf_compile_select_output(pd_plan *p, int list, const pd_block *b, const pd_opdesc *op);
pd_status pd_cf_compile_increment(pd_plan *p, int list, const pd_block *b, const pd_opdesc *op);
pd_status pd_cf_compile_write_to_array(pd_plan *p, int list, const pd_block *b, const pd_opdesc *op);
pd_status pd_cf_compile_read_from_array(pd_plan *p, int list, const pd_block *b, const pd_opdesc *op);
pd_status pd_cf_compile_array_length(pd_plan *p, int list, const pd_block *b, const pd_opdesc *op);
pd_status pd_cf_compile_while(pd_plan *p, int list, const pd_block *b, const pd_opdesc *op);
pd_status pd_cf_compile_while_grad(pd_plan *p, int list, const pd_block *b, const pd_opdesc *op);

/* ---- shared by the control-flow compilers ---- */
/* The slots of an op's slot `slot` (inputs or outputs); "@EMPTY@" / "" names give -1.
 * *out is malloc'd (at least one entry). */
pd_status pd_cf_slots(pd_plan *p, const pd_block *b, const pd_opdesc *op, int is_out, const char *slot,
                      int **out, int *n);
/* Compiles the block named by attribute `attr` of op into a new list of the plan. */
pd_status pd_cf_compile_sub(pd_plan *p, const pd_opdesc *op, const char *attr, int *list, int *block_idx);
/* The truth of a condition value: numel 1 and nonzero for scalar conditions, else numel != 0. */
pd_status pd_cf_truth(const pd_instr *in, const pd_value *v, int is_scalar, int *out);
/* Adds an instruction list: its slots (ins then outs) are copied. */
pd_status pd_cf_add(pd_plan *p, int list, const pd_opdesc *op, pd_special_run_fn fn, const int *ins,
                    int n_ins, const int *outs, int n_outs, pd_instr **out);

#endif
