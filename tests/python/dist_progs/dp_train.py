"""Run on 2 ranks (launch or mpirun) by tests/python/test_distributed.py: paddle.DataParallel
training of the seed MLP (784-1024-512-10, ReLU, cross-entropy; SGD: Adam's m/sqrt(v) turns
the last-bit differences of near-zero gradients into lr-sized steps, 1e-4 apart after 20 steps) for 20 steps equals one
process training on the concatenated batch (1e-6); no_sync accumulation; find_unused_parameters;
state_dict names; DistributedBatchSampler shards. Prints `RESULT <json>` per rank."""
import json
import os
import sys
import traceback

import numpy as np
import paddle
import paddle.distributed as dist
import paddle.nn as nn

dist.init_parallel_env()
R, N = dist.get_rank(), dist.get_world_size()
B = 8  # per rank
failures, passed = [], 0


def mlp():
    return nn.Sequential(nn.Linear(784, 1024), nn.ReLU(), nn.Linear(1024, 512), nn.ReLU(), nn.Linear(512, 10))


def batch(step):
    rs = np.random.RandomState(step)
    return rs.rand(N * B, 784).astype("float32"), rs.randint(0, 10, (N * B, 1)).astype("int64")


def close(name, a, b, tol=1e-6):
    global passed
    err = float(np.max(np.abs(a - b))) if a.shape == b.shape else float("inf")
    if err > tol:
        failures.append(f"rank {R}: {name}: max abs diff {err}")
    else:
        passed += 1
    return err


def t_train():
    loss_fn = nn.CrossEntropyLoss()
    paddle.seed(100)  # rank 0's initialisation; the reference uses it too
    ref = mlp()
    opt = paddle.optimizer.SGD(learning_rate=0.05, parameters=ref.parameters())
    for step in range(20):
        x, y = batch(step)
        loss = loss_fn(ref(paddle.to_tensor(x)), paddle.to_tensor(y))
        loss.backward()
        opt.step()
        opt.clear_grad()
    paddle.seed(100 + R)  # different on each rank: DataParallel must broadcast rank 0's
    model = mlp()
    dp = paddle.DataParallel(model)
    opt = paddle.optimizer.SGD(learning_rate=0.05, parameters=dp.parameters())
    for step in range(20):
        x, y = batch(step)
        xs, ys = x[R * B:(R + 1) * B], y[R * B:(R + 1) * B]
        loss = loss_fn(dp(paddle.to_tensor(xs)), paddle.to_tensor(ys))
        loss.backward()
        opt.step()
        opt.clear_grad()
    err = max(close(f"weight {k}", v.numpy(), ref.state_dict()[k].numpy()) for k, v in model.state_dict().items())
    if dp._overlap:
        st = dp._stats  # every bucket went to the communication thread while backward still ran
        if st["launched_in_backward"] != 20 * len(dp._buckets) or st["launched_after"] or st["redone"]:
            failures.append(f"rank {R}: overlap stats {st} for {len(dp._buckets)} buckets")
    if list(dp.state_dict().keys()) != list(ref.state_dict().keys()):
        failures.append(f"rank {R}: state_dict names {list(dp.state_dict())} vs {list(ref.state_dict())}")
    return err


def t_no_sync():
    """Two micro-batches, the first under no_sync: the grads equal the full-batch reference's."""
    loss_fn = nn.CrossEntropyLoss()
    paddle.seed(5)
    ref = mlp()
    xs = [batch(50 + k) for k in range(2)]
    for x, y in xs:
        (loss_fn(ref(paddle.to_tensor(x)), paddle.to_tensor(y))).backward()
    paddle.seed(5)
    dp = paddle.DataParallel(mlp())
    with dp.no_sync():
        x, y = xs[0]
        loss_fn(dp(paddle.to_tensor(x[R * B:(R + 1) * B])), paddle.to_tensor(y[R * B:(R + 1) * B])).backward()
    local = dp._layers[0].weight.grad.numpy().copy()
    x, y = xs[1]
    loss_fn(dp(paddle.to_tensor(x[R * B:(R + 1) * B])), paddle.to_tensor(y[R * B:(R + 1) * B])).backward()
    for (k, p), (_, q) in zip(dp._layers.named_parameters(), ref.named_parameters()):
        close(f"no_sync grad {k}", p.grad.numpy(), q.grad.numpy(), 1e-6)
    # the no_sync gradient really stayed local (it differs from the reference's first half)
    if np.allclose(local, ref[0].weight.grad.numpy() / 2, atol=1e-9):
        failures.append(f"rank {R}: no_sync gradient looks synced")


