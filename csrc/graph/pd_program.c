/* The program IR: construction, lookup, mutation, deep copy and validation of programs, blocks,
 * variables and ops (pd_program.h). Text rendering and unique names are in pd_program_text.c. */
#include "pd_program.h"
#include <stdlib.h>
#include <string.h>

extern void (*pd_tensor_var_free_hook)(pd_tensor *);

static char *dupstr(const char *s) {
  if (!s) s = "";
  size_t n = strlen(s) + 1;
  char *d = (char *)malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

static pd_status oom(void) { return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "out of memory building a program"); }

/* ---------------------------------------------------------------- attributes */
void pd_attr_clear(pd_attr *a) {
  if (!a) return;
  free(a->name);
  free(a->s);
  free(a->ints);
  free(a->floats);
  if (a->strings)
    for (int64_t k = 0; k < a->n; k++) free(a->strings[k]);
  free(a->strings);
  free(a->scalars);
  memset(a, 0, sizeof *a);
}

pd_status pd_attr_copy(pd_attr *dst, const pd_attr *src) {
  memset(dst, 0, sizeof *dst);
  dst->type = src->type;
  dst->i = src->i;
  dst->f = src->f;
  dst->sc = src->sc;
  dst->n = src->n;
  dst->name = dupstr(src->name);
  if (!dst->name) goto fail;
  if (src->s && !(dst->s = dupstr(src->s))) goto fail;
  size_t n = (size_t)(src->n > 0 ? src->n : 0);
  if (src->ints) {
    dst->ints = (int64_t *)malloc(sizeof(int64_t) * (n ? n : 1));
    if (!dst->ints) goto fail;
    if (n) memcpy(dst->ints, src->ints, sizeof(int64_t) * n);
  }
  if (src->floats) {
    dst->floats = (double *)malloc(sizeof(double) * (n ? n : 1));
    if (!dst->floats) goto fail;
    if (n) memcpy(dst->floats, src->floats, sizeof(double) * n);
  }
  if (src->scalars) {
    dst->scalars = (pd_scalar *)malloc(sizeof(pd_scalar) * (n ? n : 1));
    if (!dst->scalars) goto fail;
    if (n) memcpy(dst->scalars, src->scalars, sizeof(pd_scalar) * n);
  }
  if (src->strings) {
    dst->strings = (char **)calloc(n ? n : 1, sizeof(char *));
    if (!dst->strings) goto fail;
    for (size_t k = 0; k < n; k++)
      if (!(dst->strings[k] = dupstr(src->strings[k]))) goto fail;
  }
  return PD_OK;
fail:
  pd_attr_clear(dst);
  return oom();
}

const char *pd_attr_type_name(pd_attr_type t) {
  static const char *names[] = {"INT", "FLOAT", "STRING", "INTS", "FLOATS", "STRINGS", "BOOLEAN",
                                "BOOLEANS", "BLOCK", "LONG", "BLOCKS", "LONGS", "FLOAT64S", "VAR",
                                "VARS", "FLOAT64", "SCALAR", "SCALARS"};
  return (unsigned)t < PD_AT_NUM_TYPES ? names[t] : "UNKNOWN";
}

pd_status pd_attr_as_int(const pd_opdesc *op, const pd_attr *a, int64_t *v) {
  switch (a->type) {
    case PD_AT_INT: case PD_AT_LONG: case PD_AT_BOOLEAN: case PD_AT_BLOCK: *v = a->i; return PD_OK;
    case PD_AT_FLOAT: case PD_AT_FLOAT64: *v = (int64_t)a->f; return PD_OK;
    case PD_AT_SCALAR: *v = a->sc.kind == PD_SCALAR_FLOAT ? (int64_t)a->sc.f : a->sc.i; return PD_OK;
    default:
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] attribute %s: expected an integer, received %s",
                          op ? op->type : "?", a->name, pd_attr_type_name(a->type));
  }
}

pd_status pd_attr_as_double(const pd_opdesc *op, const pd_attr *a, double *v) {
  switch (a->type) {
    case PD_AT_INT: case PD_AT_LONG: case PD_AT_BOOLEAN: *v = (double)a->i; return PD_OK;
    case PD_AT_FLOAT: case PD_AT_FLOAT64: *v = a->f; return PD_OK;
    case PD_AT_SCALAR: *v = a->sc.f; return PD_OK;
    default:
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] attribute %s: expected a number, received %s",
                          op ? op->type : "?", a->name, pd_attr_type_name(a->type));
  }
}

