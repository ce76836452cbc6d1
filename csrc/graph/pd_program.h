/* The static program IR, in Paddle's own shape (framework.proto's ProgramDesc): a program holds
 * blocks; a block holds variables (name, type, dtype, dims with -1 for unknown, lod level, flags)
 * and ops (Paddle's op type, named input/output slots listing variable names, typed attributes).
 * Programs built by paddle.static and programs read from .pdmodel files are the same structure,
 * so what is read can be written back unchanged. Ownership: a program is refcounted; blocks, ops
 * and attributes belong to it; variables are refcounted because meta tensors (the Python
 * Variables) hold them. Every mutation bumps prog->rev (executor plans are keyed by it). */
#ifndef PD_PROGRAM_H
#define PD_PROGRAM_H
#include <stdatomic.h>
#include <stdint.h>
#include "../ops/pd_op.h"

/* framework.proto VarType.Type (facts from Paddle's schema) */
enum {
  PD_VT_BOOL = 0, PD_VT_INT16 = 1, PD_VT_INT32 = 2, PD_VT_INT64 = 3, PD_VT_FP16 = 4,
  PD_VT_FP32 = 5, PD_VT_FP64 = 6, PD_VT_LOD_TENSOR = 7, PD_VT_SELECTED_ROWS = 8,
  PD_VT_FEED_MINIBATCH = 9, PD_VT_FETCH_LIST = 10, PD_VT_STEP_SCOPES = 11,
  PD_VT_LOD_RANK_TABLE = 12, PD_VT_LOD_TENSOR_ARRAY = 13, PD_VT_PLACE_LIST = 14,
  PD_VT_READER = 15, PD_VT_RAW = 17, PD_VT_TUPLE = 18, PD_VT_SIZE_T = 19, PD_VT_UINT8 = 20,
  PD_VT_INT8 = 21, PD_VT_BF16 = 22, PD_VT_COMPLEX64 = 23, PD_VT_COMPLEX128 = 24,
  PD_VT_STRING = 25, PD_VT_STRINGS = 26, PD_VT_VOCAB = 27, PD_VT_FEED_LIST = 28,
  PD_VT_PSTRING = 29, PD_VT_SPARSE_COO = 30, PD_VT_SPARSE_CSR = 31
};

/* Optional fields a program file had (pd_program_io.c), so that a file read and written back is
 * the same bytes. Fields are written when their bit is set or their value is not the default;
 * variables made here start with PD_PB_PERSISTABLE (Paddle writes that field for its vars). */
enum {
  PD_PB_PERSISTABLE = 1, PD_PB_NEED_CHECK_FEED = 2, PD_PB_IS_PARAMETER = 4, PD_PB_STOP_GRADIENT = 8,
  PD_PB_LOD_LEVEL = 16, PD_PB_IS_TARGET = 32, PD_PB_FORWARD_BLOCK = 64, PD_PB_OP_VERSION_MAP = 128
};

/* framework.proto AttrType */
typedef enum {
  PD_AT_INT = 0, PD_AT_FLOAT = 1, PD_AT_STRING = 2, PD_AT_INTS = 3, PD_AT_FLOATS = 4,
  PD_AT_STRINGS = 5, PD_AT_BOOLEAN = 6, PD_AT_BOOLEANS = 7, PD_AT_BLOCK = 8, PD_AT_LONG = 9,
  PD_AT_BLOCKS = 10, PD_AT_LONGS = 11, PD_AT_FLOAT64S = 12, PD_AT_VAR = 13, PD_AT_VARS = 14,
  PD_AT_FLOAT64 = 15, PD_AT_SCALAR = 16, PD_AT_SCALARS = 17, PD_AT_NUM_TYPES = 18
} pd_attr_type;

/* One attribute. Scalars live in i (INT, LONG, BOOLEAN, BLOCK), f (FLOAT, FLOAT64: FLOAT keeps
 * the double it was set with in memory and is rounded to float32 only when written), s
 * (STRING, VAR), sc (SCALAR); lists in n + ints (INTS, LONGS, BOOLEANS, BLOCKS), floats
 * (FLOATS, FLOAT64S), strings (STRINGS, VARS), scalars (SCALARS). */
typedef struct pd_attr {
  char *name;
  pd_attr_type type;
  int64_t i;
  double f;
  char *s;
  pd_scalar sc;
  int64_t n;
  int64_t *ints;
  double *floats;
  char **strings;
  pd_scalar *scalars;
} pd_attr;

