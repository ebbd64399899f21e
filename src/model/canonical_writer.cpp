// The cold paths of the canonical JSON writer (canonical_writer.hpp): UTF-8 past ASCII, values
// kept verbatim, errors.
#include "model/canonical_writer.hpp"

namespace benchledger::model {

std::size_t utf8_sequence(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) {
    return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0u;
  };
  const auto cont = [&](std::size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) {
    const unsigned b = byte(k);
    return b >= lo && b <= hi;
  };
  const unsigned b0 = byte(0);
  if (b0 >= 0xC2 && b0 <= 0xDF) return cont(1) ? 2 : 0;
  if (b0 == 0xE0) return cont(1, 0xA0) && cont(2) ? 3 : 0;
  if (b0 == 0xED) return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;
  if (b0 >= 0xE1 && b0 <= 0xEF) return cont(1) && cont(2) ? 3 : 0;
  if (b0 == 0xF0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (b0 >= 0xF1 && b0 <= 0xF3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (b0 == 0xF4) return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

void refuse_non_finite(const nlohmann::json& json, const std::string& path) {
  if (json.is_number_float() && !std::isfinite(json.get<double>())) {
    throw Error("field \"" + path +
                "\": NaN or infinity cannot be written (JSON has no such number)");
  }
  if (json.is_object()) {
    for (const auto& [key, value] : json.items()) refuse_non_finite(value, path + "." + key);
  } else if (json.is_array()) {
    for (std::size_t i = 0; i < json.size(); ++i) {
      refuse_non_finite(json[i], path + "[" + std::to_string(i) + "]");
    }
  }
}

std::string CanonicalWriter::fmt_utf8_error(const FieldPath& field, std::size_t at, unsigned byte) {
  static constexpr char k_hex[] = "0123456789ABCDEF";
  return "field \"" + field.str() + "\": a string is not valid UTF-8 (byte 0x" + k_hex[byte >> 4] +
         k_hex[byte & 0xF] + " at offset " + std::to_string(at) + ")";
}

}  // namespace benchledger::model
