"""paddle.static.amp: decorate()'s minimize rewrites the program with cast ops (float16 white ops,
bfloat16 through amp.bf16, pure float16 with master weights), trains to losses close to float32,
skips steps whose gradients overflow while the dynamic loss scale shrinks, and honours custom
lists; paddle.Model(amp_configs='O1'/'O2') in static mode."""
import numpy as np
import pytest

import paddle
from paddle.static import amp

BS = 16


def _build(kind, lists=None, **kw):
    """A conv-bn-relu-pool-linear net on [BS, 1, 8, 8]; returns (main, startup, loss, opt, layers)."""
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        x = paddle.static.data("x", [BS, 1, 8, 8], "float32")
        y = paddle.static.data("y", [BS, 1], "int64")
        conv, bn, fc = paddle.nn.Conv2D(1, 4, 3, padding=1), paddle.nn.BatchNorm2D(4), paddle.nn.Linear(64, 3)

        def fwd():
            h = paddle.nn.functional.max_pool2d(paddle.nn.functional.relu(bn(conv(x))), 2)
            return fc(paddle.flatten(h, 1))

        if kind == "pure":
            with amp.fp16_guard():
                out = fwd()
        else:
            out = fwd()
        loss = paddle.nn.functional.cross_entropy(out, y)
        opt = paddle.optimizer.Adam(0.01)
        if kind == "fp16":
            opt = amp.decorate(opt, amp_lists=lists, init_loss_scaling=128.0, **kw)
        elif kind == "pure":
            opt = amp.decorate(opt, init_loss_scaling=128.0, use_pure_fp16=True, **kw)
        elif kind == "bf16":
            opt = amp.bf16.decorate_bf16(opt, amp_lists=lists)
        opt.minimize(loss)
    return main, startup, loss, opt, (conv, bn, fc)


def _train(kind, steps=6, **kw):
    paddle.enable_static()
    try:
        paddle.seed(0)
        main, startup, loss, opt, layers = _build(kind, **kw)
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            exe = paddle.static.Executor()
            exe.run(startup)
            if kind == "pure":
                opt.amp_init(paddle.CPUPlace())
            rng = np.random.RandomState(0)
            X = rng.rand(BS, 1, 8, 8).astype("float32")
            Y = rng.randint(0, 3, (BS, 1)).astype("int64")
            losses = [exe.run(main, feed={"x": X, "y": Y}, fetch_list=[loss])[0][0] for _ in range(steps)]
        return losses, main, scope, opt, layers
    finally:
        paddle.disable_static()


def _var_dtype(main, name):
    return main.global_block().desc.find_var(name).dtype().name


def _inputs(main, op_type):
    return [op.input_arg_names for op in main.global_block().ops if op.type == op_type]


@pytest.fixture(scope="module")
def fp32_losses():
    return _train("fp32")[0]


def test_fp16_casts_and_losses(fp32_losses):
    losses, main, _, opt, _ = _train("fp16")
    types = [op.type for op in main.global_block().ops]
    assert "cast" in types and "check_finite_and_unscale_" in types and "update_loss_scaling_" in types
    # the white ops read float16 copies; the black op (cross entropy) reads float32
    assert all(_var_dtype(main, n) == "float16" for n in _inputs(main, "matmul_v2")[0])
    # conv2d has no float16 kernel: it reads its float16 inputs cast back up (eager auto_cast's
    # emulation) and its float32 output is rounded to float16
    conv_in = _inputs(main, "conv2d")[0]
    assert all(".cast_fp16.cast_fp32_emu" in n and _var_dtype(main, n) == "float32" for n in conv_in), conv_in
    conv_out = [op.output_arg_names[0] for op in main.global_block().ops if op.type == "conv2d"][0]
    nxt = [op for op in main.global_block().ops if op.type == "cast" and conv_out in op.input_arg_names][0]
    assert _var_dtype(main, nxt.output_arg_names[0]) == "float16"
    ce = _inputs(main, "softmax_with_cross_entropy")[0]
    assert _var_dtype(main, ce[0]) == "float32"
    # the gray elementwise_add after the white matmul runs in float16
    add_out = [op.output_arg_names for op in main.global_block().ops if op.type == "elementwise_add"][0]
    assert _var_dtype(main, add_out[0]) == "float16"
    np.testing.assert_allclose(losses, fp32_losses, rtol=2e-2)
    assert opt.get_loss_scaling().name.startswith("loss_scaling")


def test_bf16_casts_and_losses(fp32_losses):
    losses, main, _, _, _ = _train("bf16")
    # conv2d has a bfloat16 kernel (the bf16 units' oneDNN primitives, or the float32 fallback):
    # it reads its bfloat16 inputs directly
    conv_in = _inputs(main, "conv2d")[0]
    assert all(_var_dtype(main, n) == "bfloat16" and "cast_fp32_emu" not in n for n in conv_in), conv_in
    # bfloat16's white list is eager's: matmul_v2 yes, so the linear layer runs in bfloat16 too
    assert any(_var_dtype(main, n) == "bfloat16" for n in _inputs(main, "matmul_v2")[0])
    np.testing.assert_allclose(losses, fp32_losses, rtol=5e-2)


