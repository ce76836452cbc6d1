/* Analysis passes: rewrites of a loaded inference program (and of the persistable values in its
 * scope) before the executor compiles it, run by the C inference API in the config's order
 * (PD_ConfigAllPasses; Paddle's pass names where Paddle has the same pass). Files:
 * pd_pass.c (registry, helpers, clean-ups: is_test, dropout, identity scale, unused persistables),
 * shape_op_cancel_pass (transpose pairs / identity transposes, one-axis flattens, reshape chains),
 * pd_pass_conv.c (conv+batch_norm folding, scale folding into conv/matmul weights), pd_pass_fuse.c
 * (conv+bias+activation -> fused_conv2d, mul/matmul_v2+bias[+relu] -> fc, add+activation ->
 * fused_elementwise_add). Constant folding, dead-code elimination and memory
 * reuse are the executor's own plan passes (pd_exec_passes.c, pd_exec_memplan.c). */
#ifndef PD_PASS_H
#define PD_PASS_H
#include "pd_program.h"
#include "pd_scope.h"

typedef struct {
  pd_program *prog;
  pd_scope *scope;               /* persistable values; passes may add, replace or drop them */
  int n_feed, n_fetch;
  const char *const *feed_names;
  const char *const *fetch_names;
  const char *debug_dir;         /* non-NULL: dump the program after each pass there */
  int bf16;                      /* the bfloat16 mode is on */
  int step;                      /* passes run so far (debug file numbering) */
  int n_rewrites;                /* rewrites the current pass made */
} pd_pass_ctx;

typedef pd_status (*pd_pass_fn)(pd_pass_ctx *c);

/* the default pass list (static) */
const char *const *pd_pass_default_list(int *n);
int pd_pass_known(const char *name);
/* Runs the named passes in order on block 0 (a name Paddle-C lacks is an error). */
pd_status pd_pass_run_list(pd_pass_ctx *c, int n, const char *const *names);
pd_status pd_pass_run(pd_pass_ctx *c, const char *name);

/* ---- helpers for pass files ---- */
/* number of ops of block b reading var `name` (any input slot), and the first such op's index */
int pd_pass_readers(const pd_block *b, const char *name, int *first);
/* the index of the op writing `name` before op index `before` (the last such), -1 none */
int pd_pass_writer(const pd_block *b, const char *name, int before);
/* a var the pass may not remove or rename: fed, fetched or persistable */
int pd_pass_is_protected(const pd_pass_ctx *c, const char *name);
/* replaces every read of `from` by `to` in ops [start, n_ops) of block 0 (and their sub-blocks) */
pd_status pd_pass_replace_reads(pd_block *b, int start, const char *from, const char *to);
/* removes op i of block b and the vars only it used that no other op names (persistable ones are
 * erased from the scope too) */
pd_status pd_pass_remove_op(pd_pass_ctx *c, pd_block *b, int i);
/* the persistable float32 value of name in the scope (borrowed), or NULL */
pd_tensor *pd_pass_param(const pd_pass_ctx *c, const char *name);
/* a new persistable var (unique name from base) holding t (takes the reference) */
pd_status pd_pass_new_param(pd_pass_ctx *c, pd_block *b, const char *base, pd_tensor *t, char *name_out,
                            size_t cap);
/* the single Out/Y-like output name of op (first arg of slot), or NULL */
const char *pd_pass_in(const pd_opdesc *op, const char *slot);
const char *pd_pass_out(const pd_opdesc *op, const char *slot);
/* an attribute as int / double with a default */
int64_t pd_pass_attr_int(const pd_opdesc *op, const char *name, int64_t dflt);
double pd_pass_attr_float(const pd_opdesc *op, const char *name, double dflt);
const char *pd_pass_attr_str(const pd_opdesc *op, const char *name, const char *dflt);

/* Removes op i (out = in, the identity): later readers of out read in instead, or, when out must
 * keep its name, in's producer writes out; *done = 0 when neither is possible. */
pd_status pd_pass_drop_identity(pd_pass_ctx *c, pd_block *b, int i, const char *in, const char *out, int *done);

/* pass families (pd_pass_conv.c) */
pd_status pd_pass_conv_bn(pd_pass_ctx *c);
pd_status pd_pass_conv_transpose_bn(pd_pass_ctx *c);
pd_status pd_pass_scale_fold(pd_pass_ctx *c);
/* fusion passes (pd_pass_fuse.c) */
/* the persistable per-channel bias (C values) behind an elementwise_add's Y: y itself, or y's
 * reshape2 (written before op `before`) of a persistable to [1, C or -1, 1, 1]; *reshape_op: that
 * reshape2's index, else -1. NULL when neither. */
const char *pd_pass_bias_source(const pd_pass_ctx *c, const pd_block *b, int before, const char *y, int64_t C,
                                int *reshape_op);
/* removes the reshape2 that wrote `name` (a bias reshape a fusion made unread) when nothing reads
 * name any more and it is not protected; *i (an op index of the caller's loop) follows the removal */
pd_status pd_pass_drop_bias_reshape(pd_pass_ctx *c, pd_block *b, const char *name, int *i);
pd_status pd_pass_conv_bias(pd_pass_ctx *c);
pd_status pd_pass_conv_residual(pd_pass_ctx *c);
pd_status pd_pass_conv_act(pd_pass_ctx *c);
pd_status pd_pass_conv_to_fused(pd_pass_ctx *c);
pd_status pd_pass_fc(pd_pass_ctx *c);
pd_status pd_pass_elementwise_act(pd_pass_ctx *c);
pd_status pd_pass_se_residual(pd_pass_ctx *c);

#endif
