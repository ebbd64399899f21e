# What an installed benchledger has besides the binary, its links and the library
# (docs/install.md): man pages and bash/zsh completions generated from the built binary's --help
# texts, the docs, and the CPack settings of the Debian package
# (`cmake --build --preset release --target package`).
option(BENCHLEDGER_HELP_FILES "Generate man pages (help2man) and shell completions from --help"
       ${benchledger_top_level})
set(benchledger_commands benchledger bench-run bench-compare bench-report bench-ledger bench-gate)
if(BENCHLEDGER_HELP_FILES)
  find_program(BENCHLEDGER_HELP2MAN help2man)
  if(NOT BENCHLEDGER_HELP2MAN)
    message(FATAL_ERROR "help2man not found: apt-get install help2man (tools/setup does), or "
                        "configure with -DBENCHLEDGER_HELP_FILES=OFF")
  endif()
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
  set(help_dir ${PROJECT_BINARY_DIR}/help)
  set(names
      "benchmark results you can trust, in an append-only ledger"
      "measure benchmarks and append them to the ledger"
      "compare two runs with statistics and gate on regressions"
      "write Markdown and HTML reports of runs"
      "verify, read, import, export and annotate a ledger"
      "build and measure two revisions of a git repository and gate on the comparison")
  set(help_files)
  foreach(command name IN ZIP_LISTS benchledger_commands names)
    add_custom_command(
      OUTPUT ${help_dir}/${command}.1.gz
      COMMAND ${CMAKE_COMMAND} -E make_directory ${help_dir}
      COMMAND ${BENCHLEDGER_HELP2MAN} --no-info --name=${name} --output=${help_dir}/${command}.1
              $<TARGET_FILE_DIR:benchledger_cli>/${command}
      COMMAND gzip -n -9 -f ${help_dir}/${command}.1
      DEPENDS benchledger_cli
      COMMENT "Writing the man page of ${command} from its --help"
      VERBATIM)
    list(APPEND help_files ${help_dir}/${command}.1.gz)
  endforeach()
  add_custom_command(
    OUTPUT ${help_dir}/benchledger.bash ${help_dir}/_benchledger
    COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/cmake/completions.py
            $<TARGET_FILE:benchledger_cli> ${help_dir}/benchledger.bash ${help_dir}/_benchledger
    DEPENDS benchledger_cli ${PROJECT_SOURCE_DIR}/cmake/completions.py
    COMMENT "Writing bash and zsh completions from the --help texts"
    VERBATIM)
  add_custom_target(benchledger_help_files ALL DEPENDS ${help_files} ${help_dir}/benchledger.bash
                                                       ${help_dir}/_benchledger)

  install(FILES ${help_files} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
  # bash-completion loads a command's completion from the file named after it.
  set(bash_dir ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
  install(FILES ${help_dir}/benchledger.bash DESTINATION ${bash_dir} RENAME benchledger)
  foreach(link IN LISTS benchledger_commands)
    if(NOT link STREQUAL "benchledger")
      install(CODE "execute_process(COMMAND ${CMAKE_COMMAND} -E create_symlink benchledger
                    \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${bash_dir}/${link}\")")
    endif()
  endforeach()
  install(FILES ${help_dir}/_benchledger DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
endif()
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(BENCHLEDGER_PACKAGE_MAINTAINER "benchledger maintainers" CACHE STRING
    "the Maintainer field of the Debian package")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME benchledger)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "benchmark results you can trust: an append-only ledger, statistics and a CI gate")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)  # the binary; CMake never strips a static library
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${BENCHLEDGER_PACKAGE_MAINTAINER})
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# Depends: what the binary links, from dpkg-shlibdeps. Recommends: what a project needs to build
# against the headers and the CMake package (benchledgerConfig.cmake finds these).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS
    "cmake, pkg-config, g++, nlohmann-json3-dev, libfmt-dev, libssl-dev, libsqlite3-dev, libsimdjson-dev, libpqxx-dev, libpq-dev")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "bash-completion")
include(CPack)
