// Uses the installed headers and library: builds a record and prints its canonical bytes.
#include <iostream>

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
  return benchledger::parse_record(bytes) == benchledger::Record{note} ? 0 : 1;
}
