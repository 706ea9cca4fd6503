# Drives one consumer test: configures, builds and runs a tiny project that uses zset the way a
# downstream user would. Invoked by ctest (see CMakeLists.txt here) as
#
#   cmake -DCASE=<case> -DWORK_DIR=<dir> -DZSET_SOURCE_DIR=<dir> -DZSET_BINARY_DIR=<dir>
#         -DPREFIX=<dir> -DCXX=<compiler> -DGENERATOR=<gen> [-DMAKE_PROGRAM=<prog>]
#         -DCONFIG=<cfg> -DZSET_VERSION=<x.y.z> [-DPKG_CONFIG=<exe>] -P driver.cmake
#
# Cases: install find_package version_refused relocated subdirectory subdirectory_install
#        fetchcontent no_exceptions pkgconfig
cmake_minimum_required(VERSION 3.14)

foreach(_v IN ITEMS CASE WORK_DIR ZSET_SOURCE_DIR ZSET_BINARY_DIR PREFIX CXX GENERATOR ZSET_VERSION)
    if(NOT DEFINED ${_v} OR "${${_v}}" STREQUAL "")
        message(FATAL_ERROR "consumer driver: ${_v} is not set")
    endif()
endforeach()
if(NOT CONFIG)
    set(CONFIG Release)
endif()

set(HERE "${CMAKE_CURRENT_LIST_DIR}")

# The consumer program (uses the basic sorted_set API through <zset/zset.hpp>).
set(APP_SOURCE "${HERE}/app/main.cpp")

