/* ProgramDesc protobuf <-> pd_program (see pd_program_io.h). The protobuf layer is protobuf-c
 * with code generated from framework.proto (generated/framework.pb-c.c); this file converts its
 * messages to and from the program IR and checks everything a file can get wrong. */
#include "pd_program_io.h"
#include "pd_convert.h"
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "generated/framework.pb-c.h"

typedef Paddle__Framework__Proto__ProgramDesc PbProgram;
typedef Paddle__Framework__Proto__BlockDesc PbBlock;
typedef Paddle__Framework__Proto__VarDesc PbVar;
typedef Paddle__Framework__Proto__VarDesc__Attr PbVarAttr;
typedef Paddle__Framework__Proto__VarType PbVarType;
typedef Paddle__Framework__Proto__VarType__TensorDesc PbTensorDesc;
typedef Paddle__Framework__Proto__VarType__LoDTensorDesc PbLoDTensorDesc;
typedef Paddle__Framework__Proto__VarType__LoDTensorArrayDesc PbLoDTensorArrayDesc;
typedef Paddle__Framework__Proto__OpDesc PbOp;
typedef Paddle__Framework__Proto__OpDesc__Var PbSlot;
typedef Paddle__Framework__Proto__OpDesc__Attr PbAttr;
typedef Paddle__Framework__Proto__Scalar PbScalar;
typedef Paddle__Framework__Proto__Complex PbComplex;
typedef Paddle__Framework__Proto__Version PbVersion;
typedef Paddle__Framework__Proto__OpVersionMap PbOpVersionMap;
typedef Paddle__Framework__Proto__OpVersionMap__OpVersionPair PbOpVersionPair;
typedef Paddle__Framework__Proto__OpVersion PbOpVersion;

/* sanity limits (real programs are far below them) */
#define MAX_BLOCKS (1 << 16)
#define MAX_ITEMS (1 << 24)     /* vars / ops per block, arguments per slot, op versions */
#define MAX_FIELDS (1 << 16)    /* slots / attributes per op, attributes per var */
#define MAX_LIST ((size_t)1 << 28) /* attribute list length */
#define MAX_STR ((size_t)1 << 24)  /* bytes in one name or string attribute */
#define MAX_LOD_LEVEL 64

#define ERR(...) pd_set_error(PD_ERR_INVALID_ARGUMENT, "[program_desc] " __VA_ARGS__)

static pd_status oom(void) { return pd_set_error(PD_ERR_RESOURCE_EXHAUSTED, "[program_desc] out of memory"); }

static char *dupstr(const char *s) {
  if (!s) s = "";
  size_t n = strlen(s) + 1;
  char *d = (char *)malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

/* ============================================================== reading */
/* protobuf-c allocations under a budget: a small hostile file cannot ask for gigabytes */
typedef struct {
  size_t used, budget;
  int over;
} budget_t;

static void *budget_alloc(void *data, size_t n) {
  budget_t *b = (budget_t *)data;
  if (n > b->budget - b->used || b->budget - b->used - n < 16) {
    b->over = 1;
    return NULL;
  }
  size_t *p = (size_t *)malloc(n + 16);
  if (!p) return NULL;
  p[0] = n + 16;
  b->used += n + 16;
  return (char *)p + 16;
}

static void budget_free(void *data, void *ptr) {
  if (!ptr) return;
  budget_t *b = (budget_t *)data;
  size_t *p = (size_t *)((char *)ptr - 16);
  b->used -= p[0];
  free(p);
}

/* names and string values must be valid UTF-8 (Python reads them as str) and of sane length */
static int utf8_ok(const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  size_t n = 0;
  while (*p) {
    unsigned c = *p;
    int k;
    if (c < 0x80) k = 0;
    else if ((c & 0xE0) == 0xC0 && c >= 0xC2) k = 1;
    else if ((c & 0xF0) == 0xE0) k = 2;
    else if ((c & 0xF8) == 0xF0 && c <= 0xF4) k = 3;
    else return 0;
    for (int j = 1; j <= k; j++)
      if ((p[j] & 0xC0) != 0x80) return 0;
    if (k == 2 && ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] >= 0xA0))) return 0;
    if (k == 3 && ((c == 0xF0 && p[1] < 0x90) || (c == 0xF4 && p[1] >= 0x90))) return 0;
    p += k + 1;
    n += (size_t)k + 1;
    if (n > MAX_STR) return 0;
  }
  return 1;
}

static pd_status check_name(const char *s, const char *what, const char *where) {
  if (!s) return ERR("%s of %s is missing", what, where);
  if (!utf8_ok(s)) return ERR("%s of %s is not valid UTF-8 (or longer than %zu bytes)", what, where, MAX_STR);
  return PD_OK;
}

