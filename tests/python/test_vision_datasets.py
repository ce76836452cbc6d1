"""Tests of paddle.vision.datasets: FashionMNIST from Debian's dataset-fashion-mnist files,
MNIST/Cifar/Flowers/VOC2012 on small synthetic files written in the real formats, the folder
datasets, the restricted Cifar unpickler, clear errors for missing files, and a DataLoader."""
import gzip
import io
import os
import pickle
import struct
import tarfile

import numpy as np
import pytest

import paddle
import paddle.vision.transforms as T
from paddle.vision import datasets
from paddle.vision.datasets import _utils

Image = pytest.importorskip("PIL.Image")

FMNIST_DIR = "/usr/share/datasets/fashion-mnist"
HAVE_FMNIST = os.path.isfile(os.path.join(FMNIST_DIR, "train-images-idx3-ubyte.gz"))


@pytest.fixture(autouse=True)
def empty_cache(tmp_path, monkeypatch):
    """Point Paddle's cache folder at an empty directory so no user data leaks in."""
    monkeypatch.setattr(_utils, "DATA_HOME", str(tmp_path / "cache"))


def write_idx(path, arr):
    arr = np.asarray(arr, dtype=np.uint8)
    magic = 2051 if arr.ndim == 3 else 2049
    with gzip.open(path, "wb") as f:
        f.write(struct.pack(">I", magic) + struct.pack(">" + "I" * arr.ndim, *arr.shape))
        f.write(arr.tobytes())


# ---------------------------------------------------------------- FashionMNIST (real data)
@pytest.mark.skipif(not HAVE_FMNIST, reason="Debian's dataset-fashion-mnist is not installed")
def test_fashion_mnist_real_files():
    train = datasets.FashionMNIST()
    test = datasets.FashionMNIST(mode="test", backend="cv2")
    assert len(train) == 60000 and len(test) == 10000
    img, label = train[0]
    assert isinstance(img, Image.Image) and img.size == (28, 28) and img.mode == "L"
    assert label.dtype == np.int64 and label.shape == (1,)
    # first image and labels, read straight from the IDX files
    with gzip.open(os.path.join(FMNIST_DIR, "train-images-idx3-ubyte.gz"), "rb") as f:
        raw = f.read()
    assert struct.unpack(">IIII", raw[:16]) == (2051, 60000, 28, 28)
    first = np.frombuffer(raw, np.uint8, 784, 16).reshape(28, 28)
    np.testing.assert_array_equal(np.asarray(img), first)
    assert int(np.asarray(img, dtype=np.int64).sum()) == int(first.astype(np.int64).sum())
    with gzip.open(os.path.join(FMNIST_DIR, "train-labels-idx1-ubyte.gz"), "rb") as f:
        labels = np.frombuffer(f.read(), np.uint8, offset=8)
    assert int(label[0]) == int(labels[0])
    assert labels.min() == 0 and labels.max() == 9
    assert set(np.unique(train.labels)) == set(range(10))
    timg, tlabel = test[0]
    assert timg.shape == (28, 28) and timg.dtype == np.float32 and timg.max() <= 255
    assert 0 <= int(tlabel[0]) <= 9


@pytest.mark.skipif(not HAVE_FMNIST, reason="Debian's dataset-fashion-mnist is not installed")
def test_fashion_mnist_dataloader():
    ds = datasets.FashionMNIST(mode="test", transform=T.Compose([T.ToTensor(), T.Normalize([0.5], [0.5])]))
    x, y = ds[0]
    assert x.shape == [1, 28, 28] and x.dtype == paddle.float32
    assert -1.0 <= float(x.numpy().min()) and float(x.numpy().max()) <= 1.0
    loader = paddle.io.DataLoader(ds, batch_size=16, shuffle=True)
    xb, yb = next(iter(loader))
    assert xb.shape == [16, 1, 28, 28] and xb.dtype == paddle.float32
    assert yb.shape == [16, 1] and yb.dtype == paddle.int64


