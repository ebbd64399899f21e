// ULIDs are well-formed, ordered and unique; SHA-256 matches the published test vectors;
// timestamps have the schema's exact shape.
#include <catch2/catch.hpp>

#include <regex>
#include <unordered_set>

#include <benchledger/record.hpp>

using namespace benchledger;

TEST_CASE("a ULID is 26 Crockford base32 characters") {
  const std::regex shape("[0-7][0-9A-HJKMNP-TV-Z]{25}");
  for (int i = 0; i < 1000; ++i) {
    const std::string id = new_ulid();
    REQUIRE(std::regex_match(id, shape));
    REQUIRE(is_ulid(id));
  }
  CHECK_FALSE(is_ulid("01JDQ8Z6X0000000000000000"));   // 25 characters
  CHECK_FALSE(is_ulid("01JDQ8Z6X0000000000000000I"));  // I is not Crockford
  CHECK_FALSE(is_ulid("81JDQ8Z6X0000000000000000A"));  // over 128 bits
  CHECK_FALSE(is_ulid("01jdq8z6x0000000000000000a"));  // lower case is not canonical
  CHECK_FALSE(is_ulid(std::string_view("01JDQ8Z6X00000000000000\0AA", 26)));  // a NUL byte
}

TEST_CASE("ULIDs sort in creation order and a million have no duplicate") {
  std::unordered_set<std::string> seen;
  seen.reserve(1'000'000);
  std::string previous;
  for (int i = 0; i < 1'000'000; ++i) {
    std::string id = new_ulid();
    REQUIRE(id > previous);
    previous = id;
    REQUIRE(seen.insert(std::move(id)).second);
  }
}

TEST_CASE("a ULID's time part is the current time in milliseconds") {
  const auto before = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  const std::string id = new_ulid();
  std::int64_t ms = 0;
  const std::string alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  for (int i = 0; i < 10; ++i) ms = ms * 32 + static_cast<std::int64_t>(alphabet.find(id[i]));
  CHECK(ms >= before);
  CHECK(ms <= before + 1000);
}

TEST_CASE("sha256_hex matches the FIPS 180-2 test vectors") {
  CHECK(sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sha256_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST_CASE("now_rfc3339 is UTC with microseconds") {
  const std::regex shape(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z)");
  CHECK(std::regex_match(now_rfc3339(), shape));
}
