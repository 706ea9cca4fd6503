# vcpkg port for zset (header-only).
#
# As an overlay port from this repository:
#   vcpkg install zset --overlay-ports=<zset checkout>/ports
# it builds the checkout the port lives in. For a registry, replace the SOURCE_PATH block with
#   vcpkg_from_github(OUT_SOURCE_PATH SOURCE_PATH REPO <owner>/zset REF "v${VERSION}"
#                     SHA512 <sha512 of the release tarball> HEAD_REF main)
set(VCPKG_BUILD_TYPE release)  # header-only: one (release) configuration is enough

get_filename_component(SOURCE_PATH "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
if(NOT EXISTS "${SOURCE_PATH}/include/zset/version.hpp")
    message(FATAL_ERROR "zset sources not found at ${SOURCE_PATH}")
endif()

vcpkg_cmake_configure(
    SOURCE_PATH "${SOURCE_PATH}"
    OPTIONS
        -DZSET_BUILD_TESTS=OFF
        -DZSET_BUILD_BENCHMARKS=OFF
        -DZSET_BUILD_EXAMPLES=OFF
        -DZSET_WERROR=OFF
        -DZSET_INSTALL=ON
)
vcpkg_cmake_install()
vcpkg_cmake_config_fixup(PACKAGE_NAME zset CONFIG_PATH share/cmake/zset)
vcpkg_fixup_pkgconfig()

file(REMOVE_RECURSE
    "${CURRENT_PACKAGES_DIR}/debug"
    "${CURRENT_PACKAGES_DIR}/lib"
    "${CURRENT_PACKAGES_DIR}/share/doc")

file(INSTALL "${CMAKE_CURRENT_LIST_DIR}/usage" DESTINATION "${CURRENT_PACKAGES_DIR}/share/${PORT}")
vcpkg_install_copyright(FILE_LIST "${SOURCE_PATH}/LICENSE")
