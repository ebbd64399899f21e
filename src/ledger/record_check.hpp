// What append() checks before it writes a record: the rules parse_record() applies to a line,
// applied to the struct directly, so that a store never holds a record its readers would refuse
// without paying for a JSON parse of every record it writes (the parse costs more than the
// write and the fdatasync together). serialize() itself refuses NaN, infinity and strings that
// are not UTF-8. tests/unit/ledger/record_check_test.cpp keeps the two in agreement.
#pragma once

#include <benchledger/record.hpp>

namespace benchledger::ledger {

// Throws Error `field "<path>": <reason>`, as parse_record() would for the serialized record.
void check_record(const Record& record);

}  // namespace benchledger::ledger