static int cmp_str_ptr(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* the first name that appears twice, or NULL (names[] is reordered) */
static const char *find_duplicate(const char **names, size_t n) {
  if (n < 2) return NULL;
  qsort(names, n, sizeof *names, cmp_str_ptr);
  for (size_t i = 1; i < n; i++)
    if (strcmp(names[i - 1], names[i]) == 0) return names[i];
  return NULL;
}

static pd_status scalar_from_pb(const PbScalar *s, pd_scalar *o, const char *op, const char *name) {
  memset(o, 0, sizeof *o);
  if (!s) return ERR("[%s] attribute %s: SCALAR without a value", op, name);
  switch ((int)s->type) {
    case PADDLE__FRAMEWORK__PROTO__SCALAR__TYPE__BOOLEAN:
      o->kind = PD_SCALAR_BOOL;
      o->i = s->b ? 1 : 0;
      o->f = (double)o->i;
      return PD_OK;
    case PADDLE__FRAMEWORK__PROTO__SCALAR__TYPE__LONG:
      *o = pd_scalar_int(s->i);
      return PD_OK;
    case PADDLE__FRAMEWORK__PROTO__SCALAR__TYPE__FLOAT64:
      *o = pd_scalar_float(s->r);
      return PD_OK;
    case PADDLE__FRAMEWORK__PROTO__SCALAR__TYPE__COMPLEX128:
      if (!s->c) return ERR("[%s] attribute %s: COMPLEX128 scalar without its value", op, name);
      o->kind = PD_SCALAR_COMPLEX;
      o->f = s->c->r;
      o->imag = s->c->i;
      o->i = 0;
      return PD_OK;
    default:
      return ERR("[%s] attribute %s: unknown Scalar type %d", op, name, (int)s->type);
  }
}

static pd_status list_len(size_t n, const char *op, const char *name, int64_t *out) {
  if (n > MAX_LIST) return ERR("[%s] attribute %s: list of %zu values is too long", op, name, n);
  *out = (int64_t)n;
  return PD_OK;
}

/* a->type, a->name are set; the value fields of *o are filled from the message */
static pd_status attr_from_pb(const PbAttr *a, pd_attr *o, const char *op) {
  const char *nm = o->name;
  size_t cnt = 1;
#define ALLOC_LIST(field, T, CNT)                                 \
  do {                                                            \
    PD_TRY(list_len((CNT), op, nm, &o->n));                       \
    cnt = (CNT) ? (CNT) : 1;                                      \
    o->field = (T *)malloc(sizeof(T) * cnt);                      \
    if (!o->field) return oom();                                  \
  } while (0)
  switch (o->type) {
    case PD_AT_INT: o->i = a->i; return PD_OK;
    case PD_AT_FLOAT: o->f = (double)a->f; return PD_OK;
    case PD_AT_STRING:
      if (a->s) {
        PD_TRY(check_name(a->s, "the value", nm));
        if (!(o->s = dupstr(a->s))) return oom();
      }
      return PD_OK;
    case PD_AT_INTS:
      ALLOC_LIST(ints, int64_t, a->n_ints);
      for (size_t k = 0; k < a->n_ints; k++) o->ints[k] = a->ints[k];
      return PD_OK;
    case PD_AT_FLOATS:
      ALLOC_LIST(floats, double, a->n_floats);
      for (size_t k = 0; k < a->n_floats; k++) o->floats[k] = (double)a->floats[k];
      return PD_OK;
    case PD_AT_STRINGS: case PD_AT_VARS: {
      size_t n = o->type == PD_AT_STRINGS ? a->n_strings : a->n_vars_name;
      char **src = o->type == PD_AT_STRINGS ? a->strings : a->vars_name;
      PD_TRY(list_len(n, op, nm, &o->n));
      o->strings = (char **)calloc(n ? n : 1, sizeof(char *));
      if (!o->strings) return oom();
      for (size_t k = 0; k < n; k++) {
        PD_TRY(check_name(src[k], o->type == PD_AT_VARS ? "a variable name" : "a value", nm));
        if (!(o->strings[k] = dupstr(src[k]))) return oom();
      }
      return PD_OK;
    }
    case PD_AT_BOOLEAN: o->i = a->b ? 1 : 0; return PD_OK;
    case PD_AT_BOOLEANS:
      ALLOC_LIST(ints, int64_t, a->n_bools);
      for (size_t k = 0; k < a->n_bools; k++) o->ints[k] = a->bools[k] ? 1 : 0;
      return PD_OK;
    case PD_AT_BLOCK: o->i = a->block_idx; return PD_OK;
    case PD_AT_LONG: o->i = a->l; return PD_OK;
    case PD_AT_BLOCKS:
      ALLOC_LIST(ints, int64_t, a->n_blocks_idx);
      for (size_t k = 0; k < a->n_blocks_idx; k++) o->ints[k] = a->blocks_idx[k];
      return PD_OK;
    case PD_AT_LONGS:
      ALLOC_LIST(ints, int64_t, a->n_longs);
      if (a->n_longs) memcpy(o->ints, a->longs, sizeof(int64_t) * a->n_longs);
      return PD_OK;
    case PD_AT_FLOAT64S:
      ALLOC_LIST(floats, double, a->n_float64s);
      if (a->n_float64s) memcpy(o->floats, a->float64s, sizeof(double) * a->n_float64s);
      return PD_OK;
    case PD_AT_VAR:
      if (a->var_name) {
        PD_TRY(check_name(a->var_name, "the variable name", "a VAR attribute"));
        if (!(o->s = dupstr(a->var_name))) return oom();
      }
      return PD_OK;
    case PD_AT_FLOAT64: o->f = a->float64; return PD_OK;
    case PD_AT_SCALAR: return scalar_from_pb(a->scalar, &o->sc, op, nm);
    case PD_AT_SCALARS:
      ALLOC_LIST(scalars, pd_scalar, a->n_scalars);
      for (size_t k = 0; k < a->n_scalars; k++) PD_TRY(scalar_from_pb(a->scalars[k], &o->scalars[k], op, nm));
      return PD_OK;
    default:
      return ERR("[%s] attribute %s has unknown type %d", op, nm, (int)o->type);
  }
#undef ALLOC_LIST
}

static pd_status slots_from_pb(pd_opdesc *op, int is_out, PbSlot **src, size_t n) {
  if (n > MAX_FIELDS) return ERR("[%s] has %zu %s slots", op->type, n, is_out ? "output" : "input");
  if (!n) return PD_OK;
  const char **names = (const char **)malloc(sizeof(char *) * n);
  if (!names) return oom();
  for (size_t i = 0; i < n; i++) {
    pd_status s = check_name(src[i]->parameter, "a slot name", op->type);
    if (s != PD_OK) {
      free(names);
      return s;
    }
    names[i] = src[i]->parameter;
  }
  const char *dup = find_duplicate(names, n);
  if (dup) {
    pd_status s = ERR("[%s] has two %s slots named %s", op->type, is_out ? "output" : "input", dup);
    free(names);
    return s;
  }
  free(names);
  pd_opslot *l = (pd_opslot *)calloc(n, sizeof(pd_opslot));
  if (!l) return oom();
  if (is_out) op->out = l;
  else op->in = l;
  for (size_t i = 0; i < n; i++) {
    const PbSlot *v = src[i];
    if (v->n_arguments > MAX_ITEMS) return ERR("[%s] slot %s has %zu arguments", op->type, v->parameter, v->n_arguments);
    if (!(l[i].name = dupstr(v->parameter))) return oom();
    if (is_out) op->n_out = (int)i + 1;
    else op->n_in = (int)i + 1;
    l[i].args = (char **)calloc(v->n_arguments ? v->n_arguments : 1, sizeof(char *));
    if (!l[i].args) return oom();
    for (size_t k = 0; k < v->n_arguments; k++) {
      PD_TRY(check_name(v->arguments[k], "an argument", op->type));
      if (!(l[i].args[k] = dupstr(v->arguments[k]))) return oom();
      l[i].n = (int)k + 1;
    }
  }
  return PD_OK;
}

static pd_status op_from_pb(pd_block *b, const PbOp *m) {
  pd_opdesc *op;
  PD_TRY(check_name(m->type, "the op type", "an op"));
  if (!m->type[0]) return ERR("block %d has an op with an empty type", b->idx);
  PD_TRY(pd_block_append_op(b, &op));
  PD_TRY(pd_opdesc_set_type(op, m->type));
  op->is_target = m->has_is_target && m->is_target;
  op->pb_has = m->has_is_target ? PD_PB_IS_TARGET : 0;
  PD_TRY(slots_from_pb(op, 0, m->inputs, m->n_inputs));
  PD_TRY(slots_from_pb(op, 1, m->outputs, m->n_outputs));
  if (m->n_attrs > MAX_FIELDS) return ERR("[%s] has %zu attributes", op->type, m->n_attrs);
  if (!m->n_attrs) return PD_OK;
  const char **names = (const char **)malloc(sizeof(char *) * m->n_attrs);
  if (!names) return oom();
  for (size_t i = 0; i < m->n_attrs; i++) {
    pd_status s = check_name(m->attrs[i]->name, "an attribute name", op->type);
    if (s != PD_OK) {
      free(names);
      return s;
    }
    names[i] = m->attrs[i]->name;
  }
  const char *dup = find_duplicate(names, m->n_attrs);
  if (dup) {
    pd_status s = ERR("[%s] has two attributes named %s", op->type, dup);
    free(names);
    return s;
  }
  free(names);
  op->attrs = (pd_attr *)calloc(m->n_attrs, sizeof(pd_attr));
  if (!op->attrs) return oom();
  for (size_t i = 0; i < m->n_attrs; i++) {
    const PbAttr *a = m->attrs[i];
    pd_attr *o = &op->attrs[i];
    op->n_attrs = (int)i + 1;
    if ((int)a->type < 0 || (int)a->type >= PD_AT_NUM_TYPES)
      return ERR("[%s] attribute %s has unknown type %d", op->type, a->name, (int)a->type);
    o->type = (pd_attr_type)a->type;
    if (!(o->name = dupstr(a->name))) return oom();
    PD_TRY(attr_from_pb(a, o, op->type));
  }
  return PD_OK;
}

/* TensorDesc -> dtype, dims */
static pd_status tensor_from_pb(const PbTensorDesc *t, pd_var *v) {
  int dt = pd_dtype_from_vartype((int)t->data_type);
  if (dt < 0)
    return pd_set_error(PD_ERR_UNIMPLEMENTED, "[program_desc] variable %s: element type code %d "
                        "(framework.proto VarType.Type) is not supported", v->name, (int)t->data_type);
  if (t->n_dims > PD_MAX_DIMS)
    return pd_set_error(PD_ERR_UNIMPLEMENTED, "[program_desc] variable %s has %zu dims, at most %d "
                        "are supported", v->name, t->n_dims, PD_MAX_DIMS);
  uint64_t span = 1; /* the product of the known extents must fit (meta tensors, strides) */
  for (size_t d = 0; d < t->n_dims; d++) {
    if (t->dims[d] < -1)
      return ERR("variable %s: dim %zu is %lld (dims are >= 0, or -1 for unknown)", v->name, d,
                 (long long)t->dims[d]);
    uint64_t e = t->dims[d] > 0 ? (uint64_t)t->dims[d] : 1;
    if (span > ((uint64_t)INT64_MAX / 2) / e)
      return ERR("variable %s: dims too large (their product overflows)", v->name);
    span *= e;
  }
  v->dtype = dt;
  v->ndim = (int)t->n_dims;
  for (size_t d = 0; d < t->n_dims; d++) v->dims[d] = t->dims[d];
  return PD_OK;
}

static pd_status lod_level_from_pb(pd_var *v, int has, int32_t level) {
  if (level < 0 || level > MAX_LOD_LEVEL)
    return ERR("variable %s: lod_level %d out of range [0, %d]", v->name, (int)level, MAX_LOD_LEVEL);
  v->lod_level = level;
  if (has) v->pb_has |= PD_PB_LOD_LEVEL;
  return PD_OK;
}

static pd_status var_from_pb(pd_block *b, const PbVar *m) {
  PD_TRY(check_name(m->name, "a variable name", "a block"));
  if (!m->name[0]) return ERR("block %d has a variable with an empty name", b->idx);
  if (pd_block_find_var(b, m->name)) return ERR("block %d has two variables named %s", b->idx, m->name);
  pd_var *v;
  PD_TRY(pd_block_var(b, m->name, &v));
  const PbVarType *t = m->type;
  v->type = (int)t->type;
  v->dtype = -1;
  v->ndim = -1;
  v->lod_level = 0;
  v->persistable = m->has_persistable && m->persistable;
  v->need_check_feed = m->has_need_check_feed && m->need_check_feed;
  v->is_parameter = m->has_is_parameter && m->is_parameter;
  v->stop_gradient = m->has_stop_gradient && m->stop_gradient;
  v->pb_has = (m->has_persistable ? PD_PB_PERSISTABLE : 0) | (m->has_need_check_feed ? PD_PB_NEED_CHECK_FEED : 0) |
              (m->has_is_parameter ? PD_PB_IS_PARAMETER : 0) | (m->has_stop_gradient ? PD_PB_STOP_GRADIENT : 0);
  switch (v->type) {
    case PD_VT_LOD_TENSOR:
      if (t->lod_tensor) {
        PD_TRY(tensor_from_pb(t->lod_tensor->tensor, v));
        PD_TRY(lod_level_from_pb(v, t->lod_tensor->has_lod_level, t->lod_tensor->lod_level));
      }
      break;
    case PD_VT_LOD_TENSOR_ARRAY:
      if (t->tensor_array) {
        PD_TRY(tensor_from_pb(t->tensor_array->tensor, v));
        PD_TRY(lod_level_from_pb(v, t->tensor_array->has_lod_level, t->tensor_array->lod_level));
      }
      break;
    case PD_VT_SELECTED_ROWS:
      if (t->selected_rows) PD_TRY(tensor_from_pb(t->selected_rows, v));
      break;
    case PD_VT_SPARSE_COO:
      if (t->sparse_coo) PD_TRY(tensor_from_pb(t->sparse_coo, v));
      break;
    case PD_VT_SPARSE_CSR:
      if (t->sparse_csr) PD_TRY(tensor_from_pb(t->sparse_csr, v));
      break;
    case PD_VT_STRING: case PD_VT_STRINGS: case PD_VT_VOCAB: {
      const PbTensorDesc *d = v->type == PD_VT_STRING ? t->string : v->type == PD_VT_STRINGS ? t->strings : t->vocab;
      if (d) PD_TRY(tensor_from_pb(d, v));
      break;
    }
    case PD_VT_FEED_MINIBATCH: case PD_VT_FETCH_LIST: case PD_VT_STEP_SCOPES: case PD_VT_LOD_RANK_TABLE:
    case PD_VT_PLACE_LIST: case PD_VT_RAW: case PD_VT_FEED_LIST: case PD_VT_PSTRING:
      break;
    case PD_VT_READER: case PD_VT_TUPLE:
      return pd_set_error(PD_ERR_UNIMPLEMENTED, "[program_desc] variable %s is a %s, which Paddle-C does "
                          "not support", v->name, v->type == PD_VT_READER ? "READER" : "TUPLE");
    default:
      return ERR("variable %s has unknown type code %d (framework.proto VarType.Type)", v->name, v->type);
  }
  if (m->n_attrs > MAX_FIELDS) return ERR("variable %s has %zu attributes", v->name, m->n_attrs);
  if (m->n_attrs) {
    v->attrs = (pd_attr *)calloc(m->n_attrs, sizeof(pd_attr));
    if (!v->attrs) return oom();
    for (size_t i = 0; i < m->n_attrs; i++) {
      const PbVarAttr *a = m->attrs[i];
      pd_attr *o = &v->attrs[i];
      v->n_attrs = (int)i + 1;
      PD_TRY(check_name(a->name, "an attribute name", v->name));
      if (!(o->name = dupstr(a->name))) return oom();
      o->type = (pd_attr_type)a->type;
      if (a->type == PADDLE__FRAMEWORK__PROTO__ATTR_TYPE__INT) {
        o->i = a->i;
      } else if (a->type == PADDLE__FRAMEWORK__PROTO__ATTR_TYPE__STRING) {
        if (a->s) PD_TRY(check_name(a->s, "the value", a->name));
        if (a->s && !(o->s = dupstr(a->s))) return oom();
      } else if (a->type == PADDLE__FRAMEWORK__PROTO__ATTR_TYPE__INTS) {
        PD_TRY(list_len(a->n_ints, v->name, a->name, &o->n));
        o->ints = (int64_t *)malloc(sizeof(int64_t) * (a->n_ints ? a->n_ints : 1));
        if (!o->ints) return oom();
        for (size_t k = 0; k < a->n_ints; k++) o->ints[k] = a->ints[k];
      } else {
        return ERR("variable %s: attribute %s has type %d (variables take INT, STRING or INTS)", v->name,
                   a->name, (int)a->type);
      }
    }
  }
  pd_var_sync_tensor(v);
  return PD_OK;
}

static pd_status program_from_pb(const PbProgram *m, pd_program *p) {
  if (m->n_blocks == 0) return ERR("the program has no blocks");
  if (m->n_blocks > MAX_BLOCKS) return ERR("the program has %zu blocks (at most %d)", m->n_blocks, MAX_BLOCKS);
  for (size_t i = 1; i < m->n_blocks; i++) PD_TRY(pd_program_append_block(p, -1, NULL));
  for (size_t i = 0; i < m->n_blocks; i++) {
    const PbBlock *mb = m->blocks[i];
    pd_block *b = p->blocks[i];
    if (mb->idx != (int32_t)i) return ERR("block at position %zu says it is block %d", i, (int)mb->idx);
    b->parent_idx = mb->parent_idx;
    b->forward_block_idx = mb->has_forward_block_idx ? mb->forward_block_idx : -1;
    b->pb_has = mb->has_forward_block_idx ? PD_PB_FORWARD_BLOCK : 0;
    if (mb->n_vars > MAX_ITEMS) return ERR("block %zu has %zu variables", i, mb->n_vars);
    if (mb->n_ops > MAX_ITEMS) return ERR("block %zu has %zu ops", i, mb->n_ops);
    for (size_t k = 0; k < mb->n_vars; k++) PD_TRY(var_from_pb(b, mb->vars[k]));
    for (size_t k = 0; k < mb->n_ops; k++) PD_TRY(op_from_pb(b, mb->ops[k]));
  }
  if (m->version) {
    p->has_version = 1;
    p->version = m->version->version;
  }
  if (m->op_version_map) {
    const PbOpVersionMap *vm = m->op_version_map;
    p->pb_has |= PD_PB_OP_VERSION_MAP;
    if (vm->n_pair > MAX_ITEMS) return ERR("op_version_map has %zu entries", vm->n_pair);
    size_t n = vm->n_pair;
    if (n) {
      const char **names = (const char **)malloc(sizeof(char *) * n);
      if (!names) return oom();
      pd_status s = PD_OK;
      for (size_t i = 0; s == PD_OK && i < n; i++) {
        s = check_name(vm->pair[i]->op_name, "an op name", "op_version_map");
        names[i] = vm->pair[i]->op_name;
      }
      const char *dup = s == PD_OK ? find_duplicate(names, n) : NULL;
      if (dup) s = ERR("op_version_map lists op %s twice", dup);
      free(names);
      PD_TRY(s);
      p->op_version_names = (char **)calloc(n, sizeof(char *));
      p->op_version_values = (int *)calloc(n, sizeof(int));
      if (!p->op_version_names || !p->op_version_values) return oom();
      for (size_t i = 0; i < n; i++) {
        if (!(p->op_version_names[i] = dupstr(vm->pair[i]->op_name))) return oom();
        p->op_version_values[i] = vm->pair[i]->op_version->version;
        p->n_op_versions = (int)i + 1;
      }
    }
  }
  return pd_program_validate(p);
}

pd_status pd_program_parse(const uint8_t *buf, size_t len, pd_program **out) {
  *out = NULL;
  if (len > PD_PROGRAM_MAX_BYTES)
    return ERR("%zu bytes is more than a program file can hold (%zu)", len, PD_PROGRAM_MAX_BYTES);
  if (!buf && len) return ERR("no data");
  /* protobuf-c's structures take 2-9x the input bytes for real models and at most ~50x for the
   * worst case (a 6-byte attribute with empty name becomes a ~270-byte struct): allow 64x plus a
   * floor, so that a hostile file cannot ask for much more than that */
  budget_t bud = {0, 0, 0};
  size_t cap = ((size_t)1 << 26) + (len > (SIZE_MAX >> 8) ? SIZE_MAX / 2 : len * 64);
  bud.budget = cap;
  ProtobufCAllocator alloc = {budget_alloc, budget_free, &bud};
  PbProgram *m = paddle__framework__proto__program_desc__unpack(&alloc, len, buf ? buf : (const uint8_t *)"");
  if (!m) {
    if (bud.over) return ERR("decoding needs more than %zu bytes of memory for %zu bytes of input", cap, len);
    return ERR("not a valid ProgramDesc protobuf (%zu bytes): truncated, corrupt, or a required field "
               "is missing", len);
  }
  pd_program *p;
  pd_status s = pd_program_new(&p);
  if (s == PD_OK) {
    s = program_from_pb(m, p);
    if (s != PD_OK) pd_program_release(p);
  }
  paddle__framework__proto__program_desc__free_unpacked(m, &alloc);
  if (s != PD_OK) return s;
  *out = p;
  return PD_OK;
}

/* ============================================================== writing */
/* the protobuf-c structures of one serialization live in an arena freed at the end */
typedef struct chunk {
  struct chunk *next;
  size_t used, cap;
  max_align_t data[];
} chunk;

typedef struct {
  chunk *head;
  int failed;
} arena;

static void *arena_alloc(arena *a, size_t n) {
  n = (n + 15) & ~(size_t)15;
  if (!n) n = 16;
  if (!a->head || a->head->cap - a->head->used < n) {
    size_t cap = n > ((size_t)1 << 16) ? n : ((size_t)1 << 16);
    chunk *c = (chunk *)malloc(sizeof(chunk) + cap);
    if (!c) {
      a->failed = 1;
      return NULL;
    }
    c->next = a->head;
    c->used = 0;
    c->cap = cap;
    a->head = c;
  }
  void *p = (char *)a->head->data + a->head->used;
  a->head->used += n;
  memset(p, 0, n);
  return p;
}

static void arena_free(arena *a) {
  while (a->head) {
    chunk *n = a->head->next;
    free(a->head);
    a->head = n;
  }
}

#define NEW(ar, T) ((T *)arena_alloc((ar), sizeof(T)))
#define NEWN(ar, T, n) ((T *)arena_alloc((ar), sizeof(T) * (size_t)((n) ? (n) : 1)))

static char *s_or_empty(const char *s) { return (char *)(s ? s : ""); }

static PbScalar *scalar_to_pb(arena *ar, const pd_scalar *sc) {
  PbScalar *s = NEW(ar, PbScalar);
  if (!s) return NULL;
  paddle__framework__proto__scalar__init(s);
  switch (sc->kind) {
    case PD_SCALAR_BOOL:
      s->type = PADDLE__FRAMEWORK__PROTO__SCALAR__TYPE__BOOLEAN;
      s->has_b = 1;
      s->b = sc->i != 0;
      break;
    case PD_SCALAR_INT:
      s->type = PADDLE__FRAMEWORK__PROTO__SCALAR__TYPE__LONG;
      s->has_i = 1;
      s->i = sc->i;
      break;
    case PD_SCALAR_COMPLEX: {
      s->type = PADDLE__FRAMEWORK__PROTO__SCALAR__TYPE__COMPLEX128;
      PbComplex *c = NEW(ar, PbComplex);
      if (!c) return NULL;
      paddle__framework__proto__complex__init(c);
      c->r = sc->f;
      c->i = sc->imag;
      s->c = c;
      break;
    }
    default:
      s->type = PADDLE__FRAMEWORK__PROTO__SCALAR__TYPE__FLOAT64;
      s->has_r = 1;
      s->r = sc->f;
      break;
  }
  return s;
}

static pd_status int32_of(int64_t v, const char *op, const char *name, int32_t *out) {
  if (v < INT32_MIN || v > INT32_MAX)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[program_desc] [%s] attribute %s: %lld does not fit the "
                        "int32 its type stores (use a LONG/LONGS attribute)", op, name, (long long)v);
  *out = (int32_t)v;
  return PD_OK;
}

