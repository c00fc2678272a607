// The live protocol fuzzer (issue 6, docs/fuzzing.md), one include for its users (the CLI, the
// tests, the benchmark):
//   session.hpp        what is sent: steps on labelled connections, with placeholders
//   generate.hpp       seed flows of each protocol and the five mutation families
//   profile.hpp        a protocol's seeds, mutations, oracles and liveness probe
//   executor.hpp       one session on the wire, judged
//   lobby_process.hpp  the embedded reference lobby in a child process
//   fuzzer.hpp         the loop: jobs, findings, attribution, minimization, reproducers
//   hostile_hub.hpp    the mirror image: a hostile hub for clients under test
#pragma once

#include "harness/fuzz/executor.hpp"
#include "harness/fuzz/fuzzer.hpp"
#include "harness/fuzz/generate.hpp"
#include "harness/fuzz/lobby_process.hpp"
#include "harness/fuzz/profile.hpp"
#include "harness/fuzz/session.hpp"
