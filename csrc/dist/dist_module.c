/* paddle._dist: CPython binding of the MPI collectives (see dist.h). Communicators are small
 * integer handles (0 = MPI_COMM_WORLD); tensors are contiguous writable buffers plus their dtype
 * name. Before every collective the ranks exchange a header (dtype, ndim, shape) with one small
 * MPI_Allgather, so tensors that differ across ranks raise ValueError on every rank instead of
 * corrupting memory. MPI errors return (MPI_ERRORS_RETURN) and become RuntimeError. The GIL is
 * released around every MPI call. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"

#define PDD_MAX_COMMS 1024
#define PDD_HDR 10 /* dtype, ndim, dims[0..7] (dims beyond 7 folded into the last) */
#define PDD_TAG_HDR 7001
#define PDD_TAG_DATA 7002

static MPI_Comm comms[PDD_MAX_COMMS];
static int n_comms;
static int we_initialized;

static int mpi_fail(const char *op, int rc) {
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  PyErr_Format(PyExc_RuntimeError, "(External) [%s] MPI error: %s", op, msg);
  return -1;
}

static int mpi_fail(const char *op, int rc);

/* Drains the communication thread (its queued all-reduces finish; their buffers are released);
 * -1 with RuntimeError if one of them failed. */
static int drain(const char *op) {
  void **owners = NULL;
  int n = 0, rc;
  if (pdd_async_pending()) {
    Py_BEGIN_ALLOW_THREADS
    rc = pdd_async_wait(&owners, &n);
    Py_END_ALLOW_THREADS
  } else {
    rc = pdd_async_wait(&owners, &n); /* nothing queued: only collects finished jobs */
  }
  for (int i = 0; i < n; i++) { /* the buffer views the jobs held (needs the GIL) */
    PyBuffer_Release((Py_buffer *)owners[i]);
    PyMem_Free(owners[i]);
  }
  free(owners);
  return rc == MPI_SUCCESS ? 0 : mpi_fail(op, rc);
}

static int get_comm(int h, MPI_Comm *c, const char *op) {
  int flag = 0;
  MPI_Initialized(&flag);
  if (!flag) {
    PyErr_Format(PyExc_RuntimeError,
                 "(PreconditionNotMet) [%s] call paddle.distributed.init_parallel_env() first", op);
    return -1;
  }
  if (drain(op)) return -1;
  if (h < 0 || h >= n_comms || comms[h] == MPI_COMM_NULL) {
    PyErr_Format(PyExc_ValueError, "(InvalidArgument) [%s] this rank is not a member of group %d", op, h);
    return -1;
  }
  *c = comms[h];
  return 0;
}

/* A contiguous writable view of obj with its dtype (code and element size). */
typedef struct {
  Py_buffer view;
  int dtype;
  size_t esize;
  int64_t count;
  int held;
} pdd_buf;

