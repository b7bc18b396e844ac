"""The compiled kernel, burstpool/_kernel.pyx: cimports fracas's dice (fracas_dice.pxd) from
the folder fracas installs them in, so the kernel draws the stream fracas draws."""

from Cython.Build import cythonize
from setuptools import Extension, setup

from fracas.dice import get_include

setup(ext_modules=cythonize(
    [Extension("burstpool._kernel", ["burstpool/_kernel.pyx"])],
    include_path=[get_include()],
    compiler_directives={"language_level": "3", "boundscheck": False, "wraparound": False},
))
