"""paddle.utils.download.get_path_from_url: Paddle 2.6's cache layout and archive handling (the
extracted paths below are the ones real Paddle 2.6.2 returns for the same cached archives,
checked once against the oracle), file:// URLs and local paths copied into the cache, and a
clear error for an uncached http(s) URL (Paddle-C never opens a network connection)."""
import hashlib
import io
import os
import tarfile
import zipfile
import zlib

import pytest

from paddle.utils import download
from paddle.utils.download import get_path_from_url


def _tar(path, members, mode="w:gz"):
    with tarfile.open(path, mode) as t:
        for n, data in members:
            ti = tarfile.TarInfo(n)
            if data is None:
                ti.type = tarfile.DIRTYPE
                t.addfile(ti)
            else:
                ti.size = len(data)
                t.addfile(ti, io.BytesIO(data))


def test_cached_http_and_archive_layouts(tmp_path):
    root = str(tmp_path / "cache")
    os.makedirs(root)
    _tar(os.path.join(root, "one.tar.gz"), [("w.bin", b"abc")])
    _tar(os.path.join(root, "dir.tar.gz"), [("mydir", None), ("mydir/a.txt", b"a"), ("mydir/b.txt", b"b")])
    _tar(os.path.join(root, "many.tar"), [("x.txt", b"x"), ("y.txt", b"y")], mode="w")
    with zipfile.ZipFile(os.path.join(root, "z.zip"), "w") as z:
        z.writestr("d/", "")
        z.writestr("d/q.txt", "q")
    with open(os.path.join(root, "plain.pdparams"), "wb") as f:
        f.write(b"123")
    url = "https://example.com/models/"
    # a single file extracts in place; a single directory too; several files into <archive name>/
    assert get_path_from_url(url + "one.tar.gz", root) == os.path.join(root, "w.bin")
    assert open(os.path.join(root, "w.bin"), "rb").read() == b"abc"
    assert get_path_from_url(url + "dir.tar.gz", root) == os.path.join(root, "mydir")
    assert sorted(os.listdir(os.path.join(root, "mydir"))) == ["a.txt", "b.txt"]
    assert get_path_from_url(url + "many.tar", root) == os.path.join(root, "many")
    assert sorted(os.listdir(os.path.join(root, "many"))) == ["x.txt", "y.txt"]
    assert get_path_from_url(url + "z.zip", root) == os.path.join(root, "d")
    assert open(os.path.join(root, "d", "q.txt")).read() == "q"
    assert get_path_from_url(url + "one.tar.gz", root, decompress=False) == os.path.join(root, "one.tar.gz")
    md5 = hashlib.md5(b"123").hexdigest()
    assert get_path_from_url(url + "plain.pdparams", root, md5sum=md5) == os.path.join(root, "plain.pdparams")
    # a cached file whose md5 differs would be downloaded again: here that is the no-network error
    with pytest.raises(RuntimeError, match="no network access.*place it at .*plain.pdparams"):
        get_path_from_url(url + "plain.pdparams", root, md5sum="0" * 32)


def test_uncached_http_says_no_network(tmp_path):
    with pytest.raises(RuntimeError, match=r"https://example.com/w.pdparams.*no network access"):
        get_path_from_url("https://example.com/w.pdparams", str(tmp_path))
    assert not os.listdir(str(tmp_path))
    with pytest.raises(AssertionError, match="not a url"):
        get_path_from_url("ftp://example.com/w.pdparams", str(tmp_path))


def test_file_url_and_local_path(tmp_path):
    src_dir = tmp_path / "src"
    src_dir.mkdir()
    w = src_dir / "weights.pdparams"
    w.write_bytes(b"\x01\x02\x03")
    root = str(tmp_path / "cache")
    p = get_path_from_url("file://" + str(w), root, md5sum=hashlib.md5(b"\x01\x02\x03").hexdigest())
    assert p == os.path.join(root, "weights.pdparams") and open(p, "rb").read() == b"\x01\x02\x03"
    arc = src_dir / "pack.tar.gz"
    _tar(str(arc), [("pack", None), ("pack/m.txt", b"m")])
    root2 = str(tmp_path / "cache2")
    p = get_path_from_url(str(arc), root2)  # a plain local path
    assert p == os.path.join(root2, "pack") and open(os.path.join(p, "m.txt")).read() == "m"
    with pytest.raises(RuntimeError, match="md5"):
        get_path_from_url(str(w), str(tmp_path / "cache3"), md5sum="f" * 32)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        get_path_from_url("file://" + str(src_dir / "missing.bin"), root)
    assert download.get_weights_path_from_url.__doc__


def test_archive_escaping_the_cache_is_refused(tmp_path):
    src = tmp_path / "evil.tar"
    _tar(str(src), [("../outside.txt", b"x"), ("ok.txt", b"y")], mode="w")
    with pytest.raises(ValueError, match="leaves the extraction directory"):
        get_path_from_url(str(src), str(tmp_path / "cache"))
    assert not (tmp_path / "outside.txt").exists()


def test_corrupt_archives_fuzz(tmp_path):
    """truncated or bit-flipped archives raise a Python exception, never crash or hang"""
    import random
    good = tmp_path / "g.tar.gz"
    _tar(str(good), [("d", None), ("d/a.txt", b"a" * 300), ("d/b.txt", b"b" * 50)])
    data = good.read_bytes()
    rng = random.Random(0)
    for k in range(40):
        b = bytearray(data)
        if k % 2:
            b = b[:rng.randrange(1, len(b))]
        else:
            for _ in range(4):
                b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        f = tmp_path / f"f{k}.tar.gz"
        f.write_bytes(bytes(b))
        try:
            get_path_from_url(str(f), str(tmp_path / f"c{k}"))
        except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError, ValueError, TypeError, zlib.error):
            pass
