"""Seeded random streams, run in real PaddlePaddle 2.6.2 (the oracle venv) to write
tests/conformance/expected/random_streams.json, and in Paddle-C by
tests/conformance/test_random_streams.py, which compares bit for bit.

    cd "$(mktemp -d)" && /work/oracle/bin/python /path/to/tools/oracle/random_streams.py > random_streams.json

Each case seeds the global generator and draws (values, dtype). Paddle-C reproduces Paddle's CPU
generator (mt19937_64 through a seed sequence) and its kernels' sampling transforms."""
import json
import sys


def cases(paddle):
    F = paddle.nn.functional
    I = paddle.nn.initializer

    def param(shape, dtype, init):
        return paddle.create_parameter(shape, dtype, default_initializer=init)

    return {
        "rand": (33, lambda: paddle.rand([2, 3])),
        "rand_f64": (1, lambda: paddle.rand([5], dtype="float64")),
        "rand_large": (7, lambda: paddle.rand([700])),  # crosses the engine's 312-word refill
        "uniform": (2, lambda: paddle.uniform([6], min=-2.5, max=3.7)),
        "uniform_f64": (2, lambda: paddle.uniform([6], dtype="float64", min=-2.5, max=3.7)),
        "uniform_seed_attr": (3, lambda: paddle.uniform([5], min=0.0, max=1.0, seed=1234)),
        "randn": (3, lambda: paddle.randn([7])),
        "randn_f64": (3, lambda: paddle.randn([7], dtype="float64")),
        "normal": (4, lambda: paddle.normal(mean=0.3, std=2.5, shape=[5])),
        "standard_normal": (11, lambda: paddle.standard_normal([5])),
        "randint": (5, lambda: paddle.randint(-3, 10, [8])),
        "randint_i32": (5, lambda: paddle.randint(0, 1000000, [8], dtype="int32")),
        "randint_like": (22, lambda: paddle.randint_like(paddle.zeros([5]), 0, 7)),
        "randperm_even": (6, lambda: paddle.randperm(10)),
        "randperm_odd": (6, lambda: paddle.randperm(7)),
        "bernoulli": (7, lambda: paddle.bernoulli(paddle.full([10], 0.4))),
        "bernoulli_f64": (7, lambda: paddle.bernoulli(paddle.full([10], 0.4, "float64"))),
        "dropout": (8, lambda: F.dropout(paddle.arange(1, 13, dtype="float32"), p=0.3)),
        "dropout_downscale": (8, lambda: F.dropout(paddle.arange(1, 13, dtype="float32"), p=0.3,
                                                   mode="downscale_in_infer")),
        "dropout_p": (25, lambda: paddle.concat([F.dropout(paddle.ones([300]), p=q) for q in
                                                 (0.0, 0.1, 0.5, 0.9, 0.999, 1.0)])),
        "dropout_2d_f64": (26, lambda: F.dropout(paddle.ones([4, 50], "float64"), p=0.25)),
        "exponential_": (9, lambda: paddle.ones([6]).exponential_(2.0)),
        "uniform_": (10, lambda: paddle.zeros([6]).uniform_(-1, 2)),
        "sequence": (12, lambda: paddle.concat([paddle.rand([3]), paddle.randn([3]), paddle.rand([2])])),
        "multinomial": (17, lambda: paddle.multinomial(paddle.to_tensor([0.1, 0.2, 0.3, 0.4]), 6, replacement=True)),
        "multinomial_norep": (17, lambda: paddle.multinomial(paddle.to_tensor([[0.1, 0.2, 0.3, 0.4],
                                                                              [0.5, 0.0, 0.25, 0.25]]), 3)),
        "poisson": (18, lambda: paddle.poisson(paddle.to_tensor([3.0, 0.5, 0.0, 11.5, 7.0, 1.0]))),
        "poisson_large": (31, lambda: paddle.poisson(paddle.to_tensor([12.0, 13.7, 20.0, 55.5, 100.0, 1000.0,
                                                                      12345.6, 250.0] * 8))),
        "gumbel_softmax": (23, lambda: F.gumbel_softmax(paddle.to_tensor([0.5, -1.0, 2.0, 0.0]), temperature=0.7)),
        "linear": (13, lambda: paddle.nn.Linear(3, 4).weight),
        "conv2d": (14, lambda: paddle.nn.Conv2D(2, 3, 3).weight),
        "embedding": (15, lambda: paddle.nn.Embedding(5, 3).weight),
        "lstm": (16, lambda: paddle.nn.LSTM(3, 2).weight_ih_l0),
        "truncated_normal": (19, lambda: param([6], "float32", I.TruncatedNormal(0.0, 2.0))),
        "truncated_normal_f64": (19, lambda: param([6], "float64", I.TruncatedNormal(0.5, 2.0))),
        "xavier_normal": (20, lambda: param([3, 4], "float32", I.XavierNormal())),
        "kaiming_uniform": (21, lambda: param([3, 4], "float32", I.KaimingUniform())),
        "normal_init": (24, lambda: param([5], "float32", I.Normal(1.0, 0.5))),
    }


def run_one(paddle, name):
    seed, f = cases(paddle)[name]
    paddle.seed(seed)
    v = f()
    return {"dtype": str(v.dtype).replace("paddle.", ""), "values": v.numpy().ravel().tolist()}


def run(paddle):
    return {name: run_one(paddle, name) for name in cases(paddle)}


if __name__ == "__main__":
    import paddle
    res = run(paddle)
    sys.stdout.write("{\n" + ",\n".join(f"{json.dumps(k)}: {json.dumps(res[k])}" for k in sorted(res)) + "\n}\n")
