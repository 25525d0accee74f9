#include "conf/trust_config.h"

#include <set>

#include "base/printable.h"
#include "conf/toml_reader.h"

namespace hnow::conf {

bool plainName(const std::string& name) {
  return !name.empty() && name.size() <= 64 &&
         name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") ==
             std::string::npos;
}

bool plainSite(const std::string& site) { return !site.empty() && site.size() <= 64 && plainText(site); }

namespace {

constexpr const char* kKeyHint =
    "ed25519:<43 characters>, as `hnow key new FILE` prints it or the key file's '# public:' line shows";

}  // namespace

bool looksLikePublicKey(const std::string& text) {
  const std::string prefix = "ed25519:";
  if (text.rfind(prefix, 0) != 0 || text.size() != prefix.size() + 43) return false;
  return text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_",
                                prefix.size()) == std::string::npos;
}

std::string readPublicKey(TableReader& t, std::string_view key, std::string_view what) {
  auto value = t.optionalString(key);
  if (!value) return "";
  if (!looksLikePublicKey(*value))
    t.failAt(key, "'" + std::string(key) + "' (" + std::string(what) + ") must read " + kKeyHint + ", not '" +
                      value->substr(0, 60) + "'");
  return *value;
}

std::vector<OperatorConfig> readOperators(TableReader& t) {
  std::vector<OperatorConfig> out;
  std::set<std::string> names;
  for (TableReader& o : t.arrayOfTables("operators")) {
    o.allowOnly({"name", "key", "rights"});
    OperatorConfig op;
    op.name = o.requireString("name", "the operator's name, as its client config gives it");
    if (!plainName(op.name))
      o.failAt("name", "an operator's 'name' must be 1 to 64 letters, digits, '.', '_' or '-', not '" + op.name + "'");
    if (!names.insert(op.name).second) o.failAt("name", "the operator " + op.name + " is listed twice");
    op.key = o.requireString("key", kKeyHint);
    if (!looksLikePublicKey(op.key)) o.failAt("key", std::string("an operator's 'key' must read ") + kKeyHint);
    op.readOnly = o.requireChoice("rights", {"full", "read"}) == "read";
    out.push_back(std::move(op));
  }
  return out;
}

std::vector<AgentKeyConfig> readAgentKeys(TableReader& t) {
  std::vector<AgentKeyConfig> out;
  std::set<std::string> names;
  for (TableReader& a : t.arrayOfTables("agents")) {
    a.allowOnly({"name", "key"});
    AgentKeyConfig agent;
    agent.name = a.requireString("name", "the agent's name, as its config gives it");
    if (!plainName(agent.name) || agent.name == "hnowd")
      a.failAt("name", "an agent's 'name' must be 1 to 64 letters, digits, '.', '_' or '-' and not 'hnowd', not '" +
                           agent.name + "'");
    if (!names.insert(agent.name).second) a.failAt("name", "the agent " + agent.name + " is listed twice");
    agent.key = a.requireString("key", kKeyHint);
    if (!looksLikePublicKey(agent.key)) a.failAt("key", std::string("an agent's 'key' must read ") + kKeyHint);
    out.push_back(std::move(agent));
  }
  return out;
}

}  // namespace hnow::conf