static pd_status attr_to_pb(arena *ar, const pd_attr *a, const char *op, PbAttr **out) {
  PbAttr *m = NEW(ar, PbAttr);
  if (!m) return oom();
  paddle__framework__proto__op_desc__attr__init(m);
  m->name = s_or_empty(a->name);
  m->type = (Paddle__Framework__Proto__AttrType)a->type;
  size_t n = a->n > 0 ? (size_t)a->n : 0;
  switch (a->type) {
    case PD_AT_INT:
      m->has_i = 1;
      PD_TRY(int32_of(a->i, op, a->name, &m->i));
      break;
    case PD_AT_FLOAT: m->has_f = 1; m->f = (float)a->f; break;
    case PD_AT_STRING: m->s = a->s; break;
    case PD_AT_INTS:
      m->n_ints = n;
      if (!(m->ints = NEWN(ar, int32_t, n))) return oom();
      for (size_t k = 0; k < n; k++) PD_TRY(int32_of(a->ints[k], op, a->name, &m->ints[k]));
      break;
    case PD_AT_FLOATS:
      m->n_floats = n;
      if (!(m->floats = NEWN(ar, float, n))) return oom();
      for (size_t k = 0; k < n; k++) m->floats[k] = (float)a->floats[k];
      break;
    case PD_AT_STRINGS: case PD_AT_VARS: {
      char **l = NEWN(ar, char *, n);
      if (!l) return oom();
      for (size_t k = 0; k < n; k++) l[k] = s_or_empty(a->strings ? a->strings[k] : NULL);
      if (a->type == PD_AT_STRINGS) {
        m->n_strings = n;
        m->strings = l;
      } else {
        m->n_vars_name = n;
        m->vars_name = l;
      }
      break;
    }
    case PD_AT_BOOLEAN: m->has_b = 1; m->b = a->i != 0; break;
    case PD_AT_BOOLEANS:
      m->n_bools = n;
      if (!(m->bools = NEWN(ar, protobuf_c_boolean, n))) return oom();
      for (size_t k = 0; k < n; k++) m->bools[k] = a->ints[k] != 0;
      break;
    case PD_AT_BLOCK:
      m->has_block_idx = 1;
      PD_TRY(int32_of(a->i, op, a->name, &m->block_idx));
      break;
    case PD_AT_LONG: m->has_l = 1; m->l = a->i; break;
    case PD_AT_BLOCKS:
      m->n_blocks_idx = n;
      if (!(m->blocks_idx = NEWN(ar, int32_t, n))) return oom();
      for (size_t k = 0; k < n; k++) PD_TRY(int32_of(a->ints[k], op, a->name, &m->blocks_idx[k]));
      break;
    case PD_AT_LONGS:
      m->n_longs = n;
      m->longs = n ? a->ints : NULL;
      break;
    case PD_AT_FLOAT64S:
      m->n_float64s = n;
      m->float64s = n ? a->floats : NULL;
      break;
    case PD_AT_VAR: m->var_name = a->s; break;
    case PD_AT_FLOAT64: m->has_float64 = 1; m->float64 = a->f; break;
    case PD_AT_SCALAR:
      if (!(m->scalar = scalar_to_pb(ar, &a->sc))) return oom();
      break;
    case PD_AT_SCALARS:
      m->n_scalars = n;
      if (!(m->scalars = NEWN(ar, PbScalar *, n))) return oom();
      for (size_t k = 0; k < n; k++)
        if (!(m->scalars[k] = scalar_to_pb(ar, &a->scalars[k]))) return oom();
      break;
    default:
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[program_desc] [%s] attribute %s has unknown type %d",
                          op, a->name, (int)a->type);
  }
  *out = m;
  return PD_OK;
}