# ---------------------------------------------------------------- MNIST (synthetic)
def test_mnist_synthetic(tmp_path):
    rs = np.random.RandomState(0)
    imgs = rs.randint(0, 256, (7, 28, 28))
    labs = rs.randint(0, 10, 7)
    write_idx(tmp_path / "img.gz", imgs)
    write_idx(tmp_path / "lab.gz", labs)
    ds = datasets.MNIST(str(tmp_path / "img.gz"), str(tmp_path / "lab.gz"), mode="test")
    assert len(ds) == 7
    img, lab = ds[3]
    np.testing.assert_array_equal(np.asarray(img), imgs[3])
    assert lab.tolist() == [labs[3]] and lab.dtype == np.int64
    ds = datasets.MNIST(str(tmp_path / "img.gz"), str(tmp_path / "lab.gz"), backend="cv2",
                        transform=T.ToTensor())
    x, _ = ds[1]
    assert x.shape == [1, 28, 28]
    np.testing.assert_allclose(x.numpy()[0], imgs[1])  # float input: ToTensor keeps 0..255


class Relabelled(datasets.MNIST):
    def __getitem__(self, idx):  # a subclass's own __getitem__ must be honoured
        img, lab = super().__getitem__(idx)
        return img, lab + 100


@pytest.mark.parametrize("make", [
    lambda: T.Normalize(mean=[0.0], std=[256.0]),                       # the seeds' transform
    lambda: T.Normalize(mean=[127.5], std=[127.5], data_format='HWC'),
    lambda: T.Normalize(mean=0.5, std=0.25),                            # 3-channel constants
    lambda: T.Compose([T.Normalize(mean=[0.0], std=[256.0])]),
    lambda: T.ToTensor(),
    lambda: None,
])
@pytest.mark.parametrize("backend", ["pil", "cv2"])
def test_mnist_batched_fetch_equals_per_sample(tmp_path, make, backend):
    rs = np.random.RandomState(1)
    imgs, labs = rs.randint(0, 256, (9, 28, 28)), rs.randint(0, 10, 9)
    write_idx(tmp_path / "img.gz", imgs)
    write_idx(tmp_path / "lab.gz", labs)
    for cls in (datasets.MNIST, Relabelled):
        try:
            ds = cls(str(tmp_path / "img.gz"), str(tmp_path / "lab.gz"), transform=make(), backend=backend)
            ref = [ds[i] for i in [4, 0, 8, 4]]
        except Exception as e:  # the per-sample path refuses: the batched one must refuse alike
            with pytest.raises(type(e)):
                ds._getitems([4, 0, 8, 4])
            continue
        got = ds._getitems([4, 0, 8, 4])
        assert len(got) == len(ref)
        for (gi, gl), (ri, rl) in zip(got, ref):
            assert type(gi) is type(ri)
            if isinstance(ri, np.ndarray):
                assert gi.dtype == ri.dtype and gi.shape == ri.shape
                np.testing.assert_array_equal(gi, ri)  # bit for bit, not approximately
            else:
                np.testing.assert_array_equal(np.asarray(gi), np.asarray(ri))
            assert gl.dtype == rl.dtype and gl.tolist() == rl.tolist()
        sub = paddle.io.Subset(ds, [8, 2, 5])  # random_split's Subset passes the batched fetch on
        for (gi, gl), (ri, rl) in zip(sub._getitems([2, 0]), [ds[5], ds[8]]):
            np.testing.assert_array_equal(np.asarray(gi), np.asarray(ri))
            assert gl.tolist() == rl.tolist()
        # and through the DataLoader (in-process and with workers): the same batches
        if make() is not None:
            for workers in (0, 2):
                batches = list(paddle.io.DataLoader(ds, batch_size=4, num_workers=workers))
                x0 = np.stack([np.asarray(ds[i][0] if not hasattr(ds[i][0], 'numpy') else ds[i][0].numpy())
                               for i in range(4)])
                np.testing.assert_array_equal(batches[0][0].numpy(), x0)
                assert batches[0][1].numpy().ravel().tolist() == [ds[i][1][0] for i in range(4)]


