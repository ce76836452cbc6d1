"""The README's main job: seed E1's high-level training program on Fashion-MNIST (Debian's
dataset-fashion-mnist package provides the real IDX files; MNIST itself cannot be downloaded
here), then save the trained model, load it into a fresh Model and check it evaluates the
same. The VisualDL callback writes the scalars and draws the training curves to
<out>/vdl/curves.png. Last it exports the trained network with paddle.jit.save to
<out>/inference.pdmodel / .pdiparams (Paddle's deployment format; checked: paddle.jit.load of it
predicts what the network predicts) and writes the evaluation accuracy (<out>/eval_acc.txt): the
C program examples/infer_fashion_mnist.c serves that model through the C inference API and must
print the same accuracy (scripts/setup.sh).
Usage: python examples/train_fashion_mnist.py [--epochs N] [--out DIR]"""
import argparse
import os

import numpy as np
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

    # deployment: the network as a static program + parameters (path.pdmodel / path.pdiparams)
    infer_path = os.path.join(args.out, "inference")
    net = model.network
    net.eval()
    paddle.jit.save(net, infer_path, input_spec=[paddle.static.InputSpec([None, 1, 28, 28], "float32", "image")])
    images = paddle.to_tensor(np.stack([val_dataset[i][0] for i in range(64)]).astype("float32"))
    served = paddle.jit.load(infer_path)
    diff = float((served(images) - net(images)).abs().max())
    assert diff < 1e-5, f"the exported program must predict what the network predicts (max diff {diff})"
    print(f"exported {infer_path}.pdmodel and {infer_path}.pdiparams (paddle.jit.save)")

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
    with open(os.path.join(args.out, "eval_acc.txt"), "w") as f:
        f.write(f"{result['acc']:.4f}\n")
    print(f"Python evaluate accuracy {result['acc']:.4f} (the C program serving {infer_path} must print it)")


if __name__ == "__main__":
    main()
