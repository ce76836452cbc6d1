/* The eager autograd engine. The runner's hook (pd_autograd_record) makes a grad node for each
 * differentiable op whose inputs need gradients; nodes hold detached views of the tensors their
 * backward rule uses (or only the shape), the forward attributes, and edges to the nodes (or
 * leaves) that produced their inputs. pd_autograd_run walks the graph by dependency counts,
 * accumulating into leaves (backward) or capturing (paddle.grad). Backward rules come from the
 * op table (generated into csrc/autograd/generated/) and run forward ops, so with create_graph
 * they are recorded too and higher orders work. */
#ifndef PD_AUTOGRAD_H
#define PD_AUTOGRAD_H
#include "../ops/pd_op.h"

typedef struct pd_node pd_node;

/* A tensor hook: may set *replace to a new gradient (a new reference) or leave it NULL. */
typedef pd_status (*pd_hook_fn)(void *ctx, pd_tensor *grad, pd_tensor **replace);
typedef struct pd_hook {
  int64_t id;
  pd_hook_fn fn;
  void *ctx;
  void (*free_ctx)(void *ctx);
  struct pd_hook *next;
} pd_hook;

typedef struct pd_autograd_meta {
  pd_tensor *grad;    /* accumulated gradient (leaves; non-leaves with retain_grads) */
  pd_node *node;      /* producing node (owned reference) for non-leaves */
  int slot;           /* output index in node */
  pd_hook *hooks;     /* leaf hooks (non-leaf hooks live on the node's slot) */
  int64_t retain_hook_id; /* id of the retain-grads hook on the node, 0 if none */
  int grad_zero_pending;  /* clear_grad(set_to_zero): grad holds stale data that reads as zero;
                             the next accumulation overwrites it, a read fills it with zeros */
  /* Row-sparse gradient (Paddle's SelectedRows, from embedding(sparse=True); sparse_grad.c):
   * sp_values set: the gradient is sum_k sp_values[k] put at row sp_rows[k], and grad is NULL;
   * sp_values NULL, sp_rows set: grad holds it densified (read through .grad) and is zero
   * outside sp_rows while its storage version is still sp_version. On an in-flight gradient
   * (a meta-only tensor a rule returns) sp_rows/sp_values are its content. */
  pd_tensor *sp_rows, *sp_values;
  uint64_t sp_version;
} pd_autograd_meta;

typedef struct pd_edge {
  pd_node *node;     /* producer node (owned), or NULL */
  int slot;          /* its output slot */
  pd_tensor *leaf;   /* leaf tensor needing a grad (owned), or NULL */
} pd_edge;

/* apply: grads_out[n_out] (NULL = zero) -> grads_in[n_edges] (NULL where not needed/unused). */
typedef pd_status (*pd_node_apply_fn)(pd_node *n, pd_tensor **grads_out, pd_tensor **grads_in);

struct pd_node {
  atomic_long refcount;
  const char *name;       /* op name for messages */
  int op;                 /* forward op id, -1 for custom nodes */
  int n_edges;            /* flattened tensor inputs */
  pd_edge *edges;
  int n_out;
  pd_meta *out_meta;      /* dtype/shape of each output (zero grads for unused outputs) */
  pd_hook **slot_hooks;   /* per output slot */
  pd_tensor **saved;      /* saved tensors (detached views or meta-only), rule-specific order */
  uint64_t *saved_version; /* storage version at save time, per saved tensor (UINT64_MAX: none) */
  int *saved_is_output;   /* >= 0: the saved tensor is output k of this node */
  int n_saved;
  void *args;             /* copy of the forward args struct (tensors replaced by saved) */
  void (*free_args)(void *args);
  pd_node_apply_fn apply;
  void *custom;           /* custom nodes (PyLayer): context */
  void (*free_custom)(void *custom);
  int released;           /* saved tensors freed after a backward without retain_graph */
  int null_grads;         /* apply takes NULL for outputs without a gradient (no zeros made) */
  int engine_idx;         /* scratch for the engine */
  pd_tensor **out_like;   /* append_backward's replay only: meta tensors of the outputs' program
                             variables (zeros for outputs that get no gradient), or NULL */
};

/* ---- grad mode (thread-local) ---- */
int pd_grad_enabled(void);
void pd_set_grad_enabled(int on);

/* ---- metas and nodes ---- */
pd_autograd_meta *pd_autograd_meta_get(pd_tensor *t, int create);
int pd_requires_grad(const pd_tensor *t);
pd_node *pd_node_new(const char *name, int op, int n_edges, int n_out);
void pd_node_retain(pd_node *n);
void pd_node_release(pd_node *n);
/* Fills edge i from input tensor t (no-op if t does not require grad). */
void pd_node_set_edge(pd_node *n, int i, pd_tensor *t);
/* Saves t (a detached view, or shape only) into saved slot k; out_slot >= 0 marks an output. */
pd_status pd_node_save(pd_node *n, int k, pd_tensor *t, int shape_only, int out_slot);
/* The saved tensor k for use in a rule (checks the version; re-attaches outputs to this node
 * when create_graph). Borrowed: valid while the node's saved tensors live. */
pd_status pd_node_saved(pd_node *n, int k, pd_tensor **out);
/* Makes outputs non-leaves of n (sets stop_gradient=0 on float/complex outputs). */
pd_status pd_node_attach_outputs(pd_node *n, pd_tensor **outs, int n_out);
/* The same for outputs of every dtype (integer and bool too: Paddle's rule for ops that have a
 * backward rule). */
