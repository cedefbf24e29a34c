#pragma once

// Private to core: conversion from libtorch's graph to the plain IR snapshot.
// Deliberately free of torch headers so that it can be included anywhere in core.

#include "irgraph.h"

namespace torch {
namespace jit {
struct Graph;
} // namespace jit
} // namespace torch

namespace jitscope {

/// Copies a libtorch graph into core's plain value types. Must be called where torch is initialised.
IrGraph snapshotGraph(const torch::jit::Graph& graph);

} // namespace jitscope
