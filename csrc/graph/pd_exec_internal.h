/* The executor's compiled form, shared by pd_executor.c and the special ops (control flow,
 * tensor arrays, Print/py_func: pd_exec_special.c). A plan numbers every value it touches
 * (slots); instruction lists hold kernel calls or special handlers; list 0 is the block the
 * plan was built for, sub-blocks of control-flow ops get lists of their own. */
#ifndef PD_EXEC_INTERNAL_H
#define PD_EXEC_INTERNAL_H
#include "pd_executor.h"

typedef struct {
  size_t offset;      /* field in the args struct */
  int is_list, optional;
  int n;
  int *slots;         /* -1: absent (optional tensor) */
  int list_off;       /* into the instruction's list_buf */
  int lod_of;         /* 1: bind the offsets of LoD level lod_level (-1: last) of slots[0]'s value
                         (a `<x>_lod` argument the converter left empty; pd_executor.c "LoD") */
  int lod_level;
} pd_binding;

struct pd_exec;
struct pd_instr;
typedef pd_status (*pd_special_run_fn)(struct pd_exec *r, const struct pd_instr *in);

typedef struct pd_instr {
  int op;                    /* kernel op, or -1 for a special */
  pd_special_run_fn special;
  const pd_opdesc *desc;     /* the program op it came from (messages, specials' attributes) */
  void *args;                /* kernel: the args template */
  int n_bind;
  pd_binding *bind;
  int n_out;
  int *out;                  /* slots written */
  int n_ins;
  int *ins;                  /* specials: slots read */
  pd_tensor **list_buf;
  int n_release;
  int *release;              /* slots dead after this instruction */
  int sub[2];                /* sub-lists (control flow), -1 none */
  int n_subs;
  int *subs;
  int lod_src;               /* kernels: the first binding with lod_of, or -1 */
  int *lod_out;              /* kernels: per output, the output whose LoD it holds (`<o>_lod`), or -1;
                                NULL when the op has no such output */
  void *extra;               /* special's data */
  void (*extra_free)(void *);
} pd_instr;

typedef struct {
  pd_instr *v;
  int n, cap;
} pd_instr_list;

typedef struct pd_plan {
  pd_program *prog;          /* retained */
  uint64_t rev;
  int block;
  int n_feed, n_fetch;
  char **feed_names, **fetch_names;
  int *feed_slots, *fetch_slots;
  int n_slots, cap_slots;
  char **slot_name;          /* variable name, NULL for temporaries */
  unsigned char *slot_persist;
  pd_tensor **slot_meta;     /* meta tensor bound to the slot's private var (aux = slot) */
  pd_tensor **slot_const;    /* constant data a converter embedded, or NULL */
  int *alias;                /* temporaries that became a variable's slot */
  int *hash, hcap;           /* name -> slot */
  int n_lists;
  pd_instr_list *lists;
  void *work;                /* args work buffer */
  pd_value *frame;           /* values of non-persistable slots */
  pd_value **bound;          /* per slot during a run: frame entry or scope value */
  struct pd_memplan *mem;    /* the memory plan (pd_exec_memplan.c), or NULL */
  int no_memplan;            /* the executor's memory plan is off */
  int dev;                   /* where the plan runs: PD_CPU or a GPU (pd_executor_set_device) */
  int layout_on;             /* blocked activations (pd_exec_layout.c); 2: trace them to stderr */
  unsigned char *lay_kind;   /* per instruction of list 0: its layout kind */
  unsigned char *slot_blk;   /* per slot: may hold a blocked value */
  struct pd_conv_wcache **wcache; /* per instruction of list 0: a convolution's reordered weights */
  int n_wcache;
  unsigned char *wshare;     /* per instruction of list 0: a convolution whose filter is a persistable
                                (its reordered weights may come from / go to the model's store) */
} pd_plan;

typedef struct pd_exec {
  pd_plan *p;
  pd_scope *scope;
  pd_value **bound;
} pd_exec;

