# One target per folder of src/ (docs/ARCHITECTURE.md): each folder compiles its own files into an
# object library and names the folders it may use, as the table there does. The library users
# link, benchledger, is the objects of every folder but src/cli.
#
# BENCHLEDGER_LINK_CHECK (on in the dev preset, the build tools/test and CI make) has the linker
# hold each folder to its list: the folder's objects are also linked, alone, into a shared library
# with -Wl,--no-undefined, against the same libraries of the folders it names and nothing else. A
# call into a folder it does not name then fails the build, naming the symbol and the file that
# calls it. tests/arch/check_layers.py checks that each list is the table's "may use" cell.
option(BENCHLEDGER_LINK_CHECK "Link each src/ folder alone against the folders it names" OFF)

# benchledger_optimize_for_size(TARGET...): -Os instead of -O3 in Release, for the folders no
# measured path runs through (reading a harness's file, starting processes, the command line,
# the gate's orchestration): at -O3 they were two fifths of a clean Release build, and -Os compiles
# them in about two thirds of the time (docs/design.md, "Build time"). The folders that
# compare, history, the ledger and the measurements run through stay at -O3.
function(benchledger_optimize_for_size)
  foreach(target ${ARGN})
    target_compile_options(${target} PRIVATE $<$<CONFIG:Release>:-Os>)
  endforeach()
endfunction()

# benchledger_folder(NAME [SIZE] [USES folder...] [LIBRARIES target...] SOURCES file...)
# Makes benchledger_NAME from the folder's SOURCES; LIBRARIES are the third-party targets its
# files include or call beside the library's public ones (nlohmann/json, threads). SIZE: the
# folder is compiled for size in Release (benchledger_optimize_for_size).
function(benchledger_folder name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "SIZE" "" "USES;LIBRARIES;SOURCES")
  set(target benchledger_${name})
  add_library(${target} OBJECT ${arg_SOURCES})
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/include
                                               ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${target} PRIVATE benchledger_settings nlohmann_json::nlohmann_json
                                          Threads::Threads ${arg_LIBRARIES})
  target_sources(benchledger PRIVATE $<TARGET_OBJECTS:${target}>)
  set_property(TARGET ${target} PROPERTY BENCHLEDGER_USES ${arg_USES})
  if(arg_SIZE)
    benchledger_optimize_for_size(${target})
  endif()
  if(BENCHLEDGER_UNITY_BUILD)
    # 16: each batch reads the heavy headers (nlohmann/json, fmt) once.
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 16)
  endif()
  if(BENCHLEDGER_LINK_CHECK)
    set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    add_library(${target}_linked SHARED $<TARGET_OBJECTS:${target}>)
    set(uses ${arg_USES})
    list(TRANSFORM uses REPLACE "(.+)" "benchledger_\\1_linked")
    target_link_libraries(${target}_linked PRIVATE benchledger_settings ${uses} Threads::Threads
                                                   ${arg_LIBRARIES})
    target_link_options(${target}_linked PRIVATE -Wl,--no-undefined)
  endif()
endfunction()
