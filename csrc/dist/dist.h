/* paddle._dist: the collectives of paddle.distributed on MPI (OpenMPI). A separate extension
 * from paddle._C so that only it links libmpi: `import paddle` works where MPI is absent and
 * paddle.distributed reports it when first used. Tensors arrive through the buffer protocol
 * (contiguous, writable), so this module needs nothing from paddle._C. */
#ifndef PD_DIST_H
#define PD_DIST_H
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

enum { PDD_BOOL, PDD_UINT8, PDD_INT8, PDD_INT16, PDD_INT32, PDD_INT64, PDD_FLOAT16, PDD_BF16,
       PDD_FLOAT32, PDD_FLOAT64, PDD_C64, PDD_C128 };
/* Paddle's ReduceOp values: SUM=0, MAX=1, MIN=2, PROD=3, AVG=4 */
enum { PDD_SUM = 0, PDD_MAX = 1, PDD_MIN = 2, PDD_PROD = 3, PDD_AVG = 4 };

/* Code of a dtype name ("float32" ...) and its element size; -1 if unknown. */
int pdd_dtype_code(const char *name, size_t *size);
MPI_Datatype pdd_mpi_type(int code);
/* The MPI op for (dtype, op) (AVG gives SUM; the caller divides); -1 if the pair is not supported. */
int pdd_mpi_op(int dtype, int op, MPI_Op *out);
void pdd_free_user_ops(void);
/* buf[count] /= n in the dtype's own arithmetic. */
void pdd_divide(void *buf, int64_t count, int dtype, int n);

/* ---- the communication thread (dist_async.c) ---- */
/* Queues an in-place all-reduce of buf[count] (owner: handed back by pdd_async_wait). 0 or -1. */
int pdd_async_submit(MPI_Comm c, void *buf, int64_t count, size_t esize, int dtype, int op, void *owner);
int pdd_async_pending(void);
/* Waits for every queued job; returns the first MPI error (MPI_SUCCESS if none). */
int pdd_async_wait(void ***owners, int *n_owners);
void pdd_async_stop(void);
/* Queues pdd_shm_allreduce(h, off, count, dtype, op) on the same thread (owner: NULL). */
int pdd_async_submit_shm(int h, size_t off, int64_t count, int dtype, int op);

/* ---- shared-memory all-reduce (dist_shm.c) ---- */
/* Collective over c: a window of nbytes per rank in memory every rank maps. *handle = -1 (and
 * MPI_SUCCESS) where the ranks of c do not all share this machine; *mine: this rank's segment. */
int pdd_shm_create(MPI_Comm c, size_t nbytes, int *handle, void **mine);
size_t pdd_shm_size(int h);
/* In-place SUM/AVG of float32/float64 elements [off, off + count*esize) of every rank's segment;
 * collective over the window's ranks. Returns an MPI error code. */
int pdd_shm_allreduce(int h, size_t off, int64_t count, int dtype, int op);
void pdd_shm_free_all(void);
#endif