/* ---------------------------------------------------------------- variables */
void pd_var_retain(pd_var *v) {
  if (v) atomic_fetch_add_explicit(&v->refcount, 1, memory_order_relaxed);
}

void pd_var_release(pd_var *v) {
  if (!v || atomic_fetch_sub_explicit(&v->refcount, 1, memory_order_acq_rel) != 1) return;
  free(v->name);
  for (int k = 0; k < v->n_attrs; k++) pd_attr_clear(&v->attrs[k]);
  free(v->attrs);
  free(v);
}

static void tensor_var_free(pd_tensor *t) {
  pd_var *v = t->var;
  t->var = NULL;
  if (v->tensor == t) v->tensor = NULL;
  pd_var_release(v);
}

extern void (*pd_tensor_var_retain_hook)(struct pd_var *);
static void tensor_var_retain(pd_var *v) { pd_var_retain(v); }
void pd_program_init(void) {
  pd_tensor_var_free_hook = tensor_var_free;
  pd_tensor_var_retain_hook = tensor_var_retain;
}

static void var_meta_shape(const pd_var *v, pd_tensor *t) {
  int nd = v->ndim < 0 ? 0 : v->ndim;
  t->dtype = pd_dtype_is_valid(v->dtype) ? (pd_dtype)v->dtype : PD_FLOAT32;
  t->ndim = nd;
  int64_t n = 1;
  int known = 1;
  for (int d = 0; d < nd; d++) {
    t->shape[d] = v->dims[d];
    if (v->dims[d] < 0) known = 0;
    else n *= v->dims[d];
  }
  pd_contiguous_strides(nd, t->shape, t->strides);
  t->numel = known ? n : -1;
}

pd_status pd_var_tensor_new(pd_var *v, pd_tensor **out) {
  int64_t ones[PD_MAX_DIMS];
  for (int d = 0; d < PD_MAX_DIMS; d++) ones[d] = 1;
  pd_tensor *t;
  PD_TRY(pd_tensor_meta(PD_FLOAT32, 0, ones, &t));
  pd_program_init();
  var_meta_shape(v, t);
  pd_var_retain(v);
  t->var = v;
  t->stop_gradient = v->stop_gradient;
  *out = t;
  return PD_OK;
}

pd_status pd_var_tensor(pd_var *v, pd_tensor **out) {
  if (v->tensor) {
    pd_tensor_retain(v->tensor);
    *out = v->tensor;
    return PD_OK;
  }
  PD_TRY(pd_var_tensor_new(v, out));
  v->tensor = *out;
  return PD_OK;
}

void pd_var_sync_tensor(pd_var *v) {
  if (v->tensor) var_meta_shape(v, v->tensor);
}

void pd_meta_refine_dims(pd_tensor *t, int ndim, const int64_t *dims) {
  if (!t || t->storage || !t->var || t->ndim != ndim || t->var->ndim != ndim) return;
  pd_var *v = t->var;
  int changed = 0;
  for (int d = 0; d < ndim; d++)
    if (v->dims[d] < 0 && dims[d] >= 0) {
      v->dims[d] = dims[d];
      changed = 1;
    }
  if (!changed) return;
  var_meta_shape(v, t);
  pd_var_sync_tensor(v);
  if (v->block) pd_program_touch(v->block->prog);
}

pd_status pd_var_set_shape(pd_var *v, int ndim, const int64_t *dims) {
  if (ndim > PD_MAX_DIMS)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "variable %s: %d dims, at most %d are supported",
                        v->name, ndim, PD_MAX_DIMS);
  v->ndim = ndim;
  for (int d = 0; d < ndim; d++) v->dims[d] = dims[d] < 0 ? -1 : dims[d];
  pd_var_sync_tensor(v);
  if (v->block) pd_program_touch(v->block->prog);
  return PD_OK;
}

static uint32_t hash_str(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
  return h;
}

static pd_status rehash(pd_block *b, int cap) {
  int *h = (int *)calloc((size_t)cap, sizeof(int));
  if (!h) return oom();
  for (int i = 0; i < b->n_vars; i++) {
    uint32_t k = hash_str(b->vars[i]->name) & (uint32_t)(cap - 1);
    while (h[k]) k = (k + 1) & (uint32_t)(cap - 1);
    h[k] = i + 1;
  }
  free(b->hash);
  b->hash = h;
  b->hcap = cap;
  return PD_OK;
}

