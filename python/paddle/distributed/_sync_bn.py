"""SyncBatchNorm across ranks (paddle.nn.SyncBatchNorm in training when the job has several ranks):
per-channel sum, sum of squares and count are all-reduced (backward all-reduces their gradients:
every rank's loss depends on the global statistics), so each rank normalizes with the statistics
of the whole global batch; the running mean/variance (biased, as BatchNorm) update identically on
every rank."""
import paddle
from paddle.autograd import PyLayer

from . import collective as C


class _AllReduceBoth(PyLayer):
    @staticmethod
    def forward(ctx, x):
        y = x.clone()
        C.all_reduce(y)
        return y

    @staticmethod
    def backward(ctx, g):
        g = g.clone()
        C.all_reduce(g)
        return g


def sync_batch_norm(layer, x):
    fmt = layer._data_format
    ch = 1 if fmt.startswith("NC") else x.ndim - 1
    axes = [d for d in range(x.ndim) if d != ch]
    c = x.shape[ch]
    cnt = paddle.full([1], float(x.size // c), dtype=x.dtype)
    stats = paddle.concat([x.sum(axis=axes), (x * x).sum(axis=axes), cnt])
    stats = _AllReduceBoth.apply(stats)
    total = stats[2 * c:]
    mean = stats[:c] / total
    var = stats[c:2 * c] / total - mean * mean
    shape = [1] * x.ndim
    shape[ch] = c
    inv = paddle.rsqrt(var + layer._epsilon)
    y = (x - mean.reshape(shape)) * inv.reshape(shape)
    if layer.weight is not None:
        y = y * layer.weight.reshape(shape)
    if layer.bias is not None:
        y = y + layer.bias.reshape(shape)
    m = layer._momentum
    with paddle.no_grad():
        layer._mean._copy_(layer._mean * m + mean.detach() * (1 - m))
        layer._variance._copy_(layer._variance * m + var.detach() * (1 - m))
    return y
