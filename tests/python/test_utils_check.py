"""paddle.utils.require_version / deprecated / run_check, with Paddle's messages and levels
(facts read from Paddle 2.6.2's behaviour: the VersionError texts, the format check)."""
import warnings

import pytest

import paddle
from paddle.utils import install_check


def test_require_version_ranges():
    v = paddle.__version__  # 2.3.0
    assert paddle.utils.require_version("2.0") is None
    assert paddle.utils.require_version("2.3", "2.3.0.0") is None
    assert paddle.utils.require_version(v, v) is None
    with pytest.raises(Exception, match=r"VersionError: PaddlePaddle version 9\.0 or higher is required, but "
                                        + v.replace(".", r"\.") + " installed"):
        paddle.utils.require_version("9.0")
    with pytest.raises(Exception, match=r"VersionError: PaddlePaddle version in \[1\.0, 2\.2\.9\] required"):
        paddle.utils.require_version("1.0", "2.2.9")


def test_require_version_bad_arguments():
    with pytest.raises(TypeError, match="min_version.*must be str"):
        paddle.utils.require_version(2)
    with pytest.raises(ValueError, match="max_version.*like '1.5.2.0', but received x"):
        paddle.utils.require_version("1.0", "x")
    with pytest.raises(ValueError, match="received 1.2.3.4.5"):
        paddle.utils.require_version("1.2.3.4.5")


def test_deprecated_levels():
    def f(a):
        """Adds one."""
        return a + 1

    g0 = paddle.utils.deprecated(update_to="paddle.add", since="2.0.0", level=0)(f)
    assert g0 is f and "Warning: " in f.__doc__ and '"paddle.add"' in f.__doc__ and f.__doc__.endswith("Adds one.")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert g0(1) == 2  # level 0: silent

    def h(a):
        return a * 2
    g1 = paddle.utils.deprecated(since="2.0.0", reason="old", level=1)(h)
    with pytest.warns(DeprecationWarning, match="is deprecated since 2.0.0"):
        assert g1(3) == 6
    g_future = paddle.utils.deprecated(since="99.0", level=1)(h)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert g_future(3) == 6  # deprecated only from a later version on
    g2 = paddle.utils.deprecated(level=2)(h)
    with pytest.raises(RuntimeError, match="has been deprecated"):
        g2(1)
    with pytest.raises(ValueError):
        paddle.utils.deprecated(update_to="numpy.add")
    with pytest.raises(ValueError):
        paddle.utils.deprecated(level=3)


def test_run_check_trains_both_ways(capsys):
    st, dy = install_check._run_static(30), install_check._run_dygraph(30)
    assert st[-1] < 0.1 * st[0] and dy[-1] < 0.1 * dy[0]
    paddle.utils.run_check()
    out = capsys.readouterr().out
    assert "PaddlePaddle works well on 1 CPU." in out and "installed successfully" in out
    assert paddle.in_dynamic_mode()


def test_run_check_reports_a_broken_install(monkeypatch):
    monkeypatch.setattr(install_check, "_run_static", lambda steps: [1.0] * steps)
    with pytest.raises(RuntimeError, match="static training did not converge"):
        paddle.utils.run_check()


def test_try_import_err_msg():
    assert paddle.utils.try_import("json").dumps([1]) == "[1]"
    with pytest.raises(ImportError, match="pip install no_such_module_xyz"):
        paddle.utils.try_import("no_such_module_xyz")
    with pytest.raises(ImportError, match="^custom message$"):
        paddle.utils.try_import("no_such_module_xyz", err_msg="custom message")