pd_var *pd_block_find_var(const pd_block *b, const char *name) {
  if (!b || !b->hcap || !name) return NULL;
  uint32_t k = hash_str(name) & (uint32_t)(b->hcap - 1);
  while (b->hash[k]) {
    pd_var *v = b->vars[b->hash[k] - 1];
    if (strcmp(v->name, name) == 0) return v;
    k = (k + 1) & (uint32_t)(b->hcap - 1);
  }
  return NULL;
}

pd_var *pd_block_find_var_recursive(const pd_block *b, const char *name) {
  int guard = 0;
  while (b && guard++ <= b->prog->n_blocks) {
    pd_var *v = pd_block_find_var(b, name);
    if (v) return v;
    if (b->parent_idx < 0 || b->parent_idx >= b->prog->n_blocks || b->parent_idx == b->idx) return NULL;
    b = b->prog->blocks[b->parent_idx];
  }
  return NULL;
}

static pd_status add_var(pd_block *b, pd_var *v) {
  if (b->n_vars == b->cap_vars) {
    int nc = b->cap_vars ? b->cap_vars * 2 : 16;
    pd_var **nv = (pd_var **)realloc(b->vars, sizeof(pd_var *) * (size_t)nc);
    if (!nv) return oom();
    b->vars = nv;
    b->cap_vars = nc;
  }
  b->vars[b->n_vars++] = v;
  v->block = b;
  if (b->n_vars * 2 > b->hcap) return rehash(b, b->hcap ? b->hcap * 2 : 32);
  uint32_t k = hash_str(v->name) & (uint32_t)(b->hcap - 1);
  while (b->hash[k]) k = (k + 1) & (uint32_t)(b->hcap - 1);
  b->hash[k] = b->n_vars;
  return PD_OK;
}

pd_status pd_var_new_detached(const char *name, pd_var **out) {
  pd_var *v = (pd_var *)calloc(1, sizeof *v);
  if (!v) return oom();
  atomic_init(&v->refcount, 1);
  v->name = dupstr(name);
  if (!v->name) {
    free(v);
    return oom();
  }
  v->type = PD_VT_LOD_TENSOR;
  v->dtype = PD_FLOAT32;
  *out = v;
  return PD_OK;
}

pd_status pd_block_var(pd_block *b, const char *name, pd_var **out) {
  pd_var *v = pd_block_find_var(b, name);
  if (v) {
    *out = v;
    return PD_OK;
  }
  if (!name || !*name) return pd_set_error(PD_ERR_INVALID_ARGUMENT, "a variable needs a non-empty name");
  v = (pd_var *)calloc(1, sizeof *v);
  if (!v) return oom();
  atomic_init(&v->refcount, 1);
  v->name = dupstr(name);
  if (!v->name) {
    free(v);
    return oom();
  }
  v->type = PD_VT_LOD_TENSOR;
  v->dtype = PD_FLOAT32;
  v->ndim = 0;
  v->pb_has = PD_PB_PERSISTABLE;
  pd_status s = add_var(b, v);
  if (s != PD_OK) {
    pd_var_release(v);
    return s;
  }
  pd_program_touch(b->prog);
  *out = v;
  return PD_OK;
}

pd_status pd_block_remove_var(pd_block *b, const char *name) {
  for (int i = 0; i < b->n_vars; i++) {
    if (strcmp(b->vars[i]->name, name) != 0) continue;
    pd_var *v = b->vars[i];
    memmove(&b->vars[i], &b->vars[i + 1], sizeof(pd_var *) * (size_t)(b->n_vars - i - 1));
    b->n_vars--;
    v->block = NULL;
    pd_var_release(v);
    pd_program_touch(b->prog);
    return rehash(b, b->hcap ? b->hcap : 32);
  }
  return pd_set_error(PD_ERR_NOT_FOUND, "block %d has no variable %s", b->idx, name);
}

pd_status pd_block_retain_vars(pd_block *b, const unsigned char *keep) {
  int j = 0;
  for (int i = 0; i < b->n_vars; i++) {
    if (keep[i]) {
      b->vars[j++] = b->vars[i];
      continue;
    }
    b->vars[i]->block = NULL;
    pd_var_release(b->vars[i]);
  }
  if (j == b->n_vars) return PD_OK;
  b->n_vars = j;
  pd_program_touch(b->prog);
  return rehash(b, b->hcap ? b->hcap : 32);
}

