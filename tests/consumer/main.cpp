// Uses the installed headers and library: builds a record and prints its canonical bytes, then
// appends it to a ledger and reads it back through the public Store interface, which must need
// no header that is not installed.
#include <filesystem>
#include <iostream>

#include <benchledger/ledger.hpp>
#include <benchledger/record.hpp>

int main() {
  benchledger::NoteRecord note;
  note.header.id = benchledger::new_ulid();
  note.header.time = benchledger::now_rfc3339();
  note.header.prev = std::string(benchledger::k_zero_hash);
  note.target = note.header.id;
  note.text = "installed";
  note.author = "consumer";
  const std::string bytes = benchledger::serialize(note);
  std::cout << bytes << '\n';
  if (benchledger::parse_record(bytes) != benchledger::Record{note}) return 1;

  const auto path =
      std::filesystem::temp_directory_path() / ("consumer-" + note.header.id + ".ndjson");
  const auto store = benchledger::ledger::open_store(path.string());
  store->append({note});
  const auto found = store->find_record(note.header.id);
  const bool ok = found && found->record == benchledger::Record{note} &&
                  store->verify(std::nullopt).ok && store->notes().size() == 1;
  std::filesystem::remove(path);
  return ok ? 0 : 1;
}
