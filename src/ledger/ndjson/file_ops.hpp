// The one seam where tests inject the faults a test cannot produce for real: an I/O error on
// the ledger file's write() or fdatasync(). A full disk needs no seam (RLIMIT_FSIZE gives a real
// EFBIG). Production code always gets the real calls unless the environment variable
// BENCHLEDGER_TEST_FAULT names a fault, which only tests set. Each fault strikes once, on the
// process's first call, so that code which retried would succeed and be caught by the tests:
//   write-eio        the first write fails with EIO, nothing written
//   short-write-eio  the first write writes half the bytes, the second fails with EIO
//   fdatasync-eio    the first fdatasync fails with EIO
//   short-write-hang the first write writes half the bytes, then the process sleeps until it
//                    is killed: a crash in the middle of a batch, for the SIGKILL tests
//   fdatasync-hang   the first fdatasync sleeps until the process is killed: a writer at work
//                    with all of its batch written but not yet durable
#pragma once

#include <sys/types.h>

#include <cstddef>

namespace benchledger::ledger::ndjson {

struct FileOps {
  ssize_t (*write)(int fd, const void* data, std::size_t size);
  int (*fdatasync)(int fd);
};

// The calls to use for the ledger file. Throws Error on an unknown BENCHLEDGER_TEST_FAULT.
const FileOps& file_ops();

}  // namespace benchledger::ledger::ndjson
