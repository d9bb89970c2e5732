"""Offline install of the `edgemt` package with Debian's Python packages only:

    /usr/bin/python3 -m pip install --no-build-isolation ./python

The native module is built by CMake from this repository (the runtime, and
its kernel dependencies from ~/.cache/edgemt or Debian's sources, as for any
build: README.md), so cmake, a C++17 compiler and pybind11 must be there
(tools/install-deps.sh installs them).
"""
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


class CMakeBuild(build_ext):
    """Builds the module target with the repository's CMake project."""

    def build_extension(self, ext):
        build_dir = os.path.abspath(os.path.join(self.build_temp, "cmake"))
        subprocess.run(["cmake", "-S", REPO, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
                        "-DEDGEMT_BUILD_TESTS=OFF", "-DEDGEMT_BUILD_EXAMPLES=OFF", "-DEDGEMT_BUILD_SHARED=OFF",
                        "-DEDGEMT_PYTHON=ON", "-DPython3_EXECUTABLE=" + sys.executable], check=True)
        jobs = str(os.cpu_count() or 1)
        subprocess.run(["cmake", "--build", build_dir, "--target", "edgemt_python", "-j", jobs], check=True)
        built = os.path.join(build_dir, "python", "edgemt", os.path.basename(self.get_ext_filename(ext.name)))
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built, target)


setup(
    name="edgemt",
    version="0.1.0",
    description="Offline machine translation on CPUs (Transformer encoder-decoder, XNNPACK)",
    packages=["edgemt"],
    package_data={"edgemt": ["__init__.pyi", "py.typed"]},
    ext_modules=[Extension("edgemt._edgemt", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.9",
    zip_safe=False,
)
