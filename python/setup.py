"""Build bagscope's Python package: the _core extension over libbagscope.

The library is found in this source tree (../include and ../.libs, after
`make`), else installed (pkg-config bagscope). Offline:
    pip install --no-build-isolation ./python
"""
import os
import shlex
import subprocess

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
TREE = os.path.dirname(HERE)


def library_flags():
    """include dirs, library dirs and runtime dirs of libbagscope: a build tree's
    (BAGSCOPE_BUILDDIR, or this source tree), else an installed one."""
    build = os.environ.get('BAGSCOPE_BUILDDIR', TREE)
    built = os.path.join(build, '.libs')
    if os.path.exists(os.path.join(built, 'libbagscope.so')):
        return [os.path.join(build, 'include'), os.path.join(TREE, 'include')], [built], [built]
    try:
        out = subprocess.run(['pkg-config', '--cflags', '--libs', 'bagscope'], check=True,
                             capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        raise SystemExit('libbagscope not found: run make in the source tree, or install it (pkg-config bagscope)')
    flags = shlex.split(out)
    inc = [f[2:] for f in flags if f.startswith('-I')]
    lib = [f[2:] for f in flags if f.startswith('-L')]
    return inc, lib, lib


inc, lib, rpath = library_flags()
core = Extension(
    'bagscope._core',
    sources=[os.path.join('_core.c'), os.path.join('_decode.c'), os.path.join('_bag.c')],
    include_dirs=inc,
    library_dirs=lib,
    runtime_library_dirs=rpath,
    libraries=['bagscope'],
    extra_compile_args=['-std=c11', '-Wall', '-Wextra', '-Wno-missing-field-initializers',
                        '-Wno-cast-function-type', '-fvisibility=hidden'],
)

setup(
    name='bagscope',
    version='0.1.0',
    description='Read ROS bags at C speed: messages, numpy columns, many bags on Dask',
    packages=['bagscope'],
    package_data={'bagscope': ['__init__.pyi', 'dask.pyi', 'py.typed']},
    ext_modules=[core],
    python_requires='>=3.9',
)