static pd_status rename_in_op(pd_opdesc *op, const char *o, const char *n) {
  pd_opslot *lists[2] = {op->in, op->out};
  int counts[2] = {op->n_in, op->n_out};
  for (int w = 0; w < 2; w++)
    for (int i = 0; i < counts[w]; i++)
      for (int k = 0; k < lists[w][i].n; k++)
        if (strcmp(lists[w][i].args[k], o) == 0) {
          char *d = dupstr(n);
          if (!d) return oom();
          free(lists[w][i].args[k]);
          lists[w][i].args[k] = d;
        }
  return PD_OK;
}

pd_status pd_block_rename_var(pd_block *b, const char *old_name, const char *new_name) {
  pd_var *v = pd_block_find_var(b, old_name);
  if (!v) return pd_set_error(PD_ERR_NOT_FOUND, "block %d has no variable %s", b->idx, old_name);
  if (pd_block_find_var(b, new_name))
    return pd_set_error(PD_ERR_ALREADY_EXISTS, "block %d already has a variable %s", b->idx, new_name);
  char *o = dupstr(old_name), *d = dupstr(new_name);
  if (!o || !d) {
    free(o);
    free(d);
    return oom();
  }
  free(v->name);
  v->name = d;
  pd_status s = rehash(b, b->hcap);
  /* uses in this block and in blocks nested under it */
  pd_program *p = b->prog;
  for (int bi = 0; s == PD_OK && bi < p->n_blocks; bi++) {
    const pd_block *x = p->blocks[bi];
    int under = 0;
    for (int g = 0; x && g <= p->n_blocks; g++) {
      if (x == b) { under = 1; break; }
      if (x->parent_idx < 0 || x->parent_idx >= p->n_blocks || x->parent_idx == x->idx) break;
      x = p->blocks[x->parent_idx];
    }
    if (!under) continue;
    for (int i = 0; s == PD_OK && i < p->blocks[bi]->n_ops; i++) s = rename_in_op(p->blocks[bi]->ops[i], o, new_name);
  }
  free(o);
  pd_program_touch(p);
  return s;
}

/* ---------------------------------------------------------------- ops */
static void opdesc_clear(pd_opdesc *op) {
  free(op->type);
  pd_opslot *lists[2] = {op->in, op->out};
  int counts[2] = {op->n_in, op->n_out};
  for (int w = 0; w < 2; w++) {
    for (int i = 0; i < counts[w]; i++) {
      free(lists[w][i].name);
      for (int k = 0; k < lists[w][i].n; k++) free(lists[w][i].args[k]);
      free(lists[w][i].args);
    }
    free(lists[w]);
  }
  for (int i = 0; i < op->n_attrs; i++) pd_attr_clear(&op->attrs[i]);
  free(op->attrs);
  pd_block *b = op->block;
  memset(op, 0, sizeof *op);
  op->block = b;
}

static void opdesc_free(pd_opdesc *op) {
  if (!op) return;
  opdesc_clear(op);
  free(op);
}

static pd_status new_op(pd_block *b, pd_opdesc **out) {
  pd_opdesc *op = (pd_opdesc *)calloc(1, sizeof *op);
  if (!op) return oom();
  op->type = dupstr("");
  if (!op->type) {
    free(op);
    return oom();
  }
  op->block = b;
  if (b->n_ops == b->cap_ops) {
    int nc = b->cap_ops ? b->cap_ops * 2 : 16;
    pd_opdesc **no = (pd_opdesc **)realloc(b->ops, sizeof(pd_opdesc *) * (size_t)nc);
    if (!no) {
      opdesc_free(op);
      return oom();
    }
    b->ops = no;
    b->cap_ops = nc;
  }
  *out = op;
  return PD_OK;
}

pd_status pd_block_insert_op(pd_block *b, int index, pd_opdesc **out) {
  if (index < 0 || index > b->n_ops)
    return pd_set_error(PD_ERR_OUT_OF_RANGE, "op index %d out of range [0, %d]", index, b->n_ops);
  pd_opdesc *op = NULL;
  PD_TRY(new_op(b, &op));
  memmove(&b->ops[index + 1], &b->ops[index], sizeof(pd_opdesc *) * (size_t)(b->n_ops - index));
  b->ops[index] = op;
  b->n_ops++;
  pd_program_touch(b->prog);
  *out = op;
  return PD_OK;
}

