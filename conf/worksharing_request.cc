#include "conf/worksharing_request.h"

#include <map>

#include "conf/toml_reader.h"
#include "planner/algorithms.h"
#include "planner/worksharing/worksharing_plan.h"
#include "planner/worksharing/worksharing_search.h"

namespace hnow::conf {

const std::vector<std::string>& worksharingAlgorithms() {
  static const std::vector<std::string> names = planner::algorithmNames(planner::kWorksharingUse);
  return names;
}

namespace {

double positive(TableReader& table, std::string_view key, double value, const std::string& what) {
  if (value <= 0) table.failAt(key, std::string(key) + " " + what + " must be greater than 0");
  return value;
}

std::vector<WorksharingWorker> readWorkers(TableReader& request, const std::string& master,
                                           std::optional<double> sharedCompute) {
  std::vector<WorksharingWorker> workers;
  std::map<std::string, int> seen;
  for (TableReader& worker : request.arrayOfTables("worker")) {
    worker.allowOnly({"name", "link_time", "compute_time"});
    WorksharingWorker spec;
    spec.name = worker.requireString("name", "each [[worker]] needs a unique name");
    if (spec.name.empty()) worker.failAt("name", "a worker name cannot be empty");
    if (spec.name == master)
      worker.failAt("name", "worker '" + spec.name + "' has the master's name; rename one of them");
    if (auto [it, fresh] = seen.emplace(spec.name, static_cast<int>(workers.size())); !fresh)
      worker.failAt("name", "duplicate worker name '" + spec.name + "' (first defined in [[worker]] #" +
                                std::to_string(it->second + 1) + ")");
    const std::string of = "of worker '" + spec.name + "'";
    spec.linkTime = positive(worker, "link_time",
                             worker.requireNumber("link_time", "seconds per work unit between master and worker, > 0"),
                             of + " (seconds per work unit between master and worker)");
    if (auto own = worker.optionalNumber("compute_time")) {
      spec.computeTime = positive(worker, "compute_time", *own, of + " (seconds per work unit)");
    } else if (sharedCompute) {
      spec.computeTime = *sharedCompute;
    } else {
      worker.failHere("worker '" + spec.name + "' has no compute_time; set it here or once for all "
                      "workers at the top of the request");
    }
    workers.push_back(std::move(spec));
  }
  return workers;
}

}  // namespace

WorksharingRequest readWorksharing(TableReader& request) {
  request.allowOnly({"op", "algo", "master", "result_ratio", "lifespan", "work", "select_workers",
                     "compute_time", "worker"});
  WorksharingRequest out;
  out.algo = request.requireChoice("algo", worksharingAlgorithms());
  if (auto master = request.optionalString("master")) {
    if (master->empty()) request.failAt("master", "the master's name cannot be empty");
    out.master = *master;
  }
  out.resultRatio = request.requireNumber("result_ratio", "result units per work unit, from 0 to 1");
  if (out.resultRatio < 0 || out.resultRatio > 1)
    request.failAt("result_ratio", "result_ratio must be between 0 and 1 (seed 002 assumes results no "
                                   "larger than the work that produced them)");
  out.lifespan = request.optionalNumber("lifespan");
  out.work = request.optionalNumber("work");
  if (out.lifespan && out.work)
    request.failAt("work", "give either lifespan (the most work in that many seconds) or work (the "
                           "shortest time for that many units), not both");
  if (!out.lifespan && !out.work)
    request.failHere("missing key 'lifespan' or 'work' in the request (seconds available, or work "
                     "units to finish soonest)");
  if (out.lifespan) positive(request, "lifespan", *out.lifespan, "(seconds)");
  if (out.work) positive(request, "work", *out.work, "(work units)");
  out.selectWorkers = request.optionalBool("select_workers").value_or(true);
  std::optional<double> sharedCompute = request.optionalNumber("compute_time");
  if (sharedCompute) positive(request, "compute_time", *sharedCompute, "(seconds per work unit)");
  out.workers = readWorkers(request, out.master, sharedCompute);
  const int n = static_cast<int>(out.workers.size());
  if (n == 0) request.failHere("the request has no [[worker]] tables; add at least one");
  if (out.algo == "best" && n > planner::kMaxBestWorkers)
    request.failAt("algo", "algo 'best' is an exhaustive search over at most " +
                               std::to_string(planner::kMaxBestWorkers) + " workers and this request has " +
                               std::to_string(n) + "; use fifo, lifo or small-results");
  if (out.algo == "small-results" && n > planner::kMaxSmallResultsWorkers)
    request.failAt("algo", "algo 'small-results' takes at most " +
                               std::to_string(planner::kMaxSmallResultsWorkers) + " workers and this request has " +
                               std::to_string(n) + "; use fifo or lifo");
  return out;
}

}  // namespace hnow::conf