typedef struct {
  char *name;    /* slot ("X", "Out" ...) */
  int n;
  char **args;   /* variable names */
} pd_opslot;

struct pd_block;
typedef struct pd_opdesc {
  char *type;
  int n_in, n_out, n_attrs;
  pd_opslot *in, *out;
  pd_attr *attrs;
  int is_target;
  unsigned pb_has;           /* PD_PB_IS_TARGET when a program file had the field */
  struct pd_block *block;    /* owner */
} pd_opdesc;

typedef struct pd_var {
  atomic_long refcount;
  char *name;
  int type;                 /* PD_VT_LOD_TENSOR ... */
  int dtype;                /* pd_dtype, or -1 (no element type, e.g. FEED_MINIBATCH) */
  int ndim;                 /* -1: rank unknown */
  int64_t dims[PD_MAX_DIMS]; /* -1: unknown extent */
  int lod_level;
  int persistable, need_check_feed, is_parameter, stop_gradient;
  unsigned pb_has;          /* PD_PB_* presence bits */
  int n_attrs;              /* VarDesc.Attr (INT, STRING, INTS only) */
  pd_attr *attrs;
  struct pd_block *block;   /* borrowed; NULL once the var left its block */
  pd_tensor *tensor;        /* borrowed: the canonical meta tensor (Python Variable), or NULL */
  int64_t aux;              /* owner's scratch: a plan's slot for the executor's private vars */
} pd_var;

typedef struct pd_block {
  int idx, parent_idx, forward_block_idx;
  unsigned pb_has;          /* PD_PB_FORWARD_BLOCK */
  int n_vars, cap_vars;
  pd_var **vars;            /* insertion order; owned references */
  int *hash;                /* open addressing over vars (index + 1; 0 empty), size hcap */
  int hcap;
  int n_ops, cap_ops;
  pd_opdesc **ops;
  struct pd_program *prog;  /* owner */
} pd_block;

typedef struct pd_program {
  atomic_long refcount;
  int n_blocks, cap_blocks;
  pd_block **blocks;
  int has_version;
  int64_t version;           /* major*1e6 + minor*1e3 + patch */
  unsigned pb_has;           /* PD_PB_OP_VERSION_MAP */
  int n_op_versions;
  char **op_version_names;
  int *op_version_values;
  uint64_t rev;              /* bumped on every change */
  int n_dead;                /* ops removed from blocks, kept until the program goes */
  pd_opdesc **dead;
} pd_program;

/* ---- programs ---- */
pd_status pd_program_new(pd_program **out);           /* with an empty block 0 */
void pd_program_retain(pd_program *p);
void pd_program_release(pd_program *p);
pd_status pd_program_clone(const pd_program *p, pd_program **out); /* deep copy */
pd_status pd_program_append_block(pd_program *p, int parent_idx, pd_block **out);
static inline void pd_program_touch(pd_program *p) { if (p) p->rev++; }
/* Checks the structure: block idx equal to its position, parents form a tree towards block 0
 * (no cycles), BLOCK/BLOCKS attributes and forward_block_idx in range. */
pd_status pd_program_validate(const pd_program *p);
pd_status pd_program_set_op_version(pd_program *p, const char *op, int version);

/* ---- variables ---- */
pd_var *pd_block_find_var(const pd_block *b, const char *name);
/* Searches b, then its ancestors. */
pd_var *pd_block_find_var_recursive(const pd_block *b, const char *name);
/* Returns the existing var (borrowed) or creates a LOD_TENSOR var with unknown dtype/rank. */
pd_status pd_block_var(pd_block *b, const char *name, pd_var **out);
pd_status pd_block_remove_var(pd_block *b, const char *name);
/* Keeps the vars i with keep[i] != 0 (in order) and drops the others, in one pass. */
pd_status pd_block_retain_vars(pd_block *b, const unsigned char *keep);
/* Renames the var and every use of the old name in b's ops (and sub-blocks'). */
pd_status pd_block_rename_var(pd_block *b, const char *old_name, const char *new_name);
/* A var that belongs to no block (the executor's and replays' private bookkeeping). */
pd_status pd_var_new_detached(const char *name, pd_var **out);
void pd_var_retain(pd_var *v);
void pd_var_release(pd_var *v);
pd_status pd_var_set_shape(pd_var *v, int ndim, const int64_t *dims);
/* A meta tensor bound to v (the canonical one if alive, else a new canonical one); new ref. */
pd_status pd_var_tensor(pd_var *v, pd_tensor **out);
/* A new meta tensor bound to v that is not the canonical one (replays and plans). */
pd_status pd_var_tensor_new(pd_var *v, pd_tensor **out);
/* Sets t's shape/dtype from its var (after the var changed). */
void pd_var_sync_tensor(pd_var *v);
/* A program's meta tensor t (bound to a variable) learns dims known elsewhere: each unknown dim
 * of t and of its variable where dims[d] >= 0 takes that value (same rank only). Used where
 * shape inference cannot see them: reshape_dyn / full_dyn outputs whose shape tensor has no data
 * while the program is built. No-op for tensors with data. */
