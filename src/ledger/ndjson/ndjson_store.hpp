// The NDJSON store: one record a line in one file (docs/ledger.md).
//
// Appending: open with O_APPEND, take flock(LOCK_EX), repair what an interrupted append left
// (see below), read the last line backwards for the head hash, write the whole batch with one
// write(), fdatasync, and only then report success. A new file's directory is fsynced too.
// Readers take no lock: they read up to the size they saw when they started, stop at the last
// complete line and ignore a torn tail with a warning.
//
// An append in flight is announced by a small marker file, `<ledger>.appending`, written before
// the batch and removed after its fdatasync. `<ledger>` is the file the path leads to, every
// symbolic link resolved (ledger_file.hpp), so that appends through every name of one file
// share its lock, marker and side files; anything but a regular file is refused. If a writer dies
// between the two (SIGKILL, say), the next writer finds the marker under the lock and either keeps
// the batch (all of it is there) or moves the partial batch aside to `<ledger>.torn-<UTC time>` and
// truncates it, so a batch is never half present after a crash of the process (after a crash of the
// machine, see ndjson_store.cpp). Readers skip the batch of a live marker (its writer holds the
// lock); for a stale one they do what the next writer will do: read the batch if it is complete,
// else skip it.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include <benchledger/ledger.hpp>

#include "ledger/chained_store.hpp"
#include "ledger/store_scans.hpp"

namespace benchledger::ledger::ndjson {

class NdjsonStore final : public ChainedStore, public StoreScans {
 public:
  // `uri` is kept for messages; `path` is the file. Nothing is opened or created here.
  NdjsonStore(std::string uri, std::filesystem::path path);

  std::string uri() const override { return m_uri; }
  void scan(const std::function<bool(const StoredRecord&)>& visit) const override;
  std::vector<RunRecord> find_runs(const RunSelector& selector, std::size_t limit) const override;
  void scan_results(const std::string& run_id,
                    const std::function<bool(ResultRecord&& result)>& visit) const override;
  // Offers each result's line to `take`: the one store that holds a record's bytes where a pass
  // reads them anyway.
  bool scan_results_taking(const std::string& run_id,
                           const std::function<bool(std::string_view bytes)>& take,
                           const std::function<bool(ResultRecord&& result)>& visit) const override;
  std::vector<NoteRecord> notes() const override;
  VerifyReport verify(const std::optional<std::string>& head) const override;
  VerifyReport verify_since(const std::string& saved_head) const override;
  void scan_bytes(const std::function<bool(std::int64_t position, std::string_view bytes)>& visit)
      const override;
  std::optional<StoredRecord> find_record(const std::string& id) const override;
  std::vector<RunListing> log(std::size_t limit) const override;

 private:
  std::string write_batch(
      const BatchOutline& outline,
      const std::function<std::string(Batch& batch, std::string head)>& body) override;
  // One pass over the complete lines of a consistent snapshot; `visit` returns false to stop.
  // Returns false when the ledger does not exist.
  struct LineVisit {
    std::int64_t number;
    std::int64_t offset;
    std::int64_t length;
    std::string_view bytes;
    bool too_long;
  };
  bool read_lines(const std::function<bool(const LineVisit&)>& visit) const;
  Record parse_line(const LineVisit& line) const;  // throws IntegrityError naming the line
  std::vector<std::pair<std::int64_t, std::string>> run_lines(const RunSelector& selector,
                                                              std::size_t limit) const;

  std::string m_uri;
  std::filesystem::path m_path;
};

}  // namespace benchledger::ledger::ndjson
