# Run a program and, if an expected-output file exists, compare its stdout to it exactly.
#
#   cmake -DPROGRAM=<exe> [-DEXPECTED=<file>] [-DACTUAL=<file>] [-DARGS=<a;b;c>]
#         -P run_and_compare.cmake
#
# Fails if the program exits non-zero, or if EXPECTED exists and stdout differs from it.
# When ACTUAL is given, the captured stdout is written there (handy for updating EXPECTED).
cmake_minimum_required(VERSION 3.14)

if(NOT PROGRAM)
    message(FATAL_ERROR "run_and_compare: PROGRAM not set")
endif()

execute_process(COMMAND "${PROGRAM}" ${ARGS}
                RESULT_VARIABLE _rc
                OUTPUT_VARIABLE _out
                ERROR_VARIABLE _err)

if(ACTUAL)
    file(WRITE "${ACTUAL}" "${_out}")
endif()

if(NOT _rc STREQUAL "0")
    message("---- stdout ----\n${_out}---- stderr ----\n${_err}")
    message(FATAL_ERROR "run_and_compare: ${PROGRAM} exited with '${_rc}'")
endif()
if(_err)
    message("---- stderr ----\n${_err}")
endif()

if(EXPECTED AND EXISTS "${EXPECTED}")
    file(READ "${EXPECTED}" _want)
    if(NOT _out STREQUAL _want)
        message("run_and_compare: stdout differs from ${EXPECTED}")
        find_program(_diff diff)
        if(_diff AND ACTUAL)
            execute_process(COMMAND "${_diff}" -u "${EXPECTED}" "${ACTUAL}")
        else()
            message("---- expected ----\n${_want}---- actual ----\n${_out}----")
        endif()
        message(FATAL_ERROR "run_and_compare: output mismatch")
    endif()
    message(STATUS "run_and_compare: stdout matches ${EXPECTED}")
endif()
