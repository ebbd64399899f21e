// Looking again after every round never spends more than alpha: the levels of all looks, however
// many, sum to at most alpha.
#include <cmath>
#include <numbers>

#include <benchledger/error.hpp>
#include <catch2/catch.hpp>

#include "stats/sequential.hpp"

namespace st = benchledger::stats;

TEST_CASE("the levels of 10,000 looks sum to at most alpha, and spend nearly all of it") {
  for (const double alpha : {0.05, 0.01, 0.1, 0.5}) {
    double spent = 0;
    for (int look = 1; look <= 10000; ++look) spent += st::look_level(alpha, look);
    INFO("alpha " << alpha << " spent " << spent);
    CHECK(spent <= alpha);
    // What the looks after 10,000 still hold: alpha/2 * 6/pi^2 * sum over j >= 10,000 of 1/j^2,
    // about alpha * 3e-5.
    CHECK(spent >= alpha * (1 - 1e-4));
  }
}

TEST_CASE("the first look gets half of alpha and later ones fall as 1/(k-1)^2") {
  CHECK(st::look_level(0.05, 1) == 0.025);
  CHECK(st::look_level(0.05, 2) == Approx(0.025 * 6 / (std::numbers::pi * std::numbers::pi)));
  CHECK(st::look_level(0.05, 3) == Approx(st::look_level(0.05, 2) / 4));
  CHECK(st::look_level(0.05, 11) == Approx(st::look_level(0.05, 2) / 100));
}

TEST_CASE("look_level refuses an alpha outside (0, 1) and a look before the first") {
  CHECK_THROWS_WITH(st::look_level(0.0, 1), Catch::Contains("alpha 0 is outside (0, 1)"));
  CHECK_THROWS_WITH(st::look_level(1.0, 1), Catch::Contains("outside (0, 1)"));
  CHECK_THROWS_WITH(st::look_level(std::nan(""), 1), Catch::Contains("outside (0, 1)"));
  CHECK_THROWS_WITH(st::look_level(0.05, 0), Catch::Contains("look 0 is not a look"));
  CHECK_THROWS_AS(st::look_level(0.05, -3), benchledger::Error);
}

TEST_CASE("looks wait for half as many pairs again, at least one more") {
  CHECK(st::next_look(10) == 15);
  CHECK(st::next_look(15) == 23);
  CHECK(st::next_look(23) == 35);
  CHECK(st::next_look(1) == 2);
  CHECK(st::next_look(2) == 3);
  CHECK(st::next_look(3) == 5);
  CHECK_THROWS_WITH(st::next_look(0), Catch::Contains("at least one pair"));
}