void pd_meta_refine_dims(pd_tensor *t, int ndim, const int64_t *dims);

/* ---- ops ---- */
pd_status pd_block_append_op(pd_block *b, pd_opdesc **out);
pd_status pd_block_insert_op(pd_block *b, int index, pd_opdesc **out);
pd_status pd_block_remove_ops(pd_block *b, int start, int end); /* [start, end) */
int pd_block_op_index(const pd_block *b, const pd_opdesc *op);  /* -1 if not there */
pd_status pd_opdesc_set_type(pd_opdesc *op, const char *type);
/* Sets slot `name` of inputs (is_out = 0) or outputs to args[0..n). */
pd_status pd_opdesc_set_slot(pd_opdesc *op, int is_out, const char *name, int n,
                             const char *const *args);
const pd_opslot *pd_opdesc_slot(const pd_opdesc *op, int is_out, const char *name);
/* Whether op reads variable name: an input argument, or a VAR / VARS attribute (Paddle's
 * attributes given as variables) naming it. Sub-blocks are not looked into. */
int pd_opdesc_reads(const pd_opdesc *op, const char *name);
pd_status pd_opdesc_remove_slot(pd_opdesc *op, int is_out, const char *name);
/* The attribute named name (borrowed), or NULL. */
pd_attr *pd_opdesc_attr(const pd_opdesc *op, const char *name);
/* Adds or replaces an attribute with a deep copy of *a (a->name is used). */
pd_status pd_opdesc_set_attr(pd_opdesc *op, const pd_attr *a);
pd_status pd_opdesc_remove_attr(pd_opdesc *op, const char *name);
/* Convenience setters. */
pd_status pd_opdesc_set_attr_int(pd_opdesc *op, const char *name, pd_attr_type type, int64_t v);
pd_status pd_opdesc_set_attr_float(pd_opdesc *op, const char *name, pd_attr_type type, double v);
pd_status pd_opdesc_set_attr_str(pd_opdesc *op, const char *name, const char *v);
pd_status pd_opdesc_set_attr_ints(pd_opdesc *op, const char *name, pd_attr_type type, int64_t n,
                                  const int64_t *v);
pd_status pd_opdesc_set_attr_floats(pd_opdesc *op, const char *name, pd_attr_type type,
                                    int64_t n, const double *v);
pd_status pd_opdesc_set_attr_strs(pd_opdesc *op, const char *name, pd_attr_type type, int64_t n,
                                  const char *const *v);
/* Copies src's content into dst (dst keeps its block). */
pd_status pd_opdesc_copy(pd_opdesc *dst, const pd_opdesc *src);

/* ---- attributes ---- */
void pd_attr_clear(pd_attr *a);
pd_status pd_attr_copy(pd_attr *dst, const pd_attr *src);
const char *pd_attr_type_name(pd_attr_type t);
/* Reads an attribute as an int / double / int list with a clear error naming op and attr. */
pd_status pd_attr_as_int(const pd_opdesc *op, const pd_attr *a, int64_t *v);
pd_status pd_attr_as_double(const pd_opdesc *op, const pd_attr *a, double *v);

/* ---- printing ---- */
/* "{ // block 0 ... }" text like Paddle's Program.__str__ (malloc'd, caller frees). */
char *pd_program_to_string(const pd_program *p);
const char *pd_vartype_name(int vt);

/* Hook so pd_tensor_release can drop a tensor's var (set by pd_program.c). */
void pd_program_init(void);

#endif
