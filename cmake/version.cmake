# The version a build says it is (docs/install.md, "Which benchledger"): the release version
# and, for a build from a git checkout of this repository, `git describe --dirty`. Asked at
# build time, not configure time, so a new commit is seen without reconfiguring; the header is
# rewritten only when its text changes, so a build whose describe did not change recompiles and
# relinks nothing.
set(BENCHLEDGER_GIT_DESCRIBE "" CACHE STRING
    "the git describe text to build in; empty: ask git at build time (a checkout), or none")
set(benchledger_version_header ${PROJECT_BINARY_DIR}/generated/benchledger_build_version.h)
add_custom_target(
  benchledger_build_version
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${PROJECT_SOURCE_DIR} -DOUTPUT=${benchledger_version_header}
          -DVERSION=${PROJECT_VERSION} -DGIT_DESCRIBE=${BENCHLEDGER_GIT_DESCRIBE}
          -P ${PROJECT_SOURCE_DIR}/cmake/build_version.cmake
  BYPRODUCTS ${benchledger_version_header}
  VERBATIM)
