"""Build the compiled core, the package `fracas._core` of extension modules, from `cython_core/`.

Static metadata lives in pyproject.toml; this file computes the extensions and the package
list: every package under src/ (so a new ruleset folder needs no edit anywhere) and the
three that pyproject's package-dir maps from other folders.
The extensions are optional for source installs (a machine without a C compiler still
gets the pure-Python kernels) and mandatory in wheel builds (CIBUILDWHEEL=1) or when
FRACAS_REQUIRE_COMPILED=1.
build_py also writes the VTT clients into the package (fracas/clients.zip: the Foundry
module, the Roll20 Mod script and the relay extension), from the committed files of
vtt_scripts/, each checked to state the package's version (src/fracas/release:
package_data). No node needed. And it installs the generator's public .pxd surface
(`PUBLIC_PXD`) as fracas/include/, for compiled plug-ins (`fracas.dice.get_include()`).
"""

import importlib.util
import os
import sys
from pathlib import Path

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent

REQUIRED = os.environ.get("CIBUILDWHEEL") == "1" or os.environ.get("FRACAS_REQUIRE_COMPILED") == "1"


class OptionalBuildExt(build_ext):
    """Turn a failed compile into a warning unless the compiled core is required; compile
    the extensions on every core this process may use unless told otherwise (-j N)."""

    def finalize_options(self):
        super().finalize_options()
        if not self.parallel:
            self.parallel = _cores()

    def run(self):
        try:
            super().run()
        except Exception as exc:  # noqa: BLE001 - any build failure falls back
            if REQUIRED:
                raise
            print(f"warning: fracas compiled core not built ({exc}); using pure Python", file=sys.stderr)

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as exc:  # noqa: BLE001
            if REQUIRED:
                raise
            print(f"warning: {ext.name} not built ({exc}); using pure Python", file=sys.stderr)


