/* How our ops and Paddle's program ops correspond (ops/compat.yaml -> generated/compat_gen.c).
 * Our op table uses Paddle's PHI names and argument names (add, matmul, pool2d ...); programs
 * use Paddle's operator names, slots and attributes (elementwise_add with X/Y/Out and axis,
 * matmul_v2 with trans_x ...). A compat entry renames in both directions:
 *   recording (pd_trace.c): our op + args struct -> an op desc with Paddle's names;
 *   loading (pd_convert.c): an op desc -> our op(s), through a converter that calls pd_op_run
 *   on tensors standing for the op's inputs (so one converter serves the executor's compiler,
 *   the backward replay and the recorder alike).
 * Ops without an entry are written under our own names (slots = argument names, attributes =
 * the remaining arguments), which we read back the same way. */
#ifndef PD_COMPAT_H
#define PD_COMPAT_H
#include "pd_program.h"

typedef struct {
  const char *ours;      /* our argument or output name */
  const char *theirs;    /* Paddle's slot or attribute name */
  int type;              /* attributes: pd_attr_type to write (-1: from the argument's kind) */
} pd_compat_map;

typedef struct {
  const char *name;      /* an attribute Paddle's op has and ours does not */
  pd_attr_type type;
  const char *value;     /* its value when we write it ("-1", "false", "[]", "" ...) */
} pd_compat_extra;

/* The conversion context handed to converters (pd_convert.c implements it per use). */
typedef struct pd_convert_ctx pd_convert_ctx;
typedef pd_status (*pd_compat_load_fn)(pd_convert_ctx *c);
/* A custom writer: records our op (args) into op (type, slots, attrs already cleared). */
typedef pd_status (*pd_compat_save_fn)(int our_op, const void *args, pd_opdesc *op,
                                       const char *const *in_names, const char *const *out_names);

typedef struct {
  const char *ours;           /* our op name, or NULL for an op we only read */
  const char *type;           /* Paddle's op type */
  int n_in;
  const pd_compat_map *in;    /* tensor args -> input slots */
  int n_out;
  const pd_compat_map *out;   /* outputs -> output slots */
  int n_attr;
  const pd_compat_map *attr;  /* other args -> attributes */
  int n_extra;
  const pd_compat_extra *extra;
  int n_writes;
  const pd_compat_map *writes; /* inputs the op updates in place -> extra output slots */
  pd_compat_load_fn load;     /* NULL: the generic inverse of the maps */
  pd_compat_save_fn save;     /* NULL: the generic writer */
  int n_dummy;
  const char *const *dummy;   /* output slots Paddle's op requires and ours does not produce
                               * (XShape ...): the recorder binds a fresh variable to each */
} pd_compat_def;

extern const pd_compat_def pd_compat_defs[];
extern const int pd_num_compat;

/* The entry for our op id (NULL: write it under our own names). */
const pd_compat_def *pd_compat_for_op(int op);
/* The entry for Paddle's op type (NULL: none; the type may be one of ours). */
const pd_compat_def *pd_compat_for_type(const char *type);

/* Our own form of an op (the form of ops without an entry, and of a call a custom writer finds
 * no Paddle form for: it returns PD_ERR_UNIMPLEMENTED and the recorder writes our form): slots
 * and attributes under our argument names, the type our op's name, or PD_OWN_PREFIX + the name
 * when a Paddle type of that name is read with Paddle's meaning (it has an entry: conv2d, pad,
 * linspace ...). Real Paddle cannot run ops in our form. */
#define PD_OWN_PREFIX "paddle_c_"
const char *pd_compat_own_type(int op, char *buf, size_t cap);
/* our op for a type in our own form, or -1 */
int pd_compat_own_op(const char *type);

/* Paddle's form of attribute `attr` of op `type` given as a one-element variable: 1 when Paddle
 * has one (*slot: the input slot that takes the variable, or NULL for a VAR attribute). */
int pd_compat_dyn_form(const char *type, const char *attr, const char **slot);