pd_status pd_block_append_op(pd_block *b, pd_opdesc **out) { return pd_block_insert_op(b, b->n_ops, out); }

pd_status pd_block_remove_ops(pd_block *b, int start, int end) {
  if (start < 0 || end > b->n_ops || start > end)
    return pd_set_error(PD_ERR_OUT_OF_RANGE, "op range [%d, %d) out of range [0, %d)", start, end, b->n_ops);
  pd_program *p = b->prog;
  int k = end - start;
  pd_opdesc **nd = (pd_opdesc **)realloc(p->dead, sizeof(pd_opdesc *) * (size_t)(p->n_dead + k + 1));
  if (!nd) return oom();
  p->dead = nd;
  for (int i = start; i < end; i++) p->dead[p->n_dead++] = b->ops[i];
  memmove(&b->ops[start], &b->ops[end], sizeof(pd_opdesc *) * (size_t)(b->n_ops - end));
  b->n_ops -= k;
  pd_program_touch(p);
  return PD_OK;
}

int pd_block_op_index(const pd_block *b, const pd_opdesc *op) {
  for (int i = 0; i < b->n_ops; i++)
    if (b->ops[i] == op) return i;
  return -1;
}

static void touch_op(pd_opdesc *op) {
  if (op->block) pd_program_touch(op->block->prog);
}

pd_status pd_opdesc_set_type(pd_opdesc *op, const char *type) {
  char *d = dupstr(type);
  if (!d) return oom();
  free(op->type);
  op->type = d;
  touch_op(op);
  return PD_OK;
}

const pd_opslot *pd_opdesc_slot(const pd_opdesc *op, int is_out, const char *name) {
  const pd_opslot *l = is_out ? op->out : op->in;
  int n = is_out ? op->n_out : op->n_in;
  for (int i = 0; i < n; i++)
    if (strcmp(l[i].name, name) == 0) return &l[i];
  return NULL;
}

int pd_opdesc_reads(const pd_opdesc *op, const char *name) {
  for (int s = 0; s < op->n_in; s++)
    for (int k = 0; k < op->in[s].n; k++)
      if (strcmp(op->in[s].args[k], name) == 0) return 1;
  for (int a = 0; a < op->n_attrs; a++) {
    const pd_attr *at = &op->attrs[a];
    if (at->type == PD_AT_VAR && at->s && strcmp(at->s, name) == 0) return 1;
    for (int64_t j = 0; at->type == PD_AT_VARS && j < at->n; j++)
      if (strcmp(at->strings[j], name) == 0) return 1;
  }
  return 0;
}

pd_status pd_opdesc_set_slot(pd_opdesc *op, int is_out, const char *name, int n,
                             const char *const *args) {
  pd_opslot **lp = is_out ? &op->out : &op->in;
  int *np = is_out ? &op->n_out : &op->n_in;
  char **a = (char **)calloc((size_t)(n > 0 ? n : 1), sizeof(char *));
  if (!a) return oom();
  for (int k = 0; k < n; k++)
    if (!(a[k] = dupstr(args[k]))) {
      for (int j = 0; j < k; j++) free(a[j]);
      free(a);
      return oom();
    }
  pd_opslot *s = (pd_opslot *)pd_opdesc_slot(op, is_out, name);
  if (!s) {
    pd_opslot *nl = (pd_opslot *)realloc(*lp, sizeof(pd_opslot) * (size_t)(*np + 1));
    char *nm = dupstr(name);
    if (!nl || !nm) {
      if (nl) *lp = nl;
      free(nm);
      for (int j = 0; j < n; j++) free(a[j]);
      free(a);
      return oom();
    }
    *lp = nl;
    s = &nl[(*np)++];
    s->name = nm;
    s->n = 0;
    s->args = NULL;
  }
  for (int k = 0; k < s->n; k++) free(s->args[k]);
  free(s->args);
  s->args = a;
  s->n = n;
  touch_op(op);
  return PD_OK;
}

pd_status pd_opdesc_remove_slot(pd_opdesc *op, int is_out, const char *name) {
  pd_opslot *l = is_out ? op->out : op->in;
  int *np = is_out ? &op->n_out : &op->n_in;
  for (int i = 0; i < *np; i++) {
    if (strcmp(l[i].name, name) != 0) continue;
    free(l[i].name);
    for (int k = 0; k < l[i].n; k++) free(l[i].args[k]);
    free(l[i].args);
    memmove(&l[i], &l[i + 1], sizeof(pd_opslot) * (size_t)(*np - i - 1));
    (*np)--;
    touch_op(op);
    return PD_OK;
  }
  return PD_OK;
}