# ---------------------------------------------------------------------------------------------
# run_checked(<what> <command>...): run, fail loudly on non-zero exit, output in RUN_OUTPUT.
# Runs in RUN_DIR when that variable is set.
function(run_checked what)
    set(_wd "")
    if(RUN_DIR)
        set(_wd WORKING_DIRECTORY "${RUN_DIR}")
    endif()
    execute_process(COMMAND ${ARGN} ${_wd}
                    RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
    if(NOT _rc STREQUAL "0")
        string(REPLACE ";" " " _cmd "${ARGN}")
        message(FATAL_ERROR "${what} failed (${_rc})\n  command: ${_cmd}\n"
                            "---- stdout ----\n${_out}\n---- stderr ----\n${_err}")
    endif()
    set(RUN_OUTPUT "${_out}" PARENT_SCOPE)
endfunction()

# configure(<src> <bin> <extra cmake args>...)
function(configure src bin)
    set(_gen_args -G "${GENERATOR}")
    if(MAKE_PROGRAM)
        list(APPEND _gen_args "-DCMAKE_MAKE_PROGRAM=${MAKE_PROGRAM}")
    endif()
    run_checked("configure ${src}"
        "${CMAKE_COMMAND}" -S "${src}" -B "${bin}" ${_gen_args}
        "-DCMAKE_CXX_COMPILER=${CXX}"
        -DCMAKE_BUILD_TYPE=Debug
        -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
        -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON
        "-DAPP_SOURCE=${APP_SOURCE}"
        "-DZSET_SOURCE_DIR=${ZSET_SOURCE_DIR}"
        ${ARGN})
    set(RUN_OUTPUT "${RUN_OUTPUT}" PARENT_SCOPE)
endfunction()

function(build bin)
    run_checked("build ${bin}" "${CMAKE_COMMAND}" --build "${bin}" --config Debug)
endfunction()

# Asserts that the ctest configuration in build tree <bin> has no tests at all.
function(expect_no_tests bin)
    set(RUN_DIR "${bin}")
    run_checked("ctest -N" "${CMAKE_CTEST_COMMAND}" -N -C Debug)
    if(NOT RUN_OUTPUT MATCHES "Total Tests: 0")
        message(FATAL_ERROR "zset registered tests in the parent project:\n${RUN_OUTPUT}")
    endif()
endfunction()

function(run_app exe)
    if(NOT EXISTS "${exe}" AND EXISTS "${exe}.exe")
        set(exe "${exe}.exe")
    endif()
    run_checked("run ${exe}" "${exe}")
    if(NOT RUN_OUTPUT STREQUAL "ok\n")
        message(FATAL_ERROR "${exe} printed '${RUN_OUTPUT}', expected 'ok'")
    endif()
    message(STATUS "${exe}: ok")
endfunction()

# Path of the built app inside a consumer build tree (single- or multi-config).
function(app_path bin out)
    if(EXISTS "${bin}/Debug/app" OR EXISTS "${bin}/Debug/app.exe")
        set(${out} "${bin}/Debug/app" PARENT_SCOPE)
    else()
        set(${out} "${bin}/app" PARENT_SCOPE)
    endif()
endfunction()

function(install_zset prefix)
    file(REMOVE_RECURSE "${prefix}")
    run_checked("cmake --install"
        "${CMAKE_COMMAND}" --install "${ZSET_BINARY_DIR}" --config "${CONFIG}" --prefix "${prefix}")
endfunction()

# find_package consumer against <prefix>; extra args go to the configure step.
function(find_package_consumer prefix bin)
    configure("${HERE}/find_package" "${bin}"
              "-DCMAKE_PREFIX_PATH=${prefix}" "-DEXPECT_PREFIX=${prefix}" ${ARGN})
    build("${bin}")
    app_path("${bin}" _app)
    run_app("${_app}")
endfunction()

# Checks that pkg-config, pointed at <prefix>, yields flags that locate <prefix>/include and
# that a program compiled with just those flags works.
function(pkgconfig_consumer prefix bin)
    set(ENV{PKG_CONFIG_PATH} "${prefix}/share/pkgconfig")
    set(ENV{PKG_CONFIG_LIBDIR} "${prefix}/share/pkgconfig")
    run_checked("pkg-config --modversion" "${PKG_CONFIG}" --modversion zset)
    string(STRIP "${RUN_OUTPUT}" _ver)
    if(NOT _ver STREQUAL ZSET_VERSION)
        message(FATAL_ERROR "pkg-config reports version '${_ver}', expected ${ZSET_VERSION}")
    endif()
    run_checked("pkg-config --cflags" "${PKG_CONFIG}" --cflags zset)
    string(STRIP "${RUN_OUTPUT}" _cflags)
    message(STATUS "pkg-config --cflags zset: ${_cflags}")
    separate_arguments(_cflag_list UNIX_COMMAND "${_cflags}")
    get_filename_component(_want "${prefix}/include" REALPATH)
    set(_found_inc OFF)
    foreach(_f IN LISTS _cflag_list)
        if(_f MATCHES "^-I(.+)$")
            get_filename_component(_inc "${CMAKE_MATCH_1}" REALPATH)
            if(_inc STREQUAL _want)
                set(_found_inc ON)
            endif()
        endif()
    endforeach()
    if(NOT _found_inc)
        message(FATAL_ERROR "pkg-config --cflags '${_cflags}' does not point at ${_want}")
    endif()
    file(MAKE_DIRECTORY "${bin}")
    run_checked("compile with pkg-config flags"
        "${CXX}" -std=c++17 ${_cflag_list} "${APP_SOURCE}" -o "${bin}/app")
    run_app("${bin}/app")
endfunction()

# Asserts that an install tree contains exactly the given relative paths (files).
function(expect_installed_files root)
    file(GLOB_RECURSE _files RELATIVE "${root}" "${root}/*")
    list(SORT _files)
    set(_want ${ARGN})
    list(SORT _want)
    if(NOT _files STREQUAL _want)
        string(REPLACE ";" "\n  " _a "${_files}")
        string(REPLACE ";" "\n  " _b "${_want}")
        message(FATAL_ERROR "unexpected install tree ${root}:\n  ${_a}\nexpected:\n  ${_b}")
    endif()
endfunction()

function(require_pkg_config)
    if(NOT PKG_CONFIG OR NOT EXISTS "${PKG_CONFIG}")
        message(FATAL_ERROR "pkg-config not available")
    endif()
endfunction()

# ---------------------------------------------------------------------------------------------
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

if(CASE STREQUAL "install")
    # Fixture for the other cases: install this build tree into PREFIX and check its layout.
    install_zset("${PREFIX}")
    foreach(_f IN ITEMS include/zset/zset.hpp
                        include/zset/version.hpp
                        share/cmake/zset/zsetConfig.cmake
                        share/cmake/zset/zsetConfigVersion.cmake
                        share/cmake/zset/zsetTargets.cmake
                        share/pkgconfig/zset.pc
                        share/doc/zset/LICENSE)
        if(NOT EXISTS "${PREFIX}/${_f}")
            message(FATAL_ERROR "install is missing ${_f}")
        endif()
    endforeach()
    # Header-only: nothing architecture specific may be installed.
    foreach(_d IN ITEMS lib lib64 bin)
        if(EXISTS "${PREFIX}/${_d}")
            message(FATAL_ERROR "header-only install unexpectedly created ${_d}/")
        endif()
    endforeach()
    # Every header in the source tree must be installed.
    file(GLOB_RECURSE _src_headers RELATIVE "${ZSET_SOURCE_DIR}/include"
         "${ZSET_SOURCE_DIR}/include/*.hpp")
    foreach(_h IN LISTS _src_headers)
        if(NOT EXISTS "${PREFIX}/include/${_h}")
            message(FATAL_ERROR "install is missing include/${_h}")
        endif()
    endforeach()

elseif(CASE STREQUAL "find_package")
    find_package_consumer("${PREFIX}" "${WORK_DIR}/build")

elseif(CASE STREQUAL "no_exceptions")
    find_package_consumer("${PREFIX}" "${WORK_DIR}/build" -DAPP_NO_EXCEPTIONS=ON)

elseif(CASE STREQUAL "version_refused")
    configure("${HERE}/version_refused" "${WORK_DIR}/build"
              "-DCMAKE_PREFIX_PATH=${PREFIX}" "-DZSET_EXPECTED_VERSION=${ZSET_VERSION}")
    message(STATUS "${RUN_OUTPUT}")

elseif(CASE STREQUAL "relocated")
    # Install into a private prefix, move it, and use it only from its new location.
    install_zset("${WORK_DIR}/prefix-original")
    file(MAKE_DIRECTORY "${WORK_DIR}/elsewhere")
    file(RENAME "${WORK_DIR}/prefix-original" "${WORK_DIR}/elsewhere/prefix-moved")
    if(EXISTS "${WORK_DIR}/prefix-original")
        message(FATAL_ERROR "move failed")
    endif()
    find_package_consumer("${WORK_DIR}/elsewhere/prefix-moved" "${WORK_DIR}/build")
    if(PKG_CONFIG AND EXISTS "${PKG_CONFIG}")
        pkgconfig_consumer("${WORK_DIR}/elsewhere/prefix-moved" "${WORK_DIR}/build-pc")
    endif()

elseif(CASE STREQUAL "pkgconfig")
    require_pkg_config()
    pkgconfig_consumer("${PREFIX}" "${WORK_DIR}/build")

elseif(CASE STREQUAL "subdirectory" OR CASE STREQUAL "subdirectory_install")
    set(_extra "")
    if(CASE STREQUAL "subdirectory_install")
        set(_extra -DPARENT_SETS_ZSET_INSTALL=ON)
    endif()
    set(_bin "${WORK_DIR}/build")
    configure("${HERE}/subdirectory" "${_bin}" ${_extra})
    build("${_bin}")
    app_path("${_bin}" _app)
    run_app("${_app}")

    # zset must not register any test with the parent.
    expect_no_tests("${_bin}")

    run_checked("parent install"
        "${CMAKE_COMMAND}" --install "${_bin}" --config Debug --prefix "${WORK_DIR}/inst")
    if(EXISTS "${WORK_DIR}/inst/bin/app.exe")
        set(_app_file bin/app.exe)
    else()
        set(_app_file bin/app)
    endif()
    if(CASE STREQUAL "subdirectory")
        # Default: the parent's install contains nothing of zset.
        expect_installed_files("${WORK_DIR}/inst" ${_app_file})
    else()
        # The parent opted in with a plain variable: zset's install rules are present.
        foreach(_f IN ITEMS include/zset/version.hpp share/cmake/zset/zsetConfig.cmake
                            share/pkgconfig/zset.pc)
            if(NOT EXISTS "${WORK_DIR}/inst/${_f}")
                message(FATAL_ERROR "ZSET_INSTALL=ON set by the parent, but ${_f} not installed")
            endif()
        endforeach()
    endif()

elseif(CASE STREQUAL "fetchcontent")
    set(_bin "${WORK_DIR}/build")
    configure("${HERE}/fetchcontent" "${_bin}" -DFETCHCONTENT_QUIET=ON)
    build("${_bin}")
    app_path("${_bin}" _app)
    run_app("${_app}")
    expect_no_tests("${_bin}")

else()
    message(FATAL_ERROR "consumer driver: unknown CASE '${CASE}'")
endif()

message(STATUS "consumer case '${CASE}' passed")