/* compiling */
int pd_plan_find_slot(const pd_plan *p, const char *name);
pd_status pd_plan_slot(pd_plan *p, const pd_block *b, const char *name, int *out);
/* a new unnamed slot (a value private to special instructions) */
pd_status pd_plan_temp_slot(pd_plan *p, int *out);
/* a new slot: a variable's (name, desc) or a temporary (NULL, NULL), its meta from desc or like */
pd_status pd_plan_new_slot(pd_plan *p, const char *name, const pd_var *desc, const pd_tensor *like, int *out);
/* the slot a chain of aliases (temporaries that became variables) ends at */
int pd_plan_resolve_alias(const pd_plan *p, int s);
pd_status pd_plan_new_list(pd_plan *p, int *out);
pd_status pd_plan_add_instr(pd_plan *p, int list, pd_instr **out);
pd_status pd_plan_compile_block(pd_plan *p, int block, int *list_out);
void pd_instr_free(pd_instr *in);
pd_status pd_plan_emit_share(pd_plan *p, int list, const pd_opdesc *op, int src, int dst);
/* passes (pd_exec_passes.c), run by finish_plan unless PADDLE_C_EXEC_PASSES=0 */
pd_status pd_plan_fold_constants(pd_plan *p);
pd_status pd_plan_dce(pd_plan *p);
/* the memory plan (pd_exec_memplan.c) */
typedef struct pd_memplan pd_memplan;
pd_status pd_memplan_begin(pd_plan *p, int n_feed, const pd_feed *feeds);
pd_status pd_memplan_build(pd_plan *p);
pd_tensor *const *pd_memplan_pre(pd_plan *p, int list, int instr);
void pd_memplan_record(pd_plan *p, int list, int instr, const pd_instr *in, pd_tensor **outs, int n);
void pd_memplan_end(pd_plan *p, pd_status s);
void pd_memplan_free(pd_plan *p);
int64_t pd_memplan_workspace_bytes(const pd_plan *p);
/* without the memory plan (p->no_memplan): the residual tensor a fused_conv2d may write its output into
 * (the residual dies at this instruction, is not another of its inputs, and nothing else holds it or
 * its storage), else NULL; PADDLE_C_INPLACE_RESIDUAL=0 (read per call): never */
pd_tensor *pd_exec_residual_inplace(const pd_plan *p, const pd_instr *in);
/* blocked activations (pd_exec_layout.c): built once per plan of a layout executor; around each
 * kernel instruction i of list 0 */
pd_status pd_plan_layout_build(pd_plan *p, int fetch_blocked, int feed_blocked);
/* a fed tensor *t bound to slot: made plain (*t replaced, the old reference released) unless the
 * plan lets that slot hold a blocked value */
pd_status pd_exec_layout_feed(const pd_plan *p, int slot, pd_tensor **t);
pd_status pd_exec_layout_pre(pd_exec *r, int i, const pd_instr *in, int *elem_layout);
void pd_exec_layout_done(void);
/* after the instruction's arguments are bound, before its kernel: padded blocked inputs of an
 * ELEM instruction become views of their whole storage (released by pd_exec_layout_done) */
pd_status pd_exec_layout_bind(pd_exec *r, const pd_instr *in);
/* instead of the kernel where pre said *elem_layout = -1 (multiply by a channel scale) */
pd_status pd_exec_layout_chanmul(pd_tensor *const *pre, pd_tensor **o, int *n);
/* instead of the kernel where pre said *elem_layout = -2: concat along the channels into a blocked
 * output (args: the bound pd_concat_args) */
pd_status pd_exec_layout_concat(const void *args, pd_tensor *const *pre, pd_tensor **o, int *n); /* right after the kernel ran (or failed) */
void pd_plan_layout_free(pd_plan *p);
/* 1 when instruction instr of list 0 may write a blocked value (a layout-aware kind) */
int pd_plan_layout_writes_blocked(const pd_plan *p, int instr);
pd_status pd_exec_layout_post(pd_exec *r, int i, const pd_instr *in, int elem_layout, pd_tensor **o, int n);
/* running */
pd_status pd_exec_list(pd_exec *r, int list);
/* LoD (pd_exec_lod.c): level `level` of v's LoD as an int64 tensor (NULL without a LoD); the
 * outputs' LoD after a kernel instruction (first: its first input's LoD, a copy; seq: the value
 * of its first LoD argument or NULL) */
pd_status pd_exec_lod_tensor(const pd_value *v, int level, const pd_instr *in, pd_tensor **out);
pd_status pd_exec_lod_flow(pd_exec *r, const pd_instr *in, pd_tensor **o, int n, const pd_lod *first,
                           int64_t first_rows, const pd_value *seq);

/* specials: compile functions by op type (pd_exec_special.c), NULL if not special */
typedef pd_status (*pd_special_compile_fn)(pd_plan *p, int list, const pd_block *b, const pd_opdesc *op);
pd_special_compile_fn pd_exec_special_for(const char *type);

#endif
