// The config file's text read from elsewhere than the file system: `benchledger gate` reads a
// revision's benchledger.json with `git cat-file`, before anything is checked out.
#pragma once

#include <string>
#include <string_view>

#include <benchledger/config.hpp>

namespace benchledger::model {

// load_config for `text`, with `origin` where load_config names the path (`benchledger.json at
// HEAD: field "gate.run[0]": …`). The Config's path is left empty. Throws Error as load_config
// does, and when the text is larger than a config file may be.
Config parse_config(std::string_view text, const std::string& origin);

}  // namespace benchledger::model
