"""A short tour of the Paddle-C tensor API: creation, arithmetic with broadcasting, indexing
views, reductions, matmul, dtypes, numpy and DLPack interop, errors."""
import numpy as np

import paddle

paddle.seed(2023)
x = paddle.to_tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print("x =", x)
print("shape", x.shape, "dtype", x.dtype, "place", x.place)

# broadcasting (seed E10): [4, 3] + [3]
a = paddle.to_tensor([[0, 0, 0], [10, 10, 10], [20, 20, 20], [30, 30, 30]])
b = paddle.to_tensor([0, 1, 2])
print("a + b =\n", (a + b).numpy())

# elementwise math, reductions, matmul
print("exp(x).sum(axis=1) =", paddle.exp(x).sum(axis=1).numpy())
print("x.mean() =", x.mean().item())
print("x @ x.T =\n", (x @ x.T).numpy())

# indexing returns views that share storage
row = x[1]
x[1, 0] = 40.0
print("row after x[1, 0] = 40:", row.numpy())
print("x[:, ::-1] =\n", x[:, ::-1].numpy())
print("x[x > 2] =", x[x > 2].numpy())

# dtypes and casting
h = x.astype("float16")
print("as float16:", h.dtype, h.numpy())
print("int64 // 2 =", (paddle.arange(0, 6) // 2).numpy())

# random numbers are reproducible after paddle.seed
paddle.seed(7)
r1 = paddle.rand([3]).numpy()
paddle.seed(7)
r2 = paddle.rand([3]).numpy()
print("rand reproducible:", bool((r1 == r2).all()))

# numpy and DLPack interop
n = np.arange(6, dtype="float32").reshape(2, 3)
t = paddle.utils.dlpack.from_dlpack(n)  # zero-copy
n[0, 0] = 100
print("from_dlpack shares memory:", t[0, 0].item())

# bad input raises the exception type Paddle uses
try:
    paddle.add(paddle.ones([2, 3]), paddle.ones([4]))
except ValueError as e:
    print("ValueError:", str(e).splitlines()[0])