static int get_buf(PyObject *obj, const char *dtype, const char *op, pdd_buf *b) {
  memset(b, 0, sizeof *b);
  b->dtype = pdd_dtype_code(dtype, &b->esize);
  if (b->dtype < 0) {
    PyErr_Format(PyExc_TypeError, "(InvalidArgument) [%s] dtype %s is not supported", op, dtype);
    return -1;
  }
  if (PyObject_GetBuffer(obj, &b->view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) return -1;
  b->held = 1;
  b->count = (int64_t)(b->view.len / (Py_ssize_t)b->esize);
  return 0;
}

static void put_buf(pdd_buf *b) {
  if (b->held) PyBuffer_Release(&b->view);
  b->held = 0;
}

static void make_header(const pdd_buf *b, int64_t *h) {
  memset(h, 0, sizeof(int64_t) * PDD_HDR);
  h[0] = b->dtype;
  h[1] = b->view.ndim;
  for (int d = 0; d < b->view.ndim; d++) {
    int k = d < PDD_HDR - 3 ? d : PDD_HDR - 3;
    h[2 + k] = k == d ? (int64_t)b->view.shape[d] : h[2 + k] * (int64_t)b->view.shape[d];
  }
  if (b->view.ndim == 0) h[1] = 0, h[2] = b->count;
}

static const char *dtype_name(int64_t code) {
  static const char *names[] = {"bool", "uint8", "int8", "int16", "int32", "int64", "float16",
                                "bfloat16", "float32", "float64", "complex64", "complex128"};
  return code >= 0 && code < 12 ? names[code] : "?";
}

static void fmt_header(const int64_t *h, char *out, size_t n) {
  size_t k = (size_t)snprintf(out, n, "%s[", dtype_name(h[0]));
  int nd = (int)(h[1] < PDD_HDR - 2 ? h[1] : PDD_HDR - 2);
  for (int d = 0; d < nd && k < n; d++) k += (size_t)snprintf(out + k, n - k, d ? ", %lld" : "%lld", (long long)h[2 + d]);
  if (k < n) snprintf(out + k, n - k, "]");
}

/* All ranks of c agree on (dtype, shape) of b, or all raise ValueError naming a differing rank. */
static int check_same(MPI_Comm c, const pdd_buf *b, const char *op) {
  int n = 0, me = 0, rc;
  MPI_Comm_size(c, &n);
  MPI_Comm_rank(c, &me);
  int64_t mine[PDD_HDR];
  make_header(b, mine);
  int64_t *all = (int64_t *)malloc(sizeof(int64_t) * PDD_HDR * (size_t)n);
  if (!all) {
    PyErr_NoMemory();
    return -1;
  }
  Py_BEGIN_ALLOW_THREADS
  rc = MPI_Allgather(mine, PDD_HDR, MPI_INT64_T, all, PDD_HDR, MPI_INT64_T, c);
  Py_END_ALLOW_THREADS
  if (rc != MPI_SUCCESS) {
    free(all);
    return mpi_fail(op, rc);
  }
  for (int r = 1; r < n; r++)
    if (memcmp(all, all + (size_t)r * PDD_HDR, sizeof(int64_t) * PDD_HDR)) {
      char a[160], z[160];
      fmt_header(all, a, sizeof a);
      fmt_header(all + (size_t)r * PDD_HDR, z, sizeof z);
      PyErr_Format(PyExc_ValueError,
                   "(InvalidArgument) [%s] the tensors differ across ranks: rank 0 of the group has %s, "
                   "rank %d has %s (this is rank %d)", op, a, r, z, me);
      free(all);
      return -1;
    }
  free(all);
  return 0;
}

#define PDD_CHUNK ((int64_t)1 << 30)

/* ---- module functions ---- */
static PyObject *m_init(PyObject *self, PyObject *args) {
  int flag = 0, rc = MPI_SUCCESS, provided = 0;
  MPI_Initialized(&flag);
  if (!flag) {
    Py_BEGIN_ALLOW_THREADS
    rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided);
    Py_END_ALLOW_THREADS
    if (rc != MPI_SUCCESS) return mpi_fail("init_parallel_env", rc), NULL;
    we_initialized = 1;
  }
  if (n_comms == 0) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    comms[0] = MPI_COMM_WORLD;
    n_comms = 1;
  }
  int r = 0, n = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return Py_BuildValue("(ii)", r, n);
}

static PyObject *m_initialized(PyObject *self, PyObject *args) {
  int flag = 0, fin = 0;
  MPI_Initialized(&flag);
  MPI_Finalized(&fin);
  return PyBool_FromLong(flag && !fin);
}

/* The gradient buckets of DataParallel live in shared windows (dist_shm.c) that tensors of the
 * user's (every .grad) point into, so the windows and MPI itself go only after the interpreter
 * has finished (Py_AtExit: no Python code runs after it, so nothing reads a freed window; an
 * atexit handler registered before init_parallel_env runs after ours and may still read .grad). */
static void final_cleanup(void) {
  int flag = 0, fin = 0;
  MPI_Initialized(&flag);
  MPI_Finalized(&fin);
  if (!flag || fin) return;
  pdd_shm_free_all();
  for (int i = 1; i < n_comms; i++)
    if (comms[i] != MPI_COMM_NULL) MPI_Comm_free(&comms[i]);
  n_comms = 0;
  pdd_free_user_ops();
  MPI_Finalize();
}

static PyObject *m_finalize(PyObject *self, PyObject *args) {
  static int registered;
  int flag = 0, fin = 0;
  MPI_Initialized(&flag);
  MPI_Finalized(&fin);
  if (flag && !fin && we_initialized) {
    if (drain("finalize")) PyErr_Clear();
    Py_BEGIN_ALLOW_THREADS
    pdd_async_stop();
    Py_END_ALLOW_THREADS
    if (!registered && Py_AtExit(final_cleanup) == 0) registered = 1;
    if (!registered) final_cleanup(); /* Py_AtExit's table is full: free now (the old order) */
  }
  Py_RETURN_NONE;
}

