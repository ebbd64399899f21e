# Every dependency is a Debian 12 package (tools/setup installs them); nothing is vendored or
# downloaded at build time.
find_package(Threads REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(fmt REQUIRED)
find_package(CLI11 REQUIRED)
find_package(OpenSSL REQUIRED COMPONENTS Crypto)
find_package(SQLite3 REQUIRED)
find_package(simdjson REQUIRED)
find_package(PkgConfig REQUIRED)
# libpqxx 6.4 on Debian 12 ships only a pkg-config file; 7.x (Conan) ships both.
pkg_check_modules(PQXX REQUIRED IMPORTED_TARGET libpqxx libpq)
if(BENCHLEDGER_BUILD_TESTS)
  find_package(Catch2 2 REQUIRED)
endif()
if(BENCHLEDGER_BUILD_BENCH OR BENCHLEDGER_BUILD_TESTS)
  find_package(benchmark REQUIRED)
endif()