class CNN(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(1, 4, 3, padding=1)
        self.bn = nn.BatchNorm2D(4)
        self.fc = nn.Linear(4 * 6 * 6, 10)

    def forward(self, x):
        return self.fc(paddle.flatten(nn.functional.relu(self.bn(self.conv(x))), 1))


def t_cnn_sync_bn():
    """A CNN with BatchNorm turned into SyncBatchNorm, 2 ranks x B vs one process (plain BatchNorm)
    on the 2B batch: same weights and running statistics after 20 steps."""
    loss_fn = nn.CrossEntropyLoss()

    def data(step):
        rs = np.random.RandomState(300 + step)
        return rs.rand(N * B, 1, 6, 6).astype("float32"), rs.randint(0, 10, (N * B, 1)).astype("int64")
    paddle.seed(11)
    ref = CNN()
    opt = paddle.optimizer.SGD(learning_rate=0.05, parameters=ref.parameters())
    for step in range(20):
        x, y = data(step)
        loss_fn(ref(paddle.to_tensor(x)), paddle.to_tensor(y)).backward()
        opt.step()
        opt.clear_grad()
    paddle.seed(11 + R)
    model = nn.SyncBatchNorm.convert_sync_batchnorm(CNN())
    if not isinstance(model.bn, nn.SyncBatchNorm):
        failures.append(f"rank {R}: convert_sync_batchnorm did not convert")
    dp = paddle.DataParallel(model)
    opt = paddle.optimizer.SGD(learning_rate=0.05, parameters=dp.parameters())
    for step in range(20):
        x, y = data(step)
        loss_fn(dp(paddle.to_tensor(x[R * B:(R + 1) * B])), paddle.to_tensor(y[R * B:(R + 1) * B])).backward()
        opt.step()
        opt.clear_grad()
    want = ref.state_dict()
    for k, v in model.state_dict().items():
        close(f"cnn {k}", v.numpy(), want[k].numpy(), 1e-6)


class TwoHeads(nn.Layer):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(6, 4)
        self.a = nn.Linear(4, 1)
        self.b = nn.Linear(4, 1)

    def forward(self, x, head):
        h = self.body(x)
        return self.a(h) if head == 0 else self.b(h)


def t_unused():
    """Rank r uses head r % 2 only: its other head has no gradient and joins with zeros."""
    paddle.seed(9)
    ref = TwoHeads()
    xs = [np.random.RandomState(70 + r).rand(3, 6).astype("float32") for r in range(N)]
    sum(ref(paddle.to_tensor(xs[r]), r % 2).mean() for r in range(N)).__truediv__(N).backward()
    paddle.seed(9)
    dp = paddle.DataParallel(TwoHeads(), find_unused_parameters=True)
    dp(paddle.to_tensor(xs[R]), R % 2).mean().backward()
    for (k, p), (_, q) in zip(dp._layers.named_parameters(), ref.named_parameters()):
        close(f"unused grad {k}", p.grad.numpy(), q.grad.numpy(), 1e-6)


class SparseEmb(nn.Layer):
    def __init__(self):
        super().__init__()
        self.e = nn.Embedding(20, 4, sparse=True)
        self.l = nn.Linear(4, 1)

    def forward(self, x):
        return self.l(self.e(x).mean(1))


def t_sparse_embedding():
    """Row-sparse Embedding gradients (sparse=True) are averaged too: one SGD step equals the reference."""
    ids = np.random.RandomState(0).randint(0, 20, (N * 3, 5)).astype("int64")
    paddle.seed(1)
    ref = SparseEmb()
    ref(paddle.to_tensor(ids)).mean().backward()
    paddle.optimizer.SGD(0.5, parameters=ref.parameters()).step()
    paddle.seed(1 + R)
    dp = paddle.DataParallel(SparseEmb())
    dp(paddle.to_tensor(ids[R * 3:(R + 1) * 3])).mean().backward()
    paddle.optimizer.SGD(0.5, parameters=dp.parameters()).step()
    for k, v in dp.state_dict().items():
        close(f"sparse {k}", v.numpy(), ref.state_dict()[k].numpy(), 1e-6)


def t_model_fit():
    """paddle.Model.fit under the launcher trains data-parallel (DistributedBatchSampler shards,
    DataParallel sync): equals a one-process loop on the concatenated batches; rank 0 alone saves."""
    class DS(paddle.io.Dataset):
        def __init__(self):
            rs = np.random.RandomState(4)
            self.x = rs.rand(8 * N, 10).astype("float32")
            self.y = rs.randint(0, 3, (8 * N, 1)).astype("int64")

        def __getitem__(self, i):
            return self.x[i], self.y[i]

        def __len__(self):
            return len(self.x)
    ds = DS()
    per = len(ds) // N  # rank r's shard: samples [r*per, (r+1)*per), batches of 2
    paddle.seed(21)
    ref = nn.Linear(10, 3)
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=ref.parameters())
    for k in range(per // 2):
        idx = np.concatenate([np.arange(r * per + 2 * k, r * per + 2 * k + 2) for r in range(N)])
        nn.CrossEntropyLoss()(ref(paddle.to_tensor(ds.x[idx])), paddle.to_tensor(ds.y[idx])).backward()
        opt.step()
        opt.clear_grad()
    paddle.seed(21 + R)
    net = nn.Linear(10, 3)
    model = paddle.Model(net)
    model.prepare(paddle.optimizer.SGD(learning_rate=0.1, parameters=net.parameters()), nn.CrossEntropyLoss())
    model.fit(ds, batch_size=2, epochs=1, shuffle=False, verbose=0)
    for k, v in net.state_dict().items():
        close(f"Model.fit {k}", v.numpy(), ref.state_dict()[k].numpy(), 1e-6)
    d = os.environ.get("DP_TRAIN_OUT")
    if d:
        model.save(os.path.join(d, "ckpt"))
        dist.barrier()
        names = sorted(os.listdir(d))
        if "ckpt.pdparams" not in names or any(".tmp" in n for n in names):
            failures.append(f"rank {R}: checkpoint files {names}")
        else:
            sd = paddle.load(os.path.join(d, "ckpt.pdparams"))
            close("saved weight", sd["weight"].numpy(), net.weight.numpy(), 0)


def t_shared_weight():
    """A parameter used twice in one forward gets two gradient deliveries: its bucket is redone
    from .grad, and the result equals the reference."""
    paddle.seed(13)
    ref = nn.Linear(5, 5)
    xs = np.random.RandomState(14).rand(N * 3, 5).astype("float32")
    ref(ref(paddle.to_tensor(xs))).mean().backward()
    paddle.seed(13)
    lin = nn.Linear(5, 5)
    dp = paddle.DataParallel(lin)
    x = paddle.to_tensor(xs[R * 3:(R + 1) * 3])
    out = dp._layers(dp(x))  # the second use through the inner layer: the same parameters
    out.mean().backward()
    for k, v in lin.named_parameters():
        close(f"shared grad {k}", v.grad.numpy(), dict(ref.named_parameters())[k].grad.numpy(), 1e-6)
    if dp._overlap and dp._stats["redone"] < 1:
        failures.append(f"rank {R}: shared parameter bucket was not redone: {dp._stats}")


_PROBE = paddle.DataParallel(nn.Linear(1, 1))
_OVERLAP, _SHM = _PROBE._overlap, _PROBE._shm is not None


def t_fleet_sharding():
    """fleet collective training with DistributedStrategy.sharding (stage 1): each rank keeps the
    optimizer state of its own parameters only, and the weights still equal the reference's."""
    from paddle.distributed import fleet
    s = fleet.DistributedStrategy()
    s.sharding = True
    s.sharding_configs = {"stage": 1}
    fleet.init(is_collective=True, strategy=s)

    def net():
        return nn.Sequential(nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 3))

    def batch(k):
        rs = np.random.RandomState(900 + k)
        return rs.rand(N * 4, 12).astype("float32"), rs.randint(0, 3, (N * 4, 1)).astype("int64")
    paddle.seed(31)
    ref = net()
    ropt = paddle.optimizer.Momentum(0.05, momentum=0.9, parameters=ref.parameters())
    for k in range(5):
        x, y = batch(k)
        nn.functional.cross_entropy(ref(paddle.to_tensor(x)), paddle.to_tensor(y)).backward()
        ropt.step()
        ropt.clear_grad()
    paddle.seed(31 + R)
    model = net()
    inner = paddle.optimizer.Momentum(0.05, momentum=0.9, parameters=model.parameters())
    dmodel = fleet.distributed_model(model)
    dopt = fleet.distributed_optimizer(inner)
    for k in range(5):
        x, y = batch(k)
        nn.functional.cross_entropy(dmodel(paddle.to_tensor(x[R * 4:(R + 1) * 4])),
                                    paddle.to_tensor(y[R * 4:(R + 1) * 4])).backward()
        dopt.step()
        dopt.clear_grad()
    for k, v in model.state_dict().items():
        close(f"sharding {k}", v.numpy(), ref.state_dict()[k].numpy(), 1e-6)
    mine = sum(len(d) for d in inner._accumulators.values())
    full = sum(len(d) for d in ropt._accumulators.values())
    if not 0 < mine < full:
        failures.append(f"rank {R}: sharded optimizer holds {mine} accumulators of {full}")