def test_mnist_cache_folder_and_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="mnist"):
        datasets.MNIST()
    d = tmp_path / "cache" / "mnist"
    d.mkdir(parents=True)
    write_idx(d / "t10k-images-idx3-ubyte.gz", np.zeros((2, 28, 28)))
    write_idx(d / "t10k-labels-idx1-ubyte.gz", np.array([1, 2]))
    assert len(datasets.MNIST(mode="test")) == 2
    with pytest.raises(ValueError):
        datasets.MNIST(mode="val")
    with pytest.raises(ValueError):
        datasets.MNIST(mode="test", backend="tensor2")
    with pytest.raises(FileNotFoundError):
        datasets.MNIST(image_path=str(tmp_path / "nope.gz"), mode="test")
    write_idx(tmp_path / "short.gz", np.array([1, 2, 3]))
    with pytest.raises(ValueError, match="IDX images file"):
        datasets.MNIST(str(tmp_path / "short.gz"), str(d / "t10k-labels-idx1-ubyte.gz"))
    with gzip.open(tmp_path / "trunc.gz", "wb") as f:
        f.write(struct.pack(">IIII", 2051, 5, 28, 28) + b"\0" * 100)
    with pytest.raises(ValueError, match="truncated"):
        datasets.MNIST(str(tmp_path / "trunc.gz"), str(d / "t10k-labels-idx1-ubyte.gz"))


# ---------------------------------------------------------------- Cifar (synthetic)
def _add(tar, name, payload):
    info = tarfile.TarInfo(name)
    info.size = len(payload)
    tar.addfile(info, io.BytesIO(payload))


def write_cifar(path, batches, label_key=b"labels", protocol=2):
    with tarfile.open(path, "w:gz") as tar:
        for name, (data, labels) in batches.items():
            batch = {b"batch_label": b"x", b"data": data, label_key: labels,
                     b"filenames": [b"a.png"] * len(labels)}
            _add(tar, name, pickle.dumps(batch, protocol=protocol))


@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_cifar10_synthetic(tmp_path, protocol):
    rs = np.random.RandomState(1)
    d1, d2, dt = (rs.randint(0, 256, (n, 3072)).astype(np.uint8) for n in (3, 2, 4))
    write_cifar(tmp_path / "c10.tar.gz", {
        "cifar-10-batches-py/data_batch_2": (d2, [5, 6]),
        "cifar-10-batches-py/data_batch_1": (d1, [0, 1, 2]),
        "cifar-10-batches-py/test_batch": (dt, [9, 8, 7, 6])}, protocol=protocol)
    ds = datasets.Cifar10(str(tmp_path / "c10.tar.gz"))
    assert len(ds) == 5
    img, lab = ds[3]  # batches are read in name order
    assert isinstance(img, Image.Image) and img.size == (32, 32)
    np.testing.assert_array_equal(np.asarray(img), d2[0].reshape(3, 32, 32).transpose(1, 2, 0))
    assert lab.dtype == np.int64 and int(lab) == 5
    ds = datasets.Cifar10(str(tmp_path / "c10.tar.gz"), mode="test", backend="cv2")
    img, lab = ds[0]
    assert len(ds) == 4 and img.shape == (32, 32, 3) and img.dtype == np.float32 and int(lab) == 9


def test_cifar100_and_cache(tmp_path):
    rs = np.random.RandomState(2)
    d = tmp_path / "cache" / "cifar"
    d.mkdir(parents=True)
    write_cifar(d / "cifar-100-python.tar.gz", {
        "cifar-100-python/train": (rs.randint(0, 256, (3, 3072)).astype(np.uint8), [10, 55, 99]),
        "cifar-100-python/test": (rs.randint(0, 256, (1, 3072)).astype(np.uint8), [42])},
        label_key=b"fine_labels")
    ds = datasets.Cifar100(transform=T.ToTensor())
    x, lab = ds[2]
    assert x.shape == [3, 32, 32] and int(lab) == 99
    assert len(datasets.Cifar100(mode="test")) == 1
    with pytest.raises(FileNotFoundError, match="cifar-10-python.tar.gz"):
        datasets.Cifar10()


class Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


def test_cifar_refuses_code(tmp_path):
    with tarfile.open(tmp_path / "bad.tar.gz", "w:gz") as tar:
        _add(tar, "cifar-10-batches-py/data_batch_1", pickle.dumps({b"data": Evil(), b"labels": [1]}))
    with pytest.raises(pickle.UnpicklingError, match="refusing"):
        datasets.Cifar10(str(tmp_path / "bad.tar.gz"))
    with tarfile.open(tmp_path / "junk.tar.gz", "w:gz") as tar:
        _add(tar, "cifar-10-batches-py/data_batch_1", b"\x80\x02garbage")
    with pytest.raises((ValueError, pickle.UnpicklingError)):
        datasets.Cifar10(str(tmp_path / "junk.tar.gz"))
    (tmp_path / "notatar.tar.gz").write_bytes(b"hello")
    with pytest.raises(ValueError, match="tarball"):
        datasets.Cifar10(str(tmp_path / "notatar.tar.gz"))


# ---------------------------------------------------------------- Flowers / VOC2012 (synthetic)
def _jpeg(arr, fmt="JPEG"):
    b = io.BytesIO()
    Image.fromarray(arr).save(b, format=fmt)
    return b.getvalue()


def _write_flowers(tmp_path, savemat):
    with tarfile.open(tmp_path / "102flowers.tgz", "w:gz") as tar:
        for i in range(1, 6):
            _add(tar, "jpg/image_%05d.jpg" % i, _jpeg(np.full((8, 9, 3), 40 * i, np.uint8)))
    savemat(str(tmp_path / "imagelabels.mat"), {"labels": np.array([[3, 1, 4, 1, 5]], np.float64)})
    savemat(str(tmp_path / "setid.mat"), {"trnid": np.array([[1, 2]], np.uint16),
                                          "tstid": np.array([[3, 4, 5]], np.uint16),
                                          "valid": np.array([[2]], np.uint16)})


def test_flowers_synthetic(tmp_path):
    sio = pytest.importorskip("scipy.io")
    _write_flowers(tmp_path, sio.savemat)
    args = [str(tmp_path / n) for n in ("102flowers.tgz", "imagelabels.mat", "setid.mat")]
    ds = datasets.Flowers(*args)  # Paddle trains on 'tstid'
    assert len(ds) == 3
    img, lab = ds[0]
    assert img.size == (9, 8) and lab.tolist() == [4] and lab.dtype == np.int64
    ds = datasets.Flowers(*args, mode="test", backend="cv2")
    img, lab = ds[1]
    assert img.shape == (8, 9, 3) and img.dtype == np.float32 and lab.tolist() == [1]
    assert abs(float(img.mean()) - 80) < 3


@pytest.mark.parametrize("compress", [False, True])
def test_own_matfile_reader(tmp_path, compress):
    sio = pytest.importorskip("scipy.io")
    from paddle.vision.datasets._matfile import loadmat
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    sio.savemat(str(tmp_path / "m.mat"), {"a": a, "b": np.array([[7, 8, 9]], np.uint16)},
                do_compression=compress)
    got = loadmat(str(tmp_path / "m.mat"))
    np.testing.assert_array_equal(got["a"], a)
    np.testing.assert_array_equal(got["b"], [[7, 8, 9]])
    (tmp_path / "x.mat").write_bytes(b"not a mat file")
    with pytest.raises(ValueError):
        loadmat(str(tmp_path / "x.mat"))