/* *n_kept: the slots written (PD_CV_TEMPS_SLOT, pd_convert.h, is ours alone and left out) */
static pd_status slots_to_pb(arena *ar, const pd_opslot *l, int n, PbSlot ***out, size_t *n_kept) {
  PbSlot **v = NEWN(ar, PbSlot *, n);
  if (!v) return oom();
  size_t j = 0;
  for (int i = 0; i < n; i++) {
    if (l[i].name && !strcmp(l[i].name, PD_CV_TEMPS_SLOT)) continue;
    PbSlot *s = NEW(ar, PbSlot);
    if (!s) return oom();
    paddle__framework__proto__op_desc__var__init(s);
    s->parameter = s_or_empty(l[i].name);
    s->n_arguments = (size_t)(l[i].n > 0 ? l[i].n : 0);
    s->arguments = NEWN(ar, char *, s->n_arguments);
    if (!s->arguments) return oom();
    for (size_t k = 0; k < s->n_arguments; k++) s->arguments[k] = s_or_empty(l[i].args[k]);
    v[j++] = s;
  }
  *out = v;
  *n_kept = j;
  return PD_OK;
}

static pd_status op_to_pb(arena *ar, const pd_opdesc *op, PbOp **out) {
  PbOp *m = NEW(ar, PbOp);
  if (!m) return oom();
  paddle__framework__proto__op_desc__init(m);
  m->type = s_or_empty(op->type);
  PD_TRY(slots_to_pb(ar, op->in, op->n_in, &m->inputs, &m->n_inputs));
  PD_TRY(slots_to_pb(ar, op->out, op->n_out, &m->outputs, &m->n_outputs));
  m->n_attrs = (size_t)op->n_attrs;
  if (!(m->attrs = NEWN(ar, PbAttr *, op->n_attrs))) return oom();
  for (int i = 0; i < op->n_attrs; i++) PD_TRY(attr_to_pb(ar, &op->attrs[i], op->type, &m->attrs[i]));
  if (op->is_target || (op->pb_has & PD_PB_IS_TARGET)) {
    m->has_is_target = 1;
    m->is_target = op->is_target != 0;
  }
  *out = m;
  return PD_OK;
}

