// Record ids (ULID), timestamps and SHA-256.
#include <sys/random.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <mutex>

#include <openssl/evp.h>

#include <benchledger/error.hpp>
#include <benchledger/record.hpp>

namespace benchledger {

namespace {

constexpr char k_crockford[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

void fill_random(unsigned char* out, std::size_t size) {
  while (size > 0) {
    const ssize_t got = ::getrandom(out, size, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw Error(std::string("cannot read the OS random source: ") + std::strerror(errno));
    }
    out += got;
    size -= static_cast<std::size_t>(got);
  }
}

}  // namespace

std::string new_ulid() {
  // Monotonic within a millisecond (the ULID spec's monotonic factory): a second id in the same
  // millisecond is the previous one's random part plus one, so ids sort in creation order.
  static std::mutex mutex;
  static std::uint64_t last_ms = 0;
  static std::array<unsigned char, 10> last_random{};

  std::array<unsigned char, 16> bytes{};
  {
    const std::lock_guard lock(mutex);
    auto ms = static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                             std::chrono::system_clock::now().time_since_epoch())
                                             .count());
    if (ms <= last_ms) {
      ms = last_ms;  // never go backwards, even if the wall clock does
      int i = 9;
      while (i >= 0 && ++last_random[static_cast<std::size_t>(i)] == 0) --i;
      if (i < 0) throw Error("ULID random part overflowed within one millisecond");
    } else {
      fill_random(last_random.data(), last_random.size());
      last_ms = ms;
    }
    for (int i = 0; i < 6; ++i) {
      bytes[static_cast<std::size_t>(i)] = static_cast<unsigned char>(ms >> (8 * (5 - i)));
    }
    std::memcpy(bytes.data() + 6, last_random.data(), last_random.size());
  }
  // 128 bits as 26 base32 digits (130 bits with two leading zero bits), 5 bits a digit.
  std::string out(26, '0');
  for (int digit = 0; digit < 26; ++digit) {
    unsigned value = 0;
    for (int bit = digit * 5 - 2; bit < digit * 5 + 3; ++bit) {
      const unsigned set =
          bit < 0 ? 0u : (bytes[static_cast<std::size_t>(bit / 8)] >> (7 - bit % 8)) & 1u;
      value = (value << 1) | set;
    }
    out[static_cast<std::size_t>(digit)] = k_crockford[value];
  }
  return out;
}

bool is_ulid(std::string_view text) {
  // A table rather than strchr: every record's id is checked when it is written and read.
  static constexpr auto k_digit = [] {
    std::array<bool, 256> table{};
    for (const char* c = k_crockford; *c != '\0'; ++c) table[static_cast<unsigned char>(*c)] = true;
    return table;
  }();
  if (text.size() != 26 || text[0] > '7') return false;
  for (const char c : text) {
    if (!k_digit[static_cast<unsigned char>(c)]) return false;
  }
  return true;
}

std::string now_rfc3339() {
  const auto now = std::chrono::system_clock::now();
  const auto micros =
      std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(micros / 1'000'000);
  std::tm utc{};
  ::gmtime_r(&seconds, &utc);
  char buffer[40];
  const std::size_t length = std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%S", &utc);
  char tail[16];
  std::snprintf(tail, sizeof tail, ".%06lldZ", static_cast<long long>(micros % 1'000'000));
  return std::string(buffer, length) + tail;
}

std::string sha256_hex(std::string_view bytes) {
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
  // Fetched once: EVP_sha256() makes OpenSSL 3 look the implementation up on every call, a
  // third of the cost of hashing a 1 KB record.
  static EVP_MD* const sha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  const EVP_MD* md = sha256 != nullptr ? sha256 : EVP_sha256();
#else
  const EVP_MD* md = EVP_sha256();
#endif
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, md, nullptr) != 1) {
    throw Error("SHA-256 failed in OpenSSL");
  }
  static constexpr char k_hex[] = "0123456789abcdef";
  std::string out(2 * length, '0');
  for (unsigned int i = 0; i < length; ++i) {
    out[2 * i] = k_hex[digest[i] >> 4];
    out[2 * i + 1] = k_hex[digest[i] & 15];
  }
  return out;
}

}  // namespace benchledger
