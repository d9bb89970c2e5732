"""Offline install of the `edgemt` package with Debian's Python packages only:

    /usr/bin/python3 -m pip install --no-build-isolation ./python

build_ext builds the native module with this repository's CMake project
(the runtime, and its kernel dependencies from ~/.cache/edgemt or built from
Debian's sources the first time, as for any build: README.md), so cmake, a
C++17 compiler, python3-dev and python3-pybind11 must be installed
(tools/install-deps.sh installs them). The module is built for the
interpreter running pip.

Environment: EDGEMT_CMAKE_BUILD_DIR names the CMake build directory (default:
setuptools' build_temp/cmake, inside python/build); CMAKE_BUILD_PARALLEL_LEVEL
the build jobs (default: every core).
"""
import os
import re
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def project_version():
    """The version in CMakeLists.txt's project(): the one the library reports."""
    with open(os.path.join(REPO, "CMakeLists.txt"), encoding="utf-8") as f:
        return re.search(r"project\(EdgeMT VERSION ([0-9.]+)", f.read()).group(1)


class CMakeBuild(build_ext):
    """Builds the module target alone (no tests, no programs) with the repository's CMake project."""

    def build_extension(self, ext):
        build_dir = os.environ.get("EDGEMT_CMAKE_BUILD_DIR") or os.path.join(os.path.abspath(self.build_temp), "cmake")
        subprocess.run(["cmake", "-S", REPO, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
                        "-DEDGEMT_BUILD_TESTS=OFF", "-DEDGEMT_BUILD_EXAMPLES=OFF", "-DEDGEMT_BUILD_SHARED=OFF",
                        "-DEDGEMT_PYTHON=ON", "-DPython3_EXECUTABLE=" + sys.executable], check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.run(["cmake", "--build", build_dir, "--target", "edgemt_python", "-j", jobs], check=True)
        built = os.path.join(build_dir, "python", "edgemt", os.path.basename(self.get_ext_filename(ext.name)))
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built, target)


setup(
    name="edgemt",
    version=project_version(),
    description="Offline machine translation on CPUs (Transformer encoder-decoder, XNNPACK)",
    packages=["edgemt"],
    package_data={"edgemt": ["__init__.pyi", "py.typed"]},
    ext_modules=[Extension("edgemt._edgemt", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.9",
    zip_safe=False,
)
