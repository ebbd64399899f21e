// Numbers in reports read as people write them: significant digits, separators, scaled units.
#include <cmath>
#include <limits>

#include <catch2/catch.hpp>

#include "report/format.hpp"

using namespace benchledger::report;

TEST_CASE("format_number keeps three significant digits below 1,000 and whole numbers above") {
  CHECK(format_number(1.234) == "1.23");
  CHECK(format_number(1.2) == "1.20");
  CHECK(format_number(12.345) == "12.3");
  CHECK(format_number(123.45) == "123");
  CHECK(format_number(999.4) == "999");
  CHECK(format_number(999.6) == "1,000");
  CHECK(format_number(9377.62) == "9,378");
  CHECK(format_number(1234567.0) == "1,234,567");
  CHECK(format_number(-4321.0) == "-4,321");
  CHECK(format_number(0.0) == "0");
  CHECK(format_number(-0.0) == "0");
  CHECK(format_number(0.012345) == "0.0123");
  CHECK(format_number(9.996) == "10.0");
  CHECK(format_number(0.00001234) == "1.23e-05");
  CHECK(format_number(std::numeric_limits<double>::quiet_NaN()) == "nan");
  CHECK(format_number(-std::numeric_limits<double>::infinity()) == "-inf");
}

TEST_CASE("format_integer and format_fixed group thousands") {
  CHECK(format_integer(0) == "0");
  CHECK(format_integer(999) == "999");
  CHECK(format_integer(1000) == "1,000");
  CHECK(format_integer(-1234567) == "-1,234,567");
  CHECK(format_fixed(1234.5, 2) == "1,234.50");
  CHECK(format_fixed(-0.001, 1) == "0.0");
  CHECK(format_fixed(0.25, 0) == "0");
}

TEST_CASE("time quantities move to the unit that keeps them between 1 and 1,000") {
  CHECK(format_quantity(1234567, "ns") == "1.23 ms");
  CHECK(format_quantity(1.03, "ms") == "1.03 ms");
  CHECK(format_quantity(0.00066, "s") == "660 µs");
  CHECK(format_quantity(999.9, "ns") == "1.00 µs");
  CHECK(format_quantity(12.5, "ns") == "12.5 ns");
  CHECK(format_quantity(0.5, "ns") == "0.500 ns");
  CHECK(format_quantity(30420, "ms") == "30.4 s");
  CHECK(format_quantity(7200, "s") == "7,200 s");
  CHECK(format_quantity(0, "us") == "0 µs");
}

TEST_CASE("byte quantities use binary prefixes") {
  CHECK(format_quantity(536870912, "bytes") == "512 MiB");
  CHECK(format_quantity(19.2 * 1024 * 1024, "bytes") == "19.2 MiB");
  CHECK(format_quantity(512, "bytes") == "512 B");
  CHECK(format_quantity(1536, "bytes") == "1.50 KiB");
  CHECK(format_quantity(17179869184.0, "bytes") == "16 GiB");
  CHECK(format_quantity(32768, "bytes") == "32 KiB");
}

TEST_CASE("rates and other units get an SI prefix on the number; counts are whole") {
  CHECK(format_quantity(9377.62, "ops/s") == "9.38k ops/s");
  CHECK(format_quantity(54412, "ops/s") == "54.4k ops/s");
  CHECK(format_quantity(999960, "ops/s") == "1.00M ops/s");  // the unit chosen after rounding
  CHECK(format_quantity(2.5e9, "items/s") == "2.50G items/s");
  CHECK(format_quantity(988.2, "ops/s") == "988 ops/s");
  CHECK(format_quantity(12.345, "ops/s") == "12.3 ops/s");
  CHECK(format_quantity(3, "count") == "3");
  CHECK(format_quantity(42.5, "rows") == "42.5 rows");
  CHECK(format_quantity(12500, "rows") == "12.5k rows");
  CHECK(unit_kind("MB/s") == UnitKind::rate);
  CHECK(unit_kind("us") == UnitKind::time);
  CHECK(unit_kind("bytes") == UnitKind::bytes);
  CHECK(unit_kind("widgets") == UnitKind::other);
}

TEST_CASE("every kind prints with three significant digits and a scaled unit") {
  CHECK(format_quantity(54412, "ops/s") == "54.4k ops/s");
  CHECK(format_quantity(8.784e6, "ns") == "8.78 ms");
  CHECK(format_quantity(18469, "ns") == "18.5 µs");
  CHECK(format_quantity(5.427e6, "bytes") == "5.18 MiB");
  CHECK(format_quantity(0.888205, "ms") == "888 µs");
  CHECK(format_quantity(1004, "ns") == "1.00 µs");
}

TEST_CASE("counts take the plural their number asks for") {
  CHECK(plural(0, "result", "results") == "0 results");
  CHECK(plural(1, "result", "results") == "1 result");
  CHECK(plural(1000, "result", "results") == "1,000 results");
}

TEST_CASE("a commit prints as 12 hex digits, +dirty for uncommitted changes") {
  benchledger::GitState git;
  CHECK(format_commit(git) == "-");
  git.commit = "49a18b82c0de1234567890abcdef1234567890ab";
  CHECK(format_commit(git) == "49a18b82c0de");
  git.dirty = false;
  CHECK(format_commit(git) == "49a18b82c0de");
  git.dirty = true;
  CHECK(format_commit(git) == "49a18b82c0de+dirty");
}

TEST_CASE("display_unit gives the factor that converts into the shown unit") {
  const DisplayUnit ms = display_unit(2.5e6, "ns");
  CHECK(ms.unit == "ms");
  CHECK(ms.factor == Approx(1e-6));
  const DisplayUnit mib = display_unit(3.0 * 1024 * 1024, "bytes");
  CHECK(mib.unit == "MiB");
  CHECK(mib.factor == Approx(1.0 / (1024 * 1024)));
  CHECK(display_unit(5, "count").unit.empty());
  CHECK(display_unit(5, "ops/s").unit == "ops/s");
}

TEST_CASE("changes carry a sign and one decimal, whole percent from 100%") {
  CHECK(format_change(0.0431) == "+4.3%");
  CHECK(format_change(-0.2) == "-20.0%");
  CHECK(format_change(11.35) == "+1,135%");
  CHECK(format_change(-0.0004) == "0.0%");
  CHECK(format_change(0.9996) == "+100%");
  CHECK(format_percent(0.0467) == "4.67%");
  CHECK(format_percent(0) == "0%");
}

TEST_CASE("units of one kind convert, others do not") {
  using benchledger::model::unit_factor;
  CHECK(unit_factor("ns", "ns") == 1.0);
  CHECK(*unit_factor("us", "ms") == Approx(1e-3));
  CHECK(*unit_factor("s", "ns") == Approx(1e9));
  CHECK(unit_factor("B", "bytes") == 1.0);
  CHECK_FALSE(unit_factor("ns", "ops/s").has_value());
  CHECK_FALSE(unit_factor("count", "bytes").has_value());
  CHECK_FALSE(unit_factor("ops/s", "items/s").has_value());
}
