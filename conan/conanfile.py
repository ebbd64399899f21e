# Conan 2 recipe for users who build benchledger with Conan (docs/install.md, "Conan"). The
# recipe lives in conan/ and exports the source tree from the folder above it. Its requirements
# are version ranges, so a profile may take them from the platform instead of a remote:
# conan/profiles/debian12 does, with Debian 12's packages (tools/setup installs them).
import os
import re

from conan import ConanFile
from conan.errors import ConanException
from conan.tools.build import check_min_cppstd
from conan.tools.cmake import CMake, CMakeDeps, CMakeToolchain, cmake_layout
from conan.tools.files import copy, load, update_conandata
from conan.tools.gnu import PkgConfigDeps
from conan.tools.scm import Git


class BenchledgerConan(ConanFile):
    name = "benchledger"
    license = "MIT"
    description = "Benchmark results you can trust: an append-only ledger, statistics and a CI gate"
    settings = "os", "compiler", "build_type", "arch"
    package_type = "static-library"
    options = {"fPIC": [True, False]}
    default_options = {"fPIC": True}

    def set_version(self):
        # The one version of the project, from its CMakeLists.txt.
        text = load(self, os.path.join(self.recipe_folder, "..", "CMakeLists.txt"))
        match = re.search(r"project\(benchledger VERSION ([0-9.]+)", text)
        if not match:
            raise ConanException("CMakeLists.txt: no `project(benchledger VERSION …)`")
        self.version = match.group(1)

    def export(self):
        # The exported sources are not a git checkout: record the commit they come from, so the
        # built benchledger says which one it is (`--version`, env.runtimes.benchledger).
        git = Git(self, os.path.join(self.recipe_folder, ".."))
        try:
            describe = git.run("describe --tags --match v[0-9]* --always --dirty --abbrev=12")
        except ConanException:
            describe = ""  # not a checkout: the version alone
        update_conandata(self, {"benchledger": {"git_describe": describe.strip()}})

    def export_sources(self):
        root = os.path.join(self.recipe_folder, "..")
        for name in ("CMakeLists.txt", "README.md"):
            copy(self, name, root, self.export_sources_folder)
        for folder in ("cmake", "include", "src", "docs"):
            copy(self, "*", os.path.join(root, folder),
                 os.path.join(self.export_sources_folder, folder))

    def requirements(self):
        # Ranges the code builds with: Debian 12's versions up to the next major ones.
        self.requires("nlohmann_json/[>=3.10 <4]", transitive_headers=True)
        self.requires("fmt/[>=9 <12]")
        self.requires("cli11/[>=2.1 <3]")
        self.requires("sqlite3/[>=3.35 <4]")
        self.requires("libpqxx/[>=6.4 <8]")
        self.requires("openssl/[>=3 <4]")
        self.requires("simdjson/[>=3 <4]")
        self.requires("boost/[>=1.74 <2]")

    def validate(self):
        check_min_cppstd(self, 20)

    def layout(self):
        cmake_layout(self)

    def generate(self):
        CMakeDeps(self).generate()
        PkgConfigDeps(self).generate()  # libpqxx is found with pkg-config
        toolchain = CMakeToolchain(self)
        toolchain.cache_variables["BENCHLEDGER_BUILD_TESTS"] = False
        toolchain.cache_variables["BENCHLEDGER_BUILD_BENCH"] = False
        toolchain.cache_variables["BENCHLEDGER_HELP_FILES"] = False
        # A third of the CPU time of one object a file (docs/design.md, "Build time").
        toolchain.cache_variables["BENCHLEDGER_UNITY_BUILD"] = True
        describe = self.conan_data.get("benchledger", {}).get("git_describe", "")
        if describe:
            toolchain.cache_variables["BENCHLEDGER_GIT_DESCRIBE"] = describe
        toolchain.generate()

    def build(self):
        cmake = CMake(self)
        cmake.configure()
        cmake.build()

    def package(self):
        CMake(self).install()

    def package_info(self):
        # The package's own CMake config (lib/cmake/benchledger) defines benchledger::benchledger
        # and benchledger::main and finds their dependencies, from Conan or from the platform
        # alike; CMakeDeps writes no second one.
        self.cpp_info.set_property("cmake_find_mode", "none")
        self.cpp_info.builddirs = [os.path.join("lib", "cmake", "benchledger")]
        self.cpp_info.libs = ["benchledger_main", "benchledger"]
