# zset_unit_test_sources(<variable>)
#
# Sets <variable> to the source files of the unit-test binary, zset_tests, sorted: every
# test_*.cpp under tests/, in tests/ itself and in the folders that mirror include/ and docs/
# (sorted_set/, dump/, detail/container/, redis/, reliability/), except in a folder directly under
# tests/ that is a build of its own (it has a CMakeLists.txt: threads/, ...). Included by
# tests/CMakeLists.txt and tests/port/CMakeLists.txt.
set(ZSET_UNIT_TESTS_DIR "${CMAKE_CURRENT_LIST_DIR}")

function(zset_unit_test_sources variable)
    file(GLOB_RECURSE found CONFIGURE_DEPENDS "${ZSET_UNIT_TESTS_DIR}/test_*.cpp")
    set(sources "")
    foreach(source IN LISTS found)
        file(RELATIVE_PATH relative "${ZSET_UNIT_TESTS_DIR}" "${source}")
        string(REGEX MATCH "^[^/]+/" folder "${relative}")
        if(folder AND EXISTS "${ZSET_UNIT_TESTS_DIR}/${folder}CMakeLists.txt")
            continue()
        endif()
        list(APPEND sources "${source}")
    endforeach()
    list(SORT sources)
    set(${variable} "${sources}" PARENT_SCOPE)
endfunction()
