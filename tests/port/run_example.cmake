# Runs a cross-built example (through the target's emulator, if any) and compares its stdout
# with examples/<stem>.expected. Windows line ends (\r\n, text-mode stdout) count as \n.
#
#   cmake -DPROGRAM=<exe> -DEXPECTED=<file> [-DEMULATOR=<runner>] -P run_example.cmake
cmake_minimum_required(VERSION 3.16)

execute_process(COMMAND ${EMULATOR} "${PROGRAM}"
                RESULT_VARIABLE rc
                OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
string(REPLACE "\r\n" "\n" out "${out}")
if(NOT rc STREQUAL "0")
    message(FATAL_ERROR "${PROGRAM} exited with '${rc}'\n---- stdout ----\n${out}---- stderr ----\n${err}")
endif()
file(READ "${EXPECTED}" want)
if(NOT out STREQUAL want)
    message(FATAL_ERROR
            "stdout differs from ${EXPECTED}\n---- expected ----\n${want}---- actual ----\n${out}----")
endif()