static PyObject *m_abort(PyObject *self, PyObject *args) {
  int code = 1, flag = 0, fin = 0;
  if (!PyArg_ParseTuple(args, "|i", &code)) return NULL;
  MPI_Initialized(&flag);
  MPI_Finalized(&fin);
  if (flag && !fin) MPI_Abort(MPI_COMM_WORLD, code);
  Py_RETURN_NONE;
}

static PyObject *m_comm_create(PyObject *self, PyObject *args) {
  int h;
  PyObject *ranks;
  if (!PyArg_ParseTuple(args, "iO", &h, &ranks)) return NULL;
  MPI_Comm parent;
  if (get_comm(h, &parent, "new_group")) return NULL;
  if (n_comms >= PDD_MAX_COMMS) {
    PyErr_Format(PyExc_MemoryError, "(ResourceExhausted) [new_group] at most %d groups", PDD_MAX_COMMS);
    return NULL;
  }
  PyObject *seq = PySequence_Fast(ranks, "new_group: ranks must be a sequence of ints");
  if (!seq) return NULL;
  Py_ssize_t k = PySequence_Fast_GET_SIZE(seq);
  int *rk = (int *)malloc(sizeof(int) * (size_t)(k ? k : 1));
  if (!rk) {
    Py_DECREF(seq);
    return PyErr_NoMemory();
  }
  for (Py_ssize_t i = 0; i < k; i++) {
    rk[i] = (int)PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
    if (rk[i] == -1 && PyErr_Occurred()) {
      free(rk);
      Py_DECREF(seq);
      return NULL;
    }
  }
  Py_DECREF(seq);
  MPI_Group pg, g;
  MPI_Comm out = MPI_COMM_NULL;
  int rc;
  MPI_Comm_group(parent, &pg);
  rc = MPI_Group_incl(pg, (int)k, rk, &g);
  free(rk);
  if (rc != MPI_SUCCESS) {
    MPI_Group_free(&pg);
    return mpi_fail("new_group", rc), NULL;
  }
  Py_BEGIN_ALLOW_THREADS
  rc = MPI_Comm_create(parent, g, &out);
  Py_END_ALLOW_THREADS
  MPI_Group_free(&g);
  MPI_Group_free(&pg);
  if (rc != MPI_SUCCESS) return mpi_fail("new_group", rc), NULL;
  if (out == MPI_COMM_NULL) return PyLong_FromLong(-1);
  MPI_Comm_set_errhandler(out, MPI_ERRORS_RETURN);
  comms[n_comms] = out;
  return PyLong_FromLong(n_comms++);
}

static PyObject *m_comm_rank(PyObject *self, PyObject *args) {
  int h, r = 0, n = 0;
  if (!PyArg_ParseTuple(args, "i", &h)) return NULL;
  MPI_Comm c;
  if (get_comm(h, &c, "get_rank")) return NULL;
  MPI_Comm_rank(c, &r);
  MPI_Comm_size(c, &n);
  return Py_BuildValue("(ii)", r, n);
}

/* all_reduce (root < 0) or reduce to root, in place. */
static PyObject *reduce_common(PyObject *args, int want_root, const char *opname) {
  int h, op, root = -1;
  PyObject *obj;
  const char *dt;
  if (want_root ? !PyArg_ParseTuple(args, "iOsii", &h, &obj, &dt, &op, &root)
                : !PyArg_ParseTuple(args, "iOsi", &h, &obj, &dt, &op))
    return NULL;
  MPI_Comm c;
  if (get_comm(h, &c, opname)) return NULL;
  pdd_buf b;
  if (get_buf(obj, dt, opname, &b)) return NULL;
  MPI_Op mop;
  if (pdd_mpi_op(b.dtype, op, &mop)) {
    PyErr_Format(PyExc_ValueError, "(InvalidArgument) [%s] reduce op %d is not supported for %s", opname, op, dt);
    put_buf(&b);
    return NULL;
  }
  int n = 0, me = 0, rc = MPI_SUCCESS;
  MPI_Comm_size(c, &n);
  MPI_Comm_rank(c, &me);
  if (want_root && (root < 0 || root >= n)) {
    PyErr_Format(PyExc_ValueError, "(InvalidArgument) [%s] dst %d out of range for a group of %d", opname, root, n);
    put_buf(&b);
    return NULL;
  }
  if (check_same(c, &b, opname)) {
    put_buf(&b);
    return NULL;
  }
  MPI_Datatype t = pdd_mpi_type(b.dtype);
  char *p = (char *)b.view.buf;
  Py_BEGIN_ALLOW_THREADS
  for (int64_t off = 0; off < b.count && rc == MPI_SUCCESS; off += PDD_CHUNK) {
    int cnt = (int)(b.count - off < PDD_CHUNK ? b.count - off : PDD_CHUNK);
    char *q = p + (size_t)off * b.esize;
    if (!want_root)
      rc = MPI_Allreduce(MPI_IN_PLACE, q, cnt, t, mop, c);
    else
      rc = MPI_Reduce(me == root ? MPI_IN_PLACE : q, me == root ? q : NULL, cnt, t, mop, root, c);
  }
  if (rc == MPI_SUCCESS && op == PDD_AVG && (!want_root || me == root)) pdd_divide(p, b.count, b.dtype, n);
  Py_END_ALLOW_THREADS
  put_buf(&b);
  if (rc != MPI_SUCCESS) return mpi_fail(opname, rc), NULL;
  Py_RETURN_NONE;
}

