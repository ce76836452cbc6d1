/* Pruning a program to what some targets need (Paddle's core.prune, used by
 * paddle.static.normalize_program / save_inference_model). */
#ifndef PD_PRUNE_H
#define PD_PRUNE_H
#include "pd_program.h"

/* A copy of p whose global block keeps only the ops the target variables depend on. Walking the
 * ops backwards, an op is kept when it is marked is_target or writes a needed variable (an
 * optimizer op, op_role bit 2, only when it is marked); a kept op's inputs become needed, except
 * the fed variables (their producers are cut off), and so does every variable the ops of its
 * sub-blocks use. Variables of the global block no kept op (or its sub-blocks) uses are dropped;
 * other blocks are copied unchanged. Targets that are fed are not followed. */
pd_status pd_program_prune(const pd_program *p, int n_feed, const char *const *feeds, int n_targets,
                           const char *const *targets, pd_program **out);

#endif