static PbTensorDesc *tensor_to_pb(arena *ar, const pd_var *v) {
  PbTensorDesc *t = NEW(ar, PbTensorDesc);
  if (!t) return NULL;
  paddle__framework__proto__var_type__tensor_desc__init(t);
  int vt = pd_dtype_to_vartype((pd_dtype)v->dtype);
  t->data_type = (Paddle__Framework__Proto__VarType__Type)(vt >= 0 ? vt : PD_VT_FP32);
  size_t nd = v->ndim > 0 ? (size_t)v->ndim : 0;
  t->n_dims = nd;
  t->dims = NEWN(ar, int64_t, nd);
  if (!t->dims) return NULL;
  for (size_t d = 0; d < nd; d++) t->dims[d] = v->dims[d];
  return t;
}

static pd_status var_to_pb(arena *ar, const pd_var *v, PbVar **out) {
  PbVar *m = NEW(ar, PbVar);
  PbVarType *t = NEW(ar, PbVarType);
  if (!m || !t) return oom();
  paddle__framework__proto__var_desc__init(m);
  paddle__framework__proto__var_type__init(t);
  m->name = s_or_empty(v->name);
  m->type = t;
  t->type = (Paddle__Framework__Proto__VarType__Type)v->type;
  /* a tensor description unless nothing is known (a var read from a file without one) */
  int has_desc = pd_dtype_is_valid(v->dtype) || v->ndim >= 0 || v->lod_level || (v->pb_has & PD_PB_LOD_LEVEL);
  int lod_has = v->lod_level != 0 || (v->pb_has & PD_PB_LOD_LEVEL);
  switch (v->type) {
    case PD_VT_LOD_TENSOR:
      if (has_desc) {
        PbLoDTensorDesc *d = NEW(ar, PbLoDTensorDesc);
        if (!d) return oom();
        paddle__framework__proto__var_type__lo_dtensor_desc__init(d);
        if (!(d->tensor = tensor_to_pb(ar, v))) return oom();
        d->has_lod_level = lod_has;
        d->lod_level = v->lod_level;
        t->lod_tensor = d;
      }
      break;
    case PD_VT_LOD_TENSOR_ARRAY:
      if (has_desc) {
        PbLoDTensorArrayDesc *d = NEW(ar, PbLoDTensorArrayDesc);
        if (!d) return oom();
        paddle__framework__proto__var_type__lo_dtensor_array_desc__init(d);
        if (!(d->tensor = tensor_to_pb(ar, v))) return oom();
        d->has_lod_level = lod_has;
        d->lod_level = v->lod_level;
        t->tensor_array = d;
      }
      break;
    case PD_VT_SELECTED_ROWS: case PD_VT_SPARSE_COO: case PD_VT_SPARSE_CSR: case PD_VT_STRING:
    case PD_VT_STRINGS: case PD_VT_VOCAB:
      if (pd_dtype_is_valid(v->dtype) || v->ndim >= 0) {
        PbTensorDesc *d = tensor_to_pb(ar, v);
        if (!d) return oom();
        if (v->type == PD_VT_SELECTED_ROWS) t->selected_rows = d;
        else if (v->type == PD_VT_SPARSE_COO) t->sparse_coo = d;
        else if (v->type == PD_VT_SPARSE_CSR) t->sparse_csr = d;
        else if (v->type == PD_VT_STRING) t->string = d;
        else if (v->type == PD_VT_STRINGS) t->strings = d;
        else t->vocab = d;
      }
      break;
    default:
      break;
  }
#define FLAG(field, bit)                                   \
  if (v->field || (v->pb_has & (bit))) {                   \
    m->has_##field = 1;                                    \
    m->field = v->field != 0;                              \
  }
  FLAG(persistable, PD_PB_PERSISTABLE)
  FLAG(need_check_feed, PD_PB_NEED_CHECK_FEED)
  FLAG(is_parameter, PD_PB_IS_PARAMETER)
  FLAG(stop_gradient, PD_PB_STOP_GRADIENT)
#undef FLAG
  m->n_attrs = (size_t)(v->n_attrs > 0 ? v->n_attrs : 0);
  if (!(m->attrs = NEWN(ar, PbVarAttr *, m->n_attrs))) return oom();
  for (size_t i = 0; i < m->n_attrs; i++) {
    const pd_attr *a = &v->attrs[i];
    PbVarAttr *o = NEW(ar, PbVarAttr);
    if (!o) return oom();
    paddle__framework__proto__var_desc__attr__init(o);
    o->name = s_or_empty(a->name);
    o->type = (Paddle__Framework__Proto__AttrType)a->type;
    if (a->type == PD_AT_INT) {
      o->has_i = 1;
      PD_TRY(int32_of(a->i, v->name, a->name, &o->i));
    } else if (a->type == PD_AT_STRING) {
      o->s = a->s;
    } else if (a->type == PD_AT_INTS) {
      o->n_ints = (size_t)(a->n > 0 ? a->n : 0);
      if (!(o->ints = NEWN(ar, int32_t, o->n_ints))) return oom();
      for (size_t k = 0; k < o->n_ints; k++) PD_TRY(int32_of(a->ints[k], v->name, a->name, &o->ints[k]));
    } else {
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[program_desc] variable %s: attribute %s has type %s "
                          "(variables take INT, STRING or INTS)", v->name, a->name, pd_attr_type_name(a->type));
    }
    m->attrs[i] = o;
  }
  *out = m;
  return PD_OK;
}

