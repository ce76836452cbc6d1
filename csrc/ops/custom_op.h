/* Custom operators from users' C libraries (csrc/api/pd_extension.h): the process-wide registry
 * and the generic op `custom_op` (ops/custom.yaml) that runs one. Eager calls, program recording
 * (type = the operator's name, Paddle's custom-op form), program loading (pd_convert.c asks the
 * registry for types it does not know) and the inference API all go through here. */
#ifndef PD_CUSTOM_OP_H
#define PD_CUSTOM_OP_H
#include "../api/pd_extension.h"
#include "../core/pd_status.h"

typedef enum { PD_CATTR_INT, PD_CATTR_INT64, PD_CATTR_FLOAT, PD_CATTR_BOOL } pd_custom_attr_kind;

typedef struct pd_custom_entry {
  char *name;
  int n_inputs, n_outputs, n_attrs;
  char **inputs, **outputs, **attr_names;
  pd_custom_attr_kind *attr_kinds;
  PD_ExtFn infer, forward, backward;
  char *library;  /* where it came from (messages) */
} pd_custom_entry;

/* Registers every operator of a table (copied; the functions must stay loaded). An operator
 * already registered under the same name from the same table is kept; a different one with that
 * name is an error (AlreadyExists). *n_new counts the operators added. */
pd_status pd_custom_register_table(const PD_CustomOpTable *t, const char *library, int *n_new);
/* dlopens path (RTLD_NOW | RTLD_LOCAL, kept open) and registers its PD_CustomOpLibrary table. */
pd_status pd_custom_load_library(const char *path, const PD_CustomOpTable **table);
/* The operator named type, or NULL. When none is registered, the PD_CustomOpLibrary tables in
 * the process's global scope (a serving program linked against an operator library) are
 * registered first. */
const pd_custom_entry *pd_custom_find(const char *type);
/* For "<name>_grad" types: the forward operator, or NULL. */
const pd_custom_entry *pd_custom_find_grad(const char *type);

#endif