def test_voc2012_synthetic(tmp_path):
    with tarfile.open(tmp_path / "voc.tar", "w") as tar:
        _add(tar, "VOCdevkit/VOC2012/ImageSets/Segmentation/trainval.txt", b"a\nb\n")
        for n, v in (("a", 10), ("b", 200)):
            _add(tar, f"VOCdevkit/VOC2012/JPEGImages/{n}.jpg", _jpeg(np.full((6, 7, 3), v, np.uint8)))
            mask = np.zeros((6, 7), np.uint8)
            mask[2:4, 3:5] = 15
            _add(tar, f"VOCdevkit/VOC2012/SegmentationClass/{n}.png", _jpeg(mask, "PNG"))
    ds = datasets.VOC2012(str(tmp_path / "voc.tar"))
    assert len(ds) == 2
    img, lab = ds[1]
    assert img.size == (7, 6) and np.asarray(lab)[2, 3] == 15
    img, lab = datasets.VOC2012(str(tmp_path / "voc.tar"), backend="cv2")[0]
    assert img.shape == (6, 7, 3) and lab.shape == (6, 7) and lab.max() == 15
    with pytest.raises(ValueError, match="val.txt"):
        datasets.VOC2012(str(tmp_path / "voc.tar"), mode="valid")
    with pytest.raises(FileNotFoundError, match="VOCtrainval_11-May-2012.tar"):
        datasets.VOC2012()


# ---------------------------------------------------------------- folder datasets
def _tree(root):
    for cls, n in (("cat", 2), ("dog", 3)):
        (root / cls / "sub").mkdir(parents=True)
        for i in range(n):
            Image.fromarray(np.full((5, 4, 3), i * 10, np.uint8)).save(root / cls / f"{i}.png")
        (root / cls / "notes.txt").write_text("x")
    Image.fromarray(np.zeros((5, 4, 3), np.uint8)).save(root / "dog" / "sub" / "deep.jpg")


def test_dataset_folder(tmp_path):
    _tree(tmp_path)
    ds = datasets.DatasetFolder(str(tmp_path))
    assert ds.classes == ["cat", "dog"] and ds.class_to_idx == {"cat": 0, "dog": 1}
    assert len(ds) == 6 and ds.targets == [0, 0, 1, 1, 1, 1]
    img, target = ds[2]
    assert isinstance(img, Image.Image) and img.mode == "RGB" and target == 1
    ds = datasets.DatasetFolder(str(tmp_path), extensions=(".txt",), loader=lambda p: open(p).read())
    assert len(ds) == 2 and ds[0] == ("x", 0)
    ds = datasets.DatasetFolder(str(tmp_path), is_valid_file=lambda p: p.endswith("deep.jpg"),
                                transform=T.ToTensor())
    x, t = ds[0]
    assert len(ds) == 1 and x.shape == [3, 5, 4] and t == 1
    with pytest.raises(RuntimeError, match="Found 0"):
        datasets.DatasetFolder(str(tmp_path), extensions=(".gif",))
    with pytest.raises(FileNotFoundError):
        datasets.DatasetFolder(str(tmp_path / "missing"))


def test_image_folder_and_backend(tmp_path):
    _tree(tmp_path)
    ds = datasets.ImageFolder(str(tmp_path))
    assert len(ds) == 6
    sample = ds[0]
    assert isinstance(sample, list) and isinstance(sample[0], Image.Image)
    paddle.vision.set_image_backend("cv2")
    try:
        assert paddle.vision.get_image_backend() == "cv2"
        arr = datasets.ImageFolder(str(tmp_path))[0][0]
        assert isinstance(arr, np.ndarray) and arr.shape == (5, 4, 3)
        bgr = paddle.vision.image_load(str(tmp_path / "cat" / "1.png"))
        assert bgr.shape == (5, 4, 3) and bgr.dtype == np.uint8 and (bgr == 10).all()
    finally:
        paddle.vision.set_image_backend("pil")
    assert isinstance(paddle.vision.image_load(str(tmp_path / "cat" / "0.png")), Image.Image)
    t = paddle.vision.image_load(str(tmp_path / "cat" / "1.png"), backend="tensor")
    assert t.shape == [3, 5, 4]
    with pytest.raises(ValueError):
        paddle.vision.set_image_backend("opencv")
