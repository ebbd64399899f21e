// The `benchledger ledger` commands on the built binary and real files: `log`, `show`, `note`
// and whole-ledger `export` say what the ledger holds, refuse bad selectors and targets with
// exit 2 and append nothing then, and every command finds the ledger by the documented rules.
#include <catch2/catch.hpp>

#include <sstream>

#include "integration/ledger_process.hpp"
#include "unit/ledger/ledger_support.hpp"

using namespace benchledger;
using namespace benchledger::ledger;
using namespace benchledger::testing;

namespace {

// The whitespace-separated words of a table row.
std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string word; in >> word;) out.push_back(word);
  return out;
}

// The row of `table` whose first word is `key`, or empty.
std::vector<std::string> row(const std::string& table, const std::string& key) {
  for (const auto& line : split_lines(table)) {
    auto cells = words(line);
    if (!cells.empty() && cells[0] == key) return cells;
  }
  return {};
}

std::string id_of(const std::vector<Record>& batch, std::size_t i = 0) {
  return header_of(batch[i]).id;
}

std::string ndjson_of(const std::vector<Record>& batch) {
  std::string text;
  for (const auto& record : batch) text += serialize(record) + "\n";
  return text;
}

}  // namespace

TEST_CASE("ledger log lists the runs newest first with time, label, commit, host and results") {
  ScratchDir dir;
  for (const auto& uri : store_uris(dir)) {
    INFO(uri);
    const auto store = open_store(uri);
    const auto baseline = fresh_batch("baseline", 2, "aaaa1111bbbb2222cccc");
    const auto current = fresh_batch("current", 3, "dddd4444eeee5555ffff");
    store->append(baseline);
    store->append(current);
    store->append({fresh_note(id_of(current))});  // notes are not runs

    const ProcessResult log = run_ledger({"log", "--ledger", uri});
    INFO(log.err);
    REQUIRE(log.exit_code == 0);
    const auto lines = split_lines(log.out);
    REQUIRE(lines.size() == 3);
    CHECK(words(lines[0]) ==
          std::vector<std::string>{"ID", "TIME", "LABEL", "COMMIT", "HOST", "RESULTS"});
    CHECK(words(lines[1]) == std::vector<std::string>{id_of(current), header_of(current[0]).time,
                                                      "current", "dddd4444eeee", "bench-01", "3"});
    CHECK(words(lines[2]) == std::vector<std::string>{id_of(baseline), header_of(baseline[0]).time,
                                                      "baseline", "aaaa1111bbbb", "bench-01", "2"});
    const ProcessResult newest = run_ledger({"log", "-n", "1", "--ledger", uri});
    REQUIRE(newest.exit_code == 0);
    REQUIRE(split_lines(newest.out).size() == 2);
    CHECK(words(split_lines(newest.out)[1]) == words(lines[1]));  // columns are narrower
  }
}

TEST_CASE("ledger show prints one run, its results and notes; a bad selector exits 2") {
  ScratchDir dir;
  for (const auto& uri : store_uris(dir)) {
    INFO(uri);
    const auto store = open_store(uri);
    const auto baseline = fresh_batch("baseline", 2, "aaaa1111bbbb2222cccc");
    store->append(baseline);
    store->append(fresh_batch("current", 1, "dddd4444eeee5555ffff"));
    const NoteRecord note = fresh_note(id_of(baseline, 2));
    store->append({note});

    for (const std::string& selector :
         std::vector<std::string>{"baseline", "latest~1", "git:aaaa11", id_of(baseline)}) {
      INFO(selector);
      const ProcessResult show = run_ledger({"show", selector, "--ledger", uri});
      INFO(show.err);
      REQUIRE(show.exit_code == 0);
      CHECK(row(show.out, "run") == std::vector<std::string>{"run", id_of(baseline)});
      CHECK(row(show.out, "label") == std::vector<std::string>{"label", "baseline"});
      CHECK(row(show.out, "git") ==
            std::vector<std::string>{"git", "aaaa1111bbbb", "(main)", "clean"});
      CHECK(row(show.out, "results") == std::vector<std::string>{"results", "2"});
      const auto results = row(show.out, "executors/sort");
      REQUIRE_FALSE(results.empty());
      CHECK(results.back() == id_of(baseline, 1));
      CHECK_THAT(show.out, Catch::Contains(id_of(baseline, 2)));
      const auto note_row = row(show.out, note.header.id);
      REQUIRE(note_row.size() >= 5);
      CHECK(note_row[1] == "accept-regression");
      CHECK(note_row[2] == id_of(baseline, 2));
    }

    for (const std::string bad : {"nosuchlabel", "latest~2", "git:ffff", "latest~x", "git:xyz"}) {
      INFO(bad);
      const ProcessResult show = run_ledger({"show", bad, "--ledger", uri});
      CHECK(show.exit_code == 2);
      CHECK(show.out.empty());
      CHECK_THAT(show.err, Catch::Contains(bad));
    }
    CHECK_THAT(run_ledger({"show", "nosuchlabel", "--ledger", uri}).err,
               Catch::Contains("no run matches \"nosuchlabel\""));
  }
}