pd_attr *pd_opdesc_attr(const pd_opdesc *op, const char *name) {
  for (int i = 0; i < op->n_attrs; i++)
    if (strcmp(op->attrs[i].name, name) == 0) return &op->attrs[i];
  return NULL;
}

pd_status pd_opdesc_set_attr(pd_opdesc *op, const pd_attr *a) {
  pd_attr c;
  PD_TRY(pd_attr_copy(&c, a));
  pd_attr *ex = pd_opdesc_attr(op, a->name);
  if (ex) {
    pd_attr_clear(ex);
    *ex = c;
  } else {
    pd_attr *na = (pd_attr *)realloc(op->attrs, sizeof(pd_attr) * (size_t)(op->n_attrs + 1));
    if (!na) {
      pd_attr_clear(&c);
      return oom();
    }
    op->attrs = na;
    op->attrs[op->n_attrs++] = c;
  }
  touch_op(op);
  return PD_OK;
}

pd_status pd_opdesc_remove_attr(pd_opdesc *op, const char *name) {
  for (int i = 0; i < op->n_attrs; i++) {
    if (strcmp(op->attrs[i].name, name) != 0) continue;
    pd_attr_clear(&op->attrs[i]);
    memmove(&op->attrs[i], &op->attrs[i + 1], sizeof(pd_attr) * (size_t)(op->n_attrs - i - 1));
    op->n_attrs--;
    touch_op(op);
    return PD_OK;
  }
  return PD_OK;
}

pd_status pd_opdesc_set_attr_int(pd_opdesc *op, const char *name, pd_attr_type type, int64_t v) {
  pd_attr a;
  memset(&a, 0, sizeof a);
  a.name = (char *)name;
  a.type = type;
  a.i = v;
  return pd_opdesc_set_attr(op, &a);
}

pd_status pd_opdesc_set_attr_float(pd_opdesc *op, const char *name, pd_attr_type type, double v) {
  pd_attr a;
  memset(&a, 0, sizeof a);
  a.name = (char *)name;
  a.type = type;
  a.f = v;
  return pd_opdesc_set_attr(op, &a);
}

pd_status pd_opdesc_set_attr_str(pd_opdesc *op, const char *name, const char *v) {
  pd_attr a;
  memset(&a, 0, sizeof a);
  a.name = (char *)name;
  a.type = PD_AT_STRING;
  a.s = (char *)v;
  return pd_opdesc_set_attr(op, &a);
}

pd_status pd_opdesc_set_attr_ints(pd_opdesc *op, const char *name, pd_attr_type type, int64_t n,
                                  const int64_t *v) {
  pd_attr a;
  memset(&a, 0, sizeof a);
  int64_t dummy = 0;
  a.name = (char *)name;
  a.type = type;
  a.n = n;
  a.ints = (int64_t *)(n ? v : &dummy);
  return pd_opdesc_set_attr(op, &a);
}

pd_status pd_opdesc_set_attr_floats(pd_opdesc *op, const char *name, pd_attr_type type,
                                    int64_t n, const double *v) {
  pd_attr a;
  memset(&a, 0, sizeof a);
  double dummy = 0;
  a.name = (char *)name;
  a.type = type;
  a.n = n;
  a.floats = (double *)(n ? v : &dummy);
  return pd_opdesc_set_attr(op, &a);
}

pd_status pd_opdesc_set_attr_strs(pd_opdesc *op, const char *name, pd_attr_type type, int64_t n,
                                  const char *const *v) {
  pd_attr a;
  memset(&a, 0, sizeof a);
  char *dummy = NULL;
  a.name = (char *)name;
  a.type = type;
  a.n = n;
  a.strings = n ? (char **)v : &dummy;
  return pd_opdesc_set_attr(op, &a);
}

pd_status pd_opdesc_copy(pd_opdesc *dst, const pd_opdesc *src) {
  if (dst == src) return PD_OK;
  opdesc_clear(dst);
  pd_status s = pd_opdesc_set_type(dst, src->type);
  for (int i = 0; s == PD_OK && i < src->n_in; i++)
    s = pd_opdesc_set_slot(dst, 0, src->in[i].name, src->in[i].n, (const char *const *)src->in[i].args);
  for (int i = 0; s == PD_OK && i < src->n_out; i++)
    s = pd_opdesc_set_slot(dst, 1, src->out[i].name, src->out[i].n, (const char *const *)src->out[i].args);
  for (int i = 0; s == PD_OK && i < src->n_attrs; i++) s = pd_opdesc_set_attr(dst, &src->attrs[i]);
  dst->is_target = src->is_target;
  dst->pb_has = src->pb_has;
  return s;
}

