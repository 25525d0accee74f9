@0xe32ed6e15ddaf70c;
# hnow CLI <-> hnowd: what `hnow run` asks for (ClientSession.run in
# client_session.capnp) and the report hnowd pushes while the job runs
# (ProgressListener). The shares' orders to agents are AgentControl's
# (agent_control.capnp).
#
# Every declaration's id is written out rather than derived from the file's:
# an interface's id travels in every call, so a peer of another build must
# agree on it whichever file declares it (tests/transport/wire_ids_test.cc);
# structs and enums keep theirs too, so moving one changes no schema.

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("hnow::wire");

struct RunRequest @0xeaf55fcfb1d1a517 {
  input @0 :Text;               # on hnowd's machine
  split @1 :Text;               # lines | bytes:N | records:SEP
  argv @2 :List(Text);
  command @3 :Text;             # as typed, for reports and the calibration cache
  to @4 :List(Text);            # empty or ["all"]: every alive agent; else sites or names
  order @5 :Text;               # fifo | lifo | auto
  reduceArgv @6 :List(Text);    # empty: --concat
  output @7 :Text;              # on hnowd's machine; "": kept at hnowd for the client (ClientSession.grantOutput)
  slack @8 :Float64;            # deadline = slack x predicted (+ grace); 0: default
  strategy @9 :Text;            # plan (default) | equal | self: the bench's baselines
  blockBytes @10 :UInt64;       # self: the block size; 0: 1 MiB
  replicas @11 :UInt8;          # each share on this many agents, results compared; 0: 1
  rounds @12 :UInt8;            # shares go out in rounds, each planned on ready times and what was measured; 0: auto
  maxRateBytesPerS @13 :Float64; # --max-rate: hnowd's uplink (shares) and downlink (results) at most this; 0: none
  shell @14 :Bool;              # argv and reduceArgv are /bin/sh -c COMMAND (--shell)
  adaptiveReplicas @15 :Bool;   # --replicas adaptive: a second agent checks shares of agents not yet trusted
  priority @16 :Int32;          # --priority: among jobs that want a same agent, higher first (core/jobs/job_queue.h)
}

struct RunAgentReport @0xdcf4eb4306b94610 {
  name @0 :Text;
  units @1 :UInt64;        # of accepted results
  computeS @2 :Float64;
  idleS @3 :Float64;       # the job's time not spent receiving, computing or returning
  plannedUnits @4 :UInt64;
  secondsPerUnit @5 :Float64;  # calibrated
  shareUnits @6 :List(UInt64); # units planned for it in each round (0: none that round)
  failures @7 :List(Text);     # why its attempts failed or it was left out (a refusal, a limit, an exit status)
}

struct RunBar @0x92e46ba18831456d {
  row @0 :Text;
  kind @1 :Text;           # serve | compute | return | reduce | planned
  start @2 :Float64;
  end @3 :Float64;
}

struct RunReport @0xae415a442c8cbfdd {
  finished @0 :Bool;
  error @1 :Text;           # "" unless the job failed
  algorithm @2 :Text;       # the worksharing protocol used
  predictedS @3 :Float64;
  elapsedS @4 :Float64;
  agents @5 :List(RunAgentReport);
  reissued @6 :UInt32;
  units @7 :UInt64;
  outputSize @8 :UInt64;
  output @9 :Text;          # where the result is on hnowd's machine
  phase @10 :Text;          # queued | calibrating | running | reducing | done | failed | cancelled
  bars @11 :List(RunBar);
  reduction @12 :Text;      # the reduction schedule's name, "" for --concat
  rounds @13 :UInt32;       # how many rounds the work went out in (1: one-shot)
  maxRateBytesPerS @14 :Float64;  # the run's --max-rate; 0: none
  checked @15 :UInt32;      # --replicas adaptive: shares a second agent checked
  record @16 :UInt64;      # its operation record's id (`hnow ops`, `hnow cancel`); 0: none
  cancelledBy @17 :Text;    # the operator who cancelled it; "" not cancelled
  agentsWorking @18 :UInt32;  # calibrating, or a share being served, computed or returned
  waiting @19 :Text;        # phase "queued": why it waits for agents
  priority @20 :Int32;      # its --priority
  unitsKept @21 :UInt64;    # a resumed job: units whose results hnowd accepted before it restarted
}
