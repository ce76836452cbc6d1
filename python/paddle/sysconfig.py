"""paddle.sysconfig: where a C program finds Paddle-C's inference header and library.
get_include() is the directory of pd_inference_api.h, get_lib() the directory of
libpaddle_inference_c.so (with pkgconfig/paddle_inference_c.pc beside it); the build
(setup.py) puts both inside the installed package, as Paddle does."""
import os

__all__ = ["get_include", "get_lib"]

_HERE = os.path.dirname(os.path.abspath(__file__))


def get_include():
    """The directory holding pd_inference_api.h (compile with -I<this>)."""
    return os.path.join(_HERE, "include")


def get_lib():
    """The directory holding libpaddle_inference_c.so (link with -L<this> -lpaddle_inference_c)."""
    return os.path.join(_HERE, "libs")