pd_status pd_node_attach_outputs_any(pd_node *n, pd_tensor **outs, int n_out);

/* The gradient for reading (sparse_grad.c, above node.c): densifies a row-sparse gradient, then
 * pd_tensor_grad_dense (borrowed; NULL if none or on failure). */
pd_tensor *pd_tensor_grad(pd_tensor *t);
/* The dense gradient for reading (node.c): materialises a pending zero (borrowed; NULL if none or
 * on failure). A row-sparse gradient is left as it is: read .grad through pd_tensor_grad. */
pd_tensor *pd_tensor_grad_dense(pd_tensor *t);

/* ---- row-sparse gradients (sparse_grad.c) ---- */
/* True for an in-flight row-sparse gradient (a meta-only tensor carrying rows/values). */
static inline int pd_grad_is_sparse(const pd_tensor *g) {
  return g && !g->storage && g->autograd && g->autograd->sp_values;
}
/* An in-flight row-sparse gradient of like's shape/dtype (takes new references to rows/values). */
pd_status pd_sparse_grad_new(pd_tensor *rows, pd_tensor *values, const pd_tensor *like,
                             pd_tensor **out);
/* Dense tensor equal to the in-flight row-sparse gradient g (new reference). */
pd_status pd_sparse_grad_densify(pd_tensor *g, pd_tensor **out);
/* Accumulates the in-flight row-sparse g into leaf's gradient without densifying (consumes g). */
pd_status pd_leaf_accumulate_sparse(pd_tensor *leaf, pd_tensor *g);
/* Folds a leaf's row-sparse gradient into its dense grad (before a dense one is added to it). */
pd_status pd_leaf_fold_sparse(pd_tensor *leaf);
/* For .grad: densifies a leaf's row-sparse gradient into m->grad, keeping its row list. */
pd_status pd_leaf_materialize_sparse(pd_tensor *leaf);
/* The merged row-sparse gradient of t (sorted unique rows, summed values; new references), or
 * NULLs when t's gradient is dense or absent. */
pd_status pd_tensor_sparse_grad(pd_tensor *t, pd_tensor **rows, pd_tensor **values);
/* Drops the row-sparse part of a meta (set_to_zero: keeps an empty row-sparse gradient). */
pd_status pd_sparse_grad_clear(pd_autograd_meta *m, const pd_tensor *t, int set_to_zero);

/* ---- hooks ---- */
int64_t pd_tensor_add_hook(pd_tensor *t, pd_hook_fn fn, void *ctx, void (*free_ctx)(void *));
int pd_tensor_remove_hook(pd_tensor *t, int64_t id);
pd_status pd_tensor_retain_grads(pd_tensor *t);

/* ---- running backward ----
 * roots[n_roots] with grad_roots (NULL entries: ones). If inputs == NULL: accumulate into
 * leaves' .grad (Tensor.backward). Else: results[i] receives d roots / d inputs[i] (new refs;
 * NULL if unused and allow_unused, error otherwise). */
pd_status pd_autograd_run(pd_tensor **roots, pd_tensor **grad_roots, int n_roots,
                          pd_tensor **inputs, int n_inputs, pd_tensor **results,
                          int retain_graph, int create_graph, int allow_unused);

/* Records dst._copy_(src) (call before writing): dst's history becomes "copy of src". */
pd_status pd_autograd_record_copy(pd_tensor *dst, pd_tensor *src);

/* Installs pd_autograd_record into the runner (idempotent). */
void pd_autograd_init(void);

/* ---- helpers shared by generated rules (differentiable: they run ops) ---- */
/* True when t has a dim not known yet (a program variable's -1): rules then take shapes from
 * tensors at run time (shape/reshape_dyn, full_like, expand_as) instead of attributes. */
static inline int pd_bw_has_unknown(const pd_tensor *t) {
  for (int d = 0; d < t->ndim; d++)
    if (t->shape[d] < 0) return 1;
  return 0;
}
/* Sums g over broadcast dims so it has like's shape (like may be meta-only). */
pd_status pd_bw_unbroadcast(pd_tensor *g, const pd_tensor *like, pd_tensor **out);
/* Zeros with like's shape and dtype. */
pd_status pd_bw_zeros_like(const pd_tensor *like, pd_tensor **out);
/* Ones with like's shape and dtype. */
pd_status pd_bw_ones_like(const pd_tensor *like, pd_tensor **out);
/* g (the gradient of a reduction over axis with keepdim) broadcast back to like's shape. */
pd_status pd_bw_expand_reduced(pd_tensor *g, const pd_tensor *like, pd_int_array axis,
                               int keepdim, pd_tensor **out);
/* A [1] tensor of value v with like's dtype. */
pd_status pd_bw_scalar(double v, const pd_tensor *like, pd_tensor **out);
/* Runs a single-output op (new reference in *out). */
pd_status pd_bw_run1(int op, const void *args, pd_tensor **out);
/* Complex conjugate (identity for real dtypes). */
pd_status pd_bw_conj(pd_tensor *t, pd_tensor **out);

/* Generated: per-op record functions (save args, choose apply). */
typedef pd_status (*pd_record_fn)(pd_node *n, const void *args, pd_tensor **outs, int n_out);
extern const pd_record_fn pd_record_fns[];

#endif