def t_sampler():
    global passed
    ds = list(range(23))
    s = paddle.io.DistributedBatchSampler(ds, batch_size=4, shuffle=True)
    s.set_epoch(3)
    mine = np.array([i for b in s for i in b], dtype="int64")
    got = []
    dist.all_gather(got, paddle.to_tensor(mine))
    allidx = np.concatenate([g.numpy() for g in got])
    if sorted(set(allidx.tolist())) != ds or len(allidx) != N * int(np.ceil(23 / N)):
        failures.append(f"rank {R}: DistributedBatchSampler shards {allidx}")
    else:
        passed += 1


_ONLY = os.environ.get("DP_CHECKS")  # a comma-separated subset (the 4-rank run skips the CNN and Model.fit)
for name, fn in [("train", t_train), ("no_sync", t_no_sync), ("unused", t_unused), ("cnn_sync_bn", t_cnn_sync_bn),
                 ("sparse_embedding", t_sparse_embedding), ("model_fit", t_model_fit),
                 ("shared_weight", t_shared_weight), ("fleet_sharding", t_fleet_sharding), ("sampler", t_sampler)]:
    if _ONLY and name not in _ONLY.split(","):
        continue
    try:
        fn()
    except Exception:
        failures.append(f"rank {R}: {name} raised\n{traceback.format_exc()}")

out = {"rank": R, "size": N, "passed": passed, "failures": failures, "overlap": _OVERLAP, "shm": _SHM,
       "env": {k: os.environ.get(k) for k in ("PADDLE_TRAINER_ID", "PADDLE_TRAINERS_NUM", "PADDLE_TRAINER_ENDPOINTS",
                                              "PADDLE_CURRENT_ENDPOINT")}}
print("RESULT " + json.dumps(out))
if len(sys.argv) > 1:
    with open(os.path.join(sys.argv[1], f"result.{R}.json"), "w") as f:
        json.dump(out, f)
