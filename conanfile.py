"""Conan 2 recipe for zset (header-only).

    conan create . --build=missing          # builds and runs test_package/
"""
import os
import re

from conan import ConanFile
from conan.tools.build import check_min_cppstd
from conan.tools.files import copy
from conan.tools.layout import basic_layout

required_conan_version = ">=2.0"


def read_zset_version(header_path):
    """Return "MAJOR.MINOR.PATCH" parsed from include/zset/version.hpp (the single source)."""
    with open(header_path, encoding="utf-8") as f:
        text = f.read()
    parts = []
    for name in ("MAJOR", "MINOR", "PATCH"):
        match = re.search(r"^#define ZSET_VERSION_%s +(\d+)\s*$" % name, text, re.MULTILINE)
        if match is None:
            raise ValueError("ZSET_VERSION_%s not found in %s" % (name, header_path))
        parts.append(match.group(1))
    return ".".join(parts)


class ZsetConan(ConanFile):
    name = "zset"
    description = "The Redis sorted set as a header-only C++17 container"
    license = "MIT"
    topics = ("sorted-set", "zset", "redis", "container", "header-only")
    package_type = "header-library"
    settings = "os", "arch", "compiler", "build_type"
    exports_sources = "include/*", "LICENSE", "tools/gdb/*"
    no_copy_source = True

    def set_version(self):
        self.version = read_zset_version(
            os.path.join(self.recipe_folder, "include", "zset", "version.hpp"))

    def layout(self):
        basic_layout(self, src_folder=".")

    def package_id(self):
        self.info.clear()

    def validate(self):
        if self.settings.get_safe("compiler.cppstd"):
            check_min_cppstd(self, 17)

    def package(self):
        copy(self, "LICENSE", src=self.source_folder,
             dst=os.path.join(self.package_folder, "licenses"))
        copy(self, "*.hpp", src=os.path.join(self.source_folder, "include"),
             dst=os.path.join(self.package_folder, "include"))
        copy(self, "zset_printers.py", src=os.path.join(self.source_folder, "tools", "gdb"),
             dst=os.path.join(self.package_folder, "res", "gdb"))

    def package_info(self):
        self.cpp_info.set_property("cmake_file_name", "zset")
        self.cpp_info.set_property("cmake_target_name", "zset::zset")
        self.cpp_info.set_property("pkg_config_name", "zset")
        self.cpp_info.bindirs = []
        self.cpp_info.libdirs = []
