#pragma once
// Which machine an agent runs on, as hnowd groups agents that share one
// (daemon/core/links/host_intake.h): agents on one machine share its CPU and
// memory, so together they take in no more than the machine can copy,
// check and write, however fast each one's own links are. Two agents have
// one key when they run under one kernel (/etc/machine-id, else the boot
// ID) in one network namespace: agents in namespaces of their own are
// separate hosts as far as their links go (tests/netns/lab.sh). The key is
// a hash, so the machine ID itself never leaves the host. hostKeyOf is
// pure; hostKey() reads the files.
#include <string>
#include <string_view>

namespace hnow {

// 16 hex digits: FNV-1a (64 bits) of the machine and the namespace; "" when
// both are empty.
std::string hostKeyOf(std::string_view machine, std::string_view networkNamespace);

// This process's: /etc/machine-id (else /proc/sys/kernel/random/boot_id)
// and the link /proc/self/ns/net names ("net:[4026531840]").
std::string hostKey();

// What hnowd accepts from an agent: 1 to 32 lowercase hex digits.
bool plainHostKey(std::string_view key);

}  // namespace hnow