static PyObject *m_all_reduce(PyObject *self, PyObject *args) { return reduce_common(args, 0, "all_reduce"); }
static PyObject *m_reduce(PyObject *self, PyObject *args) { return reduce_common(args, 1, "reduce"); }

/* iall_reduce(h, tensor, dtype, op): queued on the communication thread; no header check (the
 * caller, DataParallel, checked the shapes at wrap time). wait_async() waits for all of them. */
static PyObject *m_iall_reduce(PyObject *self, PyObject *args) {
  int h, op;
  PyObject *obj;
  const char *dt;
  if (!PyArg_ParseTuple(args, "iOsi", &h, &obj, &dt, &op)) return NULL;
  int flag = 0;
  MPI_Initialized(&flag);
  if (!flag || h < 0 || h >= n_comms || comms[h] == MPI_COMM_NULL) {
    PyErr_Format(PyExc_RuntimeError, "(PreconditionNotMet) [iall_reduce] no such group %d (init_parallel_env?)", h);
    return NULL;
  }
  pdd_buf b;
  if (get_buf(obj, dt, "iall_reduce", &b)) return NULL;
  MPI_Op mop;
  if (pdd_mpi_op(b.dtype, op, &mop)) {
    PyErr_Format(PyExc_ValueError, "(InvalidArgument) [iall_reduce] reduce op %d is not supported for %s", op, dt);
    put_buf(&b);
    return NULL;
  }
  Py_buffer *owner = (Py_buffer *)PyMem_Malloc(sizeof(Py_buffer));
  if (!owner) {
    put_buf(&b);
    return PyErr_NoMemory();
  }
  *owner = b.view; /* the job owns the view now */
  if (pdd_async_submit(comms[h], b.view.buf, b.count, b.esize, b.dtype, op, owner)) {
    PyBuffer_Release(owner);
    PyMem_Free(owner);
    PyErr_SetString(PyExc_RuntimeError, "(External) [iall_reduce] could not start the communication thread");
    return NULL;
  }
  Py_RETURN_NONE;
}

static PyObject *m_wait_async(PyObject *self, PyObject *args) {
  if (drain("wait")) return NULL;
  Py_RETURN_NONE;
}

static PyObject *m_broadcast(PyObject *self, PyObject *args) {
  int h, root;
  PyObject *obj;
  const char *dt;
  if (!PyArg_ParseTuple(args, "iOsi", &h, &obj, &dt, &root)) return NULL;
  MPI_Comm c;
  if (get_comm(h, &c, "broadcast")) return NULL;
  pdd_buf b;
  if (get_buf(obj, dt, "broadcast", &b)) return NULL;
  int n = 0, rc = MPI_SUCCESS;
  MPI_Comm_size(c, &n);
  if (root < 0 || root >= n) {
    PyErr_Format(PyExc_ValueError, "(InvalidArgument) [broadcast] src %d out of range for a group of %d", root, n);
    put_buf(&b);
    return NULL;
  }
  if (check_same(c, &b, "broadcast")) {
    put_buf(&b);
    return NULL;
  }
  MPI_Datatype t = pdd_mpi_type(b.dtype);
  char *p = (char *)b.view.buf;
  Py_BEGIN_ALLOW_THREADS
  for (int64_t off = 0; off < b.count && rc == MPI_SUCCESS; off += PDD_CHUNK) {
    int cnt = (int)(b.count - off < PDD_CHUNK ? b.count - off : PDD_CHUNK);
    rc = MPI_Bcast(p + (size_t)off * b.esize, cnt, t, root, c);
  }
  Py_END_ALLOW_THREADS
  put_buf(&b);
  if (rc != MPI_SUCCESS) return mpi_fail("broadcast", rc), NULL;
  Py_RETURN_NONE;
}

