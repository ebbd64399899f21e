# Conan 2 recipe for users who build benchledger with Conan (the project itself builds from
# Debian's packages; see tools/setup). Conan users get libpqxx 7.x, which the code supports.
from conan import ConanFile
from conan.tools.cmake import CMake, CMakeDeps, CMakeToolchain, cmake_layout
from conan.tools.files import copy


class BenchledgerConan(ConanFile):
    name = "benchledger"
    version = "0.1.0"
    license = "MIT"
    description = "Benchmark results you can trust: an append-only ledger, statistics and a CI gate"
    settings = "os", "compiler", "build_type", "arch"
    options = {"fPIC": [True, False]}
    default_options = {"fPIC": True}
    exports_sources = "../CMakeLists.txt", "../cmake/*", "../include/*", "../src/*", "../bench/*"

    def requirements(self):
        self.requires("nlohmann_json/3.11.3", transitive_headers=True)
        self.requires("fmt/10.2.1")
        self.requires("cli11/2.4.1")
        self.requires("sqlite3/3.45.0")
        self.requires("libpqxx/7.9.0")
        self.requires("openssl/3.2.1")
        self.requires("simdjson/3.6.3")
        self.requires("boost/1.84.0", options={"header_only": True})

    def layout(self):
        cmake_layout(self)

    def generate(self):
        CMakeDeps(self).generate()
        toolchain = CMakeToolchain(self)
        toolchain.variables["BENCHLEDGER_BUILD_TESTS"] = False
        toolchain.variables["BENCHLEDGER_BUILD_BENCH"] = False
        toolchain.generate()

    def build(self):
        cmake = CMake(self)
        cmake.configure()
        cmake.build()

    def package(self):
        CMake(self).install()

    def package_info(self):
        self.cpp_info.libs = ["benchledger"]
        self.cpp_info.set_property("cmake_file_name", "benchledger")
        self.cpp_info.set_property("cmake_target_name", "benchledger::benchledger")
