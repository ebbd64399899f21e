// The two kinds of error the library throws at its boundary. Only src/cli turns them into
// messages and exit codes.
#pragma once

#include <stdexcept>
#include <string>

namespace benchledger {

// Anything a user can fix: bad input, unknown selector, unreadable ledger, a failed write.
// The CLI prints what() and exits 2.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// A ledger whose chain or bytes are wrong. The CLI prints what() and exits 1.
class IntegrityError : public Error {
 public:
  explicit IntegrityError(const std::string& message) : Error(message) {}
};

}  // namespace benchledger