static int small_count(const pdd_buf *b, const char *op) {
  if (b->count > INT_MAX) {
    PyErr_Format(PyExc_ValueError, "(InvalidArgument) [%s] at most %d elements per rank, received %lld", op,
                 INT_MAX, (long long)b->count);
    return -1;
  }
  return 0;
}

/* all_gather (kind 0), alltoall (kind 1), scatter (kind 2): send is this rank's tensor (all_gather)
 * or n chunks (alltoall; scatter at root, None elsewhere), recv n chunks (all_gather, alltoall) or one. */
static PyObject *gather_common(PyObject *args, int kind, const char *opname) {
  int h, root = 0;
  PyObject *sobj, *robj;
  const char *dt;
  if (kind == 2 ? !PyArg_ParseTuple(args, "iOOsi", &h, &sobj, &robj, &dt, &root)
                : !PyArg_ParseTuple(args, "iOOs", &h, &sobj, &robj, &dt))
    return NULL;
  MPI_Comm c;
  if (get_comm(h, &c, opname)) return NULL;
  int n = 0, me = 0, rc;
  MPI_Comm_size(c, &n);
  MPI_Comm_rank(c, &me);
  if (kind == 2 && (root < 0 || root >= n)) {
    PyErr_Format(PyExc_ValueError, "(InvalidArgument) [%s] src %d out of range for a group of %d", opname, root, n);
    return NULL;
  }
  pdd_buf s, r;
  memset(&s, 0, sizeof s);
  if (get_buf(robj, dt, opname, &r)) return NULL;
  int have_send = !(kind == 2 && me != root);
  if (have_send && get_buf(sobj, dt, opname, &s)) {
    put_buf(&r);
    return NULL;
  }
  /* the per-rank chunk: all_gather sends its whole tensor, the others split by n */
  int64_t chunk = kind == 0 ? s.count : kind == 1 ? s.count / n : r.count;
  int64_t want_r = kind == 0 ? s.count * n : kind == 1 ? s.count : chunk;
  int64_t want_s = kind == 0 ? chunk : chunk * n;
  const char *err = NULL;
  if (kind == 1 && s.count % n) err = "the input does not split evenly across the ranks";
  else if (r.count != want_r) err = "the output buffer has the wrong size";
  else if (have_send && s.count != want_s) err = "the input buffer has the wrong size";
  if (err) {
    PyErr_Format(PyExc_ValueError, "(InvalidArgument) [%s] %s", opname, err);
    put_buf(&r);
    put_buf(&s);
    return NULL;
  }
  if (check_same(c, kind == 0 ? &s : &r, opname) || small_count(&r, opname)) {
    put_buf(&r);
    put_buf(&s);
    return NULL;
  }
  MPI_Datatype t = pdd_mpi_type(r.dtype);
  void *sp = have_send ? s.view.buf : NULL, *rp = r.view.buf;
  Py_BEGIN_ALLOW_THREADS
  if (kind == 0)
    rc = MPI_Allgather(sp, (int)chunk, t, rp, (int)chunk, t, c);
  else if (kind == 1)
    rc = MPI_Alltoall(sp, (int)chunk, t, rp, (int)chunk, t, c);
  else
    rc = MPI_Scatter(sp, (int)chunk, t, rp, (int)chunk, t, root, c);
  Py_END_ALLOW_THREADS
  put_buf(&r);
  put_buf(&s);
  if (rc != MPI_SUCCESS) return mpi_fail(opname, rc), NULL;
  Py_RETURN_NONE;
}

static PyObject *m_all_gather(PyObject *self, PyObject *args) { return gather_common(args, 0, "all_gather"); }
static PyObject *m_alltoall(PyObject *self, PyObject *args) { return gather_common(args, 1, "alltoall"); }
static PyObject *m_scatter(PyObject *self, PyObject *args) { return gather_common(args, 2, "scatter"); }