static pd_status program_to_pb(arena *ar, const pd_program *p, PbProgram *m) {
  m->n_blocks = (size_t)p->n_blocks;
  if (!(m->blocks = NEWN(ar, PbBlock *, p->n_blocks))) return oom();
  for (int bi = 0; bi < p->n_blocks; bi++) {
    const pd_block *b = p->blocks[bi];
    PbBlock *mb = NEW(ar, PbBlock);
    if (!mb) return oom();
    paddle__framework__proto__block_desc__init(mb);
    mb->idx = b->idx;
    mb->parent_idx = b->parent_idx;
    if (b->forward_block_idx != -1 || (b->pb_has & PD_PB_FORWARD_BLOCK)) {
      mb->has_forward_block_idx = 1;
      mb->forward_block_idx = b->forward_block_idx;
    }
    mb->n_vars = (size_t)b->n_vars;
    mb->n_ops = (size_t)b->n_ops;
    if (!(mb->vars = NEWN(ar, PbVar *, b->n_vars)) || !(mb->ops = NEWN(ar, PbOp *, b->n_ops))) return oom();
    for (int i = 0; i < b->n_vars; i++) PD_TRY(var_to_pb(ar, b->vars[i], &mb->vars[i]));
    for (int i = 0; i < b->n_ops; i++) PD_TRY(op_to_pb(ar, b->ops[i], &mb->ops[i]));
    m->blocks[bi] = mb;
  }
  if (p->has_version) {
    PbVersion *v = NEW(ar, PbVersion);
    if (!v) return oom();
    paddle__framework__proto__version__init(v);
    v->has_version = 1;
    v->version = p->version;
    m->version = v;
  }
  if (p->n_op_versions > 0 || (p->pb_has & PD_PB_OP_VERSION_MAP)) {
    PbOpVersionMap *vm = NEW(ar, PbOpVersionMap);
    if (!vm) return oom();
    paddle__framework__proto__op_version_map__init(vm);
    vm->n_pair = (size_t)(p->n_op_versions > 0 ? p->n_op_versions : 0);
    if (!(vm->pair = NEWN(ar, PbOpVersionPair *, vm->n_pair))) return oom();
    for (size_t i = 0; i < vm->n_pair; i++) {
      PbOpVersionPair *pr = NEW(ar, PbOpVersionPair);
      PbOpVersion *ov = NEW(ar, PbOpVersion);
      if (!pr || !ov) return oom();
      paddle__framework__proto__op_version_map__op_version_pair__init(pr);
      paddle__framework__proto__op_version__init(ov);
      ov->version = p->op_version_values[i];
      pr->op_name = s_or_empty(p->op_version_names[i]);
      pr->op_version = ov;
      vm->pair[i] = pr;
    }
    m->op_version_map = vm;
  }
  return PD_OK;
}

