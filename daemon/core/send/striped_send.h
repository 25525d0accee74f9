#pragma once
// A striped send in hnowd (docs/striped-broadcast.md): one SendOperation
// per stripe, each under its own token and along its own tree, the agents'
// copies reported as one. A node lost or failed leaves every stripe: its
// children in each move to their nearest ancestor still standing there
// (the source at worst) and resume from the bytes of that stripe they hold.
// On a drift event or a loss the stripes are re-shared: a striped plan with
// the same number of stripes for what is left, over the nodes still
// standing, adopted when it predicts at least minGain less than the trees
// kept (send_replan.h's rule); nodes whose parent changes in a stripe move.
// The end game: a node whose copy of one stripe lags its other stripes by
// kEndGameLag of a stripe, with kEndGameSeconds or more left at its
// parent's share of its uplink (two TCP flows out of one uplink need not
// split it evenly: on shaped links one child of a relay was seen at 65% of
// its stripe while its sibling had 90%), moves in that
// stripe to whichever holder of the whole stripe would feed it fastest
// (hnowd, or an agent whose children are served), when that holder's share
// of its uplink is at least kEndGameGain times the current parent's: one
// slow flow does not hold the finish. Once per node and stripe. A node fed
// inside its room moves only to a holder in its room (the stripe crosses
// each trunk once).
// An agent renames the file once every stripe matched its digest, so each
// stripe's copy finishes with the file.
// A relay caught altering one stripe's bytes relays nothing more in any
// stripe: its children in each move, and the stripes are re-shared.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/coordinator.h"
#include "core/send/send_operation.h"

namespace hnow::daemon {

struct StripeSource {
  std::string token;
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  std::string sha256Hex;
};

// A move costs a connection and what the old parent had in flight: worth it
// only for half a second's work or more (on volunteers' 2 Mbit/s links that is
// 128 KiB; at a 100 Mbit/s share, 6 MiB).
inline constexpr double kEndGameSeconds = 0.5;
inline constexpr double kEndGameLag = 0.1;
inline constexpr double kEndGameGain = 1.5;

class StripedSend final : public SendRun {
 public:
  // `tree` is striped (SendTree::striped()); `stripes` and `commands` (one
  // per stripe, outliving this) are in its stripes' order.
  StripedSend(const Clock& clock, const SendTree& tree, const std::vector<std::string>& names,
              const std::vector<std::string>& addresses, const std::vector<std::string>& paths,
              std::uint64_t size, std::string sha256Hex, std::vector<StripeSource> stripes,
              const std::vector<SendCommands*>& commands, ReplanSettings settings = {});

  void start() override;
  bool report(const std::string& node, const std::string& token, const TransferReport& report) override;
  void lost(const std::string& node) override;
  bool awaitsReturn(const std::string& node) const override;
  // Its new process took the order of every stripe again: in each stripe
  // it lost while receiving, its copy resumes and it is told to pull.
  bool rejoin(const std::string& node, const std::string& address) override;
  void refusedAgain(const std::string& node, const std::string& why) override;
  // True when the stripes were re-shared.
  bool ratesChanged(const std::string& node, const planner::NodeRates& rates, const std::string& reason) override;
  bool trunkChanged(const std::string& room, const planner::Trunk& trunk, const std::string& reason) override;
  bool finished() const override;
  SendStatus status() const override;
  bool involves(const std::string& node) const override { return stripes_.front()->involves(node); }
  std::vector<Flow> flows(Duration window) const override;
  const std::string& replanNote() const override { return note_; }
  int replans() const override { return replans_; }
  std::size_t parentChangeCount() const override;
  std::vector<RelayFault> takeRelayFaults() override;
  std::vector<std::string> takeUnreachable() override { return std::exchange(unreachable_, {}); }

 private:
  bool reshare(const std::string& reason);
  void shareNodes();
  // The relays stripe `caughtIn` caught altering bytes, barred in every stripe.
  void barEverywhere(std::size_t caughtIn);
  // A parent a child could not connect to in stripe `foundIn` serves in no stripe.
  void unreachableEverywhere(std::size_t foundIn);
  void endGame(int node);
  // Children node j still feeds bytes of a stripe, over every stripe.
  int feeding(int j) const;

  const Clock& clock_;
  TimePoint started_{};
  ReplanSettings settings_;
  int replans_ = 0;
  double replannedPredictedS_ = 0.0;
  SendTree tree_;
  std::uint64_t size_;
  std::string sha256Hex_;
  std::vector<StripeSource> sources_;
  std::vector<std::unique_ptr<SendOperation>> stripes_;
  std::string note_;
  std::vector<std::vector<bool>> endGameMoved_;  // [stripe][node]
  std::vector<RelayFault> faults_;  // taken from the stripes, until takeRelayFaults()
  std::vector<std::string> unreachable_;  // taken from the stripes, until takeUnreachable()
};

}  // namespace hnow::daemon
