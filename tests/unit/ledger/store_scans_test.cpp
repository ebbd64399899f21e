// The storage shortcuts behind the Store interface: every store of the library has them, and a
// store that has none (a library user's own) gets the same answers through the public interface.
#include <catch2/catch.hpp>

#include <benchledger/ledger.hpp>

#include "ledger/store_scans.hpp"
#include "unit/ledger/ledger_support.hpp"

using namespace benchledger;
using namespace benchledger::ledger;
using namespace benchledger::testing;

namespace {

// A store as a library user may write one: the public interface only, each member handed on to
// a store of the library.
class PublicOnlyStore final : public Store {
 public:
  explicit PublicOnlyStore(Store& inner) : m_inner(inner) {}
  using Store::import;
  std::string uri() const override { return m_inner.uri(); }
  AppendResult append(const std::vector<Record>& batch) override { return m_inner.append(batch); }
  AppendResult import(const ImportSource& records) override { return m_inner.import(records); }
  void scan(const std::function<bool(const StoredRecord&)>& visit) const override {
    m_inner.scan(visit);
  }
  std::vector<RunRecord> find_runs(const RunSelector& selector, std::size_t limit) const override {
    return m_inner.find_runs(selector, limit);
  }
  void scan_results(const std::string& run_id,
                    const std::function<bool(ResultRecord&& result)>& visit) const override {
    m_inner.scan_results(run_id, visit);
  }
  std::vector<NoteRecord> notes() const override { return m_inner.notes(); }
  VerifyReport verify(const std::optional<std::string>& head) const override {
    return m_inner.verify(head);
  }
  std::vector<std::string> warnings() const override { return m_inner.warnings(); }

 private:
  Store& m_inner;
};

// The ids of what scan_series gives: each result with its run.
std::vector<std::string> series_ids(const Store& store, const SeriesQuery& query) {
  std::vector<std::string> out;
  scan_series(store, query, [&](const RunRecord& run, ResultRecord&& result) {
    out.push_back(run.header.id + "/" + result.header.id);
    return true;
  });
  return out;
}

}  // namespace

TEST_CASE("every store of the library has the shortcuts; a store of the user's own has none") {
  ScratchDir dir;
  for (const auto& uri : store_uris(dir)) {
    INFO(uri);
    const auto store = open_store(uri);
    CHECK(scans_of(*store) != nullptr);
    CHECK(scans_of(PublicOnlyStore(*store)) == nullptr);
  }
}

TEST_CASE("a store without shortcuts gives what the store it hands on to gives") {
  ScratchDir dir;
  for (const auto& uri : store_uris(dir)) {
    INFO(uri);
    const auto store = open_store(uri);
    const auto one = fresh_batch("baseline", 3);
    store->append(one);
    store->append(fresh_batch("current", 2));
    const PublicOnlyStore plain(*store);

    // Nothing is offered as bytes: every result of the run is parsed and given to visit.
    const std::string run_id = header_of(one[0]).id;
    std::size_t offered = 0;
    std::vector<std::string> visited;
    scan_results_taking(
        plain, run_id,
        [&](std::string_view) {
          ++offered;
          return true;
        },
        [&](ResultRecord&& result) {
          visited.push_back(result.header.id);
          return true;
        });
    CHECK(offered == 0);
    CHECK(visited == std::vector<std::string>{header_of(one[1]).id, header_of(one[2]).id,
                                              header_of(one[3]).id});

    // The series from one pass of scan() are the store's own answer (its indexes' for the
    // database stores), also with a filter.
    CHECK(series_ids(plain, {}).size() == 5);
    CHECK(series_ids(plain, {}) == series_ids(*store, {}));
    SeriesQuery baseline;
    baseline.label = "baseline";
    CHECK(series_ids(plain, baseline).size() == 3);
    CHECK(series_ids(plain, baseline) == series_ids(*store, baseline));

    // No columns of points: history reads the series instead.
    bool visited_point = false;
    CHECK_FALSE(scan_points(plain, {}, std::nullopt, [&](StoredPoint&&) { visited_point = true; }));
    CHECK_FALSE(visited_point);
  }
}
