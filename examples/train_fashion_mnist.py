"""The README's main job: seed E1's high-level training program on Fashion-MNIST (Debian's
dataset-fashion-mnist package provides the real IDX files; MNIST itself cannot be downloaded
here), then save the trained model, load it into a fresh Model and check it evaluates the
same. The VisualDL callback writes the scalars and draws the training curves to
<out>/vdl/curves.png. Last it saves the trained network as an inference model
(<out>/inference.pdmodel + .pdiparams) and the evaluation accuracy (<out>/eval_acc.txt), which
the C program examples/infer_fashion_mnist.c serves through the C inference API (scripts/setup.sh).
The inference model is written by paddle.static.save_inference_model from the same network built
in static mode with the trained weights: paddle.jit.save (Paddle's way, Model.save(training=False))
is not on main yet.
Usage: python examples/train_fashion_mnist.py [--epochs N] [--out DIR]"""
import argparse
import os

import paddle


def build():
    return paddle.nn.Sequential(
        paddle.nn.Flatten(),
        paddle.nn.Linear(784, 1024),
        paddle.nn.ReLU(),
        paddle.nn.Linear(1024, 512),
        paddle.nn.ReLU(),
        paddle.nn.Linear(512, 10),
    )


def export_inference(net, prefix):
    """The trained dygraph network as an inference model: the same layers recorded in a static
    program (input "image" [None, 1, 28, 28]), the trained values put in the scope, then
    paddle.static.save_inference_model."""
    trained = [p.numpy() for p in net.parameters()]
    paddle.enable_static()
    try:
        main_prog, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main_prog, startup):
            image = paddle.static.data("image", [None, 1, 28, 28], "float32")
            snet = build()
            logits = snet(image)
        exe = paddle.static.Executor(paddle.CPUPlace())
        scope = paddle.static.Scope()
        with paddle.static.scope_guard(scope):
            exe.run(startup)
            params = snet.parameters()
            assert len(params) == len(trained)
            for p, v in zip(params, trained):
                assert tuple(p.shape) == v.shape
                scope.var(p.name).get_tensor().set(v, paddle.CPUPlace())
            paddle.static.save_inference_model(prefix, [image], [logits], exe, program=main_prog)
    finally:
        paddle.disable_static()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--out", default="build/fashion_mnist")
    args = ap.parse_args()
    paddle.seed(2023)
    normalize = paddle.vision.transforms.Normalize(mean=[0.0], std=[256.0])
    train_dataset = paddle.vision.datasets.FashionMNIST(mode="train", transform=normalize)
    val_dataset = paddle.vision.datasets.FashionMNIST(mode="test", transform=normalize)

    model = paddle.Model(build())
    model.prepare(paddle.optimizer.Adam(parameters=model.parameters()),
                  paddle.nn.CrossEntropyLoss(),
                  paddle.metric.Accuracy())
    print(model.summary((1, 28, 28)))
    curves = paddle.callbacks.VisualDL(log_dir=os.path.join(args.out, "vdl"))
    model.fit(train_dataset, val_dataset, epochs=args.epochs, batch_size=32, verbose=2, log_freq=200,
              callbacks=[curves])
    png = os.path.join(args.out, "vdl", "curves.png")
    if os.path.exists(png):
        print(f"training curves: {png}")
    result = model.evaluate(val_dataset, batch_size=256, verbose=0)
    print("eval:", result)

    path = os.path.join(args.out, "mlp")
    model.save(path)
    fresh = paddle.Model(build())
    fresh.prepare(loss=paddle.nn.CrossEntropyLoss(), metrics=paddle.metric.Accuracy())
    fresh.load(path)
    again = fresh.evaluate(val_dataset, batch_size=256, verbose=0)
    print("reloaded eval:", again)
    assert abs(again["acc"] - result["acc"]) < 1e-6, "the reloaded model must evaluate the same"
    assert result["acc"] > 0.75, "one epoch of Fashion-MNIST should exceed 75% accuracy"
    print(f"saved {path}.pdparams and {path}.pdopt")
    prefix = os.path.join(args.out, "inference")
    export_inference(model.network, prefix)
    with open(os.path.join(args.out, "eval_acc.txt"), "w") as f:
        f.write(f"{result['acc']:.4f}\n")
    print(f"saved the inference model {prefix}.pdmodel / .pdiparams; Python evaluate accuracy {result['acc']:.4f}")


if __name__ == "__main__":
    main()