TEST_CASE("ledger note appends a note on a run or a result, and refuses a bad target") {
  ScratchDir dir;
  for (const auto& uri : store_uris(dir)) {
    INFO(uri);
    const auto store = open_store(uri);
    const auto baseline = fresh_batch("baseline", 1);
    store->append(baseline);

    // A run selector: the note names the run's id.
    const ProcessResult on_run =
        run_ledger({"note", "baseline", "--kind", "comment", "--text", "the disk was busy",
                    "--author", "ann", "--ledger", uri});
    INFO(on_run.err);
    REQUIRE(on_run.exit_code == 0);
    // A result id, and the author from BENCHLEDGER_AUTHOR.
    ProcessOptions author;
    author.env = {"BENCHLEDGER_AUTHOR=bob"};
    const ProcessResult on_result =
        run_ledger({"note", id_of(baseline, 1), "--kind", "invalidate", "--text", "wrong input",
                    "--bench", "executors/sort", "--ledger", uri},
                   author);
    INFO(on_result.err);
    REQUIRE(on_result.exit_code == 0);

    const auto notes = open_store(uri)->notes();
    REQUIRE(notes.size() == 2);
    CHECK(notes[0].target == id_of(baseline));
    CHECK(notes[0].kind == NoteKind::comment);
    CHECK(notes[0].text == "the disk was busy");
    CHECK(notes[0].author == "ann");
    CHECK_FALSE(notes[0].bench);
    CHECK(notes[1].target == id_of(baseline, 1));
    CHECK(notes[1].kind == NoteKind::invalidate);
    CHECK(notes[1].author == "bob");
    CHECK(notes[1].bench == std::optional<std::string>("executors/sort"));
    // What note prints: the note's id, its target and the new head.
    CHECK(words(on_result.out) ==
          std::vector<std::string>{"appended", "note", notes[1].header.id, "on",
                                   id_of(baseline, 1) + ";", "head",
                                   open_store(uri)->verify(std::nullopt).head});

    const std::string before = run_ledger({"export", "--ledger", uri}).out;
    const std::string note_id = notes[0].header.id;
    for (const auto& [target, message] : std::vector<std::pair<std::string, std::string>>{
             {"nosuchlabel", "note target \"nosuchlabel\": no run matches it"},
             {"latest~1", "note target \"latest~1\": no run matches it"},
             {new_ulid(), "no run or result with this id"},
             {note_id, "note target " + note_id + ": no run or result with this id"}}) {
      INFO(target);
      const ProcessResult refused =
          run_ledger({"note", target, "--kind", "comment", "--text", "x", "--ledger", uri});
      CHECK(refused.exit_code == 2);
      CHECK(refused.out.empty());
      CHECK_THAT(refused.err, Catch::Contains(message));
    }
    const ProcessResult bad_kind =
        run_ledger({"note", "baseline", "--kind", "praise", "--text", "x", "--ledger", uri});
    CHECK(bad_kind.exit_code == 2);
    CHECK_THAT(bad_kind.err, Catch::Contains("--kind praise"));
    // A --bench the target does not have would cover nothing; an empty text says nothing.
    for (const auto& [args, message] :
         std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"baseline", "--kind", "accept-regression", "--bench", "nosuch", "--text", "x"},
              "--bench nosuch: run " + id_of(baseline) +
                  " has no such benchmark (it has "
                  "executors/sort)"},
             {{id_of(baseline, 1), "--kind", "remove", "--bench", "nosuch", "--text", "x"},
              "--bench nosuch: result " + id_of(baseline, 1) + " has no such benchmark"},
             {{"baseline", "--kind", "comment", "--text", ""}, "--text is empty"},
             {{"baseline", "--kind", "comment", "--text", " \t"}, "--text is empty"}}) {
      std::vector<std::string> argv{"note"};
      argv.insert(argv.end(), args.begin(), args.end());
      argv.insert(argv.end(), {"--ledger", uri});
      const ProcessResult refused = run_ledger(argv);
      INFO(message);
      CHECK(refused.exit_code == 2);
      CHECK_THAT(refused.err, Catch::Contains(message));
    }
    CHECK(run_ledger({"export", "--ledger", uri}).out == before);
    // A remove note on the run that has the benchmark is taken.
    CHECK(run_ledger({"note", "baseline", "--kind", "remove", "--bench", "executors/sort", "--text",
                      "retired", "--ledger", uri})
              .exit_code == 0);
    CHECK(open_store(uri)->notes().back().kind == NoteKind::remove);
  }
}

