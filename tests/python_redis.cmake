# zset_python_with_redis(<variable>)
#
# Sets <variable> to a python3 that imports redis-py (Debian: python3-redis), for the tests that
# talk to redis-server through it, or to "" when there is none: ZSET_REDISPY_PYTHON when set,
# else the first of the interpreter CMake found and the distribution's /usr/bin/python3 that
# imports it (a pyenv or virtualenv python found first may lack it). Included by
# tests/differential/ and tests/module/.
set(ZSET_REDISPY_PYTHON "" CACHE FILEPATH "python3 with the redis module (redis-py), for the tests")

function(zset_python_with_redis variable)
    set(found "${ZSET_REDISPY_PYTHON}")
    if(NOT found)
        foreach(candidate IN ITEMS "${Python3_EXECUTABLE}" /usr/bin/python3)
            if(candidate AND EXISTS "${candidate}")
                execute_process(COMMAND "${candidate}" -c "import redis" RESULT_VARIABLE rc
                                OUTPUT_QUIET ERROR_QUIET)
                if(rc EQUAL 0)
                    set(found "${candidate}")
                    break()
                endif()
            endif()
        endforeach()
    endif()
    set(${variable} "${found}" PARENT_SCOPE)
endfunction()