/* send: a header (dtype, shape) then the data; recv checks the header against its tensor and
 * still consumes the data on a mismatch, so the pair stays in step. */
static PyObject *m_send(PyObject *self, PyObject *args) {
  int h, dst;
  PyObject *obj;
  const char *dt;
  if (!PyArg_ParseTuple(args, "iOsi", &h, &obj, &dt, &dst)) return NULL;
  MPI_Comm c;
  if (get_comm(h, &c, "send")) return NULL;
  pdd_buf b;
  if (get_buf(obj, dt, "send", &b)) return NULL;
  int n = 0, rc;
  MPI_Comm_size(c, &n);
  if (dst < 0 || dst >= n || small_count(&b, "send")) {
    if (!PyErr_Occurred())
      PyErr_Format(PyExc_ValueError, "(InvalidArgument) [send] dst %d out of range for a group of %d", dst, n);
    put_buf(&b);
    return NULL;
  }
  int64_t hdr[PDD_HDR];
  make_header(&b, hdr);
  Py_BEGIN_ALLOW_THREADS
  rc = MPI_Send(hdr, PDD_HDR, MPI_INT64_T, dst, PDD_TAG_HDR, c);
  if (rc == MPI_SUCCESS) rc = MPI_Send(b.view.buf, (int)b.count, pdd_mpi_type(b.dtype), dst, PDD_TAG_DATA, c);
  Py_END_ALLOW_THREADS
  put_buf(&b);
  if (rc != MPI_SUCCESS) return mpi_fail("send", rc), NULL;
  Py_RETURN_NONE;
}

static PyObject *m_recv(PyObject *self, PyObject *args) {
  int h, src;
  PyObject *obj;
  const char *dt;
  if (!PyArg_ParseTuple(args, "iOsi", &h, &obj, &dt, &src)) return NULL;
  MPI_Comm c;
  if (get_comm(h, &c, "recv")) return NULL;
  pdd_buf b;
  if (get_buf(obj, dt, "recv", &b)) return NULL;
  int n = 0, rc, same;
  MPI_Comm_size(c, &n);
  if (src < 0 || src >= n || small_count(&b, "recv")) {
    if (!PyErr_Occurred())
      PyErr_Format(PyExc_ValueError, "(InvalidArgument) [recv] src %d out of range for a group of %d", src, n);
    put_buf(&b);
    return NULL;
  }
  int64_t hdr[PDD_HDR], mine[PDD_HDR];
  make_header(&b, mine);
  Py_BEGIN_ALLOW_THREADS
  rc = MPI_Recv(hdr, PDD_HDR, MPI_INT64_T, src, PDD_TAG_HDR, c, MPI_STATUS_IGNORE);
  same = rc == MPI_SUCCESS && !memcmp(hdr, mine, sizeof mine);
  if (rc == MPI_SUCCESS && same) {
    rc = MPI_Recv(b.view.buf, (int)b.count, pdd_mpi_type(b.dtype), src, PDD_TAG_DATA, c, MPI_STATUS_IGNORE);
  } else if (rc == MPI_SUCCESS) { /* drain the data message */
    MPI_Status st;
    int bytes = 0;
    rc = MPI_Probe(src, PDD_TAG_DATA, c, &st);
    if (rc == MPI_SUCCESS) MPI_Get_count(&st, MPI_BYTE, &bytes);
    void *tmp = malloc(bytes > 0 ? (size_t)bytes : 1);
    if (rc == MPI_SUCCESS && tmp) rc = MPI_Recv(tmp, bytes, MPI_BYTE, src, PDD_TAG_DATA, c, MPI_STATUS_IGNORE);
    free(tmp);
  }
  Py_END_ALLOW_THREADS
  put_buf(&b);
  if (rc != MPI_SUCCESS) return mpi_fail("recv", rc), NULL;
  if (!same) {
    char a[160], z[160];
    fmt_header(hdr, a, sizeof a);
    fmt_header(mine, z, sizeof z);
    PyErr_Format(PyExc_ValueError, "(InvalidArgument) [recv] rank %d sent %s, the receiving tensor is %s", src, a, z);
    return NULL;
  }
  Py_RETURN_NONE;
}

static PyObject *m_barrier(PyObject *self, PyObject *args) {
  int h, rc;
  if (!PyArg_ParseTuple(args, "i", &h)) return NULL;
  MPI_Comm c;
  if (get_comm(h, &c, "barrier")) return NULL;
  Py_BEGIN_ALLOW_THREADS
  rc = MPI_Barrier(c);
  Py_END_ALLOW_THREADS
  if (rc != MPI_SUCCESS) return mpi_fail("barrier", rc), NULL;
  Py_RETURN_NONE;
}