pd_status pd_program_serialize(const pd_program *p, uint8_t **out, size_t *len) {
  *out = NULL;
  *len = 0;
  PD_TRY(pd_program_validate(p));
  arena ar = {NULL, 0};
  PbProgram m;
  paddle__framework__proto__program_desc__init(&m);
  pd_status s = program_to_pb(&ar, p, &m);
  if (s == PD_OK && ar.failed) s = oom();
  if (s == PD_OK) {
    size_t n = paddle__framework__proto__program_desc__get_packed_size(&m);
    if (n > PD_PROGRAM_MAX_BYTES) {
      s = pd_set_error(PD_ERR_OUT_OF_RANGE, "[program_desc] the program needs %zu bytes; a program file "
                       "holds at most %zu", n, PD_PROGRAM_MAX_BYTES);
    } else {
      uint8_t *buf = (uint8_t *)malloc(n ? n : 1);
      if (!buf) {
        s = oom();
      } else {
        size_t w = paddle__framework__proto__program_desc__pack(&m, buf);
        if (w != n) {
          free(buf);
          s = pd_set_error(PD_ERR_FATAL, "[program_desc] packed %zu bytes, expected %zu", w, n);
        } else {
          *out = buf;
          *len = n;
        }
      }
    }
  }
  arena_free(&ar);
  return s;
}
