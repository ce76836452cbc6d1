"""paddle.utils.run_check: a small training run, once as a static program through the Executor
and once eagerly, on the CPU (this build's only device)."""
import numpy as np


def _data():
    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, size=(16, 4)).astype("float32")
    y = (x @ np.array([[1.0], [-2.0], [0.5], [3.0]], "float32") + 0.25).astype("float32")
    return x, y


def _run_static(steps):
    import paddle
    x, y = _data()
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            xv = paddle.static.data("x", [None, 4], "float32")
            yv = paddle.static.data("y", [None, 1], "float32")
            lin = paddle.nn.Linear(4, 1)
            loss = paddle.nn.functional.mse_loss(lin(xv), yv)
            paddle.optimizer.SGD(learning_rate=0.5).minimize(loss)
        exe = paddle.static.Executor(paddle.CPUPlace())
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            exe.run(startup)
            return [float(exe.run(main, feed={"x": x, "y": y}, fetch_list=[loss])[0].reshape(-1)[0])
                    for _ in range(steps)]
    finally:
        paddle.disable_static()


def _run_dygraph(steps):
    import paddle
    x, y = _data()
    lin = paddle.nn.Linear(4, 1)
    opt = paddle.optimizer.SGD(learning_rate=0.5, parameters=lin.parameters())
    xt, yt = paddle.to_tensor(x), paddle.to_tensor(y)
    losses = []
    for _ in range(steps):
        loss = paddle.nn.functional.mse_loss(lin(xt), yt)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss.numpy().reshape(-1)[0]))
    return losses


def isa_summary():
    """One line naming the instruction-set paths active here: Paddle-C's dispatched kernels
    (PADDLE_C_ISA forces a level), oneDNN's (ONEDNN_MAX_CPU_ISA caps it) and OpenBLAS's core
    (OPENBLAS_CORETYPE)."""
    from .. import _C
    i = _C.isa_info()
    req = f", PADDLE_C_ISA={i['requested']}" if i["requested"] else ""
    line = (f"Instruction sets: Paddle-C kernels {i['active']} ({i['dispatched_functions']} functions; "
            f"CPU supports {', '.join(i['cpu_supports'])} of {', '.join(i['levels'])}{req}), "
            f"oneDNN {i['onednn']}, OpenBLAS {i['openblas_core']}; bfloat16: "
            f"{'CPU has bf16 units' if i['bf16_units'] else 'no bf16 units on this CPU'}, matmul "
            f"{'on the bf16 units' if i['bf16_matmul'] == 'units' else 'through float32'}, computed in "
            f"{i['bf16_compute']}")
    if i["note"]:
        line += f"\n  note: {i['note']}"
    return line


def run_check():
    print("Running verify PaddlePaddle program ... ")
    print(isa_summary())
    steps = 30
    for name, run in (("static", _run_static), ("dygraph", _run_dygraph)):
        losses = run(steps)
        if not all(np.isfinite(losses)) or not losses[-1] < 0.5 * losses[0]:
            raise RuntimeError(f"run_check: the {name} training did not converge (losses {losses[0]:.4g} -> "
                               f"{losses[-1]:.4g}): this installation does not work correctly")
    print("PaddlePaddle works well on 1 CPU.")
    print("PaddlePaddle is installed successfully! Let's start deep learning with PaddlePaddle now.")
