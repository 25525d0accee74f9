// `hnow ops` reads each record's summary out as a line a person reads,
// not the JSON state.db keeps (which `--json` gives whole).
#include <doctest/doctest.h>

#include "cli/ops_summary.h"
#include "cli/status_command.h"

using hnow::cli::readableSummary;

TEST_CASE("a send's record reads as what went where, to how many, how it went and how long it took") {
  CHECK(readableSummary("send", R"({"file":"/srv/f.bin","dest":"in/f.bin","plan":"pipelined","size":3145728,)"
                                R"("compress":"zstd","sent_size":1048576,"agents":8,"predicted_s":2.4,"actual_s":2.5,)"
                                R"("ok":7,"failed":1})") ==
        "/srv/f.bin -> in/f.bin: 3.0 MiB to 8 agent(s), pipelined, zstd (1.0 MiB moved), 7 ok, 1 failed, "
        "2.50 s (predicted 2.40 s)");
  CHECK(readableSummary("send", R"({"file":"/srv/course","dest":"course","tree":{"files":20,"file_bytes":2048},)"
                                R"("agents":3,"groups":2,"ok":3,"failed":0,"actual_s":1})") ==
        "/srv/course -> course: a tree of 20 files (2.0 KiB) to 3 agent(s) in 2 groups, 3 ok, 1.00 s");
}

TEST_CASE("a record that ended otherwise says who cancelled it, why it failed, or whom it still owes") {
  CHECK(readableSummary("send", R"({"file":"f","dest":"d","size":10,"ok":0,"failed":0,"cancelled_by":"alice"})") ==
        "f -> d: 10.0 B, 0 ok; cancelled by alice");
  CHECK(readableSummary("send", R"({"file":"f","dest":"d","error":"refused: a1: no room"})") ==
        "f -> d; refused: a1: no room");
  CHECK(readableSummary("send", R"({"file":"f","dest":"d","ok":2,"failed":1,"owed":["a3"]})") ==
        "f -> d, 2 ok, 1 failed; owed to 1 agent(s) (--until-all)");
}

TEST_CASE("a job's record reads as its command over its input, its units and its reissues") {
  CHECK(readableSummary("run", R"({"input":"/data/in.txt","command":"wc -l","plan":"lifo","predicted_s":0.192,)"
                               R"("actual_s":0.223,"reissued":2,"units":20000})") ==
        "`wc -l` over /data/in.txt: 20000 units, lifo, 2 reissued, 0.22 s (predicted 0.19 s)");
  CHECK(readableSummary("manifest", R"({"items":3,"algo":"auto","ok":6,"failed":0,"actual_s":4})") ==
        "3 item(s), auto, 6 ok, 4.00 s");
}

TEST_CASE("a summary that is not a JSON object, or of a kind it does not know, is shown as it is") {
  CHECK(readableSummary("send", "not json") == "not json");
  CHECK(readableSummary("survey", R"({"x":1})") == R"({"x":1})");
  hnow::api::OperationSummary r;
  r.id = 4;
  r.kind = "send";
  r.status = "done";
  r.summary = R"({"file":"f","dest":"d","ok":1})";
  const std::string table = hnow::cli::opsTable({r});
  CHECK(table.find("f -> d, 1 ok") != std::string::npos);
  CHECK(table.find("{\"file\"") == std::string::npos);
}
