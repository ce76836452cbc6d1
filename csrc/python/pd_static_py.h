/* Shared declarations of paddle._C's static-graph surface (static_desc_py.c, static_exec_py.c):
 * the descriptor handle objects and the scope object. */
#ifndef PD_STATIC_PY_H
#define PD_STATIC_PY_H
#include "pd_py.h"
#include "../graph/pd_program.h"
#include "../graph/pd_scope.h"

typedef struct {
  PyObject_HEAD
  pd_program *p;   /* owned reference */
} PdProgramDescObject;

typedef struct {
  PyObject_HEAD
  PyObject *prog;  /* the ProgramDesc object keeping the program alive */
  void *ptr;       /* pd_block / pd_opdesc / pd_var (the var is retained) */
} PdHandleObject;

typedef struct {
  PyObject_HEAD
  pd_scope *s;     /* owned reference */
} PdScopeObject;

extern PyTypeObject *PdProgramDesc_Type, *PdBlockDesc_Type, *PdOpDesc_Type, *PdVarDesc_Type;
extern PyTypeObject *PdScope_Type;
PyObject *pd_py_program_wrap(pd_program *p); /* steals the reference */
PyObject *pd_py_attr_value(const pd_attr *a);
/* LoD <-> a list of offset lists (static_exec_py.c); from_py returns 0 with an exception */
PyObject *pd_py_lod_to_py(const pd_lod *l);
int pd_py_lod_from_py(PyObject *o, pd_lod *l);
int pd_py_static_desc_init(PyObject *m);
int pd_py_static_io_init(PyObject *m);
int pd_py_static_exec_init(PyObject *m);
int pd_py_exec_callback_init(PyObject *m);

#endif