/* shm_alloc(h, nbytes): collective over group h; (window handle, memoryview of this rank's
 * segment) where every rank of the group is on this machine, else None. The window lives until
 * finalize (memory handed to tensors must outlive them). */
static PyObject *m_shm_alloc(PyObject *self, PyObject *args) {
  int h;
  Py_ssize_t nbytes;
  if (!PyArg_ParseTuple(args, "in", &h, &nbytes)) return NULL;
  if (nbytes <= 0) {
    PyErr_Format(PyExc_ValueError, "(InvalidArgument) [shm_alloc] nbytes must be > 0, received %zd", nbytes);
    return NULL;
  }
  MPI_Comm c;
  if (get_comm(h, &c, "shm_alloc")) return NULL;
  int wh = -1, rc;
  void *base = NULL;
  Py_BEGIN_ALLOW_THREADS
  rc = pdd_shm_create(c, (size_t)nbytes, &wh, &base);
  Py_END_ALLOW_THREADS
  if (rc != MPI_SUCCESS) return mpi_fail("shm_alloc", rc), NULL;
  if (wh < 0) Py_RETURN_NONE;
  PyObject *mv = PyMemoryView_FromMemory((char *)base, (Py_ssize_t)pdd_shm_size(wh), PyBUF_WRITE);
  if (!mv) return NULL;
  return Py_BuildValue("(iN)", wh, mv);
}

static int shm_args(PyObject *args, int *wh, Py_ssize_t *off, int64_t *count, int *dtype, int *op, const char *name) {
  const char *dt;
  Py_ssize_t cnt;
  if (!PyArg_ParseTuple(args, "innsi", wh, off, &cnt, &dt, op)) return -1;
  size_t es = 0;
  *dtype = pdd_dtype_code(dt, &es);
  *count = cnt;
  if ((*dtype != PDD_FLOAT32 && *dtype != PDD_FLOAT64) || (*op != PDD_SUM && *op != PDD_AVG)) {
    PyErr_Format(PyExc_ValueError, "(InvalidArgument) [%s] float32/float64 SUM/AVG only, received %s op %d", name, dt, *op);
    return -1;
  }
  if (*off < 0 || cnt < 0 || (size_t)*off + (size_t)cnt * es > pdd_shm_size(*wh)) {
    PyErr_Format(PyExc_ValueError, "(InvalidArgument) [%s] range [%zd, +%zd x %zu bytes) outside window %d", name,
                 *off, cnt, es, *wh);
    return -1;
  }
  return 0;
}

/* shm_allreduce(window, offset_bytes, count, dtype, op): in-place SUM/AVG on every rank's segment. */
static PyObject *m_shm_allreduce(PyObject *self, PyObject *args) {
  int wh, dtype, op, rc;
  Py_ssize_t off;
  int64_t count;
  if (shm_args(args, &wh, &off, &count, &dtype, &op, "shm_allreduce")) return NULL;
  if (drain("shm_allreduce")) return NULL;
  Py_BEGIN_ALLOW_THREADS
  rc = pdd_shm_allreduce(wh, (size_t)off, count, dtype, op);
  Py_END_ALLOW_THREADS
  if (rc != MPI_SUCCESS) return mpi_fail("shm_allreduce", rc), NULL;
  Py_RETURN_NONE;
}

/* ishm_allreduce: the same, queued on the communication thread (wait_async waits). */
static PyObject *m_ishm_allreduce(PyObject *self, PyObject *args) {
  int wh, dtype, op;
  Py_ssize_t off;
  int64_t count;
  if (shm_args(args, &wh, &off, &count, &dtype, &op, "ishm_allreduce")) return NULL;
  if (pdd_async_submit_shm(wh, (size_t)off, count, dtype, op)) {
    PyErr_SetString(PyExc_RuntimeError, "(External) [ishm_allreduce] could not start the communication thread");
    return NULL;
  }
  Py_RETURN_NONE;
}

/* The benchmark's baseline: seconds per raw in-place MPI_Allreduce(SUM, float32) averaged over
 * iters after one warm-up: on nbytes of a malloc'd buffer (buf None) or on buf itself (a float32
 * tensor: the same memory the collectives under test use). No header exchange, no Python. */
