# zset_test_unity_groups(<target> <batch size> <source>...)
#
# Compiles the unit-test files of <target> in unity groups: the files that include the Redis
# layer (zset/redis/keyspace.hpp and what it pulls in) form one group, so that layer's inline
# functions are compiled once rather than once per batch they were spread over in alphabetical
# batches; the other files go, in order, into groups of <batch size>. Files marked
# SKIP_UNITY_BUILD_INCLUSION (or with their own compile options) stay out, as CMake leaves them.
#
# Measured on the i686 port build (one core each, side by side, `cmake --build <dir> -j 1
# --target zset_tests`): alphabetical batches of 7 against these groups; figures in
# docs/reliability.md. Needs CMake 3.18 (UNITY_BUILD_MODE GROUP); older CMake gets plain batches.
# The Redis-layer files: every file in tests/redis/, and these elsewhere.
set(ZSET_TEST_REDIS_LAYER_FILES test_bad_input.cpp test_portability.cpp)

function(zset_test_unity_groups target batch)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${batch})
    if(CMAKE_VERSION VERSION_LESS 3.18)
        return()
    endif()
    set_target_properties(${target} PROPERTIES UNITY_BUILD_MODE GROUP)
    set(others "")
    foreach(source IN LISTS ARGN)
        get_filename_component(name "${source}" NAME)
        get_source_file_property(skipped "${source}" SKIP_UNITY_BUILD_INCLUSION)
        get_source_file_property(options "${source}" COMPILE_OPTIONS)
        if(skipped OR options)
            continue()
        elseif(name IN_LIST ZSET_TEST_REDIS_LAYER_FILES OR source MATCHES "(^|/)redis/[^/]+$")
            set_source_files_properties("${source}" PROPERTIES UNITY_GROUP redis_layer)
        else()
            list(APPEND others "${source}")
        endif()
    endforeach()
    # the other files in ceil(n / batch) groups of nearly equal size, in order
    list(LENGTH others count)
    math(EXPR groups "(${count} + ${batch} - 1) / ${batch}")
    set(index 0)
    foreach(source IN LISTS others)
        math(EXPR group "${index} * ${groups} / ${count}")
        set_source_files_properties("${source}" PROPERTIES UNITY_GROUP "batch_${group}")
        math(EXPR index "${index} + 1")
    endforeach()
endfunction()
