/* The executor: compiles a program block into an instruction list over the kernel table (each
 * op converted once, through the converters of pd_compat.h, with its attributes parsed into an
 * args struct), then runs it against a scope: persistable variables live in the scope,
 * everything else in the plan's frame and is released after its last use. Plans are cached by
 * (program, revision, block, feed names, fetch names). */
#ifndef PD_EXECUTOR_H
#define PD_EXECUTOR_H
#include "pd_program.h"
#include "pd_scope.h"

typedef struct pd_executor pd_executor;

typedef struct {
  const char *name;
  pd_tensor *t;        /* borrowed */
  const pd_lod *lod;   /* may be NULL */
} pd_feed;

typedef struct {
  pd_value v;          /* owned: tensor (+ LoD) or array; clear with pd_value_clear */
} pd_fetch;

pd_status pd_executor_new(pd_executor **out);
void pd_executor_free(pd_executor *e);
/* Runs block `block` of prog. Feeds are checked against their variables (dtype, rank and
 * known dims) and copied into the run; fetched values come back in fetched[0..n_fetch). */
pd_status pd_executor_run(pd_executor *e, pd_program *prog, int block, pd_scope *scope,
                          int n_feed, const pd_feed *feeds, int n_fetch,
                          const char *const *fetch_names, pd_fetch *fetched);
/* Compiles (and caches) the plan that pd_executor_run with these feed and fetch names would use,
 * without running it (the C inference API compiles at predictor creation). */
pd_status pd_executor_prepare(pd_executor *e, pd_program *prog, int block, int n_feed,
                              const char *const *feed_names, int n_fetch, const char *const *fetch_names);
/* Gives back what cached plans hold between runs (memory-plan workspaces); returns the bytes. */
int64_t pd_executor_shrink(pd_executor *e);
/* 0 turns the memory plan off for this executor's runs (default on; PADDLE_C_MEMPLAN=0 too). */
void pd_executor_set_memplan(pd_executor *e, int on);
/* 1: plans keep float32 activations in oneDNN's blocked layout between layout-aware ops
 * (pd_exec_layout.c; the C inference API with IR optimisation and oneDNN on); 2: also leave the
 * fetched values in it (their tensors carry the layout tag: the caller converts them, as the C
 * API's output handles do); | 4: also let fed values arrive blocked (a fed slot whose readers
 * all take blocked values keeps them, others get a plain copy: the predictor's micro-batch tail).
 * Set before the first run; default off. */
void pd_executor_set_layout(pd_executor *e, int on);
/* Where this executor runs (PD_CPU, the default, or a GPU ordinal; pd_device.h): on a GPU, feeds
 * and the scope's persistables the plan binds are moved to the device at the start of a run
 * (the scope then keeps the device copies), ops without tensor inputs create on the device, and
 * the CPU-only plan machinery (memory plan, blocked layouts) is off. Fetches stay on the device.
 * A CPU executor likewise moves scope values a GPU executor left there back to the host.
 * A GPU that the CUDA backend cannot give fails with PD_ERR_UNAVAILABLE. Changing it drops the
 * cached plans. */
pd_status pd_executor_set_device(pd_executor *e, int dev);
int pd_executor_device(const pd_executor *e);
/* Lists the op types of prog that cannot run (comma separated into buf); returns their count. */
int pd_program_unsupported_ops(const pd_program *prog, char *buf, size_t n);
/* What the cached plans look like (tests, benchmarks): instructions of the top-level list,
 * slots, constants folded or embedded, bytes of the memory plan's workspace. */
typedef struct {
  int n_instr, n_slots, n_consts;
  int64_t workspace_bytes;
} pd_plan_stats;
int pd_executor_plan_stats(pd_executor *e, pd_plan_stats *out, int cap);
/* Drops cached plans (e.g. before the program is freed). */
void pd_executor_clear(pd_executor *e);

/* Hook for ops that call back into Python (py_func, Print): set by the extension. ins[i] has
 * the LoD in_lods[i]; the callback fills outs[0..n_out) with new references (NULL: none). */
typedef pd_status (*pd_exec_callback_fn)(const pd_opdesc *op, pd_tensor **ins, const pd_lod *const *in_lods,
                                         int n_in, pd_tensor **outs, int n_out);
extern pd_exec_callback_fn pd_exec_callback;

#endif
