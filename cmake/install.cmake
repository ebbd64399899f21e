include(CMakePackageConfigHelpers)

install(TARGETS benchledger benchledger_main EXPORT benchledgerTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY include/benchledger DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT benchledgerTargets NAMESPACE benchledger::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/benchledger)
configure_package_config_file(cmake/benchledgerConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/benchledgerConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/benchledger)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/benchledgerConfigVersion.cmake
                                 COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/benchledgerConfig.cmake
              ${PROJECT_BINARY_DIR}/benchledgerConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/benchledger)

install(TARGETS benchledger_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
foreach(link bench-run bench-compare bench-report bench-ledger bench-gate)
  install(CODE "execute_process(COMMAND ${CMAKE_COMMAND} -E create_symlink benchledger
                \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/${link}\")")
endforeach()
