// The fault-injection seam of the NDJSON store (see file_ops.hpp).
#include "ledger/ndjson/file_ops.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include <benchledger/error.hpp>

namespace benchledger::ledger::ndjson {

namespace {

ssize_t real_write(int fd, const void* data, std::size_t size) {
  return ::write(fd, data, size);
}

int real_fdatasync(int fd) {
  return ::fdatasync(fd);
}

ssize_t failing_write(int fd, const void* data, std::size_t size) {
  static int calls = 0;
  if (++calls > 1) return ::write(fd, data, size);
  errno = EIO;
  return -1;
}

ssize_t half_then_failing_write(int fd, const void* data, std::size_t size) {
  static int calls = 0;
  ++calls;
  if (calls == 1 && size > 1) return ::write(fd, data, size / 2);
  if (calls > 2) return ::write(fd, data, size);
  errno = EIO;
  return -1;
}

ssize_t half_then_hanging_write(int fd, const void* data, std::size_t size) {
  const ssize_t wrote = ::write(fd, data, size / 2);
  for (;;) ::pause();  // the test kills this process here
  return wrote;
}

int failing_fdatasync(int fd) {
  static int calls = 0;
  if (++calls > 1) return ::fdatasync(fd);
  errno = EIO;
  return -1;
}

int hanging_fdatasync(int) {
  for (;;) ::pause();  // the test kills this process here: all of the batch written, not synced
  return -1;
}

FileOps choose() {
  const char* fault = std::getenv("BENCHLEDGER_TEST_FAULT");
  const std::string name = fault == nullptr ? "" : fault;
  if (name.empty()) return {real_write, real_fdatasync};
  if (name == "write-eio") return {failing_write, real_fdatasync};
  if (name == "short-write-eio") return {half_then_failing_write, real_fdatasync};
  if (name == "fdatasync-eio") return {real_write, failing_fdatasync};
  if (name == "short-write-hang") return {half_then_hanging_write, real_fdatasync};
  if (name == "fdatasync-hang") return {real_write, hanging_fdatasync};
  throw Error("BENCHLEDGER_TEST_FAULT=" + name +
              ": unknown fault (write-eio, short-write-eio, fdatasync-eio, short-write-hang or "
              "fdatasync-hang)");
}

}  // namespace

const FileOps& file_ops() {
  static const FileOps ops = choose();
  return ops;
}

}  // namespace benchledger::ledger::ndjson