/* ---- the converter API (pd_convert.c) ---- */
const pd_opdesc *pd_cv_op(pd_convert_ctx *c);
/* Input k of slot (a meta or real tensor, borrowed), NULL when absent. */
pd_tensor *pd_cv_in(pd_convert_ctx *c, const char *slot, int k);
int pd_cv_in_count(pd_convert_ctx *c, const char *slot);
/* Binds t as output k of slot (takes a new reference to t). Slots the op lacks are ignored. */
pd_status pd_cv_out(pd_convert_ctx *c, const char *slot, int k, pd_tensor *t);
int pd_cv_out_count(pd_convert_ctx *c, const char *slot);
/* Attributes with defaults (wrong types give a clear error through *st). */
int64_t pd_cv_int(pd_convert_ctx *c, const char *name, int64_t dflt, pd_status *st);
double pd_cv_float(pd_convert_ctx *c, const char *name, double dflt, pd_status *st);
const char *pd_cv_str(pd_convert_ctx *c, const char *name, const char *dflt, pd_status *st);
/* An int list attribute; *n = -1 when absent. The array stays valid during the conversion. */
const int64_t *pd_cv_ints(pd_convert_ctx *c, const char *name, int64_t *n, pd_status *st);
const double *pd_cv_floats(pd_convert_ctx *c, const char *name, int64_t *n, pd_status *st);
/* Runs our op (through whatever tracer is active) and returns its outputs (new references in
 * outs[0..n), n <= cap). */
pd_status pd_cv_run(pd_convert_ctx *c, int op, const void *args, pd_tensor **outs, int cap, int *n);
/* The generic loader: builds our op's args from the entry's maps (defaults for what is absent),
 * runs it and binds the outputs = pd_cv_fill + pd_cv_finish. Custom loaders fill, adjust
 * fields (pd_cv_field) or inputs, then finish; or build everything themselves. */
pd_status pd_cv_generic(pd_convert_ctx *c, const pd_compat_def *def, int our_op);
pd_status pd_cv_fill(pd_convert_ctx *c, const pd_compat_def *def, int our_op, void **args);
pd_status pd_cv_finish(pd_convert_ctx *c, const pd_compat_def *def, int our_op, const void *args);
/* The field of args (our_op's args struct) for argument `name`, or NULL. */
void *pd_cv_field(int our_op, void *args, const char *name);
/* Zeroed memory that lives until the conversion ends. */
void *pd_cv_alloc(pd_convert_ctx *c, size_t n);
/* The tensor standing for any variable `name` of the block (borrowed), NULL if none. */
pd_tensor *pd_cv_var(pd_convert_ctx *c, const char *name);
/* The op right before this one in its block (NULL: first, or the block is not known). */
const pd_opdesc *pd_cv_prev_op(pd_convert_ctx *c);
/* This op's compat entry (or NULL) and our op id for it (-1 if none). */
const pd_compat_def *pd_cv_def(pd_convert_ctx *c, int *our_op);

/* ---- conveniences for custom loaders ---- */
/* Runs our op and returns its first output (new reference); the others are released. */
pd_status pd_cv_run1(pd_convert_ctx *c, int op, const void *args, pd_tensor **out);
/* Binds t as output 0 of slot and releases the caller's reference to t (t may be NULL: only
 * releases nothing and binds nothing). */
pd_status pd_cv_bind(pd_convert_ctx *c, const char *slot, pd_tensor *t);
/* 1 if the op has attribute name. */
int pd_cv_has(pd_convert_ctx *c, const char *name);
/* Input 0 of slot, or an error naming the op and the slot when it is missing. */
pd_status pd_cv_need(pd_convert_ctx *c, const char *slot, pd_tensor **out);
/* Integer values known while a program compiles (shape-derived int tensors: shape, slice of a
 * shape, fill_constant, concat ...), so that reshape2 with a ShapeTensor list or Shape input
 * gets its static dims. Entries are PD_CV_UNKNOWN where the value is known only when the
 * program runs. Kept per variable of the block being converted (a small thread-local table). */
#define PD_CV_UNKNOWN INT64_MIN
void pd_cv_set_known(pd_convert_ctx *c, const char *slot, int k, const int64_t *v, int n);
/* The known values of input k of slot: their count (<= cap), or -1 when none are recorded. */
int pd_cv_known(pd_convert_ctx *c, const char *slot, int k, int64_t *v, int cap);
/* The error "[type] ..." for this op. */
pd_status pd_cv_error(pd_convert_ctx *c, pd_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