def _release():
    """src/fracas/release, loaded by its path (the package is not importable while it builds)."""
    spec = importlib.util.spec_from_file_location("_fracas_release", HERE / "src" / "fracas" / "release" / "__init__.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


class BuildPyWithClients(build_py):
    """build_py, then the VTT clients into fracas/clients.zip: in the build's copy of the
    package, or, in an editable install, in the source package (as build_ext --inplace
    puts the compiled core there)."""

    def run(self):
        super().run()
        release = _release()
        if getattr(self, "editable_mode", False):
            target = Path(self.get_package_dir("fracas")) / release.ARCHIVE
        else:
            target = Path(self.build_lib) / "fracas" / release.ARCHIVE
        try:
            files = release.package_data(HERE, self.distribution.get_version())
        except release.ClientsError as err:
            sys.exit(f"error: the VTT clients: {err}")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(release.zip_bytes(files.items()))
        self.announce(f"wrote the VTT clients ({len(files)} files) to {target}", level=2)
        if not getattr(self, "editable_mode", False):  # a checkout's get_include() is cython_core itself
            include = Path(self.build_lib) / "fracas" / "include"
            include.mkdir(parents=True, exist_ok=True)
            for name in PUBLIC_PXD:
                (include / name).write_bytes((HERE / "cython_core" / name).read_bytes())
            self.announce(f"wrote the public .pxd files ({len(PUBLIC_PXD)}) to {include}", level=2)


#: The .pxd files a compiled plug-in cimports (cython_core/fracas_dice.pxd, the public names,
#: and what it cimports), installed as fracas/include/ (`fracas.dice.get_include()`).
PUBLIC_PXD = ("fracas_dice.pxd", "fracas_rows.pxd", "_generator.pxd", "_layout.pxd")


def _cores():
    """The cores this process may use (the builds' C compiles and Cython translations)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def extensions():
    try:
        from Cython.Build import cythonize
    except ImportError:
        if REQUIRED:
            raise
        return []
    # Every `cdef inline` kernel helper is inlined for sure: the strike-row kernel's
    # `xstrike` is large enough that GCC would otherwise call it, spilling its result
    # row to memory on every strike (the Worldwalker bulk scenario ran 1.3x slower).
    compile_args = [] if sys.platform == "win32" else [
        "-O3", "-Wno-psabi", "-DCYTHON_INLINE=inline __attribute__((always_inline))"]
    # One extension per concern (see src/fracas/_core/__init__.py), each cimporting the
    # inline C code it shares with the others from the .pxd files (no run-time calls
    # between modules), and each including the generated layout table.
    shared = ["cython_core/_layout.pxd", "cython_core/_layout.pxi", "cython_core/_generator.pxd"]
    rules, digest = shared_rules()
    depends = {
        "generator": [],
        "er": ["cython_core/_er.pxd"],
        "lanes": ["cython_core/_er.pxd", "cython_core/lanes.h", "cython_core/lanes_body.h"],
        "rows": ["cython_core/_er.pxd", "cython_core/_rows.pxd"],
        "single": ["cython_core/_er.pxd"],
        "fights": ["cython_core/_er.pxd", "cython_core/_rows.pxd", *(f"src/{path}" for path in rules)],
    }
    # The strike-row kernel's build marks Lemire's rejection rare (see _generator.pxd): its
    # damage-dice loop then holds no rejection code and keeps its flags in registers.
    macros = {"rows": [("FRACAS_REJECTION_RARE", "1")],
              # the rule files the fight loop includes, and the digest of their text (stale-core check)
              # (no spaces in the values: a Windows command line would split or re-quote them)
              "fights": [("FRACAS_SHARED_RULES", '"' + ",".join(rules) + '"'), ("FRACAS_RULES_DIGEST", f'"{digest}"')]}
    exts = [Extension(f"fracas._core.{name}", [f"cython_core/{name}.pyx"], depends=shared + extra,
                      include_dirs=["cython_core"], extra_compile_args=compile_args,
                      define_macros=macros.get(name, []))
            for name, extra in depends.items()]
    kernels = cythonize(
        exts,
        nthreads=_cores() if sys.platform != "win32" else 0,  # translate the modules side by side
        include_path=["cython_core", "src"],  # the .pxd files the modules cimport; the rules they include
        compiler_directives={
            "language_level": "3",
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
        },
    )
    return kernels + cythonize(
        [Extension(name, [path], extra_compile_args=compile_args) for name, path in PURE_PYTHON],
        compiler_directives={
            "language_level": "3",
            "annotation_typing": False,  # its types are in the .pxd beside it; the hints are for mypy
            "boundscheck": True,  # it reads the arrays where they say: a bad position raises, never reads past
            "wraparound": False,
        },
    )


#: Plain-Python modules of the rulesets that setup.py also compiles with Cython ("pure Python
#: mode": the same .py, typed by the .pxd beside it), so their result building runs at C
#: speed; without a compiler they import as the .py they are.
PURE_PYTHON = [
    ("fracas.rulesets.er.strikes", "src/fracas/rulesets/er/strikes.py"),
]


def shared_rules():
    """The plain-Python rule files the compiled fight loop includes as source (pure Python
    mode: `include "fracas/…"` in cython_core/fights.pyx, so that a rule of a whole fight is
    written once for the compiled loop and the Python round), and the digest of their text
    (src/fracas/_pure/rules.py, loaded by its path: fracas is not installed yet)."""
    spec = importlib.util.spec_from_file_location("_fracas_rules", HERE / "src" / "fracas" / "_pure" / "rules.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    paths = module.included((HERE / "cython_core" / "fights.pyx").read_text(encoding="utf-8"))
    return paths, module.digest(HERE / "src", paths)


#: Packages kept outside src/ (pyproject.toml's [tool.setuptools.package-dir] says where).
ELSEWHERE = ["fracas.bridge", "fracas.benchmarks", "fracas.scenarios"]


def packages():
    return sorted(find_packages("src", include=["fracas", "fracas.*"])) + ELSEWHERE


if __name__ == "__main__":
    setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt, "build_py": BuildPyWithClients},
          packages=packages())
