#!/usr/bin/env python3
"""Check that every packaging file agrees with include/zset/version.hpp.

usage: check_packaging.py <zset source dir> <version cmake parsed>

Checks: the header's ZSET_VERSION_* macros, the version CMake parsed, ports/zset/vcpkg.json, the
version conanfile.py derives (conanfile.py is imported with a stub `conan` package, so Conan
itself is not needed) and the newest release in CHANGELOG.md.
"""
import importlib.util
import json
import re
import sys
import types
from pathlib import Path


def header_version(root: Path) -> str:
    text = (root / "include" / "zset" / "version.hpp").read_text(encoding="utf-8")
    parts = []
    for name in ("MAJOR", "MINOR", "PATCH"):
        m = re.search(r"^#define ZSET_VERSION_%s +(\d+)\s*$" % name, text, re.M)
        if not m:
            raise SystemExit("version.hpp: ZSET_VERSION_%s not found" % name)
        parts.append(m.group(1))
    return ".".join(parts)


def stub_conan() -> None:
    """Install just enough of a fake `conan` package for conanfile.py to import."""

    class ConanFile:  # noqa: D401 - stub
        pass

    def _noop(*_args, **_kwargs):
        return None

    modules = {
        "conan": {"ConanFile": ConanFile},
        "conan.tools": {},
        "conan.tools.build": {"check_min_cppstd": _noop, "can_run": _noop},
        "conan.tools.cmake": {"CMake": object, "CMakeToolchain": object,
                              "CMakeDeps": object, "cmake_layout": _noop},
        "conan.tools.files": {"copy": _noop},
        "conan.tools.layout": {"basic_layout": _noop},
    }
    for name, attrs in modules.items():
        mod = types.ModuleType(name)
        mod.__path__ = []  # mark as package
        for key, value in attrs.items():
            setattr(mod, key, value)
        sys.modules[name] = mod


def conan_version(root: Path) -> str:
    stub_conan()
    spec = importlib.util.spec_from_file_location("zset_conanfile", root / "conanfile.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.read_zset_version(root / "include" / "zset" / "version.hpp")


def changelog_version(root: Path) -> str:
    """The newest released version in CHANGELOG.md: its first "## [X.Y.Z]" heading."""
    text = (root / "CHANGELOG.md").read_text(encoding="utf-8")
    m = re.search(r"^## \[(\d+\.\d+\.\d+)\]", text, re.M)
    return m.group(1) if m else "(no release heading)"


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    root = Path(sys.argv[1])
    cmake_version = sys.argv[2]
    want = header_version(root)
    found = {
        "CMake project()": cmake_version,
        "ports/zset/vcpkg.json": json.loads(
            (root / "ports" / "zset" / "vcpkg.json").read_text(encoding="utf-8"))["version"],
        "conanfile.py": conan_version(root),
        "CHANGELOG.md": changelog_version(root),
    }
    bad = {k: v for k, v in found.items() if v != want}
    for k, v in found.items():
        print("%-24s %s%s" % (k, v, "" if v == want else "   <-- MISMATCH"))
    if bad:
        print("version.hpp says %s" % want)
        return 1
    print("all packaging versions equal version.hpp (%s)" % want)
    return 0


if __name__ == "__main__":
    sys.exit(main())