/* ---------------------------------------------------------------- blocks and programs */
static void block_free(pd_block *b) {
  if (!b) return;
  for (int i = 0; i < b->n_vars; i++) {
    b->vars[i]->block = NULL;
    pd_var_release(b->vars[i]);
  }
  free(b->vars);
  free(b->hash);
  for (int i = 0; i < b->n_ops; i++) opdesc_free(b->ops[i]);
  free(b->ops);
  free(b);
}

pd_status pd_program_append_block(pd_program *p, int parent_idx, pd_block **out) {
  if (parent_idx < -1 || parent_idx >= p->n_blocks)
    return pd_set_error(PD_ERR_OUT_OF_RANGE, "parent block %d out of range [-1, %d)", parent_idx,
                        p->n_blocks);
  if (p->n_blocks == p->cap_blocks) {
    int nc = p->cap_blocks ? p->cap_blocks * 2 : 4;
    pd_block **nb = (pd_block **)realloc(p->blocks, sizeof(pd_block *) * (size_t)nc);
    if (!nb) return oom();
    p->blocks = nb;
    p->cap_blocks = nc;
  }
  pd_block *b = (pd_block *)calloc(1, sizeof *b);
  if (!b) return oom();
  b->idx = p->n_blocks;
  b->parent_idx = parent_idx;
  b->forward_block_idx = -1;
  b->prog = p;
  p->blocks[p->n_blocks++] = b;
  pd_program_touch(p);
  if (out) *out = b;
  return PD_OK;
}

pd_status pd_program_new(pd_program **out) {
  pd_program *p = (pd_program *)calloc(1, sizeof *p);
  if (!p) return oom();
  atomic_init(&p->refcount, 1);
  pd_program_init();
  pd_status s = pd_program_append_block(p, -1, NULL);
  if (s != PD_OK) {
    pd_program_release(p);
    return s;
  }
  *out = p;
  return PD_OK;
}

void pd_program_retain(pd_program *p) {
  if (p) atomic_fetch_add_explicit(&p->refcount, 1, memory_order_relaxed);
}

void pd_program_release(pd_program *p) {
  if (!p || atomic_fetch_sub_explicit(&p->refcount, 1, memory_order_acq_rel) != 1) return;
  for (int i = 0; i < p->n_blocks; i++) block_free(p->blocks[i]);
  free(p->blocks);
  for (int i = 0; i < p->n_op_versions; i++) free(p->op_version_names[i]);
  free(p->op_version_names);
  free(p->op_version_values);
  for (int i = 0; i < p->n_dead; i++) opdesc_free(p->dead[i]);
  free(p->dead);
  free(p);
}

pd_status pd_program_set_op_version(pd_program *p, const char *op, int version) {
  for (int i = 0; i < p->n_op_versions; i++)
    if (strcmp(p->op_version_names[i], op) == 0) {
      p->op_version_values[i] = version;
      return PD_OK;
    }
  char **nn = (char **)realloc(p->op_version_names, sizeof(char *) * (size_t)(p->n_op_versions + 1));
  if (!nn) return oom();
  p->op_version_names = nn;
  int *nv = (int *)realloc(p->op_version_values, sizeof(int) * (size_t)(p->n_op_versions + 1));
  if (!nv) return oom();
  p->op_version_values = nv;
  char *d = dupstr(op);
  if (!d) return oom();
  nn[p->n_op_versions] = d;
  nv[p->n_op_versions] = version;
  p->n_op_versions++;
  return PD_OK;
}

static pd_status copy_var(pd_block *dst, const pd_var *v) {
  pd_var *nv;
  PD_TRY(pd_block_var(dst, v->name, &nv));
  nv->type = v->type;
  nv->dtype = v->dtype;
  nv->ndim = v->ndim;
  memcpy(nv->dims, v->dims, sizeof v->dims);
  nv->lod_level = v->lod_level;
  nv->persistable = v->persistable;
  nv->need_check_feed = v->need_check_feed;
  nv->is_parameter = v->is_parameter;
  nv->stop_gradient = v->stop_gradient;
  nv->pb_has = v->pb_has;
  if (v->n_attrs) {
    nv->attrs = (pd_attr *)calloc((size_t)v->n_attrs, sizeof(pd_attr));
    if (!nv->attrs) return oom();
    for (int k = 0; k < v->n_attrs; k++) {
      PD_TRY(pd_attr_copy(&nv->attrs[k], &v->attrs[k]));
      nv->n_attrs = k + 1;
    }
  }
  return PD_OK;
}

