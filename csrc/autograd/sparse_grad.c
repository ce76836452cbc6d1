/* Row-sparse gradients (Paddle's SelectedRows) on the autograd side. embedding(sparse=True)'s
 * backward (pd_bw_embedding) hands the engine an in-flight gradient: a meta-only tensor of the
 * weight's shape whose autograd meta carries rows/values (ops/sparse.yaml). A leaf accumulates it
 * without densifying (rows and values concatenated; duplicates are merged when an optimizer asks
 * for it, pd_tensor_sparse_grad); every other consumer (a producer node, paddle.grad, a leaf
 * hook, create_graph) gets it densified. A dense gradient arriving at a leaf that holds a sparse
 * one folds it into a dense sum (tied weights). Reading .grad densifies on demand but keeps the
 * row list, so an optimizer step after the read still updates only the touched rows, unless the
 * dense tensor was written to since (then it is the gradient, dense). */
#include <stdlib.h>
#include <string.h>
#include "pd_autograd.h"
#include "../ops/generated/pd_ops_gen.h"

static pd_status oom(void) { return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory"); }

static int strictly_increasing(const pd_tensor *rows) {
  const int64_t *r = (const int64_t *)pd_tensor_data(rows);
  for (int64_t k = 1; k < rows->numel; k++)
    if (r[k - 1] >= r[k]) return 0;
  return 1;
}

/* Runs a two-output op (new references). */
static pd_status run2(int op, const void *args, pd_tensor **a, pd_tensor **b) {
  pd_tensor *buf[4], **o = buf;
  int n = -4;
  PD_TRY(pd_op_run(op, args, &o, &n));
  *a = o[0];
  *b = o[1];
  for (int i = 2; i < n; i++) pd_tensor_release(o[i]);
  if (o != buf) free(o);
  return PD_OK;
}

/* dense[rows[k]] += values[k], in place (bumps dense's version). */
static pd_status rows_add(pd_tensor *dense, pd_tensor *rows, pd_tensor *values) {
  pd_selected_rows_add__args a = {dense, rows, values};
  pd_tensor *o;
  PD_TRY(pd_bw_run1(PD_OP_SELECTED_ROWS_ADD_, &a, &o));
  pd_tensor_release(o);
  return PD_OK;
}

static pd_status to_dense(const pd_tensor *like, pd_tensor *rows, pd_tensor *values,
                          pd_tensor **out) {
  if (!values->storage) {
    /* a static program (values are a variable): zeros recorded as an op, and the result is the
     * in-place op's output (the program's variable), not the zeros tensor itself */
    pd_tensor *z;
    pd_full_args f = {{like->shape, like->ndim}, pd_scalar_float(0.0), (int)values->dtype};
    PD_TRY(pd_bw_run1(PD_OP_FULL, &f, &z));
    pd_selected_rows_add__args a = {z, rows, values};
    pd_status s = pd_bw_run1(PD_OP_SELECTED_ROWS_ADD_, &a, out);
    pd_tensor_release(z);
    if (s == PD_OK) (*out)->stop_gradient = 1;
    return s;
  }
  PD_TRY(pd_tensor_zeros(values->dtype, like->ndim, like->shape, out));
  pd_status s = rows_add(*out, rows, values);
  if (s != PD_OK) {
    pd_tensor_release(*out);
    *out = NULL;
    return s;
  }
  (*out)->stop_gradient = 1;
  return PD_OK;
}

/* *dst = concat(*dst, add) along dim 0 (an empty *dst is replaced). */
static pd_status append(pd_tensor **dst, pd_tensor *add) {
  if ((*dst)->numel == 0) {
    pd_tensor_retain(add);
    pd_tensor_release(*dst);
    *dst = add;
    return PD_OK;
  }
  pd_tensor *both[2] = {*dst, add}, *o;
  pd_concat_args a = {{both, 2}, 0};
  PD_TRY(pd_bw_run1(PD_OP_CONCAT, &a, &o));
  pd_tensor_release(*dst);
  *dst = o;
  return PD_OK;
}

static void drop(pd_tensor **t) {
  pd_tensor_release(*t);
  *t = NULL;
}

pd_status pd_sparse_grad_new(pd_tensor *rows, pd_tensor *values, const pd_tensor *like,
                             pd_tensor **out) {
  pd_tensor *t;
  PD_TRY(pd_tensor_meta(like->dtype, like->ndim, like->shape, &t));
  pd_autograd_meta *m = pd_autograd_meta_get(t, 1);
  if (!m) {
    pd_tensor_release(t);
    return oom();
  }
  pd_tensor_retain(rows);
  pd_tensor_retain(values);
  m->sp_rows = rows;
  m->sp_values = values;
  t->stop_gradient = 1;
  *out = t;
  return PD_OK;
}

pd_status pd_sparse_grad_densify(pd_tensor *g, pd_tensor **out) {
  return to_dense(g, g->autograd->sp_rows, g->autograd->sp_values, out);
}

pd_status pd_leaf_accumulate_sparse(pd_tensor *leaf, pd_tensor *g) {
  pd_autograd_meta *m = pd_autograd_meta_get(leaf, 1);
  pd_tensor *rows = g->autograd->sp_rows, *vals = g->autograd->sp_values;
  pd_status s = PD_OK;
  if (!m) {
    pd_tensor_release(g);
    return oom();
  }
  if (m->grad && m->grad_zero_pending) { /* cleared with set_to_zero: stale data reads as 0 */
    drop(&m->grad);
    m->grad_zero_pending = 0;
    drop(&m->sp_rows);
  }
  if (m->sp_values) { /* row-sparse so far: concatenate */
    s = append(&m->sp_rows, rows);
    if (s == PD_OK) s = append(&m->sp_values, vals);
  } else if (m->grad && pd_tensor_is_contiguous(m->grad) && m->grad->dtype == vals->dtype) {
    /* dense (or densified by a read): add the rows in place */
    s = rows_add(m->grad, rows, vals);
    if (s == PD_OK && m->sp_rows) {
      s = append(&m->sp_rows, rows);
      m->sp_version = m->grad->storage->version;
    }
  } else if (m->grad) { /* a grad the user set (not contiguous): dense sum */
    pd_tensor *d = NULL, *o = NULL;
    s = to_dense(leaf, rows, vals, &d);
    pd_add_args a = {m->grad, d};
    if (s == PD_OK) s = pd_bw_run1(PD_OP_ADD, &a, &o);
    pd_tensor_release(d);
    if (s == PD_OK) {
      pd_tensor_release(m->grad);
      m->grad = o;
      o->stop_gradient = 1;
      drop(&m->sp_rows);
    }
  } else { /* the first gradient */
    drop(&m->sp_rows);
    pd_tensor_retain(rows);
    pd_tensor_retain(vals);
    m->sp_rows = rows;
    m->sp_values = vals;
  }
  pd_tensor_release(g);
  return s;
}

pd_status pd_leaf_fold_sparse(pd_tensor *leaf) {
  pd_autograd_meta *m = leaf->autograd;
  if (!m || !m->sp_rows) return PD_OK;
  if (m->sp_values) {
    pd_tensor *d;
    PD_TRY(to_dense(leaf, m->sp_rows, m->sp_values, &d));
    pd_tensor_release(m->grad);
    m->grad = d;
    m->grad_zero_pending = 0;
  }
  drop(&m->sp_rows);
  drop(&m->sp_values);
  return PD_OK;
}

pd_status pd_leaf_materialize_sparse(pd_tensor *leaf) {
  pd_autograd_meta *m = leaf->autograd;
  if (!m || !m->sp_values) return PD_OK;
  pd_tensor *d;
  PD_TRY(to_dense(leaf, m->sp_rows, m->sp_values, &d));
  pd_tensor_release(m->grad);
  m->grad = d;
  m->grad_zero_pending = 0;
  m->sp_version = d->storage->version;
  drop(&m->sp_values);
  return PD_OK;
}

/* .grad's reader (the Python getter, the engine): the row-sparse part first, then node.c's dense
 * reader, so node.c never calls into this file. */
pd_tensor *pd_tensor_grad(pd_tensor *t) {
  pd_autograd_meta *m = t->autograd;
  if (m && m->sp_values && pd_leaf_materialize_sparse(t) != PD_OK) return NULL;
  return pd_tensor_grad_dense(t);
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* Sorted unique copy of rows (int64). */
static pd_status unique_rows(pd_tensor *rows, pd_tensor **out) {
  pd_tensor *c;
  PD_TRY(pd_tensor_clone(rows, &c));
  int64_t *r = (int64_t *)pd_tensor_data(c), n = c->numel, u = 0;
  qsort(r, (size_t)n, sizeof(int64_t), cmp_i64);
  for (int64_t k = 0; k < n; k++)
    if (k == 0 || r[k] != r[u - 1]) r[u++] = r[k];
  pd_status s = pd_tensor_empty(PD_INT64, 1, &u, out);
  if (s == PD_OK) memcpy(pd_tensor_data(*out), r, sizeof(int64_t) * (size_t)u);
  pd_tensor_release(c);
  return s;
}

pd_status pd_tensor_sparse_grad(pd_tensor *t, pd_tensor **rows, pd_tensor **values) {
  pd_autograd_meta *m = t->autograd;
  *rows = *values = NULL;
  if (!m || !m->sp_rows) return PD_OK;
  if (m->sp_values) {
    if (!pd_tensor_is_contiguous(m->sp_rows) || !strictly_increasing(m->sp_rows)) {
      pd_tensor *r, *v;
      pd_merge_selected_rows_args a = {m->sp_rows, m->sp_values, t->shape[0]};
      PD_TRY(run2(PD_OP_MERGE_SELECTED_ROWS, &a, &r, &v));
      pd_tensor_release(m->sp_rows);
      pd_tensor_release(m->sp_values);
      m->sp_rows = r;
      m->sp_values = v;
    }
    pd_tensor_retain(m->sp_rows);
    pd_tensor_retain(m->sp_values);
    *rows = m->sp_rows;
    *values = m->sp_values;
    return PD_OK;
  }
  /* densified by a read: still row-sparse unless written to since */
  if (!m->grad || m->grad_zero_pending || m->grad->storage->version != m->sp_version) {
    drop(&m->sp_rows);
    return PD_OK;
  }
  if (!strictly_increasing(m->sp_rows)) {
    pd_tensor *u;
    PD_TRY(unique_rows(m->sp_rows, &u));
    pd_tensor_release(m->sp_rows);
    m->sp_rows = u;
  }
  pd_index_select_args a = {m->grad, m->sp_rows, 0};
  PD_TRY(pd_bw_run1(PD_OP_INDEX_SELECT, &a, values));
  pd_tensor_retain(m->sp_rows);
  *rows = m->sp_rows;
  return PD_OK;
}

pd_status pd_sparse_grad_clear(pd_autograd_meta *m, const pd_tensor *t, int set_to_zero) {
  if (!m->sp_rows) return PD_OK;
  drop(&m->sp_rows);
  drop(&m->sp_values);
  drop(&m->grad); /* the densified copy */
  m->grad_zero_pending = 0;
  if (!set_to_zero) return PD_OK;
  int64_t zero = 0, vs[PD_MAX_DIMS];
  memcpy(vs, t->shape, sizeof(int64_t) * (size_t)t->ndim);
  vs[0] = 0;
  PD_TRY(pd_tensor_empty(PD_INT64, 1, &zero, &m->sp_rows));
  return pd_tensor_empty(t->dtype, t->ndim, vs, &m->sp_values);
}

/* embedding's backward: row-sparse for a leaf weight with sparse=True when the backward is not
 * recorded (a row-sparse gradient has no graph), embedding_grad (dense) otherwise. */
pd_status pd_bw_embedding(pd_node *n, pd_tensor **gout, pd_tensor **gin) {
  if (!n->edges[1].node && !n->edges[1].leaf) return PD_OK;
  const pd_embedding_args *a = (const pd_embedding_args *)n->args;
  pd_tensor *x, *w;
  PD_TRY(pd_node_saved(n, 0, &x));
  PD_TRY(pd_node_saved(n, 1, &w));
  if (a->sparse && n->edges[1].leaf && !pd_grad_enabled()) {
    pd_embedding_sparse_grad_args g = {x, w, gout[0], a->padding_idx};
    pd_tensor *r, *v;
    PD_TRY(run2(PD_OP_EMBEDDING_SPARSE_GRAD, &g, &r, &v));
    pd_status s = pd_sparse_grad_new(r, v, w, &gin[1]);
    pd_tensor_release(r);
    pd_tensor_release(v);
    return s;
  }
  pd_embedding_grad_args g = {x, w, gout[0], a->padding_idx};
  return pd_bw_run1(PD_OP_EMBEDDING_GRAD, &g, &gin[1]);
}
