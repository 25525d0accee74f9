#pragma once
// The keys in hnowd's, the agents' and the client's configs
// (docs/security.md): who may log in, with which key and rights.
#include <string>
#include <vector>

namespace hnow::conf {

class TableReader;

// [[operators]] in hnowd's config: an operator's name, public key
// (ed25519:...) and rights.
struct OperatorConfig {
  std::string name;
  std::string key;
  bool readOnly = false;  // rights = "read": status, operations, progress
};

// [[agents]] in hnowd's config: an agent's name bound to its key by the
// owner of hnowd's host (a lab set up by configuration management).
struct AgentKeyConfig {
  std::string name;
  std::string key;
};

// 1 to 64 letters, digits, '.', '_' or '-': the names of agents and
// operators, which appear in logs, paths, the status table and state.db.
bool plainName(const std::string& name);

// 1 to 64 bytes of printable UTF-8 (no newline or other control byte): an
// agent's site, from its config or its login, which appears in hnowd's log,
// the status table and manifests' `to`.
bool plainSite(const std::string& site);
inline constexpr const char* kSiteRule =
    "a site must be 1 to 64 bytes of printable UTF-8, without a newline or another control character";

// A public key as configs write it: "ed25519:" and 43 characters of
// base64url (transport/identity.h decodes it).
bool looksLikePublicKey(const std::string& text);

// The operator hnowd adds for its `admin_key_file`: whoever can read that
// file on hnowd's host (root, under the packages' unit) uses hnow at once,
// with full rights, before any [[operators]] are written (docs/security.md).
inline constexpr const char* kLocalAdminOperator = "local-admin";

std::vector<OperatorConfig> readOperators(TableReader& t);
std::vector<AgentKeyConfig> readAgentKeys(TableReader& t);
// An optional key-valued entry (`coordinator_key`), checked; "" when absent.
std::string readPublicKey(TableReader& t, std::string_view key, std::string_view what);

}  // namespace hnow::conf