def test_pure_fp16_master_weights(fp32_losses):
    losses, main, scope, opt, (conv, bn, fc) = _train("pure")
    np.testing.assert_allclose(losses, fp32_losses, rtol=2e-2)
    # parameters are float16 in the program and the scope, with float32 master copies
    assert _var_dtype(main, fc.weight.name) == "float16"
    assert scope._get(fc.weight.name).dtype.name == "float16"
    master = scope._get(fc.weight.name + "_fp32_master_0")
    assert master is not None and master.dtype.name == "float32"
    np.testing.assert_array_equal(np.asarray(master).astype("float16"), np.asarray(scope._get(fc.weight.name)))
    # batch norm statistics stay float32
    assert scope._get(bn._mean.name).dtype.name == "float32"


def test_dynamic_loss_scaling_skips_overflow():
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            x = paddle.static.data("x", [None, 8], "float32")
            y = paddle.static.data("y", [None, 1], "int64")
            fc1, fc2 = paddle.nn.Linear(8, 16), paddle.nn.Linear(16, 3)
            loss = paddle.nn.functional.cross_entropy(fc2(paddle.nn.functional.relu(fc1(x))), y)
            opt = amp.decorate(paddle.optimizer.Adam(0.01), init_loss_scaling=2.0 ** 40, decr_every_n_nan_or_inf=1,
                               decr_ratio=2.0 ** -8, incr_every_n_steps=2, incr_ratio=2.0)
            opt.minimize(loss)
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            exe = paddle.static.Executor()
            exe.run(startup)
            rng = np.random.RandomState(0)
            feed = {"x": rng.rand(16, 8).astype("float32"), "y": rng.randint(0, 3, (16, 1)).astype("int64")}
            w = lambda: np.array(scope._get(fc1.weight.name))
            scales, moved = [], []
            for _ in range(6):
                before = w()
                scale = exe.run(main, feed=feed, fetch_list=[opt.get_loss_scaling()])[0][0]
                scales.append(float(scale))
                moved.append(not np.array_equal(before, w()))
        # 2^40 overflows float16 gradients: steps are skipped and the scale drops by 2^-8 each time
        assert moved[0] is False and scales[0] == 2.0 ** 32
        first = moved.index(True)
        assert all(not m for m in moved[:first]) and all(moved[first:])
        # after two good steps the scale doubles
        assert scales[first + 1] == 2 * scales[first]
    finally:
        paddle.disable_static()


def test_custom_lists():
    lists = amp.AutoMixedPrecisionLists(custom_black_list={"matmul_v2"})
    assert "matmul_v2" in lists.black_list and "matmul_v2" not in lists.white_list
    _, main, _, _, _ = _train("fp16", steps=1, lists=lists)
    assert all(_var_dtype(main, n) == "float32" for n in _inputs(main, "matmul_v2")[0])
    with pytest.raises(ValueError):
        amp.AutoMixedPrecisionLists(custom_white_list={"relu"}, custom_black_list={"relu"})
    assert amp.CustomOpLists is amp.AutoMixedPrecisionLists
    b = amp.bf16.AutoMixedPrecisionListsBF16(custom_fp32_list={"conv2d"})
    assert "conv2d" in b.fp32_list and "conv2d" not in b.bf16_list


def test_convert_float_to_uint16():
    a = np.array([1.0, -2.5, 3.14159], "float32")
    u = amp.bf16.convert_float_to_uint16(a)
    assert u.dtype == np.uint16
    np.testing.assert_array_equal(u, (a.view(np.uint32) >> 16).astype(np.uint16))


@pytest.mark.parametrize("level", ["O1", "O2"])
def test_model_amp_static(level):
    from test_static_model import SPECS, _Blobs, _net
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup), paddle.static.scope_guard(paddle.static.Scope()):
            paddle.seed(0)
            model = paddle.Model(_net(), *SPECS)
            model.prepare(paddle.optimizer.Adam(0.01, parameters=model.parameters()), paddle.nn.CrossEntropyLoss(),
                          paddle.metric.Accuracy(), amp_configs=level)
            assert isinstance(model._optimizer, amp.OptimizerWithMixedPrecision)
            model.fit(_Blobs(512, 0), batch_size=32, epochs=3, verbose=0)
            res = model.evaluate(_Blobs(256, 1), batch_size=64, verbose=0)
            assert res["acc"] > 0.85
            types = [op.type for op in model._adapter._progs["train"].global_block().ops]
            assert "cast" in types
    finally:
        paddle.disable_static()