TEST_CASE("whole-ledger export is byte-identical to the NDJSON file, from either store") {
  ScratchDir dir;
  const auto path = dir / "ledger.ndjson";
  const auto store = open_store(path.string());
  const auto baseline = fresh_batch("baseline", 3);
  store->append(baseline);
  store->append({fresh_note(id_of(baseline, 1))});
  store->append(fresh_batch("current", 2));
  const std::string file = read_file(path);

  const ProcessResult exported = run_ledger({"export", "--ledger", path.string()});
  INFO(exported.err);
  REQUIRE(exported.exit_code == 0);
  CHECK(exported.out == file);
  CHECK(exported.err.empty());

  // The same records imported into SQLite are chained from 64 zeros the same way.
  const std::string sqlite = "sqlite:" + (dir / "ledger.db").string();
  REQUIRE(run_ledger({"import", path.string(), "--ledger", sqlite}).exit_code == 0);
  CHECK(run_ledger({"export", "--ledger", sqlite}).out == file);
}

TEST_CASE(
    "verify accepts 64 zeros as a saved head, the empty ledger every ledger begins with, and "
    "says it checks nothing") {
  ScratchDir dir;
  for (const auto& uri : store_uris(dir)) {
    INFO(uri);
    const std::string zeros(k_zero_hash);
    open_store(uri)->append(fresh_batch("baseline", 2));
    const ProcessResult verify = run_ledger({"verify", "--head", zeros, "--ledger", uri});
    INFO(verify.err);
    CHECK(verify.exit_code == 0);
    CHECK_THAT(verify.out, Catch::StartsWith("ok: ") && Catch::Contains("3 records"));
    CHECK_THAT(verify.err,
               Catch::Contains("--head is 64 zeros") && Catch::Contains("it checks nothing"));
    // A head that was never there still fails.
    CHECK(run_ledger({"verify", "--head", std::string(64, 'a'), "--ledger", uri}).exit_code == 1);
  }
}

TEST_CASE(
    "the ledger is --ledger, else BENCHLEDGER_LEDGER, else the config file, else the "
    "default under the git repository root") {
  ScratchDir dir;
  const auto repo = dir / "repo";
  const auto subdir = repo / "src" / "deep";
  std::filesystem::create_directories(subdir);
  REQUIRE(run_process({"/usr/bin/git", "init", "-q", repo.string()}).exit_code == 0);

  const auto default_ledger = repo / "ledger" / "ledger.ndjson";
  const auto config_ledger = repo / "data" / "config.ndjson";
  const auto env_ledger = dir / "env.ndjson";
  const auto flag_ledger = dir / "flag.ndjson";
  const std::vector<std::filesystem::path> all = {default_ledger, config_ledger, env_ledger,
                                                  flag_ledger};

  // `benchledger ledger ARGS...` run from `subdir`, without BENCHLEDGER_LEDGER unless given.
  std::optional<std::string> env_setting;
  const auto ledger_in_subdir = [&](const std::vector<std::string>& args) {
    std::vector<std::string> argv = {"/usr/bin/env", "-C", subdir.string(), "-u",
                                     "BENCHLEDGER_LEDGER"};
    if (env_setting) argv.push_back("BENCHLEDGER_LEDGER=" + *env_setting);
    argv.push_back(cli_path());
    argv.push_back("ledger");
    argv.insert(argv.end(), args.begin(), args.end());
    return run_process(argv);
  };
  // Imports one fresh batch; returns its run id.
  const auto import_from_subdir = [&](const std::vector<std::string>& extra) {
    const auto batch = fresh_batch("where", 1);
    const auto file = dir / (id_of(batch) + ".ndjson");
    write_file(file, ndjson_of(batch));
    std::vector<std::string> args = {"import", file.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    const ProcessResult result = ledger_in_subdir(args);
    INFO(result.err);
    REQUIRE(result.exit_code == 0);
    return id_of(batch);
  };
  // Which of the candidate ledgers hold the run.
  const auto holders = [&](const std::string& run) {
    std::vector<std::filesystem::path> out;
    for (const auto& path : all) {
      if (std::filesystem::exists(path) && open_store(path.string())->find_record(run)) {
        out.push_back(path);
      }
    }
    return out;
  };

  // Nothing given: ledger/ledger.ndjson at the repository root, found from a subdirectory.
  std::string run = import_from_subdir({});
  CHECK(holders(run) == std::vector<std::filesystem::path>{default_ledger});
  // `show` from the same subdirectory reads the same ledger.
  const ProcessResult show = ledger_in_subdir({"show", run});
  INFO(show.err);
  CHECK(show.exit_code == 0);

  // The config file's `ledger` key, relative to the config file's directory.
  write_file(repo / "benchledger.json", R"({"ledger": "data/config.ndjson"})");
  run = import_from_subdir({});
  CHECK(holders(run) == std::vector<std::filesystem::path>{config_ledger});

  // BENCHLEDGER_LEDGER over the config file.
  env_setting = env_ledger.string();
  run = import_from_subdir({});
  CHECK(holders(run) == std::vector<std::filesystem::path>{env_ledger});
  CHECK(ledger_in_subdir({"show", run}).exit_code == 0);

  // --ledger over everything.
  run = import_from_subdir({"--ledger", flag_ledger.string()});
  CHECK(holders(run) == std::vector<std::filesystem::path>{flag_ledger});
  // BENCHLEDGER_LEDGER's ledger does not hold it.
  CHECK(ledger_in_subdir({"show", run}).exit_code == 2);
}