pd_status pd_program_clone(const pd_program *p, pd_program **out) {
  pd_program *c;
  PD_TRY(pd_program_new(&c));
  pd_status s = PD_OK;
  c->blocks[0]->parent_idx = p->blocks[0]->parent_idx;
  for (int bi = 1; s == PD_OK && bi < p->n_blocks; bi++) {
    pd_block *nb;
    s = pd_program_append_block(c, -1, &nb);
    if (s == PD_OK) nb->parent_idx = p->blocks[bi]->parent_idx;
  }
  for (int bi = 0; s == PD_OK && bi < p->n_blocks; bi++) {
    const pd_block *b = p->blocks[bi];
    pd_block *nb = c->blocks[bi];
    nb->forward_block_idx = b->forward_block_idx;
    nb->pb_has = b->pb_has;
    for (int i = 0; s == PD_OK && i < b->n_vars; i++) s = copy_var(nb, b->vars[i]);
    for (int i = 0; s == PD_OK && i < b->n_ops; i++) {
      pd_opdesc *op;
      s = pd_block_append_op(nb, &op);
      if (s == PD_OK) s = pd_opdesc_copy(op, b->ops[i]);
    }
  }
  c->has_version = p->has_version;
  c->version = p->version;
  c->pb_has = p->pb_has;
  for (int i = 0; s == PD_OK && i < p->n_op_versions; i++)
    s = pd_program_set_op_version(c, p->op_version_names[i], p->op_version_values[i]);
  if (s != PD_OK) {
    pd_program_release(c);
    return s;
  }
  *out = c;
  return PD_OK;
}

pd_status pd_program_validate(const pd_program *p) {
  if (p->n_blocks < 1) return pd_set_error(PD_ERR_INVALID_ARGUMENT, "program has no blocks");
  for (int i = 0; i < p->n_blocks; i++) {
    const pd_block *b = p->blocks[i];
    if (b->idx != i)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "block at position %d says it is block %d", i, b->idx);
    if (i == 0 && b->parent_idx >= 0)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "block 0 must have no parent, received parent %d",
                          b->parent_idx);
    if (i > 0 && (b->parent_idx < 0 || b->parent_idx >= p->n_blocks || b->parent_idx == i))
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "block %d has parent %d, expected one of 0..%d "
                          "other than itself", i, b->parent_idx, p->n_blocks - 1);
    if (b->forward_block_idx < -1 || b->forward_block_idx >= p->n_blocks)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "block %d has forward_block_idx %d out of range",
                          i, b->forward_block_idx);
  }
  for (int i = 0; i < p->n_blocks; i++) {
    const pd_block *b = p->blocks[i];
    /* the parent chain must reach block 0 (no cycles); every parent is in range (checked above) */
    const pd_block *x = b;
    int steps = 0;
    while (x->idx != 0) {
      if (++steps > p->n_blocks)
        return pd_set_error(PD_ERR_INVALID_ARGUMENT, "block %d: its parent chain has a cycle", i);
      x = p->blocks[x->parent_idx];
    }
    for (int k = 0; k < b->n_ops; k++) {
      const pd_opdesc *op = b->ops[k];
      for (int a = 0; a < op->n_attrs; a++) {
        const pd_attr *at = &op->attrs[a];
        if (at->type == PD_AT_BLOCK && (at->i < 0 || at->i >= p->n_blocks || at->i == i))
          return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] attribute %s names block %lld; the "
                              "program has %d blocks", op->type, at->name, (long long)at->i, p->n_blocks);
        if (at->type == PD_AT_BLOCKS)
          for (int64_t j = 0; j < at->n; j++)
            if (at->ints[j] < 0 || at->ints[j] >= p->n_blocks || at->ints[j] == i)
              return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[%s] attribute %s names block %lld; the "
                                  "program has %d blocks", op->type, at->name, (long long)at->ints[j],
                                  p->n_blocks);
      }
    }
  }
  return PD_OK;
}
