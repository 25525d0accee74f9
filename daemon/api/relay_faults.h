#pragma once
// How many relay faults make an agent a suspect (docs/security.md, "Data a
// relay alters"): hnowd's core/trust/relay_suspects.h plans such an agent as a
// leaf, `hnow status` says so beside its count.
namespace hnow::api {

inline constexpr int kSuspectFaults = 2;

}  // namespace hnow::api