static PyObject *m_bench_allreduce(PyObject *self, PyObject *args) {
  int h, iters;
  Py_ssize_t nbytes;
  PyObject *obj = Py_None;
  if (!PyArg_ParseTuple(args, "ini|O", &h, &nbytes, &iters, &obj)) return NULL;
  MPI_Comm c;
  if (get_comm(h, &c, "bench_allreduce")) return NULL;
  pdd_buf b;
  float *p;
  int cnt;
  if (obj != Py_None) {
    if (get_buf(obj, "float32", "bench_allreduce", &b)) return NULL;
    p = (float *)b.view.buf;
    cnt = (int)(b.count < INT_MAX ? b.count : INT_MAX);
  } else {
    b.held = 0;
    cnt = (int)(nbytes / 4);
    p = (float *)calloc((size_t)cnt + 1, sizeof(float));
    if (!p) return PyErr_NoMemory();
  }
  double t0 = 0, t1 = 0;
  int rc;
  Py_BEGIN_ALLOW_THREADS
  rc = MPI_Allreduce(MPI_IN_PLACE, p, cnt, MPI_FLOAT, MPI_SUM, c);
  MPI_Barrier(c);
  t0 = MPI_Wtime();
  for (int i = 0; i < iters && rc == MPI_SUCCESS; i++) rc = MPI_Allreduce(MPI_IN_PLACE, p, cnt, MPI_FLOAT, MPI_SUM, c);
  t1 = MPI_Wtime();
  Py_END_ALLOW_THREADS
  if (obj != Py_None) put_buf(&b);
  else free(p);
  if (rc != MPI_SUCCESS) return mpi_fail("bench_allreduce", rc), NULL;
  return PyFloat_FromDouble((t1 - t0) / (iters > 0 ? iters : 1));
}

static PyMethodDef methods[] = {
    {"init", m_init, METH_NOARGS, "MPI_Init (once); returns (rank, world_size)"},
    {"initialized", m_initialized, METH_NOARGS, "whether MPI is initialized and not finalized"},
    {"finalize", m_finalize, METH_NOARGS, "MPI_Finalize if this module initialized MPI"},
    {"abort", m_abort, METH_VARARGS, "MPI_Abort(MPI_COMM_WORLD, code): ends every rank"},
    {"comm_create", m_comm_create, METH_VARARGS, "(parent, ranks) -> group handle, -1 if not a member"},
    {"comm_rank", m_comm_rank, METH_VARARGS, "(handle) -> (rank, size)"},
    {"all_reduce", m_all_reduce, METH_VARARGS, "(handle, tensor, dtype, op) in place"},
    {"reduce", m_reduce, METH_VARARGS, "(handle, tensor, dtype, op, dst) in place on dst"},
    {"broadcast", m_broadcast, METH_VARARGS, "(handle, tensor, dtype, src)"},
    {"all_gather", m_all_gather, METH_VARARGS, "(handle, tensor, out[n*numel], dtype)"},
    {"alltoall", m_alltoall, METH_VARARGS, "(handle, in[n*chunk], out[n*chunk], dtype)"},
    {"scatter", m_scatter, METH_VARARGS, "(handle, in[n*numel] or None, out, dtype, src)"},
    {"send", m_send, METH_VARARGS, "(handle, tensor, dtype, dst)"},
    {"recv", m_recv, METH_VARARGS, "(handle, tensor, dtype, src)"},
    {"barrier", m_barrier, METH_VARARGS, "(handle)"},
    {"iall_reduce", m_iall_reduce, METH_VARARGS, "(handle, tensor, dtype, op) queued on the communication thread"},
    {"wait_async", m_wait_async, METH_NOARGS, "waits for every queued iall_reduce"},
    {"shm_alloc", m_shm_alloc, METH_VARARGS, "(handle, nbytes) -> (window, memoryview) or None (collective)"},
    {"shm_allreduce", m_shm_allreduce, METH_VARARGS, "(window, offset, count, dtype, op) in place, shared memory"},
    {"ishm_allreduce", m_ishm_allreduce, METH_VARARGS, "the same, queued on the communication thread"},
    {"bench_allreduce", m_bench_allreduce, METH_VARARGS, "(handle, nbytes, iters[, float32 tensor]) -> s per raw MPI_Allreduce"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "paddle._dist",
                                    "MPI collectives of paddle.distributed", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__dist(void) { return PyModule_Create(&moddef); }
